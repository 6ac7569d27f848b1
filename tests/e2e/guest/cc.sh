#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of group cc: ECN marking, CNPs and DCQCN across
# rocx-switch.  The switch's port 0 (guest 0) is a 50 Mb/s bottleneck
# whose RED marks every ECN-capable frame that finds a queue (kmin = kmax
# = 1 byte: a step, p = 1 behind any frame); guest 1 writes to guest 0
# with perftest's ib_write_bw over RoCE v2, so guest 1's data leaves
# ECT(0) (rp_en on by default), is marked CE at the switch, and guest 0's
# notification point answers with CNPs that guest 1's reaction point
# handles:
#   guest 0   np_ecn_marked_roce_packets and np_cnp_sent move
#             (ethtool -S hw_np_*), the data arrived intact
#   guest 1   rp_cnp_handled moves, rp_cnp_ignored does not, and
#             `rdma resource show qp` shows the writer's QP paced below
#             line rate while it runs; its reaction point keeps a cut
#             (no byte counter, a 10 s increase timer) and stops at
#             rp_min_rate FLOOR, so that the pacing lasts long enough to
#             be seen on the wire: the switch's count of what guest 1
#             sent on priority 0 (port 1's rx_bytes), over windows of the
#             guest's clock while the device reports FLOOR to NEAR, must
#             have a median no more than the most it reported there + 10%.
#             The device's own figure alone would pass a model that
#             reports a cut and sends at whatever rate it likes.
# With rp_en off for priority 0 at guest 1 its data leaves non-ECT: the
# switch then drops it on the lossy priority instead (not tested: RC
# would only retransmit).  The host checks the capture for the CNPs
# (groups/cc.sh).
set -uo pipefail
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/roce_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/switch_lib.sh"

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "needs exactly 2 guests"
me=$ROCX_GUEST_INDEX
port=19901
size=65536
iters=600
buf=/tmp/cc_write_bw.buf
# Mb/s: well below both the 50 Mb/s bottleneck and what the writer
# sends into it unpaced, so a pacer that is not there shows; the 600
# writes of 64 KiB take some 16 s at it, time for several windows.
floor=20
# The reaction point's figure counts as near the floor up to here.
near=24

if roce_up rocx; then
	t_ok "rocx $ROCE_DEV up on $ROCE_NETDEV"
else
	t_not_ok "rocx up: $ROCE_ERR"
	t_done
fi
dev=$ROCE_NETDEV

# moved NAME BEFORE - NAME's counter is above BEFORE now.
moved() {
	local now

	now=$(hw "$1")
	echo "# $1: $2 -> $now"
	[ "$now" -gt "$2" ]
}

t "cc_param: rp_en on for every priority" \
	grep -qx 0xff "/sys/class/infiniband/$ROCE_DEV/ports/1/cc_param/rp_en"
t "cc_param: np_en on for every priority" \
	grep -qx 0xff "/sys/class/infiniband/$ROCE_DEV/ports/1/cc_param/np_en"
# Each read is an admin command: not for every user to issue.
ccdir=/sys/class/infiniband/$ROCE_DEV/ports/1/cc_param
t "cc_param: the files are root's alone (mode $(stat -c %a "$ccdir/rp_en"))" \
	bash -c "[ -z \"\$(find $ccdir -type f -perm /077)\" ]"
marked0=$(hw hw_np_ecn_marked_roce_packets)
sent0=$(hw hw_np_cnp_sent)
handled0=$(hw hw_rp_cnp_handled)
ignored0=$(hw hw_rp_cnp_ignored)
takes0=$(hw hw_db_record_takes)

if [ "$me" -eq 1 ]; then
	for kv in rp_byte_reset=0 rp_time_reset=10000000 rp_min_rate=$floor; do
		echo "${kv#*=}" >"$ccdir/${kv%%=*}"
	done
	t "cc_param: a cut holds, down to $floor Mb/s" \
		test "$(cat "$ccdir/rp_byte_reset") $(cat "$ccdir/rp_time_reset") $(cat "$ccdir/rp_min_rate")" = "0 10000000 $floor"
fi
if [ "$me" -eq 0 ]; then
	t "switch: port 0 (guest 0) at 50 Mb/s" switch_ctl qos port=0 rate=50
	t "switch: port 0 priority 0 marks CE behind any frame" \
		switch_ctl qos port=0 prio=0 kmin=1 kmax=1 pmax=1
fi
rocx_barrier switch

# The server's [B, B + S) receives the client's [0, S), B = max(S, 4096)
# (guest/rxe.sh explains it).
truncate -s $((2 * size + 8192)) "$buf"
if [ "$me" -eq 0 ]; then
	rdma_env timeout 120 ib_write_bw -F -d "$ROCE_DEV" -x "$ROCE_GID" \
		-m 1024 -s "$size" -n "$iters" --mmap="$buf" -p "$port" \
		>/tmp/cc.srv 2>&1 &
	spid=$!
	wait_for 30 roce_port_listening "$port"
	rocx_put cc.listening yes
	wait "$spid"
	rc=$?
	[ "$rc" -eq 0 ] || t_show /tmp/cc.srv
	t "ib_write_bw through the marking switch, server" test "$rc" -eq 0
else
	python3 -c 'import os, sys
