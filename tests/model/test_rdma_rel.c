/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reliable connection: loss and go-back-N retransmission, the local ACK
 * timeout and retry_cnt, RNR NAKs and rnr_retry, NAKs for remote access
 * and invalid requests, local errors, duplicates, flush after errors.
 */
#include "rdma.h"

#define MS      (1000 * 1000LL)
#define SEC     (1000 * MS)

typedef TRcPair TRel;

static void rel_setup(TRel *r, uint64_t size, const TConn *conn)
{
    const uint32_t acc = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
                         ROCX_ACCESS_REMOTE_READ;

    t_rc_pair(r, size, acc, acc, conn);
}

static uint8_t st(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static uint8_t qp_state(TQp *q)
{
    struct rocx_qp_attr a;

    CHECK_EQ(t_query(q, &a), ROCX_AQ_STS_OK);
    return a.state;
}

/* A WRITE, a SEND and a READ of len bytes each; checks all of it. */
static void three_ops(TRel *r, uint32_t len, uint32_t seed)
{
    uint64_t third = r->size / 3;
    struct rocx_sge s1 = t_sge(&r->amr, 0, len);
    struct rocx_sge s2 = t_sge(&r->amr, third, len);
    struct rocx_sge s3 = t_sge(&r->amr, 2 * third, len);
    struct rocx_sge rv = t_sge(&r->bmr, third, len);
    struct rocx_cqe e;
    unsigned i;

    t_fill(t_ptr(A, r->abuf, 2 * third), 2 * third, seed);
    t_fill(t_ptr(B, r->bbuf + 2 * third, len), len, seed + 1);
    memset(t_ptr(B, r->bbuf, 2 * third), 0, 2 * third);
    memset(t_ptr(A, r->abuf + 2 * third, len), 0, len);
    t_post_recv(&r->qb, &rv, 1);
    t_ring_rq(&r->qb);
    t_post_send(&r->qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s1, 1,
                r->bmr.iova, r->bmr.key, 0);
    t_post_send(&r->qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s2, 1, 0, 0, 0);
    t_post_send(&r->qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s3, 1,
                r->bmr.iova + 2 * third, r->bmr.key, 0);
    t_ring_sq(&r->qa);
    t_settle(60 * SEC);
    for (i = 0; i < 3; i++) {
        CHECK(t_poll(&r->acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    }
    CHECK(t_poll(&r->bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le32toh(e.byte_len), len);
    CHECK(!t_poll(&r->bcq, &e));
    CHECK(!memcmp(t_ptr(A, r->abuf, len), t_ptr(B, r->bbuf, len), len));
    CHECK(!memcmp(t_ptr(A, r->abuf + third, len),
                  t_ptr(B, r->bbuf + third, len), len));
    CHECK(!memcmp(t_ptr(A, r->abuf + 2 * third, len),
                  t_ptr(B, r->bbuf + 2 * third, len), len));
}

/* Drop frame n (either direction) for every n of a whole exchange. */
static void t_rel_drop_each_frame(void)
{
    unsigned n, total, retx = 0;
    TRel r;
    TConn conn;

    /* How many frames an undisturbed exchange takes. */
    t_conn_default(&conn);
    conn.mtu = 1;
    rel_setup(&r, 3 * 4096, &conn);
    three_ops(&r, 3000, 1);
    total = wire.sent;
    CHECK(total > 20);
    for (n = 1; n <= total; n++) {
        unsigned before = case_failures;

        t_teardown();
        t_setup();
        rel_setup(&r, 3 * 4096, &conn);
        wire.drop_nth = n;
        three_ops(&r, 3000, n + 1);
        CHECK_EQ(wire.dropped, 1);
        retx += A->f->core.rdma.stats.retransmits;
        CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
        if (case_failures != before) {
            fprintf(stderr, "    (dropped frame %u of %u)\n", n, total);
            return;
        }
    }
    /* Only a redundant ACK can go missing unnoticed. */
    CHECK(retx >= total - 2);
}

/*
 * Heavy random loss on big messages: 1 frame in 10, then 1 in 7.  (At 1
 * in 3 a READ can fail for real: its request and first response must
 * both get through within retry_cnt + 1 tries.)
 */
static void t_rel_lossy_big(void)
{
    TRel r;
    TConn conn;
    unsigned permille[] = { 100, 143 }, i;

    for (i = 0; i < ARRAY_SIZE(permille); i++) {
        t_teardown();
        t_setup();
        t_conn_default(&conn);
        conn.mtu = 3;
        conn.retry_cnt = 7;
        rel_setup(&r, 3 << 20, &conn);
        wire.drop_permille = permille[i];
        wire.rng = i + 1;
        three_ops(&r, 1 << 20, i);
        CHECK(wire.dropped > 50);
        CHECK_EQ(qp_state(&r.qa), ROCX_QPS_RTS);
    }
}

/* Many READs (more than may be in flight) and a fence, under loss. */
static void t_rel_lossy_reads(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;
    unsigned i;

    t_conn_default(&conn);
    conn.mtu = 2;
    rel_setup(&r, 64 * T_PAGE, &conn);
    t_fill(t_ptr(B, r.bbuf, 64 * T_PAGE), 64 * T_PAGE, 31);
    wire.drop_permille = 80;
    wire.rng = 7;
    for (i = 0; i < 16; i++) {
        s = t_sge(&r.amr, i * 4 * T_PAGE, 2 * T_PAGE + i * 100);
        t_post_send(&r.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                    r.bmr.iova + i * 4 * T_PAGE, r.bmr.key, 0);
        if (i % 5 == 4) {
            s = t_sge(&r.amr, 0, 64);
            t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE,
                        ROCX_WQE_SIGNALED | ROCX_WQE_FENCE, &s, 1,
                        r.bmr.iova + 63 * T_PAGE, r.bmr.key, 0);
        }
    }
    t_ring_sq(&r.qa);
    t_settle(600 * SEC);
    for (i = 0; i < 19; i++) {
        CHECK(t_poll(&r.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    }
    for (i = 0; i < 16; i++) {
        CHECK(!memcmp(t_ptr(A, r.abuf + i * 4 * T_PAGE, 2 * T_PAGE + i * 100),
                      t_ptr(B, r.bbuf + i * 4 * T_PAGE, 2 * T_PAGE + i * 100),
                      2 * T_PAGE + i * 100));
    }
    CHECK(wire.dropped > 5);
    CHECK(A->f->core.rdma.stats.retransmits > 0);
}

static void t_rel_peer_gone(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;
    int64_t t0;
    unsigned i;

    t_conn_default(&conn);
    conn.retry_cnt = 3;
    conn.timeout = 17;                      /* 4.096 us << 17 = 537 ms */
    rel_setup(&r, T_PAGE, &conn);
    wire.drop_from = 1;
    s = t_sge(&r.amr, 0, 100);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, 0, &s, 1, r.bmr.iova,
                r.bmr.key, 0);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t0 = A->f->now;
    t_pump();
    CHECK_EQ(wire.sent, 2);
    /* Nothing happens before the timeout. */
    fake_advance(A->f, 536 * MS);
    fake_advance(B->f, 536 * MS);
    t_pump();
    CHECK_EQ(wire.sent, 2);
    t_settle(100 * SEC);
    /* The first try and retry_cnt retries of both packets, go-back-N. */
    CHECK_EQ(wire.sent, 2 * (1 + 3));
    CHECK_EQ(A->f->core.rdma.stats.timeouts, 4);
    CHECK(A->f->now - t0 >= 4 * (4096LL << 17));
    CHECK(A->f->now - t0 < 5 * (4096LL << 17));
    /* The unsignalled WRITE fails with RETRY_EXC; the SEND is flushed. */
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_RETRY_EXC_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_TIMEOUT);
    CHECK_EQ(le16toh(e.wqe_idx), 0);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 1);
    CHECK(!t_poll(&r.acq, &e));
    CHECK_EQ(qp_state(&r.qa), ROCX_QPS_ERR);
    /* Later posts are flushed at once. */
    for (i = 0; i < 3; i++) {
        t_post_send(&r.qa, ROCX_WQE_SEND, 0, &s, 1, 0, 0, 0);
    }
    t_ring_sq(&r.qa);
    t_pump();
    for (i = 0; i < 3; i++) {
        CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_WR_FLUSH_ERR);
    }
    CHECK_EQ(wire.sent, 8);
    CHECK(!A->f->timer_armed ||
          rocx_qp_get(&A->f->core, r.qa.qpn)->req.deadline == 0);
}

/* The timeout honours the attribute above the floor, and the floor. */
static void t_rel_timeout_values(void)
{
    static const struct {
        uint8_t timeout;
        int64_t ns;
    } v[] = {
        { 1, ROCX_CORE_MIN_ACK_TIMEOUT_NS },
        { 12, ROCX_CORE_MIN_ACK_TIMEOUT_NS },   /* 16.8 ms > 10: 2^12 */
        { 20, 4096LL << 20 },
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(v); i++) {
        TRel r;
        TConn conn;
        struct rocx_sge s;
        int64_t want = MAX(v[i].ns, 4096LL << v[i].timeout);

        t_teardown();
        t_setup();
        t_conn_default(&conn);
        conn.timeout = v[i].timeout;
        conn.retry_cnt = 1;
        rel_setup(&r, T_PAGE, &conn);
        wire.drop_nth = 1;
        s = t_sge(&r.amr, 0, 8);
        t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                    r.bmr.iova, r.bmr.key, 0);
        t_ring_sq(&r.qa);
        t_pump();
        CHECK(A->f->timer_armed);
        CHECK_EQ(A->f->timer_deadline - A->f->now, want);
        fake_advance(A->f, want - 1);
        t_pump();
        CHECK_EQ(wire.sent, 1);
        fake_advance(A->f, 1);
        B->f->now = A->f->now;
        t_pump();
        CHECK_EQ(wire.sent, 3);             /* resent, and its ACK */
        CHECK(t_poll(&r.acq, NULL));
    }
    /* timeout 0: no timer at all (IB: infinite). */
    {
        TRel r;
        TConn conn;
        struct rocx_sge s;

        t_teardown();
        t_setup();
        t_conn_default(&conn);
        conn.timeout = 0;
        rel_setup(&r, T_PAGE, &conn);
        wire.drop_nth = 1;
        s = t_sge(&r.amr, 0, 8);
        t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
        t_ring_sq(&r.qa);
        t_pump();
        CHECK(!A->f->timer_armed);
    }
}

