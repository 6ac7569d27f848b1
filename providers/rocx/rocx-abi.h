/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Commands and responses the rocx provider exchanges with rocx_ib.ko: the
 * kernel's uAPI structures (include/uapi/rdma/rocx-abi.h) appended to
 * libibverbs' own.
 */
#ifndef __ROCX_ABI_H__
#define __ROCX_ABI_H__

#include <infiniband/kern-abi.h>
#include <kernel-abi/rocx-abi.h>
#include <rdma/rocx-abi.h>

DECLARE_DRV_CMD(urocx_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		rocx_alloc_ucontext_req, rocx_alloc_ucontext_resp);
DECLARE_DRV_CMD(urocx_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD, empty,
		rocx_alloc_pd_resp);
DECLARE_DRV_CMD(urocx_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		rocx_create_cq_req, rocx_create_cq_resp);
DECLARE_DRV_CMD(urocx_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		rocx_create_cq_req, rocx_create_cq_resp);
DECLARE_DRV_CMD(urocx_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		rocx_create_qp_req, rocx_create_qp_resp);
DECLARE_DRV_CMD(urocx_create_qp_ex, IB_USER_VERBS_EX_CMD_CREATE_QP,
		rocx_create_qp_req, rocx_create_qp_resp);
DECLARE_DRV_CMD(urocx_create_ah, IB_USER_VERBS_CMD_CREATE_AH, empty,
		rocx_create_ah_resp);
DECLARE_DRV_CMD(urocx_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		rocx_create_srq_req, rocx_create_srq_resp);
DECLARE_DRV_CMD(urocx_create_xsrq, IB_USER_VERBS_CMD_CREATE_XSRQ,
		rocx_create_srq_req, rocx_create_srq_resp);
DECLARE_DRV_CMD(urocx_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		rocx_resize_cq_req, rocx_resize_cq_resp);
DECLARE_DRV_CMD(urocx_modify_srq, IB_USER_VERBS_CMD_MODIFY_SRQ,
		rocx_modify_srq_req, empty);

#endif /* __ROCX_ABI_H__ */
