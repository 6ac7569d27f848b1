# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# timed: two rocx guests in virtual time (run-guests.sh --timed: -icount,
# the NICs on the switch's fabric channels, the switch --timed): ping and a
# verified ibv_rc_pingpong between them, then what the switch and QEMU
# report of the run.  Both links come up at the switch's --epoch, 60 s of
# virtual time, after both guests have booted: a boot's virtual time
# depends on the host (its 9p waits; the NICs joined at 13.9 and 19.4 s on
# a quiet host, at 22.4 and 25.8 s beside the spinner below, and at 41.4
# s in one make check, past the 40 s epoch the group had then).
#
# Then the guests run a fixed RC WRITE flow that starts at a stated
# virtual instant (guest/timed.sh), and the group boots a second time,
# with the same seed, beside a process spinning on a core (host/hog.sh):
# the determinism test.  host/timed_compare.py compares the switch's
# events and series and the guests' reports of the two runs from just
# before that instant until after the flow (Documentation/testing.rst,
# "The timed group's determinism test", says what still differs, why,
# and how the tolerances below follow from it).
timeout=300
timed='--link-latency 10000'
seed=24
switch='--epoch 60000000000 --event-log @OUT@/events.log --series @OUT@/series.jsonl --series-interval 1ms'
# The flow starts when the guests' CLOCK_MONOTONIC reads at_ms, about
# 0.5 s of virtual time after its set-up ends; 1000 messages of 16 KiB
# take 16 to 25 ms.  The guests' CLOCK_MONOTONIC reads 138.5 ms more than
# the fabric's virtual clock.  The window compared starts 1 ms before the
# instant, after every frame of the set-up (whose time depends on the
# host: the guests synchronise it over 9p), and ends 60 ms after it, past
# the flow's last frame and before either run's switch stops (the guests
# power off over 9p: 104 ms after at_ms at the earliest seen).
at_ms=63000
cmp_from=$(((at_ms - 1 - 139) * 1000000))
cmp_to=$(((at_ms + 60 - 138) * 1000000))
# The flow's first frame left 0.14, 0.48, 0.69, 1.9 and 7.3 us apart in
# five pairs of runs: the guests' instructions from the timer interrupt
# to the doorbell; first_tol allows 50 us.  Then the guests' own
# housekeeping (timers, softirqs, work items, in a different state at
# the instant in each run) takes the vCPUs at different points of the
# flow and moves every later frame by what it cost: at most 12, 14, 33,
# 49, 88 and 189 us in six pairs, each frame still there.  shift_tol
# allows 500 us, a thirtieth of the flow; the flow's time must agree to
# the ms.
first_tol=50000
shift_tol=500000
guest rocx timed.sh TIMED_AT_MS=$at_ms TIMED_FLOW_MSGS=1000
guest rocx timed.sh TIMED_AT_MS=$at_ms TIMED_FLOW_MSGS=1000

checks() {
	local log=$out/timed/switch.log

	host_check "timed: the switch ran on the virtual clock past the epoch" \
		awk '/^rocx-switch: timed:/ { split($3, v, "."); exit !(v[1] >= 60) }' "$log"
	host_check "timed: the switch took no damaged record" \
		sh -c "! grep -E 'rx_fab_err=[1-9]' '$log'"
	host_check "timed: both NICs joined on their channels" \
		test "$(grep -cE 'port[01] .* ch=(up|left)' "$log")" -eq 2
	host_check "timed: each QEMU waited at its horizon" \
		sh -c "grep -q 'waits at the horizon' '$out/timed/guest0/qemu.log' &&
			grep -q 'waits at the horizon' '$out/timed/guest1/qemu.log'"
	again busy 'tests/e2e/host/hog.sh 1 --while-guests'
	host_tap tests/e2e/host/timed_compare.py "$out/timed" "$out/timed/busy" \
		"$cmp_from" "$cmp_to" --shift-tol "$shift_tol" --first-tol "$first_tol"
	host_tap tests/e2e/host/timed_compare.py "$out/timed" "$out/timed/busy" \
		"$cmp_from" "$cmp_to" --report
}
