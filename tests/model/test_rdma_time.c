/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Time in the device and the work it does per wake-up: many QPs waiting
 * out RNR NAKs among many idle ones, and a CQ armed among many.  The
 * expiry of a deadline must cost the QPs that are due, not a walk over
 * every QP slot, and an arm request the CQ it names, not every CQ: a peer
 * that sends RNR NAKs to many QPs, or a guest that arms CQs in a loop,
 * would otherwise keep QEMU's main loop scanning.  The counters looked
 * at here (RocxRdmaStats) count the objects each pass examined.  Every
 * wait in the device is one of these deadlines, the fabric's HELLO
 * retries included.
 */
#include "rdma.h"

#define MSEC            (1000 * 1000LL)
#define SEC             (1000 * MSEC)

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

static uint8_t st(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

/* Idle QPs: created, connected to themselves, and never used. */
static void idle_qps(TDev *d, TCq *cq, TQp *qp, unsigned n)
{
    TConn conn;
    unsigned i;

    t_conn_default(&conn);
    for (i = 0; i < n; i++) {
        CHECK_EQ(t_create_qp(d, &qp[i], cq, cq, 2, 2, 0), ROCX_AQ_STS_OK);
        t_connect(&qp[i], &qp[i], &conn);
    }
}

#define T_BUSY          48
#define T_IDLE          400

/*
 * T_BUSY QPs on A send to QPs on B that have no receive WQE posted, so
 * B answers each with RNR NAKs (rnr_retry 7: they wait as long as it
 * takes), while T_IDLE more QPs on A have nothing to do.  Each RNR wait
 * that ends costs one look at its QP; the idle ones are never looked at.
 * Then B posts its receive WQEs and every SEND completes, data intact.
 */
static void t_time_rnr_many_qps(void)
{
    static TQp qa[T_BUSY], qb[T_BUSY], idle[T_IDLE];
    TCq acq, bcq;
    TMr amr, bmr;
    TConn conn;
    RocxRdmaStats *s = &A->f->core.rdma.stats;
    uint64_t abuf, bbuf, naks;
    unsigned i, round;

    CHECK_EQ(t_create_cq(A, &acq, 10, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 10, 0, 1), ROCX_AQ_STS_OK);
    abuf = t_alloc(A, T_BUSY * 256, T_PAGE);
    bbuf = t_alloc(B, T_BUSY * 256, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &amr, abuf, T_BUSY * 256, all_access),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &bmr, bbuf, T_BUSY * 256, all_access),
             ROCX_AQ_STS_OK);
    idle_qps(A, &acq, idle, T_IDLE / 2);
    t_conn_default(&conn);
    conn.min_rnr_timer = 14;            /* 1.28 ms */
    for (i = 0; i < T_BUSY; i++) {
        struct rocx_sge sge = t_sge(&amr, i * 256, 200);

        CHECK_EQ(t_create_qp(A, &qa[i], &acq, &acq, 2, 2, 0),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(B, &qb[i], &bcq, &bcq, 2, 2, 0),
                 ROCX_AQ_STS_OK);
        t_connect(&qa[i], &qb[i], &conn);
        t_fill(t_ptr(A, abuf + i * 256, 200), 200, i);
        t_post_send(&qa[i], ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &sge, 1, 0, 0,
                    0);
        t_ring_sq(&qa[i]);
    }
    idle_qps(A, &acq, idle + T_IDLE / 2, T_IDLE / 2);

    memset(s, 0, sizeof(*s));
    for (round = 0; round < 10; round++) {
        t_pump();
        fake_advance(A->f, 1280 * 1000);
        fake_advance(B->f, 1280 * 1000);
    }
    t_pump();
    naks = B->f->core.rdma.stats.rnr_naks_sent;
    CHECK(naks >= 10 * T_BUSY);
    CHECK(s->timer_runs > 0);
    /*
     * Each RNR wait ended once, and a pass may look at a QP whose
     * deadline moved since it was queued (one per pass at most): nothing
     * near the 1024 slots a pass would scan.
     */
    CHECK(s->timer_visits <= naks + s->timer_runs);
    if (verbose) {
        printf("  %lu RNR NAKs, %lu timer passes, %lu QPs looked at\n",
               (unsigned long)naks, (unsigned long)s->timer_runs,
               (unsigned long)s->timer_visits);
    }

    for (i = 0; i < T_BUSY; i++) {
        struct rocx_sge rv = t_sge(&bmr, i * 256, 256);

        t_post_recv(&qb[i], &rv, 1);
        t_ring_rq(&qb[i]);
    }
    t_settle(SEC);
    for (i = 0; i < T_BUSY; i++) {
        struct rocx_cqe e;

        CHECK(t_poll(&acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
        CHECK(t_poll(&bcq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le32toh(e.byte_len), 200);
    }
    CHECK(!memcmp(t_ptr(A, abuf, T_BUSY * 256), t_ptr(B, bbuf, T_BUSY * 256),
                  T_BUSY * 256));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * One wake-up at the earliest deadline: three QPs whose local ACK timers
 * run out at different times (their peer is gone) each time out at their
 * own deadline, the device timer always set to the earliest one left.
 */
static void t_time_earliest_deadline(void)
{
    TQp qa[3], qb[3];
    TCq acq, bcq;
    TMr amr;
    TConn conn;
    int64_t t0, want[3];
    unsigned i;

    CHECK_EQ(t_create_cq(A, &acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &amr, t_alloc(A, T_PAGE, T_PAGE), T_PAGE,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.retry_cnt = 0;
    wire.drop_from = 1;
    t0 = A->f->now;
    for (i = 0; i < 3; i++) {
        struct rocx_sge sge = t_sge(&amr, 0, 8);

        /* 4.096 us << 15..17: 134, 268 and 537 ms. */
        conn.timeout = 17 - i;
        CHECK_EQ(t_create_qp(A, &qa[i], &acq, &acq, 2, 2, 0),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(B, &qb[i], &bcq, &bcq, 2, 2, 0),
                 ROCX_AQ_STS_OK);
        t_connect(&qa[i], &qb[i], &conn);
        want[i] = t0 + (4096LL << conn.timeout);
        t_post_send(&qa[i], ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &sge, 1, 0, 0,
                    0);
        t_ring_sq(&qa[i]);
        t_pump();
    }
    for (i = 3; i-- > 0;) {
        struct rocx_cqe e;

        CHECK(A->f->timer_armed);
        CHECK_EQ(A->f->timer_deadline, want[i]);
        fake_advance(A->f, A->f->timer_deadline - A->f->now);
        t_pump();
        CHECK(t_poll(&acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_RETRY_EXC_ERR);
        CHECK_EQ(le32toh(e.qpn_op) & ROCX_CQE_QPN_MASK, qa[i].qpn);
        CHECK(!t_poll(&acq, &e));
    }
    CHECK(!A->f->timer_armed);
}

/*
 * A QP destroyed, reset or moved to ERR while its deadline is pending
 * leaves nothing behind: the wake-up finds no work, and a QP created in
 * the same slot is not woken by its predecessor's deadline.
 */
static void t_time_stale_deadlines(void)
{
    TQp qa[3], qb[3], fresh;
    TCq acq, bcq;
    TMr amr;
    TConn conn;
    struct rocx_cqe e;
    unsigned i;

    CHECK_EQ(t_create_cq(A, &acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &amr, t_alloc(A, T_PAGE, T_PAGE), T_PAGE,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    wire.drop_from = 1;
    for (i = 0; i < 3; i++) {
        struct rocx_sge sge = t_sge(&amr, 0, 8);

        CHECK_EQ(t_create_qp(A, &qa[i], &acq, &acq, 2, 2, 0),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(B, &qb[i], &bcq, &bcq, 2, 2, 0),
                 ROCX_AQ_STS_OK);
        t_connect(&qa[i], &qb[i], &conn);
        t_post_send(&qa[i], ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &sge, 1, 0, 0,
                    0);
        t_ring_sq(&qa[i]);
    }
    t_pump();
    CHECK(A->f->timer_armed);
    CHECK_EQ(t_destroy_qp(&qa[0]), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qa[1], ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qa[2], ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    t_pump();
    /* qa[2]'s WQE flushed; nothing else. */
    CHECK(t_poll(&acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_WR_FLUSH_ERR);
    CHECK(!t_poll(&acq, &e));
    /* A new QP takes qa[0]'s slot, connected (to itself) but idle. */
    CHECK_EQ(t_create_qp(A, &fresh, &acq, &acq, 2, 2, 0), ROCX_AQ_STS_OK);
    t_connect(&fresh, &fresh, &conn);
    t_settle(10 * SEC);
    CHECK(!t_poll(&acq, &e));
    CHECK(!A->f->timer_armed);
    CHECK_EQ(A->f->core.rdma.stats.timeouts, 0);
    CHECK_EQ(A->f->gerrs, 0);
}

#define T_CQS           900

/*
 * A CQ armed among T_CQS: applying the request looks at that CQ only.
 * The arm still works (an event on its next CQE), and a request latched
 * for a CQ that is destroyed, and whose slot is taken by a new CQ, before
 * the engine gets to it, arms nothing.
 */
static void t_time_cq_arm_many(void)
{
    static TCq cq[T_CQS];
    TCq *c;
    TQp qp;
    RocxRdmaStats *s = &A->f->core.rdma.stats;
    union rocx_aq_cmd cmd;
    struct rocx_eqe *ev;
    struct rocx_sge sge;
    TMr mr;
    unsigned i, n;

    for (i = 0; i < T_CQS; i++) {
        CHECK_EQ(t_create_cq(A, &cq[i], 1, 0, 1), ROCX_AQ_STS_OK);
    }
    c = &cq[T_CQS / 2];
    CHECK_EQ(t_reg_mr(A, &mr, t_alloc(A, T_PAGE, T_PAGE), T_PAGE,
                      all_access), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qp, c, c, 2, 2, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_INIT), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    fake_run(A->f);
    while (t_eq_next(A, 1)) {
    }

    memset(s, 0, sizeof(*s));
    t_cq_arm(c, ROCX_DB_ARM);
    fake_run(A->f);
    CHECK_EQ(s->cq_arm_visits, 1);
    /* A flushed receive WQE is the CQE the arm waits for. */
    sge = t_sge(&mr, 0, 64);
    t_post_recv(&qp, &sge, 1);
    t_ring_rq(&qp);
    fake_run(A->f);
    n = 0;
    while ((ev = t_eq_next(A, 1))) {
        n += le16toh(ev->type) == ROCX_EQE_COMPLETION &&
             le32toh(ev->data) == c->cqn;
    }
    CHECK_EQ(n, 1);
    CHECK(t_poll(c, NULL));

    /* Armed, destroyed and re-created before the engine runs. */
    c = &cq[7];
    t_cq_arm(c, ROCX_DB_ARM);
    cmd = t_cmd(ROCX_AQ_OP_DESTROY_CQ);
    ((struct rocx_aq_destroy_cq *)&cmd)->cqn = htole32(c->cqn);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, c, 1, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(c->cqn, cq[7].cqn);
    fake_run(A->f);
    CHECK_EQ(t_destroy_qp(&qp), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qp, c, c, 2, 2, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_INIT), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    t_post_recv(&qp, &sge, 1);
    t_ring_rq(&qp);
    fake_run(A->f);
    CHECK(t_poll(c, NULL));
    n = 0;
    while ((ev = t_eq_next(A, 1))) {
        n += le16toh(ev->type) == ROCX_EQE_COMPLETION;
    }
    CHECK_EQ(n, 0);
    CHECK(s->cq_arm_visits <= 3);
    CHECK_EQ(A->f->gerrs, 0);
}

/*
 * The fabric's HELLO retries are deadlines like any other: an idle device
 * asks for a wake-up a second after each unanswered HELLO, and says HELLO
 * again then, without anything else running its engine.
 */
static void t_time_fabric_hello(void)
{
    FakeDev *f = A->f;
    unsigned i;

    rocx_core_set_bundles(&f->core, true);
    fake_set_carrier(f, false);
    fake_set_carrier(f, true);
    fake_run(f);
    CHECK_EQ(f->core.fabric.stats.hellos, 1);
    for (i = 1; i < ROCX_FAB_HELLO_TRIES; i++) {
        CHECK(f->timer_armed);
        CHECK_EQ(f->timer_deadline,
                 f->now + ROCX_FAB_HELLO_INTERVAL_MS * MSEC);
        fake_advance(f, ROCX_FAB_HELLO_INTERVAL_MS * MSEC);
        fake_run(f);
        CHECK_EQ(f->core.fabric.stats.hellos, i + 1);
    }
    /* Three in all: nothing more to wait for. */
    CHECK(!f->timer_armed);
}

#define T_STREAM        512

/* Both devices' clocks forward by ns. */
static void advance(int64_t ns)
{
    fake_advance(A->f, ns);
    fake_advance(B->f, ns);
}

static RocxQp *model_qp(TDev *d, TQp *q)
{
    return rocx_qp_get(&d->f->core, q->qpn);
}

/*
 * db-delay (rocx-device.rst, "NIC delays"): an SQ doorbell is checked
 * when it is written, and the engine takes it the delay later, not a
 * nanosecond before: until then no frame leaves, and then the WRITE
 * arrives whole.  A doorbell behind the last one written is refused at
 * once though the last is still in the line; one of a QP that went to
 * ERR meanwhile flushes when due; one of a QP reset meanwhile is
 * dropped; a full line passes its oldest on early and counts it, losing
 * none.  No delay may pass 100 us.
 */
static void t_time_db_delay(void)
{
    const int64_t delay = 2000;
    RocxCore *a = &A->f->core;
    TConn conn;
    TRcPair p, q, r;
    struct rocx_sge sge;
    struct rocx_cqe e;
    unsigned sent, gerrs, i;
    uint16_t idx;

    CHECK(rocx_core_set_delays(a, &(RocxDelays){
                                   .db_ns = ROCX_DELAY_MAX_NS + 1 }));
    CHECK_EQ(a->delay.db_ns, 0);
    CHECK(!rocx_core_set_delays(a, &(RocxDelays){ .db_ns = delay }));
    t_conn_default(&conn);
    t_rc_pair(&p, 4096, all_access, all_access, &conn);
    sge = t_sge(&p.amr, 0, 3000);
    t_fill(t_ptr(A, p.abuf, 3000), 3000, 11);
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                p.bmr.iova, p.bmr.key, 0);
    sent = wire.sent;
    t_ring_sq(&p.qa);
    t_pump_still();
    CHECK_EQ(wire.sent, sent);
    CHECK_EQ(model_qp(A, &p.qa)->sq_pi, 0);
    CHECK_EQ(a->db_line.count, 1);
    advance(delay - 1);
    t_pump_still();
    CHECK_EQ(wire.sent, sent);
    advance(1);
    t_pump_still();
    CHECK(wire.sent > sent);
    CHECK_EQ(a->db_line.count, 0);
    t_settle(MSEC);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(A, p.abuf, 3000), t_ptr(B, p.bbuf, 3000), 3000));

    /* Checked against the doorbell written, not the one taken. */
    gerrs = A->f->gerrs;
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                p.bmr.iova, p.bmr.key, 0);
    idx = p.qa.sq_pi;
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                p.bmr.iova, p.bmr.key, 0);
    t_ring_sq(&p.qa);
    t_db(A, p.qa.uctx, ROCX_DB_SQ, p.qa.qpn, idx, 0);
    t_pump_still();
    CHECK_EQ(A->f->gerrs, gerrs + 1);
    CHECK_EQ(a->db_line.count, 1);

    /* The QP failed while its doorbell waited: both WQEs flush. */
    CHECK_EQ(t_to_state(&p.qa, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    t_pump_still();
    CHECK(!t_poll(&p.acq, &e));
    advance(delay);
    t_pump_still();
    for (i = 0; i < 2; i++) {
        CHECK(t_poll(&p.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_WR_FLUSH_ERR);
    }

    /* Reset while its doorbell waited: it is dropped. */
    sent = wire.sent;
    t_rc_pair(&q, 4096, all_access, all_access, &conn);
    sge = t_sge(&q.amr, 0, 3000);
    t_post_send(&q.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                q.bmr.iova, q.bmr.key, 0);
    t_ring_sq(&q.qa);
    CHECK_EQ(t_to_state(&q.qa, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    advance(delay);
    t_pump_still();
    CHECK_EQ(a->db_line.count, 0);
    CHECK_EQ(model_qp(A, &q.qa)->sq_pi, 0);
    CHECK_EQ(wire.sent, sent);
    CHECK(!t_poll(&q.acq, &e));

    /* A full line: the oldest goes early, nothing is lost. */
    t_rc_pair(&r, 4096, all_access, all_access, &conn);
    sge = t_sge(&r.amr, 0, 3000);
    for (i = 0; i < ROCX_DELAY_DB_SLOTS + 1; i++) {
        t_db(A, r.qa.uctx, ROCX_DB_SQ, r.qa.qpn, 0, 0);
    }
    CHECK_EQ(a->rdma.stats.db_delay_full, 1);
    CHECK_EQ(a->db_line.count, ROCX_DELAY_DB_SLOTS);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    CHECK_EQ(a->rdma.stats.db_delay_full, 2);
    advance(delay);
    t_settle(MSEC);
    CHECK_EQ(a->db_line.count, 0);
    CHECK(t_poll(&r.acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(A->f->gerrs, gerrs + 1);
}

/*
 * A stream of WRITEs, each acknowledged before the next is posted, the
 * clock moving 20 us a message: every message moves the QP's ACK timeout
 * later, and the last ACK leaves nothing to wait for.  Neither needs the
 * host's timer touched: a timer that fires before the earliest deadline
 * costs one engine run that finds nothing due and sets it again, where a
 * re-arm per message is a timer-list update, and in QEMU a lock, for
 * every ACK.  So the host's timer is set only when a deadline comes
 * before the one it holds.  The data still arrives whole, and a timeout
 * that is due still fires at its deadline (time_earliest_deadline).
 */
static void t_time_stream_lazy_rearm(void)
{
    TRcPair p;
    TConn conn;
    struct rocx_cqe e;
    unsigned i, arms, cancels;

    t_conn_default(&conn);
    t_rc_pair(&p, T_STREAM * 64, ROCX_ACCESS_LOCAL_WRITE,
              ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE, &conn);
    t_fill(t_ptr(A, p.abuf, T_STREAM * 64), T_STREAM * 64, 7);
    t_pump();
    arms = A->f->timer_arms;
    cancels = A->f->timer_cancels;
    for (i = 0; i < T_STREAM; i++) {
        struct rocx_sge sge = t_sge(&p.amr, i * 64, 64);

        t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                    p.bmr.iova + i * 64, p.bmr.key, 0);
        t_ring_sq(&p.qa);
        t_pump();
        CHECK(t_poll(&p.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
        fake_advance(A->f, 20 * 1000);
        fake_advance(B->f, 20 * 1000);
    }
    arms = A->f->timer_arms - arms;
    cancels = A->f->timer_cancels - cancels;
    CHECK(!memcmp(t_ptr(A, p.abuf, T_STREAM * 64),
                  t_ptr(B, p.bbuf, T_STREAM * 64), T_STREAM * 64));
    if (verbose) {
        printf("  %u WRITEs: host timer set %u times, cancelled %u times\n",
               T_STREAM, arms, cancels);
    }
    /* 10 ms of stream: at most one wake-up per ACK timeout, plus slack. */
    CHECK(arms + cancels <= 8);
    t_settle(10 * SEC);
    CHECK(!A->f->timer_armed);
    CHECK_EQ(A->f->core.rdma.stats.timeouts, 0);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

const TCase t_cases_time[] = {
    T_CASE(time_rnr_many_qps),
    T_CASE(time_earliest_deadline),
    T_CASE(time_stale_deadlines),
    T_CASE(time_cq_arm_many),
    T_CASE(time_fabric_hello),
    T_CASE(time_stream_lazy_rearm),
    T_CASE(time_db_delay),
};
const unsigned t_ncases_time = ARRAY_SIZE(t_cases_time);
