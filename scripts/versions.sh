# SPDX-License-Identifier: GPL-2.0
# Versions of everything rocx builds against.  Cache keys derive from these.
ROCX_KVER=6.12.95+deb12-amd64
ROCX_KSRC_VER=6.12.95-1~bpo12+1
ROCX_QEMU_VER=10.0.2
ROCX_RDMA_CORE_VER=56.1
ROCX_CACHE=${ROCX_CACHE:-$HOME/.cache/rocx}
# Debian 12's own kernel, the oldest one rocx supports: its ABI name
# (6.1.0-N-amd64) follows bookworm's point releases, so it is not fixed
# here but found: the newest installed with headers and modules
# (scripts/install/deps.sh installs the archive's).  Empty if none.
ROCX_KVER61=$(for d in /usr/src/linux-headers-6.1.0-*-amd64; do
	k=${d#/usr/src/linux-headers-}
	if [ -d "/lib/modules/$k/kernel" ]; then echo "$k"; fi
done | sort -V | tail -n 1)
