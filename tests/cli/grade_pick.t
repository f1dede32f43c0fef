#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Which results document `rtlab grade LAB` and `rtlab handin LAB` take
# (labs/lab_pick.c): the cookie handout's last step runs one protocol on its
# own, and grading "the latest" then failed uni-fair and
# correct-protocols-exact with no hint. The newest document that holds every
# scenario the grade needs is graded, and the grade says which file and why;
# when none holds them all, the newest is graded and what it lacks is named.
# The hand-in packs the same document. Documents written with --json FILE
# count too: the progress file remembers the last 20 of each lab.
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

# ---- The handout's steps verbatim: step 2 writes --json cookie.json, 3-5 go to results/ ----
# Only the last document written used to be remembered, so once step 3 ran, step 2's
# cookie.json was never looked at again and the grade failed uni-fair.
cp "$full" "$tmp/outside.json"	# for the link below
rm -f "$results"/cookie-*.json
mkdir -p "$tmp/cwd"
(cd "$tmp/cwd" && "$RTLAB" lab run cookie --json cookie.json --duration 200ms) \
	>"$tmp/out" 2>"$tmp/err"
check "step 2 writes cookie.json" [ -s "$tmp/cwd/cookie.json" ]
sleep 1.1
run lab run cookie --protocol broken --diners 4 --duration 100ms
sleep 1.1
run lab run cookie --protocol ticket --diners 4 --duration 100ms
check "two single-protocol runs after it went to results/" \
	[ "$(ls "$results"/cookie-*.json | wc -l)" -eq 2 ]
run grade cookie --no-quiz --json
check "rtlab grade cookie takes step 2's cookie.json, written with --json" \
	grep -q "results document $tmp/cwd/cookie.json: the newest cookie document that holds everything the grade needs; 2 newer one(s) lack some" "$tmp/err"
check "... and uni-fair passes from it" \
	bash -c "jq -e '[.checks[] | select(.id == \"uni-fair\") | .status] == [\"pass\"]' \
		'$tmp/out' >/dev/null"
mv "$tmp/cwd/cookie.json" "$tmp/cwd/gone.json"
run grade cookie --no-quiz --json
check "a --json document that vanished is passed over: the newest in results/ is named" \
	grep -q "none of the 2 cookie document(s) holds everything" "$tmp/err"
rm -f "$tmp/cwd/gone.json"

# ---- At most the last 20 --json documents of a lab are remembered -------------------------
for i in $(seq 1 22); do
	(cd "$tmp/cwd" && "$RTLAB" lab run cookie --protocol broken --duration 10ms \
		--json "n$i.json") >/dev/null 2>&1
done
check "the progress file keeps the last 20 --json documents of the lab" \
	bash -c "jq -e '.labs.cookie.documents | length == 20 and
		(.[-1] | endswith(\"/n22.json\")) and (.[0] | endswith(\"/n3.json\"))' \
		'$XDG_STATE_HOME/rtlab/progress.json' >/dev/null"
rm -f "$tmp"/cwd/n*.json

# ---- A link in the results folder is not followed ----------------------------------------
rm -f "$results"/cookie-*.json
ln -sf "$tmp/outside.json" "$results/cookie-link.json"
run grade cookie --no-quiz --json
check "a link in the results folder is not graded: no results document is named" \
	bash -c "! grep -q 'results document' '$tmp/err'"

tap_done
