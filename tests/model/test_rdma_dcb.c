/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DCB (rocx-dcb.c): SET_DCB/QUERY_DCB and their rules, the port's line
 * rate, and pause received: a PFC frame stops the QPs of the priorities it
 * names for quanta x 512 bit times at the port's rate, a quanta-0 frame
 * resumes them, other priorities and loopback keep going, and the pause
 * counters say how long.  Expected times are worked out here from the
 * definition (802.1Qbb: a quantum is 512 bit times), not taken from the
 * model.
 */
#include "rdma.h"

#define USEC            1000LL
#define MSEC            (1000 * USEC)
#define SEC             (1000 * MSEC)

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

static unsigned query_dcb(TDev *d, struct rocx_dcb_cfg *out)
{
    return t_cfg_query(d, ROCX_AQ_OP_QUERY_DCB, out, sizeof(*out));
}

static unsigned set_dcb(TDev *d, const struct rocx_dcb_cfg *in)
{
    return t_cfg_set(d, ROCX_AQ_OP_SET_DCB, in, sizeof(*in));
}

/* PFC on for the priorities in mask, on d. */
static void pfc_on(TDev *d, uint8_t mask)
{
    struct rocx_dcb_cfg c;

    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_DCB_PFC);
    c.pfc_en = mask;
    c.pfc_quanta = htole16(0xffff);
    CHECK_EQ(set_dcb(d, &c), ROCX_AQ_STS_OK);
}

/* A PFC frame (802.1Qbb) naming the priorities in cev, each with quanta. */
static size_t pfc_frame(uint8_t *f, uint16_t cev, uint16_t quanta)
{
    static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
    static const uint8_t src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x99 };
    unsigned p;

    memset(f, 0, 60);
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    stw_be_p(f + 12, 0x8808);
    stw_be_p(f + 14, 0x0101);
    stw_be_p(f + 16, cev);
    for (p = 0; p < 8; p++) {
        stw_be_p(f + 18 + 2 * p, cev & (1u << p) ? quanta : 0);
    }
    return 60;
}

/* An 802.3x PAUSE frame. */
static size_t pause_frame(uint8_t *f, uint16_t quanta)
{
    size_t len = pfc_frame(f, 0, 0);

    stw_be_p(f + 14, 0x0001);
    stw_be_p(f + 16, quanta);
    return len;
}

