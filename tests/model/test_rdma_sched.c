/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transmit scheduler (rocx-sched.c): the line clock, ETS shares,
 * strict priority, class ceilings (tc_maxrate), per-QP pacing (MODIFY_QP
 * rate_limit and the congestion-control rate), the Ethernet TX ring of a
 * class, and pause timing at a given line rate.  What goes on the line is
 * measured here, on the wire between the devices (bytes per destination
 * QP or EtherType, against the fake clock), and compared with rates and
 * shares worked out from the configuration, not read from the model.
 */
#include "rdma.h"

#define USEC            1000LL
#define MSEC            (1000 * USEC)
#define SEC             (1000 * MSEC)

#define S_MSG           65536u  /* one WRITE */
#define S_NQP           3

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

/* ---- The wire, measured ---- */

/* Bytes A put on the wire for each of B's QPs (by BTH destination QP). */
#define S_EXP_ETYPE     0x88b5  /* IEEE local experimental EtherType */

static struct {
    uint32_t qpn[S_NQP];
    uint64_t bytes[S_NQP];
    uint64_t eth_bytes;         /* Ethernet frames of S_EXP_ETYPE */
    uint64_t line;              /* line time of the counted, in bytes */
    uint64_t line_of[S_NQP];    /* the same per QP of B's */
    uint64_t first_ns, last_ns; /* when A sent the first and last counted */
    uint64_t frames;
    bool busy_next;             /* A's backend queues the next frame */
} meter;

static bool meter_filter(TDev *from, uint8_t *buf, size_t *len)
{
    uint32_t dqpn;
    unsigned i;
    bool counted = false;
    size_t l2 = 14;

    if (from != A || *len < 18) {
        return true;
    }
    /* Priority-tagged (PFC under PCP trust) or not. */
    if (lduw_be_p(buf + 12) == 0x8100) {
        l2 += 4;
    }
    if (lduw_be_p(buf + l2 - 2) == S_EXP_ETYPE) {
        meter.eth_bytes += *len;
        counted = true;
    } else if (lduw_be_p(buf + l2 - 2) == 0x0800 &&
               *len >= l2 + 20 + 8 + 12) {
        /* RoCE v2 over IPv4, no options: the BTH after UDP. */
        dqpn = ldl_be_p(buf + l2 + 20 + 8 + 4) & 0xffffff;
        for (i = 0; i < S_NQP; i++) {
            if (meter.qpn[i] && meter.qpn[i] == dqpn) {
                meter.bytes[i] += *len;
                meter.line_of[i] += *len + ROCX_WIRE_GAP;
                counted = true;
            }
        }
    }
    if (counted && meter.busy_next) {
        /* As QEMU's net layer does when the socket is full. */
        meter.busy_next = false;
        rocx_core_tx_busy(&A->f->core, true);
    }
    if (counted) {
        meter.line += *len + ROCX_WIRE_GAP;
        if (!meter.frames++) {
            meter.first_ns = A->f->now;
        }
        meter.last_ns = A->f->now;
    }
    return true;
}

static void meter_start(void)
{
    memset(&meter, 0, sizeof(meter));
    wire.filter = meter_filter;
}

/* ---- DCB on A ---- */

static unsigned set_dcb(TDev *d, const struct rocx_dcb_cfg *in)
{
    return t_cfg_set(d, ROCX_AQ_OP_SET_DCB, in, sizeof(*in));
}

/*
 * Priority p in class p; tsa[t] and bw[t] per class; maxrate[t] Mb/s
 * (NULL: none).
 */
static void ets(const uint8_t *tsa, const uint8_t *bw,
                const uint32_t *maxrate)
{
    struct rocx_dcb_cfg c;
    unsigned t;

    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_DCB_ETS | ROCX_DCB_MAXRATE);
    for (t = 0; t < ROCX_NUM_TC; t++) {
        c.prio_tc[t] = t;
        c.tc_tsa[t] = tsa[t];
        c.tc_bw[t] = bw[t];
        c.tc_maxrate[t] = htole32(maxrate ? maxrate[t] : 0);
    }
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_OK);
}

/* ---- Flows ---- */

typedef struct Flow {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    unsigned posted, done;
} Flow;

