/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the rocx RDMA transport: the harness (see rdma.h) and
 * main().  Usage: test_rdma [-v] [case-name...]; the last line of output
 * is "host: N passed, N failed".
 */
#include "rdma.h"

const char *cur_case;
unsigned case_failures;
bool verbose;
TDev *A, *B;
TWire wire;

#define T_AQ_LD         4
#define T_EQ_LD         8
#define T_AQ_SQ         0x0000
#define T_AQ_CQ         0x1000
#define T_ATTR          0x2000
#define T_EQ(n)         (0x4000 + (n) * 0x1000)
#define T_BRK           0x10000

void t_fail(const char *file, int line, const char *what,
            unsigned long long a, unsigned long long b)
{
    unsigned i;

    fprintf(stderr, "  %s:%d: %s: CHECK(%s) failed: 0x%llx vs 0x%llx\n",
            file, line, cur_case, what, a, b);
    for (i = 0; i < 2; i++) {
        TDev *d = i ? B : A;

        if (d && d->f->gerrs) {
            fprintf(stderr, "    dev %u: last guest error %u/0x%x: %s\n", i,
                    d->f->last_gerr_code, d->f->last_gerr_info,
                    d->f->last_gerr_msg);
        }
    }
    case_failures++;
}

/* ---- Guest memory ---- */

uint64_t t_alloc(TDev *d, uint64_t len, uint64_t align)
{
    uint64_t off = (d->brk + align - 1) & ~(align - 1);

    if (off + len > FAKE_MEM_SIZE) {
        fprintf(stderr, "t_alloc: out of guest memory (%" PRIu64 ")\n",
                len);
        abort();
    }
    d->brk = off + len;
    memset(d->f->mem + off, 0, len);
    return off;
}

void *t_ptr(TDev *d, uint64_t off, size_t len)
{
    return fake_ptr(d->f, T_GPA(off), len);
}

uint64_t t_stat(TDev *d, enum rocx_stat s)
{
    return d->f->core.stats[s];
}

void t_fill(void *p, size_t len, uint32_t seed)
{
    uint8_t *b = p;
    uint32_t x = seed * 2654435761u + 1;
    size_t i;

    for (i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b[i] = x;
    }
}

/* ---- Admin queue, doorbells, events ---- */

union rocx_aq_cmd t_cmd(uint16_t op)
{
    union rocx_aq_cmd c;

    memset(&c, 0, sizeof(c));
    c.hdr.opcode = htole16(op);
    return c;
}

unsigned t_aq(TDev *d, union rocx_aq_cmd *c, uint32_t *result)
{
    unsigned slot = d->aq_pi & ((1u << T_AQ_LD) - 1);
    struct rocx_aq_cqe *e = t_ptr(d, T_AQ_CQ + slot * 16, 16);
    uint8_t phase = (d->aq_pi >> T_AQ_LD) & 1 ? 0 : ROCX_AQ_CQE_PHASE;

    c->hdr.cmd_id = htole16(++d->aq_cmd_id);
    memcpy(t_ptr(d, T_AQ_SQ + slot * 64, 64), c, 64);
    d->aq_pi++;
    rocx_core_reg_write(&d->f->core, ROCX_REG_AQ_DB, d->aq_pi, 4);
    fake_run(d->f);
    if ((e->flags & ROCX_AQ_CQE_PHASE) != phase ||
        le16toh(e->cmd_id) != d->aq_cmd_id) {
        fprintf(stderr, "t_aq: no completion for opcode 0x%x\n",
                le16toh(c->hdr.opcode));
        case_failures++;
        return 0xff;
    }
    if (result) {
        *result = le32toh(e->result);
    }
    return e->status;
}

void t_db(TDev *d, unsigned page, unsigned reg, uint32_t qid, uint16_t idx,
          uint64_t flags)
{
    rocx_core_db_write(&d->f->core,
                       (uint64_t)page * ROCX_DB_PAGE_SIZE + reg,
                       qid | (uint64_t)idx << 32 | flags, 8);
}

unsigned t_set_port_mtu(TDev *d, uint16_t mtu)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_SET_PORT);

    c.set_port.valid = htole32(ROCX_PORT_SET_MTU);
    c.set_port.mtu = htole16(mtu);
    return t_aq(d, &c, NULL);
}

unsigned t_set_gid(TDev *d, unsigned index, uint16_t vlan)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_SET_GID);

    c.set_gid.index = htole16(index);
    c.set_gid.type = index == 2 ? ROCX_GID_TYPE_ROCE_V1 :
                                  ROCX_GID_TYPE_ROCE_V2;
    c.set_gid.vlan = htole16(vlan);
    memcpy(c.set_gid.mac, d->mac, 6);
    memcpy(c.set_gid.gid, index == 0 ? d->gid4 : index == 1 ? d->gid6 :
           d->gid1, 16);
    return t_aq(d, &c, NULL);
}

