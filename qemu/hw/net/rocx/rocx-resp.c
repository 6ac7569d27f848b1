/*
 * rocx device model: the responder.
 *
 * Executes the requests that arrive in PSN order: SENDs into receive
 * WQEs, RDMA WRITEs into memory regions (with immediate: consuming a
 * receive), RDMA READs by queueing responses, atomics (rocx-atomic.c)
 * by executing them and queueing the response.  A duplicate is
 * acknowledged again; a duplicate READ is executed again from its PSN if
 * it repeats one of the last max_dest_rd_atomic READs and atomics (the
 * responder resources), and dropped otherwise; a duplicate atomic is
 * answered from the result saved there.  A gap gets one sequence-error NAK;
 * a request it cannot execute gets a NAK and moves the QP to ERR; a SEND
 * with no receive posted gets an RNR NAK.
 *
 * Nothing is sent from the receive path: it records what to answer and
 * schedules the QP, and rocx_resp_run() sends READ responses first and
 * then one ACK (or NAK) for everything received so far.  That keeps
 * responses in PSN order and coalesces ACKs: at least one per message and
 * one per ROCX_ACK_INTERVAL packets, each covering all before it.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

void rocx_resp_reset(RocxQp *qp)
{
    memset(&qp->resp, 0, sizeof(qp->resp));
}

bool rocx_resp_ready(RocxQp *qp)
{
    return qp->resp.rd_busy || qp->resp.ack != ROCX_ACK_NONE;
}

static void rocx_resp_ack(RocxCore *c, RocxQp *qp, uint8_t kind,
                          uint8_t syndrome, uint32_t psn)
{
    qp->resp.ack = kind;
    qp->resp.syndrome = syndrome;
    qp->resp.ack_psn = psn;
    rocx_qp_schedule(c, qp);
}

/*
 * A request the responder cannot execute: NAK it and end the QP.  With
 * cqe_written the consumer learns why from a receive completion; else
 * from a QP_ERROR event carrying verr.
 */
static void rocx_resp_fatal(RocxCore *c, RocxQp *qp, const RocxPkt *p,
                            uint8_t code, uint8_t verr, bool cqe_written)
{
    c->rdma.stats.naks_sent++;
    rocx_count(c, ROCX_STAT_RESP_REMOTE_ACCESS_ERRORS,
               code == ROCX_AETH_NAK_ACCESS);
    rocx_count(c, ROCX_STAT_RESP_REMOTE_INVALID_REQUEST,
               code == ROCX_AETH_NAK_INVALID);
    qp->resp.ack = ROCX_ACK_NAK;
    qp->resp.syndrome = ROCX_AETH_NAK | code;
    qp->resp.ack_psn = p->psn;
    qp->nak_final = true;
    rocx_qp_error(c, qp, !cqe_written, verr);
}

void rocx_resp_nak_fatal(RocxCore *c, RocxQp *qp, const RocxPkt *p,
                         uint8_t code, uint8_t verr)
{
    rocx_resp_fatal(c, qp, p, code, verr, false);
}

/* Complete the receive WQE at rq_ci. */
void rocx_resp_recv_done(RocxCore *c, RocxQp *qp, uint8_t status,
                         uint8_t verr, uint8_t opcode, uint32_t len,
                         const RocxPkt *p)
{
    RocxCqeInfo ci = {
        .qpn = qp->qpn,
        .opcode = opcode,
        .status = status,
        .vendor_err = verr,
        .flags = ROCX_CQE_RECV,
        .wqe_idx = qp->resp.rq_ci,
        .byte_len = len,
        .solicited = p->se,
    };
    bool srq = qp->srqn != ROCX_NO_SRQ;

    if (status == ROCX_WC_SUCCESS && (p->opf & ROCX_OPF_IMM)) {
        ci.flags |= ROCX_CQE_WITH_IMM;
        ci.imm = p->imm;
    }
    if (status == ROCX_WC_SUCCESS && (p->opf & ROCX_OPF_IETH)) {
        /* The invalidated rkey, in wire order as immediate data is. */
        ci.flags |= ROCX_CQE_WITH_INV;
        stl_be_p(&ci.imm, p->ieth);
    }
    if (srq) {
        /* An SRQ entry is named by its tag; the RQ index stays. */
        ci.wqe_idx = qp->resp.rwqe.idx;
    }
    if (qp->type == ROCX_QPT_XRC_TGT) {
        /* Several SRQs share the CQ: which one the entry was of. */
        ci.ext = ROCX_FIELD_PREP(ROCX_CQE_EXT_SRQN, qp->srqn);
    }
    rocx_cq_write(c, qp->recv_cqn, &ci);
    if (!srq) {
        qp->resp.rq_ci++;
    }
    qp->resp.rwqe_valid = false;
}

