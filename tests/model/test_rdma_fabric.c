/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fabric bundles (rocx-fabric.c): HELLO at link-up and its retries, the
 * HELLO_ACK that enables bundles, the frames of an engine run in one
 * bundle, bundles split on receive, a bundle whose frames find the RX
 * ring empty (they wait in the device), malformed bundles, and transfers
 * with datagram loss between two devices that bundle.  Also direct doorbells:
 * the engine run inside the SQ doorbell write.
 */
#include "rdma.h"
#include "qemu/bswap.h"

#define MIB             (1u << 20)
/* The least max_len the model takes: a bundle of two of its largest frames. */
#define FAB_PEER_MIN  ROCX_FAB_MIN_MAX(ROCX_MAX_FRAME)

static const uint8_t fab_dst[6] = ROCX_FAB_DST_MAC;
static const uint8_t fab_switch[6] = ROCX_FAB_SWITCH_MAC;

static const uint32_t all_access = ROCX_ACCESS_LOCAL_WRITE |
    ROCX_ACCESS_REMOTE_WRITE | ROCX_ACCESS_REMOTE_READ;

/* Fabric header (rocx/rocx_fabric.h) as rocx-switch sends it. */
static size_t fab_hdr(uint8_t *b, uint8_t type, uint16_t count, uint32_t max)
{
    memcpy(b + ROCX_FAB_OFF_DST, fab_dst, sizeof(fab_dst));
    memcpy(b + ROCX_FAB_OFF_SRC, fab_switch, sizeof(fab_switch));
    stw_be_p(b + ROCX_FAB_OFF_ETHERTYPE, ROCX_FAB_ETHERTYPE);
    stl_be_p(b + ROCX_FAB_OFF_MAGIC, ROCX_FAB_MAGIC);
    b[ROCX_FAB_OFF_TYPE] = type;
    b[ROCX_FAB_OFF_FLAGS] = 0;
    stw_be_p(b + ROCX_FAB_OFF_COUNT, count);
    stl_be_p(b + ROCX_FAB_OFF_MAX_LEN, max);
    return ROCX_FAB_HLEN;
}

static bool is_fab(const uint8_t *b, size_t len, uint8_t type)
{
    return len >= ROCX_FAB_HLEN &&
           !memcmp(b + ROCX_FAB_OFF_DST, fab_dst, sizeof(fab_dst)) &&
           lduw_be_p(b + ROCX_FAB_OFF_ETHERTYPE) == ROCX_FAB_ETHERTYPE &&
           (uint32_t)ldl_be_p(b + ROCX_FAB_OFF_MAGIC) == ROCX_FAB_MAGIC &&
           b[ROCX_FAB_OFF_TYPE] == type;
}

/* A HELLO_ACK from src offering max. */
static void fab_ack_from(TDev *d, const uint8_t *src, uint32_t max)
{
    uint8_t b[ROCX_FAB_CTRL_LEN] = { 0 };

    fab_hdr(b, ROCX_FAB_HELLO_ACK, 0, max);
    memcpy(b + ROCX_FAB_OFF_SRC, src, 6);
    t_inject(d, b, sizeof(b));
}

/* What rocx-switch answers to a HELLO. */
static void fab_ack(TDev *d, uint32_t max)
{
    fab_ack_from(d, fab_switch, max);
}

/* Append a frame to a bundle being built at b (header already there). */
static size_t fab_add(uint8_t *b, size_t off, const uint8_t *f, size_t len)
{
    stw_be_p(b + off, len);
    memcpy(b + off + ROCX_FAB_ENTRY_HLEN, f, len);
    return off + ROCX_FAB_ENTRY_HLEN + len;
}

/* Bundles on for d, and the link bounced so that it says HELLO. */
static void fab_on(TDev *d)
{
    rocx_core_set_bundles(&d->f->core, true);
    fake_set_carrier(d->f, false);
    fake_set_carrier(d->f, true);
    while (t_eq_next(d, 0)) {
    }
}

/* ---- A datagram wire: bundles are longer than rdma.c's frames ---- */

