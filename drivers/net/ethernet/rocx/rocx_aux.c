// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx auxiliary device for the RDMA driver, and the rocx_api.h functions
 * it reaches the device through (rocx_admin_exec() and
 * rocx_status_to_errno() live in rocx_aq.c).
 */
#include <linux/idr.h>
#include <linux/slab.h>

#include "rocx.h"

/* Auxiliary device ids; unique across PCI domains, unlike the BDF. */
static DEFINE_IDA(rocx_aux_ida);

static void rocx_aux_release(struct device *dev)
{
	struct rocx_aux_dev *aux = to_rocx_aux_dev(to_auxiliary_dev(dev));

	ida_free(&rocx_aux_ida, aux->adev.id);
	kfree(aux);
}

/**
 * rocx_aux_create() - create "rocx_core.rdma.<id>" if the device has RDMA
 * @core: device with a registered netdev
 *
 * Return: 0 (also without ROCX_CAP_RDMA) or an errno.
 */
int rocx_aux_create(struct rocx_core *core)
{
	struct rocx_aux_dev *aux;
	int id, err;

	if (!(core->caps & ROCX_CAP_RDMA))
		return 0;
	aux = kzalloc(sizeof(*aux), GFP_KERNEL);
	if (!aux)
		return -ENOMEM;
	id = ida_alloc(&rocx_aux_ida, GFP_KERNEL);
	if (id < 0) {
		kfree(aux);
		return id;
	}
	aux->core = core;
	aux->adev.name = ROCX_AUX_DEV_NAME;
	aux->adev.id = id;
	aux->adev.dev.parent = rocx_dev(core);
	aux->adev.dev.release = rocx_aux_release;

	err = auxiliary_device_init(&aux->adev);
	if (err) {
		ida_free(&rocx_aux_ida, id);
		kfree(aux);
		return err;
	}
	err = auxiliary_device_add(&aux->adev);
	if (err) {
		/* The release callback frees the id and aux. */
		auxiliary_device_uninit(&aux->adev);
		return err;
	}
	core->aux = aux;
	return 0;
}

/**
 * rocx_aux_destroy() - remove the auxiliary device, unbinding rocx_ib
 * @core: device
 */
void rocx_aux_destroy(struct rocx_core *core)
{
	struct rocx_aux_dev *aux = core->aux;

	if (!aux)
		return;
	core->aux = NULL;
	auxiliary_device_delete(&aux->adev);
	auxiliary_device_uninit(&aux->adev);
	/* rocx_ib's remove is over: nothing can be registered any more. */
	WARN_ON(core->ev_ops);
}

/**
 * rocx_events_dispatch() - hand an EQ 0 entry to the RDMA driver
 * @core: device
 * @eqe: the entry
 */
void rocx_events_dispatch(struct rocx_core *core, const struct rocx_eqe *eqe)
{
	mutex_lock(&core->ev_lock);
	if (core->ev_ops && core->ev_ops->event)
		core->ev_ops->event(core->ev_priv, eqe);
	mutex_unlock(&core->ev_lock);
}

void rocx_register_events(struct rocx_core *core,
			  const struct rocx_event_ops *ops, void *priv)
{
	mutex_lock(&core->ev_lock);
	core->ev_ops = ops;
	core->ev_priv = ops ? priv : NULL;
	mutex_unlock(&core->ev_lock);
}
EXPORT_SYMBOL_NS_GPL(rocx_register_events, ROCX);

const struct rocx_identify *rocx_identify(struct rocx_core *core)
{
	return core->ident;
}
EXPORT_SYMBOL_NS_GPL(rocx_identify, ROCX);

struct net_device *rocx_netdev(struct rocx_core *core)
{
	return core->netdev;
}
EXPORT_SYMBOL_NS_GPL(rocx_netdev, ROCX);

struct pci_dev *rocx_pci_dev(struct rocx_core *core)
{
	return core->pdev;
}
EXPORT_SYMBOL_NS_GPL(rocx_pci_dev, ROCX);

int rocx_db_page_phys(struct rocx_core *core, u32 page, phys_addr_t *phys)
{
	/*
	 * db_pages counts what the device reports and BAR2 holds: a page
	 * beyond it would be someone else's memory, or none.
	 */
	if (!page || page >= core->db_pages)
		return -EINVAL;
	*phys = pci_resource_start(core->pdev, ROCX_BAR_DB) +
		((phys_addr_t)page << ROCX_DB_PAGE_SHIFT);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rocx_db_page_phys, ROCX);

bool rocx_link_up(struct rocx_core *core)
{
	u32 status = rocx_rd32(core, ROCX_REG_LINK_STATUS);

	return !rocx_gone(core) && (status & ROCX_LINK_UP);
}
EXPORT_SYMBOL_NS_GPL(rocx_link_up, ROCX);

int rocx_irq_vector(struct rocx_core *core, unsigned int vector)
{
	if (vector < ROCX_VEC_MIN_NUM)
		return -EINVAL;
	if (vector >= core->num_vectors)
		return -EOPNOTSUPP;
	return pci_irq_vector(core->pdev, vector);
}
EXPORT_SYMBOL_NS_GPL(rocx_irq_vector, ROCX);

unsigned int rocx_num_vectors(struct rocx_core *core)
{
	return core->num_vectors;
}
EXPORT_SYMBOL_NS_GPL(rocx_num_vectors, ROCX);

void rocx_kernel_db(struct rocx_core *core, u32 offset, u64 value)
{
	rocx_db_ring(core, offset, value);
}
EXPORT_SYMBOL_NS_GPL(rocx_kernel_db, ROCX);
