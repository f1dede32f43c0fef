#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# grade.t: `rtlab grade` in its forms. A results document (the checksum
# catches a hand edit; --json is rtlab.grade/1, TAP goes through prove,
# JUnit through xmllint); an exercise folder (--exercise, --lint,
# --build-only and grading the prebuilt folder without compiling); a
# registered lab with an exercise (a data dir whose example lab carries the
# toy exercise): `rtlab lab start` / `reset`, the working copy graded by
# default, its results document and a class folder holding it.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR
toy=$SRCDIR/tests/data/exercise/toy

# ---- usage and help --------------------------------------------------------------------
run grade --help
check "--help says a lab name selects the exercise form, anything else is a file" \
	grep -q "anything else is read as the path of a results document" "$tmp/out"
check "--help names the formats" grep -q 'text (default), tap, junit, json' "$tmp/out"
run grade
check "no argument is a usage error (exit 2)" [ "$rc" -eq 2 ]
run grade x.json --format yaml
check "an unknown format is a usage error" [ "$rc" -eq 2 ]
run grade x.json --jobs 2
check "--jobs without --class is a usage error" [ "$rc" -eq 2 ]
run grade "$tmp/none.json"
check "a missing document: exit 1 naming it" \
	bash -c "[ $rc -eq 1 ] && grep -q 'none.json' '$tmp/err'"

# ---- a results document -------------------------------------------------------------------
run lab run example --seed 7 --json "$tmp/doc.json"
check "a run of the example lab writes a document" [ "$rc" -eq 0 ]
check "the document is sealed (integrity, sha256)" \
	[ "$(jq -r '.integrity.algorithm' "$tmp/doc.json")" = sha256 ]
run grade "$tmp/doc.json"
check "grade FILE passes (exit 0)" [ "$rc" -eq 0 ]
check "... with the integrity check" grep -q 'PASS integrity' "$tmp/out"
check "... and a score line" grep -qE '^score: 100% \(3 of 3 points' "$tmp/out"
run grade "$tmp/doc.json" --json
check "--json is rtlab.grade/1 with score_pct and points per check" \
	[ "$(jq -r '"\(.schema) \(.score_pct) \(.checks[0].max_points) \(.checks[0].part)"' "$tmp/out")" = \
	  "rtlab.grade/1 100 1 results" ]
run grade "$tmp/doc.json" --format json
cp "$tmp/out" "$tmp/fmt.json"
run grade "$tmp/doc.json" --json
check "--json is --format json" cmp -s "$tmp/out" "$tmp/fmt.json"

jq '.summary |= with_entries(.value = 0)' "$tmp/doc.json" > "$tmp/edited.json"
run grade "$tmp/edited.json"
check "a hand-edited document fails (exit 1)" [ "$rc" -eq 1 ]
check "... on its checksum" grep -q 'FAIL integrity' "$tmp/out"
check "... and its other checks are not counted" \
	bash -c "! grep -q '^  PASS' '$tmp/out' && grep -q 'not counted' '$tmp/out'"
jq 'del(.integrity)' "$tmp/doc.json" > "$tmp/stripped.json"
run grade "$tmp/stripped.json" --json
check "a document without its checksum fails it too" \
	[ "$(jq -r '.checks[] | select(.id == "integrity") | .status' "$tmp/out")" = fail ]

run grade "$tmp/edited.json" --format tap
prove -e cat "$tmp/out" >"$tmp/prove.out" 2>&1
check "the TAP form is read by prove (no parse errors)" \
	bash -c "! grep -q 'Parse errors' '$tmp/prove.out' && grep -q 'Result: FAIL' '$tmp/prove.out'"
run grade "$tmp/doc.json" --format tap
check "a passing grade's TAP passes prove" bash -c "prove -e cat '$tmp/out' >/dev/null 2>&1"
run grade "$tmp/edited.json" --format junit
check "the JUnit form is well formed (xmllint)" xmllint --noout "$tmp/out"
check "... testsuites/testsuite/testcase with a failure" \
	[ "$(xmllint --xpath 'count(/testsuites/testsuite/testcase/failure)' "$tmp/out")" -ge 1 ]

# ---- an exercise folder --------------------------------------------------------------------
run grade --exercise "$toy" --lint
check "--lint accepts the toy exercise" [ "$rc" -eq 0 ]
mkdir -p "$tmp/badex/checks" && echo '{"schema": "rtlab.exercise/1", "lab": "x", "limitz": 1}' \
	> "$tmp/badex/checks/exercise.json"
run grade --exercise "$tmp/badex" --lint
check "a manifest with an unknown field is refused, naming it" \
	bash -c "[ $rc -eq 1 ] && grep -q 'limitz' '$tmp/err'"
run grade --exercise "$toy" --work "$toy/reference"
check "the reference scores 100 (exit 0)" \
	bash -c "[ $rc -eq 0 ] && grep -q '^score: 100%' '$tmp/out'"
run grade --exercise "$toy" --work "$toy/starter" --json
check "the starter fails with partial credit by points (exit 1)" \
	bash -c "[ $rc -eq 1 ] && jq -e '.score_pct < 100 and .build.ok' '$tmp/out' >/dev/null"
check "each failed check has its hint" \
	[ "$(jq -r '.checks[] | select(.id == "max") | .hint' "$tmp/out")" != null ]
