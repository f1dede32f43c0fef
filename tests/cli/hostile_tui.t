#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Control characters in the TUI: `rtlab trace view` on a trace whose
# function names hold ESC sequences (clear screen, set the title) draws them
# as visible escapes ("\x1b[2J"), as the CLI prints them, instead of sending
# them to the terminal or hiding them as '?'. rtlab runs in a detached pane
# of a private tmux server; the screen comes back with capture-pane (polled,
# never a fixed sleep). TAP output for prove. Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" hostile

sed 's/rtlab_inject_busy_wait/busy\x1b[2J\x1b]0;pwned\x07/' \
	"$SRCDIR/tests/data/traces/irqsoff.txt" >"$tmp/evil.txt"
cat >"$tmp/v.sh" <<-EOF
	trap : INT
	env TERM=xterm-256color RTLAB_LOG="$tmp/v.log" "$RTLAB" trace view "$tmp/evil.txt" 2>"$tmp/v.err"
	echo "exit=\$?" >"$tmp/v.status"
EOF
tm new-session -d -s v -x 120 -y 40 "sh $tmp/v.sh" \; set-option -g remain-on-exit on

check "the viewer opens on the trace" wait_for v "Worst latency 512 us on CPU 1"
tm send-keys -t v m
check "the function name is drawn with its ESC escaped" wait_for v 'in busy\x1b[2J\x1b]0;pwned\x07'
check "the pane title was not set by the trace" \
	not bash -c "tmux -L '$sock' -f /dev/null display-message -p -t v '#{pane_title}' | grep -q pwned"
tm send-keys -t v q
check "q exits 0" wait_status v 0

tap_done
