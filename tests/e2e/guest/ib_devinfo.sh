#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script: rocx_ib as libibverbs sees it.  Loads rocx_core and rocx_ib,
# sets an address on the port and checks what ibv_devices / ibv_devinfo -v
# (Debian's binaries on the self-built libibverbs and provider) report: the
# device, port state, link layer, the limits it advertises, MTU as the
# netdev MTU changes, RoCE v1 and v2 GIDs of the address, port events on
# link down/up, and that the kernel MAD/CM clients left the device alone.
# Run from the host:
#   scripts/run/run-guests.sh --timeout 300 \
#     --guest nic=rocx,cmd=tests/e2e/guest/ib_devinfo.sh
set -uo pipefail
. "$ROCX_REPO/tests/e2e/guest/lib/ib_lib.sh"

devinfo() {
	timeout 20 ibv_devinfo -v -d "$RIB_DEV" >/tmp/devinfo 2>&1
}

# devinfo_has REGEX - the last ibv_devinfo -v output has a matching line.
devinfo_has() {
	grep -Eq "$1" /tmp/devinfo
}

# mtu_check NETDEV_MTU IB_MTU ENUM
mtu_check() {
	ip link set "$nd" mtu "$1" || { rib_bad "set MTU $1"; return; }
	devinfo
	rib_check "netdev MTU $1: active_mtu $2" \
		devinfo_has "active_mtu:[[:space:]]+$2 \($3\)"
}

rib_dmesg_mark
rib_load
rib_ok "rocx_ib bound, $RIB_DEV registered"
nd=$(rib_netdev)
[ -n "$nd" ] || rocx_die "no netdev under $RIB_DEV's PCI device"
rocx_log "netdev $nd"

ip link set "$nd" up
ip addr add "$ROCX_IP/24" dev "$nd"
rib_check "port ACTIVE after link up" rib_wait 20 rib_port_is ACTIVE

ibv_devices >/tmp/devices 2>&1
cat /tmp/devices
rib_check "ibv_devices lists $RIB_DEV" grep -q "^[[:space:]]*$RIB_DEV[[:space:]]" /tmp/devices

# IPv4 GIDs appear once ib_core has seen the address.
ipv6=$(printf '::ffff:%s' "$ROCX_IP")
ipv4_hex=$(printf '%02x%02x:%02x%02x' ${ROCX_IP//./ })
has_gids() {
	devinfo &&
		devinfo_has "GID\[ *[0-9]+\]:[[:space:]]+$ipv6, RoCE v2" &&
		devinfo_has "GID\[ *[0-9]+\]:[[:space:]]+0000:0000:0000:0000:0000:ffff:$ipv4_hex, RoCE v1"
}
rib_wait 10 has_gids
cat /tmp/devinfo
rib_check "ibv_devinfo runs" devinfo
rib_check "transport InfiniBand" devinfo_has "transport:[[:space:]]+InfiniBand \(0\)"
rib_check "vendor_id 0x1af4" devinfo_has "vendor_id:[[:space:]]+0x1af4"
rib_check "vendor_part_id 4336" devinfo_has "vendor_part_id:[[:space:]]+4336"
rib_check "fw_ver set" devinfo_has "fw_ver:[[:space:]]+[0-9]+\.[0-9]+\.[0-9]+"
rib_check "one port" devinfo_has "phys_port_cnt:[[:space:]]+1"
rib_check "PORT_ACTIVE_EVENT capability" devinfo_has "PORT_ACTIVE_EVENT"
# Only what works is advertised: the model's SRQ limits (256 SRQs of up
# to 4096 entries of 8 SGEs, resizable), regions no larger than one
# page list describes in 4 KiB pages (2^18 - 1 pages), and the page sizes
# a page list takes (rocx's 4 KiB and 2 MiB).
rib_check "max_srq 256, max_srq_wr 4096, max_srq_sge 8" \
	bash -c "grep -Eq 'max_srq:[[:space:]]+256\$' /tmp/devinfo &&
		 grep -Eq 'max_srq_wr:[[:space:]]+4096\$' /tmp/devinfo &&
		 grep -Eq 'max_srq_sge:[[:space:]]+8\$' /tmp/devinfo"
rib_check "SRQ_RESIZE capability" devinfo_has "SRQ_RESIZE"
rib_check "max_mr_size 0x3ffff000 (a page list of 4 KiB pages)" \
	devinfo_has "max_mr_size:[[:space:]]+0x3ffff000\$"
rib_check "page_size_cap 4 KiB and 2 MiB" \
	devinfo_has "page_size_cap:[[:space:]]+0x201000\$"
rib_check "port state PORT_ACTIVE" devinfo_has "state:[[:space:]]+PORT_ACTIVE \(4\)"
rib_check "link_layer Ethernet" devinfo_has "link_layer:[[:space:]]+Ethernet"
rib_check "max_mtu 4096" devinfo_has "max_mtu:[[:space:]]+4096 \(5\)"
rib_check "MTU 1500: active_mtu 1024" devinfo_has "active_mtu:[[:space:]]+1024 \(3\)"
rib_check "phys_state LINK_UP" devinfo_has "phys_state:[[:space:]]+LINK_UP \(5\)"
rib_check "RoCE v2 GID $ipv6" devinfo_has "$ipv6, RoCE v2"
rib_check "RoCE v1 GID of $ROCX_IP" devinfo_has "ffff:$ipv4_hex, RoCE v1"
rib_check "default (link-local) GIDs of both types" \
	bash -c "grep -Eq 'fe80:0000:0000:0000:[0-9a-f:]+, RoCE v1' /tmp/devinfo &&
		 grep -Eq 'fe80::[0-9a-f:]+, RoCE v2' /tmp/devinfo"

mtu_check 1120 1024 3
mtu_check 1119 512 2
mtu_check 4200 4096 5
mtu_check 9000 4096 5
ip link set "$nd" mtu 1500

# rdma tool: the port is bound to the netdev.
rib_check "rdma link shows $nd" bash -c "rdma link show $RIB_DEV/1 | grep -q 'netdev $nd'"

# A kverbs_provider: kernel clients such as ib_umad attach to it too.
umad_on_rocx() {
	grep -qx "$RIB_DEV" /sys/class/infiniband_mad/umad*/ibdev 2>/dev/null
}
rib_check "ib_umad client on $RIB_DEV (kernel verbs)" umad_on_rocx

# Link down and up: ib_core hears PORT_ERR and PORT_ACTIVE from rocx_ib.
hold=$(rib_uctx_hold) || rocx_die "cannot build uctx_hold"
"$hold" -r /tmp/hold.ready >/tmp/hold.log 2>&1 &
hold_pid=$!
rib_check "uctx_hold opened a context, PD and doorbell page" \
	rib_wait 20 test -s /tmp/hold.ready
ip link set "$nd" down
rib_check "port DOWN after link down" rib_wait 20 rib_port_is DOWN
devinfo
rib_check "ibv_devinfo: PORT_DOWN" devinfo_has "state:[[:space:]]+PORT_DOWN \(1\)"
ip link set "$nd" up
rib_check "port ACTIVE after link up again" rib_wait 20 rib_port_is ACTIVE
rib_check "user context saw port error and active events" \
	rib_wait 10 bash -c "grep -q 'event port error' /tmp/hold.log &&
			     grep -q 'event port active' /tmp/hold.log"
kill -TERM "$hold_pid"
wait "$hold_pid"
rib_check "uctx_hold released cleanly" grep -q '^released' /tmp/hold.log
cat /tmp/hold.log

rib_check "kernel log clean" rib_dmesg_clean
rib_summary
