# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/kverbs.sh
# Kernel verbs (rocx_ib_datapath.c) as a kernel consumer uses them, in each
# guest of the kverbs group: rocx_ib_kvtest.ko (tests/e2e/kmod) runs RC and
# UD QPs through the device's loopback at load (data verified, posts from
# softirq, an AH made under a spinlock, refused work requests with their
# bad_wr, ib_drain_qp, a kernel SRQ shared by two RC QPs with its limit
# event) and logs one TAP line per check.  kvtest_run runs it on one
# device; guest/kverbs.sh runs it on rocx, and on Soft-RoCE (rxe) over
# the same netdev, so that a check failing on both is the test's bug and
# one failing on rocx alone the driver's or the device's.
kv_mod=$ROCX_MODDIR/rocx_ib_kvtest.ko

# kvtest_run DEV [PREFIX [PARAM...]] - load the module on DEV with the
# module parameters PARAM and report its checks, each named PREFIX and its
# own name.
kvtest_run() {
	local dev=$1 pre=${2:-} from

	shift $(($# < 2 ? $# : 2))

	if [ ! -s "$kv_mod" ]; then
		t_not_ok "kverbs: ${pre}$kv_mod was built"
		return
	fi
	# Only this run's lines; the log stays whole for dmesg_clean.
	from=$(($(dmesg | wc -l) + 1))
	if timeout 120 insmod "$kv_mod" ibdev="$dev" "$@"; then
		t_ok "kverbs: ${pre}rocx_ib_kvtest loaded and ran"
	else
		t_not_ok "kverbs: ${pre}insmod rocx_ib_kvtest"
	fi
	dmesg | tail -n +"$from" >/tmp/kvtest.log
	sed -n "s/.*rocx_kvtest: \(\(not \)\?ok - \)\(.*\)/\1$pre\3/p" \
		/tmp/kvtest.log >/tmp/kvtest.tap
	cat /tmp/kvtest.tap
	ROCX_FAILED=$((ROCX_FAILED + $(grep -c '^not ok' /tmp/kvtest.tap)))
	if grep -q 'rocx_kvtest: done, 0 failed' /tmp/kvtest.log &&
		[ "$(grep -c '^ok' /tmp/kvtest.tap)" -ge 50 ]; then
		t_ok "kverbs: ${pre}every check ran and passed"
	else
		t_not_ok "kverbs: ${pre}the test module finished with every check passed"
	fi
	rmmod rocx_ib_kvtest 2>/dev/null || t_not_ok "kverbs: ${pre}rmmod rocx_ib_kvtest"
}

# kvtest_rxe NETDEV IPV4 - the same module on Soft-RoCE over NETDEV, whose
# address IPV4 gives it a RoCE v2 GID; the rxe device goes again after.
# rxe leaves the source MAC out of a looped-back UD completion, which
# ib_core allows (wc_smac=0).
kvtest_rxe() {
	local netdev=$1 ip=$2 pre="Soft-RoCE: "

	if ! modprobe rdma_rxe || ! rdma link add kvrxe0 type rxe netdev "$netdev"; then
		t_not_ok "kverbs: ${pre}rdma link add kvrxe0 on $netdev"
		return
	fi
	if wait_for 20 _roce_port_active kvrxe0 &&
		wait_for 20 roce_gid_index kvrxe0 "$ip"; then
		kvtest_run kvrxe0 "$pre" wc_smac=0
	else
		t_not_ok "kverbs: ${pre}kvrxe0 port ACTIVE with a RoCE v2 GID for $ip"
	fi
	rdma link delete kvrxe0 || t_not_ok "kverbs: ${pre}rdma link delete kvrxe0"
}
