# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # read/set by host/harness.sh
# mixed: the rc group's RC traffic between two kernels, guest 0 on Debian
# 12's own 6.1 (with the modules of `make modules-6.1`), guest 1 on 6.12;
# rc_verbs checks every byte, ibv_rc_pingpong runs with --chk.  Run by the
# 6.1 suite (run.sh --kernel 6.1), whatever its --kernel says.
timeout=600
guest rocx,kernel=6.1 rc.sh
guest rocx,kernel=debian rc.sh

# ran_kernel N KVER - guest N's kernel said it was KVER.
ran_kernel() {
	grep -q "^\[ *[0-9.]*\] Linux version $2 " "$out/mixed/guest$1/dmesg"
}

checks() {
	. scripts/versions.sh
	host_check "mixed: guest 0 ran $ROCX_KVER61" ran_kernel 0 "$ROCX_KVER61"
	host_check "mixed: guest 1 ran $ROCX_KVER" ran_kernel 1 "$ROCX_KVER"
	host_check "mixed: the model logged no guest errors" \
		no_model_guest_errors "$out/mixed/guest0/qemu.log" "$out/mixed/guest1/qemu.log"
}
