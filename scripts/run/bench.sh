#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: perftest between two TCG guests, once with rocx NICs and
# once with Soft-RoCE (rxe) on virtio-net NICs, on the same rocx-switch
# fabric.  Prints one table (rows: tests; columns: rocx, rxe, rocx/rxe) and
# writes it to build/bench/results.txt.  tests/bench/plan lists the runs
# and their perftest options; scripts/guest/bench.sh runs them.  Then
# rocx-switch's CPU time per frame on the host (build/bench/switch.txt).
#
#   scripts/run/bench.sh [--no-build] [--kinds 'rocx rxe'] [--only NAME[:NAME...]]
#   scripts/run/bench.sh --report     the table of the last run again
#
#   --no-build   skip scripts/build/all.sh (use what build/ holds)
#   --kinds      NIC kinds to run (default both; the other column is n/a)
#   --only       plan entries to run (default all)
# A test that a kind cannot run yet (rocx without RDMA transport objects,
# a guest that crashed) is "n/a" with its reason under the table.  Exits 1
# only if the harness broke: the build, run-guests itself, the rxe
# reference run, or the switch's benchmark.  Each kind's guests are bounded by run-guests --timeout
# and each perftest run by ROCX_BENCH_RUN_S, so the whole bench stays
# under ~10 minutes even when every rocx run hangs.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
out=$repo/build/bench
plan=$repo/tests/bench/plan
run_s=40		# one perftest run (scripts/guest/bench.sh)
guests_s=280		# one kind: boot, setup and the 10 runs (about 160 s)
build=1 kinds='rocx rxe' only='' report=0

while [ $# -gt 0 ]; do
	case $1 in
	--no-build) build=0 ;;
	--report) report=1 ;;
	--kinds) kinds=$2; shift ;;
	--only) only=$2; shift ;;
	-h | --help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

mkdir -p "$out"
broken=0

if [ "$build" -eq 1 ] && [ "$report" -eq 0 ]; then
	echo "bench: building (scripts/build/all.sh, log in build/bench/build.log)"
	if ! bash scripts/build/all.sh >"$out/build.log" 2>&1; then
		tail -n 20 "$out/build.log"
		echo "bench: build failed"
		exit 1
	fi
fi

# run_kind KIND - boot two guests of KIND, run the plan; sets rg_rc[KIND].
declare -A rg_rc=()
run_kind() {
	local kind=$1 nic=virtio spec extra=() t0

	t0=$(date +%s)
	[ "$kind" = rocx ] && nic=rocx && extra=(--extra "-d guest_errors")
	spec="nic=$nic,cmd=scripts/guest/bench.sh,env=ROCX_BENCH_NIC=$kind,env=ROCX_BENCH_RUN_S=$run_s"
	[ -n "$only" ] && spec="$spec,env=ROCX_BENCH_ONLY=$only"
	echo "bench: $kind: two guests, $(grep -cvE '^(#|$)' "$plan") runs (log in build/bench/$kind.log)"
	rm -rf "${out:?}/$kind"
	scripts/run/run-guests.sh --timeout "$guests_s" --out "$out/$kind" \
		--guest "$spec" "${extra[@]}" --guest "$spec" "${extra[@]}" \
		>"$out/$kind.log" 2>&1
	rg_rc[$kind]=$?
	echo "bench: $kind: run-guests exit ${rg_rc[$kind]} after $(($(date +%s) - t0)) s"
}

# guest_trouble KIND - why KIND's guests did not finish, in one line.
guest_trouble() {
	local d=$out/$1 g rc msg

	if [ "${rg_rc[$1]}" -eq 2 ] || [ ! -d "$d/guest0" ]; then
		grep -m1 '^run-guests:' "$out/$1.log" || tail -n 1 "$out/$1.log"
		return
	fi
	# Prefer the guest that failed over the peer that gave up on it.
	for g in $(grep -L 'failed; giving up' "$d"/guest*/log 2>/dev/null | xargs -r dirname) \
		"$d"/guest*; do
		rc=$(cat "$g/rc" 2>/dev/null || echo none)
		[ "$rc" = 0 ] && continue
		grep -q "^$(basename "$g"): rc=timeout" "$out/$1.log" && rc=timeout
		msg=$(grep -m1 -aE 'Kernel panic|BUG:|Oops|general protection' "$g/console.log" 2>/dev/null)
		[ -n "$msg" ] || msg=$(grep -a 'FAIL:' "$g/log" 2>/dev/null | tail -n 1)
		[ -n "$msg" ] || msg=$(grep -av '^ *$' "$g/qemu.log" 2>/dev/null | tail -n 1)
		echo "$(basename "$g") rc=$rc${msg:+: $(echo "$msg" | tr -s ' \t' ' ')}"
		return
	done
	echo "no result (see build/bench/$1.log)"
}

if [ "$report" -eq 1 ]; then
	# shellcheck source=/dev/null # written below by the last run
	. "$out/run.env" || exit 1
else
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	for kind in $kinds; do
		case $kind in
		rocx | rxe) run_kind "$kind" ;;
		*) echo "bench: unknown kind $kind"; exit 2 ;;
		esac
	done
	load_after=$(cut -d' ' -f1-3 /proc/loadavg)
	# What --report needs to print this run's table again.
	declare -p kinds only load_before load_after rg_rc >"$out/run.env"
