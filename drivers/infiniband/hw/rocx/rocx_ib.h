/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx_ib: RDMA driver for the rocx RoCE adapter.
 *
 * rocx_core owns the PCI function, the admin queue and the netdev; this
 * driver binds to the auxiliary device rocx_core creates and turns it into
 * an ib_device: user contexts, PDs, ports and the GID table, and the RDMA
 * objects (MRs, MWs, CQs, QPs, SRQs, AHs, XRC domains) for user space,
 * whose queues the rdma-core provider drives directly, and for kernel
 * consumers, whose data path is rocx_ib_datapath.c.
 *
 * The prototypes below go by file, the admin layer (rocx_ib_admin.c),
 * which every other file calls, first.
 */
#ifndef _ROCX_IB_H_
#define _ROCX_IB_H_

#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rocx-abi.h>
#include <rocx/rocx_if.h>
#include <rocx/rocx_verbs.h>

#include "rocx_api.h"
#include "rocx_ib_compat.h"

/* One RoCE port per PCI function (rocx-device.rst, "PCI identity"). */
#define ROCX_IB_PORT		1

/*
 * Local CA ACK delay exponent reported to ib_core: 4.096 us * 2^15, about
 * 134 ms, so that peers' retransmit timers leave room for a TCG guest.
 */
#define ROCX_IB_LOCAL_ACK_DELAY	15

/* Largest RoCE message: the IBA limit of 2^31 bytes. */
#define ROCX_IB_MAX_MSG_SZ	0x80000000U

/*
 * The completion EQ: EQ 0 is rocx_core's, and vectors 0 and 1 are its too
 * (rocx-device.rst, "Interrupts").
 */
#define ROCX_IB_CEQ_EQN		1
#define ROCX_IB_CEQ_VECTOR	2

/* Queue geometry the contract allows (rocx_verbs.h, CREATE_CQ/CREATE_QP). */
#define ROCX_IB_CQ_MIN_LOG_DEPTH	1
#define ROCX_IB_CQ_MAX_LOG_DEPTH	16
#define ROCX_IB_SQ_MIN_LOG_DEPTH	1
#define ROCX_IB_WQ_MAX_LOG_DEPTH	15
#define ROCX_IB_SQ_MIN_WQE_SHIFT	6
#define ROCX_IB_SQ_MAX_WQE_SHIFT	10
#define ROCX_IB_RQ_MIN_WQE_SHIFT	4
#define ROCX_IB_RQ_MAX_WQE_SHIFT	9

/*
 * The first layout of each request, which every provider sends (requests
 * only grow), and the request comp_mask bits this kernel takes.
 */
#define ROCX_IB_CQ_REQ_MIN	offsetofend(struct rocx_create_cq_req, comp_mask)
#define ROCX_IB_QP_REQ_MIN	offsetofend(struct rocx_create_qp_req, comp_mask)
#define ROCX_IB_CQ_REQ_COMP	((u32)ROCX_CREATE_CQ_REQ_CQE_FORMAT)
#define ROCX_IB_QP_REQ_COMP	((u32)ROCX_CREATE_QP_REQ_DB_RECORD)
#define ROCX_IB_SRQ_REQ_MIN	offsetofend(struct rocx_create_srq_req, comp_mask)
#define ROCX_IB_SRQ_REQ_COMP	0U
#define ROCX_IB_RESIZE_CQ_REQ_MIN \
	offsetofend(struct rocx_resize_cq_req, comp_mask)
#define ROCX_IB_MODIFY_SRQ_REQ_MIN \
	offsetofend(struct rocx_modify_srq_req, comp_mask)

#define ROCX_IB_PSN_MASK		GENMASK(23, 0)
#define ROCX_IB_QPN_MASK		GENMASK(23, 0)
#define ROCX_IB_FLOW_LABEL_MASK		GENMASK(19, 0)

struct ib_umem;
struct rocx_ib_dev;

/**
 * struct rocx_ib_eq - the completion event queue
 * @dev: owner
 * @ring: 2^@log_depth entries written by the device
 * @dma: bus address of @ring
 * @log_depth: log2 of the depth
 * @eqn: device EQ number
 * @vector: MSI-X vector
 * @irq: Linux IRQ number of @vector
 * @ci: free-running consumer index; only the interrupt handler touches it
 *	while the EQ exists
 * @created: the device holds the EQ.  Set before registration and
 *	cleared after unregistration, so CQ creation reads it without a
 *	lock; the interrupt handler does nothing while it is clear.
 * @name: the handler's name in /proc/interrupts
 */
struct rocx_ib_eq {
	struct rocx_ib_dev *dev;
	struct rocx_eqe *ring;
	dma_addr_t dma;
	u8 log_depth;
	u8 eqn;
	u8 vector;
	int irq;
	u32 ci;
	bool created;
	char name[48];
};

