/*
 * rocx: the fabric channel's QEMU glue (Documentation/rocx-device.rst,
 * "Fabric channel" and "Timed mode"; the records are rocx-chan.c's).
 *
 * The device opens a SOCK_SEQPACKET connection to rocx-switch itself
 * (fabric=PATH) instead of going through a netdev.  In an untimed run the
 * channel is just another link: the main loop reads it, frames are
 * delivered as they come, and a record the socket cannot take waits in
 * the device while the line counts as busy.
 *
 * In a timed run (timed=on, under -icount shift=N,sleep=off) the guest,
 * the device and the switch keep one virtual clock.  Instruction counting
 * makes QEMU_CLOCK_VIRTUAL a function of what the guest executed and runs
 * its timers in the vCPU thread; the icount budget stops the guest
 * exactly at the next deadline.  So a virtual timer at the horizon, whose
 * callback waits for the switch's next promise, holds the guest there.
 * The wait keeps the BQL: dropping it would let the main loop stop or
 * quit the VM while a timer callback is still running.  It blocks in
 * poll() on the socket, bounded in wall time, and never spins.  The
 * engine runs from a virtual timer due at once rather than a bottom half,
 * so everything the device does happens at a virtual instant in the vCPU
 * thread, and frames received are delivered by the core's timer heap at
 * their arrival instant, whenever the socket was read.
 *
 * Copyright (c) 2026 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/sockets.h"
#include "qapi/error.h"
#include "system/system.h"
#include "system/cpu-timers.h"
#include <poll.h>
#include <sys/un.h>
#include "rocx-pci.h"
#include "trace.h"

#define ROCX_CHAN_JOIN_NS   ((int64_t)ROCX_FAB_JOIN_MS * SCALE_MS)
#define ROCX_CHAN_STALL_NS  ((int64_t)ROCX_FAB_STALL_MS * SCALE_MS)
/* Records taken per call of the main loop's handler, so it cannot starve. */
#define ROCX_CHAN_RX_BUDGET 64

static const char *rocx_chan_mode(bool timed)
{
    return timed ? "timed" : "untimed";
}

/*
 * A run that cannot go on: the switch refused us, stalled or broke the
 * protocol.  Stopping with a message beats a guest that hangs in virtual
 * time or a measurement that silently lost its fabric.
 */
static G_NORETURN void rocx_chan_die(RocxState *s, const char *what)
{
    RocxPciChan *ch = &s->chan;
    const char *why = rocx_core_chan_error(&s->core);

    error_report("rocx: fabric channel %s (%s): %s%s%s; virtual time %"
                 PRId64 " ns, horizon %" PRId64 " ns", ch->path,
                 rocx_chan_mode(ch->timed), what, why ? ": " : "",
                 why ? why : "", qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL),
                 rocx_core_chan_horizon(&s->core));
    exit(1);
}

/* Wait until fd is ready for events or the wall-clock deadline passes. */
static bool rocx_chan_poll(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - get_clock();
        struct pollfd p = { .fd = fd, .events = events };
        int r;

        if (left <= 0) {
            return false;
        }
        r = poll(&p, 1, MIN(left / SCALE_MS + 1, INT_MAX));
        if (r > 0) {
            return true;
        }
        if (r < 0 && errno != EINTR) {
            return false;
        }
    }
}

/*
 * Wait until the switch has something for us: a record on the socket,
 * or with rings our eventfd or the socket's end of file.
 */
static bool rocx_chan_poll_in(RocxState *s, int64_t deadline)
{
    RocxPciChan *ch = &s->chan;
    struct pollfd p[2] = {
        { .fd = ch->fd, .events = POLLIN },
        { .fd = -1, .events = POLLIN },
    };

    if (ch->ring.active) {
        p[1].fd = rocx_pci_ring_wake_fd(&ch->ring);
    }
    for (;;) {
        int64_t left = deadline - get_clock();
        int r;

        if (left <= 0) {
            return false;
        }
        r = poll(p, 2, MIN(left / SCALE_MS + 1, INT_MAX));
        if (r > 0) {
            return true;
        }
        if (r < 0 && errno != EINTR) {
            return false;
        }
    }
}

