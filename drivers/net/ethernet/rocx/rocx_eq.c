// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx EQ 0: asynchronous events, and the vector 0 interrupt it shares with
 * the admin queue.
 *
 * The handler only wakes the admin waiter and queues a work item; events
 * are handled in process context because link changes take rtnl and the
 * RDMA driver's callback may sleep.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/log2.h>

#include "rocx.h"
#include "rocx_ring.h"

static const char * const rocx_gerr_names[] = {
	[ROCX_GERR_NONE] = "none",
	[ROCX_GERR_REG_UNKNOWN] = "undefined register",
	[ROCX_GERR_REG_READONLY] = "write to read-only register",
	[ROCX_GERR_ACCESS_SIZE] = "wrong access width",
	[ROCX_GERR_REG_VALUE] = "register value out of range",
	[ROCX_GERR_DB_OFFSET] = "undefined doorbell offset",
	[ROCX_GERR_DB_OWNER] = "doorbell for a queue of another owner",
	[ROCX_GERR_DB_QUEUE] = "doorbell for no such queue",
	[ROCX_GERR_DB_INDEX] = "doorbell index beyond the ring",
	[ROCX_GERR_DMA] = "DMA to an invalid address",
	[ROCX_GERR_DESC] = "malformed descriptor",
	[ROCX_GERR_AQ_CONFIG] = "admin queue misconfigured",
	[ROCX_GERR_AQ_INDEX] = "admin producer beyond the ring",
	[ROCX_GERR_EQ_OVERFLOW] = "event queue overflow",
	[ROCX_GERR_VECTOR] = "vector out of range",
};

static const char *rocx_gerr_name(u32 code)
{
	if (code < ARRAY_SIZE(rocx_gerr_names) && rocx_gerr_names[code])
		return rocx_gerr_names[code];
	return "unknown";
}

irqreturn_t rocx_admin_irq_handler(int irq, void *data)
{
	struct rocx_core *core = data;

	/*
	 * A self-test may raise vector 0 at any time: the admin waiter and
	 * the EQ work both decide by phase bits, so a spurious interrupt
	 * costs them a look and nothing else.
	 */
	rocx_test_irq_seen(core, ROCX_VEC_ADMIN);
	rocx_aq_irq(core);
	if (READ_ONCE(core->eq.created))
		queue_work(system_wq, &core->eq.work);
	return IRQ_HANDLED;
}

/*
 * The device lost @n events for EQ @eqn (EQ_OVERFLOW).  Whatever they
 * said, the link state is the part rocx_core keeps: read it again.
 * rocx_ib hears of the loss too and re-reads its own state.
 */
static void rocx_eq_lost(struct rocx_core *core, u32 eqn, u64 n)
{
	atomic64_add(n, &core->eq.lost);
	dev_warn_ratelimited(rocx_dev(core), "EQ %u lost %llu events; reading the link state again\n",
			     eqn, n);
	rocx_netdev_link_change(core, rocx_rd32(core, ROCX_REG_LINK_STATUS));
}

