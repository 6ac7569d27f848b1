#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the rocx_ib end-to-end tests: build uctx_hold against the
# self-built libibverbs, boot one guest with a rocx NIC per guest script
# (ibv_devinfo.sh, rocx_ib_unload.sh) and total their checks.  Needs
# build/modules (make), build/rdma-core (scripts/build-rdma-core.sh) and
# QEMU with the rocx model (scripts/build-qemu.sh).
#
# Prints one "rocx_ib: N passed, N failed" line; a guest that dies without
# its summary counts as one failure.  Output: build/guest/rocx_ib/<script>/.
# ROCX_MODDIR (a directory under the repository, which guests see) tests
# modules other than build/modules.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
rdma=build/rdma-core
moddir=${ROCX_MODDIR:-$repo/build/modules}
spec_env=
[ -n "${ROCX_MODDIR:-}" ] && spec_env=",env=ROCX_MODDIR=$ROCX_MODDIR"

for f in "$moddir/rocx_core.ko" "$moddir/rocx_ib.ko" \
	"$rdma/lib/libibverbs.so.1"; do
	[ -e "$f" ] || { echo "rocx_ib: missing $f"; echo "rocx_ib: 0 passed, 1 failed"; exit 1; }
done
mkdir -p build/tests
if ! cc -O2 -Wall -Wextra -o build/tests/uctx_hold tests/e2e/uctx_hold.c \
	-I"$rdma/include" -L"$rdma/lib" -libverbs; then
	echo "rocx_ib: 0 passed, 1 failed"
	exit 1
fi

pass=0 fail=0
run() {
	local script=$1 limit=$2 out=build/guest/rocx_ib/$1 line

	rm -rf "$out"
	timeout $((limit + 60)) scripts/guest/run-guests.sh --timeout "$limit" \
		--out "$out" --guest "nic=rocx,cmd=tests/e2e/$script.sh$spec_env"
	line=$(grep -E '^rocx_ib: [0-9]+ passed, [0-9]+ failed' "$out/guest0/log" 2>/dev/null | tail -n 1)
	if [ -z "$line" ]; then
		echo "$script: no summary (see $out/guest0/console.log)"
		fail=$((fail + 1))
		return
	fi
	grep -E '^not ok ' "$out/guest0/log"
	pass=$((pass + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
	fail=$((fail + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
}

run ibv_devinfo 300
run rocx_ib_unload 600
echo "rocx_ib: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
