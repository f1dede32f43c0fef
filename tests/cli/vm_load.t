#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vm_load.t: in virtual time a boot's budget is counted in the CPU time QEMU got, not in
# wall time (rtlab/qemu/qemu_run.c, qemu_budget): on a loaded machine the guest moves
# only while QEMU runs, so a wall-clock budget failed vm-test under load (the rt guest's
# ftrace cross-check in vm.t, 671 s for 17 s of guest time at load 11-14). A stand-in
# QEMU that never gets ready shows both sides: one that spins (uses its CPU) times out
# after the budget as before; one that sleeps (a QEMU kept off the CPUs, as load does)
# is given up only at 16 times the budget, with the CPU it got named. Real time stays
# wall time. No guest boots: the images are dummies.
set -u
: "${RTLAB:?}" "${SRCDIR:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"

mkdir -p "$tmp/bin" "$tmp/images/lab" "$tmp/qemu"
echo dummy >"$tmp/images/lab/vmlinuz"
echo dummy >"$tmp/images/lab/initrd.img"
cat >"$tmp/bin/qemu-system-x86_64" <<'SH'
#!/bin/bash
# Never ready: FAKE_MODE=spin burns its CPU, sleep does not.
case " $* " in *" --version "*) echo "QEMU emulator version 7.2.0 (stand-in)"; exit 0 ;; esac
if [ "${FAKE_MODE:-sleep}" = spin ]; then
	while :; do :; done
fi
exec sleep 600
SH
chmod +x "$tmp/bin/qemu-system-x86_64"
export PATH=$tmp/bin:$PATH RTLAB_VM_DIR=$tmp/images TMPDIR=$tmp/qemu

boot() { # boot MODE TIME: one vm exec with a 1 s boot budget; sets $rc, $took (ms)
	local t0=$(date +%s%N)
	FAKE_MODE=$1 "$RTLAB" vm exec --kernel lab --accel tcg --time "$2" --boot-timeout 1 \
		-- true >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	took=$((($(date +%s%N) - t0) / 1000000))
}

boot spin virtual
check "virtual time, QEMU on the CPU: given up once it had its budget of CPU (exit $rc, $took ms)" \
	bash -c "[ $rc -ne 0 ] && grep -q 'did not reach rtlab within 1 s (tcg' '$tmp/err' &&
		! grep -q ' 0 s of CPU' '$tmp/err'"
boot sleep virtual
check "virtual time, QEMU off the CPUs: waited past the budget, 16 times at most ($took ms)" \
	bash -c "[ $rc -ne 0 ] && [ $took -ge 15000 ] && [ $took -lt 60000 ]"
check "and the reason names the CPU QEMU got in that time" \
	grep -q 'did not reach rtlab within 1 s (tcg, with 0 s of CPU in 1[0-9] s: the machine is loaded)' "$tmp/err"
boot sleep real
check "real time: the budget is wall time, as the guest's clock is ($took ms)" \
	bash -c "[ $rc -ne 0 ] && [ $took -lt 15000 ] && grep -q 'within 1 s (tcg)' '$tmp/err'"
tap_done
