/*
 * rocx device model: the fabric channel (Documentation/rocx-device.rst,
 * "Fabric channel" and "Timed mode").
 *
 * The channel is a connection to rocx-switch that the glue opens and
 * owns (a SOCK_SEQPACKET socket: one record per message); this file is
 * what the device says on it and makes of what it hears.  Every record is
 * a fabric frame: HELLO once, then BUNDLEs (rocx-fabric.c builds them; on
 * the channel a bundle of one is allowed and every frame goes in one),
 * SYNC promises and BYE.
 *
 * In a timed run every record also carries virtual time.  A frame is
 * stamped with the instant its last bit leaves (the scheduler's line
 * clock) and reaches the other end latency ns later; the switch stamps
 * what it sends the same way.  So a frame received here is not delivered
 * on arrival but queued, in arrival order, and delivered by the timer
 * heap at its instant: when the glue read the record does not matter, and
 * the guest sees the same thing at the same virtual time run after run.
 * The glue keeps the guest from running past the horizon (the switch's
 * last promise plus the latency), beyond which a frame could still come
 * that the guest should already have seen.
 *
 * The channel is a link between two processes of one run, not a network:
 * a damaged record is a bug in one of them.  So a record that breaks the
 * format closes the channel with a reason for the glue to report, where
 * a damaged bundle on a dgram link only counts an error.
 *
 * Copyright (c) 2026 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "rocx-int.h"

static const uint8_t rocx_chan_dst[6] = ROCX_FAB_DST_MAC;
static const uint8_t rocx_chan_switch[6] = ROCX_FAB_SWITCH_MAC;

QEMU_BUILD_BUG_ON(ROCX_CHAN_RXQ_BYTES < 2 * (ROCX_CHAN_RXQ_HLEN +
                                             ROCX_MAX_FRAME));

void rocx_core_chan_start(RocxCore *c, bool timed)
{
    RocxChan *ch = &c->chan;

    g_free(ch->rxq);
    memset(ch, 0, sizeof(*ch));
    ch->on = true;
    ch->timed = timed;
    ch->tx_promise = -1;
    if (timed) {
        ch->rxq = g_malloc(ROCX_CHAN_RXQ_BYTES);
    }
}

/* The fabric header, with the timed extension when the channel is timed. */
size_t rocx_chan_header(RocxCore *c, uint8_t *b, uint8_t type, uint16_t count,
                        int64_t time)
{
    memcpy(b + ROCX_FAB_OFF_DST, rocx_chan_dst, sizeof(rocx_chan_dst));
    memcpy(b + ROCX_FAB_OFF_SRC, c->port.mac, sizeof(c->port.mac));
    stw_be_p(b + ROCX_FAB_OFF_ETHERTYPE, ROCX_FAB_ETHERTYPE);
    stl_be_p(b + ROCX_FAB_OFF_MAGIC, ROCX_FAB_MAGIC);
    b[ROCX_FAB_OFF_TYPE] = type;
    b[ROCX_FAB_OFF_FLAGS] = 0;
    stw_be_p(b + ROCX_FAB_OFF_COUNT, count);
    stl_be_p(b + ROCX_FAB_OFF_MAX_LEN, ROCX_FAB_BUNDLE_MAX);
    if (!c->chan.timed) {
        return ROCX_FAB_HLEN;
    }
    b[ROCX_FAB_OFF_FLAGS] = ROCX_FAB_F_TIMED;
    stq_be_p(b + ROCX_FAB_OFF_TIME, time);
    /* latency and the reserved word: the switch's to fill, ours are 0. */
    memset(b + ROCX_FAB_OFF_LATENCY, 0, ROCX_FAB_TIMED_HLEN -
           ROCX_FAB_OFF_LATENCY);
    return ROCX_FAB_TIMED_HLEN;
}

size_t rocx_core_chan_hello(RocxCore *c, uint8_t *buf)
{
    size_t len;

    c->chan.hello_sent = true;
    c->chan.stats.tx_records++;
    len = rocx_chan_header(c, buf, ROCX_FAB_HELLO, 0, rocx_now(c));
    if (c->chan.rings_offer) {
        buf[ROCX_FAB_OFF_FLAGS] |= ROCX_FAB_F_RINGS;
    }
    /* Padded to Ethernet's minimum, as HELLO is on a dgram link. */
    if (len < ROCX_FAB_CTRL_LEN) {
        memset(buf + len, 0, ROCX_FAB_CTRL_LEN - len);
        len = ROCX_FAB_CTRL_LEN;
    }
    return len;
}

