#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install and build everything rocx needs, from Debian's archive and this
# tree.  Every step is cached (packages by their list, QEMU/rdma-core/kernel
# trees by their inputs in $ROCX_CACHE), so a second run takes seconds.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

t0=$(date +%s)
stamp() { printf 'build-all: %s (%ds)\n' "$1" $(($(date +%s) - t0)); }

bash scripts/install/deps.sh
stamp "packages installed"
bash scripts/build/qemu.sh
stamp "qemu built"
bash scripts/build/rdma-core.sh
stamp "rdma-core built"
make -s modules
stamp "modules built"
make -s tools
stamp "tools built"
bash scripts/build/mkinitramfs.sh
stamp "guest initramfs built"
