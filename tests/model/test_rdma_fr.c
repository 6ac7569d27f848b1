/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fast registration (contract 1.2, ROCX_CAP2_FAST_REG): ALLOC_MR and its
 * errors, REG_MR work requests (use, invalidation, re-registration with a
 * new variant), the page list read when the WQE executes, every error
 * status of REG_MR and LOCAL_INV, SEND with invalidate of a fast-register
 * MR, the local DMA lkey and DMA MRs.
 */
#include "rdma.h"

#define FR_PAGES    4
#define FR_BUF      (FR_PAGES * T_PAGE)

typedef struct TFrPair {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr;
    uint64_t abuf;
    uint64_t bpage[FR_PAGES];   /* B's pages, not contiguous */
    uint64_t blist;             /* B's page list: one table page */
    uint32_t key;               /* B's fast-register MR, as allocated */
} TFrPair;

static uint8_t st(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static uint8_t op(const struct rocx_cqe *e)
{
    return le32toh(e->qpn_op) >> 24;
}

static uint32_t inc_key(uint32_t key)
{
    return (key & ~0xffu) | ((key + 1) & 0xff);
}

static unsigned alloc_mr(TDev *d, uint32_t pdn, uint8_t type,
                         uint32_t max_pages, uint32_t access, uint32_t *key)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_ALLOC_MR);
    struct rocx_aq_alloc_mr *a = (void *)&c;

    a->pdn = htole32(pdn);
    a->type = type;
    a->max_pages = htole32(max_pages);
    a->access = htole32(access);
    return t_aq(d, &c, key);
}

static unsigned new_pd(TDev *d, uint32_t uctx, uint32_t *pdn)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_PD);

    c.pd.uctx = htole32(uctx);
    return t_aq(d, &c, pdn);
}

/*
 * A on device A, B on device B, connected; B has a fast-register MR of
 * FR_PAGES pages and FR_PAGES pages of its own, allocated apart so that
 * only the page list makes them one range.
 */
