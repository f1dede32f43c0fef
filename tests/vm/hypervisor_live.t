#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hypervisor_live.t (vm-test): the hypervisor lab's live part on this host, as root.
# The lab kernel boots under KVM where a Linux guest boots under it, else
# TCG (the tests assert only what TCG keeps: the scenarios ran, the knobs
# were set and put back; under KVM the ordering guest-load > vcpu-fifo in
# max is asserted too):
#   1. guest-idle, guest-load and vcpu-fifo for 5 s each: while vcpu-fifo runs, QEMU's
#      vCPU thread is SCHED_FIFO at --vcpu-prio and pinned, as /proc shows;
#      the document has both with >= 5 s of samples, the knobs read back, a
#      histogram each; afterwards no QEMU and no journal is left;
#   2. fifo-stall: the FIFO vCPU starves QEMU's main loop and the watchdog
#      puts it back (the document says when and why); io-high, the same with
#      QEMU's threads one above the vCPU: no stall;
#   3. kill -9 of rtlab while the vCPU is at SCHED_FIFO: QEMU dies with it
#      (PR_SET_PDEATHSIG), no SCHED_FIFO thread of it survives, and
#      `rtlab doctor --restore` replays the journal left behind.
# Needs: RTLAB, SRCDIR, RTLAB_VM_DIR (`make vm`), jq, qemu-system-x86_64, root.
set -u

. "${BASH_SOURCE[0]%/*}/lib.bash"
vm_needs --root jq qemu-system-x86_64 -- lab

. "$SRCDIR/tests/cli/lib/tap.bash"
export TMPDIR=$tmp/qemu RTLAB_DATADIR=$SRCDIR XDG_STATE_HOME=$tmp/state
mkdir -p "$TMPDIR"
jdir=/run/rtlab

# The QEMU child of $1 that has vCPU threads (before it, the doctor may boot a
# KVM test guest of its own); its vCPU threads are named "CPU n/TCG" or "CPU n/KVM".
qemu_of() {
	local q
	for q in $(pgrep -P "$1" qemu-system 2>/dev/null); do
		[ -n "$(vcpu_tids "$q")" ] && { echo "$q"; return; }
	done
}
vcpu_tids() {
	local q=$1 t
	for t in /proc/"$q"/task/*; do
		case "$(cat "$t/comm" 2>/dev/null)" in "CPU "*) echo "${t##*/}" ;; esac
	done
}
# "FIFO PRIO CPUS" of one thread, from /proc's stat (fields 40, 41) and status.
tid_sched() {
	local stat pol prio cpus
	stat=$(sed 's/.*) //' "/proc/$1/task/$2/stat" 2>/dev/null) || return 1
	prio=$(echo "$stat" | awk '{print $38}')
	pol=$(echo "$stat" | awk '{print $39}')
	cpus=$(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$1/task/$2/status" 2>/dev/null)
	echo "$pol $prio $cpus"
}

# ---- 1. two scenarios, watched from /proc while they run ------------------------------------
start=$(date +%s)
"$RTLAB" lab run hypervisor --live --kernel lab --accel auto --vcpu-prio 12 \
	--scenario guest-idle,guest-load,vcpu-fifo --duration 5s --seed 1 --json "$tmp/hv.json" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
seen_fifo= seen_other= qemu= run_qemu=
for _ in $(seq 1 1800); do
	kill -0 "$pid" 2>/dev/null || break
	[ -n "$qemu" ] && [ -d "/proc/$qemu" ] || qemu=$(qemu_of "$pid")
	[ -n "$qemu" ] && run_qemu=$qemu	# the run's QEMU, kept once it is gone
	if [ -n "$qemu" ]; then
		for t in $(vcpu_tids "$qemu"); do
			s=$(tid_sched "$qemu" "$t") || continue
			case "$s" in
			"1 12 "*) [ -n "$seen_fifo" ] || seen_fifo="$s" ;;
			"0 0 "*) [ -n "$seen_other" ] || seen_other="$s" ;;
			esac
		done
	fi
	sleep 0.1
done
wait "$pid"
rc=$?
echo "# three 5 s scenarios in $(($(date +%s) - start)) s (KVM check and boot included)"
check "guest-idle,guest-load,vcpu-fifo (--accel auto): the run succeeded" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/err" | tail -15
check "while vcpu-fifo ran, /proc showed the vCPU thread SCHED_FIFO 12 (${seen_fifo:-never})" \
	[ -n "$seen_fifo" ]
check "while guest-idle ran, /proc showed it SCHED_OTHER (${seen_other:-never})" \
	[ -n "$seen_other" ]
