#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Which results document `rtlab grade LAB` and `rtlab handin LAB` take
# (labs/lab_pick.c): the cookie handout's last step runs one protocol on its
# own, and grading "the latest" then failed uni-fair and
# correct-protocols-exact with no hint. The newest document that holds every
# scenario the grade needs is graded, and the grade says which file and why;
# when none holds them all, the newest is graded and what it lacks is named.
# The hand-in packs the same document.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR
results=$XDG_STATE_HOME/rtlab/results

# ---- The handout's steps in order: every protocol, then one on its own -------------------
run lab run cookie --duration 1s --protocol broken
check "a run of the broken plate alone (exit $rc)" [ "$rc" -eq 0 ]
run grade cookie --no-quiz
check "with no full run, the grade names what the newest document lacks" \
	grep -q "none of the 1 cookie document(s) holds everything the grade needs; this, the newest, lacks uni-directional, ticket, greedy" "$tmp/err"
sleep 1.1	# the documents' "created" are whole seconds
run lab run cookie --duration 1s
check "every protocol, one second each (exit $rc)" [ "$rc" -eq 0 ]
full=$(ls -t "$results"/cookie-*.json | head -n 1)
sleep 1.1
run lab run cookie --duration 1s --protocol ticket
check "then the ticket lock alone (exit $rc)" [ "$rc" -eq 0 ]
last=$(ls -t "$results"/cookie-*.json | head -n 1)
check "three documents, the newest with the ticket lock but not the plate" \
	bash -c "[ \"\$(ls '$results'/cookie-*.json | wc -l)\" -eq 3 ] &&
		[ \"$last\" != \"$full\" ] &&
		jq -e '[.extra.scenarios[].name] | index(\"ticket\") and
			(index(\"uni-directional\") | not)' '$last' >/dev/null"

run grade cookie --no-quiz --json
check "rtlab grade cookie grades the full run, not the newest (exit 0 or 1: $rc)" [ "$rc" -le 1 ]
check "... and says which file it took and why" \
	grep -q "results document $full: the newest cookie document that holds everything the grade needs; 1 newer one(s) lack some (the newest, $last, lacks uni-directional, greedy)" "$tmp/err"
check "uni-fair and correct-protocols-exact pass from that document" \
	bash -c "jq -e '[.checks[] | select(.id == \"uni-fair\" or
		.id == \"correct-protocols-exact\") | .status] == [\"pass\", \"pass\"]' \
		'$tmp/out' >/dev/null"

# ---- The hand-in packs the same document -------------------------------------------------
mkdir -p "$tmp/hand"
run handin cookie --out "$tmp/hand/h.tar"
check "rtlab handin cookie says which results document it packed" \
	grep -q "The results document: $full: the newest cookie document that holds" "$tmp/out"
tar -xOf "$tmp/hand/h.tar" cookie/results.json >"$tmp/packed.json" 2>/dev/null
check "... and the packed document is the full run, byte for byte" cmp -s "$tmp/packed.json" "$full"

# ---- A link in the results folder is not followed ----------------------------------------
cp "$full" "$tmp/outside.json"
rm -f "$results"/cookie-*.json
ln -sf "$tmp/outside.json" "$results/cookie-link.json"
run grade cookie --no-quiz --json
check "a link in the results folder is not graded: no results document is named" \
	bash -c "! grep -q 'results document' '$tmp/err'"

tap_done
