# SPDX-License-Identifier: GPL-2.0
# Versions of everything rocx builds against.  Cache keys derive from these.
ROCX_KVER=6.12.95+deb12-amd64
ROCX_KSRC_VER=6.12.95-1~bpo12+1
ROCX_QEMU_VER=10.0.2
ROCX_RDMA_CORE_VER=56.1
ROCX_CACHE=${ROCX_CACHE:-$HOME/.cache/rocx}
