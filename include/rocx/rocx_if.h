/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx device contract: admin commands, event queue entries, Ethernet
 * descriptors, identify block and counters.  Everything in memory is little
 * endian; every structure has a size check at the bottom.
 */
#ifndef _ROCX_IF_H_
#define _ROCX_IF_H_

#include "rocx_bits.h"
#include "rocx_hw.h"

/* ======================= Admin queue ======================= */

enum rocx_aq_opcode {
	ROCX_AQ_OP_NOP			= 0x00,
	ROCX_AQ_OP_IDENTIFY		= 0x01,
	ROCX_AQ_OP_SET_PORT		= 0x02,
	ROCX_AQ_OP_QUERY_PORT		= 0x03,
	ROCX_AQ_OP_GET_STATS		= 0x04,
	ROCX_AQ_OP_CREATE_EQ		= 0x08,
	ROCX_AQ_OP_DESTROY_EQ		= 0x09,
	ROCX_AQ_OP_CREATE_ETH_RING	= 0x0a,
	ROCX_AQ_OP_DESTROY_ETH_RING	= 0x0b,
	ROCX_AQ_OP_SET_GID		= 0x10,
	ROCX_AQ_OP_DEL_GID		= 0x11,
	ROCX_AQ_OP_ALLOC_UCTX		= 0x12,
	ROCX_AQ_OP_DEALLOC_UCTX		= 0x13,
	ROCX_AQ_OP_CREATE_PD		= 0x14,
	ROCX_AQ_OP_DESTROY_PD		= 0x15,
	/* Contract 1.2: only with ROCX_CAP2_XRC (struct rocx_aq_xrcd). */
	ROCX_AQ_OP_ALLOC_XRCD		= 0x16,
	ROCX_AQ_OP_DEALLOC_XRCD		= 0x17,
	/* Contract 1.2: only with ROCX_CAP2_MCAST_FILTER. */
	ROCX_AQ_OP_SET_MCAST_MACS	= 0x18,
	/* RDMA transport objects (1.1); SRQs and MWs: later (UNSUPPORTED). */
	ROCX_AQ_OP_REG_MR		= 0x20,
	ROCX_AQ_OP_DEREG_MR		= 0x21,
	ROCX_AQ_OP_CREATE_CQ		= 0x22,
	ROCX_AQ_OP_DESTROY_CQ		= 0x23,
	ROCX_AQ_OP_CREATE_QP		= 0x24,
	ROCX_AQ_OP_MODIFY_QP		= 0x25,
	ROCX_AQ_OP_QUERY_QP		= 0x26,
	ROCX_AQ_OP_DESTROY_QP		= 0x27,
	ROCX_AQ_OP_CREATE_SRQ		= 0x28,
	ROCX_AQ_OP_MODIFY_SRQ		= 0x29,
	ROCX_AQ_OP_DESTROY_SRQ		= 0x2a,
	ROCX_AQ_OP_ALLOC_MW		= 0x2b,
	ROCX_AQ_OP_DEALLOC_MW		= 0x2c,
	/* Contract 1.2: only with ROCX_CAP2_SRQ. */
	ROCX_AQ_OP_QUERY_SRQ		= 0x2d,
	ROCX_AQ_OP_ALLOC_MR		= 0x2e,	/* ROCX_CAP2_FAST_REG */
	ROCX_AQ_OP_REREG_MR		= 0x2f,	/* ROCX_CAP2_MW */
	/* Contract 1.2: struct rocx_dcb_cfg / rocx_cc_cfg at addr. */
	ROCX_AQ_OP_SET_DCB		= 0x30,	/* PFC, ETS, trust */
	ROCX_AQ_OP_SET_CC		= 0x31,	/* ECN marking, DCQCN */
	ROCX_AQ_OP_QUERY_DCB		= 0x32,
	ROCX_AQ_OP_QUERY_CC		= 0x33,
	/* Contract 1.2: only with ROCX_CAP2_CQ_RESIZE. */
	ROCX_AQ_OP_RESIZE_CQ		= 0x34,
	/* Contract 1.2: only with ROCX_CAP2_MCAST (struct rocx_aq_mcast). */
	ROCX_AQ_OP_ATTACH_MCAST		= 0x40,
	ROCX_AQ_OP_DETACH_MCAST		= 0x41,
};

