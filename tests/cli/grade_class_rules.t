#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Class mode's rules about what it opens and how a job ends:
#   - a student folder that is itself a link (a teacher's collection) is
#     followed and graded; a link inside a student's folder never is:
#     <student>/<lab> or results.json pointing out is reported, and the
#     target's content appears nowhere;
#   - a job killed from outside (SIGKILL, as the OOM killer does) is run
#     again once, the grade says so, and no folder of it is left; nor of a
#     compile of the grader's own, whose error says how it ended;
#   - the folders of a grader killed earlier are removed at the next start;
#   - timing checks that run past their turn under the class's timing lock
#     give it up and run again without it, with a note.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR

toy=$SRCDIR/tests/data/exercise/toy
mkdir -p "$tmp/t" "$tmp/elsewhere/bob" "$tmp/class/alice/toy" "$tmp/class/carol/toy" \
	"$tmp/outside"
export TMPDIR=$tmp/t
cp "$toy/reference/sum.c" "$tmp/elsewhere/bob/"
ln -s "$tmp/elsewhere/bob" "$tmp/class/bob"
echo "SECRETWORD and more" >"$tmp/outside/secret"
cp "$toy/reference/sum.c" "$tmp/class/alice/toy/"
ln -s "$tmp/outside/secret" "$tmp/class/alice/toy/results.json"
ln -s "$tmp/outside" "$tmp/class/carol/toy/toy"
chmod -R a+rX "$tmp"

run grade --class "$tmp/class" --exercise "$toy" --json --jobs 2
check "the class is graded (exit $rc)" [ "$rc" -eq 0 ]
check "a linked student folder is followed and graded" \
	jq -e '.grades[] | select(.student == "bob") | .score_pct == 100' "$tmp/out"
check "a results.json linking out is reported, not followed" \
	jq -e '.grades[] | select(.student == "alice") | .checks[] |
		select(.id == "results") | .reason | test("symbolic link: not followed")' "$tmp/out"
check "the link's target appears nowhere" bash -c "! grep -q SECRETWORD '$tmp/out' '$tmp/err'"

# A job killed from outside: SIGKILL to the job process while it grades.
mkdir -p "$tmp/one/dave"
cp "$toy/reference/sum.c" "$tmp/one/dave/"
"$RTLAB" grade --class "$tmp/one" --exercise "$toy" --json --jobs 1 >"$tmp/out" 2>"$tmp/err" &
grader=$!
# The job, not a compile of the grader's own: its folder exists before it is
# forked and after the grader's compiles end. Stopped first, so it cannot
# finish between the look (a child of its own: it is grading) and the kill.
job=
for _ in $(seq 1 1200); do	# a bound against a hang only (60 s)
	job=
	if compgen -G "$tmp/t/rtlab-class.$grader.*/job-0.tmp" >/dev/null; then
		job=$(pgrep -P "$grader" -x rtlab | head -n 1)
	fi
	if [ -n "$job" ] && kill -STOP "$job" 2>/dev/null; then
		if [ -n "$(pgrep -P "$job")" ] &&
			! compgen -G "$tmp/t/rtlab-class.$grader.*/job-0.json" >/dev/null; then
			kill -KILL "$job"
			kill -CONT "$job"
			break
		fi
		kill -CONT "$job"
	fi
	job=
	sleep 0.05
done
wait "$grader"
check "the job was caught while it graded" [ -n "$job" ]
check "a job killed from outside is graded again: 100 %" \
	jq -e '.grades[0].score_pct == 100' "$tmp/out"
check "and the grade says it was run again" \
	jq -e '.grades[0].notes | any(test("killed by signal 9 .* run again"))' "$tmp/out"
check "nothing of it is left in TMPDIR" bash -c "[ -z \"\$(ls -A '$tmp/t')\" ]"

# The grader's own compile killed from outside (a compiler that writes its
# temporary file, as gcc does, then waits): the error says how it ended, and
# its temporary file was in the grader's folder, removed with it.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/cc" <<'SH'
#!/bin/sh
mktemp "${TMPDIR:-/tmp}/ccXXXXXX.s" >/dev/null
exec sleep 60
SH
chmod 0755 "$tmp/bin/cc"
PATH=$tmp/bin:$PATH "$RTLAB" grade --class "$tmp/one" --exercise "$toy" --json --jobs 1 \
	>"$tmp/out" 2>"$tmp/err" &
grader=$!
compile=
for _ in $(seq 1 600); do	# a bound against a hang only (30 s)
	compile=$(pgrep -P "$grader" -x sleep | head -n 1)
	[ -n "$compile" ] && compgen -G "$tmp/t/rtlab-class.$grader.*/cc*.s" >/dev/null && break
	compile=
	sleep 0.05
done
[ -n "$compile" ] && kill -KILL "$compile"
wait "$grader"
rc=$?
check "a killed compile of the grader's: it fails (exit $rc)" [ "$rc" -ne 0 ]
check "and says the compiler was killed" grep -q "the compiler was killed by signal 9" "$tmp/err"
check "its temporary file is not left in TMPDIR" bash -c "[ -z \"\$(ls -A '$tmp/t')\" ]"

# Folders of graders that were killed: removed at the next start (only the dead's).
mkdir -p "$tmp/t/rtlab-grade.999999999.AbCdEf/job" "$tmp/t/rtlab-class.$$.AbCdEf"
run grade --exercise "$toy" --work "$tmp/one/dave"
check "a dead grader's box is removed at the next start" [ ! -e "$tmp/t/rtlab-grade.999999999.AbCdEf" ]
check "a live grader's folder is not" [ -d "$tmp/t/rtlab-class.$$.AbCdEf" ]
rmdir "$tmp/t/rtlab-class.$$.AbCdEf"

# Code that hangs only in the timing check (large inputs): its turn under the lock ends.
mkdir -p "$tmp/slow/erin"
python3 - "$toy/reference/sum.c" "$tmp/slow/erin/sum.c" <<'PY'
import sys
src = open(sys.argv[1]).read()
# Asleep, not spinning: the CPU limit never ends it first, the turn (7 s) always comes first.
src = src.replace("#include \"toy.h\"\n", "#include \"toy.h\"\n#include <unistd.h>\n", 1)
src = src.replace("\tlong s = 0;\n", "\tlong s = 0;\n\n\twhile (n > 100000)\n\t\tsleep(1);\n", 1)
open(sys.argv[2], "w").write(src)
PY
run grade --class "$tmp/slow" --exercise "$toy" --json --jobs 1
check "timing checks past their turn: the grade notes they ran again without the lock" \
	jq -e '.grades[0].notes | any(test("ran past their .* turn"))' "$tmp/out"
check "and the hanging check still fails" \
	jq -e '.grades[0].checks[] | select(.id == "sum-large") | .status == "fail"' "$tmp/out"

tap_done
