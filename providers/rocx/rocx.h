/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx provider for libibverbs.
 *
 * The kernel creates the objects; the data path never enters it.  Send
 * and receive queues and CQ rings live in this process's memory (the
 * kernel pins them and gives their pages to the device), and the provider
 * rings the SQ, RQ and CQ doorbells of its context's doorbell page.
 */
#ifndef __ROCX_H__
#define __ROCX_H__

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <util/util.h>

#include "rocx-abi.h"
#include "rocx/rocx_hw.h"
#include "rocx/rocx_verbs.h"

/* QP lookup by qpn (24 bits) for poll_cq: two levels of 4096 entries. */
#define ROCX_QP_TABLE_SHIFT	12
#define ROCX_QP_TABLE_SIZE	(1 << ROCX_QP_TABLE_SHIFT)
#define ROCX_QP_TABLE_MASK	(ROCX_QP_TABLE_SIZE - 1)

struct rocx_device {
	struct verbs_device vdev;
};

struct rocx_qp;

struct rocx_context {
	struct verbs_context ibvctx;
	/*
	 * This context's doorbell page (BAR2), mapped write-only and
	 * uncached; NULL when the kernel did not offer one.  The data path
	 * rings its queues through it.
	 */
	void *db;
	uint32_t db_page_size;
	/* ROCX_DB_CLOCK in the page (clock.c) when it is readable, else NULL. */
	void *db_clock;
	uint32_t uctx;		/* device user-context id = doorbell page */
	uint32_t dev_caps;	/* ROCX_CAP_* */
	uint32_t max_inline;
	uint32_t max_sge;
	uint32_t max_cqe;	/* query_device's, read once */
	bool atomic;		/* query_device's atomic_cap is not NONE */
	uint32_t cq_req_comp;	/* create_cq request bits the kernel takes */
	uint32_t qp_req_comp;	/* create_qp request bits the kernel takes */
	/*
	 * qpn -> QP for poll_cq.  qp_table_mutex serialises changes, and
	 * destroy_qp holds it from before the kernel frees the qpn until the
	 * entry is cleared, so that a QP created meanwhile with the same qpn
	 * is stored only afterwards.  An entry is set and cleared with both
	 * of the QP's CQ locks held as well, so poll_cq (holding one of them)
	 * reads it without the mutex.  Second-level tables, once allocated,
	 * stay until the context goes.
	 */
	pthread_mutex_t qp_table_mutex;
	struct rocx_qp **qp_table[ROCX_QP_TABLE_SIZE];
	/*
	 * srqn -> XRC SRQ for poll_cq (xrc.c), whose receive CQEs name the
	 * SRQ.  Changed under qp_table_mutex, read by poll_cq without it, as
	 * qp_table; second-level tables stay until the context goes.
	 */
	struct rocx_srq **xsrq_table[ROCX_QP_TABLE_SIZE];
};

struct rocx_td {
	struct ibv_td ibvtd;
	atomic_int refcount;	/* 1 + the parent domains holding it */
};

/*
 * A protection domain, or a parent domain (domain.c) holding one in
 * @protection, with the application's allocators.
 */
struct rocx_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
	/*
	 * A PD: 1 + the parent domains holding it; a parent domain: 1 +
	 * the buffers taken from it (rocx_pd_alloc()).
	 */
	atomic_int refcount;
	struct rocx_pd *protection;	/* parent domains only */
	struct rocx_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

/* resource_type of the buffers the allocators of a parent domain give. */
enum rocx_res_type {
	ROCX_RES_TYPE_QP = 1,	/* SQ and RQ of a QP */
};

struct rocx_cq {
	/* ibv_create_cq_ex's CQs are verbs_cq: the same first fields. */
	union {
		struct ibv_cq ibvcq;
		struct verbs_cq vcq;
	};
	/*
	 * Protects the consumer side: ci and the CQ doorbell (so that the
	 * index it carries never goes back), and the QP table's view of the
	 * QPs using this CQ (see rocx_context.qp_table_mutex).
	 */
	pthread_spinlock_t lock;
	void *ring;		/* 2^log_depth entries, written by the device */
	size_t ring_size;	/* bytes allocated, page aligned */
	uint32_t log_depth;
	uint32_t cqe_shift;	/* log2 of an entry: 5, or 6 for rocx_cqe64 */
	uint32_t ci;		/* free-running consumer index */
	uint32_t db_ci;		/* the last ci the device was given */
	uint32_t db_batch;	/* give entries back this many at a time */
	uint32_t cqn;
	void *db;		/* the CQ doorbell of the context's page */
	/*
	 * ibv_start_poll() to ibv_end_poll() (cq_ex.c), under @lock: the
	 * entry the read functions read, and the ci of the poll's start.
	 */
	struct rocx_cqe *cur_cqe;
	uint32_t poll_start;
	bool single_threaded;	/* IBV_CREATE_CQ_ATTR_SINGLE_THREADED: no lock */
	/*
	 * Wall-clock timestamps (clock.c), under @lock: CLOCK_REALTIME less
	 * the device clock, and the CLOCK_MONOTONIC_COARSE ns it was taken
	 * at (0: never).
	 */
	int64_t wall_offset;
	int64_t wall_sampled;
};

