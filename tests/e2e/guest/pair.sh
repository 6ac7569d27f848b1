#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two rocx guests on the fabric: module load, link, ping, IPv6 ping, the
# device's multicast filter, a verified 16 MiB TCP transfer, MTU 9000,
# link down/up from the guest and from the host
# (tests/e2e/host/pair_link.sh drives QEMU's set_link), ethtool (-t too)
# and ibv_devinfo.
. "$ROCX_REPO/scripts/guest/guest_lib.sh"
. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh"

[ "$ROCX_NGUESTS" -eq 2 ] || rocx_die "needs exactly 2 guests"
me=$ROCX_GUEST_INDEX
peer=$(rocx_ip $((1 - me)))

t "load rocx_core and rocx_ib" rocx_load_modules || t_done
dev=$(rocx_netdev)
t "rocx netdev exists ($dev)" test -n "$dev" || t_done
ibdev=$(rocx_ibdev)
t "rocx ib_device exists ($ibdev)" test -n "$ibdev"
t "probe logged no error" sh -c \
	"! dmesg | grep -i rocx | grep -v 'module verification' | grep -iE 'error|fail|timeout'"

ip link set "$dev" up
ip addr add "$ROCX_IP/24" dev "$dev"
t "carrier up" wait_for 20 carrier_is "$dev" 1
rocx_barrier up

t "ping peer" ping -c 3 -i 0.2 -W 5 "$peer"
t "ping 1472 bytes, DF" ping -c 2 -M do -s 1472 -W 5 "$peer"
t "ping 1473 bytes, DF, refused at MTU 1500" sh -c "! ping -c 1 -M do -s 1473 -W 2 $peer"

# IPv6 between link-local addresses: neighbour discovery goes to the
# solicited-node groups (33:33:ff:..), which reach the device only in the
# multicast list the driver gives it (SET_MCAST_MACS).
ll6() {
	ip -6 addr show dev "$dev" scope link | awk '/inet6/ { sub("/.*", "", $2); print $2; exit }'
}
ll6_ready() {
	ip -6 addr show dev "$dev" scope link | grep inet6 | grep -vq tentative
}
t "IPv6 link-local address ready" wait_for 20 ll6_ready
rocx_put "ll6.$me" "$(ll6)"
peer6=$(rocx_get "ll6.$((1 - me))")
t "ping6 the peer's link-local address" ping -6 -c 3 -i 0.2 -W 5 "$peer6%$dev"
t "IPv6 neighbour of the peer resolved" sh -c \
	"ip -6 neigh show dev $dev | grep -i '$peer6' | grep -qvE 'FAILED|INCOMPLETE'"

# The device's multicast filter: guest 1 joins one group and not another;
# guest 0 sends 20 frames to each.  Those to the joined group arrive, the
# others never reach guest 1's kernel and are counted as filtered.
hwstat() {
	ethtool -S "$dev" | awk -v k="hw_$1:" '$1 == k { print $2 }'
}
mc_in=01:00:5e:7f:00:01 mc_out=01:00:5e:7f:00:02
mcast=$ROCX_REPO/tests/e2e/guest/parts/mcast.py
rocx_barrier mcast
if [ "$me" -eq 1 ]; then
	t "join $mc_in (ip maddr)" ip maddr add "$mc_in" dev "$dev"
	drop0=$(hwstat rx_dropped_filter) mc0=$(hwstat rx_multicast)
	/usr/bin/python3 "$mcast" recv "$dev" "$ROCX_SHARED/val.mcast_sent" >/tmp/mcast.out 2>&1 &
	mcast_rx=$!
	sleep 1
	rocx_put mcast_ready 1
	wait "$mcast_rx"
	sed 's/^/# received: /' /tmp/mcast.out
	t "20 frames to the joined group received" grep -qx "$mc_in 20" /tmp/mcast.out
	t "frames to a group not joined dropped by the device" sh -c "! grep -q '^$mc_out ' /tmp/mcast.out"
	t "the device counted them as filtered (hw_rx_dropped_filter)" \
		test $(($(hwstat rx_dropped_filter) - drop0)) -ge 20
	t "and the joined ones as multicast (hw_rx_multicast)" \
		test $(($(hwstat rx_multicast) - mc0)) -ge 20
	t "leave $mc_in" ip maddr del "$mc_in" dev "$dev"
