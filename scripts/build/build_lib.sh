# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers sourced by the scripts that build heavy trees (QEMU, rdma-core, the
# kernel) in $ROCX_CACHE.  Set `tool` to the script's name before sourcing.
#
# A cache entry is keyed by a hash of the shell functions that create it (see
# recipe_key), so that editing how a tree is unpacked or configured starts a
# fresh one while editing anything else in a script does not.

tool=${tool:?set tool before sourcing scripts/build/build_lib.sh}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$repo/scripts/versions.sh"
export ROCX_CACHE

step() { printf '%s: %s\n' "$tool" "$*"; }
die() { printf '%s: error: %s\n' "$tool" "$*" >&2; exit 1; }

# recipe_key WORD... - short hash of the WORDs and of the text of those
# that name shell functions.
recipe_key() {
	local w fns=()

	for w in "$@"; do
		declare -F -- "$w" >/dev/null 2>&1 && fns+=("$w")
	done
	{ declare -f "${fns[@]}"; printf '%s\n' "$@"; } | sha256sum | cut -c1-12
}

# cache_lock NAME - serialise every script that touches $ROCX_CACHE/NAME.
# The lock is inherited by child scripts (ROCX_LOCKS), which then skip it
# rather than deadlock on it.
cache_lock() {
	local f="$ROCX_CACHE/$1.lock"

	case " ${ROCX_LOCKS:-} " in *" $f "*) return 0 ;; esac
	mkdir -p "$ROCX_CACHE"
	exec {lockfd}>"$f"
	if ! flock -n "$lockfd"; then
		step "waiting for another build holding $f"
		flock -w 3600 "$lockfd" || die "timed out waiting for $f"
	fi
	export ROCX_LOCKS="${ROCX_LOCKS:-} $f"
}

# fetch_orig PKG=VERSION FILE - the upstream tarball of a Debian source
# package, downloaded once into $ROCX_CACHE/dl.  The suites' .dsc and
# .debian.tar files answer 404, so apt's exit status is not a verdict: the
# tarball is, and apt has already checked it against the Sources index.
fetch_orig() {
	local dl="$ROCX_CACHE/dl"

	if [ ! -s "$dl/$2" ]; then
		step "downloading $2 (apt-get source $1)" >&2
		mkdir -p "$dl"
		(cd "$dl" && timeout 900 apt-get -q source --download-only "$1" \
			>"$dl/$2.log" 2>&1) || true
		[ -s "$dl/$2" ] || die "apt-get source $1 gave no $2; see $dl/$2.log (is scripts/install/apt-sources.sh applied and apt-get update run?)"
	fi
	printf '%s\n' "$dl/$2"
}

# overlay SRC DST [--delete] - copy a repository directory onto a tree.
# Comparing by checksum leaves unchanged files' mtimes alone, so make and
# ninja rebuild only what was really edited.  Build outputs that the
# repository ignores (an out-of-tree module build leaves them beside the
# sources) are never copied.
overlay() {
	local ign=()

	[ -d "$1" ] || die "overlay source $1 does not exist"
	[ -f "$repo/.gitignore" ] && ign=(--exclude-from="$repo/.gitignore")
	mkdir -p "$2"
	rsync -rc "${ign[@]}" "${@:3}" "$1/" "$2/"
}

# add_line FILE LINE - append LINE to FILE unless it is already there.
add_line() {
	grep -qxF -- "$2" "$1" || printf '%s\n' "$2" >>"$1"
}

# link NAME TARGET - build/NAME -> TARGET, for the other scripts and Makefile.
link() {
	mkdir -p "$repo/build"
	ln -sfn "$2" "$repo/build/$1"
}
