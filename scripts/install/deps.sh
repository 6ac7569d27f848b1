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
	# scripts/run/layers.py indexes the device model with ctags.
	universal-ctags
	clang libclang-rt-14-dev
	procps psmisc
	nvme-cli fio
	# The e2e iser group's initiator (iscsid, iscsiadm); its target, LIO,
	# is set up through configfs, which is all targetcli would do.
	open-iscsi
	gnuplot-nox
	# rocx lab: topology files, and the agent its guests run commands with.
	python3-yaml qemu-guest-agent
)
# iproute2 6.15: bookworm's 6.1 `dcb` has no `apptrust` (guests run the
# host's user space, so the e2e dcb test needs it here).
pkgs_backports=(
	meson python3-pycotap iproute2
	"linux-image-${ROCX_KVER}-unsigned" "linux-headers-${ROCX_KVER}"
	"linux-source-6.12=${ROCX_KSRC_VER}"
)

# Debian 12's own kernel, 6.1, for the compatibility build and its guests:
# the ABI name (6.1.0-N) changes with every bookworm point release, so it is
# what bookworm's (not backports') linux-headers-amd64 depends on today.
# Its guests load 6.1's ib_core, 9p and virtio modules from the host root.
kernel61_pkgs() {
	local v abi

	v=$(apt-cache madison linux-headers-amd64 | awk '$3 ~ /^6\.1\./ { print $3; exit }')
	[ -n "$v" ] || return 1
	abi=$(apt-cache depends "linux-headers-amd64=$v" |
		sed -n 's/^ *Depends: linux-headers-\(6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -n 1)
	[ -n "$abi" ] || return 1
	echo "linux-headers-$abi linux-image-$abi-unsigned"
}

key=$(printf '%s\n' "${pkgs_bookworm[@]}" "${pkgs_backports[@]}" | sha256sum | cut -c1-16)
stamp=/var/lib/rocx-deps.$key
# A 6.1 kernel already installed (scripts/versions.sh finds it) is enough:
# a newer bookworm point release need not be followed on every run.
[ -f "$stamp" ] && [ -n "$ROCX_KVER61" ] && exit 0

bash "$here/apt-sources.sh"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no ahead of time.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -q
read -ra pkgs61 <<<"$(kernel61_pkgs)" ||
	{ echo "deps: no linux-headers-6.1.0-*-amd64 in bookworm's index" >&2; exit 1; }
[ ${#pkgs61[@]} -gt 0 ] ||
	{ echo "deps: no linux-headers-6.1.0-*-amd64 in bookworm's index" >&2; exit 1; }
apt-get install -y -q --no-install-recommends "${pkgs_bookworm[@]}" "${pkgs61[@]}"
apt-get install -y -q --no-install-recommends -t bookworm-backports "${pkgs_backports[@]}"
touch "$stamp"