else
	rocx_get mcast_ready >/dev/null
	t "send 20 frames to $mc_in" /usr/bin/python3 "$mcast" send "$dev" "$mc_in" 20
	t "send 20 frames to $mc_out" /usr/bin/python3 "$mcast" send "$dev" "$mc_out" 20
	sleep 1
	rocx_put mcast_sent 1
fi
rocx_barrier mcast_done
t "ping6 after the multicast checks" ping -6 -c 2 -i 0.2 -W 5 "$peer6%$dev"

# tcp_xfer NAME MIB - guest 0 sends MIB of random data, guest 1 checks it.
tcp_xfer() {
	local name=$1 mib=$2 port=$((5000 + RANDOM % 1000)) got want t0 t1

	if [ "$me" -eq 1 ]; then
		port=$(rocx_get "port.$name")
		timeout 120 socat -u "TCP-LISTEN:$port,reuseaddr" OPEN:/tmp/rx,creat,trunc &
		local rx=$!
		wait_for 10 sh -c "ss -Hltn 'sport = :$port' | grep -q ."
		rocx_put "listening.$name" 1
		wait "$rx" || return 1
		want=$(rocx_get "sha.$name")
		got=$(sha256sum /tmp/rx | cut -d' ' -f1)
		echo "# received $(stat -c %s /tmp/rx) bytes"
		[ "$got" = "$want" ]
	else
		rocx_put "port.$name" "$port"
		head -c "${mib}M" /dev/urandom >/tmp/tx
		rocx_put "sha.$name" "$(sha256sum /tmp/tx | cut -d' ' -f1)"
		rocx_get "listening.$name" >/dev/null
		t0=$(date +%s%N)
		timeout 120 socat -u FILE:/tmp/tx "TCP:$peer:$port" || return 1
		t1=$(date +%s%N)
		echo "# sent $mib MiB in $(((t1 - t0) / 1000000)) ms"
	fi
}

t "TCP 16 MiB, content verified" tcp_xfer mtu1500 16
rocx_barrier tcp1500

# Jumbo frames.
t "MTU 9000 accepted" ip link set "$dev" mtu 9000
t "MTU 9001 refused" sh -c "! ip link set $dev mtu 9001 2>/dev/null"
t "carrier up after MTU change" wait_for 20 carrier_is "$dev" 1
rocx_barrier mtu9000
t "ping 8972 bytes, DF, at MTU 9000" ping -c 2 -M do -s 8972 -W 5 "$peer"
t "TCP 8 MiB at MTU 9000, content verified" tcp_xfer mtu9000 8
rocx_barrier tcp9000
ip link set "$dev" mtu 1500

# ethtool.
t "ethtool -i names rocx_core" sh -c "ethtool -i $dev | grep -q '^driver: rocx_core'"
t "ethtool -S counts transmitted packets" sh -c \
	"ethtool -S $dev | awk '/tx_packets:/ && \$2 > 0 { f = 1 } END { exit !f }'"
t "ethtool -g reports rings" sh -c "ethtool -g $dev | grep -q '^RX:'"
t "ethtool link detected" sh -c "ethtool $dev | grep -q 'Link detected: yes'"

# ibv_devinfo through the rocx provider.
# (guest/ib_devinfo.sh looks at it in depth; here: both guests see it.)
rdma_env ibv_devinfo -v >/tmp/devinfo 2>&1
grep -E 'hca_id|state|active_mtu|link_layer|GID' /tmp/devinfo | sed 's/^/# /'
# ibv_devinfo prints RoCE v1 GIDs in full hex, v2 ones as addresses.
ip_hex=$(printf '%02x%02x:%02x%02x' $(echo "$ROCX_IP" | tr . ' '))
t "ibv_devices lists rocx" sh -c "LD_LIBRARY_PATH=$ROCX_RDMA/lib ibv_devices | grep -q $ibdev"
t "ibv_devinfo: port ACTIVE" grep -q 'state:.*PORT_ACTIVE' /tmp/devinfo
t "ibv_devinfo: link layer Ethernet" grep -q 'link_layer:.*Ethernet' /tmp/devinfo
t "ibv_devinfo: active MTU 1024 at netdev MTU 1500" grep -q 'active_mtu:.*1024' /tmp/devinfo
t "ibv_devinfo: RoCE v1 GID of $ROCX_IP" grep -q "ffff:$ip_hex, RoCE v1" /tmp/devinfo
t "ibv_devinfo: RoCE v2 GID of $ROCX_IP" grep -q "::ffff:$ROCX_IP, RoCE v2" /tmp/devinfo