# The last CPU this test may use (rtlab's, and so QEMU's, affinity), not nproc - 1.
last=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status | tr ',' '\n' | tail -1)
last=${last##*-}
check "... and pinned to the last CPU it may use ($last; seen: ${seen_fifo##* })" \
	[ "${seen_fifo##* }" = "$last" ]

for s in guest-idle guest-load vcpu-fifo; do
	jq -e --arg s "$s" '.extra.scenarios[] | select(.name == $s) |
		select(.available and .verified and .wall_ms >= 5000 and .samples_count >= 1000
		       and .stream.bad_frames == 0 and .stream.seq_gaps == 0
		       and .max_us >= .p99_us and .p99_us >= 1)' "$tmp/hv.json" >/dev/null
	check "$s: >= 5 s of guest samples, every frame whole, the knobs read back as asked" [ $? -eq 0 ]
	jq -e --arg h "$s.latency" '.histograms[] | select(.name == $h) | .counts | add > 0' \
		"$tmp/hv.json" >/dev/null
	check "$s: its histogram is in the document" [ $? -eq 0 ]
done
jq -r '.extra.scenarios[] | "# \(.name): \(.samples_count) samples, avg \(.avg_us|floor) us, p99 \(.p99_us) us, max \(.max_us|floor) us; vCPU \(.vcpu), QEMU \(.qemu_threads)"' \
	"$tmp/hv.json" 2>/dev/null
accel=$(jq -r .params.accel "$tmp/hv.json")
jq -e '.params.mode == "live" and .tier == "host"
	and (.extra.guest.kernel | test("rtlab")) and (.extra.guest.preempt | length > 0)
	and (.extra.guest.vcpu_tids | length == 1) and .params.throttle_file != null
	and (.params.accel == "kvm" or ([.notes[] | select(test("emulated"))] | length > 0))' \
	"$tmp/hv.json" >/dev/null
check "the document names the guest kernel, its preemption model, the accelerator ($accel), and the throttling file" \
	[ $? -eq 0 ]
if jq -e '.params.accel == "kvm"' "$tmp/hv.json" >/dev/null; then
	jq -e '.params.kvm_ordering_holds == true' "$tmp/hv.json" >/dev/null
	check "KVM: guest-load is worse than vcpu-fifo in max" [ $? -eq 0 ]
fi
run grade "$tmp/hv.json"
grep -qE 'PASS +live-guest-idle' "$tmp/out" && grep -qE 'PASS +live-vcpu-fifo' "$tmp/out" &&
	grep -qE 'FAIL +live-io-low' "$tmp/out" && grep -qE 'FAIL +why-fifo-stall' "$tmp/out"
check "rtlab grade: the steps measured pass; io-low (not run) and the unanswered question fail" \
	[ $? -eq 0 ]
check "no QEMU of that run is left (${run_qemu:-none was seen})" \
	[ -n "$run_qemu" -a ! -d "/proc/${run_qemu:-0}" ]
check "no journal of that run is left" [ ! -e "$jdir/$pid.journal" ]

# ---- 2. the hazard, and the watchdog ----------------------------------------------------------
run lab run hypervisor --live --kernel lab --accel tcg --scenario fifo-stall,io-high \
	--duration 8s --json "$tmp/stall.json"
check "fifo-stall: the run succeeded" [ "$rc" -eq 0 ]
jq -r '.extra.scenarios[0] | "# fifo-stall: watchdog \(.watchdog_fired) after \(.watchdog_after_ms) ms (\(.watchdog_why)); main loop waited at most \(.main_loop_wait_max_ms) ms; max \(.max_us|floor) us"' \
	"$tmp/stall.json" 2>/dev/null
jq -e '.extra.scenarios[0] | .watchdog_fired == true and .watchdog_after_ms < 8000
	and (.watchdog_why | length > 0)' "$tmp/stall.json" >/dev/null
check "fifo-stall: the watchdog saw QEMU's main loop starve and put the vCPU back" [ $? -eq 0 ]
jq -r '.extra.scenarios[1] | "# io-high: watchdog \(.watchdog_fired); main loop waited at most \(.main_loop_wait_max_ms) ms; \(.samples_count) samples, max \(.max_us|floor) us"' \
	"$tmp/stall.json" 2>/dev/null
jq -e '.extra.scenarios[1] | .name == "io-high" and .watchdog_fired == false
	and .main_loop_wait_max_ms < 1500 and .verified' "$tmp/stall.json" >/dev/null
check "io-high: QEMU's threads one above the vCPU: the same busy guest, no stall" [ $? -eq 0 ]

# ---- 3. kill -9 while the vCPU is FIFO --------------------------------------------------------
"$RTLAB" lab run hypervisor --live --kernel lab --accel tcg --scenario vcpu-fifo \
	--duration 60s --json "$tmp/killed.json" >"$tmp/out" 2>"$tmp/err" &
pid=$!
qemu= fifo_tid=
for _ in $(seq 1 1800); do
	kill -0 "$pid" 2>/dev/null || break
	[ -n "$qemu" ] && [ -d "/proc/$qemu" ] || qemu=$(qemu_of "$pid")
	if [ -n "$qemu" ]; then
		for t in $(vcpu_tids "$qemu"); do
			case "$(tid_sched "$qemu" "$t")" in "1 "*) fifo_tid=$t ;; esac
		done
	fi
	[ -n "$fifo_tid" ] && break
	sleep 0.1
done
check "kill -9: the vCPU thread $fifo_tid of QEMU $qemu was SCHED_FIFO first" [ -n "$fifo_tid" ]
check "kill -9: the journal recorded it ($jdir/$pid.journal)" [ -s "$jdir/$pid.journal" ]
kill -9 "$pid"
wait "$pid" 2>/dev/null
gone=1
for _ in $(seq 1 100); do
	[ -d "/proc/${qemu:-0}" ] || { gone=0; break; }
	sleep 0.1
done
check "kill -9: QEMU died with rtlab (PR_SET_PDEATHSIG)" [ "$gone" -eq 0 ]
survivors=$(ps -eLo pid=,cls=,comm= | awk '$2 == "FF" && $3 ~ /^(CPU|qemu)/' | wc -l)
check "kill -9: no SCHED_FIFO thread of QEMU survives ($survivors)" [ "$survivors" -eq 0 ]
run doctor --restore
check "doctor --restore replays the journal left behind" [ "$rc" -eq 0 -a ! -e "$jdir/$pid.journal" ]
# Ours by its pid: another program's dead journal on a shared machine may be replayed too.
grep -qE "restored [0-9]+ of [0-9]+ change\(s\) left by process $pid" "$tmp/err" &&
	grep -qE "[0-9]+ journals? replayed" "$tmp/out"
check "... and says what it replayed (the threads died with QEMU)" [ $? -eq 0 ]

tap_done
