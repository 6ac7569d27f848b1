// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: RC, UC and UD queue pairs and the work requests posted to
 * them (the ibv_wr_* API in qp_ex.c builds its WQEs with the builders
 * here).
 *
 * One page-aligned buffer holds the SQ (2^sq_log_depth entries of
 * 2^sq_wqe_shift bytes) and the RQ after it.  A send WQE is a 64-byte
 * struct rocx_send_wqe followed by SGEs or inline data; a receive WQE a
 * 16-byte struct rocx_recv_wqe followed by SGEs.  Each carries its own
 * free-running index (wqe_idx), which the device checks, and is handed
 * over by writing the new producer index to the queue's doorbell.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ccan/minmax.h>
#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "rocx.h"

/* Queue geometry the contract allows (rocx_verbs.h, CREATE_QP). */
#define ROCX_WQ_MAX_LOG_DEPTH	15
#define ROCX_SQ_MIN_WQE_SHIFT	6
#define ROCX_SQ_MAX_WQE_SHIFT	10
#define ROCX_RQ_MIN_WQE_SHIFT	4
#define ROCX_RQ_MAX_WQE_SHIFT	9

/* log2 of the smallest power of two >= @n, @n >= 1. */
static uint32_t rocx_order(uint64_t n)
{
	return ilog64(roundup_pow_of_two(n)) - 1;
}

static void *rocx_wqe(struct rocx_wq *wq, uint16_t idx)
{
	return (uint8_t *)wq->buf + ((size_t)(idx & (wq->depth - 1)) << wq->wqe_shift);
}

/* Entries posted and not yet completed. */
static uint16_t rocx_wq_used(struct rocx_wq *wq)
{
	uint16_t ci = atomic_load_explicit((_Atomic(uint16_t) *)&wq->ci,
					   memory_order_acquire);

	return wq->pi - ci;
}

/*
 * Size the queues for @attr->cap: depths of at least two entries, send
 * WQEs with room for at least one SGE.  Fills @cmd's layout and the queue
 * geometry in @qp.
 */
static int rocx_qp_layout(struct rocx_context *ctx,
			  const struct ibv_qp_init_attr *attr,
			  struct urocx_create_qp *cmd, struct rocx_qp *qp)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	uint32_t send_sge = cap->max_send_sge ? cap->max_send_sge : 1;
	uint32_t recv_sge = cap->max_recv_sge ? cap->max_recv_sge : 1;
	uint32_t sq_bytes, rq_bytes;

	if (cap->max_send_sge > ctx->max_sge ||
	    cap->max_recv_sge > ctx->max_sge ||
	    cap->max_inline_data > ctx->max_inline)
		return EINVAL;
	if (cap->max_send_wr > 1U << ROCX_WQ_MAX_LOG_DEPTH ||
	    cap->max_recv_wr > 1U << ROCX_WQ_MAX_LOG_DEPTH)
		return EINVAL;

	sq_bytes = ROCX_SEND_WQE_HDR +
		   max_t(uint32_t, send_sge * sizeof(struct rocx_sge),
			 cap->max_inline_data);
	cmd->sq_log_depth = rocx_order(max_t(uint32_t, cap->max_send_wr, 2));
	cmd->sq_wqe_shift = max_t(uint32_t, rocx_order(sq_bytes),
				  ROCX_SQ_MIN_WQE_SHIFT);
	if (cmd->sq_wqe_shift > ROCX_SQ_MAX_WQE_SHIFT)
		return EINVAL;

	/* No receives wanted: no RQ at all (rq_log_depth 0). */
	if (cap->max_recv_wr) {
		rq_bytes = ROCX_RECV_WQE_HDR + recv_sge * sizeof(struct rocx_sge);
		cmd->rq_log_depth = rocx_order(max_t(uint32_t,
						     cap->max_recv_wr, 2));
		cmd->rq_wqe_shift = max_t(uint32_t, rocx_order(rq_bytes),
					  ROCX_RQ_MIN_WQE_SHIFT);
		if (cmd->rq_wqe_shift > ROCX_RQ_MAX_WQE_SHIFT)
			return EINVAL;
	}

	qp->sq.depth = 1U << cmd->sq_log_depth;
	qp->sq.wqe_shift = cmd->sq_wqe_shift;
	qp->rq.depth = cmd->rq_log_depth ? 1U << cmd->rq_log_depth : 0;
	qp->rq.wqe_shift = cmd->rq_wqe_shift;
	qp->buf_size = ((size_t)qp->sq.depth << qp->sq.wqe_shift) +
		       ((size_t)qp->rq.depth << qp->rq.wqe_shift);
	/* Posts that need no doorbell while the device polls the record. */
	if (ctx->qp_req_comp & ROCX_CREATE_QP_REQ_DB_RECORD) {
		cmd->comp_mask |= ROCX_CREATE_QP_REQ_DB_RECORD;
		qp->buf_size += ROCX_DB_RECORD_SIZE;
	}
	return 0;
}

