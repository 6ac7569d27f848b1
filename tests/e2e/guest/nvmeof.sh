#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the nvmeof group: NVMe over Fabrics, RDMA transport, on
# rocx.  Guest 0 is the target: a RAM disk (null_blk, memory backed)
# exported by nvmet-rdma,
# configured through configfs (Debian has no nvmetcli), on an IPv4 and an
# IPv6 port.  Guest 1 is the host: nvme-rdma connects with nvme-cli.
#  - fio writes random-offset blocks of 512 B (inline data) to 1 MiB (a
#    fast-registered MR of 256 pages) and reads them back verified; then
#    256 MiB of a pattern with an xxhash and the offset in every block
#    (xxhash: the cheapest of fio's checksums under TCG, measured against
#    md5, crc32c, crc64 and sha1 with fio --crctest).
#  - disconnect and connect again: the pattern is still there.
#  - round 1: the target's rocx_ib is removed under reads in flight: the
#    reads fail with EIO once fast_io_fail_tmo expires, the controller
#    keeps reconnecting, nothing hangs; rocx_ib is loaded again and the
#    ports re-enabled, the host reconnects by itself and the pattern is
#    verified again.
#  - fatal: the target's admin queue hangs under reads in flight; after
#    the admin timeout rocx_core resets the function, and rocx_ib goes
#    while nvmet-rdma's queues are still on the device: nothing hangs, no
#    warning, the device comes back and the host reconnects and verifies
#    the pattern.
#  - round 2: removed again, and back without the subsystem: the host
#    gives the controller up after ctrl_loss_tmo and its disk goes.
#  - connect over IPv6, part of the pattern verified.
#  - the target loads nvmet-rdma again with use_srq=1, so that its queues
#    receive from kernel SRQs (rocx_ib_ksrq.c): 32 MiB written and read
#    back verified through them; then the target's rocx_ib is removed
#    under that connection, in much less than the 60 s each SRQ-attached
#    QP's drain waits without its last-WQE event, and the host
#    reconnects once it is back.
# fio runs with O_DIRECT, so every read crosses the fabric.
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"

me=$ROCX_GUEST_INDEX
# The target waits for the host through whole 256 MiB runs, which take
# tens of seconds on a loaded machine; a failing peer still ends a wait
# at once (rocx_check_peers).
ROCX_WAIT=$((ROCX_WAIT * 2))
nqn=nqn.2026-12.org.rocx:nvmeof-ram
size_mib=256		# the pattern; the RAM disk has 64 MiB more for mixed sizes
ip6_of() { echo "2001:2::$(($1 + 1))"; }
t4=$(rocx_ip 0)
t6=$(ip6_of 0)

if roce_up rocx; then
	t_ok "rocx $ROCE_DEV up on $ROCE_NETDEV"
else
	t_not_ok "rocx up: $ROCE_ERR"
	t_done
fi
ibdev=$ROCE_DEV
ip -6 addr add "$(ip6_of "$me")/64" dev "$ROCE_NETDEV" nodad

# tc NAME CMD... - t, with CMD run in this shell (to keep what it sets).
tc() {
	local name=$1 rc

	shift
	"$@" 3>&1 >/tmp/tc.out 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		t_ok "$name"
	else
		t_show /tmp/tc.out "$name"
		t_not_ok "$name (exit $rc)"
	fi
	return $rc
}

# ---- target (guest 0) ----

nvmet=/sys/kernel/config/nvmet

# nvmet_port ID FAMILY ADDR SVCID - an RDMA port exporting $nqn.
nvmet_port() {
	local p=$nvmet/ports/$1

	mkdir "$p" &&
		echo rdma >"$p/addr_trtype" &&
		echo "$2" >"$p/addr_adrfam" &&
		echo "$3" >"$p/addr_traddr" &&
		echo "$4" >"$p/addr_trsvcid" &&
		ln -s "$nvmet/subsystems/$nqn" "$p/subsystems/$nqn"
}

