#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the lab kernel: Debian's linux-source-6.12, `make tinyconfig`, our config fragment
# (kernel-patches/lab/rtlab-lab.config) and our patch series (kernel-patches/lab/*.patch).
#
#   build-lab.sh CACHE_DIR OUT_DIR
#
# Writes OUT_DIR/vmlinuz, OUT_DIR/config and OUT_DIR/release. The result is cached in
# CACHE_DIR/lab/<key>/, where key hashes the source package version, the fragment, the
# patches and this script, so a second run with the same inputs costs nothing. The build
# is reproducible: timestamp, user, host and build version are fixed. The source package
# comes from `apt-get download` into CACHE_DIR/debs (reused when present); nothing is
# installed on the host. Set JOBS to override the make -j count.
set -euo pipefail

cache=$(mkdir -p "${1:?usage: build-lab.sh CACHE_DIR OUT_DIR}" && cd "$1" && pwd)
out=$(mkdir -p "${2:?usage: build-lab.sh CACHE_DIR OUT_DIR}" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
frag=$here/lab/rtlab-lab.config
patches=("$here"/lab/*.patch)
jobs=${JOBS:-$(($(nproc) + 1))}

log() { printf 'build-lab: %s\n' "$*" >&2; }

mkdir -p "$cache/debs" "$out"
deb=$(ls "$cache"/debs/linux-source-6.12_*.deb 2>/dev/null | sort -V | tail -n1 || true)
if [ -z "$deb" ]; then
	log "downloading linux-source-6.12 (apt-get download)"
	(cd "$cache/debs" && apt-get download -q linux-source-6.12 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
	deb=$(ls "$cache"/debs/linux-source-6.12_*.deb 2>/dev/null | sort -V | tail -n1 || true)
	[ -n "$deb" ] || { log "apt-get download linux-source-6.12 failed"; exit 1; }
fi
srcver=$(dpkg-deb -f "$deb" Version)

key=$( { echo "linux-source-6.12 $srcver"; cat "$frag" "${patches[@]}"; } |
	sha256sum | cut -c1-16)
dest=$cache/lab/$key
if [ -s "$dest/vmlinuz" ]; then
	log "cached: $dest (source $srcver)"
else
	# The driver in the patch must be the module source, byte for byte.
	tmpd=$(mktemp -d)
	trap 'rm -rf "$tmpd"' EXIT
	mkdir -p "$tmpd/chk/drivers/misc"
	(cd "$tmpd/chk" && git apply --include='drivers/misc/rtlab_inject.c' "${patches[@]}")
	if ! cmp -s "$tmpd/chk/drivers/misc/rtlab_inject.c" "$here/rtlab_inject/rtlab_inject.c"; then
		log "the patch series is stale: run kernel-patches/scripts/mkpatch.sh"
		exit 1
	fi

	work=$cache/lab/work-$key
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
	make -s tinyconfig
	scripts/kconfig/merge_config.sh -m -O . .config "$frag" >/dev/null
	make -s olddefconfig
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

	log "make -j$jobs bzImage (about 4 minutes on 2 cores)"
	start=$(date +%s)
	make -j"$jobs" bzImage > "$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
	log "built in $(($(date +%s) - start)) s"
	mkdir -p "$dest.tmp"
	cp arch/x86/boot/bzImage "$dest.tmp/vmlinuz"
	cp .config "$dest.tmp/config"
	make -s kernelrelease > "$dest.tmp/release"
	echo "$srcver" > "$dest.tmp/source-version"
	cd /
	rm -rf "$dest" && mv "$dest.tmp" "$dest"
	[ -n "${KEEP_TREE:-}" ] || rm -rf "$work"
fi
cp "$dest/vmlinuz" "$dest/config" "$dest/release" "$out/"
log "lab kernel $(cat "$out/release") -> $out/vmlinuz ($(stat -c %s "$out/vmlinuz") bytes)"
