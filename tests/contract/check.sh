#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The device contract (include/rocx/) must be what the model, the driver
# and the provider were built with.  Each build copies it unchanged into its
# tree; this check fails if any copy differs from the repository's or is
# missing, and if any side no longer includes it.  The size asserts inside
# the headers then hold in all three compilers' views.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. scripts/versions.sh
passed=0 failed=0

check() {
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

same_dir() {
	local f

	[ -d "$1" ] || { echo "# $1 missing"; return 1; }
	for f in include/rocx/*.h; do
		cmp -s "$f" "$1/$(basename "$f")" || { echo "# $1/$(basename "$f") differs"; return 1; }
	done
}

qemu_src=$(readlink -f build/qemu-system-x86_64 | sed 's|/build/qemu-system-x86_64[^/]*$||')
rdma_src=$(readlink -f build/rdma-core | sed 's|/build$||')
# The tree KUnit and the debug kernel's modules were built in, named as
# kernel-tree.sh names it (--no-overlay: the check must not make itself
# true by copying the contract in).
ktree=$(bash scripts/build/kernel-tree.sh --no-overlay 2>/dev/null | tail -n 1)

check "QEMU was built with the repository's contract" same_dir "$qemu_src/include/rocx"
check "rdma-core provider was built with the repository's contract" \
	same_dir "$rdma_src/providers/rocx/rocx"
check "uverbs ABI header in rdma-core matches" \
	cmp -s include/uapi/rdma/rocx-abi.h "$rdma_src/kernel-headers/rdma/rocx-abi.h"
# make check runs this after KUnit: a tree without the contract is a
# failure, not a reason to check less.
check "KUnit kernel tree has the repository's contract" \
	same_dir "${ktree:-no-kernel-tree}/include/rocx"
check "model, drivers and provider all include the contract" sh -c '
	grep -rlq "rocx/rocx_if.h" qemu/hw/net/rocx &&
	grep -rlq "rocx/rocx_if.h" drivers/net/ethernet/rocx &&
	grep -rlq "rocx/rocx_.*\.h" drivers/infiniband/hw/rocx &&
	grep -rlq "rocx/rocx_.*\.h" providers/rocx'
# The Python tests read their constants from the headers (tests/lib):
# the structs they lay out must have the sizes the C compilers assert.
check "Python tests read the contract as the C compilers do" \
	sh -c "python3 tests/lib/contract.py >/dev/null"
# Both module objects were compiled against this tree's headers (modinfo
# srcversion changes with any included file, so compare build inputs).
check "modules rebuilt after the last contract change" sh -c '
	for h in include/rocx/*.h; do
		[ build/modules/rocx_core.ko -nt "$h" ] || exit 1
	done'
# The doorbell-record post's fence between its store of sq_pi and its
# load of POLL must be MFENCE: QEMU's TCG with one vCPU gives a
# LOCK-prefixed instruction (what compilers emit for a full fence) no
# barrier, and a post could then be lost (rocx-device.rst, "Doorbell
# records").
sq_ring_fences() {
	local lib fn

	lib=$(ls "$rdma_src"/build/lib/librocx-rdmav*.so 2>/dev/null | head -n 1)
	[ -n "$lib" ] || { echo "# no provider library in $rdma_src/build/lib"; return 1; }
	# Whole, then searched: grep -q would leave objdump a broken pipe.
	fn=$(objdump -d --no-show-raw-insn "$lib" |
		awk '/<rocx_sq_ring>:/ { f = 1 } f && /^$/ { f = 0 } f')
	grep -qw mfence <<<"$fn"
}
check "provider's doorbell-record post fences with MFENCE" sq_ring_fences

echo "contract: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
