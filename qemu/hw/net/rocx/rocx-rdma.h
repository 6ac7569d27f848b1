/*
 * rocx device model: the types of the RDMA objects.
 *
 * Memory regions and windows, completion queues, SRQs and queue pairs
 * with the transport state the requester (rocx-req.c), responder
 * (rocx-resp.c) and completer (rocx-comp.c) keep in them, and RocxRdma,
 * the device's tables of them and its ready list.  Types only: objects
 * are created and destroyed by admin commands in their own files
 * (rocx-mr.c, rocx-cq.c, rocx-qp.c, ...), and run by rocx-rdma.c.
 *
 * Who touches what.  As in rocx-core.h, two sides enter the core:
 *
 *  - MMIO side (rocx_core_db_write): the SQ, RQ and CQ doorbells.  They
 *    look a queue up (valid, uctx), read the engine's consumer/producer
 *    index to validate the new one, then write only the fields marked
 *    "MMIO" below (sq_pi, rq_pi, cq ci and arm_req) and the scheduling
 *    ring (RocxRdma.sched*).  Nothing else.
 *  - Engine: rocx_core_process() (bottom half), the receive path and the
 *    timer.  Everything not marked MMIO.
 *
 * Moving the engine to a thread of its own means making those MMIO fields
 * atomics (or doorbell messages) and the lookups RCU-safe; the layout does
 * not need to change.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ROCX_RDMA_H
#define HW_NET_ROCX_RDMA_H

#include "qemu/queue.h"
#include "rocx/rocx_verbs.h"

/* Object tables.  Index 0 of the MR table is never handed out. */
#define ROCX_CORE_MR_SLOTS          (ROCX_CORE_MAX_MR + 1)

/*
 * QP, CQ and SRQ numbers (rocx-device.rst, "Object numbers"): slot |
 * generation << ROCX_NUM_SLOT_BITS, 24 bits in all.  A slot's generation
 * moves on when its object is destroyed, so the number is dead at once;
 * slots are handed out next-fit.  A number that must never be given (qpn
 * 0 and 1, the special QPs of InfiniBand; the multicast qpn 0xffffff;
 * cqn 0) costs its slot one generation.
 */
#define ROCX_NUM_BITS               24
#define ROCX_NUM_MASK               ((1u << ROCX_NUM_BITS) - 1)
#define ROCX_NUM_SLOT_BITS          10
#define ROCX_NUM_SLOTS              (1u << ROCX_NUM_SLOT_BITS)
#define ROCX_NUM_GEN_MASK           ((1u << (ROCX_NUM_BITS - \
                                             ROCX_NUM_SLOT_BITS)) - 1)
#define ROCX_CORE_CQ_SLOTS          ROCX_CORE_MAX_CQ
#define ROCX_CORE_QP_SLOTS          ROCX_CORE_MAX_QP
QEMU_BUILD_BUG_ON(ROCX_CORE_CQ_SLOTS != ROCX_NUM_SLOTS ||
                  ROCX_CORE_QP_SLOTS != ROCX_NUM_SLOTS ||
                  ROCX_CORE_MAX_SRQ + 1 > ROCX_NUM_SLOTS);
/* The first numbers after reset are those a 1.1 device gave: qpn 2, cqn 1. */
#define ROCX_CORE_QPN_FIRST         2
#define ROCX_CORE_CQN_FIRST         1
#define ROCX_QPN_MULTICAST          0xffffff

static inline unsigned rocx_num_slot(uint32_t num)
{
    return num & (ROCX_NUM_SLOTS - 1);
}

/*
 * Where the next numbers come from, for one kind of object: survives a
 * function reset (rocx_reset_state()), so that a peer's packet for a QP
 * from before the reset finds no QP after it.
 */
