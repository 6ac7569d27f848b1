#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the iser group: iSCSI over iSER between two rocx guests.
#
# Guest 0 is the target: LIO (target_core_mod, iscsi_target_mod and
# ib_isert), configured through configfs as targetcli would, exports a
# RAM-backed LUN (rd_mcp) on a portal at its address, port 3260, with
# iSER enabled, to any initiator (demo mode, no authentication).
#
# Guest 1 is the initiator: open-iscsi's iscsid started by hand with an
# /etc/iscsi of its own (the overlay makes it writable), discovery over
# TCP, the node switched to the iser transport, login, the LUN's sd
# device; a random pattern written by four writers at once (four
# commands in flight, each with its own fast-registered MR) and read
# back the same way with O_DIRECT and compared byte for byte; logout,
# login again and the pattern read once more.
#
# That the session really runs on iSER: open-iscsi's iface, the SCSI
# host's driver, one kernel RC QP on each side whose numbers are the
# other side's peer QP, the initiator's RDMA counters (the target reads
# a SCSI WRITE's data from the initiator's MRs with RDMA READs and writes
# a SCSI READ's data with RDMA WRITEs), and ib_isert agreeing to
# invalidate the initiator's MRs remotely (SEND with Invalidate).
#
# ISER_MIB (default 128) sets how much is written.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib.sh"
. "$ROCX_REPO/tests/e2e/guest/roce_lib.sh"

me=$ROCX_GUEST_INDEX
tgt_ip=$(rocx_ip 0)
portal=$tgt_ip:3260
iqn=iqn.2026-12.org.rocx:iser
ini_iqn=iqn.2026-12.org.rocx:guest1
mib=${ISER_MIB:-128}
nio=4			# writers and readers at once
tmo=120
cfs=/sys/kernel/config/target

if roce_up rocx; then
	t_ok "rocx $ROCE_DEV up on $ROCE_NETDEV"
else
	t_not_ok "rocx up: $ROCE_ERR"
	t_done
fi
ibdev=$ROCE_DEV

# hw NAME - one of the port's counters (rdma statistic).
hw() {
	rdma statistic show link "$ibdev/1" |
		tr ' ' '\n' | awk -v k="$1" '$0 == k { getline; print; exit }'
}

