#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The FCSE exercise graded against the kernel's own allocator (`make vm-test`): the fcse
# kernel boots once in guaranteed mode (fcse=guaranteed) and runs rtlab-fcse-pids
# (vm/arm/fcse-pids.c): 5 forks, #2 and #4 end, 3 forks, a few exits and forks drawn from a
# seed, then forks until one is refused. From its record:
#   - the kernel keeps the contract: the refused fork gets EAGAIN with every PID in use
#     (pids_in_use 95 = pids_total), forks_refused counts it, no two running children share
#     a PID, each exit gives one PID back, and PID 0 is handed out last;
#   - on the host, the exercise's kernel-pids check replays the record on a solution
#     (labs/fcse copied, the record as checks/data/kernel-pids.txt): the reference passes
#     it, and the wrong solutions of labs/fcse/mutants/ that hand out PID 0 first, the
#     highest PID first, or the next PID after the last one (next fit) fail it.
# RTLAB_FCSE_PIDS_SEED=N repeats a run's seed (printed). Boots once: about 10 s.
# Skips, with the reason, where qemu-system-arm or the fcse image (make vm-arm) is missing,
# or where the kernel lacks the allocator's keys and so do the tree's FCSE patches (0001 alone).
set -u
. "$(dirname "$0")/lib.bash"
vm_needs qemu-system-arm jq -- fcse
. "$SRCDIR/tests/cli/lib/tap.bash"
export TMPDIR=$tmp/qemu RTLAB_DATADIR=$SRCDIR
mkdir -p "$TMPDIR"

seed=${RTLAB_FCSE_PIDS_SEED:-$((RANDOM + 1))}
echo "# seed $seed (RTLAB_FCSE_PIDS_SEED=$seed repeats it)"
start=$(date +%s)
"$RTLAB" vm exec --kernel fcse --append fcse=guaranteed -- \
	"rtlab-fcse-pids --seed $seed; sed s/^/proc-fcse:/ /proc/fcse" >"$tmp/rec" 2>"$tmp/err"
rc=$?
echo "# fcse kernel: booted and ran the pattern in $(($(date +%s) - start)) s"
check "guest: rtlab-fcse-pids ran to its end (exit $rc)" [ "$rc" -eq 0 ] && grep -qx 'done=1' "$tmp/rec"
val() { sed -n "s/^$1=//p" "$tmp/rec" | head -n1; }
# A tree whose FCSE patches have no allocator yet (0001 alone) has a kernel without these keys.
if [ -n "$(val missing)" ] && ! grep -qs pids_in_use "$SRCDIR"/kernel-patches/arm-fcse/*.patch; then
	echo "# the kernel lacks $(val missing): this tree's FCSE patches have no allocator yet"
	tap_done
fi
sed -n 's/^\(mode\|pids_total\|pids_in_use_before\|self_pid_mm\|refused\|pids_in_use_at_refusal\|forks_refused_delta\|missing\)=/# &/p' "$tmp/rec"

# ---- the kernel's rules, from the record ----------------------------------------------------
check "guest: mode guaranteed, every key of the contract there ($(val mode), missing: $(val missing))" \
	[ "$(val mode)" = guaranteed ] && [ -z "$(val missing)" ]
total=$(val pids_total)
check "guest: the refused fork got EAGAIN ($(val refused))" \
	bash -c "case '$(val refused)' in *' errno=11 name=EAGAIN') true ;; *) false ;; esac"
check "guest: at the refusal all $total PIDs were in use ($(val pids_in_use_at_refusal))" \
	[ -n "$total" ] && [ "$(val pids_in_use_at_refusal)" = "$total" ]
check "guest: forks_refused counted it ($(val forks_refused_delta))" [ "$(val forks_refused_delta)" = 1 ]
# The children running at the refusal: their PIDs, each once.
awk -F'[= ]' '/^fork=/ { pid[$2] = $4 } /^exit=/ { delete pid[$2] }
	END { for (c in pid) print pid[c] }' "$tmp/rec" | sort -n >"$tmp/alive"
check "guest: no two running children share a PID ($(wc -l <"$tmp/alive") children)" \
	[ -z "$(uniq -d "$tmp/alive")" ]
before=$(val pids_in_use_before)
check "guest: the children's PIDs and the $before held before make $total" \
	[ $(($(wc -l <"$tmp/alive") + before)) -eq "${total:-0}" ]
check "guest: PID 0 came last, to the last fork before the refusal" \
	[ "$(grep '^fork=' "$tmp/rec" | tail -n1 | sed 's/.* pid_mm=//')" = 0 ] &&
	[ "$(grep -c '^fork=.* pid_mm=0$' "$tmp/rec")" -eq 1 ]
# Each exit gives its PID back: pids_in_use one less than at the previous event.
bad=$(awk -F'[= ]' -v n="$before" '
	/^fork=/ { n++ } /^exit=/ { n--; if ($6 != n) print $2 ":" $6 "!=" n }' "$tmp/rec")
check "guest: each exit gives one PID back (pids_in_use after it${bad:+; wrong: $bad})" [ -z "$bad" ]

# ---- the check, on the host, against the record -----------------------------------------
cp -R "$SRCDIR/labs/fcse" "$tmp/fcse"
mkdir -p "$tmp/fcse/checks/data"
grep -v '^proc-fcse:' "$tmp/rec" >"$tmp/fcse/checks/data/kernel-pids.txt"
grade() { # grade WORKDIR: the kernel-pids check's "status reason" into $tmp/kp
	run grade --exercise "$tmp/fcse" --work "$1" --no-quiz --json
	jq -r '.checks[] | select(.id == "kernel-pids") | "\(.status) \(.reason)"' "$tmp/out" \
		>"$tmp/kp" 2>/dev/null
}
grade "$SRCDIR/labs/fcse/reference"
check "host: the reference gives the kernel's PIDs, fork for fork ($(cut -c1-120 "$tmp/kp"))" \
	grep -q '^pass' "$tmp/kp"
check "host: the reference scores 100" [ "$(jq .score_pct "$tmp/out")" = 100 ]
for m in 01-pid0-first 11-highest-first 14-next-fit; do
	mkdir -p "$tmp/$m"
	grep -v -E '^/\* (mutant|replaces|caught-by): ' "$SRCDIR/labs/fcse/mutants/$m.c" \
		>"$tmp/$m/fcse_pid.c"
	grade "$tmp/$m"
	check "host: mutant $m fails kernel-pids ($(cut -c1-150 "$tmp/kp"))" grep -q '^fail' "$tmp/kp"
done
echo "# in all $(($(date +%s) - start)) s"

tap_done
