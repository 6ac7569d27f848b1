/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx fabric channel: the shared-memory rings between a NIC and
 * rocx-switch (Documentation/rocx-device.rst, "Shared-memory rings"; the
 * layout's constants are in rocx_fabric.h).  User space only: the QEMU
 * model, rocx-switch, their tests and the fuzzer include it, so that one
 * implementation of the checks faces a hostile peer.
 *
 * Each side keeps its own position (a producer's head, a consumer's tail)
 * and never reads it back from the memory, which the peer can rewrite at
 * any time: what it reads of the peer's (head or tail) is checked before
 * it is used, and a record is copied out before it is looked at.  Every
 * offset into a ring is masked by its size, so no value in the memory can
 * move an access outside the mapping.
 */
#ifndef _ROCX_RING_H_
#define _ROCX_RING_H_

#ifdef __KERNEL__
#error "rocx_ring.h is for user space"
#endif

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "rocx_fabric.h"

/* One side's view of one ring. */
struct rocx_ring {
	__u8 *ctl;		/* the control page */
	__u8 *data;		/* the ring's size bytes */
	__u32 size;
	__u32 pos;		/* producer: head; consumer: tail (private) */
	unsigned int k;		/* 0: NIC to switch; 1: switch to NIC */
	bool waiting;		/* producer: prod_wait set, no room yet */
};

static inline __u32 *rocx_ring_field(const struct rocx_ring *r,
				     unsigned int off)
{
	return (__u32 *)(r->ctl + off);
}

static inline __u32 rocx_ring_align(__u32 len)
{
	return (4 + len + ROCX_RING_ALIGN - 1) & ~(__u32)(ROCX_RING_ALIGN - 1);
}

/* Bytes of the memory that holds two rings of size bytes each. */
static inline size_t rocx_ring_map_bytes(__u32 size)
{
	return ROCX_RING_CTL_BYTES + 2 * (size_t)size;
}

static inline bool rocx_ring_size_ok(__u32 size)
{
	return size >= ROCX_RING_MIN && size <= ROCX_RING_MAX &&
	       !(size & (size - 1));
}

/* The NIC lays out zeroed memory of rocx_ring_map_bytes(size). */
static inline void rocx_ring_format(__u8 *map, __u32 size)
{
	memset(map, 0, ROCX_RING_CTL_BYTES);
	*(__u32 *)(map + ROCX_RING_OFF_MAGIC) = ROCX_RING_MAGIC;
	*(__u32 *)(map + ROCX_RING_OFF_SIZE) = size;
}

/*
 * Whether memory map_bytes long is laid out as rings: NULL, or why not.
 * *size is the rings' size.  A NIC that DIRECT hands its peer's memory
 * checks this much; the rings are in use by then.
 */
static inline const char *rocx_ring_check_layout(const __u8 *map,
						 size_t map_bytes,
						 __u32 *size)
{
	__u32 magic, s;

	if (map_bytes < ROCX_RING_CTL_BYTES)
		return "ring memory shorter than its control page";
	memcpy(&magic, map + ROCX_RING_OFF_MAGIC, 4);
	memcpy(&s, map + ROCX_RING_OFF_SIZE, 4);
	if (magic != ROCX_RING_MAGIC)
		return "ring memory without the ring magic";
	if (!rocx_ring_size_ok(s))
		return "a ring size that is not a power of two in range";
	if (map_bytes != rocx_ring_map_bytes(s))
		return "ring memory of another size than its rings";
	*size = s;
	return NULL;
}

/*
 * The switch checks what a NIC passed, map_bytes long: NULL, or why it is
 * refused.  *size is the rings' size.  Both rings must start empty.
 */
static inline const char *rocx_ring_check(const __u8 *map, size_t map_bytes,
					  __u32 *size)
{
	const char *why = rocx_ring_check_layout(map, map_bytes, size);
	unsigned int k;

	if (why)
		return why;
	for (k = 0; k < 2; k++) {
		__u32 head, tail;

		memcpy(&head, map + ROCX_RING_OFF_HEAD(k), 4);
		memcpy(&tail, map + ROCX_RING_OFF_TAIL(k), 4);
		if (head != tail)
			return "a ring that does not start empty";
	}
	return NULL;
}

/*
 * Ring k of a mapping; the side's position starts where the ring does
 * (both rings start empty, so head and tail are equal).
 */
static inline void rocx_ring_attach(struct rocx_ring *r, __u8 *map,
				    __u32 size, unsigned int k)
{
	r->ctl = map;
	r->data = map + ROCX_RING_CTL_BYTES + (size_t)k * size;
	r->size = size;
	r->k = k;
	r->waiting = false;
	r->pos = __atomic_load_n(rocx_ring_field(r, ROCX_RING_OFF_HEAD(k)),
				 __ATOMIC_ACQUIRE);
}

/* ---- Producer ---- */

/*
 * Room for a record of len bytes now?  Returns 1 if so, 0 if not, -1 if
 * the consumer's tail is impossible (the ring is damaged).
 */
static inline int rocx_ring_room(const struct rocx_ring *r, __u32 len)
{
	__u32 tail = __atomic_load_n(rocx_ring_field(r,
						     ROCX_RING_OFF_TAIL(r->k)),
				     __ATOMIC_ACQUIRE);
	__u32 used = r->pos - tail;
	__u32 off = r->pos & (r->size - 1);
	__u32 need = rocx_ring_align(len);

	if (used > r->size)
		return -1;
	if (off + need > r->size)
		need += r->size - off;
	return need <= r->size - used;
}

/*
 * Write one record: 0, -EAGAIN when there is no room, -EINVAL when the
 * ring is damaged or the record too long.  *kick tells the caller to
 * write the consumer's wake eventfd.
 */
static inline int rocx_ring_put(struct rocx_ring *r, const void *rec,
				__u32 len, bool *kick)
{
	__u32 off = r->pos & (r->size - 1);
	__u32 wrap = ROCX_RING_WRAP;
	int room;

	*kick = false;
	if (!len || len > ROCX_FAB_BUNDLE_MAX)
		return -EINVAL;
	room = rocx_ring_room(r, len);
	if (room <= 0)
		return room < 0 ? -EINVAL : -EAGAIN;
	if (off + rocx_ring_align(len) > r->size) {
		memcpy(r->data + off, &wrap, 4);
		r->pos += r->size - off;
		off = 0;
	}
	memcpy(r->data + off, &len, 4);
	memcpy(r->data + off + 4, rec, len);
	r->pos += rocx_ring_align(len);
	__atomic_store_n(rocx_ring_field(r, ROCX_RING_OFF_HEAD(r->k)), r->pos,
			 __ATOMIC_RELEASE);
	if (r->waiting) {
		__atomic_store_n(rocx_ring_field(r, ROCX_RING_OFF_PWAIT(r->k)),
				 0, __ATOMIC_RELAXED);
		r->waiting = false;
	}
	/* Pairs with the consumer's barrier between cons_wait and head. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*kick = __atomic_load_n(rocx_ring_field(r, ROCX_RING_OFF_CWAIT(r->k)),
				__ATOMIC_RELAXED);
	return 0;
}

/*
 * A producer with no room for len bytes: ask to be woken, then look
 * again.  Returns what rocx_ring_room() returns after asking; 1 means
 * room came meanwhile (and the request is withdrawn).
 */
static inline int rocx_ring_want_room(struct rocx_ring *r, __u32 len)
{
	__u32 *pw = rocx_ring_field(r, ROCX_RING_OFF_PWAIT(r->k));
	int room;

	__atomic_store_n(pw, 1, __ATOMIC_RELAXED);
	/* Pairs with the consumer's barrier between tail and prod_wait. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	room = rocx_ring_room(r, len);
	r->waiting = !room;
	if (room)
		__atomic_store_n(pw, 0, __ATOMIC_RELAXED);
	return room;
}

/* ---- Consumer ---- */

/*
 * Take one record into buf (cap bytes): its length, 0 if the ring is
 * empty, or -1 if it is damaged (*why says how; the link must end).
 */
static inline int rocx_ring_take(struct rocx_ring *r, void *buf, __u32 cap,
				 const char **why)
{
	for (;;) {
		__u32 head = __atomic_load_n(rocx_ring_field(r,
						ROCX_RING_OFF_HEAD(r->k)),
					     __ATOMIC_ACQUIRE);
		__u32 avail = head - r->pos;
		__u32 off = r->pos & (r->size - 1);
		__u32 len;

		if (!avail)
			return 0;
		if (avail > r->size || avail % ROCX_RING_ALIGN) {
			*why = "a ring whose head is out of range";
			return -1;
		}
		memcpy(&len, r->data + off, 4);
		if (len == ROCX_RING_WRAP) {
			if (r->size - off > avail) {
				*why = "a ring's wrap past its head";
				return -1;
			}
			r->pos += r->size - off;
			continue;
		}
		if (!len || len > cap || len > ROCX_FAB_BUNDLE_MAX ||
		    off + rocx_ring_align(len) > r->size ||
		    rocx_ring_align(len) > avail) {
			*why = "a ring record of an impossible length";
			return -1;
		}
		memcpy(buf, r->data + off + 4, len);
		r->pos += rocx_ring_align(len);
		__atomic_store_n(rocx_ring_field(r, ROCX_RING_OFF_TAIL(r->k)),
				 r->pos, __ATOMIC_RELEASE);
		return (int)len;
	}
}

/*
 * After taking records: true if the producer waits for room, so the
 * caller writes its wake eventfd.
 */
static inline bool rocx_ring_producer_waits(const struct rocx_ring *r)
{
	/* Pairs with the producer's barrier in rocx_ring_want_room(). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(rocx_ring_field(r, ROCX_RING_OFF_PWAIT(r->k)),
			       __ATOMIC_RELAXED);
}

/* The consumer is taking records: producers need not wake it. */
static inline void rocx_ring_busy(struct rocx_ring *r)
{
	__atomic_store_n(rocx_ring_field(r, ROCX_RING_OFF_CWAIT(r->k)), 0,
			 __ATOMIC_RELAXED);
}

/*
 * The consumer is about to sleep (its wake eventfd already cleared): ask
 * to be woken, then look again.  True if a record came meanwhile: take
 * it rather than sleep.
 */
static inline bool rocx_ring_sleep(struct rocx_ring *r)
{
	__atomic_store_n(rocx_ring_field(r, ROCX_RING_OFF_CWAIT(r->k)), 1,
			 __ATOMIC_RELAXED);
	/* Pairs with the producer's barrier in rocx_ring_put(). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(rocx_ring_field(r, ROCX_RING_OFF_HEAD(r->k)),
			       __ATOMIC_ACQUIRE) != r->pos;
}

#endif /* _ROCX_RING_H_ */
