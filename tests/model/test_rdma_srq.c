/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared receive queues (contract 1.2, ROCX_CAP2_SRQ): creation checks and
 * what keeps an SRQ alive, several QPs receiving from one SRQ with data
 * verified and completions named by tag (also out of ring order), the
 * limit event, RNR while empty, QP_LAST_WQE and the flush of the entry a
 * QP holds, destroy while held, a malformed entry, doorbell rules.
 */
#include "rdma.h"

static unsigned gmark;

static void check_gerr(TDev *d, unsigned code, int line)
{
    if (d->f->gerrs != gmark + 1 || d->f->last_gerr_code != code) {
        t_fail(__FILE__, line, "one guest error of the expected code",
               d->f->last_gerr_code, code);
    }
    gmark = d->f->gerrs;
}
#define CHECK_GERR(d, code) check_gerr((d), (code), __LINE__)

typedef struct TSrq {
    TDev *d;
    uint32_t srqn;
    uint64_t ring;
    unsigned ld, shift;
    uint16_t pi;
    uint32_t uctx;
} TSrq;

static union rocx_aq_cmd srq_cmd(TSrq *s, unsigned ld, uint32_t limit)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_SRQ);
    struct rocx_aq_create_srq *cs = (void *)&c;
    uint64_t len;

    memset(s, 0, sizeof(*s));
    s->d = A;
    s->ld = ld;
    s->shift = 6;                       /* three SGEs */
    len = 1ULL << (ld + s->shift);
    s->ring = t_alloc(A, len < T_PAGE ? T_PAGE : len, T_PAGE);
    cs->pdn = htole32(A->pdn);
    cs->log_depth = ld;
    cs->wqe_shift = s->shift;
    cs->limit = htole32(limit);
    cs->pbl = t_pbl(A, s->ring, len < T_PAGE ? T_PAGE : len, 12, -1);
    return c;
}

static unsigned srq_create(TDev *d, TSrq *s, unsigned ld, uint32_t limit)
{
    union rocx_aq_cmd c;

    c = srq_cmd(s, ld, limit);
    if (d != A) {
        /* srq_cmd() allocates on A; redo on d. */
        struct rocx_aq_create_srq *cs = (void *)&c;
        uint64_t len = 1ULL << (ld + s->shift);

        s->d = d;
        s->ring = t_alloc(d, len < T_PAGE ? T_PAGE : len, T_PAGE);
        cs->pdn = htole32(d->pdn);
        cs->pbl = t_pbl(d, s->ring, len < T_PAGE ? T_PAGE : len, 12, -1);
    }
    return t_aq(d, &c, &s->srqn);
}

static unsigned srq_simple(TSrq *s, uint16_t op, uint32_t *result)
{
    union rocx_aq_cmd c = t_cmd(op);

    ((struct rocx_aq_srq *)&c)->srqn = htole32(s->srqn);
    return t_aq(s->d, &c, result);
}

static unsigned srq_modify(TSrq *s, uint32_t valid, uint32_t limit)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_MODIFY_SRQ);
    struct rocx_aq_modify_srq *m = (void *)&c;

    m->srqn = htole32(s->srqn);
    m->valid = htole32(valid);
    m->limit = htole32(limit);
    return t_aq(s->d, &c, NULL);
}

/*
 * QUERY_SRQ: the limit, and entries posted and not taken (result64 of the
 * admin CQE, which t_aq() leaves in the CQ ring at T_AQ_CQ, 0x1000, of a
 * queue of 16).
 */
static void srq_query(TSrq *s, uint32_t *limit, uint64_t *posted)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_QUERY_SRQ);
    unsigned slot = s->d->aq_pi & 15;
    struct rocx_aq_cqe *e;

    ((struct rocx_aq_srq *)&c)->srqn = htole32(s->srqn);
    CHECK_EQ(t_aq(s->d, &c, limit), ROCX_AQ_STS_OK);
    e = t_ptr(s->d, 0x1000 + slot * sizeof(*e), sizeof(*e));
    *posted = le64toh(e->result64);
}

static uint16_t srq_post(TSrq *s, const struct rocx_sge *sge, unsigned nsge,
                         uint16_t tag)
{
    uint16_t idx = s->pi++;
    uint64_t off = (uint64_t)(idx & ((1u << s->ld) - 1)) << s->shift;
    uint8_t *slot = t_ptr(s->d, s->ring + off, 1u << s->shift);
    struct rocx_recv_wqe *w = (void *)slot;

    memset(slot, 0, 1u << s->shift);
    w->num_sge = nsge;
    w->wqe_idx = htole16(idx);
    w->tag = htole16(tag);
    memcpy(slot + ROCX_RECV_WQE_HDR, sge, nsge * sizeof(*sge));
    return idx;
}

