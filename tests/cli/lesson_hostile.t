#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile or odd lesson files get a message, never a crash: 50,000 nested
# '>' or '- ' are shown as plain text by `lesson show` and `lesson list` and
# reported by `lesson lint` at their line; a lesson file that cannot be read
# or is too large is a problem that lint names and counts. TAP output for
# prove. Needs RTLAB and SRCDIR. About 3 s.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$tmp/data
lessons=$tmp/data/lessons
mkdir -p "$lessons"

# deep FILE MARKER: a lesson whose line 3 nests MARKER 50,000 times around "x".
deep() {
	{
		printf '# Deep\n\n'
		head -c 50000 /dev/zero | tr '\0' '\1' | sed "s/\x01/$2/g"
		printf 'bottom\n'
	} >"$1"
}
nesting="nesting deeper than 32 levels (block quotes, lists, emphasis, links); shown as plain text"

deep "$lessons/01-quotes.md" '>'
deep "$lessons/02-items.md" '- '

for l in 01 02; do
	run lesson show "$l" --width 60
	check "lesson show $l (50,000 levels) exits 0, no crash (rc $rc)" [ "$rc" -eq 0 ]
	check "it warns about the nesting, at line 3" grep -qF "lessons/$l-$( [ $l = 01 ] && echo quotes || echo items).md:3: $nesting" "$tmp/err"
	check "and the text at the bottom is shown" grep -q 'bottom' "$tmp/out"
done

run lesson list
check "lesson list with those lessons exits 0" [ "$rc" -eq 0 ]

run lesson lint "$lessons"
check "lesson lint fails (exit 1)" [ "$rc" -eq 1 ]
check "naming each file and line" \
	bash -c "grep -qxF '$lessons/01-quotes.md:3: $nesting' '$tmp/out' && grep -qxF '$lessons/02-items.md:3: $nesting' '$tmp/out'"
check "and counting them" grep -qF "2 problems in 2 of 2 lesson files" "$tmp/err"

# ---- files lint cannot read --------------------------------------------------------
rm -f "$lessons"/*
head -c $((4 * 1024 * 1024 + 1)) /dev/zero | tr '\0' a >"$tmp/03-big.md"
run lesson lint "$tmp/03-big.md"
check "an oversized lesson: exit 1" [ "$rc" -eq 1 ]
check "says it is too large" grep -qxF "$tmp/03-big.md: is larger than 4194304 bytes (4 MiB), the most a lesson may have" "$tmp/out"
check "and counts it as a problem" grep -qF "1 problem in 1 of 1 lesson file" "$tmp/err"

if ! can_switch; then
	skip "an unreadable lesson: needs root (to make it) and setpriv"
else
	printf '# Secret\n' >"$tmp/04-secret.md"
	chmod 0600 "$tmp/04-secret.md"
	as_nobody rtlab lesson lint "$tmp/04-secret.md" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "an unreadable lesson: exit 1" [ "$rc" -eq 1 ]
	check "says it cannot be read and why" grep -qxF "$tmp/04-secret.md: cannot read: Permission denied" "$tmp/out"
	check "and counts it as a problem" grep -qF "1 problem in 1 of 1 lesson file" "$tmp/err"
fi

tap_done
