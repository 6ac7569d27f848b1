# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# timed-incast8: the 8-to-1 incast in virtual time at 25 Gb/s, nine
# guests (guest/timed-incast.sh with eight senders; Documentation/
# experiments.rst, "The 8-to-1"): lossy, pfc and dcqcn as in the 2-to-1
# (groups/timed-incast.sh), with the switch sized for eight senders.
# Slow in wall time (nine TCG guests on the host's cores, synchronised
# every 4 L): make check-lossless TIMED=1 and make demo-lossless TIMED=1
# run it, make check does not.
timeout=900
timed='--link-latency 2000 --icount-shift 0'
# The links come up at 30 s of virtual time: the NICs joined at 7.7 to
# 14.1 s in the first run, and the time from a join to the epoch runs
# slowly (nine guests on the host's cores: over a minute of wall time for
# 50 virtual s), so the switch allows a port 10 minutes of wall-clock
# silence (--stall-ms) where the 2-to-1's allows one.
# As the 2-to-1's, but for eight ingress ports: XOFF 250 KB (above Kmax,
# so that RED marks every ECT frame before a port pauses), XON 200 KB,
# headroom 20 KB each; the shared buffer, 2.4 MB, holds what PFC lets
# in from all eight (8 x 270 KB) and less than the 4.4 MB their QPs may
# keep unacknowledged (8 x 512 x 1086 bytes), so that only lossy drops;
# the egress queues' frame limit, 4096 (the switch's most), is 4.4 MB of
# such frames, so the buffer decides.
switch="--epoch 30000000000 --stall-ms 600000 --queue-limit 4096 --buffer 2400000
--qos 'port=all trust=pcp'
--qos 'port=1,2,3,4,5,6,7,8 prio=3,4 pfc=on xoff=250000 xon=200000 headroom=20000'
--qos 'port=0 prio=3,4 pfc=on'
--qos 'port=0 prio=4 kmin=5000 kmax=200000 pmax=0.01'"
host_cmd='bash tests/e2e/host/switch_ctl.sh'
# See groups/timed-incast.sh: waits bounded by the run's wall-clock
# timeout, looks every 10 ms of virtual time.
words="ROCX_WAIT=1000000 ROCX_POLL=0.01"
for v in ROCX_TINCAST_MS ROCX_TINCAST_ONLY ROCX_TINCAST_CC; do
	[ -n "${!v:-}" ] && words+=" $v=${!v}"
done
nic=rocx:speed=25000${ROCX_TINCAST_PROPS:+:$ROCX_TINCAST_PROPS}
for _ in 0 1 2 3 4 5 6 7 8; do
	# shellcheck disable=SC2086 # the settings are words
	guest "$nic" timed-incast.sh $words
done

checks() {
	local d=$out/timed-incast8 g logs=()

	for g in 0 1 2 3 4 5 6 7 8; do
		logs+=("$d/guest$g/qemu.log")
	done
	host_check "timed-incast8: the model logged no guest errors" \
		no_model_guest_errors "${logs[@]}"
	host_check "timed-incast8: the switch took no damaged record" \
		sh -c "! grep -E 'rx_fab_err=[1-9]' '$d/switch.log'"
	host_tap python3 tests/e2e/host/timed_incast.py judge "$d" \
		"${ROCX_TINCAST_ONLY:-lossy+pfc+dcqcn}"
	# The goal (the DCQCN paper's thresholds): reported as comments,
	# asserted when ROCX_TINCAST_GOAL=1 (make check-lossless TIMED=1).
	host_tap python3 tests/e2e/host/timed_incast.py goal "$d" \
		${ROCX_TINCAST_GOAL:+--assert}
	host_check "timed-incast8: each scenario's virtual and wall time, and the switch's rounds" \
		python3 tests/e2e/host/timed_incast.py cost "$d"
}
