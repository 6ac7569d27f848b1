#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A lab guest's setup (Documentation/lab.rst), run by init.sh, which keeps
# the guest up after it (rocx_stay=1): the host name of its node, the rocx
# modules, each NIC's addresses and PFC, and the guest agent that `rocx
# lab exec` runs commands through.  Reads /rocx-out/lab.conf, written by
# the host:
#   name NODE
#   nic K MAC MODEL ADDRESS/PREFIX...
#   pfc K PRIO...      (NIC K's file gave pfc: PFC on those only)
#   forward            (the node routes: IPv4 and IPv6 forwarding)
#   route TO VIA       (ip route add TO via VIA)
set -euo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
conf=$ROCX_OUT/lab.conf

name=$(awk '$1 == "name" { print $2 }' "$conf")
hostname "$name"
echo "127.0.1.1 $name" >>/etc/hosts
if awk '$1 == "nic" && $4 == "rocx" { f = 1 } END { exit !f }' "$conf"; then
	rocx_load_modules
fi
# What no one else loads here (no udev): the virtio console, whose ports
# the agent and the shell use, and the virtio NIC's driver, modules in
# Debian's 6.1 or a kernel of one's own (built-in ones modprobe knows
# from modules.builtin).
modprobe -q virtio_console || rocx_die "modprobe virtio_console failed"
if awk '$1 == "nic" && $4 == "virtio" { f = 1 } END { exit !f }' "$conf"; then
	modprobe -q virtio_net || rocx_die "modprobe virtio_net failed"
fi

# The NIC with MAC, by its address: names depend on probe order.
netdev_of() {
	local n

	for n in /sys/class/net/*; do
		[ "$(cat "$n/address")" = "$1" ] && { basename "$n"; return 0; }
	done
	return 1
}

declare -A devs
while read -r kind k mac _ addrs; do
	[ "$kind" = nic ] || continue
	wait_for 20 netdev_of "$mac" >/dev/null || rocx_die "nic$k: no netdev with $mac"
	dev=$(netdev_of "$mac")
	devs[$k]=$dev
	ip link set "$dev" up
	for a in $addrs; do
		ip addr add "$a" dev "$dev" nodad
	done
	rocx_log "nic$k: $dev $mac ${addrs:-(no address)}"
done <"$conf"

# PFC as the file says: the NIC sends and honours it on those priorities
# only, and tags their frames with the priority the switch trusts
# (Documentation/driver-ethernet.rst, "Ethernet").
while read -r kind k prios; do
	[ "$kind" = pfc ] || continue
	map=(all:off)
	for p in $prios; do
		map+=("$p:on")
	done
	dcb pfc set dev "${devs[$k]}" prio-pfc "${map[@]}" ||
		rocx_die "nic$k: dcb pfc set dev ${devs[$k]} prio-pfc ${map[*]} failed"
	rocx_log "nic$k: PFC on ${prios:-no priority}"
done <"$conf"

if grep -qx forward "$conf"; then
	sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 ||
		rocx_die "forwarding could not be turned on"
	rocx_log "forwarding IPv4 and IPv6"
fi
while read -r kind to via; do
	[ "$kind" = route ] || continue
	fam=-4
	[[ $via == *:* ]] && fam=-6
	ip "$fam" route add "$to" via "$via" || rocx_die "ip route add $to via $via failed"
	rocx_log "route $to via $via"
done <"$conf"

# The agent's port, by the name QEMU gave it: without udev there is no
# /dev/virtio-ports/ link.
# agent_port - the agent's port's device, once the driver has it.
agent_port() {
	local p

	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = org.qemu.guest_agent.0 ] &&
			[ -e "/dev/${p##*/}" ] && { echo "/dev/${p##*/}"; return 0; }
	done
	return 1
}
wait_for 20 agent_port || rocx_die "no virtio-serial port for the guest agent"
port=$(agent_port)
# Commands run with the self-built rdma-core, whose libibverbs is the one
# the rocx provider is built for.
export LD_LIBRARY_PATH=$ROCX_RDMA/lib
setsid qemu-ga -m virtio-serial -p "$port" -t /run -l "$ROCX_OUT/qga.log" \
	</dev/null >/dev/null 2>&1 3>&- &
rocx_log "agent on $port"

# `rocx lab shell`: a login shell on the shell's console, with hvc0 its
# controlling terminal (job control, Ctrl-C), started again should it
# exit.  Its output is dropped while no one is connected.
if [ -e /dev/hvc0 ]; then
	setsid bash -c 'while :; do
		TERM=xterm setsid -c -w bash -il </dev/hvc0 >/dev/hvc0 2>&1
		sleep 0.5
	done' </dev/null >/dev/null 2>&1 3>&- &
	rocx_log "shell on hvc0"
fi
