# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# verbs: every QP type and verb beyond the RC basics, between two rocx
# guests and inside each (loopback), over RoCE v2/IPv4, RoCE v2/IPv6 and
# RoCE v1 GIDs.  One boot runs every part: guest/verbs.sh brings the port
# up, then sources guest/verbs/verbs_*.sh in name order, each a capability
# (Debian's ibv_*_pingpong and perftest tools, and our own checks in
# Python on pyverbs, guest/lib/verbs_lib.py, which verify every byte moved).
# ROCX_VERBS_PARTS=sched:uc runs only those parts (a developer's loop;
# make check runs them all).
timeout=900
parts=()
[ -z "${ROCX_VERBS_PARTS:-}" ] || parts=("ROCX_VERBS_PARTS=$ROCX_VERBS_PARTS")
guest rocx verbs.sh "${parts[@]}"
guest rocx verbs.sh "${parts[@]}"

checks() {
	host_check "verbs: the model logged no guest errors" \
		no_model_guest_errors "$out/verbs/guest0/qemu.log" "$out/verbs/guest1/qemu.log"
}
