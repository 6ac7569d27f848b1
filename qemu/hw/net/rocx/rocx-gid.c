/*
 * rocx device model: the port's GID table.
 *
 * ROCX_CORE_GID_TBL_LEN entries, which the driver sets and deletes
 * (SET_GID, DEL_GID): a GID, its kind (RoCE v1 or v2), the source MAC and
 * VLAN that go with it.  The receive path asks for every RoCE frame
 * which entry its destination GID is; a QP entering RTR takes its source
 * GID from the table and asks whether its destination is one of ours
 * (loopback).  The IPv4 form of a GID (::ffff:a.b.c.d) is kept here too.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- SET_GID, DEL_GID ---- */

void rocx_cmd_set_gid(RocxCore *c, const union rocx_aq_cmd *cmd,
                      RocxAqResult *res)
{
    const struct rocx_aq_set_gid *sg = &cmd->set_gid;
    uint16_t index = lduw_le_p(&sg->index);
    uint16_t vlan = lduw_le_p(&sg->vlan);
    RocxGid *g;

    if (index >= ROCX_CORE_GID_TBL_LEN ||
        (sg->type != ROCX_GID_TYPE_ROCE_V1 &&
         sg->type != ROCX_GID_TYPE_ROCE_V2) ||
        (vlan != ROCX_VLAN_NONE && vlan > VLAN_VID_MASK) ||
        !rocx_mac_valid_unicast(sg->mac)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    g = &c->gid[index];
    g->valid = true;
    g->type = sg->type;
    g->vlan = vlan;
    memcpy(g->mac, sg->mac, sizeof(g->mac));
    memcpy(g->gid, sg->gid, sizeof(g->gid));
}

void rocx_cmd_del_gid(RocxCore *c, const union rocx_aq_cmd *cmd,
                      RocxAqResult *res)
{
    uint16_t index = lduw_le_p(&cmd->del_gid.index);

    if (index >= ROCX_CORE_GID_TBL_LEN) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (!c->gid[index].valid) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    memset(&c->gid[index], 0, sizeof(c->gid[index]));
}

/* ---- IPv4 addresses as GIDs: ::ffff:a.b.c.d ---- */

static const uint8_t rocx_gid_v4_prefix[ROCX_GID_V4_OFF] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
};

bool rocx_gid_is_v4(const uint8_t *gid)
{
    return !memcmp(gid, rocx_gid_v4_prefix, ROCX_GID_V4_OFF);
}

void rocx_gid_from_v4(uint8_t *gid, const uint8_t *addr)
{
    memcpy(gid, rocx_gid_v4_prefix, ROCX_GID_V4_OFF);
    memcpy(gid + ROCX_GID_V4_OFF, addr, 4);
}

/* ---- Lookup ---- */

const RocxGid *rocx_gid_get(RocxCore *c, unsigned index)
{
    if (index >= ROCX_CORE_GID_TBL_LEN || !c->gid[index].valid) {
        return NULL;
    }
    return &c->gid[index];
}

/* RocxCore.gid_hint indexes the table. */
QEMU_BUILD_BUG_ON(ROCX_CORE_GID_TBL_LEN > 256);

static bool rocx_gid_is(const RocxGid *g, const uint8_t *gid, uint8_t type)
{
    return g->valid && g->type == type && !memcmp(g->gid, gid, 16);
}

/*
 * A valid GID entry of the port equal to gid, of the given kind.  Every
 * received frame asks, nearly always for the entry it found last time:
 * that one is tried before the 128 of the table.
 */
RocxGid *rocx_gid_find(RocxCore *c, const uint8_t *gid, uint8_t type)
{
    unsigned i;

    if (rocx_gid_is(&c->gid[c->gid_hint], gid, type)) {
        return &c->gid[c->gid_hint];
    }
    for (i = 0; i < ROCX_CORE_GID_TBL_LEN; i++) {
        if (rocx_gid_is(&c->gid[i], gid, type)) {
            c->gid_hint = i;
            return &c->gid[i];
        }
    }
    return NULL;
}
