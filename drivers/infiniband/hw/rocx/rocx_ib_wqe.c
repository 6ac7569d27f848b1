// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib work queue entries for kernel QPs: the one place the kernel
 * turns an ib_send_wr or ib_recv_wr into the contract's WQE formats
 * (struct rocx_send_wqe, struct rocx_recv_wqe; rocx-device.rst "Work
 * requests").  The provider's twin is providers/rocx/qp.c, "Send
 * WQE builders".
 *
 * rocx_ib_wqe_build() is a switch on the work request's opcode that calls
 * one encoder per operation segment; an opcode is added by adding its
 * case and its encoder.  Everything here is pure: no locks, no
 * allocation, no device access, so post_send may call it in any context
 * and KUnit checks it byte for byte (rocx_ib_wqe_test.c).
 */
#include <kunit/visibility.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/* The SGE array after a WQE header of @hdr bytes. */
static struct rocx_sge *rocx_ib_wqe_sges(void *wqe, size_t hdr)
{
	return (struct rocx_sge *)((u8 *)wqe + hdr);
}

static void rocx_ib_sge_encode(struct rocx_sge *dst, const struct ib_sge *src,
			       int n)
{
	int i;

	for (i = 0; i < n; i++)
		rocx_sge_set(&dst[i], src[i].addr, src[i].length, src[i].lkey);
}

/* SEND, SEND_WITH_IMM, SEND_WITH_INV: no operation segment. */
static int rocx_ib_wqe_send(struct rocx_send_wqe *wqe,
			    const struct ib_send_wr *wr)
{
	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
		wqe->ctrl.opcode = ROCX_WQE_SEND_IMM;
		/* Big endian in the work request and the WQE, as on the wire. */
		wqe->ctrl.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
		wqe->ctrl.opcode = ROCX_WQE_SEND_INV;
		/* The key goes out as IETH: big endian, as ImmDt. */
		wqe->ctrl.imm_data = cpu_to_be32(wr->ex.invalidate_rkey);
		break;
	default:
		wqe->ctrl.opcode = ROCX_WQE_SEND;
		break;
	}
	return 0;
}

/* RDMA WRITE (with immediate) and READ: struct rocx_wqe_raddr. */
static int rocx_ib_wqe_rdma(struct rocx_send_wqe *wqe,
			    const struct ib_send_wr *wr)
{
	const struct ib_rdma_wr *rdma = rdma_wr(wr);

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->ctrl.opcode = ROCX_WQE_RDMA_WRITE_IMM;
		wqe->ctrl.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_RDMA_READ:
		wqe->ctrl.opcode = ROCX_WQE_RDMA_READ;
		break;
	default:
		wqe->ctrl.opcode = ROCX_WQE_RDMA_WRITE;
		break;
	}
	rocx_wqe_raddr_set(&wqe->rdma, rdma->remote_addr, rdma->rkey);
	return 0;
}

/*
 * COMP_SWAP and FETCH_ADD: struct rocx_wqe_atomic, and exactly one SGE
 * for the original value, never inline (the device fails anything else;
 * refusing it here tells the caller which work request was wrong).
 */
static int rocx_ib_wqe_atomic(struct rocx_send_wqe *wqe,
			      const struct ib_send_wr *wr)
{
	const struct ib_atomic_wr *atomic = atomic_wr(wr);

	if (wr->num_sge != 1 || (wr->send_flags & IB_SEND_INLINE))
		return -EINVAL;
	wqe->ctrl.opcode = wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			   ROCX_WQE_COMP_SWAP : ROCX_WQE_FETCH_ADD;
	/* FETCH_ADD has no swap operand, whatever the request holds. */
	rocx_wqe_atomic_set(&wqe->atomic, atomic->remote_addr, atomic->rkey,
			    atomic->compare_add,
			    wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			    atomic->swap : 0);
	return 0;
}

/*
 * UD: the destination.  The AH holds the whole address vector, so
 * nothing is resolved here.  A Q_Key with bit 31 set asks for the QP's
 * own, for the device as in the IBA (controlled Q_Keys).
 */
static void rocx_ib_wqe_ud(struct rocx_send_wqe *wqe,
			   const struct ib_send_wr *wr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);

	rocx_wqe_ud_set(&wqe->ud, ud->remote_qpn, ud->remote_qkey,
			&to_rocx_ib_ah(ud->ah)->av);
}