/*
 * A work queue: the SQ or the RQ of a QP.  Entries are posted at pi and
 * completed in order from ci, both free-running 16-bit indices as the
 * device sees them (the WQE's wqe_idx).
 */
struct rocx_wq {
	/*
	 * Protects posting: pi, the entries at and after pi, their wrid
	 * slots, and the doorbell (written in pi order).
	 */
	pthread_spinlock_t lock;
	void *buf;		/* entry 0 */
	uint64_t *wrid;		/* wr_id of each entry, by index */
	uint32_t depth;		/* entries, a power of two; 0: no queue */
	uint32_t wqe_shift;	/* log2 of an entry's size */
	uint32_t max_sge;
	uint16_t pi;
	/*
	 * Oldest entry not completed.  Only poll_cq of the queue's CQ writes
	 * it (under that CQ's lock), with release order after reading the
	 * wrid slots it frees; posters read it with acquire order.
	 */
	uint16_t ci;
	void *db;		/* the SQ or RQ doorbell of the context's page */
	/*
	 * The SQ's doorbell record after the queues (NULL: none, and always
	 * for an RQ): pi is written there, and the doorbell only while the
	 * device has not set ROCX_DB_RECORD_POLL.
	 */
	struct rocx_db_record *dbrec;
};

/* An address handle: the address vector every UD WQE to it carries. */
struct rocx_ah {
	struct ibv_ah ibvah;
	struct rocx_av av;
};

/*
 * A shared receive queue (srq.c).  Entries are posted at pi, in ring
 * order; each carries a tag, the index of its wr_id, that its CQE names.
 */
struct rocx_srq {
	union {
		struct ibv_srq ibvsrq;
		struct verbs_srq vsrq;	/* an XRC SRQ (xrc.c) */
	};
	/*
	 * Protects pi, the ring, the tags (wrid, held, free_tags, nfree) and
	 * the doorbell.  poll_cq takes it under a CQ's lock: CQ, then SRQ.
	 */
	pthread_spinlock_t lock;
	void *buf;		/* the ring; pinned by the kernel */
	size_t buf_size;
	uint64_t *wrid;		/* by tag */
	bool *held;		/* by tag: posted, no CQE yet */
	uint16_t *free_tags;	/* a stack of nfree tags */
	uint32_t nfree;
	uint32_t depth;		/* entries, a power of two; as many tags */
	uint32_t wqe_shift;
	uint32_t max_sge;
	uint32_t srqn;
	uint16_t pi;
	void *db;		/* the SRQ doorbell of the context's page */
	/*
	 * XRC: what poll_cq returns as the QP of this SRQ's receives, whose
	 * CQEs name the SRQ (ext) and a target QP this context need not
	 * know; its srq is this SRQ.  NULL for a basic SRQ.
	 */
	struct rocx_qp *xrc_recv;
};

/*
 * The ibv_wr_* batch between ibv_wr_start() and ibv_wr_complete() or
 * ibv_wr_abort() (qp_ex.c), under the SQ lock: WQEs are built from the
 * SQ's pi on, and handed to the device only by wr_complete.
 */
struct rocx_wr_batch {
	uint16_t pi;		/* the next WQE's index */
	struct rocx_send_wqe *cur;	/* the WQE being built, or NULL */
	int err;		/* the first error: the batch is refused */
};

struct rocx_qp {
	struct verbs_qp vqp;
	void *buf;		/* the SQ, then the RQ; pinned by the kernel */
	size_t buf_size;
	struct rocx_wq sq;
	struct rocx_wq rq;
	uint32_t qpn;
	uint32_t max_inline;	/* inline bytes a send WQE carries */
	bool sq_sig_all;
	struct rocx_srq *srq;	/* receives from it instead of rq */
	bool buf_custom;	/* buf from the PD's allocator (rocx_pd_alloc()) */
	struct rocx_wr_batch wr;
};

static inline struct rocx_context *to_rocx_context(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct rocx_context, ibvctx.context);
}

static inline struct rocx_pd *to_rocx_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct rocx_pd, ibvpd);
}

static inline struct rocx_cq *to_rocx_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct rocx_cq, ibvcq);
}

static inline struct rocx_qp *to_rocx_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct rocx_qp, vqp.qp);
}

static inline struct rocx_ah *to_rocx_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct rocx_ah, ibvah);
}

