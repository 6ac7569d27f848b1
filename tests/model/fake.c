/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fake machine for the rocx device core; see fake.h.
 */
#include "fake.h"

const uint8_t fake_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static bool fake_range_ok(FakeDev *f, uint64_t addr, size_t len,
                          bool write)
{
    if (addr < FAKE_MEM_BASE || len > FAKE_MEM_SIZE ||
        addr - FAKE_MEM_BASE > FAKE_MEM_SIZE - len) {
        return false;
    }
    if (f->fault_len && (write || !f->fault_writes_only) &&
        addr < f->fault_addr + f->fault_len &&
        f->fault_addr < addr + len) {
        return false;
    }
    return true;
}

void *fake_ptr(FakeDev *f, uint64_t gpa, size_t len)
{
    if (gpa < FAKE_MEM_BASE || len > FAKE_MEM_SIZE ||
        gpa - FAKE_MEM_BASE > FAKE_MEM_SIZE - len) {
        fprintf(stderr, "fake_ptr: 0x%" PRIx64 "+%zu outside memory\n",
                gpa, len);
        abort();
    }
    return f->mem + (gpa - FAKE_MEM_BASE);
}

static int fake_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    FakeDev *f = opaque;

    f->dma_reads++;
    if (f->on_dma) {
        f->on_dma(f, addr, len, false);
    }
    if (!fake_range_ok(f, addr, len, false)) {
        return -1;
    }
    memcpy(buf, f->mem + (addr - FAKE_MEM_BASE), len);
    return 0;
}

static int fake_dma_write(void *opaque, uint64_t addr, const void *buf,
                          size_t len)
{
    FakeDev *f = opaque;

    f->dma_writes++;
    if (f->on_dma) {
        f->on_dma(f, addr, len, true);
    }
    if (!fake_range_ok(f, addr, len, true)) {
        return -1;
    }
    memcpy(f->mem + (addr - FAKE_MEM_BASE), buf, len);
    return 0;
}

static void fake_raise_irq(void *opaque, unsigned vector)
{
    FakeDev *f = opaque;

    if (vector >= ROCX_MSIX_VECTORS) {
        fprintf(stderr, "raise_irq: vector %u out of range\n", vector);
        abort();
    }
    f->irqs[vector]++;
    f->irqs_total++;
}

static void fake_send_frame(void *opaque, const uint8_t *buf, size_t len)
{
    FakeDev *f = opaque;

    /* A bundle of frames is longer, once the core may send them. */
    if (len < 14 || len > (f->core.bundles || f->core.chan.on ?
                           ROCX_FAB_BUNDLE_MAX : ROCX_MAX_FRAME)) {
        fprintf(stderr, "send_frame: length %zu out of range\n", len);
        abort();
    }
    if (f->nframes < FAKE_MAX_FRAMES && len <= ROCX_MAX_FRAME) {
        memcpy(f->frames[f->nframes], buf, len);
        f->frame_len[f->nframes] = len;
    }
    f->nframes++;
    if (f->on_send) {
        f->on_send(f, buf, len);
    }
}

static void fake_schedule_work(void *opaque)
{
    FakeDev *f = opaque;

    f->scheduled = true;
    f->nscheduled++;
}

static void fake_rx_resume(void *opaque)
{
    FakeDev *f = opaque;

    f->rx_resumes++;
    if (f->on_rx_resume) {
        f->on_rx_resume(f);
    }
}

static bool fake_carrier(void *opaque)
{
    FakeDev *f = opaque;

    if (f->core.chan.on) {
        return rocx_core_chan_carrier(&f->core);
    }

    return f->carrier;
}

static void G_GNUC_PRINTF(4, 0)
fake_guest_error(void *opaque, unsigned code, unsigned info,
                 const char *fmt, va_list ap)
{
    FakeDev *f = opaque;

    f->gerrs++;
    f->last_gerr_code = code;
    f->last_gerr_info = info;
    vsnprintf(f->last_gerr_msg, sizeof(f->last_gerr_msg), fmt, ap);
    if (f->print_gerrs) {
        fprintf(stderr, "guest error %u/0x%x: %s\n", code, info,
                f->last_gerr_msg);
    }
}

