#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Lint every C file with the style its project follows:
#   drivers/, include/   the kernel's checkpatch --strict, then the out-of-tree
#                        module build with sparse (C=2) and W=1, and W=1
#                        against Debian 12's 6.1 headers too
#   tests/e2e/kmod/      the kernel's checkpatch --strict (a test module that
#                        make kvtest builds)
#   qemu/                QEMU's own scripts/checkpatch.pl (cached QEMU source),
#                        and the model's floors (scripts/run/layers.py)
#   providers/           the kernel's checkpatch with the checks rdma-core's CI
#                        turns off (buildlib/azp-checkpatch), not --strict
#   tools/               checkpatch --strict minus the kernel-only checks a
#                        user-space program cannot follow (kernel types,
#                        positive errno values, C library names)
# A file passes when its checker is silent and, for the kernel code, the
# compiler and sparse say nothing about it.  The module build runs on a copy
# in build/lint/ so that it neither races `make modules` in the tree nor
# leaves objects there.  Last line: `lint: N passed, N failed`.
set -euo pipefail
tool=lint
. "$(dirname "$0")/../build/build_lib.sh"

# Plain ASCII diagnostics, the same on every machine.
export LC_ALL=C
kdir=${KDIR:-/usr/src/linux-headers-$ROCX_KVER}
work=$repo/build/lint
cd "$repo"

mapfile -t files < <(git ls-files -co --exclude-standard -- \
	'drivers/*.[ch]' 'include/*.[ch]' 'tests/e2e/kmod/*.[ch]' | sort -u)
[ "${#files[@]}" -gt 0 ] || die "no .c/.h files under drivers/ or include/"
tree=$("$repo/scripts/build/kernel-tree.sh" --no-overlay | tail -n 1)
checkpatch=$tree/scripts/checkpatch.pl
[ -x "$checkpatch" ] || die "no $checkpatch"
[ -d "$kdir" ] || die "no kernel headers at $kdir (linux-headers-$ROCX_KVER)"
mkdir -p "$work"
declare -A bad=()

# Per-file exceptions, each for a stated reason:
#  rocx_bits.h: the field helpers reuse their mask argument on purpose, to
#  stay constant expressions (see the comment there).
declare -A except=([rocx_bits.h]=MACRO_ARG_REUSE)

step "checkpatch --strict on ${#files[@]} files"
for f in "${files[@]}"; do
	ign=()
	[ -n "${except[$(basename "$f")]:-}" ] && ign=(--ignore "${except[$(basename "$f")]}")
	if ! out=$("$checkpatch" --no-tree --strict --quiet --show-types \
			--no-summary "${ign[@]}" -f "$f" 2>&1); then
		printf '%s\n' "$out"
		bad[$f]=1
	fi
done

# lint_with NAME CHECKER... -- FILE...: run CHECKER on each FILE; any output
# or a non-zero status fails the file.
lint_with() {
	local name=$1 f out cmd=()

	shift
	while [ "$1" != -- ]; do cmd+=("$1"); shift; done
	shift
	step "$name on $# files"
	for f in "$@"; do
		files+=("$f")
		if ! out=$("${cmd[@]}" "$f" 2>&1) || [ -n "$out" ]; then
			printf '%s\n' "$out"
			bad[$f]=1
		fi
	done
}

mapfile -t model < <(git ls-files -co --exclude-standard -- 'qemu/*.[ch]' | sort -u)
qemu_src=$(readlink -f build/qemu-system-x86_64 2>/dev/null |
	sed 's|/build/qemu-system-x86_64[^/]*$||')
if [ -f "$qemu_src/scripts/checkpatch.pl" ]; then
	lint_with "QEMU's checkpatch" perl "$qemu_src/scripts/checkpatch.pl" \
		--no-tree --no-summary --strict -q -f -- "${model[@]}"
else
	step "no QEMU source (run scripts/build/qemu.sh): model not checked"
	bad[qemu]=1
fi

# The model's floors (rocx-int.h): no call may run up one.
step "layering of the model (scripts/run/layers.py)"
python3 "$repo/scripts/run/layers.py" "$repo" || bad[qemu/hw/net/rocx]=1

