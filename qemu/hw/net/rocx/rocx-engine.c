/*
 * rocx device model: the engine, the top of the model.
 *
 * What the glue calls to run the device (rocx-core.h): init, reset and
 * fini, link state, and rocx_core_process(), the engine's run, which
 * gives every block its turn (admin queue, receive, the expired deadlines
 * of the timer heap, the QPs with work, the transmit scheduler, events)
 * and sends the open fabric bundle at its end.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- Link ---- */

/* Re-evaluate LINK_STATUS.UP; every change is counted and posted. */
void rocx_link_update(RocxCore *c)
{
    uint32_t st = rocx_core_link_status(c);
    bool up = st & ROCX_LINK_UP;

    if (up == c->port.link_up) {
        return;
    }
    c->port.link_up = up;
    rocx_count(c, ROCX_STAT_LINK_CHANGES, 1);
    rocx_evq_push(c, ROCX_EQE_LINK_CHANGE, st, 0);
    /* Bundles are agreed per link-up: the peer may be another one now. */
    rocx_fabric_flush(c);
    rocx_fabric_hello_stop(c);
    c->fabric.tx_ok = false;
    c->fabric.hellos = 0;
    c->fabric.hello_due = up && c->bundles;
    if (c->fabric.hello_due) {
        rocx_schedule(c);
    }
    /* Frames waiting for a buffer are dropped now that the link is down. */
    if (!up) {
        rocx_rx_hold_drop(c, true);
    }
}

void rocx_core_link_changed(RocxCore *c)
{
    rocx_link_update(c);
}

/* ---- Fabric channel: the entry points that may change the carrier ---- */

RocxChanResult rocx_core_chan_receive(RocxCore *c, const uint8_t *buf,
                                      size_t len)
{
    RocxChanResult r = rocx_chan_receive(c, buf, len);

    /* A HELLO_ACK, a BYE or an error may have moved the carrier. */
    rocx_link_update(c);
    return r;
}

void rocx_core_chan_closed(RocxCore *c, const char *why)
{
    rocx_chan_closed(c, why);
    rocx_link_update(c);
}

bool rocx_core_chan_carrier(RocxCore *c)
{
    return rocx_chan_up(c);
}

/* ---- Timer run ---- */

bool rocx_timers_run(RocxCore *c)
{
    RocxTimers *tm = &c->timers;
    unsigned budget = ROCX_CORE_TIMER_BUDGET;
    int64_t now;

    if (!tm->due) {
        return false;
    }
    tm->due = false;
    c->rdma.stats.timer_runs++;
    now = rocx_now(c);
    while (tm->count && tm->heap[0]->deadline <= now) {
        RocxTimer *t = tm->heap[0];

        if (!budget--) {
            /* A hostile peer cannot hold the main loop: go on next call. */
            tm->due = true;
            return true;
        }
        c->rdma.stats.timer_visits++;
        rocx_timer_del(c, t);
        switch (t->kind) {
        case ROCX_TIMER_QP:
            rocx_qp_timer(c, container_of(t, RocxQp, timer), now);
            break;
        case ROCX_TIMER_FABRIC:
            /* rocx_fabric_hello(), at the end of this run, sends it. */
            break;
        case ROCX_TIMER_DCB:
            rocx_dcb_timer(c, t, now);
            break;
        case ROCX_TIMER_CC:
            rocx_cc_timer(c, container_of(t, RocxQp, cc.timer), now);
            break;
        case ROCX_TIMER_SCHED:
        case ROCX_TIMER_PACE:
            rocx_sched_timer(c, t);
            break;
        case ROCX_TIMER_CHAN:
            rocx_chan_timer(c, now);
            break;
        case ROCX_TIMER_CNP:
            rocx_delay_cnp_timer(c, now);
            break;
        case ROCX_TIMER_DB:
            rocx_db_line_timer(c, now);
            break;
        case ROCX_TIMER_LAZY:
            /* The QPs the deferred doorbells scheduled run in this call. */
            c->rdma.stats.lazy_expiries++;
            break;
        }
    }
    rocx_timer_host(c);
    return false;
}

/* ---- Reset ---- */