#define F_SLOTS     512

typedef struct FDgram {
    TDev *to;
    size_t len;
    uint8_t buf[ROCX_FAB_BUNDLE_MAX];
} FDgram;

static FDgram *fq;
static unsigned fq_head, fq_count;
static unsigned f_sent, f_dropped, f_bundles, f_bundled, f_drop_permille;
static uint32_t f_rng;

static void f_on_send(FakeDev *f, const uint8_t *buf, size_t len)
{
    TDev *from = f->peer;
    FDgram *d;

    f_sent++;
    if (is_fab(buf, len, ROCX_FAB_BUNDLE)) {
        f_bundles++;
        f_bundled += lduw_be_p(buf + ROCX_FAB_OFF_COUNT);
    }
    f_rng = f_rng * 1103515245u + 12345u;
    if (f_drop_permille && (f_rng >> 16) % 1000 < f_drop_permille) {
        f_dropped++;
        return;
    }
    if (fq_count == F_SLOTS) {
        fprintf(stderr, "f_on_send: datagram queue overflow\n");
        abort();
    }
    d = &fq[(fq_head + fq_count++) % F_SLOTS];
    d->to = from == A ? B : A;
    d->len = len;
    memcpy(d->buf, buf, len);
}

static void f_wire_init(void)
{
    if (!fq) {
        fq = calloc(F_SLOTS, sizeof(*fq));
    }
    fq_head = fq_count = 0;
    f_sent = f_dropped = f_bundles = f_bundled = f_drop_permille = 0;
    f_rng = 1;
    A->f->on_send = f_on_send;
    B->f->on_send = f_on_send;
}

/* Engines and the wire until nothing moves (rdma.c's t_pump, datagrams). */
static void f_pump(void)
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
        while (fq_count) {
            FDgram *d = &fq[fq_head];

            fq_head = (fq_head + 1) % F_SLOTS;
            fq_count--;
            /* Never held here: these devices have no Ethernet RX ring. */
            CHECK_EQ(rocx_core_receive(&d->to->f->core, d->buf, d->len),
                     d->len);
            moved = true;
        }
        if (!moved) {
            return;
        }
    }
    fprintf(stderr, "f_pump: the fabric never went quiet\n");
    abort();
}

