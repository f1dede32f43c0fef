#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CLI tests for `rtlab doctor`: exit codes, the checklist, the rtlab.doctor/1
# JSON document checked against the machine (uname, getconf, nproc), nothing
# left behind (tracefs instances, veth pairs), the unprivileged run, and
# --restore replaying a journal left by a "killed" run (as another user: see
# the section).
#
# Needs: RTLAB (the binary), SRCDIR (the source tree), jq.
set -u

: "${RTLAB:?set RTLAB to the rtlab binary}"
: "${SRCDIR:?set SRCDIR to the source tree}"

n=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
	fi
}
skip() {	# skip DESCRIPTION REASON
	n=$((n + 1))
	echo "ok $n - $1 # skip $2"
}

if ! command -v jq >/dev/null; then
	echo "1..0 # skip jq is not installed (make deps)"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
export RTLAB_JOURNAL_DIR="$tmp/journal"

# The labs, read from the sources rather than from the doctor itself.
labs=$(sed -n 's/^[[:space:]]*\.name = "\([a-z0-9-]*\)",.*/\1/p' \
	"$SRCDIR"/rtlab/labs/registry.c "$SRCDIR"/rtlab/labs/lab_*.c 2>/dev/null | sort -u)

# ---- the checklist -------------------------------------------------------

# A guard against a hang, not a speed test: every child the doctor starts is
# killed at its deadline (DOCTOR_TIMEOUT_MS, 3 s, then 1 s to reap), so it
# ends within the sum of those deadlines, far below the 300 s here; how long
# it takes on a loaded machine says nothing about rtlab. timeout(1) turns a
# probe without a bound into a failure (status 124) instead of a stuck suite.
start=$(date +%s%N)
timeout 300 "$RTLAB" doctor >"$tmp/out" 2>"$tmp/err"
st=$?
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok $st "doctor exits 0 (took ${took_ms} ms)"
[ $st -ne 124 ]
ok $? "doctor finishes: no probe without a bound"
for lab in $labs; do
	grep -q "^  ..  $lab " "$tmp/out"
	ok $? "the checklist lists lab $lab with a tier"
done
grep -q '^Labs' "$tmp/out" && grep -q "Linux $(uname -r)" "$tmp/out"
ok $? "the checklist has the kernel and the lab table"

# ---- the JSON document ---------------------------------------------------

"$RTLAB" doctor --json >"$tmp/json" 2>"$tmp/err"
ok $? "doctor --json exits 0"
jq -e . "$tmp/json" >/dev/null 2>&1
ok $? "doctor --json prints valid JSON"
[ "$(jq -r .schema "$tmp/json")" = "rtlab.doctor/1" ]
ok $? "schema is rtlab.doctor/1"
[ "$(jq -r .rtlab_version "$tmp/json")" = "$("$RTLAB" --version | cut -d' ' -f2)" ]
ok $? "rtlab_version matches rtlab --version"
[ "$(jq -r .kernel.release "$tmp/json")" = "$(uname -r)" ]
ok $? "kernel.release equals uname -r"
[ "$(jq -r .kernel.version "$tmp/json")" = "$(uname -v)" ]
ok $? "kernel.version equals uname -v"
[ "$(jq -r .cpus.online "$tmp/json")" = "$(getconf _NPROCESSORS_ONLN)" ]
ok $? "cpus.online equals getconf _NPROCESSORS_ONLN"
[ "$(jq -r .cpus.allowed "$tmp/json")" = "$(nproc)" ]
ok $? "cpus.allowed equals nproc"
rt=false
case " $(uname -v) " in *" PREEMPT_RT "*) rt=true ;; esac
[ -r /sys/kernel/realtime ] && [ "$(cat /sys/kernel/realtime)" = 1 ] && rt=true
[ "$(jq -r .kernel.realtime "$tmp/json")" = "$rt" ]
ok $? "kernel.realtime agrees with uname -v and /sys/kernel/realtime"
jq -e '(.kernel.realtime | type) == "boolean" and (.privileges.root | type) == "boolean"
	and (.cpus.online | type) == "number" and (.vm.in_vm | type) == "boolean"
	and (.tracefs.mounted_by_doctor | type) == "boolean"
	and (.netns.netns | type) as $t | ($t == "boolean" or $t == "null")' \
	"$tmp/json" >/dev/null
