/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * UD multicast (contract 1.2, ROCX_CAP2_MCAST): the group table and its
 * refusals, delivery of a group send to every attached QP of the other
 * device (one copy each, data, GRH area and source QP checked) and none
 * to a QP not attached, the loopback to the sender's own attached QPs
 * unless ROCX_QP_NO_MC_LOOPBACK, what goes on the wire (the group's MAC,
 * QPN 0xffffff), and the MAC filter: a group's MAC accepted while a QP is
 * attached, its RoCE frames never given to the Ethernet ring.
 */
#include "rdma.h"

#define T_QKEY          0x0badf00du
#define T_BUF           (64u << 10)

typedef struct TUdq {
    TDev *d;
    TCq cq;
    TQp qp;
    TMr mr;
    uint64_t buf;
} TUdq;

/* The groups of the tests, one per network type (IPv4 and IPv6). */
static const uint8_t grp4[16] = {
    [10] = 0xff, [11] = 0xff, [12] = 239, [13] = 0x81, [14] = 2, [15] = 3,
};
static const uint8_t grp6[16] = {
    0xff, 0x0e, [12] = 0xde, [13] = 0xad, [14] = 0xbe, [15] = 0xef,
};
static const uint8_t mac4[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
static const uint8_t mac6[6] = { 0x33, 0x33, 0xde, 0xad, 0xbe, 0xef };

static const uint8_t *grp_of(uint8_t net_type)
{
    return net_type == ROCX_NET_ROCE_V2_IPV4 ? grp4 : grp6;
}

static unsigned mcast_cmd(TDev *d, uint16_t op, uint32_t qpn,
                          const uint8_t *gid)
{
    union rocx_aq_cmd c = t_cmd(op);
    struct rocx_aq_mcast *m = (void *)&c;

    m->qpn = htole32(qpn);
    memcpy(m->gid, gid, 16);
    return t_aq(d, &c, NULL);
}

static unsigned attach(TUdq *u, const uint8_t *gid)
{
    return mcast_cmd(u->d, ROCX_AQ_OP_ATTACH_MCAST, u->qp.qpn, gid);
}

static unsigned detach(TUdq *u, const uint8_t *gid)
{
    return mcast_cmd(u->d, ROCX_AQ_OP_DETACH_MCAST, u->qp.qpn, gid);
}

static void udq_up(TQp *qp)
{
    struct rocx_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY);
    a.state = ROCX_QPS_INIT;
    a.qkey = htole32(T_QKEY);
    CHECK_EQ(t_modify(qp, &a), ROCX_AQ_STS_OK);
    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE);
    a.state = ROCX_QPS_RTR;
    CHECK_EQ(t_modify(qp, &a), ROCX_AQ_STS_OK);
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN);
    a.state = ROCX_QPS_RTS;
    CHECK_EQ(t_modify(qp, &a), ROCX_AQ_STS_OK);
}

