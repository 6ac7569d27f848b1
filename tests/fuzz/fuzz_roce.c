/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the rocx RoCE transport: the receive path (parse,
 * ICRC, QP lookup) and the requester, responder and completer behind it.
 *
 * Each input starts from a device with six RC (or UC) QPs and a UD QP in
 * RTS sharing an MR and a CQ.  Four of the six talk to peers the input
 * plays, one per wire format: RoCE v2 over IPv4, over IPv6, over IPv4 with
 * an 802.1Q tag, and RoCE v1 (GRH).  The other two are connected to each
 * other, in loopback inside the device.  The UD QP takes the UD frames of
 * every peer, and sends to the IPv4 peer or, in loopback, to itself; it is
 * attached to an IPv4 and an IPv6 multicast group, which frames and its
 * sends may address instead.  The input is a flags byte (bits 0-2: path
 * MTU - 1, modulo 5; bit 3: the six QPs are UC instead of RC; bit 4
 * instead XRC: the IPv4, VLAN and second loopback QPs targets receiving
 * into one XRC SRQ, the others initiators sending to it; bit 5: every
 * QP with an SQ has a doorbell record, which the device polls, and a
 * send rings only when the record says to) and then a
 * program: frames from a peer to its QP (the headers of its
 * format around fuzzer-chosen BTH and extension headers, any opcode,
 * with the ICRC and IPv4 checksum fixed up or not, so that mutations get
 * past them), raw frames, send and receive WQEs on any QP, doorbells,
 * clock steps, engine rounds, CQ polls and arming, QP state changes, a QP
 * destroyed and created again, stray writes to the queues and the
 * doorbell records, MR removal,
 * carrier.  fake.c aborts on an impossible frame or an engine that never
 * goes quiet; the sanitizers catch the rest.
 */
#include <endian.h>
#include "fake.h"
#include "rocx-int.h"

/* Guest memory, offsets from FAKE_MEM_BASE (FAKE_MEM_SIZE is 128 KiB). */
#define AQ_SQ       0x0000
#define AQ_CQ       0x0400
#define EQ0         0x0800
#define EQ1         0x0900
#define ATTR        0x0a00
#define MRLIST      0x0b00      /* the MR's 16 pages */
#define QPLIST      0x0b80      /* each QP's 2 pages, 16 bytes apart */
#define FRLIST      0x0c00      /* REG_MR page lists: 2 of 16 entries */
#define CQR         0x1000      /* 128 CQEs */
#define CQ_LD       7
#define QPB         0x2000      /* RC QP i at QPB + i * QP_STRIDE */
#define QP_STRIDE   0x2000      /* SQ 16 x 256, RQ 16 x 64 */
#define SQ_LD       4
#define RQ_LD       4
#define SQ_SHIFT    8
#define RQ_SHIFT    6
#define MR_OFF      0xe000      /* 64 KiB registered */
#define MR_LEN      0x10000
#define UD_QPB      0x1e000     /* the UD QP's queues */
#define GPA(o)      (FAKE_MEM_BASE + (uint64_t)(o))
/* What the UD QP takes, and every DETH carries unless the input says. */
#define UD_QKEY     0x11112222u

QEMU_BUILD_BUG_ON(MR_OFF + MR_LEN > UD_QPB);
QEMU_BUILD_BUG_ON(UD_QPB + QP_STRIDE > FAKE_MEM_SIZE);

/* The RC QPs: four with a peer on the wire, one loopback pair. */
#define NQP         6
#define NWIRE       4
/* The UD QP, after them. */
#define UDQ         NQP
#define VLAN_ID     100

typedef struct Input {
    const uint8_t *p;
    size_t n;
} Input;

/* A QP of the fixture and, for the first NWIRE, the peer the input plays. */
typedef struct FQp {
    uint32_t qpn;
    uint32_t dest_qpn;
    uint8_t net;                /* enum rocx_net_type */
    uint16_t vlan;              /* ROCX_VLAN_NONE or VLAN_ID */
    uint8_t sgid;               /* our GID table index */
    uint8_t ours[16];           /* our GID, the peer's destination */
    uint8_t peer[16];           /* the peer's GID */
    uint16_t sq_pi, rq_pi;
} FQp;