/* Fetch the receive WQE at rq_ci; a completion status or SUCCESS. */
uint8_t rocx_resp_fetch(RocxCore *c, RocxQp *qp, uint8_t *verr)
{
    RocxRecvWqe *r = &qp->resp.rwqe;
    uint16_t idx = qp->resp.rq_ci;
    uint64_t off = qp->sq_bytes +
                   ((uint64_t)(idx & ((1u << qp->rq_log_depth) - 1))
                    << qp->rq_wqe_shift);
    struct rocx_recv_wqe hdr;
    unsigned i;

    *verr = ROCX_VERR_BAD_WQE;
    if (rocx_pbl_rw(c, &qp->pbl, off, &hdr, sizeof(hdr), false)) {
        *verr = ROCX_VERR_DMA;
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    if (lduw_le_p(&hdr.wqe_idx) != idx ||
        hdr.num_sge > ROCX_CORE_MAX_SGE ||
        ROCX_RECV_WQE_HDR + hdr.num_sge * sizeof(struct rocx_sge) >
        (1u << qp->rq_wqe_shift)) {
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    r->idx = idx;
    r->num_sge = hdr.num_sge;
    r->length = 0;
    for (i = 0; i < r->num_sge; i++) {
        struct rocx_sge s;

        if (rocx_pbl_rw(c, &qp->pbl, off + ROCX_RECV_WQE_HDR + i * sizeof(s),
                        &s, sizeof(s), false)) {
            *verr = ROCX_VERR_DMA;
            return ROCX_WC_LOC_QP_OP_ERR;
        }
        r->sge[i].addr = ldq_le_p(&s.addr);
        r->sge[i].length = ldl_le_p(&s.length);
        r->sge[i].lkey = ldl_le_p(&s.lkey);
        r->length += r->sge[i].length;
    }
    qp->resp.rwqe_valid = true;
    *verr = ROCX_VERR_NONE;
    return ROCX_WC_SUCCESS;
}

/*
 * Make sure a receive WQE is at hand for a SEND or WRITE with immediate.
 * False if the packet must not go on: RNR NAK sent, or the QP failed.
 */
static bool rocx_resp_need_recv(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    uint8_t status, verr;
    RocxSrqTake take = ROCX_SRQ_EMPTY;

    if (qp->resp.rwqe_valid) {
        return true;
    }
    if (qp->srqn != ROCX_NO_SRQ) {
        take = rocx_srq_take(c, qp);
        if (take == ROCX_SRQ_FAILED) {
            rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_OPERATION,
                            ROCX_VERR_BAD_WQE, false);
            return false;
        }
    } else if (!qp->rq_log_depth) {
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_INVALID,
                        ROCX_VERR_RQ_OVERFLOW, false);
        return false;
    }
    if (qp->srqn != ROCX_NO_SRQ ? take == ROCX_SRQ_EMPTY :
        qp->resp.rq_ci == qp->rq_pi) {
        /* Receiver not ready; the requester retries from this PSN. */
        c->rdma.stats.rnr_naks_sent++;
        qp->resp.nak_sent = true;
        rocx_resp_ack(c, qp, ROCX_ACK_NAK,
                      ROCX_AETH_RNR | qp->min_rnr_timer, p->psn);
        return false;
    }
    if (take == ROCX_SRQ_TAKEN) {
        qp->resp.recv_off = 0;
        return true;
    }
    status = rocx_resp_fetch(c, qp, &verr);
    if (status != ROCX_WC_SUCCESS) {
        rocx_resp_recv_done(c, qp, status, verr, ROCX_CQE_OP_RECV, 0, p);
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_OPERATION, verr, true);
        return false;
    }
    qp->resp.recv_off = 0;
    return true;
}

