# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# timed-incast: the 2-to-1 incast in virtual time at 25 Gb/s
# (guest/timed-incast.sh, Documentation/experiments.rst "The timed
# incast"): without PFC (drops, every byte still arrives), with PFC (no
# drop, goodput at least 90% of the bottleneck) and with PFC, RED and
# DCQCN at their defaults (CNPs, rates cut, fewer pauses than PFC alone).
# No retries: in virtual time the host's load changes nothing measured.
# Links of 2 us (a 400 m fibre); every guest under -icount shift=0 (1 ns
# per instruction).  The links come up at 60 s of virtual time, after
# every guest has booted and joined: under instruction counting with
# sleep=off a guest's I/O waits on the host become virtual time, so on a
# busy host a boot took 24 s of it where the others took 7 and 10.  A
# guest that joined after the epoch would hold the others to one round
# of promises per 4 L until its clock (125000 rounds per virtual second),
# and while they crawl it hears nothing from the switch.  The harness
# scales the timeout for a timed run (4 times: 10 minutes of wall time).
timeout=150
timed='--link-latency 2000 --icount-shift 0'
# The fabric of every scenario, set once: while the guests are
# synchronised a control request over 9p takes seconds of wall time
# (guest/timed-incast.sh).  The shared buffer, not the egress queues'
# frame limit, decides what a congested port keeps; priority 3 (pfc)
# and 4 (dcqcn) are lossless at the senders' ports, XOFF at 250 KB,
# above Kmax so that RED marks every ECT frame before a port pauses, XON
# at 200 KB, headroom 20 KB, and at R's port with no XOFF, so that RED
# never drops a non-ECT frame of theirs; priority 4 has RED at R's port,
# the DCQCN paper's Kmin 5 KB, Kmax 200 KB, Pmax 1%.  Lossy flows go
# untagged, priority 0 (Documentation/experiments.rst, "The timed
# incast", works the numbers out).
switch="--epoch 60000000000 --queue-limit 4096 --buffer 800000
--qos 'port=all trust=pcp'
--qos 'port=1,2 prio=3,4 pfc=on xoff=250000 xon=200000 headroom=20000'
--qos 'port=0 prio=3,4 pfc=on'
--qos 'port=0 prio=4 kmin=5000 kmax=200000 pmax=0.01'"
host_cmd='bash tests/e2e/host/switch_ctl.sh'
# Guest waits on the host are bounded by the run's wall-clock timeout
# only: in virtual time a guest's 120 s pass in a few wall seconds.  They
# look every 10 ms of virtual time, a few rounds of promises, rather
# than every 100 ms, about a wall second (scripts/guest/guest_lib.sh).
words="ROCX_WAIT=1000000 ROCX_POLL=0.01"
for v in ROCX_TINCAST_MS ROCX_TINCAST_ONLY ROCX_TINCAST_CC; do
	[ -n "${!v:-}" ] && words+=" $v=${!v}"
done
# ROCX_TINCAST_PROPS=P=V[:P=V]: more rocx device properties on every NIC,
# the NIC delays above all (cnp-delay=50000: Documentation/
# experiments.rst, "A CNP delay in the timed incast"); make check sets
# none.
nic=rocx:speed=25000${ROCX_TINCAST_PROPS:+:$ROCX_TINCAST_PROPS}
# shellcheck disable=SC2086 # the settings are words
guest "$nic" timed-incast.sh $words
# shellcheck disable=SC2086
guest "$nic" timed-incast.sh $words
# shellcheck disable=SC2086
guest "$nic" timed-incast.sh $words

checks() {
	local d=$out/timed-incast

	host_check "timed-incast: the model logged no guest errors" \
		no_model_guest_errors "$d/guest0/qemu.log" \
		"$d/guest1/qemu.log" "$d/guest2/qemu.log"
	host_check "timed-incast: the switch took no damaged record" \
		sh -c "! grep -E 'rx_fab_err=[1-9]' '$d/switch.log'"
	# Drops and PFC frames from the switch's series, and the table.
	host_tap python3 tests/e2e/host/timed_incast.py judge "$d" \
		"${ROCX_TINCAST_ONLY:-lossy+pfc+dcqcn}"
	# The goal (the DCQCN paper's thresholds): reported as comments,
	# asserted when ROCX_TINCAST_GOAL=1 (make check-lossless TIMED=1).
	host_tap python3 tests/e2e/host/timed_incast.py goal "$d" \
		${ROCX_TINCAST_GOAL:+--assert}
	# Not a threshold: what the run cost, in wall time per virtual ms.
	host_check "timed-incast: each scenario's virtual and wall time, and the switch's rounds" \
		python3 tests/e2e/host/timed_incast.py cost "$d"
}
