// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rocx_ib's translations between the device contract and
 * the RDMA core.  Everything here is pure: no device, no ib_device.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/* ---------------- rocx_ib_gid ---------------- */

struct rocx_ib_gid_type_case {
	const char *desc;
	enum ib_gid_type in;
	int out;
};

static const struct rocx_ib_gid_type_case rocx_ib_gid_type_cases[] = {
	{ "roce_v1", IB_GID_TYPE_ROCE, ROCX_GID_TYPE_ROCE_V1 },
	{ "roce_v2", IB_GID_TYPE_ROCE_UDP_ENCAP, ROCX_GID_TYPE_ROCE_V2 },
	{ "size", IB_GID_TYPE_SIZE, -EINVAL },
	{ "out_of_range", (enum ib_gid_type)7, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_gid_type, rocx_ib_gid_type_cases, desc);

static void rocx_ib_gid_type_test(struct kunit *test)
{
	const struct rocx_ib_gid_type_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ib_gid_type(c->in), c->out);
}

/* SET_GID as the device reads it: offsets and byte order of the contract. */
static void rocx_ib_set_gid_cmd_test(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };
	union ib_gid gid = {};
	union rocx_aq_cmd cmd = {};
	u8 want[ROCX_AQ_CMD_SIZE] = {};
	unsigned int i;

	/* ::ffff:198.18.0.1, as ib_core stores an IPv4 address. */
	gid.raw[10] = 0xff;
	gid.raw[11] = 0xff;
	gid.raw[12] = 198;
	gid.raw[13] = 18;
	gid.raw[14] = 0;
	gid.raw[15] = 1;

	rocx_ib_set_gid_cmd(&cmd, 0x0102, ROCX_GID_TYPE_ROCE_V2, 0x0123, mac,
			    &gid);

	want[0] = ROCX_AQ_OP_SET_GID;	/* opcode, le16 */
	want[8] = 0x02;			/* index, le16 */
	want[9] = 0x01;
	want[10] = ROCX_GID_TYPE_ROCE_V2;
	want[12] = 0x23;		/* vlan, le16 */
	want[13] = 0x01;
	for (i = 0; i < ETH_ALEN; i++)
		want[14 + i] = mac[i];
	for (i = 0; i < 16; i++)
		want[20 + i] = gid.raw[i];
	KUNIT_EXPECT_MEMEQ(test, cmd.raw, want, sizeof(want));
}

static void rocx_ib_set_gid_cmd_no_vlan_test(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 1 };
	union ib_gid gid = { .raw = { 0xfe, 0x80 } };
	union rocx_aq_cmd cmd = {};

	rocx_ib_set_gid_cmd(&cmd, 0, ROCX_GID_TYPE_ROCE_V1, ROCX_VLAN_NONE,
			    mac, &gid);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cmd.set_gid.vlan), ROCX_VLAN_NONE);
	KUNIT_EXPECT_EQ(test, cmd.set_gid.type, ROCX_GID_TYPE_ROCE_V1);
	KUNIT_EXPECT_EQ(test, cmd.set_gid.gid[0], 0xfe);
	KUNIT_EXPECT_EQ(test, cmd.set_gid.gid[1], 0x80);
	KUNIT_EXPECT_TRUE(test, memchr_inv(cmd.set_gid.rsvd, 0,
					   sizeof(cmd.set_gid.rsvd)) == NULL);
}

static struct kunit_case rocx_ib_gid_cases[] = {
	KUNIT_CASE_PARAM(rocx_ib_gid_type_test, rocx_ib_gid_type_gen_params),
	KUNIT_CASE(rocx_ib_set_gid_cmd_test),
	KUNIT_CASE(rocx_ib_set_gid_cmd_no_vlan_test),
	{}
};

static struct kunit_suite rocx_ib_gid_suite = {
	.name = "rocx_ib_gid",
	.test_cases = rocx_ib_gid_cases,
};

/* ---------------- rocx_ib_port ---------------- */

struct rocx_ib_mtu_case {
	const char *desc;
	unsigned int mtu;
	enum ib_mtu ib_mtu;
};

