#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ARM classroom image (`make vm-arm`, `make vm-test-arm`): the fcse kernel (our
# linux-source-6.12 for QEMU's versatilepb, an ARM926EJ-S) booted headless under TCG by the
# same runner as the x86 VM (`rtlab vm exec --kernel fcse`):
#   - it boots to ready within 15 s of the host's clock (the boot time is printed) and
#     runs the static ARM probe rtlab-probe, which reports the kernel's release (-rtlab-fcse),
#     its machine (armv5tejl), the CPU (ARM926EJ-S) and its timings;
#   - the board is the device tree's (ARM Versatile PB) and every line of
#     kernel-patches/arm-fcse/rtlab-fcse.config is in /proc/config.gz;
#   - the guest runs in virtual time (the runner's word on the kernel command line);
#   - the command's exit status comes back (`false` gives 1);
#   - the state disk (SCSI on the board's PCI bus) keeps what the guest wrote across a
#     restart;
#   - the channel on the second PL011 (ttyAMA1): what the guest writes there reaches the
#     host's --stream file;
#   - what the board has no virtio for (--share) is refused before booting;
#   - the FCSE patches (kernel-patches/arm-fcse/): /proc/fcse says mode flush without a
#     boot parameter, guaranteed and best-effort with fcse=..., keeps flush for an unknown
#     mode (with a warning), and after the probe's pipe round trips counts switches, every
#     one a flush in flush mode (every space at PID 0), with c13 and the reader's PID both
#     0; it shows all eleven counters, and in guaranteed mode the reader has a PID of its
#     own, in c13. (The rules of the modes: tests/vm/fcse_live.t.)
# Skips, with the reason, where qemu-system-arm or the fcse image (make vm-arm) is missing.
set -u
. "$(dirname "$0")/lib.bash"
vm_needs qemu-system-arm -- fcse

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp/qemu
mkdir -p "$TMPDIR"

n=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
# vmexec NAME [OPTIONS] -- COMMAND: stdout in $tmp/NAME.out, stderr in .err, status in .rc
vmexec() {
	local name=$1
	shift
	"$RTLAB" vm exec --kernel fcse "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
val() { sed -n "s/^$2=//p" "$tmp/$1.out" | head -n1; }

echo "1..17"

# ---- boot, the probe, the board ----
vmexec probe -- 'rtlab-probe 2000 && echo model=$(tr -d \\000 < /proc/device-tree/model) && sed s/^/cmdline=/ /proc/cmdline && zcat /proc/config.gz | sed s/^/config:/ && sed s/^/proc-fcse:/ /proc/fcse'
ok "$(rc probe)" "fcse: boots under TCG and runs rtlab-probe"
ms=$(sed -n 's/.* ready after \([0-9]*\) ms.*/\1/p' "$tmp/probe.err")
echo "# boot-to-ready fcse: ${ms:-?} ms (TCG, host clock)"
[ -n "$ms" ] && [ "$ms" -le 15000 ]
ok $? "fcse: boot to ready within 15 s (${ms:-?} ms)"
sed -n 's/^\(release\|machine\|cpu\|fcse\|clock_res_ns\|getppid_ns\|pipe_roundtrip_ns\|uptime_s\|model\)=/# &/p' "$tmp/probe.out"
case "$(val probe release)" in *-rtlab-fcse) true ;; *) false ;; esac
ok $? "fcse: the kernel is ours ($(val probe release))"
[ "$(val probe machine)" = armv5tejl ] && case "$(val probe cpu)" in ARM926EJ-S*) true ;; *) false ;; esac
ok $? "fcse: an ARMv5 ARM926EJ-S ($(val probe machine), $(val probe cpu))"
[ "$(val probe model)" = "ARM Versatile PB" ]
ok $? "fcse: the board is the device tree's ($(val probe model))"
# As build-lab.sh reads it: CONFIG_X=V must be there, "# CONFIG_X is not set" means no
# CONFIG_X= line (a symbol whose dependencies are off is not even listed).
missing=$(grep -E '^(CONFIG_|# CONFIG_)' "$SRCDIR/kernel-patches/arm-fcse/rtlab-fcse.config" |
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*) grep -qxF -- "config:$line" "$tmp/probe.out" || echo "$line" ;;
		*) sym=${line#\# }; sym=${sym%% *}
		   ! grep -q "^config:$sym=" "$tmp/probe.out" || echo "$line" ;;
		esac
	done)
