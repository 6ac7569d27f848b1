/*
 * rocx: RoCE network adapter, QEMU PCI glue.
 *
 * Usage:
 *
 *   -netdev <backend>,id=<netdev-id>
 *   -device rocx,netdev=<netdev-id>[,mac=<mac>][,speed=<Mb/s>]
 *                [,bundle=on|off][,x-direct-doorbell=on|off]
 *                [,x-lazy-doorbell=on|off][,x-sink=on|off]
 *                [,x-req-window=<n>][,x-sq-inflight=<n>]
 *   -device rocx,fabric=<path>[,timed=on|off][,mac=...][,speed=...]
 *
 * Properties:
 *
 * - netdev=<netdev-id>
 *   The network backend the port is wired to (user, socket, stream,
 *   dgram, tap, hubport, ...).  Without one the port has carrier but
 *   frames go nowhere.
 *
 * - mac=<aa:bb:cc:dd:ee:ff>
 *   Permanent MAC address, reported in MAC_LO/MAC_HI and IDENTIFY.
 *   Default: QEMU's 52:54:00:12:34:xx sequence.
 *
 * - speed=<Mb/s>
 *   The port's line rate, 1..400000, in LINK_SPEED (Mb/s) and, rounded
 *   down to Gb/s (at least 1), LINK_STATUS[31:16].  The transmit
 *   scheduler occupies the line 8 * bytes / speed per frame
 *   (rocx-sched.c) and pause quanta are timed at it (rocx-dcb.c).  Settable
 *   at run time with qom-set: a change with the link up posts a link
 *   event.  Default: 100000.
 *
 * - bundle=on|off
 *   On a dgram netdev, offer rocx-switch fabric bundles at link-up: once
 *   the switch agrees, the frames of one engine run leave as one datagram
 *   and bundles from the switch are split on receive (rocx-fabric.c).
 *   A capture with filter-dump on the netdev then holds bundles; capture
 *   at the switch (--pcap) or turn bundles off.  Default: on.
 *
 * - fabric=<path>
 *   Instead of a netdev: connect to rocx-switch's fabric channel socket
 *   for this port (a SOCK_SEQPACKET socket, the switch's DIR/chK.sock),
 *   which the device owns (rocx-pci-chan.c).  Frames travel in records
 *   of the fabric format; the switch must be listening when QEMU starts.
 *
 * - timed=on|off
 *   With fabric=: run the link in virtual time (Documentation/
 *   rocx-device.rst, "Timed mode"): needs -icount shift=N,sleep=off and
 *   a switch started with --timed.  The device joins the fabric when the
 *   driver first sets the link up.  Default: off.
 *
 * - x-direct-doorbell=on|off
 *   Run the engine inside the SQ doorbell write of a QP with nothing in
 *   flight (in the vCPU thread, which holds the BQL) instead of only
 *   scheduling the bottom half: a posted send leaves before the guest's
 *   doorbell write completes, and the main loop is not woken for it.
 *   Default: on.  The x- prefix marks it unstable, as QEMU's convention
 *   has it: it exists to compare the two paths and may go when the
 *   engine gets a thread of its own.
 *
 * - x-lazy-doorbell=on|off
 *   An SQ doorbell of a QP that waits for an ACK wakes nothing: the
 *   engine run that ACK brings takes the new WQEs, or at the latest one
 *   ROCX_CORE_LAZY_DB_NS after the first doorbell so deferred.  Untimed
 *   only: a timed run takes every doorbell at its instant.  Default: on.
 *
 * - x-db-record=on|off
 *   With x-lazy-doorbell, set POLL in the doorbell record of a QP that
 *   waits for an ACK (rocx-device.rst, "Doorbell records"), so that its
 *   process posts without a doorbell write, and so without taking the
 *   BQL in its vCPU thread.  Off: the device never sets POLL and every
 *   post rings, as the contract also allows.  Default: on.
 *
 * - x-sink=on|off
 *   Benchmarking only: an RC or XRC send WQE that passes its checks
 *   completes successfully as soon as the requester starts it, and
 *   nothing is sent (a READ or an atomic fetches nothing).  Local WQEs
 *   (BIND_MW, LOCAL_INV, REG_MR) still execute; UC and UD are not sunk.
 *   A perftest client on such a device measures what the guest's vCPU can
 *   post and complete (make bench's sink row).  Default: off.
 *
 * - x-req-window=<n>, x-sq-inflight=<n>
 *   Benchmarking only: the requester's window of unacknowledged PSNs per
 *   QP (16..8192, default 512) and its send WQEs in flight per QP
 *   (1..128, default 128), for the sweeps of make bench-sweep.  The
 *   device reports neither: a guest sees only how fast its WQEs complete.
 *
 * - x-aq-stall=<n> (fault injection; run time only)
 *   Set with "qom-set <device-path> x-aq-stall <n>" in the monitor once
 *   the device exists.  -1: off (the default).  0..65535: the next admin
 *   command with that opcode is fetched (AQ_HEAD moves past it) and then
 *   neither executed nor completed, and the queue runs nothing after it,
 *   like a device hung in a command.  65536: the same for the next
 *   command whatever its opcode.  Only a reset (DEV_CTRL.RESET or of the
 *   PCI function) ends the stall, and it turns the knob off again, so
 *   qom-get reads -1 once the driver has recovered.  For tests of the
 *   driver's timeout handling.
 *
 * Carrier follows the backend's link state: "set_link <netdev-id> off|on"
 * in the monitor takes the port's CARRIER down and up, and every change of
 * LINK_STATUS.UP posts a LINK_CHANGE event to EQ 0.
 *
 * The device itself (registers, admin queue, event queues, Ethernet rings,
 * the RDMA transport) lives in the rocx-*.c files beside this one (their
 * map is at the top of rocx-int.h) and knows nothing of QEMU; this file
 * supplies DMA, MSI-X, the network backend, a bottom half and a timer
 * through RocxCoreOps.
 * Documentation/rocx-device.rst specifies the device;
 * Documentation/qemu-rocx.rst says how to use this model and
 * Documentation/model-design.rst how it is built.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "qom/object.h"
#include "rocx-pci.h"
#include "trace.h"

/* ---- RocxCoreOps ---- */

