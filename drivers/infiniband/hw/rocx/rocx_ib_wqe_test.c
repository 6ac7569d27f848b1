// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for the kernel's work queue entries (rocx_ib_wqe.c) and
 * completions (rocx_ib_datapath.c): each send opcode's WQE byte for byte
 * against the contract's layout (rocx_verbs.h), the work requests a QP
 * type must refuse, inline data, receive WQEs, the queue geometry of
 * kernel QPs, and the work completion of a CQE, GSI/UD fields included.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

#define T_ENTRY	256	/* a 256-byte send entry: 12 SGEs or 192 inline bytes */

static const struct rocx_ib_wqe_ctx t_rc = {
	.qp_type = IB_QPT_RC, .max_sge = 4, .max_inline = 64,
};

static const struct ib_sge t_sge[2] = {
	{ .addr = 0x1122334455667788ULL, .length = 0x1000, .lkey = 0xabcdef01 },
	{ .addr = 0x0000000100002000ULL, .length = 0x20, .lkey = 0x00000102 },
};

/* Bytes 0-15, the control segment, in the contract's order. */
static void t_ctrl(u8 *b, u8 opcode, u8 flags, u8 num_sge, u32 imm_be,
		   u32 inline_len, u16 idx)
{
	memset(b, 0, 16);
	b[0] = opcode;
	b[1] = flags;
	b[2] = num_sge;
	b[4] = imm_be >> 24;
	b[5] = imm_be >> 16;
	b[6] = imm_be >> 8;
	b[7] = imm_be;
	b[8] = inline_len;
	b[9] = inline_len >> 8;
	b[12] = idx;
	b[13] = idx >> 8;
}

static void t_le64(u8 *b, u64 v)
{
	int i;

	for (i = 0; i < 8; i++)
		b[i] = v >> (8 * i);
}

static void t_le32(u8 *b, u32 v)
{
	int i;

	for (i = 0; i < 4; i++)
		b[i] = v >> (8 * i);
}

/* An SGE list at byte off: 64 in a send WQE, 16 in a receive WQE. */
static void t_sges_at(u8 *b, int off, const struct ib_sge *sge, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		t_le64(b + off + 16 * i, sge[i].addr);
		t_le32(b + off + 8 + 16 * i, sge[i].length);
		t_le32(b + off + 12 + 16 * i, sge[i].lkey);
	}
}

static void t_sges(u8 *b, const struct ib_sge *sge, int n)
{
	t_sges_at(b, 64, sge, n);
}

static void rocx_ib_wqe_send_test(struct kunit *test)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND, .sg_list = (struct ib_sge *)t_sge,
		.num_sge = 2, .send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED,
	};
	u8 got[T_ENTRY], want[T_ENTRY];

	memset(got, 0xa5, sizeof(got));
	memset(want, 0xa5, sizeof(want));
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 0x1234, &wr), 0);
	t_ctrl(want, ROCX_WQE_SEND, ROCX_WQE_SIGNALED | ROCX_WQE_SOLICITED, 2,
	       0, 0, 0x1234);
	memset(want + 16, 0, 48);
	t_sges(want, t_sge, 2);
	/* Nothing past the last SGE is touched. */
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));
}

static void rocx_ib_wqe_imm_inv_test(struct kunit *test)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND_WITH_IMM, .ex.imm_data = cpu_to_be32(0xdeadbeef),
		.sg_list = (struct ib_sge *)t_sge, .num_sge = 1,
		.send_flags = IB_SEND_FENCE,
	};
	u8 got[T_ENTRY], want[T_ENTRY];

	memset(got, 0, sizeof(got));
	memset(want, 0, sizeof(want));
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 7, &wr), 0);
	t_ctrl(want, ROCX_WQE_SEND_IMM, ROCX_WQE_FENCE, 1, 0xdeadbeef, 0, 7);
	t_sges(want, t_sge, 1);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	/* The key to invalidate travels big endian, as ImmDt does. */
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.ex.invalidate_rkey = 0x00123456;
	wr.send_flags = 0;
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 8, &wr), 0);
	t_ctrl(want, ROCX_WQE_SEND_INV, 0, 1, 0x00123456, 0, 8);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));
}

