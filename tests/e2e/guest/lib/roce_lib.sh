# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# RoCE helpers shared by the guest scripts that run verbs traffic between a
# rocx NIC and a Soft-RoCE (rxe) one: tests/e2e/guest/rxe.sh and
# scripts/guest/bench.sh.  Source after scripts/guest/guest_lib.sh and
# tests/e2e/guest/lib/test_lib.sh:
#   roce_up KIND       KIND rocx: load rocx_core + rocx_ib (unless a rocx
#                      ib_device is there: the verbs group's part "wire"
#                      runs rxe.sh on its port); KIND rxe: rdma_rxe on the
#                      virtio-net NIC.  Then address ROCX_IP/24, wait for an
#                      ACTIVE port and the RoCE v2 GID of the address; sets
#                      ROCE_DEV, ROCE_NETDEV and ROCE_GID (its index).
#   roce_gid_index DEV IPV4
#   roce_rd_atom DEV   the device's max_qp_rd_atom (RDMA READs in flight)
#   roce_port_listening PORT
#   roce_cm_listening PORT  an rdma_cm id listens on PORT
#   perftest_cm_race RC FILE  a perftest -R client's run (exit RC, output
#                      FILE) failed on perftest 4.5's own race: run it again
#   roce_cm_mode DEV MODE  rdma_cm's RoCE mode for DEV's port 1 ("IB/RoCE v1"
#                      or "RoCE v2", configfs default_roce_mode; ib_core
#                      names RoCE v1 "IB/RoCE v1")

# shellcheck disable=SC2034 # for the scripts that source this file
ROCE_DEV='' ROCE_NETDEV='' ROCE_GID='' ROCE_ERR=''

# roce_gid_index DEV IPV4 - index of DEV port 1's RoCE v2 GID for IPV4 (the
# IPv4-mapped ::ffff:a.b.c.d).  Reads sysfs instead of trusting a fixed
# index: rxe and rocx_ib order their GID tables differently, and the table
# fills in as ib_core notices addresses.
roce_gid_index() {
	local port=/sys/class/infiniband/$1/ports/1 want f n

	# shellcheck disable=SC2086 # one printf argument per octet
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	for f in "$port"/gids/*; do
		[ -e "$f" ] || continue
		n=${f##*/}
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] || continue
		# Empty entries make the type file fail to read: skip those too.
		[ "$(cat "$port/gid_attrs/types/$n" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$n"
		return 0
	done
	return 1
}

_roce_port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null
}

# _roce_fail MSG - remember why roce_up failed (for reports), fail.
_roce_fail() {
	# shellcheck disable=SC2034 # read by the sourcing script
	ROCE_ERR=$*
	rocx_log "roce_up: $*"
	return 1
}

# _roce_carrier NETDEV SECS - NETDEV has carrier within SECS s.  A timed
# link comes up at the switch's --epoch, which may be a minute of
# virtual time after its NIC joined (ROCE_CARRIER_WAIT=SECS): the
# shell's own read polls it, so that a long wait starts no process per
# look.
_roce_carrier() {
	local n=$(($2 * 4)) c

	while :; do
		read -r c <"/sys/class/net/$1/carrier" 2>/dev/null &&
			[ "$c" = 1 ] && return 0
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.25
	done
}

roce_up() {
	local kind=$1

	case $kind in
	rocx)
		rocx_ibdev >/dev/null || rocx_load_modules >/tmp/roce_up.log 2>&1 ||
			_roce_fail "loading rocx modules: $(tail -n 1 /tmp/roce_up.log)" || return 1
		wait_for 20 rocx_ibdev || _roce_fail "no rocx ib_device" || return 1
		ROCE_DEV=$(rocx_ibdev)
		ROCE_NETDEV=$(rocx_netdev) || _roce_fail "no rocx netdev" || return 1
		;;
	rxe)
		ROCE_NETDEV=eth0
		[ -e /sys/class/net/eth0 ] || _roce_fail "no eth0" || return 1
		modprobe rdma_rxe || _roce_fail "modprobe rdma_rxe" || return 1
		rdma link add rxe0 type rxe netdev "$ROCE_NETDEV" ||
			_roce_fail "rdma link add rxe0" || return 1
		ROCE_DEV=rxe0
		;;
	*)
		_roce_fail "unknown NIC kind '$kind'" || return 1
		;;
	esac
	ip link set "$ROCE_NETDEV" up
	ip addr replace "$ROCX_IP/24" dev "$ROCE_NETDEV"
	_roce_carrier "$ROCE_NETDEV" "${ROCE_CARRIER_WAIT:-20}" ||
		_roce_fail "$ROCE_NETDEV: no carrier" || return 1
	wait_for 20 _roce_port_active "$ROCE_DEV" ||
		_roce_fail "$ROCE_DEV: port not ACTIVE" || return 1
	wait_for 20 roce_gid_index "$ROCE_DEV" "$ROCX_IP" ||
		_roce_fail "$ROCE_DEV: no RoCE v2 GID for $ROCX_IP" || return 1
	ROCE_GID=$(roce_gid_index "$ROCE_DEV" "$ROCX_IP")
	rocx_log "$kind: $ROCE_DEV on $ROCE_NETDEV, RoCE v2 GID index $ROCE_GID"
}

