// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib kernel SRQs (ROCX_CAP2_SRQ) for kernel consumers (nvmet-rdma
 * with use_srq, ...), and their data path.
 *
 * The ring is what a provider would make (rocx_ib_srq_check() holds it
 * against the device), in pages of coherent memory described by their
 * page list,
 * and rung through the kernel's doorbell page.  The device takes entries
 * in ring order, but several QPs hold them, so they complete in any
 * order: each carries a tag, which its CQE names in wqe_idx, and the tag
 * indexes wrid[].  Free tags wait on a stack; post_srq_recv takes one,
 * poll_cq gives it back.  With at most depth entries outstanding, the
 * slot a post writes was taken by the device long ago, so the ring needs
 * no free list of its own.
 *
 * post_srq_recv may be called in any context: it takes only the SRQ's
 * spinlock, irqsave, and never sleeps or allocates.  poll_cq and the
 * cleaning of a QP's completions take it inside the CQ's lock.
 */
#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/**
 * rocx_ib_srq_wqe_build() - encode one receive work request for an SRQ
 * @buf: the entry, 2^wqe_shift bytes
 * @idx: the entry's free-running ring index
 * @tag: the entry's tag, which its CQE will carry
 * @wr: the work request
 * @max_sge: SGEs the entry has room for
 *
 * Return: 0, or -EINVAL for too many SGEs.
 */
int rocx_ib_srq_wqe_build(void *buf, u16 idx, u16 tag,
			  const struct ib_recv_wr *wr, u32 max_sge)
{
	struct rocx_recv_wqe *wqe = buf;
	int err;

	err = rocx_ib_recv_wqe_build(buf, idx, wr, max_sge);
	if (!err)
		wqe->tag = cpu_to_le16(tag);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_srq_wqe_build);

/**
 * rocx_ib_ksrq_geometry() - the ring for a kernel SRQ's attributes
 * @attr: what the consumer asked for
 * @req: zeroed; set to the ring, as a provider would request it
 */
VISIBLE_IF_KUNIT void rocx_ib_ksrq_geometry(const struct ib_srq_attr *attr,
					    struct rocx_create_srq_req *req)
{
	u32 sge = max_t(u32, attr->max_sge, 1);

	req->log_depth = max_t(u32, order_base_2(attr->max_wr),
			       ROCX_SRQ_MIN_LOG_DEPTH);
	req->wqe_shift = max_t(u32, order_base_2(ROCX_RECV_WQE_HDR +
						 sge * sizeof(struct rocx_sge)),
			       ROCX_IB_RQ_MIN_WQE_SHIFT);
	/* The check's user-buffer rule: any page-aligned address will do. */
	req->buf_addr = PAGE_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_ksrq_geometry);

static void rocx_ib_ksrq_release(struct rocx_ib_dev *dev,
				 struct rocx_ib_srq *srq)
{
	bitmap_free(srq->held);
	kvfree(srq->free_tags);
	kvfree(srq->wrid);
	srq->held = NULL;
	srq->free_tags = NULL;
	srq->wrid = NULL;
	rocx_ib_kbuf_free(dev, &srq->kbuf);
}

/**
 * rocx_ib_ksrq_create() - the ring and device SRQ of a kernel SRQ
 * @dev: device
 * @srq: the SRQ; srqn, wqe_shift and attr are set on success
 * @init: ib_core's attributes; attr is set to what the ring holds
 *
 * Return: 0 or a negative errno; nothing is left allocated on error.
 */
int rocx_ib_ksrq_create(struct rocx_ib_dev *dev, struct rocx_ib_srq *srq,
			struct ib_srq_init_attr *init)
{
	struct rocx_create_srq_req req = {};
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_ib_pbl pbl;
	struct rocx_aq_cqe cqe;
	u32 i, depth;
	int err;

	/* XRC receives name their SRQ in the CQE: not for kernel CQs yet. */
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	rocx_ib_ksrq_geometry(&init->attr, &req);
	err = rocx_ib_srq_check(dev->id, &init->attr, &req);
	if (err) {
		ibdev_dbg(&dev->ibdev, "kernel SRQ refused: wr %u sge %u\n",
			  init->attr.max_wr, init->attr.max_sge);
		return err;
	}
	rocx_ib_srq_caps(dev->id, &req, &srq->attr);
	depth = srq->attr.max_wr;

