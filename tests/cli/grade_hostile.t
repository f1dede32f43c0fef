#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# grade_hostile.t: submissions that attack the grader. A class of them is
# graded in parallel (--class, 2 jobs) against the toy exercise with tight
# limits: an infinite loop, a fork bomb, 10 GB of output, a segfault,
# including and reading the reference solution, deleting files outside its
# folder, sleeping past the timeout, changing the checks, _exit(0), printing
# "ok", killing every process it can. Each must fail its checks with a
# reason while the grader finishes (bounded by `timeout`, never by a
# wall-clock assertion) and a correct student graded next to them scores
# full marks. Then the same for a few of them as user nobody (the
# user-namespace sandbox). JUnit output goes through xmllint, TAP through
# prove.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR

toy=$SRCDIR/tests/data/exercise/toy
ex=$tmp/ex
class=$tmp/class
chmod 0755 "$tmp"

# The toy exercise with tight limits, so that each hostile run ends fast.
mkdir -p "$ex" "$class"
cp -R "$toy/checks" "$toy/reference" "$toy/starter" "$ex/"
jq '.limits = {"wall_s": 3, "cpu_s": 1, "mem_mb": 128, "fsize_mb": 1, "nproc": 8,
	"output_kb": 64}' "$toy/checks/exercise.json" > "$ex/checks/exercise.json"
chmod -R a+rX "$ex"
sum_before=$(cd "$ex" && find checks reference -type f -exec sha256sum {} + | sort | sha256sum)

canary=$tmp/canary-dir/canary
mkdir -p "$tmp/canary-dir" && echo alive > "$canary"
chmod 0777 "$tmp/canary-dir" && chmod 0666 "$canary"

# student NAME BODY: the reference sum.c with toy_sum()'s body replaced by BODY.
student() {
	mkdir -p "$class/$1"
	python3 - "$toy/reference/sum.c" "$class/$1/sum.c" "$2" <<'EOF'
import re, sys
src, out, body = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(src).read()
head = "#include <fcntl.h>\n#include <signal.h>\n#include <stdio.h>\n#include <stdlib.h>\n" \
       "#include <string.h>\n#include <unistd.h>\n"
text = re.sub(r"(long toy_sum\(const long \*v, size_t n\)\n\{\n).*?(\n\}\n)",
              lambda m: m.group(1) + "\t(void)v; (void)n;\n" + body + m.group(2), text,
              count=1, flags=re.S)
open(out, "w").write(head + text)
EOF
}

mkdir -p "$class/01-good" && cp "$toy/reference/sum.c" "$class/01-good/"
student 00-forkbomb '	for (;;) fork();'
student 02-loop '	for (volatile long i = 0;; i++) ;'
student 03-flood '	static char buf[1 << 20]; memset(buf, 0x41, sizeof(buf));
	for (long i = 0; i < 10240; i++) fwrite(buf, 1, sizeof(buf), stdout);
	return 0;'