/**
 * struct rocx_ib_dev - one registered ib_device
 * @ibdev: the RDMA core's device; first, as ib_alloc_device() requires
 * @adev: the auxiliary device this driver is bound to
 * @core: rocx_core's handle, passed to every rocx_api.h call
 * @pdev: PCI function, parent and DMA device of @ibdev
 * @netdev: the port's Ethernet interface (rocx_core keeps it registered
 *	for as long as @adev exists)
 * @id: identify block, owned by rocx_core, valid while bound
 * @port_lock: serialises port state reports to ib_core
 * @link_up: last port state reported to ib_core; protected by @port_lock
 * @pgsz_bitmap: page sizes page lists may use (rocx_ib_pgsz_bitmap())
 * @ceq: the completion EQ
 * @cq_xa: cqn -> struct rocx_ib_cq.  Its lock is taken in hard interrupt
 *	context and held across comp_handler and event_handler calls, so
 *	that a CQ out of the table has no call running.
 * @qp_xa: qpn -> struct rocx_ib_qp; its lock is held across
 *	event_handler calls, as for @cq_xa.  Interrupt-safe like @cq_xa:
 *	both xarrays share one lockdep class (xa_init_flags() is inline),
 *	and a QP lookup from the completion path is where kernel verbs go
 * @srq_xa: srqn -> struct rocx_ib_srq, interrupt-safe and held across
 *	event_handler calls, as @qp_xa
 */
struct rocx_ib_dev {
	struct ib_device ibdev;
	struct auxiliary_device *adev;
	struct rocx_core *core;
	struct pci_dev *pdev;
	struct net_device *netdev;
	const struct rocx_identify *id;
	struct mutex port_lock;	/* protects link_up, orders reports */
	bool link_up;
	unsigned long pgsz_bitmap;
	struct rocx_ib_eq ceq;
	struct xarray cq_xa;
	struct xarray qp_xa;
	struct xarray srq_xa;
};

/**
 * struct rocx_ib_mmap_entry - something a user context may mmap()
 * @rdma: ib_core's entry; it owns the mmap offset and the reference count
 * @addr: bus address of the page (a doorbell page in BAR2)
 */
struct rocx_ib_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	phys_addr_t addr;
};

/**
 * struct rocx_ib_ucontext - a user context (one open of the uverbs device)
 * @ibuc: ib_core's context
 * @uctx: device user-context id, which is also its doorbell page number
 * @db_entry: mmap entry of the doorbell page
 */
struct rocx_ib_ucontext {
	struct ib_ucontext ibuc;
	u32 uctx;
	struct rdma_user_mmap_entry *db_entry;
};

/**
 * struct rocx_ib_pd - a protection domain
 * @ibpd: ib_core's PD
 * @pdn: device PD number
 * @uctx: owning user context id, 0 for a kernel PD
 */
struct rocx_ib_pd {
	struct ib_pd ibpd;
	u32 pdn;
	u32 uctx;
};

/**
 * struct rocx_ib_pbl - a page list being handed to the device
 * @dma_dev: device the tables are mapped for
 * @npages: pages in the list
 * @page_shift: log2 of their size
 * @levels: 0 (@addr0 is the page), 1 or 2 (tables, @tbl[0] the root)
 * @addr0: the single page of a level 0 list
 * @ntbl: 4 KiB table pages: 1 for level 1, 1 + leaves for level 2
 * @tbl: the table pages (level 2: @tbl[1..] hold the page addresses)
 * @tbl_dma: their bus addresses
 */
struct rocx_ib_pbl {
	struct device *dma_dev;
	u32 npages;
	u8 page_shift;
	u8 levels;
	u64 addr0;
	unsigned int ntbl;
	__le64 **tbl;
	dma_addr_t *tbl_dma;
};

/**
 * struct rocx_ib_mr - a memory region
 * @ibmr: ib_core's MR; lkey == rkey == the device key
 * @umem: the pinned memory of a user MR; NULL for the kernel's MRs
 * @ib_access: its IB_ACCESS_* flags (rereg_user_mr pins new pages with them)
 * @pbl: a fast-register MR's page list (rocx_ib_fr.c), the driver's for
 *	the MR's life: @pbl.npages is its room, map_mr_sg fills it, REG_MR
 *	WQEs name it
 * @npages: pages the last map_mr_sg stored in @pbl
 */
struct rocx_ib_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	int ib_access;
	struct rocx_ib_pbl pbl;
	u32 npages;
};

/**
 * struct rocx_ib_mw - a memory window (ROCX_CAP2_MW)
 * @ibmw: ib_core's window; rkey is the device key
 */
struct rocx_ib_mw {
	struct ib_mw ibmw;
};

/* Kernel rings are made of, and described to the device in, 4 KiB pages. */
#define ROCX_IB_KPAGE_SHIFT	12
#define ROCX_IB_KPAGE_SIZE	BIT(ROCX_IB_KPAGE_SHIFT)

