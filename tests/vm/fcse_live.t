#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The FCSE lab on the FCSE kernel (issue 34, items 3 and 4): `rtlab lab run fcse --live`
# boots the ARM image once per mode and runs rtlab-fcse-work (vm/arm/fcse-work.c) inside: the
# workload's processes, a token passed round them through pipes (one CPU, SCHED_FIFO) for a
# fixed number of switches after a warm-up round, then forks until one is refused. From the
# document, which holds /proc/fcse's counts beside the model's for the same ring:
#   - flush mode: the fixed schedule gives exactly the switches asked, every one a flush,
#     none avoided, as many as the model's;
#   - guaranteed mode: no flush, every switch avoided, as the model; the process mapping
#     above 32 MB gets ENOMEM (mappings_refused +1), as in the model; forking until refused
#     runs 95 address spaces (pids_in_use 95, of pids_total 95) and the next fork gets
#     EAGAIN; each ring member holds a PID of its own;
#   - guaranteed with 121 processes ("many"): the kernel refuses as many forks as the model
#     plus the address spaces the model does not count (init, the shell, the parent:
#     kernel_base_pids_in_use_count);
#   - best-effort: the model follows the patch series' rules (kernel-patches/arm-fcse/
#     README.md): the kernel's flushes and relocations equal the model's, with the mixed
#     workload (the process above 32 MB moved to PID 0, flushes around it and after the one
#     touching shared memory) and with 121 processes (PIDs shared past 95).
# The guaranteed checks need /proc/fcse's PID counters (patch 0002): on a kernel without
# them they are skipped, saying which keys it lacks. The whole file stays within 3 minutes.
# Skips, with the reason, where jq, qemu-system-arm or the fcse image (make vm-arm) is missing.
set -u
. "$(dirname "$0")/lib.bash"
vm_needs jq qemu-system-arm -- fcse

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp/qemu
mkdir -p "$TMPDIR"
start=$(date +%s)

n=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
skip() { n=$((n + 1)); echo "ok $n # skip $1"; }
# sc FILE MODE KEY: the scenario of MODE's KEY ("null" when absent)
sc() { jq -r --arg m "$2" ".extra.scenarios[] | select(.mode == \$m) | .$3" "$1"; }

echo "1..15"

"$RTLAB" lab run fcse --live --mode all --switches 1000 --json "$tmp/mixed.json" \
	>"$tmp/mixed.out" 2>"$tmp/mixed.err"
r=$?
ok $r "lab run fcse --live --mode all: three boots, one document (exit $r)"
[ $r = 0 ] || sed 's/^/# /' "$tmp/mixed.err"
sed -n '/^LIVE/,/^$/s/^/# /p' "$tmp/mixed.out"
m=$tmp/mixed.json
[ "$(jq -r .tier "$m")" = vm ] && case "$(jq -r .env.kernel_release "$m")" in
	*-rtlab-fcse) true ;; *) false ;; esac
ok $? "the document: tier vm, the FCSE kernel's release ($(jq -r '.tier + " " + .env.kernel_release' "$m"))"
grep -q "QEMU models no cache" "$tmp/mixed.out"
ok $? "the screen says the times are the model's"

# ---- flush ----
ks=$(sc "$m" flush kernel_switches_count) kf=$(sc "$m" flush kernel_flushes_count)
ka=$(sc "$m" flush kernel_flushes_avoided_count)
[ "$ks" = 1000 ] && [ "$(sc "$m" flush kernel_sched)" = fifo ]
ok $? "flush: 1000 passes of the token are 1000 switches between address spaces ($ks)"
[ "$kf" = "$ks" ] && [ "$ka" = 0 ]
ok $? "flush: every switch flushes (flushes $kf, avoided $ka)"
[ "$(sc "$m" flush flushes_agree)" = true ] && [ "$(sc "$m" flush flushes_count)" = "$kf" ]
ok $? "flush: the kernel's flushes equal the model's ($kf, model $(sc "$m" flush flushes_count))"

# ---- guaranteed ----
lacks=$(sc "$m" guaranteed kernel_lacks)
if [ "$lacks" != null ] && [ -n "$lacks" ]; then
	why="the kernel lacks /proc/fcse's $lacks (kernel-patches/arm-fcse 0002)"
	for d in "guaranteed: no flush, every switch avoided" \
		"guaranteed: the kernel's flushes equal the model's" \
		"guaranteed: a mapping above 32 MB gets ENOMEM" \
		"guaranteed: 95 address spaces, the 96th fork EAGAIN" \
		"guaranteed: a PID of its own for each process" \
		"guaranteed, 121 processes: the refused forks against the model's" \
		"best-effort, 121 processes: PIDs shared, flushes against the model's"; do
		skip "$d: $why"
	done
