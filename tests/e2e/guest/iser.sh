#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the iser group: iSCSI over iSER between rocx guests.
# ISER_ROLE says what this guest is:
#
# target (guests 0 and 1): LIO (target_core_mod, iscsi_target_mod and
#   ib_isert), configured through configfs as targetcli would, exports a
#   RAM-backed LUN (rd_mcp) as iqn.2026-12.org.rocx:iser<N> on a portal
#   at its address, port 3260, with iSER enabled, to any initiator (demo
#   mode, no authentication).  ISER_RW says how ib_isert's rdma_rw moves
#   the data: sge (ib_core's default on RoCE: RDMA READs and WRITEs on
#   SGE lists of the target's pages) or mr (ib_core force_mr=1: each
#   through an MR the target fast-registers, then invalidates, as iWARP
#   requires).
#
# initiator (guest 2): open-iscsi's iscsid started by hand with an
#   /etc/iscsi of its own (the overlay makes it writable), discovery over
#   TCP, each target's node switched to the iser transport, login to
#   both, each LUN's sd device.  Per target: a pattern of its own
#   written by four writers at once (four commands in flight,
#   each with its own fast-registered MR) and read back the same way with
#   O_DIRECT, compared byte for byte.  Then logout, login again with
#   ib_iser max_sectors 4096 (commands of 2044 KiB, page lists of 511),
#   the patterns read back in such commands, and guest/parts/iser_io.py's
#   buffers that start inside a page.
#
# That the sessions really run on iSER: open-iscsi's iface, the SCSI
# hosts' driver, a kernel RC QP on each target whose peer is one of the
# initiator's, the initiator's RDMA counters (a target reads a SCSI
# WRITE's data from the initiator's MRs with RDMA READs and writes a SCSI
# READ's data with RDMA WRITEs), ib_isert agreeing to invalidate the
# initiator's MRs remotely (SEND with Invalidate), and with ISER_RW=mr
# rdma_rw's pool of MRs on the target.
#
# ISER_MIB (default 128) sets how much is written to each target.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

me=$ROCX_GUEST_INDEX
role=${ISER_ROLE:-}
rw=${ISER_RW:-sge}
ntgt=2			# targets: guests 0 .. ntgt - 1
iqn_of() { echo "iqn.2026-12.org.rocx:iser$1"; }
portal_of() { echo "$(rocx_ip "$1"):3260"; }
ini_iqn=iqn.2026-12.org.rocx:initiator
mib=${ISER_MIB:-128}
nio=4			# writers and readers at once
tmo=120
cfs=/sys/kernel/config/target

# rdma_rw's choice is ib_core's, made when it loads (roce_up loads it).
if [ "$role" = target ] && [ "$rw" = mr ]; then
	modprobe ib_core force_mr=1
fi
if roce_up rocx; then
	t_ok "rocx $ROCE_DEV up on $ROCE_NETDEV"
else
	t_not_ok "rocx up: $ROCE_ERR"
	t_done
fi
ibdev=$ROCE_DEV

