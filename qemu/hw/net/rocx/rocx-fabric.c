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
 * peer ignores the HELLO and frames stay single.  The format, on the link
 * only (Documentation/qemu-rocx.rst, "Fabric bundles"):
 *
 *   dst 01:80:c2:00:00:0e, src, EtherType 0x88b6, "RXF1", type (1 HELLO,
 *   2 HELLO_ACK, 3 BUNDLE), flags 0, count (BE16: frames in a BUNDLE),
 *   max (BE32: the largest datagram the sender takes); a BUNDLE then has
 *   count times a BE16 length and that many bytes of frame.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

#define ROCX_FAB_ETHERTYPE      0x88b6
#define ROCX_FAB_HLEN           (14 + 12)
#define ROCX_FAB_MIN_LEN        60
#define ROCX_FAB_HELLO          1
#define ROCX_FAB_HELLO_ACK      2
#define ROCX_FAB_BUNDLE         3
#define ROCX_FAB_HELLO_TRIES    3
#define ROCX_FAB_HELLO_NS       (1000 * 1000 * 1000LL)
/* A peer must take at least two full frames in a bundle. */
#define ROCX_FAB_MIN_MAX        (ROCX_FAB_HLEN + 2 * (2 + ROCX_MAX_FRAME))

QEMU_BUILD_BUG_ON(ROCX_FABRIC_BUNDLE_MAX < ROCX_FAB_MIN_MAX);

/* The 802.1 nearest-bridge group address: no bridge forwards it. */
static const uint8_t rocx_fab_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };
static const uint8_t rocx_fab_magic[4] = { 'R', 'X', 'F', '1' };

void rocx_core_set_bundles(RocxCore *c, bool on)
{
    c->bundles = on;
}

static void rocx_fab_header(RocxCore *c, uint8_t *b, uint8_t type,
                            uint16_t count)
{
    memcpy(b, rocx_fab_dst, 6);
    memcpy(b + 6, c->port.mac, 6);
    rocx_put_be16(b + 12, ROCX_FAB_ETHERTYPE);
    memcpy(b + 14, rocx_fab_magic, 4);
    b[18] = type;
    b[19] = 0;
    rocx_put_be16(b + 20, count);
    rocx_put_be32(b + 22, ROCX_FABRIC_BUNDLE_MAX);
}

void rocx_fabric_hello(RocxCore *c)
{
    RocxFabric *f = &c->fabric;
    uint8_t b[ROCX_FAB_MIN_LEN];
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
    memset(b, 0, sizeof(b));
    rocx_fab_header(c, b, ROCX_FAB_HELLO, 0);
    c->ops->send_frame(c->opaque, b, sizeof(b));
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
    if (n == 1) {
        /* A bundle of one would only add its header. */
        c->ops->send_frame(c->opaque, f->tx + ROCX_FAB_HLEN + 2,
                           len - ROCX_FAB_HLEN - 2);
        return;
    }
    rocx_fab_header(c, f->tx, ROCX_FAB_BUNDLE, n);
    f->stats.tx_bundles++;
    f->stats.tx_bundled += n;
    c->ops->send_frame(c->opaque, f->tx, len);
}

/* Where the next frame goes in the bundle (after its length). */
static uint8_t *rocx_fabric_tail(RocxFabric *f)
{
    return f->tx + (f->tx_len ? f->tx_len : ROCX_FAB_HLEN) + 2;
}

uint8_t *rocx_frame_buf(RocxCore *c, size_t max_len)
{
    RocxFabric *f = &c->fabric;

    if (!f->tx_ok || !c->in_engine) {
        return c->roce_buf;
    }
    if (f->tx_len && f->tx_len + 2 + max_len > f->tx_max) {
        rocx_fabric_flush(c);
    }
    return rocx_fabric_tail(f);
}

void rocx_send_frame(RocxCore *c, const uint8_t *buf, size_t len)
{
    RocxFabric *f = &c->fabric;
    uint8_t *tail;

    /* Outside the engine nothing would flush a bundle: send at once. */
    if (!f->tx_ok || !c->in_engine) {
        c->ops->send_frame(c->opaque, buf, len);
        return;
    }
    tail = rocx_fabric_tail(f);
    /* Built in place (rocx_frame_buf()) or copied in. */
    if (buf != tail) {
        if (f->tx_len && f->tx_len + 2 + len > f->tx_max) {
            rocx_fabric_flush(c);
            tail = rocx_fabric_tail(f);
        }
        memcpy(tail, buf, len);
    }
    if (!f->tx_len) {
        f->tx_len = ROCX_FAB_HLEN;
    }
    rocx_put_be16(tail - 2, len);
    f->tx_len += 2 + len;
    f->tx_count++;
}

/*
 * Every frame of a bundle through the receive path.  If one has to wait
 * (Ethernet RX ring full) the bundle is held, as a single frame would be,
 * and QEMU offers the same bundle again first: it resumes at that frame.
 */
static ssize_t rocx_fabric_bundle(RocxCore *c, const uint8_t *buf, size_t len)
{
    RocxFabric *f = &c->fabric;
    uint16_t count = rocx_get_be16(buf + 20);
    size_t off = ROCX_FAB_HLEN;
    uint16_t i = 0;

    if (f->rx_hold_len == len && f->rx_hold_sum == rocx_crc32(0, buf, len)) {
        off = f->rx_hold_off;
        i = f->rx_hold_idx;
    } else {
        f->stats.rx_bundles++;
    }
    f->rx_hold_len = 0;
    for (; i < count; i++) {
        uint16_t flen;

        if (len - off < 2) {
            f->stats.rx_errors++;
            return len;
        }
        flen = rocx_get_be16(buf + off);
        if (flen > len - off - 2) {
            f->stats.rx_errors++;
            return len;
        }
        if (!rocx_rx_frame(c, buf + off + 2, flen)) {
            f->rx_hold_len = len;
            f->rx_hold_sum = rocx_crc32(0, buf, len);
            f->rx_hold_off = off;
            f->rx_hold_idx = i;
            return 0;
        }
        f->stats.rx_bundled++;
        off += 2 + flen;
    }
    if (off != len) {
        f->stats.rx_errors++;
    }
    return len;
}

ssize_t rocx_fabric_receive(RocxCore *c, const uint8_t *buf, size_t len)
{
    RocxFabric *f = &c->fabric;
    uint32_t max;

    if (!c->bundles || len < ROCX_FAB_HLEN ||
        memcmp(buf, rocx_fab_dst, 6) ||
        rocx_get_be16(buf + 12) != ROCX_FAB_ETHERTYPE ||
        memcmp(buf + 14, rocx_fab_magic, 4)) {
        return -1;
    }
    switch (buf[18]) {
    case ROCX_FAB_HELLO_ACK:
        max = rocx_get_be32(buf + 22);
        if (max < ROCX_FAB_MIN_MAX) {
            f->stats.rx_errors++;
            break;
        }
        f->tx_ok = true;
        f->tx_max = MIN(max, ROCX_FABRIC_BUNDLE_MAX);
        break;
    case ROCX_FAB_BUNDLE:
        return rocx_fabric_bundle(c, buf, len);
    default:
        /* Another NIC's HELLO, say: not for us to answer. */
        break;
    }
    return len;
}
