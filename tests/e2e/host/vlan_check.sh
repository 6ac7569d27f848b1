#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vlan_check.sh PCAP - group dcb's capture (rocx-switch, at ingress) of
# part "vlan" (guest/dcb.sh): both guests on VLAN 30 (198.19.30.1 and
# .2, egress-qos-map 4:6) ran, one after the other, RC with SL 3, UD
# with SL 5 and rdma_cm with ToS 0x18, and guest 0 sent UDP of socket
# priority 4.  Every frame of those addresses is on VLAN 30, each with
# the PCP of its priority:
#   RC (ibv_rc_pingpong: the frames     PCP 3, the QP's SL
#   before the first UD one)
#   UD (ibv_ud_pingpong, Q_Key          PCP 5, the AH's SL
#   0x11111111)
#   rdma_cm's QP and CM MADs (QP 1),    PCP 4: ToS 0x18 is priority 4
#   both ways, of ToS 0x18 (DSCP 6)     (rt_tos2priority), which ib_core
#                                       maps to the SL through rocx_core's
#                                       prio_tc_map (the identity), not
#                                       through the VLAN's egress map
#   perftest's own rdma_cm connection   PCP 0: ToS 0, priority 0
#   for its handshake (DSCP 0, after
#   the last UD frame)
#   UDP to port 9130 (not ICMP about    PCP 6, the egress map's for 4
#   it)
# rocx-device.rst ("Address vectors and priorities") says why rdma_cm's
# SL does not go through the VLAN's egress map on rocx.
set -uo pipefail
pcap=$1 fail=0

count() {
	tshark -n -r "$pcap" --disable-protocol rpcordma -Y "$1" \
		-T fields -e frame.number 2>/dev/null | wc -l
}

# expect NAME FILTER GOOD MIN - FILTER matches MIN frames or more, and
# every one of them also matches GOOD.
expect() {
	local name=$1 sel=$2 good=$3 min=$4 all ok

	all=$(count "$sel")
	ok=$(count "($sel) && ($good)")
	echo "# $name: $all frames, $ok of them $good"
	if [ "$all" -ne "$ok" ] || [ "$all" -lt "$min" ]; then
		echo "# $name: expected $min frames or more, all of them $good"
		fail=1
	fi
}

net="ip.addr == 198.19.30.0/24"
roce="$net && udp.dstport == 4791"
v30="vlan && vlan.id == 30 && vlan.priority =="
ud="$roce && infiniband.deth.q_key == 0x11111111"
first_ud=$(tshark -n -r "$pcap" -Y "$ud" -T fields -e frame.number 2>/dev/null |
	head -n 1)
last_ud=$(tshark -n -r "$pcap" -Y "$ud" -T fields -e frame.number 2>/dev/null |
	tail -n 1)
echo "# UD frames from ${first_ud:-none} to ${last_ud:-none}"
expect "every IPv4 frame of VLAN 30's addresses" "$net" "vlan && vlan.id == 30" 100
expect "RC, SL 3" "$roce && frame.number < ${first_ud:-0}" "$v30 3" 40
expect "UD, SL 5" "$ud" "$v30 5" 40
after="$roce && frame.number > ${last_ud:-0}"
expect "rdma_cm's RC QP, ToS 0x18" \
	"$after && ip.dsfield.dscp == 6 && infiniband.bth.destqp != 1" "$v30 4" 20
for h in 1 2; do
	expect "CM MADs of ToS 0x18 from 198.19.30.$h" \
		"$after && ip.src == 198.19.30.$h && ip.dsfield.dscp == 6 &&
		 infiniband.bth.destqp == 1" "$v30 4" 1
done
expect "perftest's handshake connection, ToS 0 (QP and MADs)" \
	"$after && ip.dsfield.dscp == 0" "$v30 0" 6
expect "UDP of socket priority 4" "$net && udp.dstport == 9130 && !icmp" \
	"$v30 6" 10
exit "$fail"
