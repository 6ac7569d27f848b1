/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ECN and congestion control (rocx-cc.c): SET_CC/QUERY_CC and their rules,
 * ECT(0) on RoCE v2 data, the notification point (a CE-marked packet makes
 * a CNP, byte for byte, at most one per QP per interval; RoCE v1 never),
 * and the reaction point's DCQCN on the fake clock.
 *
 * Expected rates and alphas are worked out here from the paper's update
 * equations in floating point (Zhu et al., SIGCOMM 2015: R_T = R_C,
 * R_C = R_C (1 - alpha/2), alpha = (1 - g) alpha + g on a CNP; alpha =
 * (1 - g) alpha per period without one; R_C = (R_T + R_C) / 2 per
 * increase step, R_T += R_AI or i R_HAI past the threshold), not taken
 * from the model: the model works in fixed point, so the checks allow
 * the rounding that costs (a unit per step at most).
 */
#include <math.h>
#include <zlib.h>
#include "rdma.h"

#define USEC            1000LL
#define MSEC            (1000 * USEC)
#define SEC             (1000 * MSEC)
#define LINE            1000            /* Mb/s: the port in these cases */

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

/* ---- Commands ---- */

static unsigned query_cc(TDev *d, struct rocx_cc_cfg *out)
{
    return t_cfg_query(d, ROCX_AQ_OP_QUERY_CC, out, sizeof(*out));
}

static unsigned set_cc(TDev *d, const struct rocx_cc_cfg *in)
{
    return t_cfg_set(d, ROCX_AQ_OP_SET_CC, in, sizeof(*in));
}

/* SET_CC of one 32-bit field (by its valid bit and offset). */
static unsigned set_one(TDev *d, uint32_t bit, size_t off, uint32_t v)
{
    struct rocx_cc_cfg c;

    memset(&c, 0, sizeof(c));
    c.valid = htole32(bit);
    stl_le_p((uint8_t *)&c + off, v);
    return set_cc(d, &c);
}

#define SET(d, bit, field, v) \
    set_one(d, ROCX_CC_##bit, offsetof(struct rocx_cc_cfg, field), v)

/* ---- A connected pair, A sending to B ---- */

typedef struct Pair {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
} Pair;

static void pair_net(Pair *p, uint8_t net_type, uint8_t prio)
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
    conn.net_type = net_type;
    conn.prio = prio;
    conn.tclass = 26 << 2;              /* DSCP 26, ECN bits 0 */
    t_connect(&p->qa, &p->qb, &conn);
}

static void pair(Pair *p)
{
    pair_net(p, ROCX_NET_ROCE_V2_IPV4, 0);
}

/* A writes n bytes to B and the WRITE completes, data checked. */
static void write_n(Pair *p, uint32_t n, uint32_t seed)
{
    struct rocx_sge sge = t_sge(&p->amr, 0, n);
    struct rocx_cqe e;

    t_fill(t_ptr(A, p->amr.off, n), n, seed);
    t_post_send(&p->qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                p->bmr.iova, p->bmr.key, 0);
    t_ring_sq(&p->qa);
    /* Without loss nothing waits for a timer: the clock stays. */
    t_pump();
    CHECK(t_poll(&p->acq, &e));
    CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(A, p->amr.off, n), t_ptr(B, p->bmr.off, n), n));
}

static RocxQp *model_qp(TDev *d, TQp *q)
{
    return rocx_qp_get(&d->f->core, q->qpn);
}

static void advance(int64_t ns)
{
    fake_advance(A->f, ns);
    fake_advance(B->f, ns);
}

/*
 * d's reaction point with no timer due for seconds: a case about the
 * notification point moves its clock itself, and no rate step happens
 * meanwhile.
 */
static void rp_quiet(TDev *d)
{
    CHECK_EQ(SET(d, RP_TIME_RESET, rp_time_reset, ROCX_CC_TIME_MAX_US),
             ROCX_AQ_STS_OK);
    CHECK_EQ(SET(d, RP_RTT, rp_dce_tcp_rtt, ROCX_CC_TIME_MAX_US),
             ROCX_AQ_STS_OK);
}

/* ---- Frames: IPv4 RoCE v2, untagged or one tag ---- */

static size_t l2_len(const uint8_t *f)
{
    return lduw_be_p(f + 12) == 0x8100 ? 18 : 14;
}

static bool is_roce4(const uint8_t *f, size_t len)
{
    size_t l2 = l2_len(f);

    return len >= l2 + 20 + 8 + 12 && lduw_be_p(f + l2 - 2) == 0x0800 &&
           f[l2 + 9] == 17 && lduw_be_p(f + l2 + 22) == 4791;
}

static uint16_t ip_csum(const uint8_t *h)
{
    uint32_t s = 0;
    unsigned i;

    for (i = 0; i < 20; i += 2) {
        s += lduw_be_p(h + i);
    }
    while (s >> 16) {
        s = (s & 0xffff) + (s >> 16);
    }
    return ~s & 0xffff;
}

/* The ICRC of an IPv4 RoCE v2 packet of len bytes at ip (IBTA A17.3.3). */
static uint32_t ref_icrc4(const uint8_t *ip, size_t len)
{
    static const uint8_t ones[8] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    };
    uint8_t m[ROCX_MAX_FRAME];
    uint32_t crc;

    memcpy(m, ip, len - 4);
    m[1] = 0xff;                        /* TOS */
    m[8] = 0xff;                        /* TTL */
    m[10] = m[11] = 0xff;               /* header checksum */
    m[26] = m[27] = 0xff;               /* UDP checksum */
    m[28 + 4] = 0xff;                   /* BTH FECN, BECN, reserved */
    crc = crc32(0, ones, 8);
    return crc32(crc, m, len - 4);
}

/* What the wire does to frames from A: mark CE, as a congested switch. */
static bool mark_a;
static unsigned marked;
/* CNPs B sent: the last one kept. */
static unsigned cnps;
static uint8_t cnp[ROCX_MAX_FRAME];
static size_t cnp_len;

static bool cc_wire(TDev *from, uint8_t *f, size_t *len)
{
    size_t l2 = l2_len(f);

    if (!is_roce4(f, *len)) {
        return true;
    }
    if (from == B && f[l2 + 28] == 0x81) {
        cnps++;
        if (verbose) {
            fprintf(stderr, "CNP at %lld marked %u\n", (long long)B->f->now, marked);
        }
        memcpy(cnp, f, *len);
        cnp_len = *len;
    }
    if (from == A && mark_a && (f[l2 + 1] & 3)) {
        /* Only ECN-capable packets are marked; the checksum follows. */
        f[l2 + 1] |= 3;
        stw_be_p(f + l2 + 10, 0);
        stw_be_p(f + l2 + 10, ip_csum(f + l2));
        marked++;
    }
    return true;
}