static void rocx_ib_wqe_rdma_test(struct kunit *test)
{
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE_WITH_IMM,
			.ex.imm_data = cpu_to_be32(0x01020304),
			.sg_list = (struct ib_sge *)t_sge, .num_sge = 2 },
		.remote_addr = 0xfedcba9876543210ULL, .rkey = 0x55aa00ff,
	};
	u8 got[T_ENTRY], want[T_ENTRY];

	memset(got, 0, sizeof(got));
	memset(want, 0, sizeof(want));
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 0xffff, &wr.wr), 0);
	t_ctrl(want, ROCX_WQE_RDMA_WRITE_IMM, 0, 2, 0x01020304, 0, 0xffff);
	t_le64(want + 16, wr.remote_addr);
	t_le32(want + 24, wr.rkey);
	t_sges(want, t_sge, 2);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	wr.wr.opcode = IB_WR_RDMA_READ;
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 1, &wr.wr), 0);
	t_ctrl(want, ROCX_WQE_RDMA_READ, 0, 2, 0, 0, 1);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	wr.wr.opcode = IB_WR_RDMA_WRITE;
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 2, &wr.wr), 0);
	t_ctrl(want, ROCX_WQE_RDMA_WRITE, 0, 2, 0, 0, 2);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));
}

static void rocx_ib_wqe_atomic_test(struct kunit *test)
{
	struct ib_atomic_wr wr = {
		.wr = { .opcode = IB_WR_ATOMIC_CMP_AND_SWP,
			.sg_list = (struct ib_sge *)t_sge, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = 0x1000, .rkey = 0x300,
		.compare_add = 0x0102030405060708ULL,
		.swap = 0x1112131415161718ULL,
	};
	u8 got[T_ENTRY], want[T_ENTRY];

	memset(got, 0, sizeof(got));
	memset(want, 0, sizeof(want));
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 3, &wr.wr), 0);
	t_ctrl(want, ROCX_WQE_COMP_SWAP, ROCX_WQE_SIGNALED, 1, 0, 0, 3);
	t_le64(want + 16, 0x1000);
	t_le32(want + 24, 0x300);
	t_le64(want + 32, wr.compare_add);
	t_le64(want + 40, wr.swap);
	t_sges(want, t_sge, 1);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	/* FETCH_ADD has no swap operand. */
	wr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 4, &wr.wr), 0);
	t_ctrl(want, ROCX_WQE_FETCH_ADD, ROCX_WQE_SIGNALED, 1, 0, 0, 4);
	memset(want + 40, 0, 8);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	/* One 8-byte SGE for the original value, never inline. */
	wr.wr.num_sge = 2;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 5, &wr.wr), -EINVAL);
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_INLINE;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 5, &wr.wr), -EINVAL);
}

static void rocx_ib_wqe_ud_test(struct kunit *test)
{
	static const struct rocx_ib_wqe_ctx ud = {
		.qp_type = IB_QPT_GSI, .sig_all = true, .max_sge = 2,
		.max_inline = 0,
	};
	struct rocx_ib_ah ah = {};
	struct ib_ud_wr wr = {
		.wr = { .opcode = IB_WR_SEND, .sg_list = (struct ib_sge *)t_sge,
			.num_sge = 2 },
		.ah = &ah.ibah, .remote_qpn = 0xff000001,
		.remote_qkey = 0x80010000,
	};
	u8 got[T_ENTRY], want[T_ENTRY];
	unsigned int i;

	for (i = 0; i < sizeof(ah.av); i++)
		((u8 *)&ah.av)[i] = i + 1;
	memset(got, 0, sizeof(got));
	memset(want, 0, sizeof(want));
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&ud, got, 9, &wr.wr), 0);
	/* Signalled: the QP completes every WQE. */
	t_ctrl(want, ROCX_WQE_SEND, ROCX_WQE_SIGNALED, 2, 0, 0, 9);
	/* remote_qpn [23:0], the Q_Key as given (bit 31: the QP's own). */
	t_le32(want + 16, 0x000001);
	t_le32(want + 20, 0x80010000);
	for (i = 0; i < sizeof(ah.av); i++)
		want[24 + i] = i + 1;
	t_sges(want, t_sge, 2);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	/* UD and GSI send SENDs only; no inline room on this QP. */
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&ud, got, 9, &wr.wr), -EINVAL);
	wr.wr.opcode = IB_WR_SEND_WITH_INV;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&ud, got, 9, &wr.wr), -EINVAL);
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_INLINE;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&ud, got, 9, &wr.wr), -EINVAL);
	wr.wr.send_flags = 0;
	wr.wr.num_sge = 3;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&ud, got, 9, &wr.wr), -EINVAL);
}

