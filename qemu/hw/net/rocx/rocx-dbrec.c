/*
 * rocx device model: SQ doorbell records (rocx-device.rst, "Doorbell
 * records").
 *
 * A QP created with ROCX_QP_DB_RECORD has a record after its queues in
 * which the host writes its SQ producer index as well as, or instead of,
 * the SQ doorbell.  While an engine run is due for the QP anyway (it waits
 * for an ACK), the device sets POLL there and reads the index in every
 * run: the host then posts without a doorbell write, which in a virtual
 * machine is an exit and, under TCG, the global lock the engine holds
 * while it runs.  When the QP has nothing left to wait for, the device
 * clears POLL and reads the index once more, so that a post racing with
 * the change is taken either way.
 *
 * The QPs whose records the engine reads are on a list: a QP joins when
 * a doorbell finds it waiting for an ACK (it streams; a ping-pong's
 * doorbells find it idle and run the engine at once) and leaves when the
 * device gives up polling it.  Reads happen in rocx_core_process(),
 * before the QPs run (rocx_dbrec_poll()), and the POLL flag is settled
 * after they have sent (rocx_dbrec_settle()); the lazy timer bounds the
 * wait when no ACK brings a run.  A record is taken at once, doorbell
 * delay or not: the device sets POLL only without one.
 *
 * Copyright (c) 2026 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "rocx-int.h"

/* Byte offset of the record in the queue buffer: right after the queues. */
static uint64_t rocx_dbrec_off(const RocxQp *qp)
{
    return qp->sq_bytes +
           (qp->rq_log_depth ? 1ULL << (qp->rq_log_depth + qp->rq_wqe_shift)
                             : 0);
}

void rocx_core_set_db_records(RocxCore *c, bool on)
{
    c->db_records = on;
}

/*
 * Whether the device may leave the QP's posts to its own reads: an engine
 * run is due for it (an ACK or the retransmit timer), and nothing in the
 * run's setup wants each doorbell at its instant.
 */
static bool rocx_dbrec_may_poll(const RocxCore *c, const RocxQp *qp)
{
    return c->db_records && c->lazy_db && !rocx_timed(c) &&
           !c->delay.db_ns && qp->type != ROCX_QPT_UD &&
           qp->type != ROCX_QPT_UC && qp->state == ROCX_QPS_RTS &&
           qp->req.psn_una != qp->req.psn_next;
}

static void rocx_dbrec_leave(RocxCore *c, RocxQp *qp)
{
    QLIST_REMOVE(qp, dbrec_link);
    qp->dbrec_listed = false;
}

void rocx_dbrec_join(RocxCore *c, RocxQp *qp)
{
    if ((qp->flags & ROCX_QP_DB_RECORD) && !qp->dbrec_listed) {
        QLIST_INSERT_HEAD(&c->rdma.dbrec_qps, qp, dbrec_link);
        qp->dbrec_listed = true;
    }
}

void rocx_dbrec_qp_gone(RocxCore *c, RocxQp *qp)
{
    if (qp->dbrec_listed) {
        rocx_dbrec_leave(c, qp);
    }
}

/* Write the device's half of the record; false (reported) if it failed. */
static bool rocx_dbrec_set_poll(RocxCore *c, RocxQp *qp, bool poll)
{
    uint32_t v;

    stl_le_p(&v, poll ? ROCX_DB_RECORD_POLL : 0);
    if (rocx_pbl_rw(c, &qp->pbl,
                    rocx_dbrec_off(qp) +
                    offsetof(struct rocx_db_record, flags),
                    &v, sizeof(v), true)) {
        rocx_gerr(c, ROCX_GERR_DMA, qp->uctx,
                  "QP %" PRIu32 ": doorbell record not writable", qp->qpn);
        return false;
    }
    qp->dbrec_poll = poll;
    if (poll) {
        c->rdma.stats.dbrec_polls++;
    }
    return true;
}

/*
 * The device stops reading the record: POLL cleared first, so that the
 * host's next post rings (a record that cannot be written either has
 * been reported, and the WQE fetch from the same buffer fails next).
 */