typedef struct RocxNumSpace {
    uint16_t next;                      /* next-fit: slot to try first */
    uint16_t gen[ROCX_NUM_SLOTS];       /* generation of the slot's next */
} RocxNumSpace;
/* Index 0 of the SRQ table is never handed out either. */
#define ROCX_CORE_SRQ_SLOTS         (ROCX_CORE_MAX_SRQ + 1)
/* Entries of 16..512 bytes (CREATE_SRQ.wqe_shift), as in an RQ. */
#define ROCX_CORE_SRQ_MIN_WQE_SHIFT 4
#define ROCX_CORE_SRQ_MAX_WQE_SHIFT 9

/*
 * Page-list entries the device keeps for all objects together (its
 * "MTT"): 4M entries, 32 MiB of host memory, 16 GiB of 4 KiB pages.
 * Creation beyond it fails with NO_RESOURCE, so no guest can make QEMU
 * allocate without bound.
 */
#define ROCX_CORE_MAX_PBL_ENTRIES   (1u << 22)

/*
 * Packets the engine sends per rocx_core_process() call, and per QP turn.
 * Where the peer takes fabric bundles, a call's packets leave in as few
 * as hold them: 60 packets of a 1 KiB path MTU fill a bundle of
 * ROCX_FAB_BUNDLE_MAX bytes, so a call's 128 make three.
 */
#define ROCX_CORE_PKT_BUDGET        128
#define ROCX_CORE_QP_BURST          16
/* Flush completions written per QP turn. */
#define ROCX_CORE_FLUSH_BURST       64
/*
 * Requester: send WQEs in flight and unacknowledged PSNs per QP, by
 * default; the glue may choose others in the bounds below
 * (rocx_core_set_req_limits()).  ROCX_REQ_MAX_WQES is also the size of
 * the slot ring.  A window stays far below 2^23 PSNs, the most IB lets a
 * requester have unacknowledged.
 */
#define ROCX_REQ_WQES               128
#define ROCX_REQ_MAX_WQES           128
#define ROCX_REQ_WINDOW             512
#define ROCX_REQ_MIN_WINDOW         16
#define ROCX_REQ_MAX_WINDOW         8192
/*
 * Responses one READ request asks for at most (rocx_read_req_end()); a
 * READ of more is asked for in parts, each when the one before it is
 * answered, so PSNs in flight stay within 2^22 + ROCX_REQ_MAX_WINDOW.
 */
#define ROCX_READ_MAX_PKTS          (1u << 22)
/* AckReq every this many packets of a long message; responder likewise. */
#define ROCX_ACK_INTERVAL           16
/*
 * Local ACK timeout floor.  Guests run under TCG, where a peer can stall
 * for milliseconds; the IB encoding (4.096 us * 2^timeout) is honoured
 * above this floor.
 */
#define ROCX_CORE_MIN_ACK_TIMEOUT_NS    (10 * 1000 * 1000LL)
/* RNR waits shorter than this are rounded up (no busy retry loops). */
#define ROCX_CORE_MIN_RNR_NS            (1000 * 1000LL)

/* A copied page list: npages guest addresses of 2^page_shift bytes. */
typedef struct RocxPbl {
    uint64_t *pages;
    uint32_t npages;
    uint8_t page_shift;
} RocxPbl;

/* What an MR slot holds (rocx-mr.c; rocx-fr.c for the others). */
enum RocxMrKind {
    ROCX_MR_KIND_REG,           /* REG_MR: pages copied at registration */
    ROCX_MR_KIND_FAST,          /* ALLOC_MR: pages from REG_MR WQEs */
    ROCX_MR_KIND_DMA,           /* ALLOC_MR, local DMA lkey: bus addresses */
};

typedef struct RocxMr {
    bool valid;
    uint8_t kind;               /* enum RocxMrKind */
    /*
     * FAST: registered by a REG_MR WQE and not invalidated since; while
     * clear ("free") no key reaches the MR.
     */
    bool fr_valid;
    uint8_t variant;            /* survives DEREG: the key's [7:0] */
    uint32_t pdn;
    uint32_t access;            /* ROCX_ACCESS_* */
    uint64_t iova;
    uint64_t length;
    uint32_t offset;            /* of iova within the first page */
    RocxPbl pbl;
} RocxMr;

