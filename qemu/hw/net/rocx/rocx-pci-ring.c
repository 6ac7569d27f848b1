/*
 * rocx: the fabric channel's shared-memory rings, QEMU's side
 * (Documentation/rocx-device.rst, "Shared-memory rings").  The rings'
 * layout and checks are include/rocx/rocx_ring.h's, shared with
 * rocx-switch; the records in them are rocx-chan.c's, as on the socket.
 *
 * The device creates the memory and both eventfds and passes them with
 * HELLO; rocx-pci-chan.c moves its records here once HELLO_ACK takes the
 * rings.  Ring 0 carries our records, ring 1 the switch's.  The switch
 * may rewrite the memory at any time: rocx_ring.h copies a record out
 * before anything looks inside it and never trusts a value it reads.
 *
 * Copyright (c) 2026 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/memfd.h"
#include "qapi/error.h"
#include <sys/mman.h>
#include "rocx-pci.h"

bool rocx_pci_ring_init(RocxPciRing *r, Error **errp)
{
    size_t bytes = rocx_ring_map_bytes(ROCX_PCI_RING_BYTES);
    void *map;

    r->memfd = qemu_memfd_create("rocx-fabric-rings", bytes, false, 0, 0,
                                 errp);
    if (r->memfd < 0) {
        return false;
    }
    map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, r->memfd, 0);
    if (map == MAP_FAILED) {
        error_setg_errno(errp, errno, "rocx: fabric rings: mmap");
        close(r->memfd);
        r->memfd = -1;
        return false;
    }
    r->map = map;
    r->map_bytes = bytes;
    rocx_ring_format(r->map, ROCX_PCI_RING_BYTES);
    rocx_ring_attach(&r->tx, r->map, ROCX_PCI_RING_BYTES, 0);
    rocx_ring_attach(&r->rx, r->map, ROCX_PCI_RING_BYTES, 1);
    r->out = &r->tx;
    r->peer_wake_fd = -1;
    g_queue_init(&r->held);
    if (event_notifier_init(&r->sw_wake, false) ||
        event_notifier_init(&r->nic_wake, false)) {
        error_setg(errp, "rocx: fabric rings: eventfd");
        rocx_pci_ring_free(r);
        return false;
    }
    r->notifiers = true;
    return true;
}

void rocx_pci_ring_free(RocxPciRing *r)
{
    GByteArray *b;

    rocx_pci_ring_unmap_peer(r);
    while ((b = g_queue_pop_head(&r->held))) {
        g_byte_array_unref(b);
    }
    if (r->notifiers) {
        event_notifier_cleanup(&r->sw_wake);
        event_notifier_cleanup(&r->nic_wake);
        r->notifiers = false;
    }
    if (r->map) {
        munmap(r->map, r->map_bytes);
        r->map = NULL;
    }
    if (r->memfd >= 0) {
        close(r->memfd);
        r->memfd = -1;
    }
    r->active = false;
}

/* HELLO with the rings' memory and both eventfds attached. */
bool rocx_pci_ring_offer(RocxPciRing *r, int sock, const uint8_t *hello,
                         size_t len)
{
    int fds[ROCX_RING_NFDS] = {
        r->memfd,
        event_notifier_get_fd(&r->sw_wake),
        event_notifier_get_fd(&r->nic_wake),
    };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(fds))];
    } ctl = {};
    struct iovec iov = { .iov_base = (void *)hello, .iov_len = len };
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
    };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    ssize_t n;

    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(fds));
    memcpy(CMSG_DATA(cm), fds, sizeof(fds));
    do {
        n = sendmsg(sock, &m, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)len;
}

/*
 * The switch took the rings: its copies of the descriptors keep the
 * memory and its eventfd alive; ours of the memory is no longer needed.
 */
void rocx_pci_ring_start(RocxPciRing *r)
{
    close(r->memfd);
    r->memfd = -1;
    r->active = true;
}

