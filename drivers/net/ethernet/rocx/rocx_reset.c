// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx function reset: one path for every reason the function has to
 * forget what it holds and come back.
 *
 * Reasons, and what starts the path:
 *
 * - an admin command timed out, or its completion named another command
 *   (rocx_aq.c): its outcome is unknown and the device may still use the
 *   memory it names, so the device is stopped and reset at once, inside
 *   the command and before its caller frees anything
 *   (rocx_reset_fatal()); rocx_reset_work() does the rest;
 * - the device reported FATAL on EQ 0: rocx_reset_work();
 * - a reset of the PCI function from outside (sysfs "reset", a bus reset
 *   by the bridge, a VMM): the PCI core calls reset_prepare() and
 *   reset_done() around it;
 * - an AER error: error_detected(), slot_reset(), resume().
 *
 * Each runs rocx_reset_quiesce() and rocx_reset_restore():
 *
 * quiesce  1. The RDMA driver goes: the auxiliary device is deleted and
 *             rocx_ib unregisters its ib_device.  ib_core disassociates
 *             the user contexts (their last event is IB_EVENT_DEVICE_FATAL,
 *             their doorbell mappings are revoked) and destroys their
 *             objects through the verbs.  On a healthy device the
 *             destroys run; on one already reset they fail with -ENODEV
 *             and only release memory, which is then safe.
 *          2. The netdev is detached and its data path stopped
 *             (rocx_netdev_quiesce(), shared with the offline self-test).
 *          3. EQ 0's work stops.
 *          4. Under the admin lock, so no command is running: bus
 *             mastering off, DEV_CTRL.RESET.  From here the device does no
 *             DMA, no doorbell reaches it and every command fails with
 *             -ENODEV.  (A device not trusted any more gets this first,
 *             before step 1; a frozen one only has its bus mastering
 *             turned off then, through config space: the platform stops
 *             it and resets the slot.)
 *          5. What the device was writing is freed: the Ethernet rings,
 *             EQ 0.
 * restore  Reset again (the bring-up order), bus mastering on, admin
 *          queue, IDENTIFY, EQ 0, the netdev's rings and port if it was up,
 *          and a new auxiliary device, to which rocx_ib binds and registers
 *          a new ib_device.
 *
 * Every step can be taken twice, so the path may be entered again at any
 * point: a second reason while quiesced, a restore that failed (it
 * quiesces again and leaves the function down), remove after that.
 */
#include <kunit/visibility.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "rocx.h"

enum rocx_reset_mode {
	ROCX_RESET_ORDERLY,	/* device healthy: destroy, then reset */
	ROCX_RESET_FATAL,	/* device not trusted: reset, then free */
	ROCX_RESET_FROZEN,	/* no register access; the platform resets */
};

/*
 * Stop the device's DMA and reset it.  aq.lock is held, so no command is
 * in flight and none starts; they all fail with -ENODEV from now on.
 */
static void rocx_reset_hw_locked(struct rocx_core *core)
{
	lockdep_assert_held(&core->aq.lock);
	set_bit(ROCX_ST_RESET, &core->state);
	clear_bit(ROCX_ST_AQ_UP, &core->state);
	WRITE_ONCE(core->aq.irq_mode, false);
	if (rocx_gone(core))
		return;
	/* Bus mastering first: no DMA even if the reset does not finish. */
	pci_clear_master(core->pdev);
	if (rocx_dev_reset(core) && !rocx_gone(core))
		dev_err(rocx_dev(core), "reset failed; bus mastering stays off\n");
}

/**
 * rocx_reset_fatal() - stop a device that cannot be trusted, now
 * @core: device
 * @why: for the log
 *
 * Called with aq.lock held by a command whose outcome is unknown: when
 * this returns the device touches no memory any command gave it, so the
 * command may fail and its caller free what it named.  The reset work
 * then takes the rest of the function down and brings it back.
 */
void rocx_reset_fatal(struct rocx_core *core, const char *why)
{
	if (!rocx_dev_off(core))
		dev_err(rocx_dev(core), "%s: stopping and resetting the device before its commands' memory is released\n",
			why);
	rocx_reset_hw_locked(core);
	rocx_reset_schedule(core, why);
}

