#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages rtlab needs to build, run and test. Idempotent:
# prints nothing when everything is already installed. Needs root (or sudo)
# only when something is missing. RTLAB_DEPS_PKGS replaces the package list
# and RTLAB_DEPS_TARGET the make target named in the messages: `make
# bench-deps` uses both for what the benchmarks need (the tests use them to
# check the not-root message).
#
# `deps.sh grade` (make deps-grade, and the CI files `rtlab ci` writes)
# installs only what grading needs: the compiler, the libraries rtlab links,
# cmocka for the checks, jq. The names are chosen from /etc/os-release
# (RTLAB_OS_RELEASE names a stand-in, for the tests): Debian (12) and
# Ubuntu (24.04; those names were not checked against Ubuntu's archive).
# `deps.sh grade --list` prints the names and installs nothing.
set -eu

target=${RTLAB_DEPS_TARGET:-deps}

# The package names for grading on this distribution, from os-release's ID
# (then ID_LIKE).
grade_pkgs() {
	osr=${RTLAB_OS_RELEASE:-/etc/os-release}
	# Read, not sourced: ID=... and ID_LIKE="a b" (quotes dropped).
	ids=$(sed -n 's/^ID\(_LIKE\)\{0,1\}=//p' "$osr" 2>/dev/null | tr -d "\"'" | tr '\n' ' ')
	debian="make gcc libc6-dev pkg-config libncurses-dev libtracefs-dev libtraceevent-dev
libck-dev libcmark-dev libjansson-dev libcmocka-dev libseccomp-dev jq"
	for id in $ids; do
		case $id in
		debian) echo "$debian"; return 0 ;;
		# Unverified: Ubuntu 24.04 is believed to use the same names.
		ubuntu) echo "$debian"; return 0 ;;
		esac
	done
	echo "make deps-grade: $osr names neither Debian nor Ubuntu (ID: ${ids:-none}):" \
	     "install a C compiler, make, pkg-config, jq and the development files of" \
	     "ncursesw, libtracefs, libtraceevent, ck, cmark, jansson, cmocka and" \
	     "libseccomp yourself (doc/grading.md)" >&2
	return 1
}

if [ "${1:-}" = grade ]; then
	target=${RTLAB_DEPS_TARGET:-deps-grade}
	RTLAB_DEPS_PKGS=$(grade_pkgs) || exit 1
	if [ "${2:-}" = --list ]; then
		# shellcheck disable=SC2086
		echo $RTLAB_DEPS_PKGS
		exit 0
	fi
fi

PKGS=${RTLAB_DEPS_PKGS:-"make gcc libc6-dev pkg-config
libncurses-dev libtracefs-dev libtraceevent-dev libck-dev libcmark-dev libjansson-dev
libcmocka-dev libseccomp-dev clang libclang-rt-14-dev perl tmux valgrind ncurses-term stress-ng
qemu-system-x86 qemu-utils qemu-system-arm gcc-arm-none-eabi gcc-arm-linux-gnueabi iproute2 kmod
jq procps util-linux
flex bison bc libelf-dev libssl-dev cpio rtla trace-cmd e2fsprogs
libxml2-utils file chromium reuse python3-yaml python3-jsonschema"}

missing=""
for p in $PKGS; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = "installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO=sudo
	else
		echo "make $target: these Debian packages are missing:$missing" >&2
		echo "make $target: run 'sudo make $target' (installing needs root), or install them with apt-get." >&2
		exit 1
	fi
else
	SUDO=
fi
echo "make $target: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet.
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "make $target: done"
