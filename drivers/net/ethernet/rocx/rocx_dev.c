// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx register access, identification, reset and the self-tests, which
 * probe runs and `ethtool -t` runs again (rocx_ethtool.c).
 */
#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "rocx.h"

/* The device resets within 100 ms; the slack covers slow emulation. */
#define ROCX_RESET_TIMEOUT_MS	1000
#define ROCX_RESET_POLL_US	1000
#define ROCX_TEST_IRQ_TIMEOUT	msecs_to_jiffies(1000)
#define ROCX_TEST_DMA_TIMEOUT_US	(1000 * USEC_PER_MSEC)
#define ROCX_TEST_DMA_LEN	ROCX_TEST_DMA_MAX

/**
 * rocx_set_gone() - the device stopped answering: stop touching it
 * @core: device
 *
 * Reported once.  Admin waiters are woken so that they fail with -ENODEV
 * instead of running into their timeout.
 */
void rocx_set_gone(struct rocx_core *core)
{
	if (test_and_set_bit(ROCX_ST_GONE, &core->state))
		return;
	dev_err(rocx_dev(core), "device gone (registers read all-ones); no longer accessing it\n");
	complete(&core->aq.done);
}

/**
 * rocx_rd32() - read a BAR0 register
 * @core: device
 * @reg: register offset
 *
 * A read of all-ones is confirmed on the ID register, which never reads
 * all-ones from a live device; if that too reads all-ones the device is
 * gone (surprise removal, dead link) and is not touched again.
 *
 * Return: the value, all-ones once the device is gone.
 */
u32 rocx_rd32(struct rocx_core *core, u32 reg)
{
	u32 val;

	if (rocx_gone(core))
		return ~0U;
	val = readl(core->regs + reg);
	if (unlikely(val == ~0U) && readl(core->regs + ROCX_REG_ID) == ~0U)
		rocx_set_gone(core);
	return val;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_rd32);

/**
 * rocx_wr32() - write a BAR0 register unless the device is gone
 * @core: device
 * @reg: register offset
 * @val: value
 */
void rocx_wr32(struct rocx_core *core, u32 reg, u32 val)
{
	if (!rocx_gone(core))
		writel(val, core->regs + reg);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_wr32);

/**
 * rocx_db_ring() - ring a doorbell of page 0
 * @core: device
 * @offset: ROCX_DB_* offset in the page
 * @val: value, see rocx_db_encode()
 *
 * writeq() orders the preceding writes to coherent memory (descriptors)
 * before the doorbell, so callers need no extra barrier.  Nothing is
 * written to a device that is gone or was reset: the queue the doorbell
 * names no longer exists there (rocx_dev_off()).
 */
void rocx_db_ring(struct rocx_core *core, u32 offset, u64 val)
{
	if (!rocx_dev_off(core))
		writeq(val, core->db + offset);
}

/**
 * rocx_intr_mask() - mask or unmask a vector in INTR_CTRL
 * @core: device
 * @vector: MSI-X vector
 * @mask: true to latch instead of signal
 *
 * Unmasking a vector with PENDING set makes the device signal it once, so
 * nothing raised while masked is lost.
 */
void rocx_intr_mask(struct rocx_core *core, unsigned int vector, bool mask)
{
	rocx_wr32(core, ROCX_REG_INTR_CTRL(vector), mask ? ROCX_INTR_MASK : 0);
}

/**
 * rocx_dev_check_id() - refuse anything that is not a rocx we understand
 * @core: device
 *
 * Return: 0, or -ENODEV with the reason logged.
 */
