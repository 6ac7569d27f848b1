# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the rocx_ib guest scripts (ib_devinfo.sh, ib_unload.sh):
#   . "$ROCX_REPO/tests/e2e/guest/lib/ib_lib.sh"
# Each check prints one TAP-style line, "ok - rocx_ib: what" or "not ok -
# rocx_ib: what", which tests/e2e/run.sh counts; rib_summary prints the
# "rocx_ib: N passed, N failed" line and sets the exit status.
. "$ROCX_REPO/scripts/guest/guest_lib.sh"

RIB_MODULES=${ROCX_MODDIR:-$ROCX_REPO/build/modules}
RIB_RDMA=${ROCX_RDMA:-$ROCX_REPO/build/rdma-core}
RIB_DEV=${RIB_DEV:-rocx0}
rib_pass=0 rib_fail=0

# Debian's ibverbs-utils run against the self-built libibverbs and provider.
export LD_LIBRARY_PATH=$RIB_RDMA/lib

rib_ok() {
	rib_pass=$((rib_pass + 1))
	echo "ok - rocx_ib: $*"
}

rib_bad() {
	rib_fail=$((rib_fail + 1))
	echo "not ok - rocx_ib: $*"
}

# rib_check WHAT CMD... - run CMD, count it as WHAT passed or failed.
rib_check() {
	local what=$1

	shift
	if "$@"; then
		rib_ok "$what"
	else
		rib_bad "$what"
	fi
}

rib_summary() {
	echo "rocx_ib: $rib_pass passed, $rib_fail failed"
	[ "$rib_fail" -eq 0 ]
}

# rib_wait SECONDS CMD... - poll CMD every 0.1 s until it succeeds.
rib_wait() {
	local i n=$(($1 * 10))

	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

rib_has_dev() {
	[ -e "/sys/class/infiniband/$RIB_DEV" ]
}

rib_no_dev() {
	[ ! -e "/sys/class/infiniband/$RIB_DEV" ]
}

# rib_port_state - "ACTIVE", "DOWN", ... of port 1.
rib_port_state() {
	local s

	s=$(cat "/sys/class/infiniband/$RIB_DEV/ports/1/state" 2>/dev/null) || return 1
	echo "${s#*: }"
}

rib_port_is() {
	[ "$(rib_port_state)" = "$1" ]
}

# rib_load - load ib_uverbs, rocx_core and rocx_ib; wait for the ib_device.
rib_load() {
	modprobe ib_uverbs || rocx_die "modprobe ib_uverbs"
	modprobe ib_umad 2>/dev/null || true
	lsmod | grep -q '^rocx_core ' ||
		insmod "$RIB_MODULES/rocx_core.ko" || rocx_die "insmod rocx_core"
	insmod "$RIB_MODULES/rocx_ib.ko" || rocx_die "insmod rocx_ib"
	rib_wait 20 rib_has_dev || rocx_die "no /sys/class/infiniband/$RIB_DEV"
}

# rib_netdev - the Ethernet interface of the ib_device's PCI function.
rib_netdev() {
	ls "/sys/class/infiniband/$RIB_DEV/device/net" | head -n 1
}

# rib_dmesg_mark / rib_dmesg_clean - kernel log since the mark has no
# warning, oops, leak or hung task, and no rocx error.
rib_dmesg_mark() {
	rib_dmesg_lines=$(dmesg | wc -l)
}

rib_dmesg_clean() {
	local bad

	bad=$(dmesg | tail -n +"$((rib_dmesg_lines + 1))" |
		grep -E 'WARNING|BUG|Oops|Call Trace|general protection|refcount_t|leak|hung_task|blocked for more|rocx.*(failed|error)' |
		grep -v 'unsigned module\|taints kernel\|module verification failed')
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | head -n 20
		return 1
	fi
	return 0
}

# rib_uctx_hold - path of the uctx_hold binary, compiled here if the host
# did not build it (the guest sees the host's compiler).
rib_uctx_hold() {
	local bin=$ROCX_REPO/build/tests/e2e/ib_uctx_hold
	local src=$ROCX_REPO/tests/e2e/guest/c/ib_uctx_hold.c

	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		bin=/tmp/uctx_hold
		[ -x "$bin" ] ||
			cc -O2 -o "$bin" "$src" -I"$RIB_RDMA/include" \
				-L"$RIB_RDMA/lib" -libverbs >&2 || return 1
	fi
	echo "$bin"
}
