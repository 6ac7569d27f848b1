/*
 * rocx device model core: everything the device does, without QEMU's
 * device, memory or net APIs.
 *
 * The core sees the outside world only through RocxCoreOps (DMA, MSI-X,
 * the network backend, deferred work, guest error reports), so that the
 * host unit tests and the fuzzer can drive it with fake memory and record
 * what it does; of QEMU it uses only helpers a host program can link
 * (qemu/bswap.h, net/eth.h, net/checksum.c).  rocx-pci.c binds it to
 * QEMU's PCI, memory and net APIs.  Its files, one per block of the
 * device, are listed at the top of rocx-int.h.
 *
 * Work placement.  Two kinds of caller enter the core:
 *
 *  - the "MMIO side": register and doorbell accesses (rocx_core_reg_*,
 *    rocx_core_db_*).  These are short and bounded: they validate, latch
 *    values (doorbell indices, arm requests, the self-test start) and ask
 *    the glue to run the engine later through ops->schedule_work().  With
 *    direct doorbells (rocx_core_set_direct_doorbells()) the SQ doorbell
 *    of a QP with nothing in flight runs one engine call itself.
 *  - the "engine": rocx_core_process(), plus the receive path
 *    (rocx_core_can_receive/receive) and rocx_core_link_changed(), which
 *    QEMU's net layer calls, and rocx_core_timer().  Only the engine walks
 *    rings, executes admin commands, writes event and completion queues
 *    or sends frames.  It does a bounded amount of work per call and
 *    reschedules itself for the rest.
 *
 * Today both run under QEMU's global lock (BQL).  The fields below (and
 * those of the RDMA objects, rocx-rdma.h) say which side writes them, so
 * that the engine can move to a thread of its own later: MMIO-latched
 * fields then become atomics or a message queue.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ROCX_CORE_H
#define HW_NET_ROCX_CORE_H

#include "rocx/rocx_hw.h"
#include "rocx/rocx_if.h"
#include "rocx/rocx_fabric.h"

/* Limits this model reports in IDENTIFY. */
#define ROCX_CORE_MAX_EQ            8
/* TX rings, one per traffic class (rocx-sched.c); RX: ring 0 is filled. */
#define ROCX_CORE_MAX_ETH_RINGS     8
#define ROCX_CORE_GID_TBL_LEN       128
#define ROCX_CORE_MAX_PD            1024
#define ROCX_CORE_MAX_UCTX          (ROCX_DB_PAGES - 1)
#define ROCX_CORE_MAX_QP            1024
#define ROCX_CORE_MAX_QP_WR         4096
#define ROCX_CORE_MAX_SGE           8
#define ROCX_CORE_MAX_INLINE        256
#define ROCX_CORE_MAX_CQ            1024
#define ROCX_CORE_MAX_CQE           65536
#define ROCX_CORE_MAX_MR            4096
/* Memory windows (ROCX_CAP2_MW). */
#define ROCX_CORE_MAX_MW            1024
/* Pages of one fast-register MR (ROCX_CAP2_FAST_REG): one table page. */
#define ROCX_CORE_MAX_FAST_REG_PAGES    ROCX_PBL_ENTRIES_PER_PAGE
#define ROCX_CORE_MAX_SRQ           256
#define ROCX_CORE_MAX_SRQ_WR        4096
#define ROCX_CORE_MAX_SRQ_SGE       ROCX_CORE_MAX_SGE
/* XRC domains (ROCX_CAP2_XRC). */
#define ROCX_CORE_MAX_XRCD          256
#define ROCX_CORE_MAX_RD_ATOM       16
#define ROCX_CORE_MAX_MR_SIZE       (1ULL << 40)
#define ROCX_CORE_PAGE_SIZE_CAP     ((1ULL << 12) | (1ULL << 21))
#define ROCX_CORE_CAPS              (ROCX_CAP_ETH | ROCX_CAP_RDMA | \
                                     ROCX_CAP_ROCE_V1 | ROCX_CAP_ROCE_V2 | \
                                     ROCX_CAP_DCB | ROCX_CAP_SELFTEST)
/* Parts of contract 1.2 this model implements (IDENTIFY.caps2). */
#define ROCX_CORE_CAPS2             (ROCX_CAP2_QPN_ROTATE | \
                                     ROCX_CAP2_EQ_OVERFLOW_EVENT | \
                                     ROCX_CAP2_MCAST_FILTER | \
                                     ROCX_CAP2_UC | \
                                     ROCX_CAP2_PFC | \
                                     ROCX_CAP2_ETS | \
                                     ROCX_CAP2_UD | \
                                     ROCX_CAP2_ATOMIC | \
                                     ROCX_CAP2_MW | \
                                     ROCX_CAP2_FAST_REG | \
                                     ROCX_CAP2_SRQ | \
                                     ROCX_CAP2_XRC | \
                                     ROCX_CAP2_SRQ_RESIZE | \
                                     ROCX_CAP2_CQ_RESIZE | \
                                     ROCX_CAP2_USER_CLOCK | \
                                     ROCX_CAP2_DB_RECORD | \
                                     ROCX_CAP2_CQE64 | \
                                     ROCX_CAP2_CLOCK | \
                                     ROCX_CAP2_MCAST | \
                                     ROCX_CAP2_GSI | \
                                     ROCX_CAP2_ECN | \
                                     ROCX_CAP2_DCQCN)
/*
 * IDENTIFY.atomic_cap: atomic against other rocx requests, not against
 * the guest's CPUs (rocx-atomic.c).
 */
