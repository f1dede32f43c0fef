#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# exercise_latency.t (vm-test): the latency exercise's memory checks, which
# need a grader that can lend RLIMIT_MEMLOCK (root with CAP_SYS_RESOURCE) and
# are skipped on hosts that cannot, run where they can: in the classroom VM,
# as root. On the host the reference and the wrong solutions that lose them
# (tests/data/exercise-wrong/latency: current-only, prefault-dropped) are
# built for the guest (`rtlab grade --build-only`); in the lab kernel the
# guest's rtlab grades them from the prebuilt binaries with the guest kernel's
# VmLck: the reference passes both checks, each wrong one fails exactly its
# own, and the checks on the simulated clock pass under emulation too.
# Needs: RTLAB, SRCDIR, RTLAB_VM_DIR (`make vm`), jq, patch, qemu-system-x86_64, mke2fs.
set -u

: "${RTLAB:?set RTLAB to the rtlab binary}"
: "${SRCDIR:?set SRCDIR to the source tree}"
: "${RTLAB_VM_DIR:?set RTLAB_VM_DIR to the image directory (make vm)}"

for t in jq patch qemu-system-x86_64 mke2fs; do
	command -v "$t" >/dev/null || { echo "1..0 # skip $t is not installed (make deps)"; exit 0; }
done
[ -r "$RTLAB_VM_DIR/lab/vmlinuz" ] || { echo "1..0 # skip no lab image in $RTLAB_VM_DIR (make vm)"; exit 0; }

. "$SRCDIR/tests/cli/lib/tap.bash"
export TMPDIR=$tmp/qemu RTLAB_DATADIR=$SRCDIR
mkdir -p "$TMPDIR" "$tmp/disk/share"
lab=$SRCDIR/labs/latency

# ---- on the host: the reference and two wrong solutions, built for the guest --------------
# name: the checks it must fail (of memory-locked and stack-prefault)
declare -A loses=([reference]="" [current-only]="memory-locked" [prefault-dropped]="stack-prefault")
for name in reference current-only prefault-dropped; do
	cp -R "$lab/reference" "$tmp/$name"
	if [ "$name" != reference ]; then
		(cd "$tmp/$name" && patch -s -p1 <"$SRCDIR/tests/data/exercise-wrong/latency/$name.patch")
	fi
	run grade --exercise "$lab" --work "$tmp/$name" --build-only "$tmp/disk/share/$name"
	check "host: $name built for the guest (--build-only)" [ "$rc" -eq 0 ]
done

# ---- in the guest: grade them as root ------------------------------------------------------
img=$tmp/state.img
mke2fs -q -t ext2 -L rtlab-state -d "$tmp/disk" "$img" 128M
script=
for name in reference current-only prefault-dropped; do
	script="$script echo BEGIN $name; rtlab grade --exercise /state/share/$name --no-quiz --json; echo END;"
done
start=$(date +%s)
"$RTLAB" vm exec --kernel lab --accel tcg --timeout 600 --state "$img" -- "$script" \
	>"$tmp/guest.out" 2>"$tmp/err"
rc=$?
echo "# lab kernel: booted and graded 3 solutions in $(($(date +%s) - start)) s"
check "guest (lab kernel): rtlab grade ran (vm exec exit 0)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/err" | tail -20

for name in reference current-only prefault-dropped; do
	sed -n "/^BEGIN $name\$/,/^END\$/p" "$tmp/guest.out" | sed '1d;$d' >"$tmp/$name.json"
	got=$(jq -r '[.checks[] | select(.status != "pass") | .id] | join(" ")' "$tmp/$name.json" \
		2>/dev/null)
	[ -s "$tmp/$name.json" ] && [ "$got" = "${loses[$name]}" ]
	check "guest: $name fails exactly: ${loses[$name]:-nothing} (as root, nothing skipped)" \
		[ $? -eq 0 ]
	jq -r '.checks[] | select(.status != "pass") | "# \(.id): \(.status) \(.reason)"' \
		"$tmp/$name.json" 2>/dev/null
done

tap_done