/* f_pump, moving the clock to due timers, until idle or max_ns passed. */
static void f_settle(int64_t max_ns)
{
    int64_t start = A->f->now;

    for (;;) {
        int64_t next = INT64_MAX;
        unsigned i;

        f_pump();
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
 * A HELLO at every link-up, two more a second apart while nobody answers,
 * none once answered, none with bundles off; frames stay single until
 * the answer.
 */
static void t_fabric_hello(void)
{
    FakeDev *f = A->f;
    const uint8_t *h;
    unsigned n0, i;

    fake_set_carrier(B->f, false);
    fake_set_carrier(B->f, true);
    fake_run(B->f);
    CHECK_EQ(B->f->nframes, 0);

    n0 = f->nframes;
    fab_on(A);
    fake_run(f);
    CHECK_EQ(f->nframes, n0 + 1);
    h = f->frames[n0];
    CHECK(is_fab(h, f->frame_len[n0], ROCX_FAB_HELLO));
    CHECK_EQ(f->frame_len[n0], ROCX_FAB_CTRL_LEN);
    CHECK(!memcmp(h + ROCX_FAB_OFF_SRC, f->core.port.mac, 6));
    CHECK_EQ(lduw_be_p(h + ROCX_FAB_OFF_COUNT), 0);
    CHECK_EQ((uint32_t)ldl_be_p(h + ROCX_FAB_OFF_MAX_LEN),
             ROCX_FAB_BUNDLE_MAX);
    /* Unanswered: again after a second, at most three in all. */
    rocx_core_process(&f->core);
    CHECK_EQ(f->nframes, n0 + 1);
    for (i = 0; i < 4; i++) {
        fake_advance(f, ROCX_FAB_HELLO_INTERVAL_MS * 1000 * 1000LL);
        rocx_core_process(&f->core);
    }
    CHECK_EQ(f->nframes, n0 + ROCX_FAB_HELLO_TRIES);
    CHECK_EQ(f->core.fabric.stats.hellos, ROCX_FAB_HELLO_TRIES);
    CHECK(!f->core.fabric.tx_ok);

    /* An answer that allows too little is not one. */
    fab_ack(A, 4096);
    CHECK(!f->core.fabric.tx_ok);
    CHECK_EQ(f->core.fabric.stats.rx_errors, 1);
    fab_ack(A, ROCX_FAB_BUNDLE_MAX);
    CHECK(f->core.fabric.tx_ok);
    /* The next link-up asks again. */
    fab_on(A);
    CHECK(!f->core.fabric.tx_ok);
    n0 = f->nframes;
    fake_run(f);
    CHECK_EQ(f->nframes, n0 + 1);
    fab_ack(A, ROCX_FAB_BUNDLE_MAX);
    fake_advance(f, 5000 * 1000 * 1000LL);
    rocx_core_process(&f->core);
    CHECK_EQ(f->nframes, n0 + 1);
}

/*
 * A HELLO_ACK counts only as the switch's first answer to a HELLO: not
 * before any HELLO went out, not from another source, not a second time
 * (a later one cannot shrink the bundles the switch takes), and one that
 * arrives while the engine is sending takes effect after that run, so
 * that no run sends some frames alone and the rest in a bundle.
 */
static void t_fabric_hello_ack(void)
{
    FakeDev *f = A->f;
    RocxFabric *fab = &f->core.fabric;

    /* Bundles offered, but the link is down: no HELLO went out. */
    rocx_core_set_bundles(&f->core, true);
    fake_set_carrier(f, false);
    fab_ack(A, ROCX_FAB_BUNDLE_MAX);
    CHECK(!fab->tx_ok);
    CHECK_EQ(fab->stats.rx_errors, 1);
    /* Up, but the engine has not said HELLO yet. */
    fake_set_carrier(f, true);
    fab_ack(A, ROCX_FAB_BUNDLE_MAX);
    CHECK(!fab->tx_ok);
    CHECK_EQ(fab->stats.rx_errors, 2);
    fake_run(f);
    CHECK_EQ(fab->stats.hellos, 1);
    /* Another guest on the fabric answering in the switch's place. */
    fab_ack_from(A, B->mac, ROCX_FAB_BUNDLE_MAX);
    CHECK(!fab->tx_ok);
    CHECK_EQ(fab->stats.rx_errors, 3);
    /* The switch's answer. */
    fab_ack(A, ROCX_FAB_BUNDLE_MAX);
    CHECK(fab->tx_ok);
    CHECK_EQ(fab->tx_max, ROCX_FAB_BUNDLE_MAX);
    CHECK_EQ(fab->stats.rx_errors, 3);
    /* A second answer changes nothing. */
    fab_ack(A, FAB_PEER_MIN);
    CHECK(fab->tx_ok);
    CHECK_EQ(fab->tx_max, ROCX_FAB_BUNDLE_MAX);
    CHECK_EQ(fab->stats.rx_errors, 4);
}

/*
 * f_on_send, and a HELLO_ACK to the sender right after its first frame,
 * delivered from inside its send as QEMU's net layer can; if the device
 * refuses it there, QEMU queues it until the device's rx_resume.
 */
static bool f_ack_pending, f_ack_held;
static uint8_t f_ack[ROCX_FAB_CTRL_LEN];

static void f_ack_resume(FakeDev *f)
{
    if (f_ack_held &&
        rocx_core_receive(&f->core, f_ack, sizeof(f_ack)) == sizeof(f_ack)) {
        f_ack_held = false;
    }
}

static void f_on_send_ack(FakeDev *f, const uint8_t *buf, size_t len)
{
    f_on_send(f, buf, len);
    if (f_ack_pending) {
        f_ack_pending = false;
        memset(f_ack, 0, sizeof(f_ack));
        fab_hdr(f_ack, ROCX_FAB_HELLO_ACK, 0, ROCX_FAB_BUNDLE_MAX);
        f_ack_held = !rocx_core_receive(&f->core, f_ack, sizeof(f_ack));
    }
}

typedef struct FPair {
    TCq acq, bcq;
    TQp qa, qb;
    TMr amr, bmr;
} FPair;

static void f_pair(FPair *p, uint64_t size)
{
    TConn conn;

    memset(p, 0, sizeof(*p));
    CHECK_EQ(t_create_cq(A, &p->acq, 10, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_cq(B, &p->bcq, 10, 0, 1), ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(A, &p->qa, &p->acq, &p->acq, 8, 8, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_create_qp(B, &p->qb, &p->bcq, &p->bcq, 8, 8, 0),
             ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(A, &p->amr, t_alloc(A, size, T_PAGE), size,
                      all_access), ROCX_AQ_STS_OK);
    CHECK_EQ(t_reg_mr(B, &p->bmr, t_alloc(B, size, T_PAGE), size,
                      all_access), ROCX_AQ_STS_OK);
    t_conn_default(&conn);
    conn.mtu = 3;
    t_connect(&p->qa, &p->qb, &conn);
}

static uint8_t cqe_status(const struct rocx_cqe *e)
{
    return le32toh(e->src_qp_status) >> 24;
}

/*
 * WRITE, READ and SEND of 1 MiB between two devices that bundle, with
 * datagrams (whole bundles) dropped at the given rate: data and
 * completions exact, and the frames really travelled in bundles.
 */
static void fabric_xfer(unsigned drop_permille)
{
    static const uint8_t ops[] = {
        ROCX_WQE_RDMA_WRITE, ROCX_WQE_RDMA_READ, ROCX_WQE_SEND,
    };
    FPair p;
    unsigned i;

    fab_on(A);
    fab_on(B);
    fake_run(A->f);
    fake_run(B->f);
    fab_ack(A, ROCX_FAB_BUNDLE_MAX);
    fab_ack(B, ROCX_FAB_BUNDLE_MAX);
    f_pair(&p, 2 * MIB);
    f_wire_init();
    f_drop_permille = drop_permille;
    for (i = 0; i < ARRAY_SIZE(ops); i++) {
        uint8_t *a = t_ptr(A, p.amr.off, MIB);
        uint8_t *b = t_ptr(B, p.bmr.off, MIB);
        struct rocx_sge as = t_sge(&p.amr, 0, MIB);
        struct rocx_sge bs = t_sge(&p.bmr, 0, MIB);
        uint8_t *src = ops[i] == ROCX_WQE_RDMA_READ ? b : a;
        uint8_t *dst = ops[i] == ROCX_WQE_RDMA_READ ? a : b;
        struct rocx_cqe e;

        t_fill(src, MIB, 40 + i);
        memset(dst, 0, MIB);
        if (ops[i] == ROCX_WQE_SEND) {
            t_post_recv(&p.qb, &bs, 1);
            t_ring_rq(&p.qb);
        }
        t_post_send(&p.qa, ops[i], ROCX_WQE_SIGNALED, &as, 1, p.bmr.iova,
                    p.bmr.key, 0);
        t_ring_sq(&p.qa);
        f_settle(60LL * 1000 * 1000 * 1000);
        CHECK(t_poll(&p.acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
        if (ops[i] == ROCX_WQE_SEND) {
            CHECK(t_poll(&p.bcq, &e));
            CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
            CHECK_EQ(le32toh(e.byte_len), MIB);
        }
        CHECK(!memcmp(src, dst, MIB));
    }
    CHECK(f_bundles > 0);
    /* 1 KiB frames: a bundle holds up to about 60 of them. */
    CHECK(f_bundled > 20 * f_bundles);
    CHECK_EQ(A->f->core.fabric.stats.tx_bundles +
             B->f->core.fabric.stats.tx_bundles, f_bundles);
    CHECK_EQ(A->f->core.fabric.stats.rx_errors +
             B->f->core.fabric.stats.rx_errors, 0);
    CHECK_EQ(t_stat(A, ROCX_STAT_ROCE_ICRC_ERRORS) +
             t_stat(B, ROCX_STAT_ROCE_ICRC_ERRORS), 0);
    if (drop_permille) {
        CHECK(f_dropped > 0);
        CHECK(A->f->core.rdma.stats.retransmits > 0);
    } else {
        CHECK_EQ(A->f->core.rdma.stats.retransmits, 0);
    }
}

/*
 * The switch's answer arrives (QEMU's net layer delivering it) while the
 * engine sends the packets of a WRITE: that run's packets all go alone,
 * the next run's in one bundle.
 */
static void t_fabric_hello_ack_mid_run(void)
{
    FPair p;
    struct rocx_sge as;
    struct rocx_cqe e;
    unsigned sent;

    f_pair(&p, MIB);
    /* B takes bundles: a device that offers none would not split them. */
    fab_on(B);
    fake_run(B->f);
    fab_ack(B, ROCX_FAB_BUNDLE_MAX);
    fab_on(A);
    fake_run(A->f);
    CHECK_EQ(A->f->core.fabric.stats.hellos, 1);
    f_wire_init();
    A->f->on_send = f_on_send_ack;
    A->f->on_rx_resume = f_ack_resume;
    f_ack_pending = true;
    f_ack_held = false;
    as = t_sge(&p.amr, 0, 8 * 1024);
    t_fill(t_ptr(A, p.amr.off, 8 * 1024), 8 * 1024, 5);
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, 0, &as, 1, p.bmr.iova,
                p.bmr.key, 0);
    t_ring_sq(&p.qa);
    fake_run(A->f);
    /* Eight packets of 1 KiB, each its own datagram. */
    CHECK_EQ(f_sent, 8);
    CHECK_EQ(f_bundles, 0);
    CHECK(A->f->core.fabric.tx_ok);
    CHECK(!f_ack_held);
    /* The next run bundles. */
    sent = f_sent;
    as = t_sge(&p.amr, 0, 8 * 1024);
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &as, 1,
                p.bmr.iova + 8 * 1024, p.bmr.key, 0);
    t_ring_sq(&p.qa);
    fake_run(A->f);
    CHECK_EQ(f_sent, sent + 1);
    CHECK_EQ(f_bundles, 1);
    CHECK_EQ(f_bundled, 8);
    f_settle(1000LL * 1000 * 1000);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(t_ptr(B, p.bmr.off, 16 * 1024),
                  t_ptr(A, p.amr.off, 8 * 1024), 8 * 1024));
    CHECK(!memcmp(t_ptr(B, p.bmr.off + 8 * 1024, 8 * 1024),
                  t_ptr(A, p.amr.off, 8 * 1024), 8 * 1024));
}

static void t_fabric_xfer(void)
{
    fabric_xfer(0);
}

static void t_fabric_xfer_loss(void)
{
    fabric_xfer(100);
}

/* An Ethernet RX ring of depth 64 on d with n buffers posted. */
static uint64_t f_rx_ring(TDev *d, unsigned n)
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
 * A bundle whose Ethernet frames find no buffer is taken whole, as any
 * frame is: the frames that found none wait in the device, in order, and
 * go to the buffers posted later, none of them twice.
 */
static void t_fabric_rx_hold(void)
{
    static uint8_t b[4096], b2[4096];
    uint8_t fr[64];
    uint64_t ring;
    size_t len;
    unsigned i;

    fab_on(B);
    ring = f_rx_ring(B, 1);
    len = fab_hdr(b, ROCX_FAB_BUNDLE, 3, ROCX_FAB_BUNDLE_MAX);
    for (i = 0; i < 3; i++) {
        memset(fr, 0, sizeof(fr));
        memset(fr, 0xff, 6);
        memcpy(fr + 6, A->mac, 6);
        fr[12] = 0x08;
        fr[14] = i;
        len = fab_add(b, len, fr, sizeof(fr));
    }
    CHECK(rocx_core_can_receive(&B->f->core));
    CHECK_EQ(rocx_core_receive(&B->f->core, b, len), len);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 1);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_NO_BUFFER), 2);
    /* More buffers: frames 1 and 2, then another bundle after them. */
    t_db(B, 0, ROCX_DB_ETH_RX, 0, 10, 0);
    fake_run(B->f);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 3);
    memcpy(b2, b, len);
    b2[len - 1] ^= 1;
    CHECK_EQ(rocx_core_receive(&B->f->core, b2, len), len);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 6);
    for (i = 0; i < 6; i++) {
        struct rocx_eth_rx_desc *rd = t_ptr(B, ring + 16 * i, 16);
        const uint8_t *p = fake_ptr(B->f, le64toh(rd->addr), 64);

        CHECK_EQ(le16toh(rd->status), ROCX_ETH_STS_DONE);
        CHECK_EQ(p[14], i % 3);
    }
    CHECK_EQ(B->f->core.fabric.stats.rx_bundles, 2);
    CHECK_EQ(B->f->core.fabric.stats.rx_bundled, 6);
    CHECK_EQ(B->f->core.fabric.stats.rx_errors, 0);
}

