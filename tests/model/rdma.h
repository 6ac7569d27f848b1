/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the rocx RDMA transport: a small "driver" for fake
 * devices (admin commands, MRs, CQs, QPs, WQEs, CQ polling), a fabric
 * that wires two devices back to back through their send_frame ops with
 * loss injection, and a fake clock for the transport timer.
 */
#ifndef ROCX_TEST_RDMA_H
#define ROCX_TEST_RDMA_H

#include <endian.h>
#include "fake.h"
#include "rocx-int.h"

#define T_PAGE          4096u
#define T_GPA(off)      (FAKE_MEM_BASE + (uint64_t)(off))

/* ---- Checks (as in test_core.c) ---- */

extern const char *cur_case;
extern unsigned case_failures;
extern bool verbose;

void t_fail(const char *file, int line, const char *what,
            unsigned long long a, unsigned long long b);

#define CHECK(cond) do { \
        if (!(cond)) { \
            t_fail(__FILE__, __LINE__, #cond, 0, 0); \
        } \
    } while (0)

#define CHECK_EQ(a, b) do { \
        unsigned long long a_ = (a), b_ = (b); \
        if (a_ != b_) { \
            t_fail(__FILE__, __LINE__, #a " == " #b, a_, b_); \
        } \
    } while (0)

/* ---- Devices ---- */

typedef struct TDev {
    FakeDev *f;
    unsigned id;                /* 0 or 1: picks MAC, IP */
    uint16_t aq_pi;
    uint16_t aq_cmd_id;
    uint64_t brk;               /* bump allocator, offset in guest memory */
    uint32_t pdn;
    uint8_t mac[6];
    uint8_t gid4[16];           /* GID 0: RoCE v2, ::ffff:198.18.0.<id+1> */
    uint8_t gid6[16];           /* GID 1: RoCE v2, fd00::<id+1> */
    uint8_t gid1[16];           /* GID 2: RoCE v1, fe80::<id+1> */
    unsigned eq_ld;
    uint32_t eq_ci[ROCX_CORE_MAX_EQ];
    /*
     * QEMU's net queue in front of the NIC: frames wait here, in order,
     * while can_receive() says no or after receive() returned 0, until
     * the device calls rx_resume.
     */
    bool rx_blocked;
    struct THeld *held, **held_tail;
    unsigned nheld;
    uint64_t cfg_off;           /* t_cfg_buf()'s buffer, if cfg_ok */
    bool cfg_ok;
} TDev;

extern TDev *A, *B;

/* Fresh devices A and B: AQ, EQ 0 and EQ 1, link up, GIDs, a PD. */
void t_setup(void);
void t_teardown(void);

uint64_t t_alloc(TDev *d, uint64_t len, uint64_t align);
void *t_ptr(TDev *d, uint64_t off, size_t len);
uint64_t t_stat(TDev *d, enum rocx_stat s);

/* Run one admin command; returns the status. */
unsigned t_aq(TDev *d, union rocx_aq_cmd *c, uint32_t *result);
union rocx_aq_cmd t_cmd(uint16_t op);
void t_db(TDev *d, unsigned page, unsigned reg, uint32_t qid, uint16_t idx,
          uint64_t flags);
/* SET_PORT with only an MTU; returns the status. */
unsigned t_set_port_mtu(TDev *d, uint16_t mtu);
/*
 * SET_GID of d's GID index (0..2, as t_setup() made them) on VLAN vlan, as
 * the kernel programs a GID of a VLAN netdev; returns the status.
 */
unsigned t_set_gid(TDev *d, unsigned index, uint16_t vlan);
/* Next event of EQ eqn, or NULL; consumes it. */
struct rocx_eqe *t_eq_next(TDev *d, unsigned eqn);

/*
 * The configuration commands that carry a struct by address (struct
 * rocx_aq_cfg_buf: SET_DCB/QUERY_DCB, SET_CC/QUERY_CC): one buffer of
 * T_CFG_MAX bytes in d's memory, allocated at first use.  t_cfg_cmd runs
 * op on it with any len (the length checks); t_cfg_set copies in there
 * first, t_cfg_query copies out after.  Each returns the status.
 */
#define T_CFG_MAX       256
void *t_cfg_buf(TDev *d);
unsigned t_cfg_cmd(TDev *d, uint16_t op, uint32_t len);
unsigned t_cfg_set(TDev *d, uint16_t op, const void *in, uint32_t len);
unsigned t_cfg_query(TDev *d, uint16_t op, void *out, uint32_t len);

/* Page list for len bytes at guest offset off with 2^shift pages. */
struct rocx_pbl t_pbl(TDev *d, uint64_t off, uint64_t len, unsigned shift,
                      int levels);

typedef struct TMr {
    uint32_t key;
    uint64_t off;               /* guest offset of its first byte */
    uint64_t len;
    uint64_t iova;
} TMr;

