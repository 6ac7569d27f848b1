// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rocx_ib's RDMA objects: page lists built from pinned
 * memory, and the encodings of MR access rights, CQ and QP requests and QP
 * attributes, SRQ requests.  No rocx device is needed: page lists are built for a KUnit
 * device from hand-made scatterlists, as ib_umem_get() would leave them.
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/* ---------------- rocx_ib_pbl ---------------- */

struct rocx_ib_levels_case {
	const char *desc;
	u32 npages;
	int levels;
};

static const struct rocx_ib_levels_case rocx_ib_levels_cases[] = {
	{ "none", 0, -EINVAL },
	{ "one", 1, 0 },
	{ "two", 2, 1 },
	{ "one_table", ROCX_PBL_ENTRIES_PER_PAGE, 1 },
	{ "one_table_plus_one", ROCX_PBL_ENTRIES_PER_PAGE + 1, 2 },
	{ "max", ROCX_PBL_MAX_PAGES, 2 },
	{ "max_plus_one", ROCX_PBL_MAX_PAGES + 1, -E2BIG },
	{ "u32_max", U32_MAX, -E2BIG },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_levels, rocx_ib_levels_cases, desc);

static void rocx_ib_pbl_levels_test(struct kunit *test)
{
	const struct rocx_ib_levels_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ib_pbl_levels(c->npages), c->levels);
}

static void rocx_ib_pgsz_bitmap_test(struct kunit *test)
{
	/* 4 KiB, 2 MiB and 1 GiB: the contract stops at 2 MiB. */
	KUNIT_EXPECT_EQ(test, rocx_ib_pgsz_bitmap(SZ_4K | SZ_2M | SZ_1G),
			(unsigned long)(SZ_4K | SZ_2M));
	KUNIT_EXPECT_EQ(test, rocx_ib_pgsz_bitmap(~0ULL),
			(unsigned long)GENMASK(21, 12));
	/* Nothing usable reported: 4 KiB, which every device has. */
	KUNIT_EXPECT_EQ(test, rocx_ib_pgsz_bitmap(0), (unsigned long)SZ_4K);
	KUNIT_EXPECT_EQ(test, rocx_ib_pgsz_bitmap(SZ_1K | SZ_1G),
			(unsigned long)SZ_4K);
}

/* A device page lists can be built for (coherent DMA, no IOMMU). */
static struct device *rocx_ib_test_dma_dev(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "rocx_ib_pbl_test");

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, dma_coerce_mask_and_coherent(dev,
							   DMA_BIT_MASK(64)), 0);
	return dev;
}

static void rocx_ib_pbl_destroy_action(void *pbl)
{
	rocx_ib_pbl_destroy(pbl);
}

static struct rocx_ib_pbl *rocx_ib_test_pbl(struct kunit *test)
{
	struct rocx_ib_pbl *pbl = kunit_kzalloc(test, sizeof(*pbl), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, pbl);
	err = kunit_add_action_or_reset(test, rocx_ib_pbl_destroy_action, pbl);
	KUNIT_ASSERT_EQ(test, err, 0);
	return pbl;
}

static void rocx_ib_pbl_level0_test(struct kunit *test)
{
	struct device *dev = rocx_ib_test_dma_dev(test);
	struct rocx_ib_pbl *pbl = rocx_ib_test_pbl(test);
	struct rocx_pbl hw;

	KUNIT_ASSERT_EQ(test, rocx_ib_pbl_init(pbl, dev, 1, 21), 0);
	KUNIT_EXPECT_EQ(test, pbl->ntbl, 0);
	rocx_ib_pbl_set(pbl, 0, 0x40000000);
	rocx_ib_pbl_to_hw(pbl, &hw);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(hw.addr), 0x40000000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(hw.npages), 1);
	KUNIT_EXPECT_EQ(test, hw.page_shift, 21);
	KUNIT_EXPECT_EQ(test, hw.levels, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(hw.rsvd), 0);
}

static void rocx_ib_pbl_level1_test(struct kunit *test)
{
	struct device *dev = rocx_ib_test_dma_dev(test);
	struct rocx_ib_pbl *pbl = rocx_ib_test_pbl(test);
	struct rocx_pbl hw;
	u32 i;

	KUNIT_ASSERT_EQ(test, rocx_ib_pbl_init(pbl, dev, 512, 12), 0);
	KUNIT_ASSERT_EQ(test, pbl->ntbl, 1);
	for (i = 0; i < 512; i++)
		rocx_ib_pbl_set(pbl, i, 0x100000000ULL + i * SZ_4K * 3);
	rocx_ib_pbl_to_hw(pbl, &hw);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(hw.addr), (u64)pbl->tbl_dma[0]);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(hw.npages), 512);
	KUNIT_EXPECT_EQ(test, hw.page_shift, 12);
	KUNIT_EXPECT_EQ(test, hw.levels, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][0]), 0x100000000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][511]),
			0x100000000ULL + 511ULL * SZ_4K * 3);
}

static void rocx_ib_pbl_level2_test(struct kunit *test)
{
	struct device *dev = rocx_ib_test_dma_dev(test);
	struct rocx_ib_pbl *pbl = rocx_ib_test_pbl(test);
	const u32 n = 2 * ROCX_PBL_ENTRIES_PER_PAGE + 7;
	struct rocx_pbl hw;
	u32 i;

	KUNIT_ASSERT_EQ(test, rocx_ib_pbl_init(pbl, dev, n, 16), 0);
	/* The root and three tables of page addresses. */
	KUNIT_ASSERT_EQ(test, pbl->ntbl, 4);
	for (i = 0; i < n; i++)
		rocx_ib_pbl_set(pbl, i, (u64)(i + 1) << 16);
	rocx_ib_pbl_to_hw(pbl, &hw);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(hw.addr), (u64)pbl->tbl_dma[0]);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(hw.npages), n);
	KUNIT_EXPECT_EQ(test, hw.levels, 2);
	for (i = 1; i < pbl->ntbl; i++)
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][i - 1]),
				(u64)pbl->tbl_dma[i]);
	/* Unused root entries stay zero. */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][3]), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[1][0]), 1ULL << 16);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[2][0]), 513ULL << 16);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[3][6]), (u64)n << 16);
}

static void rocx_ib_pbl_init_bad_test(struct kunit *test)
{
	struct device *dev = rocx_ib_test_dma_dev(test);
	struct rocx_ib_pbl *pbl = rocx_ib_test_pbl(test);

	KUNIT_EXPECT_EQ(test, rocx_ib_pbl_init(pbl, dev, 4, 11), -EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_pbl_init(pbl, dev, 4, 22), -EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_pbl_init(pbl, dev, 0, 12), -EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_pbl_init(pbl, dev,
					       ROCX_PBL_MAX_PAGES + 1, 12),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, pbl->ntbl, 0);
}

static void rocx_ib_free_sgt(void *sgt)
{
	sg_free_table(sgt);
}

/*
 * Pinned memory as ib_umem_get() leaves it: @va and @len of the user
 * range, and a scatterlist of whole pages (@n runs at @dma, @dlen bytes).
 */
static struct ib_umem *rocx_ib_fake_umem(struct kunit *test, u64 va,
					 size_t len, const u64 *dma,
					 const u32 *dlen, unsigned int n)
{
	struct ib_umem *umem = kunit_kzalloc(test, sizeof(*umem), GFP_KERNEL);
	struct sg_table *sgt;
	struct scatterlist *sg;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, umem);
	sgt = &umem->sgt_append.sgt;
	KUNIT_ASSERT_EQ(test, sg_alloc_table(sgt, n, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, rocx_ib_free_sgt, sgt),
			0);
	for_each_sg(sgt->sgl, sg, n, i) {
		sg_dma_address(sg) = dma[i];
		sg_dma_len(sg) = dlen[i];
	}
	sgt->nents = n;
	umem->address = va;
	umem->length = len;
	umem->iova = va;
	return umem;
}