fi

# value KIND NAME KEY - set val to a number from KIND's result line for
# NAME, or to "n/a" and why to the reason.  (Not in $(...): it sets both.)
value() {
	local kind=$1 name=$2 key=$3 line

	val=n/a why=''
	line=$(grep -m1 "^$name " "$out/$kind/guest1/results" 2>/dev/null)
	if [[ " $kinds " != *" $kind "* ]]; then
		why="not run (--kinds)"
	elif [ -n "$only" ] && [[ ":$only:" != *":$name:"* ]]; then
		why="not run (--only)"
	elif [ -z "$line" ]; then
		why=$(guest_trouble "$kind")
	elif [ "$(cut -d' ' -f2 <<<"$line")" != ok ]; then
		why=$(cut -d' ' -f3- <<<"$line")
	else
		val=$(tr ' ' '\n' <<<"$line" | sed -n "s/^$key=//p")
		[[ $val =~ ^[0-9.]+$ ]] && return
		val=n/a why="perftest printed no $key"
	fi
}

# note TEXT - set nref to TEXT's footnote number (one per distinct text).
notes=()
note() {
	local i

	for i in "${!notes[@]}"; do
		[ "${notes[$i]}" = "$1" ] && { nref=$((i + 1)); return; }
	done
	notes+=("$1")
	nref=${#notes[@]}
}

size_label() {
	if [ "$1" -ge 1024 ] && [ $(($1 % 1024)) -eq 0 ]; then
		echo "$(($1 / 1024)) KiB"
	else
		echo "$1 B"
	fi
}

table=$out/results.txt
rows=()
# row LABEL UNIT NAME KEY SCALE
row() {
	local label=$1 unit=$2 name=$3 key=$4 scale=$5 kind ratio
	local -A cell num

	for kind in rocx rxe; do
		value "$kind" "$name" "$key"
		if [ "$val" = n/a ]; then
			note "$kind: $why"
			num[$kind]='' cell[$kind]="n/a [$nref]"
		else
			num[$kind]=$(awk -v v="$val" -v s="$scale" 'BEGIN { printf "%.2f", v * s }')
			cell[$kind]=${num[$kind]}
		fi
	done
	ratio=n/a
	if [ -n "${num[rocx]}" ] && [ -n "${num[rxe]}" ]; then
		ratio=$(awk -v a="${num[rocx]}" -v b="${num[rxe]}" \
			'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
	fi
	rows+=("$(printf '%-26s %-7s %12s %12s %9s' "$label" "$unit" "${cell[rocx]}" "${cell[rxe]}" "$ratio")")
}

while read -r name tool bytes run; do
	case $name in '' | '#'*) continue ;; esac
	label="$tool $(size_label "$bytes")"
	[[ " $run " == *" -R "* ]] && label="$tool -R $(size_label "$bytes")"
	case $tool in
	*_lat)
		row "$label typical" usec "$name" t_typical 1
		row "$label p99" usec "$name" t_p99 1
		;;
	*)
		row "$label" MiB/s "$name" bw_avg 1
		# Small messages: the message rate says more than the bandwidth.
		[ "$bytes" -lt 4096 ] && row "$label" Kmsg/s "$name" msg_rate 1000
		;;
	esac
done <"$plan"

{
	echo "rocx bench: perftest 4.5 between two TCG guests per NIC kind, RC, RoCE v2, MTU 1024"
	echo "(bandwidth: higher is better; latency: lower is better; MiB/s as perftest's MB/sec;"
	echo " -R: the QPs connected through rdma_cm instead of perftest's TCP exchange)"
	printf '%-26s %-7s %12s %12s %9s\n' test unit rocx rxe rocx/rxe
	printf '%s\n' "${rows[@]}"
	for i in "${!notes[@]}"; do
		echo "[$((i + 1))] ${notes[$i]}"
	done
	echo "host: $(nproc) CPUs, load average before $load_before, after $load_after" \
		"(other work on the host slows TCG guests)"
	echo "raw results: build/bench/<kind>/guest1/results, perftest output in build/bench/<kind>/guest*/"
} | tee "$table"

# The fabric's own cost, on the host: what a guest does not get of the
# CPU for each frame the switch forwards (tests/bench/switch_cost.c).
if [ "$report" -eq 0 ]; then
	make -s -C tests/bench switch >"$out/switch.txt" 2>&1 || broken=1
fi
[ -s "$out/switch.txt" ] && cat "$out/switch.txt"

# The harness broke if run-guests could not run, or the rxe reference
# could not run a test it ran before.
for kind in $kinds; do
	[ "${rg_rc[$kind]}" -eq 2 ] && broken=1
done
if [[ " $kinds " == *" rxe "* ]] && grep -q '^[^ ]* na ' "$out/rxe/guest1/results" 2>/dev/null; then
	broken=1
fi
if [[ " $kinds " == *" rxe "* ]] && [ ! -s "$out/rxe/guest1/results" ]; then
	broken=1
fi
[ "$broken" -eq 0 ] || echo "bench: harness or rxe reference broken (see build/bench/*.log)"
exit "$broken"
