// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx Ethernet data path: one TX and one RX ring on vector 1, polled by
 * NAPI.
 *
 * A TX descriptor carries one whole frame, so skbs are linearized and no
 * offload is claimed.  An RX buffer holds the largest frame of the MTU;
 * each is an skb handed up as is.  Neither ring has a phase bit: the device
 * sets ROCX_ETH_STS_DONE in a descriptor the driver cleared when posting.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
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

/**
 * rocx_rings_free() - release rings the device no longer uses
 * @nd: netdev private area
 * @tx: transmit ring (may be partly allocated)
 * @rx: receive ring (may be partly allocated)
 */
void rocx_rings_free(struct rocx_ndev *nd, struct rocx_tx_ring *tx,
		     struct rocx_rx_ring *rx)
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
	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
}

/**
 * rocx_rings_alloc() - allocate a ring pair and every RX buffer
 * @nd: netdev private area
 * @tx: filled in
 * @rx: filled in
 * @tx_size: TX entries, a power of two
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
	u32 i;

	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	tx->size = tx_size;
	rx->size = rx_size;
	rx->buf_size = buf_size;

	tx->desc = dma_alloc_coherent(dev, tx_size * sizeof(*tx->desc),
				      &tx->dma, GFP_KERNEL);
	tx->bufs = kcalloc(tx_size, sizeof(*tx->bufs), GFP_KERNEL);
	rx->desc = dma_alloc_coherent(dev, rx_size * sizeof(*rx->desc),
				      &rx->dma, GFP_KERNEL);
	rx->bufs = kcalloc(rx_size, sizeof(*rx->bufs), GFP_KERNEL);
	if (!tx->desc || !tx->bufs || !rx->desc || !rx->bufs)
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
			     rocx_db_value(ROCX_ETH_QID, rx->head, false, false));
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

static void rocx_tx_drop(struct rocx_ndev *nd, struct sk_buff *skb)
{
	rocx_stat_add(&nd->tx_drop_stats, &nd->tx_drop_stats.dropped, 1);
	dev_kfree_skb_any(skb);
}

netdev_tx_t rocx_start_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	struct netdev_queue *txq = netdev_get_tx_queue(netdev, 0);
	struct rocx_tx_ring *tx = &nd->tx;
	struct rocx_eth_tx_desc *desc;
	struct rocx_tx_buf *buf;
	dma_addr_t dma;
	u32 slot;

	if (unlikely(!rocx_tx_free(tx))) {
		netif_tx_stop_queue(txq);
		rocx_stat_add(&nd->tx_drop_stats, &nd->tx_drop_stats.busy, 1);
		return NETDEV_TX_BUSY;
	}
	if (skb_linearize(skb)) {
		rocx_tx_drop(nd, skb);
		return NETDEV_TX_OK;
	}
	/* The device sends what it is given; short frames are ours to pad. */
	if (skb_put_padto(skb, ETH_ZLEN)) {
		rocx_stat_add(&nd->tx_drop_stats, &nd->tx_drop_stats.dropped, 1);
		return NETDEV_TX_OK;
	}
	if (unlikely(skb->len > ROCX_MAX_FRAME)) {
		rocx_tx_drop(nd, skb);
		return NETDEV_TX_OK;
	}
	dma = dma_map_single(rocx_nd_dma(nd), skb->data, skb->len,
			     DMA_TO_DEVICE);
	if (dma_mapping_error(rocx_nd_dma(nd), dma)) {
		rocx_tx_drop(nd, skb);
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
			     rocx_db_value(ROCX_ETH_QID, tx->head, false, false));
	return NETDEV_TX_OK;
}

static void rocx_tx_clean(struct rocx_ndev *nd, int budget)
{
	struct netdev_queue *txq = netdev_get_tx_queue(nd->netdev, 0);
	struct rocx_sw_stats *st = &nd->tx_stats;
	struct rocx_tx_ring *tx = &nd->tx;
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
	int done;

	rocx_tx_clean(nd, budget);
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
