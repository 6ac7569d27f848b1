# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# lossy: RC between two rocx guests while the switch loses, reorders,
# duplicates and corrupts their frames (guest/lossy.sh sets each phase's
# impairments through host/switch_ctl.sh); every transfer completes with
# its data verified, and the capture (taken before the egress
# impairments) shows the retransmissions of every phase.  Replay a run's
# losses with ROCX_SWITCH_SEED (guest 0's log prints the seed).
timeout=300
capture=1
host_cmd="bash tests/e2e/host/switch_ctl.sh"
guest rocx lossy.sh
guest rocx lossy.sh

checks() {
	host_check "lossy: the capture shows retransmissions in every phase" \
		tests/e2e/host/roce_retrans.py "$out/lossy/fabric.pcap" \
		"$out/lossy/switch-ctl.log"
	host_check "lossy: the model logged no guest errors" \
		no_model_guest_errors "$out/lossy/guest0/qemu.log" "$out/lossy/guest1/qemu.log"
}
