#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtlab trace explain` on every fixture trace (tests/data/traces, including
# any captured traces in its subfolders): the header in words, each entry's
# decoded flags and delay marks, the rtlab.trace-explain/1 JSON; results
# documents with and without a trace; bad input named with its file (and
# line); usage errors; no leaks under valgrind. TAP output for prove. Needs
# RTLAB and SRCDIR.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { # check DESC CONDITION...
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state RTLAB_JOURNAL_DIR=$tmp/journal
traces=$SRCDIR/tests/data/traces

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
has() { grep -qF -- "$1" "$tmp/$2"; }

if command -v jq >/dev/null; then
	json_ok() { jq -e . "$1" >/dev/null; }
elif command -v python3 >/dev/null; then
	json_ok() { python3 -m json.tool "$1" >/dev/null; }
else
	json_ok() { echo "# no jq or python3 to validate JSON"; return 1; }
fi
# jget FILE EXPR: one value from a JSON file (python3 expression on d).
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- Every fixture, text and JSON ----------------------------------------

mapfile -t files < <(find "$traces" -name '*.txt' | sort)
check "there are fixture traces" [ "${#files[@]}" -ge 6 ]
for f in "${files[@]}"; do
	rel=${f#"$traces"/}
	run trace explain "$f"
	check "explain $rel exits 0" [ "$rc" -eq 0 ]
	check "explain $rel puts the header into words" \
		bash -c "grep -q '^  Tracer ' '$tmp/out' && grep -q '^  Worst latency [0-9]* us' '$tmp/out'"
	check "explain $rel explains every entry's flags" \
		[ "$(grep -c '^  line [0-9]*: ' "$tmp/out")" -eq "$(grep -c '^    [^ ].* on CPU [0-9]* at ' "$tmp/out")" ]
	run trace explain --json "$f"
	check "explain --json $rel exits 0 with valid JSON" \
		bash -c "[ $rc -eq 0 ] && $(declare -f json_ok); json_ok '$tmp/out'"
	if command -v python3 >/dev/null; then
		check "explain --json $rel: schema, entries with flags and explanations" \
			[ "$(jget "$tmp/out" "d['schema'] == 'rtlab.trace-explain/1' and len(d['entries']) > 0 and all(e['flags_text'] and e['explanation'] for e in d['entries'])")" = True ]
	fi
done

# ---- What the words say ---------------------------------------------------

run trace explain "$traces/irqsoff.txt"
check "irqsoff: what the tracer measures" has "Tracer irqsoff: the longest time hard interrupts stayed disabled on one CPU." out
check "irqsoff: worst latency, CPU and task" has "Worst latency 512 us on CPU 1; task sh-142 (pid 142, SCHED_OTHER, nice 0)." out
check "irqsoff: started and ended at" has "Started at rtlab_inject_irqsoff, ended at rtlab_inject_irqsoff." out
check "irqsoff: entries shown, kernel, model, CPUs" has "Shown 6 of 6 entries; kernel 6.12.22-rtlab, model preempt_rt, 2 CPUs." out
check "irqsoff: the delay mark is summed up" has "1 delay mark; the widest, '!' (> 100 us), is on line 23" out
check "irqsoff: the marked entry says what the mark means" has "delay mark '!': the next entry came > 100 us later" out
check "irqsoff: flags decoded in words" has 'flags "dN...": hard irqs disabled; reschedule pending' out
check "irqsoff: the stack trace's frames" has "frame 7: entry_SYSCALL_64_after_hwframe" out
check "no warnings for a clean trace" [ ! -s "$tmp/err" ]

run trace explain "$traces/wakeup_rt.txt"
check "wakeup_rt: the woken task with both priorities" has "woken task sleep-2389 (pid 2389, SCHED_FIFO, rt_prio 5 = kernel prio 94)" out
check "wakeup_rt: a scheduler line in words" has "switch on CPU 2: now runs sleep-2389" out
check "wakeup_rt: hardirq context and preempt depth" has "in hardirq; preemption disabled (preempt depth 5)" out

if command -v python3 >/dev/null; then
	run trace explain --json "$traces/irqsoff.txt"
	check "JSON header fields" [ "$(jget "$tmp/out" "(d['header']['tracer'], d['header']['latency_us'], d['header']['cpu'], d['header']['task']['policy_name'], d['header']['started_at'])")" = "('irqsoff', 512, 1, 'SCHED_OTHER', 'rtlab_inject_irqsoff')" ]
	check "JSON marks and the marked entry" [ "$(jget "$tmp/out" "(d['marks'], [(e['line'], e['mark'], e['gap_min_us']) for e in d['entries'] if e['mark']])")" = "({'count': 1, 'widest_line': 23}, [(23, '!', 100)])" ]
	check "JSON decoded flags" [ "$(jget "$tmp/out" "(d['entries'][2]['flags']['raw'], d['entries'][2]['flags']['irqs_off'], d['entries'][2]['flags']['need_resched'], d['entries'][2]['flags_text'])")" = "('dN...', True, True, 'irqs off, need-resched')" ]
	check "JSON stack frames" [ "$(jget "$tmp/out" "d['entries'][-1]['kind'] + ' ' + str(len(d['entries'][-1]['stack']))")" = "stack 7" ]
fi

# ---- Results documents ----------------------------------------------------

if command -v python3 >/dev/null; then
	python3 - "$traces/wakeup.txt" "$tmp/tracer.json" "$tmp/events.json" <<-'EOF'
	import json, os, sys
	trace = open(sys.argv[1]).read()
	# A complete document: trace view/explain validate it as lab report does.
	base = dict(json.load(open(os.environ["SRCDIR"] + "/tests/data/results/latency-host.json")), lab="ftrace")
	json.dump(dict(base, extra={"mode": "tracer", "tracer": {"name": "wakeup", "trace_text": trace, "trace_text_truncated": False}}), open(sys.argv[2], "w"))
	json.dump(dict(base, extra={"mode": "events"}), open(sys.argv[3], "w"))
	EOF
	run trace explain "$tmp/tracer.json"
	check "a tracer-mode results document is explained" \
		bash -c "[ $rc -eq 0 ] && grep -q 'the trace kept in this results document' '$tmp/out' && grep -q 'Tracer wakeup:' '$tmp/out'"
	run trace explain --json "$tmp/tracer.json"
	check "its JSON says the source" [ "$(jget "$tmp/out" "d['source']")" = results ]
	run trace explain "$tmp/events.json"
	check "an event-mode document exits 1" [ "$rc" -eq 1 ]
	check "... naming the file and saying why" has "$tmp/events.json: an event-mode run of the ftrace lab" err
	check "... and how to get a trace" has "rtlab lab run ftrace --mode tracer --json FILE" err
else
	skip "python3 is needed to build results documents"
fi
run trace explain "$SRCDIR/tests/data/results/latency-host.json"
check "another lab's results: exit 1, which lab" \
	bash -c "[ $rc -eq 1 ] && grep -qF 'results of the latency lab' '$tmp/err'"

# ---- Bad input ------------------------------------------------------------

run trace explain "$tmp/missing.txt"
check "a missing file exits 1" [ "$rc" -eq 1 ]
check "... with a message naming it" has "$tmp/missing.txt: cannot read it: No such file or directory" err
printf 'hello\nthis is not a trace\n' >"$tmp/notes.txt"
run trace explain "$tmp/notes.txt"
check "a file that is no trace exits 1 naming file:line" \
	bash -c "[ $rc -eq 1 ] && grep -qF '$tmp/notes.txt:1: not a latency trace' '$tmp/err'"
check "... and prints nothing on stdout" [ ! -s "$tmp/out" ]
run trace explain "$tmp"
check "a directory exits 1" bash -c "[ $rc -eq 1 ] && grep -qF 'is a directory' '$tmp/err'"
printf '{"schema": ' >"$tmp/broken.json"
run trace explain "$tmp/broken.json"
check "broken JSON exits 1 with file:line:col" \
	bash -c "[ $rc -eq 1 ] && grep -qE 'broken.json:[0-9]+:[0-9]+: ' '$tmp/err'"
{ head -n 23 "$traces/irqsoff.txt"; echo "garbage in the middle"; tail -n +24 "$traces/irqsoff.txt"; } >"$tmp/bad-line.txt"
run trace explain "$tmp/bad-line.txt"
check "an unreadable line does not fail the explanation" [ "$rc" -eq 0 ]
check "... it is listed under Problems with file:line" has "$tmp/bad-line.txt:24: not an entry" out
check "... and warned about on stderr" has "warning: $tmp/bad-line.txt:24:" err

# ---- Usage ----------------------------------------------------------------

run trace
check "no subcommand is a usage error (2)" bash -c "[ $rc -eq 2 ] && grep -q '^usage: rtlab trace' '$tmp/err'"
run trace explain
check "explain without a file is a usage error" [ "$rc" -eq 2 ]
run trace frobnicate x
check "an unknown subcommand is a usage error" [ "$rc" -eq 2 ]
run trace explain a b
check "an extra argument is a usage error" [ "$rc" -eq 2 ]
run trace view "$traces/irqsoff.txt" --json
check "view --json is a usage error" [ "$rc" -eq 2 ]
run trace --help
check "trace --help documents both subcommands" \
	bash -c "[ $rc -eq 0 ] && grep -q 'view FILE' '$tmp/out' && grep -q 'explain FILE' '$tmp/out'"

# ---- Leaks ----------------------------------------------------------------

if command -v valgrind >/dev/null; then
	for args in "$traces/wakeup.txt" "--json $traces/preemptirqsoff.txt" "$tmp/notes.txt" \
		"$tmp/bad-line.txt"; do
		# shellcheck disable=SC2086
		valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
			--error-exitcode=99 "$RTLAB" trace explain $args >/dev/null 2>"$tmp/vg"
		check "no leaks or memory errors: trace explain $args" [ $? -ne 99 ]
	done
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 "$RTLAB" trace view "$traces/irqsoff.txt" \
		</dev/null >/dev/null 2>"$tmp/vg"
	check "no leaks: trace view refusing a non-terminal" [ $? -ne 99 ]
else
	skip "valgrind is not installed"
fi

echo "1..$n"
[ "$fails" -eq 0 ]
