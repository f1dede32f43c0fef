#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cookie.t: the cookie lab (labs/lab_cookie*.c over sim/sim_cookie.c) from
# the command line and in the TUI at 80x24: --help with its protocols and
# scenarios, a run of one protocol and of the racy one with the summary
# keys of the issue, the replay's losing schedule, refusals, the priority
# protocols refused without SCHED_FIFO (a run as nobody) naming what is
# missing, SIGTERM mid-run (exit 130, partial, as every lab), the
# exercise's ThreadSanitizer check on the reference and on a racy variant,
# and the screen: the table with the plate, the replay stepper stepping
# the losing schedule and the same on the uni plate.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" cookie
export RTLAB_DATADIR=$SRCDIR

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
json_get() { # json_get FILE PYTHON-EXPR(d)
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}
scen() { # scen FILE NAME KEY
	json_get "$1" "[s['$3'] for s in d['extra']['scenarios'] if s['name'] == '$2'][0]"
}

run lab list
check "lab list shows cookie ready" grep -qE '^cookie +ready ' "$tmp/out"

run lab run cookie --help
check "--help lists --protocol, --diners, --duration, --cookies" \
	bash -c "grep -q -- '--protocol NAME' '$tmp/out' && grep -q -- '--diners N' '$tmp/out' && grep -q -- '--duration D' '$tmp/out' && grep -q -- '--cookies N' '$tmp/out'"
check "and the scenarios, the protocols and the replays" \
	bash -c "grep -qE '^  priority-ticket ' '$tmp/out' && grep -qE '^  priority-ceiling ' '$tmp/out' && grep -qE '^  replay-broken ' '$tmp/out'"

run lab run cookie --protocol polite
check "an unknown protocol is a usage error (exit 2) that names it" \
	bash -c "[ $rc -eq 2 ] && grep -q \"no protocol called 'polite'\" '$tmp/err'"
run lab run cookie --diners 1
check "one diner is refused (exit 2)" [ "$rc" -eq 2 ]

run lab run cookie --protocol uni-directional --diners 4 --cookies 4001 --duration 1m \
	--seed 3 --json "$tmp/uni.json"
check "a run of the uni-directional plate exits 0" [ "$rc" -eq 0 ]
check "it prints the protocols view and the replay view" \
	bash -c "grep -q '^Cookies per protocol' '$tmp/out' && grep -q '^Deterministic replay' '$tmp/out'"
check "its summary has the keys of the issue" \
	[ "$(json_get "$tmp/uni.json" 'all(k in d["summary"] for k in ("produced_count", "consumed_count", "lost_count", "duplicated_count", "fairness_jain_ratio", "throughput_hz"))')" = True ]
check "4001 cookies baked, none lost, none eaten twice" \
	[ "$(json_get "$tmp/uni.json" '(d["summary"]["produced_count"], d["summary"]["lost_count"], d["summary"]["duplicated_count"])')" = "(4001, 0, 0)" ]
check "four diners, equal shares within one" \
	[ "$(json_get "$tmp/uni.json" 'max(d["extra"]["scenarios"][0]["eaten"]) - min(d["extra"]["scenarios"][0]["eaten"]) <= 1')" = True ]
check "the replay's losing schedule is 0101: one lost on the broken plate, none on the uni one" \
	[ "$(scen "$tmp/uni.json" replay-broken schedule) $(scen "$tmp/uni.json" replay-broken lost_count) $(scen "$tmp/uni.json" replay-uni lost_count)" = "0101 1 0" ]

run lab run cookie --protocol broken --diners 4 --cookies 200000 --duration 1m \
	--json "$tmp/broken.json"
check "the broken plate runs (exit 0)" [ "$rc" -eq 0 ]
check "its tally adds up: produced + eaten twice = eaten + lost + left" \
	[ "$(json_get "$tmp/broken.json" '[s["produced_count"] + s["duplicated_count"] == s["consumed_count"] + s["lost_count"] + s["left_count"] for s in d["extra"]["scenarios"] if s["name"] == "broken"][0]')" = True ]

run grade "$tmp/uni.json"
check "grading the document: the exact and fair checks pass" \
	bash -c "grep -qE 'correct-protocols-exact' '$tmp/out' && grep -qE 'uni-fair' '$tmp/out'"

# The priority ceiling (root): the holder runs at the high diner's priority from the moment
# it takes the plate, so the high diner never waits behind the hog, as it does with the plain
# mutex; its blocking moves before it runs (lesson 15, labs/cookie/README.md).
if [ "$(id -u)" -eq 0 ]; then
	run lab run cookie --protocol priority-ceiling --duration 500ms --json "$tmp/ceil.json"
	check "priority-ceiling runs (exit $rc)" [ "$rc" -eq 0 ]
	run lab run cookie --protocol priority-plain --duration 500ms --json "$tmp/plain.json"
	c=$(scen "$tmp/ceil.json" priority-ceiling wait_max_us)
	p=$(scen "$tmp/plain.json" priority-plain wait_max_us)
	echo "# wait_max_us: ceiling $c, plain $p"
	check "its high diner waited, at most, a tenth of the plain mutex's longest wait" \
		awk -v c="$c" -v p="$p" 'BEGIN { exit !(c > 0 && c * 10 < p) }'
	check "without the watchdog" [ "$(scen "$tmp/ceil.json" priority-ceiling watchdog)" = False ]
