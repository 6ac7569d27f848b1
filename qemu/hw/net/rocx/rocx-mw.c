/*
 * rocx device model: memory windows (contract 1.2, ROCX_CAP2_MW).
 *
 * A window is a key of its own in the MRs' key space (indices from
 * ROCX_CORE_MW_KEY_BASE on) that, while bound, grants remote rights to a
 * range of one MR.  ALLOC_MW and DEALLOC_MW make and free windows; the
 * requester executes BIND_MW and LOCAL_INV work requests here, the
 * responder a SEND with invalidate.  Nothing caches a window: every
 * remote access goes through rocx_rkey_check(), so a window unbound by
 * any of those stops access at the very next packet.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

#define ROCX_MW_REMOTE  (ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ | \
                         ROCX_ACCESS_REMOTE_ATOMIC)

static bool rocx_mw_zero(const uint8_t *p, size_t len)
{
    while (len--) {
        if (*p++) {
            return false;
        }
    }
    return true;
}

/* The window at key's index, whatever its variant; NULL if none is. */
static RocxMw *rocx_mw_slot(RocxCore *c, uint32_t key)
{
    uint32_t idx = ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, key);

    if (idx < ROCX_CORE_MW_KEY_BASE ||
        idx - ROCX_CORE_MW_KEY_BASE >= ROCX_CORE_MAX_MW) {
        return NULL;
    }
    return &c->rdma.mw[idx - ROCX_CORE_MW_KEY_BASE];
}

static bool rocx_key_is_mw(uint32_t key)
{
    uint32_t idx = ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, key);

    return idx >= ROCX_CORE_MW_KEY_BASE;
}

/* The allocated window key names, variant included. */
static RocxMw *rocx_mw_lookup(RocxCore *c, uint32_t key)
{
    RocxMw *mw = rocx_mw_slot(c, key);

    if (!mw || !mw->valid ||
        mw->variant != ROCX_FIELD_GET(ROCX_KEY_VARIANT_MASK, key)) {
        return NULL;
    }
    return mw;
}

static uint32_t rocx_mw_key(RocxCore *c, const RocxMw *mw)
{
    return ROCX_FIELD_PREP(ROCX_KEY_INDEX_MASK,
                           ROCX_CORE_MW_KEY_BASE + (mw - c->rdma.mw)) |
           ROCX_FIELD_PREP(ROCX_KEY_VARIANT_MASK, mw->variant);
}

static void rocx_mw_unbind(RocxMw *mw)
{
    mw->bound = false;
    mw->qpn = 0;
    mw->mr_key = 0;
    mw->access = 0;
    mw->addr = 0;
    mw->length = 0;
}

/* ---- Admin commands ---- */

void rocx_cmd_alloc_mw(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res)
{
    const struct rocx_aq_alloc_mw *a = (const void *)cmd;
    uint32_t pdn = ldl_le_p(&a->pdn);
    unsigned i;

    if (pdn < 1 || pdn > ROCX_CORE_MAX_PD ||
        (a->type != ROCX_MW_TYPE_1 && a->type != ROCX_MW_TYPE_2) ||
        !rocx_mw_zero(a->rsvd1, sizeof(a->rsvd1))) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (!c->pd_owner[pdn - 1]) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    for (i = 0; i < ROCX_CORE_MAX_MW; i++) {
        RocxMw *mw = &c->rdma.mw[i];

        if (!mw->valid) {
            uint8_t variant = mw->variant + 1;

            memset(mw, 0, sizeof(*mw));
            mw->valid = true;
            /* A new variant: keys of earlier windows here go stale. */
            mw->variant = variant;
            mw->type = a->type;
            mw->pdn = pdn;
            res->result = rocx_mw_key(c, mw);
            return;
        }
    }
    res->status = ROCX_AQ_STS_NO_RESOURCE;
}

void rocx_cmd_dealloc_mw(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res)
{
    const struct rocx_aq_dealloc_mw *d = (const void *)cmd;
    RocxMw *mw = rocx_mw_slot(c, ldl_le_p(&d->key));

    if (!mw) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    /*
     * By index alone: binds gave the window variants the driver never
     * saw (the key ALLOC_MW returned is all it knows).
     */
    if (!mw->valid) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    rocx_mw_unbind(mw);
    mw->valid = false;
}

