#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# licence.t: the tree follows the REUSE specification (LICENSE says how):
# `reuse lint` finds a copyright and a licence for every file (.reuse/dep5,
# LICENSES/), and the code says its licence in its first lines: the kernel
# module GPL-2.0-only, as the kernel requires, in its source and in the lab
# kernel's patch alike; rtlab's C files GPL-2.0-or-later.
: "${SRCDIR:?set SRCDIR to the source tree}"

if ! command -v reuse >/dev/null; then
	echo "1..0 # skip reuse is not installed (make deps)"
	exit 0
fi

. "$SRCDIR/tests/cli/lib/tap.bash"

# reuse tells the build outputs (build/, *.o) from the sources by .gitignore,
# which it reads only in a git checkout: elsewhere it would judge them too.
if git -C "$SRCDIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	reuse --root "$SRCDIR" lint >"$tmp/lint" 2>&1
	rc=$?
	check "reuse lint: the tree is REUSE compliant (exit $rc)" [ "$rc" -eq 0 ]
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$tmp/lint"
	check "and it names the three licences in use" \
		grep -qx '\* Used licenses: CC-BY-SA-4.0, GPL-2.0-only, GPL-2.0-or-later' "$tmp/lint"
else
	skip "reuse lint: $SRCDIR is not a git checkout, so reuse cannot tell build outputs from sources"
	skip "reuse lint names the licences in use"
fi

check "LICENSE and the three licence texts are there" \
	test -s "$SRCDIR/LICENSE" -a -s "$SRCDIR/LICENSES/GPL-2.0-or-later.txt" \
	-a -s "$SRCDIR/LICENSES/GPL-2.0-only.txt" -a -s "$SRCDIR/LICENSES/CC-BY-SA-4.0.txt"

# The SPDX lines below are patterns, not this file's licence: reuse skips them.
# REUSE-IgnoreStart
check "the kernel module says GPL-2.0-only" \
	bash -c "head -n 1 '$SRCDIR/kernel-patches/rtlab_inject/rtlab_inject.c' |
		grep -qx '// SPDX-License-Identifier: GPL-2.0-only'"
check "and so does its copy in the lab kernel's patch" \
	grep -qx '+// SPDX-License-Identifier: GPL-2.0-only' \
	"$SRCDIR/kernel-patches/lab/0001-misc-add-rtlab_inject-latency-injector.patch"

check "a C file of rtlab says GPL-2.0-or-later" \
	bash -c "head -n 1 '$SRCDIR/rtlab/core/rt_buf.c' |
		grep -qx '/\* SPDX-License-Identifier: GPL-2.0-or-later \*/'"

# Every C file of rtlab, the labs, the tests and the tools opens with it (a new
# file without it would still pass reuse lint, by .reuse/dep5).
: >"$tmp/bare"
for d in rtlab labs tests/unit tests/fuzz tests/tools tests/arm tests/fcse bench tools; do
	find "$SRCDIR/$d" -type f \( -name '*.c' -o -name '*.h' \) -not -path '*/corpus/*'
done | while read -r f; do
	head -n 1 "$f" | grep -qx '/\* SPDX-License-Identifier: GPL-2.0-or-later \*/' ||
		echo "${f#"$SRCDIR"/}" >>"$tmp/bare"
done
# REUSE-IgnoreEnd
cp "$tmp/bare" "$tmp/err"
check "every C file opens with its SPDX line ($(wc -l <"$tmp/bare") without, listed below if any)" \
	[ ! -s "$tmp/bare" ]

tap_done
