/*
 * rocx device model: the GSI QP (contract 1.2, ROCX_CAP2_GSI).
 *
 * The GSI QP is a UD QP in every respect but its number and Q_Key: it
 * is QP 1 in commands, doorbells, CQEs, events and on the wire, and its
 * Q_Key is 0x80010000.  It takes a table slot like any QP (the ready list
 * and the loops over QPs work by slot), under a number the slot never
 * answers to: rocx_qp_get() finds it by number 1 alone.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* CREATE_QP of type GSI: what the other types do not check. */
bool rocx_gsi_create_ok(RocxCore *c, const struct rocx_aq_create_qp *cq,
                        RocxAqResult *res)
{
    if (ldl_le_p(&cq->uctx) || (uint32_t)ldl_le_p(&cq->srqn) != ROCX_NO_SRQ ||
        (cq->flags & ROCX_QP_NO_MC_LOOPBACK)) {
        res->status = ROCX_AQ_STS_INVALID;
        return false;
    }
    if (c->rdma.gsi) {
        res->status = ROCX_AQ_STS_EXISTS;
        return false;
    }
    return true;
}

/* A new QP becomes the GSI QP: number 1, a UD QP with the GSI Q_Key. */
void rocx_gsi_adopt(RocxCore *c, RocxQp *qp)
{
    qp->qpn = ROCX_GSI_QPN;
    qp->type = ROCX_QPT_UD;
    qp->gsi = true;
    qp->qkey = ROCX_GSI_QKEY;
    c->rdma.gsi = qp;
}

/* MODIFY_QP: the GSI QP's Q_Key does not change. */
bool rocx_gsi_modify_ok(const RocxQp *qp, uint32_t valid,
                        const struct rocx_qp_attr *a)
{
    return !qp->gsi || !(valid & ROCX_QP_ATTR_QKEY) ||
           (uint32_t)ldl_le_p(&a->qkey) == ROCX_GSI_QKEY;
}

void rocx_gsi_gone(RocxCore *c, RocxQp *qp)
{
    if (c->rdma.gsi == qp) {
        c->rdma.gsi = NULL;
    }
}
