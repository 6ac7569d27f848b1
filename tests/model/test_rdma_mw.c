/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory windows and REREG_MR (contract 1.2, ROCX_CAP2_MW): ALLOC_MW and
 * DEALLOC_MW, type 1 and type 2 windows bound by BIND_MW work requests,
 * remote access through them in and out of range, a window invalidated
 * in the middle of a message, LOCAL_INV, SEND with invalidate, bind
 * errors, and re-registration of translation, PD and access.
 */
#include "rdma.h"

typedef TRcPair TMwPair;

#define MW_BUF      (4 * T_PAGE)

static const uint32_t remote_rw = ROCX_ACCESS_REMOTE_WRITE |
                                  ROCX_ACCESS_REMOTE_READ;

static uint8_t st(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static uint8_t op(const struct rocx_cqe *e)
{
    return le32toh(e->qpn_op) >> 24;
}

static bool all_zero(const uint8_t *p, size_t len)
{
    while (len--) {
        if (*p++) {
            return false;
        }
    }
    return true;
}

/* A on device A, B on device B; B's MR allows binding windows. */
static void mw_pair(TMwPair *p, uint32_t bmr_access)
{
    TConn conn;

    t_conn_default(&conn);
    t_rc_pair(p, MW_BUF, ROCX_ACCESS_LOCAL_WRITE, bmr_access, &conn);
}

static unsigned alloc_mw(TDev *d, uint32_t pdn, uint8_t type, uint32_t *key)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_ALLOC_MW);
    struct rocx_aq_alloc_mw *a = (void *)&c;

    a->pdn = htole32(pdn);
    a->type = type;
    return t_aq(d, &c, key);
}

static unsigned dealloc_mw(TDev *d, uint32_t key)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DEALLOC_MW);

    ((struct rocx_aq_dealloc_mw *)&c)->key = htole32(key);
    return t_aq(d, &c, NULL);
}

/* The next key of a window, as ibv_inc_rkey() makes it. */
static uint32_t inc_key(uint32_t key)
{
    return (key & ~0xffu) | ((key + 1) & 0xff);
}

/* Post (not ring) a BIND_MW; returns its index. */
static uint16_t post_bind(TQp *qp, uint32_t mw_key, const TMr *mr,
                          uint64_t off, uint64_t len, uint32_t access)
{
    uint16_t idx = t_post_send(qp, ROCX_WQE_BIND_MW, ROCX_WQE_SIGNALED, NULL,
                               0, 0, 0, 0);
    struct rocx_send_wqe *w = t_sq_slot(qp, idx);

    memset(&w->bind_mw, 0, sizeof(w->bind_mw));
    w->bind_mw.mw_key = htole32(mw_key);
    w->bind_mw.mr_key = htole32(mr->key);
    w->bind_mw.addr = htole64(mr->iova + off);
    w->bind_mw.length = htole64(len);
    w->bind_mw.access = htole32(access);
    return idx;
}

/* Bind and complete it: the completion's status. */
static uint8_t do_bind(TQp *qp, TCq *cq, uint32_t mw_key, const TMr *mr,
                    uint64_t off, uint64_t len, uint32_t access)
{
    struct rocx_cqe e;
    uint16_t idx = post_bind(qp, mw_key, mr, off, len, access);

    t_ring_sq(qp);
    t_pump();
    if (!t_poll(cq, &e)) {
        CHECK(!"no bind completion");
        return 0xff;
    }
    CHECK_EQ(le16toh(e.wqe_idx), idx);
    if (st(&e) == ROCX_WC_SUCCESS) {
        CHECK_EQ(op(&e), ROCX_CQE_OP_BIND_MW);
    }
    return st(&e);
}

/* A's RDMA WRITE of len bytes to B at va through rkey: A's status. */
static uint8_t write_to(TMwPair *p, uint64_t va, uint32_t rkey, uint32_t len,
                        uint32_t seed)
{
    struct rocx_sge s = t_sge(&p->amr, 0, len);
    struct rocx_cqe e;

    t_fill(t_ptr(A, p->abuf, len), len, seed);
    t_post_send(&p->qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1, va,
                rkey, 0);
    t_ring_sq(&p->qa);
    t_settle(1000 * 1000 * 1000LL);
    if (!t_poll(&p->acq, &e)) {
        CHECK(!"no write completion");
        return 0xff;
    }
    return st(&e);
}

static uint8_t read_from(TMwPair *p, uint64_t va, uint32_t rkey, uint32_t len)
{
    struct rocx_sge s = t_sge(&p->amr, 0, len);
    struct rocx_cqe e;

    t_post_send(&p->qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1, va,
                rkey, 0);
    t_ring_sq(&p->qa);
    t_settle(1000 * 1000 * 1000LL);
    if (!t_poll(&p->acq, &e)) {
        CHECK(!"no read completion");
        return 0xff;
    }
    return st(&e);
}