size_t rocx_core_chan_sync(RocxCore *c, int64_t t, uint8_t *buf)
{
    RocxChan *ch = &c->chan;

    /* Whatever leaves after t is in the pipeline until t + tx_ns at least. */
    t += c->delay.tx_ns;

    if (!ch->timed || !ch->joined || ch->closed || t <= ch->tx_promise) {
        return 0;
    }
    ch->tx_promise = t;
    ch->stats.tx_records++;
    ch->stats.tx_syncs++;
    return rocx_chan_header(c, buf, ROCX_FAB_SYNC, 0, t);
}

size_t rocx_core_chan_bye(RocxCore *c, uint8_t *buf)
{
    RocxChan *ch = &c->chan;

    if (!ch->hello_sent || ch->closed) {
        return 0;
    }
    ch->stats.tx_records++;
    return rocx_chan_header(c, buf, ROCX_FAB_BYE, 0,
                            MAX(ch->tx_promise, rocx_now(c)));
}

size_t rocx_core_chan_direct(RocxCore *c, uint8_t *buf, uint8_t type,
                             bool refused)
{
    size_t len;

    if (c->chan.timed) {
        return 0;
    }
    len = rocx_chan_header(c, buf, type, 0, 0);
    if (refused) {
        buf[ROCX_FAB_OFF_FLAGS] |= ROCX_FAB_F_REFUSED;
    }
    c->chan.stats.tx_records++;
    return len;
}

/*
 * The stamp of a frame that has just taken the line: when its last bit
 * leaves the transmit pipeline, never before what the channel already
 * promised.
 */
int64_t rocx_chan_stamp(RocxCore *c)
{
    RocxChan *ch = &c->chan;
    int64_t stamp = MAX(c->sched.line_free, rocx_now(c)) + c->delay.tx_ns;

    stamp = MAX(stamp, ch->tx_promise);
    ch->tx_promise = stamp;
    return stamp;
}

bool rocx_chan_up(RocxCore *c)
{
    const RocxChan *ch = &c->chan;

    return ch->joined && !ch->closed &&
           (!ch->timed || rocx_now(c) >= ch->epoch);
}

int64_t rocx_core_chan_horizon(RocxCore *c)
{
    const RocxChan *ch = &c->chan;

    if (!ch->timed || !ch->joined || ch->rx_promise == INT64_MAX) {
        return INT64_MAX;
    }
    /* Nothing promised reaches the receive path before that. */
    if (ch->rx_promise > INT64_MAX - ch->latency_ns - c->delay.rx_ns) {
        return INT64_MAX;
    }
    return ch->rx_promise + ch->latency_ns + c->delay.rx_ns;
}

const RocxChanStats *rocx_core_chan_stats(RocxCore *c)
{
    return &c->chan.stats;
}

const char *rocx_core_chan_error(RocxCore *c)
{
    return c->chan.error;
}

static RocxChanResult rocx_chan_fail(RocxCore *c, const char *why)
{
    c->chan.stats.rx_errors++;
    rocx_chan_closed(c, why);
    return ROCX_CHAN_ERROR;
}

void rocx_chan_closed(RocxCore *c, const char *why)
{
    RocxChan *ch = &c->chan;

    if (ch->closed) {
        return;
    }
    ch->closed = true;
    ch->error = why;
    /* Nothing more will come: the switch promises forever. */
    ch->rx_promise = INT64_MAX;
}

/* ---- Timed receive queue ---- */

/* Room for an entry of n bytes at the tail; wraps the ring if it must. */
static uint8_t *rocx_chan_rxq_room(RocxChan *ch, uint32_t n)
{
    if (!ch->rxq_wrapped) {
        if (ROCX_CHAN_RXQ_BYTES - ch->rxq_tail >= n) {
            return ch->rxq + ch->rxq_tail;
        }
        /* Start again at 0, in front of head, if there is room there. */
        if (ch->rxq_head < n && ch->rxq_bytes) {
            return NULL;
        }
        ch->rxq_wrap = ch->rxq_tail;
        ch->rxq_tail = 0;
        ch->rxq_wrapped = ch->rxq_bytes != 0;
        if (!ch->rxq_wrapped) {
            ch->rxq_head = 0;
        }
        return ch->rxq;
    }
    return ch->rxq_head - ch->rxq_tail >= n ? ch->rxq + ch->rxq_tail : NULL;
}

static bool rocx_chan_rxq_push(RocxCore *c, int64_t at, const uint8_t *f,
                               uint16_t len)
{
    RocxChan *ch = &c->chan;
    uint32_t n = ROCX_CHAN_RXQ_HLEN + len;
    uint8_t *p = rocx_chan_rxq_room(ch, n);

    if (!p) {
        return false;
    }
    stq_he_p(p, at);
    stw_he_p(p + 8, len);
    memcpy(p + ROCX_CHAN_RXQ_HLEN, f, len);
    ch->rxq_tail += n;
    ch->rxq_bytes += n;
    ch->stats.rxq_peak = MAX(ch->stats.rxq_peak, ch->rxq_bytes);
    if (ch->rxq_bytes == n) {
        rocx_timer_mod(c, &ch->rx_timer, ROCX_TIMER_CHAN, at);
    }
    return true;
}