static int rocx_wq_init(struct rocx_wq *wq, void *buf, void *db)
{
	wq->buf = buf;
	wq->db = db;
	wq->pi = 0;
	wq->ci = 0;
	if (wq->depth) {
		wq->wrid = calloc(wq->depth, sizeof(*wq->wrid));
		if (!wq->wrid)
			return ENOMEM;
	}
	return pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
}

static void rocx_wq_destroy(struct rocx_wq *wq)
{
	pthread_spin_destroy(&wq->lock);
	free(wq->wrid);
}

/* Lock the CQs of @qp (one or two), in a fixed order. */
static void rocx_lock_cqs(struct rocx_qp *qp)
{
	struct rocx_cq *scq = to_rocx_cq(qp->vqp.qp.send_cq);
	/* An XRC send QP has no receive CQ. */
	struct rocx_cq *rcq = qp->vqp.qp.recv_cq ?
			      to_rocx_cq(qp->vqp.qp.recv_cq) : scq;

	if (scq == rcq) {
		pthread_spin_lock(&scq->lock);
	} else if (scq < rcq) {
		pthread_spin_lock(&scq->lock);
		pthread_spin_lock(&rcq->lock);
	} else {
		pthread_spin_lock(&rcq->lock);
		pthread_spin_lock(&scq->lock);
	}
}

static void rocx_unlock_cqs(struct rocx_qp *qp)
{
	struct rocx_cq *scq = to_rocx_cq(qp->vqp.qp.send_cq);
	struct rocx_cq *rcq = qp->vqp.qp.recv_cq ?
			      to_rocx_cq(qp->vqp.qp.recv_cq) : scq;

	pthread_spin_unlock(&scq->lock);
	if (rcq != scq)
		pthread_spin_unlock(&rcq->lock);
}

static int rocx_qp_table_set(struct rocx_context *ctx, uint32_t qpn,
			     struct rocx_qp *qp)
{
	uint32_t top = (qpn >> ROCX_QP_TABLE_SHIFT) & ROCX_QP_TABLE_MASK;
	struct rocx_qp **tbl = ctx->qp_table[top];

	if (!tbl) {
		if (!qp)
			return 0;
		tbl = calloc(ROCX_QP_TABLE_SIZE, sizeof(*tbl));
		if (!tbl)
			return ENOMEM;
		/* poll_cq reads the pointer without the mutex. */
		atomic_store_explicit(
			(_Atomic(struct rocx_qp **) *)&ctx->qp_table[top], tbl,
			memory_order_release);
	}
	tbl[qpn & ROCX_QP_TABLE_MASK] = qp;
	return 0;
}

/* Forget @qp's entry, and nothing else's: only if it still points at @qp. */
static void rocx_qp_table_clear(struct rocx_context *ctx, struct rocx_qp *qp)
{
	if (rocx_find_qp(ctx, qp->qpn) == qp)
		rocx_qp_table_set(ctx, qp->qpn, NULL);
}

/*
 * Create flags travel only in the extended command: the legacy one has no
 * field for them.  The driver data is the same in both.
 */