static void t_mw_alloc(void)
{
    RocxCore *c = &A->f->core;
    uint32_t k1, k2, k3, pd2;
    union rocx_aq_cmd cmd;

    CHECK_EQ(alloc_mw(A, A->pdn, ROCX_MW_TYPE_1, &k1), ROCX_AQ_STS_OK);
    CHECK_EQ(alloc_mw(A, A->pdn, ROCX_MW_TYPE_2, &k2), ROCX_AQ_STS_OK);
    /* In the key space above every MR, one index each. */
    CHECK(ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, k1) >= ROCX_CORE_MW_KEY_BASE);
    CHECK(ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, k1) !=
          ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, k2));
    /* A window key is no lkey, and no MR. */
    CHECK(rocx_mr_lookup(c, k1) == NULL);
    CHECK_EQ(t_dereg_mr(A, k1), ROCX_AQ_STS_INVALID);

    CHECK_EQ(alloc_mw(A, A->pdn, 0, &k3), ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mw(A, A->pdn, 3, &k3), ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mw(A, 0, ROCX_MW_TYPE_1, &k3), ROCX_AQ_STS_INVALID);
    CHECK_EQ(alloc_mw(A, 99, ROCX_MW_TYPE_1, &k3), ROCX_AQ_STS_NOT_FOUND);
    cmd = t_cmd(ROCX_AQ_OP_ALLOC_MW);
    ((struct rocx_aq_alloc_mw *)&cmd)->pdn = htole32(A->pdn);
    ((struct rocx_aq_alloc_mw *)&cmd)->type = ROCX_MW_TYPE_1;
    ((struct rocx_aq_alloc_mw *)&cmd)->rsvd1[7] = 1;
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_INVALID);

    /* A PD with a window stays. */
    cmd = t_cmd(ROCX_AQ_OP_CREATE_PD);
    CHECK_EQ(t_aq(A, &cmd, &pd2), ROCX_AQ_STS_OK);
    CHECK_EQ(alloc_mw(A, pd2, ROCX_MW_TYPE_2, &k3), ROCX_AQ_STS_OK);
    cmd = t_cmd(ROCX_AQ_OP_DESTROY_PD);
    cmd.pd.pdn = htole32(pd2);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(dealloc_mw(A, k3), ROCX_AQ_STS_OK);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_OK);

    CHECK_EQ(dealloc_mw(A, k1), ROCX_AQ_STS_OK);
    CHECK_EQ(dealloc_mw(A, k1), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(dealloc_mw(A, 5 << 8), ROCX_AQ_STS_INVALID);
    /* The slot again, with a new variant. */
    CHECK_EQ(alloc_mw(A, A->pdn, ROCX_MW_TYPE_1, &k3), ROCX_AQ_STS_OK);
    CHECK_EQ(k3 >> 8, k1 >> 8);
    CHECK(k3 != k1);
    CHECK_EQ(dealloc_mw(A, k2), ROCX_AQ_STS_OK);
    CHECK_EQ(dealloc_mw(A, k3), ROCX_AQ_STS_OK);
}

/* Write and read through a window, in range and out of it; both types. */
static void mw_access(uint8_t type)
{
    TMwPair p;
    uint32_t key, rkey;
    uint64_t win = T_PAGE + 256, wlen = 2 * T_PAGE;
    uint8_t *b;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    b = t_ptr(B, p.bbuf, MW_BUF);
    CHECK_EQ(alloc_mw(B, B->pdn, type, &key), ROCX_AQ_STS_OK);
    /* Not bound yet: no access. */
    CHECK_EQ(write_to(&p, p.bmr.iova + win, key, 16, 1),
             ROCX_WC_REM_ACCESS_ERR);
    t_teardown();
    t_setup();

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    b = t_ptr(B, p.bbuf, MW_BUF);
    CHECK_EQ(alloc_mw(B, B->pdn, type, &key), ROCX_AQ_STS_OK);
    rkey = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, win, wlen, remote_rw |
                  ROCX_ACCESS_LOCAL_WRITE), ROCX_WC_SUCCESS);
    memset(b, 0, MW_BUF);
    CHECK_EQ(write_to(&p, p.bmr.iova + win, rkey, wlen, 7), ROCX_WC_SUCCESS);
    CHECK(!memcmp(b + win, t_ptr(A, p.abuf, wlen), wlen));
    CHECK_EQ(b[win - 1], 0);
    CHECK_EQ(b[win + wlen], 0);
    t_fill(b + win + 100, 300, 9);
    CHECK_EQ(read_from(&p, p.bmr.iova + win + 100, rkey, 300),
             ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(A, p.abuf, 300), b + win + 100, 300));
    /* The old variant names nothing. */
    CHECK_EQ(write_to(&p, p.bmr.iova + win, key, 16, 2),
             ROCX_WC_REM_ACCESS_ERR);
    t_teardown();
    t_setup();

    /* One byte past the window's end, and one before its start. */
    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    b = t_ptr(B, p.bbuf, MW_BUF);
    CHECK_EQ(alloc_mw(B, B->pdn, type, &key), ROCX_AQ_STS_OK);
    rkey = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, win, wlen,
                  ROCX_ACCESS_REMOTE_READ), ROCX_WC_SUCCESS);
    memset(b, 0, MW_BUF);
    /* Read only: a WRITE is refused, and wrote nothing. */
    CHECK_EQ(write_to(&p, p.bmr.iova + win, rkey, 16, 3),
             ROCX_WC_REM_ACCESS_ERR);
    CHECK_EQ(b[win], 0);
    t_teardown();
    t_setup();

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, type, &key), ROCX_AQ_STS_OK);
    rkey = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, win, wlen, remote_rw),
             ROCX_WC_SUCCESS);
    CHECK_EQ(read_from(&p, p.bmr.iova + win + wlen - 15, rkey, 16),
             ROCX_WC_REM_ACCESS_ERR);
    t_teardown();
    t_setup();

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, type, &key), ROCX_AQ_STS_OK);
    rkey = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, win, wlen, remote_rw),
             ROCX_WC_SUCCESS);
    CHECK_EQ(write_to(&p, p.bmr.iova + win - 1, rkey, 16, 4),
             ROCX_WC_REM_ACCESS_ERR);
}

