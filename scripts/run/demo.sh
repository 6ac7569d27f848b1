#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The rocx demo: two guests, each with a rocx NIC on the rocx-switch fabric,
# ping each other, move 16 MiB over TCP (content verified), list the RDMA
# device with ibv_devinfo, then move RDMA data: ibv_rc_pingpong over RoCE
# v2 and v1 (checked), ib_write_bw, rping through rdma_cm, and the counters
# that moved (scripts/guest/demo.sh, which make check runs as the e2e
# group demo).  Needs scripts/build/all.sh to have run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/demo
rc=0
"$repo/scripts/run/run-guests.sh" --timeout 300 --out "$out" \
	--guest nic=rocx,cmd=scripts/guest/demo.sh \
	--guest nic=rocx,cmd=scripts/guest/demo.sh || rc=$?
for g in 0 1; do
	echo "===== guest$g"
	cat "$out/guest$g/log" 2>/dev/null || tail -n 40 "$out/guest$g/console.log"
done
if [ "$rc" -eq 0 ]; then
	echo "demo: both guests succeeded (logs in $out)"
else
	echo "demo: FAILED (logs in $out)"
fi
exit "$rc"
