/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx_core private definitions.
 *
 * One struct rocx_core per PCI function; the netdev's private area is a
 * struct rocx_ndev.  Documentation/driver-ethernet.rst describes the
 * structure.
 */
#ifndef _ROCX_H_
#define _ROCX_H_

#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "rocx_api.h"
#include "rocx_compat.h"

#define ROCX_DRV_NAME		"rocx_core"

/* MSI-X vector use (the device leaves the choice to the driver). */
enum rocx_vector {
	ROCX_VEC_ADMIN = 0,	/* admin queue completions and EQ 0 */
	ROCX_VEC_ETH = 1,	/* Ethernet rings, NAPI */
	ROCX_VEC_MIN_NUM = 2,	/* the netdev needs both; 2..7 are for RDMA */
};

/* Bits of rocx_core.state; set and tested atomically. */
enum rocx_state_bit {
	ROCX_ST_GONE,		/* all-ones reads: never touch the device again */
	ROCX_ST_AQ_UP,		/* admin queue accepts commands */
	/*
	 * The device was reset under the driver (or is about to be): it
	 * holds no queue or object, so no doorbell or command may reach it
	 * until rocx_reset_restore() brings it up again.
	 */
	ROCX_ST_RESET,
	ROCX_ST_LIVE,		/* probed and not being removed: resets may run */
	ROCX_ST_RESET_QUEUED,	/* rocx_core.reset_work is queued */
};

/* Admin queue depth: one command outstanding needs few slots. */
#define ROCX_AQ_LOG_DEPTH	4

/**
 * struct rocx_aq - admin queue
 * @lock: serialises commands; protects every field below but @done.
 *	One command is outstanding at a time, which keeps the rings, the
 *	phase tracking and the timeout diagnosis trivially correct; admin
 *	commands are rare control-path operations.
 * @sq: submission ring, 2^@log_depth commands
 * @sq_dma: its bus address
 * @cq: completion ring, 2^@log_depth entries
 * @cq_dma: its bus address
 * @log_depth: log2 of the ring depth
 * @pi: free-running producer index, 16 bits as AQ_DB takes it; the
 *	completion of command @pi - 1 sits at the same ring position
 * @cmd_id: last command id handed out
 * @irq_mode: completions are signalled on vector 0 (else polled)
 * @poll_only: stay polled (aq_poll, or an interrupt was lost once), also
 *	when the queue is started again after a reset
 * @done: completed by the vector-0 handler; the waiter re-checks the ring
 */
struct rocx_aq {
	struct mutex lock;	/* one command at a time; see above */
	union rocx_aq_cmd *sq;
	dma_addr_t sq_dma;
	struct rocx_aq_cqe *cq;
	dma_addr_t cq_dma;
	u8 log_depth;
	u16 pi;
	u16 cmd_id;
	bool irq_mode;
	bool poll_only;
	struct completion done;
};

/**
 * struct rocx_eq - event queue 0 (asynchronous events)
 * @ring: 2^@log_depth entries written by the device
 * @dma: its bus address
 * @log_depth: log2 of the depth, from IDENTIFY (rocx_eq0_log_depth()):
 *	room for an event per QP, CQ and SRQ, and the port's
 * @ci: free-running consumer index; only @work touches it once the EQ
 *	exists, and create/destroy run while @work cannot
 * @work: drains the ring in process context, then re-arms the EQ
 * @created: the device holds the EQ (CREATE_EQ succeeded); cleared once
 *	@work is stopped for a destroy or a reset
 * @lost: events the device reported lost (EQ_OVERFLOW), written by @work
 */
struct rocx_eq {
	struct rocx_eqe *ring;
	dma_addr_t dma;
	u8 log_depth;
	u32 ci;
	struct work_struct work;
	bool created;
	atomic64_t lost;
};

