/*
 * rocx device model core: init, reset, link state and the engine loop.
 *
 * Implements Documentation/rocx-device.rst, contract 1.1, against the ops
 * in rocx-core.h; the device's blocks each have a file of their own (the
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

/* ---- Link ---- */

uint32_t rocx_core_link_status(RocxCore *c)
{
    bool carrier = c->ops->carrier(c->opaque);
    uint32_t v = ROCX_FIELD_PREP(ROCX_LINK_SPEED_MASK, c->speed);

    if (carrier) {
        v |= ROCX_LINK_CARRIER;
    }
    if (c->port.admin_up) {
        v |= ROCX_LINK_ADMIN_UP;
    }
    if (carrier && c->port.admin_up) {
        v |= ROCX_LINK_UP;
    }
    return v;
}

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
    c->fabric.tx_ok = false;
    c->fabric.hellos = 0;
    c->fabric.hello_due = up && c->bundles;
    if (c->fabric.hello_due) {
        rocx_schedule(c);
    }
    /* Frames waiting for a buffer are dropped now that the link is down. */
    if (!up && c->rx_stalled) {
        rocx_schedule(c);
    }
}

void rocx_core_link_changed(RocxCore *c)
{
    rocx_link_update(c);
}

/* ---- Reset ---- */

void rocx_reset_state(RocxCore *c)
{
    bool was_up = c->port.link_up;
    bool was_stalled = c->rx_stalled;

    /* RDMA objects own heap memory and the timer: release them first. */
    rocx_rdma_reset(c);
    memset(&c->regs, 0, sizeof(*c) - offsetof(RocxCore, regs));
    c->port.mtu = ROCX_CORE_DEFAULT_MTU;
    memcpy(c->port.mac, c->perm_mac, sizeof(c->port.mac));
    /* Admin state is down, so the link is down; EQ 0 is gone. */
    if (was_up) {
        rocx_count(c, ROCX_STAT_LINK_CHANGES, 1);
    }
    /* Without an RX ring, frames the backend holds for us are dropped. */
    if (was_stalled) {
        c->rx_stalled = true;
        rocx_schedule(c);
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
}

void rocx_core_set_direct_doorbells(RocxCore *c, bool on)
{
    c->direct_db = on;
}

void rocx_core_init(RocxCore *c, const RocxCoreOps *ops, void *opaque,
                    const uint8_t mac[6], uint16_t speed_gbps)
{
    memset(c, 0, sizeof(*c));
    c->ops = ops;
    c->opaque = opaque;
    memcpy(c->perm_mac, mac, sizeof(c->perm_mac));
    c->speed = speed_gbps;
    rocx_core_reset(c);
}

/* ---- Engine entry point ---- */

void rocx_core_process(RocxCore *c)
{
    bool more = false;
    unsigned i;

    /* Frames sent from here on may share a bundle, flushed below. */
    c->in_engine = true;
    c->resched = false;
    rocx_selftest_dma(c);
    more |= rocx_aq_process(c);
    for (i = 0; i < ROCX_CORE_MAX_ETH_RINGS; i++) {
        more |= rocx_tx_process(c, i);
    }
    rocx_cq_arm_process(c);
    more |= rocx_rdma_process(c);
    more |= rocx_evq_drain(c);
    rocx_eq_arm(c);
    rocx_fabric_hello(c);
    rocx_fabric_flush(c);
    c->in_engine = false;

    if (c->rx_stalled && !rocx_rx_refuses(c)) {
        c->rx_stalled = false;
        c->rx_deferred = true;
    }
    /* Frames held for a buffer, or refused while the engine ran. */
    if (c->rx_deferred) {
        c->rx_deferred = false;
        c->ops->rx_resume(c->opaque);
    }
    /* Work asked for while the engine ran (rocx_schedule()) or left over. */
    if (more || c->resched) {
        c->ops->schedule_work(c->opaque);
    }
}
