/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * UC queue pairs: SEND, SEND with immediate, RDMA WRITE and WRITE with
 * immediate between two devices and in loopback over every network type;
 * no ACK ever, no timer, completion once sent; a gap drops the message
 * and everything up to the next FIRST or ONLY; a WRITE the QP does not
 * enable, a bad R_Key and a SEND without a receive are dropped silently
 * (the responder QP goes on working); READ, atomics and invalidation
 * refused; MODIFY_QP masks; RC packets to a UC QP dropped.
 */
#include "rdma.h"

typedef struct TUc {
    TDev *da, *db;
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    uint64_t abuf, bbuf;
} TUc;

#define UC_BUF  (64u << 10)

/* Frames seen on the wire, by sender: BTH opcode and AckReq. */
static unsigned uc_frames[2], uc_bad_frames;
static uint8_t uc_ops[2][64];

static bool uc_watch(TDev *from, uint8_t *buf, size_t *len)
{
    unsigned i = from == A ? 0 : 1;
    const uint8_t *bth = buf + 14 + 20 + 8;     /* RoCE v2 over IPv4 */

    if (*len < 14 + 20 + 8 + 12) {
        return true;
    }
    if (uc_frames[i] < ARRAY_SIZE(uc_ops[i])) {
        uc_ops[i][uc_frames[i]] = bth[0];
    }
    uc_frames[i]++;
    /* Every UC packet is of the UC transport and asks for no ACK. */
    if ((bth[0] & 0xe0) != 0x20 || (bth[8] & 0x80)) {
        uc_bad_frames++;
    }
    return true;
}

/* Bring q to RTS towards peer with UC's attributes only. */
static void uc_connect_one(TQp *q, TQp *peer, uint8_t net_type,
                           uint8_t mtu, uint32_t access, uint32_t sq_psn,
                           uint32_t rq_psn)
{
    struct rocx_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_ACCESS |
                      ROCX_QP_ATTR_PKEY_INDEX);
    a.state = ROCX_QPS_INIT;
    a.access = htole32(access);
    CHECK_EQ(t_modify(q, &a), ROCX_AQ_STS_OK);

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV |
                      ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
                      ROCX_QP_ATTR_RQ_PSN);
    a.state = ROCX_QPS_RTR;
    t_av(q->d, peer->d, net_type, &a.av);
    a.path_mtu = mtu;
    a.dest_qpn = htole32(peer->qpn);
    a.rq_psn = htole32(rq_psn);
    CHECK_EQ(t_modify(q, &a), ROCX_AQ_STS_OK);

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN);
    a.state = ROCX_QPS_RTS;
    a.sq_psn = htole32(sq_psn);
    CHECK_EQ(t_modify(q, &a), ROCX_AQ_STS_OK);
}

