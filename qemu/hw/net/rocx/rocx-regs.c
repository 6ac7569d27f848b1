/*
 * rocx device model: the register file (BAR0), doorbell decoding (BAR2)
 * and the self-test.
 *
 * Registers are one table indexed by offset: each entry has the
 * register's name, whether it can be read and written, and its handlers.
 * Most handlers are here; those of a block's own registers live with the
 * block (AQ_*: rocx-aq.c, INTR_CTRL: rocx-core.c).  A doorbell write is
 * decoded here (page, offset, queue, index, ownership) and handed to the
 * queue's owner.  The self-test registers (TEST_IRQ, TEST_DMA_*) and the
 * self-test DMA, which the driver runs at probe, are here too.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- Registers (BAR0) ---- */

enum {
    ROCX_REG_F_R = 1,
    ROCX_REG_F_W = 2,
    ROCX_REG_F_RW = ROCX_REG_F_R | ROCX_REG_F_W,
};

typedef struct RocxRegInfo {
    const char *name;
    uint8_t flags;
    uint32_t (*read)(RocxCore *c, unsigned off);
    void (*write)(RocxCore *c, unsigned off, uint32_t val);
} RocxRegInfo;

uint32_t rocx_rd_ident(RocxCore *c, unsigned off)
{
    switch (off) {
    case ROCX_REG_ID:
        return ROCX_ID_MAGIC;
    case ROCX_REG_VERSION:
        return ROCX_FIELD_PREP(ROCX_VERSION_MAJOR_MASK, ROCX_VERSION_MAJOR) |
               ROCX_FIELD_PREP(ROCX_VERSION_MINOR_MASK, ROCX_VERSION_MINOR);
    case ROCX_REG_CAPS:
        return ROCX_CORE_CAPS;
    case ROCX_REG_FW_VERSION:
        return ROCX_CORE_FW_VERSION;
    case ROCX_REG_NUM_VECTORS:
        return ROCX_MSIX_VECTORS;
    case ROCX_REG_DB_PAGES:
        return ROCX_DB_PAGES;
    case ROCX_REG_MAC_LO:
        return ldl_le_p(c->perm_mac);
    case ROCX_REG_MAC_HI:
        return lduw_le_p(c->perm_mac + 4);
    }
    return 0;
}

static uint32_t rocx_rd_status(RocxCore *c, unsigned off)
{
    switch (off) {
    case ROCX_REG_DEV_CTRL:
        return 0;   /* reset completes within the write */
    case ROCX_REG_DEV_STATUS:
        return ROCX_DEV_STATUS_READY;
    case ROCX_REG_GUEST_ERR_COUNT:
        return c->regs.guest_err_count;
    case ROCX_REG_LAST_GUEST_ERR:
        return c->regs.last_guest_err;
    case ROCX_REG_LINK_STATUS:
        return rocx_core_link_status(c);
    case ROCX_REG_LINK_SPEED:
        return c->speed_mbps;
    }
    return 0;
}

static uint32_t *rocx_reg_ptr(RocxCore *c, unsigned off)
{
    switch (off) {
    case ROCX_REG_SCRATCH:
        return &c->regs.scratch;
    case ROCX_REG_TEST_DMA_ADDR_LO:
        return &c->regs.test_dma_addr_lo;
    case ROCX_REG_TEST_DMA_ADDR_HI:
        return &c->regs.test_dma_addr_hi;
    case ROCX_REG_TEST_DMA_LEN:
        return &c->regs.test_dma_len;
    case ROCX_REG_TEST_DMA_STATUS:
        return &c->regs.test_dma_status;
    case ROCX_REG_AQ_SQ_BASE_LO:
        return &c->regs.aq_sq_base_lo;
    case ROCX_REG_AQ_SQ_BASE_HI:
        return &c->regs.aq_sq_base_hi;
    case ROCX_REG_AQ_CQ_BASE_LO:
        return &c->regs.aq_cq_base_lo;
    case ROCX_REG_AQ_CQ_BASE_HI:
        return &c->regs.aq_cq_base_hi;
    case ROCX_REG_AQ_CTRL:
        return &c->regs.aq_ctrl;
    }
    return NULL;
}

