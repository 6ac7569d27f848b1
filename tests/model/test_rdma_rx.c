/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Receive classification between the transport and the Ethernet ring,
 * with QEMU's net queue in front of each device (rdma.c: a frame waits
 * there while can_receive() says no or receive() returned 0, until the
 * device asks for more with rx_resume).  QEMU has one such queue per NIC,
 * so whatever makes the device refuse a frame there holds up every frame
 * behind it, RoCE included: a guest whose Ethernet driver lets its RX ring
 * run dry under a broadcast flood must still get its RDMA traffic through.
 */
#include "rdma.h"

#define MSEC            (1000 * 1000LL)
#define SEC             (1000 * MSEC)
#define KIB             1024u

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

static uint8_t st(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

/* A broadcast frame of len bytes from a third host, numbered seq. */
static size_t bcast_frame(uint8_t *f, size_t len, uint32_t seq)
{
    static const uint8_t src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x77 };

    memset(f, 0, len);
    memset(f, 0xff, 6);
    memcpy(f + 6, src, 6);
    f[12] = 0x88;               /* local experimental EtherType */
    f[13] = 0xb5;
    stl_be_p(f + 14, seq);
    return len;
}

#define FLOOD           600
#define FLOOD_LEN       1000

/*
 * B's Ethernet driver has posted no RX buffer when FLOOD broadcast frames
 * arrive, and keeps the ring empty while A writes 256 KiB to B and sends
 * it a message.  The RoCE traffic completes, data intact, without a
 * retransmission; the broadcast frames wait in the device up to its
 * holding queue and the rest are dropped and counted.  When the driver
 * posts buffers, the frames that waited arrive, first come first.
 */
static void t_rx_roce_beside_flood(void)
{
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    TConn conn;
    uint8_t f[FLOOD_LEN];
    struct rocx_sge sge, rsge;
    struct rocx_cqe e;
    uint64_t ring, bufs, held, got;
    unsigned i;

    CHECK_EQ(t_create_cq(A, &acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qa, &acq, &acq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &qb, &bcq, &bcq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &amr, t_alloc(A, 512 * KIB, T_PAGE), 512 * KIB,
                      all_access), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &bmr, t_alloc(B, 512 * KIB, T_PAGE), 512 * KIB,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.retry_cnt = 2;
    t_connect(&qa, &qb, &conn);
    ring = t_rx_ring(B, 0, &bufs);
    (void)ring;

    for (i = 0; i < FLOOD; i++) {
        t_wire_push(B, f, bcast_frame(f, sizeof(f), i));
    }
    t_fill(t_ptr(A, amr.off, 256 * KIB), 256 * KIB, 3);
    sge = t_sge(&amr, 0, 256 * KIB);
    t_post_send(&qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                bmr.iova, bmr.key, 0);
    sge = t_sge(&amr, 0, 3000);
    rsge = t_sge(&bmr, 256 * KIB, 4096);
    t_post_recv(&qb, &rsge, 1);
    t_ring_rq(&qb);
    t_post_send(&qa, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, &sge, 1, 0, 0, 0);
    t_ring_sq(&qa);
    t_settle(10 * SEC);

    CHECK(t_poll(&acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&acq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK_EQ(le32toh(e.byte_len), 3000);
    CHECK(!memcmp(t_ptr(A, amr.off, 256 * KIB), t_ptr(B, bmr.off, 256 * KIB),
                  256 * KIB));
    CHECK(!memcmp(t_ptr(A, amr.off, 3000),
                  t_ptr(B, bmr.off + 256 * KIB, 3000), 3000));
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 0);
    CHECK_EQ(A->f->core.rdma.stats.timeouts, 0);

    /* Nothing waits in QEMU's queue: the device took every frame. */
    CHECK_EQ(B->nheld, 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_NO_BUFFER), FLOOD);
    held = FLOOD - t_stat(B, ROCX_STAT_RX_DISCARDS);
    CHECK(held > 0 && held < FLOOD);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 0);

    /* The driver catches up: the frames that waited, in order. */
    got = 0;
    while (got < held) {
        unsigned n = MIN(held - got, 1u << T_RX_LD);

        t_db(B, 0, ROCX_DB_ETH_RX, 0, (uint16_t)(got + n), 0);
        t_pump();
        for (i = 0; i < n; i++) {
            unsigned slot = (got + i) & ((1u << T_RX_LD) - 1);
            struct rocx_eth_rx_desc *rd = t_ptr(B, ring + 16 * slot, 16);
            const uint8_t *b = t_ptr(B, bufs + (uint64_t)T_RX_BUF * slot,
                                     FLOOD_LEN);

            CHECK_EQ(le16toh(rd->status), ROCX_ETH_STS_DONE);
            CHECK_EQ(le16toh(rd->pkt_len), FLOOD_LEN);
            CHECK_EQ(ldl_be_p(b + 14), got + i);
            rd->status = 0;
        }
        got += n;
    }
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), held);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_BROADCAST), held);
    /* Nothing more waits: a new frame goes straight to a buffer. */
    t_db(B, 0, ROCX_DB_ETH_RX, 0, (uint16_t)(got + 1), 0);
    t_wire_push(B, f, bcast_frame(f, sizeof(f), 9999));
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), held + 1);
    CHECK_EQ(ldl_be_p((uint8_t *)t_ptr(B, bufs + (uint64_t)T_RX_BUF *
                                       (got & ((1u << T_RX_LD) - 1)), 32) + 14),
             9999);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * The same in the other direction of the transport: B, whose ring stays
 * empty under the flood, is the requester, and A's READ responses and
 * ACKs reach it.
 */
static void t_rx_roce_read_beside_flood(void)
{
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    TConn conn;
    uint8_t f[FLOOD_LEN];
    struct rocx_sge sge;
    struct rocx_cqe e;
    uint64_t bufs;
    unsigned i;

    CHECK_EQ(t_create_cq(A, &acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &qa, &acq, &acq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &qb, &bcq, &bcq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &amr, t_alloc(A, 256 * KIB, T_PAGE), 256 * KIB,
                      all_access), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &bmr, t_alloc(B, 256 * KIB, T_PAGE), 256 * KIB,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.retry_cnt = 2;
    t_connect(&qa, &qb, &conn);
    t_rx_ring(B, 0, &bufs);
    for (i = 0; i < FLOOD; i++) {
        t_wire_push(B, f, bcast_frame(f, sizeof(f), i));
    }
    t_fill(t_ptr(A, amr.off, 128 * KIB), 128 * KIB, 9);
    sge = t_sge(&bmr, 0, 128 * KIB);
    t_post_send(&qb, ROCX_WQE_RDMA_READ, ROCX_WQE_SIGNALED, &sge, 1,
                amr.iova, amr.key, 0);
    t_ring_sq(&qb);
    t_settle(10 * SEC);
    CHECK(t_poll(&bcq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(A, amr.off, 128 * KIB), t_ptr(B, bmr.off, 128 * KIB),
                  128 * KIB));
    CHECK_EQ(B->f->core.rdma.stats.retransmits, 0);
    CHECK_EQ(B->nheld, 0);
    CHECK(t_stat(B, ROCX_STAT_RX_DISCARDS) > 0);
}

const TCase t_cases_rx[] = {
    T_CASE(rx_roce_beside_flood),
    T_CASE(rx_roce_read_beside_flood),
};
const unsigned t_ncases_rx = ARRAY_SIZE(t_cases_rx);
