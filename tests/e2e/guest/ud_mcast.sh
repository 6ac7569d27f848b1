#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the mcast group: three rocx guests on one fabric.  Load
# rocx, address the port (198.18.0.N and 2001:2::N, as guest/verbs.sh
# does), then run ud_mcast (guest/c/ud_mcast.c) once per GID kind: a group
# send from guest 0 reaches guest 1 and guest 0's own attached QPs, never
# guest 2, loopback blocked when asked, nothing after a detach; guest 2
# then provokes the device's refusals.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

me=$ROCX_GUEST_INDEX
ip6=2001:2::$((me + 1))
prog=$ROCX_REPO/build/tests/e2e/ud_mcast

if roce_up rocx; then
	t_ok "rocx $ROCE_DEV up on $ROCE_NETDEV"
else
	t_not_ok "rocx up: $ROCE_ERR"
	t_done
fi
ibdev=$ROCE_DEV
ip -6 addr add "$ip6/64" dev "$ROCE_NETDEV" nodad
full6=$(python3 -c 'import ipaddress, sys
print(ipaddress.IPv6Address(sys.argv[1]).exploded)' "$ip6")
t "RoCE v2 GID of $ip6" wait_for 20 gid_of "RoCE v2" "$full6"
t "RoCE v1 GID of $ip6" wait_for 20 gid_of "IB/RoCE v1" "$full6"
declare -A gid=([v2]=$ROCE_GID [v6]=$(gid_of "RoCE v2" "$full6")
		[v1]=$(gid_of "IB/RoCE v1" "$full6"))
rocx_barrier up

for kind in v2 v6 v1; do
	extra=()
	[ "$kind" = v2 ] && extra=(-e)
	[ -n "${gid[$kind]}" ] || { t_not_ok "no $kind GID"; continue; }
	rdma_env timeout 120 "$prog" -d "$ibdev" -k "$kind" -g "${gid[$kind]}" \
		"${extra[@]}" 2>&1 | tee "/tmp/ud_mcast.$kind"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		grep -q '^not ok' "/tmp/ud_mcast.$kind" ||
			t_not_ok "ud_mcast $kind exited $rc without a failed check"
		ROCX_FAILED=$((ROCX_FAILED + 1))
	fi
	rocx_barrier "kind.$kind"
done

t "no kernel warnings" dmesg_clean
t_done