ok $? "facts are typed: booleans, numbers, null"
[ "$(jq -r .privileges.root "$tmp/json")" = "$([ "$(id -u)" = 0 ] && echo true || echo false)" ]
ok $? "privileges.root matches id -u"
kvm_expect=absent
[ -e /dev/kvm ] && kvm_expect=present
jq -e --arg e "$kvm_expect" '.kvm.verdict as $v | ["works", "not-proven", "boot-failed",
	"absent", "no-permission", "hung", "failed"] | index($v) != null and (($e == "absent") == ($v == "absent"))' \
	"$tmp/json" >/dev/null
ok $? "kvm.verdict is a known verdict, absent exactly when /dev/kvm is"
[ "$(jq -r '.labs | map(.name) | sort | join(" ")' "$tmp/json")" = "$(echo $labs)" ]
ok $? "the JSON has one entry per lab"
jq -e '.labs | all(.tier as $t | ["host", "vm", "simulation", "none"] | index($t) != null)' \
	"$tmp/json" >/dev/null
ok $? "every lab has a known tier"
jq -e '.labs[] | select(.name == "fcse") | .tier == "simulation"' "$tmp/json" >/dev/null
ok $? "fcse runs as a simulation"
if command -v qemu-system-x86_64 >/dev/null; then
	[ "$(jq -r .qemu.version "$tmp/json")" = \
	  "$(qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')" ]
	ok $? "qemu.version matches qemu-system-x86_64 --version"
else
	jq -e '.qemu.found == false' "$tmp/json" >/dev/null
	ok $? "qemu.found is false without qemu-system-x86_64"
fi

# ---- usage ---------------------------------------------------------------

"$RTLAB" doctor --bogus >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -q '^usage: rtlab doctor' "$tmp/err"
ok $? "doctor --bogus exits 2 with a usage line (got $st)"
"$RTLAB" doctor stray >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q '^usage: rtlab doctor' "$tmp/err"
ok $? "doctor with an argument exits 2"
"$RTLAB" doctor --help >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q '^usage: rtlab doctor \[--json\] \[--restore\]' "$tmp/out"
ok $? "doctor --help exits 0 and shows the usage"
"$RTLAB" doctor --json --help >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q -- '--restore' "$tmp/out"
ok $? "doctor --json --help shows the help too"

# ---- nothing left behind -------------------------------------------------

tracefs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ -n "$tracefs" ] && [ -d "$tracefs/instances" ]; then
	ls "$tracefs/instances" | grep -q '^rtlab-doctor-'
	[ $? -ne 0 ]
	ok $? "no rtlab-doctor-* tracefs instance is left behind"
else
	skip "no rtlab-doctor-* tracefs instance is left behind" "tracefs is not mounted"
fi
if command -v ip >/dev/null; then
	! ip link show rtlab-dr0 >/dev/null 2>&1
	ok $? "no veth from the namespace probe appears on the host"
else
	skip "no veth from the namespace probe appears on the host" "no ip"
fi

# ---- unprivileged --------------------------------------------------------

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$tmp/nobody"
	chown 65534:65534 "$tmp/nobody"
	# A copy nobody can run, wherever the build tree is (a clone under /root is not).
	install -m 0755 "$RTLAB" "$tmp/rtlab"
	as_nobody() {
		HOME="$tmp/nobody" RTLAB_JOURNAL_DIR="$tmp/nobody/journal" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/rtlab" "$@"
	}
	as_nobody doctor --json >"$tmp/nobody.json" 2>"$tmp/err"
	ok $? "as nobody, doctor --json exits 0"
	jq -e '.privileges.root == false and .privileges.capabilities.sys_nice == false' \
		"$tmp/nobody.json" >/dev/null
	ok $? "as nobody, the report says not root and no CAP_SYS_NICE"
	jq -e '.netns.netns == false and (.netns.error | test("not permitted"))' \
		"$tmp/nobody.json" >/dev/null
	ok $? "as nobody, network namespaces are refused with a reason"
	jq -e '.labs[] | select(.name == "latency") | .tier == "host" and .degraded and
		(.missing | map(.need) | index("rt-prio") != null)' "$tmp/nobody.json" >/dev/null
	ok $? "as nobody, the latency lab is host tier, degraded by rt-prio"
	as_nobody doctor >"$tmp/out" 2>"$tmp/err"
	[ $? -eq 0 ] && grep -q 'not root' "$tmp/out" && grep -q 'setcap cap_sys_nice+ep' "$tmp/out"
	ok $? "as nobody, the checklist says not root and how to get CAP_SYS_NICE"
