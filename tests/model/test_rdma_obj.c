/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA objects: MRs (page lists, keys, checks), CQs (ring, doorbell,
 * arming, overflow), QPs (creation checks, state machine, doorbells,
 * flush, destroy), and what keeps PDs and contexts alive.
 */
#include "rdma.h"

/* Guest errors on device d since the last mark: exactly one, of code. */
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

static void t_mr_keys(void)
{
    TMr mr, mr2;
    uint64_t buf = t_alloc(A, 8 * T_PAGE, T_PAGE);
    uint32_t old;
    union rocx_aq_cmd c;
    struct rocx_aq_reg_mr *r = (void *)&c;

    CHECK_EQ(t_reg_mr(A, &mr, buf, 8 * T_PAGE, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    CHECK_EQ(mr.key >> 8, 1);
    CHECK_EQ(mr.key & 0xff, 1);
    CHECK_EQ(t_reg_mr(A, &mr2, buf + 100, 50, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(mr2.key >> 8, 2);
    old = mr.key;
    CHECK_EQ(t_dereg_mr(A, mr.key), ROCX_AQ_STS_OK);
    CHECK_EQ(t_dereg_mr(A, mr.key), ROCX_AQ_STS_NOT_FOUND);
    /* The index comes back with a new variant; the old key is stale. */
    CHECK_EQ(t_reg_mr(A, &mr, buf, T_PAGE, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(mr.key >> 8, 1);
    CHECK_EQ(mr.key & 0xff, 2);
    CHECK_EQ(t_dereg_mr(A, old), ROCX_AQ_STS_NOT_FOUND);
    CHECK(rocx_mr_lookup(&A->f->core, old) == NULL);
    CHECK(rocx_mr_lookup(&A->f->core, mr.key) != NULL);
    CHECK_EQ(t_dereg_mr(A, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_dereg_mr(A, (ROCX_CORE_MAX_MR + 1) << 8), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_dereg_mr(A, (7 << 8) | 1), ROCX_AQ_STS_NOT_FOUND);

    /* Bad registrations. */
    c = t_cmd(ROCX_AQ_OP_REG_MR);
    r->pdn = htole32(A->pdn);
    r->iova = htole64(T_GPA(buf));
    r->length = htole64(T_PAGE);
    r->pbl = t_pbl(A, buf, T_PAGE, 12, 0);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    r->access = htole32(0x20);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->access = 0;
    r->pdn = htole32(0);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->pdn = htole32(77);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_NOT_FOUND);
    r->pdn = htole32(A->pdn);
    r->length = htole64(T_PAGE + 1);        /* more than one page holds */
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->length = htole64(T_PAGE);
    r->offset = htole32(1);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->offset = htole32(T_PAGE);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->offset = 0;
    r->length = htole64((1ULL << 40) + 1);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->length = htole64(16);
    r->iova = htole64(UINT64_MAX - 8);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->iova = htole64(T_GPA(buf));
    r->pbl.page_shift = 11;
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->pbl.page_shift = 22;
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->pbl.page_shift = 12;
    r->pbl.levels = 3;
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->pbl.levels = 0;
    r->pbl.npages = htole32(2);             /* level 0 is one page */
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->pbl.npages = htole32(0);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->pbl.npages = htole32(1);
    r->pbl.addr = htole64(T_GPA(buf) + 8);  /* page not aligned */
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->pbl = t_pbl(A, buf, 2 * T_PAGE, 12, 1);
    r->pbl.npages = htole32(513);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->pbl.npages = htole32(2);
    r->pbl.addr = htole64(0x1000);          /* list outside memory */
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_DMA_ERROR);
    r->pbl.addr = htole64(T_GPA(buf) + 4);  /* list not 8-byte aligned */
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    r->pbl = t_pbl(A, buf, 2 * T_PAGE, 12, 2);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    r->pbl.npages = htole32(ROCX_PBL_MAX_PAGES + 1);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
}

static void t_mr_levels_and_limits(void)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_REG_MR);
    struct rocx_aq_reg_mr *r = (void *)&c;
    uint64_t big = t_alloc(A, 4 << 20, 2 << 20);
    RocxMr *mr;
    uint32_t key, n;
    unsigned st;

    /* A 2 MiB page at level 0, a 2-level list of 1024 4 KiB pages. */
    r->pdn = htole32(A->pdn);
    r->iova = htole64(0x7000000000ULL);
    r->length = htole64(2 << 20);
    r->pbl = t_pbl(A, big, 2 << 20, 21, 0);
    CHECK_EQ(t_aq(A, &c, &key), ROCX_AQ_STS_OK);
    mr = rocx_mr_lookup(&A->f->core, key);
    CHECK(mr && mr->pbl.npages == 1 && mr->pbl.page_shift == 21);
    r->length = htole64(4 << 20);
    r->pbl = t_pbl(A, big, 4 << 20, 12, 2);
    CHECK_EQ(t_aq(A, &c, &key), ROCX_AQ_STS_OK);
    mr = rocx_mr_lookup(&A->f->core, key);
    CHECK(mr && mr->pbl.npages == 1024 &&
          mr->pbl.pages[1023] == T_GPA(big) + 1023ULL * T_PAGE);

    /* The MR table holds max_mr regions. */
    r->length = htole64(16);
    r->pbl = t_pbl(A, big, 16, 12, 0);
    for (n = 2; n < ROCX_CORE_MAX_MR; n++) {
        st = t_aq(A, &c, NULL);
        if (st != ROCX_AQ_STS_OK) {
            break;
        }
    }
    CHECK_EQ(n, ROCX_CORE_MAX_MR);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_NO_RESOURCE);
    CHECK_EQ(A->f->core.rdma.pbl_entries, ROCX_CORE_MAX_MR - 2 + 1 + 1024);
}

static void t_mr_checks(void)
{
    RocxCore *c = &A->f->core;
    uint64_t buf = t_alloc(A, 4 * T_PAGE, T_PAGE);
    union rocx_aq_cmd cmd = t_cmd(ROCX_AQ_OP_CREATE_PD);
    uint32_t pd2;
    TMr mr;
    RocxMr *m;

    CHECK_EQ(t_reg_mr(A, &mr, buf + 100, 1000,
                      ROCX_ACCESS_REMOTE_READ | ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_aq(A, &cmd, &pd2), ROCX_AQ_STS_OK);
    CHECK_EQ(rocx_mr_check(c, mr.key, A->pdn, mr.iova, 1000, 0, &m),
             ROCX_VERR_NONE);
    CHECK_EQ(rocx_mr_check(c, mr.key, A->pdn, mr.iova + 1000, 0, 0, NULL),
             ROCX_VERR_NONE);
    CHECK_EQ(rocx_mr_check(c, mr.key, A->pdn, mr.iova + 999, 2, 0, NULL),
             ROCX_VERR_LKEY_BOUNDS);
    CHECK_EQ(rocx_mr_check(c, mr.key, A->pdn, mr.iova - 1, 1, 0, NULL),
             ROCX_VERR_LKEY_BOUNDS);
    CHECK_EQ(rocx_mr_check(c, mr.key, A->pdn, mr.iova + 1001, 0, 0, NULL),
             ROCX_VERR_LKEY_BOUNDS);
    CHECK_EQ(rocx_mr_check(c, mr.key, A->pdn, UINT64_MAX, 2, 0, NULL),
             ROCX_VERR_LKEY_BOUNDS);
    CHECK_EQ(rocx_mr_check(c, mr.key, pd2, mr.iova, 1, 0, NULL),
             ROCX_VERR_BAD_LKEY);
    CHECK_EQ(rocx_mr_check(c, mr.key + 1, A->pdn, mr.iova, 1, 0, NULL),
             ROCX_VERR_BAD_LKEY);
    CHECK_EQ(rocx_mr_check(c, mr.key, A->pdn, mr.iova, 1,
                           ROCX_ACCESS_REMOTE_WRITE, NULL),
             ROCX_VERR_LKEY_ACCESS);
    CHECK_EQ(rocx_mr_check(c, mr.key, A->pdn, mr.iova, 1,
                           ROCX_ACCESS_REMOTE_READ | ROCX_ACCESS_LOCAL_WRITE,
                           NULL), ROCX_VERR_NONE);
    /* Data goes through the page list, honouring the offset. */
    t_fill(t_ptr(A, buf, 4 * T_PAGE), 4 * T_PAGE, 3);
    {
        uint8_t tmp[200];

        CHECK_EQ(rocx_mr_rw(c, m, mr.iova + 900, tmp, 100, false), 0);
        CHECK(!memcmp(tmp, t_ptr(A, buf + 1000, 100), 100));
    }
    /* A PD with an MR, a context with a CQ, stay. */
    cmd = t_cmd(ROCX_AQ_OP_DESTROY_PD);
    cmd.pd.pdn = htole32(A->pdn);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(t_dereg_mr(A, mr.key), ROCX_AQ_STS_OK);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_OK);
}

static void t_cq_create_destroy(void)
{
    TCq cq, cq2;
    uint32_t uctx;
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_CQ);
    struct rocx_aq_create_cq *cc = (void *)&c;
    uint64_t ring = t_alloc(A, T_PAGE, T_PAGE);

    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(cq.cqn, 1);
    CHECK_EQ(t_create_cq(A, &cq2, 16, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(cq2.cqn, 2);

    cc->log_depth = 4;
    cc->eqn = 1;
    cc->pbl = t_pbl(A, ring, T_PAGE, 12, 0);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    cc->log_depth = 0;
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    cc->log_depth = 17;
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    cc->log_depth = 8;                      /* 8 KiB: more than one page */
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    cc->log_depth = 4;
    cc->eqn = 8;
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    cc->eqn = 5;                            /* no such EQ */
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_NOT_FOUND);
    cc->eqn = 1;
    cc->uctx = htole32(256);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    cc->uctx = htole32(3);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_NOT_FOUND);

    /* A context with a CQ cannot go. */
    c = t_cmd(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(t_aq(A, &c, &uctx), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &cq2, 2, uctx, 1), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_BAD_STATE);

    c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(cq2.cqn);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_NOT_FOUND);
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(0);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    /* More than 24 bits: no number at all; 1025: slot 1, generation 1. */
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(1u << 24);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(ROCX_CORE_MAX_CQ + 1);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_NOT_FOUND);
    c = t_cmd(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
}

