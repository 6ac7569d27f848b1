/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * rocx uverbs ABI: what rocx_ib.ko and the rdma-core provider exchange.
 *
 * A provider and a kernel of different ages work together under these
 * rules (ABI version 1 throughout):
 *
 *  - Structures only grow, at the end.  A field keeps its offset and its
 *    meaning once defined.
 *  - Every request and every response has a comp_mask.  In a request it
 *    names the optional fields and behaviours the provider asks for; the
 *    kernel refuses a bit it does not know (EOPNOTSUPP).  In a response it
 *    names the optional fields the kernel filled; the provider zeroes its
 *    response buffer and reads only fields of the first layout and those
 *    the bits name.
 *  - The kernel takes a request that holds at least the fields of the
 *    first layout (a shorter one is EINVAL), reads fields the provider
 *    did not send as zero, and takes a longer one only if the part it
 *    does not know is zero (EOPNOTSUPP otherwise).
 *  - The kernel writes no more of a response than the provider has room
 *    for.
 *  - A provider sets a request bit only if the context response offers
 *    it (ROCX_UCONTEXT_RESP_REQ_COMP); a kernel without that field takes
 *    none.
 *
 * Later objects fit in without changing what is here: an SRQ gets a
 * request and a response of its own, and a QP on an SRQ sends
 * rq_log_depth 0, as a QP without a receive queue does now; a UD QP uses
 * the same create_qp request (the QP type is in the core command), and an
 * address handle has a response of its own (rocx_create_ah_resp) carrying
 * what the provider needs to build the address vector of a UD WQE; an
 * extended CQ (other CQE
 * formats) asks with a create_cq comp_mask bit and an appended field.
 */
#ifndef ROCX_ABI_USER_H
#define ROCX_ABI_USER_H

#include <linux/types.h>

#define ROCX_UVERBS_ABI_VERSION		1

/* Provider capabilities, sent in rocx_alloc_ucontext_req.comp_mask. */
enum rocx_ucontext_req_comp {
	ROCX_UCONTEXT_REQ_RSVD = 0,	/* none defined yet */
};

struct rocx_alloc_ucontext_req {
	__aligned_u64 comp_mask;
};

enum rocx_ucontext_resp_comp {
	ROCX_UCONTEXT_RESP_DB = 1 << 0,		/* db_* fields valid */
	ROCX_UCONTEXT_RESP_REQ_COMP = 1 << 1,	/* *_req_comp fields valid */
	/*
	 * The doorbell page may be mapped readable too: a 64-bit load at
	 * ROCX_DB_CLOCK returns the device clock in ns (the CQE64 timestamp).
	 */
	ROCX_UCONTEXT_RESP_DB_CLOCK = 1 << 2,
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
	/* Request comp_mask bits this kernel takes (ROCX_UCONTEXT_RESP_REQ_COMP). */
	__u32 cq_req_comp;	/* enum rocx_create_cq_req_comp */
	__u32 qp_req_comp;	/* enum rocx_create_qp_req_comp */
};

struct rocx_alloc_pd_resp {
	__u32 pdn;
	__u32 comp_mask;	/* no optional fields yet */
};

/*
 * CQ: the provider allocates the ring, 2^log_depth struct rocx_cqe
 * (include/rocx/rocx_verbs.h), page aligned, and the kernel pins it.  The
 * provider polls it and rings the CQ doorbell of its own page.  With
 * ROCX_CREATE_CQ_REQ_CQE_FORMAT the entries are of format cqe_format
 * (enum rocx_cqe_format: 1 is struct rocx_cqe64, with the device clock),
 * offered in cq_req_comp only when the device writes that format.
 */
enum rocx_create_cq_req_comp {
	ROCX_CREATE_CQ_REQ_CQE_FORMAT = 1 << 0,	/* cqe_format valid */
};

struct rocx_create_cq_req {
	__aligned_u64 buf_addr;	/* user address of the ring */
	__u32 log_depth;
	__u32 comp_mask;	/* enum rocx_create_cq_req_comp */
	__u32 cqe_format;	/* ROCX_CREATE_CQ_REQ_CQE_FORMAT */
	__u32 reserved;		/* 0 */
};

struct rocx_create_cq_resp {
	__u32 cqn;
	__u32 comp_mask;	/* no optional fields yet */
};