# ramdisk_setup - a memory-backed null_blk of the pattern's size plus 64
# MiB, /dev/$ram, made through configfs: that works whether null_blk is
# a module (Debian's kernel) or built in (the debug kernel, where module
# parameters cannot be given at modprobe time).
ram=rocxram
ramdisk_setup() {
	local d=/sys/kernel/config/nullb/$ram

	modprobe null_blk nr_devices=0 &&
		{ [ -d /sys/kernel/config/nullb ] ||
			mount -t configfs configfs /sys/kernel/config; } &&
		mkdir "$d" &&
		echo $((size_mib + 64)) >"$d/size" &&
		echo 1 >"$d/memory_backed" &&
		echo 1 >"$d/power" &&
		wait_for 10 test -b "/dev/$ram"
}

# nvmet_setup - /dev/$ram as namespace 1 of $nqn, any host allowed.
nvmet_setup() {
	local s=$nvmet/subsystems/$nqn

	ramdisk_setup &&
		modprobe nvmet && modprobe nvmet-rdma &&
		mkdir "$s" &&
		echo 1 >"$s/attr_allow_any_host" &&
		mkdir "$s/namespaces/1" &&
		echo -n "/dev/$ram" >"$s/namespaces/1/device_path" &&
		echo 1 >"$s/namespaces/1/enable" &&
		nvmet_port 1 ipv4 "$t4" 4420 &&
		nvmet_port 2 ipv6 "$t6" 4420
}

# unload MODULE... - rmmod each MODULE that is a module (the debug kernel
# builds them in).
unload() {
	local m

	for m in "$@"; do
		[ -e "/sys/module/$m/refcnt" ] || continue
		rmmod "$m" || return 1
	done
}

# relink PORT... - unlink $nqn from each PORT and link it again.
relink() {
	local p

	for p in "$@"; do
		p=$nvmet/ports/$p/subsystems
		rm -f "$p/$nqn"
		ln -s "$nvmet/subsystems/$nqn" "$p/$nqn" || return 1
	done
}

# port_listening ADDR - nvmet-rdma's rdma_cm id listens on ADDR:4420.
port_listening() {
	rdma res show cm_id 2>/dev/null | grep LISTEN | grep -qF "$1:4420"
}

# remove_reload ROUND - when the host says so, remove rocx_ib from under
# the live connection (ib_unregister_device waits for nvmet-rdma to let
# go of every queue: a hang here is the failure), and when the host has
# seen the error, load it again and re-enable the ports.
remove_reload() {
	local r=$1

	rocx_get "connected.$r" >/dev/null
	t "round $r: rmmod rocx_ib under a live NVMe-oF connection" \
		timeout 60 rmmod rocx_ib
	t "round $r: $ibdev is gone" bash -c "! ls /sys/class/infiniband | grep -q ."
	rocx_put "removed.$r" 1
	rocx_get "failed_io.$r" >/dev/null
	ib_reload "round $r" "$r"
	rocx_put "reloaded.$r" 1
}

# ib_reload NAME [ROUND] - insmod rocx_ib again and enable nvmet-rdma's
# ports on the new device; checks are named NAME.
ib_reload() {
	t "$1: insmod rocx_ib again" insmod "$ROCX_MODDIR/rocx_ib.ko"
	ports_back "$@"
}

# ports_back NAME [ROUND] - once rocx_ib is back, enable nvmet-rdma's
# ports on the new device; checks are named NAME.
ports_back() {
	local n=$1 r=${2:-0}

	t "$n: $ibdev port ACTIVE again" wait_for 20 _roce_port_active "$ibdev"
	t "$n: $ibdev has its RoCE v2 GIDs again" \
		wait_for 20 roce_gid_index "$ibdev" "$t4"
	# Round 2: the device is back, the subsystem not yet: the host's
	# reconnects are rejected until it gives the controller up.
	if [ "$r" -eq 2 ]; then
		rocx_put device_back.2 1
		rocx_get ctrl_gone.2 >/dev/null
	fi
	# A listener's DEVICE_REMOVAL makes nvmet-rdma drop the port's
	# rdma_cm id for good (it repairs a port only on ADDR_CHANGE): the
	# port must be disabled and enabled again, which configfs does when
	# its last subsystem link goes and the first comes back.
	t "$n: the ports are enabled again (subsystem unlinked and linked)" \
		wait_for 30 relink 1 2
	t "$n: nvmet-rdma listens again on $t4:4420" \
		wait_for 30 port_listening "$t4"
	t "$n: nvmet-rdma listens again on [$t6]:4420" \
		wait_for 30 port_listening "$t6"
}

# reset_done - rocx_core logged a finished function reset.
reset_done() {
	dmesg | grep -q 'function reset done'
}