enum rocx_aq_status {
	ROCX_AQ_STS_OK			= 0,
	ROCX_AQ_STS_UNSUPPORTED		= 1,	/* unknown or unimplemented opcode */
	ROCX_AQ_STS_INVALID		= 2,	/* a field is out of range */
	ROCX_AQ_STS_NO_RESOURCE		= 3,	/* table full */
	ROCX_AQ_STS_BAD_STATE		= 4,	/* object busy or wrong state */
	ROCX_AQ_STS_DMA_ERROR		= 5,	/* buffer address not accessible */
	ROCX_AQ_STS_EXISTS		= 6,	/* object id already in use */
	ROCX_AQ_STS_NOT_FOUND		= 7,	/* no such object */
	ROCX_AQ_STS_INTERNAL		= 8,	/* device fault */
	ROCX_AQ_STS_MAX			= ROCX_AQ_STS_INTERNAL,
};

/* Commands are 64 bytes; the device echoes cmd_id in the completion. */
#define ROCX_AQ_CMD_SIZE		64
#define ROCX_AQ_CQE_SIZE		16
/* Upper bound on any command's execution; drivers time out beyond it. */
#define ROCX_AQ_TIMEOUT_MS		5000

struct rocx_aq_hdr {
	__le16 opcode;		/* [15:0] enum rocx_aq_opcode */
	__le16 cmd_id;		/* [15:0] echoed in the completion */
	__le32 rsvd;
};

/* IDENTIFY: the device writes struct rocx_identify at addr. */
struct rocx_aq_identify {
	struct rocx_aq_hdr hdr;
	__le64 addr;		/* DMA address of the buffer */
	__le32 len;		/* buffer length, >= sizeof(struct rocx_identify) */
	__u8 rsvd[44];
};

/* SET_PORT: fields whose ROCX_PORT_SET_* bit is set in valid are applied. */
#define ROCX_PORT_SET_MTU		ROCX_BIT(0)
#define ROCX_PORT_SET_MAC		ROCX_BIT(1)
#define ROCX_PORT_SET_ADMIN		ROCX_BIT(2)
#define ROCX_PORT_SET_RX_MODE		ROCX_BIT(3)
#define ROCX_RX_MODE_PROMISC		ROCX_BIT(0)
#define ROCX_RX_MODE_ALLMULTI		ROCX_BIT(1)
#define ROCX_MIN_MTU			68
#define ROCX_MAX_MTU			9000
/* Largest frame on the wire: MTU + Ethernet header + one VLAN tag. */
#define ROCX_MAX_FRAME			(ROCX_MAX_MTU + 14 + 4)

struct rocx_aq_set_port {
	struct rocx_aq_hdr hdr;
	__le32 valid;		/* ROCX_PORT_SET_* */
	__le16 mtu;		/* ROCX_MIN_MTU..ROCX_MAX_MTU, L3 bytes */
	__u8 mac[6];		/* unicast address the port answers to */
	__u8 admin_up;		/* 0 or 1 */
	__u8 rx_mode;		/* ROCX_RX_MODE_* */
	__u8 rsvd[42];
};

/*
 * SET_MCAST_MACS (1.2, ROCX_CAP2_MCAST_FILTER): the Ethernet multicast
 * filter becomes the count entries at addr; 0 empties it.  Until the
 * first one after a reset every multicast frame is accepted, as in 1.1.
 */
struct rocx_aq_set_mcast_macs {
	struct rocx_aq_hdr hdr;
	__le64 addr;		/* DMA address of count struct rocx_mcast_mac */
	__le32 count;		/* 0..IDENTIFY.max_mcast_macs */
	__u8 rsvd[44];
};

struct rocx_mcast_mac {
	__u8 mac[6];		/* a multicast address: bit 0 of mac[0] set */
	__le16 rsvd;		/* 0 */
};

/*
 * A command whose configuration sits in a buffer at addr: SET_DCB /
 * QUERY_DCB (1.2) read or write a struct rocx_dcb_cfg there, SET_CC /
 * QUERY_CC a struct rocx_cc_cfg.  SET_DCB applies the fields valid
 * selects, all of them or none (rocx-device.rst, "DCB: priorities, ETS
 * and PFC").
 */
struct rocx_aq_cfg_buf {
	struct rocx_aq_hdr hdr;
	__le64 addr;		/* DMA address of the configuration */
	__le32 len;		/* >= sizeof(struct rocx_dcb_cfg) */
	__u8 rsvd[44];
};

#define ROCX_DCB_TRUST			ROCX_BIT(0)
#define ROCX_DCB_DSCP2PRIO		ROCX_BIT(1)
#define ROCX_DCB_PFC			ROCX_BIT(2)
#define ROCX_DCB_PAUSE			ROCX_BIT(3)
#define ROCX_DCB_ETS			ROCX_BIT(4)
#define ROCX_DCB_BUFFER			ROCX_BIT(5)
#define ROCX_DCB_MAXRATE		ROCX_BIT(6)
#define ROCX_DCB_ALL			ROCX_GENMASK(6, 0)

