/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host unit tests for the rocx device core (qemu/hw/net/rocx/rocx-core.c).
 *
 * Each case gets a fresh fake machine (fake.c) and drives the core the way
 * a driver would: register accesses, admin commands in guest memory,
 * doorbells, received frames.  Usage: test_core [-v] [case-name...]
 * The last line of output is "host: N passed, N failed".
 */
#include <endian.h>
#include "fake.h"
#include "qemu/bswap.h"
/* rocx_eq_post(): events for EQs other than 0 without RDMA objects. */
#include "rocx-int.h"

/* Guest memory layout used by every case (offsets from FAKE_MEM_BASE). */
#define GPA(off)        (FAKE_MEM_BASE + (uint64_t)(off))
#define SQ_OFF          0x000000    /* admin commands, up to 4096 x 64 */
#define CQ_OFF          0x040000    /* admin completions */
#define TX_OFF          0x060000    /* TX descriptors */
#define RX_OFF          0x070000    /* RX descriptors */
#define BUF_OFF         0x080000    /* IDENTIFY / GET_STATS output */
#define TDMA_OFF        0x090000    /* self-test DMA buffer */
#define EQ_OFF(n)       (0x100000 + (n) * 0x10000)
#define FRAME_OFF       0x200000    /* TX frames, RX buffers */
#define RXBUF_SIZE      0x2400      /* 9216: room for a jumbo frame */

static FakeDev *F;
static const char *cur_case;
static unsigned case_failures;
static bool verbose;

/* ---- Checks ---- */

static void fail(const char *file, int line, const char *what,
                 unsigned long long a, unsigned long long b)
{
    fprintf(stderr, "  %s:%d: %s: CHECK(%s) failed: 0x%llx vs 0x%llx\n",
            file, line, cur_case, what, a, b);
    if (F && F->gerrs) {
        fprintf(stderr, "    last guest error %u/0x%x: %s\n",
                F->last_gerr_code, F->last_gerr_info, F->last_gerr_msg);
    }
    case_failures++;
}

#define CHECK(cond) do { \
        if (!(cond)) { \
            fail(__FILE__, __LINE__, #cond, 0, 0); \
        } \
    } while (0)

#define CHECK_EQ(a, b) do { \
        unsigned long long a_ = (a), b_ = (b); \
        if (a_ != b_) { \
            fail(__FILE__, __LINE__, #a " == " #b, a_, b_); \
        } \
    } while (0)

/* Guest errors: each CHECK_GERR expects exactly one more, of that code. */
static unsigned gerr_mark;

#define CHECK_GERR(code) do { \
        CHECK_EQ(F->gerrs, gerr_mark + 1); \
        CHECK_EQ(F->last_gerr_code, (code)); \
        CHECK_EQ(rd(ROCX_REG_LAST_GUEST_ERR) & ROCX_LAST_ERR_CODE_MASK, \
                 (code)); \
        gerr_mark = F->gerrs; \
    } while (0)
#define CHECK_NO_GERR() CHECK_EQ(F->gerrs, gerr_mark)

/* ---- Driver-side helpers ---- */

static uint32_t rd(unsigned off)
{
    return rocx_core_reg_read(&F->core, off, 4);
}

static void wr(unsigned off, uint32_t v)
{
    rocx_core_reg_write(&F->core, off, v, 4);
}

static void db(unsigned page, unsigned reg, uint32_t qid, uint16_t idx,
               bool arm)
{
    uint64_t v = qid | (uint64_t)idx << 32 | (arm ? ROCX_DB_ARM : 0);

    rocx_core_db_write(&F->core, (uint64_t)page * ROCX_DB_PAGE_SIZE + reg,
                       v, 8);
}

static void *mem(uint64_t off, size_t len)
{
    return fake_ptr(F, GPA(off), len);
}

static uint64_t counter(enum rocx_stat s)
{
    return F->core.stats[s];
}

static unsigned aq_ld;
static uint16_t aq_pi;
static uint16_t aq_cmd_id;

static void aq_enable(unsigned log_depth)
{
    wr(ROCX_REG_AQ_CTRL, 0);
    memset(mem(SQ_OFF, 0x40000), 0, 0x40000);
    memset(mem(CQ_OFF, 0x10000), 0, 0x10000);
    wr(ROCX_REG_AQ_SQ_BASE_LO, (uint32_t)GPA(SQ_OFF));
    wr(ROCX_REG_AQ_SQ_BASE_HI, GPA(SQ_OFF) >> 32);
    wr(ROCX_REG_AQ_CQ_BASE_LO, (uint32_t)GPA(CQ_OFF));
    wr(ROCX_REG_AQ_CQ_BASE_HI, GPA(CQ_OFF) >> 32);
    wr(ROCX_REG_AQ_CTRL, log_depth | ROCX_AQ_CTRL_ENABLE);
    aq_ld = log_depth;
    aq_pi = 0;
}

static union rocx_aq_cmd cmd_new(uint16_t op)
{
    union rocx_aq_cmd c;

    memset(&c, 0, sizeof(c));
    c.hdr.opcode = htole16(op);
    return c;
}

/* Queue a command without ringing; returns its ring slot. */
static unsigned aq_put(union rocx_aq_cmd *c)
{
    unsigned slot = aq_pi & ((1u << aq_ld) - 1);

    c->hdr.cmd_id = htole16(++aq_cmd_id);
    memcpy(mem(SQ_OFF + slot * 64, 64), c, 64);
    aq_pi++;
    return slot;
}

static void aq_kick(void)
{
    wr(ROCX_REG_AQ_DB, aq_pi);
    fake_run(F);
}

static struct rocx_aq_cqe *aq_cqe(unsigned slot)
{
    return mem(CQ_OFF + slot * 16, 16);
}

/* Submit one command, run it; returns the status, checks id and phase. */
static unsigned aq_exec(union rocx_aq_cmd *c, uint32_t *result,
                        uint64_t *result64)
{
    unsigned slot = aq_put(c);
    uint16_t idx = aq_pi - 1;
    struct rocx_aq_cqe *e;

    aq_kick();
    e = aq_cqe(slot);
    CHECK_EQ(le16toh(e->cmd_id), le16toh(c->hdr.cmd_id));
    CHECK_EQ(e->flags & ROCX_AQ_CQE_PHASE, ((idx >> aq_ld) & 1) ? 0 : 1);
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), aq_pi);
    if (result) {
        *result = le32toh(e->result);
    }
    if (result64) {
        *result64 = le64toh(e->result64);
    }
    return e->status;
}

static unsigned aq_op(uint16_t op)
{
    union rocx_aq_cmd c = cmd_new(op);

    return aq_exec(&c, NULL, NULL);
}

static unsigned create_eq(uint16_t eqn, uint8_t log_depth, uint8_t vector)
{
    union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_CREATE_EQ);

    memset(mem(EQ_OFF(eqn < 8 ? eqn : 0), 16u << MIN(log_depth, 12)), 0,
           16u << MIN(log_depth, 12));
    c.create_eq.base = htole64(GPA(EQ_OFF(eqn < 8 ? eqn : 0)));
    c.create_eq.eqn = htole16(eqn);
    c.create_eq.log_depth = log_depth;
    c.create_eq.vector = vector;
    return aq_exec(&c, NULL, NULL);
}

static struct rocx_eqe *eqe(unsigned eqn, unsigned log_depth, uint32_t idx)
{
    return mem(EQ_OFF(eqn) + (idx & ((1u << log_depth) - 1)) * 16, 16);
}

static unsigned create_ring(uint8_t type, uint8_t qid, uint8_t log_depth,
                            uint8_t vector, uint16_t buf_size)
{
    union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_CREATE_ETH_RING);

    c.create_eth_ring.base = htole64(GPA(type == ROCX_ETH_RING_TX ?
                                         TX_OFF : RX_OFF));
    c.create_eth_ring.type = type;
    c.create_eth_ring.qid = qid;
    c.create_eth_ring.log_depth = log_depth;
    c.create_eth_ring.vector = vector;
    c.create_eth_ring.buf_size = htole16(buf_size);
    return aq_exec(&c, NULL, NULL);
}

static unsigned destroy_ring(uint8_t type, uint8_t qid)
{
    union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_DESTROY_ETH_RING);

    c.destroy_eth_ring.type = type;
    c.destroy_eth_ring.qid = qid;
    return aq_exec(&c, NULL, NULL);
}

static unsigned set_port(uint32_t valid, uint16_t mtu, const uint8_t *mac,
                         uint8_t admin_up, uint8_t rx_mode)
{
    union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_SET_PORT);

    c.set_port.valid = htole32(valid);
    c.set_port.mtu = htole16(mtu);
    if (mac) {
        memcpy(c.set_port.mac, mac, 6);
    }
    c.set_port.admin_up = admin_up;
    c.set_port.rx_mode = rx_mode;
    return aq_exec(&c, NULL, NULL);
}

static void admin_up(void)
{
    CHECK_EQ(set_port(ROCX_PORT_SET_ADMIN, 0, NULL, 1, 0), ROCX_AQ_STS_OK);
    CHECK(rd(ROCX_REG_LINK_STATUS) & ROCX_LINK_UP);
}

static uint16_t tx_pi;

static struct rocx_eth_tx_desc *tx_desc(uint16_t idx, unsigned log_depth)
{
    return mem(TX_OFF + (idx & ((1u << log_depth) - 1)) * 16, 16);
}

/* Post one TX descriptor for a frame at FRAME_OFF + slot * 0x2400. */
static void tx_post(unsigned log_depth, unsigned slot, uint16_t len,
                    uint8_t fill)
{
    struct rocx_eth_tx_desc *d = tx_desc(tx_pi, log_depth);
    uint64_t off = FRAME_OFF + (uint64_t)slot * RXBUF_SIZE;
    uint8_t *p = mem(off, ROCX_MAX_FRAME);
    unsigned i;

    for (i = 0; i < len && i < ROCX_MAX_FRAME; i++) {
        p[i] = fill + i * 7;
    }
    memset(d, 0, sizeof(*d));
    d->addr = htole64(GPA(off));
    d->len = htole16(len);
    tx_pi++;
}

static uint16_t rx_pi;

static struct rocx_eth_rx_desc *rx_desc(uint16_t idx, unsigned log_depth)
{
    return mem(RX_OFF + (idx & ((1u << log_depth) - 1)) * 16, 16);
}

/* Post n RX buffers (RXBUF_SIZE apart) and ring the doorbell. */
static void rx_post(unsigned log_depth, unsigned n)
{
    while (n--) {
        struct rocx_eth_rx_desc *d = rx_desc(rx_pi, log_depth);
        unsigned slot = rx_pi & ((1u << log_depth) - 1);

        memset(d, 0, sizeof(*d));
        d->addr = htole64(GPA(FRAME_OFF + (uint64_t)slot * RXBUF_SIZE));
        memset(mem(FRAME_OFF + (uint64_t)slot * RXBUF_SIZE, RXBUF_SIZE),
               0xee, RXBUF_SIZE);
        rx_pi++;
    }
    db(0, ROCX_DB_ETH_RX, 0, rx_pi, false);
    fake_run(F);
}

static uint8_t *rx_buf(uint16_t idx, unsigned log_depth)
{
    unsigned slot = idx & ((1u << log_depth) - 1);

    return mem(FRAME_OFF + (uint64_t)slot * RXBUF_SIZE, RXBUF_SIZE);
}

static size_t make_frame(uint8_t *buf, const uint8_t *dst, size_t len)
{
    size_t i;

    memcpy(buf, dst, 6);
    memcpy(buf + 6, "\x02\x00\x00\x00\x00\x01", 6);
    buf[12] = 0x08;
    buf[13] = 0x00;
    for (i = 14; i < len; i++) {
        buf[i] = i * 13;
    }
    return len;
}

/* A device with the admin queue on, EQ 0 and both rings up, link up. */
static void bring_up(void)
{
    aq_enable(4);
    CHECK_EQ(create_eq(0, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_ring(ROCX_ETH_RING_TX, 0, 6, 1, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 6, 1, RXBUF_SIZE),
             ROCX_AQ_STS_OK);
    admin_up();
}

/* ================= Cases ================= */

static void t_identity_registers(void)
{
    CHECK_EQ(rd(ROCX_REG_ID), 0x58434f52);
    CHECK_EQ(rd(ROCX_REG_VERSION), 0x00010002);
    CHECK_EQ(rd(ROCX_REG_CAPS), ROCX_CAP_ETH | ROCX_CAP_RDMA |
             ROCX_CAP_ROCE_V1 | ROCX_CAP_ROCE_V2 | ROCX_CAP_DCB |
             ROCX_CAP_SELFTEST);
    CHECK_EQ(rd(ROCX_REG_FW_VERSION), ROCX_CORE_FW_VERSION);
    CHECK_EQ(rd(ROCX_REG_DEV_CTRL), 0);
    CHECK_EQ(rd(ROCX_REG_DEV_STATUS), ROCX_DEV_STATUS_READY);
    CHECK_EQ(rd(ROCX_REG_NUM_VECTORS), 8);
    CHECK_EQ(rd(ROCX_REG_DB_PAGES), 256);
    CHECK_EQ(rd(ROCX_REG_MAC_LO), 0x12005452);
    CHECK_EQ(rd(ROCX_REG_MAC_HI), 0x5634);
    CHECK_EQ(rd(ROCX_REG_LINK_STATUS),
             ROCX_LINK_CARRIER | ((ROCX_CORE_DEFAULT_SPEED / 1000) << 16));
    CHECK_EQ(rd(ROCX_REG_GUEST_ERR_COUNT), 0);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), 0);
    CHECK_NO_GERR();
}

