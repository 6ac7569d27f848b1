# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # me, kinds, tag: rxe.sh sets them
#
# rdma_cm between rocx and Soft-RoCE: the part of tests/e2e/guest/rxe.sh
# that connects through rdma_cm (ib_cm's MADs on both devices' QP1)
# instead of a TCP exchange.  Sourced by rxe.sh, which uses its me,
# kinds, lg, show, ok and bad, and calls:
#   cm_v1_start   right after both ports are up: the RoCE mode rdma_cm
#                 uses (configfs default_roce_mode) set to RoCE v1 on
#                 the rocx guest, whose rping client then tries the rxe
#                 guest's listener in the background while rxe.sh's
#                 verbs part runs (that part picks its GIDs by index, so
#                 the mode does not touch it)
#   cm_tests      at the end: the v1 attempt must have failed cleanly
#                 (rping exits with RDMA_CM_EVENT_UNREACHABLE once ib_cm
#                 has spent its REQ retries: rxe speaks RoCE v2 only);
#                 the mode back to RoCE v2; then each guest gets the IPv6
#                 address 2001:2::N besides ROCX_IP, and in both
#                 directions (each guest once the server), over RoCE v2
#                 IPv4 and, at the same time, IPv6:
#     - rping -C 1000 -V: every iteration's data verified by rping
#     - ucmatose (RC) and udaddy (UD, SIDR), 10 messages each
#     - IPv4 only, mckey: the server joins the group and receives, the
#       client joins and sends with guest/c/cm_mc_send, which waits for
#       its sends to complete before it leaves (mckey -s does not, and
#       rxe discards what it has not sent when the QP goes); 6.12's
#       rdma_cm joins no IPv6 group over RoCE v2 (cma_iboe_join_multicast
#       returns ENOTSUPP)
#     - IPv4 only, ib_send_bw -R and ib_write_bw -R, the latter's region
#       compared afterwards as in rxe.sh (--mmap) (perftest 4.5's
#       rdma_cm client resolves IPv4 addresses only)
# Two rocx guests (the verbs group's part wire) skip it all: group kverbs
# covers them.
# The host finds the v1 attempt's REQs in the capture
# (host/roce_pcap_check.py v1).  Every tool runs under a timeout.

cm_tmo=${run_s:-120}
cm_dev=$ROCE_DEV
cm_ip6() { echo "2001:2::$(($1 + 1))"; }
cm_v1_port=7399

# cm_gid6_ready - the device has a RoCE v2 GID for this guest's IPv6
# address (rdma_cm resolves to it).
cm_gid6_ready() {
	local port=/sys/class/infiniband/$cm_dev/ports/1 want f

	want=$(printf '2001:0002:0000:0000:0000:0000:0000:%04x' $((me + 1)))
	for f in "$port"/gids/*; do
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] || continue
		[ "$(cat "$port/gid_attrs/types/${f##*/}" 2>/dev/null)" = "RoCE v2" ] &&
			return 0
	done
	return 1
}

# cm_listening ADDR PORT - an rdma_cm id of this guest listens on ADDR
# (- for any: perftest binds the wildcard) and PORT.
cm_listening() {
	local l

	l=$(rdma res show cm_id 2>/dev/null | grep LISTEN) || return 1
	[ "$1" = - ] || l=$(grep -F -- "$1" <<<"$l") || return 1
	grep -qE "[]:.]$2( |$)" <<<"$l"
}

# cm_mc_joined GROUP LOG - rdma_cm joined the IPv4 GROUP on this
# guest's netdev (over RoCE v2 it joins with IGMP once mckey has posted
# its receives) and mckey, whose output is LOG, has its join event: the
# QP is attached to the group only then (librdmacm attaches it while it
# hands the event over), and a datagram before that finds no QP.
cm_mc_joined() {
	ip maddr show dev "$ROCE_NETDEV" | grep -qE "inet +${1//./\\.}( |$)" &&
		grep -q '^mckey: joined' "$2"
}

