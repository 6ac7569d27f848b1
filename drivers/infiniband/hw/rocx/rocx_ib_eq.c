// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib completion event queue.
 *
 * Every CQ names an EQ; an armed CQ posts one COMPLETION entry (data =
 * cqn) there when its next CQE arrives and disarms.  rocx_ib owns one such
 * EQ on an MSI-X vector of its own, apart from EQ 0 (rocx_core's, for
 * asynchronous events, which reach us through rocx_register_events()).
 *
 * The handler runs in hard interrupt context: all it does per entry is
 * call the CQ's comp_handler, which for user CQs queues an event on a
 * completion channel and never sleeps.  User space polls the CQ itself.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/log2.h>

#include "rocx_ib.h"

/*
 * The device lost @n completion events.  Which CQs they were for is
 * unknown, so every CQ that may have lost one is woken: a consumer woken
 * for nothing polls an empty CQ and arms it again, one never woken would
 * wait for ever.  The device signals an armed CQ once, when it holds an
 * entry, so a kernel CQ that is not armed, or armed with nothing to
 * poll, lost none (rocx_ib_kcq_event()).  Such a CQ may be on its way
 * out: ib_free_cq() stops its polling (irq_poll_disable(),
 * cancel_work_sync()) before destroy_cq, and a call then would queue
 * work on a CQ about to be freed.  A user CQ's handler (uverbs') only
 * queues an event for the process.  The table's lock is held across the
 * calls, as in rocx_ib_cq_comp(), so destroy_cq waits for them.
 */
