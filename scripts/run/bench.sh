#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: perftest between TCG guests, rocx NICs and Soft-RoCE (rxe)
# on virtio-net NICs, in one boot: a pair of guests per kind and a fifth
# guest, a rocx NIC with x-sink=on, for the plan's sink rows.  The rocx
# pair is alone on rocx-switch, so that on direct rings (the default) the
# switch steps aside between them; the Soft-RoCE pair is on a
# point-to-point link of its own (nothing between them either), and the
# sink guest on a segment of its own, server and client in one guest.
# The pairs take turns run by run (scripts/guest/bench.sh), so the host's
# load falls on both alike.  Around every run the
# host samples the CPU time, run-queue wait and context switches of every
# QEMU thread and of rocx-switch, and stops the vCPUs of the guests that
# take no part in it (scripts/run/bench.py sample).  Prints one
# table (rows: tests; columns: rocx, rxe, rocx/rxe; median [min-max] over
# repetitions) and the host's cost of each run, written to
# build/bench/results.txt and build/bench/acct.txt.  tests/bench/plan lists
# the runs.  Then rocx-switch's CPU time per frame on the host
# (build/bench/switch.txt).  Documentation/performance.rst explains it.
#
# --timed (make bench TIMED=1): the rocx pair alone in virtual time
# (run-guests.sh --timed; Soft-RoCE has no timed mode), NICs and switch
# ports at --speed, links of --link-latency, every run of tests/bench/
# timed-plan an iteration count (-n: perftest's -D counts the guest's
# virtual seconds, tens of wall seconds each), each twice; the table
# gives both runs' figures in virtual time and whether they are the same
# (build/bench-timed).
#
#   scripts/run/bench.sh [--no-build] [--kinds 'rocx rxe sink'] [--only NAME[:NAME...]]
#                        [--plan FILE] [--reps N] [--props P=V[:P=V]] [--out DIR]
#                        [--lat-s N] [--link netdev|channel|direct]
#                        [--qemu-sched other|nice|fifo] [--trace EVENT[,EVENT...]]
#   scripts/run/bench.sh --timed [--no-build] [--only NAME[:NAME...]] [--plan FILE]
#                        [--props P=V[:P=V]] [--out DIR] [--speed MBPS]
#                        [--link-latency NS]
#   scripts/run/bench.sh --report [--timed] [--out DIR] [--plan FILE]
#                                       the table of the last run again
#
#   --no-build   skip scripts/build/all.sh (use what build/ holds)
#   --kinds      NIC kinds to run (default all three; a missing kind is n/a)
#   --only       plan entries to run (default all)
#   --plan       the plan (default tests/bench/plan)
#   --reps       at most N repetitions of any entry
#   --props      more rocx device properties, e.g. x-sq-inflight=8
#   --link       how the rocx pair joins the switch (run-guests.sh --link):
#                QEMU's dgram netdev, the device's fabric channel with its
#                shared-memory rings, or that channel with the switch's
#                --direct (default: the two NICs write each other's
#                rings)
#   --qemu-sched  each QEMU's main thread beside the vCPUs (other),
#                beside them at nice -20 (nice, the default: the 99th
#                percentile of a round trip falls from 2.5 ms to 150 us),
#                or ahead of them (fifo) (run-guests.sh --qemu-sched)
#   --trace      QEMU trace events of the rocx guests, into their
#                qemu.log (scripts/run/bench_timeline.py reads
#                rocx_db_write, rocx_tx and rocx_chan_rx of a latency run)
#   --out        output directory (default build/bench)
#   --lat-s      the time a latency run's round trips may take (default
#                60): it does the plan's -n or as many as fit at the pace
#                of its pilot
#   --speed      a timed run's line rate in Mb/s (default 25000)
#   --link-latency  a timed run's link latency in ns (default 1000: 200 m
#                of fibre)
# A test that a kind cannot run (a guest that crashed) is "n/a" with its
# reason under the table.  Exits 1 only if the harness broke: the build,
# run-guests itself, the rxe reference run, or the switch's benchmark.
# The guests are bounded by run-guests --timeout and each perftest run by
# ROCX_BENCH_RUN_S, so the whole bench stays near 10 minutes even when
# every rocx run hangs.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
out=$repo/build/bench
plan=tests/bench/plan
run_s=40		# one perftest run (scripts/guest/bench.sh)
lat_s=60		# a latency run's round trips, after its pilot's
build=1 kinds='rocx rxe sink' only='' report=0 reps='' props='' link=direct
qemu_sched=nice trace='' timed=0 speed=25000 link_ns=1000 plan_set=0 out_set=0

