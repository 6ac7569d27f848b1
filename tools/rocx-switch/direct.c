// SPDX-License-Identifier: GPL-2.0
/*
 * Direct rings (Documentation/rocx-device.rst, "Direct rings"): when two
 * NICs with shared-memory rings are the switch's only links and nothing
 * is set between them, each writes its records straight into the other's
 * ring 1 and the switch steps aside.  A record then costs one copy and at
 * most one wake where the switch's relay cost two of each.
 *
 * The switch lends a NIC's ring 1 to its peer only once every frame it
 * had for that NIC is in the ring, and takes it back only when the peer
 * says it writes no more: the NIC sees one producer at a time, and no
 * frame overtakes another.  DIRECT, DIRECT_GO and DIRECT_END go on the
 * socket, since the ring 1 they would travel in may be lent; the NIC's
 * answers travel in its ring 0 behind the records they fence.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "switch.h"

static const char *const dir_names[] = {
	[DIR_NONE] = "-",
	[DIR_OFFERED] = "offered",
	[DIR_DRAIN] = "drain",
	[DIR_LENT] = "lent",
	[DIR_ENDING] = "ending",
};

const char *direct_state_name(const struct sw_port *p)
{
	return dir_names[p->ch.dstate];
}

/* A control record of the direct protocol on p's socket. */
static int direct_send(struct sw *sw, struct sw_port *p, uint8_t type,
		       uint32_t max_len, const int *fds, unsigned int nfds)
{
	uint8_t rec[ROCX_FAB_HLEN];

	fabric_header(rec, type, 0, 0, max_len);
	return chan_send_sock(sw, p, rec, sizeof(rec), fds, nfds);
}

/*
 * Nothing stands between two ports: untimed, no pcap, exactly two ports
 * with a link, both channels with rings, neither impaired, shaped, paced,
 * marking or captured.  *a and *b are the two.
 */
static bool direct_pair(const struct sw *sw, unsigned int *a,
			unsigned int *b)
{
	unsigned int i, k, n = 0, two[2];

	if (!sw->direct || sw->timed || sw->pcap.f)
		return false;
	for (i = 0; i < sw->nports; i++) {
		const struct sw_port *p = &sw->port[i];

		if (p->ch.fd < 0 && p->state != PORT_UP)
			continue;
		if (n == 2)
			return false;
		two[n++] = i;
		if (p->ch.state != CH_UP || !p->ch.ring || p->state == PORT_UP)
			return false;
		if (!p->qos.plain || p->imp[SW_DIR_INGRESS].active ||
		    p->imp[SW_DIR_EGRESS].active || p->cap)
			return false;
		for (k = 0; k < SW_NUM_PRIO; k++)
			if (p->qos.prio[k].kmax)
				return false;
	}
	if (n != 2)
		return false;
	*a = two[0];
	*b = two[1];
	return true;
}

/* The switch writes q's ring 1 again, from where the peer left its head. */
static void direct_reclaim(struct sw *sw, struct sw_port *q)
{
	struct sw_chan_ring *r = q->ch.ring;

	if (!r || !r->lent)
		return;
	r->lent = false;
	rocx_ring_attach(&r->tx, r->map, r->tx.size, 1);
	/* A wait for room the peer left behind is not ours. */
	__atomic_store_n(rocx_ring_field(&r->tx, ROCX_RING_OFF_PWAIT(1)), 0,
			 __ATOMIC_RELAXED);
	if (q->eg.queued)
		egress_service(sw, q);
}

/* Ask p to stop writing to its peer, as soon as its state allows. */
static void direct_end(struct sw *sw, struct sw_port *p)
{
	switch (p->ch.dstate) {
	case DIR_OFFERED:
		p->ch.dend_wanted = true;
		break;
	case DIR_DRAIN:
	case DIR_LENT:
		p->ch.dstate = DIR_ENDING;
		direct_send(sw, p, ROCX_FAB_DIRECT_END, ROCX_FAB_BUNDLE_MAX,
			    NULL, 0);
		break;
	default:
		break;
	}
}

static void direct_offer(struct sw *sw, struct sw_port *p, struct sw_port *q)
{
	int fds[ROCX_RING_DIRECT_NFDS] = { q->ch.ring->mem_fd,
					   q->ch.ring->kick_fd };

	p->ch.dstate = DIR_OFFERED;
	p->ch.dpeer = q->idx;
	p->ch.dend_wanted = false;
	direct_send(sw, p, ROCX_FAB_DIRECT, q->ch.max, fds,
		    ROCX_RING_DIRECT_NFDS);
}