VISIBLE_IF_KUNIT void rocx_ib_ceq_lost(struct rocx_ib_dev *dev, u64 n)
{
	struct rocx_ib_cq *cq;
	unsigned long cqn;

	ibdev_warn_ratelimited(&dev->ibdev,
			       "completion EQ lost %llu events; waking every CQ with completions\n",
			       n);
	xa_lock(&dev->cq_xa);
	xa_for_each(&dev->cq_xa, cqn, cq) {
		if (!cq->ibcq.comp_handler)
			continue;
		/* A direct CQ's consumer polls it; a call would warn. */
		if (cq->ibcq.poll_ctx == IB_POLL_DIRECT)
			continue;
		if (cq->kbuf.va && !rocx_ib_kcq_event(cq, true))
			continue;
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
	xa_unlock(&dev->cq_xa);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_ceq_lost);

static irqreturn_t rocx_ib_ceq_irq(int irq, void *data)
{
	struct rocx_ib_eq *eq = data;
	struct rocx_ib_dev *dev = eq->dev;
	u32 depth = BIT(eq->log_depth);
	const struct rocx_eqe *eqe;
	u32 n;

	/* Not while the EQ does not exist: the doorbell would be an error. */
	if (!READ_ONCE(eq->created))
		return IRQ_NONE;

	/* At most one ring's worth; the re-arm below signals again if more. */
	for (n = 0; n < depth; n++) {
		eqe = &eq->ring[eq->ci & (depth - 1)];
		if ((READ_ONCE(eqe->flags) & ROCX_EQE_PHASE) !=
		    rocx_ring_phase(eq->ci, eq->log_depth))
			break;
		/* The phase bit is written last: read the entry after it. */
		dma_rmb();
		if (le16_to_cpu(eqe->type) == ROCX_EQE_COMPLETION)
			rocx_ib_cq_comp(dev, le32_to_cpu(eqe->data));
		else if (le16_to_cpu(eqe->type) == ROCX_EQE_EQ_OVERFLOW &&
			 (le64_to_cpu(dev->id->caps2) &
			  ROCX_CAP2_EQ_OVERFLOW_EVENT))
			rocx_ib_ceq_lost(dev, le64_to_cpu(eqe->info));
		else
			ibdev_warn_ratelimited(&dev->ibdev,
					       "event type %u on the completion EQ\n",
					       le16_to_cpu(eqe->type));
		eq->ci++;
		/* Hand entries back on the way so a burst cannot overflow. */
		if ((n + 1) % (depth / 2) == 0)
			rocx_kernel_db(dev->core, ROCX_DB_EQ,
				       rocx_db_encode(eq->eqn, eq->ci, 0));
	}
	/*
	 * An ARM while entries written by the device are unconsumed signals
	 * at once (rocx-device.rst, "Event queues"), so an event that lands
	 * after the loop is not lost.
	 */
	rocx_kernel_db(dev->core, ROCX_DB_EQ,
		       rocx_db_encode(eq->eqn, eq->ci, ROCX_DB_ARM));
	return IRQ_HANDLED;
}

/* One entry per CQ that can be armed at once, and a margin. */
static u8 rocx_ib_ceq_log_depth(const struct rocx_identify *id)
{
	u32 max_cq = max(le32_to_cpu(id->max_cq), 1U);

	return clamp_t(u32, order_base_2(max_cq) + 1, ROCX_EQ_MIN_LOG_DEPTH,
		       ROCX_EQ_MAX_LOG_DEPTH);
}

static int rocx_ib_eq_cmd(struct rocx_ib_dev *dev, u16 op,
			  const struct rocx_ib_eq *eq)
{
	union rocx_aq_cmd cmd = {};

	cmd.hdr.opcode = cpu_to_le16(op);
	if (op == ROCX_AQ_OP_CREATE_EQ) {
		cmd.create_eq.base = cpu_to_le64(eq->dma);
		cmd.create_eq.eqn = cpu_to_le16(eq->eqn);
		cmd.create_eq.log_depth = eq->log_depth;
		cmd.create_eq.vector = eq->vector;
	} else {
		cmd.destroy_eq.eqn = cpu_to_le16(eq->eqn);
	}
	return rocx_admin_exec(dev->core, &cmd, NULL);
}

/**
 * rocx_ib_ceq_create() - create and arm the completion EQ
 * @dev: device, not yet registered with ib_core
 *
 * Return: 0 or an errno; without the EQ no CQ can be created.
 */
int rocx_ib_ceq_create(struct rocx_ib_dev *dev)
{
	struct device *dma_dev = &dev->pdev->dev;
	struct rocx_ib_eq *eq = &dev->ceq;
	size_t size;
	int err;

	eq->dev = dev;
	eq->eqn = ROCX_IB_CEQ_EQN;
	eq->vector = ROCX_IB_CEQ_VECTOR;
	eq->log_depth = rocx_ib_ceq_log_depth(dev->id);
	eq->ci = 0;
	if (le16_to_cpu(dev->id->max_eq) <= eq->eqn)
		return -EOPNOTSUPP;
	eq->irq = rocx_irq_vector(dev->core, eq->vector);
	if (eq->irq < 0)
		return eq->irq;

	size = BIT(eq->log_depth) * sizeof(*eq->ring);
	/* Zeroed: phase 0 everywhere reads as empty on the first pass. */
	eq->ring = dma_alloc_coherent(dma_dev, size, &eq->dma, GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;

	snprintf(eq->name, sizeof(eq->name), "rocx_ib-ceq@%s",
		 pci_name(dev->pdev));
	err = request_irq(eq->irq, rocx_ib_ceq_irq, 0, eq->name, eq);
	if (err)
		goto err_free_ring;

	err = rocx_ib_eq_cmd(dev, ROCX_AQ_OP_CREATE_EQ, eq);
	if (err) {
		dev_err(&dev->adev->dev, "CREATE_EQ %u failed: %d\n",
			eq->eqn, err);
		goto err_free_irq;
	}
	WRITE_ONCE(eq->created, true);
	rocx_kernel_db(dev->core, ROCX_DB_EQ,
		       rocx_db_encode(eq->eqn, 0, ROCX_DB_ARM));
	return 0;

err_free_irq:
	free_irq(eq->irq, eq);
err_free_ring:
	dma_free_coherent(dma_dev, size, eq->ring, eq->dma);
	eq->ring = NULL;
	return err;
}

/**
 * rocx_ib_ceq_destroy() - destroy the completion EQ
 * @dev: device with no CQ left
 *
 * A device that refuses DESTROY_EQ may still write the ring, which is then
 * leaked rather than freed.
 */
void rocx_ib_ceq_destroy(struct rocx_ib_dev *dev)
{
	struct rocx_ib_eq *eq = &dev->ceq;
	size_t size = BIT(eq->log_depth) * sizeof(*eq->ring);
	int err;

	if (!eq->created)
		return;
	/* No handler rings the EQ's doorbell once it is gone. */
	WRITE_ONCE(eq->created, false);
	synchronize_irq(eq->irq);
	err = rocx_ib_eq_cmd(dev, ROCX_AQ_OP_DESTROY_EQ, eq);
	free_irq(eq->irq, eq);
	if (err && err != -ENODEV) {
		dev_err(&dev->adev->dev,
			"DESTROY_EQ %u failed (%d); leaking its ring\n",
			eq->eqn, err);
		return;
	}
	dma_free_coherent(&dev->pdev->dev, size, eq->ring, eq->dma);
	eq->ring = NULL;
}
