/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fabric channel (rocx-chan.c): HELLO and HELLO_ACK on an untimed and
 * a timed channel, carrier at the epoch, every frame in a record (a
 * bundle of one allowed), timed stamps at the line clock's last bit,
 * frames received delivered at stamp + latency and not before, promises,
 * BYE, the records that close the channel, and an RC transfer between
 * two timed devices through a switch that forwards records as they are.
 */
#include "rdma.h"
#include "qemu/bswap.h"

#define C_LAT           5000    /* ns: the link latency the tests use */

static const uint8_t c_dst[6] = ROCX_FAB_DST_MAC;
static const uint8_t c_switch[6] = ROCX_FAB_SWITCH_MAC;

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

/* A record's header as rocx-switch writes it. */
static size_t c_hdr(uint8_t *b, uint8_t type, uint8_t flags, uint16_t count,
                    int64_t time, uint32_t lat)
{
    memcpy(b + ROCX_FAB_OFF_DST, c_dst, 6);
    memcpy(b + ROCX_FAB_OFF_SRC, c_switch, 6);
    stw_be_p(b + ROCX_FAB_OFF_ETHERTYPE, ROCX_FAB_ETHERTYPE);
    stl_be_p(b + ROCX_FAB_OFF_MAGIC, ROCX_FAB_MAGIC);
    b[ROCX_FAB_OFF_TYPE] = type;
    b[ROCX_FAB_OFF_FLAGS] = flags;
    stw_be_p(b + ROCX_FAB_OFF_COUNT, count);
    stl_be_p(b + ROCX_FAB_OFF_MAX_LEN, ROCX_FAB_BUNDLE_MAX);
    if (!(flags & ROCX_FAB_F_TIMED)) {
        return ROCX_FAB_HLEN;
    }
    stq_be_p(b + ROCX_FAB_OFF_TIME, time);
    stl_be_p(b + ROCX_FAB_OFF_LATENCY, lat);
    stl_be_p(b + ROCX_FAB_OFF_LATENCY + 4, 0);
    return ROCX_FAB_TIMED_HLEN;
}

/* Append a frame to a timed record at b, stamped time + offset. */
static size_t c_tadd(uint8_t *b, size_t off, uint32_t offset,
                     const uint8_t *f, size_t len)
{
    stl_be_p(b + off, offset);
    stw_be_p(b + off + 4, len);
    memcpy(b + off + ROCX_FAB_TENTRY_HLEN, f, len);
    return off + ROCX_FAB_TENTRY_HLEN + len;
}