/* The WQE's control flags of a work request's send_flags. */
static u8 rocx_ib_fr_wqe_flags(int send_flags)
{
	u8 flags = 0;

	if (send_flags & IB_SEND_SIGNALED)
		flags |= ROCX_WQE_SIGNALED;
	if (send_flags & IB_SEND_SOLICITED)
		flags |= ROCX_WQE_SOLICITED;
	if (send_flags & IB_SEND_FENCE)
		flags |= ROCX_WQE_FENCE;
	return flags;
}

/**
 * rocx_ib_wqe_reg_mr() - encode an IB_WR_REG_MR work request
 * @wqe: the 64-byte WQE header to write (no SGEs follow)
 * @idx: the WQE's free-running index in its send queue
 * @wr: the work request; its MR was mapped by rocx_ib_map_mr_sg()
 *
 * The WQE names the MR's page list, which the device reads when it
 * executes the WQE: the caller's barrier before the doorbell orders the
 * list's writes (coherent memory) as it does the WQE's.
 *
 * Return: 0, -EINVAL for an MR with no page mapped, one that is not a
 * fast-register MR, or rights the device refuses; -EOPNOTSUPP for
 * rights it does not know.  @wqe is written only on success.
 */
int rocx_ib_wqe_reg_mr(struct rocx_send_wqe *wqe, u16 idx,
		       const struct ib_reg_wr *wr)
{
	const struct rocx_ib_mr *mr = to_rocx_ib_mr(wr->mr);
	struct rocx_wqe_reg_mr *r = &wqe->reg_mr;
	u32 access;
	int err;

	if (wr->mr->type != IB_MR_TYPE_MEM_REG || !mr->npages ||
	    mr->npages > mr->pbl.npages)
		return -EINVAL;
	err = rocx_ib_fr_access(wr->access, &access);
	if (err)
		return err;

	memset(wqe, 0, ROCX_SEND_WQE_HDR);
	wqe->ctrl.opcode = ROCX_WQE_REG_MR;
	wqe->ctrl.flags = rocx_ib_fr_wqe_flags(wr->wr.send_flags);
	wqe->ctrl.wqe_idx = cpu_to_le16(idx);
	r->key = cpu_to_le32(wr->key);
	r->access = cpu_to_le32(access);
	r->iova = cpu_to_le64(wr->mr->iova);
	r->length = cpu_to_le64(wr->mr->length);
	rocx_ib_pbl_to_hw(&mr->pbl, &r->pbl);
	/* The list has room for max_num_sg pages; this mapping used npages. */
	r->pbl.npages = cpu_to_le32(mr->npages);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_wqe_reg_mr);

/**
 * rocx_ib_wqe_local_inv() - encode an IB_WR_LOCAL_INV work request
 * @wqe: the 64-byte WQE header to write
 * @idx: the WQE's free-running index in its send queue
 * @wr: the work request: ex.invalidate_rkey names a fast-register MR or a
 *	type 2 window
 */
void rocx_ib_wqe_local_inv(struct rocx_send_wqe *wqe, u16 idx,
			   const struct ib_send_wr *wr)
{
	memset(wqe, 0, ROCX_SEND_WQE_HDR);
	wqe->ctrl.opcode = ROCX_WQE_LOCAL_INV;
	wqe->ctrl.flags = rocx_ib_fr_wqe_flags(wr->send_flags);
	/* Big endian, as ImmDt and the IETH carry keys. */
	wqe->ctrl.imm_data = cpu_to_be32(wr->ex.invalidate_rkey);
	wqe->ctrl.wqe_idx = cpu_to_le16(idx);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_wqe_local_inv);

/* Whether a QP of @type may send @opcode at all. */
static bool rocx_ib_wqe_op_ok(enum ib_qp_type type, enum ib_wr_opcode opcode)
{
	switch (type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM;
	case IB_QPT_UC:
		return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM ||
		       opcode == IB_WR_RDMA_WRITE ||
		       opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	default:
		return true;
	}
}