static FakeDev *F;
static FQp qps[NQP + 1];
static uint16_t aq_pi;
static uint32_t cq_ci, cqn, pdn, mr_key;
/* A fast-register MR of 16 pages, and the key the last REG_MR gave it. */
static uint32_t fr_key;
static uint8_t mtu;
static bool uc;                 /* the fixture's QPs are UC */
static bool xrc;                /* or XRC initiators and targets */
static bool dbrec;              /* QPs have doorbell records */
/* XRC: the domain and its SRQ, whose ring is QP 0's (a target's) memory. */
static uint32_t xrcdn, xsrqn;
static uint16_t xsrq_pi;
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
/* The UD QP's multicast groups, and their MACs. */
static const uint8_t grp4[16] = {
    [10] = 0xff, [11] = 0xff, [12] = 239, [13] = 1, [14] = 2, [15] = 3,
};
static const uint8_t grp6[16] = { 0xff, 0x0e, [14] = 1, [15] = 3 };
static const uint8_t grp4_mac[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
static const uint8_t grp6_mac[6] = { 0x33, 0x33, 0x00, 0x00, 0x01, 0x03 };

static uint8_t in_u8(Input *in)
{
    if (!in->n) {
        return 0;
    }
    in->n--;
    return *in->p++;
}

static uint16_t in_u16(Input *in)
{
    uint16_t lo = in_u8(in);

    return lo | (uint16_t)in_u8(in) << 8;
}

static uint32_t in_u32(Input *in)
{
    uint32_t lo = in_u16(in);

    return lo | (uint32_t)in_u16(in) << 16;
}

static uint8_t *gmem(uint64_t off)
{
    return F->mem + (off % FAKE_MEM_SIZE);
}

static uint32_t aq(union rocx_aq_cmd *c)
{
    unsigned slot = aq_pi & 15;
    struct rocx_aq_cqe *e = (void *)gmem(AQ_CQ + slot * 16);

    memcpy(gmem(AQ_SQ + slot * 64), c, 64);
    aq_pi++;
    rocx_core_reg_write(&F->core, ROCX_REG_AQ_DB, aq_pi, 4);
    fake_run(F);
    return e->status ? 0 : le32toh(e->result);
}

static union rocx_aq_cmd cmd(uint16_t op)
{
    union rocx_aq_cmd c;

    memset(&c, 0, sizeof(c));
    c.hdr.opcode = htole16(op);
    return c;
}

/* ---- The fixture ---- */

static void gid_v4(uint8_t *g, uint8_t net, uint8_t host)
{
    static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

    memcpy(g, v4, 12);
    g[12] = 198;
    g[13] = 18;
    g[14] = net;
    g[15] = host;
}

/* Our GIDs (index i: QP i's source) and each wire QP's peer. */
static void plan(void)
{
    unsigned i;

    memset(qps, 0, sizeof(qps));
    for (i = 0; i <= UDQ; i++) {
        FQp *q = &qps[i];

        q->vlan = ROCX_VLAN_NONE;
        q->sgid = i < NWIRE ? i : 0;
        q->net = ROCX_NET_ROCE_V2_IPV4;
        q->dest_qpn = 0x77 + i;
        switch (i) {
        case 1:
            q->net = ROCX_NET_ROCE_V2_IPV6;
            q->ours[0] = q->peer[0] = 0xfd;
            q->ours[15] = 1;
            q->peer[15] = 2;
            break;
        case 2:
            q->vlan = VLAN_ID;
            gid_v4(q->ours, 1, 1);
            gid_v4(q->peer, 1, 2);
            break;
        case 3:
            q->net = ROCX_NET_ROCE_V1;
            q->ours[0] = q->peer[0] = 0xfe;
            q->ours[1] = q->peer[1] = 0x80;
            q->ours[15] = 1;
            q->peer[15] = 2;
            break;
        default:
            /*
             * 0, the UD QP (whose peer is 0's), and the loopback pair,
             * whose peer is GID 0 itself.
             */
            gid_v4(q->ours, 0, 1);
            gid_v4(q->peer, 0, i < NWIRE || i == UDQ ? 2 : 1);
            break;
        }
    }
}

static void modify(const FQp *q, uint32_t valid, uint8_t state)
{
    struct rocx_qp_attr *a = (void *)gmem(ATTR);
    union rocx_aq_cmd c = cmd(ROCX_AQ_OP_MODIFY_QP);

    memset(a, 0, sizeof(*a));
    a->valid = htole32(valid);
    a->state = state;
    a->path_mtu = mtu;
    a->timeout = 14;
    a->retry_cnt = 3;
    a->rnr_retry = 2;
    a->min_rnr_timer = 1;
    a->max_rd_atomic = 4;
    a->max_dest_rd_atomic = 4;
    a->access = htole32(ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
                        ROCX_ACCESS_REMOTE_READ);
    /* Atomics on every QP but the RoCE v1 one, which refuses them. */
    if (q - qps != 3) {
        a->access |= htole32(ROCX_ACCESS_REMOTE_ATOMIC);
    }
    a->rq_psn = htole32(0x10);
    a->qkey = htole32(UD_QKEY);
    /* The loopback pair starts where the other half expects it. */
    a->sq_psn = htole32(q - qps < NWIRE ? 0x20 : 0x10);
    a->dest_qpn = htole32(q->dest_qpn);
    memcpy(a->av.dgid, q->peer, 16);
    memcpy(a->av.dmac, q - qps < NWIRE ? peer_mac : F->core.port.mac, 6);
    a->av.vlan = htole16(q->vlan);
    a->av.sgid_index = q->sgid;
    a->av.hop_limit = 64;
    a->av.net_type = q->net;
    ((struct rocx_aq_qp_attr_cmd *)&c)->qpn = htole32(q->qpn);
    ((struct rocx_aq_qp_attr_cmd *)&c)->addr = htole64(GPA(ATTR));
    aq(&c);
}

static void to_rts(const FQp *q)
{
    if (q == &qps[UDQ]) {
        modify(q, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_QKEY, ROCX_QPS_INIT);
        modify(q, ROCX_QP_ATTR_STATE, ROCX_QPS_RTR);
        modify(q, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN, ROCX_QPS_RTS);
        return;
    }
    /* UC takes none of RC's timer, retry and READ attributes. */
    modify(q, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_ACCESS, ROCX_QPS_INIT);
    modify(q, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV | ROCX_QP_ATTR_PATH_MTU |
           ROCX_QP_ATTR_DEST_QPN | ROCX_QP_ATTR_RQ_PSN |
           (uc ? 0 : ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC |
                     ROCX_QP_ATTR_MIN_RNR_TIMER),
           ROCX_QPS_RTR);
    modify(q, ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN |
           (uc ? 0 : ROCX_QP_ATTR_TIMEOUT | ROCX_QP_ATTR_RETRY_CNT |
                     ROCX_QP_ATTR_RNR_RETRY | ROCX_QP_ATTR_MAX_RD_ATOMIC),
           ROCX_QPS_RTS);
}

/* The UD QP joins both groups (again, after it was created anew). */
static void attach_groups(void)
{
    union rocx_aq_cmd c = cmd(ROCX_AQ_OP_ATTACH_MCAST);
    struct rocx_aq_mcast *m = (void *)&c;

    m->qpn = htole32(qps[UDQ].qpn);
    memcpy(m->gid, grp4, 16);
    aq(&c);
    memcpy(m->gid, grp6, 16);
    aq(&c);
}

/* Where QP i's queues are: SQ at 0, RQ at 4096. */
static uint64_t qp_buf(unsigned i)
{
    return i == UDQ ? UD_QPB : QPB + i * QP_STRIDE;
}

/* XRC: QPs 0, 2 and 5 are targets, 1, 3 and 4 initiators. */
static bool xrc_tgt(unsigned i)
{
    return xrc && (i == 0 || i == 2 || i == NWIRE + 1);
}

/* Where QP i's doorbell record is in its buffer: after its queues. */
static uint32_t dbrec_off(unsigned i)
{
    bool ini = xrc && i != UDQ && !xrc_tgt(i);

    return (1u << (SQ_LD + SQ_SHIFT)) + (ini ? 0 : 1u << (RQ_LD + RQ_SHIFT));
}

static uint32_t create_qp(unsigned i)
{
    union rocx_aq_cmd c = cmd(ROCX_AQ_OP_CREATE_QP);
    struct rocx_aq_create_qp *q = (void *)&c;
    uint64_t *list = (void *)gmem(QPLIST + i * 16);

    if (xrc_tgt(i)) {
        q->type = ROCX_QPT_XRC_TGT;
        q->srqn = htole32(ROCX_NO_SRQ);
        q->xrcdn = htole32(xrcdn);
        return aq(&c);
    }
    q->type = i == UDQ ? ROCX_QPT_UD : uc ? ROCX_QPT_UC :
              xrc ? ROCX_QPT_XRC_INI : ROCX_QPT_RC;
    q->sq_log_depth = SQ_LD;
    q->rq_log_depth = RQ_LD;
    q->sq_wqe_shift = SQ_SHIFT;
    q->rq_wqe_shift = RQ_SHIFT;
    q->pdn = htole32(pdn);
    q->send_cqn = q->recv_cqn = htole32(cqn);
    q->srqn = htole32(ROCX_NO_SRQ);
    if (q->type == ROCX_QPT_XRC_INI) {
        /* No receive side. */
        q->rq_log_depth = q->rq_wqe_shift = 0;
        q->recv_cqn = 0;
    }
    if (dbrec) {
        q->flags |= ROCX_QP_DB_RECORD;
    }
    list[0] = htole64(GPA(qp_buf(i)));
    list[1] = htole64(GPA(qp_buf(i) + 4096));
    q->pbl.addr = htole64(GPA(QPLIST + i * 16));
    q->pbl.npages = htole32(2);
    q->pbl.page_shift = 12;
    q->pbl.levels = 1;
    return aq(&c);
}

/* The loopback pair: each the other's destination. */
static void link_pair(void)
{
    qps[NWIRE].dest_qpn = qps[NWIRE + 1].qpn;
    qps[NWIRE + 1].dest_qpn = qps[NWIRE].qpn;
}

static void setup(void)
{
    union rocx_aq_cmd c;
    uint64_t *list = (void *)gmem(MRLIST);
    unsigned i;

    rocx_core_reg_write(&F->core, ROCX_REG_AQ_SQ_BASE_LO, GPA(AQ_SQ), 4);
    rocx_core_reg_write(&F->core, ROCX_REG_AQ_SQ_BASE_HI, GPA(AQ_SQ) >> 32,
                        4);
    rocx_core_reg_write(&F->core, ROCX_REG_AQ_CQ_BASE_LO, GPA(AQ_CQ), 4);
    rocx_core_reg_write(&F->core, ROCX_REG_AQ_CQ_BASE_HI, GPA(AQ_CQ) >> 32,
                        4);
    rocx_core_reg_write(&F->core, ROCX_REG_AQ_CTRL,
                        4 | ROCX_AQ_CTRL_ENABLE, 4);
    for (i = 0; i < 2; i++) {
        c = cmd(ROCX_AQ_OP_CREATE_EQ);
        c.create_eq.base = htole64(GPA(i ? EQ1 : EQ0));
        c.create_eq.eqn = htole16(i);
        c.create_eq.log_depth = 4;
        aq(&c);
    }
    /* A port MTU every path MTU fits in (MODIFY_QP checks). */
    c = cmd(ROCX_AQ_OP_SET_PORT);
    c.set_port.valid = htole32(ROCX_PORT_SET_ADMIN | ROCX_PORT_SET_MTU);
    c.set_port.admin_up = 1;
    c.set_port.mtu = htole16(ROCX_MAX_MTU);
    aq(&c);
    for (i = 0; i < NWIRE; i++) {
        c = cmd(ROCX_AQ_OP_SET_GID);
        c.set_gid.index = htole16(i);
        c.set_gid.type = qps[i].net == ROCX_NET_ROCE_V1 ?
                         ROCX_GID_TYPE_ROCE_V1 : ROCX_GID_TYPE_ROCE_V2;
        c.set_gid.vlan = htole16(qps[i].vlan);
        memcpy(c.set_gid.mac, F->core.port.mac, 6);
        memcpy(c.set_gid.gid, qps[i].ours, 16);
        aq(&c);
    }
    pdn = aq(&(union rocx_aq_cmd){ .hdr.opcode = ROCX_AQ_OP_CREATE_PD });
    for (i = 0; i < MR_LEN / 4096; i++) {
        list[i] = htole64(GPA(MR_OFF) + i * 4096);
    }
    c = cmd(ROCX_AQ_OP_REG_MR);
    {
        struct rocx_aq_reg_mr *r = (void *)&c;

        r->pdn = htole32(pdn);
        r->access = htole32(ROCX_ACCESS_LOCAL_WRITE |
                            ROCX_ACCESS_REMOTE_WRITE |
                            ROCX_ACCESS_REMOTE_READ |
                            ROCX_ACCESS_REMOTE_ATOMIC);
        r->iova = htole64(GPA(MR_OFF));
        r->length = htole64(MR_LEN);
        r->pbl.addr = htole64(GPA(MRLIST));
        r->pbl.npages = htole32(MR_LEN / 4096);
        r->pbl.page_shift = 12;
        r->pbl.levels = 1;
    }
    mr_key = aq(&c);
    c = cmd(ROCX_AQ_OP_ALLOC_MR);
    {
        struct rocx_aq_alloc_mr *a = (void *)&c;

        a->pdn = htole32(pdn);
        a->type = ROCX_MR_TYPE_FAST_REG;
        a->max_pages = htole32(MR_LEN / 4096);
    }
    fr_key = aq(&c);
    c = cmd(ROCX_AQ_OP_CREATE_CQ);
    {
        struct rocx_aq_create_cq *cc = (void *)&c;

        cc->log_depth = CQ_LD;
        cc->eqn = 1;
        cc->pbl.addr = htole64(GPA(CQR));
        cc->pbl.npages = htole32(1);
        cc->pbl.page_shift = 12;
    }
    cqn = aq(&c);
    if (xrc) {
        uint64_t *ring = (void *)gmem(QPLIST);
        struct rocx_aq_create_srq *cs = (void *)&c;

        xrcdn = aq(&(union rocx_aq_cmd){
            .hdr.opcode = ROCX_AQ_OP_ALLOC_XRCD });
        c = cmd(ROCX_AQ_OP_CREATE_SRQ);
        ring[0] = htole64(GPA(qp_buf(0)));
        cs->pdn = htole32(pdn);
        cs->log_depth = 4;
        cs->wqe_shift = RQ_SHIFT;
        cs->type = ROCX_SRQT_XRC;
        cs->xrcdn = htole32(xrcdn);
        cs->cqn = htole32(cqn);
        cs->pbl.addr = htole64(GPA(QPLIST));
        cs->pbl.npages = htole32(1);
        cs->pbl.page_shift = 12;
        cs->pbl.levels = 1;
        xsrqn = aq(&c);
        xsrq_pi = 0;
    }
    for (i = 0; i <= UDQ; i++) {
        qps[i].qpn = create_qp(i);
    }
    link_pair();
    for (i = 0; i <= UDQ; i++) {
        to_rts(&qps[i]);
    }
    attach_groups();
}

/* ---- Frames from a peer ---- */

static uint16_t ip_csum(const uint8_t *h)
{
    uint32_t s = 0;
    unsigned i;

    for (i = 0; i < 20; i += 2) {
        s += h[i] << 8 | h[i + 1];
    }
    while (s >> 16) {
        s = (s & 0xffff) + (s >> 16);
    }
    return ~s;
}

static void deliver(const uint8_t *buf, size_t len)
{
    if (rocx_core_can_receive(&F->core)) {
        rocx_core_receive(&F->core, buf, len);
    }
}

/*
 * Every BTH opcode the contract names, RC first, then UC, UD, the CNP and
 * some XRC ones, then the rest of XRC's (appended, so that the indices of
 * the older seeds stay): a byte below 0xc0 picks one of these (most
 * mutations hit a real opcode), above it is raw.
 */
static const uint8_t all_opcodes[] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
    0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16,
    0x17, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29,
    0x2a, 0x2b, 0x64, 0x65, 0x81, 0xa0, 0xa4, 0xac,
    0xa1, 0xa2, 0xa3, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xad,
    0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb6, 0xb7,
};

