#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the committed seed inputs for fuzz_core (tests/fuzz/corpus/) and
fuzz_roce (tests/fuzz/corpus-roce/).

Each seed is a small program in its target's encoding: a flags byte (for
fuzz_core bit 0: bring the device up first, bit 1: fabric bundles; for
fuzz_roce the path MTU),
then operations.  The seeds only give the fuzzer a head start into each
area of the device; it mutates from them.
"""
import os
import struct
import sys

# Operation numbers, as in run_op().
RAW_WR, RAW_RD, REG, DB, DB_RAW, MEM, AQ, FRAME, ROUND, CARRIER, FAULT, \
    TX, RXPOST, RUN, RESET, CANRX = range(16)

# Index into interesting_regs[] in fuzz_core.c.
REGS = ['DEV_CTRL', 'SCRATCH', 'TEST_IRQ', 'TDMA_LO', 'TDMA_HI', 'TDMA_LEN',
        'TDMA_CTRL', 'SQ_LO', 'SQ_HI', 'CQ_LO', 'CQ_HI', 'AQ_CTRL', 'AQ_DB',
        'INTR0', 'INTR1', 'INTR7', 'ID']
# Index into opcodes[] in fuzz_core.c.
OPS = ['NOP', 'IDENTIFY', 'SET_PORT', 'QUERY_PORT', 'GET_STATS', 'CREATE_EQ',
       'DESTROY_EQ', 'CREATE_ETH_RING', 'DESTROY_ETH_RING', 'SET_GID',
       'DEL_GID', 'ALLOC_UCTX', 'DEALLOC_UCTX', 'CREATE_PD', 'DESTROY_PD',
       'CREATE_QP', 'SET_CC', 'REG_MR', 'DEREG_MR', 'CREATE_CQ', 'DESTROY_CQ',
       'MODIFY_QP', 'QUERY_QP', 'DESTROY_QP']
MEM_BASE = 0x10000


def reg(name, val, reset=False):
    b = bytes([REG, REGS.index(name)]) + struct.pack('<I', val)
    if name == 'DEV_CTRL':
        b += bytes([0 if reset else 1])
    return b


def aq(op, body=b'', fix_addr=False, addr_page=0x30):
    cmd = bytearray(64)
    cmd[0] = OPS.index(op)
    cmd[1] = 0x80
    cmd[2] = 1 if fix_addr else 0
    cmd[9] = addr_page
    cmd[16:16 + len(body)] = body
    return bytes([AQ]) + bytes(cmd)


def db(slot, qid, idx, arm=False, page=None):
    if page is None:
        b = bytes([DB, 1])
    else:
        b = bytes([DB, 0, page])
    return b + bytes([slot, qid]) + struct.pack('<H', idx) + \
        bytes([1 if arm else 0])


def tx(lens):
    b = bytes([TX, len(lens) - 1])
    for i, n in enumerate(lens):
        b += bytes([1, i * 8])
        if 14 <= n < 14 + 9100:
            b += bytes([1]) + struct.pack('<H', n - 14)
        else:
            b += bytes([0]) + struct.pack('<H', n)
    return b


def frame(length, dst=0, pattern=0x11):
    return bytes([FRAME]) + struct.pack('<H', length) + bytes([dst, pattern])


def seeds():
    s = {}
    s['tx'] = bytes([1]) + tx([60, 1514, 14, 9018]) + bytes([RUN]) + \
        tx([13, 9019, 100]) + bytes([RUN])
    s['rx'] = bytes([1, RXPOST, 16]) + frame(60, 0) + frame(1514, 1) + \
        frame(200, 2) + frame(80, 3) + frame(9018, 0) + \
        bytes([RXPOST, 0]) + frame(64, 0) + bytes([RUN])
    s['rx_hold'] = bytes([1]) + frame(60, 0) + frame(60, 1) + \
        bytes([CANRX, RXPOST, 2, ROUND, RUN])
    s['aq'] = bytes([1]) + aq('IDENTIFY', fix_addr=True) + \
        aq('GET_STATS', fix_addr=True) + aq('QUERY_PORT') + \
        aq('ALLOC_UCTX') + aq('CREATE_PD') + aq('SET_GID') + \
        aq('DESTROY_EQ') + aq('CREATE_QP') + aq('SET_CC') + \
        aq('CREATE_EQ', bytes([1, 0, 5, 2]), fix_addr=True) + bytes([RUN])
    s['regs'] = bytes([0]) + reg('SCRATCH', 0xa5a5a5a5) + \
        reg('TEST_IRQ', 3) + reg('TEST_IRQ', 9) + reg('INTR1', 1) + \
        reg('INTR1', 0) + reg('ID', 0) + reg('DEV_CTRL', 1, reset=True) + \
        bytes([RAW_WR]) + struct.pack('<HBQ', 0x44, 7, 1) + \
        bytes([RAW_RD]) + struct.pack('<HB', 0x2c, 3)
    s['selftest'] = bytes([0]) + reg('TDMA_LO', MEM_BASE + 0x100) + \
        reg('TDMA_HI', 0) + reg('TDMA_LEN', 4096) + reg('TDMA_CTRL', 1) + \
        bytes([RUN]) + reg('TDMA_LO', 0x100) + reg('TDMA_CTRL', 1) + \
        bytes([RUN])
    s['aq_setup'] = bytes([0]) + reg('SQ_LO', MEM_BASE) + \
        reg('CQ_LO', MEM_BASE + 0x400) + reg('AQ_CTRL', 0x304) + \
        aq('NOP') + reg('AQ_DB', 40) + reg('AQ_CTRL', 0x301) + bytes([RUN])
    s['doorbells'] = bytes([1]) + db(4, 0, 1, arm=True) + \
        db(5, 0, 70) + db(6, 0, 8) + db(0, 1, 1) + db(3, 0, 0, page=1) + \
        db(4, 0, 0, page=0) + bytes([DB_RAW]) + \
        struct.pack('<IBQ', 0x28, 4, 1 << 32) + bytes([RUN])
    s['link'] = bytes([1, CARRIER, 0, ROUND, CARRIER, 1, CARRIER, 0,
                       CARRIER, 1, RUN]) + frame(60, 0)
    s['faults'] = bytes([1, FAULT, 1]) + struct.pack('<H', 0x0800) + \
        bytes([255]) + reg('ID', 0) + bytes([RUN, FAULT, 1]) + \
        struct.pack('<H', 0x2000) + bytes([64]) + tx([60]) + \
        bytes([RUN, MEM]) + struct.pack('<H', 0x1400) + bytes([8]) + \
        bytes(8) + bytes([RXPOST, 1]) + frame(60, 0) + bytes([RUN])
    # Bundles on: HELLO at link-up, the switch's answer (dst 0x90), frames
    # in bundles of 1, 3 and 8 (one with a count too high, one cut short,
    # one held for want of RX buffers), then TX that leaves as a bundle.
    s['bundles'] = bytes([3, RUN, RXPOST, 4]) + frame(60, 0x90, 0) + \
        frame(120, 0x80) + frame(600, 0x89) + frame(1514, 0x9d) + \
        frame(300, 0xc5) + frame(400, 0xa5) + bytes([CANRX, RXPOST, 16]) + \
        tx([60, 1514, 100]) + bytes([RUN])
    return s


# ---- fuzz_roce: operation numbers as in its run_op() ----
R_FRAME, R_RAW, R_RECV, R_SEND, R_CLOCK, R_ROUND, R_RUN, R_POLL, R_STATE, \
    R_STRAY, R_DEREG, R_CARRIER = 0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13


def rframe(opcode, paylen=0, mode=0, delta=0, fix=3, va=0, dmalen=0,
           syn=0x1f, bth1=0, fill=0x33, qsel=1, rsel=1):
    """A frame from the peer; mode 0: PSN from epsn, 1: from psn_una."""
    return bytes([R_FRAME, opcode, bth1, mode]) + \
        struct.pack('<H', delta & 0xffff) + bytes([qsel, fix]) + \
        struct.pack('<HB', paylen, fill) + struct.pack('<H', va) + \
        bytes([rsel]) + struct.pack('<H', dmalen) + bytes([syn])


def rrecv(*sges):
    b = bytes([R_RECV, len(sges)])
    for off, n in sges:
        b += struct.pack('<HH', off, n) + bytes([1])
    return b


def rsend(op, n=100, flags=1):
    return bytes([R_SEND, op, flags, 1]) + struct.pack('<H', 0x100) + \
        struct.pack('<HH', 0, n) + bytes([1])


def roce_seeds():
    s = {}
    s['send_in'] = bytes([2]) + rrecv((0, 4096)) + rframe(0x04, 100) + \
        bytes([R_RUN, R_POLL, 1])
    s['send_multi'] = bytes([0]) + rrecv((0, 4096), (8192, 100)) + \
        rframe(0x00, 256) + rframe(0x01, 256) + rframe(0x03, 17) + \
        rframe(0x01, 256) + bytes([R_RUN, R_POLL, 0])
    s['write_read'] = bytes([1]) + rframe(0x0a, 200, dmalen=200) + \
        rframe(0x0c, dmalen=3000, va=0x100) + bytes([R_RUN]) + \
        rframe(0x0c, delta=-2, dmalen=100) + bytes([R_RUN])
    s['write_imm_rnr'] = bytes([3]) + rframe(0x0b, 8, dmalen=8) + \
        bytes([R_RUN, R_CLOCK]) + struct.pack('<H', 50) + \
        rrecv() + rframe(0x0b, 8, dmalen=8) + bytes([R_RUN, R_POLL, 1])
    s['requester_ack'] = bytes([2]) + rsend(0) + bytes([R_RUN]) + \
        rframe(0x11, mode=1) + rsend(3) + bytes([R_RUN]) + \
        rframe(0x11, mode=1, syn=0x60) + rframe(0x11, mode=1, syn=0x22) + \
        bytes([R_CLOCK]) + struct.pack('<H', 2000) + bytes([R_RUN, R_POLL, 0])
    s['requester_read'] = bytes([1]) + rsend(5, 600) + bytes([R_RUN]) + \
        rframe(0x0d, 512, mode=1) + rframe(0x0f, 88, mode=1, delta=1) + \
        bytes([R_RUN, R_POLL, 0])
    s['bad_frames'] = bytes([4]) + rframe(0x04, 10, fix=0) + \
        rframe(0x04, 10, fix=1) + rframe(0x64, 10) + \
        rframe(0x04, 10, fix=3 | 8) + struct.pack('<H', 40) + \
        bytes([R_RAW]) + struct.pack('<H', 60) + bytes(range(54)) + \
        rframe(0x04, 10, qsel=0)
    s['state'] = bytes([2]) + rsend(0) + rrecv((0, 64)) + \
        bytes([R_STATE, 1, 1, R_RUN, R_DEREG, 1, R_CARRIER, 0]) + \
        rframe(0x04, 10) + bytes([R_CARRIER, 1, R_STRAY]) + \
        struct.pack('<H', 0) + bytes([4, 1, 2, 3, 4]) + rsend(0) + \
        bytes([R_RUN, R_CLOCK]) + struct.pack('<H', 9000)
    return s


def write(out, seeds_):
    os.makedirs(out, exist_ok=True)
    for name, data in seeds_.items():
        with open(os.path.join(out, 'seed-' + name), 'wb') as f:
            f.write(data)


def main():
    write(sys.argv[1] if len(sys.argv) > 1 else 'corpus', seeds())
    write(sys.argv[2] if len(sys.argv) > 2 else 'corpus-roce', roce_seeds())


if __name__ == '__main__':
    main()