static void srq_ring(TSrq *s)
{
    t_db(s->d, s->uctx, ROCX_DB_SRQ, s->srqn, s->pi, 0);
}

/* An RC QP on d receiving from srq (no RQ). */
static unsigned srq_qp(TDev *d, TQp *qp, TCq *cq, const TSrq *srq,
                       unsigned rq_ld)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_QP);
    struct rocx_aq_create_qp *cq_cmd = (void *)&c;
    uint64_t len;

    memset(qp, 0, sizeof(*qp));
    qp->d = d;
    qp->scq = qp->rcq = cq;
    qp->sq_ld = 6;
    qp->sq_shift = 9;
    qp->rq_ld = rq_ld;
    qp->rq_shift = 8;
    len = (1ULL << (qp->sq_ld + qp->sq_shift)) +
          (rq_ld ? 1ULL << (rq_ld + qp->rq_shift) : 0);
    qp->buf = t_alloc(d, len, T_PAGE);
    cq_cmd->type = ROCX_QPT_RC;
    cq_cmd->sq_log_depth = qp->sq_ld;
    cq_cmd->rq_log_depth = rq_ld;
    cq_cmd->sq_wqe_shift = qp->sq_shift;
    cq_cmd->rq_wqe_shift = qp->rq_shift;
    cq_cmd->pdn = htole32(d->pdn);
    cq_cmd->send_cqn = htole32(cq->cqn);
    cq_cmd->recv_cqn = htole32(cq->cqn);
    cq_cmd->srqn = htole32(srq->srqn);
    cq_cmd->pbl = t_pbl(d, qp->buf, len, 12, -1);
    return t_aq(d, &c, &qp->qpn);
}

static uint8_t cqe_status(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static uint32_t cqe_qpn(const struct rocx_cqe *e)
{
    return le32toh(e->qpn_op) & 0xffffff;
}

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

#define T_NQP       3
#define T_BUF       (16 * 1024)

/*
 * B: one SRQ shared by T_NQP QPs, each connected to a QP of A; buffers of
 * T_BUF bytes per SRQ entry in one MR on each side.
 */
typedef struct TShare {
    TSrq srq;
    TCq acq, bcq;
    TQp qa[T_NQP], qb[T_NQP];
    TMr amr, bmr;
    uint64_t abuf, bbuf;
} TShare;

static void share_setup(TShare *s, unsigned ld, uint32_t limit,
                        uint8_t mtu)
{
    TConn conn;
    unsigned i;

    memset(s, 0, sizeof(*s));
    t_conn_default(&conn);
    conn.mtu = mtu;
    CHECK_EQ(srq_create(B, &s->srq, ld, limit), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &s->acq, 10, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &s->bcq, 10, 0, 1), ROCX_AQ_STS_OK);
    for (i = 0; i < T_NQP; i++) {
        CHECK_EQ(t_create_qp(A, &s->qa[i], &s->acq, &s->acq, 6, 0, 0),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(srq_qp(B, &s->qb[i], &s->bcq, &s->srq, 0), ROCX_AQ_STS_OK);
        t_connect(&s->qa[i], &s->qb[i], &conn);
    }
    s->abuf = t_alloc(A, T_BUF * 32, T_PAGE);
    s->bbuf = t_alloc(B, T_BUF * 32, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &s->amr, s->abuf, T_BUF * 32, all_access),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &s->bmr, s->bbuf, T_BUF * 32, all_access),
             ROCX_AQ_STS_OK);
}

/* Post SRQ entry number n (tag 100 + n) over B's buffer n. */
static void share_post(TShare *s, unsigned n)
{
    struct rocx_sge sge = t_sge(&s->bmr, (uint64_t)n * T_BUF, T_BUF);

    memset(t_ptr(B, s->bbuf + (uint64_t)n * T_BUF, T_BUF), 0xee, T_BUF);
    srq_post(&s->srq, &sge, 1, 100 + n);
}

/* QP i of A sends len bytes of A's buffer m (pattern seed m). */
static void share_send(TShare *s, unsigned i, unsigned m, uint32_t len)
{
    struct rocx_sge sge = t_sge(&s->amr, (uint64_t)m * T_BUF, len);

    t_fill(t_ptr(A, s->abuf + (uint64_t)m * T_BUF, len), len, m + 1);
    t_post_send(&s->qa[i], ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &sge, 1, 0, 0, 0);
    t_ring_sq(&s->qa[i]);
}

static struct rocx_eqe *next_event(TDev *d, uint16_t type)
{
    struct rocx_eqe *e;

    while ((e = t_eq_next(d, 0))) {
        if (le16toh(e->type) == type) {
            return e;
        }
    }
    return NULL;
}