static void t_mw_type1_access(void)
{
    mw_access(ROCX_MW_TYPE_1);
}

static void t_mw_type2_access(void)
{
    mw_access(ROCX_MW_TYPE_2);
}

/*
 * A window deallocated between two packets of one WRITE (right after the
 * first one's data is placed): the first packet's data is in, the next
 * packet is refused.
 */
static uint32_t cut_key;
static uint64_t cut_lo, cut_hi;
static bool cut_done;

static void cut_on_dma(FakeDev *f, uint64_t addr, size_t len, bool write)
{
    if (write && !cut_done && addr >= cut_lo && addr < cut_hi) {
        union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DEALLOC_MW);
        RocxAqResult res = { 0 };

        cut_done = true;
        ((struct rocx_aq_dealloc_mw *)&c)->key = htole32(cut_key);
        rocx_cmd_dealloc_mw(&f->core, &c, &res);
        CHECK_EQ(res.status, ROCX_AQ_STS_OK);
    }
}

static void t_mw_invalidated_next_packet(void)
{
    TMwPair p;
    uint32_t key;
    uint8_t *b;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    b = t_ptr(B, p.bbuf, MW_BUF);
    memset(b, 0, MW_BUF);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_2, &key), ROCX_AQ_STS_OK);
    cut_key = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, cut_key, &p.bmr, 0, MW_BUF, remote_rw),
             ROCX_WC_SUCCESS);
    cut_done = false;
    cut_lo = T_GPA(p.bbuf);
    cut_hi = cut_lo + MW_BUF;
    B->f->on_dma = cut_on_dma;
    /* Four packets at the 1 KiB path MTU. */
    CHECK_EQ(write_to(&p, p.bmr.iova, cut_key, 4096, 5),
             ROCX_WC_REM_ACCESS_ERR);
    B->f->on_dma = NULL;
    CHECK(cut_done);
    CHECK(!memcmp(b, t_ptr(A, p.abuf, 1024), 1024));
    CHECK(all_zero(b + 1024, 3072));
}

/* SEND with invalidate: B's type 2 window goes, B's CQE says which. */
static void t_mw_send_inv(void)
{
    TMwPair p;
    uint32_t key, rkey;
    struct rocx_sge rs, ss;
    struct rocx_cqe e;
    uint16_t ridx;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_2, &key), ROCX_AQ_STS_OK);
    rkey = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, 0, MW_BUF, remote_rw),
             ROCX_WC_SUCCESS);
    CHECK_EQ(write_to(&p, p.bmr.iova, rkey, 64, 1), ROCX_WC_SUCCESS);

    /* Two packets: the key goes with the last. */
    rs = t_sge(&p.bmr, T_PAGE, 2048);
    ridx = t_post_recv(&p.qb, &rs, 1);
    t_ring_rq(&p.qb);
    ss = t_sge(&p.amr, 0, 2000);
    t_fill(t_ptr(A, p.abuf, 2000), 2000, 11);
    t_post_send(&p.qa, ROCX_WQE_SEND_INV, ROCX_WQE_SIGNALED, &ss, 1, 0, 0,
                rkey);
    t_ring_sq(&p.qa);
    t_pump();
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(op(&e), ROCX_CQE_OP_SEND);
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), ridx);
    CHECK_EQ(op(&e), ROCX_CQE_OP_RECV);
    CHECK_EQ(le32toh(e.byte_len), 2000);
    CHECK(e.flags & ROCX_CQE_WITH_INV);
    CHECK(!(e.flags & ROCX_CQE_WITH_IMM));
    CHECK_EQ(be32toh(e.imm_data), rkey);
    CHECK(!memcmp(t_ptr(B, p.bbuf + T_PAGE, 2000), t_ptr(A, p.abuf, 2000),
                  2000));
    /* Invalidated: the next access is refused. */
    CHECK_EQ(write_to(&p, p.bmr.iova, rkey, 64, 2), ROCX_WC_REM_ACCESS_ERR);
}

