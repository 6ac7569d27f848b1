/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RoCE on the wire: the headers the device builds (Ethernet, 802.1Q,
 * IPv4, IPv6, GRH, UDP, BTH and extended headers), the ICRC against an
 * independent bit-by-bit implementation and a published vector, bad
 * ICRCs, malformed frames of every kind, frames not for us, link state.
 */
#include "rdma.h"

/* ---- An independent ICRC: bitwise CRC-32 over the masked packet ---- */

static uint32_t ref_crc(uint32_t crc, const uint8_t *p, size_t n)
{
    size_t i;
    int k;

    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (k = 0; k < 8; k++) {
            crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
        }
    }
    return crc;
}

/*
 * l3: network header (IPv4, IPv6 or GRH), len: from l3 to the end of the
 * ICRC.  Masks as the IBTA's RoCE annexes say.
 */
static uint32_t ref_icrc(const uint8_t *l3, size_t len, int net)
{
    uint8_t m[ROCX_MAX_FRAME];
    static const uint8_t ones[8] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    };
    size_t bth;
    uint32_t crc;

    memcpy(m, l3, len - 4);
    if (net == ROCX_NET_ROCE_V2_IPV4) {
        m[1] = 0xff;
        m[8] = 0xff;
        m[10] = m[11] = 0xff;
        m[26] = m[27] = 0xff;
        bth = 28;
    } else {
        m[0] |= 0x0f;
        m[1] = m[2] = m[3] = 0xff;
        m[7] = 0xff;
        if (net == ROCX_NET_ROCE_V2_IPV6) {
            m[46] = m[47] = 0xff;
            bth = 48;
        } else {
            bth = 40;
        }
    }
    m[bth + 4] = 0xff;
    crc = ref_crc(0xffffffffu, ones, 8);
    crc = ref_crc(crc, m, len - 4);
    return ~crc;
}

static uint16_t be16(const uint8_t *p)
{
    return p[0] << 8 | p[1];
}

static uint32_t le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t ip_csum(const uint8_t *h)
{
    uint32_t s = 0;
    unsigned i;

    for (i = 0; i < 20; i += 2) {
        s += be16(h + i);
    }
    while (s >> 16) {
        s = (s & 0xffff) + (s >> 16);
    }
    return ~s & 0xffff;
}

/* Linux's rdma_get_udp_sport(), written out again. */
static uint16_t ref_sport(uint32_t fl, uint32_t lqpn, uint32_t rqpn)
{
    if (!fl) {
        uint64_t v = (uint64_t)lqpn * rqpn;

        v ^= v >> 20;
        v ^= v >> 40;
        fl = v & 0xfffff;
    }
    return (uint16_t)(((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000);
}

/* ---- A connected pair and one frame of each kind ---- */

typedef struct TW {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
    uint64_t abuf, bbuf;
} TW;

static void w_setup(TW *w, uint8_t net, uint32_t flow_label, uint16_t vlan)
{
    TConn conn;
    const uint32_t acc = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
                         ROCX_ACCESS_REMOTE_READ;

    memset(w, 0, sizeof(*w));
    CHECK_EQ(t_create_cq(A, &w->acq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &w->bcq, 6, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &w->qa, &w->acq, &w->acq, 5, 5, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &w->qb, &w->bcq, &w->bcq, 5, 5, 0),
             ROCX_AQ_STS_OK);
    w->abuf = t_alloc(A, 4 * T_PAGE, T_PAGE);
    w->bbuf = t_alloc(B, 4 * T_PAGE, T_PAGE);
    CHECK_EQ(t_reg_mr(A, &w->amr, w->abuf, 4 * T_PAGE, acc), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &w->bmr, w->bbuf, 4 * T_PAGE, acc), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.net_type = net;
    conn.vlan = vlan;
    t_connect(&w->qa, &w->qb, &conn);
    if (flow_label) {
        /* Again through RESET, with a flow label in the AV. */
        struct rocx_qp_attr a;

        CHECK_EQ(t_to_state(&w->qa, ROCX_QPS_RESET), ROCX_AQ_STS_OK);
        CHECK_EQ(t_to_state(&w->qa, ROCX_QPS_INIT), ROCX_AQ_STS_OK);
        memset(&a, 0, sizeof(a));
        a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV |
                          ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
                          ROCX_QP_ATTR_RQ_PSN);
        a.state = ROCX_QPS_RTR;
        t_av(A, B, net, &a.av);
        a.av.flow_label = htole32(flow_label);
        a.av.vlan = htole16(vlan);
        a.path_mtu = 3;
        a.dest_qpn = htole32(w->qb.qpn);
        a.rq_psn = htole32(conn.psn_b);
        CHECK_EQ(t_modify(&w->qa, &a), ROCX_AQ_STS_OK);
        memset(&a, 0, sizeof(a));
        a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN);
        a.state = ROCX_QPS_RTS;
        a.sq_psn = htole32(conn.psn_a);
        CHECK_EQ(t_modify(&w->qa, &a), ROCX_AQ_STS_OK);
    }
}

