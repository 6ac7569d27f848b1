/*
 * rocx device model: handing out QP, CQ and SRQ numbers.
 *
 * A number is slot | generation << ROCX_NUM_SLOT_BITS (rocx-device.rst,
 * "Object numbers").  Handing out a number moves its slot's generation
 * on, so when the object goes its number names nothing until the 24-bit
 * space wraps: a packet, doorbell or event still on its way for a
 * destroyed QP, CQ or SRQ finds no object rather than its successor.
 * Slots are handed out next-fit, which spreads reuse over the whole
 * table.  The SRQ table is smaller than the others: its slots are the
 * first ROCX_CORE_SRQ_SLOTS, and slot 0 is never handed out.
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

/* srqn 0 is no SRQ (CREATE_SRQ's result is 1 and up). */
static bool rocx_srqn_reserved(uint32_t srqn)
{
    return srqn == 0;
}

/* The next number of the first nslots slots of ns, next-fit. */
static bool rocx_num_alloc(RocxNumSpace *ns, const bool busy[ROCX_NUM_SLOTS],
                           unsigned nslots, bool (*reserved)(uint32_t),
                           uint32_t *num)
{
    unsigned i;

    for (i = 0; i < nslots; i++) {
        unsigned slot = (ns->next + i) % nslots;
        uint32_t n;

        if (busy[slot]) {
            continue;
        }
        /* At most two turns: no two reserved numbers share a slot. */
        do {
            n = slot | (uint32_t)ns->gen[slot] << ROCX_NUM_SLOT_BITS;
            ns->gen[slot] = (ns->gen[slot] + 1) & ROCX_NUM_GEN_MASK;
        } while (reserved(n));
        ns->next = (slot + 1) % nslots;
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
    return rocx_num_alloc(&c->rdma.qpns, busy, ROCX_NUM_SLOTS,
                          rocx_qpn_reserved, qpn);
}

bool rocx_cqn_alloc(RocxCore *c, uint32_t *cqn)
{
    bool busy[ROCX_NUM_SLOTS];
    unsigned i;

    for (i = 0; i < ROCX_NUM_SLOTS; i++) {
        busy[i] = c->rdma.cq[i].valid;
    }
    return rocx_num_alloc(&c->rdma.cqns, busy, ROCX_NUM_SLOTS,
                          rocx_cqn_reserved, cqn);
}

bool rocx_srqn_alloc(RocxCore *c, uint32_t *srqn)
{
    bool busy[ROCX_NUM_SLOTS];
    unsigned i;

    busy[0] = true;
    for (i = 1; i < ROCX_CORE_SRQ_SLOTS; i++) {
        busy[i] = c->rdma.srq[i].valid;
    }
    return rocx_num_alloc(&c->rdma.srqns, busy, ROCX_CORE_SRQ_SLOTS,
                          rocx_srqn_reserved, srqn);
}

void rocx_num_init(RocxCore *c)
{
    memset(&c->rdma.qpns, 0, sizeof(c->rdma.qpns));
    memset(&c->rdma.cqns, 0, sizeof(c->rdma.cqns));
    memset(&c->rdma.srqns, 0, sizeof(c->rdma.srqns));
    c->rdma.qpns.next = ROCX_CORE_QPN_FIRST;
    c->rdma.cqns.next = ROCX_CORE_CQN_FIRST;
    c->rdma.srqns.next = 1;
}
