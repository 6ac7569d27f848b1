// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx admin queue.
 *
 * One command is outstanding at a time (rocx_aq.lock): the device runs
 * commands one by one anyway, and a single outstanding command keeps slot,
 * phase and timeout handling simple.  The queue starts in polled mode;
 * once vector 0 has a handler it is restarted with IRQ_EN and the waiter
 * sleeps on a completion signalled from that handler.  Either way the
 * waiter decides by the completion's phase bit, never by the interrupt.
 *
 * A command that times out has an unknown outcome: the device may still
 * run it and touch the memory it names, which the caller frees when the
 * command fails.  So a timeout is a fatal error of the device: it is
 * reset (rocx_reset_fatal()) before the command returns, and then fails
 * with -ENODEV like every command until the reset path has brought the
 * function up again.
 */
#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>

#include "rocx.h"
#include "rocx_aq.h"
#include "rocx_ring.h"

static bool aq_poll;
module_param(aq_poll, bool, 0444);
MODULE_PARM_DESC(aq_poll,
		 "Poll admin completions instead of using the interrupt (default: no)");

#define ROCX_AQ_ENABLE_TIMEOUT_US	(100 * USEC_PER_MSEC)
#define ROCX_AQ_POLL_MIN_US		10
#define ROCX_AQ_POLL_MAX_US		50

static const char * const rocx_aq_op_names[] = {
	[ROCX_AQ_OP_NOP] = "NOP",
	[ROCX_AQ_OP_IDENTIFY] = "IDENTIFY",
	[ROCX_AQ_OP_SET_PORT] = "SET_PORT",
	[ROCX_AQ_OP_QUERY_PORT] = "QUERY_PORT",
	[ROCX_AQ_OP_GET_STATS] = "GET_STATS",
	[ROCX_AQ_OP_CREATE_EQ] = "CREATE_EQ",
	[ROCX_AQ_OP_DESTROY_EQ] = "DESTROY_EQ",
	[ROCX_AQ_OP_CREATE_ETH_RING] = "CREATE_ETH_RING",
	[ROCX_AQ_OP_DESTROY_ETH_RING] = "DESTROY_ETH_RING",
	[ROCX_AQ_OP_SET_GID] = "SET_GID",
	[ROCX_AQ_OP_DEL_GID] = "DEL_GID",
	[ROCX_AQ_OP_ALLOC_UCTX] = "ALLOC_UCTX",
	[ROCX_AQ_OP_DEALLOC_UCTX] = "DEALLOC_UCTX",
	[ROCX_AQ_OP_CREATE_PD] = "CREATE_PD",
	[ROCX_AQ_OP_DESTROY_PD] = "DESTROY_PD",
	[ROCX_AQ_OP_SET_MCAST_MACS] = "SET_MCAST_MACS",
	[ROCX_AQ_OP_REG_MR] = "REG_MR",
	[ROCX_AQ_OP_DEREG_MR] = "DEREG_MR",
	[ROCX_AQ_OP_CREATE_CQ] = "CREATE_CQ",
	[ROCX_AQ_OP_DESTROY_CQ] = "DESTROY_CQ",
	[ROCX_AQ_OP_CREATE_QP] = "CREATE_QP",
	[ROCX_AQ_OP_MODIFY_QP] = "MODIFY_QP",
	[ROCX_AQ_OP_QUERY_QP] = "QUERY_QP",
	[ROCX_AQ_OP_DESTROY_QP] = "DESTROY_QP",
	[ROCX_AQ_OP_CREATE_SRQ] = "CREATE_SRQ",
	[ROCX_AQ_OP_MODIFY_SRQ] = "MODIFY_SRQ",
	[ROCX_AQ_OP_DESTROY_SRQ] = "DESTROY_SRQ",
	[ROCX_AQ_OP_ALLOC_MW] = "ALLOC_MW",
	[ROCX_AQ_OP_DEALLOC_MW] = "DEALLOC_MW",
	[ROCX_AQ_OP_SET_DCB] = "SET_DCB",
	[ROCX_AQ_OP_SET_CC] = "SET_CC",
	[ROCX_AQ_OP_QUERY_DCB] = "QUERY_DCB",
};

/**
 * rocx_aq_op_name() - name of an admin opcode, for logs
 * @opcode: enum rocx_aq_opcode value
 *
 * Return: the name, or "?" for an unknown opcode.
 */
