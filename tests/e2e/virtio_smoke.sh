#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script: two virtio-net guests on rocx-switch ping each other, guest 0
# sends 16 MiB of random data over TCP to guest 1, which checks its sha256,
# then both bring up Soft-RoCE (rxe) on eth0 and run an RC ping-pong.
# Run from the host:
#   scripts/guest/run-guests.sh --timeout 300 \
#     --guest nic=virtio,cmd=tests/e2e/virtio_smoke.sh \
#     --guest nic=virtio,cmd=tests/e2e/virtio_smoke.sh
set -euo pipefail
. "$ROCX_REPO/scripts/guest/lib.sh"

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "needs exactly 2 guests"
me=$ROCX_GUEST_INDEX
peer_ip=$(rocx_ip $((1 - me)))
size_mib=16
port=5001

ms() { echo $(($(date +%s%N) / 1000000)); }

ip link set eth0 up
ip addr add "$ROCX_IP/24" dev eth0
rocx_barrier up

# ping both ways; the first one also resolves ARP through the switch's flood
ping -c 3 -i 0.2 -W 5 "$peer_ip" | tail -n 2 || rocx_die "ping $peer_ip"
rocx_log "ping $peer_ip ok"
rocx_barrier pinged

if [ "$me" -eq 1 ]; then
	timeout 120 socat -u "TCP-LISTEN:$port,reuseaddr" OPEN:/tmp/rx,creat,trunc &
	rx=$!
	for ((i = 0; i < 100; i++)); do
		ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	rocx_put listening 1
	wait "$rx" || rocx_die "receiving socat failed"
	want=$(rocx_get sha)
	got=$(sha256sum /tmp/rx | cut -d' ' -f1)
	[ "$got" = "$want" ] ||
		rocx_die "sha256 mismatch: got $got want $want ($(stat -c %s /tmp/rx) bytes)"
	rocx_log "received ${size_mib} MiB, sha256 ok"
else
	head -c "${size_mib}M" /dev/urandom >/tmp/tx
	rocx_put sha "$(sha256sum /tmp/tx | cut -d' ' -f1)"
	rocx_get listening >/dev/null
	t=$(ms)
	timeout 120 socat -u FILE:/tmp/tx "TCP:$peer_ip:$port" ||
		rocx_die "sending socat failed"
	t=$(($(ms) - t))
	rocx_log "sent ${size_mib} MiB in ${t} ms ($((size_mib * 1024 * 1000 / t)) KiB/s)"
	rocx_put tcp_ms "$t"
fi
rocx_barrier tcp

# Soft-RoCE on the same NIC: what rxe interoperability tests build on.
modprobe rdma_rxe || rocx_die "modprobe rdma_rxe"
rdma link add rxe0 type rxe netdev eth0 || rocx_die "rdma link add rxe0"
rdma link show rxe0/1
ibv_devices | grep -q rxe0 || rocx_die "libibverbs does not see rxe0"
rocx_barrier rxe
if [ "$me" -eq 1 ]; then
	timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 100 || rocx_die "rxe pingpong (server)"
else
	sleep 1
	timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 100 "$peer_ip" ||
		rocx_die "rxe pingpong (client)"
fi
rocx_log "rxe RC ping-pong ok"
