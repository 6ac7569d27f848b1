// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib completion queues.
 *
 * The ring is user memory: the provider allocates 2^log_depth struct
 * rocx_cqe, the kernel pins it and hands its page list to the device,
 * and from then on the provider polls it and rings the CQ doorbell of its
 * own page without entering the kernel.  The kernel keeps the CQ in
 * dev->cq_xa so that completion events (rocx_ib_eq.c) and CQ errors (EQ 0)
 * can find it by cqn.
 */
#include <kunit/visibility.h>
#include <rdma/ib_umem.h>
#include <rdma/rocx-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rocx_ib.h"

/**
 * rocx_ib_cq_req_comp() - the CQ request bits offered to providers
 * @id: identify block
 *
 * Return: the bits of ROCX_IB_CQ_REQ_COMP the device can honour: other
 * CQE formats only with ROCX_CAP2_CQE64.
 */
u32 rocx_ib_cq_req_comp(const struct rocx_identify *id)
{
	u32 comp = ROCX_IB_CQ_REQ_COMP;

	if (!(le64_to_cpu(id->caps2) & ROCX_CAP2_CQE64))
		comp &= ~ROCX_CREATE_CQ_REQ_CQE_FORMAT;
	return comp;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_cq_req_comp);

/* Bytes of one CQE of a format rocx_ib_cq_check() let through. */
static size_t rocx_ib_cqe_size(u32 cqe_format)
{
	return cqe_format == ROCX_CQE_FORMAT_64 ? sizeof(struct rocx_cqe64) :
						  sizeof(struct rocx_cqe);
}

/**
 * rocx_ib_cq_check() - check a provider's CQ request against the device
 * @id: identify block
 * @cqe: entries the application asked for
 * @req: the provider's request
 *
 * Return: 0, -EOPNOTSUPP for request bits this kernel or device does not
 * have, or -EINVAL for a ring the device cannot or should not take.
 */
VISIBLE_IF_KUNIT int rocx_ib_cq_check(const struct rocx_identify *id,
				      int cqe,
				      const struct rocx_create_cq_req *req)
{
	u32 max_cqe = le32_to_cpu(id->max_cqe);

	if (req->comp_mask & ~rocx_ib_cq_req_comp(id))
		return -EOPNOTSUPP;
	/* A format without its bit, or one the device does not write. */
	if (req->reserved)
		return -EINVAL;
	if (!(req->comp_mask & ROCX_CREATE_CQ_REQ_CQE_FORMAT)) {
		if (req->cqe_format)
			return -EINVAL;
	} else if (req->cqe_format >= 32 ||
		   !(le32_to_cpu(id->cqe_formats) & BIT(req->cqe_format)) ||
		   req->cqe_format > ROCX_CQE_FORMAT_64) {
		return -EINVAL;
	}
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
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_cq_check);

static int rocx_ib_destroy_cq_cmd(struct rocx_ib_dev *dev, u32 cqn)
{
	union rocx_aq_verbs_cmd cmd = {};

	cmd.destroy_cq.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_DESTROY_CQ);
	cmd.destroy_cq.cqn = cpu_to_le32(cqn);
	return rocx_ib_exec(dev, &cmd, NULL);
}

static const struct rocx_ib_obj_kind rocx_ib_cq_kind = {
	.name = "CQ",
	.num = "cqn",
	.mem = "ring",
	.destroy = rocx_ib_destroy_cq_cmd,
};

