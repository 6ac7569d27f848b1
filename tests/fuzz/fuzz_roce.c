/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the rocx RoCE transport: the receive path (parse,
 * ICRC, QP lookup) and the responder and completer behind it.
 *
 * Each input starts from a device with one RC QP in RTS, talking to a
 * peer at 198.18.0.2 (QPN 0x77), with an MR, a CQ and WQEs the input may
 * post.  The input is a flags byte (bits 0-2: path MTU - 1) and then a
 * program: frames built around a correct Ethernet/IPv4/UDP header from
 * fuzzer-chosen BTH and extended headers (the ICRC and IP checksum fixed
 * up, or not, so mutations get past them), raw frames, WQEs, doorbells,
 * clock steps, engine rounds, CQ polls, QP state changes and stray
 * writes to the queues.  fake.c aborts on an impossible frame or an
 * engine that never goes quiet; the sanitizers catch the rest.
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
#define MRLIST      0x0b00
#define CQR         0x1000      /* 64 CQEs */
#define QPB         0x2000      /* SQ 16 x 256, RQ 16 x 64 */
#define SQ_LD       4
#define RQ_LD       4
#define MR_OFF      0x4000      /* 64 KiB registered */
#define MR_LEN      0x10000
#define GPA(o)      (FAKE_MEM_BASE + (uint64_t)(o))
#define PEER_QPN    0x77

typedef struct Input {
    const uint8_t *p;
    size_t n;
} Input;

static FakeDev *F;
static uint16_t aq_pi, sq_pi, rq_pi;
static uint32_t cq_ci, qpn, cqn, mr_key;
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t our_ip[4] = { 198, 18, 0, 1 };
static const uint8_t peer_ip[4] = { 198, 18, 0, 2 };

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

static void modify(uint32_t valid, uint8_t state, uint8_t mtu)
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
    a->rq_psn = htole32(0x10);
    a->sq_psn = htole32(0x20);
    a->dest_qpn = htole32(PEER_QPN);
    memset(a->av.dgid + 10, 0xff, 2);
    memcpy(a->av.dgid + 12, peer_ip, 4);
    memcpy(a->av.dmac, peer_mac, 6);
    a->av.vlan = htole16(ROCX_VLAN_NONE);
    a->av.hop_limit = 64;
    a->av.net_type = ROCX_NET_ROCE_V2_IPV4;
    ((struct rocx_aq_qp_attr_cmd *)&c)->qpn = htole32(qpn);
    ((struct rocx_aq_qp_attr_cmd *)&c)->addr = htole64(GPA(ATTR));
    aq(&c);
}

static void to_rts(uint8_t mtu)
{
    modify(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_ACCESS, ROCX_QPS_INIT, mtu);
    modify(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV | ROCX_QP_ATTR_PATH_MTU |
           ROCX_QP_ATTR_DEST_QPN | ROCX_QP_ATTR_RQ_PSN |
           ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC | ROCX_QP_ATTR_MIN_RNR_TIMER,
           ROCX_QPS_RTR, mtu);
    modify(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN | ROCX_QP_ATTR_TIMEOUT |
           ROCX_QP_ATTR_RETRY_CNT | ROCX_QP_ATTR_RNR_RETRY |
           ROCX_QP_ATTR_MAX_RD_ATOMIC, ROCX_QPS_RTS, mtu);
}

static void setup(uint8_t mtu)
{
    union rocx_aq_cmd c;
    uint32_t pdn, i;
    uint64_t *list = (void *)gmem(MRLIST);

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
    c = cmd(ROCX_AQ_OP_SET_GID);
    c.set_gid.type = ROCX_GID_TYPE_ROCE_V2;
    c.set_gid.vlan = htole16(ROCX_VLAN_NONE);
    memcpy(c.set_gid.mac, F->core.port.mac, 6);
    memset(c.set_gid.gid + 10, 0xff, 2);
    memcpy(c.set_gid.gid + 12, our_ip, 4);
    aq(&c);
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
                            ROCX_ACCESS_REMOTE_READ);
        r->iova = htole64(GPA(MR_OFF));
        r->length = htole64(MR_LEN);
        r->pbl.addr = htole64(GPA(MRLIST));
        r->pbl.npages = htole32(MR_LEN / 4096);
        r->pbl.page_shift = 12;
        r->pbl.levels = 1;
    }
    mr_key = aq(&c);
    c = cmd(ROCX_AQ_OP_CREATE_CQ);
    {
        struct rocx_aq_create_cq *cc = (void *)&c;

        cc->log_depth = 6;
        cc->eqn = 1;
        cc->pbl.addr = htole64(GPA(CQR));
        cc->pbl.npages = htole32(1);
        cc->pbl.page_shift = 12;
    }
    cqn = aq(&c);
    c = cmd(ROCX_AQ_OP_CREATE_QP);
    {
        struct rocx_aq_create_qp *q = (void *)&c;

        q->sq_log_depth = SQ_LD;
        q->rq_log_depth = RQ_LD;
        q->sq_wqe_shift = 8;
        q->rq_wqe_shift = 6;
        q->pdn = htole32(pdn);
        q->send_cqn = q->recv_cqn = htole32(cqn);
        q->srqn = htole32(ROCX_NO_SRQ);
        q->pbl.addr = htole64(GPA(QPB));
        q->pbl.npages = htole32(2);
        q->pbl.page_shift = 12;
        q->pbl.levels = 1;
        list = (void *)gmem(MRLIST + 0x80);
        list[0] = htole64(GPA(QPB));
        list[1] = htole64(GPA(QPB + 4096));
        q->pbl.addr = htole64(GPA(MRLIST + 0x80));
    }
    qpn = aq(&c);
    to_rts(mtu);
}

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
 * A frame to our QP from the peer: [opcode][bth1][psn mode][psn u16]
 * [qpn sel][fix][paylen u16][fill][va u16][rkey sel][dmalen u16][aeth].
 */
