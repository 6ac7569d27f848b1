/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx device contract, version 1.1: RDMA transport objects and the
 * formats of the queues user space and the device share.
 *
 * Queue buffers (SQ, RQ, CQ) and memory regions live in host memory that
 * need not be contiguous; the device learns their pages from a page list
 * (struct rocx_pbl) when the object is created and keeps its own copy, so
 * the list may be freed once the command has completed.
 */
#ifndef _ROCX_VERBS_H_
#define _ROCX_VERBS_H_

#include "rocx_bits.h"
#include "rocx_if.h"

/* ======================= Page lists ======================= */

/*
 * levels = 0: addr is the single page itself (npages == 1).
 * levels = 1: addr points to npages le64 page addresses (<= 512, one
 *             4 KiB page).
 * levels = 2: addr points to up to 512 le64 addresses of 4 KiB pages,
 *             each holding 512 le64 page addresses.
 * Every page is 2^page_shift bytes and aligned to it.
 */
#define ROCX_PBL_ENTRIES_PER_PAGE	512
#define ROCX_PBL_MAX_PAGES		(512 * 512)
#define ROCX_MIN_PAGE_SHIFT		12
#define ROCX_MAX_PAGE_SHIFT		21

struct rocx_pbl {
	__le64 addr;
	__le32 npages;
	__u8 page_shift;	/* 12..21 */
	__u8 levels;		/* 0..2 */
	__le16 rsvd;
};

/* ======================= Memory regions ======================= */

/* Access flags of MRs and QPs: the device enforces them on every access. */
#define ROCX_ACCESS_LOCAL_WRITE		ROCX_BIT(0)
#define ROCX_ACCESS_REMOTE_WRITE	ROCX_BIT(1)
#define ROCX_ACCESS_REMOTE_READ		ROCX_BIT(2)
#define ROCX_ACCESS_REMOTE_ATOMIC	ROCX_BIT(3)
/* 1.2, ROCX_CAP2_MW: memory windows may be bound to the MR. */
#define ROCX_ACCESS_MW_BIND		ROCX_BIT(4)

/*
 * Keys: [31:8] MR table index, [7:0] a variant the device bumps every time
 * the index is reused, so a stale key never matches a new region.
 * lkey == rkey.
 */
#define ROCX_KEY_INDEX_MASK		ROCX_GENMASK(31, 8)
#define ROCX_KEY_VARIANT_MASK		ROCX_GENMASK(7, 0)

/* REG_MR: result = key. */
struct rocx_aq_reg_mr {
	struct rocx_aq_hdr hdr;
	__le32 pdn;
	__le32 access;		/* ROCX_ACCESS_* */
	__le64 iova;		/* address work requests use for byte 0 */
	__le64 length;
	__le32 offset;		/* offset of iova within the first page */
	__le32 rsvd1;
	struct rocx_pbl pbl;
	__u8 rsvd2[8];
};

/* DEREG_MR. */
struct rocx_aq_dereg_mr {
	struct rocx_aq_hdr hdr;
	__le32 key;
	__u8 rsvd1[52];
};

/*
 * Memory windows (1.2, ROCX_CAP2_MW).  A window's key lives in the same
 * key space as the MRs' ([31:8] index, [7:0] variant), at indices no MR
 * takes.  ALLOC_MW: result = key, unbound.  Type 1 and type 2 windows are
 * bound by a BIND_MW work request, whose mw_key carries the new variant.
 */
enum rocx_mw_type {
	ROCX_MW_TYPE_1			= 1,
	ROCX_MW_TYPE_2			= 2,
};

struct rocx_aq_alloc_mw {
	struct rocx_aq_hdr hdr;
	__le32 pdn;
	__u8 type;		/* enum rocx_mw_type */
	__u8 rsvd1[51];
};

/*
 * DEALLOC_MW: invalidates the window (if bound) and frees its key.  The
 * window is named by the key's index: any variant (binds change it).
 */
struct rocx_aq_dealloc_mw {
	struct rocx_aq_hdr hdr;
	__le32 key;
	__u8 rsvd1[52];
};

/* REREG_MR (1.2, ROCX_CAP2_MW): what valid names changes, the key stays. */
#define ROCX_REREG_TRANS		ROCX_BIT(0)	/* iova, length, offset, pbl */
#define ROCX_REREG_PD			ROCX_BIT(1)	/* pdn */
#define ROCX_REREG_ACCESS		ROCX_BIT(2)	/* access */

struct rocx_aq_rereg_mr {
	struct rocx_aq_hdr hdr;
	__le32 key;
	__le32 valid;		/* ROCX_REREG_* */
	__le32 pdn;
	__le32 access;		/* ROCX_ACCESS_* */
	__le64 iova;
	__le64 length;
	__le32 offset;		/* of iova within the first page */
	__le32 rsvd1;
	struct rocx_pbl pbl;
};

