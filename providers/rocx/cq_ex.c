// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: extended CQs (ibv_create_cq_ex) and their polling API.
 *
 * The ring and its rules are those of cq.c.  ibv_start_poll() takes the
 * CQ lock and the first entry, ibv_next_poll() the following ones, and
 * the read functions decode fields of the current entry on demand, so a
 * poll loop that reads little pays for little.  ibv_end_poll() hands the
 * entries back to the device as poll_cq does, and drops the lock.
 *
 * A CQ asked for IBV_WC_EX_WITH_COMPLETION_TIMESTAMP gets a ring of
 * 64-byte entries (struct rocx_cqe64), where the device writes its clock:
 * free-running nanoseconds (hca_core_clock 1000000 kHz).  Where the
 * clock is readable from the doorbell page (clock.c), the same entries
 * give IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <util/udma_barrier.h>

#include "rocx.h"

/* What the read functions can tell, and the creation flags taken. */
#define ROCX_CQ_EX_WC_FLAGS	(IBV_WC_STANDARD_FLAGS)
#define ROCX_CQ_EX_CREATE_FLAGS	(IBV_CREATE_CQ_ATTR_SINGLE_THREADED)

static inline struct rocx_cq *to_rocx_cq_ex(struct ibv_cq_ex *cqx)
{
	return container_of(cqx, struct rocx_cq, vcq.cq_ex);
}

static void rocx_cq_ex_lock(struct rocx_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
}

static void rocx_cq_ex_unlock(struct rocx_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
}

/*
 * The next entry of a live QP into the current one: wr_id and status
 * for the caller, the rest for the read functions.  ENOENT when the ring
 * holds no more.
 */
static int rocx_cq_ex_next(struct rocx_cq *cq)
{
	struct rocx_context *ctx = to_rocx_context(cq->ibvcq.context);
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct rocx_cqe *cqe;
	struct rocx_qp *qp;
	struct rocx_wq *wq;

	for (;;) {
		cqe = rocx_cq_ready(cq, cq->ci);
		if (!cqe)
			return ENOENT;
		cq->ci++;
		qp = rocx_cqe_qp(ctx, cqe, &wq);
		if (qp)
			break;
	}
	cq->cur_cqe = cqe;
	cqx->wr_id = rocx_cqe_wr_id(qp, wq, cqe);
	cqx->status = rocx_wc_status(ROCX_FIELD_GET(ROCX_CQE_STATUS_MASK,
						    le32toh(cqe->src_qp_status)));
	return 0;
}

/*
 * As poll_cq: hand the entries consumed back in batches, never leaving
 * the ring full; then unlock.
 */
static void rocx_cq_ex_release(struct rocx_cq *cq)
{
	if (cq->ci != cq->poll_start && cq->ci - cq->db_ci >= cq->db_batch)
		rocx_cq_db(cq, 0);
	cq->cur_cqe = NULL;
	rocx_cq_ex_unlock(cq);
}

static int rocx_start_poll(struct ibv_cq_ex *cqx,
			   struct ibv_poll_cq_attr *attr)
{
	struct rocx_cq *cq = to_rocx_cq_ex(cqx);
	int err;

	/* No poll attributes are defined; refuse what cannot be honoured. */
	if (attr->comp_mask)
		return EINVAL;
	rocx_cq_ex_lock(cq);
	cq->poll_start = cq->ci;
	err = rocx_cq_ex_next(cq);
	/*
	 * ibv_end_poll() is not called after a failed start; entries of
	 * destroyed QPs it skipped go back all the same.
	 */
	if (err)
		rocx_cq_ex_release(cq);
	return err;
}

static int rocx_next_poll(struct ibv_cq_ex *cqx)
{
	return rocx_cq_ex_next(to_rocx_cq_ex(cqx));
}

static void rocx_end_poll(struct ibv_cq_ex *cqx)
{
	rocx_cq_ex_release(to_rocx_cq_ex(cqx));
}

static enum ibv_wc_opcode rocx_wc_read_opcode(struct ibv_cq_ex *cqx)
{
	const struct rocx_cqe *cqe = to_rocx_cq_ex(cqx)->cur_cqe;

	return rocx_wc_opcode(ROCX_FIELD_GET(ROCX_CQE_OPCODE_MASK,
					     le32toh(cqe->qpn_op)));
}

static uint32_t rocx_wc_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return to_rocx_cq_ex(cqx)->cur_cqe->vendor_err;
}

static uint32_t rocx_wc_read_byte_len(struct ibv_cq_ex *cqx)
{
	return le32toh(to_rocx_cq_ex(cqx)->cur_cqe->byte_len);
}

/*
 * Immediate data, or the invalidated rkey (ibv_wc_read_invalidated_rkey()
 * reads it here too), big endian as ibv_wc keeps imm_data.
 */
