/*
 * rocx device model: the layout of a RoCE packet, and accessors for it.
 *
 * A RoCE frame is an Ethernet header (with an 802.1Q tag when the path
 * has a VLAN), a network header, then the InfiniBand transport: the BTH,
 * the extension headers its opcode takes, the payload, a pad to 4 bytes
 * and the ICRC.  RoCE v1's network header is the GRH (EtherType 0x8915);
 * RoCE v2's is IPv4 or IPv6, then UDP to port 4791.  Ethernet, IPv4, IPv6
 * and UDP are laid out as QEMU's net/eth.h declares them, the transport
 * headers as the IBTA specification (volume 1, chapter 9) does.
 *
 * Every header field the model reads or writes goes through an accessor
 * here, which also converts from or to the wire's byte order; so does
 * every step from one header to the next.  No other file computes an
 * offset into a header.
 *
 * The extension headers follow the BTH in the IBTA's order, each present
 * when the opcode's flags (rocx_op_flags()) name it:
 *
 *   BTH [DETH] [XRCETH] [RETH | AtomicETH] [AETH [AtomicAckETH]]
 *       [ImmDt | IETH] payload pad ICRC
 *
 * The RC transport uses RETH, AETH and ImmDt.  DETH (UD), XRCETH (XRC),
 * AtomicETH and AtomicAckETH (atomics), IETH (SEND with invalidate) and
 * the CNP have their layout here already, so that the QP types and
 * operations to come add accessors, not offsets.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ROCX_HDR_H
#define HW_NET_ROCX_HDR_H

#include "qemu/bswap.h"
#include "net/checksum.h"
#include "net/eth.h"
#include "rocx/rocx_if.h"

/* ---- Ethernet and 802.1Q (net/eth.h: struct eth_header, vlan_header) ---- */

/* Header lengths are ints, as ETH_HLEN is: they meet pointer differences. */
#define ROCX_VLAN_HLEN          ((int)sizeof(struct vlan_header))
/* RoCE v1: the GRH follows the Ethernet header. */
#define ROCX_ETHERTYPE_ROCE     0x8915

static inline uint16_t rocx_eth_type(const uint8_t *eth)
{
    return lduw_be_p(eth + offsetof(struct eth_header, h_proto));
}

/* The EtherType behind an 802.1Q tag. */
static inline uint16_t rocx_vlan_type(const uint8_t *eth)
{
    return lduw_be_p(eth + ETH_HLEN + offsetof(struct vlan_header, h_proto));
}

static inline const uint8_t *rocx_eth_src(const uint8_t *eth)
{
    return eth + offsetof(struct eth_header, h_source);
}

/* The VLAN id of an 802.1Q tag (the priority bits apart). */
static inline uint16_t rocx_vlan_vid(const uint8_t *eth)
{
    return lduw_be_p(eth + ETH_HLEN + offsetof(struct vlan_header, h_tci)) &
           VLAN_VID_MASK;
}

/* Addresses, the tag unless vlan is ROCX_VLAN_NONE, the EtherType. */
static inline void rocx_eth_build(uint8_t *eth, const uint8_t *dmac,
                                  const uint8_t *smac, uint16_t vlan,
                                  uint16_t type)
{
    memcpy(eth + offsetof(struct eth_header, h_dest), dmac, ETH_ALEN);
    memcpy(eth + offsetof(struct eth_header, h_source), smac, ETH_ALEN);
    if (vlan != ROCX_VLAN_NONE) {
        stw_be_p(eth + offsetof(struct eth_header, h_proto), ETH_P_VLAN);
        stw_be_p(eth + ETH_HLEN + offsetof(struct vlan_header, h_tci), vlan);
        stw_be_p(eth + ETH_HLEN + offsetof(struct vlan_header, h_proto),
                 type);
        return;
    }
    stw_be_p(eth + offsetof(struct eth_header, h_proto), type);
}

/* ---- IPv4 (struct ip_header), RoCE v2 ---- */

/* The header without options, the only kind the model sends or takes. */
#define ROCX_IPV4_HLEN          ((int)sizeof(struct ip_header))
#define ROCX_IP4(field)         offsetof(struct ip_header, field)