/*
 * A memory window (rocx-mw.c): key index ROCX_CORE_MW_KEY_BASE + its
 * slot, so no MR key names it.  While bound it grants access to
 * [addr, addr + length) of the MR mr_key.
 */
#define ROCX_CORE_MW_KEY_BASE       ROCX_CORE_MR_SLOTS

typedef struct RocxMw {
    bool valid;
    bool bound;
    uint8_t type;               /* enum rocx_mw_type */
    uint8_t variant;            /* the key's [7:0]; survives DEALLOC */
    uint32_t pdn;
    uint32_t qpn;               /* type 2: the QP it is bound to */
    uint32_t mr_key;
    uint32_t access;            /* ROCX_ACCESS_REMOTE_* */
    uint64_t addr;
    uint64_t length;
} RocxMw;

typedef struct RocxCq {
    uint32_t cqn;
    bool valid;
    bool error;                 /* overflowed: writes nothing more */
    uint8_t log_depth;
    uint8_t eqn;
    uint8_t format;             /* enum rocx_cqe_format */
    uint16_t uctx;
    uint16_t users;             /* QPs whose send or recv CQ this is */
    RocxPbl pbl;
    uint32_t pi;                /* CQEs written, free-running */
    uint32_t sol_pi;            /* pi after the last solicited/error CQE */
    uint8_t armed;              /* 0, ROCX_CQ_ARM_ANY or _SOLICITED */
    /* MMIO: consumer index (widened from 16 bits) and arm request. */
    uint32_t ci;
    uint8_t arm_req;
} RocxCq;

#define ROCX_CQ_ARM_ANY         1
#define ROCX_CQ_ARM_SOLICITED   2

/*
 * A shared receive queue (rocx-srq.c): a ring the QPs attached to it take
 * receive WQEs from, in ring order, whatever QP asks.
 */
typedef struct RocxSrq {
    bool valid;
    uint32_t srqn;              /* its number, of this slot (rocx-numgen.c) */
    bool error;                 /* a bad entry: takes nothing more */
    uint8_t log_depth;
    uint8_t wqe_shift;
    uint8_t type;               /* enum rocx_srq_type */
    uint16_t uctx;
    uint32_t pdn;
    uint32_t limit;             /* armed while not 0 */
    uint32_t users;             /* QPs attached */
    uint32_t xrcdn;             /* XRC: its domain */
    uint32_t cqn;               /* XRC: where its receives complete */
    RocxPbl pbl;
    uint16_t ci;                /* next entry to take */
    /* MMIO: producer latched from the SRQ doorbell. */
    uint16_t pi;
} RocxSrq;

/* The path of an RTR QP, snapshotted from its AV and source GID. */
typedef struct RocxPath {
    uint8_t net_type;           /* enum rocx_net_type */
    bool loopback;              /* dgid is one of our own GIDs */
    uint8_t sgid[16];
    uint8_t dgid[16];
    uint8_t smac[6];
    uint8_t dmac[6];
    uint16_t vlan;              /* ROCX_VLAN_NONE: untagged */
    /*
     * The 802.1Q tag sent (PCP and VLAN id) or ROCX_VLAN_NONE: a VLAN
     * path's, or priority-tagged (VLAN 0) for a lossless priority under
     * PCP trust.  rocx_dcb_path_tag() sets it.
     */
    uint16_t tci;
    uint32_t flow_label;
    uint8_t prio;               /* 802.1p priority (rocx-dcb.c) */
    uint8_t hop_limit;
    uint8_t traffic_class;
    uint16_t udp_sport;
} RocxPath;

typedef struct RocxSge {
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
} RocxSge;

