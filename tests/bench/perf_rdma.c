/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-packet cost of the rocx transport engine, without QEMU: two fake
 * devices wired back to back (rdma.c), an -O2 build without sanitizers,
 * and the CPU time the engines spend per packet on the wire for the
 * message kinds perftest runs.  Not a test: it prints numbers.
 *
 *   make -C tests/bench perf            # all workloads
 *   make -C tests/bench perf ARGS=write # one
 *
 * timer_rnr and cq_arm show what waiting costs beside many idle objects
 * (one timer expiry, one CQ arm request) rather than per packet.
 * write_dcqcn is write with A's QP held active by DCQCN (paced at half
 * the line rate, its byte counter stepping), beside write_settle, the
 * same without DCQCN, its clock moved the same way; cc_sent times
 * rocx_cc_sent() alone, per call, on an idle and on an active QP.
 *
 * The cost covers both devices: requester (WQE fetch, DMA read, headers,
 * ICRC), responder (parse, ICRC check, placement DMA, ACKs) and completer.
 * The fake DMA is a memcpy, so QEMU's address-space lookups come on top.
 */
#include <time.h>
#include "rdma.h"

#define KIB         1024u

typedef struct PerfPair {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
} PerfPair;

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

static double cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void perf_setup(PerfPair *p, uint64_t size)
{
    TConn conn;

    memset(p, 0, sizeof(*p));
    CHECK_EQ(t_create_cq(A, &p->acq, 12, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &p->bcq, 12, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &p->qa, &p->acq, &p->acq, 8, 8, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &p->qb, &p->bcq, &p->bcq, 8, 8, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &p->amr, t_alloc(A, size, T_PAGE), size,
                      all_access), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &p->bmr, t_alloc(B, size, T_PAGE), size,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.mtu = 3;               /* 1024, as the bench runs */
    t_connect(&p->qa, &p->qb, &conn);
}

/*
 * A's QP of p made active in DCQCN, and kept so: a CNP (as
 * rocx_cc_rx_cnp() takes it from the wire) sets it to half the line
 * rate; no additive or hyper increase and no increase timer, so the byte
 * counter's steps (every rp_byte_reset bytes, the default) leave it
 * there.
 */
static void dcqcn_activate(PerfPair *p)
{
    RocxCore *c = &A->f->core;
    RocxQp *qp = rocx_qp_get(c, p->qa.qpn);
    struct rocx_cc_cfg cfg;
    RocxPkt pkt;

    memset(&cfg, 0, sizeof(cfg));
    cfg.valid = htole32(ROCX_CC_RP_FIRST_CNP_RATE | ROCX_CC_RP_AI_RATE |
                        ROCX_CC_RP_HAI_RATE | ROCX_CC_RP_TIME_RESET |
                        ROCX_CC_RP_RTT);
    cfg.rp_rate_to_set_on_first_cnp = htole32(c->speed_mbps / 2);
    cfg.rp_time_reset = htole32(ROCX_CC_TIME_MAX_US);
    cfg.rp_dce_tcp_rtt = htole32(ROCX_CC_TIME_MAX_US);
    CHECK_EQ(t_cfg_set(A, ROCX_AQ_OP_SET_CC, &cfg, sizeof(cfg)),
             ROCX_AQ_STS_OK);
    memset(&pkt, 0, sizeof(pkt));
    pkt.net_type = qp->path.net_type;
    pkt.dqpn = qp->qpn;
    pkt.paylen = ROCX_CNP_PAYLOAD_LEN;
    memcpy(pkt.sgid, qp->path.dgid, 16);
    memcpy(pkt.dgid, qp->path.sgid, 16);
    rocx_cc_rx_cnp(c, &pkt);
    CHECK(qp->cc.active);
    CHECK_EQ(qp->cc.tx_rate_mbps, c->speed_mbps / 2);
}

static bool dcqcn;              /* run(): A's QP active in DCQCN */
/*
 * run(): move the clock to due timers (t_settle()), as a paced QP needs;
 * 100 ms at most, short of DCQCN's increase timer.
 */
static bool settle;

static void drain(TCq *cq)
{
    while (t_poll(cq, NULL)) {
        /* completions are counted by the caller's checks */
    }
}

/*
 * rounds x burst messages of len bytes, burst WQEs posted and rung at
 * once (signalled, so each burst is checked); prints the cost.
 */
static void run(const char *name, uint8_t op, uint32_t len, bool inl,
                unsigned burst, unsigned rounds)
{
    PerfPair p;
    unsigned r, i, sent0;
    uint64_t rx0;
    double t0, t;
    uint64_t pkts;

    t_setup();
    perf_setup(&p, 1u << 20);
    if (dcqcn) {
        dcqcn_activate(&p);
    }
    sent0 = wire.sent;
    rx0 = t_stat(A, ROCX_STAT_ROCE_RX_PACKETS) +
          t_stat(B, ROCX_STAT_ROCE_RX_PACKETS);
    t0 = cpu_ns();
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < burst; i++) {
            uint64_t off = (uint64_t)(i % 8) * 128 * KIB;
            struct rocx_sge s = t_sge(&p.amr, off, len);

            if (op == ROCX_WQE_SEND) {
                struct rocx_sge rs = t_sge(&p.bmr, off, len);

                t_post_recv(&p.qb, &rs, 1);
            }
            if (inl) {
                t_post_inline(&p.qa, op, ROCX_WQE_SIGNALED,
                              t_ptr(A, p.amr.off, len), len,
                              p.bmr.iova + off, p.bmr.key);
            } else {
                t_post_send(&p.qa, op, ROCX_WQE_SIGNALED, &s, 1,
                            p.bmr.iova + off, p.bmr.key, 0);
            }
        }
        if (op == ROCX_WQE_SEND) {
            t_ring_rq(&p.qb);
        }
        t_ring_sq(&p.qa);
        if (settle) {
            t_settle(100 * 1000 * 1000LL);
        } else {
            t_pump();
        }
        drain(&p.acq);
        drain(&p.bcq);
    }
    t = cpu_ns() - t0;
    pkts = t_stat(A, ROCX_STAT_ROCE_RX_PACKETS) +
           t_stat(B, ROCX_STAT_ROCE_RX_PACKETS) - rx0;
    CHECK_EQ(wire.sent - sent0, pkts);
    CHECK_EQ(t_stat(A, ROCX_STAT_ROCE_ICRC_ERRORS) +
             t_stat(B, ROCX_STAT_ROCE_ICRC_ERRORS), 0);
    if (dcqcn) {
        /* Still paced at half the line: the steps kept it active. */
        CHECK(rocx_qp_get(&A->f->core, p.qa.qpn)->cc.active);
    }
    printf("%-12s %7u B x %5u: %8.0f ns/msg %7.0f ns/frame "
           "(%lu frames, %.2f frames/msg)\n", name, len, rounds * burst,
           t / (rounds * burst), t / pkts, (unsigned long)pkts,
           (double)pkts / (rounds * burst));
    t_teardown();
}

