#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script: two virtio-net guests on rocx-switch ping each other, guest 0
# sends 16 MiB of random data over TCP to guest 1, which checks its sha256,
# then both bring up Soft-RoCE (rxe) on eth0 and run an RC ping-pong.
# Run from the host:
#   scripts/run/run-guests.sh --timeout 300 \
#     --guest nic=virtio,cmd=tests/e2e/guest/virtio.sh \
#     --guest nic=virtio,cmd=tests/e2e/guest/virtio.sh
# Prints one "ok - NAME" / "not ok - NAME" line per check (tests/e2e/run.sh
# counts them) and stops at the first failure: later checks need earlier.
set -euo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"

fail() {
	t_not_ok "virtio: $*"
	exit 1
}

[ "$ROCX_NGUESTS" -eq 2 ] || fail "needs exactly 2 guests"
me=$ROCX_GUEST_INDEX
peer_ip=$(rocx_ip $((1 - me)))
size_mib=16
port=5001

ms() { echo $(($(date +%s%N) / 1000000)); }

ip link set eth0 up
ip addr add "$ROCX_IP/24" dev eth0
rocx_barrier up

# ping both ways; the first one also resolves ARP through the switch's flood
ping -c 3 -i 0.2 -W 5 "$peer_ip" | tail -n 2 || fail "ping $peer_ip"
t_ok "virtio: ping $peer_ip"
rocx_barrier pinged

if [ "$me" -eq 1 ]; then
	timeout 120 socat -u "TCP-LISTEN:$port,reuseaddr" OPEN:/tmp/rx,creat,trunc &
	rx=$!
	for ((i = 0; i < 100; i++)); do
		ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	rocx_put listening 1
	wait "$rx" || fail "TCP receive"
	want=$(rocx_get sha) || fail "no sha256 from guest 0"
	got=$(sha256sum /tmp/rx | cut -d' ' -f1)
	[ "$got" = "$want" ] ||
		fail "TCP ${size_mib} MiB: sha256 $got, want $want ($(stat -c %s /tmp/rx) bytes)"
	t_ok "virtio: TCP ${size_mib} MiB received, sha256 matches"
else
	head -c "${size_mib}M" /dev/urandom >/tmp/tx
	rocx_put sha "$(sha256sum /tmp/tx | cut -d' ' -f1)"
	rocx_get listening >/dev/null || fail "guest 1 never listened"
	t=$(ms)
	timeout 120 socat -u FILE:/tmp/tx "TCP:$peer_ip:$port" ||
		fail "TCP send"
	t=$(($(ms) - t))
	t_ok "virtio: TCP ${size_mib} MiB sent in ${t} ms ($((size_mib * 1024 * 1000 / t)) KiB/s)"
fi
rocx_barrier tcp

# Soft-RoCE on the same NIC: what rxe interoperability tests build on.
modprobe rdma_rxe || fail "modprobe rdma_rxe"
rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0"
rdma link show rxe0/1
# Debian's libibverbs and rxe provider, not the self-built ones.
ibv_devices | grep -q rxe0 || fail "libibverbs does not see rxe0"
t_ok "virtio: rdma_rxe loaded, rxe0 on eth0"
rocx_barrier rxe
if [ "$me" -eq 1 ]; then
	timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 100 || fail "rxe RC ping-pong (server)"
else
	sleep 1
	timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 100 "$peer_ip" ||
		fail "rxe RC ping-pong (client)"
fi
t_ok "virtio: rxe RC ping-pong, 100 iterations"