static int rocx_op_dma_read(void *opaque, uint64_t addr, void *buf,
                            size_t len)
{
    RocxState *s = opaque;
    MemTxResult r = pci_dma_read(PCI_DEVICE(s), addr, buf, len);

    if (r != MEMTX_OK) {
        trace_rocx_dma_error(false, addr, len, r);
        return -1;
    }
    return 0;
}

static int rocx_op_dma_write(void *opaque, uint64_t addr, const void *buf,
                             size_t len)
{
    RocxState *s = opaque;
    MemTxResult r = pci_dma_write(PCI_DEVICE(s), addr, buf, len);

    if (r != MEMTX_OK) {
        trace_rocx_dma_error(true, addr, len, r);
        return -1;
    }
    return 0;
}

static void rocx_op_raise_irq(void *opaque, unsigned vector)
{
    PCIDevice *pdev = PCI_DEVICE(opaque);

    /* With MSI-X off or masked, msix_notify() latches the vector in the PBA */
    trace_rocx_irq(vector, msix_enabled(pdev));
    msix_notify(pdev, vector);
}

/* The backend sent what it had queued: the line is free again. */
static void rocx_tx_sent(NetClientState *nc, ssize_t len)
{
    RocxState *s = qemu_get_nic_opaque(nc);

    rocx_core_tx_busy(&s->core, false);
}

static void rocx_op_send_frame(void *opaque, const uint8_t *buf, size_t len)
{
    RocxState *s = opaque;

    if (s->chan.fd >= 0) {
        rocx_pci_chan_send(s, buf, len);
        return;
    }

    trace_rocx_tx(len);
    /* 0: queued in the net layer, to be sent when the peer takes it. */
    if (!qemu_send_packet_async(qemu_get_queue(s->nic), buf, len,
                                rocx_tx_sent)) {
        rocx_core_tx_busy(&s->core, true);
    }
}