static void flow_open(Flow *f, uint8_t prio, unsigned idx)
{
    TConn conn;

    memset(f, 0, sizeof(*f));
    CHECK_EQ(t_create_cq(A, &f->acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &f->bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &f->qa, &f->acq, &f->acq, 7, 1, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &f->qb, &f->bcq, &f->bcq, 1, 1, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &f->amr, t_alloc(A, S_MSG, T_PAGE), S_MSG,
                      all_access), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &f->bmr, t_alloc(B, S_MSG, T_PAGE), S_MSG,
                      all_access), ROCX_AQ_STS_OK);
    t_fill(t_ptr(A, f->amr.off, S_MSG), S_MSG, 0x5c00 + idx);
    memset(t_ptr(B, f->bmr.off, S_MSG), 0, S_MSG);
    t_conn_default(&conn);
    conn.prio = prio;
    t_connect(&f->qa, &f->qb, &conn);
    meter.qpn[idx] = f->qb.qpn;
}

/* Keep up to 64 WRITEs of S_MSG posted until n were posted in all. */
static void flow_feed(Flow *f, unsigned n)
{
    struct rocx_sge sge = t_sge(&f->amr, 0, S_MSG);
    struct rocx_cqe e;
    bool rung = false;

    while (t_poll(&f->acq, &e)) {
        CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
        f->done++;
    }
    while (f->posted < n && f->posted - f->done < 64) {
        t_post_send(&f->qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                    f->bmr.iova, f->bmr.key, 0);
        f->posted++;
        rung = true;
    }
    if (rung) {
        t_ring_sq(&f->qa);
    }
}

static bool flow_data_ok(Flow *f)
{
    return !memcmp(t_ptr(A, f->amr.off, S_MSG), t_ptr(B, f->bmr.off, S_MSG),
                   S_MSG);
}

/*
 * Both clocks forward by ns in steps of 50 us, the engines and the wire
 * running in between (with the clock still, so the time is ours).
 */
static void run_for(int64_t ns)
{
    int64_t end = A->f->now + ns;

    while (A->f->now < end) {
        int64_t step = MIN(end - A->f->now, 50 * USEC);

        t_pump_still();
        fake_advance(A->f, step);
        fake_advance(B->f, step);
    }
    t_pump_still();
}

static uint64_t total(void)
{
    uint64_t n = meter.eth_bytes;
    unsigned i;

    for (i = 0; i < S_NQP; i++) {
        n += meter.bytes[i];
    }
    return n;
}

/* |a - b| <= b * permille / 1000 */
static bool near(uint64_t a, uint64_t b, unsigned permille)
{
    uint64_t d = a > b ? a - b : b - a;

    return d * 1000 <= b * permille;
}

/*
 * bytes over the time the meter saw frames ran at mbps Mb/s, within
 * permille: bits = mbps * 10^6 * ns / 10^9.
 */
static bool rate_near(uint64_t bytes, uint64_t mbps, unsigned permille)
{
    uint64_t ns = meter.last_ns - meter.first_ns;

    if (verbose) {
        printf("  %" PRIu64 " bytes in %" PRIu64 " ns: %" PRIu64 " kb/s\n",
               bytes, ns, ns ? bytes * 8 * 1000000 / ns : 0);
    }
    return near(bytes * 8 * 1000, mbps * ns, permille);
}

/* ---- Cases ---- */

/*
 * A single QP at 500 Mb/s: over one virtual second the line carries
 * 500e6 / 8 bytes of line time, within 0.5% (the device may run 200 us
 * ahead): its frames and their preambles and gaps, as a switch port of
 * the same rate clocks them out.
 */
