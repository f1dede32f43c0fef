#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The lessons from the command line: `rtlab lesson list|show|lint`, `rtlab quiz`
# and `rtlab progress`. Progress lives in a temporary XDG_STATE_HOME; quiz runs
# use a fixture lesson in a temporary data dir, so the shipped lessons can change
# without breaking the answers scripted here. TAP output for prove. Needs RTLAB,
# SRCDIR and jq (make deps installs it).
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; [ $# -gt 1 ] && echo "# $2"; }
check() { # check DESC CONDITION...
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc" "$(head -c 600 "$tmp/err" | tr '\n' ' ')"; fi
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

if ! command -v jq >/dev/null 2>&1; then
	echo "1..0 # SKIP jq not installed (make deps installs it)"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state RTLAB_JOURNAL_DIR=$tmp/journal
unset RTLAB_DATADIR NO_COLOR
progress_file=$XDG_STATE_HOME/rtlab/progress.json

run() { # run ARGS... (stdin from $input, default /dev/null) -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" <"${input:-/dev/null}"
	rc=$?
}
quiz_in() { # quiz_in TEXT ARGS...: run `rtlab ARGS` on the fixture data dir with TEXT as stdin
	local text=$1
	shift
	printf '%s' "$text" >"$tmp/in"
	input=$tmp/in RTLAB_DATADIR=$tmp/data run "$@"
}
pj() { # pj JQ-FILTER: query `rtlab progress --json` of the fixture data dir
	RTLAB_DATADIR=$tmp/data "$RTLAB" progress --json 2>/dev/null </dev/null | jq -r "$1"
}

# ---- lesson list --------------------------------------------------------

run lesson list
check "lesson list exits 0" [ "$rc" -eq 0 ]
nlessons=0
for f in "$SRCDIR"/lessons/[0-9][0-9]-*.md; do
	nlessons=$((nlessons + 1))
	num=$(basename "$f" | cut -c1-2)
	title=$(head -n 1 "$f" | sed 's/^# //')
	check "lesson list shows $num with its title" grep -qE "^$num .*$(printf '%s' "$title" |
		sed 's/[][\.*^$()+?{}|/]/\\&/g')\$" "$tmp/out"
done
# As many as lessons/ holds: the test names no number.
nfiles=$(find "$SRCDIR/lessons" -maxdepth 1 -name '[0-9][0-9]-*.md' | wc -l)
nrows=$(grep -cE '^[0-9]{2} ' "$tmp/out")
check "lesson list has a row per lesson file ($nrows rows, $nfiles files, at least 16)" \
	[ "$nrows" -eq "$nfiles" -a "$nlessons" -eq "$nfiles" -a "$nfiles" -ge 16 ]
check "lesson list shows the glossary" grep -qE '^--  .*Glossary$' "$tmp/out"
check "nothing is read at first" bash -c "! grep -qE '^[0-9]{2}  yes' '$tmp/out'"

run lesson list --json
check "lesson list --json exits 0" [ "$rc" -eq 0 ]
check "lesson list --json has the schema and $nfiles lessons" \
	[ "$(jq -r '.schema + " " + (.lessons | length | tostring)' "$tmp/out")" = "rtlab.lesson-list/1 $nfiles" ]
check "lesson list --json has the glossary and no problems" \
	[ "$(jq -r '[.glossary.title, ([.lessons[].problems[]] | length)] | @tsv' "$tmp/out")" = \
	  "Glossary	0" ]
check "lesson list --json counts the quiz questions of lesson 03" \
	[ "$(jq '.lessons[] | select(.id == "03") | .quiz.questions' "$tmp/out")" -eq \
	  "$(grep -c '^```quiz' "$SRCDIR"/lessons/03-*.md)" ]
check "lesson list --json gives every lesson's predict questions (lab, scenario, metric, unit)" \
	[ "$(jq '[.lessons[] | .predict | length] | add' "$tmp/out")" -eq \
	  "$(cat "$SRCDIR"/lessons/[0-9][0-9]-*.md | grep -c '^kind: predict$')" ]
check "lesson 11's predict question names the latency lab's idle-fifo and its unit" \
	[ "$(jq -r '.lessons[] | select(.id == "11") | .predict[0] | "\(.lab) \(.scenario) \(.metric) \(.unit)"' \
	     "$tmp/out")" = "latency idle-fifo avg_us us" ]
# A predict question names a scenario its lab offers (lessons/FORMAT.md); planned labs have no list yet.
jq -r '.lessons[] | .id as $l | .predict[] | "\($l) \(.id) \(.lab) \(.scenario)"' "$tmp/out" \
	>"$tmp/predicts"
missing=
while read -r lid qid lab scen; do
	"$RTLAB" lab run "$lab" --help >"$tmp/labhelp" 2>/dev/null || continue
	grep -q '^Scenarios' "$tmp/labhelp" || continue
	sed -n '/^Scenarios/,$p' "$tmp/labhelp" | grep -qE "^  $scen( |\$)" ||
		missing="$missing $lid/$qid:$lab/$scen"
done <"$tmp/predicts"
check "every predict question's scenario is one its lab lists (missing:${missing:- none})" \
	[ -z "$missing" ]
check "lesson list --json counts each lesson's prose words within lint's 800-1500" \
	[ "$(jq '[.lessons[] | select(.words < 800 or .words > 1500)] | length' "$tmp/out")" -eq 0 ]

mkdir -p "$tmp/fixtures/lessons"
cp "$SRCDIR"/tests/data/lessons/*.md "$tmp/fixtures/lessons/"
RTLAB_DATADIR=$tmp/fixtures run lesson list
check "lesson list shows broken files with their problem" \
	bash -c "[ $rc -eq 0 ] && grep -q '^    problem: 10-bad-title.md:1: ' '$tmp/out' &&
		 grep -qE '^    5 problems: rtlab lesson lint .*11-bad-quiz.md' '$tmp/out'"
RTLAB_DATADIR=$tmp/fixtures run lesson list --json
check "lesson list --json carries the problems as file:line strings" \
	[ "$(jq -r '.lessons[] | select(.id == "11") | .problems[0]' "$tmp/out" | grep -cE '11-bad-quiz.md:[0-9]+: ')" -eq 1 ]

# ---- lesson show --------------------------------------------------------

src3=$(ls "$SRCDIR"/lessons/03-*.md)
slug3=$(basename "$src3" .md)
slug3=${slug3#03-}
title3=$(head -n 1 "$src3" | sed 's/^# //')

run lesson show 3 --plain --width 60
cp "$tmp/out" "$tmp/show3"
check "lesson show 3 --plain --width 60 exits 0" [ "$rc" -eq 0 ]
width=$(LC_ALL=C.UTF-8 wc -L <"$tmp/show3")
check "no line is wider than 60 columns (widest: $width)" [ "$width" -le 60 ]
check "the title is shown" grep -qxF "$title3" "$tmp/show3"
check "every quiz question is shown" \
	[ "$(grep -c '^Quiz: ' "$tmp/show3")" -eq "$(grep -c '^```quiz' "$src3")" ]
q1=$(sed -n 's/^question: //p' "$src3" | head -n 1 | cut -d' ' -f1-4)
check "the first question's text is there ('$q1')" \
	bash -c "tr '\n' ' ' <'$tmp/show3' | tr -s ' ' | grep -qF '$q1'"
check "options are lettered" grep -qE '^    a\) ' "$tmp/show3"
check "no [x] or [ ] gives the answer away" bash -c "! grep -qF -e '[x]' -e '[ ]' '$tmp/show3'"
leaked=0
while read -r explain; do
	words=$(printf '%s' "$explain" | cut -d' ' -f1-5)
	tr '\n' ' ' <"$tmp/show3" | tr -s ' ' | grep -qF "$words" && leaked=$((leaked + 1))
done < <(sed -n 's/^explain: //p' "$src3")
check "no explanation text is shown" [ "$leaked" -eq 0 ]
check "the references list closes the lesson" grep -qx 'References' "$tmp/show3"

run lesson show 03 --plain --width 60
check "'show 03' is the same as 'show 3'" cmp -s "$tmp/out" "$tmp/show3"
run lesson show "$slug3" --plain --width 60
check "'show $slug3' is the same as 'show 3'" cmp -s "$tmp/out" "$tmp/show3"
run lesson show 3
check "without a tty, show prints no escape sequences" bash -c "! grep -q $'\033' '$tmp/out'"
check "without a tty, show wraps at 80" [ "$(LC_ALL=C.UTF-8 wc -L <"$tmp/out")" -le 80 ]
run lesson show glossary --width 40
check "the glossary can be shown" bash -c "[ $rc -eq 0 ] && grep -qx Glossary '$tmp/out'"
check "showing a lesson does not mark it read" \
	[ "$("$RTLAB" progress --json </dev/null 2>/dev/null | jq '.lessons[] | select(.id == "03") | .read')" = false ]

if command -v script >/dev/null 2>&1; then
	TERM=xterm script -qec "$RTLAB lesson show 1 --width 70" /dev/null >"$tmp/tty" 2>&1 </dev/null
	check "on a tty, show uses bold/underline" grep -q $'\033\[0;1' "$tmp/tty"
	TERM=xterm script -qec "$RTLAB lesson show 1 --plain --width 70" /dev/null >"$tmp/tty" 2>&1 </dev/null
	check "on a tty, --plain uses no escape sequences" bash -c "! grep -q $'\033\\[0;' '$tmp/tty'"
	NO_COLOR=1 TERM=xterm script -qec "$RTLAB lesson show 1 --width 70" /dev/null >"$tmp/tty" 2>&1 </dev/null
	check "on a tty, NO_COLOR means plain" bash -c "! grep -q $'\033\\[0;' '$tmp/tty'"
	TERM=dumb script -qec "$RTLAB lesson show 1 --width 70" /dev/null >"$tmp/tty" 2>&1 </dev/null
	check "on a tty, TERM=dumb means plain" bash -c "! grep -q $'\033\\[0;' '$tmp/tty'"
else
	skip "script(1) not installed: styled tty output not tested"
fi

run lesson show 42
check "show of a missing lesson exits 1" [ "$rc" -eq 1 ]
check "show of a missing lesson says so" grep -q "no lesson '42'" "$tmp/err"
run lesson show no-such-slug
check "show of an unknown slug exits 1" [ "$rc" -eq 1 ]
run lesson show 3 --width 5
check "show --width 5 is a usage error" bash -c "[ $rc -eq 2 ] && grep -q '^usage: rtlab lesson' '$tmp/err'"
run lesson show
check "show without a lesson is a usage error" [ "$rc" -eq 2 ]

# ---- lesson lint --------------------------------------------------------

run lesson lint "$SRCDIR/lessons"
check "lint passes on lessons/" bash -c "[ $rc -eq 0 ] && [ ! -s '$tmp/out' ]"
RTLAB_DATADIR=$SRCDIR run lesson lint
check "lint without arguments checks the installed lessons and passes" [ "$rc" -eq 0 ]
run lesson lint "$SRCDIR/tests/data/lessons"
check "lint fails on the broken fixtures" [ "$rc" -eq 1 ]
check "every lint line is file:line: message" \
	bash -c "[ -s '$tmp/out' ] && ! grep -vqE '^[^:]+\.md:[0-9]+: .+' '$tmp/out'"
check "lint names the bad quiz key with its line" grep -q '11-bad-quiz.md:11: unknown key' "$tmp/out"
check "lint names the bad title" grep -q '10-bad-title.md:1: ' "$tmp/out"
check "lint passes the good fixture" bash -c "! grep -q '01-good.md' '$tmp/out'"
run lesson lint "$SRCDIR/tests/data/lessons/Bad_Name.md"
check "lint of a badly named file fails with file:1" \
	bash -c "[ $rc -eq 1 ] && grep -q 'Bad_Name.md:1: file name' '$tmp/out'"
run lesson lint "$tmp/nonexistent.md"
check "lint of a missing file fails" [ "$rc" -eq 1 ]

# ---- quiz ---------------------------------------------------------------

mkdir -p "$tmp/data/lessons"
cp "$SRCDIR/tests/data/lessons/11-bad-quiz.md" "$tmp/data/lessons/"
cat >"$tmp/data/lessons/01-quiz.md" <<'EOF'
# Quiz fixture

One question of every kind.

```quiz
id: one
kind: single
question: Pick the second.
- [ ] first
- [x] second
- [ ] third
explain: The second option was the right one.
```

```quiz
id: two
kind: multi
question: Pick the odd ones.
- [x] one
- [ ] two
- [x] three
explain: One and three are odd.
```

```quiz
id: three
kind: numeric
question: How many microseconds?
answer: 42
tolerance: 0
unit: us
explain: Forty-two.
```

```quiz
id: four
kind: predict
question: What worst case will the latency lab measure?
lab: latency
metric: max_us
scenario: idle-other
unit: us
explain: Compare it with the measured maximum.
```
EOF
RTLAB_DATADIR=$tmp/data run lesson lint "$tmp/data/lessons/01-quiz.md"
check "the quiz fixture is a well-formed lesson" [ "$rc" -eq 0 ]

quiz_in $'a\na,c\n41\n250\n' quiz 1
check "a scripted quiz exits 0, with wrong answers too" [ "$rc" -eq 0 ]
check "the questions and lettered options are printed" \
	bash -c "grep -q '^Pick the second.' '$tmp/out' && grep -q '^  b) second' '$tmp/out'"
check "the prompt shows the unit" grep -qF 'Your answer (a number, in us):' "$tmp/out"
check "a wrong answer is called wrong, with the right one" \
	grep -q 'Wrong. The right answer is b.' "$tmp/out"
check "a right answer is called right" grep -qx 'Right.' "$tmp/out"
check "explanations are printed after answering" grep -q 'One and three are odd.' "$tmp/out"
check "the prediction is saved, not judged" grep -q '^Saved: 250 us' "$tmp/out"
# A simulated lab's figure is no measurement: the note names the lab's value.
check "... to be shown next to the lab's value, not 'the measured' one" \
	bash -c "tr '\n' ' ' <'$tmp/out' | grep -qF 'The latency lab will show it next to its max_us'"
check "the score line counts right answers and predictions" \
	grep -qx '1/3 right, 1 prediction saved' "$tmp/out"
check "progress: 4 answered, 1 right" \
	[ "$(pj '.lessons[] | select(.id == "01") | "\(.quiz.answered) \(.quiz.right) \(.quiz.questions)"')" = "4 1 4" ]
check "progress: each answer and score is recorded" \
	[ "$(pj '[.lessons[] | select(.id == "01") | .answers[] | "\(.question)=\(.answer):\(.score)"] | join(" ")')" = \
	  "one=a:0 two=a,c:1 three=41:0 four=250:0" ]
check "progress: the prediction has value, unit and lab status" \
	[ "$(pj '.lessons[] | select(.id == "01") | .predictions[0] | "\(.question) \(.value) \(.unit) \(.lab) \(.metric) \(.scenario) \(.status)"')" = \
	  "four 250 us latency max_us idle-other lab not run yet" ]
check "progress: no labs yet" [ "$(pj '.labs | length')" -eq 0 ]
RTLAB_DATADIR=$tmp/data run progress
check "progress text shows the quiz and the prediction" \
	bash -c "grep -q 'quiz: 4 of 4 answered, 1 of 3 right' '$tmp/out' &&
		 grep -q 'prediction four: 250 us (latency lab, idle-other, max_us): lab not run yet' '$tmp/out'"

quiz_in $'z\n\nb\n' quiz 1 --question one
check "invalid input is refused with the reason and asked again" \
	bash -c "[ \$(grep -c '^Not accepted' '$tmp/out') -eq 2 ] &&
		 grep -q \"'z' is not one of a to c\" '$tmp/out' && grep -qx 'Right.' '$tmp/out'"
check "the re-asked answer is recorded once more" \
	[ "$(pj '.lessons[] | select(.id == "01") | .answers[] | select(.question == "one") | "\(.answer) \(.score) \(.attempts)"')" = "b 1 2" ]
quiz_in $'x\ny\n9\n' quiz 1 --question two
check "three bad tries skip the question" \
	bash -c "[ $rc -eq 0 ] && grep -qx 'Skipped.' '$tmp/out' && grep -q '0/1 right, 1 skipped' '$tmp/out'"
check "a skipped question records nothing" \
	[ "$(pj '.lessons[] | select(.id == "01") | .answers[] | select(.question == "two") | .attempts')" -eq 1 ]
quiz_in $'300\n' quiz 1 --question four
check "--question asks only that question, and a new prediction replaces the old" \
	bash -c "[ $rc -eq 0 ] && grep -q 'Question 1 of 1' '$tmp/out' &&
		 [ \"\$(RTLAB_DATADIR='$tmp/data' '$RTLAB' progress --json 2>/dev/null </dev/null |
		      jq '.lessons[0].predictions[0].value')\" = 300 ]"

RTLAB_DATADIR=$tmp/data run progress reset 1
check "reset without a tty and without --yes is refused (exit 2)" \
	bash -c "[ $rc -eq 2 ] && grep -q -- '--yes' '$tmp/err' && grep -q '^usage: rtlab progress' '$tmp/err'"
check "the refused reset changed nothing" [ "$(pj '.lessons[0].quiz.answered')" -eq 4 ]
RTLAB_DATADIR=$tmp/data run progress reset 1 --yes
check "progress reset --yes exits 0" [ "$rc" -eq 0 ]
check "the reset lesson is forgotten" \
	[ "$(pj '.lessons[] | select(.id == "01") | "\(.quiz.answered) \(.answers | length) \(.predictions | length) \(.read)"')" = "0 0 0 false" ]

quiz_in $'b\n' quiz 01
check "EOF mid-quiz stops cleanly with exit 0" \
	bash -c "[ $rc -eq 0 ] && grep -q 'input ended' '$tmp/out' && grep -q '3 not asked' '$tmp/out'"
check "EOF mid-quiz keeps what was answered" \
	[ "$(pj '.lessons[] | select(.id == "01") | "\(.quiz.answered) \(.quiz.right)"')" = "1 1" ]
quiz_in $'b\na,c\n' quiz quiz --json
check "quiz --json (by slug) prints only JSON on stdout" bash -c "jq -e . '$tmp/out' >/dev/null"
check "quiz --json summarises the run" \
	[ "$(jq -r '"\(.schema) \(.complete) \(.summary.answered) \(.summary.right) \(.summary.not_asked) \(.questions[1].answer)"' "$tmp/out")" = \
	  "rtlab.quiz-run/1 false 2 2 2 a,c" ]
check "quiz --json talks on stderr" grep -q 'Question 1 of 4' "$tmp/err"
quiz_in $'b\na c\n42\n100\n' quiz 1 --json
check "a complete run is complete" \
	[ "$(jq -r '"\(.complete) \(.summary.right)/\(.summary.scored) \(.summary.predictions)"' "$tmp/out")" = "true 3/3 1" ]

quiz_in '' quiz 11
check "quiz of a broken lesson exits 1" [ "$rc" -eq 1 ]
check "quiz of a broken lesson prints its lint messages" grep -q '11-bad-quiz.md:11: unknown key' "$tmp/err"
quiz_in '' quiz 7
check "quiz of a missing lesson exits 1" bash -c "[ $rc -eq 1 ] && grep -q \"no lesson '7'\" '$tmp/err'"
quiz_in '' quiz 1 --question nope
check "quiz --question with an unknown id exits 1 and lists the ids" \
	bash -c "[ $rc -eq 1 ] && grep -qx '  three' '$tmp/err'"
quiz_in '' quiz
check "quiz without a lesson is a usage error" [ "$rc" -eq 2 ]

# ---- a corrupt progress file -------------------------------------------

printf '{"schema": "rtlab.progress/1", "lessons": {' >"$progress_file"
RTLAB_DATADIR=$tmp/data run progress --json
check "a corrupt progress.json does not stop progress" bash -c "[ $rc -eq 0 ] && jq -e . '$tmp/out' >/dev/null"
check "the corrupt file is reported with a warning" grep -q 'warning: .*progress.json' "$tmp/err"
check "the corrupt file is moved aside, not lost" \
	bash -c "ls '$XDG_STATE_HOME'/rtlab/progress.json.corrupt-* >/dev/null 2>&1"
printf 'not json' >"$progress_file"
quiz_in $'b\n' quiz 1 --question one
check "quiz still works after a corrupt file" \
	bash -c "[ $rc -eq 0 ] && [ \"\$(RTLAB_DATADIR='$tmp/data' '$RTLAB' progress --json 2>/dev/null </dev/null | jq '.lessons[0].quiz.right')\" = 1 ]"

# ---- help and usage -----------------------------------------------------

for args in "lesson --help" "lesson list --help" "lesson show --help" "lesson lint --help" \
	"quiz --help" "quiz 1 --help" "progress --help" "progress reset --help"; do
	# shellcheck disable=SC2086
	run $args
	check "'$args' exits 0 with a usage line" \
		bash -c "[ $rc -eq 0 ] && grep -q '^usage: rtlab ${args%% *}' '$tmp/out'"
done
for args in "lesson" "lesson frob" "lesson list --bogus" "lesson list extra" "lesson show 3 --json" \
	"lesson list --width 60" "quiz 1 --bogus" "quiz 1 2" "quiz 1 --question" \
	"progress --bogus" "progress frob" "progress reset" "progress reset 1 --json"; do
	# shellcheck disable=SC2086
	run $args
	check "'$args' exits 2 with a usage line" \
		bash -c "[ $rc -eq 2 ] && grep -q '^usage: rtlab ${args%% *}' '$tmp/err'"
done

# ---- valgrind -----------------------------------------------------------

if command -v valgrind >/dev/null 2>&1; then
	printf 'b\na,c\n41\n250\n' >"$tmp/answers"
	for args in "lesson list" "lesson show 3 --plain" "quiz 1" "progress --json"; do
		# shellcheck disable=SC2086
		RTLAB_DATADIR=$([ "${args%% *}" = quiz ] && echo "$tmp/data") \
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
			--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
			"$RTLAB" $args >/dev/null 2>"$tmp/vg" <"$tmp/answers"
		vrc=$?
		if [ "$vrc" -eq 0 ]; then
			ok "valgrind clean: rtlab $args"
		else
			not_ok "valgrind clean: rtlab $args (exit $vrc)" "$(head -c 2000 "$tmp/vg" | tr '\n' ' ')"
		fi
	done
else
	skip "valgrind not installed (make deps installs it)"
fi

echo "1..$n"
exit $((fails > 0))