/**
 * struct rocx_core - one rocx PCI function
 * @pdev: the PCI function
 * @regs: BAR0 registers
 * @db: doorbell page 0 of BAR2 (the kernel's); other pages are mapped by
 *	user processes only
 * @state: ROCX_ST_* bits
 * @version: VERSION register
 * @caps: CAPS register
 * @fw_version: FW_VERSION register
 * @num_vectors: MSI-X vectors allocated
 * @db_pages: doorbell pages the device has
 * @ident: copy of the IDENTIFY block, read at probe and again after each
 *	reset; replaced under rtnl, which its readers after probe hold
 *	(dcbnl, ethtool, the netdev's ops)
 * @aq: admin queue
 * @eq: EQ 0
 * @test_irq: self-test interrupt arrived
 * @test_irq_vec: vector a self-test is waiting for, or ROCX_TEST_IRQ_NONE;
 *	rocx_core's own handlers look at it (rocx_test_irq_seen())
 * @admin_irq_name: name of vector 0's handler in /proc/interrupts
 * @netdev: the port's Ethernet interface
 * @aux: auxiliary device for rocx_ib, NULL without ROCX_CAP_RDMA
 * @ev_lock: protects @ev_ops and @ev_priv; held across the callbacks so
 *	that unregistering waits for a running one
 * @ev_ops: RDMA driver's event callbacks, or NULL
 * @ev_priv: their argument
 * @reset_lock: serialises the reset path (rocx_reset.c): quiescing,
 *	resetting and restoring the function; protects @quiesced
 * @quiesced: the function is stopped for a reset and not restored yet
 * @reset_work: resets a function found broken (admin timeout, FATAL)
 * @resets: function resets done since probe
 */
struct rocx_core {
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *db;
	unsigned long state;
	u32 version;
	u32 caps;
	u32 fw_version;
	unsigned int num_vectors;
	unsigned int db_pages;
	struct rocx_identify *ident;
	struct rocx_aq aq;
	struct rocx_eq eq;
	struct completion test_irq;
	int test_irq_vec;
	char admin_irq_name[48];
	struct net_device *netdev;
	struct rocx_aux_dev *aux;
	struct mutex ev_lock;	/* ev_ops, ev_priv; held across callbacks */
	const struct rocx_event_ops *ev_ops;
	void *ev_priv;
	struct mutex reset_lock;	/* the reset path; quiesced */
	bool quiesced;
	struct work_struct reset_work;
	atomic64_t resets;
};

static inline struct device *rocx_dev(struct rocx_core *core)
{
	return &core->pdev->dev;
}

static inline bool rocx_gone(struct rocx_core *core)
{
	return test_bit(ROCX_ST_GONE, &core->state);
}

/*
 * Nothing may be sent to the device: it is gone, or it was reset and has
 * not been brought up again.
 */
static inline bool rocx_dev_off(struct rocx_core *core)
{
	return rocx_gone(core) || test_bit(ROCX_ST_RESET, &core->state);
}

/* IDENTIFY.caps2 (contract 1.2); 0 from a 1.1 device. */
static inline u64 rocx_caps2(struct rocx_core *core)
{
	return core->ident ? le64_to_cpu(core->ident->caps2) : 0;
}

#define ROCX_TEST_IRQ_NONE	(-1)

/* A self-test raised @vector: wake its waiter (rocx_selftest_vector()). */
static inline void rocx_test_irq_seen(struct rocx_core *core, int vector)
{
	if (unlikely(READ_ONCE(core->test_irq_vec) == vector))
		complete(&core->test_irq);
}

/* ---- Ethernet ---- */

#define ROCX_RING_DEFAULT	256
#define ROCX_RING_MIN		BIT(ROCX_ETH_MIN_LOG_DEPTH)
#define ROCX_RING_MAX		BIT(ROCX_ETH_MAX_LOG_DEPTH)
#define ROCX_ETH_QID		0	/* the RX ring; TX ring t is class t */
/* TX rings at most: one per traffic class (ROCX_CAP2_ETS). */
#define ROCX_MAX_TXQ		ROCX_NUM_TC
/* Descriptors that must stay free for xmit to keep the queue awake. */
#define ROCX_TX_STOP_THRS	1
#define ROCX_TX_WAKE_THRS	16

