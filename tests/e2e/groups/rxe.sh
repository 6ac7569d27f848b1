# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# rxe: rocx and Soft-RoCE interoperating: guest 0 rocx (or rxe, with
# ROCX_INTEROP_PEER=rxe), guest 1 rxe on virtio-net; perftest and verbs
# runs with data verified, rdma_cm's tools over IPv4 and IPv6 (guest/parts/
# rxe_cm.sh), then the captured RoCE v2 frames are checked on the host
# (host/roce_pcap_check.py), and the RoCE v1 REQs rocx sent rxe in vain.
timeout=600
capture=1
if [ "${ROCX_INTEROP_PEER:-}" = rxe ]; then
	guest virtio rxe.sh ROCX_INTEROP_KIND=rxe
else
	guest rocx rxe.sh
fi
guest virtio rxe.sh

checks() {
	capture_checks rxe
	[ "${ROCX_INTEROP_PEER:-}" = rxe ] ||
		host_check "rxe: capture: rdma_cm's RoCE v1 attempt is ib_cm REQs, retried" \
			tests/e2e/host/roce_pcap_check.py v1 "$out/rxe/fabric.pcap" cm
}