static uint8_t pick_opcode(uint8_t b)
{
    return b < 0xc0 ? all_opcodes[b % ARRAY_SIZE(all_opcodes)] : b;
}

/*
 * Where a peer's frame starts its network header, and the EtherType before
 * it (after an 802.1Q tag on the VLAN QP's path).
 */
static uint8_t *l2_header(uint8_t *f, const FQp *q, uint16_t etype)
{
    uint8_t *p = f + 12;

    memcpy(f, F->core.port.mac, 6);
    memcpy(f + 6, peer_mac, 6);
    if (q->vlan != ROCX_VLAN_NONE) {
        stw_be_p(p, ETH_P_VLAN);
        stw_be_p(p + 2, q->vlan);
        p += 4;
    }
    stw_be_p(p, etype);
    return p + 2;
}

/* IPv6 or GRH: both 40 bytes; the GRH's next header is the BTH. */
static void ip6_header(uint8_t *l3, const FQp *q, uint16_t plen, uint8_t nh)
{
    memset(l3, 0, 40);
    l3[0] = 0x60;
    stw_be_p(l3 + 4, plen);
    l3[6] = nh;
    l3[7] = 64;
    memcpy(l3 + 8, q->peer, 16);
    memcpy(l3 + 24, q->ours, 16);
}