bool rocx_pd_has_mw(RocxCore *c, uint32_t pdn)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_MAX_MW; i++) {
        if (c->rdma.mw[i].valid && c->rdma.mw[i].pdn == pdn) {
            return true;
        }
    }
    return false;
}

static bool rocx_same_index(uint32_t a, uint32_t b)
{
    return ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, a) ==
           ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, b);
}

bool rocx_mr_has_mw(RocxCore *c, uint32_t key)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_MAX_MW; i++) {
        const RocxMw *mw = &c->rdma.mw[i];

        if (mw->valid && mw->bound && rocx_same_index(mw->mr_key, key)) {
            return true;
        }
    }
    return false;
}

void rocx_mw_mr_gone(RocxCore *c, uint32_t key)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_MAX_MW; i++) {
        RocxMw *mw = &c->rdma.mw[i];

        if (mw->valid && mw->bound && rocx_same_index(mw->mr_key, key)) {
            rocx_mw_unbind(mw);
        }
    }
}

void rocx_mw_qp_gone(RocxCore *c, uint32_t qpn)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_MAX_MW; i++) {
        RocxMw *mw = &c->rdma.mw[i];

        if (mw->valid && mw->bound && mw->type == ROCX_MW_TYPE_2 &&
            mw->qpn == qpn) {
            rocx_mw_unbind(mw);
        }
    }
}

/* ---- Remote access ---- */

uint8_t rocx_rkey_check(RocxCore *c, const RocxQp *qp, uint32_t rkey,
                        uint64_t va, uint64_t len, uint32_t access,
                        RocxMr **mrp)
{
    return rocx_rkey_check_pd(c, qp, qp->pdn, rkey, va, len, access, mrp);
}

uint8_t rocx_rkey_check_pd(RocxCore *c, const RocxQp *qp, uint32_t pdn,
                           uint32_t rkey, uint64_t va, uint64_t len,
                           uint32_t access, RocxMr **mrp)
{
    RocxMw *mw;

    if (!rocx_key_is_mw(rkey)) {
        /* The local DMA lkey is no rkey (rocx-fr.c). */
        if (rkey == ROCX_LOCAL_DMA_LKEY) {
            return ROCX_VERR_BAD_LKEY;
        }
        return rocx_mr_check(c, rkey, pdn, va, len, access, mrp);
    }
    mw = rocx_mw_lookup(c, rkey);
    if (!mw || !mw->bound || mw->pdn != pdn ||
        (mw->type == ROCX_MW_TYPE_2 && mw->qpn != qp->qpn)) {
        return ROCX_VERR_BAD_LKEY;
    }
    if ((mw->access & access) != access) {
        return ROCX_VERR_LKEY_ACCESS;
    }
    if (va < mw->addr || va - mw->addr > mw->length ||
        len > mw->length - (va - mw->addr)) {
        return ROCX_VERR_LKEY_BOUNDS;
    }
    /*
     * The rights are the window's; the MR only has to be there still and
     * hold the range (a deregistered MR unbinds its windows, and one with
     * windows bound cannot be re-registered).
     */
    return rocx_mr_check(c, mw->mr_key, mw->pdn, va, len, 0, mrp);
}

/* ---- Work requests ---- */

