// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: extended QPs (ibv_create_qp_ex) and the ibv_wr_* API.
 *
 * ibv_wr_start() takes the SQ lock; every ibv_wr_<opcode>() starts a WQE
 * at the next index with the builder post_send uses (qp.c), the
 * ibv_wr_set_*() calls that follow add its data, and ibv_wr_complete()
 * rings the doorbell once for the whole batch.  Nothing reaches the
 * device before that, so ibv_wr_abort() (or a failed batch) only forgets
 * the WQEs: the device never sees a doorbell for them.
 *
 * Each opcode is one small function here calling its builder (qp.c,
 * atomic.c, mw.c), and one IBV_QP_EX_WITH_* bit in ROCX_QP_EX_OPS; an
 * opcode added to post_send is added here the same way; UD's address is
 * rocx_wr_set_ud_addr(), on rocx_wqe_set_ud() as post_send's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rocx.h"

/* The send operations this provider builds (send_ops_flags). */
#define ROCX_QP_EX_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE |			      \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		      \
			 IBV_QP_EX_WITH_RDMA_READ |			      \
			 IBV_QP_EX_WITH_SEND_WITH_INV |			      \
			 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW |  \
			 ROCX_QP_EX_ATOMIC_OPS)

/* Offered only when query_device's atomic_cap is not NONE. */
#define ROCX_QP_EX_ATOMIC_OPS (IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	      \
			       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

#define ROCX_QP_EX_UC_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			   IBV_QP_EX_WITH_RDMA_WRITE |			    \
			   IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)

#define ROCX_QP_EX_UD_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

#define ROCX_QP_EX_COMP_MASK	(IBV_QP_INIT_ATTR_PD |			\
				 IBV_QP_INIT_ATTR_CREATE_FLAGS |	\
				 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/*
 * A UD QP's group sends reach the device's own attached QPs unless it
 * asks otherwise (ROCX_QP_NO_MC_LOOPBACK); the kernel refuses the flag
 * on a device without multicast.  No other flag has a device behind it.
 */
#define ROCX_QP_EX_UD_CREATE_FLAGS	IBV_QP_CREATE_BLOCK_SELF_MCAST_LB

static void rocx_wr_start(struct ibv_qp_ex *qpx)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr.pi = qp->sq.pi;
	qp->wr.cur = NULL;
	/* As post_send: nothing goes out before RTS. */
	switch (qp->vqp.qp.state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		qp->wr.err = EINVAL;
		break;
	default:
		qp->wr.err = 0;
		break;
	}
}

static int rocx_wr_complete(struct ibv_qp_ex *qpx)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	int err = qp->wr.err;

	/* A failed batch is dropped whole: the device sees none of it. */
	if (!err && qp->wr.pi != qp->sq.pi)
		rocx_sq_ring(qp, qp->wr.pi);
	qp->wr.cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);
	return err;
}

static void rocx_wr_abort(struct ibv_qp_ex *qpx)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);

	qp->wr.cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

/*
 * The index for the next WQE, taking qpx->wr_id; false (and the batch
 * failed) when the SQ is full or the batch failed already.
 */
static bool rocx_wr_next(struct rocx_qp *qp, uint16_t *idx)
{
	struct rocx_wq *sq = &qp->sq;

	qp->wr.cur = NULL;
	if (qp->wr.err)
		return false;
	if (rocx_sq_full(sq, qp->wr.pi)) {
		qp->wr.err = ENOMEM;
		return false;
	}
	*idx = qp->wr.pi++;
	sq->wrid[*idx & (sq->depth - 1)] = qp->vqp.qp_ex.wr_id;
	return true;
}

static void rocx_wr_fail(struct rocx_qp *qp, int err)
{
	if (err && !qp->wr.err)
		qp->wr.err = err;
}

static void rocx_wr_send(struct ibv_qp_ex *qpx)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (rocx_wr_next(qp, &idx))
		qp->wr.cur = rocx_wqe_send(qp, idx, qpx->wr_flags);
}