/*
 * A frame from a wire QP's peer, in that QP's format: [qp sel][opcode]
 * [bth1][psn mode][psn u16][qpn sel][fix][paylen u16][fill][va u16]
 * [rkey sel][dmalen u16][aeth].  fix: bit 0 the IPv4 checksum, bit 1 the
 * ICRC, bit 2 any BTH byte 1, bit 3 cut short, bit 4 the next wire QP's
 * format (a peer on the wrong path), bit 5 to the multicast group of the
 * format (MAC and address).  A UD opcode goes to the UD QP (to a group:
 * QPN 0xffffff), with the UD QP's Q_Key unless rkey sel says otherwise.
 * An XRCETH names the fixture's XRC SRQ, or with rkey sel bit 6 another
 * number.
 */
static void op_frame(Input *in)
{
    static uint8_t f[ROCX_MAX_FRAME + 64];
    uint8_t qsel = in_u8(in);
    FQp *q = &qps[qsel % NWIRE];
    RocxQp *qp = rocx_qp_get(&F->core, q->qpn);
    uint8_t opcode = pick_opcode(in_u8(in)), bth1 = in_u8(in);
    uint8_t mode = in_u8(in);
    uint16_t delta = in_u16(in);
    uint8_t dsel = in_u8(in), fix = in_u8(in);
    uint16_t paylen = in_u16(in) % 4200;
    uint8_t fill = in_u8(in);
    uint16_t va = in_u16(in);
    uint8_t rsel = in_u8(in);
    uint16_t dmalen = in_u16(in);
    uint8_t syn = in_u8(in);
    uint32_t opf = rocx_op_flags(opcode);
    const FQp *fmt = fix & 0x10 ? &qps[(qsel + 1) % NWIRE] : q;
    uint8_t *l3, *udp = NULL, *bth, *h;
    uint32_t psn, icrc, dqpn;
    size_t len, i, tlen;

    if (!qp) {
        return;
    }
    switch (mode % 4) {
    case 0:
        psn = qp->resp.epsn + (int16_t)delta;
        break;
    case 1:
        psn = qp->req.psn_una + (int16_t)delta;
        break;
    case 2:
        psn = qp->req.psn_next + (int16_t)delta;
        break;
    default:
        psn = delta | (uint32_t)mode << 16;
        break;
    }
    switch (fmt->net) {
    case ROCX_NET_ROCE_V2_IPV4:
        l3 = l2_header(f, fmt, ETH_P_IP);
        udp = l3 + 20;
        bth = udp + 8;
        break;
    case ROCX_NET_ROCE_V2_IPV6:
        l3 = l2_header(f, fmt, ETH_P_IPV6);
        udp = l3 + 40;
        bth = udp + 8;
        break;
    default:
        l3 = l2_header(f, fmt, ROCX_ETHERTYPE_ROCE);
        bth = l3 + 40;
        break;
    }
    h = bth + 12;
    bth[0] = opcode;
    bth[1] = bth1 & (fix & 4 ? 0xff : 0xb0);
    bth[2] = bth[3] = 0xff;
    bth[4] = 0;
    dqpn = !(dsel & 7) ? dsel : rocx_op_transport(opcode) != ROCX_TR_UD ?
           q->qpn : fix & 0x20 ? ROCX_MCAST_QPN : qps[UDQ].qpn;
    bth[5] = dqpn >> 16;
    bth[6] = dqpn >> 8;
    bth[7] = dqpn;
    bth[8] = mode & 0x80;
    bth[9] = psn >> 16;
    bth[10] = psn >> 8;
    bth[11] = psn;
    if (opf & ROCX_OPF_DETH) {
        stl_be_p(h, rsel & 7 ? UD_QKEY : (uint32_t)rsel << 24);
        stl_be_p(h + 4, q->dest_qpn);
        h += 8;
    }
    if (opf & ROCX_OPF_XRCETH) {
        stl_be_p(h, rsel & 0x40 ? (uint32_t)fill << 8 | rsel : xsrqn);
        h += 4;
    }
    if (opf & ROCX_OPF_RETH) {
        uint64_t a = GPA(MR_OFF) + va;
        uint32_t key = (rsel & 7) == 7 ? fr_key : rsel & 7 ? mr_key :
                       (uint32_t)rsel << 8 | 1;

        stq_be_p(h, a);
        stl_be_p(h + 8, key);
        stl_be_p(h + 12, dmalen);
        h += 16;
    }
    if (opf & ROCX_OPF_ATOMETH) {
        /* va as for RETH (misaligned unless a multiple of 8). */
        uint32_t key = rsel & 7 ? mr_key : (uint32_t)rsel << 8 | 1;

        stq_be_p(h, GPA(MR_OFF) + va);
        stl_be_p(h + 8, key);
        stq_be_p(h + 12, dmalen);
        stq_be_p(h + 20, fill);
        h += 28;
    }
    if (opf & ROCX_OPF_AETH) {
        h[0] = syn;
        h[1] = h[2] = 0;
        h[3] = 1;
        h += 4;
    }
    if (opf & ROCX_OPF_ATOMACKETH) {
        stq_be_p(h, (uint64_t)fill << 32 | dmalen);
        h += 8;
    }
    if (opf & ROCX_OPF_IMM) {
        memset(h, fill, 4);
        h += 4;
    }
    for (i = 0; i < paylen; i++) {
        h[i] = fill + i;
    }
    h += paylen + ((bth1 >> 4) & 3);
    /* h is where the ICRC goes; tlen: BTH to the end of the ICRC. */
    tlen = h + 4 - bth;
    switch (fmt->net) {
    case ROCX_NET_ROCE_V2_IPV4:
        memset(l3, 0, 20);
        l3[0] = 0x45;
        stw_be_p(l3 + 2, 20 + 8 + tlen);
        l3[6] = 0x40;
        l3[8] = 64;
        l3[9] = 17;
        memcpy(l3 + 12, rocx_gid_v4(fmt->peer), 4);
        memcpy(l3 + 16, rocx_gid_v4(fix & 0x20 ? grp4 : fmt->ours), 4);
        if (fix & 1) {
            stw_be_p(l3 + 10, ip_csum(l3));
        }
        break;
    case ROCX_NET_ROCE_V2_IPV6:
        ip6_header(l3, fmt, 8 + tlen, 17);
        break;
    default:
        ip6_header(l3, fmt, tlen, 0x1b);
        break;
    }
    if (fix & 0x20) {
        bool v4 = fmt->net == ROCX_NET_ROCE_V2_IPV4;

        memcpy(f, v4 ? grp4_mac : grp6_mac, 6);
        if (!v4) {
            memcpy(l3 + 24, grp6, 16);
        }
    }
    if (udp) {
        stw_be_p(udp, 0xc001);
        stw_be_p(udp + 2, ROCX_ROCE_UDP_PORT);
        stw_be_p(udp + 4, 8 + tlen);
        stw_be_p(udp + 6, 0);
    }
    icrc = fix & 2 ? rocx_icrc(fmt->net, l3, bth, h) : fill;
    stl_le_p(h, icrc);
    len = h + 4 - f;
    /* Optionally cut it short anywhere. */
    if (fix & 8) {
        len = in_u16(in) % (len + 1);
    }
    deliver(f, len);
}

