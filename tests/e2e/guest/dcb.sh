#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of group dcb: rocx_core's dcbnl and ethtool pause on both
# guests, with iproute2's dcb(8) (6.15: `dcb apptrust` is newer than
# bookworm's 6.1) and ethtool.  Every `show` goes to the device
# (QUERY_DCB), so a value read back proves the write reached the model.
#
#   pfc       prio-pfc 3:on shown; link pause refused while it is on
#   ets       the device's classes shown; shares not summing to 100
#             refused (before anything is sent); a valid set (shares, a
#             strict class, prio-tc) and a class maxrate read back from
#             the device, then the defaults again
#   app       dscp-prio add/show/del; the kernel's app table lists them
#   apptrust  dscp pcp -> dscp trust; pcp dscp refused
#   traffic   ping with DSCP 10 (priority 1 by default) mapped to
#             priority 3 by the app table: tx/rx_prio3_packets move on
#             both sides; after del, priority 1's counters move instead
#   switch    the switch's port 1 at 5 Mb/s and priority 3 lossless at
#             port 0 (host/switch_ctl.sh): guest 0's burst of DSCP 26
#             (priority 3 by default) makes the switch send XOFFs, which
#             guest 0's device counts in rx_prio3_pause and pfc's
#             indications
#   pfcgen    guest 1 takes no frames for 4 s (NAPI in a thread, a
#             real-time busy loop on its CPU) while guest 0 sends a
#             burst of priority 3: guest 1's device sends PFC XOFF and,
#             once it drains, XON (tx_prio3_pause); the switch, with no
#             PFC on its ports, forwards them and guest 0's device
#             honours them (rx_prio3_pause).  The capture is decoded on
#             the host (host/pause_check.sh): PFC frames from guest 1's
#             rocx MAC
#   tc        Ethernet by traffic class: 8 TX queues; guest 0's UDP of
#             socket priority 5 leaves on TX queue 5 (sw_tx5_packets),
#             untagged with PFC off, priority-tagged (VLAN 0, PCP 5;
#             tx_prio5_packets, the peer's rx_prio5_packets) with PFC on
#             5 under PCP trust, on queue 2 after prio-tc 5:2, untagged
#             again under DSCP trust; guest 1 receives every datagram
#             (VLAN 0 frames as untagged ones); RC pingpong with SL 4
#             and PFC on 4 on both sides.  The capture is checked on the
#             host (host/prio_tag_check.sh): ports 9105..9108 and the RoCE
#             frames, tagged or not as said
#   udvlan    guest 0's UD sends with an AV forged to VLAN 200 leave on
#             their source GID's VLAN: 100 (a VLAN netdev's GID) or none
#             (guest/c/ud_vlan.c; the capture checked on the host)
#   vlan      VLAN 30 netdevs on both guests: their RoCE v2 GIDs in the
#             GID table (sysfs, ibv_devinfo -v); RC, UD and rdma_cm
#             (its CM MADs on QP 1) across it, and UDP; the capture
#             (host/vlan_check.sh) shows every frame on VLAN 30 with the
#             PCP of its priority
#   ets wire  guest 0 at 20 Mb/s sends RDMA WRITEs at priorities 1..3
#             in classes of ETS shares 50/30/20, then with class 3 at
#             most 2 Mb/s; the switch's per-priority transmit bytes at
#             guest 1's port, read every 1.5 s, give the shares and rates
#             (host/ets_check.py)
#   reset     guest 0's function reset through sysfs: trust and PFC are
#             the device's defaults again, the DSCP app entry the kernel
#             kept is back in the device (traffic classified by it)
#   pause     ethtool -A rx on tx on with PFC off, shown by -a, pause
#             statistics by -I -a; guest 1 stops taking frames as in
#             pfcgen under guest 0's burst: its device sends 802.3x
#             PAUSEs (hw_tx_pause, hw_tx_pause_duration; in the capture)
#             and guest 0's stops sending for them (hw_rx_pause,
#             hw_rx_pause_duration)
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/switch_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "needs exactly 2 guests"
me=$ROCX_GUEST_INDEX
peer=$(rocx_ip $((1 - me)))

t "load rocx_core and rocx_ib" rocx_load_modules || t_done
dev=$(rocx_netdev)
t "rocx netdev exists ($dev)" test -n "$dev" || t_done
t "dcb(8) has apptrust (iproute2 >= 6.3)" dcb apptrust help || t_done
ip link set "$dev" up
ip addr add "$ROCX_IP/24" dev "$dev"
t "carrier up" wait_for 20 carrier_is "$dev" 1

# shows WHAT PATTERN CMD... - CMD's output matches the extended PATTERN.
shows() {
	local name=$1 pat=$2 out

	shift 2
	out=$("$@" 2>&1)
	if grep -qE -- "$pat" <<<"$out"; then
		t_ok "$name"
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		t_not_ok "$name (no /$pat/ in $*)"
	fi
}

