# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# soak-kverbs: not in make check (make soak-kverbs).  The kverbs group's
# perftest pair with -R (rdma_cm), ib_send_bw then ib_write_bw over IPv4,
# ROCX_SOAK rounds (default 40) in one boot of the two guests, to catch
# what fails once in many runs; each round's two sides are TAP lines, and
# each guest's log ends with how many rounds failed on its side.  A round
# takes about 15 s under TCG, a failed one up to the tools' 120 s limit.
rounds=${ROCX_SOAK:-40}
timeout=$((120 + rounds * 60))
# A failed round's server runs out its 120 s while the client waits for
# it at the round's end barrier: the guests wait longer than that.
guest rocx kverbs.sh "ROCX_KVERBS_SOAK=$rounds" ROCX_WAIT=300
guest rocx kverbs.sh "ROCX_KVERBS_SOAK=$rounds" ROCX_WAIT=300

checks() {
	host_check "soak-kverbs: the model logged no guest errors" \
		no_model_guest_errors "$out/soak-kverbs/guest0/qemu.log" \
		"$out/soak-kverbs/guest1/qemu.log"
}