/* Scattered 4 KiB pages of a page-aligned buffer. */
static void rocx_ib_pbl_umem_pages_test(struct kunit *test)
{
	static const u64 dma[] = { 0x7000, 0x3000, 0x9000 };
	static const u32 dlen[] = { SZ_4K, SZ_4K, SZ_4K };
	struct device *dev = rocx_ib_test_dma_dev(test);
	struct rocx_ib_pbl *pbl = rocx_ib_test_pbl(test);
	struct ib_umem *umem;
	int err;
	u32 offset = ~0U;

	umem = rocx_ib_fake_umem(test, 0x10000, 3 * SZ_4K, dma, dlen, 3);
	err = rocx_ib_pbl_from_umem(pbl, dev, umem,
				    rocx_ib_pgsz_bitmap(SZ_4K | SZ_2M), 0x10000,
				    &offset);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, offset, 0);
	KUNIT_EXPECT_EQ(test, pbl->page_shift, 12);
	KUNIT_EXPECT_EQ(test, pbl->npages, 3);
	KUNIT_EXPECT_EQ(test, pbl->levels, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][0]), 0x7000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][1]), 0x3000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][2]), 0x9000ULL);
}

/* An MR that starts inside a page: the offset goes with the command. */
static void rocx_ib_pbl_umem_offset_test(struct kunit *test)
{
	static const u64 dma[] = { 0x20000, 0x50000 };
	static const u32 dlen[] = { 2 * SZ_4K, SZ_4K };
	struct device *dev = rocx_ib_test_dma_dev(test);
	struct rocx_ib_pbl *pbl = rocx_ib_test_pbl(test);
	struct ib_umem *umem;
	int err;
	struct rocx_pbl hw;
	u32 offset = 0;

	umem = rocx_ib_fake_umem(test, 0x7f0000010123ULL, 0x2000, dma, dlen,
				 2);
	err = rocx_ib_pbl_from_umem(pbl, dev, umem, SZ_4K, 0x10123, &offset);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, offset, 0x123);
	KUNIT_EXPECT_EQ(test, pbl->npages, 3);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][0]), 0x20000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][1]), 0x21000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][2]), 0x50000ULL);
	rocx_ib_pbl_to_hw(pbl, &hw);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(hw.npages), 3);
}

/* Huge pages: 4 MiB of 2 MiB-aligned memory is two entries. */
static void rocx_ib_pbl_umem_huge_test(struct kunit *test)
{
	static const u64 dma[] = { 0x40000000 };
	static const u32 dlen[] = { SZ_4M };
	struct device *dev = rocx_ib_test_dma_dev(test);
	struct rocx_ib_pbl *pbl = rocx_ib_test_pbl(test);
	struct ib_umem *umem;
	int err;
	u32 offset = ~0U;

	umem = rocx_ib_fake_umem(test, 0x7f0000200000ULL, SZ_4M, dma, dlen, 1);
	err = rocx_ib_pbl_from_umem(pbl, dev, umem,
				    rocx_ib_pgsz_bitmap(SZ_4K | SZ_2M | SZ_1G),
				    0x7f0000200000ULL, &offset);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, pbl->page_shift, 21);
	KUNIT_EXPECT_EQ(test, pbl->npages, 2);
	KUNIT_EXPECT_EQ(test, offset, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][1]), 0x40200000ULL);

	/* The same memory without 2 MiB pages takes two levels. */
	rocx_ib_pbl_destroy(pbl);
	err = rocx_ib_pbl_from_umem(pbl, dev, umem, SZ_4K, 0x7f0000200000ULL,
				    &offset);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, pbl->page_shift, 12);
	KUNIT_EXPECT_EQ(test, pbl->npages, 1024);
	KUNIT_EXPECT_EQ(test, pbl->levels, 2);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[2][511]),
			0x40000000ULL + 1023ULL * SZ_4K);
}

/* A queue (iova 0) never gets pages larger than its DMA alignment. */
static void rocx_ib_pbl_umem_queue_test(struct kunit *test)
{
	static const u64 dma[] = { 0x12345000 };
	static const u32 dlen[] = { 2 * SZ_4K };
	struct device *dev = rocx_ib_test_dma_dev(test);
	struct rocx_ib_pbl *pbl = rocx_ib_test_pbl(test);
	struct ib_umem *umem;
	int err;
	u32 offset = ~0U;

	umem = rocx_ib_fake_umem(test, 0x7f0000001000ULL, 2 * SZ_4K, dma,
				 dlen, 1);
	err = rocx_ib_pbl_from_umem(pbl, dev, umem, rocx_ib_pgsz_bitmap(~0ULL),
				    0, &offset);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, offset, 0);
	KUNIT_EXPECT_EQ(test, pbl->page_shift, 12);
	KUNIT_EXPECT_EQ(test, pbl->npages, 2);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl->tbl[0][1]), 0x12346000ULL);
}

static struct kunit_case rocx_ib_pbl_cases[] = {
	KUNIT_CASE_PARAM(rocx_ib_pbl_levels_test, rocx_ib_levels_gen_params),
	KUNIT_CASE(rocx_ib_pgsz_bitmap_test),
	KUNIT_CASE(rocx_ib_pbl_level0_test),
	KUNIT_CASE(rocx_ib_pbl_level1_test),
	KUNIT_CASE(rocx_ib_pbl_level2_test),
	KUNIT_CASE(rocx_ib_pbl_init_bad_test),
	KUNIT_CASE(rocx_ib_pbl_umem_pages_test),
	KUNIT_CASE(rocx_ib_pbl_umem_offset_test),
	KUNIT_CASE(rocx_ib_pbl_umem_huge_test),
	KUNIT_CASE(rocx_ib_pbl_umem_queue_test),
	{}
};

static struct kunit_suite rocx_ib_pbl_suite = {
	.name = "rocx_ib_pbl",
	.test_cases = rocx_ib_pbl_cases,
};

/* ---------------- rocx_ib_mr ---------------- */

struct rocx_ib_access_case {
	const char *desc;
	int ib;
	int err;
	u32 rocx;
};

static const struct rocx_ib_access_case rocx_ib_access_cases[] = {
	{ "none", 0, 0, 0 },
	{ "local_write", IB_ACCESS_LOCAL_WRITE, 0, ROCX_ACCESS_LOCAL_WRITE },
	{ "remote_write", IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE, 0,
	  ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE },
	{ "remote_read", IB_ACCESS_REMOTE_READ, 0, ROCX_ACCESS_REMOTE_READ },
	{ "remote_atomic", IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC, 0,
	  ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_ATOMIC },
	{ "all", IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC, 0,
	  ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
	  ROCX_ACCESS_REMOTE_READ | ROCX_ACCESS_REMOTE_ATOMIC },
	{ "relaxed_ordering_ignored",
	  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_RELAXED_ORDERING, 0,
	  ROCX_ACCESS_LOCAL_WRITE },
	{ "hugetlb_hint_ignored", IB_ACCESS_REMOTE_READ | IB_ACCESS_HUGETLB, 0,
	  ROCX_ACCESS_REMOTE_READ },
	{ "mw_bind", IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND, -EOPNOTSUPP },
	{ "zero_based", IB_ZERO_BASED, -EOPNOTSUPP },
	{ "on_demand", IB_ACCESS_ON_DEMAND, -EOPNOTSUPP },
	{ "flush_global", IB_ACCESS_FLUSH_GLOBAL, -EOPNOTSUPP },
	{ "flush_persistent", IB_ACCESS_FLUSH_PERSISTENT, -EOPNOTSUPP },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_access, rocx_ib_access_cases, desc);

static void rocx_ib_mr_access_test(struct kunit *test)
{
	const struct rocx_ib_access_case *c = test->param_value;
	u32 access = 0xdead;

	KUNIT_ASSERT_EQ(test, rocx_ib_mr_access(c->ib, 0, &access), c->err);
	if (c->err)
		return;
	KUNIT_EXPECT_EQ(test, access, c->rocx);
	/* QUERY_QP's way back gives the rights, without the hints. */
	KUNIT_EXPECT_EQ(test, rocx_ib_access_to_ib(access),
			c->ib & ~(IB_ACCESS_RELAXED_ORDERING |
				  IB_ACCESS_HUGETLB));
}

/* The contract's bits, as the device reads them. */
static void rocx_ib_access_bits_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rocx_ib_access(IB_ACCESS_LOCAL_WRITE), 1U);
	KUNIT_EXPECT_EQ(test, rocx_ib_access(IB_ACCESS_REMOTE_WRITE), 2U);
	KUNIT_EXPECT_EQ(test, rocx_ib_access(IB_ACCESS_REMOTE_READ), 4U);
	KUNIT_EXPECT_EQ(test, rocx_ib_access(IB_ACCESS_REMOTE_ATOMIC), 8U);
	/* Bit 4 is 1.2's MW_BIND; the bits above it mean nothing. */
	KUNIT_EXPECT_EQ(test, ROCX_ACCESS_MW_BIND, 0x10U);
	KUNIT_EXPECT_EQ(test, rocx_ib_access_to_ib(ROCX_ACCESS_MW_BIND),
			IB_ACCESS_MW_BIND);
	KUNIT_EXPECT_EQ(test, rocx_ib_access_to_ib(0xe0), 0);
}

