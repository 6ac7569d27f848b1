/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * UD queue pairs (contract 1.2, ROCX_CAP2_UD): SEND and SEND with
 * immediate over each network type, between two devices and in loopback;
 * the GRH area of every receive; CQE fields; the Q_Key rule (a mismatch
 * dropped and counted, bit 31 of the WQE's Q_Key for the QP's own); one
 * packet of at most the port's active MTU per message; a receive with no
 * WQE dropped and counted; a receive too small; the UD state machine.
 */
#include "rdma.h"

#define T_QKEY          0x11223344u

typedef struct TUd {
    TDev *d;
    TCq cq;
    TQp qp;
    TMr mr;
    uint64_t buf;
} TUd;

#define T_UD_BUF        (64u << 10)

static unsigned ud_modify(TQp *qp, uint32_t valid, uint8_t state,
                          uint32_t qkey, uint32_t sq_psn)
{
    struct rocx_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.valid = htole32(valid);
    a.state = state;
    a.qkey = htole32(qkey);
    a.sq_psn = htole32(sq_psn);
    return t_modify(qp, &a);
}

static void ud_up(TQp *qp, uint32_t qkey)
{
    CHECK_EQ(ud_modify(qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY |
                       ROCX_QP_ATTR_PKEY_INDEX, ROCX_QPS_INIT, qkey, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(ud_modify(qp, ROCX_QP_ATTR_STATE, ROCX_QPS_RTR, 0, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(ud_modify(qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN,
                       ROCX_QPS_RTS, 0, 0x123), ROCX_AQ_STS_OK);
}

static void ud_setup(TUd *u, TDev *d, uint32_t qkey)
{
    memset(u, 0, sizeof(*u));
    u->d = d;
    CHECK_EQ(t_create_cq(d, &u->cq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(d, &u->qp, ROCX_QPT_UD, &u->cq, &u->cq, 6, 6,
                              0), ROCX_AQ_STS_OK);
    u->buf = t_alloc(d, T_UD_BUF, T_PAGE);
    CHECK_EQ(t_reg_mr(d, &u->mr, u->buf, T_UD_BUF, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    ud_up(&u->qp, qkey);
}

static uint8_t cqe_status(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static uint32_t cqe_src_qp(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) & ROCX_CQE_SRC_QP_MASK;
}

static unsigned cqe_net_type(const struct rocx_cqe *e)
{
    return (e->flags & ROCX_CQE_NET_TYPE_MASK) >> 5;
}

/* The send WQE at index idx of u's SQ, to change before the doorbell. */
static struct rocx_send_wqe *ud_wqe(TUd *u, uint16_t idx)
{
    uint64_t off = (uint64_t)(idx & ((1u << u->qp.sq_ld) - 1))
                   << u->qp.sq_shift;

    return t_ptr(u->d, u->qp.buf + off, sizeof(struct rocx_send_wqe));
}

/* A UD send WQE from the SGE to to's QP dqpn over net_type. */
static uint16_t ud_post(TUd *from, TDev *to, uint8_t net_type, uint8_t op,
                        uint32_t dqpn, uint32_t qkey, struct rocx_sge *s,
                        uint32_t imm)
{
    uint16_t idx = t_post_send(&from->qp, op, ROCX_WQE_SIGNALED, s, 1, 0, 0,
                               imm);
    struct rocx_send_wqe *w = ud_wqe(from, idx);

    memset(&w->ud, 0, sizeof(w->ud));
    w->ud.remote_qpn = htole32(dqpn);
    w->ud.qkey = htole32(qkey);
    t_av(from->d, to, net_type, &w->ud.av);
    return idx;
}

static uint16_t ud_recv(TUd *u, uint64_t off, uint32_t len)
{
    struct rocx_sge s = t_sge(&u->mr, off, len);
    uint16_t idx = t_post_recv(&u->qp, &s, 1);

    t_ring_rq(&u->qp);
    return idx;
}

/* Check the GRH area the device filled for a packet from -> to. */
static void check_grh(const uint8_t *g, uint8_t net_type, TDev *from,
                      TDev *to)
{
    static const uint8_t zero[20];

    switch (net_type) {
    case ROCX_NET_ROCE_V2_IPV4:
        CHECK(!memcmp(g, zero, 20));
        CHECK_EQ(g[20] >> 4, 4);                    /* version */
        CHECK_EQ(g[20] & 0xf, 5);                   /* no options */
        CHECK_EQ(g[20 + 9], 17);                    /* UDP */
        CHECK(!memcmp(g + 20 + 12, from->gid4 + 12, 4));
        CHECK(!memcmp(g + 20 + 16, to->gid4 + 12, 4));
        break;
    case ROCX_NET_ROCE_V2_IPV6:
        CHECK_EQ(g[0] >> 4, 6);
        CHECK_EQ(g[6], 17);                         /* next header: UDP */
        CHECK(!memcmp(g + 8, from->gid6, 16));
        CHECK(!memcmp(g + 24, to->gid6, 16));
        break;
    default:
        CHECK_EQ(g[0] >> 4, 6);
        CHECK_EQ(g[6], 0x1b);                       /* next header: BTH */
        CHECK(!memcmp(g + 8, from->gid1, 16));
        CHECK(!memcmp(g + 24, to->gid1, 16));
        break;
    }
}

/* One SEND (with immediate or not) of len bytes from a to b; all checked. */
static void ud_xfer(TUd *a, TUd *b, uint8_t net_type, uint8_t op,
                    uint32_t len, uint32_t seed)
{
    struct rocx_sge s = t_sge(&a->mr, 0, len);
    uint8_t *src = t_ptr(a->d, a->buf, len);
    uint8_t *dst = t_ptr(b->d, b->buf + 4096, ROCX_UD_GRH_LEN + len + 1);
    uint64_t rx = t_stat(b->d, ROCX_STAT_ROCE_RX_PACKETS);
    struct rocx_cqe e, se;
    uint16_t widx, ridx;

    t_fill(src, len, seed);
    memset(dst, 0xee, ROCX_UD_GRH_LEN + len + 1);
    ridx = ud_recv(b, 4096, ROCX_UD_GRH_LEN + len);
    widx = ud_post(a, b->d, net_type, op, b->qp.qpn, T_QKEY, &s, 0xc0ffee00);
    t_ring_sq(&a->qp);
    t_pump();

    /*
     * To itself the receive completes first: the packet is looped back
     * before the send completes.
     */
    if (a == b) {
        CHECK(t_poll(&b->cq, &e));
        CHECK(t_poll(&a->cq, &se));
    } else {
        CHECK(t_poll(&a->cq, &se));
        CHECK(t_poll(&b->cq, &e));
    }
    CHECK_EQ(cqe_status(&se), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(se.wqe_idx), widx);
    CHECK(!(se.flags & ROCX_CQE_RECV));
    CHECK_EQ(le32toh(se.byte_len), len);
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), ridx);
    CHECK_EQ(le32toh(e.qpn_op) & ROCX_CQE_QPN_MASK, b->qp.qpn);
    CHECK_EQ(le32toh(e.qpn_op) >> 24, ROCX_CQE_OP_RECV);
    CHECK_EQ(le32toh(e.byte_len), ROCX_UD_GRH_LEN + len);
    CHECK(e.flags & ROCX_CQE_RECV);
    CHECK(e.flags & ROCX_CQE_GRH);
    CHECK_EQ(cqe_src_qp(&e), a->qp.qpn);
    CHECK_EQ(cqe_net_type(&e), net_type);
    CHECK(!memcmp(e.smac, a->d->mac, 6));
    CHECK_EQ(le16toh(e.vlan), ROCX_VLAN_NONE);
    CHECK_EQ(!!(e.flags & ROCX_CQE_WITH_IMM), op == ROCX_WQE_SEND_IMM);
    if (op == ROCX_WQE_SEND_IMM) {
        CHECK_EQ(be32toh(e.imm_data), 0xc0ffee00);
    }
    check_grh(dst, net_type, a->d, b->d);
    CHECK(!memcmp(dst + ROCX_UD_GRH_LEN, src, len));
    CHECK_EQ(dst[ROCX_UD_GRH_LEN + len], 0xee);
    CHECK_EQ(t_stat(b->d, ROCX_STAT_ROCE_RX_PACKETS), rx + 1);
    CHECK(!t_poll(&a->cq, NULL));
    CHECK(!t_poll(&b->cq, NULL));
}

static const uint8_t net_types[] = {
    ROCX_NET_ROCE_V2_IPV4, ROCX_NET_ROCE_V2_IPV6, ROCX_NET_ROCE_V1,
};

/* Every network type, both opcodes, 0 B to the active MTU, both ways. */
static void t_ud_send_net_types(void)
{
    static const uint32_t lens[] = { 0, 1, 333, 1024 };
    TUd a, b;
    unsigned i, j, k;

    ud_setup(&a, A, T_QKEY);
    ud_setup(&b, B, T_QKEY);
    for (i = 0; i < ARRAY_SIZE(net_types); i++) {
        for (j = 0; j < ARRAY_SIZE(lens); j++) {
            for (k = 0; k < 2; k++) {
                uint8_t op = k ? ROCX_WQE_SEND_IMM : ROCX_WQE_SEND;

                ud_xfer(&a, &b, net_types[i], op, lens[j], i * 16 + j);
                ud_xfer(&b, &a, net_types[i], op, lens[j], i * 16 + j + 8);
            }
        }
    }
}

/* Between two QPs of one device, and to the sending QP itself. */
static void t_ud_loopback(void)
{
    uint64_t lb = A->f->core.rdma.stats.loopback;
    TUd a, b;
    unsigned i;

    ud_setup(&a, A, T_QKEY);
    ud_setup(&b, A, T_QKEY);
    for (i = 0; i < ARRAY_SIZE(net_types); i++) {
        ud_xfer(&a, &b, net_types[i], ROCX_WQE_SEND, 700, i);
        ud_xfer(&b, &a, net_types[i], ROCX_WQE_SEND_IMM, 64, i + 4);
        ud_xfer(&a, &a, net_types[i], ROCX_WQE_SEND, 100, i + 8);
    }
    CHECK_EQ(A->f->core.rdma.stats.loopback, lb + 9);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS), 0);
}

/*
 * The receiving QP's Q_Key decides: another is dropped and counted, and
 * leaves the receive WQE for the next packet; bit 31 in the WQE's Q_Key
 * sends the sending QP's own.
 */
static void t_ud_qkey(void)
{
    struct rocx_sge s;
    struct rocx_qp_attr q;
    struct rocx_cqe e;
    uint64_t drop;
    TUd a, b, c;

    ud_setup(&a, A, T_QKEY);
    ud_setup(&b, B, T_QKEY);
    ud_setup(&c, A, 0x55);              /* its own Q_Key is not b's */
    s = t_sge(&a.mr, 0, 16);
    ud_recv(&b, 0, 256);

    drop = t_stat(B, ROCX_STAT_ROCE_RX_DROPPED);
    ud_post(&a, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, b.qp.qpn,
            T_QKEY + 1, &s, 0);
    t_ring_sq(&a.qp);
    t_pump();
    CHECK(t_poll(&a.cq, &e));           /* sent: UD does not know better */
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(!t_poll(&b.cq, &e));
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), drop + 1);
    CHECK_EQ(B->f->core.rdma.stats.ud_qkey_drops, 1);

    /* The QP's own Q_Key (c's) with bit 31: still not b's. */
    s = t_sge(&c.mr, 0, 16);
    ud_post(&c, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, b.qp.qpn,
            ROCX_WQE_UD_QKEY_OWN, &s, 0);
    t_ring_sq(&c.qp);
    t_pump();
    CHECK(t_poll(&c.cq, &e));
    CHECK(!t_poll(&b.cq, &e));
    CHECK_EQ(B->f->core.rdma.stats.ud_qkey_drops, 2);

    /* a's own Q_Key with bit 31 is b's: delivered into the same WQE. */
    s = t_sge(&a.mr, 0, 16);
    ud_post(&a, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, b.qp.qpn,
            ROCX_WQE_UD_QKEY_OWN | 0x1234, &s, 0);
    t_ring_sq(&a.qp);
    t_pump();
    CHECK(t_poll(&a.cq, &e));
    CHECK(t_poll(&b.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 0);
    CHECK_EQ(cqe_src_qp(&e), a.qp.qpn);
    CHECK_EQ(B->f->core.rdma.stats.ud_qkey_drops, 2);

    /* A new Q_Key in RTS, read back by QUERY_QP. */
    CHECK_EQ(ud_modify(&b.qp, ROCX_QP_ATTR_QKEY, 0, T_QKEY + 1, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_query(&b.qp, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(le32toh(q.qkey), T_QKEY + 1);
    CHECK_EQ(q.state, ROCX_QPS_RTS);
    ud_recv(&b, 0, 256);
    s = t_sge(&a.mr, 0, 16);
    ud_post(&a, B, ROCX_NET_ROCE_V2_IPV6, ROCX_WQE_SEND, b.qp.qpn,
            T_QKEY + 1, &s, 0);
    t_ring_sq(&a.qp);
    t_pump();
    CHECK(t_poll(&a.cq, &e));
    CHECK(t_poll(&b.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
}

/*
 * A message is one packet of at most the port's active MTU: longer is
 * LOC_LEN_ERR with nothing sent, and the QP goes to ERR (the WQEs after
 * it flushed).  A larger port MTU allows more.
 */
static void t_ud_oversize(void)
{
    uint64_t tx = t_stat(A, ROCX_STAT_ROCE_TX_PACKETS);
    struct rocx_sge s;
    struct rocx_qp_attr q;
    struct rocx_cqe e;
    TUd a, b;

    CHECK_EQ(t_set_port_mtu(A, 1500), ROCX_AQ_STS_OK);
    CHECK_EQ(t_set_port_mtu(B, 1500), ROCX_AQ_STS_OK);
    ud_setup(&a, A, T_QKEY);
    ud_setup(&b, B, T_QKEY);
    CHECK_EQ(rocx_ud_max_msg(&A->f->core), 1024);
    ud_recv(&b, 0, 8192);
    s = t_sge(&a.mr, 0, 1025);
    ud_post(&a, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, b.qp.qpn, T_QKEY,
            &s, 0);
    s = t_sge(&a.mr, 0, 16);
    ud_post(&a, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, b.qp.qpn, T_QKEY,
            &s, 0);
    t_ring_sq(&a.qp);
    t_pump();
    CHECK(t_poll(&a.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_LOC_LEN_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 0);
    CHECK(t_poll(&a.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 1);
    CHECK(!t_poll(&b.cq, &e));
    CHECK_EQ(t_stat(A, ROCX_STAT_ROCE_TX_PACKETS), tx);
    CHECK_EQ(t_query(&a.qp, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(q.cur_state, ROCX_QPS_ERR);

    /* Port MTU 4200 on both: 4096 fits (4097 does not). */
    CHECK_EQ(t_set_port_mtu(A, 4200), ROCX_AQ_STS_OK);
    CHECK_EQ(t_set_port_mtu(B, 4200), ROCX_AQ_STS_OK);
    CHECK_EQ(rocx_ud_max_msg(&A->f->core), 4096);
    CHECK_EQ(t_to_state(&a.qp, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
    a.qp.sq_pi = a.qp.rq_pi = 0;
    ud_up(&a.qp, T_QKEY);
    /* The receive posted above is still there, untouched: use it up. */
    ud_post(&a, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, b.qp.qpn, T_QKEY,
            &s, 0);
    t_ring_sq(&a.qp);
    t_pump();
    CHECK(t_poll(&a.cq, &e));
    CHECK(t_poll(&b.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le16toh(e.wqe_idx), 0);
    CHECK_EQ(le32toh(e.byte_len), ROCX_UD_GRH_LEN + 16);
    ud_xfer(&a, &b, ROCX_NET_ROCE_V2_IPV6, ROCX_WQE_SEND, 4096, 7);
    ud_xfer(&a, &b, ROCX_NET_ROCE_V1, ROCX_WQE_SEND_IMM, 4096, 8);
    CHECK_EQ(t_set_port_mtu(A, 1119), ROCX_AQ_STS_OK);
    CHECK_EQ(rocx_ud_max_msg(&A->f->core), 512);
    /* The port MTU of a UD QP is not a path MTU: the QP stays in RTS. */
    CHECK_EQ(t_query(&a.qp, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(q.cur_state, ROCX_QPS_RTS);
}

/* No receive posted: the packet is dropped and counted, no RNR, no ERR. */
static void t_ud_no_wqe(void)
{
    uint64_t drop = t_stat(B, ROCX_STAT_ROCE_RX_DROPPED);
    uint64_t tx = t_stat(B, ROCX_STAT_ROCE_TX_PACKETS);
    struct rocx_sge s;
    struct rocx_qp_attr q;
    struct rocx_cqe e;
    TUd a, b;
    unsigned i;

    ud_setup(&a, A, T_QKEY);
    ud_setup(&b, B, T_QKEY);
    s = t_sge(&a.mr, 0, 64);
    for (i = 0; i < 3; i++) {
        ud_post(&a, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, b.qp.qpn,
                T_QKEY, &s, 0);
    }
    t_ring_sq(&a.qp);
    t_pump();
    for (i = 0; i < 3; i++) {
        CHECK(t_poll(&a.cq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    }
    CHECK(!t_poll(&b.cq, &e));
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), drop + 3);
    CHECK_EQ(B->f->core.rdma.stats.ud_no_wqe_drops, 3);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_TX_PACKETS), tx);   /* nothing back */
    CHECK_EQ(t_query(&b.qp, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(q.cur_state, ROCX_QPS_RTS);
    /* The next one finds a WQE. */
    ud_xfer(&a, &b, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, 64, 3);

    /* To a QP number that is no UD QP: dropped too. */
    ud_post(&a, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, b.qp.qpn + 7,
            T_QKEY, &s, 0);
    t_ring_sq(&a.qp);
    t_pump();
    CHECK(t_poll(&a.cq, &e));
    CHECK_EQ(B->f->core.rdma.stats.ud_no_qp_drops, 1);
}

/* A receive too small for GRH area and data: LOC_LEN_ERR, QP to ERR. */
static void t_ud_recv_too_small(void)
{
    struct rocx_sge s;
    struct rocx_qp_attr q;
    struct rocx_cqe e;
    TUd a, b;

    ud_setup(&a, A, T_QKEY);
    ud_setup(&b, B, T_QKEY);
    ud_recv(&b, 0, ROCX_UD_GRH_LEN + 99);
    ud_recv(&b, 0, 4096);
    s = t_sge(&a.mr, 0, 100);
    ud_post(&a, B, ROCX_NET_ROCE_V1, ROCX_WQE_SEND, b.qp.qpn, T_QKEY, &s, 0);
    t_ring_sq(&a.qp);
    t_pump();
    CHECK(t_poll(&a.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&b.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_LOC_LEN_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 0);
    CHECK(t_poll(&b.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_WR_FLUSH_ERR);
    CHECK_EQ(le16toh(e.wqe_idx), 1);
    CHECK_EQ(t_query(&b.qp, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(q.cur_state, ROCX_QPS_ERR);
}

/*
 * MODIFY_QP of a UD QP: Q_Key needed for INIT, no path attributes ever;
 * only SEND work requests; a bad AV in a WQE fails it.
 */
/*
 * The VLAN is the source GID entry's, whatever the AV in the WQE says: the
 * WQE is the process's own memory, the GID table the kernel's.  A forged
 * VLAN, none, VLAN 0 or a value no VLAN has all go out on the GID's
 * VLAN 100 with the AV's priority, and the receiver sees VLAN 100; the
 * untagged GID 1 stays untagged whatever the AV names.
 */
static void t_ud_vlan_from_gid(void)
{
    static const uint16_t forged[] = { 200, ROCX_VLAN_NONE, 0, 100, 4096 };
    struct rocx_sge s;
    struct rocx_cqe e;
    const uint8_t *f;
    unsigned i, n;
    uint16_t idx;
    TUd a, b;

    ud_setup(&a, A, T_QKEY);
    ud_setup(&b, B, T_QKEY);
    CHECK_EQ(t_set_gid(A, 0, 100), ROCX_AQ_STS_OK);
    s = t_sge(&a.mr, 0, 16);
    for (i = 0; i < ARRAY_SIZE(forged) + 1; i++) {
        bool tagged = i < ARRAY_SIZE(forged);
        struct rocx_send_wqe *w;

        n = A->f->nframes;
        ud_recv(&b, 4096, ROCX_UD_GRH_LEN + 16);
        idx = ud_post(&a, B, tagged ? ROCX_NET_ROCE_V2_IPV4 :
                      ROCX_NET_ROCE_V2_IPV6, ROCX_WQE_SEND, b.qp.qpn, T_QKEY,
                      &s, 0);
        w = ud_wqe(&a, idx);
        w->ud.av.vlan = htole16(tagged ? forged[i] : 300);
        w->ud.av.flow_label = htole32(ROCX_FIELD_PREP(ROCX_AV_PRIO, 5));
        t_ring_sq(&a.qp);
        t_pump();
        CHECK(t_poll(&a.cq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(A->f->nframes, n + 1);
        f = A->f->frames[n];
        if (tagged) {
            CHECK_EQ(lduw_be_p(f + 12), 0x8100);
            CHECK_EQ(lduw_be_p(f + 14), 5 << 13 | 100);
            CHECK_EQ(lduw_be_p(f + 16), 0x0800);
        } else {
            CHECK_EQ(lduw_be_p(f + 12), 0x86dd);
        }
        CHECK(t_poll(&b.cq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        CHECK_EQ(le16toh(e.vlan), (tagged ? 100 : ROCX_VLAN_NONE));
    }
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

static void t_ud_state_machine(void)
{
    struct rocx_qp_attr a;
    struct rocx_sge s;
    struct rocx_cqe e;
    TUd u, v;
    TCq cq;
    TQp qp;

    CHECK_EQ(t_create_cq(A, &cq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(A, &qp, ROCX_QPT_UD, &cq, &cq, 4, 4, 0),
             ROCX_AQ_STS_OK);
    /* INIT needs the Q_Key; takes no access flags. */
    CHECK_EQ(ud_modify(&qp, ROCX_QP_ATTR_STATE, ROCX_QPS_INIT, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(ud_modify(&qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY |
                       ROCX_QP_ATTR_ACCESS, ROCX_QPS_INIT, 1, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(ud_modify(&qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY,
                       ROCX_QPS_INIT, 7, 0), ROCX_AQ_STS_OK);
    /* RTR takes no AV, path MTU or destination QP. */
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV);
    a.state = ROCX_QPS_RTR;
    t_av(A, B, ROCX_NET_ROCE_V2_IPV4, &a.av);
    CHECK_EQ(t_modify(&qp, &a), ROCX_AQ_STS_INVALID);
    CHECK_EQ(ud_modify(&qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_DEST_QPN,
                       ROCX_QPS_RTR, 0, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(ud_modify(&qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_PATH_MTU,
                       ROCX_QPS_RTR, 0, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(ud_modify(&qp, ROCX_QP_ATTR_STATE, ROCX_QPS_RTR, 0, 0),
             ROCX_AQ_STS_OK);
    /* RTS needs the SQ PSN. */
    CHECK_EQ(ud_modify(&qp, ROCX_QP_ATTR_STATE, ROCX_QPS_RTS, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(ud_modify(&qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN |
                       ROCX_QP_ATTR_TIMEOUT, ROCX_QPS_RTS, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(ud_modify(&qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN |
                       ROCX_QP_ATTR_QKEY, ROCX_QPS_RTS, 9, 5),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_query(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.cur_state, ROCX_QPS_RTS);
    CHECK_EQ(le32toh(a.qkey), 9);
    CHECK_EQ(t_destroy_qp(&qp), ROCX_AQ_STS_OK);

    /* An RDMA WRITE on a UD QP: LOC_QP_OP_ERR. */
    ud_setup(&u, A, T_QKEY);
    ud_setup(&v, B, T_QKEY);
    s = t_sge(&u.mr, 0, 8);
    ud_post(&u, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_RDMA_WRITE, v.qp.qpn,
            T_QKEY, &s, 0);
    t_ring_sq(&u.qp);
    t_pump();
    CHECK(t_poll(&u.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_LOC_QP_OP_ERR);

    /* An AV whose source GID does not exist. */
    ud_setup(&u, A, T_QKEY);
    ud_post(&u, B, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND, v.qp.qpn, T_QKEY,
            &s, 0);
    ((struct rocx_send_wqe *)t_ptr(A, u.qp.buf, 64))->ud.av.sgid_index = 77;
    t_ring_sq(&u.qp);
    t_pump();
    CHECK(t_poll(&u.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_LOC_QP_OP_ERR);
    CHECK_EQ(e.vendor_err, ROCX_VERR_BAD_WQE);
    CHECK(!t_poll(&v.cq, &e));
}

/* A PFC frame (802.1Qbb) pausing (quanta) or resuming (0) priority prio. */
static void ud_pfc(TDev *d, unsigned prio, uint16_t quanta)
{
    static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
    uint8_t f[60];

    memset(f, 0, sizeof(f));
    memcpy(f, dst, 6);
    f[11] = 0x99;
    stw_be_p(f + 12, 0x8808);
    stw_be_p(f + 14, 0x0101);
    stw_be_p(f + 16, 1u << prio);
    stw_be_p(f + 18 + 2 * prio, quanta);
    t_inject(d, f, sizeof(f));
}

/* A signalled UD SEND of 64 bytes from u to v's QP at priority prio. */
static void ud_post_prio(TUd *u, TUd *v, unsigned prio)
{
    struct rocx_sge s = t_sge(&u->mr, 0, 64);
    uint16_t idx = ud_post(u, v->d, ROCX_NET_ROCE_V2_IPV4, ROCX_WQE_SEND,
                           v->qp.qpn, T_QKEY, &s, 0);

    ud_wqe(u, idx)->ud.av.flow_label = htole32(prio << 20);
}

/*
 * A UD message takes the priority of its own WQE's address vector, for
 * the pause that holds it and the class that pays for it: a fresh QP's
 * first message to a paused priority waits for the resume, as does one
 * that follows a message of another priority; each message's bytes go
 * to the class of its own priority.
 */
static void t_ud_prio_per_wqe(void)
{
    RocxSched *sc = &A->f->core.sched;
    struct rocx_dcb_cfg cfg;
    uint64_t b0, b3;
    struct rocx_cqe e;
    TUd u, v;
    unsigned i;

    ud_setup(&u, A, T_QKEY);
    ud_setup(&v, B, T_QKEY);
    memset(&cfg, 0, sizeof(cfg));
    cfg.valid = htole32(ROCX_DCB_PFC);
    cfg.pfc_en = 0x08;
    cfg.pfc_quanta = htole16(0xffff);
    CHECK_EQ(t_cfg_set(A, ROCX_AQ_OP_SET_DCB, &cfg, sizeof(cfg)),
             ROCX_AQ_STS_OK);
    for (i = 0; i < 4; i++) {
        ud_recv(&v, i * 256, 256);
    }

    /* The first message of the QP, to paused priority 3. */
    ud_pfc(A, 3, 0xffff);
    ud_post_prio(&u, &v, 3);
    t_ring_sq(&u.qp);
    t_pump();
    CHECK(!t_poll(&u.cq, &e));
    CHECK(!t_poll(&v.cq, &e));
    CHECK_EQ(sc->tc_bytes[0] + sc->tc_bytes[3], 0);
    ud_pfc(A, 3, 0);
    t_pump();
    CHECK(t_poll(&u.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&v.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    b3 = sc->tc_bytes[3];
    CHECK(b3 > 0);
    CHECK_EQ(sc->tc_bytes[0], 0);

    /* Priority 0, then 3 while 3 is paused: only the first leaves. */
    ud_pfc(A, 3, 0xffff);
    ud_post_prio(&u, &v, 0);
    ud_post_prio(&u, &v, 3);
    t_ring_sq(&u.qp);
    t_pump();
    CHECK(t_poll(&u.cq, &e));
    CHECK(t_poll(&v.cq, &e));
    b0 = sc->tc_bytes[0];
    CHECK(b0 > 0);
    CHECK_EQ(sc->tc_bytes[3], b3);
    CHECK(!t_poll(&u.cq, &e));
    CHECK(!t_poll(&v.cq, &e));
    ud_pfc(A, 3, 0);
    t_pump();
    CHECK(t_poll(&u.cq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&v.cq, &e));
    CHECK_EQ(sc->tc_bytes[0], b0);
    CHECK_EQ(sc->tc_bytes[3], 2 * b3);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

const TCase t_cases_ud[] = {
    T_CASE(ud_send_net_types),
    T_CASE(ud_loopback),
    T_CASE(ud_qkey),
    T_CASE(ud_oversize),
    T_CASE(ud_no_wqe),
    T_CASE(ud_recv_too_small),
    T_CASE(ud_state_machine),
    T_CASE(ud_vlan_from_gid),
    T_CASE(ud_prio_per_wqe),
};
const unsigned t_ncases_ud = ARRAY_SIZE(t_cases_ud);
