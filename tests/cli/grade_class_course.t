#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Running a class over a course (issue 32, sections 1 and 2):
#   - --student NAME re-grades one student and rewrites every file of OUT,
#     the other students' rows kept from OUT's grades.json;
#   - OUT/<student>/feedback.txt and feedback.html: each check, points,
#     reason, hint, what was missing; HTML escaped; nothing of another's;
#   - a lab a student has not handed in is "not handed in" (blank, out of
#     the average, exit 0), with --lab and without;
#   - a misplaced source is said once (code 0), an empty folder is
#     "nothing handed in";
#   - identical results documents and near-identical code are hints in the
#     summary and grades.json, the unchanged starter is not;
#   - gradebook-lms.csv: one row per student, a column per lab and the
#     course total, blank where nothing was handed in, formula-safe, UTF-8
#     (--bom), weighed by --course FILE; read back by Python's csv module,
#     and by LibreOffice where it is installed.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
for t in python3 jq; do
	if ! command -v "$t" >/dev/null; then
		echo "1..0 # SKIP $t is not installed"
		exit 0
	fi
done
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR
export LC_ALL=C.UTF-8

toy=$SRCDIR/tests/data/exercise/toy
c=$tmp/class
o=$tmp/graded
mkdir -p "$c/ann" "$c/bob" "$c/cy/src" "$c/dee" "$c/eve" "$c/<b>fay&co"
cp "$toy/reference/sum.c" "$c/ann/"
cp "$toy/starter/sum.c" "$c/bob/"
cp "$toy/reference/sum.c" "$c/cy/src/"
# eve: ann's code with other names, other spacing and a comment
sed -e 's/\bs\b/total/g' -e 's/^\t/    /' -e '1i /* my own work */' \
	"$toy/reference/sum.c" >"$c/eve/sum.c"
cp "$toy/starter/sum.c" "$c/<b>fay&co/"

run grade --class "$c" --exercise "$toy" --out "$o" --jobs 2
check "the class is graded: exit 0 although dee handed in nothing ($rc)" [ "$rc" -eq 0 ]
jq . "$o/grades.json" >"$tmp/first.json"
g() { jq -r --arg s "$1" ".grades[] | select(.student == \$s) | $2" "$o/grades.json"; }
check "dee's empty folder: not handed in, no score, no error" \
	[ "$(g dee '[.handed_in, .score_pct, .error] | @json')" = '[false,null,null]' ]
check "and the note says nothing was handed in" \
	[ "$(g dee '.notes | any(test("nothing handed in: dee/ is empty"))')" = true ]
check "cy's misplaced source: one failed check, said once, code 0" \
	[ "$(g cy '[(.checks | length), .checks[0].id, .score_pct] | @json')" = '[1,"sources",0]' ]
check "its reason names what is where" \
	[ "$(g cy '.checks[0].reason')" = "expected sum.c in cy/: not found (found: src/sum.c)" ]
check "no compiler error for cy" [ "$(g cy '.build')" = null ]
check "near-identical code is a hint: ann and eve" \
	jq -e '.hints | any(.kind == "code" and .students == ["ann", "eve"])' "$o/grades.json"
check "the unchanged starter (bob, fay) is no hint" \
	jq -e '[.hints[] | .students[]] | index("bob") == null' "$o/grades.json"
check "the summary says so, as a hint" \
	grep -q '^hint: toy ann, eve: near-identical code.*not a verdict' "$o/summary.txt"

# Feedback
check "feedback files for each student" \
	bash -c "for s in ann bob cy dee eve '<b>fay&co'; do [ -s '$o/'\"\$s\"/feedback.txt ] && [ -s '$o/'\"\$s\"/feedback.html ] || exit 1; done"
check "bob's feedback: each check with points, reason and hint" \
	bash -c "grep -q 'FAIL sum .* 0/3' '$o/bob/feedback.txt' && grep -q 'hint: add every element once' '$o/bob/feedback.txt'"
check "nothing of another student's in bob's feedback" \
	bash -c "[ -s '$o/bob/feedback.html' ] && ! grep -E -q '\\b(ann|eve|cy|dee|fay)\\b|$tmp' '$o/bob/feedback.txt' '$o/bob/feedback.html'"
check "cy's feedback says what was missing" grep -q 'expected sum.c in cy/' "$o/cy/feedback.txt"
check "the HTML escapes a student's name" \
	bash -c "grep -q '&lt;b&gt;fay&amp;co' '$o/<b>fay&co/feedback.html' &&  ! grep -q '<b>fay' '$o/<b>fay&co/feedback.html'"
check "the HTML is well formed" python3 - "$o/bob/feedback.html" <<'PY'
import sys, html.parser
class P(html.parser.HTMLParser):
    pass
