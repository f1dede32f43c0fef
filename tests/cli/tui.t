#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ncurses menu end to end: rtlab runs in a detached pane of a private tmux
# server, keys go in with send-keys and the screen comes back with
# capture-pane. Also the refusals (no terminal, TERM=dumb), NO_COLOR, the
# terminal being restored on quit and on SIGINT/SIGTERM/SIGHUP, and text
# truncated by display width. TAP output for prove. Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"


. "$SRCDIR/tests/cli/lib/tmux.bash" tui
version=$(sed -n 's/^VERSION = //p' "$SRCDIR/config.mk")
title="rtlab $version: learn real-time Linux by measuring it"
marker=$(printf '\xe2\x96\xb8')	# the selected row starts with this

# Fixture lessons, so the screen does not depend on what lessons/ holds today.
mkdir -p "$tmp/data/lessons" "$tmp/empty"
printf '# What real-time means\n\nBody.\n' >"$tmp/data/lessons/01-intro.md"
printf 'This file has text but no title heading.\n' >"$tmp/data/lessons/02-broken.md"
printf -- '---\ntitle: front matter is skipped\n---\n# Measuring latency\n' \
	>"$tmp/data/lessons/03-latency.md"
printf '# \xc3\x89ch\xc3\xa9ances \xe2\x80\x94 \xe5\xae\x9f\xe6\x99\x82\xe9\x96\x93\n' \
	>"$tmp/data/lessons/04-utf8.md"
wide=$(printf '\xe5\xae\x9f%.0s' $(seq 60))	# 60 wide characters, 120 columns
printf '# %s\n' "$wide" >"$tmp/data/lessons/05-wide.md"
printf '# Glossary\n' >"$tmp/data/lessons/glossary.md"

# start NAME COLSxLINES ENV... : run rtlab in a new detached session. The
# exit status lands in $tmp/NAME.status and stderr in $tmp/NAME.err.
start() {
	local name=$1 size=$2
	shift 2
	# The trap keeps the wrapper alive through Ctrl-C (rtlab gets the default).
	cat >"$tmp/$name.sh" <<-EOF
	trap : INT
	env $* "$RTLAB" 2>"$tmp/$name.err"
	echo "exit=\$?" >"$tmp/$name.status"
	EOF
	tm new-session -d -s "$name" -x "${size%x*}" -y "${size#*x}" \
		"sh $tmp/$name.sh" \; set-option -g remain-on-exit on
}

# sgr_matches NAME REGEX: the screen with its attributes as escape sequences.
sgr_matches() { tm capture-pane -p -e -t "$1" | grep -qE -- "$2"; }
selected_line() { screen "$1" | grep -F -- "$marker"; }
selected_has() { selected_line "$1" | grep -qF -- "$2"; }
alt_screen_off() { [ "$(tm display-message -p -t "$1" '#{alternate_on}')" = 0 ]; }
pane_dead() { [ "$(tm display-message -p -t "$1" '#{pane_dead}')" = 1 ]; }
# The pid of rtlab, the child of the pane's shell.
rtlab_pid() { pgrep -P "$(tm display-message -p -t "$1" '#{pane_pid}')" | head -n1; }

# ---- The menu -------------------------------------------------------------

start ui 80x24 TERM=xterm-256color RTLAB_DATADIR="$tmp/data" RTLAB_LOG="$tmp/ui.log"
check "menu shows the title bar" wait_for ui "$title"
check "menu shows the Lessons heading" wait_for ui " Lessons"
check "menu shows the Labs heading" wait_for ui " Labs"
check "menu lists the latency lab" wait_for ui "Timer and scheduling latency"
check "a ready lab is shown as ready" \
	wait_match ui 'Timer and scheduling latency +ready'
# Every lab of the course may have landed: then the planned-lab checks skip.
no_planned="no planned lab is left in the registry"
if "$RTLAB" lab list | awk '$2 == "planned" { f = 1 } END { exit !f }'; then
	planned=yes
	check "a planned lab is shown as coming" \
		wait_match ui '[^ ] +coming$'
else
	planned=
	skip "a planned lab is shown as coming: $no_planned"
fi
check "lesson titles come from the first heading" wait_for ui "01  What real-time means"
check "front matter is skipped" wait_for ui "03  Measuring latency"
check "UTF-8 titles are drawn whole" \
	wait_for ui "$(printf '04  \xc3\x89ch\xc3\xa9ances \xe2\x80\x94 \xe5\xae\x9f\xe6\x99\x82\xe9\x96\x93')"
cut=$(printf '\xe5\xae\x9f%.0s' $(seq 34))
check "a too-long title is cut by display width, with an ellipsis" \
	wait_for ui "05  $cut$(printf '\xe2\x80\xa6')"
check "a lesson without a title is listed with its file:line problem" \
	wait_for ui "02-broken.md:1: no '# Title' heading"