static uint64_t t_cfg_off(TDev *d)
{
    QEMU_BUILD_BUG_ON(sizeof(struct rocx_dcb_cfg) > T_CFG_MAX);
    QEMU_BUILD_BUG_ON(sizeof(struct rocx_cc_cfg) > T_CFG_MAX);
    if (!d->cfg_ok) {
        d->cfg_off = t_alloc(d, T_CFG_MAX, 64);
        d->cfg_ok = true;
    }
    return d->cfg_off;
}

void *t_cfg_buf(TDev *d)
{
    return t_ptr(d, t_cfg_off(d), T_CFG_MAX);
}

unsigned t_cfg_cmd(TDev *d, uint16_t op, uint32_t len)
{
    union rocx_aq_cmd c = t_cmd(op);

    c.cfg_buf.addr = htole64(T_GPA(t_cfg_off(d)));
    c.cfg_buf.len = htole32(len);
    return t_aq(d, &c, NULL);
}

unsigned t_cfg_set(TDev *d, uint16_t op, const void *in, uint32_t len)
{
    assert(len <= T_CFG_MAX);
    memcpy(t_cfg_buf(d), in, len);
    return t_cfg_cmd(d, op, len);
}

unsigned t_cfg_query(TDev *d, uint16_t op, void *out, uint32_t len)
{
    unsigned st;

    assert(len <= T_CFG_MAX);
    st = t_cfg_cmd(d, op, len);
    memcpy(out, t_cfg_buf(d), len);
    return st;
}

struct rocx_eqe *t_eq_next(TDev *d, unsigned eqn)
{
    uint32_t ci = d->eq_ci[eqn];
    struct rocx_eqe *e = t_ptr(d, T_EQ(eqn) + (ci & ((1u << d->eq_ld) - 1)) *
                               16, 16);
    uint8_t phase = (ci >> d->eq_ld) & 1 ? 0 : ROCX_EQE_PHASE;

    if ((e->flags & ROCX_EQE_PHASE) != phase) {
        return NULL;
    }
    d->eq_ci[eqn]++;
    t_db(d, 0, ROCX_DB_EQ, eqn, d->eq_ci[eqn], 0);
    return e;
}

/* ---- Setup ---- */

static void t_on_send(FakeDev *f, const uint8_t *buf, size_t len);
static void t_on_rx_resume(FakeDev *f);

static TDev *t_dev_new(unsigned id)
{
    TDev *d = calloc(1, sizeof(*d));
    union rocx_aq_cmd c;
    unsigned i;
    static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

    d->f = fake_new();
    d->f->print_gerrs = verbose;
    d->f->on_send = t_on_send;
    d->f->on_rx_resume = t_on_rx_resume;
    d->f->peer = d;
    d->held_tail = &d->held;
    d->id = id;
    d->brk = T_BRK;
    d->eq_ld = T_EQ_LD;
    memcpy(d->mac, "\x02\x00\x00\x00\x00\x0a", 6);
    d->mac[5] += id;
    memcpy(d->gid4, v4, 12);
    d->gid4[12] = 198;
    d->gid4[13] = 18;
    d->gid4[15] = id + 1;
    d->gid6[0] = 0xfd;
    d->gid6[15] = id + 1;
    d->gid1[0] = 0xfe;
    d->gid1[1] = 0x80;
    d->gid1[15] = id + 1;

    rocx_core_reg_write(&d->f->core, ROCX_REG_AQ_SQ_BASE_LO,
                        (uint32_t)T_GPA(T_AQ_SQ), 4);
    rocx_core_reg_write(&d->f->core, ROCX_REG_AQ_SQ_BASE_HI,
                        T_GPA(T_AQ_SQ) >> 32, 4);
    rocx_core_reg_write(&d->f->core, ROCX_REG_AQ_CQ_BASE_LO,
                        (uint32_t)T_GPA(T_AQ_CQ), 4);
    rocx_core_reg_write(&d->f->core, ROCX_REG_AQ_CQ_BASE_HI,
                        T_GPA(T_AQ_CQ) >> 32, 4);
    rocx_core_reg_write(&d->f->core, ROCX_REG_AQ_CTRL,
                        T_AQ_LD | ROCX_AQ_CTRL_ENABLE, 4);
    for (i = 0; i < 2; i++) {
        c = t_cmd(ROCX_AQ_OP_CREATE_EQ);
        c.create_eq.base = htole64(T_GPA(T_EQ(i)));
        c.create_eq.eqn = htole16(i);
        c.create_eq.log_depth = T_EQ_LD;
        c.create_eq.vector = i;
        CHECK_EQ(t_aq(d, &c, NULL), ROCX_AQ_STS_OK);
    }
    /* A port MTU every path MTU fits in (the device checks them). */
    t_set_port_mtu(d, ROCX_MAX_MTU);
    c = t_cmd(ROCX_AQ_OP_SET_PORT);
    c.set_port.valid = htole32(ROCX_PORT_SET_ADMIN);
    c.set_port.admin_up = 1;
    CHECK_EQ(t_aq(d, &c, NULL), ROCX_AQ_STS_OK);
    for (i = 0; i < 3; i++) {
        CHECK_EQ(t_set_gid(d, i, ROCX_VLAN_NONE), ROCX_AQ_STS_OK);
    }
    c = t_cmd(ROCX_AQ_OP_CREATE_PD);
    CHECK_EQ(t_aq(d, &c, &d->pdn), ROCX_AQ_STS_OK);
    /* The link came up: consume that event. */
    while (t_eq_next(d, 0)) {
    }
    return d;
}

