#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of guest scripts that drive QEMU's monitor (guest/reset.sh):
# runs each HMP command a guest asks for on that guest's monitor and
# hands the answer back, until every guest has ended.  Runs as
# run-guests.sh --host-cmd.
#
# A request is the file mon.req.N.SEQ in the run's shared directory (one
# command, written whole: by rename), from guest N; the answer goes to
# mon.ans.N.SEQ (scripts/run/hmp.sh's output).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
shared=$ROCX_RUN_OUT/shared

all_done() {
	local i

	for ((i = 0; i < ROCX_NGUESTS; i++)); do
		[ -f "$ROCX_RUN_OUT/guest$i/rc" ] || return 1
	done
}

while ! all_done; do
	for req in "$shared"/mon.req.*; do
		[ -f "$req" ] || continue
		name=${req##*/mon.req.}
		g=${name%%.*}
		mon=ROCX_MONITOR_$g
		cmd=$(cat "$req")
		rm -f "$req"
		echo "monitor: guest $g: $cmd"
		"$repo/scripts/run/hmp.sh" "${!mon}" "$cmd" \
			>"$shared/mon.ans.$name.tmp" 2>&1
		mv "$shared/mon.ans.$name.tmp" "$shared/mon.ans.$name"
	done
	sleep 0.1
done