static void fr_pair(TFrPair *p)
{
    TConn conn;
    unsigned i;

    memset(p, 0, sizeof(*p));
    t_rc_qps(&p->acq, &p->bcq, &p->qa, &p->qb);
    p->abuf = t_alloc(A, FR_BUF, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &p->amr, p->abuf, FR_BUF, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    for (i = 0; i < FR_PAGES; i++) {
        p->bpage[i] = t_alloc(B, T_PAGE, T_PAGE);
        t_alloc(B, T_PAGE, T_PAGE);     /* a hole after each */
    }
    p->blist = t_alloc(B, T_PAGE, T_PAGE);
    CHECK_EQ(alloc_mr(B, B->pdn, ROCX_MR_TYPE_FAST_REG, FR_PAGES, 0,
                      &p->key), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&p->qa, &p->qb, &conn);
}

/* Write page addresses of B into the page list, in the order given. */
static void set_list(TFrPair *p, const uint64_t *pages, unsigned n)
{
    uint64_t *e = t_ptr(B, p->blist, T_PAGE);
    unsigned i;

    for (i = 0; i < n; i++) {
        e[i] = htole64(T_GPA(pages[i]));
    }
}

/* Post (not ring) a REG_MR on qp: a level 1 list of npages at list. */
static struct rocx_send_wqe *post_reg(TQp *qp, uint32_t key, uint32_t access,
                                      uint64_t iova, uint64_t len,
                                      uint64_t list, uint32_t npages,
                                      uint16_t *idxp)
{
    uint16_t idx = t_post_send(qp, ROCX_WQE_REG_MR, ROCX_WQE_SIGNALED, NULL,
                               0, 0, 0, 0);
    struct rocx_send_wqe *w = t_sq_slot(qp, idx);

    memset(&w->reg_mr, 0, sizeof(w->reg_mr));
    w->reg_mr.key = htole32(key);
    w->reg_mr.access = htole32(access);
    w->reg_mr.iova = htole64(iova);
    w->reg_mr.length = htole64(len);
    w->reg_mr.pbl.addr = htole64(T_GPA(list));
    w->reg_mr.pbl.npages = htole32(npages);
    w->reg_mr.pbl.page_shift = 12;
    w->reg_mr.pbl.levels = 1;
    if (idxp) {
        *idxp = idx;
    }
    return w;
}

/* Ring and complete the WQEs posted: the last completion's status. */
static uint8_t run_local(TQp *qp, TCq *cq, uint8_t want_op, uint8_t *verr)
{
    struct rocx_cqe e;

    t_ring_sq(qp);
    t_pump();
    if (!t_poll(cq, &e)) {
        CHECK(!"no completion");
        return 0xff;
    }
    if (st(&e) == ROCX_WC_SUCCESS) {
        CHECK_EQ(op(&e), want_op);
        CHECK_EQ(le32toh(e.byte_len), 0);
    }
    if (verr) {
        *verr = e.vendor_err;
    }
    return st(&e);
}

static uint8_t do_reg(TQp *qp, TCq *cq, uint32_t key, uint32_t access,
                      uint64_t iova, uint64_t len, uint64_t list,
                      uint32_t npages)
{
    post_reg(qp, key, access, iova, len, list, npages, NULL);
    return run_local(qp, cq, ROCX_CQE_OP_REG_MR, NULL);
}

static uint8_t do_inv(TQp *qp, TCq *cq, uint32_t key, uint8_t *verr)
{
    t_post_send(qp, ROCX_WQE_LOCAL_INV, ROCX_WQE_SIGNALED, NULL, 0, 0, 0,
                key);
    return run_local(qp, cq, ROCX_CQE_OP_LOCAL_INV, verr);
}

/* A's RDMA WRITE or READ of len bytes at B's va through rkey. */
static uint8_t rdma_op(TFrPair *p, uint8_t opcode, uint64_t va,
                       uint32_t rkey, uint32_t len)
{
    struct rocx_sge s = t_sge(&p->amr, 0, len);
    struct rocx_cqe e;

    t_post_send(&p->qa, opcode, ROCX_WQE_SIGNALED, &s, 1, va, rkey, 0);
    t_ring_sq(&p->qa);
    t_settle(1000 * 1000 * 1000LL);
    if (!t_poll(&p->acq, &e)) {
        CHECK(!"no completion");
        return 0xff;
    }
    return st(&e);
}

/* Whether the remote access check passes for key at va on B. */
static bool b_key_ok(TFrPair *p, uint32_t key, uint64_t va, uint64_t len)
{
    return !rocx_rkey_check(&B->f->core, rocx_qp_get(&B->f->core, p->qb.qpn),
                            key, va, len, ROCX_ACCESS_REMOTE_WRITE, NULL);
}

static const uint32_t fr_rw = ROCX_ACCESS_LOCAL_WRITE |
                              ROCX_ACCESS_REMOTE_WRITE |
                              ROCX_ACCESS_REMOTE_READ;

static void t_fr_alloc(void)
{
    RocxCore *c = &A->f->core;
    uint32_t k1, k2, k, pd2, upd, uctx, entries;
    union rocx_aq_cmd cmd;

    entries = c->rdma.pbl_entries;
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_FAST_REG, 512, 0, &k1),
             ROCX_AQ_STS_OK);
    /* Its page-list room is reserved at once. */
    CHECK_EQ(c->rdma.pbl_entries, entries + 512);
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_FAST_REG, 1, 0, &k2),
             ROCX_AQ_STS_OK);
    CHECK(ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, k1) !=
          ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, k2));
    CHECK(ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, k1) < ROCX_CORE_MR_SLOTS);
    /* Free: no key reaches it, not even its own. */
    CHECK(rocx_mr_lookup(c, k1) == NULL);
    CHECK_EQ(rocx_mr_check(c, k1, A->pdn, 0, 0, 0, NULL), ROCX_VERR_BAD_LKEY);

    /* Errors. */
    CHECK_EQ(alloc_mr(A, 0, ROCX_MR_TYPE_FAST_REG, 8, 0, &k),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mr(A, 99, ROCX_MR_TYPE_FAST_REG, 8, 0, &k),
             ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_FAST_REG, 0, 0, &k),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_FAST_REG, 513, 0, &k),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_FAST_REG, 8,
                      ROCX_ACCESS_LOCAL_WRITE, &k), ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mr(A, A->pdn, 2, 8, 0, &k), ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_DMA, 8,
                      ROCX_ACCESS_LOCAL_WRITE, &k), ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_DMA, 0,
                      ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND, &k),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_DMA, 0,
                      ROCX_ACCESS_REMOTE_WRITE, &k), ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_DMA, 0, 1u << 7, &k),
             ROCX_AQ_STS_INVALID);
    cmd = t_cmd(ROCX_AQ_OP_ALLOC_MR);
    ((struct rocx_aq_alloc_mr *)&cmd)->pdn = htole32(A->pdn);
    ((struct rocx_aq_alloc_mr *)&cmd)->max_pages = htole32(8);
    ((struct rocx_aq_alloc_mr *)&cmd)->rsvd1[39] = 1;
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_INVALID);
    ((struct rocx_aq_alloc_mr *)&cmd)->rsvd1[39] = 0;
    ((struct rocx_aq_alloc_mr *)&cmd)->rsvd0[1] = 1;
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_INVALID);
    /* A DMA MR never for a user context's PD; a fast-register MR may. */
    cmd = t_cmd(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(t_aq(A, &cmd, &uctx), ROCX_AQ_STS_OK);
    CHECK_EQ(new_pd(A, uctx, &upd), ROCX_AQ_STS_OK);
    CHECK_EQ(alloc_mr(A, upd, ROCX_MR_TYPE_DMA, 0, ROCX_ACCESS_LOCAL_WRITE,
                      &k), ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mr(A, upd, ROCX_MR_TYPE_FAST_REG, 4, 0, &k),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_dereg_mr(A, k), ROCX_AQ_STS_OK);

    /* REREG_MR of either kind is refused. */
    cmd = t_cmd(ROCX_AQ_OP_REREG_MR);
    ((struct rocx_aq_rereg_mr *)&cmd)->key = htole32(k1);
    ((struct rocx_aq_rereg_mr *)&cmd)->valid = htole32(ROCX_REREG_ACCESS);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_INVALID);

    /* A PD with a fast-register MR stays. */
    CHECK_EQ(new_pd(A, 0, &pd2), ROCX_AQ_STS_OK);
    CHECK_EQ(alloc_mr(A, pd2, ROCX_MR_TYPE_FAST_REG, 4, 0, &k),
             ROCX_AQ_STS_OK);
    cmd = t_cmd(ROCX_AQ_OP_DESTROY_PD);
    cmd.pd.pdn = htole32(pd2);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_BAD_STATE);
    /* DEREG_MR by the index, whatever the variant. */
    CHECK_EQ(t_dereg_mr(A, inc_key(inc_key(k))), ROCX_AQ_STS_OK);
    CHECK_EQ(t_dereg_mr(A, k), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_OK);

    CHECK_EQ(t_dereg_mr(A, k1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_dereg_mr(A, k2), ROCX_AQ_STS_OK);
    CHECK_EQ(c->rdma.pbl_entries, entries);
    /* The slot comes back with a fresh variant. */
    CHECK_EQ(alloc_mr(A, A->pdn, ROCX_MR_TYPE_FAST_REG, 8, 0, &k),
             ROCX_AQ_STS_OK);
    CHECK_EQ(ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, k),
             ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, k1));
    CHECK(k != k1);
}

