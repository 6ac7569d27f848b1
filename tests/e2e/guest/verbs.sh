#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the verbs group: load rocx, give the port an IPv4
# address (ROCX_IP) and an IPv6 one (ROCX_IP6, from 2001:2::/48, the IPv6
# benchmarking range, as 198.18.0.0/15 is IPv4's), wait for the three GIDs
# the parts use, then source every tests/e2e/guest/verbs/verbs_*.sh: part
# "wire" first, the others in name order.  A part sees these variables and
# functions:
#   me, peer           this guest's index, the other guest's (or "")
#   ibdev, netdev      the rocx ib_device and its netdev
#   gid_v2 gid_v6 gid_v1
#                      GID indices: RoCE v2 of ROCX_IP, RoCE v2 of
#                      ROCX_IP6, RoCE v1 of ROCX_IP6
#   verbs_py PROG ARGS...
#                      run our check program tests/e2e/guest/verbs/PROG (Python
#                      on pyverbs, importing verbs_lib.py) and count its
#                      TAP lines
#   tool_pair NAME PORT CMD ARGS...
#                      run a client/server tool (ibv_*_pingpong, perftest)
#                      with guest 0 serving and guest 1 calling
#   tool_loop NAME PORT CMD ARGS...
#                      the same, both ends in this guest
# Each part starts and ends at a barrier of its own name, so that a part
# failing in one guest does not leave the other waiting in the next part;
# tool_pair's keys and barriers carry the part's name too.  Parts keep to
# TCP ports of their own hundred (rc 191xx, uc 192xx, atomic 193xx, ud
# 194xx, srq 195xx, ...), since a port still in TIME_WAIT or a server
# still running from one part would meet the next one's client.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

me=$ROCX_GUEST_INDEX
peer=''
[ "$ROCX_NGUESTS" -ge 2 ] && peer=$((1 - me))
ROCX_IP6=2001:2::$((me + 1))
export ROCX_IP6
tool_timeout=300

# ip6_full ADDR - ADDR written out as sysfs shows GIDs.
ip6_full() {
	python3 -c 'import ipaddress, sys
e = ipaddress.IPv6Address(sys.argv[1]).exploded
print(":".join(e.split(":")))' "$1"
}

# verbs_py PROG ARGS... - one of our pyverbs check programs; its TAP lines
# go to the log.
verbs_py() {
	local prog=$1 out=/tmp/verbs_py.$1 rc

	shift
	rdma_env env PYTHONPATH="$ROCX_RDMA/python:$ROCX_REPO/tests/e2e/guest/lib" \
		PYTHONHASHSEED=0 timeout "$tool_timeout" python3 \
		"$ROCX_REPO/tests/e2e/guest/verbs/$prog" "$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		ROCX_FAILED=$((ROCX_FAILED + 1))
		grep -q '^not ok' "$out" ||
			t_not_ok "$prog exited $rc without a failed check"
	fi
	return "$rc"
}

# tool_report RC OUT NAME [PATTERN] - one TAP line for a tool's run: exit
# 0, when given PATTERN found in its output, and no "invalid data" in it:
# the pingpongs' --chk (ibverbs-utils 44) reports a page that arrived
# wrong only by that message, and still exits 0 (guest/rc.sh).
tool_report() {
	local rc=$1 out=$2 name=$3 pat=${4:-}

	if [ "$rc" -eq 0 ] && { [ -z "$pat" ] || grep -qE "$pat" "$out"; } &&
		! grep -q 'invalid data' "$out"; then
		t_ok "$name"
	else
		t_show "$out" "$name"
		if grep -q 'invalid data' "$out"; then
			t_not_ok "$name (exit $rc): invalid data reported"
		else
			t_not_ok "$name (exit $rc)"
		fi
	fi
}

