#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The trace viewer end to end (`rtlab trace view FILE`): rtlab runs in a
# detached pane of a private tmux server, keys go in with send-keys and the
# screen comes back with capture-pane (polled, never a fixed sleep). On the
# irqsoff and wakeup fixtures at 80x24 and 120x40: the header in words, the
# delay mark highlighted and explained, flags decoded, search with n, m to
# the mark, r to the raw file, the help, q with the terminal restored; a
# results document with a trace opens, one without says why; a missing
# file and a non-trace give a message and 1 without touching the screen.
# TAP output for prove. Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" traceview
traces=$SRCDIR/tests/data/traces

# start NAME COLSxLINES FILE: the viewer on FILE in a new detached session.
start() {
	cat >"$tmp/$1.sh" <<-EOF
	trap : INT
	env TERM=xterm-256color RTLAB_LOG="$tmp/$1.log" "$RTLAB" trace view "$3" 2>"$tmp/$1.err"
	echo "exit=\$?" >"$tmp/$1.status"
	EOF
	tm new-session -d -s "$1" -x "${2%x*}" -y "${2#*x}" "sh $tmp/$1.sh" \; \
		set-option -g remain-on-exit on
}

# sgr_line NAME TEXT: the first screen line holding TEXT, with its attributes as escapes.
sgr_line() { tm capture-pane -p -e -t "$1" | grep -F -- "$2" | head -n 1; }
# The title bar's "line N/M".
title_line() { screen "$1" | sed -n 1p | grep -oE 'line [0-9]+/' | tr -dc 0-9; }
# wait_line NAME N: poll until the title bar says line N is selected.
wait_line() {
	for _ in $(seq "$HANG_TENTHS"); do
		[ "$(title_line "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	echo "# expected line $2 selected, title says: $(screen "$1" | sed -n 1p)"
	return 1
}
# has_attr NAME TEXT: the line with TEXT carries some SGR attribute (colour or bold).
has_attr() { sgr_line "$1" "$2" | grep -qE $'\e\\[[0-9;]*[1-9][0-9;]*m'; }
# fits NAME COLSxLINES: never wider than the pane (display columns), no line past its bottom.
fits() {
	local w=${2%x*} h=${2#*x}
	[ "$(screen "$1" | wc -l)" -le "$h" ] && [ "$(screen "$1" | wc -L)" -le "$w" ]
}
title_has() { screen "$1" | sed -n 1p | grep -qF -- "$2"; }
# The terminal is back: out of the alternate screen the viewer drew on.
restored() { [ "$(tm display-message -p -t "$1" '#{alternate_on}')" = 0 ]; }

for size in 80x24 120x40; do
	s=i${size%x*}
	start "$s" "$size" "$traces/irqsoff.txt"
	check "$size irqsoff: the title names the file, tracer and latency" \
		wait_for "$s" "irqsoff.txt"
	check "$size irqsoff: the header in words" wait_for "$s" "Worst latency 512 us on CPU 1"
	check "$size irqsoff: what the tracer measures" wait_for "$s" "hard interrupts stayed"
	check "$size irqsoff: started and ended at" wait_for "$s" "Started at rtlab_inject_irqsoff"
	check "$size irqsoff: shown of total, model, CPUs" wait_for "$s" "Shown 6 of 6 entries"
	check "$size irqsoff: the first entry is selected" wait_line "$s" 22
	check "$size irqsoff: its flags are decoded in words" wait_for "$s" "irqs off"
	check "$size irqsoff: the detail pane explains the selected line" \
		wait_for "$s" "at +0 us: in rtlab_inject_irqsoff, called from"
	check "$size irqsoff: the delay mark's gap is in the gutter" wait_for "$s" "> 100 us"
	check "$size irqsoff: the delay mark line is highlighted" \
		wait_until has_attr "$s" "1us!: rtlab_inject_busy_wait"
	check "$size irqsoff: the screen fits the pane" fits "$s" "$size"

	tm send-keys -t "$s" m
	check "$size m jumps to the delay mark (line 23)" wait_line "$s" 23
	check "$size ... and says what it means" wait_for "$s" "the next entry came > 100 us later"

	tm send-keys -t "$s" g / tracer_hardirqs Enter
	check "$size / finds a function" wait_line "$s" 26
	check "$size ... the detail pane shows it" wait_for "$s" "in tracer_hardirqs_on, called from"
	tm send-keys -t "$s" / rtlab_inject_busy Enter
	check "$size a second search finds its first match" wait_line "$s" 23
	tm send-keys -t "$s" n
	check "$size n moves to the next match" wait_line "$s" 24
	tm send-keys -t "$s" n
	check "$size n wraps around to the top" wait_line "$s" 23
	check "$size ... and says so" wait_for "$s" "search hit BOTTOM"
	tm send-keys -t "$s" N
	check "$size N goes back" wait_line "$s" 24
	tm send-keys -t "$s" / no_such_function_here Enter
	check "$size a search without a match says so" wait_for "$s" "is not in the decoded view"

	tm send-keys -t "$s" r
	check "$size r shows the raw file, header comments too" wait_for "$s" "|||| time"
	check "$size ... the same line stays selected" wait_line "$s" 24
	check "$size ... and the title says raw" wait_until title_has "$s" " raw "
	tm send-keys -t "$s" g
	check "$size g in raw goes to line 1" wait_line "$s" 1
	check "$size ... the file's first line" wait_for "$s" "# tracer: irqsoff"
	tm send-keys -t "$s" r
	check "$size r again: decoded, the header comments gone" wait_gone "$s" "# tracer: irqsoff"
	tm send-keys -t "$s" G
	check "$size G goes to the last line (a stack frame)" wait_line "$s" 34
	check "$size ... explained as a frame" wait_for "$s" "a frame of the stack trace"
	tm send-keys -t "$s" '?'
	check "$size ? opens the help with the viewer's keys" wait_for "$s" "the widest delay mark"
	tm send-keys -t "$s" x
	check "$size any key closes the help" wait_gone "$s" "the widest delay mark"
	tm send-keys -t "$s" q
	check "$size q exits 0" wait_status "$s" 0
	check "$size the terminal is restored (main screen)" restored "$s"
	check "$size nothing was printed on stderr" [ ! -s "$tmp/$s.err" ]
done

# ---- A wakeup trace -------------------------------------------------------

start w 120x40 "$traces/wakeup_rt.txt"
check "wakeup_rt: the woken task with its priorities" \
	wait_for w "woken task sleep-2389 (pid 2389, SCHED_FIFO, rt_prio 5 = kernel prio 94)"
check "wakeup_rt: a scheduler line in words" wait_for w "wake-up: sleep-2389"
check "wakeup_rt: flags in their own column at 120 columns" wait_for w "flags in words"
check "wakeup_rt: hardirq and preempt depth decoded" wait_for w "hardirq, preempt depth 5"
tm send-keys -t w m
check "wakeup_rt: m jumps to the '+' mark" wait_line w 19
check "wakeup_rt: ... > 10 us" wait_for w "the next entry came > 10 us later"
tm send-keys -t w Escape
check "wakeup_rt: Esc exits 0" wait_status w 0

start w8 80x24 "$traces/wakeup.txt"
check "wakeup at 80x24: the header" wait_for w8 "Tracer wakeup:"
check "wakeup at 80x24: the selected entry's flags under it" wait_for w8 "flags: irqs off, need-resched"
check "wakeup at 80x24: fits" fits w8 80x24
tm send-keys -t w8 q
check "wakeup at 80x24: q exits 0" wait_status w8 0

# ---- Results documents ----------------------------------------------------

if command -v python3 >/dev/null; then
	python3 - "$traces/irqsoff.txt" "$tmp/tracer.json" "$tmp/events.json" <<-'EOF'
	import json, os, sys
	trace = open(sys.argv[1]).read()
	# A complete document: trace view/explain validate it as lab report does.
	base = dict(json.load(open(os.environ["SRCDIR"] + "/tests/data/results/latency-host.json")), lab="ftrace")
	json.dump(dict(base, extra={"mode": "tracer", "tracer": {"trace_text": trace, "trace_text_truncated": True}}), open(sys.argv[2], "w"))
	json.dump(dict(base, extra={"mode": "events"}), open(sys.argv[3], "w"))
	EOF
	start rj 80x24 "$tmp/tracer.json"
	check "a results document holding a trace opens" wait_for rj "Worst latency 512 us"
	check "... the title says where it came from" wait_for rj "results document"
	tm send-keys -t rj q
	check "... q exits 0" wait_status rj 0
	start re 80x24 "$tmp/events.json"
	check "an event-mode document exits 1" wait_status re 1
	check "... saying why, before the screen is touched" \
		grep -qF "events.json: an event-mode run of the ftrace lab" "$tmp/re.err"
	check "... and how to get a trace" grep -qF -- "--mode tracer" "$tmp/re.err"
else
	n=$((n + 1)); echo "ok $n # SKIP python3 is needed to build results documents"
fi

# ---- Bad files ------------------------------------------------------------

start miss 80x24 "$tmp/no-such-trace.txt"
check "a missing file exits 1" wait_status miss 1
check "... with a message naming it" \
	grep -qF "$tmp/no-such-trace.txt: cannot read it: No such file or directory" "$tmp/miss.err"
printf 'just some notes\nnot a trace at all\n' >"$tmp/notes.txt"
start bad 80x24 "$tmp/notes.txt"
check "a non-trace file exits 1" wait_status bad 1
check "... naming file:line and why" grep -qF "$tmp/notes.txt:1: not a latency trace" "$tmp/bad.err"

tap_done
