// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx netdev: open/stop, MTU, MAC, RX mode and the device's multicast
 * filter, statistics, TX timeout.
 *
 * The rings live only while the interface is up: ndo_open allocates them
 * (a TX ring per traffic class on a device that schedules by class),
 * creates them in the device through the admin queue and sets the port
 * administratively up; ndo_stop undoes it in reverse.  Everything here runs
 * under rtnl except the two work items, which take it when they need it.
 *
 * A reset of the function (rocx_reset.c) keeps the netdev registered: it
 * is detached while the function is down, its rings are freed once the
 * device is reset, and new ones are made when it comes back.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "rocx.h"
#include "rocx_ring.h"

#define ROCX_TX_TIMEOUT		(5 * HZ)
/* Multicast groups the driver hands the device at most (a page of them). */
#define ROCX_MC_MAX		(PAGE_SIZE / sizeof(struct rocx_mcast_mac))

static u8 rocx_rx_mode_of(const struct net_device *netdev)
{
	u8 mode = 0;

	if (netdev->flags & IFF_PROMISC)
		mode |= ROCX_RX_MODE_PROMISC;
	if (netdev->flags & IFF_ALLMULTI)
		mode |= ROCX_RX_MODE_ALLMULTI;
	return mode;
}

/*
 * Destroy TX rings 0..@n-1 in the device.  Return: 0, or the first error
 * other than -ENODEV (the device was reset or is gone and holds no ring).
 */
static int rocx_tx_rings_destroy(struct rocx_ndev *nd, unsigned int n)
{
	int err, ret = 0;
	unsigned int q;

	for (q = 0; q < n; q++) {
		err = rocx_aq_destroy_eth_ring(nd->core, ROCX_ETH_RING_TX, q);
		if (err && err != -ENODEV && !ret)
			ret = err;
	}
	return ret;
}

/* Create the allocated rings in the device and start them.  On failure
 * the rings are destroyed and freed.
 */
static int rocx_rings_up(struct rocx_ndev *nd)
{
	struct rocx_core *core = nd->core;
	unsigned int q;
	int err;

	for (q = 0; q < nd->num_txq; q++) {
		nd->tx[q].head = 0;
		nd->tx[q].tail = 0;
	}
	nd->rx.head = 0;
	nd->rx.tail = 0;
	/* TX ring q is traffic class q (one ring: class 0). */
	for (q = 0; q < nd->num_txq; q++) {
		err = rocx_aq_create_eth_ring(core, ROCX_ETH_RING_TX, q,
					      nd->tx[q].dma, nd->tx[q].size,
					      ROCX_VEC_ETH, 0, q);
		if (err) {
			netdev_err(nd->netdev, "CREATE_ETH_RING TX %u failed: %d\n",
				   q, err);
			goto err_destroy_tx;
		}
	}
	err = rocx_aq_create_eth_ring(core, ROCX_ETH_RING_RX, ROCX_ETH_QID,
				      nd->rx.dma, nd->rx.size, ROCX_VEC_ETH,
				      nd->rx.buf_size, 0);
	if (err) {
		netdev_err(nd->netdev, "CREATE_ETH_RING RX failed: %d\n", err);
		goto err_destroy_tx;
	}
	rocx_rx_refill(nd, GFP_KERNEL);
	napi_enable(&nd->napi);
	nd->quiesced = false;
	rocx_intr_mask(core, ROCX_VEC_ETH, false);
	nd->rings_up = true;
	return 0;

err_destroy_tx:
	if (rocx_tx_rings_destroy(nd, q)) {
		netdev_err(nd->netdev, "DESTROY_ETH_RING TX failed; leaking the rings\n");
		return err;
	}
	rocx_rings_free(nd, nd->tx, &nd->rx);
	return err;
}