/*
 * Requests the responder refuses: R_Key, range and MR-rights violations
 * are remote access errors; an operation the QP's access flags do not
 * enable is an invalid request (IBTA; rxe's check_op_valid()), zero
 * length or not.  Either way the requester completes with the matching
 * status and the responder's QP reports why with QP_ERROR.
 */
static void t_rel_remote_access(void)
{
    static const struct {
        const char *what;
        uint8_t op;
        int64_t off;
        uint32_t len;
        bool bad_key;
        uint32_t mr_access;
        uint32_t qp_access;
        uint8_t status;         /* the requester's completion */
        uint8_t nak_verr;       /* ... its vendor_err */
        uint8_t verr;           /* the responder's QP_ERROR reason */
    } v[] = {
        { "bad rkey", ROCX_WQE_RDMA_WRITE, 0, 100, true, 0xf, 0x7,
          ROCX_WC_REM_ACCESS_ERR, ROCX_VERR_NAK_ACCESS, ROCX_VERR_BAD_LKEY },
        { "write past end", ROCX_WQE_RDMA_WRITE, 4000, 200, false, 0xf, 0x7,
          ROCX_WC_REM_ACCESS_ERR, ROCX_VERR_NAK_ACCESS,
          ROCX_VERR_LKEY_BOUNDS },
        { "read before start", ROCX_WQE_RDMA_READ, -1, 10, false, 0xf, 0x7,
          ROCX_WC_REM_ACCESS_ERR, ROCX_VERR_NAK_ACCESS,
          ROCX_VERR_LKEY_BOUNDS },
        { "MR not writable", ROCX_WQE_RDMA_WRITE_IMM, 0, 10, false,
          ROCX_ACCESS_REMOTE_READ | ROCX_ACCESS_LOCAL_WRITE, 0x7,
          ROCX_WC_REM_ACCESS_ERR, ROCX_VERR_NAK_ACCESS,
          ROCX_VERR_LKEY_ACCESS },
        { "MR not readable", ROCX_WQE_RDMA_READ, 0, 5000, false,
          ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_LOCAL_WRITE, 0x7,
          ROCX_WC_REM_ACCESS_ERR, ROCX_VERR_NAK_ACCESS,
          ROCX_VERR_LKEY_ACCESS },
        { "QP not writable", ROCX_WQE_RDMA_WRITE, 0, 10, false, 0xf,
          ROCX_ACCESS_REMOTE_READ, ROCX_WC_REM_INV_REQ_ERR,
          ROCX_VERR_NAK_INVALID, ROCX_VERR_NAK_INVALID },
        { "QP not writable, WRITE with immediate",
          ROCX_WQE_RDMA_WRITE_IMM, 0, 10, false, 0xf,
          ROCX_ACCESS_REMOTE_READ, ROCX_WC_REM_INV_REQ_ERR,
          ROCX_VERR_NAK_INVALID, ROCX_VERR_NAK_INVALID },
        { "QP not writable, zero length", ROCX_WQE_RDMA_WRITE, 0, 0, false,
          0xf, ROCX_ACCESS_REMOTE_READ, ROCX_WC_REM_INV_REQ_ERR,
          ROCX_VERR_NAK_INVALID, ROCX_VERR_NAK_INVALID },
        { "QP not readable", ROCX_WQE_RDMA_READ, 0, 10, false, 0xf,
          ROCX_ACCESS_REMOTE_WRITE, ROCX_WC_REM_INV_REQ_ERR,
          ROCX_VERR_NAK_INVALID, ROCX_VERR_NAK_INVALID },
        { "QP not readable, zero length", ROCX_WQE_RDMA_READ, 0, 0, false,
          0xf, ROCX_ACCESS_REMOTE_WRITE, ROCX_WC_REM_INV_REQ_ERR,
          ROCX_VERR_NAK_INVALID, ROCX_VERR_NAK_INVALID },
        { "QP not readable, bad rkey too", ROCX_WQE_RDMA_READ, 0, 10, true,
          0xf, ROCX_ACCESS_REMOTE_WRITE, ROCX_WC_REM_INV_REQ_ERR,
          ROCX_VERR_NAK_INVALID, ROCX_VERR_NAK_INVALID },
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(v); i++) {
        TRel r;
        TConn conn;
        TMr mr;
        struct rocx_sge s, rv;
        struct rocx_cqe e;
        struct rocx_eqe *ev;
        uint64_t buf;
        unsigned before = case_failures, qp_err = 0;

        t_teardown();
        t_setup();
        t_conn_default(&conn);
        conn.access = v[i].qp_access;
        rel_setup(&r, 8 * T_PAGE, &conn);
        buf = t_alloc(B, T_PAGE, T_PAGE);
        CHECK_EQ(t_reg_mr(B, &mr, buf, T_PAGE, v[i].mr_access & 0x7),
                 ROCX_AQ_STS_OK);
        memset(t_ptr(B, buf, T_PAGE), 0x11, T_PAGE);
        rv = t_sge(&r.bmr, 0, 64);
        t_post_recv(&r.qb, &rv, 1);
        t_post_recv(&r.qb, &rv, 1);
        t_ring_rq(&r.qb);
        s = t_sge(&r.amr, 0, v[i].len);
        t_post_send(&r.qa, v[i].op, 0, &s, 1, mr.iova + v[i].off,
                    v[i].bad_key ? mr.key ^ 0x100 : mr.key, 0);
        t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
        t_ring_sq(&r.qa);
        t_settle(10 * SEC);
        /* Requester: the NAK's status, the rest flushed, QP in ERR. */
        CHECK(t_poll(&r.acq, &e));
        CHECK_EQ(st(&e), v[i].status);
        CHECK_EQ(e.vendor_err, v[i].nak_verr);
        CHECK_EQ(le16toh(e.wqe_idx), 0);
        CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_WR_FLUSH_ERR);
        CHECK_EQ(qp_state(&r.qa), ROCX_QPS_ERR);
        /* Responder: nothing written, QP in ERR, told by QP_ERROR. */
        CHECK_EQ(((uint8_t *)t_ptr(B, buf, T_PAGE))[0], 0x11);
        CHECK_EQ(qp_state(&r.qb), ROCX_QPS_ERR);
        while ((ev = t_eq_next(B, 0))) {
            if (le16toh(ev->type) == ROCX_EQE_QP_ERROR &&
                le32toh(ev->data) == r.qb.qpn &&
                le64toh(ev->info) == v[i].verr) {
                qp_err++;
            }
        }
        CHECK_EQ(qp_err, 1);
        CHECK(t_poll(&r.bcq, &e) && st(&e) == ROCX_WC_WR_FLUSH_ERR);
        CHECK(t_poll(&r.bcq, &e) && st(&e) == ROCX_WC_WR_FLUSH_ERR);
        CHECK_EQ(B->f->core.rdma.stats.naks_sent, 1);
        if (case_failures != before) {
            fprintf(stderr, "    (%s)\n", v[i].what);
            return;
        }
    }
}

