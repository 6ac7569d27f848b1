/*
 * rocx device model: what the core's files share and nothing else sees.
 *
 * The model's files, in floors, the lowest first.  A file calls into its
 * own floor and those listed before it, never into one listed after it:
 * the services serve every block, the blocks serve the top, and the top
 * runs the blocks for the glue.  scripts/run/layers.py, part of `make
 * lint`, lists every call that runs up a floor.  This header's sections
 * come in the same order.  Documentation/model-design.rst maps the files to
 * their driver counterparts.
 *
 * Services:
 * rocx-core.c: the timer heap and the host's wake-up for it; guest-error
 *              reports, the FIFO of asynchronous events for EQ 0,
 *              interrupts with INTR_CTRL's mask and pending bit; the
 *              ready list of QPs with work and their deadlines (DMA and
 *              counters are inlines in this file);
 * rocx-clock.c: the device clock (CLOCK_LO/HI, CQE timestamps);
 * rocx-numgen.c: QP, CQ and SRQ numbers, whose generation moves on at
 *                every hand-out, so that a stale number names nothing;
 * rocx-icrc.c: the ICRC and the CRC behind it;
 * rocx-hdr.h: the packet's header layouts and their accessors;
 * rocx-rdma.h: the types of the RDMA objects and of their table;
 * rocx-core.h: the core's state and its interface to the glue;
 * rocx-int.h: this file.
 *
 * Blocks, one per part of the device.  Ethernet:
 * rocx-eth.c: Ethernet TX and RX rings, receive classification (RoCE or
 *             Ethernet), MAC filter, the LINK_STATUS value;
 * rocx-fabric.c: fabric bundles between the device and rocx-switch;
 * rocx-chan.c: the fabric channel to rocx-switch: its records, timed
 *              stamps, promises and the queue of frames not yet arrived;
 * GID:
 * rocx-gid.c: the GID table and its lookup;
 * Lossless:
 * rocx-dcb.c: priorities, the DCB configuration, PFC and 802.3x pause
 *             received, the port's line rate;
 * rocx-cc.c: ECN and congestion control: SET_CC/QUERY_CC, ECT marking,
 *            the notification point (CNPs) and the reaction point (DCQCN);
 * rocx-delay.c: the NIC's delays: its pipelines' (settings) and the line
 *               of CNPs waiting out the notification point's;
 * rocx-sched.c: the transmit scheduler: line clock, strict and ETS
 *               classes, class ceilings, per-QP pacing;
 * Objects:
 * rocx-qp.c: QP lifecycle (CREATE, MODIFY, QUERY and DESTROY_QP), the
 *            state machine and its transition tables, ERR;
 * rocx-cq.c: CQs, CQEs, CQ arming and events;
 * rocx-srq.c: shared receive queues: lifecycle, doorbell, taking
 *             entries for QPs, the limit event;
 * rocx-xrc.c: XRC domains, XRC SRQs and XRC_TGT QPs;
 * rocx-resize.c: moving a live CQ or SRQ ring to a new one;
 * rocx-mr.c: page lists, MR table, key checks, MR data access;
 * rocx-mw.c: memory windows: bind, invalidation, rkey checks;
 * rocx-fr.c: fast registration (ALLOC_MR, REG_MR and invalidation of
 *            fast-register MRs), DMA MRs and the local DMA lkey;
 * Transport:
 * rocx-wire.c: RoCE v1/v2 header build and parse, the opcode table, the
 *              receive path's RoCE stage;
 * rocx-req.c: requester (WQE fetch, segmentation, go-back-N);
 * rocx-resp.c: responder (PSN checks, data placement, ACK/NAK, READ
 *              responses);
 * rocx-comp.c: completer (ACK/NAK and READ response processing,
 *              retransmission, completions);
 * rocx-uc.c: UC queue pairs (requester without ACKs, responder that
 *            drops what it cannot take);
 * rocx-ud.c: UD queue pairs (send with the WQE's address vector, Q_Key,
 *            receive with the GRH area, which QPs a packet reaches);
 * rocx-atomic.c: atomics (CMP_SWAP, FETCH_ADD) in requester, responder
 *                and completer;
 * rocx-mcast.c: multicast groups of UD QPs and delivery to them;
 * rocx-gsi.c: the GSI QP, QP 1, a UD QP under a fixed number and Q_Key;
 * Events:
 * rocx-dbrec.c: SQ doorbell records: which QPs' records the engine
 *               reads, the reads, and the POLL flag it sets in them;
 * rocx-eq.c: event queues: rings, CREATE_EQ and DESTROY_EQ, the EQ
 *            doorbell, arming, writing the events queued for EQ 0;
 *
 * Top:
 * rocx-engine.c: init, reset, fini, link state, the run over the expired
 *                deadlines, rocx_core_process() (the engine's run);
 * rocx-rdma.c: the SQ and RQ doorbells and the SQ doorbells' delay line,
 *              the QP run loop, flushing in ERR, a QP's expired
 *              deadlines, the RDMA objects' release at reset;
 * rocx-aq.c: admin queue ring and dispatch; IDENTIFY, SET_PORT,
 *            QUERY_PORT, GET_STATS, user contexts, PDs;
 * rocx-regs.c: register table and MMIO dispatch, doorbell decoding,
 *              self-test;
 *
 * Glue:
 * rocx-pci.c: the QEMU glue, which sees rocx-core.h only; trace.h and
 *             trace-events: its trace events;
 * rocx-pci-chan.c: the fabric channel's socket, its waits at the horizon
 *                  and the epoch in a timed run;
 * rocx-pci-ring.c: the channel's shared-memory rings (memory, eventfds,
 *                  the offer in HELLO), over include/rocx/rocx_ring.h;
 * rocx-pci-direct.c: direct rings: writing the peer's ring 1 while the
 *                    switch steps aside (DIRECT, DIRECT_GO, DIRECT_END);
 * rocx-pci.h: the device state the glue files share.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ROCX_INT_H
#define HW_NET_ROCX_INT_H

#include "rocx-core.h"
#include "rocx-hdr.h"

/*
 * Byte order: QEMU's qemu/bswap.h (ldl_le_p() and friends for the
 * contract's __le fields, ldl_be_p() and friends for the wire).
 */
#include "qemu/bswap.h"

/* ======== Services: every file may use them ======== */

/* ---- PSNs: 24-bit serial numbers (ROCX_PSN_MASK) ---- */

static inline uint32_t rocx_psn_add(uint32_t psn, uint32_t n)
{
    return (psn + n) & ROCX_PSN_MASK;
}

/*
 * a - b as a signed distance in the 24-bit PSN space: right for PSNs less
 * than 2^23 apart, which every two PSNs of the window in flight are.
 */
static inline int32_t rocx_psn_diff(uint32_t a, uint32_t b)
{
    return (int32_t)(((a - b) & ROCX_PSN_MASK) << 8) >> 8;
}

/*
 * How many PSNs psn is past first, when it is not before it: a packet's
 * place in its message.  A message of IB's largest size at MTU 256 takes
 * 2^23 PSNs, so its end is no signed distance from its start.
 */
