// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: multicast groups.  The device keeps the group table
 * (rocx_ib programs it with ATTACH_MCAST), so attaching a UD QP to a group
 * is the kernel's command alone; a device without multicast makes the
 * kernel refuse it (EOPNOTSUPP).
 */
#include "rocx.h"

int rocx_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid)
{
	return ibv_cmd_attach_mcast(qp, gid, lid);
}

int rocx_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid)
{
	return ibv_cmd_detach_mcast(qp, gid, lid);
}