# ib_index - the ib device's index (`rdma dev`): ib_core hands indexes
# out cyclically, so a device registered again has another.
ib_index() {
	rdma dev show "$ibdev" 2>/dev/null | sed -n 's/^\([0-9][0-9]*\): .*/\1/p'
}

# new_ib OLD - $ibdev exists and is not the device of index OLD.
new_ib() {
	local i

	i=$(ib_index)
	[ -n "$i" ] && [ "$i" != "$1" ]
}

# fatal_reset - when the host has I/O in flight, hang the admin queue at
# its next command (x-aq-stall) and issue one (a hw_counters read): after
# the admin timeout rocx_core resets the function before rocx_ib goes,
# so nvmet-rdma takes its queues down on a device that has forgotten
# them.  Their removal ends (the driver flushes the kernel QPs), the
# function comes back and the ports are enabled on the new device.
fatal_reset() {
	local a idx

	rocx_get connected.f >/dev/null
	idx=$(ib_index)
	mon "qom-set /machine/peripheral/nic0 x-aq-stall 65536" | sed 's/^/# /'
	a=$(mon "qom-get /machine/peripheral/nic0 x-aq-stall" | tr -d '\r\n ')
	t "fatal: x-aq-stall armed for the next command (qom-get: '$a')" \
		test "$a" = 65536
	SECONDS=0
	timeout 60 cat "/sys/class/infiniband/$ibdev/ports/1/hw_counters/"* \
		>/dev/null 2>&1
	t "fatal: rocx_core reset the function under nvmet-rdma's queues" \
		wait_for 120 reset_done
	t "fatal: the timeout and reset took ${SECONDS} s, no drain hung" \
		test "$SECONDS" -lt 60
	a=$(mon "qom-get /machine/peripheral/nic0 x-aq-stall" | tr -d '\r\n ')
	t "fatal: x-aq-stall off after the reset (qom-get: '$a')" test "$a" = -1
	# The name alone would be the old device's too, had the reset never
	# taken it down: the one back must be a new registration.
	t "fatal: $ibdev is back, registered again (index $idx before)" \
		wait_for 30 new_ib "$idx"
	rocx_log "fatal: $ibdev index $idx before the reset, $(ib_index) after"
	ports_back fatal
	rocx_put reloaded.f 1
}

# kernel_srqs - nvmet-rdma holds SRQs of the device (rdma res shows a
# kernel owner's name in brackets).
kernel_srqs() {
	rdma res show srq dev "$ibdev" | grep -q 'comm \[nvmet_rdma\]'
}

srq_unload() {
	rm -f "$nvmet/ports/1/subsystems/$nqn" "$nvmet/ports/2/subsystems/$nqn" &&
		unload nvmet_rdma
}

# srq_reload - once the host has disconnected, nvmet-rdma again with
# use_srq=1 (a module parameter only: the ports are disabled, the module
# reloaded, the ports enabled again); then its receives come from one
# SRQ per completion vector, and connecting fails if creating them does.
srq_reload() {
	rocx_get srq.ask >/dev/null
	t "use_srq: ports disabled and nvmet-rdma unloaded" srq_unload
	t "use_srq: modprobe nvmet-rdma use_srq=1" modprobe nvmet-rdma use_srq=1
	t "use_srq: the parameter is set" \
		grep -qx Y /sys/module/nvmet_rdma/parameters/use_srq
	t "use_srq: the ports are enabled again" relink 1 2
	t "use_srq: nvmet-rdma listens on $t4:4420" \
		wait_for 30 port_listening "$t4"
	rocx_put srq.up 1
	rocx_get srq.connected >/dev/null
	t "use_srq: nvmet-rdma's queues receive from kernel SRQs on $ibdev" \
		kernel_srqs
	rdma res show srq 2>&1 | head -n 4 | sed 's/^/# /'
	# Removing the device drains each queue's QP (ib_drain_qp()), which
	# for a QP on an SRQ waits for IB_EVENT_QP_LAST_WQE_REACHED, for
	# 60 s if it never comes.
	rocx_get srq.written >/dev/null
	SECONDS=0
	t "use_srq: rmmod rocx_ib under a live connection on SRQs" \
		timeout 300 rmmod rocx_ib
	t "use_srq: the removal took ${SECONDS} s, no drain waited for its 60 s" \
		test "$SECONDS" -lt 30
	ib_reload "use_srq"
	rocx_put srq.checked 1
}

