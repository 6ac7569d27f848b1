/*
 * rocx device model: RoCE headers on the wire.
 *
 * Build: Ethernet (and an 802.1Q tag when the path has a VLAN), then
 * IPv4 + UDP (RoCE v2), IPv6 + UDP (RoCE v2) or the GRH (RoCE v1), BTH,
 * the extension headers the opcode takes (RETH, AETH, ImmDt), payload,
 * pad to 4 bytes, ICRC.
 *
 * Parse: decide whether a received frame is RoCE for one of the port's
 * GIDs (only those leave the Ethernet path), then check every length,
 * version, checksum and the ICRC before anything reaches the transport.
 * A frame that is ours but wrong is dropped and counted, never trusted.
 *
 * The layouts, and every field access, are rocx-hdr.h's.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* Hop limit and TTL of a path that names none. */
#define ROCX_DEFAULT_TTL    64

/* ---- Opcodes ---- */

#define V   ROCX_OPF_VALID
#define RQ  (ROCX_OPF_VALID | ROCX_OPF_REQ)
#define S   (RQ | ROCX_OPF_SEND | ROCX_OPF_PAYLOAD)
#define W   (RQ | ROCX_OPF_WRITE | ROCX_OPF_PAYLOAD)
#define RR  (V | ROCX_OPF_RESP | ROCX_OPF_PAYLOAD)
#define F   ROCX_OPF_FIRST
#define L   ROCX_OPF_LAST
#define IMM ROCX_OPF_IMM
#define X   ROCX_OPF_XRCETH

/*
 * The operations of each transport and their flags (IBTA table 38), by
 * transport (opcode [7:5]) and operation (opcode [4:0]).  A transport
 * without entries takes nothing: its packets are invalid, and dropped.
 */
static const uint32_t rocx_opf[(ROCX_TR_MASK >> 5) + 1][ROCX_OP_MASK + 1] = {
    [ROCX_TR_RC >> 5] = {
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
        [ROCX_OP_READ_REQ]          = RQ | F | L | ROCX_OPF_READ |
                                      ROCX_OPF_RETH,
        [ROCX_OP_READ_RESP_FIRST]   = RR | F | ROCX_OPF_AETH,
        [ROCX_OP_READ_RESP_MIDDLE]  = RR,
        [ROCX_OP_READ_RESP_LAST]    = RR | L | ROCX_OPF_AETH,
        [ROCX_OP_READ_RESP_ONLY]    = RR | F | L | ROCX_OPF_AETH,
        [ROCX_OP_ACK]               = V | ROCX_OPF_AETH,
        /* Atomics (contract 1.2); SEND with invalidate (IETH) to come. */
        [ROCX_OP_ATOMIC_ACK]        = V | ROCX_OPF_AETH | ROCX_OPF_ATOMACKETH,
        [ROCX_OP_CMP_SWAP]          = RQ | F | L | ROCX_OPF_ATOMETH,
        [ROCX_OP_FETCH_ADD]         = RQ | F | L | ROCX_OPF_ATOMETH,
        /* SEND with invalidate (ROCX_CAP2_MW). */
        [ROCX_OP_SEND_LAST_INV]     = S | L | ROCX_OPF_IETH,
        [ROCX_OP_SEND_ONLY_INV]     = S | F | L | ROCX_OPF_IETH,
    },
    /* UC (rocx-uc.c): SEND and WRITE as RC has them, no READ, no ACK. */
    [ROCX_TR_UC >> 5] = {
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
    },
    /* UD (rocx-ud.c): SEND_ONLY and SEND_ONLY_IMM, each with a DETH. */
    [ROCX_TR_UD >> 5] = {
        [ROCX_OP_SEND_ONLY]         = S | F | L | ROCX_OPF_DETH,
        [ROCX_OP_SEND_ONLY_IMM]     = S | F | L | ROCX_OPF_DETH | IMM,
    },
    /* XRC (rocx-xrc.c): RC's operations, each request with an XRCETH. */
    [ROCX_TR_XRC >> 5] = {
        [ROCX_OP_SEND_FIRST]        = S | F | X,
        [ROCX_OP_SEND_MIDDLE]       = S | X,
        [ROCX_OP_SEND_LAST]         = S | L | X,
        [ROCX_OP_SEND_LAST_IMM]     = S | L | IMM | X,
        [ROCX_OP_SEND_ONLY]         = S | F | L | X,
        [ROCX_OP_SEND_ONLY_IMM]     = S | F | L | IMM | X,
        [ROCX_OP_WRITE_FIRST]       = W | F | ROCX_OPF_RETH | X,
        [ROCX_OP_WRITE_MIDDLE]      = W | X,
        [ROCX_OP_WRITE_LAST]        = W | L | X,
        [ROCX_OP_WRITE_LAST_IMM]    = W | L | IMM | X,
        [ROCX_OP_WRITE_ONLY]        = W | F | L | ROCX_OPF_RETH | X,
        [ROCX_OP_WRITE_ONLY_IMM]    = W | F | L | ROCX_OPF_RETH | IMM | X,
        [ROCX_OP_READ_REQ]          = RQ | F | L | ROCX_OPF_READ |
                                      ROCX_OPF_RETH | X,
        [ROCX_OP_READ_RESP_FIRST]   = RR | F | ROCX_OPF_AETH,
        [ROCX_OP_READ_RESP_MIDDLE]  = RR,
        [ROCX_OP_READ_RESP_LAST]    = RR | L | ROCX_OPF_AETH,
        [ROCX_OP_READ_RESP_ONLY]    = RR | F | L | ROCX_OPF_AETH,
        [ROCX_OP_ACK]               = V | ROCX_OPF_AETH,
        [ROCX_OP_ATOMIC_ACK]        = V | ROCX_OPF_AETH | ROCX_OPF_ATOMACKETH,
        [ROCX_OP_CMP_SWAP]          = RQ | F | L | ROCX_OPF_ATOMETH | X,
        [ROCX_OP_FETCH_ADD]         = RQ | F | L | ROCX_OPF_ATOMETH | X,
        [ROCX_OP_SEND_LAST_INV]     = S | L | ROCX_OPF_IETH | X,
        [ROCX_OP_SEND_ONLY_INV]     = S | F | L | ROCX_OPF_IETH | X,
    },
    /*
     * CNP (rocx-cc.c): ROCX_OP_CNP, ROCX_CNP_PAYLOAD_LEN reserved bytes,
     * which rocx_cc_rx_cnp() checks.
     */
    [ROCX_TR_CNP >> 5] = {
        [ROCX_OP_CNP]               = V | ROCX_OPF_PAYLOAD,
    },
    /*
     * Further transports come with later contracts.
     */
};

