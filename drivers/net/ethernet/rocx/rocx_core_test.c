// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rocx_core's pure logic: ring arithmetic with 16-bit
 * free-running indices, phase tracking, doorbell and AQ_CTRL encoding,
 * the doorbell pages user contexts may map, admin command layout against
 * the byte offsets of the specification, status mapping, timeout
 * diagnosis, the ethtool tables, and the register helpers' device-gone
 * and identification logic on a memory-backed BAR.
 *
 * Expected values are written out by hand from
 * Documentation/rocx-device.rst, not computed with the code under test.
 */
#include <kunit/test.h>
#include <linux/dcbnl.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/ethtool.h>
#include <linux/errno.h>
#include <linux/etherdevice.h>
#include <linux/kthread.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>

#include "rocx.h"
#include "rocx_aq.h"
#include "rocx_dcb.h"
#include "rocx_ethtool.h"
#include "rocx_ring.h"

/* ======================= rocx_ring ======================= */

struct rocx_ring_case {
	const char *name;
	u16 head;
	u16 tail;
	u32 size;
	u32 used;
	u32 free;
};

static const struct rocx_ring_case rocx_ring_cases[] = {
	{ "empty", 0, 0, 64, 0, 64 },
	{ "two_posted", 5, 3, 64, 2, 62 },
	{ "full", 64, 0, 64, 64, 0 },
	{ "head_wrapped", 3, 65533, 64, 6, 58 },
	{ "full_across_wrap", 31, 65503, 64, 64, 0 },
	{ "both_wrapped", 0x8000, 0x7fc0, 64, 64, 0 },
	{ "large_ring", 4000, 100, 4096, 3900, 196 },
	{ "at_top", 65535, 65535, 256, 0, 256 },
};

static void rocx_ring_case_desc(const struct rocx_ring_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(rocx_ring, rocx_ring_cases, rocx_ring_case_desc);

static void rocx_ring_used_free_test(struct kunit *test)
{
	const struct rocx_ring_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ring_used(c->head, c->tail), c->used);
	KUNIT_EXPECT_EQ(test, rocx_ring_free(c->head, c->tail, c->size),
			c->free);
}

static void rocx_ring_slot_test(struct kunit *test)
{
	u16 index = 65535;

	KUNIT_EXPECT_EQ(test, rocx_ring_slot(0, 64), 0U);
	KUNIT_EXPECT_EQ(test, rocx_ring_slot(63, 64), 63U);
	KUNIT_EXPECT_EQ(test, rocx_ring_slot(64, 64), 0U);
	KUNIT_EXPECT_EQ(test, rocx_ring_slot(65535, 64), 63U);
	KUNIT_EXPECT_EQ(test, rocx_ring_slot(65535, 4096), 4095U);
	KUNIT_EXPECT_EQ(test, rocx_ring_slot(4097, 4096), 1U);
	/* A 16-bit index that wraps lands in slot 0 again. */
	index++;
	KUNIT_EXPECT_EQ(test, rocx_ring_slot(index, 16), 0U);
}

struct rocx_phase_case {
	u32 index;
	unsigned int log_depth;
	u8 phase;
};

static const struct rocx_phase_case rocx_phase_cases[] = {
	{ 0, 4, 1 }, { 15, 4, 1 }, { 16, 4, 0 }, { 31, 4, 0 }, { 32, 4, 1 },
	{ 65535, 4, 0 }, { 65536, 4, 1 },
	{ 0, 2, 1 }, { 3, 2, 1 }, { 4, 2, 0 },
	{ 4095, 12, 1 }, { 4096, 12, 0 }, { 8192, 12, 1 },
	/* EQs of 2^16 entries need a 32-bit consumer index. */
	{ 65535, 16, 1 }, { 65536, 16, 0 }, { 131072, 16, 1 },
};

static void rocx_phase_case_desc(const struct rocx_phase_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "index %u log %u", c->index,
		 c->log_depth);
}

KUNIT_ARRAY_PARAM(rocx_phase, rocx_phase_cases, rocx_phase_case_desc);

static void rocx_ring_phase_test(struct kunit *test)
{
	const struct rocx_phase_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ring_phase(c->index, c->log_depth), c->phase);
}

/* The 16-bit wrap of an admin index must flip the phase like any wrap. */
static void rocx_ring_phase_u16_wrap_test(struct kunit *test)
{
	unsigned int log;

	for (log = ROCX_AQ_MIN_LOG_DEPTH; log <= ROCX_AQ_MAX_LOG_DEPTH; log++) {
		u16 last = 65535, next = last;

		next++;

		KUNIT_EXPECT_EQ_MSG(test, rocx_ring_phase(last, log), 0,
				    "log %u", log);
		KUNIT_EXPECT_EQ_MSG(test, rocx_ring_phase(next, log), 1,
				    "log %u", log);
	}
}

static struct kunit_case rocx_ring_test_cases[] = {
	KUNIT_CASE_PARAM(rocx_ring_used_free_test, rocx_ring_gen_params),
	KUNIT_CASE(rocx_ring_slot_test),
	KUNIT_CASE_PARAM(rocx_ring_phase_test, rocx_phase_gen_params),
	KUNIT_CASE(rocx_ring_phase_u16_wrap_test),
	{}
};

static struct kunit_suite rocx_ring_suite = {
	.name = "rocx_ring",
	.test_cases = rocx_ring_test_cases,
};

/* ======================= rocx_db ======================= */

struct rocx_db_case {
	const char *name;
	u32 qid;
	u16 index;
	bool arm;
	bool solicited;
	u64 value;
};

static const struct rocx_db_case rocx_db_cases[] = {
	{ "eth_tx", 0, 1, false, false, 0x0000000100000000ULL },
	{ "eq_arm", 0, 0, true, false, 0x0001000000000000ULL },
	{ "cq_arm", 5, 0x1234, true, false, 0x0001123400000005ULL },
	{ "all_ones", 0xffffff, 0xffff, true, true, 0x0003ffff00ffffffULL },
	{ "solicited_only", 7, 2, false, true, 0x0002000200000007ULL },
	{ "qid_masked", 0x1000001, 3, false, false, 0x0000000300000001ULL },
};

static void rocx_db_case_desc(const struct rocx_db_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(rocx_db, rocx_db_cases, rocx_db_case_desc);

static void rocx_db_encode_test(struct kunit *test)
{
	const struct rocx_db_case *c = test->param_value;

	u64 arm = (c->arm ? ROCX_DB_ARM : 0) |
		  (c->solicited ? ROCX_DB_ARM_SOLICITED : 0);

	KUNIT_EXPECT_EQ(test, rocx_db_encode(c->qid, c->index, arm), c->value);
}

struct rocx_aq_ctrl_case {
	unsigned int log_depth;
	bool irq;
	unsigned int vector;
	u32 value;
};

static const struct rocx_aq_ctrl_case rocx_aq_ctrl_cases[] = {
	{ 4, false, 0, 0x00000104 },
	{ 4, true, 0, 0x00000304 },
	{ 12, true, 3, 0x0003030c },
	{ 2, false, 7, 0x00000102 },	/* vector ignored when polled */
	{ 5, true, 255, 0x00ff0305 },
};

static void rocx_aq_ctrl_case_desc(const struct rocx_aq_ctrl_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "log %u irq %d vector %u",
		 c->log_depth, c->irq, c->vector);
}

KUNIT_ARRAY_PARAM(rocx_aq_ctrl, rocx_aq_ctrl_cases, rocx_aq_ctrl_case_desc);

static void rocx_aq_ctrl_value_test(struct kunit *test)
{
	const struct rocx_aq_ctrl_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_aq_ctrl_value(c->log_depth, c->irq,
						 c->vector), c->value);
}

#define ROCX_TEST_BAR2	0xfe000000ULL

/*
 * A PCI function whose BAR2 holds @bar_pages doorbell pages, and the
 * rocx_core that probe would have made of it (db_pages clamped to them).
 */
static struct rocx_core *rocx_db_page_core(struct kunit *test, u32 bar_pages)
{
	struct rocx_core *core = kunit_kzalloc(test, sizeof(*core), GFP_KERNEL);
	struct pci_dev *pdev = kunit_kzalloc(test, sizeof(*pdev), GFP_KERNEL);
	struct resource *r;

	KUNIT_ASSERT_NOT_NULL(test, core);
	KUNIT_ASSERT_NOT_NULL(test, pdev);
	r = &pdev->resource[ROCX_BAR_DB];
	r->start = ROCX_TEST_BAR2;
	r->end = ROCX_TEST_BAR2 + ((u64)bar_pages << ROCX_DB_PAGE_SHIFT) - 1;
	r->flags = IORESOURCE_MEM;
	core->pdev = pdev;
	core->db_pages = bar_pages;
	return core;
}

struct rocx_db_page_case {
	const char *desc;
	u32 page;
	int err;
};

static const struct rocx_db_page_case rocx_db_page_cases[] = {
	{ "kernel_page", 0, -EINVAL },
	{ "first", 1, 0 },
	{ "last", 15, 0 },
	{ "past_bar", 16, -EINVAL },
	{ "identified_not_in_bar", 200, -EINVAL },
	{ "u32_max", U32_MAX, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(rocx_db_page, rocx_db_page_cases, desc);

/* A page past the BAR is refused: rocx_ib must never map it. */
static void rocx_db_page_phys_test(struct kunit *test)
{
	const struct rocx_db_page_case *c = test->param_value;
	struct rocx_core *core = rocx_db_page_core(test, 16);
	phys_addr_t addr = 0x1234;

	KUNIT_ASSERT_EQ(test, rocx_db_page_phys(core, c->page, &addr), c->err);
	if (c->err)
		KUNIT_EXPECT_EQ(test, addr, 0x1234);
	else
		KUNIT_EXPECT_EQ(test, addr, ROCX_TEST_BAR2 +
				((u64)c->page << ROCX_DB_PAGE_SHIFT));
}

static struct kunit_case rocx_db_test_cases[] = {
	KUNIT_CASE_PARAM(rocx_db_encode_test, rocx_db_gen_params),
	KUNIT_CASE_PARAM(rocx_aq_ctrl_value_test, rocx_aq_ctrl_gen_params),
	KUNIT_CASE_PARAM(rocx_db_page_phys_test, rocx_db_page_gen_params),
	{}
};

static struct kunit_suite rocx_db_suite = {
	.name = "rocx_db",
	.test_cases = rocx_db_test_cases,
};

/* ======================= rocx_aq ======================= */

struct rocx_errno_case {
	u8 status;
	int err;
};

static const struct rocx_errno_case rocx_errno_cases[] = {
	{ 0, 0 },
	{ 1, -EOPNOTSUPP },
	{ 2, -EINVAL },
	{ 3, -ENOSPC },
	{ 4, -EBUSY },
	{ 5, -EFAULT },
	{ 6, -EEXIST },
	{ 7, -ENOENT },
	{ 8, -EIO },
	{ 9, -EIO },
	{ 0x80, -EIO },
	{ 0xff, -EIO },
};

static void rocx_errno_case_desc(const struct rocx_errno_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "status %u", c->status);
}

KUNIT_ARRAY_PARAM(rocx_errno, rocx_errno_cases, rocx_errno_case_desc);

static void rocx_status_to_errno_test(struct kunit *test)
{
	const struct rocx_errno_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_status_to_errno(c->status), c->err);
}