static uint8_t st(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

/* ---- Configuration ---- */

static void t_dcb_defaults(void)
{
    struct rocx_dcb_cfg c;
    unsigned p;

    CHECK_EQ(query_dcb(A, &c), ROCX_AQ_STS_OK);
    CHECK_EQ(le32toh(c.valid), ROCX_DCB_ALL);
    CHECK_EQ(c.trust, ROCX_TRUST_PCP);
    CHECK_EQ(c.pfc_en, 0);
    CHECK_EQ(c.pause, 0);
    CHECK_EQ(le16toh(c.pfc_quanta), 0xffff);
    for (p = 0; p < 8; p++) {
        CHECK_EQ(c.prio_tc[p], p);
        CHECK_EQ(c.tc_tsa[p], ROCX_TSA_ETS);
        /* Eight equal shares of 100, in whole percent. */
        CHECK_EQ(c.tc_bw[p], p < 4 ? 12 : 13);
        CHECK_EQ(le32toh(c.tc_maxrate[p]), 0);
        /* 512 KiB of receive buffering in eight, the headroom below. */
        CHECK_EQ(le32toh(c.buf_size[p]), 65536);
        CHECK_EQ(le32toh(c.xoff[p]), 65536 - 2 * 9018 - 4096);
        CHECK_EQ(le32toh(c.xon[p]), 65536 - 4 * 9018 - 4096);
    }
    /* DSCP 46 (EF) is precedence 5, CS6 (48) 6. */
    CHECK_EQ(c.dscp2prio[0], 0);
    CHECK_EQ(c.dscp2prio[46], 5);
    CHECK_EQ(c.dscp2prio[48], 6);
    CHECK_EQ(c.dscp2prio[63], 7);
    CHECK_EQ(A->f->gerrs, 0);
}

static void t_dcb_set_query(void)
{
    struct rocx_dcb_cfg c, q;

    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_DCB_TRUST | ROCX_DCB_DSCP2PRIO | ROCX_DCB_PFC |
                      ROCX_DCB_ETS);
    c.trust = ROCX_TRUST_DSCP;
    c.dscp2prio[26] = 3;
    c.pfc_en = 0x08;
    c.pfc_quanta = htole16(0x4000);
    /* TC 7 strict, the others 50/30/20 and three of 0. */
    memcpy(c.prio_tc, (uint8_t[8]){ 0, 0, 1, 3, 2, 2, 7, 7 }, 8);
    memcpy(c.tc_tsa, (uint8_t[8]){ 1, 1, 1, 1, 1, 1, 1, 0 }, 8);
    memcpy(c.tc_bw, (uint8_t[8]){ 50, 30, 20, 0, 0, 0, 0, 0 }, 8);
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_OK);
    CHECK_EQ(query_dcb(A, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(q.trust, ROCX_TRUST_DSCP);
    CHECK_EQ(q.dscp2prio[26], 3);
    CHECK_EQ(q.dscp2prio[27], 0);   /* the whole table was given */
    CHECK_EQ(q.pfc_en, 0x08);
    CHECK_EQ(le16toh(q.pfc_quanta), 0x4000);
    CHECK(!memcmp(q.prio_tc, c.prio_tc, 8));
    CHECK(!memcmp(q.tc_tsa, c.tc_tsa, 8));
    CHECK(!memcmp(q.tc_bw, c.tc_bw, 8));
    /* Not selected: unchanged. */
    CHECK_EQ(le32toh(q.buf_size[0]), 65536);
    CHECK_EQ(q.pause, 0);

    /* A device reset brings the defaults back. */
    CHECK_EQ(t_stat(A, ROCX_STAT_AQ_ERRORS), 0);
    CHECK_EQ(B->f->gerrs + A->f->gerrs, 0);
}

/* Each rule of rocx-device.rst, broken once: INVALID, nothing applied. */
static void t_dcb_rules(void)
{
    struct rocx_dcb_cfg good, c, q;
    unsigned i;

    memset(&good, 0, sizeof(good));
    good.valid = htole32(ROCX_DCB_ALL);
    good.pfc_quanta = htole16(0xffff);
    for (i = 0; i < 8; i++) {
        good.prio_tc[i] = i;
        good.tc_tsa[i] = ROCX_TSA_ETS;
        good.tc_bw[i] = i ? 0 : 100;
        good.buf_size[i] = htole32(65536);
        good.xoff[i] = htole32(40000);
        good.xon[i] = htole32(20000);
    }
#define BAD(what, stmt) do { \
        c = good; \
        stmt; \
        CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_INVALID); \
        CHECK_EQ(query_dcb(A, &q), ROCX_AQ_STS_OK); \
        CHECK_EQ(le32toh(q.xoff[0]), 65536 - 2 * 9018 - 4096); \
        CHECK_EQ(q.tc_bw[0], 12); \
    } while (0)
    BAD("trust", c.trust = 2);
    BAD("pause bits", c.pause = 4);
    BAD("pause with PFC", (c.pause = ROCX_PAUSE_RX, c.pfc_en = 1));
    BAD("prio_tc", c.prio_tc[3] = 8);
    BAD("dscp2prio", c.dscp2prio[63] = 8);
    BAD("tsa", c.tc_tsa[2] = 2);
    BAD("ETS shares 99", c.tc_bw[0] = 99);
    BAD("ETS shares 101", c.tc_bw[1] = 1);
    BAD("strict with a share", (c.tc_tsa[7] = ROCX_TSA_STRICT,
                                c.tc_bw[7] = 1, c.tc_bw[0] = 99));
    BAD("maxrate", c.tc_maxrate[5] = htole32(400001));
    BAD("xon above xoff", c.xon[4] = htole32(40001));
    BAD("xoff above buffer", c.xoff[4] = htole32(65537));
    BAD("buffers above the total", c.buf_size[7] = htole32(65537));
    BAD("quanta 0", c.pfc_quanta = 0);
    BAD("quanta 1", c.pfc_quanta = htole16(1));
    BAD("quanta below 0x4000", c.pfc_quanta = htole16(0x3fff));
    /* A lossless priority needs a frame of hysteresis below xoff. */
    BAD("xon = xoff = 0, lossless", (c.pfc_en = 0x10, c.xoff[4] = 0));
    BAD("xon = xoff, lossless", (c.pfc_en = 0x10, c.xon[4] = c.xoff[4]));
    BAD("xoff - xon below a frame", (c.pfc_en = 0x10,
                                     c.xon[4] = htole32(40000 - 9017)));
    /* Sending link pause puts every priority under the same rule. */
    BAD("pause sent, xon = xoff", (c.pause = ROCX_PAUSE_TX,
                                   c.xon[4] = c.xoff[4]));
    BAD("valid bit 7", c.valid = htole32(ROCX_DCB_ALL | ROCX_BIT(7)));
    BAD("reserved byte 7", c.rsvd0 = 1);
    BAD("reserved tail", c.rsvd1[29] = 1);
