/*
 * rocx device model core: the services every other file uses.
 *
 * Time (one heap of every deadline and one host wake-up for it); reports
 * (guest errors, which are counted, logged and posted, the FIFO of
 * asynchronous events for EQ 0, interrupts with INTR_CTRL's mask and
 * pending bit); and the ready list, on which a block puts a QP with work
 * or a changed deadline for the engine (rocx-engine.c, rocx-rdma.c) to
 * run.  These call no file above them.
 *
 * Implements Documentation/rocx-device.rst against the ops in
 * rocx-core.h; the device's blocks each have a file of their own (the
 * list is at the top of rocx-int.h).  The guest is treated as hostile
 * throughout: every register value, index, length, address and opcode it
 * supplies is checked, and a mistake is counted, reported and ignored;
 * nothing in the model may abort, loop without bound or overrun a buffer
 * because of what the guest wrote.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- Names for traces ---- */

const char *rocx_core_qp_state_name(unsigned state)
{
    static const char *const names[] = {
        [ROCX_QPS_RESET] = "RESET",
        [ROCX_QPS_INIT] = "INIT",
        [ROCX_QPS_RTR] = "RTR",
        [ROCX_QPS_RTS] = "RTS",
        [ROCX_QPS_SQD] = "SQD",
        [ROCX_QPS_SQE] = "SQE",
        [ROCX_QPS_ERR] = "ERR",
    };

    return state < ARRAY_SIZE(names) && names[state] ? names[state] : "?";
}

const char *rocx_core_retx_name(unsigned why)
{
    static const char *const names[] = {
        [ROCX_RETX_TIMEOUT] = "timeout",
        [ROCX_RETX_NAK] = "nak",
        [ROCX_RETX_IMPLIED] = "implied-nak",
        [ROCX_RETX_RNR] = "rnr",
    };

    return why < ARRAY_SIZE(names) && names[why] ? names[why] : "?";
}

/* ---- Time ---- */

/*
 * One min-heap of every deadline in the device, and one host wake-up for
 * its root: setting, moving or dropping a deadline is O(log n), and a
 * wake-up costs the deadlines that are due, however many objects wait.
 */

int64_t rocx_now(RocxCore *c)
{
    return c->ops->now_ns(c->opaque);
}

static void rocx_heap_put(RocxTimers *tm, unsigned i, RocxTimer *t)
{
    tm->heap[i] = t;
    t->pos = i + 1;
}

static void rocx_heap_up(RocxTimers *tm, unsigned i)
{
    RocxTimer *t = tm->heap[i];

    while (i) {
        unsigned parent = (i - 1) / 2;

        if (tm->heap[parent]->deadline <= t->deadline) {
            break;
        }
        rocx_heap_put(tm, i, tm->heap[parent]);
        i = parent;
    }
    rocx_heap_put(tm, i, t);
}

static void rocx_heap_down(RocxTimers *tm, unsigned i)
{
    RocxTimer *t = tm->heap[i];

    for (;;) {
        unsigned child = 2 * i + 1;

        if (child >= tm->count) {
            break;
        }
        if (child + 1 < tm->count &&
            tm->heap[child + 1]->deadline < tm->heap[child]->deadline) {
            child++;
        }
        if (t->deadline <= tm->heap[child]->deadline) {
            break;
        }
        rocx_heap_put(tm, i, tm->heap[child]);
        i = child;
    }
    rocx_heap_put(tm, i, t);
}

/* The host's wake-up follows the heap's root. */
void rocx_timer_host(RocxCore *c)
{
    RocxTimers *tm = &c->timers;
    int64_t d;

    /* Due already: the engine run that handles it sets the next. */
    if (tm->due) {
        return;
    }
    if (!tm->count) {
        if (tm->host_armed) {
            tm->host_armed = false;
            c->ops->timer_cancel(c->opaque);
        }
        return;
    }
    /*
     * Only an earlier deadline moves the wake-up: one set for an earlier
     * instant fires, finds nothing due and sets the next (the engine run
     * ends here), which is cheaper than following a QP's ACK timeout,
     * moved on by every ACK.
     */
    d = tm->heap[0]->deadline;
    if (!tm->host_armed || d < tm->host_deadline) {
        tm->host_armed = true;
        tm->host_deadline = d;
        c->ops->timer_mod(c->opaque, d);
    }
}