/*
 * Fast registration (1.2, ROCX_CAP2_FAST_REG; rocx-device.rst, "Fast
 * registration").  ALLOC_MR makes a fast-register MR, free until a REG_MR
 * work request gives it pages, rights and a key whose variant the consumer
 * picks, or a DMA MR (kernel PDs only): the whole bus address space, iova
 * = bus address.  result = key.
 */
enum rocx_mr_type {
	ROCX_MR_TYPE_FAST_REG		= 0,
	ROCX_MR_TYPE_DMA		= 1,
};

struct rocx_aq_alloc_mr {
	struct rocx_aq_hdr hdr;
	__le32 pdn;
	__le32 max_pages;	/* FAST_REG: 1..max_fast_reg_pages; DMA: 0 */
	__u8 type;		/* enum rocx_mr_type */
	__u8 rsvd0[3];
	__le32 access;		/* DMA: ROCX_ACCESS_*; FAST_REG: 0 */
	__u8 rsvd1[40];
};

/*
 * The local DMA lkey (1.2, ROCX_CAP2_FAST_REG): in an SGE of a QP of a
 * kernel PD, addr is a bus address.  Local access only; never an rkey.
 */
#define ROCX_LOCAL_DMA_LKEY		0

/* ======================= Completion queues ======================= */

/* CREATE_CQ: result = cqn.  The CQ's ring is 2^log_depth struct rocx_cqe. */
struct rocx_aq_create_cq {
	struct rocx_aq_hdr hdr;
	__le32 uctx;		/* owning user context (doorbell page), 0: kernel */
	__u8 log_depth;		/* 1..16 */
	__u8 eqn;		/* completion events go to this EQ */
	__le16 cqe_format;	/* 1.2: enum rocx_cqe_format, 0 before */
	struct rocx_pbl pbl;
	__u8 rsvd2[32];
};

/*
 * CQE formats (contract 1.2, ROCX_CAP2_CQE64): bit n of
 * IDENTIFY.cqe_formats says the device writes format n.
 */
enum rocx_cqe_format {
	ROCX_CQE_FORMAT_32		= 0,	/* struct rocx_cqe */
	ROCX_CQE_FORMAT_64		= 1,	/* struct rocx_cqe64 */
};

/*
 * RESIZE_CQ (1.2, ROCX_CAP2_CQ_RESIZE): the CQ moves to the new ring, its
 * unreturned CQEs copied there at the same indexes ("Resizing CQs and
 * SRQs" in rocx-device.rst).
 */
struct rocx_aq_resize_cq {
	struct rocx_aq_hdr hdr;
	__le32 cqn;
	__u8 log_depth;		/* as CREATE_CQ's; the CQE format stays */
	__u8 rsvd0[3];
	struct rocx_pbl pbl;	/* the new ring */
	__u8 rsvd1[32];
};

/* DESTROY_CQ: the device writes no more CQEs and posts no more events. */
struct rocx_aq_destroy_cq {
	struct rocx_aq_hdr hdr;
	__le32 cqn;
	__u8 rsvd1[52];
};

/*
 * A completion.  wr_id is not carried: wqe_idx names the SQ, RQ or SRQ
 * entry completed and the consumer keeps its own wr_id per entry.  A send
 * queue completion also retires every unsignalled WQE before wqe_idx.
 */
struct rocx_cqe {
	__le32 byte_len;
	__be32 imm_data;	/* immediate data or invalidated rkey, as on the wire */
	__le32 qpn_op;		/* [23:0] qpn, [31:24] enum rocx_cqe_opcode */
	__le32 src_qp_status;	/* [23:0] source QP (UD), [31:24] enum rocx_wc_status */
	__le16 wqe_idx;		/* index of the completed WQE */
	__u8 vendor_err;	/* enum rocx_vendor_err: why, for error statuses */
	__u8 flags;		/* ROCX_CQE_* */
	__u8 smac[6];		/* UD: source MAC */
	__le16 vlan;		/* UD: VLAN id or ROCX_VLAN_NONE */
	__le32 ext;		/* 1.2: ROCX_CQE_EXT_* */
};

/*
 * Format 1 (ROCX_CQE_FORMAT_64): the 32-byte CQE, then the device clock
 * (ROCX_REG_CLOCK_LO/HI, ns) when the device wrote the entry.
 */
struct rocx_cqe64 {
	struct rocx_cqe cqe;
	__le64 timestamp;
	__u8 rsvd[24];
};

