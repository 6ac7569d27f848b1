// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib kernel verbs: CQs and QPs for kernel consumers (ib_mad, ib_cm,
 * rdma_cm, NVMe over RDMA, ...), and their data path.
 *
 * A kernel object's ring is 4 KiB pages of coherent memory, not
 * contiguous (struct rocx_ib_kbuf), described to the device by their page
 * list, and rung through the kernel's
 * doorbell page (page 0, rocx_kernel_db()).  The data path
 * (post_send, post_recv, poll_cq, req_notify_cq) may be called in any
 * context, hard interrupts included: it takes only the per-queue
 * spinlocks, irqsave, and never sleeps or allocates.
 *
 * Lock order: a CQ's lock, then (the other CQ's, by cqn,) then a work
 * queue's or an SRQ's (rocx_ib_ksrq.c).  poll_cq takes the CQ's lock
 * (and, for an SRQ's receive, the SRQ's inside it); it finds a
 * completion's QP in dev->qp_xa, and a QP leaves that table and has its
 * entries cleaned out of its CQs under their locks before its memory
 * goes, so a QP that poll_cq finds is alive for as long as it holds the
 * lock.
 *
 * The device completes every WQE of a QP in ERR with WR_FLUSH_ERR, posted
 * before or after the transition, which is what ib_drain_qp() waits for.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

static void rocx_ib_kbuf_release(struct rocx_ib_dev *dev,
				 struct rocx_ib_kbuf *kb)
{
	u32 i;

	for (i = 0; kb->pages && i < kb->npages; i++)
		if (kb->pages[i])
			dma_free_coherent(&dev->pdev->dev, ROCX_IB_KPAGE_SIZE,
					  kb->pages[i], kb->dma[i]);
	kvfree(kb->pages);
	kvfree(kb->dma);
	kb->pages = NULL;
	kb->dma = NULL;
	kb->npages = 0;
	kb->va = NULL;
}

/**
 * rocx_ib_kbuf_alloc() - a zeroed kernel ring and its page list
 * @dev: device
 * @kb: set to the ring
 * @size: bytes it must hold
 * @pbl: set to its page list, for the create command
 *
 * One coherent allocation per 4 KiB page: a ring of any size the device
 * takes is made of order-0 pages, as mlx5 makes its fragmented buffers.
 *
 * Return: 0, or -ENOMEM with nothing left allocated.
 */
int rocx_ib_kbuf_alloc(struct rocx_ib_dev *dev, struct rocx_ib_kbuf *kb,
		       size_t size, struct rocx_ib_pbl *pbl)
{
	u32 i, npages = DIV_ROUND_UP(size, ROCX_IB_KPAGE_SIZE);
	int err = -ENOMEM;

	kb->npages = npages;
	kb->size = (size_t)npages << ROCX_IB_KPAGE_SHIFT;
	kb->pages = kvcalloc(npages, sizeof(*kb->pages), GFP_KERNEL);
	kb->dma = kvcalloc(npages, sizeof(*kb->dma), GFP_KERNEL);
	if (!kb->pages || !kb->dma)
		goto err;
	for (i = 0; i < npages; i++) {
		kb->pages[i] = dma_alloc_coherent(&dev->pdev->dev,
						  ROCX_IB_KPAGE_SIZE,
						  &kb->dma[i], GFP_KERNEL);
		if (!kb->pages[i])
			goto err;
	}
	err = rocx_ib_pbl_init(pbl, &dev->pdev->dev, npages,
			       ROCX_IB_KPAGE_SHIFT);
	if (err) {
		rocx_ib_pbl_destroy(pbl);
		goto err;
	}
	for (i = 0; i < npages; i++)
		rocx_ib_pbl_set(pbl, i, kb->dma[i]);
	kb->va = kb->pages[0];
	return 0;

err:
	rocx_ib_kbuf_release(dev, kb);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_kbuf_alloc);

void rocx_ib_kbuf_free(struct rocx_ib_dev *dev, struct rocx_ib_kbuf *kb)
{
	rocx_ib_kbuf_release(dev, kb);
}

/* ---- Completion queues ---- */

/* The entry at @ci if the device has written it, else NULL; CQ locked. */
static struct rocx_cqe *rocx_ib_kcq_ready(struct rocx_ib_cq *cq, u32 ci)
{
	struct rocx_cqe *cqe = rocx_ib_kbuf_at(&cq->kbuf,
					       (ci & (BIT(cq->log_depth) - 1)) *
					       sizeof(struct rocx_cqe));

	if ((READ_ONCE(cqe->flags) & ROCX_CQE_PHASE) !=
	    rocx_ring_phase(ci, cq->log_depth))
		return NULL;
	/* The phase bit is written last: read the rest after seeing it. */
	dma_rmb();
	return cqe;
}