static void rocx_dbrec_drop(RocxCore *c, RocxQp *qp)
{
    if (qp->dbrec_poll) {
        rocx_dbrec_set_poll(c, qp, false);
        qp->dbrec_poll = false;
    }
    if (qp->dbrec_listed) {
        rocx_dbrec_leave(c, qp);
    }
}

void rocx_dbrec_qp_reset(RocxCore *c, RocxQp *qp)
{
    /*
     * Its indices start again at 0 and the host resets sq_pi with its
     * own: nothing in the record is taken, and the next post rings.
     */
    rocx_dbrec_drop(c, qp);
}

/*
 * Take the producer index the host wrote: true if it moved.  A record
 * that cannot be read, or holds an index no doorbell could carry, is
 * reported and read no more (rocx_dbrec_drop(); the QP's next doorbell
 * brings it back).
 */
static bool rocx_dbrec_take(RocxCore *c, RocxQp *qp)
{
    uint32_t v;
    uint16_t pi;

    if (rocx_pbl_rw(c, &qp->pbl,
                    rocx_dbrec_off(qp) +
                    offsetof(struct rocx_db_record, sq_pi),
                    &v, sizeof(v), false)) {
        rocx_gerr(c, ROCX_GERR_DMA, qp->uctx,
                  "QP %" PRIu32 ": doorbell record not readable", qp->qpn);
        rocx_dbrec_drop(c, qp);
        return false;
    }
    pi = ldl_le_p(&v) & 0xffff;
    if (pi == qp->sq_db) {
        return false;
    }
    /* Checked as the SQ doorbell is (rocx_db_sq()). */
    if (!rocx_db_index_ok(pi, qp->sq_db, qp->req.ci, qp->sq_log_depth)) {
        rocx_gerr(c, ROCX_GERR_DB_INDEX, qp->uctx,
                  "QP %" PRIu32 " doorbell record: producer %u, was %u, "
                  "oldest %u, depth %u", qp->qpn, pi, qp->sq_db,
                  qp->req.ci, 1u << qp->sq_log_depth);
        rocx_dbrec_drop(c, qp);
        return false;
    }
    qp->sq_db = pi;
    rocx_qp_sq_take(c, qp, pi);
    rocx_count(c, ROCX_STAT_DB_RECORD_TAKES, 1);
    return true;
}

void rocx_dbrec_poll(RocxCore *c)
{
    RocxQp *qp, *next;

    QLIST_FOREACH_SAFE(qp, &c->rdma.dbrec_qps, dbrec_link, next) {
        if (qp->dbrec_poll) {
            rocx_dbrec_take(c, qp);
        }
    }
}

bool rocx_dbrec_settle(RocxCore *c)
{
    bool more = false, polling = false;
    RocxQp *qp, *next;

    QLIST_FOREACH_SAFE(qp, &c->rdma.dbrec_qps, dbrec_link, next) {
        if (rocx_dbrec_may_poll(c, qp)) {
            if (qp->dbrec_poll || rocx_dbrec_set_poll(c, qp, true)) {
                polling = true;
            } else {
                rocx_dbrec_leave(c, qp);
            }
            continue;
        }
        if (qp->dbrec_poll) {
            /*
             * The host stores sq_pi, fences, loads flags; the device
             * stores flags, fences, loads sq_pi: a post that saw POLL
             * is in what this read finds.
             */
            if (!rocx_dbrec_set_poll(c, qp, false)) {
                qp->dbrec_poll = false;
                rocx_dbrec_leave(c, qp);
                continue;
            }
            /* Pairs with the provider's fence in rocx_sq_record(). */
            smp_mb();
            if (rocx_dbrec_take(c, qp)) {
                /* Its run sends them; then it may poll again. */
                more = true;
                continue;
            }
        }
        if (qp->dbrec_listed) {
            rocx_dbrec_leave(c, qp);
        }
    }
    /* No ACK may come: the lazy bound reads the records meanwhile. */
    if (polling && !c->lazy_timer.pos) {
        rocx_timer_mod(c, &c->lazy_timer, ROCX_TIMER_LAZY,
                       rocx_now(c) + ROCX_CORE_LAZY_DB_NS);
    }
    return more;
}