/**
 * struct rocx_ib_kbuf - a kernel object's ring in pages of coherent memory
 * @va: kernel address of the first page, NULL for a user object
 * @pages: kernel address of each page
 * @dma: bus address of each page
 * @npages: pages
 * @size: bytes, @npages * 4 KiB
 *
 * The device finds the pages through the ring's page list, so they need
 * not be contiguous, and a ring of any size the device takes can be
 * allocated when memory is fragmented (a contiguous one of more than
 * 4 MiB cannot be at all).  No entry crosses a page: entries are powers
 * of two of at most 4 KiB, at offsets that are multiples of their size.
 */
struct rocx_ib_kbuf {
	void *va;
	void **pages;
	dma_addr_t *dma;
	u32 npages;
	size_t size;
};

/* The byte at @off of a kernel ring. */
static inline void *rocx_ib_kbuf_at(const struct rocx_ib_kbuf *kb, size_t off)
{
	return (u8 *)kb->pages[off >> ROCX_IB_KPAGE_SHIFT] +
	       (off & (ROCX_IB_KPAGE_SIZE - 1));
}

/**
 * struct rocx_ib_cq - a completion queue, user-space or kernel ring
 * @ibcq: ib_core's CQ; cqe is the ring's depth
 * @umem: the pinned ring (user CQ)
 * @cqn: device CQ number
 * @log_depth: log2 of the ring depth
 * @cqe_format: enum rocx_cqe_format of the ring's entries
 * @kbuf: the ring of a kernel CQ (rocx_ib_datapath.c)
 * @lock: kernel CQ: protects @ci, @db_ci, the CQ doorbell and the
 *	consumer indexes (ci) of the work queues completing here; taken
 *	irqsave, since poll_cq and req_notify_cq run in any context
 * @ci: kernel CQ: free-running consumer index
 * @db_ci: kernel CQ: the index last handed back through the doorbell
 * @db_batch: kernel CQ: entries polled before they are handed back
 * @sw_send: kernel CQ: QPs sending here that the driver flushes
 *	(rocx_ib_flush.c); under @lock
 * @sw_recv: kernel CQ: the same for QPs receiving here
 * @dying: kernel CQ: QPs on an SRQ receiving here that are being
 *	destroyed (rocx_ib_qp.@dying); under @lock
 * @armed: kernel CQ: req_notify_cq armed it and no completion event has
 *	come since; under @lock
 */
struct rocx_ib_cq {
	struct ib_cq ibcq;
	struct ib_umem *umem;
	/* Serialises resize_cq (rocx_ib_resize.c); protects @umem, @log_depth. */
	struct mutex resize_lock;
	u32 cqn;
	u8 log_depth;
	u8 cqe_format;
	struct rocx_ib_kbuf kbuf;
	spinlock_t lock;	/* kernel CQ: see above */
	u32 ci;
	u32 db_ci;
	u32 db_batch;
	struct list_head sw_send;
	struct list_head sw_recv;
	struct list_head dying;
	bool armed;
};

/**
 * struct rocx_ib_kwq - a kernel QP's send or receive queue
 * @lock: protects posting: @pi, the entries from @pi on, their @wrid
 *	slots and the queue's doorbell (rung in @pi order); irqsave
 * @kb: the QP's ring, which holds the queue
 * @base: the byte offset of entry 0 in @kb
 * @wrid: the wr_id of each entry, by index
 * @depth: entries, a power of two; 0: no queue
 * @wqe_shift: log2 of an entry's size
 * @max_sge: SGEs an entry holds
 * @max_inline: send queue: inline bytes an entry holds
 * @pi: free-running producer index
 * @ci: oldest entry not completed.  Written only by poll_cq of the
 *	queue's CQ, under that CQ's lock, with release order after it has
 *	read the entry's wr_id; post reads it with acquire order.
 */
struct rocx_ib_kwq {
	spinlock_t lock;	/* posting; see above */
	const struct rocx_ib_kbuf *kb;
	size_t base;
	u64 *wrid;
	u32 depth;
	u8 wqe_shift;
	u32 max_sge;
	u32 max_inline;
	u16 pi;
	u16 ci;
};

