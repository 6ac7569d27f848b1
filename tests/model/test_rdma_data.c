/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA data path: SEND, SEND with immediate, RDMA WRITE (with
 * immediate), RDMA READ between two devices wired back to back and in
 * loopback on one, at every path MTU and at 1 B, 4 KiB and 1 MiB; inline
 * data, SGE lists, two-level MRs, many WQEs in flight, completion rules.
 */
#include "rdma.h"

#define MIB     (1u << 20)

typedef struct TPair {
    TDev *da, *db;
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    uint64_t abuf, bbuf;
    uint64_t size;
} TPair;

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

static void pair_setup(TPair *p, uint64_t size, const TConn *conn,
                       bool loopback)
{
    memset(p, 0, sizeof(*p));
    p->da = A;
    p->db = loopback ? A : B;
    p->size = size;
    CHECK_EQ(t_create_cq(p->da, &p->acq, 10, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(p->db, &p->bcq, 10, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(p->da, &p->qa, &p->acq, &p->acq, 8, 8, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(p->db, &p->qb, &p->bcq, &p->bcq, 8, 8, 0),
             ROCX_AQ_STS_OK);
    p->abuf = t_alloc(p->da, size, T_PAGE);
    p->bbuf = t_alloc(p->db, size, T_PAGE);
    CHECK_EQ(t_reg_mr(p->da, &p->amr, p->abuf, size, all_access),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(p->db, &p->bmr, p->bbuf, size, all_access),
             ROCX_AQ_STS_OK);
    t_connect(&p->qa, &p->qb, conn);
}

static uint8_t cqe_status(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static uint8_t cqe_op(const struct rocx_cqe *e)
{
    return le32toh(e->qpn_op) >> 24;
}

/*
 * Move len bytes from A's buffer (at aoff) to B's (at boff) with opcode
 * (READ: from B to A), and check data and completions.
 */
static void xfer(TPair *p, uint8_t op, uint32_t len, uint64_t aoff,
                 uint64_t boff, uint32_t seed)
{
    uint8_t *a = t_ptr(p->da, p->abuf + aoff, len + 1);
    uint8_t *b = t_ptr(p->db, p->bbuf + boff, len + 1);
    struct rocx_sge as = t_sge(&p->amr, aoff, len);
    struct rocx_sge bs = t_sge(&p->bmr, boff, len);
    bool recv = op == ROCX_WQE_SEND || op == ROCX_WQE_SEND_IMM ||
                op == ROCX_WQE_RDMA_WRITE_IMM;
    bool imm = op == ROCX_WQE_SEND_IMM || op == ROCX_WQE_RDMA_WRITE_IMM;
    uint8_t *src = op == ROCX_WQE_RDMA_READ ? b : a;
    uint8_t *dst = op == ROCX_WQE_RDMA_READ ? a : b;
    uint32_t imm_val = 0x12345600 | (seed & 0xff);
    struct rocx_cqe e;
    uint16_t widx, ridx = 0;

    t_fill(src, len, seed);
    memset(dst, 0xee, len);
    dst[len] = 0x5a;                    /* the byte after must stay */
    if (recv) {
        ridx = t_post_recv(&p->qb, &bs, op == ROCX_WQE_RDMA_WRITE_IMM ? 0 : 1);
        t_ring_rq(&p->qb);
    }
    widx = t_post_send(&p->qa, op, ROCX_WQE_SIGNALED, &as, 1,
                       p->bmr.iova + boff, p->bmr.key, imm_val);
    t_ring_sq(&p->qa);
    t_pump();

    CHECK(t_poll(&p->acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), widx);
    CHECK_EQ(le32toh(e.qpn_op) & 0xffffff, p->qa.qpn);
    CHECK_EQ(cqe_op(&e), op == ROCX_WQE_RDMA_READ ? ROCX_CQE_OP_RDMA_READ :
             op == ROCX_WQE_RDMA_WRITE || op == ROCX_WQE_RDMA_WRITE_IMM ?
             ROCX_CQE_OP_RDMA_WRITE : ROCX_CQE_OP_SEND);
    CHECK(!(e.flags & ROCX_CQE_RECV));
    if (recv) {
        CHECK(t_poll(&p->bcq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.wqe_idx), ridx);
        CHECK_EQ(le32toh(e.byte_len), len);
        CHECK_EQ(le32toh(e.qpn_op) & 0xffffff, p->qb.qpn);
        CHECK_EQ(cqe_op(&e), op == ROCX_WQE_RDMA_WRITE_IMM ?
                 ROCX_CQE_OP_RECV_RDMA_IMM : ROCX_CQE_OP_RECV);
        CHECK(e.flags & ROCX_CQE_RECV);
        CHECK_EQ(!!(e.flags & ROCX_CQE_WITH_IMM), imm);
        if (imm) {
            CHECK_EQ(be32toh(e.imm_data), imm_val);
        }
    }
    CHECK(!t_poll(&p->acq, NULL));
    CHECK(!t_poll(&p->bcq, NULL));
    CHECK(!memcmp(src, dst, len));
    CHECK_EQ(dst[len], 0x5a);
}

static const uint8_t ops[] = {
    ROCX_WQE_SEND, ROCX_WQE_SEND_IMM, ROCX_WQE_RDMA_WRITE,
    ROCX_WQE_RDMA_WRITE_IMM, ROCX_WQE_RDMA_READ,
};
static const uint32_t sizes[] = { 1, 4096, MIB };

static void matrix(bool loopback, uint8_t net_type)
{
    unsigned m, s, o, seed = 1;
    static const uint8_t mtus[] = { 1, 3, 5 };

    for (m = 0; m < ARRAY_SIZE(mtus); m++) {
        TPair p;
        TConn conn;

        t_teardown();
        t_setup();
        t_conn_default(&conn);
        conn.mtu = mtus[m];
        conn.net_type = net_type;
        pair_setup(&p, MIB + T_PAGE, &conn, loopback);
        for (s = 0; s < ARRAY_SIZE(sizes); s++) {
            for (o = 0; o < ARRAY_SIZE(ops); o++) {
                unsigned before = case_failures;

                /* Odd offsets for the small ones: unaligned pages. */
                xfer(&p, ops[o], sizes[s], sizes[s] < MIB ? 123 : 0,
                     sizes[s] < MIB ? 4000 : 0, seed++);
                if (case_failures != before) {
                    fprintf(stderr, "    (mtu %u size %u op %u)\n",
                            128u << mtus[m], sizes[s], ops[o]);
                    return;
                }
            }
        }
        CHECK_EQ(p.da->f->gerrs + p.db->f->gerrs, 0);
        CHECK_EQ(t_stat(A, ROCX_STAT_ROCE_ICRC_ERRORS), 0);
        CHECK_EQ(t_stat(A, ROCX_STAT_ROCE_RX_DROPPED) +
                 t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), 0);
        CHECK_EQ(A->f->core.rdma.stats.retransmits +
                 B->f->core.rdma.stats.retransmits, 0);
        if (loopback) {
            CHECK_EQ(A->f->nframes + B->f->nframes, 0);
        }
    }
}

static void t_data_wire(void)
{
    matrix(false, ROCX_NET_ROCE_V2_IPV4);
}

static void t_data_loopback(void)
{
    matrix(true, ROCX_NET_ROCE_V2_IPV4);
}

/* Frames used: headers, segmentation and counters for one 1 MiB WRITE. */
static void t_data_segmentation(void)
{
    TPair p;
    TConn conn;
    unsigned m;

    for (m = 1; m <= 5; m++) {
        uint64_t tx0, rx0;
        unsigned sent0;

        t_teardown();
        t_setup();
        t_conn_default(&conn);
        conn.mtu = m;
        pair_setup(&p, MIB, &conn, false);
        tx0 = t_stat(A, ROCX_STAT_ROCE_TX_PACKETS);
        rx0 = t_stat(B, ROCX_STAT_ROCE_RX_PACKETS);
        sent0 = wire.sent;
        xfer(&p, ROCX_WQE_RDMA_WRITE, MIB, 0, 0, m);
        CHECK_EQ(t_stat(A, ROCX_STAT_ROCE_TX_PACKETS) - tx0, MIB >> (7 + m));
        CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS) - rx0, MIB >> (7 + m));
        /* ACKs: at least one per 16 packets and the last; coalesced. */
        CHECK(t_stat(B, ROCX_STAT_ROCE_TX_PACKETS) >= 1);
        CHECK(t_stat(B, ROCX_STAT_ROCE_TX_PACKETS) <=
              (MIB >> (7 + m)) / ROCX_ACK_INTERVAL + 1);
        CHECK_EQ(wire.sent - sent0, (MIB >> (7 + m)) +
                 t_stat(B, ROCX_STAT_ROCE_TX_PACKETS));
    }
}

static void t_data_inline(void)
{
    TPair p;
    TConn conn;
    uint8_t data[ROCX_CORE_MAX_INLINE];
    struct rocx_sge bs;
    struct rocx_cqe e;
    unsigned len;

    t_conn_default(&conn);
    pair_setup(&p, 2 * T_PAGE, &conn, false);
    for (len = 0; len <= ROCX_CORE_MAX_INLINE; len += 37) {
        uint8_t *b = t_ptr(B, p.bbuf, T_PAGE);

        t_fill(data, sizeof(data), len);
        memset(b, 0, T_PAGE);
        bs = t_sge(&p.bmr, 0, T_PAGE);
        t_post_recv(&p.qb, &bs, 1);
        t_ring_rq(&p.qb);
        t_post_inline(&p.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, data, len, 0,
                      0);
        t_post_inline(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, data,
                      len, p.bmr.iova + 2048, p.bmr.key);
        t_ring_sq(&p.qa);
        t_pump();
        CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_SUCCESS);
        CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_SUCCESS);
        CHECK(t_poll(&p.bcq, &e) && le32toh(e.byte_len) == len);
        CHECK(!memcmp(b, data, len));
        CHECK(!memcmp(b + 2048, data, len));
    }
    /* Inline data larger than max_inline, or than the WQE: bad WQE. */
    t_post_inline(&p.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, data,
                  ROCX_CORE_MAX_INLINE, 0, 0);
    *(uint32_t *)((uint8_t *)t_ptr(A, p.qa.buf, 512) +
                  ((p.qa.sq_pi - 1) & 255) * 512 + 8) =
        htole32(ROCX_CORE_MAX_INLINE + 1);
    t_ring_sq(&p.qa);
    t_pump();
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_BAD_WQE);
}

