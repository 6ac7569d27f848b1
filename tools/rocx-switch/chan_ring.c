// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric channel's shared-memory rings (Documentation/rocx-device.rst,
 * "Shared-memory rings"): a NIC that offers them in HELLO passes their
 * memory and two eventfds; once the switch has answered, every record of
 * the link goes through the rings and the socket only reports the NIC's
 * end.  The records themselves are channel.c's; this file only moves them.
 *
 * The NIC's QEMU can rewrite the memory at any time, so everything read
 * from it goes through include/rocx/rocx_ring.h's checks, and a damaged
 * ring ends the link as a damaged record does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "switch.h"
#include "rocx/rocx_ring.h"

void chan_ring_kick(int fd)
{
	uint64_t one = 1;

	/* A full counter already wakes its reader: nothing is lost. */
	if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		perror("rocx-switch: eventfd");
}

static void ring_clear(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		perror("rocx-switch: eventfd");
}

/* Descriptors that came with HELLO, kept until chan_ring_offer() or drop. */
void chan_ring_forget(struct sw_chan *c)
{
	unsigned int i;

	for (i = 0; i < c->noffer; i++)
		close(c->offer[i]);
	c->noffer = 0;
}

const char *chan_ring_offer(struct sw_port *p)
{
	struct sw_chan *c = &p->ch;
	struct sw_chan_ring *r;
	const char *why;
	struct stat st;
	uint32_t size;
	void *map;

	if (c->noffer != ROCX_RING_NFDS)
		return "RINGS offered without its three descriptors";
	if (fstat(c->offer[0], &st))
		return "ring memory that cannot be inspected";
	if (st.st_size < ROCX_RING_CTL_BYTES ||
	    st.st_size > (off_t)rocx_ring_map_bytes(ROCX_RING_MAX))
		return "ring memory of an impossible size";
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED, c->offer[0], 0);
	if (map == MAP_FAILED)
		return "ring memory that cannot be mapped";
	why = rocx_ring_check(map, (size_t)st.st_size, &size);
	if (why) {
		munmap(map, (size_t)st.st_size);
		return why;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		munmap(map, (size_t)st.st_size);
		return "out of memory";
	}
	r->map = map;
	r->map_bytes = (size_t)st.st_size;
	rocx_ring_attach(&r->rx, map, size, 0);
	rocx_ring_attach(&r->tx, map, size, 1);
	r->wake_fd = c->offer[1];
	r->kick_fd = c->offer[2];
	r->mem_fd = c->offer[0];
	c->noffer = 0;
	c->ring_pending = r;
	return NULL;
}

/*
 * HELLO_ACK went out on the socket: the rings carry everything from now.
 * The socket stays in epoll only for the NIC's end of file.
 */
int chan_ring_start(struct sw *sw, struct sw_port *p)
{
	struct sw_chan *c = &p->ch;
	struct sw_chan_ring *r = c->ring_pending;
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u32 = SW_TAG_CH(p->idx) };
	struct epoll_event hup = { .events = EPOLLRDHUP,
				   .data.u32 = SW_TAG_CH(p->idx) };

	c->ring_pending = NULL;
	if (epoll_ctl(sw->epfd, EPOLL_CTL_ADD, r->wake_fd, &ev) ||
	    epoll_ctl(sw->epfd, EPOLL_CTL_MOD, c->fd, &hup)) {
		chan_ring_free(sw, r);
		return -1;
	}
	c->ring = r;
	c->pollout = false;
	fprintf(stderr, "rocx-switch: port %u: shared-memory rings, %u KiB each\n",
		p->idx, r->rx.size >> 10);
	/* Whatever the NIC wrote before we looked. */
	chan_ring_kick(r->wake_fd);
	return 0;
}

void chan_ring_free(struct sw *sw, struct sw_chan_ring *r)
{
	if (!r)
		return;
	epoll_ctl(sw->epfd, EPOLL_CTL_DEL, r->wake_fd, NULL);
	close(r->wake_fd);
	close(r->kick_fd);
	close(r->mem_fd);
	munmap(r->map, r->map_bytes);
	free(r);
}

