// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib: a QP's static rate limit (IB_QP_RATE_LIMIT, ibv_modify_qp_rate_limit).
 *
 * The device paces each QP frame by frame at the lower of its rate limit
 * and its congestion-control rate (rocx-device.rst, "Transmit
 * scheduling"), on a device with ROCX_CAP2_ETS.  ib_modify_qp_is_ok() allows
 * the attribute for raw packet QPs only, as mlx5 has it; rocx takes it for
 * RC, UC and UD QPs from RTR to RTS and from RTS to RTS, so the driver
 * checks that transition itself and leaves the rest of the mask to
 * ib_core's table.
 */
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/**
 * rocx_ib_rate_limit_check() - whether a MODIFY_QP may set a rate limit
 * @caps2: IDENTIFY.caps2 of the device
 * @max_speed: IDENTIFY.max_speed, Mb/s
 * @type: the QP's type
 * @cur: its state
 * @next: the state it moves to
 * @kbps: the rate limit, kb/s (0: none)
 *
 * Return: 0, -EOPNOTSUPP without ROCX_CAP2_ETS or for another QP type, or
 * -EINVAL for another transition or a rate above the port's largest.
 */
int rocx_ib_rate_limit_check(u64 caps2, u32 max_speed,
			     enum ib_qp_type type,
			     enum ib_qp_state cur,
			     enum ib_qp_state next, u32 kbps)
{
	if (!(caps2 & ROCX_CAP2_ETS))
		return -EOPNOTSUPP;
	if (type != IB_QPT_RC && type != IB_QPT_UC && type != IB_QPT_UD)
		return -EOPNOTSUPP;
	if (next != IB_QPS_RTS || (cur != IB_QPS_RTR && cur != IB_QPS_RTS))
		return -EINVAL;
	if ((u64)kbps > (u64)max_speed * 1000)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_rate_limit_check);