static inline unsigned rocx_ip4_version(const uint8_t *ip)
{
    return ip[ROCX_IP4(ip_ver_len)] >> 4;
}

/* Header length in bytes, options included. */
static inline unsigned rocx_ip4_hlen(const uint8_t *ip)
{
    return (ip[ROCX_IP4(ip_ver_len)] & 0xf) * 4;
}

static inline uint16_t rocx_ip4_tot_len(const uint8_t *ip)
{
    return lduw_be_p(ip + ROCX_IP4(ip_len));
}

/* A fragment: more fragments follow, or a non-zero offset. */
static inline bool rocx_ip4_fragment(const uint8_t *ip)
{
    return lduw_be_p(ip + ROCX_IP4(ip_off)) & (IP_MF | IP_OFFMASK);
}

static inline uint8_t rocx_ip4_proto(const uint8_t *ip)
{
    return ip[ROCX_IP4(ip_p)];
}

static inline const uint8_t *rocx_ip4_src(const uint8_t *ip)
{
    return ip + ROCX_IP4(ip_src);
}

static inline const uint8_t *rocx_ip4_dst(const uint8_t *ip)
{
    return ip + ROCX_IP4(ip_dst);
}

/* Checksum of an option-less header: 0 when a received one is intact. */
static inline uint16_t rocx_ip4_csum(const uint8_t *ip)
{
    /* net_raw_checksum() only reads, whatever its prototype says. */
    return net_raw_checksum((uint8_t *)ip, ROCX_IPV4_HLEN);
}

/* The header after this one (UDP, for RoCE v2). */
static inline const uint8_t *rocx_ip4_next(const uint8_t *ip)
{
    return ip + rocx_ip4_hlen(ip);
}

/* Where the packet ends, by its total length. */
static inline const uint8_t *rocx_ip4_end(const uint8_t *ip)
{
    return ip + rocx_ip4_tot_len(ip);
}

/*
 * An option-less header with DF set, ID 0, and its checksum; src and dst
 * are 4-byte addresses.
 */
static inline void rocx_ip4_build(uint8_t *ip, uint8_t tos, uint16_t tot_len,
                                  uint8_t ttl, uint8_t proto,
                                  const uint8_t *src, const uint8_t *dst)
{
    ip[ROCX_IP4(ip_ver_len)] = IP_HEADER_VERSION_4 << 4 | ROCX_IPV4_HLEN / 4;
    ip[ROCX_IP4(ip_tos)] = tos;
    stw_be_p(ip + ROCX_IP4(ip_len), tot_len);
    stw_be_p(ip + ROCX_IP4(ip_id), 0);
    stw_be_p(ip + ROCX_IP4(ip_off), IP_DF);
    ip[ROCX_IP4(ip_ttl)] = ttl;
    ip[ROCX_IP4(ip_p)] = proto;
    stw_be_p(ip + ROCX_IP4(ip_sum), 0);
    memcpy(ip + ROCX_IP4(ip_src), src, 4);
    memcpy(ip + ROCX_IP4(ip_dst), dst, 4);
    stw_be_p(ip + ROCX_IP4(ip_sum), rocx_ip4_csum(ip));
}

/* The ICRC covers the header with TOS, TTL and checksum as ones. */
static inline void rocx_ip4_icrc_mask(uint8_t *ip)
{
    ip[ROCX_IP4(ip_tos)] = 0xff;
    ip[ROCX_IP4(ip_ttl)] = 0xff;
    stw_be_p(ip + ROCX_IP4(ip_sum), 0xffff);
}

/* ---- IPv6 (struct ip6_header), RoCE v2; RoCE v1's GRH is alike ---- */

#define ROCX_IPV6_HLEN          ((int)sizeof(struct ip6_header))
#define ROCX_GRH_LEN            ROCX_IPV6_HLEN
/* The GRH's next header when the BTH follows. */
#define ROCX_GRH_NEXT_BTH       0x1b
#define ROCX_IP6(field)         offsetof(struct ip6_header, field)
/* Version [31:28], traffic class [27:20], flow label [19:0]. */
#define ROCX_IP6_FLOW_MASK      0xfffffu

