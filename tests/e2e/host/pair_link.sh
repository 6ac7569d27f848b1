#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of guest/pair.sh: when guest 1 is ready, take its rocx backend's
# link down through the QEMU monitor, wait for the guest to see it, and
# bring it back.  Runs as run-guests.sh --host-cmd.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
shared=$ROCX_RUN_OUT/shared
mon=$ROCX_MONITOR_1

wait_file() {
	local i

	for ((i = 0; i < 3000; i++)); do
		[ -f "$shared/val.$1" ] && return 0
		# Stop waiting once guest 1 has ended (it failed before this step).
		[ -f "$ROCX_RUN_OUT/guest1/rc" ] && break
		sleep 0.1
	done
	echo "host_link: gave up waiting for $1" >&2
	return 1
}

put() { echo 1 >"$shared/val.$1.tmp" && mv "$shared/val.$1.tmp" "$shared/val.$1"; }

wait_file setlink_ready
"$repo/scripts/run/hmp.sh" "$mon" set_link n0 off
put host_off
wait_file saw_down
"$repo/scripts/run/hmp.sh" "$mon" set_link n0 on
put host_on
echo "host_link: set_link off/on done"