static void t_data_multi_sge(void)
{
    TPair p;
    TConn conn;
    struct rocx_sge s[ROCX_CORE_MAX_SGE], r[3];
    struct rocx_cqe e;
    TMr mr2;
    uint8_t *a, *b, expect[8192];
    static const uint32_t lens[8] = { 1, 100, 0, 1500, 7, 4096, 33, 555 };
    uint32_t total = 0, off = 0, i;
    uint64_t buf2 = t_alloc(A, 2 * T_PAGE, T_PAGE);

    t_conn_default(&conn);
    conn.mtu = 1;
    pair_setup(&p, 8 * T_PAGE, &conn, false);
    CHECK_EQ(t_reg_mr(A, &mr2, buf2, 2 * T_PAGE, all_access), ROCX_AQ_STS_OK);
    a = t_ptr(A, p.abuf, 8 * T_PAGE);
    t_fill(a, 8 * T_PAGE, 7);
    t_fill(t_ptr(A, buf2, 2 * T_PAGE), 2 * T_PAGE, 8);
    /* Eight SGEs from two MRs, one empty, in a scattered order. */
    for (i = 0; i < 8; i++) {
        const TMr *m = i & 1 ? &mr2 : &p.amr;
        uint64_t o = (i * 1237) % (m->len - lens[i]);

        s[i] = t_sge(m, o, lens[i]);
        memcpy(expect + total, (uint8_t *)t_ptr(A, m->off + o, lens[i] + 1),
               lens[i]);
        total += lens[i];
    }
    b = t_ptr(B, p.bbuf, 8 * T_PAGE);
    memset(b, 0, 8 * T_PAGE);
    r[0] = t_sge(&p.bmr, 10, 1000);
    r[1] = t_sge(&p.bmr, 5000, 3000);
    r[2] = t_sge(&p.bmr, 9000, 4000);
    t_post_recv(&p.qb, r, 3);
    t_ring_rq(&p.qb);
    t_post_send(&p.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, s, 8, 0, 0, 0);
    /* And the same list as an RDMA WRITE to one place. */
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, s, 8,
                p.bmr.iova + 13000, p.bmr.key, 0);
    t_ring_sq(&p.qa);
    t_pump();
    CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.bcq, &e) && le32toh(e.byte_len) == total);
    CHECK(!memcmp(b + 10, expect, 1000));
    CHECK(!memcmp(b + 5000, expect + 1000, 3000));
    CHECK(!memcmp(b + 9000, expect + 4000, total - 4000));
    CHECK(!memcmp(b + 13000, expect, total));
    CHECK_EQ(b[9], 0);
    CHECK_EQ(b[1010], 0);

    /* A READ scattered into three local SGEs. */
    t_fill(b, 8 * T_PAGE, 9);
    memset(a, 0, 8 * T_PAGE);
    s[0] = t_sge(&p.amr, 1, 300);
    s[1] = t_sge(&mr2, 64, 5000);
    s[2] = t_sge(&p.amr, 8192, 2000);
    t_post_send(&p.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, s, 3,
                p.bmr.iova + 77, p.bmr.key, 0);
    t_ring_sq(&p.qa);
    t_pump();
    CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_SUCCESS);
    CHECK_EQ(le32toh(e.byte_len), 7300);
    CHECK(!memcmp(a + 1, b + 77, 300));
    CHECK(!memcmp((uint8_t *)t_ptr(A, buf2 + 64, 5000), b + 377, 5000));
    CHECK(!memcmp(a + 8192, b + 5377, 2000));

    /* More SGEs than max_sge, or than fit the WQE: bad WQE. */
    for (off = 0; off < ROCX_CORE_MAX_SGE; off++) {
        s[off] = t_sge(&p.amr, 0, 1);
    }
    t_post_send(&p.qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, s, 8, 0, 0, 0);
    ((struct rocx_send_wqe *)t_ptr(A, p.qa.buf + ((p.qa.sq_pi - 1) & 255) *
                                   512, 64))->ctrl.num_sge = 9;
    t_ring_sq(&p.qa);
    t_pump();
    CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_LOC_QP_OP_ERR);
}

