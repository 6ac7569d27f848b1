// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rocx_ib's fast registration: the REG_MR and LOCAL_INV
 * WQE encoders byte for byte, the rights they take, and map_mr_sg's page
 * lists built from hand-made DMA-mapped scatterlists for a KUnit device.
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/* ---------------- WQE encoders ---------------- */

struct rocx_ib_reg_case {
	const char *desc;
	u8 levels;
	u64 pbl_addr;		/* the table, or the page itself (level 0) */
	u32 npages;
	u8 page_shift;
	u8 pbl[24];		/* WQE bytes 40-63: the page list, reserved */
};

/*
 * WQE bytes 0-39, the same whatever the list's form: key 0x00012a07,
 * rights local write, remote write and read, iova 0x7f0000001200, length
 * 0x2a00, signalled and fenced, at WQE index 0x1234.
 */
static const u8 rocx_ib_reg_head[40] = {
	/* ctrl: REG_MR, SIGNALED | FENCE, no SGE, imm 0, inline 0 */
	0x09, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00,
	/* key, access */
	0x07, 0x2a, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00,
	/* iova */
	0x00, 0x12, 0x00, 0x00, 0x00, 0x7f, 0x00, 0x00,
	/* length */
	0x00, 0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const struct rocx_ib_reg_case rocx_ib_reg_cases[] = {
	{
		.desc = "level1_4k", .levels = 1, .pbl_addr = 0x12345000,
		.npages = 3, .page_shift = 12,
		.pbl = {
			/* addr, npages 3, shift 12, level 1 */
			0x00, 0x50, 0x34, 0x12, 0x00, 0x00, 0x00, 0x00,
			0x03, 0x00, 0x00, 0x00, 0x0c, 0x01, 0x00, 0x00,
		},
	},
	{
		.desc = "level0_2m", .levels = 0, .pbl_addr = 0x40000000,
		.npages = 1, .page_shift = 21,
		.pbl = {
			0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,
			0x01, 0x00, 0x00, 0x00, 0x15, 0x00, 0x00, 0x00,
		},
	},
	{
		.desc = "level2_high_table", .levels = 2,
		.pbl_addr = 0x0000123456789000ULL, .npages = 513,
		.page_shift = 12,
		.pbl = {
			0x00, 0x90, 0x78, 0x56, 0x34, 0x12, 0x00, 0x00,
			0x01, 0x02, 0x00, 0x00, 0x0c, 0x02, 0x00, 0x00,
		},
	},
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_reg, rocx_ib_reg_cases, desc);

/* A mapped fast-register MR as map_mr_sg leaves it, without a device. */
static struct rocx_ib_mr *rocx_ib_test_fr_mr(struct kunit *test, u8 levels,
					     u64 pbl_addr, u32 npages,
					     u8 page_shift)
{
	struct rocx_ib_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	dma_addr_t *tbl_dma = kunit_kzalloc(test, sizeof(*tbl_dma),
					    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, tbl_dma);
	mr->ibmr.type = IB_MR_TYPE_MEM_REG;
	mr->ibmr.iova = 0x7f0000001200ULL;
	mr->ibmr.length = 0x2a00;
	mr->ibmr.page_size = 1U << page_shift;
	mr->pbl.levels = levels;
	mr->pbl.page_shift = page_shift;
	/* Room for more than the mapping used: the WQE carries the latter. */
	mr->pbl.npages = npages + 7;
	if (levels) {
		tbl_dma[0] = pbl_addr;
		mr->pbl.tbl_dma = tbl_dma;
		mr->pbl.ntbl = 1;
	} else {
		mr->pbl.npages = 1;
		mr->pbl.addr0 = pbl_addr;
	}
	mr->npages = npages;
	return mr;
}

static void rocx_ib_wqe_reg_mr_test(struct kunit *test)
{
	const struct rocx_ib_reg_case *c = test->param_value;
	struct rocx_ib_mr *mr = rocx_ib_test_fr_mr(test, c->levels,
						   c->pbl_addr, c->npages,
						   c->page_shift);
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.wr.send_flags = IB_SEND_SIGNALED | IB_SEND_FENCE,
		.mr = &mr->ibmr,
		.key = 0x00012a07,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ,
	};
	struct rocx_send_wqe wqe;

	memset(&wqe, 0xa5, sizeof(wqe));
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_reg_mr(&wqe, 0x1234, &wr), 0);
	KUNIT_EXPECT_MEMEQ(test, &wqe, rocx_ib_reg_head,
			   sizeof(rocx_ib_reg_head));
	KUNIT_EXPECT_MEMEQ(test, (u8 *)&wqe + sizeof(rocx_ib_reg_head), c->pbl,
			   sizeof(c->pbl));
}

