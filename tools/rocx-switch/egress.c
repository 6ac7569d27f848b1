// SPDX-License-Identifier: GPL-2.0
/*
 * Egress stage: a queue per traffic class on every port and a scheduler
 * that drains them into the port.
 *
 * Today the scheduler is strict priority with no shaping, and it runs as
 * soon as a frame is queued, so a frame only waits while the guest's socket
 * is full (the port then sleeps on EPOLLOUT).  Rate limits, PFC pause,
 * ECN marking and loss or reorder injection belong here: they decide when
 * egress_service() may send and what happens to the frame at the head.
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

void egress_enqueue(struct sw *sw, struct sw_port *p, struct sw_buf *buf)
{
	struct sw_egress *eg = &p->eg;

	if (eg->queued >= eg->limit) {
		p->st.tx_qfull++;
		buf_release(&sw->pool, buf);
		return;
	}
	ring_push(&eg->q[buf->tc], buf);
	eg->queued++;
	if (!eg->blocked)
		egress_service(sw, p);
}

/* Strict priority: the highest non-empty class goes first. */
static struct sw_ring *egress_pick(struct sw_egress *eg)
{
	int tc;

	for (tc = SW_NUM_TC - 1; tc >= 0; tc--)
		if (eg->q[tc].count)
			return &eg->q[tc];
	return NULL;
}

void egress_service(struct sw *sw, struct sw_port *p)
{
	struct sw_egress *eg = &p->eg;
	struct sw_ring *r;

	eg->blocked = false;
	while ((r = egress_pick(eg))) {
		struct sw_buf *buf = ring_peek(r);

		switch (port_xmit(sw, p, buf)) {
		case XMIT_BUSY:
			eg->blocked = true;
			p->st.tx_blocked++;
			port_set_pollout(sw, p, true);
			return;
		case XMIT_OK:
			p->st.tx_tc[buf->tc]++;
			break;
		case XMIT_DROP:
			break;
		}
		ring_pop(r);
		eg->queued--;
		buf_release(&sw->pool, buf);
	}
	port_set_pollout(sw, p, false);
}
