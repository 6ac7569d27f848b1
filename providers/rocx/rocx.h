/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx provider for libibverbs.
 */
#ifndef __ROCX_H__
#define __ROCX_H__

#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <util/util.h>

#include "rocx-abi.h"
#include "rocx/rocx_hw.h"

struct rocx_device {
	struct verbs_device vdev;
};

struct rocx_context {
	struct verbs_context ibvctx;
	/*
	 * This context's doorbell page (BAR2), mapped write-only and
	 * uncached; NULL when the kernel did not offer one.  The data path
	 * rings its queues through it.
	 */
	void *db;
	uint32_t db_page_size;
	uint32_t uctx;		/* device user-context id = doorbell page */
	uint32_t dev_caps;	/* ROCX_CAP_* */
	uint32_t max_inline;
	uint32_t max_sge;
};

struct rocx_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

static inline struct rocx_context *to_rocx_context(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct rocx_context, ibvctx.context);
}

static inline struct rocx_pd *to_rocx_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct rocx_pd, ibvpd);
}

int rocx_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int rocx_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *rocx_alloc_pd(struct ibv_context *context);
int rocx_dealloc_pd(struct ibv_pd *pd);

#endif /* __ROCX_H__ */
