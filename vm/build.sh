#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the classroom VM images: for each kernel, IMAGES/<kernel>/{vmlinuz,initrd.img}.
#
#   vm/build.sh IMAGES_DIR RTLAB_BIN [stock] [rt] [lab]     (default: all three)
#
# `make vm` and `rtlab vm build` call this. Downloads and the lab kernel build are cached
# in $RTLAB_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/rtlab/vm-cache) and reused; delete
# it to start over. Needs apt-get (Debian), dpkg, and for the lab kernel the kernel build
# tools: gcc make flex bison bc libelf-dev libssl-dev.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: vm/build.sh IMAGES_DIR RTLAB_BIN [stock|rt|lab]..." >&2; exit 2; }
images=$1
bin=$2
shift 2
kernels=${*:-stock rt lab}
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${RTLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rtlab/vm-cache}
mkdir -p "$cache/debs" "$images"

log() { printf 'vm/build: %s\n' "$*" >&2; }

need=
for t in apt-get dpkg-deb gzip depmod modprobe; do
	command -v "$t" >/dev/null || need="$need $t"
done
case " $kernels " in
*" lab "*)
	for t in gcc make flex bison bc; do command -v "$t" >/dev/null || need="$need $t"; done
	[ -e /usr/include/libelf.h ] || need="$need libelf-dev"
	[ -e /usr/include/openssl/ssl.h ] || need="$need libssl-dev"
	;;
esac
if [ -n "$need" ]; then
	log "missing:$need (Debian: apt-get install kmod flex bison bc libelf-dev libssl-dev)"
	exit 1
fi

# busybox-static provides the guest's shell and tools.
if ! ls "$cache"/debs/busybox-static_*.deb >/dev/null 2>&1; then
	log "apt-get download busybox-static"
	(cd "$cache/debs" && apt-get download -q busybox-static 2>&1 |
		grep -v '^W: Download is performed unsandboxed' >&2 || true)
fi
bbdeb=$(ls "$cache"/debs/busybox-static_*.deb | sort -V | tail -n1)
bbdir=$cache/busybox
if [ ! -x "$bbdir/bin/busybox" ] || [ "$bbdeb" -nt "$bbdir/bin/busybox" ]; then
	rm -rf "$bbdir"
	dpkg -x "$bbdeb" "$bbdir"
	touch "$bbdir/bin/busybox"
fi

for k in $kernels; do
	start=$(date +%s)
	# Next to the images, not in the shared cache: two source trees building at once (each
	# with its own module list) must not write the same kernel folder.
	kdir=$(cd "$images/.." && pwd)/kernel/$k
	case "$k" in
	stock|rt) "$root/kernel-patches/scripts/fetch-debian.sh" "$k" "$cache" "$kdir" ;;
	lab) "$root/kernel-patches/scripts/build-lab.sh" "$cache" "$kdir" ;;
	*) log "unknown kernel $k (stock, rt or lab)"; exit 2 ;;
	esac
	mkdir -p "$images/$k"
	"$root/vm/mkinitramfs.sh" "$k" "$kdir" "$bin" "$root" "$bbdir/bin/busybox" \
		"$images/$k/initrd.img"
	cp "$kdir/vmlinuz" "$images/$k/vmlinuz.tmp"
	mv "$images/$k/vmlinuz.tmp" "$images/$k/vmlinuz"
	cp "$kdir/release" "$images/$k/release"
	log "$k: $(cat "$kdir/release"), vmlinuz $(stat -c %s "$images/$k/vmlinuz") bytes," \
		"initrd.img $(stat -c %s "$images/$k/initrd.img") bytes, $(($(date +%s) - start)) s"
done