#define ROCX_CQE_QPN_MASK		ROCX_GENMASK(23, 0)
#define ROCX_CQE_OPCODE_MASK		ROCX_GENMASK(31, 24)
#define ROCX_CQE_SRC_QP_MASK		ROCX_GENMASK(23, 0)
#define ROCX_CQE_STATUS_MASK		ROCX_GENMASK(31, 24)
#define ROCX_CQE_PHASE			ROCX_BIT(0)	/* same rule as the AQ */
#define ROCX_CQE_WITH_IMM		ROCX_BIT(1)
#define ROCX_CQE_WITH_INV		ROCX_BIT(2)
#define ROCX_CQE_GRH			ROCX_BIT(3)	/* UD: a GRH precedes the data */
#define ROCX_CQE_RECV			ROCX_BIT(4)	/* completes an RQ/SRQ entry */
/* 1.2, UD and GSI receives: enum rocx_net_type of the packet. */
#define ROCX_CQE_NET_TYPE_MASK		ROCX_GENMASK(6, 5)
/* 1.2, ROCX_CAP2_XRC: receives of an XRC SRQ carry its number in ext. */
#define ROCX_CQE_EXT_SRQN		ROCX_GENMASK(23, 0)

enum rocx_cqe_opcode {
	ROCX_CQE_OP_SEND		= 0,
	ROCX_CQE_OP_RDMA_WRITE		= 1,
	ROCX_CQE_OP_RDMA_READ		= 2,
	ROCX_CQE_OP_COMP_SWAP		= 3,
	ROCX_CQE_OP_FETCH_ADD		= 4,
	ROCX_CQE_OP_LOCAL_INV		= 5,
	ROCX_CQE_OP_BIND_MW		= 6,
	ROCX_CQE_OP_REG_MR		= 7,
	ROCX_CQE_OP_RECV		= 0x80,
	ROCX_CQE_OP_RECV_RDMA_IMM	= 0x81,
};

/* Numbered as the InfiniBand specification's (and libibverbs') statuses. */
enum rocx_wc_status {
	ROCX_WC_SUCCESS			= 0,
	ROCX_WC_LOC_LEN_ERR		= 1,
	ROCX_WC_LOC_QP_OP_ERR		= 2,
	ROCX_WC_LOC_PROT_ERR		= 4,
	ROCX_WC_WR_FLUSH_ERR		= 5,
	ROCX_WC_MW_BIND_ERR		= 6,
	ROCX_WC_BAD_RESP_ERR		= 7,
	ROCX_WC_LOC_ACCESS_ERR		= 8,
	ROCX_WC_REM_INV_REQ_ERR		= 9,
	ROCX_WC_REM_ACCESS_ERR		= 10,
	ROCX_WC_REM_OP_ERR		= 11,
	ROCX_WC_RETRY_EXC_ERR		= 12,
	ROCX_WC_RNR_RETRY_EXC_ERR	= 13,
	ROCX_WC_FATAL_ERR		= 19,
	ROCX_WC_GENERAL_ERR		= 21,
};

enum rocx_vendor_err {
	ROCX_VERR_NONE			= 0,
	ROCX_VERR_BAD_WQE		= 1,	/* malformed WQE */
	ROCX_VERR_BAD_LKEY		= 2,
	ROCX_VERR_LKEY_BOUNDS		= 3,
	ROCX_VERR_LKEY_ACCESS		= 4,
	ROCX_VERR_DMA			= 5,
	ROCX_VERR_RQ_OVERFLOW		= 6,	/* message longer than the receive */
	ROCX_VERR_NAK_ACCESS		= 7,	/* peer NAKed: remote access error */
	ROCX_VERR_NAK_INVALID		= 8,	/* peer NAKed: invalid request */
	ROCX_VERR_NAK_OPERATION		= 9,	/* peer NAKed: remote operation error */
	ROCX_VERR_TIMEOUT		= 10,	/* local ACK timeout, retries used up */
	ROCX_VERR_RNR			= 11,	/* RNR NAKs, retries used up */
	ROCX_VERR_PATH_MTU		= 12,	/* port MTU now below the path MTU */
	ROCX_VERR_BAD_MW		= 13,	/* no such window (or fast-reg MR) */
	ROCX_VERR_MW_STATE		= 14,	/* type 2 window bound already */
	ROCX_VERR_MW_ACCESS		= 15,	/* rights the MR does not allow */
	ROCX_VERR_MW_BOUNDS		= 16,	/* window not inside the MR */
	/* REG_MR of an MR not free; invalidation of one with windows bound */
	ROCX_VERR_MR_STATE		= 17,
};

/* ======================= Queue pairs ======================= */

enum rocx_qp_type {
	ROCX_QPT_RC	= 0,
	ROCX_QPT_UC	= 1,
	ROCX_QPT_UD	= 2,
	ROCX_QPT_GSI	= 3,
	/* 1.2, ROCX_CAP2_XRC: XRC initiator (send only) and target. */
	ROCX_QPT_XRC_INI	= 4,
	ROCX_QPT_XRC_TGT	= 5,
};