#undef BAD
    /* Lossy priorities use no thresholds: anything up to xoff goes. */
    c = good;
    c.xoff[4] = c.xon[4] = 0;
    c.pfc_quanta = htole16(0x4000);
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_OK);
    /* Then PFC alone on that priority (as dcbnl sets it): INVALID. */
    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_DCB_PFC);
    c.pfc_en = 0x10;
    c.pfc_quanta = htole16(0xffff);
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_INVALID);
    CHECK_EQ(query_dcb(A, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(q.pfc_en, 0);
    /* Only the selected fields count: a bad pause not selected is fine. */
    c = good;
    c.valid = htole32(ROCX_DCB_ETS);
    c.pause = 7;
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_OK);
    /* All strict: no ETS class, no sum to check. */
    c = good;
    memset(c.tc_tsa, ROCX_TSA_STRICT, 8);
    memset(c.tc_bw, 0, 8);
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_OK);
    /* Short buffers and unreadable ones. */
    CHECK_EQ(t_cfg_cmd(A, ROCX_AQ_OP_SET_DCB, 255), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_cfg_cmd(A, ROCX_AQ_OP_QUERY_DCB, 255), ROCX_AQ_STS_INVALID);
    {
        union rocx_aq_cmd cmd = t_cmd(ROCX_AQ_OP_QUERY_DCB);

        cmd.cfg_buf.addr = htole64(1ULL << 50);
        cmd.cfg_buf.len = htole32(256);
        CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_DMA_ERROR);
        cmd.hdr.opcode = htole16(ROCX_AQ_OP_SET_DCB);
        CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_DMA_ERROR);
    }
    A->f->gerrs = 0;    /* the DMA errors are guest errors, as they must */
}

static void t_link_speed(void)
{
    struct rocx_eqe *e;
    uint32_t ls;

    CHECK_EQ(rocx_core_reg_read(&A->f->core, ROCX_REG_LINK_SPEED, 4),
             100000);
    ls = rocx_core_reg_read(&A->f->core, ROCX_REG_LINK_STATUS, 4);
    CHECK_EQ(ROCX_FIELD_GET(ROCX_LINK_SPEED_MASK, ls), 100);
    while (t_eq_next(A, 0)) {
    }
    /* 500 Mb/s: LINK_STATUS rounds down to Gb/s but never to 0. */
    CHECK(rocx_core_set_speed(&A->f->core, 500));
    t_pump();
    CHECK_EQ(rocx_core_reg_read(&A->f->core, ROCX_REG_LINK_SPEED, 4), 500);
    ls = rocx_core_reg_read(&A->f->core, ROCX_REG_LINK_STATUS, 4);
    CHECK_EQ(ROCX_FIELD_GET(ROCX_LINK_SPEED_MASK, ls), 1);
    CHECK(ls & ROCX_LINK_UP);
    e = t_eq_next(A, 0);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ(le16toh(e->type), ROCX_EQE_LINK_CHANGE);
        CHECK_EQ(le32toh(e->data), ls);
    }
    CHECK(!rocx_core_set_speed(&A->f->core, 0));
    CHECK(!rocx_core_set_speed(&A->f->core, 400001));
    CHECK_EQ(rocx_core_speed(&A->f->core), 500);
    CHECK(rocx_core_set_speed(&A->f->core, 400000));
    CHECK_EQ(A->f->gerrs, 0);
}

/* ---- Pause received ---- */

typedef struct Pair {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
} Pair;

