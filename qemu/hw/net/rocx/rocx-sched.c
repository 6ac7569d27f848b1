/*
 * rocx device model: the transmit scheduler (Documentation/
 * rocx-device.rst, "Transmit scheduling").
 *
 * Every source of frames, each RTR or RTS QP and each Ethernet TX ring,
 * waits in the FIFO of its traffic class while it has frames.  When the
 * line is free the scheduler picks a class (the highest strict one with
 * a source ready, else the ETS classes by deficit round robin weighted by
 * tc_bw), skipping classes over their tc_maxrate, and gives the source at
 * the head of its FIFO one frame.  The frame then occupies the line for
 * 8 * bytes / speed.  A source whose priority is paused (rocx-dcb.c) or
 * whose pacing rate (rate limit, congestion control) does not allow a
 * frame yet leaves the FIFO until it may send again.  A QP's priority is
 * its path's; a UD QP's path is that of the WQE at the head of its SQ
 * (rocx_ud_next_path()), looked up before it joins a class and after
 * each of its turns, since every UD message carries its own.
 *
 * Nothing here waits by spinning: when the line, every ready class or
 * every ready QP is busy, one deadline in the device's timer heap brings
 * the next run.  The device may run up to ROCX_SCHED_AHEAD_NS ahead of
 * the clock, so that an engine run hands the network a bundle of frames
 * and a wake-up a little late costs the line nothing.
 *
 * The backend is the far end of the line: a frame it could not send at
 * once waits in its queue (QEMU's net queue holds up to 10000), where
 * no pause reaches it.  So while the backend holds one (tx_busy), no
 * frame starts: what a PFC XOFF cannot stop stays one run's bundle, and
 * the switch's headroom can be sized for it (Documentation/
 * experiments.rst, "Headroom").
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "rocx-int.h"

/*
 * Line time the device may have sent ahead of the clock.  None in a timed
 * run: a frame stamped ahead of the clock could already be out when a
 * pause that should have held it arrives (rocx_sched_ahead()).
 */
#define ROCX_SCHED_AHEAD_NS     200000
/*
 * Credit a paced QP keeps when it sent later than it could have: 1 ms,
 * or 16 KiB at its rate if that is longer, so that wake-ups late by less
 * (a busy host under TCG) do not lower its rate.
 */
#define ROCX_SCHED_CREDIT_NS    1000000
#define ROCX_SCHED_CREDIT_BYTES 16384
/* DRR quantum of 1% of tc_bw, bytes. */
#define ROCX_SCHED_QUANTUM      1024
/*
 * DRR visits before a class with a backlog must have a positive deficit:
 * a frame overdraws it by at most ROCX_MAX_FRAME, each visit adds at
 * least one quantum.
 */
#define ROCX_SCHED_DRR_VISITS   (ROCX_NUM_TC * \
                                 (ROCX_MAX_FRAME / ROCX_SCHED_QUANTUM + 2))

#define ROCX_SCHED_ETH(qid)     (ROCX_CORE_QP_SLOTS + (qid))

/*
 * A clock that is free again at *free: bytes at kbps kb/s occupy it for
 * bytes * 8 * 10^6 / kbps ns from *free, or from floor if it was idle
 * before that.  The remainder of the division is carried in *rem.
 */
static void rocx_sched_clock(int64_t *free, uint64_t *rem, int64_t floor,
                             uint64_t bytes, uint64_t kbps)
{
    uint64_t num;

    if (*free < floor) {
        *free = floor;
        *rem = 0;
    }
    num = bytes * 8 * 1000 * 1000 + *rem;
    *free += num / kbps;
    *rem = num % kbps;
}

void rocx_sched_wire(RocxCore *c, size_t len)
{
    RocxSched *s = &c->sched;

    s->wire_bytes += len;
    /* The gap too, or a switch port of the same rate falls behind. */
    rocx_sched_clock(&s->line_free, &s->line_rem, rocx_now(c),
                     len + ROCX_WIRE_GAP, (uint64_t)c->speed_mbps * 1000);
}

static int64_t rocx_sched_ahead(RocxCore *c)
{
    return rocx_timed(c) ? 0 : ROCX_SCHED_AHEAD_NS;
}

bool rocx_sched_rate_ok(uint32_t kbps)
{
    return kbps <= (uint64_t)ROCX_CORE_MAX_SPEED * 1000;
}

