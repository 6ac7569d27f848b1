#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the incast group: the lossless-Ethernet experiments of
# Documentation/experiments.rst on three rocx guests joined by rocx-switch.
# Guest 0 is the receiver R, guests 1 and 2 the senders S1 and S2; switch
# port N is guest N's.  R's port is the bottleneck (a line rate well
# below what the guests drive), and every flow is tests/e2e/guest/c/rc_flow.c
# (RC WRITEs, every byte checked at the receiver, goodput measured there).
# The same shared buffer serves every scenario:
#
#   lossy  no PFC: the bottleneck's queue overflows, frames are dropped,
#          and RC recovers by go-back-N; both flows still verified
#   pfc    priority 3 lossless on the switch and the NICs: no drop at the
#          switch, XOFFs sent to S1 and S2 and counted by their NICs
#   victim with PFC: a flow S1 -> S2, which crosses no congested port,
#          alone, then beside the incast on another priority (it must
#          keep 90% of its rate alone), then on the paused priority (it
#          must fall below half of it: head-of-line blocking)
#   dcqcn  PFC as in pfc, RED/ECN on the bottleneck for priority 3 and
#          DCQCN on the NICs: R's notification point sends CNPs, the
#          senders' reaction points cut their rates; the queue, pauses,
#          fairness and goodput are checked on the host
#          (host/incast.py, from the switch's time series)
#
# Guest 0 drives the switch (guest/lib/switch_lib.sh) and writes the table of
# results to /rocx-out/incast.txt and one JSON object per flow and
# scenario to /rocx-out/incast.jsonl; the switch's time series of each
# scenario is left in the run's directory as series.NAME.jsonl, which
# scripts/run/incast-plot.sh draws.  Settings (env= words):
#   ROCX_INCAST_RATE=MBPS     the bottleneck (default 60)
#   ROCX_INCAST_VRATE=MBPS    the victim's own port (default 70)
#   ROCX_INCAST_VWIN=N:BYTES  the victim's messages in flight and their
#                             size (default 4:65536)
#   ROCX_INCAST_SECS=N        the first sender's time (default 8; S2 runs
#                             for N - 2 s, starting 2 s after S1)
#   ROCX_INCAST_ONLY=A+B...   the scenarios to run (default every one:
#                             lossy+pfc+victim+dcqcn)
#   ROCX_INCAST_CC=K=V+...    DCQCN parameters (cc_param names) over
#                             the defaults below
#   ROCX_INCAST_CCTRACE=1     each DCQCN sender samples its QP's rate
#                             (rdma resource show, cc_cur_rate) every
#                             200 ms into cc.NAME: costs guest CPU
#   ROCX_INCAST_RED=KMIN:KMAX:PMAX  RED on the bottleneck (bytes, bytes,
#                             probability) instead of the defaults below
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/switch_lib.sh"