student 04-segv '	return *(volatile long *)0;'
student 05-read-ref "	FILE *f = fopen(\"$ex/reference/sum.c\", \"r\");
	if (!f) f = fopen(\"../reference/sum.c\", \"r\");
	if (!f) return -1;
	fclose(f);
	long s = 0; for (size_t i = 0; i < n; i++) s += v[i]; return s;"
student 06-delete "	unlink(\"$canary\");
	unlink(\"$ex/checks/exercise.json\");
	unlink(\"subject\"); unlink(\"/job/subject\");
	system(\"rm -rf /job /tmp/* 2>/dev/null\");
	return -1;"
student 07-sleep '	sleep(100); return 0;'
student 08-checks "	FILE *f = fopen(\"$ex/checks/check_toy.c\", \"w\");
	if (f) { fputs(\"broken\", f); fclose(f); }
	f = fopen(\"subject.c\", \"w\");
	if (f) { fputs(\"broken\", f); fclose(f); }
	return -2;"
# A learner's copies of the trusted files: the manifest takes only sources, checks/ wins.
printf 'int main(void) { puts("sum 48"); return 0; }\n' > "$class/08-checks/subject.c"
printf '#define toy_sum(v, n) 48L\n' > "$class/08-checks/toy.h"
printf '{"schema": "rtlab.exercise/1"}\n' > "$class/08-checks/exercise.json"
student 09-exit0 '	_exit(0);'
student 10-print-ok '	printf("ok 1 - sum\nok 2 - sum-empty\nok 3 - max\n# rtlab-reason: fine\n");
	fflush(stdout); _exit(0);'
student 11-kill-all '	kill(-1, SIGKILL); kill(0, SIGKILL); return 0;'
mkdir -p "$class/12-include-ref"
printf '#include "../reference/sum.c"\n' > "$class/12-include-ref/sum.c"
chmod -R a+rX "$class"

# The grader must finish: `timeout` turns a hang into a failure without timing anything.
timeout 900 "$RTLAB" grade --class "$class" --exercise "$ex" --jobs 2 --out "$tmp/out-class" \
	--format json >"$tmp/out" 2>"$tmp/err" </dev/null
rc_class=$?
check "the class is graded, every job (exit 0)" [ "$rc_class" -eq 0 ]
cp "$tmp/out" "$tmp/class.json"

status() { # status STUDENT CHECK -> pass/fail/skip
	jq -r --arg s "$1" --arg c "$2" \
		'.grades[] | select(.student == $s) | .checks[] | select(.id == $c) | .status' \
		"$tmp/class.json"
}
reason() {
	jq -r --arg s "$1" --arg c "$2" \
		'.grades[] | select(.student == $s) | .checks[] | select(.id == $c) | .reason' \
		"$tmp/class.json"
}
score() { jq -r --arg s "$1" '.grades[] | select(.student == $s) | .score_pct' "$tmp/class.json"; }

check "13 grades, one per student" [ "$(jq '.grades | length' "$tmp/class.json")" -eq 13 ]
check "the correct student, graded next to the fork bomb, scores 100" [ "$(score 01-good)" = 100 ]
for s in 00-forkbomb 02-loop 03-flood 04-segv 05-read-ref 06-delete 07-sleep 08-checks \
	09-exit0 10-print-ok 11-kill-all 12-include-ref; do
	check "$s: sum fails" [ "$(status "$s" sum)" = fail ]
	check "$s: scores below 100" [ "$(score "$s")" != 100 ]
done
for s in 00-forkbomb 02-loop 03-flood 04-segv 05-read-ref 06-delete 07-sleep 08-checks \
	09-exit0 10-print-ok 11-kill-all; do
	check "$s: the untouched function (max) still passes" [ "$(status "$s" max)" = pass ]
done
check "fork bomb: ended by a limit, with the reason" \
	grep -qE 'timed out|CPU time' <<<"$(reason 00-forkbomb sum)"
check "loop: ended by the CPU or wall-clock limit" \
	grep -qE 'timed out|CPU time' <<<"$(reason 02-loop sum)"
check "loop: once two runs ran out of time, the next is shortened and says why" \
	grep -qE 'shortened from 3 s, as this code had already run out of time [0-9]+ times' \
	<<<"$(reason 02-loop sum-large)"
check "flood: cut at the output cap" grep -q 'more than 64 KiB to stdout' <<<"$(reason 03-flood sum)"
check "segfault: says SIGSEGV" grep -q 'SIGSEGV' <<<"$(reason 04-segv sum)"
check "sleep: timed out" grep -q 'timed out after 3 s' <<<"$(reason 07-sleep sum)"
check "_exit(0): no answer is a wrong answer" grep -q 'printed ""' <<<"$(reason 09-exit0 sum)"
check "including ../reference does not compile" \
	grep -q 'does not compile' <<<"$(reason 12-include-ref sum)"
check "... and the reason quotes the compiler" grep -q 'No such file' <<<"$(reason 12-include-ref sum)"
check "the canary outside the submission's folder survives" [ "$(cat "$canary")" = alive ]
check "the exercise's checks and reference are unchanged" \
	[ "$(cd "$ex" && find checks reference -type f -exec sha256sum {} + | sort | sha256sum)" = "$sum_before" ]
check "the learner's own subject.c, toy.h, manifest are ignored" \
	[ "$(status 08-checks sum-empty)" = fail ]

check "--out wrote the gradebook, JUnit, TAP, JSON and summary" \
	bash -c "cd '$tmp/out-class' && ls gradebook.csv junit.xml grades.tap grades.json summary.txt >/dev/null"
check "the gradebook has a header and 13 rows" [ "$(wc -l < "$tmp/out-class/gradebook.csv")" -eq 14 ]
check "the JUnit XML is well formed (xmllint)" xmllint --noout "$tmp/out-class/junit.xml"
check "with the testsuite/testcase structure" \
	[ "$(xmllint --xpath 'count(/testsuites/testsuite/testcase)' "$tmp/out-class/junit.xml")" -eq 78 ]
prove -e cat "$tmp/out-class/grades.tap" >"$tmp/prove.out" 2>&1
check "prove reads the TAP without parse errors" \
	bash -c "! grep -q 'Parse errors' '$tmp/prove.out' && grep -q 'Tests=78' '$tmp/prove.out'"
check "prove counts the failures" grep -q 'Result: FAIL' "$tmp/prove.out"

# ---- the same attacks as nobody: the user-namespace sandbox ------------------------------
if can_switch; then
	install -m 0755 "$RTLAB" "$tmp/rtlab-copy"
	small=$tmp/small
	mkdir -p "$small"
	cp -R "$class/01-good" "$class/00-forkbomb" "$class/05-read-ref" "$class/06-delete" \
		"$class/11-kill-all" "$small/"
	chmod -R a+rX "$small"
	echo alive > "$canary"
	as_nobody timeout 900 "$tmp/rtlab-copy" grade --class "$small" --exercise "$ex" --jobs 2 --format json \
		>"$tmp/nobody.json" 2>"$tmp/err"
	check "as nobody, the class is graded" [ $? -eq 0 ]
	cp "$tmp/nobody.json" "$tmp/class.json"
	check "as nobody, the correct student scores 100" [ "$(score 01-good)" = 100 ]
	for s in 00-forkbomb 05-read-ref 06-delete 11-kill-all; do
		check "as nobody, $s: sum fails" [ "$(status "$s" sum)" = fail ]
	done
	check "as nobody, the sandbox has a user namespace and its own root" \
		bash -c "jq -r '.grades[0].sandbox' '$tmp/nobody.json' | grep -q 'user+mount'"
	check "as nobody, the canary survives" [ "$(cat "$canary")" = alive ]
else
	for i in 1 2 3 4 5 6 7 8 9; do skip "as nobody: not root or no setpriv"; done
fi

tap_done