/* Every byte not listed in @set must be zero. */
static void rocx_expect_bytes(struct kunit *test, const union rocx_aq_cmd *cmd,
			      const u8 *set, const u8 *val, unsigned int n)
{
	u8 want[ROCX_AQ_CMD_SIZE] = {};
	unsigned int i;

	for (i = 0; i < n; i++)
		want[set[i]] = val[i];
	for (i = 0; i < ROCX_AQ_CMD_SIZE; i++)
		KUNIT_EXPECT_EQ_MSG(test, cmd->raw[i], want[i], "byte %u", i);
}

static void rocx_aq_set_port_test(struct kunit *test)
{
	static const u8 mac[6] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x31 };
	static const u8 off[] = { 0, 8, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21 };
	static const u8 val[] = { 0x02, 0x0f, 0x28, 0x23, 0x02, 0x00, 0x5e,
				  0x10, 0x20, 0x31, 0x01, 0x01 };
	union rocx_aq_cmd cmd;

	memset(&cmd, 0xaa, sizeof(cmd));
	rocx_aq_build_set_port(&cmd, ROCX_PORT_SET_MTU | ROCX_PORT_SET_MAC |
			       ROCX_PORT_SET_ADMIN | ROCX_PORT_SET_RX_MODE,
			       9000, mac, true, ROCX_RX_MODE_PROMISC);
	rocx_expect_bytes(test, &cmd, off, val, ARRAY_SIZE(off));
}

/* Fields without their valid bit stay zero whatever the arguments. */
static void rocx_aq_set_port_partial_test(struct kunit *test)
{
	static const u8 mac[6] = { 0x02, 1, 2, 3, 4, 5 };
	static const u8 off[] = { 0, 8, 20 };
	static const u8 val[] = { 0x02, 0x04, 0x00 };
	union rocx_aq_cmd cmd;

	rocx_aq_build_set_port(&cmd, ROCX_PORT_SET_ADMIN, 1500, mac, false,
			       ROCX_RX_MODE_ALLMULTI);
	rocx_expect_bytes(test, &cmd, off, val, ARRAY_SIZE(off));
}

/* SET_MCAST_MACS: opcode 0x18, the list's address at 8, its count at 16. */
static void rocx_aq_set_mcast_macs_test(struct kunit *test)
{
	static const u8 off[] = { 0, 8, 9, 10, 11, 12, 13, 14, 16 };
	static const u8 val[] = { 0x18, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33,
				  0x12, 0x40 };
	union rocx_aq_cmd cmd;

	memset(&cmd, 0xff, sizeof(cmd));
	rocx_aq_build_set_mcast_macs(&cmd, 0x0012334455667788ULL, 64);
	rocx_expect_bytes(test, &cmd, off, val, ARRAY_SIZE(off));
	KUNIT_EXPECT_EQ(test, sizeof(struct rocx_mcast_mac), 8);
}

static void rocx_aq_create_eth_ring_test(struct kunit *test)
{
	static const u8 off[] = { 0, 8, 9, 10, 11, 12, 13, 14, 15,
				  16, 17, 18, 19, 20, 21 };
	static const u8 val[] = { 0x0a, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33,
				  0x22, 0x11, 0x01, 0x00, 0x08, 0x01, 0xee,
				  0x05 };
	union rocx_aq_cmd cmd;

	rocx_aq_build_create_eth_ring(&cmd, ROCX_ETH_RING_RX, 0,
				      0x1122334455667788ULL, 8, 1, 1518, 3);
	rocx_expect_bytes(test, &cmd, off, val, ARRAY_SIZE(off));
	/* An RX ring's class (byte 22) is 0 whatever it is asked. */
	KUNIT_EXPECT_EQ(test, ((u8 *)&cmd)[22], 0);
}

/*
 * A TX ring has no buffer size: the field is reserved.  Its traffic
 * class is byte 22 (ring 5 of class 5 here).
 */
static void rocx_aq_create_tx_ring_test(struct kunit *test)
{
	static const u8 off[] = { 0, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22,
				  23 };
	static const u8 val[] = { 0x0a, 0x00, 0x10, 0x00, 0x80, 0x00, 0x05,
				  0x0c, 0x01, 0x00, 0x00, 0x05, 0x00 };
	union rocx_aq_cmd cmd;

	rocx_aq_build_create_eth_ring(&cmd, ROCX_ETH_RING_TX, 5,
				      0x80001000ULL, 12, 1, 1518, 5);
	rocx_expect_bytes(test, &cmd, off, val, ARRAY_SIZE(off));
}

static void rocx_aq_create_eq_test(struct kunit *test)
{
	static const u8 off[] = { 0, 8, 9, 10, 11, 12, 16, 17, 18, 19 };
	static const u8 val[] = { 0x08, 0x40, 0x30, 0x20, 0x10, 0x01, 0x03,
				  0x01, 0x06, 0x02 };
	union rocx_aq_cmd cmd;

	rocx_aq_build_create_eq(&cmd, 0x103, 0x0110203040ULL, 6, 2);
	rocx_expect_bytes(test, &cmd, off, val, ARRAY_SIZE(off));
}

static void rocx_aq_destroy_test(struct kunit *test)
{
	static const u8 ring_off[] = { 0, 8, 9 };
	static const u8 ring_val[] = { 0x0b, 0x01, 0x02 };
	static const u8 eq_off[] = { 0, 8, 9 };
	static const u8 eq_val[] = { 0x09, 0x34, 0x12 };
	union rocx_aq_cmd cmd;

	rocx_aq_build_destroy_eth_ring(&cmd, ROCX_ETH_RING_RX, 2);
	rocx_expect_bytes(test, &cmd, ring_off, ring_val, ARRAY_SIZE(ring_off));
	rocx_aq_build_destroy_eq(&cmd, 0x1234);
	rocx_expect_bytes(test, &cmd, eq_off, eq_val, ARRAY_SIZE(eq_off));
}

static void rocx_aq_identify_stats_test(struct kunit *test)
{
	static const u8 off[] = { 0, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 };
	static const u8 id_val[] = { 0x01, 0x00, 0xf0, 0xde, 0xbc, 0x9a, 0x78,
				     0x56, 0x34, 0x00, 0x01 };
	/*
	 * 129 counters of 8 bytes (enum rocx_stat: 32 singles, the last
	 * RX_ATOMIC_REQUESTS, 8 priorities of 10, then 16 transport and
	 * congestion counters and DB_RECORD_TAKES).
	 */
	static const u8 st_val[] = { 0x04, 0x00, 0xf0, 0xde, 0xbc, 0x9a, 0x78,
				     0x56, 0x34, 0x08, 0x04 };
	union rocx_aq_cmd cmd;

	rocx_aq_build_identify(&cmd, 0x3456789abcdef000ULL,
			       sizeof(struct rocx_identify));
	rocx_expect_bytes(test, &cmd, off, id_val, ARRAY_SIZE(off));
	rocx_aq_build_get_stats(&cmd, 0x3456789abcdef000ULL,
				ROCX_STAT_NUM * sizeof(u64));
	rocx_expect_bytes(test, &cmd, off, st_val, ARRAY_SIZE(off));
}

struct rocx_diag_case {
	const char *name;
	u16 pi;
	u32 head;
	bool ready;
	u32 status;
	enum rocx_aq_diag diag;
};

static const struct rocx_diag_case rocx_diag_cases[] = {
	{ "lost_irq", 5, 5, true, ROCX_AQ_STATUS_ENABLED,
	  ROCX_AQ_DIAG_LOST_IRQ },
	{ "consumed_no_completion", 5, 5, false, ROCX_AQ_STATUS_ENABLED,
	  ROCX_AQ_DIAG_NO_COMPLETION },
	{ "not_fetched", 5, 4, false, ROCX_AQ_STATUS_ENABLED,
	  ROCX_AQ_DIAG_NOT_FETCHED },
	{ "queue_error", 5, 4, false,
	  ROCX_AQ_STATUS_ENABLED | ROCX_AQ_STATUS_ERROR,
	  ROCX_AQ_DIAG_QUEUE_ERROR },
	{ "disabled", 5, 5, false, 0, ROCX_AQ_DIAG_DISABLED },
	{ "consumed_across_wrap", 0, 0x10000, false, ROCX_AQ_STATUS_ENABLED,
	  ROCX_AQ_DIAG_NO_COMPLETION },
	{ "not_fetched_across_wrap", 0, 0xffff, false, ROCX_AQ_STATUS_ENABLED,
	  ROCX_AQ_DIAG_NOT_FETCHED },
};

static void rocx_diag_case_desc(const struct rocx_diag_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(rocx_diag, rocx_diag_cases, rocx_diag_case_desc);

static void rocx_aq_diagnose_test(struct kunit *test)
{
	const struct rocx_diag_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_aq_diagnose(c->pi, c->head, c->ready,
					       c->status), c->diag);
}

static void rocx_aq_op_name_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, rocx_aq_op_name(ROCX_AQ_OP_NOP), "NOP");
	KUNIT_EXPECT_STREQ(test, rocx_aq_op_name(0x0a), "CREATE_ETH_RING");
	KUNIT_EXPECT_STREQ(test, rocx_aq_op_name(0x31), "SET_CC");
	KUNIT_EXPECT_STREQ(test, rocx_aq_op_name(0x05), "?");
	KUNIT_EXPECT_STREQ(test, rocx_aq_op_name(0x32), "QUERY_DCB");
	KUNIT_EXPECT_STREQ(test, rocx_aq_op_name(0x34), "?");
	KUNIT_EXPECT_STREQ(test, rocx_aq_op_name(0xffff), "?");
}

static struct kunit_case rocx_aq_test_cases[] = {
	KUNIT_CASE_PARAM(rocx_status_to_errno_test, rocx_errno_gen_params),
	KUNIT_CASE(rocx_aq_set_port_test),
	KUNIT_CASE(rocx_aq_set_port_partial_test),
	KUNIT_CASE(rocx_aq_set_mcast_macs_test),
	KUNIT_CASE(rocx_aq_create_eth_ring_test),
	KUNIT_CASE(rocx_aq_create_tx_ring_test),
	KUNIT_CASE(rocx_aq_create_eq_test),
	KUNIT_CASE(rocx_aq_destroy_test),
	KUNIT_CASE(rocx_aq_identify_stats_test),
	KUNIT_CASE_PARAM(rocx_aq_diagnose_test, rocx_diag_gen_params),
	KUNIT_CASE(rocx_aq_op_name_test),
	{}
};

