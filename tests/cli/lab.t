#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtlab lab` and `rtlab grade`: list, a short real run (SCHED_FIFO as root,
# degraded as nobody), Ctrl-C (SIGINT) mid-run, reports from the document,
# planned labs, usage errors, written answers, and valgrind on the headless
# paths. TAP output for prove. Needs RTLAB and SRCDIR. About 25 s.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; [ $# -gt 1 ] && echo "# $2"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { # check DESC CONDITION...
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc" "$(head -c 600 "$tmp/err" 2>/dev/null | tr '\n' ' ')"; fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
export XDG_STATE_HOME=$tmp/state RTLAB_JOURNAL_DIR=$tmp/journal

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
json_get() { # json_get FILE PYTHON-EXPR(d) -> prints the value
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}
# wait_line PID FILE ERE: poll (up to 60 s, a bound against a hang only) until FILE
# has a line matching ERE; fails at once when process PID has ended without one.
wait_line() {
	for _ in $(seq 600); do
		grep -qE -- "$3" "$2" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	grep -qE -- "$3" "$2" 2>/dev/null && kill -0 "$1" 2>/dev/null
}

# ---- list ----------------------------------------------------------------------
run lab list
check "lab list exits 0" [ "$rc" -eq 0 ]
check "lab list shows latency ready" grep -qE '^latency +ready +host' "$tmp/out"
planned=$(awk '$2 == "planned" { print $1; exit }' "$tmp/out")
# Every lab of the course has landed: then the refusal is the unit test's (test_run_session).
no_planned="no planned lab is left in the registry (test_run_session refuses a fake one)"
if [ -n "$planned" ]; then
	check "lab list shows planned labs as not available" \
		grep -qE '^[a-z]+ +planned .*not available yet' "$tmp/out"
else
	skip "lab list shows planned labs: $no_planned"
fi
run lab list --json
check "lab list --json exits 0" [ "$rc" -eq 0 ]
# As many labs as the registry's X() lines: the test names no number (issue 29).
nreg=$(grep -cE '^[[:space:]]*X\([a-z0-9]+\)' "$SRCDIR/rtlab/labs/registry.c")
check "lab list --json: latency ready, one row per registry line ($nreg)" \
	[ "$(json_get "$tmp/out" '[l["state"] for l in d["labs"] if l["name"]=="latency"][0], len(d["labs"])')" = "('ready', $nreg)" ]

# ---- usage errors and planned labs -----------------------------------------------
for args in "lab" "lab frob" "lab run" "lab run nosuch" "lab run latency --bogus" \
	"lab run latency --duration x" "lab run latency --cpus 2-1" \
	"lab run latency --policy other --priority 5" "lab run latency --scenario nope" \
	"lab report" "lab answer latency Q9 x" "grade" "grade a b"; do
	# shellcheck disable=SC2086
	run $args
	check "'rtlab $args' is a usage error (exit 2)" [ "$rc" -eq 2 ]
done
check "a bad option names itself" bash -c "\"$RTLAB\" lab run latency --bogus 2>&1 | grep -q -- --bogus"
if [ -n "$planned" ]; then
	run lab run "$planned"
	check "a planned lab does not run (exit 1)" [ "$rc" -eq 1 ]
	check "and says it is not available yet" grep -q "planned and not available yet" "$tmp/err"
else
	skip "a planned lab does not run: $no_planned"
	skip "and says it is not available yet: $no_planned"
fi

if uname -v | grep -q PREEMPT_RT; then
	skip "load-fifo-rt refusal: this kernel is PREEMPT_RT"
else
	run lab run latency --scenario load-fifo-rt --duration 1s --json "$tmp/rt.json"
	check "load-fifo-rt on a non-RT kernel exits 1" [ "$rc" -eq 1 ]
	check "and says how to get an RT kernel" grep -q "linux-image-rt-amd64" "$tmp/err"
	check "and writes no document" [ ! -e "$tmp/rt.json" ]
fi

# ---- a written answer is copied into the next run -------------------------------
run lab answer latency Q1 "the load steals the CPU"
check "lab answer saves (exit 0)" [ "$rc" -eq 0 ]
run lab answer latency
check "lab answer lists it" grep -q "^Q1: the load steals the CPU" "$tmp/out"

# ---- 2-second headless run as root with SCHED_FIFO -------------------------------
doc=$tmp/fifo.json
if [ "$(id -u)" -ne 0 ]; then
	skip "SCHED_FIFO run: needs root"