/* With ROCX_CAP2_MW an MR may have windows bound to it. */
static void rocx_ib_mr_access_mw_test(struct kunit *test)
{
	u32 access = 0;

	KUNIT_ASSERT_EQ(test, rocx_ib_mr_access(IB_ACCESS_LOCAL_WRITE |
						IB_ACCESS_MW_BIND,
						ROCX_CAP2_MW, &access), 0);
	KUNIT_EXPECT_EQ(test, access,
			ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_MW_BIND);
	KUNIT_EXPECT_EQ(test, rocx_ib_access_to_ib(access),
			IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND);
	/* Still nothing the device cannot do. */
	KUNIT_EXPECT_EQ(test, rocx_ib_mr_access(IB_ZERO_BASED, ROCX_CAP2_MW,
						&access), -EOPNOTSUPP);
}

static struct kunit_case rocx_ib_mr_cases[] = {
	KUNIT_CASE_PARAM(rocx_ib_mr_access_test, rocx_ib_access_gen_params),
	KUNIT_CASE(rocx_ib_mr_access_mw_test),
	KUNIT_CASE(rocx_ib_access_bits_test),
	{}
};

static struct kunit_suite rocx_ib_mr_suite = {
	.name = "rocx_ib_mr",
	.test_cases = rocx_ib_mr_cases,
};

/* ---------------- rocx_ib_cq ---------------- */

static void rocx_ib_test_identify(struct rocx_identify *id)
{
	memset(id, 0, sizeof(*id));
	id->max_qp_wr = cpu_to_le32(4096);
	id->max_sge = cpu_to_le32(8);
	id->max_inline = cpu_to_le32(256);
	id->max_cqe = cpu_to_le32(65536);
	id->max_rd_atom = cpu_to_le32(16);
}

struct rocx_ib_cq_case {
	const char *desc;
	int cqe;
	u64 buf_addr;
	u32 log_depth;
	u32 comp_mask;
	int err;
};

static const struct rocx_ib_cq_case rocx_ib_cq_cases[] = {
	{ "min", 1, 0x10000, 1, 0, 0 },
	{ "exact", 512, 0x10000, 9, 0, 0 },
	{ "max", 65536, 0x10000, 16, 0, 0 },
	{ "depth_0", 1, 0x10000, 0, 0, -EINVAL },
	{ "depth_17", 1, 0x10000, 17, 0, -EINVAL },
	{ "too_small", 513, 0x10000, 9, 0, -EINVAL },
	{ "no_cqe", 0, 0x10000, 4, 0, -EINVAL },
	{ "negative_cqe", -1, 0x10000, 4, 0, -EINVAL },
	{ "unaligned", 16, 0x10040, 4, 0, -EINVAL },
	{ "null", 16, 0, 4, 0, -EINVAL },
	/* A newer provider asking for something this kernel does not have. */
	{ "unknown_comp_mask", 16, 0x10000, 4, 1, -EOPNOTSUPP },
	{ "comp_mask_high_bit", 16, 0x10000, 4, 0x80000000, -EOPNOTSUPP },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_cq, rocx_ib_cq_cases, desc);

static void rocx_ib_cq_check_test(struct kunit *test)
{
	const struct rocx_ib_cq_case *c = test->param_value;
	struct rocx_create_cq_req req = {
		.buf_addr = c->buf_addr,
		.log_depth = c->log_depth,
		.comp_mask = c->comp_mask,
	};
	struct rocx_identify id;

	rocx_ib_test_identify(&id);
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, c->cqe, &req), c->err);
}

/* A device with fewer CQEs than the contract allows. */
static void rocx_ib_cq_check_limit_test(struct kunit *test)
{
	struct rocx_create_cq_req req = { .buf_addr = 0x1000, .log_depth = 10 };
	struct rocx_identify id;

	rocx_ib_test_identify(&id);
	id.max_cqe = cpu_to_le32(1000);
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 1000, &req), -EINVAL);
	req.log_depth = 9;
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 512, &req), 0);
}

/*
 * CQE formats: offered only by a device with ROCX_CAP2_CQE64, and then
 * only those IDENTIFY.cqe_formats names; no format without its bit.
 */
static void rocx_ib_cq_check_format_test(struct kunit *test)
{
	struct rocx_create_cq_req req = {
		.buf_addr = 0x10000,
		.log_depth = 4,
		.comp_mask = ROCX_CREATE_CQ_REQ_CQE_FORMAT,
		.cqe_format = ROCX_CQE_FORMAT_64,
	};
	struct rocx_identify id;

	rocx_ib_test_identify(&id);
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_req_comp(&id), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 16, &req), -EOPNOTSUPP);

	id.caps2 = cpu_to_le64(ROCX_CAP2_CQE64);
	id.cqe_formats = cpu_to_le32(BIT(ROCX_CQE_FORMAT_32) |
				     BIT(ROCX_CQE_FORMAT_64));
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_req_comp(&id),
			(u32)ROCX_CREATE_CQ_REQ_CQE_FORMAT);
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 16, &req), 0);
	req.cqe_format = ROCX_CQE_FORMAT_32;
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 16, &req), 0);
	req.cqe_format = 2;
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 16, &req), -EINVAL);
	req.cqe_format = 0xffffffff;
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 16, &req), -EINVAL);
	/* A format without its bit. */
	req.comp_mask = 0;
	req.cqe_format = ROCX_CQE_FORMAT_64;
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 16, &req), -EINVAL);
	req.comp_mask = ROCX_CREATE_CQ_REQ_CQE_FORMAT;
	req.reserved = 1;
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 16, &req), -EINVAL);
	/* A device that names only format 0. */
	req.reserved = 0;
	id.cqe_formats = cpu_to_le32(BIT(ROCX_CQE_FORMAT_32));
	KUNIT_EXPECT_EQ(test, rocx_ib_cq_check(&id, 16, &req), -EINVAL);
}

/* A new ring for RESIZE_CQ: CREATE_CQ's rules, no request bits yet. */
static void rocx_ib_resize_cq_check_test(struct kunit *test)
{
	struct rocx_resize_cq_req req = { .buf_addr = 0x10000, .log_depth = 3 };
	struct rocx_identify id;

	rocx_ib_test_identify(&id);
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_cq_check(&id, 7, &req), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_cq_check(&id, 8, &req), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_cq_check(&id, 9, &req), -EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_cq_check(&id, 0, &req), -EINVAL);
	req.log_depth = 0;
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_cq_check(&id, 1, &req), -EINVAL);
	req.log_depth = 17;
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_cq_check(&id, 1, &req), -EINVAL);
	req.log_depth = 3;
	req.buf_addr = 0x10040;
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_cq_check(&id, 1, &req), -EINVAL);
	req.buf_addr = 0;
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_cq_check(&id, 1, &req), -EINVAL);
	req.buf_addr = 0x10000;
	req.comp_mask = 1;
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_cq_check(&id, 1, &req),
			-EOPNOTSUPP);
}

static struct kunit_case rocx_ib_cq_test_cases[] = {
	KUNIT_CASE_PARAM(rocx_ib_cq_check_test, rocx_ib_cq_gen_params),
	KUNIT_CASE(rocx_ib_cq_check_limit_test),
	KUNIT_CASE(rocx_ib_cq_check_format_test),
	KUNIT_CASE(rocx_ib_resize_cq_check_test),
	{}
};

static struct kunit_suite rocx_ib_cq_suite = {
	.name = "rocx_ib_cq",
	.test_cases = rocx_ib_cq_test_cases,
};

/* ---------------- rocx_ib_qp ---------------- */

struct rocx_ib_mask_case {
	const char *desc;
	int ib;
	int err;
	u32 valid;
};