static uint8_t cqe_status(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

static RocxChanResult c_rx(TDev *d, const uint8_t *b, size_t len)
{
    return rocx_core_chan_receive(&d->f->core, b, len);
}

/* A broadcast Ethernet frame of len bytes from A, marked with tag. */
static void c_eth(uint8_t *fr, size_t len, uint8_t tag)
{
    memset(fr, 0, len);
    memset(fr, 0xff, 6);
    memcpy(fr + 6, A->mac, 6);
    fr[12] = 0x08;
    fr[14] = tag;
}

/* An Ethernet RX ring of depth 64 on d with n buffers posted. */
static uint64_t c_rx_ring(TDev *d, unsigned n)
{
    uint64_t ring = t_alloc(d, 64 * 16, T_PAGE);
    uint64_t bufs = t_alloc(d, 64 * 2048, T_PAGE);
    union rocx_aq_cmd c = t_cmd(ROCX_AQ_OP_CREATE_ETH_RING);
    unsigned i;

    c.create_eth_ring.base = htole64(T_GPA(ring));
    c.create_eth_ring.type = ROCX_ETH_RING_RX;
    c.create_eth_ring.log_depth = 6;
    c.create_eth_ring.vector = 0;
    c.create_eth_ring.buf_size = htole16(2048);
    CHECK_EQ(t_aq(d, &c, NULL), ROCX_AQ_STS_OK);
    for (i = 0; i < 64; i++) {
        struct rocx_eth_rx_desc *rd = t_ptr(d, ring + 16 * i, 16);

        rd->addr = htole64(T_GPA(bufs + 2048 * i));
    }
    t_db(d, 0, ROCX_DB_ETH_RX, 0, n, 0);
    return ring;
}

/*
 * d on a channel, joined: HELLO checked, then the switch's answer with
 * the given epoch (timed).  The link comes up at once (untimed) or once
 * the clock reaches the epoch.
 */
static void c_join(TDev *d, bool timed, int64_t epoch)
{
    uint8_t b[ROCX_FAB_CTRL_LEN];
    size_t len;

    rocx_core_chan_start(&d->f->core, timed);
    rocx_core_link_changed(&d->f->core);
    CHECK(!(rocx_core_link_status(&d->f->core) & ROCX_LINK_UP));
    len = rocx_core_chan_hello(&d->f->core, b);
    CHECK_EQ(len, ROCX_FAB_CTRL_LEN);
    CHECK(!memcmp(b + ROCX_FAB_OFF_SRC, d->f->core.port.mac, 6));
    CHECK_EQ(b[ROCX_FAB_OFF_TYPE], ROCX_FAB_HELLO);
    CHECK_EQ(b[ROCX_FAB_OFF_FLAGS], timed ? ROCX_FAB_F_TIMED : 0);
    if (timed) {
        CHECK_EQ(ldq_be_p(b + ROCX_FAB_OFF_TIME), d->f->now);
    }
    memset(b, 0, sizeof(b));
    c_hdr(b, ROCX_FAB_HELLO_ACK, timed ? ROCX_FAB_F_TIMED : 0, 0, epoch,
          C_LAT);
    CHECK_EQ(c_rx(d, b, sizeof(b)), ROCX_CHAN_OK);
    CHECK(d->f->core.chan.joined);
    if (!timed || d->f->now >= epoch) {
        CHECK(rocx_core_link_status(&d->f->core) & ROCX_LINK_UP);
    }
    while (t_eq_next(d, 0)) {
    }
}

/* ---- A switch that forwards records as they are ---- */

#define C_SLOTS     256

typedef struct CRec {
    TDev *to;
    size_t len;
    uint8_t buf[ROCX_FAB_BUNDLE_MAX];
} CRec;

static CRec *cq;
static unsigned cq_head, cq_count, c_records, c_frames, c_drop_nth;
static int64_t c_first_stamp[2], c_last_stamp[2];
/* Every record's side (0: A) and first stamp, in the order sent. */
#define C_LOG       64
static int64_t c_log_stamp[C_LOG];
static unsigned c_log_side[C_LOG];

/*
 * What a device sends: a record, always.  Stamps never go back along the
 * link; the stamp of a frame is never before the clock that sent it.
 */
static void c_on_send(FakeDev *f, const uint8_t *buf, size_t len)
{
    TDev *from = f->peer;
    unsigned side = from == B;
    CRec *r;

    CHECK(len >= ROCX_FAB_HLEN);
    CHECK_EQ(buf[ROCX_FAB_OFF_TYPE], ROCX_FAB_BUNDLE);
    CHECK(lduw_be_p(buf + ROCX_FAB_OFF_COUNT) >= 1);
    c_records++;
    c_frames += lduw_be_p(buf + ROCX_FAB_OFF_COUNT);
    if (buf[ROCX_FAB_OFF_FLAGS] & ROCX_FAB_F_TIMED) {
        int64_t t = ldq_be_p(buf + ROCX_FAB_OFF_TIME);
        size_t off = ROCX_FAB_TIMED_HLEN;
        int64_t last = t;

        CHECK(t >= c_last_stamp[side]);
        CHECK(t > f->now);
        while (off + ROCX_FAB_TENTRY_HLEN <= len) {
            last = t + ldl_be_p(buf + off);
            off += ROCX_FAB_TENTRY_HLEN + lduw_be_p(buf + off + 4);
        }
        /*
         * Nothing is sent ahead of the line clock in a timed run: the
         * last frame's last bit is at most one largest frame away.
         */
        CHECK(last - f->now <= ROCX_MAX_FRAME * 8 * 1000 /
              (int64_t)f->core.speed_mbps + 1);
        if (!c_first_stamp[side]) {
            c_first_stamp[side] = t;
        }
        c_last_stamp[side] = last;
        if (c_records <= C_LOG) {
            c_log_stamp[c_records - 1] = t;
            c_log_side[c_records - 1] = side;
        }
    }
    if (c_drop_nth && c_records == c_drop_nth) {
        return;
    }
    if (cq_count == C_SLOTS) {
        fprintf(stderr, "c_on_send: record queue overflow\n");
        abort();
    }
    r = &cq[(cq_head + cq_count++) % C_SLOTS];
    r->to = from == A ? B : A;
    r->len = len;
    memcpy(r->buf, buf, len);
    /* The switch sends it on as its own. */
    memcpy(r->buf + ROCX_FAB_OFF_SRC, c_switch, 6);
}

static void c_wire_init(void)
{
    if (!cq) {
        cq = calloc(C_SLOTS, sizeof(*cq));
    }
    cq_head = cq_count = c_records = c_frames = c_drop_nth = 0;
    memset(c_first_stamp, 0, sizeof(c_first_stamp));
    memset(c_last_stamp, 0, sizeof(c_last_stamp));
    A->f->on_send = c_on_send;
    B->f->on_send = c_on_send;
}

/* Engines and records until nothing moves at this instant. */
static void c_pump(void)
{
    unsigned iter;

    for (iter = 0; iter < 1000000; iter++) {
        bool moved = false;
        unsigned i;

        for (i = 0; i < 2; i++) {
            TDev *d = i ? B : A;

            if (d->f->scheduled) {
                d->f->scheduled = false;
                rocx_core_process(&d->f->core);
                moved = true;
            }
        }
        while (cq_count) {
            CRec *r = &cq[cq_head];

            cq_head = (cq_head + 1) % C_SLOTS;
            cq_count--;
            CHECK_EQ(c_rx(r->to, r->buf, r->len), ROCX_CHAN_OK);
            moved = true;
        }
        if (!moved) {
            return;
        }
    }
    fprintf(stderr, "c_pump: the fabric never went quiet\n");
    abort();
}

/* c_pump, both clocks moved together to the next deadline, until idle. */
static void c_settle(int64_t max_ns)
{
    int64_t start = A->f->now;

    for (;;) {
        int64_t next = INT64_MAX;
        unsigned i;

        c_pump();
        for (i = 0; i < 2; i++) {
            TDev *d = i ? B : A;

            if (d->f->timer_armed) {
                next = MIN(next, d->f->timer_deadline);
            }
        }
        if (next == INT64_MAX || next - start > max_ns) {
            return;
        }
        for (i = 0; i < 2; i++) {
            TDev *d = i ? B : A;

            if (next > d->f->now) {
                fake_advance(d->f, next - d->f->now);
            }
        }
    }
}

/* ---- Cases ---- */

/*
 * Untimed: the answer brings the link up at once, and every frame goes
 * in a record, a lone one in a bundle of one; a bundle of one from the
 * switch is delivered as it comes.
 */
static void t_chan_untimed(void)
{
    static uint8_t b[4096];
    uint8_t fr[64];
    size_t len;

    c_join(B, false, 0);
    CHECK_EQ(rocx_core_chan_horizon(&B->f->core), INT64_MAX);
    c_rx_ring(B, 4);
    c_eth(fr, sizeof(fr), 7);
    len = c_hdr(b, ROCX_FAB_BUNDLE, 0, 1, 0, 0);
    stw_be_p(b + len, sizeof(fr));
    memcpy(b + len + 2, fr, sizeof(fr));
    len += 2 + sizeof(fr);
    CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_OK);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 1);
    /* Nothing timed to promise on an untimed link. */
    CHECK_EQ(rocx_core_chan_sync(&B->f->core, 100, b), 0);
}