static struct kunit_suite rocx_aq_suite = {
	.name = "rocx_aq",
	.test_cases = rocx_aq_test_cases,
};

/* ======================= rocx_ethtool ======================= */

static void rocx_ethtool_names_test(struct kunit *test)
{
	unsigned int i, j, n = rocx_stat_count();

	KUNIT_EXPECT_GT(test, n, (unsigned int)ROCX_STAT_NUM);
	KUNIT_EXPECT_NULL(test, rocx_stat_name(n));
	KUNIT_EXPECT_STREQ(test, rocx_stat_name(ROCX_STAT_TX_PACKETS),
			   "hw_tx_packets");
	KUNIT_EXPECT_STREQ(test, rocx_stat_name(ROCX_STAT_LINK_CHANGES),
			   "hw_link_changes");
	KUNIT_EXPECT_STREQ(test, rocx_stat_name(ROCX_STAT_ROCE_RX_DROPPED),
			   "hw_roce_rx_dropped");
	KUNIT_EXPECT_STREQ(test,
			   rocx_stat_name(ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_RX_BYTES)),
			   "rx_prio0_bytes");
	KUNIT_EXPECT_STREQ(test,
			   rocx_stat_name(ROCX_STAT_PRIO(3, ROCX_STAT_PRIO_RX_PAUSE)),
			   "rx_prio3_pause");
	KUNIT_EXPECT_STREQ(test,
			   rocx_stat_name(ROCX_STAT_PRIO(7, ROCX_STAT_PRIO_RX_BUF_MAX)),
			   "rx_prio7_buf_max");
	KUNIT_EXPECT_STREQ(test, rocx_stat_name(ROCX_STAT_PRIO_END),
			   "hw_out_of_sequence");
	KUNIT_EXPECT_STREQ(test, rocx_stat_name(ROCX_STAT_RP_CNP_IGNORED),
			   "hw_rp_cnp_ignored");
	for (i = 0; i < n; i++) {
		const char *name = rocx_stat_name(i);

		KUNIT_ASSERT_NOT_NULL_MSG(test, name, "entry %u", i);
		KUNIT_EXPECT_LT_MSG(test, strlen(name), (size_t)ETH_GSTRING_LEN,
				    "entry %u", i);
		/* Device counters "hw_", the driver's "sw_"; mlx5's per priority. */
		if (i >= ROCX_STAT_PRIO_BASE && i < ROCX_STAT_PRIO_END)
			KUNIT_EXPECT_TRUE_MSG(test, strstr(name, "_prio") == name + 2,
					      "entry %u is %s", i, name);
		else
			KUNIT_EXPECT_TRUE_MSG(test, !strncmp(name, i < ROCX_STAT_NUM ?
							     "hw_" : "sw_", 3),
					      "entry %u is %s", i, name);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, name, rocx_stat_name(j));
	}
}

struct rocx_size_case {
	u32 req;
	u32 size;
};

static const struct rocx_size_case rocx_size_cases[] = {
	{ 0, 64 }, { 1, 64 }, { 64, 64 }, { 65, 128 }, { 100, 128 },
	{ 256, 256 }, { 257, 512 }, { 4095, 4096 }, { 4096, 4096 },
	{ 5000, 4096 },
};

static void rocx_size_case_desc(const struct rocx_size_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u entries", c->req);
}

KUNIT_ARRAY_PARAM(rocx_size, rocx_size_cases, rocx_size_case_desc);

static void rocx_ring_size_param_test(struct kunit *test)
{
	const struct rocx_size_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ring_size_param(c->req), c->size);
}

static void rocx_rx_buf_size_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rocx_rx_buf_size(1500), 1518U);
	KUNIT_EXPECT_EQ(test, rocx_rx_buf_size(68), 86U);
	KUNIT_EXPECT_EQ(test, rocx_rx_buf_size(ROCX_MAX_MTU),
			(u32)ROCX_MAX_FRAME);
}

static void rocx_link_speed_test(struct kunit *test)
{
	u32 up = ROCX_LINK_UP | ROCX_LINK_CARRIER | ROCX_LINK_ADMIN_UP;

	KUNIT_EXPECT_EQ(test, rocx_link_speed_mbps(up | (100U << 16)), 100000U);
	KUNIT_EXPECT_EQ(test, rocx_link_speed_mbps(up | (25U << 16)), 25000U);
	KUNIT_EXPECT_EQ(test, rocx_link_speed_mbps(ROCX_LINK_CARRIER |
						   (100U << 16)), 0U);
	KUNIT_EXPECT_EQ(test, rocx_link_speed_mbps(0), 0U);
}

static struct kunit_case rocx_ethtool_test_cases[] = {
	KUNIT_CASE(rocx_ethtool_names_test),
	KUNIT_CASE_PARAM(rocx_ring_size_param_test, rocx_size_gen_params),
	KUNIT_CASE(rocx_rx_buf_size_test),
	KUNIT_CASE(rocx_link_speed_test),
	{}
};

static struct kunit_suite rocx_ethtool_suite = {
	.name = "rocx_ethtool",
	.test_cases = rocx_ethtool_test_cases,
};

/* ======================= rocx_dev ======================= */

/*
 * A device whose BAR0 is plain memory: readl()/writel() on x86 reach it
 * like MMIO, which is enough for the register helpers' logic.
 */
struct rocx_fake {
	struct rocx_core core;
	struct pci_dev pdev;
	struct pci_bus bus;
	u16 command;		/* PCI_COMMAND, through rocx_fake_pci_ops */
	u32 regs[ROCX_BAR_REGS_SIZE / 4];
	u64 db[ROCX_DB_PAGE_SIZE / 8];
};

/* Config space: PCI_COMMAND is kept, the rest reads 0. */
static int rocx_fake_cfg_read(struct pci_bus *bus, unsigned int devfn,
			      int where, int size, u32 *val)
{
	struct rocx_fake *f = container_of(bus, struct rocx_fake, bus);

	*val = where == PCI_COMMAND ? READ_ONCE(f->command) : 0;
	return PCIBIOS_SUCCESSFUL;
}

static int rocx_fake_cfg_write(struct pci_bus *bus, unsigned int devfn,
			       int where, int size, u32 val)
{
	struct rocx_fake *f = container_of(bus, struct rocx_fake, bus);

	if (where == PCI_COMMAND)
		WRITE_ONCE(f->command, val);
	return PCIBIOS_SUCCESSFUL;
}

static struct pci_ops rocx_fake_pci_ops = {
	.read = rocx_fake_cfg_read,
	.write = rocx_fake_cfg_write,
};

static struct rocx_fake *rocx_fake_new(struct kunit *test, u8 fill)
{
	struct rocx_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	memset(f->regs, fill, sizeof(f->regs));
	f->pdev.dev.init_name = "rocx-kunit";
	/* Lets dma_alloc_coherent() hand out plain memory for rings. */
	f->pdev.dev.coherent_dma_mask = DMA_BIT_MASK(64);
	f->pdev.dev.dma_mask = &f->pdev.dev.coherent_dma_mask;
	f->bus.ops = &rocx_fake_pci_ops;
	f->pdev.bus = &f->bus;
	f->command = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	f->core.pdev = &f->pdev;
	f->core.regs = (void __iomem __force *)f->regs;
	f->core.db = (void __iomem __force *)f->db;
	mutex_init(&f->core.aq.lock);
	init_completion(&f->core.aq.done);
	init_completion(&f->core.test_irq);
	mutex_init(&f->core.ev_lock);
	return f;
}

static u32 *rocx_fake_reg(struct rocx_fake *f, u32 reg)
{
	return &f->regs[reg / 4];
}

/* Every register reads all-ones: the device is gone and stays gone. */
static void rocx_dev_gone_test(struct kunit *test)
{
	struct rocx_fake *f = rocx_fake_new(test, 0xff);
	struct rocx_core *core = &f->core;
	union rocx_aq_cmd cmd = {};

	set_bit(ROCX_ST_AQ_UP, &core->state);
	KUNIT_EXPECT_EQ(test, rocx_rd32(core, ROCX_REG_LINK_STATUS), ~0U);
	KUNIT_EXPECT_TRUE(test, rocx_gone(core));
	KUNIT_EXPECT_TRUE(test, completion_done(&core->aq.done));

	/* Not read again, not written again. */
	*rocx_fake_reg(f, ROCX_REG_LINK_STATUS) = ROCX_LINK_UP;
	KUNIT_EXPECT_EQ(test, rocx_rd32(core, ROCX_REG_LINK_STATUS), ~0U);
	rocx_wr32(core, ROCX_REG_SCRATCH, 0x1234);
	KUNIT_EXPECT_EQ(test, *rocx_fake_reg(f, ROCX_REG_SCRATCH), ~0U);

	cmd.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_NOP);
	KUNIT_EXPECT_EQ(test, rocx_admin_exec(core, &cmd, NULL), -ENODEV);
}

/* A register that legitimately reads all-ones on a live device. */
static void rocx_dev_all_ones_value_test(struct kunit *test)
{
	struct rocx_fake *f = rocx_fake_new(test, 0);
	struct rocx_core *core = &f->core;

	*rocx_fake_reg(f, ROCX_REG_ID) = ROCX_ID_MAGIC;
	*rocx_fake_reg(f, ROCX_REG_GUEST_ERR_COUNT) = ~0U;
	KUNIT_EXPECT_EQ(test, rocx_rd32(core, ROCX_REG_GUEST_ERR_COUNT), ~0U);
	KUNIT_EXPECT_FALSE(test, rocx_gone(core));
	rocx_wr32(core, ROCX_REG_SCRATCH, 0xa5a5a5a5);
	KUNIT_EXPECT_EQ(test, *rocx_fake_reg(f, ROCX_REG_SCRATCH), 0xa5a5a5a5U);
}

/* No admin command before the queue is up. */
static void rocx_dev_aq_down_test(struct kunit *test)
{
	struct rocx_fake *f = rocx_fake_new(test, 0);
	union rocx_aq_cmd cmd = {};

	*rocx_fake_reg(f, ROCX_REG_ID) = ROCX_ID_MAGIC;
	KUNIT_EXPECT_EQ(test, rocx_admin_exec(&f->core, &cmd, NULL), -ENODEV);
	KUNIT_EXPECT_FALSE(test, rocx_gone(&f->core));
}

struct rocx_id_case {
	const char *name;
	u32 id;
	u32 version;
	int err;
};