# kqps - "LQPN RQPN" of each kernel-owned RC QP of the port in RTS, a
# line each; rdma res shows a kernel owner's name in brackets (rdma_cm
# creates iSER's QPs).
kqps() {
	rdma res show qp link "$ibdev/1" | awk '
		/type RC state RTS/ && /comm \[/ {
			for (i = 1; i < NF; i++) {
				if ($i == "lqpn") l = $(i + 1)
				if ($i == "rqpn") r = $(i + 1)
			}
			print l, r
		}'
}

# ---- target -----------------------------------------------------------
target_setup() {
	local iqn portal tpg rd=$cfs/core/rd_mcp_0/ram0

	iqn=$(iqn_of "$me") portal=$(portal_of "$me")
	tpg=$cfs/iscsi/$iqn/tpgt_1
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

# mr_pool - rdma_rw's MRs: ib_isert asks for 128 contexts, each an MR
# (kernel MRs are in `rdma res`'s count).
mr_pool() {
	local n

	n=$(rdma res show | sed -n "s/.*$ibdev:.* mr \([0-9]*\).*/\1/p")
	echo "kernel MRs: $n"
	[ "${n:-0}" -ge 128 ]
}

if [ "$role" = target ]; then
	iqn=$(iqn_of "$me") portal=$(portal_of "$me")
	t "target $me: LIO with a $((mib * 2)) MiB rd_mcp LUN on portal $portal, iser 1" \
		target_setup
	t "target $me: the portal has iSER on" \
		grep -qx 1 "$cfs/iscsi/$iqn/tpgt_1/np/$portal/iser"
	t "target $me: ib_isert listens through rdma_cm on :3260" \
		bash -c "rdma res show cm_id link $ibdev/1 | grep -q 'LISTEN.*:3260'"
	rocx_put "iser.rw$me" "$rw"
	rocx_put "iser.target$me" "$iqn"
	rocx_get iser.login >/dev/null
	t "target $me: a session of $ini_iqn" \
		grep -q "$ini_iqn" "$cfs/iscsi/$iqn/tpgt_1/dynamic_sessions"
	qp=$(kqps | head -n 1)
	t "target $me: a kernel RC QP in RTS ($qp)" test -n "$qp"
	rocx_put "iser.qp$me" "$qp"
	t "target $me: ib_isert uses remote invalidation (SEND with Invalidate)" \
		bash -c "dmesg | grep -q 'isert: .*Using remote invalidation'"
	if [ "$rw" = mr ]; then
		t "target $me: rdma_rw registers (force_mr), its MR pool is there" mr_pool
	fi
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

# sd_of K - the sd device of target K's LUN 0.
sd_of() {
	local s b

	for s in /sys/class/iscsi_session/session*; do
		[ "$(cat "$s/targetname" 2>/dev/null)" = "$(iqn_of "$1")" ] || continue
		for b in "$s"/device/target*/*:0/block/sd*; do
			[ -e "$b" ] && [ -b "/dev/${b##*/}" ] && { echo "${b##*/}"; return 0; }
		done
	done
	return 1
}

login() {
	timeout "$tmo" iscsiadm -m node -T "$(iqn_of "$1")" -p "$(portal_of "$1")" --login &&
		wait_for 60 sd_of "$1"
}

logout() {
	timeout "$tmo" iscsiadm -m node -T "$(iqn_of "$1")" -p "$(portal_of "$1")" --logout
}

# scsi_host_is DEV NAME - DEV's SCSI host belongs to driver NAME.
scsi_host_is() {
	local h

	h=$(readlink -f "/sys/block/$1/device" | grep -o '/host[0-9]*/' | tr -d /)
	echo "$h: $(cat "/sys/class/scsi_host/$h/proc_name")"
	[ "$(cat "/sys/class/scsi_host/$h/proc_name")" = "$2" ]
}

# peer_of LQPN RQPN - one of this side's kernel QPs is that QP's peer.
peer_of() {
	kqps
	kqps | grep -qx "$2 $1"
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

# odd_io DEV - guest/parts/iser_io.py's odd cases on DEV, past the pattern.
odd_io() {
	local rc

	timeout "$tmo" python3 "$ROCX_REPO/tests/e2e/guest/parts/iser_io.py" odd "$1" "$mib" \
		>/tmp/iser_io.out 2>&1
	rc=$?
	sed "s/^\(\(not \)\{0,1\}ok - \)/\1initiator: $(basename "$1"): /" /tmp/iser_io.out
	ROCX_FAILED=$((ROCX_FAILED + $(grep -c '^not ok' /tmp/iser_io.out)))
	[ "$rc" -eq 0 ] || grep -q '^not ok' /tmp/iser_io.out ||
		t_not_ok "initiator: iser_io.py exited $rc"
}

# data K - the first session's I/O to target K's LUN.
data() {
	local k=$1 dev rr0 rr1 rw0 rw1 rws

	dev=/dev/$(sd_of "$k")
	rws=$(rocx_get "iser.rw$k")
	rr0=$(hw hw_rx_read_requests)
	t "initiator: target $k ($rws): $mib MiB written to $dev, $nio writers, O_DIRECT" \
		timed par_dd "/tmp/pat$k" "$dev" oflag=direct
	echo "# target $k ($rws): write $(rate)"
	rr1=$(hw hw_rx_read_requests)
	t "initiator: target $k fetched them with RDMA READs ($rr0 -> $rr1)" \
		test "${rr1:-0}" -gt "${rr0:-0}"
	rw0=$(hw hw_rx_write_requests)
	t "initiator: target $k ($rws): $mib MiB read from $dev, $nio readers, O_DIRECT" \
		timed par_dd "$dev" /tmp/back iflag=direct
	echo "# target $k ($rws): read $(rate)"
	rw1=$(hw hw_rx_write_requests)
	t "initiator: target $k sent them with RDMA WRITEs ($rw0 -> $rw1)" \
		test "${rw1:-0}" -gt "${rw0:-0}"
	t "initiator: target $k: what was read is what was written" \
		cmp /tmp/back "/tmp/pat$k"
	rm -f /tmp/back
}

# stat_settled FILE - wait (up to 10 s) until a disk's stat has not
# changed for a second.
stat_settled() {
	local a b

	b=$(cat "$1")
	for _ in $(seq 10); do
		sleep 1
		a=$b
		b=$(cat "$1")
		[ "$a" = "$b" ] && return 0
	done
	return 0
}

# big_counted N IOS SECTORS - dd's N reads of 2044 KiB reached the disk
# whole: N commands of 4088 sectors, beside at most a few small reads of
# someone else's (a late partition scan: 8 sectors each).  A split read
# would double the commands.
big_counted() {
	local n=$1 ios=$2 sec=$3

	echo "reads $ios, sectors $sec (dd: $n x 4088)"
	[ "$ios" -ge "$n" ] && [ "$((ios - n))" -le 8 ] &&
		[ "$sec" -ge "$((n * 4088))" ] &&
		[ "$((sec - n * 4088))" -le "$(((ios - n) * 256))" ]
}

# big K - the second session's: the pattern read back in commands of
# 2044 KiB, then iser_io.py.  With max_sectors 4096 ib_iser sizes its
# commands by the device: rocx's max_fast_reg_page_list_len is 512 (one
# page of page list) and ib_iser keeps one entry back for a buffer that
# starts inside a page, so a command may reach 511 pages (2044 KiB),
# each its REG_MR's page list.
big() {
	local k=$1 dev q n st0 st1

	dev=/dev/$(sd_of "$k")
	q=/sys/block/${dev#/dev/}
	n=$((mib * 1024 / 2044 + 1))
	t "initiator: target $k: commands may reach 2044 KiB (page lists of 511)" \
		grep -qx 2044 "$q/queue/max_hw_sectors_kb"
	# The block layer's own default stops at 1280 KiB.
	echo 2044 >"$q/queue/max_sectors_kb"
	# The disk's partition scan after login reads a few blocks of its
	# own: let it end first, so that the counts below are dd's.
	stat_settled "$q/stat"
	read -ra st0 <"$q/stat"
	t "initiator: target $k: the $mib MiB are still there, read in 2044 KiB commands" \
		bash -c "dd if=$dev bs=2044K count=$n iflag=direct status=none |
			cmp -n $((mib << 20)) - /tmp/pat$k"
	read -ra st1 <"$q/stat"
	t "initiator: target $k: that was $n commands of 4088 sectors" \
		big_counted "$n" "$((st1[0] - st0[0]))" "$((st1[2] - st0[2]))"
	odd_io "$dev"
}

t "initiator: iscsid running with an /etc/iscsi of its own" initiator_setup
# The patterns: a sector stamped with its place and target, a pattern
# each (guest/parts/iser_io.py pattern), so that a sector landing in the wrong
# place, or on the wrong target, shows.
pattern() {
	python3 "$ROCX_REPO/tests/e2e/guest/parts/iser_io.py" pattern "/tmp/pat$1" "$mib" "$1"
}
patterns() {
	local k

	for ((k = 0; k < ntgt; k++)); do
		pattern "$k" || return 1
	done
}
t "initiator: a pattern of $mib MiB for each target" timed patterns
echo "# patterns: $(cat /tmp/ms) ms"
for ((k = 0; k < ntgt; k++)); do
	iqn=$(iqn_of "$k") portal=$(portal_of "$k")
	rocx_get "iser.target$k" >/dev/null
	t "initiator: discovery (SendTargets over TCP) at $portal finds $iqn" \
		bash -c "timeout $tmo iscsiadm -m discovery -t st -p $portal | grep -q ' $iqn\$'"
	t "initiator: $iqn's node switched to transport iser" \
		iscsiadm -m node -T "$iqn" -p "$portal" -o update \
		-n iface.transport_name -v iser
	if ! t "initiator: login to $iqn over iSER, LUN 0 attached" login "$k"; then
		iscsiadm -m session -P 3 2>&1 | sed 's/^/# /'
		dmesg | tail -n 40 | sed 's/^/# /'
		rocx_put iser.login 0
		rocx_put iser.done 1
		t_done
	fi
	dev=$(sd_of "$k")
	t "initiator: $dev's SCSI host is ib_iser's" scsi_host_is "$dev" iscsi_iser
done
rocx_put iser.login 1
t "initiator: open-iscsi's $ntgt sessions run on iface transport iser" \
	test "$(iscsiadm -m session -P 1 | grep -c 'Iface Transport: iser')" -eq "$ntgt"
for ((k = 0; k < ntgt; k++)); do
	# shellcheck disable=SC2046 # two words: LQPN RQPN
	t "initiator: the peer of target $k's QP is a kernel QP here" \
		peer_of $(rocx_get "iser.qp$k")
done

for ((k = 0; k < ntgt; k++)); do
	data "$k"
done

for ((k = 0; k < ntgt; k++)); do
	t "initiator: logout from $(iqn_of "$k")" logout "$k"
done
t "initiator: no session left" \
	bash -c "! ls -d /sys/class/iscsi_session/session* 2>/dev/null"
echo 4096 >/sys/module/ib_iser/parameters/max_sectors
for ((k = 0; k < ntgt; k++)); do
	t "initiator: login to $(iqn_of "$k") again, ib_iser max_sectors 4096" login "$k"
	big "$k"
	t "initiator: logout from $(iqn_of "$k") again" logout "$k"
done
rocx_put iser.done 1
t "no kernel warnings" dmesg_clean
t_done
