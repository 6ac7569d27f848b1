#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/run/bench.sh: the guests of one run take turns
# through a plan (tests/bench/plan by default).  Each NIC kind is a pair of
# guests, in the order of ROCX_BENCH_KINDS: pair P is guest 2P (perftest
# server) and guest 2P+1 (client).  A "sink" kind is one more guest, a rocx
# NIC with x-sink=on, server and client of its own runs (the client's QP
# connects to the server's on the same NIC): its WQEs complete without a
# frame sent, so its rate is what the vCPU posts, and it needs no peer.
# Every guest walks the same sequence of runs, repetition by repetition,
# the kinds of one entry one after the other (the other kind first in every
# other repetition), so that the host's load falls on each kind alike; a
# guest with no part in a run waits for its end.  Environment (run-guests.sh env=
# words):
#   ROCX_BENCH_KINDS=rocx:rxe[:sink]  the kinds of the run, in guest order
#   ROCX_BENCH_NIC=rocx|rxe   this guest's NIC (rxe: Soft-RoCE on virtio-net)
#   ROCX_BENCH_PLAN=FILE      the plan, relative to the repository
#   ROCX_BENCH_ONLY=A:B       run only these plan entries (default: all)
#   ROCX_BENCH_REPS=N         at most N repetitions of any entry
#   ROCX_BENCH_RUN_S=N        limit for one perftest run (default 60; a
#                             latency run gets twice ROCX_BENCH_LAT_S more)
#   ROCX_BENCH_LAT_S=N        the time a latency run's round trips may take
#                             (default 60): a pilot run of 1000 round trips
#                             measures the pair's pace first, and the run
#                             does the plan's -n or as many as fit in N s
#   ROCX_BENCH_ACCT=1         the host command samples the host's threads
#                             around each run (scripts/run/bench.py sample):
#                             ask it to, and wait until it has
#   ROCX_BENCH_TIMED=1        a timed run (make bench TIMED=1): the guests
#                             and their clocks are in virtual time, so a
#                             latency run does the plan's -n with no pilot,
#                             and the limits are virtual seconds, which the
#                             host's wall-clock timeout bounds
# A client writes one line per run to /rocx-out/results:
#   NAME KIND REP ok bytes=B iters=N bw_peak=X bw_avg=X msg_rate=X  (bandwidth)
#   NAME KIND REP ok bytes=B iters=N t_min=X t_max=X t_typical=X t_avg=X
#           t_stdev=X t_p99=X t_p999=X                          (latency)
#   NAME KIND REP na REASON...
# in perftest's units (MiB/s, Mpps, usec), a latency run's pilot as
# NAME-pilot; both sides keep perftest's output in
# /rocx-out/NAME.KIND.REP.log.  A test that fails is a result ("na"), not
# a failure of this script: it exits non-zero only when the harness
# breaks (a peer or a barrier lost).  Every perftest runs SCHED_IDLE
# (chrt --idle 0): on the guest's one vCPU its busy polling must not hold
# off the kernel's share of the work, above all Soft-RoCE's protocol
# processing, which runs in rxe_wq workers (Documentation/performance.rst).
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

IFS=: read -ra kinds <<<"${ROCX_BENCH_KINDS:-rocx:rxe}"
nic=${ROCX_BENCH_NIC:-rxe}
run_s=${ROCX_BENCH_RUN_S:-60}
lat_s=${ROCX_BENCH_LAT_S:-60}
pilot_n=1000
plan=$ROCX_REPO/${ROCX_BENCH_PLAN:-tests/bench/plan}
max_reps=${ROCX_BENCH_REPS:-99}
me=$ROCX_GUEST_INDEX
results=$ROCX_OUT/results
timed=${ROCX_BENCH_TIMED:-0}
# A server waits for its client's verdict: allow for the longest run.
ROCX_WAIT=$((run_s + 2 * lat_s + 200))
# In virtual time the guests' waits are bounded by the host's wall-clock
# timeout only: 9p answers in wall time, which a synchronised guest sees
# as long stretches of virtual time.
[ "$timed" = 1 ] && ROCX_WAIT=1000000

# The server and client guests of KIND: "SERVER CLIENT", or nothing when
# the run has no such kind.
npairs=0
declare -A server=() client=()
for k in "${kinds[@]}"; do
	[ "$k" = sink ] && continue
	server[$k]=$((2 * npairs)) client[$k]=$((2 * npairs + 1))
	npairs=$((npairs + 1))
done
for k in "${kinds[@]}"; do
	[ "$k" = sink ] || continue
	server[sink]=$((2 * npairs)) client[sink]=$((2 * npairs))