static const struct rocx_ib_mask_case rocx_ib_mask_cases[] = {
	{ "state", IB_QP_STATE, 0, ROCX_QP_ATTR_STATE },
	{ "cur_state_port", IB_QP_CUR_STATE | IB_QP_PORT, 0, 0 },
	{ "access", IB_QP_ACCESS_FLAGS, 0, ROCX_QP_ATTR_ACCESS },
	{ "pkey", IB_QP_PKEY_INDEX, 0, ROCX_QP_ATTR_PKEY_INDEX },
	{ "qkey", IB_QP_QKEY, 0, ROCX_QP_ATTR_QKEY },
	{ "av", IB_QP_AV, 0, ROCX_QP_ATTR_AV },
	{ "path_mtu", IB_QP_PATH_MTU, 0, ROCX_QP_ATTR_PATH_MTU },
	{ "timeout", IB_QP_TIMEOUT, 0, ROCX_QP_ATTR_TIMEOUT },
	{ "retry_cnt", IB_QP_RETRY_CNT, 0, ROCX_QP_ATTR_RETRY_CNT },
	{ "rnr_retry", IB_QP_RNR_RETRY, 0, ROCX_QP_ATTR_RNR_RETRY },
	{ "rq_psn", IB_QP_RQ_PSN, 0, ROCX_QP_ATTR_RQ_PSN },
	{ "max_rd_atomic", IB_QP_MAX_QP_RD_ATOMIC, 0,
	  ROCX_QP_ATTR_MAX_RD_ATOMIC },
	{ "min_rnr_timer", IB_QP_MIN_RNR_TIMER, 0, ROCX_QP_ATTR_MIN_RNR_TIMER },
	{ "sq_psn", IB_QP_SQ_PSN, 0, ROCX_QP_ATTR_SQ_PSN },
	{ "max_dest_rd_atomic", IB_QP_MAX_DEST_RD_ATOMIC, 0,
	  ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC },
	{ "dest_qpn", IB_QP_DEST_QPN, 0, ROCX_QP_ATTR_DEST_QPN },
	{ "reset_to_init", IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS, 0,
	  ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_PKEY_INDEX | ROCX_QP_ATTR_ACCESS },
	{ "init_to_rtr", IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			 IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER, 0,
	  ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_AV | ROCX_QP_ATTR_PATH_MTU |
	  ROCX_QP_ATTR_DEST_QPN | ROCX_QP_ATTR_RQ_PSN |
	  ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC | ROCX_QP_ATTR_MIN_RNR_TIMER },
	{ "rtr_to_rts", IB_QP_STATE | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			IB_QP_MAX_QP_RD_ATOMIC, 0,
	  ROCX_QP_ATTR_STATE | ROCX_QP_ATTR_TIMEOUT | ROCX_QP_ATTR_RETRY_CNT |
	  ROCX_QP_ATTR_RNR_RETRY | ROCX_QP_ATTR_SQ_PSN |
	  ROCX_QP_ATTR_MAX_RD_ATOMIC },
	{ "alt_path", IB_QP_STATE | IB_QP_ALT_PATH, -EOPNOTSUPP },
	{ "sqd_notify", IB_QP_EN_SQD_ASYNC_NOTIFY, -EOPNOTSUPP },
	{ "path_mig", IB_QP_PATH_MIG_STATE, -EOPNOTSUPP },
	{ "cap", IB_QP_CAP, -EOPNOTSUPP },
	{ "rate_limit", IB_QP_RATE_LIMIT, -EOPNOTSUPP },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_mask, rocx_ib_mask_cases, desc);

static void rocx_ib_qp_attr_mask_test(struct kunit *test)
{
	const struct rocx_ib_mask_case *c = test->param_value;
	u32 valid = 0;

	KUNIT_ASSERT_EQ(test, rocx_ib_qp_attr_mask(c->ib, &valid), c->err);
	if (!c->err)
		KUNIT_EXPECT_EQ(test, valid, c->valid);
}

struct rocx_ib_mtu_map_case {
	const char *desc;
	enum ib_mtu ib;
	int path_mtu;
};

static const struct rocx_ib_mtu_map_case rocx_ib_mtu_map_cases[] = {
	{ "256", IB_MTU_256, 1 },
	{ "512", IB_MTU_512, 2 },
	{ "1024", IB_MTU_1024, 3 },
	{ "2048", IB_MTU_2048, 4 },
	{ "4096", IB_MTU_4096, 5 },
	{ "zero", 0, -EINVAL },
	{ "above", IB_MTU_4096 + 1, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_mtu_map, rocx_ib_mtu_map_cases, desc);

static void rocx_ib_path_mtu_test(struct kunit *test)
{
	const struct rocx_ib_mtu_map_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ib_path_mtu(c->ib), c->path_mtu);
	if (c->path_mtu > 0)
		KUNIT_EXPECT_EQ(test, rocx_ib_mtu_of_path(c->path_mtu), c->ib);
}

static void rocx_ib_mtu_of_path_bad_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rocx_ib_mtu_of_path(0), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_mtu_of_path(6), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_mtu_of_path(0xff), 0);
}

struct rocx_ib_net_case {
	const char *desc;
	enum rdma_network_type in;
	int out;
};

static const struct rocx_ib_net_case rocx_ib_net_cases[] = {
	{ "roce_v1", RDMA_NETWORK_ROCE_V1, ROCX_NET_ROCE_V1 },
	{ "roce_v2_ipv4", RDMA_NETWORK_IPV4, ROCX_NET_ROCE_V2_IPV4 },
	{ "roce_v2_ipv6", RDMA_NETWORK_IPV6, ROCX_NET_ROCE_V2_IPV6 },
	{ "ib", RDMA_NETWORK_IB, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_net, rocx_ib_net_cases, desc);

static void rocx_ib_net_type_test(struct kunit *test)
{
	const struct rocx_ib_net_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rocx_ib_net_type(c->in), c->out);
}

static void rocx_ib_qp_state_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_state_of(ROCX_QPS_RESET), IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_state_of(ROCX_QPS_INIT), IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_state_of(ROCX_QPS_RTR), IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_state_of(ROCX_QPS_RTS), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_state_of(ROCX_QPS_SQD), IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_state_of(ROCX_QPS_SQE), IB_QPS_SQE);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_state_of(ROCX_QPS_ERR), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_state_of(7), IB_QPS_ERR);
}

static void rocx_ib_qp_event_type_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_event_type(ROCX_VERR_NAK_INVALID),
			IB_EVENT_QP_REQ_ERR);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_event_type(ROCX_VERR_BAD_LKEY),
			IB_EVENT_QP_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_event_type(ROCX_VERR_LKEY_BOUNDS),
			IB_EVENT_QP_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_event_type(ROCX_VERR_LKEY_ACCESS),
			IB_EVENT_QP_ACCESS_ERR);
	/* A failed CQ, a bad WQE, DMA: the QP is simply lost. */
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_event_type(ROCX_VERR_NONE),
			IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_event_type(ROCX_VERR_BAD_WQE),
			IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_event_type(ROCX_VERR_DMA),
			IB_EVENT_QP_FATAL);
	/* The port's MTU fell below the QP's path MTU. */
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_event_type(ROCX_VERR_PATH_MTU),
			IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_event_type(~0ULL), IB_EVENT_QP_FATAL);
}

/*
 * A path MTU fits a netdev MTU when its packets do, RoCE headers
 * included: exactly the IB MTUs up to the active MTU query_port reports.
 */
static void rocx_ib_path_mtu_fits_test(struct kunit *test)
{
	static const struct {
		unsigned int netdev_mtu;
		enum ib_mtu largest;
	} b[] = {
		{ 68, 0 }, { 351, 0 }, { 352, IB_MTU_256 },
		{ 1119, IB_MTU_512 }, { 1120, IB_MTU_1024 },
		{ 1500, IB_MTU_1024 }, { 4191, IB_MTU_2048 },
		{ 4192, IB_MTU_4096 }, { 9000, IB_MTU_4096 },
	};
	enum ib_mtu m;
	unsigned int i, n;
	bool active;

	for (i = 0; i < ARRAY_SIZE(b); i++)
		for (m = IB_MTU_256; m <= IB_MTU_4096; m++)
			KUNIT_EXPECT_EQ_MSG(test,
					    rocx_ib_path_mtu_fits(m, b[i].netdev_mtu),
					    m <= b[i].largest, "netdev MTU %u, %d",
					    b[i].netdev_mtu, ib_mtu_enum_to_int(m));
	/* The device's rule is ib_core's active MTU, at every netdev MTU. */
	for (n = 0; n <= 9100; n++) {
		for (m = IB_MTU_256; m <= IB_MTU_4096; m++) {
			active = m <= rocx_ib_mtu_from_netdev(n);
			if (rocx_ib_path_mtu_fits(m, n) != active)
				KUNIT_FAIL(test, "netdev MTU %u, IB MTU %d", n,
					   ib_mtu_enum_to_int(m));
		}
	}
	KUNIT_EXPECT_FALSE(test, rocx_ib_path_mtu_fits(0, 9000));
	KUNIT_EXPECT_FALSE(test, rocx_ib_path_mtu_fits(IB_MTU_4096 + 1, 9000));
}