/**
 * rocx_reset_schedule() - reset the function from a work item
 * @core: device
 * @why: for the log
 *
 * Safe from any process context, whatever locks the caller holds: the
 * work runs without them.  Nothing happens before probe has finished or
 * once remove has begun (ROCX_ST_LIVE).
 */
void rocx_reset_schedule(struct rocx_core *core, const char *why)
{
	if (!test_bit(ROCX_ST_LIVE, &core->state) ||
	    test_and_set_bit(ROCX_ST_RESET_QUEUED, &core->state))
		return;
	dev_warn(rocx_dev(core), "%s: resetting the function\n", why);
	queue_work(system_long_wq, &core->reset_work);
}

static void rocx_reset_quiesce(struct rocx_core *core,
			       enum rocx_reset_mode mode)
{
	lockdep_assert_held(&core->reset_lock);
	core->quiesced = true;
	if (mode != ROCX_RESET_ORDERLY) {
		mutex_lock(&core->aq.lock);
		if (mode == ROCX_RESET_FATAL) {
			rocx_reset_hw_locked(core);
		} else {
			/*
			 * No register access, but bus mastering goes off
			 * through config space: what follows frees memory
			 * the device was given, and a function the error
			 * did not stop (or a platform that does not block
			 * its DMA) would write it.  A frozen link drops the
			 * write, and then the platform stops the DMA.
			 */
			pci_clear_master(core->pdev);
			set_bit(ROCX_ST_RESET, &core->state);
			clear_bit(ROCX_ST_AQ_UP, &core->state);
		}
		mutex_unlock(&core->aq.lock);
	}
	/* rocx_ib's remove; its destroys run or fail fast with -ENODEV. */
	rocx_aux_destroy(core);
	rocx_netdev_reset_quiesce(core);
	rocx_eq_quiesce(core);
	if (mode == ROCX_RESET_ORDERLY) {
		mutex_lock(&core->aq.lock);
		rocx_reset_hw_locked(core);
		mutex_unlock(&core->aq.lock);
	}
	rocx_netdev_reset_forget(core);
	rocx_eq_forget(core);
}

/*
 * IDENTIFY again: the copy rocx_ib will see comes from this device.  The
 * netdev stays registered across the reset, and dcbnl, ethtool and its
 * ops read the block under rtnl (rocx_caps2()): it is replaced under
 * rtnl too, and the old one freed after.
 */
VISIBLE_IF_KUNIT int rocx_reset_identify(struct rocx_core *core)
{
	struct rocx_identify *old = core->ident, *id;
	int err;

	err = rocx_aq_identify(core, &id);
	if (err)
		return err;
	if (memcmp(old, id, sizeof(*old)))
		dev_info(rocx_dev(core), "IDENTIFY changed across the reset\n");
	rtnl_lock();
	core->ident = id;
	rtnl_unlock();
	kfree(old);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_reset_identify);

/* Bring a quiesced function up again; on failure it stays quiesced. */
static int rocx_reset_restore(struct rocx_core *core)
{
	struct device *dev = rocx_dev(core);
	int err;

	lockdep_assert_held(&core->reset_lock);
	/* This reset does what any queued one would. */
	clear_bit(ROCX_ST_RESET_QUEUED, &core->state);
	if (rocx_gone(core))
		return -ENODEV;
	err = rocx_dev_reset(core);
	if (err)
		goto fail;
	pci_set_master(core->pdev);
	err = rocx_aq_restart(core);
	if (err)
		goto fail;
	err = rocx_reset_identify(core);
	if (err)
		goto fail;
	err = rocx_eq_create(core);
	if (err)
		goto fail;
	rocx_netdev_reset_restore(core);
	err = rocx_aux_create(core);
	if (err)
		dev_err(dev, "auxiliary device for RDMA after the reset: %d\n",
			err);
	core->quiesced = false;
	atomic64_inc(&core->resets);
	dev_info(dev, "function reset done\n");
	return 0;

fail:
	dev_err(dev, "the function did not come back after its reset (%d); it stays down until it is reset again\n",
		err);
	rocx_reset_quiesce(core, ROCX_RESET_FATAL);
	return err;
}

