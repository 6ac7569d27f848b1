#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script: rocx talks RoCE v2 with Soft-RoCE.  Guest 0 has a rocx NIC
# (or, with ROCX_INTEROP_KIND=rxe, a virtio-net NIC with rxe: both sides
# rxe, which proves the script and the host's capture checks), guest 1 a
# virtio-net NIC with rxe, on one rocx-switch.  In both directions (each
# guest once the server, once the client):
#   - ibv_rc_pingpong, 16 KiB messages at path MTU 1024, with --chk
#   - ib_write_bw and ib_read_bw, 64 KiB and 5000 B messages, every byte
#     of the transferred region compared afterwards (below)
#   - rocx_verbs_test -C against -S, if built (one line per direction;
#     see below for what rxe fails of it by design)
#   - rdma_cm's tools over IPv4 and IPv6, and RoCE v1 refused by rxe
#     (tests/e2e/guest/parts/rxe_cm.sh)
# Each guest writes the QP numbers it used to /rocx-out/qpns ("IP QPN" per
# line) for the host's check of the capture (tests/e2e/host/roce_pcap_check.py,
# run by tests/e2e/run.sh group "rxe").
#
# --chk (-c) of ibv_rc_pingpong (ibverbs-utils 44) only compares the first
# byte of each page and reports a bad one on stdout without failing: the
# script looks for "invalid data".
#
# perftest cannot check data, but with --mmap=FILE its buffer is a shared
# mapping of FILE, which keeps what the run left in it.  perftest fills its
# buffer with rand() after registering it; for messages above 2 KiB every
# write (read) moves bytes [0, S) of the client's buffer to (from) bytes
# [B, B + S) of the server's, with B = max(S, 4096) (perftest's BUFF_SIZE
# with a 4 KiB page).  So after a run the two files agree there.  Were the
# data not moved, they would differ even if both sides seeded rand() alike:
# the client's bytes then come from offset 0 of the random stream, the
# server's from offset B.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

me=$ROCX_GUEST_INDEX
# ROCX_INTEROP_KIND / ROCX_INTEROP_PEER_KIND choose guest 0's / guest 1's
# NIC (rocx or rxe); the verbs group's part wire runs rocx on both sides.
kind=${ROCX_INTEROP_PEER_KIND:-rxe}
[ "$me" -eq 0 ] && kind=${ROCX_INTEROP_KIND:-rocx}
verbs=$ROCX_REPO/build/tests/e2e/rc_verbs
run_s=120
qpns=$ROCX_OUT/qpns
# Debian's tools on the self-built libibverbs (rocx and rxe providers).
export LD_LIBRARY_PATH=$ROCX_RDMA/lib

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "needs exactly 2 guests"
: >"$qpns"

tag=${ROCX_INTEROP_TAG:-rxe}
ok() { t_ok "$tag: $*"; }
bad() { t_not_ok "$tag: $*"; }

roce_up "$kind" || { bad "$kind NIC up with a RoCE v2 GID: $ROCE_ERR"; exit 1; }
ok "guest$me: $kind $ROCE_DEV on $ROCE_NETDEV, RoCE v2 GID index $ROCE_GID"
rocx_put "kind.$me" "$kind"
rocx_put "rd_atom.$me" "$(roce_rd_atom "$ROCE_DEV")"
kinds=("$(rocx_get kind.0)" "$(rocx_get kind.1)") || exit 1
rd_atom=$(printf '%s\n' "$(rocx_get rd_atom.0)" "$(rocx_get rd_atom.1)" | sort -n | head -n 1)
[[ $rd_atom =~ ^[1-9][0-9]*$ ]] || rocx_die "no max_qp_rd_atom from ibv_devinfo"
rocx_barrier up
# shellcheck source=tests/e2e/guest/parts/rxe_cm.sh
. "$ROCX_REPO/tests/e2e/guest/parts/rxe_cm.sh"
cm_v1_start

# note_qpns LOG - record the local QPN(s) a tool printed.
note_qpns() {
	grep -aoE 'local address:.*QPN 0x[0-9a-fA-F]+' "$1" |
		sed -E "s/.*QPN (0x[0-9a-fA-F]+)/$ROCX_IP \1/" >>"$qpns"
}

