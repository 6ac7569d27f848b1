/*
 * rocx device model: completion queues.
 *
 * A CQ is a ring of 32-byte CQEs in guest pages (64-byte ones carrying
 * the device clock, for format 1 of contract 1.2), written by the engine
 * with the admin queue's phase rule and consumed by its owner, who
 * returns entries and arms the CQ through the CQ doorbell of its doorbell
 * page (the engine applies arm requests from a list of the CQs that
 * have one).  An armed CQ posts one COMPLETION event to its EQ and
 * disarms.  A
 * CQ that would overflow (or whose ring faults) stops for good: CQ_ERROR
 * goes to EQ 0 and every QP using it moves to ERR.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

#define ROCX_CQE_SIZE   sizeof(struct rocx_cqe)

QEMU_BUILD_BUG_ON(ROCX_CQE_SIZE != 32);
QEMU_BUILD_BUG_ON(sizeof(struct rocx_cqe64) != 64);

/* Bytes of one CQE of @format (which create_cq checked). */
static uint32_t rocx_cqe_size(uint8_t format)
{
    return format == ROCX_CQE_FORMAT_64 ? sizeof(struct rocx_cqe64)
                                        : ROCX_CQE_SIZE;
}

RocxCq *rocx_cq_get(RocxCore *c, uint32_t cqn)
{
    RocxCq *cq = &c->rdma.cq[rocx_num_slot(cqn)];

    /* By slot, then the whole number: a destroyed CQ's names nothing. */
    if (!cq->valid || cq->cqn != cqn) {
        return NULL;
    }
    return cq;
}

void rocx_cmd_create_cq(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res)
{
    const struct rocx_aq_create_cq *cc = (const void *)cmd;
    uint32_t uctx = ldl_le_p(&cc->uctx);
    uint16_t format = lduw_le_p(&cc->cqe_format);
    RocxPbl pbl;
    RocxCq *cq;
    uint32_t cqn;

    /* A format is one IDENTIFY.cqe_formats names (0 always is). */
    if (uctx >= ROCX_DB_PAGES || cc->log_depth < 1 ||
        (1u << MIN(cc->log_depth, 31)) > ROCX_CORE_MAX_CQE ||
        cc->eqn >= ROCX_CORE_MAX_EQ || format >= 32 ||
        !(ROCX_CORE_CQE_FORMATS & ROCX_BIT(format))) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if ((uctx && !c->uctx_used[uctx]) || !c->eq[cc->eqn].valid) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    res->status = rocx_pbl_copy(c, &cc->pbl,
                                (uint64_t)rocx_cqe_size(format) <<
                                cc->log_depth,
                                &pbl);
    if (res->status != ROCX_AQ_STS_OK) {
        return;
    }
    /* Only a CQ that is made takes a number. */
    if (!rocx_cqn_alloc(c, &cqn)) {
        rocx_pbl_free(c, &pbl);
        res->status = ROCX_AQ_STS_NO_RESOURCE;
        return;
    }
    cq = &c->rdma.cq[rocx_num_slot(cqn)];
    memset(cq, 0, sizeof(*cq));
    cq->pbl = pbl;
    cq->cqn = cqn;
    cq->valid = true;
    cq->log_depth = cc->log_depth;
    cq->format = format;
    cq->eqn = cc->eqn;
    cq->uctx = uctx;
    res->result = cqn;
}

void rocx_cmd_destroy_cq(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res)
{
    const struct rocx_aq_destroy_cq *dc = (const void *)cmd;
    uint32_t cqn = ldl_le_p(&dc->cqn);
    RocxCq *cq;

    if (cqn == 0 || cqn > ROCX_NUM_MASK) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    cq = rocx_cq_get(c, cqn);
    if (!cq) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    if (cq->users) {
        res->status = ROCX_AQ_STS_BAD_STATE;
        return;
    }
    rocx_pbl_free(c, &cq->pbl);
    memset(cq, 0, sizeof(*cq));
}

bool rocx_uctx_has_cq(RocxCore *c, uint16_t uctx)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_CQ_SLOTS; i++) {
        if (c->rdma.cq[i].valid && c->rdma.cq[i].uctx == uctx) {
            return true;
        }
    }
    return false;
}

