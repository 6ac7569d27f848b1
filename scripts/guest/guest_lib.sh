# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for guest scripts run by scripts/run/run-guests.sh:
#   . "$ROCX_REPO/scripts/guest/guest_lib.sh"
# Guests of one run share /rocx-shared (9p, uncached), which carries the
# barriers and values below.

: "${ROCX_GUEST_INDEX:=0}" "${ROCX_NGUESTS:=1}" "${ROCX_SHARED:=/rocx-shared}"
ROCX_WAIT=${ROCX_WAIT:-120}	# seconds any helper waits before giving up
# How long a helper sleeps between looks at a shared file; it gives up
# after ROCX_WAIT * 10 looks (ROCX_WAIT s at the default).  A timed run's
# guests sleep in virtual time, which advances by a few latencies per
# round of promises while they idle together, so that a 0.1 s sleep
# there costs about a second of wall time while the host has answered
# in a tenth of it: a timed group asks for shorter looks.
ROCX_POLL=${ROCX_POLL:-0.1}

rocx_log() {
	printf 'guest%s: %s\n' "$ROCX_GUEST_INDEX" "$*"
}

rocx_die() {
	rocx_log "FAIL: $*"
	exit 1
}

# Fails when another guest of the run has failed: no use waiting for it.
rocx_check_peers() {
	local f

	for f in "$ROCX_SHARED"/failed.*; do
		[ -e "$f" ] && rocx_die "guest ${f##*.} failed; giving up"
	done
	return 0
}

# rocx_ip N - IPv4 address of guest N's first NIC.
rocx_ip() {
	echo "198.18.0.$(($1 + 1))"
}

# rocx_barrier NAME [COUNT] - wait until COUNT guests (default all) reach it.
rocx_barrier() {
	local name=$1 count=${2:-$ROCX_NGUESTS} n i
	local dir=$ROCX_SHARED/barrier.$name

	mkdir -p "$dir"
	: >"$dir/$ROCX_GUEST_INDEX"
	for ((i = 0; i < ROCX_WAIT * 10; i++)); do
		n=$(find "$dir" -mindepth 1 -maxdepth 1 | wc -l)
		[ "$n" -ge "$count" ] && return 0
		rocx_check_peers
		sleep "$ROCX_POLL"
	done
	rocx_die "barrier $name: $n of $count guests after ${ROCX_WAIT}s"
}

# rocx_put KEY VALUE - publish VALUE to every guest.
rocx_put() {
	printf '%s\n' "$2" >"$ROCX_SHARED/val.$1.tmp.$ROCX_GUEST_INDEX"
	mv "$ROCX_SHARED/val.$1.tmp.$ROCX_GUEST_INDEX" "$ROCX_SHARED/val.$1"
}

# rocx_get KEY - print the value of KEY once some guest has put it.  In
# $(...) a failure only ends the subshell: check the status.
rocx_get() {
	local i

	for ((i = 0; i < ROCX_WAIT * 10; i++)); do
		if [ -f "$ROCX_SHARED/val.$1" ]; then
			cat "$ROCX_SHARED/val.$1"
			return 0
		fi
		rocx_check_peers
		sleep "$ROCX_POLL"
	done
	rocx_die "no value for $1 after ${ROCX_WAIT}s"
}