static const struct rocx_id_case rocx_id_cases[] = {
	{ "v1_0", 0x58434f52, 0x00010000, 0 },
	{ "v1_7_minor_ignored", 0x58434f52, 0x00010007, 0 },
	{ "v2_0_refused", 0x58434f52, 0x00020000, -ENODEV },
	{ "v0_1_refused", 0x58434f52, 0x00000001, -ENODEV },
	{ "wrong_magic", 0x58434f53, 0x00010000, -ENODEV },
	{ "zero", 0, 0x00010000, -ENODEV },
	{ "all_ones", 0xffffffff, 0xffffffff, -ENODEV },
};

static void rocx_id_case_desc(const struct rocx_id_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(rocx_id, rocx_id_cases, rocx_id_case_desc);

static void rocx_dev_check_id_test(struct kunit *test)
{
	const struct rocx_id_case *c = test->param_value;
	struct rocx_fake *f = rocx_fake_new(test, 0);

	*rocx_fake_reg(f, ROCX_REG_ID) = c->id;
	*rocx_fake_reg(f, ROCX_REG_VERSION) = c->version;
	KUNIT_EXPECT_EQ(test, rocx_dev_check_id(&f->core), c->err);
}

/*
 * rocx_ib reads "the function has no vector for me" as "no completion EQ,
 * hence no CQs" and must be able to tell it from a caller's mistake.
 */
static void rocx_dev_irq_vector_test(struct kunit *test)
{
	struct rocx_fake *f = rocx_fake_new(test, 0);

	f->core.num_vectors = ROCX_VEC_MIN_NUM;
	KUNIT_EXPECT_EQ(test, rocx_irq_vector(&f->core, ROCX_VEC_MIN_NUM),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_irq_vector(&f->core, ROCX_MSIX_VECTORS),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_irq_vector(&f->core, ROCX_VEC_ADMIN),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_irq_vector(&f->core, ROCX_VEC_ETH), -EINVAL);
	f->core.num_vectors = ROCX_MSIX_VECTORS;
	KUNIT_EXPECT_EQ(test, rocx_irq_vector(&f->core, ROCX_MSIX_VECTORS),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_irq_vector(&f->core, ROCX_VEC_ETH), -EINVAL);
}

static struct kunit_case rocx_dev_test_cases[] = {
	KUNIT_CASE(rocx_dev_gone_test),
	KUNIT_CASE(rocx_dev_irq_vector_test),
	KUNIT_CASE(rocx_dev_all_ones_value_test),
	KUNIT_CASE(rocx_dev_aq_down_test),
	KUNIT_CASE_PARAM(rocx_dev_check_id_test, rocx_id_gen_params),
	{}
};

static struct kunit_suite rocx_dev_suite = {
	.name = "rocx_dev",
	.test_cases = rocx_dev_test_cases,
};

/* ======================= rocx_eq ======================= */

/*
 * A device behind the memory-backed BAR: a thread that executes admin
 * commands from the driver's rings the way rocx-device.rst says, writes
 * EQ 0 entries, "raises" vector 0 by calling the driver's handler, and
 * watches the EQ doorbell.  Enough to run rocx_eq_create() and
 * rocx_eq_destroy() against, and to see when the driver does what.
 */
struct rocx_fake_dev {
	struct rocx_fake *f;
	struct task_struct *task;
	u16 ci;			/* admin commands executed */
	u32 eq_pi;		/* EQ 0 entries written */
	bool eq_alive;		/* EQ 0 exists in the device */
	bool event_at_destroy;	/* write an event just before DESTROY_EQ */
	bool stall;		/* consume commands, complete none */
	unsigned int resets;	/* DEV_CTRL.RESET requests seen */
	bool master_at_reset;	/* bus mastering was on at one of them */
	unsigned int db_writes;	/* EQ doorbells while EQ 0 existed */
	unsigned int late_db;	/* EQ doorbells without an EQ 0 */
	atomic_t events;	/* QP_ERROR events the driver passed on */
};

static void rocx_fake_eqe(struct rocx_fake_dev *fd, u16 type, u32 data)
{
	struct rocx_eq *eq = &fd->f->core.eq;
	u32 depth = 1U << eq->log_depth;
	struct rocx_eqe *eqe = &eq->ring[fd->eq_pi & (depth - 1)];

	eqe->type = cpu_to_le16(type);
	eqe->data = cpu_to_le32(data);
	eqe->info = 0;
	/* Phase last: 1 on the first pass, flipped on every wrap. */
	wmb();
	WRITE_ONCE(eqe->flags, ((fd->eq_pi >> eq->log_depth) & 1) ? 0 : 1);
	fd->eq_pi++;
}

/* Doorbell writes since the last look; the thread reads them as they come. */
static void rocx_fake_watch_db(struct rocx_fake_dev *fd)
{
	/* No doorbell value the driver writes to ROCX_DB_EQ is 0. */
	if (!xchg(&fd->f->db[ROCX_DB_EQ / 8], 0))
		return;
	if (READ_ONCE(fd->eq_alive))
		fd->db_writes++;
	else
		fd->late_db++;
}

static void rocx_fake_exec(struct rocx_fake_dev *fd)
{
	struct rocx_core *core = &fd->f->core;
	struct rocx_aq *aq = &core->aq;
	u32 slot = fd->ci & ((1U << aq->log_depth) - 1);
	union rocx_aq_cmd *cmd = &aq->sq[slot];
	struct rocx_aq_cqe *cqe = &aq->cq[slot];

	switch (le16_to_cpu(cmd->hdr.opcode)) {
	case ROCX_AQ_OP_CREATE_EQ:
		WRITE_ONCE(fd->eq_alive, true);
		break;
	case ROCX_AQ_OP_DESTROY_EQ:
		/* An event the device wrote just before it let go. */
		if (READ_ONCE(fd->event_at_destroy))
			rocx_fake_eqe(fd, ROCX_EQE_QP_ERROR, 2);
		rocx_fake_watch_db(fd);
		WRITE_ONCE(fd->eq_alive, false);
		break;
	}
	cqe->cmd_id = cmd->hdr.cmd_id;
	cqe->status = ROCX_AQ_STS_OK;
	cqe->result = 0;
	/* The phase bit last, as the device writes it. */
	wmb();
	WRITE_ONCE(cqe->flags, ((fd->ci >> aq->log_depth) & 1) ? 0 : 1);
	fd->ci++;
	WRITE_ONCE(fd->f->regs[ROCX_REG_AQ_HEAD / 4], fd->ci);
	/* One interrupt for the completion and any event before it. */
	rocx_admin_irq_handler(0, core);
}

/* DEV_CTRL.RESET: everything back to power-on, the admin queue too. */
static void rocx_fake_watch_reset(struct rocx_fake_dev *fd)
{
	u32 *regs = fd->f->regs;

	if (!(READ_ONCE(regs[ROCX_REG_DEV_CTRL / 4]) & ROCX_DEV_CTRL_RESET))
		return;
	if (READ_ONCE(fd->f->command) & PCI_COMMAND_MASTER)
		fd->master_at_reset = true;
	fd->ci = 0;
	WRITE_ONCE(fd->eq_alive, false);
	WRITE_ONCE(regs[ROCX_REG_AQ_DB / 4], 0);
	WRITE_ONCE(regs[ROCX_REG_AQ_HEAD / 4], 0);
	WRITE_ONCE(regs[ROCX_REG_AQ_STATUS / 4], 0);
	WRITE_ONCE(regs[ROCX_REG_DEV_STATUS / 4], ROCX_DEV_STATUS_READY);
	WRITE_ONCE(fd->resets, fd->resets + 1);
	/* Last: the driver polls it for the end of the reset. */
	wmb();
	WRITE_ONCE(regs[ROCX_REG_DEV_CTRL / 4], 0);
}

static int rocx_fake_dev_thread(void *data)
{
	struct rocx_fake_dev *fd = data;

	while (!kthread_should_stop()) {
		rocx_fake_watch_db(fd);
		rocx_fake_watch_reset(fd);
		if ((u16)READ_ONCE(fd->f->regs[ROCX_REG_AQ_DB / 4]) != fd->ci) {
			/* The command is in memory before the doorbell. */
			rmb();
			if (READ_ONCE(fd->stall)) {
				/* Fetched, and then nothing: a hung device. */
				fd->ci++;
				WRITE_ONCE(fd->f->regs[ROCX_REG_AQ_HEAD / 4],
					   fd->ci);
			} else {
				rocx_fake_exec(fd);
			}
			continue;
		}
		usleep_range(20, 50);
	}
	return 0;
}

static void rocx_fake_dev_stop(void *data)
{
	struct rocx_fake_dev *fd = data;

	kthread_stop(fd->task);
	rocx_fake_watch_db(fd);
}

static void rocx_fake_event(void *priv, const struct rocx_eqe *eqe)
{
	struct rocx_fake_dev *fd = priv;

	if (le16_to_cpu(eqe->type) == ROCX_EQE_QP_ERROR)
		atomic_inc(&fd->events);
}

static const struct rocx_event_ops rocx_fake_event_ops = {
	.event = rocx_fake_event,
};

static struct rocx_fake_dev *rocx_fake_dev_start(struct kunit *test)
{
	struct rocx_fake_dev *fd = kunit_kzalloc(test, sizeof(*fd), GFP_KERNEL);
	struct rocx_fake *f = rocx_fake_new(test, 0);
	struct rocx_aq *aq = &f->core.aq;

	KUNIT_ASSERT_NOT_NULL(test, fd);
	fd->f = f;
	*rocx_fake_reg(f, ROCX_REG_ID) = ROCX_ID_MAGIC;
	*rocx_fake_reg(f, ROCX_REG_AQ_STATUS) = ROCX_AQ_STATUS_ENABLED;
	/* A polled admin queue, as rocx_aq_init() leaves it. */
	aq->log_depth = ROCX_AQ_LOG_DEPTH;
	aq->sq = kunit_kcalloc(test, 1U << aq->log_depth, sizeof(*aq->sq),
			       GFP_KERNEL);
	aq->cq = kunit_kcalloc(test, 1U << aq->log_depth, sizeof(*aq->cq),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, aq->sq);
	KUNIT_ASSERT_NOT_NULL(test, aq->cq);
	/* A device without RDMA: EQ 0 gets the smallest ring. */
	f->core.ident = kunit_kzalloc(test, sizeof(*f->core.ident), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->core.ident);
	set_bit(ROCX_ST_AQ_UP, &f->core.state);
	rocx_register_events(&f->core, &rocx_fake_event_ops, fd);

	fd->task = kthread_run(rocx_fake_dev_thread, fd, "rocx-kunit-dev");
	KUNIT_ASSERT_FALSE(test, IS_ERR(fd->task));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rocx_fake_dev_stop,
							fd), 0);
	return fd;
}

