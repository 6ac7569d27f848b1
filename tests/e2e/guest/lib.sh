# SPDX-License-Identifier: GPL-2.0
#
# Test helpers for rocx guest scripts (sourced after scripts/guest/lib.sh).
# Each check prints one TAP-style line, "ok - NAME" or "not ok - NAME";
# tests/e2e/run.sh counts them.  A guest script's non-zero exit without a
# "not ok" line is counted as a failure too.

ROCX_FAILED=0
ROCX_MODDIR=${ROCX_MODDIR:-$ROCX_REPO/build/modules}
ROCX_RDMA=${ROCX_RDMA:-$ROCX_REPO/build/rdma-core}

t_ok() { echo "ok - $*"; }
t_not_ok() { echo "not ok - $*"; ROCX_FAILED=$((ROCX_FAILED + 1)); }

# t NAME CMD... - run CMD, report NAME by its exit status; output kept.
t() {
	local name=$1 out rc

	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		t_ok "$name"
	else
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/# /'
		t_not_ok "$name (exit $rc)"
	fi
	return $rc
}

# t_done - exit with the number of failures (0 when all passed).
t_done() {
	exit $((ROCX_FAILED > 0))
}

# Run Debian's verbs tools against the self-built libibverbs + provider.
rdma_env() {
	LD_LIBRARY_PATH=$ROCX_RDMA/lib "$@"
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

# dmesg_clean - no warning, bug or oops since boot (taint notices aside, and
# the debug kernel's kmemleak announcing itself at boot).
dmesg_clean() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|refcount_t|leak' |
		grep -v -e 'module verification failed' \
			-e 'kmemleak: Kernel memory leak detector initialized' | grep -q .
}