static void rocx_ib_wqe_inline_test(struct kunit *test)
{
	static const u8 a[] = "0123456789", b[] = "abcdef";
	struct ib_sge sge[2] = {
		{ .addr = (uintptr_t)a, .length = 10 },
		{ .addr = (uintptr_t)b, .length = 6 },
	};
	/* An RDMA work request, so that the READ below is a whole one. */
	struct ib_rdma_wr rdma = {
		.wr = { .opcode = IB_WR_SEND, .sg_list = sge, .num_sge = 2,
			.send_flags = IB_SEND_INLINE },
	};
	struct ib_send_wr *wr = &rdma.wr;
	u8 got[T_ENTRY], want[T_ENTRY];

	memset(got, 0, sizeof(got));
	memset(want, 0, sizeof(want));
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 10, wr), 0);
	/* num_sge 0: the data follows the header instead. */
	t_ctrl(want, ROCX_WQE_SEND, ROCX_WQE_INLINE, 0, 0, 16, 10);
	memcpy(want + 64, "0123456789abcdef", 16);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	/* More than max_inline bytes. */
	sge[1].length = 55;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 10, wr), -EINVAL);
	/* A READ would have the device write into the WQE. */
	sge[1].length = 6;
	wr->opcode = IB_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 10, wr), -EINVAL);
}

static void rocx_ib_wqe_refused_test(struct kunit *test)
{
	static const struct rocx_ib_wqe_ctx uc = {
		.qp_type = IB_QPT_UC, .max_sge = 4, .max_inline = 64,
	};
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND, .sg_list = (struct ib_sge *)t_sge,
		.num_sge = 5,
	};
	u8 got[T_ENTRY];

	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 0, &wr), -EINVAL);
	wr.num_sge = -1;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 0, &wr), -EINVAL);
	wr.num_sge = 1;
	wr.opcode = IB_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&uc, got, 0, &wr), -EINVAL);
	wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&uc, got, 0, &wr), -EINVAL);
	/* Not in the contract, or not this driver's yet. */
	wr.opcode = IB_WR_LSO;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 0, &wr), -EINVAL);
	wr.opcode = IB_WR_MASKED_ATOMIC_CMP_AND_SWP;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_build(&t_rc, got, 0, &wr), -EINVAL);
}

static void rocx_ib_recv_wqe_test(struct kunit *test)
{
	struct ib_recv_wr wr = {
		.sg_list = (struct ib_sge *)t_sge, .num_sge = 2,
	};
	u8 got[64], want[64];

	memset(got, 0xa5, sizeof(got));
	memset(want, 0xa5, sizeof(want));
	KUNIT_ASSERT_EQ(test, rocx_ib_recv_wqe_build(got, 0x4321, &wr, 3), 0);
	memset(want, 0, 16);
	want[0] = 2;
	want[2] = 0x21;
	want[3] = 0x43;
	t_sges_at(want, 16, t_sge, 2);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	KUNIT_EXPECT_EQ(test, rocx_ib_recv_wqe_build(got, 0, &wr, 1), -EINVAL);
	wr.num_sge = -1;
	KUNIT_EXPECT_EQ(test, rocx_ib_recv_wqe_build(got, 0, &wr, 1), -EINVAL);
}

/* An SRQ entry: the receive WQE with its tag in bytes 4-5. */
static void rocx_ib_srq_wqe_test(struct kunit *test)
{
	struct ib_recv_wr wr = {
		.sg_list = (struct ib_sge *)t_sge, .num_sge = 2,
	};
	u8 got[64], want[64];

	memset(got, 0xa5, sizeof(got));
	memset(want, 0xa5, sizeof(want));
	KUNIT_ASSERT_EQ(test, rocx_ib_srq_wqe_build(got, 0x8765, 0x0bcd, &wr, 3),
			0);
	memset(want, 0, 16);
	want[0] = 2;
	want[2] = 0x65;
	want[3] = 0x87;
	want[4] = 0xcd;
	want[5] = 0x0b;
	t_sges_at(want, 16, t_sge, 2);
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	/* No SGE at all: the header alone, the rest untouched. */
	memset(got, 0xa5, sizeof(got));
	wr.num_sge = 0;
	KUNIT_ASSERT_EQ(test, rocx_ib_srq_wqe_build(got, 1, 0xffff, &wr, 1), 0);
	memset(want, 0xa5, sizeof(want));
	memset(want, 0, 16);
	want[2] = 1;
	want[4] = 0xff;
	want[5] = 0xff;
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));

	/* Too many SGEs: refused, and the entry left as it was. */
	wr.num_sge = 2;
	memset(got, 0xa5, sizeof(got));
	KUNIT_EXPECT_EQ(test, rocx_ib_srq_wqe_build(got, 0, 7, &wr, 1), -EINVAL);
	memset(want, 0xa5, sizeof(want));
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(got));
}

