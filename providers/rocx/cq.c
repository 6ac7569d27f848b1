// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: completion queues.
 *
 * A CQ is a ring of 2^log_depth struct rocx_cqe in this process's memory
 * (struct rocx_cqe64, with the device clock, for the extended CQs of
 * cq_ex.c that ask for completion timestamps).
 * The device writes entries in order and flips the phase bit it writes on
 * every pass through the ring (1 on the first), so a zeroed ring reads as
 * empty.  It never overwrites an entry the consumer has not returned
 * through the CQ doorbell.
 *
 * Each doorbell is an exit to the device (under TCG, a trip through
 * QEMU's global lock), so a CQ of 16 entries or more gets a ring twice
 * the size it reports, and poll_cq hands entries back only once half the
 * reported size has been consumed: the device then sees at most 1.5 times
 * the reported size in use, never a full ring.  Arming hands back all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "rocx.h"

static inline struct rocx_cqe *rocx_cq_entry(struct rocx_cq *cq, uint32_t ci)
{
	return (struct rocx_cqe *)((uint8_t *)cq->ring +
				   ((size_t)(ci & ((1U << cq->log_depth) - 1))
				    << cq->cqe_shift));
}

/* The entry at @ci if the device has written it, else NULL. */
struct rocx_cqe *rocx_cq_ready(struct rocx_cq *cq, uint32_t ci)
{
	struct rocx_cqe *cqe = rocx_cq_entry(cq, ci);

	/*
	 * A relaxed atomic load, so the compiler reads the device's byte on
	 * every poll instead of reusing an earlier value.
	 */
	if ((atomic_load_explicit((_Atomic(uint8_t) *)&cqe->flags,
				  memory_order_relaxed) & ROCX_CQE_PHASE) !=
	    rocx_ring_phase(ci, cq->log_depth))
		return NULL;
	/* The phase bit is written last: read the rest after seeing it. */
	udma_from_device_barrier();
	return cqe;
}

struct rocx_qp *rocx_find_qp(struct rocx_context *ctx, uint32_t qpn)
{
	struct rocx_qp **tbl;

	tbl = atomic_load_explicit(
		(_Atomic(struct rocx_qp **) *)&ctx->qp_table[(qpn >> ROCX_QP_TABLE_SHIFT) &
							     ROCX_QP_TABLE_MASK],
		memory_order_acquire);
	return tbl ? tbl[qpn & ROCX_QP_TABLE_MASK] : NULL;
}

/*
 * Everything but the ibv_cq/ibv_cq_ex specific parts: the ring (entries
 * of @cqe_format), its lock, and the kernel's CQ.  On failure returns the
 * errno with nothing left allocated.
 */
int rocx_cq_create_common(struct ibv_context *context, struct rocx_cq *cq,
			  struct ibv_cq_init_attr_ex *attr, uint32_t cqe_format)
{
	struct rocx_context *ctx = to_rocx_context(context);
	struct urocx_create_cq_ex_resp resp = {};
	struct urocx_create_cq_ex cmd = {};
	size_t page = sysconf(_SC_PAGESIZE);
	uint32_t cqe = attr->cqe;
	int err;

	/* 2^16 is the contract's bound, max_cqe the device's. */
	if (cqe < 1 || cqe > (1 << 16) || cqe > ctx->max_cqe)
		return EINVAL;
	if (!ctx->db)
		return EOPNOTSUPP;

	cq->log_depth = ilog32(roundup_pow_of_two(cqe < 2 ? 2 : cqe)) - 1;
	cq->cqe_shift = cqe_format == ROCX_CQE_FORMAT_64 ? 6 : 5;
	cq->db_batch = 1;
	/* A ring twice the size only where the device takes one that big. */
	if (cq->log_depth >= 4 && cq->log_depth < 16 &&
	    2U << cq->log_depth <= ctx->max_cqe) {
		cq->db_batch = 1U << (cq->log_depth - 1);
		cq->log_depth++;
	}
	cq->ring_size = align((size_t)1 << (cq->log_depth + cq->cqe_shift),
			      page);
	/*
	 * Not from a parent domain's allocator: destroying the CQ would call
	 * back into the application, whose allocator state may be gone by
	 * then (pyverbs frees it first when a test stops half set up).
	 */
	err = posix_memalign(&cq->ring, page, cq->ring_size);
	if (err)
		return err;
	/* Zero: every entry reads as not yet written on the first pass. */
	memset(cq->ring, 0, cq->ring_size);
	err = ibv_dontfork_range(cq->ring, cq->ring_size);
	if (err)
		goto err_free_ring;
	err = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		goto err_dofork;

	cmd.buf_addr = (uintptr_t)cq->ring;
	cmd.log_depth = cq->log_depth;
	/* A kernel that takes no format has only format 0. */
	if (cqe_format != ROCX_CQE_FORMAT_32) {
		cmd.comp_mask |= ROCX_CREATE_CQ_REQ_CQE_FORMAT;
		cmd.cqe_format = cqe_format;
	}
	err = ibv_cmd_create_cq_ex(context, attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp), 0);
	if (err) {
		verbs_debug(&ctx->ibvctx, "create CQ of %u failed: %s\n", cqe,
			    strerror(err));
		goto err_lock;
	}
	cq->cqn = resp.cqn;
	cq->db = (uint8_t *)ctx->db + ROCX_DB_CQ;
	/* The application may count on the size it asked for, not the ring. */
	if (cq->db_batch > 1)
		cq->ibvcq.cqe = 1 << (cq->log_depth - 1);
	return 0;

err_lock:
	pthread_spin_destroy(&cq->lock);
err_dofork:
	ibv_dofork_range(cq->ring, cq->ring_size);
err_free_ring:
	free(cq->ring);
	return err;
}

