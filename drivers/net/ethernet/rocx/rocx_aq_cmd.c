// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx admin commands: the encoders of the commands rocx_core sends and
 * their wrappers.  The queue they go through is rocx_aq.c's.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "rocx.h"
#include "rocx_aq.h"

/* ---- Command encoding ---- */

static void rocx_aq_hdr(union rocx_aq_cmd *cmd, u16 opcode)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = cpu_to_le16(opcode);
}

VISIBLE_IF_KUNIT void rocx_aq_build_identify(union rocx_aq_cmd *cmd,
					     dma_addr_t addr, u32 len)
{
	rocx_aq_hdr(cmd, ROCX_AQ_OP_IDENTIFY);
	cmd->identify.addr = cpu_to_le64(addr);
	cmd->identify.len = cpu_to_le32(len);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_build_identify);

VISIBLE_IF_KUNIT void rocx_aq_build_set_port(union rocx_aq_cmd *cmd,
					     u32 valid, u16 mtu,
					     const u8 *mac, bool admin_up,
					     u8 rx_mode)
{
	rocx_aq_hdr(cmd, ROCX_AQ_OP_SET_PORT);
	cmd->set_port.valid = cpu_to_le32(valid);
	if (valid & ROCX_PORT_SET_MTU)
		cmd->set_port.mtu = cpu_to_le16(mtu);
	if ((valid & ROCX_PORT_SET_MAC) && mac)
		memcpy(cmd->set_port.mac, mac, sizeof(cmd->set_port.mac));
	if (valid & ROCX_PORT_SET_ADMIN)
		cmd->set_port.admin_up = admin_up;
	if (valid & ROCX_PORT_SET_RX_MODE)
		cmd->set_port.rx_mode = rx_mode;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_build_set_port);

VISIBLE_IF_KUNIT void rocx_aq_build_get_stats(union rocx_aq_cmd *cmd,
					      dma_addr_t addr, u32 len)
{
	rocx_aq_hdr(cmd, ROCX_AQ_OP_GET_STATS);
	cmd->get_stats.addr = cpu_to_le64(addr);
	cmd->get_stats.len = cpu_to_le32(len);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_build_get_stats);

VISIBLE_IF_KUNIT void rocx_aq_build_create_eq(union rocx_aq_cmd *cmd, u16 eqn,
					      dma_addr_t base, u8 log_depth,
					      u8 vector)
{
	rocx_aq_hdr(cmd, ROCX_AQ_OP_CREATE_EQ);
	cmd->create_eq.base = cpu_to_le64(base);
	cmd->create_eq.eqn = cpu_to_le16(eqn);
	cmd->create_eq.log_depth = log_depth;
	cmd->create_eq.vector = vector;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_build_create_eq);

VISIBLE_IF_KUNIT void rocx_aq_build_destroy_eq(union rocx_aq_cmd *cmd, u16 eqn)
{
	rocx_aq_hdr(cmd, ROCX_AQ_OP_DESTROY_EQ);
	cmd->destroy_eq.eqn = cpu_to_le16(eqn);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_build_destroy_eq);

VISIBLE_IF_KUNIT void rocx_aq_build_create_eth_ring(union rocx_aq_cmd *cmd,
						    u8 type, u8 qid,
						    dma_addr_t base,
						    u8 log_depth, u8 vector,
						    u16 buf_size, u8 tc)
{
	rocx_aq_hdr(cmd, ROCX_AQ_OP_CREATE_ETH_RING);
	cmd->create_eth_ring.base = cpu_to_le64(base);
	cmd->create_eth_ring.type = type;
	cmd->create_eth_ring.qid = qid;
	cmd->create_eth_ring.log_depth = log_depth;
	cmd->create_eth_ring.vector = vector;
	if (type == ROCX_ETH_RING_RX)
		cmd->create_eth_ring.buf_size = cpu_to_le16(buf_size);
	else
		cmd->create_eth_ring.tc = tc;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_build_create_eth_ring);

VISIBLE_IF_KUNIT void rocx_aq_build_destroy_eth_ring(union rocx_aq_cmd *cmd,
						     u8 type, u8 qid)
{
	rocx_aq_hdr(cmd, ROCX_AQ_OP_DESTROY_ETH_RING);
	cmd->destroy_eth_ring.type = type;
	cmd->destroy_eth_ring.qid = qid;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_build_destroy_eth_ring);

