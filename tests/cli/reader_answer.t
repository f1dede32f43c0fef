#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# reader_answer.t: in the lesson reader, 'a' opens the lesson's first
# question not answered yet, even one scrolled out of sight above (at the end
# of lesson 03 its predict questions are far up), while Enter keeps to the
# quizzes on screen.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" readans
title3="Lesson 03 $(printf '\xc2\xb7') The kinds of latency"

# Every question but the two predict ones is answered: those near the end are done.
answer() { printf '%s\n' "$2" | RTLAB_DATADIR=$SRCDIR "$RTLAB" quiz 03 --question "$1" >/dev/null 2>&1; }
answer which-latency a
answer rare-event 1
answer p9999-rests-on a
answer abstime-grid a
check "the non-predict questions of lesson 03 are answered" \
	[ "$(grep -cE '"(which-latency|rare-event|p9999-rests-on|abstime-grid)"' "$XDG_STATE_HOME/rtlab/progress.json")" -eq 4 ]

tm new-session -d -s r -x 80 -y 24 \
	"env TERM=xterm-256color RTLAB_DATADIR='$SRCDIR' '$RTLAB' 2>'$tmp/err'"
check "the menu is up" wait_for r " Lessons"
tm send-keys -t r Home j j Enter
check "lesson 03 opens" wait_for r "$title3"
tm send-keys -t r G
check "End shows the references" wait_for r "References"
check "the questions on screen there are answered" wait_for r "Quiz ✓"
tm send-keys -t r a
check "a opens the first unanswered question, far above" \
	wait_for r "The probe thread runs as plain SCHED_OTHER"

tap_done
