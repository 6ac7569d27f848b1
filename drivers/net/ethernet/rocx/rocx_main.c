// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_core: PCI driver for the rocx RoCE NIC.  Probe follows the bring-up
 * order of Documentation/rocx-device.rst; remove mirrors it.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "rocx.h"

static const struct pci_device_id rocx_pci_ids[] = {
	{ PCI_DEVICE(ROCX_PCI_VENDOR_ID, ROCX_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, rocx_pci_ids);

/*
 * BAR0 whole and page 0 of BAR2, both managed: devres unmaps them and
 * releases the regions after remove() (or a failed probe) has reset the
 * device.
 */
static int rocx_map_bars(struct rocx_core *core)
{
	struct pci_dev *pdev = core->pdev;
	void __iomem *addr;
	int err;

	if (pci_resource_len(pdev, ROCX_BAR_REGS) < ROCX_BAR_REGS_SIZE ||
	    pci_resource_len(pdev, ROCX_BAR_DB) < ROCX_DB_PAGE_SIZE) {
		dev_err(&pdev->dev, "BAR0 (%llu bytes) or BAR2 (%llu bytes) too small\n",
			(u64)pci_resource_len(pdev, ROCX_BAR_REGS),
			(u64)pci_resource_len(pdev, ROCX_BAR_DB));
		return -ENODEV;
	}
	addr = pcim_iomap_region(pdev, ROCX_BAR_REGS, ROCX_DRV_NAME);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	core->regs = addr;
	/*
	 * BAR2 is claimed whole, but only page 0 is the kernel's; rocx_ib
	 * maps the other pages into user processes.
	 */
	err = pcim_request_region(pdev, ROCX_BAR_DB, ROCX_DRV_NAME);
	if (err)
		return err;
	addr = pcim_iomap_range(pdev, ROCX_BAR_DB, 0, ROCX_DB_PAGE_SIZE);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	core->db = addr;
	return 0;
}

static void rocx_read_config(struct rocx_core *core)
{
	core->caps = readl(core->regs + ROCX_REG_CAPS);
	core->fw_version = readl(core->regs + ROCX_REG_FW_VERSION);
	core->db_pages = min_t(u32, readl(core->regs + ROCX_REG_DB_PAGES),
			       pci_resource_len(core->pdev, ROCX_BAR_DB) >>
			       ROCX_DB_PAGE_SHIFT);
}

static int rocx_alloc_vectors(struct rocx_core *core)
{
	unsigned int want;
	int n;

	want = min_t(u32, readl(core->regs + ROCX_REG_NUM_VECTORS),
		     ROCX_MSIX_VECTORS);
	if (want < ROCX_VEC_MIN_NUM) {
		dev_err(rocx_dev(core), "device offers %u MSI-X vectors, %u needed\n",
			want, ROCX_VEC_MIN_NUM);
		return -ENODEV;
	}
	n = pci_alloc_irq_vectors(core->pdev, ROCX_VEC_MIN_NUM, want,
				  PCI_IRQ_MSIX);
	if (n < 0) {
		dev_err(rocx_dev(core), "MSI-X allocation failed: %d\n", n);
		return n;
	}
	core->num_vectors = n;
	return 0;
}

static int rocx_request_admin_irq(struct rocx_core *core)
{
	snprintf(core->admin_irq_name, sizeof(core->admin_irq_name),
		 ROCX_DRV_NAME "-admin@pci:%s", pci_name(core->pdev));
	return request_irq(pci_irq_vector(core->pdev, ROCX_VEC_ADMIN),
			   rocx_admin_irq_handler, 0, core->admin_irq_name,
			   core);
}

static void rocx_free_admin_irq(struct rocx_core *core)
{
	free_irq(pci_irq_vector(core->pdev, ROCX_VEC_ADMIN), core);
}

static void rocx_log_identity(struct rocx_core *core)
{
	const struct rocx_identify *id = core->ident;

	dev_info(rocx_dev(core), "rocx contract %lu.%lu, firmware %u.%u.%u, caps %#x, %u vectors, %u doorbell pages, max MTU %u\n",
		 (unsigned long)ROCX_FIELD_GET(ROCX_VERSION_MAJOR_MASK, core->version),
		 (unsigned long)ROCX_FIELD_GET(ROCX_VERSION_MINOR_MASK, core->version),
		 core->fw_version >> 16, (core->fw_version >> 8) & 0xff,
		 core->fw_version & 0xff, core->caps, core->num_vectors,
		 core->db_pages, le16_to_cpu(id->max_mtu));
}

static int rocx_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct device *dev = &pdev->dev;
	struct rocx_core *core;
	int err;

	/*
	 * @core, the enable and the BARs are device-managed: they are
	 * released after remove() or a failed probe, in reverse order, once
	 * the steps below have been undone and the device reset.
	 */
	core = devm_kzalloc(dev, sizeof(*core), GFP_KERNEL);
	if (!core)
		return -ENOMEM;
	core->pdev = pdev;
	mutex_init(&core->aq.lock);
	init_completion(&core->aq.done);
	init_completion(&core->test_irq);
	core->test_irq_vec = ROCX_TEST_IRQ_NONE;
	mutex_init(&core->ev_lock);
	rocx_reset_init(core);
	pci_set_drvdata(pdev, core);

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(dev, "no 64-bit DMA: %d\n", err);
		return err;
	}
	pci_set_master(pdev);
	err = rocx_map_bars(core);
	if (err)
		return err;

	err = rocx_dev_check_id(core);
	if (err)
		return err;
	err = rocx_dev_reset(core);
	if (err)
		return err;
	rocx_read_config(core);
	err = rocx_alloc_vectors(core);
	if (err)
		return err;
	err = rocx_dev_selftest(core);
	if (err)
		goto err_free_vectors;

	err = rocx_aq_init(core);
	if (err)
		goto err_free_vectors;
	err = rocx_request_admin_irq(core);
	if (err)
		goto err_free_aq;
	err = rocx_aq_enable_irq(core);
	if (err)
		goto err_free_admin_irq;
	err = rocx_aq_identify(core, &core->ident);
	if (err)
		goto err_free_admin_irq;
	rocx_log_identity(core);

	err = rocx_eq_create(core);
	if (err)
		goto err_free_ident;
	err = rocx_netdev_create(core);
	if (err)
		goto err_destroy_eq;
	err = rocx_aux_create(core);
	if (err) {
		dev_err(dev, "auxiliary device for RDMA: %d\n", err);
		goto err_destroy_netdev;
	}
	/* What AER's slot reset restores. */
	pci_save_state(pdev);
	/* From now on a broken function is reset (rocx_reset.c). */
	set_bit(ROCX_ST_LIVE, &core->state);
	return 0;

err_destroy_netdev:
	rocx_netdev_destroy(core);
err_destroy_eq:
	rocx_eq_destroy(core);
err_free_ident:
	kfree(core->ident);
err_free_admin_irq:
	rocx_aq_stop(core);
	rocx_free_admin_irq(core);
err_free_aq:
	rocx_dev_reset(core);
	rocx_aq_free(core);
err_free_vectors:
	/* Explicit, so that the vectors go after their handlers. */
	pci_free_irq_vectors(pdev);
	return err;
}

