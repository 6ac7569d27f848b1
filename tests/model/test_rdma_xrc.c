/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * XRC (contract 1.2, ROCX_CAP2_XRC): domains and what keeps them alive,
 * the creation rules of XRC SRQs and XRC_INI / XRC_TGT QPs, an initiator's
 * SENDs delivered into the SRQ its XRCETH names (data verified, the CQE on
 * that SRQ's CQ with the SRQ number in ext), WRITE, READ and atomics over
 * XRC checked against the SRQ's PD, the XRC opcodes and XRCETH on the
 * wire, retransmission after a loss, and an XRCETH naming an SRQ of
 * another domain NAKed as an invalid request.
 */
#include "rdma.h"

#define X_BUF       (64u << 10)

static const uint32_t x_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ |
    ROCX_ACCESS_REMOTE_ATOMIC;

typedef struct TXSrq {
    TDev *d;
    uint32_t srqn;
    uint64_t ring;
    unsigned ld, shift;
    uint16_t pi;
} TXSrq;

static unsigned xrcd_alloc(TDev *d, uint32_t uctx, uint32_t *xrcdn)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_ALLOC_XRCD);

    ((struct rocx_aq_xrcd *)&c)->uctx = htole32(uctx);
    return t_aq(d, &c, xrcdn);
}

static unsigned xrcd_dealloc(TDev *d, uint32_t xrcdn)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DEALLOC_XRCD);

    ((struct rocx_aq_xrcd *)&c)->xrcdn = htole32(xrcdn);
    return t_aq(d, &c, NULL);
}

static union rocx_aq_cmd xsrq_cmd(TDev *d, TXSrq *s, uint32_t xrcdn,
                                  uint32_t cqn)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_SRQ);
    struct rocx_aq_create_srq *cs = (void *)&c;

    memset(s, 0, sizeof(*s));
    s->d = d;
    s->ld = 4;
    s->shift = 6;
    s->ring = t_alloc(d, T_PAGE, T_PAGE);
    cs->pdn = htole32(d->pdn);
    cs->log_depth = s->ld;
    cs->wqe_shift = s->shift;
    cs->type = ROCX_SRQT_XRC;
    cs->xrcdn = htole32(xrcdn);
    cs->cqn = htole32(cqn);
    cs->pbl = t_pbl(d, s->ring, T_PAGE, 12, -1);
    return c;
}

static unsigned xsrq_create(TDev *d, TXSrq *s, uint32_t xrcdn, uint32_t cqn)
{
    union rocx_aq_cmd c = xsrq_cmd(d, s, xrcdn, cqn);

    return t_aq(d, &c, &s->srqn);
}

static unsigned xsrq_destroy(TXSrq *s)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DESTROY_SRQ);

    ((struct rocx_aq_srq *)&c)->srqn = htole32(s->srqn);
    return t_aq(s->d, &c, NULL);
}

static void xsrq_post(TXSrq *s, const struct rocx_sge *sge, uint16_t tag)
{
    uint16_t idx = s->pi++;
    uint64_t off = (uint64_t)(idx & ((1u << s->ld) - 1)) << s->shift;
    uint8_t *slot = t_ptr(s->d, s->ring + off, 1u << s->shift);
    struct rocx_recv_wqe *w = (void *)slot;

    memset(slot, 0, 1u << s->shift);
    w->num_sge = 1;
    w->wqe_idx = htole16(idx);
    w->tag = htole16(tag);
    memcpy(slot + ROCX_RECV_WQE_HDR, sge, sizeof(*sge));
    t_db(s->d, 0, ROCX_DB_SRQ, s->srqn, s->pi, 0);
}

/* An XRC_INI QP: a send queue only. */
static union rocx_aq_cmd ini_cmd(TDev *d, TQp *qp, TCq *cq)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_QP);
    struct rocx_aq_create_qp *q = (void *)&c;
    uint64_t len;

    memset(qp, 0, sizeof(*qp));
    qp->d = d;
    qp->scq = cq;
    qp->sq_ld = 6;
    qp->sq_shift = 9;
    len = 1ULL << (qp->sq_ld + qp->sq_shift);
    qp->buf = t_alloc(d, len, T_PAGE);
    q->type = ROCX_QPT_XRC_INI;
    q->sq_log_depth = qp->sq_ld;
    q->sq_wqe_shift = qp->sq_shift;
    q->pdn = htole32(d->pdn);
    q->send_cqn = htole32(cq->cqn);
    q->srqn = htole32(ROCX_NO_SRQ);
    q->pbl = t_pbl(d, qp->buf, len, 12, -1);
    return c;
}

