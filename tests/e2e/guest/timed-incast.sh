#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the timed-incast groups: the 2-to-1 incast of
# Documentation/experiments.rst ("The timed incast") in virtual time, at
# 25 Gb/s, and with more guests the N-to-1 (timed-incast8: 8-to-1).
# Guest 0 is the receiver R, guests 1 to N the senders S1 to SN; switch
# port N is guest N's, and R's port is the bottleneck only because N
# senders of its rate share it.  Three scenarios, each N verified RC
# WRITE flows (tests/e2e/guest/c/rc_flow.c) of the same virtual length,
# started together by one broadcast go that crosses the fabric:
#
#   lossy  no PFC: the shared buffer overflows, frames are dropped, RC
#          recovers, every byte still arrives
#   pfc    priority 3 lossless: no drop, PFC frames sent and honoured,
#          goodput at least 90% of the bottleneck's line rate
#   dcqcn  PFC and RED/ECN (the DCQCN paper's Kmin, Kmax, Pmax) with the
#          NICs' DCQCN at its defaults (mlx5's): CNPs sent by R and
#          handled by every sender, their rates cut, fewer PFC frames than
#          in pfc
#
# Every figure checked is virtual: the switch's time series (drops and
# PFC frames, judged on the host: host/timed_incast.py), the NICs'
# counters and R's CLOCK_MONOTONIC (instruction-counted).  Nothing
# crosses 9p while flows run: outputs go to /tmp and are copied after,
# and the go is a UDP datagram.  The switch is set up once, at its
# start (groups/timed-incast.sh): pfc runs on priority 3, dcqcn on
# priority 4, which has RED too, and lossy on neither (the NICs leave
# PFC off and so send untagged frames, priority 0 at the switch); a
# scenario's only requests are its series' start and end, since while
# the guests are synchronised each 9p request takes seconds of wall
# time.  Waits on the host (switch_ctl, rocx_get) have no bound of
# their own (ROCX_WAIT from the group): in virtual time a guest that
# sleeps costs almost no wall time, so only the run's wall-clock
# timeout can tell a host that is slow from one that is gone.
#   ROCX_TINCAST_MS=N       each flow's virtual length (default 20)
#   ROCX_TINCAST_ONLY=A+B   the scenarios to run (lossy+pfc+dcqcn)
#   ROCX_TINCAST_CC=P=V+... DCQCN parameters (cc_param files) every NIC
#                           sets first, in place of mlx5's defaults
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/switch_lib.sh"

me=$ROCX_GUEST_INDEX
flow=$ROCX_REPO/build/tests/e2e/rc_flow
ms=${ROCX_TINCAST_MS:-20}
only=${ROCX_TINCAST_ONLY:-lossy+pfc+dcqcn}
only=" ${only//+/ } "
# The bottleneck's line rate, Mb/s: every port's (the switch's --rate
# default in a timed run, the NICs' rocx:speed).  What it carries of
# goodput (the host's CAP_MBPS): a packet of 1024 bytes of payload is
# 1086 bytes (Ethernet, priority tag, IPv4, UDP, BTH, ICRC) and the line
# clocks 20 more (preamble, start of frame, gap), so at most 1024 / 1106
# of the line.
line=25000
# Messages of 512 KiB: R spends about 16000 instructions on each
# message beside its check, which at 64 KiB held a lone flow to 21.8
# Gb/s of R's virtual time.  Eight in flight (the device keeps at most
# 512 packets of a QP unacknowledged anyway).
size=524288 win=8
# A go port on each sender, and a TCP port per flow.
go_port=18790

[ "$ROCX_NGUESTS" -ge 3 ] || rocx_die "runs with 3 guests or more"
nsend=$((ROCX_NGUESTS - 1))
[ -x "$flow" ] || rocx_die "no $flow (make -C tests/e2e)"
# Carrier comes at the switch's --epoch (the group's), up to a minute
# of virtual time after a guest that booted fast joined.
ROCE_CARRIER_WAIT=120
if roce_up rocx; then
	t_ok "RoCE up at $(cut -d' ' -f1 /proc/uptime) s of virtual time"
else
	t_not_ok "RoCE up: $ROCE_ERR"
	t_done
fi
dev=$ROCE_NETDEV ibdev=$ROCE_DEV gid=$ROCE_GID

# The check each flow uses is the one the receiver's CPU can do fast
# enough: prove here that it catches a damaged byte.
t "rc_flow's check finds a damaged byte ($("$flow" -Z 2>&1 | tail -n 1))" \
	"$flow" -Z

# rstat NAME - one of the port's `rdma statistic` counters.
rstat() {
	rdma statistic show link "$ibdev/1" |
		awk -v n="$1" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }'
}

# fabric MODE - this NIC for scenario MODE: PFC (and so priority
# tagging) on the scenario's priority, or on none.
fabric() {
	case $1 in
	lossy) dcb pfc set dev "$dev" prio-pfc all:off ;;
	*) dcb pfc set dev "$dev" prio-pfc all:off "$(prio "$1"):on" ;;
	esac
}