enum rocx_qp_state {
	ROCX_QPS_RESET	= 0,
	ROCX_QPS_INIT	= 1,
	ROCX_QPS_RTR	= 2,
	ROCX_QPS_RTS	= 3,
	ROCX_QPS_SQD	= 4,
	ROCX_QPS_SQE	= 5,
	ROCX_QPS_ERR	= 6,
};

/*
 * 1.2 (ROCX_CAP2_GSI): the GSI QP is number 1 on the wire and in every
 * command, doorbell and CQE, and its Q_Key is fixed.
 */
#define ROCX_GSI_QPN			1
#define ROCX_GSI_QKEY			0x80010000u

#define ROCX_NO_SRQ			0xffffffff
#define ROCX_QP_SQ_SIG_ALL		ROCX_BIT(0)
/* 1.2, ROCX_CAP2_MCAST, UD only: its group sends skip this device's QPs. */
#define ROCX_QP_NO_MC_LOOPBACK		ROCX_BIT(1)
/*
 * 1.2, ROCX_CAP2_DB_RECORD: the QP has a doorbell record, the
 * ROCX_DB_RECORD_SIZE bytes of its queue buffer right after its queues.
 */
#define ROCX_QP_DB_RECORD		ROCX_BIT(2)

/*
 * A QP's SQ doorbell record (rocx-device.rst, "Doorbell records").  The
 * host writes sq_pi after the WQEs and, after a full barrier, reads
 * flags: with ROCX_DB_RECORD_POLL set the device reads sq_pi on its own
 * and no doorbell is needed; clear, the host rings the SQ doorbell too.
 */
struct rocx_db_record {
	__le32 sq_pi;		/* host: [15:0] SQ producer index */
	__le32 flags;		/* device: ROCX_DB_RECORD_POLL */
	__u8 rsvd[56];
};

#define ROCX_DB_RECORD_SIZE		64
#define ROCX_DB_RECORD_POLL		ROCX_BIT(0)

/*
 * CREATE_QP: result = qpn.  The SQ (2^sq_log_depth entries of
 * 2^sq_wqe_shift bytes) starts at byte 0 of the queue buffer, the RQ
 * right after it; an SRQ QP has no RQ (rq_log_depth = 0).  With
 * ROCX_QP_DB_RECORD the doorbell record follows the queues.
 */
struct rocx_aq_create_qp {
	struct rocx_aq_hdr hdr;
	__u8 type;		/* enum rocx_qp_type */
	__u8 flags;		/* ROCX_QP_* */
	__u8 sq_log_depth;	/* 1..15 */
	__u8 rq_log_depth;	/* 0 (SRQ or none) or 1..15 */
	__u8 sq_wqe_shift;	/* 6..10: 64..1024-byte send WQEs */
	__u8 rq_wqe_shift;	/* 4..9: 16..512-byte receive WQEs */
	__le16 rsvd1;
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 srqn;		/* or ROCX_NO_SRQ */
	__le32 uctx;		/* owning user context, 0: kernel */
	__le32 xrcdn;		/* 1.2, XRC_TGT: its XRC domain; else 0 */
	struct rocx_pbl pbl;	/* the queue buffer */
	__u8 rsvd3[8];
};

/* MODIFY_QP / QUERY_QP: struct rocx_qp_attr at addr (read / written). */
struct rocx_aq_qp_attr_cmd {
	struct rocx_aq_hdr hdr;
	__le32 qpn;
	__le32 rsvd1;
	__le64 addr;
	__u8 rsvd2[40];
};

struct rocx_aq_destroy_qp {
	struct rocx_aq_hdr hdr;
	__le32 qpn;
	__u8 rsvd1[52];
};

/* Which fields of struct rocx_qp_attr MODIFY_QP applies. */
#define ROCX_QP_ATTR_STATE		ROCX_BIT(0)
#define ROCX_QP_ATTR_ACCESS		ROCX_BIT(1)
#define ROCX_QP_ATTR_PKEY_INDEX		ROCX_BIT(2)
#define ROCX_QP_ATTR_QKEY		ROCX_BIT(3)
#define ROCX_QP_ATTR_AV			ROCX_BIT(4)	/* path: GIDs, MACs, ... */
#define ROCX_QP_ATTR_PATH_MTU		ROCX_BIT(5)
#define ROCX_QP_ATTR_TIMEOUT		ROCX_BIT(6)
#define ROCX_QP_ATTR_RETRY_CNT		ROCX_BIT(7)
#define ROCX_QP_ATTR_RNR_RETRY		ROCX_BIT(8)
#define ROCX_QP_ATTR_RQ_PSN		ROCX_BIT(9)
#define ROCX_QP_ATTR_MAX_RD_ATOMIC	ROCX_BIT(10)
#define ROCX_QP_ATTR_MIN_RNR_TIMER	ROCX_BIT(11)
#define ROCX_QP_ATTR_SQ_PSN		ROCX_BIT(12)
#define ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC	ROCX_BIT(13)
#define ROCX_QP_ATTR_DEST_QPN		ROCX_BIT(14)
#define ROCX_QP_ATTR_RATE_LIMIT		ROCX_BIT(15)	/* 1.2, ROCX_CAP2_ETS */

