#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tsan.sh: the cookie exercise's ThreadSanitizer check, which rtlab grade
# cannot run (it builds one subject per exercise, with cc): build the
# subject and your cookie.c with clang -fsanitize=thread and run the real
# threads; any report fails. The plate's operations (subject.c) are C11
# atomics, so TSan sees every access of the driver; what it reports is
# shared state of your own touched without an atomic or the hand-over.
# The replay, not TSan, is the proof against races between atomic
# operations in the wrong order (doc/exercises.md, labs/cookie/README.md).
#
# Usage: labs/cookie/checks/tsan.sh [WORKDIR]   (default: your work folder)
# Exit 0: no report; 1: a report (printed); 2: could not build or run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-${XDG_STATE_HOME:-$HOME/.local/state}/rtlab/work/cookie}
cc=${TSAN_CC:-clang}
if [ ! -f "$work/cookie.c" ]; then
	echo "tsan.sh: no cookie.c in $work (rtlab lab start cookie, or name the folder)" >&2
	exit 2
fi
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "tsan.sh: $cc is missing (make deps installs clang and libclang-rt-14-dev)" >&2
	exit 2
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cp "$here/subject.c" "$here/cookie.h" "$here/cookie_step.h" "$tmp/"
cp "$work/cookie.c" "$tmp/cookie.c"
if ! "$cc" -std=gnu11 -O1 -g -fsanitize=thread -I"$tmp" -o "$tmp/subject" \
	"$tmp/subject.c" "$tmp/cookie.c" -lpthread 2>"$tmp/cc.err"; then
	echo "tsan.sh: the TSan build failed:" >&2
	head -20 "$tmp/cc.err" >&2
	exit 2
fi
status=0
for run in "2 200000" "4 100000"; do
	# shellcheck disable=SC2086
	if ! TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tmp/subject" threads $run \
		>"$tmp/out" 2>"$tmp/err"; then
		if grep -q "WARNING: ThreadSanitizer" "$tmp/err"; then
			echo "tsan.sh: ThreadSanitizer reports a data race (threads $run):"
			sed -n '1,40p' "$tmp/err"
			status=1
		else
			echo "tsan.sh: the subject failed (threads $run):" >&2
			cat "$tmp/err" >&2
			status=2
		fi
		break
	fi
done
[ "$status" -eq 0 ] && echo "tsan.sh: no ThreadSanitizer report ($work/cookie.c)"
exit "$status"
