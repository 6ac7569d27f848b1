#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the reset group: the function is reset, unplugged and
# unloaded under live RDMA objects and traffic, and comes back each time.
# Guest 0 has its NIC behind a pcie-root-port (hot-pluggable, with a bus
# reset) and is the one disturbed; guest 1 is its peer.  Guest 0 drives
# QEMU's monitor through tests/e2e/host/monitor.sh.
#
# Guest 0, alone:
#  - event storm: a CQ overflow with 300 QPs on the CQ reaches a process
#    as 299 IBV_EVENT_QP_FATAL and one IBV_EVENT_CQ_ERR, none lost;
#  - admin timeout: with x-aq-stall armed for REG_MR, ibv_reg_mr fails
#    after the 5 s timeout, rocx_core resets the function, the process
#    holding a context, CQ, QP and MR gets IBV_EVENT_DEVICE_FATAL, the
#    stall is over (qom-get -1) and rocx0 is back.
# Then rounds of ib_write_bw from guest 1 to guest 0, each disturbed on
# guest 0 by one of: an FLR through sysfs (a process holding QPs beside),
# device_del (and device_add after), rmmod rocx_ib, and unbinding
# rocx_core then rmmod of both.  Each time guest 1's ib_write_bw must end
# on an error completion, not hang, and a new ib_write_bw must run
# cleanly once guest 0's device is back.  The kernel log stays clean.
#   scripts/run/run-guests.sh --timeout 400 \
#     --host-cmd 'bash tests/e2e/host/monitor.sh' \
#     --guest nic=rocx,rootport=1,cmd=tests/e2e/guest/reset.sh \
#     --guest nic=rocx,cmd=tests/e2e/guest/reset.sh
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"

me=$ROCX_GUEST_INDEX
# Guest 1 waits for guest 0's rounds, which take minutes together.
export ROCX_WAIT=300
prog=$ROCX_REPO/build/tests/e2e/reset
# A disturbed run is long enough never to end by itself first.
bw_args=(-F -m 1024 -s 65536)
bw_long=(-D 60)
bw_short=(-n 200)

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "runs with 2 guests"
[ -x "$prog" ] || rocx_die "no $prog (make -C tests/e2e)"

# check NAME CMD... - as t, but CMD runs in this shell (it may set
# variables or start background jobs); its output goes to the log.
check() {
	local name=$1

	shift
	if "$@"; then
		t_ok "$name"
	else
		t_not_ok "$name"
		return 1
	fi
}

# up - find the netdev and ib_device, configure the address, wait for the
# port and the RoCE v2 GID; sets dev, ibdev, gid.
up() {
	dev=$(rocx_netdev) && ibdev=$(rocx_ibdev) || return 1
	ip link set "$dev" up
	ip addr add "$ROCX_IP/24" dev "$dev" 2>/dev/null
	wait_for 30 grep -q ACTIVE "/sys/class/infiniband/$ibdev/ports/1/state" &&
		wait_for 30 gid_index && gid=$(gid_index)
}

# gid_index - index of the port's RoCE v2 GID of $ROCX_IP.
gid_index() {
	local d=/sys/class/infiniband/$ibdev/ports/1 f i want

	# shellcheck disable=SC2086 # one printf argument per octet
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		${ROCX_IP//./ })
	for f in "$d"/gids/*; do
		i=${f##*/}
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] &&
			[ "$(cat "$d/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "$i"; return 0; }
	done
	return 1
}

# bw ARGS... - ib_write_bw on this guest's device (no output).
bw() {
	rdma_env timeout 120 ib_write_bw -d "$ibdev" -x "$gid" "${bw_args[@]}" "$@"
}

# stat NAME - an `ethtool -S` counter.
stat() {
	ethtool -S "$dev" | awk -v n="$1:" '$1 == n { print $2 }'
}

# resets - "function reset done" lines in the kernel log.
resets() {
	dmesg | grep -c 'function reset done'
}

# ---- guest 1: ib_write_bw clients, one per job guest 0 puts ----
peer() {
	local k=0 job name port mode out rc t0

	while :; do
		job=$(rocx_get "job.$k") || return 1
		read -r name port mode <<<"$job"
		[ "$name" = end ] && return 0
		out=/tmp/bw.$name
		t0=$(date +%s)
		rocx_log "round $name: ib_write_bw client ($mode)"
		if [ "$mode" = disturb ]; then
			bw "${bw_long[@]}" -p "$port" "$(rocx_ip 0)" >"$out" 2>&1 &
			local pid=$!
			sleep 1
			rocx_put "started.$k" 1
			wait "$pid"
			rc=$?
		else
			bw "${bw_short[@]}" -p "$port" "$(rocx_ip 0)" >"$out" 2>&1
			rc=$?
		fi
		sed "s/^/# $name: /" "$out" | tail -n 8
		rocx_put "res.$k" "$rc $(($(date +%s) - t0)) $(grep -c 'Failed status' "$out")"
		k=$((k + 1))
	done
}

