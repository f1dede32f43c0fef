#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 29, item 2: no key of the results or the progress document is read
# by string outside the module that declares it (scripts/check-key-owners;
# accessors.t proves the front ends' half on the objects). The rule is also
# shown to fail: a scratch file that reads a declared key raw, in a copy of
# the tree, is named with its line.
set -u
: "${SRCDIR:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"

out=$("$SRCDIR/scripts/check-key-owners" "$SRCDIR" 2>&1)
rc=$?
sed 's/^/# /' <<<"$out"
check "no results or progress key is read outside its module" [ "$rc" -eq 0 ]
nr=$(sed -n 's/^# [0-9]* keys declared, \([0-9]*\) reads.*/\1/p' <<<"$out")
check "the scan saw the tree's reads (${nr:-none}; at least 300)" [ "${nr:-0}" -ge 300 ]

mkdir -p "$tmp/src"
cp -r "$SRCDIR/rtlab" "$tmp/src/"
cat >"$tmp/src/rtlab/cli/cli_scratch.c" <<'C'
#include <jansson.h>
const char *scratch(json_t *doc)
{
	json_t *labs = json_object_get(doc, "labs");

	return json_string_value(json_object_get(json_object_get(doc, "answers"),
						 "why"));
}
C
out=$("$SRCDIR/scripts/check-key-owners" "$tmp/src" 2>/dev/null)
rc=$?
check "a raw read of the progress document's \"labs\" fails, with its line" \
	grep -q '^rtlab/cli/cli_scratch.c:4: reads "labs" of the progress document' <<<"$out"
check "a raw read of the results document's \"answers\" fails" \
	grep -q '^rtlab/cli/cli_scratch.c:6: reads "answers" of the progress document, results document' <<<"$out"
check "the scan exits 1 then" [ "$rc" -eq 1 ]
tap_done
