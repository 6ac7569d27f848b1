// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: address handles, for UD QPs.
 *
 * The device has no AH object: each UD send WQE carries the whole
 * address vector.  An AH is that vector, built here once from the
 * ibv_ah_attr and what the kernel resolved for it (the destination MAC,
 * the source GID's VLAN and network type, in the create_ah response);
 * post_send copies it into every WQE and never asks the kernel again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rocx.h"

struct ibv_ah *rocx_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct urocx_create_ah_resp resp = {};
	struct rocx_av *av;
	struct rocx_ah *ah;
	int err;

	/* RoCE addresses by GID: the kernel refuses an AH without one too. */
	if (!attr->is_global) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_create_ah(pd, &ah->ibvah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}

	av = &ah->av;
	memcpy(av->dgid, attr->grh.dgid.raw, sizeof(av->dgid));
	memcpy(av->dmac, resp.dmac, sizeof(av->dmac));
	/*
	 * The device sends on the source GID entry's VLAN, which the kernel
	 * programmed and returned here; the copy only keeps the AV true.
	 */
	av->vlan = htole16(resp.vlan);
	/* The service level is the priority (PCP, and the device's queue). */
	av->flow_label = htole32((attr->grh.flow_label & 0xfffff) |
				 (uint32_t)(attr->sl & 7) << 20);
	av->sgid_index = attr->grh.sgid_index;
	av->hop_limit = attr->grh.hop_limit;
	av->traffic_class = attr->grh.traffic_class;
	av->net_type = resp.net_type;
	return &ah->ibvah;
}

int rocx_destroy_ah(struct ibv_ah *ibah)
{
	struct rocx_ah *ah = to_rocx_ah(ibah);
	int err;

	err = ibv_cmd_destroy_ah(ibah);
	if (err)
		return err;
	free(ah);
	return 0;
}
