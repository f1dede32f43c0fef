#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fcse_valgrind.t: the FCSE model's caches against valgrind's cachegrind.
# tests/fcse/cg_walk.c (no C library: the trace is its loop) runs under
# lackey --trace-mem=yes and under cachegrind; build/fcse-trace replays
# lackey's trace once, as one process, with LRU replacement and
# write-allocate (what cachegrind simulates) and cachegrind's geometry.
# I refs, I1 misses, D refs and D1 misses must be equal: the model counts
# an access that straddles two lines (x86 fetches often do) as one miss
# when either line misses, as cachegrind does; its fills_count counts the
# lines fetched, which is more where both missed. Skipped where valgrind or
# an x86-64 gcc is missing (CI has both).
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

. "$SRCDIR/tests/cli/lib/tap.bash"

tool=$(dirname "$RTLAB")/fcse-trace
if ! command -v valgrind >/dev/null 2>&1 || [ "$(uname -m)" != x86_64 ]; then
	skip "no valgrind on this x86-64 machine"
	tap_done
fi

gcc -O1 -static -nostdlib -fno-stack-protector -fno-pie -no-pie -o "$tmp/walk" \
	"$SRCDIR/tests/fcse/cg_walk.c" 2>"$tmp/err"
check "the walker builds without a C library" [ -x "$tmp/walk" ]

# lackey is slow (about 2 M accesses here): once, bounded.
timeout 600 valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/walk.lackey" "$tmp/walk" \
	2>"$tmp/err"
check "lackey traced it" grep -q '^ L ' "$tmp/walk.lackey"
"$tool" convert "$tmp/walk.lackey" "$tmp/walk.fct" >"$tmp/convert" 2>"$tmp/err"
check "the trace converts to the binary format" grep -q 'records' "$tmp/convert"

# field FILE NAME: the number after NAME (commas dropped)
field() { sed -nE "s/^(==[0-9]+== )?$2:? +([0-9,]+).*/\2/p" "$1" | head -1 | tr -d ','; }

for geom in 16384,4 8192,2 32768,8 4096,1; do
	size=${geom%,*} ways=${geom#*,}
	timeout 300 valgrind --tool=cachegrind --cache-sim=yes --I1=$size,$ways,32 \
		--D1=$size,$ways,32 --LL=4194304,16,64 --cachegrind-out-file=/dev/null \
		"$tmp/walk" 2>"$tmp/cg" >/dev/null
	"$tool" sim "$tmp/walk.fct" --icache "$geom" --dcache "$geom" --repl lru \
		--write-allocate >"$tmp/ours" 2>"$tmp/err"
	for what in "I refs" "I1 misses" "D refs" "D1 misses"; do
		theirs=$(field "$tmp/cg" "${what/ /  *}")
		mine=$(field "$tmp/ours" "$what")
		if [ -n "$theirs" ] && [ "$theirs" = "$mine" ]; then
			ok "$geom: $what equal ($mine)"
		else
			not_ok "$geom: $what equal" "cachegrind '$theirs', the model '$mine'"
		fi
	done
	straddles=$(field "$tmp/ours" straddles)
	fills=$(field "$tmp/ours" fills)
	misses=$(( $(field "$tmp/ours" "I1 misses") + $(field "$tmp/ours" "D1 misses") ))
	check "$geom: fills - misses ($fills - $misses) is at most the straddles ($straddles)" \
		[ "$fills" -ge "$misses" ] && [ $((fills - misses)) -le "$straddles" ]
done
check "the trace has straddling accesses, so the rule was exercised" [ "${straddles:-0}" -gt 0 ]

tap_done
