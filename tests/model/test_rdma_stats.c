/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transport counters (rocx-device.rst, "Counters"): each event
 * provoked on its own, the counter checked on the side that saw it and
 * left alone on the other, and read back through GET_STATS as a driver
 * reads them; and the trace callbacks that report the same events.
 */
#include "rdma.h"

#define MS      (1000 * 1000LL)
#define SEC     (1000 * MS)

/* The transport counters, ROCX_STAT_PRIO_END up to the congestion ones. */
#define T_NTRANSPORT    (ROCX_STAT_ROCE_TX_MTU_DROPS + 1 - \
                         ROCX_STAT_PRIO_END)

typedef TRcPair TSt;

/* Counters at st_setup(), ROCX_STAT_PRIO_END on, per device. */
static uint64_t st_a0[T_NTRANSPORT], st_b0[T_NTRANSPORT];

static void st_snap(TDev *d, uint64_t *v)
{
    unsigned i;

    for (i = 0; i < T_NTRANSPORT; i++) {
        v[i] = t_stat(d, ROCX_STAT_PRIO_END + i);
    }
}

static void st_setup(TSt *r, uint64_t size, const TConn *conn)
{
    const uint32_t acc = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
                         ROCX_ACCESS_REMOTE_READ;

    t_rc_pair(r, size, acc, acc, conn);
    st_snap(A, st_a0);
    st_snap(B, st_b0);
}

/*
 * Every transport counter of d moved by exactly what want says since
 * setup ({ counter, delta } pairs, the rest by 0).
 */
typedef struct TMove {
    enum rocx_stat s;
    uint64_t n;
} TMove;

static void st_moved(TDev *d, const uint64_t *v0, const TMove *want,
                     unsigned nwant)
{
    unsigned i, j;

    for (i = 0; i < T_NTRANSPORT; i++) {
        enum rocx_stat s = ROCX_STAT_PRIO_END + i;
        uint64_t n = 0;

        for (j = 0; j < nwant; j++) {
            if (want[j].s == s) {
                n = want[j].n;
            }
        }
        if (t_stat(d, s) - v0[i] != n) {
            fprintf(stderr, "    (%s, counter %u)\n", d == A ? "A" : "B", s);
        }
        CHECK_EQ(t_stat(d, s) - v0[i], n);
    }
}

