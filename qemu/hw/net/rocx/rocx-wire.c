/*
 * rocx device model: RoCE headers on the wire.
 *
 * Build: Ethernet (and an 802.1Q tag when the path has a VLAN), then
 * IPv4 + UDP (RoCE v2), IPv6 + UDP (RoCE v2) or the GRH (RoCE v1,
 * EtherType 0x8915), BTH, the extended headers the opcode takes (RETH,
 * AETH, ImmDt), payload, pad to 4 bytes, ICRC.
 *
 * Parse: decide whether a received frame is RoCE for one of the port's
 * GIDs (only those leave the Ethernet path), then check every length,
 * version, checksum and the ICRC before anything reaches the transport.
 * A frame that is ours but wrong is dropped and counted, never trusted.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

#define ROCX_ETH_HLEN       14
#define ROCX_VLAN_HLEN      4
#define ROCX_IPV4_HLEN      20
#define ROCX_IPV6_HLEN      40
#define ROCX_UDP_HLEN       8
#define ROCX_ETHERTYPE_IPV4 0x0800
#define ROCX_ETHERTYPE_IPV6 0x86dd
#define ROCX_ETHERTYPE_VLAN 0x8100
#define ROCX_IPPROTO_UDP    17
#define ROCX_GRH_NEXT_BTH   0x1b
#define ROCX_DEFAULT_TTL    64
#define ROCX_PKEY_DEFAULT   0xffff

/* ---- Opcodes ---- */

#define V   ROCX_OPF_VALID
#define RQ  (ROCX_OPF_VALID | ROCX_OPF_REQ)
#define S   (RQ | ROCX_OPF_SEND | ROCX_OPF_PAYLOAD)
#define W   (RQ | ROCX_OPF_WRITE | ROCX_OPF_PAYLOAD)
#define RR  (V | ROCX_OPF_RESP | ROCX_OPF_PAYLOAD)
#define F   ROCX_OPF_FIRST
#define L   ROCX_OPF_LAST
#define IMM ROCX_OPF_IMM

static const uint16_t rocx_opf[] = {
    [ROCX_OP_SEND_FIRST]        = S | F,
    [ROCX_OP_SEND_MIDDLE]       = S,
    [ROCX_OP_SEND_LAST]         = S | L,
    [ROCX_OP_SEND_LAST_IMM]     = S | L | IMM,
    [ROCX_OP_SEND_ONLY]         = S | F | L,
    [ROCX_OP_SEND_ONLY_IMM]     = S | F | L | IMM,
    [ROCX_OP_WRITE_FIRST]       = W | F | ROCX_OPF_RETH,
    [ROCX_OP_WRITE_MIDDLE]      = W,
    [ROCX_OP_WRITE_LAST]        = W | L,
    [ROCX_OP_WRITE_LAST_IMM]    = W | L | IMM,
    [ROCX_OP_WRITE_ONLY]        = W | F | L | ROCX_OPF_RETH,
    [ROCX_OP_WRITE_ONLY_IMM]    = W | F | L | ROCX_OPF_RETH | IMM,
    [ROCX_OP_READ_REQ]          = RQ | F | L | ROCX_OPF_READ | ROCX_OPF_RETH,
    [ROCX_OP_READ_RESP_FIRST]   = RR | F | ROCX_OPF_AETH,
    [ROCX_OP_READ_RESP_MIDDLE]  = RR,
    [ROCX_OP_READ_RESP_LAST]    = RR | L | ROCX_OPF_AETH,
    [ROCX_OP_READ_RESP_ONLY]    = RR | F | L | ROCX_OPF_AETH,
    [ROCX_OP_ACK]               = V | ROCX_OPF_AETH,
};

#undef V
#undef RQ
#undef S
#undef W
#undef RR
#undef F
#undef L
#undef IMM

uint16_t rocx_op_flags(uint8_t opcode)
{
    return opcode < ARRAY_SIZE(rocx_opf) ? rocx_opf[opcode] : 0;
}

