/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the rocx device core.
 *
 * The input is a program for a hostile guest: a flags byte (bit 0: bring
 * the device up first; bit 1: fabric bundles and direct doorbells on, as
 * QEMU runs it on rocx-switch, and frames may come bundled), then
 * operations (register and doorbell accesses of any width and offset,
 * writes to guest memory, admin commands, TX descriptors, received frames,
 * carrier changes, DMA faults, engine runs, the multicast filter and
 * frames for its groups, MAC control frames, HELLO_ACKs from anyone, and
 * the clock, which the fabric's HELLO retries wait on).  The fake machine (tests/model/
 * fake.c) aborts on anything the core must never do: an interrupt vector
 * out of range, a frame of impossible length, an engine that never goes
 * quiet.  AddressSanitizer and UBSan catch the rest.
 */
#include "fake.h"
#include "qemu/bswap.h"
#include "net/eth.h"

/* Layout set up by the "bring up" flag, offsets from FAKE_MEM_BASE. */
#define SQ_OFF      0x0000      /* 16 x 64 */
#define CQ_OFF      0x0400      /* 16 x 16 */
#define EQ_OFF      0x0800      /* 16 x 16 */
#define TX_OFF      0x1000      /* 64 x 16 */
#define RX_OFF      0x1400      /* 64 x 16 */
#define TXBUF_OFF   0x2000
#define RXBUF_OFF   0x8000      /* 8 buffers of 0x2400, reused */
#define RXBUF_SIZE  0x2400
#define AQ_LD       4
#define RING_LD     6
#define HELD_MAX    4

typedef struct Input {
    const uint8_t *p;
    size_t n;
} Input;

static FakeDev *F;
static uint16_t aq_pi, tx_pi, rx_pi;

/* Frames the "net layer" holds while the device has no buffer. */
/* Room for a frame of op_frame() wrapped in a bundle of up to 8. */
static uint8_t held[HELD_MAX][ROCX_MAX_FRAME + 128];
static size_t held_len[HELD_MAX];
static unsigned nheld;

static uint8_t in_u8(Input *in)
{
    if (!in->n) {
        return 0;
    }
    in->n--;
    return *in->p++;
}

/* Multi-byte values are little endian; each read is its own statement. */
static uint16_t in_u16(Input *in)
{
    uint16_t lo = in_u8(in);

    return lo | (uint16_t)in_u8(in) << 8;
}

static uint32_t in_u32(Input *in)
{
    uint32_t lo = in_u16(in);

    return lo | (uint32_t)in_u16(in) << 16;
}

static uint64_t in_u64(Input *in)
{
    uint64_t lo = in_u32(in);

    return lo | (uint64_t)in_u32(in) << 32;
}

static uint8_t *gmem(uint64_t off)
{
    return F->mem + (off % FAKE_MEM_SIZE);
}

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = v;
    p[1] = v >> 8;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    unsigned i;

    for (i = 0; i < 8; i++) {
        p[i] = v >> (8 * i);
    }
}

static void wr(unsigned off, uint32_t v)
{
    rocx_core_reg_write(&F->core, off, v, 4);
}

static void redeliver(FakeDev *f)
{
    while (nheld) {
        if (!rocx_core_receive(&f->core, held[0], held_len[0])) {
            return;
        }
        nheld--;
        memmove(held[0], held[1], sizeof(held[0]) * nheld);
        memmove(held_len, held_len + 1, sizeof(held_len[0]) * nheld);
    }
}

static void receive(const uint8_t *buf, size_t len)
{
    if (!rocx_core_can_receive(&F->core) ||
        !rocx_core_receive(&F->core, buf, len)) {
        if (nheld < HELD_MAX) {
            memcpy(held[nheld], buf, len);
            held_len[nheld++] = len;
        }
    }
}

/* Put a 64-byte command in the next SQ slot and ring AQ_DB. */
static void aq_submit(const uint8_t *cmd)
{
    memcpy(gmem(SQ_OFF + (aq_pi & ((1u << AQ_LD) - 1)) * 64), cmd, 64);
    aq_pi++;
    wr(ROCX_REG_AQ_DB, aq_pi);
}

