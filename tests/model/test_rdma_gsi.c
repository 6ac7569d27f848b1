/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GSI QP (contract 1.2, ROCX_CAP2_GSI): number 1 in commands, CQEs
 * and on the wire; one per device, the kernel's only; its Q_Key fixed at
 * 0x80010000 (a send's bit 31 takes it, a packet with another is
 * dropped); MADs between two devices' GSI QPs with the GRH area, src_qp
 * 1 and data checked; its slot's own numbers name nothing.
 */
#include "rdma.h"

typedef struct TGsi {
    TDev *d;
    TCq cq;
    TQp qp;
    TMr mr;
    uint64_t buf;
} TGsi;

#define T_GSI_BUF       (16u << 10)
#define T_MAD           256

static unsigned gsi_modify(TQp *qp, uint32_t valid, uint8_t state,
                           uint32_t qkey)
{
    struct rocx_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.valid = htole32(valid);
    a.state = state;
    a.qkey = htole32(qkey);
    return t_modify(qp, &a);
}

static void gsi_setup(TGsi *g, TDev *d)
{
    memset(g, 0, sizeof(*g));
    g->d = d;
    CHECK_EQ(t_create_cq(d, &g->cq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(d, &g->qp, ROCX_QPT_GSI, &g->cq, &g->cq, 6, 6,
                              0), ROCX_AQ_STS_OK);
    CHECK_EQ(g->qp.qpn, ROCX_GSI_QPN);
    g->buf = t_alloc(d, T_GSI_BUF, T_PAGE);
    CHECK_EQ(t_reg_mr(d, &g->mr, g->buf, T_GSI_BUF, ROCX_ACCESS_LOCAL_WRITE),
             ROCX_AQ_STS_OK);
    /* As ib_mad brings QP1 up. */
    CHECK_EQ(gsi_modify(&g->qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY |
                        ROCX_QP_ATTR_PKEY_INDEX, ROCX_QPS_INIT, ROCX_GSI_QKEY),
             ROCX_AQ_STS_OK);
    CHECK_EQ(gsi_modify(&g->qp, ROCX_QP_ATTR_STATE, ROCX_QPS_RTR, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(gsi_modify(&g->qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN,
                        ROCX_QPS_RTS, 0), ROCX_AQ_STS_OK);
}

/* A MAD-sized UD SEND from a's GSI QP to to's QP 1 with Q_Key qkey. */
static void gsi_post(TGsi *a, TDev *to, uint8_t net_type, uint32_t qkey)
{
    struct rocx_sge s = t_sge(&a->mr, 0, T_MAD);
    uint16_t idx = t_post_send(&a->qp, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &s,
                               1, 0, 0, 0);
    uint64_t off = (uint64_t)(idx & ((1u << a->qp.sq_ld) - 1))
                   << a->qp.sq_shift;
    struct rocx_send_wqe *w = t_ptr(a->d, a->qp.buf + off, sizeof(*w));

    memset(&w->ud, 0, sizeof(w->ud));
    w->ud.remote_qpn = htole32(ROCX_GSI_QPN);
    w->ud.qkey = htole32(qkey);
    t_av(a->d, to, net_type, &w->ud.av);
    t_ring_sq(&a->qp);
}

static void gsi_recv(TGsi *g)
{
    struct rocx_sge s = t_sge(&g->mr, 4096, ROCX_UD_GRH_LEN + T_MAD);

    t_post_recv(&g->qp, &s, 1);
    t_ring_rq(&g->qp);
}

static void t_gsi_create(void)
{
    TCq cq, other;
    TQp qp, qp2, rc;
    struct rocx_qp_attr a;

    CHECK_EQ(t_create_cq(A, &cq, 4, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp_type(A, &qp, ROCX_QPT_GSI, &cq, &cq, 2, 2, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(qp.qpn, ROCX_GSI_QPN);
    /* One per device. */
    CHECK_EQ(t_create_qp_type(A, &qp2, ROCX_QPT_GSI, &cq, &cq, 2, 2, 0),
             ROCX_AQ_STS_EXISTS);
    /* A UD QP only in name: the multicast loopback flag is refused. */
    CHECK_EQ(t_create_qp_type(A, &qp2, ROCX_QPT_GSI, &cq, &cq, 2, 2,
                              ROCX_QP_NO_MC_LOOPBACK), ROCX_AQ_STS_INVALID);
    /* Its Q_Key starts fixed and stays so. */
    CHECK_EQ(t_query(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(le32toh(a.qkey), ROCX_GSI_QKEY);
    CHECK_EQ(gsi_modify(&qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY |
                        ROCX_QP_ATTR_PKEY_INDEX, ROCX_QPS_INIT, 0x1234),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_query(&qp, &a), ROCX_AQ_STS_OK);
    CHECK_EQ(a.cur_state, ROCX_QPS_RESET);
    CHECK_EQ(gsi_modify(&qp, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY |
                        ROCX_QP_ATTR_PKEY_INDEX, ROCX_QPS_INIT, ROCX_GSI_QKEY),
             ROCX_AQ_STS_OK);
    /* Other QPs still get other numbers, never 1. */
    CHECK_EQ(t_create_qp(A, &rc, &cq, &cq, 2, 2, 0), ROCX_AQ_STS_OK);
    CHECK(rc.qpn != ROCX_GSI_QPN);
    CHECK_EQ(t_destroy_qp(&rc), ROCX_AQ_STS_OK);
    /* Gone, it may be made again; then a user context's is refused. */
    CHECK_EQ(t_destroy_qp(&qp), ROCX_AQ_STS_OK);
    CHECK_EQ(t_destroy_qpn(A, ROCX_GSI_QPN), ROCX_AQ_STS_NOT_FOUND);
    other = cq;
    other.uctx = 1;
    CHECK_EQ(t_create_qp_type(A, &qp2, ROCX_QPT_GSI, &other, &other, 2, 2, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_create_qp_type(A, &qp, ROCX_QPT_GSI, &cq, &cq, 2, 2, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(qp.qpn, ROCX_GSI_QPN);
    CHECK_EQ(t_destroy_qp(&qp), ROCX_AQ_STS_OK);
}

/* QP 1 to QP 1 over every network type, both ways: a MAD exchange. */
static void t_gsi_mad(void)
{
    static const uint8_t nets[] = {
        ROCX_NET_ROCE_V2_IPV4, ROCX_NET_ROCE_V2_IPV6, ROCX_NET_ROCE_V1,
    };
    TGsi a, b;
    unsigned i, dir;

    gsi_setup(&a, A);
    gsi_setup(&b, B);
    for (i = 0; i < ARRAY_SIZE(nets); i++) {
        for (dir = 0; dir < 2; dir++) {
            TGsi *from = dir ? &b : &a, *to = dir ? &a : &b;
            uint8_t *src = t_ptr(from->d, from->buf, T_MAD);
            uint8_t *dst = t_ptr(to->d, to->buf + 4096,
                                 ROCX_UD_GRH_LEN + T_MAD);
            struct rocx_cqe e, se;
            uint32_t src_status;

            t_fill(src, T_MAD, i * 2 + dir);
            memset(dst, 0xee, ROCX_UD_GRH_LEN + T_MAD);
            gsi_recv(to);
            /* Bit 31: the sending QP's own Q_Key, 0x80010000. */
            gsi_post(from, to->d, nets[i], ROCX_WQE_UD_QKEY_OWN);
            t_pump();
            CHECK(t_poll(&from->cq, &se));
            CHECK_EQ(le32toh(se.src_qp_status) >> 24, ROCX_WC_SUCCESS);
            CHECK_EQ(le32toh(se.qpn_op) & ROCX_CQE_QPN_MASK, ROCX_GSI_QPN);
            CHECK(t_poll(&to->cq, &e));
            src_status = le32toh(e.src_qp_status);
            CHECK_EQ(src_status >> 24, ROCX_WC_SUCCESS);
            CHECK_EQ(le32toh(e.qpn_op) & ROCX_CQE_QPN_MASK, ROCX_GSI_QPN);
            CHECK_EQ(src_status & ROCX_CQE_SRC_QP_MASK, ROCX_GSI_QPN);
            CHECK_EQ(le32toh(e.byte_len), ROCX_UD_GRH_LEN + T_MAD);
            CHECK(e.flags & ROCX_CQE_GRH);
            CHECK_EQ((e.flags & ROCX_CQE_NET_TYPE_MASK) >> 5, nets[i]);
            CHECK(!memcmp(e.smac, from->d->mac, 6));
            if (nets[i] == ROCX_NET_ROCE_V2_IPV4) {
                CHECK_EQ(dst[20] >> 4, 4);
            }
            CHECK(!memcmp(dst + ROCX_UD_GRH_LEN, src, T_MAD));
        }
    }
}

/* A packet to QP 1 with a Q_Key other than the GSI's is dropped. */
static void t_gsi_qkey(void)
{
    uint64_t drops;
    struct rocx_cqe e;
    TGsi a, b;

    gsi_setup(&a, A);
    gsi_setup(&b, B);
    gsi_recv(&b);
    drops = t_stat(B, ROCX_STAT_ROCE_RX_DROPPED);
    gsi_post(&a, B, ROCX_NET_ROCE_V2_IPV4, 0x11111111);
    t_pump();
    CHECK(t_poll(&a.cq, &e));
    CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
    CHECK(!t_poll(&b.cq, &e));
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), drops + 1);
    /* The receive is still there for the right one. */
    gsi_post(&a, B, ROCX_NET_ROCE_V2_IPV4, ROCX_GSI_QKEY);
    t_pump();
    CHECK(t_poll(&a.cq, &e));
    CHECK(t_poll(&b.cq, &e));
    CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
}

const TCase t_cases_gsi[] = {
    T_CASE(gsi_create),
    T_CASE(gsi_mad),
    T_CASE(gsi_qkey),
};
const unsigned t_ncases_gsi = ARRAY_SIZE(t_cases_gsi);
