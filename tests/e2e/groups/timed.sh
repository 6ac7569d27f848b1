# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# timed: two rocx guests in virtual time (run-guests.sh --timed: -icount,
# the NICs on the switch's fabric channels, the switch --timed): ping and a
# verified ibv_rc_pingpong between them, then what the switch and QEMU
# report of the run.  Both links come up at the switch's --epoch, 20 s of
# virtual time, after both guests have booted.
timeout=300
timed='--link-latency 10000'
switch='--epoch 20000000000'
guest rocx timed.sh
guest rocx timed.sh

checks() {
	local log=$out/timed/switch.log

	host_check "timed: the switch ran on the virtual clock past the epoch" \
		awk '/^rocx-switch: timed:/ { split($3, v, "."); exit !(v[1] >= 20) }' "$log"
	host_check "timed: the switch took no damaged record" \
		sh -c "! grep -E 'rx_fab_err=[1-9]' '$log'"
	host_check "timed: both NICs joined on their channels" \
		test "$(grep -cE 'port[01] .* ch=(up|left)' "$log")" -eq 2
	host_check "timed: each QEMU waited at its horizon" \
		sh -c "grep -q 'waits at the horizon' '$out/timed/guest0/qemu.log' &&
			grep -q 'waits at the horizon' '$out/timed/guest1/qemu.log'"
}
