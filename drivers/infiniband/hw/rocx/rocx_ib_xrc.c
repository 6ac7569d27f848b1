// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib XRC domains, XRC SRQs and XRC target QPs (contract 1.2,
 * ROCX_CAP2_XRC).
 *
 * An XRC domain is a number in the device.  ib_core lets several
 * processes share one (ibv_open_xrcd on the same file), so it is the
 * kernel's in the device (uctx 0), whichever context opened it first.
 * XRC SRQs are user SRQs that name a domain and a CQ; XRC_INI QPs are
 * user QPs with a send queue only (rocx_ib_qp.c).  XRC_TGT QPs are the
 * kernel's: ib_core creates them without udata for whoever opens them
 * (ib_create_qp_user()), and the device gives them no queues, so there is
 * nothing to pin or map.
 */
#include <kunit/visibility.h>
#include <rdma/uverbs_ioctl.h>

#include "rocx_ib.h"

static bool rocx_ib_has_xrc(struct rocx_ib_dev *dev)
{
	return le64_to_cpu(dev->id->caps2) & ROCX_CAP2_XRC;
}

static int rocx_ib_xrcd_cmd(struct rocx_ib_dev *dev, u16 op, u32 xrcdn,
			    struct rocx_aq_cqe *cqe)
{
	union rocx_aq_verbs_cmd cmd = {};

	cmd.xrcd.hdr.opcode = cpu_to_le16(op);
	cmd.xrcd.xrcdn = cpu_to_le32(xrcdn);
	return rocx_ib_exec(dev, &cmd, cqe);
}

int rocx_ib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibxrcd->device);
	struct rocx_ib_xrcd *xrcd = to_rocx_ib_xrcd(ibxrcd);
	struct rocx_aq_cqe cqe;
	int err;

	if (!rocx_ib_has_xrc(dev))
		return -EOPNOTSUPP;
	/* No driver-specific request is defined: accept only zeros. */
	if (udata) {
		err = rocx_ib_udata_in(udata, NULL, 0, 0);
		if (err)
			return err;
	}
	err = rocx_ib_xrcd_cmd(dev, ROCX_AQ_OP_ALLOC_XRCD, 0, &cqe);
	if (err)
		return rocx_ib_verbs_errno(err);
	xrcd->xrcdn = le32_to_cpu(cqe.result);
	return 0;
}

int rocx_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibxrcd->device);
	struct rocx_ib_xrcd *xrcd = to_rocx_ib_xrcd(ibxrcd);
	int err;

	/*
	 * ib_core frees it only when no SRQ or QP uses it.  A domain is a
	 * number without memory, and ib_core never retries a dealloc that
	 * failed on device removal: only a refusal, which leaves the
	 * domain with the device, keeps it in ib_core too.
	 */
	err = rocx_ib_xrcd_cmd(dev, ROCX_AQ_OP_DEALLOC_XRCD, xrcd->xrcdn, NULL);
	switch (rocx_ib_destroy_outcome(err)) {
	case ROCX_IB_DESTROYED:
		return 0;
	case ROCX_IB_DESTROY_UNKNOWN:
		ibdev_err(&dev->ibdev, "DEALLOC_XRCD %u unanswered (%d)\n",
			  xrcd->xrcdn, err);
		return 0;
	case ROCX_IB_DESTROY_REFUSED:
	default:
		ibdev_err(&dev->ibdev, "DEALLOC_XRCD %u failed: %d\n",
			  xrcd->xrcdn, err);
		return rocx_ib_verbs_errno(err);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_dealloc_xrcd);

/**
 * rocx_ib_xrc_srq_fill() - the XRC part of a CREATE_SRQ command
 * @dev: device
 * @init: the SRQ asked for
 * @cs: command to complete (type, xrcdn, cqn)
 *
 * Return: 0, or -EOPNOTSUPP for an SRQ type the device does not have.
 */
int rocx_ib_xrc_srq_fill(struct rocx_ib_dev *dev,
			 const struct ib_srq_init_attr *init,
			 struct rocx_aq_create_srq *cs)
{
	switch (init->srq_type) {
	case IB_SRQT_BASIC:
		cs->type = ROCX_SRQT_BASIC;
		return 0;
	case IB_SRQT_XRC:
		if (!rocx_ib_has_xrc(dev) || !init->ext.xrc.xrcd ||
		    !init->ext.cq)
			return -EOPNOTSUPP;
		cs->type = ROCX_SRQT_XRC;
		cs->xrcdn = cpu_to_le32(to_rocx_ib_xrcd(init->ext.xrc.xrcd)->xrcdn);
		cs->cqn = cpu_to_le32(to_rocx_ib_cq(init->ext.cq)->cqn);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

int rocx_ib_xrc_create_tgt(struct rocx_ib_dev *dev, struct rocx_ib_qp *qp,
			   struct ib_qp_init_attr *init)
{
	struct ib_qp *ibqp = &qp->ibqp;
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_aq_cqe cqe;
	int err;

	if (!rocx_ib_has_xrc(dev) || !init->xrcd || init->create_flags)
		return -EOPNOTSUPP;
	cmd.create_qp.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_CREATE_QP);
	cmd.create_qp.type = ROCX_QPT_XRC_TGT;
	cmd.create_qp.srqn = cpu_to_le32(ROCX_NO_SRQ);
	cmd.create_qp.xrcdn = cpu_to_le32(to_rocx_ib_xrcd(init->xrcd)->xrcdn);
	err = rocx_ib_exec(dev, &cmd, &cqe);
	if (err)
		return rocx_ib_verbs_errno(err);

	ibqp->qp_num = le32_to_cpu(cqe.result);
	mutex_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	/* No queues: every capability is 0. */
	memset(&qp->cap, 0, sizeof(qp->cap));
	init->cap = qp->cap;

	err = xa_insert_irq(&dev->qp_xa, ibqp->qp_num, qp, GFP_KERNEL);
	if (err) {
		ibdev_err(&dev->ibdev, "device gave qpn %u twice\n",
			  ibqp->qp_num);
		mutex_destroy(&qp->lock);
		memset(&cmd, 0, sizeof(cmd));
		cmd.destroy_qp.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_DESTROY_QP);
		cmd.destroy_qp.qpn = cpu_to_le32(ibqp->qp_num);
		/* Nothing of the host's is in a target QP: no leak either way. */
		rocx_ib_exec(dev, &cmd, NULL);
		return err == -EBUSY ? -EIO : err;
	}
	return 0;
}
