// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib memory windows and MR re-registration (contract 1.2,
 * ROCX_CAP2_MW).
 *
 * A window is only a key to the driver: the device binds it when the
 * provider posts a BIND_MW work request and checks it at every access,
 * so alloc_mw and dealloc_mw are one admin command each.  rereg_user_mr
 * changes an MR in place with REREG_MR and keeps its key.
 */
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "rocx_ib.h"

static bool rocx_ib_has_mw(struct rocx_ib_dev *dev)
{
	return le64_to_cpu(dev->id->caps2) & ROCX_CAP2_MW;
}

int rocx_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibmw->device);
	struct rocx_ib_pd *pd = to_rocx_ib_pd(ibmw->pd);
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_aq_cqe cqe;
	int err;

	if (!rocx_ib_has_mw(dev))
		return -EOPNOTSUPP;
	/* No driver-specific request is defined: accept only zeros. */
	err = rocx_ib_udata_in(udata, NULL, 0, 0);
	if (err)
		return err;
	switch (ibmw->type) {
	case IB_MW_TYPE_1:
		cmd.alloc_mw.type = ROCX_MW_TYPE_1;
		break;
	case IB_MW_TYPE_2:
		cmd.alloc_mw.type = ROCX_MW_TYPE_2;
		break;
	default:
		return -EINVAL;
	}
	cmd.alloc_mw.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_ALLOC_MW);
	cmd.alloc_mw.pdn = cpu_to_le32(pd->pdn);
	err = rocx_ib_exec(dev, &cmd, &cqe);
	if (err)
		return rocx_ib_verbs_errno(err);
	ibmw->rkey = le32_to_cpu(cqe.result);
	return 0;
}

int rocx_ib_dealloc_mw(struct ib_mw *ibmw)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibmw->device);
	union rocx_aq_verbs_cmd cmd = {};
	int err;

	cmd.dealloc_mw.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_DEALLOC_MW);
	cmd.dealloc_mw.key = cpu_to_le32(ibmw->rkey);
	err = rocx_ib_exec(dev, &cmd, NULL);
	/*
	 * ib_core frees the window whatever we say.  A window the device
	 * still holds grants nothing once its MR is gone (DEREG_MR unbinds
	 * it), so a failure costs a key, not memory safety.
	 */
	if (err && err != -ENODEV)
		ibdev_warn(&dev->ibdev, "DEALLOC_MW %#x failed (%d)\n",
			   ibmw->rkey, err);
	return 0;
}

struct ib_mr *rocx_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				    u64 length, u64 virt_addr, int access_flags,
				    struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibmr->device);
	struct rocx_ib_mr *mr = to_rocx_ib_mr(ibmr);
	int ib_access = flags & IB_MR_REREG_ACCESS ? access_flags :
			mr->ib_access;
	union rocx_aq_verbs_cmd cmd = {};
	struct ib_umem *umem = NULL;
	struct rocx_ib_pbl pbl;
	u32 access, offset;
	int err;

	if (!rocx_ib_has_mw(dev))
		return ERR_PTR(-EOPNOTSUPP);
	err = rocx_ib_udata_in(udata, NULL, 0, 0);
	if (err)
		return ERR_PTR(err);
	/*
	 * Without a new translation the device keeps the pages pinned at
	 * registration: if they were pinned for reading only (a read-only
	 * file's page cache, the zero page), write access must not reach
	 * them.
	 */
	err = ib_umem_check_rereg(mr->umem, flags, access_flags);
	if (err)
		return ERR_PTR(err);
	err = rocx_ib_mr_access(ib_access, le64_to_cpu(dev->id->caps2),
				&access);
	if (err)
		return ERR_PTR(err);

	cmd.rereg_mr.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_REREG_MR);
	cmd.rereg_mr.key = cpu_to_le32(ibmr->lkey);
	if (flags & IB_MR_REREG_ACCESS) {
		cmd.rereg_mr.valid |= cpu_to_le32(ROCX_REREG_ACCESS);
		cmd.rereg_mr.access = cpu_to_le32(access);
	}
	if (flags & IB_MR_REREG_PD) {
		cmd.rereg_mr.valid |= cpu_to_le32(ROCX_REREG_PD);
		cmd.rereg_mr.pdn = cpu_to_le32(to_rocx_ib_pd(ibpd)->pdn);
	}
	if (!(flags & IB_MR_REREG_TRANS)) {
		err = rocx_ib_exec(dev, &cmd, NULL);
		goto out;
	}

	if (!length || length > le64_to_cpu(dev->id->max_mr_size) ||
	    virt_addr + length < virt_addr)
		return ERR_PTR(-EINVAL);
	umem = ib_umem_get(ibmr->device, start, length, ib_access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	err = rocx_ib_pbl_from_umem(&pbl, &dev->pdev->dev, umem,
				    dev->pgsz_bitmap, virt_addr, &offset);
	if (!err) {
		cmd.rereg_mr.valid |= cpu_to_le32(ROCX_REREG_TRANS);
		cmd.rereg_mr.iova = cpu_to_le64(virt_addr);
		cmd.rereg_mr.length = cpu_to_le64(length);
		cmd.rereg_mr.offset = cpu_to_le32(offset);
		rocx_ib_pbl_to_hw(&pbl, &cmd.rereg_mr.pbl);
		err = rocx_ib_exec(dev, &cmd, NULL);
	}
	rocx_ib_pbl_destroy(&pbl);
	if (err) {
		/* The device kept the old pages: so do we. */
		ib_umem_release(umem);
		goto out;
	}
	/* From here on the device reaches only the new pages. */
	ib_umem_release(mr->umem);
	mr->umem = umem;
out:
	if (err)
		return ERR_PTR(rocx_ib_verbs_errno(err));
	mr->ib_access = ib_access;
	/* In place: the key, and so ib_core's MR, stay the same. */
	return NULL;
}
