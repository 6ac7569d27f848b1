#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host stalls on purpose: stop processes PIDS (PID[,PID...]) together for
# STOP_MS every PERIOD_MS (SIGSTOP, SIGCONT) until the first of them or
# this script is killed.  A machine that is itself a virtual machine
# loses the CPU to its hypervisor now and then (steal time,
# host/cpustat.sh), every process at once; this makes such a loss happen
# where and when an experiment wants it, to see what the fabric does.
#
#   tests/e2e/host/stall.sh PIDS STOP_MS PERIOD_MS
set -u
pids=${1:?usage: stall.sh PIDS STOP_MS PERIOD_MS} stop=${2:?} period=${3:?}
[[ $stop =~ ^[0-9]+$ && $period =~ ^[0-9]+$ && $stop -lt $period ]] || {
	echo "stall.sh: STOP_MS and PERIOD_MS are whole ms, STOP_MS < PERIOD_MS" >&2
	exit 2
}
run=$(awk -v s="$stop" -v p="$period" 'BEGIN { printf "%.3f %.3f", s / 1000, (p - s) / 1000 }')
read -r stop_s run_s <<<"$run"
IFS=, read -r -a pid <<<"$pids"
trap 'kill -CONT "${pid[@]}" 2>/dev/null; exit 0' TERM INT EXIT
while kill -0 "${pid[0]}" 2>/dev/null; do
	kill -STOP "${pid[@]}" 2>/dev/null
	sleep "$stop_s"
	kill -CONT "${pid[@]}" 2>/dev/null
	sleep "$run_s"
done
