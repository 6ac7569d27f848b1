/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * rocx uverbs ABI: what rocx_ib.ko and the rdma-core provider exchange.
 *
 * Every response starts with comp_mask: the kernel sets a bit for each
 * optional field it filled, and the provider only reads fields whose bit
 * is set, so an older provider runs on a newer kernel and the reverse.
 */
#ifndef ROCX_ABI_USER_H
#define ROCX_ABI_USER_H

#include <linux/types.h>

#define ROCX_UVERBS_ABI_VERSION		1

/* Provider capabilities, sent in rocx_alloc_ucontext_req.comp_mask. */
enum rocx_ucontext_req_comp {
	ROCX_UCONTEXT_REQ_RSVD = 0,
};

struct rocx_alloc_ucontext_req {
	__aligned_u64 comp_mask;
};

enum rocx_ucontext_resp_comp {
	ROCX_UCONTEXT_RESP_DB = 1 << 0,	/* db_* fields valid */
};

struct rocx_alloc_ucontext_resp {
	__aligned_u64 comp_mask;
	/* mmap() offset of this context's doorbell page. */
	__aligned_u64 db_mmap_key;
	__u32 db_page_size;
	__u32 uctx;		/* device user-context id (= doorbell page) */
	__u32 dev_caps;		/* ROCX_CAP_* of the device */
	__u32 max_inline;
	__u32 max_sge;
	__u32 reserved;
};

struct rocx_alloc_pd_resp {
	__u32 pdn;
	__u32 reserved;
};

/*
 * CQ: the provider allocates the ring, 2^log_depth struct rocx_cqe
 * (include/rocx/rocx_verbs.h), page aligned, and the kernel pins it.  The
 * provider polls it and rings the CQ doorbell of its own page.
 */
struct rocx_create_cq_req {
	__aligned_u64 buf_addr;	/* user address of the ring */
	__u32 log_depth;
	__u32 reserved;
};

struct rocx_create_cq_resp {
	__u32 cqn;
	__u32 reserved;
};

/*
 * QP: one page-aligned buffer holding the SQ (2^sq_log_depth WQEs of
 * 2^sq_wqe_shift bytes) followed by the RQ (2^rq_log_depth WQEs of
 * 2^rq_wqe_shift bytes, none with an SRQ).  The provider sizes them from
 * the QP's capabilities; the kernel checks them against the device's.
 */
struct rocx_create_qp_req {
	__aligned_u64 buf_addr;
	__u8 sq_log_depth;
	__u8 rq_log_depth;
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;
	__u32 reserved;
};

struct rocx_create_qp_resp {
	__u32 qpn;
	__u32 max_inline;	/* inline bytes one send WQE carries */
};

#endif /* ROCX_ABI_USER_H */