/*
 * Register B's scattered pages as one range, write and read it from A
 * through the new key, byte for byte where the page list puts them; the
 * allocated key, and the new one after LOCAL_INV, fail.
 */
static void t_fr_register_use_invalidate(void)
{
    const uint64_t iova = 0x7f0000001000ULL + 0x200;
    const uint32_t len = 3 * T_PAGE;
    uint64_t order[FR_PAGES];
    TFrPair p;
    uint32_t key;
    uint8_t *a, verr;
    unsigned i;

    fr_pair(&p);
    key = inc_key(p.key);
    /* Pages 3, 1, 0, 2 of B, in that order. */
    order[0] = p.bpage[3];
    order[1] = p.bpage[1];
    order[2] = p.bpage[0];
    order[3] = p.bpage[2];
    set_list(&p, order, FR_PAGES);
    CHECK_EQ(do_reg(&p.qb, &p.bcq, key, fr_rw, iova, len, p.blist, FR_PAGES),
             ROCX_WC_SUCCESS);
    CHECK(b_key_ok(&p, key, iova, len));
    CHECK(!b_key_ok(&p, p.key, iova, len));
    CHECK(!b_key_ok(&p, key, iova - 1, 1));
    CHECK(!b_key_ok(&p, key, iova, len + 1));

    a = t_ptr(A, p.abuf, len);
    t_fill(a, len, 7);
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, iova, key, len),
             ROCX_WC_SUCCESS);
    /* iova's byte 0 is at offset 0x200 of the first page of the list. */
    for (i = 0; i < len; i++) {
        uint64_t o = 0x200 + i;

        if (*(uint8_t *)t_ptr(B, order[o / T_PAGE] + o % T_PAGE, 1) != a[i]) {
            CHECK(!"written byte misplaced");
            break;
        }
    }
    memset(a, 0, len);
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_READ, iova + 100, key, len - 100),
             ROCX_WC_SUCCESS);
    for (i = 0; i < len - 100; i++) {
        uint64_t o = 0x200 + 100 + i;

        if (*(uint8_t *)t_ptr(B, order[o / T_PAGE] + o % T_PAGE, 1) != a[i]) {
            CHECK(!"read byte wrong");
            break;
        }
    }

    /* Invalidated: the key stops at the next packet. */
    CHECK_EQ(do_inv(&p.qb, &p.bcq, key, &verr), ROCX_WC_SUCCESS);
    CHECK(!b_key_ok(&p, key, iova, 1));
    /* Again: an MR that is free stays free, and that is no error. */
    CHECK_EQ(do_inv(&p.qb, &p.bcq, key, &verr), ROCX_WC_SUCCESS);
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, iova, key, 64),
             ROCX_WC_REM_ACCESS_ERR);
}

/*
 * B WRITEs to A from its fast-register MR, then invalidates that MR's
 * key.  The WRITE's first packet is lost: its retransmission still reads
 * through the key, because LOCAL_INV waits until every WQE before it has
 * completed (rocx-device.rst, "LOCAL_INV").  Both complete successfully,
 * in order, and the key is invalid only afterwards.
 */