static void t_data_two_level_mr(void)
{
    TPair p;
    TConn conn;
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_REG_MR);
    struct rocx_aq_reg_mr *r = (void *)&c;
    uint64_t big = t_alloc(B, 4 * MIB, T_PAGE);
    uint32_t key;
    struct rocx_sge s;
    struct rocx_cqe e;
    uint8_t *src;

    t_conn_default(&conn);
    conn.mtu = 5;
    pair_setup(&p, 2 * MIB, &conn, false);
    /* 4 MiB of 4 KiB pages in a 2-level list, iova far from its gpa. */
    r->pdn = htole32(B->pdn);
    r->access = htole32(all_access);
    r->iova = htole64(0x40000000000ULL + 0x800);
    r->offset = htole32(0x800);
    r->length = htole64(4 * MIB - 0x800);
    r->pbl = t_pbl(B, big, 4 * MIB, 12, 2);
    CHECK_EQ(t_aq(B, &c, &key), ROCX_AQ_STS_OK);
    src = t_ptr(A, p.abuf, 2 * MIB);
    t_fill(src, 2 * MIB, 11);
    s = t_sge(&p.amr, 0, 2 * MIB);
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                0x40000000000ULL + 0x800 + MIB + 3, key, 0);
    t_ring_sq(&p.qa);
    t_pump();
    CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, big + 0x800 + MIB + 3, 2 * MIB), src, 2 * MIB));
}