static void wire_on(void)
{
    mark_a = true;
    marked = 0;
    cnps = 0;
    cnp_len = 0;
    wire.filter = cc_wire;
}

/* ---- Configuration ---- */

static void t_cc_defaults(void)
{
    struct rocx_cc_cfg c;
    unsigned i;

    CHECK_EQ(query_cc(A, &c), ROCX_AQ_STS_OK);
    CHECK_EQ(le32toh(c.valid), ROCX_CC_ALL);
    CHECK_EQ(c.np_en, 0xff);
    CHECK_EQ(c.rp_en, 0xff);
    CHECK_EQ(c.np_cnp_dscp, 48);
    CHECK_EQ(c.np_cnp_prio, 6);
    CHECK_EQ(le32toh(c.np_min_time_between_cnps), 4);
    CHECK_EQ(le32toh(c.rp_initial_alpha_value), 1023);
    CHECK_EQ(le32toh(c.rp_dce_tcp_g), 1019);
    CHECK_EQ(le32toh(c.rp_dce_tcp_rtt), 1);
    CHECK_EQ(le32toh(c.rp_gd), 11);
    CHECK_EQ(le32toh(c.rp_min_dec_fac), 50);
    CHECK_EQ(le32toh(c.rp_rate_to_set_on_first_cnp), 0);
    CHECK_EQ(le32toh(c.rp_min_rate), 1);
    CHECK_EQ(le32toh(c.rp_ai_rate), 5);
    CHECK_EQ(le32toh(c.rp_hai_rate), 50);
    CHECK_EQ(le32toh(c.rp_time_reset), 300);
    CHECK_EQ(le32toh(c.rp_byte_reset), 32767);
    CHECK_EQ(le32toh(c.rp_threshold), 1);
    CHECK_EQ(le32toh(c.rp_clamp_tgt_rate), 0);
    for (i = 0; i < sizeof(c.rsvd); i++) {
        CHECK_EQ(c.rsvd[i], 0);
    }
}

/* Each field SET_CC selects reads back; the others stay; reset restores. */
static void t_cc_set_query(void)
{
    struct rocx_cc_cfg c, q;

    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_CC_NP_EN | ROCX_CC_NP_CNP_DSCP |
                      ROCX_CC_RP_AI_RATE | ROCX_CC_RP_BYTE_RESET);
    c.np_en = 0x0a;
    c.rp_en = 0x11;                     /* not selected: ignored */
    c.np_cnp_dscp = 63;
    c.rp_ai_rate = htole32(ROCX_CORE_MAX_SPEED);
    c.rp_byte_reset = htole32(0);
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_OK);
    CHECK_EQ(query_cc(A, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(q.np_en, 0x0a);
    CHECK_EQ(q.rp_en, 0xff);
    CHECK_EQ(q.np_cnp_dscp, 63);
    CHECK_EQ(q.np_cnp_prio, 6);
    CHECK_EQ(le32toh(q.rp_ai_rate), ROCX_CORE_MAX_SPEED);
    CHECK_EQ(le32toh(q.rp_byte_reset), 0);
    CHECK_EQ(le32toh(q.rp_hai_rate), 50);

    /* ROCX_CC_ALL with every field set at once, then back. */
    c = q;
    c.rp_en = 0x80;
    c.np_cnp_prio = 0;
    c.rp_threshold = htole32(31);
    c.rp_clamp_tgt_rate = htole32(1);
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_OK);
    CHECK_EQ(query_cc(A, &q), ROCX_AQ_STS_OK);
    CHECK(!memcmp(&c, &q, sizeof(c)));

    /* B is another device: untouched.  A reset restores A. */
    CHECK_EQ(query_cc(B, &q), ROCX_AQ_STS_OK);
    CHECK_EQ(q.np_en, 0xff);
    CHECK_EQ(t_stat(A, ROCX_STAT_AQ_ERRORS), 0);
}

