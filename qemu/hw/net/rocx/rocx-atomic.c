/*
 * rocx device model: atomics (CMP_SWAP and FETCH_ADD) on RC QPs.
 *
 * Requester: a CMP_SWAP or FETCH_ADD WQE names the remote 8 bytes and
 * one local 8-byte SGE for the value found there; it is sent as one
 * request packet with an AtomicETH and takes one of the peer's responder
 * resources, as a READ does (max_rd_atomic counts both).
 *
 * Responder: the target must be 8-byte aligned (NAK invalid request
 * otherwise) and reached through an R_Key with REMOTE_ATOMIC (remote
 * access error otherwise), on a QP whose access flags enable atomics
 * (rocx-resp.c: NAK invalid request otherwise).  The engine executes
 * requests one at a time, so an atomic is a read-modify-write of guest
 * memory that no other rocx request interleaves with; it is not atomic
 * against the guest's own CPUs, which is why the device advertises
 * ATOMIC_HCA and not more.  The value found is saved in the responder
 * resource (RocxReadJob) that carries the response, so a duplicate of the
 * request (the requester missed the response and retransmits) is
 * answered from it and never executed again; a duplicate older than the
 * resources held is dropped, as a READ's is.
 *
 * The 8 bytes are a little-endian value in guest memory, as every value
 * the device shares with its host; on the wire they are big-endian.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* The operand and result size of every atomic, and its alignment. */
#define ROCX_ATOMIC_LEN     8

/* ---- Requester ---- */