/*
 * MMIO side: the CQ has an arm request for the engine.  Each CQ is in the
 * list at most once, so the list cannot fill.
 */
static void rocx_cq_arm_queue(RocxCore *c, uint32_t cqn)
{
    RocxRdma *r = &c->rdma;
    unsigned slot = rocx_num_slot(cqn);

    if (!r->arm_queued[slot]) {
        r->arm_queued[slot] = true;
        r->arm_list[(r->arm_head + r->arm_count) % ROCX_CORE_CQ_SLOTS] = slot;
        r->arm_count++;
    }
}

/* MMIO side: return entries, latch an arm request. */
void rocx_db_cq(RocxCore *c, unsigned page, uint32_t cqn, uint16_t idx,
                uint64_t val)
{
    RocxCq *cq = rocx_cq_get(c, cqn);
    uint16_t delta;

    if (!cq) {
        rocx_gerr(c, ROCX_GERR_DB_QUEUE, page,
                  "CQ doorbell: no CQ %" PRIu32, cqn);
        return;
    }
    if (cq->uctx != page) {
        rocx_gerr(c, ROCX_GERR_DB_OWNER, page,
                  "CQ doorbell: CQ %" PRIu32 " belongs to page %u",
                  cqn, cq->uctx);
        return;
    }
    /* As for EQs: forward only, up to what the device wrote. */
    delta = idx - (uint16_t)cq->ci;
    if (delta > cq->pi - cq->ci) {
        rocx_gerr(c, ROCX_GERR_DB_INDEX, page,
                  "CQ %" PRIu32 " doorbell: consumer %u beyond producer %u",
                  cqn, idx, (uint16_t)cq->pi);
        return;
    }
    rocx_count(c, ROCX_STAT_DOORBELLS, 1);
    cq->ci += delta;
    if (val & (ROCX_DB_ARM | ROCX_DB_ARM_SOLICITED)) {
        /* ARM asks for more than ARM_SOLICITED, so it wins. */
        cq->arm_req = (val & ROCX_DB_ARM) ? ROCX_CQ_ARM_ANY
                                          : ROCX_CQ_ARM_SOLICITED;
        rocx_cq_arm_queue(c, cqn);
        rocx_schedule(c);
    }
}

static void rocx_cq_event(RocxCore *c, RocxCq *cq)
{
    cq->armed = 0;
    rocx_eq_post(c, cq->eqn, ROCX_EQE_COMPLETION, cq->cqn, 0);
}

/* Whether an unconsumed CQE satisfies the arm request. */
static bool rocx_cq_pending_for(RocxCq *cq, uint8_t arm)
{
    if (cq->pi == cq->ci) {
        return false;
    }
    if (arm == ROCX_CQ_ARM_ANY) {
        return true;
    }
    return cq->sol_pi != cq->ci && cq->sol_pi - cq->ci <= cq->pi - cq->ci;
}

/*
 * Engine: apply the arm requests latched by CQ doorbells, in the order
 * they came, looking at those CQs only.  A CQ destroyed (or destroyed and
 * created again) since its request has none: arm_req starts at 0.
 */
void rocx_cq_arm_process(RocxCore *c)
{
    RocxRdma *r = &c->rdma;

    while (r->arm_count) {
        unsigned slot = r->arm_list[r->arm_head];
        RocxCq *cq = &r->cq[slot];
        uint8_t arm;

        r->arm_head = (r->arm_head + 1) % ROCX_CORE_CQ_SLOTS;
        r->arm_count--;
        r->arm_queued[slot] = false;
        r->stats.cq_arm_visits++;
        if (!cq->valid || !cq->arm_req) {
            continue;
        }
        arm = cq->arm_req;
        cq->arm_req = 0;
        if (cq->error) {
            continue;
        }
        /*
         * CQEs written after the consumer last looked would otherwise go
         * unnoticed: the consumer polled empty, then armed.
         */
        if (rocx_cq_pending_for(cq, arm)) {
            rocx_cq_event(c, cq);
        } else {
            cq->armed = arm;
        }
    }
}

