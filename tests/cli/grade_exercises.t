#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# grade_exercises.t: every exercise proves itself. For each lab with checks/
# (labs/*/checks/exercise.json) and each exercise of the harness's own tests
# (tests/data/exercise/*), the reference solution scores 100% and the
# unmodified starter compiles and scores less. Checks the grader cannot
# grant here (SCHED_FIFO, mlock without root) are skipped, not counted.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR

found=0
for manifest in "$SRCDIR"/labs/*/checks/exercise.json "$SRCDIR"/tests/data/exercise/*/checks/exercise.json; do
	[ -f "$manifest" ] || continue
	dir=${manifest%/checks/exercise.json}
	name=${dir#"$SRCDIR"/}
	found=$((found + 1))

	run grade --exercise "$dir" --lint
	check "$name: the manifest and its files are fine (--lint)" [ "$rc" -eq 0 ]

	run grade --exercise "$dir" --work "$dir/reference" --json
	cp "$tmp/out" "$tmp/ref.json"
	check "$name: the reference scores 100%" \
		[ "$(jq -r '"\(.score_pct) \(.checks_failed) \(.build.ok)"' "$tmp/ref.json")" = "100 0 true" ]
	[ "$rc" -eq 0 ] || jq -r '.checks[] | select(.status == "fail") | "# \(.id): \(.reason)"' \
		"$tmp/ref.json"

	run grade --exercise "$dir" --work "$dir/starter" --json
	cp "$tmp/out" "$tmp/starter.json"
	check "$name: the starter compiles" [ "$(jq -r '.build.ok' "$tmp/starter.json")" = true ]
	check "$name: the starter scores less than 100% (exit 1)" \
		bash -c "[ $rc -eq 1 ] && jq -e '.score_pct < 100' '$tmp/starter.json' >/dev/null"
	check "$name: every failed check of the starter has a reason and a hint" \
		bash -c "jq -e '[.checks[] | select(.status == \"fail\") | (.reason != \"\" and .hint != null)] | all' '$tmp/starter.json' >/dev/null"
done
check "at least the toy exercise was found" [ "$found" -ge 1 ]

tap_done
