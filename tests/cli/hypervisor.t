#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hypervisor.t: the hypervisor lab's model part (labs/lab_hypervisor.c over
# sim/sim_hypervisor.c) from the command line: its options and scenarios in
# --help, a run labelled as a simulation whose scenarios carry lesson 07's
# predict metric, the same seed giving the same figures, the exercise's
# scenarios met by the reference policy and missed without one, the grade
# of the document, the live part's refusals and the scenarios it runs
# without a guest (host, and pv-hint and rt-host saying why not), and the
# screen at 80x24: a run from the menu to the summary.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" hypervisor
export RTLAB_DATADIR=$SRCDIR

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
json_get() { # json_get FILE PYTHON-EXPR(d)
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}

run lab list
check "lab list shows the hypervisor lab ready" grep -qE '^hypervisor +ready ' "$tmp/out"

run lab run hypervisor --help
check "--help lists --scenario, --duration, --policy, --live" \
	bash -c "grep -q -- '--scenario S' '$tmp/out' && grep -q -- '--duration D' '$tmp/out' && grep -q -- '--policy' '$tmp/out' && grep -q -- '--live' '$tmp/out'"
check "and the scenarios of lesson 07 and the exercise" \
	bash -c "grep -qE '^  vcpu-fifo ' '$tmp/out' && grep -qE '^  io-inversion ' '$tmp/out'"

run lab run hypervisor --scenario nosuch
check "an unknown scenario is a usage error (exit 2)" [ "$rc" -eq 2 ]
check "that names it" grep -q 'no scenario called "nosuch"' "$tmp/err"
# All but a few jobs dropped must not read as a good response; p99 is never above max.
run lab run hypervisor --scenario io-inversion,io-throttled --policy none --seed 1 \
	--json "$tmp/drop.json"
check "the scenarios view counts the jobs done beside the dropped ones" \
	bash -c "grep -q 'scenario  *jobs done  *response avg' '$tmp/out' &&
		grep -qE '^  io-inversion +3 .* 1996 ' '$tmp/out'"
check "no scenario's p99 is above its max (949,222 over 949,221 once)" \
	bash -c "jq -e 'all(.extra.scenarios[]; .p99_us <= .max_us)' '$tmp/drop.json' >/dev/null"

run lab run hypervisor --live --model
check "--live with --model is a usage error" [ "$rc" -eq 2 ]

# ---- The live part without QEMU: its refusals, and the scenarios that need no guest ----
run lab run hypervisor --live --scenario lock-holder
check "--live with a scenario of the model only is a usage error" \
	bash -c "[ $rc -eq 2 ] && grep -q 'lock-holder: a scenario of the model only' '$tmp/err'"
run lab run hypervisor --halt-poll-ns 0
check "--halt-poll-ns without --live is a usage error" \
	bash -c "[ $rc -eq 2 ] && grep -q 'knob of the live part' '$tmp/err'"
run lab run hypervisor --fair-share-ms 100
check "--fair-share-ms without --live is a usage error" \
	bash -c "[ $rc -eq 2 ] && grep -q 'knob of the live part' '$tmp/err'"
run lab run hypervisor --live --duration 1500ms
check "--live takes whole seconds" bash -c "[ $rc -eq 2 ] && grep -q 'whole seconds' '$tmp/err'"
if can_switch; then
	as_nobody rtlab lab run hypervisor --live --scenario host --duration 1s \
		--json "$tmp/nobody/live.json" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "--live as a user: refused, naming root (exit 1)" \
		bash -c "[ $rc -eq 1 ] && grep -q 'run it as root' '$tmp/err'"
	check "writing no document" [ ! -e "$tmp/nobody/live.json" ]
else
	skip "--live as a user (needs root and setpriv)"
	skip "writing no document"