static void t_rel_rnr(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge s, rv;
    struct rocx_cqe e;
    unsigned i;

    /* rnr_retry 7: waits as long as it takes; min_rnr_timer 14: 1.28 ms. */
    t_conn_default(&conn);
    conn.min_rnr_timer = 14;
    rel_setup(&r, 4 * T_PAGE, &conn);
    t_fill(t_ptr(A, r.abuf, 3000), 3000, 4);
    s = t_sge(&r.amr, 0, 3000);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    for (i = 0; i < 20; i++) {
        t_pump();
        fake_advance(A->f, 1280 * 1000);
        fake_advance(B->f, 1280 * 1000);
    }
    t_pump();
    CHECK(B->f->core.rdma.stats.rnr_naks_sent >= 20);
    CHECK(!t_poll(&r.acq, &e));
    rv = t_sge(&r.bmr, 0, 4000);
    t_post_recv(&r.qb, &rv, 1);
    t_ring_rq(&r.qb);
    t_settle(SEC);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    CHECK(t_poll(&r.bcq, &e) && le32toh(e.byte_len) == 3000);
    CHECK(!memcmp(t_ptr(A, r.abuf, 3000), t_ptr(B, r.bbuf, 3000), 3000));
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_RTS);

    /* rnr_retry 2: three RNR NAKs end it. */
    t_teardown();
    t_setup();
    conn.rnr_retry = 2;
    rel_setup(&r, 4 * T_PAGE, &conn);
    s = t_sge(&r.amr, 0, 10);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE_IMM, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 7);
    t_ring_sq(&r.qa);
    t_settle(10 * SEC);
    CHECK_EQ(B->f->core.rdma.stats.rnr_naks_sent, 3);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_RNR_RETRY_EXC_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_RNR);
    /* The responder is fine: RNR is no error there. */
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_RTS);
}