static inline struct rocx_srq *to_rocx_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct rocx_srq, ibvsrq);
}

/*
 * Retire the WQE at @idx of @wq, returning its wr_id; CQ locked.  Receive
 * entries complete in order; a send entry also retires every unsignalled
 * WQE before it.  Either way the queue's oldest outstanding entry is the
 * next one.
 */
static inline uint64_t rocx_wq_retire(struct rocx_wq *wq, uint16_t idx)
{
	uint64_t wr_id = wq->wrid[idx & (wq->depth - 1)];

	atomic_store_explicit((_Atomic(uint16_t) *)&wq->ci, (uint16_t)(idx + 1),
			      memory_order_release);
	return wr_id;
}

/* The QP of an ibv_qp_ex (ibv_create_qp_ex with send_ops_flags). */
static inline struct rocx_qp *to_rocx_qp_ex(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct rocx_qp, vqp.qp_ex);
}

/* verbs.c */
int rocx_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int rocx_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *rocx_alloc_pd(struct ibv_context *context);
int rocx_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *rocx_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access);
int rocx_dereg_mr(struct verbs_mr *vmr);

/* ah.c */
struct ibv_ah *rocx_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int rocx_destroy_ah(struct ibv_ah *ah);

/* domain.c: thread and parent domains */
struct ibv_td *rocx_alloc_td(struct ibv_context *context,
			     struct ibv_td_init_attr *attr);
int rocx_dealloc_td(struct ibv_td *td);
struct ibv_pd *rocx_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr);
int rocx_dealloc_parent_domain(struct rocx_pd *pd);
int rocx_pd_alloc(struct ibv_pd *ibpd, size_t size, size_t align,
		  uint64_t type, void **p, bool *custom);
void rocx_pd_free(struct ibv_pd *ibpd, void *p, uint64_t type, bool custom);

/* cq.c */
struct ibv_cq *rocx_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
int rocx_destroy_cq(struct ibv_cq *cq);
int rocx_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int rocx_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void rocx_cq_clean(struct rocx_cq *cq, uint32_t qpn, struct rocx_srq *srq);
struct rocx_qp *rocx_find_qp(struct rocx_context *ctx, uint32_t qpn);
int rocx_cq_create_common(struct ibv_context *context, struct rocx_cq *cq,
			  struct ibv_cq_init_attr_ex *attr, uint32_t cqe_format);
struct rocx_cqe *rocx_cq_ready(struct rocx_cq *cq, uint32_t ci);
struct rocx_qp *rocx_cqe_qp(struct rocx_context *ctx,
			    const struct rocx_cqe *cqe, struct rocx_wq **wqp);
uint64_t rocx_cqe_wr_id(struct rocx_qp *qp, struct rocx_wq *wq,
			const struct rocx_cqe *cqe);
enum ibv_wc_status rocx_wc_status(uint8_t status);
enum ibv_wc_opcode rocx_wc_opcode(uint8_t op);
void rocx_cq_db(struct rocx_cq *cq, uint64_t arm);

/* cq_ex.c */
struct ibv_cq_ex *rocx_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);

/* atomic.c: the 8 bytes an atomic reads, and returns. */
#define ROCX_ATOMIC_SIZE	8
bool rocx_wqe_is_atomic(const struct rocx_send_wqe *wqe);
/* mw.c */
struct ibv_mw *rocx_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int rocx_dealloc_mw(struct ibv_mw *mw);
int rocx_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);
int rocx_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);

/* sched.c */
int rocx_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask);
int rocx_modify_qp_rate_limit(struct ibv_qp *qp,
			      struct ibv_qp_rate_limit_attr *attr);

/* qp.c */
struct ibv_qp *rocx_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
/* @create_flags: ibv_qp_create_flags the caller has checked. */
struct ibv_qp *rocx_create_qp_flags(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr,
				    uint32_t create_flags);
int rocx_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask);
int rocx_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr);
int rocx_destroy_qp(struct ibv_qp *qp);
int rocx_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int rocx_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
void rocx_wqe_sges(struct rocx_sge *dst, const struct ibv_sge *src, int n);

/* srq.c */
struct ibv_srq *rocx_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr);
int rocx_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		    int attr_mask);
int rocx_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int rocx_destroy_srq(struct ibv_srq *srq);
int rocx_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
uint64_t rocx_srq_complete(struct rocx_srq *srq, uint16_t tag);
struct rocx_srq *rocx_srq_ring_new(struct rocx_context *ctx,
				   const struct ibv_srq_attr *attr,
				   uint32_t *log_depth, uint32_t *wqe_shift);
void rocx_srq_ring_free(struct rocx_srq *srq);