static bool rocx_fake_wait_events(struct rocx_fake_dev *fd, int n)
{
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		if (atomic_read(&fd->events) >= n)
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

/*
 * Tear EQ 0 down while the device has just written an event: the event
 * is handled, once, and no work rings the doorbell of the destroyed EQ
 * (the device logs that as a guest error).
 */
static void rocx_eq_destroy_event_test(struct kunit *test)
{
	struct rocx_fake_dev *fd = rocx_fake_dev_start(test);
	struct rocx_core *core = &fd->f->core;

	KUNIT_ASSERT_EQ(test, rocx_eq_create(core), 0);
	KUNIT_EXPECT_TRUE(test, fd->eq_alive);

	/* A live EQ: the event goes through the work item, which re-arms. */
	rocx_fake_eqe(fd, ROCX_EQE_QP_ERROR, 1);
	rocx_admin_irq_handler(0, core);
	KUNIT_EXPECT_TRUE(test, rocx_fake_wait_events(fd, 1));

	WRITE_ONCE(fd->event_at_destroy, true);
	rocx_eq_destroy(core);
	KUNIT_EXPECT_FALSE(test, fd->eq_alive);
	KUNIT_EXPECT_NULL(test, core->eq.ring);
	kunit_release_action(test, rocx_fake_dev_stop, fd);

	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&fd->events), 2,
			    "events handled out of 2 written");
	KUNIT_EXPECT_EQ_MSG(test, fd->late_db, 0U,
			    "EQ doorbells after DESTROY_EQ");
	KUNIT_EXPECT_GT(test, fd->db_writes, 0U);
	rocx_register_events(core, NULL, NULL);
}

struct rocx_eq0_case {
	const char *name;
	u32 max_qp, max_cq, max_srq;
	u8 log_depth;
};

/* Room for max_qp + max_cq + max_srq + 16 events (rocx-device.rst). */
static const struct rocx_eq0_case rocx_eq0_cases[] = {
	{ "no_rdma", 0, 0, 0, 4 },		/* 16: the contract's minimum */
	{ "exact_power_of_two", 24, 24, 0, 6 },	/* 64 */
	{ "one_more", 24, 24, 1, 7 },		/* 65 -> 128 */
	{ "model", 1024, 1024, 256, 12 },	/* 2320 -> 4096 */
	{ "clamped", 0xffffffff, 0xffffffff, 0xffffffff, 16 },
};

static void rocx_eq0_case_desc(const struct rocx_eq0_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(rocx_eq0, rocx_eq0_cases, rocx_eq0_case_desc);

static void rocx_eq0_log_depth_test(struct kunit *test)
{
	const struct rocx_eq0_case *c = test->param_value;
	struct rocx_identify id = {};

	id.max_qp = cpu_to_le32(c->max_qp);
	id.max_cq = cpu_to_le32(c->max_cq);
	id.max_srq = cpu_to_le32(c->max_srq);
	KUNIT_EXPECT_EQ(test, rocx_eq0_log_depth(&id), c->log_depth);
}

static struct kunit_case rocx_eq_test_cases[] = {
	KUNIT_CASE(rocx_eq_destroy_event_test),
	KUNIT_CASE_PARAM(rocx_eq0_log_depth_test, rocx_eq0_gen_params),
	{}
};

static struct kunit_suite rocx_eq_suite = {
	.name = "rocx_eq",
	.test_cases = rocx_eq_test_cases,
};

/* ======================= rocx_reset ======================= */

/*
 * A command the device fetches and never completes has an unknown
 * outcome.  When rocx_admin_exec() gives up on it, the device must
 * already have been stopped (bus mastering off, then DEV_CTRL.RESET), so
 * that the caller may free what the command named; afterwards commands
 * fail at once and no doorbell reaches the device that forgot its queues.
 */
static void rocx_reset_timeout_test(struct kunit *test)
{
	struct rocx_fake_dev *fd = rocx_fake_dev_start(test);
	struct rocx_core *core = &fd->f->core;
	union rocx_aq_cmd cmd = {};
	unsigned int resets;
	unsigned long t0;
	bool master;
	int err;

	WRITE_ONCE(fd->stall, true);
	cmd.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_GET_STATS);
	t0 = jiffies;
	err = rocx_admin_exec(core, &cmd, NULL);
	/* Looked at before anything else runs: as the command returns. */
	resets = READ_ONCE(fd->resets);
	master = READ_ONCE(fd->f->command) & PCI_COMMAND_MASTER;
	KUNIT_EXPECT_EQ(test, err, -ENODEV);
	KUNIT_EXPECT_GE(test, jiffies - t0,
			msecs_to_jiffies(ROCX_AQ_TIMEOUT_MS));
	KUNIT_EXPECT_EQ_MSG(test, resets, 1U,
			    "resets when the timed-out command returned");
	KUNIT_EXPECT_FALSE_MSG(test, master, "bus mastering on after it");
	KUNIT_EXPECT_FALSE_MSG(test, fd->master_at_reset,
			       "bus mastering still on at the reset");
	KUNIT_EXPECT_TRUE(test, test_bit(ROCX_ST_RESET, &core->state));
	KUNIT_EXPECT_FALSE(test, test_bit(ROCX_ST_AQ_UP, &core->state));

	/* The next command fails at once, however healthy the device. */
	WRITE_ONCE(fd->stall, false);
	t0 = jiffies;
	cmd.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_NOP);
	KUNIT_EXPECT_EQ(test, rocx_admin_exec(core, &cmd, NULL), -ENODEV);
	KUNIT_EXPECT_LT(test, jiffies - t0, (unsigned long)HZ / 10);

	/* A kernel doorbell would name a queue the device forgot. */
	rocx_kernel_db(core, ROCX_DB_EQ, rocx_db_encode(0, 1, ROCX_DB_ARM));
	msleep(20);
	kunit_release_action(test, rocx_fake_dev_stop, fd);
	KUNIT_EXPECT_EQ_MSG(test, fd->db_writes + fd->late_db, 0U,
			    "doorbells that reached the reset device");
	KUNIT_EXPECT_EQ(test, fd->resets, 1U);
	rocx_register_events(core, NULL, NULL);
}

static void rocx_reset_test_work(struct work_struct *work)
{
}

/*
 * An AER error with the link frozen: the quiesce must not touch the
 * device's registers, yet it frees memory the device was given (EQ 0's
 * ring here; rocx_ib's queues and the Ethernet rings on a live device),
 * so bus mastering must be off by then, through config space.
 */
static void rocx_reset_frozen_test(struct kunit *test)
{
	struct rocx_fake *f = rocx_fake_new(test, 0);
	struct rocx_core *core = &f->core;
	struct rocx_eq *eq = &core->eq;
	pci_ers_result_t res;
	bool master;

	pci_set_drvdata(&f->pdev, core);
	mutex_init(&core->reset_lock);
	INIT_WORK(&core->reset_work, rocx_reset_test_work);
	eq->log_depth = ROCX_EQ_MIN_LOG_DEPTH;
	eq->ring = dma_alloc_coherent(&f->pdev.dev,
				      (1U << eq->log_depth) * sizeof(*eq->ring),
				      &eq->dma, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, eq->ring);
	/* A register write would show here. */
	*rocx_fake_reg(f, ROCX_REG_DEV_CTRL) = 0;

	res = rocx_err_handlers.error_detected(&f->pdev, pci_channel_io_frozen);
	master = READ_ONCE(f->command) & PCI_COMMAND_MASTER;
	KUNIT_EXPECT_EQ(test, res, PCI_ERS_RESULT_NEED_RESET);
	KUNIT_EXPECT_NULL_MSG(test, eq->ring, "EQ 0's ring was not freed");
	KUNIT_EXPECT_FALSE_MSG(test, master,
			       "bus mastering on after the frozen quiesce freed the rings");
	KUNIT_EXPECT_EQ(test, *rocx_fake_reg(f, ROCX_REG_DEV_CTRL), 0U);
	KUNIT_EXPECT_TRUE(test, test_bit(ROCX_ST_RESET, &core->state));
}

struct rocx_reset_identify_ctx {
	struct rocx_core *core;
	struct completion done;
	int err;
};

static int rocx_reset_identify_thread(void *data)
{
	struct rocx_reset_identify_ctx *ctx = data;

	ctx->err = rocx_reset_identify(ctx->core);
	complete(&ctx->done);
	return 0;
}

/*
 * The netdev stays registered across a reset, and dcbnl and ethtool read
 * the identify block under rtnl (rocx_caps2()): the restore's IDENTIFY
 * must not replace (or free) it while rtnl is held.
 */
static void rocx_reset_identify_rtnl_test(struct kunit *test)
{
	struct rocx_fake_dev *fd = rocx_fake_dev_start(test);
	struct rocx_core *core = &fd->f->core;
	struct rocx_reset_identify_ctx ctx = { .core = core };
	struct rocx_identify *old, *seen;
	struct task_struct *task;

	/* The reset frees the old block: one of its own. */
	old = kzalloc(sizeof(*old), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, old);
	old->caps2 = cpu_to_le64(ROCX_CAP2_ETS);
	core->ident = old;
	init_completion(&ctx.done);

	rtnl_lock();
	task = kthread_run(rocx_reset_identify_thread, &ctx,
			   "rocx-kunit-ident");
	if (IS_ERR(task)) {
		rtnl_unlock();
		KUNIT_FAIL(test, "no thread: %ld", PTR_ERR(task));
		return;
	}
	/* Time enough for the fake device to answer IDENTIFY many times. */
	msleep(100);
	seen = READ_ONCE(core->ident);
	rtnl_unlock();
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&ctx.done, 5 * HZ));
	KUNIT_EXPECT_PTR_EQ_MSG(test, seen, old,
				"the identify block was replaced under rtnl");
	KUNIT_EXPECT_EQ(test, ctx.err, 0);
	KUNIT_EXPECT_PTR_NE(test, core->ident, old);
	/* The fake device's block is all zeroes. */
	KUNIT_EXPECT_EQ(test, rocx_caps2(core), 0ULL);
	kfree(core->ident);
	core->ident = NULL;
	rocx_register_events(core, NULL, NULL);
}

static struct kunit_case rocx_reset_test_cases[] = {
	KUNIT_CASE_SLOW(rocx_reset_timeout_test),
	KUNIT_CASE(rocx_reset_frozen_test),
	KUNIT_CASE_SLOW(rocx_reset_identify_rtnl_test),
	{}
};

static struct kunit_suite rocx_reset_suite = {
	.name = "rocx_reset",
	.test_cases = rocx_reset_test_cases,
};

/* ======================= rocx_selftest ======================= */