/* Register len bytes at off (iova = its address) with access. */
unsigned t_reg_mr(TDev *d, TMr *mr, uint64_t off, uint64_t len,
                  uint32_t access);
unsigned t_dereg_mr(TDev *d, uint32_t key);

typedef struct TCq {
    TDev *d;
    uint32_t cqn;
    uint64_t ring;
    unsigned ld;
    uint32_t ci;
    uint32_t uctx;
} TCq;

unsigned t_create_cq(TDev *d, TCq *cq, unsigned ld, uint32_t uctx,
                     unsigned eqn);
/* Next CQE or NULL; returns the entry to the device (CQ doorbell). */
bool t_poll(TCq *cq, struct rocx_cqe *out);
void t_cq_arm(TCq *cq, uint64_t flags);

typedef struct TQp {
    TDev *d;
    uint32_t qpn;
    TCq *scq, *rcq;
    uint64_t buf;
    unsigned sq_ld, rq_ld, sq_shift, rq_shift;
    uint16_t sq_pi, rq_pi;
    uint32_t uctx;
    uint64_t dbrec;             /* guest offset of its doorbell record; 0 */
} TQp;

unsigned t_create_qp(TDev *d, TQp *qp, TCq *scq, TCq *rcq, unsigned sq_ld,
                     unsigned rq_ld, uint8_t flags);
/* The same of any enum rocx_qp_type. */
unsigned t_create_qp_type(TDev *d, TQp *qp, uint8_t type, TCq *scq,
                          TCq *rcq, unsigned sq_ld, unsigned rq_ld,
                          uint8_t flags);
unsigned t_modify(TQp *qp, struct rocx_qp_attr *a);
unsigned t_query(TQp *qp, struct rocx_qp_attr *a);
unsigned t_destroy_qp(TQp *qp);
/*
 * QPs that never run, for tests of numbering: each of two SQ WQEs in one
 * page at buf, which they may share.  t_qp_churn creates and destroys n
 * of them in turn and returns the number the last one had (0: a create
 * failed).
 */
unsigned t_create_idle_qp(TDev *d, TCq *cq, uint64_t buf, uint32_t *qpn);
unsigned t_destroy_qpn(TDev *d, uint32_t qpn);
uint32_t t_qp_churn(TDev *d, TCq *cq, uint64_t buf, unsigned n);
unsigned t_to_state(TQp *qp, uint8_t state);

typedef struct TConn {
    uint8_t mtu;                /* 1..5 */
    uint8_t net_type;           /* enum rocx_net_type */
    uint8_t timeout;
    uint8_t retry_cnt;
    uint8_t rnr_retry;
    uint8_t min_rnr_timer;
    uint32_t access;
    uint32_t psn_a, psn_b;
    uint16_t vlan;
    uint8_t prio;               /* the AV's priority (rocx-dcb.c) */
    uint8_t tclass;             /* the AV's traffic class; 0: t_av()'s */
} TConn;

void t_conn_default(TConn *c);
/* Bring a and b to RTS, each addressing the other (a loopback if same dev). */
void t_connect(TQp *a, TQp *b, const TConn *c);

/*
 * The pair most transport cases start from: one CQ of 2^8 entries on each
 * device (EQ 1, both queues of its QP), an RC QP of 2^6 + 2^6 WQEs on A
 * (qa) and one on B (qb).  t_rc_qps makes the four, not connected;
 * t_rc_pair also gives each side size bytes registered with that
 * side's access (0: no buffer, no MR) and connects the QPs with conn.
 */
typedef struct TRcPair {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    uint64_t abuf, bbuf;
    uint64_t size;
} TRcPair;

void t_rc_qps(TCq *acq, TCq *bcq, TQp *qa, TQp *qb);
void t_rc_pair(TRcPair *p, uint64_t size, uint32_t a_access,
               uint32_t b_access, const TConn *conn);
/* Fill the AV that reaches device "to" from d. */
void t_av(TDev *d, TDev *to, uint8_t net_type, struct rocx_av *av);

/* Write a send WQE at the next SQ slot (not rung); returns its index. */
uint16_t t_post_send(TQp *qp, uint8_t opcode, uint8_t flags,
                     const struct rocx_sge *sge, unsigned nsge,
                     uint64_t raddr, uint32_t rkey, uint32_t imm);
/* ALLOC_MW of type in d's PD; returns the status, *key the window's key. */
unsigned t_alloc_mw(TDev *d, uint8_t type, uint32_t *key);
/*
 * Post (not ring) a BIND_MW of window mw_key (the key it is to have) to
 * len bytes at off in mr with access; returns its index.
 */
uint16_t t_post_bind(TQp *qp, uint8_t flags, uint32_t mw_key, const TMr *mr,
                     uint64_t off, uint64_t len, uint32_t access);
