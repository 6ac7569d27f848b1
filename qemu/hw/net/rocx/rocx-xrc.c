/*
 * rocx device model: XRC domains, XRC SRQs and XRC queue pairs (contract
 * 1.2, ROCX_CAP2_XRC).
 *
 * An XRC_INI QP is an RC requester whose requests go out in the XRC
 * transport with an XRCETH naming an SRQ at the target (rocx-req.c reads
 * it from the WQE, rocx-wire.c writes it).  An XRC_TGT QP is an RC
 * responder with no queues of its own: each request's XRCETH names the
 * XRC SRQ it receives into, which must be of the QP's domain, and the
 * receive completes on that SRQ's CQ.  rocx_xrc_rx() points the target's
 * receive side (srqn, recv_cqn, pdn, recv_pdn) at that SRQ before the RC
 * responder (rocx-resp.c) runs, so the RC engine serves both types
 * unchanged.  The rules are rocx-device.rst's, "XRC".
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

static bool rocx_xrcd_valid(RocxCore *c, uint32_t xrcdn)
{
    return xrcdn >= 1 && xrcdn <= ROCX_CORE_MAX_XRCD &&
           c->rdma.xrcd_owner[xrcdn - 1];
}

/* Whether a context (or the kernel, uctx 0) may use the domain. */
static bool rocx_xrcd_usable(RocxCore *c, uint32_t xrcdn, uint32_t uctx)
{
    uint16_t owner = c->rdma.xrcd_owner[xrcdn - 1];

    return !uctx || owner == 1 || owner == uctx + 1;
}

/* ---- Admin commands ---- */

void rocx_cmd_alloc_xrcd(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res)
{
    const struct rocx_aq_xrcd *a = (const void *)cmd;
    uint32_t uctx = ldl_le_p(&a->uctx);
    unsigned i;

    if (uctx >= ROCX_DB_PAGES || ldl_le_p(&a->xrcdn)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (uctx && !c->uctx_used[uctx]) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* xrcdn 0 is never handed out, so a zeroed field names none. */
    for (i = 0; i < ROCX_CORE_MAX_XRCD; i++) {
        if (!c->rdma.xrcd_owner[i]) {
            c->rdma.xrcd_owner[i] = uctx + 1;
            res->result = i + 1;
            return;
        }
    }
    res->status = ROCX_AQ_STS_NO_RESOURCE;
}

static bool rocx_xrcd_in_use(RocxCore *c, uint32_t xrcdn)
{
    unsigned i;

    for (i = 1; i < ROCX_CORE_SRQ_SLOTS; i++) {
        const RocxSrq *srq = &c->rdma.srq[i];

        if (srq->valid && srq->type == ROCX_SRQT_XRC && srq->xrcdn == xrcdn) {
            return true;
        }
    }
    for (i = 0; i < ROCX_CORE_QP_SLOTS; i++) {
        const RocxQp *qp = c->rdma.qp[i];

        if (qp && qp->type == ROCX_QPT_XRC_TGT && qp->xrcdn == xrcdn) {
            return true;
        }
    }
    return false;
}

void rocx_cmd_dealloc_xrcd(RocxCore *c, const union rocx_aq_cmd *cmd,
                           RocxAqResult *res)
{
    const struct rocx_aq_xrcd *d = (const void *)cmd;
    uint32_t xrcdn = ldl_le_p(&d->xrcdn);

    if (!rocx_xrcd_valid(c, xrcdn)) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    if (rocx_xrcd_in_use(c, xrcdn)) {
        res->status = ROCX_AQ_STS_BAD_STATE;
        return;
    }
    c->rdma.xrcd_owner[xrcdn - 1] = 0;
}

bool rocx_uctx_has_xrcd(RocxCore *c, uint16_t uctx)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_MAX_XRCD; i++) {
        if (c->rdma.xrcd_owner[i] == uctx + 1) {
            return true;
        }
    }
    return false;
}

/* ---- XRC SRQs ---- */

uint8_t rocx_xrc_srq_create(RocxCore *c, const struct rocx_aq_create_srq *cs,
                            uint32_t uctx, RocxSrq *srq)
{
    uint32_t xrcdn = ldl_le_p(&cs->xrcdn);
    uint32_t cqn = ldl_le_p(&cs->cqn);
    RocxCq *cq = rocx_cq_get(c, cqn);

    if (!rocx_xrcd_valid(c, xrcdn) || !cq) {
        return ROCX_AQ_STS_NOT_FOUND;
    }
    if (!rocx_xrcd_usable(c, xrcdn, uctx) || cq->uctx != uctx) {
        return ROCX_AQ_STS_INVALID;
    }
    srq->xrcdn = xrcdn;
    srq->cqn = cqn;
    /* DESTROY_CQ is BAD_STATE while the SRQ completes on it. */
    cq->users++;
    return ROCX_AQ_STS_OK;
}

