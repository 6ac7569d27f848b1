# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# busy: a live RC flow (guest/c/rc_flow.c, every byte checked, ACK timeout
# 14 and retry count 7) from guest 1 to guest 0 survives guest 2 spinning
# its CPU and then sending thousands of crafted RoCE frames at the flow's
# QP (guest/parts/roce_craft.py); guest 0's device drops and counts every one.
timeout=600
guest rocx busy.sh
guest rocx busy.sh
guest rocx busy.sh

checks() {
	host_check "busy: the model logged no guest errors" \
		no_model_guest_errors "$out/busy/guest0/qemu.log" \
		"$out/busy/guest1/qemu.log" "$out/busy/guest2/qemu.log"
}
