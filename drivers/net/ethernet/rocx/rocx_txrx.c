// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx Ethernet data path: a TX ring per traffic class (one on a device
 * that does not schedule by class) and one RX ring, all on vector 1,
 * polled by one NAPI.
 *
 * A frame's TX queue is its traffic class: rocx_select_queue() maps
 * skb->priority through the netdev's prio_tc_map, which rocx_dcb_sync()
 * keeps equal to the device's ETS table.  The device classifies a
 * frame by its tag, not by its ring, and never tags Ethernet frames
 * itself, so xmit priority-tags (VLAN 0, PCP = priority) the untagged
 * frames of the priorities PFC protects under PCP trust; otherwise the
 * peer and the switch would see priority 0 and pause the wrong one.
 *
 * A TX descriptor carries one whole frame, so skbs are linearized and no
 * offload is claimed.  An RX buffer holds the largest frame of the MTU;
 * each is an skb handed up as is (the stack strips a VLAN 0 tag).
 * Neither ring has a phase bit: the device sets ROCX_ETH_STS_DONE in a
 * descriptor the driver cleared when posting.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/netdev_queues.h>

#include "rocx.h"
#include "rocx_ring.h"

static struct device *rocx_nd_dma(struct rocx_ndev *nd)
{
	return rocx_dev(nd->core);
}

static void rocx_stat_add(struct rocx_sw_stats *s, u64_stats_t *ctr, u64 n)
{
	u64_stats_update_begin(&s->syncp);
	u64_stats_add(ctr, n);
	u64_stats_update_end(&s->syncp);
}

/* ---- Ring memory ---- */

static int rocx_rx_alloc_buf(struct rocx_ndev *nd, struct rocx_rx_ring *rx,
			     struct rocx_rx_buf *buf, gfp_t gfp)
{
	struct sk_buff *skb;
	dma_addr_t dma;

	skb = __netdev_alloc_skb_ip_align(nd->netdev, rx->buf_size, gfp);
	if (!skb)
		return -ENOMEM;
	dma = dma_map_single(rocx_nd_dma(nd), skb->data, rx->buf_size,
			     DMA_FROM_DEVICE);
	if (dma_mapping_error(rocx_nd_dma(nd), dma)) {
		dev_kfree_skb_any(skb);
		return -ENOMEM;
	}
	buf->skb = skb;
	buf->dma = dma;
	return 0;
}

static void rocx_tx_ring_free(struct rocx_ndev *nd, struct rocx_tx_ring *tx)
{
	struct device *dev = rocx_nd_dma(nd);
	u32 i;

	if (tx->bufs) {
		for (i = 0; i < tx->size; i++) {
			struct rocx_tx_buf *buf = &tx->bufs[i];

			if (!buf->skb)
				continue;
			dma_unmap_single(dev, buf->dma, buf->len, DMA_TO_DEVICE);
			dev_kfree_skb_any(buf->skb);
		}
		kfree(tx->bufs);
	}
	if (tx->desc)
		dma_free_coherent(dev, tx->size * sizeof(*tx->desc), tx->desc,
				  tx->dma);
	memset(tx, 0, sizeof(*tx));
}

/**
 * rocx_rings_free() - release rings the device no longer uses
 * @nd: netdev private area
 * @tx: the @nd->num_txq transmit rings (may be partly allocated)
 * @rx: receive ring (may be partly allocated)
 */
void rocx_rings_free(struct rocx_ndev *nd, struct rocx_tx_ring *tx,
		     struct rocx_rx_ring *rx)
{
	struct device *dev = rocx_nd_dma(nd);
	unsigned int q;
	u32 i;

	for (q = 0; q < nd->num_txq; q++)
		rocx_tx_ring_free(nd, &tx[q]);
	if (rx->bufs) {
		for (i = 0; i < rx->size; i++) {
			struct rocx_rx_buf *buf = &rx->bufs[i];

			if (!buf->skb)
				continue;
			dma_unmap_single(dev, buf->dma, rx->buf_size,
					 DMA_FROM_DEVICE);
			dev_kfree_skb_any(buf->skb);
		}
		kfree(rx->bufs);
	}
	if (rx->desc)
		dma_free_coherent(dev, rx->size * sizeof(*rx->desc), rx->desc,
				  rx->dma);
	memset(rx, 0, sizeof(*rx));
}

