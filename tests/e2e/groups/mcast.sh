# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# mcast: UD multicast between three rocx guests (guest/ud_mcast.sh and
# guest/c/ud_mcast.c) over RoCE v2/IPv4, RoCE v2/IPv6 and RoCE v1 groups:
# guest 0 sends, guest 1 and guest 0's own QPs are attached, guest 2 is
# not; data, source QP and GRH verified, loopback blocked, detach, and the
# device's refusals (a full group, an RC QP, a unicast GID).  Its own
# group because the verbs group's parts are written for two guests.
timeout=600
guest rocx ud_mcast.sh
guest rocx ud_mcast.sh
guest rocx ud_mcast.sh

checks() {
	host_check "mcast: the model logged no guest errors" \
		no_model_guest_errors "$out/mcast/guest0/qemu.log" \
		"$out/mcast/guest1/qemu.log" "$out/mcast/guest2/qemu.log"
}
