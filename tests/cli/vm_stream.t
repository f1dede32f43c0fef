#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vm_stream.t: `rtlab vm stream`, the guest's side of the hypervisor lab's
# live part, on the host with --out: the probe's results as frames read back
# by an independent decoder (Python: magic, version, type, length, sequence,
# CRC-32 with zlib): HELLO first, a SUMMARY per second, the histogram, BYE
# last, every CRC right, no gap in the numbers, the samples adding up. Then
# the refusals: no virtio-serial port outside the VM, a FIFO priority of 0,
# an unknown option, --stream on another verb than exec. (The stream from a
# real guest to the host: tests/vm/vm.t.)
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"

run vm stream --out "$tmp/s.bin" --policy other --duration 2 --period 1000
check "a 2 s stream to a file exits 0" [ "$rc" -eq 0 ]
check "and says how many samples and frames" grep -q 'stream: [0-9]* samples in 2 seconds' "$tmp/err"
python3 "$SRCDIR/tests/tools/hvstream-decode" "$tmp/s.bin" >"$tmp/frames"
sed 's/^/# /' "$tmp/frames"
check "every frame has its magic, version 1, a right CRC and the next number" \
	grep -qx 'bad 0 rest 0' "$tmp/frames"
check "HELLO first, a SUMMARY for each of the 2 seconds, HIST, BYE last" \
	grep -qE '^types 12{2,3}3+4$' "$tmp/frames"
read -r _ s _ b _ r < <(grep '^samples' "$tmp/frames")
check "the summaries' samples are BYE's total (about 2000), which says done" \
	bash -c "[ '$s' = '$b' ] && [ '$s' -ge 1500 ] && [ '$r' = 0 ]"

run vm stream --duration 1
check "outside the VM (no port rtlab.probe): exit 1, saying where it runs" \
	bash -c "[ $rc -eq 1 ] && grep -q 'no virtio-serial port named rtlab.probe' '$tmp/err'"
run vm stream --policy fifo --prio 0 --out "$tmp/x"
check "--policy fifo --prio 0 is a usage error" [ "$rc" -eq 2 ]
run vm stream --bogus 1
check "an unknown option is a usage error" [ "$rc" -eq 2 ]
run vm pull --stream "$tmp/y"
check "--stream belongs to vm exec (vm pull: usage error)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'is for .vm exec' '$tmp/err'"

tap_done