else
	skip "priority-ceiling needs root"
	skip "(the same)"
	skip "(the same)"
fi

# Without SCHED_FIFO (as nobody), a priority protocol is refused with the reason.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp" \
		XDG_STATE_HOME="$tmp/nobody" "$RTLAB" lab run cookie --protocol priority-plain \
		--json "$tmp/nobody.json" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "priority-plain as nobody fails (exit $rc)" [ "$rc" -ne 0 ]
	check "and says what is missing: SCHED_FIFO, root or CAP_SYS_NICE, RLIMIT_RTPRIO" \
		bash -c "grep -q 'SCHED_FIFO' '$tmp/err' && grep -q 'CAP_SYS_NICE' '$tmp/err' && grep -q 'RLIMIT_RTPRIO' '$tmp/err'"
else
	ok "# SKIP the refusal without SCHED_FIFO needs root and setpriv to become nobody"
	ok "# SKIP (the same)"
fi

# The exercise's own ThreadSanitizer check.
if command -v clang >/dev/null; then
	"$SRCDIR/labs/cookie/checks/tsan.sh" "$SRCDIR/labs/cookie/reference" >"$tmp/out" 2>&1
	rc=$?
	check "tsan.sh: the reference has no report (exit $rc)" [ "$rc" -eq 0 ]
	mkdir -p "$tmp/racy"
	sed 's/^int diner_turn(struct cookie_table \*t, unsigned int seat)$/static unsigned long turns;\n&/; s/^	if (!plate_here(t, seat))$/	turns++;\n&/' \
		"$SRCDIR/labs/cookie/reference/cookie.c" >"$tmp/racy/cookie.c"
	"$SRCDIR/labs/cookie/checks/tsan.sh" "$tmp/racy" >"$tmp/out" 2>&1
	rc=$?
	check "tsan.sh: a shared counter without an atomic is reported (exit $rc)" \
		bash -c "[ $rc -eq 1 ] && grep -q 'data race' '$tmp/out'"
else
	ok "# SKIP clang is not installed (make deps)"
	ok "# SKIP (the same)"
fi

# SIGTERM, also during the only (or last) protocol: exit 130, the partial
# note and the document says it was interrupted, as every other lab does.
for only in "--protocol greedy" ""; do
	: >"$tmp/term.err"
	"$RTLAB" lab run cookie $only --duration 20s --json "$tmp/term.json" \
		>/dev/null 2>"$tmp/term.err" </dev/null &
	pid=$!
	wait_until grep -q ': 20000 ms' "$tmp/term.err" && kill -TERM "$pid"
	wait "$pid"
	rc=$?
	check "SIGTERM during cookie ${only:-(all protocols)} exits 130 ($rc)" [ "$rc" -eq 130 ]
	check "and says the document is partial" \
		grep -q "results written to $tmp/term.json (interrupted: partial)" "$tmp/term.err"
	check "whose notes say it was interrupted" \
		grep -q '"interrupted: the protocols run until then are kept"' "$tmp/term.json"
done

# ---- The TUI at 80x24 --------------------------------------------------------------
tui_start run 80x24
check "the menu opens" wait_for run "Labs"
check "the menu lists the cookie lab" move_to run "Cookie protocols (an allegory)"
tm send-keys -t run Enter
check "Enter opens its screen" wait_for run "Cookie protocols (an allegory)"
tm send-keys -t run i
check "i opens the replay stepper on the losing schedule" \
	wait_for run "protocol broken   schedule 0101   step 0 of 4"
tm send-keys -t run Space Space
check "two steps: both diners took cookie 1" wait_for run "eaten twice 1"
tm send-keys -t run Space Space
check "four: the second put buried a cookie" wait_for run "lost 1   eaten twice 1"
tm send-keys -t run x Space Space Space Space
check "x: the same schedule on the uni-directional plate" \
	wait_for run "protocol uni-directional   schedule 0101   step 4 of 4"
check "loses nothing" on_screen run "lost 0   eaten twice 0"
tm send-keys -t run Escape
check "Esc leaves the stepper" wait_gone run "Cookie replay:"
tm send-keys -t run Enter
check "Enter runs the protocols: the table with its seats" wait_for run "seat 3" 300
check "the summary shows the protocols view" wait_for run "Cookies per protocol" 1200
tm send-keys -t run q
check "q goes back to the menu" wait_for run "Labs"

tap_done