# prio MODE - the priority (service level) of MODE's flows.
prio() {
	case $1 in
	dcqcn) echo 4 ;;
	*) echo 3 ;;
	esac
}

# field NAME KEY - a number from flow NAME's summary line.
field() {
	sed -n "s/.*\"summary\": true.*\"$2\": \\([0-9.]*\\).*/\\1/p" \
		"/tmp/flow.$1" 2>/dev/null
}

# flow_ok NAME RC - the receiver of NAME ended well: every byte checked.
flow_ok() {
	sed 's/^/# /' "/tmp/flow.$1" | grep -v '"t":'
	[ "$2" -eq 0 ] && grep -q '"summary": true' "/tmp/flow.$1"
}

# num_ok X OP Y - X and Y are numbers and X OP Y (awk's comparison).
num_ok() {
	awk -v x="$1" -v op="$2" -v y="$3" 'BEGIN {
		if (x !~ /^[0-9.]+$/ || y !~ /^[0-9.]+$/)
			exit 1
		exit !(op == "<" ? x < y : op == ">" ? x > y : x >= y)
	}'
}

# incast NAME - the senders into R for $ms virtual ms each, started by
# one broadcast go.  On guest 0 sets goodput (Mb/s, every flow over the time
# from the first message checked to the last, less one message each, on
# R's clock) and vms (that time, virtual ms); on the senders leaves the
# QP's rate at the flow's end in /tmp/cc.NAME.
incast() {
	local name=$1 p1 rc1 n t_s sl sample sampler gofd rpid=() rcs=()

	case $me in
	0)
		switch_ctl series file="@OUT@/series.$name.jsonl" \
			interval=50us >/dev/null
		for ((n = 1; n <= nsend; n++)); do
			rdma_env "$flow" -S -d "$ibdev" -g "$gid" -p $((18710 + n)) \
				-n "$name.s$n" -s $size -w $win -i 1 -x 100000 -A 10 \
				>"/tmp/flow.$name.s$n" 2>&1 &
			rpid[n]=$!
		done
		rocx_put "ready.$name" 1
		# Every sender connected and listening for the go.
		for ((n = 1; n <= nsend; n++)); do
			until [ -e "$ROCX_SHARED/go.$name.$name.s$n.ready" ]; do
				rocx_check_peers
				sleep "$ROCX_POLL"
			done
		done
		# One go for every sender: a broadcast, which the switch floods
		# to every port at once.  A go per sender cost 45 to 55 us of
		# this guest's virtual time each (the UDP stack and the
		# doorbell under instruction counting), so the eighth sender of
		# the 8-to-1 started 350 to 450 us after the first.  bash cannot
		# broadcast (SO_BROADCAST), so a python3 started beforehand,
		# its socket ready, sends the go when the shell writes to it.
		rm -f "/tmp/go.$name.ready"
		exec {gofd}> >(exec python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, sys.argv[1].encode())
open(sys.argv[3], "w").close()
sys.stdin.read(1)
s.sendto(b"go", ("255.255.255.255", int(sys.argv[2])))
' "$dev" "$go_port" "/tmp/go.$name.ready")
		until [ -e "/tmp/go.$name.ready" ]; do
			sleep 0.01
		done
		printf x >&"$gofd"
		exec {gofd}>&-
		for ((n = 1; n <= nsend; n++)); do
			wait "${rpid[n]}"
			rcs[n]=$?
		done
		switch_ctl series off >/dev/null
		for ((n = 1; n <= nsend; n++)); do
			cp "/tmp/flow.$name.s$n" "$ROCX_OUT/"
			t "$name: S$n's flow verified, every byte" \
				flow_ok "$name.s$n" "${rcs[n]}"
		done
		read -r goodput vms < <(
			for ((n = 1; n <= nsend; n++)); do
				echo "$(field "$name.s$n" bytes) $(field "$name.s$n" first_ns)" \
					"$(field "$name.s$n" last_ns)"
			done | awk -v m=$size '
				NF < 3 || $1 < m { bad = 1 }
				{
					b += $1 - m
					if (NR == 1 || $2 < f) f = $2
					if ($3 > l) l = $3
				}
				END {
					if (bad || !NR || l <= f) {
						print "none none"
						exit
					}
					printf "%.1f %.3f\n", b * 8 / (l - f) * 1e3,
						(l - f) / 1e6
				}')
		;;
	*)
		p1=$((18710 + me))
		rocx_get "ready.$name" >/dev/null || return 1
		t_s=$(awk -v m="$ms" 'BEGIN { print m / 1000 }')
		# In dcqcn, the reaction point's rate every 2 ms of the flow
		# (every second of rc_flow's 1 ms reports that moved data),
		# read by an rdma started before the go: DCQCN brings a rate
		# back to the line a few hundred us after the last CNP at these
		# defaults, so a rate read after the flow says nothing.
		sl=$(prio "$name") sample=
		if [ "$name" = dcqcn ]; then
			roce_qp_cc_sampler "$ibdev" /tmp/cc.fifo /tmp/cc.raw &&
				sample=1
		fi
		rdma_env "$flow" -C "$(rocx_ip 0)" -d "$ibdev" -g "$gid" \
			-p $p1 -l "$sl" -t "$t_s" -n "$name.s$me" \
			-s $size -w $win -i 1 -x 100000 -A 10 -U $go_port \
			-G "$ROCX_SHARED/go.$name" 2>&1 |
			while IFS= read -r l; do
				printf '%s\n' "$l" >>"/tmp/flow.$name.s$me.tx"
				[ -n "$sample" ] || continue
				case $l in
				*'"summary": true'* | *'"bytes": 0,'*) ;;
				*'"bytes": '*)
					n=$((${n:-0} + 1))
					[ $((n % 2)) -eq 0 ] &&
						printf 'resource show qp link %s/1\n' "$ibdev" >&7
					;;
				esac
			done
		rc1=${PIPESTATUS[0]}
		cp "/tmp/flow.$name.s$me.tx" "$ROCX_OUT/"
		if [ -n "$sample" ]; then
			exec 7>&-
			wait "$sampler"
			roce_qp_cc_parse </tmp/cc.raw >"/tmp/cc.$name"
			cp "/tmp/cc.$name" "$ROCX_OUT/"
		fi
		t "$name: S$me's sender ended well" test "$rc1" -eq 0
		;;
	esac
}

