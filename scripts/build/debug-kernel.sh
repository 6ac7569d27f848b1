#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the rocx debug guest kernel and the checkout's rocx modules against
# it.  The kernel is Debian's linux-source-6.12 (the tree that
# scripts/build/kernel-tree.sh gives, shared with KUnit) configured as
# allnoconfig plus tests/debug/guest.config: only what the test guests use,
# all built in, plus KASAN, lockdep, kmemleak and the list, object and
# DMA-API checks.  Its build directory lives in $ROCX_CACHE and is rebuilt
# only when the configuration's inputs change.
#
#   scripts/build/debug-kernel.sh        prints the output directory last
#
# Output, in the checkout's build/debug/:
#   vmlinux           PVH-bootable ELF (run-guests.sh --kernel debug)
#   modules/          rocx_core.ko, rocx_ib.ko built against it
#   kunit-modules/    the same two with their KUnit tests linked in, for
#                     scripts/run/kunit.sh (absent if they did not build)
#   splat/rocx_splat.ko  tests/debug/rocx_splat.c, the deliberately broken
#                     module of tests/e2e/host/splat_selftest.sh
#   lib/modules/REL/  modules.builtin and depmod's files, which the guests
#                     see as /lib/modules/REL so that modprobe finds the
#                     built-in drivers (scripts/guest/init.sh)
#   kernelrelease     REL, the kernel's `uname -r`
#   config            its .config
#
# ROCX_JOBS sets make's -j (default 2).  Measured on the 2-core machine,
# from nothing: about 7 min wall with other builds running (load 3), 9 CPU
# minutes in all; a rebuild for the checkout's drivers takes seconds.
set -euo pipefail
tool=debug-kernel
. "$(dirname "$0")/build_lib.sh"

frag=$repo/tests/debug/guest.config
out=$repo/build/debug
jobs=${ROCX_JOBS:-2}

# debug_configure TREE BUILD - write BUILD/.config from the fragment.
debug_configure() {
	make -s -C "$1" O="$2" ARCH=x86_64 KCONFIG_ALLCONFIG="$frag" \
		allnoconfig >"$2/configure.log" 2>&1
}

# debug_make TREE BUILD TARGET... - kbuild in BUILD, quietly, logged.
debug_make() {
	local t=$1 b=$2

	shift 2
	make -C "$t" O="$b" ARCH=x86_64 -j"$jobs" "$@" >>"$b/build.log" 2>&1
}

