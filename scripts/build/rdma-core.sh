#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build rdma-core from Debian's source with the rocx provider (the
# repository's providers/rocx/) added to it.  Unpacked and configured once in
# $ROCX_CACHE; later runs copy changed files in and let ninja rebuild them.
# The build is IN_PLACE, so it runs as is: build/rdma-core -> its build dir
# (bin/, lib/, etc/libibverbs.d/rocx.driver).
#
# ROCX_PROVIDER_DIR, ROCX_INCLUDE_DIR and ROCX_UAPI_HDR override the inputs
# (default: the repository's providers/rocx, include/rocx and
# include/uapi/rdma/rocx-abi.h), for trying the build on a scratch copy.
# pyverbs (rdma-core's Python bindings, which its tests/run_tests.py and the
# e2e group "pyverbs" need) is part of the build: it costs about 80 s of CPU
# more than the 35 s of a build without it, but one tree serves everything,
# so a fresh machine builds rdma-core once and a provider edit rebuilds one
# tree.  ROCX_PYVERBS=0 builds without it (a cache entry of its own).
set -euo pipefail
tool=build-rdma-core
. "$(dirname "$0")/build_lib.sh"

deb_ver="${ROCX_RDMA_CORE_VER}-1"
prov=${ROCX_PROVIDER_DIR:-$repo/providers/rocx}
hdrs=${ROCX_INCLUDE_DIR:-$repo/include/rocx}
uapi=${ROCX_UAPI_HDR:-$repo/include/uapi/rdma/rocx-abi.h}
pyverbs=${ROCX_PYVERBS:-1}
export PATH="/usr/bin:$PATH"

# List the provider and its uAPI header (published, and wrapped for
# DECLARE_DRV_CMD as <kernel-abi/rocx-abi.h>) in rdma-core's build.
rdma_wire() {
	grep -q '^add_subdirectory(providers/rocx)$' "$1/CMakeLists.txt" ||
		sed -i 's|^add_subdirectory(providers/siw)$|&\nadd_subdirectory(providers/rocx)|' \
			"$1/CMakeLists.txt"
	grep -q '^add_subdirectory(providers/rocx)$' "$1/CMakeLists.txt" ||
		die "could not add providers/rocx to CMakeLists.txt"
	grep -q 'rdma/rocx-abi\.h' "$1/kernel-headers/CMakeLists.txt" ||
		sed -i 's|^\( *\)rdma/efa-abi\.h$|&\n\1rdma/rocx-abi.h|' \
			"$1/kernel-headers/CMakeLists.txt"
	[ "$(grep -c 'rdma/rocx-abi\.h' "$1/kernel-headers/CMakeLists.txt")" = 2 ] ||
		die "could not add rocx-abi.h to kernel-headers/CMakeLists.txt"
}

rdma_configure() {
	local opts=(-GNinja -DIN_PLACE=1 -DNO_MAN_PAGES=1)

	[ "$2" = 1 ] || opts+=(-DNO_PYVERBS=1)
	mkdir -p "$1/build"
	(cd "$1/build" && cmake "${opts[@]}" ..) >"$1/configure.log" 2>&1 ||
		die "cmake failed; see $1/configure.log"
}

[ -f "$prov/CMakeLists.txt" ] || die "no provider: $prov/CMakeLists.txt is missing"
[ -d "$hdrs" ] || die "no device headers: $hdrs is missing"
[ -f "$uapi" ] || die "no uAPI header: $uapi is missing"

key=$(recipe_key rdma_wire rdma_configure "$deb_ver" "pyverbs=$pyverbs")
top="$ROCX_CACHE/rdma-core-$ROCX_RDMA_CORE_VER-$key"
src="$top/src"
cache_lock "rdma-core-$ROCX_RDMA_CORE_VER-$key"

if [ ! -f "$top/configured" ]; then
	tarball=$(fetch_orig "rdma-core=$deb_ver" "rdma-core_${ROCX_RDMA_CORE_VER}.orig.tar.gz")
	step "unpacking $(basename "$tarball") into $src"
	rm -rf "$top"
	mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xf "$tarball"
fi

step "overlaying $prov, $hdrs and $(basename "$uapi")"
# providers/rocx/rocx/ holds the device headers, so `#include "rocx/rocx_hw.h"`
# works from the provider; --delete must not touch it.
overlay "$prov" "$src/providers/rocx" --delete --exclude=/rocx/
overlay "$hdrs" "$src/providers/rocx/rocx" --delete
rsync -c "$uapi" "$src/kernel-headers/rdma/rocx-abi.h"
rdma_wire "$src"

if [ ! -f "$top/configured" ]; then
	step "configuring (pyverbs=$pyverbs, log: $top/configure.log)"
	rdma_configure "$src" "$pyverbs"
	mv "$src/configure.log" "$top/configure.log"
	touch "$top/configured"
fi

step "building (ninja -j2)"
ninja -C "$src/build" -j2 >"$top/build.log" 2>&1 || {
	tail -n 40 "$top/build.log" >&2
	die "build failed; see $top/build.log"
}
grep -E '(warning|error):' "$top/build.log" | grep -F 'providers/rocx' >&2 || true
ls "$src/build/lib/"librocx-rdmav*.so >/dev/null 2>&1 ||
	die "the build made no librocx-rdmav*.so"
# cmake leaves pyverbs out without a word when cython3 or python3-dev is
# missing (scripts/install/deps.sh installs both).
[ "$pyverbs" != 1 ] || ls "$src/build/python/pyverbs/"device*.so >/dev/null 2>&1 ||
	die "pyverbs was not built (cython3 and python3-dev installed? see $top/configure.log)"
link rdma-core "$src/build"
# The cached tree is overlaid by every checkout on this machine, so its
# provider is whichever checkout built last.  Keep this checkout's own copy,
# taken under the cache lock; guests load it first through RDMAV_DRIVERS
# (scripts/guest/init.sh) and libibverbs binds the device to the first
# provider that claims it.
prov_out="$repo/build/rdma-prov"
mkdir -p "$prov_out"
for so in "$src/build/lib/"librocx-rdmav*.so; do
	cp "$so" "$prov_out/.$(basename "$so").tmp"
	mv -f "$prov_out/.$(basename "$so").tmp" "$prov_out/$(basename "$so")"
done
step "done: build/rdma-core -> $src/build"