void t_setup(void)
{
    memset(&wire, 0, sizeof(wire));
    A = t_dev_new(0);
    B = t_dev_new(1);
}

static void t_wire_flush(void);
static void t_held_free(TDev *d);

void t_teardown(void)
{
    t_wire_flush();
    if (A) {
        t_held_free(A);
        fake_free(A->f);
        free(A);
    }
    if (B) {
        t_held_free(B);
        fake_free(B->f);
        free(B);
    }
    A = B = NULL;
}

/* ---- Objects ---- */

struct rocx_pbl t_pbl(TDev *d, uint64_t off, uint64_t len, unsigned shift,
                      int levels)
{
    uint64_t psize = 1ULL << shift;
    uint64_t first = off & ~(psize - 1);
    uint32_t n = (off + len - first + psize - 1) >> shift, i;
    struct rocx_pbl p;

    if (!n) {
        n = 1;
    }
    if (levels < 0) {
        levels = n == 1 ? 0 : n <= 512 ? 1 : 2;
    }
    memset(&p, 0, sizeof(p));
    p.npages = htole32(n);
    p.page_shift = shift;
    p.levels = levels;
    if (levels == 0) {
        p.addr = htole64(T_GPA(first));
    } else if (levels == 1) {
        uint64_t l = t_alloc(d, (uint64_t)n * 8, 8);
        uint64_t *e = t_ptr(d, l, (size_t)n * 8);

        for (i = 0; i < n; i++) {
            e[i] = htole64(T_GPA(first + (uint64_t)i * psize));
        }
        p.addr = htole64(T_GPA(l));
    } else {
        uint32_t nl1 = (n + 511) / 512, j;
        uint64_t l1 = t_alloc(d, (uint64_t)nl1 * 8, 8);
        uint64_t *e1 = t_ptr(d, l1, (size_t)nl1 * 8);

        for (j = 0; j < nl1; j++) {
            uint64_t l2 = t_alloc(d, T_PAGE, T_PAGE);
            uint64_t *e2 = t_ptr(d, l2, T_PAGE);

            e1[j] = htole64(T_GPA(l2));
            for (i = 0; i < 512 && j * 512 + i < n; i++) {
                e2[i] = htole64(T_GPA(first +
                                      (uint64_t)(j * 512 + i) * psize));
            }
        }
        p.addr = htole64(T_GPA(l1));
    }
    return p;
}

unsigned t_reg_mr(TDev *d, TMr *mr, uint64_t off, uint64_t len,
                  uint32_t access)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_REG_MR);
    struct rocx_aq_reg_mr *r = (void *)&c;

    r->pdn = htole32(d->pdn);
    r->access = htole32(access);
    r->iova = htole64(T_GPA(off));
    r->length = htole64(len);
    r->offset = htole32(off & (T_PAGE - 1));
    r->pbl = t_pbl(d, off, len, 12, -1);
    mr->off = off;
    mr->len = len;
    mr->iova = T_GPA(off);
    return t_aq(d, &c, &mr->key);
}

unsigned t_dereg_mr(TDev *d, uint32_t key)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DEREG_MR);

    ((struct rocx_aq_dereg_mr *)&c)->key = htole32(key);
    return t_aq(d, &c, NULL);
}

struct rocx_sge t_sge(const TMr *mr, uint64_t off, uint32_t len)
{
    struct rocx_sge s = {
        .addr = htole64(mr->iova + off),
        .length = htole32(len),
        .lkey = htole32(mr->key),
    };

    return s;
}

unsigned t_create_cq(TDev *d, TCq *cq, unsigned ld, uint32_t uctx,
                     unsigned eqn)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_CQ);
    struct rocx_aq_create_cq *cc = (void *)&c;
    uint64_t len = 32ULL << ld;

    memset(cq, 0, sizeof(*cq));
    cq->d = d;
    cq->ld = ld;
    cq->uctx = uctx;
    cq->ring = t_alloc(d, len < T_PAGE ? T_PAGE : len, T_PAGE);
    cc->uctx = htole32(uctx);
    cc->log_depth = ld;
    cc->eqn = eqn;
    cc->pbl = t_pbl(d, cq->ring, len, 12, -1);
    return t_aq(d, &c, &cq->cqn);
}

bool t_poll(TCq *cq, struct rocx_cqe *out)
{
    struct rocx_cqe *e = t_ptr(cq->d, cq->ring +
                               (cq->ci & ((1u << cq->ld) - 1)) * 32, 32);
    uint8_t phase = (cq->ci >> cq->ld) & 1 ? 0 : ROCX_CQE_PHASE;

    if ((e->flags & ROCX_CQE_PHASE) != phase) {
        return false;
    }
    if (out) {
        *out = *e;
    }
    cq->ci++;
    t_db(cq->d, cq->uctx, ROCX_DB_CQ, cq->cqn, cq->ci, 0);
    return true;
}