static void t_reset_clears_state(void)
{
    union rocx_aq_cmd c;
    uint32_t res;
    uint64_t res64, dma_before;
    uint8_t mac2[6] = { 0x02, 1, 2, 3, 4, 5 };
    unsigned v;

    bring_up();
    CHECK_EQ(set_port(ROCX_PORT_SET_MTU | ROCX_PORT_SET_MAC, 9000, mac2, 0,
                      0), ROCX_AQ_STS_OK);
    CHECK_EQ(aq_op(ROCX_AQ_OP_ALLOC_UCTX), ROCX_AQ_STS_OK);
    c = cmd_new(ROCX_AQ_OP_CREATE_PD);
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
    c = cmd_new(ROCX_AQ_OP_SET_GID);
    memcpy(c.set_gid.mac, mac2, 6);
    c.set_gid.vlan = htole16(ROCX_VLAN_NONE);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    wr(ROCX_REG_SCRATCH, 0xdeadbeef);
    wr(ROCX_REG_TEST_DMA_ADDR_LO, 0x1000);
    wr(ROCX_REG_TEST_DMA_LEN, 16);
    for (v = 0; v < 8; v++) {
        wr(ROCX_REG_INTR_CTRL(v), ROCX_INTR_MASK);
    }
    wr(ROCX_REG_ID, 1);
    CHECK_GERR(ROCX_GERR_REG_READONLY);
    fake_run(F);
    tx_post(6, 0, 60, 1);   /* posted, never rung: reset must forget it */

    wr(ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET);
    CHECK_NO_GERR();
    CHECK_EQ(rd(ROCX_REG_DEV_CTRL), 0);
    CHECK_EQ(rd(ROCX_REG_DEV_STATUS), ROCX_DEV_STATUS_READY);
    CHECK_EQ(rd(ROCX_REG_SCRATCH), 0);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_ADDR_LO), 0);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_LEN), 0);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_STATUS), ROCX_TEST_DMA_IDLE);
    CHECK_EQ(rd(ROCX_REG_GUEST_ERR_COUNT), 0);
    CHECK_EQ(rd(ROCX_REG_LAST_GUEST_ERR), 0);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), 0);
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 0);
    CHECK_EQ(rd(ROCX_REG_AQ_CTRL), 0);
    CHECK_EQ(rd(ROCX_REG_AQ_SQ_BASE_LO), 0);
    for (v = 0; v < 8; v++) {
        CHECK_EQ(rd(ROCX_REG_INTR_CTRL(v)), 0);
    }
    CHECK_EQ(rd(ROCX_REG_LINK_STATUS) & (ROCX_LINK_UP | ROCX_LINK_ADMIN_UP),
             0);

    /* No DMA after reset: doorbells for the old rings are rejected. */
    dma_before = F->dma_reads + F->dma_writes;
    gerr_mark = F->gerrs;
    db(0, ROCX_DB_ETH_TX, 0, 1, false);
    CHECK_GERR(ROCX_GERR_DB_QUEUE);
    db(0, ROCX_DB_EQ, 0, 0, true);
    CHECK_GERR(ROCX_GERR_DB_QUEUE);
    fake_run(F);
    CHECK_EQ(F->dma_reads + F->dma_writes, dma_before);
    CHECK_EQ(F->nframes, 0);

    /* Objects are gone; counters survive. */
    aq_enable(4);
    CHECK_EQ(aq_exec(&(union rocx_aq_cmd){ .hdr.opcode = 0 }, NULL, NULL),
             ROCX_AQ_STS_OK);
    c = cmd_new(ROCX_AQ_OP_DESTROY_EQ);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_TX, 0), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_RX, 0), ROCX_AQ_STS_NOT_FOUND);
    c = cmd_new(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(res, 1);
    c = cmd_new(ROCX_AQ_OP_CREATE_PD);
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(res, 1);
    c = cmd_new(ROCX_AQ_OP_DEL_GID);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_NOT_FOUND);
    c = cmd_new(ROCX_AQ_OP_QUERY_PORT);
    CHECK_EQ(aq_exec(&c, &res, &res64), ROCX_AQ_STS_OK);
    CHECK_EQ(res64, 1500);
    CHECK_EQ(res & ROCX_LINK_ADMIN_UP, 0);
    CHECK(counter(ROCX_STAT_AQ_COMMANDS) > 10);
    CHECK_EQ(counter(ROCX_STAT_LINK_CHANGES), 2);  /* up, then reset: down */

    /* The permanent MAC is back: frames to the old one are filtered. */
    CHECK_EQ(rd(ROCX_REG_MAC_LO), 0x12005452);

    /* A power-on reset clears the counters as well. */
    rocx_core_reset(&F->core);
    CHECK_EQ(counter(ROCX_STAT_AQ_COMMANDS), 0);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), 0);
}

static void t_scratch(void)
{
    static const uint32_t pat[] = {
        0, 0xffffffff, 0xa5a5a5a5, 0x5a5a5a5a, 0x12345678, 1, 0x80000000,
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(pat); i++) {
        wr(ROCX_REG_SCRATCH, pat[i]);
        CHECK_EQ(rd(ROCX_REG_SCRATCH), pat[i]);
    }
    CHECK_NO_GERR();
}

static void t_test_irq(void)
{
    unsigned v;

    for (v = 0; v < 8; v++) {
        wr(ROCX_REG_TEST_IRQ, v);
        CHECK_EQ(F->irqs[v], 1);
    }
    /* The self-test ignores INTR_CTRL.MASK. */
    wr(ROCX_REG_INTR_CTRL(3), ROCX_INTR_MASK);
    wr(ROCX_REG_TEST_IRQ, 3);
    CHECK_EQ(F->irqs[3], 2);
    CHECK_EQ(rd(ROCX_REG_INTR_CTRL(3)), ROCX_INTR_MASK);
    CHECK_NO_GERR();
    wr(ROCX_REG_TEST_IRQ, 8);
    CHECK_GERR(ROCX_GERR_VECTOR);
    wr(ROCX_REG_TEST_IRQ, 0xffffffff);
    CHECK_GERR(ROCX_GERR_VECTOR);
    CHECK_EQ(F->irqs_total, 9);
    CHECK_EQ(rd(ROCX_REG_TEST_IRQ), 0);     /* write-only reads 0 */
    CHECK_NO_GERR();
}

static void start_test_dma(uint64_t gpa, uint32_t len)
{
    wr(ROCX_REG_TEST_DMA_ADDR_LO, (uint32_t)gpa);
    wr(ROCX_REG_TEST_DMA_ADDR_HI, gpa >> 32);
    wr(ROCX_REG_TEST_DMA_LEN, len);
    wr(ROCX_REG_TEST_DMA_CTRL, ROCX_TEST_DMA_START);
}

static void t_test_dma(void)
{
    uint8_t *p = mem(TDMA_OFF, 8192);
    unsigned i;

    for (i = 0; i < 8192; i++) {
        p[i] = i * 31;
    }
    start_test_dma(GPA(TDMA_OFF), 100);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_STATUS), ROCX_TEST_DMA_BUSY);
    CHECK(F->scheduled);
    /* START while busy is refused. */
    wr(ROCX_REG_TEST_DMA_CTRL, ROCX_TEST_DMA_START);
    CHECK_GERR(ROCX_GERR_REG_VALUE);
    fake_run(F);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_STATUS), ROCX_TEST_DMA_DONE);
    for (i = 0; i < 8192; i++) {
        uint8_t want = i < 100 ? (uint8_t)~(i * 31) : (uint8_t)(i * 31);

        if (p[i] != want) {
            CHECK_EQ(p[i], want);
            break;
        }
    }

    /* The full 4096 bytes, again: the complement restores the data. */
    start_test_dma(GPA(TDMA_OFF), 100);
    fake_run(F);
    start_test_dma(GPA(TDMA_OFF), 4096);
    fake_run(F);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_STATUS), ROCX_TEST_DMA_DONE);
    CHECK_EQ(p[4095], (uint8_t)~(4095 * 31));
    CHECK_EQ(p[4096], (uint8_t)(4096 * 31));
    CHECK_NO_GERR();

    /* Out-of-range lengths are refused and leave LEN alone. */
    wr(ROCX_REG_TEST_DMA_LEN, 0);
    CHECK_GERR(ROCX_GERR_REG_VALUE);
    wr(ROCX_REG_TEST_DMA_LEN, 4097);
    CHECK_GERR(ROCX_GERR_REG_VALUE);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_LEN), 4096);
    wr(ROCX_REG_TEST_DMA_CTRL, 2);
    CHECK_GERR(ROCX_GERR_REG_VALUE);

    /* A faulting address ends in ERROR. */
    start_test_dma(0x1000, 64);
    fake_run(F);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_STATUS), ROCX_TEST_DMA_ERROR);
    CHECK_GERR(ROCX_GERR_DMA);
    /* So does one that wraps the address space. */
    start_test_dma(0xfffffffffffffff0ULL, 64);
    fake_run(F);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_STATUS), ROCX_TEST_DMA_ERROR);
    CHECK_GERR(ROCX_GERR_DMA);
    /* And a write fault after a good read. */
    F->fault_addr = GPA(TDMA_OFF) + 10;
    F->fault_len = 1;
    start_test_dma(GPA(TDMA_OFF), 64);
    fake_run(F);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_STATUS), ROCX_TEST_DMA_ERROR);
    CHECK_GERR(ROCX_GERR_DMA);
    F->fault_len = 0;

    /* START with LEN still 0 after reset: ERROR at once. */
    wr(ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET);
    gerr_mark = F->gerrs;
    wr(ROCX_REG_TEST_DMA_CTRL, ROCX_TEST_DMA_START);
    CHECK_GERR(ROCX_GERR_REG_VALUE);
    CHECK_EQ(rd(ROCX_REG_TEST_DMA_STATUS), ROCX_TEST_DMA_ERROR);
}

static void t_aq_phase_wraps(void)
{
    unsigned i, round;

    aq_enable(2);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), ROCX_AQ_STATUS_ENABLED);
    /* One at a time, five times around a 4-entry ring. */
    for (i = 0; i < 20; i++) {
        CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    }
    /* Then whole rings at once, including a completely full ring. */
    for (round = 0; round < 6; round++) {
        unsigned n = round % 2 ? 4 : 3;
        uint16_t first = aq_pi;

        for (i = 0; i < n; i++) {
            union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_NOP);

            aq_put(&c);
        }
        aq_kick();
        for (i = 0; i < n; i++) {
            uint16_t idx = first + i;
            struct rocx_aq_cqe *e = aq_cqe(idx & 3);

            CHECK_EQ(e->status, ROCX_AQ_STS_OK);
            CHECK_EQ(e->flags, ((idx >> 2) & 1) ? 0 : 1);
        }
        CHECK_EQ(rd(ROCX_REG_AQ_HEAD), aq_pi);
    }
    CHECK_EQ(counter(ROCX_STAT_AQ_COMMANDS), 20 + 21);
    CHECK_EQ(counter(ROCX_STAT_AQ_ERRORS), 0);
    CHECK_NO_GERR();

    /* The 16-bit head wraps evenly: phase stays right past 65535. */
    aq_enable(12);
    for (round = 0; round < 17; round++) {
        for (i = 0; i < 4096; i++) {
            union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_NOP);

            aq_put(&c);
        }
        aq_kick();
        CHECK_EQ(aq_cqe(4095)->flags, round % 2 ? 0 : 1);
        CHECK_EQ(rd(ROCX_REG_AQ_HEAD), aq_pi);
    }
    CHECK_EQ(aq_pi, (uint16_t)(17 * 4096));
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    CHECK_NO_GERR();
}

static void t_aq_irq(void)
{
    aq_enable(3);
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    CHECK_EQ(F->irqs_total, 0);     /* polled mode */
    wr(ROCX_REG_AQ_CTRL, 3 | ROCX_AQ_CTRL_ENABLE | ROCX_AQ_CTRL_IRQ_EN |
       (5 << 16));
    CHECK_NO_GERR();
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    CHECK_EQ(F->irqs[5], 1);
    /* Several commands, one interrupt. */
    aq_put(&(union rocx_aq_cmd){ .hdr.opcode = 0 });
    aq_put(&(union rocx_aq_cmd){ .hdr.opcode = 0 });
    aq_kick();
    CHECK_EQ(F->irqs[5], 2);
    /* A depth change while enabled is refused; a vector of 8 too. */
    wr(ROCX_REG_AQ_CTRL, 4 | ROCX_AQ_CTRL_ENABLE);
    CHECK_GERR(ROCX_GERR_REG_VALUE);
    wr(ROCX_REG_AQ_CTRL, 3 | ROCX_AQ_CTRL_ENABLE | (8 << 16));
    CHECK_GERR(ROCX_GERR_VECTOR);
    wr(ROCX_REG_AQ_CTRL, 3 | ROCX_AQ_CTRL_ENABLE | (1 << 4));
    CHECK_GERR(ROCX_GERR_REG_VALUE);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), ROCX_AQ_STATUS_ENABLED);
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    CHECK_EQ(F->irqs[5], 3);
}

static void t_aq_index_error(void)
{
    aq_enable(2);
    /* Producer 5 with head 0 and depth 4: refused, nothing consumed. */
    wr(ROCX_REG_AQ_DB, 5);
    CHECK_GERR(ROCX_GERR_AQ_INDEX);
    CHECK_EQ(rd(ROCX_REG_LAST_GUEST_ERR) >> 16, 5);
    fake_run(F);
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 0);
    /* Behind the head counts as far ahead. */
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    wr(ROCX_REG_AQ_DB, 0);
    CHECK_GERR(ROCX_GERR_AQ_INDEX);
    wr(ROCX_REG_AQ_DB, 0x10001);
    CHECK_GERR(ROCX_GERR_REG_VALUE);
    /* Exactly depth ahead is a full ring, which is fine. */
    wr(ROCX_REG_AQ_DB, 1 + 4);
    CHECK_NO_GERR();
    fake_run(F);
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 5);
    aq_pi = 5;
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    /* A doorbell while disabled is a configuration error. */
    wr(ROCX_REG_AQ_CTRL, 0);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), 0);
    wr(ROCX_REG_AQ_DB, 1);
    CHECK_GERR(ROCX_GERR_AQ_CONFIG);
    CHECK_EQ(rd(ROCX_REG_AQ_DB), 0);    /* write-only */
}

static void t_aq_config_errors(void)
{
    static const uint32_t bad_depth[] = { 0, 1, 13, 15 };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(bad_depth); i++) {
        aq_enable(bad_depth[i]);
        CHECK_GERR(ROCX_GERR_AQ_CONFIG);
        CHECK_EQ(rd(ROCX_REG_AQ_STATUS), ROCX_AQ_STATUS_ERROR);
        wr(ROCX_REG_AQ_CTRL, 0);
    }
    aq_enable(2);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), ROCX_AQ_STATUS_ENABLED);
    wr(ROCX_REG_AQ_CTRL, 0);

    /* Misaligned rings. */
    wr(ROCX_REG_AQ_SQ_BASE_LO, (uint32_t)GPA(SQ_OFF) + 32);
    wr(ROCX_REG_AQ_CTRL, 2 | ROCX_AQ_CTRL_ENABLE);
    CHECK_GERR(ROCX_GERR_AQ_CONFIG);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), ROCX_AQ_STATUS_ERROR);
    /* ENABLE takes effect on a 0 -> 1 change only. */
    wr(ROCX_REG_AQ_SQ_BASE_LO, (uint32_t)GPA(SQ_OFF));
    wr(ROCX_REG_AQ_CTRL, 2 | ROCX_AQ_CTRL_ENABLE);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), ROCX_AQ_STATUS_ERROR);
    wr(ROCX_REG_AQ_CTRL, 0);
    wr(ROCX_REG_AQ_CQ_BASE_LO, (uint32_t)GPA(CQ_OFF) + 8);
    wr(ROCX_REG_AQ_CTRL, 2 | ROCX_AQ_CTRL_ENABLE);
    CHECK_GERR(ROCX_GERR_AQ_CONFIG);
    wr(ROCX_REG_AQ_CTRL, 0);
    aq_enable(2);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), ROCX_AQ_STATUS_ENABLED);
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    CHECK_NO_GERR();
}

