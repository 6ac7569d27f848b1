# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# iser: the kernel's iSCSI over iSER between rocx guests.  Guests 0 and 1
# run LIO's iSCSI target, each with a RAM-backed LUN on an iSER portal;
# guest 0's ib_isert moves data on SGE lists (ib_core's default on
# RoCE), guest 1's through MRs it fast-registers (ib_core force_mr=1, the
# path iWARP takes).  Guest 2 runs open-iscsi's initiator on the iser
# transport with a session to each; data written, read back and compared,
# from buffers inside a page too, and again after a logout and a new
# login with commands of 2044 KiB (guest/iser.sh).
timeout=420
guest rocx iser.sh ISER_ROLE=target ISER_RW=sge
guest rocx iser.sh ISER_ROLE=target ISER_RW=mr
# Two patterns and a read-back buffer in its tmpfs.
guest rocx,mem=1536 iser.sh ISER_ROLE=initiator

checks() {
	host_check "iser: the model logged no guest errors" no_model_guest_errors \
		"$out/iser/guest0/qemu.log" "$out/iser/guest1/qemu.log" \
		"$out/iser/guest2/qemu.log"
}
