#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""I/O helpers of the iser group (guest/iser.sh).

  iser_io.py pattern FILE MIB KEY
  iser_io.py odd DEV BASE_MIB

pattern writes MIB MiB to FILE: one MiB of os.urandom() repeated, each
512-byte sector stamped with KEY, its MiB and its sector number, so that
a sector landing in the wrong place, on the wrong target or shifted
within its page shows (random data of that size costs a minute under
TCG, this a few seconds).

odd: each case writes random data from a buffer at a memory offset that
is not a page's, to DEV at BASE_MIB MiB and beyond, and reads it back
into a buffer at another such offset.  The block layer hands ib_iser
those pages as they are (its DMA alignment is 64 bytes), so each
command's fast-registered MR starts inside its first page: the REG_MR's
iova carries the offset and the page list the whole pages, up to the
most pages an MR maps.  Prints one TAP line per case; exits 1 if any
failed.
"""
import mmap
import os
import struct
import sys

MIB = 1 << 20
# (memory offset of the write buffer, of the read buffer, length).
CASES = (
    (64, 3584, 4096),
    (512, 64, 64 * 1024 + 512),
    (3584, 1536, MIB),
    (64, 4032, 2 * MIB - 4096),
    (1024, 2048, 2 * MIB),
    (4032, 64, 4 * MIB - 512),
)
SLOT = 8 * MIB


SECTOR = 512


def pattern(path, mib, key):
    """The pattern file (see the module's doc)."""
    base = os.urandom(MIB)
    with open(path, 'wb') as f:
        for m in range(mib):
            chunk = bytearray(base)
            for s in range(MIB // SECTOR):
                struct.pack_into('<III', chunk, s * SECTOR, key, m, s)
            f.write(chunk)
    return 0


def odd(dev, base):
    """The odd-offset cases (see the module's doc)."""
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    wbuf = mmap.mmap(-1, SLOT + 2 * mmap.PAGESIZE)
    rbuf = mmap.mmap(-1, SLOT + 2 * mmap.PAGESIZE)
    failed = 0
    for i, (woff, roff, length) in enumerate(CASES):
        pos = base + i * SLOT
        name = (f'{length} bytes at device offset {pos} from memory '
                f'offset {woff}, read back to offset {roff}')
        data = os.urandom(length)
        wbuf[woff:woff + length] = data
        rbuf[roff:roff + length] = bytes(length)
        try:
            n = os.pwritev(fd, [memoryview(wbuf)[woff:woff + length]], pos)
            m = os.preadv(fd, [memoryview(rbuf)[roff:roff + length]], pos)
        except OSError as err:
            n = m = -1
            print(f'# {err}')
        ok = n == length and m == length and rbuf[roff:roff + length] == data
        if not ok:
            failed += 1
            print(f'# wrote {n}, read {m} of {length}')
        print(f'{"ok" if ok else "not ok"} - {name}')
    os.close(fd)
    return 1 if failed else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == 'pattern':
        return pattern(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    if len(sys.argv) == 4 and sys.argv[1] == 'odd':
        return odd(sys.argv[2], int(sys.argv[3]) * MIB)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
