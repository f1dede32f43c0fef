#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CLI tests for KVM that runs the doctor's test guest but cannot boot Linux (a nested
# host): the doctor does not call it working, `rtlab vm exec` falls back to TCG with a
# one-line notice (before the boot, from the kept verdict, and at run time), and
# `--accel kvm` is refused with the reason. No KVM is needed: RTLAB_KVM_DEV names a
# stand-in device (a file with the test guest's report) and tests/vm/fake-qemu stands in
# for qemu-system-x86_64 (MSR abort under -cpu host, silence under the other models,
# the real QEMU under TCG). The images are dummies: no guest boots here (tests/vm/vm.t
# boots real ones). Also: `--append` is checked before anything starts.
#
# Needs: RTLAB, SRCDIR, jq, qemu-system-x86_64.
set -u

: "${RTLAB:?set RTLAB to the rtlab binary}"
: "${SRCDIR:?set SRCDIR to the source tree}"

n=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

for t in jq qemu-system-x86_64; do
	if ! command -v $t >/dev/null; then
		echo "1..0 # skip $t is not installed (make deps)"
		exit 0
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RTLAB_JOURNAL_DIR=$tmp/journal XDG_STATE_HOME=$tmp/state TMPDIR=$tmp/qemu
mkdir -p "$tmp/bin" "$TMPDIR" "$XDG_STATE_HOME"
ln -s "$SRCDIR/tests/vm/fake-qemu" "$tmp/bin/qemu-system-x86_64"
export PATH=$tmp/bin:$PATH FAKE_QEMU_LOG=$tmp/qemu.log
printf 'A 12\nW\n' > "$tmp/kvm"
# The probe's cap: the stand-in answers at once, so a generous cap costs only the two silent
# models' waits (a sixth of it each) and keeps a loaded machine from starving the first
# model's start (with 2 s, the abort was taken for silence at load 12).
export RTLAB_KVM_DEV=$tmp/kvm RTLAB_KVM_PROBE_TIMEOUT=9
export RTLAB_VM_DIR=$tmp/images
verdict=$XDG_STATE_HOME/rtlab/kvm-verdict
: > "$FAKE_QEMU_LOG"

echo "1..21"

# ---- no image yet: the test guest ran, but that proves nothing ----
"$RTLAB" doctor >"$tmp/d.txt" 2>"$tmp/d.err"
grep -q '^  --  KVM: not proven; a Linux guest has not been tried (make vm)' "$tmp/d.txt" &&
	! grep -q 'KVM works' "$tmp/d.txt"
ok $? "doctor without images: KVM not proven, a Linux guest has not been tried (make vm)"
"$RTLAB" doctor --json >"$tmp/d.json" 2>/dev/null
[ "$(jq -r '.kvm | [.verdict, .test_guest, .stand_in, .linux_guest.tried] | join(" ")' \
	"$tmp/d.json")" = "not-proven works true false" ]