/**
 * rocx_rings_alloc() - allocate the rings and every RX buffer
 * @nd: netdev private area
 * @tx: @nd->num_txq transmit rings, filled in
 * @rx: filled in
 * @tx_size: TX entries of each ring, a power of two
 * @rx_size: RX entries, a power of two
 * @buf_size: RX buffer size
 *
 * Everything that can fail for lack of memory fails here, before the
 * device or the running rings are touched.
 *
 * Return: 0 or -ENOMEM (with nothing left allocated).
 */
int rocx_rings_alloc(struct rocx_ndev *nd, struct rocx_tx_ring *tx,
		     struct rocx_rx_ring *rx, u32 tx_size, u32 rx_size,
		     u32 buf_size)
{
	struct device *dev = rocx_nd_dma(nd);
	unsigned int q;
	u32 i;

	memset(tx, 0, nd->num_txq * sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	for (q = 0; q < nd->num_txq; q++) {
		tx[q].size = tx_size;
		tx[q].desc = dma_alloc_coherent(dev,
						tx_size * sizeof(*tx[q].desc),
						&tx[q].dma, GFP_KERNEL);
		tx[q].bufs = kcalloc(tx_size, sizeof(*tx[q].bufs), GFP_KERNEL);
		if (!tx[q].desc || !tx[q].bufs)
			goto err_free;
	}
	rx->size = rx_size;
	rx->buf_size = buf_size;
	rx->desc = dma_alloc_coherent(dev, rx_size * sizeof(*rx->desc),
				      &rx->dma, GFP_KERNEL);
	rx->bufs = kcalloc(rx_size, sizeof(*rx->bufs), GFP_KERNEL);
	if (!rx->desc || !rx->bufs)
		goto err_free;
	for (i = 0; i < rx_size; i++)
		if (rocx_rx_alloc_buf(nd, rx, &rx->bufs[i], GFP_KERNEL))
			goto err_free;
	return 0;

err_free:
	rocx_rings_free(nd, tx, rx);
	return -ENOMEM;
}

/* ---- Receive ---- */

/**
 * rocx_rx_refill() - post every free RX slot and ring the doorbell
 * @nd: netdev private area with live rings
 * @gfp: allocation context for slots whose buffer went up the stack
 *
 * Runs in NAPI, or at ring start before NAPI is enabled.
 */
void rocx_rx_refill(struct rocx_ndev *nd, gfp_t gfp)
{
	struct rocx_rx_ring *rx = &nd->rx;
	struct rocx_eth_rx_desc *desc;
	struct rocx_rx_buf *buf;
	u32 posted = 0, slot;

	while (rocx_ring_free(rx->head, rx->tail, rx->size)) {
		slot = rocx_ring_slot(rx->head, rx->size);
		buf = &rx->bufs[slot];
		if (!buf->skb && rocx_rx_alloc_buf(nd, rx, buf, gfp)) {
			rocx_stat_add(&nd->rx_stats, &nd->rx_stats.dropped, 1);
			break;
		}
		desc = &rx->desc[slot];
		desc->addr = cpu_to_le64(buf->dma);
		desc->rsvd0 = 0;
		desc->pkt_len = 0;
		desc->status = 0;
		desc->rsvd1 = 0;
		rx->head++;
		posted++;
	}
	if (posted)
		rocx_db_ring(nd->core, ROCX_DB_ETH_RX,
			     rocx_db_encode(ROCX_ETH_QID, rx->head, 0));
}

static int rocx_rx_clean(struct rocx_ndev *nd, int budget)
{
	struct rocx_rx_ring *rx = &nd->rx;
	struct rocx_sw_stats *st = &nd->rx_stats;
	u64 bytes = 0, errors = 0, truncated = 0;
	struct rocx_eth_rx_desc *desc;
	struct rocx_rx_buf *buf;
	struct sk_buff *skb;
	int done = 0;
	u16 status;
	u32 len;

	while (done < budget && rx->tail != rx->head) {
		desc = &rx->desc[rocx_ring_slot(rx->tail, rx->size)];
		status = le16_to_cpu(READ_ONCE(desc->status));
		if (!(status & ROCX_ETH_STS_DONE))
			break;
		/* Status is written last: read the length after it. */
		dma_rmb();
		len = le16_to_cpu(desc->pkt_len);
		buf = &rx->bufs[rocx_ring_slot(rx->tail, rx->size)];
		rx->tail++;
		done++;

		if (unlikely(status & ROCX_ETH_STS_TRUNC)) {
			truncated++;
			continue;	/* the buffer is posted again */
		}
		if (unlikely((status & ROCX_ETH_STS_ERR) || len < ETH_HLEN ||
			     len > rx->buf_size)) {
			errors++;
			continue;
		}
		dma_unmap_single(rocx_nd_dma(nd), buf->dma, rx->buf_size,
				 DMA_FROM_DEVICE);
		skb = buf->skb;
		buf->skb = NULL;
		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, nd->netdev);
		bytes += len;
		napi_gro_receive(&nd->napi, skb);
	}

	u64_stats_update_begin(&st->syncp);
	u64_stats_add(&st->packets, done - errors - truncated);
	u64_stats_add(&st->bytes, bytes);
	u64_stats_add(&st->errors, errors);
	u64_stats_add(&st->truncated, truncated);
	u64_stats_update_end(&st->syncp);

	rocx_rx_refill(nd, GFP_ATOMIC);
	return done;
}