/*
 * Malformed bundles: frames up to the damage are taken, the rest dropped
 * and counted; with bundles off a fabric frame is only an Ethernet frame.
 */
static void t_fabric_malformed(void)
{
    static uint8_t b[4096];
    uint8_t fr[64];
    size_t len, good;

    memset(fr, 0, sizeof(fr));
    memset(fr, 0xff, 6);
    memcpy(fr + 6, A->mac, 6);
    fr[12] = 0x08;

    /* Off: not split, not consumed as a bundle. */
    len = fab_hdr(b, ROCX_FAB_BUNDLE, 2, ROCX_FAB_BUNDLE_MAX);
    len = fab_add(b, len, fr, sizeof(fr));
    len = fab_add(b, len, fr, sizeof(fr));
    CHECK_EQ(rocx_core_receive(&B->f->core, b, len), len);
    CHECK_EQ(B->f->core.fabric.stats.rx_bundles, 0);

    fab_on(B);
    f_rx_ring(B, 60);
    /* Count says 3, two are there. */
    CHECK_EQ(rocx_core_receive(&B->f->core, b, len), len);
    stw_be_p(b + ROCX_FAB_OFF_COUNT, 3);
    CHECK_EQ(rocx_core_receive(&B->f->core, b, len), len);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 4);
    CHECK_EQ(B->f->core.fabric.stats.rx_errors, 1);
    /* A length past the end: the first frame only. */
    good = ROCX_FAB_HLEN + ROCX_FAB_ENTRY_HLEN + sizeof(fr);
    stw_be_p(b + ROCX_FAB_OFF_COUNT, 2);
    b[good] = 0x40;
    CHECK_EQ(rocx_core_receive(&B->f->core, b, len), len);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 5);
    CHECK_EQ(B->f->core.fabric.stats.rx_errors, 2);
    /* Bytes after the last frame, and a header cut short. */
    b[good] = 0;
    CHECK_EQ(rocx_core_receive(&B->f->core, b, len + 3), len + 3);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 7);
    CHECK_EQ(B->f->core.fabric.stats.rx_errors, 3);
    CHECK_EQ(rocx_core_receive(&B->f->core, b, ROCX_FAB_HLEN + 1),
             ROCX_FAB_HLEN + 1);
    CHECK_EQ(B->f->core.fabric.stats.rx_errors, 4);
    /* A HELLO (another NIC's) and unknown types are ignored. */
    b[ROCX_FAB_OFF_TYPE] = ROCX_FAB_HELLO;
    CHECK_EQ(rocx_core_receive(&B->f->core, b, ROCX_FAB_CTRL_LEN),
             ROCX_FAB_CTRL_LEN);
    b[ROCX_FAB_OFF_TYPE] = 9;
    CHECK_EQ(rocx_core_receive(&B->f->core, b, ROCX_FAB_CTRL_LEN),
             ROCX_FAB_CTRL_LEN);
    CHECK(!B->f->core.fabric.tx_ok);
    CHECK_EQ(t_stat(B, ROCX_STAT_RX_PACKETS), 7);
}

