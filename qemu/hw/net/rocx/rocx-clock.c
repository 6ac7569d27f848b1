/*
 * rocx device model: the device clock (contract 1.2, ROCX_CAP2_CLOCK).
 *
 * A free-running nanosecond counter that starts at 0 at every reset,
 * read through CLOCK_LO/CLOCK_HI and written into 64-byte CQEs.  It is
 * the host's now_ns() clock (QEMU: the virtual clock) less its value at
 * the reset, so it stops while the guest is stopped, as the guest's own
 * sense of time does.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

void rocx_clock_reset(RocxCore *c)
{
    c->clock.base = rocx_now(c);
    c->clock.hi_latch = 0;
}

uint64_t rocx_clock_ns(RocxCore *c)
{
    return (uint64_t)(rocx_now(c) - c->clock.base);
}

/*
 * A 64-bit value through two 32-bit reads: LO samples the clock and keeps
 * the upper half for HI, so LO then HI never tears across a carry.
 */
uint32_t rocx_rd_clock(RocxCore *c, unsigned off)
{
    uint64_t now;

    if (off == ROCX_REG_CLOCK_HI) {
        return c->clock.hi_latch;
    }
    now = rocx_clock_ns(c);
    c->clock.hi_latch = now >> 32;
    return (uint32_t)now;
}