/*
 * SEND with invalidate of what may not be invalidated remotely: a type 1
 * window, an MR, an unknown key.  NAK invalid request; B's receive
 * completes in error.
 */
static void send_inv_bad(uint8_t what)
{
    TMwPair p;
    uint32_t key, rkey;
    struct rocx_sge rs, ss;
    struct rocx_cqe e;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_1, &key), ROCX_AQ_STS_OK);
    rkey = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, 0, MW_BUF, remote_rw),
             ROCX_WC_SUCCESS);
    rs = t_sge(&p.bmr, 0, 64);
    t_post_recv(&p.qb, &rs, 1);
    t_ring_rq(&p.qb);
    ss = t_sge(&p.amr, 0, 64);
    t_post_send(&p.qa, ROCX_WQE_SEND_INV, ROCX_WQE_SIGNALED, &ss, 1, 0, 0,
                what == 0 ? rkey : what == 1 ? p.bmr.key : 0x123456);
    t_ring_sq(&p.qa);
    t_settle(1000 * 1000 * 1000LL);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_REM_INV_REQ_ERR);
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_REM_INV_REQ_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_BAD_MW);
    /* The type 1 window is still bound. */
    if (what == 0) {
        CHECK(B->f->core.rdma.mw[ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, rkey) -
                                 ROCX_CORE_MW_KEY_BASE].bound);
    }
}

static void t_mw_send_inv_refused(void)
{
    unsigned i;

    for (i = 0; i < 3; i++) {
        if (i) {
            t_teardown();
            t_setup();
        }
        send_inv_bad(i);
    }
}

static void t_mw_local_inv(void)
{
    TMwPair p;
    uint32_t k1, k2, rkey;
    struct rocx_cqe e;
    uint16_t idx;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_2, &k2), ROCX_AQ_STS_OK);
    rkey = inc_key(k2);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, 0, MW_BUF, remote_rw),
             ROCX_WC_SUCCESS);
    CHECK_EQ(write_to(&p, p.bmr.iova, rkey, 64, 1), ROCX_WC_SUCCESS);
    /* A type 2 window must be invalidated before it is bound again. */
    CHECK_EQ(do_bind(&p.qb, &p.bcq, inc_key(rkey), &p.bmr, 0, 64, remote_rw),
             ROCX_WC_MW_BIND_ERR);
    t_teardown();
    t_setup();

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_2, &k2), ROCX_AQ_STS_OK);
    rkey = inc_key(k2);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, 0, MW_BUF, remote_rw),
             ROCX_WC_SUCCESS);
    idx = t_post_send(&p.qb, ROCX_WQE_LOCAL_INV, ROCX_WQE_SIGNALED, NULL, 0,
                      0, 0, rkey);
    t_ring_sq(&p.qb);
    t_pump();
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(op(&e), ROCX_CQE_OP_LOCAL_INV);
    CHECK_EQ(le16toh(e.wqe_idx), idx);
    /* Free again: bound anew with the next key, which works. */
    CHECK_EQ(do_bind(&p.qb, &p.bcq, inc_key(rkey), &p.bmr, 0, MW_BUF,
                  remote_rw), ROCX_WC_SUCCESS);
    CHECK_EQ(write_to(&p, p.bmr.iova, inc_key(rkey), 64, 3),
             ROCX_WC_SUCCESS);
    idx = t_post_send(&p.qb, ROCX_WQE_LOCAL_INV, ROCX_WQE_SIGNALED, NULL, 0,
                      0, 0, inc_key(rkey));
    t_ring_sq(&p.qb);
    t_pump();
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(write_to(&p, p.bmr.iova, inc_key(rkey), 64, 2),
             ROCX_WC_REM_ACCESS_ERR);
    t_teardown();
    t_setup();

    /* Type 1 windows are not invalidated by work requests. */
    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_1, &k1), ROCX_AQ_STS_OK);
    t_post_send(&p.qb, ROCX_WQE_LOCAL_INV, ROCX_WQE_SIGNALED, NULL, 0, 0, 0,
                k1);
    t_ring_sq(&p.qb);
    t_pump();
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(op(&e), ROCX_CQE_OP_LOCAL_INV);
}