/* A loopback pair on A with its own CQs; sends/recvs of small buffers. */
typedef struct TLoop {
    TCq scq, rcq;
    TQp qa, qb;
    TMr mr;
} TLoop;

static void loop_setup(TLoop *l, unsigned scq_ld, unsigned rcq_ld)
{
    TConn conn;
    uint64_t buf = t_alloc(A, 16 * T_PAGE, T_PAGE);

    CHECK_EQ(t_create_cq(A, &l->scq, scq_ld, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &l->rcq, rcq_ld, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &l->qa, &l->scq, &l->scq, 6, 6, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &l->qb, &l->rcq, &l->rcq, 6, 6, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &l->mr, buf, 16 * T_PAGE,
                      ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
                      ROCX_ACCESS_REMOTE_READ), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&l->qa, &l->qb, &conn);
}

/* A sends 16 bytes to B; flags on the WQE (SIGNALED, SOLICITED). */
static void loop_send(TLoop *l, uint8_t flags)
{
    struct rocx_sge s = t_sge(&l->mr, 0, 16), r = t_sge(&l->mr, 4096, 64);

    t_post_recv(&l->qb, &r, 1);
    t_ring_rq(&l->qb);
    t_post_send(&l->qa, ROCX_WQE_SEND, flags, &s, 1, 0, 0, 0);
    t_ring_sq(&l->qa);
    t_pump();
}

static unsigned count_eqes(TDev *d, unsigned eqn, uint16_t type,
                           uint32_t data)
{
    struct rocx_eqe *e;
    unsigned n = 0;

    while ((e = t_eq_next(d, eqn))) {
        if (le16toh(e->type) == type && le32toh(e->data) == data) {
            n++;
        }
    }
    return n;
}

static void t_cq_arming(void)
{
    TLoop l;
    struct rocx_cqe e;

    loop_setup(&l, 4, 4);
    /* Not armed: CQEs, no event. */
    loop_send(&l, ROCX_WQE_SIGNALED);
    CHECK(t_poll(&l.rcq, &e));
    CHECK(t_poll(&l.scq, &e));
    CHECK_EQ(count_eqes(A, 1, ROCX_EQE_COMPLETION, l.rcq.cqn), 0);
    /* Armed: one event for the next CQE, then disarmed. */
    t_cq_arm(&l.rcq, ROCX_DB_ARM);
    fake_run(A->f);
    loop_send(&l, 0);
    loop_send(&l, 0);
    CHECK_EQ(count_eqes(A, 1, ROCX_EQE_COMPLETION, l.rcq.cqn), 1);
    CHECK(t_poll(&l.rcq, &e) && t_poll(&l.rcq, &e));
    CHECK(!t_poll(&l.rcq, &e));
    /* Arming while a CQE waits unconsumed: an event at once. */
    loop_send(&l, 0);
    t_cq_arm(&l.rcq, ROCX_DB_ARM);
    fake_run(A->f);
    CHECK_EQ(count_eqes(A, 1, ROCX_EQE_COMPLETION, l.rcq.cqn), 1);
    CHECK(t_poll(&l.rcq, &e));
    /* Solicited only: an unsolicited CQE does not interrupt... */
    t_cq_arm(&l.rcq, ROCX_DB_ARM_SOLICITED);
    fake_run(A->f);
    loop_send(&l, 0);
    CHECK_EQ(count_eqes(A, 1, ROCX_EQE_COMPLETION, l.rcq.cqn), 0);
    /* ...a solicited one does. */
    loop_send(&l, ROCX_WQE_SOLICITED);
    CHECK_EQ(count_eqes(A, 1, ROCX_EQE_COMPLETION, l.rcq.cqn), 1);
    CHECK(t_poll(&l.rcq, &e) && t_poll(&l.rcq, &e));
    CHECK(e.flags & ROCX_CQE_RECV);
    /* Solicited arm with an unconsumed unsolicited CQE: no event. */
    loop_send(&l, 0);
    t_cq_arm(&l.rcq, ROCX_DB_ARM_SOLICITED);
    fake_run(A->f);
    CHECK_EQ(count_eqes(A, 1, ROCX_EQE_COMPLETION, l.rcq.cqn), 0);
    CHECK_EQ(A->f->gerrs, 0);
}