done
nguests=$((2 * npairs))
[ -n "${client[sink]:-}" ] && nguests=$((nguests + 1))
[ "$ROCX_NGUESTS" -eq "$nguests" ] ||
	rocx_die "$ROCX_NGUESTS guests for kinds '${kinds[*]}'"

# Both sides must be up before any run; a guest that cannot set up its NIC
# turns every run of its kinds into "na" with its reason.  A netdev MTU of
# 4200 lets a run choose a path MTU of 4096 (-m); runs without -m get 1024.
setup=ok
# A timed NIC joins the fabric when its link is set up, and its carrier
# comes at the switch's --epoch, past every guest's boot: give the
# carrier that long, more than roce_up's own wait.
if [ "$timed" = 1 ] && rocx_load_modules >/tmp/load.log 2>&1 &&
	wait_for 20 rocx_ibdev && nd=$(rocx_netdev) && ip link set "$nd" up; then
	wait_for 60 carrier_is "$nd" 1
fi
if roce_up "$nic"; then
	if ! ip link set "$ROCE_NETDEV" mtu 4200; then
		setup="guest$me: $ROCE_NETDEV refuses MTU 4200"
	elif ! wait_for 20 _roce_port_active "$ROCE_DEV"; then
		setup="guest$me: $ROCE_DEV not ACTIVE after the MTU change"
	fi
else
	setup="setup failed on guest$me: $ROCE_ERR"
fi
rocx_put "setup.$me" "$setup"
declare -A setup_of=()
for ((g = 0; g < ROCX_NGUESTS; g++)); do
	setup_of[$g]=$(rocx_get "setup.$g") || exit 1
done
rocx_barrier setup

# why LOG RC - one line saying why a perftest run failed.
why() {
	local log=$1 rc=$2 line

	if [ "$rc" -eq 124 ]; then
		echo "timed out after ${limit}s"
		return
	fi
	line=$(grep -aiE "couldn't|unable|error|fail|not supported|invalid|unknown" "$log" |
		grep -v '^ *#' | tail -n 1)
	[ -n "$line" ] || line=$(grep -av '^ *$' "$log" | tail -n 1)
	echo "exit $rc: $(echo "${line:-no output}" | tr -s ' \t' ' ' | sed 's/^ //')"
}

# parse PREFIX LOG - the result line of perftest's output in LOG (the first
# numeric line after its "#bytes" header).  t_typical is perftest's median.
parse() {
	awk -v pre="$1" '
		/#bytes/ { hdr = 1; lat = /t_typical/; next }
		hdr && $1 ~ /^[0-9]+$/ && NF >= 5 {
			if (lat)
				printf "%s ok bytes=%s iters=%s t_min=%s t_max=%s t_typical=%s t_avg=%s t_stdev=%s t_p99=%s t_p999=%s\n",
					pre, $1, $2, $3, $4, $5, $6, $7, $8, $9
			else
				printf "%s ok bytes=%s iters=%s bw_peak=%s bw_avg=%s msg_rate=%s\n",
					pre, $1, $2, $3, $4, $5
			found = 1
			exit
		}
		END { exit !found }' "$2"
}

# uncalibrated LINE LOG - perftest's bandwidth is 0 for a run that moved
# data because it could not measure the guest's clock rate (its linear
# fit of TSC against time failed, as a loaded TCG host can make it): the
# figure is not the device's, so the run is n/a, not 0.
uncalibrated() {
	[[ $1 == *" bw_avg=0.00 "* && $1 != *" iters=0 "* ]] &&
		grep -aq 'Correlation coefficient' "$2"
}

# pace WANT NAME KIND REP ok ... t_avg=X ... - the round trips of the
# counted run after its pilot: WANT (the plan's -n), or as many as fit in
# lat_s at the pilot's average round trip (perftest's t_avg is half of
# one), but no fewer than the pilot did.  Nothing for a failed pilot: the
# run does the plan's -n.
pace() {
	local want=$1 avg

	shift
	[ "$4" = ok ] || return 0
	avg=$(printf '%s\n' "$@" | sed -n 's/^t_avg=//p')
	[ -n "$avg" ] || return 0
	awk -v avg="$avg" -v lat="$lat_s" -v pilot="$pilot_n" -v want="$want" 'BEGIN {
		n = avg > 0 ? int(lat * 1e6 / (2 * avg)) : want
		n = n > want ? want : n
		print n < pilot ? pilot : n
	}'
}

