// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib device, port, user context and PD verbs.
 */
#include <kunit/visibility.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rocx-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rocx_ib.h"

/* Request capabilities (rocx_alloc_ucontext_req.comp_mask) this driver knows. */
#define ROCX_IB_UCONTEXT_REQ_KNOWN	0ULL

/* ---- Pure translations, covered by rocx_ib_test.c ---- */

/**
 * rocx_ib_mtu_from_netdev() - largest IB MTU a RoCE packet fits in
 * @mtu: the netdev's MTU (L3 bytes)
 *
 * The IB MTU is the payload of one packet; the L3 packet also carries the
 * worst case of RoCE headers (GRH or IP/UDP, BTH, extended headers, ICRC).
 *
 * Return: the IB MTU, or 0 when not even IB_MTU_256 fits.
 */
VISIBLE_IF_KUNIT enum ib_mtu rocx_ib_mtu_from_netdev(unsigned int mtu)
{
	return iboe_get_mtu(min_t(unsigned int, mtu, INT_MAX));
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_mtu_from_netdev);

/*
 * IB signalling rates that describe an Ethernet link speed, slowest first.
 * Rates are in units of 100 Mb/s so that SDR's 2.5 Gb/s per lane is exact.
 */
static const struct {
	u32 rate;
	u16 speed;
	u8 width;
} rocx_ib_rates[] = {
	{    25, IB_SPEED_SDR, IB_WIDTH_1X },
	{    50, IB_SPEED_DDR, IB_WIDTH_1X },
	{   100, IB_SPEED_QDR, IB_WIDTH_1X },
	{   140, IB_SPEED_FDR, IB_WIDTH_1X },
	{   200, IB_SPEED_DDR, IB_WIDTH_4X },
	{   250, IB_SPEED_EDR, IB_WIDTH_1X },
	{   400, IB_SPEED_QDR, IB_WIDTH_4X },
	{   500, IB_SPEED_HDR, IB_WIDTH_1X },
	{   560, IB_SPEED_FDR, IB_WIDTH_4X },
	{  1000, IB_SPEED_EDR, IB_WIDTH_4X },
	{  2000, IB_SPEED_HDR, IB_WIDTH_4X },
	{  4000, IB_SPEED_NDR, IB_WIDTH_4X },
	{  8000, IB_SPEED_XDR, IB_WIDTH_4X },
	{ 16000, IB_SPEED_XDR, IB_WIDTH_8X },
};

/**
 * rocx_ib_speed_width() - express an Ethernet link speed as IB speed x width
 * @gbps: LINK_STATUS speed in Gb/s
 * @speed: IB_SPEED_*
 * @width: IB_WIDTH_*
 *
 * Picks the slowest IB rate that is at least the link speed, so that tools
 * computing "rate = speed * width" never report less than the link has.
 */
VISIBLE_IF_KUNIT void rocx_ib_speed_width(u32 gbps, u16 *speed, u8 *width)
{
	u64 rate = (u64)gbps * 10;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rocx_ib_rates) - 1; i++)
		if (rocx_ib_rates[i].rate >= rate)
			break;
	*speed = rocx_ib_rates[i].speed;
	*width = rocx_ib_rates[i].width;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_speed_width);

/**
 * rocx_ib_phys_state() - IB physical port state from LINK_STATUS
 * @link_status: value of ROCX_REG_LINK_STATUS
 *
 * Return: LINK_UP when the link is up, DISABLED while the driver holds the
 * port administratively down, POLLING while it waits for a carrier.
 */
VISIBLE_IF_KUNIT u8 rocx_ib_phys_state(u32 link_status)
{
	if (link_status & ROCX_LINK_UP)
		return IB_PORT_PHYS_STATE_LINK_UP;
	if (!(link_status & ROCX_LINK_ADMIN_UP))
		return IB_PORT_PHYS_STATE_DISABLED;
	return IB_PORT_PHYS_STATE_POLLING;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_phys_state);

/* Device limits are u32; ib_device_attr holds most of them in an int. */
static int rocx_ib_limit(__le32 v)
{
	return min_t(u32, le32_to_cpu(v), INT_MAX);
}

/**
 * rocx_ib_identify_to_attr() - device attributes from the identify block
 * @id: identify block as the device wrote it (little endian)
 * @attr: filled in; the caller zeroed it and adds the PCI identity and GUID
 */
VISIBLE_IF_KUNIT void rocx_ib_identify_to_attr(const struct rocx_identify *id,
					       struct ib_device_attr *attr)
{
	unsigned long pgsz = rocx_ib_pgsz_bitmap(le64_to_cpu(id->page_size_cap));
	u32 fw = le32_to_cpu(id->fw_version);
	u64 caps2 = le64_to_cpu(id->caps2);
	u64 res_rd_atom, pbl_reach;
	u32 max_cqe;

