/*
 * rocx device model: the Ethernet port's rings and its receive path.
 *
 * One TX and one RX ring of 16-byte descriptors, each with its vector; a
 * TX descriptor is one whole frame, an RX buffer takes one.  A received
 * datagram may be a fabric bundle (rocx-fabric.c splits it); every frame
 * is then classified: RoCE for one of the port's GIDs goes to the
 * transport (rocx-wire.c), anything else through the MAC filter (the
 * port's address, broadcast, every multicast group, or all in
 * promiscuous mode) into the RX ring, or waits in QEMU's queue while the
 * ring has no buffer.
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
        return &c->rx[qid];
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
        (cr->type == ROCX_ETH_RING_RX && buf_size < ROCX_RX_MIN_BUF)) {
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
    /* Held frames are dropped from now on rather than waiting. */
    if (c->rx_stalled) {
        rocx_schedule(c);
    }
}

/* ---- Ethernet TX ---- */

/* Send up to a budget of frames; returns true if descriptors remain. */
bool rocx_tx_process(RocxCore *c, unsigned qid)
{
    RocxEthRing *r = &c->tx[qid];
    uint16_t mask;
    unsigned done = 0;

    if (!r->valid) {
        return false;
    }
    mask = (1u << r->log_depth) - 1;
    while (r->ci != r->pi && done < ROCX_CORE_TX_BUDGET) {
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
            } else {
                rocx_count(c, ROCX_STAT_TX_PACKETS, 1);
                rocx_count(c, ROCX_STAT_TX_BYTES, len);
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
    if (done) {
        rocx_signal(c, r->vector);
    }
    return r->ci != r->pi;
}

/* ---- Ethernet RX ---- */

bool rocx_rx_refuses(RocxCore *c)
{
    RocxEthRing *r = &c->rx[0];

    return c->port.link_up && r->valid && r->ci == r->pi;
}

bool rocx_core_can_receive(RocxCore *c)
{
    if (rocx_rx_refuses(c)) {
        if (!c->rx_stalled) {
            c->rx_stalled = true;
            rocx_count(c, ROCX_STAT_RX_NO_BUFFER, 1);
        }
        return false;
    }
    return true;
}

typedef enum RocxRxClass {
    ROCX_RX_DROP,
    ROCX_RX_UNICAST,
    ROCX_RX_BROADCAST,
    ROCX_RX_MULTICAST,
} RocxRxClass;

static RocxRxClass rocx_rx_classify(RocxCore *c, const uint8_t *dst)
{
    if (is_broadcast_ether_addr(dst)) {
        return ROCX_RX_BROADCAST;
    }
    /* No multicast filter table: every group is accepted. */
    if (is_multicast_ether_addr(dst)) {
        return ROCX_RX_MULTICAST;
    }
    if (!memcmp(dst, c->port.mac, ETH_ALEN) ||
        (c->port.rx_mode & ROCX_RX_MODE_PROMISC)) {
        return ROCX_RX_UNICAST;
    }
    return ROCX_RX_DROP;
}

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
    uint64_t daddr, baddr;
    struct rocx_eth_rx_desc d;
    uint16_t sts = ROCX_ETH_STS_DONE;
    uint8_t tail[4];
    size_t room;

    if (!c->port.link_up) {
        rocx_count(c, ROCX_STAT_RX_DROPPED_LINK_DOWN, 1);
        return len;
    }
    /* RoCE for one of our GIDs goes to the transport, not the ring. */
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
    if (r->ci == r->pi) {
        if (!c->rx_stalled) {
            c->rx_stalled = true;
            rocx_count(c, ROCX_STAT_RX_NO_BUFFER, 1);
        }
        return 0;
    }

    daddr = r->base + (uint64_t)(r->ci & ((1u << r->log_depth) - 1)) * 16;
    r->ci++;
    if (rocx_dma_read(c, daddr, &d, sizeof(d))) {
        rocx_count(c, ROCX_STAT_RX_ERRORS, 1);
        rocx_gerr(c, ROCX_GERR_DMA, 0,
                  "RX ring 0: descriptor at 0x%" PRIx64 " unreadable", daddr);
        return len;
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
    return len;
}
