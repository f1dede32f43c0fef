#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Compare the classroom VM's stock and rt kernels with the latency lab: throughput (work per
# second) and latency, booting the two kernels alternately so that a slow patch of the host
# hits both.
#
#   compare-stock-rt.sh OUT_DIR [BOOTS]
#
# Each boot (BOOTS per kernel, default 3: stock, rt, stock, rt, ...) runs inside the VM
#   rtlab lab run latency --scenario throughput --duration $TPUT --repeats $REPEATS
#   rtlab lab run latency --scenario idle-other,idle-other-noslack,idle-fifo,load-other,
#        load-fifo,load-fifo-mlock-pinned[,load-fifo-rt on rt] --duration $DUR
# and keeps the two documents as OUT_DIR/NN-KERNEL-throughput.json and -latency.json; then
# it prints one line per boot and workload, the runs of each kernel pooled (with each run
# over the cpu control's run of the same repeat, per million iterations), and one line per
# boot and latency scenario (tab-separated, for sort and awk). With BOOTS 0 it only prints
# what OUT_DIR holds.
# Environment: RTLAB (default: rtlab in PATH), RTLAB_VM_DIR (the images), ACCEL (default
# tcg), TPUT (default 20s), REPEATS (default 5), DUR (default 10s).
# Needs jq. Takes about 2 minutes per boot under TCG.
set -euo pipefail

out=${1:?usage: compare-stock-rt.sh OUT_DIR [BOOTS]}
boots=${2:-3}
rtlab=${RTLAB:-rtlab}
accel=${ACCEL:-tcg}
tput=${TPUT:-20s}
repeats=${REPEATS:-5}
dur=${DUR:-10s}
mkdir -p "$out"
sep='----rtlab-compare----'

for ((b = 1; b <= boots; b++)); do
	for k in stock rt; do
		scen=idle-other,idle-other-noslack,idle-fifo,load-other,load-fifo
		scen=$scen,load-fifo-mlock-pinned
		[ "$k" = rt ] && scen=$scen,load-fifo-rt
		tag=$(printf '%02d-%s' "$b" "$k")
		echo "compare: boot $b, $k ($(uptime | sed 's/.*load average/load average/'))" >&2
		"$rtlab" vm exec --kernel "$k" --accel "$accel" --timeout 900 -- \
			"rtlab lab run latency --scenario throughput --duration $tput" \
			"--repeats $repeats --json /tmp/t.json >/dev/null 2>&1;" \
			"rtlab lab run latency --scenario $scen --duration $dur" \
			"--json /tmp/l.json >/dev/null 2>&1;" \
			"cat /tmp/t.json; echo $sep; cat /tmp/l.json" >"$out/$tag.out" \
			2>"$out/$tag.err" || { echo "compare: $tag failed, see $out/$tag.err" >&2; }
		sed -n "1,/^$sep\$/p" "$out/$tag.out" | sed '$d' >"$out/$tag-throughput.json"
		sed -n "/^$sep\$/,\$p" "$out/$tag.out" | sed 1d >"$out/$tag-latency.json"
	done
done

printf 'boot\tkernel\tworkload\tmedian_per_s\tmin_per_s\tmax_per_s\tcv_pct\n'
for f in "$out"/*-throughput.json; do
	t=$(basename "$f" -throughput.json)
	jq -r --arg b "${t%%-*}" --arg k "${t#*-}" '.extra.scenarios[0].workloads[] |
		[$b, $k, .name, .median_per_s, .min_per_s, .max_per_s, .cv_pct] | @tsv' \
		"$f" 2>/dev/null || echo "$t: no throughput document" >&2
done
# All boots of a kernel together: the median of every run, and the median of each run over
# the cpu control's run of the same repeat (a slow patch of the host slows both).
printf '\nkernel\tworkload\truns\tmedian_per_s\tmedian_over_cpu_control\n'
jq -rs '
	def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	[.[] | select(.extra.scenarios[0].workloads) | {k: .env.kernel_release,
	  w: .extra.scenarios[0].workloads}] | group_by(.k)[] | . as $boots |
	($boots[0].w | map(.name))[] as $name |
	[$boots[] | (.w | map(select(.name == $name))[0].ops_per_s) as $o |
	  (.w | map(select(.name == "cpu"))[0].ops_per_s) as $c |
	  range(0; $o | length) | {o: $o[.], r: ($o[.] / $c[.] * 1e6)}] as $runs |
	[$boots[0].k, $name, ($runs | length), ($runs | map(.o) | median),
	 ($runs | map(.r) | median | . * 10 | round / 10)] | @tsv' \
	"$out"/*-throughput.json 2>/dev/null ||
	echo "no throughput documents to pool" >&2
printf '\nboot\tkernel\tscenario\tmin_us\tavg_us\tp99_us\tmax_us\tsamples\n'
for f in "$out"/*-latency.json; do
	t=$(basename "$f" -latency.json)
	jq -r --arg b "${t%%-*}" --arg k "${t#*-}" '.extra.scenarios[] |
		[$b, $k, .name, .min_us, .avg_us, .p99_us, .max_us, .samples_count] | @tsv' \
		"$f" 2>/dev/null || echo "$t: no latency document" >&2
done