	attr->fw_ver = (u64)(fw >> 16) << 32 | ((fw >> 8) & 0xff) << 16 |
		       (fw & 0xff);
	/*
	 * Only the page sizes a page list can carry, and no region larger
	 * than one list describes in the smallest of them: one page short of
	 * ROCX_PBL_MAX_PAGES, so that it fits at any offset into its first
	 * page.  Memory in larger pages may register more, up to the
	 * device's own max_mr_size.
	 */
	attr->page_size_cap = pgsz;
	pbl_reach = (u64)(ROCX_PBL_MAX_PAGES - 1) << __ffs(pgsz);
	attr->max_mr_size = min(le64_to_cpu(id->max_mr_size), pbl_reach);
	attr->max_qp = rocx_ib_limit(id->max_qp);
	attr->max_qp_wr = rocx_ib_limit(id->max_qp_wr);
	attr->max_send_sge = rocx_ib_limit(id->max_sge);
	attr->max_recv_sge = attr->max_send_sge;
	attr->max_sge_rd = attr->max_send_sge;
	attr->max_cq = rocx_ib_limit(id->max_cq);
	/*
	 * A CQ ring is a power of two of at most 2^16 entries that the device
	 * must take whole (rocx_ib_cq_check()): more is never possible.
	 */
	max_cqe = min_t(u32, le32_to_cpu(id->max_cqe),
			BIT(ROCX_IB_CQ_MAX_LOG_DEPTH));
	attr->max_cqe = max_cqe ? rounddown_pow_of_two(max_cqe) : 0;
	attr->max_mr = rocx_ib_limit(id->max_mr);
	attr->max_pd = rocx_ib_limit(id->max_pd);
	attr->max_qp_rd_atom = rocx_ib_limit(id->max_rd_atom);
	attr->max_qp_init_rd_atom = attr->max_qp_rd_atom;
	res_rd_atom = (u64)attr->max_qp * attr->max_qp_rd_atom;
	attr->max_res_rd_atom = min_t(u64, res_rd_atom, INT_MAX);
	/*
	 * SRQs only where create_srq is offered (ROCX_CAP2_SRQ).  A ring is a
	 * power of two of at most 2^15 entries the device must take whole
	 * (rocx_ib_srq_check()), so max_srq_wr is the largest such.
	 */
	if (le64_to_cpu(id->caps2) & ROCX_CAP2_SRQ) {
		u32 max_srq_wr = min_t(u32, le32_to_cpu(id->max_srq_wr),
				       BIT(ROCX_SRQ_MAX_LOG_DEPTH));

		attr->max_srq = rocx_ib_limit(id->max_srq);
		attr->max_srq_wr = max_srq_wr ?
				   rounddown_pow_of_two(max_srq_wr) : 0;
		attr->max_srq_sge = min_t(u32, rocx_ib_limit(id->max_srq_sge),
					  (BIT(ROCX_IB_RQ_MAX_WQE_SHIFT) -
					   ROCX_RECV_WQE_HDR) /
					  sizeof(struct rocx_sge));
	}
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = ROCX_IB_LOCAL_ACK_DELAY;
	/*
	 * Atomic against the device's own atomics only (HCA): it executes
	 * them as DMA read-modify-writes, which the CPUs do not see as one
	 * access.  No masked atomics.  A value this driver does not know
	 * promises nothing.
	 */
	if ((le64_to_cpu(id->caps2) & ROCX_CAP2_ATOMIC) &&
	    id->atomic_cap == ROCX_ATOMIC_CAP_HCA)
		attr->atomic_cap = IB_ATOMIC_HCA;
	else
		attr->atomic_cap = IB_ATOMIC_NONE;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID;
	/* UD AHs are provider memory: the device sets no limit on them. */
	if (le64_to_cpu(id->caps2) & ROCX_CAP2_UD)
		attr->max_ah = INT_MAX;
	/*
	 * XRC receives into XRC SRQs: both parts or neither.  ib_core has no
	 * XRCD limit to report; ALLOC_XRCD fails beyond IDENTIFY.max_xrcd.
	 */
	if ((le64_to_cpu(id->caps2) & (ROCX_CAP2_SRQ | ROCX_CAP2_XRC)) ==
	    (ROCX_CAP2_SRQ | ROCX_CAP2_XRC))
		attr->device_cap_flags |= IB_DEVICE_XRC;
	/*
	 * Fast registration (rocx_ib_fr.c): the local DMA lkey, and the
	 * REG_MR and LOCAL_INV work requests of the kernel post_send, which
	 * nvme-rdma and iSER require.
	 */
	if (rocx_ib_fr_supported(id)) {
		attr->kernel_cap_flags |= IBK_LOCAL_DMA_LKEY;
		attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		attr->max_fast_reg_page_list_len = rocx_ib_fr_max_pages(id);
	}
	/* Resizing needs create_srq too (rocx_ib_resize.c). */
	if ((le64_to_cpu(id->caps2) & (ROCX_CAP2_SRQ | ROCX_CAP2_SRQ_RESIZE)) ==
	    (ROCX_CAP2_SRQ | ROCX_CAP2_SRQ_RESIZE))
		attr->device_cap_flags |= IB_DEVICE_SRQ_RESIZE;
	if (le64_to_cpu(id->caps2) & ROCX_CAP2_MW) {
		/* Type 2 windows are bound to one QP: type 2B. */
		attr->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					  IB_DEVICE_MEM_WINDOW_TYPE_2B;
		attr->max_mw = rocx_ib_limit(id->max_mw);
	}
	/*
	 * Completion timestamps: the device clock in 64-byte CQEs, all 64
	 * bits of it, counting at clock_khz.
	 */
	if ((caps2 & ROCX_CAP2_CQE64) && (caps2 & ROCX_CAP2_CLOCK) &&
	    (le32_to_cpu(id->cqe_formats) & BIT(ROCX_CQE_FORMAT_64)) &&
	    le32_to_cpu(id->clock_khz)) {
		attr->timestamp_mask = U64_MAX;
		attr->hca_core_clock = le32_to_cpu(id->clock_khz);
	}
	if (le64_to_cpu(id->caps2) & ROCX_CAP2_MCAST) {
		u64 total;

		attr->max_mcast_grp = rocx_ib_limit(id->max_mcast_grp);
		attr->max_mcast_qp_attach =
			rocx_ib_limit(id->max_mcast_qp_attach);
		/* Each group holds its own QPs: the table's whole reach. */
		total = (u64)attr->max_mcast_grp * attr->max_mcast_qp_attach;
		attr->max_total_mcast_qp_attach = min_t(u64, total, INT_MAX);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_identify_to_attr);

/* ---- Device and port ---- */

int rocx_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			 struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibdev);

	/* No driver-specific input is defined; refuse what we cannot honour. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	rocx_ib_identify_to_attr(dev->id, attr);
	attr->vendor_id = dev->pdev->vendor;
	attr->vendor_part_id = dev->pdev->device;
	attr->hw_ver = dev->pdev->revision;
	attr->sys_image_guid = ibdev->node_guid;
	return 0;
}

void rocx_ib_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u32 fw = le32_to_cpu(to_rocx_ib_dev(ibdev)->id->fw_version);

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u",
		 fw >> 16, (fw >> 8) & 0xff, fw & 0xff);
}

int rocx_ib_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *attr)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibdev);
	union rocx_aq_cmd cmd = {};
	struct rocx_aq_cqe cqe;
	u32 link;
	int err;

	/* The device, not the netdev's view, knows the carrier and speed. */
	cmd.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_QUERY_PORT);
	err = rocx_admin_exec(dev->core, &cmd, &cqe);
	if (err)
		return err;
	link = le32_to_cpu(cqe.result);

	/* ib_core zeroed *attr. */
	attr->state = (link & ROCX_LINK_UP) ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = rocx_ib_phys_state(link);
	attr->max_mtu = rocx_ib_mtu_from_netdev(le16_to_cpu(dev->id->max_mtu));
	attr->active_mtu = rocx_ib_mtu_from_netdev(READ_ONCE(dev->netdev->mtu));
	attr->phys_mtu = le16_to_cpu(dev->id->max_mtu);
	rocx_ib_speed_width(ROCX_FIELD_GET(ROCX_LINK_SPEED_MASK, link),
			    &attr->active_speed, &attr->active_width);
	attr->gid_tbl_len = le16_to_cpu(dev->id->gid_tbl_len);
	attr->ip_gids = true;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = ROCX_IB_MAX_MSG_SZ;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	return 0;
}

