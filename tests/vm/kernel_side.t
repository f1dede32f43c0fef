#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel_side.t (vm-test): lesson 16's kernel-side scenarios of the latency lab in the
# classroom VM's virtual time, with the rtlab_inject module's threaded interrupt and
# locks. What the kernels really showed (labs/latency/README.md, "The kernel side"):
#  - on PREEMPT_RT (rt, lab) the interrupt thread above the probe costs it the rest of
#    a 2 ms handler (about 1.1 ms) and below it a few us; the handler without a thread
#    is forced into one below the probe (a few us); a raw_spinlock_t section costs
#    about 1.1 ms and a spinlock_t one a few us;
#  - on stock every one of them costs about 1.1 ms: the kernel cannot preempt the
#    handler or the lock holder, whatever the thread's priority;
#  - everywhere, the interrupt's thread (FIFO 50) waits about 19 ms behind a FIFO 99
#    spinner (Myth 7), and a few us without it;
#  - afterwards the interrupt thread is back at SCHED_FIFO 50 and the RT throttle as
#    it was.
# Needs: RTLAB, SRCDIR, RTLAB_VM_DIR (`make vm`), jq, qemu-system-x86_64. The lab kernel's
# checks are skipped when its image is missing.
set -u

. "${BASH_SOURCE[0]%/*}/lib.bash"
vm_needs jq qemu-system-x86_64 -- rt stock

. "$SRCDIR/tests/cli/lib/tap.bash"
export TMPDIR=$tmp/qemu
mkdir -p "$TMPDIR"

scen=irqthread-above,irqthread-below,hardirq,lock-raw,lock-sleeping,fifo99-spinner
dur=${RTLAB_KSIDE_DURATION:-3s}

# guest KERNEL: the run's document as $tmp/KERNEL.json, the after-state as $tmp/KERNEL.after
guest() {
	local kernel=$1 cmd start
	cmd="rtlab lab run latency --scenario $scen --duration $dur --json /tmp/k.json"
	cmd="$cmd >/tmp/k.log 2>&1 || { echo FAILED; tail -5 /tmp/k.log; };"
	cmd="$cmd echo '@@@'; cat /tmp/k.json; echo; echo '@@@';"
	cmd="$cmd for p in /proc/[0-9]*; do case \$(cat \$p/comm 2>/dev/null) in"
	cmd="$cmd irq/*-rtlab_inject) echo irqprio \$(cut -d')' -f2 \$p/stat | cut -d' ' -f39);;"
	cmd="$cmd esac; done; echo throttle \$(cat /proc/sys/kernel/sched_rt_runtime_us)"
	start=$(date +%s)
	"$RTLAB" vm exec --kernel "$kernel" --time virtual --timeout 900 -- "$cmd" \
		>"$tmp/$kernel.out" 2>"$tmp/$kernel.err"
	rc=$?
	echo "# $kernel: booted and ran six scenarios of $dur in $(($(date +%s) - start)) s"
	awk -v j="$tmp/$kernel.json" -v a="$tmp/$kernel.after" \
		'/^@@@$/ { n++; next } n == 1 { print > j } n == 2 { print > a }' "$tmp/$kernel.out"
	[ "$rc" -eq 0 ] && ! grep -q FAILED "$tmp/$kernel.out" ||
		{ grep -A5 FAILED "$tmp/$kernel.out"; tail -20 "$tmp/$kernel.err"; } | sed 's/^/# /'
}
fig() { # fig KERNEL SCENARIO KEY
	jq -r --arg s "$2" --arg k "$3" '.extra.scenarios[] | select(.name == $s) | .[$k]' \
		"$tmp/$1.json" 2>/dev/null
}
above() { awk -v v="$1" -v m="$2" 'BEGIN { exit !(v != "" && v + 0 > m) }'; }
below() { awk -v v="$1" -v m="$2" 'BEGIN { exit !(v != "" && v + 0 < m) }'; }

table() { # table KERNEL: the figures, as comments
	local s
	for s in ${scen//,/ }; do
		echo "# $1 $s: max $(fig "$1" "$s" max_us) us, irq thread prio" \
			"$(fig "$1" "$s" irq_thread_priority), delay max" \
			"$(fig "$1" "$s" irq_thread_delay_max_us) us," \
			"sections $(fig "$1" "$s" inject_sections_count)"
	done
}

common() { # common KERNEL: what every kernel shows
	local k=$1
	check "$k: the six scenarios ran (vm exec exit $rc)" \
		bash -c "[ $rc -eq 0 ] && [ -s '$tmp/$k.json' ] && ! grep -q FAILED '$tmp/$k.out'"
	check "$k: the interrupt thread ran at 95 and 80 as asked" \
		[ "$(fig "$k" irqthread-above irq_thread_priority)" = 95 -a \
		  "$(fig "$k" irqthread-below irq_thread_priority)" = 80 ]
	check "$k: every scenario's sections ran, none refused" \
		bash -c "jq -e '[.extra.scenarios[] | .inject_sections_count > 10 and
			.inject_refused_count == 0] | all' '$tmp/$k.json' >/dev/null"
	check "$k: the document's view kernel-side has a row per scenario" \
		bash -c "[ \"\$(jq '[.views[] | select(.name == \"kernel-side\") | .rows[]] | length' \
			'$tmp/$k.json')\" = 6 ]"
	check "$k: behind the FIFO 99 spinner the interrupt thread waited > 15 ms" \
		above "$(fig "$k" fifo99-spinner irq_thread_delay_max_us)" 15000
	check "$k: without the spinner it waited < 100 us" \
		below "$(fig "$k" irqthread-below irq_thread_delay_max_us)" 100
	check "$k: afterwards the interrupt thread is back at 50, the throttle at 950000" \
		bash -c "grep -qx 'irqprio 50' '$tmp/$k.after' &&
			 grep -qx 'throttle 950000' '$tmp/$k.after'"
}

preempt_rt() { # preempt_rt KERNEL: the contrasts of a PREEMPT_RT kernel
	local k=$1
	check "$k: the thread above the probe costs it > 1000 us" \
		above "$(fig "$k" irqthread-above max_us)" 1000
	check "$k: the thread below the probe costs it < 100 us" \
		below "$(fig "$k" irqthread-below max_us)" 100
	check "$k: the handler without a thread is forced into one (< 100 us)" \
		below "$(fig "$k" hardirq max_us)" 100
	check "$k: the raw lock's section shows in the probe (> 1000 us)" \
		above "$(fig "$k" lock-raw max_us)" 1000
	check "$k: the sleeping lock's does not (< 100 us)" \
		below "$(fig "$k" lock-sleeping max_us)" 100
}

guest rt
table rt
common rt
preempt_rt rt

guest stock
table stock
common stock
for s in irqthread-above irqthread-below hardirq lock-raw lock-sleeping; do
	check "stock: $s costs the probe > 1000 us (nothing preempts the section)" \
		above "$(fig stock "$s" max_us)" 1000
done

if [ -r "$RTLAB_VM_DIR/lab/vmlinuz" ]; then
	guest lab
	table lab
	common lab
	preempt_rt lab
else
	skip "lab: no image in $RTLAB_VM_DIR (make vm)"
fi
tap_done
