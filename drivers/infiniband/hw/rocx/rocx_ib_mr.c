// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib memory regions.
 *
 * User memory is pinned with ib_umem_get() and described to the device by
 * a page list; the device checks every access against the region (key,
 * PD, bounds, rights), so the key it returns serves as both lkey and rkey.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "rocx_ib.h"

/* Access flags that only tune how memory is pinned or mapped. */
#define ROCX_IB_ACCESS_HINTS	(IB_ACCESS_HUGETLB | IB_ACCESS_OPTIONAL)

/**
 * rocx_ib_access() - device access flags of ib_core access flags
 * @ib_access: IB_ACCESS_* flags
 *
 * Return: ROCX_ACCESS_* flags; bits with no device meaning are dropped
 * (rocx_ib_mr_access() refuses them where that matters).
 */
u32 rocx_ib_access(int ib_access)
{
	u32 access = 0;

	if (ib_access & IB_ACCESS_LOCAL_WRITE)
		access |= ROCX_ACCESS_LOCAL_WRITE;
	if (ib_access & IB_ACCESS_REMOTE_WRITE)
		access |= ROCX_ACCESS_REMOTE_WRITE;
	if (ib_access & IB_ACCESS_REMOTE_READ)
		access |= ROCX_ACCESS_REMOTE_READ;
	if (ib_access & IB_ACCESS_REMOTE_ATOMIC)
		access |= ROCX_ACCESS_REMOTE_ATOMIC;
	return access;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_access);

/**
 * rocx_ib_access_to_ib() - ib_core access flags of device access flags
 * @access: ROCX_ACCESS_* flags, as QUERY_QP reports them
 */
int rocx_ib_access_to_ib(u32 access)
{
	int ib_access = 0;

	if (access & ROCX_ACCESS_LOCAL_WRITE)
		ib_access |= IB_ACCESS_LOCAL_WRITE;
	if (access & ROCX_ACCESS_REMOTE_WRITE)
		ib_access |= IB_ACCESS_REMOTE_WRITE;
	if (access & ROCX_ACCESS_REMOTE_READ)
		ib_access |= IB_ACCESS_REMOTE_READ;
	if (access & ROCX_ACCESS_REMOTE_ATOMIC)
		ib_access |= IB_ACCESS_REMOTE_ATOMIC;
	if (access & ROCX_ACCESS_MW_BIND)
		ib_access |= IB_ACCESS_MW_BIND;
	return ib_access;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_access_to_ib);

/**
 * rocx_ib_mr_access() - device access flags for a new MR
 * @ib_access: IB_ACCESS_* flags of reg_user_mr
 * @caps2: the device's IDENTIFY.caps2
 * @access: set to the ROCX_ACCESS_* flags
 *
 * Return: 0, or -EOPNOTSUPP for what the device cannot do (memory
 * windows without ROCX_CAP2_MW, zero-based or on-demand regions,
 * persistence flushes).  Optional flags and pinning hints are ignored,
 * as ib_core allows.
 */
int rocx_ib_mr_access(int ib_access, u64 caps2, u32 *access)
{
	int known = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		    ROCX_IB_ACCESS_HINTS;

	if (caps2 & ROCX_CAP2_MW)
		known |= IB_ACCESS_MW_BIND;
	if (ib_access & ~known)
		return -EOPNOTSUPP;
	*access = rocx_ib_access(ib_access);
	if (ib_access & IB_ACCESS_MW_BIND)
		*access |= ROCX_ACCESS_MW_BIND;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_mr_access);

static int rocx_ib_dereg_mr_cmd(struct rocx_ib_dev *dev, u32 key)
{
	union rocx_aq_verbs_cmd cmd = {};

	cmd.dereg_mr.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_DEREG_MR);
	cmd.dereg_mr.key = cpu_to_le32(key);
	return rocx_ib_exec(dev, &cmd, NULL);
}

struct ib_mr *rocx_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access_flags,
				  struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibpd->device);
	struct rocx_ib_pd *pd = to_rocx_ib_pd(ibpd);
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_aq_cqe cqe;
	struct rocx_ib_pbl pbl;
	struct rocx_ib_mr *mr;
	u32 access, offset;
	int err;

	/* No driver-specific request is defined: accept only zeros. */
	err = rocx_ib_udata_in(udata, NULL, 0, 0);
	if (err)
		return ERR_PTR(err);
	err = rocx_ib_mr_access(access_flags, le64_to_cpu(dev->id->caps2),
				&access);
	if (err)
		return ERR_PTR(err);
	/* ib_core checks the user range; the device's range is ours. */
	if (!length || length > le64_to_cpu(dev->id->max_mr_size) ||
	    virt_addr + length < virt_addr)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length, access_flags);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}

	err = rocx_ib_pbl_from_umem(&pbl, &dev->pdev->dev, mr->umem,
				    dev->pgsz_bitmap, virt_addr, &offset);
	if (!err) {
		cmd.reg_mr.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_REG_MR);
		cmd.reg_mr.pdn = cpu_to_le32(pd->pdn);
		cmd.reg_mr.access = cpu_to_le32(access);
		cmd.reg_mr.iova = cpu_to_le64(virt_addr);
		cmd.reg_mr.length = cpu_to_le64(length);
		cmd.reg_mr.offset = cpu_to_le32(offset);
		rocx_ib_pbl_to_hw(&pbl, &cmd.reg_mr.pbl);
		err = rocx_ib_exec(dev, &cmd, &cqe);
	}
	rocx_ib_pbl_destroy(&pbl);
	if (err) {
		err = rocx_ib_verbs_errno(err);
		goto err_release;
	}

	mr->ibmr.lkey = le32_to_cpu(cqe.result);
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ib_access = access_flags;
	return &mr->ibmr;

err_release:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/* What the device no longer reaches: user pages, a fast-register list. */
static void rocx_ib_mr_release(struct rocx_ib_mr *mr)
{
	ib_umem_release(mr->umem);
	rocx_ib_pbl_destroy(&mr->pbl);
}

int rocx_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibmr->device);
	struct rocx_ib_mr *mr = to_rocx_ib_mr(ibmr);
	int err;

	err = rocx_ib_dereg_mr_cmd(dev, ibmr->lkey);
	if (err && err != -ENODEV)
		/*
		 * As for CQs: ib_core cannot keep the MR, and the device may
		 * still reach its pages, so they stay pinned.
		 */
		ibdev_err(&dev->ibdev,
			  "DEREG_MR %#x failed (%d); leaking its pages\n",
			  ibmr->lkey, err);
	else
		rocx_ib_mr_release(mr);
	kfree(mr);
	return 0;
}