# ---- guest 0 ----

job_k=0
# job NAME MODE - give guest 1 its next ib_write_bw client run; the
# server here listens first.  Sets srv_pid.
job() {
	local port=$((18600 + job_k)) run=("${bw_short[@]}")

	[ "$2" = disturb ] && run=("${bw_long[@]}")
	bw "${run[@]}" -p "$port" >"/tmp/bw.srv.$1" 2>&1 &
	srv_pid=$!
	wait_for 30 sh -c "ss -Hltn 'sport = :$port' | grep -q ." ||
		rocx_log "round $1: server not listening"
	rocx_put "job.$job_k" "$1 $port $2"
}

# job_result - wait for guest 1's result of the current job; sets res to
# "RC SECONDS FAILED_STATUS_LINES".  The server is stopped if it still runs.
job_result() {
	res=$(rocx_get "res.$job_k")
	job_k=$((job_k + 1))
	timeout 30 tail --pid="$srv_pid" -f /dev/null || kill "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
}

# verify NAME - a clean ib_write_bw from guest 1 once the device is back.
verify() {
	job "$1" verify
	job_result
	# shellcheck disable=SC2086 # RC SECONDS LINES
	set -- "$1" $res
	if [ "$2" -eq 0 ] && grep -q '65536 ' "/tmp/bw.srv.$1"; then
		t_ok "$1: ib_write_bw runs cleanly again"
	else
		t_show "/tmp/bw.srv.$1"
		t_not_ok "$1: ib_write_bw after the device came back (client rc $2)"
	fi
}

# disturb NAME WHAT ACTION... - while guest 1 writes to us, run ACTION;
# guest 1's ib_write_bw must end on an error completion within 60 s.
disturb() {
	local name=$1 what=$2

	shift 2
	job "$name" disturb
	rocx_get "started.$((job_k))" >/dev/null
	# Traffic flows for a moment first.
	sleep 3
	check "$name: $what" "$@"
	job_result
	# shellcheck disable=SC2086 # RC SECONDS LINES
	set -- $res
	if [ "$1" -ne 0 ] && [ "$3" -gt 0 ] && [ "$2" -lt 60 ]; then
		t_ok "$name: the peer's ib_write_bw ended on an error completion after ${2}s"
	else
		t_not_ok "$name: the peer's ib_write_bw (rc $1, ${2}s, $3 error completions)"
	fi
}

# hold_start TAG - the holder (context, PD, CQ, QP, MR) is ready.
hold_start() {
	rm -f "/tmp/hold.$1.ready"
	# Not through rdma_env: $! must be the program, which takes SIGUSR1.
	LD_LIBRARY_PATH=$ROCX_RDMA/lib "$prog" -d "$ibdev" \
		-r "/tmp/hold.$1.ready" hold >"/tmp/hold.$1.log" 2>&1 &
	hold_pid=$!
	wait_for 20 test -s "/tmp/hold.$1.ready"
}

# hold_stop TAG - SIGTERM; it must exit 0 having released everything.
hold_stop() {
	kill -TERM "$hold_pid" 2>/dev/null
	timeout 20 tail --pid="$hold_pid" -f /dev/null
	wait "$hold_pid" && grep -q '^released' "/tmp/hold.$1.log"
}

got_fatal() {
	grep -q 'event local catastrophic error' "/tmp/hold.$1.log"
}

flr() {
	local pci

	pci=$(basename "$(readlink -f "/sys/class/net/$dev/device")")
	[ "$(cat "/sys/bus/pci/devices/$pci/reset_method")" != "" ] &&
		timeout 30 sh -c "echo 1 >/sys/bus/pci/devices/$pci/reset"
}

unplug() {
	local pci

	pci=$(readlink -f "/sys/class/net/$dev/device")
	mon device_del nic0 >/dev/null &&
		wait_for 30 sh -c "! ls /sys/class/infiniband/rocx* >/dev/null 2>&1" &&
		wait_for 30 test ! -e "$pci"
}

replug() {
	mon "device_add rocx,id=nic0,bus=rp0,netdev=n0,mac=52:54:00:00:00:00" &&
		wait_for 30 rocx_ibdev && up
}

