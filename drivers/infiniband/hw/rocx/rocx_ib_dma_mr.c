// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib DMA MR: the lkey kernel consumers use with DMA addresses
 * (ib_alloc_pd() asks for it as pd->local_dma_lkey).
 *
 * Contract 1.2 as implemented has no physical-address key, so this is an
 * ordinary REG_MR region whose I/O virtual addresses are bus addresses:
 * 2 MiB pages mapped one to one from 0 up to the highest address the
 * PCI function may be given (dma_get_required_mask()).  A DMA MR or
 * local DMA lkey in the device (fast registration's part of the
 * kernel-verbs issue) replaces it when the device has one.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "rocx_ib.h"

#define ROCX_IB_DMA_MR_SHIFT	21

struct ib_mr *rocx_ib_get_dma_mr(struct ib_pd *ibpd, int access_flags)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibpd->device);
	u64 top = dma_get_required_mask(&dev->pdev->dev);
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_ib_pbl pbl;
	struct rocx_aq_cqe cqe;
	struct rocx_ib_mr *mr;
	u32 access, i, npages;
	u64 length;
	int err;

	err = rocx_ib_mr_access(access_flags, le64_to_cpu(dev->id->caps2),
				&access);
	if (err)
		return ERR_PTR(err);
	if (!(dev->pgsz_bitmap & BIT(ROCX_IB_DMA_MR_SHIFT)))
		return ERR_PTR(-EOPNOTSUPP);
	length = ALIGN(top + 1, BIT_ULL(ROCX_IB_DMA_MR_SHIFT));
	if (!top || length > le64_to_cpu(dev->id->max_mr_size) ||
	    (length >> ROCX_IB_DMA_MR_SHIFT) > ROCX_PBL_MAX_PAGES)
		return ERR_PTR(-EOPNOTSUPP);
	npages = length >> ROCX_IB_DMA_MR_SHIFT;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = rocx_ib_pbl_init(&pbl, &dev->pdev->dev, npages,
			       ROCX_IB_DMA_MR_SHIFT);
	if (!err) {
		for (i = 0; i < npages; i++)
			rocx_ib_pbl_set(&pbl, i,
					(u64)i << ROCX_IB_DMA_MR_SHIFT);
		cmd.reg_mr.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_REG_MR);
		cmd.reg_mr.pdn = cpu_to_le32(to_rocx_ib_pd(ibpd)->pdn);
		cmd.reg_mr.access = cpu_to_le32(access);
		cmd.reg_mr.iova = 0;
		cmd.reg_mr.length = cpu_to_le64(length);
		cmd.reg_mr.offset = 0;
		rocx_ib_pbl_to_hw(&pbl, &cmd.reg_mr.pbl);
		err = rocx_ib_exec(dev, &cmd, &cqe);
	}
	rocx_ib_pbl_destroy(&pbl);
	if (err) {
		kfree(mr);
		return ERR_PTR(rocx_ib_verbs_errno(err));
	}
	mr->ibmr.lkey = le32_to_cpu(cqe.result);
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ib_access = access_flags;
	return &mr->ibmr;
}
