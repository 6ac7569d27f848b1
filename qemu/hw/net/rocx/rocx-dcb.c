/*
 * rocx device model: DCB, the port's priorities (Documentation/
 * rocx-device.rst, "DCB: priorities, ETS and PFC" and "Port rate").
 *
 * SET_DCB and QUERY_DCB keep the configuration; every received frame is
 * given a priority by the trust mode and counted in it; received PFC and
 * 802.3x pause frames pause the priorities they name for their quanta at
 * the port's rate.  A paused priority sends nothing: QPs of that priority
 * are parked here instead of running (what they would send stays in their
 * send queues, as in a NIC that stops fetching WQEs of a paused class)
 * and an Ethernet TX ring stops at a frame of it, until the pause expires
 * or a quanta-0 frame resumes it.  Traffic looped back inside the device
 * never crosses the link and is never paused.
 *
 * Pause sent: the receive buffer's occupancy per priority decides.  A
 * lossless priority above its xoff sends PFC for itself; with link pause
 * sent (pause bit 1, which excludes PFC) any priority above its xoff
 * sends an 802.3x PAUSE for the port, until every one is back at xon.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "rocx-int.h"
#include "rocx-hdr.h"

#define ROCX_ETH_P_MAC_CONTROL  0x8808
#define ROCX_PFC_OPCODE         0x0101
#define ROCX_PAUSE_OPCODE       0x0001
/* Opcode and class-enable vector, then eight quanta. */
#define ROCX_PFC_BODY_LEN       (2 + 2 + 2 * ROCX_NUM_PRIO)
/*
 * XOFF refreshes come at most this often: with ROCX_DCB_PFC_QUANTA_MIN
 * the half pause is longer at every speed up to ROCX_CORE_MAX_SPEED, so
 * this only bounds the timer's rate, never lets a pause lapse.
 */
#define ROCX_DCB_REFRESH_MIN_NS 10000

void rocx_dcb_reset(RocxCore *c)
{
    RocxDcb *d = &c->dcb;
    unsigned p;

    for (p = 0; p < ROCX_NUM_PRIO; p++) {
        rocx_timer_del(c, &d->pause_timer[p]);
        rocx_timer_del(c, &d->xoff_timer[p]);
    }
    rocx_timer_del(c, &d->link_xoff_timer);
    memset(d, 0, sizeof(*d));
    for (p = 0; p < ROCX_NUM_PRIO; p++) {
        d->prio_tc[p] = p;
        d->tc_tsa[p] = ROCX_TSA_ETS;
        d->tc_bw[p] = p < 4 ? 12 : 13;
        d->buf_size[p] = ROCX_CORE_RX_BUF_TOTAL / ROCX_NUM_PRIO;
        d->xoff[p] = d->buf_size[p] - 2 * ROCX_MAX_FRAME - 4096;
        d->xon[p] = d->xoff[p] - 2 * ROCX_MAX_FRAME;
    }
    for (p = 0; p < ROCX_NUM_DSCP; p++) {
        d->dscp2prio[p] = p >> 3;
    }
    d->pfc_quanta = 0xffff;
}

/* ---- Configuration (SET_DCB, QUERY_DCB) ---- */

static void rocx_dcb_to_cfg(const RocxDcb *d, struct rocx_dcb_cfg *cfg)
{
    unsigned i;

    memset(cfg, 0, sizeof(*cfg));
    stl_le_p(&cfg->valid, ROCX_DCB_ALL);
    cfg->trust = d->trust;
    cfg->pfc_en = d->pfc_en;
    cfg->pause = d->pause;
    memcpy(cfg->prio_tc, d->prio_tc, sizeof(cfg->prio_tc));
    memcpy(cfg->tc_tsa, d->tc_tsa, sizeof(cfg->tc_tsa));
    memcpy(cfg->tc_bw, d->tc_bw, sizeof(cfg->tc_bw));
    memcpy(cfg->dscp2prio, d->dscp2prio, sizeof(cfg->dscp2prio));
    for (i = 0; i < ROCX_NUM_PRIO; i++) {
        stl_le_p(&cfg->tc_maxrate[i], d->tc_maxrate[i]);
        stl_le_p(&cfg->buf_size[i], d->buf_size[i]);
        stl_le_p(&cfg->xoff[i], d->xoff[i]);
        stl_le_p(&cfg->xon[i], d->xon[i]);
    }
    stw_le_p(&cfg->pfc_quanta, d->pfc_quanta);
}

