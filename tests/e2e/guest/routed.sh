#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of group routed: rocx on an ordinary QEMU network, through
# a Linux bridge that marks with tc red, then through a Linux router.
#
#   guest 1 S  rocx --- segment a --- virtio  guest 2 M  virtio --- segment b --- rocx  R guest 0
#
# Segments a and b are QEMU dgram links (run-guests.sh nic=MODEL@SEG), no
# rocx-switch anywhere.  M is a standard Linux box with two virtio-net
# NICs, in two phases:
#
# 1. bridge: M bridges a and b (br0); its egress toward R is shaped by
#    htb to ROUTED_RATE Mb/s (default 5, well below what three TCG
#    guests move even on a loaded host) with a red child qdisc that
#    marks CE (ecn).  S (198.18.1.1) sends one RC WRITE flow to R
#    (198.18.1.2) for ROUTED_SECS, every byte verified (rc_flow).
#    Linux's RED marks S's ECT(0) packets, R's notification point
#    answers with CNPs, S's reaction point cuts its rate: tc -s shows
#    the marks, `rdma statistic` np_ecn_marked_roce_packets and
#    np_cnp_sent moving at R and rp_cnp_handled (one rate decrease each,
#    rocx-device.rst "ECN and congestion control") at S.
# 2. router: M routes between 198.18.1.0/24 + 2001:2:1::/64 (a) and
#    198.18.2.0/24 + 2001:2:2::/64 (b) with IPv4 and IPv6 forwarding; R
#    moves to 198.18.2.1.  An RC flow over RoCE v2 crosses it over IPv4
#    and over IPv6, data verified: ib_core resolves the DGID to the
#    gateway's MAC when the QP goes to RTR (rdma_addr through the routing
#    table), and rdma_cm (rping -V) does the same through its route
#    resolution.  Over RoCE v1 (a GRH straight on Ethernet, ethertype
#    0x8915) the same attempt goes to the gateway's MAC too, and the
#    router, which forwards IP only, drops it: the sender's first WRITE
#    ends in IBV_WC_RETRY_EXC_ERR after (retry_cnt + 1) ACK timeouts,
#    counted in local_ack_timeout_err and req_transport_retries_exceeded,
#    and the receiver gives up after its own bound; neither hangs.
# ROUTED_PCAP=1 in M's environment (groups/routed.sh) captures phase 1
# on both of M's NICs to OUT/guest2/bridge{,_a}.pcap, for a closer look.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"

[ "$ROCX_NGUESTS" -eq 3 ] || rocx_die "needs exactly 3 guests"
me=$ROCX_GUEST_INDEX
rate=${ROUTED_RATE:-5}		# Mb/s of M's egress toward R (htb)
secs=${ROUTED_SECS:-6}		# seconds of the marked flow
flow=$ROCX_REPO/build/tests/e2e/rc_flow
# Flows through M: 4 messages in flight and an ACK timeout of 4.096 us x
# 2^18 = 1.07 s on both sides.  M is a TCG guest too: a window crossing
# it, or an ACK behind the shaped queue (phase 1), can take longer than
# the default 67 ms, and go-back-N would resend the whole window each
# time.
slow=(-w 4 -A 18 -x 30)
# Phase 1's messages are 16 KiB, so that the window (about 70 KB on the
# wire) stays below red's max: a flow limited by its window parks the
# window in the bottleneck queue at any rate, and RED, above max, drops
# every non-ECT packet, the ACKs of R's credits among them, until the
# queue drains; the flow then stalls for ACK timeouts.
bridge_msg=16384
# DCQCN's time constants, scaled to a path whose round trip is tens of ms
# (mlx5's defaults are for microseconds), the same on both sides.
cc=${ROUTED_CC:-np_min_time_between_cnps=5000 rp_dce_tcp_rtt=5000 rp_time_reset=20000 rp_byte_reset=0 rp_ai_rate=1}
# The v1 attempt's ACK timeout, 4.096 us x 2^17 = 537 ms, with rc_flow's
# retry_cnt of 7: 8 timeouts, 4.3 s, long beside a TCG guest's jitter.
v1_timeout=17 v1_retries=7