#define ROCX_NUM_PRIO			8
#define ROCX_NUM_TC			8
#define ROCX_NUM_DSCP			64

enum rocx_dcb_trust {
	ROCX_TRUST_PCP			= 0,
	ROCX_TRUST_DSCP			= 1,
};

enum rocx_dcb_tsa {
	ROCX_TSA_STRICT			= 0,
	ROCX_TSA_ETS			= 1,
};

#define ROCX_PAUSE_RX			ROCX_BIT(0)	/* honour 802.3x pause */
#define ROCX_PAUSE_TX			ROCX_BIT(1)	/* send 802.3x pause */

/*
 * The shortest XOFF SET_DCB takes: 21 us at 400 Gb/s, so that its
 * refresh, at half of it, comes at most every 10 us.
 */
#define ROCX_DCB_PFC_QUANTA_MIN		0x4000

struct rocx_dcb_cfg {
	__le32 valid;		/* ROCX_DCB_*; QUERY_DCB: ROCX_DCB_ALL */
	__u8 trust;		/* enum rocx_dcb_trust */
	__u8 pfc_en;		/* bit p: priority p is lossless */
	__u8 pause;		/* ROCX_PAUSE_*; 0 while pfc_en != 0 */
	__u8 rsvd0;
	__u8 prio_tc[ROCX_NUM_PRIO];	/* traffic class of each priority */
	__u8 tc_tsa[ROCX_NUM_TC];	/* enum rocx_dcb_tsa */
	__u8 tc_bw[ROCX_NUM_TC];	/* ETS percent, sum 100; strict: 0 */
	__le32 tc_maxrate[ROCX_NUM_TC];	/* Mb/s, 0 = line rate */
	__u8 dscp2prio[ROCX_NUM_DSCP];	/* under DSCP trust */
	__le32 buf_size[ROCX_NUM_PRIO];	/* receive buffer bytes */
	__le32 xoff[ROCX_NUM_PRIO];	/* PFC, pause sent: pause above this */
	__le32 xon[ROCX_NUM_PRIO];	/* PFC, pause sent: resume below */
	__le16 pfc_quanta;	/* XOFF, PAUSE quanta: 0x4000..0xffff */
	__u8 rsvd1[30];
};

/*
 * SET_CC / QUERY_CC (1.2, ROCX_CAP2_DCQCN): struct rocx_cc_cfg at addr,
 * in a struct rocx_aq_cfg_buf command; SET_CC applies the fields valid
 * selects, all of them or none (rocx-device.rst, "ECN and congestion
 * control").  Names and units are mlx5's cc_params.
 */
#define ROCX_CC_NP_EN			ROCX_BIT(0)
#define ROCX_CC_RP_EN			ROCX_BIT(1)
#define ROCX_CC_NP_CNP_DSCP		ROCX_BIT(2)
#define ROCX_CC_NP_CNP_PRIO		ROCX_BIT(3)
#define ROCX_CC_NP_MIN_TIME		ROCX_BIT(4)
#define ROCX_CC_RP_INITIAL_ALPHA	ROCX_BIT(5)
#define ROCX_CC_RP_G			ROCX_BIT(6)
#define ROCX_CC_RP_RTT			ROCX_BIT(7)
#define ROCX_CC_RP_GD			ROCX_BIT(8)
#define ROCX_CC_RP_MIN_DEC_FAC		ROCX_BIT(9)
#define ROCX_CC_RP_FIRST_CNP_RATE	ROCX_BIT(10)
#define ROCX_CC_RP_MIN_RATE		ROCX_BIT(11)
#define ROCX_CC_RP_AI_RATE		ROCX_BIT(12)
#define ROCX_CC_RP_HAI_RATE		ROCX_BIT(13)
#define ROCX_CC_RP_TIME_RESET		ROCX_BIT(14)
#define ROCX_CC_RP_BYTE_RESET		ROCX_BIT(15)
#define ROCX_CC_RP_THRESHOLD		ROCX_BIT(16)
#define ROCX_CC_RP_CLAMP_TGT_RATE	ROCX_BIT(17)
#define ROCX_CC_ALL			ROCX_GENMASK(17, 0)

/* Accepted ranges that are not max_speed (rocx-device.rst lists all). */
#define ROCX_CC_ALPHA_MAX		1023	/* alpha, g: 1/1024 */
#define ROCX_CC_TIME_MAX_US		10000000
#define ROCX_CC_GD_MAX			15
#define ROCX_CC_BYTE_RESET_MAX		ROCX_BIT(30)
#define ROCX_CC_THRESHOLD_MAX		31

