#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of an uncompressed, PVH-bootable vmlinux of Debian's kernel,
# extracted once into $ROCX_CACHE/guest/.  QEMU loads such an ELF straight
# into guest memory and enters it in 32-bit mode, skipping the firmware's
# real-mode boot and the kernel's self-decompression, which cost about 2 s
# per boot under TCG.  Prints the vmlinuz path instead when that fails.
#
#   scripts/build/vmlinux.sh [KVER]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/scripts/versions.sh"
kver=${1:-$ROCX_KVER}
vmlinuz=/boot/vmlinuz-$kver
[ -r "$vmlinuz" ] || { echo "vmlinux: cannot read $vmlinuz" >&2; exit 1; }

key=$(sha256sum "$vmlinuz" | cut -c1-12)
out=$ROCX_CACHE/guest/vmlinux-$kver-$key
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$ROCX_CACHE/guest"
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT

# The payload is the first compressed stream inside the bzImage that
# decompresses to an ELF file; the ELF must carry the PVH entry note.
if /usr/bin/python3 - "$vmlinuz" "$tmp" <<'PY'
import subprocess
import sys

MAGIC = {
    b"\x28\xb5\x2f\xfd": ["zstd", "-dcq"],
    b"\xfd7zXZ\x00": ["xz", "-dcq"],
    b"\x1f\x8b\x08": ["gzip", "-dcq"],
}
data = open(sys.argv[1], "rb").read()
for magic, cmd in MAGIC.items():
    at = data.find(magic)
    while at >= 0:
        r = subprocess.run(cmd, input=data[at:], capture_output=True)
        if r.stdout[:4] == b"\x7fELF":
            open(sys.argv[2], "wb").write(r.stdout)
            sys.exit(0)
        at = data.find(magic, at + 1)
sys.exit(1)
PY
then
	# XEN_ELFNOTE_PHYS32_ENTRY (type 0x12) marks the PVH entry point.
	if readelf -n "$tmp" 2>/dev/null | grep -qE 'Xen.*(0x00000012|PHYS32)'; then
		mv "$tmp" "$out"
		echo "$out"
		exit 0
	fi
fi
echo "vmlinux: no PVH vmlinux in $vmlinuz; booting it compressed" >&2
echo "$vmlinuz"
