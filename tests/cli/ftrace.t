#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtlab lab run ftrace`: a 3-second event-mode run, the tracer-mode refusal
# on a kernel without latency tracers, a hunt with a wrong and a right
# diagnosis, a SIGKILLed run whose instance the next start removes, and the
# top-level tracing state left exactly as it was. TAP for prove. Needs
# RTLAB and SRCDIR; root for the live cases. About 25 s.
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
export XDG_STATE_HOME=$tmp/state RTLAB_JOURNAL_DIR=$tmp/journal
T=/sys/kernel/tracing

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
json_get() { # json_get FILE PYTHON-EXPR(d)
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}
. "$SRCDIR/tests/cli/lib/tracefs.bash"

# ---- usage errors (no root needed) -----------------------------------------------
for args in "--mode both" "--tracer function" "--seed 3x" "--threshold x" "--bogus"; do
	# shellcheck disable=SC2086
	run lab run ftrace $args
	check "'lab run ftrace $args' is a usage error (exit 2)" [ "$rc" -eq 2 ]
done

if [ "$(id -u)" -ne 0 ] || [ ! -w "$T/instances" ]; then
	skip "live ftrace cases: need root and a writable tracefs"
	echo "1..$n"
	exit 0
fi
before=$(state)

# ---- event mode ------------------------------------------------------------------
doc=$tmp/ev.json
run lab run ftrace --mode events --duration 3s --json "$doc"
check "event-mode run exits 0" [ "$rc" -eq 0 ]
check "the document validates (lab report reads it)" "$RTLAB" lab report "$doc"
# How often the probe woke depends on the scheduler: a wake-up it was too late
# for is skipped, not made up (one overrun skips at most max/1 ms + 1 of them),
# and a sample the lab did not read in time is dropped. Counting those back,
# it planned one a millisecond for the 3 s; the events saw what it made, but
# for events the ring lost. Load changes the counts, not these sums.
check "the probe woke once a millisecond for 3 s, skipped wake-ups counted back" \
	[ "$(json_get "$doc" 'd["extra"]["probe"]["count"] + d["extra"]["probe"]["dropped_count"] + d["extra"]["probe"]["overruns_count"] * (int(d["extra"]["probe"]["max_us"] // 1000) + 2) >= 2500')" = True ]
check "the events matched most of its wake-ups, but for lost events" \
	[ "$(json_get "$doc" 'd["summary"]["events_matched_count"] + d["summary"]["lost_count"] >= 0.8 * d["summary"]["probe_samples_count"] > 0')" = True ]
check "the agreement figure is recorded" \
	[ "$(json_get "$doc" '"count_ratio" in d["extra"]["agreement"] and "agreement_p50_diff_us" in d["summary"]')" = True ]
check "the cross-check says why it ran or not" \
	[ "$(json_get "$doc" 'all("ran" in d["extra"]["cross_check"][k] for k in ("trace_cmd","rtla"))')" = True ]
check "the text shows both views of the wake-ups" \
	bash -c "grep -q '^  probe (clock_nanosleep) ' '$tmp/out' && grep -q '^  events (sched_waking -> sched_switch) ' '$tmp/out'"

# ---- tracer mode -----------------------------------------------------------------
if grep -qw irqsoff "$T/available_tracers"; then
	skip "tracer-mode refusal: this kernel has irqsoff"
else
	run lab run ftrace --mode tracer --tracer irqsoff --duration 1s --json "$tmp/tr.json"
	check "tracer mode without the tracer exits 1" [ "$rc" -eq 1 ]
	check "it names the kernel option" grep -q "CONFIG_IRQSOFF_TRACER" "$tmp/err"
	check "and the classroom VM" grep -q "classroom VM" "$tmp/err"
	check "and writes no document" [ ! -e "$tmp/tr.json" ]
fi

# ---- the hunt --------------------------------------------------------------------
h1=$tmp/h1.json
run lab run ftrace --hunt --seed 4242 --duration 2s --no-cross-check --json "$h1"
check "a hunt run exits 0" [ "$rc" -eq 0 ]
check "its text does not print the truth" bash -c "! grep -q trace_hog_ '$tmp/out'"
kind=$(json_get "$h1" 'd["extra"]["hunt"]["truth"]["kind"]')
func=$(json_get "$h1" 'd["extra"]["hunt"]["truth"]["function"]')
check "a cause was planted" [ "$(json_get "$h1" 'd["extra"]["hunt"]["planted_count"] > 0')" = True ]
if [ "$kind" = fifo_spin ]; then wrong=fault_storm; else wrong=fifo_spin; fi
"$RTLAB" lab answer ftrace cause "$wrong" >/dev/null
"$RTLAB" lab answer ftrace function "$func" >/dev/null
"$RTLAB" lab answer ftrace tracer events >/dev/null
h2=$tmp/h2.json
run lab run ftrace --hunt --seed 4242 --duration 2s --no-cross-check --json "$h2"
check "the same seed plants the same cause" \
	[ "$(json_get "$h2" 'd["extra"]["hunt"]["truth"]["kind"]')" = "$kind" ]
run grade "$h2"
check "a wrong diagnosis fails the grade (exit 1)" [ "$rc" -eq 1 ]
check "on the cause check" grep -qE "FAIL cause" "$tmp/out"
"$RTLAB" lab answer ftrace cause "$kind" >/dev/null
h3=$tmp/h3.json
run lab run ftrace --hunt --seed 4242 --duration 2s --no-cross-check --json "$h3"
run grade "$h3"
check "the right diagnosis passes (exit 0)" [ "$rc" -eq 0 ]
python3 - "$h3" "$tmp/edited.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["extra"]["hunt"]["truth"]["kind"] = "irqsoff"
json.dump(d, open(sys.argv[2], "w"))
PY
run grade "$tmp/edited.json"
check "an edited truth fails the grade" [ "$rc" -eq 1 ]

# ---- SIGKILL leaves an instance; the next start removes it ------------------------
"$RTLAB" lab run ftrace --duration 10s --no-cross-check --json "$tmp/k.json" >/dev/null \
	2>"$tmp/k.err" &
pid=$!
# Killed while it measures: its progress line says the instance is set up and tracing.
measuring=false
for _ in $(seq 600); do	# a bound against a hang only (60 s)
	grep -q 'ftrace: events, ' "$tmp/k.err" && measuring=true && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
check "the run to kill gets to measuring" $measuring
kill -KILL "$pid"
wait "$pid" 2>/dev/null
check "a killed run leaves its instance" [ -d "$T/instances/rtlab-ftrace-$pid" ]
run lab run ftrace --duration 1s --no-cross-check --json "$tmp/after.json"
check "the next run exits 0" [ "$rc" -eq 0 ]
check "and removed the stale instance" [ ! -d "$T/instances/rtlab-ftrace-$pid" ]

after=$(state)
if [ "$before" = "$after" ]; then
	ok "top-level tracing state unchanged"
else
	not_ok "top-level tracing state unchanged" "$(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
fi
echo "1..$n"
[ "$fails" -eq 0 ]