/* Network header the AV selects (from the source GID's type and address). */
enum rocx_net_type {
	ROCX_NET_ROCE_V1	= 0,	/* GRH, EtherType 0x8915 */
	ROCX_NET_ROCE_V2_IPV4	= 1,	/* IPv4/UDP 4791 */
	ROCX_NET_ROCE_V2_IPV6	= 2,	/* IPv6/UDP 4791 */
};

/*
 * An address vector: everything needed to build a packet's headers.  The
 * source GID, MAC, VLAN and network header are the GID table entry
 * sgid_index names; the table is the kernel's, a UD WQE the process's.
 */
struct rocx_av {
	__u8 dgid[16];
	__u8 dmac[6];
	__le16 vlan;		/* ignored (the entry's is used); write the entry's */
	__le32 flow_label;	/* ROCX_AV_FLOW_LABEL, ROCX_AV_PRIO (1.2) */
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;	/* DSCP [7:2], ECN [1:0] */
	__u8 net_type;		/* enum rocx_net_type */
};

/*
 * The flow_label word: the IPv6/GRH flow label and, from contract 1.2, the
 * priority the packets are sent with (802.1p PCP, transmit class, PFC
 * pause); a 1.1 driver leaves it 0.  Bits [31:23] are reserved, 0.
 */
#define ROCX_AV_FLOW_LABEL		ROCX_GENMASK(19, 0)
#define ROCX_AV_PRIO			ROCX_GENMASK(22, 20)

/*
 * Path MTU n (1..5) is 128 << n bytes of payload per packet.  Around it a
 * RoCE packet carries at most ROCX_ROCE_MTU_OVERHEAD bytes of headers
 * inside the port's L3 MTU: IPv6 or the GRH 40, UDP 8, BTH 12, XRCETH 4,
 * AtomicETH 28 (the most any opcode adds), ICRC 4; the Ethernet header and
 * a VLAN tag are outside the MTU.  A path MTU fits a port of MTU m when
 * ROCX_PATH_MTU_BYTES(n) + ROCX_ROCE_MTU_OVERHEAD <= m: the IB MTUs up to
 * the port's active MTU, as ib_core's iboe_get_mtu() computes it.
 */
#define ROCX_PATH_MTU_BYTES(n)		(128u << (n))
#define ROCX_ROCE_MTU_OVERHEAD		96

struct rocx_qp_attr {
	__le32 valid;		/* ROCX_QP_ATTR_* (MODIFY_QP) */
	__u8 state;		/* enum rocx_qp_state */
	__u8 cur_state;		/* QUERY_QP: the state now */
	__u8 path_mtu;		/* 1..5: 256..4096, as enum ib_mtu */
	__u8 timeout;		/* local ACK timeout: 4.096 us * 2^timeout, 0 = none */
	__u8 retry_cnt;		/* 0..7 */
	__u8 rnr_retry;		/* 0..7, 7 = forever */
	__u8 min_rnr_timer;	/* 0..31, IB encoding */
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 rsvd0;
	__le16 pkey_index;
	__le32 access;		/* ROCX_ACCESS_* for incoming requests */
	__le32 qkey;
	__le32 rq_psn;		/* [23:0] */
	__le32 sq_psn;		/* [23:0] */
	__le32 dest_qpn;	/* [23:0] */
	struct rocx_av av;
	__le32 rate_limit;	/* 68-71: kb/s, 0 = none (1.2, ROCX_CAP2_ETS) */
	/* QUERY_QP with ROCX_CAP2_DCQCN: the reaction point's state. */
	__le32 cc_cur_rate;	/* Mb/s */
	__le32 cc_tgt_rate;	/* Mb/s */
	__le32 cc_alpha;	/* 1/1024 */
	__u8 rsvd2[44];
};

/*
 * ATTACH_MCAST / DETACH_MCAST (1.2, ROCX_CAP2_MCAST): a UD QP joins or
 * leaves the multicast group gid; the device accepts the group's MAC while
 * any QP is attached (rocx-device.rst, "Multicast").
 */