static void aq_simple(uint16_t op, uint64_t base, uint8_t a, uint8_t b,
                      uint8_t c, uint8_t d, uint16_t e)
{
    uint8_t cmd[64] = { 0 };

    put_le16(cmd, op);
    switch (op) {
    case ROCX_AQ_OP_CREATE_EQ:
        put_le64(cmd + 8, base);
        cmd[16] = a;
        cmd[18] = b;
        cmd[19] = c;
        break;
    case ROCX_AQ_OP_CREATE_ETH_RING:
        put_le64(cmd + 8, base);
        cmd[16] = a;
        cmd[17] = b;
        cmd[18] = c;
        cmd[19] = d;
        put_le16(cmd + 20, e);
        break;
    case ROCX_AQ_OP_SET_PORT:
        cmd[8] = ROCX_PORT_SET_ADMIN;
        cmd[offsetof(struct rocx_aq_set_port, admin_up)] = 1;
        break;
    }
    aq_submit(cmd);
    fake_run(F);
}

/* What a driver does at probe, so inputs start from a live device. */
static void bring_up(void)
{
    unsigned i;

    wr(ROCX_REG_AQ_SQ_BASE_LO, (uint32_t)(FAKE_MEM_BASE + SQ_OFF));
    wr(ROCX_REG_AQ_SQ_BASE_HI, (FAKE_MEM_BASE + SQ_OFF) >> 32);
    wr(ROCX_REG_AQ_CQ_BASE_LO, (uint32_t)(FAKE_MEM_BASE + CQ_OFF));
    wr(ROCX_REG_AQ_CQ_BASE_HI, (FAKE_MEM_BASE + CQ_OFF) >> 32);
    wr(ROCX_REG_AQ_CTRL, AQ_LD | ROCX_AQ_CTRL_ENABLE | ROCX_AQ_CTRL_IRQ_EN);
    aq_simple(ROCX_AQ_OP_CREATE_EQ, FAKE_MEM_BASE + EQ_OFF, 0, 4, 0, 0, 0);
    aq_simple(ROCX_AQ_OP_CREATE_ETH_RING, FAKE_MEM_BASE + TX_OFF,
              ROCX_ETH_RING_TX, 0, RING_LD, 1, 0);
    aq_simple(ROCX_AQ_OP_CREATE_ETH_RING, FAKE_MEM_BASE + RX_OFF,
              ROCX_ETH_RING_RX, 0, RING_LD, 1, RXBUF_SIZE);
    aq_simple(ROCX_AQ_OP_SET_PORT, 0, 0, 0, 0, 0, 0);
    for (i = 0; i < (1u << RING_LD); i++) {
        uint8_t *d = gmem(RX_OFF + i * 16);

        memset(d, 0, 16);
        put_le64(d, FAKE_MEM_BASE + RXBUF_OFF + (i % 8) * RXBUF_SIZE);
    }
}

static const uint16_t interesting_regs[] = {
    ROCX_REG_DEV_CTRL, ROCX_REG_SCRATCH, ROCX_REG_TEST_IRQ,
    ROCX_REG_TEST_DMA_ADDR_LO, ROCX_REG_TEST_DMA_ADDR_HI,
    ROCX_REG_TEST_DMA_LEN, ROCX_REG_TEST_DMA_CTRL, ROCX_REG_AQ_SQ_BASE_LO,
    ROCX_REG_AQ_SQ_BASE_HI, ROCX_REG_AQ_CQ_BASE_LO, ROCX_REG_AQ_CQ_BASE_HI,
    ROCX_REG_AQ_CTRL, ROCX_REG_AQ_DB, ROCX_REG_INTR_CTRL(0),
    ROCX_REG_INTR_CTRL(1), ROCX_REG_INTR_CTRL(7), ROCX_REG_ID,
};

static const uint16_t opcodes[] = {
    ROCX_AQ_OP_NOP, ROCX_AQ_OP_IDENTIFY, ROCX_AQ_OP_SET_PORT,
    ROCX_AQ_OP_QUERY_PORT, ROCX_AQ_OP_GET_STATS, ROCX_AQ_OP_CREATE_EQ,
    ROCX_AQ_OP_DESTROY_EQ, ROCX_AQ_OP_CREATE_ETH_RING,
    ROCX_AQ_OP_DESTROY_ETH_RING, ROCX_AQ_OP_SET_GID, ROCX_AQ_OP_DEL_GID,
    ROCX_AQ_OP_ALLOC_UCTX, ROCX_AQ_OP_DEALLOC_UCTX, ROCX_AQ_OP_CREATE_PD,
    ROCX_AQ_OP_DESTROY_PD, ROCX_AQ_OP_CREATE_QP, ROCX_AQ_OP_SET_CC,
    ROCX_AQ_OP_REG_MR, ROCX_AQ_OP_DEREG_MR, ROCX_AQ_OP_CREATE_CQ,
    ROCX_AQ_OP_DESTROY_CQ, ROCX_AQ_OP_MODIFY_QP, ROCX_AQ_OP_QUERY_QP,
    ROCX_AQ_OP_DESTROY_QP, ROCX_AQ_OP_SET_MCAST_MACS,
};

