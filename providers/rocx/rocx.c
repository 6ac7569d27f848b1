// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: device match, user context and its doorbell page, and
 * the verbs the provider implements.
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
 * Everything not set here (SRQs, ...) is left to
 * libibverbs, which answers EOPNOTSUPP.
 */
static const struct verbs_context_ops rocx_ctx_ops = {
	.alloc_mw = rocx_alloc_mw,
	.alloc_parent_domain = rocx_alloc_parent_domain,
	.alloc_pd = rocx_alloc_pd,
	.alloc_td = rocx_alloc_td,
	.bind_mw = rocx_bind_mw,
	.attach_mcast = rocx_attach_mcast,
	.create_ah = rocx_create_ah,
	.create_cq = rocx_create_cq,
	.create_cq_ex = rocx_create_cq_ex,
	.create_qp = rocx_create_qp,
	.dealloc_mw = rocx_dealloc_mw,
	.create_srq = rocx_create_srq,
	.create_qp_ex = rocx_create_qp_ex,
	.dealloc_pd = rocx_dealloc_pd,
	.dealloc_td = rocx_dealloc_td,
	.dereg_mr = rocx_dereg_mr,
	.destroy_ah = rocx_destroy_ah,
	.destroy_cq = rocx_destroy_cq,
	.destroy_qp = rocx_destroy_qp,
	.destroy_srq = rocx_destroy_srq,
	.detach_mcast = rocx_detach_mcast,
	.free_context = rocx_free_context,
	.modify_qp = rocx_modify_qp,
	.modify_qp_rate_limit = rocx_modify_qp_rate_limit,
	.modify_srq = rocx_modify_srq,
	.poll_cq = rocx_poll_cq,
	.post_recv = rocx_post_recv,
	.post_send = rocx_post_send,
	.post_srq_recv = rocx_post_srq_recv,
	.query_device_ex = rocx_query_device_ex,
	.query_port = rocx_query_port,
	.query_rt_values = rocx_query_rt_values,
	.query_qp = rocx_query_qp,
	.query_srq = rocx_query_srq,
	.reg_mr = rocx_reg_mr,
	.rereg_mr = rocx_rereg_mr,
	.req_notify_cq = rocx_req_notify_cq,
	.resize_cq = rocx_resize_cq,
};

/* Only for a device whose kernel driver offers XRC (IBV_DEVICE_XRC). */
static const struct verbs_context_ops rocx_xrc_ops = {
	.close_xrcd = rocx_close_xrcd,
	.create_srq_ex = rocx_create_srq_ex,
	.get_srq_num = rocx_get_srq_num,
	.open_qp = rocx_open_qp,
	.open_xrcd = rocx_open_xrcd,
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

	/*
	 * Doorbells are only written; the kernel maps the page uncached.  It
	 * is read too where it carries the device clock (clock.c).
	 */
	ctx->db = mmap(NULL, resp->db_page_size,
		       resp->comp_mask & ROCX_UCONTEXT_RESP_DB_CLOCK ?
		       PROT_READ | PROT_WRITE : PROT_WRITE, MAP_SHARED,
		       cmd_fd, resp->db_mmap_key);
	if (ctx->db == MAP_FAILED) {
		int err = errno;

		ctx->db = NULL;
		verbs_err(&ctx->ibvctx, "cannot map doorbell page: %s\n",
			  strerror(err));
		return err;
	}
	ctx->db_page_size = resp->db_page_size;
	if (resp->comp_mask & ROCX_UCONTEXT_RESP_DB_CLOCK)
		ctx->db_clock = (uint8_t *)ctx->db + ROCX_DB_CLOCK;
	return 0;
}

static struct verbs_context *rocx_alloc_context(struct ibv_device *ibdev,
						int cmd_fd,
						void *private_data)
{
	struct urocx_alloc_ucontext_resp resp = {};
	struct urocx_alloc_ucontext cmd = {};
	struct ibv_device_attr_ex attr;
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
	/* A kernel without the field takes no request bits. */
	if (resp.comp_mask & ROCX_UCONTEXT_RESP_REQ_COMP) {
		ctx->cq_req_comp = resp.cq_req_comp;
		ctx->qp_req_comp = resp.qp_req_comp;
	}
	/* CQ sizing needs the device's max_cqe, which every kernel reports. */
	err = ibv_cmd_query_device_any(&ctx->ibvctx.context, NULL, &attr,
				       sizeof(attr.orig_attr), NULL, NULL);
	if (err) {
		verbs_err(&ctx->ibvctx, "cannot query the device: %s\n",
			  strerror(err));
		goto err_free;
	}
	ctx->max_cqe = attr.orig_attr.max_cqe;
	ctx->atomic = attr.orig_attr.atomic_cap != IBV_ATOMIC_NONE;
	err = rocx_map_db(ctx, cmd_fd, &resp);
	if (err)
		goto err_free;
	err = pthread_mutex_init(&ctx->qp_table_mutex, NULL);
	if (err)
		goto err_unmap;

	verbs_set_ops(&ctx->ibvctx, &rocx_ctx_ops);
	if (attr.orig_attr.device_cap_flags & IBV_DEVICE_XRC)
		verbs_set_ops(&ctx->ibvctx, &rocx_xrc_ops);
	return &ctx->ibvctx;

err_unmap:
	if (ctx->db)
		munmap(ctx->db, ctx->db_page_size);
err_free:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void rocx_free_context(struct ibv_context *ibctx)
{
	struct rocx_context *ctx = to_rocx_context(ibctx);
	unsigned int i;

	for (i = 0; i < ROCX_QP_TABLE_SIZE; i++) {
		free(ctx->qp_table[i]);
		free(ctx->xsrq_table[i]);
	}
	pthread_mutex_destroy(&ctx->qp_table_mutex);
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