static int rocx_cmd_create_qp_flags(struct ibv_pd *pd, struct rocx_qp *qp,
				    struct ibv_qp_init_attr *attr,
				    uint32_t create_flags,
				    const struct urocx_create_qp *cmd,
				    struct urocx_create_qp_resp *resp)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = pd,
		.create_flags = create_flags,
	};
	struct urocx_create_qp_ex_resp resp_ex = {};
	struct urocx_create_qp_ex cmd_ex = {};
	int err;

	cmd_ex.drv_payload = cmd->drv_payload;
	err = ibv_cmd_create_qp_ex2(pd->context, &qp->vqp, &attr_ex,
				    &cmd_ex.ibv_cmd, sizeof(cmd_ex),
				    &resp_ex.ibv_resp, sizeof(resp_ex));
	if (err)
		return err;
	attr->cap = attr_ex.cap;
	resp->drv_payload = resp_ex.drv_payload;
	return 0;
}

struct ibv_qp *rocx_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	return rocx_create_qp_flags(pd, attr, 0);
}

struct ibv_qp *rocx_create_qp_flags(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr,
				    uint32_t create_flags)
{
	struct rocx_context *ctx = to_rocx_context(pd->context);
	struct urocx_create_qp_resp resp = {};
	struct urocx_create_qp cmd = {};
	size_t page = sysconf(_SC_PAGESIZE);
	struct ibv_qp_init_attr layout = *attr;
	struct rocx_qp *qp;
	size_t sq_size;
	int err;

	/*
	 * The kernel refuses UC and UD if the device lacks their caps2 bits,
	 * and an SRQ for anything but RC.
	 */
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD && attr->qp_type != IBV_QPT_XRC_SEND) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!ctx->db) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	/* An XRC send QP has no receive side at all. */
	if (attr->qp_type == IBV_QPT_XRC_SEND) {
		layout.cap.max_recv_wr = 0;
		layout.cap.max_recv_sge = 0;
	}
	/* On an SRQ: no RQ, whatever receive capabilities were asked for. */
	if (attr->srq) {
		layout.cap.max_recv_wr = 0;
		layout.cap.max_recv_sge = 0;
		qp->srq = to_rocx_srq(attr->srq);
	}
	err = rocx_qp_layout(ctx, &layout, &cmd, qp);
	if (err)
		goto err_free;
	qp->buf_size = align(qp->buf_size, page);
	err = rocx_pd_alloc(pd, qp->buf_size, page, ROCX_RES_TYPE_QP, &qp->buf,
			    &qp->buf_custom);
	if (err)
		goto err_free;
	memset(qp->buf, 0, qp->buf_size);
	err = ibv_dontfork_range(qp->buf, qp->buf_size);
	if (err)
		goto err_free_buf;

	sq_size = (size_t)qp->sq.depth << qp->sq.wqe_shift;
	err = rocx_wq_init(&qp->sq, qp->buf, (uint8_t *)ctx->db + ROCX_DB_SQ);
	if (err)
		goto err_dofork;
	if (cmd.comp_mask & ROCX_CREATE_QP_REQ_DB_RECORD)
		qp->sq.dbrec = (void *)((uint8_t *)qp->buf + sq_size +
					((size_t)qp->rq.depth <<
					 qp->rq.wqe_shift));
	err = rocx_wq_init(&qp->rq, (uint8_t *)qp->buf + sq_size,
			   (uint8_t *)ctx->db + ROCX_DB_RQ);
	if (err)
		goto err_sq;

	cmd.buf_addr = (uintptr_t)qp->buf;
	if (create_flags)
		err = rocx_cmd_create_qp_flags(pd, qp, attr, create_flags,
					       &cmd, &resp);
	else
		err = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd.ibv_cmd,
					sizeof(cmd), &resp.ibv_resp,
					sizeof(resp));
	if (err) {
		verbs_debug(&ctx->ibvctx, "create QP failed: %s\n",
			    strerror(err));
		goto err_rq;
	}
	/* libibverbs copied the real capabilities into attr->cap. */
	qp->qpn = resp.qpn;
	qp->max_inline = resp.max_inline;
	qp->sq.max_sge = attr->cap.max_send_sge;
	qp->rq.max_sge = attr->cap.max_recv_sge;
	qp->sq_sig_all = attr->sq_sig_all;

	pthread_mutex_lock(&ctx->qp_table_mutex);
	rocx_lock_cqs(qp);
	err = rocx_qp_table_set(ctx, qp->qpn, qp);
	rocx_unlock_cqs(qp);
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	if (err)
		goto err_destroy;
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_rq:
	rocx_wq_destroy(&qp->rq);
