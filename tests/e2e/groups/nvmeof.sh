# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# nvmeof: NVMe over Fabrics with the RDMA transport between two rocx
# guests (guest/nvmeof.sh): guest 0 exports a 320 MiB RAM disk through
# nvmet-rdma, guest 1 connects with nvme-cli and verifies 256 MiB of fio
# pattern across a disconnect, two removals of the target's rocx_ib
# (under reads in flight, then until the host gives the controller up),
# a reset of the target's function after an admin command timed out
# (x-aq-stall, through the QEMU monitor: host/monitor.sh)
# and over IPv6; then 32 MiB through nvmet-rdma reloaded with use_srq=1
# (kernel SRQs), and rocx_ib removed under that connection in well under
# the 60 s an SRQ-attached QP's drain can wait.  The RAM disk's pages and fio's buffers want more than
# 1 GiB.
timeout=780
host_cmd="bash tests/e2e/host/monitor.sh"
guest rocx,mem=1536 nvmeof.sh
guest rocx,mem=1536 nvmeof.sh

checks() {
	host_check "nvmeof: the model logged no guest errors" \
		no_model_guest_errors "$out/nvmeof/guest0/qemu.log" "$out/nvmeof/guest1/qemu.log"
	host_check "nvmeof: the monitor ran every command guest 0 asked for" \
		sh -c "! ls $out/nvmeof/shared/mon.req.* >/dev/null 2>&1"
}
