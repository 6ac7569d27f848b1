#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# N processes that only spin, at the guests' priority, until killed: the
# guests' QEMUs then get part of the host's cores, as when a hypervisor
# takes CPU time from this machine for seconds (steal time), while the
# switch, at real-time priority, keeps its own.  An experiment's tool
# (ROCX_INCAST_HOG).
#
#   tests/e2e/host/hog.sh N
set -u
n=${1:?usage: hog.sh N}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "hog.sh: N is a count" >&2; exit 2; }
pids=()
# Killed, take the spinners along: they are not in a process group of
# their own when the caller has no job control.
trap 'kill "${pids[@]}" 2>/dev/null; exit 0' TERM INT
for ((i = 0; i < n; i++)); do
	(while :; do :; done) &
	pids+=($!)
done
wait