err_sq:
	rocx_wq_destroy(&qp->sq);
err_dofork:
	ibv_dofork_range(qp->buf, qp->buf_size);
err_free_buf:
	rocx_pd_free(pd, qp->buf, ROCX_RES_TYPE_QP, qp->buf_custom);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

/*
 * Back in RESET the device has forgotten the queues (both start again at
 * index 0) and the completions it wrote for them.
 */
static void rocx_qp_reset(struct rocx_qp *qp)
{
	rocx_lock_cqs(qp);
	rocx_cq_clean(to_rocx_cq(qp->vqp.qp.send_cq), qp->qpn, qp->srq);
	if (qp->vqp.qp.recv_cq && qp->vqp.qp.recv_cq != qp->vqp.qp.send_cq)
		rocx_cq_clean(to_rocx_cq(qp->vqp.qp.recv_cq), qp->qpn, qp->srq);
	pthread_spin_lock(&qp->sq.lock);
	qp->sq.pi = 0;
	qp->sq.ci = 0;
	/* The device's indices start again too, and it cleared POLL. */
	if (qp->sq.dbrec)
		qp->sq.dbrec->sq_pi = 0;
	pthread_spin_unlock(&qp->sq.lock);
	pthread_spin_lock(&qp->rq.lock);
	qp->rq.pi = 0;
	qp->rq.ci = 0;
	pthread_spin_unlock(&qp->rq.lock);
	rocx_unlock_cqs(qp);
}

int rocx_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct ibv_modify_qp cmd;
	int err;

	/* The legacy command has no room for it (sched.c). */
	if (attr_mask & IBV_QP_RATE_LIMIT)
		err = rocx_modify_qp_ex(ibqp, attr, attr_mask);
	else
		err = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd,
					sizeof(cmd));
	if (err)
		return err;
	/* An XRC receive QP has no queues or CQs to forget. */
	if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET &&
	    ibqp->qp_type != IBV_QPT_XRC_RECV)
		rocx_qp_reset(to_rocx_qp(ibqp));
	return 0;
}

int rocx_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int rocx_destroy_qp(struct ibv_qp *ibqp)
{
	struct rocx_context *ctx = to_rocx_context(ibqp->context);
	struct rocx_qp *qp = to_rocx_qp(ibqp);
	int err;

	if (ibqp->qp_type == IBV_QPT_XRC_RECV)
		return rocx_xrc_destroy_recv_qp(ibqp);
	/*
	 * The device may hand the qpn out again once the kernel has
	 * destroyed the QP (a 1.1 device at once, one with QPN_ROTATE when
	 * its 24-bit numbers wrap).  Holding the table mutex from before
	 * that until the entry is gone keeps a create in another thread,
	 * which may get this qpn, from storing its QP before we clear ours
	 * (and from having CQEs that rocx_cq_clean() would take for ours).
	 */
	pthread_mutex_lock(&ctx->qp_table_mutex);
	/* First the device: afterwards it writes no CQE for the QP. */
	err = ibv_cmd_destroy_qp(ibqp);
	if (err) {
		pthread_mutex_unlock(&ctx->qp_table_mutex);
		return err;
	}
	rocx_lock_cqs(qp);
	rocx_qp_table_clear(ctx, qp);
	rocx_cq_clean(to_rocx_cq(ibqp->send_cq), qp->qpn, qp->srq);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		rocx_cq_clean(to_rocx_cq(ibqp->recv_cq), qp->qpn, qp->srq);
	rocx_unlock_cqs(qp);
	pthread_mutex_unlock(&ctx->qp_table_mutex);

	rocx_wq_destroy(&qp->rq);
	rocx_wq_destroy(&qp->sq);
	ibv_dofork_range(qp->buf, qp->buf_size);
	rocx_pd_free(ibqp->pd, qp->buf, ROCX_RES_TYPE_QP, qp->buf_custom);
	free(qp);
	return 0;
}

