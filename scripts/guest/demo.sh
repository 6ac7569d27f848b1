#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What each demo guest does: load rocx, bring the port up, ping the other
# guest, move 16 MiB over TCP with its sha256 checked, show ibv_devinfo.
set -e
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"

me=$ROCX_GUEST_INDEX
peer=$(rocx_ip $((1 - me)))
rocx_load_modules
dev=$(rocx_netdev)
ip link set "$dev" up
ip addr add "$ROCX_IP/24" dev "$dev"
wait_for 20 carrier_is "$dev" 1
rocx_log "$dev is up with $ROCX_IP ($(ethtool -i "$dev" | grep ^driver))"
rocx_barrier up

ping -c 3 -i 0.2 "$peer"

if [ "$me" -eq 1 ]; then
	timeout 120 socat -u TCP-LISTEN:5001,reuseaddr OPEN:/tmp/rx,creat,trunc &
	wait_for 10 sh -c "ss -Hltn 'sport = :5001' | grep -q ."
	rocx_put listening 1
	wait $!
	want=$(rocx_get sha)
	got=$(sha256sum /tmp/rx | cut -d' ' -f1)
	[ "$got" = "$want" ] || rocx_die "sha256 mismatch"
	rocx_log "received 16 MiB over TCP, sha256 $got matches"
else
	head -c 16M /dev/urandom >/tmp/tx
	rocx_put sha "$(sha256sum /tmp/tx | cut -d' ' -f1)"
	rocx_get listening >/dev/null
	timeout 120 socat -u FILE:/tmp/tx "TCP:$peer:5001"
	rocx_log "sent 16 MiB over TCP"
fi
rocx_barrier tcp

[ "$me" -eq 0 ] || rocx_get devinfo_done >/dev/null
rdma_env ibv_devinfo -v | grep -E 'hca_id|transport|fw_ver|vendor_id|vendor_part_id|state|active_mtu|link_layer|GID\['
rocx_put devinfo_done 1
