#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The labs' options come from their tables (rtlab/labs/lab_opts.c): `rtlab
# lab run --help` is the command's help, `rtlab lab run LAB --help` the
# lab's options; a bad value is a usage error naming the option; --seed
# works for every lab and the seed used, given or from the clock, is in the
# document as params.seed; doc/rtlab.1's LAB OPTIONS section is what the
# tables print (`make man`). TAP for prove. Needs RTLAB and SRCDIR; root and
# a writable tracefs for the ftrace run. About 5 s.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"

json_get() { # json_get FILE PYTHON-EXPR(d)
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$1"
}

# ---- --help ------------------------------------------------------------------------
for h in --help -h; do
	run lab run $h
	check "'lab run $h' prints the command's help (exit 0, got $rc)" \
		bash -c "[ $rc -eq 0 ] && grep -q '^usage: rtlab lab ' '$tmp/out'"
	check "'lab run $h' is not taken for a lab's name" bash -c "! grep -q 'no lab called' '$tmp/out' '$tmp/err'"
done

run lab run latency --help
check "'lab run latency --help' exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "and prints the latency lab's usage" grep -q '^usage: rtlab lab run latency ' "$tmp/out"
check "with its options and defaults" \
	bash -c "grep -q '^  --scenario S\[,S\]' '$tmp/out' && grep -q '^  --dma-latency ' '$tmp/out' && grep -q 'Default: 15s\.' '$tmp/out'"
check "and the options of every lab" \
	bash -c "grep -q '^  --seed N ' '$tmp/out' && grep -q '^  --json FILE ' '$tmp/out'"
check "and nothing on stderr" [ ! -s "$tmp/err" ]

run lab run ftrace --hunt --help
check "'lab run ftrace --hunt --help' prints the ftrace lab's options (exit 0, got $rc)" \
	bash -c "[ $rc -eq 0 ] && grep -q '^  --tracer NAME ' '$tmp/out' && grep -q '^  --no-busy ' '$tmp/out'"

# A lab still planned, whichever it is today.
planned=$("$RTLAB" lab list | awk '$2 == "planned" { print $1; exit }')
if [ -n "$planned" ]; then
	run lab run "$planned" --help
	check "a planned lab's --help says it is planned (exit 0, got $rc)" \
		bash -c "[ $rc -eq 0 ] && grep -q 'planned and not available yet' '$tmp/out'"
else
	skip "a planned lab's --help: no lab is planned any more"
fi

run lab --help
check "'lab --help' points to the labs' own help" grep -qF 'rtlab lab run LAB --help' "$tmp/out"

# ---- Bad values: usage errors that name the option --------------------------------------
bad() { # bad EXPECTED-TEXT ARGS...
	local want=$1
	shift
	run lab run "$@"
	check "'lab run $*' is a usage error naming the option (exit 2, got $rc)" \
		bash -c "[ $rc -eq 2 ] && grep -qF -- \"\$1\" '$tmp/err' && grep -q '^usage: rtlab lab' '$tmp/err'" _ "$want"
}
bad '--threads: 65 is out of range (1..64)' latency --threads 65
bad '--duration: expected a duration' latency --duration ten
bad '--policy: expected other, fifo, rr or deadline' latency --policy=edf
bad '--priority needs --policy fifo or rr' latency --policy other --priority 5
bad '--seed: "12x" is not a whole number' latency --seed 12x
bad '--seed: "-1" is not a whole number' ftrace --seed -1
bad '--tracer needs --mode tracer' ftrace --mode events --tracer irqsoff
bad '--json needs a value' ftrace --json
bad 'unknown option "--bogus"' ftrace --bogus

if [ -n "$planned" ]; then
	run lab run "$planned" --seed 1
	check "a planned lab with --seed still says it is planned (exit 1, got $rc)" \
		bash -c "[ $rc -eq 1 ] && grep -q 'planned and not available yet' '$tmp/err'"
else
	skip "a planned lab with --seed: no lab is planned any more"
fi

# ---- The seed is recorded -----------------------------------------------------------
run lab run latency --scenario idle-other --duration 300ms --seed 12345 --json "$tmp/s.json"
check "a latency run with --seed 12345 exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "its document records params.seed \"12345\"" \
	[ "$(json_get "$tmp/s.json" 'd["params"]["seed"]')" = 12345 ]
run lab run latency --scenario idle-other --duration 300ms --json "$tmp/c.json"
check "without --seed, a seed from the clock is recorded all the same" \
	[ "$(json_get "$tmp/c.json" 'd["params"]["seed"].isdigit() and len(d["params"]["seed"]) > 6')" = True ]
check "and the document still validates" bash -c "'$RTLAB' lab report '$tmp/c.json' >/dev/null"

if [ "$(id -u)" -ne 0 ] || [ ! -w /sys/kernel/tracing/instances ]; then
	skip "ftrace --seed without --hunt: needs root and a writable tracefs"
else
	run lab run ftrace --duration 1s --no-cross-check --seed 77 --json "$tmp/f.json"
	check "ftrace takes --seed without --hunt (exit 0, got $rc)" [ "$rc" -eq 0 ]
	check "and records params.seed \"77\"" [ "$(json_get "$tmp/f.json" 'd["params"]["seed"]')" = 77 ]
fi

# ---- The man page ------------------------------------------------------------------------
run lab man-options
check "'lab man-options' prints the section (exit 0, got $rc)" \
	bash -c "[ $rc -eq 0 ] && head -1 '$tmp/out' | grep -qx '.SH LAB OPTIONS'"
check "doc/rtlab.1's LAB OPTIONS section is up to date with the tables (else: make man)" \
	"$SRCDIR/scripts/man-lab-options" "$RTLAB" "$SRCDIR/doc/rtlab.1" --check
cp "$SRCDIR/doc/rtlab.1" "$tmp/stale.1"
sed -i 's/^Measuring threads, at most 64\./Measuring threads./' "$tmp/stale.1"
check "and the check fails on a page that differs" \
	bash -c "! '$SRCDIR/scripts/man-lab-options' '$RTLAB' '$tmp/stale.1' --check 2>/dev/null"

tap_done
