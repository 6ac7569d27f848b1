# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# rc: RC transport through the provider (guest/c/rc_verbs.c and
# ibv_rc_pingpong): loopback checks in guest 0, then guest to guest.
timeout=600
guest rocx rc.sh
guest rocx rc.sh

checks() {
	host_check "rc: the model logged no guest errors" \
		no_model_guest_errors "$out/rc/guest0/qemu.log" "$out/rc/guest1/qemu.log"
}
