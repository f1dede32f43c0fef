#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A predict question is compared with the run it means (lessons/FORMAT.md
# `when`): lesson 09's question is about the nop lab's defaults, node 1
# crashing at 1 ms; a run of the same scenario with another fault shows
# the prediction without a measurement, and says what differed.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR

pred() { # pred FILE: lesson 09's line of the document's predictions, as "measured|other_run"
	jq -r '.extra.predictions[] | select(.id == "predict-nop-detect") |
		"\(.measured)|\(.other_run // "")"' "$1"
}

export -f pred
printf '120\n' >"$tmp/in"
"$RTLAB" quiz 9 --question predict-nop-detect <"$tmp/in" >"$tmp/out" 2>"$tmp/err"
check "the prediction is saved" grep -q '^Saved: 120 us' "$tmp/out"

run lab run nop --duration 50ms --json "$tmp/default.json"
check "the default run (exit $rc)" [ "$rc" -eq 0 ]
check "the default run is the one the question means: measured, nothing differs" \
	bash -c "pred '$tmp/default.json' | grep -Eq '^[0-9.]+\|$'"

run lab run nop --duration 50ms --fault crash@2ms:1 --json "$tmp/other.json"
check "a run with another fault (exit $rc)" [ "$rc" -eq 0 ]
check "is not compared: no measurement" bash -c "pred '$tmp/other.json' | grep -q '^null|'"
check "and the document says which condition differed" \
	bash -c "pred '$tmp/other.json' | grep -qF 'not the run it means: params.faults=crash@1000000ns:1 (this run: crash@2000000ns:1)'"
check "the predictions view says it instead of a verdict" \
	jq -e '.views[] | select(.name == "predictions") | .rows[] |
		select(.[7] == "predict-nop-detect") | .[5] | test("not the run it means")' "$tmp/other.json"

run progress
check "progress names the run a prediction means" \
	grep -q 'prediction predict-nop-detect: 120 us (nop lab, nop, detection_max_us, when params.nodes=4, params.faults=crash@1000000ns:1)' "$tmp/out"

# A malformed `when` is a lesson error naming the file and line.
mkdir -p "$tmp/data/lessons"
cp -r "$SRCDIR/lessons/." "$tmp/data/lessons/"
sed -i 's/^when: params.spike_us=100$/when: spike_us=100/' "$tmp/data/lessons/02-hard-firm-soft.md"
RTLAB_DATADIR=$tmp/data run lesson lint "$tmp/data/lessons/02-hard-firm-soft.md"
check "a when without params. or env. is refused with its line (exit $rc)" \
	bash -c "[ $rc -ne 0 ] && grep -Eq '02-hard-firm-soft.md:[0-9]+: .*when: .spike_us=100. is not params.KEY=VALUE' '$tmp/err' '$tmp/out'"
tap_done