/* UC QPs qa (on A) and qb (on B, or A for loopback), connected. */
static void uc_setup(TUc *u, bool loopback, uint8_t net_type,
                     uint32_t b_access)
{
    const uint32_t all = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE;

    memset(u, 0, sizeof(*u));
    u->da = A;
    u->db = loopback ? A : B;
    CHECK_EQ(t_create_cq(u->da, &u->acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(u->db, &u->bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(u->da, &u->qa, ROCX_QPT_UC, &u->acq, &u->acq,
                              6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(u->db, &u->qb, ROCX_QPT_UC, &u->bcq, &u->bcq,
                              6, 6, 0), ROCX_AQ_STS_OK);
    u->abuf = t_alloc(u->da, UC_BUF, T_PAGE);
    u->bbuf = t_alloc(u->db, UC_BUF, T_PAGE);
    CHECK_EQ(t_reg_mr(u->da, &u->amr, u->abuf, UC_BUF, all), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(u->db, &u->bmr, u->bbuf, UC_BUF, all), ROCX_AQ_STS_OK);
    uc_connect_one(&u->qa, &u->qb, net_type, 3, all, 0x10, 0xfffffe);
    uc_connect_one(&u->qb, &u->qa, net_type, 3, b_access, 0xfffffe, 0x10);
    uc_frames[0] = uc_frames[1] = uc_bad_frames = 0;
    wire.filter = net_type == ROCX_NET_ROCE_V2_IPV4 ? uc_watch : NULL;
}

static uint8_t cqe_status(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static uint8_t cqe_op(const struct rocx_cqe *e)
{
    return le32toh(e->qpn_op) >> 24;
}

static uint8_t qp_state(TQp *q)
{
    struct rocx_qp_attr a;

    CHECK_EQ(t_query(q, &a), ROCX_AQ_STS_OK);
    return a.state;
}

/* Post a receive of len bytes at B's boff; its index. */
static uint16_t uc_recv(TUc *u, uint64_t boff, uint32_t len)
{
    struct rocx_sge s = t_sge(&u->bmr, boff, len);
    uint16_t idx = t_post_recv(&u->qb, &s, len ? 1 : 0);

    t_ring_rq(&u->qb);
    return idx;
}

/* Post op of len bytes from A's aoff (to B's boff for WRITEs), signalled. */
static uint16_t uc_send(TUc *u, uint8_t op, uint64_t aoff, uint32_t len,
                        uint64_t boff, uint32_t rkey, uint32_t imm)
{
    struct rocx_sge s = t_sge(&u->amr, aoff, len);
    uint16_t idx = t_post_send(&u->qa, op, ROCX_WQE_SIGNALED, &s, 1,
                               u->bmr.iova + boff, rkey, imm);

    t_ring_sq(&u->qa);
    return idx;
}

/* A's send completion of widx: success, with the opcode's CQE opcode. */
static void uc_check_sent(TUc *u, uint16_t widx, uint8_t op)
{
    struct rocx_cqe e;

    CHECK(t_poll(&u->acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), widx);
    CHECK_EQ(cqe_op(&e), op == ROCX_WQE_RDMA_WRITE ||
             op == ROCX_WQE_RDMA_WRITE_IMM ? ROCX_CQE_OP_RDMA_WRITE :
             ROCX_CQE_OP_SEND);
}

/* Every opcode, 1 B, one MTU and several packets: data and CQEs. */
static void uc_xfer(bool loopback, uint8_t net_type)
{
    static const uint8_t ops[] = {
        ROCX_WQE_SEND, ROCX_WQE_SEND_IMM, ROCX_WQE_RDMA_WRITE,
        ROCX_WQE_RDMA_WRITE_IMM,
    };
    static const uint32_t lens[] = { 1, 1024, 5000 };
    unsigned o, l, seed = 7;
    TUc u;

    uc_setup(&u, loopback, net_type, ROCX_ACCESS_LOCAL_WRITE |
             ROCX_ACCESS_REMOTE_WRITE);
    for (o = 0; o < ARRAY_SIZE(ops); o++) {
        for (l = 0; l < ARRAY_SIZE(lens); l++) {
            uint8_t op = ops[o];
            uint32_t len = lens[l], imm = 0xab000000 | seed;
            uint8_t *src = t_ptr(u.da, u.abuf, len);
            uint8_t *dst = t_ptr(u.db, u.bbuf + 8192, len + 1);
            bool recv = op != ROCX_WQE_RDMA_WRITE;
            bool with_imm = op == ROCX_WQE_SEND_IMM ||
                            op == ROCX_WQE_RDMA_WRITE_IMM;
            uint16_t widx, ridx = 0;
            struct rocx_cqe e;

            t_fill(src, len, seed++);
            memset(dst, 0xee, len + 1);
            if (recv) {
                ridx = uc_recv(&u, 8192, op == ROCX_WQE_RDMA_WRITE_IMM ?
                               0 : len);
            }
            widx = uc_send(&u, op, 0, len, 8192, u.bmr.key, imm);
            t_pump();
            uc_check_sent(&u, widx, op);
            if (recv) {
                CHECK(t_poll(&u.bcq, &e));
                CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
                CHECK_EQ(le16toh(e.wqe_idx), ridx);
                CHECK_EQ(le32toh(e.byte_len), len);
                CHECK_EQ(cqe_op(&e), op == ROCX_WQE_RDMA_WRITE_IMM ?
                         ROCX_CQE_OP_RECV_RDMA_IMM : ROCX_CQE_OP_RECV);
                CHECK_EQ(!!(e.flags & ROCX_CQE_WITH_IMM), with_imm);
                if (with_imm) {
                    CHECK_EQ(be32toh(e.imm_data), imm);
                }
            }
            CHECK(!t_poll(&u.acq, NULL));
            CHECK(!t_poll(&u.bcq, NULL));
            CHECK(!memcmp(src, dst, len));
            CHECK_EQ(dst[len], 0xee);
            /* Nothing waits for an answer: no timer runs. */
            CHECK_EQ(rocx_qp_get(&u.da->f->core, u.qa.qpn)->req.deadline, 0);
        }
    }
    if (!loopback && net_type == ROCX_NET_ROCE_V2_IPV4) {
        /* 4 opcodes x (1 + 1 + 5) packets, and nothing came back. */
        CHECK_EQ(uc_frames[0], 28);
        CHECK_EQ(uc_frames[1], 0);
        CHECK_EQ(uc_bad_frames, 0);
        CHECK_EQ(uc_ops[0][0], 0x20 | ROCX_OP_SEND_ONLY);
        CHECK_EQ(uc_ops[0][2], 0x20 | ROCX_OP_SEND_FIRST);
        CHECK_EQ(uc_ops[0][3], 0x20 | ROCX_OP_SEND_MIDDLE);
        CHECK_EQ(uc_ops[0][6], 0x20 | ROCX_OP_SEND_LAST);
        CHECK_EQ(uc_ops[0][13], 0x20 | ROCX_OP_SEND_LAST_IMM);
        CHECK_EQ(uc_ops[0][14], 0x20 | ROCX_OP_WRITE_ONLY);
        CHECK_EQ(uc_ops[0][16], 0x20 | ROCX_OP_WRITE_FIRST);
        CHECK_EQ(uc_ops[0][20], 0x20 | ROCX_OP_WRITE_LAST);
        CHECK_EQ(uc_ops[0][21], 0x20 | ROCX_OP_WRITE_ONLY_IMM);
        CHECK_EQ(uc_ops[0][27], 0x20 | ROCX_OP_WRITE_LAST_IMM);
    }
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 0);
    CHECK_EQ(qp_state(&u.qa), ROCX_QPS_RTS);
    CHECK_EQ(qp_state(&u.qb), ROCX_QPS_RTS);
}

static void t_uc_data_v4(void)
{
    uc_xfer(false, ROCX_NET_ROCE_V2_IPV4);
}

static void t_uc_data_v6(void)
{
    uc_xfer(false, ROCX_NET_ROCE_V2_IPV6);
}

static void t_uc_data_v1(void)
{
    uc_xfer(false, ROCX_NET_ROCE_V1);
}

static void t_uc_data_loopback(void)
{
    uc_xfer(true, ROCX_NET_ROCE_V2_IPV4);
    t_teardown();
    t_setup();
    uc_xfer(true, ROCX_NET_ROCE_V1);
}

/*
 * A lost MIDDLE drops the rest of its SEND (LAST included), the receive
 * WQE stays for the next message, which lands in it from its start.
 * The sender completes both SENDs: it never knows.  The same for WRITEs.
 */
static void t_uc_gap_drops_until_first(void)
{
    uint8_t *src = NULL, *dst;
    struct rocx_cqe e;
    uint16_t w1, w2, r;
    TUc u;

    uc_setup(&u, false, ROCX_NET_ROCE_V2_IPV4, ROCX_ACCESS_LOCAL_WRITE |
             ROCX_ACCESS_REMOTE_WRITE);
    src = t_ptr(u.da, u.abuf, 8192);
    dst = t_ptr(u.db, u.bbuf, 8192);
    t_fill(src, 3072, 1);
    t_fill(src + 4096, 2048, 2);
    memset(dst, 0xee, 8192);

    r = uc_recv(&u, 0, 4096);
    wire.drop_nth = 2;                  /* the first SEND's MIDDLE */
    w1 = uc_send(&u, ROCX_WQE_SEND, 0, 3072, 0, 0, 0);
    t_pump();
    uc_check_sent(&u, w1, ROCX_WQE_SEND);
    CHECK(!t_poll(&u.bcq, NULL));
    /* The LAST after the gap, dropped and counted. */
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 1);

    w2 = uc_send(&u, ROCX_WQE_SEND, 4096, 2048, 0, 0, 0);
    t_pump();
    uc_check_sent(&u, w2, ROCX_WQE_SEND);
    CHECK(t_poll(&u.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), r);
    CHECK_EQ(le32toh(e.byte_len), 2048);
    CHECK(!memcmp(dst, src + 4096, 2048));
    CHECK(!t_poll(&u.bcq, NULL));

    /* A WRITE: FIRST lost; MIDDLE and LAST dropped, the next one lands. */
    memset(dst, 0xee, 8192);
    wire.drop_nth = wire.sent + 1;
    w1 = uc_send(&u, ROCX_WQE_RDMA_WRITE, 0, 3072, 0, u.bmr.key, 0);
    t_pump();
    uc_check_sent(&u, w1, ROCX_WQE_RDMA_WRITE);
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 3);
    CHECK_EQ(dst[0], 0xee);
    CHECK_EQ(dst[2048], 0xee);
    w2 = uc_send(&u, ROCX_WQE_RDMA_WRITE, 4096, 2048, 4096, u.bmr.key, 0);
    t_pump();
    uc_check_sent(&u, w2, ROCX_WQE_RDMA_WRITE);
    CHECK(!memcmp(dst + 4096, src + 4096, 2048));

    /* A LAST lost: the ONLY after it is taken into the same WQE. */
    memset(dst, 0xee, 8192);
    r = uc_recv(&u, 0, 4096);
    wire.drop_nth = wire.sent + 2;      /* the first SEND's LAST */
    w1 = uc_send(&u, ROCX_WQE_SEND, 0, 2048, 0, 0, 0);
    w2 = uc_send(&u, ROCX_WQE_SEND, 4096, 1024, 0, 0, 0);
    t_pump();
    uc_check_sent(&u, w1, ROCX_WQE_SEND);
    uc_check_sent(&u, w2, ROCX_WQE_SEND);
    CHECK(t_poll(&u.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), r);
    CHECK_EQ(le32toh(e.byte_len), 1024);
    CHECK(!memcmp(dst, src + 4096, 1024));

    CHECK_EQ(uc_frames[1], 0);          /* never an ACK or NAK */
    CHECK_EQ(uc_bad_frames, 0);
    CHECK_EQ(u.db->f->core.rdma.stats.naks_sent, 0);
    CHECK_EQ(qp_state(&u.qb), ROCX_QPS_RTS);
}

/*
 * A WRITE to a QP without REMOTE_WRITE: dropped and counted, nothing
 * written, no completion on B, the sender's WQE completes; B's QP then
 * takes a SEND: a refused WRITE must not break the QP for what follows.
 */
static void t_uc_write_not_enabled_dropped(void)
{
    uint8_t *src, *dst;
    struct rocx_cqe e;
    uint16_t w, r;
    TUc u;

    uc_setup(&u, false, ROCX_NET_ROCE_V2_IPV4, ROCX_ACCESS_LOCAL_WRITE);
    src = t_ptr(u.da, u.abuf, 4096);
    dst = t_ptr(u.db, u.bbuf, 4096);
    t_fill(src, 4096, 3);
    memset(dst, 0xee, 4096);

    w = uc_send(&u, ROCX_WQE_RDMA_WRITE, 0, 3000, 0, u.bmr.key, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_RDMA_WRITE);
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 3);
    CHECK_EQ(dst[0], 0xee);
    CHECK_EQ(dst[2999], 0xee);
    CHECK(!t_poll(&u.bcq, NULL));

    /* With immediate: no receive consumed either. */
    r = uc_recv(&u, 0, 4096);
    w = uc_send(&u, ROCX_WQE_RDMA_WRITE_IMM, 0, 100, 0, u.bmr.key, 5);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_RDMA_WRITE_IMM);
    CHECK(!t_poll(&u.bcq, NULL));
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 4);

    w = uc_send(&u, ROCX_WQE_SEND, 0, 2000, 0, 0, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_SEND);
    CHECK(t_poll(&u.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), r);
    CHECK_EQ(le32toh(e.byte_len), 2000);
    CHECK(!memcmp(dst, src, 2000));
    CHECK_EQ(uc_frames[1], 0);
    CHECK_EQ(qp_state(&u.qb), ROCX_QPS_RTS);
    CHECK_EQ(qp_state(&u.qa), ROCX_QPS_RTS);
    CHECK(!t_eq_next(u.db, 0));
}