/* A send WQE as fetched and checked by the requester. */
typedef struct RocxSendWqe {
    uint16_t idx;
    uint8_t opcode;             /* enum rocx_wqe_opcode */
    uint8_t flags;              /* ROCX_WQE_* */
    uint8_t num_sge;
    uint32_t imm;               /* as on the wire (big endian bytes) */
    uint64_t raddr;
    uint32_t rkey;
    uint32_t length;            /* message bytes */
    uint32_t xrc_srqn;          /* XRC_INI: the target SRQ */
    struct rocx_wqe_ud ud;      /* UD: as posted */
    uint64_t swap_add;          /* atomics: swap (CMP_SWAP) or add */
    uint64_t compare;
    struct {                    /* BIND_MW */
        uint32_t mw_key;
        uint32_t mr_key;
        uint32_t access;
        uint64_t addr;
        uint64_t length;
    } bind;
    struct {                    /* REG_MR: the page list is read later */
        uint32_t key;
        uint32_t access;
        uint64_t iova;
        uint64_t length;
        uint64_t pbl_addr;
        uint32_t npages;
        uint8_t page_shift;
        uint8_t levels;
    } reg;
    RocxSge sge[ROCX_CORE_MAX_SGE];
    uint8_t inline_data[ROCX_CORE_MAX_INLINE];
} RocxSendWqe;

/* A receive WQE as fetched by the responder. */
typedef struct RocxRecvWqe {
    uint16_t idx;               /* what its CQE names: an SRQ entry's tag */
    uint8_t num_sge;
    uint64_t length;            /* sum of the SGEs */
    RocxSge sge[ROCX_CORE_MAX_SGE];
} RocxRecvWqe;

/* What the requester remembers of each send WQE in flight. */
typedef struct RocxSqSlot {
    uint8_t opcode;
    uint8_t flags;
    uint32_t length;
    uint32_t first_psn;
    /* PSNs the message uses; 0: local (BIND_MW, LOCAL_INV), done. */
    uint32_t npkts;
} RocxSqSlot;

/*
 * An RDMA READ the responder accepted: one of its last max_dest_rd_atomic
 * READs (its "responder resources"), which a duplicate request may ask
 * for again from any of its PSNs, and the responses still to send.  An
 * atomic takes a resource too (atomic set): its one response carries
 * the value saved when it was executed, so that a duplicate is answered
 * from it and never executed twice.
 */
typedef struct RocxReadJob {
    /* The request as accepted. */
    uint32_t first_psn;         /* of its first response */
    uint32_t npkts;             /* PSNs its responses take */
    uint64_t va0;
    uint32_t rkey;
    uint32_t len;
    /*
     * The PD its R_Key is checked in, for the responses and a repeat: an
     * XRC_TGT QP's PD is that of the SRQ the latest message named.
     */
    uint32_t pdn;
    /* Responses to send, while busy: from psn on, left bytes from va. */
    bool busy;
    bool first;                 /* the next one starts a run: FIRST, ONLY */
    uint32_t psn;
    uint64_t va;
    uint32_t left;
    /*
     * Every response has gone out once: the requester may have completed
     * it, so a replay of it may give way to a new request.
     */
    bool answered;
    /* An atomic: its opcode (ROCX_OP_*) and the value it found. */
    bool atomic;
    uint8_t op;
    uint64_t orig;
} RocxReadJob;

enum RocxRespOp {
    ROCX_RESP_IDLE,
    ROCX_RESP_SEND,             /* between SEND FIRST and LAST */
    ROCX_RESP_WRITE,            /* between WRITE FIRST and LAST */
};

/*
 * A QP's congestion control (rocx-cc.c): the reaction point's DCQCN state
 * and the notification point's CNP interval.  Engine only.
 */
