/*
 * rocx: direct rings, the NIC's side (Documentation/rocx-device.rst,
 * "Direct rings").  When rocx-switch steps aside between two NICs, it
 * passes each the other's ring memory; from DIRECT_GO our records go
 * straight into the peer's ring 1, where the switch would have put them,
 * until DIRECT_END gives that ring back.
 *
 * The switch's records of this protocol come on the socket, since ring 1
 * may be lent; our answers go in ring 0, behind the records they fence.
 * Between DIRECT_ACK and DIRECT_GO (or DIRECT_END) the engine's records
 * are held here: one of them may not overtake what the switch still has
 * for the peer.  The peer's memory gets the checks of rocx_ring.h, as the
 * switch's does: its QEMU can rewrite it at any time.
 *
 * Copyright (c) 2026 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "rocx-pci.h"
#include "trace.h"

/* DIRECT_ACK (refused or not) or DIRECT_END_ACK into ring 0. */
static void rocx_direct_answer(RocxState *s, uint8_t type, bool refused)
{
    uint8_t rec[ROCX_FAB_HLEN];
    size_t len = rocx_core_chan_direct(&s->core, rec, type, refused);

    if (len) {
        rocx_pci_chan_put_wait(s, true, rec, len);
    }
}

/* What the engine sent while we waited goes where records go now. */
static void rocx_direct_replay(RocxState *s)
{
    RocxPciRing *r = &s->chan.ring;
    GByteArray *b;

    while ((b = g_queue_pop_head(&r->held))) {
        rocx_pci_chan_send(s, b->data, b->len);
        g_byte_array_unref(b);
    }
    if (!s->chan.pending_len) {
        rocx_core_tx_busy(&s->core, false);
    }
}

void rocx_pci_direct_hold(RocxState *s, const uint8_t *buf, size_t len)
{
    GByteArray *b = g_byte_array_sized_new(len);

    g_byte_array_append(b, buf, len);
    g_queue_push_tail(&s->chan.ring.held, b);
    rocx_core_tx_busy(&s->core, true);
}

static bool rocx_direct_offer(RocxState *s, const uint8_t *rec, int *fds,
                              unsigned nfds, const char **why)
{
    RocxPciChan *ch = &s->chan;
    RocxPciRing *r = &ch->ring;
    const char *no = NULL;

    if (nfds != ROCX_RING_DIRECT_NFDS) {
        *why = "DIRECT without the peer's memory and eventfd";
        return false;
    }
    if (r->direct != ROCX_DIRECT_NONE) {
        *why = "a second DIRECT";
        return false;
    }
    /* A channel's bundles are as long as ROCX_FAB_BUNDLE_MAX allows. */
    if (ldl_be_p(rec + ROCX_FAB_OFF_MAX_LEN) < ROCX_FAB_BUNDLE_MAX) {
        no = "the peer takes shorter bundles than we send";
    } else {
        no = rocx_pci_ring_map_peer(r, fds[0], fds[1]);
    }
    close(fds[0]);
    if (no) {
        close(fds[1]);
        warn_report("rocx: fabric channel %s: declined a direct link: %s",
                    ch->path, no);
    }
    /* What waits for room in ring 0 went before DIRECT_ACK. */
    if (ch->pending_len) {
        rocx_pci_chan_put_wait(s, false, ch->pending, ch->pending_len);
        ch->pending_len = 0;
        rocx_core_tx_busy(&s->core, false);
    }
    rocx_direct_answer(s, ROCX_FAB_DIRECT_ACK, no != NULL);
    if (!no) {
        r->direct = ROCX_DIRECT_WAIT_GO;
    }
    trace_rocx_direct(no ? "declined" : "offered", r->direct_on);
    return true;
}

static void rocx_direct_go(RocxState *s)
{
    RocxPciRing *r = &s->chan.ring;

    rocx_ring_attach(&r->peer_tx, r->peer_map, r->peer_size, 1);
    r->out = &r->peer_tx;
    r->direct = ROCX_DIRECT_ON;
    r->direct_on++;
    trace_rocx_direct("on", r->direct_on);
    rocx_direct_replay(s);
}

static void rocx_direct_end(RocxState *s)
{
    RocxPciRing *r = &s->chan.ring;

    /*
     * Everything we wrote to the peer is in its ring; a record waiting
     * for room there was not written, and goes after DIRECT_END_ACK.
     */
    rocx_pci_ring_unmap_peer(r);
    rocx_direct_answer(s, ROCX_FAB_DIRECT_END_ACK, false);
    trace_rocx_direct("ended", r->direct_on);
    rocx_direct_replay(s);
    rocx_pci_chan_send_pending(s);
}

/*
 * A record from the socket of a ring link: DIRECT (with fds: the caller
 * closes them on failure, this closes them on success), DIRECT_GO or
 * DIRECT_END.  False with *why on anything else.
 */
bool rocx_pci_direct_record(RocxState *s, const uint8_t *rec, size_t len,
                            int *fds, unsigned nfds, const char **why)
{
    RocxPciRing *r = &s->chan.ring;
    uint8_t type;

    if (len < ROCX_FAB_HLEN ||
        lduw_be_p(rec + ROCX_FAB_OFF_ETHERTYPE) != ROCX_FAB_ETHERTYPE ||
        (uint32_t)ldl_be_p(rec + ROCX_FAB_OFF_MAGIC) != ROCX_FAB_MAGIC) {
        *why = "a record on the socket that is not a fabric frame";
        return false;
    }
    if (s->chan.timed || (rec[ROCX_FAB_OFF_FLAGS] & ROCX_FAB_F_TIMED)) {
        *why = "a direct record on a timed link";
        return false;
    }
    type = rec[ROCX_FAB_OFF_TYPE];
    if (type == ROCX_FAB_DIRECT) {
        return rocx_direct_offer(s, rec, fds, nfds, why);
    }
    if (nfds) {
        *why = "descriptors with a record that takes none";
        return false;
    }
    switch (type) {
    case ROCX_FAB_DIRECT_GO:
        if (r->direct != ROCX_DIRECT_WAIT_GO) {
            *why = "DIRECT_GO to no DIRECT_ACK";
            return false;
        }
        rocx_direct_go(s);
        return true;
    case ROCX_FAB_DIRECT_END:
        if (r->direct == ROCX_DIRECT_NONE) {
            *why = "DIRECT_END to no direct link";
            return false;
        }
        rocx_direct_end(s);
        return true;
    default:
        *why = "a record on the socket of a ring link";
        return false;
    }
}
