#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench` installs what the benchmarks need before it runs them, the way
# `make deps` does for the rest: `make bench-deps` is quiet when everything is
# there, names the missing packages and says to use sudo when not root, and
# `make bench` stops there instead of at "cyclictest missing". `make deps`
# (and so `make check`) does not install the benchmarks' tools. Never
# installs anything: the package lists are replaced. TAP output for prove.
set -u
: "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"

# Make afresh, not as a sub-make of the `make check` that runs this test.
unset MAKEFLAGS MFLAGS MAKELEVEL

# Packages that are surely installed: the ones this test itself runs.
present=$(dpkg-query -S "$(command -v make)" 2>/dev/null | cut -d: -f1)
if [ -n "$present" ]; then
	make -C "$SRCDIR" --no-print-directory bench-deps BENCH_PKGS="$present" >"$tmp/out" 2>&1
	rc=$?
	check "make bench-deps with everything present exits 0 ($present)" [ "$rc" -eq 0 ]
	check "and prints nothing" [ ! -s "$tmp/out" ]
else
	skip "bench-deps when all is present: dpkg does not know make here"
	skip "bench-deps prints nothing"
fi

check "the benchmarks' packages are rt-tests and time" \
	bash -c "make -C '$SRCDIR' --no-print-directory -pn bench-deps 2>/dev/null | grep -qx 'BENCH_PKGS = rt-tests time'"
check "make deps does not install rt-tests (make check stays as light)" \
	bash -c "! grep -qwE 'rt-tests' '$SRCDIR/scripts/deps.sh'"
check "make deps installs stress-ng (make check grades beside it)" \
	grep -qw 'stress-ng' "$SRCDIR/scripts/deps.sh"

if ! can_switch; then
	skip "bench-deps as a normal user: needs root and setpriv to switch users"
else
	as_nobody make -C "$SRCDIR" --no-print-directory bench-deps \
		BENCH_PKGS="rtlab-no-such-package" >"$tmp/out" 2>&1
	rc=$?
	check "make bench-deps as a normal user with something missing fails" [ "$rc" -ne 0 ]
	check "and names the missing package" \
		grep -q 'make bench-deps: these Debian packages are missing: rtlab-no-such-package' "$tmp/out"
	check "and says to use sudo" grep -q "sudo make bench-deps" "$tmp/out"

	as_nobody make -C "$SRCDIR" --no-print-directory bench BUILD="$tmp/b" \
		BENCH_PKGS="rtlab-no-such-package" >"$tmp/out" 2>&1
	rc=$?
	check "make bench stops at bench-deps, before building or measuring" \
		bash -c "[ $rc -ne 0 ] && grep -q 'sudo make bench-deps' '$tmp/out' && ! grep -q 'cyclictest missing' '$tmp/out' && [ ! -e '$tmp/b' ]"
fi

tap_done