#define ROCX_MCAST_QPN			0xffffff	/* BTH dest QP of a group */

struct rocx_aq_mcast {
	struct rocx_aq_hdr hdr;
	__le32 qpn;
	__le32 rsvd1;
	__u8 gid[16];		/* ff00::/8, or ::ffff:224.0.0.0/100 */
	__u8 rsvd2[32];
};

/* ======================= Work queue entries ======================= */

enum rocx_wqe_opcode {
	ROCX_WQE_SEND			= 0,
	ROCX_WQE_SEND_IMM		= 1,
	ROCX_WQE_SEND_INV		= 2,
	ROCX_WQE_RDMA_WRITE		= 3,
	ROCX_WQE_RDMA_WRITE_IMM		= 4,
	ROCX_WQE_RDMA_READ		= 5,
	ROCX_WQE_COMP_SWAP		= 6,
	ROCX_WQE_FETCH_ADD		= 7,
	ROCX_WQE_LOCAL_INV		= 8,
	ROCX_WQE_REG_MR			= 9,
	ROCX_WQE_BIND_MW		= 10,
};

#define ROCX_WQE_SIGNALED		ROCX_BIT(0)	/* write a CQE */
#define ROCX_WQE_SOLICITED		ROCX_BIT(1)
#define ROCX_WQE_FENCE			ROCX_BIT(2)
#define ROCX_WQE_INLINE			ROCX_BIT(3)	/* data follows the header */

struct rocx_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

/*
 * A send WQE: a 64-byte header (control plus one operation segment), then
 * num_sge struct rocx_sge or, with ROCX_WQE_INLINE, inline_len bytes of
 * data.  wqe_idx must equal the entry's free-running index (16 bits): the
 * device rejects a stale or torn entry instead of executing it.
 */
struct rocx_wqe_ctrl {
	__u8 opcode;		/* enum rocx_wqe_opcode */
	__u8 flags;		/* ROCX_WQE_* */
	__u8 num_sge;
	__u8 xrc_srqn_hi;	/* 1.2, XRC_INI: target SRQ [23:16]; else 0 */
	__be32 imm_data;	/* or rkey to invalidate */
	__le32 inline_len;
	__le16 wqe_idx;
	__le16 xrc_srqn;	/* 1.2, XRC_INI: target SRQ [15:0]; else 0 */
};

struct rocx_wqe_raddr {
	__le64 remote_addr;
	__le32 rkey;
	__le32 rsvd;
};

struct rocx_wqe_atomic {
	__le64 remote_addr;
	__le32 rkey;
	__le32 rsvd;
	__le64 compare_add;
	__le64 swap;
};

/*
 * BIND_MW (1.2, ROCX_CAP2_MW): bind the window whose index mw_key names to
 * [addr, addr + length) of the MR mr_key, with the remote rights in access;
 * the window's key becomes mw_key.  A type 2 window is bound to the QP
 * that executes it; a type 1 window of length 0 is unbound.
 */
struct rocx_wqe_bind_mw {
	__le32 mw_key;
	__le32 mr_key;
	__le64 addr;
	__le64 length;
	__le32 access;		/* ROCX_ACCESS_REMOTE_* (LOCAL_WRITE ignored) */
	__u8 rsvd[20];
};

/*
 * REG_MR (1.2, ROCX_CAP2_FAST_REG): the fast-register MR whose index key
 * names becomes valid with key, access, iova and length over the pages of
 * pbl, which the device reads when it executes the WQE.  The byte at iova
 * is at offset iova mod 2^pbl.page_shift of the first page.
 */
struct rocx_wqe_reg_mr {
	__le32 key;		/* [31:8] the MR's index, [7:0] its new variant */
	__le32 access;		/* ROCX_ACCESS_* */
	__le64 iova;
	__le64 length;
	struct rocx_pbl pbl;	/* npages <= the MR's max_pages */
	__u8 rsvd[8];
};

/* UD: the whole address vector travels in the WQE; no AH object exists. */
struct rocx_wqe_ud {
	__le32 remote_qpn;	/* [23:0] */
	__le32 qkey;		/* ROCX_WQE_UD_QKEY_OWN: the QP's own */
	struct rocx_av av;
	__u8 rsvd[8];
};

/* 1.2 (ROCX_CAP2_UD): a send Q_Key with bit 31 set means the QP's Q_Key. */
#define ROCX_WQE_UD_QKEY_OWN		ROCX_BIT(31)
/*
 * 1.2 (ROCX_CAP2_UD): every UD receive buffer starts with this many bytes
 * the device fills with the packet's GRH, IPv6 header, or 20 zero bytes
 * and the IPv4 header; the data follows.
 */
#define ROCX_UD_GRH_LEN			40

