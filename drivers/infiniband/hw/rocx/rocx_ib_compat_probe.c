// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Kernel feature probes for rocx_ib, never linked into the module: the
 * Makefile compiles one block per ROCX_PROBE_<F> with the kernel's flags
 * and defines ROCX_HAVE_<F> when it builds (rocx_ib_compat.h).
 */
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#ifdef ROCX_PROBE_CREATE_CQ_ATTRS		/* 6.11 */
static int rocx_probe_create_cq(struct ib_cq *ibcq,
				const struct ib_cq_init_attr *attr,
				struct uverbs_attr_bundle *attrs)
{
	return 0;
}

const struct ib_device_ops rocx_probe = {
	.create_cq = rocx_probe_create_cq,
};
#endif

#ifdef ROCX_PROBE_IB_SPEED_XDR			/* 6.9 */
u16 rocx_probe = IB_SPEED_XDR;
#endif

#ifdef ROCX_PROBE_IB_UMEM_CHECK_REREG		/* Debian 6.12.95, not 6.1 */
int (*rocx_probe)(struct ib_umem *umem, int flags, int new_access_flags) =
	ib_umem_check_rereg;
#endif