static inline uint32_t rocx_psn_off(uint32_t psn, uint32_t first)
{
    return (psn - first) & ROCX_PSN_MASK;
}

/*
 * A READ of more than ROCX_READ_MAX_PKTS responses (IB's largest at MTU
 * 256 has 2^23) is asked for in parts of that many, one READ request
 * each, so that no request moves the next PSN by half the PSN space.
 * The request that asks for response n of a READ of npkts ends here.
 */
static inline uint32_t rocx_read_req_end(uint32_t n, uint32_t npkts)
{
    return MIN(npkts, (n / ROCX_READ_MAX_PKTS + 1) * ROCX_READ_MAX_PKTS);
}

/* Send WQE opcodes that are atomics. */
static inline bool rocx_wqe_op_atomic(uint8_t op)
{
    return op == ROCX_WQE_COMP_SWAP || op == ROCX_WQE_FETCH_ADD;
}

/*
 * Those that take one of the peer's responder resources, and count
 * against max_rd_atomic: READs and atomics.
 */
static inline bool rocx_wqe_rd_atomic(uint8_t op)
{
    return op == ROCX_WQE_RDMA_READ || rocx_wqe_op_atomic(op);
}

/* ---- Core services (rocx-core.c) ---- */

typedef struct RocxAqResult {
    uint8_t status;
    uint32_t result;
    uint64_t result64;
} RocxAqResult;

static inline void rocx_count(RocxCore *c, enum rocx_stat s, uint64_t n)
{
    c->stats[s] += n;
}

/* Device DMA, 0 or -1; a range that wraps the address space is refused. */
static inline int rocx_dma_read(RocxCore *c, uint64_t addr, void *buf,
                                size_t len)
{
    if (len && addr + len - 1 < addr) {
        return -1;
    }
    return c->ops->dma_read(c->opaque, addr, buf, len);
}

static inline int rocx_dma_write(RocxCore *c, uint64_t addr, const void *buf,
                                 size_t len)
{
    if (len && addr + len - 1 < addr) {
        return -1;
    }
    return c->ops->dma_write(c->opaque, addr, buf, len);
}

/*
 * Ask for an engine run.  Inside the engine (or a direct doorbell, which
 * runs it next) this only notes the request: rocx_core_process() asks the
 * glue once at its end, instead of waking the main loop for a run that
 * finds nothing left.
 */
static inline void rocx_schedule(RocxCore *c)
{
    if (c->in_engine || c->in_doorbell) {
        c->resched = true;
        return;
    }
    c->ops->schedule_work(c->opaque);
}

/* ---- Time (rocx-core.c) ---- */

/*
 * A timed run (rocx-device.rst, "Timed mode"): the clock is the run's
 * virtual time, wake-ups come exactly when asked for, and the allowances
 * the device makes for TCG's late and stalled peers would falsify it.
 */
static inline bool rocx_timed(const RocxCore *c)
{
    return c->chan.timed;
}

/* The device clock: ops->now_ns(), the only time the core reads. */
int64_t rocx_now(RocxCore *c);
/* Queue t for deadline (or move it there); the host's wake-up follows. */
void rocx_timer_mod(RocxCore *c, RocxTimer *t, uint8_t kind,
                    int64_t deadline);
/* Take t out of the heap, if it is queued. */
void rocx_timer_del(RocxCore *c, RocxTimer *t);
/* Forget every deadline and cancel the host's wake-up (reset, fini). */
void rocx_timers_clear(RocxCore *c);
/* Arm, move or cancel the host's wake-up to follow the heap's root. */
void rocx_timer_host(RocxCore *c);

/* ---- Guest errors, asynchronous events, interrupts (rocx-core.c) ---- */

void G_GNUC_PRINTF(4, 5)
rocx_gerr(RocxCore *c, unsigned code, unsigned info, const char *fmt, ...);
/*
 * rocx_gerr() without the GUEST_ERROR event, for errors in writing EQ 0,
 * which that event would feed back into.
 */
void G_GNUC_PRINTF(4, 5)
rocx_gerr_quiet(RocxCore *c, unsigned code, unsigned info,
                const char *fmt, ...);
bool rocx_evq_push(RocxCore *c, uint16_t type, uint32_t data, uint64_t info);
/* Signal vector v unless its INTR_CTRL masks it; then latch PENDING. */
void rocx_signal(RocxCore *c, unsigned v);
/* INTR_CTRL(n): MASK, and PENDING delivered on unmask. */
uint32_t rocx_rd_intr(RocxCore *c, unsigned off);
void rocx_wr_intr(RocxCore *c, unsigned off, uint32_t val);

/* ---- Traces: optional RocxCoreOps, called only when set ---- */

static inline void rocx_trace_qp_state(RocxCore *c, uint32_t qpn,
                                       unsigned from, unsigned to)
{
    if (c->ops && c->ops->qp_state && from != to) {
        c->ops->qp_state(c->opaque, qpn, from, to);
    }
}

static inline void rocx_trace_retransmit(RocxCore *c, uint32_t qpn,
                                         uint32_t psn, RocxRetx why)
{
    if (c->ops && c->ops->retransmit) {
        c->ops->retransmit(c->opaque, qpn, psn, why);
    }
}

static inline void rocx_trace_nak(RocxCore *c, uint32_t qpn, uint32_t psn,
                                  uint8_t syndrome, bool sent)
{
    if (c->ops && c->ops->nak) {
        c->ops->nak(c->opaque, qpn, psn, syndrome, sent);
    }
}

static inline void rocx_trace_cnp(RocxCore *c, uint32_t qpn, bool sent)
{
    if (c->ops && c->ops->cnp) {
        c->ops->cnp(c->opaque, qpn, sent);
    }
}

static inline void rocx_trace_pause(RocxCore *c, int prio, uint16_t quanta,
                                    bool sent)
{
    if (c->ops && c->ops->pause) {
        c->ops->pause(c->opaque, prio, quanta, sent);
    }
}

/* ---- Ready list: QPs with work, and their deadlines (rocx-core.c) ---- */

void rocx_qp_schedule(RocxCore *c, RocxQp *qp);
/* The QP's req.deadline or RNR wait changed: re-key it in the heap. */
void rocx_timer_note(RocxCore *c, RocxQp *qp);

/* ---- Device clock (rocx-clock.c) ---- */

/* The clock starts at 0 now (reset). */
void rocx_clock_reset(RocxCore *c);
/* Nanoseconds since the reset: CLOCK_LO/HI and CQE timestamps. */
uint64_t rocx_clock_ns(RocxCore *c);
/* CLOCK_LO (latches the upper half) and CLOCK_HI. */
uint32_t rocx_rd_clock(RocxCore *c, unsigned off);

/* ---- Object numbers (rocx-numgen.c) ---- */

/* The next QP, CQ or SRQ number; false when the table is full. */
bool rocx_qpn_alloc(RocxCore *c, uint32_t *qpn);
bool rocx_cqn_alloc(RocxCore *c, uint32_t *cqn);
bool rocx_srqn_alloc(RocxCore *c, uint32_t *srqn);
void rocx_num_init(RocxCore *c);