/*
 * Deliver every queued frame whose instant has come, in order, and wait
 * for the next.  Called from the timer run, between the engine's blocks.
 */
void rocx_chan_timer(RocxCore *c, int64_t now)
{
    RocxChan *ch = &c->chan;

    while (ch->rxq_bytes) {
        uint8_t *p;
        int64_t at;
        uint16_t len;

        if (ch->rxq_wrapped && ch->rxq_head == ch->rxq_wrap) {
            ch->rxq_head = 0;
            ch->rxq_wrapped = false;
        }
        p = ch->rxq + ch->rxq_head;
        at = ldq_he_p(p);
        if (at > now) {
            rocx_timer_mod(c, &ch->rx_timer, ROCX_TIMER_CHAN, at);
            return;
        }
        len = lduw_he_p(p + 8);
        rocx_rx_frame(c, p + ROCX_CHAN_RXQ_HLEN, len);
        ch->rxq_head += ROCX_CHAN_RXQ_HLEN + len;
        ch->rxq_bytes -= ROCX_CHAN_RXQ_HLEN + len;
    }
    ch->rxq_head = ch->rxq_tail = 0;
    ch->rxq_wrapped = false;
}

/* A reset forgot every deadline: the oldest queued frame's comes back. */
void rocx_chan_reset(RocxCore *c)
{
    RocxChan *ch = &c->chan;
    uint32_t head = ch->rxq_head;

    if (!ch->rxq_bytes) {
        return;
    }
    if (ch->rxq_wrapped && head == ch->rxq_wrap) {
        head = 0;
    }
    rocx_timer_mod(c, &ch->rx_timer, ROCX_TIMER_CHAN,
                   ldq_he_p(ch->rxq + head));
}

/* ---- Records from the switch ---- */

static RocxChanResult rocx_chan_hello_ack(RocxCore *c, const uint8_t *buf,
                                          size_t len)
{
    RocxChan *ch = &c->chan;
    uint8_t flags = buf[ROCX_FAB_OFF_FLAGS];
    int64_t epoch;
    uint32_t lat;

    if (!ch->hello_sent || ch->joined) {
        return rocx_chan_fail(c, "HELLO_ACK not after our HELLO");
    }
    if (memcmp(buf + ROCX_FAB_OFF_SRC, rocx_chan_switch,
               sizeof(rocx_chan_switch))) {
        return rocx_chan_fail(c, "HELLO_ACK not from rocx-switch");
    }
    if (flags & ROCX_FAB_F_REFUSED) {
        rocx_chan_closed(c, ch->timed ?
                              "refused: the switch is not timed" :
                              "refused: the switch is timed");
        return ROCX_CHAN_REFUSED;
    }
    if (!(flags & ROCX_FAB_F_TIMED) != !ch->timed) {
        return rocx_chan_fail(c, "HELLO_ACK's clock is not ours");
    }
    if ((flags & ROCX_FAB_F_RINGS) && !ch->rings_offer) {
        return rocx_chan_fail(c, "HELLO_ACK takes rings never offered");
    }
    if (ldl_be_p(buf + ROCX_FAB_OFF_MAX_LEN) <
        ROCX_FAB_MIN_MAX(ROCX_MAX_FRAME)) {
        return rocx_chan_fail(c, "HELLO_ACK's max_len is too small");
    }
    if (ch->timed) {
        epoch = ldq_be_p(buf + ROCX_FAB_OFF_TIME);
        lat = ldl_be_p(buf + ROCX_FAB_OFF_LATENCY);
        if (!lat || epoch < 0) {
            return rocx_chan_fail(c, "HELLO_ACK without a latency or epoch");
        }
        ch->latency_ns = lat;
        ch->epoch = epoch;
        ch->rx_promise = epoch;
        /* Nothing of ours may be stamped before the link is up. */
        ch->tx_promise = MAX(ch->tx_promise, epoch);
    }
    ch->rings = flags & ROCX_FAB_F_RINGS;
    ch->joined = true;
    return ROCX_CHAN_OK;
}

