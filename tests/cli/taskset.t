#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# taskset.t: the task-set lab (labs/lab_taskset*.c) from the command line and
# in the TUI at 80x24: --help with its options and scenarios, usage errors,
# a brief run of ll-above and rta-miss with the analysis' verdicts and the
# measured misses, a set of one's own (--tasks, --lock ceiling) with its
# blocking term, a brief run of all five graded whole, the refusal without
# SCHED_FIFO (a run as nobody) naming what is missing, and the screen.
# Measured response times are this host's: only what holds on a loaded
# machine with a margin of milliseconds is asserted here; that the measured
# never exceeds the computed is asserted in virtual time (tests/vm/taskset.t).
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" taskset
export RTLAB_DATADIR=$SRCDIR

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
json_get() { # json_get FILE PYTHON-EXPR(d, sc(name))
	python3 -c "import json,sys
d=json.load(open(sys.argv[1]))
sc=lambda n: [s for s in d['extra']['scenarios'] if s['name'] == n][0]
print(($2))" "$1"
}

run lab list
check "lab list shows taskset ready" grep -qE '^taskset +ready ' "$tmp/out"

run lab run taskset --help
check "--help lists --scenario, --tasks, --lock, --duration, --cpu" \
	bash -c "grep -q -- '--scenario S\[,S\]' '$tmp/out' && grep -q -- '--tasks T:C\[:CS\],...' '$tmp/out' && grep -q -- '--lock none|plain|inherit|ceiling' '$tmp/out' && grep -q -- '--duration D' '$tmp/out' && grep -q -- '--cpu N' '$tmp/out'"
check "and the five scenarios" \
	bash -c "for s in ll-above rta-miss lock-plain lock-inherit lock-ceiling; do grep -qE \"^  \$s \" '$tmp/out' || exit 1; done"
check "the man page has its options" grep -q 'tasks' "$SRCDIR/doc/rtlab.1"

run lab run taskset --scenario ll-below
check "an unknown scenario is a usage error (exit 2) that names it" \
	bash -c "[ $rc -eq 2 ] && grep -q \"no scenario called 'll-below'\" '$tmp/err'"
run lab run taskset --tasks 8:2,12:4,24:9
check "a set above 90 % utilisation is refused (exit 2)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'utilisation is 95.8 %' '$tmp/err'"
run lab run taskset --lock inherit
check "--lock without --tasks is refused" bash -c "[ $rc -eq 2 ] && grep -q 'goes with --tasks' '$tmp/err'"
run lab run taskset --tasks 8:2 --scenario ll-above
check "--tasks with --scenario is refused" [ "$rc" -eq 2 ]
run lab run taskset --tasks 10:2:0.5,50:5:3
check "critical sections without --lock are refused" \
	bash -c "[ $rc -eq 2 ] && grep -q 'say plain, inherit or ceiling' '$tmp/err'"
run lab run taskset --tasks 10:2:0.5,50:5 --lock plain
check "a lock with one user is refused" [ "$rc" -eq 2 ]
run lab run taskset --tasks 8:x
check "a task that is not T:C is refused" bash -c "[ $rc -eq 2 ] && grep -q 'is not T:C' '$tmp/err'"
run lab run taskset --lock sometimes
check "an unknown lock is refused" [ "$rc" -eq 2 ]

if [ "$(id -u)" -ne 0 ]; then
	for i in $(seq 1 11); do skip "runs at SCHED_FIFO need root"; done