static void pair_tc(Pair *p, uint8_t prio, uint8_t tclass)
{
    TConn conn;

    CHECK_EQ(t_create_cq(A, &p->acq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &p->bcq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &p->qa, &p->acq, &p->acq, 6, 6, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &p->qb, &p->bcq, &p->bcq, 6, 6, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &p->amr, t_alloc(A, 65536, T_PAGE), 65536,
                      all_access), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &p->bmr, t_alloc(B, 65536, T_PAGE), 65536,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.prio = prio;
    conn.tclass = tclass;
    t_connect(&p->qa, &p->qb, &conn);
}

static void pair(Pair *p, uint8_t prio)
{
    pair_tc(p, prio, 0);
}

/* A writes 16 KiB to B (posted and rung, not run). */
static void write16k(Pair *p, uint32_t seed)
{
    struct rocx_sge sge = t_sge(&p->amr, 0, 16384);

    t_fill(t_ptr(A, p->amr.off, 16384), 16384, seed);
    t_post_send(&p->qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                p->bmr.iova, p->bmr.key, 0);
    t_ring_sq(&p->qa);
}

static bool write_done(Pair *p)
{
    struct rocx_cqe e;

    return t_poll(&p->acq, &e) && st(&e) == ROCX_WC_SUCCESS &&
           !memcmp(t_ptr(A, p->amr.off, 16384), t_ptr(B, p->bmr.off, 16384),
                   16384);
}

/*
 * At 1000 Mb/s a bit takes 1 ns, so 1000 quanta of 512 bit times pause
 * for 512 us.  A's QP at priority 3 sends nothing for that long, then
 * the whole WRITE; the counters say one XOFF and 512 us.
 */
static void t_pfc_pause_expires(void)
{
    Pair p;
    uint8_t f[60];
    unsigned sent;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    pfc_on(A, 0x08);
    pair(&p, 3);
    t_inject(A, f, pfc_frame(f, 0x08, 1000));
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(3, ROCX_STAT_PRIO_RX_PAUSE)), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_DROPPED_FILTER), 0);
    sent = A->f->nframes;
    write16k(&p, 7);
    t_pump();
    CHECK_EQ(A->f->nframes, sent);            /* nothing left A */
    fake_advance(A->f, 511 * USEC);
    fake_advance(B->f, 511 * USEC);
    t_pump();
    CHECK_EQ(A->f->nframes, sent);            /* 1 us to go */
    fake_advance(A->f, USEC);
    fake_advance(B->f, USEC);
    t_settle(SEC);
    CHECK(write_done(&p));
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(3, ROCX_STAT_PRIO_RX_PAUSE_DURATION)),
             512);
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 0);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* Quanta 0 for the priority resumes it at once; the counters stop. */
static void t_pfc_resume(void)
{
    Pair p;
    uint8_t f[60];
    unsigned sent;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    pfc_on(A, 0x08);
    pair(&p, 3);
    t_inject(A, f, pfc_frame(f, 0x08, 0xffff));
    sent = A->f->nframes;
    write16k(&p, 8);
    fake_advance(A->f, 100 * USEC);
    fake_advance(B->f, 100 * USEC);
    t_pump();
    CHECK_EQ(A->f->nframes, sent);
    t_inject(A, f, pfc_frame(f, 0x08, 0));
    t_pump();
    CHECK(write_done(&p));
    /* One XOFF counted (the XON is not a pause), paused 100 us. */
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(3, ROCX_STAT_PRIO_RX_PAUSE)), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(3, ROCX_STAT_PRIO_RX_PAUSE_DURATION)),
             100);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * Priority 3 paused, priority 1 not: a QP at 1 completes while one at 3
 * waits; a PFC frame naming a priority without PFC changes nothing and
 * is dropped as any MAC control frame is.
 */
static void t_pfc_other_priorities(void)
{
    Pair p3, p1;
    uint8_t f[60];

    pfc_on(A, 0x08);
    pair(&p3, 3);
    pair(&p1, 1);
    t_inject(A, f, pfc_frame(f, 0x0a, 0xffff));   /* 1 and 3; 1 is lossy */
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(1, ROCX_STAT_PRIO_RX_PAUSE)), 0);
    write16k(&p3, 9);
    write16k(&p1, 10);
    t_pump();
    CHECK(write_done(&p1));
    CHECK(!write_done(&p3));
    t_inject(A, f, pfc_frame(f, 0x02, 0xffff));   /* 1 alone: ignored */
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_DROPPED_FILTER), 1);
    t_inject(A, f, pfc_frame(f, 0x08, 0));
    t_pump();
    CHECK(write_done(&p3));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* Two QPs of one device talk inside it: no link, no pause. */