static inline unsigned rocx_ip6_version(const uint8_t *ip)
{
    return ip[ROCX_IP6(ip6_ctlun.ip6_un2_vfc)] >> 4;
}

static inline uint16_t rocx_ip6_plen(const uint8_t *ip)
{
    return lduw_be_p(ip + ROCX_IP6(ip6_plen));
}

static inline uint8_t rocx_ip6_next_hdr(const uint8_t *ip)
{
    return ip[ROCX_IP6(ip6_nxt)];
}

/* The source and destination addresses: the GIDs. */
static inline const uint8_t *rocx_ip6_src(const uint8_t *ip)
{
    return ip + ROCX_IP6(ip6_src);
}

static inline const uint8_t *rocx_ip6_dst(const uint8_t *ip)
{
    return ip + ROCX_IP6(ip6_dst);
}

/* The header after this one (UDP for RoCE v2, the BTH after a GRH). */
static inline const uint8_t *rocx_ip6_next(const uint8_t *ip)
{
    return ip + ROCX_IPV6_HLEN;
}

/* Where the packet ends, by its payload length. */
static inline const uint8_t *rocx_ip6_end(const uint8_t *ip)
{
    return rocx_ip6_next(ip) + rocx_ip6_plen(ip);
}

static inline void rocx_ip6_build(uint8_t *ip, uint8_t tclass, uint32_t flow,
                                  uint16_t plen, uint8_t next,
                                  uint8_t hop_limit, const uint8_t *src,
                                  const uint8_t *dst)
{
    stl_be_p(ip + ROCX_IP6(ip6_ctlun.ip6_un1.ip6_un1_flow),
             (uint32_t)IP_HEADER_VERSION_6 << 28 | (uint32_t)tclass << 20 |
             (flow & ROCX_IP6_FLOW_MASK));
    stw_be_p(ip + ROCX_IP6(ip6_plen), plen);
    ip[ROCX_IP6(ip6_nxt)] = next;
    ip[ROCX_IP6(ip6_ctlun.ip6_un1.ip6_un1_hlim)] = hop_limit;
    memcpy(ip + ROCX_IP6(ip6_src), src, 16);
    memcpy(ip + ROCX_IP6(ip6_dst), dst, 16);
}

/*
 * The ICRC covers the header with traffic class, flow label and hop limit
 * as ones; the version stays.
 */
static inline void rocx_ip6_icrc_mask(uint8_t *ip)
{
    uint8_t *vtf = ip + ROCX_IP6(ip6_ctlun.ip6_un1.ip6_un1_flow);

    stl_be_p(vtf, ldl_be_p(vtf) | 0x0fffffffu);
    ip[ROCX_IP6(ip6_ctlun.ip6_un1.ip6_un1_hlim)] = 0xff;
}

/* ---- UDP (struct udp_header), RoCE v2 ---- */

#define ROCX_UDP_HLEN           ((int)sizeof(struct udp_header))
#define ROCX_ROCE_UDP_PORT      4791
#define ROCX_UDP(field)         offsetof(struct udp_header, field)

static inline uint16_t rocx_udp_dport(const uint8_t *udp)
{
    return lduw_be_p(udp + ROCX_UDP(uh_dport));
}

static inline uint16_t rocx_udp_len(const uint8_t *udp)
{
    return lduw_be_p(udp + ROCX_UDP(uh_ulen));
}

/* The header after this one: the BTH. */
static inline const uint8_t *rocx_udp_next(const uint8_t *udp)
{
    return udp + ROCX_UDP_HLEN;
}

/* To the RoCE port, with checksum 0 as Linux sends RoCE v2. */
static inline void rocx_udp_build(uint8_t *udp, uint16_t sport, uint16_t len)
{
    stw_be_p(udp + ROCX_UDP(uh_sport), sport);
    stw_be_p(udp + ROCX_UDP(uh_dport), ROCX_ROCE_UDP_PORT);
    stw_be_p(udp + ROCX_UDP(uh_ulen), len);
    stw_be_p(udp + ROCX_UDP(uh_sum), 0);
}