static uint8_t st(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

/* Keep every frame from A, to hand one to B again. */
static uint8_t saved[4][ROCX_MAX_FRAME];
static size_t saved_len[4];
static unsigned nsaved;

static bool save_from_a(TDev *from, uint8_t *buf, size_t *len)
{
    if (from == A && nsaved < ARRAY_SIZE(saved)) {
        memcpy(saved[nsaved], buf, *len);
        saved_len[nsaved++] = *len;
    }
    return true;
}

/*
 * 3 packets of a WRITE, the 2nd lost: the 3rd is out of sequence at B,
 * which NAKs it (a sequence error at A) and A goes back.  Then a SEND and
 * a READ replayed to B: two duplicate requests.  rx_*_requests count the
 * requests B took, not the replays.
 */
static void t_stats_sequence(void)
{
    TSt r;
    TConn conn;
    struct rocx_sge s, rv;
    struct rocx_cqe e;
    unsigned i;

    t_conn_default(&conn);
    conn.mtu = 1;                           /* 256 */
    st_setup(&r, 4 * T_PAGE, &conn);
    wire.drop_nth = 2;
    t_fill(t_ptr(A, r.abuf, 3 * 256), 3 * 256, 5);
    s = t_sge(&r.amr, 0, 3 * 256);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_settle(SEC);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(A, r.abuf, 3 * 256), t_ptr(B, r.bbuf, 3 * 256),
                  3 * 256));
    CHECK_EQ(wire.dropped, 1);
    {
        const TMove a[] = { { ROCX_STAT_PACKET_SEQ_ERR, 1 } };
        const TMove b[] = { { ROCX_STAT_OUT_OF_SEQUENCE, 1 } };

        st_moved(A, st_a0, a, ARRAY_SIZE(a));
        st_moved(B, st_b0, b, ARRAY_SIZE(b));
    }
    /* The traces say the same: B's NAK, A going back to the lost PSN. */
    CHECK_EQ(B->f->naks_sent, 1);
    CHECK_EQ(A->f->naks_received, 1);
    CHECK_EQ(A->f->retransmits[ROCX_RETX_NAK], 1);
    CHECK_EQ(A->f->last_retx_psn, conn.psn_a + 1);
    CHECK_EQ(A->f->retransmits[ROCX_RETX_TIMEOUT], 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_WRITE_REQUESTS), 1);

    /* A SEND and a READ, each replayed once after it completed. */
    wire.drop_nth = 0;
    wire.filter = save_from_a;
    nsaved = 0;
    rv = t_sge(&r.bmr, 0, 100);
    t_post_recv(&r.qb, &rv, 1);
    t_ring_rq(&r.qb);
    s = t_sge(&r.amr, 0, 50);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_pump();
    s = t_sge(&r.amr, 0, 200);
    t_post_send(&r.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_pump();
    CHECK_EQ(nsaved, 2);
    for (i = 0; i < 2; i++) {
        CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    }
    wire.filter = NULL;
    for (i = 0; i < nsaved; i++) {
        t_inject(B, saved[i], saved_len[i]);
        t_pump();
    }
    CHECK(!t_poll(&r.acq, &e));
    {
        const TMove a[] = { { ROCX_STAT_PACKET_SEQ_ERR, 1 } };
        const TMove b[] = { { ROCX_STAT_OUT_OF_SEQUENCE, 1 },
                            { ROCX_STAT_DUPLICATE_REQUEST, 2 } };

        st_moved(A, st_a0, a, ARRAY_SIZE(a));
        st_moved(B, st_b0, b, ARRAY_SIZE(b));
    }
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_WRITE_REQUESTS), 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_READ_REQUESTS), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_WRITE_REQUESTS) +
             t_stat(A, ROCX_STAT_RX_READ_REQUESTS), 0);
}

/*
 * No answer at all: retry_cnt 2 gives three ACK timeouts, and the third
 * ends the QP with the transport retries exceeded.
 */
static void t_stats_timeout(void)
{
    const TMove a[] = { { ROCX_STAT_LOCAL_ACK_TIMEOUT_ERR, 3 },
                        { ROCX_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED, 1 } };
    TSt r;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;

    t_conn_default(&conn);
    conn.retry_cnt = 2;
    conn.timeout = 14;
    st_setup(&r, T_PAGE, &conn);
    wire.drop_from = 1;
    s = t_sge(&r.amr, 0, 100);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_settle(100 * SEC);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_RETRY_EXC_ERR);
    CHECK_EQ(wire.sent, 3);
    st_moved(A, st_a0, a, ARRAY_SIZE(a));
    st_moved(B, st_b0, NULL, 0);
    /* Two resends after timeouts; the third timeout ends the QP. */
    CHECK_EQ(A->f->retransmits[ROCX_RETX_TIMEOUT], 2);
    CHECK_EQ(A->f->last_retx_psn, conn.psn_a);
    CHECK_EQ(A->f->last_state_qpn, r.qa.qpn);
    CHECK_EQ(A->f->last_state_from, ROCX_QPS_RTS);
    CHECK_EQ(A->f->last_state_to, ROCX_QPS_ERR);
    CHECK_EQ(B->f->naks_sent + A->f->naks_received, 0);
}

/*
 * A sequence NAK with no retries left (retry_cnt 0): PSN 1 of a 3-packet
 * WRITE lost, PSN 2 out of sequence at B, whose NAK ends A's QP.
 */
static uint32_t drop_psn;