/* A type 1 window: bound again elsewhere at once; length 0 unbinds. */
static void t_mw_type1_rebind(void)
{
    TMwPair p;
    uint32_t key, k1, k2;
    uint8_t *b;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    b = t_ptr(B, p.bbuf, MW_BUF);
    memset(b, 0, MW_BUF);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_1, &key), ROCX_AQ_STS_OK);
    k1 = inc_key(key);
    k2 = inc_key(k1);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, k1, &p.bmr, 0, T_PAGE, remote_rw),
             ROCX_WC_SUCCESS);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, k2, &p.bmr, 2 * T_PAGE, T_PAGE, remote_rw),
             ROCX_WC_SUCCESS);
    CHECK_EQ(write_to(&p, p.bmr.iova + 2 * T_PAGE, k2, 128, 4),
             ROCX_WC_SUCCESS);
    CHECK(!memcmp(b + 2 * T_PAGE, t_ptr(A, p.abuf, 128), 128));
    CHECK_EQ(do_bind(&p.qb, &p.bcq, inc_key(k2), &p.bmr, 0, 0, 0),
             ROCX_WC_SUCCESS);
    CHECK_EQ(write_to(&p, p.bmr.iova + 2 * T_PAGE, inc_key(k2), 128, 5),
             ROCX_WC_REM_ACCESS_ERR);
}

/* One bind error: MW_BIND_ERR, the QP in ERR. */
static void bind_err(uint8_t type, unsigned how)
{
    TMwPair p;
    TMr mr2;
    uint32_t key, pd2, access = remote_rw;
    uint32_t mr_access = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND;
    uint64_t off = 0, len = T_PAGE;
    const TMr *mr;
    union rocx_aq_cmd c;

    if (how == 0) {
        mr_access = ROCX_ACCESS_LOCAL_WRITE | remote_rw;   /* no MW_BIND */
    } else if (how == 1) {
        mr_access = ROCX_ACCESS_MW_BIND;    /* write rights need LOCAL_WRITE */
    }
    mw_pair(&p, mr_access);
    mr = &p.bmr;
    CHECK_EQ(alloc_mw(B, B->pdn, type, &key), ROCX_AQ_STS_OK);
    switch (how) {
    case 2:
        off = MW_BUF - 16;                  /* past the MR's end */
        len = 32;
        break;
    case 3:
        /* An MR of another PD. */
        c = t_cmd(ROCX_AQ_OP_CREATE_PD);
        CHECK_EQ(t_aq(B, &c, &pd2), ROCX_AQ_STS_OK);
        {
            uint32_t saved = B->pdn;

            B->pdn = pd2;
            CHECK_EQ(t_reg_mr(B, &mr2, p.bbuf, T_PAGE,
                              ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND),
                     ROCX_AQ_STS_OK);
            B->pdn = saved;
        }
        mr = &mr2;
        break;
    case 4:
        /* A window of another PD. */
        c = t_cmd(ROCX_AQ_OP_CREATE_PD);
        CHECK_EQ(t_aq(B, &c, &pd2), ROCX_AQ_STS_OK);
        CHECK_EQ(alloc_mw(B, pd2, type, &key), ROCX_AQ_STS_OK);
        break;
    case 5:
        key = 0x12345600;                   /* no window there */
        break;
    }
    CHECK_EQ(do_bind(&p.qb, &p.bcq, inc_key(key), mr, off, len, access),
             ROCX_WC_MW_BIND_ERR);
    {
        struct rocx_qp_attr a;

        CHECK_EQ(t_query(&p.qb, &a), ROCX_AQ_STS_OK);
        CHECK_EQ(a.cur_state, ROCX_QPS_ERR);
    }
}

static void t_mw_bind_errors(void)
{
    unsigned how, type;

    for (type = ROCX_MW_TYPE_1; type <= ROCX_MW_TYPE_2; type++) {
        for (how = 0; how < 6; how++) {
            unsigned before = case_failures;

            t_teardown();
            t_setup();
            bind_err(type, how);
            if (case_failures != before) {
                printf("  (type %u, case %u)\n", type, how);
            }
        }
    }
}