static void t_aq_dma_fault(void)
{
    union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_NOP);

    /* Unreadable submission ring. */
    aq_enable(2);
    F->fault_addr = GPA(SQ_OFF);
    F->fault_len = 64;
    aq_put(&c);
    aq_kick();
    CHECK_GERR(ROCX_GERR_DMA);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS),
             ROCX_AQ_STATUS_ENABLED | ROCX_AQ_STATUS_ERROR);
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 0);
    /* Stopped: nothing happens until disabled and enabled again. */
    F->fault_len = 0;
    wr(ROCX_REG_AQ_DB, aq_pi);
    fake_run(F);
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 0);
    wr(ROCX_REG_AQ_CTRL, 0);
    aq_enable(2);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), ROCX_AQ_STATUS_ENABLED);
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);

    /* Unwritable completion ring: the command still counts as consumed. */
    F->fault_addr = GPA(CQ_OFF) + 16;
    F->fault_len = 16;
    aq_put(&c);
    aq_kick();
    CHECK_GERR(ROCX_GERR_DMA);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS),
             ROCX_AQ_STATUS_ENABLED | ROCX_AQ_STATUS_ERROR);
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 2);
    F->fault_len = 0;

    /* Rings outside memory altogether, and wrapping the address space. */
    wr(ROCX_REG_AQ_CTRL, 0);
    wr(ROCX_REG_AQ_SQ_BASE_LO, 0xffffffc0);
    wr(ROCX_REG_AQ_SQ_BASE_HI, 0xffffffff);
    wr(ROCX_REG_AQ_CTRL, 12 | ROCX_AQ_CTRL_ENABLE);
    CHECK_NO_GERR();
    wr(ROCX_REG_AQ_DB, 100);
    fake_run(F);
    CHECK_GERR(ROCX_GERR_DMA);
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS) & ROCX_AQ_STATUS_ERROR,
             ROCX_AQ_STATUS_ERROR);
}

static void t_aq_budget(void)
{
    unsigned i;

    aq_enable(6);
    for (i = 0; i < 64; i++) {
        aq_put(&(union rocx_aq_cmd){ .hdr.opcode = 0 });
    }
    wr(ROCX_REG_AQ_DB, aq_pi);
    CHECK(F->scheduled);
    F->scheduled = false;
    rocx_core_process(&F->core);
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), ROCX_CORE_AQ_BUDGET);
    CHECK(F->scheduled);    /* asked to be called again */
    fake_run(F);
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 64);
}

static void t_op_identify(void)
{
    union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_IDENTIFY);
    struct rocx_identify *id = mem(BUF_OFF, 512);

    aq_enable(3);
    memset(id, 0xcc, 512);
    c.identify.addr = htole64(GPA(BUF_OFF));
    c.identify.len = htole32(256);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(le32toh(id->version), 0x00010002);
    CHECK_EQ(le32toh(id->caps), ROCX_CORE_CAPS);
    CHECK_EQ(le32toh(id->fw_version), ROCX_CORE_FW_VERSION);
    CHECK(!memcmp(id->mac, fake_mac, 6));
    CHECK_EQ(le16toh(id->max_mtu), 9000);
    CHECK_EQ(le16toh(id->num_vectors), 8);
    CHECK_EQ(le16toh(id->db_pages), 256);
    CHECK_EQ(le16toh(id->max_eq), 8);
    CHECK_EQ(le16toh(id->max_eth_rings), 8);
    CHECK_EQ(le16toh(id->gid_tbl_len), 128);
    CHECK_EQ(le16toh(id->num_stats), ROCX_STAT_NUM);
    CHECK_EQ(le32toh(id->max_pd), 1024);
    CHECK_EQ(le32toh(id->max_uctx), 255);
    CHECK_EQ(le32toh(id->max_qp), 1024);
    CHECK_EQ(le32toh(id->max_qp_wr), 4096);
    CHECK_EQ(le32toh(id->max_sge), 8);
    CHECK_EQ(le32toh(id->max_inline), 256);
    CHECK_EQ(le32toh(id->max_cq), 1024);
    CHECK_EQ(le32toh(id->max_cqe), 65536);
    CHECK_EQ(le32toh(id->max_mr), 4096);
    CHECK_EQ(le32toh(id->max_srq), 256);
    CHECK_EQ(le32toh(id->max_srq_wr), 4096);
    CHECK_EQ(le32toh(id->max_rd_atom), 16);
    CHECK_EQ(le64toh(id->max_mr_size), 1ULL << 40);
    CHECK_EQ(le64toh(id->page_size_cap), (1ULL << 12) | (1ULL << 21));
    /* Contract 1.2: the parts implemented, at byte 96. */
    CHECK_EQ(le64toh(id->caps2),
             ROCX_CAP2_QPN_ROTATE |
             ROCX_CAP2_EQ_OVERFLOW_EVENT |
             ROCX_CAP2_ETS |
             ROCX_CAP2_MCAST_FILTER |
             ROCX_CAP2_UC |
             ROCX_CAP2_PFC |
             ROCX_CAP2_UD |
             ROCX_CAP2_ATOMIC |
             ROCX_CAP2_MW |
             ROCX_CAP2_SRQ |
             ROCX_CAP2_XRC |
             ROCX_CAP2_CQE64 |
             ROCX_CAP2_CLOCK |
             ROCX_CAP2_DB_RECORD |
             ROCX_CAP2_MCAST |
             ROCX_CAP2_ECN |
             ROCX_CAP2_DCQCN |
             ROCX_CAP2_FAST_REG |
             ROCX_CAP2_GSI |
             ROCX_CAP2_SRQ_RESIZE |
             ROCX_CAP2_CQ_RESIZE |
             ROCX_CAP2_USER_CLOCK);
    CHECK_EQ(le32toh(id->max_fast_reg_pages), 512);
    CHECK_EQ(le32toh(id->max_mcast_grp), 64);
    CHECK_EQ(le32toh(id->max_mcast_qp_attach), 16);
    CHECK_EQ(le32toh(id->max_srq_sge), 8);
    CHECK_EQ(le32toh(id->max_mw), ROCX_CORE_MAX_MW);
    CHECK_EQ(le32toh(id->max_xrcd), ROCX_CORE_MAX_XRCD);
    CHECK_EQ(id->atomic_cap, ROCX_ATOMIC_CAP_HCA);
    CHECK_EQ(le32toh(id->rx_buf_total), 512 * 1024);
    CHECK_EQ(le32toh(id->max_speed), 400000);
    /* CQE64 and CLOCK: both formats, a nanosecond clock. */
    CHECK_EQ(le32toh(id->cqe_formats), 0x3);
    CHECK_EQ(le32toh(id->clock_khz), 1000000);
    CHECK_EQ(id->rsvd[0], 0);
    CHECK_EQ(id->rsvd[sizeof(id->rsvd) - 1], 0);
    CHECK_EQ(((uint8_t *)id)[256], 0xcc);   /* nothing past 256 bytes */

    c.identify.len = htole32(255);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c.identify.len = htole32(4096);
    c.identify.addr = htole64(0x1000);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_DMA_ERROR);
    CHECK_GERR(ROCX_GERR_DMA);
    CHECK_EQ(rd(ROCX_REG_LAST_GUEST_ERR) >> 16, ROCX_AQ_OP_IDENTIFY);
    CHECK_EQ(counter(ROCX_STAT_AQ_ERRORS), 2);
    CHECK_EQ(counter(ROCX_STAT_AQ_COMMANDS), 3);
    CHECK_EQ(F->aq_done, 3);
    CHECK_EQ(F->last_aq_opcode, ROCX_AQ_OP_IDENTIFY);
    CHECK_EQ(F->last_aq_status, ROCX_AQ_STS_DMA_ERROR);
    /* The queue carries on after failed commands. */
    CHECK_EQ(rd(ROCX_REG_AQ_STATUS), ROCX_AQ_STATUS_ENABLED);
}