/*
 * Timed: carrier comes up at the epoch, not at the answer; the horizon is
 * the switch's promise plus the latency; a frame stamped s is delivered at
 * s + latency, not a nanosecond before, whenever the record was read; a
 * SYNC moves the horizon; promises only go forward.
 */
static void t_chan_timed_arrival(void)
{
    static uint8_t b[4096];
    uint8_t fr[64];
    const int64_t epoch = 1000000;
    size_t len;

    fake_advance(B->f, 400000);
    c_join(B, true, epoch);
    CHECK(!(rocx_core_link_status(&B->f->core) & ROCX_LINK_UP));
    CHECK_EQ(rocx_core_chan_horizon(&B->f->core), epoch + C_LAT);
    /* Nothing may be promised before the epoch. */
    CHECK_EQ(rocx_core_chan_sync(&B->f->core, epoch - 1, b), 0);
    fake_advance(B->f, epoch - B->f->now);
    rocx_core_link_changed(&B->f->core);
    CHECK(rocx_core_link_status(&B->f->core) & ROCX_LINK_UP);
    c_rx_ring(B, 8);
    /* Frames stamped epoch + 100, + 300 and + 301, read right away. */
    len = c_hdr(b, ROCX_FAB_BUNDLE, ROCX_FAB_F_TIMED, 3, epoch + 100, 0);
    c_eth(fr, sizeof(fr), 1);
    len = c_tadd(b, len, 0, fr, sizeof(fr));
    c_eth(fr, sizeof(fr), 2);
    len = c_tadd(b, len, 200, fr, sizeof(fr));
    c_eth(fr, sizeof(fr), 3);
    len = c_tadd(b, len, 201, fr, sizeof(fr));
    CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_OK);
    CHECK_EQ(rocx_core_chan_horizon(&B->f->core), epoch + 301 + C_LAT);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 0);
    CHECK(B->f->timer_armed);
    CHECK_EQ(B->f->timer_deadline, epoch + 100 + C_LAT);
    fake_advance(B->f, epoch + 100 + C_LAT - 1 - B->f->now);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 0);
    fake_advance(B->f, 1);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 1);
    CHECK_EQ(B->f->timer_deadline, epoch + 300 + C_LAT);
    fake_advance(B->f, 200);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 2);
    fake_advance(B->f, 1);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 3);
    /* A SYNC moves the horizon; ours promise forward only. */
    len = c_hdr(b, ROCX_FAB_SYNC, ROCX_FAB_F_TIMED, 0, epoch + 9000, 0);
    CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_OK);
    CHECK_EQ(rocx_core_chan_horizon(&B->f->core), epoch + 9000 + C_LAT);
    len = rocx_core_chan_sync(&B->f->core, B->f->now, b);
    CHECK_EQ(len, ROCX_FAB_TIMED_HLEN);
    CHECK_EQ(b[ROCX_FAB_OFF_TYPE], ROCX_FAB_SYNC);
    CHECK_EQ(b[ROCX_FAB_OFF_FLAGS], ROCX_FAB_F_TIMED);
    CHECK_EQ(ldq_be_p(b + ROCX_FAB_OFF_TIME), B->f->now);
    CHECK_EQ(rocx_core_chan_sync(&B->f->core, B->f->now, b), 0);
    CHECK_EQ(rocx_core_chan_stats(&B->f->core)->rx_frames, 3);
    /* BYE: nothing more comes, the horizon is gone, carrier too. */
    len = c_hdr(b, ROCX_FAB_BYE, ROCX_FAB_F_TIMED, 0, epoch + 9000, 0);
    CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_BYE);
    CHECK_EQ(rocx_core_chan_horizon(&B->f->core), INT64_MAX);
    CHECK(!(rocx_core_link_status(&B->f->core) & ROCX_LINK_UP));
}