static void rocx_reset_work(struct work_struct *work)
{
	struct rocx_core *core = container_of(work, struct rocx_core,
					      reset_work);

	mutex_lock(&core->reset_lock);
	/*
	 * Not if remove has begun, nor while a reset from outside holds the
	 * function quiesced (its restore does this one's job), nor after a
	 * restore that failed: that waits for a reset from outside.
	 */
	if (test_and_clear_bit(ROCX_ST_RESET_QUEUED, &core->state) &&
	    test_bit(ROCX_ST_LIVE, &core->state) && !core->quiesced) {
		rocx_reset_quiesce(core, ROCX_RESET_FATAL);
		rocx_reset_restore(core);
	}
	mutex_unlock(&core->reset_lock);
}

/**
 * rocx_reset_init() - prepare the reset path at probe
 * @core: device
 */
void rocx_reset_init(struct rocx_core *core)
{
	mutex_init(&core->reset_lock);
	INIT_WORK(&core->reset_work, rocx_reset_work);
}

/**
 * rocx_reset_cancel() - no more resets: remove or shutdown has begun
 * @core: device
 *
 * Waits for a reset in progress.  Must not be called with reset_lock.
 */
void rocx_reset_cancel(struct rocx_core *core)
{
	clear_bit(ROCX_ST_LIVE, &core->state);
	cancel_work_sync(&core->reset_work);
	clear_bit(ROCX_ST_RESET_QUEUED, &core->state);
}

/* ---- PCI: resets and errors the PCI core tells us about ---- */

/*
 * Called with the device lock held, so not during probe or remove.  The
 * function is quiesced and reset here, as a healthy device can destroy
 * its objects first; reset_done() restores it after the PCI core's reset.
 */
static void rocx_pci_reset_prepare(struct pci_dev *pdev)
{
	struct rocx_core *core = pci_get_drvdata(pdev);

	/* A reset the work was about to do is this one. */
	cancel_work_sync(&core->reset_work);
	mutex_lock(&core->reset_lock);
	dev_info(rocx_dev(core), "PCI reset of the function: stopping it\n");
	rocx_reset_quiesce(core, ROCX_RESET_ORDERLY);
	mutex_unlock(&core->reset_lock);
}

static void rocx_pci_reset_done(struct pci_dev *pdev)
{
	struct rocx_core *core = pci_get_drvdata(pdev);

	mutex_lock(&core->reset_lock);
	rocx_reset_restore(core);
	mutex_unlock(&core->reset_lock);
}

static pci_ers_result_t rocx_pci_error_detected(struct pci_dev *pdev,
						pci_channel_state_t state)
{
	struct rocx_core *core = pci_get_drvdata(pdev);

	dev_err(rocx_dev(core), "PCI error (channel state %d)\n", state);
	if (state == pci_channel_io_perm_failure) {
		/* Remove follows; it must not wait for the device. */
		rocx_set_gone(core);
		return PCI_ERS_RESULT_DISCONNECT;
	}
	cancel_work_sync(&core->reset_work);
	mutex_lock(&core->reset_lock);
	rocx_reset_quiesce(core, state == pci_channel_io_frozen ?
			   ROCX_RESET_FROZEN : ROCX_RESET_FATAL);
	mutex_unlock(&core->reset_lock);
	return PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t rocx_pci_slot_reset(struct pci_dev *pdev)
{
	struct rocx_core *core = pci_get_drvdata(pdev);

	pci_restore_state(pdev);
	pci_save_state(pdev);
	if (readl(core->regs + ROCX_REG_ID) != ROCX_ID_MAGIC) {
		dev_err(rocx_dev(core), "device did not come back from the slot reset\n");
		return PCI_ERS_RESULT_DISCONNECT;
	}
	return PCI_ERS_RESULT_RECOVERED;
}

static void rocx_pci_resume(struct pci_dev *pdev)
{
	struct rocx_core *core = pci_get_drvdata(pdev);

	mutex_lock(&core->reset_lock);
	rocx_reset_restore(core);
	mutex_unlock(&core->reset_lock);
}

const struct pci_error_handlers rocx_err_handlers = {
	.error_detected	= rocx_pci_error_detected,
	.slot_reset	= rocx_pci_slot_reset,
	.resume		= rocx_pci_resume,
	.reset_prepare	= rocx_pci_reset_prepare,
	.reset_done	= rocx_pci_reset_done,
};
EXPORT_SYMBOL_IF_KUNIT(rocx_err_handlers);