/* MODIFY_QP for INIT->RTR and RTR->RTS, byte for byte. */
static void rocx_ib_qp_attr_encode_test(struct kunit *test)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = IB_MTU_1024,
		.dest_qp_num = 0x1abcdef,	/* only 24 bits go */
		.rq_psn = 0xff123456,
		.sq_psn = 0x654321,
		.max_dest_rd_atomic = 4,
		.max_rd_atomic = 3,
		.min_rnr_timer = 12,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 6,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
		.qkey = 0x11111111,
	};
	struct rocx_qp_attr qa = {};
	u32 valid;

	KUNIT_ASSERT_EQ(test, rocx_ib_qp_attr_mask(IB_QP_STATE | IB_QP_PATH_MTU |
			IB_QP_DEST_QPN | IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			IB_QP_MIN_RNR_TIMER | IB_QP_ACCESS_FLAGS, &valid), 0);
	KUNIT_ASSERT_EQ(test, rocx_ib_qp_attr_encode(&attr, valid, &qa), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(qa.valid), valid);
	KUNIT_EXPECT_EQ(test, qa.state, ROCX_QPS_RTR);
	KUNIT_EXPECT_EQ(test, qa.path_mtu, 3);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(qa.dest_qpn), 0xabcdef);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(qa.rq_psn), 0x123456);
	KUNIT_EXPECT_EQ(test, qa.max_dest_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, qa.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(qa.access),
			ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ);
	/* Fields outside the mask are left alone. */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(qa.sq_psn), 0);
	KUNIT_EXPECT_EQ(test, qa.timeout, 0);
	KUNIT_EXPECT_EQ(test, qa.retry_cnt, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(qa.qkey), 0);

	memset(&qa, 0, sizeof(qa));
	attr.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, rocx_ib_qp_attr_mask(IB_QP_STATE | IB_QP_SQ_PSN |
			IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC, &valid), 0);
	KUNIT_ASSERT_EQ(test, rocx_ib_qp_attr_encode(&attr, valid, &qa), 0);
	KUNIT_EXPECT_EQ(test, qa.state, ROCX_QPS_RTS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(qa.sq_psn), 0x654321);
	KUNIT_EXPECT_EQ(test, qa.timeout, 14);
	KUNIT_EXPECT_EQ(test, qa.retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, qa.rnr_retry, 6);
	KUNIT_EXPECT_EQ(test, qa.max_rd_atomic, 3);
	KUNIT_EXPECT_EQ(test, qa.path_mtu, 0);

	attr.path_mtu = 0;
	KUNIT_EXPECT_EQ(test,
			rocx_ib_qp_attr_encode(&attr, ROCX_QP_ATTR_PATH_MTU, &qa),
			-EINVAL);
	attr.qp_state = IB_QPS_ERR + 1;
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_attr_encode(&attr, ROCX_QP_ATTR_STATE,
						     &qa), -EINVAL);
}

/* The AV as the device reads it: offsets of struct rocx_av. */
static void rocx_ib_av_encode_test(struct kunit *test)
{
	static const u8 dmac[ETH_ALEN] = { 0x52, 0x54, 0, 0, 0, 2 };
	struct ib_global_route grh = {
		.flow_label = 0xfabcde,	/* only 20 bits go */
		.sgid_index = 3,
		.hop_limit = 64,
		.traffic_class = 0x68,
	};
	u8 raw[sizeof(struct rocx_av)];
	struct rocx_av av = {};
	unsigned int i;

	for (i = 0; i < 16; i++)
		grh.dgid.raw[i] = i + 1;
	rocx_ib_av_encode(&av, &grh, dmac, 100, ROCX_NET_ROCE_V2_IPV4, 0);
	memcpy(raw, &av, sizeof(raw));
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, raw[i], i + 1);
	KUNIT_EXPECT_MEMEQ(test, &raw[16], dmac, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, raw[22], 100);	/* vlan, le16 */
	KUNIT_EXPECT_EQ(test, raw[23], 0);
	KUNIT_EXPECT_EQ(test, raw[24], 0xde);	/* flow label, le32 */
	KUNIT_EXPECT_EQ(test, raw[25], 0xbc);
	KUNIT_EXPECT_EQ(test, raw[26], 0x0a);
	KUNIT_EXPECT_EQ(test, raw[27], 0);
	KUNIT_EXPECT_EQ(test, raw[28], 3);	/* sgid_index */
	KUNIT_EXPECT_EQ(test, raw[29], 64);	/* hop_limit */
	KUNIT_EXPECT_EQ(test, raw[30], 0x68);	/* traffic_class */
	KUNIT_EXPECT_EQ(test, raw[31], ROCX_NET_ROCE_V2_IPV4);

	memset(&av, 0, sizeof(av));
	rocx_ib_av_encode(&av, &grh, dmac, ROCX_VLAN_NONE, ROCX_NET_ROCE_V1, 5);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(av.vlan), ROCX_VLAN_NONE);
	KUNIT_EXPECT_EQ(test, av.net_type, ROCX_NET_ROCE_V1);
	/* The priority in [22:20], beside the flow label; only 3 bits. */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av.flow_label), 0x5abcde);
	memset(&av, 0, sizeof(av));
	rocx_ib_av_encode(&av, &grh, dmac, ROCX_VLAN_NONE, ROCX_NET_ROCE_V1, 0xf);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av.flow_label), 0x7abcde);
}

struct rocx_ib_qp_case {
	const char *desc;
	struct ib_qp_cap cap;
	struct rocx_create_qp_req req;
	int err;
};

#define ROCX_IB_REQ(sql, rql, sqs, rqs) \
	{ .buf_addr = 0x100000, .sq_log_depth = (sql), .rq_log_depth = (rql), \
	  .sq_wqe_shift = (sqs), .rq_wqe_shift = (rqs) }

static const struct rocx_ib_qp_case rocx_ib_qp_cases[] = {
	/* What ibv_rc_pingpong asks for. */
	{ "pingpong", { 1, 500, 1, 1, 0 }, ROCX_IB_REQ(1, 9, 7, 5), 0 },
	{ "max", { 4096, 4096, 8, 8, 256 }, ROCX_IB_REQ(12, 12, 9, 8), 0 },
	{ "no_rq", { 16, 0, 1, 0, 0 }, ROCX_IB_REQ(4, 0, 7, 0), 0 },
	{ "no_rq_but_sge", { 16, 0, 1, 2, 0 }, ROCX_IB_REQ(4, 0, 7, 0), 0 },
	{ "no_rq_but_wr", { 16, 1, 1, 0, 0 }, ROCX_IB_REQ(4, 0, 7, 0),
	  -EINVAL },
	{ "sq_too_shallow", { 17, 1, 1, 1, 0 }, ROCX_IB_REQ(4, 1, 7, 5),
	  -EINVAL },
	{ "rq_too_shallow", { 1, 3, 1, 1, 0 }, ROCX_IB_REQ(1, 1, 7, 5),
	  -EINVAL },
	{ "sq_too_deep", { 1, 1, 1, 1, 0 }, ROCX_IB_REQ(13, 1, 7, 5),
	  -EINVAL },
	{ "sq_depth_0", { 1, 1, 1, 1, 0 }, ROCX_IB_REQ(0, 1, 7, 5), -EINVAL },
	{ "too_many_wr", { 4097, 1, 1, 1, 0 }, ROCX_IB_REQ(13, 1, 7, 5),
	  -EINVAL },
	{ "too_many_sge", { 1, 1, 9, 1, 0 }, ROCX_IB_REQ(1, 1, 10, 5),
	  -EINVAL },
	{ "too_much_inline", { 1, 1, 1, 1, 257 }, ROCX_IB_REQ(1, 1, 10, 5),
	  -EINVAL },
	{ "sq_wqe_too_small_sge", { 1, 1, 2, 1, 0 }, ROCX_IB_REQ(1, 1, 6, 5),
	  -EINVAL },
	{ "sq_wqe_too_small_inline", { 1, 1, 1, 1, 65 },
	  ROCX_IB_REQ(1, 1, 7, 5), -EINVAL },
	{ "sq_wqe_shift_11", { 1, 1, 1, 1, 0 }, ROCX_IB_REQ(1, 1, 11, 5),
	  -EINVAL },
	{ "rq_wqe_too_small", { 1, 1, 1, 2, 0 }, ROCX_IB_REQ(1, 1, 7, 5),
	  -EINVAL },
	{ "rq_wqe_shift_3", { 1, 1, 1, 0, 0 }, ROCX_IB_REQ(1, 1, 7, 3),
	  -EINVAL },
	{ "rq_wqe_shift_10", { 1, 1, 1, 1, 0 }, ROCX_IB_REQ(1, 1, 7, 10),
	  -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_qp, rocx_ib_qp_cases, desc);

/* What a UD AH's response hands the provider: MAC, VLAN, headers. */
static void rocx_ib_ah_resp_test(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct rocx_create_ah_resp resp = {};
	struct rocx_av av = {};

	ether_addr_copy(av.dmac, mac);
	av.vlan = cpu_to_le16(100);
	av.net_type = ROCX_NET_ROCE_V2_IPV6;
	rocx_ib_ah_resp(&av, &resp);
	KUNIT_EXPECT_MEMEQ(test, resp.dmac, mac, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, resp.vlan, 100);
	KUNIT_EXPECT_EQ(test, resp.net_type, ROCX_NET_ROCE_V2_IPV6);
	KUNIT_EXPECT_EQ(test, resp.comp_mask, 0);

	memset(&resp, 0, sizeof(resp));
	av.vlan = cpu_to_le16(ROCX_VLAN_NONE);
	av.net_type = ROCX_NET_ROCE_V1;
	rocx_ib_ah_resp(&av, &resp);
	KUNIT_EXPECT_EQ(test, resp.vlan, 0xffff);
	KUNIT_EXPECT_EQ(test, resp.net_type, ROCX_NET_ROCE_V1);
}

static void rocx_ib_qp_check_test(struct kunit *test)
{
	const struct rocx_ib_qp_case *c = test->param_value;
	struct rocx_identify id;

	rocx_ib_test_identify(&id);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_check(&id, &c->cap, &c->req), c->err);
}