/* Rights: each IB flag to its device bit; what the device refuses. */
static void rocx_ib_fr_access_test(struct kunit *test)
{
	u32 access;

	KUNIT_EXPECT_EQ(test, rocx_ib_fr_access(0, &access), 0);
	KUNIT_EXPECT_EQ(test, access, 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_fr_access(IB_ACCESS_REMOTE_READ, &access),
			0);
	KUNIT_EXPECT_EQ(test, access, ROCX_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, rocx_ib_fr_access(IB_ACCESS_LOCAL_WRITE |
						IB_ACCESS_REMOTE_ATOMIC |
						IB_ACCESS_MW_BIND, &access), 0);
	KUNIT_EXPECT_EQ(test, access, ROCX_ACCESS_LOCAL_WRITE |
			ROCX_ACCESS_REMOTE_ATOMIC | ROCX_ACCESS_MW_BIND);
	/* IBTA: remote write and atomic need local write. */
	KUNIT_EXPECT_EQ(test, rocx_ib_fr_access(IB_ACCESS_REMOTE_WRITE,
						&access), -EINVAL);
	KUNIT_EXPECT_EQ(test, rocx_ib_fr_access(IB_ACCESS_REMOTE_ATOMIC,
						&access), -EINVAL);
	/* Flags the device does not know. */
	KUNIT_EXPECT_EQ(test, rocx_ib_fr_access(IB_ZERO_BASED, &access),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, rocx_ib_fr_access(IB_ACCESS_ON_DEMAND, &access),
			-EOPNOTSUPP);
	/* Optional ones are not refused, and ask the device for nothing. */
	KUNIT_EXPECT_EQ(test, rocx_ib_fr_access(IB_ACCESS_LOCAL_WRITE |
						IB_ACCESS_RELAXED_ORDERING,
						&access), 0);
	KUNIT_EXPECT_EQ(test, access, ROCX_ACCESS_LOCAL_WRITE);
}

/* A work request the device would fail is refused, the WQE untouched. */
static void rocx_ib_wqe_reg_mr_bad_test(struct kunit *test)
{
	struct rocx_ib_mr *mr = rocx_ib_test_fr_mr(test, 1, 0x1000, 2, 12);
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.mr = &mr->ibmr,
		.key = 0x100,
		.access = IB_ACCESS_LOCAL_WRITE,
	};
	struct rocx_send_wqe wqe;
	u8 untouched[ROCX_SEND_WQE_HDR];

	memset(untouched, 0xa5, sizeof(untouched));
	memset(&wqe, 0xa5, sizeof(wqe));
	wr.access = IB_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_reg_mr(&wqe, 0, &wr), -EINVAL);
	wr.access = IB_ZERO_BASED;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_reg_mr(&wqe, 0, &wr), -EOPNOTSUPP);
	wr.access = IB_ACCESS_LOCAL_WRITE;
	/* Never mapped. */
	mr->npages = 0;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_reg_mr(&wqe, 0, &wr), -EINVAL);
	/* Not a fast-register MR (a DMA MR has no list). */
	mr->npages = 2;
	mr->ibmr.type = IB_MR_TYPE_DMA;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_reg_mr(&wqe, 0, &wr), -EINVAL);
	KUNIT_EXPECT_MEMEQ(test, &wqe, untouched, sizeof(untouched));
	/* And the good one after them. */
	mr->ibmr.type = IB_MR_TYPE_MEM_REG;
	KUNIT_EXPECT_EQ(test, rocx_ib_wqe_reg_mr(&wqe, 0, &wr), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe.reg_mr.pbl.npages), 2);
}

