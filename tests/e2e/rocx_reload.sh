#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload both modules 20 times, half of the cycles with a process
# holding a user context (PD and mapped doorbell page) open across rmmod:
# rmmod must not wait for it, dmesg must stay clean and the resources the
# modules use must be back where they started.
. "$ROCX_REPO/scripts/guest/lib.sh"
. "$ROCX_REPO/tests/e2e/lib.sh"

hold=$ROCX_REPO/build/tests/uctx_hold
cycles=20

modprobe ib_uverbs
snapshot() {
	echo "msix $(grep -c 'PCI-MSI' /proc/interrupts)"
	echo "netdevs $(ls /sys/class/net | wc -l)"
	echo "ibdevs $(ls /sys/class/infiniband 2>/dev/null | wc -l)"
	echo "ib_core refs $(cat /sys/module/ib_core/refcnt)"
	echo "ib_uverbs refs $(cat /sys/module/ib_uverbs/refcnt)"
}
snapshot >/tmp/before

cycle() {
	local i=$1 pid= ibdev

	rocx_load_modules || return 1
	wait_for 10 rocx_ibdev || { echo "# no ib device"; return 1; }
	ibdev=$(rocx_ibdev)
	if [ $((i % 2)) -eq 1 ]; then
		LD_LIBRARY_PATH=$ROCX_RDMA/lib "$hold" "$ibdev" >/tmp/hold.log 2>&1 &
		pid=$!
		wait_for 10 grep -q ready /tmp/hold.log ||
			{ cat /tmp/hold.log; kill $pid; return 1; }
	fi
	timeout 30 rmmod rocx_ib || { echo "# rmmod rocx_ib hung or failed"; return 1; }
	timeout 30 rmmod rocx_core || { echo "# rmmod rocx_core failed"; return 1; }
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	return 0
}

ok=0
for ((i = 0; i < cycles; i++)); do
	if cycle "$i"; then
		ok=$((ok + 1))
	else
		echo "# cycle $i failed"
		break
	fi
done
t "$cycles load/unload cycles, every other one with a live user context" test "$ok" -eq "$cycles"
snapshot >/tmp/after
diff /tmp/before /tmp/after | sed 's/^/# /'
t "MSI-X vectors, netdevs, ib devices and ib_core/ib_uverbs references back to start" \
	cmp -s /tmp/before /tmp/after
t "dmesg free of warnings after $cycles cycles" dmesg_clean
t_done