/* The data: inline bytes copied from kernel addresses, or the SGE list. */
static int rocx_ib_wqe_data(const struct rocx_ib_wqe_ctx *ctx,
			    struct rocx_send_wqe *wqe,
			    const struct ib_send_wr *wr)
{
	u8 *dst = (u8 *)wqe + ROCX_SEND_WQE_HDR;
	u32 len = 0;
	int i;

	if (!(wr->send_flags & IB_SEND_INLINE)) {
		if ((u32)wr->num_sge > ctx->max_sge)
			return -EINVAL;
		rocx_ib_sge_encode(rocx_ib_wqe_sges(wqe, ROCX_SEND_WQE_HDR),
				   wr->sg_list, wr->num_sge);
		wqe->ctrl.num_sge = wr->num_sge;
		return 0;
	}
	/* A READ would have the device write into the WQE. */
	if (wqe->ctrl.opcode == ROCX_WQE_RDMA_READ)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		u32 n = wr->sg_list[i].length;

		if (n > ctx->max_inline - len)
			return -EINVAL;
		/* Kernel callers give kernel virtual addresses for inline data. */
		memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
		len += n;
	}
	wqe->ctrl.flags |= ROCX_WQE_INLINE;
	wqe->ctrl.inline_len = cpu_to_le32(len);
	return 0;
}

/**
 * rocx_ib_wqe_build() - encode one send work request
 * @ctx: the send queue's type and limits
 * @buf: the entry, 2^wqe_shift bytes (room for @ctx's limits)
 * @idx: the entry's free-running index
 * @wr: the work request; only it is read, not @wr->next
 *
 * Return: 0, or -EINVAL for a work request the QP cannot carry (an
 * opcode its type does not have or the contract lacks, too many SGEs or
 * inline bytes); the entry's contents are then undefined and it must not
 * be handed to the device.
 */
int rocx_ib_wqe_build(const struct rocx_ib_wqe_ctx *ctx, void *buf, u16 idx,
		      const struct ib_send_wr *wr)
{
	struct rocx_send_wqe *wqe = buf;
	int err;

	if (wr->num_sge < 0 || !rocx_ib_wqe_op_ok(ctx->qp_type, wr->opcode))
		return -EINVAL;
	memset(wqe, 0, ROCX_SEND_WQE_HDR);
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		err = rocx_ib_wqe_send(wqe, wr);
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		err = rocx_ib_wqe_rdma(wqe, wr);
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		err = rocx_ib_wqe_atomic(wqe, wr);
		break;
	/* Fast registration's encoders write the header. */
	case IB_WR_REG_MR:
		err = rocx_ib_wqe_reg_mr(wqe, idx, reg_wr(wr));
		break;
	case IB_WR_LOCAL_INV:
		rocx_ib_wqe_local_inv(wqe, idx, wr);
		err = 0;
		break;
	default:
		return -EINVAL;
	}
	if (err)
		return err;

	if (wr->send_flags & IB_SEND_SIGNALED || ctx->sig_all)
		wqe->ctrl.flags |= ROCX_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		wqe->ctrl.flags |= ROCX_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		wqe->ctrl.flags |= ROCX_WQE_FENCE;
	wqe->ctrl.wqe_idx = cpu_to_le16(idx);
	if (ctx->qp_type == IB_QPT_UD || ctx->qp_type == IB_QPT_GSI)
		rocx_ib_wqe_ud(wqe, wr);
	return rocx_ib_wqe_data(ctx, wqe, wr);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_wqe_build);

/**
 * rocx_ib_recv_wqe_build() - encode one receive work request
 * @buf: the entry, 2^wqe_shift bytes
 * @idx: the entry's free-running index
 * @wr: the work request
 * @max_sge: SGEs the entry has room for
 *
 * Return: 0, or -EINVAL for too many SGEs.
 */
int rocx_ib_recv_wqe_build(void *buf, u16 idx, const struct ib_recv_wr *wr,
			   u32 max_sge)
{
	struct rocx_recv_wqe *wqe = buf;

	if (wr->num_sge < 0 || (u32)wr->num_sge > max_sge)
		return -EINVAL;
	memset(wqe, 0, ROCX_RECV_WQE_HDR);
	wqe->num_sge = wr->num_sge;
	wqe->wqe_idx = cpu_to_le16(idx);
	rocx_ib_sge_encode(rocx_ib_wqe_sges(wqe, ROCX_RECV_WQE_HDR),
			   wr->sg_list, wr->num_sge);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_recv_wqe_build);
