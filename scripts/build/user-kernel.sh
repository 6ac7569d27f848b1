#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Make a kernel tree of one's own bootable as a rocx guest: the checkout's
# rocx modules built against it, and its own modules where the guest's
# modprobe finds them.  `rocx lab up` runs it for a node whose kernel is a
# directory (Documentation/lab.rst, "Your own kernel"), after checking the
# tree's .config against scripts/guest/minimum.config.
#
#   scripts/build/user-kernel.sh TREE OUT     prints OUT last
#
# TREE is a built kernel tree (the source tree, or the O= directory of an
# out-of-tree build): .config, include/config/kernel.release,
# Module.symvers.  Output in OUT:
#   src/              the copy of the sources the modules build in (objects
#                     for this kernel beside the checkout's own would be
#                     taken for another's, as with make modules-6.1)
#   modules/          rocx_core.ko, rocx_ib.ko built against TREE
#   lib/modules/REL/  TREE's modules (make modules_install), or, for a
#                     kernel with none, its modules.builtin and depmod's
#                     files: the guests see it as /lib/modules/REL
#                     (scripts/guest/init.sh, rocx_kmods=)
#   build.log         what make said
# The modules rebuild in seconds when nothing changed; TREE's modules are
# installed again only when its modules.order or kernel.release changes.
set -euo pipefail
tool=user-kernel
. "$(dirname "$0")/build_lib.sh"

[ $# -eq 2 ] || die "usage: $0 TREE OUT"
tree=$(cd "$1" && pwd) || die "no directory $1"
out=$2
jobs=${ROCX_JOBS:-2}
for f in .config include/config/kernel.release Module.symvers; do
	[ -s "$tree/$f" ] || die "$tree has no $f: is it a built kernel tree?"
done
krel=$(cat "$tree/include/config/kernel.release")
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/build.log
: >"$log"

# The sources as make modules-6.1 copies them; unchanged files keep their
# mtimes, so make rebuilds only what changed.
mkdir -p "$out/src"
rsync -rc --delete --exclude-from="$repo/.gitignore" --include=/Kbuild \
	--include='/drivers/***' --include='/include/***' --exclude='*' \
	"$repo/" "$out/src/"
step "building rocx_core.ko and rocx_ib.ko for $krel ($tree)"
if ! make -C "$tree" M="$out/src" -j"$jobs" CONFIG_ROCX_CORE=m \
	CONFIG_INFINIBAND_ROCX=m modules >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "the rocx modules did not build against $tree; see $log"
fi
mkdir -p "$out/modules"
for m in rocx_core rocx_ib; do
	f=$(find "$out/src/drivers" -name "$m.ko")
	[ -s "$f" ] || die "the module build left no $m.ko"
	cp "$f" "$out/modules/"
done

# The kernel's own modules.  Nothing here runs udev, so they load only
# through modprobe (ib_uverbs and its dependencies, file systems the
# kernel asks for): built-in drivers need modules.builtin for modprobe to
# call them there.
stamp="$krel $(stat -c %Y "$tree/modules.order" 2>/dev/null || echo none)"
mods=$out/lib/modules/$krel
if [ "$(cat "$out/.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$mods" ]; then
	rm -rf "${out:?}/lib" "$out/.stamp"
	if [ -s "$tree/modules.order" ]; then
		step "installing $krel's modules into ${mods#"$repo"/}"
		if ! make -C "$tree" INSTALL_MOD_PATH="$out" INSTALL_MOD_STRIP=1 \
			modules_install >>"$log" 2>&1; then
			tail -n 30 "$log" >&2
			die "make modules_install failed for $tree; see $log"
		fi
	else
		mkdir -p "$mods"
		cp "$tree/modules.builtin" "$tree/modules.builtin.modinfo" "$mods/" ||
			die "$tree has no modules.builtin"
		: >"$mods/modules.order"
		depmod -b "$out" "$krel" >>"$log" 2>&1 ||
			die "depmod failed for $mods; see $log"
	fi
	# The guest links /lib/modules/REL here: no links back into TREE.
	rm -f "$mods/build" "$mods/source"
	echo "$stamp" >"$out/.stamp"
fi
printf '%s\n' "$out"
