# SPDX-License-Identifier: GPL-2.0
#
# Test helpers for rocx guest scripts (sourced after
# scripts/guest/guest_lib.sh).  Each check prints one TAP-style line,
# "ok - NAME" or "not ok - NAME"; tests/e2e/run.sh counts them.  A guest
# script's non-zero exit without a "not ok" line is counted as a failure
# too.

ROCX_FAILED=0
ROCX_MODDIR=${ROCX_MODDIR:-$ROCX_REPO/build/modules}
ROCX_RDMA=${ROCX_RDMA:-$ROCX_REPO/build/rdma-core}

t_ok() { echo "ok - $*"; }
t_not_ok() { echo "not ok - $*"; ROCX_FAILED=$((ROCX_FAILED + 1)); }

# t_show FILE [NAME] - a failed tool's output (stdout and stderr in one
# FILE) into the log, and FILE kept whole as out.NAME (default: FILE's
# name) in $ROCX_OUT, which the host keeps as build/e2e/GROUP/guest<N>/.
# A long output shows its head as well as its tail: a program's error
# message often comes first (stderr is unbuffered, a stdout that is not a
# terminal reaches the file only at exit), and a tail alone lost it.
t_show() {
	local f=$1 keep=${2:-${1##*/}} n

	[ -f "$f" ] || return 0
	n=$(wc -l <"$f")
	if [ -d "${ROCX_OUT:-}" ]; then
		keep=out.$(printf '%s' "$keep" | tr -c 'A-Za-z0-9._-' _)
		cp "$f" "$ROCX_OUT/$keep" &&
			echo "# whole output: guest${ROCX_GUEST_INDEX:-0}/$keep ($n lines)"
	fi
	if [ "$n" -le 60 ]; then
		sed 's/^/# /' "$f"
	else
		head -n 20 "$f" | sed 's/^/# /'
		echo "# [... $((n - 50)) lines ...]"
		tail -n 30 "$f" | sed 's/^/# /'
	fi
}

# t NAME CMD... - run CMD, report NAME by its exit status; output kept.
t() {
	local name=$1 out rc

	shift
	out=$(mktemp)
	# A subshell, as $(...) was: CMD's variables and exit stay its own.
	("$@") >"$out" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		t_ok "$name"
	else
		t_show "$out" "$name"
		t_not_ok "$name (exit $rc)"
	fi
	rm -f "$out"
	return $rc
}

# t_done - exit with the number of failures (0 when all passed).
t_done() {
	exit $((ROCX_FAILED > 0))
}

# Run Debian's verbs tools against the self-built libibverbs + provider.
# Their stdout is line-buffered so that a file holding it and stderr
# reads in the order the tool wrote (perftest's error after its header).
rdma_env() {
	LD_LIBRARY_PATH=$ROCX_RDMA/lib stdbuf -oL "$@"
}

rocx_load_modules() {
	modprobe ib_uverbs || return 1
	insmod "$ROCX_MODDIR/rocx_core.ko" || return 1
	insmod "$ROCX_MODDIR/rocx_ib.ko" || return 1
}

rocx_unload_modules() {
	rmmod rocx_ib 2>/dev/null
	rmmod rocx_core
}

# rocx_netdev - name of the first netdev bound to rocx_core.
rocx_netdev() {
	local n

	for n in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$n/device/driver" 2>/dev/null)")" = rocx_core ] &&
			{ basename "$n"; return 0; }
	done
	return 1
}

# rocx_ibdev - name of the first rocx ib_device.
rocx_ibdev() {
	local d

	for d in /sys/class/infiniband/rocx*; do
		[ -e "$d" ] && { basename "$d"; return 0; }
	done
	return 1
}

# hw NAME - the device counter NAME as `ethtool -S` shows it, of the
# netdev roce_up brought up, else of rocx's first.
hw() {
	local nd=${ROCE_NETDEV:-$(rocx_netdev)}

	ethtool -S "$nd" | awk -v k="$1:" '$1 == k { print $2; exit }'
}

# gid_of TYPE TEXT - index of the GID TEXT (as sysfs shows it) of TYPE
# ("RoCE v2", "IB/RoCE v1") in port 1 of the ib_device $ibdev.
gid_of() {
	local port=/sys/class/infiniband/${ibdev:?}/ports/1 f n

	# One grep over the table (128 entries), not a cat per entry.
	while read -r f; do
		n=${f##*/}
		[ "$(cat "$port/gid_attrs/types/$n" 2>/dev/null)" = "$1" ] || continue
		echo "$n"
		return 0
	done < <(grep -lxF -- "$2" "$port"/gids/* 2>/dev/null)
	return 1
}

# wait_for SECONDS CMD... - poll CMD every 0.1 s until it succeeds.
wait_for() {
	local n=$(($1 * 10))

	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}

carrier_is() {
	[ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = "$2" ]
}

# dmesg_clean - no warning, bug or oops since boot (taint notices aside, the
# debug kernel's kmemleak announcing itself at boot, and what the host's
# own check excuses, tests/e2e/host/splat_check.sh's excuse(): a user
# program's fault, which its test sees as its exit status, and one
# DMA-API report of ib_core's).
dmesg_clean() {
	local log

	log=$(dmesg) || return 1
	kernel_log_clean <<<"$log"
}

# kernel_log_clean - dmesg_clean's judgement of the kernel log on stdin.
kernel_log_clean() {
	local log

	log=$(bash "$ROCX_REPO/tests/e2e/host/splat_check.sh" excuse -) || return 1
	! grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|refcount_t|leak' <<<"$log" |
		grep -v -e 'module verification failed' \
			-e 'kmemleak: Kernel memory leak detector initialized' |
		grep -q .
}

# mon CMD... - run CMD on this guest's QEMU monitor; prints the answer.
# The group runs tests/e2e/host/monitor.sh on the host (host_cmd).
# Safe in $(...): the request's name is unique without shared state.
mon() {
	local g=$ROCX_GUEST_INDEX seq i

	seq=$(date +%s%N)
	local req=$ROCX_SHARED/mon.req.$g.$seq ans=$ROCX_SHARED/mon.ans.$g.$seq
	local tmp=$ROCX_SHARED/.mon.$g.$seq

	printf '%s\n' "$*" >"$tmp" && mv "$tmp" "$req"
	for ((i = 0; i < 300; i++)); do
		[ -f "$ans" ] && { cat "$ans"; return 0; }
		sleep 0.1
	done
	return 1
}