/*
 * One record into ring 1: as chan_send() on the socket.  0: sent; -1
 * with errno EAGAIN: untimed and full; 1: the link ended.
 */
int chan_ring_send(struct sw *sw, struct sw_port *p, const uint8_t *rec,
		   uint32_t len)
{
	struct sw_chan_ring *r = p->ch.ring;
	struct pollfd pfd = { .fd = r->wake_fd, .events = POLLIN };
	bool kick, woke = false;
	int ret, room;

	/* Lent to the peer NIC: the egress holds the frames until it is back. */
	if (r->lent) {
		errno = EAGAIN;
		return -1;
	}
	for (;;) {
		ret = rocx_ring_put(&r->tx, rec, len, &kick);
		if (ret == 0) {
			if (kick)
				chan_ring_kick(r->kick_fd);
			break;
		}
		if (ret != -EAGAIN) {
			chan_error(sw, p, "a ring whose tail is out of range");
			return 1;
		}
		if (!sw->timed) {
			/*
			 * The egress keeps the frames and waits for room for
			 * this record: ask the NIC to say when there is, or
			 * come back at once if there already is.
			 */
			room = rocx_ring_want_room(&r->tx, len);
			if (room < 0) {
				chan_error(sw, p, "a ring whose tail is out of range");
				return 1;
			}
			if (room)
				chan_ring_kick(r->wake_fd);
			errno = EAGAIN;
			return -1;
		}
		/* Timed: a record may not wait; the NIC reads when it waits. */
		room = rocx_ring_want_room(&r->tx, len);
		if (room < 0) {
			chan_error(sw, p, "a ring whose tail is out of range");
			return 1;
		}
		if (room)
			continue;
		if (poll(&pfd, 1, (int)sw->stall_ms) == 0) {
			timed_report(sw, stderr, "a channel's ring stayed full");
			exit(1);
		}
		ring_clear(r->wake_fd);
		woke = true;
	}
	/*
	 * The wake we took may also have said that ring 0 has records: leave
	 * it for the event loop.
	 */
	if (woke)
		chan_ring_kick(r->wake_fd);
	return 0;
}

/*
 * Untimed egress waits for room (on) or no longer (off).  The request to
 * be woken was made when the record did not fit (chan_ring_send()), for
 * that record's length: every failed retry makes it again.
 */
void chan_ring_pollout(struct sw_port *p, bool on)
{
	p->ch.pollout = on;
}

bool chan_ring_wants_room(const struct sw_port *p)
{
	return p->ch.ring && p->ch.pollout;
}

/* Records per wakeup of a port, so that one busy peer does not starve. */
#define RING_RX_BATCH	64

void chan_ring_rx(struct sw *sw, struct sw_port *p, uint32_t events,
		  uint8_t *rec, uint32_t cap)
{
	struct sw_chan_ring *r = p->ch.ring;
	const char *why = NULL;
	unsigned int k;
	int n;

	direct_relay_room(sw, p);
	rocx_ring_busy(&r->rx);
	for (k = 0; k < RING_RX_BATCH; k++) {
		n = rocx_ring_take(&r->rx, rec, cap, &why);
		if (n < 0) {
			chan_error(sw, p, why);
			return;
		}
		if (!n)
			break;
		if (sw->timed)
			p->ch.wall_rx_ms = wall_ms();
		if (chan_record(sw, p, rec, (uint32_t)n))
			return;	/* the link ended: r is gone */
	}
	if (rocx_ring_producer_waits(&r->rx))
		chan_ring_kick(r->kick_fd);
	if (k == RING_RX_BATCH) {
		chan_ring_kick(r->wake_fd);
		return;
	}
	/* The NIC closed the socket: what it wrote before is taken above. */
	if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR)) {
		chan_drop(sw, p);
		return;
	}
	ring_clear(r->wake_fd);
	if (rocx_ring_sleep(&r->rx))
		chan_ring_kick(r->wake_fd);
}