static void rocx_ib_qp_check_buf_test(struct kunit *test)
{
	struct rocx_create_qp_req req = ROCX_IB_REQ(1, 1, 7, 5);
	struct ib_qp_cap cap = { 1, 1, 1, 1, 0 };
	struct rocx_identify id;

	rocx_ib_test_identify(&id);
	req.buf_addr = 0x100800;
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_check(&id, &cap, &req), -EINVAL);
	req.buf_addr = 0;
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_check(&id, &cap, &req), -EINVAL);
	req.buf_addr = 0x100000;
	req.comp_mask = 1;
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_check(&id, &cap, &req), -EOPNOTSUPP);
}

/*
 * A doorbell record: offered and taken only with the device's bit; it
 * follows the queues in the buffer the kernel pins.
 */
static void rocx_ib_qp_db_record_test(struct kunit *test)
{
	struct rocx_create_qp_req req = ROCX_IB_REQ(1, 1, 7, 5);
	struct ib_qp_cap cap = { 1, 1, 1, 1, 0 };
	struct rocx_identify id;

	rocx_ib_test_identify(&id);
	req.comp_mask = ROCX_CREATE_QP_REQ_DB_RECORD;
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_req_comp(&id), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_check(&id, &cap, &req), -EOPNOTSUPP);

	id.caps2 = cpu_to_le64(ROCX_CAP2_DB_RECORD);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_req_comp(&id),
			(u32)ROCX_CREATE_QP_REQ_DB_RECORD);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_check(&id, &cap, &req), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_buf_size(&req),
			2 * 128 + 2 * 32 + ROCX_DB_RECORD_SIZE);
	/* A bit this kernel does not know is still refused. */
	req.comp_mask |= 1U << 1;
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_check(&id, &cap, &req), -EOPNOTSUPP);
}

/* The capabilities reported back are what the queues really hold. */
static void rocx_ib_qp_caps_test(struct kunit *test)
{
	struct rocx_create_qp_req req = ROCX_IB_REQ(1, 9, 7, 5);
	struct rocx_identify id;
	struct ib_qp_cap cap;

	rocx_ib_test_identify(&id);
	rocx_ib_qp_caps(&id, &req, &cap);
	KUNIT_EXPECT_EQ(test, cap.max_send_wr, 2);
	KUNIT_EXPECT_EQ(test, cap.max_recv_wr, 512);
	KUNIT_EXPECT_EQ(test, cap.max_send_sge, 4);	/* (128 - 64) / 16 */
	KUNIT_EXPECT_EQ(test, cap.max_recv_sge, 1);	/* (32 - 16) / 16 */
	KUNIT_EXPECT_EQ(test, cap.max_inline_data, 64);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_buf_size(&req), 2 * 128 + 512 * 32);

	/* Large WQEs: the device's limits cap what they could hold. */
	req = (struct rocx_create_qp_req)ROCX_IB_REQ(15, 15, 10, 9);
	rocx_ib_qp_caps(&id, &req, &cap);
	KUNIT_EXPECT_EQ(test, cap.max_send_wr, 32768);
	KUNIT_EXPECT_EQ(test, cap.max_send_sge, 8);
	KUNIT_EXPECT_EQ(test, cap.max_recv_sge, 8);
	KUNIT_EXPECT_EQ(test, cap.max_inline_data, 256);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_buf_size(&req),
			(size_t)32768 * 1024 + (size_t)32768 * 512);

	/* No receive queue. */
	req = (struct rocx_create_qp_req)ROCX_IB_REQ(4, 0, 6, 0);
	rocx_ib_qp_caps(&id, &req, &cap);
	KUNIT_EXPECT_EQ(test, cap.max_recv_wr, 0);
	KUNIT_EXPECT_EQ(test, cap.max_recv_sge, 0);
	KUNIT_EXPECT_EQ(test, cap.max_send_sge, 0);
	KUNIT_EXPECT_EQ(test, cap.max_inline_data, 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_buf_size(&req), 16 * 64);
}

/* CQs and an SRQ with known numbers, for the CREATE_QP encoder. */
struct rocx_ib_create_qp_objs {
	struct rocx_ib_cq scq;
	struct rocx_ib_cq rcq;
	struct rocx_ib_srq srq;
	struct rocx_ib_pbl pbl;
};

static struct rocx_ib_create_qp_objs *
rocx_ib_create_qp_objs(struct kunit *test, struct ib_qp_init_attr *init)
{
	struct rocx_ib_create_qp_objs *o;

	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	o->scq.cqn = 0x01020304;
	o->rcq.cqn = 0x05060708;
	o->srq.srqn = 0x0a0b0c0d;
	/* A one-level list: the command carries its table's address. */
	o->pbl.npages = 0x11223344;
	o->pbl.page_shift = 21;
	o->pbl.levels = 0;
	o->pbl.addr0 = 0x8877665544332211ULL;
	memset(init, 0, sizeof(*init));
	init->send_cq = &o->scq.ibcq;
	init->recv_cq = &o->rcq.ibcq;
	return o;
}

/* The bytes every CREATE_QP below shares: opcode, layout, PD, CQs, PBL. */
static void rocx_ib_create_qp_want(u8 *want, u8 type, u8 flags)
{
	static const u8 pbl[16] = {
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* addr */
		0x44, 0x33, 0x22, 0x11,	/* npages */
		21, 0,			/* page_shift, levels */
	};

	memset(want, 0, sizeof(struct rocx_aq_create_qp));
	want[0] = ROCX_AQ_OP_CREATE_QP;	/* opcode, le16 */
	want[8] = type;
	want[9] = flags;
	want[10] = 7;			/* sq_log_depth */
	want[11] = 9;			/* rq_log_depth */
	want[12] = 8;			/* sq_wqe_shift */
	want[13] = 5;			/* rq_wqe_shift */
	want[16] = 0x2a;		/* pdn, le32 */
	want[20] = 0x04;		/* send_cqn, le32 */
	want[21] = 0x03;
	want[22] = 0x02;
	want[23] = 0x01;
	want[24] = 0x08;		/* recv_cqn, le32 */
	want[25] = 0x07;
	want[26] = 0x06;
	want[27] = 0x05;
	memset(&want[28], 0xff, 4);	/* srqn: ROCX_NO_SRQ */
	memcpy(&want[40], pbl, sizeof(pbl));
}