void rocx_reset_state(RocxCore *c)
{
    bool was_up = c->port.link_up;
    RocxNumSpace qpns = c->rdma.qpns, cqns = c->rdma.cqns;
    RocxNumSpace srqns = c->rdma.srqns;

    /* RDMA objects own heap memory and deadlines: release them first. */
    rocx_rdma_reset(c);
    rocx_timers_clear(c);
    rocx_rx_hold_drop(c, false);
    memset(&c->regs, 0, sizeof(*c) - offsetof(RocxCore, regs));
    /* Numbers go on where they were: the peers may still use the old. */
    c->rdma.qpns = qpns;
    c->rdma.cqns = cqns;
    c->rdma.srqns = srqns;
    rocx_clock_reset(c);
    c->port.mtu = ROCX_CORE_DEFAULT_MTU;
    memcpy(c->port.mac, c->perm_mac, sizeof(c->port.mac));
    rocx_dcb_reset(c);
    rocx_cc_reset(c);
    /* Frames on their way over the channel still arrive, link down or not. */
    rocx_chan_reset(c);
    /* Admin state is down, so the link is down; EQ 0 is gone. */
    if (was_up) {
        rocx_count(c, ROCX_STAT_LINK_CHANGES, 1);
    }
}

void rocx_core_reset(RocxCore *c)
{
    memset(c->stats, 0, sizeof(c->stats));
    rocx_reset_state(c);
}

void rocx_core_fini(RocxCore *c)
{
    rocx_rdma_reset(c);
    rocx_timers_clear(c);
    rocx_chan_fini(c);
}

void rocx_core_set_direct_doorbells(RocxCore *c, bool on)
{
    c->direct_db = on;
}

void rocx_core_set_lazy_doorbells(RocxCore *c, bool on)
{
    c->lazy_db = on;
}

void rocx_core_set_sink(RocxCore *c, bool on)
{
    c->sink = on;
}

bool rocx_core_set_req_limits(RocxCore *c, uint32_t window, uint32_t wqes)
{
    if (window < ROCX_REQ_MIN_WINDOW || window > ROCX_REQ_MAX_WINDOW ||
        wqes < 1 || wqes > ROCX_REQ_MAX_WQES) {
        return false;
    }
    c->req_window = window;
    c->req_max_wqes = wqes;
    return true;
}

void rocx_core_set_bus_master(RocxCore *c, bool on)
{
    c->dma_off = !on;
}

void rocx_core_init(RocxCore *c, const RocxCoreOps *ops, void *opaque,
                    const uint8_t mac[6], uint32_t speed_mbps)
{
    memset(c, 0, sizeof(*c));
    c->ops = ops;
    c->opaque = opaque;
    memcpy(c->perm_mac, mac, sizeof(c->perm_mac));
    c->speed_mbps = speed_mbps;
    c->req_window = ROCX_REQ_WINDOW;
    c->req_max_wqes = ROCX_REQ_WQES;
    rocx_num_init(c);
    rocx_core_reset(c);
}

/* ---- Engine entry point ---- */

void rocx_core_process(RocxCore *c)
{
    bool more = false;

    /* Frames sent from here on may share a bundle, flushed below. */
    c->in_engine = true;
    c->resched = false;
    rocx_selftest_dma(c);
    more |= rocx_aq_process(c);
    more |= rocx_rx_drain(c);
    rocx_cq_arm_process(c);
    more |= rocx_timers_run(c);
    rocx_dbrec_poll(c);
    more |= rocx_rdma_process(c);
    /* Ethernet TX rings and the QPs rocx_rdma_process() handed over. */
    more |= rocx_sched_run(c);
    more |= rocx_dbrec_settle(c);
    more |= rocx_evq_drain(c);
    rocx_eq_arm(c);
    rocx_fabric_hello(c);
    rocx_fabric_flush(c);
    c->in_engine = false;

    /* Frames refused while the engine ran (rocx_core_receive()). */
    if (c->rx_deferred) {
        c->rx_deferred = false;
        c->ops->rx_resume(c->opaque);
    }
    /* Work asked for while the engine ran (rocx_schedule()) or left over. */
    if (more || c->resched) {
        c->ops->schedule_work(c->opaque);
    }
}