void t_cq_arm(TCq *cq, uint64_t flags)
{
    t_db(cq->d, cq->uctx, ROCX_DB_CQ, cq->cqn, cq->ci, flags);
}

unsigned t_create_qp(TDev *d, TQp *qp, TCq *scq, TCq *rcq, unsigned sq_ld,
                     unsigned rq_ld, uint8_t flags)
{
    return t_create_qp_type(d, qp, ROCX_QPT_RC, scq, rcq, sq_ld, rq_ld, flags);
}

unsigned t_create_qp_type(TDev *d, TQp *qp, uint8_t type, TCq *scq,
                          TCq *rcq, unsigned sq_ld, unsigned rq_ld,
                          uint8_t flags)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_QP);
    struct rocx_aq_create_qp *cq = (void *)&c;
    uint64_t len;

    memset(qp, 0, sizeof(*qp));
    qp->d = d;
    qp->scq = scq;
    qp->rcq = rcq;
    qp->sq_ld = sq_ld;
    qp->rq_ld = rq_ld;
    qp->sq_shift = 9;
    qp->rq_shift = 8;
    qp->uctx = scq->uctx;
    len = (1ULL << (sq_ld + qp->sq_shift)) +
          (rq_ld ? 1ULL << (rq_ld + qp->rq_shift) : 0);
    if (flags & ROCX_QP_DB_RECORD) {
        len += ROCX_DB_RECORD_SIZE;
    }
    qp->buf = t_alloc(d, len, T_PAGE);
    if (flags & ROCX_QP_DB_RECORD) {
        qp->dbrec = qp->buf + len - ROCX_DB_RECORD_SIZE;
    }
    cq->type = type;
    cq->flags = flags;
    cq->sq_log_depth = sq_ld;
    cq->rq_log_depth = rq_ld;
    cq->sq_wqe_shift = qp->sq_shift;
    cq->rq_wqe_shift = qp->rq_shift;
    cq->pdn = htole32(d->pdn);
    cq->send_cqn = htole32(scq->cqn);
    cq->recv_cqn = htole32(rcq->cqn);
    cq->srqn = htole32(ROCX_NO_SRQ);
    cq->uctx = htole32(qp->uctx);
    cq->pbl = t_pbl(d, qp->buf, len, 12, -1);
    return t_aq(d, &c, &qp->qpn);
}

static unsigned t_attr_cmd(TQp *qp, uint16_t op, struct rocx_qp_attr *a)
{
    union rocx_aq_cmd c = t_cmd(op);
    struct rocx_aq_qp_attr_cmd *m = (void *)&c;
    void *buf = t_ptr(qp->d, T_ATTR, sizeof(*a));
    unsigned st;

    m->qpn = htole32(qp->qpn);
    m->addr = htole64(T_GPA(T_ATTR));
    memcpy(buf, a, sizeof(*a));
    st = t_aq(qp->d, &c, NULL);
    memcpy(a, buf, sizeof(*a));
    return st;
}

unsigned t_modify(TQp *qp, struct rocx_qp_attr *a)
{
    return t_attr_cmd(qp, ROCX_AQ_OP_MODIFY_QP, a);
}

unsigned t_query(TQp *qp, struct rocx_qp_attr *a)
{
    memset(a, 0xa5, sizeof(*a));
    return t_attr_cmd(qp, ROCX_AQ_OP_QUERY_QP, a);
}

unsigned t_to_state(TQp *qp, uint8_t state)
{
    struct rocx_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE);
    a.state = state;
    return t_modify(qp, &a);
}

unsigned t_destroy_qp(TQp *qp)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DESTROY_QP);

    ((struct rocx_aq_destroy_qp *)&c)->qpn = htole32(qp->qpn);
    return t_aq(qp->d, &c, NULL);
}

unsigned t_create_idle_qp(TDev *d, TCq *cq, uint64_t buf, uint32_t *qpn)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_QP);
    struct rocx_aq_create_qp *q = (void *)&c;

    q->type = ROCX_QPT_RC;
    q->sq_log_depth = 1;
    q->sq_wqe_shift = 6;
    q->pdn = htole32(d->pdn);
    q->send_cqn = q->recv_cqn = htole32(cq->cqn);
    q->srqn = htole32(ROCX_NO_SRQ);
    q->uctx = htole32(cq->uctx);
    q->pbl = t_pbl(d, buf, T_PAGE, 12, -1);
    return t_aq(d, &c, qpn);
}

unsigned t_destroy_qpn(TDev *d, uint32_t qpn)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_DESTROY_QP);

    ((struct rocx_aq_destroy_qp *)&c)->qpn = htole32(qpn);
    return t_aq(d, &c, NULL);
}

uint32_t t_qp_churn(TDev *d, TCq *cq, uint64_t buf, unsigned n)
{
    uint32_t qpn = 0;

    while (n--) {
        if (t_create_idle_qp(d, cq, buf, &qpn) != ROCX_AQ_STS_OK ||
            t_destroy_qpn(d, qpn) != ROCX_AQ_STS_OK) {
            return 0;
        }
    }
    return qpn;
}