VISIBLE_IF_KUNIT const char *rocx_aq_op_name(u16 opcode)
{
	if (opcode < ARRAY_SIZE(rocx_aq_op_names) && rocx_aq_op_names[opcode])
		return rocx_aq_op_names[opcode];
	return "?";
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_op_name);

static const int rocx_aq_errno[] = {
	[ROCX_AQ_STS_OK] = 0,
	[ROCX_AQ_STS_UNSUPPORTED] = -EOPNOTSUPP,
	[ROCX_AQ_STS_INVALID] = -EINVAL,
	[ROCX_AQ_STS_NO_RESOURCE] = -ENOSPC,
	[ROCX_AQ_STS_BAD_STATE] = -EBUSY,
	[ROCX_AQ_STS_DMA_ERROR] = -EFAULT,
	[ROCX_AQ_STS_EXISTS] = -EEXIST,
	[ROCX_AQ_STS_NOT_FOUND] = -ENOENT,
	[ROCX_AQ_STS_INTERNAL] = -EIO,
};

static_assert(ARRAY_SIZE(rocx_aq_errno) == ROCX_AQ_STS_MAX + 1);

int rocx_status_to_errno(u8 status)
{
	if (status >= ARRAY_SIZE(rocx_aq_errno))
		return -EIO;
	return rocx_aq_errno[status];
}
EXPORT_SYMBOL_NS_GPL(rocx_status_to_errno, ROCX);

/**
 * rocx_aq_diagnose() - why a command timed out
 * @pi: producer index after the command was posted
 * @head: AQ_HEAD read after the timeout
 * @cqe_ready: the command's completion is in the ring now
 * @status: AQ_STATUS read after the timeout
 *
 * Return: the most specific explanation.
 */
VISIBLE_IF_KUNIT enum rocx_aq_diag rocx_aq_diagnose(u16 pi, u32 head,
						    bool cqe_ready, u32 status)
{
	if (cqe_ready)
		return ROCX_AQ_DIAG_LOST_IRQ;
	if (status & ROCX_AQ_STATUS_ERROR)
		return ROCX_AQ_DIAG_QUEUE_ERROR;
	if (!(status & ROCX_AQ_STATUS_ENABLED))
		return ROCX_AQ_DIAG_DISABLED;
	if ((u16)head == pi)
		return ROCX_AQ_DIAG_NO_COMPLETION;
	return ROCX_AQ_DIAG_NOT_FETCHED;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_aq_diagnose);

/* ---- Queue control ---- */

static struct rocx_aq_cqe *rocx_aq_cqe_of(struct rocx_aq *aq, u16 index)
{
	return &aq->cq[rocx_ring_slot(index, 1U << aq->log_depth)];
}

/* Whether the completion of the command at @index has arrived. */
static bool rocx_aq_cqe_ready(struct rocx_aq *aq, u16 index)
{
	u8 flags = READ_ONCE(rocx_aq_cqe_of(aq, index)->flags);

	return (flags & ROCX_AQ_CQE_PHASE) ==
	       rocx_ring_phase(index, aq->log_depth);
}

static void rocx_aq_hw_disable(struct rocx_core *core)
{
	u32 status;

	rocx_wr32(core, ROCX_REG_AQ_CTRL, 0);
	if (rocx_gone(core))
		return;
	if (readl_poll_timeout(core->regs + ROCX_REG_AQ_STATUS, status,
			       !(status & ROCX_AQ_STATUS_ENABLED),
			       100, ROCX_AQ_ENABLE_TIMEOUT_US))
		dev_warn(rocx_dev(core), "admin queue still enabled after disable (AQ_STATUS %#x)\n",
			 status);
}

/*
 * (Re)start the queue from index 0 with empty rings.  Used at probe, to
 * switch to interrupt mode and to recover from a timeout or a queue error;
 * the caller holds aq->lock or owns the queue exclusively.
 */
