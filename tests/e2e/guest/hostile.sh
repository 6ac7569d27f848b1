#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile guest: with rocx_core unbound, guest 0 writes garbage to every
# register and doorbell (tests/e2e/guest/c/hostile.c).  The model must
# stay up and count guest errors; after the driver binds again (its probe
# resets the device) the port must work: guest 1 is the peer it pings.
# Neither guest's kernel may log a warning, a BUG or an oops meanwhile:
# garbage in the device must not become a fault in the driver.
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"

me=$ROCX_GUEST_INDEX
peer=$(rocx_ip $((1 - me)))

t "load modules" rocx_load_modules || t_done
dev=$(rocx_netdev)
ip link set "$dev" up
ip addr add "$ROCX_IP/24" dev "$dev"
t "carrier up" wait_for 20 carrier_is "$dev" 1
rocx_barrier up

if [ "$me" -eq 0 ]; then
	t "ping peer before" ping -c 2 -W 5 "$peer"
	pcidev=$(readlink -f "/sys/class/net/$dev/device")
	bdf=$(basename "$pcidev")
	t "unbind rocx_core from $bdf" sh -c "echo $bdf > /sys/bus/pci/drivers/rocx_core/unbind"
	t "no netdev while unbound" sh -c "! ls /sys/class/net/$dev 2>/dev/null"
	echo 1 >"$pcidev/enable" 2>/dev/null
	t "garbage to every register and doorbell; device still answers" \
		"$ROCX_REPO/build/tests/e2e/hostile" "$pcidev" 8
	t "rebind rocx_core" sh -c "echo $bdf > /sys/bus/pci/drivers/rocx_core/bind"
	dev=$(rocx_netdev)
	t "netdev back ($dev)" test -n "$dev"
	ip link set "$dev" up
	ip addr add "$ROCX_IP/24" dev "$dev"
	t "carrier up after rebind" wait_for 20 carrier_is "$dev" 1
	t "ping peer after rebind" wait_for 30 ping -c 1 -W 1 "$peer"
	t "ib_device back after rebind" wait_for 10 rocx_ibdev
	t "ibv_devinfo after rebind: port ACTIVE" sh -c \
		"LD_LIBRARY_PATH=$ROCX_RDMA/lib ibv_devinfo | grep -q 'state:.*PORT_ACTIVE'"
	rocx_put hostile_done 1
else
	rocx_get hostile_done >/dev/null
fi
rocx_barrier done
t "dmesg clean: no warning, BUG or oops" dmesg_clean ||
	dmesg | grep -E "WARNING:|BUG:|Oops|Call Trace" | head -n 20 | sed "s/^/# /"
t_done
