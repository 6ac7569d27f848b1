#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of tools/rocx-switch (builds it first if needed).
#   tests/switch/run.sh [SWITCH_BINARY]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
exe=${1:-$root/build/tools/rocx-switch}
if [ $# -eq 0 ]; then
	make -s -C "$root/tools/rocx-switch" O="$root/build/tools"
fi
work=$(mktemp -d /tmp/rocx-swtest.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The lossless fabric's arithmetic, on a virtual clock: the switch's own
# files but main.c, and a main of the test's.
sw=$root/tools/rocx-switch
srcs=()
for f in "$sw"/*.c; do
	[ "$(basename "$f")" = main.c ] || srcs+=("$f")
done
cc -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$sw" \
	-I"$root/include" -o "$work/test_qos" "$here/test_qos.c" "${srcs[@]}" -lm
"$work/test_qos"
timeout 180 python3 "$here/test_switch.py" "$exe" "$work"