/*
 * Many WQEs in flight, mostly unsignalled: a CQE retires the WQEs before
 * it; more WQEs than the requester keeps in flight and more PSNs than
 * its window.
 */
static void t_data_many_wqes(void)
{
    TPair p;
    TConn conn;
    struct rocx_sge s, r;
    struct rocx_cqe e;
    unsigned i, n = 200, sig = 0, recvs = 0;
    uint16_t last_sig = 0;

    t_conn_default(&conn);
    conn.mtu = 1;
    pair_setup(&p, 256 * T_PAGE, &conn, false);
    t_fill(t_ptr(A, p.abuf, 256 * T_PAGE), 256 * T_PAGE, 5);
    for (i = 0; i < n; i++) {
        r = t_sge(&p.bmr, i * 1024, 1024);
        t_post_recv(&p.qb, &r, 1);
    }
    t_ring_rq(&p.qb);
    for (i = 0; i < n; i++) {
        bool signal = i % 7 == 6 || i == n - 1;

        s = t_sge(&p.amr, i * 1024, 1000 + i % 24);
        last_sig = t_post_send(&p.qa, i % 3 ? ROCX_WQE_SEND :
                               ROCX_WQE_SEND_IMM,
                               signal ? ROCX_WQE_SIGNALED : 0, &s, 1, 0, 0,
                               i);
        sig += signal;
        if (i % 50 == 49) {
            t_ring_sq(&p.qa);
            if (i == 99) {
                t_pump();
            }
        }
    }
    t_ring_sq(&p.qa);
    t_pump();
    for (i = 0; t_poll(&p.acq, &e); i++) {
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.wqe_idx) % 7 == 6 || le16toh(e.wqe_idx) == n - 1,
                 true);
    }
    CHECK_EQ(i, sig);
    CHECK_EQ(le16toh(e.wqe_idx), last_sig);
    while (t_poll(&p.bcq, &e)) {
        CHECK_EQ(le16toh(e.wqe_idx), recvs);
        CHECK_EQ(le32toh(e.byte_len), 1000 + recvs % 24);
        CHECK(!memcmp(t_ptr(B, p.bbuf + recvs * 1024, 1000),
                      t_ptr(A, p.abuf + recvs * 1024, 1000), 1000));
        recvs++;
    }
    CHECK_EQ(recvs, n);

    /* SIG_ALL QP: every WQE completes. */
    {
        TQp q2, q3;

        CHECK_EQ(t_create_qp(A, &q2, &p.acq, &p.acq, 4, 4, ROCX_QP_SQ_SIG_ALL),
                 ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(B, &q3, &p.bcq, &p.bcq, 4, 4, 0),
                 ROCX_AQ_STS_OK);
        t_connect(&q2, &q3, &conn);
        s = t_sge(&p.amr, 0, 10);
        for (i = 0; i < 5; i++) {
            t_post_send(&q2, ROCX_WQE_RDMA_WRITE, 0, &s, 1, p.bmr.iova,
                        p.bmr.key, 0);
        }
        t_ring_sq(&q2);
        t_pump();
        for (i = 0; t_poll(&p.acq, &e); i++) {
            CHECK_EQ(le16toh(e.wqe_idx), i);
        }
        CHECK_EQ(i, 5);
    }
}