/* BQL forgets the frames of rings that are gone. */
static void rocx_tx_queues_reset(struct rocx_ndev *nd)
{
	unsigned int q;

	for (q = 0; q < nd->num_txq; q++)
		netdev_tx_reset_queue(netdev_get_tx_queue(nd->netdev, q));
}

/* Stop the rings and free them once the device has let go of them. */
static void rocx_rings_down(struct rocx_ndev *nd)
{
	struct rocx_core *core = nd->core;
	int err_tx, err_rx;

	if (!nd->rings_up)
		return;
	nd->rings_up = false;
	rocx_intr_mask(core, ROCX_VEC_ETH, true);
	/* Stopped already if the function is being reset meanwhile. */
	if (!nd->quiesced)
		napi_disable(&nd->napi);
	nd->quiesced = false;
	err_tx = rocx_tx_rings_destroy(nd, nd->num_txq);
	err_rx = rocx_aq_destroy_eth_ring(core, ROCX_ETH_RING_RX, ROCX_ETH_QID);
	rocx_tx_queues_reset(nd);
	/* -ENODEV: the device was reset or is gone and holds no ring. */
	if (err_tx || (err_rx && err_rx != -ENODEV)) {
		/* The device may still write there: never free it. */
		netdev_err(nd->netdev, "DESTROY_ETH_RING failed (TX %d, RX %d); leaking the rings\n",
			   err_tx, err_rx);
		memset(nd->tx, 0, sizeof(nd->tx));
		memset(&nd->rx, 0, sizeof(nd->rx));
		return;
	}
	rocx_rings_free(nd, nd->tx, &nd->rx);
}

static void rocx_update_carrier(struct rocx_ndev *nd, u32 link_status)
{
	struct net_device *netdev = nd->netdev;
	bool up = !rocx_gone(nd->core) && (link_status & ROCX_LINK_UP);

	if (up == netif_carrier_ok(netdev))
		return;
	if (up) {
		netdev_info(netdev, "link up, %u Gb/s\n",
			    rocx_link_speed_mbps(link_status) / 1000);
		netif_carrier_on(netdev);
	} else {
		netdev_info(netdev, "link down\n");
		netif_carrier_off(netdev);
	}
}

/**
 * rocx_netdev_link_change() - LINK_CHANGE event from EQ 0
 * @core: device
 * @link_status: LINK_STATUS value carried by the event
 *
 * Process context; takes rtnl so that the netdev cannot go away meanwhile.
 */
void rocx_netdev_link_change(struct rocx_core *core, u32 link_status)
{
	struct net_device *netdev;

	rtnl_lock();
	netdev = core->netdev;
	if (netdev && netdev->reg_state == NETREG_REGISTERED &&
	    netif_running(netdev))
		rocx_update_carrier(netdev_priv(netdev), link_status);
	rtnl_unlock();
}

/* The whole port configuration, administratively up. */
static int rocx_port_up(struct rocx_ndev *nd)
{
	struct net_device *netdev = nd->netdev;
	int err;

	err = rocx_aq_set_port(nd->core, ROCX_PORT_SET_MTU | ROCX_PORT_SET_MAC |
			       ROCX_PORT_SET_ADMIN | ROCX_PORT_SET_RX_MODE,
			       netdev->mtu, netdev->dev_addr, true,
			       rocx_rx_mode_of(netdev));
	if (err)
		netdev_err(netdev, "SET_PORT (admin up) failed: %d\n", err);
	return err;
}

static int rocx_open(struct net_device *netdev)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	struct rocx_core *core = nd->core;
	int err;

	if (rocx_gone(core))
		return -ENODEV;
	err = rocx_rings_alloc(nd, nd->tx, &nd->rx, nd->tx_ring_size,
			       nd->rx_ring_size,
			       rocx_rx_buf_size(netdev->mtu));
	if (err)
		return err;
	snprintf(nd->irq_name, sizeof(nd->irq_name), "%s-txrx", netdev->name);
	rocx_intr_mask(core, ROCX_VEC_ETH, true);
	err = request_irq(nd->irq, rocx_eth_irq_handler, 0, nd->irq_name, nd);
	if (err)
		goto err_free_rings;
	err = rocx_rings_up(nd);
	if (err)
		goto err_free_irq;
	err = rocx_port_up(nd);
	if (err)
		goto err_rings_down;
	netif_tx_start_all_queues(netdev);
	rocx_update_carrier(nd, rocx_rd32(core, ROCX_REG_LINK_STATUS));
	return 0;

