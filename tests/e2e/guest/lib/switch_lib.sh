# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The switch's control socket from inside a guest (sourced after
# scripts/guest/guest_lib.sh): requests go through the run's shared directory to
# tests/e2e/host/switch_ctl.sh, which the group runs on the host
# (host_cmd="bash tests/e2e/host/switch_ctl.sh").

# Requests are numbered in a file, not a variable: a request made in
# $(...) runs in a subshell.
ROCX_SWCTL_SEQ=/tmp/switch_ctl.seq

# switch_ctl WORD... - one control request (e.g. `switch_ctl show port=1`);
# prints its output, and its error on stderr; status 0 when the switch
# said ok, 1 when it refused, 2 when no answer came.
switch_ctl() {
	local n base i rc

	n=$(cat "$ROCX_SWCTL_SEQ" 2>/dev/null || echo 0)
	echo $((n + 1)) >"$ROCX_SWCTL_SEQ"
	base=$ROCX_SHARED/swctl.$ROCX_GUEST_INDEX.$n
	printf '%s\n' "$*" >"$base.tmp"
	mv "$base.tmp" "$base.req"
	for ((i = 0; i < ROCX_WAIT * 10; i++)); do
		if [ -f "$base.ans" ]; then
			rc=$(head -n 1 "$base.ans")
			if [ "$rc" = 0 ]; then
				tail -n +2 "$base.ans"
			else
				tail -n +2 "$base.ans" >&2
			fi
			return "$rc"
		fi
		sleep "$ROCX_POLL"
	done
	echo "switch_ctl: no answer to '$*' after ${ROCX_WAIT}s" >&2
	return 2
}

# switch_counter PORT DIR NAME - one counter of `show`, e.g. lost.
switch_counter() {
	switch_ctl show "port=$1" "dir=$2" |
		tr ' ' '\n' | sed -n "s/^$3=//p"
}