# refused WHAT ERR CMD... - CMD fails with the error ERR (an ERE) says:
# which of dcb(8), ethtool or the driver refused is in the message (dcb
# reports the kernel's answer as "Attribute write: ERRNO", ethtool as
# "netlink error: ERRNO"), so a tool's own refusal of what it should have
# passed on cannot pass for the driver's.
refused() {
	local name=$1 err=$2 out

	shift 2
	if out=$("$@" 2>&1); then
		printf '%s\n' "$out" | sed 's/^/# /'
		t_not_ok "$name (accepted: $*)"
	elif grep -qE "$err" <<<"$out"; then
		t_ok "$name ($(tail -n 1 <<<"$out"))"
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		t_not_ok "$name (refused, but not with /$err/: $(tail -n 1 <<<"$out"))"
	fi
}

shows "ethtool: the line rate in Mb/s" 'Speed: [1-9][0-9]*Mb/s' ethtool "$dev"
shows "dcbx: host-managed IEEE" 'host.*ieee|ieee.*host' dcb dcbx show dev "$dev"

# ---- PFC ----
shows "pfc: 8 priorities capable, none on after probe" \
	'pfc-cap 8' dcb pfc show dev "$dev"
shows "pfc: none on after probe" \
	'prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off' \
	dcb pfc show dev "$dev" prio-pfc
t "pfc: set prio-pfc 3:on" dcb pfc set dev "$dev" prio-pfc 3:on
shows "pfc: the device has priority 3 lossless" \
	'prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off' \
	dcb pfc show dev "$dev" prio-pfc
shows "pfc: requests and indications per priority" \
	'requests.*0:[0-9]+.*7:[0-9]+' dcb -s pfc show dev "$dev"
refused "pause: refused while PFC is on" 'Device or resource busy' \
	ethtool -A "$dev" rx on tx on
shows "pause: the refusal says why" 'PFC is on for priorities 0x08' dmesg
shows "pause: still off" 'RX:[[:space:]]+off' ethtool -a "$dev"

# ---- ETS ----
shows "ets: eight classes, one per priority" \
	'prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7' dcb ets show dev "$dev" prio-tc
shows "ets: the device's default shares" \
	'tc-bw 0:12 1:12 2:12 3:12 4:13 5:13 6:13 7:13' dcb ets show dev "$dev" tc-bw
shows "ets: every class ETS" 'tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:ets 7:ets' \
	dcb ets show dev "$dev" tc-tsa
refused "ets: shares summing to 101 refused (by dcb(8))" 'sum to 101%' \
	dcb ets set dev "$dev" tc-bw 0:13
# dcb(8) sums every class's share; the driver sums the ETS classes': with
# class 0 strict those are 88.
refused "ets: ets shares summing to 88 refused (by the driver)" \
	'Attribute write: Invalid argument' dcb ets set dev "$dev" tc-tsa 0:strict
shows "ets: ... as not summing to 100" 'do not sum to 100' dmesg
shows "ets: unchanged" 'tc-tsa 0:ets' dcb ets show dev "$dev" tc-tsa
# The device schedules by ETS (ROCX_CAP2_ETS): a valid set reaches it.
t "ets: set 50/30/20 with class 7 strict" \
	dcb ets set dev "$dev" tc-tsa all:ets 7:strict \
	tc-bw 0:50 1:30 2:20 3:0 4:0 5:0 6:0 7:0
shows "ets: the device has the shares" \
	'tc-bw 0:50 1:30 2:20 3:0 4:0 5:0 6:0 7:0' dcb ets show dev "$dev" tc-bw
shows "ets: the device has class 7 strict" \
	'tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:ets 7:strict' \
	dcb ets show dev "$dev" tc-tsa
t "ets: prio-tc 5:2 6:2" dcb ets set dev "$dev" prio-tc 5:2 6:2
shows "ets: the device maps priorities 5 and 6 to class 2" \
	'prio-tc 0:0 1:1 2:2 3:3 4:4 5:2 6:2 7:7' dcb ets show dev "$dev" prio-tc
# dcb(8) of iproute2 6.15 passes dcbnl bytes/s where dcbnl takes kb/s,
# and shows dcbnl's kb/s as bytes/s: 800kbit is 100000 bytes/s, which
# the driver takes for 100000 kb/s (the ETS measurement below proves the
# device gets the ceiling meant this way).
t "maxrate: class 1 at 100 Mb/s" dcb maxrate set dev "$dev" tc-maxrate 1:800kbit
shows "maxrate: the device has it" '1:800[kK]bit' dcb maxrate show dev "$dev"
t "ets: back to the defaults" \
	dcb ets set dev "$dev" tc-tsa all:ets \
	tc-bw 0:12 1:12 2:12 3:12 4:13 5:13 6:13 7:13 \
	prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7
t "maxrate: back to line rate" dcb maxrate set dev "$dev" tc-maxrate all:0
shows "maxrate: none" '1:0bit' dcb maxrate show dev "$dev"