target() {
	t "nvmet: RAM namespace exported on rdma ports $t4 and [$t6]:4420" \
		nvmet_setup || t_done
	t "nvmet-rdma listens on $t4:4420" wait_for 20 port_listening "$t4" || t_done
	t "nvmet-rdma listens on [$t6]:4420" wait_for 20 port_listening "$t6" || t_done
	rocx_put target up

	# Up to 128 commands in flight: nvmet-rdma's kernel QPs post RDMA
	# READs, WRITEs and responses while earlier ones wait for their
	# answers, and the device takes them from the QPs' doorbell records
	# (rocx_ib_kqp_record()).  The host's commands, each posted as an
	# earlier one completes, mostly find their QP idle and ring.
	takes0=$(hw hw_db_record_takes)
	rocx_get connected.1 >/dev/null
	takes=$(hw hw_db_record_takes)
	echo "# target: hw_db_record_takes $takes0 -> $takes"
	t "nvmet-rdma's kernel QPs posted through their doorbell records" \
		test "$takes" -gt "$takes0"

	# Twice: the host reconnects after the first, gives the controller
	# up after the second.
	remove_reload 1
	fatal_reset
	remove_reload 2
	srq_reload
	rocx_barrier host.done
	rm -f "$nvmet/ports/1/subsystems/$nqn" "$nvmet/ports/2/subsystems/$nqn"
	rmdir "$nvmet/ports/1" "$nvmet/ports/2"
	echo 0 >"$nvmet/subsystems/$nqn/namespaces/1/enable"
	rmdir "$nvmet/subsystems/$nqn/namespaces/1" "$nvmet/subsystems/$nqn"
	echo 0 >"/sys/kernel/config/nullb/$ram/power"
	rmdir "/sys/kernel/config/nullb/$ram"
	t "nvmet and null_blk configuration removed, modules unload" \
		unload nvmet_rdma nvmet null_blk
}

# ---- host (guest 1) ----

# ns_dev - the block device of $nqn's namespace 1 (a multipath head or,
# without native multipath, the controller's own namespace).
ns_dev() {
	local s c

	for s in /sys/class/nvme-subsystem/*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
		for c in "$s"/nvme*n1 "$s"/nvme*/nvme*n1; do
			[ -e "$c" ] || continue
			[ -b "/dev/${c##*/}" ] || continue
			echo "/dev/${c##*/}"
			return 0
		done
	done
	return 1
}

# ctrl_of - the name of $nqn's controller (nvme<N>).
ctrl_of() {
	local c

	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
		echo "${c##*/}"
		return 0
	done
	return 1
}

ctrl_state_is() {
	local c

	c=$(ctrl_of) && [ "$(cat "/sys/class/nvme/$c/state")" = "$1" ]
}

ctrl_state_not() {
	local c

	c=$(ctrl_of) && [ "$(cat "/sys/class/nvme/$c/state")" != "$1" ]
}

# connect ADDR FAMILY [OPTION]... - nvme connect and wait for the disk.
connect() {
	local a=$1 f=$2

	shift 2
	timeout 60 nvme connect -t rdma -a "$a" -s 4420 -n "$nqn" "$@" &&
		wait_for 30 ns_dev &&
		dev=$(ns_dev) && ctrl=$(ctrl_of) &&
		echo "# connected over $f: $ctrl, $dev ($(cat "/sys/class/nvme/$ctrl/transport"))" >&3
}

ctrl_gone() {
	! ctrl_of >/dev/null
}

disconnect() {
	timeout 60 nvme disconnect -n "$nqn" && wait_for 20 ctrl_gone
}

