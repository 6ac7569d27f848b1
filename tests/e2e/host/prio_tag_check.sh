#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prio_tag_check.sh PCAP A B - group dcb's capture (rocx-switch, at
# ingress) shows priority tagging as rocx-device.rst ("Address vectors and
# priorities") and rocx_core's xmit do it: guest A's 20 UDP datagrams of
# socket priority 5 to each port went out
#   9105  untagged (PCP trust, PFC off)
#   9106  VLAN 0, PCP 5 (PCP trust, PFC on 5: tagged by the driver)
#   9108  VLAN 0, PCP 5 (same, sent on TX queue 2 after prio-tc 5:2)
#   9107  untagged (DSCP trust: the DSCP says the priority)
# and every RoCE v2 frame but QP 1's, between A and B in both directions
# (the RC pingpong with SL 4, PFC on 4 under PCP trust on both sides),
# VLAN 0, PCP 4: tagged by the device's RoCE engine; and guest A's UD
# sends whose AV names VLAN 200 (guest/c/ud_vlan.c) on their source GID's
# VLAN, never on 200.
set -uo pipefail
pcap=$1 a=$2 b=$3 fail=0

count() {
	tshark -n -r "$pcap" --disable-protocol rpcordma -Y "$1" \
		-T fields -e frame.number 2>/dev/null | wc -l
}

# expect NAME FILTER GOOD - every frame FILTER matches also matches GOOD,
# and there are N of them (N = 20, or "some" for at least one).
expect() {
	local name=$1 sel=$2 good=$3 n=$4 all ok

	all=$(count "$sel")
	ok=$(count "($sel) && ($good)")
	echo "# $name: $all frames, $ok of them $good"
	if [ "$all" -ne "$ok" ] || { [ "$n" = some ] && [ "$all" -eq 0 ]; } ||
		{ [ "$n" != some ] && [ "$all" -ne "$n" ]; }; then
		echo "# $name: expected $n frames, all of them $good"
		fail=1
	fi
}

udp="ip.src == $a && ip.dst == $b && udp.dstport =="
tag5="vlan && vlan.id == 0 && vlan.priority == 5"
expect "port 9105, PFC off" "$udp 9105" "!vlan" 20
expect "port 9106, PFC on 5" "$udp 9106" "$tag5" 20
expect "port 9108, PFC on 5, class 2" "$udp 9108" "$tag5" 20
expect "port 9107, DSCP trust" "$udp 9107" "!vlan" 20
# guest/c/ud_vlan.c's UD sends (Q_Key "vlan") come after the pingpong:
# RoCE between A and B before the first of them is the pingpong's (later
# parts send at other priorities).
ud="udp.dstport == 4791 && infiniband.deth.q_key == 0x766c616e"
first_ud=$(tshark -n -r "$pcap" -Y "$ud" -T fields -e frame.number 2>/dev/null |
	head -n 1)
roce="udp.dstport == 4791 && infiniband.bth.destqp != 1 && frame.number < ${first_ud:-0}"
tag4="vlan && vlan.id == 0 && vlan.priority == 4"
expect "RoCE $a to $b, SL 4" "$roce && ip.src == $a && ip.dst == $b" "$tag4" some
expect "RoCE $b to $a, SL 4" "$roce && ip.src == $b && ip.dst == $a" "$tag4" some
# ud_vlan's sends, the AV forged to VLAN 200: on the source GID's VLAN,
# 100 or none.
expect "UD from the VLAN 100 GID" "$ud && ip.src == 198.19.100.1" \
	"vlan && vlan.id == 100" 4
expect "UD from $a's untagged GID" "$ud && ip.src == $a" \
	"!vlan || vlan.id == 0" 4
expect "nothing on the forged VLAN 200" "vlan.id == 200" "!frame" 0
exit "$fail"