/*
 * Direct doorbells: the send leaves inside the doorbell write, nothing is
 * left for a later engine call; a long message sends one budget there and
 * leaves the rest to the scheduled call; a doorbell while packets are in
 * flight only schedules it; a bad doorbell still reports its guest error,
 * event included.
 */
static void t_direct_doorbell(void)
{
    FPair p;
    uint8_t *a, *b;
    struct rocx_cqe e;
    struct rocx_eqe *ev;
    struct rocx_sge as;
    unsigned sent;

    f_pair(&p, 2 * MIB);
    rocx_core_set_direct_doorbells(&A->f->core, true);
    a = t_ptr(A, p.amr.off, MIB);
    b = t_ptr(B, p.bmr.off, MIB);

    memcpy(a, "hi", 2);
    A->f->scheduled = false;
    sent = wire.sent;
    t_post_inline(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, a, 2,
                  p.bmr.iova, p.bmr.key);
    t_ring_sq(&p.qa);
    CHECK_EQ(wire.sent, sent + 1);
    CHECK(!A->f->scheduled);
    t_pump();
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(b, "hi", 2));

    t_fill(a, MIB, 77);
    as = t_sge(&p.amr, 0, MIB);
    sent = wire.sent;
    t_post_send(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, &as, 1,
                p.bmr.iova, p.bmr.key, 0);
    t_ring_sq(&p.qa);
    CHECK_EQ(wire.sent, sent + ROCX_CORE_PKT_BUDGET);
    CHECK(A->f->scheduled);
    /* In flight: the next doorbell leaves its WQE to the scheduled call. */
    t_post_inline(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, a, 2,
                  p.bmr.iova, p.bmr.key);
    t_ring_sq(&p.qa);
    CHECK_EQ(wire.sent, sent + ROCX_CORE_PKT_BUDGET);
    t_pump();
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(a, b, MIB));

    /* A producer index beyond the queue: one guest error and its event. */
    t_db(A, 0, ROCX_DB_SQ, p.qa.qpn, p.qa.sq_pi + 1000, 0);
    CHECK_EQ(A->f->gerrs, 1);
    CHECK_EQ(A->f->last_gerr_code, ROCX_GERR_DB_INDEX);
    CHECK(A->f->scheduled);
    t_pump();
    ev = t_eq_next(A, 0);
    CHECK(ev && le16toh(ev->type) == ROCX_EQE_GUEST_ERROR);
}

