#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# exercise_latency.t: the latency exercise's checks tell the mistakes of
# lesson 03 apart. Each wrong solution in tests/data/exercise-wrong/latency
# (a relative sleep, a plan that drifts from the wake-up, one carry only, a
# busy wait, the latency's sign, MCL_CURRENT only, a prefault the compiler
# drops) loses exactly the checks its patch names; a solution that prints
# its own lines (chatty) loses nothing. grade_exercises.t proves the reference (100)
# and the starter (less). All on the simulated clock or the kernel's
# counters: nothing here depends on how loaded the machine is.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"
. "$SRCDIR/tests/cli/lib/exercise_wrong.bash"
export RTLAB_DATADIR=$SRCDIR

# The learner's own prints, even ones that look like the subject's, change nothing.
mkdir -p "$tmp/extra"
cp -R "$SRCDIR/labs/latency/reference" "$tmp/extra/chatty"
sed -i 's|^\t\tlatency_ns\[i\] = probe_ts_diff_ns(&now, &next);|&\n\t\tprintf("loop %zu: L banana\\n", i);|' \
	"$tmp/extra/chatty/probe_loop.c"
sed -i 's|^#include <errno.h>|&\n#include <stdio.h>|' "$tmp/extra/chatty/probe_loop.c"
echo "Loses:" >"$tmp/extra/chatty/expect"
check "(the chatty solution prints)" grep -q 'printf("loop' "$tmp/extra/chatty/probe_loop.c"

wrong_solutions latency "$tmp/extra/chatty"

tap_done