/* A bad R_Key and an address outside the MR: dropped the same way. */
static void t_uc_bad_rkey_dropped(void)
{
    uint8_t *dst;
    uint16_t w;
    TUc u;

    uc_setup(&u, false, ROCX_NET_ROCE_V2_IPV4, ROCX_ACCESS_LOCAL_WRITE |
             ROCX_ACCESS_REMOTE_WRITE);
    dst = t_ptr(u.db, u.bbuf, UC_BUF);
    memset(dst, 0xee, UC_BUF);
    t_fill(t_ptr(u.da, u.abuf, 2048), 2048, 4);

    w = uc_send(&u, ROCX_WQE_RDMA_WRITE, 0, 2048, 0, u.bmr.key ^ 0x100, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_RDMA_WRITE);
    w = uc_send(&u, ROCX_WQE_RDMA_WRITE, 0, 2048, UC_BUF - 1024, u.bmr.key,
                0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_RDMA_WRITE);
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 4);
    CHECK_EQ(dst[0], 0xee);
    CHECK_EQ(dst[UC_BUF - 1], 0xee);
    /* The QP still takes a good one. */
    w = uc_send(&u, ROCX_WQE_RDMA_WRITE, 0, 2048, 0, u.bmr.key, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_RDMA_WRITE);
    CHECK(!memcmp(dst, t_ptr(u.da, u.abuf, 2048), 2048));
    CHECK(!t_poll(&u.bcq, NULL));
    CHECK_EQ(uc_frames[1], 0);
    CHECK_EQ(qp_state(&u.qb), ROCX_QPS_RTS);
}