# await KEY - rocx_get, for a guest with no part in a run: it looks less
# often, to leave the host to the guests that run.
await() {
	local i

	for ((i = 0; i < ROCX_WAIT * 2; i++)); do
		[ -f "$ROCX_SHARED/val.$1" ] && return 0
		rocx_check_peers
		sleep 0.5
	done
	rocx_die "no value for $1 after ${ROCX_WAIT}s"
}

# acct begin|end TAG - have the host sample its threads now.
acct() {
	[ "${ROCX_BENCH_ACCT:-0}" = 1 ] || return 0
	rocx_put "acct.$1.$2" 1
	rocx_get "acct.$1-done.$2" >/dev/null
}

# server_begin CMD... - start the server of run $tag in the background
# and say whether it listens (listen.$tag).
server_begin() {
	timeout "$limit" "$@" >"$log" 2>&1 &
	srv_pid=$!
	if wait_for 20 "$listening" "$port"; then
		rocx_put "listen.$tag" ok
	else
		wait "$srv_pid"
		rocx_put "listen.$tag" "server: $(why "$log" $?)"
		srv_pid=
	fi
}

# server_end - the server's part after its client's: wait for perftest
# and the client's verdict, then let the guests go on (server_done.$tag).
server_end() {
	local rc verdict

	if [ -z "$srv_pid" ]; then
		rocx_get "server_done.$tag" >/dev/null || exit 1
		return
	fi
	# The server looks at nothing over 9p until its perftest is over.
	# Each look (a stat over 9p and a fork of sleep, every ROCX_POLL)
	# takes the guest's one vCPU from perftest, which runs SCHED_IDLE:
	# when the server asked for the client's verdict while perftest ran,
	# a round trip took 20 to 30 ms every 140 ms, 43 of the 50 round
	# trips over 20 ms in a traced latency run (Documentation/
	# performance.rst).  In virtual time a look would also come at an
	# instant the host decides.  A server whose client is gone ends when
	# perftest sees it, or at its timeout.
	wait "$srv_pid"
	rc=$?
	verdict=$(rocx_get "done.$tag") || exit 1
	[ "$rc" -eq 0 ] || [ "$verdict" != ok ] ||
		rocx_log "$tag: client ok but server $(why "$log" "$rc")"
	[ "$rc" -eq 0 ] || rocx_put "server.$tag" "$(why "$log" "$rc")"
	rocx_put "server_done.$tag" 1
}

# client_run CMD... - the client of run $tag against guest $srv; sets
# line to its result line.
client_run() {
	local listen rc reason n

	line=
	listen=$(rocx_get "listen.$tag") || exit 1
	if [ "$listen" != ok ]; then
		line="$name $kind $rep na $listen"
		rocx_put "server_done.$tag" 1
		return
	fi
	acct begin "$tag"
	# In virtual time the client starts on a round instant of its
	# clock (at_exec), not when 9p let it: then the guest's own
	# periodic work meets each repetition at the same points.
	[ "$timed" = 1 ] && set -- "$ROCX_REPO/build/tests/e2e/at_exec" 100 "$@"
	timeout "$limit" "$@" "$(rocx_ip "$srv")" >"$log" 2>&1
	rc=$?
	acct end "$tag"
	if [ "$rc" -eq 0 ] && line=$(parse "$name $kind $rep" "$log") &&
		! uncalibrated "$line" "$log"; then
		rocx_put "done.$tag" ok
		# The sink's guest is its server too: no one else says done.
		[ "$srv" -eq "$me" ] || rocx_get "server_done.$tag" >/dev/null || exit 1
	else
		reason=$(why "$log" "$rc")
		[ "$rc" -eq 0 ] && uncalibrated "${line:-}" "$log" &&
			reason="perftest could not time the run: $(grep -a 'Correlation coefficient' "$log" | head -n 1)"
		rocx_put "done.$tag" fail
		[ "$srv" -eq "$me" ] || rocx_get "server_done.$tag" >/dev/null || exit 1
		[ -f "$ROCX_SHARED/val.server.$tag" ] &&
			reason="$reason; server: $(rocx_get "server.$tag")"
		line="$name $kind $rep na $reason"
	fi
	if [[ $name == *-pilot ]]; then
		# shellcheck disable=SC2086 # its words are pace's arguments
		n=$(pace "$want" $line)
		[ -z "$n" ] || echo "$n" >"$ROCX_OUT/iters.${name%-pilot}.$kind.$rep"
	fi
}