static size_t rocx_ext_len(uint16_t opf)
{
    return ROCX_BTH_LEN + (opf & ROCX_OPF_RETH ? ROCX_RETH_LEN : 0) +
           (opf & ROCX_OPF_AETH ? ROCX_AETH_LEN : 0) +
           (opf & ROCX_OPF_IMM ? ROCX_IMM_LEN : 0);
}

/* ---- Build ---- */

static size_t rocx_l2_len(const RocxPath *p)
{
    return ROCX_ETH_HLEN + (p->vlan != ROCX_VLAN_NONE ? ROCX_VLAN_HLEN : 0);
}

static size_t rocx_l3_len(uint8_t net_type)
{
    switch (net_type) {
    case ROCX_NET_ROCE_V2_IPV4:
        return ROCX_IPV4_HLEN + ROCX_UDP_HLEN;
    case ROCX_NET_ROCE_V2_IPV6:
        return ROCX_IPV6_HLEN + ROCX_UDP_HLEN;
    default:
        return ROCX_IPV6_HLEN;
    }
}

size_t rocx_wire_hdr_len(const RocxQp *qp, uint8_t opcode)
{
    return rocx_l2_len(&qp->path) + rocx_l3_len(qp->path.net_type) +
           rocx_ext_len(rocx_op_flags(opcode));
}