#undef V
#undef RQ
#undef S
#undef W
#undef RR
#undef F
#undef L
#undef IMM
#undef X

uint32_t rocx_op_flags(uint8_t opcode)
{
    return rocx_opf[opcode >> 5][opcode & ROCX_OP_MASK];
}

/* ---- Build ---- */

static size_t rocx_l2_len(const RocxPath *p)
{
    return ETH_HLEN + (p->tci != ROCX_VLAN_NONE ? ROCX_VLAN_HLEN : 0);
}

/* The network headers: IPv4 or IPv6 and UDP, or the GRH. */
static size_t rocx_l3_len(uint8_t net_type)
{
    switch (net_type) {
    case ROCX_NET_ROCE_V2_IPV4:
        return ROCX_IPV4_HLEN + ROCX_UDP_HLEN;
    case ROCX_NET_ROCE_V2_IPV6:
        return ROCX_IPV6_HLEN + ROCX_UDP_HLEN;
    default:
        return ROCX_GRH_LEN;
    }
}

size_t rocx_wire_hdr_len(const RocxQp *qp, uint8_t opcode)
{
    return rocx_l2_len(&qp->path) + rocx_l3_len(qp->path.net_type) +
           rocx_tp_hlen(rocx_op_flags(rocx_xrc_wire_op(qp, opcode)));
}

uint8_t *rocx_wire_buf(RocxCore *c, const RocxQp *qp)
{
    /*
     * Headers (with every extension header an RC opcode can carry), a
     * payload of the path MTU, pad and ICRC.
     */
    return rocx_frame_buf(c, rocx_l2_len(&qp->path) +
                          rocx_l3_len(qp->path.net_type) +
                          rocx_tp_hlen(ROCX_OPF_XRCETH | ROCX_OPF_RETH |
                                       ROCX_OPF_AETH | ROCX_OPF_IMM) +
                          qp->mtu + 3 + ROCX_ICRC_LEN);
}