static bool drop_psn_of_a(TDev *from, uint8_t *buf, size_t *len)
{
    const uint8_t *bth = buf + ETH_HLEN + ROCX_IPV4_HLEN + ROCX_UDP_HLEN;

    return from != A || rocx_bth_psn(bth) != drop_psn;
}

static void t_stats_nak_retries(void)
{
    const TMove a[] = { { ROCX_STAT_PACKET_SEQ_ERR, 1 },
                        { ROCX_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED, 1 } };
    const TMove b[] = { { ROCX_STAT_OUT_OF_SEQUENCE, 1 } };
    TSt r;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;

    t_conn_default(&conn);
    conn.mtu = 1;
    conn.retry_cnt = 0;
    st_setup(&r, T_PAGE, &conn);
    drop_psn = conn.psn_a + 1;
    wire.filter = drop_psn_of_a;
    s = t_sge(&r.amr, 0, 3 * 256);
    t_post_send(&r.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_settle(SEC);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_RETRY_EXC_ERR);
    st_moved(A, st_a0, a, ARRAY_SIZE(a));
    st_moved(B, st_b0, b, ARRAY_SIZE(b));
}

/* rnr_retry 2: three RNR NAKs, the third ends the QP (A), not B's. */
static void t_stats_rnr(void)
{
    const TMove a[] = { { ROCX_STAT_RNR_NAK_RETRY_ERR, 1 } };
    TSt r;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;

    t_conn_default(&conn);
    conn.rnr_retry = 2;
    st_setup(&r, T_PAGE, &conn);
    s = t_sge(&r.amr, 0, 10);
    t_post_send(&r.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    t_ring_sq(&r.qa);
    t_settle(10 * SEC);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_RNR_RETRY_EXC_ERR);
    CHECK_EQ(B->f->core.rdma.stats.rnr_naks_sent, 3);
    CHECK_EQ(B->f->naks_sent, 3);
    CHECK_EQ(A->f->naks_received, 3);
    CHECK_EQ(A->f->last_nak_syndrome & ROCX_AETH_KIND_MASK, ROCX_AETH_RNR);
    CHECK_EQ(A->f->retransmits[ROCX_RETX_RNR], 2);
    st_moved(A, st_a0, a, ARRAY_SIZE(a));
    st_moved(B, st_b0, NULL, 0);
}

/*
 * NAKs that end the connection: a bad R_Key is a remote access error,
 * a READ the QP does not enable an invalid request; req_* on the side
 * that received the NAK, resp_* on the side that sent it.
 */
static void t_stats_remote_errors(void)
{
    static const struct {
        uint8_t op;
        bool bad_key;
        uint32_t qp_access;
        uint8_t status;
        enum rocx_stat req, resp;
    } v[] = {
        { ROCX_WQE_RDMA_WRITE, true, 0x7, ROCX_WC_REM_ACCESS_ERR,
          ROCX_STAT_REQ_REMOTE_ACCESS_ERRORS,
          ROCX_STAT_RESP_REMOTE_ACCESS_ERRORS },
        { ROCX_WQE_RDMA_READ, true, 0x7, ROCX_WC_REM_ACCESS_ERR,
          ROCX_STAT_REQ_REMOTE_ACCESS_ERRORS,
          ROCX_STAT_RESP_REMOTE_ACCESS_ERRORS },
        { ROCX_WQE_RDMA_READ, false, ROCX_ACCESS_REMOTE_WRITE,
          ROCX_WC_REM_INV_REQ_ERR, ROCX_STAT_REQ_REMOTE_INVALID_REQUEST,
          ROCX_STAT_RESP_REMOTE_INVALID_REQUEST },
        { ROCX_WQE_RDMA_WRITE, false, ROCX_ACCESS_REMOTE_READ,
          ROCX_WC_REM_INV_REQ_ERR, ROCX_STAT_REQ_REMOTE_INVALID_REQUEST,
          ROCX_STAT_RESP_REMOTE_INVALID_REQUEST },
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(v); i++) {
        const TMove a[] = { { v[i].req, 1 } };
        const TMove b[] = { { v[i].resp, 1 } };
        unsigned before = case_failures;
        TSt r;
        TConn conn;
        struct rocx_sge s;
        struct rocx_cqe e;

        t_teardown();
        t_setup();
        t_conn_default(&conn);
        conn.access = v[i].qp_access;
        st_setup(&r, T_PAGE, &conn);
        s = t_sge(&r.amr, 0, 64);
        t_post_send(&r.qa, v[i].op, ROCX_WQE_SIGNALED, &s, 1, r.bmr.iova,
                    v[i].bad_key ? r.bmr.key ^ 0x100 : r.bmr.key, 0);
        t_ring_sq(&r.qa);
        t_settle(10 * SEC);
        CHECK(t_poll(&r.acq, &e));
        CHECK_EQ(st(&e), v[i].status);
        st_moved(A, st_a0, a, ARRAY_SIZE(a));
        st_moved(B, st_b0, b, ARRAY_SIZE(b));
        if (case_failures != before) {
            fprintf(stderr, "    (case %u)\n", i);
            return;
        }
    }
}

