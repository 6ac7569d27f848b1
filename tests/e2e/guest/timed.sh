#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two rocx guests in virtual time (run-guests.sh --timed): each NIC joins
# the timed fabric when its link comes up, carrier follows at the link's
# epoch, then ping and ibv_rc_pingpong --chk (RoCE v2, data checked)
# between them.  The host's checks (groups/timed.sh) read what the switch
# and QEMU say about the synchronisation.
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "needs exactly 2 guests"
me=$ROCX_GUEST_INDEX
peer=$(rocx_ip $((1 - me)))

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
rocx_barrier done
t_done