while [ $# -gt 0 ]; do
	case $1 in
	--no-build) build=0 ;;
	--report) report=1 ;;
	--kinds) kinds=$2; shift ;;
	--only) only=$2; shift ;;
	--plan) plan=$2 plan_set=1; shift ;;
	--reps) reps=$2; shift ;;
	--props) props=$2; shift ;;
	--link) link=$2; shift ;;
	--qemu-sched) qemu_sched=$2; shift ;;
	--trace) trace=$2; shift ;;
	--out) out=$(realpath -m "$2") out_set=1; shift ;;
	--lat-s) lat_s=$2; shift ;;
	--timed) timed=1 ;;
	--speed) speed=$2; shift ;;
	--link-latency) link_ns=$2; shift ;;
	-h | --help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ "$timed" -eq 1 ]; then
	kinds=rocx
	[ "$plan_set" -eq 1 ] || plan=tests/bench/timed-plan
	[ "$out_set" -eq 1 ] || out=$repo/build/bench-timed
fi
plan=$(realpath --relative-to="$repo" "$plan") || exit 2
[ -f "$plan" ] || { echo "bench: no plan $plan" >&2; exit 2; }

mkdir -p "$out"
broken=0

if [ "$build" -eq 1 ] && [ "$report" -eq 0 ]; then
	echo "bench: building (scripts/build/all.sh, log in $out/build.log)"
	if ! bash scripts/build/all.sh >"$out/build.log" 2>&1; then
		tail -n 20 "$out/build.log"
		echo "bench: build failed"
		exit 1
	fi
fi

# The run's guest time: every run of the plan at its -D, or a latency
# run at its pilot (1000 round trips, 20 s at worst) and lat_s, plus 12 s
# of each perftest under TCG, plus boot and setup.
guest_budget() {
	awk -v kinds=" $kinds " -v reps="${reps:-99}" -v only=":$only:" -v lat="$lat_s" '
		/^[ \t]*(#|$)/ { next }
		only != "::" && index(only, ":" $1 ":") == 0 { next }
		{
			n = 0
			split($2, k, ",")
			for (i in k)
				if (index(kinds, " " k[i] " "))
					n++
			r = $3 < reps ? $3 : reps
			t = 12
			for (i = 6; i < NF; i++) {
				if ($i == "-D") t += $(i + 1)
				if ($i == "-n") t += 12 + 20 + lat
			}
			s += n * r * t
		}
		END { printf "%d\n", s + 150 }' "$plan"
}

# A timed run: the rocx pair in virtual time.  The links come up at the
# switch's epoch, 60 s of virtual time, past both guests' boots (a boot's
# virtual time grows with the host's 9p waits: 14 to 41 s seen).  The
# guests' waits on 9p look every 10 ms of virtual time, a few rounds of
# promises.  The guests' timeout is wall time (run-guests.sh counts it 4
# times over in a timed run): boot, setup and each run's connection cost
# about a minute of wall time each, and a round trip or a 4 KiB frame
# some hundreds of us.
if [ "$timed" -eq 1 ]; then
	if [ "$report" -eq 0 ]; then
		nruns=$(awk -v only=":$only:" '!/^[ \t]*(#|$)/ &&
			(only == "::" || index(only, ":" $1 ":")) { n += $3 }
			END { print n + 0 }' "$plan")
		budget=$(((120 + 60 * nruns) / 4 + 60))
		guests=()
		for i in 0 1; do
			spec="nic=rocx:speed=$speed${props:+:$props},cmd=scripts/guest/bench.sh"
			spec="$spec,env=ROCX_BENCH_NIC=rocx,env=ROCX_BENCH_KINDS=rocx"
			spec="$spec,env=ROCX_BENCH_PLAN=$plan,env=ROCX_BENCH_TIMED=1"
			spec="$spec,env=ROCX_POLL=0.01"
			[ -n "$only" ] && spec="$spec,env=ROCX_BENCH_ONLY=$only"
			guests+=(--guest "$spec" --extra "-d guest_errors")
		done
		rm -rf "${out:?}"/guest* "$out/shared" "$out/switch.log"
		t0=$(date +%s)
		echo "bench: timed, rocx at $speed Mb/s, links of $link_ns ns, plan $plan," \
			"guests for at most $((4 * budget)) s of wall time (log in $out/run.log)"
		scripts/run/run-guests.sh --timeout "$budget" --out "$out" \
			--timed --link-latency "$link_ns" --icount-shift 0 --seed 26 \
			--switch '--epoch 60000000000' \
			"${guests[@]}" >"$out/run.log" 2>&1
		rg_rc=$?
		wall=$(($(date +%s) - t0))
		echo "bench: run-guests exit $rg_rc after $wall s"
		{
			echo "speed=$speed"
			echo "link_ns=$link_ns"
			echo "wall=$wall"
			echo "rg_rc=$rg_rc"
			echo "plan=$plan"
		} >"$out/run.env"
	fi
	[ "$report" -eq 1 ] && plan=$(sed -n 's/^plan=//p' "$out/run.env")
	python3 scripts/run/bench.py timed-report "$out" "$plan" | tee "$out/results.txt"
	rc=${PIPESTATUS[0]}
	[ "$(sed -n 's/^rg_rc=//p' "$out/run.env")" = 2 ] && rc=1
	exit "$rc"
fi

if [ "$report" -eq 0 ]; then
	# The kinds in guest order: the pairs, then the sink guest.
	order=()
	for kind in $kinds; do
		case $kind in
		rocx | rxe) order+=("$kind") ;;
		sink) ;;
		*) echo "bench: unknown kind $kind" >&2; exit 2 ;;
		esac
	done
	[[ " $kinds " == *" sink "* ]] && order+=(sink)
	order_words=$(IFS=:; echo "${order[*]}")
	guests=()
	for kind in "${order[@]}"; do
		case $kind in
		rocx) nic=rocx${props:+:$props} n=2 ;;
		rxe) nic=virtio@rxe n=2 ;;
		sink) nic=rocx:x-sink=on${props:+:$props}@sink n=1 ;;
		esac
		for ((i = 0; i < n; i++)); do
			spec="nic=$nic,cmd=scripts/guest/bench.sh,env=ROCX_BENCH_NIC=${kind/sink/rocx}"
			spec="$spec,env=ROCX_BENCH_KINDS=$order_words,env=ROCX_BENCH_RUN_S=$run_s"
			spec="$spec,env=ROCX_BENCH_LAT_S=$lat_s"
			spec="$spec,env=ROCX_BENCH_PLAN=$plan,env=ROCX_BENCH_ACCT=1"
			[ -n "$only" ] && spec="$spec,env=ROCX_BENCH_ONLY=$only"
			[ -n "$reps" ] && spec="$spec,env=ROCX_BENCH_REPS=$reps"
			guests+=(--guest "$spec")
			[ "$kind" != rxe ] && guests+=(--extra "-d guest_errors")
			[ "$kind" != rxe ] && [ -n "$trace" ] &&
				guests+=(--extra "-msg timestamp=on -trace enable=${trace//,/ -trace enable=}")
		done
	done
	budget=$(guest_budget)
	rm -rf "${out:?}"/guest* "$out/acct" "$out/shared"
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	t0=$(date +%s)
	echo "bench: kinds $order_words, plan $plan, guests for at most $budget s (log in $out/run.log)"
	scripts/run/run-guests.sh --timeout "$budget" --out "$out" --link "$link" \
		--qemu-sched "$qemu_sched" \
		--host-cmd "exec /usr/bin/python3 '$repo/scripts/run/bench.py' sample '$order_words'" \
		"${guests[@]}" >"$out/run.log" 2>&1
	rg_rc=$?
	wall=$(($(date +%s) - t0))
	echo "bench: run-guests exit $rg_rc after $wall s"
	load_after=$(cut -d' ' -f1-3 /proc/loadavg)
	# What --report needs to print this run's table again.
	{
		echo "kinds='$kinds'"
		echo "load_before='$load_before'"
		echo "load_after='$load_after'"
		echo "wall=$wall"
		echo "rg_rc=$rg_rc"
		echo "plan=$plan"
	} | sed "s/'//g" >"$out/run.env"