static void rocx_eq_handle(struct rocx_core *core, const struct rocx_eqe *eqe)
{
	u32 data = le32_to_cpu(eqe->data);

	switch (le16_to_cpu(eqe->type)) {
	case ROCX_EQE_LINK_CHANGE:
		rocx_netdev_link_change(core, data);
		break;
	case ROCX_EQE_GUEST_ERROR:
		dev_warn_ratelimited(rocx_dev(core), "device reports a driver error: %s (code %lu, info %#lx)\n",
				     rocx_gerr_name(ROCX_FIELD_GET(ROCX_LAST_ERR_CODE_MASK, data)),
				     (unsigned long)ROCX_FIELD_GET(ROCX_LAST_ERR_CODE_MASK, data),
				     (unsigned long)ROCX_FIELD_GET(ROCX_LAST_ERR_INFO_MASK, data));
		break;
	case ROCX_EQE_FATAL:
		dev_err(rocx_dev(core), "device reports a fatal error (info %#llx)\n",
			le64_to_cpu(eqe->info));
		rocx_reset_schedule(core, "the device reported a fatal error");
		break;
	case ROCX_EQE_COMPLETION:
	case ROCX_EQE_QP_ERROR:
	case ROCX_EQE_CQ_ERROR:
		break;
	case ROCX_EQE_SRQ_LIMIT:
	case ROCX_EQE_QP_LAST_WQE:
	case ROCX_EQE_SRQ_ERROR:
		/* rocx_ib's, from a device with SRQs only. */
		if (!(rocx_caps2(core) & ROCX_CAP2_SRQ)) {
			dev_warn_ratelimited(rocx_dev(core), "unknown event type %u on EQ 0\n",
					     le16_to_cpu(eqe->type));
			return;
		}
		break;
	case ROCX_EQE_EQ_OVERFLOW:
		if (rocx_caps2(core) & ROCX_CAP2_EQ_OVERFLOW_EVENT) {
			rocx_eq_lost(core, data, le64_to_cpu(eqe->info));
			break;
		}
		fallthrough;	/* not a type a 1.1 device sends */
	default:
		dev_warn_ratelimited(rocx_dev(core), "unknown event type %u on EQ 0\n",
				     le16_to_cpu(eqe->type));
		return;
	}
	rocx_events_dispatch(core, eqe);
}

/**
 * rocx_eq0_log_depth() - size of EQ 0 for a device
 * @id: its identify block
 *
 * The device holds back at most one QP_ERROR per QP, one CQ_ERROR per CQ
 * (SRQ events alike) and ROCX_EQ0_PORT_EVENTS port and device events
 * (rocx-device.rst, "Event queues"): an EQ 0 of that many entries is
 * never full while its work item keeps up.
 *
 * Return: log2 of the depth, within the contract's limits.
 */
VISIBLE_IF_KUNIT u8 rocx_eq0_log_depth(const struct rocx_identify *id)
{
	u64 n = (u64)le32_to_cpu(id->max_qp) + le32_to_cpu(id->max_cq) +
		le32_to_cpu(id->max_srq) + ROCX_EQ0_PORT_EVENTS;

	if (n >= BIT_ULL(ROCX_EQ_MAX_LOG_DEPTH))
		return ROCX_EQ_MAX_LOG_DEPTH;
	return max_t(u8, order_base_2(n), ROCX_EQ_MIN_LOG_DEPTH);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_eq0_log_depth);

static bool rocx_eqe_ready(struct rocx_eq *eq)
{
	struct rocx_eqe *eqe = &eq->ring[rocx_ring_slot(eq->ci, 1U << eq->log_depth)];

	return (READ_ONCE(eqe->flags) & ROCX_EQE_PHASE) ==
	       rocx_ring_phase(eq->ci, eq->log_depth);
}

/*
 * Handle the entries the device has written.  While the EQ exists (@live)
 * they are returned through the doorbell as we go, so that a burst cannot
 * overflow it; once it is destroyed no doorbell may name it, and at most
 * one ring's worth can be there.  Return how many were handled.
 */
static u32 rocx_eq_poll(struct rocx_core *core, bool live)
{
	struct rocx_eq *eq = &core->eq;
	u32 depth = 1U << eq->log_depth;
	struct rocx_eqe eqe;
	u32 done = 0;

	while (rocx_eqe_ready(eq) && !rocx_gone(core)) {
		if (!live && done == depth)
			break;
		/* The phase bit is written last: read the entry after it. */
		dma_rmb();
		eqe = eq->ring[rocx_ring_slot(eq->ci, depth)];
		rocx_eq_handle(core, &eqe);
		eq->ci++;
		if (++done % (depth / 2) == 0 && live)
			rocx_db_ring(core, ROCX_DB_EQ,
				     rocx_db_encode(0, eq->ci, 0));
	}
	return done;
}