static void t_sched_line_rate(void)
{
    Flow f;
    uint64_t bytes;

    CHECK(rocx_core_set_speed(&A->f->core, 500));
    meter_start();
    flow_open(&f, 0, 0);
    flow_feed(&f, 100000);
    while (A->f->now < SEC) {
        run_for(MSEC);
        flow_feed(&f, 100000);
    }
    bytes = meter.line;
    CHECK(near(bytes, 500000000ull / 8, 5));
    CHECK(rate_near(bytes, 500, 5));
    CHECK(flow_data_ok(&f));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * Three saturated ETS classes of 50, 30 and 20%: over 16 MiB of line the
 * shares are within 1% of those (DRR's error is a quantum per class).
 */
static void t_sched_ets_shares(void)
{
    static const uint8_t tsa[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    static const uint8_t bw[8] = { 50, 30, 20, 0, 0, 0, 0, 0 };
    static const unsigned pct[S_NQP] = { 50, 30, 20 };
    Flow f[S_NQP];
    unsigned i;
    uint64_t sum;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    ets(tsa, bw, NULL);
    meter_start();
    for (i = 0; i < S_NQP; i++) {
        flow_open(&f[i], i, i);
        flow_feed(&f[i], 100000);
    }
    while (total() < (16u << 20)) {
        run_for(MSEC);
        for (i = 0; i < S_NQP; i++) {
            flow_feed(&f[i], 100000);
        }
    }
    sum = total();
    for (i = 0; i < S_NQP; i++) {
        if (verbose) {
            printf("  class %u: %" PRIu64 " of %" PRIu64 " bytes\n", i,
                   meter.bytes[i], sum);
        }
        /* Within 1 percentage point. */
        CHECK(near(meter.bytes[i] * 100, sum * pct[i], 1000 / pct[i]));
    }
    /* And the line ran at its rate meanwhile. */
    CHECK(rate_near(meter.line, 1000, 10));
    for (i = 0; i < S_NQP; i++) {
        CHECK(flow_data_ok(&f[i]));
    }
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * Class 1 capped at 100 Mb/s on a 1000 Mb/s line with class 0 busy as
 * well: class 1 gets its ceiling (which counts bytes as carried, as
 * pacing does), class 0 the rest of the line (about 900 Mb/s of line
 * time), each within 1% over half a virtual second.
 */
static void t_sched_maxrate(void)
{
    static const uint8_t tsa[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    static const uint8_t bw[8] = { 50, 50, 0, 0, 0, 0, 0, 0 };
    static const uint32_t maxrate[8] = { 0, 100 };
    Flow f[2];
    unsigned i;
    int64_t t0;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    ets(tsa, bw, maxrate);
    meter_start();
    for (i = 0; i < 2; i++) {
        flow_open(&f[i], i, i);
        flow_feed(&f[i], 100000);
    }
    t0 = A->f->now;
    while (A->f->now - t0 < SEC / 2) {
        run_for(MSEC);
        flow_feed(&f[0], 100000);
        flow_feed(&f[1], 100000);
    }
    if (verbose) {
        printf("  class 0 %" PRIu64 ", class 1 %" PRIu64 " bytes\n",
               meter.bytes[0], meter.bytes[1]);
    }
    /* Bytes in half a second: rate / 8 / 2. */
    CHECK(near(meter.bytes[1], 100000000ull / 16, 10));
    CHECK(near(meter.line_of[0], 1000000000ull / 16 - meter.line_of[1],
               10));
    CHECK(flow_data_ok(&f[0]) && flow_data_ok(&f[1]));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

static unsigned modify_rate(TQp *qp, uint8_t state, uint32_t kbps)
{
    struct rocx_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_RATE_LIMIT);
    a.state = state;
    a.rate_limit = htole32(kbps);
    return t_modify(qp, &a);
}

/*
 * MODIFY_QP's rate limit: RTS to RTS takes it, QUERY_QP reads it back;
 * it is refused in other transitions and above max_speed.  At 40000
 * kb/s a QP sends 5 MB in a virtual second on a 1000 Mb/s line, within
 * 1%; at rate 0 it runs at line rate again.
 */
static void t_sched_rate_limit(void)
{
    struct rocx_qp_attr q;
    Flow f;
    TCq cq;
    TQp idle;
    uint64_t before;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    meter_start();
    flow_open(&f, 0, 0);
    CHECK_EQ(modify_rate(&f.qa, ROCX_QPS_RTS, 400000001),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(modify_rate(&f.qa, ROCX_QPS_RTS, 40000), ROCX_AQ_STS_OK);
    CHECK_EQ(t_query(&f.qa, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(le32toh(q.rate_limit), 40000);
    /* RESET to INIT with a rate limit: not a transition that takes it. */
    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &idle, &cq, &cq, 1, 1, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(modify_rate(&idle, ROCX_QPS_INIT, 1000), ROCX_AQ_STS_INVALID);

    flow_feed(&f, 100000);
    while (A->f->now < SEC) {
        run_for(MSEC);
        flow_feed(&f, 100000);
    }
    CHECK(near(meter.bytes[0], 40000000ull / 8, 10));
    CHECK(rate_near(meter.bytes[0], 40, 10));
    /* Paced frame by frame: no burst of more than the credit's worth. */
    CHECK(f.done > 50);
    CHECK(flow_data_ok(&f));

    /* Limit off: the line rate again (1000 Mb/s over 10 ms: 1.25 MB). */
    CHECK_EQ(modify_rate(&f.qa, ROCX_QPS_RTS, 0), ROCX_AQ_STS_OK);
    run_for(MSEC);
    flow_feed(&f, 100000);
    before = meter.bytes[0];
    run_for(10 * MSEC);
    CHECK(meter.bytes[0] - before > 1200000);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * The congestion-control rate paces the QP as well, and the lower of it
 * and the rate limit wins: 20 Mb/s from congestion control under a
 * 40000 kb/s limit sends 2.5 MB in a virtual second, within 1%.
 */
static void t_sched_cc_rate(void)
{
    Flow f;
    RocxQp *qp;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    meter_start();
    flow_open(&f, 0, 0);
    CHECK_EQ(modify_rate(&f.qa, ROCX_QPS_RTS, 40000), ROCX_AQ_STS_OK);
    qp = rocx_qp_get(&A->f->core, f.qa.qpn);
    CHECK(qp != NULL);
    if (!qp) {
        return;
    }
    qp->cc.tx_rate_mbps = 20;
    flow_feed(&f, 100000);
    while (A->f->now < SEC) {
        run_for(MSEC);
        flow_feed(&f, 100000);
    }
    CHECK(near(meter.bytes[0], 20000000ull / 8, 10));
    CHECK(rate_near(meter.bytes[0], 20, 10));
    CHECK(flow_data_ok(&f));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * A change of the pacing rate applies to the wait the QP is in, as a
 * shaper's refill rate does: at 1 Mb/s (DCQCN's floor) the QP waits 8.7
 * ms after a frame; raised to 2 Mb/s the wait left halves, and unpaced
 * the rest of the message goes at once at line rate, not after the wait
 * the old rate set.
 */
static void t_sched_rate_change(void)
{
    Flow f;
    RocxQp *qp;
    int64_t left, now;
    uint64_t frames;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    meter_start();
    flow_open(&f, 0, 0);
    CHECK_EQ(modify_rate(&f.qa, ROCX_QPS_RTS, 1000), ROCX_AQ_STS_OK);
    qp = rocx_qp_get(&A->f->core, f.qa.qpn);
    CHECK(qp != NULL);
    if (!qp) {
        return;
    }
    flow_feed(&f, 1);
    run_for(100 * USEC);
    now = A->f->now;
    frames = meter.frames;
    /* What credit it had went; the QP waits at its pace. */
    CHECK(frames >= 1 && frames < S_MSG / 1024);
    CHECK(qp->sched.timer.pos);
    left = qp->sched.pace_next - now;
    CHECK(left > 100 * USEC && left <= 9 * MSEC);
    CHECK_EQ(qp->sched.timer.deadline, qp->sched.pace_next);

    CHECK_EQ(modify_rate(&f.qa, ROCX_QPS_RTS, 2000), ROCX_AQ_STS_OK);
    CHECK(llabs(qp->sched.pace_next - now - left / 2) <= 1);
    CHECK_EQ(qp->sched.timer.deadline, qp->sched.pace_next);
    CHECK_EQ(meter.frames, frames);

    /* Unpaced: 64 KiB at 1000 Mb/s take 0.54 ms of line. */
    CHECK_EQ(modify_rate(&f.qa, ROCX_QPS_RTS, 0), ROCX_AQ_STS_OK);
    run_for(MSEC);
    flow_feed(&f, 1);
    CHECK_EQ(f.done, 1);
    CHECK(meter.last_ns - now < MSEC);
    CHECK(flow_data_ok(&f));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* ---- Ethernet TX rings of a class ---- */

#define S_TX_LD         12
#define S_ETH_LEN       1000

typedef struct TxRing {
    uint64_t ring, buf;
    uint16_t pi;
    unsigned qid;
} TxRing;

static void tx_ring(TxRing *r, unsigned qid, uint8_t tc)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_ETH_RING);
    uint8_t *fr;

    memset(r, 0, sizeof(*r));
    r->qid = qid;
    r->ring = t_alloc(A, 16u << S_TX_LD, T_PAGE);
    r->buf = t_alloc(A, S_ETH_LEN, 64);
    fr = t_ptr(A, r->buf, S_ETH_LEN);
    memset(fr, 0, S_ETH_LEN);
    memcpy(fr, B->mac, 6);
    memcpy(fr + 6, A->mac, 6);
    stw_be_p(fr + 12, S_EXP_ETYPE);
    c.create_eth_ring.base = htole64(T_GPA(r->ring));
    c.create_eth_ring.type = ROCX_ETH_RING_TX;
    c.create_eth_ring.qid = qid;
    c.create_eth_ring.log_depth = S_TX_LD;
    c.create_eth_ring.vector = 1;
    c.create_eth_ring.tc = tc;
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
}

/* Post up to n frames, as many as fit (completed descriptors are reused). */
static void tx_post(TxRing *r, unsigned n)
{
    uint16_t ci = A->f->core.tx[r->qid].ci;

    while (n-- && (uint16_t)(r->pi - ci) < (1u << S_TX_LD)) {
        struct rocx_eth_tx_desc *d =
            t_ptr(A, r->ring + 16 * (r->pi & ((1u << S_TX_LD) - 1)), 16);

        d->addr = htole64(T_GPA(r->buf));
        d->len = htole16(S_ETH_LEN);
        d->flags = 0;
        d->status = 0;
        r->pi++;
    }
    t_db(A, 0, ROCX_DB_ETH_TX, r->qid, r->pi, 0);
}

/* Keep the ring full. */
static void tx_feed(TxRing *r)
{
    tx_post(r, 1u << S_TX_LD);
}

/*
 * An Ethernet TX ring of class 1 (30%) and a QP of class 0 (70%), both
 * saturated: the line splits 70/30 between RoCE and Ethernet, within 1%.
 */
static void t_sched_eth_ring_class(void)
{
    static const uint8_t tsa[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    static const uint8_t bw[8] = { 70, 30, 0, 0, 0, 0, 0, 0 };
    Flow f;
    TxRing r;
    uint64_t sum;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    ets(tsa, bw, NULL);
    meter_start();
    t_rx_ring(B, 1u << T_RX_LD, NULL);
    flow_open(&f, 0, 0);
    tx_ring(&r, 1, 1);
    flow_feed(&f, 100000);
    tx_feed(&r);
    while (total() < (16u << 20)) {
        run_for(MSEC);
        flow_feed(&f, 100000);
        tx_feed(&r);
    }
    sum = total();
    CHECK(near(meter.bytes[0] * 100, sum * 70, 1000 / 70));
    CHECK(near(meter.eth_bytes * 100, sum * 30, 1000 / 30));
    CHECK(flow_data_ok(&f));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * Class 2 strict above ETS classes 0 and 1: while its Ethernet ring has
 * frames (kept full), the QPs of the other classes send none; once it
 * stops, they share the line equally.
 */
static void t_sched_strict_starves(void)
{
    static const uint8_t tsa[8] = { 1, 1, 0, 1, 1, 1, 1, 1 };
    static const uint8_t bw[8] = { 50, 50, 0, 0, 0, 0, 0, 0 };
    Flow f[2];
    TxRing r;
    unsigned i;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    ets(tsa, bw, NULL);
    meter_start();
    t_rx_ring(B, 1u << T_RX_LD, NULL);
    tx_ring(&r, 2, 2);
    tx_feed(&r);
    for (i = 0; i < 2; i++) {
        flow_open(&f[i], i, i);
        flow_feed(&f[i], 8);
    }
    for (i = 0; i < 20; i++) {
        run_for(MSEC);
        tx_feed(&r);
    }
    CHECK_EQ(meter.bytes[0], 0);
    CHECK_EQ(meter.bytes[1], 0);
    /* 20 ms at 1000 Mb/s, less what was sent ahead. */
    CHECK(near(meter.eth_bytes, 2500000, 20));
    t_settle(SEC);
    for (i = 0; i < 2; i++) {
        flow_feed(&f[i], 0);
        CHECK_EQ(f[i].done, 8);
        CHECK(flow_data_ok(&f[i]));
    }
    CHECK(near(meter.bytes[0], meter.bytes[1], 1));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* ---- Pause at a line rate ---- */

static size_t pfc_frame(uint8_t *f, uint16_t cev, uint16_t quanta)
{
    static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
    unsigned p;

    memset(f, 0, 60);
    memcpy(f, dst, 6);
    memcpy(f + 6, B->mac, 6);
    stw_be_p(f + 12, 0x8808);
    stw_be_p(f + 14, 0x0101);
    stw_be_p(f + 16, cev);
    for (p = 0; p < 8; p++) {
        stw_be_p(f + 18 + 2 * p, cev & (1u << p) ? quanta : 0);
    }
    return 60;
}

/*
 * At 250 Mb/s a bit takes 4 ns, so 1000 quanta of 512 bit times are
 * 2048 us.  The QP of paused priority 3 sends nothing for that long
 * while the Ethernet ring of class 1 uses the line (its frames are
 * priority 0: 40 frames of 1000 bytes, 32 us each), then the QP goes on
 * at once.
 */
static void t_sched_pause_timing(void)
{
    struct rocx_dcb_cfg c;
    uint8_t fr[60];
    Flow f;
    TxRing r;
    int64_t t0;
    uint64_t eth0;

    CHECK(rocx_core_set_speed(&A->f->core, 250));
    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_DCB_PFC);
    c.pfc_en = 0x08;
    c.pfc_quanta = htole16(0xffff);
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_OK);
    meter_start();
    t_rx_ring(B, 1u << T_RX_LD, NULL);
    flow_open(&f, 3, 0);
    tx_ring(&r, 1, 1);
    t_inject(A, fr, pfc_frame(fr, 0x08, 1000));
    t0 = A->f->now;
    flow_feed(&f, 4);
    tx_post(&r, 40);
    /* 2047 us later: nothing of the QP's on the wire, Ethernet went. */
    run_for(2047 * USEC);
    CHECK_EQ(meter.bytes[0], 0);
    eth0 = meter.eth_bytes;
    CHECK_EQ(eth0, 40 * S_ETH_LEN);
    CHECK_EQ(A->f->now - t0, 2047 * USEC);
    fake_advance(A->f, USEC);
    fake_advance(B->f, USEC);
    t_pump_still();
    CHECK(meter.bytes[0] > 0);
    t_settle(SEC);
    flow_feed(&f, 0);
    CHECK_EQ(f.done, 4);
    CHECK(flow_data_ok(&f));
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(3, ROCX_STAT_PRIO_RX_PAUSE_DURATION)),
             2048);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * The backend queued a frame (its socket was full): until it says it sent
 * it, the line is busy and no other frame starts, however long that is;
 * then the flow goes on at once and completes intact.  Frames the backend
 * holds are past a pause's reach, so there is never more than one.
 */
static void t_sched_backend_busy(void)
{
    Flow f;
    uint64_t at_busy;

    CHECK(rocx_core_set_speed(&A->f->core, 500));
    meter_start();
    flow_open(&f, 0, 0);
    flow_feed(&f, 8);
    run_for(MSEC);
    CHECK(meter.bytes[0] > 0);
    meter.busy_next = true;
    run_for(50 * USEC);
    CHECK(A->f->core.tx_busy);
    at_busy = meter.frames;
    /* 5 ms of a 500 Mb/s line: 300 KiB could have gone. */
    run_for(5 * MSEC);
    CHECK_EQ(meter.frames, at_busy);
    rocx_core_tx_busy(&A->f->core, false);
    run_for(100 * USEC);
    CHECK(meter.frames > at_busy);
    t_settle(SEC);
    flow_feed(&f, 0);
    CHECK_EQ(f.done, 8);
    CHECK(flow_data_ok(&f));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

const TCase t_cases_sched[] = {
    T_CASE(sched_line_rate),
    T_CASE(sched_ets_shares),
    T_CASE(sched_strict_starves),
    T_CASE(sched_maxrate),
    T_CASE(sched_rate_limit),
    T_CASE(sched_cc_rate),
    T_CASE(sched_rate_change),
    T_CASE(sched_eth_ring_class),
    T_CASE(sched_pause_timing),
    T_CASE(sched_backend_busy),
};
const unsigned t_ncases_sched = ARRAY_SIZE(t_cases_sched);