me=$ROCX_GUEST_INDEX
flow=$ROCX_REPO/build/tests/e2e/rc_flow
# The bottleneck, well below what three TCG guests on two cores carry
# beside each other (Documentation/experiments.rst, "Measured").
rate=${ROCX_INCAST_RATE:-60}
# The victim's port: twice what it gets on the paused priority (about
# half the bottleneck) is about its rate alone, and it stays below what
# the guests, busy with the incast, carry beside it even on a host with
# a core taken: 62 to 68 Mb/s there, so at 80 it kept 89.8 to 94.5% on
# another priority, at 70 96.8 to 99.2% (Documentation/experiments.rst,
# "Scenarios and their checks" and "A host with a core taken").
vrate=${ROCX_INCAST_VRATE:-70}
# The victim's messages in flight and their size.  A receiver gives a
# message's slot back once it has checked it, so the victim's port runs
# dry whenever a credit's round trip (both guests woken, the check, both
# NICs, the switch twice) outlasts the rest of the window on the wire;
# and a port that ran dry lost no line time, so the host's delays then
# lower the rate without the switch seeing them.  Beside the incast
# that round trip took over 7.5 ms (one message at the port's rate) for
# 29% of the messages on a quiet host (15% alone), and up to 64 ms:
# 4 x 64 KiB leaves it three messages' time, where 2 x 64 KiB left one
# (Documentation/experiments.rst, "The victim's window").
vwin=${ROCX_INCAST_VWIN:-4:65536} vsize=${vwin#*:} vwin=${vwin%%:*}
# A victim flow whose port lost more than this percentage of its line
# time measured the host (quiet runs: 0.3 to 3.5%; one with 22% of the
# host's CPU stolen for 8 s: 9.3%), and the pair alone and beside the
# incast on another priority runs again, at most this many times in all.
VICTIM_LOST=5
VICTIM_TRIES=3
# The same for the DCQCN scenario's bottleneck, over S1's time (quiet
# runs: 0.1 to 0.4%; the host stopped 10 ms in 50: 10.9%).  Its queue's
# p95 is the check nearest its bound: 57.7 KB of 64 in a try that lost
# 3% to a hypervisor taking 15% of the CPU, 34 to 43 KB in quiet ones.
DCQCN_LOST=1
DCQCN_TRIES=2
secs=${ROCX_INCAST_SECS:-8}
# 800 KB of shared buffer, less than the 1.1 MB two senders keep in
# flight (the device has at most 512 packets of a QP unacknowledged):
# without PFC the bottleneck must drop.
buffer=800000
win=32
# Priority 3 lossless at the senders' ports: XOFF at 48 KB of a port's
# frames, XON at 24 KB, and 270 KB of headroom for what can still reach
# the switch after XOFF, worked out in Documentation/experiments.rst
# ("Headroom"): the rest of one datagram, a guest socket's send buffer
# (212992 bytes) and one datagram more, the datagram its NIC has queued
# and two engine runs, at most 11.1 KB each at 400 Mb/s; 268.5 KB.
# Past xoff a port takes headroom only, so the rest of the shared pool
# stays for the other priorities (the victim, ACKs): 164 KB of 800.
xoff=48000 headroom=270000
pfc_keys="prio=3 pfc=on xoff=$xoff xon=$((xoff / 2)) headroom=$headroom"
# The victim scenario's buffer: besides both senders' headroom and xoff,
# its window in frames (1082 bytes on the wire per 1024 of payload) and
# 64 KB for ACKs and credits, or the victim's own frames are dropped at
# S1's port (977 KB for 4 x 64 KiB).
vbuffer=$((2 * headroom + 2 * xoff + vwin * vsize * 1082 / 1024 + 64000))
# A full buffer at the bottleneck is 107 ms of queueing, beyond the
# 67 ms ACK timeout of 14: senders wait 537 ms (17) before a retry, as
# the 60 Mb/s bottleneck is a thousand times slower than a real one.
only=${ROCX_INCAST_ONLY:-lossy+pfc+victim+dcqcn}
only=${only//+/ }
# RED on R's port for priority 3, in bytes of its egress queue: marks
# begin at kmin, reach pmax at kmax, and every ECT frame is marked
# beyond.  With both senders each port holds half the queue, so Kmax is
# well below the 96 KB at which both would send XOFF.  Pmax is low
# enough that at the queue's usual depth (about 12 KB: p = 0.02) a
# sender's marks come about 10 ms apart, ten alpha periods: a CNP in
# every one would drive alpha to 1 and halve the rate each time.  It is
# high enough that a queue nearing Kmax (0.7 marks per ms per sender)
# cuts both senders within a millisecond or two: at 0.1 the queue's p95
# came to within 2 KB of Kmax (Documentation/experiments.rst, runs S to
# U).
kmin=5000 kmax=64000 pmax=0.2
if [ -n "${ROCX_INCAST_RED:-}" ]; then
	IFS=: read -r kmin kmax pmax <<<"$ROCX_INCAST_RED"
	[[ $kmin =~ ^[0-9]+$ && $kmax =~ ^[0-9]+$ && $pmax =~ ^[0-9.]+$ ]] ||
		rocx_die "ROCX_INCAST_RED=$ROCX_INCAST_RED: KMIN:KMAX:PMAX"
fi
# What R's port may leave unread at R: 1 MiB as the kernel counts it
# (455 datagrams of a full frame, 40 ms at the bottleneck), so that R's
# QEMU, not run by the host for a while, does not stall the bottleneck
# and make its queue.  The senders' ports keep the default 32 KiB: the
# switch's PFC frames must not wait behind much at a sender.
rbacklog=1048576
# DCQCN on every NIC (cc_param, mlx5's names and units: us, Mb/s,
# bytes), its time constants scaled for TCG guests and a 60 Mb/s
# bottleneck (Documentation/experiments.rst states and explains them).
# A QP's first CNP sets it to the bottleneck's rate: on a real fabric
# the NIC's line rate is the link's, and a first cut to half of it is
# what DCQCN is designed for.  Here the NICs run at 400 Mb/s (PFC's
# timing needs it) and the bottleneck at 60: halving from 400 took S2
# three CNPs, a millisecond apart, at ever more than the bottleneck,
# and the queue they built cut S1 just as often, to a fifth of S2's
# rate, which took a second to even out.
cc_extra=${ROCX_INCAST_CC:-}
dcqcn_params="np_min_time_between_cnps=1000 rp_dce_tcp_rtt=1000
rp_time_reset=8000 rp_byte_reset=131072 rp_threshold=5 rp_ai_rate=1
rp_hai_rate=5 rp_min_rate=5 rp_min_dec_fac=50 rp_gd=11
rp_initial_alpha_value=1023 rp_dce_tcp_g=1000 rp_clamp_tgt_rate=0
rp_rate_to_set_on_first_cnp=$rate
${cc_extra//+/ }"
# What each parameter was before, put back when the scenario ends (in a
# file: t runs fabric in a subshell).
cc_saved=/tmp/incast.cc_saved
ROCX_WAIT=$((secs * 5 + 150))
drop0=0 xoff0=0 drops=0 xoffs=0

[ "$ROCX_NGUESTS" -eq 3 ] || rocx_die "runs with 3 guests"
[ -x "$flow" ] || rocx_die "no $flow (make -C tests/e2e)"
if roce_up rocx; then
	t_ok "RoCE up"
else
	t_not_ok "RoCE up: $ROCE_ERR"
	t_done
fi
dev=$ROCE_NETDEV ibdev=$ROCE_DEV gid=$ROCE_GID

# sw_total KEY - a per-priority counter of the switch's qshow, summed
# over every port and priority (drops are counted where they happen: at
# the ingress port for the shared buffer, at the egress for its queue).
sw_total() {
	switch_ctl qshow port=all |
		awk -v k="$1" '
			$2 ~ /^prio/ {
				for (i = 3; i <= NF; i++)
					if (split($i, kv, "=") == 2 && kv[1] == k)
						n += kv[2]
			}
			END { print n + 0 }'
}

# wants SCEN - scenario SCEN is to run.
wants() {
	case " $only " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# rstat NAME - one of the port's `rdma statistic` counters.
rstat() {
	rdma statistic show link "$ibdev/1" |
		awk -v n="$1" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }'
}

ccdir=/sys/class/infiniband/$ibdev/ports/1/cc_param

# cc_set NAME=VALUE... - DCQCN parameters of this NIC, each read back
# from the device; $cc_saved learns the values they replace.
cc_set() {
	local kv k v

	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		echo "$k=$(cat "$ccdir/$k")" >>"$cc_saved"
		echo "$v" >"$ccdir/$k" || return 1
		[ "$(($(cat "$ccdir/$k")))" -eq "$((v))" ] || return 1
	done
}

# fabric MODE [BUFFER] - the switch for a scenario: bottleneck, buffer
# (BUFFER bytes, default $buffer), and with MODE pfc or dcqcn priority 3
# lossless on the senders' ports, with dcqcn RED/ECN on R's port too;
# guests' NICs to match.
fabric() {
	if [ "$me" -eq 0 ]; then
		switch_ctl qos port=all clear >/dev/null &&
			switch_ctl buffer size="${2:-$buffer}" >/dev/null &&
			switch_ctl qos port=all trust=pcp speed=400 >/dev/null &&
			switch_ctl qos port=0 rate="$rate" backlog=$rbacklog >/dev/null &&
			switch_ctl qos port=2 rate="$vrate" >/dev/null || return 1
		if [ "$1" != lossy ]; then
			# shellcheck disable=SC2086 # the keys are words
			switch_ctl qos port=1,2 $pfc_keys >/dev/null || return 1
			# Lossless at R's port too (XOFF never: R sends only
			# ACKs and credits there): RED then marks or passes
			# priority 3, and never drops what is not ECN capable
			# (the senders' ACKs of R's credits).
			switch_ctl qos port=0 prio=3 pfc=on >/dev/null || return 1
		fi
		if [ "$1" = dcqcn ]; then
			switch_ctl qos port=0 prio=3 kmin=$kmin kmax=$kmax \
				pmax=$pmax >/dev/null || return 1
		fi
		# The switch never resets its counters: scenarios count from
		# here (in a file: t runs this in a subshell).
		echo "$(sw_total dropped) $(sw_total pause_tx)" >/tmp/incast.base
	fi
	if [ "$1" != lossy ]; then
		dcb pfc set dev "$dev" prio-pfc all:off 3:on || return 1
	else
		dcb pfc set dev "$dev" prio-pfc all:off || return 1
	fi
	if [ "$1" = dcqcn ]; then
		# shellcheck disable=SC2086 # the settings are words
		cc_set $dcqcn_params
	fi
}

# receive NAME PORT [WINDOW [SIZE]] - a receiver in the background.  Its
# credit SENDs wait for ACKs that cross the congested (and paused)
# priority: the senders' ACK timeout (send), not rc_flow's 67 ms.
receive() {
	local ack=19

	[ "${1%%.*}" = lossy ] && ack=17
	rdma_env timeout $((secs + 60)) "$flow" -S -d "$ibdev" -g "$gid" \
		-p "$2" -n "$1" -w "${3:-$win}" -s "${4:-65536}" -i 250 -A "$ack" \
		>"$ROCX_OUT/flow.$1" 2>&1 &
}

# cc_trace NAME PID - while PID runs, this guest's RC QPs' reaction point
# every 200 ms as the device has it, one "TIME CUR TGT ALPHA" line each
# (TIME: this guest's CLOCK_REALTIME, s; rates Mb/s, alpha 1/1024).
cc_trace() {
	while kill -0 "$2" 2>/dev/null; do
		roce_qp_cc "$ibdev" "$EPOCHREALTIME"
		sleep 0.2
	done >"$ROCX_OUT/cc.$1"
}

# send NAME SCEN HOST PORT SL SECS [WINDOW] [DELAY_MS] [SIZE] - a sender
# in the foreground: it connects, says so, and starts DELAY_MS after
# guest 0 gives scenario SCEN's go (start_flows); SIZE bytes a message
# (default 64 KiB).  The ACK timeout is 17 (537
# ms) where frames are lost; where PFC loses none it only covers a
# guest the loaded host does not run for seconds: 19 (2.1 s, so seven
# retries wait 15 s).
send() {
	local ack=19 pid

	[ "${2%%.*}" = lossy ] && ack=17
	rdma_env timeout $(($6 + 90)) "$flow" -C "$3" -d "$ibdev" -g "$gid" \
		-p "$4" -l "$5" -t "$6" -n "$1" -w "${7:-$win}" -W "${8:-0}" \
		-s "${9:-65536}" \
		-G "$ROCX_SHARED/go.$2" -i 250 -A "$ack" -x 60 \
		>"$ROCX_OUT/flow.$1.tx" 2>&1 &
	pid=$!
	[ "${2%%.*}" = dcqcn ] && [ -n "${ROCX_INCAST_CCTRACE:-}" ] &&
		cc_trace "$1" "$pid" &
	wait "$pid"
}

# start_flows SCEN FLOW... - guest 0: once every FLOW's sender is
# connected, start them all (process start-up under TCG takes seconds,
# which would otherwise blur when a flow begins).
start_flows() {
	local scen=$1 f

	shift
	for f in "$@"; do
		wait_for 60 test -e "$ROCX_SHARED/go.$scen.$f.ready" ||
			rocx_log "$scen: sender $f did not connect"
	done
	: >"$ROCX_SHARED/go.$scen"
}

# goodput NAME - the receiver's summary rate of flow NAME, Mb/s.
goodput() {
	sed -n 's/.*"summary": true.*"mbps": \([0-9.]*\)}.*/\1/p' \
		"$ROCX_OUT/flow.$1" 2>/dev/null
}

# seconds NAME - the receiver's time of flow NAME, s.
seconds() {
	sed -n 's/.*"summary": true.*"seconds": \([0-9.]*\),.*/\1/p' \
		"$ROCX_OUT/flow.$1" 2>/dev/null
}

# line_lost PORT [WHOSE] - the line time switch port PORT has lost so far
# with frames waiting, ns: WHOSE host (default) is the host's part, recv
# the receiver's, a guest that ran and did not read (rocx-switch.rst
# "Line rate").  Only the host's excuses a measurement.
line_lost() {
	switch_ctl qshow port="$1" |
		sed -n "s/^port$1 .*lost_${2:-host}_ns=\([0-9]*\).*/\1/p"
}

# lost_pct LOST SECS - LOST ns as a whole percentage of SECS s (100 when
# SECS is not known).
lost_pct() {
	awk -v l="$1" -v s="$2" 'BEGIN {
		printf "%d\n", (s ~ /^[0-9.]+$/ && s > 0 ? 100 * l / 1e9 / s + 0.5 : 100)
	}'
}

# per_line NAME LOST - flow NAME's rate per unit of the line time its
# bottleneck had, LOST ns of its time lost: what it would have had from
# a host that ran the switch throughout.
per_line() {
	awk -v r="$(goodput "$1")" -v s="$(seconds "$1")" -v l="$2" 'BEGIN {
		if (r !~ /^[0-9.]+$/ || s !~ /^[0-9.]+$/ || l !~ /^[0-9]+$/ ||
		    s - l / 1e9 <= 0)
			exit 1
		printf "%.1f\n", r * s / (s - l / 1e9)
	}'
}

# retry_put KEY TRY TRIES LIMIT HOST RECV [HOST RECV]... - the guest that
# measured try TRY of KEY: it runs again when the host's part of some
# measurement's lost line time (lost_pct: HOST the host's part, RECV the
# receiver's) is over LIMIT and tries are left.  The receiver's part
# never asks for a retry: it is its NIC's doing, and the checks judge the
# measurement with it.  A retry is a test line naming both parts; it
# fails if the host's part that asked for it does not add up (an empty
# or unreadable figure reads as 100%, which asks for a retry but cannot
# be attributed).  Every guest reads the answer with retry_get KEY TRY.
retry_put() {
	local key=$1 try=$2 tries=$3 limit=$4 h r again=0 known=1 why=

	shift 4
	while [ $# -ge 2 ]; do
		[ -n "$1" ] && [ -n "$2" ] || known=0
		h=${1:-100} r=${2:-100}
		shift 2
		why="$why${why:+, }$h% the host's and $r% the receiver's"
		[ "$h" -gt "$limit" ] && [ "$try" -lt "$tries" ] && again=1
	done
	if [ "$again" = 1 ]; then
		rocx_log "$key: try $try lost $why of its line time (the host's over $limit%): again"
		t "$key: try $try retried: the host took its line time ($why; over $limit%)" \
			test "$known" = 1
	fi
	rocx_put "$key.again.$try" "$again"
}

retry_get() {
	[ "$(rocx_get "$1.again.$2")" = 1 ]
}

# flow_ok NAME RC - the receiver of NAME ended well (every byte checked).
flow_ok() {
	cat "$ROCX_OUT/flow.$1"
	[ "$2" -eq 0 ] && grep -q '"summary": true' "$ROCX_OUT/flow.$1"
}

# incast NAME SL [TRY] - S1 for $secs, S2 for $secs - 2 from 2 s later,
# both to R on service level SL; R checks both flows.  A TRY after the
# first has keys of its own for the guests' meeting points; its flows
# and the switch's series take the first's files' names, so what is
# judged is the last try.
incast() {
	local name=$1 sl=$2 key=$1 p1=18711 p2=18712 r1 r2 rc1 rc2

	[ "${3:-1}" -gt 1 ] && key=$name.$3
	case $me in
	0)
		switch_ctl series file="@OUT@/series.$name.jsonl" interval=50ms >/dev/null
		receive "$name.s1" $p1
		r1=$!
		receive "$name.s2" $p2
		r2=$!
		rocx_put "ready.$key" 1
		start_flows "$key" "$name.s1" "$name.s2"
		wait "$r1"; rc1=$?
		wait "$r2"; rc2=$?
		switch_ctl series off >/dev/null
		t "$name: S1's flow verified" flow_ok "$name.s1" "$rc1"
		t "$name: S2's flow verified" flow_ok "$name.s2" "$rc2"
		;;
	1)
		rocx_get "ready.$key" >/dev/null || return 1
		send "$name.s1" "$key" "$(rocx_ip 0)" $p1 "$sl" "$secs"
		;;
	2)
		rocx_get "ready.$key" >/dev/null || return 1
		send "$name.s2" "$key" "$(rocx_ip 0)" $p2 "$sl" $((secs - 2)) "" 2000
		;;
	esac
	rocx_barrier "done.$key"
}

