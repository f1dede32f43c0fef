#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# layers.t: scripts/check-layers, the rule that keeps rtlab's folders from
# including each other (doc/architecture.md). It passes on the tree, and
# fails, naming the file and line, on a fixture tree that breaks the rule.
: "${SRCDIR:?set SRCDIR to the source tree}"
. "$SRCDIR/tests/cli/lib/tap.bash"

tree=$tmp/tree
mkdir "$tree"

check "the source tree keeps its layers" "$SRCDIR/scripts/check-layers" "$SRCDIR"

mkdir -p "$tree/rtlab/core" "$tree/rtlab/labs" "$tree/rtlab/attic"
printf '#include "core/rt_buf.h"\n' >"$tree/rtlab/labs/lab_x.c"
printf '#include "rt_buf.h"\n' >"$tree/rtlab/core/rt_buf.c"
rmdir "$tree/rtlab/attic"
check "a lab including core is fine" "$SRCDIR/scripts/check-layers" "$tree"

printf '/* up */\n#include "labs/lab.h"\n' >"$tree/rtlab/core/rt_up.c"
"$SRCDIR/scripts/check-layers" "$tree" >"$tmp/out" 2>&1
rc=$?
check "core including labs fails" [ "$rc" -eq 1 ]
check "and names the file and line" grep -q 'rtlab/core/rt_up.c:2 : core (layer 0) includes labs (layer 2)' "$tmp/out"

rm "$tree/rtlab/core/rt_up.c"
mkdir "$tree/rtlab/newroom"
"$SRCDIR/scripts/check-layers" "$tree" >"$tmp/out" 2>&1
rc=$?
check "a folder in no layer fails" [ "$rc" -eq 1 ]
check "and says where to add it" grep -q 'rtlab/newroom/ is in no layer' "$tmp/out"

tap_done
