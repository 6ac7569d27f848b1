/*
 * rocx device model: the NIC's delays (Documentation/rocx-device.rst,
 * "NIC delays").
 *
 * A real NIC takes time between a decision and the wire, and congestion
 * control feels it: the queue a CNP is meant to drain keeps growing for
 * as long as the CNP takes to be generated.  The transmit and receive
 * pipeline delays move the timed channel's stamps and arrivals
 * (rocx-chan.c); the notification point's delay holds each CNP in a line
 * until it is due, here; the doorbell delay holds SQ doorbells in a line
 * beside the doorbells themselves (rocx-rdma.c).
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
