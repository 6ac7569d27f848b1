#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of tests/e2e/guest/lib/switch_lib.sh: guests cannot reach the
# switch's control socket (it is on the host, and 9p does not carry unix
# sockets), so they leave requests in the run's shared directory and this
# script, run as run-guests.sh --host-cmd, hands them to `rocx-switch ctl`
# and leaves the answers there.
#
#   shared/swctl.G.N.req   request N (0, 1, ...) of guest G: one line, in
#                          which @OUT@ stands for the run's output
#                          directory on the host (e.g. series file=@OUT@/s)
#   shared/swctl.G.N.ans   its answer: the exit status of rocx-switch ctl
#                          (0 ok, 1 refused, 2 no switch), then its output
#
# Every request and answer also goes to OUT/switch-ctl.log, each with the
# time it was carried out (seconds since the epoch, as in a capture), so
# that host checks can tell which frames crossed which settings.  Ends
# when every guest has ended.
set -uo pipefail
shared=$ROCX_RUN_OUT/shared
log=$ROCX_RUN_OUT/switch-ctl.log
: "${ROCX_SWITCH:?}" "${ROCX_SWITCH_CTL:?}" "${ROCX_NGUESTS:?}"
declare -a next

for ((g = 0; g < ROCX_NGUESTS; g++)); do
	next[g]=0
done
: >"$log"

# A guest is done when its script wrote its status, or when its QEMU
# exited without one (run-guests.sh leaves shared/failed.G): a QEMU that
# died never writes it, and waiting on it would keep the run, and the
# guests' lock, until the run's timeout.
all_done() {
	local g

	for ((g = 0; g < ROCX_NGUESTS; g++)); do
		[ -f "$ROCX_RUN_OUT/guest$g/rc" ] ||
			[ -f "$shared/failed.$g" ] || return 1
	done
}

while ! all_done; do
	busy=0
	for ((g = 0; g < ROCX_NGUESTS; g++)); do
		req=$shared/swctl.$g.${next[g]}.req
		[ -f "$req" ] || continue
		busy=1
		line=$(head -n 1 "$req")
		line=${line//@OUT@/$ROCX_RUN_OUT}
		out=$("$ROCX_SWITCH" ctl "$ROCX_SWITCH_CTL" "$line" 2>&1)
		rc=$?
		printf '%s guest%d %s\n%s\n= %d\n' "$(date +%s.%N)" "$g" \
			"$line" "$out" "$rc" >>"$log"
		ans=$shared/swctl.$g.${next[g]}.ans
		printf '%d\n%s\n' "$rc" "$out" >"$ans.tmp" && mv "$ans.tmp" "$ans"
		next[g]=$((next[g] + 1))
	done
	[ "$busy" = 1 ] || sleep 0.1
done
echo "switch_ctl: $(grep -c '^= ' "$log") requests carried"
