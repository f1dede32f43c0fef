#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The latency lab's live screen end to end, in a detached pane of a private
# tmux server: open the lab from the menu, pick one scenario, watch the table
# and the plot change while it measures, end it with s, read the summary (with
# the prediction recorded beforehand), save with w (document and HTML report),
# check that the saved document validates, quit with 0 (q in the menu asks
# after a run: y). A second run is shrunk to 60x20 while it measures: the
# too-small message shows, and the run ends and is saved while the window
# is small. A third is stopped with q. Every wait is for something only the
# awaited event draws or writes.
# TAP output for prove. Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" labtui
. "$SRCDIR/tests/cli/lib/journal.bash"
export RTLAB_DATADIR=$SRCDIR
results=$tmp/state/rtlab/results

# The samples column of thread T0 in the live table (empty when there is no table).
t0_samples() { screen "$1" | awk '$1 == "T0" { print $(NF - 1); exit }'; }
# The plot area: the rows between its title and its x axis labels.
plot_rows() { screen "$1" | sed -n '/^ Latency histogram/,/ us$/p'; }
measuring() { screen "$1" | grep -qF "Latency lab: measuring"; }
# t0_above NAME N: the live table shows more than N samples for T0, and the run is still on.
t0_above() {
	local v
	v=$(t0_samples "$1")
	[ -n "$v" ] && [ "$v" -gt "$2" ] && measuring "$1"
}
# samples_grow NAME: the count read from the live table rises while the run goes on.
samples_grow() {
	local a
	wait_until t0_above "$1" -1 >/dev/null || return 1
	a=$(t0_samples "$1")
	wait_until t0_above "$1" "$a" >/dev/null || return 1
	echo "# samples $a -> $(t0_samples "$1")"
}
plot_differs() { [ "$(plot_rows "$1" | md5sum)" != "$2" ] && measuring "$1"; }
plot_changes() { wait_until plot_differs "$1" "$(plot_rows "$1" | md5sum)"; }
plot_has_bars() { plot_rows "$1" | grep -qF "$(printf '\xe2\x96\x88')"; }
ticked_count() { [ "$(screen "$1" | grep -c '\[x\]')" -eq "$2" ]; }
# pick_idle_other NAME KEYS SECONDS: clear the ticks, tick the first row
# (idle-other), and step the duration from its default of 15 s with KEYS.
pick_idle_other() {
	tm send-keys -t "$1" c Home Space $2
	wait_for "$1" "Duration per scenario: $3 s" >/dev/null
}
# Validation passes when grade --json could read the document and ran its checks.
validates() {
	"$RTLAB" grade "$1" --json >"$tmp/grade.json" 2>"$tmp/grade.err"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["lab"] == "latency" and d["checks"] else 1)' \
		"$tmp/grade.json" 2>/dev/null || { sed 's/^/#   |/' "$tmp/grade.err"; return 1; }
}
newest_result() { ls -t "$results"/latency-*.json 2>/dev/null | head -n1; }
saved_one() { [ -s "$(newest_result)" ]; }

# A prediction for idle-other, so the setup and the summary have one to show.
printf '2500\n' | "$RTLAB" quiz 01 --question predict-idle-other >/dev/null 2>&1
check "a prediction for idle-other was recorded" \
	grep -q predict-idle-other "$XDG_STATE_HOME/rtlab/progress.json"

# ---- One run, ended with s once the live screen was seen ----------------------------
# The run is set to 60 s, longer than all the live checks' bounds together, so
# none of them can race its end; s then ends the scenario and brings the summary.

tui_start run 100x32
check "the menu opens" wait_for run "Timer and scheduling latency"
menu_open run "Timer and scheduling latency"
check "Enter on the latency lab opens its setup panel" wait_for run "choose the scenarios"
check "the setup says whether real-time is permitted here" \
	wait_match run 'Real-time: (SCHED_FIFO permitted|SCHED_OTHER)'
check "the setup lists the scenarios" wait_for run "load-fifo-mlock-pinned"
check "the setup shows the learner's prediction" wait_for run "you predicted 2500 us"
tm send-keys -t run -
check "below 12 s a probe scenario warns that the grade wants 10,000 samples" \
	wait_for run "too short to grade"
tm send-keys -t run c End Space
check "with only the throughput scenario ticked there is no sample warning" \
	wait_gone run "too short to grade"
tm send-keys -t run +
wait_for run "Duration per scenario: 15 s" >/dev/null
pick_idle_other run "+ + +" 60
check "only idle-other is ticked" wait_until ticked_count run 1
check "the ticked row is idle-other" wait_for run "[x] idle-other"
tm send-keys -t run '?'
check "? shows the lab's keys" wait_for run "pause the display; measuring goes on"
tm send-keys -t run x
check "any key closes the help" wait_gone run "pause the display; measuring goes on"
tm send-keys -t run Enter
check "Enter starts measuring" wait_for run "measuring idle-other (1 of 1)" 200
check "the live table has a row for thread 0" wait_for run "T0"
check "the samples count grows while it measures" samples_grow run
check "the plot is drawn with bars" wait_until plot_has_bars run
check "the plot changes while it measures" plot_changes run
check "a progress bar names the scenario" wait_match run '^ idle-other .*% measuring'
tm send-keys -t run s
check "s ends the scenario and the summary appears" wait_for run "Latency lab: done" 300
check "the summary lists the scenario as ended early" \
	wait_match run '^ +idle-other +ended early +other '