static int rocx_aq_hw_start(struct rocx_core *core, bool irq)
{
	struct rocx_aq *aq = &core->aq;
	u32 depth = 1U << aq->log_depth;
	u32 status, head;
	int err;

	rocx_aq_hw_disable(core);
	memset(aq->sq, 0, depth * sizeof(*aq->sq));
	memset(aq->cq, 0, depth * sizeof(*aq->cq));
	aq->pi = 0;
	aq->irq_mode = irq;

	rocx_wr32(core, ROCX_REG_AQ_SQ_BASE_LO, lower_32_bits(aq->sq_dma));
	rocx_wr32(core, ROCX_REG_AQ_SQ_BASE_HI, upper_32_bits(aq->sq_dma));
	rocx_wr32(core, ROCX_REG_AQ_CQ_BASE_LO, lower_32_bits(aq->cq_dma));
	rocx_wr32(core, ROCX_REG_AQ_CQ_BASE_HI, upper_32_bits(aq->cq_dma));
	rocx_wr32(core, ROCX_REG_AQ_CTRL,
		  rocx_aq_ctrl_value(aq->log_depth, irq, ROCX_VEC_ADMIN));
	if (rocx_gone(core))
		return -ENODEV;
	err = readl_poll_timeout(core->regs + ROCX_REG_AQ_STATUS, status,
				 status & (ROCX_AQ_STATUS_ENABLED |
					   ROCX_AQ_STATUS_ERROR),
				 100, ROCX_AQ_ENABLE_TIMEOUT_US);
	if (status == ~0U) {
		rocx_set_gone(core);
		return -ENODEV;
	}
	if (err || (status & ROCX_AQ_STATUS_ERROR)) {
		dev_err(rocx_dev(core), "admin queue did not enable: AQ_STATUS %#x, AQ_CTRL %#x, LAST_GUEST_ERR %#x\n",
			status, rocx_rd32(core, ROCX_REG_AQ_CTRL),
			rocx_rd32(core, ROCX_REG_LAST_GUEST_ERR));
		return -EIO;
	}
	head = rocx_rd32(core, ROCX_REG_AQ_HEAD);
	if (head & 0xffff) {
		dev_err(rocx_dev(core), "admin queue enabled with AQ_HEAD %#x, expected 0\n",
			head);
		return -EIO;
	}
	return 0;
}

/**
 * rocx_aq_init() - allocate the admin rings and start the queue polled
 * @core: device, freshly reset
 *
 * Return: 0 or an errno; on error nothing is left allocated.
 */
int rocx_aq_init(struct rocx_core *core)
{
	struct rocx_aq *aq = &core->aq;
	struct device *dev = rocx_dev(core);
	u32 depth;
	int err;

	aq->log_depth = ROCX_AQ_LOG_DEPTH;
	depth = 1U << aq->log_depth;
	aq->sq = dma_alloc_coherent(dev, depth * sizeof(*aq->sq), &aq->sq_dma,
				    GFP_KERNEL);
	if (!aq->sq)
		return -ENOMEM;
	aq->cq = dma_alloc_coherent(dev, depth * sizeof(*aq->cq), &aq->cq_dma,
				    GFP_KERNEL);
	if (!aq->cq) {
		err = -ENOMEM;
		goto err_free_sq;
	}
	err = rocx_aq_hw_start(core, false);
	if (err)
		goto err_free_cq;
	set_bit(ROCX_ST_AQ_UP, &core->state);
	return 0;

err_free_cq:
	rocx_aq_hw_disable(core);
	dma_free_coherent(dev, depth * sizeof(*aq->cq), aq->cq, aq->cq_dma);
	aq->cq = NULL;
err_free_sq:
	dma_free_coherent(dev, depth * sizeof(*aq->sq), aq->sq, aq->sq_dma);
	aq->sq = NULL;
	return err;
}

/**
 * rocx_aq_enable_irq() - restart the queue in interrupt mode
 * @core: device whose vector 0 handler calls rocx_aq_irq()
 *
 * Honours the aq_poll module parameter.
 *
 * Return: 0 or an errno (the queue is then left polled if it can be).
 */
int rocx_aq_enable_irq(struct rocx_core *core)
{
	struct rocx_aq *aq = &core->aq;
	int err;

	if (aq_poll) {
		aq->poll_only = true;
		dev_info(rocx_dev(core), "admin queue polled (aq_poll=1)\n");
		return 0;
	}
	mutex_lock(&aq->lock);
	err = rocx_aq_hw_start(core, true);
	if (err && !rocx_gone(core)) {
		dev_warn(rocx_dev(core), "admin queue interrupt mode failed (%d), staying polled\n",
			 err);
		aq->poll_only = true;
		err = rocx_aq_hw_start(core, false);
	}
	mutex_unlock(&aq->lock);
	return err;
}