err_rings_down:
	rocx_rings_down(nd);
	free_irq(nd->irq, nd);
	return err;
err_free_irq:
	free_irq(nd->irq, nd);
	return err;
err_free_rings:
	rocx_rings_free(nd, nd->tx, &nd->rx);
	return err;
}

static int rocx_stop(struct net_device *netdev)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	struct rocx_core *core = nd->core;
	int err;

	netif_tx_disable(netdev);
	netif_carrier_off(netdev);
	err = rocx_aq_set_port(core, ROCX_PORT_SET_ADMIN, 0, NULL, false, 0);
	if (err && err != -ENODEV)
		netdev_warn(netdev, "SET_PORT (admin down) failed: %d\n", err);
	rocx_rings_down(nd);
	free_irq(nd->irq, nd);
	return 0;
}

/**
 * rocx_netdev_reconfig() - apply ring sizes and the MTU's buffer size
 * @nd: netdev private area (rtnl held)
 * @tx_size: TX entries, a power of two
 * @rx_size: RX entries, a power of two
 * @mtu: MTU whose frames the RX buffers must hold
 *
 * A running interface gets new rings: they are allocated first, so a lack
 * of memory leaves the old ones in place.
 *
 * Return: 0 or an errno.
 */
int rocx_netdev_reconfig(struct rocx_ndev *nd, u32 tx_size, u32 rx_size,
			 unsigned int mtu)
{
	struct net_device *netdev = nd->netdev;
	struct rocx_tx_ring tx[ROCX_MAX_TXQ];
	struct rocx_rx_ring rx;
	int err;

	ASSERT_RTNL();
	/* Detached: the function is being reset; its restore uses these. */
	if (!netif_running(netdev) || rocx_gone(nd->core) ||
	    !netif_device_present(netdev)) {
		nd->tx_ring_size = tx_size;
		nd->rx_ring_size = rx_size;
		return 0;
	}
	err = rocx_rings_alloc(nd, tx, &rx, tx_size, rx_size,
			       rocx_rx_buf_size(mtu));
	if (err)
		return err;
	netif_tx_disable(netdev);
	rocx_rings_down(nd);
	memcpy(nd->tx, tx, sizeof(tx));
	nd->rx = rx;
	nd->tx_ring_size = tx_size;
	nd->rx_ring_size = rx_size;
	err = rocx_rings_up(nd);
	if (err) {
		netdev_err(netdev, "could not re-create the rings (%d); no traffic until the interface is brought down and up\n",
			   err);
		netif_carrier_off(netdev);
		return err;
	}
	netif_tx_wake_all_queues(netdev);
	return 0;
}

/**
 * rocx_netdev_quiesce() - stop the Ethernet data path for a moment
 * @nd: netdev private area (rtnl held)
 *
 * For work that needs vector 1 to itself (the offline self-test): xmit,
 * the TX watchdog and NAPI stop and vector 1 is masked, while the rings
 * stay in the device, which goes on completing into them and latches
 * INTR_CTRL(1).PENDING.  The port stays up, no netdev event is sent, and
 * the RDMA side is not touched.  rtnl keeps ndo_stop, ring changes and
 * link-change events out until rocx_netdev_restore().
 *
 * Return: true if the data path was running, and rocx_netdev_restore()
 * must follow; false if there was nothing to stop.
 */