struct ibv_cq *rocx_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe < 0 ? 0 : cqe,
		.channel = channel,
		.comp_vector = comp_vector,
	};
	struct rocx_cq *cq;
	int err;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	err = rocx_cq_create_common(context, cq, &attr, ROCX_CQE_FORMAT_32);
	if (err) {
		free(cq);
		errno = err;
		return NULL;
	}
	return &cq->ibvcq;
}

/*
 * Give the device every entry before ci, with @arm; CQ locked.  The device
 * may overwrite those entries as soon as it sees the doorbell, so the loads
 * of them must be complete before it: a load-to-MMIO-store ordering, which
 * neither named barrier gives on every CPU alone.  udma_from_device_barrier()
 * does on arm64 (dmb oshld orders earlier loads before later loads and
 * stores, where the dmb oshst of udma_to_device_barrier() orders stores
 * only), udma_to_device_barrier() does on POWER (sync; the lwsync of the
 * other does not reach the caching-inhibited doorbell page).  x86 never
 * performs a load after a later store.
 */
void rocx_cq_db(struct rocx_cq *cq, uint64_t arm)
{
	udma_from_device_barrier();
	udma_to_device_barrier();
	/* Doorbells are little endian, as every register of the contract. */
	mmio_write64_le(cq->db, htole64(rocx_db_encode(cq->cqn, cq->ci, arm)));
	cq->db_ci = cq->ci;
}

int rocx_destroy_cq(struct ibv_cq *ibcq)
{
	struct rocx_cq *cq = to_rocx_cq(ibcq);
	int err;

	err = ibv_cmd_destroy_cq(ibcq);
	if (err)
		return err;
	pthread_spin_destroy(&cq->lock);
	ibv_dofork_range(cq->ring, cq->ring_size);
	free(cq->ring);
	free(cq);
	return 0;
}

