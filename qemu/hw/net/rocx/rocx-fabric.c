/*
 * rocx device model: fabric bundles.
 *
 * Between two guests every frame crosses QEMU's net layer and the
 * rocx-switch as a datagram of its own, and a datagram costs a system call
 * and a wakeup at each end of each hop: measured, far more than building,
 * checksumming and placing the RoCE packet in it.  So, when the device
 * model is on rocx-switch's fabric, it sends the frames of one engine run
 * as one datagram, a bundle, and takes bundles the switch packed for it.
 * The switch splits bundles at once; its pipeline, capture and other
 * ports see single frames only, and a guest never sees a bundle either:
 * each frame of one goes through the receive path as if it came alone.
 *
 * Negotiation: at every link-up the device sends HELLO (and again, at most
 * twice, a second apart while unanswered); rocx-switch answers HELLO_ACK,
 * which enables bundles until the next reset or link-down.  Any other
 * peer ignores the HELLO and frames stay single.  Only the first
 * HELLO_ACK after a HELLO counts, and only from the switch's MAC: another
 * guest cannot turn bundles on for a peer that does not split them, nor
 * shrink them once agreed.  No answer is taken while the engine sends
 * (receive() refuses frames inside it), so a run's frames are all single
 * or all bundled.  The format, on the link only, is the device contract's:
 * include/rocx/rocx_fabric.h, specified in Documentation/rocx-device.rst,
 * "Fabric bundles".
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "rocx-int.h"

#define ROCX_FAB_HELLO_NS       (ROCX_FAB_HELLO_INTERVAL_MS * 1000 * 1000LL)
/* The least a peer may take: a bundle of two of our largest frames. */
#define ROCX_FAB_PEER_MIN       ROCX_FAB_MIN_MAX(ROCX_MAX_FRAME)

QEMU_BUILD_BUG_ON(ROCX_FAB_BUNDLE_MAX < ROCX_FAB_PEER_MIN);

static const uint8_t rocx_fab_dst[6] = ROCX_FAB_DST_MAC;
static const uint8_t rocx_fab_switch[6] = ROCX_FAB_SWITCH_MAC;

void rocx_core_set_bundles(RocxCore *c, bool on)
{
    c->bundles = on;
}

static void rocx_fab_header(RocxCore *c, uint8_t *b, uint8_t type,
                            uint16_t count)
{
    memcpy(b + ROCX_FAB_OFF_DST, rocx_fab_dst, sizeof(rocx_fab_dst));
    memcpy(b + ROCX_FAB_OFF_SRC, c->port.mac, sizeof(c->port.mac));
    stw_be_p(b + ROCX_FAB_OFF_ETHERTYPE, ROCX_FAB_ETHERTYPE);
    stl_be_p(b + ROCX_FAB_OFF_MAGIC, ROCX_FAB_MAGIC);
    b[ROCX_FAB_OFF_TYPE] = type;
    b[ROCX_FAB_OFF_FLAGS] = 0;
    stw_be_p(b + ROCX_FAB_OFF_COUNT, count);
    stl_be_p(b + ROCX_FAB_OFF_MAX_LEN, ROCX_FAB_BUNDLE_MAX);
}

void rocx_fabric_hello(RocxCore *c)
{
    RocxFabric *f = &c->fabric;
    uint8_t b[ROCX_FAB_CTRL_LEN];
    int64_t now;

    if (!c->bundles || f->tx_ok || !c->port.link_up ||
        (!f->hello_due && (!f->hellos || f->hellos >= ROCX_FAB_HELLO_TRIES))) {
        return;
    }
    now = rocx_now(c);
    if (!f->hello_due && now - f->hello_ns < ROCX_FAB_HELLO_NS) {
        return;
    }
    f->hello_due = false;
    f->hellos++;
    f->hello_ns = now;
    f->stats.hellos++;
    /* The next try needs a wake-up of its own: the device may be idle. */
    if (f->hellos < ROCX_FAB_HELLO_TRIES) {
        rocx_timer_mod(c, &f->hello_timer, ROCX_TIMER_FABRIC,
                       now + ROCX_FAB_HELLO_NS);
    } else {
        rocx_timer_del(c, &f->hello_timer);
    }
    memset(b, 0, sizeof(b));
    rocx_fab_header(c, b, ROCX_FAB_HELLO, 0);
    c->ops->send_frame(c->opaque, b, sizeof(b));
}