/* The CQ stops for good; its QPs go to ERR. */
static void rocx_cq_fail(RocxCore *c, RocxCq *cq, uint32_t cqn)
{
    cq->error = true;
    cq->armed = 0;
    rocx_evq_push(c, ROCX_EQE_CQ_ERROR, cqn, 0);
    rocx_qp_error_cq(c, cqn);
}

bool rocx_cq_write(RocxCore *c, uint32_t cqn, const RocxCqeInfo *ci)
{
    RocxCq *cq = rocx_cq_get(c, cqn);
    struct rocx_cqe e;
    struct rocx_cqe64 e64;
    void *buf = &e;
    uint32_t depth, size = ROCX_CQE_SIZE;
    uint8_t phase;
    uint64_t off;

    if (!cq || cq->error) {
        return false;
    }
    depth = 1u << cq->log_depth;
    if (cq->pi - cq->ci >= depth) {
        /* The consumer's doing, but reported by CQ_ERROR, not a gerr. */
        rocx_cq_fail(c, cq, cqn);
        return false;
    }

    memset(&e, 0, sizeof(e));
    stl_le_p(&e.byte_len, ci->byte_len);
    memcpy(&e.imm_data, &ci->imm, sizeof(e.imm_data));
    stl_le_p(&e.qpn_op, ROCX_FIELD_PREP(ROCX_CQE_QPN_MASK, ci->qpn) |
             ROCX_FIELD_PREP(ROCX_CQE_OPCODE_MASK, ci->opcode));
    stl_le_p(&e.src_qp_status,
             ROCX_FIELD_PREP(ROCX_CQE_SRC_QP_MASK, ci->src_qp) |
             ROCX_FIELD_PREP(ROCX_CQE_STATUS_MASK, ci->status));
    stw_le_p(&e.wqe_idx, ci->wqe_idx);
    e.vendor_err = ci->vendor_err;
    stl_le_p(&e.ext, ci->ext);
    stw_le_p(&e.vlan, ROCX_VLAN_NONE);
    if (ci->flags & ROCX_CQE_GRH) {
        memcpy(e.smac, ci->smac, sizeof(e.smac));
        stw_le_p(&e.vlan, ci->vlan);
    }
    phase = rocx_ring_phase(cq->pi, cq->log_depth) ? ROCX_CQE_PHASE : 0;
    /*
     * The entry with the stale phase first, then its flags byte: a
     * consumer that sees the new phase sees the whole entry.
     */
    e.flags = (ci->flags & ~(ROCX_CQE_PHASE | ROCX_CQE_NET_TYPE_MASK)) |
              ((ci->flags & ROCX_CQE_GRH) ?
               ROCX_FIELD_PREP(ROCX_CQE_NET_TYPE_MASK, ci->net_type) : 0) |
              (phase ^ ROCX_CQE_PHASE);
    /* Format 1: the 1.1 entry and the clock as it is written. */
    if (cq->format == ROCX_CQE_FORMAT_64) {
        memset(&e64, 0, sizeof(e64));
        e64.cqe = e;
        stq_le_p(&e64.timestamp, rocx_clock_ns(c));
        buf = &e64;
        size = sizeof(e64);
    }
    off = (uint64_t)(cq->pi & (depth - 1)) * size;
    if (rocx_pbl_rw(c, &cq->pbl, off, buf, size, true)) {
        goto fault;
    }
    e.flags ^= ROCX_CQE_PHASE;
    if (rocx_pbl_rw(c, &cq->pbl, off + offsetof(struct rocx_cqe, flags),
                    &e.flags, 1, true)) {
        goto fault;
    }
    cq->pi++;
    if (ci->solicited || ci->status != ROCX_WC_SUCCESS) {
        cq->sol_pi = cq->pi;
    }
    if (cq->armed == ROCX_CQ_ARM_ANY ||
        (cq->armed == ROCX_CQ_ARM_SOLICITED &&
         (ci->solicited || ci->status != ROCX_WC_SUCCESS))) {
        rocx_cq_event(c, cq);
    }
    return true;

fault:
    rocx_gerr(c, ROCX_GERR_DMA, cqn,
              "CQ %" PRIu32 ": writing CQE %u failed", cqn, cq->pi);
    rocx_cq_fail(c, cq, cqn);
    return false;
}