static void rocx_selftest_names_test(struct kunit *test)
{
	unsigned int i, j;

	KUNIT_EXPECT_EQ(test, (int)ROCX_TEST_NUM, 3);
	KUNIT_EXPECT_NULL(test, rocx_selftest_name(ROCX_TEST_NUM));
	for (i = 0; i < ROCX_TEST_NUM; i++) {
		const char *name = rocx_selftest_name(i);

		KUNIT_ASSERT_NOT_NULL_MSG(test, name, "test %u", i);
		KUNIT_EXPECT_LT_MSG(test, strlen(name), (size_t)ETH_GSTRING_LEN,
				    "test %u", i);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, name, rocx_selftest_name(j));
	}
	/* The name tells a user which test an online run leaves out. */
	KUNIT_EXPECT_NOT_NULL(test, strstr(rocx_selftest_name(ROCX_TEST_IRQ),
					   "(offline)"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(rocx_selftest_name(ROCX_TEST_REGS),
					   "on/offline"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(rocx_selftest_name(ROCX_TEST_DMA),
					   "on/offline"));
}

static void rocx_selftest_runs_test(struct kunit *test)
{
	/* `ethtool -t dev online` */
	KUNIT_EXPECT_TRUE(test, rocx_selftest_runs(ROCX_TEST_REGS, 0));
	KUNIT_EXPECT_FALSE(test, rocx_selftest_runs(ROCX_TEST_IRQ, 0));
	KUNIT_EXPECT_TRUE(test, rocx_selftest_runs(ROCX_TEST_DMA, 0));
	/* `ethtool -t dev` and `ethtool -t dev offline` */
	KUNIT_EXPECT_TRUE(test, rocx_selftest_runs(ROCX_TEST_REGS,
						   ETH_TEST_FL_OFFLINE));
	KUNIT_EXPECT_TRUE(test, rocx_selftest_runs(ROCX_TEST_IRQ,
						   ETH_TEST_FL_OFFLINE));
	KUNIT_EXPECT_TRUE(test, rocx_selftest_runs(ROCX_TEST_DMA,
						   ETH_TEST_FL_OFFLINE));
	/* External loopback is not ours to do; it changes nothing. */
	KUNIT_EXPECT_FALSE(test, rocx_selftest_runs(ROCX_TEST_IRQ,
						    ETH_TEST_FL_EXTERNAL_LB));
}

static void rocx_selftest_report_test(struct kunit *test)
{
	static const int pass[ROCX_TEST_NUM] = { 0, 0, 0 };
	static const int fail[ROCX_TEST_NUM] = { 0, -EIO, -ENODEV };
	struct ethtool_test et = { .flags = ETH_TEST_FL_OFFLINE };
	u64 data[ROCX_TEST_NUM];

	memset(data, 0xff, sizeof(data));
	rocx_selftest_report(&et, data, pass);
	KUNIT_EXPECT_EQ(test, et.flags, (u32)ETH_TEST_FL_OFFLINE);
	KUNIT_EXPECT_EQ(test, data[0], 0ULL);
	KUNIT_EXPECT_EQ(test, data[1], 0ULL);
	KUNIT_EXPECT_EQ(test, data[2], 0ULL);

	rocx_selftest_report(&et, data, fail);
	KUNIT_EXPECT_EQ(test, et.flags,
			(u32)(ETH_TEST_FL_OFFLINE | ETH_TEST_FL_FAILED));
	KUNIT_EXPECT_EQ(test, data[0], 0ULL);
	KUNIT_EXPECT_EQ(test, data[1], 5ULL);	/* EIO */
	KUNIT_EXPECT_EQ(test, data[2], 19ULL);	/* ENODEV */
}

/* SCRATCH on a memory BAR reads back: the test passes and leaves it 0. */
static void rocx_selftest_regs_test(struct kunit *test)
{
	struct rocx_fake *f = rocx_fake_new(test, 0);

	*rocx_fake_reg(f, ROCX_REG_SCRATCH) = 0x1234;
	KUNIT_EXPECT_EQ(test, rocx_selftest_regs(&f->core), 0);
	KUNIT_EXPECT_EQ(test, *rocx_fake_reg(f, ROCX_REG_SCRATCH), 0U);
}

/* A gone device fails every test at once, without a wait or a write. */
static void rocx_selftest_gone_test(struct kunit *test)
{
	struct rocx_fake *f = rocx_fake_new(test, 0xff);
	unsigned long t0 = jiffies;

	rocx_set_gone(&f->core);
	KUNIT_EXPECT_EQ(test, rocx_selftest_regs(&f->core), -ENODEV);
	KUNIT_EXPECT_EQ(test, rocx_selftest_vector(&f->core, ROCX_VEC_ETH,
						   false), -ENODEV);
	KUNIT_EXPECT_EQ(test, rocx_selftest_dma(&f->core, false), -ENODEV);
	KUNIT_EXPECT_EQ(test, *rocx_fake_reg(f, ROCX_REG_SCRATCH), ~0U);
	KUNIT_EXPECT_EQ(test, *rocx_fake_reg(f, ROCX_REG_TEST_DMA_CTRL), ~0U);
	KUNIT_EXPECT_LT(test, jiffies - t0, (unsigned long)HZ / 2);
}

/* Only the vector a self-test waits for wakes it, from any handler. */
static void rocx_selftest_irq_seen_test(struct kunit *test)
{
	struct rocx_fake *f = rocx_fake_new(test, 0);
	struct rocx_core *core = &f->core;

	core->test_irq_vec = ROCX_TEST_IRQ_NONE;
	rocx_test_irq_seen(core, ROCX_VEC_ADMIN);
	rocx_test_irq_seen(core, ROCX_VEC_ETH);
	KUNIT_EXPECT_FALSE(test, completion_done(&core->test_irq));
	core->test_irq_vec = ROCX_VEC_ETH;
	rocx_test_irq_seen(core, ROCX_VEC_ADMIN);
	KUNIT_EXPECT_FALSE(test, completion_done(&core->test_irq));
	rocx_test_irq_seen(core, ROCX_VEC_ETH);
	KUNIT_EXPECT_TRUE(test, completion_done(&core->test_irq));
}

struct rocx_fake_nd {
	struct rocx_ndev *nd;
	unsigned int polls;
};

/* NET_RX may run in ksoftirqd rather than at local_bh_enable(). */
static unsigned int rocx_fake_polls(struct rocx_fake_nd *fn, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 100 && READ_ONCE(fn->polls) < n; i++)
		usleep_range(10000, 20000);
	return READ_ONCE(fn->polls);
}

/* The test's NAPI poll: counts, finds nothing, completes. */
static int rocx_fake_poll(struct napi_struct *napi, int budget)
{
	struct rocx_ndev *nd = container_of(napi, struct rocx_ndev, napi);
	struct rocx_fake_nd *fn = *(struct rocx_fake_nd **)nd->irq_name;

	WRITE_ONCE(fn->polls, fn->polls + 1);
	napi_complete_done(napi, 0);
	return 0;
}

static void rocx_fake_nd_free(void *data)
{
	struct net_device *netdev = data;
	struct rocx_ndev *nd = netdev_priv(netdev);

	napi_disable(&nd->napi);
	free_netdev(netdev);
}

/*
 * The offline self-test's quiesce: xmit stopped, vector 1 masked, NAPI
 * off (an interrupt's napi_schedule() does nothing); restore runs one
 * poll by itself, for the completions that no interrupt will announce.
 */
static void rocx_netdev_quiesce_test(struct kunit *test)
{
	struct rocx_fake *f = rocx_fake_new(test, 0);
	struct rocx_fake_nd *fn = kunit_kzalloc(test, sizeof(*fn), GFP_KERNEL);
	struct net_device *netdev;
	struct rocx_ndev *nd;

	KUNIT_ASSERT_NOT_NULL(test, fn);
	*rocx_fake_reg(f, ROCX_REG_ID) = ROCX_ID_MAGIC;
	netdev = alloc_etherdev(sizeof(*nd));
	KUNIT_ASSERT_NOT_NULL(test, netdev);
	nd = netdev_priv(netdev);
	nd->core = &f->core;
	nd->netdev = netdev;
	fn->nd = nd;
	/* irq_name is free in a netdev that never opens: the poll's cookie. */
	*(struct rocx_fake_nd **)nd->irq_name = fn;
	netif_napi_add(netdev, &nd->napi, rocx_fake_poll);
	napi_enable(&nd->napi);
	/* As register_netdev() leaves it. */
	netif_device_attach(netdev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rocx_fake_nd_free,
							netdev), 0);

	rtnl_lock();
	/* No rings: nothing to stop, nothing to restore. */
	KUNIT_EXPECT_FALSE(test, rocx_netdev_quiesce(nd));
	KUNIT_EXPECT_TRUE(test, netif_device_present(netdev));
	KUNIT_EXPECT_EQ(test, *rocx_fake_reg(f, ROCX_REG_INTR_CTRL(ROCX_VEC_ETH)),
			0U);

	nd->rings_up = true;
	KUNIT_EXPECT_TRUE(test, rocx_netdev_quiesce(nd));
	KUNIT_EXPECT_FALSE(test, netif_device_present(netdev));
	KUNIT_EXPECT_TRUE(test, netif_tx_queue_stopped(netdev_get_tx_queue(netdev, 0)));
	KUNIT_EXPECT_EQ(test, *rocx_fake_reg(f, ROCX_REG_INTR_CTRL(ROCX_VEC_ETH)),
			(u32)ROCX_INTR_MASK);
	rocx_netdev_restore(nd);
	/* No interrupt came, yet restore polls, exactly once. */
	KUNIT_EXPECT_EQ(test, rocx_fake_polls(fn, 1), 1U);
	msleep(50);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fn->polls), 1U);
	KUNIT_EXPECT_TRUE(test, netif_device_present(netdev));

	/* An interrupt while quiesced (what rocx_eth_irq_handler() does). */
	KUNIT_EXPECT_TRUE(test, rocx_netdev_quiesce(nd));
	local_bh_disable();
	napi_schedule(&nd->napi);
	local_bh_enable();
	msleep(50);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fn->polls), 1U);
	rocx_netdev_restore(nd);
	/* NAPI noted it as missed, so this may be one poll more. */
	KUNIT_EXPECT_GE(test, rocx_fake_polls(fn, 2), 2U);
	KUNIT_EXPECT_TRUE(test, netif_device_present(netdev));
	rtnl_unlock();
}

static struct kunit_case rocx_selftest_test_cases[] = {
	KUNIT_CASE(rocx_selftest_names_test),
	KUNIT_CASE(rocx_selftest_runs_test),
	KUNIT_CASE(rocx_selftest_report_test),
	KUNIT_CASE(rocx_selftest_regs_test),
	KUNIT_CASE(rocx_selftest_gone_test),
	KUNIT_CASE(rocx_selftest_irq_seen_test),
	KUNIT_CASE(rocx_netdev_quiesce_test),
	{}
};

static struct kunit_suite rocx_selftest_suite = {
	.name = "rocx_selftest",
	.test_cases = rocx_selftest_test_cases,
};

/* ---- DCB: dcbnl validation, trust mapping, SET_DCB encoding ---- */

