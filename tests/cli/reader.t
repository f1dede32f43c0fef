#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The lesson reader end to end, on the real lessons: rtlab runs in a detached
# pane of a private tmux server, keys go in with send-keys and the screen
# comes back with capture-pane (polled, never a fixed sleep). Opens lesson 3
# from the menu, scrolls, searches, answers a quiz, quits, restarts and finds
# the place and the answer kept; then resizes, the help, the table of
# contents and the next lesson; then opens lesson 11 and answers its first
# quiz. TAP output for prove. Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"


. "$SRCDIR/tests/cli/lib/tmux.bash" reader
progress=$XDG_STATE_HOME/rtlab/progress.json
title3="Lesson 03 $(printf '\xc2\xb7') The kinds of latency"

# start NAME COLSxLINES: run rtlab on the real lessons in a new detached session.
start() {
	cat >"$tmp/$1.sh" <<-EOF
	trap : INT
	env TERM=xterm-256color RTLAB_DATADIR="$SRCDIR" RTLAB_LOG="$tmp/$1.log" "$RTLAB" 2>"$tmp/$1.err"
	echo "exit=\$?" >"$tmp/$1.status"
	EOF
	tm new-session -d -s "$1" -x "${2%x*}" -y "${2#*x}" "sh $tmp/$1.sh" \; \
		set-option -g remain-on-exit on
}

# The text area only: no title bar, status line, footer or scroll marks.
body() { screen "$1" | sed -n '3,$p' | head -n -2 | sed 's/ *[▲▼]$//; s/ *$//'; }

# wait_change NAME BEFORE: poll until the text area differs from BEFORE.
wait_change() {
	for _ in $(seq "$HANG_TENTHS"); do
		[ "$(body "$1")" != "$2" ] && return 0
		sleep 0.1
	done
	echo "# the text did not move"
	return 1
}

# sgr_line NAME TEXT: the line holding TEXT, with its attributes as escapes.
sgr_line() { tm capture-pane -p -e -t "$1" | grep -F -- "$2"; }
# The first text line: what the reader shows at the top.
top_line() { body "$1" | sed -n 1p; }
top_is() { [ "$(top_line "$1")" = "$2" ]; }
# line_matches NAME SED-RANGE ERE [-e]: a line in the range (of the screen with
# attributes as escapes, with -e) matches ERE.
line_matches() {
	local opt=
	[ "${4:-}" = -e ] && opt=-e
	tm capture-pane -p $opt -t "$1" | sed -n "$2p" | grep -qE -- "$3"
}
first_match_row() { screen "$1" | grep -n '▶' | head -n1; }
match_moved() { [ "$(first_match_row "$1")" != "$2" ]; }
# Select menu entry NN by moving down from the first lesson.
open_lesson() {
	local i
	tm send-keys -t "$1" Home
	for i in $(seq 2 "$2"); do tm send-keys -t "$1" j; done
	tm send-keys -t "$1" Enter
}

# ---- Open, scroll, search -------------------------------------------------

start r 80x24
check "the menu is up" wait_for r " Lessons"
open_lesson r 3
check "Enter on lesson 3 opens the reader with its title bar" wait_for r "$title3"
check "the reader shows the lesson's first paragraph" wait_for r '"Latency" is a word that hides'
check "the footer lists the main keys" wait_for r "contents"
heading_bold() {
	tm capture-pane -p -e -t "$1" | grep -F 'The kinds of latency, and how' | sed -n 2p |
		grep -qE '\[([0-9;]*;)?1[;m]'
}
check "the title is drawn as a heading (bold)" wait_until heading_bold r

before=$(body r)
tm send-keys -t r j
check "j scrolls the text one line" wait_change r "$before"
check "after j the old second line is at the top" \
	wait_until top_is r "$(printf '%s\n' "$before" | sed -n 2p)"
before=$(body r)
tm send-keys -t r PageDown
check "PgDn moves the view" wait_change r "$before"
check "PgDn keeps one line of context" \
	wait_until top_is r "$(printf '%s\n' "$before" | sed -n '$p')"