/* Plain storage registers. */
static uint32_t rocx_rd_plain(RocxCore *c, unsigned off)
{
    uint32_t *p = rocx_reg_ptr(c, off);

    return p ? *p : 0;
}

static void rocx_wr_plain(RocxCore *c, unsigned off, uint32_t val)
{
    uint32_t *p = rocx_reg_ptr(c, off);

    if (p) {
        *p = val;
    }
}

static void rocx_wr_dev_ctrl(RocxCore *c, unsigned off, uint32_t val)
{
    if (val & ~ROCX_DEV_CTRL_RESET) {
        rocx_gerr(c, ROCX_GERR_REG_VALUE, off,
                  "DEV_CTRL: reserved bits in 0x%" PRIx32, val);
        return;
    }
    if (val & ROCX_DEV_CTRL_RESET) {
        rocx_reset_state(c);
    }
}

static void rocx_wr_test_irq(RocxCore *c, unsigned off, uint32_t val)
{
    if (val >= ROCX_MSIX_VECTORS) {
        rocx_gerr(c, ROCX_GERR_VECTOR, off,
                  "TEST_IRQ: vector %" PRIu32 " out of range", val);
        return;
    }
    /* The self-test checks delivery itself, so INTR_CTRL.MASK is ignored. */
    rocx_count(c, ROCX_STAT_INTERRUPTS, 1);
    c->ops->raise_irq(c->opaque, val);
}

static void rocx_wr_test_dma_len(RocxCore *c, unsigned off, uint32_t val)
{
    if (val < 1 || val > ROCX_TEST_DMA_MAX) {
        rocx_gerr(c, ROCX_GERR_REG_VALUE, off,
                  "TEST_DMA_LEN: %" PRIu32 " not in 1..%u", val,
                  ROCX_TEST_DMA_MAX);
        return;
    }
    c->regs.test_dma_len = val;
}

static void rocx_wr_test_dma_ctrl(RocxCore *c, unsigned off, uint32_t val)
{
    if (val & ~ROCX_TEST_DMA_START) {
        rocx_gerr(c, ROCX_GERR_REG_VALUE, off,
                  "TEST_DMA_CTRL: reserved bits in 0x%" PRIx32, val);
        return;
    }
    if (!(val & ROCX_TEST_DMA_START)) {
        return;
    }
    if (c->regs.test_dma_status == ROCX_TEST_DMA_BUSY) {
        rocx_gerr(c, ROCX_GERR_REG_VALUE, off,
                  "TEST_DMA_CTRL: START while busy");
        return;
    }
    if (c->regs.test_dma_len < 1 ||
        c->regs.test_dma_len > ROCX_TEST_DMA_MAX) {
        c->regs.test_dma_status = ROCX_TEST_DMA_ERROR;
        rocx_gerr(c, ROCX_GERR_REG_VALUE, off,
                  "TEST_DMA_CTRL: START without a valid TEST_DMA_LEN");
        return;
    }
    c->regs.test_dma_status = ROCX_TEST_DMA_BUSY;
    rocx_schedule(c);
}