/**
 * struct rocx_ib_qp - an RC or UD queue pair with user-space queues
 * @ibqp: ib_core's QP; qp_num is the device qpn
 * @umem: the pinned SQ and RQ buffer
 * @lock: serialises modify, query and destroy; protects @state and
 *	@destroyed
 * @destroyed: destroy_qp has let go of the QP in the device; a resource
 *	query (restrack), which ib_core lets run until it frees the QP,
 *	must not name its number any more
 * @state: state after the last successful modify (or query: the device
 *	moves QPs to ERR on its own)
 * @cap: capabilities of the queues as created
 * @sq_sig_all: every send WQE completes with a CQE
 * @kbuf: the SQ and RQ of a kernel QP (rocx_ib_datapath.c)
 * @sq: kernel QP: the send queue
 * @rq: kernel QP: the receive queue (depth 0: none)
 * @kdbrec: kernel QP: its SQ doorbell record in @kbuf, or NULL if the
 *	device has none (written under @sq's lock)
 * @sw_err: kernel QP: the device is gone and the driver flushes the
 *	QP's work (rocx_ib_flush.c); set once, under dev->qp_xa's lock
 * @sw_last_wqe: kernel QP on an SRQ: the driver reported QP_LAST_WQE;
 *	under @lock
 * @sw_send: kernel QP with @sw_err: on its send CQ's @sw_send list
 * @sw_recv: kernel QP with @sw_err: on its receive CQ's @sw_recv list
 * @dying: kernel QP on an SRQ that destroy_qp has taken out of
 *	dev->qp_xa and not yet cleaned out of its CQs: on its receive CQ's
 *	@dying list, under that CQ's lock
 */
struct rocx_ib_qp {
	struct ib_qp ibqp;
	struct ib_umem *umem;
	struct mutex lock;	/* modify/query/destroy; see above */
	bool destroyed;
	enum ib_qp_state state;
	struct ib_qp_cap cap;
	bool sq_sig_all;
	struct rocx_ib_kbuf kbuf;
	struct rocx_ib_kwq sq;
	struct rocx_ib_kwq rq;
	struct rocx_db_record *kdbrec;
	bool sw_err;
	bool sw_last_wqe;
	struct list_head sw_send;
	struct list_head sw_recv;
	struct list_head dying;
};

/**
 * struct rocx_ib_ah - an address handle (UD)
 * @ibah: ib_core's AH
 * @av: the address vector kernel UD work requests carry (a user AH's
 *	provider holds its own copy)
 */
struct rocx_ib_ah {
	struct ib_ah ibah;
	struct rocx_av av;
};

/**
 * struct rocx_ib_wqe_ctx - what encoding a send WQE depends on
 * @qp_type: the QP's type (UD and GSI carry an address vector)
 * @sig_all: the QP completes every WQE
 * @max_sge: SGEs an entry holds
 * @max_inline: inline bytes an entry holds
 */
struct rocx_ib_wqe_ctx {
	enum ib_qp_type qp_type;
	bool sig_all;
	u32 max_sge;
	u32 max_inline;
};

/**
 * struct rocx_ib_xrcd - an XRC domain (ROCX_CAP2_XRC)
 * @ibxrcd: ib_core's object
 * @xrcdn: the device's number for it
 */
struct rocx_ib_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
};

/**
 * struct rocx_ib_srq - a shared receive queue with a user-space ring
 * @ibsrq: ib_core's SRQ
 * @umem: the pinned ring
 * @lock: serialises modify and query, so a query sees the last limit set
 * @srqn: device SRQ number
 * @wqe_shift: log2 of a ring entry's size
 * @attr: max_wr and max_sge of the ring as created
 * @kbuf: the ring of a kernel SRQ (rocx_ib_ksrq.c); va NULL for a user SRQ
 * @klock: kernel SRQ: protects @pi, @wrid, @free_tags, @held, @nfree and
 *	the SRQ doorbell; irqsave, taken by post_srq_recv and, inside a
 *	CQ's lock, by poll_cq
 * @wrid: kernel SRQ: the wr_id of each outstanding entry, by tag
 * @free_tags: kernel SRQ: stack of the tags not outstanding
 * @held: kernel SRQ: bitmap of the tags outstanding
 * @nfree: kernel SRQ: entries on @free_tags
 * @pi: kernel SRQ: free-running producer index
 */
struct rocx_ib_srq {
	struct ib_srq ibsrq;
	struct ib_umem *umem;
	/* Orders MODIFY_SRQ and QUERY_SRQ; protects @umem and @attr (resize). */
	struct mutex lock;
	u32 srqn;
	u8 wqe_shift;
	struct ib_srq_attr attr;
	struct rocx_ib_kbuf kbuf;
	spinlock_t klock;	/* kernel SRQ: see rocx_ib_ksrq.c */
	u64 *wrid;
	u16 *free_tags;
	unsigned long *held;
	u32 nfree;
	u16 pi;
};

static inline struct rocx_ib_dev *to_rocx_ib_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rocx_ib_dev, ibdev);
}

static inline struct rocx_ib_ucontext *
to_rocx_ib_ucontext(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct rocx_ib_ucontext, ibuc);
}

static inline struct rocx_ib_pd *to_rocx_ib_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct rocx_ib_pd, ibpd);
}

static inline struct rocx_ib_mmap_entry *
to_rocx_ib_mmap_entry(struct rdma_user_mmap_entry *rdma)
{
	return container_of(rdma, struct rocx_ib_mmap_entry, rdma);
}

