/*
 * rocx device model: ECN and congestion control (Documentation/
 * rocx-device.rst, "ECN and congestion control").
 *
 * SET_CC and QUERY_CC keep the configuration, in mlx5's cc_params names
 * and units.  Three parts act on it:
 *
 * - ECT: RoCE v2 requests and data of a priority with rp_en leave with
 *   ECN ECT(0), so that a congested switch may mark them CE;
 * - the notification point: a CE-marked packet for one of our QPs makes
 *   the device send a CNP back to the QP that sent it, at most one per
 *   QP per np_min_time_between_cnps;
 * - the reaction point: a CNP for one of our QPs cuts its rate by DCQCN
 *   (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 *   SIGCOMM 2015), in fixed point, and timers and the byte counter bring
 *   it back up through fast recovery, additive and hyper increase.  The
 *   rate a QP may send at is RocxQp.cc.tx_rate_mbps, which the transmit
 *   scheduler paces it by.
 *
 * A QP's reaction point is idle (no state, no timers, unpaced) until its
 * first CNP and again once it is back at line rate, so idle QPs cost
 * nothing and the timer heap holds only QPs being paced.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"
#include "rocx-hdr.h"

#define ROCX_CC_OP_CNP          (ROCX_TR_CNP | ROCX_OP_CNP)
#define ROCX_ECN_MASK           0x3
#define ROCX_ECN_ECT0           0x2
#define ROCX_ECN_CE             0x3
#define ROCX_CC_US              1000LL
/*
 * Alpha is kept with 20 fractional bits and reported with 10: in 1/1024,
 * alpha * g / 1024 rounds a whole unit away per period and alpha never
 * builds up between CNPs a few periods apart (rocx-device.rst, "ECN and
 * congestion control").
 */
#define ROCX_CC_ALPHA_FRAC      10
/*
 * Timer periods a late wake-up catches up on at most: enough for alpha to
 * decay to 0 from any value, and for any rate to climb back to line rate.
 */
#define ROCX_CC_MAX_CATCH_UP    4096
/* Hop limit and TTL of a CNP whose path names none, as rocx-wire.c. */
#define ROCX_CC_DEFAULT_TTL     64

void rocx_cc_reset(RocxCore *c)
{
    RocxCc *cc = &c->cc;

    /* QPs are gone by now (rocx_rdma_reset()): only the configuration. */
    memset(cc, 0, sizeof(*cc));
    cc->np_en = 0xff;
    cc->rp_en = 0xff;
    cc->np_cnp_dscp = 48;
    cc->np_cnp_prio = 6;
    cc->np_min_time_between_cnps = 4;
    cc->rp_initial_alpha_value = 1023;
    cc->rp_dce_tcp_g = 1019;
    cc->rp_dce_tcp_rtt = 1;
    cc->rp_gd = 11;
    cc->rp_min_dec_fac = 50;
    cc->rp_rate_to_set_on_first_cnp = 0;
    cc->rp_min_rate = 1;
    cc->rp_ai_rate = 5;
    cc->rp_hai_rate = 50;
    cc->rp_time_reset = 300;
    cc->rp_byte_reset = 32767;
    cc->rp_threshold = 1;
    cc->rp_clamp_tgt_rate = 0;
}

/* ---- Configuration (SET_CC, QUERY_CC) ---- */

/*
 * The 32-bit fields of struct rocx_cc_cfg in order from
 * np_min_time_between_cnps (valid bit 4 on), with the RocxCc field each
 * sets and its accepted range.
 */
typedef struct RocxCcField {
    size_t cfg_off;
    size_t cc_off;
    uint32_t min;
    uint32_t max;               /* 0: max_speed */
} RocxCcField;

#define F(name, lo, hi) { offsetof(struct rocx_cc_cfg, name), \
                          offsetof(RocxCc, name), lo, hi }

