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
# The parts' output beside the work directory, which the switch test
# empties as it goes.
res=$(mktemp -d /tmp/rocx-swres.XXXXXX)
trap 'rm -rf "$work" "$res"' EXIT
# The lossless fabric's arithmetic, on a virtual clock: the switch's own
# files but main.c, and a main of the test's.
sw=$root/tools/rocx-switch
srcs=()
for f in "$sw"/*.c; do
	[ "$(basename "$f")" = main.c ] || srcs+=("$f")
done
cc -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$sw" \
	-I"$root/include" -o "$work/test_qos" "$here/test_qos.c" "${srcs[@]}" -lm
# The parts' checks count in the suite's one summary line: the
# arithmetic's "qos: N passed, N failed", the incast group's judging of
# the switch's series (host/incast.py), then the switch's own.
set +e
"$work/test_qos" | tee "$res/qos.out"
qos_rc=${PIPESTATUS[0]}
python3 "$root/tests/e2e/host/incast_selftest.py" | tee "$res/incast.out"
timeout 180 python3 "$here/test_switch.py" "$exe" "$work" | tee "$res/switch.out" |
	grep -v '^switch: [0-9]* passed'
sw_rc=${PIPESTATUS[0]}
read -r qp qf < <(sed -nE 's/^qos: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$res/qos.out")
read -r ip ipf < <(sed -nE 's/^incast.py: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$res/incast.out")
read -r sp sf < <(sed -nE 's/^switch: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$res/switch.out")
# A part that ended without its line counts as one failure.
[ -n "${qp:-}" ] || qp=0 qf=1
[ -n "${ip:-}" ] || ip=0 ipf=1
[ -n "${sp:-}" ] || sp=0 sf=1
echo "switch: $((qp + ip + sp)) passed, $((qf + ipf + sf)) failed"
[ "$qos_rc" -eq 0 ] && [ "$sw_rc" -eq 0 ] && [ $((qf + ipf + sf)) -eq 0 ]
