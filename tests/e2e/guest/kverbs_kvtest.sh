# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # sourced by guest/kverbs.sh
# Kernel verbs (rocx_ib_datapath.c) as a kernel consumer uses them, in each
# guest of the kverbs group: rocx_ib_kvtest.ko runs RC and UD QPs
# through the device's loopback at load (data verified, posts from
# softirq, an AH made under a spinlock, refused work requests with their
# bad_wr, ib_drain_qp, a kernel SRQ shared by two RC QPs with its limit
# event) and logs one TAP line per check.
kv_mod=$ROCX_MODDIR/rocx_ib_kvtest.ko
if [ ! -s "$kv_mod" ]; then
	t_not_ok "kverbs: $kv_mod was built"
else
	# Only this run's lines; the log stays whole for dmesg_clean.
	kv_from=$(($(dmesg | wc -l) + 1))
	if timeout 120 insmod "$kv_mod" ibdev="$ibdev"; then
		t_ok "kverbs: rocx_ib_kvtest loaded and ran"
	else
		t_not_ok "kverbs: insmod rocx_ib_kvtest"
	fi
	dmesg | tail -n +"$kv_from" >/tmp/kvtest.log
	sed -n 's/.*rocx_kvtest: \(\(not \)\?ok - .*\)/\1/p' /tmp/kvtest.log >/tmp/kvtest.tap
	cat /tmp/kvtest.tap
	ROCX_FAILED=$((ROCX_FAILED + $(grep -c '^not ok' /tmp/kvtest.tap)))
	if grep -q 'rocx_kvtest: done, 0 failed' /tmp/kvtest.log &&
		[ "$(grep -c '^ok' /tmp/kvtest.tap)" -ge 50 ]; then
		t_ok "kverbs: every check ran and passed"
	else
		t_not_ok "kverbs: the test module finished with every check passed"
	fi
	rmmod rocx_ib_kvtest 2>/dev/null || t_not_ok "kverbs: rmmod rocx_ib_kvtest"
fi