/* A malformed BIND_MW (unknown rights, reserved bytes) is LOC_QP_OP_ERR. */
static void t_mw_bind_malformed(void)
{
    TMwPair p;
    uint32_t key;
    struct rocx_cqe e;
    struct rocx_send_wqe *w;
    uint16_t idx;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_2, &key), ROCX_AQ_STS_OK);
    idx = post_bind(&p.qb, inc_key(key), &p.bmr, 0, 64, remote_rw);
    w = t_ptr(B, p.qb.buf + ((uint64_t)idx << p.qb.sq_shift), sizeof(*w));
    w->bind_mw.rsvd[3] = 1;
    t_ring_sq(&p.qb);
    t_pump();
    CHECK(t_poll(&p.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(op(&e), ROCX_CQE_OP_BIND_MW);
}

/* A type 2 window serves only the QP it is bound to. */
static void t_mw_type2_other_qp(void)
{
    TMwPair p;
    TQp qa2, qb2;
    uint32_t key, rkey;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(t_create_qp(A, &qa2, &p.acq, &p.acq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &qb2, &p.bcq, &p.bcq, 6, 6, 0), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&qa2, &qb2, &conn);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_2, &key), ROCX_AQ_STS_OK);
    rkey = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, 0, MW_BUF, remote_rw),
             ROCX_WC_SUCCESS);
    s = t_sge(&p.amr, 0, 64);
    t_post_send(&qa2, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                p.bmr.iova, rkey, 0);
    t_ring_sq(&qa2);
    t_settle(1000 * 1000 * 1000LL);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_REM_ACCESS_ERR);
    CHECK_EQ(le32toh(e.qpn_op) & 0xffffff, qa2.qpn);
    /* The QP it is bound to still gets in. */
    CHECK_EQ(write_to(&p, p.bmr.iova, rkey, 64, 1), ROCX_WC_SUCCESS);
    /* Destroying that QP unbinds the window. */
    CHECK_EQ(t_destroy_qp(&p.qb), ROCX_AQ_STS_OK);
    CHECK(!B->f->core.rdma.mw[ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, rkey) -
                              ROCX_CORE_MW_KEY_BASE].bound);
}

/*
 * DEALLOC_MW with the key ALLOC_MW gave (all the driver knows), after a
 * bind changed the variant: the window goes, and access with it.
 */
static void t_mw_dealloc_bound(void)
{
    TMwPair p;
    uint32_t key, rkey;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_2, &key), ROCX_AQ_STS_OK);
    rkey = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, 0, MW_BUF, remote_rw),
             ROCX_WC_SUCCESS);
    CHECK_EQ(write_to(&p, p.bmr.iova, rkey, 64, 1), ROCX_WC_SUCCESS);
    CHECK_EQ(dealloc_mw(B, key), ROCX_AQ_STS_OK);
    CHECK_EQ(dealloc_mw(B, rkey), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(write_to(&p, p.bmr.iova, rkey, 64, 2), ROCX_WC_REM_ACCESS_ERR);
}

/* DEREG_MR unbinds the windows bound to it; REREG_MR refuses them. */
static void t_mw_mr_gone(void)
{
    TMwPair p;
    uint32_t key, rkey;
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_REREG_MR);

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
    CHECK_EQ(alloc_mw(B, B->pdn, ROCX_MW_TYPE_1, &key), ROCX_AQ_STS_OK);
    rkey = inc_key(key);
    CHECK_EQ(do_bind(&p.qb, &p.bcq, rkey, &p.bmr, 0, MW_BUF, remote_rw),
             ROCX_WC_SUCCESS);
    ((struct rocx_aq_rereg_mr *)&c)->key = htole32(p.bmr.key);
    ((struct rocx_aq_rereg_mr *)&c)->valid = htole32(ROCX_REREG_ACCESS);
    ((struct rocx_aq_rereg_mr *)&c)->access =
        htole32(ROCX_ACCESS_LOCAL_WRITE);
    CHECK_EQ(t_aq(B, &c, NULL), ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(t_dereg_mr(B, p.bmr.key), ROCX_AQ_STS_OK);
    /* Re-registered at the same index: the window does not come back. */
    CHECK_EQ(t_reg_mr(B, &p.bmr, p.bbuf, MW_BUF, ROCX_ACCESS_LOCAL_WRITE |
                      ROCX_ACCESS_MW_BIND), ROCX_AQ_STS_OK);
    CHECK_EQ(write_to(&p, p.bmr.iova, rkey, 64, 1), ROCX_WC_REM_ACCESS_ERR);
}

static unsigned rereg(TDev *d, uint32_t key, uint32_t valid, uint32_t pdn,
                      uint32_t access, uint64_t off, uint64_t len)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_REREG_MR);
    struct rocx_aq_rereg_mr *r = (void *)&c;
    uint32_t res = 0;
    unsigned sts;

    r->key = htole32(key);
    r->valid = htole32(valid);
    r->pdn = htole32(pdn);
    r->access = htole32(access);
    if (valid & ROCX_REREG_TRANS) {
        r->iova = htole64(T_GPA(off));
        r->length = htole64(len);
        r->offset = htole32(off & (T_PAGE - 1));
        r->pbl = t_pbl(d, off, len, 12, -1);
    }
    sts = t_aq(d, &c, &res);
    if (sts == ROCX_AQ_STS_OK) {
        CHECK_EQ(res, key);
    }
    return sts;
}

