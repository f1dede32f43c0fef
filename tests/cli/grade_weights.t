#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A lab's grade by declared weights (labs/<lab>/checks/exercise.json):
# code, results and quiz each count their share whatever was handed in; a
# missing part counts 0 and says so; nothing handed in is "not handed in"
# (blank in the gradebook, no failure of the run); class mode grades the
# quiz from the student's progress.json, scored again from the stored
# answers (an edited "score" changes nothing), as the learner's own
# `rtlab grade LAB` does.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR

w=$(jq -c .weights "$SRCDIR/labs/nop/checks/exercise.json")
check "the nop exercise declares its weights ($w)" \
	jq -e '.weights.code + .weights.results + .weights.quiz == 100' \
	"$SRCDIR/labs/nop/checks/exercise.json"
wcode=$(jq .weights.code "$SRCDIR/labs/nop/checks/exercise.json")

# The learner answers lesson 09's quiz ("a" everywhere): a real progress file.
yes a | head -n 40 | "$RTLAB" quiz 9 >/dev/null 2>&1
prog=$XDG_STATE_HOME/rtlab/progress.json
check "a progress file with quiz answers" jq -e '.lessons["09"].quiz | length > 0' "$prog"

class=$tmp/class
mkdir -p "$class/ann/nop" "$class/bob" "$class/cy" "$class/dee/nop"
cp "$SRCDIR/labs/nop/reference/nop_monitor.c" "$class/ann/nop/"
cp "$prog" "$class/cy/progress.json"
jq '(.lessons["09"].quiz[] | .score) |= 1' "$prog" >"$class/dee/progress.json"
cp "$prog" "$class/ann/progress.json"
cp "$class/dee/progress.json" "$tmp/edited.json"
cp "$SRCDIR/labs/nop/reference/nop_monitor.c" "$class/dee/nop/"

run grade --class "$class" --lab nop --json --out "$tmp/out-class"
check "a class with a student who handed in nothing: exit 0 ($rc)" [ "$rc" -eq 0 ]
cp "$tmp/out" "$tmp/class.json"
g() { jq -r --arg s "$1" ".grades[] | select(.student == \$s) | $2" "$tmp/class.json"; }
check "bob handed in nothing: not handed in, no score" \
	[ "$(g bob '[.handed_in, .score_pct] | @json')" = '[false,null]' ]
check "and his gradebook row has a blank score" \
	grep -q '^bob,nop,,.*not handed in' "$tmp/out-class/gradebook.csv"
check "cy handed in only the quiz: code and results missing, counted 0" \
	[ "$(g cy '[.parts.code.missing, .parts.results.missing, .parts.quiz.missing] | @json')" = '[true,true,false]' ]
check "the score is the quiz's share alone" \
	bash -c "[ \"\$(jq -r '.grades[] | select(.student == \"cy\") | (.parts.quiz.score_pct * .weights.quiz / 100 * 10 | round)' '$tmp/class.json')\" = \"\$(jq -r '.grades[] | select(.student == \"cy\") | (.score_pct * 10 | round)' '$tmp/class.json')\" ]"
check "ann: the reference code, no results document: code's weight, results missing" \
	[ "$(g ann '[.parts.code.score_pct, .parts.results.missing] | @json')" = "[100,true]" ]
check "an edited stored score earns nothing: dee's quiz points equal ann's" \
	[ "$(g dee .parts.quiz.points)" = "$(g ann .parts.quiz.points)" ]
check "the weights are in every grade" [ "$(g ann '.weights | @json')" = "$w" ]

# The learner's own grade of the same work agrees with the teacher's.
mkdir -p "$XDG_STATE_HOME/rtlab/work/nop"
cp "$SRCDIR/labs/nop/reference/nop_monitor.c" "$XDG_STATE_HOME/rtlab/work/nop/"
cp "$tmp/edited.json" "$prog"
run grade nop --json
check "the learner's rtlab grade nop: the same quiz points as class mode" \
	[ "$(jq -r .parts.quiz.points "$tmp/out")" = "$(g ann .parts.quiz.points)" ]
check "and the same score" [ "$(jq -r .score_pct "$tmp/out")" = "$(g ann .score_pct)" ]
run grade nop
check "the text names the weights and the missing part" \
	grep -q "^parts by weight: code 100% x ${wcode}% results missing (0%)" "$tmp/out"

tap_done