static void t_data_reads_in_flight(void)
{
    TPair p;
    TConn conn;
    struct rocx_sge s;
    struct rocx_cqe e;
    unsigned i;

    t_conn_default(&conn);
    conn.mtu = 2;
    pair_setup(&p, 64 * T_PAGE, &conn, false);
    t_fill(t_ptr(B, p.bbuf, 64 * T_PAGE), 64 * T_PAGE, 21);
    /* 12 READs, 4 may be in flight (max_rd_atomic); a WRITE fenced. */
    for (i = 0; i < 12; i++) {
        s = t_sge(&p.amr, i * 4 * T_PAGE, 3 * T_PAGE + i);
        t_post_send(&p.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                    p.bmr.iova + i * 4 * T_PAGE, p.bmr.key, 0);
    }
    s = t_sge(&p.amr, 0, 100);
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED |
                ROCX_WQE_FENCE, &s, 1, p.bmr.iova + 60 * T_PAGE, p.bmr.key,
                0);
    t_ring_sq(&p.qa);
    t_pump();
    for (i = 0; i < 13; i++) {
        CHECK(t_poll(&p.acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.wqe_idx), i);
    }
    for (i = 0; i < 12; i++) {
        CHECK(!memcmp(t_ptr(A, p.abuf + i * 4 * T_PAGE, 3 * T_PAGE + i),
                      t_ptr(B, p.bbuf + i * 4 * T_PAGE, 3 * T_PAGE + i),
                      3 * T_PAGE + i));
    }
    /* The fenced WRITE saw the data the READs brought. */
    CHECK(!memcmp(t_ptr(B, p.bbuf + 60 * T_PAGE, 100),
                  t_ptr(B, p.bbuf, 100), 100));
}

static void t_data_zero_length(void)
{
    TPair p;
    TConn conn;
    struct rocx_cqe e;
    struct rocx_sge s;

    t_conn_default(&conn);
    pair_setup(&p, T_PAGE, &conn, false);
    s = t_sge(&p.bmr, 0, 16);
    t_post_recv(&p.qb, &s, 1);
    t_post_recv(&p.qb, NULL, 0);
    t_ring_rq(&p.qb);
    t_post_send(&p.qa, ROCX_WQE_SEND_IMM, ROCX_WQE_SIGNALED, NULL, 0, 0, 0,
                0xabcd);
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE_IMM, ROCX_WQE_SIGNALED, NULL, 0,
                p.bmr.iova, p.bmr.key, 0xbcde);
    t_post_send(&p.qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, NULL, 0,
                p.bmr.iova, p.bmr.key, 0);
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, NULL, 0,
                0, 0x999, 0);   /* zero length: no key is used */
    t_ring_sq(&p.qa);
    t_pump();
    CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.acq, &e) && cqe_status(&e) == ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.bcq, &e) && le32toh(e.byte_len) == 0 &&
          be32toh(e.imm_data) == 0xabcd);
    CHECK(t_poll(&p.bcq, &e) && cqe_op(&e) == ROCX_CQE_OP_RECV_RDMA_IMM &&
          be32toh(e.imm_data) == 0xbcde);
}

