// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib fast registration (contract 1.2, ROCX_CAP2_FAST_REG): the MRs
 * kernel consumers register per I/O, and the kernel's ways to reach
 * memory by bus address.
 *
 * alloc_mr makes a fast-register MR with ALLOC_MR and gives it a page
 * list of its own in coherent memory, sized for max_num_sg pages once;
 * map_mr_sg fills that list (ib_sg_to_pages()), and the REG_MR work
 * request names it.  The device reads the list when it executes the WQE,
 * not before, so the list must stay untouched from the post until the
 * WQE completes, which ib_core's consumers guarantee by not mapping an MR
 * again before its registration has completed.  No lock: an MR is used
 * by one consumer at a time, as ib_core requires.
 *
 * get_dma_mr makes a DMA MR (ALLOC_MR too), and the device's local DMA
 * lkey (ROCX_LOCAL_DMA_LKEY) serves the SGEs of every kernel PD.
 *
 * The REG_MR and LOCAL_INV work requests are encoded with every other
 * WQE in rocx_ib_wqe.c; IB_DEVICE_MEM_MGT_EXTENSIONS
 * (rocx_ib_identify_to_attr()) promises that post_send takes both
 * opcodes.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/**
 * rocx_ib_fr_supported() - whether the device does fast registration
 * @id: its identify block
 */
bool rocx_ib_fr_supported(const struct rocx_identify *id)
{
	return (le64_to_cpu(id->caps2) & ROCX_CAP2_FAST_REG) &&
	       le32_to_cpu(id->max_fast_reg_pages);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_fr_supported);

/**
 * rocx_ib_fr_max_pages() - largest page list of a fast-register MR
 * @id: the identify block of a device with fast registration
 *
 * What the device allows, within what a page list can express.
 */
u32 rocx_ib_fr_max_pages(const struct rocx_identify *id)
{
	return min_t(u32, le32_to_cpu(id->max_fast_reg_pages),
		     ROCX_PBL_MAX_PAGES);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_fr_max_pages);

/**
 * rocx_ib_fr_access() - device rights of a REG_MR or DMA MR
 * @ib_access: IB_ACCESS_* of the work request or get_dma_mr
 * @access: set to the ROCX_ACCESS_* flags
 *
 * Return: 0, or -EINVAL for rights the device refuses (remote write or
 * atomic without local write: IBTA) and -EOPNOTSUPP for flags it does not
 * know; the caller fails the verb instead of the device the QP.
 */
int rocx_ib_fr_access(int ib_access, u32 *access)
{
	/* A device with fast registration takes MW_BIND in these MRs. */
	int err = rocx_ib_mr_access(ib_access, ROCX_CAP2_MW, access);

	if (err)
		return err;
	if ((*access & (ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_ATOMIC)) &&
	    !(*access & ROCX_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_fr_access);

static int rocx_ib_alloc_mr_cmd(struct rocx_ib_dev *dev, u32 pdn, u8 type,
				u32 max_pages, u32 access, u32 *key)
{
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_aq_cqe cqe;
	int err;

	cmd.alloc_mr.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_ALLOC_MR);
	cmd.alloc_mr.pdn = cpu_to_le32(pdn);
	cmd.alloc_mr.type = type;
	cmd.alloc_mr.max_pages = cpu_to_le32(max_pages);
	cmd.alloc_mr.access = cpu_to_le32(access);
	err = rocx_ib_exec(dev, &cmd, &cqe);
	if (err)
		return rocx_ib_verbs_errno(err);
	*key = le32_to_cpu(cqe.result);
	return 0;
}

struct ib_mr *rocx_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibpd->device);
	struct rocx_ib_pd *pd = to_rocx_ib_pd(ibpd);
	struct rocx_ib_mr *mr;
	u32 key;
	int err;

	if (!rocx_ib_fr_supported(dev->id))
		return ERR_PTR(-EOPNOTSUPP);
	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > rocx_ib_fr_max_pages(dev->id))
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	/* The tables are the driver's for the MR's life; map_mr_sg fills them. */
	err = rocx_ib_pbl_init(&mr->pbl, &dev->pdev->dev, max_num_sg,
			       PAGE_SHIFT);
	if (err)
		goto err_free;
	err = rocx_ib_alloc_mr_cmd(dev, pd->pdn, ROCX_MR_TYPE_FAST_REG,
				   max_num_sg, 0, &key);
	if (err)
		goto err_free;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return &mr->ibmr;

