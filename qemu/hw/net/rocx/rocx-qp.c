/*
 * rocx device model: queue pairs as objects.
 *
 * Lifecycle (CREATE/MODIFY/QUERY/DESTROY_QP), the state machine with its
 * transition tables, and the way into ERR.  The engine that runs QPs
 * (their doorbells, the run loop, flushing, expired deadlines) is
 * rocx-rdma.c; the ready list and a QP's place in the timer heap are
 * services of rocx-core.c.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

RocxQp *rocx_qp_get(RocxCore *c, uint32_t qpn)
{
    RocxQp *qp;

    if (qpn == ROCX_GSI_QPN) {
        return c->rdma.gsi;
    }
    qp = c->rdma.qp[rocx_num_slot(qpn)];

    /* By slot, then the whole number: a destroyed QP's names nothing. */
    return qp && qp->qpn == qpn ? qp : NULL;
}

static bool rocx_uctx_ok(RocxCore *c, uint32_t uctx, RocxAqResult *res)
{
    if (uctx >= ROCX_DB_PAGES) {
        res->status = ROCX_AQ_STS_INVALID;
        return false;
    }
    if (uctx && !c->uctx_used[uctx]) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return false;
    }
    return true;
}

/* ---- State changes ---- */

static void rocx_qp_stop_timers(RocxCore *c, RocxQp *qp)
{
    qp->req.deadline = 0;
    qp->req.rnr_wait = false;
    qp->req.rnr_deadline = 0;
    rocx_timer_del(c, &qp->timer);
    rocx_cc_qp_stop(c, qp);
}

void rocx_qp_error(RocxCore *c, RocxQp *qp, bool event, uint8_t syndrome)
{
    if (qp->state == ROCX_QPS_ERR || qp->state == ROCX_QPS_RESET) {
        return;
    }
    rocx_trace_qp_state(c, qp->qpn, qp->state, ROCX_QPS_ERR);
    qp->state = ROCX_QPS_ERR;
    qp->flushing = true;
    rocx_qp_stop_timers(c, qp);
    qp->resp.rd_count = qp->resp.rd_busy = 0;
    qp->resp.op = ROCX_RESP_IDLE;
    rocx_srq_qp_stop(c, qp);
    qp->resp.rwqe_valid = false;
    if (!qp->nak_final) {
        qp->resp.ack = ROCX_ACK_NONE;
    }
    /*
     * Nothing else tells the consumer: no CQE reports this error.  One
     * queued per QP, which is what the event FIFO has room for.
     */
    if (event && !qp->evq_pending) {
        qp->evq_pending = rocx_evq_push(c, ROCX_EQE_QP_ERROR, qp->qpn,
                                        syndrome);
    }
    rocx_srq_last_wqe(c, qp);
    rocx_qp_schedule(c, qp);
}

void rocx_qp_error_cq(RocxCore *c, uint32_t cqn)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_QP_SLOTS; i++) {
        RocxQp *qp = c->rdma.qp[i];

        if (qp && (qp->send_cqn == cqn || qp->recv_cqn == cqn)) {
            rocx_qp_error(c, qp, true, ROCX_VERR_NONE);
        }
    }
}

/* Whether packets of path MTU n fit the port's MTU, headers included. */
static bool rocx_path_mtu_fits(RocxCore *c, uint8_t path_mtu)
{
    return ROCX_PATH_MTU_BYTES(path_mtu) + ROCX_ROCE_MTU_OVERHEAD <=
           c->port.mtu;
}

void rocx_qp_port_mtu(RocxCore *c)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_QP_SLOTS; i++) {
        RocxQp *qp = c->rdma.qp[i];

        /*
         * Its packets would be dropped by every real network: end it now
         * rather than by retries nobody answers.
         */
        if (qp && qp->type != ROCX_QPT_UD &&
            (qp->state == ROCX_QPS_RTR || qp->state == ROCX_QPS_RTS) &&
            !rocx_path_mtu_fits(c, qp->path_mtu)) {
            rocx_qp_error(c, qp, true, ROCX_VERR_PATH_MTU);
        }
    }
}

