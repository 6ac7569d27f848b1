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

# switch_prio_counter PORT PRIO NAME - one per-priority counter of
# `qshow` (e.g. rx_bytes: what the port's guest sent on PRIO).
switch_prio_counter() {
	switch_ctl qshow "port=$1" |
		awk -v p="port$1" -v q="prio$2" -v k="$3=" '
			$1 == p && $2 == q {
				for (i = 3; i <= NF; i++)
					if (index($i, k) == 1)
						print substr($i, length(k) + 1)
			}'
}

# switch_windows FROM TO <SAMPLES - a line per window between two
# consecutive samples ("T0 T1 VALUE": the counter as the switch read it
# between T0 and T1 of the guest's clock, as `switch_lib.py sample`
# prints them) that both lie within [FROM, TO]: "SECONDS RATE LOW HIGH",
# the window's length between the answers (T1: the host reads and
# answers at once, and the sampler sees the answer within milliseconds),
# the rate over it in Mb/s, and the least and most the rate can be given
# when in their intervals the switch read each counter.
switch_windows() {
	awk -v from="$1" -v to="$2" '
		$1 >= from && $2 <= to {
			if (n++) {
				d = $2 - a1
				b = ($3 - v) * 8 / 1e6
				printf "%.3f %.3f %.3f %.3f\n", d, b / d,
					b / ($2 - a0), b / ($1 - a1)
			}
			a0 = $1; a1 = $2; v = $3
		}'
}