/* No receive posted: the SEND is lost (no RNR), the next one lands. */
static void t_uc_no_recv_drops(void)
{
    struct rocx_cqe e;
    uint8_t *src, *dst;
    uint16_t w;
    TUc u;

    uc_setup(&u, false, ROCX_NET_ROCE_V2_IPV4, ROCX_ACCESS_LOCAL_WRITE);
    src = t_ptr(u.da, u.abuf, 4096);
    dst = t_ptr(u.db, u.bbuf, 4096);
    t_fill(src, 4096, 5);
    memset(dst, 0xee, 4096);
    w = uc_send(&u, ROCX_WQE_SEND, 0, 1500, 0, 0, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_SEND);
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 2);
    CHECK(!t_poll(&u.bcq, NULL));
    uc_recv(&u, 0, 4096);
    w = uc_send(&u, ROCX_WQE_SEND, 1000, 700, 0, 0, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_SEND);
    CHECK(t_poll(&u.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le32toh(e.byte_len), 700);
    CHECK(!memcmp(dst, src + 1000, 700));
    CHECK_EQ(uc_frames[1], 0);
    CHECK_EQ(u.db->f->core.rdma.stats.rnr_naks_sent, 0);
}

/*
 * A receive too short is the receiver's own fault: its WQE completes with
 * LOC_LEN_ERR and the QP goes to ERR (the sender is not told).
 */