static __be32 rocx_wc_read_imm_data(struct ibv_cq_ex *cqx)
{
	const struct rocx_cqe *cqe = to_rocx_cq_ex(cqx)->cur_cqe;

	/* The rkey in host order, as ibv_wc.invalidated_rkey has it. */
	if (cqe->flags & ROCX_CQE_WITH_INV)
		return (__be32)be32toh(cqe->imm_data);
	return cqe->flags & ROCX_CQE_WITH_IMM ? cqe->imm_data : 0;
}

static uint32_t rocx_wc_read_qp_num(struct ibv_cq_ex *cqx)
{
	return ROCX_FIELD_GET(ROCX_CQE_QPN_MASK,
			      le32toh(to_rocx_cq_ex(cqx)->cur_cqe->qpn_op));
}

static uint32_t rocx_wc_read_src_qp(struct ibv_cq_ex *cqx)
{
	return ROCX_FIELD_GET(ROCX_CQE_SRC_QP_MASK,
			      le32toh(to_rocx_cq_ex(cqx)->cur_cqe->src_qp_status));
}

static unsigned int rocx_wc_read_wc_flags(struct ibv_cq_ex *cqx)
{
	const struct rocx_cqe *cqe = to_rocx_cq_ex(cqx)->cur_cqe;
	unsigned int flags = 0;

	if (cqe->flags & ROCX_CQE_WITH_IMM)
		flags |= IBV_WC_WITH_IMM;
	else if (cqe->flags & ROCX_CQE_WITH_INV)
		flags |= IBV_WC_WITH_INV;
	if (cqe->flags & ROCX_CQE_GRH)
		flags |= IBV_WC_GRH;
	return flags;
}

/* RoCE has no LIDs; SL and path bits are 0 until priorities land. */
static uint32_t rocx_wc_read_slid(struct ibv_cq_ex *cqx)
{
	return 0;
}

static uint8_t rocx_wc_read_sl(struct ibv_cq_ex *cqx)
{
	return 0;
}

static uint8_t rocx_wc_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return 0;
}

/* The device clock when the device wrote the entry, in ns. */
static uint64_t rocx_wc_read_completion_ts(struct ibv_cq_ex *cqx)
{
	const struct rocx_cqe64 *e = container_of(to_rocx_cq_ex(cqx)->cur_cqe,
						  struct rocx_cqe64, cqe);

	return le64toh(e->timestamp);
}

/* The same as CLOCK_REALTIME ns (clock.c). */
static uint64_t rocx_wc_read_completion_wallclock_ns(struct ibv_cq_ex *cqx)
{
	return rocx_cq_wallclock_ns(to_rocx_cq_ex(cqx),
				    rocx_wc_read_completion_ts(cqx));
}

/*
 * Whether the kernel takes 64-byte CQEs, which are the only ones with the
 * device clock.  The device announces the clock with the format
 * (rocx-device.rst, "Completion formats"), and the kernel refuses the
 * timestamp flag for any other.
 */
static bool rocx_has_cqe64(struct rocx_context *ctx)
{
	return ctx->cq_req_comp & ROCX_CREATE_CQ_REQ_CQE_FORMAT;
}

struct ibv_cq_ex *rocx_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct rocx_context *ctx = to_rocx_context(context);
	uint64_t wc_flags = ROCX_CQ_EX_WC_FLAGS;
	uint32_t format = ROCX_CQE_FORMAT_32;
	struct ibv_cq_ex *cqx;
	struct rocx_cq *cq;
	int err;

	if (rocx_has_cqe64(ctx))
		wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	/* Wall-clock time needs the device clock to set it against. */
	if (rocx_has_cqe64(ctx) && ctx->db_clock)
		wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	if (attr->wc_flags & ~wc_flags ||
	    !check_comp_mask(attr->comp_mask, IBV_CQ_INIT_ATTR_MASK_FLAGS |
					      IBV_CQ_INIT_ATTR_MASK_PD) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     attr->flags & ~ROCX_CQ_EX_CREATE_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* A parent domain is taken; its allocators are for QPs only. */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD &&
	    (!attr->parent_domain ||
	     !to_rocx_pd(attr->parent_domain)->protection)) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->wc_flags & (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			      IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK))
		format = ROCX_CQE_FORMAT_64;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	err = rocx_cq_create_common(context, cq, attr, format);
	if (err) {
		free(cq);
		errno = err;
		return NULL;
	}
	cq->single_threaded = attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
			      attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED;

	cqx = &cq->vcq.cq_ex;
	cqx->start_poll = rocx_start_poll;
	cqx->next_poll = rocx_next_poll;
	cqx->end_poll = rocx_end_poll;
	cqx->read_opcode = rocx_wc_read_opcode;
	cqx->read_vendor_err = rocx_wc_read_vendor_err;
	cqx->read_wc_flags = rocx_wc_read_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = rocx_wc_read_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = rocx_wc_read_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = rocx_wc_read_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = rocx_wc_read_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = rocx_wc_read_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = rocx_wc_read_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = rocx_wc_read_dlid_path_bits;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		cqx->read_completion_ts = rocx_wc_read_completion_ts;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		cqx->read_completion_wallclock_ns =
			rocx_wc_read_completion_wallclock_ns;
	return cqx;
}
