#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ftrace lab's live screen end to end at 80x24, in a detached pane of a
# private tmux server, as root on the real tracefs: open the lab from the
# menu; the setup shows tracefs, root and each latency tracer with, for a
# missing one, its kernel option, and refuses to choose it with the lab's
# reason; a 5 s event-mode hunt with a typed seed runs with live counts and
# ends in a summary with counts; v says why an event-mode run has no trace;
# d takes the right diagnosis (read from the document's extra.hunt.truth)
# and shows a passing grade, which `rtlab grade` agrees with on the saved
# file, then a wrong one that fails; a random seed never shows; q during a
# run stops it and removes its instances. The top-level tracing state is the
# same after as before. TAP for prove; needs RTLAB and SRCDIR. About 30 s.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" ftracetui
. "$SRCDIR/tests/cli/lib/journal.bash"
export RTLAB_DATADIR=$SRCDIR
results=$tmp/state/rtlab/results
T=/sys/kernel/tracing

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP the ftrace lab runs live only as root (tracefs, SCHED_FIFO)"
	exit 0
fi
mounted_here=
if [ ! -e "$T/available_tracers" ]; then
	if ! mount -t tracefs nodev "$T" 2>"$tmp/mount.err"; then
		echo "1..0 # SKIP tracefs is not mounted at $T and cannot be: $(head -c 200 "$tmp/mount.err")"
		exit 0
	fi
	mounted_here=1
fi
if [ ! -w "$T/instances" ]; then
	echo "1..0 # SKIP $T/instances is not writable: the lab needs a private instance"
	exit 0
fi
finish() {
	cleanup
	[ -n "$mounted_here" ] && umount "$T" 2>/dev/null
}
trap finish EXIT

skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
json_get() { # json_get FILE PYTHON-EXPR(d)
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}
. "$SRCDIR/tests/cli/lib/tracefs.bash"
newest_result() { ls -t "$results"/ftrace-*.json 2>/dev/null | head -n1; }
# select_row NAME LABEL: move the setup's cursor (the marker) to the row LABEL:
# g takes it to the first row (Mode), then j one row at a time (move_to).
select_row() {
	tm send-keys -t "$1" g
	wait_until marked_has "$1" "$(printf '\xe2\x96\xb8') Mode " || return 1
	move_to "$1" "$(printf '\xe2\x96\xb8') $2 "
}
marked_has() { marked "$1" | grep -qF -- "$2"; }
# The probe's wake-ups: the second column of the row "probe" on the screen.
probe_count() { screen "$1" | awk '$1 == "probe" { print $2; exit }'; }
measuring() { screen "$1" | grep -qF "Ftrace lab: measuring"; }
# probe_above NAME N: the live view shows more than N probe wake-ups, and the run is still on.
probe_above() {
	local v
	v=$(probe_count "$1")
	[ -n "$v" ] && [ "$v" -gt "$2" ] && measuring "$1"
}
counts_grow() {
	local a
	wait_until probe_above "$1" -1 >/dev/null || return 1
	a=$(probe_count "$1")
	wait_until probe_above "$1" "$a" >/dev/null || return 1
	echo "# probe wake-ups $a -> $(probe_count "$1")"
}
summary_probe_over() { [ "$(probe_count "$1")" -ge "$2" ] 2>/dev/null; }
# rtlab's pid in session NAME (the child of the pane's shell).
rtlab_pid() { pgrep -P "$(tm list-panes -t "$1" -F '#{pane_pid}')" | head -n1; }
our_instances() { ls "$T/instances" | grep -E -- "^rtlab-.*-$1\$"; }
# choose_kind NAME KIND: step the form's cause with Right, one at a time, until it shows KIND.
choose_kind() { press_until "$1" Right on_screen "$1" "< $2 >"; }

before=$(state)

# ---- Setup -----------------------------------------------------------------------------

