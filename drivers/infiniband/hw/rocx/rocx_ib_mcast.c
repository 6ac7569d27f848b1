// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib: multicast groups of UD QPs.
 *
 * The device keeps the group table and derives each group's MAC itself
 * (rocx-device.rst, "Multicast"), so attach and detach are one admin
 * command each.  ib_core has checked that the QP is UD and the GID a
 * multicast address; for RoCE there is no LID.  uverbs keeps each QP's
 * list of groups and detaches them all before destroying it, and the
 * device drops a destroyed QP from its groups in any case.
 */
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/**
 * rocx_ib_mcast_cmd() - encode ATTACH_MCAST or DETACH_MCAST
 * @cmd: zeroed command, filled in
 * @op: ROCX_AQ_OP_ATTACH_MCAST or ROCX_AQ_OP_DETACH_MCAST
 * @qpn: the UD QP
 * @gid: the group
 */
VISIBLE_IF_KUNIT void rocx_ib_mcast_cmd(union rocx_aq_verbs_cmd *cmd, u16 op,
					u32 qpn, const union ib_gid *gid)
{
	cmd->mcast.hdr.opcode = cpu_to_le16(op);
	cmd->mcast.qpn = cpu_to_le32(qpn);
	memcpy(cmd->mcast.gid, gid->raw, sizeof(cmd->mcast.gid));
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_mcast_cmd);

/**
 * rocx_ib_mcast_qp_flags() - the CREATE_QP flags a QP's create flags ask for
 * @caps2: the device's IDENTIFY.caps2
 * @type: the QP's type
 * @create_flags: ib_core's create flags; those taken here are cleared
 *
 * A UD QP of a device with ROCX_CAP2_MCAST may block the loopback of its
 * own group sends (IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK); any other QP
 * keeps the flag, which its creation then refuses as unknown.
 *
 * Return: ROCX_QP_NO_MC_LOOPBACK or 0.
 */
u8 rocx_ib_mcast_qp_flags(u64 caps2, enum ib_qp_type type, u32 *create_flags)
{
	if (!(*create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK) ||
	    type != IB_QPT_UD || !(caps2 & ROCX_CAP2_MCAST))
		return 0;
	*create_flags &= ~IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	return ROCX_QP_NO_MC_LOOPBACK;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_mcast_qp_flags);

static int rocx_ib_mcast_exec(struct ib_qp *ibqp, u16 op, union ib_gid *gid)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibqp->device);
	union rocx_aq_verbs_cmd cmd = {};

	if (!(le64_to_cpu(dev->id->caps2) & ROCX_CAP2_MCAST))
		return -EOPNOTSUPP;
	rocx_ib_mcast_cmd(&cmd, op, ibqp->qp_num, gid);
	return rocx_ib_verbs_errno(rocx_ib_exec(dev, &cmd, NULL));
}

int rocx_ib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return rocx_ib_mcast_exec(ibqp, ROCX_AQ_OP_ATTACH_MCAST, gid);
}

int rocx_ib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return rocx_ib_mcast_exec(ibqp, ROCX_AQ_OP_DETACH_MCAST, gid);
}