bool rocx_netdev_quiesce(struct rocx_ndev *nd)
{
	ASSERT_RTNL();
	if (!nd->rings_up)
		return false;
	/* Not present: nothing transmits, and the watchdog leaves it be. */
	netif_device_detach(nd->netdev);
	/* Waits for an xmit running on another CPU. */
	netif_tx_disable(nd->netdev);
	rocx_intr_mask(nd->core, ROCX_VEC_ETH, true);
	/* Waits for a running poll; the handler's napi_schedule() is void. */
	napi_disable(&nd->napi);
	nd->quiesced = true;
	return true;
}

/**
 * rocx_netdev_restore() - undo rocx_netdev_quiesce()
 * @nd: netdev private area (rtnl held)
 */
void rocx_netdev_restore(struct rocx_ndev *nd)
{
	ASSERT_RTNL();
	napi_enable(&nd->napi);
	nd->quiesced = false;
	/*
	 * Completions that came while NAPI was off latched PENDING, but
	 * those a poll left behind when it was told to stop did not: one
	 * poll now takes them all and unmasks vector 1 when it is done.
	 */
	local_bh_disable();
	napi_schedule(&nd->napi);
	local_bh_enable();
	netif_device_attach(nd->netdev);
}

/**
 * rocx_netdev_reset_quiesce() - stop the netdev for a reset of the function
 * @core: device
 *
 * The data path stops as for the offline self-test (rocx_netdev_quiesce())
 * and the netdev is detached until rocx_netdev_reset_restore(): no xmit,
 * open, ethtool request or TX watchdog meanwhile, while rtnl is free for
 * the rest of the system.  The rings stay allocated, since the device
 * may write them until it is reset; rocx_netdev_reset_forget() frees
 * them after that.  Calling it again before the restore does nothing.
 */
void rocx_netdev_reset_quiesce(struct rocx_core *core)
{
	struct net_device *netdev = core->netdev;
	struct rocx_ndev *nd;

	if (!netdev)
		return;
	nd = netdev_priv(netdev);
	rtnl_lock();
	if (netif_device_present(netdev)) {
		nd->reset_restart = rocx_netdev_quiesce(nd);
		/* rocx_netdev_quiesce() leaves a netdev without rings be. */
		netif_device_detach(netdev);
		netif_carrier_off(netdev);
	}
	rtnl_unlock();
	/*
	 * Their admin commands could only fail now; the restore applies the
	 * RX mode, and a reconfiguration of a detached netdev waits for it.
	 */
	cancel_work_sync(&nd->rx_mode_work);
	cancel_work_sync(&nd->reset_work);
}

/**
 * rocx_netdev_reset_forget() - free the rings of a device that was reset
 * @core: device, reset (it no longer writes the rings); netdev quiesced
 */
void rocx_netdev_reset_forget(struct rocx_core *core)
{
	struct net_device *netdev = core->netdev;
	struct rocx_ndev *nd;

	if (!netdev)
		return;
	nd = netdev_priv(netdev);
	rtnl_lock();
	if (nd->rings_up) {
		/* NAPI has been off since the quiesce. */
		nd->rings_up = false;
		nd->quiesced = false;
		rocx_rings_free(nd, nd->tx, &nd->rx);
		rocx_tx_queues_reset(nd);
	}
	rtnl_unlock();
}

/**
 * rocx_netdev_reset_restore() - bring the netdev back after a reset
 * @core: device with a working admin queue and EQ 0
 *
 * An interface that was up gets new rings and its port configuration
 * (MTU, MAC, RX mode, admin up) again; the netdev is attached.  If that
 * fails it stays detached, without traffic, until the next reset.
 */