# show NAME - a failed run's last words on both sides, as TAP comments.
show() {
	local g

	for g in 0 1; do
		echo "# guest$g:"
		tail -n 8 "$(lg "$1" "$g")" | sed 's/^/#   /'
	done
}

# lg NAME [GUEST] - the log of NAME's run on GUEST (default: this one),
# in /rocx-shared: both guests read both sides', the host keeps them.
lg() {
	echo "$ROCX_SHARED/$1.guest${2:-$me}.log"
}

# pair NAME SERVER SERVER_CMD... -- CLIENT_CMD... - run a server, which
# listens on TCP port $port, on guest SERVER and the client on the other
# guest (the server's address appended); each side's output in its
# "lg NAME".  Returns the status of this guest's side; on the client,
# non-zero also when the server failed.
pair() {
	local name=$1 server=$2 log rc srv_rc
	local -a scmd=() ccmd=()

	log=$(lg "$name")
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	if [ "$me" -eq "$server" ]; then
		timeout "$run_s" "${scmd[@]}" >"$log" 2>&1 &
		local pid=$!
		if ! wait_for 20 roce_port_listening "$port"; then
			wait "$pid"
			rc=$?
			rocx_put "listen.$name" fail
			rocx_put "srv.$name" "$rc"
			return "$rc"
		fi
		rocx_put "listen.$name" ok
		wait "$pid"
		rc=$?
		rocx_put "srv.$name" "$rc"
	else
		[ "$(rocx_get "listen.$name")" = ok ] || return 1
		timeout "$run_s" "${ccmd[@]}" "$(rocx_ip "$server")" >"$log" 2>&1
		rc=$?
		srv_rc=$(rocx_get "srv.$name") || return 1
		[ "$srv_rc" = 0 ] || echo "server exit $srv_rc" >>"$log"
		[ "$rc" -ne 0 ] || [ "$srv_rc" = 0 ] || rc=1
	fi
	note_qpns "$log"
	return "$rc"
}

