/*
 * rocx device model: the Ethernet port's rings and its receive path.
 *
 * TX rings (one per traffic class, whose turns the transmit scheduler
 * gives, rocx-sched.c) and one RX ring of 16-byte descriptors, each with
 * its vector; a TX descriptor is one whole frame, an RX buffer takes one.
 * A received datagram may be a fabric bundle (rocx-fabric.c splits it);
 * every frame is then classified before anything waits: RoCE for one of
 * the port's GIDs goes to the transport (rocx-wire.c) at once, MAC
 * control frames are dropped, and anything else goes through the MAC
 * filter (the port's address, broadcast, the multicast groups of
 * SET_MCAST_MACS or all of them until the driver gives any, those of
 * attached UD groups, everything in promiscuous mode) into the RX ring.
 * A frame that finds no posted buffer waits in the device's holding
 * queue, behind the others, up to ROCX_CORE_RX_HOLD_BYTES (beyond:
 * dropped, RX_DISCARDS), and goes to the ring when buffers come; QEMU's
 * own queue, which would hold RoCE behind it, never holds one.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

#define ROCX_RX_MIN_BUF     64

/* ---- Rings ---- */

/* Validate a producer doorbell for an Ethernet ring and latch it. */
void rocx_db_eth(RocxCore *c, RocxEthRing *r, const char *what,
                 unsigned page, uint32_t qid, uint16_t idx)
{
    uint16_t depth;

    if (!r || !r->valid) {
        rocx_gerr(c, ROCX_GERR_DB_QUEUE, page,
                  "%s doorbell: no ring %" PRIu32, what, qid);
        return;
    }
    depth = 1u << r->log_depth;
    if ((uint16_t)(idx - r->ci) > depth) {
        rocx_gerr(c, ROCX_GERR_DB_INDEX, page,
                  "%s doorbell: producer %u more than %u ahead of %u",
                  what, idx, depth, r->ci);
        return;
    }
    rocx_count(c, ROCX_STAT_DOORBELLS, 1);
    r->pi = idx;
}

static RocxEthRing *rocx_eth_ring(RocxCore *c, uint8_t type, uint8_t qid)
{
    if (qid >= ROCX_CORE_MAX_ETH_RINGS) {
        return NULL;
    }
    switch (type) {
    case ROCX_ETH_RING_TX:
        return &c->tx[qid];
    case ROCX_ETH_RING_RX:
        /* Received frames go to ring 0: no other would be filled. */
        return qid ? NULL : &c->rx[qid];
    }
    return NULL;
}