static uint16_t rocx_ipv4_csum(const uint8_t *h)
{
    uint32_t sum = 0;
    unsigned i;

    for (i = 0; i < ROCX_IPV4_HLEN; i += 2) {
        sum += lduw_be_p(h + i);
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum;
}

/* IPv6 header or GRH: version, traffic class, flow label, length, ... */
static void rocx_put_ip6(uint8_t *h, const RocxPath *p, uint16_t plen,
                         uint8_t next)
{
    stl_be_p(h, 6u << 28 | (uint32_t)p->traffic_class << 20 |
             (p->flow_label & 0xfffff));
    stw_be_p(h + 4, plen);
    h[6] = next;
    h[7] = p->hop_limit ? p->hop_limit : ROCX_DEFAULT_TTL;
    memcpy(h + 8, p->sgid, 16);
    memcpy(h + 24, p->dgid, 16);
}

uint8_t *rocx_wire_buf(RocxCore *c, const RocxQp *qp)
{
    /* Headers, a payload of the path MTU, pad and ICRC. */
    return rocx_frame_buf(c, rocx_l2_len(&qp->path) +
                          rocx_l3_len(qp->path.net_type) +
                          rocx_ext_len(ROCX_OPF_RETH | ROCX_OPF_AETH |
                                       ROCX_OPF_IMM) +
                          qp->mtu + 3 + ROCX_ICRC_LEN);
}

void rocx_wire_send(RocxCore *c, RocxQp *qp, const RocxTx *tx)
{
    const RocxPath *p = &qp->path;
    uint16_t opf = rocx_op_flags(tx->opcode);
    uint8_t *buf = rocx_wire_buf(c, qp);
    size_t l2 = rocx_l2_len(p);
    uint8_t *l3 = buf + l2;
    uint8_t *bth = l3 + rocx_l3_len(p->net_type);
    uint8_t *h = bth + ROCX_BTH_LEN;
    uint8_t *pay = bth + rocx_ext_len(opf);
    unsigned pad = -tx->paylen & 3;
    uint8_t *icrc = pay + tx->paylen + pad;
    size_t len = icrc + ROCX_ICRC_LEN - buf;
    size_t l4len = icrc + ROCX_ICRC_LEN - bth;

    /* Callers size payloads by the path MTU, which always fits. */
    assert(len <= ROCX_MAX_FRAME);

    memcpy(buf, p->dmac, 6);
    memcpy(buf + 6, p->smac, 6);
    if (p->vlan != ROCX_VLAN_NONE) {
        stw_be_p(buf + 12, ROCX_ETHERTYPE_VLAN);
        stw_be_p(buf + 14, p->vlan);
    }
    switch (p->net_type) {
    case ROCX_NET_ROCE_V2_IPV4:
        stw_be_p(l3 - 2, ROCX_ETHERTYPE_IPV4);
        l3[0] = 0x45;
        l3[1] = p->traffic_class;
        stw_be_p(l3 + 2, ROCX_IPV4_HLEN + ROCX_UDP_HLEN + l4len);
        stw_be_p(l3 + 4, 0);           /* id: DF is set */
        stw_be_p(l3 + 6, 0x4000);
        l3[8] = p->hop_limit ? p->hop_limit : ROCX_DEFAULT_TTL;
        l3[9] = ROCX_IPPROTO_UDP;
        stw_be_p(l3 + 10, 0);
        memcpy(l3 + 12, p->sgid + 12, 4);
        memcpy(l3 + 16, p->dgid + 12, 4);
        stw_be_p(l3 + 10, rocx_ipv4_csum(l3));
        break;
    case ROCX_NET_ROCE_V2_IPV6:
        stw_be_p(l3 - 2, ROCX_ETHERTYPE_IPV6);
        rocx_put_ip6(l3, p, ROCX_UDP_HLEN + l4len, ROCX_IPPROTO_UDP);
        break;
    default:
        stw_be_p(l3 - 2, ROCX_ETHERTYPE_ROCE);
        rocx_put_ip6(l3, p, l4len, ROCX_GRH_NEXT_BTH);
        break;
    }
    if (p->net_type != ROCX_NET_ROCE_V1) {
        uint8_t *udp = bth - ROCX_UDP_HLEN;

        /* UDP checksum 0, as Linux sends RoCE v2; the ICRC covers it. */
        stw_be_p(udp, p->udp_sport);
        stw_be_p(udp + 2, ROCX_ROCE_UDP_PORT);
        stw_be_p(udp + 4, ROCX_UDP_HLEN + l4len);
        stw_be_p(udp + 6, 0);
    }

    bth[0] = tx->opcode;
    bth[1] = (tx->se ? 0x80 : 0) | pad << 4;
    stw_be_p(bth + 2, ROCX_PKEY_DEFAULT);
    bth[4] = 0;
    rocx_put_be24(bth + 5, qp->dest_qpn);
    bth[8] = tx->ackreq ? 0x80 : 0;
    rocx_put_be24(bth + 9, tx->psn);
    if (opf & ROCX_OPF_RETH) {
        stq_be_p(h, tx->va);
        stl_be_p(h + 8, tx->rkey);
        stl_be_p(h + 12, tx->dmalen);
        h += ROCX_RETH_LEN;
    }
    if (opf & ROCX_OPF_AETH) {
        h[0] = tx->syndrome;
        rocx_put_be24(h + 1, tx->msn);
        h += ROCX_AETH_LEN;
    }
    if (opf & ROCX_OPF_IMM) {
        memcpy(h, &tx->imm, ROCX_IMM_LEN);
    }
    memset(pay + tx->paylen, 0, pad);

    rocx_count(c, ROCX_STAT_ROCE_TX_PACKETS, 1);
    if (p->loopback) {
        /* Never on a wire, so no ICRC to make or check. */
        memset(icrc, 0, ROCX_ICRC_LEN);
        c->rdma.stats.loopback++;
        rocx_roce_receive(c, buf, len, true);
        return;
    }
    stl_le_p(icrc, rocx_icrc(p->net_type, l3, bth, icrc));
    if (!c->port.link_up) {
        rocx_count(c, ROCX_STAT_TX_DROPPED_LINK_DOWN, 1);
        return;
    }
    rocx_send_frame(c, buf, len);
}

/* ---- Parse ---- */

static const uint8_t rocx_v4_prefix[12] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
};

/* Drop a frame that is RoCE for us but not acceptable. */
static RocxRxVerdict rocx_rx_drop(RocxCore *c)
{
    rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
    return ROCX_RX_DONE;
}