void rocx_timer_mod(RocxCore *c, RocxTimer *t, uint8_t kind,
                    int64_t deadline)
{
    RocxTimers *tm = &c->timers;
    int64_t old = t->deadline;

    t->kind = kind;
    t->deadline = deadline;
    if (!t->pos) {
        /* One RocxTimer per waiting object: the heap never fills. */
        if (tm->count == ROCX_CORE_MAX_TIMERS) {
            return;
        }
        rocx_heap_put(tm, tm->count++, t);
        rocx_heap_up(tm, tm->count - 1);
    } else if (deadline < old) {
        rocx_heap_up(tm, t->pos - 1);
    } else {
        rocx_heap_down(tm, t->pos - 1);
    }
    rocx_timer_host(c);
}

void rocx_timer_del(RocxCore *c, RocxTimer *t)
{
    RocxTimers *tm = &c->timers;
    unsigned i;

    if (!t->pos) {
        return;
    }
    i = t->pos - 1;
    t->pos = 0;
    if (i != --tm->count) {
        /* The last entry fills the hole and moves whichever way it must. */
        RocxTimer *last = tm->heap[tm->count];

        rocx_heap_put(tm, i, last);
        rocx_heap_up(tm, i);
        rocx_heap_down(tm, last->pos - 1);
    }
    rocx_timer_host(c);
}

/*
 * Only marks the work: what expired runs in rocx_core_process(), where
 * the retransmissions' DMA is guarded against re-entry.
 */
void rocx_core_timer(RocxCore *c)
{
    c->timers.host_armed = false;
    c->timers.due = true;
    rocx_schedule(c);
}

void rocx_timers_clear(RocxCore *c)
{
    RocxTimers *tm = &c->timers;

    while (tm->count) {
        tm->heap[--tm->count]->pos = 0;
    }
    tm->due = false;
    if (tm->host_armed && c->ops) {
        c->ops->timer_cancel(c->opaque);
    }
    tm->host_armed = false;
}

/* ---- Asynchronous events, guest errors, interrupts ---- */

bool rocx_evq_push(RocxCore *c, uint16_t type, uint32_t data, uint64_t info)
{
    RocxEvent *ev;

    /* Async events go to EQ 0 only; without it there is nobody to tell. */
    if (!c->eq[0].valid) {
        return false;
    }
    if (c->evq_count == ROCX_CORE_EVQ_LEN) {
        /* Sized for one per object: a port event flood.  EQ 0 says so. */
        rocx_count(c, ROCX_STAT_EQ_OVERFLOWS, 1);
        c->eq[0].lost++;
        return false;
    }
    ev = &c->evq[(c->evq_head + c->evq_count) % ROCX_CORE_EVQ_LEN];
    ev->type = type;
    ev->data = data;
    ev->info = info;
    c->evq_count++;
    rocx_schedule(c);
    return true;
}

/*
 * Count and report a guest error.  post_event is false for errors raised
 * while writing EQ 0 itself: reporting those through EQ 0 could feed back
 * into the same error forever.
 */
static void G_GNUC_PRINTF(5, 0)
rocx_gerr_va(RocxCore *c, bool post_event, unsigned code, unsigned info,
             const char *fmt, va_list ap)
{
    /* Stopped on purpose (rocx_core_set_bus_master()): nobody's mistake. */
    if (code == ROCX_GERR_DMA && c->dma_off) {
        return;
    }
    c->regs.guest_err_count++;
    c->regs.last_guest_err = ROCX_FIELD_PREP(ROCX_LAST_ERR_CODE_MASK, code) |
                             ROCX_FIELD_PREP(ROCX_LAST_ERR_INFO_MASK, info);
    rocx_count(c, ROCX_STAT_GUEST_ERRORS, 1);
    c->ops->guest_error(c->opaque, code, info & 0xffff, fmt, ap);

    /* A flood of errors is one pending event carrying the latest error. */
    if (post_event && !c->evq_gerr_queued) {
        c->evq_gerr_queued = rocx_evq_push(c, ROCX_EQE_GUEST_ERROR, 0, 0);
    }
}

