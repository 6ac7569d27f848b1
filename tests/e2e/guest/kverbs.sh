#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the kverbs group: load rocx, give the port an IPv4 and
# an IPv6 address, check that ib_mad opened QP1, run the kernel verbs
# test module (kverbs_kvtest.sh), then rdma_cm's tools with guest 0
# serving and guest 1 connecting, over each address family, and last the
# kernel verbs test module on Soft-RoCE.
# Every tool runs under a timeout and its exit status and output are
# checked; rping verifies every iteration's data (-V).
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

me=$ROCX_GUEST_INDEX
# A tool's limit; the debug kernel (KASAN, lockdep) runs everything a
# few times slower, and run-guests.sh says how much (ROCX_TIME_SCALE).
tmo=$((120 * ${ROCX_TIME_SCALE:-1}))
ip6_of() { echo "2001:2::$(($1 + 1))"; }

if roce_up rocx; then
	t_ok "rocx $ROCE_DEV up on $ROCE_NETDEV"
else
	t_not_ok "rocx up: $ROCE_ERR"
	t_done
fi
ibdev=$ROCE_DEV
netdev=$ROCE_NETDEV
ip -6 addr add "$(ip6_of "$me")/64" dev "$netdev" nodad

# ib_mad has QP1 (a umad device) and ib_cm a MAD agent on the port.
modprobe ib_umad
t "$ibdev is a kverbs provider (ib_umad attached)" \
	bash -c "grep -qx $ibdev /sys/class/infiniband_mad/umad*/ibdev"
t "ib_mad opened port 1" bash -c "! dmesg | grep -q \"Couldn't open port 1\""
t "rdma_cm sees $ibdev" bash -c "rdma res show cm_id >/dev/null"

# cm_listening PORT - an rdma_cm id listens on PORT.
cm_listening() {
	rdma res show cm_id 2>/dev/null | grep -q "state LISTEN.*src-addr.*:$1 " ||
		rdma res show cm_id 2>/dev/null | grep "LISTEN" | grep -q ":$1\b"
}

# cm_state - what rdma_cm, the QPs and the neighbour table hold now, for
# a failed pair's log.
cm_state() {
	echo "# state after the failure (guest$me):"
	{
		rdma res show cm_id
		rdma res show qp
		ip neigh show dev "$netdev"
	} 2>&1 | sed 's/^/#   /'
}

# report RC OUT NAME [PATTERN]
report() {
	local rc=$1 out=$2 name=$3 pat=${4:-}

	if [ "$rc" -eq 0 ] && { [ -z "$pat" ] || grep -qE "$pat" "$out"; }; then
		t_ok "$name"
	else
		t_show "$out" "$name"
		cm_state
		t_not_ok "$name (exit $rc)"
	fi
}

# cm_pair NAME PORT PATTERN SERVER_CMD -- CLIENT_CMD: guest 0 runs the
# server, waits until it listens on PORT (0: no wait but two seconds; mc:
# until mckey has its join event, when librdmacm has attached its QP),
# and guest 1 the client; both bounded by $tmo.  With cm_rej_retries=N
# (perftest_pair) a pair whose client saw its connection rejected with
# "invalid service ID" runs again, up to N more times: see there.
cm_pair() {
	local name=$1 port=$2 pat=$3 srv=() cli=() rc spid try=0 v vf i

	shift 3
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	rocx_barrier "$name.start"
	while :; do
		if [ "$me" -eq 0 ]; then
			rdma_env timeout "$tmo" "${srv[@]}" >"/tmp/cm.srv" 2>&1 &
			spid=$!
			if [ "$port" = mc ]; then
				wait_for 30 grep -q '^mckey: joined' /tmp/cm.srv ||
					echo "# $name: mckey did not join in 30 s"
			elif [ "$port" -gt 0 ]; then
				wait_for 30 cm_listening "$port" ||
					echo "# $name: no listener on port $port after 30 s"
			else
				sleep 2
			fi
			rocx_put "cm.$name.$try" listening
			# The client's verdict, which ends its run; a server whose
			# client gave up would wait for it until $tmo.
			vf=$ROCX_SHARED/val.cm.$name.$try.verdict
			for ((i = 0; i < (tmo + 30) * 5; i++)); do
				[ -f "$vf" ] && break
				rocx_check_peers
				sleep 0.2
			done
			v=$(cat "$vf" 2>/dev/null)
			if [ "$v" = retry ]; then
				pkill -P "$spid" 2>/dev/null
				kill "$spid" 2>/dev/null
			fi
			wait "$spid"
			rc=$?
		else
			rocx_get "cm.$name.$try" >/dev/null
			rdma_env timeout "$tmo" "${cli[@]}" >"/tmp/cm.cli" 2>&1
			rc=$?
			v=final
			[ "$try" -lt "${cm_rej_retries:-0}" ] &&
				perftest_cm_race "$rc" /tmp/cm.cli && v=retry
			rocx_put "cm.$name.$try.verdict" "$v"
		fi
		[ "$v" = retry ] || break
		try=$((try + 1))
		echo "# $name: the client's connection was rejected (invalid service ID), try $((try + 1))"
		sed 's/^/#   /' "/tmp/cm.$([ "$me" -eq 0 ] && echo srv || echo cli)"
	done
	if [ "$me" -eq 0 ]; then
		report "$rc" /tmp/cm.srv "$name, server" "$pat"
	else
		report "$rc" /tmp/cm.cli "$name, client" "$pat"
	fi
	rocx_barrier "$name.end"
}