/* What B sent last on its channel: a record's first stamp. */
static int64_t c_sent_stamp;
static unsigned c_sent;

static void c_on_send_stamp(FakeDev *f, const uint8_t *buf, size_t len)
{
    CHECK(len >= ROCX_FAB_TIMED_HLEN);
    CHECK(buf[ROCX_FAB_OFF_FLAGS] & ROCX_FAB_F_TIMED);
    c_sent_stamp = ldq_be_p(buf + ROCX_FAB_OFF_TIME);
    c_sent++;
}

/*
 * tx-delay and rx-delay (rocx-device.rst, "NIC delays"): a frame is
 * stamped the transmit delay after its last bit left the line clock; a
 * SYNC promises the clock plus that delay; a frame stamped s is taken at
 * s + latency + the receive delay, not a nanosecond before, and the
 * horizon is that much further.
 */
static void t_chan_timed_delays(void)
{
    static uint8_t b[4096];
    uint8_t fr[64];
    const int64_t epoch = 1000000;
    const uint32_t tx = 700, rx = 300;
    RocxCore *c = &B->f->core;
    int64_t line;
    size_t len;

    c_join(B, true, epoch);
    fake_advance(B->f, epoch - B->f->now);
    rocx_core_link_changed(c);
    CHECK(rocx_core_link_status(c) & ROCX_LINK_UP);
    c_rx_ring(B, 8);
    B->f->on_send = c_on_send_stamp;

    /* Without delays: the stamp is the line clock's last bit. */
    c_eth(fr, sizeof(fr), 1);
    rocx_send_frame(c, fr, sizeof(fr));
    CHECK_EQ(c_sent, 1);
    line = c_sent_stamp - B->f->now;
    CHECK(line > 0);
    fake_advance(B->f, 10000);
    CHECK(!rocx_core_set_delays(c, &(RocxDelays){ .tx_ns = tx,
                                                  .rx_ns = rx }));
    rocx_send_frame(c, fr, sizeof(fr));
    CHECK_EQ(c_sent, 2);
    CHECK_EQ(c_sent_stamp, B->f->now + line + tx);
    /* Nothing can leave before now + tx: that much is promised. */
    fake_advance(B->f, 10000);
    len = rocx_core_chan_sync(c, B->f->now, b);
    CHECK_EQ(len, ROCX_FAB_TIMED_HLEN);
    CHECK_EQ(ldq_be_p(b + ROCX_FAB_OFF_TIME), B->f->now + tx);

    /* The switch promised the epoch: the horizon is L + rx past it. */
    CHECK_EQ(rocx_core_chan_horizon(c), epoch + C_LAT + rx);
    len = c_hdr(b, ROCX_FAB_BUNDLE, ROCX_FAB_F_TIMED, 1, B->f->now, 0);
    c_eth(fr, sizeof(fr), 2);
    len = c_tadd(b, len, 0, fr, sizeof(fr));
    CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_OK);
    CHECK_EQ(rocx_core_chan_horizon(c), B->f->now + C_LAT + rx);
    CHECK_EQ(B->f->timer_deadline, B->f->now + C_LAT + rx);
    fake_advance(B->f, C_LAT + rx - 1);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 0);
    fake_advance(B->f, 1);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 1);
    CHECK_EQ(B->f->gerrs, 0);
}

