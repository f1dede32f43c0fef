#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The latency lab's --preempt MODEL on this host's real kernel: where the
# model cannot be switched (not PREEMPT_DYNAMIC, no debugfs, a read or a
# write refused, e.g. under kernel lockdown), the run stops before it
# measures, with a non-zero exit and the reason, and the doctor says the
# same. Where it can be switched the test changes nothing and skips: the
# switch and its undo are test_rt_preempt's and test_lab_latency's, on a
# fixture tree. TAP for prove. Needs RTLAB and SRCDIR. About 2 s.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"

knob=/sys/kernel/debug/sched/preempt

run lab run latency --help
check "--preempt is among the latency lab's options" grep -q '^  --preempt ' "$tmp/out"

run lab run latency --scenario idle-other --duration 100ms --preempt sometimes
check "a model that is none of none, voluntary, full and lazy is a usage error (exit 2, got $rc)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'expected none, voluntary, full or lazy' '$tmp/err'"

run doctor --json
check "the doctor reports the preemption switch" \
	python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['preempt_switch']; \
assert p['stop'] in ('ok','not-dynamic','no-debugfs','no-file','read-refused','unreadable','write-refused')" "$tmp/out"

if [ "$(id -u)" -eq 0 ] && cat "$knob" >/dev/null 2>&1; then
	skip "the preemption model can be read here, so --preempt would change this host's kernel"
	skip "the refusal is tested where the kernel refuses (kernel lockdown, no PREEMPT_DYNAMIC)"
	skip "likewise the doctor's reason"
else
	run lab run latency --scenario idle-other --duration 100ms --preempt full \
		--json "$tmp/doc.json"
	check "--preempt full is refused here (exit 1, got $rc)" [ "$rc" -eq 1 ]
	check "with the reason, before anything is measured" \
		bash -c "grep -q 'preemption model cannot be switched here' '$tmp/err' && \
			! grep -q 'idle-other: starting' '$tmp/err' && [ ! -e '$tmp/doc.json' ]"
	run doctor --json
	check "the doctor says where it is refused and why" \
		python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['preempt_switch']; \
assert p['switchable'] is False and p['stop'] != 'ok' and len(p['why']) > 20, p" "$tmp/out"
fi

tap_done