struct rocx_send_wqe {
	struct rocx_wqe_ctrl ctrl;
	union {
		struct rocx_wqe_raddr rdma;
		struct rocx_wqe_atomic atomic;
		struct rocx_wqe_ud ud;
		struct rocx_wqe_bind_mw bind_mw;
		struct rocx_wqe_reg_mr reg_mr;
		__u8 raw[48];
	};
};

/*
 * A receive WQE: 16-byte header, then num_sge struct rocx_sge.  In an SRQ
 * (contract 1.2) tag names the entry in its CQE; 0 in an RQ.
 */
struct rocx_recv_wqe {
	__u8 num_sge;
	__u8 rsvd0;
	__le16 wqe_idx;
	__le16 tag;		/* SRQ: the CQE's wqe_idx */
	__le16 rsvd1;
	__le64 rsvd2;
};

#define ROCX_SEND_WQE_HDR		64
#define ROCX_RECV_WQE_HDR		16

/*
 * Segment encoders.  The kernel's WQEs (rocx_ib_wqe.c) and the provider's
 * (providers/rocx/qp.c, atomic.c) are written with these, so each
 * segment's layout and byte order is set down once.  Each writes every
 * field of its segment but the reserved ones, which the callers zero with
 * the rest of the header.
 */

/* One scatter/gather entry. */
static inline void rocx_sge_set(struct rocx_sge *sge, __u64 addr,
				__u32 length, __u32 lkey)
{
	sge->addr = ROCX_CPU_TO_LE64(addr);
	sge->length = ROCX_CPU_TO_LE32(length);
	sge->lkey = ROCX_CPU_TO_LE32(lkey);
}

/* RDMA WRITE and READ: the remote buffer. */
static inline void rocx_wqe_raddr_set(struct rocx_wqe_raddr *seg,
				      __u64 remote_addr, __u32 rkey)
{
	seg->remote_addr = ROCX_CPU_TO_LE64(remote_addr);
	seg->rkey = ROCX_CPU_TO_LE32(rkey);
}

/*
 * COMP_SWAP and FETCH_ADD: the remote word, the compare value or the
 * addend in @compare_add, and @swap (0 for FETCH_ADD).
 */
static inline void rocx_wqe_atomic_set(struct rocx_wqe_atomic *seg,
				       __u64 remote_addr, __u32 rkey,
				       __u64 compare_add, __u64 swap)
{
	seg->remote_addr = ROCX_CPU_TO_LE64(remote_addr);
	seg->rkey = ROCX_CPU_TO_LE32(rkey);
	seg->compare_add = ROCX_CPU_TO_LE64(compare_add);
	seg->swap = ROCX_CPU_TO_LE64(swap);
}

/*
 * UD: the destination QP (24 bits), its Q_Key (ROCX_WQE_UD_QKEY_OWN: the
 * sender's own) and the address vector, copied as the AH holds it.
 */
static inline void rocx_wqe_ud_set(struct rocx_wqe_ud *seg, __u32 remote_qpn,
				   __u32 qkey, const struct rocx_av *av)
{
	seg->remote_qpn = ROCX_CPU_TO_LE32(remote_qpn & ROCX_GENMASK(23, 0));
	seg->qkey = ROCX_CPU_TO_LE32(qkey);
	seg->av = *av;
}

/* ======================= Shared receive queues (1.2) ======================= */

/*
 * SRQs (contract 1.2, ROCX_CAP2_SRQ): a ring of 2^log_depth receive WQEs
 * of 2^wqe_shift bytes, rung at ROCX_DB_SRQ.  rocx-device.rst, "Shared
 * receive queues", has the rules.
 */
enum rocx_srq_type {
	ROCX_SRQT_BASIC	= 0,
	ROCX_SRQT_XRC	= 1,	/* ROCX_CAP2_XRC */
};

#define ROCX_SRQ_MIN_LOG_DEPTH		1
#define ROCX_SRQ_MAX_LOG_DEPTH		15

/* CREATE_SRQ: result = srqn. */
struct rocx_aq_create_srq {
	struct rocx_aq_hdr hdr;
	__le32 uctx;		/* owning user context, 0: kernel */
	__le32 pdn;		/* receive SGEs are checked against it */
	__u8 log_depth;		/* 1..15, 2^log_depth <= max_srq_wr */
	__u8 wqe_shift;		/* 4..9: 16..512-byte entries */
	__u8 type;		/* enum rocx_srq_type */
	__u8 rsvd0;
	__le32 limit;		/* 0: disarmed, else <= 2^log_depth */
	__le32 xrcdn;		/* XRC */
	__le32 cqn;		/* XRC */
	struct rocx_pbl pbl;	/* the ring */
	__u8 rsvd1[16];
};