void rocx_netdev_reset_restore(struct rocx_core *core)
{
	struct net_device *netdev = core->netdev;
	struct rocx_ndev *nd;
	int err;

	if (!netdev)
		return;
	nd = netdev_priv(netdev);
	rtnl_lock();
	if (netif_device_present(netdev))
		goto out;
	if (nd->reset_restart && netif_running(netdev)) {
		err = rocx_rings_alloc(nd, nd->tx, &nd->rx, nd->tx_ring_size,
				       nd->rx_ring_size,
				       rocx_rx_buf_size(netdev->mtu));
		if (err)
			goto fail;
		/* Frees the rings if it fails. */
		err = rocx_rings_up(nd);
		if (err)
			goto fail;
		err = rocx_port_up(nd);
		if (err) {
			rocx_rings_down(nd);
			goto fail;
		}
	}
	nd->reset_restart = false;
	/* The device is back at its defaults: so are classes and tags. */
	rocx_dcb_sync(netdev);
	/* Wakes the queue of a running interface. */
	netif_device_attach(netdev);
	if (netif_running(netdev)) {
		rocx_update_carrier(nd, rocx_rd32(core, ROCX_REG_LINK_STATUS));
		/* The reset forgot the multicast filter: hand it the list. */
		schedule_work(&nd->rx_mode_work);
	}
	rocx_dcb_restore(netdev);
out:
	rtnl_unlock();
	return;
fail:
	netdev_err(netdev, "could not bring the rings back after the reset (%d); no traffic until the next reset\n",
		   err);
	rtnl_unlock();
}

static int rocx_change_mtu(struct net_device *netdev, int new_mtu)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	struct rocx_core *core = nd->core;
	unsigned int old_mtu = netdev->mtu;
	int err;

	err = rocx_aq_set_port(core, ROCX_PORT_SET_MTU, new_mtu, NULL, false, 0);
	if (err) {
		netdev_err(netdev, "SET_PORT (MTU %d) failed: %d\n", new_mtu, err);
		return err;
	}
	if (netif_running(netdev) &&
	    rocx_rx_buf_size(new_mtu) != nd->rx.buf_size) {
		err = rocx_netdev_reconfig(nd, nd->tx_ring_size,
					   nd->rx_ring_size, new_mtu);
		if (err) {
			rocx_aq_set_port(core, ROCX_PORT_SET_MTU, old_mtu, NULL,
					 false, 0);
			return err;
		}
	}
	WRITE_ONCE(netdev->mtu, new_mtu);
	return 0;
}

static int rocx_set_mac_address(struct net_device *netdev, void *p)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	struct sockaddr *addr = p;
	int err;

	err = eth_prepare_mac_addr_change(netdev, p);
	if (err)
		return err;
	err = rocx_aq_set_port(nd->core, ROCX_PORT_SET_MAC, 0,
			       (const u8 *)addr->sa_data, false, 0);
	if (err) {
		netdev_err(netdev, "SET_PORT (MAC %pM) failed: %d\n",
			   addr->sa_data, err);
		return err;
	}
	eth_commit_mac_addr_change(netdev, p);
	return 0;
}

/* Atomic context: hand the admin command to a work item. */
static void rocx_set_rx_mode(struct net_device *netdev)
{
	struct rocx_ndev *nd = netdev_priv(netdev);

	WRITE_ONCE(nd->rx_mode, rocx_rx_mode_of(netdev));
	schedule_work(&nd->rx_mode_work);
}

/*
 * Copy the netdev's multicast list into @nd->mc_list.  Return: the number
 * of groups, or -E2BIG when they are more than the device takes.
 */
static int rocx_mc_list_copy(struct rocx_ndev *nd)
{
	struct net_device *netdev = nd->netdev;
	struct netdev_hw_addr *ha;
	int n = 0;

	netif_addr_lock_bh(netdev);
	if (netdev_mc_count(netdev) > nd->mc_max) {
		netif_addr_unlock_bh(netdev);
		return -E2BIG;
	}
	netdev_for_each_mc_addr(ha, netdev) {
		ether_addr_copy(nd->mc_list[n].mac, ha->addr);
		nd->mc_list[n].rsvd = 0;
		n++;
	}
	netif_addr_unlock_bh(netdev);
	return n;
}