ok $? "doctor --json: verdict not-proven, test_guest works, linux_guest.tried false"
[ "$(jq -r '.labs[] | select(.name == "hypervisor") | .missing[] | select(.need == "kvm") |
	.what' "$tmp/d.json")" = "KVM not proven: a Linux guest has not been tried (make vm): no VM image in $tmp/images" ]
ok $? "the hypervisor lab lists KVM as missing: not proven"
[ ! -e "$verdict" ] && [ ! -s "$FAKE_QEMU_LOG" ]
ok $? "nothing booted, nothing kept"

# ---- dummy images: the probe boots under each CPU model and all fail ----
mkdir -p "$tmp/images/lab"
echo dummy > "$tmp/images/lab/vmlinuz"
echo dummy > "$tmp/images/lab/initrd.img"
start=$(date +%s%N)
"$RTLAB" doctor >"$tmp/d2.txt" 2>"$tmp/d2.err"
took=$(( ($(date +%s%N) - start) / 1000000 ))
grep -q '^  !!  KVM cannot boot Linux here, so guests run under TCG: -cpu host: QEMU exited (status 134) before the VM was ready, the console stayed silent, QEMU said: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69' "$tmp/d2.txt"
ok $? "doctor: KVM cannot boot Linux, with QEMU's MSR abort quoted (${took} ms)"
grep -q -- '; -cpu max: the console stayed silent for 1.5 s (kvm)' "$tmp/d2.txt"
ok $? "doctor: the silent models are named too"
grep -q 'KVM: booting the lab image under KVM' "$tmp/d2.err"
ok $? "doctor says on stderr that it boots a guest, and for how long at most"
[ "$(cut -d' ' -f1,2 "$FAKE_QEMU_LOG" | tr '\n' '|')" = "accel=kvm cpu=host|accel=kvm cpu=host,-arch-capabilities,-pdcm,pmu=off,-vmx,-svm,-waitpkg|accel=kvm cpu=max|" ]
ok $? "the CPU models were tried in order: host, host without the MSR features, max"
[ "$took" -lt 20000 ] && grep -q '^state=failed$' "$verdict" &&
	grep -qx "boot_id=$(cat /proc/sys/kernel/random/boot_id)" "$verdict"
ok $? "one cap on the whole probe (9 s here); the verdict is kept for this boot"
# The kept file, read as the object its lines make, is what its published schema says.
jq -Rn '[inputs] as $l | {schema: $l[0]} + ($l[1:] | map(capture("^(?<k>[^=]+)=(?<v>.*)$") |
	{(.k): (if .k == "boot_ms" then (.v | tonumber) else .v end)}) | add)' \
	<"$verdict" >"$tmp/verdict.json" &&
	"$SRCDIR/scripts/validate-json" "$SRCDIR/doc/schema" "$tmp/verdict.json" >"$tmp/vv" 2>&1 &&
	sed 's/"failed"/"maybe"/' "$tmp/verdict.json" >"$tmp/verdict-bad.json" &&
	"$SRCDIR/scripts/validate-json" --invalid "$SRCDIR/doc/schema" "$tmp/verdict-bad.json" \
		>>"$tmp/vv" 2>&1
ok $? "the kept verdict validates against rtlab.kvm-verdict/1; state=maybe does not ($(tr '\n' ' ' <"$tmp/vv"))"

: > "$FAKE_QEMU_LOG"
"$RTLAB" doctor --json >"$tmp/d3.json" 2>"$tmp/d3.err"
[ "$(jq -r '.kvm | [.verdict, .linux_guest.cached, .linux_guest.kernel] | join(" ")' \
	"$tmp/d3.json")" = "boot-failed true lab" ] && [ ! -s "$FAKE_QEMU_LOG" ] &&
	! grep -q 'booting' "$tmp/d3.err"
ok $? "the second doctor reads the kept verdict (cached) and starts no QEMU"

# ---- vm exec: TCG with a one-line notice; --accel kvm refused ----
: > "$FAKE_QEMU_LOG"
"$RTLAB" vm exec --kernel lab -- true >"$tmp/e.out" 2>"$tmp/e.err"
grep -q '^rtlab vm: notice: KVM cannot boot a Linux guest here (-cpu host: QEMU exited (status 134).*failed to set MSR 0x10a.*), so the VM runs under TCG emulation' "$tmp/e.err" &&
	[ "$(grep -c 'notice:' "$tmp/e.err")" = 1 ]
ok $? "vm exec (auto): one notice line naming why KVM is not used"
[ "$(cat "$FAKE_QEMU_LOG")" = "accel=tcg cpu=max icount=yes" ] &&
	grep -q 'runs under TCG emulation in virtual time (one vCPU)' "$tmp/e.err"
ok $? "vm exec (auto): QEMU started once, under TCG, in virtual time, and it says so"
: > "$FAKE_QEMU_LOG"
"$RTLAB" vm exec --kernel lab --time real -- true >/dev/null 2>&1
[ "$(cat "$FAKE_QEMU_LOG")" = "accel=tcg cpu=max icount=no" ]
ok $? "vm exec --time real: under TCG on the host's clock"
st=0
for a in "--time virtual --accel kvm" "--time virtual --smp 2" "--time wall"; do
	# shellcheck disable=SC2086
	"$RTLAB" vm exec --kernel lab $a -- true >/dev/null 2>"$tmp/t.err"
	[ $? = 2 ] || st=1