# mac_netdev MAC - the netdev with that address.
mac_netdev() {
	local n

	for n in /sys/class/net/*; do
		[ "$(cat "$n/address")" = "$1" ] && { basename "$n"; return 0; }
	done
	return 1
}

# stat NAME - port 1's hardware counter NAME (`rdma statistic`).
stat() {
	rdma statistic show link "$ibdev/1" |
		awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# gid_text ADDR - ADDR (IPv4, or IPv6 with at most one "::") as sysfs
# writes GIDs.  Not python: a TCG guest takes seconds to start it.
gid_text() {
	local a=$1 head tail h=() t=() out=() x i

	if [[ $a != *:* ]]; then
		# shellcheck disable=SC2086 # one printf argument per octet
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' ${a//./ }
		return
	fi
	head=${a%%::*} tail=''
	[ "$head" != "$a" ] && tail=${a#*::}
	[ -n "$head" ] && IFS=: read -ra h <<<"$head"
	[ -n "$tail" ] && IFS=: read -ra t <<<"$tail"
	for x in "${h[@]}"; do out+=("$(printf %04x "0x$x")"); done
	for ((i = ${#h[@]} + ${#t[@]}; i < 8; i++)); do out+=(0000); done
	for x in "${t[@]}"; do out+=("$(printf %04x "0x$x")"); done
	(IFS=:; echo "${out[*]}")
}

# rocx_port_up - load rocx, bring its netdev up; sets ibdev and netdev.
rocx_port_up() {
	rocx_load_modules || return 1
	wait_for 20 rocx_ibdev || return 1
	ibdev=$(rocx_ibdev)
	netdev=$(rocx_netdev) || return 1
	ip link set "$netdev" up
	wait_for 20 carrier_is "$netdev" 1 &&
		wait_for 20 grep -q ACTIVE "/sys/class/infiniband/$ibdev/ports/1/state"
}

# addr_gid TYPE ADDR - wait for ADDR's GID of TYPE; sets gid.
addr_gid() {
	local text

	text=$(gid_text "$2")
	wait_for 20 gid_of "$1" "$text" && gid=$(gid_of "$1" "$text")
}

# ms - the time in ms.
ms() {
	echo $(($(date +%s%N) / 1000000))
}

# flow_pair NAME PORT RECEIVER_IP RECEIVER_ARGS -- SENDER_ARGS - one
# rc_flow from S (guest 1) to R (guest 0), the exchange over TCP to
# RECEIVER_IP; each side reports a TAP line.
flow_pair() {
	local name=$1 port=$2 rip=$3 rargs=() sargs=() rc

	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do rargs+=("$1"); shift; done
	shift
	sargs=("$@")
	if [ "$me" -eq 0 ]; then
		rdma_env timeout 120 "$flow" -S -p "$port" -n "$name" "${rargs[@]}" \
			>"/tmp/$port.srv" 2>"/tmp/$port.srv.err"
		rc=$?
		[ "$rc" -eq 0 ] || sed 's/^/# /' "/tmp/$port.srv.err"
		grep summary "/tmp/$port.srv" | sed 's/^/# /'
		cp "/tmp/$port.srv" "$ROCX_OUT/flow.$port.receiver"
		t "$name: receiver verified every byte" test "$rc" -eq 0
	elif [ "$me" -eq 1 ]; then
		rdma_env timeout 120 "$flow" -C "$rip" -p "$port" -n "$name" "${sargs[@]}" \
			>"/tmp/$port.cli" 2>"/tmp/$port.cli.err"
		rc=$?
		[ "$rc" -eq 0 ] || sed 's/^/# /' "/tmp/$port.cli.err"
		grep summary "/tmp/$port.cli" | sed 's/^/# /'
		cp "/tmp/$port.cli" "$ROCX_OUT/flow.$port.sender"
		t "$name: sender ran to its end" test "$rc" -eq 0
	fi
}

# step NAME - wait for the others at barrier NAME and log the uptime.
step() {
	rocx_barrier "$1"
	echo "# $1 at $(cut -d' ' -f1 /proc/uptime) s"
}

case $me in
0 | 1)
	if rocx_port_up; then
		t_ok "rocx $ibdev up on $netdev"
	else
		t_not_ok "rocx up"
		t_done
	fi
	;;
2)
	na=$(mac_netdev 52:54:00:00:00:02) nb=$(mac_netdev 52:54:00:00:01:02)
	if [ -n "$na" ] && [ -n "$nb" ] && modprobe sch_htb && modprobe sch_red; then
		t_ok "M: $na on segment a, $nb on segment b; htb and red loaded"
	else
		t_not_ok "M: netdevs ($na, $nb) or qdisc modules"
		t_done
	fi
	ip link set "$na" up
	ip link set "$nb" up
	;;
esac

# Phase 1: the bridge with tc red ecn toward R.
case $me in
0) ip addr add 198.18.1.2/24 dev "$netdev" ;;
1) ip addr add 198.18.1.1/24 dev "$netdev" ;;
2)
	t "M: bridge br0 over $na and $nb" sh -c "
		ip link add br0 type bridge stp_state 0 forward_delay 0 &&
		ip link set $na master br0 && ip link set $nb master br0 &&
		ip link set br0 up"
	# RED between 15 and 75 KB of average queue (24 and 120 ms at 5
	# Mb/s), marking ECT packets instead of dropping them; burst 15, the
	# least tc takes for that min, so that the average follows the queue
	# within a few packets.  Under a shaper red never sees its queue
	# idle (htb and tbf do not dequeue an empty child), so a slow
	# average would stay high long after the queue drained and drop the
	# non-ECT packets (RoCE ACKs) that come next.  The limit, above any
	# window, leaves the tail drops out.
	t "M: $nb egress: htb $rate Mb/s, red ecn under it" sh -c "
		tc qdisc add dev $nb root handle 1: htb default 1 &&
		tc class add dev $nb parent 1: classid 1:1 htb rate ${rate}mbit \
			ceil ${rate}mbit burst 16k &&
		tc qdisc add dev $nb parent 1:1 handle 10: red limit 400000 \
			min 15000 max 75000 avpkt 1100 burst 15 \
			bandwidth ${rate}mbit probability 0.1 ecn"
	;;
esac
if [ "$me" -ne 2 ]; then
	for w in $cc; do
		echo "${w#*=}" >"/sys/class/infiniband/$ibdev/ports/1/cc_param/${w%%=*}" ||
			t_not_ok "cc_param ${w%%=*}=${w#*=}"
	done
	addr_gid "RoCE v2" "$([ "$me" -eq 0 ] && echo 198.18.1.2 || echo 198.18.1.1)" ||
		t_not_ok "RoCE v2 GID of the phase 1 address"
	marked0=$(stat np_ecn_marked_roce_packets) cnp0=$(stat np_cnp_sent)
	handled0=$(stat rp_cnp_handled)
fi
step bridge.up
[ "$me" -eq 1 ] && t "bridge: S reaches R" ping -c 1 -W 5 198.18.1.2

if [ "$me" -eq 2 ] && [ -n "${ROUTED_PCAP:-}" ]; then
	dumpcap -q -i "$nb" -s 96 -w "$ROCX_OUT/bridge.pcap" &
	dumpcap -q -i "$na" -s 96 -w "$ROCX_OUT/bridge_a.pcap" &
	sleep 2
fi
step bridge.go
flow_pair "bridge, tc red ecn" 18801 198.18.1.2 "${slow[@]}" -s "$bridge_msg" -- \
	"${slow[@]}" -s "$bridge_msg" -t "$secs"
step bridge.done
case $me in
0)
	m=$(stat np_ecn_marked_roce_packets) c=$(stat np_cnp_sent)
	echo "# R: np_ecn_marked_roce_packets +$((m - marked0)), np_cnp_sent +$((c - cnp0))"
	t "R: CE-marked RoCE packets counted" test "$m" -gt "$marked0"
	red=$(rocx_get red.marked)
	t "R: counted every packet red marked ($((m - marked0)) of $red)" \
		test "$((m - marked0))" -eq "$red"
	t "R: CNPs sent (np_cnp_sent)" test "$c" -gt "$cnp0"
	;;
1)
	handled=$(stat rp_cnp_handled)
	echo "# S: rp_cnp_handled +$((handled - handled0))"
	t "S: CNPs handled, each a rate decrease (rp_cnp_handled)" \
		test "$handled" -gt "$handled0"
	;;
2)
	tc -s qdisc show dev "$nb" | sed 's/^/# /'
	marks=$(tc -s qdisc show dev "$nb" | sed -n 's/.*marked \([0-9]*\).*/\1/p' | head -n 1)
	t "M: Linux RED marked packets CE" test "${marks:-0}" -gt 0
	rocx_put red.marked "${marks:-0}"
	ip link del br0
	tc qdisc del dev "$nb" root
	;;
esac
step bridge.end

# Phase 2: M routes.
case $me in
0)
	ip addr del 198.18.1.2/24 dev "$netdev"
	ip addr add 198.18.2.1/24 dev "$netdev"
	ip -6 addr add 2001:2:2::1/64 dev "$netdev" nodad
	ip route add default via 198.18.2.254
	ip -6 route add default via 2001:2:2::fe
	mine4=198.18.2.1 mine6=2001:2:2::1
	;;