static void t_cq_doorbell_errors(void)
{
    TLoop l;
    uint32_t uctx;
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_ALLOC_UCTX);

    loop_setup(&l, 4, 4);
    CHECK_EQ(t_aq(A, &c, &uctx), ROCX_AQ_STS_OK);
    gmark = A->f->gerrs;
    t_db(A, 0, ROCX_DB_CQ, l.rcq.cqn, 1, 0);     /* nothing written yet */
    CHECK_GERR(A, ROCX_GERR_DB_INDEX);
    t_db(A, uctx, ROCX_DB_CQ, l.rcq.cqn, 0, ROCX_DB_ARM);
    CHECK_GERR(A, ROCX_GERR_DB_OWNER);
    t_db(A, 0, ROCX_DB_CQ, 99, 0, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    t_db(A, 0, ROCX_DB_CQ, 0, 0, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    loop_send(&l, 0);
    t_db(A, 0, ROCX_DB_CQ, l.rcq.cqn, 2, 0);
    CHECK_GERR(A, ROCX_GERR_DB_INDEX);
    t_db(A, 0, ROCX_DB_CQ, l.rcq.cqn, 1, 0);
    CHECK_EQ(A->f->gerrs, gmark);
    /* SQ/RQ: another page, no QP, beyond the depth, backwards, no RQ. */
    t_db(A, uctx, ROCX_DB_SQ, l.qa.qpn, 1, 0);
    CHECK_GERR(A, ROCX_GERR_DB_OWNER);
    t_db(A, 0, ROCX_DB_SQ, 1, 1, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    t_db(A, 0, ROCX_DB_RQ, 0xffffff, 1, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    t_db(A, 0, ROCX_DB_SQ, l.qa.qpn, l.qa.sq_pi + 65, 0);
    CHECK_GERR(A, ROCX_GERR_DB_INDEX);
    t_db(A, 0, ROCX_DB_RQ, l.qb.qpn, l.qb.rq_pi - 1, 0);
    CHECK_GERR(A, ROCX_GERR_DB_INDEX);
    t_db(A, 0, ROCX_DB_SQ, l.qa.qpn, l.qa.sq_pi, 0);     /* same: fine */
    CHECK_EQ(A->f->gerrs, gmark);
    {
        TQp q;

        CHECK_EQ(t_create_qp(A, &q, &l.scq, &l.scq, 2, 0, 0),
                 ROCX_AQ_STS_OK);
        t_db(A, 0, ROCX_DB_RQ, q.qpn, 1, 0);
        CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    }
}

static void t_cq_overflow(void)
{
    TLoop l;
    struct rocx_qp_attr a;
    struct rocx_cqe e;
    unsigned i, qp_err = 0, cq_err = 0;
    struct rocx_eqe *ev;

    loop_setup(&l, 1, 4);                   /* send CQ of 2 entries */
    for (i = 0; i < 3; i++) {
        loop_send(&l, ROCX_WQE_SIGNALED);
    }
    /* Two fitted; the third stopped the CQ and the QP. */
    while ((ev = t_eq_next(A, 0))) {
        if (le16toh(ev->type) == ROCX_EQE_CQ_ERROR &&
            le32toh(ev->data) == l.scq.cqn) {
            cq_err++;
        }
        if (le16toh(ev->type) == ROCX_EQE_QP_ERROR &&
            le32toh(ev->data) == l.qa.qpn) {
            qp_err++;
        }
    }
    CHECK_EQ(cq_err, 1);
    CHECK_EQ(qp_err, 1);
    CHECK_EQ(t_query(&l.qa, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.state, ROCX_QPS_ERR);
    CHECK(A->f->core.rdma.cq[l.scq.cqn].error);
    CHECK(t_poll(&l.scq, &e) && t_poll(&l.scq, &e));
    CHECK(!t_poll(&l.scq, &e));
    /* The receiving side got all three messages. */
    for (i = 0; i < 3; i++) {
        CHECK(t_poll(&l.rcq, &e));
        CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
    }
    /* Nothing more is written to a CQ in error, even after consuming. */
    loop_send(&l, ROCX_WQE_SIGNALED);
    CHECK(!t_poll(&l.scq, &e));
}

/*
 * A CQ overflow with many QPs on it posts a QP_ERROR for every QP and a
 * CQ_ERROR: all of them reach an EQ 0 of the size contract 1.2 gives a
 * driver (max_qp + max_cq + max_srq + 16, here 4096 entries), none is
 * lost, and no EQ_OVERFLOW is needed.
 */
static void t_eq0_event_storm(void)
{
    enum { NQP = 300, EQ_LD = 12 };
    static TQp qp[NQP];
    static bool seen[NQP];
    uint64_t eq = t_alloc(A, 16u << EQ_LD, T_PAGE);
    uint64_t overflows = t_stat(A, ROCX_STAT_EQ_OVERFLOWS);
    unsigned i, j, qp_err = 0, cq_err = 0, other = 0;
    union rocx_aq_cmd c;
    struct rocx_sge r;
    TCq cq;
    TMr mr;

    c = t_cmd(ROCX_AQ_OP_DESTROY_EQ);
    c.destroy_eq.eqn = htole16(0);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_CREATE_EQ);
    c.create_eq.base = htole64(T_GPA(eq));
    c.create_eq.eqn = htole16(0);
    c.create_eq.log_depth = EQ_LD;
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);

    CHECK_EQ(t_create_cq(A, &cq, 1, 0, 1), ROCX_AQ_STS_OK);  /* 2 CQEs */
    memset(seen, 0, sizeof(seen));
    for (i = 0; i < NQP; i++) {
        CHECK_EQ(t_create_qp(A, &qp[i], &cq, &cq, 1, i ? 0 : 2, 0),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(t_to_state(&qp[i], ROCX_QPS_INIT), ROCX_AQ_STS_OK);
    }
    CHECK_EQ(t_reg_mr(A, &mr, t_alloc(A, T_PAGE, T_PAGE), T_PAGE,
                      ROCX_ACCESS_LOCAL_WRITE), ROCX_AQ_STS_OK);
    /* Three receives flushed into a CQ of two: it overflows. */
    r = t_sge(&mr, 0, 64);
    for (i = 0; i < 3; i++) {
        t_post_recv(&qp[0], &r, 1);
    }
    t_ring_rq(&qp[0]);
    CHECK_EQ(t_to_state(&qp[0], ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    t_pump();

    for (i = 0; i < (1u << EQ_LD); i++) {
        struct rocx_eqe *e = t_ptr(A, eq + i * 16, 16);
        uint32_t data = le32toh(e->data);

        if (!(e->flags & ROCX_EQE_PHASE)) {
            break;
        }
        switch (le16toh(e->type)) {
        case ROCX_EQE_QP_ERROR:
            for (j = 1; j < NQP && qp[j].qpn != data; j++) {
            }
            CHECK(j < NQP && !seen[j]);
            if (j < NQP) {
                seen[j] = true;
            }
            qp_err++;
            break;
        case ROCX_EQE_CQ_ERROR:
            CHECK_EQ(data, cq.cqn);
            cq_err++;
            break;
        default:
            other++;
            break;
        }
    }
    CHECK_EQ(cq_err, 1);
    CHECK_EQ(qp_err, NQP - 1);      /* qp[0] went to ERR by modify */
    CHECK_EQ(other, 0);             /* no EQ_OVERFLOW among them */
    CHECK_EQ(t_stat(A, ROCX_STAT_EQ_OVERFLOWS), overflows);
}

static void t_qp_create_errors(void)
{
    TCq cq, ucq;
    TQp qp;
    uint32_t uctx, upd, uqpn;
    union rocx_aq_cmd c, base;
    struct rocx_aq_create_qp *q = (void *)&c;
    uint64_t buf = t_alloc(A, 8 * T_PAGE, T_PAGE);

    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(t_aq(A, &c, &uctx), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_CREATE_PD);
    c.pd.uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, &upd), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &ucq, 4, uctx, 1), ROCX_AQ_STS_OK);

    base = t_cmd(ROCX_AQ_OP_CREATE_QP);
    q = (void *)&base;
    q->type = ROCX_QPT_RC;
    q->sq_log_depth = 3;
    q->rq_log_depth = 3;
    q->sq_wqe_shift = 9;
    q->rq_wqe_shift = 8;
    q->pdn = htole32(A->pdn);
    q->send_cqn = htole32(cq.cqn);
    q->recv_cqn = htole32(cq.cqn);
    q->srqn = htole32(ROCX_NO_SRQ);
    q->pbl = t_pbl(A, buf, 8 * T_PAGE, 12, 1);
    q = (void *)&c;
#define TRY(field, val, st) do { \
        c = base; \
        q->field = (val); \
        CHECK_EQ(t_aq(A, &c, NULL), (st)); \
    } while (0)
    /* GSI (test_rdma_gsi.c): the kernel's only, so not this one. */
    c = base;
    q->type = ROCX_QPT_GSI;
    q->uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_INVALID);
    TRY(type, 4, ROCX_AQ_STS_INVALID);
    TRY(srqn, htole32(1), ROCX_AQ_STS_NOT_FOUND);   /* no such SRQ */
    TRY(flags, 2, ROCX_AQ_STS_INVALID);
    TRY(sq_log_depth, 0, ROCX_AQ_STS_INVALID);
    TRY(sq_log_depth, 13, ROCX_AQ_STS_INVALID);     /* > max_qp_wr */
    TRY(rq_log_depth, 13, ROCX_AQ_STS_INVALID);
    TRY(sq_wqe_shift, 5, ROCX_AQ_STS_INVALID);
    TRY(sq_wqe_shift, 11, ROCX_AQ_STS_INVALID);
    TRY(rq_wqe_shift, 3, ROCX_AQ_STS_INVALID);
    TRY(rq_wqe_shift, 10, ROCX_AQ_STS_INVALID);
    TRY(pdn, 0, ROCX_AQ_STS_INVALID);
    TRY(pdn, htole32(5), ROCX_AQ_STS_NOT_FOUND);
    TRY(send_cqn, htole32(9), ROCX_AQ_STS_NOT_FOUND);
    TRY(recv_cqn, 0, ROCX_AQ_STS_NOT_FOUND);
    TRY(uctx, htole32(9), ROCX_AQ_STS_NOT_FOUND);
    TRY(uctx, htole32(300), ROCX_AQ_STS_INVALID);
    TRY(uctx, htole32(uctx), ROCX_AQ_STS_INVALID);  /* kernel PD and CQ */
    TRY(pdn, htole32(upd), ROCX_AQ_STS_INVALID);    /* a context's PD */
    TRY(sq_log_depth, 6, ROCX_AQ_STS_INVALID);      /* buffer too small */
    TRY(pbl.page_shift, 9, ROCX_AQ_STS_INVALID);
    TRY(type, ROCX_QPT_RC, ROCX_AQ_STS_OK);
#undef TRY
    /* A context's QP with its own PD and CQs. */
    c = base;
    q->uctx = htole32(uctx);
    q->pdn = htole32(upd);
    q->send_cqn = q->recv_cqn = htole32(ucq.cqn);
    CHECK_EQ(t_aq(A, &c, &uqpn), ROCX_AQ_STS_OK);
    /* Next-fit, and the failed creates above took no number. */
    CHECK_EQ(uqpn, ROCX_CORE_QPN_FIRST + 1);
    /* CQs, PD and context in use stay. */
    c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(cq.cqn);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_BAD_STATE);
    c = t_cmd(ROCX_AQ_OP_DESTROY_PD);
    c.pd.pdn = htole32(upd);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_BAD_STATE);
    c = t_cmd(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_BAD_STATE);
    /* Destroying the QP releases them. */
    qp.d = A;
    qp.qpn = uqpn;
    CHECK_EQ(t_destroy_qp(&qp), ROCX_AQ_STS_OK);
    CHECK_EQ(t_destroy_qp(&qp), ROCX_AQ_STS_NOT_FOUND);
    qp.qpn = 0;
    CHECK_EQ(t_destroy_qp(&qp), ROCX_AQ_STS_NOT_FOUND);
    c = t_cmd(ROCX_AQ_OP_DESTROY_PD);
    c.pd.pdn = htole32(upd);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_BAD_STATE);    /* ucq */
    c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(ucq.cqn);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(uctx);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
}