# victim NAME SL [INCAST_SL] - S1 -> S2 on SL for 4 s; with INCAST_SL,
# the incast on that service level runs from 1 s before the victim to
# 1 s after it.
victim() {
	local name=$1 sl=$2 isl=${3:-} pv=18721 p1=18722 p2=18723 rv rc lost rlost
	local delay=0

	[ -n "$isl" ] && delay=1000
	case $me in
	0)
		if [ -n "$isl" ]; then
			receive "$name.s1" $p1
			receive "$name.s2" $p2
		fi
		rocx_put "ready.$name.r" 1
		rocx_get "ready.$name.v" >/dev/null || return 1
		if [ -n "$isl" ]; then
			start_flows "$name" "$name.v" "$name.s1" "$name.s2"
		else
			start_flows "$name" "$name.v"
		fi
		wait
		;;
	1)
		rocx_get "ready.$name.r" >/dev/null || return 1
		rocx_get "ready.$name.v" >/dev/null || return 1
		[ -n "$isl" ] && send "$name.s1" "$name" "$(rocx_ip 0)" $p1 "$isl" 6 &
		send "$name.v" "$name" "$(rocx_ip 2)" $pv "$sl" 4 $vwin "$delay" $vsize
		wait
		;;
	2)
		# The victim's bottleneck is this guest's switch port.
		lost=$(line_lost 2) rlost=$(line_lost 2 recv)
		receive "$name.v" $pv $vwin $vsize
		rv=$!
		rocx_put "ready.$name.v" 1
		rocx_get "ready.$name.r" >/dev/null || return 1
		[ -n "$isl" ] && send "$name.s2" "$name" "$(rocx_ip 0)" $p2 "$isl" 6 &
		wait "$rv"; rc=$?
		lost=$(($(line_lost 2) - lost))
		rlost=$(($(line_lost 2 recv) - rlost))
		t "$name: the victim's flow verified" flow_ok "$name.v" "$rc"
		rocx_put "victim.$name" "$(goodput "$name.v")"
		rocx_put "victim.$name.line" "$(per_line "$name.v" "$lost")"
		rocx_put "victim.$name.lost" "$(lost_pct "$lost" "$(seconds "$name.v")")"
		rocx_put "victim.$name.rlost" "$(lost_pct "$rlost" "$(seconds "$name.v")")"
		rocx_log "victim: $name: $(goodput "$name.v") Mb/s in $(seconds "$name.v") s, of its port's line time $((lost / 1000000)) ms lost to the host, $((rlost / 1000000)) ms to the receiver"
		wait
		;;
	esac
	rocx_barrier "done.$name"
}