# Both directions: guest 0 serves first, then guest 1.
port=18515
for server in 0 1; do
	client=$((1 - server))
	dir="${kinds[$client]} guest$client -> ${kinds[$server]} guest$server"

	# RC SEND/RECV, 16 KiB (16 packets of 1 KiB).
	port=$((port + 1))
	name=pp.$server
	pp=(ibv_rc_pingpong -d "$ROCE_DEV" -g "$ROCE_GID" -m 1024 -s 16384 -n 200 -c -p "$port")
	pair "$name" "$server" "${pp[@]}" -- "${pp[@]}"
	rc=$?
	if [ "$me" -eq "$server" ]; then
		if [ "$rc" -eq 0 ] && ! grep -q 'invalid data' "$(lg "$name")" &&
			grep -q 'bytes in' "$(lg "$name")"; then
			ok "ibv_rc_pingpong $dir: 200 x 16 KiB, --chk clean"
			grep 'bytes in' "$(lg "$name")" | sed 's/^/# /'
		else
			show "$name"
			bad "ibv_rc_pingpong $dir: 200 x 16 KiB, --chk clean (exit $rc)"
		fi
	fi
	rocx_barrier "$name"

	# RDMA WRITE and READ, bytes verified.
	for tool in ib_write_bw ib_read_bw; do
		for size in 65536 5000; do
			port=$((port + 1))
			name=${tool#ib_}.$size.$server
			file=/tmp/$name.buf
			base=$((size > 4096 ? size : 4096))
			truncate -s $((2 * base + 8192)) "$file"
			pb=(-F -d "$ROCE_DEV" -x "$ROCE_GID" -m 1024 -p "$port" -s "$size" -n 100
			    --mmap="$file")
			# READs in flight: what both devices allow (roce_rd_atom).
			[ "$tool" = ib_read_bw ] && pb+=(-o "$rd_atom")
			pair "$name" "$server" "$tool" "${pb[@]}" -- "$tool" "${pb[@]}"
			rc=$?
			what="$tool $dir: 100 x $size B"
			at=server
			[ "$tool" = ib_read_bw ] && at=client
			if [ "$me" -eq "$client" ]; then
				cp "$file" "$ROCX_SHARED/$name.client"
				rocx_put "client.$name" "$rc"
				continue
			fi
			crc=$(rocx_get "client.$name") || exit 1
			if [ "$rc" -ne 0 ] || [ "$crc" != 0 ]; then
				show "$name"
				bad "$what (server exit $rc, client exit $crc)"
			elif cmp -n "$size" -i "0:$base" "$ROCX_SHARED/$name.client" "$file"; then
				ok "$what, $size bytes verified at the $at"
				grep -A1 '#bytes' "$(lg "$name")" | tail -n 1 | sed 's/^/# /'
			else
				bad "$what: data differ (client [0, $size) vs server [$base, $((base + size))))"
			fi
		done
	done
	rocx_barrier "perftest.$server"
done

# The verbs test program's data checks (every byte), if it is built; one
# line here per direction, its own lines as comments.  It destroys QPs
# under traffic and does not print its QPNs: guest 0 marks the capture
# first, and the host checks QPNs only up to the mark.
# Checks it makes that rxe fails by design, not by a wire fault:
#   when rxe runs -C (the checks are of the local device):
#     "full SQ refuses post_send": rxe makes queues deeper than asked,
#       which verbs allow; the surplus WRs' completions then come first
#       in "req_notify_cq: the completion raises a channel event"
#     "IBV_EVENT_QP_FATAL for the QP using it" (a CQ overrun): rxe raises
#       the CQ's error event only
#   when rxe runs -S (the peer):
#     "the peer's QP reports IBV_EVENT_QP_ACCESS_ERR" (a bad R_Key) and
#     "... IBV_EVENT_QP_REQ_ERR" (a READ or WRITE the QP does not allow):
#       rxe's responder NAKs both but raises no affiliated asynchronous
#       event
# Those are listed as known rxe differences and do not fail the line.
rxe_c_known='full SQ refuses post_send|req_notify_cq: the completion raises a channel event'
rxe_c_known+='|IBV_EVENT_QP_FATAL for the QP using it'
rxe_s_known="the peer's QP reports IBV_EVENT_QP_(ACCESS|REQ)_ERR"
if [ -x "$verbs" ]; then
	[ "$me" -eq 0 ] && printf 'rocx-pcap-mark verbs' >"/dev/udp/$(rocx_ip 1)/9"
	rocx_barrier marked
	for server in 0 1; do
		port=$((port + 1))
		name=verbs.$server
		pair "$name" "$server" "$verbs" -S -d "$ROCE_DEV" -g "$ROCE_GID" -p "$port" -- \
			"$verbs" -d "$ROCE_DEV" -g "$ROCE_GID" -p "$port" -C
		rc=$?
		if [ "$me" -ne "$server" ]; then
			known='^$'
			[ "${kinds[$me]}" = rxe ] && known="$rxe_c_known"
			[ "${kinds[$server]}" = rxe ] && known="$known|$rxe_s_known"
			log=$(lg "$name")
			n_ok=$(grep -c '^ok ' "$log")
			n_known=$(grep '^not ok ' "$log" | grep -cE "$known")
			n_bad=$(grep '^not ok ' "$log" | grep -cvE "$known")
			sed -E "s/^not ok - (.*($known).*)/known rxe difference: \1/; s/^/# /" "$log"
			what="rocx_verbs_test ${kinds[$me]} -C -> ${kinds[$server]} -S"
			if [ "$n_bad" -eq 0 ] && [ "$n_ok" -gt 0 ] &&
				{ [ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && [ "$n_known" -gt 0 ]; }; }; then
				ok "$what: $n_ok checks passed, $n_known known rxe differences"
			else
				bad "$what: $n_bad of $((n_ok + n_bad + n_known)) failed (exit $rc)"
			fi
		fi
		rocx_barrier "$name"
	done
else
	ok "rocx_verbs_test # SKIP not built ($verbs)"
fi

cm_tests

sort -u "$qpns" -o "$qpns"
rocx_log "QPNs used: $(tr '\n' ' ' <"$qpns")"
t "guest$me: dmesg free of warnings" dmesg_clean
rocx_barrier finished
t_done