static void rocx_op_schedule_work(void *opaque)
{
    RocxState *s = opaque;

    if (s->work_timer) {
        /* Timed: at this virtual instant, in the vCPU thread. */
        timer_mod(s->work_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
        return;
    }
    qemu_bh_schedule(s->bh);
}

static void rocx_op_rx_resume(void *opaque)
{
    RocxState *s = opaque;

    trace_rocx_rx_resume();
    if (s->nic) {
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
}

static bool rocx_op_carrier(void *opaque)
{
    RocxState *s = opaque;

    if (s->chan.fd >= 0) {
        return rocx_core_chan_carrier(&s->core);
    }

    return !qemu_get_queue(s->nic)->link_down;
}

static void rocx_op_admin_up(void *opaque)
{
    rocx_pci_chan_admin_up(opaque);
}

static void G_GNUC_PRINTF(4, 0)
rocx_op_guest_error(void *opaque, unsigned code, unsigned info,
                    const char *fmt, va_list ap)
{
    RocxState *s = opaque;
    char msg[192];

    /* A guest can produce these at will: format only if someone looks. */
    if (!qemu_loglevel_mask(LOG_GUEST_ERROR) &&
        !trace_event_get_state_backends(TRACE_ROCX_GUEST_ERROR)) {
        return;
    }
    vsnprintf(msg, sizeof(msg), fmt, ap);
    trace_rocx_guest_error(code, info, msg);
    qemu_log_mask(LOG_GUEST_ERROR, "%s: guest error %u (info 0x%x): %s\n",
                  s->nic ? qemu_get_queue(s->nic)->name :
                  DEVICE(s)->id ? DEVICE(s)->id : TYPE_ROCX, code, info, msg);
}

static void rocx_op_aq_done(void *opaque, unsigned opcode, unsigned cmd_id,
                            unsigned status)
{
    trace_rocx_aq_cmd(opcode, cmd_id, status);
}

static void rocx_op_aq_stalled(void *opaque, unsigned opcode)
{
    trace_rocx_aq_stalled(opcode);
}

static void rocx_op_qp_state(void *opaque, uint32_t qpn, unsigned from,
                             unsigned to)
{
    trace_rocx_qp_state(qpn, rocx_core_qp_state_name(from),
                        rocx_core_qp_state_name(to));
}

static void rocx_op_retransmit(void *opaque, uint32_t qpn, uint32_t psn,
                               unsigned why)
{
    trace_rocx_retransmit(qpn, psn, rocx_core_retx_name(why));
}

static void rocx_op_nak(void *opaque, uint32_t qpn, uint32_t psn,
                        uint8_t syndrome, bool sent)
{
    trace_rocx_nak(sent ? "sent" : "received", qpn, psn, syndrome);
}

static void rocx_op_cnp(void *opaque, uint32_t qpn, bool sent)
{
    trace_rocx_cnp(sent ? "sent" : "handled", qpn);
}

static void rocx_op_pause(void *opaque, int prio, uint16_t quanta, bool sent)
{
    trace_rocx_pause(sent ? "sent" : "received", prio, quanta,
                     quanta ? "XOFF" : "XON");
}

static int64_t rocx_op_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void rocx_op_timer_mod(void *opaque, int64_t deadline_ns)
{
    RocxState *s = opaque;

    timer_mod(s->timer, deadline_ns);
}

static void rocx_op_timer_cancel(void *opaque)
{
    RocxState *s = opaque;

    timer_del(s->timer);
}

static const RocxCoreOps rocx_core_ops = {
    .dma_read = rocx_op_dma_read,
    .dma_write = rocx_op_dma_write,
    .raise_irq = rocx_op_raise_irq,
    .send_frame = rocx_op_send_frame,
    .schedule_work = rocx_op_schedule_work,
    .rx_resume = rocx_op_rx_resume,
    .carrier = rocx_op_carrier,
    .admin_up = rocx_op_admin_up,
    .guest_error = rocx_op_guest_error,
    .aq_done = rocx_op_aq_done,
    .aq_stalled = rocx_op_aq_stalled,
    .qp_state = rocx_op_qp_state,
    .retransmit = rocx_op_retransmit,
    .nak = rocx_op_nak,
    .cnp = rocx_op_cnp,
    .pause = rocx_op_pause,
    .now_ns = rocx_op_now_ns,
    .timer_mod = rocx_op_timer_mod,
    .timer_cancel = rocx_op_timer_cancel,
};

static void rocx_bh(void *opaque)
{
    RocxState *s = opaque;

    rocx_core_process(&s->core);
}

/* Only marks the work; the bottom half does it, guarded against re-entry */
static void rocx_timer_cb(void *opaque)
{
    RocxState *s = opaque;

    rocx_core_timer(&s->core);
}

/* ---- BAR0: registers ---- */

static const char *rocx_reg_name(hwaddr addr)
{
    const char *name = rocx_core_reg_name(addr);

    return name ? name : "?";
}

static uint64_t rocx_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    RocxState *s = opaque;
    uint64_t val = rocx_core_reg_read(&s->core, addr, size);

    trace_rocx_reg_read(addr, rocx_reg_name(addr), size, val);
    return val;
}

static void rocx_regs_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    RocxState *s = opaque;

    trace_rocx_reg_write(addr, rocx_reg_name(addr), size, val);
    rocx_core_reg_write(&s->core, addr, val, size);
}

