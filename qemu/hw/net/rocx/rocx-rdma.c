/*
 * rocx device model: the RDMA engine, which runs the queue pairs.
 *
 * The SQ and RQ doorbells, the engine's pass over the QPs with work
 * (rocx_rdma_process(): responder, then requester or flush, round robin
 * under a budget), a QP's expired deadlines, and the release of every
 * RDMA object at reset.  The objects themselves and their commands live
 * in the files of the block floor (rocx-qp.c, rocx-cq.c, ...); their
 * types in rocx-rdma.h.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- Doorbells (MMIO side) ---- */

static RocxQp *rocx_db_qp(RocxCore *c, unsigned page, uint32_t qpn,
                          const char *what)
{
    RocxQp *qp = rocx_qp_get(c, qpn);

    if (!qp) {
        rocx_gerr(c, ROCX_GERR_DB_QUEUE, page,
                  "%s doorbell: no QP %" PRIu32, what, qpn);
        return NULL;
    }
    if (qp->uctx != page) {
        rocx_gerr(c, ROCX_GERR_DB_OWNER, page,
                  "%s doorbell: QP %" PRIu32 " belongs to page %u",
                  what, qpn, qp->uctx);
        return NULL;
    }
    return qp;
}

/* ---- The doorbell delay line (rocx-device.rst, "NIC delays") ---- */

/* The engine takes the oldest doorbell in the line. */
static void rocx_db_line_pop(RocxCore *c)
{
    RocxDbLine *l = &c->db_line;
    uint32_t h = l->head;
    RocxQp *qp;

    l->head = (h + 1) % ROCX_DELAY_DB_SLOTS;
    l->count--;
    /*
     * By number and generation: a doorbell of a QP destroyed or reset
     * since it was written has no WQEs left to fetch.
     */
    qp = rocx_qp_get(c, l->slot[h].qpn);
    if (qp && qp->sq_db_gen == l->slot[h].gen) {
        rocx_qp_sq_take(c, qp, l->slot[h].idx);
    }
}

static void rocx_db_line_add(RocxCore *c, RocxQp *qp, uint16_t idx,
                             int64_t now)
{
    RocxDbLine *l = &c->db_line;
    uint32_t i;

    if (l->count == ROCX_DELAY_DB_SLOTS) {
        /*
         * Unlike a CNP a doorbell must not be lost, or its QP would
         * stall: the oldest goes to the engine early to make room.
         */
        c->rdma.stats.db_delay_full++;
        rocx_db_line_pop(c);
    }
    i = (l->head + l->count++) % ROCX_DELAY_DB_SLOTS;
    l->slot[i].qpn = qp->qpn;
    l->slot[i].gen = qp->sq_db_gen;
    l->slot[i].idx = idx;
    l->slot[i].due = now + c->delay.db_ns;
    /* Otherwise the timer is set for an older one, and re-arms then. */
    if (l->count == 1) {
        rocx_timer_mod(c, &l->timer, ROCX_TIMER_DB, l->slot[i].due);
    }
}

void rocx_db_line_timer(RocxCore *c, int64_t now)
{
    RocxDbLine *l = &c->db_line;

    while (l->count) {
        if (l->slot[l->head].due > now) {
            rocx_timer_mod(c, &l->timer, ROCX_TIMER_DB,
                           l->slot[l->head].due);
            return;
        }
        rocx_db_line_pop(c);
    }
}