static void t_pfc_loopback_not_paused(void)
{
    TCq cq;
    TQp a, b;
    TMr mr;
    TConn conn;
    struct rocx_sge sge;
    struct rocx_cqe e;
    uint8_t f[60];

    pfc_on(A, 0x01);
    CHECK_EQ(t_create_cq(A, &cq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &a, &cq, &cq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &b, &cq, &cq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &mr, t_alloc(A, 65536, T_PAGE), 65536, all_access),
             ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&a, &b, &conn);
    t_inject(A, f, pfc_frame(f, 0x01, 0xffff));
    t_fill(t_ptr(A, mr.off, 4096), 4096, 11);
    sge = t_sge(&mr, 0, 4096);
    t_post_send(&a, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                mr.iova + 32768, mr.key, 0);
    t_ring_sq(&a);
    t_pump();
    CHECK(t_poll(&cq, &e));
    CHECK_EQ(st(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(A, mr.off, 4096), t_ptr(A, mr.off + 32768, 4096),
                  4096));
    CHECK_EQ(A->f->gerrs, 0);
}

/*
 * 802.3x PAUSE with pause honoured pauses every priority, counted as
 * link pause; without it (the default) it is dropped.  At 10000 Mb/s
 * 0xffff quanta last 65535 x 51.2 ns = 3355.392 us.
 */
static void t_link_pause(void)
{
    struct rocx_dcb_cfg c;
    Pair p;
    uint8_t f[60];
    unsigned sent;

    CHECK(rocx_core_set_speed(&A->f->core, 10000));
    pair(&p, 5);
    t_inject(A, f, pause_frame(f, 0xffff));
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_DROPPED_FILTER), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_PAUSE), 0);

    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_DCB_PAUSE);
    c.pause = ROCX_PAUSE_RX;
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_OK);
    t_inject(A, f, pause_frame(f, 0xffff));
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_PAUSE), 1);
    sent = A->f->nframes;
    write16k(&p, 12);
    fake_advance(A->f, 3355 * USEC);
    fake_advance(B->f, 3355 * USEC);
    t_pump();
    CHECK_EQ(A->f->nframes, sent);
    fake_advance(A->f, USEC);
    fake_advance(B->f, USEC);
    t_settle(SEC);
    CHECK(write_done(&p));
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_PAUSE_DURATION), 3355);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* Turning PFC off for a paused priority lets it go at once. */
static void t_pfc_off_resumes(void)
{
    Pair p;
    uint8_t f[60];

    pfc_on(A, 0x10);
    pair(&p, 4);
    t_inject(A, f, pfc_frame(f, 0x10, 0xffff));
    write16k(&p, 13);
    t_pump();
    CHECK(!write_done(&p));
    pfc_on(A, 0);
    t_pump();
    CHECK(write_done(&p));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* Received frames are counted in the priority their PCP names. */
static void t_rx_prio_counters(void)
{
    Pair p;
    TConn conn;
    struct rocx_sge sge;

    CHECK_EQ(t_create_cq(A, &p.acq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &p.bcq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &p.qa, &p.acq, &p.acq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &p.qb, &p.bcq, &p.bcq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &p.amr, t_alloc(A, 65536, T_PAGE), 65536,
                      all_access), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &p.bmr, t_alloc(B, 65536, T_PAGE), 65536,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.prio = 6;
    t_connect(&p.qa, &p.qb, &conn);
    sge = t_sge(&p.amr, 0, 100);
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                p.bmr.iova, p.bmr.key, 0);
    t_ring_sq(&p.qa);
    t_settle(SEC);
    /* Sent at priority 6; untagged, so B (PCP trust) sees priority 0. */
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(6, ROCX_STAT_PRIO_TX_PACKETS)), 1);
    CHECK(t_stat(A, ROCX_STAT_PRIO(6, ROCX_STAT_PRIO_TX_BYTES)) > 100);
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_RX_PACKETS)), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_RX_PACKETS)), 1);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* ---- Pause sent ---- */

/* An untagged broadcast frame of 1000 bytes (priority 0 under PCP trust). */
static size_t bcast(uint8_t *f)
{
    memset(f, 0, 1000);
    memset(f, 0xff, 6);
    f[6] = 0x02;
    f[11] = 0x77;
    f[12] = 0x88;
    f[13] = 0xb5;
    return 1000;
}

/*
 * B's driver posts no RX buffer while broadcast frames arrive at
 * priority 0, lossless on both sides.  Crossing xoff (43404 bytes: the
 * 44th frame of 1000) B sends one XOFF, which pauses A's QP of that
 * priority; when B's driver posts buffers and the buffer falls to xon
 * (25368 bytes) B sends XON and A's WRITE goes.  No frame is lost.
 */