static void rocx_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (rocx_wr_next(qp, &idx))
		qp->wr.cur = rocx_wqe_send_imm(qp, idx, qpx->wr_flags, imm_data);
}

static void rocx_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (rocx_wr_next(qp, &idx))
		qp->wr.cur = rocx_wqe_rdma_write(qp, idx, qpx->wr_flags, rkey,
						 remote_addr);
}

static void rocx_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, __be32 imm_data)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (rocx_wr_next(qp, &idx))
		qp->wr.cur = rocx_wqe_rdma_write_imm(qp, idx, qpx->wr_flags,
						     rkey, remote_addr,
						     imm_data);
}

static void rocx_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (rocx_wr_next(qp, &idx))
		qp->wr.cur = rocx_wqe_rdma_read(qp, idx, qpx->wr_flags, rkey,
						remote_addr);
}

static void rocx_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, uint64_t compare,
				   uint64_t swap)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (rocx_wr_next(qp, &idx))
		qp->wr.cur = rocx_wqe_atomic_cmp_swp(qp, idx, qpx->wr_flags,
						     rkey, remote_addr,
						     compare, swap);
	if (!qp->wr.cur)
		rocx_wr_fail(qp, EINVAL);
}

static void rocx_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				     uint64_t remote_addr, uint64_t add)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (rocx_wr_next(qp, &idx))
		qp->wr.cur = rocx_wqe_atomic_fetch_add(qp, idx, qpx->wr_flags,
						       rkey, remote_addr, add);
	if (!qp->wr.cur)
		rocx_wr_fail(qp, EINVAL);
}

static void rocx_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (rocx_wr_next(qp, &idx))
		qp->wr.cur = rocx_wqe_send_inv(qp, idx, qpx->wr_flags,
					       invalidate_rkey);
}

/*
 * LOCAL_INV and BIND_MW carry no data: they leave no current WQE, so a
 * data setter after them fails the batch.
 */
static void rocx_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (rocx_wr_next(qp, &idx))
		rocx_wqe_local_inv(qp, idx, qpx->wr_flags, invalidate_rkey);
}

/*
 * Type 2 windows only (type 1 are bound through ibv_bind_mw); @rkey is
 * the window's new key, which the consumer keeps.
 */
static void rocx_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			    uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	uint16_t idx;

	if (!mw || mw->type != IBV_MW_TYPE_2 || mw->pd != qp->vqp.qp.pd ||
	    (info->length && (!info->mr || info->mr->pd != qp->vqp.qp.pd))) {
		rocx_wr_fail(qp, EINVAL);
		return;
	}
	if (rocx_wr_next(qp, &idx))
		rocx_wqe_bind_mw(qp, idx, qpx->wr_flags, rkey, info);
}

/* UD: the current WQE's destination. */
static void rocx_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);

	if (!qp->wr.cur || !ah) {
		if (!qp->wr.err)
			qp->wr.err = EINVAL;
		return;
	}
	rocx_wqe_set_ud(qp->wr.cur, ah, remote_qpn, remote_qkey);
}

/* XRC: the target SRQ of the current WQE. */
static void rocx_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);

	if (!qp->wr.cur) {
		if (!qp->wr.err)
			qp->wr.err = EINVAL;
		return;
	}
	rocx_wqe_set_xrc_srqn(qp->wr.cur, remote_srqn);
}

/*
 * The data setters replace the current WQE's data; one without a WQE
 * (none started, or it failed) fails the batch.
 */
static struct rocx_send_wqe *rocx_wr_data(struct rocx_qp *qp)
{
	struct rocx_send_wqe *wqe = qp->wr.cur;

	if (!wqe) {
		if (!qp->wr.err)
			qp->wr.err = EINVAL;
		return NULL;
	}
	wqe->ctrl.num_sge = 0;
	wqe->ctrl.inline_len = 0;
	wqe->ctrl.flags &= ~ROCX_WQE_INLINE;
	return wqe;
}

static void rocx_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			    uint64_t addr, uint32_t length)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	struct rocx_send_wqe *wqe = rocx_wr_data(qp);

	if (wqe)
		rocx_wr_fail(qp, rocx_wqe_add_sge(qp, wqe, lkey, addr, length));
}