fi
kinds=$(sed -n 's/^kinds=//p' "$out/run.env")
rg_rc=$(sed -n 's/^rg_rc=//p' "$out/run.env")
[ "$report" -eq 1 ] && plan=$(sed -n 's/^plan=//p' "$out/run.env")

python3 scripts/run/bench.py report "$out" "$plan" "$kinds" | tee "$out/results.txt"

# The fabric's own cost, on the host: what a guest does not get of the
# CPU for each frame the switch forwards (tests/bench/switch_cost.c).
if [ "$report" -eq 0 ] && [ "$plan" = tests/bench/plan ]; then
	make -s -C tests/bench switch >"$out/switch.txt" 2>&1 || broken=1
fi
[ "$plan" = tests/bench/plan ] && [ -s "$out/switch.txt" ] && cat "$out/switch.txt"

# The harness broke if run-guests could not run, or the rxe reference
# could not run a test it ran before.
[ "${rg_rc:-2}" -eq 2 ] && broken=1
if [[ " $kinds " == *" rxe "* ]]; then
	r=$(cat "$out"/guest*/results 2>/dev/null | awk '$2 == "rxe"')
	[ -n "$r" ] || broken=1
	grep -q '^[^ ]* rxe [0-9]* na ' <<<"$r" && broken=1
fi
[ "$broken" -eq 0 ] || echo "bench: harness or rxe reference broken (see $out/run.log)"
exit "$broken"
