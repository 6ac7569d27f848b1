/*
 * rocx device model: the completer.
 *
 * Takes what comes back for the requester (ACKs, NAKs, READ responses),
 * retires send WQEs in order and writes their completions (signalled
 * ones, and every error), places READ data, and decides on
 * retransmission: a sequence-error NAK, a READ response gap or an ACK
 * beyond an unanswered READ (an "implied NAK") and the local ACK timeout
 * all go back to the oldest unacknowledged PSN, at most retry_cnt times
 * in a row; RNR NAKs wait the responder's RNR time, at most rnr_retry
 * times (7: forever).
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* IB's RNR NAK timer field, in units of 10 us (0 is the longest). */
static const uint16_t rocx_rnr_10us[32] = {
    65535, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
    256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
    16384, 24576, 32768, 49152,
};

/* Exact in a timed run, where no busy retry loop burns host time. */
static int64_t rocx_rnr_ns(RocxCore *c, uint8_t field)
{
    int64_t ns = rocx_rnr_10us[field & 31] * 10000LL;

    return rocx_timed(c) ? ns : MAX(ns, ROCX_CORE_MIN_RNR_NS);
}

uint8_t rocx_cqe_op(uint8_t wqe_op)
{
    switch (wqe_op) {
    case ROCX_WQE_RDMA_WRITE:
    case ROCX_WQE_RDMA_WRITE_IMM:
        return ROCX_CQE_OP_RDMA_WRITE;
    case ROCX_WQE_RDMA_READ:
        return ROCX_CQE_OP_RDMA_READ;
    case ROCX_WQE_COMP_SWAP:
        return ROCX_CQE_OP_COMP_SWAP;
    case ROCX_WQE_FETCH_ADD:
        return ROCX_CQE_OP_FETCH_ADD;
    case ROCX_WQE_BIND_MW:
        return ROCX_CQE_OP_BIND_MW;
    case ROCX_WQE_LOCAL_INV:
        return ROCX_CQE_OP_LOCAL_INV;
    case ROCX_WQE_REG_MR:
        return ROCX_CQE_OP_REG_MR;
    default:
        return ROCX_CQE_OP_SEND;
    }
}

static RocxSqSlot *rocx_comp_slot(RocxQp *qp, uint16_t idx)
{
    return &qp->req.slot[idx % ROCX_REQ_MAX_WQES];
}

/* Retire the oldest send WQE; a CQE if it is signalled or failed. */
void rocx_comp_oldest(RocxCore *c, RocxQp *qp, uint8_t status, uint8_t verr)
{
    uint16_t idx = qp->req.ci;
    RocxSqSlot *s = rocx_comp_slot(qp, idx);

    if (status != ROCX_WC_SUCCESS || (s->flags & ROCX_WQE_SIGNALED) ||
        (qp->flags & ROCX_QP_SQ_SIG_ALL)) {
        RocxCqeInfo ci = {
            .qpn = qp->qpn,
            .opcode = rocx_cqe_op(s->opcode),
            .status = status,
            .vendor_err = verr,
            .wqe_idx = idx,
            .byte_len = s->length,
        };

        rocx_cq_write(c, qp->send_cqn, &ci);
    }
    if (rocx_wqe_rd_atomic(s->opcode) && qp->req.rd_out) {
        qp->req.rd_out--;
    }
    qp->req.ci++;
    /* A WQE waiting for a completion (READ slot, fence) may go now. */
    qp->req.blocked = false;
    if (status == ROCX_WC_SUCCESS) {
        rocx_comp_local(c, qp);
    }
}

void rocx_comp_local(RocxCore *c, RocxQp *qp)
{
    /* Local WQEs (no PSNs) were done when fetched: retire those now due. */
    if (qp->req.ci != qp->req.next && !rocx_comp_slot(qp, qp->req.ci)->npkts) {
        rocx_comp_oldest(c, qp, ROCX_WC_SUCCESS, ROCX_VERR_NONE);
    }
}

