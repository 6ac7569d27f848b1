#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script: RC traffic through the rocx provider's kernel-bypass data
# path.  With one guest: the verbs test program's control-path checks and
# its data checks between two QPs of the device (looped back inside it),
# and Debian's ibv_rc_pingpong between two processes of the guest.  With
# two guests, in addition: the data checks and ibv_rc_pingpong between
# the guests.  In guest 0, rc_churn creates and destroys QPs and CQs
# from several threads and processes while traffic runs, and checks that
# a QP given a just-freed qpn gets all its completions.  ibv_rc_pingpong runs at path MTU 1024 and 4096 (netdev MTU
# 9000) with messages of 1 B, 4 KiB and 1 MiB, with --chk and once with
# --events.  Then the netdev MTU drops under QPs at path MTU 4096, which
# must fail.  Last, rocx_ib is removed while a process holds QPs, CQs and
# MRs.
#
# --chk (-c) in ibverbs-utils 44: the client zeroes the first byte of
# every page it sends, the server, whose buffer starts filled with 0x7b,
# prints "invalid data in page N" for a page whose first byte is not 0
# after the last exchange; the exit status does not change, so this
# script looks for the message.  rocx_verbs_test checks every byte.
#
# On a device without the RDMA transport objects (contract 1.0, which
# reports max_mr 0) the control-path checks expect EOPNOTSUPP and the
# traffic checks are skipped; one that reports MRs and refuses them
# fails.  Run from the host:
#   scripts/run/run-guests.sh --timeout 900 \
#     --guest nic=rocx,cmd=tests/e2e/guest/rc.sh \
#     [--guest nic=rocx,cmd=tests/e2e/guest/rc.sh]
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"

me=$ROCX_GUEST_INDEX
verbs=$ROCX_REPO/build/tests/e2e/rc_verbs
churn=$ROCX_REPO/build/tests/e2e/rc_churn
pp_timeout=300

[ "$ROCX_NGUESTS" -le 2 ] || rocx_die "runs with 1 or 2 guests"
[ -x "$verbs" ] || rocx_die "no $verbs (make -C tests/e2e)"
[ -x "$churn" ] || rocx_die "no $churn (make -C tests/e2e)"

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

# run_verbs NAME ARGS... - the verbs test program; its TAP lines go to
# the log as they are.
run_verbs() {
	local name=$1 out rc

	shift
	out=/tmp/verbs.$name
	rdma_env timeout 600 "$verbs" -d "$ibdev" "$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		ROCX_FAILED=$((ROCX_FAILED + 1))
		grep -q '^not ok' "$out" ||
			t_not_ok "verbs: $name exited $rc without a failed check"
	fi
	return "$rc"
}

# run_churn NAME ARGS... - the churn program, as run_verbs.
run_churn() {
	local name=$1 out rc

	shift
	out=/tmp/churn.$name
	rdma_env timeout 300 "$churn" -d "$ibdev" "$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		ROCX_FAILED=$((ROCX_FAILED + 1))
		grep -q '^not ok' "$out" ||
			t_not_ok "churn: $name exited $rc without a failed check"
	fi
	return "$rc"
}

# set_mtu MTU - both guests at netdev MTU MTU, link up again.
set_mtu() {
	ip link set "$dev" mtu "$1" || return 1
	wait_for 20 carrier_is "$dev" 1 || return 1
	wait_for 20 sh -c "grep -q ACTIVE /sys/class/infiniband/$ibdev/ports/1/state"
}

# pp_check OUT - a pingpong run's output shows a finished, intact exchange.
pp_check() {
	grep -q 'bytes in .* seconds' "$1" && ! grep -q 'invalid data' "$1"
}

pp_report() {
	local rc=$1 out=$2 name=$3

	if [ "$rc" -eq 0 ] && pp_check "$out"; then
		t_ok "ibv_rc_pingpong $name ($(grep -o '[0-9.]* Mbit/sec' "$out" | head -n 1))"
	else
		t_show "$out" "$name"
		t_not_ok "ibv_rc_pingpong $name (exit $rc)"
	fi
}

# pp_args SIZE ITERS MTU - arguments of both sides.
pp_args() {
	echo "-d $ibdev -g $gid -s $1 -n $2 -m $3 -r 64 -c"
}

