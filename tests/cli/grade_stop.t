#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A stopped grader leaves nothing running. `rtlab grade` is started as the
# child of a subreaper (tests/tools/reaper.py) and stopped by SIGINT,
# SIGTERM or SIGHUP while it compiles (0.3 s in), while the check program
# runs and while a subject that never returns runs, in the namespaced mode and
# without namespaces, alone and in class mode; whatever it started and
# left would become the subreaper's child, which counts it.
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"
export RTLAB_DATADIR=$SRCDIR

reaper=$SRCDIR/tests/tools/reaper.py
ref=$tmp/ref
mkdir -p "$ref" "$tmp/class/a/cookie" "$tmp/class/b/cookie"
cp "$SRCDIR/labs/cookie/reference/cookie.c" "$ref/"
cp "$ref/cookie.c" "$tmp/class/a/cookie/"
cp "$ref/cookie.c" "$tmp/class/b/cookie/"
# A submission that never returns: the stop comes while the subject runs.
hang=$tmp/hang
mkdir -p "$hang" "$tmp/class/c/cookie"
python3 - "$ref/cookie.c" "$hang/cookie.c" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
# Every function body starts with an endless loop.
src = re.sub(r"\)\n\{\n", ")\n{\n\tfor (volatile int spin = 1; spin;)\n\t\t;\n", src)
open(sys.argv[2], "w").write(src)
PY
cp "$hang/cookie.c" "$tmp/class/c/cookie/"

# stopped DESC SIGNAL STAGES ARGS...: stopped while each of STAGES runs, nothing left.
stopped() {
	local desc=$1 sig=$2 stages=$3 bad="" d out
	shift 3
	for d in $stages; do
		out=$(TMPDIR=$tmp python3 "$reaper" "$sig" "$d" "$RTLAB" grade "$@" 2>&1 | tr '\n' ' ')
		case $out in
		*"left=0"*) ;;
		*) bad="$bad [at $d s: $out]" ;;
		esac
	done
	if [ -z "$bad" ]; then ok "$desc"; else not_ok "$desc" "$bad"; fi
}

# Every stage with SIGTERM; SIGINT and SIGHUP take the same path (grade_stop).
for sig in TERM INT HUP; do
	stages=subject
	# 0.3 s in: compiling; "check": the check program (alive while the subject hangs).
	[ $sig = TERM ] && stages="0.3 check subject"
	stopped "SIG$sig ends every job it started (namespaces; $stages)" "$sig" "$stages" \
		cookie --work "$hang"
	stopped "SIG$sig ends every job it started (--no-namespaces; $stages)" "$sig" "$stages" \
		cookie --work "$hang" --no-namespaces
done
stopped "SIGTERM ends every job of a class" TERM subject --class "$tmp/class" --lab cookie \
	--jobs 2

TMPDIR=$tmp python3 "$reaper" TERM 1 "$RTLAB" grade cookie --work "$ref" >"$tmp/out" 2>&1
check "the grader itself ends by the signal" grep -q '^exit=-15 ' "$tmp/out"

tap_done