/* ---- Transmit ---- */

/*
 * Free TX slots.  xmit and NAPI hand slots to each other through head and
 * tail: each publishes its index with release after it is done with the
 * slots (xmit: descriptor and buffer written; NAPI: buffer read, unmapped
 * and cleared), and the other reads it with acquire before it touches
 * them, so neither sees the index before the slots' contents.
 */
static u32 rocx_tx_free(struct rocx_tx_ring *tx)
{
	/* Pairs with NAPI's release of tail: slots below it are reclaimed. */
	return rocx_ring_free(READ_ONCE(tx->head), smp_load_acquire(&tx->tail),
			      tx->size);
}

static void rocx_tx_dropped(struct rocx_sw_stats *st)
{
	rocx_stat_add(st, &st->dropped, 1);
}

static void rocx_tx_drop(struct rocx_sw_stats *st, struct sk_buff *skb)
{
	rocx_tx_dropped(st);
	dev_kfree_skb_any(skb);
}

/**
 * rocx_select_queue() - ndo_select_queue: the TX queue of a frame
 * @netdev: the port's netdev
 * @skb: the frame
 * @sb_dev: subordinate device, or NULL
 *
 * By skb->priority alone, through the netdev's prio_tc_map to the one
 * queue of its class, rather than by netdev_pick_tx(), whose XPS map or
 * queue cached in the socket would outlive an SO_PRIORITY change.  A
 * class of several queues (an mqprio qdisc's own layout) is left to
 * netdev_pick_tx(); without classes (an mqprio qdisc removed them until
 * the next `dcb ets set`) queue 0.
 *
 * Return: the TX queue.
 */
u16 rocx_select_queue(struct net_device *netdev, struct sk_buff *skb,
		      struct net_device *sb_dev)
{
	struct net_device *dev = sb_dev ? sb_dev : netdev;
	const struct netdev_tc_txq *txq;

	if (!netdev_get_num_tc(dev))
		return 0;
	txq = &dev->tc_to_txq[netdev_get_prio_tc_map(dev, skb->priority)];
	if (txq->count != 1)
		return netdev_pick_tx(netdev, skb, sb_dev);
	return txq->offset < netdev->real_num_tx_queues ? txq->offset : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_select_queue);

netdev_tx_t rocx_start_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	u16 q = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(netdev, q);
	struct rocx_sw_stats *dst = &nd->tx_drop_stats[q];
	struct rocx_tx_ring *tx = &nd->tx[q];
	struct rocx_eth_tx_desc *desc;
	struct rocx_tx_buf *buf;
	dma_addr_t dma;
	u8 prio;
	u32 slot;

	if (unlikely(!rocx_tx_free(tx))) {
		netif_tx_stop_queue(txq);
		rocx_stat_add(dst, &dst->busy, 1);
		return NETDEV_TX_BUSY;
	}
	prio = rocx_tx_prio(skb->priority);
	if (rocx_tx_wants_tag(READ_ONCE(nd->tag_prios), prio, skb->data,
			      skb_headlen(skb))) {
		/* Frees the skb if it fails. */
		skb = vlan_insert_tag(skb, htons(ETH_P_8021Q),
				      prio << VLAN_PRIO_SHIFT);
		if (!skb) {
			rocx_tx_dropped(dst);
			return NETDEV_TX_OK;
		}
	}
	if (skb_linearize(skb)) {
		rocx_tx_drop(dst, skb);
		return NETDEV_TX_OK;
	}
	/* The device sends what it is given; short frames are ours to pad. */
	if (skb_put_padto(skb, ETH_ZLEN)) {
		rocx_tx_dropped(dst);
		return NETDEV_TX_OK;
	}
	if (unlikely(skb->len > ROCX_MAX_FRAME)) {
		rocx_tx_drop(dst, skb);
		return NETDEV_TX_OK;
	}
	dma = dma_map_single(rocx_nd_dma(nd), skb->data, skb->len,
			     DMA_TO_DEVICE);
	if (dma_mapping_error(rocx_nd_dma(nd), dma)) {
		rocx_tx_drop(dst, skb);
		return NETDEV_TX_OK;
	}

	slot = rocx_ring_slot(tx->head, tx->size);
	buf = &tx->bufs[slot];
	buf->skb = skb;
	buf->dma = dma;
	buf->len = skb->len;
	desc = &tx->desc[slot];
	desc->addr = cpu_to_le64(dma);
	desc->len = cpu_to_le16(skb->len);
	desc->flags = 0;
	desc->status = 0;
	desc->rsvd = 0;
	skb_tx_timestamp(skb);
	/* The cleaner must not see the slot before its cleared status. */
	smp_store_release(&tx->head, tx->head + 1);

	netif_txq_maybe_stop(txq, rocx_tx_free(tx), ROCX_TX_STOP_THRS,
			     ROCX_TX_WAKE_THRS);
	if (__netdev_tx_sent_queue(txq, buf->len, netdev_xmit_more()))
		rocx_db_ring(nd->core, ROCX_DB_ETH_TX,
			     rocx_db_encode(q, tx->head, 0));
	return NETDEV_TX_OK;
}