#define ROCX_NUM_REGS   (ROCX_REG_INTR_CTRL(ROCX_MSIX_VECTORS) / 4)
#define R(reg, f, rd, wr) \
    [ROCX_REG_##reg / 4] = { #reg, ROCX_REG_F_##f, rd, wr }
/* One register per MSI-X vector. */
#define R_ARRAY(reg, f, rd, wr) \
    [ROCX_REG_##reg(0) / 4 ... ROCX_REG_##reg(ROCX_MSIX_VECTORS - 1) / 4] = \
        { #reg, ROCX_REG_F_##f, rd, wr }

static const RocxRegInfo rocx_regs[ROCX_NUM_REGS] = {
    R(ID,               R,  rocx_rd_ident,  NULL),
    R(VERSION,          R,  rocx_rd_ident,  NULL),
    R(CAPS,             R,  rocx_rd_ident,  NULL),
    R(FW_VERSION,       R,  rocx_rd_ident,  NULL),
    R(DEV_CTRL,         RW, rocx_rd_status, rocx_wr_dev_ctrl),
    R(DEV_STATUS,       R,  rocx_rd_status, NULL),
    R(GUEST_ERR_COUNT,  R,  rocx_rd_status, NULL),
    R(LAST_GUEST_ERR,   R,  rocx_rd_status, NULL),
    R(NUM_VECTORS,      R,  rocx_rd_ident,  NULL),
    R(DB_PAGES,         R,  rocx_rd_ident,  NULL),
    R(LINK_STATUS,      R,  rocx_rd_status, NULL),
    R(LINK_SPEED,       R,  rocx_rd_status, NULL),
    R(MAC_LO,           R,  rocx_rd_ident,  NULL),
    R(MAC_HI,           R,  rocx_rd_ident,  NULL),
    R(SCRATCH,          RW, rocx_rd_plain,  rocx_wr_plain),
    R(TEST_IRQ,         W,  NULL,           rocx_wr_test_irq),
    R(TEST_DMA_ADDR_LO, RW, rocx_rd_plain,  rocx_wr_plain),
    R(TEST_DMA_ADDR_HI, RW, rocx_rd_plain,  rocx_wr_plain),
    R(TEST_DMA_LEN,     RW, rocx_rd_plain,  rocx_wr_test_dma_len),
    R(TEST_DMA_CTRL,    W,  NULL,           rocx_wr_test_dma_ctrl),
    R(TEST_DMA_STATUS,  R,  rocx_rd_plain,  NULL),
    R(CLOCK_LO,         R,  rocx_rd_clock,  NULL),
    R(CLOCK_HI,         R,  rocx_rd_clock,  NULL),
    R(AQ_SQ_BASE_LO,    RW, rocx_rd_plain,  rocx_wr_plain),
    R(AQ_SQ_BASE_HI,    RW, rocx_rd_plain,  rocx_wr_plain),
    R(AQ_CQ_BASE_LO,    RW, rocx_rd_plain,  rocx_wr_plain),
    R(AQ_CQ_BASE_HI,    RW, rocx_rd_plain,  rocx_wr_plain),
    R(AQ_CTRL,          RW, rocx_rd_plain,  rocx_wr_aq_ctrl),
    R(AQ_STATUS,        R,  rocx_rd_aq,     NULL),
    R(AQ_DB,            W,  NULL,           rocx_wr_aq_db),
    R(AQ_HEAD,          R,  rocx_rd_aq,     NULL),
    R_ARRAY(INTR_CTRL,  RW, rocx_rd_intr,   rocx_wr_intr),
};

#undef R
#undef R_ARRAY

static const RocxRegInfo *rocx_reg_lookup(uint64_t off)
{
    const RocxRegInfo *ri;

    if ((off & 3) || off >= ROCX_NUM_REGS * 4) {
        return NULL;
    }
    ri = &rocx_regs[off / 4];
    return ri->name ? ri : NULL;
}

const char *rocx_core_reg_name(uint64_t off)
{
    const RocxRegInfo *ri = rocx_reg_lookup(off);

    return ri ? ri->name : NULL;
}

uint64_t rocx_core_reg_read(RocxCore *c, uint64_t off, unsigned size)
{
    const RocxRegInfo *ri;

    if (size != 4) {
        rocx_gerr(c, ROCX_GERR_ACCESS_SIZE, off,
                  "register read of %u bytes at 0x%" PRIx64, size, off);
        return 0;
    }
    ri = rocx_reg_lookup(off);
    if (!ri) {
        rocx_gerr(c, ROCX_GERR_REG_UNKNOWN, off,
                  "read of undefined register 0x%" PRIx64, off);
        return 0;
    }
    /* Write-only registers read as 0, which is not an error. */
    return ri->read ? ri->read(c, off) : 0;
}

void rocx_core_reg_write(RocxCore *c, uint64_t off, uint64_t val,
                         unsigned size)
{
    const RocxRegInfo *ri;

    if (size != 4) {
        rocx_gerr(c, ROCX_GERR_ACCESS_SIZE, off,
                  "register write of %u bytes at 0x%" PRIx64, size, off);
        return;
    }
    ri = rocx_reg_lookup(off);
    if (!ri) {
        rocx_gerr(c, ROCX_GERR_REG_UNKNOWN, off,
                  "write of 0x%" PRIx64 " to undefined register 0x%" PRIx64,
                  val, off);
        return;
    }
    if (!(ri->flags & ROCX_REG_F_W)) {
        rocx_gerr(c, ROCX_GERR_REG_READONLY, off,
                  "write of 0x%" PRIx64 " to read-only %s", val, ri->name);
        return;
    }
    ri->write(c, off, val);
}

/* ---- Doorbells (BAR2) ---- */

uint64_t rocx_core_db_read(RocxCore *c, uint64_t off, unsigned size)
{
    unsigned page = off >> ROCX_DB_PAGE_SHIFT;

    /* The clock, whole, for the kernel and every context's own page. */
    if ((ROCX_CORE_CAPS2 & ROCX_CAP2_USER_CLOCK) && size == 8 &&
        off < ROCX_BAR_DB_SIZE &&
        (off & (ROCX_DB_PAGE_SIZE - 1)) == ROCX_DB_CLOCK &&
        (page == 0 || c->uctx_used[page])) {
        return rocx_clock_ns(c);
    }
    return 0;
}

void rocx_core_db_write(RocxCore *c, uint64_t off, uint64_t val,
                        unsigned size)
{
    unsigned page = off >> ROCX_DB_PAGE_SHIFT;
    unsigned reg = off & (ROCX_DB_PAGE_SIZE - 1);
    uint32_t qid = rocx_db_qid(val);
    uint16_t idx = rocx_db_index(val);
    bool direct;

    if (size != 8) {
        rocx_gerr(c, ROCX_GERR_ACCESS_SIZE, page,
                  "doorbell write of %u bytes at 0x%" PRIx64, size, off);
        return;
    }
    if (off >= ROCX_BAR_DB_SIZE || (reg & 7) || reg > ROCX_DB_ETH_RX) {
        rocx_gerr(c, ROCX_GERR_DB_OFFSET, page,
                  "doorbell write at undefined offset 0x%" PRIx64, off);
        return;
    }
    /* Pages 1.. are user contexts'; an unallocated page owns nothing. */
    if (page != 0 && !c->uctx_used[page]) {
        rocx_gerr(c, ROCX_GERR_DB_OWNER, page,
                  "doorbell on page %u, which no context owns", page);
        return;
    }

    switch (reg) {
    case ROCX_DB_EQ:
    case ROCX_DB_ETH_TX:
    case ROCX_DB_ETH_RX:
        if (page != 0) {
            rocx_gerr(c, ROCX_GERR_DB_OWNER, page,
                      "kernel-only doorbell 0x%x rung from page %u",
                      reg, page);
            return;
        }
        break;
    }

    switch (reg) {
    case ROCX_DB_SQ:
        if (!c->direct_db || c->in_engine) {
            rocx_db_sq(c, page, qid, idx);
            break;
        }
        /*
         * Direct doorbells: for a QP with nothing in flight the engine runs
         * now, in the caller (QEMU: the vCPU thread, which holds the BQL),
         * instead of in a bottom half the main loop has to be woken for;
         * see rocx_core_set_direct_doorbells().  A QP that is streaming is
         * left to the bottom half, which packs the WQEs posted meanwhile
         * into one bundle.  What the doorbell asks for, rocx_schedule()
         * records meanwhile.
         */
        c->in_doorbell = true;
        c->resched = false;
        c->db_ack_due = false;
        direct = rocx_db_sq(c, page, qid, idx);
        c->in_doorbell = false;
        if (direct) {
            rocx_core_process(c);
        } else if (!c->resched) {
            break;
        } else if (c->lazy_db && c->db_ack_due && !rocx_timed(c)) {
            /*
             * Lazy doorbells: the ACK's engine run takes the WQEs.  The
             * first doorbell deferred sets the latest that run may come;
             * arming it may wake the main loop, so the later ones ride on
             * it, and the run that takes them leaves it to expire.
             */
            c->rdma.stats.lazy_doorbells++;
            if (!c->lazy_timer.pos) {
                rocx_timer_mod(c, &c->lazy_timer, ROCX_TIMER_LAZY,
                               rocx_now(c) + ROCX_CORE_LAZY_DB_NS);
            }
        } else {
            c->ops->schedule_work(c->opaque);
        }
        break;
    case ROCX_DB_RQ:
        rocx_db_rq(c, page, qid, idx);
        break;
    case ROCX_DB_SRQ:
        rocx_db_srq(c, page, qid, idx);
        break;
    case ROCX_DB_CQ:
        rocx_db_cq(c, page, qid, idx, val);
        break;
    case ROCX_DB_EQ:
        rocx_db_eq(c, page, qid, idx, val & ROCX_DB_ARM);
        break;
    case ROCX_DB_ETH_TX:
        rocx_db_eth(c, qid < ROCX_CORE_MAX_ETH_RINGS ? &c->tx[qid] : NULL,
                    "ETH_TX", page, qid, idx);
        if (qid < ROCX_CORE_MAX_ETH_RINGS && c->tx[qid].valid &&
            c->tx[qid].pi != c->tx[qid].ci) {
            rocx_schedule(c);
        }
        break;
    case ROCX_DB_ETH_RX:
        rocx_db_eth(c, qid < ROCX_CORE_MAX_ETH_RINGS ? &c->rx[qid] : NULL,
                    "ETH_RX", page, qid, idx);
        /* Frames waiting for buffers can now be delivered. */
        if (c->rx_hold.count) {
            rocx_schedule(c);
        }
        break;
    default:
        rocx_gerr(c, ROCX_GERR_DB_QUEUE, page,
                  "doorbell 0x%x on page %u: no queue %" PRIu32,
                  reg, page, qid);
        break;
    }
}

/* ---- Self-test DMA ---- */

void rocx_selftest_dma(RocxCore *c)
{
    uint64_t addr = (uint64_t)c->regs.test_dma_addr_hi << 32 |
                    c->regs.test_dma_addr_lo;
    uint32_t len = c->regs.test_dma_len;
    uint32_t i;

    if (c->regs.test_dma_status != ROCX_TEST_DMA_BUSY) {
        return;
    }
    /* LEN was checked at START and can only be set to 1..4096. */
    len = MIN(MAX(len, 1u), (uint32_t)ROCX_TEST_DMA_MAX);
    if (rocx_dma_read(c, addr, c->test_buf, len)) {
        goto fault;
    }
    for (i = 0; i < len; i++) {
        c->test_buf[i] = ~c->test_buf[i];
    }
    if (rocx_dma_write(c, addr, c->test_buf, len)) {
        goto fault;
    }
    c->regs.test_dma_status = ROCX_TEST_DMA_DONE;
    return;

fault:
    c->regs.test_dma_status = ROCX_TEST_DMA_ERROR;
    rocx_gerr(c, ROCX_GERR_DMA, ROCX_REG_TEST_DMA_CTRL,
              "self-test DMA at 0x%" PRIx64 " (%" PRIu32 " bytes) failed",
              addr, len);
}