# kqp - "LQPN RQPN" of the port's kernel-owned RC QP in RTS; rdma res
# shows a kernel owner's name in brackets (rdma_cm creates iSER's QPs).
kqp() {
	rdma res show qp link "$ibdev/1" | awk '
		/type RC state RTS/ && /comm \[/ {
			for (i = 1; i < NF; i++) {
				if ($i == "lqpn") l = $(i + 1)
				if ($i == "rqpn") r = $(i + 1)
			}
			print l, r
			exit
		}' | grep .
}

# ---- target -----------------------------------------------------------
target_setup() {
	local tpg=$cfs/iscsi/$iqn/tpgt_1 rd=$cfs/core/rd_mcp_0/ram0

	# debug_level 2: ib_isert says when it will invalidate remotely.
	modprobe target_core_mod && modprobe iscsi_target_mod &&
		modprobe ib_isert debug_level=2 || return 1
	# configfs is a module: init could not mount it at boot.
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config || return 1
	# Where LIO keeps persistent reservations and ALUA state.
	mkdir -p /etc/target
	mkdir -p "$rd" || return 1
	# rd_pages counts 4 KiB pages: twice what the test writes.
	echo "rd_pages=$((mib * 2 * 256))" >"$rd/control" || return 1
	echo 1 >"$rd/enable" || return 1
	mkdir -p "$tpg/lun/lun_0" || return 1
	ln -s "$rd" "$tpg/lun/lun_0/ram0" || return 1
	mkdir "$tpg/np/$portal" || return 1
	echo 1 >"$tpg/np/$portal/iser" || return 1
	# Demo mode: every initiator gets the LUN read-write, no CHAP.
	echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 1 >"$tpg/attrib/cache_dynamic_acls" &&
		echo 0 >"$tpg/attrib/demo_mode_write_protect" || return 1
	echo 1 >"$tpg/enable"
}

# peer_qp_is LQPN RQPN - this side's kernel QP is the initiator's peer.
peer_qp_is() {
	local got

	got=$(kqp) || return 1
	echo "target QP (lqpn rqpn): $got, initiator's: $1 $2"
	[ "$got" = "$2 $1" ]
}

if [ "$me" -eq 0 ]; then
	t "target: LIO with a $((mib * 2)) MiB rd_mcp LUN on portal $portal, iser 1" \
		target_setup
	t "target: the portal has iSER on" \
		grep -qx 1 "$cfs/iscsi/$iqn/tpgt_1/np/$portal/iser"
	t "target: ib_isert listens through rdma_cm on :3260" \
		bash -c "rdma res show cm_id link $ibdev/1 | grep -q 'LISTEN.*:3260'"
	rocx_put iser.target "$iqn"
	ini_qp=$(rocx_get iser.login)
	t "target: a session of $ini_iqn" \
		grep -q "$ini_iqn" "$cfs/iscsi/$iqn/tpgt_1/dynamic_sessions"
	# shellcheck disable=SC2086 # two words: LQPN RQPN
	t "target: its kernel RC QP is the initiator's peer" peer_qp_is $ini_qp
	t "target: ib_isert uses remote invalidation (SEND with Invalidate)" \
		bash -c "dmesg | grep -q 'isert: .*Using remote invalidation'"
	rocx_put iser.checked 1
	rocx_get iser.done >/dev/null
	t "no kernel warnings" dmesg_clean
	t_done
fi

# ---- initiator --------------------------------------------------------
# iscsid reads its name and configuration from /etc/iscsi, and iscsiadm
# keeps the node database there.  The defaults' 5 s NOP-Out timeout is
# shorter than a loaded TCG guest may leave a connection unserved.
initiator_setup() {
	modprobe ib_iser && modprobe sd_mod || return 1
	mkdir -p /etc/iscsi /run/lock/iscsi
	rm -rf /etc/iscsi/nodes /etc/iscsi/send_targets /etc/iscsi/ifaces
	echo "InitiatorName=$ini_iqn" >/etc/iscsi/initiatorname.iscsi
	cat >/etc/iscsi/iscsid.conf <<-EOF
		iscsid.startup = /bin/true
		node.startup = manual
		node.session.timeo.replacement_timeout = 30
		node.conn[0].timeo.login_timeout = 30
		node.conn[0].timeo.logout_timeout = 30
		node.conn[0].timeo.noop_out_interval = 10
		node.conn[0].timeo.noop_out_timeout = 30
		node.session.initial_login_retry_max = 4
		node.session.iscsi.InitialR2T = No
		node.session.iscsi.ImmediateData = Yes
		node.session.scan = auto
	EOF
	iscsid -c /etc/iscsi/iscsid.conf -i /etc/iscsi/initiatorname.iscsi || return 1
	wait_for 10 bash -c 'iscsiadm -m session 2>&1 | grep -q "No active sessions"'
}

# sd_dev - the sd device of the iSCSI session's LUN 0.
sd_dev() {
	local b

	for b in /sys/class/iscsi_session/session*/device/target*/*:0/block/sd*; do
		[ -e "$b" ] && [ -b "/dev/${b##*/}" ] && { echo "${b##*/}"; return 0; }
	done
	return 1
}

login() {
	timeout "$tmo" iscsiadm -m node -T "$iqn" -p "$portal" --login &&
		wait_for 60 sd_dev
}

logout() {
	timeout "$tmo" iscsiadm -m node -T "$iqn" -p "$portal" --logout
}

# scsi_host_is NAME - the sd device's SCSI host belongs to driver NAME.
scsi_host_is() {
	local h

	h=$(readlink -f "/sys/block/$(sd_dev)/device" | grep -o '/host[0-9]*/' | tr -d /)
	echo "$h: $(cat "/sys/class/scsi_host/$h/proc_name")"
	[ "$(cat "/sys/class/scsi_host/$h/proc_name")" = "$1" ]
}

# par_dd IF OF FLAG - copy $mib MiB from IF to OF with $nio dd's at once,
# each a slice of its own; FLAG is iflag=direct or oflag=direct.
par_dd() {
	local q=$((mib / nio)) k pids=() rc=0

	for ((k = 0; k < nio; k++)); do
		dd if="$1" of="$2" bs=1M count="$q" skip=$((k * q)) seek=$((k * q)) \
			"$3" conv=notrunc status=none &
		pids+=($!)
	done
	for k in "${pids[@]}"; do
		wait "$k" || rc=1
	done
	return "$rc"
}

# timed CMD... - run CMD; its wall time in ms goes to /tmp/ms.
timed() {
	local t0 rc

	t0=$(date +%s%N)
	"$@"
	rc=$?
	echo $((($(date +%s%N) - t0) / 1000000)) >/tmp/ms
	return "$rc"
}

rate() {
	local ms

	ms=$(cat /tmp/ms)
	echo "$((mib * 1000 / (ms > 0 ? ms : 1))) MiB/s ($mib MiB in $ms ms)"
}

# odd_io - guest/iser_io.py's cases on $dev, past the pattern.
odd_io() {
	local rc

	timeout "$tmo" python3 "$ROCX_REPO/tests/e2e/guest/iser_io.py" "$dev" "$mib" \
		>/tmp/iser_io.out 2>&1
	rc=$?
	cat /tmp/iser_io.out
	ROCX_FAILED=$((ROCX_FAILED + $(grep -c '^not ok' /tmp/iser_io.out)))
	[ "$rc" -eq 0 ] || grep -q '^not ok' /tmp/iser_io.out ||
		t_not_ok "initiator: iser_io.py exited $rc"
}

t "initiator: iscsid running with an /etc/iscsi of its own" initiator_setup
# The pattern: random, so that a block landing in the wrong place shows.
head -c "${mib}M" /dev/urandom >/tmp/pat
rocx_get iser.target >/dev/null
t "initiator: discovery (SendTargets over TCP) finds $iqn" \
	bash -c "timeout $tmo iscsiadm -m discovery -t st -p $portal | grep -q ' $iqn\$'"
t "initiator: node switched to transport iser" \
	iscsiadm -m node -T "$iqn" -p "$portal" -o update \
	-n iface.transport_name -v iser
if ! t "initiator: login over iSER, LUN 0 attached" login; then
	iscsiadm -m session -P 3 2>&1 | sed 's/^/# /'
	dmesg | tail -n 40 | sed 's/^/# /'
	rocx_put iser.login "0 0"
	rocx_put iser.done 1
	t_done
fi
qp=$(kqp)
rocx_put iser.login "$qp"
dev=/dev/$(sd_dev)
t "initiator: open-iscsi's session runs on iface transport iser" \
	bash -c "iscsiadm -m session -P 1 | grep -q 'Iface Transport: iser'"
t "initiator: $dev's SCSI host is ib_iser's" scsi_host_is iscsi_iser
t "initiator: a kernel RC QP in RTS ($qp)" test -n "$qp"
rocx_get iser.checked >/dev/null

rr0=$(hw rx_read_requests)
t "initiator: $mib MiB written to $dev, $nio writers, O_DIRECT" \
	timed par_dd /tmp/pat "$dev" oflag=direct
echo "# write: $(rate)"
rr1=$(hw rx_read_requests)
t "initiator: the target fetched them with RDMA READs ($rr0 -> $rr1)" \
	test "${rr1:-0}" -gt "${rr0:-0}"
rw0=$(hw rx_write_requests)
t "initiator: $mib MiB read from $dev, $nio readers, O_DIRECT" \
	timed par_dd "$dev" /tmp/back iflag=direct
echo "# read: $(rate)"
rw1=$(hw rx_write_requests)
t "initiator: the target sent them with RDMA WRITEs ($rw0 -> $rw1)" \
	test "${rw1:-0}" -gt "${rw0:-0}"
t "initiator: what was read is what was written" cmp /tmp/back /tmp/pat
rm -f /tmp/back
odd_io

t "initiator: logout" logout
t "initiator: no session left" \
	bash -c "! ls -d /sys/class/iscsi_session/session* 2>/dev/null"
# With max_sectors 4096 ib_iser sizes its commands by the device: rocx's
# max_fast_reg_page_list_len is 512 (one page of page list) and ib_iser
# keeps one entry back for a buffer that starts inside a page, so a
# command may reach 511 pages (2044 KiB), each its REG_MR's page list.
echo 4096 >/sys/module/ib_iser/parameters/max_sectors
t "initiator: login again over iSER, with ib_iser max_sectors 4096" login
dev=/dev/$(sd_dev)
q=/sys/block/${dev#/dev/}
t "initiator: its commands may reach 2044 KiB (page lists of 511)" \
	grep -qx 2044 "$q/queue/max_hw_sectors_kb"
# The block layer's own default stops at 1280 KiB.
echo 2044 >"$q/queue/max_sectors_kb"
read -ra st0 <"$q/stat"
t "initiator: the $mib MiB are still there, read in 2044 KiB commands" \
	bash -c "dd if=$dev bs=2044K count=$((mib * 1024 / 2044 + 1)) iflag=direct status=none |
		cmp -n $((mib << 20)) - /tmp/pat"
read -ra st1 <"$q/stat"
n=$((mib * 1024 / 2044 + 1))
t "initiator: that was $n commands of 4088 sectors" \
	test "$((st1[0] - st0[0])) $((st1[2] - st0[2]))" = "$n $((n * 4088))"
odd_io
t "initiator: logout again" logout
rocx_put iser.done 1
t "no kernel warnings" dmesg_clean
t_done
