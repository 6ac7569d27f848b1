/*
 * rocx device model: the NIC's delays (Documentation/rocx-device.rst,
 * "NIC delays").
 *
 * A real NIC takes time between a decision and the wire, and congestion
 * control feels it: the queue a CNP is meant to drain keeps growing for
 * as long as the CNP takes to be generated.  The transmit and receive
 * pipeline delays move the timed channel's stamps and arrivals
 * (rocx-chan.c); the notification point's delay holds each CNP in a line
 * until it is due, and the doorbell delay each SQ doorbell, here.
 *
 * Copyright (c) 2026 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

const char *rocx_core_set_delays(RocxCore *c, const RocxDelays *d)
{
    if (d->tx_ns > ROCX_DELAY_MAX_NS || d->rx_ns > ROCX_DELAY_MAX_NS ||
        d->cnp_ns > ROCX_DELAY_MAX_NS || d->db_ns > ROCX_DELAY_MAX_NS) {
        return "a delay above 100000 ns";
    }
    /* Only the timed channel carries stamps a pipeline could move. */
    if ((d->tx_ns || d->rx_ns) && !c->chan.timed) {
        return "tx-delay and rx-delay need timed=on";
    }
    c->delay = *d;
    return NULL;
}

void rocx_delay_cnp(RocxCore *c, RocxQp *qp, int64_t now)
{
    RocxCnpLine *l = &c->cnp_line;
    uint32_t i;

    if (l->count == ROCX_DELAY_CNP_SLOTS) {
        /* As a NIC's full notification queue does: CNPs are unreliable. */
        c->rdma.stats.cnp_delay_full++;
        return;
    }
    i = (l->head + l->count++) % ROCX_DELAY_CNP_SLOTS;
    l->slot[i].qpn = qp->qpn;
    l->slot[i].due = now + c->delay.cnp_ns;
    if (l->count == 1) {
        rocx_timer_mod(c, &l->timer, ROCX_TIMER_CNP, l->slot[i].due);
    }
}

void rocx_delay_cnp_timer(RocxCore *c, int64_t now)
{
    RocxCnpLine *l = &c->cnp_line;

    while (l->count) {
        RocxQp *qp;

        if (l->slot[l->head].due > now) {
            rocx_timer_mod(c, &l->timer, ROCX_TIMER_CNP,
                           l->slot[l->head].due);
            return;
        }
        /*
         * By number: a QP destroyed meanwhile is not found, and one that
         * can no longer receive has no flow left to slow down.
         */
        qp = rocx_qp_get(c, l->slot[l->head].qpn);
        l->head = (l->head + 1) % ROCX_DELAY_CNP_SLOTS;
        l->count--;
        if (qp && qp->state != ROCX_QPS_RESET && qp->state != ROCX_QPS_ERR) {
            rocx_cc_send_cnp(c, qp);
        }
    }
}

/* The engine takes the oldest doorbell in the line. */
static void rocx_delay_db_pop(RocxCore *c)
{
    RocxDbLine *l = &c->db_line;
    uint32_t h = l->head;
    RocxQp *qp;

    l->head = (h + 1) % ROCX_DELAY_DB_SLOTS;
    l->count--;
    /*
     * By number and generation: a doorbell of a QP destroyed or reset
     * since it was written has no WQEs left to fetch.
     */
    qp = rocx_qp_get(c, l->slot[h].qpn);
    if (qp && qp->sq_db_gen == l->slot[h].gen) {
        rocx_db_sq_take(c, qp, l->slot[h].idx);
    }
}

void rocx_delay_db(RocxCore *c, RocxQp *qp, uint16_t idx, int64_t now)
{
    RocxDbLine *l = &c->db_line;
    uint32_t i;

    if (l->count == ROCX_DELAY_DB_SLOTS) {
        /*
         * Unlike a CNP a doorbell must not be lost, or its QP would
         * stall: the oldest goes to the engine early to make room.
         */
        c->rdma.stats.db_delay_full++;
        rocx_delay_db_pop(c);
    }
    i = (l->head + l->count++) % ROCX_DELAY_DB_SLOTS;
    l->slot[i].qpn = qp->qpn;
    l->slot[i].gen = qp->sq_db_gen;
    l->slot[i].idx = idx;
    l->slot[i].due = now + c->delay.db_ns;
    /* Otherwise the timer is set for an older one, and re-arms then. */
    if (l->count == 1) {
        rocx_timer_mod(c, &l->timer, ROCX_TIMER_DB, l->slot[i].due);
    }
}

void rocx_delay_db_timer(RocxCore *c, int64_t now)
{
    RocxDbLine *l = &c->db_line;

    while (l->count) {
        if (l->slot[l->head].due > now) {
            rocx_timer_mod(c, &l->timer, ROCX_TIMER_DB,
                           l->slot[l->head].due);
            return;
        }
        rocx_delay_db_pop(c);
    }
}