void rocx_wire_send(RocxCore *c, RocxQp *qp, const RocxTx *tx)
{
    const RocxPath *p = &qp->path;
    /* An XRC QP sends RC's operations in its own transport. */
    uint8_t opcode = rocx_xrc_wire_op(qp, tx->opcode);
    uint32_t opf = rocx_op_flags(opcode);
    uint8_t hop_limit = p->hop_limit ? p->hop_limit : ROCX_DEFAULT_TTL;
    uint8_t *buf = rocx_wire_buf(c, qp);
    size_t l2 = rocx_l2_len(p);
    size_t l3len = rocx_l3_len(p->net_type);
    unsigned pad = -tx->paylen & 3;
    /* From the BTH to the end of the ICRC. */
    size_t l4len = rocx_tp_hlen(opf) + tx->paylen + pad + ROCX_ICRC_LEN;
    size_t bth_off = l2 + l3len;
    size_t len = bth_off + l4len;
    uint8_t *l3 = buf + l2;
    uint8_t *bth = buf + bth_off;
    uint8_t *icrc = buf + len - ROCX_ICRC_LEN;
    uint8_t tclass = rocx_cc_tclass(c, qp, opf);

    /* Callers size payloads by the path MTU, which always fits. */
    assert(len <= ROCX_MAX_FRAME);

    switch (p->net_type) {
    case ROCX_NET_ROCE_V2_IPV4:
        rocx_eth_build(buf, p->dmac, p->smac, p->tci, ETH_P_IP);
        rocx_ip4_build(l3, tclass, l3len + l4len, hop_limit,
                       IP_PROTO_UDP, rocx_gid_v4(p->sgid),
                       rocx_gid_v4(p->dgid));
        break;
    case ROCX_NET_ROCE_V2_IPV6:
        rocx_eth_build(buf, p->dmac, p->smac, p->tci, ETH_P_IPV6);
        rocx_ip6_build(l3, tclass, p->flow_label,
                       ROCX_UDP_HLEN + l4len, IP_PROTO_UDP, hop_limit,
                       p->sgid, p->dgid);
        break;
    default:
        rocx_eth_build(buf, p->dmac, p->smac, p->tci, ROCX_ETHERTYPE_ROCE);
        rocx_ip6_build(l3, tclass, p->flow_label, l4len,
                       ROCX_GRH_NEXT_BTH, hop_limit, p->sgid, p->dgid);
        break;
    }
    if (p->net_type != ROCX_NET_ROCE_V1) {
        /* Right before the BTH; the ICRC covers it, its checksum is 0. */
        rocx_udp_build(buf + bth_off - ROCX_UDP_HLEN, p->udp_sport,
                       ROCX_UDP_HLEN + l4len);
    }

    rocx_bth_build(bth, opcode, tx->se, pad, ROCX_PKEY_DEFAULT,
                   qp->dest_qpn, tx->ackreq, tx->psn);
    if (opf & ROCX_OPF_DETH) {
        rocx_deth_build(bth, opf, tx->qkey, qp->qpn);
    }
    if (opf & ROCX_OPF_XRCETH) {
        /*
         * Only an XRC_INI QP sends requests of XRC, and every one of
         * them is of the WQE rocx_req_run() holds in req.wqe.
         */
        rocx_xrceth_build(bth, opf, qp->req.wqe.xrc_srqn);
    }
    if (opf & ROCX_OPF_RETH) {
        rocx_reth_build(bth, opf, tx->va, tx->rkey, tx->dmalen);
    }
    if (opf & ROCX_OPF_ATOMETH) {
        rocx_atometh_build(bth, opf, tx->va, tx->rkey, tx->swap_add,
                           tx->compare);
    }
    if (opf & ROCX_OPF_AETH) {
        rocx_aeth_build(bth, opf, tx->syndrome, tx->msn);
    }
    if (opf & ROCX_OPF_ATOMACKETH) {
        rocx_atomacketh_build(bth, opf, tx->orig);
    }
    if (opf & ROCX_OPF_IMM) {
        rocx_immdt_build(bth, opf, tx->imm);
    }
    if (opf & ROCX_OPF_IETH) {
        rocx_ieth_build(bth, opf, tx->ieth);
    }
    memset(icrc - pad, 0, pad);

    rocx_count(c, ROCX_STAT_ROCE_TX_PACKETS, 1);
    rocx_sched_roce(c, len);
    if (qp->type == ROCX_QPT_UD && !(qp->flags & ROCX_QP_NO_MC_LOOPBACK) &&
        rocx_gid_is_mcast(p->dgid)) {
        /* Before the wire: buf may be a bundle's, which sending may send. */
        rocx_mcast_loopback(c, p->dgid, buf, len);
    }
    if (p->loopback) {
        /* Never on a wire, so no ICRC to make or check. */
        memset(icrc, 0, ROCX_ICRC_LEN);
        c->rdma.stats.loopback++;
        rocx_roce_receive(c, buf, len, true);
        return;
    }
    rocx_icrc_put(icrc, rocx_icrc(p->net_type, l3, bth, icrc));
    if (!c->port.link_up) {
        rocx_count(c, ROCX_STAT_TX_DROPPED_LINK_DOWN, 1);
        return;
    }
    rocx_dcb_tx_count(c, p->prio, len);
    rocx_send_frame(c, buf, len);
}

