#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cnp_check.sh PCAP NP RP - a rocx-switch capture (taken at ingress) of
# group cc holds CNPs from the notification point NP's address to the
# reaction point RP's, each as rocx-device.rst describes it (BTH opcode
# 0x81, BECN in BTH byte 4, PSN 0, 16 reserved bytes: UDP length 40; DSCP
# 48, non-ECT), and every RoCE v2 request RP sent (opcodes up to RDMA
# WRITE Only with immediate) left ECT(0).  Untagged IPv4 only: the BTH
# is at frame byte 42.
set -uo pipefail
pcap=$1 np=$2 rp=$3

count() {
	tshark -n -r "$pcap" --disable-protocol rpcordma -Y "$1" \
		-T fields -e frame.number | wc -l
}

cnp="udp.dstport == 4791 && infiniband.bth.opcode == 0x81 && ip.src == $np && ip.dst == $rp"
all=$(count "$cnp")
good=$(count "$cnp && frame[46:1] == 40 && infiniband.bth.psn == 0 && \
udp.length == 40 && ip.dsfield.dscp == 48 && ip.dsfield.ecn == 0")
req="udp.dstport == 4791 && ip.src == $rp && infiniband.bth.opcode <= 0x0b"
nreq=$(count "$req")
nonect=$(count "$req && ip.dsfield.ecn != 2")
echo "# $all CNPs from $np to $rp, $good of them as specified"
echo "# $nreq requests from $rp, $nonect of them not ECT(0)"
[ "$all" -gt 0 ] && [ "$good" -eq "$all" ] && [ "$nreq" -gt 0 ] &&
	[ "$nonect" -eq 0 ]
