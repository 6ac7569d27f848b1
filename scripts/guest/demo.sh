#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What each demo guest does: load rocx, bring the port up, ping the other
# guest, move 16 MiB over TCP with its sha256 checked, then RDMA: an RC
# ping-pong over RoCE v2 and over RoCE v1 with every message checked
# (ibv_rc_pingpong -c), RDMA WRITE bandwidth (ib_write_bw), rping through
# rdma_cm with its data verified, and the device's counters that moved.
# Guest 0 serves, guest 1 connects.  Each step prints a TAP line ("ok -"
# or "not ok -"), so that make check runs this very script (the e2e group
# demo) and the demo a newcomer watches is the one that is tested.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

me=$ROCX_GUEST_INDEX
srv=$(rocx_ip 0)
peer=$(rocx_ip $((1 - me)))
t "rocx modules loaded" rocx_load_modules || t_done
dev=$(rocx_netdev)
ibdev=$(rocx_ibdev)
ip link set "$dev" up
ip addr add "$ROCX_IP/24" dev "$dev"
t "$dev has carrier" wait_for 20 carrier_is "$dev" 1
rocx_log "$dev is up with $ROCX_IP ($(ethtool -i "$dev" | grep ^driver)), RDMA device $ibdev"
rocx_barrier up

t "ping $peer" ping -c 3 -i 0.2 "$peer"

if [ "$me" -eq 1 ]; then
	timeout 120 socat -u TCP-LISTEN:5001,reuseaddr OPEN:/tmp/rx,creat,trunc &
	wait_for 10 sh -c "ss -Hltn 'sport = :5001' | grep -q ."
	rocx_put listening 1
	wait $!
	want=$(rocx_get sha)
	got=$(sha256sum /tmp/rx | cut -d' ' -f1)
	rocx_log "received 16 MiB over TCP, sha256 $got"
	t "16 MiB over TCP, its sha256 as sent" test "$got" = "$want"
else
	head -c 16M /dev/urandom >/tmp/tx
	rocx_put sha "$(sha256sum /tmp/tx | cut -d' ' -f1)"
	rocx_get listening >/dev/null
	t "16 MiB sent over TCP" timeout 120 socat -u FILE:/tmp/tx "TCP:$peer:5001"
fi
rocx_barrier tcp

[ "$me" -eq 0 ] || rocx_get devinfo_done >/dev/null
rdma_env ibv_devinfo -v -d "$ibdev" | grep -E 'hca_id|transport|fw_ver|vendor_id|vendor_part_id|state|active_mtu|link_layer|GID\['
rocx_put devinfo_done 1

