#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make install / uninstall honour PREFIX and DESTDIR: binaries (rtlab and the
# FCSE lab's rtlab-fcse-trace), data (lessons,
# labs, slides) and the man page land where they should, the installed binary
# finds its data through the compiled-in prefix, and uninstall removes it all.
# The labs' reference solutions are left out unless WITH_SOLUTIONS=1.
# Builds into its own directory so the main build is not disturbed.
set -u
: "${SRCDIR:?set SRCDIR to the source tree}"

n=0
fails=0
check() {
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fails=$((fails + 1)); fi
}

# Run make afresh, not as a sub-make of the `make check` that runs this test
# (its jobserver is not ours, and make would warn about it).
unset MAKEFLAGS MFLAGS MAKELEVEL

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage

make -C "$SRCDIR" --no-print-directory -j2 BUILD="$tmp/build" DESTDIR="$stage" PREFIX=/usr \
	install >"$tmp/log" 2>&1
rc=$?
check "make install DESTDIR PREFIX=/usr succeeds" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/log" | tail -20

check "binary in usr/bin" test -x "$stage/usr/bin/rtlab"
check "man page in usr/share/man/man1" test -f "$stage/usr/share/man/man1/rtlab.1"
for d in lessons labs slides; do
	check "data dir $d in usr/share/rtlab" test -d "$stage/usr/share/rtlab/$d"
done
nless=$(ls "$SRCDIR"/lessons/*.md | wc -l)
check "every lesson installed ($nless files)" \
	[ "$(ls "$stage"/usr/share/rtlab/lessons/*.md | wc -l)" -eq "$nless" ]
check "installed data is world-readable" \
	bash -c "[ -z \"\$(find '$stage/usr/share/rtlab' ! -perm -o=r)\" ]"
check "the binary looks for data under PREFIX" \
	grep -q '/usr/share/rtlab' "$stage/usr/bin/rtlab"
check "no lab's reference solution is installed" \
	bash -c "[ -z \"\$(find '$stage/usr/share/rtlab/labs' -name reference)\" ]"
check "nor its mutants (wrong solutions one change away from it)" \
	bash -c "[ -z \"\$(find '$stage/usr/share/rtlab/labs' -name mutants)\" ]"
check "the check programs' common files are" test -f "$stage/usr/share/rtlab/labs/common/rtlab_check.c"
check "installed binary runs" bash -c "'$stage/usr/bin/rtlab' --version >/dev/null"
check "installed binary lists doctor" bash -c "'$stage/usr/bin/rtlab' --help | grep -q doctor"
# The FCSE handout's step 6 converts a trace with the lab's trace tool: an
# installed rtlab has no build/ folder, so the tool is installed beside it.
printf '2 8000\n2 8004\n0 100000\n' >"$tmp/t.din"
check "the FCSE trace tool is installed as rtlab-fcse-trace and converts a trace" \
	bash -c "'$stage/usr/bin/rtlab-fcse-trace' convert '$tmp/t.din' '$tmp/t.fct' | grep -q '3 records'"
check "the FCSE handout's step 6 uses that name" \
	grep -q '^ *rtlab-fcse-trace convert prog.lackey prog.fct' "$stage/usr/share/rtlab/labs/fcse/README.md"

nref=$(find "$SRCDIR/labs" -mindepth 2 -maxdepth 2 -type d -name reference | wc -l)
make -C "$SRCDIR" --no-print-directory BUILD="$tmp/build" DESTDIR="$tmp/teacher" PREFIX=/usr \
	WITH_SOLUTIONS=1 install >"$tmp/log" 2>&1
check "WITH_SOLUTIONS=1 installs every lab's reference solution ($nref)" \
	[ "$(find "$tmp/teacher/usr/share/rtlab/labs" -mindepth 2 -maxdepth 2 -type d -name reference | wc -l)" -eq "$nref" ]

make -C "$SRCDIR" --no-print-directory BUILD="$tmp/build" DESTDIR="$stage" PREFIX=/usr \
	uninstall >"$tmp/log" 2>&1
check "make uninstall succeeds" [ $? -eq 0 ]
check "uninstall leaves no files" bash -c "[ -z \"\$(find '$stage' -type f)\" ]"

echo "1..$n"
exit $((fails > 0))