/* Back to RESET: queues empty, indices 0, transport state forgotten. */
void rocx_qp_to_reset(RocxQp *qp)
{
    qp->state = ROCX_QPS_RESET;
    qp->sched.rate_limit_kbps = 0;
    qp->flushing = false;
    qp->nak_final = false;
    qp->sq_pi = 0;
    qp->rq_pi = 0;
    qp->sq_db = 0;
    /* A doorbell still in the delay line is of the QP before the reset. */
    qp->sq_db_gen++;
    rocx_req_reset(qp);
    rocx_resp_reset(qp);
}

void rocx_qp_sq_take(RocxCore *c, RocxQp *qp, uint16_t idx)
{
    qp->sq_pi = idx;
    if (qp->state == ROCX_QPS_RTS) {
        rocx_qp_schedule(c, qp);
    } else if (qp->state == ROCX_QPS_ERR) {
        qp->flushing = true;
        rocx_qp_schedule(c, qp);
    }
}

/* ---- Admin commands ---- */

void rocx_cmd_create_qp(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res)
{
    const struct rocx_aq_create_qp *cq = (const void *)cmd;
    uint32_t pdn = ldl_le_p(&cq->pdn);
    uint32_t scqn = ldl_le_p(&cq->send_cqn);
    uint32_t rcqn = ldl_le_p(&cq->recv_cqn);
    uint32_t srqn = ldl_le_p(&cq->srqn);
    uint32_t uctx = ldl_le_p(&cq->uctx);
    bool ini = cq->type == ROCX_QPT_XRC_INI;
    RocxCq *scq, *rcq;
    RocxSrq *srq = NULL;
    uint64_t bytes;
    RocxQp *qp;
    uint32_t qpn;

    /* No queues, no CQs, no PD: nothing below applies (rocx-xrc.c). */
    if (cq->type == ROCX_QPT_XRC_TGT) {
        rocx_xrc_create_tgt(c, cq, res);
        return;
    }
    /* XRC_INI: no receive side at all. */
    if (cq->type > ROCX_QPT_XRC_INI || ldl_le_p(&cq->xrcdn) ||
        (ini && (rcqn || cq->rq_log_depth || srqn != ROCX_NO_SRQ)) ||
        (cq->flags & ~(ROCX_QP_SQ_SIG_ALL | ROCX_QP_NO_MC_LOOPBACK |
                       ROCX_QP_DB_RECORD)) ||
        ((cq->flags & ROCX_QP_NO_MC_LOOPBACK) && cq->type != ROCX_QPT_UD) ||
        cq->sq_log_depth < 1 ||
        (1u << MIN(cq->sq_log_depth, 31)) > ROCX_CORE_MAX_QP_WR ||
        (1u << MIN(cq->rq_log_depth, 31)) > ROCX_CORE_MAX_QP_WR ||
        cq->sq_wqe_shift < 6 || cq->sq_wqe_shift > 10 ||
        (cq->rq_log_depth &&
         (cq->rq_wqe_shift < 4 || cq->rq_wqe_shift > 9)) ||
        pdn < 1 || pdn > ROCX_CORE_MAX_PD) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    /* RC, UC, UD, XRC and GSI (contract 1.2). */
    if (cq->type == ROCX_QPT_GSI && !rocx_gsi_create_ok(c, cq, res)) {
        return;
    }
    if (!rocx_uctx_ok(c, uctx, res)) {
        return;
    }
    scq = rocx_cq_get(c, scqn);
    rcq = ini ? NULL : rocx_cq_get(c, rcqn);
    if (!c->pd_owner[pdn - 1] || !scq || (!rcq && !ini)) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* A context uses only its own PD and CQs. */
    if (c->pd_owner[pdn - 1] != uctx + 1 || scq->uctx != uctx ||
        (rcq && rcq->uctx != uctx)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    /*
     * With an SRQ of its own context, and then no RQ.  Only RC's receive
     * path takes SRQ entries yet (rocx-srq.c).
     */
    if (srqn != ROCX_NO_SRQ) {
        if (cq->type != ROCX_QPT_RC) {
            res->status = ROCX_AQ_STS_UNSUPPORTED;
            return;
        }
        srq = rocx_srq_get(c, srqn);
        if (!srq) {
            res->status = ROCX_AQ_STS_NOT_FOUND;
            return;
        }
        /* An XRC SRQ is for the XRC_TGT QPs of its domain only. */
        if (srq->uctx != uctx || cq->rq_log_depth ||
            srq->type != ROCX_SRQT_BASIC) {
            res->status = ROCX_AQ_STS_INVALID;
            return;
        }
    }
    qp = g_new0(RocxQp, 1);
    qp->sq_bytes = 1ULL << (cq->sq_log_depth + cq->sq_wqe_shift);
    bytes = qp->sq_bytes +
            (cq->rq_log_depth ? 1ULL << (cq->rq_log_depth + cq->rq_wqe_shift)
                              : 0) +
            (cq->flags & ROCX_QP_DB_RECORD ? ROCX_DB_RECORD_SIZE : 0);
    res->status = rocx_pbl_copy(c, &cq->pbl, bytes, &qp->pbl);
    if (res->status != ROCX_AQ_STS_OK) {
        g_free(qp);
        return;
    }
    /* Only a QP that is made takes a number. */
    if (!rocx_qpn_alloc(c, &qpn)) {
        rocx_pbl_free(c, &qp->pbl);
        g_free(qp);
        res->status = ROCX_AQ_STS_NO_RESOURCE;
        return;
    }
    qp->qpn = qpn;
    qp->slot = rocx_num_slot(qpn);
    qp->type = cq->type;
    qp->flags = cq->flags;
    qp->sq_log_depth = cq->sq_log_depth;
    qp->rq_log_depth = cq->rq_log_depth;
    qp->sq_wqe_shift = cq->sq_wqe_shift;
    qp->rq_wqe_shift = cq->rq_log_depth ? cq->rq_wqe_shift : 0;
    qp->uctx = uctx;
    qp->pdn = pdn;
    qp->send_cqn = scqn;
    qp->recv_cqn = rcqn;
    qp->srqn = srq ? srqn : ROCX_NO_SRQ;
    qp->recv_pdn = srq ? srq->pdn : pdn;
    rocx_qp_to_reset(qp);
    if (cq->type == ROCX_QPT_GSI) {
        rocx_gsi_adopt(c, qp);
    }
    scq->users++;
    if (rcq) {
        rcq->users++;
    }
    if (srq) {
        srq->users++;
    }
    c->rdma.qp[qp->slot] = qp;
    res->result = qp->qpn;
}

void rocx_qp_free(RocxCore *c, RocxQp *qp)
{
    RocxSrq *srq = rocx_srq_get(c, qp->srqn);
    RocxCq *cq;

    rocx_timer_del(c, &qp->timer);
    rocx_cc_qp_stop(c, qp);
    rocx_sched_qp_stop(c, qp);
    /* An XRC_TGT QP's CQ and SRQ are its current message's, not its own. */
    if (qp->type != ROCX_QPT_XRC_TGT) {
        cq = rocx_cq_get(c, qp->send_cqn);
        if (cq) {
            cq->users--;
        }
        cq = rocx_cq_get(c, qp->recv_cqn);
        if (cq) {
            cq->users--;
        }
        if (srq) {
            srq->users--;
        }
    }
    rocx_dbrec_qp_gone(c, qp);
    rocx_pbl_free(c, &qp->pbl);
    c->rdma.qp[rocx_qp_slot(qp)] = NULL;
    rocx_gsi_gone(c, qp);
    g_free(qp);
}

void rocx_cmd_destroy_qp(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res)
{
    const struct rocx_aq_destroy_qp *d = (const void *)cmd;
    RocxQp *qp = rocx_qp_get(c, ldl_le_p(&d->qpn));

    if (!qp) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /*
     * The engine runs only between commands and holds no reference to a
     * QP across calls, so once it is unlinked no DMA can touch its
     * memory; its deadline leaves the timer heap with it.  Type 2
     * windows bound to it are unbound: no later QP of that number may
     * use them.  An SRQ entry it holds goes back to the consumer first,
     * and an ACK it owes goes out (rocx_resp_flush_ack()).
     */
    rocx_resp_flush_ack(c, qp);
    rocx_mw_qp_gone(c, qp->qpn);
    rocx_srq_qp_stop(c, qp);
    rocx_mcast_qp_gone(c, qp);
    rocx_qp_free(c, qp);
}

bool rocx_pd_has_qp(RocxCore *c, uint32_t pdn)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_QP_SLOTS; i++) {
        if (c->rdma.qp[i] && c->rdma.qp[i]->pdn == pdn) {
            return true;
        }
    }
    return false;
}