# perftest_pair [PREFIX] - perftest's two rdma_cm tests over IPv4,
# ib_send_bw then ib_write_bw, as the group runs them and the soak
# repeats them.  A pair that lost perftest 4.5's race between its two
# connections (perftest_cm_race) runs again, up to twice.  The first
# connection has no retry at all, so its listener is waited for.
# -F: perftest times the TSC against gettimeofday() before its report,
# and when a loaded host stalls the guest its fit falls below r^2 0.9;
# without -F it then prints "Can't produce a report", exits 1 after its
# header, and its peer waits for the report until its timeout.  These
# tests judge the transfer, not the figure.
perftest_pair() {
	local cm_rej_retries=2

	cm_pair "${1:-}perftest ib_send_bw -R, IPv4" 7180 "" \
		ib_send_bw -R -F -d "$ibdev" -n 200 -s 4096 -p 7180 -- \
		ib_send_bw -R -F -d "$ibdev" -n 200 -s 4096 -p 7180 "$s4"
	cm_pair "${1:-}perftest ib_write_bw -R, IPv4" 7181 "" \
		ib_write_bw -R -F -d "$ibdev" -n 200 -s 4096 -p 7181 -- \
		ib_write_bw -R -F -d "$ibdev" -n 200 -s 4096 -p 7181 "$s4"
}

# ROCX_KVERBS_SOAK=N (group soak-kverbs, make soak-kverbs): the perftest
# pair alone, N rounds in this one boot, and how many rounds failed.
if [ -n "${ROCX_KVERBS_SOAK:-}" ]; then
	rocx_barrier up
	s4=$(rocx_ip 0)
	bad=0
	for ((i = 1; i <= ROCX_KVERBS_SOAK; i++)); do
		f=$ROCX_FAILED
		perftest_pair "soak $i of $ROCX_KVERBS_SOAK: "
		[ "$ROCX_FAILED" -eq "$f" ] || bad=$((bad + 1))
	done
	echo "# soak: $bad of $ROCX_KVERBS_SOAK rounds failed on guest$me's side"
	t "no kernel warnings" dmesg_clean
	t_done
fi

# Kernel verbs inside each guest, through the device's loopback.
# shellcheck source=tests/e2e/guest/parts/kverbs_kvtest.sh
. "$ROCX_REPO/tests/e2e/guest/parts/kverbs_kvtest.sh"
kvtest_run "$ibdev"

rocx_barrier up
s4=$(rocx_ip 0)
s6=$(ip6_of 0)

cm_pair "rping -C 1000 -V, IPv4" 7174 "" \
	rping -s -a "$s4" -p 7174 -C 1000 -V -S 64 -- \
	rping -c -a "$s4" -p 7174 -C 1000 -V -S 64
cm_pair "rping -C 1000 -V, IPv6" 7175 "" \
	rping -s -a "$s6" -p 7175 -C 1000 -V -S 64 -- \
	rping -c -a "$s6" -p 7175 -C 1000 -V -S 64
cm_pair "ucmatose, IPv4" 7176 "data transfers complete" \
	ucmatose -b "$s4" -p 7176 -C 10 -- \
	ucmatose -s "$s4" -p 7176 -C 10
cm_pair "ucmatose, IPv6" 7177 "data transfers complete" \
	ucmatose -b "$s6" -p 7177 -f ipv6 -C 10 -- \
	ucmatose -s "$s6" -p 7177 -f ipv6 -C 10
cm_pair "udaddy, IPv4" 0 "data transfers complete" \
	udaddy -b "$s4" -C 10 -- \
	udaddy -s "$s4" -C 10
# Multicast through rdma_cm: guest 0 joins and receives with mckey,
# guest 1 joins and sends with guest/c/cm_mc_send, which keeps its QP
# until its sends complete (mckey -s leaves and destroys it at once, and
# a device may discard what it has not sent yet).
cm_pair "mckey, IPv4 group 239.1.2.3" mc "" \
	mckey -m 239.1.2.3 -b "$s4" -C 10 -- \
	"$ROCX_REPO/build/tests/e2e/cm_mc_send" -m 239.1.2.3 -b "$(rocx_ip 1)" -C 10
perftest_pair

# The RoCE mode rdma_cm uses, set through configfs on both guests: RoCE
# v1 (GRH over EtherType 0x8915).  rping then connects over the v1 GIDs,
# ib_cm's MADs included; the host finds them in the capture
# (host/roce_pcap_check.py v1 rc), and no other test sends RoCE v1.
t "rdma_cm's default_roce_mode of $ibdev set to RoCE v1" roce_cm_mode "$ibdev" "IB/RoCE v1"
cm_pair "rping -C 100 -V over RoCE v1, IPv4" 7178 "" \
	rping -s -a "$s4" -p 7178 -C 100 -V -S 64 -- \
	rping -c -a "$s4" -p 7178 -C 100 -V -S 64
t "default_roce_mode back to RoCE v2" roce_cm_mode "$ibdev" "RoCE v2"

# An error provoked: a connection to a port nobody listens on is
# rejected by the peer's ib_cm (a REJ through both QP1s), not left to
# time out.
if [ "$me" -eq 1 ]; then
	rdma_env timeout 60 rping -c -a "$s4" -p 7199 -C 1 >/tmp/cm.rej 2>&1
	rc=$?
	report "$([ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && echo 0 || echo 1)" \
		/tmp/cm.rej "rping to a port without listener: REJECTED" \
		"RDMA_CM_EVENT_REJECTED"
fi
rocx_barrier rejected

# The kernel verbs test again, on Soft-RoCE over the same netdev: last,
# so that no rdma_cm test above can pick its device.
kvtest_rxe "$netdev" "$ROCX_IP"

t "no kernel warnings" dmesg_clean
t_done