/* RoCE headers take 96 bytes at worst; the boundaries sit on each side. */
static const struct rocx_ib_mtu_case rocx_ib_mtu_cases[] = {
	{ "min_eth", 68, 0 },
	{ "below_256", 351, 0 },
	{ "exact_256", 352, IB_MTU_256 },
	{ "exact_512", 608, IB_MTU_512 },
	{ "below_1024", 1119, IB_MTU_512 },
	{ "exact_1024", 1120, IB_MTU_1024 },
	{ "eth_default", 1500, IB_MTU_1024 },
	{ "exact_2048", 2144, IB_MTU_2048 },
	{ "below_4096", 4191, IB_MTU_2048 },
	{ "exact_4096", 4192, IB_MTU_4096 },
	{ "jumbo", 9000, IB_MTU_4096 },
	{ "huge", UINT_MAX, IB_MTU_4096 },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_mtu, rocx_ib_mtu_cases, desc);

static void rocx_ib_mtu_test(struct kunit *test)
{
	const struct rocx_ib_mtu_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ib_mtu_from_netdev(c->mtu), c->ib_mtu);
}

struct rocx_ib_speed_case {
	const char *desc;
	u32 gbps;
	u16 speed;
	u8 width;
};

static const struct rocx_ib_speed_case rocx_ib_speed_cases[] = {
	{ "down", 0, IB_SPEED_SDR, IB_WIDTH_1X },
	{ "1g", 1, IB_SPEED_SDR, IB_WIDTH_1X },
	{ "3g", 3, IB_SPEED_DDR, IB_WIDTH_1X },
	{ "10g", 10, IB_SPEED_QDR, IB_WIDTH_1X },
	{ "20g", 20, IB_SPEED_DDR, IB_WIDTH_4X },
	{ "25g", 25, IB_SPEED_EDR, IB_WIDTH_1X },
	{ "40g", 40, IB_SPEED_QDR, IB_WIDTH_4X },
	{ "50g", 50, IB_SPEED_HDR, IB_WIDTH_1X },
	{ "56g", 56, IB_SPEED_FDR, IB_WIDTH_4X },
	{ "100g", 100, IB_SPEED_EDR, IB_WIDTH_4X },
	{ "200g", 200, IB_SPEED_HDR, IB_WIDTH_4X },
	{ "400g", 400, IB_SPEED_NDR, IB_WIDTH_4X },
	{ "800g", 800, IB_SPEED_XDR, IB_WIDTH_4X },
	{ "1600g", 1600, IB_SPEED_XDR, IB_WIDTH_8X },
	{ "max_field", 0xffff, IB_SPEED_XDR, IB_WIDTH_8X },
	{ "u32_max", U32_MAX, IB_SPEED_XDR, IB_WIDTH_8X },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_speed, rocx_ib_speed_cases, desc);

static void rocx_ib_speed_test(struct kunit *test)
{
	const struct rocx_ib_speed_case *c = test->param_value;
	u16 speed = 0;
	u8 width = 0;

	rocx_ib_speed_width(c->gbps, &speed, &width);
	KUNIT_EXPECT_EQ(test, speed, c->speed);
	KUNIT_EXPECT_EQ(test, width, c->width);
}

struct rocx_ib_state_case {
	const char *desc;
	u32 link_status;
	u8 phys_state;
	enum ib_event_type event;
};

static const struct rocx_ib_state_case rocx_ib_state_cases[] = {
	{ "reset", 0, IB_PORT_PHYS_STATE_DISABLED, IB_EVENT_PORT_ERR },
	{ "carrier_admin_down", ROCX_LINK_CARRIER,
	  IB_PORT_PHYS_STATE_DISABLED, IB_EVENT_PORT_ERR },
	{ "admin_up_no_carrier", ROCX_LINK_ADMIN_UP,
	  IB_PORT_PHYS_STATE_POLLING, IB_EVENT_PORT_ERR },
	{ "up", ROCX_LINK_UP | ROCX_LINK_CARRIER | ROCX_LINK_ADMIN_UP |
		ROCX_FIELD_PREP(ROCX_LINK_SPEED_MASK, 100),
	  IB_PORT_PHYS_STATE_LINK_UP, IB_EVENT_PORT_ACTIVE },
	{ "speed_only", ROCX_FIELD_PREP(ROCX_LINK_SPEED_MASK, 25),
	  IB_PORT_PHYS_STATE_DISABLED, IB_EVENT_PORT_ERR },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_state, rocx_ib_state_cases, desc);

static void rocx_ib_phys_state_test(struct kunit *test)
{
	const struct rocx_ib_state_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ib_phys_state(c->link_status),
			c->phys_state);
}

static void rocx_ib_link_event_test(struct kunit *test)
{
	const struct rocx_ib_state_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ib_link_event(c->link_status), c->event);
}