/* The ICRC covers the header with the checksum as ones. */
static inline void rocx_udp_icrc_mask(uint8_t *udp)
{
    stw_be_p(udp + ROCX_UDP(uh_sum), 0xffff);
}

/* ---- Opcodes (IBTA table 38): transport [7:5], operation [4:0] ---- */

#define ROCX_TR_RC              0x00
#define ROCX_TR_UC              0x20
#define ROCX_TR_RD              0x40    /* never supported */
#define ROCX_TR_UD              0x60
#define ROCX_TR_CNP             0x80    /* RoCE v2 congestion notification */
#define ROCX_TR_XRC             0xa0
#define ROCX_TR_MASK            0xe0
#define ROCX_OP_MASK            0x1f

static inline uint8_t rocx_op_transport(uint8_t opcode)
{
    return opcode & ROCX_TR_MASK;
}

/*
 * Operations; the RC transport's code is 0, so an RC opcode is its
 * operation and the RC engine sends these as they are.
 */
enum {
    ROCX_OP_SEND_FIRST          = 0x00,
    ROCX_OP_SEND_MIDDLE         = 0x01,
    ROCX_OP_SEND_LAST           = 0x02,
    ROCX_OP_SEND_LAST_IMM       = 0x03,
    ROCX_OP_SEND_ONLY           = 0x04,
    ROCX_OP_SEND_ONLY_IMM       = 0x05,
    ROCX_OP_WRITE_FIRST         = 0x06,
    ROCX_OP_WRITE_MIDDLE        = 0x07,
    ROCX_OP_WRITE_LAST          = 0x08,
    ROCX_OP_WRITE_LAST_IMM      = 0x09,
    ROCX_OP_WRITE_ONLY          = 0x0a,
    ROCX_OP_WRITE_ONLY_IMM      = 0x0b,
    ROCX_OP_READ_REQ            = 0x0c,
    ROCX_OP_READ_RESP_FIRST     = 0x0d,
    ROCX_OP_READ_RESP_MIDDLE    = 0x0e,
    ROCX_OP_READ_RESP_LAST      = 0x0f,
    ROCX_OP_READ_RESP_ONLY      = 0x10,
    ROCX_OP_ACK                 = 0x11,
    ROCX_OP_ATOMIC_ACK          = 0x12,
    ROCX_OP_CMP_SWAP            = 0x13,
    ROCX_OP_FETCH_ADD           = 0x14,
    ROCX_OP_SEND_LAST_INV       = 0x16,
    ROCX_OP_SEND_ONLY_INV       = 0x17,
    /* In the CNP transport. */
    ROCX_OP_CNP                 = 0x01,
};

/* Opcode properties (rocx_op_flags()). */
#define ROCX_OPF_VALID      ROCX_BIT(0)
#define ROCX_OPF_REQ        ROCX_BIT(1)     /* requester to responder */
#define ROCX_OPF_RETH       ROCX_BIT(2)
#define ROCX_OPF_AETH       ROCX_BIT(3)
#define ROCX_OPF_IMM        ROCX_BIT(4)     /* ImmDt */
#define ROCX_OPF_FIRST      ROCX_BIT(5)     /* starts a message */
#define ROCX_OPF_LAST       ROCX_BIT(6)     /* ends a message */
#define ROCX_OPF_PAYLOAD    ROCX_BIT(7)     /* may carry data */
#define ROCX_OPF_SEND       ROCX_BIT(8)
#define ROCX_OPF_WRITE      ROCX_BIT(9)
#define ROCX_OPF_READ       ROCX_BIT(10)    /* READ request */
#define ROCX_OPF_RESP       ROCX_BIT(11)    /* READ response */
#define ROCX_OPF_DETH       ROCX_BIT(12)
#define ROCX_OPF_XRCETH     ROCX_BIT(13)
#define ROCX_OPF_ATOMETH    ROCX_BIT(14)
#define ROCX_OPF_ATOMACKETH ROCX_BIT(15)
#define ROCX_OPF_IETH       ROCX_BIT(16)