static void t_rel_recv_too_small(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge s, rv;
    struct rocx_cqe e;

    t_conn_default(&conn);
    conn.mtu = 1;
    rel_setup(&r, 4 * T_PAGE, &conn);
    rv = t_sge(&r.bmr, 0, 1000);
    t_post_recv(&r.qb, &rv, 1);
    t_post_recv(&r.qb, &rv, 1);
    t_ring_rq(&r.qb);
    s = t_sge(&r.amr, 0, 2000);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_settle(SEC);
    CHECK(t_poll(&r.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_LOC_LEN_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_RQ_OVERFLOW);
    CHECK_EQ(le16toh(e.wqe_idx), 0);
    CHECK(t_poll(&r.bcq, &e) && st(&e) == ROCX_WC_WR_FLUSH_ERR);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_REM_INV_REQ_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_NAK_INVALID);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(qp_state(&r.qa), ROCX_QPS_ERR);
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_ERR);
}

static void t_rel_local_errors(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge s, rv;
    struct rocx_cqe e;
    uint8_t *w;

    /* A bad lkey: LOC_PROT_ERR before anything is sent. */
    t_conn_default(&conn);
    rel_setup(&r, 4 * T_PAGE, &conn);
    s = t_sge(&r.amr, 0, 10);
    s.lkey ^= htole32(0x1);
    t_post_send(&r.qa, ROCX_WQE_SEND, 0, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_LOC_PROT_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_BAD_LKEY);
    CHECK_EQ(wire.sent, 0);
    /* A READ into memory without LOCAL_WRITE. */
    t_teardown();
    t_setup();
    rel_setup(&r, 4 * T_PAGE, &conn);
    {
        TMr ro;

        CHECK_EQ(t_reg_mr(A, &ro, r.abuf, T_PAGE, 0), ROCX_AQ_STS_OK);
        s = t_sge(&ro, 0, 10);
    }
    t_post_send(&r.qa, ROCX_WQE_RDMA_READ, 0, &s, 1, r.bmr.iova, r.bmr.key,
                0);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_LOC_PROT_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_LKEY_ACCESS);
    /* A stale wqe_idx: LOC_QP_OP_ERR, BAD_WQE, QP in ERR. */
    t_teardown();
    t_setup();
    rel_setup(&r, 4 * T_PAGE, &conn);
    s = t_sge(&r.amr, 0, 10);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    w = t_ptr(A, r.qa.buf, 64);
    w[12] = 5;                              /* wqe_idx 5 in slot 0 */
    t_ring_sq(&r.qa);
    t_pump();
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_BAD_WQE);
    CHECK_EQ(qp_state(&r.qa), ROCX_QPS_ERR);
    /* Unknown and unsupported opcodes. */
    t_teardown();
    t_setup();
    rel_setup(&r, 4 * T_PAGE, &conn);
    t_post_send(&r.qa, 0x7f, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_LOC_QP_OP_ERR);
    /* A receive WQE with a stale index: the responder fails, NAKs. */
    t_teardown();
    t_setup();
    rel_setup(&r, 4 * T_PAGE, &conn);
    rv = t_sge(&r.bmr, 0, 100);
    t_post_recv(&r.qb, &rv, 1);
    w = t_ptr(B, r.qb.buf + (64 << 9), 16);
    w[2] = 9;
    t_ring_rq(&r.qb);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_settle(SEC);
    CHECK(t_poll(&r.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_LOC_QP_OP_ERR);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_REM_OP_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_NAK_OPERATION);
    /* A receive SGE with a bad key: LOC_PROT_ERR there, REM_OP_ERR here. */
    t_teardown();
    t_setup();
    rel_setup(&r, 4 * T_PAGE, &conn);
    rv = t_sge(&r.bmr, 0, 100);
    rv.lkey = htole32(0x12345);
    t_post_recv(&r.qb, &rv, 1);
    t_ring_rq(&r.qb);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_settle(SEC);
    CHECK(t_poll(&r.bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_LOC_PROT_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_BAD_LKEY);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_REM_OP_ERR);
}

/* Keep a copy of the first request B receives, to replay it. */
static uint8_t saved[ROCX_MAX_FRAME];
static size_t saved_len;

static bool save_first(TDev *from, uint8_t *buf, size_t *len)
{
    if (from == A && !saved_len) {
        memcpy(saved, buf, *len);
        saved_len = *len;
    }
    return true;
}