static void t_fr_inv_waits_for_write(void)
{
    const uint64_t iova = 0x7f0000004000ULL;
    const uint32_t len = 3 * T_PAGE;
    struct rocx_sge sge;
    struct rocx_cqe e;
    TFrPair p;
    TMr dst;
    uint64_t dbuf;
    uint32_t key;
    unsigned i;

    fr_pair(&p);
    key = inc_key(p.key);
    set_list(&p, p.bpage, FR_PAGES);
    CHECK_EQ(do_reg(&p.qb, &p.bcq, key, fr_rw, iova, len, p.blist, FR_PAGES),
             ROCX_WC_SUCCESS);
    for (i = 0; i < 3; i++) {
        t_fill(t_ptr(B, p.bpage[i], T_PAGE), T_PAGE, 40 + i);
    }
    dbuf = t_alloc(A, len, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &dst, dbuf, len, fr_rw), ROCX_AQ_STS_OK);

    sge.addr = htole64(iova);
    sge.length = htole32(len);
    sge.lkey = htole32(key);
    t_post_send(&p.qb, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                dst.iova, dst.key, 0);
    t_post_send(&p.qb, ROCX_WQE_LOCAL_INV, ROCX_WQE_SIGNALED, NULL, 0, 0, 0,
                key);
    wire.drop_nth = wire.sent + 1;
    t_ring_sq(&p.qb);
    t_settle(2000LL * 1000 * 1000);
    CHECK_EQ(wire.dropped, 1);
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(op(&e), ROCX_CQE_OP_RDMA_WRITE);
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(op(&e), ROCX_CQE_OP_LOCAL_INV);
    for (i = 0; i < 3; i++) {
        CHECK(!memcmp(t_ptr(A, dbuf + i * T_PAGE, T_PAGE),
                      t_ptr(B, p.bpage[i], T_PAGE), T_PAGE));
    }
    CHECK(rocx_mr_check(&B->f->core, key, B->pdn, iova, len,
                        ROCX_ACCESS_LOCAL_WRITE, NULL));
    CHECK(B->f->core.rdma.stats.retransmits > 0);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* The allocated key (a stale variant) never reaches the registered MR. */
static void t_fr_old_key_fails(void)
{
    TFrPair p;
    uint8_t *b;

    fr_pair(&p);
    set_list(&p, p.bpage, FR_PAGES);
    CHECK_EQ(do_reg(&p.qb, &p.bcq, inc_key(p.key), fr_rw, 0x10000, FR_BUF,
                    p.blist, FR_PAGES), ROCX_WC_SUCCESS);
    b = t_ptr(B, p.bpage[0], 64);
    memset(b, 0xee, 64);
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, 0x10000, p.key, 64),
             ROCX_WC_REM_ACCESS_ERR);
    CHECK_EQ(b[0], 0xee);
    CHECK_EQ(b[63], 0xee);
}

/*
 * Invalidate and register again with the next variant over other pages:
 * the new key reaches the new pages only, the previous key nothing.
 */
static void t_fr_reregister_new_variant(void)
{
    TFrPair p;
    uint32_t k1, k2;
    uint64_t two[2];
    uint8_t *a;

    fr_pair(&p);
    k1 = inc_key(p.key);
    set_list(&p, p.bpage, 2);
    CHECK_EQ(do_reg(&p.qb, &p.bcq, k1, fr_rw, 0x20000, 2 * T_PAGE, p.blist,
                    2), ROCX_WC_SUCCESS);
    CHECK_EQ(do_inv(&p.qb, &p.bcq, k1, NULL), ROCX_WC_SUCCESS);
    k2 = inc_key(k1);
    two[0] = p.bpage[3];
    two[1] = p.bpage[2];
    set_list(&p, two, 2);
    CHECK_EQ(do_reg(&p.qb, &p.bcq, k2, fr_rw, 0x20000, 2 * T_PAGE, p.blist,
                    2), ROCX_WC_SUCCESS);
    CHECK(!b_key_ok(&p, k1, 0x20000, 1));
    CHECK(b_key_ok(&p, k2, 0x20000, 2 * T_PAGE));

    a = t_ptr(A, p.abuf, 2 * T_PAGE);
    t_fill(a, 2 * T_PAGE, 11);
    memset(t_ptr(B, p.bpage[0], T_PAGE), 0, T_PAGE);
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, 0x20000, k2, 2 * T_PAGE),
             ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, p.bpage[3], T_PAGE), a, T_PAGE));
    CHECK(!memcmp(t_ptr(B, p.bpage[2], T_PAGE), a + T_PAGE, T_PAGE));
    /* The first registration's pages got nothing. */
    CHECK_EQ(*(uint8_t *)t_ptr(B, p.bpage[0], 1), 0);
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, 0x20000, k1, 64),
             ROCX_WC_REM_ACCESS_ERR);
}

/*
 * The page list is read when the WQE executes: one changed after the
 * WQE was written, before the doorbell, is the one that counts.
 */