/* ---- Transport headers (IBTA 9.2 to 9.4) ---- */

/*
 * BTH, 12 bytes:
 *   [0]     opcode
 *   [1]     SE [7], MigReq [6], pad count [5:4], transport version [3:0]
 *   [2:3]   P_Key: full member [15], key [14:0]
 *   [4]     FECN [7], BECN [6], reserved [5:0]; the ICRC masks this byte
 *   [5:7]   destination QP
 *   [8]     AckReq [7], reserved [6:0]
 *   [9:11]  PSN
 */
#define ROCX_BTH_LEN            12
#define ROCX_BTH_SE             0x80
#define ROCX_BTH_PAD_SHIFT      4
#define ROCX_BTH_PAD_MASK       0x30
#define ROCX_BTH_TVER_MASK      0x0f
#define ROCX_BTH_FECN           0x80
#define ROCX_BTH_BECN           0x40
#define ROCX_BTH_ACKREQ         0x80000000u
#define ROCX_PKEY_KEY_MASK      0x7fff
/* RoCE's one partition: the default P_Key. */
#define ROCX_PKEY_DEFAULT       0xffff
/* PSNs, QP numbers and MSNs are 24 bits. */
#define ROCX_PSN_MASK           0xffffffu
#define ROCX_QPN_MASK           0xffffffu

static inline uint8_t rocx_bth_opcode(const uint8_t *bth)
{
    return bth[0];
}

static inline bool rocx_bth_se(const uint8_t *bth)
{
    return bth[1] & ROCX_BTH_SE;
}

static inline unsigned rocx_bth_pad(const uint8_t *bth)
{
    return (bth[1] & ROCX_BTH_PAD_MASK) >> ROCX_BTH_PAD_SHIFT;
}

static inline unsigned rocx_bth_tver(const uint8_t *bth)
{
    return bth[1] & ROCX_BTH_TVER_MASK;
}

static inline uint16_t rocx_bth_pkey(const uint8_t *bth)
{
    return lduw_be_p(bth + 2);
}

static inline uint32_t rocx_bth_dqpn(const uint8_t *bth)
{
    return ldl_be_p(bth + 4) & ROCX_QPN_MASK;
}

static inline bool rocx_bth_ackreq(const uint8_t *bth)
{
    return ldl_be_p(bth + 8) & ROCX_BTH_ACKREQ;
}

static inline uint32_t rocx_bth_psn(const uint8_t *bth)
{
    return ldl_be_p(bth + 8) & ROCX_PSN_MASK;
}

/* FECN, BECN, MigReq and the transport version go out as 0. */
static inline void rocx_bth_build(uint8_t *bth, uint8_t opcode, bool se,
                                  unsigned pad, uint16_t pkey, uint32_t dqpn,
                                  bool ackreq, uint32_t psn)
{
    bth[0] = opcode;
    bth[1] = (se ? ROCX_BTH_SE : 0) | pad << ROCX_BTH_PAD_SHIFT;
    stw_be_p(bth + 2, pkey);
    stl_be_p(bth + 4, dqpn & ROCX_QPN_MASK);
    stl_be_p(bth + 8, (ackreq ? ROCX_BTH_ACKREQ : 0) | (psn & ROCX_PSN_MASK));
}

/* The ICRC covers the BTH with byte 4 (FECN, BECN, reserved) as ones. */
static inline void rocx_bth_icrc_mask(uint8_t *bth)
{
    bth[4] = 0xff;
}

/* The first header after the BTH. */
static inline const uint8_t *rocx_bth_next(const uint8_t *bth)
{
    return bth + ROCX_BTH_LEN;
}