void rocx_comp_error(RocxCore *c, RocxQp *qp, uint8_t status,
                     uint8_t vendor_err)
{
    if (qp->req.ci != qp->req.next) {
        rocx_comp_oldest(c, qp, status, vendor_err);
        rocx_qp_error(c, qp, false, vendor_err);
    } else {
        rocx_qp_error(c, qp, true, vendor_err);
    }
}

/* psn_una moved: fresh retry budgets, timer, send position. */
static void rocx_comp_progress(RocxCore *c, RocxQp *qp)
{
    qp->req.retries = qp->retry_cnt;
    qp->req.rnr_retries = qp->rnr_retry;
    qp->req.gap_retried = false;
    if (qp->req.psn_una != qp->req.psn_next) {
        rocx_req_timer_start(c, qp);
    } else {
        qp->req.deadline = 0;
    }
    /* A late ACK can overtake a retransmission in progress. */
    if (rocx_psn_diff(qp->req.cur_psn, qp->req.psn_una) < 0) {
        rocx_req_seek(qp);
    }
    rocx_qp_schedule(c, qp);
}

/*
 * Whether an acknowledged psn reaches packet n of the WQE starting at
 * first, given that it is at most one before first (every WQE before
 * that one is complete, so psn acknowledges at least their last PSN).
 * A WQE may take 2^23 PSNs (IB's largest message at MTU 256), too many
 * for a signed distance from its start.  The offset from first is exact:
 * psn is never as far as 2^24 - 1 past first (the WQE's PSNs and the
 * window of later ones in flight), so only the PSN before first gives
 * that offset.
 */
static bool rocx_comp_reached(uint32_t psn, uint32_t first, uint32_t n)
{
    uint32_t off = rocx_psn_off(psn, first);

    return off != ROCX_PSN_MASK && off >= n;
}

/*
 * Everything up to and including psn is acknowledged.  Returns false for
 * an implied NAK: psn covers READ responses that never arrived.
 */
static bool rocx_comp_ack(RocxCore *c, RocxQp *qp, uint32_t psn)
{
    uint32_t una = qp->req.psn_una;
    bool implied = false;

    while (qp->req.ci != qp->req.next && qp->state == ROCX_QPS_RTS) {
        RocxSqSlot *s = rocx_comp_slot(qp, qp->req.ci);

        if (rocx_wqe_rd_atomic(s->opcode)) {
            /*
             * Its data comes in responses (an atomic's in its
             * ATOMIC_ACKNOWLEDGE); an ACK does not complete it, and one
             * that covers its unanswered PSNs is an implied NAK.
             */
            implied = rocx_comp_reached(psn, s->first_psn, 0) &&
                      rocx_psn_diff(psn, qp->req.psn_una) >= 0;
            if (implied && rocx_psn_diff(s->first_psn,
                                         qp->req.psn_una) > 0) {
                qp->req.psn_una = s->first_psn;
            }
            break;
        }
        if (!rocx_comp_reached(psn, s->first_psn, s->npkts - 1)) {
            break;
        }
        rocx_comp_oldest(c, qp, ROCX_WC_SUCCESS, ROCX_VERR_NONE);
    }
    if (!implied && rocx_psn_diff(rocx_psn_add(psn, 1),
                                  qp->req.psn_una) > 0) {
        qp->req.psn_una = rocx_psn_add(psn, 1);
    }
    if (qp->state == ROCX_QPS_RTS && una != qp->req.psn_una) {
        rocx_comp_progress(c, qp);
    }
    return !implied;
}

/* Go back N because of a loss the peer told us about; counts a retry. */
static void rocx_comp_retry(RocxCore *c, RocxQp *qp, RocxRetx why)
{
    if (qp->state != ROCX_QPS_RTS) {
        return;
    }
    if (!qp->req.retries) {
        rocx_count(c, ROCX_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED, 1);
        rocx_comp_error(c, qp, ROCX_WC_RETRY_EXC_ERR, ROCX_VERR_TIMEOUT);
        return;
    }
    qp->req.retries--;
    rocx_req_go_back(c, qp, why);
}