1)
	ip -6 addr add 2001:2:1::1/64 dev "$netdev" nodad
	ip route add default via 198.18.1.254
	ip -6 route add default via 2001:2:1::fe
	mine4=198.18.1.1 mine6=2001:2:1::1
	;;
2)
	t "M: routes 198.18.1.0/24, 2001:2:1::/64 <-> 198.18.2.0/24, 2001:2:2::/64" sh -c "
		ip addr add 198.18.1.254/24 dev $na &&
		ip addr add 198.18.2.254/24 dev $nb &&
		ip -6 addr add 2001:2:1::fe/64 dev $na nodad &&
		ip -6 addr add 2001:2:2::fe/64 dev $nb nodad &&
		sysctl -qw net.ipv4.ip_forward=1 &&
		sysctl -qw net.ipv6.conf.all.forwarding=1"
	;;
esac
if [ "$me" -ne 2 ]; then
	addr_gid "RoCE v2" "$mine4" && g4=$gid &&
		addr_gid "RoCE v2" "$mine6" && g6=$gid &&
		addr_gid "IB/RoCE v1" "$mine6" && g1=$gid
	t "GIDs of $mine4 and $mine6: v2 ${g4:-?}, v2 ${g6:-?}, v1 ${g1:-?}" \
		test -n "${g4:-}" -a -n "${g6:-}" -a -n "${g1:-}"