static void rocx_tx_clean(struct rocx_ndev *nd, unsigned int q, int budget)
{
	struct netdev_queue *txq = netdev_get_tx_queue(nd->netdev, q);
	struct rocx_sw_stats *st = &nd->tx_stats[q];
	struct rocx_tx_ring *tx = &nd->tx[q];
	u32 pkts = 0, bql_bytes = 0, bytes = 0, errors = 0;
	/* Pairs with xmit's release: the slots up to head are written. */
	u16 tail = tx->tail, head = smp_load_acquire(&tx->head);
	struct rocx_eth_tx_desc *desc;
	struct rocx_tx_buf *buf;
	u16 status;

	while (tail != head) {
		desc = &tx->desc[rocx_ring_slot(tail, tx->size)];
		status = le16_to_cpu(READ_ONCE(desc->status));
		if (!(status & ROCX_ETH_STS_DONE))
			break;
		buf = &tx->bufs[rocx_ring_slot(tail, tx->size)];
		dma_unmap_single(rocx_nd_dma(nd), buf->dma, buf->len,
				 DMA_TO_DEVICE);
		if (unlikely(status & ROCX_ETH_STS_ERR)) {
			errors++;
		} else {
			pkts++;
			bytes += buf->len;
		}
		bql_bytes += buf->len;
		napi_consume_skb(buf->skb, budget);
		buf->skb = NULL;
		tail++;
	}
	if (tail == tx->tail)
		return;
	/* xmit may reuse the slots once it sees tail: we are done with them. */
	smp_store_release(&tx->tail, tail);

	u64_stats_update_begin(&st->syncp);
	u64_stats_add(&st->packets, pkts);
	u64_stats_add(&st->bytes, bytes);
	u64_stats_add(&st->errors, errors);
	u64_stats_update_end(&st->syncp);

	netif_txq_completed_wake(txq, pkts + errors, bql_bytes,
				 rocx_tx_free(tx), ROCX_TX_WAKE_THRS);
}

/* ---- Interrupt and NAPI ---- */

irqreturn_t rocx_eth_irq_handler(int irq, void *data)
{
	struct rocx_ndev *nd = data;

	rocx_test_irq_seen(nd->core, ROCX_VEC_ETH);
	/* Latch further completions until NAPI is done. */
	rocx_intr_mask(nd->core, ROCX_VEC_ETH, true);
	napi_schedule(&nd->napi);
	return IRQ_HANDLED;
}

int rocx_napi_poll(struct napi_struct *napi, int budget)
{
	struct rocx_ndev *nd = container_of(napi, struct rocx_ndev, napi);
	unsigned int q;
	int done;

	for (q = 0; q < nd->num_txq; q++)
		rocx_tx_clean(nd, q, budget);
	done = rocx_rx_clean(nd, budget);
	if (done == budget)
		return budget;
	/* No buffer posted (allocation failed): no RX interrupt will come,
	 * so keep polling until the refill succeeds.
	 */
	if (unlikely(!rocx_ring_used(nd->rx.head, nd->rx.tail)))
		return budget;
	if (napi_complete_done(napi, done))
		rocx_intr_mask(nd->core, ROCX_VEC_ETH, false);
	return done;
}