/* Retry for a READ gap once per oldest PSN, not once per packet. */
static void rocx_comp_gap(RocxCore *c, RocxQp *qp)
{
    if (!qp->req.gap_retried) {
        qp->req.gap_retried = true;
        rocx_count(c, ROCX_STAT_IMPLIED_NAK_SEQ_ERR, 1);
        rocx_comp_retry(c, qp, ROCX_RETX_IMPLIED);
    }
}

static void rocx_comp_read_resp(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    uint32_t psn = p->psn;
    RocxSqSlot *s;
    RocxSendWqe *w = &qp->req.rd_wqe;
    uint32_t n, off, want;
    bool last;
    uint8_t err;

    if (rocx_psn_diff(psn, qp->req.psn_una) < 0 ||
        rocx_psn_diff(psn, qp->req.psn_next) >= 0) {
        goto drop;  /* an old duplicate, or nothing we asked for */
    }
    /* A response acknowledges every request before it. */
    if (!rocx_comp_ack(c, qp, rocx_psn_add(psn, -1)) ||
        psn != qp->req.psn_una) {
        rocx_comp_gap(c, qp);
        goto drop;
    }
    if (qp->state != ROCX_QPS_RTS || qp->req.ci == qp->req.next) {
        goto drop;
    }
    s = rocx_comp_slot(qp, qp->req.ci);
    n = rocx_psn_off(psn, s->first_psn);
    if (s->opcode != ROCX_WQE_RDMA_READ || n >= s->npkts) {
        goto drop;
    }
    last = n + 1 == s->npkts;
    off = n * qp->mtu;
    want = MIN(qp->mtu, s->length - off);
    /*
     * A READ asked for again from the middle is answered FIRST (or ONLY)
     * from there, so FIRST may come anywhere; LAST only where a request
     * ends: at the end, or of a part of a long READ.
     */
    if (!!(p->opf & ROCX_OPF_LAST) != (n + 1 == rocx_read_req_end(n,
                                                                 s->npkts)) ||
        p->paylen != want) {
        rocx_comp_error(c, qp, ROCX_WC_BAD_RESP_ERR, ROCX_VERR_NONE);
        return;
    }
    if (!qp->req.rd_cached || w->idx != qp->req.ci) {
        uint8_t verr;

        qp->req.rd_cached = rocx_req_fetch(c, qp, qp->req.ci, w, &verr) ==
                            ROCX_WC_SUCCESS;
        if (!qp->req.rd_cached || w->opcode != ROCX_WQE_RDMA_READ ||
            w->length != s->length) {
            /* The consumer changed a WQE it had handed over. */
            rocx_comp_error(c, qp, ROCX_WC_LOC_QP_OP_ERR, ROCX_VERR_BAD_WQE);
            return;
        }
    }
    if (p->paylen) {
        err = rocx_sge_rw(c, w->sge, w->num_sge, qp->pdn,
                          ROCX_ACCESS_LOCAL_WRITE, off, (void *)p->payload,
                          p->paylen, true);
        if (err) {
            rocx_comp_error(c, qp, ROCX_WC_LOC_PROT_ERR, err);
            return;
        }
    }
    qp->req.psn_una = rocx_psn_add(psn, 1);
    if (last) {
        rocx_comp_oldest(c, qp, ROCX_WC_SUCCESS, ROCX_VERR_NONE);
    }
    rocx_comp_progress(c, qp);
    return;

drop:
    rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
}