# check_config BUILD - every line of the fragment made it into the .config
# as written (a symbol whose dependencies are missing silently does not).
check_config() {
	local line sym bad=0

	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		if ! grep -qxF -- "$line" "$1/.config"; then
			printf '%s: wanted "%s", got "%s"\n' "$tool" "$line" \
				"$(grep -E "^(# )?${sym}[= ]" "$1/.config" || echo unset)" >&2
			bad=1
		fi
	done <"$frag"
	return "$bad"
}

[ -f "$frag" ] || die "no configuration fragment $frag"
# The tree's rocx drivers stay uncompiled, but they are overlaid for their
# Kconfig (what they select) and include/rocx, which the out-of-tree build
# finds first on the include path: the tree must hold this checkout's
# copies from the overlay until the modules are built.
cache_lock "linux-$ROCX_KSRC_VER"
tree=
while IFS= read -r line; do
	printf '%s\n' "$line"
	tree=$line
done < <("$repo/scripts/build/kernel-tree.sh")
[ -f "$tree/Makefile" ] || die "scripts/build/kernel-tree.sh gave no kernel tree"

key=$(recipe_key debug_configure debug_make "${tree##*/linux-}")
build="$ROCX_CACHE/debug-build-$key"
# Every user of the build directory holds the tree's lock too; its own
# lock says so to a reader of $ROCX_CACHE and costs nothing.
cache_lock "debug-build-$key"
mkdir -p "$build"

# Inputs of the kernel image: the fragment and the Kconfig of the drivers,
# which decides what they select.  The rest of the tree is Debian's, fixed
# by the tree's key.
stamp=$(cat "$frag" "$repo"/drivers/net/ethernet/rocx/Kconfig \
	"$repo"/drivers/infiniband/hw/rocx/Kconfig | sha256sum | cut -c1-16)
if [ "$(cat "$build/.rocx-stamp" 2>/dev/null)" != "$stamp" ] ||
	[ ! -s "$build/vmlinux" ]; then
	t0=$(date +%s)
	rm -f "$build/.rocx-stamp" "$build/build.log"
	step "configuring $build (allnoconfig + ${frag#"$repo"/})"
	debug_configure "$tree" "$build" ||
		die "configuration failed; see $build/configure.log"
	check_config "$build" || die "${frag#"$repo"/} does not apply to this tree"
	step "building vmlinux (-j$jobs, log: $build/build.log)"
	if ! debug_make "$tree" "$build" vmlinux modules_prepare; then
		grep -E 'error|Error' "$build/build.log" | tail -n 20 >&2
		die "kernel build failed; see $build/build.log"
	fi
	# Module.symvers lists what modules may link against; with no module
	# of its own the tree's is exactly vmlinux's.
	cp "$build/vmlinux.symvers" "$build/Module.symvers"
	echo "$stamp" >"$build/.rocx-stamp"
	step "kernel built in $(($(date +%s) - t0)) s"
fi
krel=$(cat "$build/include/config/kernel.release")

# copy_drivers DIR - the checkout's drivers, headers and Kbuild under DIR.
# The modules are built in copies: building in the source directories
# would overwrite the objects `make modules` leaves there for Debian's
# kernel.
copy_drivers() {
	overlay "$repo/drivers/net/ethernet/rocx" "$1/drivers/net/ethernet/rocx" --delete
	overlay "$repo/drivers/infiniband/hw/rocx" "$1/drivers/infiniband/hw/rocx" --delete
	overlay "$repo/include" "$1/include" --delete
	rsync -c "$repo/Kbuild" "$1/Kbuild"
}

# ext_make DIR ARG... - build the modules in DIR against the kernel;
# log in DIR/modules.log.
ext_make() {
	local d=$1

	shift
	make -C "$tree" O="$build" M="$d" -j"$jobs" "$@" modules >"$d/modules.log" 2>&1
}

step "building the rocx modules against $krel"
ext=$out/src
copy_drivers "$ext"
if ! ext_make "$ext" CONFIG_ROCX_CORE=m CONFIG_INFINIBAND_ROCX=m; then
	tail -n 30 "$ext/modules.log" >&2
	die "module build failed; see $ext/modules.log"
fi
grep -E 'warning:' "$ext/modules.log" >&2 || true

# For KUnit, a second pair with each driver's tests linked into it: a test
# may then call any function of its driver, as it may when kunit.py links
# everything into vmlinux, where separate test modules could call only
# what the drivers export.  Every *_KUNIT_TEST symbol of the drivers'
# Kconfig is set, and the objects it adds (*_test.o) move into the
# driver's module.  Optional: scripts/run/kunit.sh falls back to kunit.py
# without it.
kext=$out/src-kunit
copy_drivers "$kext"
ksyms=(CONFIG_ROCX_CORE=m CONFIG_INFINIBAND_ROCX=m)
while read -r s; do
	ksyms+=("CONFIG_$s=m")
done < <(sed -n 's/^config \([A-Z0-9_]*_KUNIT_TEST\)$/\1/p' \
	"$repo"/drivers/net/ethernet/rocx/Kconfig "$repo"/drivers/infiniband/hw/rocx/Kconfig)
for dm in drivers/net/ethernet/rocx:rocx_core drivers/infiniband/hw/rocx:rocx_ib; do
	printf '%s\n' '' "# Added by scripts/build/debug-kernel.sh for KUnit." \
		"${dm#*:}-y += \$(filter %_test.o,\$(obj-m))" \
		"obj-m := \$(filter-out %_test.o,\$(obj-m))" >>"$kext/${dm%:*}/Makefile"
done
kunit_ok=1
if ! ext_make "$kext" "${ksyms[@]}"; then
	kunit_ok=0
	grep -E 'ERROR|error:' "$kext/modules.log" | head -n 10 >&2
	step "warning: the drivers with their KUnit tests linked in did not build" \
		"(see ${kext#"$repo"/}/modules.log); scripts/run/kunit.sh will use kunit.py"
fi

# And the negative test's deliberately broken module, in a copy of its own.
splat=$out/splat
overlay "$repo/tests/debug" "$splat" --delete
if ! make -C "$tree" O="$build" M="$splat" -j"$jobs" modules >"$splat/modules.log" 2>&1; then
	tail -n 30 "$splat/modules.log" >&2
	die "rocx_splat.ko did not build; see $splat/modules.log"
fi

# The e2e kverbs group's test module (tests/e2e/kmod), likewise.
kmod=$out/kmod
overlay "$repo/tests/e2e/kmod" "$kmod" --delete
if ! make -C "$tree" O="$build" M="$kmod" -j"$jobs" modules >"$kmod/modules.log" 2>&1; then
	tail -n 30 "$kmod/modules.log" >&2
	die "rocx_ib_kvtest.ko did not build; see $kmod/modules.log"
fi

# Publish into the checkout, so that guests booting from it keep their
# files while another checkout rebuilds the shared directory.
rm -rf "$out/modules" "$out/kunit-modules"
mkdir -p "$out/modules"
for m in rocx_core rocx_ib; do
	f=$(find "$ext/drivers" -name "$m.ko")
	[ -s "$f" ] || die "the module build left no $m.ko"
	cp "$f" "$out/modules/"
	if [ "$kunit_ok" = 1 ]; then
		mkdir -p "$out/kunit-modules"
		cp "$(find "$kext/drivers" -name "$m.ko")" "$out/kunit-modules/"
	fi
done
# The e2e kverbs group's test module, beside them.
cp "$kmod/rocx_ib_kvtest.ko" "$out/modules/" ||
	die "the module build left no rocx_ib_kvtest.ko"
if [ "$(cat "$out/.stamp" 2>/dev/null)" != "$stamp-$krel" ] ||
	[ ! -s "$out/vmlinux" ]; then
	mods=$out/lib/modules/$krel
	rm -rf "${out:?}/lib"
	mkdir -p "$mods"
	cp "$build/modules.builtin" "$build/modules.builtin.modinfo" "$mods/"
	: >"$mods/modules.order"
	depmod -b "$out" "$krel"
	cp "$build/.config" "$out/config"
	cp "$build/vmlinux" "$out/vmlinux.tmp"
	mv "$out/vmlinux.tmp" "$out/vmlinux"
	echo "$krel" >"$out/kernelrelease"
	echo "$stamp-$krel" >"$out/.stamp"
fi
step "done: $krel in build/debug (vmlinux, modules/, lib/modules/$krel)"
printf '%s\n' "$out"