struct rocx_cc_cfg {
	__le32 valid;		/* ROCX_CC_*; QUERY_CC: ROCX_CC_ALL */
	__u8 np_en;		/* bit p: notification point on for prio p */
	__u8 rp_en;		/* bit p: reaction point (and ECT) for prio p */
	__u8 np_cnp_dscp;	/* [5:0] DSCP of CNPs sent */
	__u8 np_cnp_prio;	/* [2:0] priority of CNPs sent */
	__le32 np_min_time_between_cnps;	/* us per QP; 0: every packet */
	__le32 rp_initial_alpha_value;	/* 1/1024 */
	__le32 rp_dce_tcp_g;	/* 1/1024 */
	__le32 rp_dce_tcp_rtt;	/* us: alpha update period */
	__le32 rp_gd;		/* rate cut: alpha / 2^rp_gd */
	__le32 rp_min_dec_fac;	/* percent of the rate kept at least */
	__le32 rp_rate_to_set_on_first_cnp;	/* Mb/s, 0: no */
	__le32 rp_min_rate;	/* Mb/s */
	__le32 rp_ai_rate;	/* Mb/s */
	__le32 rp_hai_rate;	/* Mb/s */
	__le32 rp_time_reset;	/* us: increase timer */
	__le32 rp_byte_reset;	/* bytes: increase byte counter, 0: off */
	__le32 rp_threshold;	/* expiries before additive/hyper increase */
	__le32 rp_clamp_tgt_rate;	/* 0 or 1 */
	__u8 rsvd[64];
};

/* QUERY_PORT: result = ROCX_REG_LINK_STATUS value, result64 = MTU. */
struct rocx_aq_query_port {
	struct rocx_aq_hdr hdr;
	__u8 rsvd[56];
};

/* GET_STATS: the device writes min(len/8, ROCX_STAT_NUM) counters at addr. */
struct rocx_aq_get_stats {
	struct rocx_aq_hdr hdr;
	__le64 addr;
	__le32 len;
	__u8 rsvd[44];
};

/* CREATE_EQ: events for the EQ go to its ring and signal its vector. */
struct rocx_aq_create_eq {
	struct rocx_aq_hdr hdr;
	__le64 base;		/* 16-byte aligned ring of struct rocx_eqe */
	__le16 eqn;		/* 0..max_eq-1; EQ 0 receives async events */
	__u8 log_depth;		/* 4..16 */
	__u8 vector;		/* MSI-X vector */
	__u8 rsvd[44];
};

struct rocx_aq_destroy_eq {
	struct rocx_aq_hdr hdr;
	__le16 eqn;
	__u8 rsvd[54];
};

enum rocx_eth_ring_type {
	ROCX_ETH_RING_TX = 0,
	ROCX_ETH_RING_RX = 1,
};

/* CREATE_ETH_RING: a TX or RX descriptor ring; the device starts at index 0. */
struct rocx_aq_create_eth_ring {
	struct rocx_aq_hdr hdr;
	__le64 base;		/* 16-byte aligned ring of descriptors */
	__u8 type;		/* enum rocx_eth_ring_type */
	__u8 qid;		/* ring number, < max_eth_rings */
	__u8 log_depth;		/* ROCX_ETH_MIN_LOG_DEPTH..MAX */
	__u8 vector;		/* MSI-X vector signalled on completions */
	__le16 buf_size;	/* RX: size of every posted buffer */
	__u8 tc;		/* TX: traffic class (1.2, ROCX_CAP2_ETS); RX: 0 */
	__u8 rsvd[41];
};

#define ROCX_ETH_MIN_LOG_DEPTH		6
#define ROCX_ETH_MAX_LOG_DEPTH		12

struct rocx_aq_destroy_eth_ring {
	struct rocx_aq_hdr hdr;
	__u8 type;
	__u8 qid;
	__u8 rsvd[54];
};

enum rocx_gid_type {
	ROCX_GID_TYPE_ROCE_V1 = 0,	/* GRH over EtherType 0x8915 */
	ROCX_GID_TYPE_ROCE_V2 = 1,	/* UDP/IP, destination port 4791 */
};

#define ROCX_VLAN_NONE			0xffff

/* SET_GID: program (or overwrite) one GID table entry. */
struct rocx_aq_set_gid {
	struct rocx_aq_hdr hdr;
	__le16 index;		/* < gid_tbl_len */
	__u8 type;		/* enum rocx_gid_type */
	__u8 rsvd0;
	__le16 vlan;		/* VLAN id or ROCX_VLAN_NONE, for its frames */
	__u8 mac[6];		/* source MAC for this GID */
	__u8 gid[16];		/* network byte order, IPv4 as ::ffff:a.b.c.d */
	__u8 rsvd[28];
};