fi
step router.up
if [ "$me" -eq 1 ]; then
	t "router: S reaches R over IPv4" ping -c 1 -W 5 198.18.2.1
	t "router: S reaches R over IPv6" ping -6 -c 1 -W 5 2001:2:2::1
	ip route get 198.18.2.1 | sed 's/^/# /'
fi
step router.ping

flow_pair "routed RoCE v2, IPv4" 18802 198.18.2.1 "${slow[@]}" -g "${g4:-0}" -- \
	"${slow[@]}" -g "${g4:-0}" -t 3
step router.v4
flow_pair "routed RoCE v2, IPv6" 18803 198.18.2.1 "${slow[@]}" -g "${g6:-0}" -- \
	"${slow[@]}" -g "${g6:-0}" -t 3
step router.v6

# rdma_cm: route resolution picks the gateway; -V checks every ping's data.
if [ "$me" -eq 0 ]; then
	rdma_env timeout 60 rping -s -a 198.18.2.1 -p 18804 -C 100 -V -S 64 \
		>/tmp/rping.srv 2>&1 &
	spid=$!
	wait_for 30 sh -c 'rdma res show cm_id | grep LISTEN | grep -q ":18804\b"'
	rocx_put rping.listening yes
	wait "$spid"
	rc=$?
	[ "$rc" -eq 0 ] || t_show /tmp/rping.srv
	t "routed rdma_cm: rping -V server" test "$rc" -eq 0
