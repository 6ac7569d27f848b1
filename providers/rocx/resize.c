// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: resizing CQs (ibv_resize_cq) and SRQs (ibv_modify_srq
 * with IBV_SRQ_MAX_WR).
 *
 * The provider allocates the new ring, and under the CQ's (SRQ's) lock
 * asks the kernel to move the queue there; the device copies the live
 * entries over at the same indexes before the command returns, so the
 * consumer and producer indexes carry over and the old ring is simply
 * freed afterwards.  With the lock held no poll (post) can use either
 * ring meanwhile.  A kernel or device without resizing answers
 * EOPNOTSUPP and the queue stays as it was.
 *
 * SRQs only grow: the tags of entries held by QPs stay valid (they are
 * below the old depth), and the new tags are pushed on the free stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ccan/minmax.h>

#include "rocx.h"

/* A zeroed, fork-protected ring of @size bytes, or NULL (errno set). */
static void *rocx_ring_buf_alloc(size_t size)
{
	void *ring;
	int err;

	err = posix_memalign(&ring, sysconf(_SC_PAGESIZE), size);
	if (err) {
		errno = err;
		return NULL;
	}
	memset(ring, 0, size);
	err = ibv_dontfork_range(ring, size);
	if (err) {
		free(ring);
		errno = err;
		return NULL;
	}
	return ring;
}

static void rocx_ring_buf_free(void *ring, size_t size)
{
	ibv_dofork_range(ring, size);
	free(ring);
}

int rocx_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rocx_cq *cq = to_rocx_cq(ibcq);
	struct rocx_context *ctx = to_rocx_context(ibcq->context);
	struct urocx_resize_cq_resp resp = {};
	struct urocx_resize_cq cmd = {};
	uint32_t log_depth;
	size_t size;
	void *ring;
	int err;

	if (cqe < 1 || cqe > (1 << 16) || (uint32_t)cqe > ctx->max_cqe)
		return EINVAL;
	log_depth = ilog32(roundup_pow_of_two(cqe < 2 ? 2 : cqe)) - 1;
	size = align((size_t)1 << (log_depth + cq->cqe_shift),
		     sysconf(_SC_PAGESIZE));
	ring = rocx_ring_buf_alloc(size);
	if (!ring)
		return errno;

	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
	/* The device counts what is outstanding from the ci it was given. */
	if (cq->ci != cq->db_ci)
		rocx_cq_db(cq, 0);
	cmd.buf_addr = (uintptr_t)ring;
	cmd.log_depth = log_depth;
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (!err) {
		void *old = cq->ring;
		size_t old_size = cq->ring_size;

		cq->ring = ring;
		cq->ring_size = size;
		cq->log_depth = log_depth;
		/* Every entry goes back at once: the ring is exactly cqe deep. */
		cq->db_batch = 1;
		ring = old;
		size = old_size;
	}
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
	/* The ring the device no longer uses: the old one, or the new. */
	rocx_ring_buf_free(ring, size);
	return err;
}

/* The SRQ's tag arrays for @depth entries, the old ones' contents kept. */
struct rocx_srq_tags {
	uint64_t *wrid;
	bool *held;
	uint16_t *free_tags;
};

static int rocx_srq_tags_alloc(struct rocx_srq_tags *t, uint32_t depth)
{
	t->wrid = calloc(depth, sizeof(*t->wrid));
	t->held = calloc(depth, sizeof(*t->held));
	t->free_tags = calloc(depth, sizeof(*t->free_tags));
	if (t->wrid && t->held && t->free_tags)
		return 0;
	free(t->wrid);
	free(t->held);
	free(t->free_tags);
	return ENOMEM;
}

/* Swap @t in for depth @depth; @t gets the old arrays.  SRQ locked. */
static void rocx_srq_tags_swap(struct rocx_srq *srq, struct rocx_srq_tags *t,
			       uint32_t depth)
{
	struct rocx_srq_tags old = { srq->wrid, srq->held, srq->free_tags };
	uint32_t i;

	memcpy(t->wrid, srq->wrid, srq->depth * sizeof(*t->wrid));
	memcpy(t->held, srq->held, srq->depth * sizeof(*t->held));
	/* The new tags below the free ones: those stay on top. */
	for (i = 0; i < depth - srq->depth; i++)
		t->free_tags[i] = depth - 1 - i;
	memcpy(t->free_tags + i, srq->free_tags,
	       srq->nfree * sizeof(*t->free_tags));
	srq->nfree += depth - srq->depth;
	srq->wrid = t->wrid;
	srq->held = t->held;
	srq->free_tags = t->free_tags;
	*t = old;
}

int rocx_srq_resize(struct rocx_srq *srq, uint32_t max_wr)
{
	struct urocx_modify_srq cmd = {};
	struct ibv_srq_attr attr = {};
	struct rocx_srq_tags tags;
	uint32_t log_depth, depth;
	size_t size;
	void *buf;
	int err;

	if (max_wr > 1U << ROCX_SRQ_MAX_LOG_DEPTH)
		return EINVAL;
	log_depth = ilog32(roundup_pow_of_two(max_wr)) - 1;
	depth = 1U << log_depth;
	size = align((size_t)depth << srq->wqe_shift, sysconf(_SC_PAGESIZE));
	buf = rocx_ring_buf_alloc(size);
	if (!buf)
		return errno;
	err = rocx_srq_tags_alloc(&tags, depth);
	if (err) {
		rocx_ring_buf_free(buf, size);
		return err;
	}

	pthread_spin_lock(&srq->lock);
	/* Another thread's resize got there first. */
	if (depth <= srq->depth) {
		err = 0;
		goto out;
	}
	cmd.buf_addr = (uintptr_t)buf;
	cmd.log_depth = log_depth;
	attr.max_wr = max_wr;
	err = ibv_cmd_modify_srq(&srq->ibvsrq, &attr, IBV_SRQ_MAX_WR,
				 &cmd.ibv_cmd, sizeof(cmd));
	if (!err) {
		void *old = srq->buf;
		size_t old_size = srq->buf_size;

		rocx_srq_tags_swap(srq, &tags, depth);
		srq->buf = buf;
		srq->buf_size = size;
		srq->depth = depth;
		buf = old;
		size = old_size;
	}
out:
	pthread_spin_unlock(&srq->lock);
	rocx_ring_buf_free(buf, size);
	free(tags.wrid);
	free(tags.held);
	free(tags.free_tags);
	return err;
}
