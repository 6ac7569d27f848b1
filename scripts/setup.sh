#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# One command for a fresh Debian 12 machine: install everything from
# Debian's archive, build QEMU with the rocx model, rdma-core with the rocx
# provider, the modules and tools, then run the two-guest demo.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bash "$repo/scripts/build/all.sh"
exec bash "$repo/scripts/run/demo.sh"