static void t_op_set_query_port_mtu(void)
{
    static const uint8_t mc[6] = { 0x01, 0, 0x5e, 0, 0, 1 };
    static const uint8_t zero[6];
    static const uint8_t ok[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };
    uint32_t res;
    uint64_t res64;
    union rocx_aq_cmd q = cmd_new(ROCX_AQ_OP_QUERY_PORT);

    aq_enable(4);
    CHECK_EQ(aq_exec(&q, &res, &res64), ROCX_AQ_STS_OK);
    CHECK_EQ(res, rd(ROCX_REG_LINK_STATUS));
    CHECK_EQ(res64, 1500);

    /* MTU limits. */
    CHECK_EQ(set_port(ROCX_PORT_SET_MTU, 67, NULL, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(set_port(ROCX_PORT_SET_MTU, 9001, NULL, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(set_port(ROCX_PORT_SET_MTU, 0, NULL, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(set_port(ROCX_PORT_SET_MTU, 68, NULL, 0, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(aq_exec(&q, NULL, &res64), ROCX_AQ_STS_OK);
    CHECK_EQ(res64, 68);
    CHECK_EQ(set_port(ROCX_PORT_SET_MTU, 9000, NULL, 0, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(aq_exec(&q, NULL, &res64), ROCX_AQ_STS_OK);
    CHECK_EQ(res64, 9000);
    /* Fields not marked valid are ignored, even if out of range. */
    CHECK_EQ(set_port(ROCX_PORT_SET_RX_MODE, 1, mc, 7, 0), ROCX_AQ_STS_OK);

    /* Bad values, and nothing applied from a failed command. */
    CHECK_EQ(set_port(ROCX_PORT_SET_MAC, 0, mc, 0, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(set_port(ROCX_PORT_SET_MAC, 0, zero, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(set_port(ROCX_PORT_SET_ADMIN, 0, NULL, 2, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(set_port(ROCX_PORT_SET_RX_MODE, 0, NULL, 0, 4),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(set_port(0x10, 0, NULL, 0, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(set_port(ROCX_PORT_SET_MTU | ROCX_PORT_SET_MAC, 1500, mc, 0, 0),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(aq_exec(&q, NULL, &res64), ROCX_AQ_STS_OK);
    CHECK_EQ(res64, 9000);
    CHECK_EQ(set_port(ROCX_PORT_SET_MAC, 0, ok, 0, 0), ROCX_AQ_STS_OK);
    CHECK(!memcmp(F->core.port.mac, ok, 6));
    /* MAC_LO/HI keep the permanent address. */
    CHECK_EQ(rd(ROCX_REG_MAC_LO), 0x12005452);

    /* Admin up with carrier: link up, reported by QUERY_PORT. */
    CHECK_EQ(set_port(ROCX_PORT_SET_ADMIN, 0, NULL, 1, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(aq_exec(&q, &res, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(res, ROCX_LINK_UP | ROCX_LINK_CARRIER | ROCX_LINK_ADMIN_UP |
             ((ROCX_CORE_DEFAULT_SPEED / 1000) << 16));
    CHECK_NO_GERR();
}

static void t_op_get_stats(void)
{
    union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_GET_STATS);
    uint64_t *out = mem(BUF_OFF, 4096);
    uint32_t res;

    aq_enable(3);
    memset(out, 0xcc, 4096);
    c.get_stats.addr = htole64(GPA(BUF_OFF));
    c.get_stats.len = htole32(0);
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(res, 0);
    CHECK_EQ(out[0], 0xccccccccccccccccULL);
    c.get_stats.len = htole32(23);  /* 2 whole counters */
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(res, 2);
    CHECK_EQ(out[2], 0xccccccccccccccccULL);
    c.get_stats.len = htole32(4096);
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(res, ROCX_STAT_NUM);
    /* The counter snapshot is taken while the command runs. */
    CHECK_EQ(le64toh(out[ROCX_STAT_AQ_COMMANDS]), 2);
    CHECK_EQ(le64toh(out[ROCX_STAT_DOORBELLS]), 3);
    CHECK_EQ(out[ROCX_STAT_NUM], 0xccccccccccccccccULL);
    c.get_stats.addr = htole64(GPA(FAKE_MEM_SIZE - 8));
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_DMA_ERROR);
    CHECK_GERR(ROCX_GERR_DMA);
}

static void t_op_eq(void)
{
    union rocx_aq_cmd c;

    aq_enable(4);
    CHECK_EQ(create_eq(0, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_eq(0, 4, 0), ROCX_AQ_STS_EXISTS);
    CHECK_EQ(create_eq(7, 16, 7), ROCX_AQ_STS_OK);
    CHECK_EQ(create_eq(8, 4, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_eq(0xffff, 4, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_eq(1, 3, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_eq(1, 17, 0), ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_eq(1, 4, 8), ROCX_AQ_STS_INVALID);
    c = cmd_new(ROCX_AQ_OP_CREATE_EQ);
    c.create_eq.eqn = htole16(1);
    c.create_eq.log_depth = 4;
    c.create_eq.base = htole64(GPA(EQ_OFF(1)) + 8);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);

    c = cmd_new(ROCX_AQ_OP_DESTROY_EQ);
    c.destroy_eq.eqn = htole16(7);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_NOT_FOUND);
    c.destroy_eq.eqn = htole16(8);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_eq(7, 4, 1), ROCX_AQ_STS_OK);
    CHECK_NO_GERR();
}

static void t_op_eth_ring(void)
{
    union rocx_aq_cmd c;

    aq_enable(4);
    CHECK_EQ(create_ring(ROCX_ETH_RING_TX, 0, 6, 1, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_ring(ROCX_ETH_RING_TX, 0, 6, 1, 0), ROCX_AQ_STS_EXISTS);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 12, 1, 64), ROCX_AQ_STS_OK);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 12, 1, 64),
             ROCX_AQ_STS_EXISTS);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_RX, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 6, 1, 63), ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 1, 6, 1, 2048),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_ring(2, 0, 6, 1, 2048), ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 5, 1, 2048),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 13, 1, 2048),
             ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 6, 8, 2048),
             ROCX_AQ_STS_INVALID);
    c = cmd_new(ROCX_AQ_OP_CREATE_ETH_RING);
    c.create_eth_ring.type = ROCX_ETH_RING_RX;
    c.create_eth_ring.log_depth = 6;
    c.create_eth_ring.buf_size = htole16(2048);
    c.create_eth_ring.base = htole64(GPA(RX_OFF) + 4);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 6, 1, 0xffff), ROCX_AQ_STS_OK);
    /* A TX ring per traffic class: 8 rings, classes below 8; RX: 0. */
    CHECK_EQ(create_ring(ROCX_ETH_RING_TX, 7, 6, 1, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_ring(ROCX_ETH_RING_TX, 8, 6, 1, 0), ROCX_AQ_STS_INVALID);
    c = cmd_new(ROCX_AQ_OP_CREATE_ETH_RING);
    c.create_eth_ring.type = ROCX_ETH_RING_TX;
    c.create_eth_ring.qid = 3;
    c.create_eth_ring.log_depth = 6;
    c.create_eth_ring.base = htole64(GPA(TX_OFF));
    c.create_eth_ring.tc = 8;
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c.create_eth_ring.tc = 7;
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_RX, 0), ROCX_AQ_STS_OK);
    c = cmd_new(ROCX_AQ_OP_CREATE_ETH_RING);
    c.create_eth_ring.type = ROCX_ETH_RING_RX;
    c.create_eth_ring.log_depth = 6;
    c.create_eth_ring.buf_size = htole16(2048);
    c.create_eth_ring.base = htole64(GPA(RX_OFF));
    c.create_eth_ring.tc = 1;
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c.create_eth_ring.tc = 0;
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_TX, 3), ROCX_AQ_STS_OK);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_TX, 7), ROCX_AQ_STS_OK);

    CHECK_EQ(destroy_ring(ROCX_ETH_RING_TX, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_TX, 0), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_TX, 1), ROCX_AQ_STS_NOT_FOUND);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_TX, 8), ROCX_AQ_STS_INVALID);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_RX, 1), ROCX_AQ_STS_INVALID);
    CHECK_EQ(destroy_ring(7, 0), ROCX_AQ_STS_INVALID);
    CHECK_NO_GERR();
}

static void t_op_gid(void)
{
    union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_SET_GID), d;
    static const uint8_t gid[16] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1,
    };

    aq_enable(4);
    c.set_gid.index = htole16(127);
    c.set_gid.type = ROCX_GID_TYPE_ROCE_V2;
    c.set_gid.vlan = htole16(ROCX_VLAN_NONE);
    memcpy(c.set_gid.mac, fake_mac, 6);
    memcpy(c.set_gid.gid, gid, 16);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK(F->core.gid[127].valid);
    CHECK(!memcmp(F->core.gid[127].gid, gid, 16));
    /* Overwriting an entry is allowed. */
    c.set_gid.vlan = htole16(4095);
    c.set_gid.type = ROCX_GID_TYPE_ROCE_V1;
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(F->core.gid[127].vlan, 4095);
    c.set_gid.vlan = htole16(4096);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c.set_gid.vlan = htole16(ROCX_VLAN_NONE);
    c.set_gid.index = htole16(128);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c.set_gid.index = htole16(0);
    c.set_gid.type = 2;
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c.set_gid.type = ROCX_GID_TYPE_ROCE_V2;
    c.set_gid.mac[0] = 0x01;
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    CHECK(!F->core.gid[0].valid);

    d = cmd_new(ROCX_AQ_OP_DEL_GID);
    d.del_gid.index = htole16(127);
    CHECK_EQ(aq_exec(&d, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(aq_exec(&d, NULL, NULL), ROCX_AQ_STS_NOT_FOUND);
    d.del_gid.index = htole16(128);
    CHECK_EQ(aq_exec(&d, NULL, NULL), ROCX_AQ_STS_INVALID);
    CHECK_NO_GERR();
}

static void t_op_uctx_pd(void)
{
    union rocx_aq_cmd c;
    uint32_t res, i, pd_user;

    aq_enable(4);
    for (i = 1; i <= 255; i++) {
        c = cmd_new(ROCX_AQ_OP_ALLOC_UCTX);
        CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
        CHECK_EQ(res, i);
    }
    CHECK_EQ(aq_op(ROCX_AQ_OP_ALLOC_UCTX), ROCX_AQ_STS_NO_RESOURCE);

    c = cmd_new(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(0);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c.uctx.uctx = htole32(256);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c.uctx.uctx = htole32(7);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_NOT_FOUND);
    c = cmd_new(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(res, 7);   /* the freed page comes back */

    /* PDs: the kernel's, a context's, and the limits. */
    c = cmd_new(ROCX_AQ_OP_CREATE_PD);
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(res, 1);
    c.pd.uctx = htole32(7);
    CHECK_EQ(aq_exec(&c, &pd_user, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(pd_user, 2);
    c.pd.uctx = htole32(256);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    /* A context with a PD cannot go away. */
    c = cmd_new(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(7);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_BAD_STATE);
    c = cmd_new(ROCX_AQ_OP_DESTROY_PD);
    c.pd.pdn = htole32(pd_user);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_NOT_FOUND);
    c.pd.pdn = htole32(0);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c.pd.pdn = htole32(1025);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    c = cmd_new(ROCX_AQ_OP_DEALLOC_UCTX);
    c.uctx.uctx = htole32(7);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    c = cmd_new(ROCX_AQ_OP_CREATE_PD);
    c.pd.uctx = htole32(7);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_NOT_FOUND);

    c = cmd_new(ROCX_AQ_OP_CREATE_PD);
    for (i = 2; i <= 1024; i++) {
        CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
        CHECK_EQ(res, i);
    }
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_NO_RESOURCE);
    c = cmd_new(ROCX_AQ_OP_DESTROY_PD);
    c.pd.pdn = htole32(1024);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_NO_GERR();
}

static void t_op_unsupported(void)
{
    static const uint16_t ops[] = {
        0x05, 0x06, 0x07, 0x0c, 0x0f, 0x19, 0x1f,
        0xff, 0x100, 0xffff,
    };
    unsigned i;

    aq_enable(4);
    for (i = 0; i < ARRAY_SIZE(ops); i++) {
        CHECK_EQ(aq_op(ops[i]), ROCX_AQ_STS_UNSUPPORTED);
    }
    CHECK_EQ(counter(ROCX_STAT_AQ_ERRORS), ARRAY_SIZE(ops));
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    CHECK_NO_GERR();
}

static void t_eq_events(void)
{
    struct rocx_eqe *e;
    uint32_t i;

    aq_enable(4);
    CHECK_EQ(create_eq(0, 4, 2), ROCX_AQ_STS_OK);

    /* A guest error becomes a GUEST_ERROR event; a new EQ is armed. */
    wr(ROCX_REG_ID, 0);
    CHECK_GERR(ROCX_GERR_REG_READONLY);
    fake_run(F);
    e = eqe(0, 4, 0);
    CHECK_EQ(le16toh(e->type), ROCX_EQE_GUEST_ERROR);
    CHECK_EQ(e->flags, ROCX_EQE_PHASE);
    CHECK_EQ(le32toh(e->data), rd(ROCX_REG_LAST_GUEST_ERR));
    CHECK_EQ(le32toh(e->data), ROCX_GERR_REG_READONLY | ROCX_REG_ID << 16);
    CHECK_EQ(F->irqs[2], 1);

    /* Not armed again: the next event is written without an interrupt. */
    wr(ROCX_REG_SCRATCH + 2, 0);
    CHECK_GERR(ROCX_GERR_REG_UNKNOWN);
    fake_run(F);
    CHECK_EQ(le16toh(eqe(0, 4, 1)->type), ROCX_EQE_GUEST_ERROR);
    CHECK_EQ(le32toh(eqe(0, 4, 1)->data) >> 16, ROCX_REG_SCRATCH + 2);
    CHECK_EQ(F->irqs[2], 1);
    /* Arming with unread events interrupts at once. */
    db(0, ROCX_DB_EQ, 0, 1, true);
    fake_run(F);
    CHECK_EQ(F->irqs[2], 2);
    /* Arming with none pending waits for the next event. */
    db(0, ROCX_DB_EQ, 0, 2, true);
    fake_run(F);
    CHECK_EQ(F->irqs[2], 2);
    CHECK_NO_GERR();

    /* Many errors before the engine runs: one event with the latest. */
    for (i = 0; i < 100; i++) {
        wr(ROCX_REG_CAPS, i);
    }
    wr(ROCX_REG_VERSION, 0);
    gerr_mark = F->gerrs;
    fake_run(F);
    CHECK_EQ(F->irqs[2], 3);
    CHECK_EQ(le32toh(eqe(0, 4, 2)->data) >> 16, ROCX_REG_VERSION);
    CHECK_EQ(eqe(0, 4, 3)->type, 0);

    /* Consumer beyond the producer is refused. */
    db(0, ROCX_DB_EQ, 0, 5, false);
    CHECK_GERR(ROCX_GERR_DB_INDEX);
    fake_run(F);    /* that error is itself event 3 */
    db(0, ROCX_DB_EQ, 0, 4, false);
    CHECK_NO_GERR();
    db(0, ROCX_DB_EQ, 0, 3, false);   /* backwards */
    CHECK_GERR(ROCX_GERR_DB_INDEX);
    fake_run(F);
    db(0, ROCX_DB_EQ, 0, 5, false);
    CHECK_NO_GERR();

    /* Wrap the 16-entry ring a few times: phase flips per pass. */
    for (i = 5; i < 60; i++) {
        wr(ROCX_REG_ID, 0);
        fake_run(F);
        e = eqe(0, 4, i);
        CHECK_EQ(le16toh(e->type), ROCX_EQE_GUEST_ERROR);
        CHECK_EQ(e->flags & ROCX_EQE_PHASE, (i >> 4) & 1 ? 0 : 1);
        db(0, ROCX_DB_EQ, 0, i + 1, false);
    }
    gerr_mark = F->gerrs;
    CHECK_EQ(counter(ROCX_STAT_EQ_OVERFLOWS), 0);
}

static void t_eq_overflow(void)
{
    uint32_t i;
    uint64_t gerrs;

    aq_enable(4);
    CHECK_EQ(create_eq(0, 4, 0), ROCX_AQ_STS_OK);
    /* Sixteen events fill EQ 0; the driver never consumes. */
    for (i = 0; i < 16; i++) {
        wr(ROCX_REG_ID, 0);
        fake_run(F);
    }
    CHECK_EQ(counter(ROCX_STAT_EQ_OVERFLOWS), 0);
    gerrs = F->gerrs;
    wr(ROCX_REG_ID, 0);
    fake_run(F);
    /* Lost, counted, recorded; EQ 0 cannot carry its own overflow. */
    CHECK_EQ(counter(ROCX_STAT_EQ_OVERFLOWS), 1);
    CHECK_EQ(F->gerrs, gerrs + 2);
    CHECK_EQ(F->last_gerr_code, ROCX_GERR_EQ_OVERFLOW);
    CHECK(!F->scheduled);
    CHECK_EQ(le16toh(eqe(0, 4, 0)->type), ROCX_EQE_GUEST_ERROR);
    CHECK_EQ(eqe(0, 4, 0)->flags, ROCX_EQE_PHASE);  /* not overwritten */
    /*
     * After consuming, events flow again, behind an EQ_OVERFLOW that
     * counts the one lost (contract 1.2).
     */
    db(0, ROCX_DB_EQ, 0, 16, true);
    wr(ROCX_REG_ID, 0);
    fake_run(F);
    CHECK_EQ(le16toh(eqe(0, 4, 16)->type), ROCX_EQE_EQ_OVERFLOW);
    CHECK_EQ(eqe(0, 4, 16)->flags, 0);
    CHECK_EQ(le32toh(eqe(0, 4, 16)->data), 0);
    CHECK_EQ(le64toh(eqe(0, 4, 16)->info), 1);
    CHECK_EQ(le16toh(eqe(0, 4, 17)->type), ROCX_EQE_GUEST_ERROR);
    CHECK_EQ(eqe(0, 4, 17)->flags, 0);
    CHECK_EQ(counter(ROCX_STAT_EQ_OVERFLOWS), 1);

    /* An EQ in memory the device cannot write: reported once, then quiet. */
    wr(ROCX_REG_AQ_CTRL, 0);
    wr(ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET);
    aq_enable(4);
    F->fault_addr = GPA(EQ_OFF(0));
    F->fault_len = 16 * 16;
    CHECK_EQ(create_eq(0, 4, 0), ROCX_AQ_STS_OK);
    gerrs = F->gerrs;
    wr(ROCX_REG_ID, 0);
    fake_run(F);
    CHECK_EQ(F->gerrs, gerrs + 2);
    CHECK_EQ(F->last_gerr_code, ROCX_GERR_DMA);
    wr(ROCX_REG_ID, 0);
    fake_run(F);
    CHECK_EQ(F->gerrs, gerrs + 3);
    F->fault_len = 0;
    /* Destroying and re-creating the EQ recovers it. */
    CHECK_EQ(aq_exec(&(union rocx_aq_cmd){
        .destroy_eq.hdr.opcode = htole16(ROCX_AQ_OP_DESTROY_EQ) }, NULL, NULL),
        ROCX_AQ_STS_OK);
    CHECK_EQ(create_eq(0, 4, 0), ROCX_AQ_STS_OK);
    wr(ROCX_REG_ID, 0);
    fake_run(F);
    CHECK_EQ(le16toh(eqe(0, 4, 0)->type), ROCX_EQE_GUEST_ERROR);

    /*
     * The async event queue itself never grows without bound; what it
     * cannot hold, and what EQ 0 then cannot, is counted and reported.
     */
    admin_up();
    fake_run(F);
    db(0, ROCX_DB_EQ, 0, F->core.eq[0].pi, false);     /* EQ 0 empty */
    gerrs = counter(ROCX_STAT_EQ_OVERFLOWS);
    for (i = 0; i < 3000; i++) {
        fake_set_carrier(F, i & 1);
    }
    CHECK_EQ(F->core.evq_count, ROCX_CORE_EVQ_LEN);
    CHECK_EQ(counter(ROCX_STAT_EQ_OVERFLOWS), gerrs + 3000 - ROCX_CORE_EVQ_LEN);
    CHECK_EQ(counter(ROCX_STAT_LINK_CHANGES), 1 + 3000);
    i = F->core.eq[0].pi;
    fake_run(F);
    CHECK_EQ(F->core.evq_count, 0);
    /* The marker for the queue's losses, then 15 events; the rest lost. */
    CHECK_EQ(le16toh(eqe(0, 4, i)->type), ROCX_EQE_EQ_OVERFLOW);
    CHECK_EQ(le64toh(eqe(0, 4, i)->info), 3000 - ROCX_CORE_EVQ_LEN);
    CHECK_EQ(le16toh(eqe(0, 4, i + 1)->type), ROCX_EQE_LINK_CHANGE);
    CHECK_EQ(le16toh(eqe(0, 4, i + 15)->type), ROCX_EQE_LINK_CHANGE);
    CHECK_EQ(F->core.eq[0].pi, i + 16);
    CHECK_EQ(counter(ROCX_STAT_EQ_OVERFLOWS), gerrs + 3000 - 15);
    /* Consumed: the rest of the count comes at once, not at an event. */
    db(0, ROCX_DB_EQ, 0, i + 16, false);
    fake_run(F);
    CHECK_EQ(le16toh(eqe(0, 4, i + 16)->type), ROCX_EQE_EQ_OVERFLOW);
    CHECK_EQ(le64toh(eqe(0, 4, i + 16)->info), ROCX_CORE_EVQ_LEN - 15);
    CHECK_EQ(F->core.eq[0].lost, 0);
}

/*
 * EQ_OVERFLOW (contract 1.2) on an EQ other than 0, at the edges: a
 * marker waits for room, takes the last free slot and then loses the
 * event that brought it, and signals an armed EQ like any entry.
 */
static void t_eq_overflow_report(void)
{
    uint32_t i;

    aq_enable(4);
    CHECK_EQ(create_eq(0, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_eq(3, 4, 3), ROCX_AQ_STS_OK);
    for (i = 0; i < 16; i++) {
        rocx_eq_post(&F->core, 3, ROCX_EQE_COMPLETION, i, 0);
    }
    CHECK_EQ(F->irqs[3], 1);                /* armed once, at the first */
    rocx_eq_post(&F->core, 3, ROCX_EQE_COMPLETION, 16, 0);
    rocx_eq_post(&F->core, 3, ROCX_EQE_COMPLETION, 17, 0);
    CHECK_EQ(F->gerrs, gerr_mark + 2);      /* one guest error each */
    CHECK_EQ(F->last_gerr_code, ROCX_GERR_EQ_OVERFLOW);
    CHECK_EQ(F->core.eq[3].lost, 2);
    CHECK_EQ(counter(ROCX_STAT_EQ_OVERFLOWS), 2);
    fake_run(F);                /* the GUEST_ERROR events go to EQ 0 */
    gerr_mark = F->gerrs;
    CHECK_EQ(F->core.eq[3].pi, 16);         /* no room: no marker yet */

    /* One slot free: the next event brings the marker there and is lost. */
    db(0, ROCX_DB_EQ, 3, 1, false);
    rocx_eq_post(&F->core, 3, ROCX_EQE_COMPLETION, 18, 0);
    CHECK_EQ(F->core.eq[3].pi, 17);
    CHECK_EQ(le16toh(eqe(3, 4, 16)->type), ROCX_EQE_EQ_OVERFLOW);
    CHECK_EQ(le32toh(eqe(3, 4, 16)->data), 3);
    CHECK_EQ(le64toh(eqe(3, 4, 16)->info), 2);
    CHECK_EQ(F->core.eq[3].lost, 1);
    CHECK_EQ(counter(ROCX_STAT_EQ_OVERFLOWS), 3);
    fake_run(F);
    gerr_mark = F->gerrs;

    /* Consumed and armed: the marker for the last loss signals. */
    db(0, ROCX_DB_EQ, 3, 17, true);
    fake_run(F);
    CHECK_EQ(F->core.eq[3].pi, 18);
    CHECK_EQ(le16toh(eqe(3, 4, 17)->type), ROCX_EQE_EQ_OVERFLOW);
    CHECK_EQ(le64toh(eqe(3, 4, 17)->info), 1);
    CHECK_EQ(F->core.eq[3].lost, 0);
    CHECK_EQ(F->irqs[3], 2);
    /* And then events without markers. */
    db(0, ROCX_DB_EQ, 3, 18, true);
    rocx_eq_post(&F->core, 3, ROCX_EQE_COMPLETION, 19, 0);
    CHECK_EQ(le16toh(eqe(3, 4, 18)->type), ROCX_EQE_COMPLETION);
    CHECK_EQ(le32toh(eqe(3, 4, 18)->data), 19);
    /* Destroying the EQ forgets the count. */
    F->core.eq[3].lost = 5;
    CHECK_EQ(aq_exec(&(union rocx_aq_cmd){
        .destroy_eq.hdr.opcode = htole16(ROCX_AQ_OP_DESTROY_EQ),
        .destroy_eq.eqn = htole16(3) }, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(create_eq(3, 4, 3), ROCX_AQ_STS_OK);
    rocx_eq_post(&F->core, 3, ROCX_EQE_COMPLETION, 20, 0);
    CHECK_EQ(le16toh(eqe(3, 4, 0)->type), ROCX_EQE_COMPLETION);
    CHECK_NO_GERR();
}

/*
 * x-aq-stall: the command is fetched (AQ_HEAD moves past it) and then
 * neither executed nor completed; nothing after it runs, a queue
 * restart does not help, and only a reset ends it and turns the knob off.
 */
static void t_aq_stall(void)
{
    union rocx_aq_cmd c;
    unsigned slot;

    aq_enable(3);
    CHECK(!rocx_core_set_aq_stall(&F->core, -2));
    CHECK(!rocx_core_set_aq_stall(&F->core, ROCX_CORE_AQ_STALL_ANY + 1));
    CHECK(rocx_core_aq_stall(&F->core) == ROCX_CORE_AQ_STALL_OFF);
    CHECK(rocx_core_set_aq_stall(&F->core, ROCX_AQ_OP_CREATE_PD));
    CHECK_EQ(rocx_core_aq_stall(&F->core), ROCX_AQ_OP_CREATE_PD);
    /* Other opcodes run. */
    CHECK_EQ(aq_op(ROCX_AQ_OP_NOP), ROCX_AQ_STS_OK);
    c = cmd_new(ROCX_AQ_OP_CREATE_PD);
    slot = aq_put(&c);
    c = cmd_new(ROCX_AQ_OP_NOP);
    aq_put(&c);
    aq_kick();
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 2);
    CHECK_EQ(aq_cqe(slot)->flags, 0);       /* no completion */
    CHECK_EQ(aq_cqe(slot + 1)->flags, 0);
    CHECK(!F->core.pd_owner[0]);            /* not executed */
    CHECK_EQ(counter(ROCX_STAT_AQ_COMMANDS), 1);
    CHECK(!F->scheduled);
    /* A restart of the queue does not revive it. */
    aq_enable(3);
    CHECK_EQ(rocx_core_aq_stall(&F->core), ROCX_AQ_OP_CREATE_PD);
    c = cmd_new(ROCX_AQ_OP_NOP);
    aq_put(&c);
    aq_kick();
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 0);
    CHECK_EQ(aq_cqe(0)->flags, 0);
    /* A reset does, and disarms the knob. */
    wr(ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET);
    CHECK(rocx_core_aq_stall(&F->core) == ROCX_CORE_AQ_STALL_OFF);
    aq_enable(3);
    CHECK_EQ(aq_op(ROCX_AQ_OP_CREATE_PD), ROCX_AQ_STS_OK);
    /* "Any": the very next command. */
    CHECK(rocx_core_set_aq_stall(&F->core, ROCX_CORE_AQ_STALL_ANY));
    c = cmd_new(ROCX_AQ_OP_NOP);
    slot = aq_put(&c);
    aq_kick();
    CHECK_EQ(rd(ROCX_REG_AQ_HEAD), 2);
    CHECK_EQ(aq_cqe(slot)->flags, 0);
    CHECK_NO_GERR();
}

static void t_intr_ctrl(void)
{
    bring_up();
    wr(ROCX_REG_INTR_CTRL(1), ROCX_INTR_MASK);
    CHECK_EQ(rd(ROCX_REG_INTR_CTRL(1)), ROCX_INTR_MASK);
    tx_post(6, 0, 60, 0);
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    fake_run(F);
    CHECK_EQ(F->irqs[1], 0);
    CHECK_EQ(rd(ROCX_REG_INTR_CTRL(1)), ROCX_INTR_MASK | ROCX_INTR_PENDING);
    /* Writing back what was read keeps it masked and pending. */
    wr(ROCX_REG_INTR_CTRL(1), ROCX_INTR_MASK | ROCX_INTR_PENDING);
    CHECK_EQ(rd(ROCX_REG_INTR_CTRL(1)), ROCX_INTR_MASK | ROCX_INTR_PENDING);
    CHECK_EQ(F->irqs[1], 0);
    /* Unmask: signalled once, PENDING cleared. */
    wr(ROCX_REG_INTR_CTRL(1), 0);
    CHECK_EQ(F->irqs[1], 1);
    CHECK_EQ(rd(ROCX_REG_INTR_CTRL(1)), 0);
    wr(ROCX_REG_INTR_CTRL(1), 0);
    CHECK_EQ(F->irqs[1], 1);
    /* Writing PENDING alone does not invent an interrupt. */
    wr(ROCX_REG_INTR_CTRL(1), ROCX_INTR_PENDING);
    CHECK_EQ(rd(ROCX_REG_INTR_CTRL(1)), 0);
    CHECK_EQ(F->irqs[1], 1);
    CHECK_NO_GERR();
    wr(ROCX_REG_INTR_CTRL(7), 4);
    CHECK_GERR(ROCX_GERR_REG_VALUE);
    /* Unmasked: each completion batch signals. */
    tx_post(6, 0, 60, 0);
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    fake_run(F);
    CHECK_EQ(F->irqs[1], 2);
    CHECK_EQ(counter(ROCX_STAT_INTERRUPTS), F->irqs_total);
}

static void t_tx_exact_bytes(void)
{
    static const uint16_t lens[] = { 14, 60, 1514, 9018, 61 };
    unsigned i;

    bring_up();
    for (i = 0; i < ARRAY_SIZE(lens); i++) {
        tx_post(6, i, lens[i], i * 17);
    }
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    CHECK(F->scheduled);
    CHECK_EQ(F->nframes, 0);    /* the doorbell only latches */
    fake_run(F);
    CHECK_EQ(F->nframes, ARRAY_SIZE(lens));
    for (i = 0; i < ARRAY_SIZE(lens); i++) {
        uint8_t *src = mem(FRAME_OFF + (uint64_t)i * RXBUF_SIZE, lens[i]);

        CHECK_EQ(F->frame_len[i], lens[i]);
        CHECK(!memcmp(F->frames[i], src, lens[i]));
        CHECK_EQ(le16toh(tx_desc(i, 6)->status), ROCX_ETH_STS_DONE);
    }
    CHECK_EQ(counter(ROCX_STAT_TX_PACKETS), ARRAY_SIZE(lens));
    CHECK_EQ(counter(ROCX_STAT_TX_BYTES), 14 + 60 + 1514 + 9018 + 61);
    CHECK_EQ(F->irqs[1], 1);
    CHECK_NO_GERR();

    /* Around the 64-entry ring a few times. */
    for (i = 0; i < 200; i++) {
        tx_post(6, 0, 100, i);
        if (i % 50 == 49) {
            db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
            fake_run(F);
        }
    }
    CHECK_EQ(counter(ROCX_STAT_TX_PACKETS), ARRAY_SIZE(lens) + 200);
    CHECK_NO_GERR();
}

static void t_tx_errors(void)
{
    struct rocx_eth_tx_desc *d;

    bring_up();
    tx_post(6, 0, 13, 0);
    tx_post(6, 1, 9019, 0);
    tx_post(6, 2, 60, 0);
    tx_desc(2, 6)->flags = htole16(1);
    tx_post(6, 3, 60, 0);
    tx_desc(3, 6)->addr = htole64(0x1000);
    tx_post(6, 4, 60, 0);
    tx_desc(4, 6)->addr = htole64(0xfffffffffffffff0ULL);
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    fake_run(F);
    CHECK_EQ(F->nframes, 0);
    for (unsigned i = 0; i < 5; i++) {
        CHECK_EQ(le16toh(tx_desc(i, 6)->status),
                 ROCX_ETH_STS_DONE | ROCX_ETH_STS_ERR);
    }
    CHECK_EQ(counter(ROCX_STAT_TX_ERRORS), 5);
    CHECK_EQ(F->gerrs, gerr_mark + 5);
    CHECK_EQ(F->last_gerr_code, ROCX_GERR_DMA);
    gerr_mark = F->gerrs;

    /* A good one after the bad ones still goes out. */
    tx_post(6, 5, 60, 0);
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    fake_run(F);
    CHECK_EQ(F->nframes, 1);
    CHECK_NO_GERR();

    /* Link down: dropped and counted, yet DONE without ERR. */
    CHECK_EQ(set_port(ROCX_PORT_SET_ADMIN, 0, NULL, 0, 0), ROCX_AQ_STS_OK);
    tx_post(6, 6, 60, 0);
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    fake_run(F);
    CHECK_EQ(F->nframes, 1);
    CHECK_EQ(le16toh(tx_desc(6, 6)->status), ROCX_ETH_STS_DONE);
    CHECK_EQ(counter(ROCX_STAT_TX_DROPPED_LINK_DOWN), 1);
    admin_up();
    fake_set_carrier(F, false);
    tx_post(6, 7, 60, 0);
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    fake_run(F);
    CHECK_EQ(F->nframes, 1);
    CHECK_EQ(counter(ROCX_STAT_TX_DROPPED_LINK_DOWN), 2);

    /* The descriptor itself unreadable. */
    fake_set_carrier(F, true);
    d = tx_desc(tx_pi, 6);
    tx_post(6, 8, 60, 0);
    F->fault_addr = GPA(TX_OFF) + ((uint8_t *)d - (uint8_t *)mem(TX_OFF, 1));
    F->fault_len = 16;
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    fake_run(F);
    F->fault_len = 0;
    CHECK_EQ(F->nframes, 1);
    CHECK_EQ(counter(ROCX_STAT_TX_ERRORS), 6);
    CHECK_EQ(F->last_gerr_code, ROCX_GERR_DMA);
}

static void t_tx_budget(void)
{
    unsigned i;

    aq_enable(4);
    CHECK_EQ(create_ring(ROCX_ETH_RING_TX, 0, 12, 1, 0), ROCX_AQ_STS_OK);
    admin_up();
    for (i = 0; i < 1000; i++) {
        tx_post(12, 0, 60, i);
    }
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    F->scheduled = false;
    rocx_core_process(&F->core);
    CHECK_EQ(F->nframes, ROCX_CORE_TX_BUDGET);
    CHECK(F->scheduled);
    CHECK_EQ(fake_run(F), 3);
    CHECK_EQ(F->nframes, 1000);
    CHECK_EQ(F->irqs[1], 4);
    /* A full ring (depth entries ahead) is accepted; more is not. */
    for (i = 0; i < 4096; i++) {
        tx_post(12, 0, 60, i);
    }
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    CHECK_NO_GERR();
    db(0, ROCX_DB_ETH_TX, 0, tx_pi + 1, false);
    CHECK_GERR(ROCX_GERR_DB_INDEX);
    fake_run(F);
    CHECK_EQ(F->nframes, 1000 + 4096);
}

static void t_rx_posted_buffer(void)
{
    uint8_t frame[ROCX_MAX_FRAME];
    struct rocx_eth_rx_desc *d;
    size_t len;

    bring_up();
    rx_post(6, 4);
    CHECK(rocx_core_can_receive(&F->core));
    len = make_frame(frame, fake_mac, 100);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    d = rx_desc(0, 6);
    CHECK_EQ(le16toh(d->pkt_len), 100);
    CHECK_EQ(le16toh(d->status), ROCX_ETH_STS_DONE);
    CHECK(!memcmp(rx_buf(0, 6), frame, len));
    CHECK_EQ(rx_buf(0, 6)[100], 0xee);  /* nothing past the frame */
    CHECK_EQ(F->irqs[1], 1);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 1);
    CHECK_EQ(counter(ROCX_STAT_RX_BYTES), 100);

    /* A jumbo frame into the next buffer. */
    len = make_frame(frame, fake_mac, ROCX_MAX_FRAME);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(1, 6)->pkt_len), ROCX_MAX_FRAME);
    CHECK_EQ(le16toh(rx_desc(1, 6)->status), ROCX_ETH_STS_DONE);
    CHECK(!memcmp(rx_buf(1, 6), frame, len));
    CHECK_NO_GERR();

    /* A buffer the device cannot write: DONE|ERR, counted. */
    rx_desc(2, 6)->addr = htole64(0x2000);
    len = make_frame(frame, fake_mac, 60);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(2, 6)->status),
             ROCX_ETH_STS_DONE | ROCX_ETH_STS_ERR);
    CHECK_EQ(counter(ROCX_STAT_RX_ERRORS), 1);
    CHECK_GERR(ROCX_GERR_DMA);
}