enum ibv_wc_status rocx_wc_status(uint8_t status)
{
	switch (status) {
	case ROCX_WC_SUCCESS:
		return IBV_WC_SUCCESS;
	case ROCX_WC_LOC_LEN_ERR:
		return IBV_WC_LOC_LEN_ERR;
	case ROCX_WC_LOC_QP_OP_ERR:
		return IBV_WC_LOC_QP_OP_ERR;
	case ROCX_WC_LOC_PROT_ERR:
		return IBV_WC_LOC_PROT_ERR;
	case ROCX_WC_WR_FLUSH_ERR:
		return IBV_WC_WR_FLUSH_ERR;
	case ROCX_WC_MW_BIND_ERR:
		return IBV_WC_MW_BIND_ERR;
	case ROCX_WC_BAD_RESP_ERR:
		return IBV_WC_BAD_RESP_ERR;
	case ROCX_WC_LOC_ACCESS_ERR:
		return IBV_WC_LOC_ACCESS_ERR;
	case ROCX_WC_REM_INV_REQ_ERR:
		return IBV_WC_REM_INV_REQ_ERR;
	case ROCX_WC_REM_ACCESS_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	case ROCX_WC_REM_OP_ERR:
		return IBV_WC_REM_OP_ERR;
	case ROCX_WC_RETRY_EXC_ERR:
		return IBV_WC_RETRY_EXC_ERR;
	case ROCX_WC_RNR_RETRY_EXC_ERR:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case ROCX_WC_FATAL_ERR:
		return IBV_WC_FATAL_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

enum ibv_wc_opcode rocx_wc_opcode(uint8_t op)
{
	switch (op) {
	case ROCX_CQE_OP_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case ROCX_CQE_OP_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case ROCX_CQE_OP_COMP_SWAP:
		return IBV_WC_COMP_SWAP;
	case ROCX_CQE_OP_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case ROCX_CQE_OP_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	case ROCX_CQE_OP_BIND_MW:
		return IBV_WC_BIND_MW;
	case ROCX_CQE_OP_RECV:
		return IBV_WC_RECV;
	case ROCX_CQE_OP_RECV_RDMA_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	case ROCX_CQE_OP_SEND:
	default:
		return IBV_WC_SEND;
	}
}

/*
 * The QP and work queue of one CQE, NULL for an entry of a QP that is
 * gone (its entries were marked by rocx_cq_clean()), which is consumed
 * silently.  Retires the entry's WQE (and those before it); the caller
 * reads its wr_id from (*wqp)->wrid first.  CQ locked.
 */
struct rocx_qp *rocx_cqe_qp(struct rocx_context *ctx,
			    const struct rocx_cqe *cqe, struct rocx_wq **wqp)
{
	uint32_t qpn = ROCX_FIELD_GET(ROCX_CQE_QPN_MASK,
				      le32toh(cqe->qpn_op));
	struct rocx_qp *qp;
	struct rocx_wq *wq;

	/* A receive of an XRC SRQ: found by the SRQ, not the target QP. */
	if ((cqe->flags & ROCX_CQE_RECV) &&
	    ROCX_FIELD_GET(ROCX_CQE_EXT_SRQN, le32toh(cqe->ext))) {
		*wqp = NULL;
		return qpn ? rocx_xrc_cqe_qp(ctx, cqe) : NULL;
	}
	qp = qpn ? rocx_find_qp(ctx, qpn) : NULL;
	if (!qp)
		return NULL;
	/* A receive of a QP on an SRQ: no queue of its own (rocx_cqe_wr_id). */
	if ((cqe->flags & ROCX_CQE_RECV) && qp->srq) {
		*wqp = NULL;
		return qp;
	}
	wq = (cqe->flags & ROCX_CQE_RECV) ? &qp->rq : &qp->sq;
	if (!wq->depth)
		return NULL;
	*wqp = wq;
	return qp;
}

/*
 * The wr_id of the entry @cqe completes, which leaves its queue: an SRQ
 * entry is named by its tag, any other by its index in @wq.
 */
uint64_t rocx_cqe_wr_id(struct rocx_qp *qp, struct rocx_wq *wq,
			const struct rocx_cqe *cqe)
{
	if (!wq)
		return rocx_srq_complete(qp->srq, le16toh(cqe->wqe_idx));
	return rocx_wq_retire(wq, le16toh(cqe->wqe_idx));
}

/* Translate one CQE; false for one of a QP that is gone. */
static bool rocx_cqe_to_wc(struct rocx_context *ctx,
			   const struct rocx_cqe *cqe, struct ibv_wc *wc)
{
	uint32_t qpn_op = le32toh(cqe->qpn_op);
	uint32_t src_status = le32toh(cqe->src_qp_status);
	uint32_t qpn = ROCX_FIELD_GET(ROCX_CQE_QPN_MASK, qpn_op);
	struct rocx_qp *qp;
	struct rocx_wq *wq;

	qp = rocx_cqe_qp(ctx, cqe, &wq);
	if (!qp)
		return false;
	wc->wr_id = rocx_cqe_wr_id(qp, wq, cqe);

	wc->status = rocx_wc_status(ROCX_FIELD_GET(ROCX_CQE_STATUS_MASK,
						   src_status));
	wc->opcode = rocx_wc_opcode(ROCX_FIELD_GET(ROCX_CQE_OPCODE_MASK,
						   qpn_op));
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->qp_num = qpn;
	wc->src_qp = ROCX_FIELD_GET(ROCX_CQE_SRC_QP_MASK, src_status);
	wc->wc_flags = 0;
	wc->imm_data = 0;
	if (cqe->flags & ROCX_CQE_WITH_IMM) {
		/* Big endian as on the wire, as ibv_wc keeps it. */
		wc->imm_data = cqe->imm_data;
		wc->wc_flags |= IBV_WC_WITH_IMM;
	} else if (cqe->flags & ROCX_CQE_WITH_INV) {
		wc->invalidated_rkey = be32toh(cqe->imm_data);
		wc->wc_flags |= IBV_WC_WITH_INV;
	}
	if (cqe->flags & ROCX_CQE_GRH)
		wc->wc_flags |= IBV_WC_GRH;
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
	return true;
}

int rocx_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct rocx_context *ctx = to_rocx_context(ibcq->context);
	struct rocx_cq *cq = to_rocx_cq(ibcq);
	struct rocx_cqe *cqe;
	uint32_t start;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	start = cq->ci;
	while (n < ne) {
		cqe = rocx_cq_ready(cq, cq->ci);
		if (!cqe)
			break;
		cq->ci++;
		if (rocx_cqe_to_wc(ctx, cqe, &wc[n]))
			n++;
	}
	/*
	 * Hand the entries back, so that the device never finds the ring full
	 * while the application has polled it empty.
	 */
	if (cq->ci != start && cq->ci - cq->db_ci >= cq->db_batch)
		rocx_cq_db(cq, 0);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int rocx_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct rocx_cq *cq = to_rocx_cq(ibcq);

	/*
	 * The device compares the index with what it has written: an entry
	 * already there signals at once, so none slips between the last poll
	 * and the arm.
	 */
	pthread_spin_lock(&cq->lock);
	/* The arm hands back the entries polled since the last doorbell too. */
	rocx_cq_db(cq, solicited_only ? ROCX_DB_ARM_SOLICITED : ROCX_DB_ARM);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

/*
 * Forget the entries of a QP that is being destroyed or reset: the device
 * writes no more for it, and those it wrote name WQEs that no longer
 * exist.  Marking them with qpn 0 (no RC QP has it) makes poll_cq skip
 * them, also if the qpn is handed to a new QP.  The SRQ entries among them
 * (@srq: the QP's, or NULL) go back to the SRQ.  Called with the CQ locked.
 */
void rocx_cq_clean(struct rocx_cq *cq, uint32_t qpn, struct rocx_srq *srq)
{
	struct rocx_cqe *cqe;
	uint32_t ci, qpn_op;

	for (ci = cq->ci; ci != cq->ci + (1U << cq->log_depth); ci++) {
		cqe = rocx_cq_ready(cq, ci);
		if (!cqe)
			break;
		qpn_op = le32toh(cqe->qpn_op);
		if (ROCX_FIELD_GET(ROCX_CQE_QPN_MASK, qpn_op) != qpn)
			continue;
		cqe->qpn_op = htole32(qpn_op & ~ROCX_CQE_QPN_MASK);
		if (srq && (cqe->flags & ROCX_CQE_RECV))
			rocx_srq_complete(srq, le16toh(cqe->wqe_idx));
	}
}
