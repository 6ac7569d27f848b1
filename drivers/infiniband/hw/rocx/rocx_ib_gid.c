// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib GID table.
 *
 * ib_core builds the RoCE GID table from the netdev's addresses (one RoCE v1
 * and one RoCE v2 entry per address) and calls add_gid/del_gid for every
 * change; the device keeps a copy so that it can check and fill in source
 * addresses on the wire.  The index is ib_core's, so the two tables agree
 * entry for entry.
 */
#include <kunit/visibility.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <rdma/ib_cache.h>

#include "rocx_ib.h"

/**
 * rocx_ib_gid_type() - device GID type of an ib_core GID type
 * @type: IB_GID_TYPE_ROCE (v1) or IB_GID_TYPE_ROCE_UDP_ENCAP (v2)
 *
 * Return: enum rocx_gid_type value, or -EINVAL for a type the device does
 * not have.
 */
VISIBLE_IF_KUNIT int rocx_ib_gid_type(enum ib_gid_type type)
{
	switch (type) {
	case IB_GID_TYPE_ROCE:
		return ROCX_GID_TYPE_ROCE_V1;
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
		return ROCX_GID_TYPE_ROCE_V2;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_gid_type);

/**
 * rocx_ib_set_gid_cmd() - encode a SET_GID command
 * @cmd: zeroed command to fill
 * @index: GID table index
 * @type: enum rocx_gid_type
 * @vlan: VLAN id, or ROCX_VLAN_NONE
 * @mac: source MAC of the entry
 * @gid: the GID, in network byte order as ib_core keeps it
 */
VISIBLE_IF_KUNIT void rocx_ib_set_gid_cmd(union rocx_aq_cmd *cmd, u16 index,
					  u8 type, u16 vlan, const u8 *mac,
					  const union ib_gid *gid)
{
	struct rocx_aq_set_gid *sg = &cmd->set_gid;

	sg->hdr.opcode = cpu_to_le16(ROCX_AQ_OP_SET_GID);
	sg->index = cpu_to_le16(index);
	sg->type = type;
	sg->vlan = cpu_to_le16(vlan);
	ether_addr_copy(sg->mac, mac);
	memcpy(sg->gid, gid->raw, sizeof(sg->gid));
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_set_gid_cmd);

int rocx_ib_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(attr->device);
	union rocx_aq_cmd cmd = {};
	u8 mac[ETH_ALEN];
	int type, err;
	u16 vlan;

	type = rocx_ib_gid_type(attr->gid_type);
	if (type < 0)
		return type;
	/* The VLAN and MAC of the netdev (or its VLAN upper) the GID is on. */
	err = rdma_read_gid_l2_fields(attr, &vlan, mac);
	if (err)
		return err;
	if (vlan >= VLAN_N_VID)
		vlan = ROCX_VLAN_NONE;

	rocx_ib_set_gid_cmd(&cmd, attr->index, type, vlan, mac, &attr->gid);
	err = rocx_admin_exec(dev->core, &cmd, NULL);
	if (err)
		ibdev_err(&dev->ibdev, "SET_GID %u (%pI6) failed: %d\n",
			  attr->index, attr->gid.raw, err);
	return err;
}

int rocx_ib_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(attr->device);
	union rocx_aq_cmd cmd = {};
	int err;

	cmd.del_gid.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_DEL_GID);
	cmd.del_gid.index = cpu_to_le16(attr->index);
	err = rocx_admin_exec(dev->core, &cmd, NULL);
	/*
	 * ib_core frees its entry whatever we return; say why the device's
	 * leaked, unless the device is going away and forgets it anyway.
	 */
	if (err && err != -ENODEV)
		ibdev_warn(&dev->ibdev, "DEL_GID %u failed: %d\n",
			   attr->index, err);
	return err;
}
