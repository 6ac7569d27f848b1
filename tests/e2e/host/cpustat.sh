#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host's CPU time while a group runs: every half second, the time
# (seconds since the epoch, as switch-ctl.log has it) and /proc/stat's
# cpu line, appended to FILE until killed.  A machine that is itself a
# virtual machine counts in "steal" the time its hypervisor gave to
# others; host/incast.py reports it per scenario, since a scenario the
# host slowed down for seconds measures the host, not the network.
#
#   tests/e2e/host/cpustat.sh FILE
set -u
file=${1:?usage: cpustat.sh FILE}
while :; do
	read -r line </proc/stat
	printf '%s %s\n' "$(date +%s.%N)" "$line" >>"$file" || exit 1
	sleep 0.5
done