# pattern MODE [MIB] - fio over the pattern: MODE write writes it (xxhash
# and offset in every 128 KiB block) and reads it back verified, verify
# only reads and verifies its first MIB (default all).  Leaves the MB/s
# in /tmp/fio.bw.
pattern() {
	local extra=() mib=${2:-$size_mib}

	case $1 in
	write) extra=(--rw=write --do_verify=1) ;;
	verify) extra=(--rw=write --verify_only) ;;
	esac
	timeout 300 fio --name=nvmeof --filename="$dev" --bs=128k \
		--size="${mib}M" --direct=1 --ioengine=libaio --iodepth=8 \
		--verify=xxhash --verify_fatal=1 --output-format=json \
		"${extra[@]}" >/tmp/fio.json 2>/tmp/fio.err ||
		{ cat /tmp/fio.err; return 1; }
	python3 - /tmp/fio.json $((mib << 20)) <<-'PY' | tee /tmp/fio.bw
	import json, sys
	j = json.load(open(sys.argv[1]))["jobs"][0]
	if j["error"]:
	    sys.exit("fio error %d" % j["error"])
	w, r = j["write"], j["read"]
	if w["bw_bytes"]:
	    print("write %.1f MB/s (%d MiB), " % (w["bw_bytes"] / 1e6,
	          w["io_bytes"] >> 20), end="")
	print("read+verify %.1f MB/s (%d MiB)" % (r["bw_bytes"] / 1e6,
	      r["io_bytes"] >> 20))
	if r["io_bytes"] != int(sys.argv[2]):
	    sys.exit("read back %d bytes, not %s" % (r["io_bytes"], sys.argv[2]))
	PY
}

# mixed MAX - random-offset writes of 512 B to MAX in the 64 MiB past the
# pattern, read back verified; 128 in flight fill nvme-rdma's queue
# (128 entries, each a REG_MR, a SEND and a LOCAL_INV).
mixed() {
	timeout 300 fio --name=mixed --filename="$dev" --offset="${size_mib}M" \
		--size=64M --rw=randwrite --bsrange=512-"$1" --io_size=64M \
		--direct=1 --ioengine=libaio --iodepth=128 --verify=xxhash \
		--verify_fatal=1 --do_verify=1 --randseed=4420
}

# read_fails - a direct read of the namespace ends in an error, within
# 60 s: no hang, no success from a page cache.
read_fails() {
	local rc

	timeout 60 dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct 2>/tmp/dd.err
	rc=$?
	cat /tmp/dd.err
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]
}