/* ---- ICRC (rocx-icrc.c) ---- */

/* CRC-32 (IEEE, reflected) continuing from crc, zlib's convention. */
uint32_t rocx_crc32(uint32_t crc, const uint8_t *buf, size_t len);
/*
 * ICRC of a RoCE packet: l3 points at the IPv4, IPv6 or GRH header, bth
 * at the BTH, end at the ICRC itself.
 */
uint32_t rocx_icrc(uint8_t net_type, const uint8_t *l3, const uint8_t *bth,
                   const uint8_t *end);

/* ======== Blocks: each may use the others and the services ======== */

/* ---- Packets (rocx-wire.c builds and parses them) ---- */

/* A packet to send: the caller has put paylen bytes at the payload. */
typedef struct RocxTx {
    uint8_t opcode;
    bool se;
    bool ackreq;
    uint32_t psn;
    uint64_t va;                /* RETH */
    uint32_t rkey;
    uint32_t dmalen;
    uint8_t syndrome;           /* AETH */
    uint32_t msn;
    uint32_t imm;               /* ImmDt, wire bytes */
    uint32_t qkey;              /* DETH; its source QP is the QP's */
    uint32_t ieth;              /* IETH: the rkey to invalidate */
    uint32_t paylen;
    uint64_t swap_add;          /* AtomicETH (va, rkey above) */
    uint64_t compare;
    uint64_t orig;              /* AtomicAckETH */
} RocxTx;

/* A received packet, parsed and checked. */
typedef struct RocxPkt {
    bool loopback;
    uint8_t net_type;
    uint8_t sgid[16];           /* IPv4 as ::ffff:a.b.c.d */
    uint8_t dgid[16];
    const uint8_t *l3;          /* IPv4, IPv6 or GRH header, as received */
    uint8_t smac[6];
    uint16_t vlan;              /* VLAN id or ROCX_VLAN_NONE */
    uint8_t opcode;
    uint32_t opf;               /* rocx_op_flags(opcode) */
    bool se;
    bool ackreq;
    uint32_t dqpn;
    uint32_t psn;
    uint64_t va;
    uint32_t rkey;
    uint32_t dmalen;
    uint8_t syndrome;
    uint32_t msn;
    uint32_t imm;
    uint32_t qkey;              /* DETH */
    uint32_t src_qp;
    uint64_t swap_add;          /* AtomicETH (va, rkey above) */
    uint64_t compare;
    uint64_t orig;              /* AtomicAckETH */
    uint32_t ieth;              /* IETH: the rkey to invalidate */
    uint32_t xrc_srqn;          /* XRCETH */
    const uint8_t *payload;
    uint32_t paylen;
} RocxPkt;

/* ---- Ethernet rings and receive (rocx-eth.c) ---- */

/* Validate a producer doorbell for an Ethernet ring and latch it. */
void rocx_db_eth(RocxCore *c, RocxEthRing *r, const char *what,
                 unsigned page, uint32_t qid, uint16_t idx);
void rocx_cmd_create_eth_ring(RocxCore *c, const union rocx_aq_cmd *cmd,
                              RocxAqResult *res);
void rocx_cmd_destroy_eth_ring(RocxCore *c, const union rocx_aq_cmd *cmd,
                               RocxAqResult *res);
/*
 * Send up to budget frames of TX ring qid; returns the descriptors
 * completed (the caller signals the ring's vector), *more whether some
 * remain that could go now (not while it waits at a paused priority).
 */
unsigned rocx_tx_process(RocxCore *c, unsigned qid, unsigned budget,
                         bool *more);
/* One received frame, as rocx_core_receive() without bundles. */
ssize_t rocx_rx_frame(RocxCore *c, const uint8_t *buf, size_t len);
/* Engine: waiting frames into posted buffers; true if both remain. */
bool rocx_rx_drain(RocxCore *c);
/* Forget the waiting frames (counted as lost to a link down, or not). */
void rocx_rx_hold_drop(RocxCore *c, bool link_down);
void rocx_cmd_set_mcast_macs(RocxCore *c, const union rocx_aq_cmd *cmd,
                             RocxAqResult *res);
/* A MAC the port or a GID may take: unicast and not all zeros. */
bool rocx_mac_valid_unicast(const uint8_t *mac);

/* ---- Fabric bundles (rocx-fabric.c) ---- */

/*
 * Where to build a frame of at most max_len bytes: the open bundle's tail
 * (so that sending it copies nothing) or c->roce_buf.  The same until a
 * frame is sent.
 */
uint8_t *rocx_frame_buf(RocxCore *c, size_t max_len);
/* Send a frame: into the open bundle, or on its own. */
void rocx_send_frame(RocxCore *c, const uint8_t *buf, size_t len);
/* Send the open bundle; the engine calls it before it returns. */
void rocx_fabric_flush(RocxCore *c);
/* HELLO when the link came up (and twice more while unanswered). */
void rocx_fabric_hello(RocxCore *c);
/* Stop asking: answered, link down or reset. */
void rocx_fabric_hello_stop(RocxCore *c);
/* A fabric frame (HELLO_ACK, BUNDLE) from the peer, or not one: -1. */
ssize_t rocx_fabric_receive(RocxCore *c, const uint8_t *buf, size_t len);

/* ---- Fabric channel (rocx-chan.c) ---- */

/*
 * Write a record's fabric header (and timed extension, on a timed
 * channel, with time) at b; returns its length.
 */
size_t rocx_chan_header(RocxCore *c, uint8_t *b, uint8_t type, uint16_t count,
                        int64_t time);
/* The stamp of the frame that just took the line (rocx_sched_wire()). */
int64_t rocx_chan_stamp(RocxCore *c);
/* The channel is joined, open and (timed) past its epoch: carrier. */
bool rocx_chan_up(RocxCore *c);
/* ROCX_TIMER_CHAN: deliver the frames whose arrival has come. */
void rocx_chan_timer(RocxCore *c, int64_t now);
/* After a reset cleared the deadlines: the next arrival's again. */
void rocx_chan_reset(RocxCore *c);
/* A record from the switch (rocx_core_chan_receive() is the entry). */
RocxChanResult rocx_chan_receive(RocxCore *c, const uint8_t *buf, size_t len);
/* The channel is closed: nothing more comes, nothing more goes. */
void rocx_chan_closed(RocxCore *c, const char *why);
void rocx_chan_fini(RocxCore *c);

/* ---- GID table (rocx-gid.c) ---- */

void rocx_cmd_set_gid(RocxCore *c, const union rocx_aq_cmd *cmd,
                      RocxAqResult *res);
void rocx_cmd_del_gid(RocxCore *c, const union rocx_aq_cmd *cmd,
                      RocxAqResult *res);
/* Entry index if it is valid, or NULL. */
const RocxGid *rocx_gid_get(RocxCore *c, unsigned index);
/*
 * An IPv4 address as a GID is ::ffff:a.b.c.d (IPv4-mapped IPv6): the
 * address follows a 12-byte prefix.
 */