static const RocxCcField rocx_cc_fields[] = {
    F(np_min_time_between_cnps, 0, ROCX_CC_TIME_MAX_US),
    F(rp_initial_alpha_value, 0, ROCX_CC_ALPHA_MAX),
    F(rp_dce_tcp_g, 0, ROCX_CC_ALPHA_MAX),
    F(rp_dce_tcp_rtt, 1, ROCX_CC_TIME_MAX_US),
    F(rp_gd, 0, ROCX_CC_GD_MAX),
    F(rp_min_dec_fac, 1, 100),
    F(rp_rate_to_set_on_first_cnp, 0, 0),
    F(rp_min_rate, 1, 0),
    F(rp_ai_rate, 0, 0),
    F(rp_hai_rate, 0, 0),
    F(rp_time_reset, 1, ROCX_CC_TIME_MAX_US),
    F(rp_byte_reset, 0, ROCX_CC_BYTE_RESET_MAX),
    F(rp_threshold, 1, ROCX_CC_THRESHOLD_MAX),
    F(rp_clamp_tgt_rate, 0, 1),
};

#undef F

/* valid bit of rocx_cc_fields[0]; the others follow it. */
#define ROCX_CC_FIELD_BIT0      4
QEMU_BUILD_BUG_ON(ROCX_BIT(ROCX_CC_FIELD_BIT0) != ROCX_CC_NP_MIN_TIME);
QEMU_BUILD_BUG_ON(ROCX_BIT(ROCX_CC_FIELD_BIT0 +
                           ARRAY_SIZE(rocx_cc_fields) - 1) !=
                  ROCX_CC_RP_CLAMP_TGT_RATE);

static uint32_t *rocx_cc_field(RocxCc *cc, const RocxCcField *f)
{
    return (uint32_t *)((uint8_t *)cc + f->cc_off);
}

static void rocx_cc_to_cfg(const RocxCc *cc, struct rocx_cc_cfg *cfg)
{
    unsigned i;

    memset(cfg, 0, sizeof(*cfg));
    stl_le_p(&cfg->valid, ROCX_CC_ALL);
    cfg->np_en = cc->np_en;
    cfg->rp_en = cc->rp_en;
    cfg->np_cnp_dscp = cc->np_cnp_dscp;
    cfg->np_cnp_prio = cc->np_cnp_prio;
    for (i = 0; i < ARRAY_SIZE(rocx_cc_fields); i++) {
        const RocxCcField *f = &rocx_cc_fields[i];

        stl_le_p((uint8_t *)cfg + f->cfg_off,
                 *rocx_cc_field((RocxCc *)cc, f));
    }
}

/*
 * The configuration cfg would leave, in n: the fields valid selects from
 * cfg, the others as they are.  False if a field is out of its range or a
 * reserved bit or byte is set.
 */
static bool rocx_cc_merge(const RocxCc *cur, const struct rocx_cc_cfg *cfg,
                          RocxCc *n)
{
    uint32_t valid = ldl_le_p(&cfg->valid);
    unsigned i;

    if (valid & ~ROCX_CC_ALL) {
        return false;
    }
    for (i = 0; i < sizeof(cfg->rsvd); i++) {
        if (cfg->rsvd[i]) {
            return false;
        }
    }
    *n = *cur;
    if (valid & ROCX_CC_NP_EN) {
        n->np_en = cfg->np_en;
    }
    if (valid & ROCX_CC_RP_EN) {
        n->rp_en = cfg->rp_en;
    }
    if (valid & ROCX_CC_NP_CNP_DSCP) {
        if (cfg->np_cnp_dscp >= ROCX_NUM_DSCP) {
            return false;
        }
        n->np_cnp_dscp = cfg->np_cnp_dscp;
    }
    if (valid & ROCX_CC_NP_CNP_PRIO) {
        if (cfg->np_cnp_prio >= ROCX_NUM_PRIO) {
            return false;
        }
        n->np_cnp_prio = cfg->np_cnp_prio;
    }
    for (i = 0; i < ARRAY_SIZE(rocx_cc_fields); i++) {
        const RocxCcField *f = &rocx_cc_fields[i];
        uint32_t v = ldl_le_p((const uint8_t *)cfg + f->cfg_off);
        uint32_t max = f->max ? f->max : ROCX_CORE_MAX_SPEED;

        if (!(valid & ROCX_BIT(ROCX_CC_FIELD_BIT0 + i))) {
            continue;
        }
        if (v < f->min || v > max) {
            return false;
        }
        *rocx_cc_field(n, f) = v;
    }
    return true;
}