/*
 * Frames queued for later arrival survive a device reset (the link is
 * down then, so they are counted as dropped on arrival), and the queue
 * wraps around its end in order.
 */
static void t_chan_timed_queue(void)
{
    static uint8_t b[ROCX_FAB_BUNDLE_MAX];
    static uint8_t fr[1500];
    int64_t t = 2000;
    uint64_t delivered = 0, ring;
    unsigned round, i;
    size_t len;

    c_join(B, true, 0);
    ring = c_rx_ring(B, 64);
    /* 30 rounds of 40 frames: 1.8 MB through a 1 MiB queue, in order. */
    for (round = 0; round < 30; round++) {
        len = c_hdr(b, ROCX_FAB_BUNDLE, ROCX_FAB_F_TIMED, 40, t, 0);
        for (i = 0; i < 40; i++) {
            c_eth(fr, sizeof(fr), i);
            len = c_tadd(b, len, i * 10, fr, sizeof(fr));
        }
        CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_OK);
        /*
         * Deliver the last round's second half and this one's first: 20
         * frames always wait, so the queue's tail runs round its end.
         */
        fake_advance(B->f, t + 190 + C_LAT - B->f->now);
        fake_run(B->f);
        t += 400;
        delivered = 40 * round + 20;
        /* Never empty, so the ring wrapped: 1.8 MB went through 1 MiB. */
        CHECK(B->f->core.chan.rxq_bytes > 0);
        CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS) +
                 t_stat(B, ROCX_STAT_RX_NO_BUFFER), delivered);
    }
    CHECK(rocx_core_chan_stats(&B->f->core)->rxq_peak < 80 * 1600);
    /* Frames in ring order, the 20 waiting included. */
    for (i = 0; i < 64; i++) {
        struct rocx_eth_rx_desc *rd = t_ptr(B, ring + 16 * i, 16);
        const uint8_t *f = fake_ptr(B->f, le64toh(rd->addr), 64);

        CHECK_EQ(f[14], i % 40);
    }
    fake_advance(B->f, t + C_LAT - B->f->now);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS) +
             t_stat(B, ROCX_STAT_RX_NO_BUFFER), 30 * 40);
    /* Queued, then a reset: they still arrive, to a link that is down. */
    len = c_hdr(b, ROCX_FAB_BUNDLE, ROCX_FAB_F_TIMED, 3, t, 0);
    for (i = 0; i < 3; i++) {
        c_eth(fr, 64, i);
        len = c_tadd(b, len, i, fr, 64);
    }
    CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_OK);
    rocx_core_reg_write(&B->f->core, ROCX_REG_DEV_CTRL, ROCX_DEV_CTRL_RESET,
                        4);
    CHECK(B->f->timer_armed);
    CHECK_EQ(B->f->timer_deadline, t + C_LAT);
    fake_advance(B->f, t + C_LAT + 2 - B->f->now);
    fake_run(B->f);
    CHECK_EQ(rocx_core_chan_stats(&B->f->core)->rx_frames, 30 * 40 + 3);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_DROPPED_LINK_DOWN), 3);
    /* Still joined: the channel outlives the driver's reset. */
    CHECK(B->f->core.chan.joined);
    CHECK(!B->f->core.chan.closed);
}