static void rocx_resp_send(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    uint8_t verr;

    if (!rocx_resp_need_recv(c, qp, p)) {
        return;
    }
    if (qp->resp.recv_off + p->paylen > qp->resp.rwqe.length) {
        rocx_resp_recv_done(c, qp, ROCX_WC_LOC_LEN_ERR, ROCX_VERR_RQ_OVERFLOW,
                            ROCX_CQE_OP_RECV, 0, p);
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_INVALID,
                        ROCX_VERR_RQ_OVERFLOW, true);
        return;
    }
    if (p->paylen) {
        verr = rocx_sge_rw(c, qp->resp.rwqe.sge, qp->resp.rwqe.num_sge,
                           qp->recv_pdn, ROCX_ACCESS_LOCAL_WRITE,
                           qp->resp.recv_off, (void *)p->payload, p->paylen,
                           true);
        if (verr) {
            rocx_resp_recv_done(c, qp, ROCX_WC_LOC_PROT_ERR, verr,
                                ROCX_CQE_OP_RECV, 0, p);
            rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_OPERATION, verr, true);
            return;
        }
    }
    qp->resp.recv_off += p->paylen;
    qp->resp.op = ROCX_RESP_SEND;
    /* SEND with invalidate: the message is placed, then the key goes. */
    verr = p->opf & ROCX_OPF_IETH ? rocx_mw_remote_inv(c, qp, p->ieth) :
           ROCX_VERR_NONE;
    if (verr) {
        rocx_resp_recv_done(c, qp, ROCX_WC_REM_INV_REQ_ERR, verr,
                            ROCX_CQE_OP_RECV, 0, p);
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_INVALID, verr, true);
        return;
    }
    if (p->opf & ROCX_OPF_LAST) {
        rocx_resp_recv_done(c, qp, ROCX_WC_SUCCESS, ROCX_VERR_NONE,
                            ROCX_CQE_OP_RECV, qp->resp.recv_off, p);
        qp->resp.op = ROCX_RESP_IDLE;
    }
}

/*
 * Check a remote access through an R_Key: key, PD, range and the MR's
 * or window's rights (a remote access error if one fails).  The QP's own
 * rights are rocx_resp_op_enabled()'s.
 */
static uint8_t rocx_resp_rkey(RocxCore *c, RocxQp *qp, uint32_t pdn,
                              uint32_t rkey, uint64_t va, uint64_t len,
                              uint32_t access, RocxMr **mr)
{
    return rocx_rkey_check_pd(c, qp, pdn, rkey, va, len, access, mr);
}

/*
 * Whether the QP takes the request's operation at all.  An RDMA WRITE,
 * READ or atomic the QP's access flags do not enable is an invalid
 * request, not a remote access error (IBTA: a request the QP is not
 * configured for is an unsupported operation, class C; rxe's
 * check_op_valid() likewise): access errors are for what an R_Key
 * reaches.
 */
static bool rocx_resp_op_enabled(const RocxQp *qp, uint32_t opf)
{
    if (opf & ROCX_OPF_ATOMETH) {
        return qp->access & ROCX_ACCESS_REMOTE_ATOMIC;
    }
    if (opf & ROCX_OPF_WRITE) {
        return qp->access & ROCX_ACCESS_REMOTE_WRITE;
    }
    if (opf & ROCX_OPF_READ) {
        return qp->access & ROCX_ACCESS_REMOTE_READ;
    }
    return true;
}

