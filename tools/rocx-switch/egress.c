// SPDX-License-Identifier: GPL-2.0
/*
 * Egress stage: a queue per traffic class on every port and a scheduler
 * that drains them into the port.
 *
 * By default the scheduler is strict priority with no shaping.  It runs
 * once at the end of the event-loop wakeup that queued frames (or as soon
 * as a queue fills), so a frame waits only for the rest of its burst, or
 * while the guest's socket is full (the port then sleeps on EPOLLOUT); the
 * frames of a burst leave together, in one bundle or one sendmmsg().  A
 * port with a line rate, ETS classes, PFC or pause is served by qos.c's
 * scheduler instead, which also decides when it may send (egress_service()
 * says why there are two); RED/ECN acts as a frame joins its queue
 * (red.c).  Loss, delay and the other impairments come before the queues
 * (impair.c), so that a delayed frame queues behind what left before it,
 * as on a link.
 */
#include <stdlib.h>

#include "switch.h"

static void ring_push(struct sw_ring *r, struct sw_buf *buf)
{
	r->slot[(r->head + r->count) % r->size] = buf;
	r->count++;
}

static struct sw_buf *ring_peek(const struct sw_ring *r)
{
	return r->slot[r->head];
}

static void ring_pop(struct sw_ring *r)
{
	r->head = (r->head + 1) % r->size;
	r->count--;
}

int egress_init(struct sw_egress *eg, unsigned int limit)
{
	int tc;

	eg->queued = 0;
	eg->limit = limit;
	eg->blocked = false;
	/* Any one class may use the whole port limit. */
	for (tc = 0; tc < SW_NUM_TC; tc++) {
		eg->q[tc].slot = calloc(limit, sizeof(*eg->q[tc].slot));
		if (!eg->q[tc].slot)
			return -1;
		eg->q[tc].size = limit;
		eg->q[tc].head = 0;
		eg->q[tc].count = 0;
	}
	return 0;
}

void egress_fini(struct sw_egress *eg)
{
	int tc;

	for (tc = 0; tc < SW_NUM_TC; tc++) {
		free(eg->q[tc].slot);
		eg->q[tc].slot = NULL;
	}
}

/* Serve the port at the end of this wakeup. */
static void egress_mark(struct sw *sw, struct sw_port *p)
{
	if (p->eg.pending)
		return;
	p->eg.pending = true;
	sw->pending[sw->npending++] = p->idx;
}

void egress_enqueue(struct sw *sw, struct sw_port *p, struct sw_buf *buf)
{
	if (p->imp[SW_DIR_EGRESS].active)
		impair_egress(sw, p, buf);
	else
		egress_queue(sw, p, buf);
}

void egress_queue(struct sw *sw, struct sw_port *p, struct sw_buf *buf)
{
	struct sw_egress *eg = &p->eg;

	/* Timed: a link that is down or before its epoch takes nothing. */
	if (sw->timed && !timed_link_up(sw, p)) {
		p->st.tx_nopeer++;
		buf_release(&sw->pool, buf);
		return;
	}
	/* A full queue first sends what the guest's socket takes. */
	if (eg->queued >= eg->limit && !eg->blocked)
		egress_service(sw, p);
	if (eg->queued >= eg->limit) {
		p->st.tx_qfull++;
		p->qos.st[buf->tc].dropped++;
		buf_release(&sw->pool, buf);
		return;
	}
	/* RED/ECN and the per-priority counters (qos.c, red.c). */
	if (!qos_enqueue(sw, p, buf)) {
		buf_release(&sw->pool, buf);
		return;
	}
	ring_push(&eg->q[buf->tc], buf);
	eg->queued++;
	if (!eg->blocked)
		egress_mark(sw, p);
}

/*
 * Strict priority: the highest non-empty class goes first.  Collects up to
 * max frames in the order they are to leave, without dequeuing them.
 */
static unsigned int egress_peek(struct sw_egress *eg, struct sw_buf **bufs,
				unsigned int max)
{
	unsigned int n = 0, i;
	int tc;

	for (tc = SW_NUM_TC - 1; tc >= 0 && n < max; tc--) {
		struct sw_ring *r = &eg->q[tc];

		for (i = 0; i < r->count && n < max; i++)
			bufs[n++] = r->slot[(r->head + i) % r->size];
	}
	return n;
}

/* Dequeue the first n frames egress_peek() returned. */
static void egress_pop(struct sw *sw, struct sw_port *p, unsigned int n)
{
	struct sw_egress *eg = &p->eg;
	int tc;

	for (tc = SW_NUM_TC - 1; tc >= 0 && n; tc--) {
		struct sw_ring *r = &eg->q[tc];

		while (r->count && n) {
			qos_dequeued(p, ring_peek(r));
			buf_release(&sw->pool, ring_peek(r));
			ring_pop(r);
			eg->queued--;
			n--;
		}
	}
}

/* More than a bundle of 1 KiB frames holds, and than sendmmsg() takes. */
#define EGRESS_BURST	64

void egress_service(struct sw *sw, struct sw_port *p)
{
	struct sw_egress *eg = &p->eg;
	struct sw_buf *bufs[EGRESS_BURST];
	unsigned int n;
	int done;

	/*
	 * Two schedulers, chosen by the port's settings.  A port with a line
	 * rate, ETS classes, PFC or pause goes to qos_service(), which picks
	 * frame by frame: the highest strict class that is not paused, else
	 * DRR, then the token bucket and the guest's backlog.  A port with
	 * none of these (qos.plain) is not that scheduler in its default
	 * configuration, so it keeps the strict-priority drain below:
	 *  - a port with QoS settings holds its frames while its guest has
	 *    backlog= bytes unread (32768 unless set, learnt with an ioctl
	 *    per burst), whereas a plain port sends as long as the guest's
	 *    socket takes frames (Documentation/rocx-switch.rst, "Line
	 *    rate");
	 *  - a plain port honours no pause, not even one that was running
	 *    when pause=off made the port plain;
	 *  - the drain takes whole class queues in one pass, where the pick
	 *    scans every class for each frame: up to four times the
	 *    scheduler's own time per frame in a burst of 64, though well
	 *    under a percent of what the switch spends per frame with its
	 *    system calls.
	 * One function for both would test qos.plain for each of the first
	 * two inside the pick, which is still two schedulers, only harder to
	 * read; this is the one place that chooses.
	 */
	if (sw->timed) {
		timed_service(sw, p);
		return;
	}
	if (!p->qos.plain) {
		qos_service(sw, p);
		return;
	}
	eg->blocked = false;
	while ((n = egress_peek(eg, bufs, EGRESS_BURST))) {
		done = port_xmit(sw, p, bufs, n);
		if (done < 0) {
			eg->blocked = true;
			p->st.tx_blocked++;
			port_set_pollout(sw, p, true);
			return;
		}
		egress_pop(sw, p, done);
	}
	port_set_pollout(sw, p, false);
}

void egress_service_pending(struct sw *sw)
{
	unsigned int i;

	for (i = 0; i < sw->npending; i++) {
		struct sw_port *p = &sw->port[sw->pending[i]];

		p->eg.pending = false;
		if (!p->eg.blocked && p->eg.queued)
			egress_service(sw, p);
	}
	sw->npending = 0;
}