/*
 * Each record that breaks the format closes the channel, with a reason,
 * and delivers nothing: a bundle is checked whole first.
 */
static void t_chan_errors(void)
{
    static uint8_t b[4096];
    uint8_t fr[64];
    unsigned kind;

    for (kind = 0; kind < 10; kind++) {
        size_t len;

        t_teardown();
        t_setup();
        c_join(B, true, 0);
        c_eth(fr, sizeof(fr), 0);
        len = c_hdr(b, ROCX_FAB_BUNDLE, ROCX_FAB_F_TIMED, 1, 100, 0);
        len = c_tadd(b, len, 0, fr, sizeof(fr));
        switch (kind) {
        case 0:     /* untimed record on a timed link */
            b[ROCX_FAB_OFF_FLAGS] = 0;
            break;
        case 1:     /* a count beyond the entries */
            stw_be_p(b + ROCX_FAB_OFF_COUNT, 2);
            break;
        case 2:     /* bytes after the last entry */
            b[len++] = 0;
            break;
        case 3:     /* a bundle of none */
            stw_be_p(b + ROCX_FAB_OFF_COUNT, 0);
            len = ROCX_FAB_TIMED_HLEN;
            break;
        case 4:     /* stamped before the promise (the epoch, 0, + SYNC) */
            len = c_hdr(b, ROCX_FAB_SYNC, ROCX_FAB_F_TIMED, 0, 500, 0);
            CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_OK);
            len = c_hdr(b, ROCX_FAB_BUNDLE, ROCX_FAB_F_TIMED, 1, 499, 0);
            len = c_tadd(b, len, 0, fr, sizeof(fr));
            break;
        case 5:     /* entries whose offsets go back */
            stw_be_p(b + ROCX_FAB_OFF_COUNT, 2);
            stl_be_p(b + ROCX_FAB_TIMED_HLEN, 50);
            len = c_tadd(b, len, 10, fr, sizeof(fr));
            break;
        case 6:     /* a second HELLO_ACK */
            len = c_hdr(b, ROCX_FAB_HELLO_ACK, ROCX_FAB_F_TIMED, 0, 0, 10);
            break;
        case 7:     /* an unknown type */
            b[ROCX_FAB_OFF_TYPE] = 9;
            break;
        case 8:     /* not a fabric frame at all */
            len = sizeof(fr);
            memcpy(b, fr, len);
            break;
        case 9:     /* a first entry not at the record's time */
            stl_be_p(b + ROCX_FAB_TIMED_HLEN, 1);
            break;
        }
        CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_ERROR);
        CHECK(rocx_core_chan_error(&B->f->core) != NULL);
        /* A damaged record delivers none of its frames, the good ones too. */
        CHECK_EQ(rocx_core_chan_stats(&B->f->core)->rx_frames, 0);
        CHECK_EQ(rocx_core_chan_stats(&B->f->core)->rx_errors, 1);
        CHECK_EQ(rocx_core_chan_horizon(&B->f->core), INT64_MAX);
        CHECK(!(rocx_core_link_status(&B->f->core) & ROCX_LINK_UP));
        /* Nothing is taken once closed. */
        len = c_hdr(b, ROCX_FAB_SYNC, ROCX_FAB_F_TIMED, 0, 900, 0);
        CHECK_EQ(c_rx(B, b, len), ROCX_CHAN_ERROR);
        CHECK_EQ(rocx_core_chan_stats(&B->f->core)->rx_errors, 1);
    }
}