static void rocx_resp_write(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    RocxMr *mr;
    uint8_t verr;

    if (p->opf & ROCX_OPF_FIRST) {
        /* IB: a zero-length WRITE checks no R_Key (but the QP's rights). */
        verr = p->dmalen ? rocx_resp_rkey(c, qp, qp->pdn, p->rkey, p->va,
                                          p->dmalen, ROCX_ACCESS_REMOTE_WRITE,
                                          NULL) :
               ROCX_VERR_NONE;
        if (verr) {
            rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_ACCESS, verr, false);
            return;
        }
        qp->resp.wr_va = p->va;
        qp->resp.wr_rkey = p->rkey;
        qp->resp.wr_left = p->dmalen;
        qp->resp.wr_total = p->dmalen;
    }
    /* The message must be exactly as long as its RETH said. */
    if (p->paylen > qp->resp.wr_left ||
        ((p->opf & ROCX_OPF_LAST) && p->paylen != qp->resp.wr_left)) {
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_INVALID, ROCX_VERR_NAK_INVALID,
                        false);
        return;
    }
    /* With immediate data it consumes a receive: check before writing. */
    if ((p->opf & ROCX_OPF_IMM) && !rocx_resp_need_recv(c, qp, p)) {
        return;
    }
    if (p->paylen) {
        /* Looked up per packet: the MR may be gone since the first. */
        verr = rocx_resp_rkey(c, qp, qp->pdn, qp->resp.wr_rkey,
                              qp->resp.wr_va, p->paylen,
                              ROCX_ACCESS_REMOTE_WRITE, &mr);
        if (verr) {
            rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_ACCESS, verr, false);
            return;
        }
        if (rocx_mr_rw(c, mr, qp->resp.wr_va, (void *)p->payload, p->paylen,
                       true)) {
            rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_OPERATION, ROCX_VERR_DMA,
                            false);
            return;
        }
    }
    qp->resp.wr_va += p->paylen;
    qp->resp.wr_left -= p->paylen;
    qp->resp.op = ROCX_RESP_WRITE;
    if (p->opf & ROCX_OPF_LAST) {
        if (p->opf & ROCX_OPF_IMM) {
            rocx_resp_recv_done(c, qp, ROCX_WC_SUCCESS, ROCX_VERR_NONE,
                                ROCX_CQE_OP_RECV_RDMA_IMM, qp->resp.wr_total,
                                p);
        }
        qp->resp.op = ROCX_RESP_IDLE;
    }
}

static uint32_t rocx_resp_npkts(RocxQp *qp, uint32_t len)
{
    return len ? DIV_ROUND_UP(len, qp->mtu) : 1;
}

/* (Re)start a job's responses at psn: len bytes from va. */
static void rocx_resp_read_start(RocxQp *qp, RocxReadJob *j, uint32_t psn,
                                 uint64_t va, uint32_t len)
{
    if (!j->busy) {
        j->busy = true;
        qp->resp.rd_busy++;
    }
    j->first = true;
    j->psn = psn;
    j->va = va;
    j->left = len;
}

/*
 * The oldest READ or atomic whose responses are all sent makes room: the
 * window is the last max_dest_rd_atomic of them, in PSN order.
 *
 * With every one of them busy, a new request still fits if one is a
 * replay of a request answered before: the requester has at most
 * max_rd_atomic (<= max_dest_rd_atomic) outstanding, the new one
 * included, so the oldest of them is one it has completed, and its
 * replay (a duplicate that came late) is dropped.  Otherwise the
 * requester broke its limit.
 */
RocxReadJob *rocx_resp_job_new(RocxQp *qp, uint32_t psn)
{
    unsigned max = MAX(qp->max_dest_rd_atomic, 1), i;
    RocxReadJob *j;

    if (qp->resp.rd_busy >= max) {
        for (i = 0; i < qp->resp.rd_count && !qp->resp.rd[i].busy; i++) {
            ;
        }
        if (i == qp->resp.rd_count || !qp->resp.rd[i].answered) {
            return NULL;
        }
        qp->resp.rd[i].busy = false;
        qp->resp.rd_busy--;
    }
    if (qp->resp.rd_count >= max) {
        /* rd_busy < max <= rd_count: one of them is idle. */
        i = 0;
        while (i + 1 < qp->resp.rd_count && qp->resp.rd[i].busy) {
            i++;
        }
        memmove(&qp->resp.rd[i], &qp->resp.rd[i + 1],
                (qp->resp.rd_count - i - 1) * sizeof(qp->resp.rd[0]));
        qp->resp.rd_count--;
    }
    j = &qp->resp.rd[qp->resp.rd_count++];
    memset(j, 0, sizeof(*j));
    j->first_psn = psn;
    j->pdn = qp->pdn;
    return j;
}

/*
 * Hold a new READ and queue its responses; false if max_dest_rd_atomic
 * READs and atomics are being answered already.
 */