unbind_core() {
	local pci

	pci=$(basename "$(readlink -f "/sys/class/net/$dev/device")")
	timeout 30 sh -c "echo $pci >/sys/bus/pci/drivers/rocx_core/unbind" &&
		rmmod rocx_ib && rmmod rocx_core
}

reload() {
	lsmod | grep -q '^rocx_core ' || insmod "$ROCX_MODDIR/rocx_core.ko" || return 1
	insmod "$ROCX_MODDIR/rocx_ib.ko" && wait_for 30 rocx_ibdev && up
}

kernel_clean() {
	dmesg_clean && ! dmesg | grep -qE 'hung_task|blocked for more'
}

t "load rocx_core and rocx_ib" rocx_load_modules || t_done
check "rocx netdev and ib_device up" up || t_done
rocx_barrier up
if [ "$me" -eq 1 ]; then
	peer || t_not_ok "peer rounds"
	t "no kernel warnings (peer)" kernel_clean
	t_done
fi

# ---- Lost events: a CQ overflow with many QPs on the CQ ----
t "a CQ overflow with 300 QPs: 299 QP_FATAL and 1 CQ_ERR reach the process" \
	rdma_env "$prog" -d "$ibdev" storm 300
t "no event lost on the way (sw_eq_lost_events, hw_eq_overflows 0)" \
	test "$(stat sw_eq_lost_events)$(stat hw_eq_overflows)" = 00

# ---- An admin command that never completes ----
n0=$(resets)
check "holder with a context, CQ, QP and MR" hold_start stall
mon "qom-set /machine/peripheral/nic0 x-aq-stall 32" | sed 's/^/# /'
a=$(mon "qom-get /machine/peripheral/nic0 x-aq-stall" | tr -d '\r\n ')
t "x-aq-stall armed for REG_MR (qom-get: '$a')" test "$a" = 32
kill -USR1 "$hold_pid"
t "ibv_reg_mr returns, failed, after the admin timeout" \
	wait_for 20 grep -q '^reg_mr: failed' /tmp/hold.stall.log
grep '^reg_mr' /tmp/hold.stall.log | sed 's/^/# /'
ms=$(sed -n 's/^reg_mr: failed.* after \([0-9]*\) ms$/\1/p' /tmp/hold.stall.log)
t "  ... not before 5 s (${ms:-?} ms)" test "${ms:-0}" -ge 5000
t "rocx_core reset the device inside the timed-out command" \
	sh -c "dmesg | grep -q 'admin REG_MR.*wrote no completion' &&
		dmesg | grep -q 'stopping and resetting the device'"
t "the function came back (reset path done)" wait_for 30 sh -c "[ \$(dmesg | grep -c 'function reset done') -gt $n0 ]"
t "the holder got IBV_EVENT_DEVICE_FATAL" wait_for 20 got_fatal stall
a=$(mon "qom-get /machine/peripheral/nic0 x-aq-stall" | tr -d '\r\n ')
t "qom-get x-aq-stall: -1 after the reset (got '$a')" test "$a" = -1
check "rocx0 is back, port ACTIVE" up
check "the holder exits cleanly" hold_stop stall
check "a new process holds a context, CQ, QP and MR" hold_start after
check "  ... and releases them" hold_stop after
t "sw_function_resets counts it" test "$(stat sw_function_resets)" -ge 1
t "ping the peer" ping -c 2 -W 5 "$(rocx_ip 1)"

# ---- Traffic, disturbed four ways ----
verify first
n0=$(resets)
check "flr: holder with a context, CQ, QP and MR" hold_start flr
disturb flr "FLR through sysfs with a process holding QPs" flr
t "flr: the function came back" wait_for 30 sh -c "[ \$(dmesg | grep -c 'function reset done') -gt $n0 ]"
t "flr: the holder got IBV_EVENT_DEVICE_FATAL" wait_for 20 got_fatal flr
check "flr: the holder exits cleanly" hold_stop flr
check "flr: rocx0 back, port ACTIVE" up
verify flr-after

disturb unplug "device_del through the monitor (hot unplug)" unplug
check "unplug: device_add brings it back" replug
verify unplug-after

disturb rmmod-ib "rmmod rocx_ib" timeout 30 rmmod rocx_ib
check "rmmod-ib: insmod rocx_ib" reload
verify rmmod-ib-after

disturb rmmod-core "unbind rocx_core, rmmod rocx_ib and rocx_core" unbind_core
check "rmmod-core: insmod both" reload
verify rmmod-core-after

rocx_put "job.$job_k" "end 0 none"
t "no kernel warnings, no hung task" kernel_clean
t_done