/* The reset default: one class per priority, eight ETS shares. */
static void rocx_ets_default(struct ieee_ets *ets)
{
	static const u8 bw[IEEE_8021QAZ_MAX_TCS] = {
		12, 12, 12, 12, 13, 13, 13, 13 };
	unsigned int i;

	memset(ets, 0, sizeof(*ets));
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		ets->prio_tc[i] = i;
		ets->tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		ets->tc_tx_bw[i] = bw[i];
	}
}

static void rocx_dcb_check_ets_test(struct kunit *test)
{
	const char *why = NULL;
	struct ieee_ets ets;
	unsigned int i;

	rocx_ets_default(&ets);
	KUNIT_EXPECT_EQ(test, rocx_dcb_check_ets(&ets, &why), 0);

	/* 99 and 101 are refused, with a reason. */
	ets.tc_tx_bw[7] = 12;
	KUNIT_EXPECT_EQ(test, rocx_dcb_check_ets(&ets, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "100"));
	ets.tc_tx_bw[7] = 14;
	KUNIT_EXPECT_EQ(test, rocx_dcb_check_ets(&ets, &why), -EINVAL);

	/* A strict class's share does not count; all strict needs none. */
	rocx_ets_default(&ets);
	ets.tc_tsa[0] = IEEE_8021QAZ_TSA_STRICT;
	ets.tc_tx_bw[0] = 50;
	ets.tc_tx_bw[1] = 24;
	KUNIT_EXPECT_EQ(test, rocx_dcb_check_ets(&ets, &why), 0);
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
	KUNIT_EXPECT_EQ(test, rocx_dcb_check_ets(&ets, &why), 0);

	/* The device has strict and ETS only. */
	rocx_ets_default(&ets);
	ets.tc_tsa[3] = IEEE_8021QAZ_TSA_CB_SHAPER;
	KUNIT_EXPECT_EQ(test, rocx_dcb_check_ets(&ets, &why), -EOPNOTSUPP);
	ets.tc_tsa[3] = IEEE_8021QAZ_TSA_VENDOR;
	KUNIT_EXPECT_EQ(test, rocx_dcb_check_ets(&ets, &why), -EOPNOTSUPP);

	/* Eight classes. */
	rocx_ets_default(&ets);
	ets.prio_tc[5] = 8;
	KUNIT_EXPECT_EQ(test, rocx_dcb_check_ets(&ets, &why), -EINVAL);
}

static void rocx_dcb_trust_test(struct kunit *test)
{
	const u8 pcp[] = { DCB_APP_SEL_PCP };
	const u8 dscp[] = { IEEE_8021QAZ_APP_SEL_DSCP };
	const u8 dscp_pcp[] = { IEEE_8021QAZ_APP_SEL_DSCP, DCB_APP_SEL_PCP };
	const u8 pcp_dscp[] = { DCB_APP_SEL_PCP, IEEE_8021QAZ_APP_SEL_DSCP };
	const u8 ethertype[] = { IEEE_8021QAZ_APP_SEL_ETHERTYPE };
	const u8 dscp_eth[] = { IEEE_8021QAZ_APP_SEL_DSCP,
				IEEE_8021QAZ_APP_SEL_ETHERTYPE };
	u8 sel[IEEE_8021QAZ_APP_SEL_MAX + 1] = {};

	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_of(pcp, 1), ROCX_TRUST_PCP);
	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_of(dscp, 1), ROCX_TRUST_DSCP);
	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_of(dscp_pcp, 2), ROCX_TRUST_DSCP);
	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_of(pcp_dscp, 2), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_of(ethertype, 1), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_of(dscp_eth, 2), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_of(dscp, 0), -EOPNOTSUPP);

	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_sel(ROCX_TRUST_PCP, sel), 1);
	KUNIT_EXPECT_EQ(test, sel[0], DCB_APP_SEL_PCP);
	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_sel(ROCX_TRUST_DSCP, sel), 1);
	KUNIT_EXPECT_EQ(test, sel[0], IEEE_8021QAZ_APP_SEL_DSCP);
	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_sel(2, sel), -EINVAL);
	/* What a mode reports maps back to it. */
	KUNIT_EXPECT_EQ(test, rocx_dcb_trust_of(sel, 1), ROCX_TRUST_DSCP);
}

/*
 * Every byte of @cfg outside [@from, @to), [@from2, @to2) and the valid
 * word is 0.
 */
static void rocx_expect_cfg_zero_but2(struct kunit *test,
				      const struct rocx_dcb_cfg *cfg,
				      size_t from, size_t to,
				      size_t from2, size_t to2)
{
	const u8 *b = (const u8 *)cfg;
	size_t i;

	for (i = sizeof(cfg->valid); i < sizeof(*cfg); i++)
		if ((i < from || i >= to) && (i < from2 || i >= to2))
			KUNIT_EXPECT_EQ_MSG(test, b[i], 0, "byte %zu", i);
}

static void rocx_expect_cfg_zero_but(struct kunit *test,
				     const struct rocx_dcb_cfg *cfg,
				     size_t from, size_t to)
{
	rocx_expect_cfg_zero_but2(test, cfg, from, to, from, to);
}

static void rocx_dcb_build_pfc_pause_test(struct kunit *test)
{
	struct rocx_dcb_cfg cfg;

	memset(&cfg, 0xa5, sizeof(cfg));
	rocx_dcb_build_pfc(&cfg, BIT(3), 0x5634);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.valid), ROCX_DCB_PFC);
	KUNIT_EXPECT_EQ(test, cfg.pfc_en, BIT(3));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cfg.pfc_quanta), 0x5634);
	KUNIT_EXPECT_EQ(test, cfg.pause, 0);
	rocx_expect_cfg_zero_but2(test, &cfg, 5, 6, 224, 226);
	/* Bytes 224-225, spelt out: the layout table's offset. */
	KUNIT_EXPECT_EQ(test, ((u8 *)&cfg)[224], 0x34);
	KUNIT_EXPECT_EQ(test, ((u8 *)&cfg)[225], 0x56);

	/* Below ROCX_DCB_PFC_QUANTA_MIN is INVALID to the device: the default. */
	rocx_dcb_build_pfc(&cfg, 0, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cfg.pfc_quanta), ROCX_DCB_PFC_QUANTA);
	rocx_dcb_build_pfc(&cfg, 0, 1);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cfg.pfc_quanta), ROCX_DCB_PFC_QUANTA);
	rocx_dcb_build_pfc(&cfg, 0, ROCX_DCB_PFC_QUANTA_MIN - 1);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cfg.pfc_quanta), ROCX_DCB_PFC_QUANTA);
	rocx_dcb_build_pfc(&cfg, 0, ROCX_DCB_PFC_QUANTA_MIN);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cfg.pfc_quanta),
			ROCX_DCB_PFC_QUANTA_MIN);

	memset(&cfg, 0xa5, sizeof(cfg));
	rocx_dcb_build_pause(&cfg, ROCX_PAUSE_RX | ROCX_PAUSE_TX);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.valid), ROCX_DCB_PAUSE);
	KUNIT_EXPECT_EQ(test, ((u8 *)&cfg)[6], 3);
	rocx_expect_cfg_zero_but(test, &cfg, 6, 7);
}

static void rocx_dcb_build_trust_dscp_test(struct kunit *test)
{
	struct rocx_dcb_cfg cfg;
	u8 map[ROCX_NUM_DSCP];
	unsigned int i;

	memset(&cfg, 0xa5, sizeof(cfg));
	rocx_dcb_build_trust(&cfg, ROCX_TRUST_DSCP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.valid), ROCX_DCB_TRUST);
	KUNIT_EXPECT_EQ(test, ((u8 *)&cfg)[4], 1);
	rocx_expect_cfg_zero_but(test, &cfg, 4, 5);

	for (i = 0; i < ROCX_NUM_DSCP; i++)
		map[i] = i >> 3;
	map[26] = 3;
	memset(&cfg, 0xa5, sizeof(cfg));
	rocx_dcb_build_dscp2prio(&cfg, map);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.valid), ROCX_DCB_DSCP2PRIO);
	KUNIT_EXPECT_EQ(test, ((u8 *)&cfg)[64 + 26], 3);
	KUNIT_EXPECT_EQ(test, ((u8 *)&cfg)[64 + 63], 7);
	KUNIT_EXPECT_EQ(test, ((u8 *)&cfg)[64 + 8], 1);
	rocx_expect_cfg_zero_but(test, &cfg, 64, 128);
}

static void rocx_dcb_build_ets_test(struct kunit *test)
{
	struct rocx_dcb_cfg cfg;
	struct ieee_ets ets;
	const u8 *b = (const u8 *)&cfg;

	rocx_ets_default(&ets);
	ets.prio_tc[3] = 6;
	ets.tc_tsa[7] = IEEE_8021QAZ_TSA_STRICT;
	/* dcb(8) sends back the share the class had before. */
	ets.tc_tx_bw[7] = 13;
	ets.tc_tx_bw[0] = 25;
	memset(&cfg, 0xa5, sizeof(cfg));
	rocx_dcb_build_ets(&cfg, &ets);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.valid), ROCX_DCB_ETS);
	KUNIT_EXPECT_EQ(test, b[8 + 3], 6);
	KUNIT_EXPECT_EQ(test, b[8 + 7], 7);
	KUNIT_EXPECT_EQ(test, b[16 + 0], ROCX_TSA_ETS);
	KUNIT_EXPECT_EQ(test, b[16 + 7], ROCX_TSA_STRICT);
	KUNIT_EXPECT_EQ(test, b[24 + 0], 25);
	KUNIT_EXPECT_EQ(test, b[24 + 4], 13);
	/* The device refuses a strict class with a share. */
	KUNIT_EXPECT_EQ(test, b[24 + 7], 0);
	rocx_expect_cfg_zero_but(test, &cfg, 8, 32);
}

static void rocx_dcb_build_maxrate_test(struct kunit *test)
{
	struct ieee_maxrate rate = {};
	struct rocx_dcb_cfg cfg;

	rate.tc_maxrate[0] = 100000;	/* kb/s: 100 Mb/s */
	rate.tc_maxrate[1] = 1;		/* rounds up, never to "line rate" */
	rate.tc_maxrate[2] = 1500;
	rate.tc_maxrate[7] = U64_MAX;
	memset(&cfg, 0xa5, sizeof(cfg));
	rocx_dcb_build_maxrate(&cfg, &rate);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.valid), ROCX_DCB_MAXRATE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.tc_maxrate[0]), 100U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.tc_maxrate[1]), 1U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.tc_maxrate[2]), 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.tc_maxrate[3]), 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cfg.tc_maxrate[7]), U32_MAX);
	rocx_expect_cfg_zero_but(test, &cfg, 32, 64);
}

