#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# example.t: the example lab (labs/lab_example.c over sim/sim_example.c),
# which also shows that a lab added in its own two files and two registry
# lines reaches every front end: `lab list`, `lab run` and its --help, the
# text tables, the HTML report, and the TUI menu with its screen. It is a
# simulation: the same seed gives the same figures on any machine.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" example
export RTLAB_DATADIR=$SRCDIR

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
json_get() { # json_get FILE PYTHON-EXPR(d) -> prints the value
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}

run lab list
check "lab list shows the example lab, ready, as a simulation" \
	grep -qE '^example +ready +simulation ' "$tmp/out"

run lab run example --help
check "its --help lists its option from the table" grep -qE '^  --scenario S\[,S\]' "$tmp/out"
check "and its scenarios" grep -qE '^  overloaded ' "$tmp/out"
check "and --seed, which every lab takes" grep -qE '^  --seed N' "$tmp/out"

run lab run example --scenario nope
check "an unknown scenario is a usage error (exit 2)" [ "$rc" -eq 2 ]
check "that names it" grep -q "no scenario called 'nope'" "$tmp/err"

run lab run example --seed 42 --json "$tmp/a.json"
check "a run with --seed 42 exits 0" [ "$rc" -eq 0 ]
check "it prints the scenarios view" grep -q '^Simulated scenarios (a model, not this machine)' "$tmp/out"
check "with one row per scenario" \
	bash -c "grep -cE '^  (quiet|busy|overloaded) +100000 ' '$tmp/out' | grep -qx 3"
check "the document says simulation and records the seed" \
	[ "$(json_get "$tmp/a.json" 'd["tier"], d["params"]["seed"]')" = "('simulation', '42')" ]
check "the quiet scenario misses no deadline" \
	[ "$(json_get "$tmp/a.json" '[s["misses_count"] for s in d["extra"]["scenarios"] if s["name"] == "quiet"][0]')" = 0 ]
check "the document carries its views" \
	[ "$(json_get "$tmp/a.json" '[v["name"] for v in d["views"]]')" = "['scenarios']" ]

run lab run example --seed 42 --json "$tmp/b.json"
check "the same seed gives the same figures" \
	[ "$(json_get "$tmp/a.json" 'd["extra"]["scenarios"]')" = "$(json_get "$tmp/b.json" 'd["extra"]["scenarios"]')" ]
run lab run example --seed 43 --scenario busy --json "$tmp/c.json"
check "another seed gives other figures" \
	[ "$(json_get "$tmp/a.json" 'd["extra"]["scenarios"][1]["misses_count"]')" != "$(json_get "$tmp/c.json" 'd["extra"]["scenarios"][0]["misses_count"]')" ]

run lab report "$tmp/a.json" --html "$tmp/a.html"
check "the HTML report has the lab's view" grep -q '<h2>Simulated scenarios (a model, not this machine)</h2>' "$tmp/a.html"
check "and says it is simulated" grep -q 'SIMULATED' "$tmp/a.html"

# ---- The TUI: the menu lists it, Enter opens its screen, Enter runs it -----------------
tui_start run 80x24
check "the menu opens" wait_for run "Labs"
check "the menu lists the example lab, last" move_to run "Deadline misses from non-preemptible"
tm send-keys -t run Enter
check "Enter opens its screen, labelled SIMULATED" wait_for run ": SIMULATED"
check "which says where it runs here" wait_for run "Here: simulation"
tm send-keys -t run Enter
check "Enter runs it and the summary shows its view" \
	wait_for run "Simulated scenarios (a model, not this machine)" 300
check "with the overloaded row" wait_match run '^ +overloaded +100000 '
check "and where the document went" wait_for run "Results document: $tmp/state/rtlab/results/example-"
tm send-keys -t run q
check "q goes back to the menu" wait_for run "Labs"

tap_done
