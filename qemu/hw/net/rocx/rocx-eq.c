/*
 * rocx device model: event queues.
 *
 * An EQ is a ring in guest memory that the device writes events to, with
 * a phase bit; it signals its MSI-X vector once per arm.  EQ 0 takes the
 * asynchronous events (link changes, CQ and QP errors, guest errors),
 * which either side queues in a FIFO with room for one event per object
 * (ROCX_CORE_EVQ_LEN, rocx_evq_push() in rocx-core.c) that the engine
 * drains into it here.  An EQ counts the events it loses and reports them
 * with an EQ_OVERFLOW entry (contract 1.2).
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- Event queues ---- */

/* Write one entry to a valid EQ with room; false if its ring faulted. */
static bool rocx_eq_write(RocxCore *c, unsigned eqn, uint16_t type,
                          uint32_t data, uint64_t info)
{
    RocxEq *eq = &c->eq[eqn];
    uint32_t depth = 1u << eq->log_depth;
    struct rocx_eqe e;
    uint64_t addr;

    memset(&e, 0, sizeof(e));
    stw_le_p(&e.type, type);
    e.flags = rocx_ring_phase(eq->pi, eq->log_depth) ? ROCX_EQE_PHASE : 0;
    stl_le_p(&e.data, data);
    stq_le_p(&e.info, info);
    addr = eq->base + (uint64_t)(eq->pi & (depth - 1)) * sizeof(e);
    if (rocx_dma_write(c, addr, &e, sizeof(e))) {
        /* Stop writing to a ring the guest took away; destroy clears it. */
        eq->broken = true;
        if (eqn == 0) {
            rocx_gerr_quiet(c, ROCX_GERR_DMA, eqn,
                            "EQ %u: DMA write to 0x%" PRIx64 " failed",
                            eqn, addr);
        } else {
            rocx_gerr(c, ROCX_GERR_DMA, eqn,
                      "EQ %u: DMA write to 0x%" PRIx64 " failed", eqn, addr);
        }
        return false;
    }
    eq->pi++;
    if (eq->armed) {
        eq->armed = false;
        rocx_signal(c, eq->vector);
    }
    return true;
}

static bool rocx_eq_full(const RocxEq *eq)
{
    return eq->pi - eq->ci >= (1u << eq->log_depth);
}

/*
 * Events were lost: the next entry there is room for says how many, so
 * that every entry after a loss comes after the EQ_OVERFLOW counting it.
 * False if the marker could not be written (the ring is full or faulted).
 */
static bool rocx_eq_report_lost(RocxCore *c, unsigned eqn)
{
    RocxEq *eq = &c->eq[eqn];

    if (!eq->lost) {
        return true;
    }
    if (rocx_eq_full(eq) ||
        !rocx_eq_write(c, eqn, ROCX_EQE_EQ_OVERFLOW, eqn, eq->lost)) {
        return false;
    }
    eq->lost = 0;
    return true;
}

void rocx_eq_post(RocxCore *c, unsigned eqn, uint16_t type, uint32_t data,
                  uint64_t info)
{
    RocxEq *eq = &c->eq[eqn];

    if (!eq->valid) {
        return;
    }
    if (eq->broken) {
        /* Its DMA failure was reported already; the event is lost. */
        rocx_count(c, ROCX_STAT_EQ_OVERFLOWS, 1);
        return;
    }
    if (!rocx_eq_report_lost(c, eqn) && eq->broken) {
        rocx_count(c, ROCX_STAT_EQ_OVERFLOWS, 1);
        return;
    }
    if (rocx_eq_full(eq)) {
        rocx_count(c, ROCX_STAT_EQ_OVERFLOWS, 1);
        eq->lost++;
        /* EQ_OVERFLOW tells the driver; EQ 0's own via EQ 0 could loop. */
        if (eqn == 0) {
            rocx_gerr_quiet(c, ROCX_GERR_EQ_OVERFLOW, eqn,
                            "EQ %u full, event %u lost", eqn, type);
        } else {
            rocx_gerr(c, ROCX_GERR_EQ_OVERFLOW, eqn,
                      "EQ %u full, event %u lost", eqn, type);
        }
        return;
    }
    rocx_eq_write(c, eqn, type, data, info);
}

/*
 * Apply ARM requests latched by EQ doorbells; report lost events as soon
 * as the consumer has made room, not only when the next event comes.
 */
void rocx_eq_arm(RocxCore *c)
{
    unsigned i;

    for (i = 0; i < ROCX_CORE_MAX_EQ; i++) {
        RocxEq *eq = &c->eq[i];

        if (!eq->valid) {
            continue;
        }
        if (eq->lost && !eq->broken) {
            rocx_eq_report_lost(c, i);
        }
        if (!eq->arm_req) {
            continue;
        }
        eq->arm_req = false;
        /* Events the driver has not consumed yet: tell it at once. */
        if (eq->pi != eq->ci) {
            eq->armed = false;
            rocx_signal(c, eq->vector);
        } else {
            eq->armed = true;
        }
    }
}