# ratio_ok X OP Y F - the rates X and Y are numbers and X OP Y * F.
ratio_ok() {
	awk -v x="$1" -v op="$2" -v y="$3" -v f="$4" 'BEGIN {
		if (x !~ /^[0-9.]+$/ || y !~ /^[0-9.]+$/ || y <= 0)
			exit 1
		exit !(op == "<" ? x + 0 < y * f : x + 0 >= y * f)
	}'
}

# row NAME - guest 0's line of the table for scenario NAME; sets drops
# and xoffs, the switch's counts since the scenario's fabric was set up.
row() {
	local d x

	read -r drop0 xoff0 </tmp/incast.base
	d=$(($(sw_total dropped) - drop0)) x=$(($(sw_total pause_tx) - xoff0))
	drops=$d xoffs=$x
	printf '%-8s %9s %9s %9s %9s\n' "$1" "$(goodput "$1.s1")" \
		"$(goodput "$1.s2")" "$d" "$x" >>"$ROCX_OUT/incast.txt"
	printf '{"scenario": "%s", "s1_mbps": %s, "s2_mbps": %s, "dropped": %d, "pfc_sent": %d}\n' \
		"$1" "$(goodput "$1.s1")" "$(goodput "$1.s2")" "$d" "$x" \
		>>"$ROCX_OUT/incast.jsonl"
}

