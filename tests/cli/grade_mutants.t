#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/grade-mutants can fail: in a copy of the nop lab, a "mutant" that
# changes nothing is reported NOT CAUGHT and the run fails, as does one that
# differs from the reference in more than 10 lines or lacks its header
# lines; the lab's own mutants pass (make mutants runs them all).
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"

src=$tmp/src
mkdir -p "$src/labs"
cp -R "$SRCDIR/labs/nop" "$SRCDIR/labs/common" "$src/labs/"
cp -R "$SRCDIR/lessons" "$src/"
export RTLAB_DATADIR=$src
m=$src/labs/nop/mutants
ref=$src/labs/nop/reference/nop_monitor.c

RTLAB_DATADIR=$src "$SRCDIR/scripts/grade-mutants" --src "$src" --lab nop "$RTLAB" >"$tmp/out" 2>&1
check "the nop lab's own mutants: all caught (exit $?)" grep -q '^mutants: \([0-9]*\) of \1 caught' "$tmp/out"

rm -f "$m"/*.c
{ echo '/* mutant: nothing is wrong */'; echo '/* replaces: nop_monitor.c */'
  echo '/* caught-by: detect-crash */'; sed 's/correct node/correct  node/' "$ref"; } >"$m/01-same.c"
"$SRCDIR/scripts/grade-mutants" --src "$src" --lab nop "$RTLAB" >"$tmp/out" 2>&1
rc=$?
check "a mutant no check catches fails the run (exit $rc)" [ "$rc" -ne 0 ]
check "and is named NOT CAUGHT" grep -q '01-same .*NOT CAUGHT' "$tmp/out"

rm -f "$m"/*.c
{ echo '/* mutant: too big a change */'; echo '/* replaces: nop_monitor.c */'
  echo '/* caught-by: detect-crash */'; cat "$ref"
  for i in $(seq 1 11); do echo "static int pad$i;"; done; } >"$m/02-big.c"
"$SRCDIR/scripts/grade-mutants" --src "$src" --lab nop "$RTLAB" >"$tmp/out" 2>&1
rc=$?
check "a mutant more than 10 lines from the reference fails the run (exit $rc)" [ "$rc" -ne 0 ]
check "saying so" grep -q 'differs from .* in 11 lines' "$tmp/out"

rm -f "$m"/*.c
cp "$ref" "$m/03-bare.c"
"$SRCDIR/scripts/grade-mutants" --src "$src" --lab nop "$RTLAB" >"$tmp/out" 2>&1
rc=$?
check "a mutant without its header lines fails the run (exit $rc)" [ "$rc" -ne 0 ]

tap_done