static void t_rx_faults(void)
{
    uint8_t frame[100];
    size_t len = make_frame(frame, fake_mac, 100);

    bring_up();
    rx_post(6, 4);
    /* The descriptor cannot be read: the frame is lost, counted. */
    F->fault_addr = GPA(RX_OFF);
    F->fault_len = 16;
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_GERR(ROCX_GERR_DMA);
    CHECK_EQ(counter(ROCX_STAT_RX_ERRORS), 1);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 0);
    /* Readable but its status cannot be written back. */
    F->fault_addr = GPA(RX_OFF) + 16 + 12;
    F->fault_len = 2;
    F->fault_writes_only = true;
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_GERR(ROCX_GERR_DMA);
    CHECK_EQ(counter(ROCX_STAT_RX_ERRORS), 2);
    CHECK(!memcmp(rx_buf(1, 6), frame, len));
    F->fault_len = 0;
    F->fault_writes_only = false;
    /* The next buffer works; the consumer moved past both. */
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(2, 6)->status), ROCX_ETH_STS_DONE);
    CHECK_NO_GERR();
}

/*
 * With no buffer posted, frames for the ring wait in the device: QEMU's
 * queue never holds one (can_receive() stays true, receive() takes every
 * frame), they go out in order as buffers are posted, and frames that
 * come meanwhile queue behind them even if a buffer is free.  The link
 * going down or the RX ring going away drops what waits; with no ring at
 * all nothing waits.
 */