void rocx_cmd_create_eth_ring(RocxCore *c, const union rocx_aq_cmd *cmd,
                              RocxAqResult *res)
{
    const struct rocx_aq_create_eth_ring *cr = &cmd->create_eth_ring;
    RocxEthRing *r = rocx_eth_ring(c, cr->type, cr->qid);
    uint64_t base = ldq_le_p(&cr->base);
    uint16_t buf_size = lduw_le_p(&cr->buf_size);

    if (!r || cr->log_depth < ROCX_ETH_MIN_LOG_DEPTH ||
        cr->log_depth > ROCX_ETH_MAX_LOG_DEPTH ||
        cr->vector >= ROCX_MSIX_VECTORS || (base & 15) ||
        (cr->type == ROCX_ETH_RING_RX && buf_size < ROCX_RX_MIN_BUF) ||
        cr->tc >= (cr->type == ROCX_ETH_RING_TX ? ROCX_NUM_TC : 1)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (r->valid) {
        res->status = ROCX_AQ_STS_EXISTS;
        return;
    }
    memset(r, 0, sizeof(*r));
    r->valid = true;
    r->base = base;
    r->log_depth = cr->log_depth;
    r->vector = cr->vector;
    r->buf_size = cr->type == ROCX_ETH_RING_RX ? buf_size : 0;
    r->tc = cr->tc;
    r->paused_prio = ROCX_NUM_PRIO;
}

void rocx_cmd_destroy_eth_ring(RocxCore *c, const union rocx_aq_cmd *cmd,
                               RocxAqResult *res)
{
    RocxEthRing *r = rocx_eth_ring(c, cmd->destroy_eth_ring.type,
                                   cmd->destroy_eth_ring.qid);

    if (!r) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (!r->valid) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    memset(r, 0, sizeof(*r));
    /* Nothing would take the frames waiting for its buffers. */
    if (cmd->destroy_eth_ring.type == ROCX_ETH_RING_RX) {
        rocx_rx_hold_drop(c, false);
    }
}

/* ---- Ethernet TX ---- */

unsigned rocx_tx_process(RocxCore *c, unsigned qid, unsigned budget,
                         bool *more)
{
    RocxEthRing *r = &c->tx[qid];
    uint16_t mask;
    unsigned done = 0;
    bool paused = false;
    uint8_t prio;

    *more = false;
    if (!r->valid) {
        return 0;
    }
    mask = (1u << r->log_depth) - 1;
    while (r->ci != r->pi && done < budget) {
        uint64_t daddr = r->base + (uint64_t)(r->ci & mask) * 16;
        struct rocx_eth_tx_desc d;
        uint16_t sts = ROCX_ETH_STS_DONE;
        uint8_t sts_le[2];

        if (rocx_dma_read(c, daddr, &d, sizeof(d))) {
            sts |= ROCX_ETH_STS_ERR;
            rocx_count(c, ROCX_STAT_TX_ERRORS, 1);
            rocx_gerr(c, ROCX_GERR_DMA, qid,
                      "TX ring %u: descriptor at 0x%" PRIx64 " unreadable",
                      qid, daddr);
        } else {
            uint64_t addr = ldq_le_p(&d.addr);
            uint16_t len = lduw_le_p(&d.len);
            uint16_t flags = lduw_le_p(&d.flags);

            if (len < ETH_HLEN || len > ROCX_MAX_FRAME || flags) {
                sts |= ROCX_ETH_STS_ERR;
                rocx_count(c, ROCX_STAT_TX_ERRORS, 1);
                rocx_gerr(c, ROCX_GERR_DESC, qid,
                          "TX ring %u: descriptor %u len %u flags 0x%x",
                          qid, r->ci, len, flags);
            } else if (rocx_dma_read(c, addr, c->tx_buf, len)) {
                sts |= ROCX_ETH_STS_ERR;
                rocx_count(c, ROCX_STAT_TX_ERRORS, 1);
                rocx_gerr(c, ROCX_GERR_DMA, qid,
                          "TX ring %u: frame at 0x%" PRIx64 " unreadable",
                          qid, addr);
            } else if (!c->port.link_up) {
                rocx_count(c, ROCX_STAT_TX_DROPPED_LINK_DOWN, 1);
            } else if (rocx_dcb_tx_paused(c, c->tx_buf, len, &prio)) {
                /*
                 * The ring waits at the frame, descriptor not consumed;
                 * the priority's resume schedules the engine again.
                 */
                r->paused_prio = prio;
                paused = true;
                break;
            } else {
                rocx_count(c, ROCX_STAT_TX_PACKETS, 1);
                rocx_count(c, ROCX_STAT_TX_BYTES, len);
                rocx_dcb_tx_count(c, prio, len);
                rocx_send_frame(c, c->tx_buf, len);
            }
        }

        stw_le_p(sts_le, sts);
        if (rocx_dma_write(c, daddr + offsetof(struct rocx_eth_tx_desc,
                                               status),
                           sts_le, sizeof(sts_le))) {
            rocx_gerr(c, ROCX_GERR_DMA, qid,
                      "TX ring %u: status write to 0x%" PRIx64 " failed",
                      qid, daddr);
        }
        r->ci++;
        done++;
    }
    *more = !paused && r->ci != r->pi;
    return done;
}

/* ---- Ethernet RX ---- */

/* MAC control (802.3x PAUSE, 802.1Qbb PFC): the device's own frames. */
#define ROCX_ETH_P_MAC_CONTROL  0x8808
/* 802.3x and 802.1Qbb pause frames go to this group. */
static const uint8_t rocx_pause_dst[ETH_ALEN] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01
};
/*
 * Before each waiting frame in the holding queue, 4 bytes: [13:0] its
 * length (ROCX_MAX_FRAME fits) and [15:14] its class, decided when it
 * came, then its priority (whose receive buffer it occupies, rocx-dcb.c)
 * and a zero byte.  A frame longer than any buffer takes (it will be
 * returned TRUNC) waits as its length alone, ROCX_RX_HOLD_TOO_LONG.
 */
#define ROCX_RX_HOLD_HLEN       4
#define ROCX_RX_HOLD_LEN_MASK   0x3fff
#define ROCX_RX_HOLD_CLS_SHIFT  14
#define ROCX_RX_HOLD_TOO_LONG   (ROCX_MAX_FRAME + 1)

QEMU_BUILD_BUG_ON(ROCX_RX_HOLD_TOO_LONG > ROCX_RX_HOLD_LEN_MASK);

