#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages rtlab needs to build, run and test. Idempotent:
# prints nothing when everything is already installed. Needs root (or sudo)
# only when something is missing. RTLAB_DEPS_PKGS replaces the package list
# and RTLAB_DEPS_TARGET the make target named in the messages: `make
# bench-deps` uses both for what the benchmarks need (the tests use them to
# check the not-root message).
set -eu

target=${RTLAB_DEPS_TARGET:-deps}

PKGS=${RTLAB_DEPS_PKGS:-"make gcc libc6-dev pkg-config
libncurses-dev libtracefs-dev libtraceevent-dev libck-dev libcmark-dev libjansson-dev
libcmocka-dev libseccomp-dev clang libclang-rt-14-dev perl tmux valgrind ncurses-term stress-ng
qemu-system-x86 qemu-utils qemu-system-arm gcc-arm-none-eabi iproute2 kmod jq procps util-linux
flex bison bc libelf-dev libssl-dev cpio rtla trace-cmd e2fsprogs
libxml2-utils file chromium reuse"}

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