bool rocx_uctx_has_qp(RocxCore *c, uint16_t uctx)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_QP_SLOTS; i++) {
        if (c->rdma.qp[i] && c->rdma.qp[i]->uctx == uctx) {
            return true;
        }
    }
    return false;
}

static const RocxQpTrans rocx_qp_trans[] = {
    { ROCX_QPS_RESET, ROCX_QPS_INIT, 0,
      ROCX_QP_ATTR_ACCESS | ROCX_QP_ATTR_PKEY_INDEX },
    { ROCX_QPS_INIT, ROCX_QPS_INIT, 0,
      ROCX_QP_ATTR_ACCESS | ROCX_QP_ATTR_PKEY_INDEX },
    { ROCX_QPS_INIT, ROCX_QPS_RTR,
      ROCX_QP_ATTR_AV | ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
      ROCX_QP_ATTR_RQ_PSN,
      ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC | ROCX_QP_ATTR_MIN_RNR_TIMER |
      ROCX_QP_ATTR_ACCESS | ROCX_QP_ATTR_PKEY_INDEX },
    { ROCX_QPS_RTR, ROCX_QPS_RTS, ROCX_QP_ATTR_SQ_PSN,
      ROCX_QP_ATTR_TIMEOUT | ROCX_QP_ATTR_RETRY_CNT |
      ROCX_QP_ATTR_RNR_RETRY | ROCX_QP_ATTR_MAX_RD_ATOMIC |
      ROCX_QP_ATTR_ACCESS | ROCX_QP_ATTR_MIN_RNR_TIMER },
    { ROCX_QPS_RTS, ROCX_QPS_RTS, 0,
      ROCX_QP_ATTR_ACCESS | ROCX_QP_ATTR_MIN_RNR_TIMER },
};