/*
 * What waiting costs among many objects.  timer_rnr: busy QPs on A send
 * to QPs on B that answer RNR NAKs (no receive WQEs), their waits
 * staggered so that the clock, moved on in steps, ends a few of them at
 * each step, as a peer NAKing many QPs does; prints the CPU time per
 * step (expiry, retry, NAK, next wait) and the QPs the timer passes
 * looked at.  cq_arm: one CQ armed beside idle ones, per arm request.
 */
static void run_timers(unsigned busy, unsigned rounds)
{
    static TQp qa[ROCX_CORE_MAX_QP], qb[ROCX_CORE_MAX_QP];
    const int64_t wait = 1280 * 1000, step = wait / busy;
    PerfPair p;
    TConn conn;
    struct rocx_sge sge;
    uint64_t naks, visits;
    unsigned i;
    double t0, t;

    t_setup();
    memset(&p, 0, sizeof(p));
    CHECK_EQ(t_create_cq(A, &p.acq, 12, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &p.bcq, 12, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &p.amr, t_alloc(A, 4 * KIB, 4 * KIB), 4 * KIB,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.min_rnr_timer = 14;            /* 1.28 ms */
    sge = t_sge(&p.amr, 0, 64);
    for (i = 0; i < busy; i++) {
        CHECK_EQ(t_create_qp(A, &qa[i], &p.acq, &p.acq, 2, 2, 0),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(B, &qb[i], &p.bcq, &p.bcq, 2, 2, 0),
                 ROCX_AQ_STS_OK);
        t_connect(&qa[i], &qb[i], &conn);
        t_post_send(&qa[i], ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &sge, 1, 0, 0,
                    0);
        t_ring_sq(&qa[i]);
        t_pump();
        fake_advance(A->f, step);
        fake_advance(B->f, step);
    }
    t_pump();
    naks = B->f->core.rdma.stats.rnr_naks_sent;
    visits = A->f->core.rdma.stats.timer_visits;
    t0 = cpu_ns();
    for (i = 0; i < rounds; i++) {
        fake_advance(A->f, step);
        fake_advance(B->f, step);
        t_pump();
    }
    t = cpu_ns() - t0;
    naks = B->f->core.rdma.stats.rnr_naks_sent - naks;
    visits = A->f->core.rdma.stats.timer_visits - visits;
    CHECK(naks >= rounds / 2);
    printf("%-12s %4u QPs waiting: %8.0f ns per RNR wait ended, "
           "%6.1f QPs looked at per wait\n", "timer_rnr", busy,
           t / naks, (double)visits / naks);
    t_teardown();
}

static void run_cq_arm(unsigned ncq, unsigned rounds)
{
    static TCq cq[ROCX_CORE_MAX_CQ];
    unsigned i;
    double t0, t;

    t_setup();
    for (i = 0; i < ncq; i++) {
        CHECK_EQ(t_create_cq(A, &cq[i], 1, 0, 1), ROCX_AQ_STS_OK);
    }
    t0 = cpu_ns();
    for (i = 0; i < rounds; i++) {
        t_cq_arm(&cq[ncq / 2], ROCX_DB_ARM);
        fake_run(A->f);
    }
    t = cpu_ns() - t0;
    printf("%-12s %4u CQs: %8.0f ns per arm doorbell and engine run "
           "(%lu CQs looked at)\n", "cq_arm", ncq, t / rounds,
           (unsigned long)A->f->core.rdma.stats.cq_arm_visits);
    t_teardown();
}

/*
 * rocx_cc_sent() by itself, as the scheduler calls it for each frame of
 * a QP (1024-byte payloads): on an idle QP (the early return) and on one
 * DCQCN holds active (its byte counter; a step every rp_byte_reset).
 */
static void run_cc_sent(bool active, unsigned calls)
{
    RocxQp *qp;
    PerfPair p;
    double t0, t;
    int64_t now;
    unsigned i;

    t_setup();
    perf_setup(&p, T_PAGE);
    if (active) {
        dcqcn_activate(&p);
    }
    qp = rocx_qp_get(&A->f->core, p.qa.qpn);
    now = rocx_now(&A->f->core);
    t0 = cpu_ns();
    for (i = 0; i < calls; i++) {
        rocx_cc_sent(qp, 1024 + 58, now);
    }
    t = cpu_ns() - t0;
    CHECK_EQ(qp->cc.active, active);
    printf("cc_sent      %-6s x %8u: %8.2f ns/call\n",
           active ? "active" : "idle", calls, t / calls);
    t_teardown();
}

static bool want(int argc, char **argv, const char *name)
{
    int i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], name)) {
            return true;
        }
    }
    return argc < 2;
}

