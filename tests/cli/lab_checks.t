#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What `rtlab lab run` refuses before it measures: --cpus naming a CPU that is
# not online is a usage error (exit 2) that names the online CPUs; the ftrace
# lab without access to tracefs says that tracefs needs root, as `rtlab
# doctor` does. TAP output for prove. Needs RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"

# ---- --cpus against the online CPUs ----------------------------------------------
# The online CPUs, as the kernel lists them ("0-1").
usable=$(cat /sys/devices/system/cpu/online)
last=$(($(nproc) - 1))
beyond=$(($(nproc) + 3))

run lab run latency --cpus "$beyond" --duration 1s --json "$tmp/a.json"
check "--cpus $beyond on a $(nproc)-CPU host is a usage error (exit 2, got $rc)" [ "$rc" -eq 2 ]
check "naming the CPU and the online ones ($usable)" \
	grep -qF -- "--cpus: CPU $beyond is not online here (the online CPUs are $usable)" "$tmp/err"
check "and nothing was measured or written" \
	bash -c "! grep -q 'lab run: \[' '$tmp/err' && [ ! -e '$tmp/a.json' ]"

run lab run latency --cpus 0-1023 --duration 1s --json "$tmp/a.json"
check "--cpus 0-1023 is refused too (exit 2, got $rc)" [ "$rc" -eq 2 ]
check "listing what is not online" grep -qF -- "--cpus: CPUs $((last + 1))-1023 are not online here" "$tmp/err"

run lab run latency --cpus "$last" --scenario idle-other --duration 200ms --json "$tmp/ok.json"
check "--cpus $last (online) runs (exit 0, got $rc)" [ "$rc" -eq 0 ]

if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
	taskset -c 1 "$RTLAB" lab run latency --cpus 0 --scenario idle-other --duration 200ms \
		--json "$tmp/ts.json" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "an online CPU outside this process's affinity (taskset) is accepted (exit 0, got $rc)" \
		[ "$rc" -eq 0 ]
else
	skip "taskset: needs taskset and two CPUs"
fi

# ---- ftrace without access to tracefs ------------------------------------------------
if ! can_switch; then
	skip "ftrace as nobody: needs root (to switch) and setpriv"
elif ! tdir=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts) || [ -z "$tdir" ]; then
	skip "ftrace as nobody: tracefs is not mounted here"
elif setpriv --reuid=65534 --regid=65534 --clear-groups test -w "$tdir/instances" 2>/dev/null; then
	skip "ftrace as nobody: this tracefs is writable by nobody"
else
	as_nobody rtlab lab run ftrace --duration 1s --json "$tmp/nobody/ft.json" \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "ftrace as nobody exits 1" [ "$rc" -eq 1 ]
	check "saying that tracefs needs root, as the doctor does" \
		grep -qF "ftrace: tracefs needs root: " "$tmp/err"
	check "with the doctor's advice" \
		grep -qF "Run with sudo: tracefs is readable and writable only by root" "$tmp/err"
	check "before starting anything" bash -c "! grep -q 'starting the probe' '$tmp/err'"
fi

tap_done