/* A sends one WRITE_ONLY_IMM of len bytes; B must take it (with a recv). */
static void w_send_write(TW *w, uint32_t len)
{
    struct rocx_sge s = t_sge(&w->amr, 0, len), r = t_sge(&w->bmr, 0, 0);

    t_fill(t_ptr(A, w->abuf, len), len, len);
    t_post_recv(&w->qb, &r, 0);
    t_ring_rq(&w->qb);
    t_post_send(&w->qa, ROCX_WQE_RDMA_WRITE_IMM, ROCX_WQE_SIGNALED, &s, 1,
                w->bmr.iova + 64, w->bmr.key, 0xcafe);
    t_ring_sq(&w->qa);
}

static void t_wire_ipv4_headers(void)
{
    TW w;
    const uint8_t *f, *ip, *udp, *bth;
    size_t len;
    struct rocx_cqe e;

    w_setup(&w, ROCX_NET_ROCE_V2_IPV4, 0, ROCX_VLAN_NONE);
    w_send_write(&w, 37);
    t_pump();
    CHECK(t_poll(&w.acq, &e));
    CHECK_EQ(A->f->nframes, 1);
    f = A->f->frames[0];
    len = A->f->frame_len[0];
    /* 14 + 20 + 8 + BTH 12 + RETH 16 + ImmDt 4 + 37 + pad 3 + ICRC 4 */
    CHECK_EQ(len, 14 + 20 + 8 + 12 + 16 + 4 + 40 + 4);
    CHECK(!memcmp(f, B->mac, 6));
    CHECK(!memcmp(f + 6, A->mac, 6));
    CHECK_EQ(be16(f + 12), 0x0800);
    ip = f + 14;
    CHECK_EQ(ip[0], 0x45);
    /* The AV's DSCP; ECT(0): the reaction point is on by default. */
    CHECK_EQ(ip[1], 0x68 | 0x2);
    CHECK_EQ(be16(ip + 2), len - 14);
    CHECK_EQ(be16(ip + 6), 0x4000);         /* DF */
    CHECK_EQ(ip[8], 64);                    /* the AV's hop limit */
    CHECK_EQ(ip[9], 17);
    CHECK_EQ(ip_csum(ip), 0);
    CHECK(!memcmp(ip + 12, A->gid4 + 12, 4));
    CHECK(!memcmp(ip + 16, B->gid4 + 12, 4));
    udp = ip + 20;
    CHECK_EQ(be16(udp), ref_sport(0, w.qa.qpn, w.qb.qpn));
    CHECK_EQ(be16(udp + 2), 4791);
    CHECK_EQ(be16(udp + 4), len - 14 - 20);
    CHECK_EQ(be16(udp + 6), 0);
    bth = udp + 8;
    CHECK_EQ(bth[0], 0x0b);                 /* RC RDMA WRITE Only w/ Imm */
    CHECK_EQ(bth[1], 0x30);                 /* SE 0, pad 3, tver 0 */
    CHECK_EQ(be16(bth + 2), 0xffff);
    CHECK_EQ(bth[4], 0);
    CHECK_EQ((uint32_t)bth[5] << 16 | be16(bth + 6), w.qb.qpn);
    CHECK_EQ(bth[8], 0x80);                 /* AckReq */
    CHECK_EQ((uint32_t)bth[9] << 16 | be16(bth + 10), 0x100);
    CHECK_EQ(be16(bth + 12 + 6) | (uint64_t)0, (w.bmr.iova + 64) & 0xffff);
    CHECK_EQ(be16(bth + 12 + 14), 37);      /* RETH DMA length, low half */
    CHECK_EQ(be16(bth + 28 + 2), 0xcafe);   /* ImmDt */
    CHECK_EQ(le32(f + len - 4), ref_icrc(ip, len - 14, ROCX_NET_ROCE_V2_IPV4));

    /* The ACK back: opcode 0x11, AETH with syndrome ACK. */
    f = B->f->frames[0];
    CHECK_EQ(f[14 + 28], 0x11);
    CHECK_EQ(f[14 + 28 + 12] & 0xe0, 0);
    CHECK_EQ(le32(f + B->f->frame_len[0] - 4),
             ref_icrc(f + 14, B->f->frame_len[0] - 14,
                      ROCX_NET_ROCE_V2_IPV4));
    CHECK_EQ(be16(f + 14 + 20), ref_sport(0, w.qb.qpn, w.qa.qpn));
}