static void fake_aq_done(void *opaque, unsigned opcode, unsigned cmd_id,
                         unsigned status)
{
    FakeDev *f = opaque;

    f->aq_done++;
    f->last_aq_opcode = opcode;
    f->last_aq_status = status;
}

static void fake_qp_state(void *opaque, uint32_t qpn, unsigned from,
                          unsigned to)
{
    FakeDev *f = opaque;

    f->qp_states++;
    f->last_state_qpn = qpn;
    f->last_state_from = from;
    f->last_state_to = to;
}

static void fake_retransmit(void *opaque, uint32_t qpn, uint32_t psn,
                            unsigned why)
{
    FakeDev *f = opaque;

    assert(why < ARRAY_SIZE(f->retransmits));
    f->retransmits[why]++;
    f->last_retx_psn = psn;
}

static void fake_nak(void *opaque, uint32_t qpn, uint32_t psn,
                     uint8_t syndrome, bool sent)
{
    FakeDev *f = opaque;

    if (sent) {
        f->naks_sent++;
    } else {
        f->naks_received++;
    }
    f->last_nak_syndrome = syndrome;
}

static void fake_cnp(void *opaque, uint32_t qpn, bool sent)
{
    FakeDev *f = opaque;

    if (sent) {
        f->cnps_sent++;
    } else {
        f->cnps_handled++;
    }
}

static void fake_pause(void *opaque, int prio, uint16_t quanta, bool sent)
{
    FakeDev *f = opaque;

    if (sent) {
        *(quanta ? &f->xoffs_sent : &f->xons_sent) += 1;
    } else {
        *(quanta ? &f->xoffs_received : &f->xons_received) += 1;
    }
    f->last_pause_prio = prio;
}

static int64_t fake_now_ns(void *opaque)
{
    FakeDev *f = opaque;

    return f->now;
}

static void fake_timer_mod(void *opaque, int64_t deadline_ns)
{
    FakeDev *f = opaque;

    f->timer_armed = true;
    f->timer_deadline = deadline_ns;
    f->timer_arms++;
}

static void fake_timer_cancel(void *opaque)
{
    FakeDev *f = opaque;

    f->timer_armed = false;
    f->timer_cancels++;
}

static const RocxCoreOps fake_ops = {
    .dma_read = fake_dma_read,
    .dma_write = fake_dma_write,
    .raise_irq = fake_raise_irq,
    .send_frame = fake_send_frame,
    .schedule_work = fake_schedule_work,
    .rx_resume = fake_rx_resume,
    .carrier = fake_carrier,
    .guest_error = fake_guest_error,
    .aq_done = fake_aq_done,
    .qp_state = fake_qp_state,
    .retransmit = fake_retransmit,
    .nak = fake_nak,
    .cnp = fake_cnp,
    .pause = fake_pause,
    .now_ns = fake_now_ns,
    .timer_mod = fake_timer_mod,
    .timer_cancel = fake_timer_cancel,
};

void fake_reset(FakeDev *f)
{
    /* fake_new() zeroes the device, so ops is NULL the first time. */
    if (f->core.ops) {
        rocx_core_fini(&f->core);
    }
    memset(f, 0, sizeof(*f));
    f->carrier = true;
    rocx_core_init(&f->core, &fake_ops, f, fake_mac, ROCX_CORE_DEFAULT_SPEED);
}

FakeDev *fake_new(void)
{
    FakeDev *f = calloc(1, sizeof(*f));

    if (!f) {
        abort();
    }
    fake_reset(f);
    return f;
}

void fake_free(FakeDev *f)
{
    rocx_core_fini(&f->core);
    free(f);
}

unsigned fake_run(FakeDev *f)
{
    unsigned n = 0;

    /* The engine must go quiet on its own; 10000 rounds means a loop. */
    while (f->scheduled && n < 10000) {
        f->scheduled = false;
        rocx_core_process(&f->core);
        n++;
    }
    if (f->scheduled) {
        fprintf(stderr, "fake_run: engine never went quiet\n");
        abort();
    }
    return n;
}

void fake_set_carrier(FakeDev *f, bool up)
{
    f->carrier = up;
    rocx_core_link_changed(&f->core);
}

void fake_advance(FakeDev *f, int64_t ns)
{
    f->now += ns;
    if (f->timer_armed && f->timer_deadline <= f->now) {
        f->timer_armed = false;
        rocx_core_timer(&f->core);
    }
}
