/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx_ib on kernels older than the one it is written for.
 *
 * As rocx_compat.h does for rocx_core: the driver is 6.12 code, the
 * Makefile probes the kernel being built for (rocx_ib_compat_probe.c) and
 * defines ROCX_HAVE_<F> for each interface it has, and this header shims
 * the others under their 6.12 names.  What no shim can give is refused
 * where it is used and listed in Documentation/driver-ethernet.rst,
 * "Supported kernels".  Included by rocx_ib.h, hence by every file of the
 * driver.
 */
#ifndef _ROCX_IB_COMPAT_H_
#define _ROCX_IB_COMPAT_H_

#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#ifndef ROCX_HAVE_IB_SPEED_XDR
/*
 * ib_core before 6.9 has no speed above NDR (100 Gb/s a lane): a link
 * faster than 400 Gb/s shows as NDR at the width rocx_ib_speed_width()
 * picks, half its rate.
 */
#define IB_SPEED_XDR	IB_SPEED_NDR
#endif

int rocx_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs);

#ifdef ROCX_HAVE_CREATE_CQ_ATTRS
#define ROCX_IB_CREATE_CQ	rocx_ib_create_cq
#else
/*
 * Before 6.11 create_cq took the driver's udata: uverbs passes the one
 * inside its attribute bundle, a kernel consumer NULL, which rocx_ib's
 * create_cq reads the same way from a NULL bundle.
 */
static inline int rocx_ib_create_cq_udata(struct ib_cq *ibcq,
					  const struct ib_cq_init_attr *attr,
					  struct ib_udata *udata)
{
	return rocx_ib_create_cq(ibcq, attr, udata ?
				 container_of(udata, struct uverbs_attr_bundle,
					      driver_udata) : NULL);
}

#define ROCX_IB_CREATE_CQ	rocx_ib_create_cq_udata
#endif

#ifndef ROCX_HAVE_IB_UMEM_CHECK_REREG
/*
 * ib_umem has no rereg check of its own here, only the bit it rests on:
 * pages pinned without write access must not be handed to the device for
 * writing by a rereg that keeps them (as the kernels that have the check
 * do).
 */
static inline int ib_umem_check_rereg(struct ib_umem *umem, int flags,
				      int new_access_flags)
{
	if (!umem || !(flags & IB_MR_REREG_ACCESS) ||
	    (flags & IB_MR_REREG_TRANS))
		return 0;
	if (ib_access_writable(new_access_flags) && !umem->writable)
		return -EACCES;
	return 0;
}
#endif

#endif /* _ROCX_IB_COMPAT_H_ */