void t_conn_default(TConn *c)
{
    memset(c, 0, sizeof(*c));
    c->mtu = 3;                         /* 1024 */
    c->net_type = ROCX_NET_ROCE_V2_IPV4;
    c->timeout = 14;
    c->retry_cnt = 7;
    c->rnr_retry = 7;
    c->min_rnr_timer = 1;
    c->access = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
                ROCX_ACCESS_REMOTE_READ;
    c->psn_a = 0x100;
    c->psn_b = 0xfffff0;                /* wraps during longer tests */
    c->vlan = ROCX_VLAN_NONE;
}

void t_av(TDev *d, TDev *to, uint8_t net_type, struct rocx_av *av)
{
    memset(av, 0, sizeof(*av));
    switch (net_type) {
    case ROCX_NET_ROCE_V2_IPV4:
        av->sgid_index = 0;
        memcpy(av->dgid, to->gid4, 16);
        break;
    case ROCX_NET_ROCE_V2_IPV6:
        av->sgid_index = 1;
        memcpy(av->dgid, to->gid6, 16);
        break;
    default:
        av->sgid_index = 2;
        memcpy(av->dgid, to->gid1, 16);
        break;
    }
    memcpy(av->dmac, to->mac, 6);
    av->vlan = htole16(ROCX_VLAN_NONE);
    av->hop_limit = 64;
    av->traffic_class = 0x68;           /* DSCP 26, not ECT */
    av->net_type = net_type;
}

static void t_connect_one(TQp *q, TQp *peer, const TConn *c, uint32_t sq_psn,
                          uint32_t rq_psn)
{
    struct rocx_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_ACCESS |
                      ROCX_QP_ATTR_PKEY_INDEX);
    a.state = ROCX_QPS_INIT;
    a.access = htole32(c->access);
    CHECK_EQ(t_modify(q, &a), ROCX_AQ_STS_OK);

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV |
                      ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
                      ROCX_QP_ATTR_RQ_PSN | ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC |
                      ROCX_QP_ATTR_MIN_RNR_TIMER);
    a.state = ROCX_QPS_RTR;
    t_av(q->d, peer->d, c->net_type, &a.av);
    a.av.vlan = htole16(c->vlan);
    a.av.flow_label |= htole32(ROCX_FIELD_PREP(ROCX_AV_PRIO, c->prio));
    if (c->tclass) {
        a.av.traffic_class = c->tclass;     /* else t_av()'s */
    }
    a.path_mtu = c->mtu;
    a.dest_qpn = htole32(peer->qpn);
    a.rq_psn = htole32(rq_psn);
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = c->min_rnr_timer;
    CHECK_EQ(t_modify(q, &a), ROCX_AQ_STS_OK);

    memset(&a, 0, sizeof(a));
    a.valid = htole32(ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_SQ_PSN |
                      ROCX_QP_ATTR_TIMEOUT | ROCX_QP_ATTR_RETRY_CNT |
                      ROCX_QP_ATTR_RNR_RETRY | ROCX_QP_ATTR_MAX_RD_ATOMIC);
    a.state = ROCX_QPS_RTS;
    a.sq_psn = htole32(sq_psn);
    a.timeout = c->timeout;
    a.retry_cnt = c->retry_cnt;
    a.rnr_retry = c->rnr_retry;
    a.max_rd_atomic = 4;
    CHECK_EQ(t_modify(q, &a), ROCX_AQ_STS_OK);
}

void t_connect(TQp *a, TQp *b, const TConn *c)
{
    t_connect_one(a, b, c, c->psn_a, c->psn_b);
    if (b != a) {
        t_connect_one(b, a, c, c->psn_b, c->psn_a);
    }
}

void t_rc_qps(TCq *acq, TCq *bcq, TQp *qa, TQp *qb)
{
    CHECK_EQ(t_create_cq(A, acq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, bcq, 8, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, qa, acq, acq, 6, 6, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, qb, bcq, bcq, 6, 6, 0), ROCX_AQ_STS_OK);
}

void t_rc_pair(TRcPair *p, uint64_t size, uint32_t a_access,
               uint32_t b_access, const TConn *conn)
{
    memset(p, 0, sizeof(*p));
    p->size = size;
    t_rc_qps(&p->acq, &p->bcq, &p->qa, &p->qb);
    if (a_access) {
        p->abuf = t_alloc(A, size, T_PAGE);
    }
    if (b_access) {
        p->bbuf = t_alloc(B, size, T_PAGE);
    }
    if (a_access) {
        CHECK_EQ(t_reg_mr(A, &p->amr, p->abuf, size, a_access),
                 ROCX_AQ_STS_OK);
    }
    if (b_access) {
        CHECK_EQ(t_reg_mr(B, &p->bmr, p->bbuf, size, b_access),
                 ROCX_AQ_STS_OK);
    }
    t_connect(&p->qa, &p->qb, conn);
}

/* ---- Work requests ---- */