int rocx_ib_get_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *immutable)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibdev);

	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
				    RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = le16_to_cpu(dev->id->gid_tbl_len);
	immutable->pkey_tbl_len = 1;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer rocx_ib_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

int rocx_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		       u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/* ---- User contexts ---- */

static int rocx_ib_uctx_cmd(struct rocx_ib_dev *dev, u16 op, u32 uctx,
			    struct rocx_aq_cqe *cqe)
{
	union rocx_aq_cmd cmd = {};

	cmd.uctx.hdr.opcode = cpu_to_le16(op);
	cmd.uctx.uctx = cpu_to_le32(uctx);
	return rocx_ib_admin(dev, &cmd, cqe);
}

static void rocx_ib_dealloc_uctx(struct rocx_ib_dev *dev, u32 uctx)
{
	int err = rocx_ib_uctx_cmd(dev, ROCX_AQ_OP_DEALLOC_UCTX, uctx, NULL);

	/*
	 * Nothing to retry: a device being removed (-ENODEV) or reset forgets
	 * every context anyway.
	 */
	if (err && err != -ENODEV)
		ibdev_warn(&dev->ibdev, "DEALLOC_UCTX %u failed: %d\n",
			   uctx, err);
}

/**
 * rocx_ib_ucontext_resp() - the response to alloc_ucontext
 * @dev: device
 * @uc: the new context, its doorbell page's mmap entry inserted
 * @resp: zeroed response to fill
 */