/*
 * ALLOC_XRCD (uctx; result = xrcdn) and DEALLOC_XRCD (xrcdn): XRC domains
 * (1.2, ROCX_CAP2_XRC), numbered 1..max_xrcd.  rocx-device.rst, "XRC".
 */
struct rocx_aq_xrcd {
	struct rocx_aq_hdr hdr;
	__le32 uctx;		/* ALLOC: owning user context, 0: kernel */
	__le32 xrcdn;		/* DEALLOC */
	__u8 rsvd1[48];
};

/* Which fields of struct rocx_aq_modify_srq MODIFY_SRQ applies. */
#define ROCX_SRQ_ATTR_LIMIT		ROCX_BIT(0)
#define ROCX_SRQ_ATTR_RESIZE		ROCX_BIT(1)	/* ROCX_CAP2_SRQ_RESIZE */

struct rocx_aq_modify_srq {
	struct rocx_aq_hdr hdr;
	__le32 srqn;
	__le32 valid;		/* ROCX_SRQ_ATTR_* */
	__le32 limit;		/* arm: an SRQ_LIMIT event below it */
	__u8 log_depth;		/* RESIZE */
	__u8 rsvd0[3];
	struct rocx_pbl pbl;	/* RESIZE: the new ring */
	__u8 rsvd1[24];
};

/* DESTROY_SRQ; QUERY_SRQ: result = limit, result64 = posted, not taken. */
struct rocx_aq_srq {
	struct rocx_aq_hdr hdr;
	__le32 srqn;
	__u8 rsvd1[52];
};

union rocx_aq_verbs_cmd {
	struct rocx_aq_reg_mr reg_mr;
	struct rocx_aq_dereg_mr dereg_mr;
	struct rocx_aq_create_cq create_cq;
	struct rocx_aq_destroy_cq destroy_cq;
	struct rocx_aq_resize_cq resize_cq;
	struct rocx_aq_create_qp create_qp;
	struct rocx_aq_qp_attr_cmd qp_attr;
	struct rocx_aq_destroy_qp destroy_qp;
	struct rocx_aq_alloc_mw alloc_mw;
	struct rocx_aq_dealloc_mw dealloc_mw;
	struct rocx_aq_rereg_mr rereg_mr;
	struct rocx_aq_create_srq create_srq;
	struct rocx_aq_modify_srq modify_srq;
	struct rocx_aq_srq srq;
	struct rocx_aq_mcast mcast;
	struct rocx_aq_xrcd xrcd;
	struct rocx_aq_alloc_mr alloc_mr;
};

ROCX_ASSERT_SIZE(struct rocx_pbl, 16);
ROCX_ASSERT_SIZE(struct rocx_aq_reg_mr, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_dereg_mr, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_create_cq, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_destroy_cq, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_resize_cq, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_create_qp, 64);
ROCX_ASSERT_SIZE(struct rocx_db_record, ROCX_DB_RECORD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_qp_attr_cmd, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_destroy_qp, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_mcast, 64);
ROCX_ASSERT_SIZE(struct rocx_cqe, 32);
ROCX_ASSERT_SIZE(struct rocx_cqe64, 64);
ROCX_ASSERT_SIZE(struct rocx_av, 32);
ROCX_ASSERT_SIZE(struct rocx_qp_attr, 128);
static_assert(__builtin_offsetof(struct rocx_qp_attr, cc_cur_rate) == 72,
	      "cc_cur_rate is at byte 72 of struct rocx_qp_attr");
ROCX_ASSERT_SIZE(struct rocx_wqe_ctrl, 16);
ROCX_ASSERT_SIZE(struct rocx_wqe_ud, 48);
ROCX_ASSERT_SIZE(struct rocx_wqe_bind_mw, 48);
ROCX_ASSERT_SIZE(struct rocx_aq_alloc_mw, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_dealloc_mw, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_rereg_mr, 64);
ROCX_ASSERT_SIZE(struct rocx_send_wqe, ROCX_SEND_WQE_HDR);
ROCX_ASSERT_SIZE(struct rocx_sge, 16);
ROCX_ASSERT_SIZE(struct rocx_recv_wqe, ROCX_RECV_WQE_HDR);
ROCX_ASSERT_SIZE(struct rocx_aq_create_srq, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_modify_srq, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_srq, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_xrcd, 64);
ROCX_ASSERT_SIZE(struct rocx_aq_alloc_mr, 64);
ROCX_ASSERT_SIZE(struct rocx_wqe_reg_mr, 48);
/* rocx-device.rst, "Fast registration": the page list at WQE byte 40. */
static_assert(__builtin_offsetof(struct rocx_send_wqe, reg_mr.pbl) == 40,
	      "REG_MR page list at byte 40");

#endif /* _ROCX_VERBS_H_ */
