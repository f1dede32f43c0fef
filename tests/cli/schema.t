#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# schema.t: the JSON Schemas under doc/schema/ are the ones the code's key
# tables make (`rtlab schema`; else: make schemas), each is a valid draft
# 2020-12 schema, and a standard validator (python3-jsonschema) accepts by
# them the repository's fixtures and the documents rtlab writes now: a
# brief run of every lab, the progress file, and the --json of the other
# commands. Bad fixtures and a misspelt key are refused, so the schemas
# are not merely permissive.
set -u
: "${RTLAB:?}" "${SRCDIR:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"

schemas=$SRCDIR/doc/schema
validate=$SRCDIR/scripts/validate-json
valid() { "$validate" "$schemas" "$@" >"$tmp/err" 2>&1; }
# Documents written below are validated in one run of the validator (it
# takes a second to start): later DESC FILE, then validate_later.
later_desc=() later_file=()
later() { later_desc+=("$1"); later_file+=("$2"); }
validate_later() {
	"$validate" "$schemas" "${later_file[@]}" >"$tmp/validated" 2>&1
	for i in "${!later_file[@]}"; do
		grep -v "^ok ${later_file[$i]}\$" "$tmp/validated" | grep -F " ${later_file[$i]}" >"$tmp/err"
		check "${later_desc[$i]}" grep -qxF "ok ${later_file[$i]}" "$tmp/validated"
	done
}
invalid() { "$validate" --invalid "$schemas" "$@" >"$tmp/err" 2>&1; }

check "python3-jsonschema is installed (make deps)" python3 -c 'import jsonschema'

run schema --list
for name in rtlab.result/2 rtlab.result/1 rtlab.progress/1 rtlab.exercise/1 rtlab.grade/1 \
	rtlab.doctor/1 rtlab.lesson-list/1 rtlab.quiz-run/1 rtlab.progress-report/1 \
	rtlab.trace-explain/1 rtlab.vm-pull/1 rtlab.course/1 rtlab.handin/1; do
	check "rtlab schema --list names $name" grep -q "^$name	" "$tmp/out"
done
check "doc/schema/ is what the key tables make (else: make schemas)" \
	"$SRCDIR/scripts/schemas" "$RTLAB" "$schemas" --check
mkdir "$tmp/doc"
cp -r "$schemas" "$tmp/doc/schema"
cp "$SRCDIR/doc/results.md" "$tmp/doc/"
check "a copy of doc/ is up to date" "$SRCDIR/scripts/schemas" "$RTLAB" "$tmp/doc/schema" --check
sed -i 's/"kernel_release"/"kernel_rel"/' "$tmp/doc/schema/rtlab.result-2.json"
check "a stale schema is caught" \
	bash -c '! "$1" "$2" "$3" --check 2>/dev/null' _ "$SRCDIR/scripts/schemas" "$RTLAB" "$tmp/doc/schema"
"$SRCDIR/scripts/schemas" "$RTLAB" "$tmp/doc/schema" >/dev/null
sed -i 's/| `seed` | string | optional; the run/| `seed` | number | optional; the run/' "$tmp/doc/results.md"
check "a stale key table in doc/results.md is caught" \
	bash -c '! "$1" "$2" "$3" --check 2>/dev/null' _ "$SRCDIR/scripts/schemas" "$RTLAB" "$tmp/doc/schema"
run schema rtlab.nope/1
check "an unknown NAME is a usage error" [ "$rc" -eq 2 ]

# ---- Fixtures ----
fixtures=()
while IFS= read -r f; do
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (isinstance(d, dict) and d.get("schema", "").startswith("rtlab.")))' "$f" 2>/dev/null &&
		fixtures+=("$f")
done < <(find "$SRCDIR/tests/data" -name '*.json' | sort)
check "the fixtures under tests/data are valid (${#fixtures[@]} files)" valid "${fixtures[@]}"
check "the progress corpus's valid files are valid" \
	valid "$SRCDIR"/tests/fuzz/corpus/progress/valid-*.json
bad=()
for f in "$SRCDIR"/tests/fuzz/corpus/progress/bad-*.json; do
	grep -q '"rtlab.progress/1"' "$f" && python3 -m json.tool "$f" >/dev/null 2>&1 && bad+=("$f")
