/*
 * rocx device model: multicast groups of UD QPs.
 *
 * ATTACH_MCAST and DETACH_MCAST keep a small table of groups, each a
 * multicast GID, the MAC it maps to and the UD QPs attached to it
 * (rocx-device.rst, "Multicast").  The receive path asks it two things:
 * whether a multicast MAC belongs to a group (the Ethernet filter takes
 * such frames too, rocx-eth.c), and which group a RoCE frame's
 * destination GID names (rocx-wire.c), whose QPs then get one copy each.
 * The table is small (ROCX_CORE_MAX_MCAST_GRP), so lookups walk it; they
 * are only made for multicast destinations.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

bool rocx_gid_is_mcast(const uint8_t *gid)
{
    if (rocx_gid_is_v4(gid)) {
        /* 224.0.0.0/4 */
        return (rocx_gid_v4(gid)[0] & 0xf0) == 0xe0;
    }
    return gid[0] == 0xff;
}

void rocx_mcast_mac(const uint8_t *gid, uint8_t *mac)
{
    if (rocx_gid_is_v4(gid)) {
        const uint8_t *a = rocx_gid_v4(gid);

        mac[0] = 0x01;
        mac[1] = 0x00;
        mac[2] = 0x5e;
        mac[3] = a[1] & 0x7f;
        mac[4] = a[2];
        mac[5] = a[3];
        return;
    }
    mac[0] = 0x33;
    mac[1] = 0x33;
    memcpy(mac + 2, gid + 12, 4);
}

RocxMcastGrp *rocx_mcast_find(RocxCore *c, const uint8_t *gid)
{
    RocxMcast *m = &c->rdma.mcast;
    unsigned i;

    for (i = 0; m->ngrp && i < ROCX_CORE_MAX_MCAST_GRP; i++) {
        if (m->grp[i].nqp && !memcmp(m->grp[i].gid, gid, 16)) {
            return &m->grp[i];
        }
    }
    return NULL;
}

bool rocx_mcast_mac_wanted(RocxCore *c, const uint8_t *mac)
{
    RocxMcast *m = &c->rdma.mcast;
    unsigned i;

    for (i = 0; m->ngrp && i < ROCX_CORE_MAX_MCAST_GRP; i++) {
        if (m->grp[i].nqp && !memcmp(m->grp[i].mac, mac, ETH_ALEN)) {
            return true;
        }
    }
    return false;
}

/* The QP's place in the group, or -1. */
static int rocx_mcast_slot(const RocxMcastGrp *g, uint32_t qpn)
{
    unsigned i;

    for (i = 0; i < g->nqp; i++) {
        if (g->qpn[i] == qpn) {
            return i;
        }
    }
    return -1;
}

static void rocx_mcast_remove(RocxCore *c, RocxMcastGrp *g, unsigned slot)
{
    /* Order among a group's QPs means nothing: the last fills the hole. */
    g->qpn[slot] = g->qpn[--g->nqp];
    if (!g->nqp) {
        c->rdma.mcast.ngrp--;
    }
}

/*
 * The checks both commands make: a multicast GID and an existing UD QP.
 * Returns the QP, or NULL with res->status set.
 */
static RocxQp *rocx_mcast_cmd_qp(RocxCore *c, const struct rocx_aq_mcast *mc,
                                 RocxAqResult *res)
{
    RocxQp *qp;

    if (!rocx_gid_is_mcast(mc->gid)) {
        res->status = ROCX_AQ_STS_INVALID;
        return NULL;
    }
    qp = rocx_qp_get(c, ldl_le_p(&mc->qpn));
    if (!qp) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return NULL;
    }
    if (qp->type != ROCX_QPT_UD) {
        res->status = ROCX_AQ_STS_INVALID;
        return NULL;
    }
    return qp;
}