#define ROCX_CORE_ATOMIC_CAP        ROCX_ATOMIC_CAP_HCA
/* CQE64: formats 0 and 1; CLOCK: nanoseconds (rocx-clock.c). */
#define ROCX_CORE_CQE_FORMATS       (ROCX_BIT(ROCX_CQE_FORMAT_32) | \
                                     ROCX_BIT(ROCX_CQE_FORMAT_64))
#define ROCX_CORE_CLOCK_KHZ         1000000
#define ROCX_CORE_MAX_MCAST_MACS    64
#define ROCX_CORE_MAX_MCAST_GRP     64
#define ROCX_CORE_MAX_MCAST_QP_ATTACH   16
#define ROCX_CORE_FW_VERSION        0x00010000  /* 1.0.0 */
#define ROCX_CORE_DEFAULT_MTU       1500
#define ROCX_CORE_DEFAULT_SPEED     100000      /* Mb/s */
#define ROCX_CORE_MAX_SPEED         400000      /* Mb/s, IDENTIFY.max_speed */
/* Receive buffering shared by the priorities (IDENTIFY.rx_buf_total). */
#define ROCX_CORE_RX_BUF_TOTAL      (512 * 1024)

/*
 * Time in the device (Documentation/rocx-device.rst, "Time in the
 * device"): everything that waits (a QP's local ACK timeout and RNR wait,
 * the fabric's HELLO retries) holds a RocxTimer with its deadline in one
 * min-heap, and the core asks its host for a single wake-up, at the
 * earliest deadline (ops->timer_mod).  No path scans every object.
 */
typedef enum RocxTimerKind {
    ROCX_TIMER_QP,              /* RocxQp.timer: ACK timeout, RNR wait */
    ROCX_TIMER_FABRIC,          /* RocxFabric.hello_timer: HELLO retry */
    ROCX_TIMER_DCB,             /* RocxDcb: pause expiry, XOFF refresh */
    ROCX_TIMER_CC,              /* RocxQp.cc.timer: DCQCN alpha, increase */
    ROCX_TIMER_SCHED,           /* RocxSched.timer: line or class free */
    ROCX_TIMER_PACE,            /* RocxQp.sched.timer: QP may send again */
    ROCX_TIMER_CHAN,            /* RocxChan.rx_timer: a frame's arrival */
    ROCX_TIMER_CNP,             /* RocxCnpLine.timer: a delayed CNP */
    ROCX_TIMER_DB,              /* RocxDbLine.timer: a delayed doorbell */
    ROCX_TIMER_LAZY,            /* RocxCore.lazy_timer: deferred doorbells */
} RocxTimerKind;

typedef struct RocxTimer {
    int64_t deadline;           /* ns on ops->now_ns()'s clock */
    uint32_t pos;               /* index in the heap + 1; 0: not queued */
    uint8_t kind;               /* RocxTimerKind */
} RocxTimer;

/*
 * Every QP (transport, DCQCN and pacing), the fabric, each priority
 * (pause, XOFF), the port's 802.3x XOFF, the transmit scheduler, the
 * fabric channel's receive queue, the CNP and doorbell delay lines and
 * the bound on deferred doorbells may wait at once.
 */
#define ROCX_CORE_MAX_TIMERS        (3 * ROCX_CORE_MAX_QP + 1 + \
                                     2 * ROCX_NUM_PRIO + 1 + 1 + 1 + 1 + 1 + \
                                     1)
/*
 * The longest a lazy doorbell's WQEs wait for the engine run of the ACK
 * their QP waits for (rocx-device.rst, "Doorbells"): a lost or late ACK
 * must not hold them until the retransmit timeout, where the hardware
 * would have sent them at once.
 */
#define ROCX_CORE_LAZY_DB_NS        100000

/* Deadlines handled per rocx_core_process() call; more: another call. */
#define ROCX_CORE_TIMER_BUDGET      256

#include "rocx-rdma.h"

/*
 * Work done per rocx_core_process() call before it yields: a hostile guest
 * must not keep QEMU's main loop (and every other device) waiting.
 */
#define ROCX_CORE_AQ_BUDGET         32
#define ROCX_CORE_TX_BUDGET         256
/*
 * Asynchronous events waiting for the engine to write them to EQ 0: one
 * QP_ERROR per QP (a QP has at most one queued), one CQ_ERROR per CQ (a
 * CQ fails once), SRQ events alike, and the port's (rocx-device.rst,
 * "Event queues").  An event that finds it full is counted as lost to
 * EQ 0, which reports the loss with EQ_OVERFLOW.
 */
#define ROCX_CORE_EVQ_LEN           (ROCX_CORE_MAX_QP + ROCX_CORE_MAX_CQ + \
                                     ROCX_CORE_MAX_SRQ + ROCX_EQ0_PORT_EVENTS)

/*
 * Fault injection for tests of the driver's recovery
 * (rocx_core_set_aq_stall()): stall the admin queue at the next command of
 * one opcode, or at the next command whatever its opcode.
 */
#define ROCX_CORE_AQ_STALL_OFF      (-1)
#define ROCX_CORE_AQ_STALL_ANY      0x10000
/*
 * Ethernet frames waiting in the device for RX buffers (rocx-eth.c), in
 * bytes with a 2-byte length each, and how many an engine run moves to
 * the ring.
 */
#define ROCX_CORE_RX_HOLD_BYTES     (256 * 1024)
#define ROCX_CORE_RX_BUDGET         256

/*
 * Fabric bundles (rocx-fabric.c, format in rocx/rocx_fabric.h): once the
 * peer (rocx-switch) has answered the device's HELLO, the frames one
 * engine run sends leave as one datagram of at most ROCX_FAB_BUNDLE_MAX
 * bytes, and bundles the peer sends are split on receive.
 */

