#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rtlab.result/2 from the command line: a run writes /2 with overflow
# buckets and every percentile as a number with its resolution (also beyond
# --hist-max); the text, HTML and cyclictest reports show them; documents of
# the older rtlab.result/1 are still read, their percentiles above the bound
# shown as "beyond N us"; a newer version is refused with both names.
# TAP output for prove. Needs RTLAB and SRCDIR. About 10 s (a 1 s run).
set -u
: "${RTLAB:?set RTLAB to the rtlab binary}" "${SRCDIR:?set SRCDIR to the source tree}"

# shellcheck source=tests/cli/lib/tap.bash
. "$SRCDIR/tests/cli/lib/tap.bash"
v1=$SRCDIR/tests/data/results/latency-host-v1.json

run() { # run ARGS... -> $tmp/out, $tmp/err, $rc
	timeout 60 "$RTLAB" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
# json_get FILE PYTHON-EXPR -> prints the value; the expression sees d (the
# document), s (its summary), h (its first histogram), b (h's overflow
# buckets) and c (the first scenario), where they exist.
json_get() {
	python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
s = d.get('summary', {})
h = (d.get('histograms') or [{}])[0]
b = h.get('overflow_buckets', [])
c = (d.get('extra', {}).get('scenarios') or [{}])[0]
print(($2))" "$1"
}

# ---- a run beyond the 1 us buckets ----------------------------------------------
# --hist-max 1: every wake-up lands in the overflow region, so its buckets,
# percentiles and resolutions are all exercised, as on a slow VM.
doc=$tmp/run.json
run lab run latency --scenario idle-other --duration 1s --hist-max 1 --json "$doc"
check "a run with --hist-max 1 exits 0" [ "$rc" -eq 0 ]
check "it writes rtlab.result/2" [ "$(json_get "$doc" 'd["schema"]')" = rtlab.result/2 ]
check "every sample overflowed, and the overflow buckets hold them all" \
	[ "$(json_get "$doc" '(sum(h["counts"]), sum(b[2] for b in h["overflow_buckets"]) == h["overflow_count"] > 0)')" = "(0, True)" ]
check "the buckets ascend, apart, each at most 1/32 of its edge wide (or 1 us)" \
	[ "$(json_get "$doc" 'all(x[0] < x[1] and (x[1] - x[0]) * 32 <= max(x[0], 32) for x in b) and all(b[i][1] <= b[i + 1][0] for i in range(len(b) - 1))')" = True ]
check "p99 is a number with its resolution, in the summary and the scenario" \
	[ "$(json_get "$doc" '(s["p99_us"] > 1, s["p99_resolution_us"] >= 1, c["percentiles"]["p99"]["resolution_us"] >= 1, "p99_above_bound" in c)')" = "(True, True, True, False)" ]
res=$(json_get "$doc" 'd["extra"]["scenarios"][0]["p99_resolution_us"]')
p99=$(json_get "$doc" 'd["extra"]["scenarios"][0]["p99_us"]')
# The scenarios view's p99 cell: the value, then "+-" and the bucket's width when wider than 1 us.
if [ "$res" -gt 1 ]; then want="$p99+-$res"; else want="$p99"; fi
p99_row() { grep -qE "^  idle-other +complete +other +[0-9]+ +[0-9.]+ +[0-9.]+ +$(printf '%s' "$want" | sed 's/+/\\+/g') " "$tmp/out"; }
check "the text report's scenarios view says p99 '$want'" p99_row
run lab report "$doc"
check "and so does lab report" p99_row
run lab report "$doc" --cyclictest-hist
check "the cyclictest layout still reports the overflows as cyclictest does" \
	grep -qx "# Histogram Overflows: $(printf '%05d' "$(json_get "$doc" 'd["histograms"][0]["overflow_count"]')")" "$tmp/out"
run lab report "$doc" --html "$tmp/run.html"
check "the HTML lists the percentiles, none 'beyond' anything" \
	bash -c "grep -q '<h2>Percentiles</h2>' '$tmp/run.html' && ! grep -q '<td[^>]*>beyond' '$tmp/run.html'"

# ---- rtlab.result/1 is still read ------------------------------------------------
run grade "$v1"
check "grade reads an rtlab.result/1 document (exit 0 or 1, no schema error)" \
	bash -c "[ $rc -le 1 ] && ! grep -q schema '$tmp/err'"
python3 - "$v1" "$tmp/old.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["extra"]["scenarios"] = [{"name": "load-other", "policy": "other", "policy_requested": "other",
	"p99_us": 2000, "p99_above_bound": True, "samples_count": 60000,
	"percentiles": {"p99": {"value_us": 2000, "above_bound": True, "meaningful": True}}}]
json.dump(d, open(sys.argv[2], "w"))
EOF
run lab report "$tmp/old.json"
check "a /1 percentile above the bound reads '>2000' in the scenarios view" \
	grep -qE '^  load-other +complete +other +60000 .* >2000 ' "$tmp/out"
run lab report "$tmp/old.json" --html "$tmp/old.html"
check "in the HTML too, per scenario and per histogram" \
	bash -c "grep -qF '<td>&gt;2000</td>' '$tmp/old.html' && grep -qF '<td>beyond 40</td>' '$tmp/old.html'"
sed 's|"rtlab.result/1"|"rtlab.result/3"|' "$v1" >"$tmp/new.json"
run lab report "$tmp/new.json"
check "a newer version is refused, naming what this rtlab reads" \
	bash -c "[ $rc -eq 1 ] && grep -qF 'schema: unsupported version \"rtlab.result/3\" (this rtlab reads rtlab.result/2 and rtlab.result/1)' '$tmp/err'"

tap_done