typedef struct RocxQpCc {
    /*
     * The rate the transmit scheduler paces the QP at, Mb/s; 0: unlimited
     * (the reaction point is idle).  Set here, read by the scheduler.
     */
    uint32_t tx_rate_mbps;
    /* Reaction point: a CNP made it active; idle again at line rate. */
    bool active;
    bool stepped;               /* an increase step since the last CNP */
    uint64_t cur_kbps;          /* current rate */
    uint64_t tgt_kbps;          /* target rate */
    uint32_t alpha;             /* 2^-20 (rocx-cc.c) */
    uint32_t t_count;           /* increase timer expiries since the CNP */
    uint32_t b_count;           /* byte counter expiries since the CNP */
    uint64_t bytes;             /* sent since the byte counter's last */
    int64_t alpha_deadline;
    int64_t inc_deadline;
    /* In the heap while active, at the earlier of the two deadlines. */
    RocxTimer timer;
    /* Set while active: rocx_cc_sent() reads its configuration. */
    struct RocxCore *core;
    /* Notification point: when this QP's last CNP went out. */
    bool cnp_sent;
    int64_t last_cnp;
} RocxQpCc;

enum RocxAckKind {
    ROCX_ACK_NONE,
    ROCX_ACK_ACK,
    ROCX_ACK_NAK,
};

/*
 * A QP as a source of the transmit scheduler (rocx-sched.c): its static
 * rate limit (MODIFY_QP RATE_LIMIT) and when it may send its next frame
 * at its pacing rate; the timer wakes it then.
 */
typedef struct RocxQpSched {
    uint32_t rate_limit_kbps;   /* 0: none */
    int64_t pace_next;
    uint64_t pace_rem;
    uint64_t pace_kbps;         /* the rate pace_next was set at; 0 none */
    RocxTimer timer;
} RocxQpSched;

