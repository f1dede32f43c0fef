#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tui_80x24.t: the TUI at its smallest size, 80x24, shows whole sentences:
# the reader's help lines wrap instead of ending in an ellipsis, a lab's
# notes under its summary wrap, and no end of a reader line shows beside a
# box drawn over the lesson (lesson 08's quiz box once had a stray 's' at
# its right border, the end of a quiz line widened by its verdict mark; the
# table of contents the same). TAP output for prove. Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" small
export RTLAB_DATADIR=$SRCDIR
ell=$(printf '\xe2\x80\xa6')

# Lesson text beside a box: right of its right border (the reader's scroll
# marks in the last column excepted), or left of its left border (the
# reader's markers for a match and a quiz excepted).
beside_border() {
	screen "$1" | grep -qE '[┐│┘] *[^ ▲▼┐│┘─]+ *[▲▼]? *$' ||
		screen "$1" | grep -qE '^ *[^ ▶▸┌│└][^┌│└]*[┌│└]'
}
no_ellipsis_in_box() { ! screen "$1" | grep '│' | grep -qF "$ell"; }

# ---- The reader's help ----------------------------------------------------------
tui_start r 80x24
check "the menu opens" wait_for r "Lessons"
tm send-keys -t r Enter
check "lesson 01 opens" wait_for r "Lesson 01"
tm send-keys -t r '?'
check "the help shows the a key's whole line" wait_for r "answer the lesson's first open question,"
check "wrapped onto the next row" wait_for r "on screen or not"
check "no help line ends in an ellipsis" no_ellipsis_in_box r
check "and the last line still fits" wait_for r "leave rtlab (the terminal is restored)"

# ---- Lesson 08's quiz box and contents ------------------------------------------
# Answered, the quiz lines before fcse-modes start with a verdict mark, a
# column wider: "switching between two processes" then ends in the margin.
printf '95\nc\nb\n' | "$RTLAB" quiz 08 >/dev/null 2>&1
tm send-keys -t r Escape q
check "back in the menu" wait_for r "Lessons"
tui_start q8 80x24
check "the menu opens again" wait_for q8 "Lessons"
menu_open q8 "Caches that forget"
check "lesson 08 opens" wait_for q8 "Lesson 08"
tm send-keys -t q8 / s l o t s ' ' f i t Enter
check "a search puts the answered quizzes on screen" wait_for q8 "switching between two"
tm send-keys -t q8 Enter
check "Enter opens the first open quiz on screen (fcse-modes)" \
	wait_for q8 "Which statements about the two FCSE modes are right?"
check "nothing of the lesson shows beside the quiz box's border" not beside_border q8
tm send-keys -t q8 Escape
wait_gone q8 "tick every right answer" >/dev/null
tm send-keys -t q8 t
check "t opens the contents" wait_for q8 "Contents"
check "nothing of the lesson shows beside the contents' border" not beside_border q8
tm send-keys -t q8 Escape q

# ---- A lab's notes ------------------------------------------------------------------
tui_start lab 80x24
check "the menu opens for the lab" wait_for lab "Lessons"
menu_open lab "Deadline misses from non-preemptible sections"
check "the example lab opens" wait_for lab "Enter runs the lab"
tm send-keys -t lab Enter
check "its run ends on the summary" wait_for lab "results saved to" 300
check "the note is wrapped, its end on the next row" wait_for lab "measurement of this machine"
check "no note ends in an ellipsis" \
	not bash -c "tmux -L $sock capture-pane -p -t lab | grep '^ *note: ' | grep -qF '$ell'"

tap_done