VISIBLE_IF_KUNIT void rocx_aq_build_set_mcast_macs(union rocx_aq_cmd *cmd,
						   dma_addr_t addr, u32 count)
{
	rocx_aq_hdr(cmd, ROCX_AQ_OP_SET_MCAST_MACS);
	cmd->set_mcast_macs.addr = cpu_to_le64(addr);
	cmd->set_mcast_macs.count = cpu_to_le32(count);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_build_set_mcast_macs);

VISIBLE_IF_KUNIT void rocx_aq_build_dcb(union rocx_aq_cmd *cmd, u16 opcode,
					dma_addr_t addr, u32 len)
{
	rocx_aq_hdr(cmd, opcode);
	cmd->cfg_buf.addr = cpu_to_le64(addr);
	cmd->cfg_buf.len = cpu_to_le32(len);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_build_dcb);

/* ---- Commands rocx_core itself issues ---- */

/**
 * rocx_aq_identify() - read the identify block
 * @core: device
 * @out: set to a copy of the block, for the caller to publish and free
 *
 * Return: 0 or an errno; @out is untouched on error.
 */
int rocx_aq_identify(struct rocx_core *core, struct rocx_identify **out)
{
	struct device *dev = rocx_dev(core);
	struct rocx_identify *id, *copy;
	union rocx_aq_cmd cmd;
	dma_addr_t dma;
	int err;

	id = dma_alloc_coherent(dev, sizeof(*id), &dma, GFP_KERNEL);
	if (!id)
		return -ENOMEM;
	rocx_aq_build_identify(&cmd, dma, sizeof(*id));
	err = rocx_admin_exec(core, &cmd, NULL);
	if (err) {
		dev_err(dev, "IDENTIFY failed: %d\n", err);
		goto out;
	}
	copy = kmemdup(id, sizeof(*id), GFP_KERNEL);
	if (copy)
		*out = copy;
	else
		err = -ENOMEM;
out:
	dma_free_coherent(dev, sizeof(*id), id, dma);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_identify);

/**
 * rocx_aq_set_port() - SET_PORT
 * @core: device
 * @valid: ROCX_PORT_SET_* fields to apply
 * @mtu: L3 MTU
 * @mac: unicast address
 * @admin_up: administrative state
 * @rx_mode: ROCX_RX_MODE_* bits
 *
 * Return: 0 or an errno.
 */
int rocx_aq_set_port(struct rocx_core *core, u32 valid, u16 mtu,
		     const u8 *mac, bool admin_up, u8 rx_mode)
{
	union rocx_aq_cmd cmd;

	rocx_aq_build_set_port(&cmd, valid, mtu, mac, admin_up, rx_mode);
	return rocx_admin_exec(core, &cmd, NULL);
}

/**
 * rocx_aq_set_mcast_macs() - SET_MCAST_MACS: the device's multicast filter
 * @core: device with ROCX_CAP2_MCAST_FILTER
 * @addr: @count struct rocx_mcast_mac, which the device reads before the
 *	command completes
 * @count: entries, at most IDENTIFY.max_mcast_macs; 0 empties the filter
 *
 * Return: 0 or an errno.
 */
int rocx_aq_set_mcast_macs(struct rocx_core *core, dma_addr_t addr, u32 count)
{
	union rocx_aq_cmd cmd;

	rocx_aq_build_set_mcast_macs(&cmd, addr, count);
	return rocx_admin_exec(core, &cmd, NULL);
}

/**
 * rocx_aq_dcb() - SET_DCB or QUERY_DCB through a DMA copy of @cfg
 * @core: device with ROCX_CAP2_PFC or ROCX_CAP2_ETS
 * @opcode: ROCX_AQ_OP_SET_DCB (the device reads @cfg; it applies the
 *	fields cfg->valid selects, all or none) or ROCX_AQ_OP_QUERY_DCB
 *	(the device writes its whole configuration into @cfg)
 * @cfg: the configuration
 *
 * Return: 0 or an errno: -EINVAL for a configuration the device refuses
 * (nothing changed), -EFAULT if it could not reach the buffer.
 */