typedef struct RocxQp {
    uint32_t qpn;
    uint16_t slot;              /* index in RocxRdma.qp[] */
    bool gsi;                   /* the GSI QP: qpn 1, its slot's own aside */
    uint8_t type;               /* enum rocx_qp_type */
    uint8_t state;              /* enum rocx_qp_state */
    uint8_t flags;              /* ROCX_QP_* */
    uint8_t sq_log_depth;
    uint8_t rq_log_depth;       /* 0: no RQ */
    uint8_t sq_wqe_shift;
    uint8_t rq_wqe_shift;
    uint16_t uctx;
    uint32_t pdn;
    uint32_t send_cqn;
    uint32_t recv_cqn;
    /*
     * ROCX_NO_SRQ: receives from its RQ.  An XRC_TGT QP's srqn, recv_cqn,
     * pdn and recv_pdn are those of the SRQ its current message names
     * (rocx_xrc_rx()), and hold no reference.
     */
    uint32_t srqn;
    uint32_t xrcdn;             /* XRC_TGT: its domain */
    uint32_t recv_pdn;          /* receive SGEs' PD: the SRQ's or pdn */
    RocxPbl pbl;                /* SQ at 0, RQ at sq_bytes */
    uint64_t sq_bytes;

    /* Attributes (MODIFY_QP). */
    uint32_t access;
    uint8_t path_mtu;           /* 1..5 */
    uint32_t mtu;               /* bytes */
    uint8_t timeout;
    uint8_t retry_cnt;
    uint8_t rnr_retry;
    uint8_t min_rnr_timer;
    uint8_t max_rd_atomic;
    uint8_t max_dest_rd_atomic;
    uint32_t dest_qpn;
    uint32_t rq_psn;
    uint32_t sq_psn;
    uint32_t qkey;              /* UD */
    struct rocx_av av;
    /* RC: the QP's path.  UD: the path of the WQE being sent. */
    RocxPath path;

    /*
     * Engine: in the device's timer heap while req.deadline or an RNR
     * wait is pending, keyed by the earlier (rocx_timer_note()).  A
     * deadline cleared without a note costs one wake-up that finds
     * nothing due.
     */
    RocxTimer timer;

    /* Engine: transmit scheduling and pacing (rocx-sched.c). */
    RocxQpSched sched;

    /*
     * MMIO: producer indices latched from the SQ and RQ doorbells; with a
     * doorbell delay, sq_pi is the SQ doorbell the engine has taken and
     * sq_db the last one written (rocx-delay.c), bumped with sq_db_gen
     * by a reset, so that a doorbell still in the line is dropped.
     */
    uint16_t sq_pi;
    uint16_t rq_pi;
    uint16_t sq_db;
    uint32_t sq_db_gen;
    /*
     * Engine: with ROCX_QP_DB_RECORD, on RocxRdma.dbrec_qps while the
     * engine reads the record (rocx-dbrec.c); dbrec_poll is the POLL flag
     * it last wrote there.
     */
    QLIST_ENTRY(RocxQp) dbrec_link;
    bool dbrec_listed;
    bool dbrec_poll;

    /* Engine: flush of a QP in ERR; an error NAK still to go out. */
    bool flushing;
    bool nak_final;
    /* Engine: a QP_ERROR of this QP waits in the event FIFO (evq). */
    bool evq_pending;
    /*
     * Engine: its QP_LAST_WQE (SRQ-attached QPs) waits there, or follows
     * the waiting QP_ERROR in the same entry, so that a QP never holds
     * more than one.
     */
    bool evq_last_pending;
    bool evq_last_follows;

    /* Requester and completer (send queue). */
    struct {
        uint16_t ci;            /* oldest WQE not completed */
        uint16_t next;          /* next WQE to fetch */
        uint16_t cur;           /* WQE being (re)sent; == next: none */
        uint32_t cur_psn;       /* PSN of cur's next packet */
        bool cur_cached;        /* wqe holds cur */
        RocxSendWqe wqe;
        bool rd_cached;         /* rd_wqe holds the READ at ci */
        RocxSendWqe rd_wqe;
        RocxSqSlot slot[ROCX_REQ_MAX_WQES];
        uint32_t psn_next;      /* highest PSN sent + 1 */
        uint32_t psn_una;       /* oldest unacknowledged PSN */
        uint8_t rd_out;         /* READs in flight */
        uint8_t retries;        /* left before RETRY_EXC_ERR */
        uint8_t rnr_retries;    /* left before RNR_RETRY_EXC_ERR */
        bool rnr_wait;          /* stopped until rnr_deadline */
        bool blocked;           /* next WQE waits for a completion */
        bool gap_retried;       /* go-back-N for a READ gap at psn_una */
        int64_t deadline;       /* local ACK timeout; 0: not running */
        int64_t rnr_deadline;
    } req;

    /* Responder (receive queue). */
    struct {
        uint16_t rq_ci;         /* oldest receive WQE not completed */
        uint32_t epsn;
        uint32_t msn;
        uint8_t op;             /* enum RocxRespOp */
        bool uc_drop;           /* UC: dropping until a FIRST or ONLY */
        bool rwqe_valid;        /* rwqe holds the WQE at rq_ci */
        RocxRecvWqe rwqe;
        uint64_t recv_off;      /* bytes placed in rwqe */
        uint64_t wr_va;         /* RDMA WRITE in progress */
        uint32_t wr_rkey;
        uint32_t wr_left;
        uint32_t wr_total;      /* its DMA length: byte_len with IMM */
        uint8_t ack;            /* enum RocxAckKind */
        uint8_t syndrome;       /* for ROCX_ACK_NAK */
        uint32_t ack_psn;
        bool nak_sent;          /* no more NAKs until epsn arrives */
        uint32_t since_ack;
        /* READs held, oldest first; rd_busy of them have responses due. */
        uint8_t rd_count;
        uint8_t rd_busy;
        RocxReadJob rd[ROCX_CORE_MAX_RD_ATOM];
    } resp;

    /* ECN and DCQCN (rocx-cc.c). */
    RocxQpCc cc;
} RocxQp;