	spin_lock_init(&srq->klock);
	srq->pi = 0;
	srq->wrid = kvcalloc(depth, sizeof(*srq->wrid), GFP_KERNEL);
	srq->free_tags = kvcalloc(depth, sizeof(*srq->free_tags), GFP_KERNEL);
	srq->held = bitmap_zalloc(depth, GFP_KERNEL);
	if (!srq->wrid || !srq->free_tags || !srq->held) {
		rocx_ib_ksrq_release(dev, srq);
		return -ENOMEM;
	}
	/* Tag 0 on top: the first posts use 0, 1, 2... */
	for (i = 0; i < depth; i++)
		srq->free_tags[i] = depth - 1 - i;
	srq->nfree = depth;

	err = rocx_ib_kbuf_alloc(dev, &srq->kbuf,
				 (size_t)1 << (req.log_depth + req.wqe_shift),
				 &pbl);
	if (err) {
		rocx_ib_ksrq_release(dev, srq);
		return err;
	}
	cmd.create_srq.type = ROCX_SRQT_BASIC;
	rocx_ib_srq_create_cmd(&cmd.create_srq, 0,
			       to_rocx_ib_pd(srq->ibsrq.pd)->pdn, &req, &pbl);
	err = rocx_ib_exec(dev, &cmd, &cqe);
	rocx_ib_pbl_destroy(&pbl);
	if (err) {
		rocx_ib_ksrq_release(dev, srq);
		return rocx_ib_verbs_errno(err);
	}
	srq->srqn = le32_to_cpu(cqe.result);
	srq->wqe_shift = req.wqe_shift;
	init->attr.max_wr = srq->attr.max_wr;
	init->attr.max_sge = srq->attr.max_sge;
	return 0;
}

/**
 * rocx_ib_ksrq_free() - free a kernel SRQ's ring and tags
 * @dev: device
 * @srq: the SRQ, destroyed in the device (or never created); a user SRQ
 *	is left alone
 */
void rocx_ib_ksrq_free(struct rocx_ib_dev *dev, struct rocx_ib_srq *srq)
{
	if (srq->kbuf.va)
		rocx_ib_ksrq_release(dev, srq);
}

/**
 * rocx_ib_ksrq_complete() - an entry's CQE was polled (or cleaned away)
 * @srq: the kernel SRQ
 * @tag: the CQE's wqe_idx
 * @wr_id: set to the entry's wr_id
 *
 * Called with the CQ's lock held.  A tag that is not outstanding (a
 * device that names one twice) is not freed twice.
 *
 * Return: whether @tag was outstanding.
 */
bool rocx_ib_ksrq_complete(struct rocx_ib_srq *srq, u16 tag, u64 *wr_id)
{
	unsigned long flags;
	bool held = false;

	spin_lock_irqsave(&srq->klock, flags);
	if (tag < srq->attr.max_wr && __test_and_clear_bit(tag, srq->held)) {
		*wr_id = srq->wrid[tag];
		srq->free_tags[srq->nfree++] = tag;
		held = true;
	}
	spin_unlock_irqrestore(&srq->klock, flags);
	return held;
}

int rocx_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibsrq->device);
	struct rocx_ib_srq *srq = to_rocx_ib_srq(ibsrq);
	unsigned long flags;
	int err = 0;
	void *wqe;
	u16 pi, tag;

	if (!srq->kbuf.va) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->klock, flags);
	pi = srq->pi;
	for (; wr; wr = wr->next) {
		if (!srq->nfree) {
			err = -ENOMEM;
			break;
		}
		tag = srq->free_tags[srq->nfree - 1];
		wqe = rocx_ib_kbuf_at(&srq->kbuf,
				      (size_t)(pi & (srq->attr.max_wr - 1)) <<
				      srq->wqe_shift);
		err = rocx_ib_srq_wqe_build(wqe, pi, tag, wr, srq->attr.max_sge);
		if (err)
			break;
		srq->nfree--;
		srq->wrid[tag] = wr->wr_id;
		__set_bit(tag, srq->held);
		pi++;
	}
	if (err)
		*bad_wr = wr;
	if (pi != srq->pi) {
		srq->pi = pi;
		/* Orders the WQEs' stores before the doorbell itself. */
		rocx_kernel_db(dev->core, ROCX_DB_SRQ,
			       rocx_db_encode(srq->srqn, pi, 0));
	}
	spin_unlock_irqrestore(&srq->klock, flags);
	return err;
}