elif [ "$me" -eq 1 ]; then
	rocx_get rping.listening >/dev/null
	rdma_env timeout 60 rping -c -a 198.18.2.1 -p 18804 -C 100 -V -S 64 \
		>/tmp/rping.cli 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || t_show /tmp/rping.cli
	t "routed rdma_cm: rping -V client, 100 pings verified" test "$rc" -eq 0
fi
step router.cm
# What reaches M of the v1 attempt: frames of ethertype 0x8915, which no
# protocol of M takes (rx_dropped), not one of them forwarded.
[ "$me" -eq 2 ] && v1drop0=$(cat "/sys/class/net/$na/statistics/rx_dropped") &&
	v1fwd0=$(cat "/sys/class/net/$nb/statistics/tx_packets")

# RoCE v1 is not routable: bounded failures on both sides.
if [ "$me" -eq 0 ]; then
	t0=$(ms)
	rdma_env timeout 60 "$flow" -S -p 18805 -n v1 -g "${g1:-0}" -x 6 \
		>/tmp/v1.srv 2>/tmp/v1.srv.err
	rc=$? dt=$(($(ms) - t0))
	sed 's/^/# /' /tmp/v1.srv.err
	t "routed RoCE v1: receiver gave up by itself after ${dt} ms (exit $rc, not timeout's 124)" \
		sh -c "[ $rc -eq 1 ] && grep -q 'nothing moved' /tmp/v1.srv.err"
elif [ "$me" -eq 1 ]; then
	to0=$(stat local_ack_timeout_err) rx0=$(stat req_transport_retries_exceeded)
	t0=$(ms)
	rdma_env timeout 60 "$flow" -C 198.18.2.1 -p 18805 -n v1 -g "${g1:-0}" \
		-t 3 -A "$v1_timeout" >/tmp/v1.cli 2>/tmp/v1.cli.err
	rc=$? dt=$(($(ms) - t0))
	sed 's/^/# /' /tmp/v1.cli.err
	min=$(((v1_retries + 1) * 4096 * (1 << v1_timeout) / 1000000))
	t "routed RoCE v1: sender's WRITE ended in IBV_WC_RETRY_EXC_ERR" \
		sh -c "[ $rc -eq 1 ] && grep -q 'transport retry counter exceeded' /tmp/v1.cli.err"
	t "routed RoCE v1: after at least ($v1_retries + 1) x 537 ms = $min ms (took $dt ms)" \
		test "$dt" -ge "$min"
	t "routed RoCE v1: $((v1_retries + 1)) ACK timeouts counted (local_ack_timeout_err)" \
		test "$(($(stat local_ack_timeout_err) - to0))" -eq $((v1_retries + 1))
	t "routed RoCE v1: req_transport_retries_exceeded counted once" \
		test "$(($(stat req_transport_retries_exceeded) - rx0))" -eq 1
fi
step router.v1
if [ "$me" -eq 2 ]; then
	drop=$(($(cat "/sys/class/net/$na/statistics/rx_dropped") - v1drop0))
	fwd=$(($(cat "/sys/class/net/$nb/statistics/tx_packets") - v1fwd0))
	echo "# M: $drop frames dropped on $na, $fwd sent on $nb during the v1 attempt"
	t "M: the v1 frames reached the router and died there (each of $((v1_retries + 1)) tries)" \
		test "$drop" -ge $((v1_retries + 1))
fi

t "no kernel warnings" dmesg_clean
t_done
