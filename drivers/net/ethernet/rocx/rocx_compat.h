/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx_core on kernels older than the one it is written for.
 *
 * The driver is 6.12 code.  For each interface it uses that an older
 * supported kernel (Debian 12's 6.1) lacks, the Makefile probes the kernel
 * being built for (rocx_compat_probe.c) and defines ROCX_HAVE_<F> when the
 * kernel has it; otherwise this header supplies a shim under the 6.12 name,
 * so that no call site knows.  What no shim can give is refused where it is
 * used and listed in Documentation/driver-ethernet.rst, "Supported kernels".
 * Included by rocx.h, hence by every file of the driver.
 */
#ifndef _ROCX_COMPAT_H_
#define _ROCX_COMPAT_H_

#include <linux/err.h>
#include <linux/ethtool.h>
#include <linux/io.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/string.h>
#include <net/netdev_queues.h>

#ifndef ROCX_HAVE_NETIF_TXQ_COMPLETED_WAKE
/*
 * Report completions to BQL, then wake the queue if @get_desc has climbed
 * above @start_thrs.  netif_txq_maybe_wake() has the barrier that pairs
 * with netif_txq_maybe_stop() in xmit.
 */
#define netif_txq_completed_wake(txq, pkts, bytes, get_desc, start_thrs) \
	({								\
		struct netdev_queue *_txq = (txq);			\
		unsigned int _pkts = (pkts);				\
									\
		netdev_tx_completed_queue(_txq, _pkts, bytes);		\
		_pkts ? netif_txq_maybe_wake(_txq, get_desc, start_thrs) : -1; \
	})
#endif

#ifndef ROCX_HAVE_ETHTOOL_PUTS
static inline void ethtool_puts(u8 **data, const char *str)
{
	strscpy(*data, str, ETH_GSTRING_LEN);
	*data += ETH_GSTRING_LEN;
}
#endif

#ifndef ROCX_HAVE_PCIM_IOMAP_RANGE
/*
 * Before 6.11 a region requested after pcim_enable_device() is released on
 * detach already, and pcim_iomap_regions() requests and maps a BAR whole.
 */
static inline void __iomem *pcim_iomap_region(struct pci_dev *pdev, int bar,
					      const char *name)
{
	int err = pcim_iomap_regions(pdev, BIT(bar), name);

	return err ? IOMEM_ERR_PTR(err) : pcim_iomap_table(pdev)[bar];
}

static inline int pcim_request_region(struct pci_dev *pdev, int bar,
				      const char *name)
{
	return pci_request_region(pdev, bar, name);
}

static inline void __iomem *pcim_iomap_range(struct pci_dev *pdev, int bar,
					     unsigned long offset,
					     unsigned long len)
{
	void __iomem *addr;

	if (offset + len > pci_resource_len(pdev, bar))
		return IOMEM_ERR_PTR(-EINVAL);
	addr = devm_ioremap(&pdev->dev, pci_resource_start(pdev, bar) + offset,
			    len);
	return addr ? addr : IOMEM_ERR_PTR(-ENOMEM);
}
#endif

#ifdef ROCX_HAVE_DCBNL_APPTRUST
#define rocx_dcbnl_has_apptrust()	true
#else
/*
 * No dcbnl app-trust operations before 6.2: rocx_dcb.c leaves them out,
 * says so at probe, and the device keeps the trust it resets to.  The
 * selector value is uAPI.
 */
#define rocx_dcbnl_has_apptrust()	false
#ifndef DCB_APP_SEL_PCP
#define DCB_APP_SEL_PCP		255
#endif
#endif

#endif /* _ROCX_COMPAT_H_ */