static inline struct rocx_ib_mr *to_rocx_ib_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct rocx_ib_mr, ibmr);
}

static inline struct rocx_ib_cq *to_rocx_ib_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct rocx_ib_cq, ibcq);
}

static inline struct rocx_ib_qp *to_rocx_ib_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct rocx_ib_qp, ibqp);
}

static inline struct rocx_ib_srq *to_rocx_ib_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct rocx_ib_srq, ibsrq);
}

static inline struct rocx_ib_xrcd *to_rocx_ib_xrcd(struct ib_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct rocx_ib_xrcd, ibxrcd);
}

static inline struct rocx_ib_ah *to_rocx_ib_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct rocx_ib_ah, ibah);
}

/* rocx_ib_admin.c: commands, their results, providers' requests. */
int rocx_ib_admin(struct rocx_ib_dev *dev, union rocx_aq_cmd *cmd,
		  struct rocx_aq_cqe *cqe);
int rocx_ib_exec(struct rocx_ib_dev *dev, union rocx_aq_verbs_cmd *cmd,
		 struct rocx_aq_cqe *cqe);
int rocx_ib_verbs_errno(int err);
int rocx_ib_db_page(struct rocx_ib_dev *dev, u32 uctx, phys_addr_t *phys);

/* What a destroy command's result leaves behind (rocx_ib_destroy_outcome()). */
enum rocx_ib_destroy_outcome {
	ROCX_IB_DESTROYED,
	ROCX_IB_DESTROY_REFUSED,
	ROCX_IB_DESTROY_UNKNOWN,
};

enum rocx_ib_destroy_outcome rocx_ib_destroy_outcome(int err);

/**
 * struct rocx_ib_obj_kind - a kind of object the verbs create and destroy
 *	alike (CQ, QP, SRQ), for rocx_ib_obj_publish() and
 *	rocx_ib_obj_destroy()
 * @name: its name in the log and in its DESTROY command's: "CQ"
 * @num: the name of its number: "cqn"
 * @mem: what of it the device may use after an unanswered destroy
 * @destroy: runs its DESTROY command on number @n
 */
struct rocx_ib_obj_kind {
	const char *name;
	const char *num;
	const char *mem;
	int (*destroy)(struct rocx_ib_dev *dev, u32 n);
};

int rocx_ib_obj_publish(struct rocx_ib_dev *dev,
			const struct rocx_ib_obj_kind *kind, struct xarray *xa,
			u32 n, void *obj, struct ib_udata *udata, void *resp,
			size_t len, bool *gone);
enum rocx_ib_destroy_outcome
rocx_ib_obj_destroy(struct rocx_ib_dev *dev, const struct rocx_ib_obj_kind *kind,
		    struct xarray *xa, u32 n, void *obj, int *err);
int rocx_ib_udata_in(struct ib_udata *udata, void *req, size_t len,
		     size_t min_len);
int rocx_ib_udata_out(struct ib_udata *udata, void *resp, size_t len);

/* rocx_ib_verbs.c: device, port and context verbs. */
int rocx_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			 struct ib_udata *udata);
void rocx_ib_get_dev_fw_str(struct ib_device *ibdev, char *str);
int rocx_ib_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *attr);
int rocx_ib_get_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *immutable);
enum rdma_link_layer rocx_ib_get_link_layer(struct ib_device *ibdev,
					    u32 port);
int rocx_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		       u16 *pkey);
int rocx_ib_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void rocx_ib_dealloc_ucontext(struct ib_ucontext *ibuc);
void rocx_ib_disassociate_ucontext(struct ib_ucontext *ibuc);
int rocx_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void rocx_ib_mmap_free(struct rdma_user_mmap_entry *rdma);
int rocx_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int rocx_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* rocx_ib_mr.c */
struct ib_mr *rocx_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access_flags,
				  struct ib_udata *udata);
int rocx_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* rocx_ib_fr.c (ROCX_CAP2_FAST_REG) */
struct ib_mr *rocx_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg);
int rocx_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset);
struct ib_mr *rocx_ib_get_dma_mr(struct ib_pd *ibpd, int access_flags);
void rocx_ib_fr_init(struct rocx_ib_dev *dev);
bool rocx_ib_fr_supported(const struct rocx_identify *id);
u32 rocx_ib_fr_max_pages(const struct rocx_identify *id);
int rocx_ib_fr_access(int ib_access, u32 *access);

/* rocx_ib_mw.c */
int rocx_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int rocx_ib_dealloc_mw(struct ib_mw *ibmw);
struct ib_mr *rocx_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				    u64 length, u64 virt_addr, int access_flags,
				    struct ib_pd *ibpd, struct ib_udata *udata);

