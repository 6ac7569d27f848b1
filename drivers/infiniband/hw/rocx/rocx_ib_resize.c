// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib: resizing CQs (ROCX_CAP2_CQ_RESIZE) and SRQs
 * (ROCX_CAP2_SRQ_RESIZE) of user space.
 *
 * The provider allocates the new ring and the kernel pins it and hands its
 * page list to the device (RESIZE_CQ; MODIFY_SRQ with RESIZE), which
 * copies the live entries over and switches to it before it answers;
 * only then is the old ring released.  A command without an answer
 * leaves the device possibly using either ring, so both stay pinned.
 */
#include <kunit/visibility.h>
#include <rdma/ib_umem.h>
#include <rdma/rocx-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rocx_ib.h"

/**
 * rocx_ib_resize_cq_check() - check a provider's new CQ ring
 * @id: identify block
 * @cqe: entries the application asked for
 * @req: the provider's request
 *
 * Return: 0, -EOPNOTSUPP for request bits this kernel does not know, or
 * -EINVAL for a ring the device cannot take or that cannot hold @cqe.
 */
VISIBLE_IF_KUNIT int rocx_ib_resize_cq_check(const struct rocx_identify *id,
					     int cqe,
					     const struct rocx_resize_cq_req *req)
{
	u32 max_cqe = le32_to_cpu(id->max_cqe);

	if (req->comp_mask)
		return -EOPNOTSUPP;
	if (req->log_depth < ROCX_IB_CQ_MIN_LOG_DEPTH ||
	    req->log_depth > ROCX_IB_CQ_MAX_LOG_DEPTH)
		return -EINVAL;
	if (cqe < 1 || cqe > BIT(req->log_depth) ||
	    BIT(req->log_depth) > max_cqe)
		return -EINVAL;
	if (!req->buf_addr || !PAGE_ALIGNED(req->buf_addr))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_resize_cq_check);

/* Pin @len bytes at @addr and give the device its page list in @pbl. */
static struct ib_umem *rocx_ib_resize_pin(struct rocx_ib_dev *dev, u64 addr,
					  size_t len, struct rocx_pbl *hw,
					  struct rocx_ib_pbl *pbl)
{
	struct ib_umem *umem;
	u32 offset;
	int err;

	umem = ib_umem_get(&dev->ibdev, addr, len, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem))
		return umem;
	err = rocx_ib_pbl_from_umem(pbl, &dev->pdev->dev, umem,
				    dev->pgsz_bitmap, 0, &offset);
	if (err) {
		rocx_ib_pbl_destroy(pbl);
		ib_umem_release(umem);
		return ERR_PTR(err);
	}
	rocx_ib_pbl_to_hw(pbl, hw);
	return umem;
}

/*
 * After the command: the ring the device no longer uses is released; on
 * an unanswered command neither is (the device may use either).
 */
static int rocx_ib_resize_done(struct rocx_ib_dev *dev, int err,
			       struct ib_umem **cur, struct ib_umem *new)
{
	if (!err) {
		ib_umem_release(*cur);
		*cur = new;
		return 0;
	}
	if (rocx_ib_destroy_outcome(err) == ROCX_IB_DESTROY_UNKNOWN)
		ibdev_err(&dev->ibdev, "resize unanswered (%d); keeping both rings pinned\n",
			  err);
	else
		ib_umem_release(new);
	return rocx_ib_verbs_errno(err);
}

int rocx_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibcq->device);
	struct rocx_ib_cq *cq = to_rocx_ib_cq(ibcq);
	struct rocx_resize_cq_resp resp = {};
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_resize_cq_req req;
	struct rocx_ib_pbl pbl;
	struct ib_umem *umem;
	int err;

	if (!udata)
		return -EOPNOTSUPP;
	err = rocx_ib_udata_in(udata, &req, sizeof(req),
			       ROCX_IB_RESIZE_CQ_REQ_MIN);
	if (err)
		return err;
	err = rocx_ib_resize_cq_check(dev->id, cqe, &req);
	if (err)
		return err;

	mutex_lock(&cq->resize_lock);
	umem = rocx_ib_resize_pin(dev, req.buf_addr,
				  BIT(req.log_depth) *
				  (cq->cqe_format == ROCX_CQE_FORMAT_64 ?
				   sizeof(struct rocx_cqe64) :
				   sizeof(struct rocx_cqe)),
				  &cmd.resize_cq.pbl, &pbl);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto out;
	}
	cmd.resize_cq.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_RESIZE_CQ);
	cmd.resize_cq.cqn = cpu_to_le32(cq->cqn);
	cmd.resize_cq.log_depth = req.log_depth;
	err = rocx_ib_exec(dev, &cmd, NULL);
	rocx_ib_pbl_destroy(&pbl);
	err = rocx_ib_resize_done(dev, err, &cq->umem, umem);
	if (!err) {
		cq->log_depth = req.log_depth;
		ibcq->cqe = BIT(req.log_depth);
	}
out:
	mutex_unlock(&cq->resize_lock);
	if (err)
		return err;
	return rocx_ib_udata_out(udata, &resp, sizeof(resp));
}

/**
 * rocx_ib_resize_srq_check() - check a provider's new SRQ ring
 * @id: identify block
 * @max_wr: entries the application asked for
 * @req: the provider's request
 *
 * Return: 0, -EOPNOTSUPP for request bits this kernel does not know, or
 * -EINVAL for a ring the device cannot take or that cannot hold @max_wr.
 */
VISIBLE_IF_KUNIT int rocx_ib_resize_srq_check(const struct rocx_identify *id,
					      u32 max_wr,
					      const struct rocx_modify_srq_req *req)
{
	u32 dev_max = le32_to_cpu(id->max_srq_wr);

	if (req->comp_mask)
		return -EOPNOTSUPP;
	if (memchr_inv(req->reserved, 0, sizeof(req->reserved)))
		return -EINVAL;
	if (req->log_depth < ROCX_SRQ_MIN_LOG_DEPTH ||
	    req->log_depth > ROCX_SRQ_MAX_LOG_DEPTH ||
	    !max_wr || max_wr > BIT(req->log_depth) ||
	    BIT(req->log_depth) > dev_max)
		return -EINVAL;
	if (!req->buf_addr || !PAGE_ALIGNED(req->buf_addr))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_resize_srq_check);

/* IB_SRQ_MAX_WR of modify_srq; srq->lock held. */
int rocx_ib_resize_srq(struct rocx_ib_dev *dev, struct rocx_ib_srq *srq,
		       u32 max_wr, const struct rocx_modify_srq_req *req)
{
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_ib_pbl pbl;
	struct ib_umem *umem;
	int err;

	lockdep_assert_held(&srq->lock);
	err = rocx_ib_resize_srq_check(dev->id, max_wr, req);
	if (err)
		return err;
	umem = rocx_ib_resize_pin(dev, req->buf_addr,
				  BIT(req->log_depth + srq->wqe_shift),
				  &cmd.modify_srq.pbl, &pbl);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	cmd.modify_srq.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_MODIFY_SRQ);
	cmd.modify_srq.srqn = cpu_to_le32(srq->srqn);
	cmd.modify_srq.valid = cpu_to_le32(ROCX_SRQ_ATTR_RESIZE);
	cmd.modify_srq.log_depth = req->log_depth;
	err = rocx_ib_exec(dev, &cmd, NULL);
	rocx_ib_pbl_destroy(&pbl);
	err = rocx_ib_resize_done(dev, err, &srq->umem, umem);
	if (!err)
		srq->attr.max_wr = BIT(req->log_depth);
	return err;
}