static void t_rel_duplicates(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge s, rv;
    struct rocx_cqe e;
    unsigned sent;

    saved_len = 0;
    t_conn_default(&conn);
    rel_setup(&r, 4 * T_PAGE, &conn);
    wire.filter = save_first;
    rv = t_sge(&r.bmr, 0, 100);
    t_post_recv(&r.qb, &rv, 1);
    t_post_recv(&r.qb, &rv, 1);
    t_ring_rq(&r.qb);
    s = t_sge(&r.amr, 0, 50);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    CHECK(t_poll(&r.bcq, &e));
    /* The same SEND again: acknowledged, not executed a second time. */
    sent = B->f->nframes;
    t_inject(B, saved, saved_len);
    t_pump();
    CHECK_EQ(B->f->nframes, sent + 1);
    CHECK(!t_poll(&r.bcq, &e));
    CHECK_EQ(B->f->core.rdma.stats.dup_requests, 1);
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_RTS);
    /* The stale ACK changes nothing at A. */
    CHECK(!t_poll(&r.acq, &e));
    CHECK_EQ(qp_state(&r.qa), ROCX_QPS_RTS);
    /* A READ replayed is answered again. */
    saved_len = 0;
    t_fill(t_ptr(B, r.bbuf, 200), 200, 3);
    s = t_sge(&r.amr, 0, 200);
    t_post_send(&r.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    sent = B->f->nframes;
    t_inject(B, saved, saved_len);
    t_pump();
    CHECK_EQ(B->f->nframes, sent + 1);
    CHECK(!t_poll(&r.acq, &e));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* A PSN ahead of the expected one: one NAK, then silence. */
static void t_rel_sequence_nak(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;
    unsigned i;

    t_conn_default(&conn);
    conn.mtu = 1;
    rel_setup(&r, 16 * T_PAGE, &conn);
    wire.drop_nth = 2;                      /* the 2nd of 40 packets */
    s = t_sge(&r.amr, 0, 40 * 256);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK_EQ(B->f->core.rdma.stats.naks_sent, 1);
    CHECK_EQ(A->f->core.rdma.stats.naks_rcvd, 1);
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 1);
    CHECK_EQ(A->f->core.rdma.stats.timeouts, 0);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    for (i = 0; i < 40 * 256; i++) {
        if (((uint8_t *)t_ptr(A, r.abuf, 40 * 256))[i] !=
            ((uint8_t *)t_ptr(B, r.bbuf, 40 * 256))[i]) {
            break;
        }
    }
    CHECK_EQ(i, 40 * 256);
}

/* A READ response lost in the middle: asked for again from there. */
static void t_rel_read_gap(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;

    t_conn_default(&conn);
    conn.mtu = 3;
    rel_setup(&r, 64 * T_PAGE, &conn);
    t_fill(t_ptr(B, r.bbuf, 64 * T_PAGE), 64 * T_PAGE, 77);
    wire.drop_nth = 10;                     /* request, then responses */
    s = t_sge(&r.amr, 0, 64 * T_PAGE);
    t_post_send(&r.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(A, r.abuf, 64 * T_PAGE), t_ptr(B, r.bbuf, 64 * T_PAGE),
                  64 * T_PAGE));
    CHECK_EQ(A->f->core.rdma.stats.timeouts, 0);
    CHECK(A->f->core.rdma.stats.retransmits >= 1);
}

/* The BTH of a RoCE v2 IPv4 frame as the tests' devices send them. */
static uint8_t *rel_bth(uint8_t *buf)
{
    return buf + ETH_HLEN + ROCX_IPV4_HLEN + ROCX_UDP_HLEN;
}

static bool rel_is_nak(const uint8_t *buf, size_t len)
{
    uint8_t *bth = rel_bth((uint8_t *)buf);

    return len >= ETH_HLEN + ROCX_IPV4_HLEN + ROCX_UDP_HLEN + ROCX_BTH_LEN +
                  ROCX_AETH_LEN &&
           rocx_bth_opcode(bth) == ROCX_OP_ACK &&
           (rocx_aeth_syndrome(bth, rocx_op_flags(ROCX_OP_ACK)) &
            ROCX_AETH_KIND_MASK) == ROCX_AETH_NAK;
}

/*
 * A frame delivered from inside A's engine, as QEMU's net layer can
 * (another device that the engine's DMA reaches sends it, or a backend
 * answers at once): nest_buf waits for A's next payload read, held_buf
 * is what the receive refused, for A's rx_resume to deliver.
 */
static uint8_t nest_buf[ROCX_MAX_FRAME], held_buf[ROCX_MAX_FRAME];
static size_t nest_len, held_len;
static unsigned nested, nest_refused;

static bool nest_naks(TDev *from, uint8_t *buf, size_t *len)
{
    if (from == B && !nest_len && !nested && rel_is_nak(buf, *len)) {
        memcpy(nest_buf, buf, *len);
        nest_len = *len;
        return false;
    }
    return true;
}

static void nest_on_dma(FakeDev *f, uint64_t addr, size_t len, bool write)
{
    ssize_t r;

    if (!nest_len || write || !f->core.in_engine) {
        return;
    }
    nested++;
    len = nest_len;
    nest_len = 0;
    r = rocx_core_receive(&f->core, nest_buf, len);
    if (r == 0) {
        /* Refused: QEMU queues it and waits for qemu_flush_queued_packets. */
        nest_refused++;
        memcpy(held_buf, nest_buf, len);
        held_len = len;
    } else {
        CHECK_EQ(r, len);
    }
}

static void nest_resume(FakeDev *f)
{
    size_t len = held_len;

    if (len) {
        held_len = 0;
        CHECK_EQ(rocx_core_receive(&f->core, held_buf, len), len);
    }
}