/* rocx_ib_cq.c */
int rocx_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs);
int rocx_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
void rocx_ib_cq_comp(struct rocx_ib_dev *dev, u32 cqn);
bool rocx_ib_kcq_event(struct rocx_ib_cq *cq, bool lost);
void rocx_ib_cq_event(struct rocx_ib_dev *dev, u32 cqn);
u32 rocx_ib_cq_req_comp(const struct rocx_identify *id);
u32 rocx_ib_qp_req_comp(const struct rocx_identify *id);

/* rocx_ib_qp.c */
int rocx_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		      struct ib_udata *udata);
int rocx_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata);
/**
 * struct rocx_ib_qp_cc - a QP's DCQCN reaction point, as the device has it
 * @cur_rate: the rate the requester paces the QP at, Mb/s
 * @tgt_rate: the rate it recovers towards, Mb/s
 * @alpha: the congestion estimate, 1/1024
 */
struct rocx_ib_qp_cc {
	u32 cur_rate;
	u32 tgt_rate;
	u32 alpha;
};

int rocx_ib_qp_query_cc(struct rocx_ib_qp *qp, struct rocx_ib_qp_cc *cc);
int rocx_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init);
int rocx_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void rocx_ib_qp_event(struct rocx_ib_dev *dev, u32 qpn, u64 info);
int rocx_ib_av_from_ah(const struct rdma_ah_attr *ah, struct rocx_av *av);
/* Shared with kernel QPs (rocx_ib_datapath.c). */
int rocx_ib_qp_type(enum ib_qp_type type, u64 caps2);
int rocx_ib_qp_check(const struct rocx_identify *id,
		     const struct ib_qp_cap *cap,
		     const struct rocx_create_qp_req *req);
void rocx_ib_qp_caps(const struct rocx_identify *id,
		     const struct rocx_create_qp_req *req,
		     struct ib_qp_cap *cap);
size_t rocx_ib_qp_buf_size(const struct rocx_create_qp_req *req);
void rocx_ib_qp_create_cmd(struct rocx_aq_create_qp *cmd,
			   const struct ib_qp_init_attr *init, u8 type,
			   u8 flags, const struct rocx_create_qp_req *req,
			   u32 pdn, u32 uctx, const struct rocx_ib_pbl *pbl);

/* rocx_ib_wqe.c: the kernel's WQE encoders. */
int rocx_ib_wqe_build(const struct rocx_ib_wqe_ctx *ctx, void *buf, u16 idx,
		      const struct ib_send_wr *wr);
int rocx_ib_recv_wqe_build(void *buf, u16 idx, const struct ib_recv_wr *wr,
			   u32 max_sge);
int rocx_ib_wqe_reg_mr(struct rocx_send_wqe *wqe, u16 idx,
		       const struct ib_reg_wr *wr);
void rocx_ib_wqe_local_inv(struct rocx_send_wqe *wqe, u16 idx,
			   const struct ib_send_wr *wr);

/* rocx_ib_ah.c */
int rocx_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata);
int rocx_ib_create_user_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata);
int rocx_ib_destroy_ah(struct ib_ah *ibah, u32 flags);

/* rocx_ib_srq.c (ROCX_CAP2_SRQ) */
int rocx_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata);
int rocx_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata);
int rocx_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int rocx_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
void rocx_ib_srq_event(struct rocx_ib_dev *dev, u32 srqn, u16 type);
void rocx_ib_qp_last_wqe(struct rocx_ib_dev *dev, u32 qpn);

/* rocx_ib_resize.c */
int rocx_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int rocx_ib_resize_srq(struct rocx_ib_dev *dev, struct rocx_ib_srq *srq,
		       u32 max_wr, const struct rocx_modify_srq_req *req);

/* XRC (rocx_ib_xrc.c) */
int rocx_ib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int rocx_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int rocx_ib_xrc_srq_fill(struct rocx_ib_dev *dev,
			 const struct ib_srq_init_attr *init,
			 struct rocx_aq_create_srq *cs);
int rocx_ib_xrc_create_tgt(struct rocx_ib_dev *dev, struct rocx_ib_qp *qp,
			   struct ib_qp_init_attr *init);
/* rocx_ib_restrack.c: driver attributes of `rdma resource show`. */
int rocx_ib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int rocx_ib_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int rocx_ib_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
/* rocx_ib_mcast.c */
int rocx_ib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int rocx_ib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
u8 rocx_ib_mcast_qp_flags(u64 caps2, enum ib_qp_type type, u32 *create_flags);
/* rocx_ib_stats.c: hardware counters, for a device with any of them. */
extern const struct ib_device_ops rocx_ib_stats_ops;
bool rocx_ib_has_stats(struct rocx_ib_dev *dev);
/* rocx_ib_sched.c: a QP's rate limit. */
int rocx_ib_rate_limit_check(u64 caps2, u32 max_speed, enum ib_qp_type type,
			     enum ib_qp_state cur, enum ib_qp_state next,
			     u32 kbps);