mkdir -p "$tmp/half"
cat > "$tmp/half/sum.c" <<'EOF'
#include "toy.h"
#include <errno.h>
long toy_sum(const long *v, size_t n)
{
	long s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}
int toy_max(const long *v, size_t n, long *out) { (void)v; (void)n; (void)out; return -ENOSYS; }
int toy_lock(void) { return -ENOSYS; }
EOF
run grade --exercise "$toy" --work "$tmp/half" --json
check "a half-done submission earns the points of what works" \
	[ "$(jq -r '[.checks[] | select(.status == "pass") | .id] | join(",")' "$tmp/out")" = \
	  "sum,sum-empty,sum-large" ]

run grade --exercise "$toy" --work "$toy/reference" --build-only "$tmp/built"
check "--build-only builds the subject and the checks" \
	bash -c "[ $rc -eq 0 ] && [ -x '$tmp/built/bin/subject' ] && [ -x '$tmp/built/bin/check' ]"
check "... the subject statically linked (no loader needed)" \
	bash -c "file '$tmp/built/bin/subject' | grep -q 'statically linked'"
check "... the cmocka library beside the check program" [ -f "$tmp/built/bin/libcmocka.so.0" ]
check "... and no source of the learner or the reference in it" \
	bash -c "! find '$tmp/built' -name '*.c' | grep -q ."
run grade --exercise "$tmp/built" --json
check "the prebuilt folder is graded without compiling: 100" \
	[ "$(jq -r '"\(.score_pct) \(.build.log)"' "$tmp/out")" = "100 prebuilt: nothing compiled here" ]
run grade --exercise "$toy" --work "$toy/starter" --build-only "$tmp/built2"
run grade --exercise "$tmp/built2" --json
check "a prebuilt starter scores less" bash -c "jq -e '.score_pct < 100' '$tmp/out' >/dev/null"

# ---- a registered lab with an exercise: the example lab carries the toy exercise ------------
data=$tmp/data
mkdir -p "$data/labs"
ln -s "$SRCDIR/lessons" "$data/lessons"
cp -R "$SRCDIR/labs/common" "$data/labs/common"
cp -R "$toy" "$data/labs/example"
jq '.lab = "example"' "$toy/checks/exercise.json" > "$data/labs/example/checks/exercise.json"
export RTLAB_DATADIR=$data
run lab start example
work=$XDG_STATE_HOME/rtlab/work/example
check "lab start copies the starter to the working copy" \
	bash -c "[ $rc -eq 0 ] && cmp -s '$work/sum.c' '$toy/starter/sum.c'"
check "... and says where the headers the starter includes are (not ../checks)" \
	grep -q "the headers it includes (toy.h) are in $data/labs/example/checks" "$tmp/out"
run lab start latency
check "lab start of a lab without an exercise says so (exit 1)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'no coding exercise' '$tmp/err'"
run grade example
check "grade LAB grades the working copy (the starter: exit 1)" \
	bash -c "[ $rc -eq 1 ] && grep -q '^code: $work' '$tmp/out'"
cp "$toy/reference/sum.c" "$work/sum.c"
run lab run example --seed 3
run grade example --json
check "grade LAB joins the code and the latest results document" \
	[ "$(jq -r '"\(.passed) \(.parts | keys | join(","))"' "$tmp/out")" = "true code,results" ]
echo "// mine" >> "$work/sum.c"
run lab start example
check "lab start again keeps the working copy" grep -q '// mine' "$work/sum.c"
run lab reset example
check "lab reset puts it aside and starts afresh" \
	bash -c "[ $rc -eq 0 ] && cmp -s '$work/sum.c' '$toy/starter/sum.c' && grep -q '// mine' $work.bak-*/sum.c"

# A class: one student handed in the example lab's code and a results document.
mkdir -p "$tmp/class/ann/example" "$tmp/class/bob/example"
cp "$toy/reference/sum.c" "$tmp/class/ann/example/"
cp "$toy/starter/sum.c" "$tmp/class/bob/example/"
cp "$tmp/doc.json" "$tmp/class/ann/example/results.json"
run grade --class "$tmp/class" --lab example --jobs 2 --format csv
check "a class graded by lab gives a gradebook row per student" \
	[ "$(wc -l < "$tmp/out")" -eq 3 ]
check "ann's results.json joined her grade (100)" grep -q '^ann,example,100,' "$tmp/out"
check "bob's starter scores less" bash -c "grep '^bob,example,' '$tmp/out' | grep -qv ',100,'"

# ---- quiz answers as the learner's state ----------------------------------------------------
export RTLAB_DATADIR=$SRCDIR
printf 'c\n' | "$RTLAB" quiz 03 --question which-latency >/dev/null 2>&1
run grade latency --result "$SRCDIR/tests/data/results/latency-host.json" --json
check "grade LAB adds the lesson's quiz as last answered" \
	[ "$(jq -r '.checks[] | select(.id == "quiz-which-latency") | .status' "$tmp/out")" = pass ]
check "... and an unanswered question fails with a hint" \
	[ "$(jq -r '[.checks[] | select(.part == "quiz" and .status == "fail") | .hint != null] | all' "$tmp/out")" = true ]
run grade latency --result "$SRCDIR/tests/data/results/latency-host.json" --no-quiz --json
check "--no-quiz leaves it out" [ "$(jq -r '.parts.quiz' "$tmp/out")" = null ]

tap_done