static void t_fr_list_read_at_execution(void)
{
    TFrPair p;
    uint32_t key;
    uint8_t *a;

    fr_pair(&p);
    key = inc_key(p.key);
    set_list(&p, &p.bpage[0], 1);
    post_reg(&p.qb, key, fr_rw, 0x30000, T_PAGE, p.blist, 1, NULL);
    /* ALLOC_MR and the post read nothing yet: change the list now. */
    set_list(&p, &p.bpage[1], 1);
    CHECK_EQ(run_local(&p.qb, &p.bcq, ROCX_CQE_OP_REG_MR, NULL),
             ROCX_WC_SUCCESS);
    /* Executed: rewriting the list now changes nothing. */
    set_list(&p, &p.bpage[2], 1);

    a = t_ptr(A, p.abuf, T_PAGE);
    t_fill(a, T_PAGE, 5);
    memset(t_ptr(B, p.bpage[0], T_PAGE), 0, T_PAGE);
    memset(t_ptr(B, p.bpage[2], T_PAGE), 0, T_PAGE);
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, 0x30000, key, T_PAGE),
             ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, p.bpage[1], T_PAGE), a, T_PAGE));
    CHECK_EQ(*(uint8_t *)t_ptr(B, p.bpage[0], 1), 0);
    CHECK_EQ(*(uint8_t *)t_ptr(B, p.bpage[2], 1), 0);
}

/* A QP of B's (loopback pair) for one error: it ends in ERR. */
typedef struct TFrLoop {
    TCq cq;
    TQp q1, q2;
} TFrLoop;