# The sequence: "NAME KIND REP TOOL BYTES RUN..." per run.
mapfile -t entries < <(grep -vE '^[[:space:]]*(#|$)' "$plan")
seq=()
for ((rep = 1; rep <= max_reps; rep++)); do
	any=0
	for e in "${entries[@]}"; do
		read -r name ekinds reps tool bytes run <<<"$e"
		[ "$rep" -le "$reps" ] || continue
		any=1
		if [ -n "${ROCX_BENCH_ONLY:-}" ] && [[ ":$ROCX_BENCH_ONLY:" != *":$name:"* ]]; then
			continue
		fi
		order=()
		for k in "${kinds[@]}"; do
			[[ ",$ekinds," == *",$k,"* ]] && [ -n "${client[$k]:-}" ] && order+=("$k")
		done
		# Every other repetition the other kind goes first.
		if [ $((rep % 2)) -eq 0 ] && [ "${#order[@]}" -eq 2 ]; then
			order=("${order[1]}" "${order[0]}")
		fi
		for k in "${order[@]}"; do
			# A latency run's pilot, just before it (in virtual
			# time the host's pace changes nothing measured).
			[[ " $run " == *" -n "* ]] && [ "$timed" != 1 ] &&
				seq+=("$name-pilot $k $rep $tool $bytes $run")
			seq+=("$name $k $rep $tool $bytes $run")
		done
	done
	[ "$any" -eq 1 ] || break
done

[ -n "${client[$nic]:-}" ] && [ "$me" -eq "${client[$nic]}" ] && : >"$results"
[ "$me" -eq "${client[sink]:--1}" ] && : >"$results"
for ((i = 0; i < ${#seq[@]}; i++)); do
	read -r name kind rep tool bytes run <<<"${seq[$i]}"
	tag=$name.$kind.$rep
	srv=${server[$kind]} cli=${client[$kind]}
	if [ "$me" -ne "$srv" ] && [ "$me" -ne "$cli" ]; then
		await "server_done.$tag"
		continue
	fi
	log=$ROCX_OUT/$tag.log
	why_setup=${setup_of[$srv]}
	[ "$why_setup" = ok ] && why_setup=${setup_of[$cli]}
	if [ "$why_setup" != ok ]; then
		[ "$me" -eq "$cli" ] && echo "$name $kind $rep na $why_setup" >>"$results"
		[ "$me" -eq "$cli" ] && rocx_put "server_done.$tag" 1
		continue
	fi
	# A port per run, so that a server still closing cannot refuse the next.
	port=$((18515 + i))
	limit=$run_s
	# A latency run does the plan's round trips or as many as its pilot
	# says fit in lat_s (Soft-RoCE under TCG on a loaded host takes 5 to
	# 20 ms a round trip); both sides must agree on -n.  The limit lets
	# the host get twice as slow as in the pilot; a pilot gets lat_s.
	if [[ " $run " =~ \ -n\ ([0-9]+) ]]; then
		want=${BASH_REMATCH[1]} n=$pilot_n
		limit=$((run_s + lat_s))
		if [[ $name != *-pilot ]]; then
			n=$want
			if [ "$me" -eq "$cli" ]; then
				[ -f "$ROCX_OUT/iters.$tag" ] && n=$(cat "$ROCX_OUT/iters.$tag")
				rocx_put "iters.$tag" "$n"
			else
				n=$(rocx_get "iters.$tag") || exit 1
			fi
			limit=$((run_s + 2 * lat_s))
		fi
		run=${run/-n $want/-n $n}
	fi
	# A timed run takes well under a virtual second; a server whose
	# client failed waits out its limit, at several wall seconds each.
	[ "$timed" = 1 ] && limit=20
	# With -R rdma_cm resolves the GID and the server listens there.
	gid=(-x "$ROCE_GID") listening=roce_port_listening
	[[ " $run " == *" -R "* ]] && gid=() listening=roce_cm_listening
	mtu=(-m 1024)
	[[ " $run " == *" -m "* ]] && mtu=()
	# $run is "-D N" or "-n N" and options: split on purpose.
	# shellcheck disable=SC2086
	set -- -F -d "$ROCE_DEV" "${gid[@]}" "${mtu[@]}" -p "$port" -s "$bytes" $run
	# Line-buffered, so that a run the limit ends keeps what it printed.
	set -- chrt --idle 0 stdbuf -oL "$tool" "$@"
	# The sink's guest is its own server: both parts, in this order.
	[ "$me" -eq "$srv" ] && server_begin "$@"
	if [ "$me" -eq "$cli" ]; then
		client_run "$@"
		[ -n "$line" ] && echo "$line" >>"$results" && rocx_log "$line"
	fi
	[ "$me" -eq "$srv" ] && server_end
done

rocx_put "acct.quit.$me" 1
rocx_barrier finished
exit 0
