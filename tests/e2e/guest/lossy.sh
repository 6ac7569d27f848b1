#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of group lossy: RC between two rocx guests across a fabric
# that loses, reorders, duplicates and corrupts frames.  For each phase,
# guest 0 sets the impairments of both guests' switch ports (egress, so
# requests, responses and ACKs all suffer; through guest/lib/switch_lib.sh and
# host/switch_ctl.sh) and serves; guest 1 runs rc_verbs -X against it:
# RDMA WRITE, READ and SEND of 1 B to 1 MiB, one at a time and 16 in
# flight, every byte checked at the other end.
#
#   loss1  1% random loss; 1 ms delay with 2% of frames sent ahead of it
#   loss5  5% random loss; the same reordering
#   burst  Gilbert-Elliott loss bursts (p 0.5%, r 30%) with the chain
#          stepping every 10 us (ge-step): lossy 1.6% of the time, in
#          bursts of 33 us on average that take every frame of the
#          bundles they meet (one run's capture replayed through the
#          chain: 20 to 40 frames a burst); 1% of frames corrupted
#   dup    1% of frames duplicated, each copy delayed 1 ms +/- 0.5 ms on
#          its own: copies arrive late and frames out of order
#
# After each phase: the switch lost (duplicated, corrupted, reordered)
# frames of both ports, by its own counters; each guest's device dropped
# packets that came behind a gap (hw_roce_rx_dropped: the responder waits
# for the missing PSN, the completer for the missing READ response, and
# the requester resends go-back-N); with corruption, the devices counted
# ICRC errors.  The host checks the capture for the retransmissions
# themselves (host/roce_retrans.py), phase by phase, by the "# phase"
# marks this script leaves in the switch's control log.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/switch_lib.sh"

me=$ROCX_GUEST_INDEX
verbs=$ROCX_REPO/build/tests/e2e/rc_verbs
# The switch's ports of the two guests (one NIC each, in guest order).
ports=0,1

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "runs with 2 guests"
[ -x "$verbs" ] || rocx_die "no $verbs (make -C tests/e2e)"

# limit: room for the frames of a few windows in flight in each delay line
# (netem's 1000 would add losses of its own in a burst).
#
# burst steps its chain in time.  Stepped per frame, as netem's is, a burst
# outlasts any silence: when it begins on the last frame a requester sends
# before it waits (a READ request, a READ's last response), each
# retransmission, one a timeout, meets the same burst again with r's
# complement, 70%, and all 7 of IB's largest retry_cnt are lost about once
# in 12 such bursts.  The device then rightly ends the QP with
# RETRY_EXC_ERR, and this phase failed a CI run that way.
phases=(
	"loss1 loss=1% delay=1ms reorder=2% limit=4000"
	"loss5 loss=5% delay=1ms reorder=2% limit=4000"
	"burst loss-gemodel=0.5%,30% ge-step=10us corrupt=1%"
	"dup duplicate=1% delay=1ms jitter=500us limit=4000"
)

# sw_sum TEXT NAME - counter NAME summed over the lines of `show` output.
sw_sum() {
	tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | awk '{ s += $1 } END { print s + 0 }'
}

# more NAME WHAT BEFORE AFTER - check that a counter moved.
more() {
	if [ "$4" -gt "$3" ]; then
		t_ok "$1: $2 ($(($4 - $3)))"
	else
		t_not_ok "$1: $2 (stayed at $3)"
	fi
}

# verbs_prefixed NAME ARGS... - rc_verbs with NAME before each check.
verbs_prefixed() {
	local name=$1 rc

	shift
	rdma_env timeout 900 "$verbs" -d "$ROCE_DEV" -g "$ROCE_GID" -t 120 "$@" \
		2>&1 | sed -u "s/^\(not \)\{0,1\}ok - /&$name: /" | tee "/tmp/verbs.$name"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "/tmp/verbs.$name"; then
		t_not_ok "$name: rc_verbs $* exited $rc without a failed check"
	fi
	grep -q '^not ok' "/tmp/verbs.$name" && ROCX_FAILED=$((ROCX_FAILED + 1))
	return 0
}

run_phase() {
	local name=$1 port=$2 words=$3 drop0 icrc0 sw0='' sw1

	drop0=$(hw hw_roce_rx_dropped)
	icrc0=$(hw hw_roce_icrc_errors)
	if [ "$me" -eq 0 ]; then
		switch_ctl "# phase $name" >/dev/null
		# shellcheck disable=SC2086 # one word per setting
		t "$name: impair ports $ports egress: $words" \
			switch_ctl impair port=$ports dir=egress clear $words
		sw0=$(switch_ctl show port=$ports dir=egress)
		rocx_put "phase.$name" on
		verbs_prefixed "$name" -S -p "$port"
	else
		rocx_get "phase.$name" >/dev/null
		verbs_prefixed "$name" -C "$(rocx_ip 0)" -p "$port" -X
	fi
	rocx_barrier "phase.$name"
	more "$name" "packets dropped behind a gap (hw_roce_rx_dropped)" \
		"$drop0" "$(hw hw_roce_rx_dropped)"
	case $words in
	*corrupt=*)
		more "$name" "ICRC errors counted (hw_roce_icrc_errors)" \
			"$icrc0" "$(hw hw_roce_icrc_errors)"
		;;
	esac
	if [ "$me" -eq 0 ]; then
		sw1=$(switch_ctl show port=$ports dir=egress)
		switch_ctl "# end $name" >/dev/null
		t "$name: impairments off" \
			switch_ctl impair port=$ports dir=egress clear
		awk '{ print "# switch: " $0 }' <<<"$sw1"
		for kv in loss:lost loss-gemodel:lost reorder:reordered \
			duplicate:duplicated corrupt:corrupted; do
			case " $words" in
			*" ${kv%%:*}="*)
				more "$name" "frames ${kv#*:} at the switch" \
					"$(sw_sum "$sw0" "${kv#*:}")" \
					"$(sw_sum "$sw1" "${kv#*:}")"
				;;
			esac
		done
		t "$name: no frame overflowed a delay line" \
			test "$(sw_sum "$sw1" overflow)" = "$(sw_sum "$sw0" overflow)"
	fi
	rocx_barrier "phase.$name.done"
}

# Not through t: roce_up sets ROCE_DEV, ROCE_NETDEV and ROCE_GID here.
if roce_up rocx; then
	t_ok "rocx up, RoCE v2 GID $ROCE_GID of $ROCX_IP on $ROCE_DEV"
else
	t_not_ok "rocx up: $ROCE_ERR"
	t_done
fi
rocx_barrier up
if [ "$me" -eq 0 ]; then
	seed=$(switch_ctl seed)
	t "the switch answers through the host ($seed)" test -n "$seed"
	echo "# replay this run's impairments with ROCX_SWITCH_SEED=${seed#seed=}"
fi

i=0
for ph in "${phases[@]}"; do
	read -r name words <<<"$ph"
	run_phase "$name" $((18700 + i)) "$words"
	i=$((i + 1))
done

t "no kernel warnings" dmesg_clean
t_done