static void t_pfc_xoff_xon(void)
{
    Pair p;
    uint8_t f[1000];
    unsigned i, sent;

    pfc_on(A, 0x01);
    pfc_on(B, 0x01);
    pair(&p, 0);
    t_rx_ring(B, 0, NULL);
    for (i = 0; i < 43; i++) {
        t_wire_push(B, f, bcast(f));
    }
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_TX_PAUSE)), 0);
    t_wire_push(B, f, bcast(f));
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_TX_PAUSE)), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_RX_PAUSE)), 1);
    CHECK_EQ(B->f->xoffs_sent, 1);
    CHECK_EQ(A->f->xoffs_received, 1);
    CHECK_EQ(A->f->last_pause_prio, 0);
    sent = A->f->nframes;
    write16k(&p, 14);
    t_pump();
    CHECK_EQ(A->f->nframes, sent);
    /* 18 frames taken leave 26000 bytes: above xon, still paused. */
    t_db(B, 0, ROCX_DB_ETH_RX, 0, 18, 0);
    t_pump();
    CHECK(!write_done(&p));
    /* One more: 25000 bytes, at or below xon. */
    t_db(B, 0, ROCX_DB_ETH_RX, 0, 19, 0);
    t_pump();
    CHECK(write_done(&p));
    CHECK_EQ(B->f->xons_sent, 1);
    CHECK_EQ(A->f->xons_received, 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_DISCARDS), 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_RX_BUF_MAX)), 44000);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * While the buffer stays above xon, B repeats the XOFF every half of the
 * pause time, so the partner never resumes into a full buffer: at 1000
 * Mb/s 0xffff quanta last 33553.92 us, repeated after 16776.96 us.
 */
static void t_pfc_xoff_refresh(void)
{
    uint8_t f[1000];
    unsigned i;

    CHECK(rocx_core_set_speed(&B->f->core, 1000));
    pfc_on(B, 0x01);
    t_rx_ring(B, 0, NULL);
    for (i = 0; i < 44; i++) {
        t_wire_push(B, f, bcast(f));
    }
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_TX_PAUSE)), 1);
    fake_advance(B->f, 16776 * USEC);
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_TX_PAUSE)), 1);
    fake_advance(B->f, USEC);
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_TX_PAUSE)), 2);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_DISCARDS), 0);
    CHECK_EQ(B->f->gerrs, 0);
}

/*
 * The shortest pause the device accepts, on the fastest line: the XOFF
 * is repeated at most every 10 us (0x4000 quanta at 400 Gb/s last
 * 20.97 us, repeated after 10.49 us), and still before the partner's
 * pause runs out.  Time passes in steps of 1 us for 210 us.
 */
static void t_pfc_refresh_bound(void)
{
    struct rocx_dcb_cfg c;
    uint8_t f[1000];
    uint16_t quanta;
    uint64_t n;
    unsigned i;

    CHECK(rocx_core_set_speed(&B->f->core, 400000));
    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_DCB_PFC);
    c.pfc_en = 0x01;
    for (quanta = 1; quanta; quanta <<= 1) {
        c.pfc_quanta = htole16(quanta);
        if (set_dcb(B, &c) == ROCX_AQ_STS_OK) {
            break;
        }
    }
    CHECK_EQ(quanta, 0x4000);
    t_rx_ring(B, 0, NULL);
    for (i = 0; i < 44; i++) {
        t_wire_push(B, f, bcast(f));
    }
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_TX_PAUSE)), 1);
    for (i = 0; i < 210; i++) {
        fake_advance(B->f, USEC);
        t_pump();
    }
    n = t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_TX_PAUSE));
    CHECK(n <= 1 + 210 / 10);
    CHECK(n >= 1 + 210 / 11);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_DISCARDS), 0);
    CHECK_EQ(B->f->gerrs, 0);
}

/* Frame i of d is a PFC frame (opcode 0x0101) for priority 0 with q. */
static bool is_pfc0(TDev *d, unsigned i, uint16_t q)
{
    const uint8_t *fr = d->f->frames[i];

    return i < d->f->nframes && lduw_be_p(fr + 12) == 0x8808 &&
           lduw_be_p(fr + 14) == 0x0101 && lduw_be_p(fr + 16) == 0x01 &&
           lduw_be_p(fr + 18) == q;
}

