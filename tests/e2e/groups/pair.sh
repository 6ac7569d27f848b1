# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# pair: two rocx guests: module load, link, ping, IPv6 ping, the multicast
# filter (a joined group received, another dropped), a verified TCP transfer,
# MTU 9000, link down/up from the guest and from the host (which takes
# guest 1's link down and up through QEMU's monitor), ethtool (-t online
# and offline too), ibv_devinfo.
timeout=600
host_cmd="bash tests/e2e/host/pair_link.sh"
guest rocx pair.sh
guest rocx pair.sh

checks() {
	# run-guests.sh's own network namespace: a guest's socket holds
	# 1024 datagrams, not Linux's default 10 (Documentation/
	# experiments.rst, "Unread at a guest").
	host_check "pair: the fabric's sockets hold 1024 datagrams" \
		grep -qx max_dgram_qlen=1024 "$out/pair/fabric.txt"
}