static void t_rx_no_buffer(void)
{
    uint8_t frame[200];
    size_t len;
    unsigned i;

    bring_up();
    for (i = 0; i < 3; i++) {
        len = make_frame(frame, fake_mac, 80 + i);
        CHECK(rocx_core_can_receive(&F->core));
        CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    }
    CHECK_EQ(counter(ROCX_STAT_RX_NO_BUFFER), 3);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 0);
    fake_run(F);
    CHECK_EQ(F->rx_resumes, 0);

    /* Two buffers: the first two frames, from the engine. */
    rx_post(6, 2);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 2);
    CHECK_EQ(le16toh(rx_desc(0, 6)->pkt_len), 80);
    CHECK_EQ(le16toh(rx_desc(1, 6)->pkt_len), 81);
    /* A buffer posted, but before the engine ran a fourth frame came. */
    rx_desc(2, 6)->addr = htole64(GPA(FRAME_OFF + 2ULL * RXBUF_SIZE));
    rx_pi++;
    db(0, ROCX_DB_ETH_RX, 0, rx_pi, false);
    len = make_frame(frame, fake_mac, 90);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 2);
    fake_run(F);
    CHECK_EQ(le16toh(rx_desc(2, 6)->pkt_len), 82);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 3);
    rx_post(6, 1);
    CHECK_EQ(le16toh(rx_desc(3, 6)->pkt_len), 90);
    CHECK(!memcmp(rx_buf(3, 6), frame, len));
    CHECK_EQ(counter(ROCX_STAT_RX_NO_BUFFER), 4);

    /* Waiting, then the link goes down: those frames are dropped. */
    for (i = 0; i < 3; i++) {
        CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    }
    fake_set_carrier(F, false);
    fake_run(F);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_LINK_DOWN), 3);
    fake_set_carrier(F, true);
    rx_post(6, 4);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 4);
    CHECK_EQ(le16toh(rx_desc(4, 6)->status), 0);

    /* Four buffers for eight frames; then the RX ring goes away. */
    for (i = 0; i < 8; i++) {
        CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    }
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 8);
    CHECK_EQ(counter(ROCX_STAT_RX_NO_BUFFER), 11);
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_RX, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 6, 1, RXBUF_SIZE),
             ROCX_AQ_STS_OK);
    rx_pi = 0;
    rx_post(6, 8);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 8);
    /* No RX ring at all: frames are dropped at once. */
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_RX, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(counter(ROCX_STAT_RX_NO_BUFFER), 12);
    CHECK_EQ(counter(ROCX_STAT_RX_DISCARDS), 0);
    CHECK_EQ(F->rx_resumes, 0);
    CHECK_NO_GERR();
}

/*
 * With bus mastering off the driver has stopped the device's DMA on
 * purpose (before a reset, say): DMA that fails then is nobody's mistake
 * and no guest error, while the frame is still lost and counted.  With
 * it on again the same fault is the driver's.
 */
static void t_rx_bus_master_off(void)
{
    uint8_t frame[100];
    size_t len = make_frame(frame, fake_mac, 100);
    unsigned before;

    bring_up();
    rx_post(6, 4);
    before = F->gerrs;
    rocx_core_set_bus_master(&F->core, false);
    F->fault_addr = GPA(RX_OFF);
    F->fault_len = 16;
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(F->gerrs, before);
    CHECK_EQ(rd(ROCX_REG_GUEST_ERR_COUNT), before);
    CHECK_EQ(counter(ROCX_STAT_RX_ERRORS), 1);
    rocx_core_set_bus_master(&F->core, true);
    F->fault_addr = GPA(RX_OFF) + 16;
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_GERR(ROCX_GERR_DMA);
    CHECK_EQ(counter(ROCX_STAT_RX_ERRORS), 2);
    F->fault_len = 0;
}

/*
 * The device holds a bounded amount: a frame that finds its priority's
 * receive buffer full (64 KiB for priority 0 by default, 512 KiB in
 * eight) is dropped and counted, the ones that waited are delivered in
 * order, and posting buffers makes room again.
 */
static void t_rx_hold_bound(void)
{
    uint8_t frame[1000];
    unsigned i, held, sent = 0;

    bring_up();
    for (i = 0; i < 400; i++) {
        make_frame(frame, fake_mac, sizeof(frame));
        stl_be_p(frame + 14, sent++);
        CHECK_EQ(rocx_core_receive(&F->core, frame, sizeof(frame)),
                 sizeof(frame));
    }
    CHECK_EQ(counter(ROCX_STAT_RX_NO_BUFFER), 400);
    held = 400 - counter(ROCX_STAT_RX_DISCARDS);
    /* 64 KiB of frames: 65 of 1000 bytes. */
    CHECK_EQ(held, 65);
    CHECK_EQ(counter(ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_RX_DISCARDS)),
             400 - 65);
    CHECK_EQ(counter(ROCX_STAT_PRIO(0, ROCX_STAT_PRIO_RX_BUF_MAX)),
             65 * sizeof(frame));
    /* Tail drop: the frames that waited are the first ones. */
    rx_post(6, 64);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 64);
    for (i = 0; i < 64; i++) {
        CHECK_EQ(ldl_be_p(rx_buf(i, 6) + 14), i);
        CHECK_EQ(le16toh(rx_desc(i, 6)->pkt_len), sizeof(frame));
    }
    /* Room for more again; a small frame fits where a large one did not. */
    make_frame(frame, fake_mac, sizeof(frame));
    stl_be_p(frame + 14, 7777);
    CHECK_EQ(rocx_core_receive(&F->core, frame, sizeof(frame)),
             sizeof(frame));
    CHECK_EQ(counter(ROCX_STAT_RX_DISCARDS), 400 - held);
    while (counter(ROCX_STAT_RX_PACKETS) < held + 1) {
        uint64_t before = counter(ROCX_STAT_RX_PACKETS);

        rx_post(6, 64);
        if (counter(ROCX_STAT_RX_PACKETS) == before) {
            CHECK(!"posted buffers took nothing");
            break;
        }
    }
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), held + 1);
    /* The newest frame, behind all that waited. */
    CHECK_EQ(ldl_be_p(rx_buf(held, 6) + 14), 7777);

    /* One longer than any buffer waits too, and comes back TRUNC. */
    {
        static uint8_t big[ROCX_MAX_FRAME + 100];
        RocxEthRing *r = &F->core.rx[0];
        uint16_t idx;

        /* Fill the buffers still posted: these two must wait. */
        while (r->ci != r->pi) {
            CHECK_EQ(rocx_core_receive(&F->core, frame, 60), 60);
        }
        idx = r->ci;
        make_frame(big, fake_mac, sizeof(big));
        CHECK_EQ(rocx_core_receive(&F->core, big, sizeof(big)), sizeof(big));
        CHECK_EQ(rocx_core_receive(&F->core, frame, 100), 100);
        rx_post(6, 2);
        CHECK_EQ(le16toh(rx_desc(idx, 6)->status),
                 ROCX_ETH_STS_DONE | ROCX_ETH_STS_TRUNC);
        CHECK_EQ(le16toh(rx_desc(idx + 1, 6)->status), ROCX_ETH_STS_DONE);
        CHECK_EQ(le16toh(rx_desc(idx + 1, 6)->pkt_len), 100);
        CHECK_EQ(counter(ROCX_STAT_RX_TRUNCATED), 1);
    }
    CHECK_NO_GERR();
}

/*
 * MAC control frames (EtherType 0x8808) are the device's: never written
 * to the ring, never waiting for a buffer, counted as filtered.
 */
static void t_rx_mac_control(void)
{
    static const uint8_t pause_dst[6] = { 0x01, 0x80, 0xc2, 0, 0, 0x01 };
    uint8_t frame[60];
    size_t len = make_frame(frame, pause_dst, sizeof(frame));

    frame[12] = 0x88;
    frame[13] = 0x08;
    frame[14] = 0x01;           /* PFC: opcode 0x0101 */
    frame[15] = 0x01;
    bring_up();
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(counter(ROCX_STAT_RX_NO_BUFFER), 0);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_FILTER), 1);
    rx_post(6, 4);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 0);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_FILTER), 2);
    CHECK_EQ(le16toh(rx_desc(0, 6)->status), 0);
    /* Even in promiscuous mode. */
    CHECK_EQ(set_port(ROCX_PORT_SET_RX_MODE, 0, NULL, 0,
                      ROCX_RX_MODE_PROMISC), ROCX_AQ_STS_OK);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 0);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_FILTER), 3);
    CHECK_NO_GERR();
}

/* SET_MCAST_MACS with n entries from macs; the list goes at BUF_OFF. */
static unsigned set_mcast(const uint8_t (*macs)[6], unsigned n)
{
    union rocx_aq_cmd c = cmd_new(ROCX_AQ_OP_SET_MCAST_MACS);
    struct rocx_mcast_mac *l = mem(BUF_OFF, 8 * 128);
    unsigned i;

    memset(l, 0, 8 * 128);
    for (i = 0; i < n && i < 128; i++) {
        memcpy(l[i].mac, macs[i], 6);
    }
    c.set_mcast_macs.addr = htole64(GPA(BUF_OFF));
    c.set_mcast_macs.count = htole32(n);
    return aq_exec(&c, NULL, NULL);
}

/* Whether a frame to dst reaches the ring (buffers are posted). */
static bool rx_accepts(const uint8_t *dst)
{
    uint8_t frame[64];
    uint64_t before = counter(ROCX_STAT_RX_PACKETS);
    size_t len = make_frame(frame, dst, sizeof(frame));

    if (rx_pi - (uint16_t)counter(ROCX_STAT_RX_PACKETS) < 4) {
        rx_post(6, 8);
    }
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    return counter(ROCX_STAT_RX_PACKETS) == before + 1;
}

/*
 * The multicast filter: IDENTIFY announces it; off until the first
 * SET_MCAST_MACS (every group accepted, as in 1.1), then exactly the
 * listed groups, broadcast always, everything under ALLMULTI or PROMISC.
 * Bad lists are refused whole and leave the filter as it was; an empty
 * list drops every group; a reset turns the filter off again.
 */
static void t_mcast_filter(void)
{
    static const uint8_t g1[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
    static const uint8_t g2[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x04 };
    static const uint8_t nd[6] = { 0x33, 0x33, 0xff, 0x00, 0x00, 0x02 };
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 0x99 };
    static uint8_t many[65][6];
    union rocx_aq_cmd c;
    struct rocx_identify *id = mem(BUF_OFF, 256);
    uint64_t mcast, filtered;
    unsigned i;

    bring_up();
    c = cmd_new(ROCX_AQ_OP_IDENTIFY);
    c.identify.addr = htole64(GPA(BUF_OFF));
    c.identify.len = htole32(256);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK(le64toh(id->caps2) & ROCX_CAP2_MCAST_FILTER);
    CHECK_EQ(le32toh(id->max_mcast_macs), 64);

    /* Off: any group. */
    CHECK(rx_accepts(g2));
    CHECK(rx_accepts(nd));
    /* On: the listed groups. */
    {
        const uint8_t l[2][6] = {
            { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 },
            { 0x33, 0x33, 0xff, 0x00, 0x00, 0x02 },
        };

        CHECK_EQ(set_mcast(l, 2), ROCX_AQ_STS_OK);
    }
    mcast = counter(ROCX_STAT_RX_MULTICAST);
    filtered = counter(ROCX_STAT_RX_DROPPED_FILTER);
    CHECK(rx_accepts(g1));
    CHECK(rx_accepts(nd));
    CHECK(!rx_accepts(g2));
    CHECK(rx_accepts(bcast));
    CHECK(rx_accepts(fake_mac));
    CHECK(!rx_accepts(other));
    CHECK_EQ(counter(ROCX_STAT_RX_MULTICAST), mcast + 2);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_FILTER), filtered + 2);
    /* A filtered group never waits for a buffer either. */
    CHECK_EQ(counter(ROCX_STAT_RX_NO_BUFFER), 0);
    /* ALLMULTI and PROMISC take every group. */
    CHECK_EQ(set_port(ROCX_PORT_SET_RX_MODE, 0, NULL, 0,
                      ROCX_RX_MODE_ALLMULTI), ROCX_AQ_STS_OK);
    CHECK(rx_accepts(g2));
    CHECK(!rx_accepts(other));
    CHECK_EQ(set_port(ROCX_PORT_SET_RX_MODE, 0, NULL, 0,
                      ROCX_RX_MODE_PROMISC), ROCX_AQ_STS_OK);
    CHECK(rx_accepts(g2));
    CHECK(rx_accepts(other));
    CHECK_EQ(set_port(ROCX_PORT_SET_RX_MODE, 0, NULL, 0, 0), ROCX_AQ_STS_OK);
    CHECK(!rx_accepts(g2));

    /* Refused whole, the filter as it was: too many, ... */
    for (i = 0; i < 65; i++) {
        memcpy(many[i], g2, 6);
        many[i][5] = i;
    }
    CHECK_EQ(set_mcast(many, 65), ROCX_AQ_STS_INVALID);
    /* ...a unicast entry, ... */
    memcpy(many[3], other, 6);
    CHECK_EQ(set_mcast(many, 8), ROCX_AQ_STS_INVALID);
    /* ...reserved bytes set, ... */
    memcpy(many[3], g2, 6);
    CHECK_EQ(set_mcast(many, 8), ROCX_AQ_STS_OK);
    CHECK(rx_accepts(many[3]));
    CHECK(!rx_accepts(g1));
    ((struct rocx_mcast_mac *)mem(BUF_OFF, 64))[5].rsvd = htole16(1);
    c = cmd_new(ROCX_AQ_OP_SET_MCAST_MACS);
    c.set_mcast_macs.addr = htole64(GPA(BUF_OFF));
    c.set_mcast_macs.count = htole32(8);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_INVALID);
    /* ...or a list the device cannot read. */
    c.set_mcast_macs.addr = htole64(0x1000);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_DMA_ERROR);
    CHECK_GERR(ROCX_GERR_DMA);
    CHECK(rx_accepts(many[3]));
    CHECK(rx_accepts(many[7]));
    CHECK(!rx_accepts(many[8]));
    /* A full list: its last entry counts. */
    CHECK_EQ(set_mcast(many, 64), ROCX_AQ_STS_OK);
    CHECK(rx_accepts(many[63]));
    CHECK(!rx_accepts(g1));
    /* Empty: no group, but broadcast; the address is not read. */
    c.set_mcast_macs.addr = htole64(0x1000);
    c.set_mcast_macs.count = htole32(0);
    CHECK_EQ(aq_exec(&c, NULL, NULL), ROCX_AQ_STS_OK);
    CHECK(!rx_accepts(many[63]));
    CHECK(rx_accepts(bcast));
    CHECK_NO_GERR();

    /* A reset turns the filter off. */
    wr(ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET);
    rx_pi = 0;
    bring_up();
    CHECK(rx_accepts(g2));
    CHECK_NO_GERR();
}

