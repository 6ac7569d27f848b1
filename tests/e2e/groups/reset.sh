# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# reset: one rocx guest behind a pcie-root-port is reset, unplugged and
# unloaded under live RDMA objects and ib_write_bw from the other guest,
# and its admin queue is stalled once (x-aq-stall); lost events too
# (guest/reset.sh).  Guest 0 drives its QEMU monitor through
# host/monitor.sh.
timeout=400
host_cmd="bash tests/e2e/host/monitor.sh"
guest rocx,rootport=1 reset.sh
guest rocx reset.sh

checks() {
	host_check "reset: the model logged no guest errors" \
		no_model_guest_errors "$out/reset/guest0/qemu.log" "$out/reset/guest1/qemu.log"
	host_check "reset: the monitor ran every command guest 0 asked for" \
		sh -c "! ls $out/reset/shared/mon.req.* >/dev/null 2>&1"
}
