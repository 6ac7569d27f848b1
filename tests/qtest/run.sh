#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run the QEMU glue suite (glue.py: the model as QEMU runs it, driven over
# the qtest protocol) against build/qemu-system-x86_64.  Without that
# binary the suite fails: make check builds it first, so its absence is a
# broken build, not a reason to test less.  Last line:
# "qtest: N passed, N failed[, N skipped]".
#
# Usage: run.sh [-v] [CASE...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
qemu=$repo/build/qemu-system-x86_64

if [ ! -x "$qemu" ]; then
	echo "qtest: no $qemu (scripts/build/qemu.sh builds it)"
	echo "qtest: 0 passed, 1 failed"
	exit 1
fi
timeout 300 python3 "$here/glue.py" --qemu "$qemu" "$@"
