#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Raw Ethernet frames to multicast groups, for the pair group's check of
the device's multicast filter (tests/e2e/guest/pair.sh).

  mcast.py send DEV DST N      N frames to DST (EtherType 0x88b5, IEEE local
                               experimental 1), numbered in the payload
  mcast.py recv DEV STOPFILE   count the 0x88b5 frames DEV delivers, per
                               destination, until a second after STOPFILE
                               exists (30 s at most); prints "DST COUNT"

The receiving socket does not make DEV promiscuous and does not filter by
group: whatever the NIC passes up arrives, so a group missing from the
output was dropped before the kernel saw it.
"""
import os
import select
import socket
import struct
import sys
import time

ETHERTYPE = 0x88b5


def mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(':'))


def mac_str(b):
    return ':'.join('%02x' % x for x in b)


def send(dev, dst, n):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    src = s.getsockname()[4]
    for i in range(n):
        payload = b'rocx-mcast' + struct.pack('!I', i)
        frame = mac_bytes(dst) + src + struct.pack('!H', ETHERTYPE) + payload
        s.send(frame.ljust(60, b'\0'))
        time.sleep(0.01)


def recv(dev, stopfile):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETHERTYPE))
    s.bind((dev, ETHERTYPE))
    counts = {}
    deadline = time.monotonic() + 30
    stop_at = None
    while True:
        now = time.monotonic()
        if stop_at is None and os.path.exists(stopfile):
            stop_at = now + 1
        if now >= deadline or (stop_at is not None and now >= stop_at):
            break
        r, _, _ = select.select([s], [], [], 0.1)
        if not r:
            continue
        frame = s.recv(2048)
        if frame[14:24] != b'rocx-mcast':
            continue
        dst = mac_str(frame[0:6])
        counts[dst] = counts.get(dst, 0) + 1
    for dst, n in sorted(counts.items()):
        print(dst, n)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == 'send':
        send(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == 'recv':
        recv(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
