#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end suite: boots groups of guests (once per group, not per test)
# on the rocx fabric and counts the "ok"/"not ok" lines their scripts print.
# Prints "e2e: N passed, N failed" last.
#
#   tests/e2e/run.sh [GROUP...]     groups: pair hostile ib rc rxe wire virtio
# Group rxe (rocx and Soft-RoCE interoperating) runs only when named;
# ROCX_INTEROP_PEER=rxe runs it with rxe on both guests.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out=$repo/build/e2e
rg=scripts/guest/run-guests.sh
passed=0 failed=0

make -s -C tests/e2e || { echo "e2e: 0 passed, 1 failed"; exit 1; }

# count GROUP - add up the TAP lines of every guest of a finished group.
count() {
	local g=$1 rc=$2 d p f

	for d in "$out/$g"/guest*; do
		[ -d "$d" ] || continue
		p=$(grep -c '^ok ' "$d/log" 2>/dev/null)
		f=$(grep -c '^not ok ' "$d/log" 2>/dev/null)
		grep -E '^(not )?ok ' "$d/log" 2>/dev/null | sed "s|^|$g/$(basename "$d"): |"
		if [ "$(cat "$d/rc" 2>/dev/null)" != 0 ] && [ "${f:-0}" -eq 0 ]; then
			echo "$g/$(basename "$d"): not ok - guest ended with rc=$(cat "$d/rc" 2>/dev/null || echo none)"
			tail -n 30 "$d/console.log" 2>/dev/null | sed 's/^/#   /'
			f=1
		fi
		passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
	done
	if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
		echo "$g: not ok - run-guests exited $rc"
		failed=$((failed + 1))
	fi
}

# host_check NAME CMD... - a check made on the host after a group.
host_check() {
	local name=$1

	shift
	if "$@"; then
		echo "ok - $name"
		passed=$((passed + 1))
	else
		echo "not ok - $name"
		failed=$((failed + 1))
	fi
}

# Guests with a rocx NIC log the model's guest-error reports to qemu.log.
rx() {
	args+=(--guest "nic=rocx,cmd=tests/e2e/$1" --extra "-d guest_errors")
}

group() {
	local g=$1 t0=$(date +%s) rc

	shift
	echo "--- e2e group $g"
	rm -rf "${out:?}/$g"
	"$rg" --out "$out/$g" "$@" >"$out/$g.log" 2>&1
	rc=$?
	count "$g" "$rc"
	echo "--- e2e group $g: $(($(date +%s) - t0)) s"
	return "$rc"
}

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(pair hostile ib rc rxe wire virtio)
mkdir -p "$out"

for g in "${groups[@]}"; do
	case $g in
	pair)
		args=()
		rx rocx_pair.sh
		rx rocx_pair.sh
		group pair --timeout 600 --host-cmd "bash tests/e2e/host_link.sh" "${args[@]}"
		;;
	hostile)
		args=()
		rx rocx_hostile.sh
		rx rocx_hostile.sh
		group hostile --timeout 400 "${args[@]}"
		host_check "hostile: QEMU logged the guest errors" \
			grep -q 'rocx' "$out/hostile/guest0/qemu.log"
		;;
	ib)
		# Two independent single-guest scripts, booted side by side.
		args=()
		rx ibv_devinfo.sh
		rx rocx_ib_unload.sh
		group ib --timeout 600 "${args[@]}"
		;;
	rc)
		# RC transport: loopback checks in guest 0, then guest to guest.
		args=()
		rx rocx_rc.sh
		rx rocx_rc.sh
		group rc --timeout 600 "${args[@]}"
		host_check "rc: the model logged no guest errors" \
			sh -c "! grep -qi rocx $out/rc/guest0/qemu.log $out/rc/guest1/qemu.log"
		;;
	virtio)
		group virtio --timeout 300 \
			--guest nic=virtio,cmd=tests/e2e/virtio_smoke.sh \
			--guest nic=virtio,cmd=tests/e2e/virtio_smoke.sh
		;;
	rxe | wire)
		# rxe: guest 0 rocx (or rxe), guest 1 rxe on virtio-net.
		# wire: rocx on both sides, the same perftest and verbs runs
		# with data verified.  Then the captured RoCE v2 frames are
		# checked on the host (headers and ICRC computed independently).
		args=()
		if [ "$g" = wire ]; then
			rx "rxe_interop.sh,env=ROCX_INTEROP_TAG=wire"
			rx "rxe_interop.sh,env=ROCX_INTEROP_PEER_KIND=rocx,env=ROCX_INTEROP_TAG=wire"
		elif [ "${ROCX_INTEROP_PEER:-}" = rxe ]; then
			args+=(--guest "nic=virtio,cmd=tests/e2e/rxe_interop.sh,env=ROCX_INTEROP_KIND=rxe")
			args+=(--guest "nic=virtio,cmd=tests/e2e/rxe_interop.sh")
		else
			rx rxe_interop.sh
			args+=(--guest "nic=virtio,cmd=tests/e2e/rxe_interop.sh")
		fi
		group "$g" --timeout 600 --pcap "$out/$g/fabric.pcap" "${args[@]}"
		pc=tests/e2e/roce_pcap_check.py
		host_check "$g: capture: frames to UDP 4791 decode as RoCE v2" \
			"$pc" decode "$out/$g/fabric.pcap"
		host_check "$g: capture: IPv4, UDP and ICRC of every RoCE v2 frame" \
			"$pc" icrc "$out/$g/fabric.pcap"
		host_check "$g: capture: BTH destination QPs are those the guests used" \
			"$pc" qpn "$out/$g/fabric.pcap" "$out/$g"/guest*/qpns
		# The guests' addresses (scripts/guest/lib.sh rocx_ip).
		host_check "$g: capture: both sides sent SEND, WRITE, READ and ACK packets" \
			"$pc" opcodes "$out/$g/fabric.pcap" 198.18.0.1 198.18.0.2
		;;
	*)
		echo "unknown group $g"
		failed=$((failed + 1))
		;;
	esac
done

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
