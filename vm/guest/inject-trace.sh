#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# inject-trace.sh TRACER KIND US: inside the classroom VM, arm a latency tracer, make the
# rtlab_inject driver run one KIND section (irqsoff, preemptoff, softirq, fifo_spin,
# irq_thread, hardirq, raw_spinlock, spinlock) of US
# microseconds, and print what the tracer kept:
#   max_latency_us=N
#   the trace header lines ("# latency: ...", "=> started at: ...", "=> ended at: ...")
#   the injector's stats
# Function tracing inside the section is switched off (options/function-trace): under TCG
# emulation its cost makes ordinary interrupt entries look longer than the injected
# section. Another section can still beat ours to the maximum, so up to TRIES (default 5)
# attempts are made until the trace names an rtlab_inject function. The tracer is put back
# to nop afterwards. Used by tests/vm/ and handy in class.
set -u
tracer=${1:?usage: inject-trace.sh TRACER KIND US}
kind=${2:?usage: inject-trace.sh TRACER KIND US}
us=${3:?usage: inject-trace.sh TRACER KIND US}
T=/sys/kernel/tracing
D=/sys/kernel/debug/rtlab_inject

[ -w "$D/${kind}_us" ] || { echo "no $D/${kind}_us: is rtlab_inject loaded?" >&2; exit 1; }
grep -qw "$tracer" $T/available_tracers || { echo "tracer $tracer is not in this kernel" >&2; exit 1; }
tries=${TRIES:-5}
ftrace=$(cat $T/options/function-trace)
echo 0 > $T/tracing_on
echo 0 > $T/options/function-trace
echo "$tracer" > $T/current_tracer || exit 1
i=1
while :; do
	echo 0 > $T/tracing_max_latency
	echo 1 > $T/tracing_on
	echo "$us" > "$D/${kind}_us" || { echo "the injector refused $us us" >&2; exit 1; }
	echo 0 > $T/tracing_on
	grep -q '=> started at: rtlab_inject_' $T/trace && break
	[ $i -ge "$tries" ] && break
	i=$((i + 1))
	sleep 0.2
done
echo "attempts=$i"
echo "max_latency_us=$(cat $T/tracing_max_latency)"
grep -E '^# latency:|=> (started|ended) at:' $T/trace
sed 's/^/stats: /' $D/stats
echo nop > $T/current_tracer
echo "$ftrace" > $T/options/function-trace