else
	run lab run latency --scenario load-fifo --duration 2s --json "$doc"
	check "FIFO run exits 0" [ "$rc" -eq 0 ]
	check "it prints the threads view with cyclictest's columns" \
		grep -qE '^  scenario +T +tid +P +I \(us\) +C +Min \(us\) +Act \(us\) +Avg \(us\) +Max \(us\) +p99 \(us\)$' "$tmp/out"
	check "and a row of load-fifo's thread 0 at P 90, I 1000" \
		grep -qE '^  load-fifo +0 +[0-9]+ +90 +1000 +[0-9]+ ' "$tmp/out"
	check "progress went to stderr" grep -q '^rtlab lab run: \[100%\] load-fifo: done' "$tmp/err"
	check "the scenario really ran as SCHED_FIFO" \
		[ "$(json_get "$doc" 'd["extra"]["scenarios"][0]["policy"], d["extra"]["scenarios"][0]["rt_refused"]')" = "('fifo', None)" ]
	check "summary has the required keys" \
		[ "$(json_get "$doc" 'all(k in d["summary"] for k in ["min_us","avg_us","p99_us","max_us","samples_count","dropped_count"])')" = True ]
	# 2 s at 1 ms plan 2000 wake-ups. A wake-up more than one interval late
	# is an overrun and skips the planned ones it missed (at least two), like
	# cyclictest: so exactly 2000 without overruns, and never more than that
	# (loops + 2 * overruns <= 2002, the last overrun may skip past the end).
	# How many overruns a loaded machine causes is not this test's business.
	check "2000 wake-ups at 1 ms, less only what overruns skipped" \
		[ "$(json_get "$doc" 'all(0 < t["loops_count"] and t["loops_count"] + 2 * t["overruns_count"] <= 2002 and (t["overruns_count"] > 0 or t["loops_count"] == 2000) for t in d["extra"]["scenarios"][0]["threads"]) and d["summary"]["samples_count"] == sum(t["loops_count"] - t["dropped_count"] for t in d["extra"]["scenarios"][0]["threads"])')" = True ]
	check "one histogram named after the scenario" \
		[ "$(json_get "$doc" '[h["name"] for h in d["histograms"]]')" = "['load-fifo']" ]
	check "the written answer was copied" [ "$(json_get "$doc" 'd["answers"]["Q1"]')" = "the load steals the CPU" ]
	run grade "$doc"
	check "grade reads the document and grades it (exit 1: too short, scenarios missing)" \
		bash -c "[ $rc -eq 1 ] && grep -q 'PASS complete' '$tmp/out' && grep -q 'FAIL scenario-idle-other' '$tmp/out'"
	run grade "$doc" --json
	check "grade --json is JSON with checks" \
		[ "$(json_get "$tmp/out" 'd["lab"], d["passed"], len(d["checks"]) > 3')" = "('latency', False, True)" ]
	check "the progress file records the run" \
		grep -q '"status": "done"' "$XDG_STATE_HOME/rtlab/progress.json"
fi

# ---- a pinned run keeps rtlab's other threads off the measuring CPU ----------------
if [ "$(id -u)" -ne 0 ] || [ "$(nproc)" -lt 2 ]; then
	skip "housekeeping CPUs: needs root and two CPUs"
