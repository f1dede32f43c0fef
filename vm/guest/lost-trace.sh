#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# lost-trace.sh N OUTDIR [FLOOD] [OPTIONS...]: inside the classroom VM's lab kernel, run the
# ftrace lab in tracer mode N times (irqsoff, function tracing off, 5 s, and OPTIONS, e.g.
# --threshold 250) and say for each run whether its document kept the tracer's trace or only
# the note "the tracer recorded N us (tracing_max_latency), but its trace held no latency
# header" (issue 11, "the lost latency trace"). FLOOD writes to a console while the runs go,
# as rtlab's TUI does when it draws on the VM's serial console:
#   none      nothing (the default)
#   serial    a steady stream of text to /dev/ttyS0 (the 8250 UART, interrupts off while
#             its driver feeds it)
#   hvc       the same to /dev/hvc0 (virtio-serial; the VM needs a virtconsole)
# Each run's document is kept as OUTDIR/rN.json; OUTDIR/SUMMARY has one line per run and the
# total. Run it with `rtlab vm exec --kernel lab --state IMG -- sh
# /usr/lib/rtlab-vm/lost-trace.sh 20 /state/lost serial`.
set -u
n=${1:?usage: lost-trace.sh N OUTDIR [FLOOD] [OPTIONS...]}
out=${2:?usage: lost-trace.sh N OUTDIR [FLOOD] [OPTIONS...]}
flood=${3:-none}
[ $# -ge 3 ] && shift 3 || shift $#
mkdir -p "$out" || exit 1
fp=
case $flood in
serial|hvc)
	dev=/dev/ttyS0
	[ "$flood" = hvc ] && dev=/dev/hvc0
	[ -w "$dev" ] || { echo "no $dev" >&2; exit 1; }
	rm -f "$out/.stop"
	( while [ ! -e "$out/.stop" ]; do cat /proc/interrupts /proc/meminfo; done > "$dev" ) \
		2>/dev/null &
	fp=$!
	;;
none) ;;
*) echo "unknown flood $flood" >&2; exit 2 ;;
esac
echo "kernel $(uname -r) flood $flood options $*" > "$out/SUMMARY"
i=0
lost=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	rtlab lab run ftrace --mode tracer --tracer irqsoff --no-function-trace --duration 5s \
		"$@" --json "$out/r$i.json" > /dev/null 2>&1
	max=$(grep -o '"max_latency_us": [0-9]*' "$out/r$i.json" 2>/dev/null | head -1)
	if grep -q 'held no latency header' "$out/r$i.json" 2>/dev/null; then
		lost=$((lost + 1))
		echo "run $i: lost ($max)" >> "$out/SUMMARY"
	elif grep -q '"started_at"' "$out/r$i.json" 2>/dev/null; then
		echo "run $i: kept ($max)" >> "$out/SUMMARY"
	else
		echo "run $i: no trace, no note ($max)" >> "$out/SUMMARY"
	fi
done
if [ -n "$fp" ]; then
	# Let the flood end before anything else is printed on the console.
	touch "$out/.stop"
	wait "$fp"
fi
echo "lost $lost of $n" >> "$out/SUMMARY"
cat "$out/SUMMARY"
