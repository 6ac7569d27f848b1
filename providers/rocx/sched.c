// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: a QP's rate limit (ibv_modify_qp_rate_limit).  The device
 * paces the QP frame by frame at that rate (kb/s; 0 removes the limit);
 * rocx_ib takes IB_QP_RATE_LIMIT from RTR to RTS and from RTS to RTS on a
 * device whose transmit scheduler paces QPs, and refuses it otherwise
 * (EOPNOTSUPP).  The pacer has no burst or packet size to tune.  The
 * attribute needs the extended modify command, whichever verb sets it.
 */
#include <errno.h>

#include "rocx.h"

int rocx_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask)
{
	struct ib_uverbs_ex_modify_qp_resp resp = {};
	struct ibv_modify_qp_ex cmd = {};

	return ibv_cmd_modify_qp_ex(qp, attr, attr_mask, &cmd, sizeof(cmd),
				    &resp, sizeof(resp));
}

int rocx_modify_qp_rate_limit(struct ibv_qp *qp,
			      struct ibv_qp_rate_limit_attr *attr)
{
	struct ibv_qp_attr qp_attr = {};

	if (attr->comp_mask)
		return EINVAL;
	if (attr->max_burst_sz || attr->typical_pkt_sz)
		return EINVAL;
	qp_attr.rate_limit = attr->rate_limit;
	return rocx_modify_qp_ex(qp, &qp_attr, IBV_QP_RATE_LIMIT);
}
