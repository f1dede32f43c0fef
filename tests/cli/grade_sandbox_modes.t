#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The sandbox's fences in every mode the grader runs in, from inside a run
# (tests/unit/test_grade_sandbox.c's probe): the unit test runs again as
#   - root without CAP_SYS_ADMIN (a default container's root: no mount or
#     PID namespace, the box's own uid, Landlock and the filter);
#   - an ordinary user (user namespaces: mount, PID, ... of its own);
#   - an ordinary user with namespaces refused (--no-namespaces's mode:
#     the grader's uid, Landlock and the filter only).
# Each run covers the refused calls, /dev/tty (ENXIO, with the test's own
# controlling terminal), rtlab's data folder, the grader's /proc/PID/fd and
# a signal to it. As root, `make check` runs the binary itself too.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"

bin=${TOOLS%/tools}/test_grade_sandbox
if [ ! -x "$bin" ]; then
	not_ok "the unit test binary $bin is built (make unit)"
	tap_done
fi
if ! can_switch; then
	skip "root without CAP_SYS_ADMIN: needs root and setpriv"
	skip "an ordinary user: needs root and setpriv"
	tap_done
fi
install -m 0755 "$bin" "$tmp/test_grade_sandbox"

setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin -- "$tmp/test_grade_sandbox" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
cp "$tmp/out" "$tmp/err"
check "as root without CAP_SYS_ADMIN: every case passes" [ "$rc" -eq 0 ]
check "and the fences were tried (not skipped)" \
	bash -c "grep -c 'OK.*test_fences' '$tmp/out' | grep -qx 3"

(cd "$tmp" && as_nobody "$tmp/test_grade_sandbox") >"$tmp/out" 2>"$tmp/err"
rc=$?
cp "$tmp/out" "$tmp/err"
check "as an ordinary user (user namespaces, or none): every case passes" [ "$rc" -eq 0 ]
check "and the fences were tried (not skipped)" \
	bash -c "grep -c 'OK.*test_fences' '$tmp/out' | grep -qx 3"

tap_done
