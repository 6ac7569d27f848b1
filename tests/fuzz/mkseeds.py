#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the committed seed inputs for fuzz_core (tests/fuzz/corpus/),
fuzz_roce (tests/fuzz/corpus-roce/) and fuzz_ring (tests/fuzz/
corpus-ring/).

Each seed is a small program in its target's encoding: a flags byte (for
fuzz_core bit 0: bring the device up first, bit 1: fabric bundles; for
fuzz_roce bits 0-2 the path MTU, bit 3 UC QPs, bit 4 XRC QPs), then
operations.  The seeds only give the fuzzer
a head start into each area of the device; it mutates from them, and the
corpora in the tree (tests/fuzz/corpus*/) keep what it found: these seeds
plus the inputs a longer run added, merged (make -C tests/fuzz merge).
"""
import os
import struct
import sys

# Operation numbers, as in run_op().
RAW_WR, RAW_RD, REG, DB, DB_RAW, MEM, AQ, FRAME, ROUND, CARRIER, FAULT, \
    TX, RXPOST, RUN, RESET, CANRX, MCAST_LIST, GROUP_FRAME, CLOCK, \
    HELLO_ACK = range(20)

# Index into interesting_regs[] in fuzz_core.c.
REGS = ['DEV_CTRL', 'SCRATCH', 'TEST_IRQ', 'TDMA_LO', 'TDMA_HI', 'TDMA_LEN',
        'TDMA_CTRL', 'SQ_LO', 'SQ_HI', 'CQ_LO', 'CQ_HI', 'AQ_CTRL', 'AQ_DB',
        'INTR0', 'INTR1', 'INTR7', 'ID']
# Index into opcodes[] in fuzz_core.c.
OPS = ['NOP', 'IDENTIFY', 'SET_PORT', 'QUERY_PORT', 'GET_STATS', 'CREATE_EQ',
       'DESTROY_EQ', 'CREATE_ETH_RING', 'DESTROY_ETH_RING', 'SET_GID',
       'DEL_GID', 'ALLOC_UCTX', 'DEALLOC_UCTX', 'CREATE_PD', 'DESTROY_PD',
       'CREATE_QP', 'SET_CC', 'REG_MR', 'DEREG_MR', 'CREATE_CQ', 'DESTROY_CQ',
       'MODIFY_QP', 'QUERY_QP', 'DESTROY_QP', 'SET_MCAST_MACS']
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


def aq_at(op, fields):
    """A command with single bytes at given offsets (SET_PORT's valid at 8
    and rx_mode at 21, say)."""
    cmd = bytearray(64)
    cmd[0] = OPS.index(op)
    cmd[1] = 0x80
    for off, v in fields.items():
        cmd[off] = v
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


def mcast_list(sels, addr=None):
    """SET_MCAST_MACS of groups[] entries (sel bit 3: unicast, bit 4:
    reserved bytes set); addr: the list somewhere else."""
    n = len(sels) | (0x80 if addr is not None else 0)
    b = bytes([MCAST_LIST, n]) + bytes(sels)
    if addr is not None:
        b += bytes([0]) + struct.pack('<Q', addr)
    # Run it now: the next list would overwrite this one's memory.
    return b + bytes([RUN])


def group_frame(sel, length=60, typ=2):
    """A frame to groups[sel & 7] (bit 3: VLAN-tagged); typ 0: MAC
    control (bit 2: PFC), 1: IPv6, 2: local experimental."""
    return bytes([GROUP_FRAME, sel]) + struct.pack('<H', length) + \
        bytes([typ])


def clock(ms):
    return bytes([CLOCK]) + struct.pack('<H', ms)


def seeds():
    s = {}
    s['tx'] = bytes([1]) + tx([60, 1514, 14, 9018]) + bytes([RUN]) + \
        tx([13, 9019, 100]) + bytes([RUN])
    s['rx'] = bytes([1, RXPOST, 16]) + frame(60, 0) + frame(1514, 1) + \
        frame(200, 2) + frame(80, 3) + frame(9018, 0) + \
        bytes([RXPOST, 0]) + frame(64, 0) + bytes([RUN])
    # No buffers: frames wait in the device (to its bound), then go.
    s['rx_hold'] = bytes([1]) + frame(60, 0) + frame(60, 1) + \
        b''.join(frame(9000, 1, i) for i in range(32)) + \
        bytes([CANRX, RXPOST, 2, ROUND, RUN, RXPOST, 64, RUN]) + \
        frame(9100, 0) + bytes([RXPOST, 64, RUN, CARRIER, 0]) + \
        frame(60, 1) + bytes([CARRIER, 1, RUN])
    # The multicast filter: off, then two groups, a bad list, an empty
    # one; frames to groups listed and not, MAC control, VLAN-tagged.
    s['mcast'] = bytes([1, RXPOST, 40]) + group_frame(1) + \
        mcast_list([0, 3]) + group_frame(0) + group_frame(1) + \
        group_frame(3, 86, 1) + group_frame(6) + group_frame(5, 60, 0) + \
        group_frame(5, 60, 4) + group_frame(9) + mcast_list([0, 8]) + \
        mcast_list([1, 0x11]) + mcast_list([2], addr=0x1000) + \
        aq_at('SET_PORT', {8: 8, 21: 2}) + bytes([RUN]) + \
        group_frame(1) + mcast_list([]) + group_frame(0) + bytes([RUN])
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
    # HELLO retries on the clock; answers from another guest, a HELLO,
    # then the switch's (twice, the second smaller), then a link bounce.
    s['hello'] = bytes([3, RUN]) + clock(1000) + bytes([RUN]) + \
        bytes([HELLO_ACK, 0, HELLO_ACK, 2]) + clock(1000) + \
        bytes([RUN, HELLO_ACK, 1, HELLO_ACK, 5]) + \
        struct.pack('<I', 18078) + tx([60, 60]) + \
        bytes([RUN, CARRIER, 0, CARRIER, 1, RUN]) + clock(3000) + \
        bytes([RUN])
    return s


# ---- fuzz_roce: operation numbers as in its run_op() ----
R_FRAME, R_RAW, R_RECV, R_SEND, R_CLOCK, R_ROUND, R_RUN, R_POLL, R_STATE, \
    R_STRAY, R_DEREG, R_CARRIER, R_RECREATE = \
    0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14
# The QPs of the fixture: four wire formats, then a loopback pair; the
# UD QP is selected by 0xff.
Q_V4, Q_V6, Q_VLAN, Q_V1, Q_LA, Q_LB = range(6)
Q_UD = 0xff
WIRE = (Q_V4, Q_V6, Q_VLAN, Q_V1)
# all_opcodes[] in fuzz_roce.c: a byte below 0xc0 indexes it.
ALL_OPCODES = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
    0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16,
    0x17, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29,
    0x2a, 0x2b, 0x64, 0x65, 0x81, 0xa0, 0xa4, 0xac,
    0xa1, 0xa2, 0xa3, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xad,
    0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb6, 0xb7,
]
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM, SEND_ONLY = range(5)
SEND_ONLY_IMM, WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST = 0x05, 0x06, 0x07, 0x08
WRITE_ONLY, WRITE_ONLY_IMM, READ_REQ = 0x0a, 0x0b, 0x0c
UC = 0x20                       # the UC transport's opcodes
XRC = 0xa0                      # the XRC transport's
READ_RESP_FIRST, READ_RESP_LAST, READ_RESP_ONLY, ACK = 0x0d, 0x0f, 0x10, 0x11
UD_SEND_ONLY, UD_SEND_ONLY_IMM = 0x64, 0x65
ATOMIC_ACK, CMP_SWAP, FETCH_ADD = 0x12, 0x13, 0x14
# WQE opcodes (enum rocx_wqe_opcode).
W_SEND, W_SEND_IMM, W_SEND_INV, W_WRITE, W_WRITE_IMM, W_READ = range(6)
W_CMP_SWAP, W_FETCH_ADD = 6, 7
W_LOCAL_INV, W_REG_MR, W_BIND_MW = 8, 9, 10
SEND_LAST_INV, SEND_ONLY_INV = 0x16, 0x17


def rframe(q, opcode, paylen=0, mode=0, delta=0, fix=3, va=0, dmalen=0,
           syn=0x1f, bth1=0, fill=0x33, dsel=1, rsel=1):
    """A frame from wire QP q's peer in q's format; mode 0: PSN from
    epsn, 1: from psn_una."""
    return bytes([R_FRAME, q, ALL_OPCODES.index(opcode), bth1, mode]) + \
        struct.pack('<H', delta & 0xffff) + bytes([dsel, fix]) + \
        struct.pack('<HB', paylen, fill) + struct.pack('<H', va) + \
        bytes([rsel]) + struct.pack('<H', dmalen) + bytes([syn])


def rrecv(q, *sges):
    b = bytes([R_RECV, q, len(sges)])
    for off, n in sges:
        b += struct.pack('<HH', off, n) + bytes([1])
    return b


def rsend(q, op, n=100, flags=1, raddr=0x100):
    return bytes([R_SEND, q, op, flags, 1]) + struct.pack('<H', raddr) + \
        struct.pack('<HH', 0, n) + bytes([1])


def rreg(q, variant, npages, access=7, iova=0x200, length=0x2000, sel=0):
    """A REG_MR of the fast-register MR (fuzz_roce.c put_reg_mr())."""
    return bytes([R_SEND, q, W_REG_MR, 1, 0]) + struct.pack('<H', 0) + \
        bytes([variant, access, npages]) + \
        struct.pack('<HH', iova, length) + bytes([sel])


def rclock(units):
    """units of 100 us"""
    return bytes([R_CLOCK]) + struct.pack('<H', units)


def roce_seeds():
    s = {}
    for q in WIRE:
        fmt = ['v4', 'v6', 'vlan', 'v1'][q]
        # A SEND in, a WRITE and a READ request, in each wire format.
        s['send_in_' + fmt] = bytes([2]) + rrecv(q, (0, 4096)) + \
            rframe(q, SEND_ONLY, 100) + bytes([R_RUN, R_POLL, 1])
        # CNPs (rocx-cc.c): 16 reserved bytes, then a wrong length; then
        # time for the reaction point's timers.
        s['cnp_' + fmt] = bytes([2]) + rframe(q, 0x81, 16) + \
            rframe(q, 0x81, 16) + rframe(q, 0x81, 20) + \
            rsend(q, W_WRITE, 3000) + bytes([R_RUN]) + rclock(5)
        s['write_read_' + fmt] = bytes([1]) + \
            rframe(q, WRITE_ONLY, 200, dmalen=200) + \
            rframe(q, READ_REQ, dmalen=3000, va=0x100) + bytes([R_RUN]) + \
            rframe(q, READ_REQ, delta=-2, dmalen=100) + bytes([R_RUN])
        # Our SEND and READ out, the peer's ACK and READ responses.
        s['requester_' + fmt] = bytes([1]) + rsend(q, W_SEND) + \
            bytes([R_RUN]) + rframe(q, ACK, mode=1) + \
            rsend(q, W_READ, 600) + bytes([R_RUN]) + \
            rframe(q, READ_RESP_FIRST, 512, mode=1) + \
            rframe(q, READ_RESP_LAST, 88, mode=1, delta=1) + \
            bytes([R_RUN, R_POLL, 0])
    for q in WIRE:
        fmt = ['v4', 'v6', 'vlan', 'v1'][q]
        # UD in, from each wire format: one taken, one without a receive
        # posted, one with a wrong Q_Key.
        s['ud_in_' + fmt] = bytes([2]) + rrecv(Q_UD, (0, 4096)) + \
            rframe(q, UD_SEND_ONLY, 100) + \
            rframe(q, UD_SEND_ONLY_IMM, 0) + rrecv(Q_UD, (0, 4096)) + \
            rframe(q, UD_SEND_ONLY, 50, rsel=0) + bytes([R_RUN, R_POLL, 1])
    for q in WIRE:
        fmt = ['v4', 'v6', 'vlan', 'v1'][q]
        # To the format's multicast group (fix bit 5): taken as QPN
        # 0xffffff, dropped when it names QPN 0.
        s['ud_mcast_in_' + fmt] = bytes([2]) + rrecv(Q_UD, (0, 4096)) + \
            rframe(q, UD_SEND_ONLY, 100, fix=3 | 0x20) + \
            rrecv(Q_UD, (0, 4096)) + \
            rframe(q, UD_SEND_ONLY_IMM, 8, fix=3 | 0x20, dsel=0) + \
            bytes([R_RUN, R_POLL, 1])
    # UD out to its IPv4 group (flags bit 6, odd raddr): on the wire and
    # looped back to itself.
    s['ud_mcast_send'] = bytes([0]) + rrecv(Q_UD, (0, 4096)) + \
        rsend(Q_UD, W_SEND, 100, flags=1 | 0x40, raddr=0x101) + \
        bytes([R_RUN, R_POLL, 0])
    # UD out: to itself (flags bit 6), to the peer, with the QP's own
    # Q_Key (bit 5), and longer than the port allows at path MTU 1.
    s['ud_send'] = bytes([0]) + rrecv(Q_UD, (0, 4096)) + \
        rsend(Q_UD, W_SEND, 100, flags=1 | 0x40) + \
        rsend(Q_UD, W_SEND_IMM, 200, flags=1 | 0x20) + \
        rsend(Q_UD, W_SEND, 4000, flags=1) + \
        rsend(Q_UD, W_WRITE, 10, flags=1) + bytes([R_RUN, R_POLL, 0])
    s['send_multi'] = bytes([0]) + rrecv(Q_V6, (0, 4096), (8192, 100)) + \
        rframe(Q_V6, SEND_FIRST, 256) + rframe(Q_V6, SEND_MIDDLE, 256) + \
        rframe(Q_V6, SEND_LAST_IMM, 17) + rframe(Q_V6, SEND_MIDDLE, 256) + \
        bytes([R_RUN, R_POLL, 0])
    s['write_imm_rnr'] = bytes([3]) + \
        rframe(Q_V1, WRITE_ONLY_IMM, 8, dmalen=8) + bytes([R_RUN]) + \
        rclock(50) + rrecv(Q_V1) + rframe(Q_V1, WRITE_ONLY_IMM, 8, dmalen=8) + \
        bytes([R_RUN, R_POLL, 1])
    s['requester_naks'] = bytes([2]) + rsend(Q_VLAN, W_SEND) + \
        bytes([R_RUN]) + rframe(Q_VLAN, ACK, mode=1) + \
        rsend(Q_VLAN, W_WRITE) + bytes([R_RUN]) + \
        rframe(Q_VLAN, ACK, mode=1, syn=0x60) + \
        rframe(Q_VLAN, ACK, mode=1, syn=0x22) + rclock(2000) + \
        bytes([R_RUN, R_POLL, 0])
    # In the device: the loopback pair, each way, RNR included.
    s['loopback'] = bytes([2]) + rsend(Q_LA, W_SEND, 300) + \
        bytes([R_RUN]) + rclock(20) + rrecv(Q_LB, (0, 4096)) + \
        bytes([R_RUN]) + rsend(Q_LA, W_WRITE, 5000) + \
        rsend(Q_LB, W_READ, 3000) + rsend(Q_LB, W_WRITE_IMM, 10) + \
        rrecv(Q_LA, (4096, 64)) + bytes([R_RUN, R_POLL, 1, R_RUN])
    # Every QP waiting on a timer at once, some destroyed meanwhile.
    s['timers'] = bytes([1]) + b''.join(rsend(q, W_SEND) for q in WIRE) + \
        rsend(Q_LA, W_SEND) + bytes([R_RUN]) + rclock(300) + \
        bytes([R_RECREATE, Q_V6, R_RUN]) + rclock(700) + \
        bytes([R_STATE, Q_V1, 1, 0, R_RUN, R_RECREATE, Q_LB]) + \
        rclock(2000) + bytes([R_RUN, R_POLL, 2]) + rclock(20000) + \
        bytes([R_RUN])
    # Atomics in: executed, duplicated, misaligned, refused (RoCE v1).
    s['atomic_in'] = bytes([1]) + \
        rframe(Q_V4, CMP_SWAP, va=8, dmalen=5) + \
        rframe(Q_V4, FETCH_ADD, va=16, dmalen=3, delta=1) + \
        bytes([R_RUN]) + rframe(Q_V4, FETCH_ADD, va=16, dmalen=3, delta=-1) + \
        rframe(Q_V6, FETCH_ADD, va=12, dmalen=1) + \
        rframe(Q_V1, CMP_SWAP, va=8) + bytes([R_RUN])
    # Atomics out: the answer, a lost one and the implied NAK, loopback.
    s['atomic_out'] = bytes([1]) + rsend(Q_V4, W_CMP_SWAP, 8) + \
        rsend(Q_V4, W_FETCH_ADD, 8) + rsend(Q_V4, W_READ, 8) + \
        bytes([R_RUN]) + rframe(Q_V4, ATOMIC_ACK, mode=1) + \
        rframe(Q_V4, ACK, mode=1, delta=1) + bytes([R_RUN]) + \
        rframe(Q_V4, ATOMIC_ACK, mode=1) + rsend(Q_V6, W_FETCH_ADD, 4) + \
        rsend(Q_LA, W_FETCH_ADD, 8) + rsend(Q_LB, W_CMP_SWAP, 8) + \
        bytes([R_RUN, R_POLL, 0])
    # Every opcode the contract names, to a wire QP in each format.
    s['opcodes'] = bytes([2]) + rrecv(Q_V4, (0, 4096)) + b''.join(
        rframe(WIRE[i % 4], op, 16, dmalen=16, mode=i & 1)
        for i, op in enumerate(ALL_OPCODES)) + bytes([R_RUN, R_POLL, 0])
    # SEND with invalidate in (ONLY and FIRST ... LAST) and out, with
    # the local memory-window WQEs (LOCAL_INV 8, BIND_MW 10) between.
    s['invalidate'] = bytes([2]) + rrecv(Q_V4, (0, 4096), (4096, 4096)) + \
        rframe(Q_V4, SEND_ONLY_INV, 32) + rframe(Q_V4, SEND_FIRST, 256) + \
        rframe(Q_V4, SEND_LAST_INV, 16) + rsend(Q_V6, W_SEND_INV) + \
        rsend(Q_V6, W_LOCAL_INV) + rsend(Q_V6, W_BIND_MW) + \
        bytes([R_RUN]) + rframe(Q_V6, ACK, mode=1) + \
        bytes([R_RUN, R_POLL, 0])
    # Fast registration: REG_MR, WRITE and READ in through the new key
    # (RETH rsel 7), SEND with invalidate of it in and out, LOCAL_INV,
    # registration again with the next variant, and the errors: MR not
    # free, a list longer than the MR, a length past the pages, SGEs.
    s['fast_reg'] = bytes([2]) + rrecv(Q_V4, (0, 4096), (4096, 4096)) + \
        rreg(Q_V4, 1, 4, sel=3) + bytes([R_RUN]) + \
        rframe(Q_V4, WRITE_ONLY, 64, va=0x200, dmalen=64, rsel=7) + \
        rframe(Q_V4, READ_REQ, va=0x300, dmalen=100, rsel=7, delta=1) + \
        bytes([R_RUN]) + rreg(Q_V4, 2, 4) + \
        rsend(Q_V4, W_LOCAL_INV, flags=0x11) + rreg(Q_V4, 3, 2, sel=0x25) + \
        bytes([R_RUN, R_POLL, 0]) + rsend(Q_V6, W_SEND_INV, flags=0x11) + \
        rreg(Q_V1, 4, 17) + rreg(Q_VLAN, 5, 1, length=0x1001) + \
        rreg(Q_LA, 6, 16, sel=0x40) + rsend(Q_LA, W_LOCAL_INV, flags=0x11) + \
        bytes([R_RUN, R_POLL, 0])
    s['bad_frames'] = bytes([4]) + rframe(Q_V4, SEND_ONLY, 10, fix=0) + \
        rframe(Q_V6, SEND_ONLY, 10, fix=1) + \
        rframe(Q_V1, SEND_ONLY, 10, fix=3 | 8) + struct.pack('<H', 40) + \
        rframe(Q_VLAN, SEND_ONLY, 10, fix=3 | 0x10) + \
        bytes([R_RAW]) + struct.pack('<H', 60) + bytes(range(54)) + \
        rframe(Q_V4, SEND_ONLY, 10, dsel=0)
    s['state'] = bytes([2]) + rsend(Q_V4, W_SEND) + rrecv(Q_V4, (0, 64)) + \
        bytes([R_STATE, Q_V4, 1, 1, R_RUN, R_DEREG, 1, R_CARRIER, 0]) + \
        rframe(Q_V4, SEND_ONLY, 10) + bytes([R_CARRIER, 1, R_STRAY, Q_V4]) + \
        struct.pack('<H', 0) + bytes([4, 1, 2, 3, 4]) + \
        rsend(Q_V4, W_SEND) + bytes([R_RUN]) + rclock(9000)
    # UC QPs (flags bit 3): every kind of message in, a gap dropping to the
    # next FIRST, a WRITE with a bad R_Key, a SEND with no receive; our
    # SEND and WRITE out and a READ refused; the loopback pair.
    uc = 8
    s['uc_in'] = bytes([uc | 0]) + rrecv(Q_V4, (0, 4096)) + \
        rframe(Q_V4, UC | SEND_FIRST, 256) + \
        rframe(Q_V4, UC | SEND_LAST, 17, delta=1) + \
        rframe(Q_V4, UC | SEND_MIDDLE, 256, delta=1) + \
        rframe(Q_V4, UC | SEND_ONLY_IMM, 40, delta=5) + \
        rframe(Q_V4, UC | WRITE_FIRST, 256, dmalen=600) + \
        rframe(Q_V4, UC | WRITE_MIDDLE, 256, delta=1) + \
        rframe(Q_V4, UC | WRITE_LAST, 88, delta=2) + \
        rframe(Q_V4, UC | WRITE_ONLY_IMM, 8, dmalen=8, rsel=0) + \
        bytes([R_RUN, R_POLL, 1])
    s['uc_no_recv'] = bytes([uc | 2]) + \
        rframe(Q_V6, UC | SEND_ONLY, 100) + rrecv(Q_V6, (0, 64)) + \
        rframe(Q_V6, UC | SEND_ONLY, 100, delta=1) + \
        rframe(Q_V1, UC | WRITE_ONLY, 32, dmalen=32) + \
        bytes([R_RUN, R_POLL, 1])
    s['uc_out'] = bytes([uc | 1]) + rsend(Q_VLAN, W_SEND, 1500) + \
        rsend(Q_VLAN, W_WRITE_IMM, 300) + rsend(Q_VLAN, W_READ) + \
        bytes([R_RUN, R_POLL, 2]) + rsend(Q_LA, W_SEND, 700) + \
        rrecv(Q_LB, (0, 4096)) + rsend(Q_LA, W_WRITE, 5000) + \
        bytes([R_RUN, R_POLL, 3, R_RECREATE, Q_LB, R_RUN])
    # XRC (flags bit 4): the IPv4 and VLAN QPs are targets receiving into
    # one XRC SRQ (receives go to it), IPv6 and v1 initiators; rsel bit 6
    # names another SRQ in the XRCETH, WQE flags bits 3-4 in the WQE.
    xrc = 0x10
    s['xrc_in'] = bytes([xrc | 2]) + rrecv(Q_V4, (0, 4096)) + \
        rrecv(Q_V4, (4096, 4096)) + rframe(Q_V4, XRC | SEND_FIRST, 1024) + \
        rframe(Q_V4, XRC | SEND_LAST_IMM, 17, delta=1) + \
        rframe(Q_V4, XRC | WRITE_ONLY, 200, dmalen=200, delta=2) + \
        rframe(Q_V4, XRC | READ_REQ, dmalen=3000, va=0x100, delta=3) + \
        rframe(Q_V4, XRC | FETCH_ADD, va=16, dmalen=3, delta=6) + \
        bytes([R_RUN]) + rframe(Q_V4, XRC | READ_REQ, delta=-2, dmalen=100) + \
        rframe(Q_VLAN, XRC | SEND_ONLY, 10, rsel=0x41) + \
        bytes([R_RUN, R_POLL, 1])
    s['xrc_out'] = bytes([xrc | 1]) + rsend(Q_V6, W_SEND) + \
        bytes([R_RUN]) + rframe(Q_V6, XRC | ACK, mode=1) + \
        rsend(Q_V6, W_READ, 600) + bytes([R_RUN]) + \
        rframe(Q_V6, XRC | READ_RESP_FIRST, 512, mode=1) + \
        rframe(Q_V6, XRC | READ_RESP_LAST, 88, mode=1, delta=1) + \
        rsend(Q_V1, W_FETCH_ADD, 8) + bytes([R_RUN]) + \
        rframe(Q_V1, XRC | ATOMIC_ACK, mode=1) + \
        rsend(Q_V1, W_SEND, 100, flags=1 | 0x18) + bytes([R_RUN]) + \
        rframe(Q_V1, XRC | ACK, mode=1, syn=0x61) + \
        rrecv(Q_LB, (0, 4096)) + rsend(Q_LA, W_SEND, 300) + \
        rsend(Q_LA, W_WRITE, 5000) + rsend(Q_LA, W_READ, 3000) + \
        bytes([R_RUN, R_POLL, 2, R_RECREATE, Q_LB, R_RUN, R_POLL, 0])
    return s


# fuzz_ring's operations, as in its enum; big-endian operands.
G_PUT, G_TAKE, G_POKE, G_HEAD, G_TAIL, G_SEND, G_WAITS = range(7)


def ring_seeds():
    """Honest traffic that wraps ring 0 and fills ring 1, and one seed per
    kind of damage the reader must catch."""
    def put(n):
        return bytes([G_PUT]) + struct.pack('>H', n)

    s = {}
    s['ring-wrap'] = b''.join(put(1000) + bytes([G_TAKE])
                              for _ in range(20)) + bytes([G_WAITS])
    s['ring-fill'] = b''.join(bytes([G_SEND]) + struct.pack('>H', 1400)
                              for _ in range(8)) + \
        bytes([G_TAIL]) + struct.pack('>I', 0)[1:] + \
        bytes([G_SEND]) + struct.pack('>H', 100)
    s['ring-head'] = put(100) + bytes([G_HEAD]) + struct.pack('>h', 13) + \
        bytes([G_TAKE])
    # A length near the ring's end that a head far enough ahead would
    # let run past it.
    s['ring-past'] = (put(1000) + bytes([G_TAKE])) * 3 + \
        bytes([G_POKE]) + struct.pack('>H', 3024) + \
        bytes([4]) + struct.pack('<I', 2000) + \
        bytes([G_HEAD]) + struct.pack('>h', 2008) + bytes([G_TAKE])
    s['ring-len'] = put(100) + bytes([G_POKE]) + struct.pack('>H', 0) + \
        bytes([4, 0xff, 0xff, 0, 0]) + bytes([G_TAKE])
    s['ring-wrapmark'] = put(100) + bytes([G_POKE]) + \
        struct.pack('>H', 0) + bytes([4, 0xff, 0xff, 0xff, 0xff]) + \
        bytes([G_TAKE])
    return s


def write(out, seeds_):
    os.makedirs(out, exist_ok=True)
    for name, data in seeds_.items():
        with open(os.path.join(out, 'seed-' + name), 'wb') as f:
            f.write(data)


def main():
    write(sys.argv[1] if len(sys.argv) > 1 else 'corpus', seeds())
    write(sys.argv[2] if len(sys.argv) > 2 else 'corpus-roce', roce_seeds())
    write(sys.argv[3] if len(sys.argv) > 3 else 'corpus-ring', ring_seeds())


if __name__ == '__main__':
    main()
