// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: XRC domains, XRC SRQs, and XRC send and receive QPs.
 *
 * An XRC SRQ is an SRQ (srq.c) that names a domain and a CQ; the device
 * completes its receives on that CQ with the SRQ number in the CQE's ext
 * word and the XRC target QP in qpn, which this process may not know (it
 * may belong to another process of the domain).  poll_cq therefore finds
 * the entry's wr_id through the SRQ: each XRC SRQ has a stand-in QP,
 * xrc_recv, whose srq it is, found by srqn in the context's xsrq_table.
 *
 * An XRC send QP is an RC QP without a receive side (qp.c), whose WQEs
 * name the target SRQ.  An XRC receive QP is the kernel's and has no
 * queues: this side only creates, opens, modifies and destroys it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rocx.h"

struct ibv_xrcd *rocx_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_open_xrcd cmd;
	struct verbs_xrcd *xrcd;
	int err;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;
	err = ibv_cmd_open_xrcd(context, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}
	return &xrcd->xrcd;
}

int rocx_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int err;

	err = ibv_cmd_close_xrcd(xrcd);
	if (err)
		return err;
	free(xrcd);
	return 0;
}

/* ---- XRC SRQs ---- */

static struct rocx_srq *rocx_xsrq_find(struct rocx_context *ctx,
				       uint32_t srqn)
{
	struct rocx_srq **tbl;

	tbl = atomic_load_explicit(
		(_Atomic(struct rocx_srq **) *)&ctx->xsrq_table[(srqn >> ROCX_QP_TABLE_SHIFT) &
								ROCX_QP_TABLE_MASK],
		memory_order_acquire);
	return tbl ? tbl[srqn & ROCX_QP_TABLE_MASK] : NULL;
}

/* Called with qp_table_mutex held. */
static int rocx_xsrq_set(struct rocx_context *ctx, uint32_t srqn,
			 struct rocx_srq *srq)
{
	uint32_t top = (srqn >> ROCX_QP_TABLE_SHIFT) & ROCX_QP_TABLE_MASK;
	struct rocx_srq **tbl = ctx->xsrq_table[top];

	if (!tbl) {
		if (!srq)
			return 0;
		tbl = calloc(ROCX_QP_TABLE_SIZE, sizeof(*tbl));
		if (!tbl)
			return ENOMEM;
		/* poll_cq reads the pointer without the mutex. */
		atomic_store_explicit(
			(_Atomic(struct rocx_srq **) *)&ctx->xsrq_table[top], tbl,
			memory_order_release);
	}
	atomic_store_explicit((_Atomic(struct rocx_srq *) *)&tbl[srqn & ROCX_QP_TABLE_MASK],
			      srq, memory_order_release);
	return 0;
}

struct ibv_srq *rocx_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	struct rocx_context *ctx = to_rocx_context(context);
	struct urocx_create_xsrq_resp resp = {};
	struct urocx_create_xsrq cmd = {};
	struct ibv_srq_init_attr basic;
	uint32_t log_depth, wqe_shift;
	struct rocx_srq *srq;
	int err;

	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) ||
	    attr->srq_type == IBV_SRQT_BASIC) {
		basic.srq_context = attr->srq_context;
		basic.attr = attr->attr;
		srq = (void *)rocx_create_srq(attr->pd, &basic);
		if (srq)
			attr->attr = basic.attr;
		return (struct ibv_srq *)srq;
	}
	if (attr->srq_type != IBV_SRQT_XRC ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	srq = rocx_srq_ring_new(ctx, &attr->attr, &log_depth, &wqe_shift);
	if (!srq)
		return NULL;
	srq->xrc_recv = calloc(1, sizeof(*srq->xrc_recv));
	if (!srq->xrc_recv) {
		err = ENOMEM;
		goto err_ring;
	}
	srq->xrc_recv->srq = srq;
	cmd.buf_addr = (uintptr_t)srq->buf;
	cmd.log_depth = log_depth;
	cmd.wqe_shift = wqe_shift;
	err = ibv_cmd_create_srq_ex(context, &srq->vsrq, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_debug(&ctx->ibvctx, "create XRC SRQ of %u failed: %s\n",
			    attr->attr.max_wr, strerror(err));
		goto err_recv;
	}
	srq->srqn = resp.srqn;
	srq->max_sge = attr->attr.max_sge;
	pthread_mutex_lock(&ctx->qp_table_mutex);
	err = rocx_xsrq_set(ctx, srq->srqn, srq);
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	if (err)
		goto err_destroy;
	return &srq->ibvsrq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->ibvsrq);
err_recv:
	free(srq->xrc_recv);