static void op_raw(Input *in)
{
    static uint8_t f[ROCX_MAX_FRAME + 64];
    size_t len = in_u16(in) % sizeof(f), i;

    /* A RoCE-looking start, then the fuzzer's bytes. */
    memcpy(f, F->core.port.mac, 6);
    for (i = 6; i < len; i++) {
        f[i] = in_u8(in);
    }
    deliver(f, len);
}

/* ---- Work requests ---- */

/* 0xff: the UD QP; else an RC QP. */
static FQp *pick_qp(Input *in)
{
    uint8_t b = in_u8(in);

    return &qps[b == 0xff ? UDQ : b % NQP];
}

static uint8_t *sq_wqe(const FQp *q, uint16_t idx)
{
    return gmem(qp_buf(q - qps) + (idx & 15) * 256);
}

static uint8_t *rq_wqe(const FQp *q, uint16_t idx)
{
    return gmem(qp_buf(q - qps) + (16 << SQ_SHIFT) + (idx & 15) * 64);
}

static void put_sge(uint8_t *p, Input *in)
{
    uint16_t off = in_u16(in), slen = in_u16(in);
    uint8_t sel = in_u8(in);
    struct rocx_sge s = {
        .addr = htole64(GPA(MR_OFF) + (sel & 8 ? off : off % MR_LEN)),
        .length = htole32(sel & 4 ? slen : slen % 4096),
        .lkey = htole32((sel & 0x13) == 0x13 ? fr_key :
                        sel & 3 ? mr_key : in_u32(in)),
    };

    memcpy(p, &s, sizeof(s));
}