/* rocx_ib_datapath.c: kernel CQs and QPs, and their data path. */
int rocx_ib_kcq_create(struct rocx_ib_dev *dev, struct rocx_ib_cq *cq,
		       const struct ib_cq_init_attr *attr);
void rocx_ib_kcq_free(struct rocx_ib_dev *dev, struct rocx_ib_cq *cq);
int rocx_ib_kqp_create(struct rocx_ib_dev *dev, struct rocx_ib_qp *qp,
		       struct ib_qp_init_attr *init);
void rocx_ib_kqp_reset(struct rocx_ib_qp *qp);
void rocx_ib_kqp_free(struct rocx_ib_dev *dev, struct rocx_ib_qp *qp);
void rocx_ib_kqp_dying(struct rocx_ib_qp *qp, bool dying);

/* rocx_ib_flush.c: a kernel QP's flush once the device is gone. */
void rocx_ib_qp_sw_err(struct rocx_ib_dev *dev, struct rocx_ib_qp *qp);
void rocx_ib_qp_sw_kick(struct rocx_ib_qp *qp);
void rocx_ib_qp_sw_forget(struct rocx_ib_qp *qp);
int rocx_ib_kcq_sw_flush(struct rocx_ib_cq *cq, int num_entries,
			 struct ib_wc *wc);
int rocx_ib_kbuf_alloc(struct rocx_ib_dev *dev, struct rocx_ib_kbuf *kb,
		       size_t size, struct rocx_ib_pbl *pbl);
void rocx_ib_kbuf_free(struct rocx_ib_dev *dev, struct rocx_ib_kbuf *kb);

/*
 * rocx_ib_ksrq.c: kernel SRQs and their data path, on rocx_ib_srq.c's
 * ring check and capabilities.
 */
int rocx_ib_srq_check(const struct rocx_identify *id,
		      const struct ib_srq_attr *attr,
		      const struct rocx_create_srq_req *req);
void rocx_ib_srq_create_cmd(struct rocx_aq_create_srq *cs, u32 uctx, u32 pdn,
			    const struct rocx_create_srq_req *req,
			    const struct rocx_ib_pbl *pbl);
void rocx_ib_srq_caps(const struct rocx_identify *id,
		      const struct rocx_create_srq_req *req,
		      struct ib_srq_attr *attr);
int rocx_ib_srq_wqe_build(void *buf, u16 idx, u16 tag,
			  const struct ib_recv_wr *wr, u32 max_sge);
int rocx_ib_ksrq_create(struct rocx_ib_dev *dev, struct rocx_ib_srq *srq,
			struct ib_srq_init_attr *init);
void rocx_ib_ksrq_free(struct rocx_ib_dev *dev, struct rocx_ib_srq *srq);
bool rocx_ib_ksrq_complete(struct rocx_ib_srq *srq, u16 tag, u64 *wr_id);
int rocx_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
int rocx_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr);
int rocx_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
int rocx_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int rocx_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* rocx_ib_eq.c */
int rocx_ib_ceq_create(struct rocx_ib_dev *dev);
void rocx_ib_ceq_destroy(struct rocx_ib_dev *dev);

/* rocx_ib_pbl.c: page lists, also fast-register MRs' (rocx_ib_fr.c). */
int rocx_ib_pbl_init(struct rocx_ib_pbl *pbl, struct device *dma_dev,
		     u32 npages, u8 page_shift);
void rocx_ib_pbl_set(struct rocx_ib_pbl *pbl, u32 i, u64 addr);
int rocx_ib_pbl_from_umem(struct rocx_ib_pbl *pbl, struct device *dma_dev,
			  struct ib_umem *umem, unsigned long pgsz_bitmap,
			  u64 iova, u32 *offset);
void rocx_ib_pbl_to_hw(const struct rocx_ib_pbl *pbl, struct rocx_pbl *hw);
void rocx_ib_pbl_destroy(struct rocx_ib_pbl *pbl);
unsigned long rocx_ib_pgsz_bitmap(u64 page_size_cap);

/* Translations shared by several files (rocx_ib_test.c covers them). */
u32 rocx_ib_access(int ib_access);
int rocx_ib_access_to_ib(u32 access);
/* rocx_ib_mr.c, also for rereg_user_mr (rocx_ib_mw.c). */
int rocx_ib_mr_access(int ib_access, u64 caps2, u32 *access);

/* rocx_ib_gid.c: the device GID table mirrors ib_core's. */
int rocx_ib_add_gid(const struct ib_gid_attr *attr, void **context);
int rocx_ib_del_gid(const struct ib_gid_attr *attr, void **context);

/**
 * struct rocx_ib_cc_param - one file of the port's cc_param directory
 * @name: the file's name, mlx5's cc_params name of the field
 * @valid: its ROCX_CC_* bit
 * @off: its byte offset in struct rocx_cc_cfg
 * @size: 1 (u8) or 4 (__le32)
 * @min: smallest value the device takes
 * @max: largest one; U32_MAX: the device's max_speed
 * @hex: shown as 0xNN (the per-priority bit masks)
 */