int rocx_aq_dcb(struct rocx_core *core, u16 opcode, struct rocx_dcb_cfg *cfg)
{
	struct device *dev = rocx_dev(core);
	struct rocx_dcb_cfg *buf;
	union rocx_aq_cmd cmd;
	dma_addr_t dma;
	int err;

	buf = dma_alloc_coherent(dev, sizeof(*buf), &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (opcode == ROCX_AQ_OP_SET_DCB)
		memcpy(buf, cfg, sizeof(*buf));
	rocx_aq_build_dcb(&cmd, opcode, dma, sizeof(*buf));
	err = rocx_admin_exec(core, &cmd, NULL);
	if (!err && opcode == ROCX_AQ_OP_QUERY_DCB)
		memcpy(cfg, buf, sizeof(*cfg));
	dma_free_coherent(dev, sizeof(*buf), buf, dma);
	return err;
}

/**
 * rocx_aq_create_eth_ring() - CREATE_ETH_RING
 * @core: device
 * @type: enum rocx_eth_ring_type
 * @qid: ring number
 * @base: descriptor ring
 * @size: entries, a power of two
 * @vector: MSI-X vector for completions
 * @buf_size: RX buffer size
 * @tc: TX: the traffic class the device schedules the ring in (0 on a
 *	device without ROCX_CAP2_ETS); RX: ignored
 *
 * Return: 0 or an errno.
 */
int rocx_aq_create_eth_ring(struct rocx_core *core, u8 type, u8 qid,
			    dma_addr_t base, u32 size, u8 vector, u16 buf_size,
			    u8 tc)
{
	union rocx_aq_cmd cmd;

	rocx_aq_build_create_eth_ring(&cmd, type, qid, base, ilog2(size),
				      vector, buf_size, tc);
	return rocx_admin_exec(core, &cmd, NULL);
}

/**
 * rocx_aq_destroy_eth_ring() - DESTROY_ETH_RING
 * @core: device
 * @type: enum rocx_eth_ring_type
 * @qid: ring number
 *
 * Return: 0 or an errno.
 */
int rocx_aq_destroy_eth_ring(struct rocx_core *core, u8 type, u8 qid)
{
	union rocx_aq_cmd cmd;

	rocx_aq_build_destroy_eth_ring(&cmd, type, qid);
	return rocx_admin_exec(core, &cmd, NULL);
}

/**
 * rocx_aq_create_eq() - CREATE_EQ
 * @core: device
 * @eqn: EQ number
 * @base: entry ring
 * @log_depth: log2 of its entries
 * @vector: MSI-X vector
 *
 * Return: 0 or an errno.
 */
int rocx_aq_create_eq(struct rocx_core *core, u16 eqn, dma_addr_t base,
		      u8 log_depth, u8 vector)
{
	union rocx_aq_cmd cmd;

	rocx_aq_build_create_eq(&cmd, eqn, base, log_depth, vector);
	return rocx_admin_exec(core, &cmd, NULL);
}

/**
 * rocx_aq_destroy_eq() - DESTROY_EQ
 * @core: device
 * @eqn: EQ number
 *
 * Return: 0 or an errno.
 */
int rocx_aq_destroy_eq(struct rocx_core *core, u16 eqn)
{
	union rocx_aq_cmd cmd;

	rocx_aq_build_destroy_eq(&cmd, eqn);
	return rocx_admin_exec(core, &cmd, NULL);
}

/**
 * rocx_aq_get_stats() - read the device counters
 * @core: device
 * @stats: receives up to @n counters in enum rocx_stat order
 * @n: room in @stats
 *
 * Return: number of counters the device wrote, or a negative errno.
 */
int rocx_aq_get_stats(struct rocx_core *core, u64 *stats, unsigned int n)
{
	struct device *dev = rocx_dev(core);
	struct rocx_aq_cqe cqe;
	union rocx_aq_cmd cmd;
	unsigned int i, got;
	dma_addr_t dma;
	__le64 *buf;
	int err;

	buf = dma_alloc_coherent(dev, n * sizeof(*buf), &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	rocx_aq_build_get_stats(&cmd, dma, n * sizeof(*buf));
	err = rocx_admin_exec(core, &cmd, &cqe);
	if (err)
		goto out;
	got = min(le32_to_cpu(cqe.result), n);
	for (i = 0; i < got; i++)
		stats[i] = le64_to_cpu(buf[i]);
	err = got;
out:
	dma_free_coherent(dev, n * sizeof(*buf), buf, dma);
	return err;
}
EXPORT_SYMBOL_NS_GPL(rocx_aq_get_stats, ROCX);