static void t_wire_ipv6_grh_vlan(void)
{
    TW w;
    const uint8_t *f;
    size_t len;

    /* IPv6 with a flow label: it shows up in the header and UDP port. */
    w_setup(&w, ROCX_NET_ROCE_V2_IPV6, 0x12345, ROCX_VLAN_NONE);
    w_send_write(&w, 100);
    t_pump();
    CHECK(t_poll(&w.acq, NULL));
    f = A->f->frames[0];
    len = A->f->frame_len[0];
    CHECK_EQ(be16(f + 12), 0x86dd);
    CHECK_EQ(f[14] >> 4, 6);
    CHECK_EQ(((f[14] & 0xf) << 4) | (f[15] >> 4), 0x68 | 0x2);
    CHECK_EQ(((f[15] & 0xf) << 16) | be16(f + 16), 0x12345);
    CHECK_EQ(be16(f + 18), len - 14 - 40);
    CHECK_EQ(f[20], 17);
    CHECK_EQ(f[21], 64);
    CHECK(!memcmp(f + 22, A->gid6, 16));
    CHECK(!memcmp(f + 38, B->gid6, 16));
    CHECK_EQ(be16(f + 54), ref_sport(0x12345, 0, 0));
    CHECK_EQ(be16(f + 56), 4791);
    CHECK_EQ(le32(f + len - 4), ref_icrc(f + 14, len - 14,
                                         ROCX_NET_ROCE_V2_IPV6));

    /* RoCE v1 behind a VLAN tag: a GID of a VLAN netdev. */
    t_teardown();
    t_setup();
    CHECK_EQ(t_set_gid(A, 2, 7), ROCX_AQ_STS_OK);
    CHECK_EQ(t_set_gid(B, 2, 7), ROCX_AQ_STS_OK);
    w_setup(&w, ROCX_NET_ROCE_V1, 0, 7);
    w_send_write(&w, 5);
    t_pump();
    CHECK(t_poll(&w.acq, NULL));
    f = A->f->frames[0];
    len = A->f->frame_len[0];
    CHECK_EQ(be16(f + 12), 0x8100);
    CHECK_EQ(be16(f + 14), 7);
    CHECK_EQ(be16(f + 16), 0x8915);
    CHECK_EQ(f[18] >> 4, 6);
    CHECK_EQ(be16(f + 22), len - 18 - 40);
    CHECK_EQ(f[24], 0x1b);
    CHECK(!memcmp(f + 26, A->gid1, 16));
    CHECK(!memcmp(f + 42, B->gid1, 16));
    CHECK_EQ(f[58], 0x0b);
    CHECK_EQ(le32(f + len - 4), ref_icrc(f + 18, len - 18, ROCX_NET_ROCE_V1));
}

/*
 * An RC path's VLAN is its source GID entry's too: MODIFY_QP's AV naming
 * another VLAN, or none, changes neither the tag nor what QUERY_QP reads.
 */
static void t_wire_vlan_from_gid(void)
{
    static const uint16_t avs[] = { 300, ROCX_VLAN_NONE, 0 };
    struct rocx_qp_attr a;
    struct rocx_cqe e;
    const uint8_t *f;
    unsigned i;
    TW w;

    for (i = 0; i < ARRAY_SIZE(avs); i++) {
        t_teardown();
        t_setup();
        CHECK_EQ(t_set_gid(A, 0, 100), ROCX_AQ_STS_OK);
        w_setup(&w, ROCX_NET_ROCE_V2_IPV4, 0, avs[i]);
        CHECK_EQ(t_query(&w.qa, &a), ROCX_AQ_STS_OK);
        CHECK_EQ(le16toh(a.av.vlan), 100);
        w_send_write(&w, 5);
        t_pump();
        CHECK(t_poll(&w.acq, &e));
        CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
        f = A->f->frames[0];
        CHECK_EQ(be16(f + 12), 0x8100);
        CHECK_EQ(be16(f + 14), 100);
        CHECK_EQ(be16(f + 16), 0x0800);
    }
}