/*
 * QP: one page-aligned buffer holding the SQ (2^sq_log_depth WQEs of
 * 2^sq_wqe_shift bytes) followed by the RQ (2^rq_log_depth WQEs of
 * 2^rq_wqe_shift bytes; rq_log_depth 0: none).  The provider sizes them
 * from the QP's capabilities; the kernel checks them against the
 * device's.  With ROCX_CREATE_QP_REQ_DB_RECORD (offered in qp_req_comp
 * only when the device has ROCX_CAP2_DB_RECORD) the buffer holds a
 * struct rocx_db_record (include/rocx/rocx_verbs.h) right after the
 * queues, and the kernel pins it with them: the provider writes the SQ
 * producer index there and rings the SQ doorbell only while the device
 * has not set ROCX_DB_RECORD_POLL.
 */
enum rocx_create_qp_req_comp {
	ROCX_CREATE_QP_REQ_DB_RECORD = 1 << 0,
};

struct rocx_create_qp_req {
	__aligned_u64 buf_addr;
	__u8 sq_log_depth;
	__u8 rq_log_depth;
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;
	__u32 comp_mask;	/* enum rocx_create_qp_req_comp */
};

struct rocx_create_qp_resp {
	__u32 qpn;
	__u32 max_inline;	/* inline bytes one send WQE carries */
	__u32 comp_mask;	/* no optional fields yet */
	__u32 reserved;
};

/*
 * AH (UD QPs): no device object.  The provider builds the address vector
 * of every UD WQE itself, from the ibv_ah_attr and what the kernel
 * resolved once when the AH was created: the destination MAC, the VLAN
 * of the source GID's netdev and the headers its type asks for.
 */
struct rocx_create_ah_resp {
	__u8 dmac[6];
	__u16 vlan;		/* VLAN id, or 0xffff: untagged */
	__u8 net_type;		/* enum rocx_net_type (include/rocx/rocx_verbs.h) */
	__u8 reserved[3];
	__u32 comp_mask;	/* no optional fields yet */
};

/*
 * SRQ (contract 1.2, ROCX_CAP2_SRQ): the provider allocates the ring,
 * 2^log_depth receive WQEs of 2^wqe_shift bytes, page aligned, and the
 * kernel pins it.  The provider posts to it and rings the SRQ doorbell of
 * its own page; each WQE carries a tag its CQE names it by.  A QP on the
 * SRQ sends rq_log_depth 0.
 */
enum rocx_create_srq_req_comp {
	ROCX_CREATE_SRQ_REQ_RSVD = 0,	/* none defined yet */
};

struct rocx_create_srq_req {
	__aligned_u64 buf_addr;	/* user address of the ring */
	__u8 log_depth;
	__u8 wqe_shift;
	__u16 reserved;
	__u32 comp_mask;	/* enum rocx_create_srq_req_comp */
};

struct rocx_create_srq_resp {
	__u32 srqn;
	__u32 comp_mask;	/* no optional fields yet */
};

/*
 * Resizing (ROCX_CAP2_CQ_RESIZE: ibv_resize_cq; ROCX_CAP2_SRQ_RESIZE:
 * ibv_modify_srq with IBV_SRQ_MAX_WR, offered as IB_DEVICE_SRQ_RESIZE):
 * the provider allocates the new ring as for create and the kernel pins
 * it; the device moves the live entries into it and the kernel releases
 * the old ring when the command has completed.  The provider keeps the
 * CQ (SRQ) locked across the call and rings the CQ doorbell with its
 * consumer index first.  A modify_srq without IB_SRQ_MAX_WR sends no
 * request (or a zero one).
 */
enum rocx_resize_cq_req_comp {
	ROCX_RESIZE_CQ_REQ_RSVD = 0,	/* none defined yet */
};

struct rocx_resize_cq_req {
	__aligned_u64 buf_addr;	/* user address of the new ring */
	__u32 log_depth;	/* entries of the CQ's own format */
	__u32 comp_mask;	/* enum rocx_resize_cq_req_comp */
};

struct rocx_resize_cq_resp {
	__u32 comp_mask;	/* no optional fields yet */
	__u32 reserved;
};

enum rocx_modify_srq_req_comp {
	ROCX_MODIFY_SRQ_REQ_RSVD = 0,	/* none defined yet */
};

struct rocx_modify_srq_req {
	__aligned_u64 buf_addr;	/* IB_SRQ_MAX_WR: the new ring */
	__u8 log_depth;		/* entries of the SRQ's own wqe_shift */
	__u8 reserved[3];
	__u32 comp_mask;	/* enum rocx_modify_srq_req_comp */
};

#endif /* ROCX_ABI_USER_H */
