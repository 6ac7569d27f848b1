/*
 * rocx: RoCE network adapter, QEMU glue shared by rocx-pci.c,
 * rocx-pci-chan.c (the fabric channel's socket and timed-mode waits),
 * rocx-pci-ring.c (the channel's shared-memory rings) and
 * rocx-pci-direct.c (writing the peer's ring when the switch steps aside).
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ROCX_PCI_H
#define HW_NET_ROCX_PCI_H

#include "hw/pci/pci_device.h"
#include "net/net.h"
#include "qemu/event_notifier.h"
#include "qemu/notify.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "rocx-core.h"
#include "rocx/rocx_ring.h"

#define TYPE_ROCX "rocx"
OBJECT_DECLARE_SIMPLE_TYPE(RocxState, ROCX)

/* BAR4: MSI-X table at 0, PBA in the upper half; 64-bit like the others. */
#define ROCX_MSIX_BAR_SIZE      0x1000
#define ROCX_MSIX_PBA_OFFSET    0x800

/*
 * The fabric channel's shared-memory rings (rocx-pci-ring.c): 4 MiB each
 * way, what the switch's socket buffer holds for a channel without them.
 */
#define ROCX_PCI_RING_BYTES     (4 * 1024 * 1024)

/* Our records straight into the peer's ring 1 ("Direct rings"). */
typedef enum RocxPciDirect {
    ROCX_DIRECT_NONE,           /* through the switch */
    ROCX_DIRECT_WAIT_GO,        /* DIRECT_ACK sent: records are held */
    ROCX_DIRECT_ON,             /* DIRECT_GO: out is the peer's ring 1 */
} RocxPciDirect;

typedef struct RocxPciRing {
    int memfd;                  /* until the switch took the rings */
    uint8_t *map;
    size_t map_bytes;
    struct rocx_ring tx;        /* ring 0: our records */
    struct rocx_ring rx;        /* ring 1: the switch's */
    EventNotifier sw_wake;      /* the switch waits on it */
    EventNotifier nic_wake;     /* we do: records, or room in ring 0 */
    bool notifiers;
    bool active;                /* HELLO_ACK took them */
    uint64_t kicks;             /* wakes we sent the switch */
    /* Where our records go: &tx, or &peer_tx while direct. */
    struct rocx_ring *out;
    /* Direct rings: the peer's memory and eventfd from DIRECT to its end. */
    RocxPciDirect direct;
    uint8_t *peer_map;
    size_t peer_bytes;
    uint32_t peer_size;
    int peer_wake_fd;
    struct rocx_ring peer_tx;   /* its ring 1, ours from DIRECT_GO */
    GQueue held;                /* GByteArray: records held for DIRECT_GO */
    uint64_t peer_kicks;        /* wakes we sent the peer */
    uint64_t direct_on;         /* times we got DIRECT_GO */
} RocxPciRing;

bool rocx_pci_ring_init(RocxPciRing *r, Error **errp);
void rocx_pci_ring_free(RocxPciRing *r);
bool rocx_pci_ring_offer(RocxPciRing *r, int sock, const uint8_t *hello,
                         size_t len);
void rocx_pci_ring_start(RocxPciRing *r);
/* 0, -EAGAIN (no room) or -EINVAL (damaged), as rocx_ring_put(). */
int rocx_pci_ring_put(RocxPciRing *r, const uint8_t *buf, size_t len);
/* As rocx_pci_ring_put(), into ring 0 whatever out is: DIRECT's answers. */
int rocx_pci_ring_put_own(RocxPciRing *r, const uint8_t *buf, size_t len);
int rocx_pci_ring_want_room_own(RocxPciRing *r, size_t len);
const char *rocx_pci_ring_map_peer(RocxPciRing *r, int memfd, int wake_fd);
void rocx_pci_ring_unmap_peer(RocxPciRing *r);
int rocx_pci_ring_take(RocxPciRing *r, uint8_t *buf, size_t cap,
                       const char **why);