static void t_uc_recv_too_short(void)
{
    struct rocx_cqe e;
    uint16_t w, r;
    TUc u;

    uc_setup(&u, false, ROCX_NET_ROCE_V2_IPV4, ROCX_ACCESS_LOCAL_WRITE);
    r = uc_recv(&u, 0, 100);
    w = uc_send(&u, ROCX_WQE_SEND, 0, 200, 0, 0, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_SEND);
    CHECK(t_poll(&u.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_LOC_LEN_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), r);
    CHECK_EQ(qp_state(&u.qb), ROCX_QPS_ERR);
    CHECK_EQ(qp_state(&u.qa), ROCX_QPS_RTS);
    CHECK_EQ(uc_frames[1], 0);
}

/*
 * What UC's transport cannot carry (READ, atomics, SEND with invalidate):
 * LOC_QP_OP_ERR without a packet, QP to ERR, the rest flushed.
 */
static void t_uc_read_atomic_refused(void)
{
    static const uint8_t bad[] = {
        ROCX_WQE_RDMA_READ, ROCX_WQE_COMP_SWAP, ROCX_WQE_FETCH_ADD,
        ROCX_WQE_SEND_INV,
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        struct rocx_cqe e;
        uint16_t w0, w, w2;
        TUc u;

        t_teardown();
        t_setup();
        uc_setup(&u, false, ROCX_NET_ROCE_V2_IPV4, ROCX_ACCESS_LOCAL_WRITE |
                 ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ |
                 ROCX_ACCESS_REMOTE_ATOMIC);
        w0 = uc_send(&u, ROCX_WQE_RDMA_WRITE, 0, 64, 0, u.bmr.key, 0);
        w = uc_send(&u, bad[i], 0, 8, 0, u.bmr.key, 0);
        w2 = uc_send(&u, ROCX_WQE_SEND, 0, 64, 0, 0, 0);
        t_pump();
        uc_check_sent(&u, w0, ROCX_WQE_RDMA_WRITE);
        CHECK(t_poll(&u.acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_LOC_QP_OP_ERR);
        CHECK_EQ(le16toh(e.wqe_idx), w);
        CHECK(t_poll(&u.acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_WR_FLUSH_ERR);
        CHECK_EQ(le16toh(e.wqe_idx), w2);
        CHECK_EQ(qp_state(&u.qa), ROCX_QPS_ERR);
        CHECK_EQ(uc_frames[0], 1);      /* the WRITE alone */
    }
}

/* MODIFY_QP on UC: the attributes of RC's timers and READs are refused. */
static void t_uc_modify_masks(void)
{
    static const uint32_t rtr_bad[] = {
        ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC, ROCX_QP_ATTR_MIN_RNR_TIMER,
    };
    static const uint32_t rts_bad[] = {
        ROCX_QP_ATTR_TIMEOUT, ROCX_QP_ATTR_RETRY_CNT,
        ROCX_QP_ATTR_RNR_RETRY, ROCX_QP_ATTR_MAX_RD_ATOMIC,
        ROCX_QP_ATTR_MIN_RNR_TIMER,
    };
    const uint32_t rtr = ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV |
                         ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
                         ROCX_QP_ATTR_RQ_PSN;
    struct rocx_qp_attr a;
    TCq cq;
    TQp q;
    unsigned i;

    CHECK_EQ(t_create_cq(A, &cq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(A, &q, ROCX_QPT_UC, &cq, &cq, 4, 4, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_to_state(&q, ROCX_QPS_INIT), ROCX_AQ_STS_OK);
    for (i = 0; i < ARRAY_SIZE(rtr_bad); i++) {
        memset(&a, 0, sizeof(a));
        a.valid = htole32(rtr | rtr_bad[i]);
        a.state = ROCX_QPS_RTR;
        t_av(A, B, ROCX_NET_ROCE_V2_IPV4, &a.av);
        a.path_mtu = 3;
        a.dest_qpn = htole32(q.qpn);
        a.max_dest_rd_atomic = 1;
        CHECK_EQ(t_modify(&q, &a), ROCX_AQ_STS_INVALID);
    }
    /* Without the required DEST_QPN. */
    memset(&a, 0, sizeof(a));
    a.valid = htole32(rtr & ~ROCX_QP_ATTR_DEST_QPN);
    a.state = ROCX_QPS_RTR;
    t_av(A, B, ROCX_NET_ROCE_V2_IPV4, &a.av);
    a.path_mtu = 3;
    CHECK_EQ(t_modify(&q, &a), ROCX_AQ_STS_INVALID);
    a.valid = htole32(rtr | ROCX_QP_ATTR_ACCESS);
    a.dest_qpn = htole32(q.qpn);
    CHECK_EQ(t_modify(&q, &a), ROCX_AQ_STS_OK);
    for (i = 0; i < ARRAY_SIZE(rts_bad); i++) {
        memset(&a, 0, sizeof(a));
        a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN |
                          rts_bad[i]);
        a.state = ROCX_QPS_RTS;
        a.timeout = 14;
        a.retry_cnt = 7;
        a.rnr_retry = 7;
        a.max_rd_atomic = 1;
        CHECK_EQ(t_modify(&q, &a), ROCX_AQ_STS_INVALID);
    }
    CHECK_EQ(qp_state(&q), ROCX_QPS_RTR);
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN |
                      ROCX_QP_ATTR_ACCESS);
    a.state = ROCX_QPS_RTS;
    CHECK_EQ(t_modify(&q, &a), ROCX_AQ_STS_OK);
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_MIN_RNR_TIMER);
    CHECK_EQ(t_modify(&q, &a), ROCX_AQ_STS_INVALID);
    a.valid = htole32(ROCX_QP_ATTR_ACCESS);
    CHECK_EQ(t_modify(&q, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(qp_state(&q), ROCX_QPS_RTS);
    CHECK_EQ(t_destroy_qp(&q), ROCX_AQ_STS_OK);
}

/*
 * Transports do not mix: an RC QP's packets to a UC QP find no QP and
 * are dropped (and nothing is answered for them).
 */
static void t_uc_rc_packets_dropped(void)
{
    const uint32_t acc = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE;
    struct rocx_qp_attr a;
    struct rocx_sge as, bs;
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;

    CHECK_EQ(t_create_cq(A, &acq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qa, &acq, &acq, 4, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(B, &qb, ROCX_QPT_UC, &bcq, &bcq, 4, 4, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &amr, t_alloc(A, 4096, T_PAGE), 4096, acc),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &bmr, t_alloc(B, 4096, T_PAGE), 4096, acc),
             ROCX_AQ_STS_OK);
    uc_connect_one(&qb, &qa, ROCX_NET_ROCE_V2_IPV4, 3, acc, 0, 0);

    /* The RC side with RC's minimum: the same attributes UC takes. */
    CHECK_EQ(t_to_state(&qa, ROCX_QPS_INIT), ROCX_AQ_STS_OK);
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV |
                      ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
                      ROCX_QP_ATTR_RQ_PSN);
    a.state = ROCX_QPS_RTR;
    t_av(A, B, ROCX_NET_ROCE_V2_IPV4, &a.av);
    a.path_mtu = 3;
    a.dest_qpn = htole32(qb.qpn);
    CHECK_EQ(t_modify(&qa, &a), ROCX_AQ_STS_OK);
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN);
    a.state = ROCX_QPS_RTS;
    CHECK_EQ(t_modify(&qa, &a), ROCX_AQ_STS_OK);

    bs = t_sge(&bmr, 0, 64);
    t_post_recv(&qb, &bs, 1);
    t_ring_rq(&qb);
    as = t_sge(&amr, 0, 64);
    t_post_send(&qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &as, 1, 0, 0, 0);
    t_ring_sq(&qa);
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS), 0);
    CHECK(!t_poll(&bcq, NULL));
    CHECK_EQ(qp_state(&qb), ROCX_QPS_RTS);
}

