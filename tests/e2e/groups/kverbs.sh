# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# kverbs: rocx as a kernel RDMA device.  rdma_cm's tools between two rocx
# guests over RoCE v2 IPv4 and IPv6, each connection made by ib_cm's MADs
# through both devices' GSI QPs (QP1): rping with 1000 verified
# iterations, ucmatose (RC), udaddy (UD), mckey (multicast) and perftest
# with -R; and kernel verbs in each guest (rocx_ib_kvtest.ko from
# tests/e2e/kmod: posts from softirq, an AH under a spinlock,
# ib_drain_qp, a kernel SRQ shared by two RC QPs; lockdep watches it
# under --kernel debug), and the same module on Soft-RoCE, to tell a
# test's bug from the driver's; rping again with rdma_cm's
# default_roce_mode at RoCE v1, checked in the capture.  Every tool is
# bounded by a timeout.
timeout=600
capture=1
guest rocx kverbs.sh
guest rocx kverbs.sh

checks() {
	host_check "kverbs: the model logged no guest errors" \
		no_model_guest_errors "$out/kverbs/guest0/qemu.log" "$out/kverbs/guest1/qemu.log"
	host_check "kverbs: capture: with default_roce_mode RoCE v1, rdma_cm connects over RoCE v1" \
		tests/e2e/host/roce_pcap_check.py v1 "$out/kverbs/fabric.pcap" rc
}