struct rocx_aq_del_gid {
	struct rocx_aq_hdr hdr;
	__le16 index;
	__u8 rsvd[54];
};

/* ALLOC_UCTX: result = user context id = its doorbell page (1..DB_PAGES-1). */
struct rocx_aq_uctx {
	struct rocx_aq_hdr hdr;
	__le32 uctx;		/* DEALLOC_UCTX: the context to free */
	__u8 rsvd[52];
};

/* CREATE_PD: result = pdn.  DESTROY_PD: pdn. */
struct rocx_aq_pd {
	struct rocx_aq_hdr hdr;
	__le32 pdn;
	__le32 uctx;		/* owning user context, 0 for the kernel */
	__u8 rsvd[48];
};

union rocx_aq_cmd {
	struct rocx_aq_hdr hdr;
	struct rocx_aq_identify identify;
	struct rocx_aq_set_port set_port;
	struct rocx_aq_query_port query_port;
	struct rocx_aq_get_stats get_stats;
	struct rocx_aq_create_eq create_eq;
	struct rocx_aq_destroy_eq destroy_eq;
	struct rocx_aq_create_eth_ring create_eth_ring;
	struct rocx_aq_destroy_eth_ring destroy_eth_ring;
	struct rocx_aq_set_gid set_gid;
	struct rocx_aq_del_gid del_gid;
	struct rocx_aq_uctx uctx;
	struct rocx_aq_pd pd;
	struct rocx_aq_set_mcast_macs set_mcast_macs;
	struct rocx_aq_cfg_buf cfg_buf;
	__u8 raw[ROCX_AQ_CMD_SIZE];
};

/*
 * Admin completion.  The device writes entries in order and flips the phase
 * bit it writes each time it wraps; it starts with phase 1 so a zeroed ring
 * reads as empty.
 */
struct rocx_aq_cqe {
	__le16 cmd_id;		/* [15:0] from the command */
	__u8 status;		/* enum rocx_aq_status */
	__u8 flags;		/* ROCX_AQ_CQE_PHASE */
	__le32 result;		/* command-specific */
	__le64 result64;	/* command-specific */
};

#define ROCX_AQ_CQE_PHASE		ROCX_BIT(0)

/*
 * The phase bit the device writes into the entry at free-running @index
 * of a ring of 2^@log_depth entries: 1 on the first pass, flipped on
 * every wrap, so a zeroed ring reads as empty.  Admin CQEs, EQEs and CQEs
 * all follow it; the device writes with it and consumers compare with it.
 * @index must count at least 2^(@log_depth + 1) before it wraps (16 bits
 * do for the admin queue, EQs of 2^16 entries need 32).
 */
static inline __u8 rocx_ring_phase(__u32 index, unsigned int log_depth)
{
	return !((index >> log_depth) & 1);
}

/* ======================= Event queues ======================= */

enum rocx_eqe_type {
	ROCX_EQE_COMPLETION	= 1,	/* data: cqn */
	ROCX_EQE_LINK_CHANGE	= 2,	/* data: ROCX_REG_LINK_STATUS value */
	ROCX_EQE_QP_ERROR	= 3,	/* data: qpn, info: syndrome */
	ROCX_EQE_CQ_ERROR	= 4,	/* data: cqn, info: syndrome */
	ROCX_EQE_GUEST_ERROR	= 5,	/* data: ROCX_REG_LAST_GUEST_ERR value */
	ROCX_EQE_FATAL		= 6,	/* device needs a reset */
	/* Contract 1.2; each only from a device with its caps2 bit. */
	ROCX_EQE_SRQ_LIMIT	= 7,	/* data: srqn */
	ROCX_EQE_QP_LAST_WQE	= 8,	/* data: qpn (SRQ-attached QP in ERR) */
	ROCX_EQE_SRQ_ERROR	= 9,	/* data: srqn */
	ROCX_EQE_EQ_OVERFLOW	= 10,	/* data: eqn, info: events lost */
};

struct rocx_eqe {
	__le16 type;		/* enum rocx_eqe_type */
	__u8 rsvd;
	__u8 flags;		/* ROCX_EQE_PHASE, same rule as admin CQEs */
	__le32 data;
	__le64 info;
};

#define ROCX_EQE_PHASE			ROCX_BIT(0)
#define ROCX_EQ_MIN_LOG_DEPTH		4
#define ROCX_EQ_MAX_LOG_DEPTH		16

/* ======================= Ethernet descriptors ======================= */

/*
 * TX descriptor: one frame in one buffer.  The device writes status when
 * the frame has left (or failed); the driver owns the entry again when
 * ROCX_ETH_STS_DONE is set.
 */
