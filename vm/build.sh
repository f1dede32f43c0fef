#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the classroom VM images: for each kernel, IMAGES/<kernel>/{vmlinuz,initrd.img}.
#
#   vm/build.sh IMAGES_DIR RTLAB_BIN [stock] [rt] [lab] [fcse]  (default: stock rt lab)
#
# `make vm` (all four) and `rtlab vm build` call this. Downloads and the
# kernel builds are cached in $RTLAB_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/rtlab/vm-cache)
# and reused; delete it to start over. Needs apt-get (Debian), dpkg, and for the lab kernel
# the kernel build tools: gcc make flex bison bc libelf-dev libssl-dev.
#
# fcse is the ARM image: our linux-source-6.12 build for QEMU's versatilepb board
# (kernel-patches/arm-fcse/, with its device tree as IMAGES/fcse/versatilepb.dtb), Debian's
# armel busybox-static, and static ARM programs built here with arm-linux-gnueabi-gcc
# (vm/arm/*.c, e.g. rtlab-probe). The armel package is fetched with an apt configuration of
# its own (architecture armel, package lists in $RTLAB_CACHE/apt-armel): the host's dpkg is
# never given a foreign architecture. rtlab itself is not in it (the host's binary is x86).
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: vm/build.sh IMAGES_DIR RTLAB_BIN [stock|rt|lab|fcse]..." >&2; exit 2; }
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
case " $kernels " in
*" fcse "*)
	for t in make flex bison bc arm-linux-gnueabi-gcc; do
		command -v "$t" >/dev/null || need="$need $t"
	done
	;;
esac
if [ -n "$need" ]; then
	log "missing:$need (Debian: apt-get install kmod flex bison bc libelf-dev libssl-dev" \
		"gcc-arm-linux-gnueabi)"
	exit 1
fi

# busybox-static provides the guest's shell and tools: the host's architecture's (the armel
# one of the ARM image is kept apart, in $cache/apt-armel/debs).
arch=$(dpkg --print-architecture)
if ! ls "$cache"/debs/busybox-static_*_"$arch".deb >/dev/null 2>&1; then
	log "apt-get download busybox-static"
	(cd "$cache/debs" && apt-get download -q busybox-static 2>&1 |
		grep -v '^W: Download is performed unsandboxed' >&2 || true)
fi
bbdeb=$(ls "$cache"/debs/busybox-static_*_"$arch".deb | sort -V | tail -n1)
bbdir=$cache/busybox
if [ ! -x "$bbdir/bin/busybox" ] || [ "$bbdeb" -nt "$bbdir/bin/busybox" ]; then
	rm -rf "$bbdir"
	dpkg -x "$bbdeb" "$bbdir"
	touch "$bbdir/bin/busybox"
fi

# armel_busybox: Debian's armel busybox-static, unpacked into $cache/busybox-armel, through
# a private apt state: its own package lists, archive cache and downloads, all under
# $cache/apt-armel (not in $cache/debs, whose busybox is the host's).
armel_busybox() {
	local apt=$cache/apt-armel deb dir=$cache/busybox-armel
	local -a opts=(-q -o APT::Architecture=armel -o APT::Architectures::=armel
		-o Dir::State::Lists="$apt/lists" -o Dir::State::status=/dev/null
		-o Dir::Cache="$apt/cache" -o Debug::NoLocking=1)
	if ! ls "$apt"/debs/busybox-static_*_armel.deb >/dev/null 2>&1; then
		mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
		log "apt-get download busybox-static (armel, private apt state in $apt)"
		apt-get "${opts[@]}" update 2>&1 |
			grep -v '^W: Download is performed unsandboxed' >&2 || true
		(cd "$apt/debs" && apt-get "${opts[@]}" download busybox-static:armel 2>&1 |
			grep -v '^W: Download is performed unsandboxed' >&2 || true)
	fi
	deb=$(ls "$apt"/debs/busybox-static_*_armel.deb 2>/dev/null | sort -V | tail -n1)
	[ -n "$deb" ] || { log "apt-get download busybox-static:armel failed"; exit 1; }
	if [ ! -e "$dir/bin/busybox" ] || [ "$deb" -nt "$dir/bin/busybox" ]; then
		rm -rf "$dir"
		dpkg -x "$deb" "$dir"
		touch "$dir/bin/busybox"
	fi
}

for k in $kernels; do
	start=$(date +%s)
	# Next to the images, not in the shared cache: two source trees building at once (each
	# with its own module list) must not write the same kernel folder.
	kdir=$(cd "$images/.." && pwd)/kernel/$k
	guest_bb=$bbdir/bin/busybox
	case "$k" in
	stock|rt) "$root/kernel-patches/scripts/fetch-debian.sh" "$k" "$cache" "$kdir" ;;
	lab) "$root/kernel-patches/scripts/build-lab.sh" "$cache" "$kdir" ;;
	fcse)
		"$root/kernel-patches/scripts/build-lab.sh" "$cache" "$kdir" fcse
		armel_busybox
		guest_bb=$cache/busybox-armel/bin/busybox
		echo versatilepb > "$kdir/machine"
		rm -rf "${kdir:?}/bin"
		mkdir -p "$kdir/bin"
		# Every program of vm/arm/ (probe.c -> /usr/bin/rtlab-probe), static.
		for c in "$root"/vm/arm/*.c; do
			arm-linux-gnueabi-gcc -static -std=gnu11 -O2 -Wall -Wextra -Werror \
				-o "$kdir/bin/rtlab-$(basename "$c" .c)" "$c"
		done
		;;
	*) log "unknown kernel $k (stock, rt, lab or fcse)"; exit 2 ;;
	esac
	mkdir -p "$images/$k"
	BUSYBOX_HOST=$bbdir/bin/busybox "$root/vm/mkinitramfs.sh" "$k" "$kdir" "$bin" "$root" \
		"$guest_bb" "$images/$k/initrd.img"
	cp "$kdir/vmlinuz" "$images/$k/vmlinuz.tmp"
	mv "$images/$k/vmlinuz.tmp" "$images/$k/vmlinuz"
	cp "$kdir/release" "$images/$k/release"
	if [ -e "$kdir/machine" ]; then
		# The board's device tree, named as the runner looks for it: <machine>.dtb.
		m=$(cat "$kdir/machine")
		cp "$kdir/versatile-pb.dtb" "$images/$k/$m.dtb"
		cp "$kdir/machine" "$images/$k/machine"
	fi
	log "$k: $(cat "$kdir/release"), vmlinuz $(stat -c %s "$images/$k/vmlinuz") bytes," \
		"initrd.img $(stat -c %s "$images/$k/initrd.img") bytes, $(($(date +%s) - start)) s"
done