/* DETH, 8 bytes: Q_Key [0:3], source QP [5:7] (UD). */
#define ROCX_DETH_LEN           8
#define ROCX_DETH_QKEY          0
#define ROCX_DETH_SRC_QP        4       /* a 32-bit word, QP in [23:0] */
/* XRCETH, 4 bytes: XRC SRQ [1:3]. */
#define ROCX_XRCETH_LEN         4
#define ROCX_XRCETH_SRQ         0       /* a 32-bit word, SRQ in [23:0] */
#define ROCX_XRCETH_SRQ_MASK    0xffffffu
/* RETH, 16 bytes: virtual address [0:7], R_Key [8:11], DMA length [12:15]. */
#define ROCX_RETH_LEN           16
#define ROCX_RETH_VA            0
#define ROCX_RETH_RKEY          8
#define ROCX_RETH_DMALEN        12
/*
 * AtomicETH, 28 bytes: virtual address [0:7], R_Key [8:11], swap or add
 * data [12:19], compare data [20:27].
 */
#define ROCX_ATOMETH_LEN        28
#define ROCX_ATOMETH_VA         0
#define ROCX_ATOMETH_RKEY       8
#define ROCX_ATOMETH_SWAP_ADD   12
#define ROCX_ATOMETH_COMPARE    20
/* AETH, 4 bytes: syndrome [0], MSN [1:3]. */
#define ROCX_AETH_LEN           4
#define ROCX_AETH_SYNDROME      0
#define ROCX_AETH_MSN           0       /* a 32-bit word, MSN in [23:0] */
/* AtomicAckETH, 8 bytes: the original remote data. */
#define ROCX_ATOMACKETH_LEN     8
/* ImmDt, 4 bytes; IETH, 4 bytes: the R_Key to invalidate. */
#define ROCX_IMM_LEN            4
#define ROCX_IETH_LEN           4
/* A CNP carries 16 reserved bytes after its BTH (RoCE v2 annex A17). */
#define ROCX_CNP_PAYLOAD_LEN    16
#define ROCX_ICRC_LEN           4

/* AETH syndromes: [7:5] kind, [4:0] credits, RNR timer or NAK code. */
#define ROCX_AETH_ACK           0x00
#define ROCX_AETH_RNR           0x20
#define ROCX_AETH_NAK           0x60
#define ROCX_AETH_KIND_MASK     0xe0
#define ROCX_AETH_NAK_PSN       0   /* PSN sequence error */
#define ROCX_AETH_NAK_INVALID   1
#define ROCX_AETH_NAK_ACCESS    2
#define ROCX_AETH_NAK_OPERATION 3
#define ROCX_AETH_CREDITS_NONE  0x1f    /* "invalid credit count" */

/* What follows the BTH, in order. */
typedef enum RocxTpPart {
    ROCX_TP_DETH,
    ROCX_TP_XRCETH,
    ROCX_TP_RETH,
    ROCX_TP_ATOMETH,
    ROCX_TP_AETH,
    ROCX_TP_ATOMACKETH,
    ROCX_TP_IMMDT,
    ROCX_TP_IETH,
    ROCX_TP_PAYLOAD,
} RocxTpPart;

/* Offset of part from the BTH in a packet whose opcode has flags opf. */
static inline size_t rocx_tp_off(uint32_t opf, RocxTpPart part)
{
    static const struct {
        uint32_t flag;
        uint8_t len;
    } parts[ROCX_TP_PAYLOAD] = {
        [ROCX_TP_DETH] = { ROCX_OPF_DETH, ROCX_DETH_LEN },
        [ROCX_TP_XRCETH] = { ROCX_OPF_XRCETH, ROCX_XRCETH_LEN },
        [ROCX_TP_RETH] = { ROCX_OPF_RETH, ROCX_RETH_LEN },
        [ROCX_TP_ATOMETH] = { ROCX_OPF_ATOMETH, ROCX_ATOMETH_LEN },
        [ROCX_TP_AETH] = { ROCX_OPF_AETH, ROCX_AETH_LEN },
        [ROCX_TP_ATOMACKETH] = { ROCX_OPF_ATOMACKETH, ROCX_ATOMACKETH_LEN },
        [ROCX_TP_IMMDT] = { ROCX_OPF_IMM, ROCX_IMM_LEN },
        [ROCX_TP_IETH] = { ROCX_OPF_IETH, ROCX_IETH_LEN },
    };
    size_t off = ROCX_BTH_LEN;
    unsigned i;

    for (i = 0; i < part; i++) {
        if (opf & parts[i].flag) {
            off += parts[i].len;
        }
    }
    return off;
}