#define ROCX_GID_V4_OFF     12
bool rocx_gid_is_v4(const uint8_t *gid);
void rocx_gid_from_v4(uint8_t *gid, const uint8_t *addr);
/* The IPv4 address in such a GID. */
static inline const uint8_t *rocx_gid_v4(const uint8_t *gid)
{
    return gid + ROCX_GID_V4_OFF;
}
/*
 * A valid GID entry of the port equal to gid, of the given kind (the
 * entry found last time is tried first).
 */
RocxGid *rocx_gid_find(RocxCore *c, const uint8_t *gid, uint8_t type);

/* ---- DCB: priorities and pause (rocx-dcb.c) ---- */

/* Back to the defaults of rocx-device.rst; nothing paused. */
void rocx_dcb_reset(RocxCore *c);
void rocx_cmd_set_dcb(RocxCore *c, const union rocx_aq_cmd *cmd,
                      RocxAqResult *res);
void rocx_cmd_query_dcb(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res);
/* A frame's priority under the trust mode (0 when it carries none). */
uint8_t rocx_dcb_frame_prio(RocxCore *c, const uint8_t *buf, size_t len);
/* Count a received frame of len bytes in priority prio's counters. */
void rocx_dcb_rx_count(RocxCore *c, uint8_t prio, size_t len);
/* Count a frame sent at prio. */
void rocx_dcb_tx_count(RocxCore *c, uint8_t prio, size_t len);
/*
 * A MAC control frame (EtherType 0x8808): act on a PFC or 802.3x pause
 * frame the configuration honours; false for any other, and for a PFC
 * frame naming no priority with PFC on (the caller drops those).
 */
bool rocx_dcb_rx_control(RocxCore *c, const uint8_t *buf, size_t len);
/* Priority prio honours pause frames (PFC on for it, or 802.3x rx). */
bool rocx_dcb_honours(RocxCore *c, unsigned prio);
/* quanta pause quanta (512 bit times each) at the port's rate, in ns. */
int64_t rocx_dcb_quanta_ns(RocxCore *c, uint16_t quanta);
/* Priority p sends again: its parked QPs are scheduled. */
void rocx_dcb_resume(RocxCore *c, unsigned p, int64_t now);
/* A pause timer expired. */
void rocx_dcb_timer(RocxCore *c, RocxTimer *t, int64_t now);
/*
 * The QP's priority is paused (and the QP not looped back): the QP is
 * parked until it resumes, and must send nothing now.
 */
bool rocx_dcb_qp_paused(RocxCore *c, RocxQp *qp);
/* The tag a path's packets carry (RocxPath.tci), from its priority. */
void rocx_dcb_path_tag(RocxCore *c, RocxPath *p);
/*
 * The frame's priority (into *prio, for its counters) is paused: a TX
 * ring waits at it.
 */
bool rocx_dcb_tx_paused(RocxCore *c, const uint8_t *buf, size_t len,
                        uint8_t *prio);
/* The priority's receive buffer has room for len more bytes. */
bool rocx_dcb_rx_room(RocxCore *c, uint8_t prio, uint32_t len);
/*
 * The priority's receive buffer holds delta more bytes (less, if < 0):
 * crossing xoff of a lossless priority sends XOFF, falling to xon XON.
 */
void rocx_dcb_rx_held(RocxCore *c, uint8_t prio, int32_t delta);
/* The receive buffer was emptied: XON for every priority held off. */
void rocx_dcb_rx_clear(RocxCore *c);

/* ---- ECN and congestion control (rocx-cc.c) ---- */

/* Back to the defaults of rocx-device.rst. */
void rocx_cc_reset(RocxCore *c);
void rocx_cmd_set_cc(RocxCore *c, const union rocx_aq_cmd *cmd,
                     RocxAqResult *res);
void rocx_cmd_query_cc(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res);
/*
 * The IP traffic class byte a packet of qp with opcode flags opf leaves
 * with: the path's DSCP, and ECT(0) where the reaction point is on.
 */
uint8_t rocx_cc_tclass(RocxCore *c, const RocxQp *qp, uint32_t opf);
/*
 * Notification point: a packet p for qp (RC or UC, RTR or RTS) arrived in
 * frame buf; a CE mark sends a CNP when its priority and interval allow.
 */
void rocx_cc_np_rx(RocxCore *c, RocxQp *qp, const struct RocxPkt *p,
                   const uint8_t *buf, size_t len);
/* Reaction point: a CNP arrived (its BTH parsed into p). */
void rocx_cc_rx_cnp(RocxCore *c, const struct RocxPkt *p);
/* The QP's DCQCN timer expired. */
void rocx_cc_timer(RocxCore *c, RocxQp *qp, int64_t now);
/*
 * The requester sent bytes more on qp (the byte counter's increase
 * steps).  Cheap while the QP is idle.
 */
void rocx_cc_sent(RocxQp *qp, uint32_t bytes, int64_t now);
/* The QP left RTS or is going away: its reaction point is idle again. */
void rocx_cc_qp_stop(RocxCore *c, RocxQp *qp);
/* QUERY_QP: the reaction point's rates and alpha into a. */
void rocx_cc_query_qp(RocxCore *c, const RocxQp *qp,
                      struct rocx_qp_attr *a);
/* Send a CNP to the QP at the other end of qp's path, now. */
void rocx_cc_send_cnp(RocxCore *c, RocxQp *qp);

/* ---- NIC delays (rocx-delay.c) ---- */

/*
 * A CNP for qp was decided at now: into the delay line, to leave at now
 * + delay.cnp_ns; dropped and counted when the line is full.
 */
void rocx_delay_cnp(RocxCore *c, RocxQp *qp, int64_t now);
/* ROCX_TIMER_CNP: send the CNPs that are due. */
void rocx_delay_cnp_timer(RocxCore *c, int64_t now);

/* ---- Transmit scheduler (rocx-sched.c) ---- */

/*
 * Engine: give the line to the sources with frames, by class, up to a
 * budget; true if the budget ran out with frames ready (else the
 * scheduler's timer or new work brings the next run).
 */
bool rocx_sched_run(RocxCore *c);
/*
 * The engine found work for qp: an RTR or RTS QP waits for its turn in
 * its class (true); any other runs at once (false).
 */
bool rocx_sched_take(RocxCore *c, RocxQp *qp);
/* A frame of len bytes goes on the line (rocx_send_frame()). */
void rocx_sched_wire(RocxCore *c, size_t len);
/* A RoCE packet of len bytes was built, for the wire or looped back. */
static inline void rocx_sched_roce(RocxCore *c, size_t len)
{
    c->sched.roce_bytes += len;
}
/* ROCX_TIMER_SCHED and ROCX_TIMER_PACE deadlines. */
void rocx_sched_timer(RocxCore *c, RocxTimer *t);
/* The QP is going away or back to RESET: its pacing stops. */
void rocx_sched_qp_stop(RocxCore *c, RocxQp *qp);
void rocx_sched_qp_rate(RocxCore *c, RocxQp *qp);
/* MODIFY_QP's RATE_LIMIT, kb/s (0: none); false if out of range. */
bool rocx_sched_rate_ok(uint32_t kbps);