P().feed(open(sys.argv[1], encoding="utf-8").read())
PY

# Re-grade one student: ann hands in the starter now.
cp "$toy/starter/sum.c" "$c/ann/sum.c"
for f in gradebook.csv gradebook-lms.csv junit.xml grades.tap summary.txt grades.json; do
	cp "$o/$f" "$tmp/before-$f"
done
touch -d '2000-01-01' "$o/eve/feedback.txt"
run grade --class "$c" --exercise "$toy" --out "$o" --student ann
check "--student ann: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "ann's grade is new" [ "$(g ann .score_pct)" = 0 ]
check "the other students' grades are kept as they were" \
	bash -c "diff <(jq -S '[.grades[] | select(.student != \"ann\")]' '$tmp/first.json') <(jq -S '[.grades[] | select(.student != \"ann\")]' '$o/grades.json')"
check "in their order" \
	[ "$(jq -c '[.grades[].student]' "$o/grades.json")" = "$(jq -c '[.grades[].student]' "$tmp/first.json")" ]
for f in gradebook.csv gradebook-lms.csv junit.xml grades.tap summary.txt; do
	check "$f is rewritten with ann's new grade" bash -c "! cmp -s '$tmp/before-$f' '$o/$f'"
done
check "the gradebook keeps eve's row" grep -q '^eve,toy,100,' "$o/gradebook.csv"
check "the hint about ann went with her old code" \
	jq -e '.hints | all(.students | index("ann") == null)' "$o/grades.json"
check "other students' feedback is not rewritten" \
	[ "$(stat -c %Y "$o/eve/feedback.txt")" = "$(date -d 2000-01-01 +%s)" ]
check "no temporary file left in OUT" bash -c "[ -z \"\$(find '$o' -name '*.tmp*' -o -name '.*' -type f)\" ]"
run grade --class "$c" --exercise "$toy" --out "$o" --student nobody
check "--student of no folder: exit 1, said" \
	bash -c "[ $rc -eq 1 ] && grep -q \"no student folder called 'nobody'\" '$tmp/err'"

# Identical results documents
mkdir -p "$tmp/r/gus" "$tmp/r/hal"
cp "$toy/reference/sum.c" "$tmp/r/gus/"
cp "$toy/starter/sum.c" "$tmp/r/hal/"
echo '{"not": "a results document"}' >"$tmp/r/gus/results.json"
cp "$tmp/r/gus/results.json" "$tmp/r/hal/"
run grade --class "$tmp/r" --exercise "$toy" --json
check "the same results document handed in twice: a results hint" \
	jq -e '.hints | any(.kind == "results" and .students == ["gus", "hal"])' "$tmp/out"

# A real lab with weights: --lab, and every lab without it.
mkdir -p "$tmp/labs/ann/nop" "$tmp/labs/ben"
cp "$SRCDIR/labs/nop/reference/nop_monitor.c" "$tmp/labs/ann/nop/"
run grade --class "$tmp/labs" --lab nop --json
check "--lab nop: ben without it is not handed in, exit 0 ($rc)" \
	bash -c "[ $rc -eq 0 ] && jq -e '.grades[] | select(.student == \"ben\") | .handed_in == false and .error == null' '$tmp/out'"
run grade --class "$tmp/labs" --json --jobs 2
nlabs=$(jq '[.grades[] | select(.student == "ann")] | length' "$tmp/out")
check "no --lab: every lab with an exercise, $nlabs rows for ann; exit 0 ($rc)" \
	bash -c "[ $rc -eq 0 ] && [ $nlabs -gt 1 ]"
check "ann's labs other than nop are not handed in, not errors" \
	jq -e '[.grades[] | select(.student == "ann" and .lab != "nop")] |
		all(.handed_in == false and .error == null and .score_pct == null)' "$tmp/out"