static void rocx_pci_ring_kick_peer(RocxPciRing *r)
{
    uint64_t one = 1;

    /* A full counter already wakes its reader: nothing is lost. */
    if (write(r->peer_wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
        warn_report_once("rocx: fabric rings: the peer's eventfd: %s",
                         strerror(errno));
    }
    r->peer_kicks++;
}

int rocx_pci_ring_put(RocxPciRing *r, const uint8_t *buf, size_t len)
{
    bool kick;
    int ret = rocx_ring_put(r->out, buf, len, &kick);

    if (ret == 0 && kick) {
        if (r->out == &r->peer_tx) {
            rocx_pci_ring_kick_peer(r);
        } else {
            event_notifier_set(&r->sw_wake);
            r->kicks++;
        }
    }
    return ret;
}

int rocx_pci_ring_put_own(RocxPciRing *r, const uint8_t *buf, size_t len)
{
    bool kick;
    int ret = rocx_ring_put(&r->tx, buf, len, &kick);

    if (ret == 0 && kick) {
        event_notifier_set(&r->sw_wake);
        r->kicks++;
    }
    return ret;
}

int rocx_pci_ring_want_room_own(RocxPciRing *r, size_t len)
{
    return rocx_ring_want_room(&r->tx, len);
}

/*
 * DIRECT passed the peer's ring memory and wake eventfd: map it and keep
 * both.  NULL, or why not (nothing is kept then; the caller closes).
 */
const char *rocx_pci_ring_map_peer(RocxPciRing *r, int memfd, int wake_fd)
{
    const char *why;
    struct stat st;
    uint32_t size;
    void *map;

    if (fstat(memfd, &st)) {
        return "the peer's ring memory cannot be inspected";
    }
    if (st.st_size < ROCX_RING_CTL_BYTES ||
        st.st_size > (off_t)rocx_ring_map_bytes(ROCX_RING_MAX)) {
        return "the peer's ring memory is of an impossible size";
    }
    map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd,
               0);
    if (map == MAP_FAILED) {
        return "the peer's ring memory cannot be mapped";
    }
    why = rocx_ring_check_layout(map, st.st_size, &size);
    if (why) {
        munmap(map, st.st_size);
        return why;
    }
    r->peer_map = map;
    r->peer_bytes = st.st_size;
    r->peer_size = size;
    r->peer_wake_fd = wake_fd;
    return NULL;
}

void rocx_pci_ring_unmap_peer(RocxPciRing *r)
{
    if (r->out == &r->peer_tx) {
        r->out = &r->tx;
    }
    if (r->peer_map) {
        munmap(r->peer_map, r->peer_bytes);
        r->peer_map = NULL;
    }
    if (r->peer_wake_fd >= 0) {
        close(r->peer_wake_fd);
        r->peer_wake_fd = -1;
    }
    r->direct = ROCX_DIRECT_NONE;
}

int rocx_pci_ring_take(RocxPciRing *r, uint8_t *buf, size_t cap,
                       const char **why)
{
    return rocx_ring_take(&r->rx, buf, MIN(cap, UINT32_MAX), why);
}

/* After taking records: wake the switch if it waits for room in ring 1. */
void rocx_pci_ring_taken(RocxPciRing *r)
{
    if (rocx_ring_producer_waits(&r->rx)) {
        event_notifier_set(&r->sw_wake);
        r->kicks++;
    }
}

void rocx_pci_ring_busy(RocxPciRing *r)
{
    rocx_ring_busy(&r->rx);
}

/*
 * Ring 1 looked empty: clear our eventfd and ask to be woken.  True if a
 * record came meanwhile, to be taken now.
 */
bool rocx_pci_ring_sleep(RocxPciRing *r)
{
    event_notifier_test_and_clear(&r->nic_wake);
    return rocx_ring_sleep(&r->rx);
}

/*
 * The ring out has no room for len: 1 if it has now, 0 (woken later: by
 * the switch, which passes on the peer's wake while direct), -1.
 */
int rocx_pci_ring_want_room(RocxPciRing *r, size_t len)
{
    return rocx_ring_want_room(r->out, len);
}

int rocx_pci_ring_wake_fd(RocxPciRing *r)
{
    return event_notifier_get_fd(&r->nic_wake);
}

/* Come back through the main loop: work is left that a wake announced. */
void rocx_pci_ring_rewake(RocxPciRing *r)
{
    event_notifier_set(&r->nic_wake);
}