/* The QP's pacing rate in kb/s: the lower of its limits; 0 none. */
static uint64_t rocx_sched_qp_kbps(const RocxQp *qp)
{
    uint64_t lim = qp->sched.rate_limit_kbps;
    uint64_t cc = (uint64_t)qp->cc.tx_rate_mbps * 1000;

    if (!lim || (cc && cc < lim)) {
        return cc;
    }
    return lim;
}

/* ---- Class FIFOs ---- */

static void rocx_sched_push(RocxSched *s, unsigned tc, unsigned id)
{
    s->fifo[tc][(s->head[tc] + s->count[tc]) % ROCX_SCHED_FLOWS] = id;
    s->count[tc]++;
    s->queued[id] = tc + 1;
}

static unsigned rocx_sched_pop(RocxSched *s, unsigned tc)
{
    unsigned id = s->fifo[tc][s->head[tc]];

    s->head[tc] = (s->head[tc] + 1) % ROCX_SCHED_FLOWS;
    s->count[tc]--;
    s->queued[id] = 0;
    return id;
}

/* A source has frames: into its class, unless it waits there already. */
static void rocx_sched_add(RocxCore *c, unsigned id, unsigned tc)
{
    RocxSched *s = &c->sched;

    if (!s->queued[id]) {
        rocx_sched_push(s, tc % ROCX_NUM_TC, id);
    }
}

/* The class of the QP's next frame. */
static unsigned rocx_sched_qp_tc(RocxCore *c, const RocxQp *qp)
{
    return c->dcb.prio_tc[qp->path.prio & 7];
}

bool rocx_sched_take(RocxCore *c, RocxQp *qp)
{
    if (qp->state != ROCX_QPS_RTR && qp->state != ROCX_QPS_RTS) {
        return false;
    }
    rocx_ud_next_path(c, qp);
    rocx_sched_add(c, rocx_qp_slot(qp), rocx_sched_qp_tc(c, qp));
    return true;
}

/* TX rings with descriptors, not waiting at a paused priority, join. */
static void rocx_sched_poll_rings(RocxCore *c)
{
    unsigned q;

    for (q = 0; q < ROCX_CORE_MAX_ETH_RINGS; q++) {
        RocxEthRing *r = &c->tx[q];

        if (!r->valid || r->ci == r->pi) {
            continue;
        }
        if (r->paused_prio < ROCX_NUM_PRIO) {
            if (c->dcb.paused & ROCX_BIT(r->paused_prio)) {
                continue;
            }
            r->paused_prio = ROCX_NUM_PRIO;
        }
        rocx_sched_add(c, ROCX_SCHED_ETH(q), r->tc);
    }
}

/* ---- Picking a class ---- */

/* Class tc is within its ceiling; else *wake learns when it will be. */
static bool rocx_sched_tc_ok(RocxCore *c, unsigned tc, int64_t now,
                             int64_t *wake)
{
    RocxSched *s = &c->sched;

    if (!c->dcb.tc_maxrate[tc] ||
        s->tc_free[tc] <= now + rocx_sched_ahead(c)) {
        return true;
    }
    *wake = MIN(*wake, s->tc_free[tc] - rocx_sched_ahead(c) / 2);
    return false;
}

static int32_t rocx_sched_quantum(RocxCore *c, unsigned tc)
{
    return MAX(c->dcb.tc_bw[tc], 1) * ROCX_SCHED_QUANTUM;
}

/* The class that sends next, or -1 (then *wake may say when one can). */
static int rocx_sched_pick(RocxCore *c, int64_t now, int64_t *wake)
{
    RocxSched *s = &c->sched;
    const RocxDcb *d = &c->dcb;
    uint8_t ready = 0;
    unsigned i;
    int t;

    for (t = ROCX_NUM_TC - 1; t >= 0; t--) {
        if (!s->count[t]) {
            if (d->tc_tsa[t] == ROCX_TSA_ETS) {
                /* An idle class does not save up its share. */
                s->deficit[t] = 0;
            }
            continue;
        }
        if (!rocx_sched_tc_ok(c, t, now, wake)) {
            continue;
        }
        if (d->tc_tsa[t] == ROCX_TSA_STRICT) {
            return t;
        }
        ready |= ROCX_BIT(t);
    }
    if (!ready) {
        return -1;
    }
    for (i = 0; i < ROCX_SCHED_DRR_VISITS; i++) {
        t = s->drr_tc;
        if ((ready & ROCX_BIT(t)) && s->deficit[t] > 0) {
            return t;
        }
        s->drr_tc = (t + 1) % ROCX_NUM_TC;
        if (ready & ROCX_BIT(s->drr_tc)) {
            s->deficit[s->drr_tc] += rocx_sched_quantum(c, s->drr_tc);
        }
    }
    /* Not reached: some ready class has a positive deficit by now. */
    return ctz32(ready);
}