bool rocx_db_sq(RocxCore *c, unsigned page, uint32_t qpn, uint16_t idx)
{
    RocxQp *qp = rocx_db_qp(c, page, qpn, "SQ");
    bool quiet;

    if (!qp) {
        return false;
    }
    if (qp->type == ROCX_QPT_XRC_TGT) {
        rocx_gerr(c, ROCX_GERR_DB_QUEUE, page,
                  "SQ doorbell: QP %" PRIu32 " has no SQ", qpn);
        return false;
    }
    /* Against the last doorbell written, taken or still in the line. */
    if (!rocx_db_index_ok(idx, qp->sq_db, qp->req.ci, qp->sq_log_depth)) {
        rocx_gerr(c, ROCX_GERR_DB_INDEX, page,
                  "QP %" PRIu32 " SQ doorbell: producer %u, was %u, "
                  "oldest %u, depth %u", qpn, idx, qp->sq_db, qp->req.ci,
                  1u << qp->sq_log_depth);
        return false;
    }
    rocx_count(c, ROCX_STAT_DOORBELLS, 1);
    qp->sq_db = idx;
    if (c->delay.db_ns) {
        rocx_db_line_add(c, qp, idx, rocx_now(c));
        return false;
    }
    /* Nothing sent and unacknowledged, nothing started and unsent. */
    quiet = qp->type == ROCX_QPT_UD ? qp->req.ci == qp->sq_pi :
            qp->req.psn_una == qp->req.psn_next &&
            qp->req.cur == qp->req.next;
    /* An ACK or the retransmit timer runs the engine for this QP. */
    c->db_ack_due = qp->type != ROCX_QPT_UD &&
                    qp->req.psn_una != qp->req.psn_next &&
                    qp->state == ROCX_QPS_RTS;
    /*
     * Posted to while it waits for an ACK: it streams, and its record,
     * if it has one, may stand in for the doorbells from now on.  A QP
     * that finds its ACKs back before each post (a ping-pong) is left
     * alone: its doorbell runs the engine at once anyway, and polling
     * would only arm the lazy bound for every message.
     */
    if (c->db_ack_due) {
        rocx_dbrec_join(c, qp);
    }
    rocx_qp_sq_take(c, qp, idx);
    return quiet && qp->state == ROCX_QPS_RTS;
}

void rocx_db_rq(RocxCore *c, unsigned page, uint32_t qpn, uint16_t idx)
{
    RocxQp *qp = rocx_db_qp(c, page, qpn, "RQ");

    if (!qp) {
        return;
    }
    if (!qp->rq_log_depth) {
        rocx_gerr(c, ROCX_GERR_DB_QUEUE, page,
                  "RQ doorbell: QP %" PRIu32 " has no RQ", qpn);
        return;
    }
    if (!rocx_db_index_ok(idx, qp->rq_pi, qp->resp.rq_ci,
                          qp->rq_log_depth)) {
        rocx_gerr(c, ROCX_GERR_DB_INDEX, page,
                  "QP %" PRIu32 " RQ doorbell: producer %u, was %u, "
                  "oldest %u, depth %u", qpn, idx, qp->rq_pi,
                  qp->resp.rq_ci, 1u << qp->rq_log_depth);
        return;
    }
    rocx_count(c, ROCX_STAT_DOORBELLS, 1);
    qp->rq_pi = idx;
    if (qp->state == ROCX_QPS_ERR) {
        qp->flushing = true;
        rocx_qp_schedule(c, qp);
    }
}

/* ---- Timer ---- */

/*
 * A deadline of the QP passed, or one that was cleared since it was
 * queued.  If both had passed, the next is due at once and this runs
 * again in the same pass.
 */
void rocx_qp_timer(RocxCore *c, RocxQp *qp, int64_t now)
{
    if (qp->state == ROCX_QPS_RTS) {
        rocx_comp_timers(c, qp, now);
    }
    rocx_timer_note(c, qp);
}

/* ---- The QP run loop ---- */

/* Complete up to budget WQEs of a QP in ERR with WR_FLUSH_ERR. */
static unsigned rocx_qp_flush(RocxCore *c, RocxQp *qp, unsigned budget)
{
    unsigned n = 0;

    while (qp->req.ci != qp->sq_pi && n < budget) {
        uint16_t idx = qp->req.ci;
        bool known = qp->req.next != idx;     /* fetched: opcode known */
        RocxCqeInfo ci = {
            .qpn = qp->qpn,
            .status = ROCX_WC_WR_FLUSH_ERR,
            .wqe_idx = idx,
            .opcode = known ?
                rocx_cqe_op(qp->req.slot[idx % ROCX_REQ_MAX_WQES].opcode) :
                ROCX_CQE_OP_SEND,
        };

        rocx_cq_write(c, qp->send_cqn, &ci);
        qp->req.ci++;
        if (!known) {
            qp->req.next = qp->req.ci;
        }
        n++;
    }
    qp->req.cur = qp->req.next;
    while (qp->resp.rq_ci != qp->rq_pi && n < budget) {
        RocxCqeInfo ci = {
            .qpn = qp->qpn,
            .opcode = ROCX_CQE_OP_RECV,
            .status = ROCX_WC_WR_FLUSH_ERR,
            .flags = ROCX_CQE_RECV,
            .wqe_idx = qp->resp.rq_ci,
        };

        rocx_cq_write(c, qp->recv_cqn, &ci);
        qp->resp.rq_ci++;
        n++;
    }
    qp->flushing = qp->req.ci != qp->sq_pi || qp->resp.rq_ci != qp->rq_pi;
    return n;
}