/* A refusal, and an answer whose clock is not ours, keep the link down. */
static void t_chan_refused(void)
{
    uint8_t b[ROCX_FAB_CTRL_LEN];

    rocx_core_chan_start(&B->f->core, false);
    rocx_core_chan_hello(&B->f->core, b);
    memset(b, 0, sizeof(b));
    c_hdr(b, ROCX_FAB_HELLO_ACK, ROCX_FAB_F_REFUSED, 0, 0, 0);
    CHECK_EQ(c_rx(B, b, sizeof(b)), ROCX_CHAN_REFUSED);
    CHECK(strstr(rocx_core_chan_error(&B->f->core), "timed"));
    CHECK(!(rocx_core_link_status(&B->f->core) & ROCX_LINK_UP));

    rocx_core_chan_start(&A->f->core, true);
    rocx_core_chan_hello(&A->f->core, b);
    memset(b, 0, sizeof(b));
    c_hdr(b, ROCX_FAB_HELLO_ACK, 0, 0, 0, 0);
    CHECK_EQ(c_rx(A, b, sizeof(b)), ROCX_CHAN_ERROR);
    CHECK(!A->f->core.chan.joined);
}

/*
 * An RC WRITE between two timed devices: every byte arrives; each record
 * is stamped at the line clock's last bit (a packet of 1 KiB and its
 * headers holds the device's 100 Gb/s line about 88 ns); the
 * first packet reaches B exactly one latency after its stamp.
 */