struct rocx_eth_tx_desc {
	__le64 addr;		/* DMA address of the frame */
	__le16 len;		/* 14..ROCX_MAX_FRAME */
	__le16 flags;		/* reserved, 0 */
	__le16 status;		/* ROCX_ETH_STS_*, written by the device */
	__le16 rsvd;
};

/* RX descriptor: one buffer of the ring's buf_size bytes. */
struct rocx_eth_rx_desc {
	__le64 addr;		/* DMA address of the buffer */
	__le16 rsvd0;
	__le16 pkt_len;		/* written by the device */
	__le16 status;		/* ROCX_ETH_STS_*, written by the device */
	__le16 rsvd1;
};

#define ROCX_ETH_STS_DONE		ROCX_BIT(0)
#define ROCX_ETH_STS_ERR		ROCX_BIT(1)	/* DMA or length error */
#define ROCX_ETH_STS_TRUNC		ROCX_BIT(2)	/* RX: frame > buffer */

/* ======================= Identify block ======================= */

struct rocx_identify {
	__le32 version;		/* as ROCX_REG_VERSION */
	__le32 caps;		/* ROCX_CAP_* */
	__le32 fw_version;
	__u8 mac[6];		/* permanent address */
	__le16 max_mtu;
	__le16 num_vectors;
	__le16 db_pages;
	__le16 max_eq;
	__le16 max_eth_rings;	/* per direction */
	__le16 gid_tbl_len;
	__le16 num_stats;	/* ROCX_STAT_NUM of this device */
	__le32 max_pd;
	__le32 max_uctx;
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_sge;
	__le32 max_inline;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_rd_atom;
	__le64 max_mr_size;
	__le64 page_size_cap;	/* supported MR page sizes, bit n = 2^n */
	/* Contract 1.2: each field means something only with its caps2 bit. */
	__le64 caps2;		/* ROCX_CAP2_*: the parts of 1.2 implemented */
	__le32 cqe_formats;	/* CQE64: bit n = CQE format n */
	__le32 max_mw;		/* MW */
	__le32 max_xrcd;	/* XRC */
	__le32 max_srq_sge;	/* SRQ */
	__le32 max_fast_reg_pages;	/* FAST_REG */
	__le32 max_mcast_grp;	/* MCAST */
	__le32 max_mcast_qp_attach;	/* MCAST */
	__le32 max_mcast_macs;	/* MCAST_FILTER: SET_MCAST_MACS entries */
	__u8 atomic_cap;	/* ATOMIC: 0 none, 1 HCA */
	__u8 rsvd1[3];
	__le32 clock_khz;	/* CLOCK */
	__le32 rx_buf_total;	/* PFC: receive buffer bytes, all priorities */
	__le32 max_speed;	/* ETS, DCQCN: Mb/s */
	__u8 rsvd[104];
};

/*
 * IDENTIFY.caps2 (contract 1.2): a driver uses a part of 1.2 only when
 * its bit is set; a 1.1 device leaves the word zero.  Bit numbers follow
 * the list in rocx-device.rst, "Versions and capabilities".
 */
#define ROCX_CAP2_UD			ROCX_BIT_ULL(0)
#define ROCX_CAP2_UC			ROCX_BIT_ULL(1)
#define ROCX_CAP2_GSI			ROCX_BIT_ULL(2)
#define ROCX_CAP2_SRQ			ROCX_BIT_ULL(3)
#define ROCX_CAP2_SRQ_RESIZE		ROCX_BIT_ULL(4)
#define ROCX_CAP2_XRC			ROCX_BIT_ULL(5)
#define ROCX_CAP2_ATOMIC		ROCX_BIT_ULL(6)
#define ROCX_CAP2_MW			ROCX_BIT_ULL(7)
#define ROCX_CAP2_FAST_REG		ROCX_BIT_ULL(8)
#define ROCX_CAP2_MCAST			ROCX_BIT_ULL(9)
#define ROCX_CAP2_CQE64			ROCX_BIT_ULL(10)
#define ROCX_CAP2_CLOCK			ROCX_BIT_ULL(11)
#define ROCX_CAP2_QPN_ROTATE		ROCX_BIT_ULL(12)
#define ROCX_CAP2_PFC			ROCX_BIT_ULL(13)
#define ROCX_CAP2_ETS			ROCX_BIT_ULL(14)
#define ROCX_CAP2_ECN			ROCX_BIT_ULL(15)
#define ROCX_CAP2_DCQCN			ROCX_BIT_ULL(16)
/* Lost events are reported by ROCX_EQE_EQ_OVERFLOW (rocx-device.rst). */
#define ROCX_CAP2_EQ_OVERFLOW_EVENT	ROCX_BIT_ULL(17)
/* SET_MCAST_MACS and the Ethernet multicast filter (rocx-device.rst). */
#define ROCX_CAP2_MCAST_FILTER		ROCX_BIT_ULL(18)
/* RESIZE_CQ (rocx-device.rst, "Resizing CQs and SRQs"). */
#define ROCX_CAP2_CQ_RESIZE		ROCX_BIT_ULL(19)
/* The device clock read from doorbell pages (ROCX_DB_CLOCK). */
#define ROCX_CAP2_USER_CLOCK		ROCX_BIT_ULL(20)
/* SQ doorbell records in a QP's queue buffer (ROCX_QP_DB_RECORD). */
#define ROCX_CAP2_DB_RECORD		ROCX_BIT_ULL(21)