/* One turn of a QP; returns the work done (packets and CQEs). */
unsigned rocx_qp_run(RocxCore *c, RocxQp *qp, unsigned budget, bool *more)
{
    unsigned used = 0;

    *more = false;
    if (qp->state == ROCX_QPS_ERR) {
        if (qp->nak_final) {
            /* The NAK that ended the QP still goes to the requester. */
            qp->nak_final = false;
            used += rocx_resp_run(c, qp, 1);
        }
        if (qp->flushing) {
            used += rocx_qp_flush(c, qp, MIN(budget, ROCX_CORE_FLUSH_BURST));
            *more = qp->flushing;
        }
        return used;
    }
    if (qp->state == ROCX_QPS_RTR || qp->state == ROCX_QPS_RTS) {
        used += rocx_resp_run(c, qp, budget);
    }
    if (qp->state == ROCX_QPS_RTS && used < budget) {
        used += qp->type == ROCX_QPT_UC ?
                rocx_uc_req_run(c, qp, budget - used) :
                qp->type == ROCX_QPT_UD ?
                rocx_ud_send_run(c, qp, budget - used) :
                rocx_req_run(c, qp, budget - used);
    }
    if (qp->state == ROCX_QPS_ERR) {
        *more = true;
    } else {
        *more = ((qp->state == ROCX_QPS_RTR || qp->state == ROCX_QPS_RTS) &&
                 rocx_resp_ready(qp)) ||
                (qp->type == ROCX_QPT_UD ? rocx_ud_send_ready(qp) :
                 qp->state == ROCX_QPS_RTS && rocx_req_ready(c, qp));
    }
    return used;
}

bool rocx_rdma_process(RocxCore *c)
{
    RocxRdma *r = &c->rdma;
    unsigned budget = ROCX_CORE_PKT_BUDGET;
    bool progress = true;

    /*
     * Round robin: every QP queued at the start of a pass gets one turn of
     * at most ROCX_CORE_QP_BURST packets; QPs queued meanwhile wait for
     * the next pass.  Passes go on while the budget lasts, so that one
     * busy QP fills a call (and a fabric bundle), and stop when a pass
     * did nothing: every pass that goes on spends budget.
     */
    while (budget && r->sched_count && progress) {
        unsigned n = r->sched_count;

        progress = false;
        while (n-- && budget) {
            unsigned slot = r->sched[r->sched_head];
            RocxQp *qp = r->qp[slot];
            unsigned used;
            bool more;

            r->sched_head = (r->sched_head + 1) % ROCX_CORE_QP_SLOTS;
            r->sched_count--;
            r->queued[slot] = false;
            /* A QP that may send waits for the line (rocx-sched.c). */
            if (!qp || rocx_sched_take(c, qp)) {
                continue;
            }
            used = rocx_qp_run(c, qp, MIN(budget, ROCX_CORE_QP_BURST), &more);
            budget -= MIN(budget, used);
            progress |= used != 0;
            if (more) {
                rocx_qp_schedule(c, qp);
            }
        }
    }
    return r->sched_count != 0;
}

/* ---- Reset ---- */

void rocx_rdma_reset(RocxCore *c)
{
    RocxRdma *r = &c->rdma;
    unsigned i;

    for (i = 0; i < ROCX_CORE_QP_SLOTS; i++) {
        if (r->qp[i]) {
            rocx_qp_free(c, r->qp[i]);
        }
    }
    rocx_srq_reset(c);
    for (i = 0; i < ROCX_CORE_CQ_SLOTS; i++) {
        rocx_pbl_free(c, &r->cq[i].pbl);
    }
    for (i = 1; i < ROCX_CORE_MR_SLOTS; i++) {
        rocx_pbl_free(c, &r->mr[i].pbl);
    }
}