# ---- App table and trust ----
t "app: add dscp-prio 26:3" dcb app add dev "$dev" dscp-prio 26:3
shows "app: shown" 'dscp-prio 26:3' dcb -N app show dev "$dev" dscp-prio
t "app: del dscp-prio 26:3" dcb app del dev "$dev" dscp-prio 26:3
t "app: show lists none after del" \
	sh -c "out=\$(dcb -N app show dev $dev dscp-prio) && ! printf '%s' \"\$out\" | grep -q 26:"
refused "app: an ethertype entry refused" 'Attribute write: Operation not supported' \
	dcb app add dev "$dev" ethtype-prio 0x8915:3

shows "apptrust: pcp after probe" 'order: pcp *$' dcb apptrust show dev "$dev"
refused "apptrust: pcp before dscp refused" \
	'Attribute write: Operation not supported' dcb apptrust set dev "$dev" order pcp dscp
t "apptrust: set order dscp pcp" dcb apptrust set dev "$dev" order dscp pcp
shows "apptrust: the device trusts DSCP" 'order: dscp *$' dcb apptrust show dev "$dev"

# ---- Traffic by priority ----
# DSCP 10 (AF11) is priority 1 by the default table (DSCP >> 3).
t "app: add dscp-prio 10:3" dcb app add dev "$dev" dscp-prio 10:3
# Counters before the barrier: the peer's ping may start right after it.
tx3=$(hw tx_prio3_packets) rx3=$(hw rx_prio3_packets)
tx1=$(hw tx_prio1_packets)
rocx_barrier mapped
if [ "$me" -eq 0 ]; then
	t "ping with DSCP 10" ping -c 10 -i 0.1 -W 5 -Q 40 "$peer"
fi
rocx_barrier pinged
# Echo replies keep the request's TOS: both directions on both guests.
# moved NAME BEFORE [MIN] - counter NAME grew by MIN (10) at least.
moved() {
	local name=$1 before=$2 min=${3:-10} after

	after=$(hw "$name")
	if [ "$((after - before))" -ge "$min" ]; then
		t_ok "traffic: $name moved by $((after - before))"
	else
		t_not_ok "traffic: $name moved by $((after - before)), expected >= $min"
	fi
}
moved tx_prio3_packets "$tx3"
moved rx_prio3_packets "$rx3"
t "traffic: priority 1 untouched" test "$(hw tx_prio1_packets)" -eq "$tx1"
t "app: del dscp-prio 10:3 (back to priority 1)" dcb app del dev "$dev" dscp-prio 10:3
tx1=$(hw tx_prio1_packets) rx1=$(hw rx_prio1_packets)
rocx_barrier unmapped
if [ "$me" -eq 0 ]; then
	t "ping with DSCP 10 again" ping -c 10 -i 0.1 -W 5 -Q 40 "$peer"
fi
rocx_barrier pinged2
moved tx_prio1_packets "$tx1"
moved rx_prio1_packets "$rx1"
shows "ethtool -S: per-priority pause counters" 'rx_prio3_pause: [0-9]+' ethtool -S "$dev"

# grew NAME BEFORE - counter NAME is above BEFORE.
# shellcheck disable=SC2317 # called through wait_for
grew() {
	[ "$(hw "$1")" -gt "$2" ]
}

# stall SEC - this guest takes no frames for SEC seconds: its NAPI runs in
# a thread (set first) which a real-time busy loop keeps off the only CPU,
# RT throttling off meanwhile; the device holds what arrives.
stall() {
	local rt

	rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
	echo -1 >/proc/sys/kernel/sched_rt_runtime_us
	chrt -f 50 python3 -c '
import sys
import time

end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    pass
' "$1"
	echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us
}

# ---- PFC from the switch ----
# 3000 datagrams of 1400 bytes with DSCP 26 (TOS 104): 4 MB against the
# bottleneck's 5 Mb/s.
# shellcheck disable=SC2317 # blast and paused_more are called through t
blast() {
	python3 - "$peer" <<'PY'
import socket
import sys

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 26 << 2)
buf = bytes(1400)
for _ in range(3000):
    try:
        s.sendto(buf, (sys.argv[1], 9))
    except OSError:
        pass
PY
}
# shellcheck disable=SC2317
paused_more() {
	[ "$(hw rx_prio3_pause)" -gt "$pause0" ]
}
# shellcheck disable=SC2317
paused_longer() {
	[ "$(hw rx_prio3_pause_duration)" -gt "$dur0" ]
}
if [ "$me" -eq 0 ]; then
	pause0=$(hw rx_prio3_pause) dur0=$(hw rx_prio3_pause_duration)
	t "switch: a shared buffer" switch_ctl buffer size=1000000
	t "switch: port 1 (guest 1) at 5 Mb/s" switch_ctl qos port=1 rate=5
	t "switch: port 0 trusts DSCP, 26 is priority 3" \
		switch_ctl qos port=0 trust=dscp dscp=26 to=3
	t "switch: port 0 priority 3 lossless" switch_ctl qos port=0 prio=3 \
		pfc=on xoff=20000 xon=10000 headroom=20000
	t "switch: burst of priority 3 to guest 1" blast
	t "switch: XOFF counted in rx_prio3_pause" wait_for 20 paused_more
	t "switch: the pause's time counted in rx_prio3_pause_duration" \
		wait_for 20 paused_longer
	shows "switch: pfc indications of priority 3" 'indications 0:0 1:0 2:0 3:[1-9]' \
		dcb -s pfc show dev "$dev"
	switch_ctl qshow port=0 | sed 's/^/# /'
	t "switch: QoS cleared" switch_ctl qos port=all clear
	t "switch: no shared buffer" switch_ctl buffer size=0