static struct kunit_case rocx_ib_port_cases[] = {
	KUNIT_CASE_PARAM(rocx_ib_mtu_test, rocx_ib_mtu_gen_params),
	KUNIT_CASE_PARAM(rocx_ib_speed_test, rocx_ib_speed_gen_params),
	KUNIT_CASE_PARAM(rocx_ib_phys_state_test, rocx_ib_state_gen_params),
	KUNIT_CASE_PARAM(rocx_ib_link_event_test, rocx_ib_state_gen_params),
	{}
};

static struct kunit_suite rocx_ib_port_suite = {
	.name = "rocx_ib_port",
	.test_cases = rocx_ib_port_cases,
};

/* ---------------- rocx_ib_attr ---------------- */

static void rocx_ib_identify_attr_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct ib_device_attr attr = {};

	id.fw_version = cpu_to_le32(0x00010203);	/* 1.2.3 */
	id.max_qp = cpu_to_le32(1024);
	id.max_qp_wr = cpu_to_le32(4096);
	id.max_sge = cpu_to_le32(8);
	id.max_cq = cpu_to_le32(2048);
	id.max_cqe = cpu_to_le32(65536);
	id.max_mr = cpu_to_le32(4096);
	id.max_pd = cpu_to_le32(256);
	id.max_srq = cpu_to_le32(64);
	id.max_srq_wr = cpu_to_le32(1024);
	id.max_rd_atom = cpu_to_le32(16);
	id.max_mr_size = cpu_to_le64(1ULL << 40);
	id.page_size_cap = cpu_to_le64(0x40201000ULL);

	rocx_ib_identify_to_attr(&id, &attr);

	KUNIT_EXPECT_EQ(test, attr.fw_ver, (1ULL << 32) | (2 << 16) | 3);
	KUNIT_EXPECT_EQ(test, attr.max_qp, 1024);
	KUNIT_EXPECT_EQ(test, attr.max_qp_wr, 4096);
	KUNIT_EXPECT_EQ(test, attr.max_send_sge, 8);
	KUNIT_EXPECT_EQ(test, attr.max_recv_sge, 8);
	KUNIT_EXPECT_EQ(test, attr.max_cq, 2048);
	KUNIT_EXPECT_EQ(test, attr.max_cqe, 65536);
	KUNIT_EXPECT_EQ(test, attr.max_mr, 4096);
	KUNIT_EXPECT_EQ(test, attr.max_pd, 256);
	/* No SRQs without ROCX_CAP2_SRQ, whatever the device could hold. */
	KUNIT_EXPECT_EQ(test, attr.max_srq, 0);
	KUNIT_EXPECT_EQ(test, attr.max_srq_wr, 0);
	KUNIT_EXPECT_EQ(test, attr.max_srq_sge, 0);
	KUNIT_EXPECT_EQ(test, attr.max_qp_rd_atom, 16);
	KUNIT_EXPECT_EQ(test, attr.max_qp_init_rd_atom, 16);
	KUNIT_EXPECT_EQ(test, attr.max_res_rd_atom, 1024 * 16);
	/*
	 * A page list holds 2^18 pages: in 4 KiB pages, one page short of
	 * 1 GiB fits at any offset into the first page.
	 */
	KUNIT_EXPECT_EQ(test, attr.max_mr_size,
			(u64)(ROCX_PBL_MAX_PAGES - 1) * SZ_4K);
	/* 1 GiB pages are more than a page list can describe. */
	KUNIT_EXPECT_EQ(test, attr.page_size_cap, (u64)(SZ_4K | SZ_2M));
	KUNIT_EXPECT_EQ(test, attr.max_pkeys, 1);
	KUNIT_EXPECT_EQ(test, attr.atomic_cap, IB_ATOMIC_NONE);
	KUNIT_EXPECT_TRUE(test, attr.device_cap_flags &
				IB_DEVICE_PORT_ACTIVE_EVENT);
	/* No ROCX_CAP2_MW: no windows, whatever max_mw says. */
	KUNIT_EXPECT_FALSE(test, attr.device_cap_flags & IB_DEVICE_MEM_WINDOW);
	KUNIT_EXPECT_EQ(test, attr.max_mw, 0);
}