/*
 * No frame waits in QEMU's queue for a buffer: it holds a NIC's frames in
 * one FIFO, so a frame refused there would hold up every frame behind
 * it, RoCE included.  RoCE frames are taken by the transport at once;
 * Ethernet frames that find no buffer wait in the device (rx_hold).  (A
 * frame delivered from inside the engine is refused by receive(), for a
 * moment: see rocx_core_receive().)
 */
bool rocx_core_can_receive(RocxCore *c)
{
    return true;
}

typedef enum RocxRxClass {
    ROCX_RX_DROP,
    ROCX_RX_UNICAST,
    ROCX_RX_BROADCAST,
    ROCX_RX_MULTICAST,
} RocxRxClass;

static bool rocx_mcast_listed(RocxCore *c, const uint8_t *dst)
{
    unsigned i;

    for (i = 0; i < c->port.mcast_count; i++) {
        if (!memcmp(c->port.mcast[i], dst, ETH_ALEN)) {
            return true;
        }
    }
    return false;
}

/* The MAC filter, for a frame of at least ETH_HLEN bytes. */
static RocxRxClass rocx_rx_classify(RocxCore *c, const uint8_t *buf)
{
    const uint8_t *dst = buf;

    if (lduw_be_p(buf + 12) == ROCX_ETH_P_MAC_CONTROL) {
        /* Pause frames not acted on, and any other: never passed on. */
        return ROCX_RX_DROP;
    }
    if (is_broadcast_ether_addr(dst)) {
        return ROCX_RX_BROADCAST;
    }
    if (is_multicast_ether_addr(dst)) {
        /*
         * Until the driver gives the device its groups: all of them.
         * The groups UD QPs are attached to count as given (rocx-mcast.c).
         */
        if (!c->port.mcast_on ||
            (c->port.rx_mode & (ROCX_RX_MODE_ALLMULTI |
                                ROCX_RX_MODE_PROMISC)) ||
            rocx_mcast_listed(c, dst) || rocx_mcast_mac_wanted(c, dst)) {
            return ROCX_RX_MULTICAST;
        }
        return ROCX_RX_DROP;
    }
    if (!memcmp(dst, c->port.mac, ETH_ALEN) ||
        (c->port.rx_mode & ROCX_RX_MODE_PROMISC)) {
        return ROCX_RX_UNICAST;
    }
    return ROCX_RX_DROP;
}

bool rocx_mac_valid_unicast(const uint8_t *mac)
{
    static const uint8_t zero[ETH_ALEN];

    return !is_multicast_ether_addr(mac) && memcmp(mac, zero, ETH_ALEN);
}

void rocx_cmd_set_mcast_macs(RocxCore *c, const union rocx_aq_cmd *cmd,
                             RocxAqResult *res)
{
    const struct rocx_aq_set_mcast_macs *sm = &cmd->set_mcast_macs;
    uint64_t addr = ldq_le_p(&sm->addr);
    uint32_t n = ldl_le_p(&sm->count);
    struct rocx_mcast_mac l[ROCX_CORE_MAX_MCAST_MACS];
    unsigned i;

    if (n > ROCX_CORE_MAX_MCAST_MACS) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (n && rocx_dma_read(c, addr, l, n * sizeof(l[0]))) {
        res->status = ROCX_AQ_STS_DMA_ERROR;
        return;
    }
    /* The whole list is checked before the filter changes. */
    for (i = 0; i < n; i++) {
        if (!is_multicast_ether_addr(l[i].mac) || lduw_le_p(&l[i].rsvd)) {
            res->status = ROCX_AQ_STS_INVALID;
            return;
        }
    }
    for (i = 0; i < n; i++) {
        memcpy(c->port.mcast[i], l[i].mac, ETH_ALEN);
    }
    c->port.mcast_count = n;
    c->port.mcast_on = true;
}

