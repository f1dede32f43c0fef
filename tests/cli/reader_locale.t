#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The reader under LC_ALL=C: the terminal cannot show non-ASCII there, so
# rtlab draws '?' for it, but the widths stay those of the lesson layout
# (rt_utf8, the same in every locale): a double-width character takes two
# '?', a combining accent none, and a search highlight lands on its word.
# Runs rtlab in a tmux pane on a lesson of its own. TAP output for prove.
# Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tmux.bash" rdlocale

mkdir -p "$tmp/data/lessons"
printf '# Wide words\n\nStart \xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97 needle and cafe\xcc\x81 here.\n' \
	>"$tmp/data/lessons/01-wide.md"

# The tmux client stays in a UTF-8 locale (capture-pane needs it); rtlab gets C.
cat >"$tmp/r.sh" <<EOF
env LC_ALL=C LANG=C TERM=xterm-256color RTLAB_DATADIR="$tmp/data" "$RTLAB" 2>"$tmp/r.err"
echo "exit=\$?" >"$tmp/r.status"
EOF
tm new-session -d -s r -x 80 -y 24 "sh $tmp/r.sh" \; set-option -g remain-on-exit on

check "the menu is up" wait_for r " Lessons"
tm send-keys -t r Home Enter
check "the reader opens the lesson" wait_for r "Wide words"
# Four double-width characters: eight '?'; the accent adds nothing to "cafe".
check "wide characters keep their two columns, an accent none" \
	wait_match r '^ *Start \?{8} needle and cafe here\.$'
tm send-keys -t r / n e e d l e Enter
check "a search finds the word after the wide characters" wait_for r "/needle: 1 line match"
# The highlight starts exactly at "needle", not in the '?' before it.
highlighted() {
	tm capture-pane -p -e -t r | grep -F 'Start' | grep -qE $'\\?{8} (\e\\[[0-9;]*m)+needle'
}
check "the highlight lands on the word" wait_until highlighted
tm send-keys -t r q
check "q goes back to the menu" wait_for r " Lessons"
tm send-keys -t r q
check "rtlab exits cleanly" wait_until grep -qx 'exit=0' "$tmp/r.status"
check "nothing on stderr" [ ! -s "$tmp/r.err" ]
tap_done
