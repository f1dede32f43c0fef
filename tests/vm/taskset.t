#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# taskset.t (vm-test): the task-set lab in the classroom VM's virtual time
# (doc/vm.md), where the CPU does nothing the analysis does not know of: on
# the rt kernel, for every task that response-time analysis bounds, in every
# scenario, the measured worst response never exceeds the computed R; the set
# RTA rejects (rta-miss) misses deadlines; and the plain mutex's high task
# waits past its deadline while inheritance and the ceiling keep it within
# R. The stock kernel's run is printed beside it for the note, not judged.
# Needs: RTLAB, SRCDIR, RTLAB_VM_DIR (`make vm`), jq, qemu-system-x86_64.
set -u

. "${BASH_SOURCE[0]%/*}/lib.bash"
vm_needs jq qemu-system-x86_64 -- rt

. "$SRCDIR/tests/cli/lib/tap.bash"
export TMPDIR=$tmp/qemu
mkdir -p "$TMPDIR"

dur=${RTLAB_TASKSET_DURATION:-1s}

# guest KERNEL: the run's document as $tmp/KERNEL.json, rc in $rc
guest() {
	local kernel=$1 cmd start
	cmd="rtlab lab run taskset --duration $dur --json /tmp/t.json >/dev/null 2>&1 || echo FAILED;"
	cmd="$cmd echo '@@@'; cat /tmp/t.json; echo"
	start=$(date +%s)
	"$RTLAB" vm exec --kernel "$kernel" --time virtual --timeout 900 -- "$cmd" \
		>"$tmp/$kernel.out" 2>"$tmp/$kernel.err"
	rc=$?
	echo "# $kernel: booted and ran the five scenarios x $dur in $(($(date +%s) - start)) s"
	awk '/^@@@$/ { n++; next } n { print }' "$tmp/$kernel.out" >"$tmp/$kernel.json"
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/$kernel.err" | tail -20
}
table() { # table FILE: scenario, task, R, measured, misses per line, as comments
	jq -r '.extra.scenarios[] | .name as $s | .tasks | to_entries[] |
		"# \($s) task \(.key + 1): R \(.value.rta_response_us // .value.rta) us, measured max \(.value.response_max_us) us, misses \(.value.misses_count) of \(.value.jobs_count)"' "$1"
}

guest rt
check "rt: the five scenarios ran in virtual time (vm exec exit $rc)" \
	bash -c "[ $rc -eq 0 ] && [ -s '$tmp/rt.json' ] && ! grep -q FAILED '$tmp/rt.out' &&
		 [ \"\$(jq '.extra.scenarios | length' '$tmp/rt.json')\" = 5 ]"
check "the document says env.time virtual" [ "$(jq -r .env.time "$tmp/rt.json")" = virtual ]
table "$tmp/rt.json"
over=$(jq -r '[.extra.scenarios[] | .name as $s | .tasks | to_entries[] |
	select(.value.rta == "meets" and .value.response_max_us > .value.rta_response_us) |
	"\($s)/\(.key + 1)"] | join(" ")' "$tmp/rt.json")
check "every task RTA bounds stayed within its R, in every scenario (over: ${over:-none})" \
	bash -c "[ -z '$over' ] && [ \"\$(jq '[.extra.scenarios[].tasks[] | select(.rta == \"meets\")] | length' '$tmp/rt.json')\" -ge 12 ]"
check "every schedulable scenario missed no deadline" \
	[ "$(jq '[.extra.scenarios[] | select(.rta_schedulable) | .misses_count] | add' "$tmp/rt.json")" = 0 ]
check "rta-miss: the task RTA rejects missed deadlines" \
	[ "$(jq '.extra.scenarios[] | select(.name == "rta-miss") | .tasks[2] | .rta == "misses" and .misses_count > 0' "$tmp/rt.json")" = true ]
check "lock-plain: the high task waited past its 10 ms deadline" \
	[ "$(jq '.extra.scenarios[] | select(.name == "lock-plain") | .tasks[0].response_max_us > 10000' "$tmp/rt.json")" = true ]
check "lock-inherit and lock-ceiling: the high task within its R of 5 ms" \
	[ "$(jq '[.extra.scenarios[] | select(.name == "lock-inherit" or .name == "lock-ceiling") | .tasks[0].response_max_us <= 5000] | all' "$tmp/rt.json")" = true ]

if [ -r "$RTLAB_VM_DIR/stock/vmlinuz" ]; then
	guest stock
	check "stock: the scenarios ran too (vm exec exit $rc)" [ "$rc" -eq 0 -a -s "$tmp/stock.json" ]
	table "$tmp/stock.json"
else
	skip "no stock image"
fi
tap_done