else
	ks=$(sc "$m" guaranteed kernel_switches_count) kf=$(sc "$m" guaranteed kernel_flushes_count)
	ka=$(sc "$m" guaranteed kernel_flushes_avoided_count)
	[ "$ks" = 1000 ] && [ "$kf" = 0 ] && [ "$ka" = "$ks" ]
	ok $? "guaranteed: no flush, every switch avoided (switches $ks, flushes $kf, avoided $ka)"
	[ "$(sc "$m" guaranteed flushes_agree)" = true ]
	ok $? "guaranteed: the kernel's flushes equal the model's ($kf, model $(sc "$m" guaranteed flushes_count))"
	km=$(sc "$m" guaranteed kernel_refused_mmap_count) mm=$(sc "$m" guaranteed refused_mmap_count)
	kr=$(sc "$m" guaranteed kernel_mappings_refused_count)
	[ "$km" = 1 ] && [ "$kr" = 1 ] && [ "$mm" = 1 ]
	ok $? "guaranteed: a mapping above 32 MB gets ENOMEM (refused $km, mappings_refused +$kr, model $mm)"
	lf=$(sc "$m" guaranteed kernel_limit_forked_count) le=$(sc "$m" guaranteed kernel_limit_errno)
	li=$(sc "$m" guaranteed kernel_limit_pids_in_use_count)
	lt=$(sc "$m" guaranteed kernel_pids_total_count)
	[ "$le" = EAGAIN ] && [ "$li" = 95 ] && [ "$lt" = 95 ]
	ok $? "guaranteed: 95 address spaces run, the next fork gets EAGAIN ($lf forked, $le, pids_in_use $li of $lt)"
	pids=$(jq -r '.extra.scenarios[] | select(.mode == "guaranteed") | .kernel_pids[] |
		select(. >= 0)' "$m")
	np=$(wc -l <<<"$pids") nu=$(sort -u <<<"$pids" | wc -l)
	[ "$np" -ge 2 ] && [ "$np" = "$nu" ] && ! grep -qx 0 <<<"$pids"
	ok $? "guaranteed: a PID of its own for each process ($(echo $pids))"
	"$RTLAB" lab run fcse --live --mode guaranteed,best-effort --workload many --switches 200 \
		--json "$tmp/many.json" >"$tmp/many.out" 2>"$tmp/many.err"
	y=$tmp/many.json
	kf=$(sc "$y" guaranteed kernel_refused_fork_count) mf=$(sc "$y" guaranteed refused_fork_count)
	b=$(sc "$y" guaranteed kernel_base_pids_in_use_count)
	kr=$(sc "$y" guaranteed kernel_forks_refused_count)
	echo "# many, guaranteed: the kernel refused $kf forks, the model $mf; the kernel's" \
		"$b other address spaces (init, the shell, the parent) hold PIDs the model does not count"
	[ "$kf" != null ] && [ "$kf" = $((mf + b)) ] && [ "$kr" = "$kf" ]
	ok $? "guaranteed, 121 processes: the kernel refuses the model's $mf forks plus its $b other address spaces ($kf, forks_refused +$kr)"
	kf=$(sc "$y" best-effort kernel_flushes_count) mf=$(sc "$y" best-effort flushes_count)
	[ "$(sc "$y" best-effort kernel_refused_fork_count)" = 0 ] &&
		[ "$(sc "$y" best-effort flushes_agree)" = true ]
	ok $? "best-effort, 121 processes: PIDs shared, no fork refused, flushes as the model's ($kf, model $mf)"
fi

# ---- best-effort ----
ks=$(sc "$m" best-effort kernel_switches_count) kf=$(sc "$m" best-effort kernel_flushes_count)
kr=$(sc "$m" best-effort kernel_relocations_count) mr=$(sc "$m" best-effort relocations_count)
[ "$ks" = 1000 ] && [ "$(sc "$m" best-effort flushes_agree)" = true ] && [ "$kr" = "$mr" ] &&
	[ "$kr" = 1 ]
ok $? "best-effort: flushes and relocations as the model's (flushes $kf, model $(sc "$m" best-effort flushes_count); relocations $kr, model $mr)"

secs=$(($(date +%s) - start))
echo "# fcse_live.t took $secs s"
[ "$secs" -le 180 ]
ok $? "within the 3 minutes vm-test allows the ARM part ($secs s)"