/*
 * A READ's 3rd response lost: the 4th skips a PSN, an implied NAK; A
 * asks again once (later responses of the same gap count no more).
 */
static unsigned b_frames;

static bool drop_third_of_b(TDev *from, uint8_t *buf, size_t *len)
{
    return from != B || ++b_frames != 3;
}

static void t_stats_read_gap(void)
{
    const TMove a[] = { { ROCX_STAT_IMPLIED_NAK_SEQ_ERR, 1 } };
    const TMove b[] = { { ROCX_STAT_DUPLICATE_REQUEST, 1 } };
    TSt r;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;

    t_conn_default(&conn);
    conn.mtu = 1;
    st_setup(&r, 4 * T_PAGE, &conn);
    t_fill(t_ptr(B, r.bbuf, 8 * 256), 8 * 256, 9);
    b_frames = 0;
    wire.filter = drop_third_of_b;
    s = t_sge(&r.amr, 0, 8 * 256);
    t_post_send(&r.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                r.bmr.iova, r.bmr.key, 0);
    t_ring_sq(&r.qa);
    t_settle(SEC);
    CHECK(t_poll(&r.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(A, r.abuf, 8 * 256), t_ptr(B, r.bbuf, 8 * 256),
                  8 * 256));
    /* B sees the READ asked for again from the lost PSN: a duplicate. */
    st_moved(A, st_a0, a, ARRAY_SIZE(a));
    st_moved(B, st_b0, b, ARRAY_SIZE(b));
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_READ_REQUESTS), 1);
}

/* A UD SEND over the port's MTU: dropped and counted by the sender. */
static void t_stats_ud_mtu(void)
{
    const TMove a[] = { { ROCX_STAT_ROCE_TX_MTU_DROPS, 1 } };
    uint64_t a0[T_NTRANSPORT], b0[T_NTRANSPORT];
    struct rocx_qp_attr at;
    TCq cq;
    TQp qp;
    TMr mr;
    struct rocx_sge s;
    struct rocx_cqe e;
    struct rocx_send_wqe *w;
    uint64_t buf;
    uint16_t idx;

    CHECK_EQ(t_set_port_mtu(A, 1500), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(A, &cq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(A, &qp, ROCX_QPT_UD, &cq, &cq, 6, 6, 0),
             ROCX_AQ_STS_OK);
    buf = t_alloc(A, 2 * T_PAGE, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &mr, buf, 2 * T_PAGE, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    memset(&at, 0, sizeof(at));
    at.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY |
                       ROCX_QP_ATTR_PKEY_INDEX);
    at.state = ROCX_QPS_INIT;
    at.qkey = htole32(0x1234);
    CHECK_EQ(t_modify(&qp, &at), ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&qp, ROCX_QPS_RTR), ROCX_AQ_STS_OK);
    at.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN);
    at.state = ROCX_QPS_RTS;
    CHECK_EQ(t_modify(&qp, &at), ROCX_AQ_STS_OK);
    st_snap(A, a0);
    st_snap(B, b0);
    s = t_sge(&mr, 0, 1025);                /* 1024 is the largest */
    idx = t_post_send(&qp, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s, 1, 0, 0, 0);
    w = t_ptr(A, qp.buf + ((uint64_t)idx << qp.sq_shift), sizeof(*w));
    memset(&w->ud, 0, sizeof(w->ud));
    w->ud.remote_qpn = htole32(2);
    w->ud.qkey = htole32(0x1234);
    t_av(A, B, ROCX_NET_ROCE_V2_IPV4, &w->ud.av);
    t_ring_sq(&qp);
    t_pump();
    CHECK(t_poll(&cq, &e) && st(&e) == ROCX_WC_LOC_LEN_ERR);
    CHECK_EQ(wire.sent, 0);
    st_moved(A, a0, a, ARRAY_SIZE(a));
    st_moved(B, b0, NULL, 0);
}

