// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib: the auxiliary driver and the ib_device's life cycle.
 *
 * CQs and QPs serve user space (the provider posts and polls their queues
 * itself) and kernel consumers (rocx_ib_datapath.c).  With every verb
 * ib_device_check_mandatory() asks for present, the device is a
 * kverbs_provider: ib_mad, ib_cm and rdma_cm open it.
 */
#include <kunit/visibility.h>
#include <linux/module.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>
#include <rdma/rocx-abi.h>

#include "rocx_ib.h"

/**
 * rocx_ib_link_event() - the port event a LINK_STATUS value stands for
 * @link_status: LINK_CHANGE event data (a ROCX_REG_LINK_STATUS value)
 */
VISIBLE_IF_KUNIT enum ib_event_type rocx_ib_link_event(u32 link_status)
{
	return (link_status & ROCX_LINK_UP) ? IB_EVENT_PORT_ACTIVE :
					      IB_EVENT_PORT_ERR;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_link_event);

static void rocx_ib_dispatch(struct rocx_ib_dev *dev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.element.port_num = ROCX_IB_PORT,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/*
 * Tell ib_core (and through it every user context) about a port state
 * it has not heard yet.  Duplicates are dropped, so this may be called
 * with the same state twice, as probe does to close its registration race.
 */
static void rocx_ib_port_report(struct rocx_ib_dev *dev, u32 link_status)
{
	enum ib_event_type type = rocx_ib_link_event(link_status);
	bool up = type == IB_EVENT_PORT_ACTIVE;

	mutex_lock(&dev->port_lock);
	if (up != dev->link_up) {
		dev->link_up = up;
		ibdev_info(&dev->ibdev, "port %s\n", up ? "active" : "down");
		rocx_ib_dispatch(dev, type);
	}
	mutex_unlock(&dev->port_lock);
}

/* Called by rocx_core from a work item for each EQ 0 entry. */
static void rocx_ib_event(void *priv, const struct rocx_eqe *eqe)
{
	struct rocx_ib_dev *dev = priv;

	switch (le16_to_cpu(eqe->type)) {
	case ROCX_EQE_LINK_CHANGE:
		rocx_ib_port_report(dev, le32_to_cpu(eqe->data));
		break;
	case ROCX_EQE_FATAL:
		/*
		 * rocx_core resets the function, which unbinds us: ib_core
		 * then disassociates the user contexts, whose last event is
		 * IB_EVENT_DEVICE_FATAL.  Sending one now as well would end
		 * their event stream early (and twice).
		 */
		ibdev_err(&dev->ibdev, "device reported a fatal error; rocx_core resets it\n");
		break;
	case ROCX_EQE_EQ_OVERFLOW:
		/*
		 * rocx_core passes it on only from a device that reports lost
		 * events (ROCX_CAP2_EQ_OVERFLOW_EVENT).  A lost LINK_CHANGE
		 * would leave ib_core's port state stale: read it again.
		 * Lost QP and CQ errors are not recovered: the objects'
		 * outstanding work still completes in error.
		 */
		rocx_ib_port_report(dev, rocx_link_up(dev->core) ? ROCX_LINK_UP : 0);
		break;
	case ROCX_EQE_QP_ERROR:
		rocx_ib_qp_event(dev, le32_to_cpu(eqe->data),
				 le64_to_cpu(eqe->info));
		break;
	case ROCX_EQE_CQ_ERROR:
		rocx_ib_cq_event(dev, le32_to_cpu(eqe->data));
		break;
	case ROCX_EQE_SRQ_LIMIT:
	case ROCX_EQE_SRQ_ERROR:
		rocx_ib_srq_event(dev, le32_to_cpu(eqe->data),
				  le16_to_cpu(eqe->type));
		break;
	case ROCX_EQE_QP_LAST_WQE:
		rocx_ib_qp_last_wqe(dev, le32_to_cpu(eqe->data));
		break;
	default:
		/* Guest errors are rocx_core's to log. */
		break;
	}
}

static const struct rocx_event_ops rocx_ib_event_ops = {
	.event = rocx_ib_event,
};

static const struct ib_device_ops rocx_ib_dev_ops = {
	.owner = THIS_MODULE,
	/* Out of tree: libibverbs matches the provider by PCI ID instead. */
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = ROCX_UVERBS_ABI_VERSION,

	.add_gid = rocx_ib_add_gid,
	.alloc_mw = rocx_ib_alloc_mw,
	.alloc_pd = rocx_ib_alloc_pd,
	.alloc_ucontext = rocx_ib_alloc_ucontext,
	.attach_mcast = rocx_ib_attach_mcast,
	.create_ah = rocx_ib_create_ah,
	.create_cq = ROCX_IB_CREATE_CQ,
	.create_qp = rocx_ib_create_qp,
	.create_user_ah = rocx_ib_create_user_ah,
	.dealloc_mw = rocx_ib_dealloc_mw,
	.dealloc_pd = rocx_ib_dealloc_pd,
	.dealloc_ucontext = rocx_ib_dealloc_ucontext,
	.del_gid = rocx_ib_del_gid,
	.detach_mcast = rocx_ib_detach_mcast,
	.dereg_mr = rocx_ib_dereg_mr,
	.destroy_ah = rocx_ib_destroy_ah,
	.destroy_cq = rocx_ib_destroy_cq,
	.destroy_qp = rocx_ib_destroy_qp,
	.disassociate_ucontext = rocx_ib_disassociate_ucontext,
	.fill_res_cq_entry = rocx_ib_fill_res_cq_entry,
	.fill_res_mr_entry = rocx_ib_fill_res_mr_entry,
	.fill_res_qp_entry = rocx_ib_fill_res_qp_entry,
	.get_dev_fw_str = rocx_ib_get_dev_fw_str,
	.get_link_layer = rocx_ib_get_link_layer,
	.get_port_immutable = rocx_ib_get_port_immutable,
	.mmap = rocx_ib_mmap,
	.mmap_free = rocx_ib_mmap_free,
	.modify_qp = rocx_ib_modify_qp,
	.poll_cq = rocx_ib_poll_cq,
	.post_recv = rocx_ib_post_recv,
	.post_send = rocx_ib_post_send,
	.query_device = rocx_ib_query_device,
	.query_pkey = rocx_ib_query_pkey,
	.query_port = rocx_ib_query_port,
	.query_qp = rocx_ib_query_qp,
	.reg_user_mr = rocx_ib_reg_user_mr,
	.req_notify_cq = rocx_ib_req_notify_cq,
	.rereg_user_mr = rocx_ib_rereg_user_mr,

	INIT_RDMA_OBJ_SIZE(ib_ah, rocx_ib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, rocx_ib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, rocx_ib_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, rocx_ib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, rocx_ib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rocx_ib_ucontext, ibuc),
};

/* Only for a device with ROCX_CAP2_CQ_RESIZE. */
static const struct ib_device_ops rocx_ib_cq_resize_ops = {
	.resize_cq = rocx_ib_resize_cq,
};

/* Only for a device with ROCX_CAP2_SRQ. */
static const struct ib_device_ops rocx_ib_srq_ops = {
	.create_srq = rocx_ib_create_srq,
	.destroy_srq = rocx_ib_destroy_srq,
	.modify_srq = rocx_ib_modify_srq,
	.query_srq = rocx_ib_query_srq,
	.post_srq_recv = rocx_ib_post_srq_recv,

	INIT_RDMA_OBJ_SIZE(ib_srq, rocx_ib_srq, ibsrq),
};

/* Only for a device with ROCX_CAP2_XRC (and SRQs to receive into). */
static const struct ib_device_ops rocx_ib_xrc_ops = {
	.alloc_xrcd = rocx_ib_alloc_xrcd,
	.dealloc_xrcd = rocx_ib_dealloc_xrcd,

	INIT_RDMA_OBJ_SIZE(ib_xrcd, rocx_ib_xrcd, ibxrcd),
};

static int rocx_ib_probe(struct auxiliary_device *adev,
			 const struct auxiliary_device_id *adev_id)
{
	struct rocx_core *core = to_rocx_aux_dev(adev)->core;
	const struct rocx_identify *id = rocx_identify(core);
	u32 caps = le32_to_cpu(id->caps);
	struct rocx_ib_dev *dev;
	struct ib_device *ibdev;
	int err;

	if (!(caps & ROCX_CAP_RDMA) ||
	    (caps & (ROCX_CAP_ROCE_V1 | ROCX_CAP_ROCE_V2)) !=
	    (ROCX_CAP_ROCE_V1 | ROCX_CAP_ROCE_V2) || !id->gid_tbl_len) {
		dev_err(&adev->dev,
			"device lacks RoCE v1/v2 (caps %#x, %u GIDs)\n",
			caps, le16_to_cpu(id->gid_tbl_len));
		return -ENODEV;
	}

	dev = ib_alloc_device(rocx_ib_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	ibdev = &dev->ibdev;
	dev->adev = adev;
	dev->core = core;
	dev->pdev = rocx_pci_dev(core);
	dev->netdev = rocx_netdev(core);
	dev->id = id;
	dev->pgsz_bitmap = rocx_ib_pgsz_bitmap(le64_to_cpu(id->page_size_cap));
	mutex_init(&dev->port_lock);
	xa_init_flags(&dev->cq_xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->qp_xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->srq_xa, XA_FLAGS_LOCK_IRQ);
	auxiliary_set_drvdata(adev, dev);

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	/* One completion EQ serves every CQ, whatever vector it asks for. */
	ibdev->num_comp_vectors = 1;
	/* The PCI function is the parent: libibverbs matches on its modalias. */
	ibdev->dev.parent = &dev->pdev->dev;
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, id->mac);
	ib_set_device_ops(ibdev, &rocx_ib_dev_ops);
	if (le64_to_cpu(id->caps2) & ROCX_CAP2_SRQ)
		ib_set_device_ops(ibdev, &rocx_ib_srq_ops);
	if (rocx_ib_has_stats(dev))
		ib_set_device_ops(ibdev, &rocx_ib_stats_ops);
	if (le64_to_cpu(id->caps2) & ROCX_CAP2_DCQCN)
		ib_set_device_ops(ibdev, &rocx_ib_cc_ops);
	if ((le64_to_cpu(id->caps2) & (ROCX_CAP2_SRQ | ROCX_CAP2_XRC)) ==
	    (ROCX_CAP2_SRQ | ROCX_CAP2_XRC))
		ib_set_device_ops(ibdev, &rocx_ib_xrc_ops);
	rocx_ib_fr_init(dev);
	if (le64_to_cpu(id->caps2) & ROCX_CAP2_CQ_RESIZE)
		ib_set_device_ops(ibdev, &rocx_ib_cq_resize_ops);

	err = ib_device_set_netdev(ibdev, dev->netdev, ROCX_IB_PORT);
	if (err) {
		dev_err(&adev->dev, "cannot attach netdev: %d\n", err);
		goto err_dealloc;
	}

	/*
	 * A device without a spare vector or EQ still serves contexts and
	 * PDs; creating a CQ then fails with -EOPNOTSUPP.
	 */
	err = rocx_ib_ceq_create(dev);
	if (err == -EOPNOTSUPP)
		dev_warn(&adev->dev, "no completion EQ (%d): no CQs\n", err);
	else if (err)
		goto err_dealloc;

	/*
	 * ib_core caches the port state during registration, but events are
	 * only forwarded once it is registered: note the state now and report
	 * any change that slipped between the two afterwards.
	 */
	dev->link_up = rocx_link_up(core);
	err = ib_register_device(ibdev, "rocx%d", &dev->pdev->dev);
	if (err) {
		dev_err(&adev->dev, "cannot register ib_device: %d\n", err);
		goto err_destroy_ceq;
	}
	rocx_register_events(core, &rocx_ib_event_ops, dev);
	rocx_ib_port_report(dev, rocx_link_up(core) ? ROCX_LINK_UP : 0);

	ibdev_info(ibdev, "registered on %s\n", netdev_name(dev->netdev));
	return 0;

err_destroy_ceq:
	rocx_ib_ceq_destroy(dev);
err_dealloc:
	mutex_destroy(&dev->port_lock);
	ib_dealloc_device(ibdev);
	return err;
}

static void rocx_ib_remove(struct auxiliary_device *adev)
{
	struct rocx_ib_dev *dev = auxiliary_get_drvdata(adev);

	/*
	 * Disassociates live user contexts rather than waiting for them,
	 * destroying their QPs, CQs and MRs: the EQ has no users after it.
	 * Kernel consumers drain their QPs first, and ib_drain_qp() of a QP
	 * on an SRQ waits for its QP_LAST_WQE event (60 s if none comes):
	 * events are still forwarded meanwhile.
	 */
	ib_unregister_device(&dev->ibdev);
	/* Returns once no event callback runs; none can follow. */
	rocx_register_events(dev->core, NULL, NULL);
	rocx_ib_ceq_destroy(dev);
	WARN_ON(!xa_empty(&dev->cq_xa) || !xa_empty(&dev->qp_xa) ||
		!xa_empty(&dev->srq_xa));
	xa_destroy(&dev->cq_xa);
	xa_destroy(&dev->qp_xa);
	xa_destroy(&dev->srq_xa);
	mutex_destroy(&dev->port_lock);
	ib_dealloc_device(&dev->ibdev);
}

static const struct auxiliary_device_id rocx_ib_id_table[] = {
	{ .name = "rocx_core." ROCX_AUX_DEV_NAME },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, rocx_ib_id_table);

static struct auxiliary_driver rocx_ib_driver = {
	.probe = rocx_ib_probe,
	.remove = rocx_ib_remove,
	.id_table = rocx_ib_id_table,
};
module_auxiliary_driver(rocx_ib_driver);

MODULE_IMPORT_NS(ROCX);
MODULE_DESCRIPTION("rocx RoCE adapter RDMA driver");
MODULE_LICENSE("Dual BSD/GPL");