void rocx_xrc_srq_gone(RocxCore *c, RocxSrq *srq, uint32_t srqn)
{
    RocxCq *cq = rocx_cq_get(c, srq->cqn);
    unsigned i;

    for (i = 0; i < ROCX_CORE_QP_SLOTS; i++) {
        RocxQp *qp = c->rdma.qp[i];

        if (!qp || qp->type != ROCX_QPT_XRC_TGT || qp->srqn != srqn) {
            continue;
        }
        /*
         * The entry it holds goes back to the consumer on the SRQ's CQ,
         * which still exists; the rest of that message finds no message
         * in progress (an invalid request).
         */
        rocx_srq_qp_stop(c, qp);
        qp->resp.rwqe_valid = false;
        qp->resp.op = ROCX_RESP_IDLE;
        qp->srqn = ROCX_NO_SRQ;
        qp->recv_cqn = 0;
        qp->pdn = 0;
        qp->recv_pdn = 0;
    }
    if (cq) {
        cq->users--;
    }
}

/* ---- XRC_TGT queue pairs ---- */

void rocx_xrc_create_tgt(RocxCore *c, const struct rocx_aq_create_qp *cq,
                         RocxAqResult *res)
{
    uint32_t uctx = ldl_le_p(&cq->uctx);
    uint32_t xrcdn = ldl_le_p(&cq->xrcdn);
    uint32_t srqn = ldl_le_p(&cq->srqn);
    const uint8_t *pbl = (const uint8_t *)&cq->pbl;
    RocxQp *qp;
    uint32_t qpn;
    unsigned i;

    /* No queues, CQs or PD: every field that would name one is 0. */
    for (i = 0; i < sizeof(cq->pbl); i++) {
        if (pbl[i]) {
            res->status = ROCX_AQ_STS_INVALID;
            return;
        }
    }
    if ((cq->flags & ~ROCX_QP_SQ_SIG_ALL) || cq->sq_log_depth ||
        cq->rq_log_depth || cq->sq_wqe_shift || cq->rq_wqe_shift ||
        ldl_le_p(&cq->pdn) || ldl_le_p(&cq->send_cqn) ||
        ldl_le_p(&cq->recv_cqn) || srqn != ROCX_NO_SRQ ||
        uctx >= ROCX_DB_PAGES) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if ((uctx && !c->uctx_used[uctx]) || !rocx_xrcd_valid(c, xrcdn)) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    if (!rocx_xrcd_usable(c, xrcdn, uctx)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (!rocx_qpn_alloc(c, &qpn)) {
        res->status = ROCX_AQ_STS_NO_RESOURCE;
        return;
    }
    qp = g_new0(RocxQp, 1);
    qp->qpn = qpn;
    qp->slot = rocx_num_slot(qpn);
    qp->type = ROCX_QPT_XRC_TGT;
    qp->flags = cq->flags;
    qp->uctx = uctx;
    qp->xrcdn = xrcdn;
    qp->srqn = ROCX_NO_SRQ;
    rocx_qp_to_reset(qp);
    c->rdma.qp[qp->slot] = qp;
    res->result = qpn;
}

/* ---- Receive ---- */

/*
 * A target's request: point its receive side at the XRCETH's SRQ when a
 * new message starts.  While a message is in progress the SRQ stays the
 * message's; its next packet must name the same one.  Only the expected
 * PSN starts a message: a duplicate or a packet past a gap is not
 * executed, so it must not move the QP to its SRQ (READs and atomics
 * held for replay keep the PD they were accepted in).
 */
static bool rocx_xrc_tgt_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    RocxSrq *srq = rocx_srq_get(c, p->xrc_srqn);
    bool busy = qp->resp.op != ROCX_RESP_IDLE || qp->resp.rwqe_valid;
    bool expected = rocx_psn_diff(p->psn, qp->resp.epsn) == 0;

    if (!srq || srq->type != ROCX_SRQT_XRC || srq->xrcdn != qp->xrcdn ||
        (busy && expected && p->xrc_srqn != qp->srqn)) {
        /* Not the domain's: the SRQ is not this QP's to name. */
        rocx_resp_nak_fatal(c, qp, p, ROCX_AETH_NAK_INVALID,
                            ROCX_VERR_NAK_INVALID);
        return false;
    }
    if (!busy && expected) {
        qp->srqn = p->xrc_srqn;
        qp->recv_cqn = srq->cqn;
        /* Receive SGEs and R_Keys are checked against the SRQ's PD. */
        qp->pdn = srq->pdn;
        qp->recv_pdn = srq->pdn;
    }
    return true;
}

bool rocx_xrc_rx(RocxCore *c, RocxQp *qp, RocxPkt *p)
{
    bool req = p->opf & ROCX_OPF_REQ;

    /* An initiator takes only responses, a target only requests. */
    if (req != (qp->type == ROCX_QPT_XRC_TGT)) {
        rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
        return false;
    }
    /* From here on the RC engine's: its opcodes are RC's. */
    p->opcode &= ROCX_OP_MASK;
    return !req || rocx_xrc_tgt_rx(c, qp, p);
}