fi
rocx_barrier switch

# ---- PFC sent by rocx ----
# Both guests have priority 3 lossless and trust DSCP; guest 0's burst of
# DSCP 26 is priority 3 at guest 1, whose device holds it while guest 1
# stalls.  The switch's ports take no pause frames now: it forwards them.
if [ "$me" -eq 1 ]; then
	t "pfcgen: the rocx netdev has the launcher's MAC 52:54:00:00:00:01" \
		test "$(cat "/sys/class/net/$dev/address")" = 52:54:00:00:00:01
	t "pfcgen: NAPI in a thread" sh -c "echo 1 >/sys/class/net/$dev/threaded"
	txp=$(hw tx_prio3_pause)
	rocx_put pfcgen.stall 1
	stall 4
	t "pfcgen: the device sent PFC XOFFs (tx_prio3_pause)" \
		wait_for 10 grew tx_prio3_pause "$txp"
	rocx_put pfcgen.done 1
else
	rxp=$(hw rx_prio3_pause) rxd=$(hw rx_prio3_pause_duration)
	rocx_get pfcgen.stall >/dev/null
	blast
	t "pfcgen: guest 1's PFC honoured here (rx_prio3_pause)" \
		wait_for 10 grew rx_prio3_pause "$rxp"
	rocx_get pfcgen.done >/dev/null
	t "pfcgen: ... for a while (rx_prio3_pause_duration)" \
		wait_for 10 grew rx_prio3_pause_duration "$rxd"
fi
rocx_barrier pfcgen

# ---- Ethernet by traffic class, priority tagging ----
# txq NAME Q - the driver's counter NAME of TX queue Q.
txq() {
	hw "sw_tx$2_$1"
}
# send_prio PORT - 20 UDP datagrams of socket priority 5 to the peer.
# shellcheck disable=SC2317 # called through t
send_prio() {
	python3 - "$peer" "$1" <<'PY'
import socket
import sys

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, 5)
for i in range(20):
    s.sendto(b"rocx-prio5 %d" % i, (sys.argv[1], int(sys.argv[2])))
PY
}
# sent_on PORT Q [TAGGED] - send_prio PORT leaves on queue Q, counted by
# the device in tx_prio5_packets if TAGGED, else in tx_prio0_packets.
sent_on() {
	local port=$1 q=$2 prio=0 before p_before

	[ -n "${3:-}" ] && prio=5
	before=$(txq packets "$q")
	p_before=$(hw "tx_prio${prio}_packets")
	t "tc: 20 datagrams of priority 5 to port $port" send_prio "$port"
	sleep 0.5
	moved "sw_tx${q}_packets" "$before" 20
	moved "tx_prio${prio}_packets" "$p_before" 20
}
ntx=$(find "/sys/class/net/$dev/queues" -maxdepth 1 -name 'tx-*' | wc -l)
t "tc: one TX queue per traffic class" test "$ntx" -eq 8
shows "tc: ethtool -l shows 8 TX channels" 'TX:[[:space:]]+8' ethtool -l "$dev"
t "tc: apptrust pcp" dcb apptrust set dev "$dev" order pcp
t "tc: pfc all off" dcb pfc set dev "$dev" prio-pfc all:off
if [ "$me" -eq 1 ]; then
	# Counts what arrives on ports 9105..9108 until guest 0 is done.
	python3 - >/tmp/udp_counts 2>&1 <<'PY' &
import select
import socket

socks = {}
for port in range(9105, 9109):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    socks[s] = port
counts = {p: 0 for p in socks.values()}
while sum(counts.values()) < 80:
    ready, _, _ = select.select(list(socks), [], [], 60)
    if not ready:
        break
    for s in ready:
        if s.recv(2048).startswith(b"rocx-prio5"):
            counts[socks[s]] += 1
print(" ".join("%d:%d" % kv for kv in sorted(counts.items())))
PY
	udp_pid=$!
	wait_for 10 sh -c "ss -Hlun 'sport = :9108' | grep -q ."
	rx5=$(hw rx_prio5_packets)
fi
rocx_barrier tc.listening
if [ "$me" -eq 0 ]; then
	sent_on 9105 5
	t "tc: pfc 5:on (PCP trust: priority 5 tagged)" \
		dcb pfc set dev "$dev" prio-pfc 5:on
	sent_on 9106 5 tagged
	t "tc: ets prio-tc 5:2" dcb ets set dev "$dev" prio-tc 5:2
	sent_on 9108 2 tagged
	t "tc: ets prio-tc 5:5" dcb ets set dev "$dev" prio-tc 5:5
	t "tc: apptrust dscp (no tag needed)" \
		dcb apptrust set dev "$dev" order dscp
	sent_on 9107 5
	t "tc: apptrust pcp" dcb apptrust set dev "$dev" order pcp