/*
 * The device filters multicast by the groups it was given (IPv6 needs
 * its solicited-node groups there, or neighbour discovery fails), so
 * every change of the netdev's list goes to it; a list longer than the
 * device takes makes the port ALLMULTI instead.  The list goes first, so
 * leaving ALLMULTI never drops a group still wanted.
 */
static void rocx_rx_mode_work(struct work_struct *work)
{
	struct rocx_ndev *nd = container_of(work, struct rocx_ndev,
					    rx_mode_work);
	u8 mode = READ_ONCE(nd->rx_mode);
	int n, err;

	if (nd->mc_list &&
	    !(mode & (ROCX_RX_MODE_PROMISC | ROCX_RX_MODE_ALLMULTI))) {
		n = rocx_mc_list_copy(nd);
		if (n >= 0)
			err = rocx_aq_set_mcast_macs(nd->core, nd->mc_dma, n);
		else
			err = n;
		if (err) {
			if (err != -E2BIG && !rocx_gone(nd->core))
				netdev_warn(nd->netdev, "SET_MCAST_MACS failed: %d; all multicast accepted\n",
					    err);
			mode |= ROCX_RX_MODE_ALLMULTI;
		}
	}
	err = rocx_aq_set_port(nd->core, ROCX_PORT_SET_RX_MODE, 0, NULL,
			       false, mode);
	/* -ENODEV: a reset is on its way; its restore sends the mode. */
	if (err && err != -ENODEV)
		netdev_warn(nd->netdev, "SET_PORT (RX mode %#x) failed: %d\n",
			    mode, err);
}

/* The SET_MCAST_MACS buffer, if the device filters multicast. */
static int rocx_mc_list_alloc(struct rocx_ndev *nd)
{
	if (!(rocx_caps2(nd->core) & ROCX_CAP2_MCAST_FILTER))
		return 0;
	nd->mc_max = min_t(u32, le32_to_cpu(nd->core->ident->max_mcast_macs),
			   ROCX_MC_MAX);
	nd->mc_list = dma_alloc_coherent(rocx_dev(nd->core),
					 ROCX_MC_MAX * sizeof(*nd->mc_list),
					 &nd->mc_dma, GFP_KERNEL);
	return nd->mc_list ? 0 : -ENOMEM;
}

static void rocx_mc_list_free(struct rocx_ndev *nd)
{
	if (nd->mc_list)
		dma_free_coherent(rocx_dev(nd->core),
				  ROCX_MC_MAX * sizeof(*nd->mc_list),
				  nd->mc_list, nd->mc_dma);
	nd->mc_list = NULL;
}

/**
 * rocx_txq_stats_read() - the driver's counters of TX queue @q
 * @nd: netdev private area
 * @q: queue, below @nd->num_txq
 * @s: filled in
 */