/* The channel closed: the main loop stops reading it. */
static void rocx_chan_stop_reading(RocxState *s)
{
    RocxPciChan *ch = &s->chan;

    qemu_set_fd_handler(ch->fd, NULL, NULL, NULL);
    if (ch->ring.active) {
        qemu_set_fd_handler(rocx_pci_ring_wake_fd(&ch->ring), NULL, NULL,
                            NULL);
    }
}

static void rocx_chan_arm_horizon(RocxState *s)
{
    int64_t h = rocx_core_chan_horizon(&s->core);

    if (!s->chan.horizon_timer) {
        return;
    }
    if (h == INT64_MAX) {
        timer_del(s->chan.horizon_timer);
    } else {
        timer_mod(s->chan.horizon_timer, h);
    }
}

static void rocx_chan_arm_epoch(RocxState *s)
{
    int64_t epoch = s->core.chan.epoch;

    if (s->chan.timed && s->core.chan.joined &&
        epoch > qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL)) {
        timer_mod(s->chan.epoch_timer, epoch);
    }
}

/* A record taken: false when the channel closed; errors end the run. */
static bool rocx_chan_record(RocxState *s, size_t len)
{
    RocxChanResult r = rocx_core_chan_receive(&s->core, s->chan.rx, len);

    trace_rocx_chan_rx(len, r);
    if (r == ROCX_CHAN_BYE) {
        return false;
    }
    if (r == ROCX_CHAN_REFUSED) {
        rocx_chan_die(s, "refused by the switch");
    }
    if (r != ROCX_CHAN_OK) {
        rocx_chan_die(s, "protocol error");
    }
    return true;
}

/*
 * The switch's records from ring 1, up to budget (0: until it is empty).
 * What a budget leaves comes back through the main loop.
 */
static bool rocx_chan_read_ring(RocxState *s, unsigned budget)
{
    RocxPciChan *ch = &s->chan;
    const char *why = NULL;
    unsigned n = 0;
    int len;

    rocx_pci_ring_busy(&ch->ring);
    for (;;) {
        if (budget && n++ >= budget) {
            rocx_pci_ring_taken(&ch->ring);
            rocx_pci_ring_rewake(&ch->ring);
            return true;
        }
        len = rocx_pci_ring_take(&ch->ring, ch->rx, sizeof(ch->rx) - 1,
                                 &why);
        if (len < 0) {
            rocx_core_chan_closed(&s->core, why);
            rocx_chan_die(s, "protocol error");
        }
        if (len > 0) {
            if (!rocx_chan_record(s, len)) {
                return false;
            }
            continue;
        }
        rocx_pci_ring_taken(&ch->ring);
        if (!rocx_pci_ring_sleep(&ch->ring)) {
            return true;
        }
        rocx_pci_ring_busy(&ch->ring);
    }
}

/*
 * One record from the socket of a ring link, with the descriptors that
 * came with it (at most ROCX_RING_DIRECT_NFDS; *nfds says how many).
 * The length, 0 at its end, or -1 with errno.
 */
static ssize_t rocx_chan_recv_fds(RocxState *s, uint8_t *buf, size_t cap,
                                  int *fds, unsigned *nfds)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE((ROCX_RING_DIRECT_NFDS + 1) * sizeof(int))];
    } ctl;
    struct iovec iov = { .iov_base = buf, .iov_len = cap };
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
    };
    struct cmsghdr *cm;
    ssize_t len;

    *nfds = 0;
    len = recvmsg(s->chan.fd, &m, MSG_DONTWAIT | MSG_TRUNC |
                  MSG_CMSG_CLOEXEC);
    if (len < 0) {
        return len;
    }
    for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
        size_t i, n;

        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) {
            continue;
        }
        n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (i = 0; i < n; i++) {
            int fd;

            memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
            if (*nfds < ROCX_RING_DIRECT_NFDS) {
                fds[(*nfds)++] = fd;
            } else {
                close(fd);
                /* More than any record carries: refused below. */
                *nfds = ROCX_RING_DIRECT_NFDS + 1;
            }
        }
    }
    if (m.msg_flags & MSG_CTRUNC) {
        *nfds = ROCX_RING_DIRECT_NFDS + 1;
    }
    return len;
}