else
	"$RTLAB" lab run latency --policy fifo --cpus 0 --mlock --load none --duration 2s \
		--json "$tmp/pin.json" >/dev/null 2>"$tmp/pin.err" &
	pid=$!
	masks=
	# Look while it measures: the progress line comes when measuring starts,
	# and the masks are read at once, well inside the 2 s run.
	if wait_line "$pid" "$tmp/pin.err" 'custom: fifo'; then
		masks=$(for t in /proc/$pid/task/*; do
			printf '%s:%s ' "$(basename "$t")" \
				"$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status" 2>/dev/null)"
		done)
	fi
	wait "$pid"
	hk=1
	[ "$(nproc)" -gt 2 ] && hk=1-$(($(nproc) - 1))
	# The main thread on the others, exactly one thread (the measuring one) on CPU 0.
	pinned_ok() {
		[ -n "$masks" ] && printf '%s\n' $masks | grep -qx "$pid:$hk" &&
			[ "$(printf '%s\n' $masks | grep -c ':0$')" -eq 1 ]
	}
	check "while measuring, only the measuring thread is on CPU 0 ($masks)" pinned_ok
	check "the document records the housekeeping CPUs" \
		[ "$(json_get "$tmp/pin.json" 'd["extra"]["scenarios"][0]["housekeeping_cpus"]')" = "$hk" ]
fi

# ---- reports from the document ----------------------------------------------------
if [ -s "$doc" ]; then
	run lab report "$doc" --svg "$tmp/p.svg" --html "$tmp/p.html" --cyclictest-hist
	check "report exits 0" [ "$rc" -eq 0 ]
	check "report --cyclictest-hist prints the histogram layout" \
		bash -c "grep -q '^# Histogram$' '$tmp/out' && grep -qP '^000000 \d{6}$' '$tmp/out' && grep -qE '^# Max Latencies: [0-9]{5}$' '$tmp/out'"
	check "report --svg writes an SVG with the scenario" grep -q '>load-fifo' "$tmp/p.svg"
	if command -v xmllint >/dev/null 2>&1; then
		check "the SVG is well-formed XML" xmllint --noout "$tmp/p.svg"
	else
		skip "xmllint not installed"
	fi
	check "report --html is self-contained with the plot" \
		bash -c "grep -q '<svg' '$tmp/p.html' && ! grep -qiE 'https?:|src=|href=' '$tmp/p.html'"
	run lab report "$tmp/nonexistent.json"
	check "report of a missing file exits 1" [ "$rc" -eq 1 ]
	echo '{"schema": "rtlab.result/1"}' >"$tmp/bad.json"
	run grade "$tmp/bad.json"
	check "grade of an invalid document exits 1 and names the field" \
		bash -c "[ $rc -eq 1 ] && grep -q 'bad.json' '$tmp/err'"
else
	skip "reports: no document from the root run"
fi

# ---- as nobody: degrades, says so, still writes a valid document ------------------
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "run as nobody: needs root and setpriv"
else
	mkdir -p "$tmp/nobody"
	chown 65534:65534 "$tmp/nobody"
	env HOME="$tmp/nobody" XDG_STATE_HOME="$tmp/nobody/state" RTLAB_JOURNAL_DIR="$tmp/nobody/j" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$RTLAB" lab run latency --scenario load-fifo --duration 1s --mlock \
		--json "$tmp/nobody/doc.json" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "as nobody the run still exits 0" [ "$rc" -eq 0 ]
	check "and warns that FIFO was measured as SCHED_OTHER" \
		grep -q "measured as SCHED_OTHER" "$tmp/err"
	check "the document records the refusal" \
		[ "$(json_get "$tmp/nobody/doc.json" 'd["extra"]["scenarios"][0]["policy"], d["extra"]["scenarios"][0]["rt_refused"] is not None, any("SCHED_OTHER" in x for x in d["notes"])')" = "('other', True, True)" ]
	run grade "$tmp/nobody/doc.json"
	check "grade reads it and fails fifo-tail with the reason" \
		bash -c "[ $rc -eq 1 ] && grep -q 'FAIL fifo-tail.*refused' '$tmp/out'"
fi

# ---- SIGINT mid-run: exit 130, cpu_dma_latency back, nothing left -----------------
if [ "$(id -u)" -ne 0 ] || [ ! -r /dev/cpu_dma_latency ]; then
	skip "SIGINT test: needs root and /dev/cpu_dma_latency"
else
	before=$(od -An -tu4 -N4 /dev/cpu_dma_latency | tr -d ' ')
	: >"$tmp/err"	# the wait below must see this run's line, not an earlier one
	"$RTLAB" lab run latency --scenario load-fifo --duration 30s --dma-latency \
		--json "$tmp/int.json" >"$tmp/out" 2>"$tmp/err" </dev/null &
	pid=$!
	# The scenario's progress line comes once it measures, after the request
	# for cpu_dma_latency 0 was made.
	check "the run to interrupt gets to measuring" wait_line "$pid" "$tmp/err" 'load-fifo: fifo'
	during=$(od -An -tu4 -N4 /dev/cpu_dma_latency | tr -d ' ')
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	check "SIGINT exits 130" [ "$rc" -eq 130 ]
	check "cpu_dma_latency was 0 during the run" [ "$during" = 0 ]
	after=$(od -An -tu4 -N4 /dev/cpu_dma_latency | tr -d ' ')
	check "cpu_dma_latency reads back its previous value ($before)" [ "$after" = "$before" ]
	# rtlab reaps its load (whose processes share its command line) before it
	# exits, so nothing may be left the moment wait returns.
	check "no rtlab process of the run is left" bash -c "! pgrep -f -- '--json $tmp/in[t].json' >/dev/null"
	check "the partial document is valid and marked interrupted" \
		[ "$(json_get "$tmp/int.json" 'd["extra"]["interrupted"], d["params"]["interrupted"]')" = "(True, True)" ]
	run grade "$tmp/int.json"
	check "grade says it was interrupted" grep -q 'FAIL complete' "$tmp/out"
fi

# ---- valgrind on the headless paths -------------------------------------------------
if command -v valgrind >/dev/null 2>&1 && [ -s "$doc" ]; then
	for args in "lab list" "lab report $doc --svg $tmp/v.svg" "grade $doc"; do
		# shellcheck disable=SC2086
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
			--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
			"$RTLAB" $args >/dev/null 2>"$tmp/vg" </dev/null
		vrc=$?
		if [ "$vrc" -ne 99 ]; then
			ok "valgrind clean: rtlab $args"
		else
			not_ok "valgrind clean: rtlab $args" "$(head -c 2000 "$tmp/vg" | tr '\n' ' ')"
		fi
	done
else
	skip "valgrind not installed or no document"
fi

echo "1..$n"
exit $((fails > 0))