/* Transport engine counters, not part of the contract (tests, traces). */
typedef struct RocxRdmaStats {
    uint64_t retransmits;       /* go-back-N episodes */
    uint64_t timeouts;
    uint64_t naks_sent;
    uint64_t naks_rcvd;
    uint64_t rnr_naks_sent;
    uint64_t dup_requests;
    uint64_t loopback;
    uint64_t mcast_loopback;    /* group sends copied to our own QPs */
    /* UD packets dropped: no such UD QP, wrong Q_Key, no receive WQE. */
    uint64_t ud_no_qp_drops;
    uint64_t ud_qkey_drops;
    uint64_t ud_no_wqe_drops;
    /* What the timer and arm passes cost: passes, objects looked at. */
    uint64_t timer_runs;
    uint64_t timer_visits;
    uint64_t cq_arm_visits;
    /* CNPs the delay line had no room for, and so never sent. */
    uint64_t cnp_delay_full;
    uint64_t db_delay_full;     /* doorbells the full line took early */
    /* SQ doorbells deferred (lazy), and the runs their bound forced. */
    uint64_t lazy_doorbells;
    uint64_t lazy_expiries;
    /*
     * Doorbell records: times POLL was set (what was taken from them is
     * the guest's ROCX_STAT_DB_RECORD_TAKES).
     */
    uint64_t dbrec_polls;
} RocxRdmaStats;

/*
 * A multicast group (rocx-mcast.c): in use while a QP is attached.  The
 * QPs' order means nothing; each is in it once.
 */
typedef struct RocxMcastGrp {
    uint8_t gid[16];
    uint8_t mac[6];             /* derived from gid */
    uint8_t nqp;                /* 0: free */
    uint32_t qpn[ROCX_CORE_MAX_MCAST_QP_ATTACH];
} RocxMcastGrp;

/* Engine: ATTACH_MCAST, DETACH_MCAST, DESTROY_QP and reset change it. */
typedef struct RocxMcast {
    unsigned ngrp;              /* groups in use */
    RocxMcastGrp grp[ROCX_CORE_MAX_MCAST_GRP];
} RocxMcast;

typedef struct RocxRdma {
    RocxMr mr[ROCX_CORE_MR_SLOTS];
    RocxMw mw[ROCX_CORE_MAX_MW];
    RocxCq cq[ROCX_CORE_CQ_SLOTS];
    RocxQp *qp[ROCX_CORE_QP_SLOTS];
    RocxQp *gsi;                /* also in qp[]; NULL: none (rocx-gsi.c) */
    RocxSrq srq[ROCX_CORE_SRQ_SLOTS];
    /* XRCD n (1..MAX_XRCD) is in use when xrcd_owner[n - 1] != 0. */
    uint16_t xrcd_owner[ROCX_CORE_MAX_XRCD];    /* owning uctx + 1 */
    uint32_t pbl_entries;       /* page-list entries held, all objects */
    RocxNumSpace qpns;
    RocxNumSpace cqns;
    RocxNumSpace srqns;
    /* QPs whose doorbell records the engine reads (rocx-dbrec.c). */
    QLIST_HEAD(, RocxQp) dbrec_qps;

    /*
     * CQs with an arm request for the engine: a FIFO of CQ slots, each
     * at most once (arm_queued[] survives a CQ's destruction, as queued[]
     * does for QPs).  The MMIO side pushes, the engine pops.
     */
    uint16_t arm_list[ROCX_CORE_CQ_SLOTS];
    unsigned arm_head;
    unsigned arm_count;
    bool arm_queued[ROCX_CORE_CQ_SLOTS];

    /*
     * QPs with engine work: a FIFO of QP slots, each at most once
     * (queued[] survives a QP's destruction, so a slot reused while
     * queued is not queued twice).  Both sides push, the engine pops.
     */
    uint16_t sched[ROCX_CORE_QP_SLOTS];
    unsigned sched_head;
    unsigned sched_count;
    bool queued[ROCX_CORE_QP_SLOTS];

    RocxRdmaStats stats;

    RocxMcast mcast;
} RocxRdma;

#endif /* HW_NET_ROCX_RDMA_H */
