#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The recipe for a new lab (doc/architecture.md), followed by a test: a copy
# of the tree gets tests/data/recipe/lab_scratch.c as rtlab/labs/lab_scratch.c
# and one line, X(scratch), in LABS; nothing else is edited. Built from the
# tree's own objects (only the new file and the registry compile), the lab
# then shows up everywhere a lab does: `rtlab lab list`, `lab run --help`,
# the man page's lab options, a run and its document, `rtlab grade FILE`,
# the HTML report and the app's menu, where it runs on the plain screen.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tmux.bash" recipe
export RTLAB_DATADIR=$SRCDIR

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	"$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

src=$tmp/src
build=$(dirname "$RTLAB")
mkdir -p "$src/build"
tar -C "$SRCDIR" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$src" -xf -
cp -a "$build/obj" "$build/gen" "$src/build/"
cp "$SRCDIR/tests/data/recipe/lab_scratch.c" "$src/rtlab/labs/lab_scratch.c"
sed -i 's/^\tX(example)$/\tX(example) \\\n\tX(scratch)/' "$src/rtlab/labs/registry.c"
check "the copy's LABS gained X(scratch), its only edit" \
	bash -c "diff '$SRCDIR/rtlab/labs/registry.c' '$src/rtlab/labs/registry.c' |
		grep -c '^[<>]' | grep -qx 3 && grep -q 'X(scratch)' '$src/rtlab/labs/registry.c'"
start=$(date +%s)
make -C "$src" BUILD=build build/rtlab >"$tmp/make.log" 2>&1
rc=$?
echo "# built in $(($(date +%s) - start)) s: $(grep -c '^  CC' "$tmp/make.log") file(s) compiled"
check "the copy builds (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/make.log" | tail -20
check "... compiling the new lab and the registry, not the whole tree" \
	bash -c "[ \$(grep -c '^  CC' '$tmp/make.log') -le 4 ] &&
		grep -q 'CC      rtlab/labs/lab_scratch.c' '$tmp/make.log'"
RTLAB=$src/build/rtlab

run lab list
check "rtlab lab list shows it, ready, as a simulation" grep -qE '^scratch +ready +simulation' "$tmp/out"
run lab run scratch --help
check "lab run scratch --help lists its scenario" grep -qE '^  count ' "$tmp/out"
run lab man-options
check "the man page's lab options have it" grep -q 'scratch' "$tmp/out"
run lab run scratch --seed 7 --json "$tmp/s.json"
check "a run exits 0 and prints its view" \
	bash -c "[ $rc -eq 0 ] && grep -q '^Scratch lab: what was counted' '$tmp/out'"
check "its document holds the scenario and the seed" \
	bash -c "jq -e '.lab == \"scratch\" and .params.seed == \"7\" and
		.extra.scenarios[0].steps_count == 7' '$tmp/s.json' >/dev/null"
run grade "$tmp/s.json"
check "rtlab grade FILE grades it with its own check" grep -qE 'PASS +counted' "$tmp/out"
run lab report "$tmp/s.json" --html "$tmp/s.html"
check "the HTML report draws its view" grep -q 'Scratch lab: what was counted' "$tmp/s.html"

tui_start run 80x24
check "the app's menu lists it" move_to run "A scratch lab of the recipe"
tm send-keys -t run Enter
check "Enter opens the plain screen" wait_for run "Here: simulation"
tm send-keys -t run Enter
check "Enter runs it and shows its view" wait_for run "Scratch lab: what was counted" 120

tap_done