/*
 * With rings the socket carries only the switch's direct records
 * (rocx-pci-direct.c) and its end: false once it has ended (the ring is
 * read first, for what the switch wrote before).
 */
static bool rocx_chan_sock_open(RocxState *s)
{
    RocxPciChan *ch = &s->chan;
    uint8_t b[ROCX_FAB_CTRL_LEN];
    int fds[ROCX_RING_DIRECT_NFDS];
    const char *why = NULL;
    unsigned nfds, i;
    ssize_t len;

    for (;;) {
        len = rocx_chan_recv_fds(s, b, sizeof(b), fds, &nfds);
        if (len < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
                        errno == EINTR)) {
            return true;
        }
        if (len <= 0) {
            break;
        }
        if (len > (ssize_t)sizeof(b) || nfds > ROCX_RING_DIRECT_NFDS) {
            why = "a record on the socket of a ring link";
        } else if (rocx_pci_direct_record(s, b, len, fds, nfds, &why)) {
            continue;
        }
        for (i = 0; i < MIN(nfds, ROCX_RING_DIRECT_NFDS); i++) {
            close(fds[i]);
        }
        rocx_core_chan_closed(&s->core, why);
        rocx_chan_die(s, "protocol error");
    }
    if (rocx_chan_read_ring(s, 0)) {
        rocx_core_chan_closed(&s->core, "the switch closed the channel");
        warn_report("rocx: fabric channel %s: the switch went away",
                    ch->path);
    }
    return false;
}

/*
 * Read every record waiting, up to budget (0: no limit).  Returns false
 * when the channel is closed; a protocol error or a refusal ends the run.
 */
static bool rocx_chan_read(RocxState *s, unsigned budget)
{
    RocxPciChan *ch = &s->chan;
    unsigned n = 0;

    if (ch->ring.active) {
        return rocx_chan_read_ring(s, budget);
    }
    while (!budget || n++ < budget) {
        ssize_t len = recv(ch->fd, ch->rx, sizeof(ch->rx),
                           MSG_DONTWAIT | MSG_TRUNC);

        if (len < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                break;
            }
            rocx_core_chan_closed(&s->core, "receive failed");
            rocx_chan_die(s, strerror(errno));
        }
        if (len == 0) {
            /* End of file: the switch promises forever, as with BYE. */
            rocx_core_chan_closed(&s->core, "the switch closed the channel");
            warn_report("rocx: fabric channel %s: the switch went away",
                        ch->path);
            return false;
        }
        if (len > (ssize_t)sizeof(ch->rx) - 1) {
            rocx_core_chan_closed(&s->core, "a record longer than 64 KiB");
            rocx_chan_die(s, "protocol error");
        }
        if (!rocx_chan_record(s, len)) {
            return false;
        }
    }
    return true;
}

/* The switch's records, in the main loop. */
static void rocx_chan_readable(void *opaque)
{
    RocxState *s = opaque;
    RocxPciChan *ch = &s->chan;

    if (ch->ring.active ? !rocx_chan_sock_open(s) :
        !rocx_chan_read(s, ROCX_CHAN_RX_BUDGET)) {
        qemu_set_fd_handler(ch->fd, NULL, NULL, NULL);
    }
    rocx_chan_arm_horizon(s);
}

static void rocx_chan_ring_send_pending(RocxState *s);