/*
 * IDENTIFY.atomic_cap (ROCX_CAP2_ATOMIC): HCA means atomic against the
 * device's own atomics, not against the host's CPUs (IBV_ATOMIC_HCA).
 */
#define ROCX_ATOMIC_CAP_NONE		0
#define ROCX_ATOMIC_CAP_HCA		1

/*
 * Port and device events (LINK_CHANGE, GUEST_ERROR, FATAL) a 1.2 device
 * queues for EQ 0 beside one QP_ERROR per QP and one CQ_ERROR per CQ;
 * EQ 0 needs max_qp + max_cq + max_srq + this many entries.
 */
#define ROCX_EQ0_PORT_EVENTS		16

/* ======================= Counters ======================= */

enum rocx_stat {
	ROCX_STAT_TX_PACKETS,
	ROCX_STAT_TX_BYTES,
	ROCX_STAT_TX_ERRORS,		/* bad descriptor or DMA fault */
	ROCX_STAT_TX_DROPPED_LINK_DOWN,
	ROCX_STAT_RX_PACKETS,
	ROCX_STAT_RX_BYTES,
	ROCX_STAT_RX_BROADCAST,
	ROCX_STAT_RX_MULTICAST,
	ROCX_STAT_RX_DROPPED_FILTER,	/* not our MAC or groups, MAC control */
	ROCX_STAT_RX_DROPPED_LINK_DOWN,
	ROCX_STAT_RX_TRUNCATED,		/* frame larger than the buffer */
	ROCX_STAT_RX_ERRORS,		/* DMA fault */
	ROCX_STAT_RX_NO_BUFFER,		/* frame waited for a descriptor */
	ROCX_STAT_INTERRUPTS,
	ROCX_STAT_DOORBELLS,
	ROCX_STAT_AQ_COMMANDS,
	ROCX_STAT_AQ_ERRORS,		/* commands completed with status != OK */
	ROCX_STAT_GUEST_ERRORS,
	ROCX_STAT_EQ_OVERFLOWS,
	ROCX_STAT_LINK_CHANGES,
	ROCX_STAT_ROCE_RX_PACKETS,
	ROCX_STAT_ROCE_TX_PACKETS,
	ROCX_STAT_ROCE_ICRC_ERRORS,
	ROCX_STAT_ROCE_RX_DROPPED,
	/* Contract 1.2. */
	ROCX_STAT_RX_DISCARDS,		/* device's RX holding queue full */
	ROCX_STAT_RX_PAUSE,		/* 802.3x pause frames acted on */
	ROCX_STAT_TX_PAUSE,		/* 802.3x PAUSEs sent asking for time */
	ROCX_STAT_RX_PAUSE_DURATION,	/* us the port was paused by a peer */
	ROCX_STAT_TX_PAUSE_DURATION,	/* us the device asked the peer to wait */
	/* Requests taken in sequence by responders (not duplicates). */
	ROCX_STAT_RX_WRITE_REQUESTS,
	ROCX_STAT_RX_READ_REQUESTS,
	ROCX_STAT_RX_ATOMIC_REQUESTS,
	/* ROCX_NUM_PRIO blocks of ROCX_STAT_PRIO_NUM: ROCX_STAT_PRIO(p, k). */
	ROCX_STAT_PRIO_BASE,
	ROCX_STAT_PRIO_END = ROCX_STAT_PRIO_BASE + 8 * 10,
	/* Transport errors (mlx5's hw_counters names), after the blocks. */
	ROCX_STAT_OUT_OF_SEQUENCE = ROCX_STAT_PRIO_END,
	ROCX_STAT_PACKET_SEQ_ERR,	/* NAK sequence error received */
	ROCX_STAT_DUPLICATE_REQUEST,
	ROCX_STAT_LOCAL_ACK_TIMEOUT_ERR,
	ROCX_STAT_RNR_NAK_RETRY_ERR,
	ROCX_STAT_IMPLIED_NAK_SEQ_ERR,
	ROCX_STAT_REQ_REMOTE_ACCESS_ERRORS,
	ROCX_STAT_REQ_REMOTE_INVALID_REQUEST,
	ROCX_STAT_RESP_REMOTE_ACCESS_ERRORS,
	ROCX_STAT_RESP_REMOTE_INVALID_REQUEST,
	ROCX_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED,
	ROCX_STAT_ROCE_TX_MTU_DROPS,
	/* Congestion control (ECN and DCQCN). */
	ROCX_STAT_NP_CNP_SENT,
	ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS,
	ROCX_STAT_RP_CNP_HANDLED,
	ROCX_STAT_RP_CNP_IGNORED,
	/* Doorbell-record reads that found new WQEs (ROCX_QP_DB_RECORD). */
	ROCX_STAT_DB_RECORD_TAKES,
	ROCX_STAT_NUM
};

