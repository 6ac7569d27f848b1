// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib shared receive queues (contract 1.2, ROCX_CAP2_SRQ); kernel
 * SRQs' rings and data path are rocx_ib_ksrq.c's.
 *
 * As for a QP's queues, the provider allocates the ring (rocx_create_srq_req),
 * the kernel checks its geometry against the device, pins it and hands its
 * page list to the device; posting receives and ringing the SRQ doorbell
 * are the provider's.  The kernel arms the limit (MODIFY_SRQ), reads it
 * back (QUERY_SRQ) and passes the SRQ's events on: SRQ_LIMIT and
 * SRQ_ERROR to the SRQ, QP_LAST_WQE to the QP that reached it.
 */
#include <kunit/visibility.h>
#include <rdma/ib_umem.h>
#include <rdma/rocx-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rocx_ib.h"

/*
 * The CREATE_SRQ fields user and kernel SRQs fill alike (uctx 0: the
 * kernel's doorbell page); the type is the caller's.  The limit is armed
 * by modify_srq alone, as the IBA says.
 */
void rocx_ib_srq_create_cmd(struct rocx_aq_create_srq *cs, u32 uctx, u32 pdn,
			    const struct rocx_create_srq_req *req,
			    const struct rocx_ib_pbl *pbl)
{
	cs->hdr.opcode = cpu_to_le16(ROCX_AQ_OP_CREATE_SRQ);
	cs->uctx = cpu_to_le32(uctx);
	cs->pdn = cpu_to_le32(pdn);
	cs->log_depth = req->log_depth;
	cs->wqe_shift = req->wqe_shift;
	rocx_ib_pbl_to_hw(pbl, &cs->pbl);
}

/**
 * rocx_ib_srq_check() - check a provider's SRQ ring against the device
 * @id: identify block
 * @attr: the application's max_wr and max_sge
 * @req: the ring the provider chose for them
 *
 * Return: 0, -EOPNOTSUPP for request bits this kernel does not know, or
 * -EINVAL when the request exceeds the device or the ring cannot hold
 * what @attr asks.
 */
int rocx_ib_srq_check(const struct rocx_identify *id,
		      const struct ib_srq_attr *attr,
		      const struct rocx_create_srq_req *req)
{
	u32 max_wr = le32_to_cpu(id->max_srq_wr);
	u32 max_sge = le32_to_cpu(id->max_srq_sge);

	if (req->comp_mask & ~ROCX_IB_SRQ_REQ_COMP)
		return -EOPNOTSUPP;
	if (req->reserved)
		return -EINVAL;
	if (!req->buf_addr || !PAGE_ALIGNED(req->buf_addr))
		return -EINVAL;
	if (!attr->max_wr || attr->max_wr > max_wr || attr->max_sge > max_sge)
		return -EINVAL;
	if (req->log_depth < ROCX_SRQ_MIN_LOG_DEPTH ||
	    req->log_depth > ROCX_SRQ_MAX_LOG_DEPTH ||
	    BIT(req->log_depth) < attr->max_wr ||
	    BIT(req->log_depth) > max_wr)
		return -EINVAL;
	if (req->wqe_shift < ROCX_IB_RQ_MIN_WQE_SHIFT ||
	    req->wqe_shift > ROCX_IB_RQ_MAX_WQE_SHIFT ||
	    BIT(req->wqe_shift) < ROCX_RECV_WQE_HDR +
	    attr->max_sge * sizeof(struct rocx_sge))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_srq_check);

/**
 * rocx_ib_srq_caps() - what a checked ring really holds
 * @id: identify block
 * @req: a ring that passed rocx_ib_srq_check()
 * @attr: max_wr and max_sge set to it, reported back to the application
 */
void rocx_ib_srq_caps(const struct rocx_identify *id,
		      const struct rocx_create_srq_req *req,
		      struct ib_srq_attr *attr)
{
	attr->max_wr = BIT(req->log_depth);
	attr->max_sge = min_t(u32, (BIT(req->wqe_shift) - ROCX_RECV_WQE_HDR) /
				   sizeof(struct rocx_sge),
			      le32_to_cpu(id->max_srq_sge));
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_srq_caps);

static int rocx_ib_srq_cmd(struct rocx_ib_dev *dev, u16 op, u32 srqn,
			   struct rocx_aq_cqe *cqe)
{
	union rocx_aq_verbs_cmd cmd = {};

	cmd.srq.hdr.opcode = cpu_to_le16(op);
	cmd.srq.srqn = cpu_to_le32(srqn);
	return rocx_ib_exec(dev, &cmd, cqe);
}

