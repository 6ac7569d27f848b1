/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx device contract: PCI identity, BARs, registers and doorbells.
 *
 * Documentation/rocx-device.rst is the normative text; this header encodes
 * it.  Register offsets are in bytes from the start of BAR0; all BAR0
 * registers are 32 bits wide and accessed with 32-bit reads and writes.
 */
#ifndef _ROCX_HW_H_
#define _ROCX_HW_H_

#include "rocx_bits.h"

/*
 * PCI identity.  1af4:10f0 sits in the range QEMU sets aside for
 * experimental devices (docs/specs/pci-ids.rst); it must be replaced by an
 * assigned ID before any real hardware ships.
 */
#define ROCX_PCI_VENDOR_ID		0x1af4
#define ROCX_PCI_DEVICE_ID		0x10f0
#define ROCX_PCI_REVISION		0x01
#define ROCX_PCI_CLASS_ETHERNET		0x0200

/*
 * Contract version the device implements, read from ROCX_REG_VERSION.
 * 1.2 promises only the parts whose IDENTIFY.caps2 bit is set.
 */
#define ROCX_VERSION_MAJOR		1
#define ROCX_VERSION_MINOR		2

/* BARs: registers, doorbell pages, MSI-X table and PBA. */
#define ROCX_BAR_REGS			0
#define ROCX_BAR_REGS_SIZE		0x4000
#define ROCX_BAR_DB			2
#define ROCX_DB_PAGE_SHIFT		12
#define ROCX_DB_PAGE_SIZE		ROCX_BIT(ROCX_DB_PAGE_SHIFT)
#define ROCX_DB_PAGES			256	/* page 0 is the kernel's */
#define ROCX_BAR_DB_SIZE		(ROCX_DB_PAGES * ROCX_DB_PAGE_SIZE)
#define ROCX_BAR_MSIX			4
#define ROCX_MSIX_VECTORS		8

/* ---- Identification block (read-only) ---- */
#define ROCX_REG_ID			0x000	/* ROCX_ID_MAGIC */
#define   ROCX_ID_MAGIC			0x58434f52	/* "ROCX" */
#define ROCX_REG_VERSION		0x004
#define   ROCX_VERSION_MAJOR_MASK	ROCX_GENMASK(31, 16)
#define   ROCX_VERSION_MINOR_MASK	ROCX_GENMASK(15, 0)
#define ROCX_REG_CAPS			0x008	/* ROCX_CAP_* */
#define   ROCX_CAP_ETH			ROCX_BIT(0)
#define   ROCX_CAP_RDMA			ROCX_BIT(1)
#define   ROCX_CAP_ROCE_V1		ROCX_BIT(2)
#define   ROCX_CAP_ROCE_V2		ROCX_BIT(3)
#define   ROCX_CAP_DCB			ROCX_BIT(4)
#define   ROCX_CAP_SELFTEST		ROCX_BIT(5)
#define ROCX_REG_FW_VERSION		0x00c	/* [31:16] major [15:8] minor [7:0] patch */

/* ---- Device control and status ---- */
#define ROCX_REG_DEV_CTRL		0x010
#define   ROCX_DEV_CTRL_RESET		ROCX_BIT(0)	/* W: reset; reads 0 when done */
#define ROCX_REG_DEV_STATUS		0x014
#define   ROCX_DEV_STATUS_READY		ROCX_BIT(0)
#define   ROCX_DEV_STATUS_FATAL		ROCX_BIT(1)
#define ROCX_REG_GUEST_ERR_COUNT	0x018	/* guest errors seen, wraps */
#define ROCX_REG_LAST_GUEST_ERR		0x01c
#define   ROCX_LAST_ERR_CODE_MASK	ROCX_GENMASK(15, 0)	/* ROCX_GERR_* */
#define   ROCX_LAST_ERR_INFO_MASK	ROCX_GENMASK(31, 16)	/* offset/opcode */
#define ROCX_REG_NUM_VECTORS		0x020
#define ROCX_REG_DB_PAGES		0x024
#define ROCX_REG_LINK_STATUS		0x028
#define   ROCX_LINK_UP			ROCX_BIT(0)	/* carrier and admin up */
#define   ROCX_LINK_CARRIER		ROCX_BIT(1)	/* peer/backend present */
#define   ROCX_LINK_ADMIN_UP		ROCX_BIT(2)	/* set by SET_PORT */
#define   ROCX_LINK_SPEED_MASK		ROCX_GENMASK(31, 16)	/* Gb/s */
/* Contract 1.2: the port's line rate in Mb/s. */
#define ROCX_REG_LINK_SPEED		0x02c
#define ROCX_REG_MAC_LO			0x030	/* MAC bytes 0..3, byte 0 in [7:0] */
#define ROCX_REG_MAC_HI			0x034	/* MAC bytes 4..5 in [15:0] */