/* The BTH and the extension headers of opf: where the payload starts. */
static inline size_t rocx_tp_hlen(uint32_t opf)
{
    return rocx_tp_off(opf, ROCX_TP_PAYLOAD);
}

static inline const uint8_t *rocx_payload(const uint8_t *bth, uint32_t opf)
{
    return bth + rocx_tp_hlen(opf);
}

static inline uint64_t rocx_reth_va(const uint8_t *bth, uint32_t opf)
{
    return ldq_be_p(bth + rocx_tp_off(opf, ROCX_TP_RETH) + ROCX_RETH_VA);
}

static inline uint32_t rocx_reth_rkey(const uint8_t *bth, uint32_t opf)
{
    return ldl_be_p(bth + rocx_tp_off(opf, ROCX_TP_RETH) + ROCX_RETH_RKEY);
}

static inline uint32_t rocx_reth_dmalen(const uint8_t *bth, uint32_t opf)
{
    return ldl_be_p(bth + rocx_tp_off(opf, ROCX_TP_RETH) + ROCX_RETH_DMALEN);
}

static inline void rocx_reth_build(uint8_t *bth, uint32_t opf, uint64_t va,
                                   uint32_t rkey, uint32_t dmalen)
{
    uint8_t *reth = bth + rocx_tp_off(opf, ROCX_TP_RETH);

    stq_be_p(reth + ROCX_RETH_VA, va);
    stl_be_p(reth + ROCX_RETH_RKEY, rkey);
    stl_be_p(reth + ROCX_RETH_DMALEN, dmalen);
}

static inline uint8_t rocx_aeth_syndrome(const uint8_t *bth, uint32_t opf)
{
    return bth[rocx_tp_off(opf, ROCX_TP_AETH) + ROCX_AETH_SYNDROME];
}

static inline uint32_t rocx_aeth_msn(const uint8_t *bth, uint32_t opf)
{
    return ldl_be_p(bth + rocx_tp_off(opf, ROCX_TP_AETH) + ROCX_AETH_MSN) &
           ROCX_PSN_MASK;
}

static inline void rocx_aeth_build(uint8_t *bth, uint32_t opf,
                                   uint8_t syndrome, uint32_t msn)
{
    uint8_t *aeth = bth + rocx_tp_off(opf, ROCX_TP_AETH);

    stl_be_p(aeth + ROCX_AETH_MSN, msn & ROCX_PSN_MASK);
    aeth[ROCX_AETH_SYNDROME] = syndrome;
}

static inline uint32_t rocx_deth_qkey(const uint8_t *bth, uint32_t opf)
{
    return ldl_be_p(bth + rocx_tp_off(opf, ROCX_TP_DETH) + ROCX_DETH_QKEY);
}

static inline uint32_t rocx_deth_src_qp(const uint8_t *bth, uint32_t opf)
{
    return ldl_be_p(bth + rocx_tp_off(opf, ROCX_TP_DETH) + ROCX_DETH_SRC_QP) &
           ROCX_QPN_MASK;
}

/* XRCETH: the XRC SRQ the request is for; its reserved byte [0] is 0. */
static inline uint32_t rocx_xrceth_srq(const uint8_t *bth, uint32_t opf)
{
    return ldl_be_p(bth + rocx_tp_off(opf, ROCX_TP_XRCETH) + ROCX_XRCETH_SRQ) &
           ROCX_XRCETH_SRQ_MASK;
}

static inline void rocx_xrceth_build(uint8_t *bth, uint32_t opf,
                                     uint32_t srqn)
{
    stl_be_p(bth + rocx_tp_off(opf, ROCX_TP_XRCETH) + ROCX_XRCETH_SRQ,
             srqn & ROCX_XRCETH_SRQ_MASK);
}