fi
rocx_barrier tc.sent
if [ "$me" -eq 1 ]; then
	wait "$udp_pid"
	shows "tc: every datagram received, VLAN 0 tagged or not" \
		'9105:20 9106:20 9107:20 9108:20' cat /tmp/udp_counts
	moved rx_prio5_packets "$rx5" 40
fi

# RC with SL 4, both sides PCP trust with PFC on 4: every RoCE frame
# priority-tagged by the device (checked in the capture).
ibdev=$(rocx_ibdev)
# shellcheck disable=SC2317 # called through wait_for
gid_ready() {
	roce_gid_index "$ibdev" "$ROCX_IP" >/dev/null
}
t "tc: RoCE v2 GID of $ROCX_IP" wait_for 20 gid_ready
gid=$(roce_gid_index "$ibdev" "$ROCX_IP")
t "tc: pfc 4:on 5:on" dcb pfc set dev "$dev" prio-pfc 4:on 5:on
pp="-d $ibdev -g $gid -l 4 -s 1024 -n 20 -p 18600"
rocx_barrier tc.roce
if [ "$me" -eq 0 ]; then
	# shellcheck disable=SC2086
	rdma_env timeout 60 ibv_rc_pingpong $pp >/tmp/pp.srv 2>&1 &
	pp_pid=$!
	wait_for 30 sh -c "ss -Hltn 'sport = :18600' | grep -q ."
	rocx_put tc.pp listening
	wait "$pp_pid"
	pp_rc=$? pp_out=/tmp/pp.srv
else
	rocx_get tc.pp >/dev/null
	# shellcheck disable=SC2086
	rdma_env timeout 60 ibv_rc_pingpong $pp "$peer" >/tmp/pp.cli 2>&1
	pp_rc=$? pp_out=/tmp/pp.cli
fi
if [ "$pp_rc" -eq 0 ] && grep -q 'bytes in .* seconds' "$pp_out"; then
	t_ok "tc: ibv_rc_pingpong with SL 4"
else
	t_show "$pp_out"
	t_not_ok "tc: ibv_rc_pingpong with SL 4 (exit $pp_rc)"
fi
rocx_barrier tc.done

# ---- A UD sender's VLAN is its source GID's ----
# Guest 0's UD sends whose address vector the process forged to VLAN 200
# (guest/c/ud_vlan.c), from the GID of a VLAN 100 netdev and from the
# untagged one: the capture must show them on VLAN 100 and untagged (or
# VLAN 0), never on VLAN 200 (host/prio_tag_check.sh).
udvlan_ip=198.19.100.1
# shellcheck disable=SC2317 # called through wait_for
vgid_ready() {
	roce_gid_index "$ibdev" "$udvlan_ip" >/dev/null
}
if [ "$me" -eq 0 ]; then
	t "udvlan: VLAN 100 netdev with $udvlan_ip" sh -c "
		ip link add link $dev name $dev.100 type vlan id 100 &&
		ip addr add $udvlan_ip/24 dev $dev.100 &&
		ip link set $dev.100 up"
	t "udvlan: RoCE v2 GID of $udvlan_ip" wait_for 20 vgid_ready
	vgid=$(roce_gid_index "$ibdev" "$udvlan_ip")
	t "udvlan: UD sends from the VLAN 100 GID, AV forged to VLAN 200" \
		rdma_env timeout 30 "$ROCX_REPO/build/tests/e2e/ud_vlan" \
		-d "$ibdev" -g "$vgid" -v 200
	t "udvlan: UD sends from the untagged GID, AV forged to VLAN 200" \
		rdma_env timeout 30 "$ROCX_REPO/build/tests/e2e/ud_vlan" \
		-d "$ibdev" -g "$gid" -v 200
	ip link del "$dev.100"
fi

# ---- RoCE v2, UD and GSI over a VLAN netdev ----
# Both guests get VLAN 30 with egress-qos-map 4:6 and an address on it;
# the VLAN GID appears in the GID table on the VLAN netdev.  Guest 0
# serves, guest 1 connects to its VLAN address: RC (ibv_rc_pingpong
# --chk, SL 3), UD (ibv_ud_pingpong --chk, SL 5) and rdma_cm (ib_send_bw
# -R with ToS 0x18, whose CM MADs go through QP 1), and UDP of socket
# priority 4.  The capture (host/vlan_check.sh) shows each on VLAN 30
# with the PCP of its priority: 3 and 5, the SL as given; 6 for the UDP,
# which the VLAN netdev tags by its egress map; and 4 for rdma_cm's QP and
# MADs: ToS 0x18 is priority 4 (rt_tos2priority), and ib_core maps that
# to the SL through the real netdev's prio_tc_map, not the VLAN's egress
# map, when the real netdev has traffic classes, as rocx_core's has
# (cma.c, get_vlan_ndev_tc()): the identity map here, so SL 4.
vlan_ip=198.19.30.$((me + 1)) vlan_srv=198.19.30.1
# shellcheck disable=SC2317 # called through wait_for
vlan_gid_ready() {
	roce_gid_index "$ibdev" "$vlan_ip" >/dev/null
}
t "vlan: $dev.30 (egress-qos-map 4:6) with $vlan_ip" sh -c "
	ip link add link $dev name $dev.30 type vlan id 30 egress-qos-map 4:6 &&
	ip addr add $vlan_ip/24 dev $dev.30 &&
	ip link set $dev.30 up"