VISIBLE_IF_KUNIT void
rocx_ib_ucontext_resp(const struct rocx_ib_dev *dev,
		      const struct rocx_ib_ucontext *uc,
		      struct rocx_alloc_ucontext_resp *resp)
{
	resp->comp_mask = ROCX_UCONTEXT_RESP_DB | ROCX_UCONTEXT_RESP_REQ_COMP;
	resp->db_mmap_key = rdma_user_mmap_get_offset(uc->db_entry);
	resp->db_page_size = ROCX_DB_PAGE_SIZE;
	resp->uctx = uc->uctx;
	resp->dev_caps = le32_to_cpu(dev->id->caps);
	resp->max_inline = le32_to_cpu(dev->id->max_inline);
	resp->max_sge = le32_to_cpu(dev->id->max_sge);
	resp->cq_req_comp = rocx_ib_cq_req_comp(dev->id);
	resp->qp_req_comp = rocx_ib_qp_req_comp(dev->id);
	/* A readable mapping of the page gives nothing more than the clock. */
	if (le64_to_cpu(dev->id->caps2) & ROCX_CAP2_USER_CLOCK)
		resp->comp_mask |= ROCX_UCONTEXT_RESP_DB_CLOCK;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_ucontext_resp);

int rocx_ib_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct rocx_ib_ucontext *uc = to_rocx_ib_ucontext(ibuc);
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibuc->device);
	struct rocx_alloc_ucontext_resp resp = {};
	struct rocx_alloc_ucontext_req req = {};
	struct rocx_ib_mmap_entry *entry;
	struct rocx_aq_cqe cqe;
	phys_addr_t db_addr;
	int err;

	/*
	 * A doorbell page is 4 KiB; a larger CPU page would expose the
	 * neighbouring contexts' pages to this one.
	 */
	if (PAGE_SIZE != ROCX_DB_PAGE_SIZE)
		return -EOPNOTSUPP;

	/* The first providers sent no request at all. */
	err = rocx_ib_udata_in(udata, &req, sizeof(req), 0);
	if (err)
		return err;
	if (req.comp_mask & ~ROCX_IB_UCONTEXT_REQ_KNOWN) {
		ibdev_dbg(&dev->ibdev, "unknown ucontext request bits %#llx\n",
			  req.comp_mask & ~ROCX_IB_UCONTEXT_REQ_KNOWN);
		return -EOPNOTSUPP;
	}

	err = rocx_ib_uctx_cmd(dev, ROCX_AQ_OP_ALLOC_UCTX, 0, &cqe);
	if (err)
		return rocx_ib_verbs_errno(err);
	uc->uctx = le32_to_cpu(cqe.result);
	/*
	 * The context id is its doorbell page; rocx_core knows which pages
	 * BAR2 really holds (the identify block's count may be more).
	 */
	if (rocx_ib_db_page(dev, uc->uctx, &db_addr)) {
		ibdev_err(&dev->ibdev,
			  "device gave user context %u, which has no doorbell page\n",
			  uc->uctx);
		err = -EIO;
		goto err_dealloc_uctx;
	}

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry) {
		err = -ENOMEM;
		goto err_dealloc_uctx;
	}
	entry->addr = db_addr;
	err = rdma_user_mmap_entry_insert(ibuc, &entry->rdma, PAGE_SIZE);
	if (err) {
		kfree(entry);
		goto err_dealloc_uctx;
	}
	uc->db_entry = &entry->rdma;

	rocx_ib_ucontext_resp(dev, uc, &resp);
	err = rocx_ib_udata_out(udata, &resp, sizeof(resp));
	if (err)
		goto err_remove_entry;
	return 0;