/* GET_STATS writes every counter, the transport ones included. */
static void t_stats_get_stats(void)
{
    const uint32_t n = ROCX_STAT_NUM;
    uint64_t off = t_alloc(A, n * 8 + 8, 8);
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_GET_STATS);
    uint8_t *out;
    uint32_t got = 0;
    unsigned i;

    A->f->core.stats[ROCX_STAT_OUT_OF_SEQUENCE] = 0x1122334455667788ull;
    A->f->core.stats[ROCX_STAT_ROCE_TX_MTU_DROPS] = 5;
    A->f->core.stats[ROCX_STAT_NUM - 1] = 7;
    out = t_ptr(A, off, n * 8 + 8);
    memset(out, 0xee, n * 8 + 8);
    c.get_stats.addr = htole64(T_GPA(off));
    c.get_stats.len = htole32(n * 8 + 8);   /* room for one more */
    CHECK_EQ(t_aq(A, &c, &got), ROCX_AQ_STS_OK);
    CHECK_EQ(got, n);
    for (i = ROCX_STAT_PRIO_END; i < n; i++) {
        CHECK_EQ(ldq_le_p(out + i * 8), t_stat(A, i));
    }
    CHECK_EQ(ldq_le_p(out + ROCX_STAT_OUT_OF_SEQUENCE * 8),
             0x1122334455667788ull);
    CHECK_EQ(ldq_le_p(out + ROCX_STAT_ROCE_TX_MTU_DROPS * 8), 5);
    CHECK_EQ(out[n * 8], 0xee);             /* nothing past the last */
}

/* The names traces print, and what an unknown value prints. */
static void t_trace_names(void)
{
    CHECK(!strcmp(rocx_core_qp_state_name(ROCX_QPS_RESET), "RESET"));
    CHECK(!strcmp(rocx_core_qp_state_name(ROCX_QPS_RTS), "RTS"));
    CHECK(!strcmp(rocx_core_qp_state_name(ROCX_QPS_ERR), "ERR"));
    CHECK(!strcmp(rocx_core_qp_state_name(ROCX_QPS_ERR + 1), "?"));
    CHECK(!strcmp(rocx_core_retx_name(ROCX_RETX_TIMEOUT), "timeout"));
    CHECK(!strcmp(rocx_core_retx_name(ROCX_RETX_RNR), "rnr"));
    CHECK(!strcmp(rocx_core_retx_name(ROCX_RETX_RNR + 1), "?"));
}

const TCase t_cases_stats[] = {
    T_CASE(stats_sequence),
    T_CASE(stats_timeout),
    T_CASE(stats_nak_retries),
    T_CASE(stats_rnr),
    T_CASE(stats_remote_errors),
    T_CASE(stats_read_gap),
    T_CASE(stats_ud_mtu),
    T_CASE(stats_get_stats),
    T_CASE(trace_names),
};
const unsigned t_ncases_stats = ARRAY_SIZE(t_cases_stats);