typedef struct RocxFabricStats {
    uint64_t hellos;            /* HELLOs sent */
    uint64_t tx_bundles;        /* bundle datagrams sent */
    uint64_t tx_bundled;        /* frames sent inside them */
    uint64_t rx_bundles;
    uint64_t rx_bundled;
    uint64_t rx_errors;         /* malformed or unexpected fabric frames */
} RocxFabricStats;

/* Engine-owned: the MMIO side never touches it. */
typedef struct RocxFabric {
    bool hello_due;             /* the link came up: say HELLO */
    uint8_t hellos;             /* sent since, unanswered */
    int64_t hello_ns;           /* when the last one went */
    RocxTimer hello_timer;      /* the next one, while unanswered */
    bool tx_ok;                 /* the peer answered: bundles allowed */
    uint32_t tx_max;            /* bytes of a bundle the peer takes */
    uint32_t tx_len;            /* bytes in tx, header included; 0: none */
    uint16_t tx_count;          /* frames in tx */
    int64_t tx_first;           /* timed channel: the first frame's stamp */
    RocxFabricStats stats;
    uint8_t tx[ROCX_FAB_BUNDLE_MAX];
} RocxFabric;

/*
 * The fabric channel (rocx-chan.c; Documentation/rocx-device.rst, "Fabric
 * channel" and "Timed mode"): a connection to rocx-switch that the glue
 * owns and the core speaks.  Every frame travels in a record, a BUNDLE of
 * one or more; on a timed channel each carries its stamp, the virtual
 * instant its last bit left, and frames received wait in rxq until their
 * arrival instant (stamp + latency).  Arrivals on one link never go back
 * in time, so rxq is a FIFO.
 */
#define ROCX_CHAN_RXQ_BYTES         (1024 * 1024)
/* An rxq entry: the arrival instant and the frame's length, then the frame. */
#define ROCX_CHAN_RXQ_HLEN          10

typedef enum RocxChanResult {
    ROCX_CHAN_OK,
    ROCX_CHAN_BYE,              /* the switch left (BYE) */
    ROCX_CHAN_REFUSED,          /* HELLO_ACK with REFUSED */
    ROCX_CHAN_ERROR,            /* a protocol error: close the channel */
} RocxChanResult;

typedef struct RocxChanStats {
    uint64_t tx_records;        /* records sent, of every type */
    uint64_t tx_frames;         /* frames sent inside BUNDLEs */
    uint64_t tx_syncs;
    uint64_t rx_records;
    uint64_t rx_frames;         /* frames taken from BUNDLEs */
    uint64_t rx_syncs;
    uint64_t rx_errors;         /* records that closed the channel */
    uint64_t rxq_peak;          /* most bytes rxq held */
} RocxChanStats;

/* Survives a reset: the device stays joined to the fabric through one. */
typedef struct RocxChan {
    bool on;                    /* rocx_core_chan_start(): records only */
    bool timed;
    bool hello_sent;
    bool joined;                /* HELLO_ACK taken */
    bool closed;                /* BYE, end of file or an error */
    bool rings_offer;           /* HELLO offers shared-memory rings */
    bool rings;                 /* HELLO_ACK took them: records go there */
    uint32_t latency_ns;        /* timed: L, from HELLO_ACK */
    int64_t epoch;              /* timed: the link's carrier from here */
    int64_t rx_promise;         /* timed: INT64_MAX once the switch left */
    int64_t tx_promise;         /* timed: the last stamp or promise sent */
    /* Timed: received frames in arrival order, a ring of entries. */
    uint8_t *rxq;
    uint32_t rxq_head;          /* the oldest entry */
    uint32_t rxq_tail;          /* where the next one goes */
    uint32_t rxq_wrap;          /* entries from head end here when wrapped */
    uint32_t rxq_bytes;         /* bytes held, headers included */
    bool rxq_wrapped;
    RocxTimer rx_timer;         /* the oldest entry's arrival */
    const char *error;          /* why the channel closed, for the glue */
    RocxChanStats stats;
} RocxChan;

/*
 * The NIC's delays (rocx-delay.c; Documentation/rocx-device.rst, "NIC
 * delays"), in ns of the device clock, 0..ROCX_DELAY_MAX_NS.  Set by the
 * glue before the guest runs; they survive a reset.
 */
#define ROCX_DELAY_MAX_NS           100000
typedef struct RocxDelays {
    uint32_t tx_ns;             /* transmit pipeline: added to stamps */
    uint32_t rx_ns;             /* receive pipeline: added to arrivals */
    uint32_t cnp_ns;            /* notification point: marked packet to CNP */
    uint32_t db_ns;             /* SQ doorbell to WQE fetch (PCIe) */
} RocxDelays;

/*
 * CNPs waiting out cnp_ns, in the order they were decided (so in due
 * order: the delay is one for all).  Engine-owned; a reset empties it.
 */
#define ROCX_DELAY_CNP_SLOTS        1024
typedef struct RocxCnpLine {
    struct {
        uint32_t qpn;           /* the QP whose peer gets the CNP */
        int64_t due;
    } slot[ROCX_DELAY_CNP_SLOTS];
    uint32_t head;
    uint32_t count;
    RocxTimer timer;            /* the oldest slot's due time */
} RocxCnpLine;

/*
 * SQ doorbells waiting out db_ns, in the order they were written (so in
 * due order).  Filled by SQ doorbell writes (MMIO) and emptied by the
 * engine, which QEMU runs under its global lock both; a reset empties it.
 */
