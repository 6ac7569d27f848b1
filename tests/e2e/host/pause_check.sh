#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pause_check.sh PCAP MAC - group dcb's capture (rocx-switch, at ingress)
# holds the pause frames the rocx NIC with MAC sent while its guest took
# no frames (guest/dcb.sh, "pfcgen" and "pause"), decoded by tshark:
#   PFC (opcode 0x0101) naming priority 3 with a pause time, then one
#   with time 0 for it (the XON once the buffer drained);
#   802.3x PAUSE (opcode 0x0001) with a pause time, then one of time 0.
# The switch forwards them since none of its ports takes pause frames
# then.  The launcher gives guest 1's first NIC 52:54:00:00:00:01
# (scripts/run/launcher/__init__.py) and the guest checks that its rocx
# netdev has it, so the source MAC ties each frame to the rocx device.
set -uo pipefail
pcap=$1 mac=$2 fail=0

count() {
	tshark -n -r "$pcap" -Y "$1" -T fields -e frame.number 2>/dev/null | wc -l
}

# expect NAME FILTER - at least one frame matches FILTER.
expect() {
	local n

	n=$(count "$2")
	echo "# $1: $n frames ($2)"
	[ "$n" -gt 0 ] || fail=1
}

pfc="eth.src == $mac && eth.dst == 01:80:c2:00:00:01 && macc.opcode == 0x0101"
expect "PFC XOFF for priority 3" \
	"$pfc && macc.cbfc.enbv.c3 == 1 && macc.cbfc.pause_time.c3 > 0"
expect "PFC XON for priority 3" \
	"$pfc && macc.cbfc.enbv.c3 == 1 && macc.cbfc.pause_time.c3 == 0"
pause="eth.src == $mac && eth.dst == 01:80:c2:00:00:01 && macc.opcode == 0x0001"
expect "802.3x PAUSE with a pause time" "$pause && macc.pause_time > 0"
expect "802.3x PAUSE of time 0" "$pause && macc.pause_time == 0"
exit "$fail"