/* ---- Self-test block, run by the driver at probe ---- */
#define ROCX_REG_SCRATCH		0x040	/* RW, any value reads back */
#define ROCX_REG_TEST_IRQ		0x044	/* W: vector to raise */
#define ROCX_REG_TEST_DMA_ADDR_LO	0x048
#define ROCX_REG_TEST_DMA_ADDR_HI	0x04c
#define ROCX_REG_TEST_DMA_LEN		0x050	/* 1..ROCX_TEST_DMA_MAX */
#define   ROCX_TEST_DMA_MAX		4096
#define ROCX_REG_TEST_DMA_CTRL		0x054
#define   ROCX_TEST_DMA_START		ROCX_BIT(0)	/* W: invert buffer */
#define ROCX_REG_TEST_DMA_STATUS	0x058	/* ROCX_TEST_DMA_* */
#define   ROCX_TEST_DMA_IDLE		0
#define   ROCX_TEST_DMA_BUSY		1
#define   ROCX_TEST_DMA_DONE		2
#define   ROCX_TEST_DMA_ERROR		3

/*
 * ---- Device clock (contract 1.2, ROCX_CAP2_CLOCK) ----
 * Free-running nanoseconds since reset.  Reading CLOCK_LO latches the
 * upper half for the next CLOCK_HI read: read LO, then HI.
 */
#define ROCX_REG_CLOCK_LO		0x060
#define ROCX_REG_CLOCK_HI		0x064

/* ---- Admin queue ---- */
#define ROCX_REG_AQ_SQ_BASE_LO		0x100	/* 64-byte aligned */
#define ROCX_REG_AQ_SQ_BASE_HI		0x104
#define ROCX_REG_AQ_CQ_BASE_LO		0x108	/* 16-byte aligned */
#define ROCX_REG_AQ_CQ_BASE_HI		0x10c
#define ROCX_REG_AQ_CTRL		0x110
#define   ROCX_AQ_CTRL_LOG_DEPTH_MASK	ROCX_GENMASK(3, 0)	/* 2..12 */
#define   ROCX_AQ_CTRL_ENABLE		ROCX_BIT(8)
#define   ROCX_AQ_CTRL_IRQ_EN		ROCX_BIT(9)
#define   ROCX_AQ_CTRL_VECTOR_MASK	ROCX_GENMASK(23, 16)
#define ROCX_REG_AQ_STATUS		0x114
#define   ROCX_AQ_STATUS_ENABLED	ROCX_BIT(0)
#define   ROCX_AQ_STATUS_ERROR		ROCX_BIT(1)	/* bad config or DMA */
#define ROCX_REG_AQ_DB			0x118	/* W: producer index [15:0] */
#define ROCX_REG_AQ_HEAD		0x11c	/* R: commands consumed [15:0] */
#define ROCX_AQ_MIN_LOG_DEPTH		2
#define ROCX_AQ_MAX_LOG_DEPTH		12

/*
 * ---- Interrupt control, one register per MSI-X vector ----
 * A masked vector latches PENDING instead of signalling; unmasking a
 * pending vector signals it once.  NAPI and the admin queue use this rather
 * than the MSI-X table mask, so the driver never touches the PBA.
 */
#define ROCX_REG_INTR_CTRL(v)		(0x800 + 4 * (v))
#define   ROCX_INTR_MASK		ROCX_BIT(0)	/* RW */
#define   ROCX_INTR_PENDING		ROCX_BIT(1)	/* RO */