static void rocx_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				 const struct ibv_sge *sg_list)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	struct rocx_send_wqe *wqe = rocx_wr_data(qp);
	int err = 0;
	size_t i;

	if (!wqe)
		return;
	for (i = 0; i < num_sge && !err; i++)
		err = rocx_wqe_add_sge(qp, wqe, sg_list[i].lkey,
				       sg_list[i].addr, sg_list[i].length);
	rocx_wr_fail(qp, err);
}

static void rocx_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				    size_t length)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	struct rocx_send_wqe *wqe = rocx_wr_data(qp);

	if (wqe)
		rocx_wr_fail(qp, rocx_wqe_add_inline(qp, wqe, addr, length));
}

static void rocx_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					 size_t num_buf,
					 const struct ibv_data_buf *buf_list)
{
	struct rocx_qp *qp = to_rocx_qp_ex(qpx);
	struct rocx_send_wqe *wqe = rocx_wr_data(qp);
	int err = 0;
	size_t i;

	if (!wqe)
		return;
	for (i = 0; i < num_buf && !err; i++)
		err = rocx_wqe_add_inline(qp, wqe, buf_list[i].addr,
					  buf_list[i].length);
	rocx_wr_fail(qp, err);
}

static void rocx_qp_ex_init(struct rocx_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qp->vqp.comp_mask |= VERBS_QP_EX;
	qpx->wr_start = rocx_wr_start;
	qpx->wr_complete = rocx_wr_complete;
	qpx->wr_abort = rocx_wr_abort;
	if (ops & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = rocx_wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = rocx_wr_send_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = rocx_wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = rocx_wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = rocx_wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = rocx_wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = rocx_wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = rocx_wr_send_inv;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = rocx_wr_local_inv;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = rocx_wr_bind_mw;
	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		qpx->wr_set_ud_addr = rocx_wr_set_ud_addr;
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND)
		qpx->wr_set_xrc_srqn = rocx_wr_set_xrc_srqn;
	qpx->wr_set_sge = rocx_wr_set_sge;
	qpx->wr_set_sge_list = rocx_wr_set_sge_list;
	qpx->wr_set_inline_data = rocx_wr_set_inline_data;
	qpx->wr_set_inline_data_list = rocx_wr_set_inline_data_list;
}

struct ibv_qp *rocx_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	uint32_t create_flags = 0;
	uint64_t ops = 0;
	struct ibv_qp *ibqp;

	/* A receive QP is the kernel's, in an XRC domain, without a PD. */
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (!verbs_get_ctx_op(context, open_xrcd)) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		return rocx_xrc_create_recv_qp(context, attr);
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS)
		create_flags = attr->create_flags;
	if (!check_comp_mask(attr->comp_mask, ROCX_QP_EX_COMP_MASK) ||
	    (create_flags && (attr->qp_type != IBV_QPT_UD ||
			      create_flags & ~ROCX_QP_EX_UD_CREATE_FLAGS))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != context) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ops = attr->send_ops_flags;
		/* UC has no READ (nor atomics, nor invalidation); UD SENDs. */
		if (ops & ~ROCX_QP_EX_OPS ||
		    (ops & ROCX_QP_EX_ATOMIC_OPS &&
		     !to_rocx_context(context)->atomic) ||
		    (attr->qp_type == IBV_QPT_UC &&
		     ops & ~ROCX_QP_EX_UC_OPS) ||
		    (attr->qp_type == IBV_QPT_UD &&
		     ops & ~ROCX_QP_EX_UD_OPS)) {
			errno = EOPNOTSUPP;
			return NULL;
		}
	}

	/* ibv_qp_init_attr_ex starts with the fields of ibv_qp_init_attr. */
	ibqp = rocx_create_qp_flags(attr->pd, (struct ibv_qp_init_attr *)attr,
				    create_flags);
	if (ibqp && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		rocx_qp_ex_init(to_rocx_qp(ibqp), ops);
	return ibqp;
}
