/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Atomics: CMP_SWAP and FETCH_ADD between two devices and in loopback,
 * over every network type; the responder's checks (alignment, R_Key and
 * its REMOTE_ATOMIC right, the QP's access flags) and the requester's;
 * duplicates answered from the saved result and never executed twice;
 * max_rd_atomic and max_dest_rd_atomic counting READs and atomics
 * together.
 */
#include "rdma.h"

#define MS      (1000 * 1000LL)
#define SEC     (1000 * MS)

/* Frames of these tests are RoCE v2 over IPv4, untagged. */
#define BTH_OFF (ETH_HLEN + ROCX_IPV4_HLEN + ROCX_UDP_HLEN)

static const uint32_t acc_all = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ |
    ROCX_ACCESS_REMOTE_ATOMIC;

typedef struct TAt {
    TDev *da, *db;
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    uint64_t abuf, bbuf;
} TAt;

static void at_setup(TAt *t, const TConn *conn, bool loopback,
                     uint32_t bacc)
{
    memset(t, 0, sizeof(*t));
    t->da = A;
    t->db = loopback ? A : B;
    CHECK_EQ(t_create_cq(t->da, &t->acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(t->db, &t->bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(t->da, &t->qa, &t->acq, &t->acq, 6, 6, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(t->db, &t->qb, &t->bcq, &t->bcq, 6, 6, 0),
             ROCX_AQ_STS_OK);
    t->abuf = t_alloc(t->da, 4 * T_PAGE, T_PAGE);
    t->bbuf = t_alloc(t->db, 4 * T_PAGE, T_PAGE);
    CHECK_EQ(t_reg_mr(t->da, &t->amr, t->abuf, 4 * T_PAGE, acc_all),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(t->db, &t->bmr, t->bbuf, 4 * T_PAGE, bacc),
             ROCX_AQ_STS_OK);
    t_connect(&t->qa, &t->qb, conn);
}

/* t_conn_default(), with atomics enabled on both QPs. */
static void conn_default(TConn *c)
{
    t_conn_default(c);
    c->access = acc_all;
}

static uint8_t st(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static uint8_t op(const struct rocx_cqe *e)
{
    return le32toh(e->qpn_op) >> 24;
}

static uint8_t qp_state(TQp *q)
{
    struct rocx_qp_attr a;

    CHECK_EQ(t_query(q, &a), ROCX_AQ_STS_OK);
    return a.state;
}

/* The 8-byte values of guest memory, as the guest's CPU reads them. */
static uint64_t *at_u64(TDev *d, uint64_t off)
{
    return t_ptr(d, off, 8);
}

/* An atomic WQE; the value found goes to 8 bytes at A's aoff. */
static uint16_t post_atomic(TAt *t, uint8_t opcode, uint64_t aoff,
                            uint64_t raddr, uint32_t rkey,
                            uint64_t compare_add, uint64_t swap)
{
    struct rocx_sge s = t_sge(&t->amr, aoff, 8);
    uint16_t idx = t_post_send(&t->qa, opcode, ROCX_WQE_SIGNALED, &s, 1,
                               raddr, rkey, 0);
    uint64_t off = (uint64_t)(idx & ((1u << t->qa.sq_ld) - 1))
                   << t->qa.sq_shift;
    struct rocx_send_wqe *w = t_ptr(t->da, t->qa.buf + off, sizeof(*w));

    w->atomic.compare_add = htole64(compare_add);
    w->atomic.swap = htole64(swap);
    return idx;
}

/* QP_ERROR events of qpn on d's EQ 0 with that vendor error. */
static unsigned qp_errors(TDev *d, uint32_t qpn, uint8_t verr)
{
    struct rocx_eqe *ev;
    unsigned n = 0;

    while ((ev = t_eq_next(d, 0))) {
        n += le16toh(ev->type) == ROCX_EQE_QP_ERROR &&
             le32toh(ev->data) == qpn && le64toh(ev->info) == verr;
    }
    return n;
}

/*
 * CAS that hits, CAS that misses, FAA that wraps 2^64, FAA of 0: each
 * returns what the target held and leaves what IB says, at every network
 * type, between two devices and in loopback.
 */
static void t_atomic_ops(void)
{
    static const uint8_t nets[] = {
        ROCX_NET_ROCE_V2_IPV4, ROCX_NET_ROCE_V2_IPV6, ROCX_NET_ROCE_V1,
    };
    unsigned n, lb;

    for (lb = 0; lb < 2; lb++) {
        for (n = 0; n < ARRAY_SIZE(nets); n++) {
            TAt t;
            TConn conn;
            struct rocx_cqe e;
            unsigned i;

            t_teardown();
            t_setup();
            conn_default(&conn);
            conn.net_type = nets[n];
            at_setup(&t, &conn, lb, acc_all);
            *at_u64(t.db, t.bbuf + 8) = 0x1111222233334444ULL;
            *at_u64(t.db, t.bbuf + 16) = 0xfffffffffffffff0ULL;
            *at_u64(t.db, t.bbuf + 4088) = 77;  /* the last of a page */
            memset(t_ptr(t.da, t.abuf, 64), 0xee, 64);
            /* Hit: swapped. */
            post_atomic(&t, ROCX_WQE_COMP_SWAP, 0, t.bmr.iova + 8, t.bmr.key,
                        0x1111222233334444ULL, 0x5555666677778888ULL);
            /* Miss: unchanged, the current value returned. */
            post_atomic(&t, ROCX_WQE_COMP_SWAP, 8, t.bmr.iova + 8, t.bmr.key,
                        0x1111222233334444ULL, 1);
            /* Wraps modulo 2^64. */
            post_atomic(&t, ROCX_WQE_FETCH_ADD, 16, t.bmr.iova + 16,
                        t.bmr.key, 0x25, 0);
            post_atomic(&t, ROCX_WQE_FETCH_ADD, 24, t.bmr.iova + 4088,
                        t.bmr.key, 0, 0);
            t_ring_sq(&t.qa);
            t_pump();
            for (i = 0; i < 4; i++) {
                CHECK(t_poll(&t.acq, &e));
                CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
                CHECK_EQ(le16toh(e.wqe_idx), i);
                CHECK_EQ(op(&e), i < 2 ? ROCX_CQE_OP_COMP_SWAP :
                         ROCX_CQE_OP_FETCH_ADD);
                CHECK_EQ(le32toh(e.byte_len), 8);
            }
            CHECK(!t_poll(&t.acq, &e));
            CHECK_EQ(*at_u64(t.da, t.abuf), 0x1111222233334444ULL);
            CHECK_EQ(*at_u64(t.da, t.abuf + 8), 0x5555666677778888ULL);
            CHECK_EQ(*at_u64(t.da, t.abuf + 16), 0xfffffffffffffff0ULL);
            CHECK_EQ(*at_u64(t.da, t.abuf + 24), 77);
            CHECK_EQ(*at_u64(t.da, t.abuf + 32), 0xeeeeeeeeeeeeeeeeULL);
            CHECK_EQ(*at_u64(t.db, t.bbuf + 8), 0x5555666677778888ULL);
            CHECK_EQ(*at_u64(t.db, t.bbuf + 16), 0x15);
            CHECK_EQ(*at_u64(t.db, t.bbuf + 4088), 77);
            CHECK_EQ(t_stat(t.db, ROCX_STAT_RX_ATOMIC_REQUESTS), 4);
            CHECK_EQ(t_stat(t.db, ROCX_STAT_RX_READ_REQUESTS), 0);
            CHECK_EQ(qp_state(&t.qa), ROCX_QPS_RTS);
            CHECK_EQ(qp_state(&t.qb), ROCX_QPS_RTS);
            CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
        }
    }
}

/*
 * Many FAAs of two QPs on one counter, with SENDs, WRITEs and READs in
 * between; the counter ends at exactly the sum, each requester saw every
 * value once.
 */
static void t_atomic_counter(void)
{
    TAt t, u;
    TConn conn;
    struct rocx_cqe e;
    bool seen[64] = { false };
    unsigned i, round;

    conn_default(&conn);
    at_setup(&t, &conn, false, acc_all);
    /* A second QP pair from A to B, on the same counter. */
    memset(&u, 0, sizeof(u));
    u.da = A;
    u.db = B;
    CHECK_EQ(t_create_cq(A, &u.acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &u.qa, &u.acq, &u.acq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &u.qb, &t.bcq, &t.bcq, 6, 6, 0), ROCX_AQ_STS_OK);
    u.abuf = t.abuf;
    u.amr = t.amr;
    t_connect(&u.qa, &u.qb, &conn);
    *at_u64(B, t.bbuf) = 0;
    for (round = 0; round < 4; round++) {
        for (i = 0; i < 8; i++) {
            unsigned k = round * 16 + i * 2;
            struct rocx_sge s = t_sge(&t.amr, 512, 64);

            post_atomic(&t, ROCX_WQE_FETCH_ADD, 8 * k, t.bmr.iova, t.bmr.key,
                        1, 0);
            post_atomic(&u, ROCX_WQE_FETCH_ADD, 8 * (k + 1), t.bmr.iova,
                        t.bmr.key, 1, 0);
            t_post_send(&t.qa, ROCX_WQE_RDMA_WRITE, 0, &s, 1,
                        t.bmr.iova + 1024, t.bmr.key, 0);
            if (i == 3) {
                t_post_send(&u.qa, ROCX_WQE_RDMA_READ, 0, &s, 1,
                            t.bmr.iova + 1024, t.bmr.key, 0);
            }
        }
        t_ring_sq(&t.qa);
        t_ring_sq(&u.qa);
        t_pump();
    }
    for (i = 0; i < 64; i++) {
        uint64_t v = *at_u64(A, t.abuf + 8 * i);

        CHECK(v < 64 && !seen[v]);
        if (v < 64) {
            seen[v] = true;
        }
    }
    CHECK_EQ(*at_u64(B, t.bbuf), 64);
    for (i = 0; i < 32; i++) {
        CHECK(t_poll(&t.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
        CHECK(t_poll(&u.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
    }
    CHECK(!t_poll(&t.acq, &e));
    CHECK(!t_poll(&u.acq, &e));
}

/* Requests the responder refuses, and WQEs the requester refuses. */
static void t_atomic_errors(void)
{
    static const struct {
        const char *what;
        uint32_t bacc;          /* B's MR */
        uint32_t qacc;          /* B's QP */
        uint64_t off;           /* into B's MR */
        int key;                /* 0: B's key, 1: a stale variant */
        uint8_t status;         /* at A */
        uint8_t verr;           /* B's QP_ERROR event */
    } v[] = {
        { "misaligned", 0, 0, 12, 0, ROCX_WC_REM_INV_REQ_ERR,
          ROCX_VERR_NAK_INVALID },
        { "misaligned by 1", 0, 0, 1, 0, ROCX_WC_REM_INV_REQ_ERR,
          ROCX_VERR_NAK_INVALID },
        { "bad R_Key", 0, 0, 8, 1, ROCX_WC_REM_ACCESS_ERR,
          ROCX_VERR_BAD_LKEY },
        { "past the MR", 0, 0, 4 * T_PAGE, 0, ROCX_WC_REM_ACCESS_ERR,
          ROCX_VERR_LKEY_BOUNDS },
        { "MR without REMOTE_ATOMIC", ROCX_ACCESS_REMOTE_ATOMIC, 0, 8, 0,
          ROCX_WC_REM_ACCESS_ERR, ROCX_VERR_LKEY_ACCESS },
        { "QP without REMOTE_ATOMIC", 0, ROCX_ACCESS_REMOTE_ATOMIC, 8, 0,
          ROCX_WC_REM_INV_REQ_ERR, ROCX_VERR_NAK_INVALID },
    };
    unsigned i, k;

    for (i = 0; i < ARRAY_SIZE(v); i++) {
        for (k = 0; k < 2; k++) {
            unsigned before = case_failures;
            TAt t;
            TConn conn;
            struct rocx_cqe e;

            t_teardown();
            t_setup();
            conn_default(&conn);
            conn.access = acc_all & ~v[i].qacc;
            at_setup(&t, &conn, false, acc_all & ~v[i].bacc);
            memset(t_ptr(B, t.bbuf, 32), 0, 32);
            *at_u64(A, t.abuf) = 0x4242;
            post_atomic(&t, k ? ROCX_WQE_FETCH_ADD : ROCX_WQE_COMP_SWAP, 0,
                        t.bmr.iova + v[i].off,
                        v[i].key ? t.bmr.key ^ 1 : t.bmr.key, 0, 0x99);
            t_ring_sq(&t.qa);
            t_pump();
            CHECK(t_poll(&t.acq, &e));
            CHECK_EQ(st(&e), v[i].status);
            CHECK_EQ(op(&e), k ? ROCX_CQE_OP_FETCH_ADD :
                     ROCX_CQE_OP_COMP_SWAP);
            CHECK_EQ(qp_state(&t.qa), ROCX_QPS_ERR);
            CHECK_EQ(qp_state(&t.qb), ROCX_QPS_ERR);
            CHECK_EQ(qp_errors(B, t.qb.qpn, v[i].verr), 1);
            /* Neither memory was written. */
            CHECK_EQ(*at_u64(A, t.abuf), 0x4242);
            CHECK_EQ(*at_u64(B, t.bbuf), 0);
            CHECK_EQ(*at_u64(B, t.bbuf + 8), 0);
            CHECK_EQ(*at_u64(B, t.bbuf + 16), 0);
            CHECK_EQ(B->f->core.rdma.stats.naks_sent, 1);
            if (case_failures != before) {
                fprintf(stderr, "    (%s, %s)\n", v[i].what,
                        k ? "FETCH_ADD" : "CMP_SWAP");
            }
        }
    }
}

/* WQEs the requester refuses before sending anything. */
static void t_atomic_local_errors(void)
{
    static const struct {
        const char *what;
        uint32_t len;           /* of the SGE */
        uint32_t aacc;          /* taken from A's MR */
        uint8_t nsge;
        uint8_t flags;
        uint8_t status;
    } v[] = {
        { "SGE of 4 bytes", 4, 0, 1, 0, ROCX_WC_LOC_LEN_ERR },
        { "SGE of 16 bytes", 16, 0, 1, 0, ROCX_WC_LOC_LEN_ERR },
        { "no SGE", 8, 0, 0, 0, ROCX_WC_LOC_QP_OP_ERR },
        { "two SGEs", 8, 0, 2, 0, ROCX_WC_LOC_QP_OP_ERR },
        { "inline", 8, 0, 1, ROCX_WQE_INLINE, ROCX_WC_LOC_QP_OP_ERR },
        { "SGE without LOCAL_WRITE", 8, ROCX_ACCESS_LOCAL_WRITE, 1, 0,
          ROCX_WC_LOC_PROT_ERR },
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(v); i++) {
        unsigned before = case_failures, sent;
        TAt t;
        TMr mr;
        TConn conn;
        struct rocx_cqe e;
        struct rocx_sge s[2];
        uint64_t off;
        uint16_t idx;
        struct rocx_send_wqe *w;

        t_teardown();
        t_setup();
        conn_default(&conn);
        at_setup(&t, &conn, false, acc_all);
        CHECK_EQ(t_reg_mr(A, &mr, t.abuf, T_PAGE, acc_all & ~v[i].aacc),
                 ROCX_AQ_STS_OK);
        s[0] = t_sge(&mr, 0, v[i].len);
        s[1] = t_sge(&mr, 64, 8);
        *at_u64(B, t.bbuf) = 5;
        sent = A->f->nframes;
        idx = t_post_send(&t.qa, ROCX_WQE_FETCH_ADD,
                          ROCX_WQE_SIGNALED | v[i].flags, s, v[i].nsge,
                          t.bmr.iova, t.bmr.key, 0);
        off = (uint64_t)(idx & ((1u << t.qa.sq_ld) - 1)) << t.qa.sq_shift;
        w = t_ptr(A, t.qa.buf + off, sizeof(*w));
        w->atomic.compare_add = htole64(1);
        if (v[i].flags & ROCX_WQE_INLINE) {
            w->ctrl.inline_len = htole32(8);
        }
        t_ring_sq(&t.qa);
        t_pump();
        CHECK(t_poll(&t.acq, &e));
        CHECK_EQ(st(&e), v[i].status);
        CHECK_EQ(A->f->nframes, sent);
        CHECK_EQ(*at_u64(B, t.bbuf), 5);
        CHECK_EQ(qp_state(&t.qa), ROCX_QPS_ERR);
        if (case_failures != before) {
            fprintf(stderr, "    (%s)\n", v[i].what);
        }
    }
}

/* ---- Duplicates ---- */

static uint8_t *frame_bth(uint8_t *f)
{
    return f + BTH_OFF;
}

/* Requests A sent and responses B sent, by opcode, kept for replay. */
static unsigned nreq, nack, drop_acks;
static uint8_t req_frame[8][ROCX_MAX_FRAME];
static size_t req_len[8];
/* Outstanding READs and atomics (requests sent less answers), its peak. */
static int outstanding, peak;

static bool watch(TDev *from, uint8_t *buf, size_t *len)
{
    uint8_t opc = rocx_bth_opcode(frame_bth(buf));

    if (from == A) {
        if (opc == ROCX_OP_CMP_SWAP || opc == ROCX_OP_FETCH_ADD ||
            opc == ROCX_OP_READ_REQ) {
            outstanding++;
            peak = MAX(peak, outstanding);
        }
        if ((opc == ROCX_OP_CMP_SWAP || opc == ROCX_OP_FETCH_ADD) &&
            nreq < ARRAY_SIZE(req_frame)) {
            memcpy(req_frame[nreq], buf, *len);
            req_len[nreq++] = *len;
        }
        return true;
    }
    if (opc == ROCX_OP_ATOMIC_ACK || opc == ROCX_OP_READ_RESP_LAST ||
        opc == ROCX_OP_READ_RESP_ONLY) {
        outstanding--;
    }
    if (opc == ROCX_OP_ATOMIC_ACK) {
        nack++;
        if (drop_acks) {
            drop_acks--;
            return false;
        }
    }
    return true;
}

static void watch_reset(void)
{
    nreq = nack = drop_acks = 0;
    outstanding = peak = 0;
    wire.filter = watch;
}

/*
 * The ATOMIC_ACKNOWLEDGE is lost: the requester times out and sends the
 * request again, and the responder answers it from the value it saved:
 * memory moved once, and the requester gets the value from before.
 */
static void t_atomic_dup_lost_ack(void)
{
    unsigned k;

    for (k = 0; k < 2; k++) {
        TAt t;
        TConn conn;
        struct rocx_cqe e;

        t_teardown();
        t_setup();
        conn_default(&conn);
        at_setup(&t, &conn, false, acc_all);
        *at_u64(B, t.bbuf) = 100;
        watch_reset();
        drop_acks = 1;
        if (k) {
            /* CAS 100 -> 7: executed twice, it would return 7. */
            post_atomic(&t, ROCX_WQE_COMP_SWAP, 0, t.bmr.iova, t.bmr.key,
                        100, 7);
        } else {
            post_atomic(&t, ROCX_WQE_FETCH_ADD, 0, t.bmr.iova, t.bmr.key,
                        5, 0);
        }
        t_ring_sq(&t.qa);
        t_pump();
        CHECK(!t_poll(&t.acq, &e));
        CHECK_EQ(*at_u64(B, t.bbuf), k ? 7 : 105);
        t_settle(10 * SEC);
        CHECK(t_poll(&t.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(nreq, 2);
        CHECK_EQ(nack, 2);
        CHECK_EQ(*at_u64(A, t.abuf), 100);
        CHECK_EQ(*at_u64(B, t.bbuf), k ? 7 : 105);
        CHECK_EQ(B->f->core.rdma.stats.dup_requests, 1);
        /* The duplicate is not counted as a request. */
        CHECK_EQ(t_stat(B, ROCX_STAT_RX_ATOMIC_REQUESTS), 1);
        CHECK_EQ(A->f->core.rdma.stats.timeouts, 1);
    }
}

/*
 * The answer is lost but a later WRITE's ACK arrives: an implied NAK;
 * the requester goes back to the atomic at once, and it is answered from
 * the saved value while the WRITE is executed again.
 */
static void t_atomic_dup_implied(void)
{
    TAt t;
    TConn conn;
    struct rocx_cqe e;
    struct rocx_sge s;
    unsigned i;

    conn_default(&conn);
    conn.timeout = 0;                       /* only the implied NAK */
    at_setup(&t, &conn, false, acc_all);
    *at_u64(B, t.bbuf) = 1000;
    watch_reset();
    drop_acks = 1;
    post_atomic(&t, ROCX_WQE_FETCH_ADD, 0, t.bmr.iova, t.bmr.key, 1, 0);
    t_fill(t_ptr(A, t.abuf + 256, 100), 100, 3);
    s = t_sge(&t.amr, 256, 100);
    t_post_send(&t.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                t.bmr.iova + 256, t.bmr.key, 0);
    t_ring_sq(&t.qa);
    t_pump();
    for (i = 0; i < 2; i++) {
        CHECK(t_poll(&t.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.wqe_idx), i);
    }
    CHECK_EQ(nreq, 2);
    CHECK_EQ(*at_u64(A, t.abuf), 1000);
    CHECK_EQ(*at_u64(B, t.bbuf), 1001);
    CHECK(!memcmp(t_ptr(A, t.abuf + 256, 100), t_ptr(B, t.bbuf + 256, 100),
                  100));
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_ATOMIC_REQUESTS), 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_WRITE_REQUESTS), 1);
}

/*
 * Duplicates replayed by hand: each is answered (one frame), memory does
 * not move, and the requester, which has its answer, drops the new one.
 * A duplicate that is not the request executed at that PSN, or older than
 * the max_dest_rd_atomic (4) READs and atomics held, is dropped.
 */
static void t_atomic_dup_replay(void)
{
    TAt t;
    TConn conn;
    struct rocx_cqe e;
    uint8_t f[ROCX_MAX_FRAME];
    unsigned i, sent;

    conn_default(&conn);
    conn.timeout = 0;
    at_setup(&t, &conn, false, acc_all);
    *at_u64(B, t.bbuf) = 0;
    watch_reset();
    for (i = 0; i < 5; i++) {
        post_atomic(&t, ROCX_WQE_FETCH_ADD, 8 * i, t.bmr.iova, t.bmr.key,
                    1, 0);
    }
    t_ring_sq(&t.qa);
    t_pump();
    for (i = 0; i < 5; i++) {
        CHECK(t_poll(&t.acq, &e) && st(&e) == ROCX_WC_SUCCESS);
        CHECK_EQ(*at_u64(A, t.abuf + 8 * i), i);
    }
    CHECK_EQ(nreq, 5);
    CHECK_EQ(*at_u64(B, t.bbuf), 5);
    wire.filter = NULL;

    /* Requests 1..4 are held: answered again with what they found. */
    for (i = 1; i < 5; i++) {
        sent = B->f->nframes;
        t_inject(B, req_frame[i], req_len[i]);
        t_pump();
        CHECK_EQ(B->f->nframes, sent + 1);
        CHECK_EQ(*at_u64(B, t.bbuf), 5);
    }
    CHECK_EQ(t_stat(A, ROCX_STAT_ROCE_RX_DROPPED), 4);
    CHECK_EQ(B->f->core.rdma.stats.dup_requests, 4);
    /* Request 0 is not: dropped. */
    sent = B->f->nframes;
    t_inject(B, req_frame[0], req_len[0]);
    t_pump();
    CHECK_EQ(B->f->nframes, sent);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), 1);
    /* Request 3 with another address: not the one executed, dropped. */
    memcpy(f, req_frame[3], req_len[3]);
    stq_be_p(frame_bth(f) + ROCX_BTH_LEN + ROCX_ATOMETH_VA, t.bmr.iova + 8);
    rocx_icrc_put(f + req_len[3] - ROCX_ICRC_LEN,
                  rocx_icrc(ROCX_NET_ROCE_V2_IPV4, f + ETH_HLEN, frame_bth(f),
                            f + req_len[3] - ROCX_ICRC_LEN));
    t_inject(B, f, req_len[3]);
    t_pump();
    CHECK_EQ(B->f->nframes, sent);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_ICRC_ERRORS), 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), 2);
    CHECK_EQ(*at_u64(B, t.bbuf), 5);
    CHECK_EQ(*at_u64(B, t.bbuf + 8), 0);
    CHECK_EQ(qp_state(&t.qa), ROCX_QPS_RTS);
    CHECK_EQ(qp_state(&t.qb), ROCX_QPS_RTS);
    CHECK(!t_poll(&t.acq, &e));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* ---- Limits ---- */

/*
 * The requester keeps at most max_rd_atomic (4) READs and atomics in
 * flight together, and a fence waits for all of them.
 */
static void t_atomic_rd_limit_req(void)
{
    TAt t;
    TConn conn;
    struct rocx_cqe e;
    struct rocx_sge s;
    unsigned i;

    conn_default(&conn);
    at_setup(&t, &conn, false, acc_all);
    *at_u64(B, t.bbuf) = 0;
    t_fill(t_ptr(B, t.bbuf + T_PAGE, T_PAGE), T_PAGE, 4);
    watch_reset();
    for (i = 0; i < 12; i++) {
        if (i % 3 == 2) {
            s = t_sge(&t.amr, T_PAGE + i * 64, 64);
            t_post_send(&t.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                        t.bmr.iova + T_PAGE + i * 64, t.bmr.key, 0);
        } else {
            post_atomic(&t, ROCX_WQE_FETCH_ADD, 8 * i, t.bmr.iova, t.bmr.key,
                        1, 0);
        }
    }
    /* A fenced READ of the counter: after every FAA. */
    s = t_sge(&t.amr, 2 * T_PAGE, 8);
    *at_u64(A, t.abuf + 2 * T_PAGE) = 0;
    t_post_send(&t.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED |
                ROCX_WQE_FENCE, &s, 1, t.bmr.iova, t.bmr.key, 0);
    t_ring_sq(&t.qa);
    t_pump();
    for (i = 0; i < 13; i++) {
        CHECK(t_poll(&t.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.wqe_idx), i);
    }
    CHECK_EQ(peak, 4);
    CHECK_EQ(outstanding, 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_ATOMIC_REQUESTS), 8);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_READ_REQUESTS), 5);
    CHECK_EQ(*at_u64(B, t.bbuf), 8);
    CHECK_EQ(*at_u64(A, t.abuf + 2 * T_PAGE), 8);
    for (i = 2; i < 12; i += 3) {
        CHECK(!memcmp(t_ptr(A, t.abuf + T_PAGE + i * 64, 64),
                      t_ptr(B, t.bbuf + T_PAGE + i * 64, 64), 64));
    }
}