/**
 * struct rocx_tx_buf - a frame handed to the device
 * @skb: the frame (linear)
 * @dma: its mapping
 * @len: mapped length
 */
struct rocx_tx_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	unsigned int len;
};

/**
 * struct rocx_rx_buf - a posted receive buffer
 * @skb: buffer of rocx_rx_ring.buf_size bytes at skb->data
 * @dma: its mapping
 */
struct rocx_rx_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
};

/**
 * struct rocx_tx_ring - Ethernet transmit ring
 * @desc: descriptors, @size entries
 * @dma: their bus address
 * @bufs: per-descriptor state
 * @size: entries, a power of two
 * @head: next descriptor to fill; written only by ndo_start_xmit, with
 *	release once the slot is filled; NAPI reads it with acquire
 * @tail: next descriptor to reclaim; written only by NAPI, with release
 *	once the slot is reclaimed; xmit reads it with acquire
 */
struct rocx_tx_ring {
	struct rocx_eth_tx_desc *desc;
	dma_addr_t dma;
	struct rocx_tx_buf *bufs;
	u32 size;
	u16 head;
	u16 tail;
};

/**
 * struct rocx_rx_ring - Ethernet receive ring
 * @desc: descriptors, @size entries
 * @dma: their bus address
 * @bufs: per-descriptor state
 * @size: entries, a power of two
 * @buf_size: bytes in every buffer (largest frame of the MTU)
 * @head: next descriptor to post; NAPI (or open, before NAPI runs)
 * @tail: next descriptor the device completes; NAPI
 */
struct rocx_rx_ring {
	struct rocx_eth_rx_desc *desc;
	dma_addr_t dma;
	struct rocx_rx_buf *bufs;
	u32 size;
	u32 buf_size;
	u16 head;
	u16 tail;
};

/**
 * struct rocx_sw_stats - driver counters of one direction
 * @syncp: makes the 64-bit counters safe to read on 32-bit hosts;
 *	written only by the direction's single writer (xmit or NAPI)
 * @packets: frames completed
 * @bytes: their bytes
 * @errors: frames the device reported in error
 * @dropped: frames the driver dropped (no buffer, mapping failure)
 * @truncated: RX frames larger than the buffer
 * @busy: TX: queue full at xmit
 */
struct rocx_sw_stats {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t errors;
	u64_stats_t dropped;
	u64_stats_t truncated;
	u64_stats_t busy;
};

/**
 * struct rocx_ndev - netdev private area
 * @core: the device
 * @netdev: back pointer
 * @napi: polls every ring of vector 1
 * @tx: transmit rings, one per TX queue (queue q is ring q, of traffic
 *	class q); valid while @rings_up
 * @num_txq: TX queues and rings: ROCX_MAX_TXQ on a device that schedules
 *	by class (ROCX_CAP2_ETS), else 1; fixed at probe
 * @tag_prios: priorities (bit p) whose untagged frames xmit sends
 *	priority-tagged: PFC's under PCP trust, as QUERY_DCB last said
 *	(rocx_dcb_sync()); written under rtnl, read by xmit
 * @rx: receive ring; valid while @rings_up
 * @rings_up: the device holds the rings (rtnl); NAPI is enabled exactly
 *	while they are up, except inside rocx_netdev_quiesce()/restore()
 * @quiesced: rocx_netdev_quiesce() stopped NAPI with the rings still up
 *	(rtnl); ndo_stop then must not disable it again
 * @reset_restart: the rings were up when the function was quiesced for a
 *	reset, so its restore brings them up again (rtnl)
 * @tx_ring_size: configured TX entries (rtnl)
 * @rx_ring_size: configured RX entries (rtnl)
 * @irq: Linux IRQ of vector 1
 * @irq_name: its name
 * @rx_mode: RX mode requested by ndo_set_rx_mode (ROCX_RX_MODE_*), read
 *	by @rx_mode_work
 * @rx_mode_work: sends SET_MCAST_MACS and SET_PORT for RX mode and
 *	multicast list changes (ndo_set_rx_mode runs in atomic context and
 *	admin commands sleep)
 * @mc_list: the multicast list SET_MCAST_MACS hands the device (DMA), or
 *	NULL on a device without ROCX_CAP2_MCAST_FILTER, which takes every
 *	group; only @rx_mode_work writes it
 * @mc_dma: its bus address
 * @mc_max: its entries: groups beyond that are ALLMULTI
 * @reset_work: re-creates the rings after a TX timeout
 * @tx_stats: transmit completions per TX queue, written by NAPI
 * @tx_drop_stats: frames xmit dropped or bounced (busy) per TX queue; a
 *	separate writer from @tx_stats, as xmit and NAPI run concurrently,
 *	and one per queue, as xmit runs on several queues at once
 * @rx_stats: receive counters, written by NAPI
 * @tx_timeouts: TX timeouts seen
 */