/* XRC: the receive goes to the XRC SRQ (tag = index), rung. */
static void post_xsrq(Input *in)
{
    uint8_t *w = gmem(qp_buf(0) + (xsrq_pi & 15) * 64);
    uint8_t n = in_u8(in) % 4, i;

    memset(w, 0, 64);
    w[0] = n;
    stw_le_p(w + 2, xsrq_pi);
    stw_le_p(w + 4, xsrq_pi);
    for (i = 0; i < n; i++) {
        put_sge(w + 16 + i * 16, in);
    }
    xsrq_pi++;
    rocx_core_db_write(&F->core, ROCX_DB_SRQ,
                       xsrqn | (uint64_t)xsrq_pi << 32, 8);
}

/* [qp][n][sge...], rung.  XRC: to the XRC SRQ, but for the UD QP. */
static void op_post_recv(Input *in)
{
    FQp *q = pick_qp(in);
    uint8_t *w = rq_wqe(q, q->rq_pi);
    uint8_t n, i;

    if (xrc && q != &qps[UDQ]) {
        post_xsrq(in);
        return;
    }
    n = in_u8(in) % 4;

    memset(w, 0, 64);
    w[0] = n;
    w[2] = q->rq_pi;
    w[3] = q->rq_pi >> 8;
    for (i = 0; i < n; i++) {
        put_sge(w + 16 + i * 16, in);
    }
    q->rq_pi++;
    rocx_core_db_write(&F->core, ROCX_DB_RQ,
                       q->qpn | (uint64_t)q->rq_pi << 32, 8);
}

/*
 * REG_MR's operation segment: [variant][access][npages][iova u16][len u16]
 * [sel]: the fast-register MR with that variant, over npages (up to 17,
 * one more than it takes) of the MR area's pages from sel on, the list
 * in one of two places (sel bit 4), level 1 or (sel bit 5) 0 or (bit 6)
 * 2, 4 KiB pages or (bit 7) 2 MiB ones.  The list is written now, before
 * the doorbell; the device reads it when it executes the WQE.
 */