static bool rocx_resp_read_queue(RocxQp *qp, const RocxPkt *p)
{
    RocxReadJob *j = rocx_resp_job_new(qp, p->psn);

    if (!j) {
        return false;
    }
    j->npkts = rocx_resp_npkts(qp, p->dmalen);
    j->va0 = p->va;
    j->rkey = p->rkey;
    j->len = p->dmalen;
    rocx_resp_read_start(qp, j, p->psn, p->va, p->dmalen);
    return true;
}

static void rocx_resp_read(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    uint8_t verr;

    /* IB: a zero-length READ checks no R_Key (but the QP's rights). */
    verr = p->dmalen ? rocx_resp_rkey(c, qp, qp->pdn, p->rkey, p->va,
                                      p->dmalen, ROCX_ACCESS_REMOTE_READ,
                                      NULL) :
           ROCX_VERR_NONE;
    if (verr) {
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_ACCESS, verr, false);
        return;
    }
    /*
     * Longer than IB's largest message, or more READs in flight than
     * max_dest_rd_atomic allows.
     */
    if (p->dmalen > (1u << 31) || !rocx_resp_read_queue(qp, p)) {
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_INVALID, ROCX_VERR_NAK_INVALID,
                        false);
        return;
    }
    qp->resp.epsn = rocx_psn_add(p->psn, rocx_resp_npkts(qp, p->dmalen));
    qp->resp.msn = (qp->resp.msn + 1) & ROCX_PSN_MASK;
    rocx_qp_schedule(c, qp);
}

/*
 * The held READ a duplicate request repeats: its PSN is one of the READ's,
 * and it asks for the rest of it from there (same R_Key, the address and
 * length that PSN stands for), as a requester resuming a READ does.
 */
static RocxReadJob *rocx_resp_dup_job(RocxQp *qp, const RocxPkt *p)
{
    unsigned i;

    for (i = 0; i < qp->resp.rd_count; i++) {
        RocxReadJob *j = &qp->resp.rd[i];
        uint32_t n = (p->psn - j->first_psn) & ROCX_PSN_MASK;
        uint64_t off = (uint64_t)n * qp->mtu;

        if (j->atomic || n >= j->npkts ||
            rocx_psn_diff(rocx_psn_add(j->first_psn, j->npkts),
                          qp->resp.epsn) > 0) {
            continue;   /* not this one's, or held since before a wrap */
        }
        if (p->rkey != j->rkey || p->va != j->va0 + off ||
            p->dmalen != j->len - off) {
            return NULL;
        }
        return j;
    }
    return NULL;
}

/*
 * A READ we answered (or are answering): answer again from its PSN on.
 * Only a held READ is answered again; its responses go out before those
 * of later READs still queued, which stay queued.
 */
static void rocx_resp_dup_read(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    RocxReadJob *j = rocx_resp_dup_job(qp, p);
    uint8_t verr;

    if (!j) {
        /* Outside the responder resources, or not a repeat of ours. */
        rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
        return;
    }
    /* Checked as a new READ is: the QP's rights and the MR may be gone. */
    if (!rocx_resp_op_enabled(qp, p->opf)) {
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_INVALID, ROCX_VERR_NAK_INVALID,
                        false);
        return;
    }
    verr = p->dmalen ? rocx_resp_rkey(c, qp, j->pdn, p->rkey, p->va,
                                      p->dmalen, ROCX_ACCESS_REMOTE_READ,
                                      NULL) :
           ROCX_VERR_NONE;
    if (verr) {
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_ACCESS, verr, false);
        return;
    }
    /* Responses still due from an earlier PSN cover it already. */
    if (!j->busy || rocx_psn_diff(p->psn, j->psn) < 0) {
        rocx_resp_read_start(qp, j, p->psn, p->va, p->dmalen);
    }
    rocx_qp_schedule(c, qp);
}