/* UC: no ACK timer, retries, RNR or READs, so none of their attributes. */
static const RocxQpTrans rocx_uc_qp_trans[] = {
    { ROCX_QPS_RESET, ROCX_QPS_INIT, 0,
      ROCX_QP_ATTR_ACCESS | ROCX_QP_ATTR_PKEY_INDEX },
    { ROCX_QPS_INIT, ROCX_QPS_INIT, 0,
      ROCX_QP_ATTR_ACCESS | ROCX_QP_ATTR_PKEY_INDEX },
    { ROCX_QPS_INIT, ROCX_QPS_RTR,
      ROCX_QP_ATTR_AV | ROCX_QP_ATTR_PATH_MTU | ROCX_QP_ATTR_DEST_QPN |
      ROCX_QP_ATTR_RQ_PSN,
      ROCX_QP_ATTR_ACCESS | ROCX_QP_ATTR_PKEY_INDEX },
    { ROCX_QPS_RTR, ROCX_QPS_RTS, ROCX_QP_ATTR_SQ_PSN, ROCX_QP_ATTR_ACCESS },
    { ROCX_QPS_RTS, ROCX_QPS_RTS, 0, ROCX_QP_ATTR_ACCESS },
};

bool rocx_qp_trans_check(const RocxQpTrans *tab, unsigned n, uint8_t from,
                         uint8_t to, uint32_t valid)
{
    unsigned i;

    valid &= ~ROCX_QP_ATTR_STATE;
    /* Any state may go to RESET or ERR, with nothing else. */
    if (to == ROCX_QPS_RESET || to == ROCX_QPS_ERR) {
        return !valid;
    }
    for (i = 0; i < n; i++) {
        const RocxQpTrans *t = &tab[i];

        if (t->from == from && t->to == to) {
            return (valid & t->required) == t->required &&
                   !(valid & ~(t->required | t->optional));
        }
    }
    return false;
}

/* The transitions and attributes of the QP's type. */
static bool rocx_qp_trans_ok(const RocxQp *qp, uint8_t to, uint32_t valid)
{
    switch (qp->type) {
    case ROCX_QPT_UD:
        return rocx_ud_trans_ok(qp->state, to, valid);
    case ROCX_QPT_UC:
        return rocx_qp_trans_check(rocx_uc_qp_trans,
                                   ARRAY_SIZE(rocx_uc_qp_trans), qp->state,
                                   to, valid);
    default:
        return rocx_qp_trans_check(rocx_qp_trans, ARRAY_SIZE(rocx_qp_trans),
                                   qp->state, to, valid);
    }
}

