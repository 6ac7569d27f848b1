# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/lib.sh
# nvmeof: NVMe over Fabrics with the RDMA transport between two rocx
# guests (guest/nvmeof.sh): guest 0 exports a 256 MiB RAM disk through
# nvmet-rdma, guest 1 connects with nvme-cli and verifies 256 MiB of fio
# pattern across a disconnect, the target's rocx_ib removal and reload,
# and over IPv6.  brd's pages and fio's buffers want more than 1 GiB.
timeout=420
guest rocx,mem=1536 nvmeof.sh
guest rocx,mem=1536 nvmeof.sh

checks() {
	host_check "nvmeof: the model logged no guest errors" \
		no_model_guest_errors "$out/nvmeof/guest0/qemu.log" "$out/nvmeof/guest1/qemu.log"
}