static RocxChanResult rocx_chan_bundle(RocxCore *c, const uint8_t *buf,
                                       size_t len, size_t hlen, int64_t time)
{
    RocxChan *ch = &c->chan;
    uint16_t count = lduw_be_p(buf + ROCX_FAB_OFF_COUNT);
    size_t ehlen = ch->timed ? ROCX_FAB_TENTRY_HLEN : ROCX_FAB_ENTRY_HLEN;
    int64_t last = time;
    size_t off = hlen;
    uint16_t i;

    if (!count) {
        return rocx_chan_fail(c, "BUNDLE of no frame");
    }
    /* The whole record first: a damaged one delivers nothing. */
    for (i = 0; i < count; i++) {
        uint16_t flen;

        if (len - off < ehlen) {
            return rocx_chan_fail(c, "BUNDLE shorter than its count");
        }
        flen = lduw_be_p(buf + off + ehlen - 2);
        if (flen > len - off - ehlen || flen > ROCX_MAX_FRAME || !flen) {
            return rocx_chan_fail(c, "BUNDLE entry of a bad length");
        }
        if (ch->timed) {
            int64_t stamp = time + ldl_be_p(buf + off);

            if (stamp < last || (!i && stamp != time)) {
                return rocx_chan_fail(c, "BUNDLE stamps go back in time");
            }
            last = stamp;
        }
        off += ehlen + flen;
    }
    if (off != len) {
        return rocx_chan_fail(c, "bytes after a BUNDLE's last entry");
    }
    for (i = 0, off = hlen; i < count; i++) {
        uint16_t flen = lduw_be_p(buf + off + ehlen - 2);

        if (!ch->timed) {
            rocx_rx_frame(c, buf + off + ehlen, flen);
        } else if (!rocx_chan_rxq_push(c, time + ldl_be_p(buf + off) +
                                       ch->latency_ns + c->delay.rx_ns,
                                       buf + off + ehlen, flen)) {
            return rocx_chan_fail(c, "more frames in flight than the "
                                  "receive queue holds");
        }
        ch->stats.rx_frames++;
        off += ehlen + flen;
    }
    if (ch->timed) {
        ch->rx_promise = last;
    }
    return ROCX_CHAN_OK;
}

RocxChanResult rocx_chan_receive(RocxCore *c, const uint8_t *buf, size_t len)
{
    RocxChan *ch = &c->chan;
    size_t hlen = ROCX_FAB_HLEN;
    int64_t time = 0;
    uint8_t type;

    if (ch->closed) {
        return ROCX_CHAN_ERROR;
    }
    ch->stats.rx_records++;
    if (len < ROCX_FAB_HLEN ||
        memcmp(buf + ROCX_FAB_OFF_DST, rocx_chan_dst, sizeof(rocx_chan_dst)) ||
        lduw_be_p(buf + ROCX_FAB_OFF_ETHERTYPE) != ROCX_FAB_ETHERTYPE ||
        (uint32_t)ldl_be_p(buf + ROCX_FAB_OFF_MAGIC) != ROCX_FAB_MAGIC) {
        return rocx_chan_fail(c, "a record that is not a fabric frame");
    }
    type = buf[ROCX_FAB_OFF_TYPE];
    if (type == ROCX_FAB_HELLO_ACK) {
        if (len < ((buf[ROCX_FAB_OFF_FLAGS] & ROCX_FAB_F_TIMED) ?
                   ROCX_FAB_TIMED_HLEN : ROCX_FAB_HLEN)) {
            return rocx_chan_fail(c, "HELLO_ACK too short");
        }
        return rocx_chan_hello_ack(c, buf, len);
    }
    if (!ch->joined) {
        return rocx_chan_fail(c, "a record before HELLO_ACK");
    }
    if (!(buf[ROCX_FAB_OFF_FLAGS] & ROCX_FAB_F_TIMED) != !ch->timed) {
        return rocx_chan_fail(c, "a record whose clock is not the link's");
    }
    if (ch->timed) {
        if (len < ROCX_FAB_TIMED_HLEN) {
            return rocx_chan_fail(c, "a timed record too short");
        }
        hlen = ROCX_FAB_TIMED_HLEN;
        time = ldq_be_p(buf + ROCX_FAB_OFF_TIME);
        if (time < ch->rx_promise) {
            return rocx_chan_fail(c, "a record stamped before the switch's "
                                  "promise");
        }
    }
    switch (type) {
    case ROCX_FAB_BUNDLE:
        return rocx_chan_bundle(c, buf, len, hlen, time);
    case ROCX_FAB_SYNC:
        /* A promise may repeat the last one: only going back is wrong. */
        if (!ch->timed) {
            return rocx_chan_fail(c, "a SYNC on an untimed link");
        }
        ch->stats.rx_syncs++;
        ch->rx_promise = time;
        return ROCX_CHAN_OK;
    case ROCX_FAB_BYE:
        rocx_chan_closed(c, "the switch left (BYE)");
        return ROCX_CHAN_BYE;
    default:
        return rocx_chan_fail(c, "a record of an unknown type");
    }
}

void rocx_chan_fini(RocxCore *c)
{
    g_free(c->chan.rxq);
    c->chan.rxq = NULL;
}