host() {
	modprobe nvme-rdma || t_not_ok "modprobe nvme-rdma"
	rocx_get target >/dev/null

	# reconnect_delay 1: try again soon after the target comes back;
	# ctrl_loss_tmo 120: long enough that the removal below ends in a
	# reconnect, not in the controller's deletion.
	tc "nvme connect -t rdma -a $t4 -s 4420" connect "$t4" IPv4 \
		--reconnect-delay=1 --ctrl-loss-tmo=120 || t_done
	t "$dev is $((size_mib + 64)) MiB" \
		test "$(blockdev --getsize64 "$dev")" -eq $(((size_mib + 64) << 20))
	q=/sys/block/${dev#/dev/}/queue
	echo "# $ibdev: $(rdma_env ibv_devinfo -v -d "$ibdev" |
		grep -E 'max_sge|max_qp_rd_atom|max_srq:' | tr -s ' \t\n' ' ')"
	echo "# $dev: max_hw_sectors_kb $(cat "$q/max_hw_sectors_kb"), max_segments $(cat "$q/max_segments")"
	# Sizes from 512 B (inline data in the command capsule, one SGE) to
	# the largest I/O nvme-rdma sends (its fast-registered MR at full
	# length), at random offsets, each block verified.
	takes0=$(hw hw_db_record_takes)
	t "fio random writes of 512 B to $(cat "$q/max_hw_sectors_kb") KiB read back verified" \
		mixed "$(cat "$q/max_hw_sectors_kb")k"
	echo "# host: hw_db_record_takes $takes0 -> $(hw hw_db_record_takes)"
	if t "fio writes $size_mib MiB of a pattern and reads it back verified" pattern write; then
		rocx_log "IPv4: $(cat /tmp/fio.bw)"
		echo "# throughput IPv4 $(cat /tmp/fio.bw)"
	fi

	t "nvme disconnect" disconnect
	tc "nvme connect again" connect "$t4" IPv4 --reconnect-delay=1 --ctrl-loss-tmo=120
	t "the pattern is still there after reconnecting" pattern verify
	echo "# throughput IPv4 (verify only) $(cat /tmp/fio.bw)"

	# Round 1: the target removes its rocx_ib under reads in flight.
	echo 2 >"/sys/class/nvme/$ctrl/fast_io_fail_tmo"
	timeout 120 fio --name=inflight --filename="$dev" --rw=randread \
		--bs=64k --size="${size_mib}M" --direct=1 --ioengine=libaio \
		--iodepth=8 --time_based --runtime=100 >/tmp/fio.inflight 2>&1 &
	bg=$!
	sleep 3
	rocx_put connected.1 1
	rocx_get removed.1 >/dev/null
	t "the host notices the target's device removal (controller leaves live)" \
		wait_for 60 ctrl_state_not live
	rocx_log "controller $ctrl: $(cat "/sys/class/nvme/$ctrl/state")"
	wait "$bg"
	rc=$?
	grep -E 'err=|error' /tmp/fio.inflight | head -n 3 | sed 's/^/# /'
	t "reads in flight at the removal end in an I/O error (fio exit $rc)" \
		test "$rc" -ne 0 -a "$rc" -ne 124
	t "a read while the target is away fails with an error (no hang)" read_fails
	t "the controller keeps trying to reconnect" ctrl_state_is connecting
	rocx_put failed_io.1 1
	rocx_get reloaded.1 >/dev/null
	t "the host reconnects by itself once rocx_ib is back" wait_for 90 ctrl_state_is live
	t "the pattern is still there after the removal and reconnect" pattern verify

	# The target's function is reset under reads in flight, after an
	# admin command timed out: its device is gone before nvmet-rdma
	# takes the queues down.
	timeout 120 fio --name=inflight --filename="$dev" --rw=randread \
		--bs=64k --size="${size_mib}M" --direct=1 --ioengine=libaio \
		--iodepth=8 --time_based --runtime=100 >/tmp/fio.inflight 2>&1 &
	bg=$!
	sleep 3
	rocx_put connected.f 1
	rocx_get reloaded.f >/dev/null
	wait "$bg"
	rc=$?
	t "fatal: the reads in flight ended (fio exit $rc, no hang)" test "$rc" -ne 124
	t "fatal: the host reconnects once the target's device is back" \
		wait_for 90 ctrl_state_is live
	t "fatal: the pattern is still there after the target's reset" \
		pattern verify

	# Round 2: the target's device comes back without the subsystem;
	# the host gives the controller up ctrl_loss_tmo after the removal,
	# its disk goes and nothing waits for it.  (While the target has no
	# RDMA device at all, a reconnect is an ib_cm REQ retried for about
	# 80 s: the target's reload ends it with a REJ.)
	echo 3 >"/sys/class/nvme/$ctrl/ctrl_loss_tmo"
	rocx_put connected.2 1
	rocx_get removed.2 >/dev/null
	t "round 2: the host notices the removal" wait_for 60 ctrl_state_not live
	rocx_put failed_io.2 1
	rocx_get device_back.2 >/dev/null
	t "round 2: ctrl_loss_tmo after the removal the host deletes the controller" \
		wait_for 60 ctrl_gone
	t "round 2: and its disk" wait_for 20 test ! -e "$dev"
	rocx_put ctrl_gone.2 1
	rocx_get reloaded.2 >/dev/null

	tc "nvme connect over IPv6 [$t6]" connect "$t6" IPv6
	t "the pattern's first 64 MiB read back verified over IPv6" pattern verify 64
	echo "# throughput IPv6 (verify only) $(cat /tmp/fio.bw)"
	t "nvme disconnect (IPv6)" disconnect

	rocx_put srq.ask 1
	rocx_get srq.up >/dev/null
	tc "use_srq: nvme connect to nvmet-rdma on SRQs" connect "$t4" IPv4
	rocx_put srq.connected 1
	t "use_srq: 32 MiB of the pattern written and read back verified" \
		pattern write 32
	echo "# throughput use_srq $(cat /tmp/fio.bw)"
	rocx_put srq.written 1
	rocx_get srq.checked >/dev/null
	t "use_srq: the host reconnects once rocx_ib is back" \
		wait_for 90 ctrl_state_is live
	t "use_srq: the pattern is still there after the removal" \
		pattern verify 32
	t "use_srq: nvme disconnect" disconnect
	t "nvme-rdma unloads" unload nvme_rdma
	dmesg | grep -E 'nvme[0-9]|nvmet|rdma' | grep -v 'Connect rejected' | tail -n 40 | sed 's/^/# /'
	rocx_barrier host.done
}

if [ "$me" -eq 0 ]; then
	target
else
	host
fi
rocx_barrier end
t "no kernel warnings" dmesg_clean
t_done