# ---- RDMA ----
# The GIDs of this guest's address: ib_core adds a RoCE v1 and a RoCE v2
# entry for it (the IPv4-mapped ::ffff:a.b.c.d, one per type).
# shellcheck disable=SC2086 # one printf argument per octet
gid_text=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${ROCX_IP//./ })
t "RoCE v2 GID of $ROCX_IP" wait_for 20 gid_of "RoCE v2" "$gid_text"
t "RoCE v1 GID of $ROCX_IP" wait_for 20 gid_of "IB/RoCE v1" "$gid_text"
g2=$(gid_of "RoCE v2" "$gid_text") g1=$(gid_of "IB/RoCE v1" "$gid_text")
ethtool -S "$dev" >/tmp/eth.before
rdma statistic show link "$ibdev/1" >/tmp/rdma.before 2>&1
rocx_barrier gids

# tcp_listening PORT - a TCP socket of this guest listens on PORT (the
# verbs tools exchange their addresses over TCP).
# shellcheck disable=SC2317 # called through demo_pair
tcp_listening() {
	ss -Hltn "sport = :$1" | grep -q .
}

# demo_pair NAME KEY LISTEN OKPAT SERVER_CMD... -- CLIENT_CMD... - the
# server on guest 0, once LISTEN (a command and its arguments as one word
# list) succeeds there, the client on guest 1.  Each side's line: exit
# 0, and for the client OKPAT in its output, which the demo shows.
demo_pair() {
	local name=$1 key=$2 listen=$3 okpat=$4 out=/tmp/demo.$2 rc
	local -a scmd=() ccmd=()

	shift 4
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	if [ "$me" -eq 0 ]; then
		rdma_env timeout 90 "${scmd[@]}" >"$out" 2>&1 &
		# shellcheck disable=SC2086 # LISTEN is a word list
		wait_for 30 $listen
		rocx_put "demo.$key" 1
		wait $!
		rc=$?
	else
		rocx_get "demo.$key" >/dev/null
		rdma_env timeout 90 "${ccmd[@]}" >"$out" 2>&1
		rc=$?
		rocx_log "$name:"
		grep -E -- "^ *#bytes|$okpat" "$out" | sed 's/^/  /'
	fi
	if [ "$rc" -eq 0 ] && { [ "$me" -eq 0 ] || grep -qE -- "$okpat" "$out"; }; then
		t_ok "$name"
	else
		t_show "$out"
		t_not_ok "$name (exit $rc)"
	fi
	rocx_barrier "demo.$key"
}

demo_pair "RC ping-pong over RoCE v2, 100 x 4 KiB checked (ibv_rc_pingpong -c)" \
	rc2 "tcp_listening 18515" 'bytes in .* seconds' \
	ibv_rc_pingpong -d "$ibdev" -g "$g2" -s 4096 -n 100 -p 18515 -c -- \
	ibv_rc_pingpong -d "$ibdev" -g "$g2" -s 4096 -n 100 -p 18515 -c "$srv"
demo_pair "RC ping-pong over RoCE v1, 100 x 4 KiB checked (ibv_rc_pingpong -c)" \
	rc1 "tcp_listening 18516" 'bytes in .* seconds' \
	ibv_rc_pingpong -d "$ibdev" -g "$g1" -s 4096 -n 100 -p 18516 -c -- \
	ibv_rc_pingpong -d "$ibdev" -g "$g1" -s 4096 -n 100 -p 18516 -c "$srv"
# -F: under TCG the TSC and the wall clock disagree by more than perftest
# accepts; the figure is the wall clock's either way.
demo_pair "RDMA WRITE bandwidth, 500 x 64 KiB (ib_write_bw)" \
	wbw "tcp_listening 18517" '^ *65536 +500 ' \
	ib_write_bw -d "$ibdev" -x "$g2" -s 65536 -n 500 -F -p 18517 -- \
	ib_write_bw -d "$ibdev" -x "$g2" -s 65536 -n 500 -F -p 18517 "$srv"
demo_pair "rping through rdma_cm, 20 pings verified (rping -V)" \
	rping "roce_cm_listening 7174" '^ping data: rdma-ping-19: ' \
	rping -s -a "$srv" -p 7174 -C 20 -V -S 64 -- \
	rping -c -a "$srv" -p 7174 -C 20 -V -S 64 -v

# The counters that moved, as `ethtool -S` and `rdma statistic` show them.
# moved BEFORE AFTER - the "name: value" or "name value" pairs of AFTER
# whose value is not BEFORE's, with the difference.
moved() {
	awk 'NR == FNR { for (i = 1; i < NF; i++) b[$i] = $(i + 1); next }
	     { for (i = 1; i < NF; i++)
		if ($(i + 1) ~ /^[0-9]+$/ && $(i + 1) != b[$i] && b[$i] ~ /^[0-9]+$/)
			printf "  %s +%d\n", $i, $(i + 1) - b[$i] }' "$1" "$2"
}
[ "$me" -eq 0 ] || rocx_get counters_done >/dev/null
ethtool -S "$dev" >/tmp/eth.after
rdma statistic show link "$ibdev/1" >/tmp/rdma.after 2>&1
rocx_log "counters that moved during the RDMA tests (ethtool -S $dev):"
moved /tmp/eth.before /tmp/eth.after | tee /tmp/eth.moved
rocx_log "and rdma statistic show link $ibdev/1:"
moved /tmp/rdma.before /tmp/rdma.after | tee /tmp/rdma.moved
t "ethtool -S: RoCE packets sent" \
	grep -qE '^ +hw_roce_tx_packets: \+[1-9]' /tmp/eth.moved
t "ethtool -S: RoCE packets received" \
	grep -qE '^ +hw_roce_rx_packets: \+[1-9]' /tmp/eth.moved
rocx_put counters_done 1
t "the kernel logged no warning" dmesg_clean
t_done