/* Every rule of rocx-device.rst; a refused command changes nothing. */
static void t_cc_rules(void)
{
    struct rocx_cc_cfg before, after, c;
    union rocx_aq_cmd cmd;

    CHECK_EQ(query_cc(A, &before), ROCX_AQ_STS_OK);
#define BAD(bit, field, v) CHECK_EQ(SET(A, bit, field, v), ROCX_AQ_STS_INVALID)
#define GOOD(bit, field, v) CHECK_EQ(SET(A, bit, field, v), ROCX_AQ_STS_OK)
    BAD(NP_MIN_TIME, np_min_time_between_cnps, ROCX_CC_TIME_MAX_US + 1);
    BAD(RP_INITIAL_ALPHA, rp_initial_alpha_value, 1024);
    BAD(RP_G, rp_dce_tcp_g, 1024);
    BAD(RP_RTT, rp_dce_tcp_rtt, 0);
    BAD(RP_RTT, rp_dce_tcp_rtt, ROCX_CC_TIME_MAX_US + 1);
    BAD(RP_GD, rp_gd, 16);
    BAD(RP_MIN_DEC_FAC, rp_min_dec_fac, 0);
    BAD(RP_MIN_DEC_FAC, rp_min_dec_fac, 101);
    BAD(RP_FIRST_CNP_RATE, rp_rate_to_set_on_first_cnp,
        ROCX_CORE_MAX_SPEED + 1);
    BAD(RP_MIN_RATE, rp_min_rate, 0);
    BAD(RP_MIN_RATE, rp_min_rate, ROCX_CORE_MAX_SPEED + 1);
    BAD(RP_AI_RATE, rp_ai_rate, ROCX_CORE_MAX_SPEED + 1);
    BAD(RP_HAI_RATE, rp_hai_rate, ROCX_CORE_MAX_SPEED + 1);
    BAD(RP_TIME_RESET, rp_time_reset, 0);
    BAD(RP_BYTE_RESET, rp_byte_reset, ROCX_CC_BYTE_RESET_MAX + 1);
    BAD(RP_THRESHOLD, rp_threshold, 0);
    BAD(RP_THRESHOLD, rp_threshold, 32);
    BAD(RP_CLAMP_TGT_RATE, rp_clamp_tgt_rate, 2);

    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_CC_NP_CNP_DSCP);
    c.np_cnp_dscp = 64;
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_INVALID);
    c.valid = htole32(ROCX_CC_NP_CNP_PRIO);
    c.np_cnp_dscp = 0;
    c.np_cnp_prio = 8;
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_INVALID);
    /* A bad field with a good one: neither applies. */
    c.valid = htole32(ROCX_CC_NP_CNP_PRIO | ROCX_CC_NP_EN);
    c.np_en = 0x01;
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_INVALID);
    /* valid bits above 17, reserved bytes. */
    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_BIT(18));
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_INVALID);
    c.valid = htole32(ROCX_CC_NP_EN);
    c.rsvd[63] = 1;
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_INVALID);
    /* Short buffers, unreadable ones. */
    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_CC_NP_EN);
    memcpy(t_cfg_buf(A), &c, sizeof(c));
    CHECK_EQ(t_cfg_cmd(A, ROCX_AQ_OP_SET_CC, 127), ROCX_AQ_STS_INVALID);
    CHECK_EQ(t_cfg_cmd(A, ROCX_AQ_OP_QUERY_CC, 127), ROCX_AQ_STS_INVALID);
    cmd = t_cmd(ROCX_AQ_OP_SET_CC);
    cmd.cfg_buf.addr = htole64(T_GPA(FAKE_MEM_SIZE * 4));
    cmd.cfg_buf.len = htole32(128);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_DMA_ERROR);
    cmd = t_cmd(ROCX_AQ_OP_QUERY_CC);
    cmd.cfg_buf.addr = htole64(T_GPA(FAKE_MEM_SIZE * 4));
    cmd.cfg_buf.len = htole32(128);
    CHECK_EQ(t_aq(A, &cmd, NULL), ROCX_AQ_STS_DMA_ERROR);

    CHECK_EQ(query_cc(A, &after), ROCX_AQ_STS_OK);
    CHECK(!memcmp(&before, &after, sizeof(before)));

    /* The edges are accepted. */
    GOOD(NP_MIN_TIME, np_min_time_between_cnps, 0);
    GOOD(RP_GD, rp_gd, 15);
    GOOD(RP_G, rp_dce_tcp_g, 1023);
    GOOD(RP_MIN_DEC_FAC, rp_min_dec_fac, 100);
    GOOD(RP_BYTE_RESET, rp_byte_reset, ROCX_CC_BYTE_RESET_MAX);
    GOOD(RP_MIN_RATE, rp_min_rate, ROCX_CORE_MAX_SPEED);
#undef BAD
#undef GOOD
    /* The two buffers it could not reach are the guest's mistakes. */
    CHECK_EQ(A->f->gerrs, 2);
}

/* ---- ECT ---- */

static bool saw_ack, saw_data;
static uint8_t data_tos, ack_tos;
static uint16_t ack_sport;

static bool watch_tos(TDev *from, uint8_t *f, size_t *len)
{
    size_t l2 = l2_len(f);

    if (is_roce4(f, *len)) {
        if (from == A && f[l2 + 28] <= 0x0a) {
            saw_data = true;
            data_tos = f[l2 + 1];
        }
        if (from == B && f[l2 + 28] == 0x11) {
            saw_ack = true;
            ack_tos = f[l2 + 1];
            ack_sport = lduw_be_p(f + l2 + 20);
        }
    }
    return true;
}

/*
 * Data of a priority with rp_en leaves ECT(0), the DSCP kept; ACKs and
 * data of a priority without rp_en leave non-ECT.
 */
static void t_ect_marking(void)
{
    Pair p;
    struct rocx_cc_cfg c;

    pair_net(&p, ROCX_NET_ROCE_V2_IPV4, 2);
    wire.filter = watch_tos;
    write_n(&p, 8192, 1);
    CHECK(saw_data && saw_ack);
    CHECK_EQ(data_tos, 26 << 2 | 2);
    CHECK_EQ(ack_tos, 26 << 2);

    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_CC_RP_EN);
    c.rp_en = 0xff & ~(1u << 2);
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_OK);
    saw_data = false;
    write_n(&p, 8192, 2);
    CHECK(saw_data);
    CHECK_EQ(data_tos, 26 << 2);
    wire.filter = NULL;
}

/* ---- Notification point ---- */

/*
 * A CE-marked WRITE makes B send one CNP to A's QP; every byte of it is
 * what rocx-device.rst says, the ICRC computed here.
 */
