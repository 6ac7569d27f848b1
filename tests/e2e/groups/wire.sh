# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# wire: group rxe's runs with rocx on both sides, and the same host checks
# of the captured RoCE v2 frames.
timeout=600
capture=1
guest rocx rxe.sh ROCX_INTEROP_TAG=wire
guest rocx rxe.sh ROCX_INTEROP_PEER_KIND=rocx ROCX_INTEROP_TAG=wire

checks() {
	capture_checks wire
}
