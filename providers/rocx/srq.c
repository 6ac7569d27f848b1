// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: shared receive queues.
 *
 * An SRQ is a page-aligned ring of 2^log_depth receive WQEs of
 * 2^wqe_shift bytes (a 16-byte struct rocx_recv_wqe, then SGEs), posted
 * at pi and handed over through the SRQ doorbell of the context's page.
 * The device takes entries in ring order but they complete in any order,
 * since several QPs hold them, so each carries a tag, which its CQE
 * names: the index of its wr_id in wrid[].  Free tags wait on a stack; a
 * post takes one, poll_cq gives it back.  With at most depth entries
 * outstanding, the ring slot a post writes was taken by the device long
 * ago (it takes in order, and all but depth - 1 entries before it have
 * completed), so the ring itself needs no free list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ccan/minmax.h>
#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "rocx.h"

/* Ring geometry the contract allows (rocx_verbs.h, CREATE_SRQ). */
#define ROCX_SRQ_MIN_WQE_SHIFT	4
#define ROCX_SRQ_MAX_WQE_SHIFT	9

/*
 * The ring and the tags of a new SRQ for @attr, not yet known to the
 * kernel; NULL with errno set.  @log_depth and @wqe_shift: its geometry.
 */
struct rocx_srq *rocx_srq_ring_new(struct rocx_context *ctx,
				   const struct ibv_srq_attr *attr,
				   uint32_t *log_depth, uint32_t *wqe_shift)
{
	size_t page = sysconf(_SC_PAGESIZE);
	uint32_t sge = attr->max_sge ? attr->max_sge : 1;
	struct rocx_srq *srq;
	uint32_t i;
	int err;

	if (!ctx->db) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->max_wr || attr->max_wr > 1U << ROCX_SRQ_MAX_LOG_DEPTH ||
	    attr->max_sge > ctx->max_sge) {
		errno = EINVAL;
		return NULL;
	}
	*log_depth = ilog32(roundup_pow_of_two(max_t(uint32_t,
						     attr->max_wr, 2))) - 1;
	*wqe_shift = max_t(uint32_t,
			   ilog32(roundup_pow_of_two(ROCX_RECV_WQE_HDR +
						     sge * sizeof(struct rocx_sge))) - 1,
			   ROCX_SRQ_MIN_WQE_SHIFT);
	if (*wqe_shift > ROCX_SRQ_MAX_WQE_SHIFT) {
		errno = EINVAL;
		return NULL;
	}

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	srq->depth = 1U << *log_depth;
	srq->wqe_shift = *wqe_shift;
	srq->buf_size = align((size_t)srq->depth << *wqe_shift, page);
	err = posix_memalign(&srq->buf, page, srq->buf_size);
	if (err)
		goto err_free;
	memset(srq->buf, 0, srq->buf_size);
	err = ibv_dontfork_range(srq->buf, srq->buf_size);
	if (err)
		goto err_free_buf;
	srq->wrid = calloc(srq->depth, sizeof(*srq->wrid));
	srq->free_tags = calloc(srq->depth, sizeof(*srq->free_tags));
	srq->held = calloc(srq->depth, sizeof(*srq->held));
	if (!srq->wrid || !srq->free_tags || !srq->held) {
		err = ENOMEM;
		goto err_dofork;
	}
	/* Tag 0 on top: the first posts use 0, 1, 2... */
	for (i = 0; i < srq->depth; i++)
		srq->free_tags[i] = srq->depth - 1 - i;
	srq->nfree = srq->depth;
	err = pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		goto err_dofork;
	srq->db = (uint8_t *)ctx->db + ROCX_DB_SRQ;
	return srq;

err_dofork:
	free(srq->held);
	free(srq->free_tags);
	free(srq->wrid);
	ibv_dofork_range(srq->buf, srq->buf_size);
err_free_buf:
	free(srq->buf);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

/* Undo rocx_srq_ring_new(), once the kernel has no SRQ of it. */
void rocx_srq_ring_free(struct rocx_srq *srq)
{
	pthread_spin_destroy(&srq->lock);
	free(srq->held);
	free(srq->free_tags);
	free(srq->wrid);
	ibv_dofork_range(srq->buf, srq->buf_size);
	free(srq->buf);
	free(srq);
}