/* Our eventfd, in the main loop: ring 1 has records, or ring 0 room. */
static void rocx_chan_ring_readable(void *opaque)
{
    RocxState *s = opaque;
    RocxPciChan *ch = &s->chan;

    if (ch->pending_len) {
        rocx_chan_ring_send_pending(s);
    }
    if (!rocx_chan_read(s, ROCX_CHAN_RX_BUDGET)) {
        qemu_set_fd_handler(rocx_pci_ring_wake_fd(&ch->ring), NULL, NULL,
                            NULL);
    }
    /* Reading cleared the eventfd: a wake for room may have gone with it. */
    if (ch->pending_len && rocx_pci_ring_want_room(&ch->ring,
                                                   ch->pending_len)) {
        rocx_pci_ring_rewake(&ch->ring);
    }
    rocx_chan_arm_horizon(s);
}

/* Send a whole record, waiting for room at most until deadline. */
static bool rocx_chan_send_wait(RocxState *s, const uint8_t *buf, size_t len,
                                int64_t deadline)
{
    for (;;) {
        ssize_t n = send(s->chan.fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

        if (n == (ssize_t)len) {
            return true;
        }
        if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK &&
                       errno != EINTR)) {
            return false;
        }
        if (!rocx_chan_poll(s->chan.fd, POLLOUT, deadline)) {
            return false;
        }
    }
}

static void rocx_chan_writable(void *opaque)
{
    RocxState *s = opaque;
    RocxPciChan *ch = &s->chan;
    ssize_t n = send(ch->fd, ch->pending, ch->pending_len,
                     MSG_DONTWAIT | MSG_NOSIGNAL);

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
    }
    ch->pending_len = 0;
    qemu_set_fd_handler(ch->fd, rocx_chan_readable, NULL, s);
    rocx_core_tx_busy(&s->core, false);
    if (n < 0) {
        rocx_core_chan_closed(&s->core, "send failed");
    }
}

/*
 * A record into ring 0, waiting for room at most until deadline.  A wake
 * taken while waiting may also have announced ring 1's records: it is
 * passed on to whoever reads them.
 */
static bool rocx_chan_ring_put_wait(RocxState *s, bool own,
                                    const uint8_t *buf, size_t len,
                                    int64_t deadline)
{
    RocxPciRing *r = &s->chan.ring;
    bool woke = false;
    int ret;

    for (;;) {
        ret = own ? rocx_pci_ring_put_own(r, buf, len) :
                    rocx_pci_ring_put(r, buf, len);
        if (ret == 0) {
            break;
        }
        if (ret == -EAGAIN) {
            ret = own ? rocx_pci_ring_want_room_own(r, len) :
                        rocx_pci_ring_want_room(r, len);
        }
        if (ret < 0) {
            rocx_core_chan_closed(&s->core, "a ring whose tail is out of "
                                  "range");
            rocx_chan_die(s, "protocol error");
        }
        if (ret > 0) {
            continue;
        }
        if (!rocx_chan_poll(rocx_pci_ring_wake_fd(r), POLLIN, deadline)) {
            return false;
        }
        event_notifier_test_and_clear(&r->nic_wake);
        woke = true;
    }
    if (woke) {
        rocx_pci_ring_rewake(r);
    }
    return true;
}

/* Untimed: the record that found ring 0 full, now that it has room. */
static void rocx_chan_ring_send_pending(RocxState *s)
{
    RocxPciChan *ch = &s->chan;
    int ret = rocx_pci_ring_put(&ch->ring, ch->pending, ch->pending_len);

    if (ret == -EAGAIN) {
        return;
    }
    if (ret < 0) {
        rocx_core_chan_closed(&s->core, "a ring whose tail is out of range");
        rocx_chan_die(s, "protocol error");
    }
    ch->pending_len = 0;
    rocx_core_tx_busy(&s->core, false);
}

/*
 * A record into the ring (own: ring 0, else where records go now),
 * waiting for room as long as a stalled switch is allowed.
 */
void rocx_pci_chan_put_wait(RocxState *s, bool own, const uint8_t *buf,
                            size_t len)
{
    if (!rocx_chan_ring_put_wait(s, own, buf, len,
                                 get_clock() + ROCX_CHAN_STALL_NS)) {
        rocx_chan_die(s, own ? "the switch takes no records" :
                      "the switch or the peer takes no records");
    }
}

