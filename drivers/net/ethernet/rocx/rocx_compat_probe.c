// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Kernel feature probes for rocx_core, never linked into the module.
 *
 * The Makefile compiles this file once per ROCX_PROBE_<F>, with the flags
 * of the kernel being built for, and defines ROCX_HAVE_<F> for the driver
 * when that block compiles; rocx_compat.h shims what a kernel lacks.
 * Probing the interface itself, not LINUX_VERSION_CODE, keeps distribution
 * kernels right: Debian's 6.1 has some later interfaces backported.
 * Each block uses the interface the way the driver does, no more.
 */
#include <linux/ethtool.h>
#include <linux/pci.h>
#include <net/dcbnl.h>
#include <net/netdev_queues.h>

#ifdef ROCX_PROBE_NETIF_TXQ_COMPLETED_WAKE	/* 6.3 */
int rocx_probe(struct netdev_queue *txq);
int rocx_probe(struct netdev_queue *txq)
{
	return netif_txq_completed_wake(txq, 1, 64, 8, 4);
}
#endif

#ifdef ROCX_PROBE_ETHTOOL_PUTS			/* 6.8 */
void rocx_probe(u8 **data);
void rocx_probe(u8 **data)
{
	ethtool_puts(data, "rocx");
}
#endif

#ifdef ROCX_PROBE_PCIM_IOMAP_RANGE		/* 6.11 */
void __iomem *rocx_probe(struct pci_dev *pdev);
void __iomem *rocx_probe(struct pci_dev *pdev)
{
	if (pcim_request_region(pdev, 2, "rocx"))
		return pcim_iomap_region(pdev, 0, "rocx");
	return pcim_iomap_range(pdev, 2, 0, 4096);
}
#endif

#ifdef ROCX_PROBE_DCBNL_APPTRUST		/* 6.2 */
static int rocx_probe_trust(struct net_device *netdev, u8 *sel, int *n)
{
	sel[0] = DCB_APP_SEL_PCP;
	*n = 1;
	return 0;
}

const struct dcbnl_rtnl_ops rocx_probe = {
	.dcbnl_getapptrust = rocx_probe_trust,
};
#endif
