// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider verbs: device and port queries, protection domains and
 * memory regions (CQs in cq.c, QPs in qp.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rocx.h"

int rocx_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int err;

	err = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (err)
		return err;

	/* rocx_ib packs major.minor.patch as 32.16.16 bits. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

int rocx_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *rocx_alloc_pd(struct ibv_context *context)
{
	struct urocx_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd;
	struct rocx_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	err = ibv_cmd_alloc_pd(context, &pd->ibvpd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	pd->pdn = resp.pdn;
	atomic_init(&pd->refcount, 1);
	return &pd->ibvpd;
}

int rocx_dealloc_pd(struct ibv_pd *ibpd)
{
	struct rocx_pd *pd = to_rocx_pd(ibpd);
	int err;

	if (pd->protection)
		return rocx_dealloc_parent_domain(pd);
	/* Parent domains hold it. */
	if (atomic_load(&pd->refcount) > 1)
		return EBUSY;
	err = ibv_cmd_dealloc_pd(ibpd);
	if (err)
		return err;
	free(to_rocx_pd(ibpd));
	return 0;
}

struct ibv_mr *rocx_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	/* The kernel pins the pages; the device's key is both lkey and rkey. */
	err = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

int rocx_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;
	free(vmr);
	return 0;
}