/*
 * Lazy doorbells (x-lazy-doorbell): a doorbell of a QP that waits for an
 * ACK neither sends nor wakes anything; the ACK's engine run sends the
 * WQE.  A QP with nothing in flight still sends inside the doorbell.
 */
static void t_lazy_doorbell(void)
{
    FPair p;
    uint8_t *a, *b;
    struct rocx_cqe e;
    unsigned sent;

    f_pair(&p, 2 * MIB);
    rocx_core_set_direct_doorbells(&A->f->core, true);
    rocx_core_set_lazy_doorbells(&A->f->core, true);
    a = t_ptr(A, p.amr.off, MIB);
    b = t_ptr(B, p.bmr.off, MIB);

    memcpy(a, "one", 3);
    memcpy(a + 8, "two", 3);
    A->f->scheduled = false;
    sent = wire.sent;
    t_post_inline(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, a, 3,
                  p.bmr.iova, p.bmr.key);
    t_ring_sq(&p.qa);
    CHECK_EQ(wire.sent, sent + 1);
    CHECK(!A->f->scheduled);
    /* Its ACK not back yet: the next WQE waits for it, nothing is woken. */
    t_post_inline(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, a + 8, 3,
                  p.bmr.iova + 8, p.bmr.key);
    t_ring_sq(&p.qa);
    CHECK_EQ(wire.sent, sent + 1);
    CHECK(!A->f->scheduled);
    t_pump();
    CHECK_EQ(wire.sent, sent + 2 + 2);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(t_poll(&p.acq, &e));
    CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    CHECK(!memcmp(b, "one", 3) && !memcmp(b + 8, "two", 3));
}

