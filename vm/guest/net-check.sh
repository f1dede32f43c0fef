#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Inside the classroom VM: do the networking labs and the exercise share have what they
# need on this kernel? Two network namespaces joined by veth pairs to a bridge, tc netem
# delaying one side, a ping across the bridge, then everything removed again; and the 9p
# file system with its virtio transport registered. Prints "net: ..." lines, the last one
# "net: ok" when every step passed (exit 0), else "net: FAIL <step>" (exit 1). Used by
# tests/vm/vm.t; run it by hand with `sh /usr/lib/rtlab-vm/net-check.sh`.
#
# DELAY_MS (default 40) is the netem delay; the ping's shortest round trip must reach it.
delay=${DELAY_MS:-40}
# iproute2's ip and tc, not busybox's applets (see vm/mkinitramfs.sh).
. /etc/rtlab-vm/shell.sh
a=rtlab-chk-a b=rtlab-chk-b br=rtlab-chk-br

cleanup() {
	ip netns del $a 2>/dev/null
	ip netns del $b 2>/dev/null
	ip link del $br 2>/dev/null
}
fail() {
	echo "net: FAIL $*"
	cleanup
	exit 1
}

echo "net: $(ip -V 2>&1)"
ip netns add $a && ip netns add $b || fail "ip netns add"
ip link add $br type bridge && ip link set $br up || fail "bridge"
for s in a b; do
	ns=rtlab-chk-$s
	ip link add rtlab-v$s type veth peer name rtlab-p$s || fail "veth pair $s"
	ip link set rtlab-v$s netns $ns && ip link set rtlab-p$s master $br up &&
		ip -n $ns link set lo up && ip -n $ns link set rtlab-v$s up || fail "veth $s"
done
ip -n $a addr add 10.77.0.1/24 dev rtlab-va && ip -n $b addr add 10.77.0.2/24 dev rtlab-vb ||
	fail "addresses"
echo "net: netns, veth, bridge: ok"
tc -n $a qdisc add dev rtlab-va root netem delay ${delay}ms || fail "tc qdisc add netem"
q=$(tc -n $a qdisc show dev rtlab-va)
echo "net: $q"
echo "$q" | grep -q "netem.*delay" || fail "netem not shown"
out=$(ip netns exec $a ping -c 3 -W 5 10.77.0.2 2>&1)
min=$(echo "$out" | sed -n 's/.*min\/avg\/max = \([0-9]*\)\..*/\1/p')
echo "net: ping across the bridge: min ${min:-none} ms (netem delay $delay ms)"
[ -n "$min" ] && [ "$min" -ge "$delay" ] || { echo "$out" | sed 's/^/net: /'; fail "ping"; }
cleanup
[ -z "$(ip netns list)" ] && ! ip link show $br >/dev/null 2>&1 || fail "cleanup"
echo "net: removed again"
grep -qw 9p /proc/filesystems || fail "9p file system"
[ -d /sys/bus/virtio/drivers/9pnet_virtio ] || fail "9pnet_virtio driver"
echo "net: 9p and 9pnet_virtio: ok"
echo "net: ok"
