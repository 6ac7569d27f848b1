// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib resource tracking: what `rdma resource show` prints for rocx
 * objects beyond ib_core's own attributes.
 *
 * ib_core reports a QP's remote QPN, PSNs and state from query_qp, which
 * asks the device; these add the device's numbers and the geometry of the
 * queues the provider shares with it, which only the driver knows, and
 * for RC and UC QPs the DCQCN reaction point's rate and alpha, which only
 * the device knows.
 */
#include <linux/bitfield.h>
#include <rdma/restrack.h>

#include "rocx_ib.h"

/* The reaction point paces RC and UC requesters only. */
static bool rocx_ib_qp_has_cc(struct ib_qp *ibqp)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibqp->device);

	if (!(le64_to_cpu(dev->id->caps2) & ROCX_CAP2_DCQCN))
		return false;
	return ibqp->qp_type == IB_QPT_RC || ibqp->qp_type == IB_QPT_UC;
}

int rocx_ib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct rocx_ib_qp *qp = to_rocx_ib_qp(ibqp);
	struct rocx_ib_qp_cc cc;
	struct nlattr *table;
	bool has_cc;
	int err;

	/*
	 * A failed query leaves the attributes out rather than the QP: the
	 * listing still shows every other field, and the failure is logged.
	 */
	has_cc = rocx_ib_qp_has_cc(ibqp);
	err = has_cc ? rocx_ib_qp_query_cc(qp, &cc) : 0;
	if (err) {
		/* A QP being destroyed has none: no news. */
		if (err != -ENOENT)
			ibdev_warn_ratelimited(ibqp->device,
					       "QP %u: no congestion state\n",
					       ibqp->qp_num);
		has_cc = false;
	}

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "sq_wr", qp->cap.max_send_wr) ||
	    rdma_nl_put_driver_u32(msg, "rq_wr", qp->cap.max_recv_wr) ||
	    rdma_nl_put_driver_u32(msg, "sq_sge", qp->cap.max_send_sge) ||
	    rdma_nl_put_driver_u32(msg, "rq_sge", qp->cap.max_recv_sge) ||
	    rdma_nl_put_driver_u32(msg, "max_inline",
				   qp->cap.max_inline_data) ||
	    rdma_nl_put_driver_u32(msg, "sig_all", qp->sq_sig_all))
		goto err_cancel;
	if (has_cc &&
	    (rdma_nl_put_driver_u32(msg, "cc_cur_rate", cc.cur_rate) ||
	     rdma_nl_put_driver_u32(msg, "cc_tgt_rate", cc.tgt_rate) ||
	     rdma_nl_put_driver_u32(msg, "cc_alpha", cc.alpha)))
		goto err_cancel;
	nla_nest_end(msg, table);
	return 0;

err_cancel:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}

int rocx_ib_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct rocx_ib_cq *cq = to_rocx_ib_cq(ibcq);
	struct nlattr *table;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "ring_depth", BIT(cq->log_depth)) ||
	    rdma_nl_put_driver_u32(msg, "cqe_size",
				   cq->cqe_format == ROCX_CQE_FORMAT_64 ?
				   sizeof(struct rocx_cqe64) :
				   sizeof(struct rocx_cqe)))
		goto err_cancel;
	nla_nest_end(msg, table);
	return 0;

err_cancel:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}

int rocx_ib_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct nlattr *table;

	/* lkey == rkey: [31:8] the device's MR index, [7:0] its variant. */
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "mr_index",
				   FIELD_GET(ROCX_KEY_INDEX_MASK, ibmr->lkey)) ||
	    rdma_nl_put_driver_u32(msg, "key_variant",
				   FIELD_GET(ROCX_KEY_VARIANT_MASK, ibmr->lkey)))
		goto err_cancel;
	nla_nest_end(msg, table);
	return 0;

err_cancel:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}