static bool rocx_all_zero(const uint8_t *p, size_t n)
{
    while (n--) {
        if (*p++) {
            return false;
        }
    }
    return true;
}

/*
 * The configuration cfg would leave, in n: the fields valid selects from
 * cfg, the others as they are.  False if the result is not one the device
 * takes (rocx-device.rst lists the rules).
 */
static bool rocx_dcb_merge(const RocxDcb *cur, const struct rocx_dcb_cfg *cfg,
                           RocxDcb *n)
{
    uint32_t valid = ldl_le_p(&cfg->valid);
    uint32_t bw = 0, bufs = 0;
    bool ets = false;
    unsigned i;

    if ((valid & ~ROCX_DCB_ALL) || cfg->rsvd0 ||
        !rocx_all_zero(cfg->rsvd1, sizeof(cfg->rsvd1))) {
        return false;
    }
    *n = *cur;
    if (valid & ROCX_DCB_TRUST) {
        n->trust = cfg->trust;
    }
    if (valid & ROCX_DCB_DSCP2PRIO) {
        memcpy(n->dscp2prio, cfg->dscp2prio, sizeof(n->dscp2prio));
    }
    if (valid & ROCX_DCB_PFC) {
        n->pfc_en = cfg->pfc_en;
        n->pfc_quanta = lduw_le_p(&cfg->pfc_quanta);
    }
    if (valid & ROCX_DCB_PAUSE) {
        n->pause = cfg->pause;
    }
    if (valid & ROCX_DCB_ETS) {
        memcpy(n->prio_tc, cfg->prio_tc, sizeof(n->prio_tc));
        memcpy(n->tc_tsa, cfg->tc_tsa, sizeof(n->tc_tsa));
        memcpy(n->tc_bw, cfg->tc_bw, sizeof(n->tc_bw));
    }
    for (i = 0; i < ROCX_NUM_PRIO; i++) {
        if (valid & ROCX_DCB_MAXRATE) {
            n->tc_maxrate[i] = ldl_le_p(&cfg->tc_maxrate[i]);
        }
        if (valid & ROCX_DCB_BUFFER) {
            n->buf_size[i] = ldl_le_p(&cfg->buf_size[i]);
            n->xoff[i] = ldl_le_p(&cfg->xoff[i]);
            n->xon[i] = ldl_le_p(&cfg->xon[i]);
        }
    }

    if (n->trust > ROCX_TRUST_DSCP || (n->pause & ~(ROCX_PAUSE_RX |
                                                    ROCX_PAUSE_TX)) ||
        (n->pause && n->pfc_en) || n->pfc_quanta < ROCX_DCB_PFC_QUANTA_MIN) {
        return false;
    }
    for (i = 0; i < ROCX_NUM_DSCP; i++) {
        if (n->dscp2prio[i] >= ROCX_NUM_PRIO) {
            return false;
        }
    }
    for (i = 0; i < ROCX_NUM_PRIO; i++) {
        if (n->prio_tc[i] >= ROCX_NUM_TC || n->tc_tsa[i] > ROCX_TSA_ETS ||
            n->tc_maxrate[i] > ROCX_CORE_MAX_SPEED ||
            n->xon[i] > n->xoff[i] || n->xoff[i] > n->buf_size[i]) {
            return false;
        }
        /*
         * A lossless priority's XOFF and XON are a frame apart at least:
         * with xon = xoff each frame held and taken would send a pair.
         * Link pause sent makes every priority's thresholds count.
         */
        if (((n->pfc_en & ROCX_BIT(i)) || (n->pause & ROCX_PAUSE_TX)) &&
            n->xoff[i] - n->xon[i] < ROCX_MAX_FRAME) {
            return false;
        }
        if (n->tc_tsa[i] == ROCX_TSA_STRICT) {
            if (n->tc_bw[i]) {
                return false;
            }
        } else {
            ets = true;
            bw += n->tc_bw[i];
        }
        bufs += n->buf_size[i];
        if (bufs > ROCX_CORE_RX_BUF_TOTAL) {
            return false;
        }
    }
    return !ets || bw == 100;
}