static void t_np_cnp_format(void)
{
    Pair p;
    const uint8_t *ip, *udp, *bth;
    size_t l2;
    unsigned i;

    rp_quiet(A);
    pair(&p);
    /* The path's UDP source port, from an ACK of B's. */
    wire.filter = watch_tos;
    saw_ack = false;
    write_n(&p, 1024, 3);
    CHECK(saw_ack);
    wire_on();
    write_n(&p, 1024, 4);
    CHECK_EQ(marked, 1);
    CHECK_EQ(cnps, 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS), 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_NP_CNP_SENT), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_HANDLED), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_IGNORED), 0);
    CHECK_EQ(B->f->cnps_sent, 1);
    CHECK_EQ(A->f->cnps_handled, 1);

    /* Untagged (PCP trust, no PFC at priority 6): 14 + 20 + 8 + 32. */
    CHECK_EQ(cnp_len, 14 + 20 + 8 + 12 + 16 + 4);
    CHECK(!memcmp(cnp, A->mac, 6));
    CHECK(!memcmp(cnp + 6, B->mac, 6));
    CHECK_EQ(lduw_be_p(cnp + 12), 0x0800);
    l2 = 14;
    ip = cnp + l2;
    CHECK_EQ(ip[0], 0x45);
    CHECK_EQ(ip[1], 48 << 2);               /* DSCP 48, non-ECT */
    CHECK_EQ(lduw_be_p(ip + 2), 20 + 8 + 32);
    CHECK_EQ(lduw_be_p(ip + 6), 0x4000);    /* DF */
    CHECK_EQ(ip[9], 17);
    CHECK_EQ(ip_csum(ip), 0);
    CHECK(!memcmp(ip + 12, B->gid4 + 12, 4));
    CHECK(!memcmp(ip + 16, A->gid4 + 12, 4));
    udp = ip + 20;
    CHECK_EQ(lduw_be_p(udp), ack_sport);
    CHECK_EQ(lduw_be_p(udp + 2), 4791);
    CHECK_EQ(lduw_be_p(udp + 4), 8 + 32);
    CHECK_EQ(lduw_be_p(udp + 6), 0);
    bth = udp + 8;
    CHECK_EQ(bth[0], 0x81);
    CHECK_EQ(bth[1], 0);                    /* SE, MigReq, pad, TVer */
    CHECK_EQ(lduw_be_p(bth + 2), 0xffff);
    CHECK_EQ(bth[4], 0x40);                 /* BECN */
    CHECK_EQ(ldl_be_p(bth + 4) & 0xffffff, p.qa.qpn);
    CHECK_EQ(ldl_be_p(bth + 8), 0);         /* AckReq 0, PSN 0 */
    for (i = 0; i < 16; i++) {
        CHECK_EQ(bth[12 + i], 0);
    }
    CHECK_EQ((uint32_t)ldl_le_p(cnp + cnp_len - 4), ref_icrc4(ip, cnp_len - l2));
    wire.filter = NULL;
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* np_cnp_prio under PCP trust with PFC on for it: priority tagged. */
static void t_np_cnp_prio_tag(void)
{
    Pair p;
    struct rocx_dcb_cfg d;

    memset(&d, 0, sizeof(d));
    d.valid = htole32(ROCX_DCB_PFC);
    d.pfc_en = 1u << 5;
    d.pfc_quanta = htole16(0xffff);
    CHECK_EQ(t_cfg_set(B, ROCX_AQ_OP_SET_DCB, &d, sizeof(d)), ROCX_AQ_STS_OK);
    {
        struct rocx_cc_cfg c;

        memset(&c, 0, sizeof(c));
        c.valid = htole32(ROCX_CC_NP_CNP_PRIO | ROCX_CC_NP_CNP_DSCP);
        c.np_cnp_prio = 5;
        c.np_cnp_dscp = 46;
        CHECK_EQ(set_cc(B, &c), ROCX_AQ_STS_OK);
    }
    rp_quiet(A);
    pair(&p);
    wire_on();
    write_n(&p, 1024, 5);
    CHECK_EQ(cnps, 1);
    CHECK_EQ(cnp_len, 18 + 20 + 8 + 32);
    CHECK_EQ(lduw_be_p(cnp + 12), 0x8100);
    CHECK_EQ(lduw_be_p(cnp + 14), 5 << 13);     /* PCP 5, VLAN 0 */
    CHECK_EQ(cnp[18 + 1], 46 << 2);
    CHECK_EQ((uint32_t)ldl_le_p(cnp + cnp_len - 4),
             ref_icrc4(cnp + 18, cnp_len - 18));
    CHECK_EQ(t_stat(B, ROCX_STAT_PRIO(5, ROCX_STAT_PRIO_TX_PACKETS)), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_HANDLED), 1);
    wire.filter = NULL;
}

/*
 * At most one CNP per QP per np_min_time_between_cnps: a 16 KiB WRITE
 * (16 packets, all marked) at one instant makes one; after the interval
 * the next marked packet makes the next.
 */
static void t_np_rate_limit(void)
{
    Pair p;

    CHECK_EQ(SET(B, NP_MIN_TIME, np_min_time_between_cnps, 100),
             ROCX_AQ_STS_OK);
    rp_quiet(A);
    pair(&p);
    wire_on();
    write_n(&p, 16384, 6);
    CHECK_EQ(marked, 16);
    CHECK_EQ(t_stat(B, ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS), 16);
    CHECK_EQ(cnps, 1);
    advance(99 * USEC);
    write_n(&p, 1024, 7);
    CHECK_EQ(cnps, 1);                      /* 1 us short */
    advance(USEC);
    write_n(&p, 1024, 8);
    CHECK_EQ(cnps, 2);
    CHECK_EQ(t_stat(B, ROCX_STAT_NP_CNP_SENT), 2);
    /* 0: every marked packet. */
    CHECK_EQ(SET(B, NP_MIN_TIME, np_min_time_between_cnps, 0),
             ROCX_AQ_STS_OK);
    write_n(&p, 4096, 9);
    CHECK_EQ(cnps, 2 + 4);
    /* np_en off for priority 0: marks counted, no CNP. */
    {
        struct rocx_cc_cfg c;

        memset(&c, 0, sizeof(c));
        c.valid = htole32(ROCX_CC_NP_EN);
        c.np_en = 0xfe;
        CHECK_EQ(set_cc(B, &c), ROCX_AQ_STS_OK);
    }
    write_n(&p, 4096, 10);
    CHECK_EQ(cnps, 6);
    CHECK_EQ(t_stat(B, ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS), 16 + 2 + 4 + 4);
    wire.filter = NULL;
}

/*
 * cnp-delay (rocx-device.rst, "NIC delays"): a marked packet's CNP leaves
 * exactly the delay after the packet came, not a nanosecond before, while
 * np_min_time_between_cnps still counts from the arrivals; a CNP whose QP
 * went to ERR while it waited is not sent; a full line drops and counts.
 * The pipeline delays need a timed channel, and no delay may pass 100 us.
 */
