# TAP for the CLI tests that need no tmux (tests/cli/lib/tmux.bash has its
# own): counters, check with the start of $tmp/err as the failure note, skip,
# and the plan at the end. Source it, set tmp, end with tap_done.

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; [ $# -gt 1 ] && echo "# $2"; }
check() { # check DESC CONDITION...
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc" "$(head -c 600 "$tmp/err" 2>/dev/null | tr '\n' ' ')"; fi
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
tap_done() {
	echo "1..$n"
	[ "$fails" -eq 0 ]
}