static void t_srq_create_errors(void)
{
    TSrq s, s2;
    TCq cq;
    TQp qp;
    union rocx_aq_cmd c, base;
    struct rocx_aq_create_srq *cs = (void *)&c;
    uint32_t uctx;

    base = srq_cmd(&s, 4, 0);
#define TRY(field, val, st) do { \
        c = base; \
        cs->field = (val); \
        CHECK_EQ(t_aq(A, &c, NULL), (st)); \
    } while (0)
    TRY(log_depth, 0, ROCX_AQ_STS_INVALID);
    TRY(log_depth, 16, ROCX_AQ_STS_INVALID);
    TRY(log_depth, 13, ROCX_AQ_STS_INVALID);        /* > max_srq_wr */
    TRY(wqe_shift, 3, ROCX_AQ_STS_INVALID);
    TRY(wqe_shift, 10, ROCX_AQ_STS_INVALID);
    TRY(limit, htole32(17), ROCX_AQ_STS_INVALID);   /* > depth */
    TRY(type, ROCX_SRQT_XRC, ROCX_AQ_STS_NOT_FOUND);     /* no XRCD 0 */
    TRY(type, 2, ROCX_AQ_STS_INVALID);
    TRY(pdn, 0, ROCX_AQ_STS_INVALID);
    TRY(pdn, htole32(5), ROCX_AQ_STS_NOT_FOUND);
    TRY(uctx, htole32(9), ROCX_AQ_STS_NOT_FOUND);
    TRY(uctx, htole32(256), ROCX_AQ_STS_INVALID);
    TRY(pbl.npages, 0, ROCX_AQ_STS_INVALID);