void rocx_wqe_sges(struct rocx_sge *dst, const struct ibv_sge *src, int n)
{
	int i;

	for (i = 0; i < n; i++)
		rocx_sge_set(&dst[i], src[i].addr, src[i].length, src[i].lkey);
}

/*
 * ---- Send WQE builders ----
 *
 * One function per opcode starts a WQE: header and operation segment.
 * post_send below and the ibv_wr_* functions of qp_ex.c both build every
 * WQE through them, and then add its data with rocx_wqe_add_sge() or
 * rocx_wqe_add_inline(); an opcode is added to both by adding its
 * builder here.
 */

/* The WQE at @idx with its control segment; the rest of the header zero. */
struct rocx_send_wqe *rocx_wqe_start(struct rocx_qp *qp, uint16_t idx,
				     uint8_t opcode, unsigned int send_flags)
{
	struct rocx_send_wqe *wqe = rocx_wqe(&qp->sq, idx);
	uint8_t flags = 0;

	if (send_flags & IBV_SEND_SIGNALED || qp->sq_sig_all)
		flags |= ROCX_WQE_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		flags |= ROCX_WQE_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		flags |= ROCX_WQE_FENCE;
	memset(wqe, 0, ROCX_SEND_WQE_HDR);
	wqe->ctrl.opcode = opcode;
	wqe->ctrl.flags = flags;
	wqe->ctrl.wqe_idx = htole16(idx);
	return wqe;
}

struct rocx_send_wqe *rocx_wqe_send(struct rocx_qp *qp, uint16_t idx,
				    unsigned int send_flags)
{
	return rocx_wqe_start(qp, idx, ROCX_WQE_SEND, send_flags);
}

/* @imm is big endian in both the verbs and the WQE, as on the wire. */
struct rocx_send_wqe *rocx_wqe_send_imm(struct rocx_qp *qp, uint16_t idx,
					unsigned int send_flags, __be32 imm)
{
	struct rocx_send_wqe *wqe = rocx_wqe_start(qp, idx, ROCX_WQE_SEND_IMM,
						   send_flags);

	wqe->ctrl.imm_data = imm;
	return wqe;
}

struct rocx_send_wqe *rocx_wqe_rdma_write(struct rocx_qp *qp, uint16_t idx,
					  unsigned int send_flags,
					  uint32_t rkey, uint64_t raddr)
{
	struct rocx_send_wqe *wqe = rocx_wqe_start(qp, idx,
						   ROCX_WQE_RDMA_WRITE,
						   send_flags);

	rocx_wqe_raddr_set(&wqe->rdma, raddr, rkey);
	return wqe;
}

struct rocx_send_wqe *rocx_wqe_rdma_write_imm(struct rocx_qp *qp,
					      uint16_t idx,
					      unsigned int send_flags,
					      uint32_t rkey, uint64_t raddr,
					      __be32 imm)
{
	struct rocx_send_wqe *wqe = rocx_wqe_start(qp, idx,
						   ROCX_WQE_RDMA_WRITE_IMM,
						   send_flags);

	rocx_wqe_raddr_set(&wqe->rdma, raddr, rkey);
	wqe->ctrl.imm_data = imm;
	return wqe;
}

struct rocx_send_wqe *rocx_wqe_rdma_read(struct rocx_qp *qp, uint16_t idx,
					 unsigned int send_flags,
					 uint32_t rkey, uint64_t raddr)
{
	struct rocx_send_wqe *wqe = rocx_wqe_start(qp, idx,
						   ROCX_WQE_RDMA_READ,
						   send_flags);

	rocx_wqe_raddr_set(&wqe->rdma, raddr, rkey);
	return wqe;
}