/* A UD QP in RTS with its own CQ and buffer; four receives posted. */
static void udq_setup(TUdq *u, TDev *d, uint8_t flags)
{
    unsigned i;

    memset(u, 0, sizeof(*u));
    u->d = d;
    CHECK_EQ(t_create_cq(d, &u->cq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(d, &u->qp, ROCX_QPT_UD, &u->cq, &u->cq, 5, 5,
                              flags), ROCX_AQ_STS_OK);
    u->buf = t_alloc(d, T_BUF, T_PAGE);
    CHECK_EQ(t_reg_mr(d, &u->mr, u->buf, T_BUF, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    udq_up(&u->qp);
    for (i = 0; i < 4; i++) {
        struct rocx_sge s = t_sge(&u->mr, 4096 * (i + 1), 4096);

        t_post_recv(&u->qp, &s, 1);
    }
    t_ring_rq(&u->qp);
}

static uint8_t cqe_st(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

/*
 * Post a SEND_IMM of len bytes (seed) from u to the group of net_type:
 * the AV names the group GID with dmac, and remote_qpn dqpn.
 */
static void group_send(TUdq *u, uint8_t net_type, const uint8_t *dmac,
                       uint32_t dqpn, uint32_t len, uint32_t seed)
{
    struct rocx_sge s = t_sge(&u->mr, 0, len);
    uint16_t idx;
    uint64_t off;
    struct rocx_send_wqe *w;

    t_fill(t_ptr(u->d, u->buf, len), len, seed);
    idx = t_post_send(&u->qp, ROCX_WQE_SEND_IMM, ROCX_WQE_SIGNALED, &s, 1,
                      0, 0, seed);
    off = (uint64_t)(idx & ((1u << u->qp.sq_ld) - 1)) << u->qp.sq_shift;
    w = t_ptr(u->d, u->qp.buf + off, sizeof(*w));
    memset(&w->ud, 0, sizeof(w->ud));
    w->ud.remote_qpn = htole32(dqpn);
    w->ud.qkey = htole32(T_QKEY);
    /* From the device's own GID of this type; the peer is never named. */
    t_av(u->d, u->d == A ? B : A, net_type, &w->ud.av);
    memcpy(w->ud.av.dgid, grp_of(net_type), 16);
    memcpy(w->ud.av.dmac, dmac, 6);
    t_ring_sq(&u->qp);
}

/*
 * The next completion of u is the receive of a group send of len bytes
 * (seed) from QP src_qpn over net_type: data after the GRH area, which
 * names the group as destination.  The buffer is posted again.
 */
static void check_got(TUdq *u, uint8_t net_type, uint32_t src_qpn,
                      uint32_t len, uint32_t seed)
{
    struct rocx_cqe e;
    uint8_t want[2048];
    const uint8_t *g;
    uint64_t slot;

    if (!t_poll(&u->cq, &e)) {
        CHECK(!"a receive completion");
        return;
    }
    CHECK_EQ(cqe_st(&e), ROCX_WC_SUCCESS);
    CHECK(e.flags & ROCX_CQE_RECV);
    CHECK(e.flags & ROCX_CQE_GRH);
    CHECK(e.flags & ROCX_CQE_WITH_IMM);
    CHECK_EQ(be32toh(e.imm_data), seed);
    CHECK_EQ(le32toh(e.src_qp_status) & ROCX_CQE_SRC_QP_MASK, src_qpn);
    CHECK_EQ(le32toh(e.byte_len), ROCX_UD_GRH_LEN + len);
    CHECK_EQ((e.flags & ROCX_CQE_NET_TYPE_MASK) >> 5, net_type);
    slot = u->buf + 4096 * ((le16toh(e.wqe_idx) & 3) + 1);
    g = t_ptr(u->d, slot, ROCX_UD_GRH_LEN + len);
    if (net_type == ROCX_NET_ROCE_V2_IPV4) {
        CHECK(!memcmp(g + 20 + 16, grp4 + 12, 4));
    } else {
        CHECK(!memcmp(g + 24, grp6, 16));
    }
    t_fill(want, len, seed);
    CHECK(!memcmp(g + ROCX_UD_GRH_LEN, want, len));
    {
        struct rocx_sge s = t_sge(&u->mr, slot - u->buf, 4096);

        t_post_recv(&u->qp, &s, 1);
        t_ring_rq(&u->qp);
    }
}

/* The next completion of u is its send's. */
static void check_sent(TUdq *u)
{
    struct rocx_cqe e;

    if (!t_poll(&u->cq, &e)) {
        CHECK(!"a send completion");
        return;
    }
    CHECK_EQ(cqe_st(&e), ROCX_WC_SUCCESS);
    CHECK(!(e.flags & ROCX_CQE_RECV));
}

/* u has no completion waiting. */
static void check_none(TUdq *u)
{
    CHECK(!t_poll(&u->cq, NULL));
}

/* Frames on the wire, as the filter sees them. */
static struct {
    unsigned n;
    uint8_t dst[6];
    uint32_t dqpn;
} seen;

static bool wire_look(TDev *from, uint8_t *buf, size_t *len)
{
    const uint8_t *l3 = buf + ETH_HLEN;
    const uint8_t *bth;

    seen.n++;
    memcpy(seen.dst, buf, 6);
    switch (lduw_be_p(buf + 12)) {
    case ETH_P_IP:
        bth = l3 + ROCX_IPV4_HLEN + ROCX_UDP_HLEN;
        break;
    case ETH_P_IPV6:
        bth = l3 + ROCX_IPV6_HLEN + ROCX_UDP_HLEN;
        break;
    default:
        bth = l3 + ROCX_GRH_LEN;
        break;
    }
    seen.dqpn = ldl_be_p(bth + 4) & ROCX_QPN_MASK;
    return true;
}

static const uint8_t net_types[] = {
    ROCX_NET_ROCE_V2_IPV4, ROCX_NET_ROCE_V2_IPV6, ROCX_NET_ROCE_V1,
};

/*
 * What ATTACH_MCAST and DETACH_MCAST refuse, the limits IDENTIFY gives,
 * and that destroying a QP or a reset leaves no group behind.
 */
static void t_mcast_table(void)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_IDENTIFY);
    uint64_t id_off = t_alloc(A, 4096, T_PAGE);
    const struct rocx_identify *id = t_ptr(A, id_off, sizeof(*id));
    static const uint8_t uni[16] = { 0xfd, [15] = 1 };
    uint8_t gid[16];
    TUdq u, v, many[ROCX_CORE_MAX_MCAST_QP_ATTACH];
    TCq cq;
    TQp rc;
    unsigned i;

    c.identify.addr = htole64(T_GPA(id_off));
    c.identify.len = htole32(4096);
    CHECK_EQ(t_aq(A, &c, NULL), ROCX_AQ_STS_OK);
    CHECK(le64toh(id->caps2) & ROCX_CAP2_MCAST);
    CHECK_EQ(le32toh(id->max_mcast_grp), ROCX_CORE_MAX_MCAST_GRP);
    CHECK_EQ(le32toh(id->max_mcast_qp_attach),
             ROCX_CORE_MAX_MCAST_QP_ATTACH);

    udq_setup(&u, A, 0);
    CHECK_EQ(attach(&u, uni), ROCX_AQ_STS_INVALID);
    memcpy(gid, grp4, 16);
    gid[12] = 223;                  /* 223.x: not 224.0.0.0/4 */
    CHECK_EQ(attach(&u, gid), ROCX_AQ_STS_INVALID);
    CHECK_EQ(mcast_cmd(A, ROCX_AQ_OP_ATTACH_MCAST, u.qp.qpn + 1, grp4),
             ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(detach(&u, grp4), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(attach(&u, grp4), ROCX_AQ_STS_OK);
    CHECK_EQ(attach(&u, grp4), ROCX_AQ_STS_EXISTS);
    CHECK_EQ(attach(&u, grp6), ROCX_AQ_STS_OK);
    CHECK_EQ(A->f->core.rdma.mcast.ngrp, 2);

    /* Only UD QPs: an RC QP is refused, and so is its no-loopback flag. */
    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(A, &rc, ROCX_QPT_RC, &cq, &cq, 4, 4,
                              ROCX_QP_NO_MC_LOOPBACK), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_create_qp(A, &rc, &cq, &cq, 4, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(mcast_cmd(A, ROCX_AQ_OP_ATTACH_MCAST, rc.qpn, grp4),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(mcast_cmd(A, ROCX_AQ_OP_DETACH_MCAST, rc.qpn, grp4),
             ROCX_AQ_STS_INVALID);

    /* A group holds max_mcast_qp_attach QPs: u and 15 more. */
    for (i = 0; i < ROCX_CORE_MAX_MCAST_QP_ATTACH; i++) {
        udq_setup(&many[i], A, 0);
        CHECK_EQ(attach(&many[i], grp4),
                 i + 1 < ROCX_CORE_MAX_MCAST_QP_ATTACH ? ROCX_AQ_STS_OK :
                 ROCX_AQ_STS_NO_RESOURCE);
    }
    CHECK_EQ(detach(&many[3], grp4), ROCX_AQ_STS_OK);
    CHECK_EQ(detach(&many[3], grp4), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(attach(&many[ROCX_CORE_MAX_MCAST_QP_ATTACH - 1], grp4),
             ROCX_AQ_STS_OK);

    /* The table holds max_mcast_grp groups: grp4, grp6 and 62 more. */
    udq_setup(&v, A, 0);
    memcpy(gid, grp6, 16);
    gid[2] = 0x42;                  /* never grp6 itself */
    for (i = 0; i < ROCX_CORE_MAX_MCAST_GRP - 1; i++) {
        gid[1] = i;
        CHECK_EQ(attach(&v, gid), i + 2 < ROCX_CORE_MAX_MCAST_GRP ?
                 ROCX_AQ_STS_OK : ROCX_AQ_STS_NO_RESOURCE);
    }
    CHECK_EQ(A->f->core.rdma.mcast.ngrp, ROCX_CORE_MAX_MCAST_GRP);
    /* Its last QP gone, a group is free again. */
    gid[1] = 0;
    CHECK_EQ(detach(&v, gid), ROCX_AQ_STS_OK);
    gid[1] = 0x7f;
    CHECK_EQ(attach(&v, gid), ROCX_AQ_STS_OK);

    /* Destroying v leaves only grp4 and grp6, held by the others. */
    CHECK_EQ(t_destroy_qp(&v.qp), ROCX_AQ_STS_OK);
    CHECK_EQ(A->f->core.rdma.mcast.ngrp, 2);
    CHECK_EQ(t_destroy_qp(&u.qp), ROCX_AQ_STS_OK);
    CHECK_EQ(A->f->core.rdma.mcast.ngrp, 1);
    CHECK(rocx_mcast_find(&A->f->core, grp4) != NULL);
    CHECK(rocx_mcast_find(&A->f->core, grp6) == NULL);

    /* A reset forgets every group. */
    rocx_core_reset(&A->f->core);
    CHECK_EQ(A->f->core.rdma.mcast.ngrp, 0);
    CHECK(rocx_mcast_find(&A->f->core, grp4) == NULL);
}

/* The MAC a GID maps to, against hand-worked examples. */
static void t_mcast_mac(void)
{
    static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
    static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
    uint8_t m[6];

    rocx_mcast_mac(grp4, m);        /* 239.129.2.3: bit 23 dropped */
    CHECK(!memcmp(m, mac4, 6));
    rocx_mcast_mac(grp6, m);
    CHECK(!memcmp(m, mac6, 6));
    rocx_mcast_mac(all_nodes, m);
    CHECK(!memcmp(m, all_nodes_mac, 6));
    CHECK(rocx_gid_is_mcast(grp4) && rocx_gid_is_mcast(grp6));
    CHECK(!rocx_gid_is_mcast(A->gid4) && !rocx_gid_is_mcast(A->gid6) &&
          !rocx_gid_is_mcast(A->gid1));
}

/*
 * Over each network type: A's sender S and A's R2 are attached, B's B1
 * and B2 are attached, B3 is not.  A group send from S reaches B1 and B2
 * once each, S and R2 by loopback, and not B3; on the wire it went to the
 * group's MAC and QPN 0xffffff, whatever the WQE's dmac and remote_qpn.
 */
static void t_mcast_deliver(void)
{
    static const uint8_t bogus[6] = { 0x02, 0, 0, 0, 0, 0x99 };
    TUdq s, r2, b1, b2, b3;
    unsigned i;

    udq_setup(&s, A, 0);
    udq_setup(&r2, A, 0);
    udq_setup(&b1, B, 0);
    udq_setup(&b2, B, 0);
    udq_setup(&b3, B, 0);
    for (i = 0; i < ARRAY_SIZE(net_types); i++) {
        const uint8_t *g = grp_of(net_types[i]);
        const uint8_t *gmac = g == grp4 ? mac4 : mac6;
        uint32_t len = 100 + 400 * i, seed = 0x5150 + i;
        uint64_t drops = t_stat(B, ROCX_STAT_ROCE_RX_DROPPED);

        CHECK_EQ(attach(&s, g), ROCX_AQ_STS_OK);
        CHECK_EQ(attach(&r2, g), ROCX_AQ_STS_OK);
        CHECK_EQ(attach(&b1, g), ROCX_AQ_STS_OK);
        CHECK_EQ(attach(&b2, g), ROCX_AQ_STS_OK);
        memset(&seen, 0, sizeof(seen));
        wire.filter = wire_look;
        /* The AV's MAC and the remote QPN are wrong on purpose. */
        group_send(&s, net_types[i], bogus, b3.qp.qpn, len, seed);
        t_pump();
        wire.filter = NULL;

        CHECK_EQ(seen.n, 1);
        CHECK(!memcmp(seen.dst, gmac, 6));
        CHECK_EQ(seen.dqpn, ROCX_MCAST_QPN);
        /* Loopback first: the receive completes before the send. */
        check_got(&s, net_types[i], s.qp.qpn, len, seed);
        check_sent(&s);
        check_got(&r2, net_types[i], s.qp.qpn, len, seed);
        check_got(&b1, net_types[i], s.qp.qpn, len, seed);
        check_got(&b2, net_types[i], s.qp.qpn, len, seed);
        check_none(&s);
        check_none(&r2);
        check_none(&b1);
        check_none(&b2);
        check_none(&b3);
        CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), drops);

        /* The AV as ib_core makes it, with the group's MAC: the same. */
        group_send(&s, net_types[i], gmac, ROCX_MCAST_QPN, len, seed + 1);
        t_pump();
        check_got(&s, net_types[i], s.qp.qpn, len, seed + 1);
        check_sent(&s);
        check_got(&r2, net_types[i], s.qp.qpn, len, seed + 1);
        check_got(&b1, net_types[i], s.qp.qpn, len, seed + 1);
        check_got(&b2, net_types[i], s.qp.qpn, len, seed + 1);
        check_none(&b1);
        check_none(&b2);
        check_none(&b3);

        /* Detached, B1 gets nothing; B2 still does. */
        CHECK_EQ(detach(&b1, g), ROCX_AQ_STS_OK);
        group_send(&s, net_types[i], gmac, ROCX_MCAST_QPN, 8, seed + 2);
        t_pump();
        check_got(&s, net_types[i], s.qp.qpn, 8, seed + 2);
        check_sent(&s);
        check_got(&r2, net_types[i], s.qp.qpn, 8, seed + 2);
        check_got(&b2, net_types[i], s.qp.qpn, 8, seed + 2);
        check_none(&s);
        check_none(&b1);
        check_none(&b3);

        CHECK_EQ(detach(&s, g), ROCX_AQ_STS_OK);
        CHECK_EQ(detach(&r2, g), ROCX_AQ_STS_OK);
        CHECK_EQ(detach(&b2, g), ROCX_AQ_STS_OK);
    }
    /* No group on B: a group frame is not RoCE for it but Ethernet. */
    {
        uint64_t nobuf = t_stat(B, ROCX_STAT_RX_NO_BUFFER);
        uint64_t rx = t_stat(B, ROCX_STAT_ROCE_RX_PACKETS);

        group_send(&s, ROCX_NET_ROCE_V2_IPV6, mac6, ROCX_MCAST_QPN, 8, 9);
        t_pump();
        check_sent(&s);
        check_none(&s);
        check_none(&b1);
        check_none(&b2);
        check_none(&b3);
        CHECK_EQ(t_stat(B, ROCX_STAT_RX_NO_BUFFER), nobuf + 1);
        CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS), rx);
    }
}

/*
 * ROCX_QP_NO_MC_LOOPBACK: the QP's group sends reach the other device
 * only; a sender without it, the same group, still loops back.
 */
static void t_mcast_no_loopback(void)
{
    TUdq n, s, b1;

    udq_setup(&n, A, ROCX_QP_NO_MC_LOOPBACK);
    udq_setup(&s, A, 0);
    udq_setup(&b1, B, 0);
    CHECK_EQ(attach(&n, grp6), ROCX_AQ_STS_OK);
    CHECK_EQ(attach(&s, grp6), ROCX_AQ_STS_OK);
    CHECK_EQ(attach(&b1, grp6), ROCX_AQ_STS_OK);

    group_send(&n, ROCX_NET_ROCE_V2_IPV6, mac6, ROCX_MCAST_QPN, 64, 1);
    t_pump();
    check_sent(&n);
    check_none(&n);
    check_none(&s);
    check_got(&b1, ROCX_NET_ROCE_V2_IPV6, n.qp.qpn, 64, 1);
    check_none(&b1);

    group_send(&s, ROCX_NET_ROCE_V1, mac6, ROCX_MCAST_QPN, 64, 2);
    t_pump();
    check_got(&n, ROCX_NET_ROCE_V1, s.qp.qpn, 64, 2);
    check_got(&s, ROCX_NET_ROCE_V1, s.qp.qpn, 64, 2);
    check_sent(&s);
    check_got(&b1, ROCX_NET_ROCE_V1, s.qp.qpn, 64, 2);
    check_none(&n);
    check_none(&s);
    check_none(&b1);
}

#define RX_LD           6
#define RX_BUF          2048

/* An Ethernet RX ring on d with every buffer posted. */
static void rx_ring(TDev *d)
{
    uint64_t ring = t_alloc(d, 16u << RX_LD, T_PAGE);
    uint64_t bufs = t_alloc(d, (uint64_t)RX_BUF << RX_LD, T_PAGE);
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_ETH_RING);
    unsigned i;

    c.create_eth_ring.base = htole64(T_GPA(ring));
    c.create_eth_ring.type = ROCX_ETH_RING_RX;
    c.create_eth_ring.log_depth = RX_LD;
    c.create_eth_ring.vector = 1;
    c.create_eth_ring.buf_size = htole16(RX_BUF);
    CHECK_EQ(t_aq(d, &c, NULL), ROCX_AQ_STS_OK);
    for (i = 0; i < (1u << RX_LD); i++) {
        struct rocx_eth_rx_desc *rd = t_ptr(d, ring + 16 * i, 16);

        rd->addr = htole64(T_GPA(bufs + (uint64_t)RX_BUF * i));
    }
    t_db(d, 0, ROCX_DB_ETH_RX, 0, 1u << RX_LD, 0);
}

/* An Ethernet frame to dst that is no RoCE. */
static void eth_to(TDev *d, const uint8_t *dst)
{
    uint8_t f[64] = { 0 };

    memcpy(f, dst, 6);
    f[6] = 0x02;
    f[11] = 0x77;
    f[12] = 0x88;
    f[13] = 0xb5;
    t_inject(d, f, sizeof(f));
}

/* Turn a group frame to QP retarget_qpn, its ICRC made again. */
static uint32_t retarget_qpn;

static bool wire_retarget(TDev *from, uint8_t *buf, size_t *len)
{
    uint8_t *l3 = buf + ETH_HLEN;
    uint8_t *bth = l3 + ROCX_IPV4_HLEN + ROCX_UDP_HLEN;
    uint8_t *icrc = buf + *len - ROCX_ICRC_LEN;

    stl_be_p(bth + 4, (ldl_be_p(bth + 4) & ~ROCX_QPN_MASK) | retarget_qpn);
    rocx_icrc_put(icrc, rocx_icrc(ROCX_NET_ROCE_V2_IPV4, l3, bth, icrc));
    return true;
}

/*
 * With the Ethernet filter on and empty, a group's MAC is accepted while
 * a QP is attached to the group, and only then; the group's RoCE frames
 * go to the QP and never to the ring, even under ALLMULTI, and one to
 * another QPN than 0xffffff is dropped, still not the ring's.
 */
static void t_mcast_filter(void)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_SET_MCAST_MACS);
    uint64_t ring_mc, filt, drop;
    TUdq s, b1;

    rx_ring(B);
    CHECK_EQ(t_aq(B, &c, NULL), ROCX_AQ_STS_OK);      /* filter on, empty */
    udq_setup(&s, A, ROCX_QP_NO_MC_LOOPBACK);
    udq_setup(&b1, B, 0);

    ring_mc = t_stat(B, ROCX_STAT_RX_MULTICAST);
    filt = t_stat(B, ROCX_STAT_RX_DROPPED_FILTER);
    eth_to(B, mac4);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_DROPPED_FILTER), filt + 1);
    CHECK_EQ(attach(&b1, grp4), ROCX_AQ_STS_OK);
    eth_to(B, mac4);
    eth_to(B, mac6);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_MULTICAST), ring_mc + 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_DROPPED_FILTER), filt + 2);

    /* RoCE to the group: the QP's, not the ring's. */
    group_send(&s, ROCX_NET_ROCE_V2_IPV4, mac4, ROCX_MCAST_QPN, 32, 7);
    t_pump();
    check_sent(&s);
    check_got(&b1, ROCX_NET_ROCE_V2_IPV4, s.qp.qpn, 32, 7);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_MULTICAST), ring_mc + 1);

    /* So under ALLMULTI too, which takes every other group frame. */
    c = t_cmd(ROCX_AQ_OP_SET_PORT);
    c.set_port.valid = htole32(ROCX_PORT_SET_RX_MODE);
    c.set_port.rx_mode = ROCX_RX_MODE_ALLMULTI;
    CHECK_EQ(t_aq(B, &c, NULL), ROCX_AQ_STS_OK);
    group_send(&s, ROCX_NET_ROCE_V2_IPV4, mac4, ROCX_MCAST_QPN, 32, 8);
    t_pump();
    check_sent(&s);
    check_got(&b1, ROCX_NET_ROCE_V2_IPV4, s.qp.qpn, 32, 8);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_MULTICAST), ring_mc + 1);
    eth_to(B, mac6);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_MULTICAST), ring_mc + 2);

    /* A group frame to b1's own QPN rather than 0xffffff: dropped. */
    drop = t_stat(B, ROCX_STAT_ROCE_RX_DROPPED);
    retarget_qpn = b1.qp.qpn;
    wire.filter = wire_retarget;
    group_send(&s, ROCX_NET_ROCE_V2_IPV4, mac4, ROCX_MCAST_QPN, 32, 9);
    t_pump();
    wire.filter = NULL;
    check_sent(&s);
    check_none(&b1);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), drop + 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_ICRC_ERRORS), 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_MULTICAST), ring_mc + 2);

    /* Detached, and ALLMULTI off again: the group's MAC is refused. */
    c.set_port.rx_mode = 0;
    CHECK_EQ(t_aq(B, &c, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(detach(&b1, grp4), ROCX_AQ_STS_OK);
    eth_to(B, mac4);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_DROPPED_FILTER), filt + 3);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_MULTICAST), ring_mc + 2);
}

const TCase t_cases_mcast[] = {
    T_CASE(mcast_mac),
    T_CASE(mcast_table),
    T_CASE(mcast_deliver),
    T_CASE(mcast_no_loopback),
    T_CASE(mcast_filter),
};
const unsigned t_ncases_mcast = ARRAY_SIZE(t_cases_mcast);