void rocx_txq_stats_read(struct rocx_ndev *nd, unsigned int q,
			 struct rocx_txq_stats *s)
{
	const struct rocx_sw_stats *st = &nd->tx_stats[q];
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		s->packets = u64_stats_read(&st->packets);
		s->bytes = u64_stats_read(&st->bytes);
		s->errors = u64_stats_read(&st->errors);
	} while (u64_stats_fetch_retry(&st->syncp, start));
	st = &nd->tx_drop_stats[q];
	do {
		start = u64_stats_fetch_begin(&st->syncp);
		s->dropped = u64_stats_read(&st->dropped);
		s->busy = u64_stats_read(&st->busy);
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

static void rocx_get_stats64(struct net_device *netdev,
			     struct rtnl_link_stats64 *s)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	struct rocx_txq_stats tq;
	const struct rocx_sw_stats *st;
	unsigned int start, q;

	for (q = 0; q < nd->num_txq; q++) {
		rocx_txq_stats_read(nd, q, &tq);
		s->tx_packets += tq.packets;
		s->tx_bytes += tq.bytes;
		s->tx_errors += tq.errors;
		s->tx_dropped += tq.dropped;
	}

	st = &nd->rx_stats;
	do {
		start = u64_stats_fetch_begin(&st->syncp);
		s->rx_packets = u64_stats_read(&st->packets);
		s->rx_bytes = u64_stats_read(&st->bytes);
		s->rx_length_errors = u64_stats_read(&st->truncated);
		s->rx_errors = u64_stats_read(&st->errors) +
			       s->rx_length_errors;
		s->rx_dropped = u64_stats_read(&st->dropped);
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

static void rocx_tx_timeout(struct net_device *netdev, unsigned int txqueue)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	struct rocx_tx_ring *tx = &nd->tx[txqueue < nd->num_txq ? txqueue : 0];
	u16 tail = READ_ONCE(tx->tail);
	u32 status;

	atomic64_inc(&nd->tx_timeouts);
	status = rocx_rd32(nd->core, ROCX_REG_DEV_STATUS);
	/* Gone, or reset: the function's reset makes new rings anyway. */
	if (rocx_dev_off(nd->core))
		return;
	netdev_err(netdev, "TX timeout on queue %u: head %u tail %u, descriptor status %#x, DEV_STATUS %#x, INTR_CTRL(1) %#x; re-creating the rings\n",
		   txqueue, READ_ONCE(tx->head), tail,
		   tx->desc ? le16_to_cpu(tx->desc[rocx_ring_slot(tail, tx->size)].status) : 0,
		   status, rocx_rd32(nd->core, ROCX_REG_INTR_CTRL(ROCX_VEC_ETH)));
	schedule_work(&nd->reset_work);
}

static void rocx_reset_work(struct work_struct *work)
{
	struct rocx_ndev *nd = container_of(work, struct rocx_ndev, reset_work);
	struct net_device *netdev = nd->netdev;

	rtnl_lock();
	if (netif_running(netdev))
		rocx_netdev_reconfig(nd, nd->tx_ring_size, nd->rx_ring_size,
				     netdev->mtu);
	rtnl_unlock();
}

static const struct net_device_ops rocx_netdev_ops = {
	.ndo_open		= rocx_open,
	.ndo_stop		= rocx_stop,
	.ndo_start_xmit		= rocx_start_xmit,
	.ndo_select_queue	= rocx_select_queue,
	.ndo_change_mtu		= rocx_change_mtu,
	.ndo_set_mac_address	= rocx_set_mac_address,
	.ndo_set_rx_mode	= rocx_set_rx_mode,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_get_stats64	= rocx_get_stats64,
	.ndo_tx_timeout		= rocx_tx_timeout,
};

/**
 * rocx_netdev_set_prio_tc() - the TX queue of each priority
 * @netdev: the port's netdev; rtnl held, or not registered yet
 * @prio_tc: traffic class of each priority, as the device schedules them
 *	(ETS's prio_tc); @prio_tc[0] also for skb priorities 8..15
 *
 * Queue q is traffic class q: the netdev gets a class per TX ring, of one
 * queue each, and the device's priority-to-class table as its
 * prio_tc_map, which rocx_select_queue() follows.  With one TX ring there
 * is nothing to choose.
 */
void rocx_netdev_set_prio_tc(struct net_device *netdev, const u8 *prio_tc)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	unsigned int p, tc;

	if (nd->num_txq < ROCX_MAX_TXQ)
		return;
	if (netdev_get_num_tc(netdev) != ROCX_NUM_TC) {
		netdev_set_num_tc(netdev, ROCX_NUM_TC);
		for (tc = 0; tc < ROCX_NUM_TC; tc++)
			netdev_set_tc_queue(netdev, tc, 1, tc);
	}
	for (p = 0; p <= TC_BITMASK; p++)
		netdev_set_prio_tc_map(netdev, p, prio_tc[rocx_tx_prio(p)]);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_netdev_set_prio_tc);

