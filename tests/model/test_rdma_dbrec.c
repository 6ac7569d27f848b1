/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SQ doorbell records (rocx-dbrec.c; rocx-device.rst, "Doorbell
 * records"): a QP that waits for an ACK is posted to through its record
 * alone, the ACK's run or the lazy bound takes the WQEs, the device stops
 * polling when nothing is left to wait for without losing a post that
 * raced with it, and a bad record is reported and dropped.
 */
#include "rdma.h"

#define MIB             (1u << 20)

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
                                   ROCX_ACCESS_REMOTE_WRITE |
                                   ROCX_ACCESS_REMOTE_READ;

typedef struct DPair {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    uint8_t *a, *b;
} DPair;

/*
 * A's QP with a record, and its peer without, on B or (loopback) on A
 * too; A polls records unless told not.
 */
static void d_pair_on(DPair *p, bool records, TDev *db)
{
    TConn conn;

    memset(p, 0, sizeof(*p));
    CHECK_EQ(t_create_cq(A, &p->acq, 10, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(db, &p->bcq, 10, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &p->qa, &p->acq, &p->acq, 8, 8,
                         ROCX_QP_DB_RECORD), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(db, &p->qb, &p->bcq, &p->bcq, 8, 8, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &p->amr, t_alloc(A, MIB, T_PAGE), MIB, all_access),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(db, &p->bmr, t_alloc(db, MIB, T_PAGE), MIB,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.mtu = 3;
    t_connect(&p->qa, &p->qb, &conn);
    rocx_core_set_direct_doorbells(&A->f->core, true);
    rocx_core_set_lazy_doorbells(&A->f->core, true);
    rocx_core_set_db_records(&A->f->core, records);
    p->a = t_ptr(A, p->amr.off, MIB);
    p->b = t_ptr(db, p->bmr.off, MIB);
    A->f->scheduled = false;
}

static void d_pair(DPair *p, bool records)
{
    d_pair_on(p, records, B);
}

/* Post a 3-byte WRITE of slot i (a + 8i -> b + 8i); not rung. */
static void d_write(DPair *p, unsigned i, const char *what)
{
    memcpy(p->a + 8 * i, what, 3);
    t_post_inline(&p->qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED,
                  p->a + 8 * i, 3, p->bmr.iova + 8 * i, p->bmr.key);
}

static void d_done(DPair *p, unsigned n)
{
    struct rocx_cqe e;
    unsigned i;

    for (i = 0; i < n; i++) {
        CHECK(t_poll(&p->acq, &e));
        CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
    }
    CHECK(!t_poll(&p->acq, &e));
}

/*
 * A stream: the first post rings and runs the engine at once; the
 * second, posted while the first waits for its ACK, rings too and is
 * deferred (lazy doorbells); the run that takes it (here the lazy bound's)
 * sets POLL, since an ACK is due.  Returns with two WRITEs in flight and
 * their frames on the wire.
 */
static void d_stream(DPair *p)
{
    unsigned sent = wire.sent;

    d_write(p, 0, "one");
    CHECK(t_post_record(&p->qa));
    CHECK_EQ(wire.sent, sent + 1);
    CHECK_EQ(t_dbrec_flags(&p->qa), 0);
    d_write(p, 1, "two");
    CHECK(t_post_record(&p->qa));
    CHECK_EQ(wire.sent, sent + 1);
    fake_advance(A->f, ROCX_CORE_LAZY_DB_NS);
    CHECK(A->f->scheduled);
    A->f->scheduled = false;
    rocx_core_process(&A->f->core);
    CHECK_EQ(wire.sent, sent + 2);
    CHECK_EQ(t_dbrec_flags(&p->qa), ROCX_DB_RECORD_POLL);
}

/*
 * Once POLL is set the next posts write the record alone and wake
 * nothing, and the ACKs' runs send them.  When all is acknowledged POLL
 * is clear again and a post rings.
 */
static void t_dbrec_stream(void)
{
    DPair p;
    unsigned sent;
    uint64_t doorbells;

    d_pair(&p, true);
    d_stream(&p);
    doorbells = t_stat(A, ROCX_STAT_DOORBELLS);
    sent = wire.sent;
    d_write(&p, 2, "six");
    CHECK(!t_post_record(&p.qa));
    d_write(&p, 3, "ten");
    CHECK(!t_post_record(&p.qa));
    CHECK(!A->f->scheduled);
    CHECK_EQ(wire.sent, sent);

    t_pump();
    CHECK_EQ(t_stat(A, ROCX_STAT_DOORBELLS), doorbells);
    d_done(&p, 4);
    CHECK(!memcmp(p.b, "one", 3) && !memcmp(p.b + 8, "two", 3) &&
          !memcmp(p.b + 16, "six", 3) && !memcmp(p.b + 24, "ten", 3));
    CHECK(t_stat(A, ROCX_STAT_DB_RECORD_TAKES) >= 1);
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 0);
    CHECK_EQ(A->f->gerrs, 0);
    /* Nothing left to wait for: the device polls no more, a post rings. */
    CHECK_EQ(t_dbrec_flags(&p.qa), 0);
    CHECK(QLIST_EMPTY(&A->f->core.rdma.dbrec_qps));
    sent = wire.sent;
    d_write(&p, 4, "new");
    CHECK(t_post_record(&p.qa));
    CHECK_EQ(wire.sent, sent + 1);
    t_pump();
    d_done(&p, 1);
    CHECK(!memcmp(p.b + 32, "new", 3));
}

/*
 * A ping-pong, each post after the last ACK came back: every post rings
 * and runs at once, and the record is never polled (polling would only
 * arm the lazy bound for each message).
 */
static void t_dbrec_pingpong(void)
{
    DPair p;
    unsigned i;

    d_pair(&p, true);
    for (i = 0; i < 3; i++) {
        d_write(&p, i, "abc");
        CHECK(t_post_record(&p.qa));
        CHECK_EQ(t_dbrec_flags(&p.qa), 0);
        t_pump();
        d_done(&p, 1);
    }
    CHECK_EQ(A->f->core.rdma.stats.dbrec_polls, 0);
    CHECK_EQ(A->f->core.rdma.stats.lazy_doorbells, 0);
    CHECK(!memcmp(p.b + 16, "abc", 3));
}

/*
 * The lazy bound: with the ACKs held back, a WQE posted through the
 * record alone leaves ROCX_CORE_LAZY_DB_NS after POLL was set, not at
 * the retransmit timeout, and is not sent twice.
 */
static void t_dbrec_bound(void)
{
    DPair p;
    unsigned sent;

    d_pair(&p, true);
    d_stream(&p);
    sent = wire.sent;
    CHECK(A->f->timer_armed &&
          A->f->timer_deadline == A->f->now + ROCX_CORE_LAZY_DB_NS);
    d_write(&p, 2, "six");
    CHECK(!t_post_record(&p.qa));
    fake_advance(A->f, ROCX_CORE_LAZY_DB_NS - 1);
    CHECK(!A->f->scheduled);
    fake_advance(A->f, 1);
    CHECK(A->f->scheduled);
    A->f->scheduled = false;
    rocx_core_process(&A->f->core);
    CHECK_EQ(wire.sent, sent + 1);
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 0);
    t_pump();
    d_done(&p, 3);
    CHECK(!memcmp(p.b, "one", 3) && !memcmp(p.b + 8, "two", 3) &&
          !memcmp(p.b + 16, "six", 3));
    CHECK_EQ(t_dbrec_flags(&p.qa), 0);
}

/*
 * The race the full barriers close: the host writes sq_pi and reads POLL
 * still set just before the device clears it.  The device's read of
 * sq_pi after clearing finds the post, which is then sent though no
 * doorbell was written; without that read it would wait forever.
 */
static DPair *race_pair;
static bool race_armed;

static void race_on_dma(FakeDev *f, uint64_t addr, size_t len, bool write)
{
    TQp *qa = &race_pair->qa;

    if (!race_armed || !write ||
        addr != T_GPA(qa->dbrec + offsetof(struct rocx_db_record, flags))) {
        return;
    }
    race_armed = false;
    /* The host's post: it still sees POLL, so it does not ring. */
    CHECK_EQ(t_dbrec_flags(qa), ROCX_DB_RECORD_POLL);
    d_write(race_pair, 2, "six");
    CHECK(!t_post_record(qa));
}

static void t_dbrec_race(void)
{
    DPair p;
    uint64_t doorbells;

    d_pair(&p, true);
    d_stream(&p);
    doorbells = t_stat(A, ROCX_STAT_DOORBELLS);
    race_pair = &p;
    race_armed = true;
    A->f->on_dma = race_on_dma;
    /* The ACKs leave nothing to wait for: the device clears POLL. */
    t_pump();
    A->f->on_dma = NULL;
    CHECK(!race_armed);
    CHECK_EQ(t_stat(A, ROCX_STAT_DOORBELLS), doorbells);
    d_done(&p, 3);
    CHECK(!memcmp(p.b, "one", 3) && !memcmp(p.b + 8, "two", 3) &&
          !memcmp(p.b + 16, "six", 3));
    CHECK_EQ(t_dbrec_flags(&p.qa), 0);
}

/*
 * A record with an index no doorbell could carry: one guest error, POLL
 * cleared and the record read no more, so the next post rings and the
 * QP goes on.
 */
static void t_dbrec_bad_index(void)
{
    DPair p;
    struct rocx_db_record *r;
    unsigned sent;

    d_pair(&p, true);
    d_stream(&p);
    r = t_ptr(A, p.qa.dbrec, sizeof(*r));
    r->sq_pi = htole32(p.qa.sq_pi + 1000);
    fake_advance(A->f, ROCX_CORE_LAZY_DB_NS);
    rocx_core_process(&A->f->core);
    CHECK_EQ(A->f->gerrs, 1);
    CHECK_EQ(A->f->last_gerr_code, ROCX_GERR_DB_INDEX);
    CHECK_EQ(t_dbrec_flags(&p.qa), 0);
    CHECK(QLIST_EMPTY(&A->f->core.rdma.dbrec_qps));
    /* Not read again: no second report at the next bound. */
    fake_advance(A->f, ROCX_CORE_LAZY_DB_NS);
    rocx_core_process(&A->f->core);
    CHECK_EQ(A->f->gerrs, 1);
    t_pump();
    d_done(&p, 2);
    sent = wire.sent;
    d_write(&p, 2, "six");
    CHECK(t_post_record(&p.qa));
    CHECK_EQ(wire.sent, sent + 1);
    t_pump();
    d_done(&p, 1);
    CHECK(!memcmp(p.b, "one", 3) && !memcmp(p.b + 8, "two", 3) &&
          !memcmp(p.b + 16, "six", 3));
}

/* RESET while POLL is set: cleared, not read, no report. */
static void t_dbrec_reset(void)
{
    DPair p;

    d_pair(&p, true);
    d_stream(&p);
    CHECK_EQ(t_to_state(&p.qa, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    CHECK_EQ(t_dbrec_flags(&p.qa), 0);
    CHECK(QLIST_EMPTY(&A->f->core.rdma.dbrec_qps));
    fake_advance(A->f, ROCX_CORE_LAZY_DB_NS);
    rocx_core_process(&A->f->core);
    CHECK_EQ(A->f->gerrs, 0);
}

/* Polling off (x-db-record=off): POLL is never set and every post rings. */
static void t_dbrec_off(void)
{
    DPair p;
    uint64_t doorbells;
    unsigned i;

    d_pair(&p, false);
    doorbells = t_stat(A, ROCX_STAT_DOORBELLS);
    for (i = 0; i < 3; i++) {
        d_write(&p, i, "abc");
        CHECK(t_post_record(&p.qa));
        fake_advance(A->f, ROCX_CORE_LAZY_DB_NS);
        rocx_core_process(&A->f->core);
        CHECK_EQ(t_dbrec_flags(&p.qa), 0);
    }
    CHECK_EQ(t_stat(A, ROCX_STAT_DOORBELLS), doorbells + 3);
    t_pump();
    d_done(&p, 3);
    CHECK(!memcmp(p.b + 16, "abc", 3));
    CHECK_EQ(A->f->core.rdma.stats.dbrec_polls, 0);
}

/*
 * Posts that race with the engine, as a vCPU's do with the main loop: at
 * random DMA accesses of the device (mid-run) the "host" posts a WRITE
 * through the record; if it finds POLL clear it rings, but only once the
 * run is over (the BQL).  Between runs it posts too, and the engine runs,
 * the wire moves and the lazy bound fires in random turns.  The posts
 * come in bursts of 1 to 16, each waited for before the next, as an
 * application's exchanges do: every WRITE must complete, and a burst's
 * last post, which no later doorbell covers, is the one that would be
 * lost if the device neither polled nor was rung for it.
 */
#define CC_MSGS         3000

static struct {
    DPair *p;
    uint32_t rng;
    unsigned posted, done;
    unsigned burst;             /* posts left in this burst */
    bool ring;                  /* saw POLL clear: rings after the run */
} cc;

static unsigned cc_rand(void)
{
    cc.rng = cc.rng * 1103515245u + 12345u;
    return cc.rng >> 16;
}

static bool cc_can_post(void)
{
    return cc.burst && !cc.ring &&
           cc.posted - cc.done < (1u << cc.p->qa.sq_ld) - 1;
}

static void cc_post(void)
{
    uint64_t v = cc.posted;
    unsigned slot = cc.posted % 1024;

    t_post_inline(&cc.p->qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &v, 8,
                  cc.p->bmr.iova + 8 * slot, cc.p->bmr.key);
    cc.posted++;
    cc.burst--;
    {
        struct rocx_db_record *r = t_ptr(A, cc.p->qa.dbrec, sizeof(*r));

        r->sq_pi = htole32(cc.p->qa.sq_pi);
        if (!(le32toh(r->flags) & ROCX_DB_RECORD_POLL)) {
            cc.ring = true;
        }
    }
}

static void cc_on_dma(FakeDev *f, uint64_t addr, size_t len, bool write)
{
    if (cc_can_post() && cc_rand() % 3 == 0) {
        cc_post();
    }
}

static void dbrec_concurrent(TDev *db, uint32_t seed)
{
    DPair p;
    struct rocx_cqe e;
    unsigned turns = 0;

    d_pair_on(&p, true, db);
    memset(&cc, 0, sizeof(cc));
    cc.p = &p;
    cc.rng = seed;
    A->f->on_dma = cc_on_dma;
    while (cc.done < CC_MSGS && turns++ < 400000) {
        /* The next burst once the last one has completed. */
        if (!cc.burst && cc.done == cc.posted) {
            cc.burst = MIN(cc_rand() % 16 + 1, CC_MSGS - cc.posted);
        }
        if (cc.ring) {
            cc.ring = false;
            t_ring_sq(&p.qa);
        } else if (cc_can_post() && cc_rand() % 2) {
            cc_post();
        }
        switch (cc_rand() % 4) {
        case 0:
            fake_run(A->f);
            break;
        case 1:
            t_pump_still();
            break;
        case 2:
            fake_advance(A->f, ROCX_CORE_LAZY_DB_NS / 3);
            fake_run(A->f);
            break;
        default:
            break;
        }
        A->f->on_dma = NULL;
        while (t_poll(&p.acq, &e)) {
            CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
            cc.done++;
        }
        A->f->on_dma = cc_on_dma;
    }
    A->f->on_dma = NULL;
    CHECK_EQ(cc.done, CC_MSGS);
    CHECK_EQ(A->f->gerrs, 0);
    CHECK(t_stat(A, ROCX_STAT_DB_RECORD_TAKES) > 0);
    CHECK(!memcmp(p.b + 8 * ((CC_MSGS - 1) % 1024), &(uint64_t){
                  CC_MSGS - 1 }, 8));
}

static void t_dbrec_concurrent(void)
{
    uint32_t seed;

    for (seed = 1; seed <= 4; seed++) {
        dbrec_concurrent(B, seed);
    }
}

static void t_dbrec_concurrent_loopback(void)
{
    uint32_t seed;

    for (seed = 1; seed <= 4; seed++) {
        dbrec_concurrent(A, seed);
    }
}

/* CREATE_QP: the page list must cover the record too. */
static void t_dbrec_create(void)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_QP);
    struct rocx_aq_create_qp *cq = (void *)&c;
    uint64_t len = (1ULL << (2 + 9)) + (1ULL << (2 + 8));
    TCq cqa;
    uint32_t qpn;

    CHECK_EQ(t_create_cq(A, &cqa, 4, 0, 1), ROCX_AQ_STS_OK);
    cq->type = ROCX_QPT_RC;
    cq->flags = ROCX_QP_DB_RECORD;
    cq->sq_log_depth = 2;
    cq->rq_log_depth = 2;
    cq->sq_wqe_shift = 9;
    cq->rq_wqe_shift = 8;
    cq->pdn = htole32(A->pdn);
    cq->send_cqn = htole32(cqa.cqn);
    cq->recv_cqn = htole32(cqa.cqn);
    cq->srqn = htole32(ROCX_NO_SRQ);
    /* Queues of 3 KiB in one 4 KiB page: the record fits after them. */
    cq->pbl = t_pbl(A, t_alloc(A, T_PAGE, T_PAGE), len, 12, -1);
    CHECK_EQ(t_aq(A, &c, &qpn), ROCX_AQ_STS_OK);
    CHECK_EQ(t_destroy_qpn(A, qpn), ROCX_AQ_STS_OK);
    /* Queues of exactly one page: the record would be past the list. */
    cq->sq_log_depth = 3;
    cq->rq_log_depth = 0;
    cq->pbl = t_pbl(A, t_alloc(A, T_PAGE, T_PAGE), T_PAGE, 12, -1);
    CHECK_EQ(t_aq(A, &c, &qpn), ROCX_AQ_STS_INVALID);
    /* Without the flag the same list is enough. */
    cq->flags = 0;
    CHECK_EQ(t_aq(A, &c, &qpn), ROCX_AQ_STS_OK);
}

const TCase t_cases_dbrec[] = {
    T_CASE(dbrec_stream),
    T_CASE(dbrec_pingpong),
    T_CASE(dbrec_bound),
    T_CASE(dbrec_race),
    T_CASE(dbrec_concurrent),
    T_CASE(dbrec_concurrent_loopback),
    T_CASE(dbrec_bad_index),
    T_CASE(dbrec_reset),
    T_CASE(dbrec_off),
    T_CASE(dbrec_create),
};
const unsigned t_ncases_dbrec = ARRAY_SIZE(t_cases_dbrec);