done
grep -q -- '--time must be auto, real or virtual' "$tmp/t.err" && [ $st = 0 ]
ok $? "vm exec: --time virtual with KVM or two vCPUs, or an unknown --time, exit 2"

: > "$FAKE_QEMU_LOG"
"$RTLAB" vm exec --kernel lab --accel kvm -- true >"$tmp/k.out" 2>"$tmp/k.err"
st=$?
[ $st = 1 ] && grep -q '^rtlab vm: KVM cannot boot a Linux guest here: -cpu host: QEMU exited (status 134)' "$tmp/k.err" &&
	[ ! -s "$FAKE_QEMU_LOG" ]
ok $? "vm exec --accel kvm: exit 1 with the reason, no QEMU started (exit $st)"

# ---- a kept "boots with -cpu host" that no longer holds: fallback at run time ----
{
	echo rtlab.kvm-verdict/1
	echo "boot_id=$(cat /proc/sys/kernel/random/boot_id)"
	echo "qemu=$(qemu-system-x86_64 --version | head -n1)"
	echo state=booted
	echo kernel=lab
	echo cpu=host
} > "$verdict"
: > "$FAKE_QEMU_LOG"
"$RTLAB" vm exec --kernel lab -- true >"$tmp/r.out" 2>"$tmp/r.err"
grep -q '^rtlab vm: notice: KVM did not boot the lab kernel with -cpu host (QEMU exited (status 134) before the VM was ready.*failed to set MSR 0x10a.*); starting it again under TCG emulation' "$tmp/r.err" &&
	[ "$(tr '\n' '|' <"$FAKE_QEMU_LOG")" = "accel=kvm cpu=host icount=no|accel=tcg cpu=max icount=yes|" ] &&
	grep -q 'starting it again under TCG emulation in virtual time' "$tmp/r.err"
ok $? "vm exec (auto): a KVM boot that aborts is started again under TCG in virtual time, with a notice"
"$RTLAB" vm exec --kernel lab --accel kvm -- true >/dev/null 2>"$tmp/r2.err"
st=$?
[ $st = 1 ] && ! grep -q 'notice:' "$tmp/r2.err" && grep -q 'QEMU exited (status 134)' "$tmp/r2.err"
ok $? "vm exec --accel kvm: the same abort fails with QEMU's reason, no fallback (exit $st)"

# ---- no KVM device at all ----
RTLAB_KVM_DEV=$tmp/none "$RTLAB" vm exec --kernel lab -- true >/dev/null 2>"$tmp/a.err"
grep -q '^rtlab vm: notice: KVM does not work here (absent: .* does not exist), so the VM runs under TCG' "$tmp/a.err"
ok $? "vm exec without a KVM device: TCG with a notice"

# ---- --append is checked before anything starts ----
: > "$FAKE_QEMU_LOG"
bad=0
for a in "$(printf 'isolcpus=1\nnohz_full=1')" 'rtlab.shell=1' 'console=tty0' 'x="y"' \
	"$(printf '%600s' | tr ' ' x)"; do
	"$RTLAB" vm exec --kernel lab --append "$a" -- true >/dev/null 2>"$tmp/ap.err"
	st=$?
	[ $st = 2 ] && grep -q -- '--append' "$tmp/ap.err" || { bad=1; echo "# --append '$a': exit $st"; }
done
[ $bad = 0 ] && [ ! -s "$FAKE_QEMU_LOG" ] && "$RTLAB" vm --help | grep -q -- '--append PARAMS'
ok $? "vm exec --append: a newline, rtlab's own words, a quote or 600 bytes exit 2; --help has it"

left=$(find "$TMPDIR" -mindepth 1 | wc -l)
[ "$left" -eq 0 ]
ok $? "no temporary files are left behind ($left)"
