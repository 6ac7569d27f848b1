/*
 * rocx device model: the requester.
 *
 * Fetches send WQEs from the SQ (checking each one: its index, opcode,
 * SGEs or inline data, every local key), cuts messages into packets of
 * the path MTU, numbers them with PSNs and sends them, within a window of
 * req_window unacknowledged PSNs and req_max_wqes WQEs (a READ
 * asks for at most ROCX_READ_MAX_PKTS responses per request).  After
 * a loss the completer moves the send position back to the oldest
 * unacknowledged PSN (go-back-N); the WQE is fetched again from the SQ,
 * where it stays until its completion is written.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

void rocx_req_reset(RocxQp *qp)
{
    memset(&qp->req, 0, sizeof(qp->req));
}

static RocxSqSlot *rocx_req_slot(RocxQp *qp, uint16_t idx)
{
    return &qp->req.slot[idx % ROCX_REQ_MAX_WQES];
}

/*
 * Local ACK timeout in ns; 0 means none (IB: timeout 0 is infinite).  In
 * a timed run a peer cannot stall, so the encoding is taken as it is.
 */
static int64_t rocx_req_rto(RocxCore *c, RocxQp *qp)
{
    if (!qp->timeout) {
        return 0;
    }
    if (rocx_timed(c)) {
        return 4096LL << qp->timeout;
    }
    return MAX(4096LL << qp->timeout, ROCX_CORE_MIN_ACK_TIMEOUT_NS);
}

/* Start (restart) the local ACK timer, if the QP has one. */
void rocx_req_timer_start(RocxCore *c, RocxQp *qp)
{
    int64_t rto = rocx_req_rto(c, qp);

    if (rto) {
        qp->req.deadline = rocx_now(c) + rto;
        rocx_timer_note(c, qp);
    }
}

static uint32_t rocx_req_npkts(RocxQp *qp, uint32_t length)
{
    return length ? DIV_ROUND_UP(length, qp->mtu) : 1;
}

/* The operation segment of BIND_MW, REG_MR (LOCAL_INV has none); false: bad. */
static bool rocx_req_fetch_local(const struct rocx_send_wqe *hdr,
                                 RocxSendWqe *w)
{
    const struct rocx_wqe_bind_mw *b = &hdr->bind_mw;
    const uint32_t known = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
                           ROCX_ACCESS_REMOTE_READ | ROCX_ACCESS_REMOTE_ATOMIC;
    unsigned i;

    if (w->opcode == ROCX_WQE_REG_MR) {
        return rocx_fr_fetch(hdr, w);
    }
    if (w->opcode != ROCX_WQE_BIND_MW) {
        return true;
    }
    for (i = 0; i < sizeof(b->rsvd); i++) {
        if (b->rsvd[i]) {
            return false;
        }
    }
    w->bind.mw_key = ldl_le_p(&b->mw_key);
    w->bind.mr_key = ldl_le_p(&b->mr_key);
    w->bind.addr = ldq_le_p(&b->addr);
    w->bind.length = ldq_le_p(&b->length);
    w->bind.access = ldl_le_p(&b->access);
    return !(w->bind.access & ~known);
}

static bool rocx_req_is_local(uint8_t opcode)
{
    return opcode == ROCX_WQE_BIND_MW || opcode == ROCX_WQE_LOCAL_INV ||
           opcode == ROCX_WQE_REG_MR;
}