/* ---- Parse ---- */

/*
 * A received frame on its way through the stages of rocx_roce_receive():
 * each stage checks what it covers and finds the next header.
 */
typedef struct RocxRxFrame {
    const uint8_t *buf;         /* the Ethernet header */
    const uint8_t *l3;          /* IPv4, IPv6 or the GRH */
    const uint8_t *bth;
    const uint8_t *icrc;
    const uint8_t *end;         /* of the frame; then of the IP packet */
    bool loopback;              /* from one of our own QPs: no ICRC */
} RocxRxFrame;

/*
 * Stage 1: is the frame RoCE for one of our GIDs, to one of our MACs?  If
 * not, it is not the transport's business: it takes the Ethernet path.
 * Fills in the packet's network type and GIDs.
 */
static bool rocx_rx_match_gid(RocxCore *c, RocxRxFrame *f, RocxPkt *p)
{
    const uint8_t *buf = f->buf, *end = f->end, *l3;
    uint16_t etype;
    size_t l2 = ETH_HLEN;
    uint8_t dgid[16];
    RocxGid *g;

    if (end - buf < ETH_HLEN) {
        return false;
    }
    etype = rocx_eth_type(buf);
    p->vlan = ROCX_VLAN_NONE;
    if (etype == ETH_P_VLAN) {
        if (end - buf < ETH_HLEN + ROCX_VLAN_HLEN) {
            return false;
        }
        etype = rocx_vlan_type(buf);
        p->vlan = rocx_vlan_vid(buf);
        l2 += ROCX_VLAN_HLEN;
    }
    l3 = buf + l2;

    switch (etype) {
    case ROCX_ETHERTYPE_ROCE:
        if (end - l3 < ROCX_GRH_LEN) {
            return false;
        }
        p->net_type = ROCX_NET_ROCE_V1;
        memcpy(p->sgid, rocx_ip6_src(l3), 16);
        memcpy(dgid, rocx_ip6_dst(l3), 16);
        g = rocx_gid_find(c, dgid, ROCX_GID_TYPE_ROCE_V1);
        break;
    case ETH_P_IP:
        if (end - l3 < ROCX_IPV4_HLEN + ROCX_UDP_HLEN ||
            rocx_ip4_version(l3) != IP_HEADER_VERSION_4 ||
            rocx_ip4_proto(l3) != IP_PROTO_UDP ||
            rocx_ip4_hlen(l3) < ROCX_IPV4_HLEN ||
            end - l3 < rocx_ip4_hlen(l3) + ROCX_UDP_HLEN ||
            rocx_udp_dport(rocx_ip4_next(l3)) != ROCX_ROCE_UDP_PORT) {
            return false;
        }
        p->net_type = ROCX_NET_ROCE_V2_IPV4;
        rocx_gid_from_v4(p->sgid, rocx_ip4_src(l3));
        rocx_gid_from_v4(dgid, rocx_ip4_dst(l3));
        g = rocx_gid_find(c, dgid, ROCX_GID_TYPE_ROCE_V2);
        break;
    case ETH_P_IPV6:
        if (end - l3 < ROCX_IPV6_HLEN + ROCX_UDP_HLEN ||
            rocx_ip6_version(l3) != IP_HEADER_VERSION_6 ||
            rocx_ip6_next_hdr(l3) != IP_PROTO_UDP ||
            rocx_udp_dport(rocx_ip6_next(l3)) != ROCX_ROCE_UDP_PORT) {
            return false;
        }
        p->net_type = ROCX_NET_ROCE_V2_IPV6;
        memcpy(p->sgid, rocx_ip6_src(l3), 16);
        memcpy(dgid, rocx_ip6_dst(l3), 16);
        g = rocx_gid_find(c, dgid, ROCX_GID_TYPE_ROCE_V2);
        break;
    default:
        return false;
    }
    if (!g && rocx_gid_is_mcast(dgid)) {
        /* A group with QPs attached, at the group's own MAC. */
        if (!rocx_mcast_accepts(c, dgid, f->loopback ? NULL : buf)) {
            return false;
        }
    } else if (!g || (!f->loopback && memcmp(buf, c->port.mac, ETH_ALEN) &&
                      memcmp(buf, g->mac, ETH_ALEN))) {
        return false;
    }
    memcpy(p->dgid, dgid, 16);
    memcpy(p->smac, rocx_eth_src(buf), ETH_ALEN);
    f->l3 = l3;
    p->l3 = l3;
    return true;
}