void rocx_gerr(RocxCore *c, unsigned code, unsigned info, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rocx_gerr_va(c, true, code, info, fmt, ap);
    va_end(ap);
}

void G_GNUC_PRINTF(4, 5)
rocx_gerr_quiet(RocxCore *c, unsigned code, unsigned info,
                const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rocx_gerr_va(c, false, code, info, fmt, ap);
    va_end(ap);
}

/* Signal vector v unless its INTR_CTRL masks it; then latch PENDING. */
void rocx_signal(RocxCore *c, unsigned v)
{
    if (v >= ROCX_MSIX_VECTORS) {
        return;     /* every vector is range-checked where it is set */
    }
    if (c->regs.intr_ctrl[v] & ROCX_INTR_MASK) {
        c->regs.intr_ctrl[v] |= ROCX_INTR_PENDING;
        return;
    }
    rocx_count(c, ROCX_STAT_INTERRUPTS, 1);
    c->ops->raise_irq(c->opaque, v);
}

uint32_t rocx_rd_intr(RocxCore *c, unsigned off)
{
    return c->regs.intr_ctrl[(off - ROCX_REG_INTR_CTRL(0)) / 4];
}

void rocx_wr_intr(RocxCore *c, unsigned off, uint32_t val)
{
    unsigned v = (off - ROCX_REG_INTR_CTRL(0)) / 4;
    uint32_t *r = &c->regs.intr_ctrl[v];

    /* PENDING is read-only; writing back what was read is harmless. */
    if (val & ~(ROCX_INTR_MASK | ROCX_INTR_PENDING)) {
        rocx_gerr(c, ROCX_GERR_REG_VALUE, off,
                  "INTR_CTRL(%u): reserved bits in 0x%" PRIx32, v, val);
        return;
    }
    if (val & ROCX_INTR_MASK) {
        *r |= ROCX_INTR_MASK;
        return;
    }
    *r &= ~ROCX_INTR_MASK;
    if (*r & ROCX_INTR_PENDING) {
        *r &= ~ROCX_INTR_PENDING;
        rocx_signal(c, v);
    }
}

/* ---- Ready list: QPs with work, and their deadlines ---- */

void rocx_qp_schedule(RocxCore *c, RocxQp *qp)
{
    RocxRdma *r = &c->rdma;
    unsigned slot = rocx_qp_slot(qp);

    if (!r->queued[slot]) {
        /* Each slot is queued at most once, so the FIFO cannot fill. */
        r->queued[slot] = true;
        r->sched[(r->sched_head + r->sched_count) % ROCX_CORE_QP_SLOTS] = slot;
        r->sched_count++;
    }
    rocx_schedule(c);
}

/* The earlier of a QP's deadlines (ACK timeout, RNR wait); 0: none. */
static int64_t rocx_qp_deadline(const RocxQp *qp)
{
    int64_t d = 0;

    if (qp->state != ROCX_QPS_RTS) {
        return 0;
    }
    if (qp->req.deadline) {
        d = qp->req.deadline;
    }
    if (qp->req.rnr_wait && (!d || qp->req.rnr_deadline < d)) {
        d = qp->req.rnr_deadline;
    }
    return d;
}

void rocx_timer_note(RocxCore *c, RocxQp *qp)
{
    int64_t d = rocx_qp_deadline(qp);

    if (d) {
        rocx_timer_mod(c, &qp->timer, ROCX_TIMER_QP, d);
    } else {
        rocx_timer_del(c, &qp->timer);
    }
}