struct rocx_ndev {
	struct rocx_core *core;
	struct net_device *netdev;
	struct napi_struct napi;
	struct rocx_tx_ring tx[ROCX_MAX_TXQ];
	unsigned int num_txq;
	u8 tag_prios;
	struct rocx_rx_ring rx;
	bool rings_up;
	bool quiesced;
	bool reset_restart;
	u32 tx_ring_size;
	u32 rx_ring_size;
	int irq;
	char irq_name[IFNAMSIZ + 8];
	u8 rx_mode;
	struct work_struct rx_mode_work;
	struct rocx_mcast_mac *mc_list;
	dma_addr_t mc_dma;
	u32 mc_max;
	struct work_struct reset_work;
	struct rocx_sw_stats tx_stats[ROCX_MAX_TXQ];
	struct rocx_sw_stats tx_drop_stats[ROCX_MAX_TXQ];
	struct rocx_sw_stats rx_stats;
	atomic64_t tx_timeouts;
};

/**
 * struct rocx_txq_stats - one TX queue's driver counters, read together
 * @packets: frames completed
 * @bytes: their bytes
 * @errors: frames the device reported in error
 * @dropped: frames xmit dropped
 * @busy: times xmit found the ring full
 */
struct rocx_txq_stats {
	u64 packets;
	u64 bytes;
	u64 errors;
	u64 dropped;
	u64 busy;
};

/* rocx_dev.c: registers, identification, reset, self-tests */
u32 rocx_rd32(struct rocx_core *core, u32 reg);
void rocx_wr32(struct rocx_core *core, u32 reg, u32 val);
void rocx_db_ring(struct rocx_core *core, u32 offset, u64 val);
void rocx_set_gone(struct rocx_core *core);
int rocx_dev_check_id(struct rocx_core *core);
int rocx_dev_reset(struct rocx_core *core);
int rocx_dev_selftest(struct rocx_core *core);
int rocx_selftest_regs(struct rocx_core *core);
int rocx_selftest_vector(struct rocx_core *core, unsigned int v, bool temp);
int rocx_selftest_dma(struct rocx_core *core, bool may_reset);
void rocx_intr_mask(struct rocx_core *core, unsigned int vector, bool mask);

/* rocx_aq.c: admin queue */
int rocx_aq_init(struct rocx_core *core);
int rocx_aq_enable_irq(struct rocx_core *core);
int rocx_aq_restart(struct rocx_core *core);
void rocx_aq_stop(struct rocx_core *core);
void rocx_aq_free(struct rocx_core *core);
void rocx_aq_irq(struct rocx_core *core);

/* rocx_aq_cmd.c: the commands rocx_core sends */
int rocx_aq_identify(struct rocx_core *core, struct rocx_identify **out);
int rocx_aq_set_port(struct rocx_core *core, u32 valid, u16 mtu,
		     const u8 *mac, bool admin_up, u8 rx_mode);
int rocx_aq_set_mcast_macs(struct rocx_core *core, dma_addr_t addr, u32 count);
int rocx_aq_dcb(struct rocx_core *core, u16 opcode, struct rocx_dcb_cfg *cfg);
int rocx_aq_create_eth_ring(struct rocx_core *core, u8 type, u8 qid,
			    dma_addr_t base, u32 size, u8 vector, u16 buf_size,
			    u8 tc);
