/*
 * rocx device model: handing out QP and CQ numbers.
 *
 * A number is slot | generation << ROCX_NUM_SLOT_BITS (rocx-device.rst,
 * "Object numbers").  Handing out a number moves its slot's generation
 * on, so when the object goes its number names nothing until the 24-bit
 * space wraps: a packet, doorbell or event still on its way for a
 * destroyed QP or CQ finds no object rather than its successor.  Slots
 * are handed out next-fit, which spreads reuse over the whole table.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* qpn 0 and 1 are InfiniBand's special QPs, 0xffffff the multicast qpn. */
static bool rocx_qpn_reserved(uint32_t qpn)
{
    return qpn <= 1 || qpn == ROCX_QPN_MULTICAST;
}

/* cqn 0 was never a CQ in 1.1; drivers may take it for "none". */
static bool rocx_cqn_reserved(uint32_t cqn)
{
    return cqn == 0;
}

static bool rocx_num_alloc(RocxNumSpace *ns, const bool busy[ROCX_NUM_SLOTS],
                           bool (*reserved)(uint32_t), uint32_t *num)
{
    unsigned i;

    for (i = 0; i < ROCX_NUM_SLOTS; i++) {
        unsigned slot = (ns->next + i) % ROCX_NUM_SLOTS;
        uint32_t n;

        if (busy[slot]) {
            continue;
        }
        /* At most two turns: no two reserved numbers share a slot. */
        do {
            n = slot | (uint32_t)ns->gen[slot] << ROCX_NUM_SLOT_BITS;
            ns->gen[slot] = (ns->gen[slot] + 1) & ROCX_NUM_GEN_MASK;
        } while (reserved(n));
        ns->next = (slot + 1) % ROCX_NUM_SLOTS;
        *num = n;
        return true;
    }
    return false;
}

bool rocx_qpn_alloc(RocxCore *c, uint32_t *qpn)
{
    bool busy[ROCX_NUM_SLOTS];
    unsigned i;

    for (i = 0; i < ROCX_NUM_SLOTS; i++) {
        busy[i] = c->rdma.qp[i] != NULL;
    }
    return rocx_num_alloc(&c->rdma.qpns, busy, rocx_qpn_reserved, qpn);
}

bool rocx_cqn_alloc(RocxCore *c, uint32_t *cqn)
{
    bool busy[ROCX_NUM_SLOTS];
    unsigned i;

    for (i = 0; i < ROCX_NUM_SLOTS; i++) {
        busy[i] = c->rdma.cq[i].valid;
    }
    return rocx_num_alloc(&c->rdma.cqns, busy, rocx_cqn_reserved, cqn);
}

void rocx_num_init(RocxCore *c)
{
    memset(&c->rdma.qpns, 0, sizeof(c->rdma.qpns));
    memset(&c->rdma.cqns, 0, sizeof(c->rdma.cqns));
    c->rdma.qpns.next = ROCX_CORE_QPN_FIRST;
    c->rdma.cqns.next = ROCX_CORE_CQN_FIRST;
}