fi
if [ "$(id -u)" -eq 0 ]; then
	run lab run hypervisor --live --scenario host,pv-hint,rt-host --duration 2s --json "$tmp/live.json"
	check "--live host,pv-hint,rt-host: no guest needed, exits 0" [ "$rc" -eq 0 ]
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/err" | tail -5
	check "host: the probe ran on the host, 2 s of samples" \
		[ "$(json_get "$tmp/live.json" '[s for s in d["extra"]["scenarios"] if s["name"] == "host"][0]["samples_count"] > 1500')" = True ]
	check "pv-hint: not live, saying where to see it" \
		[ "$(json_get "$tmp/live.json" '[s for s in d["extra"]["scenarios"] if s["name"] == "pv-hint"][0]["why"].find("--model --scenario pv-hint") > 0')" = True ]
	rtw=$(json_get "$tmp/live.json" '[s.get("why", "ran") for s in d["extra"]["scenarios"] if s["name"] == "rt-host"][0]')
	if grep -q PREEMPT_RT /proc/version 2>/dev/null || [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ]; then
		check "rt-host: ran on this PREEMPT_RT host" [ "$rtw" = ran ]
	else
		case "$rtw" in *"not PREEMPT_RT"*) true ;; *) false ;; esac
		check "rt-host: not available on this kernel, saying why ($rtw)" [ $? -eq 0 ]
	fi
	check "the document is live, tier host, names the throttling file" \
		[ "$(json_get "$tmp/live.json" '(d["params"]["mode"], d["tier"], d["params"]["throttle_file"] != "")')" = "('live', 'host', True)" ]
	# RT throttling through the journal: set for the run and put back, or refused naming the file.
	f=/sys/kernel/debug/sched/fair_server/cpu0/runtime
	[ -d /sys/kernel/debug/sched/fair_server ] || f=/proc/sys/kernel/sched_rt_runtime_us
	before=$(cat "$f" 2>/dev/null)
	run lab run hypervisor --live --scenario host --duration 1s --fair-share-ms 100 \
		--json "$tmp/fs.json"
	after=$(cat "$f" 2>/dev/null)
	if [ "$rc" -eq 0 ]; then
		check "--fair-share-ms 100: recorded, and $f back as it was ($before)" \
			bash -c "[ '$before' = '$after' ] && grep -q '\"fair_share_ms\": *100' '$tmp/fs.json'"
	else
		check "--fair-share-ms 100 refused here, naming the file ($f)" \
			bash -c "[ $rc -eq 1 ] && grep -q 'fair_server\|sched_rt_runtime_us' '$tmp/err' && [ '$before' = '$after' ]"
		sed 's/^/# /' "$tmp/err" | tail -2
	fi
	run lab report "$tmp/live.json"
	check "its report has the live table" grep -q 'Guest latency, measured' "$tmp/out"
else
	for i in 1 2 3 4 5 6 7; do skip "--live without a guest (root only)"; done
fi
IMG=$tmp/no-images
RTLAB_VM_DIR=$IMG "$RTLAB" lab run hypervisor --live --scenario guest-idle --duration 1s \
	--json "$tmp/noimg.json" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
if [ "$(id -u)" -eq 0 ]; then
	check "--live without the VM's images fails (exit 1), naming what to build" \
		bash -c "[ $rc -eq 1 ] && grep -q 'rtlab vm build' '$tmp/err'"
	[ "$rc" -eq 1 ] || sed 's/^/# /' "$tmp/err" | tail -5
else
	check "--live as a user fails (exit 1)" [ "$rc" -eq 1 ]
fi

steps=guest-idle,guest-load,vcpu-fifo,io-low,pv-hint,lock-holder,io-inversion,pv-load
run lab run hypervisor --seed 7 --duration 300ms --scenario "$steps" --json "$tmp/a.json"
check "a model run of eight scenarios exits 0" [ "$rc" -eq 0 ]
check "it prints the scenarios view, labelled as simulated" \
	grep -q '^SIMULATED guest RT task' "$tmp/out"