/* p's peer has nothing left in the switch for it: p may write its ring. */
static void direct_go(struct sw *sw, struct sw_port *p, struct sw_port *q)
{
	struct sw_chan_ring *r = q->ch.ring;

	if (q->eg.queued || r->lent)
		return;
	r->lent = true;
	r->lent_to = p->idx;
	p->ch.dstate = DIR_LENT;
	p->st.direct_go++;
	direct_send(sw, p, ROCX_FAB_DIRECT_GO, q->ch.max, NULL, 0);
}

/* After every wakeup of an untimed switch: start, go on, or end. */
void direct_update(struct sw *sw)
{
	unsigned int i, a = 0, b = 0;
	bool pair;

	if (!sw->direct)
		return;
	pair = direct_pair(sw, &a, &b);
	for (i = 0; i < sw->nports; i++) {
		struct sw_port *p = &sw->port[i];

		if (p->ch.dstate == DIR_NONE)
			continue;
		if (!pair || (i != a && i != b) ||
		    p->ch.dpeer != (i == a ? b : a))
			direct_end(sw, p);
	}
	if (!pair) {
		for (i = 0; i < sw->nports; i++)
			sw->port[i].ch.ddeclined = false;
		return;
	}
	for (i = 0; i < 2; i++) {
		struct sw_port *p = &sw->port[i ? b : a];
		struct sw_port *q = &sw->port[i ? a : b];

		if (p->ch.fd < 0 || q->ch.fd < 0 || !q->ch.ring)
			continue;
		if (p->ch.dstate == DIR_NONE && !p->ch.ddeclined)
			direct_offer(sw, p, q);
		else if (p->ch.dstate == DIR_DRAIN)
			direct_go(sw, p, q);
	}
}

/* DIRECT_ACK or DIRECT_END_ACK from p: 0, or -1 when the link ended. */
int direct_record(struct sw *sw, struct sw_port *p, uint8_t type,
		  uint8_t flags)
{
	struct sw_chan *c = &p->ch;

	if (type == ROCX_FAB_DIRECT_ACK) {
		if (c->dstate != DIR_OFFERED) {
			chan_error(sw, p, "a DIRECT_ACK to no DIRECT");
			return -1;
		}
		if (flags & ROCX_FAB_F_REFUSED) {
			fprintf(stderr,
				"rocx-switch: port %u: declined port %u's ring\n",
				p->idx, c->dpeer);
			c->dstate = DIR_NONE;
			c->ddeclined = true;
			return 0;
		}
		c->dstate = DIR_DRAIN;
		if (c->dend_wanted)
			direct_end(sw, p);
		else
			direct_go(sw, p, &sw->port[c->dpeer]);
		return 0;
	}
	if (c->dstate != DIR_ENDING) {
		chan_error(sw, p, "a DIRECT_END_ACK to no DIRECT_END");
		return -1;
	}
	c->dstate = DIR_NONE;
	p->st.direct_end++;
	if (sw->port[c->dpeer].ch.ring &&
	    sw->port[c->dpeer].ch.ring->lent_to == p->idx)
		direct_reclaim(sw, &sw->port[c->dpeer]);
	return 0;
}

/*
 * p's link ends.  What p held of its peer's goes back to the switch; a
 * NIC that writes to p, or waits to, is told to stop (its own mapping
 * keeps the memory alive until it has).
 */
void direct_port_gone(struct sw *sw, struct sw_port *p)
{
	enum sw_direct_state was = p->ch.dstate;
	unsigned int i;

	p->ch.dstate = DIR_NONE;
	p->ch.ddeclined = false;
	if (was != DIR_NONE) {
		struct sw_port *q = &sw->port[p->ch.dpeer];

		if (q->ch.ring && q->ch.ring->lent && q->ch.ring->lent_to == p->idx)
			direct_reclaim(sw, q);
	}
	for (i = 0; i < sw->nports; i++) {
		struct sw_port *r = &sw->port[i];

		if (r != p && r->ch.dstate != DIR_NONE && r->ch.dpeer == p->idx)
			direct_end(sw, r);
	}
}

/*
 * p woke the switch.  If p's ring 1 is lent and its producer waits for
 * room, p took records and the wake is for that producer: pass it on.
 */
void direct_relay_room(struct sw *sw, struct sw_port *p)
{
	struct sw_chan_ring *r = p->ch.ring;
	struct sw_port *to;

	if (!r || !r->lent)
		return;
	to = &sw->port[r->lent_to];
	if (to->ch.ring &&
	    __atomic_load_n(rocx_ring_field(&r->tx, ROCX_RING_OFF_PWAIT(1)),
			    __ATOMIC_ACQUIRE))
		chan_ring_kick(to->ch.ring->kick_fd);
}