# cm_run ID WHAT SERVER READY PATTERN SERVER_CMD... -- CLIENT_CMD... -
# run the server on guest SERVER, wait until READY (a command) succeeds,
# then the client on the other guest.  Both sides' exit status and, if
# PATTERN is not empty, their output must be good; the client reports
# one line (WHAT) for both.  ID names the logs and barriers.  Sets
# cm_rc to this guest's status.  With cm_rej_retries=N (perftest -R) a
# pair whose client saw its connection rejected with "invalid service
# ID" runs again, up to N more times: perftest 4.5's race between its
# two connections, which tests/e2e/guest/kverbs.sh (perftest_pair)
# explains; any other failure counts at once.
cm_run() {
	local name=$1 desc=$2 server=$3 ready=$4 pat=$5 log rc peer_rc what
	local try=0 v vf i
	local -a scmd=() ccmd=()

	shift 5
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	log=$(lg "$name")
	: >"$log"
	while :; do
		v=final
		if [ "$me" -eq "$server" ]; then
			echo "# $(date +%T) server: ${scmd[*]}" >>"$log"
			timeout "$cm_tmo" stdbuf -oL "${scmd[@]}" >>"$log" 2>&1 &
			local pid=$!
			# shellcheck disable=SC2086 # READY is a command and its words
			wait_for 30 $ready || echo "# not ready: $ready" >>"$log"
			rocx_put "ready.$name.$try" ok
			if [ "${cm_rej_retries:-0}" -gt 0 ]; then
				# The client's verdict, which ends its run: a server
				# whose client was rejected would wait until cm_tmo.
				vf=$ROCX_SHARED/val.verdict.$name.$try
				for ((i = 0; i < (cm_tmo + 30) * 5; i++)); do
					[ -f "$vf" ] && break
					rocx_check_peers
					sleep 0.2
				done
				v=$(cat "$vf" 2>/dev/null)
				if [ "$v" = retry ]; then
					pkill -P "$pid" 2>/dev/null
					kill "$pid" 2>/dev/null
				fi
			fi
			wait "$pid"
			rc=$?
		else
			rocx_get "ready.$name.$try" >/dev/null || return 1
			echo "# $(date +%T) client: ${ccmd[*]}" >>"$log"
			timeout "$cm_tmo" stdbuf -oL "${ccmd[@]}" >"/tmp/cm_run.$name.out" 2>&1
			rc=$?
			cat "/tmp/cm_run.$name.out" >>"$log"
			[ "$try" -lt "${cm_rej_retries:-0}" ] &&
				perftest_cm_race "$rc" "/tmp/cm_run.$name.out" && v=retry
			[ "${cm_rej_retries:-0}" -gt 0 ] &&
				rocx_put "verdict.$name.$try" "$v"
		fi
		[ "$v" = retry ] || break
		try=$((try + 1))
		echo "# $(date +%T) the client's connection was rejected (invalid service ID): try $((try + 1))" >>"$log"
	done
	echo "# $(date +%T) exit $rc" >>"$log"
	if [ "$rc" -ne 0 ]; then
		# What the device counted (drops among them), its groups and
		# QPs: a lost UD datagram or connection leaves no other trace.
		{
			echo "# state after the failure (guest$me):"
			rdma statistic show link "$cm_dev/1"
			ip maddr show dev "$ROCE_NETDEV"
			rdma res show qp
		} 2>&1 | sed 's/^/#   /' >>"$log"
	fi
	[ "$rc" -eq 0 ] && [ -n "$pat" ] && ! grep -qE "$pat" "$log" && rc=1
	rocx_put "rc.$name.$me" "$rc"
	cm_rc=$rc
	if [ "$me" -ne "$server" ]; then
		peer_rc=$(rocx_get "rc.$name.$server") || return 1
		what="$desc: ${kinds[$me]} guest$me -> ${kinds[$server]} guest$server"
		if [ "$rc" -eq 0 ] && [ "$peer_rc" = 0 ]; then
			ok "$what"
		else
			show "$name"
			bad "$what (client exit $rc, server exit $peer_rc)"
		fi
	fi
	rocx_barrier "$name.end"
}

# cm_seq SERVER FAMILY - the tools with guest SERVER serving, over IPv4
# (FAMILY 4) or IPv6 (6).  Exits with this guest's number of failures:
# run it in a subshell.
cm_seq() {
	local server=$1 fam=$2 sa ca f grp v id port size file name

	if [ "$fam" = 4 ]; then
		sa=$(rocx_ip "$server") ca=$(rocx_ip "$me") f=ip grp=239.1.2.$((3 + server))
	else
		sa=$(cm_ip6 "$server") f=ipv6
	fi
	v="IPv$fam" id=$server.$fam port=$((7300 + 10 * server + 5 * (fam / 6)))

	cm_run "rping.$id" "rping -C 1000 -V, $v" "$server" "cm_listening $sa $port" "" \
		rping -s -a "$sa" -p "$port" -C 1000 -V -S 64 -- \
		rping -c -a "$sa" -p "$port" -C 1000 -V -S 64
	port=$((port + 1))
	cm_run "ucmatose.$id" "ucmatose, $v" "$server" "cm_listening $sa $port" \
		"data transfers complete" \
		ucmatose -b "$sa" -f "$f" -p "$port" -C 10 -- \
		ucmatose -s "$sa" -f "$f" -p "$port" -C 10
	# udaddy's port is fixed; rdma_cm binds it once per address.
	cm_run "udaddy.$id" "udaddy, $v" "$server" "cm_listening $sa 7174" \
		"data transfers complete" \
		udaddy -b "$sa" -f "$f" -C 10 -- \
		udaddy -s "$sa" -f "$f" -C 10
	[ "$fam" = 4 ] || exit "$ROCX_FAILED"

	cm_run "mckey.$id" "mckey, $v group $grp" "$server" \
		"cm_mc_joined $grp $(lg "mckey.$id")" "" \
		mckey -m "$grp" -b "$sa" -C 10 -- \
		"$ROCX_REPO/build/tests/e2e/cm_mc_send" -m "$grp" -b "$ca" -C 10
	port=$((port + 1))
	cm_rej_retries=2 cm_run "send_bw.$id" "ib_send_bw -R, $v" "$server" "cm_listening - $port" "" \
		ib_send_bw -R -d "$cm_dev" -n 200 -s 4096 -p "$port" -- \
		ib_send_bw -R -d "$cm_dev" -n 200 -s 4096 -p "$port" "$sa"
	port=$((port + 1))
	name="ib_write_bw -R, $v" size=65536 file=/tmp/cm_write.$id.buf
	truncate -s $((2 * size + 8192)) "$file"
	cm_rej_retries=2 cm_run "write_bw.$id" "$name" "$server" "cm_listening - $port" "" \
		ib_write_bw -R -F -d "$cm_dev" -n 100 -s "$size" -p "$port" --mmap="$file" -- \
		ib_write_bw -R -F -d "$cm_dev" -n 100 -s "$size" -p "$port" --mmap="$file" "$sa"
	if [ "$me" -ne "$server" ]; then
		cp "$file" "$ROCX_SHARED/cm_write.$id.client"
		rocx_put "cm_write.$id" "$cm_rc"
	elif [ "$(rocx_get "cm_write.$id")" = 0 ] && [ "$cm_rc" -eq 0 ] &&
		cmp -n "$size" -i "0:$size" "$ROCX_SHARED/cm_write.$id.client" "$file"; then
		ok "$name: $size bytes verified at the server"
	else
		bad "$name: $size bytes verified at the server"
	fi
	exit "$ROCX_FAILED"
}