void *t_sq_slot(TQp *qp, uint16_t idx)
{
    uint64_t off = (uint64_t)(idx & ((1u << qp->sq_ld) - 1)) << qp->sq_shift;

    return t_ptr(qp->d, qp->buf + off, 1u << qp->sq_shift);
}

uint16_t t_post_send(TQp *qp, uint8_t opcode, uint8_t flags,
                     const struct rocx_sge *sge, unsigned nsge,
                     uint64_t raddr, uint32_t rkey, uint32_t imm)
{
    uint16_t idx = qp->sq_pi++;
    uint8_t *slot = t_sq_slot(qp, idx);
    struct rocx_send_wqe *w = (void *)slot;

    memset(slot, 0, 1u << qp->sq_shift);
    w->ctrl.opcode = opcode;
    w->ctrl.flags = flags;
    w->ctrl.num_sge = nsge;
    w->ctrl.imm_data = htobe32(imm);
    w->ctrl.wqe_idx = htole16(idx);
    w->rdma.remote_addr = htole64(raddr);
    w->rdma.rkey = htole32(rkey);
    if (nsge) {
        memcpy(slot + ROCX_SEND_WQE_HDR, sge, nsge * sizeof(*sge));
    }
    return idx;
}

unsigned t_alloc_mw(TDev *d, uint8_t type, uint32_t *key)
{
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_ALLOC_MW);
    struct rocx_aq_alloc_mw *a = (void *)&c;

    a->pdn = htole32(d->pdn);
    a->type = type;
    return t_aq(d, &c, key);
}

uint16_t t_post_bind(TQp *qp, uint8_t flags, uint32_t mw_key, const TMr *mr,
                     uint64_t off, uint64_t len, uint32_t access)
{
    uint16_t idx = t_post_send(qp, ROCX_WQE_BIND_MW, flags, NULL, 0, 0, 0, 0);
    struct rocx_send_wqe *w = t_sq_slot(qp, idx);

    memset(&w->bind_mw, 0, sizeof(w->bind_mw));
    w->bind_mw.mw_key = htole32(mw_key);
    w->bind_mw.mr_key = htole32(mr->key);
    w->bind_mw.addr = htole64(mr->iova + off);
    w->bind_mw.length = htole64(len);
    w->bind_mw.access = htole32(access);
    return idx;
}

uint16_t t_post_inline(TQp *qp, uint8_t opcode, uint8_t flags,
                       const void *data, unsigned len, uint64_t raddr,
                       uint32_t rkey)
{
    uint16_t idx = t_post_send(qp, opcode, flags | ROCX_WQE_INLINE, NULL, 0,
                               raddr, rkey, 0);
    uint8_t *slot = t_sq_slot(qp, idx);
    struct rocx_send_wqe *w = (void *)slot;

    w->ctrl.inline_len = htole32(len);
    memcpy(slot + ROCX_SEND_WQE_HDR, data, len);
    return idx;
}

uint16_t t_post_recv(TQp *qp, const struct rocx_sge *sge, unsigned nsge)
{
    uint16_t idx = qp->rq_pi++;
    uint64_t off = (1ULL << (qp->sq_ld + qp->sq_shift)) +
                   ((uint64_t)(idx & ((1u << qp->rq_ld) - 1))
                    << qp->rq_shift);
    uint8_t *slot = t_ptr(qp->d, qp->buf + off, 1u << qp->rq_shift);
    struct rocx_recv_wqe *w = (void *)slot;

    memset(slot, 0, 1u << qp->rq_shift);
    w->num_sge = nsge;
    w->wqe_idx = htole16(idx);
    if (nsge) {
        memcpy(slot + ROCX_RECV_WQE_HDR, sge, nsge * sizeof(*sge));
    }
    return idx;
}

void t_ring_sq(TQp *qp)
{
    t_db(qp->d, qp->uctx, ROCX_DB_SQ, qp->qpn, qp->sq_pi, 0);
}

bool t_post_record(TQp *qp)
{
    struct rocx_db_record *r = t_ptr(qp->d, qp->dbrec, sizeof(*r));

    r->sq_pi = htole32(qp->sq_pi);
    if (le32toh(r->flags) & ROCX_DB_RECORD_POLL) {
        return false;
    }
    t_ring_sq(qp);
    return true;
}

uint32_t t_dbrec_flags(TQp *qp)
{
    struct rocx_db_record *r = t_ptr(qp->d, qp->dbrec, sizeof(*r));

    return le32toh(r->flags);
}

void t_ring_rq(TQp *qp)
{
    t_db(qp->d, qp->uctx, ROCX_DB_RQ, qp->qpn, qp->rq_pi, 0);
}