void rocx_pci_ring_taken(RocxPciRing *r);
void rocx_pci_ring_busy(RocxPciRing *r);
bool rocx_pci_ring_sleep(RocxPciRing *r);
int rocx_pci_ring_want_room(RocxPciRing *r, size_t len);
int rocx_pci_ring_wake_fd(RocxPciRing *r);
void rocx_pci_ring_rewake(RocxPciRing *r);

/*
 * The fabric channel's glue (rocx-pci-chan.c).  Everything in it runs
 * with the BQL held: the socket's handler in the main loop, the timers
 * and the engine in the vCPU thread (timed) or the main loop.
 */
typedef struct RocxPciChan {
    char *path;                 /* fabric=: rocx-switch's socket */
    bool timed;                 /* timed=on */
    bool rings_on;              /* fabric-rings=on: offer them in HELLO */
    RocxPciRing ring;
    int fd;                     /* -1: no channel */
    /*
     * Timed: the guest stops at the horizon (rocx_core_chan_horizon())
     * until the switch's promises move it; the link's carrier comes up
     * at the epoch.
     */
    QEMUTimer *horizon_timer;
    QEMUTimer *epoch_timer;
    /* Untimed: a record the socket could not take yet (tx_busy). */
    uint32_t pending_len;
    uint8_t pending[ROCX_FAB_BUNDLE_MAX];
    /* BYE and the report when QEMU exits without unrealizing us. */
    Notifier exit_notifier;
    /* Wall time spent waiting at the horizon, and how many waits. */
    uint64_t waits;
    uint64_t wait_ns;
    uint8_t rx[ROCX_FAB_BUNDLE_MAX + 1];
} RocxPciChan;

/* Direct rings, the NIC's side (rocx-pci-direct.c). */
bool rocx_pci_direct_record(RocxState *s, const uint8_t *rec, size_t len,
                            int *fds, unsigned nfds, const char **why);
void rocx_pci_direct_hold(RocxState *s, const uint8_t *buf, size_t len);
/* For rocx-pci-direct.c: rocx-pci-chan.c's waits and retries. */
void rocx_pci_chan_put_wait(RocxState *s, bool own, const uint8_t *buf,
                            size_t len);
void rocx_pci_chan_send_pending(RocxState *s);

struct RocxState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion db;
    MemoryRegion msix;
    NICState *nic;
    NICConf conf;
    uint32_t speed;             /* Mb/s */
    bool bundle;
    bool direct_db;
    bool lazy_db;
    bool db_records;
    bool sink;
    uint32_t req_window;        /* unacknowledged PSNs per QP */
    uint32_t sq_inflight;       /* send WQEs in flight per QP */
    RocxDelays delay;           /* tx-, rx-, cnp- and db-delay */
    /*
     * Runs rocx_core_process() outside MMIO handlers (BQL held): a bottom
     * half, or in a timed run a virtual timer due at once, so that the
     * engine runs at a virtual instant in the vCPU thread.
     */
    QEMUBH *bh;
    QEMUTimer *work_timer;
    /*
     * The transport's timer (local ACK timeout, RNR waits), on
     * QEMU_CLOCK_VIRTUAL: it stands still while the VM is stopped, as the
     * guest's own clocks do, so a paused or migrated-out guest does not
     * come back to find every QP timed out; under -icount it follows the
     * guest's progress.  The core adds a floor of a few milliseconds for
     * TCG's slow peers.
     */
    QEMUTimer *timer;

    RocxPciChan chan;
    RocxCore core;
};

/* Connect to the switch and start the channel; false with errp set. */
bool rocx_pci_chan_realize(RocxState *s, Error **errp);
/* Say BYE and close. */
void rocx_pci_chan_exit(RocxState *s);
/* One record the core built. */
void rocx_pci_chan_send(RocxState *s, const uint8_t *buf, size_t len);
/* The driver set the link up: a timed NIC joins the fabric now. */
void rocx_pci_chan_admin_up(RocxState *s);

#endif