/*
 * A fixed RoCE v2 ACK: the device's ICRC (ISA-L's or zlib's CRC) equals the
 * bit-by-bit one, masked fields do not change it, others do.
 */
static void t_wire_icrc_vector(void)
{
    uint8_t pkt[20 + 8 + 12 + 4 + 4];
    uint8_t *ip = pkt, *udp = pkt + 20, *bth = udp + 8;
    unsigned i;

    memset(pkt, 0, sizeof(pkt));
    ip[0] = 0x45;
    ip[1] = 0x02;
    ip[3] = sizeof(pkt);
    ip[6] = 0x40;
    ip[8] = 0x40;
    ip[9] = 17;
    ip[12] = 198; ip[13] = 18; ip[15] = 1;
    ip[16] = 198; ip[17] = 18; ip[19] = 2;
    ip[10] = ip_csum(ip) >> 8;
    ip[11] = ip_csum(ip);
    udp[0] = 0xc0; udp[1] = 0x12;
    udp[2] = 0x12; udp[3] = 0xb7;
    udp[5] = sizeof(pkt) - 20;
    bth[0] = 0x11;
    bth[2] = bth[3] = 0xff;
    bth[7] = 0x11;
    bth[11] = 0x42;
    for (i = 0; i < 4; i++) {
        bth[12 + i] = 0x1f + i;
    }
    CHECK_EQ(rocx_icrc(ROCX_NET_ROCE_V2_IPV4, ip, bth, pkt + sizeof(pkt) - 4),
             ref_icrc(ip, sizeof(pkt), ROCX_NET_ROCE_V2_IPV4));
    /* Changing a masked field leaves it; any other bit changes it. */
    {
        uint32_t base = ref_icrc(ip, sizeof(pkt), ROCX_NET_ROCE_V2_IPV4);

        ip[1] = 0xb8;
        ip[8] = 3;
        udp[6] = 0x55;
        bth[4] = 0x80;
        CHECK_EQ(rocx_icrc(ROCX_NET_ROCE_V2_IPV4, ip, bth,
                           pkt + sizeof(pkt) - 4), base);
        bth[5] = 1;
        CHECK(rocx_icrc(ROCX_NET_ROCE_V2_IPV4, ip, bth,
                        pkt + sizeof(pkt) - 4) != base);
    }
    /* The CRC itself: the standard check value of CRC-32. */
    CHECK_EQ(rocx_crc32(0, (const uint8_t *)"123456789", 9), 0xcbf43926);
}

/*
 * rocx_crc32 (ISA-L's where built with it) against the bit-by-bit CRC at
 * every length up to 300 bytes and then some long ones, from every
 * alignment, and chained at any split: its vector code paths differ by
 * length and alignment, and the ICRC chains three calls.
 */
static void t_wire_crc32_lengths(void)
{
    static uint8_t buf[9000 + 64];
    static const size_t lens[] = { 511, 1024, 1086, 4096, 4151, 9000 };
    size_t len, a, split, i;
    uint32_t want;

    t_fill(buf, sizeof(buf), 7);
    for (len = 0; len < 300 + ARRAY_SIZE(lens); len++) {
        size_t n = len < 300 ? len : lens[len - 300];

        for (a = 0; a < 8; a++) {
            want = ~ref_crc(0xffffffffu, buf + a, n);
            CHECK_EQ(rocx_crc32(0, buf + a, n), want);
        }
        for (split = 0; split <= n; split += n / 7 + 1) {
            CHECK_EQ(rocx_crc32(rocx_crc32(0, buf, split), buf + split,
                                n - split), ~ref_crc(0xffffffffu, buf, n));
        }
    }
    /* Continuing from a non-zero value, as zlib's crc32 does. */
    for (i = 0; i < 4; i++) {
        uint32_t seed = 0x12345678u * (i + 1);

        CHECK_EQ(rocx_crc32(seed, buf, 1000),
                 ~ref_crc(~seed, buf, 1000));
    }
}

/* ---- Receive side: what is dropped, counted, or not ours ---- */

static uint8_t good[ROCX_MAX_FRAME];
static size_t good_len;

static bool capture(TDev *from, uint8_t *buf, size_t *len)
{
    if (from == A && !good_len) {
        memcpy(good, buf, *len);
        good_len = *len;
        return false;                       /* B never sees the original */
    }
    return true;
}

