#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CLI tests for `rtlab vm pull` and `--share` that need no boot (tests/vm/vm.t boots real
# guests): usage, "nothing to pull" without a state disk (text and rtlab.vm-pull/1), a
# state disk held by a running VM refused (a flock(1) holder stands in for the VM; dummy
# images, since the lock is checked before QEMU starts), and a --share that is not a
# directory refused before anything starts.
#
# Needs: RTLAB, SRCDIR, jq; flock (util-linux) for the lock case.
set -u

: "${RTLAB:?set RTLAB to the rtlab binary}"
: "${SRCDIR:?set SRCDIR to the source tree}"
. "$SRCDIR/tests/cli/lib/tap.bash"

if ! command -v jq >/dev/null; then
	echo "1..0 # skip jq is not installed (make deps)"
	exit 0
fi

run vm pull --share "$tmp"
a=$rc
run vm pull extra
b=$rc
run vm run --json
c=$rc
run vm pull --no-state
check "vm pull: --share, an argument, --no-state and vm run --json are usage errors ($a $b $c $rc)" \
	test "$a $b $c $rc" = "2 2 2 2"

run vm pull
check "vm pull without a state disk: nothing to pull, exit 0" \
	eval '[ $rc = 0 ] && grep -q "nothing to pull: no VM state disk at $XDG_STATE_HOME/rtlab/vm-state.img" "$tmp/err"'
run vm pull --json
check "vm pull --json without a state disk: rtlab.vm-pull/1 with nothing in it" \
	eval '[ $rc = 0 ] && [ "$(jq -r "[.schema, (.results | length), .progress.found] | join(\" \")" "$tmp/out")" = "rtlab.vm-pull/1 0 false" ]'

# Dummy images: the state disk's lock and the share are checked before QEMU starts.
mkdir -p "$tmp/images/lab"
echo kernel > "$tmp/images/lab/vmlinuz"
echo initrd > "$tmp/images/lab/initrd.img"
export RTLAB_VM_DIR=$tmp/images
if command -v flock >/dev/null; then
	img=$tmp/held.img
	truncate -s 1M "$img"
	# The holder is the sleep itself, with the locked descriptor: killing it frees the disk.
	# It waits for the lock (no -n): the probe below takes it for an instant, and a holder
	# that gave up then was the flake of a loaded machine (issue 29).
	(exec 9<"$img" && flock -w 60 9 && exec sleep 600) >/dev/null 2>&1 &
	holder=$!
	# Until it holds the lock, however long a loaded machine takes to start it (60 s at most).
	held=no
	for _ in $(seq 1 600); do
		if ! flock -n "$img" true; then held=yes; break; fi
		kill -0 "$holder" 2>/dev/null || break
		sleep 0.1
	done
	check "the stand-in VM holds the disk's lock" [ "$held" = yes ]
	run vm pull --accel tcg --state "$img"
	check "vm pull on a state disk a running VM holds: refused, exit 1" \
		eval '[ $rc = 1 ] && grep -q "is in use by a VM that still runs" "$tmp/err"'
	run vm exec --accel tcg --kernel lab --state "$img" -- true
	check "vm exec on that disk: refused the same way" \
		eval '[ $rc = 1 ] && grep -q "is in use by a VM that still runs" "$tmp/err"'
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
else
	skip "vm pull on a held state disk: flock (util-linux) is not installed"
	skip "vm exec on a held state disk: flock (util-linux) is not installed"
fi

echo x > "$tmp/file"
run vm exec --accel tcg --kernel lab --share "$tmp/file" -- true
check "vm exec --share FILE: not a directory, refused before QEMU starts" \
	eval '[ $rc = 1 ] && grep -q "cannot share $tmp/file: not a directory" "$tmp/err"'
run vm exec --accel tcg --kernel lab --share "$tmp/none" -- true
check "vm exec --share MISSING: refused with the reason" \
	eval '[ $rc = 1 ] && grep -q "cannot share $tmp/none: No such file or directory" "$tmp/err"'

tap_done