/* A kernel SRQ's ring: powers of two, entries as small as the SGEs allow. */
static void rocx_ib_ksrq_geometry_test(struct kunit *test)
{
	/* nvmet-rdma's SRQ: 1023 receives of 2 SGEs (command + inline). */
	struct ib_srq_attr nvmet = { .max_wr = 1023, .max_sge = 2 };
	struct ib_srq_attr one = { .max_wr = 1, .max_sge = 0 };
	struct ib_srq_attr big = { .max_wr = 4097, .max_sge = 30 };
	struct rocx_create_srq_req req = {};

	rocx_ib_ksrq_geometry(&nvmet, &req);
	KUNIT_EXPECT_EQ(test, req.log_depth, 10);
	KUNIT_EXPECT_EQ(test, req.wqe_shift, 6);	/* 16 + 32 bytes */
	KUNIT_EXPECT_EQ(test, req.buf_addr, (u64)PAGE_SIZE);

	memset(&req, 0, sizeof(req));
	rocx_ib_ksrq_geometry(&one, &req);
	KUNIT_EXPECT_EQ(test, req.log_depth, ROCX_SRQ_MIN_LOG_DEPTH);
	KUNIT_EXPECT_EQ(test, req.wqe_shift, 5);	/* 16 + one SGE */

	memset(&req, 0, sizeof(req));
	rocx_ib_ksrq_geometry(&big, &req);
	KUNIT_EXPECT_EQ(test, req.log_depth, 13);
	KUNIT_EXPECT_EQ(test, req.wqe_shift, 9);	/* 16 + 480 bytes */
}

static void rocx_ib_kqp_geometry_test(struct kunit *test)
{
	/* ib_mad's QP1: 128 sends of 2 SGEs, 512 receives of 1. */
	struct ib_qp_cap gsi = {
		.max_send_wr = 128, .max_recv_wr = 512, .max_send_sge = 2,
		.max_recv_sge = 1,
	};
	struct ib_qp_cap none = {};
	struct ib_qp_cap inl = { .max_send_wr = 3, .max_inline_data = 100,
				 .max_send_sge = 1 };
	struct rocx_create_qp_req req = {};

	rocx_ib_kqp_geometry(&gsi, &req);
	KUNIT_EXPECT_EQ(test, req.sq_log_depth, 7);
	KUNIT_EXPECT_EQ(test, req.sq_wqe_shift, 7);	/* 64 + 32 bytes */
	KUNIT_EXPECT_EQ(test, req.rq_log_depth, 9);
	KUNIT_EXPECT_EQ(test, req.rq_wqe_shift, 5);	/* 16 + 16 bytes */

	memset(&req, 0, sizeof(req));
	rocx_ib_kqp_geometry(&none, &req);
	KUNIT_EXPECT_EQ(test, req.sq_log_depth, ROCX_IB_SQ_MIN_LOG_DEPTH);
	KUNIT_EXPECT_EQ(test, req.sq_wqe_shift, ROCX_IB_SQ_MIN_WQE_SHIFT);
	KUNIT_EXPECT_EQ(test, req.rq_log_depth, 0);

	memset(&req, 0, sizeof(req));
	rocx_ib_kqp_geometry(&inl, &req);
	KUNIT_EXPECT_EQ(test, req.sq_log_depth, 2);
	KUNIT_EXPECT_EQ(test, req.sq_wqe_shift, 8);	/* 64 + 100 bytes */
}

/*
 * A kernel post writes the producer index into the record whatever the
 * device says, and leaves out the doorbell only while POLL is set.
 */
