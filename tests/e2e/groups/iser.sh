# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/lib.sh
# iser: the kernel's iSCSI over iSER between two rocx guests.  Guest 0
# runs LIO's iSCSI target with a RAM-backed LUN on an iSER portal, guest 1
# open-iscsi's initiator on the iser transport; data written, read back
# and compared, again after a logout and a new login (guest/iser.sh).
timeout=300
guest rocx iser.sh
guest rocx iser.sh

checks() {
	host_check "iser: the model logged no guest errors" \
		no_model_guest_errors "$out/iser/guest0/qemu.log" "$out/iser/guest1/qemu.log"
}