/* Fix the IPv4 checksum and the ICRC after a change. */
static void refresh(uint8_t *f, size_t len)
{
    uint8_t *ip = f + 14;
    uint32_t icrc;

    ip[10] = ip[11] = 0;
    icrc = ip_csum(ip);
    ip[10] = icrc >> 8;
    ip[11] = icrc;
    icrc = ref_icrc(ip, len - 14, ROCX_NET_ROCE_V2_IPV4);
    f[len - 4] = icrc;
    f[len - 3] = icrc >> 8;
    f[len - 2] = icrc >> 16;
    f[len - 1] = icrc >> 24;
}

typedef struct Mut {
    const char *what;
    int off;                                /* from the frame start */
    int val;                                /* -1: truncate to off */
    bool fix;                               /* then refresh checksums */
    enum { M_DROP, M_ICRC, M_ETH } expect;
} Mut;

static void t_wire_malformed(void)
{
    /* Offsets: IP 14, UDP 34, BTH 42, RETH 54, ImmDt 70, payload 74. */
    static const Mut muts[] = {
        { "IP version 6 in IPv4", 14, 0x65, false, M_ETH },
        { "IP header length 24, no options", 14, 0x46, true, M_ETH },
        { "IP total length short", 17, 40, true, M_DROP },
        { "IP total length long", 16, 0x10, true, M_DROP },
        { "IP more fragments", 20, 0x20, true, M_DROP },
        { "IP fragment offset", 21, 0x01, true, M_DROP },
        { "IP checksum", 25, 0x5a, false, M_DROP },
        { "not UDP", 23, 6, true, M_ETH },
        { "UDP port", 37, 0xb8, true, M_ETH },
        { "UDP length", 39, 0x11, true, M_DROP },
        { "ICRC", -1, 0, false, M_ICRC },
        { "payload bit", 80, 0x01, false, M_ICRC },
        { "BTH transport version", 43, 0x31, true, M_DROP },
        { "BTH P_Key", 44, 0x12, true, M_DROP },
        { "BTH opcode UD SEND", 42, 0x64, true, M_DROP },
        { "BTH opcode atomic", 42, 0x13, true, M_DROP },
        { "BTH opcode reserved", 42, 0x1f, true, M_DROP },
        { "BTH dest QP unknown", 47, 0x77, true, M_DROP },
        { "BTH dest QP 0", 49, 0x00, true, M_DROP },
        { "source IP not the peer", 29, 0x09, true, M_DROP },
        { "destination IP not ours", 33, 0x09, true, M_ETH },
        { "destination MAC not ours", 0, 0x04, false, M_ETH },
        { "ACK with a payload", 42, 0x11, true, M_DROP },
        { "READ response to a responder", 42, 0x10, true, M_DROP },
        { "READ request with a payload", 42, 0x0c, true, M_DROP },
        { "truncated in Ethernet", 10, -1, false, M_ETH },
        { "truncated in VLAN tag", 12, -1, false, M_ETH },
        { "truncated in IP", 30, -1, false, M_ETH },
        { "truncated in UDP", 40, -1, false, M_ETH },
        { "truncated in BTH", 50, -1, false, M_DROP },
        { "truncated in RETH", 60, -1, false, M_DROP },
        { "truncated in payload", 90, -1, false, M_DROP },
        /* Last: accepted, so later copies would be duplicates. */
        { "TOS (masked: still fine)", 15, 0xfc, true, M_DROP },
    };
    TW w;
    unsigned i;
    uint8_t f[ROCX_MAX_FRAME];
    struct rocx_cqe e;

    good_len = 0;
    w_setup(&w, ROCX_NET_ROCE_V2_IPV4, 0, ROCX_VLAN_NONE);
    wire.filter = capture;
    w_send_write(&w, 40);
    t_pump();
    CHECK_EQ(good_len, 14 + 20 + 8 + 12 + 16 + 4 + 40 + 4);
    CHECK_EQ(good[42], 0x0b);

    for (i = 0; i < ARRAY_SIZE(muts); i++) {
        const Mut *m = &muts[i];
        size_t len = good_len;
        uint64_t drop = t_stat(B, ROCX_STAT_ROCE_RX_DROPPED);
        uint64_t icrc = t_stat(B, ROCX_STAT_ROCE_ICRC_ERRORS);
        uint64_t rx = t_stat(B, ROCX_STAT_ROCE_RX_PACKETS);
        uint64_t eth = t_stat(B, ROCX_STAT_RX_DROPPED_FILTER) +
                       t_stat(B, ROCX_STAT_RX_NO_BUFFER);
        unsigned before = case_failures;

        memcpy(f, good, len);
        if (m->val < 0) {
            len = m->off;
        } else if (m->off < 0) {
            f[len - 1] ^= 0x40;
        } else {
            f[m->off] = m->val;
        }
        if (m->fix) {
            refresh(f, len);
        }
        t_inject(B, f, len);
        t_pump();
        if (!strcmp(m->what, "TOS (masked: still fine)")) {
            /* Proves refresh() and the masks: this one is accepted. */
            CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS), rx + 1);
            CHECK(t_poll(&w.bcq, &e));
            CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_SUCCESS);
            continue;
        }
        CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED) - drop,
                 m->expect == M_DROP);
        CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_ICRC_ERRORS) - icrc,
                 m->expect == M_ICRC);
        CHECK_EQ(t_stat(B, ROCX_STAT_RX_DROPPED_FILTER) +
                 t_stat(B, ROCX_STAT_RX_NO_BUFFER) - eth, m->expect == M_ETH);
        CHECK(!t_poll(&w.bcq, &e));
        CHECK_EQ(rocx_qp_get(&A->f->core, w.qa.qpn)->state, ROCX_QPS_RTS);
        if (case_failures != before) {
            fprintf(stderr, "    (%s)\n", m->what);
        }
    }
    /* The good frame once more: a duplicate now, acknowledged again. */
    t_inject(B, good, good_len);
    t_pump();
    CHECK(!t_poll(&w.bcq, &e));
    CHECK_EQ(rocx_qp_get(&B->f->core, w.qb.qpn)->state, ROCX_QPS_RTS);
    CHECK_EQ(B->f->core.rdma.stats.dup_requests, 1);

    /* IPv4 options (4 NOPs) before a correct UDP header: dropped. */
    memcpy(f, good, 14 + 20);
    memset(f + 34, 1, 4);
    memcpy(f + 38, good + 34, good_len - 34);
    f[14] = 0x46;
    f[17] += 4;
    {
        uint64_t drop = t_stat(B, ROCX_STAT_ROCE_RX_DROPPED);

        t_inject(B, f, good_len + 4);
        CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), drop + 1);
    }
}