/* xrc.c */
struct ibv_xrcd *rocx_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr);
int rocx_close_xrcd(struct ibv_xrcd *xrcd);
struct ibv_srq *rocx_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int rocx_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
int rocx_xrc_destroy_srq(struct rocx_context *ctx, struct rocx_srq *srq);
struct rocx_qp *rocx_xrc_cqe_qp(struct rocx_context *ctx,
				const struct rocx_cqe *cqe);
struct ibv_qp *rocx_xrc_create_recv_qp(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *rocx_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr);
int rocx_xrc_destroy_recv_qp(struct ibv_qp *ibqp);
void rocx_wqe_set_xrc_srqn(struct rocx_send_wqe *wqe, uint32_t srqn);
bool rocx_sq_full(struct rocx_wq *sq, uint16_t pi);
bool rocx_uc_opcode(enum ibv_wr_opcode op);
void rocx_sq_ring(struct rocx_qp *qp, uint16_t pi);

/*
 * Send WQE builders, one per opcode, shared by post_send (qp.c) and the
 * ibv_wr_* API (qp_ex.c): each starts the WQE at @idx with its operation
 * segment; the data follows through rocx_wqe_add_sge()/_add_inline().
 * @send_flags are IBV_SEND_* (SIGNALED, SOLICITED, FENCE).
 */
struct rocx_send_wqe *rocx_wqe_send(struct rocx_qp *qp, uint16_t idx,
				    unsigned int send_flags);
struct rocx_send_wqe *rocx_wqe_send_imm(struct rocx_qp *qp, uint16_t idx,
					unsigned int send_flags, __be32 imm);
struct rocx_send_wqe *rocx_wqe_rdma_write(struct rocx_qp *qp, uint16_t idx,
					  unsigned int send_flags,
					  uint32_t rkey, uint64_t raddr);
struct rocx_send_wqe *rocx_wqe_rdma_write_imm(struct rocx_qp *qp,
					      uint16_t idx,
					      unsigned int send_flags,
					      uint32_t rkey, uint64_t raddr,
					      __be32 imm);
struct rocx_send_wqe *rocx_wqe_rdma_read(struct rocx_qp *qp, uint16_t idx,
					 unsigned int send_flags,
					 uint32_t rkey, uint64_t raddr);
/* Atomics (atomic.c): NULL when the device runs none. */
struct rocx_send_wqe *rocx_wqe_atomic_cmp_swp(struct rocx_qp *qp,
					      uint16_t idx,
					      unsigned int send_flags,
					      uint32_t rkey, uint64_t raddr,
					      uint64_t compare, uint64_t swap);
struct rocx_send_wqe *rocx_wqe_atomic_fetch_add(struct rocx_qp *qp,
						uint16_t idx,
						unsigned int send_flags,
						uint32_t rkey, uint64_t raddr,
						uint64_t add);
/* Memory windows: invalidation (qp.c) and binding (mw.c). */
struct rocx_send_wqe *rocx_wqe_send_inv(struct rocx_qp *qp, uint16_t idx,
					unsigned int send_flags, uint32_t rkey);
struct rocx_send_wqe *rocx_wqe_local_inv(struct rocx_qp *qp, uint16_t idx,
					 unsigned int send_flags, uint32_t rkey);
struct rocx_send_wqe *rocx_wqe_bind_mw(struct rocx_qp *qp, uint16_t idx,
				       unsigned int send_flags, uint32_t rkey,
				       const struct ibv_mw_bind_info *info);
/* The header of every builder above; the rest of the header zero. */
struct rocx_send_wqe *rocx_wqe_start(struct rocx_qp *qp, uint16_t idx,
				     uint8_t opcode, unsigned int send_flags);
void rocx_wqe_set_ud(struct rocx_send_wqe *wqe, struct ibv_ah *ah,
		     uint32_t remote_qpn, uint32_t remote_qkey);
int rocx_wqe_add_sge(struct rocx_qp *qp, struct rocx_send_wqe *wqe,
		     uint32_t lkey, uint64_t addr, uint32_t length);
int rocx_wqe_add_inline(struct rocx_qp *qp, struct rocx_send_wqe *wqe,
			const void *data, size_t length);

/* clock.c */
int rocx_query_rt_values(struct ibv_context *context,
			 struct ibv_values_ex *values);
/* The wall-clock time of device time @dev_ns; CQ locked. */
uint64_t rocx_cq_wallclock_ns(struct rocx_cq *cq, uint64_t dev_ns);

/* resize.c: EOPNOTSUPP from a kernel or device without resizing. */
int rocx_resize_cq(struct ibv_cq *cq, int cqe);
/* Grow @srq to hold @max_wr; the caller checked it is more than now. */
int rocx_srq_resize(struct rocx_srq *srq, uint32_t max_wr);

/* qp_ex.c */
struct ibv_qp *rocx_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);

/* mcast.c */
int rocx_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid);
int rocx_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid);

#endif /* __ROCX_H__ */