/* An Ethernet RX ring of 2^T_RX_LD buffers on d, n of them posted. */
uint64_t t_rx_ring(TDev *d, unsigned n, uint64_t *bufs)
{
    uint64_t ring = t_alloc(d, (16u << T_RX_LD), T_PAGE), b;
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_ETH_RING);
    unsigned i;

    b = t_alloc(d, (uint64_t)T_RX_BUF << T_RX_LD, T_PAGE);
    c.create_eth_ring.base = htole64(T_GPA(ring));
    c.create_eth_ring.type = ROCX_ETH_RING_RX;
    c.create_eth_ring.log_depth = T_RX_LD;
    c.create_eth_ring.vector = 1;
    c.create_eth_ring.buf_size = htole16(T_RX_BUF);
    CHECK_EQ(t_aq(d, &c, NULL), ROCX_AQ_STS_OK);
    for (i = 0; i < (1u << T_RX_LD); i++) {
        struct rocx_eth_rx_desc *rd = t_ptr(d, ring + 16 * i, 16);

        rd->addr = htole64(T_GPA(b + (uint64_t)T_RX_BUF * i));
    }
    if (n) {
        t_db(d, 0, ROCX_DB_ETH_RX, 0, n, 0);
    }
    if (bufs) {
        *bufs = b;
    }
    return ring;
}

/* ---- Fabric ---- */

#define T_WIRE_SLOTS    2048

typedef struct TFrame {
    TDev *to;
    size_t len;
    uint8_t buf[ROCX_MAX_FRAME + 64];
} TFrame;

static TFrame *wq;
static unsigned wq_head, wq_count;

static void t_on_send(FakeDev *f, const uint8_t *buf, size_t len)
{
    TDev *from = f->peer;
    TDev *to = from == A ? B : A;
    TFrame *fr;

    wire.sent++;
    if (wire.drop_permille) {
        wire.rng = wire.rng * 1103515245u + 12345u;
    }
    if ((wire.drop_nth && wire.sent == wire.drop_nth) ||
        (wire.drop_permille && (wire.rng >> 16) % 1000 < wire.drop_permille) ||
        (wire.drop_from && wire.sent >= wire.drop_from) ||
        (wire.drop_every && wire.sent % wire.drop_every == 0) || !to) {
        wire.dropped++;
        return;
    }
    if (!wq) {
        wq = calloc(T_WIRE_SLOTS, sizeof(*wq));
    }
    if (wq_count == T_WIRE_SLOTS) {
        fprintf(stderr, "t_on_send: wire queue overflow\n");
        abort();
    }
    fr = &wq[(wq_head + wq_count) % T_WIRE_SLOTS];
    fr->to = to;
    fr->len = len;
    memcpy(fr->buf, buf, len);
    if (wire.filter && !wire.filter(from, fr->buf, &fr->len)) {
        wire.dropped++;
        return;
    }
    wq_count++;
}

typedef struct THeld {
    struct THeld *next;
    size_t len;
    uint8_t buf[];
} THeld;

static void t_hold(TDev *d, const uint8_t *buf, size_t len)
{
    THeld *h = malloc(sizeof(*h) + len);

    if (!h) {
        abort();
    }
    h->next = NULL;
    h->len = len;
    memcpy(h->buf, buf, len);
    *d->held_tail = h;
    d->held_tail = &h->next;
    d->nheld++;
}

/* QEMU's qemu_send_packet() towards the NIC: deliver, or queue. */
static void t_deliver(TDev *d, const uint8_t *buf, size_t len)
{
    if (d->rx_blocked || d->held || !rocx_core_can_receive(&d->f->core)) {
        t_hold(d, buf, len);
        return;
    }
    if (!rocx_core_receive(&d->f->core, buf, len)) {
        d->rx_blocked = true;
        t_hold(d, buf, len);
    }
}

/* qemu_flush_queued_packets(): the queued frames, until one is refused. */
static void t_on_rx_resume(FakeDev *f)
{
    TDev *d = f->peer;

    d->rx_blocked = false;
    while (d->held) {
        THeld *h = d->held;

        if (!rocx_core_receive(&d->f->core, h->buf, h->len)) {
            d->rx_blocked = true;
            return;
        }
        d->held = h->next;
        if (!d->held) {
            d->held_tail = &d->held;
        }
        d->nheld--;
        free(h);
    }
}

static void t_held_free(TDev *d)
{
    while (d->held) {
        THeld *h = d->held;

        d->held = h->next;
        free(h);
    }
    d->held_tail = &d->held;
    d->nheld = 0;
    d->rx_blocked = false;
}

static void t_wire_flush(void)
{
    wq_head = wq_count = 0;
}

void t_inject(TDev *d, const uint8_t *buf, size_t len)
{
    CHECK_EQ(rocx_core_receive(&d->f->core, buf, len), len);
}

void t_wire_push(TDev *d, const uint8_t *buf, size_t len)
{
    TFrame *fr;

    if (!wq) {
        wq = calloc(T_WIRE_SLOTS, sizeof(*wq));
    }
    if (wq_count == T_WIRE_SLOTS || len > sizeof(fr->buf)) {
        fprintf(stderr, "t_wire_push: wire queue overflow\n");
        abort();
    }
    fr = &wq[(wq_head + wq_count++) % T_WIRE_SLOTS];
    fr->to = d;
    fr->len = len;
    memcpy(fr->buf, buf, len);
}

/*
 * The earliest deadline of a device whose next one is its line's (the
 * transmit scheduler waits for the line to be free), or INT64_MAX.
 */