check "the glossary is listed" wait_for ui "Glossary"
check "the first lesson starts selected" wait_until selected_has ui "01  What real-time means"
check "the lesson problem is logged to RTLAB_LOG" grep -q "02-broken.md:1" "$tmp/ui.log"
check "the lesson problem shows in the status line" wait_for ui "warning: lesson 02-broken.md:1"
check "nothing is written to stderr while curses owns the terminal" \
	not grep -q 02-broken "$tmp/ui.err"

tm send-keys -t ui j
check "j moves the selection down" wait_for ui "$marker  02"
tm send-keys -t ui i
check "i opens the details pane of a lesson" wait_for ui "Reader"
check "the lesson details show its file" wait_for ui "$tmp/data/lessons/02-broken.md"
check "the lesson details show the problem" wait_for ui "Problem"
check "the lesson details say how to read it" wait_for ui "Press Enter on the lesson"
tm send-keys -t ui Escape
check "Esc closes the details pane" wait_gone ui "Reader"
# The title bar stays above the pane; the list (with the selection) is what comes back.
check "the menu is back after Esc" wait_for ui "$marker  02"
tm send-keys -t ui Enter
check "Enter on a broken lesson opens the reader with its problems on top" \
	wait_for ui "This lesson file has"
check "the reader names the broken file and line" wait_for ui "02-broken.md:1"
check "the rest of the broken lesson is shown" wait_for ui "This file has text but no title"
tm send-keys -t ui q
check "q leaves the reader for the menu" wait_for ui "$title"

check "j reaches the latency lab" move_to ui "Timer and scheduling latency"
# Enter and Right open a ready lab's own screen (tests/cli/lab_tui.t); i its details.
tm send-keys -t ui i
check "i opens the details pane of a lab" wait_for ui "Summary"
check "the lab details show its summary" wait_for ui "Measure wake-up latency"
check "the lab details show its state" wait_for ui "ready to run"
check "the lab details decode what it wants" wait_for ui "a PREEMPT_RT kernel"
check "the lab details say whether it is simulated" wait_for ui "Simulated"
check "the lab details name its lesson from the index" wait_for ui "03 Measuring latency"
tm send-keys -t ui Escape
check "Esc closes the lab details" wait_gone ui "Summary"
# A planned lab, whichever is still planned: up from the last lab to the nearest "coming".
# With none, the last lab (End) is the selection the resizes below must keep.
tm send-keys -t ui End
if [ -n "$planned" ]; then
	sel=coming
	check "a planned lab is found in the menu" move_to ui "coming" k
	tm send-keys -t ui i
	check "a planned lab's details say it is not runnable yet" wait_for ui "not runnable yet"
else
	sel=$("$RTLAB" lab list --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["labs"][-1]["title"][:30])')
	skip "a planned lab is found in the menu: $no_planned"
	check "End selects the last lab" wait_until selected_has ui "$sel"
	tm send-keys -t ui i
fi
tm send-keys -t ui q
check "q closes the details pane" wait_gone ui "Summary"
# Keys are handled in order: the help answering the next key shows that q left rtlab running.
tm send-keys -t ui '?'
check "? shows the help overlay" wait_for ui "read the lesson / run a lab (or details)"
check "q on the pane did not quit" not test -e "$tmp/ui.status"
check "the help lists the quit key" wait_for ui "quit rtlab"
tm send-keys -t ui x
check "any key closes the help" wait_gone ui "read the lesson / run a lab (or details)"

tm resize-window -t ui -x 60 -y 20
check "a 60x20 window shows the too-small message" \
	wait_for ui "terminal too small: need 80x24, have 60x20"
check "the too-small screen hides the menu" wait_gone ui "Timer and scheduling latency"
tm resize-window -t ui -x 80 -y 24
check "growing back to 80x24 shows the menu again" wait_for ui "$title"
check "the selection survives the resize" wait_until selected_has ui "$sel"
tm resize-window -t ui -x 120 -y 40
# The title was on screen before: only a redraw at the new size puts the footer on row 40.
check "a 120x40 window shows the menu" wait_until row_has ui 40 "quit"
check "the selection survives a second resize" wait_until selected_has ui "$sel"
tm resize-window -t ui -x 80 -y 24
tm send-keys -t ui Home
check "Home selects the first lesson" wait_for ui "$marker  01"

tm send-keys -t ui q
check "q on the menu exits with status 0" wait_status ui 0
check "the terminal left the alternate screen" alt_screen_off ui
check "the shell ran on after rtlab" pane_dead ui

# ---- Colour ---------------------------------------------------------------

colour_sgr='\[(3[0-7]|4[0-7]|38;|48;|9[0-7]|10[0-7])'
start colour 80x24 TERM=xterm-256color RTLAB_DATADIR="$tmp/data"
check "the colour run shows the menu" wait_for colour "$title"
check "the colour run uses colours" wait_until sgr_matches colour "$colour_sgr"
tm send-keys -t colour q
check "the colour run quits with 0" wait_status colour 0