/*
 * Only aligned 32-bit accesses are valid, but every width and alignment
 * is let through to the core, which reports the others as guest errors
 * (ROCX_GERR_ACCESS_SIZE) instead of QEMU dropping them unseen.
 */
static const MemoryRegionOps rocx_regs_ops = {
    .read = rocx_regs_read,
    .write = rocx_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/* ---- BAR2: doorbells ---- */

static uint64_t rocx_db_read(void *opaque, hwaddr addr, unsigned size)
{
    RocxState *s = opaque;

    return rocx_core_db_read(&s->core, addr, size);
}

static void rocx_db_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    RocxState *s = opaque;

    trace_rocx_db_write(addr >> ROCX_DB_PAGE_SHIFT,
                        addr & (ROCX_DB_PAGE_SIZE - 1), size, val);
    rocx_core_db_write(&s->core, addr, val, size);
}

/* Doorbells are single 64-bit writes; the core reports anything else. */
static const MemoryRegionOps rocx_db_ops = {
    .read = rocx_db_read,
    .write = rocx_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/* ---- Network backend ---- */

static bool rocx_nc_can_receive(NetClientState *nc)
{
    RocxState *s = qemu_get_nic_opaque(nc);

    return rocx_core_can_receive(&s->core);
}

static ssize_t rocx_nc_receive(NetClientState *nc, const uint8_t *buf,
                               size_t size)
{
    RocxState *s = qemu_get_nic_opaque(nc);
    ssize_t ret = rocx_core_receive(&s->core, buf, size);

    trace_rocx_rx(size, ret);
    return ret;
}

static void rocx_nc_link_status_changed(NetClientState *nc)
{
    RocxState *s = qemu_get_nic_opaque(nc);

    trace_rocx_link(!nc->link_down);
    rocx_core_link_changed(&s->core);
}

static NetClientInfo rocx_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = rocx_nc_can_receive,
    .receive = rocx_nc_receive,
    .link_status_changed = rocx_nc_link_status_changed,
};

/* ---- QOM / PCI ---- */

static void rocx_bus_master_sync(RocxState *s);
static void rocx_exit(PCIDevice *pdev);