/* REREG_MR: access, translation (new buffer), PD; the key stays. */
static void t_mr_rereg(void)
{
    TMwPair p;
    TQp qa2, qb2;
    TConn conn;
    uint64_t nbuf;
    uint32_t pd2;
    union rocx_aq_cmd c;
    uint8_t *nb;

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | remote_rw);
    CHECK_EQ(write_to(&p, p.bmr.iova, p.bmr.key, 64, 1), ROCX_WC_SUCCESS);
    /* Drop remote write: refused; the rest of the MR is unchanged. */
    CHECK_EQ(rereg(B, p.bmr.key, ROCX_REREG_ACCESS, 0,
                   ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_READ, 0, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(read_from(&p, p.bmr.iova, p.bmr.key, 64), ROCX_WC_SUCCESS);
    CHECK_EQ(write_to(&p, p.bmr.iova, p.bmr.key, 64, 2),
             ROCX_WC_REM_ACCESS_ERR);
    t_teardown();
    t_setup();

    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE);
    CHECK_EQ(write_to(&p, p.bmr.iova, p.bmr.key, 64, 1),
             ROCX_WC_REM_ACCESS_ERR);
    CHECK_EQ(rereg(B, p.bmr.key, ROCX_REREG_ACCESS, 0,
                   ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE, 0, 0),
             ROCX_AQ_STS_OK);
    /* A fresh pair of QPs: the first went to ERR. */
    CHECK_EQ(t_create_qp(A, &qa2, &p.acq, &p.acq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &qb2, &p.bcq, &p.bcq, 6, 6, 0), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&qa2, &qb2, &conn);
    p.qa = qa2;
    p.qb = qb2;
    CHECK_EQ(write_to(&p, p.bmr.iova + 8, p.bmr.key, 64, 3),
             ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, p.bbuf + 8, 64), t_ptr(A, p.abuf, 64), 64));

    /* Translation: a new buffer of another size, at an odd offset. */
    nbuf = t_alloc(B, 3 * T_PAGE, T_PAGE) + 100;
    nb = t_ptr(B, nbuf, 2 * T_PAGE);
    memset(nb, 0, 2 * T_PAGE);
    memset(t_ptr(B, p.bbuf, MW_BUF), 0, MW_BUF);
    CHECK_EQ(rereg(B, p.bmr.key, ROCX_REREG_TRANS, 0, 0, nbuf, 2 * T_PAGE),
             ROCX_AQ_STS_OK);
    CHECK_EQ(write_to(&p, T_GPA(nbuf) + T_PAGE, p.bmr.key, 1500, 4),
             ROCX_WC_SUCCESS);
    CHECK(!memcmp(nb + T_PAGE, t_ptr(A, p.abuf, 1500), 1500));
    CHECK(all_zero(t_ptr(B, p.bbuf, MW_BUF), MW_BUF));
    /* The old range is gone. */
    CHECK_EQ(write_to(&p, p.bmr.iova, p.bmr.key, 64, 5),
             ROCX_WC_REM_ACCESS_ERR);
    t_teardown();
    t_setup();

    /* PD: of another PD the MR serves no QP of the first. */
    mw_pair(&p, ROCX_ACCESS_LOCAL_WRITE | remote_rw);
    c = t_cmd(ROCX_AQ_OP_CREATE_PD);
    CHECK_EQ(t_aq(B, &c, &pd2), ROCX_AQ_STS_OK);
    CHECK_EQ(rereg(B, p.bmr.key, ROCX_REREG_PD, pd2, 0, 0, 0),
             ROCX_AQ_STS_OK);
    c = t_cmd(ROCX_AQ_OP_DESTROY_PD);
    c.pd.pdn = htole32(pd2);
    CHECK_EQ(t_aq(B, &c, NULL), ROCX_AQ_STS_BAD_STATE);
    CHECK_EQ(write_to(&p, p.bmr.iova, p.bmr.key, 64, 6),
             ROCX_WC_REM_ACCESS_ERR);

    /* Bad commands change nothing. */
    CHECK_EQ(rereg(B, p.bmr.key, 0, 0, 0, 0, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(rereg(B, p.bmr.key, 8, 0, 0, 0, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(rereg(B, p.bmr.key, ROCX_REREG_ACCESS, 0, 0x40, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(rereg(B, p.bmr.key, ROCX_REREG_PD, 0, 0, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(rereg(B, p.bmr.key, ROCX_REREG_PD, 500, 0, 0, 0),
             ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(rereg(B, p.bmr.key ^ 1, ROCX_REREG_ACCESS, 0, 0, 0, 0),
             ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(rereg(B, 0, ROCX_REREG_ACCESS, 0, 0, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK(B->f->core.rdma.mr[p.bmr.key >> 8].pdn == pd2);
    CHECK(B->f->core.rdma.mr[p.bmr.key >> 8].access ==
          (ROCX_ACCESS_LOCAL_WRITE | remote_rw));
}

static uint8_t qp_state(TQp *q)
{
    struct rocx_qp_attr a;

    CHECK_EQ(t_query(q, &a), ROCX_AQ_STS_OK);
    return a.state;
}

/*
 * Local WQEs stop with the QP: the third of three signalled binds
 * overflows a send CQ of two entries, which moves the QP to ERR, and
 * the WRITE posted behind them never leaves: B's memory keeps its
 * bytes and B sees no request.
 */
static void t_mw_local_stops_at_err(void)
{
    TCq scq, rcq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    TConn conn;
    struct rocx_sge s;
    uint64_t abuf, bbuf;
    uint32_t key, k;
    unsigned i;
    uint8_t *b;

    CHECK_EQ(t_create_cq(A, &scq, 1, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &rcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qa, &scq, &rcq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &qb, &bcq, &bcq, 6, 6, 0), ROCX_AQ_STS_OK);
    abuf = t_alloc(A, MW_BUF, T_PAGE);
    bbuf = t_alloc(B, MW_BUF, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &amr, abuf, MW_BUF,
                      ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &bmr, bbuf, MW_BUF,
                      ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE),
             ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&qa, &qb, &conn);
    b = t_ptr(B, bbuf, MW_BUF);
    memset(b, 0xee, MW_BUF);
    t_fill(t_ptr(A, abuf, 64), 64, 6);

    CHECK_EQ(alloc_mw(A, A->pdn, ROCX_MW_TYPE_1, &key), ROCX_AQ_STS_OK);
    for (i = 0, k = key; i < 3; i++) {
        k = inc_key(k);
        t_post_bind(&qa, ROCX_WQE_SIGNALED, k, &amr, 0, T_PAGE,
                    ROCX_ACCESS_REMOTE_READ);
    }
    s = t_sge(&amr, 0, 64);
    t_post_send(&qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1, bmr.iova,
                bmr.key, 0);
    t_ring_sq(&qa);
    t_pump();
    CHECK_EQ(qp_state(&qa), ROCX_QPS_ERR);
    CHECK_EQ(b[0], 0xee);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS), 0);
    CHECK_EQ(qp_state(&qb), ROCX_QPS_RTS);
}

/*
 * Local WQEs are work the engine budgets: a full SQ of 4096 binds takes
 * many engine runs, at most ROCX_CORE_PKT_BUDGET in the first, and all
 * of them complete in the end, in order.
 */
static void t_mw_local_budget(void)
{
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr;
    TConn conn;
    struct rocx_cqe e;
    uint64_t abuf;
    uint32_t key, k;
    unsigned i, runs;
    RocxQp *q;

    CHECK_EQ(t_create_cq(A, &acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qa, &acq, &acq, 12, 1, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &qb, &bcq, &bcq, 1, 1, 0), ROCX_AQ_STS_OK);
    abuf = t_alloc(A, T_PAGE, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &amr, abuf, T_PAGE,
                      ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND),
             ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&qa, &qb, &conn);
    CHECK_EQ(alloc_mw(A, A->pdn, ROCX_MW_TYPE_1, &key), ROCX_AQ_STS_OK);
    for (i = 0, k = key; i < 4096; i++) {
        k = inc_key(k);
        t_post_bind(&qa, i == 4095 ? ROCX_WQE_SIGNALED : 0, k, &amr, 0,
                    T_PAGE, ROCX_ACCESS_REMOTE_READ);
    }
    t_ring_sq(&qa);
    q = rocx_qp_get(&A->f->core, qa.qpn);
    CHECK(A->f->scheduled);
    A->f->scheduled = false;
    rocx_core_process(&A->f->core);
    CHECK(q->req.ci > 0);
    CHECK(q->req.ci <= ROCX_CORE_PKT_BUDGET);
    CHECK(A->f->scheduled);
    for (runs = 1; A->f->scheduled && runs < 1000; runs++) {
        A->f->scheduled = false;
        rocx_core_process(&A->f->core);
    }
    CHECK(runs >= 4096 / ROCX_CORE_PKT_BUDGET);
    CHECK_EQ(q->req.ci, 4096);
    CHECK(t_poll(&acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(op(&e), ROCX_CQE_OP_BIND_MW);
    CHECK_EQ(le16toh(e.wqe_idx), 4095);
    CHECK(!t_poll(&acq, &e));
    CHECK_EQ(qp_state(&qa), ROCX_QPS_RTS);
}

const TCase t_cases_mw[] = {
    T_CASE(mw_alloc),
    T_CASE(mw_type1_access),
    T_CASE(mw_type2_access),
    T_CASE(mw_invalidated_next_packet),
    T_CASE(mw_send_inv),
    T_CASE(mw_send_inv_refused),
    T_CASE(mw_local_inv),
    T_CASE(mw_type1_rebind),
    T_CASE(mw_bind_errors),
    T_CASE(mw_bind_malformed),
    T_CASE(mw_type2_other_qp),
    T_CASE(mw_dealloc_bound),
    T_CASE(mw_mr_gone),
    T_CASE(mr_rereg),
    T_CASE(mw_local_stops_at_err),
    T_CASE(mw_local_budget),
};
const unsigned t_ncases_mw = ARRAY_SIZE(t_cases_mw);
