#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nop.t: the Node Order Protocol lab (labs/lab_nop.c over sim/sim_nop.c)
# from the command line: its options and scenarios in --help, the default
# run (lesson 09's bus, a crash at 1 ms) under NOP and TDMA labelled as a
# simulation with the issue's summary keys, lesson 09's arithmetic, every
# fault kind detected within the bound, the same seed giving the same
# figures, refusals that name what is wrong, the grade, and the screen at
# 80x24: fault keys, the live bus timeline, the summary.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" nop
export RTLAB_DATADIR=$SRCDIR

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
json_get() { # json_get FILE PYTHON-EXPR(d)
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}

run lab list
check "lab list shows nop ready" grep -qE '^nop +ready ' "$tmp/out"

run lab run nop --help
check "--help lists --medium, --protocol, --nodes, --fault, --duration" \
	bash -c "grep -q -- '--medium sim|netns' '$tmp/out' && grep -q -- '--protocol nop|tdma|both' '$tmp/out' && grep -q -- '--nodes N' '$tmp/out' && grep -q -- '--fault KIND@TIME' '$tmp/out' && grep -q -- '--duration' '$tmp/out'"
check "and the scenarios nop and tdma" bash -c "grep -qE '^  nop ' '$tmp/out' && grep -qE '^  tdma ' '$tmp/out'"

run lab run nop --seed 9 --json "$tmp/a.json"
check "the default run exits 0" [ "$rc" -eq 0 ]
check "it prints both protocols, labelled as simulated" \
	grep -q '^NOP and TDMA side by side (simulated bus, not this machine)' "$tmp/out"
check "the document is a simulation with the seed" \
	[ "$(json_get "$tmp/a.json" 'd["tier"], d["simulated"], d["params"]["seed"]')" = "('simulation', True, '9')" ]
check "its summary has the keys of the issue" \
	[ "$(json_get "$tmp/a.json" 'all(k in d["summary"] for k in ("faults_injected_count", "faults_detected_count", "false_positives_count", "detection_max_us", "detection_bound_us", "utilisation_pct"))')" = True ]
check "the crash of node 1 at 1 ms is found 165 us later (lesson 09's bus), within 735 us" \
	[ "$(json_get "$tmp/a.json" '(d["summary"]["detection_max_us"], d["summary"]["detection_bound_us"], d["summary"]["faults_detected_count"]) == (165, 735, 1)')" = True ]
check "TDMA sees it too, within its bound" \
	[ "$(json_get "$tmp/a.json" 'd["summary"]["tdma_faults_detected_count"] == 1 and d["summary"]["tdma_detection_max_us"] <= d["summary"]["tdma_detection_bound_us"]')" = True ]
check "the faults view lists the injection and the detection" \
	grep -qE '^  nop +1165 +1 +detected +crash +165' "$tmp/out"

run lab run nop --seed 9 --fault none --duration 205ms --json "$tmp/l.json"
check "lesson 09's arithmetic: rounds of 205 us, 175 us of data (85.4 %)" \
	[ "$(json_get "$tmp/l.json" '(d["summary"]["round_max_us"], round(d["summary"]["utilisation_pct"], 1)) == (205, 85.4)')" = True ]
check "against TDMA's cycles of 480 us (36.5 %)" \
	[ "$(json_get "$tmp/l.json" '(d["summary"]["tdma_round_max_us"], round(d["summary"]["tdma_utilisation_pct"], 1)) == (480, 36.5)')" = True ]

run lab run nop --seed 9 --json "$tmp/b.json"
check "the same seed gives the same figures" \
	[ "$(json_get "$tmp/a.json" 'd["extra"]["scenarios"]')" = "$(json_get "$tmp/b.json" 'd["extra"]["scenarios"]')" ]

run lab run nop --seed 3 --nodes 8 --load 60 --jitter 2 --fault crash@2ms:1 --fault babble@4ms:2 \
	--fault skip@6ms:3 --fault corrupt@8ms:4 --fault late@10ms:5 --fault dup@12ms:6 \
	--fault drift@14ms:7 --fault repair@16ms:1 --duration 30ms --json "$tmp/f.json"