/* ---- Page lists and memory regions (rocx-mr.c) ---- */

/* Copy a page list that must cover at least need bytes; AQ status. */
uint8_t rocx_pbl_copy(RocxCore *c, const struct rocx_pbl *d, uint64_t need,
                      RocxPbl *out);
void rocx_pbl_free(RocxCore *c, RocxPbl *p);
/* Read n le64 page addresses at addr into out[], in host order; 0 or -1. */
int rocx_pbl_read_list(RocxCore *c, uint64_t addr, uint64_t *out, uint32_t n);
/* DMA through a page list at byte offset off; 0 or -1. */
int rocx_pbl_rw(RocxCore *c, const RocxPbl *p, uint64_t off, void *buf,
                size_t len, bool write);

void rocx_cmd_reg_mr(RocxCore *c, const union rocx_aq_cmd *cmd,
                     RocxAqResult *res);
void rocx_cmd_dereg_mr(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res);
bool rocx_pd_has_mr(RocxCore *c, uint32_t pdn);

/* Why an access through a key failed: a ROCX_VERR_* or 0. */
RocxMr *rocx_mr_lookup(RocxCore *c, uint32_t key);
uint8_t rocx_mr_check(RocxCore *c, uint32_t key, uint32_t pdn, uint64_t va,
                      uint64_t len, uint32_t access, RocxMr **mrp);
int rocx_mr_rw(RocxCore *c, const RocxMr *mr, uint64_t va, void *buf,
               size_t len, bool write);
/*
 * Copy len bytes between buf and the SGE list at byte offset off; every
 * SGE touched is checked against pdn and access.  Returns a ROCX_VERR_*.
 */
uint8_t rocx_sge_rw(RocxCore *c, const RocxSge *sge, unsigned n,
                    uint32_t pdn, uint32_t access, uint64_t off, void *buf,
                    size_t len, bool write);

void rocx_cmd_rereg_mr(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res);

/* ---- Memory windows (rocx-mw.c) ---- */

void rocx_cmd_alloc_mw(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res);
void rocx_cmd_dealloc_mw(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res);
bool rocx_pd_has_mw(RocxCore *c, uint32_t pdn);
/* Windows bound to the MR at this key index (REREG_MR refuses those). */
bool rocx_mr_has_mw(RocxCore *c, uint32_t key);
/* The MR at this key index is going away: its windows become unbound. */
void rocx_mw_mr_gone(RocxCore *c, uint32_t key);
/* The QP is being destroyed: type 2 windows bound to it become unbound. */
void rocx_mw_qp_gone(RocxCore *c, uint32_t qpn);
/*
 * A remote access through rkey (an MR's or a window's) by a request on
 * qp: a ROCX_VERR_* or 0, and the MR to access in *mrp.
 */
uint8_t rocx_rkey_check(RocxCore *c, const RocxQp *qp, uint32_t rkey,
                        uint64_t va, uint64_t len, uint32_t access,
                        RocxMr **mrp);
/*
 * The same, in PD pdn: the PD the request was accepted under, which on
 * an XRC_TGT QP is its SRQ's and may differ from the QP's current one.
 */
uint8_t rocx_rkey_check_pd(RocxCore *c, const RocxQp *qp, uint32_t pdn,
                           uint32_t rkey, uint64_t va, uint64_t len,
                           uint32_t access, RocxMr **mrp);
/* Execute a BIND_MW, REG_MR or LOCAL_INV WQE: a completion status, *verr. */
uint8_t rocx_mw_local_op(RocxCore *c, RocxQp *qp, const RocxSendWqe *w,
                         uint8_t *verr);
/* SEND with invalidate arrived on qp: a ROCX_VERR_* or 0. */
uint8_t rocx_mw_remote_inv(RocxCore *c, const RocxQp *qp, uint32_t rkey);

/* ---- Fast registration, DMA MRs (rocx-fr.c) ---- */

void rocx_cmd_alloc_mr(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res);
/* The fast-register MR at key's index, whatever its variant and state. */
RocxMr *rocx_fr_slot(RocxCore *c, uint32_t key);
/*
 * The local DMA lkey in an SGE of a QP of PD pdn, for access: a
 * ROCX_VERR_* or 0, and the bus address space's MR in *mrp (for
 * rocx_mr_check(), which checks the range).
 */
uint8_t rocx_fr_local_dma(RocxCore *c, uint32_t pdn, uint32_t access,
                          RocxMr **mrp);
/* Requester: the operation segment of a REG_MR WQE; false: malformed. */
bool rocx_fr_fetch(const struct rocx_send_wqe *hdr, RocxSendWqe *w);
/* Execute a REG_MR WQE (its page list is read now): status, *verr. */
uint8_t rocx_fr_reg(RocxCore *c, RocxQp *qp, const RocxSendWqe *w,
                    uint8_t *verr);
/* LOCAL_INV of a key that is no window's: status, *verr. */
uint8_t rocx_fr_local_inv(RocxCore *c, RocxQp *qp, uint32_t key,
                          uint8_t *verr);
/* SEND with invalidate of a key that is no window's: a ROCX_VERR_* or 0. */
uint8_t rocx_fr_remote_inv(RocxCore *c, const RocxQp *qp, uint32_t rkey);

/* ---- Completion queues (rocx-cq.c) ---- */

void rocx_cmd_create_cq(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res);
void rocx_cmd_destroy_cq(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res);
RocxCq *rocx_cq_get(RocxCore *c, uint32_t cqn);
/* rocx-resize.c */
void rocx_cmd_resize_cq(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res);
void rocx_db_cq(RocxCore *c, unsigned page, uint32_t cqn, uint16_t idx,
                uint64_t val);
void rocx_cq_arm_process(RocxCore *c);
bool rocx_uctx_has_cq(RocxCore *c, uint16_t uctx);

typedef struct RocxCqeInfo {
    uint32_t qpn;
    uint8_t opcode;             /* enum rocx_cqe_opcode */
    uint8_t status;             /* enum rocx_wc_status */
    uint8_t vendor_err;
    uint8_t flags;              /* ROCX_CQE_* but PHASE */
    uint16_t wqe_idx;
    uint32_t byte_len;
    uint32_t imm;               /* wire bytes */
    bool solicited;
    /* UD receives (with ROCX_CQE_GRH). */
    uint32_t src_qp;
    uint8_t net_type;
    uint8_t smac[6];
    uint16_t vlan;
    uint32_t ext;               /* struct rocx_cqe.ext (XRC: the SRQ) */
} RocxCqeInfo;

/* Write a CQE; false if the CQ is gone, broken or just overflowed. */
bool rocx_cq_write(RocxCore *c, uint32_t cqn, const RocxCqeInfo *ci);

/* ---- Queue pairs (rocx-qp.c) ---- */

