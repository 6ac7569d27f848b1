# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# verbs: every QP type and verb beyond the RC basics, between two rocx
# guests and inside each (loopback), over RoCE v2/IPv4, RoCE v2/IPv6 and
# RoCE v1 GIDs.  One boot runs every part: guest/verbs.sh brings the port
# up, then sources guest/verbs/verbs_*.sh, each a capability (Debian's
# ibv_*_pingpong and perftest tools, and our own checks in Python on
# pyverbs, guest/lib/verbs_lib.py, which verify every byte moved).  The
# first, part wire, runs the rxe group's script with rocx on both sides;
# the host then checks the captured frames of every part: RoCE v2 over
# IPv4 and IPv6 decoded and their ICRCs recomputed, the QPNs of part
# wire's traffic, the opcodes both sides sent, and the RoCE v1 frames.
# ROCX_VERBS_PARTS=sched:uc runs only those parts (a developer's loop;
# make check runs them all), without the capture unless wire is one.
timeout=960
# Part sched reads the switch's counters (guest/lib/verbs_lib.py's
# switch_ctl).
host_cmd="bash tests/e2e/host/switch_ctl.sh"
parts=()
[ -z "${ROCX_VERBS_PARTS:-}" ] || parts=("ROCX_VERBS_PARTS=$ROCX_VERBS_PARTS")
case ":${ROCX_VERBS_PARTS:-wire}:" in
*:wire:*) capture=1 ;;
esac
guest rocx verbs.sh "${parts[@]}"
guest rocx verbs.sh "${parts[@]}"

checks() {
	if [ "$capture" = 1 ]; then
		capture_checks verbs
		host_check "verbs: capture: RoCE v2 frames over IPv6, ICRC right" \
			tests/e2e/host/roce_pcap_check.py icrc6 "$out/verbs/fabric.pcap"
		host_check "verbs: capture: RoCE v1 frames (GRH, BTH) decode cleanly" \
			tests/e2e/host/roce_pcap_check.py v1 "$out/verbs/fabric.pcap" data
	fi
	host_check "verbs: the model logged no guest errors" \
		no_model_guest_errors "$out/verbs/guest0/qemu.log" "$out/verbs/guest1/qemu.log"
}
