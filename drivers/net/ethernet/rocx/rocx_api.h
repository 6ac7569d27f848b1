/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx_core <-> rocx_ib interface.
 *
 * rocx_core owns the PCI function, the admin queue, EQ 0 and the netdev.
 * When the device reports ROCX_CAP_RDMA it creates an auxiliary device
 * "rocx_core.rdma.<id>"; rocx_ib binds to it and reaches the device only
 * through the functions below, all exported in the ROCX symbol namespace.
 */
#ifndef _ROCX_API_H_
#define _ROCX_API_H_

#include <linux/auxiliary_bus.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <rocx/rocx_if.h>

#define ROCX_AUX_DEV_NAME	"rdma"

struct rocx_core;

/**
 * struct rocx_aux_dev - the auxiliary device rocx_core creates for RDMA
 * @adev: auxiliary device, bound by rocx_ib
 * @core: opaque handle to pass to the functions below
 */
struct rocx_aux_dev {
	struct auxiliary_device adev;
	struct rocx_core *core;
};

static inline struct rocx_aux_dev *to_rocx_aux_dev(struct auxiliary_device *adev)
{
	return container_of(adev, struct rocx_aux_dev, adev);
}

/**
 * struct rocx_event_ops - events rocx_core forwards to the RDMA driver
 * @event: called for each EQ 0 entry (link change, QP/CQ errors, fatal)
 *	from process context (a work item); @eqe is only valid during the
 *	call.
 */
struct rocx_event_ops {
	void (*event)(void *priv, const struct rocx_eqe *eqe);
};

/**
 * rocx_admin_exec() - run one admin command and wait for its completion
 * @core: device
 * @cmd: command; the opcode must be set, cmd_id is filled in
 * @cqe: if not NULL, receives the completion
 *
 * Sleeps.  Serialised with every other admin command of the device.
 *
 * A command that gets no completion within ROCX_AQ_TIMEOUT_MS resets the
 * device before this returns (its outcome is unknown, so the device may
 * still be using what it names); rocx_core then resets the function and
 * unbinds and rebinds the RDMA driver (Documentation/driver-ethernet.rst,
 * "Reset and recovery").
 *
 * Return: 0, the errno for a failed status (see rocx-device.rst), or
 * -ENODEV: the device is gone, being removed or was reset, and so holds
 * no object and touches no memory any command gave it; the caller may
 * release that memory (a destroy that fails with -ENODEV has nothing
 * left to destroy).
 */
int rocx_admin_exec(struct rocx_core *core, union rocx_aq_cmd *cmd,
		    struct rocx_aq_cqe *cqe);

/**
 * rocx_identify() - the device's identify block, read at probe
 * @core: device
 *
 * Return: pointer valid for as long as the auxiliary device is bound.
 */
const struct rocx_identify *rocx_identify(struct rocx_core *core);

/**
 * rocx_netdev() - the Ethernet interface of the device's port
 * @core: device
 */
struct net_device *rocx_netdev(struct rocx_core *core);

/**
 * rocx_pci_dev() - the PCI function, parent and DMA device of the ib_device
 * @core: device
 */
struct pci_dev *rocx_pci_dev(struct rocx_core *core);

/**
 * rocx_db_page_phys() - bus address of doorbell page @page in BAR2
 * @core: device
 * @page: a user context id: 1 up to the doorbell pages BAR2 holds
 *	(DB_PAGES, clamped to the BAR's size at probe)
 * @phys: set to the page's bus address
 *
 * Used to map a user context's doorbell page into its process.
 *
 * Return: 0, or -EINVAL for page 0 (the kernel's) or a page past the
 * BAR, which the caller must not map.
 */
int rocx_db_page_phys(struct rocx_core *core, u32 page, phys_addr_t *phys);

/**
 * rocx_link_up() - whether LINK_STATUS.UP is set now
 * @core: device
 */
bool rocx_link_up(struct rocx_core *core);

/**
 * rocx_register_events() - forward EQ 0 events to the RDMA driver
 * @core: device
 * @ops: callbacks, or NULL to unregister
 * @priv: passed back to the callbacks
 *
 * Unregistering waits until no callback runs.
 */
void rocx_register_events(struct rocx_core *core,
			  const struct rocx_event_ops *ops, void *priv);

/**
 * rocx_num_vectors() - MSI-X vectors the PCI function has allocated
 * @core: device
 *
 * Vectors 0 (admin queue, EQ 0) and 1 (Ethernet) belong to rocx_core;
 * 2..rocx_num_vectors()-1 are free for the RDMA driver's EQs.
 */
unsigned int rocx_num_vectors(struct rocx_core *core);

/**
 * rocx_irq_vector() - Linux IRQ number of an MSI-X vector for RDMA use
 * @core: device
 * @vector: 2..rocx_num_vectors()-1
 *
 * Return: the IRQ number to request_irq(); -EOPNOTSUPP for a vector the
 * function did not allocate (the device or the platform gave fewer), and
 * only then; -EINVAL for a vector that rocx_core keeps.
 */
int rocx_irq_vector(struct rocx_core *core, unsigned int vector);

/**
 * rocx_kernel_db() - ring a doorbell of page 0, the kernel's page
 * @core: device
 * @offset: ROCX_DB_* offset in the page (e.g. ROCX_DB_EQ for an RDMA EQ)
 * @value: doorbell value: queue id, index and arm bits (rocx_hw.h)
 *
 * Safe in any context, hard interrupts included; does nothing once the
 * device is gone.  Writes to coherent memory made before the call reach
 * the device before the doorbell does.
 */
void rocx_kernel_db(struct rocx_core *core, u32 offset, u64 value);

/**
 * rocx_aq_get_stats() - read the device counters (GET_STATS)
 * @core: device
 * @stats: receives up to @n counters in enum rocx_stat order
 * @n: room in @stats
 *
 * Sleeps.  A device writes at most IDENTIFY num_stats counters; the rest
 * of @stats is left as it was.
 *
 * Return: number of counters the device wrote, or a negative errno.
 */
int rocx_aq_get_stats(struct rocx_core *core, u64 *stats, unsigned int n);

/**
 * rocx_status_to_errno() - map an admin completion status to an errno
 * @status: enum rocx_aq_status value from the device
 *
 * Return: 0 for ROCX_AQ_STS_OK, a negative errno otherwise.
 */
int rocx_status_to_errno(u8 status);

#endif /* _ROCX_API_H_ */