static void t_np_cnp_delay(void)
{
    const int64_t delay = 50 * USEC;
    RocxCore *b = &B->f->core;
    Pair p;
    int64_t due;
    unsigned i;

    CHECK(rocx_core_set_delays(b, &(RocxDelays){
                                   .cnp_ns = ROCX_DELAY_MAX_NS + 1 }));
    CHECK(rocx_core_set_delays(b, &(RocxDelays){ .tx_ns = 1 }));
    CHECK(rocx_core_set_delays(b, &(RocxDelays){ .rx_ns = 1 }));
    CHECK_EQ(b->delay.cnp_ns, 0);
    CHECK(!rocx_core_set_delays(b, &(RocxDelays){ .cnp_ns = delay }));
    CHECK_EQ(SET(B, NP_MIN_TIME, np_min_time_between_cnps, 10),
             ROCX_AQ_STS_OK);
    rp_quiet(A);
    pair(&p);
    wire_on();
    write_n(&p, 1024, 3);
    CHECK_EQ(marked, 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS), 1);
    CHECK_EQ(cnps, 0);
    CHECK_EQ(b->cnp_line.count, 1);
    due = model_qp(B, &p.qb)->cc.last_cnp + delay;
    CHECK_EQ(b->cnp_line.slot[b->cnp_line.head].due, due);
    /* 10 us on, the interval is over though the first CNP still waits. */
    advance(10 * USEC);
    t_pump();
    write_n(&p, 1024, 4);
    CHECK_EQ(b->cnp_line.count, 2);
    CHECK_EQ(cnps, 0);
    advance(due - 1 - B->f->now);
    t_pump();
    CHECK_EQ(cnps, 0);
    advance(1);
    t_pump();
    CHECK_EQ(cnps, 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_HANDLED), 1);
    /* The second came 10 us and a line time after the first. */
    advance(11 * USEC);
    t_pump();
    CHECK_EQ(cnps, 2);
    CHECK_EQ(t_stat(B, ROCX_STAT_NP_CNP_SENT), 2);
    CHECK_EQ(b->cnp_line.count, 0);

    /* Decided, then the QP failed: nothing leaves for it. */
    advance(10 * USEC);
    t_pump();
    write_n(&p, 1024, 5);
    CHECK_EQ(b->cnp_line.count, 1);
    CHECK_EQ(t_to_state(&p.qb, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    advance(delay);
    t_pump();
    CHECK_EQ(cnps, 2);
    CHECK_EQ(b->cnp_line.count, 0);

    /* A full line: the CNPs beyond it are dropped and counted. */
    for (i = 0; i < ROCX_DELAY_CNP_SLOTS + 3; i++) {
        rocx_delay_cnp(b, model_qp(B, &p.qb), B->f->now);
    }
    CHECK_EQ(b->cnp_line.count, ROCX_DELAY_CNP_SLOTS);
    CHECK_EQ(b->rdma.stats.cnp_delay_full, 3);
    wire.filter = NULL;
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* Mark CE in RoCE v1's GRH traffic class: v1 has no ECN, no CNP. */
static bool mark_v1(TDev *from, uint8_t *f, size_t *len)
{
    if (from == A && lduw_be_p(f + 12) == 0x8915) {
        f[15] |= 3 << 4;                    /* traffic class [1:0] */
        marked++;
    }
    if (from == B && lduw_be_p(f + 12) == 0x8915 && f[14 + 40] == 0x81) {
        cnps++;
    }
    return true;
}

static void t_np_v1_ignored(void)
{
    Pair p;

    pair_net(&p, ROCX_NET_ROCE_V1, 0);
    marked = 0;
    cnps = 0;
    wire.filter = mark_v1;
    write_n(&p, 4096, 11);
    CHECK_EQ(marked, 4);
    CHECK_EQ(cnps, 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS), 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_NP_CNP_SENT), 0);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), 0);
    wire.filter = NULL;
}

/* ---- Reaction point ---- */

/* A CNP from B for A's QP of p, made here and injected into A. */
static void inject_cnp(Pair *p)
{
    uint8_t f[14 + 20 + 8 + 32];
    uint8_t *ip = f + 14, *udp = ip + 20, *bth = udp + 8;

    memset(f, 0, sizeof(f));
    memcpy(f, A->mac, 6);
    memcpy(f + 6, B->mac, 6);
    stw_be_p(f + 12, 0x0800);
    ip[0] = 0x45;
    ip[1] = 48 << 2;
    stw_be_p(ip + 2, sizeof(f) - 14);
    stw_be_p(ip + 6, 0x4000);
    ip[8] = 64;
    ip[9] = 17;
    memcpy(ip + 12, B->gid4 + 12, 4);
    memcpy(ip + 16, A->gid4 + 12, 4);
    stw_be_p(ip + 10, ip_csum(ip));
    stw_be_p(udp, 0xc000);
    stw_be_p(udp + 2, 4791);
    stw_be_p(udp + 4, sizeof(f) - 14 - 20);
    bth[0] = 0x81;
    stw_be_p(bth + 2, 0xffff);
    stl_be_p(bth + 4, p->qa.qpn);
    bth[4] = 0x40;
    stl_le_p(f + sizeof(f) - 4, ref_icrc4(ip, sizeof(f) - 14));
    t_inject(A, f, sizeof(f));
}

/* Rates and alpha of A's QP, from QUERY_QP (Mb/s, 1/1024). */
typedef struct Rates {
    double cur, tgt, alpha;
} Rates;

static Rates rates(Pair *p)
{
    struct rocx_qp_attr a;
    Rates r;

    CHECK_EQ(t_query(&p->qa, &a), ROCX_AQ_STS_OK);
    r.cur = le32toh(a.cc_cur_rate);
    r.tgt = le32toh(a.cc_tgt_rate);
    r.alpha = le32toh(a.cc_alpha);
    return r;
}

#define CHECK_NEAR(a, b, tol) do { \
        double a__ = (a), b__ = (b); \
        if (fabs(a__ - b__) > (tol)) { \
            t_fail(__FILE__, __LINE__, #a " ~ " #b, \
                   (unsigned long long)(a__ * 1000), \
                   (unsigned long long)(b__ * 1000)); \
        } \
    } while (0)

/*
 * The reaction point in these cases: port at LINE Mb/s; the increase
 * timer far away unless a case wants it.
 */
static void rp_setup(Pair *p)
{
    CHECK(rocx_core_set_speed(&A->f->core, LINE));
    pair(p);
    CHECK_EQ(SET(A, RP_TIME_RESET, rp_time_reset, ROCX_CC_TIME_MAX_US),
             ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_RTT, rp_dce_tcp_rtt, ROCX_CC_TIME_MAX_US),
             ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_BYTE_RESET, rp_byte_reset, 0), ROCX_AQ_STS_OK);
}

/*
 * Idle: line rate, initial alpha, unpaced.  The first CNP: R_T = line,
 * R_C = line (1 - alpha0 / 2), alpha = (1 - g) alpha0 + g.
 */
static void t_rp_first_cnp(void)
{
    Pair p;
    Rates r;
    double a0 = 1023 / 1024.0, g = 5 / 1024.0;

    rp_setup(&p);
    r = rates(&p);
    CHECK_EQ(r.cur, LINE);
    CHECK_EQ(r.tgt, LINE);
    CHECK_EQ(r.alpha, 1023);
    CHECK_EQ(model_qp(A, &p.qa)->cc.tx_rate_mbps, 0);

    inject_cnp(&p);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_HANDLED), 1);
    r = rates(&p);
    CHECK_NEAR(r.cur, LINE * (1 - a0 / 2), 1);
    CHECK_EQ(r.tgt, LINE);
    CHECK_NEAR(r.alpha, 1024 * ((1 - g) * a0 + g), 1);
    CHECK_EQ(model_qp(A, &p.qa)->cc.tx_rate_mbps, (uint32_t)r.cur);
    CHECK_EQ(A->f->gerrs, 0);
}

