#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a disturbance only while some of the incast group's scenarios run:
# CMD starts (in a session of its own) when guest 0 sets the fabric up
# for one of SCENS and is killed, with everything it started, when the
# next scenario's set-up comes.  Scenario N begins with guest 0's Nth
# "qos port=all clear" in LOG (host/switch_ctl.sh's switch-ctl.log),
# the scenarios in ONLY's order, as guest/incast.sh runs them.  An
# experiment's tool (ROCX_INCAST_STALL and ROCX_INCAST_HOG with
# @SCEN+SCEN), so that one scenario is slowed and the one it is compared
# with is not, as a hypervisor did in runs V, Z and AA
# (Documentation/experiments.rst).
#
#   tests/e2e/host/during.sh LOG ONLY SCENS CMD...
set -u
log=${1:?usage: during.sh LOG ONLY SCENS CMD...} only=${2:?} scens=${3:?}
shift 3
[ $# -gt 0 ] || { echo "during.sh: no CMD" >&2; exit 2; }
IFS=+ read -r -a order <<<"$only"
pid=

stop() {
	[ -n "$pid" ] && kill -- "-$pid" 2>/dev/null
	pid=
}
trap 'stop; exit 0' TERM INT EXIT
while :; do
	n=$(grep -c ' guest0 qos port=all clear$' "$log" 2>/dev/null)
	cur=
	[ "${n:-0}" -gt 0 ] && cur=${order[n - 1]:-}
	case +$scens+ in
	*+"$cur"+*)
		if [ -n "$cur" ] && [ -z "$pid" ]; then
			setsid "$@" &
			pid=$!
			echo "$(date +%s.%N) during.sh: $cur: $*" >&2
		fi ;;
	*)
		[ -n "$pid" ] && echo "$(date +%s.%N) during.sh: $cur: stopped" >&2
		stop ;;
	esac
	sleep 0.1
done
