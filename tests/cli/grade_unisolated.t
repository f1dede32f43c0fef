#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Where the sandbox cannot isolate the graded code (an ordinary user, no
# user namespaces, no Landlock: tests/tools/no-landlock stands in for a
# kernel without it), a grade says "unisolated" and class mode refuses
# unless --allow-unisolated; as root the box's own uid isolates it. And
# --class never grades one prebuilt subject for every student.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR

toy=$tmp/toy
mkdir -p "$toy" "$tmp/class/ann" "$tmp/work"
cp -R "$SRCDIR/tests/data/exercise/toy/checks" "$SRCDIR/tests/data/exercise/toy/reference" "$toy/"
cp "$toy/reference/sum.c" "$tmp/class/ann/"
cp "$toy/reference/sum.c" "$tmp/work/"
chmod -R a+rX "$tmp"

run grade --exercise "$toy" --work "$tmp/work" --no-namespaces
check "as root without namespaces: graded (exit $rc)" [ "$rc" -eq 0 ]
check "and isolated by the box's own uid (no unisolated line)" bash -c "! grep -q unisolated '$tmp/out'"

if can_switch; then
	install -m 0755 "$TOOLS/no-landlock" "$tmp/no-landlock"
	install -m 0755 "$RTLAB" "$tmp/rtlab-copy"
	as_nobody "$tmp/no-landlock" "$tmp/rtlab-copy" grade --exercise "$toy" --work "$tmp/work" \
		--no-namespaces >"$tmp/out" 2>"$tmp/err" </dev/null
	check "a user without namespaces or Landlock: the grade says unisolated" \
		grep -q '^unisolated: .*could forge this grade' "$tmp/out"
	as_nobody "$tmp/no-landlock" "$tmp/rtlab-copy" grade --exercise "$toy" --work "$tmp/work" \
		--no-namespaces --json >"$tmp/out" 2>"$tmp/err" </dev/null
	check "and its JSON has isolated: false" jq -e '.isolated == false' "$tmp/out"
	as_nobody "$tmp/no-landlock" "$tmp/rtlab-copy" grade --class "$tmp/class" --exercise "$toy" \
		--no-namespaces >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "class mode refuses it (exit $rc)" [ "$rc" -eq 1 ]
	check "naming the way out" grep -q -- '--allow-unisolated' "$tmp/err"
	as_nobody "$tmp/no-landlock" "$tmp/rtlab-copy" grade --class "$tmp/class" --exercise "$toy" \
		--no-namespaces --allow-unisolated --json >"$tmp/out" 2>"$tmp/err" </dev/null
	check "with --allow-unisolated the class is graded, each grade marked" \
		jq -e '.grades[0].isolated == false' "$tmp/out"
	# The class's one check program, replaced by the first student's code (same uid,
	# no fence): a later student's starter must still fail (each job runs a sealed
	# copy made before any job started).
	mkdir -p "$tmp/t" "$tmp/class2/aaa-mallory" "$tmp/class2/zed"
	chown 65534:65534 "$tmp/t"
	cp "$SRCDIR/tests/data/exercise/toy/starter/sum.c" "$tmp/class2/zed/"
	python3 - "$toy/reference/sum.c" "$tmp/class2/aaa-mallory/sum.c" "$tmp/t" <<'PY'
import sys
ids = ["sum", "sum-empty", "max", "max-empty", "lock", "sum-large"]
tap = "1..%d\\n" % len(ids) + "".join("ok %d - %s\\n" % (i + 1, c) for i, c in enumerate(ids))
# The subject copies itself over the class's check program; started as the
# check program (RTLAB_CHECK_ONLY set), it passes every check.
attack = r"""
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
__attribute__((constructor)) static void judge(void)
{
	if (getenv("RTLAB_CHECK_ONLY")) {
		fputs("%s", stdout);
		fflush(stdout);
		_exit(0);
	}
}
static void replace_judge(void)
{
	char buf[65536];
	glob_t g;

	if (glob("%s/rtlab-class.*/check-toy", 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		int in = open("/proc/self/exe", O_RDONLY), out;
		ssize_t n;

		unlink(g.gl_pathv[i]);
		out = open(g.gl_pathv[i], O_WRONLY | O_CREAT | O_TRUNC, 0755);
		while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				break;
		close(in);
		close(out);
	}
	globfree(&g);
}
""" % (tap, sys.argv[3])
src = open(sys.argv[1]).read()
src = src.replace('#include "toy.h"\n', '#include "toy.h"\n' + attack, 1)
src = src.replace("\tlong s = 0;\n", "\tlong s = 0;\n\n\treplace_judge();\n", 1)
open(sys.argv[2], "w").write(src)
PY
	chmod -R a+rX "$tmp/class2"
	as_nobody env TMPDIR="$tmp/t" "$tmp/no-landlock" "$tmp/rtlab-copy" grade \
		--class "$tmp/class2" --exercise "$toy" --no-namespaces --allow-unisolated --jobs 1 \
		--json >"$tmp/out" 2>"$tmp/err" </dev/null
	check "a judge replaced by one student does not judge the next (zed's starter fails)" \
		jq -e '.grades[] | select(.student == "zed") | .score_pct < 100' "$tmp/out"
	as_nobody rtlab grade --exercise "$toy" --work "$tmp/work" --no-namespaces --json \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	check "the same user with Landlock: isolated" jq -e '.isolated == true' "$tmp/out"
else
	skip "unisolated grades: needs root and setpriv to switch users"
fi

run grade --exercise "$toy" --work "$tmp/work" --build-only "$tmp/pre"
check "an exercise can be prebuilt" [ "$rc" -eq 0 ]
run grade --class "$tmp/class" --exercise "$tmp/pre"
check "--class with a prebuilt exercise is refused (exit $rc)" [ "$rc" -eq 1 ]
check "saying why" grep -q 'prebuilt' "$tmp/err"

tap_done