#define ROCX_DELAY_DB_SLOTS         1024
typedef struct RocxDbLine {
    struct {
        uint32_t qpn;
        uint32_t gen;           /* the QP's sq_db_gen when it was written */
        uint16_t idx;           /* the producer index it carries */
        int64_t due;
    } slot[ROCX_DELAY_DB_SLOTS];
    uint32_t head;
    uint32_t count;
    RocxTimer timer;            /* the oldest slot's due time */
} RocxDbLine;

typedef struct RocxCoreOps {
    /* Device DMA; 0 on success, -1 if any byte is not accessible. */
    int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
    int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
                     size_t len);
    /* Signal an MSI-X vector (< ROCX_MSIX_VECTORS). */
    void (*raise_irq)(void *opaque, unsigned vector);
    /*
     * Put one frame (or a bundle of them, up to ROCX_FAB_BUNDLE_MAX
     * bytes, once the peer agreed) on the wire; the core reuses buf
     * afterwards.
     */
    void (*send_frame)(void *opaque, const uint8_t *buf, size_t len);
    /* Call rocx_core_process() soon, from outside the current handler. */
    void (*schedule_work)(void *opaque);
    /*
     * Frames held back by can_receive()/receive() may be offered again.
     * (Today the core refuses none: Ethernet frames wait in the device.)
     */
    void (*rx_resume)(void *opaque);
    /* Whether the backend has carrier (QEMU: set_link). */
    bool (*carrier)(void *opaque);
    /*
     * Optional: the driver set the port administratively up (SET_PORT).
     * A timed fabric channel joins the fabric then (rocx-device.rst,
     * "Joining and leaving"); carrier() is asked right after.
     */
    void (*admin_up)(void *opaque);
    /* Report a guest error; the core has already counted it. */
    void (*guest_error)(void *opaque, unsigned code, unsigned info,
                        const char *fmt, va_list ap) G_GNUC_PRINTF(4, 0);
    /* Optional: an admin command completed (for tracing). */
    void (*aq_done)(void *opaque, unsigned opcode, unsigned cmd_id,
                    unsigned status);
    /* Optional: fault injection stalled the queue at this command. */
    void (*aq_stalled)(void *opaque, unsigned opcode);
    /*
     * Optional, for tracing the transport and the lossless blocks: a QP
     * changed state (enum rocx_qp_state; rocx_core_qp_state_name()); a
     * requester went back to resend from psn (RocxRetx;
     * rocx_core_retx_name()); a NAK or RNR NAK (AETH syndrome) was sent
     * or received; a CNP was sent for, or handled by, a QP; a pause
     * frame was sent or acted on for priority prio (-1: 802.3x, every
     * priority), quanta 0 being XON.
     */
    void (*qp_state)(void *opaque, uint32_t qpn, unsigned from, unsigned to);
    void (*retransmit)(void *opaque, uint32_t qpn, uint32_t psn,
                       unsigned why);
    void (*nak)(void *opaque, uint32_t qpn, uint32_t psn, uint8_t syndrome,
                bool sent);
    void (*cnp)(void *opaque, uint32_t qpn, bool sent);
    void (*pause)(void *opaque, int prio, uint16_t quanta, bool sent);
    /*
     * The device's one wake-up, for the earliest of its deadlines.
     * now_ns() is the clock deadlines are given in, and the only clock
     * the core reads; timer_mod() (re)arms the timer to call
     * rocx_core_timer() at deadline_ns, replacing any earlier setting;
     * timer_cancel() stops it.
     */
    int64_t (*now_ns)(void *opaque);
    void (*timer_mod)(void *opaque, int64_t deadline_ns);
    void (*timer_cancel)(void *opaque);
} RocxCoreOps;

typedef struct RocxEthRing {
    /* Engine: CREATE/DESTROY_ETH_RING and reset. */
    bool valid;
    uint8_t log_depth;
    uint8_t vector;
    uint16_t buf_size;          /* RX only */
    uint64_t base;
    uint16_t ci;                /* engine: next descriptor to complete */
    /* MMIO: producer index latched from the ETH_TX/ETH_RX doorbell. */
    uint16_t pi;
    /*
     * Engine, TX only: the traffic class it was created for, and the
     * priority of the frame it waits at while that is paused
     * (ROCX_NUM_PRIO: none).
     */
    uint8_t tc;
    uint8_t paused_prio;
} RocxEthRing;

typedef struct RocxEq {
    /* Engine: CREATE/DESTROY_EQ and reset. */
    bool valid;
    bool broken;                /* engine: ring DMA failed, writes stop */
    bool armed;                 /* engine: signal on the next event */
    uint8_t log_depth;
    uint8_t vector;
    uint64_t base;
    uint32_t pi;                /* engine: events written, free-running */
    /* MMIO: consumer index (widened from 16 bits) and ARM from doorbells. */
    uint32_t ci;
    bool arm_req;
    /*
     * Engine: events lost since the last EQ_OVERFLOW entry, written
     * ahead of the next entry there is room for.
     */
    uint32_t lost;
} RocxEq;

typedef struct RocxGid {
    bool valid;
    uint8_t type;
    uint16_t vlan;
    uint8_t mac[6];
    uint8_t gid[16];
} RocxGid;

/* The deadlines of the device and the host wake-up set for them. */
typedef struct RocxTimers {
    RocxTimer *heap[ROCX_CORE_MAX_TIMERS];  /* min-heap by deadline */
    unsigned count;
    bool host_armed;            /* ops->timer_mod() is set... */
    int64_t host_deadline;      /* ...for this one: at or before heap[0] */
    bool due;                   /* it fired; the engine runs what expired */
} RocxTimers;

/*
 * Ethernet frames that found no RX buffer, oldest first: entries of a
 * 2-byte length and the frame, each contiguous; one that does not fit
 * before the end starts again at 0 (wrapped, data up to wrap_at).
 */