/* The source QP's word has its reserved byte [4] as 0. */
static inline void rocx_deth_build(uint8_t *bth, uint32_t opf, uint32_t qkey,
                                   uint32_t src_qp)
{
    uint8_t *deth = bth + rocx_tp_off(opf, ROCX_TP_DETH);

    stl_be_p(deth + ROCX_DETH_QKEY, qkey);
    stl_be_p(deth + ROCX_DETH_SRC_QP, src_qp & ROCX_QPN_MASK);
}

/* AtomicETH: the target, and the operands of CMP_SWAP or FETCH_ADD. */
static inline uint64_t rocx_atometh_va(const uint8_t *bth, uint32_t opf)
{
    return ldq_be_p(bth + rocx_tp_off(opf, ROCX_TP_ATOMETH) +
                    ROCX_ATOMETH_VA);
}

static inline uint32_t rocx_atometh_rkey(const uint8_t *bth, uint32_t opf)
{
    return ldl_be_p(bth + rocx_tp_off(opf, ROCX_TP_ATOMETH) +
                    ROCX_ATOMETH_RKEY);
}

static inline uint64_t rocx_atometh_swap_add(const uint8_t *bth,
                                             uint32_t opf)
{
    return ldq_be_p(bth + rocx_tp_off(opf, ROCX_TP_ATOMETH) +
                    ROCX_ATOMETH_SWAP_ADD);
}

static inline uint64_t rocx_atometh_compare(const uint8_t *bth, uint32_t opf)
{
    return ldq_be_p(bth + rocx_tp_off(opf, ROCX_TP_ATOMETH) +
                    ROCX_ATOMETH_COMPARE);
}

static inline void rocx_atometh_build(uint8_t *bth, uint32_t opf, uint64_t va,
                                      uint32_t rkey, uint64_t swap_add,
                                      uint64_t compare)
{
    uint8_t *a = bth + rocx_tp_off(opf, ROCX_TP_ATOMETH);

    stq_be_p(a + ROCX_ATOMETH_VA, va);
    stl_be_p(a + ROCX_ATOMETH_RKEY, rkey);
    stq_be_p(a + ROCX_ATOMETH_SWAP_ADD, swap_add);
    stq_be_p(a + ROCX_ATOMETH_COMPARE, compare);
}

/* AtomicAckETH: the value the target held before the operation. */
static inline uint64_t rocx_atomacketh_orig(const uint8_t *bth, uint32_t opf)
{
    return ldq_be_p(bth + rocx_tp_off(opf, ROCX_TP_ATOMACKETH));
}

static inline void rocx_atomacketh_build(uint8_t *bth, uint32_t opf,
                                         uint64_t orig)
{
    stq_be_p(bth + rocx_tp_off(opf, ROCX_TP_ATOMACKETH), orig);
}

/*
 * ImmDt is kept in wire order from end to end: the CQE hands the guest
 * the bytes as they were sent, so these copy them unconverted.
 */
static inline uint32_t rocx_immdt(const uint8_t *bth, uint32_t opf)
{
    return ldl_he_p(bth + rocx_tp_off(opf, ROCX_TP_IMMDT));
}

static inline void rocx_immdt_build(uint8_t *bth, uint32_t opf, uint32_t imm)
{
    stl_he_p(bth + rocx_tp_off(opf, ROCX_TP_IMMDT), imm);
}

/* IETH: the R_Key a SEND with invalidate names, big endian. */
static inline uint32_t rocx_ieth(const uint8_t *bth, uint32_t opf)
{
    return ldl_be_p(bth + rocx_tp_off(opf, ROCX_TP_IETH));
}

static inline void rocx_ieth_build(uint8_t *bth, uint32_t opf, uint32_t rkey)
{
    stl_be_p(bth + rocx_tp_off(opf, ROCX_TP_IETH), rkey);
}

/* The ICRC goes on the wire least significant byte first, as rxe sends it. */
static inline uint32_t rocx_icrc_get(const uint8_t *icrc)
{
    return ldl_le_p(icrc);
}

static inline void rocx_icrc_put(uint8_t *icrc, uint32_t v)
{
    stl_le_p(icrc, v);
}

#endif /* HW_NET_ROCX_HDR_H */