err_remove_entry:
	rdma_user_mmap_entry_remove(uc->db_entry);
err_dealloc_uctx:
	rocx_ib_dealloc_uctx(dev, uc->uctx);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_alloc_ucontext);

void rocx_ib_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct rocx_ib_ucontext *uc = to_rocx_ib_ucontext(ibuc);

	/*
	 * ib_core calls this once no process maps the context's pages any
	 * more (the last munmap, or disassociation zapped them), so the
	 * device may hand the doorbell page to the next context.
	 */
	rdma_user_mmap_entry_remove(uc->db_entry);
	rocx_ib_dealloc_uctx(to_rocx_ib_dev(ibuc->device), uc->uctx);
}

/*
 * ib_core zaps every mapping made through rdma_user_mmap_io() before it
 * calls this, and then destroys the context's objects with the ordinary
 * verbs; nothing is left for the driver to revoke.  Having the callback at
 * all is what lets ib_unregister_device() proceed with processes still
 * holding the device open.
 */
void rocx_ib_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

int rocx_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibuc->device);
	struct rdma_user_mmap_entry *rdma;
	struct rocx_ib_mmap_entry *entry;
	int err;

	rdma = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma) {
		ibdev_dbg(&dev->ibdev, "no mmap entry at pgoff %#lx\n",
			  vma->vm_pgoff);
		return -EINVAL;
	}
	entry = to_rocx_ib_mmap_entry(rdma);

	if (vma->vm_flags & VM_EXEC) {
		err = -EPERM;
		goto out_put;
	}
	/* Doorbells are MMIO: every write must reach the device, in order. */
	err = rdma_user_mmap_io(ibuc, vma, PHYS_PFN(entry->addr), PAGE_SIZE,
				pgprot_noncached(vma->vm_page_prot), rdma);
out_put:
	rdma_user_mmap_entry_put(rdma);
	return err;
}

void rocx_ib_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	kfree(to_rocx_ib_mmap_entry(rdma));
}

/* ---- Protection domains ---- */

static int rocx_ib_pd_cmd(struct rocx_ib_dev *dev, u16 op, u32 pdn, u32 uctx,
			  struct rocx_aq_cqe *cqe)
{
	union rocx_aq_cmd cmd = {};

	cmd.pd.hdr.opcode = cpu_to_le16(op);
	cmd.pd.pdn = cpu_to_le32(pdn);
	cmd.pd.uctx = cpu_to_le32(uctx);
	return rocx_ib_admin(dev, &cmd, cqe);
}

int rocx_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rocx_ib_ucontext *uc = rdma_udata_to_drv_context(udata,
		struct rocx_ib_ucontext, ibuc);
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibpd->device);
	struct rocx_ib_pd *pd = to_rocx_ib_pd(ibpd);
	struct rocx_alloc_pd_resp resp = {};
	struct rocx_aq_cqe cqe;
	int err;

	/* No request is defined: a newer provider's must be all zero. */
	if (udata) {
		err = rocx_ib_udata_in(udata, NULL, 0, 0);
		if (err)
			return err;
	}
	pd->uctx = uc ? uc->uctx : 0;
	err = rocx_ib_pd_cmd(dev, ROCX_AQ_OP_CREATE_PD, 0, pd->uctx, &cqe);
	if (err)
		return rocx_ib_verbs_errno(err);
	pd->pdn = le32_to_cpu(cqe.result);

	if (udata) {
		resp.pdn = pd->pdn;
		err = rocx_ib_udata_out(udata, &resp, sizeof(resp));
		if (err) {
			rocx_ib_pd_cmd(dev, ROCX_AQ_OP_DESTROY_PD, pd->pdn,
				       pd->uctx, NULL);
			return err;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_alloc_pd);

int rocx_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibpd->device);
	struct rocx_ib_pd *pd = to_rocx_ib_pd(ibpd);
	int err;

	err = rocx_ib_pd_cmd(dev, ROCX_AQ_OP_DESTROY_PD, pd->pdn, pd->uctx,
			     NULL);
	/*
	 * Failing would leave ib_core holding a PD it cannot free (on device
	 * removal it retries, then gives up); the device's PD is gone anyway
	 * once the device is gone (-ENODEV) or reset.
	 */
	if (err && err != -ENODEV)
		ibdev_warn(&dev->ibdev, "DESTROY_PD %u failed: %d\n",
			   pd->pdn, err);
	return 0;
}
