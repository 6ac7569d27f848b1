# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# routed: rocx on QEMU's standard network backends, no rocx-switch
# (guest/routed.sh): R (guest 0) on segment b, S (guest 1) on segment a,
# M (guest 2) a Linux box with a virtio-net NIC on each.  First M bridges
# a and b and marks with tc red ecn on its shaped egress toward R: S's
# DCQCN reacts to Linux's CE marks (CNPs from R, rate decreases at S).
# Then M routes: RC over RoCE v2 crosses it over IPv4 and IPv6 with data
# verified, and over RoCE v1, which is not routable, fails cleanly with
# IBV_WC_RETRY_EXC_ERR.  The NICs run at 1000 Mb/s (speed=1000), so
# DCQCN's rates start near what the guests can move.
timeout=300
guest rocx:speed=1000@b routed.sh
guest rocx:speed=1000@a routed.sh
guest virtio@a,nic=virtio@b,mem=512 routed.sh

checks() {
	host_check "routed: the model logged no guest errors" \
		no_model_guest_errors "$out/routed/guest0/qemu.log" "$out/routed/guest1/qemu.log"
}