static void put_reg_mr(uint8_t *w, Input *in)
{
    struct rocx_wqe_reg_mr *r = (void *)(w + 16);
    uint8_t variant = in_u8(in), access = in_u8(in), n = in_u8(in) % 18;
    uint16_t iova = in_u16(in), len = in_u16(in);
    uint8_t sel = in_u8(in);
    uint64_t list = FRLIST + (sel & 0x10 ? 0x80 : 0);
    uint64_t *e = (uint64_t *)gmem(list);
    unsigned i;

    for (i = 0; i < n && i < 16; i++) {
        e[i] = htole64(GPA(MR_OFF) + ((sel + i) % 16) * 4096ULL);
    }
    memset(r, 0, sizeof(*r));
    fr_key = (fr_key & ROCX_KEY_INDEX_MASK) | variant;
    stl_le_p(&r->key, fr_key);
    stl_le_p(&r->access, access & 0x1f);
    stq_le_p(&r->iova, GPA(MR_OFF) + iova);
    stq_le_p(&r->length, len);
    r->pbl.npages = htole32(n);
    r->pbl.page_shift = sel & 0x80 ? 21 : 12;
    r->pbl.levels = sel & 0x20 ? 0 : sel & 0x40 ? 2 : 1;
    /* Level 0 names the page itself; level 2 a table of one table. */
    if (r->pbl.levels == 0) {
        stq_le_p(&r->pbl.addr, GPA(MR_OFF) + (sel % 16) * 4096ULL);
    } else if (r->pbl.levels == 2) {
        stq_le_p(gmem(FRLIST + 0x100), GPA(list));
        stq_le_p(&r->pbl.addr, GPA(FRLIST + 0x100));
    } else {
        stq_le_p(&r->pbl.addr, GPA(list));
    }
}

/*
 * [qp][opcode][flags][n][raddr u16][sge... or inline len], rung.  Every
 * WQE opcode of the contract (those of later parts complete in error)
 * and, above them, raw values.  On the UD QP the address vector names the
 * IPv4 peer or, with flags bit 6, the QP itself (in loopback) or, with
 * bit 6 and an odd raddr, its IPv4 group; flags bit 5 asks for the QP's
 * own Q_Key.  An XRC initiator's WQE names the XRC SRQ, or with flags bits
 * 3 and 4 the number after it.  REG_MR's segment is put_reg_mr()'s;
 * LOCAL_INV and SEND_INV with flags bit 4 invalidate the fast-register
 * MR's last key.
 */
static void op_post_send(Input *in)
{
    FQp *q = pick_qp(in);
    uint8_t *w = sq_wqe(q, q->sq_pi);
    uint8_t op = in_u8(in), flags = in_u8(in), n = in_u8(in) % 5, i;
    uint64_t raddr = GPA(MR_OFF) + in_u16(in);

    memset(w, 0, 256);
    w[0] = op < 0xf0 ? op % (ROCX_WQE_BIND_MW + 1) : op;
    w[1] = flags & 0x7;
    w[2] = n;
    w[4] = flags;
    w[12] = q->sq_pi;
    w[13] = q->sq_pi >> 8;
    stq_le_p(w + 16, raddr);
    stl_le_p(w + 24, mr_key);
    if (xrc && q != &qps[UDQ]) {
        uint32_t srqn = xsrqn + ((flags & 0x18) == 0x18);

        stw_le_p(w + 14, srqn);
        w[3] = srqn >> 16;
    }
    if (q == &qps[UDQ]) {
        struct rocx_wqe_ud *ud = (void *)(w + 16);
        bool self = flags & 0x40, grp = self && (raddr & 1);

        memset(ud, 0, sizeof(*ud));
        stl_le_p(&ud->remote_qpn, self ? q->qpn : q->dest_qpn);
        stl_le_p(&ud->qkey, flags & 0x20 ? ROCX_WQE_UD_QKEY_OWN : UD_QKEY);
        memcpy(ud->av.dgid, grp ? grp4 : self ? q->ours : q->peer, 16);
        memcpy(ud->av.dmac, grp ? grp4_mac : self ? F->core.port.mac :
               peer_mac, 6);
        stw_le_p(&ud->av.vlan, ROCX_VLAN_NONE);
        ud->av.hop_limit = 64;
        ud->av.net_type = ROCX_NET_ROCE_V2_IPV4;
    }
    if (w[0] == ROCX_WQE_REG_MR) {
        put_reg_mr(w, in);
    }
    if ((w[0] == ROCX_WQE_LOCAL_INV || w[0] == ROCX_WQE_SEND_INV) &&
        (flags & 0x10)) {
        stl_be_p(w + 4, fr_key);
    }
    if (flags & 0x80) {
        w[1] |= ROCX_WQE_INLINE;
        w[8] = in_u8(in);
        for (i = 0; i < w[8] && i < 192; i++) {
            w[64 + i] = i;
        }
    } else {
        for (i = 0; i < n; i++) {
            put_sge(w + 64 + i * 16, in);
        }
    }
    q->sq_pi++;
    /* As the provider posts: the record, then the doorbell unless POLL. */
    if (dbrec && !xrc_tgt(q - qps)) {
        struct rocx_db_record *r = (void *)gmem(qp_buf(q - qps) +
                                                dbrec_off(q - qps));

        stl_le_p(&r->sq_pi, q->sq_pi);
        if (ldl_le_p(&r->flags) & ROCX_DB_RECORD_POLL) {
            return;
        }
    }
    rocx_core_db_write(&F->core, ROCX_DB_SQ,
                       q->qpn | (uint64_t)q->sq_pi << 32, 8);
}