static void t_qp_state_machine(void)
{
    TCq cq;
    TQp qp, peer;
    struct rocx_qp_attr a, rtr;
    union rocx_aq_cmd c;

    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qp, &cq, &cq, 3, 3, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &peer, &cq, &cq, 3, 3, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(qp.qpn, ROCX_CORE_QPN_FIRST);
    CHECK_EQ(t_query(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.state, ROCX_QPS_RESET);
    CHECK_EQ(a.cur_state, ROCX_QPS_RESET);

    /* Not from RESET: RTR, RTS, SQD, SQE, states beyond ERR. */
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_RTR), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_RTS), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_SQD), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_SQE), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, 7), ROCX_AQ_STS_INVALID);
    /* RESET->RESET without attributes is "any->RESET". */
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    /* Attributes this transition does not take. */
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_PATH_MTU);
    a.state = ROCX_QPS_INIT;
    a.path_mtu = 3;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY);
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_BIT(15));
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_PKEY_INDEX);
    a.pkey_index = htole16(1);
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_ACCESS);
    a.access = htole32(0x10);
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.access = htole32(ROCX_ACCESS_REMOTE_WRITE);
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_OK);
    /* No attributes and no state: INIT->INIT. */
    a.valid = htole32(ROCX_QP_ATTR_ACCESS);
    a.access = htole32(ROCX_ACCESS_REMOTE_READ);
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(t_query(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.state, ROCX_QPS_INIT);
    CHECK_EQ(le32toh(a.access), ROCX_ACCESS_REMOTE_READ);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_RTS), ROCX_AQ_STS_INVALID);

    /* INIT->RTR needs the path; each value is checked. */
    memset(&rtr, 0, sizeof(rtr));
    rtr.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV |
                        ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
                        ROCX_QP_ATTR_RQ_PSN);
    rtr.state = ROCX_QPS_RTR;
    t_av(A, B, ROCX_NET_ROCE_V2_IPV4, &rtr.av);
    rtr.path_mtu = 5;
    rtr.dest_qpn = htole32(peer.qpn);
    rtr.rq_psn = htole32(0x123456);
#define TRY(field, val) do { \
        a = rtr; \
        a.field = (val); \
        CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID); \
    } while (0)
    TRY(valid, htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_PATH_MTU |
                       ROCX_QP_ATTR_DEST_QPN | ROCX_QP_ATTR_RQ_PSN));
    TRY(valid, rtr.valid | htole32(ROCX_QP_ATTR_SQ_PSN));
    TRY(valid, rtr.valid | htole32(ROCX_QP_ATTR_TIMEOUT));
    TRY(path_mtu, 0);
    TRY(path_mtu, 6);
    TRY(rq_psn, htole32(0x1000000));
    TRY(dest_qpn, htole32(0x1000000));
    TRY(av.sgid_index, 3);                  /* empty GID entry */
    TRY(av.sgid_index, 200);
    TRY(av.net_type, ROCX_NET_ROCE_V2_IPV6); /* GID 0 is IPv4 */
    TRY(av.net_type, ROCX_NET_ROCE_V1);
    TRY(av.net_type, 3);
    TRY(av.dgid[10], 0);                    /* IPv4 path to a non-v4 GID */
    TRY(av.flow_label, htole32(0x800000));  /* reserved above the priority */
    TRY(av.dmac[0], 1);                     /* multicast */