int rocx_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = &attrs->driver_udata;
	struct rocx_ib_ucontext *uc = rdma_udata_to_drv_context(udata,
		struct rocx_ib_ucontext, ibuc);
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibcq->device);
	struct rocx_ib_cq *cq = to_rocx_ib_cq(ibcq);
	struct rocx_create_cq_resp resp = {};
	struct rocx_create_cq_req req;
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_ib_pbl pbl;
	struct rocx_aq_cqe cqe;
	bool gone = false;
	u32 offset;
	int err;

	if (!dev->ceq.created)
		return -EOPNOTSUPP;
	INIT_LIST_HEAD(&cq->sw_send);
	INIT_LIST_HEAD(&cq->sw_recv);
	INIT_LIST_HEAD(&cq->dying);
	if (!uc) {
		err = rocx_ib_kcq_create(dev, cq, attr);
		if (err)
			return err;
		/* resize_cq refuses a kernel CQ, but destroy takes it down. */
		mutex_init(&cq->resize_lock);
		goto insert;
	}
	/* Completion timestamps are the 64-byte format's. */
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	err = rocx_ib_udata_in(udata, &req, sizeof(req), ROCX_IB_CQ_REQ_MIN);
	if (err)
		return err;
	err = rocx_ib_cq_check(dev->id, attr->cqe, &req);
	if (err) {
		ibdev_dbg(&dev->ibdev, "bad CQ request: cqe %d, log depth %u\n",
			  attr->cqe, req.log_depth);
		return err;
	}
	if ((attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) &&
	    req.cqe_format != ROCX_CQE_FORMAT_64)
		return -EOPNOTSUPP;

	cq->log_depth = req.log_depth;
	cq->cqe_format = req.cqe_format;
	cq->umem = ib_umem_get(ibcq->device, req.buf_addr,
			       BIT(req.log_depth) *
			       rocx_ib_cqe_size(req.cqe_format),
			       IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(cq->umem))
		return PTR_ERR(cq->umem);

	err = rocx_ib_pbl_from_umem(&pbl, &dev->pdev->dev, cq->umem,
				    dev->pgsz_bitmap, 0, &offset);
	if (!err) {
		cmd.create_cq.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_CREATE_CQ);
		cmd.create_cq.uctx = cpu_to_le32(uc->uctx);
		cmd.create_cq.log_depth = req.log_depth;
		cmd.create_cq.eqn = dev->ceq.eqn;
		cmd.create_cq.cqe_format = cpu_to_le16(req.cqe_format);
		rocx_ib_pbl_to_hw(&pbl, &cmd.create_cq.pbl);
		err = rocx_ib_exec(dev, &cmd, &cqe);
	}
	/* The device has its own copy of the page list now. */
	rocx_ib_pbl_destroy(&pbl);
	if (err) {
		err = rocx_ib_verbs_errno(err);
		goto err_release;
	}
	cq->cqn = le32_to_cpu(cqe.result);
	ibcq->cqe = BIT(req.log_depth);
	mutex_init(&cq->resize_lock);

insert:
	resp.cqn = cq->cqn;
	err = rocx_ib_obj_publish(dev, &rocx_ib_cq_kind, &dev->cq_xa, cq->cqn,
				  cq, uc ? udata : NULL, &resp, sizeof(resp),
				  &gone);
	if (!err)
		return 0;
	mutex_destroy(&cq->resize_lock);
	if (!gone)
		return err;	/* the device may still write: keep it pinned */
err_release:
	ib_umem_release(cq->umem);
	rocx_ib_kcq_free(dev, cq);
	return err;
}

int rocx_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibcq->device);
	struct rocx_ib_cq *cq = to_rocx_ib_cq(ibcq);
	int err;

	/*
	 * The completion handler holds the table's lock across its call:
	 * once the CQ is out of the table, the handler has either returned
	 * or will not find it.
	 */
	switch (rocx_ib_obj_destroy(dev, &rocx_ib_cq_kind, &dev->cq_xa,
				    cq->cqn, cq, &err)) {
	case ROCX_IB_DESTROYED:
		mutex_destroy(&cq->resize_lock);
		ib_umem_release(cq->umem);
		rocx_ib_kcq_free(dev, cq);
		return 0;
	case ROCX_IB_DESTROY_REFUSED:
		return err;
	case ROCX_IB_DESTROY_UNKNOWN:
		break;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_destroy_cq);

/**
 * rocx_ib_cq_comp() - call a CQ's completion handler
 * @dev: device
 * @cqn: from a COMPLETION event
 *
 * Called by the completion EQ's hard interrupt handler.
 */
void rocx_ib_cq_comp(struct rocx_ib_dev *dev, u32 cqn)
{
	struct rocx_ib_cq *cq;

	/* Held across the call so that destroy_cq waits for it. */
	xa_lock(&dev->cq_xa);
	cq = xa_load(&dev->cq_xa, cqn);
	/* The device disarmed it: a lost event would not be this CQ's. */
	if (cq && cq->kbuf.va)
		rocx_ib_kcq_event(cq, false);
	if (cq && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	xa_unlock(&dev->cq_xa);
	if (!cq)
		ibdev_dbg(&dev->ibdev, "completion event for no CQ %u\n", cqn);
}

/**
 * rocx_ib_cq_event() - report an overflowed CQ (EQ 0 CQ_ERROR)
 * @dev: device
 * @cqn: the CQ
 *
 * The device has stopped the CQ and moved its QPs to the error state.
 */
void rocx_ib_cq_event(struct rocx_ib_dev *dev, u32 cqn)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = IB_EVENT_CQ_ERR,
	};
	struct rocx_ib_cq *cq;

	xa_lock_irq(&dev->cq_xa);
	cq = xa_load(&dev->cq_xa, cqn);
	if (cq && cq->ibcq.event_handler) {
		ev.element.cq = &cq->ibcq;
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	xa_unlock_irq(&dev->cq_xa);
	/* An application's mistake, and it hears of it: no log noise. */
	ibdev_dbg(&dev->ibdev, "CQ %u overflowed%s\n", cqn,
		  cq ? "" : " (no such CQ)");
}