void rocx_cmd_create_qp(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res);
void rocx_cmd_modify_qp(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res);
void rocx_cmd_query_qp(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res);
void rocx_cmd_destroy_qp(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res);
bool rocx_pd_has_qp(RocxCore *c, uint32_t pdn);
bool rocx_uctx_has_qp(RocxCore *c, uint16_t uctx);
RocxQp *rocx_qp_get(RocxCore *c, uint32_t qpn);
/* The QP's index in RocxRdma.qp[]. */
static inline unsigned rocx_qp_slot(const RocxQp *qp)
{
    return qp->slot;
}
/*
 * Move to ERR and flush.  With event, post QP_ERROR (info = syndrome, a
 * ROCX_VERR_*): for errors no CQE reports.
 */
void rocx_qp_error(RocxCore *c, RocxQp *qp, bool event, uint8_t syndrome);
/* Every QP using the CQ goes to ERR (CQ overflow). */
void rocx_qp_error_cq(RocxCore *c, uint32_t cqn);
/* The port MTU changed: QPs whose path MTU no longer fits go to ERR. */
void rocx_qp_port_mtu(RocxCore *c);
/* Back to RESET, the state of a new QP. */
void rocx_qp_to_reset(RocxQp *qp);
/* Unlink and free a QP, its deadlines and its hold on CQs and SRQ. */
void rocx_qp_free(RocxCore *c, RocxQp *qp);
/* Attributes each transition accepts beyond STATE, and those it needs. */
typedef struct RocxQpTrans {
    uint8_t from;
    uint8_t to;
    uint32_t required;
    uint32_t optional;
} RocxQpTrans;

/* Whether a MODIFY_QP from, to with attributes valid is in table tab. */
bool rocx_qp_trans_check(const RocxQpTrans *tab, unsigned n, uint8_t from,
                         uint8_t to, uint32_t valid);
/* Check an AV against the GID table; fill the path it selects. */
bool rocx_av_to_path(RocxCore *c, RocxQp *qp, const struct rocx_av *av,
                     RocxPath *p);
/* RoCE v2 source port of a flow label and QP pair. */
uint16_t rocx_udp_sport(uint32_t fl, uint32_t lqpn, uint32_t rqpn);

static inline bool rocx_qp_is_xrc(const RocxQp *qp)
{
    return qp->type == ROCX_QPT_XRC_INI || qp->type == ROCX_QPT_XRC_TGT;
}

/* The BTH transport (opcode [7:5]) of a connected QP's packets. */
static inline uint8_t rocx_qp_transport(const RocxQp *qp)
{
    return qp->type == ROCX_QPT_UC ? ROCX_TR_UC :
           rocx_qp_is_xrc(qp) ? ROCX_TR_XRC : ROCX_TR_RC;
}

/* ---- Shared receive queues (rocx-srq.c) ---- */

void rocx_cmd_create_srq(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res);
void rocx_cmd_modify_srq(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res);
void rocx_cmd_query_srq(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res);
void rocx_cmd_destroy_srq(RocxCore *c, const union rocx_aq_cmd *cmd,
                          RocxAqResult *res);
RocxSrq *rocx_srq_get(RocxCore *c, uint32_t srqn);
/* rocx-resize.c: MODIFY_SRQ's RESIZE part; an AQ status. */
uint8_t rocx_srq_resize(RocxCore *c, RocxSrq *srq, uint32_t srqn,
                        const struct rocx_aq_modify_srq *m);
void rocx_db_srq(RocxCore *c, unsigned page, uint32_t srqn, uint16_t idx);
bool rocx_pd_has_srq(RocxCore *c, uint32_t pdn);
bool rocx_uctx_has_srq(RocxCore *c, uint16_t uctx);

typedef enum RocxSrqTake {
    ROCX_SRQ_TAKEN,             /* qp->resp.rwqe holds the entry */
    ROCX_SRQ_EMPTY,             /* nothing posted: RNR */
    ROCX_SRQ_FAILED,            /* the SRQ is in error */
} RocxSrqTake;

/* Take the SRQ's oldest entry for qp's next receive. */
RocxSrqTake rocx_srq_take(RocxCore *c, RocxQp *qp);
/*
 * qp leaves the SRQ's service (ERR, RESET, destroyed): the entry it holds
 * completes with WR_FLUSH_ERR.
 */
void rocx_srq_qp_stop(RocxCore *c, RocxQp *qp);
/* An SRQ-attached qp reached ERR: post QP_LAST_WQE. */
void rocx_srq_last_wqe(RocxCore *c, RocxQp *qp);
void rocx_srq_reset(RocxCore *c);

/* ---- XRC (rocx-xrc.c) ---- */

void rocx_cmd_alloc_xrcd(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res);
void rocx_cmd_dealloc_xrcd(RocxCore *c, const union rocx_aq_cmd *cmd,
                           RocxAqResult *res);
bool rocx_uctx_has_xrcd(RocxCore *c, uint16_t uctx);
/* CREATE_SRQ of type XRC: check and take its XRCD and CQ. */
uint8_t rocx_xrc_srq_create(RocxCore *c, const struct rocx_aq_create_srq *cs,
                            uint32_t uctx, RocxSrq *srq);
/* An XRC SRQ goes: XRC_TGT QPs receiving into it let go, its CQ too. */
void rocx_xrc_srq_gone(RocxCore *c, RocxSrq *srq, uint32_t srqn);
/* CREATE_QP of an XRC_TGT QP (no queues, an XRCD). */
void rocx_xrc_create_tgt(RocxCore *c, const struct rocx_aq_create_qp *cq,
                         RocxAqResult *res);
/*
 * A packet for an XRC QP, before the RC engine sees it: false if it was
 * dropped or refused.  Leaves the RC opcode in p->opcode and, for an
 * XRC_TGT QP, points the QP's receive side at the XRCETH's SRQ.
 */
bool rocx_xrc_rx(RocxCore *c, RocxQp *qp, RocxPkt *p);

/* The opcode an XRC QP sends for the RC operation op. */
static inline uint8_t rocx_xrc_wire_op(const RocxQp *qp, uint8_t op)
{
    return rocx_qp_is_xrc(qp) ? (op & ROCX_OP_MASK) | ROCX_TR_XRC : op;
}

/* ---- Requester, completer, responder ---- */

/*
 * Send what the SQ allows, up to budget packets and local WQEs executed;
 * returns how many of those it did.
 */
unsigned rocx_req_run(RocxCore *c, RocxQp *qp, unsigned budget);
/* Whether rocx_req_run could send now. */
bool rocx_req_ready(RocxCore *c, RocxQp *qp);
void rocx_req_reset(RocxQp *qp);
/* Go back to psn_una and resend from there (go-back-N). */
void rocx_req_go_back(RocxCore *c, RocxQp *qp, RocxRetx why);
/* Move the send position to psn_una without counting a retransmission. */
void rocx_req_seek(RocxQp *qp);
/* (Re)start the local ACK timer, if the QP has a timeout. */
void rocx_req_timer_start(RocxCore *c, RocxQp *qp);
/*
 * Fetch the send WQE at idx into w and check it.  Returns ROCX_WC_SUCCESS
 * or the completion status (and *verr) of a WQE that cannot run.
 */
uint8_t rocx_req_fetch(RocxCore *c, RocxQp *qp, uint16_t idx, RocxSendWqe *w,
                       uint8_t *verr);
