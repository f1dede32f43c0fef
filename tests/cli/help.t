#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# help.t: every command, every subcommand and every lab answers --help and -h
# with its usage on stdout and exit 0, as the README promises: a learner who
# asks for help never gets an error. The commands come from `rtlab --help`
# and the labs from `rtlab lab list --json`, so new ones are covered.
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"
. "$SRCDIR/tests/cli/lib/tap.bash"

helps() { # helps ARGS...: `rtlab ARGS --help` and `-h` both print a usage, exit 0
	local h
	for h in --help -h; do
		run "$@" "$h"
		[ "$rc" -eq 0 ] && grep -q '^usage: rtlab' "$tmp/out" || {
			echo "# rtlab $* $h: exit $rc: $(head -c 200 "$tmp/err" "$tmp/out" | tr '\n' ' ')"
			return 1
		}
	done
}

run --help
commands=$(sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' "$tmp/out")
check "rtlab --help lists the commands" [ "$(echo "$commands" | wc -w)" -ge 8 ]
for c in $commands; do
	check "rtlab $c --help / -h" helps "$c"
done

for sub in "lab list" "lab list --json" "lab run" "lab report" "lab report x.json" \
	"lab answer" "lab answer latency" "vm build" "vm run" "vm exec" "vm stream" "lesson list" \
	"lesson show" "lesson lint" "progress reset" "trace view" "trace explain" "quiz 01" \
	"grade x.json" "slides list" "slides lint" "slides export" "ci github"; do
	# shellcheck disable=SC2086
	check "rtlab $sub --help / -h" helps $sub
done

run lab list --json
labs=$(python3 -c 'import json,sys; print(" ".join(l["name"] for l in json.load(open(sys.argv[1]))["labs"]))' "$tmp/out")
for lab in $labs; do
	check "rtlab lab run $lab --help / -h" helps lab run "$lab"
done

tap_done