/* Hand the polled entries back, arming if @arm says so; CQ locked. */
static void rocx_ib_kcq_db(struct rocx_ib_dev *dev, struct rocx_ib_cq *cq,
			   u64 arm)
{
	/* The entries' reads are done before the device may reuse them. */
	mb();
	rocx_kernel_db(dev->core, ROCX_DB_CQ,
		       rocx_db_encode(cq->cqn, cq->ci, arm));
	cq->db_ci = cq->ci;
}

/**
 * rocx_ib_kcq_create() - the ring and device CQ of a kernel CQ
 * @dev: device
 * @cq: the CQ; ibcq.cqe is set on success
 * @attr: ib_core's attributes
 *
 * Each doorbell is an exit to the device, so, as the provider does, the
 * ring is twice the size asked for where the device allows it and polled
 * entries are handed back in batches: the device sees at most the
 * entries outstanding plus one batch in use, never a full ring.
 *
 * Return: 0 or a negative errno; nothing is left allocated on error.
 */
int rocx_ib_kcq_create(struct rocx_ib_dev *dev, struct rocx_ib_cq *cq,
		       const struct ib_cq_init_attr *attr)
{
	u32 max_cqe = min_t(u32, le32_to_cpu(dev->id->max_cqe),
			    BIT(ROCX_IB_CQ_MAX_LOG_DEPTH));
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_ib_pbl pbl;
	struct rocx_aq_cqe cqe;
	u32 depth;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > max_cqe)
		return -EINVAL;
	depth = roundup_pow_of_two(max_t(u32, 2 * attr->cqe,
					 BIT(ROCX_IB_CQ_MIN_LOG_DEPTH)));
	depth = min(depth, rounddown_pow_of_two(max_cqe));
	if (depth < attr->cqe)
		return -EINVAL;
	cq->log_depth = ilog2(depth);
	cq->cqe_format = ROCX_CQE_FORMAT_32;
	cq->db_batch = clamp_t(u32, depth - attr->cqe, 1, depth / 4 ?: 1);
	cq->ci = 0;
	cq->db_ci = 0;
	spin_lock_init(&cq->lock);

	err = rocx_ib_kbuf_alloc(dev, &cq->kbuf, depth * sizeof(struct rocx_cqe),
				 &pbl);
	if (err)
		return err;
	cmd.create_cq.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_CREATE_CQ);
	cmd.create_cq.uctx = 0;
	cmd.create_cq.log_depth = cq->log_depth;
	cmd.create_cq.eqn = dev->ceq.eqn;
	rocx_ib_pbl_to_hw(&pbl, &cmd.create_cq.pbl);
	err = rocx_ib_exec(dev, &cmd, &cqe);
	rocx_ib_pbl_destroy(&pbl);
	if (err) {
		rocx_ib_kbuf_free(dev, &cq->kbuf);
		return rocx_ib_verbs_errno(err);
	}
	cq->cqn = le32_to_cpu(cqe.result);
	cq->ibcq.cqe = attr->cqe;
	return 0;
}

/**
 * rocx_ib_kcq_free() - free a kernel CQ's ring, once the device has let go
 * @dev: device
 * @cq: the CQ; a user CQ is left alone
 */
void rocx_ib_kcq_free(struct rocx_ib_dev *dev, struct rocx_ib_cq *cq)
{
	rocx_ib_kbuf_free(dev, &cq->kbuf);
}

