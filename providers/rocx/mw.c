// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider memory windows and MR re-registration.
 *
 * Windows are allocated by the kernel and bound by the device: a type 1
 * window through ibv_bind_mw, which posts a BIND_MW work request on the
 * QP, a type 2 window by the consumer's own IBV_WR_BIND_MW.  The device
 * takes the window's new key from the work request, so ibv_bind_mw can
 * return it at once.
 */
#include <errno.h>
#include <stdlib.h>

#include "rocx.h"

struct ibv_mw *rocx_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int err;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return mw;
}

int rocx_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err)
		return err;
	free(mw);
	return 0;
}

static uint32_t rocx_mw_access(unsigned int ib_access)
{
	uint32_t access = 0;

	if (ib_access & IBV_ACCESS_LOCAL_WRITE)
		access |= ROCX_ACCESS_LOCAL_WRITE;
	if (ib_access & IBV_ACCESS_REMOTE_WRITE)
		access |= ROCX_ACCESS_REMOTE_WRITE;
	if (ib_access & IBV_ACCESS_REMOTE_READ)
		access |= ROCX_ACCESS_REMOTE_READ;
	if (ib_access & IBV_ACCESS_REMOTE_ATOMIC)
		access |= ROCX_ACCESS_REMOTE_ATOMIC;
	return access;
}

/*
 * @rkey is the window's new key; the device takes the window by its
 * index and the new key from the WQE.
 */
struct rocx_send_wqe *rocx_wqe_bind_mw(struct rocx_qp *qp, uint16_t idx,
				       unsigned int send_flags, uint32_t rkey,
				       const struct ibv_mw_bind_info *info)
{
	struct rocx_send_wqe *wqe = rocx_wqe_start(qp, idx, ROCX_WQE_BIND_MW,
						   send_flags);
	struct rocx_wqe_bind_mw *b = &wqe->bind_mw;

	b->mw_key = htole32(rkey);
	/* An unbind (length 0) may name no MR. */
	b->mr_key = htole32(info->mr ? info->mr->lkey : 0);
	b->addr = htole64(info->addr);
	b->length = htole64(info->length);
	b->access = htole32(rocx_mw_access(info->mw_access_flags));
	return wqe;
}

int rocx_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_mw_bind_info *info = &mw_bind->bind_info;
	struct ibv_send_wr wr = {}, *bad_wr;
	int err;

	/* Type 2 windows are bound with IBV_WR_BIND_MW only. */
	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	if (info->length && (!info->mr || info->mr->pd != qp->pd ||
			     mw->pd != qp->pd))
		return EINVAL;

	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = *info;
	err = rocx_post_send(qp, &wr, &bad_wr);
	if (err)
		return err;
	/* The device takes this key when it executes the bind. */
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

int rocx_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}