/* ---- A turn ---- */

/*
 * One frame (or a turn that sends none: completions, a pause found) of
 * QP slot id; *bytes: what it sent.  True if it stays in line, in class
 * *tc (its next frame's, which for a UD QP may be another).
 */
static bool rocx_sched_qp_turn(RocxCore *c, unsigned slot, int64_t now,
                               uint64_t *bytes, unsigned *tc)
{
    RocxSched *s = &c->sched;
    RocxQp *qp = c->rdma.qp[slot];
    uint64_t kbps, before;
    unsigned used;
    bool more;

    if (!qp) {
        return false;
    }
    if (qp->state != ROCX_QPS_RTR && qp->state != ROCX_QPS_RTS) {
        /* ERR flushes and RESET does nothing: not the line's business. */
        rocx_qp_schedule(c, qp);
        return false;
    }
    /* Parked on its paused priority (rocx-dcb.c resumes it). */
    if (!qp->path.loopback && rocx_dcb_qp_paused(c, qp)) {
        return false;
    }
    kbps = rocx_sched_qp_kbps(qp);
    if (kbps && qp->sched.pace_next > now) {
        rocx_timer_mod(c, &qp->sched.timer, ROCX_TIMER_PACE,
                       qp->sched.pace_next);
        return false;
    }
    before = s->roce_bytes;
    used = rocx_qp_run(c, qp, 1, &more);
    *bytes = s->roce_bytes - before;
    if (*bytes) {
        if (kbps) {
            int64_t credit = MAX((int64_t)ROCX_SCHED_CREDIT_NS,
                                 (int64_t)(ROCX_SCHED_CREDIT_BYTES * 8 *
                                           1000000ULL / kbps));

            /* Wake-ups are never late in a timed run: no credit. */
            if (rocx_timed(c)) {
                credit = 0;
            }

            rocx_sched_clock(&qp->sched.pace_next, &qp->sched.pace_rem,
                             now - credit, *bytes, kbps);
        }
        qp->sched.pace_kbps = kbps;
        rocx_cc_sent(qp, *bytes, now);
    }
    if (qp->state == ROCX_QPS_ERR) {
        rocx_qp_schedule(c, qp);
        return false;
    }
    rocx_ud_next_path(c, qp);
    *tc = rocx_sched_qp_tc(c, qp);
    /* A turn that did nothing would do nothing again: wait for work. */
    return more && used;
}

static bool rocx_sched_ring_turn(RocxCore *c, unsigned qid, uint64_t *bytes)
{
    RocxSched *s = &c->sched;
    uint64_t before = s->wire_bytes;
    bool more;

    if (rocx_tx_process(c, qid, 1, &more)) {
        s->tx_signal |= ROCX_BIT(qid);
    }
    *bytes = s->wire_bytes - before;
    return more;
}

/* What the frame of class tc costs its share and its ceiling. */
static void rocx_sched_charge(RocxCore *c, unsigned tc, uint64_t bytes,
                              int64_t now)
{
    RocxSched *s = &c->sched;

    s->tc_bytes[tc] += bytes;
    if (c->dcb.tc_tsa[tc] == ROCX_TSA_ETS) {
        s->deficit[tc] -= MIN(bytes, (uint64_t)INT32_MAX);
    }
    if (c->dcb.tc_maxrate[tc]) {
        /*
         * A class under its ceiling may have waited a DRR round for its
         * turn: it keeps that much credit, or it would fall below it.
         */
        int64_t round = (uint64_t)100 * ROCX_SCHED_QUANTUM * 8 * 1000 /
                        c->speed_mbps;

        rocx_sched_clock(&s->tc_free[tc], &s->tc_rem[tc], now - round, bytes,
                         (uint64_t)c->dcb.tc_maxrate[tc] * 1000);
    }
}

static bool rocx_sched_backlog(const RocxSched *s)
{
    unsigned t;

    for (t = 0; t < ROCX_NUM_TC; t++) {
        if (s->count[t]) {
            return true;
        }
    }
    return false;
}

static void rocx_sched_wake(RocxCore *c, int64_t at)
{
    rocx_timer_mod(c, &c->sched.timer, ROCX_TIMER_SCHED, at);
}