struct ibv_srq *rocx_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr)
{
	struct rocx_context *ctx = to_rocx_context(pd->context);
	struct urocx_create_srq_resp resp = {};
	struct urocx_create_srq cmd = {};
	uint32_t log_depth, wqe_shift;
	struct rocx_srq *srq;
	int err;

	srq = rocx_srq_ring_new(ctx, &attr->attr, &log_depth, &wqe_shift);
	if (!srq)
		return NULL;
	cmd.buf_addr = (uintptr_t)srq->buf;
	cmd.log_depth = log_depth;
	cmd.wqe_shift = wqe_shift;
	err = ibv_cmd_create_srq(pd, &srq->ibvsrq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_debug(&ctx->ibvctx, "create SRQ of %u failed: %s\n",
			    attr->attr.max_wr, strerror(err));
		rocx_srq_ring_free(srq);
		errno = err;
		return NULL;
	}
	/* libibverbs copied the real max_wr and max_sge into attr->attr. */
	srq->srqn = resp.srqn;
	srq->max_sge = attr->attr.max_sge;
	return &srq->ibvsrq;
}

int rocx_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct rocx_srq *srq = to_rocx_srq(ibsrq);
	struct ibv_modify_srq cmd;
	int err;

	/* Resizing (resize.c) grows only: a max_wr it holds needs nothing. */
	if (attr_mask & IBV_SRQ_MAX_WR) {
		if (!attr->max_wr)
			return EINVAL;
		if (attr->max_wr > srq->depth) {
			err = rocx_srq_resize(srq, attr->max_wr);
			if (err)
				return err;
		}
		attr_mask &= ~IBV_SRQ_MAX_WR;
		if (!attr_mask)
			return 0;
	}
	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int rocx_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int rocx_destroy_srq(struct ibv_srq *ibsrq)
{
	struct rocx_srq *srq = to_rocx_srq(ibsrq);
	int err;

	/* An XRC SRQ leaves the table poll_cq finds it in (xrc.c). */
	if (srq->xrc_recv)
		err = rocx_xrc_destroy_srq(to_rocx_context(ibsrq->context), srq);
	else
		err = ibv_cmd_destroy_srq(ibsrq);
	/* The kernel refuses while a QP uses it: nothing freed then. */
	if (err)
		return err;
	rocx_srq_ring_free(srq);
	return 0;
}

/*
 * An entry's CQE arrived (or was cleaned away): its wr_id, and its tag
 * back on the stack.  Called with the CQ's lock held; a tag that is not
 * outstanding (a device that names one twice) is not freed twice.
 */
uint64_t rocx_srq_complete(struct rocx_srq *srq, uint16_t tag)
{
	uint64_t wr_id = 0;

	pthread_spin_lock(&srq->lock);
	if (tag < srq->depth && srq->held[tag]) {
		wr_id = srq->wrid[tag];
		srq->held[tag] = false;
		srq->free_tags[srq->nfree++] = tag;
	}
	pthread_spin_unlock(&srq->lock);
	return wr_id;
}

int rocx_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct rocx_srq *srq = to_rocx_srq(ibsrq);
	struct rocx_recv_wqe *wqe;
	uint16_t posted = 0;
	uint16_t tag;
	int err = 0;

	pthread_spin_lock(&srq->lock);
	for (; wr; wr = wr->next) {
		if (!srq->nfree) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge) {
			err = EINVAL;
			break;
		}
		tag = srq->free_tags[--srq->nfree];
		wqe = (void *)((uint8_t *)srq->buf +
			       ((size_t)(srq->pi & (srq->depth - 1)) << srq->wqe_shift));
		memset(wqe, 0, ROCX_RECV_WQE_HDR);
		wqe->num_sge = wr->num_sge;
		wqe->wqe_idx = htole16(srq->pi);
		wqe->tag = htole16(tag);
		rocx_wqe_sges((struct rocx_sge *)((uint8_t *)wqe +
						  ROCX_RECV_WQE_HDR),
			      wr->sg_list, wr->num_sge);
		srq->wrid[tag] = wr->wr_id;
		srq->held[tag] = true;
		srq->pi++;
		posted++;
	}
	if (err)
		*bad_wr = wr;
	if (posted) {
		/* The WQEs must be in memory before the device hears of them. */
		udma_to_device_barrier();
		mmio_write64_le(srq->db, htole64(rocx_db_encode(srq->srqn,
							       srq->pi, 0)));
	}
	pthread_spin_unlock(&srq->lock);
	return err;
}
