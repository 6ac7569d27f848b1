#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/run/bench.sh: two guests with the same kind of RDMA NIC
# run tests/bench/plan, guest 0 as the perftest server and guest 1 as the
# client.  Environment (run-guests.sh env= words):
#   ROCX_BENCH_NIC=rocx|rxe   the NIC kind (rxe: Soft-RoCE on virtio-net)
#   ROCX_BENCH_ONLY=A:B       run only these plan entries (default: all)
#   ROCX_BENCH_RUN_S=N        limit for one perftest run (default 60)
# The client writes one line per plan entry to /rocx-out/results:
#   NAME ok bytes=B iters=N bw_peak=X bw_avg=X msg_rate=X       (bandwidth)
#   NAME ok bytes=B iters=N t_min=X t_max=X t_typical=X t_avg=X
#           t_stdev=X t_p99=X t_p999=X                          (latency)
#   NAME na REASON...
# in perftest's units (MiB/s, Mpps, usec); both sides keep perftest's
# output in /rocx-out/NAME.log.  A test that fails is a result ("na"), not
# a failure of this script: it exits non-zero only when the harness breaks
# (a peer or a barrier lost).
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

kind=${ROCX_BENCH_NIC:-rxe}
run_s=${ROCX_BENCH_RUN_S:-60}
me=$ROCX_GUEST_INDEX
server_ip=$(rocx_ip 0)
results=$ROCX_OUT/results
# A run's server waits for its client's verdict: allow for the whole run.
ROCX_WAIT=$((run_s + 60))

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "needs exactly 2 guests"
# Debian's perftest on the self-built libibverbs (rocx and rxe providers).
export LD_LIBRARY_PATH=$ROCX_RDMA/lib

# Both sides must be up before any run; a side that cannot set up its NIC
# turns every entry into "na" with its reason.
setup=ok
roce_up "$kind" || setup="setup failed on guest$me: $ROCE_ERR"
rocx_put "setup.$me" "$setup"
peer_setup=$(rocx_get "setup.$((1 - me))") || exit 1
[ "$setup" = ok ] && setup=$peer_setup
rocx_barrier setup

# why LOG RC - one line saying why a perftest run failed.
why() {
	local log=$1 rc=$2 line

	if [ "$rc" -eq 124 ]; then
		echo "timed out after ${run_s}s"
		return
	fi
	line=$(grep -aiE "couldn't|unable|error|fail|not supported|invalid|unknown" "$log" |
		grep -v '^ *#' | tail -n 1)
	[ -n "$line" ] || line=$(grep -av '^ *$' "$log" | tail -n 1)
	echo "exit $rc: $(echo "${line:-no output}" | tr -s ' \t' ' ' | sed 's/^ //')"
}

# parse NAME LOG - the result line of perftest's output in LOG (the first
# numeric line after its "#bytes" header).
parse() {
	awk -v name="$1" '
		/#bytes/ { hdr = 1; lat = /t_typical/; next }
		hdr && $1 ~ /^[0-9]+$/ && NF >= 5 {
			if (lat)
				printf "%s ok bytes=%s iters=%s t_min=%s t_max=%s t_typical=%s t_avg=%s t_stdev=%s t_p99=%s t_p999=%s\n",
					name, $1, $2, $3, $4, $5, $6, $7, $8, $9
			else
				printf "%s ok bytes=%s iters=%s bw_peak=%s bw_avg=%s msg_rate=%s\n",
					name, $1, $2, $3, $4, $5
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

[ "$me" -eq 1 ] && : >"$results"
idx=-1
while read -r name tool bytes run; do
	case $name in '' | '#'*) continue ;; esac
	idx=$((idx + 1))
	if [ -n "${ROCX_BENCH_ONLY:-}" ] && [[ ":$ROCX_BENCH_ONLY:" != *":$name:"* ]]; then
		continue
	fi
	log=$ROCX_OUT/$name.log
	if [ "$setup" != ok ]; then
		[ "$me" -eq 1 ] && echo "$name na $setup" >>"$results"
		continue
	fi
	port=$((18515 + idx))
	# With -R rdma_cm resolves the GID and the server listens there.
	gid=(-x "$ROCE_GID") listening=roce_port_listening
	[[ " $run " == *" -R "* ]] && gid=() listening=roce_cm_listening
	# $run is "-D N" or "-n N" and options: split on purpose.
	# shellcheck disable=SC2086
	set -- -F -d "$ROCE_DEV" "${gid[@]}" -m 1024 -p "$port" -s "$bytes" $run
	if [ "$me" -eq 0 ]; then
		timeout "$run_s" "$tool" "$@" >"$log" 2>&1 &
		srv=$!
		if wait_for 20 "$listening" "$port"; then
			rocx_put "listen.$name" ok
		else
			wait "$srv"
			rocx_put "listen.$name" "server: $(why "$log" $?)"
			continue
		fi
		verdict=$(rocx_get "done.$name") || exit 1
		# The client is done: a server still running has lost it
		# (timeout passes the TERM on to perftest).
		wait_for 5 sh -c "! kill -0 $srv" || kill -TERM "$srv" 2>/dev/null
		wait "$srv"
		rc=$?
		[ "$rc" -eq 0 ] || [ "$verdict" != ok ] ||
			rocx_log "$name: client ok but server $(why "$log" "$rc")"
		[ "$rc" -eq 0 ] || rocx_put "server.$name" "$(why "$log" "$rc")"
		rocx_put "server_done.$name" 1
	else
		listen=$(rocx_get "listen.$name") || exit 1
		if [ "$listen" != ok ]; then
			echo "$name na $listen" >>"$results"
			continue
		fi
		timeout "$run_s" "$tool" "$@" "$server_ip" >"$log" 2>&1
		rc=$?
		if [ "$rc" -eq 0 ] && line=$(parse "$name" "$log") &&
			! uncalibrated "$line" "$log"; then
			rocx_put "done.$name" ok
			rocx_get "server_done.$name" >/dev/null || exit 1
		else
			reason=$(why "$log" "$rc")
			[ "$rc" -eq 0 ] && uncalibrated "${line:-}" "$log" &&
				reason="perftest could not time the run: $(grep -a 'Correlation coefficient' "$log" | head -n 1)"
			rocx_put "done.$name" fail
			rocx_get "server_done.$name" >/dev/null || exit 1
			[ -f "$ROCX_SHARED/val.server.$name" ] &&
				reason="$reason; server: $(rocx_get "server.$name")"
			line="$name na $reason"
		fi
		echo "$line" >>"$results"
		rocx_log "$line"
	fi
done <"$ROCX_REPO/tests/bench/plan"

rocx_barrier finished
exit 0