uint8_t rocx_req_fetch(RocxCore *c, RocxQp *qp, uint16_t idx, RocxSendWqe *w,
                       uint8_t *verr)
{
    const uint32_t known = ROCX_WQE_SIGNALED | ROCX_WQE_SOLICITED |
                           ROCX_WQE_FENCE | ROCX_WQE_INLINE;
    uint32_t wqe_size = 1u << qp->sq_wqe_shift;
    uint64_t off = (uint64_t)(idx & ((1u << qp->sq_log_depth) - 1))
                   << qp->sq_wqe_shift;
    struct rocx_send_wqe hdr;
    uint64_t total = 0;
    uint32_t inline_len;
    unsigned i;

    *verr = ROCX_VERR_BAD_WQE;
    if (rocx_pbl_rw(c, &qp->pbl, off, &hdr, sizeof(hdr), false)) {
        *verr = ROCX_VERR_DMA;
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    memset(w, 0, offsetof(RocxSendWqe, sge));
    w->idx = idx;
    w->opcode = hdr.ctrl.opcode;
    w->flags = hdr.ctrl.flags;
    w->num_sge = hdr.ctrl.num_sge;
    memcpy(&w->imm, &hdr.ctrl.imm_data, sizeof(w->imm));
    inline_len = ldl_le_p(&hdr.ctrl.inline_len);
    if (lduw_le_p(&hdr.ctrl.wqe_idx) != idx || (w->flags & ~known)) {
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    /* XRC_INI: the SRQ at the target its requests are for (XRCETH). */
    if (qp->type == ROCX_QPT_XRC_INI) {
        w->xrc_srqn = lduw_le_p(&hdr.ctrl.xrc_srqn) |
                      (uint32_t)hdr.ctrl.xrc_srqn_hi << 16;
    }
    /* UC's transport has no READ, atomics or invalidation (rocx-uc.c). */
    if (qp->type == ROCX_QPT_UC &&
        (w->opcode == ROCX_WQE_RDMA_READ || w->opcode == ROCX_WQE_COMP_SWAP ||
         w->opcode == ROCX_WQE_FETCH_ADD || w->opcode == ROCX_WQE_SEND_INV)) {
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    if (qp->type == ROCX_QPT_UD) {
        /* Its address vector is checked when it is sent (rocx-ud.c). */
        if (w->opcode != ROCX_WQE_SEND && w->opcode != ROCX_WQE_SEND_IMM) {
            return ROCX_WC_LOC_QP_OP_ERR;
        }
        w->ud = hdr.ud;
    }
    switch (w->opcode) {
    case ROCX_WQE_RDMA_READ:
        if (w->flags & ROCX_WQE_INLINE) {
            return ROCX_WC_LOC_QP_OP_ERR;
        }
        /* fall through */
    case ROCX_WQE_RDMA_WRITE:
    case ROCX_WQE_RDMA_WRITE_IMM:
        w->raddr = ldq_le_p(&hdr.rdma.remote_addr);
        w->rkey = ldl_le_p(&hdr.rdma.rkey);
        break;
    case ROCX_WQE_SEND:
    case ROCX_WQE_SEND_IMM:
    case ROCX_WQE_SEND_INV:
        break;
    case ROCX_WQE_COMP_SWAP:
    case ROCX_WQE_FETCH_ADD:
        return rocx_atomic_fetch(c, qp, off, &hdr, w, verr);
    case ROCX_WQE_BIND_MW:
    case ROCX_WQE_LOCAL_INV:
    case ROCX_WQE_REG_MR:
        /* Local operations (rocx-mw.c, rocx-fr.c): no data, no packets. */
        if (w->num_sge || (w->flags & ROCX_WQE_INLINE) ||
            !rocx_req_fetch_local(&hdr, w)) {
            return ROCX_WC_LOC_QP_OP_ERR;
        }
        goto done;
    default:
        /* Invalidation, MR/MW work requests: not in 1.1. */
        return ROCX_WC_LOC_QP_OP_ERR;
    }

    if (w->flags & ROCX_WQE_INLINE) {
        if (inline_len > ROCX_CORE_MAX_INLINE ||
            ROCX_SEND_WQE_HDR + inline_len > wqe_size) {
            return ROCX_WC_LOC_QP_OP_ERR;
        }
        if (rocx_pbl_rw(c, &qp->pbl, off + ROCX_SEND_WQE_HDR,
                        w->inline_data, inline_len, false)) {
            *verr = ROCX_VERR_DMA;
            return ROCX_WC_LOC_QP_OP_ERR;
        }
        w->num_sge = 0;
        w->length = inline_len;
        goto done;
    }

    if (w->num_sge > ROCX_CORE_MAX_SGE ||
        ROCX_SEND_WQE_HDR + w->num_sge * sizeof(struct rocx_sge) >
        wqe_size) {
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    for (i = 0; i < w->num_sge; i++) {
        struct rocx_sge s;
        uint8_t err;

        if (rocx_pbl_rw(c, &qp->pbl, off + ROCX_SEND_WQE_HDR + i * sizeof(s),
                        &s, sizeof(s), false)) {
            *verr = ROCX_VERR_DMA;
            return ROCX_WC_LOC_QP_OP_ERR;
        }
        w->sge[i].addr = ldq_le_p(&s.addr);
        w->sge[i].length = ldl_le_p(&s.length);
        w->sge[i].lkey = ldl_le_p(&s.lkey);
        total += w->sge[i].length;
        if (!w->sge[i].length) {
            continue;
        }
        /* Data the device writes locally (READ) needs LOCAL_WRITE. */
        err = rocx_mr_check(c, w->sge[i].lkey, qp->pdn, w->sge[i].addr,
                            w->sge[i].length,
                            w->opcode == ROCX_WQE_RDMA_READ ?
                            ROCX_ACCESS_LOCAL_WRITE : 0, NULL);
        if (err) {
            *verr = err;
            return ROCX_WC_LOC_PROT_ERR;
        }
    }
    /* IB's limit on a message. */
    if (total > (1ULL << 31)) {
        *verr = ROCX_VERR_LKEY_BOUNDS;
        return ROCX_WC_LOC_LEN_ERR;
    }
    w->length = total;
done:
    *verr = ROCX_VERR_NONE;
    return ROCX_WC_SUCCESS;
}

/* Send packet number n (0-based) of the message of cur. */
uint8_t rocx_req_send_pkt(RocxCore *c, RocxQp *qp, RocxSqSlot *s, uint32_t n)
{
    RocxSendWqe *w = &qp->req.wqe;
    uint32_t off = n * qp->mtu;
    bool first = n == 0, last = n + 1 == s->npkts;
    bool imm = s->opcode == ROCX_WQE_SEND_IMM ||
               s->opcode == ROCX_WQE_RDMA_WRITE_IMM;
    RocxTx tx = {
        .psn = qp->req.cur_psn,
    };
    uint8_t err;

    if (rocx_wqe_op_atomic(s->opcode)) {
        rocx_atomic_send(c, qp, tx.psn);
        return ROCX_VERR_NONE;
    }
    if (s->opcode == ROCX_WQE_RDMA_READ) {
        /*
         * One request for the rest of the message (all of it at first),
         * or of its part of ROCX_READ_MAX_PKTS responses.
         */
        uint64_t end = (uint64_t)rocx_read_req_end(n, s->npkts) * qp->mtu;

        tx.opcode = ROCX_OP_READ_REQ;
        tx.va = w->raddr + off;
        tx.rkey = w->rkey;
        tx.dmalen = MIN(end, s->length) - off;
        rocx_wire_send(c, qp, &tx);
        return ROCX_VERR_NONE;
    }

    tx.paylen = MIN(qp->mtu, s->length - off);
    if (s->opcode == ROCX_WQE_SEND_INV && last) {
        tx.opcode = first ? ROCX_OP_SEND_ONLY_INV : ROCX_OP_SEND_LAST_INV;
        tx.ieth = ldl_be_p(&w->imm);
    } else if (s->opcode == ROCX_WQE_SEND || s->opcode == ROCX_WQE_SEND_IMM ||
               s->opcode == ROCX_WQE_SEND_INV) {
        tx.opcode = first && last ? ROCX_OP_SEND_ONLY :
                    first ? ROCX_OP_SEND_FIRST :
                    last ? ROCX_OP_SEND_LAST : ROCX_OP_SEND_MIDDLE;
    } else {
        tx.opcode = first && last ? ROCX_OP_WRITE_ONLY :
                    first ? ROCX_OP_WRITE_FIRST :
                    last ? ROCX_OP_WRITE_LAST : ROCX_OP_WRITE_MIDDLE;
        if (first) {
            tx.va = w->raddr;
            tx.rkey = w->rkey;
            tx.dmalen = s->length;
        }
    }
    /* The _IMM opcodes follow their plain ones: +1 for LAST and ONLY. */
    if (imm && last) {
        tx.opcode++;
        tx.imm = w->imm;
    }
    tx.se = last && (s->flags & ROCX_WQE_SOLICITED);
    /*
     * Ask for an ACK at the end of a message, every ROCX_ACK_INTERVAL
     * packets, and before the window closes.
     */
    tx.ackreq = last || (n % ROCX_ACK_INTERVAL) == ROCX_ACK_INTERVAL - 1 ||
                rocx_psn_diff(qp->req.cur_psn, qp->req.psn_una) + 1 >=
                (int32_t)c->req_window;
    /* UC: the same operations in its own transport, nothing to ACK. */
    if (qp->type == ROCX_QPT_UC) {
        tx.opcode |= ROCX_TR_UC;
        tx.ackreq = false;
    }

    if (tx.paylen) {
        uint8_t *pay = rocx_wire_buf(c, qp) + rocx_wire_hdr_len(qp, tx.opcode);

        if (s->flags & ROCX_WQE_INLINE) {
            memcpy(pay, w->inline_data + off, tx.paylen);
        } else {
            err = rocx_sge_rw(c, w->sge, w->num_sge, qp->pdn, 0, off, pay,
                              tx.paylen, false);
            if (err) {
                return err;
            }
        }
    }
    rocx_wire_send(c, qp, &tx);
    return ROCX_VERR_NONE;
}

/*
 * Execute the local WQE (BIND_MW, LOCAL_INV, REG_MR) just fetched at
 * next: it takes a slot without PSNs, done at once and completed in
 * order (at once if it is the oldest, else when the WQEs before it are).
 * One that fails changes nothing, and is reported once every WQE before
 * it has completed: it runs again then.  The WQE after it waits for the
 * caller's next step: each local WQE costs its budget, and a completion
 * that overflowed the CQ has ended the QP, which then starts no more.
 */
static RocxReqStart rocx_req_local(RocxCore *c, RocxQp *qp)
{
    RocxSendWqe *w = &qp->req.wqe;
    uint16_t idx = qp->req.next;
    uint8_t status, verr;
    RocxSqSlot *s;

    status = rocx_mw_local_op(c, qp, w, &verr);
    if (status != ROCX_WC_SUCCESS && qp->req.ci != idx) {
        qp->req.blocked = true;
        return ROCX_REQ_WAIT;
    }
    s = rocx_req_slot(qp, idx);
    memset(s, 0, sizeof(*s));
    s->opcode = w->opcode;
    s->flags = w->flags;
    s->first_psn = qp->req.cur_psn;
    qp->req.next++;
    qp->req.cur = qp->req.next;
    qp->req.cur_cached = false;
    if (status != ROCX_WC_SUCCESS) {
        rocx_comp_error(c, qp, status, verr);
        return ROCX_REQ_WAIT;
    }
    rocx_comp_local(c, qp);
    return ROCX_REQ_LOCAL;
}

/*
 * Start the next WQE from the SQ: ROCX_REQ_WAIT if it has to wait (for
 * completions, a READ slot, a fence) or failed.
 */
RocxReqStart rocx_req_start(RocxCore *c, RocxQp *qp)
{
    uint16_t idx = qp->req.next;
    RocxSendWqe *w = &qp->req.wqe;
    uint8_t status, verr;
    RocxSqSlot *s;

    if (idx == qp->sq_pi ||
        (uint16_t)(idx - qp->req.ci) >= c->req_max_wqes) {
        return ROCX_REQ_WAIT;
    }
    status = rocx_req_fetch(c, qp, idx, w, &verr);
    qp->req.cur_cached = status == ROCX_WC_SUCCESS;
    if (status != ROCX_WC_SUCCESS) {
        /* Completions are in order: report it once all before it are. */
        if (qp->req.ci == idx) {
            s = rocx_req_slot(qp, idx);
            memset(s, 0, sizeof(*s));
            s->opcode = w->opcode;
            qp->req.next++;
            qp->req.cur = qp->req.next;
            rocx_comp_error(c, qp, status, verr);
        } else {
            qp->req.blocked = true;
        }
        return ROCX_REQ_WAIT;
    }
    /*
     * LOCAL_INV waits until every WQE before it has completed: until
     * then a retransmission may still read through the key (strong
     * ordering, as mlx5 gives every LOCAL_INV).
     */
    if ((rocx_wqe_rd_atomic(w->opcode) &&
         qp->req.rd_out >= MAX(qp->max_rd_atomic, 1)) ||
        ((w->flags & ROCX_WQE_FENCE) && qp->req.rd_out) ||
        (w->opcode == ROCX_WQE_LOCAL_INV && qp->req.ci != idx)) {
        qp->req.blocked = true;
        return ROCX_REQ_WAIT;
    }
    if (rocx_req_is_local(w->opcode)) {
        return rocx_req_local(c, qp);
    }
    s = rocx_req_slot(qp, idx);
    s->opcode = w->opcode;
    s->flags = w->flags;
    s->length = w->length;
    s->first_psn = qp->req.cur_psn;
    s->npkts = rocx_wqe_op_atomic(w->opcode) ? 1 :
               rocx_req_npkts(qp, w->length);
    if (rocx_wqe_rd_atomic(w->opcode)) {
        qp->req.rd_out++;
    }
    qp->req.cur = idx;
    qp->req.next++;
    return ROCX_REQ_SEND;
}

bool rocx_req_ready(RocxCore *c, RocxQp *qp)
{
    if (qp->state != ROCX_QPS_RTS || qp->req.rnr_wait ||
        rocx_psn_diff(qp->req.cur_psn, qp->req.psn_una) >=
        (int32_t)c->req_window) {
        return false;
    }
    /* Resending what is in flight never waits for a completion. */
    if (qp->req.cur != qp->req.next) {
        RocxSqSlot *s = rocx_req_slot(qp, qp->req.cur);

        /*
         * The next part of a long READ waits until the part before it is
         * answered: the responder takes it as a READ of its own, and PSNs
         * in flight stay within 2^22 of each other.
         */
        return s->opcode != ROCX_WQE_RDMA_READ ||
               qp->req.cur_psn == s->first_psn ||
               qp->req.cur_psn == qp->req.psn_una;
    }
    return !qp->req.blocked && qp->req.next != qp->sq_pi &&
           (uint16_t)(qp->req.next - qp->req.ci) < c->req_max_wqes;
}

/*
 * Sink mode (rocx_core_set_sink()): the WQE just started at cur takes no
 * PSNs and is done, as a local one is; it completes at once when every
 * WQE before it has.
 */
static void rocx_req_sink(RocxCore *c, RocxQp *qp)
{
    rocx_req_slot(qp, qp->req.cur)->npkts = 0;
    qp->req.cur = qp->req.next;
    qp->req.cur_cached = false;
    rocx_comp_local(c, qp);
}

unsigned rocx_req_run(RocxCore *c, RocxQp *qp, unsigned budget)
{
    unsigned sent = 0;

    /* rocx_req_ready() asks for RTS before each step, a local one too. */
    while (sent < budget && rocx_req_ready(c, qp)) {
        RocxSqSlot *s;
        uint32_t n;
        uint8_t err;

        if (qp->req.cur == qp->req.next) {
            RocxReqStart st = rocx_req_start(c, qp);

            if (st == ROCX_REQ_WAIT) {
                break;
            }
            if (st == ROCX_REQ_LOCAL) {
                sent++;
                continue;
            }
        }
        if (c->sink && qp->req.cur != qp->req.next) {
            rocx_req_sink(c, qp);
            sent++;
            continue;
        }
        s = rocx_req_slot(qp, qp->req.cur);
        if (!qp->req.cur_cached || qp->req.wqe.idx != qp->req.cur) {
            uint8_t verr, status = rocx_req_fetch(c, qp, qp->req.cur,
                                                  &qp->req.wqe, &verr);

            qp->req.cur_cached = status == ROCX_WC_SUCCESS;

            /* The consumer changed a WQE it had handed over. */
            if (status != ROCX_WC_SUCCESS ||
                qp->req.wqe.length != s->length ||
                qp->req.wqe.opcode != s->opcode) {
                rocx_qp_error(c, qp, true, ROCX_VERR_BAD_WQE);
                break;
            }
        }
        n = rocx_psn_off(qp->req.cur_psn, s->first_psn);
        err = rocx_req_send_pkt(c, qp, s, n);
        if (err) {
            /* An MR went away under a message in flight. */
            if (qp->req.cur == qp->req.ci) {
                rocx_comp_error(c, qp, ROCX_WC_LOC_PROT_ERR, err);
            } else {
                rocx_qp_error(c, qp, true, err);
            }
            break;
        }
        sent++;
        if (!qp->req.deadline) {
            rocx_req_timer_start(c, qp);
        }
        if (s->opcode == ROCX_WQE_RDMA_READ) {
            qp->req.cur_psn = rocx_psn_add(s->first_psn,
                                           rocx_read_req_end(n, s->npkts));
        } else {
            qp->req.cur_psn = rocx_psn_add(qp->req.cur_psn, 1);
        }
        if (rocx_psn_off(qp->req.cur_psn, s->first_psn) >= s->npkts) {
            qp->req.cur++;
            /* Local WQEs in between were done when first fetched. */
            while (qp->req.cur != qp->req.next &&
                   !rocx_req_slot(qp, qp->req.cur)->npkts) {
                qp->req.cur++;
            }
        }
        if (rocx_psn_diff(qp->req.cur_psn, qp->req.psn_next) > 0) {
            qp->req.psn_next = qp->req.cur_psn;
        }
        /* A looped-back reply may have ended the QP meanwhile. */
        if (qp->state != ROCX_QPS_RTS) {
            break;
        }
    }
    return sent;
}

/* Point the send position at psn_una. */
void rocx_req_seek(RocxQp *qp)
{
    uint16_t idx;

    /* The first WQE that ends after it (ends are in the window). */
    for (idx = qp->req.ci; idx != qp->req.next; idx++) {
        RocxSqSlot *s = rocx_req_slot(qp, idx);

        if (s->npkts && rocx_psn_diff(qp->req.psn_una,
                                      rocx_psn_add(s->first_psn,
                                                   s->npkts)) < 0) {
            break;
        }
    }
    qp->req.cur = idx;
    qp->req.cur_psn = qp->req.psn_una;
}

/* Go-back-N: resend everything from psn_una. */
void rocx_req_go_back(RocxCore *c, RocxQp *qp, RocxRetx why)
{
    rocx_trace_retransmit(c, qp->qpn, qp->req.psn_una, why);
    rocx_req_seek(qp);
    c->rdma.stats.retransmits++;
    rocx_req_timer_start(c, qp);
    rocx_qp_schedule(c, qp);
}