/*
 * A pause frame the device sends is not scheduled: it takes the line
 * right after the frames already handed to the network, ahead of every
 * frame the scheduler has not started, and its line time counts.  A at
 * 1000 Mb/s has 64 KiB of WRITEs queued at priority 1; the scheduler
 * hands over 200 us of line time ahead of the clock and stops.  The
 * broadcast that fills priority 0 past xoff sends the XOFF as A's very
 * next frame, and the line is busy 640 ns longer (60 bytes and the 20
 * of preamble and gap at 1 Gb/s).
 * Later, in one engine run, RX buffers bring priority 0 to xon and the
 * line clock lets the scheduler start more WRITE frames: the XON leads
 * them.
 */
static void t_pause_frame_leads(void)
{
    uint8_t f[1000];
    int64_t line;
    unsigned i, n;
    Pair p;

    CHECK(rocx_core_set_speed(&A->f->core, 1000));
    pfc_on(A, 0x01);
    pair(&p, 1);
    t_rx_ring(A, 0, NULL);
    for (i = 0; i < 4; i++) {
        write16k(&p, 18);
    }
    t_pump_still();
    line = A->f->core.sched.line_free;
    CHECK(line > A->f->now + 150 * USEC);
    for (i = 0; i < 43; i++) {
        t_inject(A, f, bcast(f));
    }
    A->f->nframes = n = 0;      /* the fake keeps the first 16 */
    t_inject(A, f, bcast(f));
    CHECK_EQ(A->f->nframes, n + 1);
    CHECK(is_pfc0(A, n, 0xffff));
    CHECK_EQ(A->f->core.sched.line_free - line, 640);

    /* The scheduler's wake-up is due: it runs after the RX drain. */
    fake_advance(A->f, 150 * USEC);
    A->f->nframes = n = 0;
    t_db(A, 0, ROCX_DB_ETH_RX, 0, 19, 0);
    t_pump_still();
    CHECK(A->f->nframes > n + 1);
    CHECK(is_pfc0(A, n, 0));
    CHECK_EQ(lduw_be_p(A->f->frames[n + 1] + 12), 0x0800);
    t_settle(SEC);
    CHECK_EQ(t_stat(A, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_TX_PAUSE)), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_DISCARDS), 0);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * Link pause sent (SET_DCB pause bit 1, PFC off): B's receive buffer
 * crossing xoff on a priority sends one 802.3x PAUSE (opcode 0x0001,
 * pause time pfc_quanta) from B's MAC, repeated at half its time while
 * the buffer stays above xon, and a PAUSE of time 0 once every priority
 * is at or below xon.  A, honouring pause, stops its QP of priority 5
 * meanwhile.  TX_PAUSE counts the PAUSEs that ask for time,
 * TX_PAUSE_DURATION how long B asked: at 1000 Mb/s 0xffff quanta last
 * 33553.92 us, repeated after 16776.96 us.
 */
static void t_link_pause_sent(void)
{
    static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
    struct rocx_dcb_cfg c;
    const uint8_t *fr;
    uint8_t f[1000];
    unsigned i, n, sent;
    Pair p;

    CHECK(rocx_core_set_speed(&B->f->core, 1000));
    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_DCB_PAUSE);
    c.pause = ROCX_PAUSE_RX;
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_OK);
    c.pause = ROCX_PAUSE_RX | ROCX_PAUSE_TX;
    CHECK_EQ(set_dcb(B, &c), ROCX_AQ_STS_OK);
    pair(&p, 5);
    t_rx_ring(B, 0, NULL);
    for (i = 0; i < 43; i++) {
        t_wire_push(B, f, bcast(f));
    }
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_TX_PAUSE), 0);
    n = B->f->nframes;
    t_wire_push(B, f, bcast(f));
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_TX_PAUSE), 1);
    CHECK_EQ(B->f->xoffs_sent, 1);
    CHECK_EQ(B->f->last_pause_prio, -1);
    CHECK(B->f->nframes > n);
    fr = B->f->frames[n];
    CHECK_EQ(B->f->frame_len[n], 60);
    CHECK(!memcmp(fr, dst, 6));
    CHECK(!memcmp(fr + 6, fake_mac, 6));    /* the port's own MAC */
    CHECK_EQ(lduw_be_p(fr + 12), 0x8808);
    CHECK_EQ(lduw_be_p(fr + 14), 0x0001);
    CHECK_EQ(lduw_be_p(fr + 16), 0xffff);
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_PAUSE), 1);
    sent = A->f->nframes;
    write16k(&p, 17);
    t_pump();
    CHECK_EQ(A->f->nframes, sent);

    fake_advance(B->f, 16776 * USEC);
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_TX_PAUSE), 1);
    fake_advance(B->f, USEC);
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_TX_PAUSE), 2);
    CHECK_EQ(t_stat(A, ROCX_STAT_RX_PAUSE), 2);

    /* 18 frames taken leave 26000 bytes: above xon, still paused. */
    t_db(B, 0, ROCX_DB_ETH_RX, 0, 18, 0);
    t_pump();
    CHECK(!write_done(&p));
    /* One more: 25000 bytes, at or below xon: PAUSE 0 resumes A. */
    n = B->f->nframes;
    t_db(B, 0, ROCX_DB_ETH_RX, 0, 19, 0);
    t_pump();
    CHECK_EQ(B->f->xons_sent, 1);
    CHECK_EQ(lduw_be_p(B->f->frames[n] + 14), 0x0001);
    CHECK_EQ(lduw_be_p(B->f->frames[n] + 16), 0);
    CHECK(write_done(&p));
    CHECK_EQ(t_stat(B, ROCX_STAT_TX_PAUSE), 2);
    CHECK_EQ(t_stat(B, ROCX_STAT_TX_PAUSE_DURATION), 16777);
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_TX_PAUSE)), 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_DISCARDS), 0);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/*
 * Under PCP trust an untagged path of a lossless priority goes out
 * priority-tagged (VLAN 0, PCP 3), so the partner can pause it; B, also
 * trusting PCP, counts it in priority 3.  Under DSCP trust it goes
 * untagged and B finds priority 3 through its DSCP map.
 */
