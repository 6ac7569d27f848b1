// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: device match, user context and its doorbell page.
 *
 * rocx_ib.ko is built out of tree and has no RDMA driver id, so libibverbs
 * finds this provider through the PCI ID of the ib_device's parent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rocx.h"

static void rocx_free_context(struct ibv_context *ibctx);

static const struct verbs_match_ent rocx_match_table[] = {
	VERBS_PCI_MATCH(ROCX_PCI_VENDOR_ID, ROCX_PCI_DEVICE_ID, NULL),
	{}
};

/*
 * Everything not set here (QPs, CQs, MRs, ...) is left to libibverbs,
 * which answers EOPNOTSUPP until the device contract specifies it.
 */
static const struct verbs_context_ops rocx_ctx_ops = {
	.alloc_pd = rocx_alloc_pd,
	.dealloc_pd = rocx_dealloc_pd,
	.query_device_ex = rocx_query_device_ex,
	.query_port = rocx_query_port,
	.free_context = rocx_free_context,
};

static int rocx_map_db(struct rocx_context *ctx, int cmd_fd,
		       const struct urocx_alloc_ucontext_resp *resp)
{
	/* A newer kernel may leave the doorbell out; an older one always has it. */
	if (!(resp->comp_mask & ROCX_UCONTEXT_RESP_DB))
		return 0;
	if (resp->db_page_size != ROCX_DB_PAGE_SIZE) {
		verbs_err(&ctx->ibvctx, "doorbell page of %u bytes\n",
			  resp->db_page_size);
		return EINVAL;
	}

	/* Doorbells are only written; the kernel maps the page uncached. */
	ctx->db = mmap(NULL, resp->db_page_size, PROT_WRITE, MAP_SHARED,
		       cmd_fd, resp->db_mmap_key);
	if (ctx->db == MAP_FAILED) {
		int err = errno;

		ctx->db = NULL;
		verbs_err(&ctx->ibvctx, "cannot map doorbell page: %s\n",
			  strerror(err));
		return err;
	}
	ctx->db_page_size = resp->db_page_size;
	return 0;
}

static struct verbs_context *rocx_alloc_context(struct ibv_device *ibdev,
						int cmd_fd,
						void *private_data)
{
	struct urocx_alloc_ucontext_resp resp = {};
	struct urocx_alloc_ucontext cmd = {};
	struct rocx_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	/* No optional request fields yet: comp_mask stays 0. */
	err = ibv_cmd_get_context(&ctx->ibvctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "cannot allocate a user context: %s\n",
			  strerror(err));
		goto err_free;
	}

	ctx->uctx = resp.uctx;
	ctx->dev_caps = resp.dev_caps;
	ctx->max_inline = resp.max_inline;
	ctx->max_sge = resp.max_sge;
	err = rocx_map_db(ctx, cmd_fd, &resp);
	if (err)
		goto err_free;

	verbs_set_ops(&ctx->ibvctx, &rocx_ctx_ops);
	return &ctx->ibvctx;

err_free:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void rocx_free_context(struct ibv_context *ibctx)
{
	struct rocx_context *ctx = to_rocx_context(ibctx);

	if (ctx->db)
		munmap(ctx->db, ctx->db_page_size);
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

static struct verbs_device *rocx_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct rocx_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->vdev;
}

static void rocx_uninit_device(struct verbs_device *verbs_device)
{
	free(container_of(verbs_device, struct rocx_device, vdev));
}

static const struct verbs_device_ops rocx_dev_ops = {
	.name = "rocx",
	.match_min_abi_version = ROCX_UVERBS_ABI_VERSION,
	.match_max_abi_version = ROCX_UVERBS_ABI_VERSION,
	.match_table = rocx_match_table,
	.alloc_device = rocx_device_alloc,
	.uninit_device = rocx_uninit_device,
	.alloc_context = rocx_alloc_context,
};
PROVIDER_DRIVER(rocx, rocx_dev_ops);