/* A kernel QP: every WR signalled, no SRQ, no user context. */
static void rocx_ib_qp_create_cmd_kernel_test(struct kunit *test)
{
	struct rocx_create_qp_req req = ROCX_IB_REQ(7, 9, 8, 5);
	u8 want[sizeof(struct rocx_aq_create_qp)];
	struct rocx_ib_create_qp_objs *o;
	struct rocx_aq_create_qp cmd;
	struct ib_qp_init_attr init;

	o = rocx_ib_create_qp_objs(test, &init);
	init.sq_sig_type = IB_SIGNAL_ALL_WR;
	memset(&cmd, 0x5a, sizeof(cmd));	/* every byte is written */
	rocx_ib_qp_create_cmd(&cmd, &init, ROCX_QPT_RC, 0, &req, 0x2a, 0,
			      &o->pbl);
	rocx_ib_create_qp_want(want, ROCX_QPT_RC, ROCX_QP_SQ_SIG_ALL);
	KUNIT_EXPECT_MEMEQ(test, &cmd, want, sizeof(want));

	/* UD with multicast loopback off: the flags add up. */
	rocx_ib_qp_create_cmd(&cmd, &init, ROCX_QPT_UD, ROCX_QP_NO_MC_LOOPBACK,
			      &req, 0x2a, 0, &o->pbl);
	rocx_ib_create_qp_want(want, ROCX_QPT_UD,
			       ROCX_QP_SQ_SIG_ALL | ROCX_QP_NO_MC_LOOPBACK);
	KUNIT_EXPECT_MEMEQ(test, &cmd, want, sizeof(want));

	/* A doorbell record asked for: its flag, nothing else changes. */
	req.comp_mask = ROCX_CREATE_QP_REQ_DB_RECORD;
	rocx_ib_qp_create_cmd(&cmd, &init, ROCX_QPT_RC, 0, &req, 0x2a, 0,
			      &o->pbl);
	rocx_ib_create_qp_want(want, ROCX_QPT_RC,
			       ROCX_QP_SQ_SIG_ALL | ROCX_QP_DB_RECORD);
	KUNIT_EXPECT_MEMEQ(test, &cmd, want, sizeof(want));
}

/* A user QP: its context, an SRQ; an XRC initiator without receive CQ. */
static void rocx_ib_qp_create_cmd_user_test(struct kunit *test)
{
	struct rocx_create_qp_req req = ROCX_IB_REQ(7, 9, 8, 5);
	u8 want[sizeof(struct rocx_aq_create_qp)];
	struct rocx_ib_create_qp_objs *o;
	struct rocx_aq_create_qp cmd;
	struct ib_qp_init_attr init;

	o = rocx_ib_create_qp_objs(test, &init);
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.srq = &o->srq.ibsrq;
	memset(&cmd, 0x5a, sizeof(cmd));
	rocx_ib_qp_create_cmd(&cmd, &init, ROCX_QPT_RC, 0, &req, 0x2a,
			      0x00c0ffee, &o->pbl);
	rocx_ib_create_qp_want(want, ROCX_QPT_RC, 0);
	want[28] = 0x0d;		/* srqn, le32 */
	want[29] = 0x0c;
	want[30] = 0x0b;
	want[31] = 0x0a;
	want[32] = 0xee;		/* uctx, le32 */
	want[33] = 0xff;
	want[34] = 0xc0;
	want[35] = 0x00;
	KUNIT_EXPECT_MEMEQ(test, &cmd, want, sizeof(want));

	init.srq = NULL;
	init.recv_cq = NULL;
	rocx_ib_qp_create_cmd(&cmd, &init, ROCX_QPT_XRC_INI, 0, &req, 0x2a,
			      0x00c0ffee, &o->pbl);
	rocx_ib_create_qp_want(want, ROCX_QPT_XRC_INI, 0);
	memset(&want[24], 0, 4);	/* recv_cqn: none */
	want[32] = 0xee;
	want[33] = 0xff;
	want[34] = 0xc0;
	KUNIT_EXPECT_MEMEQ(test, &cmd, want, sizeof(want));
}

/* RC always; UC only from a device that says it has it; nothing else. */
static void rocx_ib_qp_type_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_RC, 0), ROCX_QPT_RC);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_RC, ROCX_CAP2_UC),
			ROCX_QPT_RC);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_UC, ROCX_CAP2_UC),
			ROCX_QPT_UC);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_UC, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_UC, ~ROCX_CAP2_UC),
			-EOPNOTSUPP);
	/* UC's bit makes no other type, nor UD's. */
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_UD, ROCX_CAP2_UC),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_UD, ROCX_CAP2_UD),
			ROCX_QPT_UD);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_UC, ROCX_CAP2_UD),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_XRC_INI, ROCX_CAP2_UC),
			-EOPNOTSUPP);
	/* XRC's bit makes both XRC types, and nothing else. */
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_XRC_INI, ROCX_CAP2_XRC),
			ROCX_QPT_XRC_INI);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_XRC_TGT, ROCX_CAP2_XRC),
			ROCX_QPT_XRC_TGT);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_XRC_TGT, ~ROCX_CAP2_XRC),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_UC, ROCX_CAP2_XRC),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_RAW_PACKET, ~0ULL),
			-EOPNOTSUPP);
	/* QP1 only with ROCX_CAP2_GSI; UD's bit is not enough. */
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_GSI, ROCX_CAP2_GSI),
			ROCX_QPT_GSI);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_type(IB_QPT_GSI, ROCX_CAP2_UD),
			-EOPNOTSUPP);
}

/* ---------------- SRQs ---------------- */

struct rocx_ib_srq_case {
	const char *desc;
	struct ib_srq_attr attr;
	struct rocx_create_srq_req req;
	int err;
};

#define ROCX_IB_SRQ_REQ(ld, shift) \
	{ .buf_addr = 0x100000, .log_depth = (ld), .wqe_shift = (shift) }

static const struct rocx_ib_srq_case rocx_ib_srq_cases[] = {
	/* What ibv_srq_pingpong asks for: 500 receives of one SGE. */
	{ "pingpong", { 500, 1, 0 }, ROCX_IB_SRQ_REQ(9, 5), 0 },
	{ "min", { 1, 0, 0 }, ROCX_IB_SRQ_REQ(1, 4), 0 },
	{ "max", { 1024, 8, 0 }, ROCX_IB_SRQ_REQ(10, 8), 0 },
	{ "no_wr", { 0, 1, 0 }, ROCX_IB_SRQ_REQ(1, 5), -EINVAL },
	{ "too_many_wr", { 1025, 1, 0 }, ROCX_IB_SRQ_REQ(11, 5), -EINVAL },
	{ "deeper_than_device", { 8, 1, 0 }, ROCX_IB_SRQ_REQ(11, 5), -EINVAL },
	{ "too_shallow", { 9, 1, 0 }, ROCX_IB_SRQ_REQ(3, 5), -EINVAL },
	{ "depth_0", { 1, 1, 0 }, ROCX_IB_SRQ_REQ(0, 5), -EINVAL },
	{ "too_many_sge", { 1, 9, 0 }, ROCX_IB_SRQ_REQ(1, 9), -EINVAL },
	{ "wqe_too_small", { 1, 2, 0 }, ROCX_IB_SRQ_REQ(1, 5), -EINVAL },
	{ "wqe_shift_3", { 1, 0, 0 }, ROCX_IB_SRQ_REQ(1, 3), -EINVAL },
	{ "wqe_shift_10", { 1, 1, 0 }, ROCX_IB_SRQ_REQ(1, 10), -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_srq, rocx_ib_srq_cases, desc);

static void rocx_ib_srq_test_identify(struct rocx_identify *id)
{
	rocx_ib_test_identify(id);
	id->caps2 = cpu_to_le64(ROCX_CAP2_SRQ);
	id->max_srq = cpu_to_le32(256);
	id->max_srq_wr = cpu_to_le32(1024);
	id->max_srq_sge = cpu_to_le32(8);
}

static void rocx_ib_srq_check_test(struct kunit *test)
{
	const struct rocx_ib_srq_case *c = test->param_value;
	struct rocx_identify id;

	rocx_ib_srq_test_identify(&id);
	KUNIT_EXPECT_EQ(test, rocx_ib_srq_check(&id, &c->attr, &c->req),
			c->err);
}

static void rocx_ib_srq_check_req_test(struct kunit *test)
{
	struct rocx_create_srq_req req = ROCX_IB_SRQ_REQ(4, 5);
	struct ib_srq_attr attr = { 16, 1, 0 };
	struct rocx_identify id;

	rocx_ib_srq_test_identify(&id);
	KUNIT_EXPECT_EQ(test, rocx_ib_srq_check(&id, &attr, &req), 0);
	req.buf_addr = 0x100800;
	KUNIT_EXPECT_EQ(test, rocx_ib_srq_check(&id, &attr, &req), -EINVAL);
	req.buf_addr = 0;
	KUNIT_EXPECT_EQ(test, rocx_ib_srq_check(&id, &attr, &req), -EINVAL);
	req.buf_addr = 0x100000;
	req.reserved = 1;
	KUNIT_EXPECT_EQ(test, rocx_ib_srq_check(&id, &attr, &req), -EINVAL);
	req.reserved = 0;
	req.comp_mask = 1;
	KUNIT_EXPECT_EQ(test, rocx_ib_srq_check(&id, &attr, &req),
			-EOPNOTSUPP);
}

/* What the ring holds, reported back; the device's SGE limit caps it. */
static void rocx_ib_srq_caps_test(struct kunit *test)
{
	struct rocx_create_srq_req req = ROCX_IB_SRQ_REQ(9, 5);
	struct ib_srq_attr attr = {};
	struct rocx_identify id;

	rocx_ib_srq_test_identify(&id);
	rocx_ib_srq_caps(&id, &req, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_wr, 512);
	KUNIT_EXPECT_EQ(test, attr.max_sge, 1);		/* (32 - 16) / 16 */
	req = (struct rocx_create_srq_req)ROCX_IB_SRQ_REQ(10, 9);
	rocx_ib_srq_caps(&id, &req, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_wr, 1024);
	KUNIT_EXPECT_EQ(test, attr.max_sge, 8);		/* not 31 */
}

/* A new SRQ ring: as deep as max_wr and the device allow, no request bits. */
static void rocx_ib_resize_srq_check_test(struct kunit *test)
{
	struct rocx_modify_srq_req req = { .buf_addr = 0x10000, .log_depth = 4 };
	struct rocx_identify id;

	rocx_ib_srq_test_identify(&id);
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_srq_check(&id, 16, &req), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_srq_check(&id, 17, &req), -EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_srq_check(&id, 0, &req), -EINVAL);
	req.log_depth = 11;		/* beyond max_srq_wr 1024 */
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_srq_check(&id, 16, &req), -EINVAL);
	req.log_depth = 0;
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_srq_check(&id, 1, &req), -EINVAL);
	req.log_depth = 4;
	req.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_srq_check(&id, 16, &req), -EINVAL);
	req.reserved[1] = 0;
	req.buf_addr = 0x10008;
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_srq_check(&id, 16, &req), -EINVAL);
	req.buf_addr = 0x10000;
	req.comp_mask = 1;
	KUNIT_EXPECT_EQ(test, rocx_ib_resize_srq_check(&id, 16, &req),
			-EOPNOTSUPP);
}