static void rocx_ib_kqp_record_test(struct kunit *test)
{
	struct rocx_db_record rec = {};

	KUNIT_EXPECT_FALSE(test, rocx_ib_kqp_record(&rec, 5));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rec.sq_pi), 5);
	rec.flags = cpu_to_le32(ROCX_DB_RECORD_POLL);
	KUNIT_EXPECT_TRUE(test, rocx_ib_kqp_record(&rec, 6));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rec.sq_pi), 6);
	/* The index wraps as the doorbell's does; bits 31:16 stay 0. */
	KUNIT_EXPECT_TRUE(test, rocx_ib_kqp_record(&rec, 0xffff));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rec.sq_pi), 0xffff);
	rec.flags = 0;
	KUNIT_EXPECT_FALSE(test, rocx_ib_kqp_record(&rec, 0));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rec.sq_pi), 0);
}

static void rocx_ib_kqp_report_caps_test(struct kunit *test)
{
	/* ib_isert's QP: rdma_rw's contexts asked for beside the queues. */
	struct ib_qp_cap asked = {
		.max_send_wr = 1153, .max_recv_wr = 2, .max_send_sge = 8,
		.max_recv_sge = 1, .max_rdma_ctxs = 128,
	};
	const struct ib_qp_cap held = {
		.max_send_wr = 2048, .max_recv_wr = 2, .max_send_sge = 8,
		.max_recv_sge = 1, .max_inline_data = 128,
	};

	rocx_ib_kqp_report_caps(&asked, &held);
	KUNIT_EXPECT_EQ(test, asked.max_send_wr, 2048);
	KUNIT_EXPECT_EQ(test, asked.max_recv_wr, 2);
	KUNIT_EXPECT_EQ(test, asked.max_send_sge, 8);
	KUNIT_EXPECT_EQ(test, asked.max_recv_sge, 1);
	KUNIT_EXPECT_EQ(test, asked.max_inline_data, 128);
	/* ib_core sizes the QP's MR pool from it after create_qp. */
	KUNIT_EXPECT_EQ(test, asked.max_rdma_ctxs, 128);

	/* Nothing asked, nothing invented. */
	asked.max_rdma_ctxs = 0;
	rocx_ib_kqp_report_caps(&asked, &held);
	KUNIT_EXPECT_EQ(test, asked.max_rdma_ctxs, 0);
}

/* A CQE as the device writes it. */
static void t_cqe(struct rocx_cqe *cqe, u32 qpn, u8 op, u32 src_qp, u8 status,
		  u8 flags)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->qpn_op = cpu_to_le32(qpn | (u32)op << 24);
	cqe->src_qp_status = cpu_to_le32(src_qp | (u32)status << 24);
	cqe->flags = flags;
	cqe->vlan = cpu_to_le16(ROCX_VLAN_NONE);
}

static void rocx_ib_wc_gsi_test(struct kunit *test)
{
	static const u8 smac[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	struct rocx_cqe cqe;
	struct ib_wc wc;

	/* A MAD over RoCE v2 IPv4: 40 bytes of GRH area and 256 of MAD. */
	t_cqe(&cqe, 1, ROCX_CQE_OP_RECV, 0x000001, ROCX_WC_SUCCESS,
	      ROCX_CQE_PHASE | ROCX_CQE_RECV | ROCX_CQE_GRH |
	      (ROCX_NET_ROCE_V2_IPV4 << 5));
	cqe.byte_len = cpu_to_le32(ROCX_UD_GRH_LEN + 256);
	memcpy(cqe.smac, smac, ETH_ALEN);
	memset(&wc, 0xa5, sizeof(wc));
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_GSI, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 296);
	KUNIT_EXPECT_EQ(test, wc.src_qp, 1);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_GRH | IB_WC_WITH_SMAC |
			IB_WC_WITH_NETWORK_HDR_TYPE);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, RDMA_NETWORK_IPV4);
	KUNIT_EXPECT_MEMEQ(test, wc.smac, smac, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, wc.pkey_index, 0);
	KUNIT_EXPECT_EQ(test, wc.port_num, ROCX_IB_PORT);
	KUNIT_EXPECT_EQ(test, wc.sl, 0);

	/* On a VLAN, over IPv6, with immediate data. */
	t_cqe(&cqe, 0x1234, ROCX_CQE_OP_RECV, 0xabcdef, ROCX_WC_SUCCESS,
	      ROCX_CQE_RECV | ROCX_CQE_GRH | ROCX_CQE_WITH_IMM |
	      (ROCX_NET_ROCE_V2_IPV6 << 5));
	cqe.vlan = cpu_to_le16(100);
	cqe.imm_data = cpu_to_be32(0xcafe);
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_UD, &wc);
	KUNIT_EXPECT_EQ(test, wc.src_qp, 0xabcdef);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_GRH | IB_WC_WITH_SMAC |
			IB_WC_WITH_VLAN | IB_WC_WITH_NETWORK_HDR_TYPE |
			IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, wc.vlan_id, 100);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, RDMA_NETWORK_IPV6);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xcafe);

	/* RoCE v1: a GRH, network type ROCE_V1. */
	t_cqe(&cqe, 1, ROCX_CQE_OP_RECV, 7, ROCX_WC_SUCCESS,
	      ROCX_CQE_RECV | ROCX_CQE_GRH);
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_GSI, &wc);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, RDMA_NETWORK_ROCE_V1);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE);
}