err_ring:
	rocx_srq_ring_free(srq);
	errno = err;
	return NULL;
}

int rocx_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct rocx_srq *srq = to_rocx_srq(ibsrq);

	if (!srq->xrc_recv)
		return EINVAL;
	*srq_num = srq->srqn;
	return 0;
}

/*
 * Forget the CQEs of an SRQ that is gone, as rocx_cq_clean() does a QP's:
 * a new XRC SRQ may get its number, and must not take them for its own.
 */
static void rocx_xrc_cq_clean(struct rocx_cq *cq, uint32_t srqn)
{
	struct rocx_cqe *cqe;
	uint32_t ci;

	pthread_spin_lock(&cq->lock);
	for (ci = cq->ci; ci != cq->ci + (1U << cq->log_depth); ci++) {
		cqe = rocx_cq_ready(cq, ci);
		if (!cqe)
			break;
		if ((cqe->flags & ROCX_CQE_RECV) &&
		    ROCX_FIELD_GET(ROCX_CQE_EXT_SRQN, le32toh(cqe->ext)) == srqn)
			cqe->qpn_op = htole32(le32toh(cqe->qpn_op) &
					      ~ROCX_CQE_QPN_MASK);
	}
	pthread_spin_unlock(&cq->lock);
}

/*
 * Destroy an XRC SRQ in the kernel and take it out of the table poll_cq
 * finds its CQEs' SRQ in.  The device may hand the srqn out again as soon
 * as the kernel has destroyed the SRQ; holding the table mutex from before
 * that until the entry and its CQEs are gone keeps a create in another
 * thread, which may get this srqn, from storing its SRQ before we clear
 * ours (and from having CQEs that rocx_xrc_cq_clean() would take for
 * ours), as rocx_destroy_qp() does for QPs.  The ring is the caller's.
 */
int rocx_xrc_destroy_srq(struct rocx_context *ctx, struct rocx_srq *srq)
{
	int err;

	pthread_mutex_lock(&ctx->qp_table_mutex);
	/* The kernel refuses while a QP uses it: nothing changes then. */
	err = ibv_cmd_destroy_srq(&srq->ibvsrq);
	if (err) {
		pthread_mutex_unlock(&ctx->qp_table_mutex);
		return err;
	}
	if (rocx_xsrq_find(ctx, srq->srqn) == srq)
		rocx_xsrq_set(ctx, srq->srqn, NULL);
	if (srq->vsrq.cq)
		rocx_xrc_cq_clean(to_rocx_cq(srq->vsrq.cq), srq->srqn);
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	free(srq->xrc_recv);
	srq->xrc_recv = NULL;
	return 0;
}

/*
 * The stand-in QP of an XRC SRQ receive's CQE, NULL if the SRQ is gone
 * (the CQE is consumed silently, as one of a destroyed QP).  CQ locked.
 */
struct rocx_qp *rocx_xrc_cqe_qp(struct rocx_context *ctx,
				const struct rocx_cqe *cqe)
{
	struct rocx_srq *srq = rocx_xsrq_find(ctx,
			ROCX_FIELD_GET(ROCX_CQE_EXT_SRQN, le32toh(cqe->ext)));

	return srq ? srq->xrc_recv : NULL;
}

/* ---- XRC QPs ---- */

void rocx_wqe_set_xrc_srqn(struct rocx_send_wqe *wqe, uint32_t srqn)
{
	wqe->ctrl.xrc_srqn = htole16(srqn & 0xffff);
	wqe->ctrl.xrc_srqn_hi = (srqn >> 16) & 0xff;
}

/*
 * A receive QP has no queues and is the kernel's (which takes no
 * driver data for it): only the object libibverbs hands around.
 */
struct ibv_qp *rocx_xrc_create_recv_qp(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_create_qp cmd;
	struct rocx_qp *qp;
	int err;

	if ((attr->comp_mask & ~(IBV_QP_INIT_ATTR_XRCD |
				 IBV_QP_INIT_ATTR_CREATE_FLAGS)) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	err = ibv_cmd_create_qp_ex(context, &qp->vqp, attr, &cmd, sizeof(cmd),
				   &resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	return &qp->vqp.qp;
}

struct ibv_qp *rocx_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;
	struct rocx_qp *qp;
	int err;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	err = ibv_cmd_open_qp(context, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	return &qp->vqp.qp;
}

int rocx_xrc_destroy_recv_qp(struct ibv_qp *ibqp)
{
	int err;

	/* The kernel destroys the target once its last opener is gone. */
	err = ibv_cmd_destroy_qp(ibqp);
	if (err)
		return err;
	free(to_rocx_qp(ibqp));
	return 0;
}