/* Write a frame into the next posted buffer, which the caller saw. */
static void rocx_rx_write(RocxCore *c, const uint8_t *buf, size_t len,
                          RocxRxClass cls)
{
    RocxEthRing *r = &c->rx[0];
    uint64_t daddr, baddr;
    struct rocx_eth_rx_desc d;
    uint16_t sts = ROCX_ETH_STS_DONE;
    uint8_t tail[4];
    size_t room;

    daddr = r->base + (uint64_t)(r->ci & ((1u << r->log_depth) - 1)) * 16;
    r->ci++;
    if (rocx_dma_read(c, daddr, &d, sizeof(d))) {
        rocx_count(c, ROCX_STAT_RX_ERRORS, 1);
        rocx_gerr(c, ROCX_GERR_DMA, 0,
                  "RX ring 0: descriptor at 0x%" PRIx64 " unreadable", daddr);
        return;
    }
    baddr = ldq_le_p(&d.addr);
    room = MIN((size_t)r->buf_size, (size_t)ROCX_MAX_FRAME);
    if (len > room) {
        /* Dropped, and the buffer goes back to the driver marked so. */
        sts |= ROCX_ETH_STS_TRUNC;
        rocx_count(c, ROCX_STAT_RX_TRUNCATED, 1);
    } else if (rocx_dma_write(c, baddr, buf, len)) {
        sts |= ROCX_ETH_STS_ERR;
        rocx_count(c, ROCX_STAT_RX_ERRORS, 1);
        rocx_gerr(c, ROCX_GERR_DMA, 0,
                  "RX ring 0: buffer at 0x%" PRIx64 " not writable", baddr);
    } else {
        rocx_count(c, ROCX_STAT_RX_PACKETS, 1);
        rocx_count(c, ROCX_STAT_RX_BYTES, len);
        if (cls == ROCX_RX_BROADCAST) {
            rocx_count(c, ROCX_STAT_RX_BROADCAST, 1);
        } else if (cls == ROCX_RX_MULTICAST) {
            rocx_count(c, ROCX_STAT_RX_MULTICAST, 1);
        }
    }
    /* pkt_len and status land in one write: status never precedes len. */
    stw_le_p(tail, MIN(len, (size_t)UINT16_MAX));
    stw_le_p(tail + 2, sts);
    if (rocx_dma_write(c, daddr + offsetof(struct rocx_eth_rx_desc, pkt_len),
                       tail, sizeof(tail))) {
        rocx_count(c, ROCX_STAT_RX_ERRORS, 1);
        rocx_gerr(c, ROCX_GERR_DMA, 0,
                  "RX ring 0: status write to 0x%" PRIx64 " failed", daddr);
    }
    rocx_signal(c, r->vector);
}

/* ---- Frames waiting for a buffer ---- */

/* Queue a frame behind those waiting; false if it does not fit. */
static bool rocx_rx_hold_push(RocxCore *c, const uint8_t *buf, size_t len,
                              RocxRxClass cls, uint8_t prio)
{
    RocxRxHold *h = &c->rx_hold;
    uint32_t need, at;

    if (len > ROCX_MAX_FRAME) {
        len = ROCX_RX_HOLD_TOO_LONG;
    }
    need = ROCX_RX_HOLD_HLEN + (len > ROCX_MAX_FRAME ? 0 : len);
    /* The priority's share of the receive buffer first. */
    if (!rocx_dcb_rx_room(c, prio, need - ROCX_RX_HOLD_HLEN)) {
        return false;
    }

    if (!h->count) {
        h->head = h->tail = 0;
        h->wrapped = false;
    }
    if (h->wrapped) {
        /* Between the wrapped entries and the oldest. */
        if (h->tail + need > h->head) {
            return false;
        }
        at = h->tail;
    } else if (h->tail + need <= sizeof(h->buf)) {
        at = h->tail;
    } else if (need <= h->head) {
        /* No room before the end: start again at 0. */
        h->wrap_at = h->tail;
        h->wrapped = true;
        at = 0;
    } else {
        return false;
    }
    stw_he_p(h->buf + at, len | cls << ROCX_RX_HOLD_CLS_SHIFT);
    h->buf[at + 2] = prio;
    h->buf[at + 3] = 0;
    memcpy(h->buf + at + ROCX_RX_HOLD_HLEN, buf, need - ROCX_RX_HOLD_HLEN);
    h->tail = at + need;
    h->count++;
    rocx_dcb_rx_held(c, prio, need - ROCX_RX_HOLD_HLEN);
    return true;
}

/* The oldest waiting frame. */
static uint8_t *rocx_rx_hold_peek(RocxRxHold *h, size_t *len,
                                  RocxRxClass *cls)
{
    uint16_t w = lduw_he_p(h->buf + h->head);

    *len = w & ROCX_RX_HOLD_LEN_MASK;
    *cls = w >> ROCX_RX_HOLD_CLS_SHIFT;
    return h->buf + h->head + ROCX_RX_HOLD_HLEN;
}

static void rocx_rx_hold_pop(RocxCore *c, RocxRxHold *h)
{
    uint32_t len = lduw_he_p(h->buf + h->head) & ROCX_RX_HOLD_LEN_MASK;
    uint32_t data = len > ROCX_MAX_FRAME ? 0 : len;

    rocx_dcb_rx_held(c, h->buf[h->head + 2], -(int32_t)data);
    h->head += ROCX_RX_HOLD_HLEN + data;
    if (h->wrapped && h->head == h->wrap_at) {
        h->head = 0;
        h->wrapped = false;
    }
    if (!--h->count) {
        h->head = h->tail = 0;
        h->wrapped = false;
    }
}