# roce_rd_atom DEV - max_qp_rd_atom of DEV.  ib_read_bw sets its QP's
# max_rd_atomic to the *peer's* limit (perftest 4.5 ctx_modify_qp_to_rts):
# between devices with different limits, the one with the lower limit
# refuses the QP unless both get -o with the smaller of the two.
roce_rd_atom() {
	ibv_devinfo -v -d "$1" | awk '/max_qp_rd_atom:/ { print $2; exit }'
}

# roce_port_listening PORT - a TCP socket listens on PORT (perftest and
# ibv_rc_pingpong servers: their clients do not retry a refused connect).
roce_port_listening() {
	ss -Hltn "sport = :$1" | grep -q .
}

# roce_qp_cc DEV [PREFIX] - one line per RC QP of DEV: PREFIX if given,
# then the reaction point's cc_cur_rate, cc_tgt_rate and cc_alpha as
# `rdma resource show qp -dd` prints them (rocx_ib_restrack.c).  A
# record per QP, whatever lines rdma breaks it into; awk rather than a
# Python start-up per sample, so that samples come often under TCG.
roce_qp_cc() {
	rdma -dd resource show qp link "$1/1" 2>/dev/null | roce_qp_cc_parse "${2:-}"
}

# roce_qp_cc_parse [PREFIX] - roce_qp_cc's lines from what `rdma -dd
# resource show qp` printed on standard input, once or many times (rdma's
# batch mode: roce_qp_cc_sampler).
roce_qp_cc_parse() {
	awk -v pre="${1:-}" -v RS='link ' '{
		split("", v)
		for (i = 1; i < NF; i++) {
			k = $i
			sub(/^drv_/, "", k)
			v[k] = $(i + 1)
		}
		if (v["type"] == "RC" && ("cc_cur_rate" in v))
			print (pre == "" ? "" : pre " ") v["cc_cur_rate"], \
				v["cc_tgt_rate"], v["cc_alpha"]
	}'
}

# roce_qp_cc_sampler DEV FIFO OUT - start rdma in batch mode reading its
# commands from the named pipe FIFO (made here) and writing to OUT, and
# open the pipe as file descriptor 7 (read and write, so that opening it
# never waits, even for an rdma that has failed): each
#   printf 'resource show qp link DEV/1\n' >&7
# then samples DEV's QPs at once, with no process started for it, which
# under instruction counting would take the guest's one vCPU for
# milliseconds of virtual time.  Sets sampler to rdma's PID; closing fd 7
# ends it (wait for it, then roce_qp_cc_parse <OUT).
roce_qp_cc_sampler() {
	rm -f "$2"
	mkfifo "$2" || return 1
	rdma -f -dd -b "$2" >"$3" 2>&1 &
	sampler=$!
	exec 7<>"$2"
}

# roce_cm_listening PORT - an rdma_cm id of this guest listens on PORT
# (perftest -R servers: their clients do not retry a rejected connect).
roce_cm_listening() {
	rdma res show cm_id 2>/dev/null | grep LISTEN | grep -qE "[]:.]$1( |$)"
}

# perftest_cm_race RC FILE - the perftest -R client whose exit status was
# RC and whose output is FILE lost perftest 4.5's race between its two
# connections.  The first exchanges keys and results; its server listens
# for the second, the test QP's, only after a handshake over the first,
# while the client connects as soon as it has read the server's part.  A
# client that comes first is rejected with "invalid service ID" (no
# listener); perftest 4.5 then tries again over rdma_cm ids it has just
# destroyed and freed, and crashes (exit 139) or exits 1, and its server
# waits for a connection that never comes (perftest's 3d9d8d0 and e2b3dcf
# fixed that in 26.04; Debian 12 has 4.5).  The race is perftest's, not
# the NIC's: such a pair runs again, a few times at most.
perftest_cm_race() {
	[ "$1" -ne 0 ] && grep -q 'RDMA_CM_EVENT_REJECTED; error: 8\.' "$2"
}

# roce_cm_mode DEV MODE - set the RoCE mode rdma_cm uses on DEV port 1 for
# the connections it starts and read it back.  configfs is a module in
# Debian's kernel (loaded with rdma_cm, after init tried to mount it).
roce_cm_mode() {
	local dir=/sys/kernel/config/rdma_cm/$1

	modprobe rdma_ucm || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	# The device's group appears on mkdir.
	[ -d "$dir" ] || mkdir "$dir" || return 1
	echo "$2" >"$dir/ports/1/default_roce_mode" &&
		[ "$(cat "$dir/ports/1/default_roce_mode")" = "$2" ]
}
