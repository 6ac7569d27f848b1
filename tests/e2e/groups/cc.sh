# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# cc: ECN and DCQCN across rocx-switch (guest/cc.sh): the switch's RED
# marks guest 1's RoCE v2 WRITEs to guest 0 CE at a 50 Mb/s bottleneck,
# guest 0's device answers with CNPs and guest 1's reaction point
# handles them, counted on both sides (ethtool -S hw_np_*, hw_rp_*); the
# capture shows the CNPs, byte by byte, and the requests sent ECT(0).
timeout=300
capture=1
host_cmd="bash tests/e2e/host/switch_ctl.sh"
guest rocx cc.sh
guest rocx cc.sh

checks() {
	host_check "cc: capture: CNPs from guest 0 to guest 1, requests ECT(0)" \
		tests/e2e/host/cnp_check.sh "$out/cc/fabric.pcap" 198.18.0.1 198.18.0.2
	host_check "cc: the model logged no guest errors" \
		no_model_guest_errors "$out/cc/guest0/qemu.log" "$out/cc/guest1/qemu.log"
}