/* Limits reach ib_core only from a device with ROCX_CAP2_SRQ. */
static void rocx_ib_srq_attr_test(struct kunit *test)
{
	struct ib_device_attr attr = {};
	struct rocx_identify id;

	rocx_ib_srq_test_identify(&id);
	id.max_srq_wr = cpu_to_le32(3000);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_srq, 256);
	KUNIT_EXPECT_EQ(test, attr.max_srq_wr, 2048);	/* a ring it takes */
	KUNIT_EXPECT_EQ(test, attr.max_srq_sge, 8);
	KUNIT_EXPECT_FALSE(test, attr.device_cap_flags & IB_DEVICE_SRQ_RESIZE);

	/* Resizing is advertised only beside SRQs themselves. */
	memset(&attr, 0, sizeof(attr));
	id.caps2 = cpu_to_le64(ROCX_CAP2_SRQ | ROCX_CAP2_SRQ_RESIZE);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_TRUE(test, attr.device_cap_flags & IB_DEVICE_SRQ_RESIZE);
	memset(&attr, 0, sizeof(attr));
	id.caps2 = cpu_to_le64(ROCX_CAP2_SRQ_RESIZE);
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_FALSE(test, attr.device_cap_flags & IB_DEVICE_SRQ_RESIZE);

	memset(&attr, 0, sizeof(attr));
	id.caps2 = 0;
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_srq, 0);
	KUNIT_EXPECT_EQ(test, attr.max_srq_wr, 0);
	KUNIT_EXPECT_EQ(test, attr.max_srq_sge, 0);
}

static struct kunit_case rocx_ib_srq_test_cases[] = {
	KUNIT_CASE_PARAM(rocx_ib_srq_check_test, rocx_ib_srq_gen_params),
	KUNIT_CASE(rocx_ib_srq_check_req_test),
	KUNIT_CASE(rocx_ib_srq_caps_test),
	KUNIT_CASE(rocx_ib_srq_attr_test),
	KUNIT_CASE(rocx_ib_resize_srq_check_test),
	{}
};

static struct kunit_suite rocx_ib_srq_suite = {
	.name = "rocx_ib_srq",
	.test_cases = rocx_ib_srq_test_cases,
};

/* IB_QP_RATE_LIMIT: which QPs, transitions and rates take it. */
static void rocx_ib_rate_limit_test(struct kunit *test)
{
	const u64 ets = ROCX_CAP2_ETS;

	KUNIT_EXPECT_EQ(test, rocx_ib_rate_limit_check(ets, 1000, IB_QPT_RC,
						       IB_QPS_RTR, IB_QPS_RTS,
						       1000000), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_rate_limit_check(ets, 1000, IB_QPT_UD,
						       IB_QPS_RTS, IB_QPS_RTS,
						       0), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_rate_limit_check(ets, 1000, IB_QPT_UC,
						       IB_QPS_RTS, IB_QPS_RTS,
						       1), 0);
	/* Above the port's largest rate (Mb/s in, kb/s asked). */
	KUNIT_EXPECT_EQ(test, rocx_ib_rate_limit_check(ets, 1000, IB_QPT_RC,
						       IB_QPS_RTS, IB_QPS_RTS,
						       1000001), -EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_rate_limit_check(ets, 1000, IB_QPT_RC,
						       IB_QPS_INIT, IB_QPS_RTR,
						       100), -EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_rate_limit_check(ets, 1000, IB_QPT_RC,
						       IB_QPS_RTS, IB_QPS_SQD,
						       100), -EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_rate_limit_check(ets, 1000, IB_QPT_GSI,
						       IB_QPS_RTS, IB_QPS_RTS,
						       100), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_ib_rate_limit_check(0, 1000, IB_QPT_RC,
						       IB_QPS_RTS, IB_QPS_RTS,
						       100), -EOPNOTSUPP);
}

static struct kunit_case rocx_ib_qp_test_cases[] = {
	KUNIT_CASE(rocx_ib_qp_type_test),
	KUNIT_CASE_PARAM(rocx_ib_qp_attr_mask_test, rocx_ib_mask_gen_params),
	KUNIT_CASE_PARAM(rocx_ib_path_mtu_test, rocx_ib_mtu_map_gen_params),
	KUNIT_CASE(rocx_ib_path_mtu_fits_test),
	KUNIT_CASE(rocx_ib_mtu_of_path_bad_test),
	KUNIT_CASE_PARAM(rocx_ib_net_type_test, rocx_ib_net_gen_params),
	KUNIT_CASE(rocx_ib_qp_state_test),
	KUNIT_CASE(rocx_ib_qp_event_type_test),
	KUNIT_CASE(rocx_ib_qp_attr_encode_test),
	KUNIT_CASE(rocx_ib_av_encode_test),
	KUNIT_CASE(rocx_ib_ah_resp_test),
	KUNIT_CASE_PARAM(rocx_ib_qp_check_test, rocx_ib_qp_gen_params),
	KUNIT_CASE(rocx_ib_qp_check_buf_test),
	KUNIT_CASE(rocx_ib_qp_db_record_test),
	KUNIT_CASE(rocx_ib_qp_caps_test),
	KUNIT_CASE(rocx_ib_qp_create_cmd_kernel_test),
	KUNIT_CASE(rocx_ib_qp_create_cmd_user_test),
	KUNIT_CASE(rocx_ib_rate_limit_test),
	{}
};

static struct kunit_suite rocx_ib_qp_suite = {
	.name = "rocx_ib_qp",
	.test_cases = rocx_ib_qp_test_cases,
};

kunit_test_suites(&rocx_ib_pbl_suite, &rocx_ib_mr_suite, &rocx_ib_cq_suite,
		  &rocx_ib_qp_suite, &rocx_ib_srq_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for rocx_ib's RDMA objects");
MODULE_LICENSE("Dual BSD/GPL");