# tool_loop NAME PORT PATTERN CMD ARGS... - server and client in this
# guest on TCP port PORT (CMD must take -p PORT); each side's output must
# match PATTERN (an ERE, or "" for the exit status alone).
tool_loop() {
	local name=$1 port=$2 pat=$3 spid src crc

	shift 3
	rdma_env timeout "$tool_timeout" "$@" -p "$port" >"/tmp/$port.srv" 2>&1 &
	spid=$!
	if ! wait_for 30 roce_port_listening "$port"; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		tool_report 1 "/tmp/$port.srv" "$name: server did not listen"
		return
	fi
	rdma_env timeout "$tool_timeout" "$@" -p "$port" 127.0.0.1 \
		>"/tmp/$port.cli" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	tool_report "$src" "/tmp/$port.srv" "$name, loopback, server" "$pat"
	tool_report "$crc" "/tmp/$port.cli" "$name, loopback, client" "$pat"
}

# tool_pair NAME PORT PATTERN CMD ARGS... - guest 0 serves, guest 1 calls.
tool_pair() {
	local name=$1 port=$2 pat=$3 rc

	shift 3
	[ -n "$peer" ] || return 0
	if [ "$me" -eq 0 ]; then
		rdma_env timeout "$tool_timeout" "$@" -p "$port" \
			>"/tmp/$port.srv" 2>&1 &
		local spid=$!
		wait_for 30 roce_port_listening "$port"
		rocx_put "tool.$name.$port" listening
		wait "$spid"
		rc=$?
		tool_report "$rc" "/tmp/$port.srv" "$name, two guests, server" "$pat"
	else
		rocx_get "tool.$name.$port" >/dev/null
		rdma_env timeout "$tool_timeout" "$@" -p "$port" "$(rocx_ip 0)" \
			>"/tmp/$port.cli" 2>&1
		rc=$?
		tool_report "$rc" "/tmp/$port.cli" "$name, two guests, client" "$pat"
	fi
	rocx_barrier "tool.$name.$port"
}

if roce_up rocx; then
	t_ok "rocx $ROCE_DEV up on $ROCE_NETDEV"
else
	t_not_ok "rocx up: $ROCE_ERR"
	t_done
fi
ibdev=$ROCE_DEV
netdev=$ROCE_NETDEV
gid_v2=$ROCE_GID
ip -6 addr add "$ROCX_IP6/64" dev "$netdev" nodad
full6=$(ip6_full "$ROCX_IP6")
t "RoCE v2 GID of $ROCX_IP6" wait_for 20 gid_of "RoCE v2" "$full6"
t "RoCE v1 GID of $ROCX_IP6" wait_for 20 gid_of "IB/RoCE v1" "$full6"
gid_v6=$(gid_of "RoCE v2" "$full6")
gid_v1=$(gid_of "IB/RoCE v1" "$full6")
export ROCX_IBDEV=$ibdev ROCX_GID_V2=$gid_v2 ROCX_GID_V6=$gid_v6 ROCX_GID_V1=$gid_v1
[ -n "$gid_v6" ] && [ -n "$gid_v1" ] || t_done
rocx_barrier up

# Part "wire" first, the others in name order: the capture's QPN check
# holds every RoCE frame until wire's mark to the QPNs wire records.
partdir=$ROCX_REPO/tests/e2e/guest/verbs
parts=("$partdir/verbs_wire.sh")
for part in "$partdir"/verbs_*.sh; do
	[ "$part" = "${parts[0]}" ] || parts+=("$part")
done
for part in "${parts[@]}"; do
	name=$(basename "$part" .sh)
	case ":${ROCX_VERBS_PARTS:-${name#verbs_}}:" in
	*":${name#verbs_}:"*) ;;
	*) continue ;;
	esac
	rocx_barrier "$name.start"
	rocx_log "part $name"
	# shellcheck source=/dev/null
	. "$part"
	rocx_barrier "$name.end"
done

t "no kernel warnings" dmesg_clean
t_done