int rocx_dev_check_id(struct rocx_core *core)
{
	u32 id, major;

	id = readl(core->regs + ROCX_REG_ID);
	if (id != ROCX_ID_MAGIC) {
		dev_err(rocx_dev(core), "ID register reads %#010x, not %#010x%s: not a rocx device, refusing it\n",
			id, ROCX_ID_MAGIC,
			id == ~0U ? " (device not responding)" : "");
		return -ENODEV;
	}
	core->version = readl(core->regs + ROCX_REG_VERSION);
	major = ROCX_FIELD_GET(ROCX_VERSION_MAJOR_MASK, core->version);
	if (major != ROCX_VERSION_MAJOR) {
		dev_err(rocx_dev(core), "device contract version %u.%u, this driver knows major %u only: refusing it\n",
			major,
			ROCX_FIELD_GET(ROCX_VERSION_MINOR_MASK, core->version),
			ROCX_VERSION_MAJOR);
		return -ENODEV;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dev_check_id);

/**
 * rocx_dev_reset() - reset the device and wait until it is ready
 * @core: device
 *
 * Afterwards the device does no DMA until it is configured again.
 *
 * Return: 0, -ENODEV if the device is gone, -ETIMEDOUT.
 */
int rocx_dev_reset(struct rocx_core *core)
{
	ktime_t deadline;
	u32 ctrl, status;

	if (rocx_gone(core))
		return -ENODEV;
	writel(ROCX_DEV_CTRL_RESET, core->regs + ROCX_REG_DEV_CTRL);
	deadline = ktime_add_ms(ktime_get(), ROCX_RESET_TIMEOUT_MS);
	for (;;) {
		ctrl = readl(core->regs + ROCX_REG_DEV_CTRL);
		status = readl(core->regs + ROCX_REG_DEV_STATUS);
		if (ctrl == ~0U && status == ~0U) {
			rocx_set_gone(core);
			return -ENODEV;
		}
		if (!ctrl && (status & ROCX_DEV_STATUS_READY))
			break;
		if (ktime_after(ktime_get(), deadline)) {
			dev_err(rocx_dev(core), "reset did not finish in %u ms: DEV_CTRL %#x DEV_STATUS %#x\n",
				ROCX_RESET_TIMEOUT_MS, ctrl, status);
			return -ETIMEDOUT;
		}
		usleep_range(ROCX_RESET_POLL_US, 2 * ROCX_RESET_POLL_US);
	}
	if (status & ROCX_DEV_STATUS_FATAL)
		dev_warn(rocx_dev(core), "device reports FATAL after reset\n");
	return 0;
}

/**
 * rocx_selftest_regs() - self-test 1: SCRATCH patterns
 * @core: device
 *
 * The patterns catch stuck, swapped and shorted bits.  SCRATCH is used by
 * nothing else, so this runs on a live device too.
 *
 * Return: 0, -ENODEV once the device is gone, -EIO.
 */
int rocx_selftest_regs(struct rocx_core *core)
{
	static const u32 patterns[] = {
		0x00000000, 0x5a5aa5a5, 0xa5a55a5a, 0x12345678,
		0x80000001, 0x7ffffffe, 0xfffffffe, 0x00000001,
	};
	unsigned int i;
	u32 val;

	if (rocx_gone(core))
		return -ENODEV;
	for (i = 0; i < ARRAY_SIZE(patterns); i++) {
		writel(patterns[i], core->regs + ROCX_REG_SCRATCH);
		val = readl(core->regs + ROCX_REG_SCRATCH);
		if (val != patterns[i]) {
			dev_err(rocx_dev(core), "self-test: SCRATCH wrote %#010x, read %#010x\n",
				patterns[i], val);
			return -EIO;
		}
	}
	writel(0, core->regs + ROCX_REG_SCRATCH);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_selftest_regs);

static irqreturn_t rocx_test_irq_handler(int irq, void *data)
{
	struct rocx_core *core = data;

	complete(&core->test_irq);
	return IRQ_HANDLED;
}

/**
 * rocx_selftest_vector() - self-test 2 for one vector: raise it, await it
 * @core: device
 * @v: MSI-X vector
 * @temp: @v has no handler: install a temporary one for the test.
 *	Otherwise the installed handler must be rocx_core's (vector 0's or
 *	1's), which reports the interrupt through rocx_test_irq_seen().
 *
 * TEST_IRQ raises @v even while INTR_CTRL masks it.  Any interrupt on @v
 * between raising and the end of the wait counts: it proves delivery just
 * as well.
 *
 * Return: 0, -ENODEV once the device is gone, -EIO when nothing arrived
 * within a second, or request_irq()'s error.
 */
int rocx_selftest_vector(struct rocx_core *core, unsigned int v, bool temp)
{
	int irq, err = 0;

	if (rocx_gone(core))
		return -ENODEV;
	irq = pci_irq_vector(core->pdev, v);
	if (irq < 0)
		return irq;
	reinit_completion(&core->test_irq);
	if (temp) {
		err = request_irq(irq, rocx_test_irq_handler, 0,
				  ROCX_DRV_NAME "-selftest", core);
		if (err)
			return err;
	}
	WRITE_ONCE(core->test_irq_vec, v);
	writel(v, core->regs + ROCX_REG_TEST_IRQ);
	if (!wait_for_completion_timeout(&core->test_irq,
					 ROCX_TEST_IRQ_TIMEOUT)) {
		dev_err(rocx_dev(core), "self-test: MSI-X vector %u (irq %d) raised through TEST_IRQ never arrived\n",
			v, irq);
		err = -EIO;
	}
	WRITE_ONCE(core->test_irq_vec, ROCX_TEST_IRQ_NONE);
	if (temp)
		free_irq(irq, core);
	return err;
}

/*
 * Self-test 2 at probe: every allocated vector reaches the CPU.  Runs
 * before the real handlers are installed, each vector under a temporary
 * handler.
 */
static int rocx_selftest_irq(struct rocx_core *core)
{
	unsigned int v;
	int err;

	for (v = 0; v < core->num_vectors; v++) {
		err = rocx_selftest_vector(core, v, true);
		if (err)
			return err;
	}
	return 0;
}

/**
 * rocx_selftest_dma() - self-test 3: the device inverts a buffer by DMA
 * @core: device
 * @may_reset: a device that does not finish may be reset (probe); on a
 *	live device, whose queues a reset would destroy, the buffer is then
 *	leaked instead
 *
 * The test DMA engine is separate from the queues, so this runs on a live
 * device too.
 *
 * Return: 0, -ENODEV once the device is gone, -ENOMEM, -EIO.
 */
int rocx_selftest_dma(struct rocx_core *core, bool may_reset)
{
	struct device *dev = rocx_dev(core);
	dma_addr_t dma;
	u32 status = 0;
	unsigned int i;
	u8 *buf;
	int err;

	if (rocx_gone(core))
		return -ENODEV;
	buf = dma_alloc_coherent(dev, ROCX_TEST_DMA_LEN, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < ROCX_TEST_DMA_LEN; i++)
		buf[i] = (u8)(i * 7 + 3);

	writel(lower_32_bits(dma), core->regs + ROCX_REG_TEST_DMA_ADDR_LO);
	writel(upper_32_bits(dma), core->regs + ROCX_REG_TEST_DMA_ADDR_HI);
	writel(ROCX_TEST_DMA_LEN, core->regs + ROCX_REG_TEST_DMA_LEN);
	writel(ROCX_TEST_DMA_START, core->regs + ROCX_REG_TEST_DMA_CTRL);
	err = readl_poll_timeout(core->regs + ROCX_REG_TEST_DMA_STATUS, status,
				 status == ROCX_TEST_DMA_DONE ||
				 status == ROCX_TEST_DMA_ERROR || status == ~0U,
				 100, ROCX_TEST_DMA_TIMEOUT_US);
	if (err || status != ROCX_TEST_DMA_DONE) {
		dev_err(dev, "self-test: DMA of %u bytes at %pad %s (TEST_DMA_STATUS %#x)\n",
			ROCX_TEST_DMA_LEN, &dma,
			err ? "timed out" : "failed", status);
		err = -EIO;
		goto out;
	}
	/* Device wrote the buffer, then status: read the data after. */
	dma_rmb();
	for (i = 0; i < ROCX_TEST_DMA_LEN; i++) {
		u8 want = (u8)~(u8)(i * 7 + 3);

		if (buf[i] != want) {
			dev_err(dev, "self-test: DMA byte %u is %#04x, expected %#04x\n",
				i, buf[i], want);
			err = -EIO;
			goto out;
		}
	}
out:
	/* The device stops touching the buffer once it reports DONE/ERROR;
	 * after a timeout only a reset stops it.
	 */
	if (err && status != ROCX_TEST_DMA_DONE &&
	    status != ROCX_TEST_DMA_ERROR &&
	    (!may_reset || rocx_dev_reset(core))) {
		dev_err(dev, "self-test: leaking the DMA buffer of a device that may still write it\n");
		return err;
	}
	dma_free_coherent(dev, ROCX_TEST_DMA_LEN, buf, dma);
	return err;
}

/**
 * rocx_dev_selftest() - run the register, interrupt and DMA self-tests
 * @core: device, reset, with its MSI-X vectors allocated and no handlers
 *
 * Return: 0 when all passed (or the device has none), else an errno.
 */
int rocx_dev_selftest(struct rocx_core *core)
{
	int err;

	if (!(core->caps & ROCX_CAP_SELFTEST)) {
		dev_info(rocx_dev(core), "device has no self-test (CAPS %#x); skipped\n",
			 core->caps);
		return 0;
	}
	err = rocx_selftest_regs(core);
	if (!err)
		err = rocx_selftest_irq(core);
	if (!err)
		err = rocx_selftest_dma(core, true);
	if (err) {
		dev_err(rocx_dev(core), "self-test failed (%d): refusing the device\n",
			err);
		return err;
	}
	dev_info(rocx_dev(core), "self-test passed: registers, %u MSI-X vectors, DMA\n",
		 core->num_vectors);
	return 0;
}
