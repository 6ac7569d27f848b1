/*
 * rocx device model: moving a live CQ or SRQ ring to a new one (contract
 * 1.2, ROCX_CAP2_CQ_RESIZE and ROCX_CAP2_SRQ_RESIZE).
 *
 * Both commands copy what is live in the old ring into the new one at the
 * same free-running indexes and then switch over, so the owner's indexes
 * carry over and it prepares nothing.  The engine writes CQEs and takes
 * SRQ entries on the same thread that runs admin commands, so nothing
 * reaches either ring while it moves; a command that fails (a page list
 * that faults part way) leaves the old ring in use and unchanged, since
 * only the new one is written.  rocx-device.rst, "Resizing CQs and SRQs",
 * has the rules.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

static bool rocx_zero(const uint8_t *p, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (p[i]) {
            return false;
        }
    }
    return true;
}

/* The phase bit the device writes for index @idx of a 2^@log ring. */
static uint8_t rocx_resize_phase(uint32_t idx, uint8_t log)
{
    return rocx_ring_phase(idx, log) ? ROCX_CQE_PHASE : 0;
}

/*
 * Fill the new ring: [ci, pi) from the old one with their phase in the
 * new ring, the rest with the phase that says "not written yet" for the
 * next index each slot takes.  false on a DMA fault.
 */
static bool rocx_cq_move(RocxCore *c, RocxCq *cq, const RocxPbl *to,
                         uint8_t log)
{
    uint32_t size = cq->format == ROCX_CQE_FORMAT_64 ?
                    sizeof(struct rocx_cqe64) : sizeof(struct rocx_cqe);
    uint32_t old_mask = (1u << cq->log_depth) - 1;
    uint32_t mask = (1u << log) - 1;
    uint32_t live = cq->pi - cq->ci;
    uint8_t e[sizeof(struct rocx_cqe64)];
    uint8_t *flags = &e[offsetof(struct rocx_cqe, flags)];
    uint32_t n, idx;

    for (n = 0; n <= mask; n++) {
        idx = cq->ci + n;
        if (n < live) {
            if (rocx_pbl_rw(c, &cq->pbl, (uint64_t)(idx & old_mask) * size,
                            e, size, false)) {
                return false;
            }
            *flags = (*flags & ~ROCX_CQE_PHASE) | rocx_resize_phase(idx, log);
        } else {
            memset(e, 0, size);
            *flags = rocx_resize_phase(idx, log) ^ ROCX_CQE_PHASE;
        }
        if (rocx_pbl_rw(c, to, (uint64_t)(idx & mask) * size, e, size,
                        true)) {
            return false;
        }
    }
    return true;
}

void rocx_cmd_resize_cq(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res)
{
    const struct rocx_aq_resize_cq *rc = (const void *)cmd;
    uint32_t cqn = ldl_le_p(&rc->cqn);
    uint32_t size;
    RocxPbl pbl;
    RocxCq *cq;

    if (!(ROCX_CORE_CAPS2 & ROCX_CAP2_CQ_RESIZE)) {
        res->status = ROCX_AQ_STS_UNSUPPORTED;
        return;
    }
    if (rc->log_depth < 1 || (1u << MIN(rc->log_depth, 31)) >
        ROCX_CORE_MAX_CQE || !rocx_zero(rc->rsvd0, sizeof(rc->rsvd0)) ||
        !rocx_zero(rc->rsvd1, sizeof(rc->rsvd1))) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    cq = rocx_cq_get(c, cqn);
    if (!cq) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    if (cq->error) {
        res->status = ROCX_AQ_STS_BAD_STATE;
        return;
    }
    /* The owner returns what it polled first (the CQ doorbell). */
    if (cq->pi - cq->ci > (1u << rc->log_depth)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    size = cq->format == ROCX_CQE_FORMAT_64 ? sizeof(struct rocx_cqe64) :
                                              sizeof(struct rocx_cqe);
    res->status = rocx_pbl_copy(c, &rc->pbl, (uint64_t)size << rc->log_depth,
                                &pbl);
    if (res->status != ROCX_AQ_STS_OK) {
        return;
    }
    if (!rocx_cq_move(c, cq, &pbl, rc->log_depth)) {
        rocx_gerr(c, ROCX_GERR_DMA, cqn,
                  "RESIZE_CQ %" PRIu32 ": the rings are not accessible", cqn);
        rocx_pbl_free(c, &pbl);
        res->status = ROCX_AQ_STS_DMA_ERROR;
        return;
    }
    rocx_pbl_free(c, &cq->pbl);
    cq->pbl = pbl;
    cq->log_depth = rc->log_depth;
}

/* Copy the entries posted and not taken, [ci, pi), to the new ring. */
static bool rocx_srq_move(RocxCore *c, RocxSrq *srq, const RocxPbl *to,
                          uint8_t log)
{
    uint32_t size = 1u << srq->wqe_shift;
    uint16_t old_mask = (1u << srq->log_depth) - 1;
    uint16_t mask = (1u << log) - 1;
    uint8_t e[1u << ROCX_CORE_SRQ_MAX_WQE_SHIFT];
    uint16_t idx;

    for (idx = srq->ci; idx != srq->pi; idx++) {
        if (rocx_pbl_rw(c, &srq->pbl, (uint64_t)(idx & old_mask) * size,
                        e, size, false) ||
            rocx_pbl_rw(c, to, (uint64_t)(idx & mask) * size, e, size,
                        true)) {
            return false;
        }
    }
    return true;
}

uint8_t rocx_srq_resize(RocxCore *c, RocxSrq *srq, uint32_t srqn,
                        const struct rocx_aq_modify_srq *m)
{
    uint8_t log = m->log_depth;
    RocxPbl pbl;
    uint8_t sts;

    if (!(ROCX_CORE_CAPS2 & ROCX_CAP2_SRQ_RESIZE) ||
        log < ROCX_SRQ_MIN_LOG_DEPTH || log > ROCX_SRQ_MAX_LOG_DEPTH ||
        (1u << log) > ROCX_CORE_MAX_SRQ_WR) {
        return ROCX_AQ_STS_INVALID;
    }
    if (srq->error) {
        return ROCX_AQ_STS_BAD_STATE;
    }
    if ((uint16_t)(srq->pi - srq->ci) > (1u << log)) {
        return ROCX_AQ_STS_INVALID;
    }
    sts = rocx_pbl_copy(c, &m->pbl, 1ULL << (log + srq->wqe_shift), &pbl);
    if (sts != ROCX_AQ_STS_OK) {
        return sts;
    }
    if (!rocx_srq_move(c, srq, &pbl, log)) {
        rocx_gerr(c, ROCX_GERR_DMA, srqn & 0xffff,
                  "MODIFY_SRQ %" PRIu32 ": the rings are not accessible",
                  srqn);
        rocx_pbl_free(c, &pbl);
        return ROCX_AQ_STS_DMA_ERROR;
    }
    rocx_pbl_free(c, &srq->pbl);
    srq->pbl = pbl;
    srq->log_depth = log;
    return ROCX_AQ_STS_OK;
}