/*
 * k CNPs back to back: alpha_k = 1 - (1 - alpha0) (1 - g)^k, each cut by
 * the alpha before it; the target stays at line rate (not clamped, no
 * increase in between); with rp_clamp_tgt_rate it follows each cut.
 */
static void t_rp_alpha_after_k(void)
{
    Pair p;
    Rates r;
    double a = 1023 / 1024.0, g = 5 / 1024.0, rc = LINE, rt = LINE;
    unsigned k;

    rp_setup(&p);
    for (k = 1; k <= 8; k++) {
        rc *= 1 - a / 2;
        a = (1 - g) * a + g;
        inject_cnp(&p);
        r = rates(&p);
        CHECK_NEAR(r.alpha, 1024 * (1 - (1 - 1023 / 1024.0) *
                                    pow(1 - g, k)), k);
        CHECK_NEAR(r.alpha, 1024 * a, k);
        CHECK_NEAR(r.cur, rc, 1);
        CHECK_EQ(r.tgt, LINE);
    }
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_HANDLED), 8);

    /* Clamped: R_T = R_C before each cut. */
    CHECK_EQ(SET(A, RP_CLAMP_TGT_RATE, rp_clamp_tgt_rate, 1),
             ROCX_AQ_STS_OK);
    rt = rc;
    rc *= 1 - a / 2;
    inject_cnp(&p);
    r = rates(&p);
    CHECK_NEAR(r.tgt, rt, 1);
    CHECK_NEAR(r.cur, rc, 1);
}

/*
 * alpha without CNPs: alpha (1 - g)^n after n periods.  With g = 1/2
 * (rp_dce_tcp_g 512) the fixed point is exact: floor(alpha1 / 2^n).
 */
static void t_rp_alpha_decay(void)
{
    Pair p;
    Rates r;
    double a1;
    unsigned n;

    rp_setup(&p);
    CHECK_EQ(SET(A, RP_RTT, rp_dce_tcp_rtt, 10), ROCX_AQ_STS_OK);
    inject_cnp(&p);
    a1 = rates(&p).alpha;
    CHECK_NEAR(a1, 1024 * ((1 - 5 / 1024.0) * 1023 / 1024.0 + 5 / 1024.0),
               1);
    /* Default g: 1019/1024 per period. */
    for (n = 1; n <= 10; n++) {
        advance(10 * USEC);
        t_pump();
        CHECK_NEAR(rates(&p).alpha, a1 * pow(1019 / 1024.0, n), n);
    }
    /* 9 us more is no period. */
    advance(9 * USEC);
    t_pump();
    CHECK_NEAR(rates(&p).alpha, a1 * pow(1019 / 1024.0, 10), 10);

    /* g = 1/2 from a fresh CNP: alpha' = alpha / 2 + 512. */
    CHECK_EQ(SET(A, RP_G, rp_dce_tcp_g, 512), ROCX_AQ_STS_OK);
    r = rates(&p);
    inject_cnp(&p);
    a1 = floor(r.alpha / 2) + 512;
    CHECK_EQ(rates(&p).alpha, a1);
    for (n = 1; n <= 12; n++) {
        advance(10 * USEC);
        t_pump();
        CHECK_EQ(rates(&p).alpha, floor(a1 / pow(2, n)));
    }
    /* A late wake-up catches up on every period it missed. */
    inject_cnp(&p);
    a1 = rates(&p).alpha;
    advance(35 * USEC);
    t_pump();
    CHECK_EQ(rates(&p).alpha, floor(a1 / 8));
}

/*
 * CNPs 6 us apart at the default g and a 1 us alpha period, from alpha
 * 0: alpha climbs towards 5/1024 / (1 - (1019/1024)^7), about 176/1024,
 * as the paper's real-valued rule gives.  Kept in 1/1024 it stayed at
 * 5/1024 or less, each period rounding a whole unit away.
 */
static void t_rp_alpha_builds_up(void)
{
    Pair p;
    double a = 0;
    unsigned k, n;

    rp_setup(&p);
    CHECK_EQ(SET(A, RP_RTT, rp_dce_tcp_rtt, 1), ROCX_AQ_STS_OK);
    inject_cnp(&p);
    /* 1023/1024 down to 0: under 2000 periods. */
    for (n = 0; n < 30; n++) {
        advance(100 * USEC);
        t_pump();
    }
    CHECK_EQ(rates(&p).alpha, 0);
    for (k = 0; k < 60; k++) {
        inject_cnp(&p);
        a = a * 1019 / 1024 + 5 / 1024.0;
        CHECK_NEAR(rates(&p).alpha, floor(1024 * a), 1);
        for (n = 0; n < 6; n++) {
            advance(USEC);
            t_pump();
            a = a * 1019 / 1024;
        }
    }
    CHECK(rates(&p).alpha > 100);
    CHECK_NEAR(rates(&p).alpha, 1024 * a, 1);
}

/*
 * Fast recovery: below the threshold each timer step halves the distance
 * to the target: R_T - R_C(n) = (R_T - R_C(0)) / 2^n, and the pacing
 * rate follows; at line rate again the QP is idle.
 */
static void t_rp_fast_recovery(void)
{
    Pair p;
    Rates r;
    double rc0, rt;
    unsigned n;

    rp_setup(&p);
    CHECK_EQ(SET(A, RP_THRESHOLD, rp_threshold, 31), ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_TIME_RESET, rp_time_reset, 55), ROCX_AQ_STS_OK);
    inject_cnp(&p);
    r = rates(&p);
    rc0 = r.cur;
    rt = r.tgt;
    CHECK_EQ(rt, LINE);
    for (n = 1; n <= 9; n++) {
        advance(55 * USEC);
        t_pump();
        r = rates(&p);
        CHECK_EQ(r.tgt, rt);
        CHECK_NEAR(r.cur, rt - (rt - rc0) / pow(2, n), 1);
        CHECK_EQ(model_qp(A, &p.qa)->cc.tx_rate_mbps, (uint32_t)r.cur);
    }
    /* (Line - cur) halves down to below a kb/s: idle, unpaced. */
    t_settle(SEC);
    r = rates(&p);
    CHECK_EQ(r.cur, LINE);
    CHECK_EQ(r.alpha, 1023);
    CHECK_EQ(model_qp(A, &p.qa)->cc.tx_rate_mbps, 0);
    CHECK(!model_qp(A, &p.qa)->cc.timer.pos);
}

/*
 * Additive increase: threshold 1, timer only.  Step 1 (T was 0) is fast
 * recovery; from step 2 on R_T += R_AI, then R_C = (R_C + R_T) / 2.  A
 * second CNP after a step takes R_T = R_C.
 */