t "vlan: RoCE v2 GID of $vlan_ip" wait_for 20 vlan_gid_ready
vg=$(roce_gid_index "$ibdev" "$vlan_ip")
shows "vlan: GID $vg is on $dev.30 (gid_attrs/ndevs)" "^$dev\\.30\$" \
	cat "/sys/class/infiniband/$ibdev/ports/1/gid_attrs/ndevs/$vg"
shows "vlan: ibv_devinfo -v lists it" \
	"GID\\[ *$vg\\]:[[:space:]]*::ffff:$vlan_ip, RoCE v2" \
	rdma_env ibv_devinfo -v -d "$ibdev"
# vlan_run NAME KEY LISTEN OKPAT TOOL... - TOOL on guest 0 as the server
# (once LISTEN, a command and its arguments as one word list, succeeds
# there), and TOOL $vlan_srv on guest 1 as its client; both exit 0 with
# OKPAT in their output and no "invalid data" (pingpong's --chk).  A
# server that never listens fails the test on both sides at once: its
# client would only find nobody there.  With vlan_retries=N (perftest -R)
# a pair that lost perftest's own race (perftest_cm_race) runs again, up
# to N more times; the client's verdict ends the server's run then.
# vlan_kill_tree PID - PID and every process under it: the server runs
# as a subshell of this script, then stdbuf, timeout and the tool, and a
# kill of the subshell alone leaves the tool listening.
vlan_kill_tree() {
	local c

	for c in $(pgrep -P "$1"); do
		vlan_kill_tree "$c"
	done
	kill "$1" 2>/dev/null
}

# vlan_not CMD... - CMD fails (for wait_for).
# shellcheck disable=SC2317 # called through wait_for
vlan_not() {
	! "$@"
}

vlan_run() {
	local name=$1 key=$2 listen=$3 okpat=$4 rc pid out=/tmp/vlan.$2 state
	local try=0 v vf i

	shift 4
	while :; do
		v=final
		if [ "$me" -eq 0 ]; then
			rdma_env timeout 60 "$@" >"$out" 2>&1 &
			pid=$!
			# shellcheck disable=SC2086 # LISTEN is a word list
			if wait_for 30 $listen; then
				state=listening
			else
				state="not listening after 30 s"
				kill "$pid" 2>/dev/null
			fi
			rocx_put "vlan.$key.$try" "$state"
			if [ "${vlan_retries:-0}" -gt 0 ] && [ "$state" = listening ]; then
				vf=$ROCX_SHARED/val.vlan.$key.$try.verdict
				for ((i = 0; i < 90 * 5; i++)); do
					[ -f "$vf" ] && break
					rocx_check_peers
					sleep 0.2
				done
				v=$(cat "$vf" 2>/dev/null)
				[ "$v" = retry ] && vlan_kill_tree "$pid"
			fi
			wait "$pid"
			rc=$?
			# The next try's server binds the same port: a server
			# still listening made it fail (rdma_bind_addr failed).
			# shellcheck disable=SC2086 # LISTEN is a word list
			[ "$v" = retry ] && ! wait_for 30 vlan_not $listen &&
				echo "# vlan: $name: the port still listens after 30 s"
		else
			state=$(rocx_get "vlan.$key.$try")
			if [ "$state" = listening ]; then
				rdma_env timeout 60 "$@" "$vlan_srv" >"$out" 2>&1
				rc=$?
				[ "$try" -lt "${vlan_retries:-0}" ] &&
					perftest_cm_race "$rc" "$out" && v=retry
				[ "${vlan_retries:-0}" -gt 0 ] &&
					rocx_put "vlan.$key.$try.verdict" "$v"
			else
				echo "# the server is $state: no client started" >"$out"
				rc=1
			fi
		fi
		[ "$v" = retry ] || break
		try=$((try + 1))
		echo "# vlan: $name: perftest's second connection was rejected (invalid service ID), try $((try + 1))"
		sed 's/^/#   /' "$out"
	done
	if [ "$rc" -eq 0 ] && grep -qE -- "$okpat" "$out" &&
		! grep -q 'invalid data' "$out"; then
		t_ok "vlan: $name"
	else
		t_show "$out"
		t_not_ok "vlan: $name (exit $rc${state:+, server $state})"
	fi
	rocx_barrier "vlan.$key"
}