# A class of hand-in files (`rtlab handin`): --student re-grades one of them.
run lab start nop
cp "$SRCDIR/labs/nop/reference/nop_monitor.c" "$XDG_STATE_HOME/rtlab/work/nop/"
mkdir -p "$tmp/tars"
run handin nop --out "$tmp/tars/kai.tar"
cp "$SRCDIR/labs/nop/starter/nop_monitor.c" "$XDG_STATE_HOME/rtlab/work/nop/"
run handin nop --out "$tmp/tars/lea.tar"
run grade --class "$tmp/tars" --lab nop --out "$tmp/tgraded"
check "hand-in files graded: exit 0 ($rc)" [ "$rc" -eq 0 ]
kai=$(jq '.grades[] | select(.student == "kai") | .score_pct' "$tmp/tgraded/grades.json")
run handin nop --out "$tmp/tars/kai.tar" --force
run grade --class "$tmp/tars" --lab nop --out "$tmp/tgraded" --student kai
check "kai's new hand-in re-graded alone, lea's row kept" \
	bash -c "[ $rc -eq 0 ] && [ \"\$(jq '.grades[] | select(.student == \"kai\") | .score_pct' '$tmp/tgraded/grades.json')\" != '$kai' ] &&
		 [ \"\$(jq '[.grades[].student] | @json' '$tmp/tgraded/grades.json')\" = '\"[\\\"kai\\\",\\\"lea\\\"]\"' ] &&
		 [ -s '$tmp/tgraded/kai/feedback.html' ] && [ -s '$tmp/tgraded/lea/feedback.txt' ]"

# The LMS gradebook
l=$tmp/lms
mkdir -p "$l/class/Zoë Jansen_4242_assignsubmission_file" "$l/class/=1+1" "$l/class/ivy"
cp "$toy/reference/sum.c" "$l/class/Zoë Jansen_4242_assignsubmission_file/"
cp "$toy/reference/sum.c" "$l/class/=1+1/"
run grade --class "$l/class" --exercise "$toy" --out "$l/out" --bom
check "the LMS gradebook starts with UTF-8's byte-order mark" \
	[ "$(head -c 3 "$l/out/gradebook-lms.csv" | od -An -tx1 | tr -d ' ')" = efbbbf ]
check "Python's csv module reads the names back as text, blank where not handed in" \
	python3 - "$l/out/gradebook-lms.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8-sig", newline="")))
assert rows[0] == ["student", "toy", "course_total"], rows[0]
names = {r[0]: r for r in rows[1:]}
assert "Zoë Jansen_4242_assignsubmission_file" in names, names
assert "'=1+1" in names, names          # formula-safe: a leading "'"
assert names["'=1+1"][1] == "100", names
assert names["ivy"][1:] == ["", ""], names   # blank, not 0
PY
run grade --class "$l/class" --exercise "$toy" --out "$l/out2"
check "without --bom, no mark" [ "$(head -c 7 "$l/out2/gradebook-lms.csv")" = student ]
if command -v libreoffice >/dev/null || command -v soffice >/dev/null; then
	lo=$(command -v libreoffice || command -v soffice)
	mkdir -p "$l/lo1" "$l/lo2"
	"$lo" --headless --infilter=CSV:44,34,76 --convert-to ods --outdir "$l/lo1" \
		"$l/out/gradebook-lms.csv" >/dev/null 2>&1
	"$lo" --headless --convert-to csv:"Text - txt - csv (StarCalc)":44,34,76 --outdir "$l/lo2" \
		"$l/lo1/gradebook-lms.ods" >/dev/null 2>&1
	check "after LibreOffice's round trip the names are still text" python3 - \
		"$l/lo2/gradebook-lms.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8-sig", newline="")))
names = [r[0] for r in rows[1:]]
assert "Zoë Jansen_4242_assignsubmission_file" in names, names
assert any(n.endswith("=1+1") for n in names) and "2" not in names, names
PY
else
	skip "LibreOffice round trip: libreoffice-calc-nogui is not installed here"
fi

# --course: weights and due dates
mkdir -p "$l/c2/kim/toy"
cat >"$l/course.json" <<'JSON'
{ "schema": "rtlab.course/1", "title": "RT 2026",
  "labs": [ { "lab": "toy", "weight": 3, "due": "2000-01-01" },
            { "lab": "nop", "weight": 1, "due": "2000-01-01" },
            { "lab": "later", "weight": 5, "due": "2999-12-31" } ] }
JSON
cp "$toy/reference/sum.c" "$l/c2/kim/toy/"
run grade --class "$l/c2" --exercise "$toy" --out "$l/out3" --course "$l/course.json"
check "--course: the course's labs are the columns" \
	[ "$(head -n 1 "$l/out3/gradebook-lms.csv" | tr -d '\r')" = "student,toy,nop,later,course_total" ]
check "toy 100 weighs 3; nop, past due and not graded, is blank and out; later not due" \
	[ "$(sed -n 2p "$l/out3/gradebook-lms.csv" | tr -d '\r')" = "kim,100,,,100.0" ]
echo '{"schema": "rtlab.course/1", "labs": [{"lab": "toy", "weight": -1}]}' >"$l/bad.json"
run grade --class "$l/c2" --exercise "$toy" --out "$l/out4" --course "$l/bad.json"
check "a bad course file: exit 2, said" bash -c "[ $rc -eq 2 ] && grep -q 'weight' '$tmp/err'"
run grade --class "$l/c2" --exercise "$toy" --course "$l/course.json"
check "--course without --out: exit 2" [ "$rc" -eq 2 ]

tap_done