static void t_rp_additive(void)
{
    Pair p;
    Rates r;
    double rc, rt, a;
    unsigned n;

    rp_setup(&p);
    CHECK_EQ(SET(A, RP_TIME_RESET, rp_time_reset, 100), ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_AI_RATE, rp_ai_rate, 20), ROCX_AQ_STS_OK);
    inject_cnp(&p);
    inject_cnp(&p);
    r = rates(&p);
    /* A second CNP before any step leaves R_T at line rate... */
    CHECK_EQ(r.tgt, LINE);
    /* ...and with R_T = line the first step recovers half the way. */
    rc = r.cur;
    rt = LINE;
    advance(100 * USEC);
    t_pump();
    rc = (rc + rt) / 2;
    CHECK_NEAR(rates(&p).cur, rc, 1);
    /* A CNP now: R_T = R_C, cut, counts restart. */
    a = rates(&p).alpha / 1024;
    rt = rc;
    rc *= 1 - a / 2;
    inject_cnp(&p);
    r = rates(&p);
    CHECK_NEAR(r.tgt, rt, 1);
    CHECK_NEAR(r.cur, rc, 1);
    advance(100 * USEC);
    t_pump();
    rc = (rc + rt) / 2;                     /* T was 0: fast recovery */
    CHECK_NEAR(rates(&p).tgt, rt, 1);
    CHECK_NEAR(rates(&p).cur, rc, 1);
    for (n = 2; n <= 6; n++) {
        advance(100 * USEC);
        t_pump();
        rt += 20;
        rc = (rc + rt) / 2;
        r = rates(&p);
        CHECK_NEAR(r.tgt, rt, 1);
        CHECK_NEAR(r.cur, rc, 2);
    }
}

/*
 * Hyper increase: both counts at the threshold, R_T += i R_HAI with i =
 * min(T, B) - threshold + 1; the byte counter steps every rp_byte_reset
 * bytes sent (rocx_cc_sent(), as the requester calls it per packet).
 */
static void t_rp_hyper(void)
{
    Pair p;
    RocxQp *qp;
    Rates r;
    double rc, rt;

    rp_setup(&p);
    CHECK_EQ(SET(A, RP_TIME_RESET, rp_time_reset, 100), ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_AI_RATE, rp_ai_rate, 10), ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_HAI_RATE, rp_hai_rate, 40), ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_BYTE_RESET, rp_byte_reset, 10000), ROCX_AQ_STS_OK);
    CHECK(rocx_core_set_speed(&A->f->core, 10000));
    qp = model_qp(A, &p.qa);
    /* Two CNPs with a step between: R_T well below line rate. */
    inject_cnp(&p);
    advance(100 * USEC);
    t_pump();                               /* T: 0 -> 1, fast recovery */
    inject_cnp(&p);
    r = rates(&p);
    rc = r.cur;
    rt = r.tgt;
    CHECK(rt < 9000);

    /* B event, T = 0, B = 0: fast recovery. */
    rocx_cc_sent(qp, 6000, A->f->now);
    CHECK_NEAR(rates(&p).cur, rc, 0.01);    /* 6000 bytes: no step yet */
    rocx_cc_sent(qp, 4000, A->f->now);
    rc = (rc + rt) / 2;
    CHECK_NEAR(rates(&p).cur, rc, 1);
    /* Timer, T = 0, B = 1: additive. */
    advance(100 * USEC);
    t_pump();
    rt += 10;
    rc = (rc + rt) / 2;
    CHECK_NEAR(rates(&p).tgt, rt, 1);
    CHECK_NEAR(rates(&p).cur, rc, 1);
    /* B event, T = 1, B = 1: hyper, i = 1. */
    rocx_cc_sent(qp, 10000, A->f->now);
    rt += 40;
    rc = (rc + rt) / 2;
    CHECK_NEAR(rates(&p).tgt, rt, 1);
    CHECK_NEAR(rates(&p).cur, rc, 1);
    /* Timer, T = 1, B = 2: hyper, i = 1.  Then two B events in one go. */
    advance(100 * USEC);
    t_pump();
    rt += 40;
    rc = (rc + rt) / 2;
    CHECK_NEAR(rates(&p).tgt, rt, 1);
    rocx_cc_sent(qp, 20000, A->f->now);      /* T = 2: i = 2, then 2 */
    rt += 80;
    rc = (rc + rt) / 2;
    rt += 80;
    rc = (rc + rt) / 2;
    r = rates(&p);
    CHECK_NEAR(r.tgt, rt, 1);
    CHECK_NEAR(r.cur, rc, 2);
    CHECK_EQ(qp->cc.tx_rate_mbps, (uint32_t)r.cur);
}

/*
 * The floors: each cut keeps rp_min_dec_fac percent at least (rp_gd 0
 * cuts everything: R_C(k) = R_C(k-1) / 2 exactly), and no cut goes
 * below rp_min_rate.
 */
static void t_rp_min_rate(void)
{
    Pair p;
    double rc = LINE;
    unsigned k;

    rp_setup(&p);
    CHECK_EQ(SET(A, RP_GD, rp_gd, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_MIN_RATE, rp_min_rate, 40), ROCX_AQ_STS_OK);
    for (k = 1; k <= 4; k++) {
        inject_cnp(&p);
        rc /= 2;
        CHECK_NEAR(rates(&p).cur, rc, 1);
    }
    inject_cnp(&p);                         /* 62.5 -> 40, not 31.25 */
    CHECK_EQ(rates(&p).cur, 40);
    inject_cnp(&p);
    CHECK_EQ(rates(&p).cur, 40);
    CHECK_EQ(model_qp(A, &p.qa)->cc.tx_rate_mbps, 40);
    /* rp_min_dec_fac 80: at most 20% per cut. */
    CHECK_EQ(SET(A, RP_MIN_RATE, rp_min_rate, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_MIN_DEC_FAC, rp_min_dec_fac, 80), ROCX_AQ_STS_OK);
    inject_cnp(&p);
    CHECK_EQ(rates(&p).cur, 32);
}

/*
 * rp_rate_to_set_on_first_cnp; clamp of the target at line rate when
 * the port slows; rp_en off: CNPs ignored, an active QP back at line
 * rate; a QP that leaves RTS is idle.
 */
