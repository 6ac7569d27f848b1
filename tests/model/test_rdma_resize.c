/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RESIZE_CQ (contract 1.2, ROCX_CAP2_CQ_RESIZE): unreturned CQEs move to
 * the new ring at the same indexes, completions in flight during the
 * command land in the new ring, the old ring is not touched afterwards,
 * the new ring's other slots read "not written" whatever memory held,
 * and a new depth below the entries outstanding fails with the CQ as it
 * was.  SRQ resizing is in test_rdma_srq.c, beside the SRQ's helpers.
 */
#include "rdma.h"

typedef struct TRes {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    uint64_t abuf, bbuf;
    uint16_t sent;
} TRes;

#define T_MSG 256

static void res_setup(TRes *r, unsigned ld)
{
    TConn conn;

    memset(r, 0, sizeof(*r));
    t_conn_default(&conn);
    CHECK_EQ(t_create_cq(A, &r->acq, ld, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &r->bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &r->qa, &r->acq, &r->acq, 6, 0, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &r->qb, &r->bcq, &r->bcq, 6, 6, 0),
             ROCX_AQ_STS_OK);
    t_connect(&r->qa, &r->qb, &conn);
    r->abuf = t_alloc(A, T_PAGE, T_PAGE);
    r->bbuf = t_alloc(B, 64 * T_MSG, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &r->amr, r->abuf, T_PAGE, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &r->bmr, r->bbuf, 64 * T_MSG,
                      ROCX_ACCESS_LOCAL_WRITE), ROCX_AQ_STS_OK);
}

/* n signalled SENDs from A, each with a receive posted on B; not pumped. */
static void res_send(TRes *r, unsigned n)
{
    struct rocx_sge sge;
    unsigned i;

    for (i = 0; i < n; i++) {
        sge = t_sge(&r->bmr, (uint64_t)(r->sent % 64) * T_MSG, T_MSG);
        t_post_recv(&r->qb, &sge, 1);
        sge = t_sge(&r->amr, 0, T_MSG);
        t_post_send(&r->qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &sge, 1,
                    0, 0, 0);
        r->sent++;
    }
    t_ring_rq(&r->qb);
    t_ring_sq(&r->qa);
}

static unsigned cq_resize_cmd(TCq *cq, unsigned ld, uint64_t ring,
                              uint8_t rsvd)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_RESIZE_CQ);
    struct rocx_aq_resize_cq *rc = (void *)&c;
    uint64_t len = 32ULL << ld;

    rc->cqn = htole32(cq->cqn);
    rc->log_depth = ld;
    rc->rsvd1[0] = rsvd;
    rc->pbl = t_pbl(cq->d, ring, len < T_PAGE ? T_PAGE : len, 12, -1);
    return t_aq(cq->d, &c, NULL);
}

/*
 * Resize to 2^ld in a new ring whose bytes are all @fill; on success the
 * old ring is scribbled over, so a device still using it fails the test.
 */
static unsigned cq_resize(TCq *cq, unsigned ld, uint8_t fill)
{
    uint64_t len = 32ULL << ld, old_len = 32ULL << cq->ld;
    uint64_t ring = t_alloc(cq->d, len < T_PAGE ? T_PAGE : len, T_PAGE);
    unsigned sts;

    memset(t_ptr(cq->d, ring, len), fill, len);
    sts = cq_resize_cmd(cq, ld, ring, 0);
    if (sts == ROCX_AQ_STS_OK) {
        memset(t_ptr(cq->d, cq->ring, old_len), 0x5a, old_len);
        cq->ring = ring;
        cq->ld = ld;
    }
    return sts;
}

static uint16_t cqe_idx(const struct rocx_cqe *e)
{
    return le16toh(e->wqe_idx);
}

static uint8_t cqe_status(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

/* The next n CQEs of A's CQ are the sends first..first+n-1, then none. */
static void expect_sends(TRes *r, uint16_t first, unsigned n)
{
    struct rocx_cqe e;
    unsigned i;

    for (i = 0; i < n; i++) {
        CHECK(t_poll(&r->acq, &e));
        CHECK_EQ(cqe_idx(&e), (uint16_t)(first + i));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    }
    CHECK(!t_poll(&r->acq, NULL));
}

static void t_cq_resize_live(void)
{
    uint64_t ring;
    TRes r;

    res_setup(&r, 2);
    res_send(&r, 3);
    t_pump();
    /* Three outstanding: two slots cannot hold them, and nothing moves. */
    CHECK_EQ(cq_resize(&r.acq, 1, 0), ROCX_AQ_STS_INVALID);
    ring = r.acq.ring;
    /* Grow with the three in place; the old ring is scribbled over. */
    CHECK_EQ(cq_resize(&r.acq, 3, 0xa5), ROCX_AQ_STS_OK);
    CHECK(r.acq.ring != ring);
    expect_sends(&r, 0, 3);
    /* Sends in flight across the command complete in the new ring. */
    res_send(&r, 4);
    CHECK_EQ(cq_resize(&r.acq, 4, 0), ROCX_AQ_STS_OK);
    t_pump();
    expect_sends(&r, 3, 4);
    /*
     * Shrink to two slots at consumer 10: that pass of a 2-entry ring has
     * phase 0, which zeroed memory has too, so only the device's stale
     * fill keeps the consumer from reading garbage.
     */
    res_send(&r, 3);
    t_pump();
    expect_sends(&r, 7, 3);
    CHECK_EQ(r.acq.ci, 10);
    CHECK_EQ(cq_resize(&r.acq, 1, 0), ROCX_AQ_STS_OK);
    CHECK(!t_poll(&r.acq, NULL));
    res_send(&r, 2);
    t_pump();
    expect_sends(&r, 10, 2);
}

static void t_cq_resize_errors(void)
{
    TRes r;
    TCq other;
    uint64_t ring;

    res_setup(&r, 2);
    ring = t_alloc(A, T_PAGE, T_PAGE);
    CHECK_EQ(cq_resize_cmd(&r.acq, 0, ring, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(cq_resize_cmd(&r.acq, 17, ring, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(cq_resize_cmd(&r.acq, 2, ring, 1), ROCX_AQ_STS_INVALID);
    other = r.acq;
    other.cqn = r.acq.cqn + 1;
    CHECK_EQ(cq_resize_cmd(&other, 2, ring, 0), ROCX_AQ_STS_NOT_FOUND);
    /* A page list smaller than the ring asked for. */
    {
        union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_RESIZE_CQ);
        struct rocx_aq_resize_cq *rc = (void *)&c;

        rc->cqn = htole32(r.acq.cqn);
        rc->log_depth = 10;
        rc->pbl = t_pbl(A, ring, T_PAGE, 12, -1);
        CHECK(t_aq(A, &c, NULL) != ROCX_AQ_STS_OK);
    }
    /* The CQ still works in its first ring. */
    res_send(&r, 2);
    t_pump();
    expect_sends(&r, 0, 2);
    /* Overflowed (in error): BAD_STATE. */
    res_send(&r, 5);
    t_pump();
    CHECK_EQ(cq_resize(&r.acq, 4, 0), ROCX_AQ_STS_BAD_STATE);
}

const TCase t_cases_resize[] = {
    T_CASE(cq_resize_live),
    T_CASE(cq_resize_errors),
};
const unsigned t_ncases_resize = ARRAY_SIZE(t_cases_resize);