void rocx_cmd_set_cc(RocxCore *c, const union rocx_aq_cmd *cmd,
                     RocxAqResult *res)
{
    uint64_t addr = ldq_le_p(&cmd->cfg_buf.addr);
    struct rocx_cc_cfg cfg;
    RocxCc n;
    unsigned slot;

    if ((uint32_t)ldl_le_p(&cmd->cfg_buf.len) < sizeof(cfg)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (rocx_dma_read(c, addr, &cfg, sizeof(cfg))) {
        res->status = ROCX_AQ_STS_DMA_ERROR;
        return;
    }
    if (!rocx_cc_merge(&c->cc, &cfg, &n)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    c->cc = n;
    /* A priority whose reaction point is off sends at line rate again. */
    for (slot = 0; slot < ROCX_CORE_QP_SLOTS; slot++) {
        RocxQp *qp = c->rdma.qp[slot];

        if (qp && qp->cc.active && !(n.rp_en & ROCX_BIT(qp->path.prio))) {
            rocx_cc_qp_stop(c, qp);
        }
    }
}

void rocx_cmd_query_cc(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res)
{
    struct rocx_cc_cfg cfg;

    if ((uint32_t)ldl_le_p(&cmd->cfg_buf.len) < sizeof(cfg)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    rocx_cc_to_cfg(&c->cc, &cfg);
    if (rocx_dma_write(c, ldq_le_p(&cmd->cfg_buf.addr), &cfg, sizeof(cfg))) {
        res->status = ROCX_AQ_STS_DMA_ERROR;
    }
}

/* ---- ECT ---- */

uint8_t rocx_cc_tclass(RocxCore *c, const RocxQp *qp, uint32_t opf)
{
    const RocxPath *p = &qp->path;
    uint8_t tc = p->traffic_class & ~ROCX_ECN_MASK;

    /* ACKs carry no data to slow down; RoCE v1 has no ECN. */
    if (p->net_type != ROCX_NET_ROCE_V1 &&
        (opf & (ROCX_OPF_REQ | ROCX_OPF_PAYLOAD)) &&
        (c->cc.rp_en & ROCX_BIT(p->prio))) {
        tc |= ROCX_ECN_ECT0;
    }
    return tc;
}

/* ---- Notification point ---- */

/* The ECN field of a RoCE v2 packet's IP header. */
static uint8_t rocx_cc_rx_ecn(const RocxPkt *p)
{
    if (p->net_type == ROCX_NET_ROCE_V2_IPV4) {
        return p->l3[1] & ROCX_ECN_MASK;
    }
    return (ldl_be_p(p->l3) >> 20) & ROCX_ECN_MASK;
}

void rocx_cc_send_cnp(RocxCore *c, RocxQp *qp)
{
    RocxPath path = qp->path;
    uint8_t hop_limit = path.hop_limit ? path.hop_limit : ROCX_CC_DEFAULT_TTL;
    size_t l2, l3len, l4len, len;
    uint8_t *buf, *l3, *bth, *icrc;

    path.prio = c->cc.np_cnp_prio;
    path.traffic_class = c->cc.np_cnp_dscp << 2;
    rocx_dcb_path_tag(c, &path);

    l2 = ETH_HLEN + (path.tci != ROCX_VLAN_NONE ? ROCX_VLAN_HLEN : 0);
    l3len = (path.net_type == ROCX_NET_ROCE_V2_IPV4 ? ROCX_IPV4_HLEN :
             ROCX_IPV6_HLEN) + ROCX_UDP_HLEN;
    l4len = ROCX_BTH_LEN + ROCX_CNP_PAYLOAD_LEN + ROCX_ICRC_LEN;
    len = l2 + l3len + l4len;
    buf = rocx_frame_buf(c, len);
    l3 = buf + l2;
    bth = l3 + l3len;
    icrc = buf + len - ROCX_ICRC_LEN;

    if (path.net_type == ROCX_NET_ROCE_V2_IPV4) {
        rocx_eth_build(buf, path.dmac, path.smac, path.tci, ETH_P_IP);
        rocx_ip4_build(l3, path.traffic_class, l3len + l4len, hop_limit,
                       IP_PROTO_UDP, rocx_gid_v4(path.sgid),
                       rocx_gid_v4(path.dgid));
    } else {
        rocx_eth_build(buf, path.dmac, path.smac, path.tci, ETH_P_IPV6);
        rocx_ip6_build(l3, path.traffic_class, path.flow_label,
                       ROCX_UDP_HLEN + l4len, IP_PROTO_UDP, hop_limit,
                       path.sgid, path.dgid);
    }
    rocx_udp_build(bth - ROCX_UDP_HLEN, path.udp_sport,
                   ROCX_UDP_HLEN + l4len);
    rocx_bth_build(bth, ROCX_CC_OP_CNP, false, 0, ROCX_PKEY_DEFAULT,
                   qp->dest_qpn, false, 0);
    bth[4] = ROCX_BTH_BECN;
    memset(bth + ROCX_BTH_LEN, 0, ROCX_CNP_PAYLOAD_LEN);
    rocx_icrc_put(icrc, rocx_icrc(path.net_type, l3, bth, icrc));

    rocx_count(c, ROCX_STAT_ROCE_TX_PACKETS, 1);
    if (!c->port.link_up) {
        rocx_count(c, ROCX_STAT_TX_DROPPED_LINK_DOWN, 1);
        return;
    }
    rocx_count(c, ROCX_STAT_NP_CNP_SENT, 1);
    rocx_trace_cnp(c, qp->qpn, true);
    rocx_dcb_tx_count(c, path.prio, len);
    rocx_send_frame(c, buf, len);
}

void rocx_cc_np_rx(RocxCore *c, RocxQp *qp, const RocxPkt *p,
                   const uint8_t *buf, size_t len)
{
    RocxQpCc *cc = &qp->cc;
    int64_t now;

    /* A loopback never crossed a switch, and is in the buffer we build in. */
    if (p->loopback || p->net_type == ROCX_NET_ROCE_V1 ||
        rocx_cc_rx_ecn(p) != ROCX_ECN_CE) {
        return;
    }
    rocx_count(c, ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS, 1);
    if (!(c->cc.np_en & ROCX_BIT(rocx_dcb_frame_prio(c, buf, len)))) {
        return;
    }
    now = rocx_now(c);
    if (cc->cnp_sent &&
        now - cc->last_cnp < c->cc.np_min_time_between_cnps * ROCX_CC_US) {
        return;
    }
    cc->cnp_sent = true;
    cc->last_cnp = now;
    if (c->delay.cnp_ns) {
        rocx_delay_cnp(c, qp, now);
        return;
    }
    rocx_cc_send_cnp(c, qp);
}

/* ---- Reaction point ---- */

static uint64_t rocx_cc_line_kbps(RocxCore *c)
{
    return (uint64_t)c->speed_mbps * 1000;
}

static void rocx_cc_arm(RocxCore *c, RocxQp *qp)
{
    RocxQpCc *cc = &qp->cc;

    rocx_timer_mod(c, &cc->timer, ROCX_TIMER_CC,
                   MIN(cc->alpha_deadline, cc->inc_deadline));
}

/*
 * What the scheduler paces the QP at: its current rate, or unpaced; the
 * scheduler rescales the wait the QP is in (rocx_sched_qp_rate()).
 */
static void rocx_cc_set_tx_rate(RocxCore *c, RocxQp *qp)
{
    RocxQpCc *cc = &qp->cc;

    cc->tx_rate_mbps = cc->active ? MAX(cc->cur_kbps / 1000, 1) : 0;
    rocx_sched_qp_rate(c, qp);
}

void rocx_cc_qp_stop(RocxCore *c, RocxQp *qp)
{
    rocx_timer_del(c, &qp->cc.timer);
    memset(&qp->cc, 0, sizeof(qp->cc));
    rocx_sched_qp_rate(c, qp);
}

/* One increase step: the timer's (T) or the byte counter's (B). */
static void rocx_cc_step(RocxCore *c, RocxQp *qp, bool timer)
{
    const RocxCc *cfg = &c->cc;
    RocxQpCc *cc = &qp->cc;
    uint64_t line = rocx_cc_line_kbps(c);
    uint32_t th = cfg->rp_threshold;

    /* Decided by the counts before this event counts (rocx-device.rst). */
    if (cc->t_count >= th && cc->b_count >= th) {
        cc->tgt_kbps += (uint64_t)(MIN(cc->t_count, cc->b_count) - th + 1) *
                        cfg->rp_hai_rate * 1000;
    } else if (cc->t_count >= th || cc->b_count >= th) {
        cc->tgt_kbps += (uint64_t)cfg->rp_ai_rate * 1000;
    }
    cc->tgt_kbps = MIN(cc->tgt_kbps, line);
    cc->cur_kbps = MIN((cc->cur_kbps + cc->tgt_kbps + 1) / 2, line);
    if (timer) {
        cc->t_count++;
    } else {
        cc->b_count++;
    }
    cc->stepped = true;
    if (cc->cur_kbps >= line && cc->tgt_kbps >= line) {
        rocx_cc_qp_stop(c, qp);
        return;
    }
    rocx_cc_set_tx_rate(c, qp);
}

/* A CNP the QP's priority reacts to. */
static void rocx_cc_cnp(RocxCore *c, RocxQp *qp, int64_t now)
{
    const RocxCc *cfg = &c->cc;
    RocxQpCc *cc = &qp->cc;
    uint64_t line = rocx_cc_line_kbps(c);
    bool first = !cc->active;
    uint32_t g = cfg->rp_dce_tcp_g;

    if (first) {
        cc->active = true;
        cc->core = c;
        cc->cur_kbps = line;
        cc->tgt_kbps = line;
        cc->alpha = cfg->rp_initial_alpha_value << ROCX_CC_ALPHA_FRAC;
    }
    if (cfg->rp_clamp_tgt_rate || first || cc->stepped) {
        cc->tgt_kbps = cc->cur_kbps;
    }
    if (first && cfg->rp_rate_to_set_on_first_cnp) {
        cc->cur_kbps = MIN((uint64_t)cfg->rp_rate_to_set_on_first_cnp * 1000,
                           line);
        cc->tgt_kbps = cc->cur_kbps;
    } else {
        uint64_t cut = (cc->cur_kbps * cc->alpha) >>
                       (cfg->rp_gd + ROCX_CC_ALPHA_FRAC);
        uint64_t floor = MAX(cc->cur_kbps * cfg->rp_min_dec_fac / 100,
                             (uint64_t)cfg->rp_min_rate * 1000);

        cc->cur_kbps = cut < cc->cur_kbps ? cc->cur_kbps - cut : 0;
        cc->cur_kbps = MIN(MAX(cc->cur_kbps, floor), line);
        cc->tgt_kbps = MAX(cc->tgt_kbps, cc->cur_kbps);
    }
    cc->alpha = MIN((uint64_t)cc->alpha * g / 1024 +
                    ((1024 - g) << ROCX_CC_ALPHA_FRAC),
                    ROCX_CC_ALPHA_MAX << ROCX_CC_ALPHA_FRAC);
    cc->t_count = 0;
    cc->b_count = 0;
    cc->bytes = 0;
    cc->stepped = false;
    cc->alpha_deadline = now + cfg->rp_dce_tcp_rtt * ROCX_CC_US;
    cc->inc_deadline = now + cfg->rp_time_reset * ROCX_CC_US;
    rocx_cc_arm(c, qp);
    rocx_cc_set_tx_rate(c, qp);
}

void rocx_cc_rx_cnp(RocxCore *c, const RocxPkt *p)
{
    RocxQp *qp = rocx_qp_get(c, p->dqpn);

    /*
     * The peer of a connected QP of ours in RTS, over RoCE v2.  XRC's
     * are connected too: the initiator is the one that sends requests.
     */
    if (p->net_type == ROCX_NET_ROCE_V1 ||
        p->paylen != ROCX_CNP_PAYLOAD_LEN || !qp ||
        qp->type == ROCX_QPT_UD || qp->type == ROCX_QPT_GSI ||
        qp->state != ROCX_QPS_RTS || qp->path.net_type != p->net_type ||
        memcmp(qp->path.dgid, p->sgid, 16) ||
        memcmp(qp->path.sgid, p->dgid, 16)) {
        rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
        return;
    }
    rocx_count(c, ROCX_STAT_ROCE_RX_PACKETS, 1);
    if (!(c->cc.rp_en & ROCX_BIT(qp->path.prio))) {
        rocx_count(c, ROCX_STAT_RP_CNP_IGNORED, 1);
        return;
    }
    rocx_count(c, ROCX_STAT_RP_CNP_HANDLED, 1);
    rocx_trace_cnp(c, qp->qpn, false);
    rocx_cc_cnp(c, qp, rocx_now(c));
}

/*
 * Periods of length period that ended by now from *deadline on (at least
 * one: the timer fired for it); *deadline moves past them.  A host that
 * woke late gets every step it missed, as a device on time would have.
 */
static uint64_t rocx_cc_expired(int64_t *deadline, int64_t now,
                                int64_t period)
{
    uint64_t n;

    if (now < *deadline) {
        return 0;
    }
    n = (now - *deadline) / period + 1;
    *deadline += n * period;
    return n;
}

void rocx_cc_timer(RocxCore *c, RocxQp *qp, int64_t now)
{
    const RocxCc *cfg = &c->cc;
    RocxQpCc *cc = &qp->cc;
    uint64_t n;

    if (!cc->active) {
        return;
    }
    n = MIN(rocx_cc_expired(&cc->alpha_deadline, now,
                            cfg->rp_dce_tcp_rtt * ROCX_CC_US),
            ROCX_CC_MAX_CATCH_UP);
    while (n-- && cc->alpha) {
        cc->alpha = (uint64_t)cc->alpha * cfg->rp_dce_tcp_g / 1024;
    }
    n = MIN(rocx_cc_expired(&cc->inc_deadline, now,
                            cfg->rp_time_reset * ROCX_CC_US),
            ROCX_CC_MAX_CATCH_UP);
    while (n-- && cc->active) {
        rocx_cc_step(c, qp, true);
    }
    if (cc->active) {
        rocx_cc_arm(c, qp);
    }
}

void rocx_cc_sent(RocxQp *qp, uint32_t bytes, int64_t now)
{
    RocxQpCc *cc = &qp->cc;
    RocxCore *c = cc->core;
    uint32_t reset;

    if (!cc->active || !c->cc.rp_byte_reset) {
        return;
    }
    reset = c->cc.rp_byte_reset;
    cc->bytes += bytes;
    while (cc->active && cc->bytes >= reset) {
        cc->bytes -= reset;
        rocx_cc_step(c, qp, false);
    }
}

void rocx_cc_query_qp(RocxCore *c, const RocxQp *qp, struct rocx_qp_attr *a)
{
    const RocxQpCc *cc = &qp->cc;

    if (!cc->active) {
        stl_le_p(&a->cc_cur_rate, c->speed_mbps);
        stl_le_p(&a->cc_tgt_rate, c->speed_mbps);
        stl_le_p(&a->cc_alpha, c->cc.rp_initial_alpha_value);
        return;
    }
    stl_le_p(&a->cc_cur_rate, cc->cur_kbps / 1000);
    stl_le_p(&a->cc_tgt_rate, cc->tgt_kbps / 1000);
    stl_le_p(&a->cc_alpha, cc->alpha >> ROCX_CC_ALPHA_FRAC);
}