#undef TRY
    a = rtr;
    a.valid |= htole32(ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC);
    a.max_dest_rd_atomic = 17;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a = rtr;
    a.valid |= htole32(ROCX_QP_ATTR_MIN_RNR_TIMER);
    a.min_rnr_timer = 32;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_query(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.state, ROCX_QPS_INIT);       /* nothing was applied */
    a = rtr;
    a.av.vlan = htole16(4096);              /* ignored: GID 0's is used */
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(t_query(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.state, ROCX_QPS_RTR);
    CHECK_EQ(le16toh(a.av.vlan), ROCX_VLAN_NONE);
    CHECK_EQ(a.path_mtu, 5);
    CHECK_EQ(le32toh(a.rq_psn), 0x123456);
    CHECK_EQ(le32toh(a.dest_qpn), peer.qpn);
    CHECK(!memcmp(a.av.dgid, B->gid4, 16));
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_INIT), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_RTR), ROCX_AQ_STS_INVALID);

    /* RTR->RTS needs the SQ PSN. */
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_TIMEOUT);
    a.state = ROCX_QPS_RTS;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN |
                      ROCX_QP_ATTR_RETRY_CNT);
    a.retry_cnt = 8;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.retry_cnt = 3;
    a.valid |= htole32(ROCX_QP_ATTR_RNR_RETRY);
    a.rnr_retry = 8;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.rnr_retry = 7;
    a.valid |= htole32(ROCX_QP_ATTR_TIMEOUT);
    a.timeout = 32;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.timeout = 10;
    a.valid |= htole32(ROCX_QP_ATTR_MAX_RD_ATOMIC);
    a.max_rd_atomic = 17;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    a.max_rd_atomic = 16;
    a.sq_psn = htole32(0xabcdef);
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(t_query(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.state, ROCX_QPS_RTS);
    CHECK_EQ(le32toh(a.sq_psn), 0xabcdef);
    CHECK_EQ(a.retry_cnt, 3);
    CHECK_EQ(a.timeout, 10);
    /* RTS->RTS takes access and the RNR timer only. */
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_MIN_RNR_TIMER);
    a.min_rnr_timer = 12;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_OK);
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_TIMEOUT);
    a.state = ROCX_QPS_RTS;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_RTR), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_SQD), ROCX_AQ_STS_INVALID);
    /* Any->ERR takes nothing else; ERR->RESET->INIT works again. */
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_ACCESS);
    a.state = ROCX_QPS_ERR;
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_RTS), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_INIT), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_INIT), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&peer, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    /* No such QP; an attribute buffer that faults. */
    qp.qpn = 999;
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_INIT), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(t_query(&qp, &a), ROCX_AQ_STS_NOT_FOUND);
    c = t_cmd(ROCX_AQ_OP_MODIFY_QP);
    ((struct rocx_aq_qp_attr_cmd *)&c)->qpn = htole32(peer.qpn);
    ((struct rocx_aq_qp_attr_cmd *)&c)->addr = htole64(0x10);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_DMA_ERROR);
    c.hdr.opcode = htole16(ROCX_AQ_OP_QUERY_QP);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_DMA_ERROR);
}