port_state() {
	rdma_env ibv_devinfo -d "$ibdev" | grep -q "state:.*$1"
}

# ethtool -t MODE - the self-test passes: ethtool's verdict and exit status,
# and each of the three results 0 (online leaves the interrupt test at 0).
selftest() {
	local out=/tmp/selftest.$1 rc=0

	ethtool -t "$dev" ${1:+"$1"} >"$out" 2>&1 || rc=$?
	sed 's/^/# /' "$out"
	[ "$rc" -eq 0 ] && grep -q 'The test result is PASS' "$out" &&
		awk '/\((on\/)?offline\)/ { n++; if ($NF != "0") bad = 1 }
		     END { exit bad || n != 3 }' "$out"
}

# Self-tests on the live interface: online (registers, DMA) while traffic
# may flow; offline adds vectors 0 and 1, quiescing NAPI around vector 1.
# Both guests test at once; the pings after show the data path came back,
# and the RDMA port never noticed.
rocx_barrier selftest
t "ethtool -t online passes" selftest online
t "ethtool -t offline passes" selftest offline
t "ethtool -t (default: offline) passes" selftest ""
t "ib port still ACTIVE after ethtool -t" port_state PORT_ACTIVE
t "self-test logged no failure" sh -c "! dmesg | grep -iE 'self-test.*(fail|never|timed out)'"
rocx_barrier selftest_done
t "ping after ethtool -t" ping -c 3 -i 0.2 -W 5 "$peer"
t "ping 1472 bytes, DF, after ethtool -t" ping -c 2 -M do -s 1472 -W 5 "$peer"

# Link down/up from the guest: guest 0 takes its port down, guest 1 loses it.
rocx_barrier guest_link
if [ "$me" -eq 0 ]; then
	ip link set "$dev" down
	t "ib port DOWN after ip link down" wait_for 10 port_state PORT_DOWN
	rocx_put guest_down 1
	rocx_get guest_checked >/dev/null
	ip link set "$dev" up
	t "carrier back after ip link up" wait_for 20 carrier_is "$dev" 1
	t "ib port ACTIVE after ip link up" wait_for 10 port_state PORT_ACTIVE
	rocx_put guest_up 1
else
	rocx_get guest_down >/dev/null
	t "peer unreachable while its link is down" sh -c "! ping -c 2 -W 1 $peer"
	rocx_put guest_checked 1
	rocx_get guest_up >/dev/null
fi
t "ping after guest link down/up" wait_for 20 ping -c 1 -W 1 "$peer"

# Link down/up from the host: host/pair_link.sh cuts guest 1's backend.
rocx_barrier host_link
if [ "$me" -eq 1 ]; then
	rocx_put setlink_ready 1
	rocx_get host_off >/dev/null
	t "carrier down after host set_link off" wait_for 10 carrier_is "$dev" 0
	t "ib port DOWN after host set_link off" wait_for 10 port_state PORT_DOWN
	rocx_put saw_down 1
	rocx_get host_on >/dev/null
	t "carrier up after host set_link on" wait_for 10 carrier_is "$dev" 1
	t "ib port ACTIVE after host set_link on" wait_for 10 port_state PORT_ACTIVE
fi
rocx_barrier host_link_done
t "ping after host link down/up" wait_for 20 ping -c 1 -W 1 "$peer"

rocx_barrier done
t "dmesg free of warnings" dmesg_clean
t_done
