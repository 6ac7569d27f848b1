#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script: rocx_ib goes away while a process holds a user context.
# `rmmod rocx_ib` must not wait for the process: ib_core disassociates the
# context (the process sees IB_EVENT_DEVICE_FATAL and its doorbell mapping
# is revoked), the device's PD and context are freed, and the process can
# still exit cleanly.  Then 20 load/unload cycles with a live context each,
# and a PCI unbind of rocx_core (which removes the auxiliary device) with a
# live context; the kernel log must stay clean.  Run from the host:
#   scripts/run/run-guests.sh --timeout 600 \
#     --guest nic=rocx,cmd=tests/e2e/guest/ib_unload.sh
set -uo pipefail
. "$ROCX_REPO/tests/e2e/guest/lib/ib_lib.sh"

CYCLES=${ROCX_IB_CYCLES:-20}
# Generous for TCG: unregistering is a few admin commands, not a wait.
RMMOD_LIMIT_S=15

hold=$(rib_uctx_hold) || rocx_die "cannot build uctx_hold"

# hold_start TAG - start uctx_hold, wait until it holds a context.
hold_start() {
	rm -f "/tmp/hold.$1.ready"
	"$hold" -r "/tmp/hold.$1.ready" >"/tmp/hold.$1.log" 2>&1 &
	hold_pid=$!
	rib_wait 20 test -s "/tmp/hold.$1.ready"
}

# hold_stop TAG - SIGTERM uctx_hold; it must exit 0 and say "released".
hold_stop() {
	kill -TERM "$hold_pid" 2>/dev/null
	timeout 20 tail --pid="$hold_pid" -f /dev/null
	wait "$hold_pid" && grep -q '^released' "/tmp/hold.$1.log"
}

# timed_rmmod - rmmod rocx_ib within RMMOD_LIMIT_S; prints milliseconds.
timed_rmmod() {
	local t0=$(date +%s%N) rc

	timeout "$RMMOD_LIMIT_S" rmmod rocx_ib
	rc=$?
	echo $((($(date +%s%N) - t0) / 1000000))
	return "$rc"
}

rib_dmesg_mark
rib_load
nd=$(rib_netdev)
ip link set "$nd" up
ip addr add "$ROCX_IP/24" dev "$nd"
rib_wait 20 rib_port_is ACTIVE || rib_bad "port never became ACTIVE"

# ---- One unload with a live context, looked at closely ----
rib_check "uctx_hold holds a context, PD and doorbell page" hold_start first
cat /tmp/hold.first.log
grep -q ' db=' /tmp/hold.first.log || rib_bad "no doorbell mapping reported"
if ms=$(timed_rmmod); then
	rib_ok "rmmod rocx_ib with a live context returned in ${ms} ms"
else
	rib_bad "rmmod rocx_ib with a live context (${ms} ms)"
fi
rib_check "$RIB_DEV is gone" rib_no_dev
rib_check "the process outlived the device" kill -0 "$hold_pid"
rib_check "the process got IBV_EVENT_DEVICE_FATAL" \
	rib_wait 10 grep -q 'event local catastrophic error' /tmp/hold.first.log
rib_check "the process exits cleanly afterwards" hold_stop first
cat /tmp/hold.first.log

# Resources the modules take, to compare after the cycles.
snapshot() {
	echo "msix vectors $(grep -c 'PCI-MSI' /proc/interrupts)"
	echo "netdevs $(ls /sys/class/net | wc -l)"
	echo "ib devices $(ls /sys/class/infiniband 2>/dev/null | wc -l)"
	echo "ib_core refs $(cat /sys/module/ib_core/refcnt)"
	echo "ib_uverbs refs $(cat /sys/module/ib_uverbs/refcnt)"
	echo "uverbs char devs $(ls /dev/infiniband 2>/dev/null | grep -c uverbs)"
}
snapshot >/tmp/res.before

# ---- Load/unload cycles, a live context in each ----
ok=0 worst=0
for ((i = 1; i <= CYCLES; i++)); do
	insmod "$RIB_MODULES/rocx_ib.ko" || { rocx_log "cycle $i: insmod"; break; }
	rib_wait 20 rib_has_dev || { rocx_log "cycle $i: no device"; break; }
	hold_start "c$i" || { rocx_log "cycle $i: no context"; break; }
	ms=$(timed_rmmod) || { rocx_log "cycle $i: rmmod (${ms} ms)"; break; }
	[ "$ms" -gt "$worst" ] && worst=$ms
	hold_stop "c$i" || { rocx_log "cycle $i: holder did not exit"; break; }
	rib_no_dev || { rocx_log "cycle $i: device still there"; break; }
	ok=$i
done
rocx_log "$ok of $CYCLES cycles, slowest rmmod ${worst} ms"
rib_check "$CYCLES load/unload cycles with a live context" [ "$ok" -eq "$CYCLES" ]
snapshot >/tmp/res.after
diff /tmp/res.before /tmp/res.after
rib_check "MSI-X vectors, netdevs, ib devices, module references back to start" \
	cmp -s /tmp/res.before /tmp/res.after

# ---- rocx_core lets go of the PCI function under a live context ----
insmod "$RIB_MODULES/rocx_ib.ko" || rocx_die "insmod rocx_ib"
rib_wait 20 rib_has_dev || rocx_die "no $RIB_DEV"
pci=$(basename "$(readlink -f "/sys/class/infiniband/$RIB_DEV/device")")
drv=$(basename "$(readlink -f "/sys/class/infiniband/$RIB_DEV/device/driver")")
rocx_log "PCI function $pci, driver $drv"
rib_check "uctx_hold holds a context (unbind)" hold_start unbind
rib_check "unbinding $pci from $drv with a live context" \
	timeout "$RMMOD_LIMIT_S" sh -c "echo $pci >/sys/bus/pci/drivers/$drv/unbind"
rib_check "$RIB_DEV is gone after unbind" rib_no_dev
rib_check "the process got IBV_EVENT_DEVICE_FATAL (unbind)" \
	rib_wait 10 grep -q 'event local catastrophic error' /tmp/hold.unbind.log
rib_check "the process exits cleanly (unbind)" hold_stop unbind
echo "$pci" >"/sys/bus/pci/drivers/$drv/bind"
rib_check "$RIB_DEV is back after rebind" rib_wait 20 rib_has_dev
rib_check "rmmod rocx_ib, rocx_core" sh -c "rmmod rocx_ib && rmmod rocx_core"

rib_check "kernel log clean" rib_dmesg_clean
rib_summary