static int rocx_ib_destroy_srq_cmd(struct rocx_ib_dev *dev, u32 srqn)
{
	return rocx_ib_srq_cmd(dev, ROCX_AQ_OP_DESTROY_SRQ, srqn, NULL);
}

static const struct rocx_ib_obj_kind rocx_ib_srq_kind = {
	.name = "SRQ",
	.num = "srqn",
	.mem = "ring",
	.destroy = rocx_ib_destroy_srq_cmd,
};

int rocx_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata)
{
	struct rocx_ib_ucontext *uc = rdma_udata_to_drv_context(udata,
		struct rocx_ib_ucontext, ibuc);
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibsrq->device);
	struct rocx_ib_pd *pd = to_rocx_ib_pd(ibsrq->pd);
	struct rocx_ib_srq *srq = to_rocx_ib_srq(ibsrq);
	struct rocx_create_srq_resp resp = {};
	struct rocx_create_srq_req req;
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_ib_pbl pbl;
	struct rocx_aq_cqe cqe;
	bool gone = false;
	u32 offset;
	int err;

	if (!uc) {
		err = rocx_ib_ksrq_create(dev, srq, init);
		if (err)
			return err;
		goto insert;
	}
	err = rocx_ib_xrc_srq_fill(dev, init, &cmd.create_srq);
	if (err)
		return err;
	err = rocx_ib_udata_in(udata, &req, sizeof(req), ROCX_IB_SRQ_REQ_MIN);
	if (err)
		return err;
	err = rocx_ib_srq_check(dev->id, &init->attr, &req);
	if (err) {
		ibdev_dbg(&dev->ibdev,
			  "bad SRQ request: wr %u sge %u, log depth %u, wqe shift %u\n",
			  init->attr.max_wr, init->attr.max_sge, req.log_depth,
			  req.wqe_shift);
		return err;
	}

	srq->umem = ib_umem_get(ibsrq->device, req.buf_addr,
				BIT(req.log_depth + req.wqe_shift),
				IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(srq->umem))
		return PTR_ERR(srq->umem);

	err = rocx_ib_pbl_from_umem(&pbl, &dev->pdev->dev, srq->umem,
				    dev->pgsz_bitmap, 0, &offset);
	if (!err) {
		rocx_ib_srq_create_cmd(&cmd.create_srq, uc->uctx, pd->pdn,
				       &req, &pbl);
		err = rocx_ib_exec(dev, &cmd, &cqe);
	}
	rocx_ib_pbl_destroy(&pbl);
	if (err) {
		err = rocx_ib_verbs_errno(err);
		goto err_release;
	}
	srq->srqn = le32_to_cpu(cqe.result);
	/* uverbs reports an XRC SRQ's number (ibv_get_srq_num()) from here. */
	if (init->srq_type == IB_SRQT_XRC)
		ibsrq->ext.xrc.srq_num = srq->srqn;
	srq->wqe_shift = req.wqe_shift;
	rocx_ib_srq_caps(dev->id, &req, &srq->attr);
	init->attr.max_wr = srq->attr.max_wr;
	init->attr.max_sge = srq->attr.max_sge;

insert:
	mutex_init(&srq->lock);
	resp.srqn = srq->srqn;
	err = rocx_ib_obj_publish(dev, &rocx_ib_srq_kind, &dev->srq_xa,
				  srq->srqn, srq, uc ? udata : NULL, &resp,
				  sizeof(resp), &gone);
	if (!err)
		return 0;
	mutex_destroy(&srq->lock);
	if (!gone)
		return err;	/* the device may still read: keep it pinned */
err_release:
	ib_umem_release(srq->umem);
	rocx_ib_ksrq_free(dev, srq);
	return err;
}

