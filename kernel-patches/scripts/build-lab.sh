#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build one of our kernels from Debian's linux-source-6.12: `make tinyconfig`, a config
# fragment and a patch series.
#
#   build-lab.sh CACHE_DIR OUT_DIR [lab|fcse]
#
# lab (the default): x86-64, kernel-patches/lab/rtlab-lab.config and lab/*.patch.
# fcse: ARM (versatilepb, ARM926EJ-S) with the cross compiler arm-linux-gnueabi-gcc,
# kernel-patches/arm-fcse/rtlab-fcse.config and arm-fcse/*.patch; it also writes
# OUT_DIR/versatile-pb.dtb, the board's device tree from the same tree.
#
# Writes OUT_DIR/vmlinuz, OUT_DIR/config and OUT_DIR/release. The result is cached in
# CACHE_DIR/<flavour>/<key>/, where key hashes the source package version, the flavour,
# the fragment and the patches, so a second run with the same inputs costs nothing. The build
# is reproducible: timestamp, user, host and build version are fixed. The source package
# comes from `apt-get download` into CACHE_DIR/debs (reused when present); nothing is
# installed on the host. Set JOBS to override the make -j count.
set -euo pipefail

usage="usage: build-lab.sh CACHE_DIR OUT_DIR [lab|fcse]"
cache=$(mkdir -p "${1:?$usage}" && cd "$1" && pwd)
out=$(mkdir -p "${2:?$usage}" && cd "$2" && pwd)
flavour=${3:-lab}
here=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(($(nproc) + 1))}

log() { printf 'build-lab: %s\n' "$*" >&2; }

shopt -s nullglob
case "$flavour" in
lab)
	frag=$here/lab/rtlab-lab.config
	patches=("$here"/lab/*.patch)
	kmake=(make)
	target=bzImage image=arch/x86/boot/bzImage dtb=
	eta="about 4 minutes on 2 idle cores"
	;;
fcse)
	frag=$here/arm-fcse/rtlab-fcse.config
	patches=("$here"/arm-fcse/*.patch)
	command -v arm-linux-gnueabi-gcc >/dev/null || {
		log "missing arm-linux-gnueabi-gcc (Debian: apt-get install gcc-arm-linux-gnueabi)"
		exit 1
	}
	kmake=(make ARCH=arm CROSS_COMPILE=arm-linux-gnueabi-)
	target=zImage image=arch/arm/boot/zImage dtb=arm/versatile-pb.dtb
	eta="about 6 CPU-minutes: 3 to 4 minutes on 2 idle cores"
	;;
*) log "$usage"; exit 2 ;;
esac
shopt -u nullglob

mkdir -p "$cache/debs" "$out"
deb=$(ls "$cache"/debs/linux-source-6.12_*.deb 2>/dev/null | sort -V | tail -n1 || true)
if [ -z "$deb" ]; then
	log "downloading linux-source-6.12 (apt-get download)"
	(cd "$cache/debs" && apt-get download -q linux-source-6.12 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
	deb=$(ls "$cache"/debs/linux-source-6.12_*.deb 2>/dev/null | sort -V | tail -n1 || true)
	[ -n "$deb" ] || { log "apt-get download linux-source-6.12 failed"; exit 1; }
fi
srcver=$(dpkg-deb -f "$deb" Version)

key=$( { echo "linux-source-6.12 $srcver"; [ "$flavour" = lab ] || echo "$flavour"
	cat "$frag" "${patches[@]}"; } | sha256sum | cut -c1-16)
dest=$cache/$flavour/$key
if [ -s "$dest/vmlinuz" ]; then
	log "cached: $dest (source $srcver)"
else
	# The driver in the patch must be the module source, byte for byte.
	if [ "$flavour" = lab ]; then
		tmpd=$(mktemp -d)
		trap 'rm -rf "$tmpd"' EXIT
		mkdir -p "$tmpd/chk/drivers/misc"
		(cd "$tmpd/chk" &&
			git apply --include='drivers/misc/rtlab_inject.c' "${patches[@]}")
		if ! cmp -s "$tmpd/chk/drivers/misc/rtlab_inject.c" \
			"$here/rtlab_inject/rtlab_inject.c"; then
			log "the patch series is stale: run kernel-patches/scripts/mkpatch.sh"
			exit 1
		fi
	fi

	work=$cache/$flavour/work-$key
	rm -rf "$work"
	mkdir -p "$work"
	log "unpacking linux-source-6.12 $srcver"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards '*/linux-source-6.12.tar.xz' |
		tar -xJ -C "$work"
	src=$work/linux-source-6.12
	for p in "${patches[@]}"; do
		log "applying $(basename "$p")"
		(cd "$src" && patch -p1 -s --no-backup-if-mismatch < "$p")
	done

	export KBUILD_BUILD_TIMESTAMP='2025-01-01 00:00:00 UTC'
	export KBUILD_BUILD_USER=rtlab KBUILD_BUILD_HOST=rtlab KBUILD_BUILD_VERSION=1
	export KCFLAGS="-ffile-prefix-map=$src/=linux-6.12/"
	cd "$src"
	"${kmake[@]}" -s tinyconfig
	scripts/kconfig/merge_config.sh -m -O . .config "$frag" >/dev/null
	"${kmake[@]}" -s olddefconfig
	# A fragment line whose dependencies are missing silently vanishes: refuse that.
	missing=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF -- "$line" .config || { log "not in .config: $line"; missing=1; } ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			! grep -q "^$sym=" .config || { log "still set: $sym"; missing=1; } ;;
		esac
	done < "$frag"
	[ "$missing" = 0 ] || exit 1

	log "make -j$jobs $target $dtb ($eta)"
	start=$(date +%s)
	"${kmake[@]}" -j"$jobs" $target $dtb > "$work/build.log" 2>&1 ||
		{ tail -n 40 "$work/build.log" >&2; exit 1; }
	log "built in $(($(date +%s) - start)) s"
	mkdir -p "$dest.tmp"
	cp "$image" "$dest.tmp/vmlinuz"
	[ -z "$dtb" ] || cp "arch/arm/boot/dts/$dtb" "$dest.tmp/"
	cp .config "$dest.tmp/config"
	"${kmake[@]}" -s kernelrelease > "$dest.tmp/release"
	echo "$srcver" > "$dest.tmp/source-version"
	cd /
	rm -rf "$dest" && mv "$dest.tmp" "$dest"
	[ -n "${KEEP_TREE:-}" ] || rm -rf "$work"
fi
cp "$dest/vmlinuz" "$dest/config" "$dest/release" "$out/"
[ -z "$dtb" ] || cp "$dest/$(basename "$dtb")" "$out/"
log "$flavour kernel $(cat "$out/release") -> $out/vmlinuz ($(stat -c %s "$out/vmlinuz") bytes)"