/* The waiting record, if any, where records go now; or wait for room. */
void rocx_pci_chan_send_pending(RocxState *s)
{
    RocxPciChan *ch = &s->chan;

    if (!ch->pending_len) {
        return;
    }
    rocx_chan_ring_send_pending(s);
    if (ch->pending_len && rocx_pci_ring_want_room(&ch->ring,
                                                   ch->pending_len)) {
        rocx_pci_ring_rewake(&ch->ring);
    }
}

static void rocx_chan_ring_send(RocxState *s, const uint8_t *buf, size_t len)
{
    RocxPciChan *ch = &s->chan;
    int ret;

    if (ch->timed) {
        if (!rocx_chan_ring_put_wait(s, false, buf, len,
                                     get_clock() + ROCX_CHAN_STALL_NS)) {
            rocx_chan_die(s, "the switch takes no records");
        }
        return;
    }
    /* Between DIRECT_ACK and DIRECT_GO nothing goes anywhere. */
    if (ch->ring.direct == ROCX_DIRECT_WAIT_GO) {
        rocx_pci_direct_hold(s, buf, len);
        return;
    }
    /* An earlier record still waits: it goes first, whatever it takes. */
    if (ch->pending_len) {
        rocx_pci_chan_put_wait(s, false, ch->pending, ch->pending_len);
        ch->pending_len = 0;
        rocx_core_tx_busy(&s->core, false);
    }
    ret = rocx_pci_ring_put(&ch->ring, buf, len);
    if (ret == 0) {
        return;
    }
    if (ret == -EAGAIN) {
        memcpy(ch->pending, buf, len);
        ch->pending_len = len;
        rocx_core_tx_busy(&s->core, true);
        if (rocx_pci_ring_want_room(&ch->ring, len)) {
            rocx_pci_ring_rewake(&ch->ring);
        }
        return;
    }
    rocx_core_chan_closed(&s->core, "a ring whose tail is out of range");
    rocx_chan_die(s, "protocol error");
}

void rocx_pci_chan_send(RocxState *s, const uint8_t *buf, size_t len)
{
    RocxPciChan *ch = &s->chan;
    ssize_t n;

    if (ch->fd < 0 || s->core.chan.closed) {
        return;
    }
    trace_rocx_tx(len);
    if (ch->ring.active) {
        rocx_chan_ring_send(s, buf, len);
        return;
    }
    if (ch->timed) {
        /*
         * A timed record may not be late or lost: the switch reads at
         * once unless it is stuck, which the deadline reports.
         */
        if (!rocx_chan_send_wait(s, buf, len,
                                 get_clock() + ROCX_CHAN_STALL_NS)) {
            rocx_chan_die(s, "the switch takes no records");
        }
        return;
    }
    /* An earlier record still waits: it goes first, whatever it takes. */
    if (ch->pending_len) {
        if (!rocx_chan_send_wait(s, ch->pending, ch->pending_len,
                                 get_clock() + ROCX_CHAN_STALL_NS)) {
            rocx_chan_die(s, "the switch takes no records");
        }
        ch->pending_len = 0;
        qemu_set_fd_handler(ch->fd, rocx_chan_readable, NULL, s);
        rocx_core_tx_busy(&s->core, false);
    }
    n = send(ch->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n == (ssize_t)len) {
        return;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        memcpy(ch->pending, buf, len);
        ch->pending_len = len;
        qemu_set_fd_handler(ch->fd, rocx_chan_readable, rocx_chan_writable,
                            s);
        rocx_core_tx_busy(&s->core, true);
        return;
    }
    rocx_core_chan_closed(&s->core, "send failed");
}

/*
 * The guest reached the horizon: nothing may happen here until the
 * switch has promised past it.  Promise our own clock first, or the
 * switch could be waiting for us in turn.
 */