static uint8_t rocx_mw_bind(RocxCore *c, RocxQp *qp, const RocxSendWqe *w,
                            uint8_t *verr)
{
    RocxMw *mw = rocx_mw_slot(c, w->bind.mw_key);
    uint32_t access = w->bind.access & ROCX_MW_REMOTE;
    RocxMr *mr;

    *verr = ROCX_VERR_BAD_MW;
    /*
     * The window is named by its index; the variant is the new key's.
     * It must be allocated, of the QP's PD, and for type 2 free.
     */
    if (!mw || !mw->valid || mw->pdn != qp->pdn) {
        return ROCX_WC_MW_BIND_ERR;
    }
    if (mw->type == ROCX_MW_TYPE_2 && mw->bound) {
        *verr = ROCX_VERR_MW_STATE;
        return ROCX_WC_MW_BIND_ERR;
    }
    if (mw->type == ROCX_MW_TYPE_1 && !w->bind.length) {
        /* A zero-length bind of a type 1 window unbinds it. */
        rocx_mw_unbind(mw);
        mw->variant = ROCX_FIELD_GET(ROCX_KEY_VARIANT_MASK, w->bind.mw_key);
        *verr = ROCX_VERR_NONE;
        return ROCX_WC_SUCCESS;
    }
    mr = rocx_mr_lookup(c, w->bind.mr_key);
    if (!mr || mr->pdn != qp->pdn) {
        *verr = ROCX_VERR_BAD_LKEY;
        return ROCX_WC_MW_BIND_ERR;
    }
    /* IBTA: remote write or atomic rights need the MR's local write. */
    if (!(mr->access & ROCX_ACCESS_MW_BIND) ||
        ((access & (ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_ATOMIC)) &&
         !(mr->access & ROCX_ACCESS_LOCAL_WRITE))) {
        *verr = ROCX_VERR_MW_ACCESS;
        return ROCX_WC_MW_BIND_ERR;
    }
    if (w->bind.addr + w->bind.length < w->bind.addr ||
        w->bind.addr < mr->iova || w->bind.addr - mr->iova > mr->length ||
        w->bind.length > mr->length - (w->bind.addr - mr->iova)) {
        *verr = ROCX_VERR_MW_BOUNDS;
        return ROCX_WC_MW_BIND_ERR;
    }
    mw->bound = true;
    mw->variant = ROCX_FIELD_GET(ROCX_KEY_VARIANT_MASK, w->bind.mw_key);
    mw->qpn = mw->type == ROCX_MW_TYPE_2 ? qp->qpn : 0;
    mw->mr_key = w->bind.mr_key;
    mw->access = access;
    mw->addr = w->bind.addr;
    mw->length = w->bind.length;
    *verr = ROCX_VERR_NONE;
    return ROCX_WC_SUCCESS;
}

/*
 * LOCAL_INV of a window: a type 2 window of the QP's PD (IBTA: type 1
 * windows are invalidated by binding them again, never by a work
 * request).  A key in the MRs' part of the key space may name a
 * fast-register MR (rocx-fr.c).
 */
static uint8_t rocx_mw_local_inv(RocxCore *c, RocxQp *qp, uint32_t key,
                                 uint8_t *verr)
{
    RocxMw *mw = rocx_mw_lookup(c, key);

    if (!rocx_key_is_mw(key)) {
        return rocx_fr_local_inv(c, qp, key, verr);
    }
    *verr = ROCX_VERR_BAD_MW;
    if (!mw || mw->pdn != qp->pdn || mw->type != ROCX_MW_TYPE_2) {
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    rocx_mw_unbind(mw);
    *verr = ROCX_VERR_NONE;
    return ROCX_WC_SUCCESS;
}

uint8_t rocx_mw_local_op(RocxCore *c, RocxQp *qp, const RocxSendWqe *w,
                         uint8_t *verr)
{
    if (w->opcode == ROCX_WQE_BIND_MW) {
        return rocx_mw_bind(c, qp, w, verr);
    }
    if (w->opcode == ROCX_WQE_REG_MR) {
        return rocx_fr_reg(c, qp, w, verr);
    }
    return rocx_mw_local_inv(c, qp, ldl_be_p(&w->imm), verr);
}

uint8_t rocx_mw_remote_inv(RocxCore *c, const RocxQp *qp, uint32_t rkey)
{
    RocxMw *mw = rocx_mw_lookup(c, rkey);

    if (!rocx_key_is_mw(rkey)) {
        return rocx_fr_remote_inv(c, qp, rkey);
    }
    /* A type 2 window of this QP's PD, bound to this QP. */
    if (!mw || mw->type != ROCX_MW_TYPE_2 || mw->pdn != qp->pdn ||
        !mw->bound || mw->qpn != qp->qpn) {
        return ROCX_VERR_BAD_MW;
    }
    rocx_mw_unbind(mw);
    return ROCX_VERR_NONE;
}
