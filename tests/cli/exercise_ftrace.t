#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# exercise_ftrace.t: the ftrace exercise's known answers and what its checks
# tell apart. The answer files in labs/ftrace/checks/data are what a second,
# independent reading of the traces gives (lib/exercise_ftrace_answers.py;
# the reference solution is the first, and grade_exercises.t proves it scores
# 100). Each wrong solution in tests/data/exercise-wrong/ftrace loses exactly
# the checks its patch names, and every fixture is described in the data's
# README.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"
. "$SRCDIR/tests/cli/lib/exercise_wrong.bash"
export RTLAB_DATADIR=$SRCDIR
data=$SRCDIR/labs/ftrace/checks/data

python3 "$SRCDIR/tests/cli/lib/exercise_ftrace_answers.py" "$data" --check >"$tmp/err" 2>&1
check "the answer files are what a second reading of the traces gives" [ $? -eq 0 ]

missing=
for f in "$data"/*.txt "$data"/*.answer; do
	b=$(basename "$f")
	grep -q "\`$b\`" "$data/README.md" || missing="$missing $b"
done
check "every fixture is described in checks/data/README.md${missing:+ (not:$missing)}" \
	[ -z "$missing" ]

wrong_solutions ftrace

tap_done