# pp_loop NAME PORT SIZE ITERS MTU [EXTRA] - server and client in this guest.
pp_loop() {
	local name=$1 port=$2 args spid src crc

	args="$(pp_args "$3" "$4" "$5") -p $port ${6:-}"
	# shellcheck disable=SC2086
	rdma_env timeout "$pp_timeout" ibv_rc_pingpong $args \
		>/tmp/pp.srv 2>&1 &
	spid=$!
	if ! wait_for 30 sh -c "ss -Hltn 'sport = :$port' | grep -q ."; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		pp_report 1 /tmp/pp.srv "loopback $name: server did not listen"
		return
	fi
	# shellcheck disable=SC2086
	rdma_env timeout "$pp_timeout" ibv_rc_pingpong $args 127.0.0.1 \
		>/tmp/pp.cli 2>&1
	crc=$?
	wait "$spid"
	src=$?
	pp_report "$src" /tmp/pp.srv "loopback $name, server"
	pp_report "$crc" /tmp/pp.cli "loopback $name, client"
}

# pp_pair NAME PORT SIZE ITERS MTU [EXTRA] - guest 0 serves, guest 1 calls.
pp_pair() {
	local name=$1 port=$2 args rc

	args="$(pp_args "$3" "$4" "$5") -p $port ${6:-}"
	if [ "$me" -eq 0 ]; then
		# shellcheck disable=SC2086
		rdma_env timeout "$pp_timeout" ibv_rc_pingpong $args \
			>/tmp/pp.srv 2>&1 &
		local spid=$!
		wait_for 30 sh -c "ss -Hltn 'sport = :$port' | grep -q ."
		rocx_put "pp.$name" listening
		wait "$spid"
		rc=$?
		pp_report "$rc" /tmp/pp.srv "two guests $name, server"
	else
		rocx_get "pp.$name" >/dev/null
		# shellcheck disable=SC2086
		rdma_env timeout "$pp_timeout" ibv_rc_pingpong $args \
			"$(rocx_ip 0)" >/tmp/pp.cli 2>&1
		rc=$?
		pp_report "$rc" /tmp/pp.cli "two guests $name, client"
	fi
	rocx_barrier "pp.$name"
}

# flow_ran RC LOG - rc_flow exited 0 and its summary counts messages.
flow_ran() {
	cat "$2"
	[ "$1" -eq 0 ] && grep -q '"summary": true, .*"messages": [1-9]' "$2"
}

# flow_pair - rc_flow (the experiments' verified WRITE flow) for 2 s from
# guest 1 to guest 0, then once with a damaged message the receiver must
# reject, so the check is known to work.
flow_pair() {
	local f=$ROCX_REPO/build/tests/e2e/rc_flow o=$ROCX_OUT/flow

	if [ "$me" -eq 0 ]; then
		rdma_env timeout 60 "$f" -S -d "$ibdev" -g "$gid" -p 18701 \
			-n pair >"$o.pair" 2>&1
		t "rc_flow: 2 s of WRITEs, every byte checked" flow_ran $? "$o.pair"
		rdma_env timeout 60 "$f" -S -d "$ibdev" -g "$gid" -p 18702 \
			-n damaged >"$o.damaged" 2>&1
		t "rc_flow: a damaged message is found" \
			grep -q "message 5: bad data at byte" "$o.damaged"
	else
		rdma_env timeout 60 "$f" -C "$(rocx_ip 0)" -d "$ibdev" \
			-g "$gid" -p 18701 -t 2 -n pair >"$o.pair" 2>&1
		t "rc_flow: sender ran to its end" flow_ran $? "$o.pair"
		# No credit comes back after message 5: the sender stalls, and fails.
		rdma_env timeout 60 "$f" -C "$(rocx_ip 0)" -d "$ibdev" -g "$gid" \
			-p 18702 -t 2 -x 3 -K 5 -n damaged >"$o.damaged" 2>&1
		t "rc_flow: sender of a damaged message fails" test $? -eq 1
	fi
	rocx_barrier flow
}

t "load rocx_core and rocx_ib" rocx_load_modules || t_done
dev=$(rocx_netdev)
ibdev=$(rocx_ibdev)
t "rocx netdev and ib_device ($dev, $ibdev)" test -n "$dev" -a -n "$ibdev" ||
	t_done
ip link set "$dev" up
ip addr add "$ROCX_IP/24" dev "$dev"
t "carrier up" wait_for 20 carrier_is "$dev" 1
wait_for 20 gid_index >/dev/null
gid=$(gid_index)
t "RoCE v2 GID of $ROCX_IP (index ${gid:-none})" test -n "$gid" || t_done
rocx_barrier up

if [ "$me" -eq 0 ]; then
	run_verbs ctrl -c
fi
# Every guest finds out for itself whether the device moves data.
if rdma_env "$verbs" -d "$ibdev" -c 2>/dev/null | grep -q 'contract 1.0 device'; then
	t_ok "traffic checks # SKIP contract 1.0 device: no transport objects"
	t "no kernel warnings" dmesg_clean
	t_done