/*
 * A NAK that arrives while the requester's engine is reading the payload
 * of a later packet.  Taken there, it would move the send position back
 * under rocx_req_run(), which would then step past the PSN the NAK asked
 * for: the responder would never see it again and, with no ACK timeout,
 * the WRITE would never complete.  The receive path must refuse a
 * frame while the engine runs and take it once the engine is done.
 */
static void t_rel_nested_receive(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;
    const uint32_t len = 300 * 256;

    nest_len = held_len = 0;
    nested = nest_refused = 0;
    t_conn_default(&conn);
    conn.mtu = 1;
    conn.timeout = 0;                       /* no timer to paper over it */
    rel_setup(&r, len, &conn);
    t_fill(t_ptr(A, r.abuf, len), len, 17);
    wire.drop_nth = 2;                      /* so B NAKs a sequence error */
    wire.filter = nest_naks;
    A->f->on_dma = nest_on_dma;
    A->f->on_rx_resume = nest_resume;
    s = t_sge(&r.amr, 0, len);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_settle(10 * SEC);
    CHECK_EQ(nested, 1);
    CHECK_EQ(nest_refused, 1);
    CHECK_EQ(A->f->core.rdma.stats.naks_rcvd, 1);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(A, r.abuf, len), t_ptr(B, r.bbuf, len), len));
    CHECK_EQ(qp_state(&r.qa), ROCX_QPS_RTS);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* Drop the first frame of each of these opcodes, once, either way. */
static uint8_t drop_ops[4];
static unsigned ndrop_ops;

static bool drop_first_of(TDev *from, uint8_t *buf, size_t *len)
{
    uint8_t op = rocx_bth_opcode(rel_bth(buf));
    unsigned i;

    for (i = 0; i < ndrop_ops; i++) {
        if (drop_ops[i] == op) {
            drop_ops[i] = drop_ops[--ndrop_ops];
            return false;
        }
    }
    return true;
}

/*
 * A NAK for a request behind a READ whose response was lost.  The NAK
 * acknowledges the READ's PSN, so the response is missing: an implied
 * NAK, which goes back to the READ at once.  A completer that ignored
 * that, and then the NAK too (its PSN is not the oldest unacknowledged
 * one), would leave recovery to the ACK timeout, and with timeout 0 to
 * nothing.  A fatal NAK there ends the QP at once, its
 * status on the READ, the oldest WQE: the responder is in ERR, and a
 * retry can only run out.
 */
static void t_rel_nak_behind_read(void)
{
    TRel r;
    TConn conn;
    struct rocx_sge rd, wr, rv;
    struct rocx_cqe e;

    /* A sequence-error NAK: the WRITE's first packet was lost too. */
    t_conn_default(&conn);
    conn.mtu = 1;
    conn.timeout = 0;
    rel_setup(&r, 4 * T_PAGE, &conn);
    t_fill(t_ptr(A, r.abuf, 4 * T_PAGE), 4 * T_PAGE, 5);
    t_fill(t_ptr(B, r.bbuf + 2 * T_PAGE, 100), 100, 6);
    ndrop_ops = 0;
    drop_ops[ndrop_ops++] = ROCX_OP_READ_RESP_ONLY;
    drop_ops[ndrop_ops++] = ROCX_OP_WRITE_FIRST;
    wire.filter = drop_first_of;
    rd = t_sge(&r.amr, 2 * T_PAGE, 100);
    wr = t_sge(&r.amr, 0, 3 * 256);
    t_post_send(&r.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &rd, 1,
                r.bmr.iova + 2 * T_PAGE, r.bmr.key, 0);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &wr, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_settle(10 * SEC);
    CHECK_EQ(wire.dropped, 2);
    CHECK_EQ(B->f->core.rdma.stats.naks_sent, 1);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 0);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 1);
    CHECK(!memcmp(t_ptr(A, r.abuf + 2 * T_PAGE, 100),
                  t_ptr(B, r.bbuf + 2 * T_PAGE, 100), 100));
    CHECK(!memcmp(t_ptr(A, r.abuf, 3 * 256), t_ptr(B, r.bbuf, 3 * 256),
                  3 * 256));
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 1);

    /* An RNR NAK for a SEND behind it: the READ completes meanwhile. */
    t_teardown();
    t_setup();
    rel_setup(&r, 4 * T_PAGE, &conn);
    t_fill(t_ptr(B, r.bbuf + 2 * T_PAGE, 100), 100, 7);
    ndrop_ops = 0;
    drop_ops[ndrop_ops++] = ROCX_OP_READ_RESP_ONLY;
    wire.filter = drop_first_of;
    rd = t_sge(&r.amr, 2 * T_PAGE, 100);
    wr = t_sge(&r.amr, 0, 64);
    t_post_send(&r.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &rd, 1,
                r.bmr.iova + 2 * T_PAGE, r.bmr.key, 0);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &wr, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_settle(100 * MS);
    CHECK(B->f->core.rdma.stats.rnr_naks_sent >= 2);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 0);
    CHECK(!memcmp(t_ptr(A, r.abuf + 2 * T_PAGE, 100),
                  t_ptr(B, r.bbuf + 2 * T_PAGE, 100), 100));
    CHECK(!t_poll(&r.acq, &e));
    rv = t_sge(&r.bmr, 0, 64);
    t_post_recv(&r.qb, &rv, 1);
    t_ring_rq(&r.qb);
    t_settle(SEC);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 1);
    CHECK(t_poll(&r.bcq, &e) && st(&e) == ROCX_WC_SUCCESS);

    /* A remote access NAK for a WRITE behind it: the QP ends at once. */
    t_teardown();
    t_setup();
    rel_setup(&r, 4 * T_PAGE, &conn);
    ndrop_ops = 0;
    drop_ops[ndrop_ops++] = ROCX_OP_READ_RESP_ONLY;
    wire.filter = drop_first_of;
    t_post_send(&r.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &rd, 1,
                r.bmr.iova + 2 * T_PAGE, r.bmr.key, 0);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &wr, 1,
                r.bmr.iova, r.bmr.key ^ 0x100, 0);
    t_ring_sq(&r.qa);
    t_settle(10 * SEC);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_REM_ACCESS_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 0);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(qp_state(&r.qa), ROCX_QPS_ERR);
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_ERR);
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 0);
}