# cm_v1 - this pair is a rocx guest 0 with an rxe guest 1.
cm_v1() {
	[ "${kinds[0]}" = rocx ] && [ "${kinds[1]}" = rxe ]
}

cm_v1_start() {
	cm_v1 || return 0
	if [ "$me" -eq 1 ]; then
		timeout 300 rping -s -a "$(rocx_ip 1)" -p "$cm_v1_port" -C 1 \
			>/tmp/cm_v1.srv 2>&1 &
		cm_v1_pid=$!
		wait_for 30 cm_listening "$(rocx_ip 1)" "$cm_v1_port"
		rocx_put cm_v1.listening ok
		return 0
	fi
	t "$tag: guest0: rdma_cm's default_roce_mode of $cm_dev set to RoCE v1" \
		roce_cm_mode "$cm_dev" "IB/RoCE v1"
	rocx_get cm_v1.listening >/dev/null || return 1
	(
		t0=$(date +%s)
		timeout 200 rping -c -a "$(rocx_ip 1)" -p "$cm_v1_port" -C 1 -V >/tmp/cm_v1.cli 2>&1
		rc=$?
		echo "$(($(date +%s) - t0))" >/tmp/cm_v1.secs
		exit "$rc"
	) &
	cm_v1_pid=$!
}

# cm_v1_check - the RoCE v1 attempt ended in RDMA_CM_EVENT_UNREACHABLE
# (ib_cm's REQ timed out: 16 tries), not in a hang or a connection.
cm_v1_check() {
	local rc

	cm_v1 || return 0
	if [ "$me" -eq 1 ]; then
		rocx_get cm_v1.done >/dev/null
		kill "$cm_v1_pid" 2>/dev/null
		wait "$cm_v1_pid"
		return 0
	fi
	wait "$cm_v1_pid"
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
		grep -q RDMA_CM_EVENT_UNREACHABLE /tmp/cm_v1.cli; then
		ok "rping over RoCE v1 to rxe (RoCE v2 only) fails: RDMA_CM_EVENT_UNREACHABLE after $(cat /tmp/cm_v1.secs) s"
	else
		t_show /tmp/cm_v1.cli
		bad "rping over RoCE v1 to rxe (RoCE v2 only) fails: RDMA_CM_EVENT_UNREACHABLE (exit $rc)"
	fi
	t "$tag: guest0: default_roce_mode back to RoCE v2" roce_cm_mode "$cm_dev" "RoCE v2"
	rocx_put cm_v1.done ok
}

cm_tests() {
	local server p6 r4 r6

	cm_v1_check
	if [ "${kinds[0]}" = rocx ] && [ "${kinds[1]}" = rocx ]; then
		return 0
	fi
	ip -6 addr add "$(cm_ip6 "$me")/64" dev "$ROCE_NETDEV" nodad
	if wait_for 20 cm_gid6_ready; then
		ok "guest$me: RoCE v2 GID for $(cm_ip6 "$me")"
	else
		bad "guest$me: RoCE v2 GID for $(cm_ip6 "$me")"
	fi
	rocx_barrier cm.up
	for server in 0 1; do
		# Each family's tools in a subshell that exits with its
		# failures, counted here.
		# shellcheck disable=SC2030,SC2031
		{
			(ROCX_FAILED=0; cm_seq "$server" 6) &
			p6=$!
			(ROCX_FAILED=0; cm_seq "$server" 4)
			r4=$?
			wait "$p6"
			r6=$?
			ROCX_FAILED=$((ROCX_FAILED + r4 + r6))
		}
		rocx_barrier "cm.$server"
	done
}