/*
 * WRITEs through a type 2 memory window of B's QP: a message inside the
 * window lands, with immediate data too; one that runs past its end, and
 * any after LOCAL_INV, is dropped like one with a bad R_Key.
 */
static void t_uc_write_through_window(void)
{
    const uint32_t acc = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE;
    struct rocx_cqe e;
    uint32_t key, rkey;
    uint8_t *dst;
    TMr wmr;
    uint16_t w;
    TUc u;

    uc_setup(&u, false, ROCX_NET_ROCE_V2_IPV4, acc);
    /* A second MR over B's buffer that windows may be bound to. */
    CHECK_EQ(t_reg_mr(B, &wmr, u.bbuf, UC_BUF, acc | ROCX_ACCESS_MW_BIND),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_alloc_mw(B, ROCX_MW_TYPE_2, &key), ROCX_AQ_STS_OK);
    rkey = (key & ~0xffu) | ((key + 1) & 0xff);
    w = t_post_bind(&u.qb, ROCX_WQE_SIGNALED, rkey, &wmr, 4096, 4096,
                    ROCX_ACCESS_REMOTE_WRITE);
    t_ring_sq(&u.qb);
    t_pump();
    CHECK(t_poll(&u.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), w);
    dst = t_ptr(u.db, u.bbuf, UC_BUF);
    memset(dst, 0xee, UC_BUF);
    t_fill(t_ptr(u.da, u.abuf, 4096), 4096, 9);

    /* Three packets of 1 KiB inside the window. */
    w = uc_send(&u, ROCX_WQE_RDMA_WRITE, 0, 3000, 4096, rkey, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_RDMA_WRITE);
    CHECK(!memcmp(dst + 4096, t_ptr(u.da, u.abuf, 3000), 3000));
    CHECK_EQ(dst[4096 + 3000], 0xee);
    uc_recv(&u, 0, 0);
    w = uc_send(&u, ROCX_WQE_RDMA_WRITE_IMM, 0, 96, 8192 - 96, rkey, 5);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_RDMA_WRITE_IMM);
    CHECK(!memcmp(dst + 8192 - 96, t_ptr(u.da, u.abuf, 96), 96));
    CHECK(t_poll(&u.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(cqe_op(&e), ROCX_CQE_OP_RECV_RDMA_IMM);
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 0);

    /* One byte past the window's end. */
    w = uc_send(&u, ROCX_WQE_RDMA_WRITE, 0, 97, 8192 - 96, rkey, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_RDMA_WRITE);
    CHECK_EQ(dst[8192], 0xee);
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 1);

    w = t_post_send(&u.qb, ROCX_WQE_LOCAL_INV, ROCX_WQE_SIGNALED, NULL, 0, 0,
                    0, rkey);
    t_ring_sq(&u.qb);
    t_pump();
    CHECK(t_poll(&u.bcq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    memset(dst, 0xee, UC_BUF);
    w = uc_send(&u, ROCX_WQE_RDMA_WRITE, 0, 64, 4096, rkey, 0);
    t_pump();
    uc_check_sent(&u, w, ROCX_WQE_RDMA_WRITE);
    CHECK_EQ(dst[4096], 0xee);
    CHECK_EQ(t_stat(u.db, ROCX_STAT_ROCE_RX_DROPPED), 2);
    CHECK_EQ(qp_state(&u.qb), ROCX_QPS_RTS);
    CHECK_EQ(uc_bad_frames, 0);
}

const TCase t_cases_uc[] = {
    T_CASE(uc_data_v4),
    T_CASE(uc_data_v6),
    T_CASE(uc_data_v1),
    T_CASE(uc_data_loopback),
    T_CASE(uc_gap_drops_until_first),
    T_CASE(uc_write_not_enabled_dropped),
    T_CASE(uc_bad_rkey_dropped),
    T_CASE(uc_no_recv_drops),
    T_CASE(uc_recv_too_short),
    T_CASE(uc_read_atomic_refused),
    T_CASE(uc_modify_masks),
    T_CASE(uc_rc_packets_dropped),
    T_CASE(uc_write_through_window),
};
const unsigned t_ncases_uc = ARRAY_SIZE(t_cases_uc);