/* The CQE opcode of a send WQE opcode. */
uint8_t rocx_cqe_op(uint8_t wqe_op);
/* What rocx_req_start() did with the WQE at req.next. */
typedef enum RocxReqStart {
    /* Nothing: it has to wait, or it failed (its completion is written). */
    ROCX_REQ_WAIT,
    /* A local WQE (BIND_MW, LOCAL_INV, REG_MR) executed and completed. */
    ROCX_REQ_LOCAL,
    /* Fetched into req.wqe, its slot filled, cur set: packets to send. */
    ROCX_REQ_SEND,
} RocxReqStart;
/*
 * Start the WQE at req.next, one WQE at a time: a local WQE sends no
 * packet but is work all the same, which the caller counts against its
 * budget, and its completion may end the QP.
 */
RocxReqStart rocx_req_start(RocxCore *c, RocxQp *qp);
/* Send packet n (0-based) of the message of req.cur; a ROCX_VERR_*. */
uint8_t rocx_req_send_pkt(RocxCore *c, RocxQp *qp, RocxSqSlot *s, uint32_t n);

/* Retire the oldest send WQE; a CQE if it is signalled or failed. */
void rocx_comp_oldest(RocxCore *c, RocxQp *qp, uint8_t status, uint8_t verr);

/* The oldest send WQE failed: complete it with status, QP to ERR. */
void rocx_comp_error(RocxCore *c, RocxQp *qp, uint8_t status,
                     uint8_t vendor_err);
/* Retire the local WQEs (BIND_MW, LOCAL_INV) that are now oldest. */
void rocx_comp_local(RocxCore *c, RocxQp *qp);
/* Timer work: ACK timeout and RNR wait expiries. */
void rocx_comp_timers(RocxCore *c, RocxQp *qp, int64_t now);

unsigned rocx_resp_run(RocxCore *c, RocxQp *qp, unsigned budget);
/* Fetch the receive WQE at rq_ci; a completion status or SUCCESS. */
uint8_t rocx_resp_fetch(RocxCore *c, RocxQp *qp, uint8_t *verr);
bool rocx_resp_ready(RocxQp *qp);
void rocx_resp_reset(RocxQp *qp);
/*
 * A QP the consumer stops (DESTROY_QP, MODIFY_QP to ERR or RESET) sends
 * the positive ACK it still owes.
 */
void rocx_resp_flush_ack(RocxCore *c, RocxQp *qp);

/* ---- Wire (rocx-wire.c) ---- */

/* The flags (ROCX_OPF_*) of an opcode; 0 for one the model does not take. */
uint32_t rocx_op_flags(uint8_t opcode);

/* Where the payload of a packet for qp with opcode starts in the buffer. */
size_t rocx_wire_hdr_len(const RocxQp *qp, uint8_t opcode);
/* Where to put the payload of qp's next packet (rocx_frame_buf()). */
uint8_t *rocx_wire_buf(RocxCore *c, const RocxQp *qp);
/* Build headers and ICRC around the payload in rocx_wire_buf() and send. */
void rocx_wire_send(RocxCore *c, RocxQp *qp, const RocxTx *tx);

typedef enum RocxRxVerdict {
    ROCX_RX_NOT_ROCE,           /* not RoCE for this port: Ethernet path */
    ROCX_RX_DONE,               /* RoCE, consumed or dropped and counted */
} RocxRxVerdict;

/* The receive path's RoCE stage. */
RocxRxVerdict rocx_roce_receive(RocxCore *c, const uint8_t *buf, size_t len,
                                bool loopback);
/* Requests go to the responder, responses to the completer. */
void rocx_resp_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p);
void rocx_comp_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p);
/* Complete the receive WQE at rq_ci for packet p's message. */
void rocx_resp_recv_done(RocxCore *c, RocxQp *qp, uint8_t status,
                         uint8_t verr, uint8_t opcode, uint32_t len,
                         const RocxPkt *p);

/* ---- UC queue pairs (rocx-uc.c) ---- */

/* The requester of a UC QP, as rocx_req_run(): packets and local WQEs. */
unsigned rocx_uc_req_run(RocxCore *c, RocxQp *qp, unsigned budget);
/* A request for a UC QP (rocx_resp_rx() is RC's). */
void rocx_uc_resp_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p);

/* ---- UD queue pairs (rocx-ud.c) ---- */

/* Send and complete what the SQ holds, up to budget packets. */
unsigned rocx_ud_send_run(RocxCore *c, RocxQp *qp, unsigned budget);
/* Whether rocx_ud_send_run could send now. */
bool rocx_ud_send_ready(const RocxQp *qp);
/*
 * A UD QP's path (its priority, whether it loops back) becomes that of
 * the WQE it sends next, read from the SQ, so that the transmit
 * scheduler pauses and charges the message by its own address vector;
 * no change for another QP type, or without a WQE to send.
 */
void rocx_ud_next_path(RocxCore *c, RocxQp *qp);
/* The largest UD message the port's MTU allows. */
uint32_t rocx_ud_max_msg(RocxCore *c);
/* A UD packet received: to the QP (or QPs) it is for. */
void rocx_ud_rx(RocxCore *c, const RocxPkt *p);
/* Place it into qp's next receive WQE (Q_Key checked) and complete it. */
void rocx_ud_deliver(RocxCore *c, RocxQp *qp, const RocxPkt *p);
/* MODIFY_QP's transition rules of a UD QP; false: not allowed. */
bool rocx_ud_trans_ok(uint8_t from, uint8_t to, uint32_t valid);

/* ---- Responder resources (rocx-resp.c), atomics (rocx-atomic.c) ---- */

/*
 * A new responder resource (READ or atomic) for the request at psn, or
 * NULL if max_dest_rd_atomic of them are being answered already.
 */
RocxReadJob *rocx_resp_job_new(RocxQp *qp, uint32_t psn);
/* A request the responder cannot execute: NAK code, QP to ERR. */
void rocx_resp_nak_fatal(RocxCore *c, RocxQp *qp, const RocxPkt *p,
                         uint8_t code, uint8_t verr);

/* Requester: the operation segment and SGE of a CMP_SWAP or FETCH_ADD. */
uint8_t rocx_atomic_fetch(RocxCore *c, RocxQp *qp, uint64_t off,
                          const struct rocx_send_wqe *hdr, RocxSendWqe *w,
                          uint8_t *verr);
/* Requester: send the request of the atomic WQE in qp->req.wqe. */
void rocx_atomic_send(RocxCore *c, RocxQp *qp, uint32_t psn);
/*
 * Completer: the original value of an ATOMIC_ACKNOWLEDGE for the oldest
 * WQE into its SGE; ROCX_WC_SUCCESS or the status it completes with.
 */
uint8_t rocx_atomic_comp(RocxCore *c, RocxQp *qp, const RocxPkt *p,
                         uint8_t *verr);
/* Responder: a new atomic request at the expected PSN. */
void rocx_atomic_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p);
/* Responder: a duplicate one, answered from the saved result. */
void rocx_atomic_dup(RocxCore *c, RocxQp *qp, const RocxPkt *p);
/* Responder: send the response of a held atomic. */
void rocx_atomic_resp_pkt(RocxCore *c, RocxQp *qp, RocxReadJob *j);