/* An ATOMIC_ACKNOWLEDGE: the answer to the atomic at psn_una. */
static void rocx_comp_atomic_ack(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    uint32_t psn = p->psn;
    RocxSqSlot *s;
    uint8_t status, verr;

    if ((p->syndrome & ROCX_AETH_KIND_MASK) != ROCX_AETH_ACK ||
        rocx_psn_diff(psn, qp->req.psn_una) < 0 ||
        rocx_psn_diff(psn, qp->req.psn_next) >= 0) {
        goto drop;  /* an old duplicate, or nothing we asked for */
    }
    /* It acknowledges every request before it, as a READ response does. */
    if (!rocx_comp_ack(c, qp, rocx_psn_add(psn, -1)) ||
        psn != qp->req.psn_una) {
        rocx_comp_gap(c, qp);
        goto drop;
    }
    if (qp->state != ROCX_QPS_RTS || qp->req.ci == qp->req.next) {
        goto drop;
    }
    s = rocx_comp_slot(qp, qp->req.ci);
    if (!rocx_wqe_op_atomic(s->opcode) || s->first_psn != psn) {
        goto drop;
    }
    status = rocx_atomic_comp(c, qp, p, &verr);
    if (status != ROCX_WC_SUCCESS) {
        rocx_comp_error(c, qp, status, verr);
        return;
    }
    qp->req.psn_una = rocx_psn_add(psn, 1);
    rocx_comp_oldest(c, qp, ROCX_WC_SUCCESS, ROCX_VERR_NONE);
    rocx_comp_progress(c, qp);
    return;

drop:
    rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
}

static void rocx_comp_nak(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    static const uint8_t status[] = {
        [ROCX_AETH_NAK_INVALID] = ROCX_WC_REM_INV_REQ_ERR,
        [ROCX_AETH_NAK_ACCESS] = ROCX_WC_REM_ACCESS_ERR,
        [ROCX_AETH_NAK_OPERATION] = ROCX_WC_REM_OP_ERR,
    };
    static const uint8_t verr[] = {
        [ROCX_AETH_NAK_INVALID] = ROCX_VERR_NAK_INVALID,
        [ROCX_AETH_NAK_ACCESS] = ROCX_VERR_NAK_ACCESS,
        [ROCX_AETH_NAK_OPERATION] = ROCX_VERR_NAK_OPERATION,
    };
    uint8_t code = p->syndrome & 0x1f;
    bool answered;

    c->rdma.stats.naks_rcvd++;
    rocx_count(c, ROCX_STAT_PACKET_SEQ_ERR, code == ROCX_AETH_NAK_PSN);
    rocx_count(c, ROCX_STAT_REQ_REMOTE_ACCESS_ERRORS,
               code == ROCX_AETH_NAK_ACCESS);
    rocx_count(c, ROCX_STAT_REQ_REMOTE_INVALID_REQUEST,
               code == ROCX_AETH_NAK_INVALID);
    answered = rocx_comp_ack(c, qp, rocx_psn_add(p->psn, -1));
    if (qp->state != ROCX_QPS_RTS) {
        return;
    }
    /*
     * A READ before the NAKed PSN lost its responses.  A retryable NAK is
     * then an implied NAK for the READ: go back to it now (the NAK comes
     * again if it still holds), not after the ACK timeout, which may be
     * infinite.  A fatal one is not retried: the responder is in ERR and
     * drops whatever we resend, so the oldest WQE, the READ, takes its
     * status below.
     */
    if (!answered && code == ROCX_AETH_NAK_PSN) {
        rocx_comp_gap(c, qp);
        return;
    }
    switch (code) {
    case ROCX_AETH_NAK_PSN:
        if (p->psn == qp->req.psn_una) {
            rocx_comp_retry(c, qp, ROCX_RETX_NAK);
        }
        break;
    case ROCX_AETH_NAK_INVALID:
    case ROCX_AETH_NAK_ACCESS:
    case ROCX_AETH_NAK_OPERATION:
        /* Fatal for the connection, whichever WQE it names. */
        rocx_comp_error(c, qp, status[code], verr[code]);
        break;
    default:
        break;      /* reserved codes: ignored */
    }
}