/* Groups for SET_MCAST_MACS and the frames sent to them. */
static const uint8_t groups[8][6] = {
    { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 },
    { 0x01, 0x00, 0x5e, 0x7f, 0x00, 0x01 },
    { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
    { 0x33, 0x33, 0xff, 0x12, 0x34, 0x56 },
    { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e },
    { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 },
    { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
    { 0x03, 0x00, 0x00, 0x00, 0x00, 0x07 },
};

/* Values that steer addresses into guest memory most of the time. */
static uint64_t in_addr(Input *in)
{
    uint8_t sel = in_u8(in);

    switch (sel & 3) {
    case 0:
        return in_u64(in);
    default:
        return FAKE_MEM_BASE + in_u16(in) % FAKE_MEM_SIZE;
    }
}

/* Flags bit 1: bundles and direct doorbells. */
static bool fab;

/*
 * The bytes of a frame as a fabric bundle (rocx/rocx_fabric.h) of 1..8
 * frames, maybe with a count one too high or cut short; or the switch's
 * HELLO_ACK, whose size field comes from the bytes, so that the device
 * bundles too.
 */
static void receive_fabric(const uint8_t *body, size_t len, uint8_t sel)
{
    static const uint8_t dst[6] = ROCX_FAB_DST_MAC;
    static const uint8_t src[6] = ROCX_FAB_SWITCH_MAC;
    static uint8_t b[sizeof(held[0])];
    unsigned n = ((sel >> 2) & 7) + 1, i;
    size_t chunk = len / n, off = ROCX_FAB_HLEN;

    memcpy(b + ROCX_FAB_OFF_DST, dst, sizeof(dst));
    memcpy(b + ROCX_FAB_OFF_SRC, src, sizeof(src));
    stw_be_p(b + ROCX_FAB_OFF_ETHERTYPE, ROCX_FAB_ETHERTYPE);
    stl_be_p(b + ROCX_FAB_OFF_MAGIC, ROCX_FAB_MAGIC);
    memset(b + ROCX_FAB_OFF_TYPE, 0, ROCX_FAB_HLEN - ROCX_FAB_OFF_TYPE);
    if (sel & 0x10) {
        b[ROCX_FAB_OFF_TYPE] = ROCX_FAB_HELLO_ACK;
        memcpy(b + ROCX_FAB_OFF_MAX_LEN, body, MIN(len, (size_t)4));
        receive(b, ROCX_FAB_CTRL_LEN);
        return;
    }
    b[ROCX_FAB_OFF_TYPE] = ROCX_FAB_BUNDLE;
    stw_be_p(b + ROCX_FAB_OFF_COUNT, n + !!(sel & 0x40));
    for (i = 0; i < n; i++) {
        size_t l = i == n - 1 ? len - chunk * i : chunk;

        stw_be_p(b + off, l);
        memcpy(b + off + ROCX_FAB_ENTRY_HLEN, body + chunk * i, l);
        off += ROCX_FAB_ENTRY_HLEN + l;
    }
    if ((sel & 0x20) && len) {
        off -= 1 + body[0] % (off - ROCX_FAB_HLEN);
    }
    receive(b, off);
}

static void op_frame(Input *in)
{
    static uint8_t buf[ROCX_MAX_FRAME + 64];
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
    size_t len = in_u16(in) % sizeof(buf);
    uint8_t dst = in_u8(in);
    uint8_t pattern = in_u8(in);
    size_t i;

    /*
     * [len u16][dst u8][pattern u8]: 1.0 looks at nothing past the MAC.
     * With bundles on, dst bit 7 wraps the frame as a fabric frame.
     */
    for (i = 0; i < len; i++) {
        buf[i] = pattern + i * 7;
    }
    if (len >= 6) {
        switch (dst & 3) {
        case 0:
            memcpy(buf, F->core.port.mac, 6);
            break;
        case 1:
            memcpy(buf, bcast, 6);
            break;
        case 2:
            memcpy(buf, mcast, 6);
            break;
        }
    }
    if (fab && (dst & 0x80)) {
        receive_fabric(buf, len, dst);
        return;
    }
    receive(buf, len);
}

/*
 * SET_MCAST_MACS of [n u8] entries, each [sel u8]: one of groups[], or
 * (sel bit 3) a unicast address, (bit 4) reserved bytes set; the list in
 * guest memory, or (n bit 7) at an address from the input.
 */
static void op_mcast_list(Input *in)
{
    uint8_t n = in_u8(in), cmd[64] = { 0 };
    uint64_t addr = FAKE_MEM_BASE + TXBUF_OFF;
    unsigned i;

    for (i = 0; i < (n & 0x7f); i++) {
        uint8_t sel = in_u8(in);
        uint8_t *e = gmem(TXBUF_OFF + i * 8);

        memcpy(e, groups[sel & 7], 6);
        if (sel & 8) {
            e[0] &= ~1;
        }
        e[6] = sel & 0x10 ? sel : 0;
        e[7] = 0;
    }
    if (n & 0x80) {
        addr = in_addr(in);
    }
    put_le16(cmd, ROCX_AQ_OP_SET_MCAST_MACS);
    put_le64(cmd + 8, addr);
    cmd[16] = n & 0x7f;
    aq_submit(cmd);
}

/*
 * A frame to one of groups[], [sel u8][len u16][type u8]: type picks the
 * EtherType (MAC control, with a PFC or PAUSE opcode; IPv6; local
 * experimental) and sel bit 3 a VLAN tag in front of it.
 */
static void op_group_frame(Input *in)
{
    static uint8_t buf[ROCX_MAX_FRAME + 64];
    uint8_t sel = in_u8(in);
    size_t len = MAX((size_t)in_u16(in) % sizeof(buf), (size_t)ETH_HLEN);
    uint8_t type = in_u8(in);
    uint8_t *p = buf + 12;

    memset(buf, type, len);
    memcpy(buf, groups[sel & 7], 6);
    memcpy(buf + 6, "\x02\x00\x00\x00\x00\x09", 6);
    if ((sel & 8) && len >= 18) {
        stw_be_p(p, ETH_P_VLAN);
        stw_be_p(p + 2, 5);
        p += 4;
    }
    switch (type & 3) {
    case 0:
        stw_be_p(p, 0x8808);
        if (len >= (size_t)(p - buf) + 4) {
            stw_be_p(p + 2, type & 4 ? 0x0101 : 0x0001);
        }
        break;
    case 1:
        stw_be_p(p, ETH_P_IPV6);
        break;
    default:
        stw_be_p(p, 0x88b5);
        break;
    }
    receive(buf, len);
}

/* A HELLO_ACK from [src sel u8] (bit 0: the switch) offering [max u32]. */
static void op_hello_ack(Input *in)
{
    static const uint8_t dst[6] = ROCX_FAB_DST_MAC;
    static const uint8_t sw[6] = ROCX_FAB_SWITCH_MAC;
    uint8_t b[ROCX_FAB_CTRL_LEN] = { 0 };
    uint8_t sel = in_u8(in);

    memcpy(b + ROCX_FAB_OFF_DST, dst, sizeof(dst));
    memcpy(b + ROCX_FAB_OFF_SRC, sel & 1 ? sw : groups[7], 6);
    if (!(sel & 1)) {
        b[ROCX_FAB_OFF_SRC] = 0x02;
    }
    stw_be_p(b + ROCX_FAB_OFF_ETHERTYPE, ROCX_FAB_ETHERTYPE);
    stl_be_p(b + ROCX_FAB_OFF_MAGIC, ROCX_FAB_MAGIC);
    b[ROCX_FAB_OFF_TYPE] = sel & 2 ? ROCX_FAB_HELLO : ROCX_FAB_HELLO_ACK;
    stl_be_p(b + ROCX_FAB_OFF_MAX_LEN, sel & 4 ? in_u32(in) :
             ROCX_FAB_BUNDLE_MAX);
    receive(b, sizeof(b));
}

static void op_tx(Input *in)
{
    uint8_t n = in_u8(in) % 8 + 1;

    /* Each descriptor: [sel u8][addr: u8 or u64][sel u8][len u16]. */
    while (n--) {
        uint8_t *d = gmem(TX_OFF + (tx_pi & ((1u << RING_LD) - 1)) * 16);
        uint64_t addr;
        uint16_t len;

        if (in_u8(in) & 7) {
            addr = FAKE_MEM_BASE + TXBUF_OFF + in_u8(in) * 16;
        } else {
            addr = in_u64(in);
        }
        if (in_u8(in) & 7) {
            len = 14 + in_u16(in) % 9100;
        } else {
            len = in_u16(in);
        }
        memset(d, 0, 16);
        put_le64(d, addr);
        put_le16(d + 8, len);
        tx_pi++;
    }
    rocx_core_db_write(&F->core, ROCX_DB_ETH_TX,
                       (uint64_t)tx_pi << 32, 8);
}

static void run_op(Input *in)
{
    uint8_t op = in_u8(in);
    uint8_t cmd[64];
    uint64_t v;
    unsigned size, off, i;

    switch (op % 20) {
    case 0:     /* raw register write */
        off = in_u16(in) % (ROCX_BAR_REGS_SIZE + 16);
        size = 1 + in_u8(in) % 8;
        rocx_core_reg_write(&F->core, off, in_u64(in), size);
        break;
    case 1:     /* raw register read */
        off = in_u16(in) % (ROCX_BAR_REGS_SIZE + 16);
        size = 1 + in_u8(in) % 8;
        rocx_core_reg_read(&F->core, off, size);
        break;
    case 2:     /* a meaningful register, a 32-bit value */
        off = interesting_regs[in_u8(in) % ARRAY_SIZE(interesting_regs)];
        v = in_u32(in);
        /* Keep full resets rare so that state can build up. */
        if (off == ROCX_REG_DEV_CTRL && (in_u8(in) & 15)) {
            v &= ~(uint64_t)ROCX_DEV_CTRL_RESET;
        }
        wr(off, v);
        break;
    case 3:     /* a doorbell shaped like one: [sel][page?][slot][qid][idx][arm] */
        off = in_u8(in) % 4 == 0 ? in_u8(in) * ROCX_DB_PAGE_SIZE : 0;
        off += (in_u8(in) % 8) * 8;
        v = in_u8(in) % 10;
        v |= (uint64_t)in_u16(in) << 32;
        if (in_u8(in) & 1) {
            v |= ROCX_DB_ARM;
        }
        rocx_core_db_write(&F->core, off, v, 8);
        break;
    case 4:     /* raw doorbell */
        off = in_u32(in) % (ROCX_BAR_DB_SIZE + 16);
        size = 1 + in_u8(in) % 8;
        rocx_core_db_write(&F->core, off, in_u64(in), size);
        rocx_core_db_read(&F->core, off, size);
        break;
    case 5:     /* guest memory contents */
        off = in_u16(in);
        size = in_u8(in);
        for (i = 0; i < size; i++) {
            *gmem(off + i) = in_u8(in);
        }
        break;
    case 6:     /* an admin command */
        for (i = 0; i < 64; i++) {
            cmd[i] = in_u8(in);
        }
        if (cmd[1] & 0x80) {
            put_le16(cmd, opcodes[cmd[0] % ARRAY_SIZE(opcodes)]);
        }
        if (cmd[2] & 1) {
            put_le64(cmd + 8, FAKE_MEM_BASE + (cmd[9] << 8) % FAKE_MEM_SIZE);
        }
        aq_submit(cmd);
        break;
    case 7:
        op_frame(in);
        break;
    case 8:     /* one engine round, leaving work pending */
        F->scheduled = false;
        rocx_core_process(&F->core);
        break;
    case 9:
        fake_set_carrier(F, in_u8(in) & 1);
        break;
    case 10:    /* DMA faults from now on */
        F->fault_addr = in_addr(in);
        F->fault_len = in_u8(in);
        break;
    case 11:
        op_tx(in);
        break;
    case 12:    /* post RX buffers */
        rx_pi += in_u8(in) % 65;
        rocx_core_db_write(&F->core, ROCX_DB_ETH_RX, (uint64_t)rx_pi << 32,
                           8);
        break;
    case 13:
        fake_run(F);
        break;
    case 14:
        if (in_u8(in) == 0x5a) {
            rocx_core_reset(&F->core);
        }
        break;
    case 15:
        rocx_core_can_receive(&F->core);
        break;
    case 16:
        op_mcast_list(in);
        break;
    case 17:
        op_group_frame(in);
        break;
    case 18:    /* the clock: deadlines (HELLO retries) come due */
        fake_advance(F, (int64_t)in_u16(in) * 1000 * 1000);
        break;
    case 19:
        op_hello_ack(in);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Input in = { data, size };
    uint8_t flags = in_u8(&in);

    if (!F) {
        F = fake_new();
    }
    fake_reset(F);
    F->on_rx_resume = redeliver;
    aq_pi = tx_pi = rx_pi = 0;
    nheld = 0;
    fab = flags & 2;
    rocx_core_set_bundles(&F->core, fab);
    rocx_core_set_direct_doorbells(&F->core, fab);
    if (flags & 1) {
        bring_up();
    }
    while (in.n) {
        run_op(&in);
    }
    fake_run(F);
    /* Whatever the guest did, the device still identifies itself. */
    if (rocx_core_reg_read(&F->core, ROCX_REG_ID, 4) != ROCX_ID_MAGIC) {
        abort();
    }
    return 0;
}