static void rocx_chan_horizon_cb(void *opaque)
{
    RocxState *s = opaque;
    RocxPciChan *ch = &s->chan;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    int64_t start = get_clock();
    uint8_t sync[ROCX_FAB_TIMED_HLEN];
    size_t len;

    if (rocx_core_chan_horizon(&s->core) > now) {
        rocx_chan_arm_horizon(s);
        return;
    }
    len = rocx_core_chan_sync(&s->core, now, sync);
    if (len) {
        rocx_pci_chan_send(s, sync, len);
    }
    ch->waits++;
    while (rocx_core_chan_horizon(&s->core) <= now) {
        /*
         * A stall is silence, not a long wait: while another guest boots
         * the switch repeats its promise, and each record starts over.
         */
        if (!rocx_chan_poll_in(s, get_clock() + ROCX_CHAN_STALL_NS)) {
            rocx_chan_die(s, "no record from the switch");
        }
        if (!rocx_chan_read(s, 0) ||
            (ch->ring.active && !rocx_chan_sock_open(s))) {
            rocx_chan_stop_reading(s);
            break;
        }
    }
    ch->wait_ns += get_clock() - start;
    rocx_chan_arm_horizon(s);
}

static void rocx_chan_epoch_cb(void *opaque)
{
    RocxState *s = opaque;

    rocx_core_link_changed(&s->core);
}

/* Send HELLO and wait for the switch's answer; dies if there is none. */
static void rocx_chan_join(RocxState *s)
{
    RocxPciChan *ch = &s->chan;
    uint8_t hello[ROCX_FAB_CTRL_LEN];
    int64_t deadline = get_clock() + ROCX_CHAN_JOIN_NS;
    size_t len = rocx_core_chan_hello(&s->core, hello);

    if (s->core.chan.rings_offer ?
        !rocx_pci_ring_offer(&ch->ring, ch->fd, hello, len) :
        !rocx_chan_send_wait(s, hello, len, deadline)) {
        rocx_chan_die(s, "HELLO not sent");
    }
    while (!s->core.chan.joined) {
        if (!rocx_chan_poll(ch->fd, POLLIN, deadline)) {
            rocx_chan_die(s, "no answer to HELLO");
        }
        if (!rocx_chan_read(s, 1)) {
            rocx_chan_die(s, "the switch left before answering");
        }
    }
    if (s->core.chan.rings) {
        rocx_pci_ring_start(&ch->ring);
        qemu_set_fd_handler(rocx_pci_ring_wake_fd(&ch->ring),
                            rocx_chan_ring_readable, NULL, s);
        /* What the switch wrote before we looked. */
        rocx_pci_ring_rewake(&ch->ring);
    } else if (s->core.chan.rings_offer) {
        rocx_pci_ring_free(&ch->ring);
    }
    rocx_chan_arm_epoch(s);
    rocx_chan_arm_horizon(s);
}

void rocx_pci_chan_admin_up(RocxState *s)
{
    if (s->chan.fd >= 0 && s->chan.timed && !s->core.chan.hello_sent) {
        rocx_chan_join(s);
    }
}

static void rocx_chan_at_exit(Notifier *n, void *data);