int rocx_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibsrq->device);
	struct rocx_ib_srq *srq = to_rocx_ib_srq(ibsrq);
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_modify_srq_req req;
	bool resize;
	int err;

	if (mask & ~(IB_SRQ_LIMIT | IB_SRQ_MAX_WR))
		return -EOPNOTSUPP;
	mutex_lock(&srq->lock);
	/*
	 * A max_wr the SRQ already holds needs nothing; a larger one a new
	 * ring (ROCX_CAP2_SRQ_RESIZE), which the request names.
	 */
	resize = (mask & IB_SRQ_MAX_WR) && attr->max_wr > srq->attr.max_wr;
	if (resize && !(le64_to_cpu(dev->id->caps2) & ROCX_CAP2_SRQ_RESIZE)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	if (udata)
		err = resize ? rocx_ib_udata_in(udata, &req, sizeof(req),
						ROCX_IB_MODIFY_SRQ_REQ_MIN) :
			       rocx_ib_udata_in(udata, NULL, 0, 0);
	else
		err = resize ? -EOPNOTSUPP : 0;
	if (err)
		goto out;
	if (resize) {
		err = rocx_ib_resize_srq(dev, srq, attr->max_wr, &req);
		if (err)
			goto out;
	}
	if (!(mask & IB_SRQ_LIMIT))
		goto out;
	if (attr->srq_limit > srq->attr.max_wr) {
		err = -EINVAL;
		goto out;
	}
	cmd.modify_srq.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_MODIFY_SRQ);
	cmd.modify_srq.srqn = cpu_to_le32(srq->srqn);
	cmd.modify_srq.valid = cpu_to_le32(ROCX_SRQ_ATTR_LIMIT);
	cmd.modify_srq.limit = cpu_to_le32(attr->srq_limit);
	err = rocx_ib_verbs_errno(rocx_ib_exec(dev, &cmd, NULL));
out:
	mutex_unlock(&srq->lock);
	return err;
}

int rocx_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibsrq->device);
	struct rocx_ib_srq *srq = to_rocx_ib_srq(ibsrq);
	struct rocx_aq_cqe cqe;
	int err;

	mutex_lock(&srq->lock);
	err = rocx_ib_srq_cmd(dev, ROCX_AQ_OP_QUERY_SRQ, srq->srqn, &cqe);
	mutex_unlock(&srq->lock);
	if (err)
		return rocx_ib_verbs_errno(err);
	attr->max_wr = srq->attr.max_wr;
	attr->max_sge = srq->attr.max_sge;
	/* 0 once the limit event has fired: the SRQ is disarmed. */
	attr->srq_limit = le32_to_cpu(cqe.result);
	return 0;
}

int rocx_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibsrq->device);
	struct rocx_ib_srq *srq = to_rocx_ib_srq(ibsrq);
	int err;

	switch (rocx_ib_obj_destroy(dev, &rocx_ib_srq_kind, &dev->srq_xa,
				    srq->srqn, srq, &err)) {
	case ROCX_IB_DESTROYED:
		mutex_destroy(&srq->lock);
		ib_umem_release(srq->umem);
		rocx_ib_ksrq_free(dev, srq);
		return 0;
	case ROCX_IB_DESTROY_REFUSED:
		/* ib_core holds a QP's SRQ until the QP is gone: not expected. */
		return err;
	case ROCX_IB_DESTROY_UNKNOWN:
		break;
	}
	mutex_destroy(&srq->lock);
	return 0;
}

/**
 * rocx_ib_srq_event() - report an SRQ event (EQ 0 SRQ_LIMIT, SRQ_ERROR)
 * @dev: device
 * @srqn: the SRQ
 * @type: ROCX_EQE_SRQ_LIMIT or ROCX_EQE_SRQ_ERROR
 */
void rocx_ib_srq_event(struct rocx_ib_dev *dev, u32 srqn, u16 type)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = type == ROCX_EQE_SRQ_LIMIT ?
			 IB_EVENT_SRQ_LIMIT_REACHED : IB_EVENT_SRQ_ERR,
	};
	struct rocx_ib_srq *srq;
	unsigned long flags;

	/* Held across the call so that destroy_srq waits for it. */
	xa_lock_irqsave(&dev->srq_xa, flags);
	srq = xa_load(&dev->srq_xa, srqn);
	if (srq && srq->ibsrq.event_handler) {
		ev.element.srq = &srq->ibsrq;
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	xa_unlock_irqrestore(&dev->srq_xa, flags);
	ibdev_dbg(&dev->ibdev, "SRQ %u: %s%s\n", srqn,
		  type == ROCX_EQE_SRQ_LIMIT ? "limit reached" : "error",
		  srq ? "" : " (no such SRQ)");
}

/**
 * rocx_ib_qp_last_wqe() - report QP_LAST_WQE of an SRQ-attached QP
 * @dev: device
 * @qpn: the QP, in the error state, which takes no more SRQ entries
 */
void rocx_ib_qp_last_wqe(struct rocx_ib_dev *dev, u32 qpn)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = IB_EVENT_QP_LAST_WQE_REACHED,
	};
	struct rocx_ib_qp *qp;
	unsigned long flags;

	/* As rocx_ib_qp_event(). */
	xa_lock_irqsave(&dev->qp_xa, flags);
	qp = xa_load(&dev->qp_xa, qpn);
	if (qp && qp->ibqp.event_handler) {
		ev.element.qp = &qp->ibqp;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	xa_unlock_irqrestore(&dev->qp_xa, flags);
}