static void rocx_eq_work(struct work_struct *work)
{
	struct rocx_eq *eq = container_of(work, struct rocx_eq, work);
	struct rocx_core *core = container_of(eq, struct rocx_core, eq);

	/*
	 * Vector 0 also signals admin completions: with no new event the EQ
	 * has not fired and is still armed.
	 */
	if (!rocx_eq_poll(core, true))
		return;
	rocx_db_ring(core, ROCX_DB_EQ, rocx_db_encode(0, eq->ci, ROCX_DB_ARM));
	/* An event written before the arm took effect signals nothing. */
	if (rocx_eqe_ready(eq) && READ_ONCE(eq->created))
		queue_work(system_wq, &eq->work);
}

/**
 * rocx_eq_create() - create EQ 0 on vector 0 and arm it
 * @core: device with a working admin queue and vector 0 handler
 *
 * Return: 0 or an errno.
 */
int rocx_eq_create(struct rocx_core *core)
{
	struct rocx_eq *eq = &core->eq;
	struct device *dev = rocx_dev(core);
	size_t size;
	int err;

	eq->log_depth = rocx_eq0_log_depth(core->ident);
	size = (1U << eq->log_depth) * sizeof(*eq->ring);
	eq->ring = dma_alloc_coherent(dev, size, &eq->dma, GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;
	eq->ci = 0;
	INIT_WORK(&eq->work, rocx_eq_work);

	err = rocx_aq_create_eq(core, 0, eq->dma, eq->log_depth,
				ROCX_VEC_ADMIN);
	if (err) {
		dev_err(dev, "CREATE_EQ 0 failed: %d\n", err);
		dma_free_coherent(dev, size, eq->ring, eq->dma);
		eq->ring = NULL;
		return err;
	}
	WRITE_ONCE(eq->created, true);
	rocx_db_ring(core, ROCX_DB_EQ, rocx_db_encode(0, 0, ROCX_DB_ARM));
	return 0;
}

/**
 * rocx_eq_destroy() - destroy EQ 0, handling every event it received
 * @core: device
 *
 * The work item runs only while the device holds the EQ (it rings the EQ's
 * doorbell, which names a queue that must exist): it is stopped first,
 * then DESTROY_EQ is sent, and the entries written until the device let
 * go are handled here without a doorbell.  If the device refuses
 * DESTROY_EQ it may still write the ring, so the ring is then leaked
 * rather than freed.
 */
void rocx_eq_destroy(struct rocx_core *core)
{
	struct rocx_eq *eq = &core->eq;
	int err;

	if (!eq->created)
		return;
	rocx_eq_quiesce(core);
	err = rocx_aq_destroy_eq(core, 0);
	/* -ENODEV: gone or reset, the device has let go of it anyway. */
	if (err && err != -ENODEV) {
		dev_err(rocx_dev(core), "DESTROY_EQ 0 failed (%d); leaking its ring\n",
			err);
		eq->ring = NULL;
		return;
	}
	rocx_eq_poll(core, false);
	rocx_eq_forget(core);
}

/**
 * rocx_eq_quiesce() - stop handling EQ 0, leaving it in the device
 * @core: device
 *
 * For a destroy, or for a reset that is about to make the device forget
 * the EQ.  Entries not handled yet stay in the ring.
 */
void rocx_eq_quiesce(struct rocx_core *core)
{
	struct rocx_eq *eq = &core->eq;

	if (!eq->created)
		return;
	WRITE_ONCE(eq->created, false);
	/* After this no handler can queue the work again... */
	synchronize_irq(pci_irq_vector(core->pdev, ROCX_VEC_ADMIN));
	/* ...and the work, requeueing itself or not, is idle. */
	cancel_work_sync(&eq->work);
}

/**
 * rocx_eq_forget() - free EQ 0's ring once the device no longer has it
 * @core: device that destroyed EQ 0, was reset or is gone; EQ 0 quiesced
 */
void rocx_eq_forget(struct rocx_core *core)
{
	struct rocx_eq *eq = &core->eq;

	if (!eq->ring)
		return;
	dma_free_coherent(rocx_dev(core), (1U << eq->log_depth) * sizeof(*eq->ring),
			  eq->ring, eq->dma);
	eq->ring = NULL;
}