/*
 * Stage 2: the network headers' versions and lengths, and the IPv4
 * checksum.  Finds the BTH and where the packet ends (which may be
 * before the frame does: Ethernet pads short frames).
 */
static bool rocx_rx_check_l3l4(RocxRxFrame *f, uint8_t net_type)
{
    const uint8_t *l3 = f->l3, *end = f->end, *udp;
    uint16_t len;

    switch (net_type) {
    case ROCX_NET_ROCE_V1:
        if (rocx_ip6_version(l3) != IP_HEADER_VERSION_6 ||
            rocx_ip6_next_hdr(l3) != ROCX_GRH_NEXT_BTH ||
            rocx_ip6_plen(l3) > end - rocx_ip6_next(l3)) {
            return false;
        }
        f->bth = rocx_ip6_next(l3);
        f->end = rocx_ip6_end(l3);
        break;
    case ROCX_NET_ROCE_V2_IPV4:
        len = rocx_ip4_tot_len(l3);
        /* No options, no fragments, a correct checksum. */
        if (rocx_ip4_hlen(l3) != ROCX_IPV4_HLEN || len > end - l3 ||
            len < ROCX_IPV4_HLEN + ROCX_UDP_HLEN ||
            rocx_ip4_fragment(l3) || rocx_ip4_csum(l3) ||
            rocx_udp_len(rocx_ip4_next(l3)) != len - ROCX_IPV4_HLEN) {
            return false;
        }
        f->bth = rocx_udp_next(rocx_ip4_next(l3));
        f->end = rocx_ip4_end(l3);
        break;
    default:
        len = rocx_ip6_plen(l3);
        udp = rocx_ip6_next(l3);
        if (len > end - udp || len < ROCX_UDP_HLEN ||
            rocx_udp_len(udp) != len) {
            return false;
        }
        f->bth = rocx_udp_next(udp);
        f->end = rocx_ip6_end(l3);
        break;
    }
    return f->end - f->bth >= ROCX_BTH_LEN + ROCX_ICRC_LEN;
}

/* Stage 3: the ICRC, over everything from the network header on. */
static bool rocx_rx_check_icrc(RocxRxFrame *f, uint8_t net_type)
{
    f->icrc = f->end - ROCX_ICRC_LEN;
    return f->loopback ||
           rocx_icrc_get(f->icrc) ==
           rocx_icrc(net_type, f->l3, f->bth, f->icrc);
}

/*
 * Stage 4: the BTH and the extension headers its opcode takes, into the
 * packet: a valid opcode, transport version 0, the default partition, a
 * length that holds the headers and the pad (exactly, without payload).
 */
static bool rocx_rx_parse_bth(const RocxRxFrame *f, RocxPkt *p)
{
    const uint8_t *bth = f->bth;
    unsigned pad, hlen;

    p->opcode = rocx_bth_opcode(bth);
    p->opf = rocx_op_flags(p->opcode);
    pad = rocx_bth_pad(bth);
    hlen = rocx_tp_hlen(p->opf);
    if (!(p->opf & ROCX_OPF_VALID) || rocx_bth_tver(bth) ||
        (rocx_bth_pkey(bth) & ROCX_PKEY_KEY_MASK) !=
        (ROCX_PKEY_DEFAULT & ROCX_PKEY_KEY_MASK) ||
        f->icrc - bth < hlen + pad ||
        (!(p->opf & ROCX_OPF_PAYLOAD) && f->icrc - bth != hlen)) {
        return false;
    }
    p->se = rocx_bth_se(bth);
    p->dqpn = rocx_bth_dqpn(bth);
    p->ackreq = rocx_bth_ackreq(bth);
    p->psn = rocx_bth_psn(bth);
    if (p->opf & ROCX_OPF_DETH) {
        p->qkey = rocx_deth_qkey(bth, p->opf);
        p->src_qp = rocx_deth_src_qp(bth, p->opf);
    }
    if (p->opf & ROCX_OPF_XRCETH) {
        p->xrc_srqn = rocx_xrceth_srq(bth, p->opf);
    }
    if (p->opf & ROCX_OPF_RETH) {
        p->va = rocx_reth_va(bth, p->opf);
        p->rkey = rocx_reth_rkey(bth, p->opf);
        p->dmalen = rocx_reth_dmalen(bth, p->opf);
    }
    if (p->opf & ROCX_OPF_ATOMETH) {
        p->va = rocx_atometh_va(bth, p->opf);
        p->rkey = rocx_atometh_rkey(bth, p->opf);
        p->swap_add = rocx_atometh_swap_add(bth, p->opf);
        p->compare = rocx_atometh_compare(bth, p->opf);
    }
    if (p->opf & ROCX_OPF_AETH) {
        p->syndrome = rocx_aeth_syndrome(bth, p->opf);
        p->msn = rocx_aeth_msn(bth, p->opf);
    }
    if (p->opf & ROCX_OPF_ATOMACKETH) {
        p->orig = rocx_atomacketh_orig(bth, p->opf);
    }
    if (p->opf & ROCX_OPF_IMM) {
        p->imm = rocx_immdt(bth, p->opf);
    }
    if (p->opf & ROCX_OPF_IETH) {
        p->ieth = rocx_ieth(bth, p->opf);
    }
    p->payload = rocx_payload(bth, p->opf);
    p->paylen = f->icrc - pad - p->payload;
    return true;
}