/* @rkey: the R_Key the responder invalidates when the SEND arrives. */
struct rocx_send_wqe *rocx_wqe_send_inv(struct rocx_qp *qp, uint16_t idx,
					unsigned int send_flags, uint32_t rkey)
{
	struct rocx_send_wqe *wqe = rocx_wqe_start(qp, idx, ROCX_WQE_SEND_INV,
						   send_flags);

	/* The key to invalidate: big endian in the WQE, as ImmDt. */
	wqe->ctrl.imm_data = htobe32(rkey);
	return wqe;
}

/* No data follows: SGEs and inline data do not apply. */
struct rocx_send_wqe *rocx_wqe_local_inv(struct rocx_qp *qp, uint16_t idx,
					 unsigned int send_flags, uint32_t rkey)
{
	struct rocx_send_wqe *wqe = rocx_wqe_start(qp, idx, ROCX_WQE_LOCAL_INV,
						   send_flags);

	wqe->ctrl.imm_data = htobe32(rkey);
	return wqe;
}

/*
 * UD: the destination of a SEND.  Bit 31 of the Q_Key (the QP's own)
 * means the same to the device.
 */
void rocx_wqe_set_ud(struct rocx_send_wqe *wqe, struct ibv_ah *ah,
		     uint32_t remote_qpn, uint32_t remote_qkey)
{
	rocx_wqe_ud_set(&wqe->ud, remote_qpn, remote_qkey, &to_rocx_ah(ah)->av);
}

/* Append one SGE to @wqe's list. */
int rocx_wqe_add_sge(struct rocx_qp *qp, struct rocx_send_wqe *wqe,
		     uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct rocx_sge *sge;

	if (wqe->ctrl.flags & ROCX_WQE_INLINE ||
	    wqe->ctrl.num_sge >= qp->sq.max_sge)
		return EINVAL;
	if (rocx_wqe_is_atomic(wqe) &&
	    (wqe->ctrl.num_sge || length != ROCX_ATOMIC_SIZE))
		return EINVAL;
	sge = (struct rocx_sge *)((uint8_t *)wqe + ROCX_SEND_WQE_HDR) +
	      wqe->ctrl.num_sge;
	rocx_sge_set(sge, addr, length, lkey);
	wqe->ctrl.num_sge++;
	return 0;
}

/* Append @length bytes at @data to @wqe's inline data. */
int rocx_wqe_add_inline(struct rocx_qp *qp, struct rocx_send_wqe *wqe,
			const void *data, size_t length)
{
	uint32_t len = le32toh(wqe->ctrl.inline_len);

	/* A READ would have the device write into the WQE: no. */
	if (wqe->ctrl.opcode == ROCX_WQE_RDMA_READ || rocx_wqe_is_atomic(wqe) ||
	    wqe->ctrl.num_sge || length > qp->max_inline - len)
		return EINVAL;
	memcpy((uint8_t *)wqe + ROCX_SEND_WQE_HDR + len, data, length);
	wqe->ctrl.inline_len = htole32(len + length);
	wqe->ctrl.flags |= ROCX_WQE_INLINE;
	return 0;
}

/* Whether a UC QP sends @op (SEND and RDMA WRITE, with immediate). */
bool rocx_uc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return true;
	default:
		return false;
	}
}

