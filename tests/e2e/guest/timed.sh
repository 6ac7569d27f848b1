#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two rocx guests in virtual time (run-guests.sh --timed): each NIC joins
# the timed fabric when its link comes up, carrier follows at the link's
# epoch, then ping and ibv_rc_pingpong --chk (RoCE v2, data checked)
# between them.  The host's checks (groups/timed.sh) read what the switch
# and QEMU say about the synchronisation.
#
# Then the scenario of the determinism test (groups/timed.sh boots the
# group twice and compares): an RC WRITE flow (guest/c/rc_flow.c) of
# TIMED_FLOW_MSGS messages of 16 KiB from guest 1 to guest 0 that both
# sides start at the stated instant TIMED_AT_MS of their CLOCK_MONOTONIC,
# which is virtual time (rc_flow -a).  Nothing crosses 9p from that
# instant until the flow ends: a short flow of the same binary in the
# same roles ran before, so its pages are in the guests' page cache, both
# sides were started and connected before the instant, and they write
# their reports to tmpfs, copied out after.  IPv6 is off on both guests:
# its MLD and router solicitations go out after random delays, which the
# kernel draws from a pool that interrupt timings feed, and those differ
# between runs (Documentation/testing.rst, "The timed group's
# determinism test").
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "needs exactly 2 guests"
me=$ROCX_GUEST_INDEX
peer=$(rocx_ip $((1 - me)))
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

# The NIC joins when the link is set up, and its carrier comes at the
# switch's --epoch, which lies past the latest join the group has seen:
# give the carrier that long, more than roce_up's own wait.
if rocx_load_modules >/tmp/load.log 2>&1 && wait_for 20 rocx_ibdev &&
	nd=$(rocx_netdev) && ip link set "$nd" up; then
	wait_for 60 carrier_is "$nd" 1
fi
if roce_up rocx; then
	t_ok "rocx $ROCE_DEV up on $ROCE_NETDEV in virtual time"
else
	t_not_ok "rocx up: $ROCE_ERR"
	t_done
fi
rocx_log "link up at $(cut -d' ' -f1 /proc/uptime) s of virtual time"
rocx_barrier up
t "ping the peer" ping -c 3 -i 0.2 -W 5 "$peer"

port=19300
if [ "$me" -eq 0 ]; then
	rdma_env timeout 120 ibv_rc_pingpong -d "$ROCE_DEV" -g "$ROCE_GID" \
		-s 4096 -n 50 -c -p "$port" >/tmp/pp.out 2>&1 &
	spid=$!
	wait_for 30 roce_port_listening "$port"
	rocx_put pp_listening 1
	wait "$spid"
	rc=$?
else
	rocx_get pp_listening >/dev/null
	rdma_env timeout 120 ibv_rc_pingpong -d "$ROCE_DEV" -g "$ROCE_GID" \
		-s 4096 -n 50 -c -p "$port" "$(rocx_ip 0)" >/tmp/pp.out 2>&1
	rc=$?
fi
sed 's/^/# /' /tmp/pp.out
t "ibv_rc_pingpong --chk, 50 x 4 KiB, exit 0" test "$rc" -eq 0
t "ibv_rc_pingpong moved its bytes" grep -q 'bytes in .* seconds' /tmp/pp.out
t "ibv_rc_pingpong found no bad data" sh -c "! grep -qi 'invalid data' /tmp/pp.out"

flow=$ROCX_REPO/build/tests/e2e/rc_flow
at=${TIMED_AT_MS:?} msgs=${TIMED_FLOW_MSGS:?}
fopts=(-s 16384 -w 4 -i 10 -x 20)
# flow_side NAME PORT RC_FLOW_OPTS... - this guest's side of a flow, its
# reports in /dev/shm/NAME.json (tmpfs), its status in /dev/shm/NAME.rc.
flow_side() {
	local name=$1 port=$2 pid

	shift 2
	if [ "$me" -eq 0 ]; then
		LD_LIBRARY_PATH=$ROCX_RDMA/lib "$flow" -S -p "$port" -n "$name" \
			"${fopts[@]}" "$@" >"/dev/shm/$name.json" 2>&1 &
		pid=$!
		wait_for 30 roce_port_listening "$port"
		rocx_put "$name.listening" 1
	else
		rocx_get "$name.listening" >/dev/null
		LD_LIBRARY_PATH=$ROCX_RDMA/lib "$flow" -C "$(rocx_ip 0)" \
			-p "$port" -n "$name" "${fopts[@]}" "$@" \
			>"/dev/shm/$name.json" 2>&1 &
		pid=$!
	fi
	rocx_log "$name: set up at $(cut -d' ' -f1 /proc/uptime) s of uptime"
	wait "$pid"
	echo $? >"/dev/shm/$name.rc"
}
flow_side warmup 19301 -N 200
t "warm-up flow of rc_flow, exit 0" test "$(cat /dev/shm/warmup.rc)" -eq 0
rocx_barrier warm
flow_side measured 19302 -a "$at" -N "$msgs"
sed 's/^/# /' /dev/shm/measured.json
cp /dev/shm/measured.json "$ROCX_OUT/measured.json"
t "the measured flow started at ${at} ms and ran to its end, exit 0" \
	test "$(cat /dev/shm/measured.rc)" -eq 0
t "the measured flow moved bytes" \
	grep -q '"summary": true.*"bytes": [1-9]' /dev/shm/measured.json
rocx_barrier done
t_done
