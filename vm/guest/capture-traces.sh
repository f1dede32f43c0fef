#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# capture-traces.sh OUTDIR: inside the classroom VM, run each latency tracer this kernel
# offers once with a workload that gives it something to show, and copy its `trace` file
# to OUTDIR/<name>.txt. Used to make the parser's fixtures (tests/data/traces/lab-6.12/,
# tests/data/traces/rt-6.1/) and handy in class to look at real traces.
#
#   irqsoff, preemptoff, preemptirqsoff    a 500 us section from rtlab_inject (irqsoff_us or
#                                          preemptoff_us), with options/function-trace off
#                                          (<tracer>.txt) and on (<tracer>-ftrace.txt)
#   wakeup, wakeup_rt                      the wake-up of rtlab_inject's SCHED_FIFO kthread
#                                          (fifo_spin_us)
#   wakeup_dl                              the wake-ups of rtla timerlat's threads, run as
#                                          SCHED_DEADLINE (-P d:...), when rtla is there
#   timerlat                               0.1 s of timerlat's own trace (not a latency
#                                          trace: one line per timer and thread activation)
#
# A tracer the kernel lacks is listed as "skip"; OUTDIR/MANIFEST says what each file is.
# The off-tracers keep the worst section, and under emulation the host can stall a vCPU for
# longer than ours: up to TRIES (default 3) attempts are made until the trace names an
# rtlab_inject function. Function tracing is switched before a tracer is selected (changing
# it under a running tracer patches every function twice; under TCG with several vCPUs that
# has crashed the guest): run this with `rtlab vm exec --smp 1` to be safe. Everything is
# put back to nop afterwards.
set -u
out=${1:?usage: capture-traces.sh OUTDIR}
T=/sys/kernel/tracing
D=/sys/kernel/debug/rtlab_inject
tries=${TRIES:-3}
mkdir -p "$out" || exit 1
man=$out/MANIFEST
echo "kernel $(uname -r) $(uname -v)" > "$man"

have() { grep -qw "$1" $T/available_tracers; }

ftrace0=$(cat $T/options/function-trace)
restore() {
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	echo 0 > $T/tracing_thresh
	echo "$ftrace0" > $T/options/function-trace
	echo 1 > $T/tracing_on
}
trap restore EXIT

# arm TRACER FTRACE: select TRACER with function tracing FTRACE (0/1), buffer cleared.
arm() {
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	echo "$2" > $T/options/function-trace
	echo 0 > $T/tracing_thresh
	echo "$1" > $T/current_tracer
}

# take NAME TRACER FTRACE WHAT: copy the trace and note it in the manifest.
take() {
	cp $T/trace "$out/$1.txt"
	echo "$1.txt tracer=$2 function-trace=$3 max_latency_us=$(cat $T/tracing_max_latency)" \
		"lines=$(wc -l < "$out/$1.txt") workload: $4" >> "$man"
	echo "captured $1.txt"
}

# offtracer NAME TRACER FTRACE KIND: the injector's KIND section of 500 us under TRACER.
offtracer() {
	if ! have "$2"; then
		echo "skip $1: no $2 tracer in $(uname -r)" | tee -a "$man"
		return
	fi
	if [ ! -w "$D/$4_us" ]; then
		echo "skip $1: no $D/$4_us (rtlab_inject not loaded)" | tee -a "$man"
		return
	fi
	arm "$2" "$3"
	i=1
	while :; do
		echo 0 > $T/tracing_max_latency
		echo 1 > $T/tracing_on
		echo 500 > "$D/$4_us"
		echo 0 > $T/tracing_on
		grep -q '=> started at: rtlab_inject_' $T/trace && break
		[ $i -ge "$tries" ] && break
		i=$((i + 1))
		sleep 0.2
	done
	take "$1" "$2" "$3" "echo 500 > $D/$4_us (attempt $i)"
}

# waketracer NAME TRACER: the wake-up of the injector's FIFO kthread.
waketracer() {
	if ! have "$2"; then
		echo "skip $1: no $2 tracer in $(uname -r)" | tee -a "$man"
		return
	fi
	if [ ! -w "$D/fifo_spin_us" ]; then
		echo "skip $1: no $D/fifo_spin_us (rtlab_inject not loaded)" | tee -a "$man"
		return
	fi
	arm "$2" 0
	echo 0 > $T/tracing_max_latency
	echo 1 > $T/tracing_on
	for _ in 1 2 3; do
		echo 200 > $D/fifo_spin_us
		sleep 0.2
	done
	echo 0 > $T/tracing_on
	take "$1" "$2" 0 "echo 200 > $D/fifo_spin_us, three times"
}

offtracer irqsoff irqsoff 0 irqsoff
offtracer irqsoff-ftrace irqsoff 1 irqsoff
offtracer preemptoff preemptoff 0 preemptoff
offtracer preemptoff-ftrace preemptoff 1 preemptoff
offtracer preemptirqsoff preemptirqsoff 0 irqsoff
offtracer preemptirqsoff-ftrace preemptirqsoff 1 irqsoff
waketracer wakeup wakeup
waketracer wakeup_rt wakeup_rt

if ! have wakeup_dl; then
	echo "skip wakeup_dl: no wakeup_dl tracer in $(uname -r)" | tee -a "$man"
elif ! command -v rtla >/dev/null; then
	echo "skip wakeup_dl: no rtla to run SCHED_DEADLINE threads" | tee -a "$man"
else
	arm wakeup_dl 0
	echo 0 > $T/tracing_max_latency
	echo 1 > $T/tracing_on
	rtla timerlat top -q -d 2s -P d:200us:1ms > /dev/null 2>&1 ||
		echo "note: rtla timerlat top -P d:200us:1ms failed" >> "$man"
	echo 0 > $T/tracing_on
	take wakeup_dl wakeup_dl 0 "rtla timerlat top -q -d 2s -P d:200us:1ms (deadline threads)"
fi

if ! have timerlat; then
	echo "skip timerlat: no timerlat tracer in $(uname -r)" | tee -a "$man"
else
	arm timerlat 0
	echo 1 > $T/tracing_on
	sleep 0.1
	echo 0 > $T/tracing_on
	take timerlat timerlat 0 "sleep 0.1 with the timerlat tracer on"
fi
exit 0
