# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# incast: the lossless-Ethernet experiments (guest/incast.sh): two senders
# into one receiver through a bottleneck port of rocx-switch, without PFC
# (drops, RC recovers), with PFC (no drops, pauses counted), PFC's victim
# flow on another priority and on the paused one, and PFC with ECN and
# DCQCN (host/incast.py checks the queue, pauses, fairness and goodput).
timeout=600
# The switch is the fabric's hardware: a guest never slows it.  Under a
# loaded host it could otherwise sleep longer than a PFC pause (84 ms),
# the senders' NICs would resume while it holds XOFF, and what they sent
# would come on top of the headroom.  run-guests.sh runs every switch at
# real-time priority (fabric_priority).
# Beside it, host/cpustat.sh records the host's CPU time, which
# host/incast.py reports per scenario.  An experiment's disturbances,
# not make check's: ROCX_INCAST_STALL=switch:S:P stops the switch for S
# ms every P ms (host/stall.sh), as a hypervisor that takes the CPU
# would; all:S:P stops the switch and every guest's QEMU
# together, as a hypervisor does.  ROCX_INCAST_HOG=N runs N spinning
# processes beside the guests (host/hog.sh), as a hypervisor that takes
# CPU time for seconds does.  Either with @SCEN+SCEN runs only while
# those scenarios do (host/during.sh).
host_cmd='pid=$(cat "${ROCX_SWITCH_CTL%/*}/switch.pid")
: >"$ROCX_RUN_OUT/cpu.txt"
bash tests/e2e/host/cpustat.sh "$ROCX_RUN_OUT/cpu.txt" &
cpustat=$! disturb=
# disturb SPEC CMD... - CMD for the whole run, or with SPEC ending in
# @SCENS only while those scenarios run.
disturb() {
	case $1 in
	*@*) bash tests/e2e/host/during.sh "$ROCX_RUN_OUT/switch-ctl.log" \
		"${ROCX_INCAST_ONLY:-lossy+pfc+victim+dcqcn}" "${1#*@}" "${@:2}" \
		2>>"$ROCX_RUN_OUT/during.log" & ;;
	*) "${@:2}" & ;;
	esac
	disturb+=" $!"
}
stall=${ROCX_INCAST_STALL:-}
case ${stall%%@*} in
"") ;;
switch:*:* | all:*:*)
	IFS=: read -r what s p <<<"${stall%%@*}"
	who=$pid
	[ "$what" = all ] &&
		who+=$(pgrep -f "unix:${ROCX_SWITCH_CTL%/*}/m[0-9]*[.]sock" | sed "s/^/,/" | tr -d "\n")
	disturb "$stall" bash tests/e2e/host/stall.sh "$who" "$s" "$p" ;;
*) echo "ROCX_INCAST_STALL=$stall: switch|all:STOP_MS:PERIOD_MS[@SCEN+SCEN]" >&2 ;;
esac
[ -n "${ROCX_INCAST_HOG:-}" ] &&
	disturb "$ROCX_INCAST_HOG" bash tests/e2e/host/hog.sh "${ROCX_INCAST_HOG%%@*}"
# A run that times out ends this shell with SIGTERM: take the
# recorder and the disturbances along, or they outlive the run (in the
# background, as a trap waits for a command in the foreground).
bash tests/e2e/host/switch_ctl.sh &
ctl=$!
trap "kill \$ctl \$cpustat \$disturb 2>/dev/null; exit 143" TERM
wait "$ctl"
kill "$cpustat" $disturb'
# The shared buffer, not the egress queues' frame limit (256 frames by
# default), must decide what a congested port keeps.
switch="--queue-limit 4096"
# NICs of 400 Mb/s: a PFC pause (0xffff quanta) lasts 84 ms and its
# refresh comes every 42 ms, longer than a loaded host keeps the switch
# or a guest from running; an engine run (200 us ahead of the clock)
# hands the fabric at most 10 KB, which bounds the headroom
# (Documentation/experiments.rst, "Headroom").  The switch's ports are
# set to match (guest/incast.sh).
# The scenarios (guest/incast.sh): every one by default, as make check,
# make check-lossless and make demo-lossless run them; ROCX_INCAST_ONLY
# picks some (lossy+pfc+victim+dcqcn).
incast_only=${ROCX_INCAST_ONLY:-lossy+pfc+victim+dcqcn}
# An experiment's own settings (guest/incast.sh), from the host's
# environment: make demo-lossless ROCX_INCAST_CC=rp_time_reset=16000+rp_dce_tcp_rtt=2000.
incast_words="ROCX_INCAST_ONLY=$incast_only"
for v in ROCX_INCAST_RATE ROCX_INCAST_VRATE ROCX_INCAST_VWIN ROCX_INCAST_SECS \
	ROCX_INCAST_CC ROCX_INCAST_RED ROCX_INCAST_CCTRACE; do
	[ -n "${!v:-}" ] && incast_words+=" $v=${!v}"
done
# shellcheck disable=SC2086 # the settings are words
guest rocx:speed=400 incast.sh $incast_words
# shellcheck disable=SC2086
guest rocx:speed=400 incast.sh $incast_words
# shellcheck disable=SC2086
guest rocx:speed=400 incast.sh $incast_words

# series_written SCEN... - each scenario of SCEN that ran left its series.
series_written() {
	local n

	for n in "$@"; do
		case +$incast_only+ in
		*+$n+*) test -s "$out/incast/series.$n.jsonl" || return 1 ;;
		esac
	done
}

checks() {
	host_check "incast: the model logged no guest errors" \
		no_model_guest_errors "$out/incast/guest0/qemu.log" \
		"$out/incast/guest1/qemu.log" "$out/incast/guest2/qemu.log"
	# The headroom is worked out for a guest socket's send buffer of
	# this size: what a guest has sent that the switch has not read.
	host_check "incast: guests' socket buffers are what the headroom assumes" \
		test "$(cat /proc/sys/net/core/wmem_default)" -le 212992
	# Not a threshold: the figures say whether the host slowed a
	# scenario down (host/cpustat.sh).
	host_check "incast: the host's CPU time was recorded for every scenario" \
		python3 tests/e2e/host/incast.py host "$out/incast"
	host_check "incast: the switch wrote a time series per scenario" \
		series_written lossy pfc dcqcn
	case +$incast_only+ in
	*+dcqcn+*) ;;
	*) return 0 ;;
	esac
	host_check "dcqcn: the switch wrote its time series" \
		test -s "$out/incast/series.dcqcn.jsonl"
	# PFC + ECN + DCQCN against PFC alone, from the series and the
	# scenarios' results (host/incast.py states each rule).
	host_check "dcqcn: after warm-up the median queue is between Kmin and Kmax, its p95 below Kmax" \
		python3 tests/e2e/host/incast.py queue "$out/incast"
	host_check "dcqcn: PFC frames at least 90% fewer than with PFC alone" \
		python3 tests/e2e/host/incast.py pauses "$out/incast"
	host_check "dcqcn: the senders converge within 2 s of S2's start, Jain >= 0.95 over every 1 s window from then" \
		python3 tests/e2e/host/incast.py converge "$out/incast"
	host_check "dcqcn: total goodput at least 90% of PFC alone's" \
		python3 tests/e2e/host/incast.py goodput "$out/incast"
}