/* A's READ requests, kept instead of delivered, to hand to B by hand. */
static uint8_t rd_req[6][ROCX_MAX_FRAME];
static size_t rd_req_len[6];
static unsigned nrd_req;
static bool rd_hold;                    /* keep them from B as well */

static bool keep_reads(TDev *from, uint8_t *buf, size_t *len)
{
    if (from == A && rocx_bth_opcode(rel_bth(buf)) == ROCX_OP_READ_REQ &&
        nrd_req < ARRAY_SIZE(rd_req)) {
        memcpy(rd_req[nrd_req], buf, *len);
        rd_req_len[nrd_req++] = *len;
        return !rd_hold;
    }
    return true;
}

/* Fix a captured frame's IPv4 checksum and ICRC after a change. */
static void rel_refresh(uint8_t *f, size_t len)
{
    uint8_t *ip = f + ETH_HLEN, *bth = rel_bth(f);

    stw_be_p(ip + 10, 0);
    stw_be_p(ip + 10, net_raw_checksum(ip, ROCX_IPV4_HLEN));
    rocx_icrc_put(f + len - ROCX_ICRC_LEN,
                  rocx_icrc(ROCX_NET_ROCE_V2_IPV4, ip, bth,
                            f + len - ROCX_ICRC_LEN));
}

static unsigned qp_errors(TDev *d, uint32_t qpn, uint64_t info)
{
    struct rocx_eqe *ev;
    unsigned n = 0;

    while ((ev = t_eq_next(d, 0))) {
        n += le16toh(ev->type) == ROCX_EQE_QP_ERROR &&
             le32toh(ev->data) == qpn && le64toh(ev->info) == info;
    }
    return n;
}

static void post_read(TRel *r, uint64_t off, uint32_t len)
{
    struct rocx_sge s = t_sge(&r->amr, off, len);

    t_post_send(&r->qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                r->bmr.iova + off, r->bmr.key, 0);
}

/*
 * Duplicate READ requests, which a requester sends when responses were
 * lost.  One is answered again only
 * if it asks for the rest of one of the responder's last
 * max_dest_rd_atomic READs from its PSN (its "responder resources"), and
 * its R_Key is checked again like a new one's; others are dropped.  The
 * READs queued behind it are answered as well, not forgotten.
 */
static void t_rel_dup_read(void)
{
    TRel r;
    TConn conn;
    struct rocx_cqe e;
    uint8_t f[ROCX_MAX_FRAME];
    size_t len;
    unsigned sent, i;

    t_conn_default(&conn);
    conn.mtu = 1;
    conn.timeout = 0;                   /* what is lost stays lost */

    /* Longer than the READ it repeats: dropped, not answered. */
    nrd_req = 0;
    rd_hold = false;
    rel_setup(&r, 16 * T_PAGE, &conn);
    t_fill(t_ptr(B, r.bbuf, 16 * T_PAGE), 16 * T_PAGE, 8);
    wire.filter = keep_reads;
    post_read(&r, 0, 100);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    CHECK_EQ(nrd_req, 1);
    len = rd_req_len[0];
    memcpy(f, rd_req[0], len);
    stl_be_p(rel_bth(f) + ROCX_BTH_LEN + ROCX_RETH_DMALEN, 4000);
    rel_refresh(f, len);
    sent = B->f->nframes;
    t_inject(B, f, len);
    t_pump();
    CHECK_EQ(B->f->nframes, sent);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), 1);
    /* As it was: answered again, once. */
    t_inject(B, rd_req[0], len);
    t_pump();
    CHECK_EQ(B->f->nframes, sent + 1);
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_RTS);
    CHECK(!t_poll(&r.acq, &e));

    /* Its MR is gone: NAK remote access error, not silence. */
    CHECK_EQ(t_dereg_mr(B, r.bmr.key), ROCX_AQ_STS_OK);
    t_inject(B, rd_req[0], len);
    t_pump();
    CHECK_EQ(B->f->core.rdma.stats.naks_sent, 1);
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_ERR);
    CHECK_EQ(qp_errors(B, r.qb.qpn, ROCX_VERR_BAD_LKEY), 1);

    /*
     * A stale duplicate arriving behind two newer READs: all three are
     * answered, and A completes both new ones.
     */
    t_teardown();
    t_setup();
    nrd_req = 0;
    rd_hold = false;
    rel_setup(&r, 16 * T_PAGE, &conn);
    t_fill(t_ptr(B, r.bbuf, 16 * T_PAGE), 16 * T_PAGE, 9);
    wire.filter = keep_reads;
    post_read(&r, 0, 100);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    rd_hold = true;
    post_read(&r, T_PAGE, 1000);
    post_read(&r, 2 * T_PAGE, 1000);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK_EQ(nrd_req, 3);
    t_inject(B, rd_req[1], rd_req_len[1]);
    t_inject(B, rd_req[2], rd_req_len[2]);
    t_inject(B, rd_req[0], rd_req_len[0]);
    t_pump();
    for (i = 0; i < 2; i++) {
        CHECK(t_poll(&r.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.wqe_idx), i + 1);
    }
    for (i = 0; i < 3; i++) {
        CHECK(!memcmp(t_ptr(A, r.abuf + i * T_PAGE, i ? 1000 : 100),
                      t_ptr(B, r.bbuf + i * T_PAGE, i ? 1000 : 100),
                      i ? 1000 : 100));
    }
    CHECK_EQ(qp_state(&r.qa), ROCX_QPS_RTS);
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_RTS);

    /*
     * Outside the window: after max_dest_rd_atomic (4) newer READs the
     * first is no longer held, and a duplicate of it is dropped.
     */
    t_teardown();
    t_setup();
    nrd_req = 0;
    rd_hold = false;
    rel_setup(&r, 16 * T_PAGE, &conn);
    wire.filter = keep_reads;
    for (i = 0; i < 5; i++) {
        post_read(&r, i * T_PAGE, 300);
    }
    t_ring_sq(&r.qa);
    t_pump();
    for (i = 0; i < 5; i++) {
        CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    }
    CHECK_EQ(nrd_req, 5);
    sent = B->f->nframes;
    t_inject(B, rd_req[1], rd_req_len[1]);
    t_pump();
    CHECK_EQ(B->f->nframes, sent + 2);          /* 300 bytes, MTU 256 */
    t_inject(B, rd_req[0], rd_req_len[0]);
    t_pump();
    CHECK_EQ(B->f->nframes, sent + 2);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), 1);
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_RTS);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