/* Write the events queued for EQ 0; returns true if some remain. */
bool rocx_evq_drain(RocxCore *c)
{
    unsigned n = c->evq_count;

    while (n-- && c->evq_count) {
        RocxEvent ev = c->evq[c->evq_head];
        bool last_wqe = false;

        c->evq_head = (c->evq_head + 1) % ROCX_CORE_EVQ_LEN;
        c->evq_count--;
        if (ev.type == ROCX_EQE_GUEST_ERROR) {
            /* Carries the latest error, however many were coalesced. */
            c->evq_gerr_queued = false;
            ev.data = c->regs.last_guest_err;
        } else if (ev.type == ROCX_EQE_QP_ERROR) {
            RocxQp *qp = rocx_qp_get(c, ev.data);

            if (qp) {
                qp->evq_pending = false;
                last_wqe = qp->evq_last_follows;
                qp->evq_last_follows = false;
            }
        } else if (ev.type == ROCX_EQE_QP_LAST_WQE) {
            RocxQp *qp = rocx_qp_get(c, ev.data);

            if (qp) {
                qp->evq_last_pending = false;
            }
        }
        rocx_eq_post(c, 0, ev.type, ev.data, ev.info);
        if (last_wqe) {
            rocx_eq_post(c, 0, ROCX_EQE_QP_LAST_WQE, ev.data, 0);
        }
    }
    return c->evq_count != 0;
}

void rocx_db_eq(RocxCore *c, unsigned page, uint32_t qid, uint16_t idx,
                bool arm)
{
    RocxEq *eq = qid < ROCX_CORE_MAX_EQ ? &c->eq[qid] : NULL;
    uint16_t delta;

    if (!eq || !eq->valid) {
        rocx_gerr(c, ROCX_GERR_DB_QUEUE, page,
                  "EQ doorbell: no EQ %" PRIu32, qid);
        return;
    }
    /*
     * The consumer may only move forward, up to what the device wrote.
     * Indices are 16 bits, so one doorbell returns at most 65535 entries.
     */
    delta = idx - (uint16_t)eq->ci;
    if (delta > eq->pi - eq->ci) {
        rocx_gerr(c, ROCX_GERR_DB_INDEX, page,
                  "EQ %" PRIu32 " doorbell: consumer %u beyond producer %u",
                  qid, idx, (uint16_t)eq->pi);
        return;
    }
    rocx_count(c, ROCX_STAT_DOORBELLS, 1);
    eq->ci += delta;
    if (arm) {
        eq->arm_req = true;
    }
    /* The engine writes the overflow report now that there is room. */
    if (arm || (eq->lost && delta)) {
        rocx_schedule(c);
    }
}

void rocx_cmd_create_eq(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res)
{
    const struct rocx_aq_create_eq *ce = &cmd->create_eq;
    uint16_t eqn = lduw_le_p(&ce->eqn);
    uint64_t base = ldq_le_p(&ce->base);
    RocxEq *eq;

    if (eqn >= ROCX_CORE_MAX_EQ ||
        ce->log_depth < ROCX_EQ_MIN_LOG_DEPTH ||
        ce->log_depth > ROCX_EQ_MAX_LOG_DEPTH ||
        ce->vector >= ROCX_MSIX_VECTORS ||
        (base & (sizeof(struct rocx_eqe) - 1))) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    eq = &c->eq[eqn];
    if (eq->valid) {
        res->status = ROCX_AQ_STS_EXISTS;
        return;
    }
    memset(eq, 0, sizeof(*eq));
    eq->valid = true;
    eq->base = base;
    eq->log_depth = ce->log_depth;
    eq->vector = ce->vector;
    /* A new EQ is armed: its first event interrupts. */
    eq->armed = true;
}

void rocx_cmd_destroy_eq(RocxCore *c, const union rocx_aq_cmd *cmd,
                         RocxAqResult *res)
{
    uint16_t eqn = lduw_le_p(&cmd->destroy_eq.eqn);

    if (eqn >= ROCX_CORE_MAX_EQ) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (!c->eq[eqn].valid) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    memset(&c->eq[eqn], 0, sizeof(c->eq[eqn]));
    if (eqn == 0) {
        unsigned i;

        /* Queued async events had nowhere else to go. */
        c->evq_count = 0;
        c->evq_gerr_queued = false;
        for (i = 0; i < ROCX_CORE_QP_SLOTS; i++) {
            if (c->rdma.qp[i]) {
                c->rdma.qp[i]->evq_pending = false;
                c->rdma.qp[i]->evq_last_pending = false;
                c->rdma.qp[i]->evq_last_follows = false;
            }
        }
    }
}
