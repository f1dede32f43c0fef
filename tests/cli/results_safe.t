#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A lab run never loses its results document: two runs in the same second
# get two files and print two paths; an unwritable place fails before the run
# measures; a place that fails at the end (directory gone, disk full) sends the
# document to a fallback and says where; SIGHUP keeps the partial document and
# exits 129; the temporary files a run killed with SIGKILL left behind go at
# the next run, a live writer's stay. Uses the latency lab's idle-other scenario (SCHED_OTHER, any
# user). TAP output for prove. Needs RTLAB and SRCDIR. About 10 s.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"
export TMPDIR=$tmp/tmpdir
mkdir -p "$TMPDIR"
results=$XDG_STATE_HOME/rtlab/results
quick="latency --scenario idle-other --duration 300ms"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
run() { # run ARGS... -> $tmp/out, $tmp/err, $rc, $ms (wall time)
	local t0
	t0=$(now_ms)
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	ms=$(($(now_ms) - t0))
}
valid() { "$RTLAB" lab report "$1" >/dev/null 2>&1; }
json_get() { # json_get FILE PYTHON-EXPR(d) -> prints the value
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}
# wait_line FILE TEXT: poll FILE for TEXT (what only a measuring run prints), up to 60 s.
wait_line() {
	for _ in $(seq 600); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
written() { sed -n 's/^rtlab lab run: results written to \(.*\.json\).*/\1/p' "$1"; }

# ---- same second: two files, two paths ------------------------------------------
# Deterministic: every default name of the next 10 seconds is taken already.
mkdir -p "$results"
t=$(date +%s)
for i in $(seq 0 10); do
	echo taken >"$results/latency-$(date -u -d "@$((t + i))" +%Y%m%dT%H%M%SZ).json"
done
# shellcheck disable=SC2086
run lab run $quick
p=$(written "$tmp/err")
check "a run whose default name is taken exits 0" [ "$rc" -eq 0 ]
check "it takes the next free name, -2 ($p)" bash -c "[[ '$p' == $results/latency-*Z-2.json ]]"
check "and the document there is its own" valid "$p"
check "no file that was there was replaced" \
	[ "$(cat "$results"/latency-*Z.json | sort -u)" = taken ]
rm -f "$results"/*

# Two real runs started together (they usually end in the same second too).
for i in 1 2; do
	# shellcheck disable=SC2086
	"$RTLAB" lab run $quick >/dev/null 2>"$tmp/twin$i.err" </dev/null &
done
wait
p1=$(written "$tmp/twin1.err")
p2=$(written "$tmp/twin2.err")
check "two runs started together print two paths ($p1, $p2)" \
	bash -c "[ -n '$p1' ] && [ -n '$p2' ] && [ '$p1' != '$p2' ]"
both_there() { valid "$p1" && valid "$p2" && [ "$(ls "$results" | wc -l)" -eq 2 ]; }
check "and leave two valid documents" both_there
check "no temporary file is left in the results directory" \
	bash -c "! ls '$results' | grep -q tmp"

# An explicit --json FILE is the user's choice: it is replaced, as > would.
echo old >"$tmp/mine.json"
# shellcheck disable=SC2086
run lab run $quick --json "$tmp/mine.json"
check "--json FILE replaces the file the user named" \
	bash -c "[ $rc -eq 0 ] && ! grep -qx old '$tmp/mine.json' && grep -q 'written to $tmp/mine.json' '$tmp/err'"

# ---- an unwritable place fails before measuring ---------------------------------
slow="latency --scenario idle-other --duration 5s"
# shellcheck disable=SC2086
run lab run $slow --json "$tmp/no/such/dir/out.json"
check "--json in a missing directory exits 1" [ "$rc" -eq 1 ]
check "at once, not after the 5 s run (${ms} ms)" [ "$ms" -lt 4000 ]
check "naming the path and why" \
	grep -qF "$tmp/no/such/dir/out.json: cannot write the results document there: No such file or directory" "$tmp/err"
check "and nothing was measured" bash -c "! grep -q 'idle-other: other' '$tmp/err'"
check "and no temporary file is left" [ ! -e "$tmp/no" ]

mkdir "$tmp/adir"
# shellcheck disable=SC2086
run lab run $slow --json "$tmp/adir"
check "--json naming a directory exits 1 at once (${ms} ms)" \
	bash -c "[ $rc -eq 1 ] && [ $ms -lt 4000 ] && grep -q 'adir: not a regular file' '$tmp/err'"

# A state directory whose results/ cannot be made (a file is in the way).
mkdir -p "$tmp/badstate/rtlab"
: >"$tmp/badstate/rtlab/results"
# shellcheck disable=SC2086
XDG_STATE_HOME=$tmp/badstate run lab run $slow
check "an unusable state directory exits 1 at once (${ms} ms)" \
	bash -c "[ $rc -eq 1 ] && [ $ms -lt 4000 ] && grep -q 'badstate/rtlab/results: cannot make the results directory: Not a directory (--json FILE saves' '$tmp/err'"

if ! can_switch; then
	skip "a directory the user may not write: needs root and setpriv"
else
	mkdir -p "$tmp/rootonly"
	chmod 0755 "$tmp/rootonly"
	t0=$(now_ms)
	# shellcheck disable=SC2086
	as_nobody rtlab lab run $slow --json "$tmp/rootonly/out.json" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	ms=$(($(now_ms) - t0))
	check "a directory nobody may not write fails at once with Permission denied (${ms} ms)" \
		bash -c "[ $rc -eq 1 ] && [ $ms -lt 4000 ] && grep -qF '$tmp/rootonly/out.json: cannot write the results document there: Permission denied' '$tmp/err'"
fi

# ---- a late failure lands in a fallback, and says where --------------------------
# late_run GONE ARGS...: a 2 s run; once it measures, GONE is removed. Sets rc, fb.
late_run() {
	local gone=$1
	shift
	: >"$tmp/err"	# wait_line must not find the previous run's line
	"$RTLAB" lab run latency --scenario idle-other --duration 2s "$@" \
		>/dev/null 2>"$tmp/err" </dev/null &
	pid=$!
	wait_line "$tmp/err" "idle-other: other" && rm -rf "$gone"
	wait "$pid"
	rc=$?
	fb=$(sed -n 's/^rtlab lab run: results saved instead to \(.*\.json\)$/\1/p' "$tmp/err")
}

mkdir "$tmp/late"
late_run "$tmp/late" --json "$tmp/late/out.json"
check "the directory of --json vanished during the run: exit 1" [ "$rc" -eq 1 ]
check "it says why the file is not where asked" \
	grep -qF "$tmp/late/out.json: cannot rename the file into place: No such file or directory" "$tmp/err"
check "and where it went: the state dir's results ($fb)" \
	bash -c "[[ '$fb' == $results/latency-*.json ]]"
check "the fallback document is complete" valid "$fb"
check "the progress file points at it" grep -qF "\"result\": \"$fb\"" "$XDG_STATE_HOME/rtlab/progress.json"

rm -rf "$results"
late_run "$results"
check "the results directory vanished during the run: exit 1" [ "$rc" -eq 1 ]
check "the document went to \$TMPDIR ($fb)" \
	bash -c "[[ '$fb' == $TMPDIR/rtlab-latency-*.json ]] && [ \$(stat -c %a '$fb') = 600 ]"
check "and is complete" valid "$fb"

# A full disk: a tiny tmpfs in a mount namespace of our own (nothing outlives it).
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	skip "a full disk: needs root and mount namespaces"
else
	rm -rf "$results"
	mkdir "$tmp/full"
	unshare -m --propagation private bash -c '
		mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
		: >"$2"	# the loop below must not find the previous run'"'"'s line
		"$RTLAB" lab run latency --scenario idle-other --duration 2s --json "$1/out.json" \
			>/dev/null 2>"$2" </dev/null &
		pid=$!
		for _ in $(seq 600); do
			grep -q "idle-other: other" "$2" && break
			sleep 0.1
		done
		dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null
		wait "$pid"
	' full "$tmp/full" "$tmp/err"
	rc=$?
	fb=$(sed -n 's/^rtlab lab run: results saved instead to \(.*\.json\)$/\1/p' "$tmp/err")
	check "a full disk at the end of the run: exit 1" [ "$rc" -eq 1 ]
	check "it says the write failed" grep -qF "$tmp/full/out.json: cannot write the document: No space left on device" "$tmp/err"
	check "and the document is in the fallback ($fb)" valid "$fb"
fi

# ---- SIGHUP: the terminal closed ---------------------------------------------------
: >"$tmp/err"	# the full-disk run above left "idle-other: other" in it: start empty
"$RTLAB" lab run latency --scenario idle-other --duration 30s --json "$tmp/hup.json" \
	>"$tmp/out" 2>"$tmp/err" </dev/null &
pid=$!
wait_line "$tmp/err" "idle-other: other" && kill -HUP "$pid"
wait "$pid"
rc=$?
check "SIGHUP during lab run exits 129" [ "$rc" -eq 129 ]
check "and keeps the partial document" valid "$tmp/hup.json"
check "marked interrupted" [ "$(json_get "$tmp/hup.json" 'd["extra"]["interrupted"]' 2>/dev/null)" = True ]
check "and says it is partial" grep -q "results written to $tmp/hup.json (interrupted: partial)" "$tmp/err"

# ---- SIGKILL: the temporary files of a killed run go at the next start ------------
"$RTLAB" lab run latency --scenario idle-other --duration 30s --json "$tmp/kill.json" \
	>/dev/null 2>"$tmp/kill.err" </dev/null &
pid=$!
wait_line "$tmp/kill.err" "idle-other: other" && kill -KILL "$pid"
wait "$pid" 2>/dev/null
left=$(ls "$tmp" | grep -c "^kill\.json\.tmp\.$pid\.")
check "a run killed with SIGKILL leaves its temporary file ($left)" [ "$left" -ge 1 ]
sleep 30 </dev/null &
live=$!
: >"$tmp/kill.json.tmp.$live.0"
: >"$results/latency.tmp.$pid.3"
: >"$results/latency.tmp.$live.3"
: >"$XDG_STATE_HOME/rtlab/progress.json.tmp.$pid.0"
: >"$XDG_STATE_HOME/rtlab/progress.json.tmp.$live.0"
run lab run $quick --json "$tmp/kill.json"
check "the next run of the same target succeeds" [ "$rc" -eq 0 ]
check "and removed the dead run's temporary file" \
	bash -c "! ls '$tmp' | grep -q '^kill\.json\.tmp\.$pid\.'"
check "and the dead run's in the state directory (progress.json)" \
	[ ! -e "$XDG_STATE_HOME/rtlab/progress.json.tmp.$pid.0" ]
check "but not a live process's" \
	bash -c "[ -e '$tmp/kill.json.tmp.$live.0' ] && [ -e '$XDG_STATE_HOME/rtlab/progress.json.tmp.$live.0' ]"
run lab run $quick
check "a run into the results directory removes the dead run's there" \
	bash -c "[ $rc -eq 0 ] && [ ! -e '$results/latency.tmp.$pid.3' ] && [ -e '$results/latency.tmp.$live.3' ]"
kill "$live"
wait "$live" 2>/dev/null

tap_done