bool rocx_pci_chan_realize(RocxState *s, Error **errp)
{
    RocxPciChan *ch = &s->chan;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    ch->fd = -1;
    if (!ch->path) {
        if (ch->timed) {
            error_setg(errp, "rocx: timed=on needs fabric=PATH");
            return false;
        }
        return true;
    }
    if (s->conf.peers.ncs[0]) {
        error_setg(errp, "rocx: fabric= and netdev= exclude each other");
        return false;
    }
    if (ch->timed && !icount_enabled()) {
        error_setg(errp, "rocx: timed=on needs -icount shift=N,sleep=off");
        return false;
    }
    if (strlen(ch->path) >= sizeof(sa.sun_path)) {
        error_setg(errp, "rocx: fabric=%s: path too long", ch->path);
        return false;
    }
    strcpy(sa.sun_path, ch->path);
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error_setg_errno(errp, errno, "rocx: fabric channel socket");
        return false;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        error_setg_errno(errp, errno, "rocx: fabric=%s", ch->path);
        close(fd);
        return false;
    }
    qemu_socket_set_nonblock(fd);
    ch->fd = fd;
    rocx_core_chan_start(&s->core, ch->timed);
    ch->ring.memfd = -1;
    ch->ring.peer_wake_fd = -1;
    if (ch->rings_on) {
        if (!rocx_pci_ring_init(&ch->ring, errp)) {
            close(fd);
            ch->fd = -1;
            return false;
        }
        s->core.chan.rings_offer = true;
    }
    if (ch->timed) {
        ch->horizon_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                         rocx_chan_horizon_cb, s);
        ch->epoch_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                       rocx_chan_epoch_cb, s);
    } else {
        /* Untimed: joined before the guest runs, so its link can come up. */
        rocx_chan_join(s);
    }
    qemu_set_fd_handler(fd, rocx_chan_readable, NULL, s);
    ch->exit_notifier.notify = rocx_chan_at_exit;
    qemu_add_exit_notifier(&ch->exit_notifier);
    return true;
}

/* Say BYE and what the waits cost; the socket stays until unrealize. */
static void rocx_chan_leave(RocxState *s)
{
    RocxPciChan *ch = &s->chan;
    uint8_t bye[ROCX_FAB_TIMED_HLEN];
    const char *why = rocx_core_chan_error(&s->core);
    size_t len;

    /* How the link stood, before BYE changes it. */
    info_report("rocx: fabric channel %s: %s, %s, %s%s%s; %" PRIu64
                " records sent, %" PRIu64 " received, %" PRIu64 " wakes sent"
                ", %" PRIu64 " direct links, %" PRIu64 " wakes sent the peer",
                ch->path, s->core.chan.joined ? "joined" : "not joined",
                ch->ring.active ? "shared-memory rings" : "socket records",
                s->core.chan.closed ? "closed" : "open", why ? ": " : "",
                why ? why : "", s->core.chan.stats.tx_records,
                s->core.chan.stats.rx_records, ch->ring.kicks,
                ch->ring.direct_on, ch->ring.peer_kicks);
    len = rocx_core_chan_bye(&s->core, bye);
    /* Best effort: the switch also takes end of file as BYE. */
    if (len && (ch->ring.active ?
                rocx_pci_ring_put_own(&ch->ring, bye, len) < 0 :
                send(ch->fd, bye, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)) {
        warn_report("rocx: fabric channel %s: BYE not sent", ch->path);
    }
    if (len) {
        rocx_core_chan_closed(&s->core, "the device left");
    }
    if (ch->timed) {
        info_report("rocx: fabric channel %s: %" PRIu64 " waits at the "
                    "horizon, %" PRIu64 " ms of wall time, virtual time %"
                    PRId64 " ns, %" PRIu64 " CNPs the delay line dropped, %"
                    PRIu64 " doorbells a full line passed on early",
                    ch->path, ch->waits, ch->wait_ns / SCALE_MS,
                    qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL),
                    s->core.rdma.stats.cnp_delay_full,
                    s->core.rdma.stats.db_delay_full);
    }
}

/* QEMU exits without unrealizing its devices: leave the fabric anyway. */
static void rocx_chan_at_exit(Notifier *n, void *data)
{
    RocxState *s = container_of(n, RocxState, chan.exit_notifier);

    rocx_chan_leave(s);
}

void rocx_pci_chan_exit(RocxState *s)
{
    RocxPciChan *ch = &s->chan;

    if (ch->fd < 0) {
        return;
    }
    qemu_remove_exit_notifier(&ch->exit_notifier);
    rocx_chan_leave(s);
    rocx_chan_stop_reading(s);
    rocx_pci_ring_free(&ch->ring);
    close(ch->fd);
    ch->fd = -1;
    if (ch->horizon_timer) {
        timer_free(ch->horizon_timer);
        timer_free(ch->epoch_timer);
        ch->horizon_timer = ch->epoch_timer = NULL;
    }
}
