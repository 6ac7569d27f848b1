# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# dcb: the driver's DCB through the standard tools, between two rocx
# guests: `dcb pfc/ets/app/apptrust set/show` (every show read back from
# the device by QUERY_DCB), refused inputs, `ethtool -a/-A` and pause
# statistics, and `ethtool -S` per-priority counters that move with
# traffic classified by the DSCP table, and a PFC XOFF from the switch
# (guest/lib/switch_lib.sh) counted in rx_prio3_pause; then guest 0's
# function is reset (its NIC behind a root port, as in group reset) and
# the device gets the kernel's DSCP app entries back.  Ethernet by traffic
# class: a TX queue per class chosen by skb priority and the ETS table,
# priority tagging of Ethernet (by the driver) and RoCE (by the device)
# frames, and UD sends whose AV the process forged to another VLAN leaving
# on their GID's (guest/c/ud_vlan.c), checked in the capture
# (host/prio_tag_check.sh).  RC, UD and rdma_cm between VLAN netdevs'
# GIDs, each frame on the VLAN with its priority's PCP in the capture
# (host/vlan_check.sh).  ETS shares and a class's maxrate measured from
# the switch's per-priority transmit bytes (host/ets_check.py), guest 0's
# line at 20 Mb/s for that (which keeps that traffic's capture small).
# Pause sent by rocx: guest 1 stops taking frames under guest 0's burst,
# and its device sends PFC, then 802.3x PAUSE, which guest 0's device
# honours; the capture decoded by tshark shows them from guest 1's rocx
# MAC (host/pause_check.sh).
timeout=300
capture=1
host_cmd="bash tests/e2e/host/switch_ctl.sh"
guest rocx:speed=20,rootport=1 dcb.sh
guest rocx dcb.sh

checks() {
	host_check "dcb: capture: priority tagging of Ethernet and RoCE frames" \
		tests/e2e/host/prio_tag_check.sh "$out/dcb/fabric.pcap" 198.18.0.1 198.18.0.2
	host_check "dcb: capture: PFC and 802.3x PAUSE from guest 1's rocx MAC" \
		tests/e2e/host/pause_check.sh "$out/dcb/fabric.pcap" 52:54:00:00:00:01
	host_check "dcb: capture: RoCE v2, UD, CM MADs and UDP on VLAN 30 with their PCPs" \
		tests/e2e/host/vlan_check.sh "$out/dcb/fabric.pcap"
	host_check "dcb: switch counters: ETS shares 50/30/20" \
		tests/e2e/host/ets_check.py "$out/dcb/switch-ctl.log" shares
	host_check "dcb: switch counters: class 3 at its maxrate, the rest by share" \
		tests/e2e/host/ets_check.py "$out/dcb/switch-ctl.log" maxrate
	host_check "dcb: the model logged no guest errors" \
		no_model_guest_errors "$out/dcb/guest0/qemu.log" "$out/dcb/guest1/qemu.log"
}
