#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# lt-probe.sh [N] [ORDER]: inside the lab kernel, set up the irqsoff tracer by hand in an
# instance "lt" as rtlab's tracer mode does (function tracing off, tracing_thresh 0, the
# maximum reset), run the ftrace lab in event mode for 5 s as the load while text streams to
# the serial console, stop, and say whether `trace` kept its latency header; after the first
# loss, show what the maximum (snapshot) and live buffers hold. Up to N runs (default 5).
# ORDER places a `trace-cmd record` in an instance of its own (issue 11, "the lost latency
# trace", labs/ftrace/README.md):
#   rtlab   started before tracing_on=1, still recording when the trace is read (as the
#           lab's cross-check did in tracer mode)
#   early   started after tracing_on=1, stopped before the read
#   none    no trace-cmd
set -u
n=${1:-5}
order=${2:-rtlab}
T=/sys/kernel/tracing
I=$T/instances/lt
mkdir -p $I
( while :; do cat /proc/interrupts /proc/meminfo; done > /dev/ttyS0 ) 2>/dev/null & fp=$!
tcstart() {
	mkdir -p $T/instances/tcx
	trace-cmd record -q -B tcx -C mono -e sched:sched_waking -e sched:sched_switch \
		-o /tmp/tc.dat > /dev/null 2>&1 &
	tp=$!
	for w in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		grep -q 1 $T/instances/tcx/events/sched/sched_switch/enable 2>/dev/null && break
		sleep 0.5
	done
}
tcstop() { kill -INT $tp; wait $tp; }
i=0
while [ $i -lt $n ]; do
	i=$((i + 1))
	echo 0 > $I/tracing_on
	echo nop > $I/current_tracer
	echo 0 > $I/options/function-trace
	echo irqsoff > $I/current_tracer
	echo 0 > $T/tracing_thresh
	echo 0 > $I/tracing_max_latency
	[ "$order" = rtlab ] && tcstart
	echo 1 > $I/tracing_on
	[ "$order" = early ] && tcstart
	rtlab lab run ftrace --duration 5s --no-cross-check --json /tmp/ev.json > /dev/null 2>&1
	[ "$order" = early ] && tcstop
	echo 0 > $I/tracing_on
	echo 1000000000 > $T/tracing_thresh
	m=$(cat $I/tracing_max_latency)
	h=$(grep '^# latency' $I/trace)
	[ "$order" = rtlab ] && tcstop
	if [ -n "$h" ]; then
		echo "run $i: kept max $m $h"
		continue
	fi
	echo "run $i: LOST max $m; trace now: $(grep -c '^# latency' $I/trace) header lines"
	cd /tmp
	trace-cmd extract -B lt -s -o /tmp/s.dat > /dev/null 2>&1
	echo "--- max buffer (snapshot), last 12 entries"
	trace-cmd report -i /tmp/s.dat 2>/dev/null | grep -v '^cpus\|^CPU' | tail -12
	trace-cmd extract -B lt -o /tmp/l.dat > /dev/null 2>&1
	echo "--- live buffer, last 20 lines"
	trace-cmd report -i /tmp/l.dat 2>/dev/null | grep -v '^cpus\|^CPU' | tail -20
	echo "--- dmesg warnings"
	dmesg | grep -i -A12 'warning\|ring.buffer' | head -40
	break
done
kill $fp
echo done
