// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib resource tracking: what `rdma resource show` prints for rocx
 * objects beyond ib_core's own attributes.
 *
 * ib_core reports a QP's remote QPN, PSNs and state from query_qp, which
 * asks the device; these add the device's numbers and the geometry of the
 * queues the provider shares with it, which only the driver knows.
 */
#include <linux/bitfield.h>
#include <rdma/restrack.h>

#include "rocx_ib.h"

int rocx_ib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct rocx_ib_qp *qp = to_rocx_ib_qp(ibqp);
	struct nlattr *table;

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