/* An XRC_TGT QP of domain xrcdn: no queues at all. */
static union rocx_aq_cmd tgt_cmd(TDev *d, TQp *qp, uint32_t xrcdn)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_QP);
    struct rocx_aq_create_qp *q = (void *)&c;

    memset(qp, 0, sizeof(*qp));
    qp->d = d;
    q->type = ROCX_QPT_XRC_TGT;
    q->srqn = htole32(ROCX_NO_SRQ);
    q->xrcdn = htole32(xrcdn);
    return c;
}

static uint8_t cqe_status(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static uint32_t cqe_qpn(const struct rocx_cqe *e)
{
    return le32toh(e->qpn_op) & 0xffffff;
}

static uint8_t cqe_op(const struct rocx_cqe *e)
{
    return le32toh(e->qpn_op) >> 24;
}

/* Send WQE idx of qp names the target SRQ srqn. */
static void set_srqn(TQp *qp, uint16_t idx, uint32_t srqn)
{
    uint64_t off = (uint64_t)(idx & ((1u << qp->sq_ld) - 1)) << qp->sq_shift;
    struct rocx_send_wqe *w = t_ptr(qp->d, qp->buf + off, sizeof(*w));

    w->ctrl.xrc_srqn = htole16(srqn & 0xffff);
    w->ctrl.xrc_srqn_hi = srqn >> 16;
}

/* Frames on the wire (RoCE v2 over IPv4): A's requests and their XRCETH. */
static unsigned nfr, nbad;
static uint8_t fr_op[64];
static uint32_t fr_srqn[64];

static bool x_watch(TDev *from, uint8_t *buf, size_t *len)
{
    const uint8_t *bth = buf + 14 + 20 + 8;

    if (*len < 14 + 20 + 8 + 12 + 4) {
        return true;
    }
    /* Both ways, every packet is of the XRC transport. */
    if ((bth[0] & 0xe0) != 0xa0) {
        nbad++;
    }
    if (from == A && nfr < ARRAY_SIZE(fr_op)) {
        fr_op[nfr] = bth[0];
        fr_srqn[nfr] = ldl_be_p(bth + 12);
        nfr++;
    }
    return true;
}

typedef struct TX {
    uint32_t xrcd, xrcd2;
    TCq acq, bcq1, bcq2;
    TXSrq s1, s2, s3;           /* s1, s2 of xrcd; s3 of xrcd2 */
    TQp ini, tgt;
    TMr amr, bmr;
    uint64_t abuf, bbuf;
} TX;

static void x_setup(TX *x, uint8_t net_type)
{
    union rocx_aq_cmd c;
    TConn conn;

    memset(x, 0, sizeof(*x));
    CHECK_EQ(xrcd_alloc(B, 0, &x->xrcd), ROCX_AQ_STS_OK);
    CHECK_EQ(xrcd_alloc(B, 0, &x->xrcd2), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &x->acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &x->bcq1, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &x->bcq2, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(xsrq_create(B, &x->s1, x->xrcd, x->bcq1.cqn), ROCX_AQ_STS_OK);
    CHECK_EQ(xsrq_create(B, &x->s2, x->xrcd, x->bcq2.cqn), ROCX_AQ_STS_OK);
    CHECK_EQ(xsrq_create(B, &x->s3, x->xrcd2, x->bcq2.cqn), ROCX_AQ_STS_OK);
    c = ini_cmd(A, &x->ini, &x->acq);
    CHECK_EQ(t_aq(A, &c, &x->ini.qpn), ROCX_AQ_STS_OK);
    c = tgt_cmd(B, &x->tgt, x->xrcd);
    CHECK_EQ(t_aq(B, &c, &x->tgt.qpn), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.net_type = net_type;
    conn.access = x_access;
    t_connect(&x->ini, &x->tgt, &conn);
    x->abuf = t_alloc(A, X_BUF, T_PAGE);
    x->bbuf = t_alloc(B, X_BUF, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &x->amr, x->abuf, X_BUF, x_access), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &x->bmr, x->bbuf, X_BUF, x_access), ROCX_AQ_STS_OK);
    nfr = nbad = 0;
    wire.filter = net_type == ROCX_NET_ROCE_V2_IPV4 ? x_watch : NULL;
}

/* Entry tag of s over B's buffer at off, len bytes, filled with 0xee. */
static void x_post(TX *x, TXSrq *s, uint64_t off, uint32_t len, uint16_t tag)
{
    struct rocx_sge sge = t_sge(&x->bmr, off, len);

    memset(t_ptr(B, x->bbuf + off, len), 0xee, len);
    xsrq_post(s, &sge, tag);
}

/* A SEND of len bytes from A's buffer at off to SRQ srqn. */
static void x_send(TX *x, uint8_t op, uint64_t off, uint32_t len,
                   uint32_t srqn, uint32_t seed)
{
    struct rocx_sge sge = t_sge(&x->amr, off, len);
    uint16_t idx;

    t_fill(t_ptr(A, x->abuf + off, len), len, seed);
    idx = t_post_send(&x->ini, op, ROCX_WQE_SIGNALED, &sge, 1, 0, 0,
                      0x12345678);
    set_srqn(&x->ini, idx, srqn);
    t_ring_sq(&x->ini);
}

static void t_xrc_objects(void)
{
    union rocx_aq_cmd c, base;
    struct rocx_aq_create_qp *q = (void *)&c;
    struct rocx_aq_create_srq *cs = (void *)&c;
    uint32_t xrcdn, uctx, uxrcd, pdn;
    TXSrq s;
    TCq cq, ucq;
    TQp qp, tgt;

    /* Domains: numbered from 1, the owner must exist. */
    CHECK_EQ(xrcd_alloc(A, 0, &xrcdn), ROCX_AQ_STS_OK);
    CHECK(xrcdn >= 1);
    CHECK_EQ(xrcd_alloc(A, 9, NULL), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(xrcd_alloc(A, 256, NULL), ROCX_AQ_STS_INVALID);
    CHECK_EQ(xrcd_dealloc(A, 0), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(xrcd_dealloc(A, xrcdn + 1), ROCX_AQ_STS_NOT_FOUND);

    /* XRC SRQs: a domain and a CQ that exist. */
    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(xsrq_create(A, &s, xrcdn + 1, cq.cqn), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(xsrq_create(A, &s, xrcdn, cq.cqn + 1), ROCX_AQ_STS_NOT_FOUND);
    base = xsrq_cmd(A, &s, xrcdn, cq.cqn);
    c = base;
    cs->type = ROCX_SRQT_BASIC;         /* a basic SRQ names neither */
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    CHECK_EQ(xsrq_create(A, &s, xrcdn, cq.cqn), ROCX_AQ_STS_OK);
    /* The SRQ keeps its domain and its CQ. */
    CHECK_EQ(xrcd_dealloc(A, xrcdn), ROCX_AQ_STS_BAD_STATE);
    c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(cq.cqn);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_BAD_STATE);

    /* XRC_TGT: no queues, CQs, PD or SRQ; a domain that exists. */
    base = tgt_cmd(A, &tgt, xrcdn);
#define TRY(stmt, st) do { \
        c = base; \
        stmt; \
        CHECK_EQ(t_aq(A, &c, NULL), (st)); \
    } while (0)
    TRY(q->sq_log_depth = 1, ROCX_AQ_STS_INVALID);
    TRY(q->rq_log_depth = 1, ROCX_AQ_STS_INVALID);
    TRY(q->pdn = htole32(A->pdn), ROCX_AQ_STS_INVALID);
    TRY(q->send_cqn = htole32(cq.cqn), ROCX_AQ_STS_INVALID);
    TRY(q->recv_cqn = htole32(cq.cqn), ROCX_AQ_STS_INVALID);
    TRY(q->srqn = htole32(s.srqn), ROCX_AQ_STS_INVALID);
    TRY(q->pbl.npages = htole32(1), ROCX_AQ_STS_INVALID);
    TRY(q->xrcdn = htole32(xrcdn + 1), ROCX_AQ_STS_NOT_FOUND);
    TRY(q->xrcdn = 0, ROCX_AQ_STS_NOT_FOUND);
    c = base;
    CHECK_EQ(t_aq(A, &c, &tgt.qpn), ROCX_AQ_STS_OK);

    /* XRC_INI: no receive side; other types name no domain. */
    base = ini_cmd(A, &qp, &cq);
    TRY(q->rq_log_depth = 4; q->rq_wqe_shift = 6, ROCX_AQ_STS_INVALID);
    TRY(q->recv_cqn = htole32(cq.cqn), ROCX_AQ_STS_INVALID);
    TRY(q->srqn = htole32(s.srqn), ROCX_AQ_STS_INVALID);
    TRY(q->xrcdn = htole32(xrcdn), ROCX_AQ_STS_INVALID);
    TRY(q->type = ROCX_QPT_RC; q->recv_cqn = htole32(cq.cqn);
        q->xrcdn = htole32(xrcdn), ROCX_AQ_STS_INVALID);
    /* An XRC SRQ is for XRC targets only: no RC QP takes it. */
    TRY(q->type = ROCX_QPT_RC; q->recv_cqn = htole32(cq.cqn);
        q->srqn = htole32(s.srqn), ROCX_AQ_STS_INVALID);
    TRY(q->type = 6, ROCX_AQ_STS_INVALID);
#undef TRY
    c = base;
    CHECK_EQ(t_aq(A, &c, &qp.qpn), ROCX_AQ_STS_OK);

    /* A target has no SQ to ring. */
    t_db(A, 0, ROCX_DB_SQ, tgt.qpn, 1, 0);
    CHECK_EQ(A->f->gerrs, 1);
    CHECK_EQ(A->f->last_gerr_code, ROCX_GERR_DB_QUEUE);

    /* Domain in use by the SRQ and the target; freed once neither is. */
    CHECK_EQ(xsrq_destroy(&s), ROCX_AQ_STS_OK);
    CHECK_EQ(xrcd_dealloc(A, xrcdn), ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(t_destroy_qp(&tgt), ROCX_AQ_STS_OK);
    CHECK_EQ(xrcd_dealloc(A, xrcdn), ROCX_AQ_STS_OK);
    CHECK_EQ(xrcd_dealloc(A, xrcdn), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(t_destroy_qp(&qp), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(cq.cqn);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);

    /*
     * A context's domain keeps the context; its SRQs may use it or the
     * kernel's, another context's SRQ neither.
     */
    c = t_cmd(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(t_aq(A, &c, &uctx), ROCX_AQ_STS_OK);
    CHECK_EQ(xrcd_alloc(A, uctx, &uxrcd), ROCX_AQ_STS_OK);
    CHECK_EQ(xrcd_alloc(A, 0, &xrcdn), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_CREATE_PD);
    c.pd.uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, &pdn), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &ucq, 4, uctx, 1), ROCX_AQ_STS_OK);
    base = xsrq_cmd(A, &s, xrcdn, ucq.cqn);
    ((struct rocx_aq_create_srq *)&base)->uctx = htole32(uctx);
    ((struct rocx_aq_create_srq *)&base)->pdn = htole32(pdn);
    c = base;
    CHECK_EQ(t_aq(A, &c, &s.srqn), ROCX_AQ_STS_OK);     /* kernel's XRCD */
    CHECK_EQ(xsrq_destroy(&s), ROCX_AQ_STS_OK);
    c = base;
    cs->xrcdn = htole32(uxrcd);
    CHECK_EQ(t_aq(A, &c, &s.srqn), ROCX_AQ_STS_OK);     /* its own */
    CHECK_EQ(xsrq_destroy(&s), ROCX_AQ_STS_OK);
    /* The kernel's SRQ may not use the context's CQ. */
    CHECK_EQ(xsrq_create(A, &s, xrcdn, ucq.cqn), ROCX_AQ_STS_INVALID);
    c = t_cmd(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(uctx);
    CHECK_EQ(xrcd_dealloc(A, xrcdn), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(ucq.cqn);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_DESTROY_PD);
    c.pd.pdn = htole32(pdn);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(xrcd_dealloc(A, uxrcd), ROCX_AQ_STS_OK);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(B->f->gerrs, 0);
}

/*
 * One initiator, one target, two SRQs of its domain on two CQs: every
 * SEND lands in the SRQ its WQE named, whole, and completes on that SRQ's
 * CQ with the SRQ number, the target QP and the entry's tag; WRITE, READ
 * and FETCH_ADD reach B's MR; every packet is of the XRC transport and
 * every request carries the XRCETH of its WQE.
 */
static void xrc_delivery(uint8_t net_type)
{
    static const uint32_t lens[] = { 3000, 1, 0, 1024, 2049 };
    TX x;
    struct rocx_cqe e;
    struct rocx_sge sge;
    uint64_t *val;
    unsigned i, n1 = 0, n2 = 0;

    x_setup(&x, net_type);
    for (i = 0; i < ARRAY_SIZE(lens); i++) {
        TXSrq *s = i % 2 ? &x.s2 : &x.s1;

        x_post(&x, s, i * 4096, 4096, 100 + i);
        x_send(&x, i == 3 ? ROCX_WQE_SEND_IMM : ROCX_WQE_SEND, i * 4096,
               lens[i], s->srqn, i + 1);
    }
    t_pump();
    for (i = 0; i < ARRAY_SIZE(lens); i++) {
        TCq *cq = i % 2 ? &x.bcq2 : &x.bcq1;
        uint32_t srqn = i % 2 ? x.s2.srqn : x.s1.srqn;
        uint8_t *dst = t_ptr(B, x.bbuf + i * 4096, 4096);

        CHECK(t_poll(cq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(cqe_op(&e), ROCX_CQE_OP_RECV);
        CHECK(e.flags & ROCX_CQE_RECV);
        CHECK_EQ(le16toh(e.wqe_idx), 100 + i);
        CHECK_EQ(le32toh(e.byte_len), lens[i]);
        CHECK_EQ(cqe_qpn(&e), x.tgt.qpn);
        CHECK_EQ(le32toh(e.ext) & ROCX_CQE_EXT_SRQN, srqn);
        CHECK_EQ(!!(e.flags & ROCX_CQE_WITH_IMM), i == 3);
        if (i == 3) {
            CHECK_EQ(be32toh(e.imm_data), 0x12345678);
        }
        CHECK(!memcmp(dst, t_ptr(A, x.abuf + i * 4096, lens[i]), lens[i]));
        CHECK_EQ(dst[lens[i]], 0xee);
        n1 += i % 2 == 0;
        n2 += i % 2;
    }
    CHECK(!t_poll(&x.bcq1, &e));
    CHECK(!t_poll(&x.bcq2, &e));
    for (i = 0; i < ARRAY_SIZE(lens); i++) {
        CHECK(t_poll(&x.acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    }

    /* WRITE, READ and an atomic: B's MR, in the SRQ's PD. */
    sge = t_sge(&x.amr, 0x8000, 5000);
    t_fill(t_ptr(A, x.abuf + 0x8000, 5000), 5000, 77);
    set_srqn(&x.ini, t_post_send(&x.ini, ROCX_WQE_RDMA_WRITE,
                                 ROCX_WQE_SIGNALED, &sge, 1,
                                 x.bmr.iova + 0x8000, x.bmr.key, 0),
             x.s2.srqn);
    sge = t_sge(&x.amr, 0xc000, 5000);
    set_srqn(&x.ini, t_post_send(&x.ini, ROCX_WQE_RDMA_READ,
                                 ROCX_WQE_SIGNALED, &sge, 1,
                                 x.bmr.iova + 0x8000, x.bmr.key, 0),
             x.s2.srqn);
    val = t_ptr(B, x.bbuf + 0xf000, 8);
    *val = htole64(40);
    sge = t_sge(&x.amr, 0xf000, 8);
    {
        uint16_t idx = t_post_send(&x.ini, ROCX_WQE_FETCH_ADD,
                                   ROCX_WQE_SIGNALED, &sge, 1, 0, 0, 0);
        uint64_t off = (uint64_t)(idx & 63) << x.ini.sq_shift;
        struct rocx_send_wqe *w = t_ptr(A, x.ini.buf + off, sizeof(*w));

        w->atomic.remote_addr = htole64(x.bmr.iova + 0xf000);
        w->atomic.rkey = htole32(x.bmr.key);
        w->atomic.compare_add = htole64(2);
        set_srqn(&x.ini, idx, x.s1.srqn);
    }
    t_ring_sq(&x.ini);
    t_pump();
    for (i = 0; i < 3; i++) {
        CHECK(t_poll(&x.acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    }
    CHECK(!memcmp(t_ptr(B, x.bbuf + 0x8000, 5000),
                  t_ptr(A, x.abuf + 0x8000, 5000), 5000));
    CHECK(!memcmp(t_ptr(A, x.abuf + 0xc000, 5000),
                  t_ptr(A, x.abuf + 0x8000, 5000), 5000));
    CHECK_EQ(le64toh(*val), 42);
    CHECK_EQ(le64toh(*(uint64_t *)t_ptr(A, x.abuf + 0xf000, 8)), 40);
    /* Receives come only from SENDs: nothing more on B's CQs. */
    CHECK(!t_poll(&x.bcq1, &e));
    CHECK(!t_poll(&x.bcq2, &e));

    if (net_type == ROCX_NET_ROCE_V2_IPV4) {
        CHECK_EQ(nbad, 0);
        CHECK(nfr >= 10);
        /* The first: SEND FIRST of 3000 bytes to s1, with its XRCETH. */
        CHECK_EQ(fr_op[0], ROCX_TR_XRC | ROCX_OP_SEND_FIRST);
        CHECK_EQ(fr_srqn[0], x.s1.srqn);
        CHECK_EQ(fr_op[3], ROCX_TR_XRC | ROCX_OP_SEND_ONLY);
        CHECK_EQ(fr_srqn[3], x.s2.srqn);
    }
    CHECK_EQ(n1 + n2, ARRAY_SIZE(lens));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
    wire.filter = NULL;
}

static void t_xrc_delivery_v4(void)
{
    xrc_delivery(ROCX_NET_ROCE_V2_IPV4);
}

static void t_xrc_delivery_v6(void)
{
    xrc_delivery(ROCX_NET_ROCE_V2_IPV6);
}

static void t_xrc_delivery_v1(void)
{
    xrc_delivery(ROCX_NET_ROCE_V1);
}

/* Lost packets: go-back-N resends them with the XRCETH of their WQE. */
static void t_xrc_loss(void)
{
    TX x;
    struct rocx_cqe e;
    unsigned i;

    x_setup(&x, ROCX_NET_ROCE_V2_IPV6);
    wire.drop_every = 5;
    for (i = 0; i < 6; i++) {
        TXSrq *s = i % 2 ? &x.s2 : &x.s1;

        x_post(&x, s, i * 8192, 8192, 200 + i);
        x_send(&x, ROCX_WQE_SEND, i * 8192, 7000 + i, s->srqn, i + 9);
    }
    t_settle(2000LL * 1000 * 1000);
    wire.drop_every = 0;
    for (i = 0; i < 6; i++) {
        TCq *cq = i % 2 ? &x.bcq2 : &x.bcq1;

        CHECK(t_poll(cq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.wqe_idx), 200 + i);
        CHECK_EQ(le32toh(e.byte_len), 7000 + i);
        CHECK(!memcmp(t_ptr(B, x.bbuf + i * 8192, 7000 + i),
                      t_ptr(A, x.abuf + i * 8192, 7000 + i), 7000 + i));
        CHECK(t_poll(&x.acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    }
    CHECK(A->f->core.rdma.stats.retransmits > 0);
}

/*
 * An XRCETH naming an SRQ of another domain, or no XRC SRQ at all: the
 * target NAKs it as an invalid request and goes to ERR with a QP_ERROR;
 * the initiator's WQE completes with REM_INV_REQ_ERR, and nothing reaches
 * the SRQ.
 */
static void xrc_bad_srq(bool other_domain)
{
    TX x;
    struct rocx_cqe e;
    struct rocx_eqe *ev;
    struct rocx_qp_attr a;
    unsigned qp_errors = 0;

    x_setup(&x, ROCX_NET_ROCE_V2_IPV4);
    x_post(&x, &x.s3, 0, 4096, 300);
    x_send(&x, ROCX_WQE_SEND, 0, 100,
           other_domain ? x.s3.srqn : x.s3.srqn + 10, 1);
    t_pump();
    CHECK(t_poll(&x.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_REM_INV_REQ_ERR);
    CHECK(!t_poll(&x.bcq2, &e));
    CHECK_EQ(*(uint8_t *)t_ptr(B, x.bbuf, 1), 0xee);
    CHECK_EQ(t_query(&x.tgt, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.cur_state, ROCX_QPS_ERR);
    while ((ev = t_eq_next(B, 0))) {
        qp_errors += le16toh(ev->type) == ROCX_EQE_QP_ERROR &&
                     le32toh(ev->data) == x.tgt.qpn;
        /* A target posts no QP_LAST_WQE. */
        CHECK(le16toh(ev->type) != ROCX_EQE_QP_LAST_WQE);
    }
    CHECK_EQ(qp_errors, 1);
    /* The SRQ's entry is still there: its domain's targets may use it. */
    {
        union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_QUERY_SRQ);
        struct rocx_aq_cqe *q;
        unsigned slot = B->aq_pi & 15;

        ((struct rocx_aq_srq *)&c)->srqn = htole32(x.s3.srqn);
        CHECK_EQ(t_aq(B, &c, NULL), ROCX_AQ_STS_OK);
        q = t_ptr(B, 0x1000 + slot * sizeof(*q), sizeof(*q));
        CHECK_EQ(le64toh(q->result64), 1);
    }
    /* Domain in use until its target and SRQs go. */
    CHECK_EQ(xrcd_dealloc(B, x.xrcd), ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(t_destroy_qp(&x.tgt), ROCX_AQ_STS_OK);
    CHECK_EQ(xrcd_dealloc(B, x.xrcd), ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(xsrq_destroy(&x.s1), ROCX_AQ_STS_OK);
    CHECK_EQ(xsrq_destroy(&x.s2), ROCX_AQ_STS_OK);
    CHECK_EQ(xrcd_dealloc(B, x.xrcd), ROCX_AQ_STS_OK);
    CHECK_EQ(xrcd_dealloc(B, x.xrcd2), ROCX_AQ_STS_BAD_STATE);
}

static void t_xrc_other_domain(void)
{
    xrc_bad_srq(true);
}

static void t_xrc_no_srq(void)
{
    xrc_bad_srq(false);
}

/*
 * The SRQ goes while the target is in the middle of a message into it:
 * the entry it held completes with WR_FLUSH_ERR on the SRQ's CQ, and the
 * rest of the message is refused.
 */
static void t_xrc_srq_destroy_holding(void)
{
    TX x;
    struct rocx_cqe e;

    x_setup(&x, ROCX_NET_ROCE_V2_IPV4);
    x_post(&x, &x.s1, 0, 8192, 400);
    /* Only the first packet gets through. */
    wire.drop_from = 2;
    x_send(&x, ROCX_WQE_SEND, 0, 3000, x.s1.srqn, 3);
    t_pump();
    CHECK_EQ(xsrq_destroy(&x.s1), ROCX_AQ_STS_OK);
    CHECK(t_poll(&x.bcq1, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 400);
    CHECK_EQ(le32toh(e.ext) & ROCX_CQE_EXT_SRQN, x.s1.srqn);
    wire.drop_from = 0;
    t_settle(2000LL * 1000 * 1000);
    CHECK(t_poll(&x.acq, &e));
    CHECK(cqe_status(&e) != ROCX_WC_SUCCESS);
    CHECK(!t_poll(&x.bcq1, &e));
    /* Its CQ is free again. */
    {
        union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);

        ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(x.bcq1.cqn);
        CHECK_EQ(t_aq(B, &c, NULL), ROCX_AQ_STS_OK);
    }
}

/*
 * A second PD on B: an XRC SRQ of the same domain in it, an MR in it,
 * and a receive of that SRQ over the MR.
 */
typedef struct TXPd2 {
    uint32_t pdn;
    TXSrq s;
    TMr mr;
    uint64_t buf;
} TXPd2;

static void x_pd2(TX *x, TXPd2 *p)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_PD);
    uint32_t pd1 = B->pdn;
    struct rocx_sge sge;

    CHECK_EQ(t_aq(B, &c, &p->pdn), ROCX_AQ_STS_OK);
    B->pdn = p->pdn;
    CHECK_EQ(xsrq_create(B, &p->s, x->xrcd, x->bcq2.cqn), ROCX_AQ_STS_OK);
    p->buf = t_alloc(B, X_BUF, T_PAGE);
    CHECK_EQ(t_reg_mr(B, &p->mr, p->buf, X_BUF, x_access), ROCX_AQ_STS_OK);
    B->pdn = pd1;
    sge = t_sge(&p->mr, 0, 4096);
    xsrq_post(&p->s, &sge, 700);
}

/* A READ of len bytes of B's PD-1 MR, through s1. */
static void x_read(TX *x, uint32_t len)
{
    struct rocx_sge sge = t_sge(&x->amr, 0x8000, len);

    t_fill(t_ptr(B, x->bbuf, len), len, 55);
    set_srqn(&x->ini, t_post_send(&x->ini, ROCX_WQE_RDMA_READ,
                                  ROCX_WQE_SIGNALED, &sge, 1,
                                  x->bmr.iova, x->bmr.key, 0),
             x->s1.srqn);
}

static void x_pd_check(TX *x, TXPd2 *p, uint32_t len, unsigned nini)
{
    struct rocx_cqe e;
    struct rocx_qp_attr a;
    unsigned i;

    for (i = 0; i < nini; i++) {
        CHECK(t_poll(&x->acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    }
    CHECK(!memcmp(t_ptr(A, x->abuf + 0x8000, len), t_ptr(B, x->bbuf, len),
                  len));
    CHECK(t_poll(&x->bcq2, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le32toh(e.ext) & ROCX_CQE_EXT_SRQN, p->s.srqn);
    CHECK(!memcmp(t_ptr(B, p->buf, 100), t_ptr(A, x->abuf, 100), 100));
    CHECK_EQ(t_query(&x->tgt, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.cur_state, ROCX_QPS_RTS);
    CHECK(!t_poll(&x->bcq1, &e));
}

/*
 * A READ through an SRQ of one PD, then a SEND into an SRQ of another PD
 * that arrives while the READ's responses are still going out: they are
 * read under the READ's PD, not the SEND's.
 */
static void t_xrc_read_pd(void)
{
    TX x;
    TXPd2 p;

    x_setup(&x, ROCX_NET_ROCE_V2_IPV4);
    x_pd2(&x, &p);
    x_read(&x, 8192);
    x_send(&x, ROCX_WQE_SEND, 0, 100, p.s.srqn, 5);
    t_settle(2000LL * 1000 * 1000);
    x_pd_check(&x, &p, 8192, 2);
    wire.filter = NULL;
}

/*
 * A duplicate of a SEND into the other PD's SRQ, arriving after a READ
 * through s1 (a retransmission the network delayed): the target drops it
 * (already executed), and it changes nothing about the READ.
 */
static uint8_t dup_fr[256];
static size_t dup_len;

static bool x_dup(TDev *from, uint8_t *buf, size_t *len)
{
    const uint8_t *bth = buf + 14 + 20 + 8;

    if (from != A || *len < 14 + 20 + 8 + 12) {
        return true;
    }
    if ((bth[0] & 0x1f) == ROCX_OP_SEND_ONLY && !dup_len &&
        *len <= sizeof(dup_fr)) {
        memcpy(dup_fr, buf, *len);
        dup_len = *len;
    } else if ((bth[0] & 0x1f) == ROCX_OP_READ_REQ && dup_len) {
        /* The READ, then the old SEND again right behind it. */
        t_wire_push(B, buf, *len);
        t_wire_push(B, dup_fr, dup_len);
        return false;
    }
    return true;
}

static void t_xrc_dup_pd(void)
{
    TX x;
    TXPd2 p;

    x_setup(&x, ROCX_NET_ROCE_V2_IPV4);
    x_pd2(&x, &p);
    dup_len = 0;
    wire.filter = x_dup;
    x_send(&x, ROCX_WQE_SEND, 0, 100, p.s.srqn, 5);
    t_pump();
    x_read(&x, 8192);
    t_ring_sq(&x.ini);
    t_settle(2000LL * 1000 * 1000);
    CHECK(dup_len > 0);
    CHECK(t_stat(B, ROCX_STAT_DUPLICATE_REQUEST) >= 1);
    x_pd_check(&x, &p, 8192, 2);
    wire.filter = NULL;
}

/*
 * Congestion: B sees A's requests CE-marked and sends CNPs for the XRC
 * target to the initiator, whose reaction point takes them (DCQCN for
 * XRC as for RC).
 */
static unsigned ce_marked;

static bool x_ce(TDev *from, uint8_t *f, size_t *len)
{
    uint8_t *ip = f + 14;
    uint32_t sum = 0;
    unsigned i;

    if (from != A || *len < 14 + 20 + 8 + 12 || lduw_be_p(f + 12) != 0x0800 ||
        !(ip[1] & 3)) {
        return true;
    }
    ip[1] |= 3;
    stw_be_p(ip + 10, 0);
    for (i = 0; i < 20; i += 2) {
        sum += lduw_be_p(ip + i);
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    stw_be_p(ip + 10, ~sum & 0xffff);
    ce_marked++;
    return true;
}

static void t_xrc_cnp(void)
{
    TX x;
    struct rocx_cqe e;

    x_setup(&x, ROCX_NET_ROCE_V2_IPV4);
    ce_marked = 0;
    wire.filter = x_ce;
    x_post(&x, &x.s1, 0, 4096, 1);
    x_send(&x, ROCX_WQE_SEND, 0, 3000, x.s1.srqn, 1);
    t_settle(2000LL * 1000 * 1000);
    CHECK(t_poll(&x.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(ce_marked > 0);
    CHECK(t_stat(B, ROCX_STAT_NP_CNP_SENT) > 0);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_HANDLED),
             t_stat(B, ROCX_STAT_NP_CNP_SENT));
    CHECK_EQ(t_stat(A, ROCX_STAT_ROCE_RX_DROPPED), 0);
    wire.filter = NULL;
}

const TCase t_cases_xrc[] = {
    T_CASE(xrc_objects),
    T_CASE(xrc_delivery_v4),
    T_CASE(xrc_delivery_v6),
    T_CASE(xrc_delivery_v1),
    T_CASE(xrc_loss),
    T_CASE(xrc_other_domain),
    T_CASE(xrc_no_srq),
    T_CASE(xrc_srq_destroy_holding),
    T_CASE(xrc_read_pd),
    T_CASE(xrc_dup_pd),
    T_CASE(xrc_cnp),
};
const unsigned t_ncases_xrc = ARRAY_SIZE(t_cases_xrc);