/* Take what the CQ has; [arm]: 0 none, 1 any, 2 solicited. */
static void op_poll(Input *in)
{
    uint8_t arm = in_u8(in) % 3;
    uint8_t *e;

    for (;;) {
        e = gmem(CQR + (cq_ci & ((1u << CQ_LD) - 1)) * 32);
        if ((e[19] & 1) != ((cq_ci >> CQ_LD) & 1 ? 0 : 1)) {
            break;
        }
        cq_ci++;
    }
    rocx_core_db_write(&F->core, ROCX_DB_CQ,
                       cqn | (uint64_t)(uint16_t)cq_ci << 32 |
                       (arm == 1 ? ROCX_DB_ARM : 0) |
                       (arm == 2 ? ROCX_DB_ARM_SOLICITED : 0), 8);
}

/* [qp]: destroyed (its deadlines and queued work with it), created again. */
/* QP i's indices start again at 0: so does its record, as a provider's. */
static void reset_pi(unsigned i)
{
    qps[i].sq_pi = qps[i].rq_pi = 0;
    if (dbrec && !xrc_tgt(i)) {
        stl_le_p(gmem(qp_buf(i) + dbrec_off(i)), 0);
    }
}

static void op_recreate(Input *in)
{
    FQp *q = pick_qp(in);
    union rocx_aq_cmd c = cmd(ROCX_AQ_OP_DESTROY_QP);
    unsigned i = q - qps;

    ((struct rocx_aq_destroy_qp *)&c)->qpn = htole32(q->qpn);
    aq(&c);
    q->qpn = create_qp(i);
    reset_pi(i);
    if (i >= NWIRE && i < NQP) {
        link_pair();
        /* The other half now names a QP that is gone: connect it again. */
        modify(&qps[i ^ 1], ROCX_QP_ATTR_STATE, ROCX_QPS_RESET);
        reset_pi(i ^ 1);
        to_rts(&qps[i ^ 1]);
    }
    to_rts(q);
    if (i == UDQ) {
        attach_groups();
    }
}

static void run_op(Input *in)
{
    uint8_t op = in_u8(in);
    FQp *q;
    uint16_t off;
    unsigned i, n;

    switch (op % 15) {
    case 0:
    case 1:
    case 2:
        op_frame(in);
        break;
    case 3:
        op_raw(in);
        break;
    case 4:
        op_post_recv(in);
        break;
    case 5:
        op_post_send(in);
        break;
    case 6:
        fake_advance(F, (int64_t)in_u16(in) * 1000 * 100);
        break;
    case 7:
        F->scheduled = false;
        rocx_core_process(&F->core);
        break;
    case 8:
        fake_run(F);
        break;
    case 9:
        op_poll(in);
        break;
    case 10:    /* [qp][state][back]: to ERR or RESET, and back to RTS */
        q = pick_qp(in);
        modify(q, ROCX_QP_ATTR_STATE, in_u8(in) & 1 ? ROCX_QPS_ERR :
               ROCX_QPS_RESET);
        if (in_u8(in) & 1) {
            modify(q, ROCX_QP_ATTR_STATE, ROCX_QPS_RESET);
            reset_pi(q - qps);
            to_rts(q);
        }
        break;
    case 11:    /* stray writes to a QP's queues and doorbell record */
        q = pick_qp(in);
        off = in_u16(in) % (0x1400 + ROCX_DB_RECORD_SIZE);
        n = in_u8(in) % 16;
        for (i = 0; i < n; i++) {
            *gmem(qp_buf(q - qps) + off + i) = in_u8(in);
        }
        break;
    case 12:    /* the MR goes away */
        if (in_u8(in) & 1) {
            union rocx_aq_cmd c = cmd(ROCX_AQ_OP_DEREG_MR);

            ((struct rocx_aq_dereg_mr *)&c)->key = htole32(mr_key);
            aq(&c);
        }
        break;
    case 13:    /* carrier */
        fake_set_carrier(F, in_u8(in) & 1);
        break;
    case 14:
        op_recreate(in);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Input in = { data, size };
    unsigned i;
    uint8_t flags = in_u8(&in);

    mtu = (flags & 7) % 5 + 1;
    uc = flags & 8;
    xrc = !uc && (flags & 0x10);
    dbrec = flags & 0x20;
    if (!F) {
        F = fake_new();
    }
    fake_reset(F);
    aq_pi = 0;
    cq_ci = 0;
    plan();
    setup();
    rocx_core_set_direct_doorbells(&F->core, dbrec);
    rocx_core_set_lazy_doorbells(&F->core, dbrec);
    rocx_core_set_db_records(&F->core, dbrec);
    for (i = 0; i <= UDQ; i++) {
        RocxQp *qp = rocx_qp_get(&F->core, qps[i].qpn);

        if (!qp || qp->state != ROCX_QPS_RTS) {
            abort();    /* the fixture itself is broken */
        }
    }
    while (in.n) {
        run_op(&in);
    }
    fake_run(F);
    fake_advance(F, 100LL * 1000 * 1000 * 1000);
    fake_run(F);
    if (rocx_core_reg_read(&F->core, ROCX_REG_ID, 4) != ROCX_ID_MAGIC) {
        abort();
    }
    return 0;
}