bool rocx_sched_run(RocxCore *c)
{
    RocxSched *s = &c->sched;
    /* As before there was a scheduler: RoCE packets, Ethernet frames. */
    unsigned qp_budget = ROCX_CORE_PKT_BUDGET;
    unsigned tx_budget = ROCX_CORE_TX_BUDGET;
    bool more = true;
    unsigned q;

    rocx_sched_poll_rings(c);
    while (more) {
        int64_t now = rocx_now(c);
        int64_t wake = INT64_MAX;
        uint64_t bytes = 0;
        unsigned *budget;
        unsigned id, next_tc;
        int tc;

        if (!rocx_sched_backlog(s)) {
            more = false;
            break;
        }
        /* The backend's queue is full: rocx_core_tx_busy() wakes us. */
        if (c->tx_busy) {
            more = false;
            break;
        }
        if (s->line_free > now + rocx_sched_ahead(c)) {
            rocx_sched_wake(c, s->line_free - rocx_sched_ahead(c) / 2);
            more = false;
            break;
        }
        tc = rocx_sched_pick(c, now, &wake);
        if (tc < 0) {
            if (wake != INT64_MAX) {
                rocx_sched_wake(c, wake);
            }
            more = false;
            break;
        }
        id = s->fifo[tc][s->head[tc]];
        budget = id < ROCX_CORE_QP_SLOTS ? &qp_budget : &tx_budget;
        if (!*budget) {
            /* The rest in the next run: other devices' turn. */
            break;
        }
        (*budget)--;
        rocx_sched_pop(s, tc);
        next_tc = tc;
        if (id < ROCX_CORE_QP_SLOTS ?
            rocx_sched_qp_turn(c, id, now, &bytes, &next_tc) :
            rocx_sched_ring_turn(c, id - ROCX_CORE_QP_SLOTS, &bytes)) {
            /* Round robin among the class's sources, frame by frame. */
            rocx_sched_add(c, id, next_tc);
        }
        rocx_sched_charge(c, tc, bytes, now);
    }
    for (q = 0; q < ROCX_CORE_MAX_ETH_RINGS; q++) {
        if (s->tx_signal & ROCX_BIT(q)) {
            rocx_signal(c, c->tx[q].vector);
        }
    }
    s->tx_signal = 0;
    return more;
}

void rocx_core_tx_busy(RocxCore *c, bool busy)
{
    bool was = c->tx_busy;

    c->tx_busy = busy;
    if (was && !busy) {
        rocx_schedule(c);
    }
}

void rocx_sched_timer(RocxCore *c, RocxTimer *t)
{
    if (t->kind == ROCX_TIMER_PACE) {
        rocx_qp_schedule(c, container_of(t, RocxQp, sched.timer));
        return;
    }
    /* The line or a class is free: the engine's scheduler run goes on. */
    rocx_schedule(c);
}

void rocx_sched_qp_stop(RocxCore *c, RocxQp *qp)
{
    rocx_timer_del(c, &qp->sched.timer);
    qp->sched.pace_next = 0;
    qp->sched.pace_rem = 0;
    qp->sched.pace_kbps = 0;
}

/*
 * The QP's pacing rate changed (a DCQCN cut or step, a rate limit): what
 * is left of its wait was bytes at the old rate and is now those bytes
 * at the new one, as in a shaper whose refill rate changed.  Otherwise a
 * QP cut to DCQCN's floor of 1 Mb/s would sit out a frame's 8.7 ms at
 * that rate through every increase step that came meanwhile.
 */
void rocx_sched_qp_rate(RocxCore *c, RocxQp *qp)
{
    RocxQpSched *qs = &qp->sched;
    uint64_t kbps = rocx_sched_qp_kbps(qp);
    int64_t now = rocx_now(c);

    if (kbps == qs->pace_kbps) {
        return;
    }
    if (qs->pace_kbps && qs->pace_next > now) {
        /* Time left x old rate is bytes left x 8e6: far from overflow. */
        qs->pace_next = kbps ? now + (int64_t)((uint64_t)(qs->pace_next - now) *
                                               qs->pace_kbps / kbps)
                             : now;
        qs->pace_rem = 0;
        if (qs->timer.pos) {
            rocx_timer_mod(c, &qs->timer, ROCX_TIMER_PACE, qs->pace_next);
        }
    }
    qs->pace_kbps = kbps;
}