# scenario NAME - set up, run and count one scenario; on guest 0 sets
# cnps and marks (R's NIC's counts over the scenario), on the senders
# handled.  Nothing waits for the other guests but the flows: a sender
# sets its NIC up before it says it is ready for the go.
scenario() {
	local h0 n0 m0

	t "$1: this NIC set up" fabric "$1"
	if [ "$me" -eq 0 ]; then
		n0=$(rstat np_cnp_sent) m0=$(rstat np_ecn_marked_roce_packets)
	else
		h0=$(rstat rp_cnp_handled)
	fi
	incast "$1"
	if [ "$me" -eq 0 ]; then
		cnps=$(($(rstat np_cnp_sent) - n0))
		marks=$(($(rstat np_ecn_marked_roce_packets) - m0))
		rocx_log "$1: $vms virtual ms, goodput $goodput Mb/s, $marks marked, $cnps CNPs"
		printf '{"scenario": "%s", "virtual_ms": %s, "goodput_mbps": %s, "ecn_marked": %d, "cnp_sent": %d}\n' \
			"$1" "${vms/none/null}" "${goodput/none/null}" \
			"$marks" "$cnps" >>"$ROCX_OUT/timed-incast.jsonl"
	else
		handled=$(($(rstat rp_cnp_handled) - h0))
	fi
}

[ "$me" -eq 0 ] && : >"$ROCX_OUT/timed-incast.jsonl"
if [ -n "${ROCX_TINCAST_CC:-}" ]; then
	IFS=+ read -ra kvs <<<"$ROCX_TINCAST_CC"
	for kv in "${kvs[@]}"; do
		echo "${kv#*=}" \
			>"/sys/class/infiniband/$ibdev/ports/1/cc_param/${kv%%=*}" ||
			rocx_die "cc_param: cannot set ${kv%%=*} to ${kv#*=}"
	done
fi
rocx_log "DCQCN as the driver set it: $(cd "/sys/class/infiniband/$ibdev/ports/1/cc_param" &&
	grep -H . rp_* np_* 2>/dev/null | tr '\n' ' ')"
rocx_barrier up

# Drops and PFC frames are the host's to judge, from the switch's
# series (groups/timed-incast.sh).
case $only in
*" lossy "*) scenario lossy ;;
esac

# pfc's goodput is the host's to judge too: the bytes R checked over the
# time R's switch port sent them (R's own clock also counts its checks,
# which lag the frames: host/timed_incast.py net_goodput()).
case $only in
*" pfc "*) scenario pfc ;;
esac

case $only in
*" dcqcn "*)
	scenario dcqcn
	if [ "$me" -eq 0 ]; then
		t "dcqcn: R's notification point sent CNPs ($cnps for $marks marked)" \
			test "$cnps" -gt 0 -a "$marks" -ge "$cnps"
	else
		t "dcqcn: S$me's reaction point handled CNPs ($handled)" \
			test "$handled" -gt 0
		rocx_log "dcqcn: S$me's QP every 2 ms of the flow (rate, target Mb/s, alpha/1024): $(tr '\n' ';' <"/tmp/cc.dcqcn")"
		cur=$(sort -n /tmp/cc.dcqcn | head -n 1 | cut -d' ' -f1)
		t "dcqcn: S$me's rate was cut below the line (lowest of $(wc -l </tmp/cc.dcqcn) samples: ${cur:-none} of $line Mb/s)" \
			num_ok "${cur:-x}" "<" "$line"
	fi
	;;
esac

t "no kernel warnings" dmesg_clean
t_done