/*
 * Frames may go into a bundle: the switch agreed on this dgram link, or
 * the device is on a fabric channel that is up, where every frame does.
 */
static bool rocx_fabric_bundling(RocxCore *c)
{
    return c->chan.on ? c->chan.joined && !c->chan.closed : c->fabric.tx_ok;
}

/* Bytes before a bundle's first entry, and before each entry's frame. */
static size_t rocx_fabric_hlen(RocxCore *c)
{
    return c->chan.timed ? ROCX_FAB_TIMED_HLEN : ROCX_FAB_HLEN;
}

static size_t rocx_fabric_ehlen(RocxCore *c)
{
    return c->chan.timed ? ROCX_FAB_TENTRY_HLEN : ROCX_FAB_ENTRY_HLEN;
}

/* The largest bundle the peer takes; the switch takes ours on a channel. */
static uint32_t rocx_fabric_max(RocxCore *c)
{
    return c->chan.on ? ROCX_FAB_BUNDLE_MAX : c->fabric.tx_max;
}

void rocx_fabric_flush(RocxCore *c)
{
    RocxFabric *f = &c->fabric;
    uint32_t len = f->tx_len;
    uint16_t n = f->tx_count;

    if (!n) {
        return;
    }
    f->tx_len = 0;
    f->tx_count = 0;
    if (c->chan.on) {
        /* On the channel every frame travels in a record, alone or not. */
        rocx_chan_header(c, f->tx, ROCX_FAB_BUNDLE, n, f->tx_first);
        c->chan.stats.tx_records++;
        c->chan.stats.tx_frames += n;
        c->ops->send_frame(c->opaque, f->tx, len);
        return;
    }
    if (n == 1) {
        /* A bundle of one would only add its header. */
        c->ops->send_frame(c->opaque,
                           f->tx + ROCX_FAB_HLEN + ROCX_FAB_ENTRY_HLEN,
                           len - ROCX_FAB_HLEN - ROCX_FAB_ENTRY_HLEN);
        return;
    }
    rocx_fab_header(c, f->tx, ROCX_FAB_BUNDLE, n);
    f->stats.tx_bundles++;
    f->stats.tx_bundled += n;
    c->ops->send_frame(c->opaque, f->tx, len);
}

/* Where the next frame goes in the bundle (after its entry header). */
static uint8_t *rocx_fabric_tail(RocxCore *c)
{
    RocxFabric *f = &c->fabric;

    return f->tx + (f->tx_len ? f->tx_len : rocx_fabric_hlen(c)) +
           rocx_fabric_ehlen(c);
}

uint8_t *rocx_frame_buf(RocxCore *c, size_t max_len)
{
    RocxFabric *f = &c->fabric;

    if (!rocx_fabric_bundling(c) || (!c->in_engine && !c->chan.on)) {
        return c->roce_buf;
    }
    if (f->tx_len &&
        f->tx_len + rocx_fabric_ehlen(c) + max_len > rocx_fabric_max(c)) {
        rocx_fabric_flush(c);
    }
    return rocx_fabric_tail(c);
}