/*
 * Well-formed packets that break the protocol: the responder NAKs them
 * (invalid request) and its QP goes to ERR; the requester completes
 * with REM_INV_REQ_ERR.
 */
static void t_wire_protocol_errors(void)
{
    static const struct {
        const char *what;
        int off;
        uint8_t val;
    } v[] = {
        { "WRITE MIDDLE without FIRST", 42, ROCX_OP_WRITE_MIDDLE },
        { "SEND LAST without FIRST", 42, ROCX_OP_SEND_LAST },
        { "pad: payload shorter than the RETH says", 43, 0x30 },
        { "RETH longer than the payload", 54 + 15, 41 },
        { "WRITE FIRST shorter than the MTU", 42, ROCX_OP_WRITE_FIRST },
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(v); i++) {
        TW w;
        uint8_t f[ROCX_MAX_FRAME];
        struct rocx_cqe e;
        unsigned before = case_failures;

        t_teardown();
        t_setup();
        good_len = 0;
        w_setup(&w, ROCX_NET_ROCE_V2_IPV4, 0, ROCX_VLAN_NONE);
        wire.filter = capture;
        w_send_write(&w, 40);
        t_pump();
        memcpy(f, good, good_len);
        f[v[i].off] = v[i].val;
        refresh(f, good_len);
        t_inject(B, f, good_len);
        t_pump();
        CHECK_EQ(rocx_qp_get(&B->f->core, w.qb.qpn)->state, ROCX_QPS_ERR);
        CHECK_EQ(B->f->core.rdma.stats.naks_sent, 1);
        CHECK(t_poll(&w.bcq, &e));          /* the receive, flushed */
        CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_WR_FLUSH_ERR);
        CHECK(t_poll(&w.acq, &e));
        CHECK_EQ(le32toh(e.src_qp_status) >> 24, ROCX_WC_REM_INV_REQ_ERR);
        if (case_failures != before) {
            fprintf(stderr, "    (%s)\n", v[i].what);
        }
    }
}

/*
 * An atomic request to a QP whose access flags do not enable atomics is
 * an invalid request; with them, through an MR without REMOTE_ATOMIC, a
 * remote access error.  NAKed, not dropped, and memory is untouched.
 */