/* Per-priority counters, in the block of priority p (mlx5's names). */
enum rocx_stat_prio {
	ROCX_STAT_PRIO_RX_BYTES,	/* rx_prioN_bytes */
	ROCX_STAT_PRIO_RX_PACKETS,	/* rx_prioN_packets */
	ROCX_STAT_PRIO_TX_BYTES,	/* tx_prioN_bytes */
	ROCX_STAT_PRIO_TX_PACKETS,	/* tx_prioN_packets */
	ROCX_STAT_PRIO_RX_PAUSE,	/* rx_prioN_pause: PFC XOFFs acted on */
	ROCX_STAT_PRIO_TX_PAUSE,	/* tx_prioN_pause: PFC XOFFs sent */
	ROCX_STAT_PRIO_RX_PAUSE_DURATION,	/* us paused by the peer */
	ROCX_STAT_PRIO_TX_PAUSE_DURATION,	/* us the peer was asked to wait */
	ROCX_STAT_PRIO_RX_DISCARDS,	/* receive buffer of the priority full */
	ROCX_STAT_PRIO_RX_BUF_MAX,	/* largest occupancy seen, bytes */
	ROCX_STAT_PRIO_NUM
};

#define ROCX_STAT_PRIO(p, k)		(ROCX_STAT_PRIO_BASE + \
					 (p) * ROCX_STAT_PRIO_NUM + (k))

ROCX_ASSERT_SIZE(struct rocx_aq_hdr, 8);
ROCX_ASSERT_SIZE(struct rocx_aq_identify, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_set_port, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_query_port, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_get_stats, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_create_eq, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_destroy_eq, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_create_eth_ring, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_destroy_eth_ring, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_set_gid, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_del_gid, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_uctx, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_pd, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(union rocx_aq_cmd, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_aq_cqe, ROCX_AQ_CQE_SIZE);
ROCX_ASSERT_SIZE(struct rocx_eqe, 16);
ROCX_ASSERT_SIZE(struct rocx_eth_tx_desc, 16);
ROCX_ASSERT_SIZE(struct rocx_eth_rx_desc, 16);
ROCX_ASSERT_SIZE(struct rocx_identify, 256);
ROCX_ASSERT_SIZE(struct rocx_aq_set_mcast_macs, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_mcast_mac, 8);
static_assert(ROCX_STAT_PRIO(ROCX_NUM_PRIO, 0) == ROCX_STAT_PRIO_END,
	      "the per-priority blocks end at ROCX_STAT_PRIO_END");
ROCX_ASSERT_SIZE(struct rocx_aq_cfg_buf, ROCX_AQ_CMD_SIZE);
ROCX_ASSERT_SIZE(struct rocx_dcb_cfg, 256);
static_assert(__builtin_offsetof(struct rocx_dcb_cfg, dscp2prio) == 64,
	      "dscp2prio is at byte 64 of struct rocx_dcb_cfg");
static_assert(__builtin_offsetof(struct rocx_dcb_cfg, pfc_quanta) == 224,
	      "pfc_quanta is at byte 224 of struct rocx_dcb_cfg");
ROCX_ASSERT_SIZE(struct rocx_cc_cfg, 128);
static_assert(__builtin_offsetof(struct rocx_cc_cfg, rp_clamp_tgt_rate) == 60,
	      "rp_clamp_tgt_rate is at byte 60 of struct rocx_cc_cfg");
static_assert(__builtin_offsetof(struct rocx_identify, caps2) == 96,
	      "caps2 is at byte 96 of IDENTIFY");
static_assert(__builtin_offsetof(struct rocx_identify, max_mcast_macs) == 132,
	      "max_mcast_macs is at byte 132 of IDENTIFY");
static_assert(__builtin_offsetof(struct rocx_identify, max_speed) == 148,
	      "max_speed is at byte 148 of IDENTIFY");

#endif /* _ROCX_IF_H_ */
