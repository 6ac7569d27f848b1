/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx_ib: RDMA driver for the rocx RoCE adapter.
 *
 * rocx_core owns the PCI function, the admin queue and the netdev; this
 * driver binds to the auxiliary device rocx_core creates and turns it into
 * an ib_device.  Contract version 1.0 has no transport objects (QP, CQ, MR),
 * so the ib_device serves user contexts, PDs, ports and the GID table only.
 */
#ifndef _ROCX_IB_H_
#define _ROCX_IB_H_

#include <linux/mutex.h>
#include <rdma/ib_verbs.h>
#include <rocx/rocx_if.h>

#include "rocx_api.h"

/* One RoCE port per PCI function (rocx-device.rst, "PCI identity"). */
#define ROCX_IB_PORT		1

/*
 * Local CA ACK delay exponent reported to ib_core: 4.096 us * 2^15, about
 * 134 ms, so that peers' retransmit timers leave room for a TCG guest.
 */
#define ROCX_IB_LOCAL_ACK_DELAY	15

/* Largest RoCE message: the IBA limit of 2^31 bytes. */
#define ROCX_IB_MAX_MSG_SZ	0x80000000U

/**
 * struct rocx_ib_dev - one registered ib_device
 * @ibdev: the RDMA core's device; first, as ib_alloc_device() requires
 * @adev: the auxiliary device this driver is bound to
 * @core: rocx_core's handle, passed to every rocx_api.h call
 * @pdev: PCI function, parent and DMA device of @ibdev
 * @netdev: the port's Ethernet interface (rocx_core keeps it registered
 *	for as long as @adev exists)
 * @id: identify block, owned by rocx_core, valid while bound
 * @port_lock: serialises port state reports to ib_core
 * @link_up: last port state reported to ib_core; protected by @port_lock
 */
struct rocx_ib_dev {
	struct ib_device ibdev;
	struct auxiliary_device *adev;
	struct rocx_core *core;
	struct pci_dev *pdev;
	struct net_device *netdev;
	const struct rocx_identify *id;
	struct mutex port_lock;	/* protects link_up, orders reports */
	bool link_up;
};

/**
 * struct rocx_ib_mmap_entry - something a user context may mmap()
 * @rdma: ib_core's entry; it owns the mmap offset and the reference count
 * @addr: bus address of the page (a doorbell page in BAR2)
 */
struct rocx_ib_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	phys_addr_t addr;
};

/**
 * struct rocx_ib_ucontext - a user context (one open of the uverbs device)
 * @ibuc: ib_core's context
 * @uctx: device user-context id, which is also its doorbell page number
 * @db_entry: mmap entry of the doorbell page
 */
struct rocx_ib_ucontext {
	struct ib_ucontext ibuc;
	u32 uctx;
	struct rdma_user_mmap_entry *db_entry;
};

/**
 * struct rocx_ib_pd - a protection domain
 * @ibpd: ib_core's PD
 * @pdn: device PD number
 * @uctx: owning user context id, 0 for a kernel PD
 */
struct rocx_ib_pd {
	struct ib_pd ibpd;
	u32 pdn;
	u32 uctx;
};

static inline struct rocx_ib_dev *to_rocx_ib_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rocx_ib_dev, ibdev);
}

static inline struct rocx_ib_ucontext *
to_rocx_ib_ucontext(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct rocx_ib_ucontext, ibuc);
}

static inline struct rocx_ib_pd *to_rocx_ib_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct rocx_ib_pd, ibpd);
}

static inline struct rocx_ib_mmap_entry *
to_rocx_ib_mmap_entry(struct rdma_user_mmap_entry *rdma)
{
	return container_of(rdma, struct rocx_ib_mmap_entry, rdma);
}

/* rocx_ib_verbs.c: device, port and context verbs. */
int rocx_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			 struct ib_udata *udata);
void rocx_ib_get_dev_fw_str(struct ib_device *ibdev, char *str);
int rocx_ib_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *attr);
int rocx_ib_get_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *immutable);
enum rdma_link_layer rocx_ib_get_link_layer(struct ib_device *ibdev,
					    u32 port);
int rocx_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		       u16 *pkey);
int rocx_ib_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void rocx_ib_dealloc_ucontext(struct ib_ucontext *ibuc);
void rocx_ib_disassociate_ucontext(struct ib_ucontext *ibuc);
int rocx_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void rocx_ib_mmap_free(struct rdma_user_mmap_entry *rdma);
int rocx_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int rocx_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* rocx_ib_gid.c: the device GID table mirrors ib_core's. */
int rocx_ib_add_gid(const struct ib_gid_attr *attr, void **context);
int rocx_ib_del_gid(const struct ib_gid_attr *attr, void **context);

/*
 * Pure translations between the device contract and ib_core's types.  They
 * are static unless KUnit is enabled, when rocx_ib_test.c calls them.
 */
#if IS_ENABLED(CONFIG_KUNIT)
enum ib_mtu rocx_ib_mtu_from_netdev(unsigned int mtu);
void rocx_ib_speed_width(u32 gbps, u16 *speed, u8 *width);
u8 rocx_ib_phys_state(u32 link_status);
void rocx_ib_identify_to_attr(const struct rocx_identify *id,
			      struct ib_device_attr *attr);
int rocx_ib_verbs_errno(int err);
int rocx_ib_gid_type(enum ib_gid_type type);
void rocx_ib_set_gid_cmd(union rocx_aq_cmd *cmd, u16 index, u8 type,
			 u16 vlan, const u8 *mac, const union ib_gid *gid);
enum ib_event_type rocx_ib_link_event(u32 link_status);
#endif

#endif /* _ROCX_IB_H_ */
