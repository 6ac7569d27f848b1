/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Ring arithmetic and encodings shared by the admin queue, EQ 0 and the
 * Ethernet rings.  Pure functions, tested by rocx_core_test.c.
 *
 * Producer and consumer indices are free-running: they count entries since
 * the ring was created and wrap at 2^16 (what a doorbell carries), while
 * the slot is index & (size - 1).  With sizes that are powers of two up to
 * 2^15 both stay consistent across the 16-bit wrap.
 */
#ifndef _ROCX_RING_H_
#define _ROCX_RING_H_

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/types.h>
#include <rocx/rocx_if.h>

/* Entries between consumer @tail and producer @head. */
static inline u32 rocx_ring_used(u16 head, u16 tail)
{
	return (u16)(head - tail);
}

/* Entries a producer at @head may still fill in a ring of @size. */
static inline u32 rocx_ring_free(u16 head, u16 tail, u32 size)
{
	return size - rocx_ring_used(head, tail);
}

/* Slot of free-running @index in a ring of @size (a power of two). */
static inline u32 rocx_ring_slot(u32 index, u32 size)
{
	return index & (size - 1);
}

/* AQ_CTRL value enabling a queue of 2^@log_depth entries. */
static inline u32 rocx_aq_ctrl_value(unsigned int log_depth, bool irq,
				     unsigned int vector)
{
	u32 val = ROCX_FIELD_PREP(ROCX_AQ_CTRL_LOG_DEPTH_MASK, log_depth) |
		  ROCX_AQ_CTRL_ENABLE;

	if (irq)
		val |= ROCX_AQ_CTRL_IRQ_EN |
		       ROCX_FIELD_PREP(ROCX_AQ_CTRL_VECTOR_MASK, vector);
	return val;
}

/* Receive buffer size for @mtu: the largest frame, one VLAN tag included. */
static inline u32 rocx_rx_buf_size(unsigned int mtu)
{
	return mtu + ETH_HLEN + VLAN_HLEN;
}

/*
 * The 802.1p priority of a frame of socket priority @skb_prio: as the
 * netdev's prio_tc_map, only the low 4 bits count, and values 8..15
 * (no TC_PRIO_* value) are priority 0.
 */
static inline u8 rocx_tx_prio(u32 skb_prio)
{
	u32 p = skb_prio & TC_BITMASK;

	return p < ROCX_NUM_PRIO ? p : 0;
}

/*
 * Whether xmit priority-tags a frame of priority @prio starting with the
 * @len bytes at @frame: its priority is one of @tag_prios and it has no
 * tag already (a VLAN device's frames carry theirs, PCP included).
 */
static inline bool rocx_tx_wants_tag(u8 tag_prios, u8 prio, const void *frame,
				     unsigned int len)
{
	const struct ethhdr *eth = frame;

	return (tag_prios & BIT(prio)) && len >= ETH_HLEN &&
	       !eth_type_vlan(eth->h_proto);
}

/* Link speed in Mb/s from a LINK_STATUS value, 0 when the link is down. */
static inline u32 rocx_link_speed_mbps(u32 link_status)
{
	if (!(link_status & ROCX_LINK_UP))
		return 0;
	return ROCX_FIELD_GET(ROCX_LINK_SPEED_MASK, link_status) * 1000;
}

#endif /* _ROCX_RING_H_ */
