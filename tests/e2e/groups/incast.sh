# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/lib.sh
# incast: the lossless-Ethernet experiments (guest/incast.sh): two senders
# into one receiver through a bottleneck port of rocx-switch, without PFC
# (drops, RC recovers), with PFC (no drops, pauses counted), and PFC's
# victim flow on another priority and on the paused one.
timeout=600
# The switch is the fabric's hardware: a guest never slows it.  Under a
# loaded host it could otherwise sleep longer than a PFC pause (84 ms),
# the senders' NICs would resume while it holds XOFF, and what they sent
# would come on top of the headroom.  So it runs at nice -10.
host_cmd='renice -n -10 -p "$(cat "${ROCX_SWITCH_CTL%/*}/switch.pid")" >/dev/null
bash tests/e2e/host/switch_ctl.sh'
# The shared buffer, not the egress queues' frame limit (256 frames by
# default), must decide what a congested port keeps.
switch="--queue-limit 4096"
# NICs of 400 Mb/s: a PFC pause (0xffff quanta) lasts 84 ms and its
# refresh comes every 42 ms, longer than a loaded host keeps the switch
# or a guest from running; an engine run (200 us ahead of the clock)
# hands the fabric at most 10 KB, which bounds the headroom
# (Documentation/experiments.rst, "Headroom").  The switch's ports are
# set to match (guest/incast.sh).
guest rocx:speed=400 incast.sh
guest rocx:speed=400 incast.sh
guest rocx:speed=400 incast.sh

checks() {
	host_check "incast: the model logged no guest errors" \
		no_model_guest_errors "$out/incast/guest0/qemu.log" \
		"$out/incast/guest1/qemu.log" "$out/incast/guest2/qemu.log"
	# The headroom is worked out for a guest socket's send buffer of
	# this size: what a guest has sent that the switch has not read.
	host_check "incast: guests' socket buffers are what the headroom assumes" \
		test "$(cat /proc/sys/net/core/wmem_default)" -le 212992
	host_check "incast: the switch wrote a time series per scenario" \
		test -s "$out/incast/series.lossy.jsonl" -a -s "$out/incast/series.pfc.jsonl"
}