static void rocx_ib_wqe_local_inv_test(struct kunit *test)
{
	static const u8 expect[ROCX_SEND_WQE_HDR] = {
		/* LOCAL_INV, SIGNALED | SOLICITED, the key big endian */
		0x08, 0x03, 0x00, 0x00, 0x00, 0xab, 0xcd, 0x05,
		0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
		/* no operation segment */
	};
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED,
		.ex.invalidate_rkey = 0x00abcd05,
	};
	struct rocx_send_wqe wqe;

	memset(&wqe, 0xa5, sizeof(wqe));
	rocx_ib_wqe_local_inv(&wqe, 7, &wr);
	KUNIT_EXPECT_MEMEQ(test, &wqe, expect, sizeof(expect));

	/* Unsignalled, fenced, at an index that wrapped. */
	wr.send_flags = IB_SEND_FENCE;
	rocx_ib_wqe_local_inv(&wqe, 0xffff, &wr);
	KUNIT_EXPECT_EQ(test, wqe.ctrl.flags, ROCX_WQE_FENCE);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(wqe.ctrl.wqe_idx), 0xffff);
}

/* ---------------- map_mr_sg ---------------- */

static struct device *rocx_ib_fr_test_dma_dev(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "rocx_ib_fr_test");

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, dma_coerce_mask_and_coherent(dev,
							   DMA_BIT_MASK(64)), 0);
	return dev;
}

static void rocx_ib_fr_pbl_destroy_action(void *pbl)
{
	rocx_ib_pbl_destroy(pbl);
}

/*
 * A fast-register MR of room pages, its list for dma_dev (registered
 * first, so that the list is freed before it goes), on an ib_device
 * taking 4 KiB and 2 MiB pages.
 */
static struct rocx_ib_mr *rocx_ib_test_map_mr(struct kunit *test,
					      struct device *dma_dev, u32 room)
{
	struct rocx_ib_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct rocx_ib_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	dev->pgsz_bitmap = SZ_4K | SZ_2M;
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test,
						  rocx_ib_fr_pbl_destroy_action,
						  &mr->pbl), 0);
	KUNIT_ASSERT_EQ(test, rocx_ib_pbl_init(&mr->pbl, dma_dev, room,
					       PAGE_SHIFT), 0);
	mr->ibmr.device = &dev->ibdev;
	mr->ibmr.type = IB_MR_TYPE_MEM_REG;
	mr->ibmr.page_size = SZ_4K;
	return mr;
}

struct rocx_ib_seg {
	u64 addr;
	u32 len;
};

static struct scatterlist *rocx_ib_test_sgl(struct kunit *test,
					    const struct rocx_ib_seg *seg,
					    unsigned int n)
{
	struct scatterlist *sgl = kunit_kcalloc(test, n, sizeof(*sgl),
						GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, n);
	for (i = 0; i < n; i++) {
		sg_dma_address(&sgl[i]) = seg[i].addr;
		sg_dma_len(&sgl[i]) = seg[i].len;
	}
	return sgl;
}

/* The page address the list holds at i (levels 0 and 1). */
static u64 rocx_ib_test_page(const struct rocx_ib_mr *mr, u32 i)
{
	return mr->pbl.levels ? le64_to_cpu(mr->pbl.tbl[0][i]) :
				mr->pbl.addr0;
}

static void rocx_ib_map_mr_sg_test(struct kunit *test)
{
	static const struct rocx_ib_seg seg[] = {
		{ 0x10000200, 0xe00 },		/* the end of a page */
		{ 0x20000000, 0x2000 },		/* two whole pages */
		{ 0x30000000, 0x100 },		/* the start of one */
	};
	struct device *dma_dev = rocx_ib_fr_test_dma_dev(test);
	struct rocx_ib_mr *mr = rocx_ib_test_map_mr(test, dma_dev, 8);
	struct scatterlist *sgl = rocx_ib_test_sgl(test, seg, 3);
	static const u64 pages[] = {
		0x10000000, 0x20000000, 0x20001000, 0x30000000,
	};
	struct rocx_ib_reg_wr_check {
		struct ib_reg_wr wr;
		struct rocx_send_wqe wqe;
	} *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, rocx_ib_map_mr_sg(&mr->ibmr, sgl, 3, NULL), 3);
	KUNIT_EXPECT_EQ(test, mr->npages, 4);
	KUNIT_EXPECT_EQ(test, mr->ibmr.iova, 0x10000200ULL);
	KUNIT_EXPECT_EQ(test, mr->ibmr.length, 0x2f00ULL);
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		KUNIT_EXPECT_EQ(test, rocx_ib_test_page(mr, i), pages[i]);

	/* The WQE names the list in coherent memory, with 4 of its 8 pages. */
	r->wr.mr = &mr->ibmr;
	r->wr.key = 0x301;
	r->wr.access = IB_ACCESS_LOCAL_WRITE;
	KUNIT_ASSERT_EQ(test, rocx_ib_wqe_reg_mr(&r->wqe, 1, &r->wr), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(r->wqe.reg_mr.pbl.addr),
			(u64)mr->pbl.tbl_dma[0]);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(r->wqe.reg_mr.pbl.npages), 4);
	KUNIT_EXPECT_EQ(test, r->wqe.reg_mr.pbl.levels, 1);
	KUNIT_EXPECT_EQ(test, r->wqe.reg_mr.pbl.page_shift, 12);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(r->wqe.reg_mr.iova), 0x10000200ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(r->wqe.reg_mr.length), 0x2f00ULL);

	/* Mapped again: the list starts over. */
	KUNIT_ASSERT_EQ(test, rocx_ib_map_mr_sg(&mr->ibmr, &sgl[1], 1, NULL),
			1);
	KUNIT_EXPECT_EQ(test, mr->npages, 2);
	KUNIT_EXPECT_EQ(test, rocx_ib_test_page(mr, 0), 0x20000000ULL);
	KUNIT_EXPECT_EQ(test, mr->ibmr.iova, 0x20000000ULL);
}

