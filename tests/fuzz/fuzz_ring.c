/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the fabric channel's shared-memory rings
 * (include/rocx/rocx_ring.h; Documentation/rocx-device.rst, "Shared-memory
 * rings"): the one parser that both the model and rocx-switch run over
 * memory their peer can rewrite at any time.
 *
 * The input is a program over one mapping of two rings of SIZE bytes.
 * Ring 1, the last in the mapping (so that a read past it leaves the
 * allocation), is read by the side under test and written by a peer
 * that the input plays, well (records through rocx_ring_put() on its own
 * view) or not (any bytes anywhere in the ring, any head); ring 0 is
 * written by the side under test, while the peer moves its tail at will.
 * Checks: nothing is read or written outside the mapping (ASan: the
 * mapping is one allocation of exactly its size), a side never writes the
 * other ring (its bytes are compared around every operation), a record
 * taken is never longer than the buffer or the format allows, a ring
 * only the well-behaved peer wrote is never found damaged, and while the
 * peer behaves every record comes out whole, in order, as it went in.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rocx/rocx_ring.h"

/*
 * Smaller than the format's least ring, so that every input wraps and
 * fills it; nothing in rocx_ring.h depends on the size but its being a
 * power of two, which the switch checks before it attaches.
 */
#define SIZE    4096
#define MAXREC  1500            /* records this target writes */
#define LOGLEN  64              /* records the round trip remembers */

enum { OP_PUT, OP_TAKE, OP_POKE, OP_HEAD, OP_TAIL, OP_SEND, OP_WAITS, OP_N };

struct input {
    const uint8_t *p;
    size_t left;
};

static uint32_t take_u(struct input *in, unsigned int bytes)
{
    uint32_t v = 0;

    while (bytes--) {
        v <<= 8;
        if (in->left) {
            v |= *in->p++;
            in->left--;
        }
    }
    return v;
}


/* What the well-behaved peer put and the reader has not taken yet. */
struct log {
    uint32_t len[LOGLEN];
    uint8_t seed[LOGLEN];
    unsigned int head, tail;
};

static void fill(uint8_t *buf, uint32_t len, uint8_t seed)
{
    uint32_t i;

    for (i = 0; i < len; i++) {
        buf[i] = (uint8_t)(seed + i * 7);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t rec[ROCX_FAB_BUNDLE_MAX], want[MAXREC];
    static uint8_t before0[SIZE], before1[SIZE];
    size_t bytes = rocx_ring_map_bytes(SIZE);
    uint8_t *map = malloc(bytes);
    struct rocx_ring reader, writer, peer;
    struct input in = { data, size };
    struct log log = { .head = 0 };
    bool damaged = false, honest = true;
    const char *why;

    assert(map);
    memset(map, 0, bytes);
    rocx_ring_format(map, SIZE);
    rocx_ring_attach(&reader, map, SIZE, 1);
    rocx_ring_attach(&peer, map, SIZE, 1);
    rocx_ring_attach(&writer, map, SIZE, 0);

    while (in.left) {
        uint8_t *r0 = map + ROCX_RING_CTL_BYTES;
        uint8_t *r1 = r0 + SIZE;
        unsigned int op = take_u(&in, 1) % OP_N;
        uint32_t len, off, i;
        bool kick;
        int n;

        memcpy(before0, r0, SIZE);
        memcpy(before1, r1, SIZE);
        switch (op) {
        case OP_PUT:            /* the peer, well behaved */
            len = take_u(&in, 2) % MAXREC;
            fill(want, len, (uint8_t)log.head);
            n = rocx_ring_put(&peer, want, len, &kick);
            assert(n == 0 || n == -EAGAIN || n == -EINVAL);
            assert(n != -EINVAL || !len || !honest);
            if (!n && log.head - log.tail < LOGLEN) {
                log.len[log.head % LOGLEN] = len;
                log.seed[log.head % LOGLEN] = (uint8_t)log.head;
                log.head++;
            } else if (!n) {
                honest = false;         /* more than the log holds */
            }
            assert(!memcmp(r0, before0, SIZE));
            break;
        case OP_TAKE:           /* the side under test */
            if (damaged) {
                break;
            }
            n = rocx_ring_take(&reader, rec, sizeof(rec), &why);
            assert(n <= ROCX_FAB_BUNDLE_MAX);
            if (n < 0) {
                assert(why);
                assert(!honest);
                damaged = true;
            } else if (n > 0 && honest) {
                assert(log.tail != log.head);
                len = log.len[log.tail % LOGLEN];
                fill(want, len, log.seed[log.tail % LOGLEN]);
                assert((uint32_t)n == len && !memcmp(rec, want, len));
                log.tail++;
            } else if (!n && honest) {
                assert(log.tail == log.head);
            }
            rocx_ring_producer_waits(&reader);
            assert(!memcmp(r0, before0, SIZE));
            break;
        case OP_POKE:           /* the peer, hostile: bytes anywhere */
            off = take_u(&in, 2) % SIZE;
            len = take_u(&in, 1);
            for (i = 0; i < len && off + i < SIZE; i++) {
                r1[off + i] = (uint8_t)take_u(&in, 1);
            }
            honest = false;
            break;
        case OP_HEAD:           /* the peer, hostile: any head near its own */
            __atomic_store_n(rocx_ring_field(&reader,
                                             ROCX_RING_OFF_HEAD(1)),
                             peer.pos + (int16_t)take_u(&in, 2),
                             __ATOMIC_RELEASE);
            honest = false;
            break;
        case OP_TAIL:           /* the peer, hostile or not: any tail */
            __atomic_store_n(rocx_ring_field(&writer,
                                             ROCX_RING_OFF_TAIL(0)),
                             writer.pos - take_u(&in, 3) % (2 * SIZE),
                             __ATOMIC_RELEASE);
            break;
        case OP_SEND:           /* the side under test writes ring 0 */
            len = take_u(&in, 2) % MAXREC;
            fill(want, len, 0x5a);
            n = rocx_ring_put(&writer, want, len, &kick);
            assert(n == 0 || n == -EAGAIN || n == -EINVAL);
            if (n == -EAGAIN) {
                rocx_ring_want_room(&writer, len);
            }
            assert(!memcmp(r1, before1, SIZE));
            break;
        case OP_WAITS:
            rocx_ring_busy(&reader);
            rocx_ring_sleep(&reader);
            break;
        }
    }
    free(map);
    return 0;
}
