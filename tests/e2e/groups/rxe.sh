# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/lib.sh
# rxe: rocx and Soft-RoCE interoperating: guest 0 rocx (or rxe, with
# ROCX_INTEROP_PEER=rxe), guest 1 rxe on virtio-net; perftest and verbs
# runs with data verified, then the captured RoCE v2 frames are checked on
# the host (host/roce_pcap_check.py).
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
}