/* Other headers: IPv6, RoCE v1, a VLAN; all MTUs, both directions. */
static void t_data_ipv6_v1_vlan(void)
{
    static const uint8_t nets[] = {
        ROCX_NET_ROCE_V2_IPV6, ROCX_NET_ROCE_V1, ROCX_NET_ROCE_V2_IPV4,
    };
    unsigned n, o;

    for (n = 0; n < ARRAY_SIZE(nets); n++) {
        TPair p;
        TConn conn;

        t_teardown();
        t_setup();
        t_conn_default(&conn);
        conn.net_type = nets[n];
        conn.mtu = 5;
        if (n == 2) {
            conn.vlan = 42;
            CHECK_EQ(t_set_gid(A, 0, 42), ROCX_AQ_STS_OK);
            CHECK_EQ(t_set_gid(B, 0, 42), ROCX_AQ_STS_OK);
        }
        pair_setup(&p, 64 * T_PAGE, &conn, false);
        for (o = 0; o < ARRAY_SIZE(ops); o++) {
            xfer(&p, ops[o], 50000 + o, 5, 7, o + n * 10);
        }
        CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
        CHECK(A->f->nframes > 0);
        /* The headers say what was asked for. */
        if (nets[n] == ROCX_NET_ROCE_V1) {
            CHECK_EQ(A->f->frames[0][12], 0x89);
            CHECK_EQ(A->f->frames[0][13], 0x15);
        } else if (nets[n] == ROCX_NET_ROCE_V2_IPV6) {
            CHECK_EQ(A->f->frames[0][12], 0x86);
            CHECK_EQ(A->f->frames[0][13], 0xdd);
        } else {
            CHECK_EQ(A->f->frames[0][12], 0x81);
            CHECK_EQ(A->f->frames[0][15], 42);
            CHECK_EQ(A->f->frames[0][16], 0x08);
        }
    }
}

/*
 * A 2 GiB region of d made of one 2 MiB block of guest memory, repeated:
 * enough to move IB's largest message without the memory for it.
 */
static void reg_alias_mr(TDev *d, TMr *mr, uint64_t block, uint64_t iova)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_REG_MR);
    struct rocx_aq_reg_mr *r = (void *)&c;
    uint64_t tbl = t_alloc(d, T_PAGE, T_PAGE), l1 = t_alloc(d, 16, 8);
    uint64_t *e = t_ptr(d, tbl, T_PAGE), *e1 = t_ptr(d, l1, 16);
    unsigned i;

    for (i = 0; i < 512; i++) {
        e[i] = htole64(T_GPA(block));
    }
    e1[0] = e1[1] = htole64(T_GPA(tbl));
    r->pdn = htole32(d->pdn);
    r->access = htole32(all_access);
    r->iova = htole64(iova);
    r->length = htole64(1ULL << 31);
    r->pbl.addr = htole64(T_GPA(l1));
    r->pbl.npages = htole32(1024);
    r->pbl.page_shift = 21;
    r->pbl.levels = 2;
    mr->off = block;
    mr->len = 1ULL << 31;
    mr->iova = iova;
    CHECK_EQ(t_aq(d, &c, &mr->key), ROCX_AQ_STS_OK);
}

/* The READ requests A sends, as B would see them. */
static unsigned nreads;
static uint32_t read_psn[4], read_len[4];

static bool see_reads(TDev *from, uint8_t *buf, size_t *len)
{
    const uint8_t *bth = buf + ETH_HLEN + ROCX_IPV4_HLEN + ROCX_UDP_HLEN;
    uint32_t opf = rocx_op_flags(ROCX_OP_READ_REQ);

    if (rocx_bth_opcode(bth) == ROCX_OP_READ_REQ && nreads < 4) {
        read_psn[nreads] = rocx_bth_psn(bth);
        read_len[nreads++] = rocx_reth_dmalen(bth, opf);
    }
    return false;
}

/*
 * IB's largest message, 2^31 bytes, at path MTU 256 is 2^23 packets: half
 * the PSN space.  Measured from a message's first PSN, its end overflows
 * the signed 24-bit distance, and a requester that relied on it would
 * never end the WQE; a READ that moved the next PSN by all of it at once
 * would go beyond what PSN comparisons can tell apart.  A READ that long is
 * asked for as two READ requests of 2^22 responses each, the second once
 * the first is answered; at MTU 512 (2^22 responses) it stays one.  The
 * whole transfers run in loopback (no wire, no ICRC: the same transport,
 * and faster), the first requests on the wire.
 */
