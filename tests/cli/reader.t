#!/bin/bash
# The lesson reader end to end, on the real lessons: rtlab runs in a detached
# pane of a private tmux server, keys go in with send-keys and the screen
# comes back with capture-pane (polled, never a fixed sleep). Opens lesson 3
# from the menu, scrolls, searches, answers a quiz, quits, restarts and finds
# the place and the answer kept; then resizes, the help, the table of
# contents and the next lesson. TAP output for prove. Needs RTLAB and SRCDIR.
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
	for _ in $(seq 50); do
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
check "the title is drawn as a heading (bold)" \
	bash -c "tm() { tmux -L '$sock' -f /dev/null \"\$@\"; }; \
		tm capture-pane -p -e -t r | grep -F 'The kinds of latency, and how' | sed -n 2p | \
		grep -qE '\\[([0-9;]*;)?1[;m]'"

before=$(body r)
tm send-keys -t r j
check "j scrolls the text one line" wait_change r "$before"
check "after j the old second line is at the top" \
	[ "$(top_line r)" = "$(printf '%s\n' "$before" | sed -n 2p)" ]
before=$(body r)
tm send-keys -t r PageDown
check "PgDn moves the view" wait_change r "$before"
check "PgDn keeps one line of context" \
	[ "$(top_line r)" = "$(printf '%s\n' "$before" | sed -n '$p')" ]
check "the position is shown in percent" bash -c "tm() { tmux -L '$sock' -f /dev/null \"\$@\"; }; \
	tm capture-pane -p -t r | sed -n 1p | grep -qE ' [0-9]+% *$'"

tm send-keys -t r / c y c l i c t e s t Enter
check "a search shows how many lines match" wait_for r "/cyclictest: "
check "the view moved to a line with the word" bash -c "tm() { tmux -L '$sock' -f /dev/null \"\$@\"; }; \
	tm capture-pane -p -t r | sed -n '3,22p' | grep -qi cyclictest"
check "the match is highlighted" bash -c "tm() { tmux -L '$sock' -f /dev/null \"\$@\"; }; \
	tm capture-pane -p -e -t r | grep -qE $'\\e\\[[0-9;]*m[cC]yclictest'"
first_match=$(screen r | grep -n '^.*▶' | head -n1)
tm send-keys -t r n
check "n moves to the next match" bash -c "for i in \$(seq 50); do \
	[ \"\$(tmux -L '$sock' -f /dev/null capture-pane -p -t r | grep -n '▶' | head -n1)\" != '$first_match' ] && exit 0; sleep 0.1; done; exit 1"
wrapped=false
for _ in $(seq 12); do
	tm send-keys -t r n
	sleep 0.1
	screen r | grep -qF "search hit BOTTOM, continuing at TOP" && wrapped=true && break
done
check "n wraps around with a notice" $wrapped
tm send-keys -t r / z q x w v Enter
check "a word that is not there says not found" wait_for r "not found: zqxwv"

# ---- A quiz ---------------------------------------------------------------

tm send-keys -t r G
check "End shows the references at the end" wait_for r "References"
for _ in $(seq 40); do
	screen r | grep -q '▸ Quiz: A thread is busy computing' && break
	tm send-keys -t r k
	sleep 0.05
done
check "the single-choice quiz is marked as the one to answer" wait_for r "▸ Quiz: A thread is busy"
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
check "the menu row has the read tick and 1/4" \
	bash -c "tmux -L '$sock' -f /dev/null capture-pane -p -t r | grep '03  The kinds' | grep -qE '✓ +1/4'"
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
check "it reopens at the saved position" wait_for r2 "$pos_before"
check "the saved answer is shown again" wait_for r2 "Quiz ✓ A thread is busy"

# ---- Resize ---------------------------------------------------------------

top=$(top_line r2)
tm resize-window -t r2 -x 60 -y 20
check "60x20 shows the too-small message" wait_for r2 "terminal too small: need 80x24, have 60x20"
tm resize-window -t r2 -x 80 -y 24
check "80x24 shows the lesson again" wait_for r2 "$title3"
check "at the same place" [ "$(top_line r2)" = "$top" ]
tm resize-window -t r2 -x 120 -y 40
check "120x40 reflows the lesson" wait_for r2 "$title3"
check "the reflowed view starts in the same paragraph" \
	bash -c "tmux -L '$sock' -f /dev/null capture-pane -p -t r2 | grep -qF -- '$(printf '%s' "$top" | sed 's/^ *//' | cut -c1-20)'"
tm resize-window -t r2 -x 80 -y 24

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
check "and jumps to the chosen heading" bash -c "tmux -L '$sock' -f /dev/null \
	capture-pane -p -t r2 | sed -n 3p | grep -q '^ *Worst case, not average'"
tm send-keys -t r2 f 1 1 Enter
check "following a lab link names the lab" wait_for r2 "link [11]: the Timer and scheduling latency lab"
tm send-keys -t r2 7 Enter
check "a lesson link opens that lesson" wait_for r2 "Lesson 08"
tm send-keys -t r2 BSpace
check "Backspace comes back" wait_for r2 "$title3"
tm send-keys -t r2 1 Enter
check "a glossary link opens the glossary" wait_for r2 " Glossary "
check "at the term's heading" bash -c "tmux -L '$sock' -f /dev/null \
	capture-pane -p -t r2 | sed -n 3p | grep -q '^ *Interrupt latency *\(▲\)\?$'"
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

echo "1..$n"
[ "$fails" -eq 0 ]
