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
timeout 120 python3 "$here/test_switch.py" "$exe" "$work"