/* ROCX_CAP2_MW: type 1 and type 2B windows, max_mw of them. */
static void rocx_ib_identify_attr_mw_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct ib_device_attr attr = {};

	id.page_size_cap = cpu_to_le64(SZ_4K);
	id.max_mw = cpu_to_le32(1024);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_mw, 0);
	id.caps2 = cpu_to_le64(ROCX_CAP2_MW);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_mw, 1024);
	KUNIT_EXPECT_TRUE(test, attr.device_cap_flags & IB_DEVICE_MEM_WINDOW);
	KUNIT_EXPECT_TRUE(test, attr.device_cap_flags &
				IB_DEVICE_MEM_WINDOW_TYPE_2B);
	KUNIT_EXPECT_FALSE(test, attr.device_cap_flags &
				 IB_DEVICE_MEM_WINDOW_TYPE_2A);
}

/* Device limits are u32, ib_device_attr's ints: nothing may go negative. */
static void rocx_ib_identify_attr_clamp_test(struct kunit *test)
{
	struct rocx_identify id;
	struct ib_device_attr attr = {};

	memset(&id, 0xff, sizeof(id));
	rocx_ib_identify_to_attr(&id, &attr);

	KUNIT_EXPECT_EQ(test, attr.fw_ver, (0xffffULL << 32) | (0xff << 16) |
			0xff);
	KUNIT_EXPECT_EQ(test, attr.max_qp, INT_MAX);
	KUNIT_EXPECT_EQ(test, attr.max_qp_wr, INT_MAX);
	KUNIT_EXPECT_EQ(test, attr.max_send_sge, INT_MAX);
	/* A CQ ring is at most 2^16 entries (CREATE_CQ's log_depth 16). */
	KUNIT_EXPECT_EQ(test, attr.max_cqe, 65536);
	KUNIT_EXPECT_EQ(test, attr.max_pd, INT_MAX);
	KUNIT_EXPECT_EQ(test, attr.max_res_rd_atom, INT_MAX);
	/* caps2 has ROCX_CAP2_SRQ: rings of at most 2^15, 31 SGEs. */
	KUNIT_EXPECT_EQ(test, attr.max_srq, INT_MAX);
	KUNIT_EXPECT_EQ(test, attr.max_srq_wr, 32768);
	KUNIT_EXPECT_EQ(test, attr.max_srq_sge, 31);
	/* Every page size a page list takes: 4 KiB to 2 MiB. */
	KUNIT_EXPECT_EQ(test, attr.page_size_cap, 0x3ff000ULL);
	KUNIT_EXPECT_EQ(test, attr.max_mr_size,
			(u64)(ROCX_PBL_MAX_PAGES - 1) * SZ_4K);
}

/* AHs are provider memory: unlimited with UD, none without it. */
static void rocx_ib_identify_attr_ud_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct ib_device_attr attr = {};

	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_ah, 0);
	id.caps2 = cpu_to_le64(ROCX_CAP2_UD);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_ah, INT_MAX);
}

/* CQ rings are powers of two: max_cqe is the largest one the device takes. */
static void rocx_ib_identify_attr_max_cqe_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct ib_device_attr attr = {};

	id.max_cqe = cpu_to_le32(50000);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_cqe, 32768);
	id.max_cqe = cpu_to_le32(4096);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_cqe, 4096);
	id.max_cqe = cpu_to_le32(1);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_cqe, 1);
}

/*
 * Completion timestamps need both the 64-byte CQE and the clock: then all
 * 64 bits at clock_khz, otherwise none.
 */
static void rocx_ib_identify_attr_clock_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct ib_device_attr attr = {};

	id.clock_khz = cpu_to_le32(1000000);
	id.cqe_formats = cpu_to_le32(0x3);
	id.caps2 = cpu_to_le64(ROCX_CAP2_CLOCK);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.timestamp_mask, 0);
	KUNIT_EXPECT_EQ(test, attr.hca_core_clock, 0);
	id.caps2 = cpu_to_le64(ROCX_CAP2_CQE64);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.timestamp_mask, 0);
	id.caps2 = cpu_to_le64(ROCX_CAP2_CQE64 | ROCX_CAP2_CLOCK);
	id.cqe_formats = cpu_to_le32(0x1);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.timestamp_mask, 0);
	id.cqe_formats = cpu_to_le32(0x3);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.timestamp_mask, U64_MAX);
	KUNIT_EXPECT_EQ(test, attr.hca_core_clock, 1000000);
}