static void rocx_realize(PCIDevice *pdev, Error **errp)
{
    RocxState *s = ROCX(pdev);
    DeviceState *dev = DEVICE(pdev);
    NetClientState *nc;
    const char *why;
    unsigned v;

    if (s->req_window < ROCX_REQ_MIN_WINDOW ||
        s->req_window > ROCX_REQ_MAX_WINDOW) {
        error_setg(errp, "rocx: x-req-window must be %u..%u",
                   ROCX_REQ_MIN_WINDOW, ROCX_REQ_MAX_WINDOW);
        return;
    }
    if (s->sq_inflight < 1 || s->sq_inflight > ROCX_REQ_MAX_WQES) {
        error_setg(errp, "rocx: x-sq-inflight must be 1..%u",
                   ROCX_REQ_MAX_WQES);
        return;
    }

    /* MSI-X only: no INTx pin. */
    pdev->config[PCI_INTERRUPT_PIN] = 0;

    memory_region_init_io(&s->regs, OBJECT(s), &rocx_regs_ops, s,
                          "rocx-regs", ROCX_BAR_REGS_SIZE);
    pci_register_bar(pdev, ROCX_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->regs);
    memory_region_init_io(&s->db, OBJECT(s), &rocx_db_ops, s,
                          "rocx-doorbells", ROCX_BAR_DB_SIZE);
    pci_register_bar(pdev, ROCX_BAR_DB, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->db);
    memory_region_init(&s->msix, OBJECT(s), "rocx-msix", ROCX_MSIX_BAR_SIZE);
    pci_register_bar(pdev, ROCX_BAR_MSIX, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->msix);
    if (msix_init(pdev, ROCX_MSIX_VECTORS, &s->msix, ROCX_BAR_MSIX, 0,
                  &s->msix, ROCX_BAR_MSIX, ROCX_MSIX_PBA_OFFSET, 0,
                  errp) < 0) {
        return;
    }
    for (v = 0; v < ROCX_MSIX_VECTORS; v++) {
        msix_vector_use(pdev, v);
    }

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    /* On a fabric channel the device has no netdev and needs no NIC. */
    if (!s->chan.path) {
        s->nic = qemu_new_nic(&rocx_net_info, &s->conf,
                              object_get_typename(OBJECT(s)), dev->id,
                              &dev->mem_reentrancy_guard, s);
        qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    }

    /* Guarded: DMA from the engine into our own BARs must not re-enter. */
    s->bh = qemu_bh_new_guarded(rocx_bh, s, &dev->mem_reentrancy_guard);
    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, rocx_timer_cb, s);
    rocx_core_init(&s->core, &rocx_core_ops, s, s->conf.macaddr.a,
                   s->speed);
    if (!rocx_pci_chan_realize(s, errp)) {
        rocx_exit(pdev);
        return;
    }
    why = rocx_core_set_delays(&s->core, &s->delay);
    if (why) {
        error_setg(errp, "rocx: %s", why);
        rocx_exit(pdev);
        return;
    }
    if (s->chan.timed) {
        s->work_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, rocx_bh, s);
    }
    /* rocx-switch, the only peer that understands bundles, is on dgram. */
    nc = s->nic ? qemu_get_queue(s->nic) : NULL;
    rocx_core_set_bundles(&s->core, s->bundle && nc && nc->peer &&
                          nc->peer->info->type == NET_CLIENT_DRIVER_DGRAM);
    /* Doorbell writes come with the BQL held, as the bottom half runs. */
    rocx_core_set_direct_doorbells(&s->core, s->direct_db);
    rocx_core_set_lazy_doorbells(&s->core, s->lazy_db);
    rocx_core_set_db_records(&s->core, s->db_records);
    rocx_core_set_sink(&s->core, s->sink);
    /* In range: checked above. */
    rocx_core_set_req_limits(&s->core, s->req_window, s->sq_inflight);
    rocx_bus_master_sync(s);
}

static void rocx_exit(PCIDevice *pdev)
{
    RocxState *s = ROCX(pdev);

    rocx_pci_chan_exit(s);
    if (s->work_timer) {
        timer_free(s->work_timer);
        s->work_timer = NULL;
    }

    /* Frees QPs, page lists; cancels the timer, which must still exist. */
    rocx_core_fini(&s->core);
    timer_free(s->timer);
    qemu_bh_delete(s->bh);
    if (s->nic) {
        qemu_del_nic(s->nic);
        s->nic = NULL;
    }
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &s->msix, &s->msix);
}

/* The core hears of the bus master bit (rocx_core_set_bus_master()). */
static void rocx_bus_master_sync(RocxState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    rocx_core_set_bus_master(&s->core,
                             pci_get_word(pdev->config + PCI_COMMAND) &
                             PCI_COMMAND_MASTER);
}

static void rocx_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(pdev, addr, val, len);
    if (range_covers_byte(addr, len, PCI_COMMAND)) {
        rocx_bus_master_sync(ROCX(pdev));
    }
}

static void rocx_reset_hold(Object *obj, ResetType type)
{
    RocxState *s = ROCX(obj);

    trace_rocx_reset();
    rocx_core_reset(&s->core);
    rocx_bus_master_sync(s);
}

/*
 * No migration stream is defined: the engine's state (admin and ring
 * indices in flight, latched doorbells, queued events, the GID table, the
 * RDMA objects and the transport's PSNs and timers) is not described, and
 * a guest migrated without it would find its queues silently reset.
 * Block migration until a later version describes it.
 */
static const VMStateDescription rocx_vmstate = {
    .name = "rocx",
    .unmigratable = 1,
};

/*
 * "speed", the port's line rate in Mb/s: on the command line, and at run
 * time with qom-set (a change while the link is up is a link event).
 */
static void rocx_set_speed(Object *obj, Visitor *v, const char *name,
                           void *opaque, Error **errp)
{
    RocxState *s = ROCX(obj);
    uint32_t value;

    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (!value || value > ROCX_CORE_MAX_SPEED) {
        error_setg(errp, "rocx: %s must be 1..%u (Mb/s)", name,
                   ROCX_CORE_MAX_SPEED);
        return;
    }
    s->speed = value;
    if (DEVICE(obj)->realized) {
        /* The event it may post is written by the engine. */
        rocx_core_set_speed(&s->core, value);
        qemu_bh_schedule(s->bh);
    }
}

