#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# libs.t: the shared test libraries (tests/cli/lib/) fail a test that
# runs a command nobody defines, rather than letting "if helper; then"
# skip what it guards; and can_switch, as_nobody are there for both kinds
# of test. Needs SRCDIR; no rtlab, no tmux session. TAP output for prove.
set -u
: "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"

for lib in tap tmux; do
	if [ "$lib" = tmux ] && ! command -v tmux >/dev/null; then
		skip "lib/tmux.bash: tmux is not installed"
		skip "(the same)"
		continue
	fi
	cat >"$tmp/$lib-missing.t" <<-EOT
	. "$SRCDIR/tests/cli/lib/$lib.bash" libs
	if no_such_helper_in_any_library; then ok "never"; else skip "guarded"; fi
	tap_done
	EOT
	bash "$tmp/$lib-missing.t" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "lib/$lib.bash: a command not found fails the test (exit $rc)" \
		bash -c "[ $rc -ne 0 ] && grep -q '^not ok .*every command the test ran exists' '$tmp/out' && grep -q 'no_such_helper_in_any_library: command not found' '$tmp/out'"
	cat >"$tmp/$lib-helpers.t" <<-EOT
	. "$SRCDIR/tests/cli/lib/$lib.bash" libs
	declare -F can_switch as_nobody >/dev/null && ok "helpers" || not_ok "helpers"
	tap_done
	EOT
	bash "$tmp/$lib-helpers.t" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "lib/$lib.bash: can_switch and as_nobody are defined (exit $rc)" [ "$rc" -eq 0 ]
done

tap_done