check "the position is shown in percent" wait_until line_matches r 1 ' [0-9]+% *$'

tm send-keys -t r / c y c l i c t e s t Enter
check "a search shows how many lines match" wait_for r "/cyclictest: "
check "the view moved to a line with the word" wait_until line_matches r 3,22 '[cC]yclictest'
check "the match is highlighted" wait_until line_matches r 1,\$ $'\e\\[[0-9;]*m[cC]yclictest' -e
first_match=$(first_match_row r)
tm send-keys -t r n
check "n moves to the next match" wait_until match_moved r "$first_match"
# Each n changes the screen (the match mark moves, or the notice shows): one n at a time.
check "n wraps around with a notice" \
	press_until r n on_screen r "search hit BOTTOM, continuing at TOP"
tm send-keys -t r / z q x w v Enter
check "a word that is not there says not found" wait_for r "not found: zqxwv"

# ---- A quiz ---------------------------------------------------------------

tm send-keys -t r G
check "End shows the references at the end" wait_for r "References"
check "the single-choice quiz is marked as the one to answer" \
	press_until r k on_screen r "▸ Quiz: A thread is busy computing"
tm send-keys -t r a
check "a opens the quiz screen" wait_for r "Quiz: choose one answer"
check "the options have letters" wait_for r "c) OS noise"
tm send-keys -t r Down Down Enter
check "arrows and Enter answer: right" wait_for r "Right."
check "the explanation is shown" wait_for r "The thread was already running and lost 30 us"
tm send-keys -t r x
check "any key goes back to the lesson" wait_gone r "choose one answer"
check "the quiz line shows the verdict" wait_for r "Quiz ✓ A thread is busy"
check "the line after it shows the answer" wait_for r "you answered c: right"
check "the next open quiz is marked now" wait_for r "▸ Quiz: A glitch"
tm send-keys -t r a 1 0 Enter
check "a wrong number says so with the answer" wait_for r "Not quite: the answer is 63 pct"
tm send-keys -t r x
check "a wrong answer shows a cross on the quiz line" wait_for r "Quiz ✗ A glitch"
pos_before=$(top_line r)
tm send-keys -t r q
check "q goes back to the menu" wait_for r " Lessons"
check "the menu shows lesson 3 as read with its score" \
	wait_for r "03  The kinds of latency, and how to measure them"