bool rocx_av_to_path(RocxCore *c, RocxQp *qp,
                            const struct rocx_av *av, RocxPath *p)
{
    uint32_t fl = ldl_le_p(&av->flow_label);
    const RocxGid *g = rocx_gid_get(c, av->sgid_index);

    if (!g || av->net_type > 2 ||
        (fl & ~(ROCX_AV_FLOW_LABEL | ROCX_AV_PRIO)) ||
        (is_multicast_ether_addr(av->dmac) && !rocx_mcast_av(qp, av))) {
        return false;
    }
    /* The network header follows from the source GID. */
    if (g->type == ROCX_GID_TYPE_ROCE_V1) {
        if (av->net_type != ROCX_NET_ROCE_V1) {
            return false;
        }
    } else if (rocx_gid_is_v4(g->gid)) {
        if (av->net_type != ROCX_NET_ROCE_V2_IPV4 ||
            !rocx_gid_is_v4(av->dgid)) {
            return false;
        }
    } else if (av->net_type != ROCX_NET_ROCE_V2_IPV6) {
        return false;
    }

    memset(p, 0, sizeof(*p));
    p->net_type = av->net_type;
    memcpy(p->sgid, g->gid, 16);
    memcpy(p->dgid, av->dgid, 16);
    memcpy(p->smac, g->mac, ETH_ALEN);
    memcpy(p->dmac, av->dmac, ETH_ALEN);
    if (rocx_mcast_av(qp, av)) {
        /* Whatever the AV says: the group's MAC (rocx-mcast.c). */
        rocx_mcast_mac(av->dgid, p->dmac);
    }
    /*
     * The kernel's VLAN for this GID, never the AV's: a UD WQE is user
     * memory, and its process must not pick a VLAN for itself.
     */
    p->vlan = g->vlan;
    p->flow_label = ROCX_FIELD_GET(ROCX_AV_FLOW_LABEL, fl);
    p->prio = ROCX_FIELD_GET(ROCX_AV_PRIO, fl);
    rocx_dcb_path_tag(c, p);
    p->hop_limit = av->hop_limit;
    p->traffic_class = av->traffic_class;
    p->loopback = rocx_gid_find(c, av->dgid, g->type) != NULL;
    return true;
}

/* RoCE v2 source port: as Linux's rdma_get_udp_sport(). */
uint16_t rocx_udp_sport(uint32_t fl, uint32_t lqpn, uint32_t rqpn)
{
    if (!fl) {
        uint64_t v = (uint64_t)lqpn * rqpn;

        v ^= v >> 20;
        v ^= v >> 40;
        fl = v & ROCX_IP6_FLOW_MASK;
    }
    return ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000;
}