/*
 * A responder with max_dest_rd_atomic 1 refuses a second READ or atomic
 * while the first is unanswered (the requester here may have 4): NAK
 * invalid request; the refused atomic is not executed.
 */
static void t_atomic_rd_limit_resp(void)
{
    unsigned k;

    for (k = 0; k < 2; k++) {
        TAt t;
        TConn conn;
        struct rocx_qp_attr a;
        struct rocx_cqe e;
        struct rocx_sge s;

        t_teardown();
        t_setup();
        conn_default(&conn);
        at_setup(&t, &conn, false, acc_all);
        /* B again through RESET, now with one responder resource. */
        CHECK_EQ(t_to_state(&t.qb, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
        memset(&a, 0, sizeof(a));
        a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_ACCESS |
                          ROCX_QP_ATTR_PKEY_INDEX);
        a.state = ROCX_QPS_INIT;
        a.access = htole32(acc_all);
        CHECK_EQ(t_modify(&t.qb, &a), ROCX_AQ_STS_OK);
        memset(&a, 0, sizeof(a));
        a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV |
                          ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
                          ROCX_QP_ATTR_RQ_PSN |
                          ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC);
        a.state = ROCX_QPS_RTR;
        t_av(B, A, conn.net_type, &a.av);
        a.av.vlan = htole16(ROCX_VLAN_NONE);
        a.path_mtu = conn.mtu;
        a.dest_qpn = htole32(t.qa.qpn);
        a.rq_psn = htole32(conn.psn_a);
        a.max_dest_rd_atomic = 1;
        CHECK_EQ(t_modify(&t.qb, &a), ROCX_AQ_STS_OK);
        memset(&a, 0, sizeof(a));
        a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN);
        a.state = ROCX_QPS_RTS;
        a.sq_psn = htole32(conn.psn_b);
        CHECK_EQ(t_modify(&t.qb, &a), ROCX_AQ_STS_OK);

        *at_u64(B, t.bbuf) = 0;
        if (k) {
            s = t_sge(&t.amr, 256, 64);
            t_post_send(&t.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                        t.bmr.iova + 256, t.bmr.key, 0);
        } else {
            post_atomic(&t, ROCX_WQE_FETCH_ADD, 0, t.bmr.iova, t.bmr.key,
                        1, 0);
        }
        post_atomic(&t, ROCX_WQE_FETCH_ADD, 8, t.bmr.iova, t.bmr.key, 1, 0);
        t_ring_sq(&t.qa);
        t_pump();
        /*
         * The NAK of the second covers the first, whose answer a QP in
         * ERR no longer sends: it takes the NAK's status, the second is
         * flushed.  Only the first was executed.
         */
        CHECK(t_poll(&t.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_REM_INV_REQ_ERR);
        CHECK(t_poll(&t.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_WR_FLUSH_ERR);
        CHECK_EQ(*at_u64(B, t.bbuf), k ? 0 : 1);
        CHECK_EQ(qp_state(&t.qb), ROCX_QPS_ERR);
        CHECK_EQ(qp_errors(B, t.qb.qpn, ROCX_VERR_NAK_INVALID), 1);
    }
}

/*
 * Through a type 2 memory window: an atomic inside the window and with
 * its REMOTE_ATOMIC right executes; one beyond its range, or after the
 * window lost the right, is refused as for an MR.
 */
static void t_atomic_through_window(void)
{
    TAt t;
    TConn conn;
    struct rocx_cqe e;
    uint32_t key, rkey;
    unsigned round;

    for (round = 0; round < 2; round++) {
        uint32_t rights = round ? ROCX_ACCESS_REMOTE_READ :
                          ROCX_ACCESS_REMOTE_ATOMIC;

        t_teardown();
        t_setup();
        conn_default(&conn);
        at_setup(&t, &conn, false, acc_all | ROCX_ACCESS_MW_BIND);
        CHECK_EQ(t_alloc_mw(B, ROCX_MW_TYPE_2, &key), ROCX_AQ_STS_OK);
        rkey = (key & ~0xffu) | ((key + 1) & 0xff);
        t_post_bind(&t.qb, ROCX_WQE_SIGNALED, rkey, &t.bmr, 0, 64, rights);
        t_ring_sq(&t.qb);
        t_pump();
        CHECK(t_poll(&t.bcq, &e));
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
        *at_u64(B, t.bbuf + 8) = 40;
        *at_u64(B, t.bbuf + 64) = 50;

        post_atomic(&t, ROCX_WQE_FETCH_ADD, 0, t.bmr.iova + 8, rkey, 2, 0);
        t_ring_sq(&t.qa);
        t_pump();
        CHECK(t_poll(&t.acq, &e));
        if (round) {
            CHECK_EQ(st(&e), ROCX_WC_REM_ACCESS_ERR);
            CHECK_EQ(*at_u64(B, t.bbuf + 8), 40);
            continue;
        }
        CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(*at_u64(A, t.abuf), 40);
        CHECK_EQ(*at_u64(B, t.bbuf + 8), 42);
        /* The first word after the window. */
        post_atomic(&t, ROCX_WQE_COMP_SWAP, 8, t.bmr.iova + 64, rkey, 50, 7);
        t_ring_sq(&t.qa);
        t_pump();
        CHECK(t_poll(&t.acq, &e));
        CHECK_EQ(st(&e), ROCX_WC_REM_ACCESS_ERR);
        CHECK_EQ(*at_u64(B, t.bbuf + 64), 50);
    }
}

const TCase t_cases_atomic[] = {
    T_CASE(atomic_ops),
    T_CASE(atomic_counter),
    T_CASE(atomic_errors),
    T_CASE(atomic_local_errors),
    T_CASE(atomic_dup_lost_ack),
    T_CASE(atomic_dup_implied),
    T_CASE(atomic_dup_replay),
    T_CASE(atomic_rd_limit_req),
    T_CASE(atomic_rd_limit_resp),
    T_CASE(atomic_through_window),
};
const unsigned t_ncases_atomic = ARRAY_SIZE(t_cases_atomic);