check "the summary compares prediction and measurement" \
	wait_match run '^ +idle-other +max_us +2500 +[0-9.]+ +us +(far above|far below|close to) your guess'
check "the summary says where the document was saved" wait_for run "Results document: $results/"
first=$(newest_result)
check "the run saved a document at once" test -s "$first"
# Only w draws the "HTML report:" line, after the file was written (and renamed into place).
tm send-keys -t run w
check "w says where it saved the HTML report" wait_for run "HTML report: $results/"
check "w wrote the HTML report beside the document" test -s "${first%.json}.html"
check "the HTML report is complete" bash -c "tail -n 1 '${first%.json}.html' | grep -qx '</html>'"
check "w says it saved both" wait_for run "saved to $first and "
check "the saved document validates with rtlab grade" validates "$(newest_result)"
check "the progress file records the lab's run" \
	grep -q "\"result\": \"$results/latency-" "$XDG_STATE_HOME/rtlab/progress.json"
tm send-keys -t run q
check "q on the summary goes back to the menu" wait_for run "learn real-time Linux"
tm send-keys -t run q
check "q on the menu after a run asks first (y/n)" \
	wait_for run "Quit rtlab? You ran a lab (its results are saved). y quits"
tm send-keys -t run n
check "any other key stays in the menu" wait_gone run "Quit rtlab?"
check "and rtlab still runs" bash -c "[ ! -s '$tmp/run.status' ]"
tm send-keys -t run q
wait_for run "Quit rtlab?" >/dev/null
tm send-keys -t run y
check "q then y exits with status 0" wait_status run 0
check "nothing leaked onto stderr" test ! -s "$tmp/run.err"

# ---- 80x24: the scenario list scrolls -----------------------------------------------
# More scenarios than rows: the list is a window that follows the cursor, and says so.

tui_start tiny 80x24
wait_for tiny "learn real-time Linux by measuring it" >/dev/null
menu_open tiny "Timer and scheduling latency"
wait_for tiny "choose the scenarios" >/dev/null
check "at 80x24 the list says which part of it shows" wait_match tiny 'Scenarios 1-[0-9]+ of [0-9]+'
tm send-keys -t tiny End
check "End scrolls to the last scenario (throughput)" wait_for tiny "throughput"
check "and the kernel-side ones come before it" wait_for tiny "fifo99-spinner"
tm send-keys -t tiny Home
check "Home scrolls back to idle-other" wait_for tiny "idle-other"
tm send-keys -t tiny q
tm kill-session -t tiny 2>/dev/null

# ---- Too small during a run -----------------------------------------------------
# A 10 s run, shrunk as soon as it measures. No document exists until the run
# ends, so "no document yet" on the too-small screen says the run was still on
# when the window shrank, and a document appearing before the window grows back
# says the run ended while the window was too small.

rm -f "$results"/*
tui_start small 100x32
wait_for small "Timer and scheduling latency" >/dev/null
menu_open small "Timer and scheduling latency"
wait_for small "choose the scenarios" >/dev/null
pick_idle_other small - 10
tm send-keys -t small Enter
check "the second run starts" wait_for small "measuring idle-other" 200
tm resize-window -t small -x 60 -y 20
check "60x20 during a run shows the too-small message" \
	wait_for small "terminal too small: need 80x24, have 60x20"
check "the run was still measuring when the window shrank" not saved_one
check "the run ended and saved its document while the window was too small" \
	wait_until -t 300 saved_one
check "the window was still too small then" wait_for small "terminal too small: need 80x24"
tm resize-window -t small -x 100 -y 32
check "growing back shows the summary" wait_for small "Latency lab: done"
check "that document validates" validates "$(newest_result)"

# ---- Stopping a run with q ----------------------------------------------------------

tm send-keys -t small r
wait_for small "choose the scenarios" >/dev/null
tm send-keys -t small +
check "a longer run can be chosen" wait_for small "Duration per scenario: 15 s"
tm send-keys -t small Enter
wait_for small "measuring idle-other" 200 >/dev/null
check "the run to be stopped has measured samples" wait_until t0_above small 0
tm send-keys -t small q
check "q stops the run and goes back to the menu" wait_for small "learn real-time Linux" 150
check "the stopped run left a partial document" \
	grep -q '"interrupted": true' "$(newest_result)"
check "no journal is left behind" \
	no_journal_of "$(pgrep -P "$(tm list-panes -t small -F '#{pane_pid}')" | head -n1)"
tm send-keys -t small q
check "a stopped run counts too: q asks" wait_for small "Quit rtlab?"
tm send-keys -t small y
check "y quits with status 0" wait_status small 0

tap_done
