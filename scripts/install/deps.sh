#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything rocx needs from Debian's archive.  Idempotent: a stamp
# keyed by the package list skips apt entirely on a machine that has them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../versions.sh"

pkgs_bookworm=(
	build-essential bc flex bison libelf-dev libssl-dev dwarves cpio kmod
	xz-utils zstd rsync file pkg-config git python3 ca-certificates
	ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev libslirp-dev
	libattr1-dev libcap-ng-dev seabios qemu-system-data qemu-system-x86
	cmake libnl-3-dev libnl-route-3-dev libudev-dev python3-dev cython3
	libsystemd-dev
	busybox-static ethtool iputils-ping netcat-openbsd socat
	perftest ibverbs-utils rdmacm-utils rdma-core infiniband-diags
	tshark libpcap-dev libisal-dev sparse
	clang libclang-rt-14-dev
	procps psmisc
)
# iproute2 6.15: bookworm's 6.1 `dcb` has no `apptrust` (guests run the
# host's user space, so the e2e dcb test needs it here).
pkgs_backports=(
	meson python3-pycotap iproute2
	"linux-image-${ROCX_KVER}-unsigned" "linux-headers-${ROCX_KVER}"
	"linux-source-6.12=${ROCX_KSRC_VER}"
)

key=$(printf '%s\n' "${pkgs_bookworm[@]}" "${pkgs_backports[@]}" | sha256sum | cut -c1-16)
stamp=/var/lib/rocx-deps.$key
[ -f "$stamp" ] && exit 0

bash "$here/apt-sources.sh"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no ahead of time.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -q
apt-get install -y -q --no-install-recommends "${pkgs_bookworm[@]}"
apt-get install -y -q --no-install-recommends -t bookworm-backports "${pkgs_backports[@]}"
touch "$stamp"
