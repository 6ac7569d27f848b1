#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A kernel of one's own under rocx lab (Documentation/lab.rst, "Your own
# kernel"), for whoever brings one: `make check-own-kernel KTREE=DIR`.
# lab/two-hosts.yaml with node a on the tree DIR and b on Debian's
# kernel: up builds the rocx modules for DIR and boots it; a runs DIR's
# release with the rocx modules built for it loaded and its port active;
# ibv_rc_pingpong with its data checked both ways between a and b (the
# two kernels' drivers against each other); down leaves nothing.  Not
# part of make check, which has no kernel tree of anyone's.  Boots
# guests: run it under flock /tmp/rocx-guests.lock as the other guest
# suites.  Last line: "own-kernel: N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
rocx=$repo/scripts/rocx
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 KERNEL_TREE (make check-own-kernel KTREE=DIR)" >&2
	exit 2
fi
tree=$(cd "$1" && pwd)
name=check-own-kernel
work=$(mktemp -d /tmp/rocx-ownkernel.XXXXXX)
trap '"$rocx" lab down --name "$name" >/dev/null 2>&1; rm -rf "$work"' EXIT

n=0 bad=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1)) bad=$((bad + 1))
	echo "not ok $n - $1"
}
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$3', want '$2')"; fi
}
finish() {
	echo "1..$n"
	echo "own-kernel: $((n - bad)) passed, $bad failed"
	[ "$bad" -eq 0 ]
	exit
}

sed -e "s/^name: two-hosts/name: $name/" "$repo/lab/two-hosts.yaml" |
	awk -v t="$tree" '{ print } /^  a:$/ { print "    kernel: " t }' \
	>"$work/lab.yaml"
t0=$(date +%s)
if "$rocx" lab up "$work/lab.yaml" >"$work/up.out" 2>&1; then
	ok "up: a on $tree, b on Debian's, in $(($(date +%s) - t0)) s"
	sed 's/^/# /' "$work/up.out"
else
	sed 's/^/# /' "$work/up.out"
	not_ok "up"
	finish
fi

rel=$(cat "$tree/include/config/kernel.release")
is "a runs the tree's kernel" "$rel" \
	"$("$rocx" lab exec a -- uname -r 2>&1)"
"$rocx" lab exec a -- bash -c \
	'grep -o "^rocx_[a-z]*" /proc/modules | sort | paste -sd" "; modinfo -F vermagic "$ROCX_MODDIR/rocx_ib.ko" | cut -d" " -f1; echo "$ROCX_MODDIR"' \
	>"$work/mods" 2>&1
is "a: rocx_core and rocx_ib loaded, built for $rel in build/lab-kernels" \
	"rocx_core rocx_ib|$rel|build/lab-kernels" \
	"$(sed -n 1,2p "$work/mods" | paste -sd'|')|$(sed -n 3p "$work/mods" |
		grep -o 'build/lab-kernels')"
is "a: rocx0's port is active" "PORT_ACTIVE" \
	"$("$rocx" lab exec a -- ibv_devinfo -d rocx0 2>&1 | grep -o PORT_ACTIVE | head -1)"

# gid_of NODE - the index of NODE's RoCE v2 GID of its IPv4 address
# (::ffff:198.18.0.N).
gid_of() {
	"$rocx" lab exec "$1" -- bash -c '
		p=/sys/class/infiniband/rocx0/ports/1
		for f in "$p"/gids/*; do
			i=${f##*/}
			[ "$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
				grep -q "^0000:0000:0000:0000:0000:ffff:c612" "$f" &&
				{ echo "$i"; break; }
		done'
}

# pingpong SERVER CLIENT - ibv_rc_pingpong --chk over the IPv4 RoCE v2
# GIDs between the two nodes, every message's data checked.
pingpong() {
	local srv=$1 cli=$2 sip rc spid sgid cgid end

	sip=$([ "$srv" = a ] && echo 198.18.0.1 || echo 198.18.0.2)
	sgid=$(gid_of "$srv")
	cgid=$(gid_of "$cli")
	"$rocx" lab exec "$srv" -- timeout 180 ibv_rc_pingpong -d rocx0 \
		-g "$sgid" -n 200 --chk >"$work/pp.srv" 2>&1 &
	spid=$!
	# A node runs one exec at a time, so the server's own node cannot
	# say when it listens: the client tries again while it is refused,
	# for up to two minutes (a debug kernel of one's own can take tens of
	# seconds to start a program just after boot).
	end=$(($(date +%s) + 120))
	while :; do
		sleep 1
		"$rocx" lab exec "$cli" -- timeout 60 ibv_rc_pingpong -d rocx0 \
			-g "$cgid" -n 200 --chk "$sip" >"$work/pp.cli" 2>&1
		rc=$?
		grep -q "Couldn't connect" "$work/pp.cli" || break
		[ "$(date +%s)" -lt "$end" ] || break
	done
	wait "$spid" || rc=1
	[ "$rc" = 0 ] || sed 's/^/# /' "$work/pp.srv" "$work/pp.cli"
	is "ibv_rc_pingpong --chk, $srv serving $cli" 0 "$rc"
}
pingpong a b
pingpong b a

"$rocx" lab down --name "$name" >"$work/down.out" 2>&1
rc=$?
is "down" 0 "$rc"
is "... leaves no QEMU of the lab running" "" \
	"$(pgrep -f "build/lab/$name/" | head -1)"
finish