check "every kind, 8 nodes, random load: exits 0" [ "$rc" -eq 0 ]
check "NOP: the six faults detected within the bound, no false positive" \
	[ "$(json_get "$tmp/f.json" '(s := d["summary"]) and (s["faults_injected_count"], s["faults_detected_count"], s["false_positives_count"], s["detection_max_us"] <= s["detection_bound_us"]) == (6, 6, 0, True)')" = True ]
check "TDMA: the seven (with the drift) likewise" \
	[ "$(json_get "$tmp/f.json" '(s := d["summary"]) and (s["tdma_faults_injected_count"], s["tdma_faults_detected_count"], s["tdma_false_positives_count"], s["tdma_detection_max_us"] <= s["tdma_detection_bound_us"]) == (7, 7, 0, True)')" = True ]

jqe() { jq -e "$@" >/dev/null; }
check "params.faults records the eight faults asked for (it was a freed value once)" \
	jqe '.params.faults | length == 8 and all(type == "string")' "$tmp/f.json"
check "the faults table has the repair, and the babbler's detection says it was injected as babble" \
	jqe '[.extra.faults[] | select(.[0] == "nop")] |
		any(.[3] == "repaired" and .[2] == 1) and
		any(.[3] == "detected" and .[2] == 2 and (.[6] | startswith("injected as babble")))' \
	"$tmp/f.json"

# Review 31: the handout's step 4 injects a drift, which NOP (no clock) cannot have; the
# faults table said nothing of it for NOP.
check "NOP's table says the drift was not injected, and why" \
	jqe '[.extra.faults[] | select(.[0] == "nop" and .[3] == "not injected")] |
		length == 1 and .[0][4] == "drift" and .[0][1] == 14000 and .[0][2] == 7 and
		(.[0][6] | test("NOP keeps no clock"))' "$tmp/f.json"
check "... while TDMA injects it" \
	jqe 'any(.extra.faults[]; .[0] == "tdma" and .[3] == "injected" and .[4] == "drift")' \
	"$tmp/f.json"

run lab run nop --fault crash@1ms:1 --fault babble@2ms:1 --duration 5ms --json "$tmp/lost.json"
check "a fault on a crashed node is said, not dropped: not injected, with when it crashed" \
	jqe '[.extra.faults[] | select(.[0] == "nop" and .[3] == "not injected")] |
		length == 1 and .[0][4] == "babble" and (.[0][6] | test("node 1 had crashed at 1000"))' \
	"$tmp/lost.json"

run grade "$tmp/f.json"
check "rtlab grade passes the run" [ "$rc" -eq 0 ]
check "naming the bound check" grep -q 'nop-within-bound' "$tmp/out"

run lab run nop --fault fire@1ms
check "an unknown fault is a usage error (exit 2)" [ "$rc" -eq 2 ]
check "that names it" grep -q "no fault called 'fire'" "$tmp/err"
run lab run nop --fault crash@1ms:7
check "a node past --nodes is refused, and named" grep -q "node 7, but --nodes 4" "$tmp/err"
run lab run nop --protocol nop --fault drift@1ms:3
check "a drift under NOP is refused: no clock" grep -q "NOP keeps no clock" "$tmp/err"

# ---- The TUI at 80x24 --------------------------------------------------------------
tui_start run 80x24
check "the menu opens" wait_for run "Labs"
check "the menu lists the nop lab" move_to run "Node Order Protocol vs TDMA"
tm send-keys -t run Enter
check "Enter opens its screen with the fault keys" wait_for run "k kill  b babble"
check "the next run starts with the CLI's default fault" \
	wait_for run "Faults of the next run: crash@1ms:1"
tm send-keys -t run x k b
check "k and b add a crash and a babbler to the next run" \
	wait_for run "Faults of the next run: crash@10ms:1 babble@20ms:2"
tm send-keys -t run Enter
check "Enter runs it: the simulated bus, live" wait_for run "NOP, SIMULATED bus" 300
check "the timeline of the nodes" wait_for run "bus, last 600 us" 300
check "the summary shows both protocols" wait_for run "NOP and TDMA side by side" 900
check "and where the document went" wait_for run "Results document: $tmp/state/rtlab/results/nop-"
tm send-keys -t run q
check "q goes back to the menu" wait_for run "Labs"

tap_done