start mono 80x24 TERM=xterm-256color NO_COLOR=1 RTLAB_DATADIR="$tmp/data"
check "NO_COLOR=1 still shows the menu" wait_for mono "$title"
check "NO_COLOR=1 still shows the labs" wait_for mono "Timer and scheduling latency"
check "NO_COLOR=1 marks the selection in reverse video" wait_until sgr_matches mono '\[([0-9;]*;)?7m'
check "NO_COLOR=1 draws no colour" not sgr_matches mono "$colour_sgr"
tm send-keys -t mono q
check "the NO_COLOR run quits with 0" wait_status mono 0

# ---- No lessons -----------------------------------------------------------

start empty 80x24 TERM=xterm-256color RTLAB_DATADIR="$tmp/empty"
check "no lessons shows a dimmed note naming the folder" \
	wait_for empty "(no lessons installed in $tmp/empty/lessons)"
check "no lessons still lists the labs" wait_for empty "Timer and scheduling latency"
check "with no lessons the first lab starts selected" wait_until selected_has empty "Timer and scheduling"
tm send-keys -t empty q
check "the empty run quits with 0" wait_status empty 0

# ---- Signals restore the terminal ----------------------------------------

for sig in INT TERM HUP; do
	name=sig$sig
	start "$name" 80x24 TERM=xterm-256color RTLAB_DATADIR="$tmp/data"
	wait_for "$name" "$title" >/dev/null
	if [ "$sig" = INT ]; then
		tm send-keys -t "$name" C-c
		how="Ctrl-C"
	else
		kill -"$sig" "$(rtlab_pid "$name")"
		how="SIG$sig"
	fi
	want=$((128 + $(kill -l "$sig")))
	check "$how ends rtlab with status $want" wait_status "$name" "$want"
	check "$how leaves the alternate screen" alt_screen_off "$name"
done

# ---- Refusals -------------------------------------------------------------

"$RTLAB" </dev/null >/dev/null 2>"$tmp/notty.err"
rc=$?
check "no terminal: exit 1" [ "$rc" -eq 1 ]
check "no terminal: says stdin is not a terminal" \
	grep -q "standard input is not a terminal" "$tmp/notty.err"
check "no terminal: points to rtlab --help" grep -qF "rtlab --help" "$tmp/notty.err"

cat >"$tmp/stdout.sh" <<EOF
"$RTLAB" >"$tmp/stdout.out" 2>"$tmp/stdout.err"
echo "exit=\$?" >"$tmp/stdout.status"
EOF
tm new-session -d -s stdout -x 80 -y 24 "env TERM=xterm-256color sh $tmp/stdout.sh"
check "stdout not a terminal: exit 1" wait_status stdout 1
check "stdout not a terminal: says so" \
	grep -q "standard output is not a terminal" "$tmp/stdout.err"

start dumb 80x24 TERM=dumb
check "TERM=dumb: exit 1" wait_status dumb 1
check "TERM=dumb: names the problem" grep -q "TERM=dumb" "$tmp/dumb.err"
check "TERM=dumb: points to rtlab --help" grep -qF "rtlab --help" "$tmp/dumb.err"
check "TERM=dumb: nothing was drawn" alt_screen_off dumb

start unknown 80x24 TERM=no-such-terminal-rtlab
check "unknown TERM: exit 1" wait_status unknown 1
check "unknown TERM: names it" grep -q "TERM=no-such-terminal-rtlab is not a terminal type" \
	"$tmp/unknown.err"

start noterm 80x24 -u TERM
check "TERM unset: exit 1" wait_status noterm 1
check "TERM unset: says so" grep -q "TERM is not set" "$tmp/noterm.err"

# A journal left by a killed run is replayed when rtlab starts. As root it sits
# in /run/rtlab (RTLAB_JOURNAL_DIR is ignored), where another rtlab starting at
# the same time may replay it first: either way the sleeper's policy is back.
. "$SRCDIR/tests/cli/lib/journal.bash"
jdir=$(journal_dir)
mkdir -p -m 0700 "$jdir"
sleep 600 >/dev/null 2>&1 </dev/null &
sleeper=$!
chrt -b -p 0 "$sleeper"
dead=$(dead_pid)
plant_journal "$jdir" "$dead" "sched $sleeper $(proc_start "$sleeper") other 0"
start recover 80x24 TERM=xterm-256color RTLAB_DATADIR="$tmp/data"
check "stale journal: the menu still opens" wait_for recover "$title"
check "stale journal: the policy is restored at start" \
	bash -c "chrt -p $sleeper | grep -q 'policy: SCHED_OTHER'"
check "stale journal: the journal is gone" not test -e "$jdir/$dead.journal"
tm send-keys -t recover q
check "stale journal: q exits 0" wait_status recover 0
kill "$sleeper"

echo "1..$n"
[ "$fails" -eq 0 ]
