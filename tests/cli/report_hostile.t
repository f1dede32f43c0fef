#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `rtlab lab report` and `rtlab grade` on hostile results documents: numbers
# that once made the SVG writer loop forever (a bucket 1e308 wide) or print
# 300-digit coordinates (a first bucket at -1e300) are refused with the JSON
# path, fast, in bounded memory; the extremes the validator accepts draw a
# small picture. Every command runs under `timeout 10` and `ulimit -v`.
# TAP output for prove. Needs RTLAB and SRCDIR. About 2 s.
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

# shellcheck source=tests/cli/lib/tap.bash
. "$SRCDIR/tests/cli/lib/tap.bash"

# run ARGS...: rtlab with 10 s and 1 GB of address space at most -> $tmp/out, $tmp/err, $rc
run() {
	(ulimit -v 1048576; exec timeout 10 "$RTLAB" "$@") >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

# not_long FILE: no number in FILE has more than 16 digits
not_long() { ! grep -qE '[0-9]{17}' "$1"; }

# mkdoc NAME PYTHON: the latency fixture changed by PYTHON (on d) -> $tmp/NAME.json
mkdoc() {
	python3 - "$SRCDIR/tests/data/results/latency-host.json" "$tmp/$1.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
EOF
}

mkdoc wide 'd["histograms"][0]["bucket_width"] = 1e308'
mkdoc low 'd["histograms"][0]["first_bucket"] = -1e300'
mkdoc big 'd["summary"]["p99_us"] = 1e300'
mkdoc many 'd["histograms"][0]["counts"][3] = 10**16'
check "the hostile documents are small" [ "$(wc -c <"$tmp/wide.json")" -lt 6144 ]

for out in --svg --html; do
	run lab report "$tmp/wide.json" "$out" "$tmp/w.out"
	check "report $out of a 1e308-wide bucket ends (exit 1, not a timeout)" [ "$rc" -eq 1 ]
	check "and names the field and the range" grep -qF \
		"wide.json: histograms[0].bucket_width: 1e308 is out of range (0 < width <= 1e6)" \
		"$tmp/err"
	check "and writes no file" [ ! -e "$tmp/w.out" ]
	run lab report "$tmp/low.json" "$out" "$tmp/l.out"
	check "report $out of a first bucket at -1e300 exits 1" [ "$rc" -eq 1 ]
	check "and names the field and the range" grep -qF \
		"low.json: histograms[0].first_bucket: -1e300 is out of range (-1e9 <= first <= 1e9)" \
		"$tmp/err"
done
run lab report "$tmp/big.json"
check "the text report refuses a summary value of 1e300" \
	bash -c "[ $rc -eq 1 ] && grep -qF 'summary.p99_us: 1e300 is out of range' '$tmp/err'"
run grade "$tmp/many.json"
check "grade refuses a bucket count of 1e16" \
	bash -c "[ $rc -eq 1 ] && grep -qF 'histograms[0].counts[3]: 1e16 is out of range' '$tmp/err'"

# The extremes the validator accepts: a million buckets, the widest, the lowest.
mkdoc edge 'd["histograms"] = [
	{"name": "million", "unit": "us", "bucket_width": 1, "first_bucket": 0,
	 "counts": [i % 5 for i in range(1000000)], "overflow_count": 0},
	{"name": "widest", "unit": "s", "bucket_width": 1e6, "first_bucket": -1e9,
	 "counts": [1] * 1000, "overflow_count": 10**15 - 1000}]'
run lab report "$tmp/edge.json" --svg "$tmp/e.svg" --html "$tmp/e.html"
check "the extremes in range draw (exit 0)" [ "$rc" -eq 0 ]
check "into a small SVG" [ "$(wc -c <"$tmp/e.svg")" -lt 65536 ]
check "whose numbers are short" not_long "$tmp/e.svg"
check "and a small HTML page" [ "$(wc -c <"$tmp/e.html")" -lt 131072 ]
if command -v xmllint >/dev/null 2>&1; then
	check "the SVG is well-formed XML" xmllint --noout "$tmp/e.svg"
fi
run lab report "$tmp/edge.json" --cyclictest-hist
check "the cyclictest layout of a million rows is printed (exit 0)" [ "$rc" -eq 0 ]
check "with every row" [ "$(grep -c '^[0-9]\{6,\} ' "$tmp/out")" -eq 1000000 ]

tap_done