/* Where the device's own limits are the smaller ones, they stand. */
static void rocx_ib_identify_attr_mr_size_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct ib_device_attr attr = {};

	id.max_mr_size = cpu_to_le64(SZ_1M);
	id.page_size_cap = cpu_to_le64(SZ_4K);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_mr_size, (u64)SZ_1M);

	/* Only 2 MiB pages: the list then reaches 512 GiB less 2 MiB. */
	id.max_mr_size = cpu_to_le64(U64_MAX);
	id.page_size_cap = cpu_to_le64(SZ_2M);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.page_size_cap, (u64)SZ_2M);
	KUNIT_EXPECT_EQ(test, attr.max_mr_size,
			(u64)(ROCX_PBL_MAX_PAGES - 1) * SZ_2M);
}

/* Atomics only with ROCX_CAP2_ATOMIC and a known atomic_cap: HCA. */
static void rocx_ib_identify_attr_atomic_test(struct kunit *test)
{
	static const struct {
		u64 caps2;
		u8 cap;
		enum ib_atomic_cap want;
	} v[] = {
		{ 0, ROCX_ATOMIC_CAP_NONE, IB_ATOMIC_NONE },
		{ 0, ROCX_ATOMIC_CAP_HCA, IB_ATOMIC_NONE },
		{ ROCX_CAP2_ATOMIC, ROCX_ATOMIC_CAP_NONE, IB_ATOMIC_NONE },
		{ ROCX_CAP2_ATOMIC, ROCX_ATOMIC_CAP_HCA, IB_ATOMIC_HCA },
		{ ~0ULL, ROCX_ATOMIC_CAP_HCA, IB_ATOMIC_HCA },
		{ ROCX_CAP2_ATOMIC, 2, IB_ATOMIC_NONE },
		{ ~0ULL, 0xff, IB_ATOMIC_NONE },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		struct rocx_identify id = {};
		struct ib_device_attr attr = {};

		id.caps2 = cpu_to_le64(v[i].caps2);
		id.atomic_cap = v[i].cap;
		id.max_rd_atom = cpu_to_le32(16);
		rocx_ib_identify_to_attr(&id, &attr);
		KUNIT_EXPECT_EQ_MSG(test, attr.atomic_cap, v[i].want,
				    "case %u", i);
		KUNIT_EXPECT_EQ(test, attr.masked_atomic_cap, IB_ATOMIC_NONE);
		/* READs and atomics share the responder resources. */
		KUNIT_EXPECT_EQ(test, attr.max_qp_rd_atom, 16);
		KUNIT_EXPECT_EQ(test, attr.max_qp_init_rd_atom, 16);
	}
}

/* Contract 1.0 reports no transport objects: all limits are zero. */
static void rocx_ib_identify_attr_zero_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct ib_device_attr attr = {};

	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.fw_ver, 0);
	KUNIT_EXPECT_EQ(test, attr.max_qp, 0);
	KUNIT_EXPECT_EQ(test, attr.max_res_rd_atom, 0);
	KUNIT_EXPECT_EQ(test, attr.max_pkeys, 1);
	KUNIT_EXPECT_EQ(test, attr.local_ca_ack_delay,
			ROCX_IB_LOCAL_ACK_DELAY);
}

/* Multicast limits mean something only with ROCX_CAP2_MCAST. */
static void rocx_ib_identify_attr_mcast_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct ib_device_attr attr = {};

	id.max_mcast_grp = cpu_to_le32(64);
	id.max_mcast_qp_attach = cpu_to_le32(16);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_mcast_grp, 0);
	KUNIT_EXPECT_EQ(test, attr.max_mcast_qp_attach, 0);
	KUNIT_EXPECT_EQ(test, attr.max_total_mcast_qp_attach, 0);

	id.caps2 = cpu_to_le64(ROCX_CAP2_MCAST);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_mcast_grp, 64);
	KUNIT_EXPECT_EQ(test, attr.max_mcast_qp_attach, 16);
	KUNIT_EXPECT_EQ(test, attr.max_total_mcast_qp_attach, 64 * 16);

	/* The product of two clamped limits still fits an int. */
	id.max_mcast_grp = cpu_to_le32(U32_MAX);
	id.max_mcast_qp_attach = cpu_to_le32(3);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_mcast_grp, INT_MAX);
	KUNIT_EXPECT_EQ(test, attr.max_total_mcast_qp_attach, INT_MAX);
}