typedef struct RocxRxHold {
    uint32_t head;              /* the oldest entry */
    uint32_t tail;              /* where the next one goes */
    uint32_t wrap_at;           /* wrapped: entries from head end here */
    bool wrapped;
    uint32_t count;             /* frames */
    uint8_t buf[ROCX_CORE_RX_HOLD_BYTES];
} RocxRxHold;

/*
 * DCB (rocx-dcb.c): the configuration SET_DCB gave (host order), and the
 * pause the link partner asked for.  paused bit p: priority p sends
 * nothing until paused_until[p]; parked[p]: QP slots that stopped for it
 * and run again when it resumes.
 */
typedef struct RocxDcb {
    uint8_t trust;
    uint8_t pfc_en;
    uint8_t pause;
    uint8_t prio_tc[ROCX_NUM_PRIO];
    uint8_t tc_tsa[ROCX_NUM_TC];
    uint8_t tc_bw[ROCX_NUM_TC];
    uint32_t tc_maxrate[ROCX_NUM_TC];
    uint8_t dscp2prio[ROCX_NUM_DSCP];
    uint32_t buf_size[ROCX_NUM_PRIO];
    uint32_t xoff[ROCX_NUM_PRIO];
    uint32_t xon[ROCX_NUM_PRIO];
    uint16_t pfc_quanta;

    uint8_t paused;
    bool link_pause;            /* the pause is 802.3x, not PFC */
    int64_t paused_since[ROCX_NUM_PRIO];    /* accounted up to here */
    int64_t paused_until[ROCX_NUM_PRIO];
    RocxTimer pause_timer[ROCX_NUM_PRIO];
    uint64_t parked[ROCX_NUM_PRIO][ROCX_CORE_MAX_QP / 64];

    /*
     * Pause sent: bytes each priority holds in the receive buffer (the
     * Ethernet frames waiting for RX descriptors), the priorities the
     * device has asked the partner to stop (xoff), since when, and the
     * timer that repeats the XOFF while the buffer stays above xon.
     */
    uint32_t rx_occ[ROCX_NUM_PRIO];
    uint8_t xoff_sent;
    int64_t xoff_since[ROCX_NUM_PRIO];
    RocxTimer xoff_timer[ROCX_NUM_PRIO];
    /* The same for 802.3x pause sent, which stops the whole port. */
    bool link_xoff_sent;
    int64_t link_xoff_since;
    RocxTimer link_xoff_timer;
} RocxDcb;

/*
 * Congestion control (rocx-cc.c): the configuration SET_CC gave, host
 * order, in mlx5's cc_params units (rocx-device.rst, "ECN and congestion
 * control").  The per-QP state is RocxQp.cc.
 */
typedef struct RocxCc {
    uint8_t np_en;
    uint8_t rp_en;
    uint8_t np_cnp_dscp;
    uint8_t np_cnp_prio;
    uint32_t np_min_time_between_cnps;      /* us */
    uint32_t rp_initial_alpha_value;        /* 1/1024 */
    uint32_t rp_dce_tcp_g;                  /* 1/1024 */
    uint32_t rp_dce_tcp_rtt;                /* us */
    uint32_t rp_gd;
    uint32_t rp_min_dec_fac;                /* percent */
    uint32_t rp_rate_to_set_on_first_cnp;   /* Mb/s */
    uint32_t rp_min_rate;                   /* Mb/s */
    uint32_t rp_ai_rate;                    /* Mb/s */
    uint32_t rp_hai_rate;                   /* Mb/s */
    uint32_t rp_time_reset;                 /* us */
    uint32_t rp_byte_reset;                 /* bytes */
    uint32_t rp_threshold;
    uint32_t rp_clamp_tgt_rate;
} RocxCc;

/*
 * The transmit scheduler (rocx-sched.c), engine-owned.  Sources ("flows":
 * QP slots, then the Ethernet TX rings) with frames to send wait in
 * their traffic class's FIFO, each in at most one (queued[] = class + 1;
 * it survives a QP's destruction, as RocxRdma.queued[] does).  The line
 * and each class with a ceiling keep the time they are free again, in ns
 * with the remainder of the division kept in *_rem (kb/s units), so that
 * no rounding accumulates.
 */
#define ROCX_SCHED_FLOWS            (ROCX_CORE_MAX_QP + ROCX_CORE_MAX_ETH_RINGS)

typedef struct RocxSched {
    int64_t line_free;
    uint64_t line_rem;
    int64_t tc_free[ROCX_NUM_TC];
    uint64_t tc_rem[ROCX_NUM_TC];
    int32_t deficit[ROCX_NUM_TC];   /* DRR, ETS classes; bytes */
    uint8_t drr_tc;                 /* the ETS class whose turn it is */
    uint16_t fifo[ROCX_NUM_TC][ROCX_SCHED_FLOWS];
    uint16_t head[ROCX_NUM_TC];
    uint16_t count[ROCX_NUM_TC];
    uint8_t queued[ROCX_SCHED_FLOWS];
    uint8_t tx_signal;              /* TX rings that completed descriptors */
    RocxTimer timer;                /* the line or a class is free again */
    /* Bytes put on the line, and RoCE bytes built (looped back too). */
    uint64_t wire_bytes;
    uint64_t roce_bytes;
    /* Not contract counters: bytes each class sent (tests, traces). */
    uint64_t tc_bytes[ROCX_NUM_TC];
} RocxSched;

typedef struct RocxEvent {
    uint16_t type;
    uint32_t data;
    uint64_t info;
} RocxEvent;

