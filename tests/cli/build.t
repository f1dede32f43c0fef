#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The build explains itself: a missing library stops make with the Debian
# package to install (not a compiler error), a missing cmocka stops the tests
# the same way, and `make deps` is quiet when all is there and says what to
# do when it is not root.
set -u
: "${SRCDIR:?set SRCDIR to the source tree}"

n=0
fails=0
check() {
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fails=$((fails + 1)); fi
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

# Run make afresh, not as a sub-make of the `make check` that runs this test
# (its jobserver is not ours, and make would warn about it).
unset MAKEFLAGS MFLAGS MAKELEVEL

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A pkg-config that pretends the module named in $HIDE is not installed.
cat >"$tmp/pkg-config" <<'EOF2'
#!/bin/sh
for a in "$@"; do [ "$a" = "$HIDE" ] && exit 1; done
exec pkg-config "$@"
EOF2
chmod +x "$tmp/pkg-config"

HIDE=jansson make -C "$SRCDIR" --no-print-directory BUILD="$tmp/b" PKG_CONFIG="$tmp/pkg-config" \
	all >"$tmp/out" 2>&1
rc=$?
check "missing jansson stops the build" [ "$rc" -ne 0 ]
check "and names the Debian package libjansson-dev" grep -q 'libjansson-dev' "$tmp/out"
not_compiled() { ! grep -qE '(^|  )CC ' "$tmp/out"; }
check "and no compiler ran" not_compiled

HIDE=cmocka make -C "$SRCDIR" --no-print-directory BUILD="$tmp/b" PKG_CONFIG="$tmp/pkg-config" \
	unit >"$tmp/out" 2>&1
rc=$?
check "missing cmocka stops the tests" [ "$rc" -ne 0 ]
check "and names libcmocka-dev" grep -q 'libcmocka-dev' "$tmp/out"

make -C "$SRCDIR" --no-print-directory deps >"$tmp/out" 2>&1
rc=$?
check "make deps succeeds when everything is installed" [ "$rc" -eq 0 ]
check "and prints nothing" [ ! -s "$tmp/out" ]
[ -s "$tmp/out" ] && sed "s/^/# /" "$tmp/out"

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	RTLAB_DEPS_PKGS="rtlab-no-such-package" setpriv --reuid=65534 --regid=65534 \
		--clear-groups sh "$SRCDIR/scripts/deps.sh" >"$tmp/out" 2>&1
	rc=$?
	check "make deps as a normal user with something missing fails" [ "$rc" -ne 0 ]
	check "and names the missing package" grep -q 'rtlab-no-such-package' "$tmp/out"
	check "and says to use sudo" grep -q 'sudo make deps' "$tmp/out"
else
	skip "deps as a normal user: needs root and setpriv to switch users"
	skip "deps as a normal user: names the package"
	skip "deps as a normal user: says to use sudo"
fi

echo "1..$n"
exit $((fails > 0))