/* Only a UD QP of a multicast device takes the no-loopback flag. */
static void rocx_ib_mcast_qp_flags_test(struct kunit *test)
{
	const u32 lb = IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	const u32 other = IB_QP_CREATE_SCATTER_FCS;
	u32 f;

	f = lb | other;
	KUNIT_EXPECT_EQ(test, rocx_ib_mcast_qp_flags(ROCX_CAP2_MCAST,
						     IB_QPT_UD, &f),
			ROCX_QP_NO_MC_LOOPBACK);
	KUNIT_EXPECT_EQ(test, f, other);

	f = other;
	KUNIT_EXPECT_EQ(test, rocx_ib_mcast_qp_flags(ROCX_CAP2_MCAST,
						     IB_QPT_UD, &f), 0);
	KUNIT_EXPECT_EQ(test, f, other);

	/* Refused later as unknown: the flag stays. */
	f = lb;
	KUNIT_EXPECT_EQ(test, rocx_ib_mcast_qp_flags(ROCX_CAP2_MCAST,
						     IB_QPT_RC, &f), 0);
	KUNIT_EXPECT_EQ(test, f, lb);
	KUNIT_EXPECT_EQ(test, rocx_ib_mcast_qp_flags(ROCX_CAP2_UD,
						     IB_QPT_UD, &f), 0);
	KUNIT_EXPECT_EQ(test, f, lb);
}

/* ATTACH_MCAST and DETACH_MCAST carry the qpn and the GID as given. */
static void rocx_ib_mcast_cmd_test(struct kunit *test)
{
	union rocx_aq_verbs_cmd cmd = {};
	union ib_gid gid;
	u8 zero[sizeof(cmd.mcast.rsvd2)] = {};
	int i;

	for (i = 0; i < sizeof(gid.raw); i++)
		gid.raw[i] = 0xf0 + i;
	rocx_ib_mcast_cmd(&cmd, ROCX_AQ_OP_DETACH_MCAST, 0x123456, &gid);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cmd.mcast.hdr.opcode),
			ROCX_AQ_OP_DETACH_MCAST);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cmd.mcast.qpn), 0x123456);
	KUNIT_EXPECT_MEMEQ(test, cmd.mcast.gid, gid.raw, sizeof(gid.raw));
	KUNIT_EXPECT_EQ(test, cmd.mcast.rsvd1, 0);
	KUNIT_EXPECT_MEMEQ(test, cmd.mcast.rsvd2, zero, sizeof(zero));
}

struct rocx_ib_errno_case {
	const char *desc;
	int in;
	int out;
};

static const struct rocx_ib_errno_case rocx_ib_errno_cases[] = {
	{ "ok", 0, 0 },
	{ "no_resource", -ENOSPC, -ENOMEM },
	{ "invalid", -EINVAL, -EINVAL },
	{ "unsupported", -EOPNOTSUPP, -EOPNOTSUPP },
	{ "busy", -EBUSY, -EBUSY },
	{ "dma", -EFAULT, -EFAULT },
	{ "timeout", -ETIMEDOUT, -ETIMEDOUT },
	{ "gone", -ENODEV, -ENODEV },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_errno, rocx_ib_errno_cases, desc);

static void rocx_ib_verbs_errno_test(struct kunit *test)
{
	const struct rocx_ib_errno_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ib_verbs_errno(c->in), c->out);
}

static struct kunit_case rocx_ib_attr_cases[] = {
	KUNIT_CASE(rocx_ib_identify_attr_test),
	KUNIT_CASE(rocx_ib_identify_attr_clamp_test),
	KUNIT_CASE(rocx_ib_identify_attr_mw_test),
	KUNIT_CASE(rocx_ib_identify_attr_mr_size_test),
	KUNIT_CASE(rocx_ib_identify_attr_max_cqe_test),
	KUNIT_CASE(rocx_ib_identify_attr_ud_test),
	KUNIT_CASE(rocx_ib_identify_attr_clock_test),
	KUNIT_CASE(rocx_ib_identify_attr_zero_test),
	KUNIT_CASE(rocx_ib_identify_attr_atomic_test),
	KUNIT_CASE(rocx_ib_identify_attr_mcast_test),
	KUNIT_CASE(rocx_ib_mcast_cmd_test),
	KUNIT_CASE(rocx_ib_mcast_qp_flags_test),
	KUNIT_CASE_PARAM(rocx_ib_verbs_errno_test, rocx_ib_errno_gen_params),
	{}
};

static struct kunit_suite rocx_ib_attr_suite = {
	.name = "rocx_ib_attr",
	.test_cases = rocx_ib_attr_cases,
};

kunit_test_suites(&rocx_ib_gid_suite, &rocx_ib_port_suite,
		  &rocx_ib_attr_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for rocx_ib");
MODULE_LICENSE("Dual BSD/GPL");