static void op_frame(Input *in)
{
    static uint8_t f[ROCX_MAX_FRAME];
    RocxQp *qp = rocx_qp_get(&F->core, qpn);
    uint8_t opcode = in_u8(in), bth1 = in_u8(in), mode = in_u8(in);
    uint16_t delta = in_u16(in);
    uint8_t qsel = in_u8(in), fix = in_u8(in);
    uint16_t paylen = in_u16(in) % 4200;
    uint8_t fill = in_u8(in);
    uint16_t va = in_u16(in);
    uint8_t rsel = in_u8(in);
    uint16_t dmalen = in_u16(in);
    uint8_t syn = in_u8(in);
    uint32_t opf = rocx_op_flags(opcode);
    uint8_t *ip = f + 14, *udp = ip + 20, *bth = udp + 8, *h = bth + 12;
    uint32_t psn, icrc;
    size_t len, i;

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
    memcpy(f, F->core.port.mac, 6);
    memcpy(f + 6, peer_mac, 6);
    f[12] = 0x08;
    f[13] = 0x00;
    bth[0] = opcode;
    bth[1] = bth1 & (fix & 4 ? 0xff : 0xb0);
    bth[2] = bth[3] = 0xff;
    bth[4] = 0;
    i = qsel & 7 ? qpn : qsel;
    bth[5] = i >> 16;
    bth[6] = i >> 8;
    bth[7] = i;
    bth[8] = mode & 0x80;
    bth[9] = psn >> 16;
    bth[10] = psn >> 8;
    bth[11] = psn;
    if (opf & ROCX_OPF_RETH) {
        uint64_t a = GPA(MR_OFF) + va;
        uint32_t key = rsel & 7 ? mr_key : (uint32_t)rsel << 8 | 1;

        for (i = 0; i < 8; i++) {
            h[i] = a >> (56 - 8 * i);
        }
        h[8] = key >> 24;
        h[9] = key >> 16;
        h[10] = key >> 8;
        h[11] = key;
        h[12] = 0;
        h[13] = 0;
        h[14] = dmalen >> 8;
        h[15] = dmalen;
        h += 16;
    }
    if (opf & ROCX_OPF_AETH) {
        h[0] = syn;
        h[1] = h[2] = 0;
        h[3] = 1;
        h += 4;
    }
    if (opf & ROCX_OPF_IMM) {
        memset(h, fill, 4);
        h += 4;
    }
    for (i = 0; i < paylen; i++) {
        h[i] = fill + i;
    }
    h += paylen + ((bth1 >> 4) & 3);
    len = h + 4 - f;
    ip[0] = 0x45;
    ip[1] = 0;
    ip[2] = (len - 14) >> 8;
    ip[3] = len - 14;
    ip[4] = ip[5] = 0;
    ip[6] = 0x40;
    ip[7] = 0;
    ip[8] = 64;
    ip[9] = 17;
    ip[10] = ip[11] = 0;
    memcpy(ip + 12, peer_ip, 4);
    memcpy(ip + 16, our_ip, 4);
    if (fix & 1) {
        uint16_t c = ip_csum(ip);

        ip[10] = c >> 8;
        ip[11] = c;
    }
    udp[0] = 0xc0;
    udp[1] = 0x01;
    udp[2] = ROCX_ROCE_UDP_PORT >> 8;
    udp[3] = ROCX_ROCE_UDP_PORT & 0xff;
    udp[4] = (len - 34) >> 8;
    udp[5] = len - 34;
    udp[6] = udp[7] = 0;
    icrc = fix & 2 ? rocx_icrc(ROCX_NET_ROCE_V2_IPV4, ip, bth, h) : fill;
    h[0] = icrc;
    h[1] = icrc >> 8;
    h[2] = icrc >> 16;
    h[3] = icrc >> 24;
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

static void put_sge(uint8_t *p, Input *in)
{
    uint16_t off = in_u16(in), slen = in_u16(in);
    uint8_t sel = in_u8(in);
    struct rocx_sge s = {
        .addr = htole64(GPA(MR_OFF) + (sel & 8 ? off : off % MR_LEN)),
        .length = htole32(sel & 4 ? slen : slen % 4096),
        .lkey = htole32(sel & 3 ? mr_key : in_u32(in)),
    };

    memcpy(p, &s, sizeof(s));
}

static void op_post_recv(Input *in)
{
    uint8_t *w = gmem(QPB + (16 << 8) + (rq_pi & 15) * 64);
    uint8_t n = in_u8(in) % 4, i;

    memset(w, 0, 64);
    w[0] = n;
    w[2] = rq_pi;
    w[3] = rq_pi >> 8;
    for (i = 0; i < n; i++) {
        put_sge(w + 16 + i * 16, in);
    }
    rq_pi++;
}

static void op_post_send(Input *in)
{
    uint8_t *w = gmem(QPB + (sq_pi & 15) * 256);
    uint8_t op = in_u8(in), flags = in_u8(in), n = in_u8(in) % 5, i;
    uint64_t raddr = GPA(MR_OFF) + in_u16(in);

    memset(w, 0, 256);
    w[0] = op % 6;
    w[1] = flags & 0x7;
    w[2] = n;
    w[12] = sq_pi;
    w[13] = sq_pi >> 8;
    memcpy(w + 16, &(uint64_t){ htole64(raddr) }, 8);
    memcpy(w + 24, &(uint32_t){ htole32(mr_key) }, 4);
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
    sq_pi++;
}

static void op_poll(Input *in)
{
    uint8_t *e;

    for (;;) {
        e = gmem(CQR + (cq_ci & 63) * 32);
        if ((e[19] & 1) != ((cq_ci >> 6) & 1 ? 0 : 1)) {
            break;
        }
        cq_ci++;
    }
    rocx_core_db_write(&F->core, ROCX_DB_CQ,
                       cqn | (uint64_t)(uint16_t)cq_ci << 32 |
                       (in_u8(in) & 1 ? ROCX_DB_ARM : 0), 8);
}

static void run_op(Input *in, uint8_t mtu)
{
    uint8_t op = in_u8(in);
    uint16_t off;
    unsigned i, n;

    switch (op % 14) {
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
        rocx_core_db_write(&F->core, ROCX_DB_RQ,
                           qpn | (uint64_t)rq_pi << 32, 8);
        break;
    case 5:
        op_post_send(in);
        rocx_core_db_write(&F->core, ROCX_DB_SQ,
                           qpn | (uint64_t)sq_pi << 32, 8);
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
    case 10:    /* to ERR or RESET, and back to RTS */
        modify(ROCX_QP_ATTR_STATE, in_u8(in) & 1 ? ROCX_QPS_ERR :
               ROCX_QPS_RESET, mtu);
        if (in_u8(in) & 1) {
            sq_pi = rq_pi = 0;
            cq_ci = 0;
            modify(ROCX_QP_ATTR_STATE, ROCX_QPS_RESET, mtu);
            to_rts(mtu);
        }
        break;
    case 11:    /* stray writes to the queues */
        off = in_u16(in) % 0x1400;
        n = in_u8(in) % 16;
        for (i = 0; i < n; i++) {
            *gmem(QPB + off + i) = in_u8(in);
        }
        break;
    case 12:    /* the MR goes away, or comes back */
        if (in_u8(in) & 1) {
            union rocx_aq_cmd c = cmd(ROCX_AQ_OP_DEREG_MR);

            ((struct rocx_aq_dereg_mr *)&c)->key = htole32(mr_key);
            aq(&c);
        }
        break;
    case 13:    /* carrier */
        fake_set_carrier(F, in_u8(in) & 1);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Input in = { data, size };
    uint8_t mtu = in_u8(&in) % 5 + 1;

    if (!F) {
        F = fake_new();
    }
    fake_reset(F);
    aq_pi = sq_pi = rq_pi = 0;
    cq_ci = 0;
    setup(mtu);
    if (!rocx_qp_get(&F->core, qpn) ||
        rocx_qp_get(&F->core, qpn)->state != ROCX_QPS_RTS) {
        abort();    /* the fixture itself is broken */
    }
    while (in.n) {
        run_op(&in, mtu);
    }
    fake_run(F);
    fake_advance(F, 100LL * 1000 * 1000 * 1000);
    fake_run(F);
    if (rocx_core_reg_read(&F->core, ROCX_REG_ID, 4) != ROCX_ID_MAGIC) {
        abort();
    }
    return 0;
}