int rocx_aq_destroy_eth_ring(struct rocx_core *core, u8 type, u8 qid);
int rocx_aq_create_eq(struct rocx_core *core, u16 eqn, dma_addr_t base,
		      u8 log_depth, u8 vector);
int rocx_aq_destroy_eq(struct rocx_core *core, u16 eqn);

/* rocx_eq.c: EQ 0 and vector 0 */
int rocx_eq_create(struct rocx_core *core);
void rocx_eq_destroy(struct rocx_core *core);
void rocx_eq_quiesce(struct rocx_core *core);
void rocx_eq_forget(struct rocx_core *core);
irqreturn_t rocx_admin_irq_handler(int irq, void *data);
#if IS_ENABLED(CONFIG_KUNIT)
u8 rocx_eq0_log_depth(const struct rocx_identify *id);
int rocx_reset_identify(struct rocx_core *core);
#endif

/* rocx_netdev.c */
int rocx_netdev_create(struct rocx_core *core);
void rocx_netdev_destroy(struct rocx_core *core);
void rocx_netdev_link_change(struct rocx_core *core, u32 link_status);
int rocx_netdev_reconfig(struct rocx_ndev *nd, u32 tx_size, u32 rx_size,
			 unsigned int mtu);
bool rocx_netdev_quiesce(struct rocx_ndev *nd);
void rocx_netdev_restore(struct rocx_ndev *nd);
void rocx_netdev_reset_quiesce(struct rocx_core *core);
void rocx_netdev_reset_forget(struct rocx_core *core);
void rocx_netdev_reset_restore(struct rocx_core *core);
void rocx_txq_stats_read(struct rocx_ndev *nd, unsigned int q,
			 struct rocx_txq_stats *s);

/* rocx_txrx.c */
int rocx_rings_alloc(struct rocx_ndev *nd, struct rocx_tx_ring *tx,
		     struct rocx_rx_ring *rx, u32 tx_size, u32 rx_size,
		     u32 buf_size);
void rocx_rings_free(struct rocx_ndev *nd, struct rocx_tx_ring *tx,
		     struct rocx_rx_ring *rx);
u16 rocx_select_queue(struct net_device *netdev, struct sk_buff *skb,
		      struct net_device *sb_dev);
void rocx_rx_refill(struct rocx_ndev *nd, gfp_t gfp);
netdev_tx_t rocx_start_xmit(struct sk_buff *skb, struct net_device *netdev);
int rocx_napi_poll(struct napi_struct *napi, int budget);
irqreturn_t rocx_eth_irq_handler(int irq, void *data);

/* rocx_ethtool.c */
void rocx_set_ethtool_ops(struct net_device *netdev);

/* rocx_dcb.c: dcbnl, and the SET_DCB fields ethtool's pause maps to */
bool rocx_dcb_supported(struct rocx_core *core);
void rocx_dcb_init(struct net_device *netdev);
void rocx_dcb_restore(struct net_device *netdev);
int rocx_dcb_get_pause(struct rocx_core *core, u8 *pause, u8 *pfc_en);
int rocx_dcb_set_pause(struct rocx_core *core, u8 pause);
int rocx_dcb_pause_pfc_check(u8 pause, u8 pfc_en, const char **why);
void rocx_dcb_sync(struct net_device *netdev);
void rocx_netdev_set_prio_tc(struct net_device *netdev, const u8 *prio_tc);

/* rocx_reset.c: the one quiesce, reset and restore path */
extern const struct pci_error_handlers rocx_err_handlers;
void rocx_reset_init(struct rocx_core *core);
void rocx_reset_fatal(struct rocx_core *core, const char *why);
void rocx_reset_schedule(struct rocx_core *core, const char *why);
void rocx_reset_cancel(struct rocx_core *core);

/* rocx_aux.c */
int rocx_aux_create(struct rocx_core *core);
void rocx_aux_destroy(struct rocx_core *core);
void rocx_events_dispatch(struct rocx_core *core, const struct rocx_eqe *eqe);

#endif /* _ROCX_H_ */