static void t_rx_trunc(void)
{
    uint8_t frame[ROCX_MAX_FRAME + 100];
    size_t len;

    aq_enable(4);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 6, 3, 64), ROCX_AQ_STS_OK);
    admin_up();
    rx_post(6, 8);
    len = make_frame(frame, fake_mac, 64);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(0, 6)->status), ROCX_ETH_STS_DONE);
    len = make_frame(frame, fake_mac, 65);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(1, 6)->status),
             ROCX_ETH_STS_DONE | ROCX_ETH_STS_TRUNC);
    CHECK_EQ(le16toh(rx_desc(1, 6)->pkt_len), 65);
    CHECK_EQ(rx_buf(1, 6)[0], 0xee);    /* the buffer is untouched */
    CHECK_EQ(counter(ROCX_STAT_RX_TRUNCATED), 1);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 1);
    CHECK_EQ(F->irqs[3], 2);

    /* Even a 64 KiB buffer takes no frame beyond ROCX_MAX_FRAME. */
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_RX, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 6, 3, 0xffff),
             ROCX_AQ_STS_OK);
    rx_pi = 0;
    rx_post(6, 2);
    len = make_frame(frame, fake_mac, ROCX_MAX_FRAME + 1);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(0, 6)->status),
             ROCX_ETH_STS_DONE | ROCX_ETH_STS_TRUNC);
    CHECK_EQ(counter(ROCX_STAT_RX_TRUNCATED), 2);
    CHECK_NO_GERR();
}