/**
 * rocx_aq_restart() - start the queue again after a reset of the device
 * @core: device, reset, with its admin rings and vector 0 handler
 *
 * Interrupt mode unless the queue was polled before.  On success
 * commands are accepted again.
 *
 * Return: 0 or an errno (the queue is then left stopped).
 */
int rocx_aq_restart(struct rocx_core *core)
{
	struct rocx_aq *aq = &core->aq;
	int err;

	mutex_lock(&aq->lock);
	err = rocx_aq_hw_start(core, !aq->poll_only);
	if (err && !aq->poll_only && !rocx_gone(core)) {
		dev_warn(rocx_dev(core), "admin queue interrupt mode failed (%d), staying polled\n",
			 err);
		aq->poll_only = true;
		err = rocx_aq_hw_start(core, false);
	}
	if (!err) {
		clear_bit(ROCX_ST_RESET, &core->state);
		set_bit(ROCX_ST_AQ_UP, &core->state);
	}
	mutex_unlock(&aq->lock);
	return err;
}

/**
 * rocx_aq_stop() - refuse further commands and disable the queue
 * @core: device
 *
 * Waits for a running command to finish.
 */
void rocx_aq_stop(struct rocx_core *core)
{
	mutex_lock(&core->aq.lock);
	clear_bit(ROCX_ST_AQ_UP, &core->state);
	rocx_aq_hw_disable(core);
	core->aq.irq_mode = false;
	mutex_unlock(&core->aq.lock);
}

/**
 * rocx_aq_free() - free the admin rings
 * @core: device that no longer does DMA (reset, or gone)
 */
void rocx_aq_free(struct rocx_core *core)
{
	struct rocx_aq *aq = &core->aq;
	u32 depth = 1U << aq->log_depth;

	dma_free_coherent(rocx_dev(core), depth * sizeof(*aq->cq), aq->cq,
			  aq->cq_dma);
	dma_free_coherent(rocx_dev(core), depth * sizeof(*aq->sq), aq->sq,
			  aq->sq_dma);
	aq->cq = NULL;
	aq->sq = NULL;
}

/**
 * rocx_aq_irq() - vector 0 fired: wake the command waiter
 * @core: device
 */
void rocx_aq_irq(struct rocx_core *core)
{
	if (READ_ONCE(core->aq.irq_mode))
		complete(&core->aq.done);
}

/* ---- Execution ---- */

static int rocx_aq_wait(struct rocx_core *core, u16 index)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ROCX_AQ_TIMEOUT_MS);
	struct rocx_aq *aq = &core->aq;
	long left;

	for (;;) {
		if (rocx_aq_cqe_ready(aq, index))
			return 0;
		if (rocx_gone(core))
			return -ENODEV;
		left = (long)(deadline - jiffies);
		if (left <= 0)
			return -ETIMEDOUT;
		if (aq->irq_mode)
			wait_for_completion_timeout(&aq->done, left);
		else
			usleep_range(ROCX_AQ_POLL_MIN_US, ROCX_AQ_POLL_MAX_US);
	}
}

/*
 * The command at @index got no completion in time: say why.  Return 0
 * when the completion is there after all (lost interrupt; the queue falls
 * back to polling for good).  Otherwise the device may still execute the
 * command, so it is reset before the caller frees what the command names,
 * and the command fails with -ENODEV.
 */