/* qdev's uint32 property, with this setter (rocx_class_init()). */
static PropertyInfo rocx_prop_speed;

static const Property rocx_properties[] = {
    DEFINE_NIC_PROPERTIES(RocxState, conf),
    DEFINE_PROP_UNSIGNED("speed", RocxState, speed, ROCX_CORE_DEFAULT_SPEED,
                         rocx_prop_speed, uint32_t),
    DEFINE_PROP_BOOL("bundle", RocxState, bundle, true),
    DEFINE_PROP_BOOL("x-direct-doorbell", RocxState, direct_db, true),
    DEFINE_PROP_BOOL("x-lazy-doorbell", RocxState, lazy_db, true),
    DEFINE_PROP_BOOL("x-db-record", RocxState, db_records, true),
    DEFINE_PROP_BOOL("x-sink", RocxState, sink, false),
    DEFINE_PROP_UINT32("x-req-window", RocxState, req_window, ROCX_REQ_WINDOW),
    DEFINE_PROP_UINT32("x-sq-inflight", RocxState, sq_inflight, ROCX_REQ_WQES),
    DEFINE_PROP_UINT32("tx-delay", RocxState, delay.tx_ns, 0),
    DEFINE_PROP_UINT32("rx-delay", RocxState, delay.rx_ns, 0),
    DEFINE_PROP_UINT32("cnp-delay", RocxState, delay.cnp_ns, 0),
    DEFINE_PROP_UINT32("db-delay", RocxState, delay.db_ns, 0),
    DEFINE_PROP_STRING("fabric", RocxState, chan.path),
    DEFINE_PROP_BOOL("timed", RocxState, chan.timed, false),
    DEFINE_PROP_BOOL("fabric-rings", RocxState, chan.rings_on, true),
};

static void rocx_get_aq_stall(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    int32_t value = rocx_core_aq_stall(&ROCX(obj)->core);

    visit_type_int32(v, name, &value, errp);
}

static void rocx_set_aq_stall(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    int32_t value;

    if (!visit_type_int32(v, name, &value, errp)) {
        return;
    }
    /* The core exists from realize on, and a reset at start clears it. */
    if (!DEVICE(obj)->realized) {
        error_setg(errp, "rocx: %s is set at run time, with qom-set", name);
        return;
    }
    if (!rocx_core_set_aq_stall(&ROCX(obj)->core, value)) {
        error_setg(errp, "rocx: %s must be -1 (off), an admin opcode "
                   "0..65535 or 65536 (any command)", name);
        return;
    }
    trace_rocx_aq_stall_set(value);
}

static void rocx_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    rocx_prop_speed = qdev_prop_uint32;
    rocx_prop_speed.description = "port line rate in Mb/s, settable at run "
                                  "time";
    rocx_prop_speed.set = rocx_set_speed;
    rocx_prop_speed.realized_set_allowed = true;

    k->realize = rocx_realize;
    k->config_write = rocx_write_config;
    k->exit = rocx_exit;
    k->vendor_id = ROCX_PCI_VENDOR_ID;
    k->device_id = ROCX_PCI_DEVICE_ID;
    k->revision = ROCX_PCI_REVISION;
    k->class_id = ROCX_PCI_CLASS_ETHERNET;
    k->subsystem_vendor_id = ROCX_PCI_VENDOR_ID;
    k->subsystem_id = ROCX_PCI_DEVICE_ID;
    rc->phases.hold = rocx_reset_hold;

    dc->desc = "rocx RoCE network adapter";
    dc->vmsd = &rocx_vmstate;
    device_class_set_props(dc, rocx_properties);
    object_class_property_add(klass, "x-aq-stall", "int32",
                              rocx_get_aq_stall, rocx_set_aq_stall,
                              NULL, NULL);
    object_class_property_set_description(klass, "x-aq-stall",
        "Fault injection: hang the admin queue at the next command of this "
        "opcode (65536: any), until a reset; -1: off");
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo rocx_info = {
    .name = TYPE_ROCX,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(RocxState),
    .class_init = rocx_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void rocx_register_types(void)
{
    type_register_static(&rocx_info);
}

type_init(rocx_register_types)