/*
 * Stage 5: the destination QP, if it is ready and expects this peer, in
 * its own transport.
 */
static RocxQp *rocx_rx_find_qp(RocxCore *c, const RocxPkt *p)
{
    RocxQp *qp = rocx_qp_get(c, p->dqpn);

    if (!qp || (qp->type != ROCX_QPT_RC && qp->type != ROCX_QPT_UC &&
                !rocx_qp_is_xrc(qp)) ||
        (p->opcode & ROCX_TR_MASK) != rocx_qp_transport(qp) ||
        (qp->state != ROCX_QPS_RTR && qp->state != ROCX_QPS_RTS) ||
        qp->path.net_type != p->net_type ||
        memcmp(qp->path.dgid, p->sgid, 16) ||
        memcmp(qp->path.sgid, p->dgid, 16)) {
        return NULL;
    }
    return qp;
}

/* Drop a frame that is RoCE for us but not acceptable. */
static RocxRxVerdict rocx_rx_drop(RocxCore *c)
{
    rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
    return ROCX_RX_DONE;
}

RocxRxVerdict rocx_roce_receive(RocxCore *c, const uint8_t *buf, size_t len,
                                bool loopback)
{
    RocxRxFrame f = {
        .buf = buf,
        .end = buf + len,
        .loopback = loopback,
    };
    RocxPkt p = {
        .loopback = loopback,
    };
    RocxQp *qp;

    if (!rocx_rx_match_gid(c, &f, &p)) {
        return ROCX_RX_NOT_ROCE;
    }
    if (!rocx_rx_check_l3l4(&f, p.net_type)) {
        return rocx_rx_drop(c);
    }
    if (!rocx_rx_check_icrc(&f, p.net_type)) {
        rocx_count(c, ROCX_STAT_ROCE_ICRC_ERRORS, 1);
        return ROCX_RX_DONE;
    }
    if (!rocx_rx_parse_bth(&f, &p)) {
        return rocx_rx_drop(c);
    }
    if (rocx_op_transport(p.opcode) == ROCX_TR_UD) {
        rocx_ud_rx(c, &p);
        return ROCX_RX_DONE;
    }
    if (rocx_op_transport(p.opcode) == ROCX_TR_CNP) {
        rocx_cc_rx_cnp(c, &p);
        return ROCX_RX_DONE;
    }
    qp = rocx_rx_find_qp(c, &p);
    if (!qp) {
        return rocx_rx_drop(c);
    }
    rocx_count(c, ROCX_STAT_ROCE_RX_PACKETS, 1);
    rocx_cc_np_rx(c, qp, &p, buf, len);
    if (rocx_qp_is_xrc(qp) && !rocx_xrc_rx(c, qp, &p)) {
        return ROCX_RX_DONE;
    }
    if ((p.opf & ROCX_OPF_REQ) && qp->type == ROCX_QPT_UC) {
        rocx_uc_resp_rx(c, qp, &p);
    } else if (p.opf & ROCX_OPF_REQ) {
        rocx_resp_rx(c, qp, &p);
    } else {
        rocx_comp_rx(c, qp, &p);
    }
    return ROCX_RX_DONE;
}