uint16_t t_post_inline(TQp *qp, uint8_t opcode, uint8_t flags,
                       const void *data, unsigned len, uint64_t raddr,
                       uint32_t rkey);
uint16_t t_post_recv(TQp *qp, const struct rocx_sge *sge, unsigned nsge);
void t_ring_sq(TQp *qp);
/*
 * Post as the provider does on a QP with a doorbell record: sq_pi into
 * the record, then the SQ doorbell only if the device has not set POLL.
 * Returns whether it rang.
 */
bool t_post_record(TQp *qp);
/* The device's flags word of qp's doorbell record. */
uint32_t t_dbrec_flags(TQp *qp);
/* The send WQE at index idx of qp's SQ (to fill one t_post_send began). */
void *t_sq_slot(TQp *qp, uint16_t idx);
void t_ring_rq(TQp *qp);

struct rocx_sge t_sge(const TMr *mr, uint64_t off, uint32_t len);

/*
 * An Ethernet RX ring of 2^T_RX_LD buffers of T_RX_BUF bytes on d, n of
 * them posted; returns the ring, *bufs (if not NULL) the buffers.
 */
#define T_RX_LD         6
#define T_RX_BUF        2048
uint64_t t_rx_ring(TDev *d, unsigned n, uint64_t *bufs);

/* ---- Fabric ---- */

typedef struct TWire {
    unsigned sent;              /* frames put on the wire, both ways */
    unsigned delivered;
    unsigned dropped;
    unsigned drop_nth;          /* drop frame number n (1-based); 0: none */
    unsigned drop_from;         /* drop every frame from number n on */
    unsigned drop_every;        /* drop every n-th frame; 0: none */
    unsigned drop_permille;     /* drop frames at random, this often */
    uint32_t rng;               /* its generator's state */
    /* Optional: inspect or change a frame; false drops it. */
    bool (*filter)(TDev *from, uint8_t *buf, size_t *len);
} TWire;

extern TWire wire;

/*
 * Deliver frames and run engines until nothing moves; the clock moves
 * only as far as the frames' time on the line (the transmit scheduler's
 * wake-ups), no timer of anything else is made due.
 */
void t_pump(void);
/* The same with the clock standing still, line or not. */
void t_pump_still(void);
/* t_pump, moving the clock to due timers, until idle or max_ns passed. */
void t_settle(int64_t max_ns);
/* Deliver a hand-made frame to d (as from the wire). */
void t_inject(TDev *d, const uint8_t *buf, size_t len);
/* Put a frame on the wire towards d, behind those already on it. */
void t_wire_push(TDev *d, const uint8_t *buf, size_t len);

/* Pattern fill and check. */
void t_fill(void *p, size_t len, uint32_t seed);

/* ---- Cases ---- */

typedef struct TCase {
    const char *name;
    void (*fn)(void);
} TCase;

#define T_CASE(n) { #n, t_##n }

extern const TCase t_cases_obj[];
extern const unsigned t_ncases_obj;
extern const TCase t_cases_data[];
extern const unsigned t_ncases_data;
extern const TCase t_cases_rel[];
extern const unsigned t_ncases_rel;
extern const TCase t_cases_wire[];
extern const unsigned t_ncases_wire;
extern const TCase t_cases_fabric[];
extern const unsigned t_ncases_fabric;
extern const TCase t_cases_chan[];
extern const unsigned t_ncases_chan;
extern const TCase t_cases_time[];
extern const unsigned t_ncases_time;
extern const TCase t_cases_rx[];
extern const unsigned t_ncases_rx;
extern const TCase t_cases_uc[];
extern const unsigned t_ncases_uc;
extern const TCase t_cases_dcb[];
extern const unsigned t_ncases_dcb;
extern const TCase t_cases_ud[];
extern const unsigned t_ncases_ud;
extern const TCase t_cases_gsi[];
extern const unsigned t_ncases_gsi;
extern const TCase t_cases_atomic[];
extern const unsigned t_ncases_atomic;
extern const TCase t_cases_mw[];
extern const unsigned t_ncases_mw;
extern const TCase t_cases_srq[];
extern const unsigned t_ncases_srq;
extern const TCase t_cases_resize[];
extern const unsigned t_ncases_resize;
extern const TCase t_cases_mcast[];
extern const unsigned t_ncases_mcast;
extern const TCase t_cases_stats[];
extern const unsigned t_ncases_stats;
extern const TCase t_cases_cc[];
extern const unsigned t_ncases_cc;
extern const TCase t_cases_sched[];
extern const unsigned t_ncases_sched;
extern const TCase t_cases_xrc[];
extern const unsigned t_ncases_xrc;
extern const TCase t_cases_fr[];
extern const unsigned t_ncases_fr;
extern const TCase t_cases_dbrec[];
extern const unsigned t_ncases_dbrec;

#endif /* ROCX_TEST_RDMA_H */