static int rocx_aq_timeout(struct rocx_core *core,
			   const union rocx_aq_cmd *cmd, u16 index)
{
	struct rocx_aq *aq = &core->aq;
	struct device *dev = rocx_dev(core);
	u16 opcode = le16_to_cpu(cmd->hdr.opcode);
	u32 head, status;
	bool ready;

	head = rocx_rd32(core, ROCX_REG_AQ_HEAD);
	status = rocx_rd32(core, ROCX_REG_AQ_STATUS);
	if (rocx_gone(core))
		return -ENODEV;
	ready = rocx_aq_cqe_ready(aq, index);

	switch (rocx_aq_diagnose(aq->pi, head, ready, status)) {
	case ROCX_AQ_DIAG_LOST_IRQ:
		dev_err(dev, "admin %s (id %u): completion arrived but its interrupt on vector %u did not; polling from now on\n",
			rocx_aq_op_name(opcode), le16_to_cpu(cmd->hdr.cmd_id),
			ROCX_VEC_ADMIN);
		WRITE_ONCE(aq->irq_mode, false);
		aq->poll_only = true;
		return 0;
	case ROCX_AQ_DIAG_QUEUE_ERROR:
		dev_err(dev, "admin %s (id %u): queue stopped on a ring DMA fault (AQ_STATUS %#x, LAST_GUEST_ERR %#x)\n",
			rocx_aq_op_name(opcode), le16_to_cpu(cmd->hdr.cmd_id),
			status, rocx_rd32(core, ROCX_REG_LAST_GUEST_ERR));
		break;
	case ROCX_AQ_DIAG_DISABLED:
		dev_err(dev, "admin %s (id %u): queue found disabled (AQ_STATUS %#x)\n",
			rocx_aq_op_name(opcode), le16_to_cpu(cmd->hdr.cmd_id),
			status);
		break;
	case ROCX_AQ_DIAG_NO_COMPLETION:
		dev_err(dev, "admin %s (id %u): device consumed the command (AQ_HEAD %u) but wrote no completion in %u ms\n",
			rocx_aq_op_name(opcode), le16_to_cpu(cmd->hdr.cmd_id),
			head & 0xffff, ROCX_AQ_TIMEOUT_MS);
		break;
	case ROCX_AQ_DIAG_NOT_FETCHED:
		dev_err(dev, "admin %s (id %u): device never fetched the command (AQ_HEAD %u, producer %u, AQ_STATUS %#x) in %u ms\n",
			rocx_aq_op_name(opcode), le16_to_cpu(cmd->hdr.cmd_id),
			head & 0xffff, aq->pi, status, ROCX_AQ_TIMEOUT_MS);
		break;
	}
	rocx_reset_fatal(core, "admin command timed out");
	return -ENODEV;
}

int rocx_admin_exec(struct rocx_core *core, union rocx_aq_cmd *cmd,
		    struct rocx_aq_cqe *cqe)
{
	struct rocx_aq *aq = &core->aq;
	u16 opcode = le16_to_cpu(cmd->hdr.opcode);
	struct rocx_aq_cqe comp;
	u16 index;
	int err;

	mutex_lock(&aq->lock);
	if (!test_bit(ROCX_ST_AQ_UP, &core->state) || rocx_gone(core)) {
		err = -ENODEV;
		goto out;
	}
	cmd->hdr.cmd_id = cpu_to_le16(++aq->cmd_id);
	index = aq->pi;
	memcpy(&aq->sq[rocx_ring_slot(index, 1U << aq->log_depth)], cmd,
	       sizeof(*cmd));
	aq->pi++;
	reinit_completion(&aq->done);
	/* writel() orders the command in memory before the doorbell. */
	rocx_wr32(core, ROCX_REG_AQ_DB, aq->pi);

	err = rocx_aq_wait(core, index);
	if (err == -ETIMEDOUT)
		err = rocx_aq_timeout(core, cmd, index);
	if (err)
		goto out;
	/* The phase bit is written last: read the rest after it. */
	dma_rmb();
	comp = *rocx_aq_cqe_of(aq, index);
	if (le16_to_cpu(comp.cmd_id) != aq->cmd_id) {
		dev_err(rocx_dev(core), "admin %s: completion carries id %u, expected %u\n",
			rocx_aq_op_name(opcode), le16_to_cpu(comp.cmd_id),
			aq->cmd_id);
		/* Which command did it run?  Not one to trust any more. */
		rocx_reset_fatal(core, "admin completion for another command");
		err = -ENODEV;
		goto out;
	}
	if (cqe)
		*cqe = comp;
	err = rocx_status_to_errno(comp.status);
	if (err)
		dev_dbg(rocx_dev(core), "admin %s (id %u) failed: status %u (%d)\n",
			rocx_aq_op_name(opcode), aq->cmd_id, comp.status, err);
out:
	mutex_unlock(&aq->lock);
	return err;
}
EXPORT_SYMBOL_NS_GPL(rocx_admin_exec, ROCX);
