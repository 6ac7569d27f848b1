/*
 * rocx device model: UC queue pairs.
 *
 * Unreliable connected: SEND and RDMA WRITE (with immediate) between two
 * QPs, cut into packets by the path MTU as RC does, but nothing is
 * acknowledged and nothing sent again.  The requester completes a WQE
 * once its last packet is out.  The responder takes packets in PSN
 * order; a gap, a packet that does not continue the message in progress
 * and anything the requester got wrong drop the message, and every packet
 * until the next FIRST or ONLY, silently: the requester never learns of
 * it.  Only a fault of the receiver's own receive WQE ends the QP.
 *
 * WQE fetch and segmentation are the requester's (rocx-req.c), receive
 * WQEs and their completions the responder's (rocx-resp.c), R_Key checks
 * (an MR's or a memory window's) rocx-mw.c's, data movement rocx-mr.c's;
 * this file holds what UC does otherwise.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- Requester ---- */

unsigned rocx_uc_req_run(RocxCore *c, RocxQp *qp, unsigned budget)
{
    unsigned sent = 0;

    /*
     * Nothing waits for the peer: psn_una follows the send position, so
     * the window never closes and rocx_req_ready() only asks for WQEs.
     * One WQE is in flight at a time (ci == cur while it is sent), and
     * no READ ever is (rocx_req_fetch() refuses them, and atomics, on
     * UC).
     */
    while (sent < budget && rocx_req_ready(c, qp)) {
        RocxSqSlot *s;
        uint32_t n;
        uint8_t err;

        if (qp->req.cur == qp->req.next) {
            RocxReqStart st = rocx_req_start(c, qp);

            if (st == ROCX_REQ_WAIT) {
                break;
            }
            /* A local WQE: work without a packet (rocx_req_run()). */
            if (st == ROCX_REQ_LOCAL) {
                sent++;
                continue;
            }
        }
        s = &qp->req.slot[qp->req.cur % ROCX_REQ_MAX_WQES];
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
            /* An MR went away under the message. */
            rocx_comp_error(c, qp, ROCX_WC_LOC_PROT_ERR, err);
            break;
        }
        sent++;
        qp->req.cur_psn = rocx_psn_add(qp->req.cur_psn, 1);
        qp->req.psn_next = qp->req.psn_una = qp->req.cur_psn;
        if (n + 1 >= s->npkts) {
            /* Sent is done: no ACK will come. */
            qp->req.cur++;
            rocx_comp_oldest(c, qp, ROCX_WC_SUCCESS, ROCX_VERR_NONE);
        }
        /* A looped-back packet may have ended the QP meanwhile. */
        if (qp->state != ROCX_QPS_RTS) {
            break;
        }
    }
    return sent;
}

/* ---- Responder ---- */

/*
 * Drop packet p, and with it the message in progress and every packet
 * up to the next FIRST or ONLY.  A SEND's receive WQE stays for the next
 * message, which fills it from its start.
 */
static void rocx_uc_drop(RocxCore *c, RocxQp *qp)
{
    rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
    qp->resp.op = ROCX_RESP_IDLE;
    qp->resp.uc_drop = true;
    qp->resp.recv_off = 0;
}

/*
 * A fault of the receive WQE itself (too short, a bad local key, not
 * readable): complete it with status, and the QP goes to ERR.  The CQE
 * tells the consumer; the requester is not told.
 */
static void rocx_uc_recv_fail(RocxCore *c, RocxQp *qp, const RocxPkt *p,
                              uint8_t status, uint8_t verr)
{
    rocx_resp_recv_done(c, qp, status, verr, ROCX_CQE_OP_RECV, 0, p);
    rocx_qp_error(c, qp, false, verr);
}

/*
 * A receive WQE for the message of p, at hand in resp.rwqe; false if p
 * was dropped or the QP failed.
 */
static bool rocx_uc_need_recv(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    uint8_t status, verr;

    if (qp->resp.rwqe_valid) {
        return true;
    }
    /* No receive posted: UC has no RNR NAK, the message is lost. */
    if (!qp->rq_log_depth || qp->resp.rq_ci == qp->rq_pi) {
        rocx_uc_drop(c, qp);
        return false;
    }
    status = rocx_resp_fetch(c, qp, &verr);
    if (status != ROCX_WC_SUCCESS) {
        rocx_uc_recv_fail(c, qp, p, status, verr);
        return false;
    }
    qp->resp.recv_off = 0;
    return true;
}