void rocx_rx_hold_drop(RocxCore *c, bool link_down)
{
    RocxRxHold *h = &c->rx_hold;

    if (link_down) {
        rocx_count(c, ROCX_STAT_RX_DROPPED_LINK_DOWN, h->count);
    }
    h->count = 0;
    h->head = h->tail = 0;
    h->wrapped = false;
    rocx_dcb_rx_clear(c);
}

bool rocx_rx_drain(RocxCore *c)
{
    RocxRxHold *h = &c->rx_hold;
    RocxEthRing *r = &c->rx[0];
    unsigned n = 0;

    if (!h->count) {
        return false;
    }
    if (!c->port.link_up) {
        rocx_rx_hold_drop(c, true);
        return false;
    }
    if (!r->valid) {
        rocx_rx_hold_drop(c, false);
        return false;
    }
    while (h->count && r->ci != r->pi && n < ROCX_CORE_RX_BUDGET) {
        RocxRxClass cls;
        size_t len;
        uint8_t *f = rocx_rx_hold_peek(h, &len, &cls);

        rocx_rx_write(c, f, len, cls);
        rocx_rx_hold_pop(c, h);
        n++;
    }
    return h->count && r->ci != r->pi;
}

/* ---- Receive ---- */

ssize_t rocx_core_receive(RocxCore *c, const uint8_t *buf, size_t len)
{
    ssize_t ret;

    /*
     * Nested in the engine, whose QP and job state are mid-update: held
     * until rocx_core_process() is done and asks for it again.
     */
    if (c->in_engine) {
        c->rx_deferred = true;
        return 0;
    }
    ret = rocx_fabric_receive(c, buf, len);
    return ret >= 0 ? ret : rocx_rx_frame(c, buf, len);
}

ssize_t rocx_rx_frame(RocxCore *c, const uint8_t *buf, size_t len)
{
    RocxEthRing *r = &c->rx[0];
    RocxRxClass cls;
    uint8_t prio;

    if (!c->port.link_up) {
        rocx_count(c, ROCX_STAT_RX_DROPPED_LINK_DOWN, 1);
        return len;
    }
    prio = rocx_dcb_frame_prio(c, buf, len);
    rocx_dcb_rx_count(c, prio, len);
    /* Pause frames are the device's: acted on here, never passed on. */
    if (len >= ETH_HLEN && lduw_be_p(buf + 12) == ROCX_ETH_P_MAC_CONTROL &&
        !memcmp(buf, rocx_pause_dst, ETH_ALEN) &&
        rocx_dcb_rx_control(c, buf, len)) {
        return len;
    }
    /* RoCE for one of our GIDs goes to the transport, never waiting. */
    if (rocx_roce_receive(c, buf, len, false) == ROCX_RX_DONE) {
        return len;
    }
    cls = len < ETH_HLEN ? ROCX_RX_DROP : rocx_rx_classify(c, buf);
    if (cls == ROCX_RX_DROP) {
        rocx_count(c, ROCX_STAT_RX_DROPPED_FILTER, 1);
        return len;
    }
    if (!r->valid) {
        /* No ring: nothing would ever free a buffer, so do not hold it. */
        rocx_count(c, ROCX_STAT_RX_NO_BUFFER, 1);
        return len;
    }
    /* Behind the frames that wait, in order, even if a buffer is free. */
    if (c->rx_hold.count || r->ci == r->pi) {
        rocx_count(c, ROCX_STAT_RX_NO_BUFFER, 1);
        if (!rocx_rx_hold_push(c, buf, len, cls, prio)) {
            rocx_count(c, ROCX_STAT_RX_DISCARDS, 1);
            rocx_count(c, ROCX_STAT_PRIO(prio, ROCX_STAT_PRIO_RX_DISCARDS), 1);
        } else if (r->ci != r->pi) {
            rocx_schedule(c);
        }
        return len;
    }
    rocx_rx_write(c, buf, len, cls);
    return len;
}

/* ---- Link status ---- */

uint32_t rocx_core_link_status(RocxCore *c)
{
    bool carrier = c->ops->carrier(c->opaque);
    /* Gb/s, rounded down, but never 0 for a port with a rate. */
    uint32_t v = ROCX_FIELD_PREP(ROCX_LINK_SPEED_MASK,
                                 MAX(c->speed_mbps / 1000, 1));

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
