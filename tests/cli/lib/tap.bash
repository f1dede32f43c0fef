# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the CLI tests that need no terminal (tests/cli/*.t): TAP
# counters and checks, and a private temp dir (removed on exit) with its own
# state and journal directories. Source it after checking RTLAB/SRCDIR:
#   . "$SRCDIR/tests/cli/lib/tap.bash"
# It sets tmp and the EXIT trap, exports XDG_STATE_HOME and RTLAB_JOURNAL_DIR
# under $tmp, and defines run (rtlab into $tmp/out, $tmp/err, $rc) and the
# helpers of lib/helpers.bash. A test ends with tap_done, which prints the
# plan and exits 1 if a check failed or a command was not found.

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; [ $# -gt 1 ] && echo "# $2"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { # check DESC CONDITION...: on failure, the start of $tmp/err as a comment
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc" "$(head -c 600 "$tmp/err" 2>/dev/null | tr '\n' ' ')"; fi
}
tap_done() {
	helpers_missing_check
	echo "1..$n"
	exit $((fails > 0))
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"	# other users (nobody, in the tests that switch) may enter it
export XDG_STATE_HOME=$tmp/state RTLAB_JOURNAL_DIR=$tmp/journal

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

. "${BASH_SOURCE[0]%/*}/helpers.bash"
