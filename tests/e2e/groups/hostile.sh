# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# hostile: with rocx_core unbound, guest 0 writes garbage to every register
# and doorbell (guest/c/hostile.c); the model must stay up, log the guest
# errors, and the port must work once the driver binds again (guest 1 is
# the peer it pings).
timeout=400
guest rocx hostile.sh
guest rocx hostile.sh

checks() {
	host_check "hostile: QEMU logged the guest errors" \
		model_guest_errors "$out/hostile/guest0/qemu.log"
}
