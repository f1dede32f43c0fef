#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The FCSE lab's live part without a VM (issue 34 item 3; tests/vm/fcse_live.t boots the
# real kernel):
#   - without qemu-system-arm, or without the fcse image, --live fails before booting,
#     naming what is missing and how to get it; the simulator stays the default;
#   - rtlab-fcse-work (vm/arm/fcse-work.c, built for the host) runs each workload's processes
#     against a fixture /proc/fcse: as many as the model forks, its keys in the documented
#     order, what the fixture lacks named;
#   - through a stand-in qemu-system-arm (lib/fake-qemu-arm) that prints what rtlab-fcse-work
#     printed on the FCSE kernel (tests/data/fcse-live/: flush on 0001, the rest on 0003), the parser's
#     figures reach the document beside the model's: flush and guaranteed agree, the
#     refusals and the fork limit are there, --mode off is flush;
#   - output cut off or reporting an error fails the run, saying so.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"

work=$TOOLS/rtlab-fcse-work
data=$SRCDIR/tests/data/fcse-live
mkdir -p "$tmp/nobin" "$tmp/bin" "$tmp/img/fcse" "$tmp/fx"
ln -s "$SRCDIR/tests/cli/lib/fake-qemu-arm" "$tmp/bin/qemu-system-arm"
for f in vmlinuz initrd.img versatilepb.dtb; do : >"$tmp/img/fcse/$f"; done
echo versatilepb >"$tmp/img/fcse/machine"
cp "$data"/*.out "$tmp/fx/"
export FAKE_FCSE_OUT=$tmp/fx TMPDIR=$tmp

# ---- what is missing ----
PATH=$tmp/nobin RTLAB_VM_DIR=$tmp/img run lab run fcse --live --mode flush --json "$tmp/none.json"
check "no qemu-system-arm: --live fails (exit $rc), no crash" [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ]
check "... naming qemu-system-arm and how to install it" \
	grep -q "qemu-system-arm, which is not installed or not in PATH (Debian: apt-get install qemu-system-arm)" "$tmp/err"
check "... and writing no document" [ ! -e "$tmp/none.json" ]
PATH=$tmp/bin:$PATH RTLAB_VM_DIR=$tmp/noimg run lab run fcse --live --mode flush
check "no fcse image: --live fails (exit $rc), naming the file and make vm-arm" \
	[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && grep -q "$tmp/noimg/fcse/vmlinuz is missing: build it with \`make vm-arm\`" "$tmp/err"
PATH=$tmp/nobin:$PATH run lab run fcse --mode flush --ticks 20 --json "$tmp/sim.json"
check "without --live the lab is the simulator (exit $rc, tier $(jq -r .tier "$tmp/sim.json" 2>/dev/null))" \
	[ "$rc" -eq 0 ] && [ "$(jq -r .tier "$tmp/sim.json")" = simulation ]

# ---- rtlab-fcse-work on the host, against a fixture /proc/fcse ----
printf 'mode flush\npid_register 0\npid_mm 0\nswitches 5\nflushes 5\nflushes_avoided 0\n' >"$tmp/fcse"
for w in mixed small thrash many; do
	"$work" --proc "$tmp/fcse" --switches 20 "$w" >"$tmp/w-$w.out" 2>"$tmp/err"
	r=$?
	"$RTLAB" lab run fcse --workload "$w" --mode flush --ticks 20 --json "$tmp/m-$w.json" \
		>/dev/null 2>&1
	np=$(sed -n 's/^procs=//p' "$tmp/w-$w.out")
	mp=$(jq -r '.extra.scenarios[0].processes_count' "$tmp/m-$w.json")
	check "rtlab-fcse-work $w: status ok, $np processes as the model's $mp (exit $r)" \
		[ "$r" -eq 0 ] && grep -qx status=ok "$tmp/w-$w.out" && [ "$np" = "$mp" ]
done
keys=$(sed 's/=.*//; s/^proc\.[0-9]*\..*/proc.I.FIELD/; s/^\(base\|before\|after\|delta\)\..*/\1.KEY/' \
	"$tmp/w-small.out" | uniq | tr '\n' ' ')
check "its keys in the documented order ($keys)" [ "$keys" = "version command proc_path \
fcse_mode fcse_missing sched base.KEY workload procs proc.I.FIELD ring warmup switches before.KEY \
after.KEY delta.KEY status " ]
check "it names the keys the fixture lacks" \
	grep -qx "fcse_missing=pids_total,pids_in_use,forks_refused,mappings_refused,relocations" \
	"$tmp/w-small.out"
"$work" --proc "$tmp/fcse" --max 3 limit >"$tmp/limit.out" 2>&1
check "its fork limit stops at --max when no fork fails" \
	grep -qx limit.forked=3 "$tmp/limit.out" && grep -qx limit.errno=0 "$tmp/limit.out"
"$work" --switches 0 small >/dev/null 2>&1
check "a bad option is a usage error (exit $?)" [ $? -eq 2 ]