else
	run lab run taskset --scenario ll-above,rta-miss --duration 300ms --json "$tmp/two.json"
	check "ll-above and rta-miss run (exit $rc)" [ "$rc" -eq 0 ]
	check "the text shows the computed-vs-measured table" \
		bash -c "grep -q '^Each task (ms): computed worst response R (RTA) against the measured max' '$tmp/out' && grep -qE '^  rta-miss +3 .* misses ' '$tmp/out'"
	check "ll-above: utilisation above the Liu & Layland bound, RTA says schedulable" \
		[ "$(json_get "$tmp/two.json" 'sc("ll-above")["utilisation_pct"] > sc("ll-above")["ll_bound_pct"] and sc("ll-above")["rta_schedulable"]')" = True ]
	check "ll-above: RTA's R are 2, 6 and 20 ms" \
		[ "$(json_get "$tmp/two.json" '[t["rta_response_us"] for t in sc("ll-above")["tasks"]]')" = "[2000, 6000, 20000]" ]
	check "ll-above: every task's jobs ran (300 ms: 38, 25 and 13 releases)" \
		[ "$(json_get "$tmp/two.json" '[t["jobs_count"] for t in sc("ll-above")["tasks"]]')" = "[38, 25, 13]" ]
	check "rta-miss: RTA says the lowest misses (first iterate past D 15 ms), and it did" \
		[ "$(json_get "$tmp/two.json" '(sc("rta-miss")["tasks"][2]["rta"], sc("rta-miss")["tasks"][2]["rta_response_us"], sc("rta-miss")["tasks"][2]["misses_count"] > 0)')" = "('misses', 15000, True)" ]
	check "on a host the notes say how far noise moved measured against computed" \
		grep -q 'on this machine (real time)' "$tmp/two.json"

	run lab run taskset --tasks 10:2:0.5,20:7,50:5:3 --lock ceiling --duration 200ms \
		--json "$tmp/own.json"
	check "a set of one's own with a ceiling lock runs as scenario custom (exit $rc)" \
		[ "$(json_get "$tmp/own.json" '(sc("custom")["lock"], [t["blocking_us"] for t in sc("custom")["tasks"]])')" = "('ceiling', [3000, 3000, 0])" ]

	run lab run taskset --duration 200ms --json "$tmp/all.json"
	check "all five scenarios run (exit $rc)" [ "$rc" -eq 0 ]
	check "lock-plain: the high task has no bound" \
		[ "$(json_get "$tmp/all.json" 'sc("lock-plain")["tasks"][0]["rta"]')" = unbounded ]
	run grade "$tmp/all.json"
	check "its grade reports the four checks (this host's noise decides some of them)" \
		bash -c "for c in ll-above-meets rta-miss-misses protocols-bound-blocking plain-inverts; do grep -qE \"(PASS|FAIL) +\$c \" '$tmp/out' || exit 1; done"
fi

# A run in the classroom VM's virtual time (rt kernel, 1 s a scenario) passes all four.
run grade "$SRCDIR/tests/data/results/taskset-vm.json"
check "the VM's document: the grade passes the four checks" \
	bash -c "for c in ll-above-meets rta-miss-misses protocols-bound-blocking plain-inverts; do grep -qE \"PASS +\$c \" '$tmp/out' || exit 1; done"
check "and it measured every bounded task within its R" \
	[ "$(json_get "$SRCDIR/tests/data/results/taskset-vm.json" 'all(t["response_max_us"] <= t["rta_response_us"] for s in d["extra"]["scenarios"] for t in s["tasks"] if t["rta"] == "meets")')" = True ]

# Without SCHED_FIFO (as nobody) the lab is refused with what is missing.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp" \
		XDG_STATE_HOME="$tmp/nobody" "$RTLAB" lab run taskset --scenario ll-above \
		--duration 100ms --json "$tmp/nobody.json" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "as nobody the lab is refused (exit $rc)" [ "$rc" -ne 0 ]
	check "naming SCHED_FIFO, root or CAP_SYS_NICE, and RLIMIT_RTPRIO" \
		bash -c "grep -q 'SCHED_FIFO' '$tmp/err' && grep -q 'CAP_SYS_NICE' '$tmp/err' && grep -q 'RLIMIT_RTPRIO' '$tmp/err'"
else
	skip "the refusal without SCHED_FIFO needs root and setpriv to become nobody"
	skip "(the same)"
fi

# ---- The TUI at 80x24 --------------------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then
	tui_start run 80x24
	check "the menu opens" wait_for run "Labs"
	# Lesson 15's title starts like the lab's: go to the labs first.
	reach_lab() {
		move_to run "Cookie protocols (an allegory)" &&
			move_to run "Will my task set meet its deadlines?"
	}
	check "the menu lists the task-set lab" reach_lab
	tm send-keys -t run Enter
	check "Enter opens its screen" wait_for run "Will my task set meet its deadlines?"
	tm send-keys -t run Enter
	check "Enter runs the scenarios: the live table per task" wait_for run "worst response" 300
	check "the summary shows the task sets view" wait_for run "Task sets: utilisation" 1200
	tm send-keys -t run q
	check "q goes back to the menu" wait_for run "Labs"
else
	for i in $(seq 1 6); do skip "the screen's run needs root"; done
fi

tap_done