err_free:
	rocx_ib_pbl_destroy(&mr->pbl);
	kfree(mr);
	return ERR_PTR(err);
}

static int rocx_ib_fr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rocx_ib_mr *mr = to_rocx_ib_mr(ibmr);

	/* ib_sg_to_pages() stops at the first page that does not fit. */
	if (mr->npages >= mr->pbl.npages)
		return -ENOMEM;
	rocx_ib_pbl_set(&mr->pbl, mr->npages++, addr);
	return 0;
}

/**
 * rocx_ib_map_mr_sg() - the pages of a scatterlist into an MR's list
 * @ibmr: a fast-register MR; ib_map_mr_sg() set its page_size
 * @sg: DMA-mapped scatterlist
 * @sg_nents: its entries
 * @sg_offset: offset into the first entry, updated as ib_sg_to_pages() does
 *
 * Return: the entries mapped (fewer than @sg_nents when they need more
 * pages than the MR has, or leave a gap inside a page), or -EINVAL for a
 * page size the device does not take.
 */
int rocx_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset)
{
	struct rocx_ib_mr *mr = to_rocx_ib_mr(ibmr);
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibmr->device);

	if (!is_power_of_2(ibmr->page_size) ||
	    !(ibmr->page_size & dev->pgsz_bitmap))
		return -EINVAL;
	mr->npages = 0;
	mr->pbl.page_shift = ilog2(ibmr->page_size);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset,
			      rocx_ib_fr_set_page);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_map_mr_sg);

struct ib_mr *rocx_ib_get_dma_mr(struct ib_pd *ibpd, int access_flags)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibpd->device);
	struct rocx_ib_pd *pd = to_rocx_ib_pd(ibpd);
	struct rocx_ib_mr *mr;
	u32 access, key;
	int err;

	if (!rocx_ib_fr_supported(dev->id))
		return ERR_PTR(-EOPNOTSUPP);
	/* All of memory: the device refuses it to user PDs, and so do we. */
	if (pd->uctx)
		return ERR_PTR(-EINVAL);
	/*
	 * ib_alloc_pd(IB_PD_UNSAFE_GLOBAL_RKEY) asks for remote rights alone;
	 * local write costs nothing more on an MR of all memory and is what
	 * remote write needs.
	 */
	if (access_flags & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC))
		access_flags |= IB_ACCESS_LOCAL_WRITE;
	/* No windows on an MR of all memory. */
	if (access_flags & IB_ACCESS_MW_BIND)
		return ERR_PTR(-EOPNOTSUPP);
	err = rocx_ib_fr_access(access_flags, &access);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = rocx_ib_alloc_mr_cmd(dev, pd->pdn, ROCX_MR_TYPE_DMA, 0, access,
				   &key);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->ib_access = access_flags;
	return &mr->ibmr;
}

/* Only for a device with ROCX_CAP2_FAST_REG. */
static const struct ib_device_ops rocx_ib_fr_ops = {
	.alloc_mr = rocx_ib_alloc_mr,
	.get_dma_mr = rocx_ib_get_dma_mr,
	.map_mr_sg = rocx_ib_map_mr_sg,
};

/**
 * rocx_ib_fr_init() - the fast-registration verbs of a new ib_device
 * @dev: the device, before registration
 */
void rocx_ib_fr_init(struct rocx_ib_dev *dev)
{
	if (!rocx_ib_fr_supported(dev->id))
		return;
	ib_set_device_ops(&dev->ibdev, &rocx_ib_fr_ops);
	dev->ibdev.local_dma_lkey = ROCX_LOCAL_DMA_LKEY;
}
