/*
 * rocx device model: shared receive queues (contract 1.2, ROCX_CAP2_SRQ).
 *
 * An SRQ is a ring of receive WQEs that any QP attached to it takes its
 * receives from: the responder of a QP that needs a receive takes the
 * oldest entry posted, copies it (rocx_srq_take()) and completes it later
 * on its own receive CQ, naming it by the tag the consumer put in it.
 * Entries complete in any order, since several QPs hold them, but are
 * taken in ring order, so the ring's consumer index is the device's own
 * and the doorbell rules are the RQ's.  The limit event, QP_LAST_WQE and
 * the SRQ's error state follow rocx-device.rst, "Shared receive queues".
 *
 * The responder of RC and XRC QPs (rocx_resp_need_recv()) is the one
 * caller of rocx_srq_take(); a receive path of another QP type that took
 * entries would do it the same way, and report the QP's stop through
 * rocx_srq_qp_stop() and rocx_srq_last_wqe() as rocx-qp.c does.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* By slot, then the whole number: a stale number names nothing. */
RocxSrq *rocx_srq_get(RocxCore *c, uint32_t srqn)
{
    unsigned slot = rocx_num_slot(srqn);
    RocxSrq *srq;

    if (slot < 1 || slot >= ROCX_CORE_SRQ_SLOTS) {
        return NULL;
    }
    srq = &c->rdma.srq[slot];
    return srq->valid && srq->srqn == srqn ? srq : NULL;
}

/* Entries posted and not taken. */
static uint16_t rocx_srq_posted(const RocxSrq *srq)
{
    return srq->pi - srq->ci;
}

/* ---- Admin commands ---- */

void rocx_cmd_create_srq(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res)
{
    const struct rocx_aq_create_srq *cs = (const void *)cmd;
    uint32_t uctx = ldl_le_p(&cs->uctx);
    uint32_t pdn = ldl_le_p(&cs->pdn);
    uint32_t limit = ldl_le_p(&cs->limit);
    RocxSrq *srq, new = { 0 };
    uint32_t srqn;
    unsigned i;

    if (uctx >= ROCX_DB_PAGES || pdn < 1 || pdn > ROCX_CORE_MAX_PD ||
        cs->log_depth < ROCX_SRQ_MIN_LOG_DEPTH ||
        cs->log_depth > ROCX_SRQ_MAX_LOG_DEPTH ||
        (1u << cs->log_depth) > ROCX_CORE_MAX_SRQ_WR ||
        cs->wqe_shift < ROCX_CORE_SRQ_MIN_WQE_SHIFT ||
        cs->wqe_shift > ROCX_CORE_SRQ_MAX_WQE_SHIFT ||
        limit > (1u << cs->log_depth) || cs->type > ROCX_SRQT_XRC) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    /* A basic SRQ names no XRCD or CQ. */
    if (cs->type == ROCX_SRQT_BASIC &&
        (ldl_le_p(&cs->xrcdn) || ldl_le_p(&cs->cqn))) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if ((uctx && !c->uctx_used[uctx]) || !c->pd_owner[pdn - 1]) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* A context uses only its own PD. */
    if (c->pd_owner[pdn - 1] != uctx + 1) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    for (i = 1; i < ROCX_CORE_SRQ_SLOTS; i++) {
        if (!c->rdma.srq[i].valid) {
            break;
        }
    }
    if (i == ROCX_CORE_SRQ_SLOTS) {
        res->status = ROCX_AQ_STS_NO_RESOURCE;
        return;
    }
    if (cs->type == ROCX_SRQT_XRC) {
        res->status = rocx_xrc_srq_create(c, cs, uctx, &new);
        if (res->status != ROCX_AQ_STS_OK) {
            return;
        }
    }
    res->status = rocx_pbl_copy(c, &cs->pbl,
                                1ULL << (cs->log_depth + cs->wqe_shift),
                                &new.pbl);
    /* Only an SRQ that is made takes a number (a slot is free). */
    if (res->status != ROCX_AQ_STS_OK || !rocx_srqn_alloc(c, &srqn)) {
        rocx_pbl_free(c, &new.pbl);
        /* No QP names it yet: only the CQ's count to give back. */
        if (cs->type == ROCX_SRQT_XRC) {
            rocx_cq_get(c, new.cqn)->users--;
        }
        if (res->status == ROCX_AQ_STS_OK) {
            res->status = ROCX_AQ_STS_NO_RESOURCE;
        }
        return;
    }
    srq = &c->rdma.srq[rocx_num_slot(srqn)];
    *srq = new;
    srq->srqn = srqn;
    srq->valid = true;
    srq->log_depth = cs->log_depth;
    srq->wqe_shift = cs->wqe_shift;
    srq->type = cs->type;
    srq->uctx = uctx;
    srq->pdn = pdn;
    srq->limit = limit;
    res->result = srqn;
}

