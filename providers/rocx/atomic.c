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
 * 8 bytes where the device writes the value it found (rocx_wqe_add_sge()
 * refuses any other).  The device checks everything again; refusing here
 * only spares a QP in error for requests that can never run.
 */
#include <errno.h>
#include <string.h>
#include "rocx.h"

/* An atomic WQE with its segment, or NULL when the device runs none. */
static struct rocx_send_wqe *
rocx_wqe_atomic_start(struct rocx_qp *qp, uint16_t idx, uint8_t opcode,
		      unsigned int send_flags, uint32_t rkey, uint64_t raddr,
		      uint64_t compare_add, uint64_t swap)
{
	struct rocx_context *ctx = to_rocx_context(qp->vqp.qp.context);
	struct rocx_send_wqe *wqe;

	if (!ctx->atomic)
		return NULL;
	wqe = rocx_wqe_start(qp, idx, opcode, send_flags);
	rocx_wqe_atomic_set(&wqe->atomic, raddr, rkey, compare_add, swap);
	return wqe;
}

struct rocx_send_wqe *rocx_wqe_atomic_cmp_swp(struct rocx_qp *qp,
					      uint16_t idx,
					      unsigned int send_flags,
					      uint32_t rkey, uint64_t raddr,
					      uint64_t compare, uint64_t swap)
{
	return rocx_wqe_atomic_start(qp, idx, ROCX_WQE_COMP_SWAP, send_flags,
				     rkey, raddr, compare, swap);
}

struct rocx_send_wqe *rocx_wqe_atomic_fetch_add(struct rocx_qp *qp,
						uint16_t idx,
						unsigned int send_flags,
						uint32_t rkey, uint64_t raddr,
						uint64_t add)
{
	return rocx_wqe_atomic_start(qp, idx, ROCX_WQE_FETCH_ADD, send_flags,
				     rkey, raddr, add, 0);
}

bool rocx_wqe_is_atomic(const struct rocx_send_wqe *wqe)
{
	return wqe->ctrl.opcode == ROCX_WQE_COMP_SWAP ||
	       wqe->ctrl.opcode == ROCX_WQE_FETCH_ADD;
}