static void t_prio_tagging(void)
{
    struct rocx_dcb_cfg c;
    Pair p, q;
    const uint8_t *fr;
    uint64_t before;

    pfc_on(A, 0x08);
    pair(&p, 3);
    write16k(&p, 15);
    t_settle(SEC);
    CHECK(write_done(&p));
    CHECK(A->f->nframes > 0);
    fr = A->f->frames[0];
    CHECK_EQ(lduw_be_p(fr + 12), 0x8100);
    CHECK_EQ(lduw_be_p(fr + 14), 3 << 13);  /* PCP 3, VLAN 0 */
    CHECK_EQ(lduw_be_p(fr + 16), 0x0800);
    CHECK(t_stat(B, ROCX_STAT_PRIO(3, ROCX_STAT_PRIO_RX_PACKETS)) >= 16);

    /* DSCP trust on both: untagged, DSCP 26 (AF31) mapped to 3 at B. */
    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_DCB_TRUST | ROCX_DCB_DSCP2PRIO);
    c.trust = ROCX_TRUST_DSCP;
    c.dscp2prio[26] = 3;
    CHECK_EQ(set_dcb(A, &c), ROCX_AQ_STS_OK);
    CHECK_EQ(set_dcb(B, &c), ROCX_AQ_STS_OK);
    pair_tc(&q, 3, 26 << 2);
    A->f->nframes = 0;
    before = t_stat(B, ROCX_STAT_PRIO(3, ROCX_STAT_PRIO_RX_PACKETS));
    write16k(&q, 16);
    t_settle(SEC);
    CHECK(write_done(&q));
    fr = A->f->frames[0];
    CHECK_EQ(lduw_be_p(fr + 12), 0x0800);   /* untagged */
    CHECK_EQ(fr[15] >> 2, 26);
    CHECK(t_stat(B, ROCX_STAT_PRIO(3, ROCX_STAT_PRIO_RX_PACKETS)) >=
          before + 16);
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

const TCase t_cases_dcb[] = {
    T_CASE(dcb_defaults),
    T_CASE(dcb_set_query),
    T_CASE(dcb_rules),
    T_CASE(link_speed),
    T_CASE(pfc_pause_expires),
    T_CASE(pfc_resume),
    T_CASE(pfc_other_priorities),
    T_CASE(pfc_loopback_not_paused),
    T_CASE(link_pause),
    T_CASE(pfc_off_resumes),
    T_CASE(rx_prio_counters),
    T_CASE(pfc_xoff_xon),
    T_CASE(pfc_xoff_refresh),
    T_CASE(pfc_refresh_bound),
    T_CASE(link_pause_sent),
    T_CASE(pause_frame_leads),
    T_CASE(prio_tagging),
};
const unsigned t_ncases_dcb = ARRAY_SIZE(t_cases_dcb);