else
	for t in "doctor --json exits 0" "not root" "netns refused" "latency degraded" \
		 "checklist"; do
		skip "as nobody: $t" "needs root and setpriv to switch users"
	done
fi

# ---- stale journals and --restore ----------------------------------------
# As root journals live in /run/rtlab, shared with every other rtlab on the
# machine (any of which may replay a dead run's journal first), so this runs
# as another user (nobody, when we are root) in a journal directory of its
# own. The journal undoes a scheduling change of a sleeper of that user's,
# as a killed run would have left it. Root's side is in journal_security.t.

. "$SRCDIR/tests/cli/lib/journal.bash"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$tmp/user"
	chown 65534:65534 "$tmp/user"
	install -m 0755 "$RTLAB" "$tmp/rtlab-user"
	as_user() {
		HOME="$tmp/user" RTLAB_JOURNAL_DIR="$tmp/user/journal" RTLAB_DATADIR="$SRCDIR" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	}
	user_rtlab=$tmp/rtlab-user
	setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 >/dev/null 2>&1 </dev/null &
else
	mkdir -p "$tmp/user"
	as_user() { HOME="$tmp/user" RTLAB_JOURNAL_DIR="$tmp/user/journal" "$@"; }
	user_rtlab=$RTLAB
	sleep 600 >/dev/null 2>&1 </dev/null &
fi
sleeper=$!
trap 'kill "$sleeper" 2>/dev/null; rm -rf "$tmp"' EXIT
ujd=$tmp/user/journal
as_user mkdir -m 0700 "$ujd"
policy() { chrt -p "$sleeper" | sed -n 's/.*scheduling policy: //p'; }
chrt -b -p 0 "$sleeper"
dead=$(dead_pid)
as_user bash -c "$(declare -f plant_journal); plant_journal '$ujd' $dead \
	'sched $sleeper $(proc_start "$sleeper") other 0'"

as_user "$user_rtlab" doctor --json >"$tmp/json" 2>"$tmp/err"
[ $? -eq 0 ] && jq -e --argjson p "$dead" '.journals.stale | length == 1 and .[0].pid == $p
	and .[0].entries == 1' "$tmp/json" >/dev/null
ok $? "a journal left by a dead process is listed"
as_user "$user_rtlab" doctor >"$tmp/out" 2>"$tmp/err"
grep -q '^  !!  1 journal left by killed runs' "$tmp/out" &&
	grep -q 'rtlab doctor --restore' "$tmp/out"
ok $? "the checklist flags it and says to run rtlab doctor --restore"
[ "$(policy)" = SCHED_BATCH ] && [ -e "$ujd/$dead.journal" ]
ok $? "without --restore nothing is replayed"
as_user "$user_rtlab" doctor --restore --json >"$tmp/json" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] && jq -e '.journals.restore.ok == true and .journals.restore.restored == 1' \
	"$tmp/json" >/dev/null
ok $? "doctor --restore replays it and reports one restored (exit $st)"
[ "$(policy)" = SCHED_OTHER ] && [ ! -e "$ujd/$dead.journal" ]
ok $? "the old policy is back and the journal is gone"
as_user "$user_rtlab" doctor --restore >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q 'no journals left by killed runs' "$tmp/out" &&
	grep -q -- '--restore: 0 journals replayed' "$tmp/out"
ok $? "a second --restore finds nothing to do"
kill "$sleeper"
wait "$sleeper" 2>/dev/null

printf 'x\n' >"$tmp/notadir"
as_user env RTLAB_JOURNAL_DIR="$tmp/notadir" "$user_rtlab" doctor --json >"$tmp/json" \
	2>"$tmp/err"
[ $? -eq 0 ] && jq -e '.journals.error | test("Not a directory")' "$tmp/json" >/dev/null
ok $? "an unusable journal directory is reported, and the report still exits 0"
as_user env RTLAB_JOURNAL_DIR="$tmp/notadir" "$user_rtlab" doctor --restore >"$tmp/out" \
	2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -q -- '--restore failed' "$tmp/out" && grep -q 'restore failed' "$tmp/err"
ok $? "a failed --restore exits 1 and says why (exit $st)"

echo "1..$n"