[ -z "$missing" ]
ok $? "fcse: every line of rtlab-fcse.config is in /proc/config.gz${missing:+ (missing: $missing)}"
grep -q '^cmdline=.*rtlab\.time=virtual' "$tmp/probe.out" && grep -q 'virtual time' "$tmp/probe.err"
ok $? "fcse: the guest runs in virtual time"

# ---- exit status ----
vmexec false -- false
ok "$([ "$(rc false)" = 1 ] && echo 0 || echo 1)" "fcse: a failing command gives exit status 1 ($(rc false))"

# ---- the state disk on SCSI, across a restart ----
img=$tmp/state.img
vmexec st1 --state "$img" -- 'set -- $(grep -w /state /proc/mounts) && echo $1 && echo kept > /state/arm.txt'
vmexec st2 --state "$img" -- 'cat /state/arm.txt'
[ "$(rc st1)" = 0 ] && grep -q '^/dev/sda' "$tmp/st1.out" && [ "$(cat "$tmp/st2.out")" = kept ]
ok $? "fcse: the SCSI state disk keeps a file across a restart ($(head -n1 "$tmp/st1.out"))"

# ---- the channel on ttyAMA1 ----
vmexec chan --stream "$tmp/chan.bin" -- 'stty -F /dev/ttyAMA1 raw -echo && printf rtlab-arm-channel > /dev/ttyAMA1 && sleep 1'
[ "$(rc chan)" = 0 ] && grep -q rtlab-arm-channel "$tmp/chan.bin"
ok $? "fcse: the guest's ttyAMA1 reaches the host's --stream file"

# ---- what the board cannot have ----
mkdir -p "$tmp/share"
"$RTLAB" vm exec --kernel fcse --share "$tmp/share" -- true >/dev/null 2>"$tmp/share.err"
r=$?
[ $r = 1 ] && grep -q 'versatilepb machine has no virtio for a shared directory' "$tmp/share.err"
ok $? "fcse: --share is refused before booting (exit $r: $(tail -n1 "$tmp/share.err"))"

# ---- the FCSE patch: /proc/fcse, the mode from the command line ----
pf() { sed -n "s/^proc-fcse:$2 //p" "$tmp/$1.out"; }
sed -n 's/^proc-fcse:/# \/proc\/fcse: /p' "$tmp/probe.out"
[ "$(pf probe mode)" = flush ] && [ "$(pf probe pid_register)" = 0 ] && [ "$(pf probe pid_mm)" = 0 ]
ok $? "fcse: /proc/fcse: mode flush by default, c13 and the reader's PID 0"
sw=$(pf probe switches)
[ -n "$sw" ] && [ "$sw" -ge 4000 ] && [ "$(pf probe flushes)" = "$sw" ] &&
	[ "$(pf probe flushes_avoided)" = 0 ]
ok $? "fcse: 2000 pipe round trips: at least 4000 switches, each a flush ($sw, $(pf probe flushes))"
for m in guaranteed best-effort; do
	vmexec "mode-$m" --append "fcse=$m" -- 'sed s/^/proc-fcse:/ /proc/fcse'
	[ "$(rc "mode-$m")" = 0 ] && [ "$(pf "mode-$m" mode)" = "$m" ]
	ok $? "fcse: fcse=$m on the kernel command line: /proc/fcse says $(pf "mode-$m" mode)"
done
keys=$(sed -n 's/^proc-fcse:\([a-z_]*\) .*/\1/p' "$tmp/mode-guaranteed.out" | tr '\n' ' ')
pid=$(pf mode-guaranteed pid_mm)
[ "$keys" = "mode pid_register pid_mm pids_total pids_in_use switches flushes flushes_avoided forks_refused mappings_refused relocations " ] &&
	[ "$(pf mode-guaranteed pids_total)" = 95 ] && [ -n "$pid" ] && [ "$pid" -ge 1 ] &&
	[ "$(pf mode-guaranteed pid_register)" = "$pid" ]
ok $? "fcse: guaranteed: all eleven counters, 95 PIDs, the reader at PID $pid, in c13 ($keys)"
vmexec mode-bad --append fcse=fast -- 'sed s/^/proc-fcse:/ /proc/fcse; dmesg | grep fcse:'
[ "$(pf mode-bad mode)" = flush ] && grep -q "unknown mode 'fast'" "$tmp/mode-bad.out"
ok $? "fcse: an unknown mode keeps flush, with a warning ($(grep -o "fcse: unknown.*" "$tmp/mode-bad.out"))"