[ "$me" -eq 0 ] && printf '%-8s %9s %9s %9s %9s\n' scenario "S1 Mb/s" "S2 Mb/s" \
	drops "PFC sent" >"$ROCX_OUT/incast.txt" && : >"$ROCX_OUT/incast.jsonl"
rocx_barrier up

# ---- No PFC, no ECN ----
if wants lossy; then
	t "lossy: fabric set up" fabric lossy
	rocx_barrier lossy.cfg
	incast lossy 3
	if [ "$me" -eq 0 ]; then
		row lossy
		t "lossy: the bottleneck dropped frames ($drops)" test "$drops" -gt 0
	fi
	rocx_barrier lossy.end
fi

# ---- PFC on priority 3 ----
if wants pfc; then
	if [ "$me" -ne 0 ]; then
		pause0=$(hw rx_prio3_pause)
	fi
	t "pfc: fabric set up" fabric pfc
	rocx_barrier pfc.cfg
	incast pfc 3
	if [ "$me" -eq 0 ]; then
		row pfc
		t "pfc: no frame dropped at the switch ($drops)" test "$drops" -eq 0
		t "pfc: the switch sent PFC to the senders ($xoffs)" test "$xoffs" -gt 0
	else
		pause=$(($(hw rx_prio3_pause) - pause0))
		t "pfc: this sender's NIC was paused ($pause XOFFs)" test "$pause" -gt 0
	fi
	rocx_barrier pfc.end