done
check "the progress corpus's bad files are refused (${#bad[@]} files)" invalid "${bad[@]}"
python3 - "$SRCDIR/tests/data/results/latency-host.json" "$tmp/typo.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["sumary"] = d.pop("summary")
json.dump(d, open(sys.argv[2], "w"))
PY
check "a misspelt top-level key is refused" invalid "$tmp/typo.json"

# ---- Documents written now ----
run lab list --json
labs=$(python3 -c 'import json,sys; print(" ".join(l["name"] for l in json.load(open(sys.argv[1]))["labs"]))' "$tmp/out")
check "the labs are listed" [ -n "$labs" ]
for lab in $labs; do
	# Brief runs; a lab not named here runs with its defaults.
	case $lab in
	latency) args="--duration 1s" ;;
	ftrace) args="--mode events --duration 1s --no-cross-check" ;;
	fcse) args="--ticks 40" ;;
	cookie) args="--duration 100ms" ;;
	taskset) args="--scenario ll-above,lock-inherit --duration 100ms" ;;
	*) args= ;;
	esac
	if [ "$lab" = taskset ] && [ "$(id -u)" -ne 0 ]; then
		skip "lab run taskset: needs SCHED_FIFO (root)"
		skip "(the same)"
		continue
	fi
	# shellcheck disable=SC2086
	run lab run "$lab" --seed 7 $args --json "$tmp/$lab.json"
	check "lab run $lab $args: exit 0" [ "$rc" -eq 0 ]
	later "lab run $lab: its document is valid" "$tmp/$lab.json"
done
cp "$XDG_STATE_HOME/rtlab/progress.json" "$tmp/progress-file.json"
later "the progress file the runs wrote is valid" "$tmp/progress-file.json"

# ---- The other commands' --json ----
export RTLAB_DATADIR=$SRCDIR
json() { # json DESC NAME ARGS...: rtlab ARGS > $tmp/NAME.json, validated later
	local desc=$1 name=$2
	shift 2
	"$RTLAB" "$@" >"$tmp/$name.json" 2>/dev/null </dev/null
	later "$desc" "$tmp/$name.json"
}
json "rtlab doctor --json is valid" doctor doctor --json
json "rtlab lesson list --json is valid" lessons lesson list --json
printf 'c\n' | "$RTLAB" quiz 01 --json >"$tmp/quiz.json" 2>/dev/null
later "rtlab quiz 01 --json is valid" "$tmp/quiz.json"
json "rtlab progress --json (after a quiz) is valid" progress progress --json
json "rtlab trace explain TRACE --json is valid" explain \
	trace explain "$SRCDIR/tests/data/traces/wakeup.txt" --json
json "rtlab trace explain RESULTS --json is valid" explain2 \
	trace explain "$SRCDIR/tests/data/results/ftrace-tracer.json" --json
json "rtlab vm pull --json (no state disk) is valid" pull vm pull --json
json "rtlab grade FILE --format json is valid" grade grade "$tmp/example.json" --format json
json "rtlab grade LAB --format json is valid" grade2 grade example --format json
toy=$SRCDIR/tests/data/exercise/toy
mkdir -p "$tmp/class/ann" "$tmp/class/bob" "$tmp/class/dee"
cp "$toy/reference/sum.c" "$tmp/class/ann/"
cp "$toy/starter/sum.c" "$tmp/class/bob/"
json "rtlab grade --class DIR --format json is valid" class \
	grade --class "$tmp/class" --exercise "$toy" --format json
(
	cd "$tmp" || exit 1
	"$RTLAB" lab start nop >/dev/null 2>&1 &&
		"$RTLAB" handin nop --out "$tmp/handin.tar" >/dev/null 2>&1 &&
		mkdir "$tmp/handin" && tar xf "$tmp/handin.tar" -C "$tmp/handin"
)
later "rtlab handin's manifest is valid" "$tmp/handin/rtlab-handin.json"
cat >"$tmp/course.json" <<'JSON'
{ "schema": "rtlab.course/1", "title": "RT 101", "teacher": "T", "term": "autumn",
  "labs": [ { "lab": "nop", "weight": 2, "due": "2026-11-30" }, { "lab": "latency" } ] }
JSON
later "a course file as doc/grading.md shows it is valid" "$tmp/course.json"
validate_later
sed 's/"2026-11-30"/"30.11.2026"/' "$tmp/course.json" >"$tmp/bad-course.json"
check "a course file with a date of another form is refused" invalid "$tmp/bad-course.json"
check "every labs/*/checks/exercise.json is valid" valid "$SRCDIR"/labs/*/checks/exercise.json

tap_done
