#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Fetch one of Debian's kernels for the classroom VM and build the injector for it.
#
#   fetch-debian.sh stock|rt CACHE_DIR OUT_DIR
#
# stock = linux-image-amd64, rt = linux-image-rt-amd64 (Debian 12: 6.1). The image and
# headers packages are fetched with `apt-get download` into CACHE_DIR/debs (reused when
# present) and unpacked with `dpkg -x` under CACHE_DIR; nothing is installed on the host.
# Writes OUT_DIR/vmlinuz, OUT_DIR/release, OUT_DIR/config and OUT_DIR/modules/, a module
# tree holding only what the VM loads (virtio PCI, block and console, ext4 and crc32c for
# the state disk; veth, bridge and sch_netem for the networking labs; 9p over virtio for
# the exercise share; with their dependencies) plus rtlab_inject.ko built against the
# matching headers, and OUT_DIR/modules.load, the modules init loads in order (a module
# the kernel has built in is not listed).
#
# With HEADERS_ONLY=1 (what `make kmod` uses) only the headers are fetched and OUT_DIR gets
# just rtlab_inject.ko and release.
set -euo pipefail

usage="usage: fetch-debian.sh stock|rt CACHE_DIR OUT_DIR"
flavour=${1:?$usage}
cache=$(mkdir -p "${2:?$usage}" && cd "$2" && pwd)
out=$(mkdir -p "${3:?$usage}" && cd "$3" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
case "$flavour" in
stock) meta=linux-image-amd64 suffix=amd64 common=common ;;
rt) meta=linux-image-rt-amd64 suffix=rt-amd64 common=common-rt ;;
*) echo "$usage" >&2; exit 2 ;;
esac
wanted="virtio_pci virtio_blk virtio_console crc32c_generic ext4 veth bridge sch_netem
	9pnet 9pnet_virtio 9p"

log() { printf 'fetch-debian(%s): %s\n' "$flavour" "$*" >&2; }

# The ABI name (6.1.0-NN) comes from the metapackage's dependency.
abi=$(apt-cache depends "$meta" 2>/dev/null | sed -n "s/^ *Depends: linux-image-\(.*\)-$suffix\$/\1/p" | head -n1)
[ -n "$abi" ] || { log "apt-cache knows no $meta (run apt-get update?)"; exit 1; }
rel=$abi-$suffix
kbuild=linux-kbuild-$(echo "$abi" | cut -d. -f1-2)
pkgs="linux-headers-$rel linux-headers-$abi-$common $kbuild"
[ -n "${HEADERS_ONLY:-}" ] || pkgs="linux-image-$rel $pkgs"

mkdir -p "$cache/debs"
fetch=
for p in $pkgs; do
	ls "$cache/debs/${p}_"*.deb >/dev/null 2>&1 || fetch="$fetch $p"
done
if [ -n "$fetch" ]; then
	log "apt-get download$fetch"
	(cd "$cache/debs" && apt-get download -q $fetch 2>&1 |
		grep -v '^W: Download is performed unsandboxed' >&2 || true)
fi
root=$cache/debian/$rel
mkdir -p "$root"
for p in $pkgs; do
	[ -e "$root/.unpacked-$p" ] && continue
	deb=$(ls "$cache/debs/${p}_"*.deb 2>/dev/null | sort -V | tail -n1)
	[ -n "$deb" ] || { log "missing package $p"; exit 1; }
	dpkg -x "$deb" "$root"
	case "$p" in
	linux-headers-$rel)
		# Its Makefile includes the common tree by its absolute /usr/src path.
		sed -i "s|^include /usr/src/|include $root/usr/src/|" \
			"$root/usr/src/linux-headers-$rel/Makefile" ;;
	linux-image-*)
		depmod -b "$root" "$rel" ;;
	esac
	touch "$root/.unpacked-$p"
done

# The injector, built out of tree against these headers (a copy, so the source stays clean).
kmod=$cache/kmod/$rel
rm -rf "$kmod"
mkdir -p "$kmod"
cp "$here/rtlab_inject/rtlab_inject.c" "$here/rtlab_inject/Kbuild" "$kmod/"
log "building rtlab_inject.ko against linux-headers-$rel"
make -s -C "$root/usr/src/linux-headers-$rel" M="$kmod" modules >"$kmod/build.log" 2>&1 ||
	{ cat "$kmod/build.log" >&2; exit 1; }
grep -i 'warning' "$kmod/build.log" | grep -v 'Skipping BTF' >&2 || true
if [ -n "${HEADERS_ONLY:-}" ]; then
	cp "$kmod/rtlab_inject.ko" "$out/"
	echo "$rel" > "$out/release"
	log "rtlab_inject.ko for $rel -> $out/rtlab_inject.ko"
	exit 0
fi

rm -rf "$out/modules"
mkdir -p "$out/modules/lib/modules/$rel/extra"
: > "$out/modules.load"
for m in $wanted; do
	# An unknown name fails here (set -e, pipefail): Debian's configuration changed.
	deps=$(modprobe -d "$root" -S "$rel" --show-depends "$m")
	echo "$deps" | while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		rel_path=${path#"$root"}
		mkdir -p "$out/modules$(dirname "$rel_path")"
		cp "$path" "$out/modules$rel_path"
	done
	if echo "$deps" | grep -q '^insmod '; then
		echo "$m" >> "$out/modules.load"
	else
		log "$m is built into $rel"
	fi
done
cp "$root/lib/modules/$rel/modules.builtin" "$root/lib/modules/$rel/modules.order" \
	"$root/lib/modules/$rel/modules.builtin.modinfo" \
	"$out/modules/lib/modules/$rel/"
cp "$kmod/rtlab_inject.ko" "$out/modules/lib/modules/$rel/extra/"
echo rtlab_inject >> "$out/modules.load"
depmod -b "$out/modules" "$rel"
cp "$root/boot/vmlinuz-$rel" "$out/vmlinuz"
cp "$root/boot/config-$rel" "$out/config"
echo "$rel" > "$out/release"
log "$rel -> $out/vmlinuz ($(stat -c %s "$out/vmlinuz") bytes), $(find "$out/modules" -name '*.ko' | wc -l) modules"