/*
 * ---- Doorbells (BAR2) ----
 * One 4 KiB page per owner: page 0 belongs to the kernel driver, pages
 * 1..DB_PAGES-1 are handed to user contexts (ROCX_AQ_OP_ALLOC_UCTX) and
 * mapped into their processes.  A doorbell is one 64-bit write; the device
 * ignores, counts and reports (ROCX_GERR_DB_*) anything else, and a page
 * may only ring queues that belong to its owner.
 */
#define ROCX_DB_SQ			0x00	/* QP send queue: producer */
#define ROCX_DB_RQ			0x08	/* QP receive queue: producer */
#define ROCX_DB_SRQ			0x10	/* shared receive queue: producer */
#define ROCX_DB_CQ			0x18	/* CQ: consumer index + arm */
#define ROCX_DB_EQ			0x20	/* EQ: consumer index + arm (page 0) */
#define ROCX_DB_ETH_TX			0x28	/* Ethernet TX ring: producer (page 0) */
#define ROCX_DB_ETH_RX			0x30	/* Ethernet RX ring: producer (page 0) */
/* 1.2, ROCX_CAP2_USER_CLOCK: a 64-bit read returns the device clock (ns). */
#define ROCX_DB_CLOCK			0x40

#define ROCX_DB_QID_MASK		ROCX_GENMASK_ULL(23, 0)	/* qpn/cqn/eqn/ring */
#define ROCX_DB_INDEX_MASK		ROCX_GENMASK_ULL(47, 32)	/* free-running */
#define ROCX_DB_ARM			ROCX_BIT_ULL(48)	/* CQ/EQ: interrupt on next */
#define ROCX_DB_ARM_SOLICITED		ROCX_BIT_ULL(49)	/* CQ: solicited only */

/*
 * The doorbell value for queue @qid at free-running @index (its low 16
 * bits travel) with @arm, 0 or ROCX_DB_ARM and ROCX_DB_ARM_SOLICITED.  The
 * driver and the provider ring with it, the device reads it back with
 * rocx_db_qid() and rocx_db_index(), so the layout is written only here.
 * A @qid wider than 24 bits is cut to its low 24, as the device reads it.
 */
static inline __u64 rocx_db_encode(__u32 qid, __u32 index, __u64 arm)
{
	return ROCX_FIELD_PREP(ROCX_DB_QID_MASK, (__u64)qid) |
	       ROCX_FIELD_PREP(ROCX_DB_INDEX_MASK, (__u64)(__u16)index) | arm;
}

/* The queue a doorbell value names. */
static inline __u32 rocx_db_qid(__u64 val)
{
	return (__u32)ROCX_FIELD_GET(ROCX_DB_QID_MASK, val);
}

/* The 16-bit index a doorbell value carries. */
static inline __u16 rocx_db_index(__u64 val)
{
	return (__u16)ROCX_FIELD_GET(ROCX_DB_INDEX_MASK, val);
}

/*
 * ---- Guest error codes ----
 * Reported in ROCX_REG_LAST_GUEST_ERR and in ROCX_EQE_GUEST_ERROR events.
 */
enum rocx_guest_err {
	ROCX_GERR_NONE = 0,
	ROCX_GERR_REG_UNKNOWN = 1,	/* access to an undefined register */
	ROCX_GERR_REG_READONLY = 2,	/* write to a read-only register */
	ROCX_GERR_ACCESS_SIZE = 3,	/* wrong access width */
	ROCX_GERR_REG_VALUE = 4,	/* value out of range */
	ROCX_GERR_DB_OFFSET = 5,	/* undefined doorbell offset */
	ROCX_GERR_DB_OWNER = 6,		/* page rang a queue it does not own */
	ROCX_GERR_DB_QUEUE = 7,		/* no such queue */
	ROCX_GERR_DB_INDEX = 8,		/* index beyond the ring depth */
	ROCX_GERR_DMA = 9,		/* DMA to/from an invalid address */
	ROCX_GERR_DESC = 10,		/* malformed descriptor */
	ROCX_GERR_AQ_CONFIG = 11,	/* admin queue misconfigured */
	ROCX_GERR_AQ_INDEX = 12,	/* admin producer beyond depth */
	ROCX_GERR_EQ_OVERFLOW = 13,	/* event queue full, event lost */
	ROCX_GERR_VECTOR = 14,		/* vector number out of range */
};

#endif /* _ROCX_HW_H_ */
