#!/bin/bash
# The latency lab's live screen end to end, in a detached pane of a private
# tmux server: open the lab from the menu, pick one short scenario, watch the
# table and the plot change while it measures, read the summary (with the
# prediction recorded beforehand), save, check that the saved document
# validates, quit with 0. A second run is shrunk to 60x20 while it measures:
# the too-small message shows, and the run still finishes and is saved.
# TAP output for prove. Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"


. "$SRCDIR/tests/cli/lib/tmux.bash" labtui
. "$SRCDIR/tests/cli/lib/journal.bash"
export RTLAB_DATADIR=$SRCDIR
results=$tmp/state/rtlab/results

# start NAME COLSxLINES: rtlab in a new detached session; status in $tmp/NAME.status.
start() {
	local name=$1 size=$2
	cat >"$tmp/$name.sh" <<-EOF
	trap : INT
	env TERM=xterm-256color "$RTLAB" 2>"$tmp/$name.err"
	echo "exit=\$?" >"$tmp/$name.status"
	EOF
	tm new-session -d -s "$name" -x "${size%x*}" -y "${size#*x}" \
		"sh $tmp/$name.sh" \; set-option -g remain-on-exit on
}




# The samples column of thread T0 in the live table.
t0_samples() { screen "$1" | awk '$1 == "T0" { print $(NF - 1); exit }'; }
# The plot area: the rows between its title and its x axis labels.
plot_rows() { screen "$1" | sed -n '/^ Latency histogram/,/ us$/p'; }
samples_grow() {
	local a b
	a=$(t0_samples "$1")
	sleep 0.6
	b=$(t0_samples "$1")
	echo "# samples $a -> $b"
	[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ]
}
plot_changes() {
	local a b
	a=$(plot_rows "$1" | md5sum)
	for _ in $(seq 20); do
		sleep 0.1
		b=$(plot_rows "$1" | md5sum)
		[ "$a" != "$b" ] && return 0
	done
	return 1
}
plot_has_bars() { plot_rows "$1" | grep -qF "$(printf '\xe2\x96\x88')"; }
# go_to_lab NAME: select the latency lab in the menu and open it with Enter.
go_to_lab() {
	for _ in $(seq 30); do
		screen "$1" | grep -F "$(printf '\xe2\x96\xb8')" | grep -qF "Timer and scheduling" &&
			break
		tm send-keys -t "$1" j
		sleep 0.05
	done
	tm send-keys -t "$1" Enter
}
# pick_idle_other NAME: clear the ticks, tick the first row (idle-other), 3 s.
pick_idle_other() {
	tm send-keys -t "$1" c Home Space - - -
	wait_for "$1" "Duration per scenario: 3 s" >/dev/null
}
# Validation passes when grade --json could read the document and ran its checks.
validates() {
	"$RTLAB" grade "$1" --json >"$tmp/grade.json" 2>"$tmp/grade.err"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["lab"] == "latency" and d["checks"] else 1)' \
		"$tmp/grade.json" 2>/dev/null || { sed 's/^/#   |/' "$tmp/grade.err"; return 1; }
}
newest_result() { ls -t "$results"/latency-*.json 2>/dev/null | head -n1; }

# A prediction for idle-other, so the setup and the summary have one to show.
printf '2500\n' | "$RTLAB" quiz 01 --question predict-idle-other >/dev/null 2>&1
check "a prediction for idle-other was recorded" \
	grep -q predict-idle-other "$XDG_STATE_HOME/rtlab/progress.json"

# ---- One short run ------------------------------------------------------------

start run 100x32
check "the menu opens" wait_for run "Timer and scheduling latency"
go_to_lab run
check "Enter on the latency lab opens its setup panel" wait_for run "choose the scenarios"
check "the setup says whether real-time is permitted here" \
	bash -c "tmux -L $sock capture-pane -p -t run | grep -qE 'Real-time: (SCHED_FIFO permitted|SCHED_OTHER)'"
check "the setup lists the scenarios" wait_for run "load-fifo-mlock-pinned"
check "the setup shows the learner's prediction" wait_for run "you predicted 2500 us"
pick_idle_other run
check "only idle-other is ticked" \
	bash -c "tmux -L $sock capture-pane -p -t run | grep -c '\[x\]' | grep -qx 1"
check "the ticked row is idle-other" wait_for run "[x] idle-other"
tm send-keys -t run '?'
check "? shows the lab's keys" wait_for run "pause the display; measuring goes on"
tm send-keys -t run x
check "any key closes the help" wait_for run "choose the scenarios"
tm send-keys -t run Enter
check "Enter starts measuring" wait_for run "measuring idle-other (1 of 1)"
check "the live table has a row for thread 0" wait_for run "T0"
check "the samples count grows while it measures" samples_grow run
check "the plot is drawn with bars" plot_has_bars run
check "the plot changes while it measures" plot_changes run
check "a progress bar names the scenario" \
	bash -c "tmux -L $sock capture-pane -p -t run | grep -qE '^ idle-other .*% (measuring|done)'"
check "the summary appears when the run ends" wait_for run "Latency lab: done" 80
check "the summary lists the scenario" wait_for run "idle-other               other"
check "the summary compares prediction and measurement" wait_for run "predicted 2500 us, measured"
check "the summary says where the document was saved" wait_for run "Results document: $results/"
first=$(newest_result)
check "the run saved a document at once" test -s "$first"
tm send-keys -t run w
check "w says where it saved" wait_for run "saved to $results/"
check "w also writes an HTML report" bash -c "ls '$results'/*.html >/dev/null 2>&1"
check "the saved document validates with rtlab grade" validates "$(newest_result)"
check "the progress file records the lab's run" \
	grep -q "\"result\": \"$results/latency-" "$XDG_STATE_HOME/rtlab/progress.json"
tm send-keys -t run q
check "q on the summary goes back to the menu" wait_for run "learn real-time Linux"
tm send-keys -t run q
check "q on the menu exits with status 0" wait_status run 0
check "nothing leaked onto stderr" test ! -s "$tmp/run.err"

# ---- Too small during a run -----------------------------------------------------

rm -f "$results"/*
start small 100x32
wait_for small "Timer and scheduling latency" >/dev/null
go_to_lab small
wait_for small "choose the scenarios" >/dev/null
pick_idle_other small
tm send-keys -t small Enter
check "the second run starts" wait_for small "measuring idle-other"
tm resize-window -t small -x 60 -y 20
check "60x20 during a run shows the too-small message" \
	wait_for small "terminal too small: need 80x24, have 60x20"
sleep 4
tm resize-window -t small -x 100 -y 32
check "the run finished while the window was too small" wait_for small "Latency lab: done" 80
check "and its document was saved" test -s "$(newest_result)"
check "that document validates" validates "$(newest_result)"

# ---- Stopping a run with q ----------------------------------------------------------

tm send-keys -t small r
wait_for small "choose the scenarios" >/dev/null
tm send-keys -t small + + +
check "a longer run can be chosen" wait_for small "Duration per scenario: 15 s"
tm send-keys -t small Enter
wait_for small "measuring idle-other" >/dev/null
sleep 1
tm send-keys -t small q
check "q stops the run and goes back to the menu" wait_for small "learn real-time Linux" 50
check "the stopped run left a partial document" \
	grep -q '"interrupted": true' "$(newest_result)"
check "no journal is left behind" \
	no_journal_of "$(pgrep -P "$(tm list-panes -t small -F '#{pane_pid}')" | head -n1)"
tm send-keys -t small q
check "q quits with status 0" wait_status small 0

echo "1..$n"
[ "$fails" -eq 0 ]
