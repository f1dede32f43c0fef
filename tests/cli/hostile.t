#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile and odd files get an error, never a hang, a crash or unbounded
# memory, and what they hold never reaches the terminal raw:
#  - a FIFO (or a device, or a directory) where rtlab reads a file by name:
#    progress.json, a results document for `lab report` and `grade`, a trace
#    for `trace explain/view`, a lesson for `lesson lint/show`; each ends
#    within `timeout 60` with exit 1 and a message naming the file; the FIFO
#    progress file is left alone;
#  - `quiz 3 </dev/zero` under a memory limit ends with a message;
#  - a large trace is explained within a memory limit, a too large one is
#    refused, and a JSON input to `trace explain` is validated first;
#  - ESC sequences (clear screen, set title) in notes, answers, parameters,
#    seeds and trace function names come out escaped from `lab report`,
#    `grade`, `trace explain` and `lab answer`; JSON stays valid JSON.
# TAP output for prove. Needs RTLAB and SRCDIR; python3 for the documents.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"	# sets tmp, XDG_STATE_HOME, RTLAB_JOURNAL_DIR
unset RTLAB_DATADIR NO_COLOR RTLAB_LOG
traces=$SRCDIR/tests/data/traces
ESC=$'\033'
rc=0

# run ARGS...: rtlab with a 60 s limit against a hang (stdin from $input, default /dev/null).
run() {
	timeout 60 "$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" <"${input:-/dev/null}"
	rc=$?
}
# failed_naming FILE WHAT: exit 1 (not 124, the timeout) and stderr names FILE and WHAT.
failed_naming() { [ "$rc" -eq 1 ] && grep -qF -- "$1: $2" "$tmp/err"; }
# no_raw_esc: neither stdout nor stderr holds an ESC byte.
no_raw_esc() { ! grep -q "$ESC" "$tmp/out" "$tmp/err"; }

# ---- Not a regular file -----------------------------------------------------------

mkdir -p "$XDG_STATE_HOME/rtlab"
progress=$XDG_STATE_HOME/rtlab/progress.json
mkfifo "$progress"
run progress
check "a FIFO as progress.json: progress ends with exit 1" failed_naming "$progress" \
	"is a FIFO, not a regular file"
check "... and still shows the lessons, as if there were no progress" \
	bash -c "grep -qx 'Progress (not available)' '$tmp/out' && grep -q '^01 ' '$tmp/out'"
run lesson list
check "... lesson list warns and goes on (exit 0)" \
	bash -c "[ $rc -eq 0 ] && grep -qF '$progress: is a FIFO' '$tmp/err'"