static void t_data_largest_messages(void)
{
    static const uint8_t ops[] = { ROCX_WQE_RDMA_READ, ROCX_WQE_RDMA_WRITE };
    unsigned i;

    /* On the wire: one request at a time, of 2^22 responses at most. */
    for (i = 1; i <= 2; i++) {
        TConn conn;
        TCq cq;
        TQp qa, qb;
        TMr dst;
        struct rocx_sge s;

        t_teardown();
        t_setup();
        nreads = 0;
        wire.filter = see_reads;
        CHECK_EQ(t_create_cq(A, &cq, 8, 0, 1), ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_cq(B, &cq, 8, 0, 1), ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(A, &qa, &cq, &cq, 4, 4, 0), ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(B, &qb, &cq, &cq, 4, 4, 0), ROCX_AQ_STS_OK);
        reg_alias_mr(A, &dst, t_alloc(A, 2 * MIB, 2 * MIB), 3ULL << 40);
        t_conn_default(&conn);
        conn.mtu = i;
        conn.timeout = 0;
        t_connect(&qa, &qb, &conn);
        s = t_sge(&dst, 0, 1u << 31);
        t_post_send(&qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                    1ULL << 40, 0x1234, 0);
        t_ring_sq(&qa);
        t_pump();
        CHECK_EQ(nreads, 1);
        CHECK_EQ(read_psn[0], conn.psn_a);
        CHECK_EQ(read_len[0], i == 1 ? 1u << 30 : 1u << 31);
    }

    for (i = 0; i < ARRAY_SIZE(ops); i++) {
        TConn conn;
        TCq cq;
        TQp qa, qb;
        TMr src, dst;
        struct rocx_sge s;
        struct rocx_cqe e;
        uint64_t bsrc, bdst;
        RocxQp *resp;
        uint32_t msn;
        int n;

        t_teardown();
        t_setup();
        CHECK_EQ(t_create_cq(A, &cq, 8, 0, 1), ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(A, &qa, &cq, &cq, 4, 4, 0), ROCX_AQ_STS_OK);
        CHECK_EQ(t_create_qp(A, &qb, &cq, &cq, 4, 4, 0), ROCX_AQ_STS_OK);
        bsrc = t_alloc(A, 2 * MIB, 2 * MIB);
        bdst = t_alloc(A, 2 * MIB, 2 * MIB);
        t_fill(t_ptr(A, bsrc, 2 * MIB), 2 * MIB, 12 + i);
        reg_alias_mr(A, &src, bsrc, 1ULL << 40);
        reg_alias_mr(A, &dst, bdst, 3ULL << 40);
        t_conn_default(&conn);
        conn.mtu = 1;
        t_connect(&qa, &qb, &conn);
        resp = rocx_qp_get(&A->f->core, qb.qpn);
        msn = resp->resp.msn;
        if (ops[i] == ROCX_WQE_RDMA_READ) {
            s = t_sge(&dst, 0, 1u << 31);
            t_post_send(&qa, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &s, 1,
                        src.iova, src.key, 0);
        } else {
            s = t_sge(&src, 0, 1u << 31);
            t_post_send(&qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &s, 1,
                        dst.iova, dst.key, 0);
        }
        t_ring_sq(&qa);
        t_pump();
        n = 0;
        while (t_poll(&cq, &e)) {
            n++;
            CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
            CHECK_EQ(le32toh(e.byte_len), 1u << 31);
        }
        CHECK_EQ(n, 1);
        CHECK(!memcmp(t_ptr(A, bsrc, 2 * MIB), t_ptr(A, bdst, 2 * MIB),
                      2 * MIB));
        /* Two READ requests; both ends are where 2^23 PSNs put them. */
        if (ops[i] == ROCX_WQE_RDMA_READ) {
            CHECK_EQ((resp->resp.msn - msn) & ROCX_PSN_MASK, 2);
        }
        CHECK_EQ(resp->resp.epsn, (conn.psn_a + (1u << 23)) & ROCX_PSN_MASK);
        CHECK_EQ(rocx_qp_get(&A->f->core, qa.qpn)->req.psn_una,
                 (conn.psn_a + (1u << 23)) & ROCX_PSN_MASK);
        CHECK_EQ(A->f->core.rdma.stats.retransmits, 0);
        CHECK_EQ(A->f->gerrs, 0);
        if (ops[i] == ROCX_WQE_RDMA_WRITE) {
            /* One byte more than IB's largest: a local length error. */
            struct rocx_sge two[2] = {
                t_sge(&src, 0, 1u << 31), t_sge(&dst, 0, 1),
            };

            t_post_send(&qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, two, 2,
                        dst.iova, dst.key, 0);
            t_ring_sq(&qa);
            t_pump();
            CHECK(t_poll(&cq, &e));
            CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_LOC_LEN_ERR);
        }
    }
}

/*
 * Sink mode: RC send WQEs of every kind complete in order, successfully
 * and at once, with no frame sent and nothing changed at the peer; more
 * WQEs than the requester keeps in flight.  Off again, the QP moves data
 * as before.
 */
