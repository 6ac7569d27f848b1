#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Add the Debian suites rocx builds from: bookworm-backports (binaries and
# sources: kernel 6.12, QEMU 10.0, meson) and trixie as deb-src only (the
# rdma-core 56 source).  The mirror is taken from the machine's own apt
# configuration so that no registry host is ever written into the tree.
set -euo pipefail

list=/etc/apt/sources.list.d/rocx.sources
if [ -f "$list" ]; then
	exit 0
fi

mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	# First URI of a stanza whose suites include bookworm (not -security).
	mirror=$(awk '
		/^URIs:/ { uri = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") { print uri; exit } }
	' "$f")
	[ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)
fi
if [ -z "$mirror" ]; then
	echo "apt-sources: cannot find the bookworm mirror in the apt configuration" >&2
	exit 1
fi

cat > "$list" <<EOS
Types: deb deb-src
URIs: $mirror
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: $mirror
Suites: bookworm trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
echo "apt-sources: added bookworm-backports and trixie (deb-src) from the local mirror"
