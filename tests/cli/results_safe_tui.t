#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The TUI's lab screen keeps its results as `rtlab lab run` does: SIGHUP
# (the terminal closed) while the latency lab measures saves the partial
# document and exits 129; a results directory that cannot be made refuses
# the run before it measures, with the reason on the status line. In a
# detached pane of a private tmux server. TAP output for prove. Needs RTLAB
# and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" savetui
export RTLAB_DATADIR=$SRCDIR RTLAB_LOG=$tmp/tui.log
results=$tmp/state/rtlab/results

# open_idle_other NAME: the latency lab's setup with only idle-other ticked.
open_idle_other() {
	wait_for "$1" "Timer and scheduling latency" >/dev/null || return 1
	menu_open "$1" "Timer and scheduling"
	wait_for "$1" "choose the scenarios" >/dev/null || return 1
	tm send-keys -t "$1" c Home Space
	wait_for "$1" "[x] idle-other"
}
rtlab_pid() { pgrep -P "$(tm list-panes -t "$1" -F '#{pane_pid}')" | head -n1; }
valid_interrupted() {
	[ -n "$1" ] && python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["extra"]["interrupted"] else 1)' "$1" 2>/dev/null &&
		"$RTLAB" lab report "$1" >/dev/null 2>&1
}

# ---- SIGHUP while measuring --------------------------------------------------------
tui_start hup 100x32
check "the latency lab's setup opens with idle-other ticked" open_idle_other hup
tm send-keys -t hup Enter
check "Enter starts measuring" wait_for hup "measuring idle-other (1 of 1)"
pid=$(rtlab_pid hup)
check "rtlab runs in the pane (pid $pid)" [ -n "$pid" ]
[ -n "$pid" ] && kill -HUP "$pid"
check "SIGHUP ends the TUI with 129" wait_status hup 129
doc=$(ls "$results"/latency-*.json 2>/dev/null | head -n1)
check "the partial document was saved, valid and marked interrupted ($doc)" \
	valid_interrupted "$doc"
check "the log says where" grep -qF "results saved to $doc (stopped early: partial)" "$tmp/tui.log"

# ---- a results directory that cannot be made -----------------------------------------
rm -rf "$results"
: >"$results"
tui_start nodir 100x32
check "the setup opens again" open_idle_other nodir
tm send-keys -t nodir Enter
check "the run is refused with the reason" \
	wait_for nodir "no run: $results: cannot make the results directory: Not a"
check "nothing is measuring" not bash -c "tmux -L $sock capture-pane -p -t nodir | grep -q 'measuring idle-other'"
tm send-keys -t nodir q q
check "q q leaves with 0" wait_status nodir 0

tap_done