RocxRxVerdict rocx_roce_receive(RocxCore *c, const uint8_t *buf, size_t len,
                                bool loopback)
{
    const uint8_t *end = buf + len;
    const uint8_t *l3, *bth, *h, *icrc;
    uint16_t etype;
    uint8_t dgid[16];
    RocxGid *g;
    RocxPkt p;
    RocxQp *qp;
    size_t l2 = ROCX_ETH_HLEN;
    unsigned pad, hlen;

    if (len < ROCX_ETH_HLEN) {
        return ROCX_RX_NOT_ROCE;
    }
    etype = lduw_be_p(buf + 12);
    if (etype == ROCX_ETHERTYPE_VLAN) {
        if (len < ROCX_ETH_HLEN + ROCX_VLAN_HLEN) {
            return ROCX_RX_NOT_ROCE;
        }
        etype = lduw_be_p(buf + 16);
        l2 += ROCX_VLAN_HLEN;
    }
    l3 = buf + l2;
    memset(&p, 0, sizeof(p));
    p.loopback = loopback;

    /* Stage 1: is it RoCE for one of our GIDs?  If not, not our business. */
    switch (etype) {
    case ROCX_ETHERTYPE_ROCE:
        if (end - l3 < ROCX_IPV6_HLEN) {
            return ROCX_RX_NOT_ROCE;
        }
        p.net_type = ROCX_NET_ROCE_V1;
        memcpy(p.sgid, l3 + 8, 16);
        memcpy(dgid, l3 + 24, 16);
        g = rocx_gid_find(c, dgid, ROCX_GID_TYPE_ROCE_V1);
        break;
    case ROCX_ETHERTYPE_IPV4:
        if (end - l3 < ROCX_IPV4_HLEN + ROCX_UDP_HLEN ||
            (l3[0] >> 4) != 4 || l3[9] != ROCX_IPPROTO_UDP ||
            (l3[0] & 0xf) < 5 ||
            end - l3 < (l3[0] & 0xf) * 4 + ROCX_UDP_HLEN ||
            lduw_be_p(l3 + (l3[0] & 0xf) * 4 + 2) != ROCX_ROCE_UDP_PORT) {
            return ROCX_RX_NOT_ROCE;
        }
        p.net_type = ROCX_NET_ROCE_V2_IPV4;
        memcpy(p.sgid, rocx_v4_prefix, 12);
        memcpy(p.sgid + 12, l3 + 12, 4);
        memcpy(dgid, rocx_v4_prefix, 12);
        memcpy(dgid + 12, l3 + 16, 4);
        g = rocx_gid_find(c, dgid, ROCX_GID_TYPE_ROCE_V2);
        break;
    case ROCX_ETHERTYPE_IPV6:
        if (end - l3 < ROCX_IPV6_HLEN + ROCX_UDP_HLEN ||
            (l3[0] >> 4) != 6 || l3[6] != ROCX_IPPROTO_UDP ||
            lduw_be_p(l3 + ROCX_IPV6_HLEN + 2) != ROCX_ROCE_UDP_PORT) {
            return ROCX_RX_NOT_ROCE;
        }
        p.net_type = ROCX_NET_ROCE_V2_IPV6;
        memcpy(p.sgid, l3 + 8, 16);
        memcpy(dgid, l3 + 24, 16);
        g = rocx_gid_find(c, dgid, ROCX_GID_TYPE_ROCE_V2);
        break;
    default:
        return ROCX_RX_NOT_ROCE;
    }
    if (!g || (!loopback && memcmp(buf, c->port.mac, 6) &&
               memcmp(buf, g->mac, 6))) {
        return ROCX_RX_NOT_ROCE;
    }
    memcpy(p.dgid, dgid, 16);

    /* Stage 2: ours.  Network header lengths and versions. */
    switch (p.net_type) {
    case ROCX_NET_ROCE_V1: {
        uint16_t plen = lduw_be_p(l3 + 4);

        if ((l3[0] >> 4) != 6 || l3[6] != ROCX_GRH_NEXT_BTH ||
            plen > end - (l3 + ROCX_IPV6_HLEN)) {
            return rocx_rx_drop(c);
        }
        bth = l3 + ROCX_IPV6_HLEN;
        end = bth + plen;
        break;
    }
    case ROCX_NET_ROCE_V2_IPV4: {
        uint16_t tot = lduw_be_p(l3 + 2);
        const uint8_t *udp = l3 + ROCX_IPV4_HLEN;

        /* No options, no fragments, a correct checksum. */
        if ((l3[0] & 0xf) != 5 || tot > end - l3 ||
            tot < ROCX_IPV4_HLEN + ROCX_UDP_HLEN ||
            (lduw_be_p(l3 + 6) & 0x3fff) || rocx_ipv4_csum(l3) ||
            lduw_be_p(udp + 4) != tot - ROCX_IPV4_HLEN) {
            return rocx_rx_drop(c);
        }
        bth = udp + ROCX_UDP_HLEN;
        end = l3 + tot;
        break;
    }
    default: {
        uint16_t plen = lduw_be_p(l3 + 4);
        const uint8_t *udp = l3 + ROCX_IPV6_HLEN;

        if (plen > end - udp || plen < ROCX_UDP_HLEN ||
            lduw_be_p(udp + 4) != plen) {
            return rocx_rx_drop(c);
        }
        bth = udp + ROCX_UDP_HLEN;
        end = udp + plen;
        break;
    }
    }
    if (end - bth < ROCX_BTH_LEN + ROCX_ICRC_LEN) {
        return rocx_rx_drop(c);
    }

    /* Stage 3: the ICRC covers everything that follows. */
    icrc = end - ROCX_ICRC_LEN;
    if (!loopback &&
        (uint32_t)ldl_le_p(icrc) != rocx_icrc(p.net_type, l3, bth, icrc)) {
        rocx_count(c, ROCX_STAT_ROCE_ICRC_ERRORS, 1);
        return ROCX_RX_DONE;
    }

    /* Stage 4: transport headers. */
    p.opcode = bth[0];
    p.opf = rocx_op_flags(p.opcode);
    pad = (bth[1] >> 4) & 3;
    hlen = rocx_ext_len(p.opf);
    if (!(p.opf & ROCX_OPF_VALID) || (bth[1] & 0xf) ||
        (lduw_be_p(bth + 2) & 0x7fff) != 0x7fff ||
        icrc - bth < hlen + pad ||
        (!(p.opf & ROCX_OPF_PAYLOAD) && icrc - bth != hlen)) {
        return rocx_rx_drop(c);
    }
    p.se = bth[1] & 0x80;
    p.dqpn = rocx_get_be24(bth + 5);
    p.ackreq = bth[8] & 0x80;
    p.psn = rocx_get_be24(bth + 9);
    h = bth + ROCX_BTH_LEN;
    if (p.opf & ROCX_OPF_RETH) {
        p.va = ldq_be_p(h);
        p.rkey = ldl_be_p(h + 8);
        p.dmalen = ldl_be_p(h + 12);
        h += ROCX_RETH_LEN;
    }
    if (p.opf & ROCX_OPF_AETH) {
        p.syndrome = h[0];
        p.msn = rocx_get_be24(h + 1);
        h += ROCX_AETH_LEN;
    }
    if (p.opf & ROCX_OPF_IMM) {
        memcpy(&p.imm, h, ROCX_IMM_LEN);
    }
    p.payload = bth + hlen;
    p.paylen = icrc - pad - p.payload;

    /* Stage 5: a QP that expects this peer. */
    qp = rocx_qp_get(c, p.dqpn);
    if (!qp || qp->type != ROCX_QPT_RC ||
        (qp->state != ROCX_QPS_RTR && qp->state != ROCX_QPS_RTS) ||
        qp->path.net_type != p.net_type ||
        memcmp(qp->path.dgid, p.sgid, 16) ||
        memcmp(qp->path.sgid, p.dgid, 16)) {
        return rocx_rx_drop(c);
    }
    rocx_count(c, ROCX_STAT_ROCE_RX_PACKETS, 1);
    if (p.opf & ROCX_OPF_REQ) {
        rocx_resp_rx(c, qp, &p);
    } else {
        rocx_comp_rx(c, qp, &p);
    }
    return ROCX_RX_DONE;
}