static void rocx_remove(struct pci_dev *pdev)
{
	struct rocx_core *core = pci_get_drvdata(pdev);

	/*
	 * Waits for a reset in progress.  Every step below copes with a
	 * function a reset left down.
	 */
	rocx_reset_cancel(core);
	rocx_aux_destroy(core);
	rocx_netdev_destroy(core);
	rocx_eq_destroy(core);
	kfree(core->ident);
	rocx_aq_stop(core);
	rocx_free_admin_irq(core);
	/* The device does no DMA after a reset: now its rings can go. */
	rocx_dev_reset(core);
	rocx_aq_free(core);
	pci_free_irq_vectors(pdev);
	/* Devres then unmaps the BARs, disables the device, frees @core. */
}

static void rocx_shutdown(struct pci_dev *pdev)
{
	struct rocx_core *core = pci_get_drvdata(pdev);

	/* A reset work must not bring the device up again behind us. */
	rocx_reset_cancel(core);
	/*
	 * No DMA into memory the next kernel (kexec) may own.  Bus mastering
	 * goes too; the managed enable stays balanced for devres.
	 */
	rocx_dev_reset(core);
	pci_clear_master(pdev);
}

static struct pci_driver rocx_pci_driver = {
	.name		= ROCX_DRV_NAME,
	.id_table	= rocx_pci_ids,
	.probe		= rocx_probe,
	.remove		= rocx_remove,
	.shutdown	= rocx_shutdown,
	.err_handler	= &rocx_err_handlers,
};
module_pci_driver(rocx_pci_driver);

MODULE_DESCRIPTION("rocx RoCE NIC: PCI, Ethernet and core support");
MODULE_LICENSE("Dual BSD/GPL");