# tcp_listening PORT - a TCP socket of this guest listens on PORT (the
# pingpongs exchange their addresses over TCP).
# shellcheck disable=SC2317 # called through vlan_run
tcp_listening() {
	ss -Hltn "sport = :$1" | grep -q .
}
vlan_run "RC over VLAN 30, SL 3 (ibv_rc_pingpong --chk)" rc \
	"tcp_listening 18630" 'bytes in .* seconds' \
	ibv_rc_pingpong -d "$ibdev" -g "$vg" -l 3 -s 1024 -n 20 -p 18630 -c
vlan_run "UD over VLAN 30, SL 5 (ibv_ud_pingpong --chk)" ud \
	"tcp_listening 18631" 'bytes in .* seconds' \
	ibv_ud_pingpong -d "$ibdev" -g "$vg" -l 5 -s 512 -n 20 -p 18631 -c
vlan_retries=2 vlan_run "rdma_cm over VLAN 30, ToS 0x18 (ib_send_bw -R)" cm \
	"roce_cm_listening 18632" '^ *1024 +20 ' \
	ib_send_bw -R -F -d "$ibdev" -T 0x18 -s 1024 -n 20 -p 18632
# shellcheck disable=SC2317 # called through t
vlan_udp() {
	python3 - <<'PY'
import socket
import time

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, 4)
for i in range(10):
    s.sendto(b"rocx-vlan %d" % i, ("198.19.30.2", 9130))
    time.sleep(0.05)
PY
}
if [ "$me" -eq 0 ]; then
	t "vlan: 10 UDP datagrams of socket priority 4 over VLAN 30" vlan_udp
fi
rocx_barrier vlan.done
ip link del "$dev.30"

# ---- ETS and maxrate measured at the switch ----
# Guest 0's NIC runs at 20 Mb/s (the group file: the capture of this
# traffic stays some 30 MB).  Three RC QPs of
# RDMA WRITEs (perftest, 64 KiB messages, 128 in flight: always a
# backlog) at SL 1, 2 and 3 go to guest 1, in classes 1, 2 and 3 with ETS
# shares 50, 30 and 20; PFC on for them so that each frame carries its
# priority in a VLAN 0 tag, which the switch (trust auto) takes.  Guest
# 0 reads the switch's per-priority transmit bytes of port 1 (guest 1)
# with qshow every 1.5 s while they run, marked "# ets shares" in the
# switch's log; then class 3 gets a maxrate of 2 Mb/s ("# ets maxrate")
# and four more
# reads.  host/ets_check.py takes the shares and rates from those
# counters and the host's times of the reads, not from the device.
ets_sl="1 2 3"
ets_srv() {
	local p

	for p in $ets_sl; do
		# exec: the pid is ib_write_bw's, for the kill below.  It polls
		# without sleeping: SCHED_IDLE leaves this script the CPU.
		(LD_LIBRARY_PATH=$ROCX_RDMA/lib exec chrt --idle 0 \
			stdbuf -oL ib_write_bw -F \
			-d "$ibdev" -x "$gid" --sl="$p" -s 65536 \
			-p $((18640 + p)) --run_infinitely -D 1 "$@") \
			>"/tmp/ets.$p" 2>&1 &
		ets_pids+=" $!"
	done
}
# shellcheck disable=SC2317 # called through wait_for
ets_running() {
	local p

	for p in $ets_sl; do
		grep -qE '^ *65536 +[0-9]+ ' "/tmp/ets.$p" || return 1
	done
}
# shellcheck disable=SC2317 # called through wait_for
ets_listening() {
	local p

	for p in $ets_sl; do
		ss -Hltn "sport = :$((18640 + p))" | grep -q . || return 1
	done
}
ets_pids=""
if [ "$me" -eq 1 ]; then
	ets_srv
	t "ets wire: three ib_write_bw servers listen" wait_for 60 ets_listening
	rocx_put ets.listening 1
	rocx_get ets.done >/dev/null
else
	t "ets wire: shares 50/30/20 for classes 1..3" \
		dcb ets set dev "$dev" tc-tsa all:ets \
		tc-bw 0:0 1:50 2:30 3:20 4:0 5:0 6:0 7:0
	t "ets wire: PFC on 1..3 (tagged with their PCP)" \
		dcb pfc set dev "$dev" prio-pfc 1:on 2:on 3:on
	shows "ets wire: the line at 20 Mb/s" 'Speed: 20Mb/s' ethtool "$dev"
	rocx_get ets.listening >/dev/null
	ets_srv "$peer"
	t "ets wire: RDMA WRITEs at SL 1, 2 and 3 run" wait_for 90 ets_running
	t "ets wire: marked in the switch's log" switch_ctl "# ets shares"
	for i in 0 1 2 3; do
		[ "$i" -eq 0 ] || sleep 1.5
		switch_ctl qshow port=1 >/dev/null
	done
	# dcb(8) of iproute2 6.15 hands dcbnl its rate in bytes/s where
	# dcbnl takes kb/s (fixed upstream by "dcb: fix tc-maxrate unit
	# conversions"): 16kbit is 2000 bytes/s, which the driver gets as
	# 2000 kb/s.  A dcb without the bug gives the device 1 Mb/s instead,
	# and host/ets_check.py fails saying so.
	t "ets wire: class 3 at most 2 Mb/s" \
		dcb maxrate set dev "$dev" tc-maxrate 3:16kbit
	sleep 1
	t "ets wire: marked in the switch's log again" switch_ctl "# ets maxrate"
	for i in 0 1 2 3; do
		[ "$i" -eq 0 ] || sleep 1.5
		switch_ctl qshow port=1 >/dev/null
	done
	t "ets wire: still running" ets_running
	rocx_put ets.done 1