mapfile -t prov < <(git ls-files -co --exclude-standard -- 'providers/*.[ch]' | sort -u)
lint_with "checkpatch (rdma-core's CI set)" "$checkpatch" --no-tree --quiet \
	--show-types --no-summary --ignore \
	PREFER_KERNEL_TYPES,FILE_PATH_CHANGES,EXECUTE_PERMISSIONS,USE_NEGATIVE_ERRNO,CONST_STRUCT \
	-f -- "${prov[@]}"

# CAMELCASE: C11's _Static_assert and <inttypes.h>'s PRIu64 are not ours.
mapfile -t tools < <(git ls-files -co --exclude-standard -- 'tools/*.[ch]' \
	tests/bench/switch_cost.c | sort -u)
lint_with "checkpatch --strict (user space)" "$checkpatch" --no-tree --strict \
	--quiet --show-types --no-summary --ignore \
	PREFER_KERNEL_TYPES,USE_NEGATIVE_ERRNO,CAMELCASE,FILE_PATH_CHANGES \
	-f -- "${tools[@]}"

step "sparse (C=2) and W=1 build against $kdir"
rsync -rc --delete --exclude-from="$repo/.gitignore" \
	--include='/Kbuild' --include='/drivers/***' --include='/include/***' \
	--exclude='*' "$repo/" "$work/src/"
log=$work/build.log
rc=0
timeout 900 make -C "$kdir" M="$work/src" C=2 W=1 -j2 \
	CONFIG_ROCX_CORE=m CONFIG_INFINIBAND_ROCX=m modules >"$log" 2>&1 || rc=$?
# Report paths as the repository's; a diagnostic outside it (a kernel
# header) is shown but not held against our files.
while IFS= read -r line; do
	path=${line%%:*}
	rel=$(cd "$kdir" && realpath -m --relative-to="$work/src" -- "$path")
	case $rel in
	../*) printf 'note: %s\n' "$line" ;;
	*) printf '%s:%s\n' "$rel" "${line#*:}"; bad[$rel]=1 ;;
	esac
done < <(grep -E '^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):' "$log" || true)
if [ "$rc" != 0 ]; then
	tail -n 20 "$log"
	step "the build failed (status $rc); log: $log"
	bad[build]=1
fi

# Debian 12's own 6.1 through the compatibility layer (rocx_compat.h):
# W=1 again, without sparse, which the build above has run on the code.
if [ -n "$ROCX_KVER61" ]; then
	kdir61=/usr/src/linux-headers-$ROCX_KVER61
	step "W=1 build against $kdir61"
	rsync -rc --delete --exclude-from="$repo/.gitignore" \
		--include='/Kbuild' --include='/drivers/***' --include='/include/***' \
		--exclude='*' "$repo/" "$work/src61/"
	log61=$work/build61.log
	rc=0
	timeout 900 make -C "$kdir61" M="$work/src61" W=1 -j2 \
		CONFIG_ROCX_CORE=m CONFIG_INFINIBAND_ROCX=m modules >"$log61" 2>&1 || rc=$?
	while IFS= read -r line; do
		path=${line%%:*}
		rel=$(cd "$kdir61" && realpath -m --relative-to="$work/src61" -- "$path")
		case $rel in
		../*) printf 'note: %s\n' "$line" ;;
		*) printf '%s (6.1):%s\n' "$rel" "${line#*:}"; bad[$rel]=1 ;;
		esac
	done < <(grep -E '^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):' "$log61" || true)
	if [ "$rc" != 0 ]; then
		tail -n 20 "$log61"
		step "the 6.1 build failed (status $rc); log: $log61"
		bad[build61]=1
	fi
else
	step "no Debian 6.1 headers (scripts/install/deps.sh): 6.1 build not checked"
	bad[build61]=1
fi

# Every file checked counts once; so does a failed build.
fail=${#bad[@]}
pass=0
for f in "${files[@]}"; do
	[ -n "${bad[$f]:-}" ] || pass=$((pass + 1))
done
for f in "${!bad[@]}"; do step "FAIL $f"; done
echo "lint: $pass passed, $fail failed"
[ "$fail" = 0 ]