static void rocx_comp_rnr(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    /* An implied NAK for a READ before it: see rocx_comp_nak(). */
    if (!rocx_comp_ack(c, qp, rocx_psn_add(p->psn, -1))) {
        rocx_comp_gap(c, qp);
        return;
    }
    if (qp->state != ROCX_QPS_RTS || p->psn != qp->req.psn_una) {
        return;
    }
    if (!qp->req.rnr_retries) {
        rocx_count(c, ROCX_STAT_RNR_NAK_RETRY_ERR, 1);
        rocx_comp_error(c, qp, ROCX_WC_RNR_RETRY_EXC_ERR, ROCX_VERR_RNR);
        return;
    }
    if (qp->rnr_retry != 7) {
        qp->req.rnr_retries--;
    }
    /* Stop sending; resend from psn_una after the responder's time. */
    qp->req.rnr_wait = true;
    qp->req.deadline = 0;
    qp->req.rnr_deadline = rocx_now(c) + rocx_rnr_ns(c, p->syndrome);
    rocx_timer_note(c, qp);
}

void rocx_comp_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    if (qp->state != ROCX_QPS_RTS) {
        rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
        return;
    }
    if (p->opf & ROCX_OPF_RESP) {
        rocx_comp_read_resp(c, qp, p);
        return;
    }
    if (p->opf & ROCX_OPF_ATOMACKETH) {
        rocx_comp_atomic_ack(c, qp, p);
        return;
    }
    /* An ACK names the last PSN it covers; a NAK the first it refuses. */
    switch (p->syndrome & ROCX_AETH_KIND_MASK) {
    case ROCX_AETH_ACK:
        if (rocx_psn_diff(rocx_psn_add(p->psn, 1), qp->req.psn_una) < 0 ||
            rocx_psn_diff(p->psn, qp->req.psn_next) >= 0) {
            rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
            return;
        }
        if (!rocx_comp_ack(c, qp, p->psn)) {
            rocx_comp_gap(c, qp);
        }
        break;
    case ROCX_AETH_RNR:
    case ROCX_AETH_NAK:
        if (rocx_psn_diff(p->psn, qp->req.psn_una) < 0 ||
            rocx_psn_diff(p->psn, qp->req.psn_next) >= 0) {
            rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
            return;
        }
        rocx_trace_nak(c, qp->qpn, p->psn, p->syndrome, false);
        if ((p->syndrome & ROCX_AETH_KIND_MASK) == ROCX_AETH_RNR) {
            rocx_comp_rnr(c, qp, p);
        } else {
            rocx_comp_nak(c, qp, p);
        }
        break;
    default:
        rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
        break;
    }
}

void rocx_comp_timers(RocxCore *c, RocxQp *qp, int64_t now)
{
    if (qp->req.rnr_wait && qp->req.rnr_deadline <= now) {
        qp->req.rnr_wait = false;
        qp->req.rnr_deadline = 0;
        rocx_req_go_back(c, qp, ROCX_RETX_RNR);
        return;
    }
    if (!qp->req.deadline || qp->req.deadline > now) {
        return;
    }
    qp->req.deadline = 0;
    if (qp->req.psn_una == qp->req.psn_next) {
        return;     /* everything was acknowledged meanwhile */
    }
    c->rdma.stats.timeouts++;
    rocx_count(c, ROCX_STAT_LOCAL_ACK_TIMEOUT_ERR, 1);
    if (!qp->req.retries) {
        rocx_count(c, ROCX_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED, 1);
        rocx_comp_error(c, qp, ROCX_WC_RETRY_EXC_ERR, ROCX_VERR_TIMEOUT);
        return;
    }
    qp->req.retries--;
    rocx_req_go_back(c, qp, ROCX_RETX_TIMEOUT);
}
