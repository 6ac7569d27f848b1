// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: atomic work requests (compare-and-swap, fetch-and-add).
 *
 * The device executes them against the responder's memory one at a time
 * (ROCX_CAP2_ATOMIC): atomic against every other rocx atomic, not
 * against the CPUs of the host that owns that memory, so the kernel
 * reports IBV_ATOMIC_HCA and this file posts atomics only then.
 *
 * A WQE takes the remote address and R_Key, the operands, and one SGE of
 * 8 bytes where the device writes the value it found.  The device checks
 * everything again; refusing here only spares a QP in error for requests
 * that can never run.
 */
#include <errno.h>
#include <string.h>
#include "rocx.h"

int rocx_wqe_atomic(struct rocx_qp *qp, const struct ibv_send_wr *wr,
		    struct rocx_send_wqe *wqe)
{
	struct rocx_context *ctx = to_rocx_context(qp->vqp.qp.context);

	if (!ctx->atomic || wr->num_sge != 1 ||
	    wr->sg_list[0].length != ROCX_ATOMIC_SIZE ||
	    (wr->send_flags & IBV_SEND_INLINE))
		return EINVAL;
	wqe->atomic.remote_addr = htole64(wr->wr.atomic.remote_addr);
	wqe->atomic.rkey = htole32(wr->wr.atomic.rkey);
	/* compare_add: the compare value of CMP_SWAP, the addend of FETCH_ADD. */
	wqe->atomic.compare_add = htole64(wr->wr.atomic.compare_add);
	if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP)
		wqe->atomic.swap = htole64(wr->wr.atomic.swap);
	return 0;
}