/**
 * rocx_netdev_create() - create and register the port's netdev
 * @core: device with its identify block and EQ 0
 *
 * Return: 0 or an errno.
 */
int rocx_netdev_create(struct rocx_core *core)
{
	const struct rocx_identify *id = core->ident;
	struct net_device *netdev;
	unsigned int max_mtu, num_txq = 1, q;
	struct rocx_ndev *nd;
	int err;

	/* A TX ring per class is what lets ETS and PFC govern Ethernet. */
	if (rocx_caps2(core) & ROCX_CAP2_ETS)
		num_txq = clamp_t(unsigned int, le16_to_cpu(id->max_eth_rings),
				  1, ROCX_MAX_TXQ);
	netdev = alloc_etherdev_mqs(sizeof(*nd), num_txq, 1);
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, rocx_dev(core));
	nd = netdev_priv(netdev);
	nd->core = core;
	nd->netdev = netdev;
	nd->num_txq = num_txq;
	nd->tx_ring_size = ROCX_RING_DEFAULT;
	nd->rx_ring_size = ROCX_RING_DEFAULT;
	nd->irq = pci_irq_vector(core->pdev, ROCX_VEC_ETH);
	INIT_WORK(&nd->rx_mode_work, rocx_rx_mode_work);
	INIT_WORK(&nd->reset_work, rocx_reset_work);
	for (q = 0; q < ROCX_MAX_TXQ; q++) {
		u64_stats_init(&nd->tx_stats[q].syncp);
		u64_stats_init(&nd->tx_drop_stats[q].syncp);
	}
	u64_stats_init(&nd->rx_stats.syncp);

	netdev->netdev_ops = &rocx_netdev_ops;
	rocx_set_ethtool_ops(netdev);
	rocx_dcb_init(netdev);
	/* The device's classes and tagging, before the first frame. */
	rocx_dcb_sync(netdev);
	netdev->watchdog_timeo = ROCX_TX_TIMEOUT;
	netdev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	netdev->min_mtu = ROCX_MIN_MTU;
	max_mtu = le16_to_cpu(id->max_mtu);
	netdev->max_mtu = max_mtu ? min(max_mtu, ROCX_MAX_MTU) : ROCX_MAX_MTU;

	if (is_valid_ether_addr(id->mac)) {
		eth_hw_addr_set(netdev, id->mac);
		ether_addr_copy(netdev->perm_addr, id->mac);
	} else {
		eth_hw_addr_random(netdev);
		dev_warn(rocx_dev(core), "device MAC %pM is not a valid unicast address; using random %pM\n",
			 id->mac, netdev->dev_addr);
	}
	netif_napi_add(netdev, &nd->napi, rocx_napi_poll);
	netif_carrier_off(netdev);
	err = rocx_mc_list_alloc(nd);
	if (err)
		goto err_free_netdev;

	core->netdev = netdev;
	err = register_netdev(netdev);
	if (err) {
		core->netdev = NULL;
		goto err_free_mc;
	}
	return 0;

err_free_mc:
	rocx_mc_list_free(nd);
err_free_netdev:
	free_netdev(netdev);
	return err;
}

/**
 * rocx_netdev_destroy() - unregister and free the netdev
 * @core: device
 */
void rocx_netdev_destroy(struct rocx_core *core)
{
	struct net_device *netdev = core->netdev;
	struct rocx_ndev *nd;

	if (!netdev)
		return;
	nd = netdev_priv(netdev);
	unregister_netdev(netdev);
	/* EQ 0's work looks the netdev up under rtnl. */
	rtnl_lock();
	core->netdev = NULL;
	rtnl_unlock();
	cancel_work_sync(&nd->rx_mode_work);
	cancel_work_sync(&nd->reset_work);
	rocx_mc_list_free(nd);
	free_netdev(netdev);
}