/* The WQE post_send builds for @wr, at @idx. */
static int rocx_build_send_wqe(struct rocx_qp *qp,
			       const struct ibv_send_wr *wr, uint16_t idx)
{
	unsigned int flags = wr->send_flags;
	struct rocx_send_wqe *wqe;
	int i, err = 0;

	if (wr->num_sge < 0)
		return EINVAL;
	/* UC's transport has no READ, atomics or invalidation. */
	if (qp->vqp.qp.qp_type == IBV_QPT_UC && !rocx_uc_opcode(wr->opcode))
		return EINVAL;
	/* UD sends only SENDs, each to the AH of its work request. */
	if (qp->vqp.qp.qp_type == IBV_QPT_UD &&
	    ((wr->opcode != IBV_WR_SEND &&
	      wr->opcode != IBV_WR_SEND_WITH_IMM) || !wr->wr.ud.ah))
		return EINVAL;
	switch (wr->opcode) {
	case IBV_WR_SEND:
		wqe = rocx_wqe_send(qp, idx, flags);
		break;
	case IBV_WR_SEND_WITH_IMM:
		wqe = rocx_wqe_send_imm(qp, idx, flags, wr->imm_data);
		break;
	case IBV_WR_RDMA_WRITE:
		wqe = rocx_wqe_rdma_write(qp, idx, flags, wr->wr.rdma.rkey,
					  wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe = rocx_wqe_rdma_write_imm(qp, idx, flags, wr->wr.rdma.rkey,
					      wr->wr.rdma.remote_addr,
					      wr->imm_data);
		break;
	case IBV_WR_RDMA_READ:
		wqe = rocx_wqe_rdma_read(qp, idx, flags, wr->wr.rdma.rkey,
					 wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		/* One 8-byte SGE for the original value (atomic.c). */
		if (wr->num_sge != 1 || (flags & IBV_SEND_INLINE))
			return EINVAL;
		if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP)
			wqe = rocx_wqe_atomic_cmp_swp(qp, idx, flags,
						      wr->wr.atomic.rkey,
						      wr->wr.atomic.remote_addr,
						      wr->wr.atomic.compare_add,
						      wr->wr.atomic.swap);
		else
			wqe = rocx_wqe_atomic_fetch_add(qp, idx, flags,
							wr->wr.atomic.rkey,
							wr->wr.atomic.remote_addr,
							wr->wr.atomic.compare_add);
		if (!wqe)
			return EINVAL;
		/* An XRC target's SRQ and the SGE as for any other WQE. */
		break;
	/* Memory windows (ROCX_CAP2_MW; a device without it fails the WQE). */
	case IBV_WR_SEND_WITH_INV:
		wqe = rocx_wqe_send_inv(qp, idx, flags, wr->invalidate_rkey);
		break;
	case IBV_WR_LOCAL_INV:
		rocx_wqe_local_inv(qp, idx, flags, wr->invalidate_rkey);
		return 0;
	case IBV_WR_BIND_MW:
		rocx_wqe_bind_mw(qp, idx, flags, wr->bind_mw.rkey,
				 &wr->bind_mw.bind_info);
		return 0;
	default:
		/* Anything else: not in the contract. */
		return EINVAL;
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		rocx_wqe_set_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				wr->wr.ud.remote_qkey);
	/* XRC: the SRQ at the target that receives it (xrc.c). */
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND)
		rocx_wqe_set_xrc_srqn(wqe, wr->qp_type.xrc.remote_srqn);

	if (flags & IBV_SEND_INLINE) {
		if (wr->opcode == IBV_WR_RDMA_READ)
			return EINVAL;
		for (i = 0; i < wr->num_sge && !err; i++)
			err = rocx_wqe_add_inline(qp, wqe,
				(void *)(uintptr_t)wr->sg_list[i].addr,
				wr->sg_list[i].length);
		return err;
	}
	/* An atomic's one SGE takes the original value: 8 bytes (atomic.c). */
	if (rocx_wqe_is_atomic(wqe))
		return rocx_wqe_add_sge(qp, wqe, wr->sg_list[0].lkey,
					wr->sg_list[0].addr,
					wr->sg_list[0].length);
	if ((uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	rocx_wqe_sges((struct rocx_sge *)((uint8_t *)wqe + ROCX_SEND_WQE_HDR),
		      wr->sg_list, wr->num_sge);
	wqe->ctrl.num_sge = wr->num_sge;
	return 0;
}

/* Whether the SQ has no room for a WQE at @pi; SQ locked. */
bool rocx_sq_full(struct rocx_wq *sq, uint16_t pi)
{
	uint16_t ci = atomic_load_explicit((_Atomic(uint16_t) *)&sq->ci,
					   memory_order_acquire);

	return (uint16_t)(pi - ci) >= sq->depth;
}

/*
 * A full fence: stores before it are visible before loads after it.  On
 * x86 it must be MFENCE.  Compilers fence with a LOCK-prefixed no-op
 * instead, which orders on hardware, but QEMU's TCG with a single vCPU
 * runs LOCK-prefixed instructions as plain loads and stores with no
 * barrier (it needs no atomicity without parallel vCPUs), while it
 * always honours MFENCE: the device's thread would then miss a post.
 */
static inline void rocx_full_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
	asm volatile("mfence" ::: "memory");
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

/*
 * Whether the device reads the SQ's doorbell record on its own, once @pi
 * is in it: then no doorbell is needed (rocx-device.rst, "Doorbell
 * records").
 */
static bool rocx_sq_record(struct rocx_wq *sq, uint16_t pi)
{
	struct rocx_db_record *r = sq->dbrec;

	atomic_store_explicit((_Atomic(uint32_t) *)&r->sq_pi, htole32(pi),
			      memory_order_relaxed);
	/*
	 * The store before the load: the device clears POLL and then reads
	 * sq_pi, so either it sees this index or this sees POLL clear.
	 */
	rocx_full_fence();
	return le32toh(atomic_load_explicit((_Atomic(uint32_t) *)&r->flags,
					    memory_order_relaxed)) &
	       ROCX_DB_RECORD_POLL;
}

/* Hand the WQEs up to @pi to the device; SQ locked. */
void rocx_sq_ring(struct rocx_qp *qp, uint16_t pi)
{
	struct rocx_wq *sq = &qp->sq;

	sq->pi = pi;
	/* The WQEs must be in memory before the device hears of them. */
	udma_to_device_barrier();
	if (sq->dbrec && rocx_sq_record(sq, pi))
		return;
	mmio_write64_le(sq->db, htole64(rocx_db_encode(qp->qpn, sq->pi, 0)));
}

int rocx_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct rocx_qp *qp = to_rocx_qp(ibqp);
	struct rocx_wq *sq = &qp->sq;
	uint16_t pi;
	int err = 0;

	/* Before RTS nothing would go out; in ERR the device flushes. */
	switch (ibqp->state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		*bad_wr = wr;
		return EINVAL;
	default:
		break;
	}

	pthread_spin_lock(&sq->lock);
	pi = sq->pi;
	for (; wr; wr = wr->next) {
		if (rocx_sq_full(sq, pi)) {
			err = ENOMEM;
			break;
		}
		err = rocx_build_send_wqe(qp, wr, pi);
		if (err)
			break;
		sq->wrid[pi & (sq->depth - 1)] = wr->wr_id;
		pi++;
	}
	if (err)
		*bad_wr = wr;
	if (pi != sq->pi)
		rocx_sq_ring(qp, pi);
	pthread_spin_unlock(&sq->lock);
	return err;
}

int rocx_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct rocx_qp *qp = to_rocx_qp(ibqp);
	struct rocx_wq *rq = &qp->rq;
	struct rocx_recv_wqe *wqe;
	uint16_t posted = 0;
	int err = 0;

	if (ibqp->state == IBV_QPS_RESET || !rq->depth) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&rq->lock);
	for (; wr; wr = wr->next) {
		if (rocx_wq_used(rq) >= rq->depth) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge) {
			err = EINVAL;
			break;
		}
		wqe = rocx_wqe(rq, rq->pi);
		memset(wqe, 0, ROCX_RECV_WQE_HDR);
		wqe->num_sge = wr->num_sge;
		wqe->wqe_idx = htole16(rq->pi);
		rocx_wqe_sges((struct rocx_sge *)((uint8_t *)wqe +
						  ROCX_RECV_WQE_HDR),
			      wr->sg_list, wr->num_sge);
		rq->wrid[rq->pi & (rq->depth - 1)] = wr->wr_id;
		rq->pi++;
		posted++;
	}
	if (err)
		*bad_wr = wr;
	if (posted) {
		udma_to_device_barrier();
		mmio_write64_le(rq->db,
				htole64(rocx_db_encode(qp->qpn, rq->pi, 0)));
	}
	pthread_spin_unlock(&rq->lock);
	return err;
}
