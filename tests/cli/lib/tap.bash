# TAP helpers for the CLI tests that need no tmux (tests/cli/*.t), with a
# private temp dir and state. Source it after checking RTLAB and SRCDIR:
#   . "$SRCDIR/tests/cli/lib/tap.bash"
# It sets tmp (removed on exit), exports XDG_STATE_HOME and RTLAB_JOURNAL_DIR
# under it, and defines:
#   ok DESC / not_ok DESC [DETAIL] / skip DESC   one TAP line each
#   check DESC CONDITION...   ok when CONDITION succeeds; else not ok with
#                             $rc and the start of $tmp/err as the detail
#   tap_done                  the plan line; fails when any test failed

n=0
fails=0
rc=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; [ $# -gt 1 ] && echo "# $2"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() {
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc" "rc=$rc; $(head -c 400 "$tmp/err" 2>/dev/null | tr '\n' ' ')"
	fi
}
tap_done() {
	echo "1..$n"
	[ "$fails" -eq 0 ]
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state RTLAB_JOURNAL_DIR=$tmp/journal
