#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# N processes that only spin, at the guests' priority, until killed: the
# guests' QEMUs then get part of the host's cores, as when a hypervisor
# takes CPU time from this machine for seconds (steal time), while the
# switch, at real-time priority, keeps its own.  An experiment's tool
# (ROCX_INCAST_HOG), and the busy half of the timed group's determinism
# test.  With --while-guests, as a run-guests --host-cmd, it stops by
# itself once every guest of the run ($ROCX_RUN_OUT, $ROCX_NGUESTS) has
# written its exit status or lost its QEMU, so that the run ends when its
# guests do.
#
#   tests/e2e/host/hog.sh N [--while-guests]
set -u
n=${1:?usage: hog.sh N [--while-guests]}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "hog.sh: N is a count" >&2; exit 2; }
pids=()
# Killed, take the spinners along: they are not in a process group of
# their own when the caller has no job control.
trap 'kill "${pids[@]}" 2>/dev/null; exit 0' TERM INT
for ((i = 0; i < n; i++)); do
	(while :; do :; done) &
	pids+=($!)
done
if [ "${2:-}" != --while-guests ]; then
	wait
	exit 0
fi
: "${ROCX_RUN_OUT:?--while-guests runs under run-guests --host-cmd}"
while :; do
	for ((i = 0; i < ${ROCX_NGUESTS:?}; i++)); do
		pid=ROCX_QEMU_PID_$i
		[ -s "$ROCX_RUN_OUT/guest$i/rc" ] ||
			{ [ -n "${!pid:-}" ] && ! kill -0 "${!pid}" 2>/dev/null; } ||
			break
	done
	[ "$i" -eq "$ROCX_NGUESTS" ] && break
	sleep 1
done
echo "hog.sh: $n spinning for $SECONDS s, until every guest ended"
kill "${pids[@]}" 2>/dev/null
exit 0