static void rocx_aq_dcb_test(struct kunit *test)
{
	union rocx_aq_cmd cmd;

	memset(&cmd, 0xa5, sizeof(cmd));
	rocx_aq_build_dcb(&cmd, ROCX_AQ_OP_QUERY_DCB, 0x123456789000ULL, 256);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cmd.hdr.opcode), 0x32);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(cmd.cfg_buf.addr), 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cmd.cfg_buf.len), 256U);
	KUNIT_EXPECT_EQ(test, cmd.raw[20], 0);
	KUNIT_EXPECT_EQ(test, cmd.raw[ROCX_AQ_CMD_SIZE - 1], 0);
}

static void rocx_dcb_dscp_table_test(struct kunit *test)
{
	u8 masks[ROCX_NUM_DSCP] = {}, map[ROCX_NUM_DSCP];

	/* No entry: the default table, DSCP >> 3. */
	KUNIT_EXPECT_FALSE(test, rocx_dcb_dscp_table(masks, map));
	KUNIT_EXPECT_EQ(test, map[0], 0);
	KUNIT_EXPECT_EQ(test, map[26], 3);
	KUNIT_EXPECT_EQ(test, map[63], 7);
	/* An entry equal to the default changes nothing. */
	masks[26] = BIT(3);
	KUNIT_EXPECT_FALSE(test, rocx_dcb_dscp_table(masks, map));
	masks[10] = BIT(3);
	masks[46] = BIT(6) | BIT(2);
	KUNIT_EXPECT_TRUE(test, rocx_dcb_dscp_table(masks, map));
	KUNIT_EXPECT_EQ(test, map[10], 3);
	KUNIT_EXPECT_EQ(test, map[46], 2);
	KUNIT_EXPECT_EQ(test, map[11], 1);
}

/* Link pause and PFC exclude each other, whichever is set second. */
static void rocx_dcb_pause_pfc_check_test(struct kunit *test)
{
	static const struct {
		u8 pause, pfc_en;
		int err;
	} cases[] = {
		{ 0, 0, 0 },
		{ ROCX_PAUSE_RX | ROCX_PAUSE_TX, 0, 0 },
		{ 0, BIT(3), 0 },
		{ 0, 0xff, 0 },
		{ ROCX_PAUSE_RX, BIT(3), -EBUSY },
		{ ROCX_PAUSE_TX, BIT(0), -EBUSY },
		{ ROCX_PAUSE_RX | ROCX_PAUSE_TX, 0xff, -EBUSY },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *why = NULL;

		KUNIT_EXPECT_EQ_MSG(test,
				    rocx_dcb_pause_pfc_check(cases[i].pause,
							     cases[i].pfc_en,
							     &why),
				    cases[i].err, "case %u", i);
		if (cases[i].err)
			KUNIT_EXPECT_NOT_NULL_MSG(test, why, "case %u", i);
		else
			KUNIT_EXPECT_NULL_MSG(test, why, "case %u", i);
	}
}

/* Under PCP trust the PFC priorities are tagged; under DSCP none. */
static void rocx_dcb_tag_prios_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rocx_dcb_tag_prios(ROCX_TRUST_PCP, 0), 0);
	KUNIT_EXPECT_EQ(test, rocx_dcb_tag_prios(ROCX_TRUST_PCP, 0x08), 0x08);
	KUNIT_EXPECT_EQ(test, rocx_dcb_tag_prios(ROCX_TRUST_PCP, 0xff), 0xff);
	KUNIT_EXPECT_EQ(test, rocx_dcb_tag_prios(ROCX_TRUST_DSCP, 0x08), 0);
	KUNIT_EXPECT_EQ(test, rocx_dcb_tag_prios(ROCX_TRUST_DSCP, 0xff), 0);
}

/* Socket priorities: the low 4 bits, and 8..15 are priority 0. */
static void rocx_tx_prio_test(struct kunit *test)
{
	static const u32 skb_prio[] = { 0, 1, 3, 6, 7, 8, 9, 15, 16, 19,
					0x10007, 0xffffffff };
	static const u8 prio[] = { 0, 1, 3, 6, 7, 0, 0, 0, 0, 3, 7, 0 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(skb_prio); i++)
		KUNIT_EXPECT_EQ_MSG(test, rocx_tx_prio(skb_prio[i]), prio[i],
				    "skb priority %#x", skb_prio[i]);
}

/* An untagged frame of a tagged priority gets a tag; nothing else does. */
static void rocx_tx_wants_tag_test(struct kunit *test)
{
	u8 frame[ETH_HLEN] = {};

	frame[12] = 0x08;	/* IPv4 */
	frame[13] = 0x00;
	KUNIT_EXPECT_TRUE(test, rocx_tx_wants_tag(BIT(3), 3, frame, ETH_HLEN));
	KUNIT_EXPECT_TRUE(test, rocx_tx_wants_tag(0xff, 0, frame, 60));
	KUNIT_EXPECT_FALSE(test, rocx_tx_wants_tag(BIT(3), 2, frame, 60));
	KUNIT_EXPECT_FALSE(test, rocx_tx_wants_tag(0, 3, frame, 60));
	/* Too short to have an EtherType: left alone. */
	KUNIT_EXPECT_FALSE(test, rocx_tx_wants_tag(BIT(3), 3, frame, 13));
	/* A VLAN device's frame (802.1Q) and an 802.1ad one keep theirs. */
	frame[12] = 0x81;
	KUNIT_EXPECT_FALSE(test, rocx_tx_wants_tag(BIT(3), 3, frame, 60));
	frame[12] = 0x88;
	frame[13] = 0xa8;
	KUNIT_EXPECT_FALSE(test, rocx_tx_wants_tag(BIT(3), 3, frame, 60));
	/* ARP is tagged like IP: it is Ethernet traffic of the priority. */
	frame[12] = 0x08;
	frame[13] = 0x06;
	KUNIT_EXPECT_TRUE(test, rocx_tx_wants_tag(BIT(3), 3, frame, 60));
}

static void rocx_free_netdev(void *data)
{
	free_netdev(data);
}

/* TX queue @q of a frame of socket priority @prio on @netdev. */
static u16 rocx_queue_of(struct kunit *test, struct net_device *netdev,
			 u32 prio)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	u16 q;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb->priority = prio;
	q = rocx_select_queue(netdev, skb, NULL);
	kfree_skb(skb);
	return q;
}

/*
 * The TX queue follows the device's priority-to-class table through the
 * netdev's prio_tc_map: queue = class of the frame's priority, 8..15 as
 * priority 0, and a new table takes effect at once.
 */
static void rocx_select_queue_test(struct kunit *test)
{
	static const u8 map1[ROCX_NUM_PRIO] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const u8 map2[ROCX_NUM_PRIO] = { 4, 0, 1, 1, 2, 5, 7, 7 };
	struct net_device *netdev;
	struct rocx_ndev *nd;
	unsigned int p;

	netdev = alloc_etherdev_mqs(sizeof(*nd), ROCX_MAX_TXQ, 1);
	KUNIT_ASSERT_NOT_NULL(test, netdev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rocx_free_netdev,
							netdev), 0);
	nd = netdev_priv(netdev);
	nd->netdev = netdev;
	nd->num_txq = ROCX_MAX_TXQ;

	/* No classes yet: everything on queue 0. */
	KUNIT_EXPECT_EQ(test, rocx_queue_of(test, netdev, 5), 0);

	rtnl_lock();
	rocx_netdev_set_prio_tc(netdev, map1);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, netdev_get_num_tc(netdev), ROCX_NUM_TC);
	for (p = 0; p < ROCX_NUM_PRIO; p++)
		KUNIT_EXPECT_EQ_MSG(test, rocx_queue_of(test, netdev, p), p,
				    "priority %u", p);
	KUNIT_EXPECT_EQ(test, rocx_queue_of(test, netdev, 9), 0);
	KUNIT_EXPECT_EQ(test, rocx_queue_of(test, netdev, 16 + 6), 6);

	rtnl_lock();
	rocx_netdev_set_prio_tc(netdev, map2);
	rtnl_unlock();
	for (p = 0; p < ROCX_NUM_PRIO; p++)
		KUNIT_EXPECT_EQ_MSG(test, rocx_queue_of(test, netdev, p),
				    map2[p], "priority %u", p);
	/* 8..15 are priority 0, of class 4 now. */
	KUNIT_EXPECT_EQ(test, rocx_queue_of(test, netdev, 12), 4);

	/* An mqprio qdisc removed the classes: queue 0 until the next set. */
	netdev_reset_tc(netdev);
	KUNIT_EXPECT_EQ(test, rocx_queue_of(test, netdev, 6), 0);
}

/* A device with one TX ring: no classes, every frame on queue 0. */
static void rocx_select_queue_one_ring_test(struct kunit *test)
{
	static const u8 map[ROCX_NUM_PRIO] = { 7, 6, 5, 4, 3, 2, 1, 0 };
	struct net_device *netdev;
	struct rocx_ndev *nd;
	unsigned int p;

	netdev = alloc_etherdev(sizeof(*nd));
	KUNIT_ASSERT_NOT_NULL(test, netdev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rocx_free_netdev,
							netdev), 0);
	nd = netdev_priv(netdev);
	nd->netdev = netdev;
	nd->num_txq = 1;
	rtnl_lock();
	rocx_netdev_set_prio_tc(netdev, map);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, netdev_get_num_tc(netdev), 0);
	for (p = 0; p < ROCX_NUM_PRIO; p++)
		KUNIT_EXPECT_EQ(test, rocx_queue_of(test, netdev, p), 0);
}

static struct kunit_case rocx_dcb_test_cases[] = {
	KUNIT_CASE(rocx_dcb_check_ets_test),
	KUNIT_CASE(rocx_dcb_trust_test),
	KUNIT_CASE(rocx_dcb_build_pfc_pause_test),
	KUNIT_CASE(rocx_dcb_build_trust_dscp_test),
	KUNIT_CASE(rocx_dcb_build_ets_test),
	KUNIT_CASE(rocx_dcb_build_maxrate_test),
	KUNIT_CASE(rocx_dcb_dscp_table_test),
	KUNIT_CASE(rocx_aq_dcb_test),
	KUNIT_CASE(rocx_dcb_pause_pfc_check_test),
	KUNIT_CASE(rocx_dcb_tag_prios_test),
	KUNIT_CASE(rocx_tx_prio_test),
	KUNIT_CASE(rocx_tx_wants_tag_test),
	KUNIT_CASE(rocx_select_queue_test),
	KUNIT_CASE(rocx_select_queue_one_ring_test),
	{}
};

static struct kunit_suite rocx_dcb_suite = {
	.name = "rocx_dcb",
	.test_cases = rocx_dcb_test_cases,
};

kunit_test_suites(&rocx_ring_suite, &rocx_db_suite, &rocx_aq_suite,
		  &rocx_ethtool_suite, &rocx_dev_suite, &rocx_eq_suite,
		  &rocx_reset_suite, &rocx_selftest_suite, &rocx_dcb_suite);

MODULE_DESCRIPTION("KUnit tests for rocx_core");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(ROCX);
