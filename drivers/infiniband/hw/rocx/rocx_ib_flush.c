// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib software flush: kernel QPs on a device that is gone.
 *
 * A fatal reset (rocx_reset.c) stops and resets the device before rocx_ib
 * is removed: the device has forgotten every queue, writes no more
 * completions, and each command fails with -ENODEV.  Kernel consumers
 * still take their QPs down as on any removal: they move them to ERR,
 * drain them (ib_drain_qp()) and wait for the work they posted, which
 * would never complete.  So a kernel QP's move to ERR succeeds in the
 * driver when the device is gone, and from then on poll_cq completes
 * every kernel QP's outstanding WQEs with WR_FLUSH_ERR, as the device
 * would have on its way down; a QP on an SRQ gets the QP_LAST_WQE event
 * the device would have posted.  Outstanding entries of an SRQ are not flushed, as on the
 * device.
 */
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/* Have @ibcq polled: flush completions are there to take. */
static void rocx_ib_cq_sw_kick(struct ib_cq *ibcq)
{
	/* A direct CQ is polled by its consumer alone; a call would warn. */
	if (ibcq && ibcq->comp_handler && ibcq->poll_ctx != IB_POLL_DIRECT)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

/**
 * rocx_ib_qp_sw_kick() - have a kernel QP's CQs polled
 * @qp: a QP in ERR by the driver's hand (@qp->sw_err)
 *
 * A QP holds its CQs: neither can be destroyed under this call.
 */
void rocx_ib_qp_sw_kick(struct rocx_ib_qp *qp)
{
	rocx_ib_cq_sw_kick(qp->ibqp.send_cq);
	if (qp->ibqp.recv_cq != qp->ibqp.send_cq)
		rocx_ib_cq_sw_kick(qp->ibqp.recv_cq);
}

/*
 * Put a kernel QP on its CQs' flush lists, once, and have them polled.
 * dev->qp_xa locked: destroy_qp takes the QP out of the table before it
 * cleans it off the lists (rocx_ib_qp_sw_forget()), so that waits for
 * this, and the QP holds its CQs.
 */
static void rocx_ib_qp_sw_start(struct rocx_ib_qp *qp)
{
	struct rocx_ib_cq *scq, *rcq;

	if (!qp->kbuf.va || qp->sw_err)
		return;
	scq = to_rocx_ib_cq(qp->ibqp.send_cq);
	rcq = to_rocx_ib_cq(qp->ibqp.recv_cq);
	spin_lock(&scq->lock);
	list_add_tail(&qp->sw_send, &scq->sw_send);
	spin_unlock(&scq->lock);
	spin_lock(&rcq->lock);
	list_add_tail(&qp->sw_recv, &rcq->sw_recv);
	spin_unlock(&rcq->lock);
	WRITE_ONCE(qp->sw_err, true);
	rocx_ib_qp_sw_kick(qp);
}

/**
 * rocx_ib_qp_sw_err() - move a kernel QP to ERR without the device
 * @dev: device, gone (its MODIFY_QP failed with -ENODEV)
 * @qp: the QP, @qp->lock held
 *
 * Every kernel QP's outstanding work is flushed from here on, not only
 * this one's: a QP nobody moves to ERR, as ib_mad's GSI QP whose
 * sends ib_cm waits for while it takes its connections down, would
 * otherwise keep its work for ever.
 */
void rocx_ib_qp_sw_err(struct rocx_ib_dev *dev, struct rocx_ib_qp *qp)
{
	struct rocx_ib_qp *any;
	unsigned long flags, qpn;

	lockdep_assert_held(&qp->lock);
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	xa_lock_irqsave(&dev->qp_xa, flags);
	xa_for_each(&dev->qp_xa, qpn, any)
		rocx_ib_qp_sw_start(any);
	xa_unlock_irqrestore(&dev->qp_xa, flags);
	/* The device posts it once, when the QP reaches ERR. */
	if (!qp->sw_last_wqe && qp->ibqp.srq &&
	    qp->ibqp.qp_type != IB_QPT_XRC_TGT) {
		qp->sw_last_wqe = true;
		rocx_ib_qp_last_wqe(dev, qp->ibqp.qp_num);
	}
}

/**
 * rocx_ib_qp_sw_forget() - take a kernel QP off its CQs' flush lists
 * @qp: the QP, out of dev->qp_xa; both its CQs locked
 */
void rocx_ib_qp_sw_forget(struct rocx_ib_qp *qp)
{
	if (!qp->sw_err)
		return;
	list_del_init(&qp->sw_send);
	list_del_init(&qp->sw_recv);
}

/* Flush completions of @wq's outstanding WQEs, oldest first.  CQ locked. */
static int rocx_ib_kwq_sw_flush(struct rocx_ib_qp *qp, struct rocx_ib_kwq *wq,
				enum ib_wc_opcode opcode, int num_entries,
				struct ib_wc *wc)
{
	int n = 0;
	u16 ci;

	if (!wq->depth)
		return 0;
	/* Post writes wr_id and pi under it. */
	spin_lock(&wq->lock);
	for (ci = wq->ci; n < num_entries && ci != wq->pi; ci++, n++) {
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = wq->wrid[ci & (wq->depth - 1)];
		wc[n].status = IB_WC_WR_FLUSH_ERR;
		wc[n].opcode = opcode;
		wc[n].qp = &qp->ibqp;
		wc[n].port_num = ROCX_IB_PORT;
	}
	/* As poll_cq's: the slots are free once their wr_ids are read. */
	smp_store_release(&wq->ci, ci);
	spin_unlock(&wq->lock);
	return n;
}

/**
 * rocx_ib_kcq_sw_flush() - flush completions of the QPs the driver moved
 *	to ERR, for a kernel CQ
 * @cq: the CQ, locked; its own entries have been polled
 * @num_entries: room in @wc
 * @wc: completions to fill
 *
 * A QP leaves the lists under the CQ's lock before it is freed
 * (rocx_ib_qp_sw_forget()).
 *
 * Return: completions filled.
 */
int rocx_ib_kcq_sw_flush(struct rocx_ib_cq *cq, int num_entries,
			 struct ib_wc *wc)
{
	struct rocx_ib_qp *qp;
	int n = 0;

	list_for_each_entry(qp, &cq->sw_send, sw_send) {
		if (n >= num_entries)
			return n;
		n += rocx_ib_kwq_sw_flush(qp, &qp->sq, IB_WC_SEND,
					  num_entries - n, wc + n);
	}
	list_for_each_entry(qp, &cq->sw_recv, sw_recv) {
		if (n >= num_entries)
			return n;
		n += rocx_ib_kwq_sw_flush(qp, &qp->rq, IB_WC_RECV,
					  num_entries - n, wc + n);
	}
	return n;
}