void rocx_cmd_modify_srq(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res)
{
    const struct rocx_aq_modify_srq *m = (const void *)cmd;
    RocxSrq *srq = rocx_srq_get(c, ldl_le_p(&m->srqn));
    uint32_t valid = ldl_le_p(&m->valid);
    uint32_t limit = ldl_le_p(&m->limit);
    uint8_t log;

    if (!srq) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* The limit, new or armed, must fit the depth the SRQ ends up with. */
    log = (valid & ROCX_SRQ_ATTR_RESIZE) ? m->log_depth : srq->log_depth;
    if ((valid & ~(ROCX_SRQ_ATTR_LIMIT | ROCX_SRQ_ATTR_RESIZE)) ||
        log > ROCX_SRQ_MAX_LOG_DEPTH ||
        ((valid & ROCX_SRQ_ATTR_LIMIT) ? limit : srq->limit) > (1u << log)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (valid & ROCX_SRQ_ATTR_RESIZE) {
        res->status = rocx_srq_resize(c, srq, ldl_le_p(&m->srqn), m);
        if (res->status != ROCX_AQ_STS_OK) {
            return;
        }
    }
    if (valid & ROCX_SRQ_ATTR_LIMIT) {
        srq->limit = limit;
    }
}

void rocx_cmd_query_srq(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res)
{
    const struct rocx_aq_srq *q = (const void *)cmd;
    RocxSrq *srq = rocx_srq_get(c, ldl_le_p(&q->srqn));

    if (!srq) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    res->result = srq->limit;
    res->result64 = rocx_srq_posted(srq);
}

static void rocx_srq_free(RocxCore *c, RocxSrq *srq)
{
    rocx_pbl_free(c, &srq->pbl);
    memset(srq, 0, sizeof(*srq));
}

void rocx_cmd_destroy_srq(RocxCore *c, const union rocx_aq_cmd *cmd,
                          RocxAqResult *res)
{
    const struct rocx_aq_srq *d = (const void *)cmd;
    RocxSrq *srq = rocx_srq_get(c, ldl_le_p(&d->srqn));

    if (!srq) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* Attached QPs take entries from it until they are destroyed. */
    if (srq->users) {
        res->status = ROCX_AQ_STS_BAD_STATE;
        return;
    }
    if (srq->type == ROCX_SRQT_XRC) {
        rocx_xrc_srq_gone(c, srq, ldl_le_p(&d->srqn));
    }
    rocx_srq_free(c, srq);
}

bool rocx_pd_has_srq(RocxCore *c, uint32_t pdn)
{
    unsigned i;

    for (i = 1; i < ROCX_CORE_SRQ_SLOTS; i++) {
        if (c->rdma.srq[i].valid && c->rdma.srq[i].pdn == pdn) {
            return true;
        }
    }
    return false;
}

bool rocx_uctx_has_srq(RocxCore *c, uint16_t uctx)
{
    unsigned i;

    for (i = 1; i < ROCX_CORE_SRQ_SLOTS; i++) {
        if (c->rdma.srq[i].valid && c->rdma.srq[i].uctx == uctx) {
            return true;
        }
    }
    return false;
}

void rocx_srq_reset(RocxCore *c)
{
    unsigned i;

    for (i = 1; i < ROCX_CORE_SRQ_SLOTS; i++) {
        rocx_pbl_free(c, &c->rdma.srq[i].pbl);
    }
}

/* ---- Doorbell (MMIO side) ---- */

void rocx_db_srq(RocxCore *c, unsigned page, uint32_t srqn, uint16_t idx)
{
    RocxSrq *srq = rocx_srq_get(c, srqn);
    uint16_t ahead;

    if (!srq) {
        rocx_gerr(c, ROCX_GERR_DB_QUEUE, page,
                  "SRQ doorbell: no SRQ %" PRIu32, srqn);
        return;
    }
    if (srq->uctx != page) {
        rocx_gerr(c, ROCX_GERR_DB_OWNER, page,
                  "SRQ doorbell: SRQ %" PRIu32 " belongs to page %u",
                  srqn, srq->uctx);
        return;
    }
    /* As an RQ's: forward only, at most the depth past what is taken. */
    ahead = idx - srq->ci;
    if (ahead > (1u << srq->log_depth) || ahead < rocx_srq_posted(srq)) {
        rocx_gerr(c, ROCX_GERR_DB_INDEX, page,
                  "SRQ %" PRIu32 " doorbell: producer %u, was %u, "
                  "oldest %u, depth %u", srqn, idx, srq->pi, srq->ci,
                  1u << srq->log_depth);
        return;
    }
    rocx_count(c, ROCX_STAT_DOORBELLS, 1);
    /*
     * Nothing to schedule: a QP that found the SRQ empty sent an RNR NAK,
     * and its requester comes back after the RNR time.
     */
    srq->pi = idx;
}

/* ---- Engine ---- */

/* Read and check the entry at srq->ci into w; false if it is unusable. */
static bool rocx_srq_read(RocxCore *c, RocxSrq *srq, RocxRecvWqe *w)
{
    uint16_t idx = srq->ci;
    uint64_t off = (uint64_t)(idx & ((1u << srq->log_depth) - 1))
                   << srq->wqe_shift;
    struct rocx_recv_wqe hdr;
    unsigned i;

    if (rocx_pbl_rw(c, &srq->pbl, off, &hdr, sizeof(hdr), false)) {
        return false;
    }
    if (lduw_le_p(&hdr.wqe_idx) != idx || hdr.num_sge > ROCX_CORE_MAX_SGE ||
        ROCX_RECV_WQE_HDR + hdr.num_sge * sizeof(struct rocx_sge) >
        (1u << srq->wqe_shift)) {
        return false;
    }
    w->idx = lduw_le_p(&hdr.tag);
    w->num_sge = hdr.num_sge;
    w->length = 0;
    for (i = 0; i < w->num_sge; i++) {
        struct rocx_sge s;

        if (rocx_pbl_rw(c, &srq->pbl, off + ROCX_RECV_WQE_HDR + i * sizeof(s),
                        &s, sizeof(s), false)) {
            return false;
        }
        w->sge[i].addr = ldq_le_p(&s.addr);
        w->sge[i].length = ldl_le_p(&s.length);
        w->sge[i].lkey = ldl_le_p(&s.lkey);
        w->length += w->sge[i].length;
    }
    return true;
}

RocxSrqTake rocx_srq_take(RocxCore *c, RocxQp *qp)
{
    RocxSrq *srq = rocx_srq_get(c, qp->srqn);
    uint32_t srqn = qp->srqn;

    /* Attached QPs keep their SRQ alive (DESTROY_SRQ is BAD_STATE). */
    if (!srq || srq->error) {
        return ROCX_SRQ_FAILED;
    }
    if (srq->ci == srq->pi) {
        return ROCX_SRQ_EMPTY;
    }
    if (!rocx_srq_read(c, srq, &qp->resp.rwqe)) {
        /*
         * The entry is not one: no tag to complete it with, so the SRQ
         * stops, and QPs learn it from their QP_ERROR.
         */
        srq->error = true;
        rocx_gerr(c, ROCX_GERR_DESC, srqn & 0xffff,
                  "SRQ %" PRIu32 ": entry %u is malformed or unreadable",
                  srqn, srq->ci);
        rocx_evq_push(c, ROCX_EQE_SRQ_ERROR, srqn, 0);
        return ROCX_SRQ_FAILED;
    }
    srq->ci++;
    qp->resp.rwqe_valid = true;
    if (srq->limit && rocx_srq_posted(srq) < srq->limit) {
        /* Once per arming: the consumer posts more and arms again. */
        srq->limit = 0;
        rocx_evq_push(c, ROCX_EQE_SRQ_LIMIT, srqn, 0);
    }
    return ROCX_SRQ_TAKEN;
}

void rocx_srq_qp_stop(RocxCore *c, RocxQp *qp)
{
    if (qp->srqn == ROCX_NO_SRQ) {
        return;
    }
    /* Its tag comes back to the consumer with this CQE, data or not. */
    if (qp->resp.rwqe_valid) {
        RocxCqeInfo ci = {
            .qpn = qp->qpn,
            .opcode = ROCX_CQE_OP_RECV,
            .status = ROCX_WC_WR_FLUSH_ERR,
            .flags = ROCX_CQE_RECV,
            .wqe_idx = qp->resp.rwqe.idx,
        };

        if (qp->type == ROCX_QPT_XRC_TGT) {
            ci.ext = ROCX_FIELD_PREP(ROCX_CQE_EXT_SRQN, qp->srqn);
        }
        rocx_cq_write(c, qp->recv_cqn, &ci);
        qp->resp.rwqe_valid = false;
    }
}

void rocx_srq_last_wqe(RocxCore *c, RocxQp *qp)
{
    /*
     * Written to EQ 0 when the engine drains the event FIFO, so after the
     * flush CQE of rocx_srq_qp_stop() and after the QP's QP_ERROR.
     */
    /* An XRC_TGT QP uses SRQs only message by message. */
    if (qp->srqn == ROCX_NO_SRQ || qp->evq_last_pending ||
        qp->type == ROCX_QPT_XRC_TGT) {
        return;
    }
    if (qp->evq_pending) {
        /* The FIFO has room for one entry per QP: share QP_ERROR's. */
        qp->evq_last_follows = true;
        return;
    }
    qp->evq_last_pending = rocx_evq_push(c, ROCX_EQE_QP_LAST_WQE, qp->qpn, 0);
}