/* An offset into the first entry moves iova, not the first page. */
static void rocx_ib_map_mr_sg_offset_test(struct kunit *test)
{
	static const struct rocx_ib_seg seg[] = { { 0x10000200, 0x1e00 } };
	struct device *dma_dev = rocx_ib_fr_test_dma_dev(test);
	struct rocx_ib_mr *mr = rocx_ib_test_map_mr(test, dma_dev, 4);
	struct scatterlist *sgl = rocx_ib_test_sgl(test, seg, 1);
	unsigned int off = 0x100;

	KUNIT_ASSERT_EQ(test, rocx_ib_map_mr_sg(&mr->ibmr, sgl, 1, &off), 1);
	KUNIT_EXPECT_EQ(test, off, 0);
	KUNIT_EXPECT_EQ(test, mr->ibmr.iova, 0x10000300ULL);
	KUNIT_EXPECT_EQ(test, mr->ibmr.length, 0x1d00ULL);
	KUNIT_EXPECT_EQ(test, mr->npages, 2);
	KUNIT_EXPECT_EQ(test, rocx_ib_test_page(mr, 0), 0x10000000ULL);
	KUNIT_EXPECT_EQ(test, rocx_ib_test_page(mr, 1), 0x10001000ULL);
}

/*
 * More pages than the MR has room for: the entries that fit are mapped,
 * and the list never grows past its room.
 */
static void rocx_ib_map_mr_sg_full_test(struct kunit *test)
{
	static const struct rocx_ib_seg seg[] = {
		{ 0x10000000, 0x1000 },
		{ 0x20000000, 0x2000 },
	};
	struct device *dma_dev = rocx_ib_fr_test_dma_dev(test);
	struct rocx_ib_mr *mr = rocx_ib_test_map_mr(test, dma_dev, 2);
	struct scatterlist *sgl = rocx_ib_test_sgl(test, seg, 2);

	KUNIT_EXPECT_EQ(test, rocx_ib_map_mr_sg(&mr->ibmr, sgl, 2, NULL), 1);
	KUNIT_EXPECT_EQ(test, mr->npages, 2);
	KUNIT_EXPECT_EQ(test, mr->ibmr.length, 0x1000ULL);
	/* One page of room: nothing past the first page. */
	mr = rocx_ib_test_map_mr(test, dma_dev, 1);
	KUNIT_EXPECT_EQ(test, mr->pbl.levels, 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_map_mr_sg(&mr->ibmr, &sgl[1], 1, NULL),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, mr->npages, 1);
	KUNIT_EXPECT_EQ(test, mr->pbl.addr0, 0x20000000ULL);
}

