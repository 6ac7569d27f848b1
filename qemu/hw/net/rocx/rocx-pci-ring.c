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

int rocx_pci_ring_put(RocxPciRing *r, const uint8_t *buf, size_t len)
{
    bool kick;
    int ret = rocx_ring_put(&r->tx, buf, len, &kick);

    if (ret == 0 && kick) {
        event_notifier_set(&r->sw_wake);
        r->kicks++;
    }
    return ret;
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

/* Ring 0 has no room for len: 1 if it has now, 0 (woken later), -1. */
int rocx_pci_ring_want_room(RocxPciRing *r, size_t len)
{
    return rocx_ring_want_room(&r->tx, len);
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
