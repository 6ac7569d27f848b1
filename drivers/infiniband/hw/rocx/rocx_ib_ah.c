// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib address handles, for UD QPs (contract 1.2, ROCX_CAP2_UD).
 *
 * The device has no AH object: every UD work request carries its whole
 * address vector (struct rocx_wqe_ud), which the provider builds for user
 * QPs and rocx_ib_wqe.c, from the kernel AH's copy, for kernel QPs.  What
 * user space cannot know, the kernel resolves once per AH: the
 * destination MAC (ib_core put it in roce.dmac before calling us), the
 * VLAN of the source GID's netdev and the headers the GID's type asks
 * for.  They go back in the create_ah response; nothing is resolved per
 * post.
 */
#include <kunit/visibility.h>
#include <linux/etherdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/rocx-abi.h>

#include "rocx_ib.h"

/**
 * rocx_ib_ah_resp() - the create_ah response for an AH's address vector
 * @av: the AV rocx_ib_av_from_ah() built
 * @resp: zeroed response to fill
 */
VISIBLE_IF_KUNIT void rocx_ib_ah_resp(const struct rocx_av *av,
				      struct rocx_create_ah_resp *resp)
{
	ether_addr_copy(resp->dmac, av->dmac);
	resp->vlan = le16_to_cpu(av->vlan);
	resp->net_type = av->net_type;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_ah_resp);

/**
 * rocx_ib_create_ah() - an address handle for kernel UD work requests
 * @ibah: the AH
 * @init: ib_core's attribute, with the source GID and resolved dmac
 * @udata: NULL (kernel); a user AH goes through rocx_ib_create_user_ah()
 *
 * rdma_create_ah() may be called with spinlocks held (ib_mad, ib_cm), so
 * this never sleeps whatever RDMA_CREATE_AH_SLEEPABLE says: the AV is
 * driver memory that every UD WQE copies, and the device never hears of
 * the AH.
 *
 * Return: 0, -EOPNOTSUPP without ROCX_CAP2_UD, or -EINVAL for an AH
 * without a GID a RoCE port can send from.
 */
int rocx_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibah->device);
	struct rocx_ib_ah *ah = to_rocx_ib_ah(ibah);
	int err;

	if (udata)
		return rocx_ib_create_user_ah(ibah, init, udata);
	if (!(le64_to_cpu(dev->id->caps2) & ROCX_CAP2_UD))
		return -EOPNOTSUPP;
	memset(&ah->av, 0, sizeof(ah->av));
	err = rocx_ib_av_from_ah(init->ah_attr, &ah->av);
	if (err)
		ibdev_dbg(&dev->ibdev, "kernel AH refused: %d\n", err);
	return err;
}

int rocx_ib_create_user_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibah->device);
	struct rocx_create_ah_resp resp = {};
	struct rocx_av av = {};
	int err;

	if (!udata || !(le64_to_cpu(dev->id->caps2) & ROCX_CAP2_UD))
		return -EOPNOTSUPP;
	err = rocx_ib_udata_in(udata, NULL, 0, 0);
	if (err)
		return err;
	err = rocx_ib_av_from_ah(init->ah_attr, &av);
	if (err) {
		ibdev_dbg(&dev->ibdev, "AH refused: %d\n", err);
		return err;
	}
	rocx_ib_ah_resp(&av, &resp);
	return rocx_ib_udata_out(udata, &resp, sizeof(resp));
}

int rocx_ib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	/* The device never knew it. */
	return 0;
}