static void t_rx_filter(void)
{
    static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 0x99 };
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
    static const uint8_t mine2[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
    uint8_t frame[200];
    size_t len;

    bring_up();
    rx_post(6, 32);
    len = make_frame(frame, other, 60);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_FILTER), 1);
    CHECK_EQ(le16toh(rx_desc(0, 6)->status), 0);    /* no buffer used */
    len = make_frame(frame, bcast, 60);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(0, 6)->status), ROCX_ETH_STS_DONE);
    CHECK_EQ(counter(ROCX_STAT_RX_BROADCAST), 1);
    len = make_frame(frame, mcast, 60);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(1, 6)->status), ROCX_ETH_STS_DONE);
    CHECK_EQ(counter(ROCX_STAT_RX_MULTICAST), 1);
    /* Runts never pass. */
    CHECK_EQ(rocx_core_receive(&F->core, frame, 13), 13);
    CHECK_EQ(rocx_core_receive(&F->core, frame, 0), 0);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_FILTER), 3);

    /* Promiscuous: other unicast accepted. */
    CHECK_EQ(set_port(ROCX_PORT_SET_RX_MODE, 0, NULL, 0,
                      ROCX_RX_MODE_PROMISC), ROCX_AQ_STS_OK);
    len = make_frame(frame, other, 60);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(2, 6)->status), ROCX_ETH_STS_DONE);
    CHECK_EQ(set_port(ROCX_PORT_SET_RX_MODE, 0, NULL, 0,
                      ROCX_RX_MODE_ALLMULTI), ROCX_AQ_STS_OK);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_FILTER), 4);

    /* A new port MAC: frames follow it, the old one is filtered. */
    CHECK_EQ(set_port(ROCX_PORT_SET_MAC, 0, mine2, 0, 0), ROCX_AQ_STS_OK);
    len = make_frame(frame, mine2, 60);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(3, 6)->status), ROCX_ETH_STS_DONE);
    len = make_frame(frame, fake_mac, 60);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_FILTER), 5);
    CHECK_EQ(counter(ROCX_STAT_RX_PACKETS), 4);

    /* Filtered frames never stall the queue even with no buffers. */
    rx_pi = 0;
    CHECK_EQ(destroy_ring(ROCX_ETH_RING_RX, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(create_ring(ROCX_ETH_RING_RX, 0, 6, 1, 256), ROCX_AQ_STS_OK);
    len = make_frame(frame, other, 60);
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_NO_GERR();
}

static void t_rx_link_down(void)
{
    uint8_t frame[100];
    size_t len = make_frame(frame, fake_mac, 100);

    bring_up();
    rx_post(6, 4);
    CHECK_EQ(set_port(ROCX_PORT_SET_ADMIN, 0, NULL, 0, 0), ROCX_AQ_STS_OK);
    CHECK(rocx_core_can_receive(&F->core));
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(counter(ROCX_STAT_RX_DROPPED_LINK_DOWN), 1);
    CHECK_EQ(le16toh(rx_desc(0, 6)->status), 0);
    admin_up();
    CHECK_EQ(rocx_core_receive(&F->core, frame, len), len);
    CHECK_EQ(le16toh(rx_desc(0, 6)->status), ROCX_ETH_STS_DONE);
    CHECK_NO_GERR();
}

static void t_doorbell_errors(void)
{
    uint32_t res;
    union rocx_aq_cmd c;
    unsigned size;

    bring_up();
    for (size = 1; size <= 8; size++) {
        if (size == 8) {
            continue;
        }
        rocx_core_db_write(&F->core, ROCX_DB_ETH_TX, 0, size);
        CHECK_GERR(ROCX_GERR_ACCESS_SIZE);
    }
    rocx_core_db_write(&F->core, 0x38, 0, 8);
    CHECK_GERR(ROCX_GERR_DB_OFFSET);
    rocx_core_db_write(&F->core, 0x2c, 0, 8);
    CHECK_GERR(ROCX_GERR_DB_OFFSET);
    rocx_core_db_write(&F->core, 0xff8, 0, 8);
    CHECK_GERR(ROCX_GERR_DB_OFFSET);
    rocx_core_db_write(&F->core, ROCX_BAR_DB_SIZE, 0, 8);
    CHECK_GERR(ROCX_GERR_DB_OFFSET);
    rocx_core_db_write(&F->core, UINT64_MAX - 7, 0, 8);
    CHECK_GERR(ROCX_GERR_DB_OFFSET);
    /* No QPs, SRQs or CQs exist in 1.0. */
    db(0, ROCX_DB_SQ, 1, 1, false);
    CHECK_GERR(ROCX_GERR_DB_QUEUE);
    db(0, ROCX_DB_CQ, 0, 1, true);
    CHECK_GERR(ROCX_GERR_DB_QUEUE);
    db(0, ROCX_DB_ETH_TX, 1, 1, false);
    CHECK_GERR(ROCX_GERR_DB_QUEUE);
    db(0, ROCX_DB_ETH_RX, 0xffffff, 1, false);
    CHECK_GERR(ROCX_GERR_DB_QUEUE);
    db(0, ROCX_DB_EQ, 8, 0, false);
    CHECK_GERR(ROCX_GERR_DB_QUEUE);
    db(0, ROCX_DB_ETH_TX, 0, 65, false);
    CHECK_GERR(ROCX_GERR_DB_INDEX);
    db(0, ROCX_DB_ETH_RX, 0, 0xffff, false);
    CHECK_GERR(ROCX_GERR_DB_INDEX);
    /* Pages: unowned, and a context's page ringing kernel queues. */
    db(5, ROCX_DB_CQ, 0, 1, false);
    CHECK_GERR(ROCX_GERR_DB_OWNER);
    CHECK_EQ(rd(ROCX_REG_LAST_GUEST_ERR) >> 16, 5);
    c = cmd_new(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(aq_exec(&c, &res, NULL), ROCX_AQ_STS_OK);
    fake_run(F);
    gerr_mark = F->gerrs;
    db(res, ROCX_DB_ETH_TX, 0, 1, false);
    CHECK_GERR(ROCX_GERR_DB_OWNER);
    db(res, ROCX_DB_EQ, 0, 0, true);
    CHECK_GERR(ROCX_GERR_DB_OWNER);
    db(res, ROCX_DB_CQ, 0, 0, true);
    CHECK_GERR(ROCX_GERR_DB_QUEUE);
    db(255, ROCX_DB_SQ, 0, 0, false);
    CHECK_GERR(ROCX_GERR_DB_OWNER);
    fake_run(F);
    CHECK_EQ(F->nframes, 0);
    /* Reads return 0 and are not errors. */
    gerr_mark = F->gerrs;
    CHECK_EQ(rocx_core_db_read(&F->core, 0, 8), 0);
    CHECK_EQ(rocx_core_db_read(&F->core, 0x123, 1), 0);
    CHECK_NO_GERR();
    /* Only valid doorbells count. */
    CHECK_EQ(counter(ROCX_STAT_DOORBELLS), 5);   /* the AQ_DB writes */
}

static void t_register_access_errors(void)
{
    static const unsigned undefined[] = {
        0x038, 0x03c, 0x05c, 0x0fc, 0x120, 0x200, 0x7fc, 0x820,
        0x1000, 0x3ffc, 0x4000,
    };
    unsigned i, size;

    for (size = 1; size <= 8; size++) {
        if (size == 4) {
            continue;
        }
        CHECK_EQ(rocx_core_reg_read(&F->core, ROCX_REG_ID, size), 0);
        CHECK_GERR(ROCX_GERR_ACCESS_SIZE);
        rocx_core_reg_write(&F->core, ROCX_REG_SCRATCH, 0x1234, size);
        CHECK_GERR(ROCX_GERR_ACCESS_SIZE);
        CHECK_EQ(rd(ROCX_REG_SCRATCH), 0);
    }
    for (i = 0; i < ARRAY_SIZE(undefined); i++) {
        CHECK_EQ(rd(undefined[i]), 0);
        CHECK_GERR(ROCX_GERR_REG_UNKNOWN);
        CHECK_EQ(rd(ROCX_REG_LAST_GUEST_ERR) >> 16, undefined[i] & 0xffff);
        wr(undefined[i], 1);
        CHECK_GERR(ROCX_GERR_REG_UNKNOWN);
    }
    CHECK_EQ(rd(ROCX_REG_SCRATCH + 1), 0);
    CHECK_GERR(ROCX_GERR_REG_UNKNOWN);
    static const unsigned ro[] = {
        ROCX_REG_ID, ROCX_REG_VERSION, ROCX_REG_CAPS, ROCX_REG_FW_VERSION,
        ROCX_REG_DEV_STATUS, ROCX_REG_GUEST_ERR_COUNT,
        ROCX_REG_LAST_GUEST_ERR, ROCX_REG_NUM_VECTORS, ROCX_REG_DB_PAGES,
        ROCX_REG_LINK_STATUS, ROCX_REG_LINK_SPEED, ROCX_REG_MAC_LO,
        ROCX_REG_MAC_HI,
        ROCX_REG_TEST_DMA_STATUS, ROCX_REG_AQ_STATUS, ROCX_REG_AQ_HEAD,
    };
    for (i = 0; i < ARRAY_SIZE(ro); i++) {
        uint32_t before = rd(ro[i]);

        wr(ro[i], ~before);
        CHECK_GERR(ROCX_GERR_REG_READONLY);
        if (ro[i] != ROCX_REG_GUEST_ERR_COUNT &&
            ro[i] != ROCX_REG_LAST_GUEST_ERR) {
            CHECK_EQ(rd(ro[i]), before);
        }
    }
    wr(ROCX_REG_DEV_CTRL, 2);
    CHECK_GERR(ROCX_GERR_REG_VALUE);
    CHECK_EQ(rd(ROCX_REG_GUEST_ERR_COUNT), F->gerrs);
    CHECK_EQ(counter(ROCX_STAT_GUEST_ERRORS), F->gerrs);
    CHECK_EQ(strcmp(rocx_core_reg_name(ROCX_REG_AQ_DB), "AQ_DB"), 0);
    CHECK_EQ(strcmp(rocx_core_reg_name(ROCX_REG_INTR_CTRL(7)), "INTR_CTRL"),
             0);
    CHECK_EQ(strcmp(rocx_core_reg_name(ROCX_REG_LINK_SPEED), "LINK_SPEED"),
             0);
    CHECK(rocx_core_reg_name(0x38) == NULL);
    CHECK(rocx_core_reg_name(~0ULL) == NULL);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void t_garbage_writes(void)
{
    static const unsigned sizes[] = { 1, 2, 4, 8 };
    uint64_t off;
    unsigned s, i;
    uint8_t frame[256];

    /* A device in full use, so garbage hits live state. */
    bring_up();
    rx_post(6, 16);
    for (off = 0; off < ROCX_BAR_REGS_SIZE + 16; off++) {
        for (s = 0; s < ARRAY_SIZE(sizes); s++) {
            uint64_t v = rng();

            /* Keep the reset bit out of most writes so state builds up. */
            if (off == ROCX_REG_DEV_CTRL && (rng() & 7)) {
                v &= ~1ULL;
            }
            rocx_core_reg_write(&F->core, off, v, sizes[s]);
            rocx_core_reg_read(&F->core, off, sizes[s]);
            if ((off & 0xff) == 0) {
                fake_run(F);
            }
        }
    }
    /* Doorbells: every slot of a few pages with random values. */
    for (i = 0; i < 20000; i++) {
        uint64_t dboff = rng() % (ROCX_BAR_DB_SIZE + 64);

        if (rng() & 1) {
            dboff &= ~7ULL;
            dboff &= (dboff & 0xff000) | 0x38;
        }
        rocx_core_db_write(&F->core, dboff, rng(), sizes[rng() % 4]);
        if (i % 64 == 0) {
            make_frame(frame, (rng() & 1) ? fake_mac :
                       (const uint8_t *)"\xff\xff\xff\xff\xff\xff",
                       14 + rng() % 200);
            rocx_core_receive(&F->core, frame, 14 + rng() % 200);
            fake_run(F);
        }
    }
    fake_run(F);

    /* After all that, a reset gives a working device. */
    F->fault_len = 0;
    wr(ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET);
    CHECK_EQ(rd(ROCX_REG_ID), ROCX_ID_MAGIC);
    CHECK_EQ(rd(ROCX_REG_GUEST_ERR_COUNT), 0);
    gerr_mark = F->gerrs;
    F->nframes = 0;
    tx_pi = 0;
    rx_pi = 0;
    bring_up();
    tx_post(6, 0, 60, 0);
    db(0, ROCX_DB_ETH_TX, 0, tx_pi, false);
    fake_run(F);
    CHECK_EQ(F->nframes, 1);
    CHECK_NO_GERR();
}

static void t_link_change_events(void)
{
    struct rocx_eqe *e;

    aq_enable(4);
    CHECK_EQ(create_eq(0, 4, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(rd(ROCX_REG_LINK_STATUS) & 7, ROCX_LINK_CARRIER);
    /* Carrier flaps while admin down: UP never changes, no events. */
    fake_set_carrier(F, false);
    CHECK_EQ(rd(ROCX_REG_LINK_STATUS) & 7, 0);
    fake_set_carrier(F, true);
    fake_run(F);
    CHECK_EQ(eqe(0, 4, 0)->type, 0);
    CHECK_EQ(counter(ROCX_STAT_LINK_CHANGES), 0);

    /* Admin up: LINK_CHANGE with the new status. */
    CHECK_EQ(set_port(ROCX_PORT_SET_ADMIN, 0, NULL, 1, 0), ROCX_AQ_STS_OK);
    e = eqe(0, 4, 0);
    CHECK_EQ(le16toh(e->type), ROCX_EQE_LINK_CHANGE);
    CHECK_EQ(le32toh(e->data), ROCX_LINK_UP | ROCX_LINK_CARRIER |
             ROCX_LINK_ADMIN_UP | ((ROCX_CORE_DEFAULT_SPEED / 1000) << 16));
    CHECK_EQ(e->flags, ROCX_EQE_PHASE);
    CHECK_EQ(F->irqs[0], 1);
    /* Setting admin up again changes nothing. */
    CHECK_EQ(set_port(ROCX_PORT_SET_ADMIN, 0, NULL, 1, 0), ROCX_AQ_STS_OK);
    CHECK_EQ(eqe(0, 4, 1)->type, 0);

    /* Carrier loss and return (QEMU's set_link). */
    fake_set_carrier(F, false);
    fake_run(F);
    e = eqe(0, 4, 1);
    CHECK_EQ(le16toh(e->type), ROCX_EQE_LINK_CHANGE);
    CHECK_EQ(le32toh(e->data), ROCX_LINK_ADMIN_UP |
             ((ROCX_CORE_DEFAULT_SPEED / 1000) << 16));
    fake_set_carrier(F, true);
    fake_run(F);
    CHECK_EQ(le32toh(eqe(0, 4, 2)->data) & ROCX_LINK_UP, ROCX_LINK_UP);
    /* Two flaps before the engine runs: both are reported, in order. */
    fake_set_carrier(F, false);
    fake_set_carrier(F, true);
    fake_run(F);
    CHECK_EQ(le32toh(eqe(0, 4, 3)->data) & ROCX_LINK_UP, 0);
    CHECK_EQ(le32toh(eqe(0, 4, 4)->data) & ROCX_LINK_UP, ROCX_LINK_UP);
    CHECK_EQ(counter(ROCX_STAT_LINK_CHANGES), 5);
    CHECK_EQ(rd(ROCX_REG_LINK_STATUS) & 7, 7);
    CHECK_NO_GERR();
}

/*
 * The device clock: nanoseconds of the host's clock since the reset,
 * CLOCK_LO latching the upper half for CLOCK_HI, read-only.
 */
static void t_device_clock(void)
{
    uint64_t t;

    /* The clock starts at the reset, whatever the host's clock says. */
    fake_advance(F, 5 * 1000 * 1000 * 1000LL);
    wr(ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET);
    CHECK_EQ(rd(ROCX_REG_CLOCK_HI), 0);     /* nothing latched yet */
    CHECK_EQ(rd(ROCX_REG_CLOCK_LO), 0);
    fake_advance(F, 1234);
    CHECK_EQ(rd(ROCX_REG_CLOCK_LO), 1234);
    CHECK_EQ(rd(ROCX_REG_CLOCK_HI), 0);

    /* Across a carry: HI is the half of the value LO returned. */
    fake_advance(F, (1LL << 32) - 1234 - 1);
    CHECK_EQ(rd(ROCX_REG_CLOCK_LO), 0xffffffffu);
    fake_advance(F, 1);
    CHECK_EQ(rd(ROCX_REG_CLOCK_HI), 0);     /* latched before the carry */
    CHECK_EQ(rd(ROCX_REG_CLOCK_LO), 0);
    CHECK_EQ(rd(ROCX_REG_CLOCK_HI), 1);
    fake_advance(F, 3LL << 32);
    CHECK_EQ(rd(ROCX_REG_CLOCK_HI), 1);     /* until the next LO read */
    t = rd(ROCX_REG_CLOCK_LO);
    t |= (uint64_t)rd(ROCX_REG_CLOCK_HI) << 32;
    CHECK_EQ(t, 4ULL << 32);
    CHECK_NO_GERR();

    /* Read-only. */
    wr(ROCX_REG_CLOCK_LO, 0);
    CHECK_GERR(ROCX_GERR_REG_READONLY);
    wr(ROCX_REG_CLOCK_HI, 0);
    CHECK_GERR(ROCX_GERR_REG_READONLY);
    CHECK_EQ(rd(ROCX_REG_CLOCK_LO), 0);
    CHECK_EQ(rd(ROCX_REG_CLOCK_HI), 4);
}

/*
 * ROCX_CAP2_USER_CLOCK: the whole clock in one 64-bit read at CLOCK of
 * page 0 and of owned pages, nothing from others or other widths, no
 * latch disturbed, no guest error.
 */
static void t_device_clock_user(void)
{
    uint64_t page1 = 1 * ROCX_DB_PAGE_SIZE + ROCX_DB_CLOCK;
    uint64_t page2 = 2 * ROCX_DB_PAGE_SIZE + ROCX_DB_CLOCK;
    union rocx_aq_cmd c;
    uint32_t uctx;

    bring_up();
    wr(ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET);
    bring_up();
    fake_advance(F, (5LL << 32) + 77);
    gerr_mark = F->gerrs;
    CHECK_EQ(rocx_core_db_read(&F->core, ROCX_DB_CLOCK, 8) >> 32, 5);
    CHECK_EQ(rocx_core_db_read(&F->core, page1, 8), 0);    /* not owned */
    c = cmd_new(ROCX_AQ_OP_ALLOC_UCTX);
    CHECK_EQ(aq_exec(&c, &uctx, NULL), ROCX_AQ_STS_OK);
    CHECK_EQ(uctx, 1);
    CHECK_EQ(rocx_core_db_read(&F->core, page1, 8),
             rocx_core_db_read(&F->core, ROCX_DB_CLOCK, 8));
    fake_advance(F, 1000);
    CHECK_EQ(rocx_core_db_read(&F->core, page1, 8), (5ULL << 32) + 1077);
    CHECK_EQ(rocx_core_db_read(&F->core, page2, 8), 0);
    CHECK_EQ(rocx_core_db_read(&F->core, page1, 4), 0);
    CHECK_EQ(rocx_core_db_read(&F->core, page1 + 8, 8), 0);
    /* CLOCK_HI's latch belongs to CLOCK_LO alone. */
    CHECK_EQ(rd(ROCX_REG_CLOCK_HI), 0);
    CHECK_NO_GERR();
    /* Writing it is no doorbell. */
    rocx_core_db_write(&F->core, page1, 0, 8);
    CHECK_GERR(ROCX_GERR_DB_OFFSET);
}

/* ================= Runner ================= */

typedef struct TestCase {
    const char *name;
    void (*fn)(void);
} TestCase;

/*
 * The contract's doorbell helpers (rocx_hw.h), which the driver and the
 * provider encode with and the model decodes with: literal values, so a
 * layout change shows here and not only as the two sides agreeing.
 */
static void t_contract_db_value(void)
{
    static const struct {
        uint32_t qid, index;
        uint64_t arm, value;
    } c[] = {
        { 0, 1, 0, 0x0000000100000000ULL },
        { 5, 0x1234, ROCX_DB_ARM, 0x0001123400000005ULL },
        { 0xffffff, 0xffff, ROCX_DB_ARM | ROCX_DB_ARM_SOLICITED,
          0x0003ffff00ffffffULL },
        { 7, 2, ROCX_DB_ARM_SOLICITED, 0x0002000200000007ULL },
        /* Only 24 bits of queue and 16 of index travel. */
        { 0x1000001, 0x10003, 0, 0x0000000300000001ULL },
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(c); i++) {
        CHECK_EQ(rocx_db_encode(c[i].qid, c[i].index, c[i].arm), c[i].value);
        CHECK_EQ(rocx_db_qid(c[i].value), c[i].qid & 0xffffff);
        CHECK_EQ(rocx_db_index(c[i].value), c[i].index & 0xffff);
    }
    CHECK_EQ(rocx_db_qid(~0ULL), 0xffffff);
    CHECK_EQ(rocx_db_index(~0ULL), 0xffff);
    CHECK_EQ(rocx_db_qid(0xffffffff00000000ULL), 0);
    CHECK_EQ(rocx_db_index(0x0000ffffffffffffULL), 0xffff);
    CHECK_EQ(rocx_db_index(0xffff0000ffffffffULL), 0);
}

/*
 * The contract's phase rule (rocx_if.h), which the model writes admin
 * CQEs, EQEs and CQEs with and every consumer compares with.
 */
static void t_contract_ring_phase(void)
{
    static const struct {
        uint32_t index;
        unsigned log_depth;
        uint8_t phase;
    } c[] = {
        { 0, 4, 1 }, { 15, 4, 1 }, { 16, 4, 0 }, { 31, 4, 0 }, { 32, 4, 1 },
        { 0, 2, 1 }, { 4, 2, 0 }, { 8, 2, 1 },
        /* The admin queue's 16-bit index wraps on an even pass. */
        { 0xffff, 12, 0 }, { 0x10000, 12, 1 },
        /* An EQ of 2^16 entries: its index needs 32 bits. */
        { 0xffff, 16, 1 }, { 0x10000, 16, 0 }, { 0x20000, 16, 1 },
    };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(c); i++) {
        CHECK_EQ(rocx_ring_phase(c[i].index, c[i].log_depth), c[i].phase);
    }
}

/*
 * The contract's WQE segment encoders (rocx_verbs.h), which the driver
 * and the provider build WQEs with, compiled here as the provider does
 * (glibc's byte order): every byte against the layout the device reads.
 */
static void t_contract_wqe_segments(void)
{
    static const uint8_t sge_want[16] = {
        0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
        0x44, 0x33, 0x22, 0x11, 0xdd, 0xcc, 0xbb, 0xaa,
    };
    struct rocx_send_wqe w;
    struct rocx_sge sge;
    struct rocx_av av;
    unsigned i;

    memset(&sge, 0xee, sizeof(sge));
    rocx_sge_set(&sge, 0x0102030405060708ULL, 0x11223344, 0xaabbccdd);
    CHECK(!memcmp(&sge, sge_want, sizeof(sge)));

    memset(&w, 0, sizeof(w));
    rocx_wqe_raddr_set(&w.rdma, 0x1122334455667788ULL, 0xcafef00d);
    CHECK_EQ(le64toh(w.rdma.remote_addr), 0x1122334455667788ULL);
    CHECK_EQ(le32toh(w.rdma.rkey), 0xcafef00d);
    CHECK_EQ(w.raw[0], 0x88);
    CHECK_EQ(w.raw[8], 0x0d);
    for (i = 12; i < sizeof(w.raw); i++) {
        CHECK_EQ(w.raw[i], 0);
    }

    memset(&w, 0, sizeof(w));
    rocx_wqe_atomic_set(&w.atomic, 0x1000, 0x42, 0x0123456789abcdefULL,
                        0xfedcba9876543210ULL);
    CHECK_EQ(le64toh(w.atomic.remote_addr), 0x1000);
    CHECK_EQ(le32toh(w.atomic.rkey), 0x42);
    CHECK_EQ(w.atomic.rsvd, 0);
    CHECK_EQ(le64toh(w.atomic.compare_add), 0x0123456789abcdefULL);
    CHECK_EQ(le64toh(w.atomic.swap), 0xfedcba9876543210ULL);
    CHECK_EQ(w.raw[16], 0xef);
    CHECK_EQ(w.raw[24], 0x10);

    memset(&av, 0, sizeof(av));
    for (i = 0; i < sizeof(av); i++) {
        ((uint8_t *)&av)[i] = i + 1;
    }
    memset(&w, 0, sizeof(w));
    /* Only 24 bits of QP travel; bit 31 of the Q_Key means the QP's own. */
    rocx_wqe_ud_set(&w.ud, 0xff123456, ROCX_WQE_UD_QKEY_OWN | 7, &av);
    CHECK_EQ(le32toh(w.ud.remote_qpn), 0x123456);
    CHECK_EQ(le32toh(w.ud.qkey), ROCX_WQE_UD_QKEY_OWN | 7);
    CHECK(!memcmp(&w.ud.av, &av, sizeof(av)));
    CHECK_EQ(w.raw[0], 0x56);
    CHECK_EQ(w.raw[7], 0x80);
}

#define CASE(n) { #n, t_##n }

static const TestCase cases[] = {
    CASE(identity_registers),
    CASE(reset_clears_state),
    CASE(scratch),
    CASE(test_irq),
    CASE(test_dma),
    CASE(aq_phase_wraps),
    CASE(aq_irq),
    CASE(aq_index_error),
    CASE(aq_config_errors),
    CASE(aq_dma_fault),
    CASE(aq_budget),
    CASE(op_identify),
    CASE(op_set_query_port_mtu),
    CASE(op_get_stats),
    CASE(op_eq),
    CASE(op_eth_ring),
    CASE(op_gid),
    CASE(op_uctx_pd),
    CASE(op_unsupported),
    CASE(eq_events),
    CASE(eq_overflow),
    CASE(eq_overflow_report),
    CASE(aq_stall),
    CASE(intr_ctrl),
    CASE(tx_exact_bytes),
    CASE(tx_errors),
    CASE(tx_budget),
    CASE(rx_posted_buffer),
    CASE(rx_faults),
    CASE(rx_no_buffer),
    CASE(rx_hold_bound),
    CASE(rx_mac_control),
    CASE(rx_bus_master_off),
    CASE(mcast_filter),
    CASE(rx_trunc),
    CASE(rx_filter),
    CASE(rx_link_down),
    CASE(doorbell_errors),
    CASE(register_access_errors),
    CASE(garbage_writes),
    CASE(link_change_events),
    CASE(device_clock),
    CASE(device_clock_user),
    CASE(contract_db_value),
    CASE(contract_ring_phase),
    CASE(contract_wqe_segments),
};

static bool selected(int argc, char **argv, const char *name)
{
    int i;
    bool any = false;

    for (i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            continue;
        }
        any = true;
        if (!strcmp(argv[i], name)) {
            return true;
        }
    }
    return !any;
}

int main(int argc, char **argv)
{
    unsigned passed = 0, failed = 0, i;
    int a;

    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-v")) {
            verbose = true;
        }
    }
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        if (!selected(argc, argv, cases[i].name)) {
            continue;
        }
        cur_case = cases[i].name;
        case_failures = 0;
        gerr_mark = 0;
        aq_cmd_id = 0;
        tx_pi = 0;
        rx_pi = 0;
        F = fake_new();
        F->print_gerrs = verbose;
        cases[i].fn();
        fake_free(F);
        F = NULL;
        if (case_failures) {
            printf("FAIL %s (%u checks)\n", cur_case, case_failures);
            failed++;
        } else {
            printf("ok   %s\n", cur_case);
            passed++;
        }
    }
    printf("host: %u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