typedef struct RocxCore {
    /* Set once by rocx_core_init(). */
    const RocxCoreOps *ops;
    void *opaque;
    uint8_t perm_mac[6];
    /* The port's line rate (rocx_core_set_speed()); survives a reset. */
    uint32_t speed_mbps;
    /* Offer fabric bundles to the peer (rocx_core_set_bundles()). */
    bool bundles;
    /* Run the engine inside SQ doorbells (rocx_core_set_direct_doorbells). */
    bool direct_db;
    /*
     * Untimed: a doorbell of a QP that waits for an ACK wakes nothing;
     * the ACK's engine run takes its WQEs, or lazy_timer's at the latest
     * (rocx_core_set_lazy_doorbells()).
     */
    bool lazy_db;
    bool db_ack_due;            /* rocx_db_sq(): the QP waits for an ACK */
    /* Set POLL in doorbell records (rocx_core_set_db_records()). */
    bool db_records;
    /* Complete send WQEs without sending them (rocx_core_set_sink()). */
    bool sink;
    /*
     * Requester limits per QP (rocx_core_set_req_limits()): unacknowledged
     * PSNs and send WQEs in flight.
     */
    uint32_t req_window;
    uint32_t req_max_wqes;
    /*
     * Bus mastering is off (rocx_core_set_bus_master()): the driver
     * stopped the device's DMA on purpose, so DMA that fails is not its
     * mistake.  Set by the glue; survives DEV_CTRL.RESET.
     */
    bool dma_off;
    /*
     * The backend holds a frame it could not send yet (rocx_core_tx_busy()):
     * the line is busy until it has sent it.  Survives a reset, as the
     * backend's queue does.
     */
    bool tx_busy;
    /* The fabric channel, when the glue chose one (rocx_core_chan_start()). */
    RocxChan chan;
    /* The NIC's delays (rocx_core_set_delays()). */
    RocxDelays delay;

    /*
     * Engine: Ethernet frames waiting for RX buffers.  Emptied (indices
     * only) by a reset, so that it does not clear 256 KiB.
     */
    RocxRxHold rx_hold;

    /* Engine scratch buffers, reused for every frame and self-test. */
    uint8_t tx_buf[ROCX_MAX_FRAME];
    uint8_t test_buf[ROCX_TEST_DMA_MAX];
    /*
     * Engine: the RoCE packet being built (and looped back), unless it is
     * built in the fabric bundle (rocx_frame_buf()).
     */
    uint8_t roce_buf[ROCX_MAX_FRAME];

    /* Counters survive DEV_CTRL.RESET; both sides increment them. */
    uint64_t stats[ROCX_STAT_NUM];

    /* Everything from here on is cleared by a reset. */
    struct {
        /* MMIO: register file. */
        uint32_t scratch;
        uint32_t test_dma_addr_lo;
        uint32_t test_dma_addr_hi;
        uint32_t test_dma_len;
        uint32_t test_dma_status;   /* MMIO sets BUSY, engine DONE/ERROR */
        uint32_t aq_sq_base_lo;
        uint32_t aq_sq_base_hi;
        uint32_t aq_cq_base_lo;
        uint32_t aq_cq_base_hi;
        uint32_t aq_ctrl;
        /* MASK from MMIO; PENDING set by the engine, cleared by MMIO. */
        uint32_t intr_ctrl[ROCX_MSIX_VECTORS];
        uint32_t guest_err_count;   /* both sides */
        uint32_t last_guest_err;    /* both sides */
    } regs;

    /* Device clock (rocx-clock.c); base set again after the clear. */
    struct {
        int64_t base;           /* now_ns() at the reset */
        uint32_t hi_latch;      /* MMIO: CLOCK_HI, latched by CLOCK_LO */
    } clock;

    /* Admin queue. */
    struct {
        /* MMIO: AQ_CTRL enable/disable snapshots the configuration. */
        bool enabled;
        bool error;             /* both: bad config (MMIO), DMA (engine) */
        uint8_t log_depth;
        uint64_t sq_base;
        uint64_t cq_base;
        uint16_t head;          /* engine: commands consumed (AQ_HEAD) */
        uint16_t pi;            /* MMIO: producer latched from AQ_DB */
    } aq;

    /*
     * Fault injection (rocx_core_set_aq_stall()), off after every reset:
     * the glue sets stall_at, the engine stalls the queue there.
     */
    struct {
        uint32_t stall_at;      /* 0 off, else opcode + 1 or ANY + 1 */
        bool stalled;           /* engine: the queue executes nothing */
    } fault;

    /* Port, engine-owned (SET_PORT, link changes). */
    struct {
        uint16_t mtu;
        uint8_t mac[6];
        bool admin_up;
        uint8_t rx_mode;
        bool link_up;           /* last LINK_STATUS.UP reported */
        /* SET_MCAST_MACS: off (every group) until the first one. */
        bool mcast_on;
        uint16_t mcast_count;
        uint8_t mcast[ROCX_CORE_MAX_MCAST_MACS][6];
    } port;

    /* Engine: priorities, pause (rocx-dcb.c). */
    RocxDcb dcb;
    /* Engine: ECN and DCQCN configuration (rocx-cc.c). */
    RocxCc cc;
    /* Engine: the transmit scheduler (rocx-sched.c). */
    RocxSched sched;
    /* Engine: CNPs waiting out delay.cnp_ns (rocx-delay.c). */
    RocxCnpLine cnp_line;
    /* Doorbells waiting out delay.db_ns (rocx-rdma.c). */
    RocxDbLine db_line;
    /*
     * Armed by the first deferred (lazy) doorbell, and while a doorbell
     * record is polled: the engine runs by then, ACK or not (rocx-regs.c,
     * rocx-dbrec.c).
     */
    RocxTimer lazy_timer;

    RocxEq eq[ROCX_CORE_MAX_EQ];
    RocxEthRing tx[ROCX_CORE_MAX_ETH_RINGS];
    RocxEthRing rx[ROCX_CORE_MAX_ETH_RINGS];
    RocxGid gid[ROCX_CORE_GID_TBL_LEN];
    uint8_t gid_hint;           /* engine: the entry a frame matched last */
    bool uctx_used[ROCX_DB_PAGES];  /* engine; index = doorbell page */
    /* Engine: PD n (1..MAX_PD) is in use when pd_owner[n - 1] != 0. */
    uint16_t pd_owner[ROCX_CORE_MAX_PD];    /* owning uctx + 1 */

    /* Events for EQ 0; queued by either side, written by the engine. */
    RocxEvent evq[ROCX_CORE_EVQ_LEN];
    unsigned evq_head;
    unsigned evq_count;
    bool evq_gerr_queued;       /* one GUEST_ERROR event stands for many */


    /* Engine: every deadline in the device (rocx-core.c, "Time"). */
    RocxTimers timers;

    /*
     * rocx_core_process() is running (frames may share a bundle), or an
     * SQ doorbell that will run it; resched: work was asked for meanwhile.
     * rx_deferred: a frame arrived while the engine ran and was refused
     * (rocx_core_receive()); the engine asks for it again when it leaves.
     */
    bool in_engine;
    bool in_doorbell;
    bool resched;
    bool rx_deferred;

    /*
     * RDMA objects and the transport engine (rocx-rdma.h).  Holds heap
     * memory (page lists, QPs): rocx_core_fini() releases it.
     */
    RocxRdma rdma;

    /* Fabric bundles: negotiation, the bundle being filled, RX resume. */
    RocxFabric fabric;
} RocxCore;