#undef TRY
    /* Another context's SRQ may not use this PD. */
    c = t_cmd(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(t_aq(A, &c, &uctx), ROCX_AQ_STS_OK);
    c = base;
    cs->uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);

    c = base;
    CHECK_EQ(t_aq(A, &c, &s.srqn), ROCX_AQ_STS_OK);
    CHECK(s.srqn >= 1);

    /* QPs: an SRQ that exists, then no RQ, same context. */
    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(srq_qp(A, &qp, &cq, &s, 3), ROCX_AQ_STS_INVALID);
    s2 = s;
    s2.srqn = s.srqn + 1;
    CHECK_EQ(srq_qp(A, &qp, &cq, &s2, 0), ROCX_AQ_STS_NOT_FOUND);
    s2.srqn = 0;
    CHECK_EQ(srq_qp(A, &qp, &cq, &s2, 0), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(srq_qp(A, &qp, &cq, &s, 0), ROCX_AQ_STS_OK);

    /* The QP keeps the SRQ alive, the SRQ its PD and its context. */
    CHECK_EQ(srq_simple(&s, ROCX_AQ_OP_DESTROY_SRQ, NULL),
             ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(t_destroy_qp(&qp), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_DESTROY_PD);
    c.pd.pdn = htole32(A->pdn);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(srq_simple(&s, ROCX_AQ_OP_DESTROY_SRQ, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(srq_simple(&s, ROCX_AQ_OP_DESTROY_SRQ, NULL),
             ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(srq_simple(&s, ROCX_AQ_OP_QUERY_SRQ, NULL),
             ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(srq_modify(&s, ROCX_SRQ_ATTR_LIMIT, 1), ROCX_AQ_STS_NOT_FOUND);

    /* A user context's SRQ keeps the context. */
    c = t_cmd(ROCX_AQ_OP_CREATE_PD);
    c.pd.uctx = htole32(uctx);
    {
        uint32_t pdn;

        CHECK_EQ(t_aq(A, &c, &pdn), ROCX_AQ_STS_OK);
        c = base;
        cs->uctx = htole32(uctx);
        cs->pdn = htole32(pdn);
        CHECK_EQ(t_aq(A, &c, &s.srqn), ROCX_AQ_STS_OK);
        c = t_cmd(ROCX_AQ_OP_DESTROY_PD);
        c.pd.pdn = htole32(pdn);
        CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_BAD_STATE);
        CHECK_EQ(srq_simple(&s, ROCX_AQ_OP_DESTROY_SRQ, NULL),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    }
    c = t_cmd(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(A->f->gerrs, 0);
}

/*
 * Three QPs share one SRQ: every message lands in the entry its QP took,
 * whole, and the CQE names that entry by its tag, also when entries
 * complete out of ring order (a long message holds the first entry while
 * a short one on another QP completes the second).
 */
static void t_srq_shared_data(void)
{
    TShare s;
    struct rocx_cqe e;
    unsigned i, n, got = 0;
    /* Message m: QP m % 3, length; m is also its A buffer. */
    static const uint32_t lens[] = { 12000, 1, 3000, 4096, 777, 0, 9000, 1024 };
    unsigned msg_of_tag[16];
    uint32_t len_of_tag[16];
    unsigned next_of_qp[T_NQP] = { 0 };
    uint16_t order[8];

    /* MTU 256: 47 packets for the first, more than one turn of its QP. */
    share_setup(&s, 4, 0, 1);
    for (n = 0; n < 8; n++) {
        share_post(&s, n);
    }
    srq_ring(&s.srq);
    /* All queued before the engines run: the QPs' packets interleave. */
    for (n = 0; n < ARRAY_SIZE(lens); n++) {
        share_send(&s, n % T_NQP, n, lens[n]);
    }
    t_pump();

    memset(msg_of_tag, 0xff, sizeof(msg_of_tag));
    while (t_poll(&s.bcq, &e)) {
        unsigned tag = le16toh(e.wqe_idx), q, m;

        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK(e.flags & ROCX_CQE_RECV);
        CHECK(tag >= 100 && tag < 108);
        if (tag < 100 || tag >= 108 || msg_of_tag[tag - 100] != 0xffffffffu) {
            CHECK(0);               /* a tag twice */
            break;
        }
        for (q = 0; q < T_NQP && s.qb[q].qpn != cqe_qpn(&e); q++) {
        }
        CHECK(q < T_NQP);
        if (q == T_NQP) {
            break;
        }
        /* A QP's messages arrive in order: its next one is this. */
        m = q + T_NQP * next_of_qp[q]++;
        msg_of_tag[tag - 100] = m;
        len_of_tag[tag - 100] = le32toh(e.byte_len);
        CHECK_EQ(le32toh(e.byte_len), lens[m]);
        order[got++] = tag;
    }
    CHECK_EQ(got, 8);
    for (i = 0; i < 8 && i < got; i++) {
        unsigned m = msg_of_tag[i];
        uint8_t *dst = t_ptr(B, s.bbuf + (uint64_t)i * T_BUF, T_BUF);
        uint8_t *src = t_ptr(A, s.abuf + (uint64_t)m * T_BUF, T_BUF);

        CHECK(!memcmp(dst, src, len_of_tag[i]));
        CHECK(len_of_tag[i] == T_BUF || dst[len_of_tag[i]] == 0xee);
    }
    /* Entry 100 went to the 12000-byte message; others finished first. */
    CHECK_EQ(msg_of_tag[0], 0);
    CHECK(got && order[0] != 100);
    /* Every send completed. */
    for (n = 0; n < 8; n++) {
        CHECK(t_poll(&s.acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    }
    {
        uint32_t limit;
        uint64_t posted;

        srq_query(&s.srq, &limit, &posted);
        CHECK_EQ(limit, 0);
        CHECK_EQ(posted, 0);
    }
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 0);
}

/* The limit: one event when fewer remain, then disarmed until re-armed. */
static void t_srq_limit(void)
{
    TShare s;
    struct rocx_eqe *ev;
    struct rocx_cqe e;
    uint32_t limit;
    uint64_t posted;
    unsigned n;

    share_setup(&s, 4, 0, 3);
    for (n = 0; n < 10; n++) {
        share_post(&s, n);
    }
    srq_ring(&s.srq);
    CHECK_EQ(srq_modify(&s.srq, ROCX_SRQ_ATTR_LIMIT, 17),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(srq_modify(&s.srq, ROCX_SRQ_ATTR_RESIZE, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(srq_modify(&s.srq, ROCX_SRQ_ATTR_LIMIT, 7), ROCX_AQ_STS_OK);
    srq_query(&s.srq, &limit, &posted);
    CHECK_EQ(limit, 7);
    CHECK_EQ(posted, 10);
    while (t_eq_next(B, 0)) {
    }
    for (n = 0; n < 3; n++) {
        share_send(&s, n % T_NQP, n, 100);
    }
    t_pump();
    CHECK(!next_event(B, ROCX_EQE_SRQ_LIMIT));      /* 7 left: not fewer */
    share_send(&s, 0, 3, 100);
    t_pump();
    ev = next_event(B, ROCX_EQE_SRQ_LIMIT);
    CHECK(ev);
    if (ev) {
        CHECK_EQ(le32toh(ev->data), s.srq.srqn);
    }
    srq_query(&s.srq, &limit, &posted);
    CHECK_EQ(limit, 0);
    CHECK_EQ(posted, 6);
    share_send(&s, 1, 4, 100);
    t_pump();
    CHECK(!next_event(B, ROCX_EQE_SRQ_LIMIT));      /* disarmed */
    /* Armed again below what is left: the next take reports it. */
    CHECK_EQ(srq_modify(&s.srq, ROCX_SRQ_ATTR_LIMIT, 6), ROCX_AQ_STS_OK);
    share_send(&s, 2, 5, 100);
    t_pump();
    CHECK(next_event(B, ROCX_EQE_SRQ_LIMIT));
    for (n = 0; n < 6; n++) {
        CHECK(t_poll(&s.bcq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    }
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* An empty SRQ answers RNR; entries posted later are taken on the retry. */
static void t_srq_rnr(void)
{
    TShare s;
    struct rocx_cqe e;

    share_setup(&s, 2, 0, 3);
    share_send(&s, 0, 0, 2000);
    t_pump();
    CHECK(!t_poll(&s.acq, NULL));
    CHECK(B->f->core.rdma.stats.rnr_naks_sent >= 1);
    share_post(&s, 0);
    srq_ring(&s.srq);
    t_settle(1000LL * 1000 * 1000);
    CHECK(t_poll(&s.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&s.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 100);
    CHECK_EQ(le32toh(e.byte_len), 2000);
    CHECK(!memcmp(t_ptr(A, s.abuf, 2000), t_ptr(B, s.bbuf, 2000), 2000));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * A QP holding an entry mid-message goes to ERR: that entry completes
 * with WR_FLUSH_ERR under its tag, QP_LAST_WQE follows, the SRQ's other
 * entries stay posted and another QP still receives into them.
 */
static void t_srq_last_wqe(void)
{
    TShare s;
    struct rocx_cqe e;
    struct rocx_eqe *ev;
    uint32_t limit;
    uint64_t posted;
    unsigned n;

    share_setup(&s, 3, 0, 3);
    for (n = 0; n < 4; n++) {
        share_post(&s, n);
    }
    srq_ring(&s.srq);
    while (t_eq_next(B, 0)) {
    }
    wire.drop_nth = 3;                  /* the LAST of three packets */
    share_send(&s, 0, 0, 3000);
    t_pump();
    CHECK_EQ(wire.dropped, 1);
    CHECK(!t_poll(&s.bcq, NULL));
    srq_query(&s.srq, &limit, &posted);
    CHECK_EQ(posted, 3);                /* one taken, held by qb[0] */
    CHECK_EQ(t_to_state(&s.qb[0], ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    fake_run(B->f);
    CHECK(t_poll(&s.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 100);
    CHECK_EQ(cqe_qpn(&e), s.qb[0].qpn);
    CHECK(e.flags & ROCX_CQE_RECV);
    CHECK(!t_poll(&s.bcq, NULL));       /* nothing else flushed */
    ev = t_eq_next(B, 0);
    CHECK(ev);
    if (ev) {
        CHECK_EQ(le16toh(ev->type), ROCX_EQE_QP_LAST_WQE);
        CHECK_EQ(le32toh(ev->data), s.qb[0].qpn);
    }
    CHECK(!t_eq_next(B, 0));
    srq_query(&s.srq, &limit, &posted);
    CHECK_EQ(posted, 3);

    /* Another QP takes the next entry. */
    share_send(&s, 1, 1, 5000);
    t_pump();
    CHECK(t_poll(&s.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 101);
    CHECK_EQ(cqe_qpn(&e), s.qb[1].qpn);
    CHECK(!memcmp(t_ptr(A, s.abuf + T_BUF, 5000),
                  t_ptr(B, s.bbuf + T_BUF, 5000), 5000));

    /*
     * A QP the device ends itself (a message too long for the entry)
     * reports the entry with its error, then QP_LAST_WQE.
     */
    share_send(&s, 2, 2, T_BUF + 1);
    t_pump();
    CHECK(t_poll(&s.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_LOC_LEN_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 102);
    ev = next_event(B, ROCX_EQE_QP_LAST_WQE);
    CHECK(ev);
    if (ev) {
        CHECK_EQ(le32toh(ev->data), s.qb[2].qpn);
    }
    srq_query(&s.srq, &limit, &posted);
    CHECK_EQ(posted, 1);
    CHECK_EQ(B->f->gerrs, 0);
}

/* Destroying (or resetting) a QP that holds an entry gives the tag back. */
static void t_srq_destroy_holding(void)
{
    TShare s;
    struct rocx_cqe e;
    unsigned n;

    share_setup(&s, 3, 0, 3);
    for (n = 0; n < 3; n++) {
        share_post(&s, n);
    }
    srq_ring(&s.srq);
    wire.drop_nth = 3;
    share_send(&s, 0, 0, 3000);
    t_pump();
    CHECK_EQ(t_destroy_qp(&s.qb[0]), ROCX_AQ_STS_OK);
    CHECK(t_poll(&s.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 100);
    CHECK(!next_event(B, ROCX_EQE_QP_LAST_WQE));

    wire.drop_nth = 0;
    wire.sent = 0;
    wire.drop_nth = 3;
    share_send(&s, 1, 1, 3000);
    t_pump();
    CHECK_EQ(t_to_state(&s.qb[1], ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    CHECK(t_poll(&s.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 101);
    CHECK(!t_poll(&s.bcq, NULL));
    CHECK_EQ(B->f->gerrs, 0);
}

/* An entry that is not one: SRQ_ERROR, and the QP that took it fails. */
static void t_srq_bad_entry(void)
{
    TShare s;
    struct rocx_recv_wqe *w;
    struct rocx_cqe e;
    bool srq_err = false, qp_err = false, last = false;
    struct rocx_eqe *ev;

    share_setup(&s, 2, 0, 3);
    share_post(&s, 0);
    w = t_ptr(B, s.srq.ring, sizeof(*w));
    w->wqe_idx = htole16(7);            /* not its index */
    srq_ring(&s.srq);
    while (t_eq_next(B, 0)) {
    }
    share_send(&s, 0, 0, 100);
    t_pump();
    CHECK_EQ(B->f->last_gerr_code, ROCX_GERR_DESC);
    while ((ev = t_eq_next(B, 0))) {
        if (le16toh(ev->type) == ROCX_EQE_SRQ_ERROR) {
            CHECK_EQ(le32toh(ev->data), s.srq.srqn);
            srq_err = true;
        }
        if (le16toh(ev->type) == ROCX_EQE_QP_ERROR &&
            le32toh(ev->data) == s.qb[0].qpn) {
            CHECK_EQ(le64toh(ev->info), ROCX_VERR_BAD_WQE);
            qp_err = true;
        }
        /* LAST_WQE after the QP's QP_ERROR, sharing its FIFO entry. */
        if (le16toh(ev->type) == ROCX_EQE_QP_LAST_WQE &&
            le32toh(ev->data) == s.qb[0].qpn) {
            CHECK(qp_err);
            last = true;
        }
    }
    CHECK(srq_err);
    CHECK(qp_err);
    CHECK(last);
    /* The sender is told: a remote operation error. */
    CHECK(t_poll(&s.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_REM_OP_ERR);
    /* Later takers fail too, without a second SRQ_ERROR. */
    share_post(&s, 1);
    srq_ring(&s.srq);
    share_send(&s, 1, 1, 100);
    t_pump();
    CHECK(!next_event(B, ROCX_EQE_SRQ_ERROR));
    CHECK(t_poll(&s.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_REM_OP_ERR);
}

/*
 * Every QP on an SRQ that a CQ overflow ends gets its QP_ERROR and its
 * QP_LAST_WQE, and the event FIFO holds one entry per QP for the two.
 */
static void t_srq_events_per_qp(void)
{
    TSrq srq;
    TCq cq;
    TQp qp[40];
    struct rocx_eqe *ev;
    unsigned i, errs = 0, lasts = 0;
    RocxCore *core = &A->f->core;

    CHECK_EQ(srq_create(A, &srq, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    for (i = 0; i < ARRAY_SIZE(qp); i++) {
        CHECK_EQ(srq_qp(A, &qp[i], &cq, &srq, 0), ROCX_AQ_STS_OK);
        CHECK_EQ(t_to_state(&qp[i], ROCX_QPS_INIT), ROCX_AQ_STS_OK);
    }
    while (t_eq_next(A, 0)) {
    }
    for (i = 0; i < ARRAY_SIZE(qp); i++) {
        rocx_qp_error(core, rocx_qp_get(core, qp[i].qpn), true,
                      ROCX_VERR_NONE);
    }
    CHECK_EQ(core->evq_count, ARRAY_SIZE(qp));
    fake_run(A->f);
    while ((ev = t_eq_next(A, 0))) {
        if (le16toh(ev->type) == ROCX_EQE_QP_ERROR) {
            errs++;
        } else if (le16toh(ev->type) == ROCX_EQE_QP_LAST_WQE) {
            /* Right behind the same QP's QP_ERROR. */
            CHECK_EQ(le32toh(ev->data), qp[lasts].qpn);
            CHECK_EQ(errs, lasts + 1);
            lasts++;
        }
    }
    CHECK_EQ(errs, ARRAY_SIZE(qp));
    CHECK_EQ(lasts, ARRAY_SIZE(qp));
    CHECK_EQ(t_stat(A, ROCX_STAT_EQ_OVERFLOWS), 0);
}

static void t_srq_doorbell_errors(void)
{
    TSrq s;
    uint32_t uctx, limit;
    uint64_t posted;
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_ALLOC_UCTX);

    CHECK_EQ(srq_create(A, &s, 2, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_aq(A, &c, &uctx), ROCX_AQ_STS_OK);
    gmark = A->f->gerrs;
    t_db(A, uctx, ROCX_DB_SRQ, s.srqn, 1, 0);   /* not its page */
    CHECK_GERR(A, ROCX_GERR_DB_OWNER);
    t_db(A, 0, ROCX_DB_SRQ, s.srqn + 1, 1, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    t_db(A, 0, ROCX_DB_SRQ, 0, 1, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    t_db(A, 0, ROCX_DB_SRQ, s.srqn, 5, 0);      /* beyond the depth */
    CHECK_GERR(A, ROCX_GERR_DB_INDEX);
    t_db(A, 0, ROCX_DB_SRQ, s.srqn, 4, 0);      /* a full ring: fine */
    CHECK_EQ(A->f->gerrs, gmark);
    t_db(A, 0, ROCX_DB_SRQ, s.srqn, 3, 0);      /* backwards */
    CHECK_GERR(A, ROCX_GERR_DB_INDEX);
    srq_query(&s, &limit, &posted);
    CHECK_EQ(posted, 4);
    t_db(A, 0, ROCX_DB_SRQ, s.srqn, 4, 0);      /* same: fine */
    CHECK_EQ(A->f->gerrs, gmark);
}

/*
 * MODIFY_SRQ RESIZE: [taken, posted) moves to the new ring, tags and
 * indexes kept; fewer slots than entries posted and not taken fails; the
 * old ring is not read afterwards; the limit must fit the new depth.
 */
static unsigned srq_resize(TSrq *s, unsigned ld)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_MODIFY_SRQ);
    struct rocx_aq_modify_srq *m = (void *)&c;
    uint64_t len = 1ULL << (ld + s->shift), old = 1ULL << (s->ld + s->shift);
    uint64_t ring = t_alloc(s->d, len < T_PAGE ? T_PAGE : len, T_PAGE);
    unsigned sts;

    m->srqn = htole32(s->srqn);
    m->valid = htole32(ROCX_SRQ_ATTR_RESIZE);
    m->log_depth = ld;
    m->pbl = t_pbl(s->d, ring, len < T_PAGE ? T_PAGE : len, 12, -1);
    sts = t_aq(s->d, &c, NULL);
    if (sts == ROCX_AQ_STS_OK) {
        /* Garbage where the entries were: a device reading it fails. */
        memset(t_ptr(s->d, s->ring, old), 0xff, old);
        s->ring = ring;
        s->ld = ld;
    }
    return sts;
}

static void t_srq_resize(void)
{
    TShare s;
    struct rocx_cqe e;
    uint32_t limit;
    uint64_t posted;
    uint8_t want[T_BUF];
    unsigned n;

    share_setup(&s, 2, 0, 3);
    for (n = 0; n < 4; n++) {
        share_post(&s, n);
    }
    srq_ring(&s.srq);
    share_send(&s, 0, 0, 100);
    t_pump();
    /* Three posted and not taken: two slots cannot hold them. */
    CHECK_EQ(srq_resize(&s.srq, 1), ROCX_AQ_STS_INVALID);
    CHECK_EQ(srq_resize(&s.srq, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(srq_resize(&s.srq, 13), ROCX_AQ_STS_INVALID);
    CHECK_EQ(srq_resize(&s.srq, 3), ROCX_AQ_STS_OK);
    srq_query(&s.srq, &limit, &posted);
    CHECK_EQ(posted, 3);
    CHECK_EQ(srq_modify(&s.srq, ROCX_SRQ_ATTR_LIMIT, 9), ROCX_AQ_STS_INVALID);
    CHECK_EQ(srq_modify(&s.srq, ROCX_SRQ_ATTR_LIMIT, 8), ROCX_AQ_STS_OK);
    CHECK_EQ(srq_modify(&s.srq, ROCX_SRQ_ATTR_LIMIT, 0), ROCX_AQ_STS_OK);
    /* Eight outstanding now fit: four more into the new ring. */
    for (n = 4; n < 8; n++) {
        share_post(&s, n);
    }
    srq_ring(&s.srq);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
    /* One message at a time: message n lands in entry n (tag 100 + n). */
    for (n = 1; n < 8; n++) {
        share_send(&s, n % T_NQP, n, 100 + n);
        t_pump();
    }
    for (n = 0; n < 8; n++) {
        CHECK(t_poll(&s.bcq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.wqe_idx), 100 + n);
        CHECK_EQ(le32toh(e.byte_len), 100 + n);
        t_fill(want, 100 + n, n + 1);
        CHECK(!memcmp(t_ptr(B, s.bbuf + (uint64_t)n * T_BUF, 100 + n), want,
                      100 + n));
    }
    CHECK(!t_poll(&s.bcq, NULL));
    srq_query(&s.srq, &limit, &posted);
    CHECK_EQ(posted, 0);
    /* Empty: shrinking to two slots is fine, and the SRQ still works. */
    CHECK_EQ(srq_resize(&s.srq, 1), ROCX_AQ_STS_OK);
    share_post(&s, 8);
    srq_ring(&s.srq);
    share_send(&s, 1, 8, 64);
    t_pump();
    CHECK(t_poll(&s.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 108);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* Create one SRQ from cmd; its number, or 0 if the create failed. */
static uint32_t srq_churn_one(const union rocx_aq_cmd *cmd, bool keep)
{
    union rocx_aq_cmd c = *cmd;
    uint32_t srqn = 0;
    TSrq s = { .d = A };

    if (t_aq(A, &c, &srqn) != ROCX_AQ_STS_OK) {
        return 0;
    }
    s.srqn = srqn;
    if (!keep) {
        CHECK_EQ(srq_simple(&s, ROCX_AQ_OP_DESTROY_SRQ, NULL),
                 ROCX_AQ_STS_OK);
    }
    return srqn;
}

/*
 * SRQ numbers follow rocx-device.rst, "Object numbers", as QP and CQ
 * numbers do: slot | generation << 10, slots next-fit from 1 (slot 0 is
 * never handed out), and a destroyed SRQ's number names nothing: its
 * commands are NOT_FOUND, its doorbell DB_QUEUE, a QP cannot attach to
 * it.  A create that fails takes no number; a full table is NO_RESOURCE.
 */
static void t_srq_number_rotate(void)
{
    TSrq s, dead = { .d = A, .srqn = 1 };
    TCq cq;
    TQp qp;
    union rocx_aq_cmd base, bad;
    uint32_t srqn, live, n;

    base = srq_cmd(&s, 2, 0);
    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(srq_churn_one(&base, false), 1);
    live = srq_churn_one(&base, true);
    CHECK_EQ(live, 2);
    gmark = A->f->gerrs;
    CHECK_EQ(srq_simple(&dead, ROCX_AQ_OP_QUERY_SRQ, NULL),
             ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(srq_modify(&dead, ROCX_SRQ_ATTR_LIMIT, 1),
             ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(srq_simple(&dead, ROCX_AQ_OP_DESTROY_SRQ, NULL),
             ROCX_AQ_STS_NOT_FOUND);
    t_db(A, 0, ROCX_DB_SRQ, 1, 1, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    CHECK_EQ(srq_qp(A, &qp, &cq, &dead, 0), ROCX_AQ_STS_NOT_FOUND);
    /* A create that fails (its page list) takes no number. */
    bad = base;
    ((struct rocx_aq_create_srq *)&bad)->pbl.levels = 3;
    CHECK_EQ(srq_churn_one(&bad, false), 0);
    CHECK_EQ(srq_churn_one(&base, false), 3);
    /* Round the table: 4..256, slot 1 at generation 1, 2 is live. */
    for (n = 4; n <= ROCX_CORE_MAX_SRQ; n++) {
        srqn = srq_churn_one(&base, false);
        if (srqn != n) {
            CHECK_EQ(srqn, n);
            break;
        }
    }
    CHECK_EQ(srq_churn_one(&base, false), 0x400 | 1);
    CHECK_EQ(srq_churn_one(&base, false), 0x400 | 3);
    /* The old number of a reused slot is still nothing. */
    dead.srqn = 3;
    CHECK_EQ(srq_simple(&dead, ROCX_AQ_OP_QUERY_SRQ, NULL),
             ROCX_AQ_STS_NOT_FOUND);
    s.srqn = live;
    CHECK_EQ(srq_simple(&s, ROCX_AQ_OP_QUERY_SRQ, NULL), ROCX_AQ_STS_OK);

    /* Fill the table: every slot but 0, then NO_RESOURCE. */
    for (n = 1; n < ROCX_CORE_MAX_SRQ; n++) {
        srqn = srq_churn_one(&base, true);
        CHECK(srqn != 0 && (srqn & 0x3ff) != 0 && srqn != live);
    }
    CHECK_EQ(srq_churn_one(&base, true), 0);
    CHECK_EQ(A->f->gerrs, gmark);
}

const TCase t_cases_srq[] = {
    T_CASE(srq_create_errors),
    T_CASE(srq_shared_data),
    T_CASE(srq_limit),
    T_CASE(srq_rnr),
    T_CASE(srq_last_wqe),
    T_CASE(srq_destroy_holding),
    T_CASE(srq_bad_entry),
    T_CASE(srq_events_per_qp),
    T_CASE(srq_doorbell_errors),
    T_CASE(srq_resize),
    T_CASE(srq_number_rotate),
};
const unsigned t_ncases_srq = ARRAY_SIZE(t_cases_srq);
