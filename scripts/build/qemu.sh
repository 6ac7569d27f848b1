#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build qemu-system-x86_64 from Debian's QEMU source with the rocx device
# model (the repository's qemu/ tree) overlaid on it.  The source is unpacked
# and configured once in $ROCX_CACHE; later runs copy changed model files in
# and let ninja rebuild only those.  Result: build/qemu-system-x86_64.
#
# ROCX_QEMU_DIR and ROCX_INCLUDE_DIR override the trees overlaid (default: the
# repository's qemu/ and include/rocx/), for trying the build on a scratch copy.
set -euo pipefail
tool=build-qemu
. "$(dirname "$0")/build_lib.sh"

deb_ver="1:${ROCX_QEMU_VER}+ds-2+deb13u1~bpo12+1"
model=${ROCX_QEMU_DIR:-$repo/qemu}
hdrs=${ROCX_INCLUDE_DIR:-$repo/include/rocx}
# QEMU's configure and meson want Debian's python, which has meson's modules.
export PATH="/usr/bin:$PATH"

qemu_unpack() {
	tar -C "$1" --strip-components=1 -xf "$2"
	# The "+ds" tarball lacks the edk2 firmware blobs that pc-bios/meson.build
	# unpacks whenever bzip2 is found; rocx guests use Debian's firmware.
	sed -i 's/^\( *unpack_edk2_blobs = \)bzip2\.found()$/\1false/' "$1/meson.build"
	grep -q '^ *unpack_edk2_blobs = false$' "$1/meson.build" ||
		die "could not disable edk2 blob unpacking in meson.build"
}

# Hook hw/net/rocx into QEMU's build, Kconfig and trace event lists.
qemu_wire() {
	add_line "$1/hw/net/meson.build" "subdir('rocx')"
	add_line "$1/hw/net/Kconfig" "source rocx/Kconfig"
	grep -q "^ *'hw/net/rocx',$" "$1/meson.build" ||
		sed -i "s|^\( *\)'hw/net',$|&\n\1'hw/net/rocx',|" "$1/meson.build"
	grep -q "^ *'hw/net/rocx',$" "$1/meson.build" ||
		die "could not add hw/net/rocx to trace_events_subdirs"
}

qemu_configure() {
	mkdir -p "$1/build"
	(cd "$1/build" && ../configure --target-list=x86_64-softmmu \
		--without-default-features --enable-tcg --enable-slirp \
		--enable-attr --enable-virtfs --disable-docs \
		--disable-install-blobs) >"$1/configure.log" 2>&1 ||
		die "configure failed; see $1/configure.log"
}

[ -f "$model/hw/net/rocx/meson.build" ] ||
	die "no device model: $model/hw/net/rocx/meson.build is missing"
[ -d "$hdrs" ] || die "no device headers: $hdrs is missing"

key=$(recipe_key qemu_unpack qemu_wire qemu_configure "$deb_ver")
top="$ROCX_CACHE/qemu-$ROCX_QEMU_VER-$key"
src="$top/src"
cache_lock "qemu-$ROCX_QEMU_VER-$key"

if [ ! -f "$top/configured" ]; then
	tarball=$(fetch_orig "qemu=$deb_ver" "qemu_${ROCX_QEMU_VER}+ds.orig.tar.xz")
	step "unpacking $(basename "$tarball") into $src"
	rm -rf "$top"
	mkdir -p "$src"
	qemu_unpack "$src" "$tarball"
fi

step "overlaying $model and $hdrs"
overlay "$model" "$src"
# The model's own directories mirror the repository exactly, removals too.
overlay "$model/hw/net/rocx" "$src/hw/net/rocx" --delete
overlay "$hdrs" "$src/include/rocx" --delete
qemu_wire "$src"

if [ ! -f "$top/configured" ]; then
	step "configuring (log: $top/configure.log)"
	qemu_configure "$src"
	mv "$src/configure.log" "$top/configure.log"
	touch "$top/configured"
fi

step "building qemu-system-x86_64 (ninja -j2)"
ninja -C "$src/build" -j2 qemu-system-x86_64 >"$top/build.log" 2>&1 || {
	tail -n 40 "$top/build.log" >&2
	die "build failed; see $top/build.log"
}
grep -E '(warning|error):' "$top/build.log" | grep -F 'hw/net/rocx' >&2 || true
# Publish a copy: a failed link deletes ninja's output, and guests that other
# scripts are running must keep their binary.  It stays in the build
# directory, where QEMU looks for its bundled data.  The copy is named after
# the checkout, so two checkouts sharing the cache (each overlays its own
# model before building) never run each other's device.
out="$src/build/qemu-system-x86_64"
pub="$out.rocx-$(printf '%s' "$repo" | sha256sum | cut -c1-8)"
cp "$out" "$pub.tmp"
mv "$pub.tmp" "$pub"
link qemu-system-x86_64 "$pub"
step "done: build/qemu-system-x86_64 -> $pub"