/*
 * The bound on a lazy doorbell: with its ACK held back, the WQE leaves
 * ROCX_CORE_LAZY_DB_NS after the doorbell that deferred it, not at the
 * retransmit timeout; a second deferred doorbell rides on the same bound.
 */
static void t_lazy_doorbell_bound(void)
{
    FPair p;
    uint8_t *a, *b;
    struct rocx_cqe e;
    unsigned sent, arms;
    int i;

    f_pair(&p, 2 * MIB);
    rocx_core_set_direct_doorbells(&A->f->core, true);
    rocx_core_set_lazy_doorbells(&A->f->core, true);
    a = t_ptr(A, p.amr.off, MIB);
    b = t_ptr(B, p.bmr.off, MIB);
    memcpy(a, "one", 3);
    memcpy(a + 8, "two", 3);
    memcpy(a + 16, "six", 3);

    A->f->scheduled = false;
    sent = wire.sent;
    t_post_inline(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED, a, 3,
                  p.bmr.iova, p.bmr.key);
    t_ring_sq(&p.qa);
    CHECK_EQ(wire.sent, sent + 1);
    /* The first frame stays on the wire: no ACK comes back meanwhile. */
    for (i = 0; i < 2; i++) {
        t_post_inline(&p.qa, ROCX_WQE_RDMA_WRITE, ROCX_WQE_SIGNALED,
                      a + 8 * (i + 1), 3, p.bmr.iova + 8 * (i + 1),
                      p.bmr.key);
        arms = A->f->timer_arms;
        t_ring_sq(&p.qa);
        CHECK(!A->f->scheduled);
        /* The first deferred doorbell arms the bound, the second not. */
        CHECK_EQ(A->f->timer_arms, arms + (i == 0));
        fake_advance(A->f, ROCX_CORE_LAZY_DB_NS / 4);
        CHECK(!A->f->scheduled);
    }
    CHECK(A->f->timer_armed &&
          A->f->timer_deadline == A->f->now + ROCX_CORE_LAZY_DB_NS / 2);
    fake_advance(A->f, ROCX_CORE_LAZY_DB_NS / 2 - 1);
    CHECK(!A->f->scheduled);
    CHECK_EQ(wire.sent, sent + 1);
    fake_advance(A->f, 1);
    CHECK(A->f->scheduled);
    A->f->scheduled = false;
    rocx_core_process(&A->f->core);
    /* Both WQEs, long before the retransmit timeout, and not resent. */
    CHECK_EQ(wire.sent, sent + 3);
    CHECK_EQ(A->f->core.rdma.stats.lazy_doorbells, 2);
    CHECK_EQ(A->f->core.rdma.stats.lazy_expiries, 1);
    CHECK_EQ(A->f->core.rdma.stats.retransmits, 0);
    t_pump();
    for (i = 0; i < 3; i++) {
        CHECK(t_poll(&p.acq, &e));
        CHECK_EQ(cqe_status(&e), ROCX_WC_SUCCESS);
    }
    CHECK(!memcmp(b, "one", 3) && !memcmp(b + 8, "two", 3) &&
          !memcmp(b + 16, "six", 3));
}

const TCase t_cases_fabric[] = {
    T_CASE(fabric_hello),
    T_CASE(fabric_hello_ack),
    T_CASE(fabric_hello_ack_mid_run),
    T_CASE(fabric_xfer),
    T_CASE(fabric_xfer_loss),
    T_CASE(fabric_rx_hold),
    T_CASE(fabric_malformed),
    T_CASE(direct_doorbell),
    T_CASE(lazy_doorbell),
    T_CASE(lazy_doorbell_bound),
};
const unsigned t_ncases_fabric = ARRAY_SIZE(t_cases_fabric);