/* A SEND packet in sequence; false if it was not taken. */
static bool rocx_uc_send(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    uint8_t verr;

    if (!rocx_uc_need_recv(c, qp, p)) {
        return false;
    }
    if (p->opf & ROCX_OPF_FIRST) {
        qp->resp.recv_off = 0;
    }
    if (qp->resp.recv_off + p->paylen > qp->resp.rwqe.length) {
        rocx_uc_recv_fail(c, qp, p, ROCX_WC_LOC_LEN_ERR,
                          ROCX_VERR_RQ_OVERFLOW);
        return false;
    }
    if (p->paylen) {
        verr = rocx_sge_rw(c, qp->resp.rwqe.sge, qp->resp.rwqe.num_sge,
                           qp->pdn, ROCX_ACCESS_LOCAL_WRITE,
                           qp->resp.recv_off, (void *)p->payload, p->paylen,
                           true);
        if (verr) {
            rocx_uc_recv_fail(c, qp, p, ROCX_WC_LOC_PROT_ERR, verr);
            return false;
        }
    }
    qp->resp.recv_off += p->paylen;
    qp->resp.op = ROCX_RESP_SEND;
    if (p->opf & ROCX_OPF_LAST) {
        rocx_resp_recv_done(c, qp, ROCX_WC_SUCCESS, ROCX_VERR_NONE,
                            ROCX_CQE_OP_RECV, qp->resp.recv_off, p);
        qp->resp.op = ROCX_RESP_IDLE;
    }
    return true;
}

/* An RDMA WRITE packet in sequence; false if it was not taken. */
static bool rocx_uc_write(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    RocxMr *mr;

    if (p->opf & ROCX_OPF_FIRST) {
        /*
         * Not enabled on this QP, or a failing R_Key (a zero-length
         * WRITE checks none): the requester's error, which UC does not
         * report (IBTA's class E; issue 7 item 15).
         */
        if (!(qp->access & ROCX_ACCESS_REMOTE_WRITE) ||
            (p->dmalen && rocx_rkey_check(c, qp, p->rkey, p->va,
                                          p->dmalen, ROCX_ACCESS_REMOTE_WRITE,
                                          NULL))) {
            rocx_uc_drop(c, qp);
            return false;
        }
        qp->resp.wr_va = p->va;
        qp->resp.wr_rkey = p->rkey;
        qp->resp.wr_left = p->dmalen;
        qp->resp.wr_total = p->dmalen;
    }
    /* The message must be exactly as long as its RETH said. */
    if (p->paylen > qp->resp.wr_left ||
        ((p->opf & ROCX_OPF_LAST) && p->paylen != qp->resp.wr_left)) {
        rocx_uc_drop(c, qp);
        return false;
    }
    /* With immediate data it consumes a receive: check before writing. */
    if ((p->opf & ROCX_OPF_IMM) && !rocx_uc_need_recv(c, qp, p)) {
        return false;
    }
    if (p->paylen) {
        /* Looked up per packet: the MR may be gone since the first. */
        if (rocx_rkey_check(c, qp, qp->resp.wr_rkey, qp->resp.wr_va,
                            p->paylen, ROCX_ACCESS_REMOTE_WRITE, &mr)) {
            rocx_uc_drop(c, qp);
            return false;
        }
        if (rocx_mr_rw(c, mr, qp->resp.wr_va, (void *)p->payload, p->paylen,
                       true)) {
            /* The device cannot reach guest memory: nothing will work. */
            rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
            rocx_qp_error(c, qp, true, ROCX_VERR_DMA);
            return false;
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
    return true;
}

void rocx_uc_resp_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    uint32_t opf = p->opf;
    bool taken;

    /*
     * Out of sequence, or dropping: only a FIRST or ONLY starts again,
     * whatever its PSN (nothing is sent twice on UC, so nothing before
     * it will come).  A FIRST in sequence also ends a message left
     * unfinished.
     */
    if (opf & ROCX_OPF_FIRST) {
        qp->resp.op = ROCX_RESP_IDLE;
        qp->resp.uc_drop = false;
    } else if (qp->resp.uc_drop || p->psn != qp->resp.epsn ||
               qp->resp.op != ((opf & ROCX_OPF_SEND) ? ROCX_RESP_SEND :
                                                       ROCX_RESP_WRITE)) {
        rocx_uc_drop(c, qp);
        return;
    }
    /* Every packet but the last of a message carries exactly the MTU. */
    if (p->paylen > qp->mtu ||
        (!(opf & ROCX_OPF_LAST) && p->paylen != qp->mtu)) {
        rocx_uc_drop(c, qp);
        return;
    }

    taken = (opf & ROCX_OPF_SEND) ? rocx_uc_send(c, qp, p) :
            rocx_uc_write(c, qp, p);
    if (!taken) {
        return;
    }
    qp->resp.epsn = rocx_psn_add(p->psn, 1);
    if (opf & ROCX_OPF_LAST) {
        qp->resp.msn = (qp->resp.msn + 1) & ROCX_PSN_MASK;
    }
}
