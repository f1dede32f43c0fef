#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# virtual_time.t (vm-test): the classroom VM in virtual time (doc/vm.md) shows
# the kernel's own code paths, the same from run to run: two runs in a row of
# the same scenario on the rt kernel have the same sample count and p99s within
# 1 us, the documents say env.time "virtual" with the note, and under the
# kernel-heavy load the rt kernel's p99 is below the stock kernel's. The host's
# load does not enter: run it beside stress-ng and the verdicts hold.
# Needs: RTLAB, SRCDIR, RTLAB_VM_DIR (`make vm`), jq, qemu-system-x86_64.
set -u

. "${BASH_SOURCE[0]%/*}/lib.bash"
vm_needs jq qemu-system-x86_64 -- rt stock

. "$SRCDIR/tests/cli/lib/tap.bash"
export TMPDIR=$tmp/qemu
mkdir -p "$TMPDIR"

# The load that separates the kernels most clearly in virtual time (doc/vm.md's table).
load=${RTLAB_VT_LOAD:-fork}
dur=5s

# guest KERNEL RUNS: the run's documents as $tmp/KERNEL.N.json
guest() {
	local kernel=$1 runs=$2 cmd start
	cmd="for i in \$(seq 1 $runs); do rtlab lab run latency --scenario load-fifo --load $load"
	cmd="$cmd --duration $dur --json /tmp/r\$i.json >/dev/null 2>&1 || echo FAILED;"
	cmd="$cmd echo '@@@'; cat /tmp/r\$i.json; echo; done"
	start=$(date +%s)
	"$RTLAB" vm exec --kernel "$kernel" --time virtual --timeout 900 -- "$cmd" \
		>"$tmp/$kernel.out" 2>"$tmp/$kernel.err"
	rc=$?
	echo "# $kernel: booted and ran load-fifo $runs x $dur in $(($(date +%s) - start)) s"
	awk -v p="$tmp/$kernel." '/^@@@$/ { n++; next } n { print > (p n ".json") }' \
		"$tmp/$kernel.out"
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/$kernel.err" | tail -20
}
fig() { # fig FILE KEY: the scenario's figure
	jq -r --arg k "$2" '.extra.scenarios[0][$k]' "$1" 2>/dev/null
}

guest rt 2
check "rt: two runs in virtual time (vm exec exit $rc)" \
	bash -c "[ $rc -eq 0 ] && [ -s '$tmp/rt.1.json' ] && [ -s '$tmp/rt.2.json' ] && ! grep -q FAILED '$tmp/rt.out'"
check "the documents say env.time virtual, with the note" \
	bash -c "[ \"\$(jq -r .env.time '$tmp/rt.1.json')\" = virtual ] &&
		 jq -e '.notes | any(startswith(\"VIRTUAL TIME\"))' '$tmp/rt.1.json' >/dev/null"
s1=$(fig "$tmp/rt.1.json" samples_count) s2=$(fig "$tmp/rt.2.json" samples_count)
p1=$(fig "$tmp/rt.1.json" p99_us) p2=$(fig "$tmp/rt.2.json" p99_us)
echo "# rt: samples $s1, $s2; p99 $p1, $p2 us"
check "two runs: the same sample count ($s1, $s2)" [ -n "$s1" -a "$s1" = "$s2" ]
check "two runs: p99 within 1 us ($p1, $p2)" \
	awk -v a="$p1" -v b="$p2" 'BEGIN { d = a - b; exit !(a > 0 && (d < 0 ? -d : d) <= 1) }'

guest stock 1
ps=$(fig "$tmp/stock.1.json" p99_us)
echo "# stock: p99 $ps us (load $load)"
check "stock: one run in virtual time (vm exec exit $rc)" [ "$rc" -eq 0 -a -s "$tmp/stock.1.json" ]
check "under $load the rt kernel's p99 ($p1 us) is below stock's ($ps us)" \
	awk -v r="$p1" -v s="$ps" 'BEGIN { exit !(r > 0 && s > r) }'
tap_done
