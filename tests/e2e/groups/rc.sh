# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# rc: RC transport through the provider (guest/c/rc_verbs.c and
# ibv_rc_pingpong): loopback checks in guest 0, then guest to guest.  The
# NICs join the switch by their fabric channels and its shared-memory
# rings, the one untimed group that does (the others keep QEMU's netdev,
# which the pair group's link changes through the monitor need), and the
# switch steps aside between them (link=direct, Documentation/
# rocx-device.rst, "Direct rings"): once both have joined, each writes
# the other's ring.
timeout=600
link=direct
guest rocx rc.sh
guest rocx rc.sh

checks() {
	host_check "rc: the model logged no guest errors" \
		no_model_guest_errors "$out/rc/guest0/qemu.log" "$out/rc/guest1/qemu.log"
	host_check "rc: both NICs' records went through shared-memory rings" \
		test "$(grep -c 'shared-memory rings' "$out/rc/switch.log")" -eq 2
	host_check "rc: the switch stepped aside: each NIC wrote its peer's ring" \
		direct_links "$out/rc/guest0/qemu.log" "$out/rc/guest1/qemu.log"
}

# Every QEMU log given says, at exit, that its NIC had a direct link.
direct_links() {
	local f

	for f; do
		grep -q ' [1-9][0-9]* direct links' "$f" || return 1
	done
}
