/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake machine around the rocx device core: guest memory is a host
 * array, and interrupts, frames, scheduled work and guest errors are
 * recorded for the tests (and the fuzzer) to look at.
 */
#ifndef ROCX_TEST_FAKE_H
#define ROCX_TEST_FAKE_H

#include "qemu/osdep.h"
#include "rocx-core.h"

/* Guest physical memory: [FAKE_MEM_BASE, FAKE_MEM_BASE + FAKE_MEM_SIZE). */
#ifndef FAKE_MEM_BASE
#define FAKE_MEM_BASE   0x100000000ULL
#endif
#ifndef FAKE_MEM_SIZE
#define FAKE_MEM_SIZE   (4u << 20)
#endif
#define FAKE_MAX_FRAMES 16

typedef struct FakeDev FakeDev;

struct FakeDev {
    RocxCore core;
    uint8_t mem[FAKE_MEM_SIZE];
    /* DMA touching [fault_addr, fault_addr + fault_len) fails. */
    uint64_t fault_addr;
    uint64_t fault_len;
    bool fault_writes_only;     /* reads of the window still succeed */
    uint64_t dma_reads;
    uint64_t dma_writes;
    /*
     * Called before every DMA the core asks for: where a test makes
     * something happen in the middle of the engine, as another device
     * the DMA reaches could.
     */
    void (*on_dma)(FakeDev *f, uint64_t addr, size_t len, bool write);

    unsigned irqs[ROCX_MSIX_VECTORS];
    unsigned irqs_total;

    /* The first FAKE_MAX_FRAMES frames sent are kept; all are counted. */
    unsigned nframes;
    uint16_t frame_len[FAKE_MAX_FRAMES];
    uint8_t frames[FAKE_MAX_FRAMES][ROCX_MAX_FRAME];

    bool scheduled;
    unsigned nscheduled;
    unsigned rx_resumes;
    void (*on_rx_resume)(FakeDev *f);
    bool carrier;

    unsigned aq_done;
    unsigned last_aq_opcode;
    unsigned last_aq_status;

    /* The transport timer, on a clock that only tests move. */
    int64_t now;
    bool timer_armed;
    int64_t timer_deadline;
    unsigned timer_arms;
    unsigned timer_cancels;

    /* Called for every frame sent, after it was recorded. */
    void (*on_send)(FakeDev *f, const uint8_t *buf, size_t len);
    void *peer;                 /* for on_send: whatever the test wires */

    /* What the core reported through its optional trace callbacks. */
    unsigned qp_states;         /* state changes of every QP */
    uint32_t last_state_qpn;
    unsigned last_state_from, last_state_to;
    unsigned retransmits[ROCX_RETX_RNR + 1];    /* by RocxRetx */
    uint32_t last_retx_psn;
    unsigned naks_sent, naks_received;
    uint8_t last_nak_syndrome;
    unsigned cnps_sent, cnps_handled;
    unsigned xoffs_sent, xons_sent, xoffs_received, xons_received;
    int last_pause_prio;

    unsigned gerrs;
    unsigned last_gerr_code;
    unsigned last_gerr_info;
    char last_gerr_msg[256];
    bool print_gerrs;
};

extern const uint8_t fake_mac[6];

FakeDev *fake_new(void);
/* Back to a freshly initialised device and an empty machine. */
void fake_reset(FakeDev *f);
void fake_free(FakeDev *f);
/* Run the engine until it stops asking for more work; returns the calls. */
unsigned fake_run(FakeDev *f);
void *fake_ptr(FakeDev *f, uint64_t gpa, size_t len);
void fake_set_carrier(FakeDev *f, bool up);
/* Move the clock on by ns; fires the timer if it is due (no engine run). */
void fake_advance(FakeDev *f, int64_t ns);

#endif /* ROCX_TEST_FAKE_H */
