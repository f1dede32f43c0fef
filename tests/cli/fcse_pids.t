#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The FCSE exercise's kernel-pids check and the guest program behind it, on the host (no VM:
# tests/vm/fcse_pids.t runs them against the fcse kernel):
#   - vm/arm/fcse-pids.c builds for the host and, reading a file in place of /proc/fcse
#     (--proc), runs its fork/exit pattern and names the keys a kernel without the allocator
#     lacks; it refuses a file without a mode and a wrong option;
#   - `rtlab grade` skips kernel-pids, with the reason, when the exercise has no record
#     (checks/data/kernel-pids.txt), and when the record cannot grade (flush mode, cut
#     short, a guest that was not quiet);
#   - with a record written to the contract's rule (tests/data/fcse-pids/guaranteed.txt,
#     where the shell's exec left a hole at PID 3), the reference passes it and wrong
#     solutions of labs/fcse/mutants/ fail it: PID 0 first, the highest first, next fit.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}"
: "${SRCDIR:?set SRCDIR to the source tree}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR

# ---- the guest program, built for the host ----------------------------------------------
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -o "$tmp/fcse-pids" "$SRCDIR/vm/arm/fcse-pids.c" \
	2>"$tmp/err"
check "vm/arm/fcse-pids.c builds for the host, -Wall -Wextra -Werror" [ -x "$tmp/fcse-pids" ]
printf 'mode guaranteed\npid_register 0\npid_mm 0\nswitches 9\nflushes 0\nflushes_avoided 9\n' \
	>"$tmp/proc-0001"
"$tmp/fcse-pids" --proc "$tmp/proc-0001" --seed 3 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "with 0001's keys only: the pattern runs (exit $rc) to done=1" \
	[ "$rc" -eq 0 ] && grep -qx 'done=1' "$tmp/out"
check "it says which keys the kernel lacks, on stdout and stderr" \
	grep -qx 'missing=pids_total,pids_in_use,forks_refused' "$tmp/out" &&
	grep -q 'lacks pids_total,pids_in_use,forks_refused (a kernel without the FCSE allocator' "$tmp/err"
check "the fixed part first: forks #1..#5, #2 and #4 end, #6 forks" \
	[ "$(grep -E '^(fork|exit)=' "$tmp/out" | head -n 8 | cut -d' ' -f1 | tr '\n' ' ')" = \
	  "fork=1 fork=2 fork=3 fork=4 fork=5 exit=2 exit=4 fork=6 " ]
check "nothing refused: it stops at its cap of 136 running and says so ($(grep '^refused=' "$tmp/out"))" \
	grep -qE '^refused=none forks=1[4-9][0-9] running=136$' "$tmp/out"
"$tmp/fcse-pids" --proc "$tmp/proc-0001" >"$tmp/out0" 2>/dev/null
check "without --seed no random rounds: 8 forks before the run to the cap, 2 exits" \
	[ "$(grep -c '^exit=' "$tmp/out0")" -eq 2 ] && [ "$(grep -c '^exit=' "$tmp/out")" -gt 2 ]
printf 'switches 1\n' >"$tmp/proc-none"
"$tmp/fcse-pids" --proc "$tmp/proc-none" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a file without a mode line: exit 1, said so ($(head -c 80 "$tmp/err"))" \
	[ "$rc" -eq 1 ] && grep -q 'no mode line' "$tmp/err"
"$tmp/fcse-pids" --bogus >"$tmp/out" 2>"$tmp/err"
check "a wrong option: exit 1 with the usage" [ $? -eq 1 ] && grep -q '^usage:' "$tmp/err"

# ---- the check, without and with a record -------------------------------------------------
cp -R "$SRCDIR/labs/fcse" "$tmp/fcse"
mkdir -p "$tmp/fcse/checks/data"
grade() { # grade WORKDIR: the kernel-pids check's "status reason" into $tmp/kp
	run grade --exercise "$tmp/fcse" --work "$1" --no-quiz --json
	jq -r '.checks[] | select(.id == "kernel-pids") | "\(.status) \(.reason)"' "$tmp/out" \
		>"$tmp/kp" 2>/dev/null
}
grade "$SRCDIR/labs/fcse/reference"
check "no record: kernel-pids is skipped, with the reason ($(cut -c1-60 "$tmp/kp"))" \
	grep -q '^skip no record of the FCSE kernel' "$tmp/kp"
check "no record: the reference still scores 100" [ "$(jq .score_pct "$tmp/out")" = 100 ]

rec=$tmp/fcse/checks/data/kernel-pids.txt
cp "$SRCDIR/tests/data/fcse-pids/guaranteed.txt" "$rec"
grade "$SRCDIR/labs/fcse/reference"
check "with the record: the reference passes kernel-pids ($(cut -c1-60 "$tmp/kp"))" \
	grep -q '^pass' "$tmp/kp"
for m in 01-pid0-first 11-highest-first 14-next-fit; do
	mkdir -p "$tmp/$m"
	grep -v -E '^/\* (mutant|replaces|caught-by): ' "$SRCDIR/labs/fcse/mutants/$m.c" \
		>"$tmp/$m/fcse_pid.c"
	grade "$tmp/$m"
	check "with the record: mutant $m fails kernel-pids, the kernel's PID named" \
		grep -q '^fail as the FCSE kernel handed out PIDs (3 held before by others.*expected' \
		"$tmp/kp"
done

sed 's/^mode=guaranteed$/mode=flush/' "$SRCDIR/tests/data/fcse-pids/guaranteed.txt" >"$rec"
grade "$SRCDIR/labs/fcse/reference"
check "a flush-mode record: skipped, the mode named" grep -q "^skip .*of mode 'flush'" "$tmp/kp"
grep -v '^done=1$' "$SRCDIR/tests/data/fcse-pids/guaranteed.txt" >"$rec"
grade "$SRCDIR/labs/fcse/reference"
check "a record cut short: skipped" grep -q '^skip .*cut short' "$tmp/kp"
sed 's/^pids_in_use_before=3$/pids_in_use_before=4/' "$SRCDIR/tests/data/fcse-pids/guaranteed.txt" \
	>"$rec"
grade "$SRCDIR/labs/fcse/reference"
check "a guest that was not quiet (held PIDs disagree): skipped" \
	grep -q '^skip the record is not of a quiet guest' "$tmp/kp"

tap_done