fi

# ---- The victim of PFC ----
if wants victim; then
	t "victim: fabric set up" fabric pfc "$vbuffer"
	rocx_barrier victim.cfg
	# "other" right after "alone", in the same boot: 90% of the rate
	# alone measures the priority's isolation, not what else the host ran.
	# Unless the host took more than VICTIM_LOST percent of a flow's
	# line time at the victim's port with the victim's frames waiting
	# (line_lost), stopping the switch or the victim's receiver: then the
	# pair runs again, up to VICTIM_TRIES times.  What the receiver lost
	# while it ran (its NIC had no buffer) asks for no retry: the checks
	# judge it.  A priority that is not isolated holds the victim at S1,
	# where no time is lost at its port: a retry cannot hide that.
	try=1
	while :; do
		sfx=
		[ "$try" -gt 1 ] && sfx=.$try
		victim "alone$sfx" 3
		victim "other$sfx" 1 3
		[ "$me" -eq 2 ] && retry_put victim "$try" "$VICTIM_TRIES" "$VICTIM_LOST" \
			"$(rocx_get "victim.alone$sfx.lost")" "$(rocx_get "victim.alone$sfx.rlost")" \
			"$(rocx_get "victim.other$sfx.lost")" "$(rocx_get "victim.other$sfx.rlost")"
		retry_get victim "$try" || break
		try=$((try + 1))
	done
	victim same 3 3
	if [ "$me" -eq 2 ]; then
		alone=$(rocx_get "victim.alone$sfx") same=$(rocx_get victim.same)
		other=$(rocx_get "victim.other$sfx")
		rocx_log "victim: alone $alone Mb/s, beside the incast on its priority $same, on another $other"
		# Judged per unit of the line time the host gave the victim's
		# port, as the incast's goodput is (host/incast.py goodput):
		# a host that stopped the switch in one flow and not in
		# another says nothing of the priorities' isolation.
		la=$(rocx_get "victim.alone$sfx.line") ls=$(rocx_get victim.same.line)
		lo=$(rocx_get "victim.other$sfx.line")
		rocx_log "victim: per unit of its port's line time: alone $la Mb/s, beside the incast on its priority $ls, on another $lo"
		t "victim: below half its rate alone on the paused priority ($ls of $la Mb/s per unit of line time)" \
			ratio_ok "$ls" "<" "$la" 0.5
		t "victim: 90% of its rate alone on another priority ($lo of $la Mb/s per unit of line time)" \
			ratio_ok "$lo" ">=" "$la" 0.9
		printf '{"scenario": "victim", "alone_mbps": %s, "same_prio_mbps": %s, "other_prio_mbps": %s, "alone_line_mbps": %s, "same_prio_line_mbps": %s, "other_prio_line_mbps": %s}\n' \
			"$alone" "$same" "$other" "${la:-null}" "${ls:-null}" "${lo:-null}" \
			>"$ROCX_OUT/victim.jsonl"
	fi
	if [ "$me" -eq 0 ]; then
		# The shared pool holds the victim's window beside what the
		# incast takes (vbuffer), and priority 3 is lossless: a drop is
		# the buffer's sizing failing, and RC's recovery from it would
		# be in the rates compared.
		read -r drop0 _ </tmp/incast.base
		d=$(($(sw_total dropped) - drop0))
		t "victim: the switch dropped no frame ($d)" test "$d" -eq 0
	fi
	rocx_barrier victim.end