static const enum ib_wc_status rocx_ib_wc_statuses[] = {
	[ROCX_WC_SUCCESS] = IB_WC_SUCCESS,
	[ROCX_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[ROCX_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[3] = IB_WC_GENERAL_ERR,
	[ROCX_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[ROCX_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[ROCX_WC_MW_BIND_ERR] = IB_WC_MW_BIND_ERR,
	[ROCX_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[ROCX_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[ROCX_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[ROCX_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[ROCX_WC_REM_OP_ERR] = IB_WC_REM_OP_ERR,
	[ROCX_WC_RETRY_EXC_ERR] = IB_WC_RETRY_EXC_ERR,
	[ROCX_WC_RNR_RETRY_EXC_ERR] = IB_WC_RNR_RETRY_EXC_ERR,
	[14 ... 18] = IB_WC_GENERAL_ERR,
	[ROCX_WC_FATAL_ERR] = IB_WC_FATAL_ERR,
	[20] = IB_WC_GENERAL_ERR,
	[ROCX_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
};

static enum ib_wc_opcode rocx_ib_wc_opcode(u8 op)
{
	switch (op) {
	case ROCX_CQE_OP_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case ROCX_CQE_OP_RDMA_READ:
		return IB_WC_RDMA_READ;
	case ROCX_CQE_OP_COMP_SWAP:
		return IB_WC_COMP_SWAP;
	case ROCX_CQE_OP_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case ROCX_CQE_OP_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case ROCX_CQE_OP_BIND_MW:
		return IB_WC_BIND_MW;
	case ROCX_CQE_OP_REG_MR:
		return IB_WC_REG_MR;
	case ROCX_CQE_OP_RECV:
		return IB_WC_RECV;
	case ROCX_CQE_OP_RECV_RDMA_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	case ROCX_CQE_OP_SEND:
	default:
		return IB_WC_SEND;
	}
}

static const u8 rocx_ib_wc_net_types[] = {
	[ROCX_NET_ROCE_V1] = RDMA_NETWORK_ROCE_V1,
	[ROCX_NET_ROCE_V2_IPV4] = RDMA_NETWORK_IPV4,
	[ROCX_NET_ROCE_V2_IPV6] = RDMA_NETWORK_IPV6,
};

/**
 * rocx_ib_cqe_to_wc() - a work completion from a CQE, wr_id and qp aside
 * @cqe: the device's entry
 * @type: type of the QP it completes
 * @wc: completion to fill
 *
 * UD and GSI receives say where the packet came from: the source QP and
 * MAC, its VLAN and network header type (ib_mad builds the reply's
 * address from them, ib_init_ah_attr_from_wc()), and the 40 bytes ahead
 * of the data hold its GRH or IP header (IB_WC_GRH).
 */
VISIBLE_IF_KUNIT void rocx_ib_cqe_to_wc(const struct rocx_cqe *cqe,
					enum ib_qp_type type,
					struct ib_wc *wc)
{
	u32 qpn_op = le32_to_cpu(cqe->qpn_op);
	u32 src_status = le32_to_cpu(cqe->src_qp_status);
	u8 status = ROCX_FIELD_GET(ROCX_CQE_STATUS_MASK, src_status);
	u8 net = ROCX_FIELD_GET(ROCX_CQE_NET_TYPE_MASK, cqe->flags);
	u16 vlan = le16_to_cpu(cqe->vlan);

	wc->status = status < ARRAY_SIZE(rocx_ib_wc_statuses) ?
		     rocx_ib_wc_statuses[status] : IB_WC_GENERAL_ERR;
	wc->opcode = rocx_ib_wc_opcode(ROCX_FIELD_GET(ROCX_CQE_OPCODE_MASK, qpn_op));
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->src_qp = ROCX_FIELD_GET(ROCX_CQE_SRC_QP_MASK, src_status);
	wc->wc_flags = 0;
	wc->ex.imm_data = 0;
	if (cqe->flags & ROCX_CQE_WITH_IMM) {
		wc->ex.imm_data = cqe->imm_data;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (cqe->flags & ROCX_CQE_WITH_INV) {
		wc->ex.invalidate_rkey = be32_to_cpu(cqe->imm_data);
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	wc->slid = 0;
	/* The contract's CQE does not carry the priority a packet came with. */
	wc->sl = 0;
	wc->dlid_path_bits = 0;
	wc->pkey_index = 0;
	wc->port_num = ROCX_IB_PORT;
	wc->network_hdr_type = 0;
	memset(wc->smac, 0, sizeof(wc->smac));
	wc->vlan_id = 0;
	if ((type != IB_QPT_UD && type != IB_QPT_GSI) ||
	    !(cqe->flags & ROCX_CQE_RECV) || wc->status != IB_WC_SUCCESS)
		return;
	if (cqe->flags & ROCX_CQE_GRH)
		wc->wc_flags |= IB_WC_GRH;
	ether_addr_copy(wc->smac, cqe->smac);
	wc->wc_flags |= IB_WC_WITH_SMAC;
	if (vlan != ROCX_VLAN_NONE) {
		wc->vlan_id = vlan;
		wc->wc_flags |= IB_WC_WITH_VLAN;
	}
	if (net < ARRAY_SIZE(rocx_ib_wc_net_types)) {
		wc->network_hdr_type = rocx_ib_wc_net_types[net];
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_cqe_to_wc);

/*
 * A receive CQE of a QP destroy_qp has taken out of the table: if the QP
 * is on an SRQ, the entry it consumed goes back to the SRQ, as
 * rocx_ib_kcq_clean() would have returned it; nothing is reported.  CQ
 * locked.
 */
static void rocx_ib_kcq_dying_recv(struct rocx_ib_cq *cq, u32 qpn, u16 tag)
{
	struct rocx_ib_qp *qp;
	u64 wr_id;

	list_for_each_entry(qp, &cq->dying, dying) {
		if (qp->ibqp.qp_num == qpn) {
			rocx_ib_ksrq_complete(to_rocx_ib_srq(qp->ibqp.srq), tag,
					      &wr_id);
			return;
		}
	}
}

/* Translate one CQE; false for one of a QP that is gone.  CQ locked. */
static bool rocx_ib_kcqe_poll(struct rocx_ib_dev *dev, struct rocx_ib_cq *cq,
			      const struct rocx_cqe *cqe, struct ib_wc *wc)
{
	u32 qpn = ROCX_FIELD_GET(ROCX_CQE_QPN_MASK, le32_to_cpu(cqe->qpn_op));
	u16 idx = le16_to_cpu(cqe->wqe_idx);
	struct rocx_ib_kwq *wq;
	struct rocx_ib_qp *qp;

	/* rocx_ib_kqp_clean() marks a gone QP's entries with qpn 0. */
	qp = qpn ? xa_load(&dev->qp_xa, qpn) : NULL;
	if (!qp && qpn && (cqe->flags & ROCX_CQE_RECV))
		rocx_ib_kcq_dying_recv(cq, qpn, idx);
	if (!qp || !qp->kbuf.va)
		return false;
	/* An SRQ's entry is named by its tag (rocx_ib_ksrq.c). */
	if ((cqe->flags & ROCX_CQE_RECV) && qp->ibqp.srq) {
		if (!rocx_ib_ksrq_complete(to_rocx_ib_srq(qp->ibqp.srq), idx,
					   &wc->wr_id))
			return false;
		goto translate;
	}
	wq = (cqe->flags & ROCX_CQE_RECV) ? &qp->rq : &qp->sq;
	if (!wq->depth)
		return false;
	wc->wr_id = wq->wrid[idx & (wq->depth - 1)];
	/*
	 * Receives complete in order; a send completion also retires every
	 * unsignalled WQE before it.  Either way the oldest outstanding
	 * entry is the next one, and its slot is free once wr_id is read.
	 */
	smp_store_release(&wq->ci, (u16)(idx + 1));
translate:
	wc->qp = &qp->ibqp;
	rocx_ib_cqe_to_wc(cqe, qp->ibqp.qp_type, wc);
	return true;
}

int rocx_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibcq->device);
	struct rocx_ib_cq *cq = to_rocx_ib_cq(ibcq);
	struct rocx_cqe *cqe;
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries) {
		cqe = rocx_ib_kcq_ready(cq, cq->ci);
		if (!cqe)
			break;
		cq->ci++;
		if (rocx_ib_kcqe_poll(dev, cq, cqe, &wc[n]))
			n++;
	}
	n += rocx_ib_kcq_sw_flush(cq, num_entries - n, wc + n);
	if (cq->ci - cq->db_ci >= cq->db_batch)
		rocx_ib_kcq_db(dev, cq, 0);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int rocx_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibcq->device);
	struct rocx_ib_cq *cq = to_rocx_ib_cq(ibcq);
	unsigned long irqflags;
	int missed = 0;
	u64 arm;

	arm = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	      ROCX_DB_ARM_SOLICITED : ROCX_DB_ARM;
	spin_lock_irqsave(&cq->lock, irqflags);
	/*
	 * The device compares the index with what it has written, so an
	 * entry already there signals at once; the arm hands back the
	 * entries polled since the last doorbell too.
	 */
	rocx_ib_kcq_db(dev, cq, arm);
	cq->armed = true;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    rocx_ib_kcq_ready(cq, cq->ci))
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/**
 * rocx_ib_kcq_event() - a completion event for a kernel CQ, or one lost
 * @cq: the kernel CQ
 * @lost: the event was lost (the EQ overflowed), rather than delivered
 *
 * The device disarms a CQ when it signals it, and signals an armed CQ
 * only once it holds an entry, so a lost event can have been this CQ's
 * only if it is armed and an entry is there to poll.
 *
 * Return: whether the consumer is to be called; the CQ is disarmed if so.
 */
bool rocx_ib_kcq_event(struct rocx_ib_cq *cq, bool lost)
{
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&cq->lock, flags);
	wake = cq->armed && (!lost || rocx_ib_kcq_ready(cq, cq->ci));
	if (wake)
		cq->armed = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	return wake || !lost;
}

/* ---- Queue pairs ---- */

/**
 * rocx_ib_kqp_geometry() - the queue layout for a kernel QP's capabilities
 * @cap: what the consumer asked for
 * @req: zeroed; set to the layout, as a provider would request it
 *
 * Depths are the next powers of two; entries are the smallest the SGEs
 * and inline data fit in.  rocx_ib_qp_check() then holds them against the
 * device's limits, as for a provider's request.
 */
VISIBLE_IF_KUNIT void rocx_ib_kqp_geometry(const struct ib_qp_cap *cap,
					   struct rocx_create_qp_req *req)
{
	u32 send = max_t(u32, cap->max_send_sge * sizeof(struct rocx_sge),
			 cap->max_inline_data);

	req->sq_log_depth = max_t(u32, order_base_2(cap->max_send_wr),
				  ROCX_IB_SQ_MIN_LOG_DEPTH);
	req->sq_wqe_shift = max_t(u32, order_base_2(ROCX_SEND_WQE_HDR + send),
				  ROCX_IB_SQ_MIN_WQE_SHIFT);
	if (!cap->max_recv_wr)
		return;
	req->rq_log_depth = max_t(u32, order_base_2(cap->max_recv_wr), 1);
	req->rq_wqe_shift =
		max_t(u32, order_base_2(ROCX_RECV_WQE_HDR + cap->max_recv_sge *
					sizeof(struct rocx_sge)),
		      ROCX_IB_RQ_MIN_WQE_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_kqp_geometry);

static int rocx_ib_kwq_init(struct rocx_ib_kwq *wq,
			    const struct rocx_ib_kbuf *kb, size_t base,
			    u8 log_depth, u8 wqe_shift, u32 max_sge,
			    u32 max_inline)
{
	spin_lock_init(&wq->lock);
	wq->pi = 0;
	wq->ci = 0;
	if (!log_depth)
		return 0;
	wq->kb = kb;
	wq->base = base;
	wq->depth = BIT(log_depth);
	wq->wqe_shift = wqe_shift;
	wq->max_sge = max_sge;
	wq->max_inline = max_inline;
	wq->wrid = kvcalloc(wq->depth, sizeof(*wq->wrid), GFP_KERNEL);
	return wq->wrid ? 0 : -ENOMEM;
}

/* Buffers of a kernel QP the device no longer uses (or never had). */
static void rocx_ib_kqp_release(struct rocx_ib_dev *dev, struct rocx_ib_qp *qp)
{
	kvfree(qp->sq.wrid);
	kvfree(qp->rq.wrid);
	qp->sq.wrid = NULL;
	qp->rq.wrid = NULL;
	qp->kdbrec = NULL;
	rocx_ib_kbuf_free(dev, &qp->kbuf);
}

/**
 * rocx_ib_kqp_report_caps() - tell a kernel QP's creator what it got
 * @out: the creator's capabilities, updated
 * @cap: what the queues hold
 *
 * All but max_rdma_ctxs, which is ib_core's, not the device's: after
 * create_qp, ib_create_qp_kernel() reads it back to size the QP's pool of
 * MRs for rdma_rw (iSER and NVMe-oF targets with registration), and a
 * zero there leaves the pool empty and every rdma_rw_ctx_init() failing
 * with -EAGAIN.
 */
VISIBLE_IF_KUNIT void rocx_ib_kqp_report_caps(struct ib_qp_cap *out,
					      const struct ib_qp_cap *cap)
{
	u32 rdma_ctxs = out->max_rdma_ctxs;

	*out = *cap;
	out->max_rdma_ctxs = rdma_ctxs;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_kqp_report_caps);

/**
 * rocx_ib_kqp_create() - the queues and device QP of a kernel QP
 * @dev: device
 * @qp: the QP; ibqp.qp_num is set on success
 * @init: ib_core's attributes; cap is set to what the queues hold
 *
 * Return: 0 or a negative errno; nothing is left allocated on error.
 */
int rocx_ib_kqp_create(struct rocx_ib_dev *dev, struct rocx_ib_qp *qp,
		       struct ib_qp_init_attr *init)
{
	u64 caps2 = le64_to_cpu(dev->id->caps2);
	struct rocx_create_qp_req req = {};
	union rocx_aq_verbs_cmd cmd = {};
	u32 create_flags = init->create_flags;
	struct ib_qp_cap cap;
	struct rocx_ib_pbl pbl;
	struct rocx_aq_cqe cqe;
	size_t sq_size;
	int type, err;
	u8 mc_flags;

	INIT_LIST_HEAD(&qp->dying);
	type = rocx_ib_qp_type(init->qp_type, caps2);
	mc_flags = rocx_ib_mcast_qp_flags(caps2, init->qp_type, &create_flags);
	if (type < 0 || create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	/* As for user QPs: SRQs for RC only, and then no RQ. */
	if (init->srq && (type != ROCX_QPT_RC ||
			  !to_rocx_ib_srq(init->srq)->kbuf.va))
		return -EOPNOTSUPP;
	cap = init->cap;
	if (init->srq) {
		cap.max_recv_wr = 0;
		cap.max_recv_sge = 0;
	}
	rocx_ib_kqp_geometry(&cap, &req);
	/* A streaming ULP (NVMe-oF, iSER) then posts without an exit. */
	req.comp_mask = rocx_ib_qp_req_comp(dev->id) &
			ROCX_CREATE_QP_REQ_DB_RECORD;
	/*
	 * The RQ follows the SQ in the ring: an SQ smaller than one RQ entry
	 * (a few hundred bytes) would put RQ entries across pages.
	 */
	while (req.rq_log_depth &&
	       req.sq_log_depth + req.sq_wqe_shift < req.rq_wqe_shift)
		req.sq_log_depth++;
	/* The check's user-buffer rule: any page-aligned address will do. */
	req.buf_addr = PAGE_SIZE;
	err = rocx_ib_qp_check(dev->id, &cap, &req);
	if (err) {
		ibdev_dbg(&dev->ibdev,
			  "kernel QP refused: wr %u/%u sge %u/%u inline %u\n",
			  init->cap.max_send_wr, init->cap.max_recv_wr,
			  init->cap.max_send_sge, init->cap.max_recv_sge,
			  init->cap.max_inline_data);
		return err;
	}
	rocx_ib_qp_caps(dev->id, &req, &qp->cap);

	err = rocx_ib_kbuf_alloc(dev, &qp->kbuf, rocx_ib_qp_buf_size(&req),
				 &pbl);
	if (err)
		return err;
	sq_size = (size_t)1 << (req.sq_log_depth + req.sq_wqe_shift);
	err = rocx_ib_kwq_init(&qp->sq, &qp->kbuf, 0, req.sq_log_depth,
			       req.sq_wqe_shift, qp->cap.max_send_sge,
			       qp->cap.max_inline_data);
	if (!err)
		err = rocx_ib_kwq_init(&qp->rq, &qp->kbuf, sq_size,
				       req.rq_log_depth, req.rq_wqe_shift,
				       qp->cap.max_recv_sge, 0);
	if (err)
		goto err_pbl;
	if (req.comp_mask & ROCX_CREATE_QP_REQ_DB_RECORD)
		qp->kdbrec = rocx_ib_kbuf_at(&qp->kbuf,
					     rocx_ib_qp_buf_size(&req) -
					     ROCX_DB_RECORD_SIZE);

	/* No user context; the SRQ, if any, is named from init. */
	rocx_ib_qp_create_cmd(&cmd.create_qp, init, type, mc_flags, &req,
			      to_rocx_ib_pd(qp->ibqp.pd)->pdn, 0, &pbl);
	err = rocx_ib_exec(dev, &cmd, &cqe);
	if (err) {
		err = rocx_ib_verbs_errno(err);
		goto err_pbl;
	}
	rocx_ib_pbl_destroy(&pbl);
	qp->ibqp.qp_num = le32_to_cpu(cqe.result);
	rocx_ib_kqp_report_caps(&init->cap, &qp->cap);
	return 0;

err_pbl:
	rocx_ib_pbl_destroy(&pbl);
	rocx_ib_kqp_release(dev, qp);
	return err;
}

/*
 * Forget @qp's entries in @cq: the device writes no more for it, and
 * those it wrote name WQEs that no longer exist (or, after a reset, that
 * are being reused).  Marking them with qpn 0, which no QP has, makes
 * poll_cq skip them.  CQ locked.
 */
static void rocx_ib_kcq_clean(struct rocx_ib_cq *cq, u32 qpn,
			      struct rocx_ib_srq *srq)
{
	struct rocx_cqe *cqe;
	u32 ci, qpn_op;
	u64 wr_id;

	for (ci = cq->ci; ci != cq->ci + BIT(cq->log_depth); ci++) {
		cqe = rocx_ib_kcq_ready(cq, ci);
		if (!cqe)
			break;
		qpn_op = le32_to_cpu(cqe->qpn_op);
		if (ROCX_FIELD_GET(ROCX_CQE_QPN_MASK, qpn_op) != qpn)
			continue;
		cqe->qpn_op = cpu_to_le32(qpn_op & ~ROCX_CQE_QPN_MASK);
		/* The SRQ entry is consumed: its tag is free again. */
		if (srq && (cqe->flags & ROCX_CQE_RECV))
			rocx_ib_ksrq_complete(srq, le16_to_cpu(cqe->wqe_idx),
					      &wr_id);
	}
}

/* Lock a QP's CQs (one or two), the lower cqn first. */
static void rocx_ib_lock_cqs(struct rocx_ib_cq *scq, struct rocx_ib_cq *rcq,
			     unsigned long *flags)
	__acquires(&scq->lock) __acquires(&rcq->lock)
{
	if (scq == rcq) {
		spin_lock_irqsave(&scq->lock, *flags);
		__acquire(&rcq->lock);
	} else if (scq->cqn < rcq->cqn) {
		spin_lock_irqsave(&scq->lock, *flags);
		spin_lock_nested(&rcq->lock, SINGLE_DEPTH_NESTING);
	} else {
		spin_lock_irqsave(&rcq->lock, *flags);
		spin_lock_nested(&scq->lock, SINGLE_DEPTH_NESTING);
	}
}

static void rocx_ib_unlock_cqs(struct rocx_ib_cq *scq, struct rocx_ib_cq *rcq,
			       unsigned long flags)
	__releases(&scq->lock) __releases(&rcq->lock)
{
	if (scq == rcq) {
		__release(&rcq->lock);
		spin_unlock_irqrestore(&scq->lock, flags);
	} else if (scq->cqn < rcq->cqn) {
		spin_unlock(&rcq->lock);
		spin_unlock_irqrestore(&scq->lock, flags);
	} else {
		spin_unlock(&scq->lock);
		spin_unlock_irqrestore(&rcq->lock, flags);
	}
}

/* Clean @qp out of its CQs and restart its queues at index 0. */
static void rocx_ib_kqp_clean(struct rocx_ib_qp *qp)
{
	struct rocx_ib_cq *scq = to_rocx_ib_cq(qp->ibqp.send_cq);
	struct rocx_ib_cq *rcq = to_rocx_ib_cq(qp->ibqp.recv_cq);
	struct rocx_ib_srq *srq = qp->ibqp.srq ?
				  to_rocx_ib_srq(qp->ibqp.srq) : NULL;
	unsigned long flags;

	rocx_ib_lock_cqs(scq, rcq, &flags);
	rocx_ib_qp_sw_forget(qp);
	rocx_ib_kcq_clean(scq, qp->ibqp.qp_num, srq);
	if (rcq != scq)
		rocx_ib_kcq_clean(rcq, qp->ibqp.qp_num, srq);
	/* Cleaned: poll_cq has no entry of it left to hand back. */
	list_del_init(&qp->dying);
	spin_lock(&qp->sq.lock);
	qp->sq.pi = 0;
	qp->sq.ci = 0;
	/* The device has cleared POLL and reads the record no more. */
	if (qp->kdbrec)
		WRITE_ONCE(qp->kdbrec->sq_pi, 0);
	spin_unlock(&qp->sq.lock);
	spin_lock(&qp->rq.lock);
	qp->rq.pi = 0;
	qp->rq.ci = 0;
	spin_unlock(&qp->rq.lock);
	rocx_ib_unlock_cqs(scq, rcq, flags);
}

/**
 * rocx_ib_kqp_reset() - a kernel QP went back to RESET
 * @qp: the QP; a user QP is left alone (its provider does this)
 *
 * The device has forgotten its queues (both start again at 0) and the
 * completions it wrote for them.
 */
void rocx_ib_kqp_reset(struct rocx_ib_qp *qp)
{
	if (qp->kbuf.va)
		rocx_ib_kqp_clean(qp);
}

/**
 * rocx_ib_kqp_dying() - a kernel QP on an SRQ leaves dev->qp_xa, or not
 * @qp: the QP; a user QP, or one without an SRQ, is left alone
 * @dying: true before destroy_qp takes it out of the table; false when
 *	it goes back in (a refused destroy) or is freed without a clean
 *
 * Between the QP's leaving the table and rocx_ib_kqp_clean(), poll_cq
 * of a CQ the QP shares with others finds no QP for its CQEs and drops
 * them; a receive's SRQ entry would then never be free again.  On the
 * list, poll_cq finds the SRQ and hands the entry back.
 */
void rocx_ib_kqp_dying(struct rocx_ib_qp *qp, bool dying)
{
	struct rocx_ib_cq *rcq;
	unsigned long flags;

	if (!qp->kbuf.va || !qp->ibqp.srq)
		return;
	rcq = to_rocx_ib_cq(qp->ibqp.recv_cq);
	spin_lock_irqsave(&rcq->lock, flags);
	if (dying)
		list_add_tail(&qp->dying, &rcq->dying);
	else
		list_del_init(&qp->dying);
	spin_unlock_irqrestore(&rcq->lock, flags);
}

/**
 * rocx_ib_kqp_free() - free a destroyed kernel QP's queues
 * @dev: device
 * @qp: the QP, out of dev->qp_xa and destroyed in the device; a user QP
 *	is left alone
 */
void rocx_ib_kqp_free(struct rocx_ib_dev *dev, struct rocx_ib_qp *qp)
{
	if (!qp->kbuf.va)
		return;
	/* After this no poll_cq can be reading the QP's wr_ids. */
	rocx_ib_kqp_clean(qp);
	rocx_ib_kqp_release(dev, qp);
}

static void *rocx_ib_kwq_entry(const struct rocx_ib_kwq *wq, u16 idx)
{
	return rocx_ib_kbuf_at(wq->kb, wq->base +
			       ((size_t)(idx & (wq->depth - 1)) << wq->wqe_shift));
}

/**
 * rocx_ib_kqp_record() - post through a kernel QP's doorbell record
 * @rec: the record
 * @pi: the new SQ producer index
 *
 * Return: true if the device reads the record on its own (POLL), so the
 * post needs no doorbell; false if it must ring one as well.
 */
VISIBLE_IF_KUNIT bool rocx_ib_kqp_record(struct rocx_db_record *rec, u16 pi)
{
	/* The WQEs, then the index that names them. */
	dma_wmb();
	WRITE_ONCE(rec->sq_pi, cpu_to_le32(pi));
	/*
	 * The index's store before the load of flags.  The other side is a
	 * device, so mb(), which on x86 is MFENCE: QEMU's TCG with one vCPU
	 * runs smp_mb()'s LOCK-prefixed add with no barrier at all
	 * (rocx-device.rst, "Doorbell records").
	 */
	mb();
	return le32_to_cpu(READ_ONCE(rec->flags)) & ROCX_DB_RECORD_POLL;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_kqp_record);

int rocx_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibqp->device);
	struct rocx_ib_qp *qp = to_rocx_ib_qp(ibqp);
	struct rocx_ib_kwq *sq = &qp->sq;
	struct rocx_ib_wqe_ctx ctx = {
		.qp_type = ibqp->qp_type,
		.sig_all = qp->sq_sig_all,
		.max_sge = sq->max_sge,
		.max_inline = sq->max_inline,
	};
	unsigned long flags;
	int err = 0;
	u16 pi;

	/* Before RTS nothing would go out; in ERR the device flushes. */
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		*bad_wr = wr;
		return -EINVAL;
	default:
		break;
	}

	spin_lock_irqsave(&sq->lock, flags);
	pi = sq->pi;
	for (; wr; wr = wr->next) {
		/* Pairs with poll_cq's release: the slot's wr_id was read. */
		if ((u16)(pi - smp_load_acquire(&sq->ci)) >= sq->depth) {
			err = -ENOMEM;
			break;
		}
		err = rocx_ib_wqe_build(&ctx, rocx_ib_kwq_entry(sq, pi), pi, wr);
		if (err)
			break;
		sq->wrid[pi & (sq->depth - 1)] = wr->wr_id;
		pi++;
	}
	if (err)
		*bad_wr = wr;
	if (pi != sq->pi) {
		sq->pi = pi;
		/* Orders the WQEs' stores before the doorbell itself. */
		if (!qp->kdbrec || !rocx_ib_kqp_record(qp->kdbrec, pi))
			rocx_kernel_db(dev->core, ROCX_DB_SQ,
				       rocx_db_encode(ibqp->qp_num, pi, 0));
	}
	spin_unlock_irqrestore(&sq->lock, flags);
	/* The device is gone: the driver completes it (rocx_ib_flush.c). */
	if (READ_ONCE(qp->sw_err))
		rocx_ib_qp_sw_kick(qp);
	return err;
}

int rocx_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibqp->device);
	struct rocx_ib_qp *qp = to_rocx_ib_qp(ibqp);
	struct rocx_ib_kwq *rq = &qp->rq;
	unsigned long flags;
	int err = 0;
	u16 pi;

	if (READ_ONCE(qp->state) == IB_QPS_RESET || !rq->depth) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&rq->lock, flags);
	pi = rq->pi;
	for (; wr; wr = wr->next) {
		/* Pairs with poll_cq's release, as for the SQ. */
		if ((u16)(pi - smp_load_acquire(&rq->ci)) >= rq->depth) {
			err = -ENOMEM;
			break;
		}
		err = rocx_ib_recv_wqe_build(rocx_ib_kwq_entry(rq, pi), pi, wr,
					     rq->max_sge);
		if (err)
			break;
		rq->wrid[pi & (rq->depth - 1)] = wr->wr_id;
		pi++;
	}
	if (err)
		*bad_wr = wr;
	if (pi != rq->pi) {
		rq->pi = pi;
		rocx_kernel_db(dev->core, ROCX_DB_RQ,
			       rocx_db_encode(ibqp->qp_num, pi, 0));
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	if (READ_ONCE(qp->sw_err))
		rocx_ib_qp_sw_kick(qp);
	return err;
}