static void t_rp_first_rate_and_en(void)
{
    Pair p;
    Rates r;
    struct rocx_cc_cfg c;

    rp_setup(&p);
    CHECK_EQ(SET(A, RP_FIRST_CNP_RATE, rp_rate_to_set_on_first_cnp, 300),
             ROCX_AQ_STS_OK);
    inject_cnp(&p);
    r = rates(&p);
    CHECK_EQ(r.cur, 300);
    CHECK_EQ(r.tgt, 300);
    /* Only the first: the next is a DCQCN cut. */
    inject_cnp(&p);
    CHECK(rates(&p).cur < 300 && rates(&p).cur >= 150);

    memset(&c, 0, sizeof(c));
    c.valid = htole32(ROCX_CC_RP_EN);
    c.rp_en = 0xfe;
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_OK);
    r = rates(&p);
    CHECK_EQ(r.cur, LINE);
    CHECK_EQ(model_qp(A, &p.qa)->cc.tx_rate_mbps, 0);
    inject_cnp(&p);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_IGNORED), 1);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_HANDLED), 2);
    CHECK_EQ(rates(&p).cur, LINE);

    c.rp_en = 0xff;
    CHECK_EQ(set_cc(A, &c), ROCX_AQ_STS_OK);
    inject_cnp(&p);
    CHECK(model_qp(A, &p.qa)->cc.timer.pos);
    CHECK_EQ(t_to_state(&p.qa, ROCX_QPS_ERR), ROCX_AQ_STS_OK);
    CHECK_EQ(model_qp(A, &p.qa)->cc.tx_rate_mbps, 0);
    CHECK(!model_qp(A, &p.qa)->cc.timer.pos);
    /* Not in RTS: the CNP is no QP's, dropped. */
    inject_cnp(&p);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_HANDLED), 3);
    CHECK_EQ(t_stat(A, ROCX_STAT_ROCE_RX_DROPPED), 1);
    CHECK_EQ(A->f->gerrs, 0);
}

/*
 * A QP destroyed, or the device reset, while its reaction point has
 * timers queued: the deadlines leave with it (ASan sees any that stays),
 * and a QP made in the same slot starts idle.
 */
static void t_rp_destroy_active(void)
{
    Pair p;
    TQp q2;

    rp_setup(&p);
    CHECK_EQ(SET(A, RP_TIME_RESET, rp_time_reset, 50), ROCX_AQ_STS_OK);
    CHECK_EQ(SET(A, RP_RTT, rp_dce_tcp_rtt, 7), ROCX_AQ_STS_OK);
    inject_cnp(&p);
    CHECK(model_qp(A, &p.qa)->cc.timer.pos);
    CHECK_EQ(t_destroy_qp(&p.qa), ROCX_AQ_STS_OK);
    advance(10 * MSEC);
    t_settle(SEC);
    CHECK_EQ(t_create_qp(A, &q2, &p.acq, &p.acq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(model_qp(A, &q2)->cc.tx_rate_mbps, 0);
    CHECK(!model_qp(A, &q2)->cc.active);
    CHECK_EQ(A->f->gerrs, 0);
}

/*
 * A QP cut to the floor, 1 Mb/s, waits 8.7 ms after each 1 KiB frame;
 * the increase step 300 us later raises its rate to half the line, and
 * the wait it is in shrinks with it (rocx-device.rst, "Transmit
 * scheduling", Pacing): a 64 KiB WRITE completes within 1.5 ms, where
 * waiting out the floor's pace after every frame would take 8.7 ms per
 * frame until the step came between two of them.
 */
static void t_rp_step_ends_floor_wait(void)
{
    struct rocx_sge sge;
    struct rocx_cqe e;
    Pair p;
    int64_t t0;
    unsigned k;
    bool done = false;

    rp_setup(&p);
    CHECK_EQ(SET(A, RP_TIME_RESET, rp_time_reset, 300), ROCX_AQ_STS_OK);
    for (k = 0; k < 16; k++) {
        inject_cnp(&p);
    }
    CHECK_EQ(rates(&p).cur, 1);
    sge = t_sge(&p.amr, 0, 65536);
    t_fill(t_ptr(A, p.amr.off, 65536), 65536, 77);
    t0 = A->f->now;
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &sge, 1,
                p.bmr.iova, p.bmr.key, 0);
    t_ring_sq(&p.qa);
    while (!done && A->f->now - t0 < 1500 * USEC) {
        t_pump();
        done = t_poll(&p.acq, &e);
        if (!done) {
            advance(50 * USEC);
        }
    }
    CHECK(done);
    CHECK(rates(&p).cur >= LINE / 2);
    CHECK(!memcmp(t_ptr(A, p.amr.off, 65536), t_ptr(B, p.bmr.off, 65536),
                  65536));
    CHECK_EQ(A->f->gerrs + B->f->gerrs, 0);
}

/* End to end: marks at B turn into CNPs that A reacts to. */
static void t_cc_loop(void)
{
    Pair p;
    Rates r;

    CHECK(rocx_core_set_speed(&A->f->core, LINE));
    CHECK_EQ(SET(B, NP_MIN_TIME, np_min_time_between_cnps, 0),
             ROCX_AQ_STS_OK);
    rp_quiet(A);
    pair(&p);
    wire_on();
    write_n(&p, 2048, 12);
    CHECK_EQ(cnps, 2);
    CHECK_EQ(t_stat(A, ROCX_STAT_RP_CNP_HANDLED), 2);
    r = rates(&p);
    CHECK(r.cur < LINE * 0.3);
    CHECK(model_qp(A, &p.qa)->cc.tx_rate_mbps > 0);
    wire.filter = NULL;
}

const TCase t_cases_cc[] = {
    T_CASE(cc_defaults),
    T_CASE(cc_set_query),
    T_CASE(cc_rules),
    T_CASE(ect_marking),
    T_CASE(np_cnp_format),
    T_CASE(np_cnp_prio_tag),
    T_CASE(np_rate_limit),
    T_CASE(np_cnp_delay),
    T_CASE(np_v1_ignored),
    T_CASE(rp_first_cnp),
    T_CASE(rp_alpha_after_k),
    T_CASE(rp_alpha_decay),
    T_CASE(rp_alpha_builds_up),
    T_CASE(rp_fast_recovery),
    T_CASE(rp_additive),
    T_CASE(rp_hyper),
    T_CASE(rp_min_rate),
    T_CASE(rp_first_rate_and_en),
    T_CASE(rp_destroy_active),
    T_CASE(rp_step_ends_floor_wait),
    T_CASE(cc_loop),
};
const unsigned t_ncases_cc = ARRAY_SIZE(t_cases_cc);