fi
# shellcheck disable=SC2086
kill $ets_pids 2>/dev/null
# shellcheck disable=SC2086
wait $ets_pids 2>/dev/null
rocx_barrier ets.wire
if [ "$me" -eq 0 ]; then
	t "ets wire: maxrate off" dcb maxrate set dev "$dev" tc-maxrate all:0
	t "ets wire: default shares" dcb ets set dev "$dev" tc-tsa all:ets \
		tc-bw 0:12 1:12 2:12 3:12 4:13 5:13 6:13 7:13
fi

# ---- Link pause ----
t "apptrust: back to pcp" dcb apptrust set dev "$dev" order pcp
t "pfc: all off" dcb pfc set dev "$dev" prio-pfc all:off
t "pause: ethtool -A rx on tx on" ethtool -A "$dev" rx on tx on
shows "pause: ethtool -a shows rx on" 'RX:[[:space:]]+on' ethtool -a "$dev"
shows "pause: ethtool -a shows tx on" 'TX:[[:space:]]+on' ethtool -a "$dev"
refused "pause: autonegotiation refused" 'Invalid argument' \
	ethtool -A "$dev" autoneg on
shows "pause: statistics from the device" 'rx_pause_frames: [0-9]+' \
	ethtool -I -a "$dev"
refused "pfc: refused while link pause is on" \
	'Attribute write: Device or resource busy' dcb pfc set dev "$dev" prio-pfc 3:on
# 802.3x sent and honoured: as pfcgen, with link pause on both.
rocx_barrier pause.on
if [ "$me" -eq 1 ]; then
	txl=$(hw hw_tx_pause) txd=$(hw hw_tx_pause_duration)
	rocx_put pause.stall 1
	stall 4
	t "pause: the device sent 802.3x PAUSEs (hw_tx_pause)" \
		wait_for 10 grew hw_tx_pause "$txl"
	t "pause: ... and counted the time it asked for (hw_tx_pause_duration)" \
		wait_for 10 grew hw_tx_pause_duration "$txd"
	shows "pause: ethtool -I -a counts them" 'tx_pause_frames: [1-9]' \
		ethtool -I -a "$dev"
	t "pause: NAPI back in softirq" sh -c "echo 0 >/sys/class/net/$dev/threaded"
	rocx_put pause.done 1
else
	rxl=$(hw hw_rx_pause) rxd=$(hw hw_rx_pause_duration)
	rocx_get pause.stall >/dev/null
	blast
	t "pause: guest 1's PAUSE honoured here (hw_rx_pause)" \
		wait_for 10 grew hw_rx_pause "$rxl"
	rocx_get pause.done >/dev/null
	t "pause: transmit stopped for it (hw_rx_pause_duration)" \
		wait_for 10 grew hw_rx_pause_duration "$rxd"
fi
rocx_barrier pause.sent
t "pause: ethtool -A rx off tx off" ethtool -A "$dev" rx off tx off
shows "pause: off again" 'RX:[[:space:]]+off' ethtool -a "$dev"

# ---- A function reset ----
# shellcheck disable=SC2317 # called through t
flr() {
	local pci

	pci=$(basename "$(readlink -f "/sys/class/net/$dev/device")")
	[ -n "$(cat "/sys/bus/pci/devices/$pci/reset_method")" ] &&
		timeout 30 sh -c "echo 1 >/sys/bus/pci/devices/$pci/reset"
}
if [ "$me" -eq 0 ]; then
	t "reset: app add dscp-prio 10:3" dcb app add dev "$dev" dscp-prio 10:3
	t "reset: apptrust dscp" dcb apptrust set dev "$dev" order dscp
	t "reset: function reset through sysfs" flr
	t "reset: carrier back" wait_for 20 carrier_is "$dev" 1
	shows "reset: the device trusts PCP again" 'order: pcp *$' \
		dcb apptrust show dev "$dev"
	shows "reset: the kernel kept the app entry" 'dscp-prio 10:3' \
		dcb -N app show dev "$dev" dscp-prio
	t "reset: apptrust dscp again" dcb apptrust set dev "$dev" order dscp
	tx3=$(hw tx_prio3_packets)
	t "reset: ping with DSCP 10" ping -c 5 -i 0.1 -W 5 -Q 40 "$peer"
	moved tx_prio3_packets "$tx3" 5
	t "reset: app del dscp-prio 10:3" dcb app del dev "$dev" dscp-prio 10:3
	t "reset: apptrust pcp" dcb apptrust set dev "$dev" order pcp
fi

rocx_barrier end
t "dmesg clean" dmesg_clean
t_done
