#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a kernel with the rocx drivers and their KUnit tests built in
# (tests/kunit/rocx.kunitconfig), run it under QEMU and report.  The build
# directory lives in $ROCX_CACHE, so a rerun rebuilds only what changed.
# Extra arguments go to kunit.py run (e.g. a filter glob: 'rocx_core*').
# Last line: `kunit: N passed, N failed, N skipped`; exit status 0 only if
# tests ran and none failed.
set -euo pipefail
tool=kunit
. "$(dirname "$0")/../build/lib.sh"

kunitconfig=$repo/tests/kunit/rocx.kunitconfig
# kunit.py boots the first qemu-system-x86_64 on PATH with `-bios qboot.rom`:
# Debian's has that firmware, a self-built "+ds" QEMU has none.
export PATH="/usr/bin:$PATH"

# The tree must not change under a build: hold its lock (kernel-tree.sh
# takes the same one) until the tests have run.
cache_lock "linux-$ROCX_KSRC_VER"
tree=
while IFS= read -r line; do
	printf '%s\n' "$line"
	tree=$line
done < <("$repo/scripts/build/kernel-tree.sh")
[ -f "$tree/Makefile" ] || die "scripts/build/kernel-tree.sh gave no kernel tree"
# One build directory per tree: kbuild rebuilds everything if an O= build
# directory is pointed at another source tree.
build="$ROCX_CACHE/kunit-build-${tree##*/linux-}"
rm -f "$build/test.log"

step "building and running in $build (kunit.py, -j2)"
rc=0
(cd "$tree" && timeout 3600 python3 tools/testing/kunit/kunit.py run \
	--arch=x86_64 --kunitconfig="$kunitconfig" --build_dir="$build" \
	--jobs=2 --timeout=300 "$@") || rc=$?

# Count leaf test cases (a result line with no results nested under it)
# from the KTAP in the kernel log that kunit.py kept.
read -r pass fail skip < <(awk '
	!on && /TAP version/ {
		on = 1
		cut = index($0, "TAP version") - 1
		if (cut > 0 && substr($0, cut, 1) == "K")
			cut--
		next
	}
	!on { next }
	{ line = substr($0, cut + 1) }
	line ~ /^ *(not )?ok [0-9]+/ {
		d = match(line, /[^ ]/) - 1
		if (!deeper[d]) {
			if (line ~ /^ *not ok/)
				f++
			else if (line ~ /# *SKIP/)
				s++
			else
				p++
		}
		for (k in deeper)
			if (k + 0 > d)
				deeper[k] = 0
		for (k = 0; k < d; k++)
			deeper[k] = 1
		deeper[d] = 0
	}
	END { printf "%d %d %d\n", p, f, s }' "$build/test.log" 2>/dev/null || echo 0 0 0)

link kunit.log "$build/test.log"
echo "kunit: $pass passed, $fail failed, $skip skipped"
if [ "$rc" != 0 ] || [ "$fail" != 0 ] || [ "$pass" = 0 ]; then
	die "KUnit failed (kunit.py status $rc); kernel log: build/kunit.log"
fi