static int64_t t_line_wait(void)
{
    int64_t next = INT64_MAX;
    unsigned i;

    for (i = 0; i < 2; i++) {
        TDev *d = i ? B : A;
        RocxTimers *tm;

        if (!d) {
            continue;
        }
        tm = &d->f->core.timers;
        if (tm->count && tm->heap[0]->kind == ROCX_TIMER_SCHED) {
            next = MIN(next, tm->heap[0]->deadline);
        }
    }
    return next;
}

static void t_pump_run(bool line_time)
{
    unsigned iter;

    for (iter = 0; iter < 10000000; iter++) {
        bool moved = false;

        /* One engine call each, then the wire: as a main loop would. */
        if (A && A->f->scheduled) {
            A->f->scheduled = false;
            rocx_core_process(&A->f->core);
            moved = true;
        }
        if (B && B->f->scheduled) {
            B->f->scheduled = false;
            rocx_core_process(&B->f->core);
            moved = true;
        }
        while (wq_count) {
            TFrame *fr = &wq[wq_head];

            wq_head = (wq_head + 1) % T_WIRE_SLOTS;
            wq_count--;
            wire.delivered++;
            t_deliver(fr->to, fr->buf, fr->len);
            moved = true;
        }
        if (!moved) {
            int64_t line = t_line_wait();
            unsigned i;

            if (!line_time || line == INT64_MAX) {
                return;
            }
            /* Frames take their time on the line: only that passes. */
            for (i = 0; i < 2; i++) {
                TDev *d = i ? B : A;

                if (d) {
                    fake_advance(d->f, MAX(line - d->f->now, 0));
                }
            }
            if (!(A && A->f->scheduled) && !(B && B->f->scheduled)) {
                return;
            }
        }
    }
    fprintf(stderr, "t_pump: the fabric never went quiet\n");
    abort();
}

void t_pump(void)
{
    t_pump_run(true);
}

void t_pump_still(void)
{
    t_pump_run(false);
}

void t_settle(int64_t max_ns)
{
    int64_t start = A->f->now;

    for (;;) {
        int64_t next = INT64_MAX;
        unsigned i;

        t_pump();
        for (i = 0; i < 2; i++) {
            TDev *d = i ? B : A;

            if (d && d->f->timer_armed) {
                next = MIN(next, d->f->timer_deadline);
            }
        }
        if (next == INT64_MAX || next - start > max_ns) {
            return;
        }
        for (i = 0; i < 2; i++) {
            TDev *d = i ? B : A;

            /*
             * A wake-up set for an instant already reached fires now, as
             * QEMU's does at its next turn: the device may leave one set
             * early (rocx_timer_host()).
             */
            if (d && next >= d->f->now) {
                fake_advance(d->f, next - d->f->now);
            }
        }
    }
}

/* ---- main ---- */

static bool selected(int argc, char **argv, const char *name)
{
    int i;
    bool any = false;

    for (i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            continue;
        }
        any = true;
        if (!strcmp(argv[i], name)) {
            return true;
        }
    }
    return !any;
}

int main(int argc, char **argv)
{
    const struct {
        const TCase *cases;
        unsigned n;
    } sets[] = {
        { t_cases_obj, t_ncases_obj },
        { t_cases_data, t_ncases_data },
        { t_cases_rel, t_ncases_rel },
        { t_cases_wire, t_ncases_wire },
        { t_cases_fabric, t_ncases_fabric },
        { t_cases_chan, t_ncases_chan },
        { t_cases_time, t_ncases_time },
        { t_cases_rx, t_ncases_rx },
        { t_cases_uc, t_ncases_uc },
        { t_cases_dcb, t_ncases_dcb },
        { t_cases_ud, t_ncases_ud },
        { t_cases_gsi, t_ncases_gsi },
        { t_cases_atomic, t_ncases_atomic },
        { t_cases_mw, t_ncases_mw },
        { t_cases_srq, t_ncases_srq },
        { t_cases_resize, t_ncases_resize },
        { t_cases_mcast, t_ncases_mcast },
        { t_cases_stats, t_ncases_stats },
        { t_cases_cc, t_ncases_cc },
        { t_cases_sched, t_ncases_sched },
        { t_cases_xrc, t_ncases_xrc },
        { t_cases_fr, t_ncases_fr },
        { t_cases_dbrec, t_ncases_dbrec },
    };
    unsigned passed = 0, failed = 0, s, i;
    int a;

    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-v")) {
            verbose = true;
        }
    }
    for (s = 0; s < ARRAY_SIZE(sets); s++) {
        for (i = 0; i < sets[s].n; i++) {
            const TCase *tc = &sets[s].cases[i];

            if (!selected(argc, argv, tc->name)) {
                continue;
            }
            cur_case = tc->name;
            case_failures = 0;
            t_setup();
            tc->fn();
            t_teardown();
            if (case_failures) {
                printf("FAIL %s (%u checks)\n", cur_case, case_failures);
                failed++;
            } else {
                printf("ok   %s\n", cur_case);
                passed++;
            }
            fflush(stdout);
        }
    }
    free(wq);
    printf("host: %u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