static void t_wire_atomic_refused(void)
{
    unsigned i;

    for (i = 0; i < 2; i++) {
        TW w;
        uint8_t f[ROCX_MAX_FRAME];
        uint8_t *bth = f + 42, *ae = bth + ROCX_BTH_LEN;
        struct rocx_qp_attr a;
        struct rocx_eqe *ev;
        struct rocx_cqe e;
        const size_t len = 42 + ROCX_BTH_LEN + ROCX_ATOMETH_LEN +
                           ROCX_ICRC_LEN;
        unsigned qp_err = 0;

        t_teardown();
        t_setup();
        good_len = 0;
        w_setup(&w, ROCX_NET_ROCE_V2_IPV4, 0, ROCX_VLAN_NONE);
        if (i) {
            memset(&a, 0, sizeof(a));
            a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_ACCESS);
            a.state = ROCX_QPS_RTS;
            a.access = htole32(ROCX_ACCESS_LOCAL_WRITE |
                               ROCX_ACCESS_REMOTE_WRITE |
                               ROCX_ACCESS_REMOTE_READ |
                               ROCX_ACCESS_REMOTE_ATOMIC);
            CHECK_EQ(t_modify(&w.qb, &a), ROCX_AQ_STS_OK);
        }
        wire.filter = capture;
        w_send_write(&w, 40);
        t_pump();
        /* The WRITE's headers, made a COMPARE_SWAP at the same PSN. */
        memcpy(f, good, 42 + ROCX_BTH_LEN);
        bth[0] = ROCX_OP_CMP_SWAP;
        bth[1] &= ~ROCX_BTH_PAD_MASK;
        stq_be_p(ae + ROCX_ATOMETH_VA, w.bmr.iova);
        stl_be_p(ae + ROCX_ATOMETH_RKEY, w.bmr.key);
        stq_be_p(ae + ROCX_ATOMETH_SWAP_ADD, 1);
        stq_be_p(ae + ROCX_ATOMETH_COMPARE, 0);
        stw_be_p(f + 14 + 2, len - 14);
        stw_be_p(f + 34 + 4, len - 34);
        refresh(f, len);
        memset(t_ptr(B, w.bbuf, 8), 0, 8);
        t_inject(B, f, len);
        t_pump();
        CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), 0);
        CHECK_EQ(B->f->core.rdma.stats.naks_sent, 1);
        CHECK_EQ(rocx_qp_get(&B->f->core, w.qb.qpn)->state, ROCX_QPS_ERR);
        CHECK_EQ(ldq_le_p(t_ptr(B, w.bbuf, 8)), 0);
        while ((ev = t_eq_next(B, 0))) {
            qp_err += le16toh(ev->type) == ROCX_EQE_QP_ERROR &&
                      le64toh(ev->info) == (i ? ROCX_VERR_LKEY_ACCESS :
                                            ROCX_VERR_NAK_INVALID);
        }
        CHECK_EQ(qp_err, 1);
        CHECK(t_poll(&w.acq, &e));
        CHECK_EQ(le32toh(e.src_qp_status) >> 24,
                 i ? ROCX_WC_REM_ACCESS_ERR : ROCX_WC_REM_INV_REQ_ERR);
    }
}

/* Random bytes at every position of a valid frame: never accepted twice. */
static void t_wire_fuzz_positions(void)
{
    TW w;
    uint8_t f[ROCX_MAX_FRAME];
    unsigned pos, bit;

    good_len = 0;
    w_setup(&w, ROCX_NET_ROCE_V2_IPV4, 0, ROCX_VLAN_NONE);
    wire.filter = capture;
    w_send_write(&w, 40);
    t_pump();
    for (pos = 0; pos < good_len; pos++) {
        for (bit = 0; bit < 8; bit++) {
            memcpy(f, good, good_len);
            f[pos] ^= 1u << bit;
            t_inject(B, f, good_len);
        }
    }
    t_pump();
    /* Only masked fields can flip unnoticed; the rest is dropped. */
    CHECK(t_stat(B, ROCX_STAT_ROCE_ICRC_ERRORS) > 300);
    CHECK(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS) <= 1 + 8 * 10);
    CHECK_EQ(B->f->gerrs, 0);
}

static void t_wire_link_down(void)
{
    TW w;

    good_len = 0;
    w_setup(&w, ROCX_NET_ROCE_V2_IPV4, 0, ROCX_VLAN_NONE);
    wire.filter = capture;
    w_send_write(&w, 40);
    t_pump();
    fake_set_carrier(B->f, false);
    t_inject(B, good, good_len);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_DROPPED_LINK_DOWN), 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS), 0);
    /* Sending while down: dropped and counted; the timeout recovers. */
    wire.filter = NULL;
    fake_set_carrier(B->f, true);
    fake_set_carrier(A->f, false);
    t_pump();
    CHECK_EQ(t_stat(A, ROCX_STAT_TX_DROPPED_LINK_DOWN), 0);
    fake_advance(A->f, 100 * 1000 * 1000);
    t_pump();
    CHECK(t_stat(A, ROCX_STAT_TX_DROPPED_LINK_DOWN) >= 1);
    fake_set_carrier(A->f, true);
    t_settle(10LL * 1000 * 1000 * 1000);
    CHECK(t_poll(&w.acq, NULL));
    CHECK(t_poll(&w.bcq, NULL));
}