check "the menu row has the read tick and 1/4" wait_match r '03  The kinds.*✓ +1/4'
tm send-keys -t r q
check "q on the menu quits with 0" wait_status r 0
check "the answer is in progress.json" \
	bash -c "jq -e '.lessons[\"03\"].quiz[\"which-latency\"].answer == \"c\" and
		.lessons[\"03\"].quiz[\"which-latency\"].score == 1' '$progress' >/dev/null"
check "lesson 3 is marked read" bash -c "jq -e '.lessons[\"03\"].read == true' '$progress' >/dev/null"
if "$RTLAB" progress --json >"$tmp/progress.out" 2>/dev/null; then
	check "rtlab progress --json shows the answer" grep -q "which-latency" "$tmp/progress.out"
else
	check "rtlab progress --json shows the answer (file read with jq instead)" \
		jq -e '.lessons["03"].quiz["rare-event"].answer == "10"' "$progress"
fi

# ---- Restart: the place is kept ------------------------------------------

start r2 80x24
check "the second run shows the menu" wait_for r2 " Lessons"
open_lesson r2 3
check "lesson 3 reopens" wait_for r2 "$title3"
check "it reopens at the saved position" wait_until top_is r2 "$pos_before"
check "the saved answer is shown again" wait_for r2 "Quiz ✓ A thread is busy"

# ---- Resize ---------------------------------------------------------------

top=$(top_line r2)
tm resize-window -t r2 -x 60 -y 20
check "60x20 shows the too-small message" wait_for r2 "terminal too small: need 80x24, have 60x20"
tm resize-window -t r2 -x 80 -y 24
check "80x24 shows the lesson again" wait_for r2 "$title3"
check "at the same place" wait_until top_is r2 "$top"
tm resize-window -t r2 -x 120 -y 40
# The title was on screen before: only a redraw at the new size puts the footer on row 40.
check "120x40 reflows the lesson" wait_until row_has r2 40 "contents"
check "the reflowed view starts in the same paragraph" \
	wait_for r2 "$(printf '%s' "$top" | sed 's/^ *//' | cut -c1-20)"
tm resize-window -t r2 -x 80 -y 24
check "80x24 again" wait_until row_has r2 24 "contents"

# ---- Help, contents, links, next lesson ----------------------------------

tm send-keys -t r2 '?'
check "? lists the reader's keys" wait_for r2 "next / previous lesson"
check "the help lists search" wait_for r2 "next / previous match"
check "the help lists the table of contents" wait_for r2 "table of contents"
tm send-keys -t r2 x
check "any key closes the help" wait_gone r2 "next / previous match"
tm send-keys -t r2 t
check "t shows the contents" wait_for r2 "Contents"
check "the contents list the sections" wait_for r2 "How cyclictest measures"
tm send-keys -t r2 Home j j Enter
check "Enter in the contents closes it" wait_gone r2 "Contents"
check "and jumps to the chosen heading" wait_until line_matches r2 3 '^ *Worst case, not average'
tm send-keys -t r2 f 1 1 Enter
check "following a lab link names the lab" wait_for r2 "link [11]: the Timer and scheduling latency lab"
tm send-keys -t r2 7 Enter
check "a lesson link opens that lesson" wait_for r2 "Lesson 08"
tm send-keys -t r2 BSpace
check "Backspace comes back" wait_for r2 "$title3"
tm send-keys -t r2 1 Enter
check "a glossary link opens the glossary" wait_for r2 " Glossary "
check "at the term's heading" wait_until line_matches r2 3 '^ *Interrupt latency *(▲)?$'
tm send-keys -t r2 BSpace
check "Backspace returns from the glossary" wait_for r2 "$title3"
tm send-keys -t r2 ']'
check "] opens lesson 4" wait_for r2 "Lesson 04"
tm send-keys -t r2 q
check "q leaves the reader" wait_for r2 " Lessons"
tm send-keys -t r2 q
check "and q quits with 0" wait_status r2 0
check "nothing went to stderr" bash -c "! [ -s '$tmp/r2.err' ]"
check "lesson 4's position was saved" bash -c "jq -e '.lessons[\"04\"].position >= 1' '$progress' >/dev/null"

# ---- Lesson 11: open it from the menu and answer its quiz -------------------

title11="Lesson 11 $(printf '\xc2\xb7') CPU isolation and noise"
start r3 80x24
check "the third run shows the menu" wait_for r3 " Lessons"
open_lesson r3 11
check "Enter on lesson 11 opens it with its title bar" wait_for r3 "$title11"
tm send-keys -t r3 G
check "lesson 11: its first scored quiz can be marked" \
	press_until r3 k on_screen r3 "▸ Quiz: Which boot parameter moves"
tm send-keys -t r3 a
check "lesson 11: a opens the quiz screen" wait_for r3 "Quiz: choose one answer"
check "lesson 11: the options have letters" wait_for r3 "b) rcu_nocbs="
tm send-keys -t r3 Down Enter
check "lesson 11: the right answer is taken" wait_for r3 "Right."
check "lesson 11: the explanation is shown" wait_for r3 "hands the callbacks to rcuo threads"
tm send-keys -t r3 x
check "lesson 11: the quiz line shows the verdict" wait_for r3 "Quiz ✓ Which boot parameter"
tm send-keys -t r3 q
check "lesson 11: q goes back to the menu" wait_for r3 " Lessons"
tm send-keys -t r3 q
check "lesson 11: q on the menu quits with 0" wait_status r3 0
check "lesson 11's answer is in progress.json" \
	bash -c "jq -e '.lessons[\"11\"].quiz[\"iso-rcu\"].answer == \"b\" and
		.lessons[\"11\"].quiz[\"iso-rcu\"].score == 1' '$progress' >/dev/null"

echo "1..$n"
[ "$fails" -eq 0 ]
