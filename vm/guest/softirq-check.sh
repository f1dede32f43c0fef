#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# softirq-check.sh OUTDIR [SECONDS]: inside the classroom VM, does the hunt's softirq cause
# (rtlab_inject's tasklet, seed 10: 1000 us four times a second) lengthen the FIFO-40 probe's
# tail, and which tracer shows it? Runs the ftrace lab in event mode without a hunt, with the
# softirq cause (seed 10) and, for comparison, with an irqs-off cause (seed 9: 900 us), each
# for SECONDS (default 10), alternating twice; then, where the kernel has them, the latency
# tracers with the softirq cause (threshold 250 us, function tracing off). Meanwhile an
# unfiltered sched_switch trace shows which thread ran the tasklet (capture-events.sh).
# Every document is kept in OUTDIR; OUTDIR/SUMMARY has one line per run. PARTS (default
# "events,tracers,sched") picks which of the three to run. Used for issue 11
# (kernel-patches/README.md and labs/ftrace/README.md say what it found).
set -u
out=${1:?usage: softirq-check.sh OUTDIR [SECONDS]}
secs=${2:-10}
T=/sys/kernel/tracing
here=$(dirname "$0")
mkdir -p "$out" || exit 1
sum=$out/SUMMARY
echo "kernel $(uname -r) $(uname -v)" > "$sum"
run() {	# NAME OPTIONS...
	name=$1
	shift
	rtlab lab run ftrace --duration "${secs}s" --no-cross-check "$@" --json "$out/$name.json" \
		> /dev/null 2>&1
	echo "$name: $(grep -o '"probe_p99_us": [0-9.]*\|"probe_max_us": [0-9.]*\|"events_p99_us": [0-9.]*\|"events_max_us": [0-9.]*\|"tracer_latency_us": [0-9.]*\|"started_at": "[^"]*"\|"planted_count": [0-9]*' \
		"$out/$name.json" | tr '\n' ' ')" >> "$sum"
	sync
}
parts=${PARTS:-events,tracers,sched}
case $parts in *events*)
	for i in 1 2; do
		run base-$i
		run softirq-$i --hunt --seed 10
		run irqsoff-$i --hunt --seed 9
	done
esac
case $parts in *sched*)
	# Who runs the tasklet: every switch while the softirq cause is planted.
	sh "$here/capture-events.sh" "$out/sched" rtlab lab run ftrace --duration 3s \
		--no-cross-check --hunt --seed 10 --json "$out/sched.json" > /dev/null 2>&1
	sync
esac
case $parts in *tracers*)
	for t in preemptoff preemptirqsoff irqsoff wakeup_rt; do
		grep -qw "$t" $T/available_tracers ||
			{ echo "tracer-$t: not in this kernel" >> "$sum"; continue; }
		run tracer-$t --mode tracer --tracer "$t" --no-function-trace --threshold 250 \
			--hunt --seed 10
	done
esac
echo "injector: $(cat /sys/kernel/debug/rtlab_inject/stats 2>/dev/null | tr '\n' ' ')" >> "$sum"
cat "$sum"