tui_start run 80x24
# With sixteen lessons the labs start below the first screen: the menu scrolls to them.
check "the menu opens at 80x24" wait_for run "learn real-time Linux by measuring it"
menu_open run "Hunting latencies with ftrace"
check "Enter on the ftrace lab opens its setup panel" wait_for run "Ftrace lab: choose the settings"
check "the setup says tracefs is mounted and writable" wait_for run "tracefs: mounted at"
check "the setup says we run as root" wait_for run "running as root"
check "the setup says the lab runs live here" wait_for run "Live: runs live here"
check "event mode is the default" wait_for run "events: sched_waking -> sched_switch"
if grep -qw irqsoff "$T/available_tracers"; then
	skip "missing-tracer reason: this kernel has irqsoff"
	skip "refusal on the status line: this kernel has irqsoff"
	skip "refused tracer leaves event mode: this kernel has irqsoff"
else
	check "irqsoff is listed as missing, with its kernel option" \
		wait_match run 'irqsoff +missing: CONFIG_IRQSOFF_TRACER'
	select_row run Tracer
	tm send-keys -t run Space
	check "choosing irqsoff is refused with the lab's reason" \
		wait_for run "the irqsoff tracer is not in this kernel"
	check "the reason names the option and the bundled kernel" \
		wait_for run "CONFIG_IRQSOFF_TRACER, which the bundled lab kernel has"
	check "the refused tracer leaves event mode on" \
		wait_for run "events: sched_waking -> sched_switch"
fi
select_row run Hunt
tm send-keys -t run Space
check "Space turns the hunt on" wait_for run "on: rtlab plants a hidden cause"
select_row run Seed
tm send-keys -t run 7 3
check "a typed seed shows in the setup" wait_for run "73 (typed"
select_row run Duration
tm send-keys -t run - -
check "- - makes the run 2 s" wait_for run "Duration       2 s"
# 5 s, so that the live checks below cannot race the end of the run.
tm send-keys -t run + +
check "+ + makes it 5 s again" wait_for run "Duration       5 s"
tm send-keys -t run '?'
check "? shows the lab's keys" wait_for run "diagnose the hunt: cause, function, tracer"
tm send-keys -t run x
check "any key closes the help" wait_gone run "diagnose the hunt: cause, function, tracer"

# ---- A 5 s hunt -----------------------------------------------------------------------------

tm send-keys -t run Enter
check "Enter leaves the setup for the run" wait_gone run "Ftrace lab: choose the settings"
check "the run gets to measuring" wait_for run "Ftrace lab: measuring (event mode)" 150
check "the live view shows the probe's and the events' counts" wait_for run "wake-ups"
check "the probe's count grows while it measures" counts_grow run
check "the summary appears when the run ends" wait_for run "Ftrace lab: done (event mode, hunt)" 300
check "the summary counts over 1000 probe wake-ups" wait_until summary_probe_over run 1000
check "the summary counts matched events" wait_match run '^ events +[1-9][0-9]* '
check "the summary has the agreement verdict" wait_for run "Agreement: agree"
check "the summary says there was no tracer" wait_for run "Tracer: none (event mode)"
check "a typed seed shows on the summary" wait_for run "Hunt: seed 73, "
check "the summary says where the document was saved" wait_for run "Results document: $results/"
doc=$(newest_result)
check "the run saved its document" test -s "$doc"
check "the document is the hunt with seed 73" [ "$(json_get "$doc" 'd["extra"]["hunt"]["seed"]')" = 73 ]
check "the progress file records the run" \
	grep -q "\"result\": \"$results/ftrace-" "$XDG_STATE_HOME/rtlab/progress.json"

tm send-keys -t run v
check "v on an event-mode run says why there is no trace" wait_for run "no tracer trace"
check "and the summary stays" wait_for run "Ftrace lab: done"

# ---- Diagnosis ------------------------------------------------------------------------------