void rocx_resp_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    int32_t d = rocx_psn_diff(p->psn, qp->resp.epsn);
    uint32_t opf = p->opf;
    bool seq_ok;

    if (d < 0) {
        /* A duplicate: the requester missed our answer. */
        c->rdma.stats.dup_requests++;
        rocx_count(c, ROCX_STAT_DUPLICATE_REQUEST, 1);
        if (opf & ROCX_OPF_READ) {
            rocx_resp_dup_read(c, qp, p);
        } else if (opf & ROCX_OPF_ATOMETH) {
            rocx_atomic_dup(c, qp, p);
        } else if (qp->resp.ack != ROCX_ACK_NAK) {
            rocx_resp_ack(c, qp, ROCX_ACK_ACK, ROCX_AETH_ACK,
                          rocx_psn_add(qp->resp.epsn, -1));
        }
        return;
    }
    if (d > 0) {
        /* A gap: NAK it once, then drop until the missing PSN comes. */
        rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
        rocx_count(c, ROCX_STAT_OUT_OF_SEQUENCE, 1);
        if (!qp->resp.nak_sent) {
            qp->resp.nak_sent = true;
            c->rdma.stats.naks_sent++;
            rocx_resp_ack(c, qp, ROCX_ACK_NAK,
                          ROCX_AETH_NAK | ROCX_AETH_NAK_PSN, qp->resp.epsn);
        }
        return;
    }
    qp->resp.nak_sent = false;

    /* Opcode sequence and packet lengths. */
    switch (qp->resp.op) {
    case ROCX_RESP_SEND:
        seq_ok = (opf & ROCX_OPF_SEND) && !(opf & ROCX_OPF_FIRST);
        break;
    case ROCX_RESP_WRITE:
        seq_ok = (opf & ROCX_OPF_WRITE) && !(opf & ROCX_OPF_FIRST);
        break;
    default:
        seq_ok = opf & ROCX_OPF_FIRST;
        break;
    }
    if (!seq_ok || p->paylen > qp->mtu ||
        ((opf & ROCX_OPF_PAYLOAD) && !(opf & ROCX_OPF_LAST) &&
         p->paylen != qp->mtu) || !rocx_resp_op_enabled(qp, opf)) {
        rocx_resp_fatal(c, qp, p, ROCX_AETH_NAK_INVALID, ROCX_VERR_NAK_INVALID,
                        false);
        return;
    }

    if (opf & ROCX_OPF_READ) {
        rocx_count(c, ROCX_STAT_RX_READ_REQUESTS, 1);
        rocx_resp_read(c, qp, p);
        return;
    }
    if (opf & ROCX_OPF_ATOMETH) {
        rocx_count(c, ROCX_STAT_RX_ATOMIC_REQUESTS, 1);
        rocx_atomic_rx(c, qp, p);
        return;
    }
    if ((opf & ROCX_OPF_WRITE) && (opf & ROCX_OPF_FIRST)) {
        rocx_count(c, ROCX_STAT_RX_WRITE_REQUESTS, 1);
    }
    if (opf & ROCX_OPF_SEND) {
        rocx_resp_send(c, qp, p);
    } else {
        rocx_resp_write(c, qp, p);
    }
    /* Not executed (RNR, error): the PSN is not consumed. */
    if (qp->state == ROCX_QPS_ERR || qp->resp.nak_sent) {
        return;
    }
    qp->resp.epsn = rocx_psn_add(p->psn, 1);
    qp->resp.since_ack++;
    if (opf & ROCX_OPF_LAST) {
        qp->resp.msn = (qp->resp.msn + 1) & ROCX_PSN_MASK;
    }
    if (p->ackreq || (opf & ROCX_OPF_LAST) ||
        qp->resp.since_ack >= ROCX_ACK_INTERVAL) {
        rocx_resp_ack(c, qp, ROCX_ACK_ACK, ROCX_AETH_ACK, p->psn);
    }
}

/*
 * Send one response packet of the oldest READ with responses due (a READ
 * asked for again goes before later ones, keeping PSN order).
 */