fi

if [ "$me" -eq 0 ]; then
	run_verbs loopback -L
	run_churn reuse -R
	run_churn churn -P 3 -T 3 -s 30
	pp_loop "1 B, MTU 1024" 19001 1 200 1024
	pp_loop "4 KiB, MTU 1024" 19002 4096 200 1024
	pp_loop "1 MiB, MTU 1024" 19003 1048576 10 1024
	pp_loop "4 KiB, MTU 1024, events" 19004 4096 100 1024 -e
fi

if [ "$ROCX_NGUESTS" -eq 2 ]; then
	rocx_barrier pair
	if [ "$me" -eq 0 ]; then
		run_verbs server -S -p 18600
	else
		run_verbs client -C "$(rocx_ip 0)" -p 18600
	fi
	rocx_barrier verbs-pair
	flow_pair
	pp_pair 1b-1024 19011 1 200 1024
	pp_pair 4k-1024 19012 4096 200 1024
	pp_pair 1m-1024 19013 1048576 10 1024
fi

# Path MTU 4096 needs a netdev MTU of at least 4096 + RoCE headers.
rocx_barrier mtu
t "netdev MTU 9000" set_mtu 9000
rocx_barrier mtu9000
if [ "$me" -eq 0 ]; then
	pp_loop "1 B, MTU 4096" 19021 1 200 4096
	pp_loop "4 KiB, MTU 4096" 19022 4096 200 4096
	pp_loop "1 MiB, MTU 4096" 19023 1048576 10 4096
fi
if [ "$ROCX_NGUESTS" -eq 2 ]; then
	rocx_barrier pair4096
	pp_pair 1b-4096 19031 1 200 4096
	pp_pair 4k-4096 19032 4096 200 4096
	pp_pair 1m-4096 19033 1048576 10 4096
fi

# QPs at path MTU 4096 while the netdev MTU drops to 1500, too small for
# it: the device ends them (QP_FATAL), and refuses a new one that path MTU.
# (Started directly, so that $! is its PID; its TAP lines count.)
if [ "$me" -eq 0 ]; then
	LD_LIBRARY_PATH=$ROCX_RDMA/lib "$verbs" -d "$ibdev" -M -m 4096 \
		>/tmp/mtu.log 2>&1 &
	mtu_pid=$!
	if t "QPs at path MTU 4096" \
		wait_for 60 grep -q '^# mtu holding' /tmp/mtu.log; then
		t "netdev MTU 1500 under them" ip link set "$dev" mtu 1500
		kill -USR1 "$mtu_pid"
	else
		kill "$mtu_pid" 2>/dev/null
	fi
	wait "$mtu_pid"
	rc=$?
	cat /tmp/mtu.log
	if [ "$rc" -ne 0 ]; then
		ROCX_FAILED=$((ROCX_FAILED + 1))
		grep -q '^not ok' /tmp/mtu.log ||
			t_not_ok "verbs: mtu exited $rc without a failed check"
	fi
	t "rocx_ib logged the path MTU failure" sh -c \
		"dmesg | grep -q 'path MTU no longer fits'"
	set_mtu 9000
fi

# A process holds connected QPs, CQs and MRs while rocx_ib goes away:
# ib_core destroys them through the driver, and the process survives.
# (Started directly, not through a function, so that $! is its PID.)
LD_LIBRARY_PATH=$ROCX_RDMA/lib "$verbs" -d "$ibdev" -H >/tmp/hold.log 2>&1 &
hold=$!
if t "a process holds QPs, CQs and MRs" \
	wait_for 60 grep -q '^# holding' /tmp/hold.log; then
	t "rmmod rocx_ib with the objects held" rmmod rocx_ib
	kill -USR1 "$hold"
	wait "$hold"
	rc=$?
	sed 's/^/# /' /tmp/hold.log
	if [ "$rc" -eq 0 ]; then
		t_ok "the holder used and released them afterwards"
	else
		t_not_ok "the holder used and released them afterwards (exit $rc)"
	fi
	t "rocx_ib loads again" insmod "$ROCX_MODDIR/rocx_ib.ko"
	t "rocx_ib registers again" wait_for 20 rocx_ibdev
else
	kill "$hold" 2>/dev/null
	sed 's/^/# /' /tmp/hold.log
fi

t "no kernel warnings" dmesg_clean
t "no rocx command failures in the kernel log" sh -c \
	"! dmesg | grep -v 'module verification' | grep -E 'rocx.*(failed|leaking)'"
t_done