kind=$(json_get "$doc" 'd["extra"]["hunt"]["truth"]["kind"]')
func=$(json_get "$doc" 'd["extra"]["hunt"]["truth"]["function"]')
echo "# planted: $kind in $func"
tm send-keys -t run d
check "d opens the diagnosis form" wait_for run "Diagnosis of the hunt"
check "the cause can be chosen from the list" choose_kind run "$kind"
tm send-keys -t run Tab
tm send-keys -t run -l "$func"
check "the function is typed into its field" wait_match run "Function +$func"
tm send-keys -t run Tab
check "the tracer list starts with events" wait_for run "< events >"
tm send-keys -t run Enter
check "the right diagnosis passes the grade" wait_for run "Grade: passed, 7 of 7"
check "the cause check passed" wait_for run "[pass] cause"
check "the answers went into the progress file" \
	bash -c "python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))[\"labs\"][\"ftrace\"][\"answers\"]; sys.exit(0 if a[\"cause\"][\"text\"] == sys.argv[2] and a[\"function\"][\"text\"] == sys.argv[3] and a[\"tracer\"][\"text\"] == \"events\" else 1)' '$XDG_STATE_HOME/rtlab/progress.json' '$kind' '$func'"
check "rtlab lab answer reads the same answers" \
	bash -c "'$RTLAB' lab answer ftrace cause | grep -qx 'cause: $kind'"
check "rtlab grade passes the saved document too" bash -c "'$RTLAB' grade '$doc' >/dev/null"

tm send-keys -t run d
wait_for run "Diagnosis of the hunt" >/dev/null
check "the form keeps the stored answers" wait_for run "< $kind >"
tm send-keys -t run Right
check "Right picks another cause" wait_gone run "< $kind >"
tm send-keys -t run Enter
check "a wrong cause fails the grade" wait_for run "Grade: not passed, 6 of 7"
check "the cause check failed" wait_for run "[FAIL] cause"
check "rtlab grade fails the saved document now" not bash -c "'$RTLAB' grade '$doc' >/dev/null"

# ---- A random seed stays hidden ----------------------------------------------------------

tm send-keys -t run r
wait_for run "Ftrace lab: choose the settings" >/dev/null
select_row run Seed
tm send-keys -t run Space
check "Space makes the seed random again" wait_for run "random, kept hidden"
select_row run Duration
tm send-keys -t run - - -
check "- - - makes the run 1 s" wait_for run "Duration       1 s"
tm send-keys -t run Enter
check "the random hunt ends" wait_for run "Ftrace lab: done (event mode, hunt)" 300
doc2=$(newest_result)
seed2=$(json_get "$doc2" 'd["extra"]["hunt"]["seed"]')
check "the summary says the seed is hidden" wait_for run "Hunt: random seed (hidden)"
tm send-keys -t run d
wait_for run "Diagnosis of the hunt" >/dev/null
tm send-keys -t run Enter
check "its grade hides the seed too" wait_for run "a cause was planted (seed (hidden)"
check "the random seed is nowhere on the screen" not bash -c "tmux -L $sock capture-pane -p -t run | grep -qF '$seed2'"

# ---- q stops a run ----------------------------------------------------------------------

tm send-keys -t run r
wait_for run "Ftrace lab: choose the settings" >/dev/null
select_row run Duration
tm send-keys -t run + + + + + + +
check "a 30 s run can be chosen" wait_for run "Duration       30 s"
tm send-keys -t run Enter
wait_for run "Ftrace lab: measuring" 150 >/dev/null
pid=$(rtlab_pid run)
has_instance() { [ -d "$T/instances/rtlab-ftrace-$1" ]; }
check "the run has its private instance" wait_until has_instance "$pid"
check "the run to be stopped has counted probe wake-ups" wait_until probe_above run 0
tm send-keys -t run q
check "q stops the run and goes back to the menu" wait_for run "learn real-time Linux" 150
check "the stopped run removed its instances" bash -c "! ls '$T/instances' | grep -qE -- '^rtlab-.*-$pid\$'"
check "the stopped run left a partial document" \
	[ "$(json_get "$(newest_result)" 'd["extra"]["interrupted"]')" = True ]
check "no journal is left behind" no_journal_of "$pid"
tm send-keys -t run q
check "q on the menu after a run asks first" wait_for run "Quit rtlab?"
tm send-keys -t run y
check "y exits with status 0" wait_status run 0
check "nothing leaked onto stderr" test ! -s "$tmp/run.err"

after=$(state)
check "the top-level tracing state is as before" [ "$before" = "$after" ]
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | sed 's/^/# /'

tap_done