struct rocx_ib_cc_param {
	const char *name;
	u32 valid;
	u8 off;
	u8 size;
	u32 min;
	u32 max;
	bool hex;
};

/* Every field of struct rocx_cc_cfg has a file. */
#define ROCX_IB_CC_NUM_PARAMS	18

/* rocx_ib_cc.c: the cc_param port group, for ROCX_CAP2_DCQCN devices. */
extern const struct ib_device_ops rocx_ib_cc_ops;

/*
 * Pure translations between the device contract and ib_core's types.  They
 * are static unless KUnit is enabled, when rocx_ib_test.c calls them.
 */
#if IS_ENABLED(CONFIG_KUNIT)
enum ib_mtu rocx_ib_mtu_from_netdev(unsigned int mtu);
void rocx_ib_speed_width(u32 gbps, u16 *speed, u8 *width);
u8 rocx_ib_phys_state(u32 link_status);
void rocx_ib_identify_to_attr(const struct rocx_identify *id,
			      struct ib_device_attr *attr);
int rocx_ib_gid_type(enum ib_gid_type type);
void rocx_ib_set_gid_cmd(union rocx_aq_cmd *cmd, u16 index, u8 type,
			 u16 vlan, const u8 *mac, const union ib_gid *gid);
enum ib_event_type rocx_ib_link_event(u32 link_status);
void rocx_ib_ceq_lost(struct rocx_ib_dev *dev, u64 n);
int rocx_ib_pbl_levels(u32 npages);
int rocx_ib_cq_check(const struct rocx_identify *id, int cqe,
		     const struct rocx_create_cq_req *req);
int rocx_ib_qp_attr_mask(int ib_mask, u32 *valid);
int rocx_ib_path_mtu(enum ib_mtu mtu);
enum ib_mtu rocx_ib_mtu_of_path(u8 path_mtu);
bool rocx_ib_path_mtu_fits(enum ib_mtu path_mtu, unsigned int netdev_mtu);
int rocx_ib_net_type(enum rdma_network_type type);
enum ib_qp_state rocx_ib_qp_state_of(u8 state);
enum ib_event_type rocx_ib_qp_event_type(u64 info);
int rocx_ib_qp_attr_encode(const struct ib_qp_attr *attr, u32 valid,
			   struct rocx_qp_attr *qa);
void rocx_ib_av_encode(struct rocx_av *av, const struct ib_global_route *grh,
		       const u8 *dmac, u16 vlan, u8 net_type, u8 prio);
void rocx_ib_ah_resp(const struct rocx_av *av,
		     struct rocx_create_ah_resp *resp);
void rocx_ib_ksrq_geometry(const struct ib_srq_attr *attr,
			   struct rocx_create_srq_req *req);
int rocx_ib_resize_cq_check(const struct rocx_identify *id, int cqe,
			    const struct rocx_resize_cq_req *req);
int rocx_ib_resize_srq_check(const struct rocx_identify *id, u32 max_wr,
			     const struct rocx_modify_srq_req *req);
void rocx_ib_mcast_cmd(union rocx_aq_verbs_cmd *cmd, u16 op, u32 qpn,
		       const union ib_gid *gid);
int rocx_ib_stat_index(unsigned int i);
unsigned int rocx_ib_stats_num(unsigned int num_stats);
struct rdma_hw_stats *rocx_ib_stats_alloc(unsigned int num_stats);
int rocx_ib_stats_read(struct rocx_ib_dev *dev, u64 *buf, unsigned int n);
int rocx_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index);
void rocx_ib_ucontext_resp(const struct rocx_ib_dev *dev,
			   const struct rocx_ib_ucontext *uc,
			   struct rocx_alloc_ucontext_resp *resp);
extern const struct rocx_ib_cc_param rocx_ib_cc_params[ROCX_IB_CC_NUM_PARAMS];
const struct rocx_ib_cc_param *rocx_ib_cc_find(const char *name);
int rocx_ib_cc_parse(const struct rocx_ib_cc_param *p, const char *buf,
		     u32 max_speed, struct rocx_cc_cfg *cfg);
u32 rocx_ib_cc_value(const struct rocx_ib_cc_param *p,
		     const struct rocx_cc_cfg *cfg);
void rocx_ib_cqe_to_wc(const struct rocx_cqe *cqe, enum ib_qp_type type,
		       struct ib_wc *wc);
void rocx_ib_kqp_geometry(const struct ib_qp_cap *cap,
			  struct rocx_create_qp_req *req);
void rocx_ib_kqp_report_caps(struct ib_qp_cap *out,
			     const struct ib_qp_cap *cap);
bool rocx_ib_kqp_record(struct rocx_db_record *rec, u16 pi);
#endif

#endif /* _ROCX_IB_H_ */