int main(int argc, char **argv)
{
    cur_case = "perf";
    if (want(argc, argv, "write")) {
        run("write", ROCX_WQE_RDMA_WRITE, 64 * KIB, false, 32, 200);
    }
    if (want(argc, argv, "read")) {
        run("read", ROCX_WQE_RDMA_READ, 64 * KIB, false, 16, 200);
    }
    if (want(argc, argv, "send")) {
        run("send", ROCX_WQE_SEND, 64 * KIB, false, 32, 200);
    }
    if (want(argc, argv, "write_dcqcn")) {
        settle = true;
        run("write_settle", ROCX_WQE_RDMA_WRITE, 64 * KIB, false, 32, 200);
        dcqcn = true;
        run("write_dcqcn", ROCX_WQE_RDMA_WRITE, 64 * KIB, false, 32, 200);
        dcqcn = settle = false;
    }
    if (want(argc, argv, "write_small")) {
        run("write_small", ROCX_WQE_RDMA_WRITE, 64, false, 32, 2000);
    }
    if (want(argc, argv, "write_lat")) {
        run("write_lat", ROCX_WQE_RDMA_WRITE, 2, true, 1, 20000);
    }
    if (want(argc, argv, "cc_sent")) {
        run_cc_sent(false, 10000000);
        run_cc_sent(true, 10000000);
    }
    if (want(argc, argv, "timer_rnr")) {
        run_timers(1, 4000);
        run_timers(500, 4000);
    }
    if (want(argc, argv, "cq_arm")) {
        run_cq_arm(1, 100000);
        run_cq_arm(1000, 100000);
    }
    return case_failures ? 1 : 0;
}