void rocx_cmd_modify_qp(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res)
{
    const struct rocx_aq_qp_attr_cmd *m = (const void *)cmd;
    RocxQp *qp = rocx_qp_get(c, ldl_le_p(&m->qpn));
    const uint32_t known_access = ROCX_ACCESS_LOCAL_WRITE |
        ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ |
        ROCX_ACCESS_REMOTE_ATOMIC;
    struct rocx_qp_attr a;
    uint32_t valid;
    uint8_t to;
    RocxPath path;

    if (!qp) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    if (rocx_dma_read(c, ldq_le_p(&m->addr), &a, sizeof(a))) {
        res->status = ROCX_AQ_STS_DMA_ERROR;
        return;
    }
    valid = ldl_le_p(&a.valid);
    to = (valid & ROCX_QP_ATTR_STATE) ? a.state : qp->state;

    /* Everything is checked before anything is applied. */
    if (to > ROCX_QPS_ERR ||
        !rocx_qp_trans_ok(qp, to, valid & ~ROCX_QP_ATTR_RATE_LIMIT) ||
        !rocx_gsi_modify_ok(qp, valid, &a) ||
        ((valid & ROCX_QP_ATTR_RATE_LIMIT) &&
         (to != ROCX_QPS_RTS || (qp->state != ROCX_QPS_RTR &&
                                 qp->state != ROCX_QPS_RTS) ||
          !rocx_sched_rate_ok(ldl_le_p(&a.rate_limit)))) ||
        ((valid & ROCX_QP_ATTR_ACCESS) &&
         (ldl_le_p(&a.access) & ~known_access)) ||
        ((valid & ROCX_QP_ATTR_PKEY_INDEX) && lduw_le_p(&a.pkey_index)) ||
        ((valid & ROCX_QP_ATTR_PATH_MTU) &&
         (a.path_mtu < 1 || a.path_mtu > 5 ||
          !rocx_path_mtu_fits(c, a.path_mtu))) ||
        ((valid & ROCX_QP_ATTR_TIMEOUT) && a.timeout > 31) ||
        ((valid & ROCX_QP_ATTR_RETRY_CNT) && a.retry_cnt > 7) ||
        ((valid & ROCX_QP_ATTR_RNR_RETRY) && a.rnr_retry > 7) ||
        ((valid & ROCX_QP_ATTR_MIN_RNR_TIMER) && a.min_rnr_timer > 31) ||
        ((valid & ROCX_QP_ATTR_MAX_RD_ATOMIC) &&
         a.max_rd_atomic > ROCX_CORE_MAX_RD_ATOM) ||
        ((valid & ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC) &&
         a.max_dest_rd_atomic > ROCX_CORE_MAX_RD_ATOM) ||
        ((valid & ROCX_QP_ATTR_RQ_PSN) &&
         (ldl_le_p(&a.rq_psn) & ~ROCX_PSN_MASK)) ||
        ((valid & ROCX_QP_ATTR_SQ_PSN) &&
         (ldl_le_p(&a.sq_psn) & ~ROCX_PSN_MASK)) ||
        ((valid & ROCX_QP_ATTR_DEST_QPN) &&
         (ldl_le_p(&a.dest_qpn) & ~ROCX_PSN_MASK)) ||
        ((valid & ROCX_QP_ATTR_AV) && !rocx_av_to_path(c, qp, &a.av, &path))) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }

    /* The consumer stops the QP: first what it owes (rocx-resp.c). */
    if (to == ROCX_QPS_RESET || to == ROCX_QPS_ERR) {
        rocx_resp_flush_ack(c, qp);
    }
    if (to == ROCX_QPS_RESET) {
        rocx_srq_qp_stop(c, qp);
        rocx_cc_qp_stop(c, qp);
        rocx_sched_qp_stop(c, qp);
        rocx_dbrec_qp_reset(c, qp);
        rocx_trace_qp_state(c, qp->qpn, qp->state, ROCX_QPS_RESET);
        rocx_qp_to_reset(qp);
        return;
    }
    if (to == ROCX_QPS_ERR && qp->state == ROCX_QPS_RESET) {
        /*
         * Nothing to flush or to stop: the queues are empty.  ERR is
         * entered all the same, so that what is posted completes.
         */
        rocx_trace_qp_state(c, qp->qpn, qp->state, ROCX_QPS_ERR);
        qp->state = ROCX_QPS_ERR;
        qp->flushing = true;
        rocx_qp_schedule(c, qp);
        return;
    }
    if (to == ROCX_QPS_ERR) {
        rocx_qp_error(c, qp, false, ROCX_VERR_NONE);
        return;
    }
    if (qp->state == ROCX_QPS_RESET) {
        /* Defaults for what INIT..RTS may leave unset. */
        qp->access = 0;
        qp->timeout = 14;
        qp->retry_cnt = 7;
        qp->rnr_retry = 7;
        qp->min_rnr_timer = 0;
        qp->max_rd_atomic = 1;
        qp->max_dest_rd_atomic = 1;
    }
    if (valid & ROCX_QP_ATTR_ACCESS) {
        qp->access = ldl_le_p(&a.access);
    }
    if (valid & ROCX_QP_ATTR_PATH_MTU) {
        qp->path_mtu = a.path_mtu;
        qp->mtu = 128u << a.path_mtu;
    }
    if (valid & ROCX_QP_ATTR_TIMEOUT) {
        qp->timeout = a.timeout;
    }
    if (valid & ROCX_QP_ATTR_RETRY_CNT) {
        qp->retry_cnt = a.retry_cnt;
    }
    if (valid & ROCX_QP_ATTR_RNR_RETRY) {
        qp->rnr_retry = a.rnr_retry;
    }
    if (valid & ROCX_QP_ATTR_MIN_RNR_TIMER) {
        qp->min_rnr_timer = a.min_rnr_timer;
    }
    if (valid & ROCX_QP_ATTR_MAX_RD_ATOMIC) {
        qp->max_rd_atomic = a.max_rd_atomic;
    }
    if (valid & ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC) {
        qp->max_dest_rd_atomic = a.max_dest_rd_atomic;
    }
    if (valid & ROCX_QP_ATTR_DEST_QPN) {
        qp->dest_qpn = ldl_le_p(&a.dest_qpn);
    }
    if (valid & ROCX_QP_ATTR_AV) {
        qp->av = a.av;
        /* QUERY_QP says which VLAN the frames go out on. */
        stw_le_p(&qp->av.vlan, path.vlan);
        qp->path = path;
    }
    if (valid & ROCX_QP_ATTR_RQ_PSN) {
        qp->rq_psn = ldl_le_p(&a.rq_psn);
    }
    if (valid & ROCX_QP_ATTR_SQ_PSN) {
        qp->sq_psn = ldl_le_p(&a.sq_psn);
    }
    if (valid & ROCX_QP_ATTR_QKEY) {
        qp->qkey = ldl_le_p(&a.qkey);
    }
    if (valid & ROCX_QP_ATTR_RATE_LIMIT) {
        qp->sched.rate_limit_kbps = ldl_le_p(&a.rate_limit);
        rocx_sched_qp_rate(c, qp);
    }

    if (to == ROCX_QPS_RTR && qp->state == ROCX_QPS_INIT) {
        qp->path.udp_sport = rocx_udp_sport(qp->path.flow_label, qp->qpn,
                                            qp->dest_qpn);
        rocx_resp_reset(qp);
        qp->resp.epsn = qp->rq_psn;
    }
    if (to == ROCX_QPS_RTS && qp->state == ROCX_QPS_RTR) {
        rocx_req_reset(qp);
        qp->req.psn_next = qp->req.psn_una = qp->sq_psn;
        qp->req.cur_psn = qp->sq_psn;
        qp->req.retries = qp->retry_cnt;
        qp->req.rnr_retries = qp->rnr_retry;
    }
    rocx_trace_qp_state(c, qp->qpn, qp->state, to);
    qp->state = to;
    /* WQEs may have been posted before the QP could run them. */
    rocx_qp_schedule(c, qp);
}