static void t_chan_timed_rc(void)
{
    TRcPair p;
    TConn conn;
    struct rocx_sge as;
    struct rocx_cqe e;
    int64_t t0;

    c_join(A, true, 0);
    c_join(B, true, 0);
    t_conn_default(&conn);
    t_rc_pair(&p, 64 * 1024, all_access, all_access, &conn);
    c_wire_init();
    t_fill(t_ptr(A, p.amr.off, 16 * 1024), 16 * 1024, 11);
    as = t_sge(&p.amr, 0, 16 * 1024);
    t0 = A->f->now;
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &as, 1,
                p.bmr.iova, p.bmr.key, 0);
    t_ring_sq(&p.qa);
    fake_run(A->f);
    CHECK(c_records >= 1);
    /* A packet of 1 KiB payload and headers on a 100 Gb/s line. */
    CHECK(c_first_stamp[0] > t0 + 1024 * 8 / 100);
    CHECK(c_first_stamp[0] < t0 + 1200 * 8 / 100);
    /* B has the record but nothing arrived before stamp + latency. */
    c_pump();
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS), 0);
    fake_advance(B->f, c_first_stamp[0] + C_LAT - 1 - B->f->now);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS), 0);
    fake_advance(B->f, 1);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_ROCE_RX_PACKETS), 1);
    c_settle(1000LL * 1000 * 1000);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, p.bmr.off, 16 * 1024),
                  t_ptr(A, p.amr.off, 16 * 1024), 16 * 1024));
    CHECK(c_frames >= 5);       /* four packets and an ACK at least */
}

/*
 * In a timed run the local ACK timeout is the QP's own, 4.096 us <<
 * timeout, not the 10 ms floor kept for TCG's stalls: a lost packet is
 * sent again one timeout after it left, to the nanosecond.
 */
static void t_chan_timed_rto(void)
{
    TRcPair p;
    TConn conn;
    struct rocx_sge as;
    struct rocx_cqe e;
    int64_t t0;

    c_join(A, true, 0);
    c_join(B, true, 0);
    t_conn_default(&conn);
    /* 16.384 us: longer than the round trip of two latencies. */
    conn.timeout = 2;
    t_rc_pair(&p, 8192, all_access, all_access, &conn);
    c_wire_init();
    c_drop_nth = 1;
    t_fill(t_ptr(A, p.amr.off, 1024), 1024, 3);
    as = t_sge(&p.amr, 0, 1024);
    t0 = A->f->now;
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &as, 1,
                p.bmr.iova, p.bmr.key, 0);
    t_ring_sq(&p.qa);
    c_settle(1000LL * 1000 * 1000);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, p.bmr.off, 1024), t_ptr(A, p.amr.off, 1024),
                  1024));
    /* The lost one, the same again, the ACK. */
    CHECK_EQ(c_records, 3);
    CHECK_EQ(c_log_side[0], 0);
    CHECK_EQ(c_log_side[1], 0);
    CHECK_EQ(c_log_side[2], 1);
    CHECK(c_log_stamp[0] > t0);
    /* Sent again exactly one timeout after it first left. */
    CHECK_EQ(c_log_stamp[1], c_log_stamp[0] + 16384);
    /* Answered one latency after it arrived, plus the ACK's line time. */
    CHECK(c_log_stamp[2] > c_log_stamp[1] + C_LAT);
    CHECK(c_log_stamp[2] < c_log_stamp[1] + C_LAT + 100);
}

const TCase t_cases_chan[] = {
    T_CASE(chan_untimed),
    T_CASE(chan_timed_arrival),
    T_CASE(chan_timed_delays),
    T_CASE(chan_timed_queue),
    T_CASE(chan_errors),
    T_CASE(chan_refused),
    T_CASE(chan_timed_rc),
    T_CASE(chan_timed_rto),
};
const unsigned t_ncases_chan = ARRAY_SIZE(t_cases_chan);