check "lesson 07's predict questions are measured" grep -qE '^  vcpu-fifo +max_us ' "$tmp/out"
check "the document is a simulation with the seed" \
	[ "$(json_get "$tmp/a.json" 'd["tier"], d["simulated"], d["params"]["seed"]')" = "('simulation', True, '7')" ]
check "its scenarios, in order, each with avg, p99 and max" \
	[ "$(json_get "$tmp/a.json" '",".join(s["name"] for s in d["extra"]["scenarios"] if all(k in s for k in ("avg_us", "p99_us", "max_us")))')" = "$steps" ]
check "with a response histogram each" \
	[ "$(json_get "$tmp/a.json" 'len([h for h in d["histograms"] if h["name"].endswith(".response")])')" = 8 ]
check "pv-hint meets every deadline, guest-load does not do better" \
	[ "$(json_get "$tmp/a.json" '[s for s in d["extra"]["scenarios"] if s["name"] == "pv-hint"][0]["misses_count"] == 0 and d["summary"]["guest_load_max_us"] >= d["summary"]["pv_hint_max_us"]')" = True ]
check "the reference policy meets the exercise's scenarios within the bound" \
	[ "$(json_get "$tmp/a.json" 'all(s["misses_count"] == 0 and s["within_bound"] for s in d["extra"]["scenarios"] if s["name"] in ("lock-holder", "io-inversion", "pv-load"))')" = True ]
check "a note says it is simulated, one that Kiszka's figures were not found" \
	bash -c "grep -q 'SIMULATED' '$tmp/a.json' && grep -q 'figures (doc/references.md 3) were not found' '$tmp/a.json'"

run lab run hypervisor --seed 7 --duration 300ms --scenario "$steps" --json "$tmp/b.json"
check "the same seed gives the same figures" \
	[ "$(json_get "$tmp/a.json" 'd["extra"]["scenarios"]')" = "$(json_get "$tmp/b.json" 'd["extra"]["scenarios"]')" ]

run lab run hypervisor --seed 7 --duration 300ms --scenario io-inversion --policy none --json "$tmp/n.json"
check "without a policy the I/O inversion starves the host and the guest" \
	[ "$(json_get "$tmp/n.json" '[(s["within_bound"], s["policy"], s["jobs_count"] < 10) for s in d["extra"]["scenarios"]][0]')" = "(False, 'none', True)" ]

run grade "$tmp/a.json"
check "grading the document: the exercise's scenarios pass" \
	bash -c "grep -qE 'PASS +io-inversion-met' '$tmp/out' && grep -qE 'PASS +lesson-steps' '$tmp/out'"
run grade "$tmp/n.json"
check "and fail without a policy" grep -qE 'FAIL +io-inversion-met' "$tmp/out"

# ---- The TUI at 80x24 --------------------------------------------------------------
mkdir -p "$tmp/novm"
export RTLAB_VM_DIR=$tmp/novm	# no images: the live part must say what is missing
tui_start run 80x24
check "the menu opens" wait_for run "Labs"
tm send-keys -t run End
check "the menu lists the hypervisor lab (up from the last lab: lesson 07 has its title)" \
	move_to run "Linux as a real-time hypervisor" k
tm send-keys -t run Enter
check "Enter opens its screen" wait_for run "Here:"
tm send-keys -t run Enter
check "Enter runs the model and the summary shows its view, labelled SIMULATED" \
	wait_for run "SIMULATED guest RT task" 600
check "with the pv-hint row" wait_match run '^ +pv-hint +[0-9]'
check "and where the document went" wait_for run "Results document: $tmp/state/rtlab/results/hypervisor-"
tm send-keys -t run q
check "q goes back to the menu" wait_for run "Labs"
tm send-keys -t run Enter
check "Enter opens the screen again" wait_for run "Here:"
tm send-keys -t run l
check "l without images says which image is missing, where, and how to build it" \
	wait_match run "no [a-z]+ image in $tmp/novm/"

tap_done