sys.stdout.buffer.write(os.urandom(int(sys.argv[1])))' "$size" |
		dd of="$buf" conv=notrunc status=none
	rocx_get cc.listening >/dev/null
	rdma_env timeout 120 ib_write_bw -F -d "$ROCE_DEV" -x "$ROCE_GID" \
		-m 1024 -s "$size" -n "$iters" --mmap="$buf" -p "$port" \
		"$(rocx_ip 0)" >/tmp/cc.cli 2>&1 &
	cpid=$!
	# What guest 1 sent on priority 0 as the switch counts it, sampled
	# beside the device's figure below.
	python3 "$ROCX_REPO/tests/e2e/guest/lib/switch_lib.py" sample 1 0 \
		rx_bytes 2 >/tmp/cc.wire 2>/tmp/cc.wire.err &
	wpid=$!
	# The reaction point's rate, sampled while the writer runs: the
	# device's own figure (QUERY_QP), through `rdma resource show`,
	# each sample after the guest's clock.
	: >/tmp/cc.rates
	: >/tmp/cc.raw
	while kill -0 "$cpid" 2>/dev/null; do
		roce_qp_cc "$ROCE_DEV" "$(date +%s.%N)" >>/tmp/cc.rates
		[ -s /tmp/cc.raw ] ||
			rdma -dd resource show qp link "$ROCE_DEV/1" 2>/dev/null |
			grep -A3 " RC " >/tmp/cc.raw
		sleep 0.1
	done
	sed 's/^/# rdma: /' /tmp/cc.raw
	wait "$cpid"
	rc=$?
	kill "$wpid"
	wait "$wpid" 2>/dev/null
	[ -s /tmp/cc.wire.err ] && sed 's/^/# sampler: /' /tmp/cc.wire.err
	[ "$rc" -eq 0 ] || t_show /tmp/cc.cli
	t "ib_write_bw through the marking switch, client" test "$rc" -eq 0
	speed=$(cat "/sys/class/net/$dev/speed")
	low=$(awk '{ print $2 }' /tmp/cc.rates | sort -n | head -n 1)
	echo "# cc_cur_rate: $(wc -l </tmp/cc.rates) samples, lowest ${low:-none} of $speed Mb/s"
	sed 's/^/# cc sample (time cur tgt alpha): /' /tmp/cc.rates
	t "rdma res: the writer's QP paced below line rate" \
		test "${low:-$speed}" -lt "$speed"
	# The windows while the device said it was near FLOOR (at most
	# NEAR): from its first such sample to the last before one that says
	# otherwise (only the 10 s timer raises a held cut).  Near, not at:
	# the last cuts before the floor are small once alpha has decayed,
	# and one run's rate sat at 21 and 22 Mb/s for 11 of its 16 s.  The
	# wire is held to what the device said, the most it said there.
	span=$(awk -v f="$near" '$2 <= f && !end { if (!n++) a = $1; b = $1
			if ($2 > hi) hi = $2 }
		$2 > f && n { end = 1 } END { if (n) print a, b, hi }' /tmp/cc.rates)
	said=${span##* } span=${span% *}
	sed 's/^/# switch sample (t0 t1 rx_bytes): /' /tmp/cc.wire
	: >/tmp/cc.windows
	# shellcheck disable=SC2086 # two words, or none
	[ -n "$span" ] && switch_windows $span </tmp/cc.wire >/tmp/cc.windows
	sed 's/^/# wire window (s Mb\/s low high): /' /tmp/cc.windows
	nwin=$(wc -l </tmp/cc.windows)
	med=$(awk '{ print $2 }' /tmp/cc.windows | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	echo "# $nwin windows at $floor to $near Mb/s by the device (at most ${said:-none}), median ${med:-none} Mb/s on the wire"
	t "switch: at least 3 windows of guest 1's sending while the device reports $floor to $near Mb/s" \
		test "$nwin" -ge 3
	t "switch: guest 1 sent at most the device's rate + 10% (the median of those windows, switch's bytes over the guest's clock)" \
		awk -v m="${med:-1e9}" -v f="${said:-0}" 'BEGIN { exit !(m <= f * 1.10) }'
	cp "$buf" "$ROCX_SHARED/cc_write_bw.client"
fi
rocx_barrier traffic

if [ "$me" -eq 0 ]; then
	if cmp -n "$size" -i "0:$size" "$ROCX_SHARED/cc_write_bw.client" "$buf"; then
		t_ok "ib_write_bw: $size bytes verified at the server"
	else
		t_not_ok "ib_write_bw: data differ (client [0, $size) vs server [$size, $((2 * size))))"
	fi
	t "np: CE-marked RoCE packets counted" moved hw_np_ecn_marked_roce_packets "$marked0"
	t "np: CNPs sent" moved hw_np_cnp_sent "$sent0"
	switch_ctl qshow port=0 | sed 's/^/# /'
	t "switch: QoS cleared" switch_ctl qos port=all clear
else
	t "rp: CNPs handled" moved hw_rp_cnp_handled "$handled0"
	t "rp: no CNP ignored" test "$(hw hw_rp_cnp_ignored)" -eq "$ignored0"
	# A rate-limited stream waits for its ACKs: its posts go through the
	# provider's doorbell record (rocx_sq_ring()).
	echo "# hw_db_record_takes $takes0 -> $(hw hw_db_record_takes)"
	t "the client's provider posted through doorbell records" \
		moved hw_db_record_takes "$takes0"
fi
rocx_barrier done

t "no kernel warnings" dmesg_clean
t_done