static void rocx_resp_read_pkt(RocxCore *c, RocxQp *qp)
{
    RocxReadJob *j = qp->resp.rd;
    uint32_t len;
    bool last;
    RocxTx tx = {
        .syndrome = ROCX_AETH_ACK | ROCX_AETH_CREDITS_NONE,
        .msn = qp->resp.msn,
    };
    RocxMr *mr;
    uint8_t verr;

    /* rd_busy says one is. */
    while (!j->busy && j + 1 < qp->resp.rd + qp->resp.rd_count) {
        j++;
    }
    if (j->atomic) {
        rocx_atomic_resp_pkt(c, qp, j);
        return;
    }
    len = MIN(j->left, qp->mtu);
    last = j->left <= qp->mtu;
    tx.psn = j->psn;
    tx.paylen = len;
    tx.opcode = j->first && last ? ROCX_OP_READ_RESP_ONLY :
                j->first ? ROCX_OP_READ_RESP_FIRST :
                last ? ROCX_OP_READ_RESP_LAST : ROCX_OP_READ_RESP_MIDDLE;
    if (len) {
        /* The MR may have gone since the request was checked. */
        verr = rocx_resp_rkey(c, qp, j->pdn, j->rkey, j->va, len,
                              ROCX_ACCESS_REMOTE_READ, &mr);
        if (verr || rocx_mr_rw(c, mr, j->va,
                               rocx_wire_buf(c, qp) +
                               rocx_wire_hdr_len(qp, tx.opcode),
                               len, false)) {
            RocxPkt p = { .psn = j->psn };

            rocx_resp_fatal(c, qp, &p, verr ? ROCX_AETH_NAK_ACCESS :
                            ROCX_AETH_NAK_OPERATION,
                            verr ? verr : ROCX_VERR_DMA, false);
            return;
        }
    }
    j->psn = rocx_psn_add(j->psn, 1);
    j->va += len;
    j->left -= len;
    j->first = false;
    if (last) {
        j->busy = false;
        j->answered = true;
        qp->resp.rd_busy--;
    }
    /* Last: a looped-back response may end this QP. */
    rocx_wire_send(c, qp, &tx);
}

static void rocx_resp_ack_pkt(RocxCore *c, RocxQp *qp)
{
    RocxTx tx = {
        .opcode = ROCX_OP_ACK,
        .psn = qp->resp.ack_psn,
        .syndrome = qp->resp.syndrome,
        .msn = qp->resp.msn,
    };

    if (qp->resp.ack == ROCX_ACK_ACK) {
        tx.syndrome = ROCX_AETH_ACK | ROCX_AETH_CREDITS_NONE;
    } else {
        rocx_trace_nak(c, qp->qpn, tx.psn, tx.syndrome, true);
    }
    qp->resp.ack = ROCX_ACK_NONE;
    qp->resp.since_ack = 0;
    rocx_wire_send(c, qp, &tx);
}

/*
 * The receive path writes a receive completion before the QP's turn on
 * the line sends the ACK for it, so a consumer may destroy the QP, or
 * move it to ERR or RESET (a disconnect), with that ACK still owed: the
 * peer would retry its last message into a QP that is gone and end in a
 * retry error, or flush it when it disconnects in turn.  Hardware
 * answers at once; the model sends what it owes before the QP stops.
 * Only a positive ACK, with no READ response pending (which it must not
 * overtake) and the priority not paused (a lossless priority holds its
 * frames); a NAK is moot for a QP that is going away.
 */
void rocx_resp_flush_ack(RocxCore *c, RocxQp *qp)
{
    if ((qp->state != ROCX_QPS_RTR && qp->state != ROCX_QPS_RTS) ||
        qp->resp.ack != ROCX_ACK_ACK || qp->resp.rd_busy ||
        (!qp->path.loopback && rocx_dcb_qp_paused(c, qp))) {
        return;
    }
    rocx_resp_ack_pkt(c, qp);
}

unsigned rocx_resp_run(RocxCore *c, RocxQp *qp, unsigned budget)
{
    unsigned sent = 0;

    if (qp->state == ROCX_QPS_ERR) {
        /* Only the final NAK of a QP that failed. */
        if (qp->resp.ack == ROCX_ACK_NAK) {
            rocx_resp_ack_pkt(c, qp);
            sent++;
        }
        return sent;
    }
    /* READ responses first: an ACK after them must not overtake them. */
    while (qp->resp.rd_busy && sent < budget &&
           qp->state != ROCX_QPS_ERR) {
        rocx_resp_read_pkt(c, qp);
        sent++;
    }
    if (!qp->resp.rd_busy && qp->resp.ack != ROCX_ACK_NONE &&
        sent < budget) {
        rocx_resp_ack_pkt(c, qp);
        sent++;
    }
    return sent;
}