# ---- the parser, through the stand-in QEMU ----
live() { PATH=$tmp/bin:$PATH RTLAB_VM_DIR=$tmp/img run lab run fcse --live "$@"; }
sc() { jq -r --arg m "$2" ".extra.scenarios[] | select(.mode == \$m) | .$3" "$1"; }
live --mode off,guaranteed --json "$tmp/live.json"
d=$tmp/live.json
check "--live --mode off,guaranteed through the stand-in QEMU (exit $rc)" [ "$rc" -eq 0 ]
check "one document, tier vm, the guest's release and machine" \
	[ "$(jq -r '.tier + " " + .env.kernel_release + " " + .env.machine' "$d")" = \
	  "vm 6.12.118-rtlab-fcse armv5tejl" ]
check "off is flush: scenarios live-mixed-flush and live-mixed-guaranteed" \
	[ "$(jq -r '[.extra.scenarios[].name] | join(" ")' "$d")" = \
	  "live-mixed-flush live-mixed-guaranteed" ]
check "flush: the kernel's 1000 switches and flushes, agreeing with the model's" \
	[ "$(sc "$d" flush kernel_switches_count) $(sc "$d" flush kernel_flushes_count) $(sc "$d" flush flushes_count) $(sc "$d" flush flushes_agree)" = "1000 1000 1000 true" ]
check "flush: the 0001 kernel's missing keys are named, its absent counters left out" \
	[ "$(sc "$d" flush kernel_lacks)" = pids_total,pids_in_use,forks_refused,mappings_refused,relocations ] &&
	[ "$(sc "$d" flush kernel_pids_in_use_count)" = null ]
check "guaranteed: 1000 avoided, 0 flushes, as the model" \
	[ "$(sc "$d" guaranteed kernel_flushes_avoided_count) $(sc "$d" guaranteed kernel_flushes_count) $(sc "$d" guaranteed model_flushes_avoided_count) $(sc "$d" guaranteed flushes_agree)" = "1000 0 1000 true" ]
check "guaranteed: the mapping above 32 MB refused in both, mappings_refused +1" \
	[ "$(sc "$d" guaranteed kernel_refused_mmap_count) $(sc "$d" guaranteed refused_mmap_count) $(sc "$d" guaranteed kernel_mappings_refused_count)" = "1 1 1" ]
check "guaranteed: the kernel's PIDs beside the model's (-1 refused)" \
	[ "$(jq -c '.extra.scenarios[1] | [.kernel_pids, .model_pids]' "$d")" = \
	  "[[2,5,6,7,8,-1],[1,2,3,4,5,-1]]" ]
check "guaranteed: the fork limit: 93 forked, EAGAIN, 95 PIDs in use, 2 before (3 in the ring)" \
	[ "$(sc "$d" guaranteed kernel_limit_forked_count) $(sc "$d" guaranteed kernel_limit_errno) $(sc "$d" guaranteed kernel_limit_pids_in_use_count) $(sc "$d" guaranteed kernel_limit_base_pids_in_use_count) $(sc "$d" guaranteed kernel_base_pids_in_use_count)" = "93 EAGAIN 95 2 3" ]
check "the summary has each mode's kernel and model flushes" \
	[ "$(jq -r '.summary | "\(.flush_kernel_flushes_count) \(.flush_model_flushes_count) \(.guaranteed_kernel_flushes_avoided_count)"' "$d")" = "1000 1000 1000" ]
check "the screen: the live table and that the times are the model's" \
	grep -q "^LIVE: the FCSE kernel's counts beside the model's" "$tmp/out" &&
	grep -q "^  guaranteed  *kernel  *1000  *0  *1000  *0  *1  *yes$" "$tmp/out" &&
	grep -q "TIMES ARE THE MODEL'S: QEMU models no cache" "$tmp/out"
"$SRCDIR/scripts/validate-json" "$SRCDIR/doc/schema" "$d" >"$tmp/err" 2>&1
check "the document validates against the published schema" [ $? -eq 0 ]

# ---- broken output ----
head -n 40 "$data/flush-mixed.out" >"$tmp/fx/flush-mixed.out"
live --mode flush
check "output cut off: the run fails, saying so (exit $rc)" \
	[ "$rc" -ne 0 ] && grep -q "rtlab-fcse-work's output was cut off" "$tmp/err"
sed 's/^status=ok$/status=error\nerror=timed out in the ring/' "$data/flush-mixed.out" \
	>"$tmp/fx/flush-mixed.out"
live --mode flush
check "an error reported by rtlab-fcse-work fails the run with it (exit $rc)" \
	[ "$rc" -ne 0 ] && grep -q "rtlab-fcse-work failed in fcse=flush: timed out in the ring" "$tmp/err"
sed 's/^delta.flushes=1000$/delta.flushes=lots/' "$data/flush-mixed.out" >"$tmp/fx/flush-mixed.out"
live --mode flush
check "a value that is not a number fails the run, naming the line (exit $rc)" \
	[ "$rc" -ne 0 ] && grep -q "line [0-9]* is not what it writes: 'delta.flushes=lots'" "$tmp/err"
tap_done