static void fr_loop(TFrLoop *l, TDev *d)
{
    TConn conn;

    memset(l, 0, sizeof(*l));
    CHECK_EQ(t_create_cq(d, &l->cq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(d, &l->q1, &l->cq, &l->cq, 4, 4, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(d, &l->q2, &l->cq, &l->cq, 4, 4, 0),
             ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&l->q1, &l->q2, &conn);
}

/* What a REG_MR WQE that w_fix spoils completes with, on a fresh QP. */
static uint8_t reg_error(TFrPair *p, uint32_t key, uint32_t npages,
                         void (*w_fix)(struct rocx_send_wqe *w),
                         uint8_t *verr)
{
    struct rocx_send_wqe *w;
    struct rocx_qp_attr qa;
    TFrLoop l;
    uint8_t s;

    fr_loop(&l, B);
    w = post_reg(&l.q1, key, fr_rw, 0x40000, T_PAGE, p->blist, npages, NULL);
    if (w_fix) {
        w_fix(w);
    }
    s = run_local(&l.q1, &l.cq, ROCX_CQE_OP_REG_MR, verr);
    /* A WQE that fails moves the QP to ERR. */
    CHECK_EQ(t_query(&l.q1, &qa), ROCX_AQ_STS_OK);
    CHECK_EQ(qa.cur_state, ROCX_QPS_ERR);
    return s;
}

static void fix_rsvd(struct rocx_send_wqe *w)
{
    w->reg_mr.rsvd[7] = 1;
}

static void fix_pbl_rsvd(struct rocx_send_wqe *w)
{
    w->reg_mr.pbl.rsvd = htole16(1);
}

static void fix_shift(struct rocx_send_wqe *w)
{
    w->reg_mr.pbl.page_shift = 11;
}

static void fix_levels(struct rocx_send_wqe *w)
{
    w->reg_mr.pbl.levels = 3;
}

static void fix_npages0(struct rocx_send_wqe *w)
{
    w->reg_mr.pbl.npages = 0;
}

static void fix_access(struct rocx_send_wqe *w)
{
    w->reg_mr.access = htole32(1u << 9);
}

static void fix_rw_no_lw(struct rocx_send_wqe *w)
{
    w->reg_mr.access = htole32(ROCX_ACCESS_REMOTE_WRITE);
}

static void fix_sge(struct rocx_send_wqe *w)
{
    w->ctrl.num_sge = 1;
}

static void fix_imm(struct rocx_send_wqe *w)
{
    w->ctrl.imm_data = htobe32(1);
}

static void fix_list_unaligned(struct rocx_send_wqe *w)
{
    w->reg_mr.pbl.addr = htole64(le64toh(w->reg_mr.pbl.addr) + 4);
}

static void fix_list_gone(struct rocx_send_wqe *w)
{
    w->reg_mr.pbl.addr = htole64(0x100000000000ULL);
}

static void fix_len_pages(struct rocx_send_wqe *w)
{
    w->reg_mr.length = htole64(T_PAGE + 1);
}

static void fix_len_wrap(struct rocx_send_wqe *w)
{
    w->reg_mr.iova = htole64(~0ULL - 10);
}

static void t_fr_reg_errors(void)
{
    static const struct {
        void (*fix)(struct rocx_send_wqe *w);
        uint8_t status, verr;
    } bad[] = {
        { fix_rsvd, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_pbl_rsvd, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_shift, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_levels, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_npages0, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_access, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_rw_no_lw, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_sge, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_imm, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_list_unaligned, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE },
        { fix_list_gone, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_DMA },
        { fix_len_pages, ROCX_WC_LOC_LEN_ERR, ROCX_VERR_LKEY_BOUNDS },
        { fix_len_wrap, ROCX_WC_LOC_LEN_ERR, ROCX_VERR_LKEY_BOUNDS },
    };
    uint32_t key, pd2, k2, list_key;
    uint64_t *e;
    TFrPair p;
    TMr mr;
    uint8_t verr;
    unsigned i;

    fr_pair(&p);
    key = inc_key(p.key);
    set_list(&p, p.bpage, FR_PAGES);
    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        verr = 0;
        CHECK_EQ(reg_error(&p, key, 1, bad[i].fix, &verr), bad[i].status);
        CHECK_EQ(verr, bad[i].verr);
    }
    /* A page list longer than the MR's max_pages. */
    CHECK_EQ(reg_error(&p, key, FR_PAGES + 1, NULL, &verr),
             ROCX_WC_LOC_LEN_ERR);
    CHECK_EQ(verr, ROCX_VERR_LKEY_BOUNDS);
    /* A page not aligned to the list's page size. */
    e = t_ptr(B, p.blist, 8);
    e[0] = htole64(T_GPA(p.bpage[0]) + 512);
    CHECK_EQ(reg_error(&p, key, 1, NULL, &verr), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(verr, ROCX_VERR_BAD_WQE);
    set_list(&p, p.bpage, FR_PAGES);
    /* The index of no fast-register MR: none, a REG_MR region, a window. */
    CHECK_EQ(reg_error(&p, 77 << 8, 1, NULL, &verr), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(verr, ROCX_VERR_BAD_LKEY);
    CHECK_EQ(t_reg_mr(B, &mr, p.blist, T_PAGE, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    list_key = mr.key;
    CHECK_EQ(reg_error(&p, inc_key(list_key), 1, NULL, &verr),
             ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(verr, ROCX_VERR_BAD_LKEY);
    CHECK_EQ(reg_error(&p, ROCX_CORE_MW_KEY_BASE << 8, 1, NULL, &verr),
             ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(verr, ROCX_VERR_BAD_LKEY);
    /* The MR of another PD. */
    CHECK_EQ(new_pd(B, 0, &pd2), ROCX_AQ_STS_OK);
    CHECK_EQ(alloc_mr(B, pd2, ROCX_MR_TYPE_FAST_REG, 4, 0, &k2),
             ROCX_AQ_STS_OK);
    CHECK_EQ(reg_error(&p, inc_key(k2), 1, NULL, &verr),
             ROCX_WC_LOC_PROT_ERR);
    CHECK_EQ(verr, ROCX_VERR_BAD_LKEY);
    /* None of them touched the MR: it is free and registers now. */
    CHECK(!b_key_ok(&p, key, 0x40000, 1));
    CHECK_EQ(do_reg(&p.qb, &p.bcq, key, fr_rw, 0x40000, T_PAGE, p.blist, 1),
             ROCX_WC_SUCCESS);
    /* Not free: registered already (IBTA), and it keeps its key. */
    CHECK_EQ(reg_error(&p, inc_key(key), 1, NULL, &verr),
             ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(verr, ROCX_VERR_MR_STATE);
    CHECK(b_key_ok(&p, key, 0x40000, T_PAGE));
    CHECK(!b_key_ok(&p, inc_key(key), 0x40000, 1));
}

/* LOCAL_INV's errors, each on a fresh QP: status and the MR unchanged. */
static uint8_t inv_error(TDev *d, uint32_t key, uint8_t *verr)
{
    struct rocx_qp_attr qa;
    TFrLoop l;
    uint8_t s;

    fr_loop(&l, d);
    s = do_inv(&l.q1, &l.cq, key, verr);
    CHECK_EQ(t_query(&l.q1, &qa), ROCX_AQ_STS_OK);
    CHECK_EQ(qa.cur_state, s == ROCX_WC_SUCCESS ? ROCX_QPS_RTS :
                                                 ROCX_QPS_ERR);
    return s;
}

static void t_fr_inv_errors(void)
{
    union rocx_aq_cmd cmd;
    uint32_t key, mwk, pd2, k2;
    struct rocx_cqe e;
    TFrPair p;
    TMr mr;
    uint8_t verr;

    fr_pair(&p);
    key = inc_key(p.key);
    set_list(&p, p.bpage, FR_PAGES);
    CHECK_EQ(do_reg(&p.qb, &p.bcq, key, fr_rw | ROCX_ACCESS_MW_BIND, 0x50000,
                    FR_BUF, p.blist, FR_PAGES), ROCX_WC_SUCCESS);
    /* Another variant: refused, the MR stays valid. */
    CHECK_EQ(inv_error(B, inc_key(key), &verr), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(verr, ROCX_VERR_BAD_LKEY);
    CHECK(b_key_ok(&p, key, 0x50000, 1));
    /* A REG_MR region is not invalidated by work requests. */
    CHECK_EQ(t_reg_mr(B, &mr, p.blist, T_PAGE, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    CHECK_EQ(inv_error(B, mr.key, &verr), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(verr, ROCX_VERR_BAD_MW);
    CHECK(rocx_mr_lookup(&B->f->core, mr.key) != NULL);
    /* The MR of another PD than the QP's. */
    CHECK_EQ(new_pd(B, 0, &pd2), ROCX_AQ_STS_OK);
    CHECK_EQ(alloc_mr(B, pd2, ROCX_MR_TYPE_FAST_REG, 4, 0, &k2),
             ROCX_AQ_STS_OK);
    CHECK_EQ(inv_error(B, k2, &verr), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(verr, ROCX_VERR_BAD_LKEY);
    /* With a window bound to it: refused until the window goes. */
    cmd = t_cmd(ROCX_AQ_OP_ALLOC_MW);
    ((struct rocx_aq_alloc_mw *)&cmd)->pdn = htole32(B->pdn);
    ((struct rocx_aq_alloc_mw *)&cmd)->type = ROCX_MW_TYPE_1;
    CHECK_EQ(t_aq(B, &cmd, &mwk), ROCX_AQ_STS_OK);
    {
        uint16_t idx = t_post_send(&p.qb, ROCX_WQE_BIND_MW, ROCX_WQE_SIGNALED,
                                   NULL, 0, 0, 0, 0);
        uint64_t slot = (uint64_t)(idx & ((1u << p.qb.sq_ld) - 1))
                        << p.qb.sq_shift;
        struct rocx_send_wqe *w = t_ptr(B, p.qb.buf + slot, sizeof(*w));

        memset(&w->bind_mw, 0, sizeof(w->bind_mw));
        w->bind_mw.mw_key = htole32(inc_key(mwk));
        w->bind_mw.mr_key = htole32(key);
        w->bind_mw.addr = htole64(0x50000);
        w->bind_mw.length = htole64(T_PAGE);
        w->bind_mw.access = htole32(ROCX_ACCESS_REMOTE_READ);
        t_ring_sq(&p.qb);
        t_pump();
        CHECK(t_poll(&p.bcq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    }
    CHECK_EQ(inv_error(B, key, &verr), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(verr, ROCX_VERR_MR_STATE);
    CHECK(b_key_ok(&p, key, 0x50000, 1));
    cmd = t_cmd(ROCX_AQ_OP_DEALLOC_MW);
    ((struct rocx_aq_dealloc_mw *)&cmd)->key = htole32(mwk);
    CHECK_EQ(t_aq(B, &cmd, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(inv_error(B, key, &verr), ROCX_WC_SUCCESS);
    CHECK(!b_key_ok(&p, key, 0x50000, 1));
}

/*
 * SEND with invalidate to a fast-register MR: the receive completes
 * WITH_INV and the key, and the MR is free; a wrong variant is NAKed and
 * leaves it valid.
 */
static void t_fr_send_inv(void)
{
    struct rocx_sge rs, ss;
    struct rocx_cqe e;
    TFrPair p;
    uint32_t key;
    TMr rmr;
    uint64_t rbuf;

    fr_pair(&p);
    key = inc_key(p.key);
    set_list(&p, p.bpage, FR_PAGES);
    CHECK_EQ(do_reg(&p.qb, &p.bcq, key, fr_rw, 0x60000, FR_BUF, p.blist,
                    FR_PAGES), ROCX_WC_SUCCESS);
    rbuf = t_alloc(B, T_PAGE, T_PAGE);
    CHECK_EQ(t_reg_mr(B, &rmr, rbuf, T_PAGE, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    rs = t_sge(&rmr, 0, 64);
    t_post_recv(&p.qb, &rs, 1);
    t_ring_rq(&p.qb);
    t_fill(t_ptr(A, p.abuf, 64), 64, 3);
    ss = t_sge(&p.amr, 0, 64);
    t_post_send(&p.qa, ROCX_WQE_SEND_INV, ROCX_WQE_SIGNALED, &ss, 1, 0, 0,
                key);
    t_ring_sq(&p.qa);
    t_settle(1000 * 1000 * 1000LL);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(e.flags & ROCX_CQE_WITH_INV);
    CHECK_EQ(be32toh(e.imm_data), key);
    CHECK_EQ(le32toh(e.byte_len), 64);
    CHECK(!memcmp(t_ptr(B, rbuf, 64), t_ptr(A, p.abuf, 64), 64));
    CHECK(!b_key_ok(&p, key, 0x60000, 1));
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, 0x60000, key, 64),
             ROCX_WC_REM_ACCESS_ERR);
    t_teardown();
    t_setup();

    /* The wrong variant: NAK invalid request, the MR still valid. */
    fr_pair(&p);
    key = inc_key(p.key);
    set_list(&p, p.bpage, FR_PAGES);
    CHECK_EQ(do_reg(&p.qb, &p.bcq, key, fr_rw, 0x60000, FR_BUF, p.blist,
                    FR_PAGES), ROCX_WC_SUCCESS);
    rbuf = t_alloc(B, T_PAGE, T_PAGE);
    CHECK_EQ(t_reg_mr(B, &rmr, rbuf, T_PAGE, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    rs = t_sge(&rmr, 0, 64);
    t_post_recv(&p.qb, &rs, 1);
    t_ring_rq(&p.qb);
    ss = t_sge(&p.amr, 0, 64);
    t_post_send(&p.qa, ROCX_WQE_SEND_INV, ROCX_WQE_SIGNALED, &ss, 1, 0, 0,
                inc_key(key));
    t_ring_sq(&p.qa);
    t_settle(1000 * 1000 * 1000LL);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_REM_INV_REQ_ERR);
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_REM_INV_REQ_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_BAD_LKEY);
    CHECK(rocx_mr_check(&B->f->core, key, B->pdn, 0x60000, 1, 0, NULL) ==
          ROCX_VERR_NONE);
}

/*
 * The local DMA lkey: a kernel QP's SGE names a bus address directly.
 * Not on a user context's PD, and never as an rkey.
 */
static void t_fr_local_dma_lkey(void)
{
    RocxCore *bc = &B->f->core;
    struct rocx_sge ss = { 0 }, rs = { 0 };
    uint64_t src, dst, upd_addr;
    union rocx_aq_cmd cmd;
    struct rocx_cqe e;
    uint32_t uctx, upd;
    TFrPair p;

    fr_pair(&p);
    src = t_alloc(A, 300, 8);
    dst = t_alloc(B, 300, 8);
    t_fill(t_ptr(A, src, 300), 300, 9);
    rs.addr = htole64(T_GPA(dst));
    rs.length = htole32(300);
    rs.lkey = htole32(ROCX_LOCAL_DMA_LKEY);
    t_post_recv(&p.qb, &rs, 1);
    t_ring_rq(&p.qb);
    ss.addr = htole64(T_GPA(src));
    ss.length = htole32(300);
    ss.lkey = htole32(ROCX_LOCAL_DMA_LKEY);
    t_post_send(&p.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &ss, 1, 0, 0, 0);
    t_ring_sq(&p.qa);
    t_settle(1000 * 1000 * 1000LL);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, dst, 300), t_ptr(A, src, 300), 300));

    /* No rkey: an RDMA WRITE through key 0 is a remote access error. */
    CHECK(!b_key_ok(&p, ROCX_LOCAL_DMA_LKEY, T_GPA(dst), 8));
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, T_GPA(dst), ROCX_LOCAL_DMA_LKEY,
                     8), ROCX_WC_REM_ACCESS_ERR);
    /* A user context's PD does not have it. */
    cmd = t_cmd(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(t_aq(B, &cmd, &uctx), ROCX_AQ_STS_OK);
    CHECK_EQ(new_pd(B, uctx, &upd), ROCX_AQ_STS_OK);
    upd_addr = T_GPA(dst);
    CHECK_EQ(rocx_mr_check(bc, ROCX_LOCAL_DMA_LKEY, upd, upd_addr, 8,
                           ROCX_ACCESS_LOCAL_WRITE, NULL), ROCX_VERR_BAD_LKEY);
    CHECK_EQ(rocx_mr_check(bc, ROCX_LOCAL_DMA_LKEY, B->pdn, upd_addr, 8,
                           ROCX_ACCESS_LOCAL_WRITE, NULL), ROCX_VERR_NONE);
    /* Bus addresses that wrap are refused like any range past an MR. */
    CHECK_EQ(rocx_mr_check(bc, ROCX_LOCAL_DMA_LKEY, B->pdn, ~0ULL - 3, 8, 0,
                           NULL), ROCX_VERR_LKEY_BOUNDS);
}

/* A DMA MR: B's bus addresses through one key, remote rights included. */
static void t_fr_dma_mr(void)
{
    TFrPair p;
    uint64_t dst;
    uint32_t key;
    uint8_t *a;

    fr_pair(&p);
    CHECK_EQ(alloc_mr(B, B->pdn, ROCX_MR_TYPE_DMA, 0, fr_rw, &key),
             ROCX_AQ_STS_OK);
    dst = t_alloc(B, 3 * T_PAGE, T_PAGE);
    a = t_ptr(A, p.abuf, 3 * T_PAGE);
    t_fill(a, 3 * T_PAGE, 13);
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, T_GPA(dst) + 5, key,
                     3 * T_PAGE - 5), ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, dst + 5, 3 * T_PAGE - 5), a, 3 * T_PAGE - 5));
    memset(a, 0, T_PAGE);
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_READ, T_GPA(dst) + 5, key, 100),
             ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, dst + 5, 100), a, 100));
    /* Beyond the bus: the device cannot reach it, a NAK not a crash. */
    CHECK_EQ(rdma_op(&p, ROCX_WQE_RDMA_WRITE, 0x100000000000ULL, key, 64),
             ROCX_WC_REM_OP_ERR);
    CHECK_EQ(t_dereg_mr(B, key), ROCX_AQ_STS_OK);
    CHECK(!b_key_ok(&p, key, T_GPA(dst), 1));
}

const TCase t_cases_fr[] = {
    T_CASE(fr_alloc),
    T_CASE(fr_register_use_invalidate),
    T_CASE(fr_inv_waits_for_write),
    T_CASE(fr_old_key_fails),
    T_CASE(fr_reregister_new_variant),
    T_CASE(fr_list_read_at_execution),
    T_CASE(fr_reg_errors),
    T_CASE(fr_inv_errors),
    T_CASE(fr_send_inv),
    T_CASE(fr_local_dma_lkey),
    T_CASE(fr_dma_mr),
};
const unsigned t_ncases_fr = ARRAY_SIZE(t_cases_fr);
