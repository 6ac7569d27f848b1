#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the busy group: a live RC flow through a busy host and
# hostile frames.  Guest 1 sends guest 0 an rc_flow of RDMA WRITEs with
# immediate (every byte checked by the receiver) at the default ACK
# timeout 14 (67 ms) and retry count 7, as ibv_rc_pingpong uses them.
# Meanwhile guest 2 spins its CPU for SPIN_S seconds, which under TCG
# keeps one host core busy, then sends ROUNDS rounds of crafted RoCE
# frames from its own addresses at guest 0's live QP (guest/parts/roce_craft.py:
# every opcode, bad ICRCs, lying headers, RoCE v1).  The flow must run to
# its end, and guest 0's device must count every crafted frame as an
# ICRC error or a refused RoCE frame.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"

me=$ROCX_GUEST_INDEX
flow=$ROCX_REPO/build/tests/e2e/rc_flow
craft=$ROCX_REPO/tests/e2e/guest/parts/roce_craft.py
SPIN_S=30
ROUNDS=32
FLOW_S=60

[ "$ROCX_NGUESTS" -eq 3 ] || rocx_die "runs with 3 guests"
[ -x "$flow" ] || rocx_die "no $flow (make -C tests/e2e)"

# roce_drops - frames guest 0's device took as RoCE and refused.
roce_drops() {
	ethtool -S "$dev" | awk '/hw_roce_rx_dropped:|hw_roce_icrc_errors:/ { n += $2 }
		END { print n + 0 }'
}

# gid_index - index of the port's RoCE v2 GID of $ROCX_IP.
gid_index() {
	local d=/sys/class/infiniband/$ibdev/ports/1 f i want

	# shellcheck disable=SC2086 # one printf argument per octet
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		${ROCX_IP//./ })
	for f in "$d"/gids/*; do
		i=${f##*/}
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] &&
			[ "$(cat "$d/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "$i"; return 0; }
	done
	return 1
}

# dropped_at_least N - guest 0's device has refused N more frames.
dropped_at_least() {
	[ $(($(roce_drops) - drops0)) -ge "$1" ]
}

t "load rocx_core and rocx_ib" rocx_load_modules || t_done
dev=$(rocx_netdev)
ibdev=$(rocx_ibdev)
t "rocx netdev and ib_device ($dev, $ibdev)" test -n "$dev" -a -n "$ibdev" ||
	t_done
ip link set "$dev" up
ip addr add "$ROCX_IP/24" dev "$dev"
t "carrier up" wait_for 20 carrier_is "$dev" 1
wait_for 20 gid_index >/dev/null
gid=$(gid_index)
t "RoCE v2 GID of $ROCX_IP (index ${gid:-none})" test -n "$gid" || t_done
rocx_barrier up

case $me in
0)
	rocx_put mac "$(cat "/sys/class/net/$dev/address")"
	rdma_env timeout $((FLOW_S + 120)) "$flow" -S -d "$ibdev" -g "$gid" \
		-p 18720 -n busy -Q /tmp/busy.qp >"$ROCX_OUT/flow.rx" 2>&1 &
	rx=$!
	wait_for 60 test -s /tmp/busy.qp
	drops0=$(roce_drops)
	rocx_put qp "$(cat /tmp/busy.qp)"
	sent=$(rocx_get crafted) || sent=
	t "crafted frames sent (${sent:-none})" test -n "$sent" -a "${sent:-0}" -gt 0
	if [ -n "$sent" ]; then
		t "every crafted frame dropped and counted by the device" \
			wait_for 60 dropped_at_least "$sent"
		echo "# refused $(($(roce_drops) - drops0)) frames, $sent of them crafted"
		t "the flow was still running when they had all arrived" \
			kill -0 "$rx"
	fi
	wait "$rx"
	rc=$?
	cat "$ROCX_OUT/flow.rx"
	t "the flow's receiver checked every byte to the end" \
		sh -c "[ $rc -eq 0 ] && grep -q '\"summary\": true, .*\"messages\": [1-9]' '$ROCX_OUT/flow.rx'"
	;;
1)
	rdma_env timeout $((FLOW_S + 120)) "$flow" -C "$(rocx_ip 0)" \
		-d "$ibdev" -g "$gid" -p 18720 -t "$FLOW_S" -n busy \
		>"$ROCX_OUT/flow.tx" 2>&1
	rc=$?
	tail -n 3 "$ROCX_OUT/flow.tx"
	t "the flow's sender ran to its end" \
		sh -c "[ $rc -eq 0 ] && grep -q '\"summary\": true, .*\"messages\": [1-9]' '$ROCX_OUT/flow.tx'"
	t "no retry was exhausted" sh -c \
		"[ \$(cat /sys/class/infiniband/$ibdev/ports/1/hw_counters/req_transport_retries_exceeded) -eq 0 ]"
	echo "# ACK timeouts: $(cat "/sys/class/infiniband/$ibdev/ports/1/hw_counters/local_ack_timeout_err")"
	;;
2)
	qp=$(rocx_get qp) || qp=
	mac=$(rocx_get mac) || mac=
	t "the flow's QP and MAC published ($qp, $mac)" test -n "$qp" -a -n "$mac"
	start=$SECONDS
	timeout "$SPIN_S" sh -c 'while :; do :; done'
	t_ok "spun the CPU for $((SECONDS - start)) s"
	# shellcheck disable=SC2086 # QPN and PSN
	if python3 "$craft" "$dev" "$mac" "$(rocx_ip 0)" $qp "$ROUNDS" \
		>/tmp/craft.out 2>/tmp/craft.err; then
		cat /tmp/craft.out /tmp/craft.err
		t_ok "crafted frames sent: $(tr '\n' ' ' </tmp/craft.out)"
		rocx_put crafted "$(awk '$1 == "total" { print $2 }' /tmp/craft.out)"
	else
		cat /tmp/craft.out >>/tmp/craft.err
		t_show /tmp/craft.err craft
		t_not_ok "roce_craft.py failed"
		rocx_put crafted 0
	fi
	;;
esac
t "no kernel warnings" dmesg_clean
rocx_barrier done
t_done
