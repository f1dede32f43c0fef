#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fcse_arm.t: the FCSE translation of the simulator (sim_fcse_mva(), through
# build/fcse-trace mva) against an emulated ARM926EJ-S: QEMU's versatilepb
# runs tests/arm/fcse_mva.c (build/arm/fcse_mva.elf) bare metal, which
# stores through low virtual addresses under several FCSE PIDs and reports
# where each store landed. Every (PID, VA) pair must agree, VA = 32 MB - 1,
# 32 MB and PID 0 among them. Skipped without qemu-system-arm or the
# cross-built program (make deps installs both; CI has them).
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"

build=$(dirname "$RTLAB")
elf=$build/arm/fcse_mva.elf
tool=$build/fcse-trace

if ! command -v qemu-system-arm >/dev/null 2>&1 || [ ! -f "$elf" ]; then
	skip "no qemu-system-arm or $elf (make deps, then make)"
	tap_done
fi

# Bounded: the program prints 26 lines and exits through semihosting in well under a
# second of emulation; 120 s is for a loaded machine.
QEMU_AUDIO_DRV=none timeout 120 qemu-system-arm -M versatilepb -cpu arm926 -nographic \
	-monitor none -serial stdio -semihosting-config enable=on,target=native \
	-kernel "$elf" >"$tmp/uart" 2>"$tmp/err" </dev/null
rc=$?
check "the program ran and QEMU exited through semihosting" [ "$rc" -eq 0 ]
check "it reached its end" grep -qx 'fcse-check done' "$tmp/uart"
check "the PID register reads 0 after reset" grep -qx 'fcse-check start pid-register=0x00000000' "$tmp/uart"

grep '^pid=' "$tmp/uart" | tr -d '\r' >"$tmp/qemu"
check "25 (PID, VA) pairs were checked" [ "$(wc -l <"$tmp/qemu")" -eq 25 ]
check "each store landed in exactly one place" bash -c "! grep -qE 'mva=(none|both)' '$tmp/qemu'"

# The same pairs through the simulator.
args=$(sed -E 's/^pid=([0-9]+) va=0x([0-9a-f]+) .*/\1 \2/' "$tmp/qemu" | tr '\n' ' ')
# shellcheck disable=SC2086
"$tool" mva $args >"$tmp/sim" 2>"$tmp/err"
check "the simulator translated them" [ "$(wc -l <"$tmp/sim")" -eq 25 ]
if diff "$tmp/qemu" "$tmp/sim" >"$tmp/diff"; then
	ok "QEMU and the simulator agree on every pair"
else
	not_ok "QEMU and the simulator agree on every pair" "$(tr '\n' ' ' <"$tmp/diff")"
fi
for want in 'pid=5 va=0x01ffffff mva=0x0bffffff' 'pid=5 va=0x02000000 mva=0x02000000' \
	'pid=0 va=0x01ffffff mva=0x01ffffff' 'pid=127 va=0x01ffffff mva=0xffffffff'; do
	check "QEMU: $want" grep -qx "$want" "$tmp/qemu"
done

tap_done