void rocx_cmd_attach_mcast(RocxCore *c, const union rocx_aq_cmd *cmd,
                           RocxAqResult *res)
{
    const struct rocx_aq_mcast *mc = (const void *)cmd;
    RocxMcast *m = &c->rdma.mcast;
    RocxMcastGrp *g;
    RocxQp *qp = rocx_mcast_cmd_qp(c, mc, res);
    unsigned i;

    if (!qp) {
        return;
    }
    g = rocx_mcast_find(c, mc->gid);
    if (g) {
        if (rocx_mcast_slot(g, qp->qpn) >= 0) {
            res->status = ROCX_AQ_STS_EXISTS;
            return;
        }
        if (g->nqp == ROCX_CORE_MAX_MCAST_QP_ATTACH) {
            res->status = ROCX_AQ_STS_NO_RESOURCE;
            return;
        }
        g->qpn[g->nqp++] = qp->qpn;
        return;
    }
    for (i = 0; i < ROCX_CORE_MAX_MCAST_GRP; i++) {
        if (!m->grp[i].nqp) {
            break;
        }
    }
    if (i == ROCX_CORE_MAX_MCAST_GRP) {
        res->status = ROCX_AQ_STS_NO_RESOURCE;
        return;
    }
    g = &m->grp[i];
    memcpy(g->gid, mc->gid, 16);
    rocx_mcast_mac(g->gid, g->mac);
    g->qpn[0] = qp->qpn;
    g->nqp = 1;
    m->ngrp++;
}

void rocx_cmd_detach_mcast(RocxCore *c, const union rocx_aq_cmd *cmd,
                           RocxAqResult *res)
{
    const struct rocx_aq_mcast *mc = (const void *)cmd;
    RocxQp *qp = rocx_mcast_cmd_qp(c, mc, res);
    RocxMcastGrp *g;
    int slot;

    if (!qp) {
        return;
    }
    g = rocx_mcast_find(c, mc->gid);
    slot = g ? rocx_mcast_slot(g, qp->qpn) : -1;
    if (slot < 0) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    rocx_mcast_remove(c, g, slot);
}

void rocx_mcast_qp_gone(RocxCore *c, const RocxQp *qp)
{
    RocxMcast *m = &c->rdma.mcast;
    unsigned i;

    if (qp->type != ROCX_QPT_UD) {
        return;
    }
    for (i = 0; m->ngrp && i < ROCX_CORE_MAX_MCAST_GRP; i++) {
        RocxMcastGrp *g = &m->grp[i];
        int slot = g->nqp ? rocx_mcast_slot(g, qp->qpn) : -1;

        if (slot >= 0) {
            rocx_mcast_remove(c, g, slot);
        }
    }
}

/* ---- Delivery ---- */

bool rocx_mcast_accepts(RocxCore *c, const uint8_t *gid, const uint8_t *dst)
{
    const RocxMcastGrp *g = rocx_mcast_find(c, gid);

    return g && (!dst || !memcmp(dst, g->mac, ETH_ALEN));
}

void rocx_mcast_rx(RocxCore *c, const RocxPkt *p)
{
    const RocxMcastGrp *g = rocx_mcast_find(c, p->dgid);
    unsigned i, n = 0;

    if (g && p->dqpn == ROCX_MCAST_QPN) {
        /* Delivery moves QPs to ERR at worst; the group stays as it is. */
        for (i = 0; i < g->nqp; i++) {
            RocxQp *qp = rocx_qp_get(c, g->qpn[i]);

            if (qp && qp->type == ROCX_QPT_UD &&
                (qp->state == ROCX_QPS_RTR || qp->state == ROCX_QPS_RTS)) {
                rocx_ud_deliver(c, qp, p);
                n++;
            }
        }
    }
    if (!n) {
        /* To a group, yet not for one of its QPs: still never Ethernet's. */
        rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
    }
}

void rocx_mcast_loopback(RocxCore *c, const uint8_t *gid, const uint8_t *buf,
                         size_t len)
{
    if (rocx_mcast_find(c, gid)) {
        c->rdma.stats.mcast_loopback++;
        rocx_roce_receive(c, buf, len, true);
    }
}

bool rocx_mcast_av(const RocxQp *qp, const struct rocx_av *av)
{
    return qp->type == ROCX_QPT_UD && rocx_gid_is_mcast(av->dgid);
}