fi

# ---- PFC + ECN + DCQCN ----
if wants dcqcn; then
	t "dcqcn: fabric set up" fabric dcqcn
	rocx_barrier dcqcn.cfg
	# As the victim's pair: a try whose bottleneck lost more than
	# DCQCN_LOST percent of S1's time to the host with frames waiting
	# runs again (the fabric as it is), at most DCQCN_TRIES times in
	# all; everything is judged on the last.
	try=1
	while :; do
		case $me in
		0)
			n0=$(rstat np_cnp_sent) m0=$(rstat np_ecn_marked_roce_packets)
			echo "$(sw_total dropped) $(sw_total pause_tx)" >/tmp/incast.base
			lost=$(line_lost 0) rlost=$(line_lost 0 recv)
			;;
		*) h0=$(rstat rp_cnp_handled) ;;
		esac
		incast dcqcn 3 "$try"
		if [ "$me" -eq 0 ]; then
			lost=$(($(line_lost 0) - lost))
			rlost=$(($(line_lost 0 recv) - rlost))
			pct=$(lost_pct "$lost" "$(seconds dcqcn.s1)")
			rpct=$(lost_pct "$rlost" "$(seconds dcqcn.s1)")
			rocx_log "dcqcn: try $try: the bottleneck lost $((lost / 1000000)) ms of its line time to the host ($pct% of S1's time), $((rlost / 1000000)) ms to the receiver ($rpct%)"
			retry_put dcqcn "$try" "$DCQCN_TRIES" "$DCQCN_LOST" "$pct" "$rpct"
		fi
		retry_get dcqcn "$try" || break
		try=$((try + 1))
	done
	if [ "$me" -eq 0 ]; then
		row dcqcn
		t "dcqcn: no frame dropped at the switch ($drops)" test "$drops" -eq 0
		n=$(($(rstat np_cnp_sent) - n0))
		m=$(($(rstat np_ecn_marked_roce_packets) - m0))
		t "dcqcn: R's notification point sent CNPs ($n for $m marked)" \
			test "$n" -gt 0 -a "$m" -ge "$n"
		printf '{"scenario": "dcqcn_np", "cnp_sent": %d, "ecn_marked": %d}\n' \
			"$n" "$m" >>"$ROCX_OUT/incast.jsonl"
		printf '{"scenario": "dcqcn_cfg", "kmin": %d, "kmax": %d, "pmax": %s, "s2_secs": %d}\n' \
			"$kmin" "$kmax" "$pmax" $((secs - 2)) >>"$ROCX_OUT/incast.jsonl"
	else
		h=$(($(rstat rp_cnp_handled) - h0))
		t "dcqcn: this sender's reaction point cut its rate ($h CNPs handled)" \
			test "$h" -gt 0
		rocx_put "cnp_handled.$me" "$h"
	fi
	if [ -s "$cc_saved" ]; then
		mv "$cc_saved" "$cc_saved.old"
		# shellcheck disable=SC2046 # the settings are words
		t "dcqcn: DCQCN parameters put back" cc_set $(cat "$cc_saved.old")
	fi
	rocx_barrier dcqcn.end
fi

if [ "$me" -eq 0 ]; then
	switch_ctl qos port=all clear >/dev/null
	switch_ctl buffer size=0 >/dev/null
	sed 's/^/# /' "$ROCX_OUT/incast.txt"
fi
t "no kernel warnings" dmesg_clean
t_done