/* ---- Multicast groups (rocx-mcast.c) ---- */

/* ff00::/8, or an IPv4-mapped 224.0.0.0/4. */
bool rocx_gid_is_mcast(const uint8_t *gid);
/* The MAC a multicast GID maps to (01:00:5e:..., 33:33:...). */
void rocx_mcast_mac(const uint8_t *gid, uint8_t *mac);
/* The group of this GID with a QP attached, or NULL. */
RocxMcastGrp *rocx_mcast_find(RocxCore *c, const uint8_t *gid);
/* Whether a group with a QP attached maps to this MAC. */
bool rocx_mcast_mac_wanted(RocxCore *c, const uint8_t *mac);
void rocx_cmd_attach_mcast(RocxCore *c, const union rocx_aq_cmd *cmd,
                           RocxAqResult *res);
void rocx_cmd_detach_mcast(RocxCore *c, const union rocx_aq_cmd *cmd,
                           RocxAqResult *res);
/* The QP is being destroyed: it leaves every group. */
void rocx_mcast_qp_gone(RocxCore *c, const RocxQp *qp);
/*
 * Whether the receive path takes a frame to group gid: a QP is attached
 * and dst (the frame's destination MAC; NULL for a loopback) is the
 * group's MAC.
 */
bool rocx_mcast_accepts(RocxCore *c, const uint8_t *gid, const uint8_t *dst);
/* A UD packet to a group: one copy to each attached QP that receives. */
void rocx_mcast_rx(RocxCore *c, const RocxPkt *p);
/* A UD QP's group send: a copy for this device's attached QPs. */
void rocx_mcast_loopback(RocxCore *c, const uint8_t *gid, const uint8_t *buf,
                         size_t len);
/* A UD QP's AV that names a group (its dmac is then the group's). */
bool rocx_mcast_av(const RocxQp *qp, const struct rocx_av *av);

/* ---- The GSI QP (rocx-gsi.c) ---- */

bool rocx_gsi_create_ok(RocxCore *c, const struct rocx_aq_create_qp *cq,
                        RocxAqResult *res);
void rocx_gsi_adopt(RocxCore *c, RocxQp *qp);
bool rocx_gsi_modify_ok(const RocxQp *qp, uint32_t valid,
                        const struct rocx_qp_attr *a);
void rocx_gsi_gone(RocxCore *c, RocxQp *qp);

/* ---- Event queues (rocx-eq.c) ---- */

void rocx_eq_post(RocxCore *c, unsigned eqn, uint16_t type, uint32_t data,
                  uint64_t info);
void rocx_db_eq(RocxCore *c, unsigned page, uint32_t qid, uint16_t idx,
                bool arm);
/* Apply ARM requests latched by EQ doorbells. */
void rocx_eq_arm(RocxCore *c);
/* Write the events queued for EQ 0; returns true if some remain. */
bool rocx_evq_drain(RocxCore *c);
void rocx_cmd_create_eq(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res);
void rocx_cmd_destroy_eq(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res);

/* ======== Top: runs the blocks ======== */

/* ---- Engine (rocx-engine.c) ---- */

/* Engine: handle the deadlines that passed; true if some are left. */
bool rocx_timers_run(RocxCore *c);
/* DEV_CTRL.RESET: everything but the counters back to power-on state. */
void rocx_reset_state(RocxCore *c);
/* Re-evaluate LINK_STATUS.UP; every change is counted and posted. */
void rocx_link_update(RocxCore *c);

/*
 * A producer index a doorbell (or a doorbell record) brings may only move
 * forward from pi, and at most depth entries ahead of the oldest entry ci
 * the device has not completed.
 */
static inline bool rocx_db_index_ok(uint16_t idx, uint16_t pi, uint16_t ci,
                                    unsigned log_depth)
{
    uint16_t ahead = idx - ci;

    return ahead <= (1u << log_depth) && ahead >= (uint16_t)(pi - ci);
}

/* The engine takes SQ producer idx of qp (rocx-qp.c): the QP runs. */
void rocx_qp_sq_take(RocxCore *c, RocxQp *qp, uint16_t idx);

/* ---- SQ doorbell records (rocx-dbrec.c) ---- */

/* A QP with a record had its SQ doorbell taken: its record is read. */
void rocx_dbrec_join(RocxCore *c, RocxQp *qp);
/* The QP is freed: its record is read no more. */
void rocx_dbrec_qp_gone(RocxCore *c, RocxQp *qp);
/* The QP goes to RESET: POLL cleared, the record read no more. */
void rocx_dbrec_qp_reset(RocxCore *c, RocxQp *qp);
/* Engine, before the QPs run: take what the polled records hold. */
void rocx_dbrec_poll(RocxCore *c);
/*
 * Engine, after they have sent: POLL where an engine run is due for the
 * QP, cleared (and the record read once more) where none is.  True if
 * that read found WQEs, for another run.
 */
bool rocx_dbrec_settle(RocxCore *c);

/* ---- RDMA engine (rocx-rdma.c) ---- */

/*
 * True if the QP is in RTS with nothing in flight (see direct doorbells);
 * with a doorbell delay the doorbell waits in the line, and false.
 */
bool rocx_db_sq(RocxCore *c, unsigned page, uint32_t qpn, uint16_t idx);
/* ROCX_TIMER_DB: the engine takes the delayed doorbells that are due. */
void rocx_db_line_timer(RocxCore *c, int64_t now);
void rocx_db_rq(RocxCore *c, unsigned page, uint32_t qpn, uint16_t idx);
/*
 * One turn of a QP (responder, then requester) of up to budget packets
 * and CQEs; returns the work done, *more whether it has more.
 */
unsigned rocx_qp_run(RocxCore *c, RocxQp *qp, unsigned budget, bool *more);
/* Its deadline passed (rocx_timers_run()). */
void rocx_qp_timer(RocxCore *c, RocxQp *qp, int64_t now);
/* Engine: run QPs with work; true if some remains. */
bool rocx_rdma_process(RocxCore *c);
void rocx_rdma_reset(RocxCore *c);

/* ---- Admin queue (rocx-aq.c) ---- */

/* AQ_STATUS and AQ_HEAD; AQ_CTRL (enable, disable, interrupt); AQ_DB. */
uint32_t rocx_rd_aq(RocxCore *c, unsigned off);
void rocx_wr_aq_ctrl(RocxCore *c, unsigned off, uint32_t val);
void rocx_wr_aq_db(RocxCore *c, unsigned off, uint32_t val);
/* Execute up to a budget of commands; returns true if some remain. */
bool rocx_aq_process(RocxCore *c);

/* ---- Registers and self-test (rocx-regs.c) ---- */

/* The identification registers (ID, VERSION, CAPS, MAC_LO, ...). */
uint32_t rocx_rd_ident(RocxCore *c, unsigned off);
/* Engine: run the self-test DMA that TEST_DMA_CTRL.START asked for. */
void rocx_selftest_dma(RocxCore *c);

#endif /* HW_NET_ROCX_INT_H */