static void t_qp_flush(void)
{
    TLoop l;
    struct rocx_cqe e;
    struct rocx_sge s;
    unsigned i, n;

    loop_setup(&l, 6, 6);
    s = t_sge(&l.mr, 0, 64);
    /* B: 5 receives; A: 3 sends that the peer never sees (B in ERR). */
    for (i = 0; i < 5; i++) {
        t_post_recv(&l.qb, &s, 1);
    }
    t_ring_rq(&l.qb);
    CHECK_EQ(t_to_state(&l.qb, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    t_pump();
    for (n = 0; t_poll(&l.rcq, &e); n++) {
        CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_WR_FLUSH_ERR);
        CHECK_EQ(le16toh(e.wqe_idx), n);
        CHECK_EQ(le32toh(e.qpn_op) & 0xffffff, l.qb.qpn);
        CHECK_EQ(le32toh(e.qpn_op) >> 24, ROCX_CQE_OP_RECV);
        CHECK(e.flags & ROCX_CQE_RECV);
    }
    CHECK_EQ(n, 5);
    /* Posted in ERR: flushed too. */
    t_post_recv(&l.qb, &s, 1);
    t_ring_rq(&l.qb);
    t_pump();
    CHECK(t_poll(&l.rcq, &e));
    CHECK_EQ(le16toh(e.wqe_idx), 5);

    /* A's sends (unsignalled: errors always complete) go out, time out. */
    for (i = 0; i < 3; i++) {
        t_post_send(&l.qa, ROCX_WQE_SEND, 0, &s, 1, 0, 0, 0);
    }
    t_ring_sq(&l.qa);
    t_pump();
    CHECK(!t_poll(&l.scq, &e));
    CHECK_EQ(t_to_state(&l.qa, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    t_pump();
    for (n = 0; t_poll(&l.scq, &e); n++) {
        CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_WR_FLUSH_ERR);
        CHECK_EQ(le16toh(e.wqe_idx), n);
        CHECK_EQ(le32toh(e.qpn_op) >> 24, ROCX_CQE_OP_SEND);
    }
    CHECK_EQ(n, 3);
    /* RESET empties the queues: nothing more completes. */
    CHECK_EQ(t_to_state(&l.qa, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    t_pump();
    CHECK(!t_poll(&l.scq, &e));
    CHECK_EQ(A->f->gerrs, 0);
}

/*
 * RESET->ERR (any->ERR): the QP is in ERR afterwards, and what is posted
 * then completes with WR_FLUSH_ERR.
 */
static void t_qp_reset_to_err(void)
{
    TLoop l;
    struct rocx_cqe e;
    struct rocx_qp_attr a;
    struct rocx_sge s;

    loop_setup(&l, 6, 6);
    CHECK_EQ(t_to_state(&l.qa, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&l.qa, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    CHECK_EQ(t_query(&l.qa, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.cur_state, ROCX_QPS_ERR);
    s = t_sge(&l.mr, 0, 64);
    t_post_send(&l.qa, ROCX_WQE_SEND, 0, &s, 1, 0, 0, 0);
    t_ring_sq(&l.qa);
    t_post_recv(&l.qa, &s, 1);
    t_ring_rq(&l.qa);
    t_pump();
    CHECK(t_poll(&l.scq, &e));
    CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(le32toh(e.qpn_op) >> 24, ROCX_CQE_OP_SEND);
    CHECK(t_poll(&l.scq, &e));
    CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_WR_FLUSH_ERR);
    CHECK(e.flags & ROCX_CQE_RECV);
    CHECK(!t_poll(&l.scq, &e));
    /* And back to RESET, and on to INIT as from any RESET. */
    CHECK_EQ(t_to_state(&l.qa, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    CHECK_EQ(t_query(&l.qa, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.cur_state, ROCX_QPS_RESET);
    CHECK_EQ(A->f->gerrs, 0);
}

static void t_qp_destroy_stops_dma(void)
{
    TLoop l;
    struct rocx_sge s;
    uint64_t dma;

    loop_setup(&l, 6, 6);
    s = t_sge(&l.mr, 0, 64);
    t_post_send(&l.qa, ROCX_WQE_SEND, 0, &s, 1, 0, 0, 0);
    t_ring_sq(&l.qa);
    CHECK_EQ(t_destroy_qp(&l.qa), ROCX_AQ_STS_OK);
    CHECK_EQ(t_destroy_qp(&l.qb), ROCX_AQ_STS_OK);
    t_pump();
    gmark = A->f->gerrs;
    t_db(A, 0, ROCX_DB_SQ, l.qa.qpn, 2, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    t_pump();                               /* its GUEST_ERROR event */
    dma = A->f->dma_reads + A->f->dma_writes;
    fake_advance(A->f, 10LL * 1000 * 1000 * 1000);
    t_pump();
    CHECK_EQ(A->f->dma_reads + A->f->dma_writes, dma);
    CHECK_EQ(A->f->nframes, 0);
    /* CQs are free to go now. */
    {
        union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);

        ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(l.scq.cqn);
        CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    }
}

static void t_reset_frees_objects(void)
{
    TLoop l;
    uint32_t n;

    loop_setup(&l, 6, 6);
    CHECK(A->f->core.rdma.pbl_entries > 0);
    rocx_core_reg_write(&A->f->core, ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET,
                        4);
    CHECK_EQ(A->f->core.rdma.pbl_entries, 0);
    for (n = 0; n < ROCX_CORE_QP_SLOTS; n++) {
        CHECK(A->f->core.rdma.qp[n] == NULL);
    }
    CHECK(!A->f->timer_armed);
    for (n = 0; n < ROCX_CORE_CQ_SLOTS; n++) {
        CHECK(!A->f->core.rdma.cq[n].valid);
    }
}

/*
 * Path MTU against the port's MTU (rocx-device.rst, MODIFY_QP): frames
 * larger than the port's MTU would be dropped by every real network, so
 * the device must not let a QP send them.  A path MTU p fits a
 * port of MTU m (L3 bytes) if p + ROCX_ROCE_MTU_OVERHEAD <= m, the RoCE
 * headers around p bytes of payload at most: ib_core's active MTU for m.
 * MODIFY_QP refuses one that does not fit (INVALID); a SET_PORT that
 * lowers the MTU below a live QP's path MTU moves it to ERR at once with
 * QP_ERROR(PATH_MTU) and flushes it; other QPs keep going.
 */
static unsigned qp_rtr(TQp *qp, TQp *peer, uint8_t path_mtu)
{
    struct rocx_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV |
                      ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
                      ROCX_QP_ATTR_RQ_PSN);
    a.state = ROCX_QPS_RTR;
    t_av(qp->d, peer->d, ROCX_NET_ROCE_V2_IPV4, &a.av);
    a.path_mtu = path_mtu;
    a.dest_qpn = htole32(peer->qpn);
    return t_modify(qp, &a);
}

static uint8_t qp_state_of(TQp *qp)
{
    struct rocx_qp_attr a;

    CHECK_EQ(t_query(qp, &a), ROCX_AQ_STS_OK);
    return a.state;
}

static void t_qp_path_mtu(void)
{
    static const struct {
        uint16_t port;
        uint8_t largest;        /* largest path MTU it takes, 0: none */
    } v[] = {
        { ROCX_MIN_MTU, 0 }, { 351, 0 }, { 352, 1 }, { 607, 1 },
        { 608, 2 }, { 1119, 2 }, { 1120, 3 }, { 1500, 3 }, { 2143, 3 },
        { 2144, 4 }, { 4191, 4 }, { 4192, 5 }, { ROCX_MAX_MTU, 5 },
    };
    TCq cq, bcq;
    TQp qp, peer, q[3];
    TConn conn;
    struct rocx_sge s = { 0 };
    struct rocx_cqe e;
    struct rocx_eqe *ev;
    unsigned i, m, errs = 0;

    CHECK_EQ(ROCX_ROCE_MTU_OVERHEAD, 96);
    CHECK_EQ(t_create_cq(A, &cq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qp, &cq, &cq, 4, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &peer, &bcq, &bcq, 4, 4, 0), ROCX_AQ_STS_OK);
    for (i = 0; i < ARRAY_SIZE(v); i++) {
        CHECK_EQ(t_set_port_mtu(A, v[i].port), ROCX_AQ_STS_OK);
        for (m = 1; m <= 5; m++) {
            unsigned want = m <= v[i].largest ? ROCX_AQ_STS_OK :
                            ROCX_AQ_STS_INVALID;

            CHECK_EQ(t_to_state(&qp, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
            CHECK_EQ(t_to_state(&qp, ROCX_QPS_INIT), ROCX_AQ_STS_OK);
            CHECK_EQ(qp_rtr(&qp, &peer, m), want);
            CHECK_EQ(qp_state_of(&qp),
                     want ? ROCX_QPS_INIT : ROCX_QPS_RTR);
            if (case_failures) {
                fprintf(stderr, "    (port MTU %u, path MTU %u)\n",
                        v[i].port, 128u << m);
                return;
            }
        }
    }
    CHECK_EQ(A->f->gerrs, 0);

    /*
     * Live QPs at path MTU 4096 (RTS, with work posted; RTR) and 2048
     * (RTS), one in INIT: the port goes to 4191.
     */
    t_teardown();
    t_setup();
    CHECK_EQ(t_create_cq(A, &cq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 6, 0, 1), ROCX_AQ_STS_OK);
    for (i = 0; i < 3; i++) {
        TQp b;

        CHECK_EQ(t_create_qp(A, &q[i], &cq, &cq, 4, 4, 0), ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(B, &b, &bcq, &bcq, 4, 4, 0), ROCX_AQ_STS_OK);
        t_conn_default(&conn);
        conn.mtu = i == 1 ? 4 : 5;
        if (i < 2) {
            t_connect(&q[i], &b, &conn);
        } else {
            CHECK_EQ(t_to_state(&q[i], ROCX_QPS_INIT), ROCX_AQ_STS_OK);
            CHECK_EQ(qp_rtr(&q[i], &b, 5), ROCX_AQ_STS_OK);
        }
    }
    CHECK_EQ(t_create_qp(A, &qp, &cq, &cq, 4, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_INIT), ROCX_AQ_STS_OK);
    t_post_recv(&q[0], &s, 1);
    t_ring_rq(&q[0]);
    /* Exactly 4096 + 96: still fits. */
    CHECK_EQ(t_set_port_mtu(A, 4192), ROCX_AQ_STS_OK);
    t_pump();
    CHECK(!t_eq_next(A, 0));
    CHECK_EQ(t_set_port_mtu(A, 4191), ROCX_AQ_STS_OK);
    t_pump();
    while ((ev = t_eq_next(A, 0))) {
        CHECK_EQ(le16toh(ev->type), ROCX_EQE_QP_ERROR);
        CHECK_EQ(le64toh(ev->info), ROCX_VERR_PATH_MTU);
        CHECK(le32toh(ev->data) == q[0].qpn || le32toh(ev->data) == q[2].qpn);
        errs++;
    }
    CHECK_EQ(errs, 2);
    CHECK_EQ(qp_state_of(&q[0]), ROCX_QPS_ERR);
    CHECK_EQ(qp_state_of(&q[1]), ROCX_QPS_RTS);
    CHECK_EQ(qp_state_of(&q[2]), ROCX_QPS_ERR);
    CHECK_EQ(qp_state_of(&qp), ROCX_QPS_INIT);
    /* The receive posted to the QP that failed is flushed. */
    CHECK(t_poll(&cq, &e));
    CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_WR_FLUSH_ERR);
    CHECK(!t_poll(&cq, &e));
    /* A higher MTU later brings nothing back, and changes nothing. */
    CHECK_EQ(t_set_port_mtu(A, ROCX_MAX_MTU), ROCX_AQ_STS_OK);
    t_pump();
    CHECK(!t_eq_next(A, 0));
    CHECK_EQ(qp_state_of(&q[0]), ROCX_QPS_ERR);
    CHECK_EQ(qp_state_of(&q[1]), ROCX_QPS_RTS);
}

/*
 * Object numbers (rocx-device.rst, "Object numbers"): a packet still on
 * its way for a destroyed object must not reach the next one in its slot,
 * so numbers do not repeat soon.  A
 * number is slot | generation << 10, slots come next-fit, and a slot's
 * generation moves on each time it is handed out.  So after qpn 2 is
 * destroyed the next QP is 3, not 2; once the cursor has gone round the
 * 1024 slots, slots 0 and 1 (whose generation-0 numbers are the special
 * QPs 0 and 1, never given) come as 0x400 and 0x401, and slot 2 as 0x402.
 * A busy slot is skipped, a full table answers NO_RESOURCE, and the
 * number of a destroyed QP or CQ names nothing: its doorbells are
 * DB_QUEUE, its commands NOT_FOUND.
 */
static void t_qpn_rotate(void)
{
    TCq cq;
    uint64_t buf = t_alloc(A, T_PAGE, T_PAGE);
    uint32_t qpn, live, n, first = 0;

    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_idle_qp(A, &cq, buf, &qpn), ROCX_AQ_STS_OK);
    CHECK_EQ(qpn, 2);
    CHECK_EQ(t_destroy_qpn(A, 2), ROCX_AQ_STS_OK);
    /* Not 2 again; this one stays, and the cursor passes it by. */
    CHECK_EQ(t_create_idle_qp(A, &cq, buf, &live), ROCX_AQ_STS_OK);
    CHECK_EQ(live, 3);
    CHECK_EQ(t_qp_churn(A, &cq, buf, 1), 4);
    /* qpn 2 is dead: no commands, no doorbells. */
    CHECK_EQ(t_destroy_qpn(A, 2), ROCX_AQ_STS_NOT_FOUND);
    gmark = A->f->gerrs;
    t_db(A, 0, ROCX_DB_SQ, 2, 1, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    t_db(A, 0, ROCX_DB_RQ, 2, 1, 0);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    /* Round the table: 5..1023, then slots 0 and 1 at generation 1. */
    CHECK_EQ(t_qp_churn(A, &cq, buf, 1023 - 5 + 1), 1023);
    CHECK_EQ(t_qp_churn(A, &cq, buf, 1), 0x400);
    CHECK_EQ(t_qp_churn(A, &cq, buf, 1), 0x401);
    CHECK_EQ(t_qp_churn(A, &cq, buf, 1), 0x402);
    CHECK_EQ(t_qp_churn(A, &cq, buf, 1), 0x404);     /* slot 3 is live */
    CHECK_EQ(t_qp_churn(A, &cq, buf, 1), 0x405);
    /* The old number of a reused slot is still nothing. */
    CHECK_EQ(t_destroy_qpn(A, 4), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(t_destroy_qpn(A, 0x1000000 | live), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(t_destroy_qpn(A, live), ROCX_AQ_STS_OK);

    /* Fill the table from slot 6 round to 5, then NO_RESOURCE. */
    for (n = 0; n < ROCX_CORE_MAX_QP; n++) {
        CHECK_EQ(t_create_idle_qp(A, &cq, buf, &qpn), ROCX_AQ_STS_OK);
        if (n == 0) {
            first = qpn;
        }
        CHECK(qpn > 1 && qpn < ROCX_QPN_MULTICAST);
    }
    CHECK_EQ(first, 0x406);
    CHECK_EQ(qpn, 0x805);
    CHECK_EQ(t_create_idle_qp(A, &cq, buf, &n), ROCX_AQ_STS_NO_RESOURCE);
    /* One freed in the middle is the only one left, at a new number. */
    CHECK_EQ(t_destroy_qpn(A, 0x800 | 300), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(t_destroy_qpn(A, 0x400 | 300), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_idle_qp(A, &cq, buf, &qpn), ROCX_AQ_STS_OK);
    CHECK_EQ(qpn, 0x800 | 300);
    CHECK_EQ(A->f->gerrs, gmark);
}

/*
 * The 24-bit space wraps: with every slot busy but 1023, churning gives
 * 1023 | g << 10 for each generation g in turn, never 0xffffff (slot
 * 1023, generation 0x3fff: the multicast qpn), and the first number
 * comes back after the 2^14 - 1 others.
 */
static void t_qpn_wrap(void)
{
    TCq cq;
    uint64_t buf = t_alloc(A, T_PAGE, T_PAGE);
    uint32_t qpn, first = 0, want, n;

    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    for (n = 0; n < ROCX_CORE_MAX_QP; n++) {
        CHECK_EQ(t_create_idle_qp(A, &cq, buf, &qpn), ROCX_AQ_STS_OK);
    }
    /* Slots 2..1023, then 0 and 1: slot 1023 was handed out once. */
    CHECK_EQ(t_destroy_qpn(A, 1023), ROCX_AQ_STS_OK);
    want = 1023 | 1 << 10;
    for (n = 0; n < (1u << 14); n++) {
        qpn = t_qp_churn(A, &cq, buf, 1);
        if (qpn != want) {
            CHECK_EQ(qpn, want);
            break;
        }
        if (n == 0) {
            first = qpn;
        }
        want = 1023 | ((qpn >> 10) + 1) << 10;
        if (want == ROCX_QPN_MULTICAST) {
            want = 1023;        /* generation 0x3fff skipped: back to 0 */
        }
    }
    /* 2^14 - 1 distinct numbers, then the first again. */
    CHECK_EQ(qpn, first);
}

/* CQ numbers alike: cqn 1 first, next-fit, a dead cqn finds nothing. */
static void t_cqn_rotate(void)
{
    TCq cq, cq2;
    uint32_t cqn, n;
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);

    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(cq.cqn, 1);
    cqn = cq.cqn;
    ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(cqn);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &cq2, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(cq2.cqn, 2);
    gmark = A->f->gerrs;
    t_db(A, 0, ROCX_DB_CQ, cqn, 0, ROCX_DB_ARM);
    CHECK_GERR(A, ROCX_GERR_DB_QUEUE);
    /* Round the table with one CQ's ring: slot 0 comes as 0x400. */
    for (n = 3; n < ROCX_CORE_MAX_CQ + 2; n++) {
        ((struct rocx_aq_destroy_cq *)&c)->cqn = htole32(cq2.cqn);
        CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
        c = t_cmd(ROCX_AQ_OP_CREATE_CQ);
        ((struct rocx_aq_create_cq *)&c)->log_depth = 4;
        ((struct rocx_aq_create_cq *)&c)->eqn = 1;
        ((struct rocx_aq_create_cq *)&c)->pbl = t_pbl(A, cq2.ring, T_PAGE,
                                                      12, 0);
        CHECK_EQ(t_aq(A, &c, &cq2.cqn), ROCX_AQ_STS_OK);
        CHECK_EQ(cq2.cqn, n < ROCX_CORE_MAX_CQ ? n :
                 (n - ROCX_CORE_MAX_CQ) | 1u << 10);
        c = t_cmd(ROCX_AQ_OP_DESTROY_CQ);
    }
    CHECK_EQ(cq2.cqn, 0x401);
    /* Its CQEs and events work under the whole number. */
    {
        TLoop l;
        TConn conn;
        struct rocx_cqe e;
        uint64_t buf = t_alloc(A, 16 * T_PAGE, T_PAGE);

        l.scq = l.rcq = cq2;
        CHECK_EQ(t_create_qp(A, &l.qa, &l.rcq, &l.rcq, 6, 6, 0),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(A, &l.qb, &l.rcq, &l.rcq, 6, 6, 0),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(t_reg_mr(A, &l.mr, buf, 16 * T_PAGE,
                          ROCX_ACCESS_LOCAL_WRITE), ROCX_AQ_STS_OK);
        t_conn_default(&conn);
        t_connect(&l.qa, &l.qb, &conn);
        t_cq_arm(&l.rcq, ROCX_DB_ARM);
        fake_run(A->f);
        loop_send(&l, ROCX_WQE_SIGNALED);
        CHECK_EQ(count_eqes(A, 1, ROCX_EQE_COMPLETION, 0x401), 1);
        CHECK(t_poll(&l.rcq, &e));
        CHECK(t_poll(&l.rcq, &e));
        CHECK(!t_poll(&l.rcq, &e));
    }
    CHECK_EQ(A->f->gerrs, gmark);
}

/* CREATE_CQ with cqe_format 1 (a 64-byte ring); returns the status. */
static unsigned create_cq64(TDev *d, TCq *cq, unsigned ld, uint64_t ring,
                            uint16_t format, uint64_t ring_len)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_CQ);
    struct rocx_aq_create_cq *cc = (void *)&c;

    memset(cq, 0, sizeof(*cq));
    cq->d = d;
    cq->ld = ld;
    cq->ring = ring;
    cc->log_depth = ld;
    cc->eqn = 1;
    cc->cqe_format = htole16(format);
    cc->pbl = t_pbl(d, ring, ring_len, 12, -1);
    return t_aq(d, &c, &cq->cqn);
}

/* The next 64-byte entry of cq, returned to the device, or NULL. */
static struct rocx_cqe64 *poll64(TCq *cq)
{
    struct rocx_cqe64 *e = t_ptr(cq->d, cq->ring +
                                 (cq->ci & ((1u << cq->ld) - 1)) * 64, 64);
    uint8_t phase = (cq->ci >> cq->ld) & 1 ? 0 : ROCX_CQE_PHASE;

    if ((e->cqe.flags & ROCX_CQE_PHASE) != phase) {
        return NULL;
    }
    cq->ci++;
    t_db(cq->d, 0, ROCX_DB_CQ, cq->cqn, cq->ci, 0);
    return e;
}

/*
 * CQE format 1: only the formats IDENTIFY names, a ring of 64-byte
 * entries (the 1.1 entry, then the device clock when it was written) with
 * the phase rule across wraps, and format 0 CQs beside it unchanged.
 */
static void t_cq_format64(void)
{
    uint64_t ring = t_alloc(A, 2 * T_PAGE, T_PAGE);
    uint64_t abuf = t_alloc(A, T_PAGE, T_PAGE);
    uint64_t bbuf = t_alloc(B, T_PAGE, T_PAGE);
    uint64_t last = 0, sent_at, now;
    struct rocx_cqe64 *e;
    struct rocx_sge sa, sb;
    TCq acq, bcq, bad;
    TQp qa, qb;
    TMr amr, bmr;
    TConn conn;
    unsigned i;

    /* Formats the device does not have, and a ring too small for 64 B. */
    CHECK_EQ(create_cq64(A, &bad, 4, ring, 2, T_PAGE), ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_cq64(A, &bad, 4, ring, 0xffff, T_PAGE),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_cq64(A, &bad, 7, ring, 1, T_PAGE), ROCX_AQ_STS_INVALID);
    /* 2^6 entries of 64 B: one page. */
    CHECK_EQ(create_cq64(A, &acq, 6, ring, 1, T_PAGE), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qa, &acq, &acq, 4, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &qb, &bcq, &bcq, 4, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &amr, abuf, T_PAGE, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &bmr, bbuf, T_PAGE, ROCX_ACCESS_LOCAL_WRITE |
                      ROCX_ACCESS_REMOTE_WRITE), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&qa, &qb, &conn);
    sa = t_sge(&amr, 0, 100);
    sb = t_sge(&bmr, 0, 100);

    /* 100 WQEs: the 64-entry ring wraps; timestamps follow the clock. */
    for (i = 0; i < 100; i++) {
        fake_advance(A->f, 1000 + i);
        sent_at = rocx_clock_ns(&A->f->core);
        if (i % 2) {
            t_post_recv(&qa, &sa, 1);
            t_ring_rq(&qa);
            t_post_send(&qb, ROCX_WQE_SEND_IMM, ROCX_WQE_SIGNALED, &sb, 1,
                        0, 0, 0x1000 + i);
            t_ring_sq(&qb);
        } else {
            t_post_send(&qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sa, 1,
                        bmr.iova, bmr.key, 0);
            t_ring_sq(&qa);
        }
        t_pump();
        /* B's SEND completes at B; A's WRITE makes no CQE there. */
        CHECK_EQ(t_poll(&bcq, NULL), i % 2);
        e = poll64(&acq);
        CHECK(e != NULL);
        if (!e) {
            return;
        }
        now = rocx_clock_ns(&A->f->core);
        CHECK_EQ(le32toh(e->cqe.qpn_op) & 0xffffff, qa.qpn);
        CHECK_EQ(le32toh(e->cqe.src_qp_status) >> 24, ROCX_WC_SUCCESS);
        if (i % 2) {
            CHECK(e->cqe.flags & ROCX_CQE_RECV);
            CHECK(e->cqe.flags & ROCX_CQE_WITH_IMM);
            CHECK_EQ(be32toh(e->cqe.imm_data), 0x1000 + i);
            CHECK_EQ(le32toh(e->cqe.byte_len), 100);
        } else {
            CHECK_EQ(le32toh(e->cqe.qpn_op) >> 24, ROCX_CQE_OP_RDMA_WRITE);
        }
        CHECK(le64toh(e->timestamp) >= sent_at);
        CHECK(le64toh(e->timestamp) <= now);
        CHECK(le64toh(e->timestamp) > last);
        last = le64toh(e->timestamp);
        CHECK(!memcmp(e->rsvd, (uint8_t[24]){ 0 }, 24));
        CHECK(!poll64(&acq));
    }
    /* Every one of them was polled, across the wrap. */
    CHECK_EQ(acq.ci, 100);
}

const TCase t_cases_obj[] = {
    T_CASE(mr_keys),
    T_CASE(mr_levels_and_limits),
    T_CASE(mr_checks),
    T_CASE(cq_create_destroy),
    T_CASE(cq_arming),
    T_CASE(cq_doorbell_errors),
    T_CASE(cq_overflow),
    T_CASE(cq_format64),
    T_CASE(eq0_event_storm),
    T_CASE(qp_create_errors),
    T_CASE(qp_state_machine),
    T_CASE(qp_path_mtu),
    T_CASE(qp_flush),
    T_CASE(qp_reset_to_err),
    T_CASE(qp_destroy_stops_dma),
    T_CASE(reset_frees_objects),
    T_CASE(qpn_rotate),
    T_CASE(qpn_wrap),
    T_CASE(cqn_rotate),
};
const unsigned t_ncases_obj = ARRAY_SIZE(t_cases_obj);