static void t_data_sink(void)
{
    static const uint8_t ops[] = {
        ROCX_WQE_RDMA_WRITE, ROCX_WQE_SEND, ROCX_WQE_RDMA_READ,
        ROCX_WQE_RDMA_WRITE_IMM, ROCX_WQE_SEND_IMM,
    };
    TPair p;
    TConn conn;
    struct rocx_sge s, r;
    struct rocx_cqe e;
    unsigned i, n = 100, sig = 0, frames;
    uint16_t last = 0;
    uint8_t *b;

    t_conn_default(&conn);
    pair_setup(&p, 64 * T_PAGE, &conn, false);
    t_fill(t_ptr(A, p.abuf, 64 * T_PAGE), 64 * T_PAGE, 7);
    b = t_ptr(B, p.bbuf, 64 * T_PAGE);
    memset(b, 0xee, 64 * T_PAGE);
    r = t_sge(&p.bmr, 0, 4096);
    t_post_recv(&p.qb, &r, 1);
    t_ring_rq(&p.qb);
    t_pump();
    rocx_core_set_sink(&A->f->core, true);
    frames = A->f->nframes;
    for (i = 0; i < n; i++) {
        bool signal = i % 5 == 4 || i == n - 1;

        s = t_sge(&p.amr, (i % 16) * 4096, 4096);
        last = t_post_send(&p.qa, ops[i % ARRAY_SIZE(ops)],
                           signal ? ROCX_WQE_SIGNALED : 0, &s, 1,
                           p.bmr.iova + (i % 16) * 4096, p.bmr.key, i);
        sig += signal;
        if (i % 40 == 39) {
            t_ring_sq(&p.qa);
        }
    }
    t_ring_sq(&p.qa);
    t_pump();
    for (i = 0; t_poll(&p.acq, &e); i++) {
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.wqe_idx), i * 5 + 4 < n ? i * 5 + 4 : n - 1);
    }
    CHECK_EQ(i, sig);
    CHECK_EQ(le16toh(e.wqe_idx), last);
    CHECK_EQ(A->f->nframes, frames);
    CHECK(!t_poll(&p.bcq, &e));
    for (i = 0; i < 64 * T_PAGE && b[i] == 0xee; i++) {
    }
    CHECK_EQ(i, 64 * T_PAGE);
    CHECK_EQ(rocx_qp_get(&A->f->core, p.qa.qpn)->state, ROCX_QPS_RTS);

    rocx_core_set_sink(&A->f->core, false);
    xfer(&p, ROCX_WQE_RDMA_WRITE, 3 * 4096, 0, 0, 9);
    CHECK(A->f->nframes > frames);
    CHECK_EQ(A->f->gerrs, 0);
}

/*
 * The requester's limits: out-of-range values are refused and change
 * nothing; at the tightest (one WQE, 16 PSNs) messages of many packets
 * still complete with their data, and so at the widest.
 */
static void t_data_req_limits(void)
{
    static const uint32_t lim[][2] = { { 16, 1 }, { 8192, 128 } };
    TPair p;
    TConn conn;
    RocxCore *c = &A->f->core;
    unsigned i, j;

    CHECK_EQ(c->req_window, ROCX_REQ_WINDOW);
    CHECK_EQ(c->req_max_wqes, ROCX_REQ_WQES);
    CHECK(!rocx_core_set_req_limits(c, ROCX_REQ_MIN_WINDOW - 1, 32));
    CHECK(!rocx_core_set_req_limits(c, ROCX_REQ_MAX_WINDOW + 1, 32));
    CHECK(!rocx_core_set_req_limits(c, 512, 0));
    CHECK(!rocx_core_set_req_limits(c, 512, ROCX_REQ_MAX_WQES + 1));
    CHECK_EQ(c->req_window, ROCX_REQ_WINDOW);
    CHECK_EQ(c->req_max_wqes, ROCX_REQ_WQES);

    t_conn_default(&conn);
    conn.mtu = 1;
    pair_setup(&p, 256 * T_PAGE, &conn, false);
    for (j = 0; j < ARRAY_SIZE(lim); j++) {
        CHECK(rocx_core_set_req_limits(c, lim[j][0], lim[j][1]));
        CHECK_EQ(c->req_window, lim[j][0]);
        CHECK_EQ(c->req_max_wqes, lim[j][1]);
        for (i = 0; i < 4; i++) {
            xfer(&p, i % 2 ? ROCX_WQE_RDMA_READ : ROCX_WQE_RDMA_WRITE,
                 64 * T_PAGE, i * 64 * T_PAGE, i * 64 * T_PAGE, i + j);
        }
    }
    CHECK_EQ(A->f->gerrs, 0);
}

const TCase t_cases_data[] = {
    T_CASE(data_wire),
    T_CASE(data_loopback),
    T_CASE(data_segmentation),
    T_CASE(data_inline),
    T_CASE(data_multi_sge),
    T_CASE(data_two_level_mr),
    T_CASE(data_many_wqes),
    T_CASE(data_reads_in_flight),
    T_CASE(data_zero_length),
    T_CASE(data_ipv6_v1_vlan),
    T_CASE(data_largest_messages),
    T_CASE(data_sink),
    T_CASE(data_req_limits),
};
const unsigned t_ncases_data = ARRAY_SIZE(t_cases_data);
