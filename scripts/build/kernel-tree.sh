#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A kernel source tree (Debian's linux-source-6.12) with the rocx drivers and
# headers overlaid and hooked into Kconfig and the Makefiles as in-tree
# drivers (CONFIG_ROCX_CORE, CONFIG_INFINIBAND_ROCX), for KUnit and checkpatch.
# Unpacked once in $ROCX_CACHE; later runs copy in only changed files.
# Prints the tree's path as its last line.  With --no-overlay it only makes
# sure the tree is unpacked (for its scripts/, e.g. checkpatch.pl).
#
# ROCX_CORE_DIR, ROCX_IB_DIR, ROCX_INCLUDE_DIR and ROCX_UAPI_HDR override the
# inputs (default: the repository's), for trying it on a scratch copy.
set -euo pipefail
tool=kernel-tree
. "$(dirname "$0")/build_lib.sh"

tarball=/usr/src/linux-source-6.12.tar.xz
core=${ROCX_CORE_DIR:-$repo/drivers/net/ethernet/rocx}
ib=${ROCX_IB_DIR:-$repo/drivers/infiniband/hw/rocx}
hdrs=${ROCX_INCLUDE_DIR:-$repo/include/rocx}
uapi=${ROCX_UAPI_HDR:-$repo/include/uapi/rdma/rocx-abi.h}

# add_before FILE LINE ANCHOR - insert LINE before the line ANCHOR, once.
add_before() {
	grep -qxF -- "$2" "$1" && return 0
	grep -qxF -- "$3" "$1" || die "$1 has no line '$3' to hook into"
	awk -v l="$2" -v a="$3" '$0 == a { print l } { print }' "$1" >"$1.new"
	mv "$1.new" "$1"
}

kernel_wire_core() {
	add_before "$1/drivers/net/ethernet/Kconfig" \
		'source "drivers/net/ethernet/rocx/Kconfig"' 'endif # ETHERNET'
	add_line "$1/drivers/net/ethernet/Makefile" 'obj-$(CONFIG_ROCX_CORE) += rocx/'
}

kernel_wire_ib() {
	add_before "$1/drivers/infiniband/Kconfig" \
		'source "drivers/infiniband/hw/rocx/Kconfig"' 'endif # !UML'
	add_line "$1/drivers/infiniband/hw/Makefile" \
		'obj-$(CONFIG_INFINIBAND_ROCX) += rocx/'
}

have=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed (scripts/install/deps.sh)"
[ "$have" = "$ROCX_KSRC_VER" ] ||
	die "linux-source-6.12 is $have, scripts/versions.sh pins $ROCX_KSRC_VER"

key=$(recipe_key kernel_wire_core kernel_wire_ib add_before "$ROCX_KSRC_VER")
tree="$ROCX_CACHE/linux-$ROCX_KSRC_VER-$key"
# An unpacked tree is never changed outside its own scripts/ users: no lock.
if [ "${1:-}" = --no-overlay ] && [ -f "$tree/.rocx-unpacked" ]; then
	printf '%s\n' "$tree"
	exit 0
fi
cache_lock "linux-$ROCX_KSRC_VER"

if [ ! -f "$tree/.rocx-unpacked" ]; then
	step "unpacking $tarball into $tree"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -C "$tree" --strip-components=1 -xf "$tarball"
	touch "$tree/.rocx-unpacked"
fi

if [ "${1:-}" = --no-overlay ]; then
	printf '%s\n' "$tree"
	exit 0
fi

step "overlaying the rocx drivers and headers"
[ -d "$hdrs" ] || die "no device headers: $hdrs is missing"
overlay "$hdrs" "$tree/include/rocx" --delete
if [ -f "$uapi" ]; then
	rsync -c "$uapi" "$tree/include/uapi/rdma/rocx-abi.h"
fi
if [ -f "$core/Kconfig" ]; then
	overlay "$core" "$tree/drivers/net/ethernet/rocx" --delete
	kernel_wire_core "$tree"
else
	step "warning: no $core/Kconfig, rocx_core is left out"
fi
if [ -f "$ib/Kconfig" ]; then
	overlay "$ib" "$tree/drivers/infiniband/hw/rocx" --delete
	kernel_wire_ib "$tree"
else
	step "warning: no $ib/Kconfig, rocx_ib is left out"
fi
printf '%s\n' "$tree"