uint8_t rocx_atomic_fetch(RocxCore *c, RocxQp *qp, uint64_t off,
                          const struct rocx_send_wqe *hdr, RocxSendWqe *w,
                          uint8_t *verr)
{
    uint64_t compare_add = ldq_le_p(&hdr->atomic.compare_add);
    struct rocx_sge s;
    uint8_t err;

    *verr = ROCX_VERR_BAD_WQE;
    /* One SGE, after the header, for the value: never inline. */
    if ((w->flags & ROCX_WQE_INLINE) || w->num_sge != 1 ||
        ROCX_SEND_WQE_HDR + sizeof(s) > (1u << qp->sq_wqe_shift)) {
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    w->raddr = ldq_le_p(&hdr->atomic.remote_addr);
    w->rkey = ldl_le_p(&hdr->atomic.rkey);
    if (w->opcode == ROCX_WQE_COMP_SWAP) {
        w->compare = compare_add;
        w->swap_add = ldq_le_p(&hdr->atomic.swap);
    } else {
        w->swap_add = compare_add;
    }
    if (rocx_pbl_rw(c, &qp->pbl, off + ROCX_SEND_WQE_HDR, &s, sizeof(s),
                    false)) {
        *verr = ROCX_VERR_DMA;
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    w->sge[0].addr = ldq_le_p(&s.addr);
    w->sge[0].length = ldl_le_p(&s.length);
    w->sge[0].lkey = ldl_le_p(&s.lkey);
    if (w->sge[0].length != ROCX_ATOMIC_LEN) {
        *verr = ROCX_VERR_LKEY_BOUNDS;
        return ROCX_WC_LOC_LEN_ERR;
    }
    /* The device writes the value found there. */
    err = rocx_mr_check(c, w->sge[0].lkey, qp->pdn, w->sge[0].addr,
                        ROCX_ATOMIC_LEN, ROCX_ACCESS_LOCAL_WRITE, NULL);
    if (err) {
        *verr = err;
        return ROCX_WC_LOC_PROT_ERR;
    }
    w->length = ROCX_ATOMIC_LEN;
    *verr = ROCX_VERR_NONE;
    return ROCX_WC_SUCCESS;
}

void rocx_atomic_send(RocxCore *c, RocxQp *qp, uint32_t psn)
{
    const RocxSendWqe *w = &qp->req.wqe;
    RocxTx tx = {
        .opcode = w->opcode == ROCX_WQE_COMP_SWAP ? ROCX_OP_CMP_SWAP :
                  ROCX_OP_FETCH_ADD,
        .psn = psn,
        /* Its answer is the ATOMIC_ACKNOWLEDGE: always asked for. */
        .ackreq = true,
        .va = w->raddr,
        .rkey = w->rkey,
        .swap_add = w->swap_add,
        .compare = w->compare,
    };

    rocx_wire_send(c, qp, &tx);
}

/* ---- Completer ---- */

uint8_t rocx_atomic_comp(RocxCore *c, RocxQp *qp, const RocxPkt *p,
                         uint8_t *verr)
{
    RocxSendWqe *w = &qp->req.rd_wqe;
    uint8_t val[ROCX_ATOMIC_LEN];

    /* The WQE stays in the SQ until completed: fetch (and check) it. */
    if (!qp->req.rd_cached || w->idx != qp->req.ci) {
        qp->req.rd_cached = rocx_req_fetch(c, qp, qp->req.ci, w, verr) ==
                            ROCX_WC_SUCCESS;
        if (!qp->req.rd_cached || !rocx_wqe_op_atomic(w->opcode)) {
            /* The consumer changed a WQE it had handed over. */
            *verr = ROCX_VERR_BAD_WQE;
            return ROCX_WC_LOC_QP_OP_ERR;
        }
    }
    stq_le_p(val, p->orig);
    *verr = rocx_sge_rw(c, w->sge, 1, qp->pdn, ROCX_ACCESS_LOCAL_WRITE, 0,
                        val, sizeof(val), true);
    return *verr ? ROCX_WC_LOC_PROT_ERR : ROCX_WC_SUCCESS;
}

/* ---- Responder ---- */

void rocx_atomic_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    uint8_t val[ROCX_ATOMIC_LEN];
    uint64_t orig, res;
    RocxReadJob *j;
    RocxMr *mr;
    uint8_t verr;

    if (p->va & (ROCX_ATOMIC_LEN - 1)) {
        rocx_resp_nak_fatal(c, qp, p, ROCX_AETH_NAK_INVALID,
                            ROCX_VERR_NAK_INVALID);
        return;
    }
    verr = rocx_rkey_check(c, qp, p->rkey, p->va, ROCX_ATOMIC_LEN,
                           ROCX_ACCESS_REMOTE_ATOMIC, &mr);
    if (verr) {
        rocx_resp_nak_fatal(c, qp, p, ROCX_AETH_NAK_ACCESS, verr);
        return;
    }
    /* Beyond max_dest_rd_atomic READs and atomics: refused, as a READ. */
    j = rocx_resp_job_new(qp, p->psn);
    if (!j) {
        rocx_resp_nak_fatal(c, qp, p, ROCX_AETH_NAK_INVALID,
                            ROCX_VERR_NAK_INVALID);
        return;
    }
    j->atomic = true;
    j->op = p->opcode;
    j->npkts = 1;
    j->va0 = p->va;
    j->rkey = p->rkey;
    j->len = ROCX_ATOMIC_LEN;

    /* Read, modify, write: nothing else runs in the engine meanwhile. */
    if (rocx_mr_rw(c, mr, p->va, val, sizeof(val), false)) {
        goto dma_error;
    }
    orig = ldq_le_p(val);
    if (p->opcode == ROCX_OP_CMP_SWAP) {
        res = orig == p->compare ? p->swap_add : orig;
    } else {
        res = orig + p->swap_add;   /* modulo 2^64, as IB says */
    }
    /* A compare that misses leaves memory untouched. */
    if (res != orig || p->opcode == ROCX_OP_FETCH_ADD) {
        stq_le_p(val, res);
        if (rocx_mr_rw(c, mr, p->va, val, sizeof(val), true)) {
            goto dma_error;
        }
    }
    j->orig = orig;
    j->busy = true;
    qp->resp.rd_busy++;
    qp->resp.epsn = rocx_psn_add(p->psn, 1);
    qp->resp.msn = (qp->resp.msn + 1) & ROCX_PSN_MASK;
    rocx_qp_schedule(c, qp);
    return;

dma_error:
    rocx_resp_nak_fatal(c, qp, p, ROCX_AETH_NAK_OPERATION, ROCX_VERR_DMA);
}

void rocx_atomic_dup(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    unsigned i;

    for (i = 0; i < qp->resp.rd_count; i++) {
        RocxReadJob *j = &qp->resp.rd[i];

        /* Held since before a PSN wrap: not this one. */
        if (!j->atomic || j->first_psn != p->psn ||
            rocx_psn_diff(rocx_psn_add(j->first_psn, 1),
                          qp->resp.epsn) > 0) {
            continue;
        }
        /* A request that is not the one executed gets no answer. */
        if (j->op != p->opcode || j->va0 != p->va || j->rkey != p->rkey) {
            break;
        }
        if (!j->busy) {
            j->busy = true;
            qp->resp.rd_busy++;
        }
        rocx_qp_schedule(c, qp);
        return;
    }
    /* Outside the responder resources, or not a repeat of ours. */
    rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
}

void rocx_atomic_resp_pkt(RocxCore *c, RocxQp *qp, RocxReadJob *j)
{
    RocxTx tx = {
        .opcode = ROCX_OP_ATOMIC_ACK,
        .psn = j->first_psn,
        .syndrome = ROCX_AETH_ACK | ROCX_AETH_CREDITS_NONE,
        .msn = qp->resp.msn,
        .orig = j->orig,
    };

    j->busy = false;
    j->answered = true;
    qp->resp.rd_busy--;
    /* Last: a looped-back response may end this QP. */
    rocx_wire_send(c, qp, &tx);
}