void rocx_core_init(RocxCore *c, const RocxCoreOps *ops, void *opaque,
                    const uint8_t mac[6], uint32_t speed_mbps);
/*
 * The port's line rate in Mb/s, 1..ROCX_CORE_MAX_SPEED (LINK_SPEED); a
 * change while the link is up posts LINK_CHANGE.  False out of range.
 */
bool rocx_core_set_speed(RocxCore *c, uint32_t mbps);
uint32_t rocx_core_speed(RocxCore *c);
/*
 * Offer fabric bundles to the peer from the next link-up on; off by
 * default (every frame its own datagram, as on any Ethernet).
 */
void rocx_core_set_bundles(RocxCore *c, bool on);
/*
 * The fabric channel (rocx-chan.c).  The glue connects, calls
 * rocx_core_chan_start() before the guest runs, sends the records the
 * core hands it through ops->send_frame() (one record per call) and the
 * ones built below, and passes every record it receives, whole, to
 * rocx_core_chan_receive().  On a timed channel the glue must not let the
 * guest run past rocx_core_chan_horizon(), and must promise its clock
 * (rocx_core_chan_sync()) before it waits there.
 */
void rocx_core_chan_start(RocxCore *c, bool timed);
/* HELLO (at least ROCX_FAB_CTRL_LEN bytes at buf); returns its length. */
size_t rocx_core_chan_hello(RocxCore *c, uint8_t *buf);
/*
 * A SYNC for the device's clock at t (ROCX_FAB_TIMED_HLEN bytes at buf):
 * it promises t plus the transmit pipeline's delay, since nothing sent
 * after t leaves the pipeline sooner.  0 when the channel has promised
 * that much already or cannot promise.
 */
size_t rocx_core_chan_sync(RocxCore *c, int64_t t, uint8_t *buf);
/* BYE (ROCX_FAB_TIMED_HLEN bytes at buf), or 0 if there is no one to tell. */
size_t rocx_core_chan_bye(RocxCore *c, uint8_t *buf);
/*
 * DIRECT_ACK (refused or not) or DIRECT_END_ACK ("Direct rings"), into
 * buf (ROCX_FAB_HLEN bytes); 0 on a timed link, which has none.
 */
size_t rocx_core_chan_direct(RocxCore *c, uint8_t *buf, uint8_t type,
                             bool refused);
/* One record from the switch; not ROCX_CHAN_OK: the channel is closed. */
RocxChanResult rocx_core_chan_receive(RocxCore *c, const uint8_t *buf,
                                      size_t len);
/* The connection ended (end of file, an error of the glue's). */
void rocx_core_chan_closed(RocxCore *c, const char *why);
/* Why the channel closed, or NULL. */
const char *rocx_core_chan_error(RocxCore *c);
/* The carrier on a channel: joined, open, and (timed) past the epoch. */
bool rocx_core_chan_carrier(RocxCore *c);
/* Timed: how far the guest may run; INT64_MAX: no bound. */
int64_t rocx_core_chan_horizon(RocxCore *c);
const RocxChanStats *rocx_core_chan_stats(RocxCore *c);
/*
 * The backend took the last frame into a queue of its own (busy), or has
 * now sent what it queued (not busy).  While busy the transmit scheduler
 * starts no frame: what the backend holds is on the line already, beyond
 * the reach of a pause, so it must stay one frame (or bundle) long.
 */
void rocx_core_tx_busy(RocxCore *c, bool busy);
/*
 * Run the engine inside the SQ doorbells (rocx_core_db_write()) of QPs
 * with nothing in flight, rather than only asking for it through
 * ops->schedule_work(): a send posted to a quiet QP goes out before the
 * doorbell write returns.  A QP with packets in flight is left to the
 * scheduled call, which batches.  The run is bounded as any engine call
 * is, and the glue must allow the engine in its MMIO path (QEMU: it holds
 * the BQL there, as in the bottom half).  Off by default.
 */