static bool drop_first_send(TDev *from, uint8_t *buf, size_t *len)
{
    if (from == A && !saved_len) {
        memcpy(saved, buf, *len);
        saved_len = *len;
        return false;
    }
    return true;
}

/*
 * A consumer may destroy its QP, or move it to ERR or RESET (rdma_cm's
 * disconnect does), as soon as it has the last receive completion, which
 * the receive path writes before the responder's turn on the line sends
 * the ACK.  The ACK owed must still go out, or the peer's last message
 * ends in a retry error (ibv_rc_pingpong's server, once, on a loaded
 * host) or is flushed when it disconnects in turn (ib_isert's logout
 * response, WARN in iscsit_release_cmd).
 */
static void owed_ack_case(int how)
{
    TRel r;
    TConn conn;
    struct rocx_sge s, rv;
    struct rocx_cqe e;
    unsigned sent;

    saved_len = 0;
    t_conn_default(&conn);
    rel_setup(&r, 4 * T_PAGE, &conn);
    wire.filter = drop_first_send;
    rv = t_sge(&r.bmr, 0, 100);
    t_post_recv(&r.qb, &rv, 1);
    t_ring_rq(&r.qb);
    s = t_sge(&r.amr, 0, 50);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_pump_still();
    CHECK(saved_len > 0);
    wire.filter = NULL;
    /* The SEND arrives; B's consumer sees it and stops its QP at once. */
    sent = B->f->nframes;
    t_inject(B, saved, saved_len);
    CHECK(t_poll(&r.bcq, &e) && st(&e) == ROCX_WC_SUCCESS);
    if (how < 0) {
        CHECK_EQ(t_destroy_qp(&r.qb), ROCX_AQ_STS_OK);
    } else {
        CHECK_EQ(t_to_state(&r.qb, how), ROCX_AQ_STS_OK);
    }
    t_pump_still();
    CHECK_EQ(B->f->nframes, sent + 1);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    CHECK_EQ(qp_state(&r.qa), ROCX_QPS_RTS);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

static void t_rel_destroy_owes_ack(void)
{
    owed_ack_case(-1);
}

static void t_rel_err_owes_ack(void)
{
    owed_ack_case(ROCX_QPS_ERR);
}

static void t_rel_reset_owes_ack(void)
{
    owed_ack_case(ROCX_QPS_RESET);
}

/*
 * Duplicates of every READ the responder holds arrive, then a new READ
 * before the replays have gone out (Soft-RoCE's requester resent 16 READs
 * already answered and went on with new ones).  A requester has at most
 * max_rd_atomic READs outstanding, the new one included, so the oldest
 * replay is one it has completed: the new READ takes its place, instead
 * of a NAK invalid request for a limit the requester kept.
 */
static void t_rel_dup_reads_then_new(void)
{
    TRel r;
    TConn conn;
    struct rocx_cqe e;
    unsigned i;

    t_conn_default(&conn);
    conn.mtu = 1;
    conn.timeout = 0;
    nrd_req = 0;
    rd_hold = false;
    rel_setup(&r, 8 * T_PAGE, &conn);
    t_fill(t_ptr(B, r.bbuf, 8 * T_PAGE), 8 * T_PAGE, 11);
    wire.filter = keep_reads;
    for (i = 0; i < 4; i++) {
        post_read(&r, i * T_PAGE, 1000);
    }
    t_ring_sq(&r.qa);
    t_pump();
    for (i = 0; i < 4; i++) {
        CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    }
    rd_hold = true;
    post_read(&r, 4 * T_PAGE, 1000);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK_EQ(nrd_req, 5);
    for (i = 0; i < 5; i++) {
        t_inject(B, rd_req[i], rd_req_len[i]);
    }
    t_pump();
    CHECK_EQ(qp_state(&r.qb), ROCX_QPS_RTS);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 4);
    CHECK(!memcmp(t_ptr(A, r.abuf + 4 * T_PAGE, 1000),
                  t_ptr(B, r.bbuf + 4 * T_PAGE, 1000), 1000));
    CHECK_EQ(qp_state(&r.qa), ROCX_QPS_RTS);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
    wire.filter = NULL;
}

const TCase t_cases_rel[] = {
    T_CASE(rel_drop_each_frame),
    T_CASE(rel_lossy_big),
    T_CASE(rel_lossy_reads),
    T_CASE(rel_peer_gone),
    T_CASE(rel_timeout_values),
    T_CASE(rel_remote_access),
    T_CASE(rel_rnr),
    T_CASE(rel_recv_too_small),
    T_CASE(rel_local_errors),
    T_CASE(rel_duplicates),
    T_CASE(rel_sequence_nak),
    T_CASE(rel_read_gap),
    T_CASE(rel_nested_receive),
    T_CASE(rel_nak_behind_read),
    T_CASE(rel_dup_read),
    T_CASE(rel_destroy_owes_ack),
    T_CASE(rel_err_owes_ack),
    T_CASE(rel_reset_owes_ack),
    T_CASE(rel_dup_reads_then_new),
};
const unsigned t_ncases_rel = ARRAY_SIZE(t_cases_rel);