static void rocx_dcb_retag(RocxCore *c);
static void rocx_dcb_xon(RocxCore *c, unsigned p, int64_t now);
static void rocx_dcb_link_xon(RocxCore *c, int64_t now);

void rocx_cmd_set_dcb(RocxCore *c, const union rocx_aq_cmd *cmd,
                      RocxAqResult *res)
{
    uint64_t addr = ldq_le_p(&cmd->cfg_buf.addr);
    struct rocx_dcb_cfg cfg;
    RocxDcb n;
    unsigned p;
    bool retag;

    if ((uint32_t)ldl_le_p(&cmd->cfg_buf.len) < sizeof(cfg)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (rocx_dma_read(c, addr, &cfg, sizeof(cfg))) {
        res->status = ROCX_AQ_STS_DMA_ERROR;
        return;
    }
    if (!rocx_dcb_merge(&c->dcb, &cfg, &n)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    retag = n.trust != c->dcb.trust || n.pfc_en != c->dcb.pfc_en;
    c->dcb.trust = n.trust;
    c->dcb.pfc_en = n.pfc_en;
    c->dcb.pause = n.pause;
    c->dcb.pfc_quanta = n.pfc_quanta;
    memcpy(c->dcb.prio_tc, n.prio_tc, sizeof(n.prio_tc));
    memcpy(c->dcb.tc_tsa, n.tc_tsa, sizeof(n.tc_tsa));
    memcpy(c->dcb.tc_bw, n.tc_bw, sizeof(n.tc_bw));
    memcpy(c->dcb.tc_maxrate, n.tc_maxrate, sizeof(n.tc_maxrate));
    memcpy(c->dcb.dscp2prio, n.dscp2prio, sizeof(n.dscp2prio));
    memcpy(c->dcb.buf_size, n.buf_size, sizeof(n.buf_size));
    memcpy(c->dcb.xoff, n.xoff, sizeof(n.xoff));
    memcpy(c->dcb.xon, n.xon, sizeof(n.xon));
    if (retag) {
        rocx_dcb_retag(c);
    }
    /*
     * A priority no longer honouring pause is not paused any more, and
     * one no longer lossless lets its partner go.
     */
    for (p = 0; p < ROCX_NUM_PRIO; p++) {
        if (c->dcb.paused & ROCX_BIT(p) && !rocx_dcb_honours(c, p)) {
            rocx_dcb_resume(c, p, rocx_now(c));
        }
        if (!(c->dcb.pfc_en & ROCX_BIT(p))) {
            rocx_dcb_xon(c, p, rocx_now(c));
        }
    }
    if (!(c->dcb.pause & ROCX_PAUSE_TX)) {
        rocx_dcb_link_xon(c, rocx_now(c));
    }
}

void rocx_dcb_path_tag(RocxCore *c, RocxPath *p)
{
    uint16_t pcp = p->prio << 13;

    if (p->vlan != ROCX_VLAN_NONE) {
        p->tci = pcp | p->vlan;
    } else if (c->dcb.trust == ROCX_TRUST_PCP &&
               (c->dcb.pfc_en & ROCX_BIT(p->prio))) {
        /* Else the partner could not tell the priority it must pause. */
        p->tci = pcp;
    } else {
        p->tci = ROCX_VLAN_NONE;
    }
}

/* Trust or PFC changed: every live QP's tag follows. */
static void rocx_dcb_retag(RocxCore *c)
{
    unsigned slot;

    for (slot = 0; slot < ROCX_CORE_QP_SLOTS; slot++) {
        RocxQp *qp = c->rdma.qp[slot];

        if (qp) {
            rocx_dcb_path_tag(c, &qp->path);
        }
    }
}

void rocx_cmd_query_dcb(RocxCore *c, const union rocx_aq_cmd *cmd,
                        RocxAqResult *res)
{
    struct rocx_dcb_cfg cfg;

    if ((uint32_t)ldl_le_p(&cmd->cfg_buf.len) < sizeof(cfg)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    rocx_dcb_to_cfg(&c->dcb, &cfg);
    if (rocx_dma_write(c, ldq_le_p(&cmd->cfg_buf.addr), &cfg, sizeof(cfg))) {
        res->status = ROCX_AQ_STS_DMA_ERROR;
    }
}

/* ---- Receive: priorities ---- */

uint8_t rocx_dcb_frame_prio(RocxCore *c, const uint8_t *buf, size_t len)
{
    uint16_t type;
    size_t l3 = ETH_HLEN;

    if (len < ETH_HLEN) {
        return 0;
    }
    type = lduw_be_p(buf + 12);
    if (type == ETH_P_VLAN) {
        if (len < ETH_HLEN + ROCX_VLAN_HLEN) {
            return 0;
        }
        if (c->dcb.trust == ROCX_TRUST_PCP) {
            return lduw_be_p(buf + 14) >> 13;
        }
        type = lduw_be_p(buf + 16);
        l3 += ROCX_VLAN_HLEN;
    }
    if (c->dcb.trust == ROCX_TRUST_PCP) {
        return 0;
    }
    /* DSCP trust: the IP header's DSCP; anything else is priority 0. */
    if (type == ETH_P_IP && len >= l3 + 2) {
        return c->dcb.dscp2prio[buf[l3 + 1] >> 2];
    }
    if (type == ETH_P_IPV6 && len >= l3 + 2) {
        return c->dcb.dscp2prio[((lduw_be_p(buf + l3) >> 4) & 0xff) >> 2];
    }
    return 0;
}

void rocx_dcb_rx_count(RocxCore *c, uint8_t p, size_t len)
{
    rocx_count(c, ROCX_STAT_PRIO(p, ROCX_STAT_PRIO_RX_PACKETS), 1);
    rocx_count(c, ROCX_STAT_PRIO(p, ROCX_STAT_PRIO_RX_BYTES), len);
}

void rocx_dcb_tx_count(RocxCore *c, uint8_t prio, size_t len)
{
    rocx_count(c, ROCX_STAT_PRIO(prio, ROCX_STAT_PRIO_TX_PACKETS), 1);
    rocx_count(c, ROCX_STAT_PRIO(prio, ROCX_STAT_PRIO_TX_BYTES), len);
}

/* ---- Pause ---- */

bool rocx_dcb_honours(RocxCore *c, unsigned prio)
{
    return (c->dcb.pfc_en & ROCX_BIT(prio)) || (c->dcb.pause & ROCX_PAUSE_RX);
}

/* quanta x 512 bit times at the port's rate, in ns. */
int64_t rocx_dcb_quanta_ns(RocxCore *c, uint16_t quanta)
{
    return DIV_ROUND_UP((uint64_t)quanta * 512 * 1000, c->speed_mbps);
}

/* Account the time priority p was paused, up to now. */
static void rocx_dcb_account(RocxCore *c, unsigned p, int64_t now)
{
    RocxDcb *d = &c->dcb;
    int64_t end = MIN(now, d->paused_until[p]);
    uint64_t us;

    if (end > d->paused_since[p]) {
        us = (end - d->paused_since[p]) / 1000;
        rocx_count(c, ROCX_STAT_PRIO(p, ROCX_STAT_PRIO_RX_PAUSE_DURATION), us);
        /* An 802.3x pause holds every priority: count the link once. */
        if (d->link_pause && p == 0) {
            rocx_count(c, ROCX_STAT_RX_PAUSE_DURATION, us);
        }
    }
    d->paused_since[p] = now;
}

void rocx_dcb_resume(RocxCore *c, unsigned p, int64_t now)
{
    RocxDcb *d = &c->dcb;
    unsigned w;

    if (!(d->paused & ROCX_BIT(p))) {
        return;
    }
    rocx_dcb_account(c, p, now);
    d->paused &= ~ROCX_BIT(p);
    if (!d->paused) {
        d->link_pause = false;
    }
    rocx_timer_del(c, &d->pause_timer[p]);
    /* Every QP parked on the priority runs again; nothing else is read. */
    for (w = 0; w < ARRAY_SIZE(d->parked[p]); w++) {
        while (d->parked[p][w]) {
            unsigned slot = w * 64 + ctz64(d->parked[p][w]);
            RocxQp *qp = c->rdma.qp[slot];

            d->parked[p][w] &= d->parked[p][w] - 1;
            if (qp) {
                rocx_qp_schedule(c, qp);
            }
        }
    }
    /* A TX ring stopped at a frame of the priority goes on. */
    rocx_schedule(c);
}

static void rocx_dcb_pause(RocxCore *c, unsigned p, uint16_t quanta,
                           int64_t now, bool link)
{
    RocxDcb *d = &c->dcb;

    if (!quanta) {
        rocx_dcb_resume(c, p, now);
        return;
    }
    if (d->paused & ROCX_BIT(p)) {
        rocx_dcb_account(c, p, now);
    } else {
        d->paused_since[p] = now;
    }
    /* A new pause frame replaces the time left, longer or shorter. */
    d->paused |= ROCX_BIT(p);
    d->link_pause = link;
    d->paused_until[p] = now + rocx_dcb_quanta_ns(c, quanta);
    rocx_timer_mod(c, &d->pause_timer[p], ROCX_TIMER_DCB,
                   d->paused_until[p]);
}

bool rocx_dcb_rx_control(RocxCore *c, const uint8_t *buf, size_t len)
{
    const uint8_t *body = buf + ETH_HLEN;
    int64_t now = rocx_now(c);
    uint16_t op;
    unsigned p;

    if (len < ETH_HLEN + ROCX_PFC_BODY_LEN) {
        return false;
    }
    op = lduw_be_p(body);
    if (op == ROCX_PFC_OPCODE) {
        uint16_t cev = lduw_be_p(body + 2) & c->dcb.pfc_en;

        for (p = 0; p < ROCX_NUM_PRIO; p++) {
            uint16_t q = lduw_be_p(body + 4 + 2 * p);

            if (!(cev & ROCX_BIT(p))) {
                continue;
            }
            if (q) {
                rocx_count(c, ROCX_STAT_PRIO(p, ROCX_STAT_PRIO_RX_PAUSE), 1);
            }
            rocx_trace_pause(c, p, q, false);
            rocx_dcb_pause(c, p, q, now, false);
        }
        /* Naming no priority that is lossless here: dropped, counted. */
        return cev != 0;
    }
    if (op == ROCX_PAUSE_OPCODE && (c->dcb.pause & ROCX_PAUSE_RX)) {
        uint16_t q = lduw_be_p(body + 2);

        if (q) {
            rocx_count(c, ROCX_STAT_RX_PAUSE, 1);
        }
        rocx_trace_pause(c, -1, q, false);
        for (p = 0; p < ROCX_NUM_PRIO; p++) {
            rocx_dcb_pause(c, p, q, now, true);
        }
        return true;
    }
    return false;
}

/* ---- Pause sent ---- */

/*
 * A MAC control frame of opcode op whose first field is w, in f (zeroed,
 * the minimum length).  It is sent at once, unscheduled: ahead of every
 * frame the scheduler has not started and, inside an engine run, ahead
 * of the run's frames, which rocx_sched_run() starts after the receive
 * path and the timers; rocx_send_frame() charges its line time.
 */
static void rocx_dcb_ctl_frame(RocxCore *c, uint8_t *f, uint16_t op,
                               uint16_t w)
{
    static const uint8_t dst[ETH_ALEN] = { 0x01, 0x80, 0xc2, 0, 0, 0x01 };

    memcpy(f, dst, ETH_ALEN);
    memcpy(f + ETH_ALEN, c->port.mac, ETH_ALEN);
    stw_be_p(f + 12, ROCX_ETH_P_MAC_CONTROL);
    stw_be_p(f + ETH_HLEN, op);
    stw_be_p(f + ETH_HLEN + 2, w);
}

/* A PFC frame for the priorities in cev, each with quanta. */
static void rocx_dcb_send_pfc(RocxCore *c, uint8_t cev, uint16_t quanta)
{
    uint8_t f[ETH_ZLEN];
    unsigned p;

    if (!c->port.link_up) {
        return;
    }
    memset(f, 0, sizeof(f));
    rocx_dcb_ctl_frame(c, f, ROCX_PFC_OPCODE, cev);
    for (p = 0; p < ROCX_NUM_PRIO; p++) {
        if (cev & ROCX_BIT(p)) {
            rocx_trace_pause(c, p, quanta, true);
            stw_be_p(f + ETH_HLEN + 4 + 2 * p, quanta);
            if (quanta) {
                rocx_count(c, ROCX_STAT_PRIO(p, ROCX_STAT_PRIO_TX_PAUSE), 1);
            }
        }
    }
    rocx_send_frame(c, f, sizeof(f));
}

/* The refresh of an XOFF of pfc_quanta sent at now. */
static int64_t rocx_dcb_refresh_at(RocxCore *c, int64_t now)
{
    return now + MAX(rocx_dcb_quanta_ns(c, c->dcb.pfc_quanta) / 2,
                     ROCX_DCB_REFRESH_MIN_NS);
}

/* XOFF for p, and again at half its time while the buffer stays full. */
static void rocx_dcb_xoff(RocxCore *c, unsigned p, int64_t now)
{
    RocxDcb *d = &c->dcb;

    QEMU_BUILD_BUG_ON((uint64_t)ROCX_DCB_PFC_QUANTA_MIN * 512 * 1000 /
                      ROCX_CORE_MAX_SPEED / 2 < ROCX_DCB_REFRESH_MIN_NS);
    if (!(d->xoff_sent & ROCX_BIT(p))) {
        d->xoff_sent |= ROCX_BIT(p);
        d->xoff_since[p] = now;
    }
    rocx_dcb_send_pfc(c, ROCX_BIT(p), d->pfc_quanta);
    rocx_timer_mod(c, &d->xoff_timer[p], ROCX_TIMER_DCB,
                   rocx_dcb_refresh_at(c, now));
}

static void rocx_dcb_xon(RocxCore *c, unsigned p, int64_t now)
{
    RocxDcb *d = &c->dcb;

    if (!(d->xoff_sent & ROCX_BIT(p))) {
        return;
    }
    d->xoff_sent &= ~ROCX_BIT(p);
    rocx_timer_del(c, &d->xoff_timer[p]);
    rocx_count(c, ROCX_STAT_PRIO(p, ROCX_STAT_PRIO_TX_PAUSE_DURATION),
               (now - d->xoff_since[p]) / 1000);
    rocx_dcb_send_pfc(c, ROCX_BIT(p), 0);
}

/* An 802.3x PAUSE asking for quanta (0: resume). */
static void rocx_dcb_send_pause(RocxCore *c, uint16_t quanta)
{
    uint8_t f[ETH_ZLEN];

    if (!c->port.link_up) {
        return;
    }
    memset(f, 0, sizeof(f));
    rocx_dcb_ctl_frame(c, f, ROCX_PAUSE_OPCODE, quanta);
    rocx_trace_pause(c, -1, quanta, true);
    if (quanta) {
        rocx_count(c, ROCX_STAT_TX_PAUSE, 1);
    }
    rocx_send_frame(c, f, sizeof(f));
}

/* Link XOFF, and again at half its time while a priority stays full. */
static void rocx_dcb_link_xoff(RocxCore *c, int64_t now)
{
    RocxDcb *d = &c->dcb;

    if (!d->link_xoff_sent) {
        d->link_xoff_sent = true;
        d->link_xoff_since = now;
    }
    rocx_dcb_send_pause(c, d->pfc_quanta);
    rocx_timer_mod(c, &d->link_xoff_timer, ROCX_TIMER_DCB,
                   rocx_dcb_refresh_at(c, now));
}

static void rocx_dcb_link_xon(RocxCore *c, int64_t now)
{
    RocxDcb *d = &c->dcb;

    if (!d->link_xoff_sent) {
        return;
    }
    d->link_xoff_sent = false;
    rocx_timer_del(c, &d->link_xoff_timer);
    rocx_count(c, ROCX_STAT_TX_PAUSE_DURATION,
               (now - d->link_xoff_since) / 1000);
    rocx_dcb_send_pause(c, 0);
}

/* Some priority holds more than its xon: the port is still congested. */
static bool rocx_dcb_above_xon(RocxCore *c)
{
    unsigned p;

    for (p = 0; p < ROCX_NUM_PRIO; p++) {
        if (c->dcb.rx_occ[p] > c->dcb.xon[p]) {
            return true;
        }
    }
    return false;
}

bool rocx_dcb_rx_room(RocxCore *c, uint8_t prio, uint32_t len)
{
    return c->dcb.rx_occ[prio] + len <= c->dcb.buf_size[prio];
}

void rocx_dcb_rx_held(RocxCore *c, uint8_t prio, int32_t delta)
{
    RocxDcb *d = &c->dcb;
    uint64_t max_stat = ROCX_STAT_PRIO(prio, ROCX_STAT_PRIO_RX_BUF_MAX);

    d->rx_occ[prio] += delta;
    if (d->rx_occ[prio] > c->stats[max_stat]) {
        c->stats[max_stat] = d->rx_occ[prio];
    }
    if (d->pause & ROCX_PAUSE_TX) {
        if (delta > 0 && d->rx_occ[prio] >= d->xoff[prio] &&
            !d->link_xoff_sent) {
            rocx_dcb_link_xoff(c, rocx_now(c));
        } else if (delta < 0 && d->link_xoff_sent && !rocx_dcb_above_xon(c)) {
            rocx_dcb_link_xon(c, rocx_now(c));
        }
        return;
    }
    if (!(d->pfc_en & ROCX_BIT(prio))) {
        return;
    }
    if (delta > 0 && d->rx_occ[prio] >= d->xoff[prio] &&
        !(d->xoff_sent & ROCX_BIT(prio))) {
        rocx_dcb_xoff(c, prio, rocx_now(c));
    } else if (delta < 0 && d->rx_occ[prio] <= d->xon[prio]) {
        rocx_dcb_xon(c, prio, rocx_now(c));
    }
}

void rocx_dcb_rx_clear(RocxCore *c)
{
    int64_t now = rocx_now(c);
    unsigned p;

    for (p = 0; p < ROCX_NUM_PRIO; p++) {
        c->dcb.rx_occ[p] = 0;
        rocx_dcb_xon(c, p, now);
    }
    rocx_dcb_link_xon(c, now);
}

void rocx_dcb_timer(RocxCore *c, RocxTimer *t, int64_t now)
{
    RocxDcb *d = &c->dcb;

    if (t == &d->link_xoff_timer) {
        if ((d->pause & ROCX_PAUSE_TX) && rocx_dcb_above_xon(c)) {
            rocx_dcb_link_xoff(c, now);
        } else {
            rocx_dcb_link_xon(c, now);
        }
        return;
    }
    if (t >= d->xoff_timer && t < d->xoff_timer + ROCX_NUM_PRIO) {
        unsigned p = t - d->xoff_timer;

        /* Still above xon, and still lossless: ask again. */
        if ((d->pfc_en & ROCX_BIT(p)) && d->rx_occ[p] > d->xon[p]) {
            rocx_dcb_xoff(c, p, now);
        } else {
            rocx_dcb_xon(c, p, now);
        }
        return;
    }
    rocx_dcb_resume(c, t - d->pause_timer, now);
}

bool rocx_dcb_qp_paused(RocxCore *c, RocxQp *qp)
{
    uint8_t p = qp->path.prio;
    unsigned slot = rocx_qp_slot(qp);

    if (!(c->dcb.paused & ROCX_BIT(p)) || qp->path.loopback) {
        return false;
    }
    c->dcb.parked[p][slot / 64] |= 1ULL << (slot % 64);
    return true;
}

bool rocx_dcb_tx_paused(RocxCore *c, const uint8_t *buf, size_t len,
                        uint8_t *prio)
{
    *prio = rocx_dcb_frame_prio(c, buf, len);
    return c->dcb.paused & ROCX_BIT(*prio);
}

/* ---- Port rate ---- */

bool rocx_core_set_speed(RocxCore *c, uint32_t mbps)
{
    if (!mbps || mbps > ROCX_CORE_MAX_SPEED) {
        return false;
    }
    if (mbps == c->speed_mbps) {
        return true;
    }
    c->speed_mbps = mbps;
    /* The driver re-reads the rate on a link event, as after a flap. */
    if (c->port.link_up) {
        rocx_count(c, ROCX_STAT_LINK_CHANGES, 1);
        rocx_evq_push(c, ROCX_EQE_LINK_CHANGE, rocx_core_link_status(c), 0);
    }
    return true;
}

uint32_t rocx_core_speed(RocxCore *c)
{
    return c->speed_mbps;
}