mkdir -p "$tmp/fixtures/lessons"
cp "$SRCDIR"/tests/data/lessons/*.md "$tmp/fixtures/lessons/"
printf 'a\n' >"$tmp/answer-a"
input=$tmp/answer-a RTLAB_DATADIR=$tmp/fixtures run quiz 1 --question pick-one
check "... an answer is not saved over it (exit 1, says why)" failed_naming "$progress" \
	"is a FIFO"
check "... and the FIFO is left as it was" [ -p "$progress" ]
rm -f "$progress"

mkfifo "$tmp/fifo.json"
run lab report "$tmp/fifo.json"
check "a FIFO as the results document: lab report exits 1 naming it" \
	failed_naming "$tmp/fifo.json" "is a FIFO, not a regular file"
run lab report "$tmp/fifo.json" --html "$tmp/r.html"
check "... also with --html" failed_naming "$tmp/fifo.json" "is a FIFO"
run grade "$tmp/fifo.json"
check "... grade exits 1 naming it" failed_naming "$tmp/fifo.json" "is a FIFO, not a regular file"
run grade /dev/zero
check "a device as the results document: grade exits 1" \
	failed_naming /dev/zero "is a character device, not a regular file"

mkfifo "$tmp/fifo.txt"
run trace explain "$tmp/fifo.txt"
check "a FIFO as the trace: trace explain exits 1 naming it" \
	failed_naming "$tmp/fifo.txt" "is a FIFO, not a regular file"
run trace explain --json "$tmp/fifo.txt"
check "... with --json too, and nothing on stdout" \
	bash -c "[ $rc -eq 1 ] && [ ! -s '$tmp/out' ]"
run trace view "$tmp/fifo.txt"
check "... trace view exits 1 naming it, before any screen" failed_naming "$tmp/fifo.txt" "is a FIFO"
run trace explain /dev/zero
check "/dev/zero as the trace: exit 1" failed_naming /dev/zero "is a character device"

mkfifo "$tmp/05-fifo.md"
run lesson lint "$tmp/05-fifo.md"
check "a FIFO as a lesson: lesson lint exits 1 naming it" \
	bash -c "[ $rc -eq 1 ] && grep -qF '$tmp/05-fifo.md: is a FIFO, not a regular file' '$tmp/out' '$tmp/err'"
mkfifo "$tmp/fixtures/lessons/05-fifo.md"
RTLAB_DATADIR=$tmp/fixtures run lesson show 5
check "... lesson show of it exits 1 naming it" failed_naming "05-fifo.md" "is a FIFO"
RTLAB_DATADIR=$tmp/fixtures run lesson lint
check "... lesson lint of the whole directory ends too (exit 1)" \
	bash -c "[ $rc -eq 1 ] && grep -qF '05-fifo.md: is a FIFO' '$tmp/out' '$tmp/err'"
RTLAB_DATADIR=$tmp/fixtures run lesson list
check "... lesson list shows the others and the problem (exit 0)" \
	bash -c "[ $rc -eq 0 ] && grep -q 'A good lesson' '$tmp/out'"
rm -f "$tmp/fixtures/lessons/05-fifo.md"

# ---- Endless input ----------------------------------------------------------------

# 512 MiB of address space: an unbounded line (the old getline) runs out long
# before the 60 s limit and the run used hundreds of MB; a capped one needs little.
maxrss=$tmp/maxrss
(
	ulimit -v 524288
	export RTLAB_DATADIR=$SRCDIR
	if [ -x /usr/bin/time ]; then
		exec timeout 60 /usr/bin/time -o "$maxrss" -f %M "$RTLAB" quiz 3
	else
		exec timeout 60 "$RTLAB" quiz 3
	fi
) </dev/zero >"$tmp/out" 2>"$tmp/err"
rc=$?
check "quiz 3 </dev/zero ends (exit 0, no timeout)" [ "$rc" -eq 0 ]
check "... saying the input passed its bound" grep -qF "The input passed 1 MiB" "$tmp/out"
if [ -s "$maxrss" ]; then
	check "... in little memory (peak $(tail -n 1 "$maxrss") KiB < 64 MiB)" \
		[ "$(tail -n 1 "$maxrss")" -lt 65536 ]
else
	skip "/usr/bin/time is not installed (apt-get install time)"
fi
printf '%05000d\nb\n' 0 >"$tmp/long"
input=$tmp/long RTLAB_DATADIR=$tmp/fixtures run quiz 1 --question pick-one
check "a line over the cap is refused as a try, the quiz goes on" \
	bash -c "[ $rc -eq 0 ] && grep -qF 'that line is too long (256 characters at most)' '$tmp/out'"

# ---- Large traces -----------------------------------------------------------------

# About 12 MiB of entries: before streaming, --json held ~55 bytes per input byte.
{
	grep '^#' "$traces/irqsoff.txt"
	body=$(grep -v '^#' "$traces/irqsoff.txt")
	for _ in $(seq 64); do printf '%s\n' "$body"; done >"$tmp/chunk"
	for _ in $(seq 384); do cat "$tmp/chunk"; done
} >"$tmp/big.txt"
( ulimit -v 393216; exec timeout 60 "$RTLAB" trace explain --json "$tmp/big.txt" ) \
	>"$tmp/big.json" 2>"$tmp/err"
rc=$?
check "a $(($(stat -c %s "$tmp/big.txt") >> 20)) MiB trace: explain --json within 384 MiB of address space" \
	[ "$rc" -eq 0 ]
if command -v python3 >/dev/null; then
	check "... its JSON is whole" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['problems_total'] == 0 and len(d['entries']) == 384 * 64 * 6, len(d['entries'])" \
		"$tmp/big.json"
fi
truncate -s 65M "$tmp/huge.txt"
run trace explain "$tmp/huge.txt"
check "a trace over 64 MiB is refused at once with a clear message" \
	failed_naming "$tmp/huge.txt" "larger than 64 MiB, too big to be a trace to read"

# ---- Control characters -----------------------------------------------------------

if ! command -v python3 >/dev/null; then
	skip "python3 is needed to build the documents"
	tap_done
	exit
fi
python3 - "$SRCDIR" "$tmp" <<'EOF'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
E = "\x1b[2J\x1b]0;pwned\x07"
trace = open(src + "/tests/data/traces/irqsoff.txt").read()
evil_trace = trace.replace("rtlab_inject_busy_wait", "busy" + E)
open(tmp + "/evil-trace.txt", "w").write(evil_trace)
lat = json.load(open(src + "/tests/data/results/latency-host.json"))
lat["notes"] = ["note" + E]
lat["params"]["load"] = "hackbench" + E
lat["answers"] = {"Q1": "answer" + E}
lat["extra"]["scenarios"] = [{"name": "idle" + E, "policy": "other" + E,
                              "policy_requested": "other", "load": "none" + E, "threads": []}]
json.dump(lat, open(tmp + "/evil-latency.json", "w"))
ft = dict(lat, lab="ftrace", notes=["note" + E],
          params={"mode": "tracer", "hunt": False, "seed": "7" + E},
          answers={"cause": "cause" + E, "function": "fn" + E})
ft["extra"] = {"mode": "tracer",
               "tracer": {"name": "irqsoff", "trace_text": evil_trace, "trace_text_truncated": False,
                          "lines": [{"comm": "sh" + E, "cpu": 1, "flags": "d...", "mark": "!",
                                     "time_us": 1.0, "function": "fn" + E, "caller": "c" + E}]},
               "hunt": {"seed": "42" + E, "injector": "kmod" + E, "planted_count": 1}}
ft.pop("views", None)	# the latency fixture's tables: the ftrace lab draws its own
json.dump(ft, open(tmp + "/evil-ftrace.json", "w"))
bad = dict(ft)
del bad["env"]
json.dump(bad, open(tmp + "/invalid-ftrace.json", "w"))
EOF

for doc in evil-latency evil-ftrace; do
	run lab report "$tmp/$doc.json"
	check "$doc: lab report exits 0 with no raw ESC" bash -c "[ $rc -eq 0 ] && ! grep -q '$ESC' '$tmp/out' '$tmp/err'"
	check "... the ESC is shown as \\x1b" grep -qF 'note\x1b[2J\x1b]0;pwned\x07' "$tmp/out"
	run grade "$tmp/$doc.json"
	check "$doc: grade has no raw ESC" no_raw_esc
	run lab report "$tmp/$doc.json" --html "$tmp/$doc.html"
	check "$doc: the HTML report has no raw ESC" \
		bash -c "[ $rc -eq 0 ] && ! grep -q '$ESC' '$tmp/$doc.html' && grep -qF 'note\x1b[2J' '$tmp/$doc.html'"
done
run lab report "$tmp/evil-ftrace.json"
check "the seed and the trace's names are escaped too" \
	bash -c "grep -qF '42\x1b[2J' '$tmp/out' && grep -qF 'fn\x1b[2J' '$tmp/out' && ! grep -q \$'\x1b' '$tmp/out'"
run grade "$tmp/evil-ftrace.json"
check "grade quotes the answer escaped" grep -qF 'answer "cause\x1b[2J\x1b]0;pwned\x07"' "$tmp/out"

run trace explain "$tmp/evil-trace.txt"
check "trace explain: function names escaped, no raw ESC" \
	bash -c "[ $rc -eq 0 ] && ! grep -q '$ESC' '$tmp/out' '$tmp/err' && grep -qF 'in busy\x1b[2J' '$tmp/out'"
run trace explain "$tmp/evil-ftrace.json"
check "... also from a results document" \
	bash -c "[ $rc -eq 0 ] && ! grep -q '$ESC' '$tmp/out' '$tmp/err'"
run trace explain --json "$tmp/evil-trace.txt"
check "trace explain --json stays valid JSON that keeps the name exactly" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert any(e['function'] == 'busy\x1b[2J\x1b]0;pwned\x07' for e in d['entries'])" "$tmp/out"
check "... and holds no raw ESC" no_raw_esc
run trace explain "$tmp/invalid-ftrace.json"
check "a results document that does not validate is refused as by lab report" \
	bash -c "[ $rc -eq 1 ] && grep -qF '$tmp/invalid-ftrace.json: env' '$tmp/err' && [ ! -s '$tmp/out' ]"

run lab answer ftrace cause "planted${ESC}[2J${ESC}]0;pwned"$'\a'
check "lab answer saves an answer holding ESC" [ "$rc" -eq 0 ]
run lab answer ftrace
check "lab answer shows it escaped" \
	bash -c "[ $rc -eq 0 ] && ! grep -q '$ESC' '$tmp/out' && grep -qF 'cause: planted\x1b[2J\x1b]0;pwned\x07' '$tmp/out'"
printf 'z%s[2J\nb\n' "$ESC" >"$tmp/esc-answer"
input=$tmp/esc-answer RTLAB_DATADIR=$tmp/fixtures run quiz 1 --question pick-one
check "a quiz answer holding ESC is refused without echoing it raw" \
	bash -c "[ $rc -eq 0 ] && ! grep -q '$ESC' '$tmp/out' '$tmp/err'"
run lab report "$tmp/missing${ESC}[2J.json"
check "an error message quoting a name holds no raw ESC" \
	bash -c "[ $rc -eq 1 ] && ! grep -q '$ESC' '$tmp/err' && grep -qF 'missing\x1b[2J' '$tmp/err'"

tap_done