void rocx_core_set_direct_doorbells(RocxCore *c, bool on);
void rocx_core_set_lazy_doorbells(RocxCore *c, bool on);
/*
 * Doorbell records (rocx-dbrec.c): with lazy doorbells on and untimed,
 * the device sets POLL in the record of a QP that waits for an ACK, and
 * its process posts without ringing.  Off: POLL is never set, and every
 * post rings (the contract allows both).
 */
void rocx_core_set_db_records(RocxCore *c, bool on);
/*
 * Sink mode, for measuring what a guest can post: an RC or XRC send WQE
 * that passes its checks completes successfully as soon as the requester
 * starts it, and sends nothing (a READ reads nothing, an atomic returns
 * nothing).  Local WQEs (BIND_MW, LOCAL_INV, REG_MR) still execute; UC and
 * UD send queues are not sunk.  Off by default; set by the glue before
 * the guest runs.
 */
void rocx_core_set_sink(RocxCore *c, bool on);
/*
 * The requester's window of unacknowledged PSNs per QP
 * (ROCX_REQ_MIN_WINDOW..ROCX_REQ_MAX_WINDOW, default ROCX_REQ_WINDOW) and
 * its send WQEs in flight per QP (1..ROCX_REQ_MAX_WQES, default
 * ROCX_REQ_WQES).  False, and nothing changes, for a value out of range.
 * Set by the glue before the guest runs.
 */
bool rocx_core_set_req_limits(RocxCore *c, uint32_t window, uint32_t wqes);
/*
 * The NIC's transmit pipeline, receive pipeline, CNP and doorbell delays,
 * in ns (Documentation/rocx-device.rst, "NIC delays").  Returns NULL, or
 * why the values were refused (out of range; a pipeline delay without a
 * timed channel), and then nothing changes.  Set by the glue after
 * rocx_core_chan_start() and before the guest runs.
 */
const char *rocx_core_set_delays(RocxCore *c, const RocxDelays *d);
/*
 * The PCI command register's bus master bit changed.  While it is off
 * every DMA fails, as the bus would make it, and those failures are not
 * guest errors: a driver clears it to stop the device before a reset.
 */
void rocx_core_set_bus_master(RocxCore *c, bool on);
/* Power-on reset: like DEV_CTRL.RESET, and the counters are cleared too. */
void rocx_core_reset(RocxCore *c);
/*
 * Fault injection: the next admin command with this opcode (0..0xffff),
 * or the next command at all (ROCX_CORE_AQ_STALL_ANY), is fetched (AQ_HEAD
 * moves past it) and then neither executed nor completed, and the queue
 * executes nothing after it: a device hung in a command.  Only a reset
 * (DEV_CTRL.RESET or of the PCI function) ends the stall, and it turns the
 * knob off (ROCX_CORE_AQ_STALL_OFF) as well.  Returns false for a value
 * out of range.
 */
bool rocx_core_set_aq_stall(RocxCore *c, int32_t opcode);
/* What rocx_core_set_aq_stall() armed, or ROCX_CORE_AQ_STALL_OFF. */
int32_t rocx_core_aq_stall(RocxCore *c);
/* Release what the core allocated; it must be initialised again to run. */
void rocx_core_fini(RocxCore *c);

/* BAR0.  size is the access width in bytes; only 4 is valid. */
uint64_t rocx_core_reg_read(RocxCore *c, uint64_t off, unsigned size);
void rocx_core_reg_write(RocxCore *c, uint64_t off, uint64_t val,
                         unsigned size);
/* Name of the register at off, or NULL (for tracing). */
const char *rocx_core_reg_name(uint64_t off);

/* Why a requester resends (RocxCoreOps.retransmit). */
typedef enum RocxRetx {
    ROCX_RETX_TIMEOUT,          /* local ACK timeout */
    ROCX_RETX_NAK,              /* NAK sequence error */
    ROCX_RETX_IMPLIED,          /* a READ response or ACK skipped PSNs */
    ROCX_RETX_RNR,              /* the RNR NAK's wait is over */
} RocxRetx;

/* Names for traces; "?" for a value out of range. */
const char *rocx_core_qp_state_name(unsigned state);
const char *rocx_core_retx_name(unsigned why);

/* BAR2 doorbells.  Only 8-byte writes are valid; reads return 0. */
uint64_t rocx_core_db_read(RocxCore *c, uint64_t off, unsigned size);
void rocx_core_db_write(RocxCore *c, uint64_t off, uint64_t val,
                        unsigned size);

/*
 * Run the engine: self-test DMA, admin queue, Ethernet TX, CQ arming, the
 * RDMA transport, EQ 0's events and EQ arming, then the fabric's HELLO
 * and the bundle the run filled.
 */
void rocx_core_process(RocxCore *c);

/* The wake-up set through ops->timer_mod() is due. */
void rocx_core_timer(RocxCore *c);

/*
 * Receive path: receive() returns len when the frame was consumed or
 * dropped, 0 when it must wait in the glue's queue until
 * ops->rx_resume(): only while the engine runs, which the receive path
 * never enters (QEMU's net layer can deliver from inside it, when the
 * engine's own DMA or sending makes another device or a backend send at
 * once).  An Ethernet frame that finds no RX buffer waits in the device
 * instead, so that QEMU's queue never holds RoCE behind it.
 */
bool rocx_core_can_receive(RocxCore *c);
ssize_t rocx_core_receive(RocxCore *c, const uint8_t *buf, size_t len);

/* The backend's carrier may have changed; re-read it through ops. */
void rocx_core_link_changed(RocxCore *c);

/* LINK_STATUS register value. */
uint32_t rocx_core_link_status(RocxCore *c);

#endif /* HW_NET_ROCX_CORE_H */
