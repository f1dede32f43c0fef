#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# capture-events.sh OUTDIR CMD...: record sched_switch, sched_waking and sched_wakeup,
# unfiltered, in a private tracefs instance while CMD runs, and keep what the kernel wrote:
# OUTDIR/trace.txt (the instance's `trace` file, byte for byte), OUTDIR/stats.txt (each
# CPU's per_cpu/cpuN/stats after the run: entries, overrun, dropped events) and
# OUTDIR/MANIFEST (kernel, command, buffer size, trace clock). Used on the host and in the
# classroom VM to make the event matcher's fixtures (tests/data/traces/events/) and to check
# whether the kernel records every switch out of the idle task (issue 11).
#
# The instance is called "evcap-<pid>", not "rtlab-...", so that an rtlab run inside CMD
# does not sweep it as stale. BUFFER_KB (default 8192) is the per-CPU buffer; the trace is
# read once, after CMD, so a buffer too small for the run shows as "overrun" in stats.txt.
set -u
out=${1:?usage: capture-events.sh OUTDIR CMD...}
shift
[ $# -gt 0 ] || { echo "usage: capture-events.sh OUTDIR CMD..." >&2; exit 2; }
T=/sys/kernel/tracing
[ -d $T/instances ] || T=/sys/kernel/debug/tracing
I=$T/instances/evcap-$$
mkdir -p "$out" || exit 1
mkdir "$I" || exit 1
trap 'echo 0 > "$I/tracing_on"; echo 0 > "$I/events/enable"; rmdir "$I"' EXIT
echo 0 > "$I/tracing_on"
echo mono > "$I/trace_clock" 2>/dev/null || true
echo "${BUFFER_KB:-8192}" > "$I/buffer_size_kb" || exit 1
for e in sched_switch sched_waking sched_wakeup; do
	echo 1 > "$I/events/sched/$e/enable" || exit 1
done
echo 1 > "$I/tracing_on"
"$@"
rc=$?
echo 0 > "$I/tracing_on"
cp "$I/trace" "$out/trace.txt"
: > "$out/stats.txt"
for c in "$I"/per_cpu/cpu*; do
	echo "${c##*/}" >> "$out/stats.txt"
	cat "$c/stats" >> "$out/stats.txt"
done
{
	echo "kernel $(uname -r) $(uname -v)"
	echo "cpus $(ls -d "$I"/per_cpu/cpu* | wc -l) buffer_size_kb $(cat "$I/buffer_size_kb")" \
		"trace_clock $(sed 's/.*\[\(.*\)\].*/\1/' "$I/trace_clock")"
	echo "command $*"
	echo "exit $rc"
	echo "lines $(wc -l < "$out/trace.txt")"
} > "$out/MANIFEST"
echo "captured $out/trace.txt ($(wc -l < "$out/trace.txt") lines)"