/*
 * A packet still on its way for a destroyed QP, which must not reach the
 * QP that takes its slot next (rocx-device.rst, "Object numbers"): B's QP
 * is destroyed and B's next-fit cursor walked round the table, so that
 * its next QP takes the same slot, at the next generation, connected to
 * the same peer with the same PSNs.  The old packet names the old number:
 * dropped (ROCE_RX_DROPPED), no CQE, no byte written.  The same frame
 * addressed to the new number is taken, so nothing else in it was wrong.
 */
static void t_wire_stale_qpn(void)
{
    TW w;
    TQp nb, na;
    TConn conn;
    struct rocx_cqe e;
    struct rocx_sge r = { 0 };
    uint8_t f[ROCX_MAX_FRAME];
    uint64_t drop, idle = t_alloc(B, T_PAGE, T_PAGE);
    uint32_t old;

    good_len = 0;
    w_setup(&w, ROCX_NET_ROCE_V2_IPV4, 0, ROCX_VLAN_NONE);
    wire.filter = capture;
    w_send_write(&w, 40);
    t_pump();
    CHECK_EQ(good[42], 0x0b);               /* RDMA WRITE only, immediate */
    old = w.qb.qpn;
    CHECK_EQ((uint32_t)good[47] << 16 | good[48] << 8 | good[49], old);
    CHECK_EQ(t_destroy_qp(&w.qb), ROCX_AQ_STS_OK);
    CHECK(t_qp_churn(B, &w.bcq, idle, ROCX_CORE_QP_SLOTS - 1));
    CHECK_EQ(t_create_qp(B, &nb, &w.bcq, &w.bcq, 5, 5, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(rocx_num_slot(nb.qpn), rocx_num_slot(old));
    CHECK_EQ(nb.qpn, old | 1u << ROCX_NUM_SLOT_BITS);
    CHECK_EQ(t_create_qp(A, &na, &w.acq, &w.acq, 5, 5, 0), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    t_connect(&na, &nb, &conn);
    t_post_recv(&nb, &r, 0);
    t_ring_rq(&nb);
    t_pump();

    drop = t_stat(B, ROCX_STAT_ROCE_RX_DROPPED);
    t_inject(B, good, good_len);
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), drop + 1);
    CHECK(!t_poll(&w.bcq, &e));
    CHECK(!memcmp(t_ptr(B, w.bbuf + 64, 40), (uint8_t[40]){ 0 }, 40));
    CHECK_EQ(rocx_qp_get(&B->f->core, nb.qpn)->state, ROCX_QPS_RTS);
    CHECK(!rocx_qp_get(&B->f->core, old));

    memcpy(f, good, good_len);
    f[47] = nb.qpn >> 16;
    f[48] = nb.qpn >> 8;
    f[49] = nb.qpn;
    refresh(f, good_len);
    t_inject(B, f, good_len);
    t_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_DROPPED), drop + 1);
    CHECK(t_poll(&w.bcq, &e));
    CHECK_EQ(le32toh(e.qpn_op) & ROCX_CQE_QPN_MASK, nb.qpn);
    CHECK_EQ(le32toh(e.byte_len), 40);
    CHECK(!memcmp(t_ptr(B, w.bbuf + 64, 40), t_ptr(A, w.abuf, 40), 40));
    CHECK_EQ(B->f->gerrs, 0);
}

const TCase t_cases_wire[] = {
    T_CASE(wire_ipv4_headers),
    T_CASE(wire_ipv6_grh_vlan),
    T_CASE(wire_vlan_from_gid),
    T_CASE(wire_icrc_vector),
    T_CASE(wire_crc32_lengths),
    T_CASE(wire_malformed),
    T_CASE(wire_protocol_errors),
    T_CASE(wire_atomic_refused),
    T_CASE(wire_fuzz_positions),
    T_CASE(wire_link_down),
    T_CASE(wire_stale_qpn),
};
const unsigned t_ncases_wire = ARRAY_SIZE(t_cases_wire);
