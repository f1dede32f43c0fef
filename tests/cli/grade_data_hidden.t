#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Graded code never sees rtlab's data folder (the labs' references, check
# sources and data/), wherever it is: an installed rtlab (`make install
# DESTDIR=...`, WITH_SOLUTIONS=1, seen at /usr/local through a bind mount in
# a mount namespace of this test's own, so the host is not touched) and a
# source tree (RTLAB_DATADIR). Two attacks on the FCSE exercise, in each
# sandbox mode (namespaces; --no-namespaces; root without CAP_SYS_ADMIN):
#   - at build time, fcse_pid.c only #includes the installed reference;
#   - at run time, the reference that gives wrong answers whenever it can
#     open the data folder (so it scores 100 % only when it cannot).
set -u
: "${RTLAB:?}" "${SRCDIR:?}" "${TOOLS:?}"
. "$SRCDIR/tests/cli/lib/tap.bash"

if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v setpriv >/dev/null; then
	skip "needs root, unshare and setpriv (a private mount of /usr/local)"
	tap_done
fi

inst=$tmp/inst
make -s -C "$SRCDIR" install DESTDIR="$inst" PREFIX=/usr/local WITH_SOLUTIONS=1 \
	>"$tmp/err" 2>&1
check "make install DESTDIR=... WITH_SOLUTIONS=1 works" \
	test -f "$inst/usr/local/share/rtlab/labs/fcse/reference/fcse_pid.c"

# include-ref: the attack at build time; peek-ref: the one at run time.
mkwork() { # mkwork DIR DATA
	mkdir -p "$1/include" "$1/peek"
	printf '#include "%s/labs/fcse/reference/fcse_pid.c"\n' "$2" >"$1/include/fcse_pid.c"
	python3 - "$SRCDIR/labs/fcse/reference/fcse_pid.c" "$1/peek/fcse_pid.c" "$2" <<'PY'
import sys
src = open(sys.argv[1]).read()
peek = ('#include <fcntl.h>\n#include <unistd.h>\n'
        'static int seen(void)\n{\n'
        '\tint fd = open("%s/labs/fcse/reference/fcse_pid.c", O_RDONLY);\n\n'
        '\tif (fd >= 0)\n\t\tclose(fd);\n\treturn fd >= 0;\n}\n'
        % sys.argv[3])
# Every function returning a value answers wrong when the data is in sight.
src = src.replace("\treturn ", "\tif (seen())\n\t\treturn 0;\n\treturn ", 1)
src = src.replace('#include "fcse_pid.h"\n', '#include "fcse_pid.h"\n' + peek, 1)
open(sys.argv[2], "w").write(src)
PY
	chmod -R a+rX "$1"
}

# graded WHERE DESC RTLAB ARGS...: run in a mount namespace with the install on /usr/local.
graded() {
	unshare -m --propagation private sh -c \
		'mount --bind "$0/usr/local" /usr/local && exec "$@"' "$inst" "$@" \
		>"$tmp/out" 2>"$tmp/err" </dev/null
}

score() { jq -r '.score_pct' "$tmp/out" 2>/dev/null; }

mkwork "$tmp/w-inst" /usr/local/share/rtlab
mkwork "$tmp/w-src" "$SRCDIR"

for mode in ns no-ns no-cap; do
	case $mode in
	ns) pre=() extra=() ;;
	no-ns) pre=() extra=(--no-namespaces) ;;
	no-cap) pre=(setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin --) extra=() ;;
	esac
	graded "${pre[@]}" /usr/local/bin/rtlab grade fcse --work "$tmp/w-inst/include" --json \
		"${extra[@]}"
	check "$mode, installed: #include of the installed reference does not compile" \
		bash -c "jq -e '.checks[0].reason | startswith(\"the code does not compile\")' '$tmp/out' >/dev/null"
	graded "${pre[@]}" /usr/local/bin/rtlab grade fcse --work "$tmp/w-inst/peek" --json \
		"${extra[@]}"
	check "$mode, installed: the run cannot open the data folder (100 %, got $(score))" \
		[ "$(score)" = 100 ]
	RTLAB_DATADIR=$SRCDIR "${pre[@]}" "$RTLAB" grade fcse --work "$tmp/w-src/include" --json \
		"${extra[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
	check "$mode, source tree: #include of the tree's reference does not compile" \
		bash -c "jq -e '.checks[0].reason | startswith(\"the code does not compile\")' '$tmp/out' >/dev/null"
	RTLAB_DATADIR=$SRCDIR "${pre[@]}" "$RTLAB" grade fcse --work "$tmp/w-src/peek" --json \
		"${extra[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
	check "$mode, source tree: the run cannot open the tree's labs (100 %, got $(score))" \
		[ "$(score)" = 100 ]
done

tap_done