void rocx_cmd_query_qp(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res)
{
    const struct rocx_aq_qp_attr_cmd *m = (const void *)cmd;
    RocxQp *qp = rocx_qp_get(c, ldl_le_p(&m->qpn));
    struct rocx_qp_attr a;

    if (!qp) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    memset(&a, 0, sizeof(a));
    a.state = a.cur_state = qp->state;
    a.path_mtu = qp->path_mtu;
    a.timeout = qp->timeout;
    a.retry_cnt = qp->retry_cnt;
    a.rnr_retry = qp->rnr_retry;
    a.min_rnr_timer = qp->min_rnr_timer;
    a.max_rd_atomic = qp->max_rd_atomic;
    a.max_dest_rd_atomic = qp->max_dest_rd_atomic;
    stl_le_p(&a.access, qp->access);
    /* The PSNs the transport has reached, once it runs. */
    stl_le_p(&a.rq_psn, qp->state >= ROCX_QPS_RTR &&
             qp->state != ROCX_QPS_ERR ? qp->resp.epsn : qp->rq_psn);
    stl_le_p(&a.sq_psn, qp->state == ROCX_QPS_RTS ?
             qp->req.psn_next : qp->sq_psn);
    stl_le_p(&a.dest_qpn, qp->dest_qpn);
    stl_le_p(&a.qkey, qp->qkey);
    a.av = qp->av;
    rocx_cc_query_qp(c, qp, &a);
    stl_le_p(&a.rate_limit, qp->sched.rate_limit_kbps);
    if (rocx_dma_write(c, ldq_le_p(&m->addr), &a, sizeof(a))) {
        res->status = ROCX_AQ_STS_DMA_ERROR;
    }
}