/* A gap inside a page ends the mapping there; a page size refused. */
static void rocx_ib_map_mr_sg_gap_test(struct kunit *test)
{
	static const struct rocx_ib_seg seg[] = {
		{ 0x10000200, 0x100 },
		{ 0x20000000, 0x1000 },
	};
	struct device *dma_dev = rocx_ib_fr_test_dma_dev(test);
	struct rocx_ib_mr *mr = rocx_ib_test_map_mr(test, dma_dev, 4);
	struct scatterlist *sgl = rocx_ib_test_sgl(test, seg, 2);

	KUNIT_EXPECT_EQ(test, rocx_ib_map_mr_sg(&mr->ibmr, sgl, 2, NULL), 1);
	KUNIT_EXPECT_EQ(test, mr->npages, 1);
	KUNIT_EXPECT_EQ(test, mr->ibmr.length, 0x100ULL);
	/* 8 KiB pages: the device takes 4 KiB and 2 MiB ones only. */
	mr->ibmr.page_size = SZ_8K;
	KUNIT_EXPECT_EQ(test, rocx_ib_map_mr_sg(&mr->ibmr, sgl, 2, NULL),
			-EINVAL);
	/* 2 MiB pages: one entry for the lot. */
	mr->ibmr.page_size = SZ_2M;
	KUNIT_EXPECT_EQ(test, rocx_ib_map_mr_sg(&mr->ibmr, &sgl[1], 1, NULL),
			1);
	KUNIT_EXPECT_EQ(test, mr->npages, 1);
	KUNIT_EXPECT_EQ(test, mr->pbl.page_shift, 21);
	KUNIT_EXPECT_EQ(test, rocx_ib_test_page(mr, 0), 0x20000000ULL);
}

/* ---------------- What the device reports ---------------- */

static void rocx_ib_fr_attr_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct ib_device_attr attr = {};

	/* No ROCX_CAP2_FAST_REG: nothing, whatever max_fast_reg_pages says. */
	id.max_fast_reg_pages = cpu_to_le32(512);
	KUNIT_EXPECT_FALSE(test, rocx_ib_fr_supported(&id));
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_FALSE(test, attr.kernel_cap_flags & IBK_LOCAL_DMA_LKEY);
	KUNIT_EXPECT_FALSE(test, attr.device_cap_flags &
			   IB_DEVICE_MEM_MGT_EXTENSIONS);
	KUNIT_EXPECT_EQ(test, attr.max_fast_reg_page_list_len, 0);

	id.caps2 = cpu_to_le64(ROCX_CAP2_FAST_REG);
	KUNIT_EXPECT_TRUE(test, rocx_ib_fr_supported(&id));
	KUNIT_EXPECT_EQ(test, rocx_ib_fr_max_pages(&id), 512);
	memset(&attr, 0, sizeof(attr));
	rocx_ib_identify_to_attr(&id, &attr);
	KUNIT_EXPECT_TRUE(test, attr.kernel_cap_flags & IBK_LOCAL_DMA_LKEY);
	KUNIT_EXPECT_TRUE(test, attr.device_cap_flags &
			  IB_DEVICE_MEM_MGT_EXTENSIONS);
	KUNIT_EXPECT_EQ(test, attr.max_fast_reg_page_list_len, 512);

	/* The bit but no pages is no fast registration either. */
	id.max_fast_reg_pages = 0;
	KUNIT_EXPECT_FALSE(test, rocx_ib_fr_supported(&id));
	/* More than a page list holds: what it holds. */
	id.max_fast_reg_pages = cpu_to_le32(U32_MAX);
	KUNIT_EXPECT_EQ(test, rocx_ib_fr_max_pages(&id), ROCX_PBL_MAX_PAGES);
}

static struct kunit_case rocx_ib_fr_cases[] = {
	KUNIT_CASE(rocx_ib_fr_attr_test),
	KUNIT_CASE_PARAM(rocx_ib_wqe_reg_mr_test, rocx_ib_reg_gen_params),
	KUNIT_CASE(rocx_ib_wqe_reg_mr_bad_test),
	KUNIT_CASE(rocx_ib_wqe_local_inv_test),
	KUNIT_CASE(rocx_ib_fr_access_test),
	KUNIT_CASE(rocx_ib_map_mr_sg_test),
	KUNIT_CASE(rocx_ib_map_mr_sg_offset_test),
	KUNIT_CASE(rocx_ib_map_mr_sg_full_test),
	KUNIT_CASE(rocx_ib_map_mr_sg_gap_test),
	{}
};

static struct kunit_suite rocx_ib_fr_suite = {
	.name = "rocx_ib_fr",
	.test_cases = rocx_ib_fr_cases,
};

kunit_test_suites(&rocx_ib_fr_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for rocx_ib's fast registration");
MODULE_LICENSE("Dual BSD/GPL");
