#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fcse.t: the FCSE lab (labs/lab_fcse.c over sim/sim_fcse.c) from the
# command line and in the TUI at 80x24: its options and scenarios in
# --help, a run of the three modes labelled as a simulation with the
# summary keys of doc/results.md's example, the same seed giving the same
# figures, a trace converted by build/fcse-trace and replayed, refusals,
# and the screen: slots, caches, counters, m switching the mode.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" fcse
export RTLAB_DATADIR=$SRCDIR
tool=$(dirname "$RTLAB")/fcse-trace

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
json_get() { # json_get FILE PYTHON-EXPR(d)
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}

run lab list
check "lab list shows fcse ready, as a simulation" grep -qE '^fcse +ready +simulation ' "$tmp/out"

run lab run fcse --help
check "--help lists --mode, --workload, --processes, --trace" \
	bash -c "grep -q -- '--mode M' '$tmp/out' && grep -q -- '--workload NAME' '$tmp/out' && grep -q -- '--processes N' '$tmp/out' && grep -q -- '--trace FILE' '$tmp/out'"
check "and the scenarios, WORKLOAD-MODE" grep -qE '^  mixed-guaranteed ' "$tmp/out"

run lab run fcse --mode sometimes
check "an unknown mode is a usage error (exit 2)" [ "$rc" -eq 2 ]
check "that names it" grep -q "no mode called 'sometimes'" "$tmp/err"

run lab run fcse --seed 42 --ticks 40 --json "$tmp/a.json"
check "a run of the three modes exits 0" [ "$rc" -eq 0 ]
check "it prints the modes view, labelled as simulated" grep -q '^SIMULATED ARMv5 VIVT caches per mode' "$tmp/out"
check "with one row per mode (and one each in the processes view)" \
	bash -c "sed '/which switches flushed/,/^\$/d' '$tmp/out' |
		grep -cE '^  mixed-(flush|guaranteed|best-effort) +[0-9]' | grep -qx 6"
check "lesson 08's predict question is measured in the predictions view" \
	grep -qE '^  mixed-guaranteed +latency_avg_us ' "$tmp/out"
check "and the paper's ratios beside ours" grep -q '^  guaranteed / flush ' "$tmp/out"
check "the document is a simulation with the seed" \
	[ "$(json_get "$tmp/a.json" 'd["tier"], d["simulated"], d["params"]["seed"]')" = "('simulation', True, '42')" ]
check "its summary has the keys of the issue" \
	[ "$(json_get "$tmp/a.json" 'all(k in d["summary"] for k in ("switch_avg_us", "switch_max_us", "flushes_count", "refused_count", "i_miss_ratio", "d_miss_ratio"))')" = True ]
check "guaranteed mode refused the process above 32 MB and never flushed" \
	[ "$(json_get "$tmp/a.json" '[(s["refused_count"], s["flushes_count"]) for s in d["extra"]["scenarios"] if s["name"] == "mixed-guaranteed"][0]')" = "(1, 0)" ]
check "the averages order flush > best-effort > guaranteed" \
	[ "$(json_get "$tmp/a.json" 'd["summary"]["flush_latency_avg_us"] > d["summary"]["best_effort_latency_avg_us"] > d["summary"]["guaranteed_latency_avg_us"]')" = True ]
check "a note says it is simulated" grep -q 'SIMULATED' "$tmp/a.json"
check "the flushes view says which switches flushed and why: best effort's reasons" \
	grep -qE '^  mixed-best-effort +[0-9]+ +[1-9][0-9]* .*dirtied shared writable pages' "$tmp/out"
check "... guaranteed mode's none" \
	grep -qE '^  mixed-guaranteed +[0-9]+ +0 +0 +no flush' "$tmp/out"

run lab run fcse --seed 42 --ticks 40 --json "$tmp/b.json"
check "the same seed gives the same figures" \
	[ "$(json_get "$tmp/a.json" 'd["extra"]["scenarios"]')" = "$(json_get "$tmp/b.json" 'd["extra"]["scenarios"]')" ]

run lab run fcse --seed 1 --workload thrash --ticks 30 --mode flush,guaranteed --json "$tmp/t.json"
check "thrash: FCSE saves less than a tenth" \
	[ "$(json_get "$tmp/t.json" 'abs(d["summary"]["guaranteed_vs_flush_ratio"] - 1) < 0.1')" = True ]

# A din trace through the converter, then as a process of the trace workload.
printf '2 8000\n2 8004\n0 100000\n1 100020\n2 8008\n' >"$tmp/t.din"
"$tool" convert "$tmp/t.din" "$tmp/t.fct" >"$tmp/out" 2>"$tmp/err"
check "fcse-trace converts a din trace" grep -q '5 records' "$tmp/out"
run lab run fcse --trace "$tmp/t.fct" --trace "$tmp/t.din" --mode guaranteed --ticks 10 --json "$tmp/c.json"
check "a note says who the processes of a trace run are" \
	grep -q "processes: the RT task, 2 replaying --trace, 0 small ones (--processes): 3 in all" \
	"$tmp/out"
check "two traces run as the trace workload" \
	[ "$(json_get "$tmp/c.json" 'd["extra"]["scenarios"][0]["name"], d["extra"]["scenarios"][0]["processes_count"]')" = "('trace-guaranteed', 3)" ]
printf 'hello\n' >"$tmp/bad"
run lab run fcse --trace "$tmp/bad" --ticks 10
check "a file that is no trace is refused, and named" grep -q "$tmp/bad" "$tmp/err"
check "with a failure exit" [ "$rc" -ne 0 ]

# ---- The TUI at 80x24 --------------------------------------------------------------
tui_start run 80x24
check "the menu opens" wait_for run "Labs"
check "the menu lists the FCSE lab" move_to run "ARM FCSE: VIVT caches"
tm send-keys -t run Enter
check "Enter opens its screen, labelled SIMULATED" wait_for run "context switches: SIMULATED"
tm send-keys -t run m
check "m chooses the modes" wait_for run "Modes     flush"
tm send-keys -t run m m m
check "and comes back to all" wait_for run "Modes     all"
tm send-keys -t run w
check "w chooses the workload" wait_for run "Workload  small"
tm send-keys -t run w w w Enter
check "Enter runs it: the slot map" wait_for run "128 slots of 32 MB" 300
check "the caches by PID" wait_for run "D cache, 512 cells" 300
check "the counters" wait_for run "RT latency avg" 300
tm send-keys -t run m
check "m switches the mode" wait_for run "switching to" 300
check "the summary shows the view" wait_for run "SIMULATED ARMv5 VIVT caches per mode" 600
check "and where the document went" wait_for run "Results document: $tmp/state/rtlab/results/fcse-"
tm send-keys -t run q
check "q goes back to the menu" wait_for run "Labs"

tap_done