void rocx_send_frame(RocxCore *c, const uint8_t *buf, size_t len)
{
    RocxFabric *f = &c->fabric;
    size_t ehlen = rocx_fabric_ehlen(c);
    uint8_t *tail;
    int64_t stamp = 0;

    if (c->chan.on && !rocx_fabric_bundling(c)) {
        /* Not joined yet, or the switch is gone: nowhere to go. */
        rocx_count(c, ROCX_STAT_TX_DROPPED_LINK_DOWN, 1);
        return;
    }
    rocx_sched_wire(c, len);
    /* Outside the engine nothing would flush a dgram bundle: send at once. */
    if (!rocx_fabric_bundling(c) || (!c->in_engine && !c->chan.on)) {
        c->ops->send_frame(c->opaque, buf, len);
        return;
    }
    if (c->chan.timed) {
        stamp = rocx_chan_stamp(c);
    }
    tail = rocx_fabric_tail(c);
    /* Built in place (rocx_frame_buf()) or copied in. */
    if (buf != tail) {
        if (f->tx_len && f->tx_len + ehlen + len > rocx_fabric_max(c)) {
            rocx_fabric_flush(c);
            tail = rocx_fabric_tail(c);
        }
        memmove(tail, buf, len);
    }
    if (!f->tx_len) {
        f->tx_len = rocx_fabric_hlen(c);
        f->tx_first = stamp;
    }
    if (c->chan.timed) {
        stl_be_p(tail - ehlen, stamp - f->tx_first);
    }
    stw_be_p(tail - 2, len);
    f->tx_len += ehlen + len;
    f->tx_count++;
    /* Outside the engine (a pause frame, say) nothing else will flush. */
    if (!c->in_engine) {
        rocx_fabric_flush(c);
    }
}

/*
 * Every frame of a bundle through the receive path, which takes each at
 * once (an Ethernet frame that finds no buffer waits in the device).
 */
static ssize_t rocx_fabric_bundle(RocxCore *c, const uint8_t *buf, size_t len)
{
    RocxFabric *f = &c->fabric;
    uint16_t count = lduw_be_p(buf + ROCX_FAB_OFF_COUNT);
    size_t off = ROCX_FAB_HLEN;
    uint16_t i;

    f->stats.rx_bundles++;
    for (i = 0; i < count; i++) {
        uint16_t flen;

        if (len - off < ROCX_FAB_ENTRY_HLEN) {
            f->stats.rx_errors++;
            return len;
        }
        flen = lduw_be_p(buf + off);
        if (flen > len - off - ROCX_FAB_ENTRY_HLEN) {
            f->stats.rx_errors++;
            return len;
        }
        rocx_rx_frame(c, buf + off + ROCX_FAB_ENTRY_HLEN, flen);
        f->stats.rx_bundled++;
        off += ROCX_FAB_ENTRY_HLEN + flen;
    }
    if (off != len) {
        f->stats.rx_errors++;
    }
    return len;
}

void rocx_fabric_hello_stop(RocxCore *c)
{
    rocx_timer_del(c, &c->fabric.hello_timer);
}

/* The switch's answer to our HELLO, or a frame to count and ignore. */
static void rocx_fabric_hello_ack(RocxCore *c, const uint8_t *buf)
{
    RocxFabric *f = &c->fabric;
    uint32_t max = ldl_be_p(buf + ROCX_FAB_OFF_MAX_LEN);

    if (memcmp(buf + ROCX_FAB_OFF_SRC, rocx_fab_switch,
               sizeof(rocx_fab_switch)) ||
        !f->hellos || f->tx_ok || max < ROCX_FAB_PEER_MIN) {
        f->stats.rx_errors++;
        return;
    }
    f->tx_ok = true;
    f->tx_max = MIN(max, ROCX_FAB_BUNDLE_MAX);
    rocx_fabric_hello_stop(c);
}

ssize_t rocx_fabric_receive(RocxCore *c, const uint8_t *buf, size_t len)
{
    if (!c->bundles || len < ROCX_FAB_HLEN ||
        memcmp(buf + ROCX_FAB_OFF_DST, rocx_fab_dst, sizeof(rocx_fab_dst)) ||
        lduw_be_p(buf + ROCX_FAB_OFF_ETHERTYPE) != ROCX_FAB_ETHERTYPE ||
        (uint32_t)ldl_be_p(buf + ROCX_FAB_OFF_MAGIC) != ROCX_FAB_MAGIC) {
        return -1;
    }
    switch (buf[ROCX_FAB_OFF_TYPE]) {
    case ROCX_FAB_HELLO_ACK:
        rocx_fabric_hello_ack(c, buf);
        break;
    case ROCX_FAB_BUNDLE:
        return rocx_fabric_bundle(c, buf, len);
    default:
        /* Another NIC's HELLO, say: not for us to answer. */
        break;
    }
    return len;
}