static void rocx_ib_wc_rc_test(struct kunit *test)
{
	struct rocx_cqe cqe;
	struct ib_wc wc;

	/* RC receives carry no address: no SMAC, no network type. */
	t_cqe(&cqe, 5, ROCX_CQE_OP_RECV_RDMA_IMM, 0, ROCX_WC_SUCCESS,
	      ROCX_CQE_RECV | ROCX_CQE_WITH_IMM);
	cqe.imm_data = cpu_to_be32(0x11223344);
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_RC, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0x11223344);

	t_cqe(&cqe, 5, ROCX_CQE_OP_RECV, 0, ROCX_WC_SUCCESS,
	      ROCX_CQE_RECV | ROCX_CQE_WITH_INV);
	cqe.imm_data = cpu_to_be32(0x00abcd01);
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_RC, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0x00abcd01);

	/* Sends, flushes and the errors ib_core's consumers tell apart. */
	t_cqe(&cqe, 5, ROCX_CQE_OP_RDMA_READ, 0, ROCX_WC_SUCCESS, 0);
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_RC, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, 0);
	t_cqe(&cqe, 5, ROCX_CQE_OP_SEND, 0, ROCX_WC_WR_FLUSH_ERR, 0);
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_RC, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	t_cqe(&cqe, 5, ROCX_CQE_OP_SEND, 0, ROCX_WC_RNR_RETRY_EXC_ERR, 0);
	cqe.vendor_err = ROCX_VERR_RNR;
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_RC, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_RNR_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, wc.vendor_err, ROCX_VERR_RNR);
	t_cqe(&cqe, 5, ROCX_CQE_OP_SEND, 0, 0xee, 0);
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_RC, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_GENERAL_ERR);

	/* A failed UD receive says nothing of a source. */
	t_cqe(&cqe, 5, ROCX_CQE_OP_RECV, 9, ROCX_WC_LOC_LEN_ERR,
	      ROCX_CQE_RECV | ROCX_CQE_GRH);
	rocx_ib_cqe_to_wc(&cqe, IB_QPT_UD, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, 0);
}

static struct kunit_case rocx_ib_wqe_cases[] = {
	KUNIT_CASE(rocx_ib_wqe_send_test),
	KUNIT_CASE(rocx_ib_wqe_imm_inv_test),
	KUNIT_CASE(rocx_ib_wqe_rdma_test),
	KUNIT_CASE(rocx_ib_wqe_atomic_test),
	KUNIT_CASE(rocx_ib_wqe_ud_test),
	KUNIT_CASE(rocx_ib_wqe_inline_test),
	KUNIT_CASE(rocx_ib_wqe_refused_test),
	KUNIT_CASE(rocx_ib_recv_wqe_test),
	KUNIT_CASE(rocx_ib_srq_wqe_test),
	KUNIT_CASE(rocx_ib_ksrq_geometry_test),
	KUNIT_CASE(rocx_ib_kqp_geometry_test),
	KUNIT_CASE(rocx_ib_kqp_record_test),
	KUNIT_CASE(rocx_ib_kqp_report_caps_test),
	{}
};

static struct kunit_suite rocx_ib_wqe_suite = {
	.name = "rocx_ib_wqe",
	.test_cases = rocx_ib_wqe_cases,
};

static struct kunit_case rocx_ib_wc_cases[] = {
	KUNIT_CASE(rocx_ib_wc_gsi_test),
	KUNIT_CASE(rocx_ib_wc_rc_test),
	{}
};

static struct kunit_suite rocx_ib_wc_suite = {
	.name = "rocx_ib_wc",
	.test_cases = rocx_ib_wc_cases,
};

kunit_test_suites(&rocx_ib_wqe_suite, &rocx_ib_wc_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for rocx_ib's kernel work requests and completions");
MODULE_LICENSE("Dual BSD/GPL");
