// SPDX-License-Identifier: GPL-2.0
/*
 * Timed mode (--timed): the switch as a discrete-event process on a
 * virtual clock shared with its NICs by conservative synchronisation
 * (Documentation/rocx-device.rst, "Timed mode").
 *
 * sw->now_ns is virtual time and moves only here.  The events are: a
 * frame arriving on a port (its stamp plus the link's latency L), a frame
 * departing a port (its last bit out, serialised at the port's rate), a
 * delay line releasing frames, and the QoS timer (PFC refresh, retry and
 * pause ends, the time series).  The switch executes every event strictly
 * before its horizon H, the least over its ports of (last promise received
 * + L), in (instant, kind, port, sequence) order; a port that has not
 * joined promises --epoch, one that left promises forever.  Since the
 * order depends on the records' contents only, never on when they came,
 * the same inputs and seed give the same events, series and capture.
 *
 * A port's egress holds one frame at a time on the wire: it is picked
 * (PFC frames first, then strict priority and ETS over the priorities not
 * paused) when the port falls idle, leaves rate-time later and is stamped
 * then.  No token bucket, backlog or socket state enters a timed
 * decision.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "switch.h"

uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void timed_set_now(struct sw *sw, uint64_t t)
{
	sw->now_ns = t;
	sw->now_ms = t / 1000000;
	sw->now_rt.tv_sec = (time_t)(t / 1000000000);
	sw->now_rt.tv_nsec = (long)(t % 1000000000);
}

uint64_t timed_ser_ns(const struct sw_port *p, uint32_t len)
{
	uint64_t rate = p->qos.tbf.rate_bps;
	/* As a NIC's line clock counts it. */
	uint64_t bits = ((uint64_t)len + ROCX_WIRE_GAP) * 8;

	if (!rate)
		return 1;
	return (bits * 1000000000ULL + rate - 1) / rate;
}

void timed_default_rate(struct sw *sw, struct sw_port *p)
{
	struct sw_qos_port *q = &p->qos;
	double r = sw->def_rate_mbps;
	uint32_t burst = (uint32_t)fmax(SW_MAX_FRAME, r * 125);

	if (q->tbf.rate_bps)
		return;
	q->rate_mbps = r;
	tbf_set(&q->tbf, (uint64_t)(r * 1e6), burst, sw->now_ns);
	q->speed_mbps = r >= 1 ? (uint64_t)r : 1;
	q->plain = false;
}

bool timed_link_up(const struct sw *sw, const struct sw_port *p)
{
	return p->ch.state == CH_UP && sw->now_ns >= p->ch.epoch_ns;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The horizon over joined ports and over the ports not joined yet. */
static void horizons(const struct sw *sw, uint64_t *joined,
		     uint64_t *unjoined)
{
	unsigned int i;

	*joined = UINT64_MAX;
	*unjoined = UINT64_MAX;
	for (i = 0; i < sw->nports; i++) {
		const struct sw_chan *c = &sw->port[i].ch;
		uint64_t h;

		if (c->state == CH_UP) {
			h = add_sat(c->prom_rx, c->latency_ns);
			if (h < *joined)
				*joined = h;
		} else if (!c->left) {
			h = add_sat(sw->epoch_ns, c->latency_ns);
			if (h < *unjoined)
				*unjoined = h;
		}
	}
}

uint64_t timed_horizon(struct sw *sw)
{
	uint64_t j, u, h;

	horizons(sw, &j, &u);
	h = j < u ? j : u;
	/* Every port left: the run is over, and nothing more happens. */
	return h == UINT64_MAX ? sw->now_ns : h;
}

void timed_service(struct sw *sw, struct sw_port *p)
{
	struct sw_chan *c = &p->ch;
	struct sw_egress *eg = &p->eg;
	struct sw_qos_port *q = &p->qos;
	uint8_t tsa[SW_NUM_PRIO], bw[SW_NUM_PRIO];
	uint32_t len[SW_NUM_PRIO];
	bool can[SW_NUM_PRIO];
	struct sw_buf *b;
	struct sw_ring *r;
	unsigned int i;
	int k;

	eg->blocked = false;
	if (c->tx_buf)
		return;
	if (c->nctl) {
		b = c->ctlq[0];
		c->nctl--;
		memmove(c->ctlq, c->ctlq + 1, c->nctl * sizeof(c->ctlq[0]));
	} else {
		for (i = 0; i < SW_NUM_PRIO; i++) {
			r = &eg->q[i];
			tsa[i] = q->prio[i].tsa;
			bw[i] = q->prio[i].bw;
			can[i] = r->count && !pfc_paused(sw, p, i);
			len[i] = can[i] ? r->slot[r->head]->len : 0;
		}
		k = drr_pick(&q->drr, tsa, bw, can, len);
		if (k < 0)
			return;
		r = &eg->q[k];
		b = r->slot[r->head];
		r->head = (r->head + 1) % r->size;
		r->count--;
		eg->queued--;
		qos_dequeued(p, b);
	}
	c->tx_buf = b;
	c->dep_ns = sw->now_ns + timed_ser_ns(p, b->len);
	/*
	 * The promises keep every frame of the event loop at or above them;
	 * a control command (a higher rate, PFC turned on, an XON of "qos
	 * clear") acts at the clock when it comes and can fall below one.
	 * The link must not break: the frame leaves at the promise, counted.
	 */
	if (c->dep_ns < c->prom_tx) {
		c->dep_ns = c->prom_tx;
		sw->late++;
	}
}

static void timed_depart(struct sw *sw, struct sw_port *p)
{
	struct sw_chan *c = &p->ch;
	struct sw_buf *b = c->tx_buf;

	c->tx_buf = NULL;
	c->dep_ns = UINT64_MAX;
	if (timed_link_up(sw, p)) {
		chan_out_frame(sw, p, b, sw->now_ns);
		/* The NIC's idle bound lapses when this reaches it. */
		c->tx_arrive = add_sat(sw->now_ns, c->latency_ns);
		c->idle_floor = 0;
	} else {
		p->st.tx_nopeer++;
	}
	/* Its buffer charge ends now: that may send an XON, first. */
	buf_release(&sw->pool, b);
	timed_service(sw, p);
}

bool timed_ctl_xmit(struct sw *sw, struct sw_port *p, struct sw_buf *buf)
{
	struct sw_chan *c = &p->ch;

	if (!timed_link_up(sw, p)) {
		p->st.tx_nopeer++;
		buf_release(&sw->pool, buf);
		return true;
	}
	if (c->nctl == ARRAY_SIZE(c->ctlq))
		return false;
	c->ctlq[c->nctl++] = buf;
	timed_service(sw, p);
	return true;
}

enum timed_kind {
	EV_ARRIVE,
	EV_DEPART,
	EV_IMPAIR,
	EV_QOS,
};

/*
 * "NS KIND [PORT LEN TC]": the instant, what, and for a frame its port,
 * bytes and class.  Two runs with the same inputs and seed write the
 * same file.
 */
static void log_event(struct sw *sw, int kind, const struct sw_port *p)
{
	static const char * const names[] = {
		[EV_ARRIVE] = "arrive", [EV_DEPART] = "depart",
		[EV_IMPAIR] = "impair", [EV_QOS] = "qos",
	};
	const struct sw_buf *b = kind == EV_ARRIVE ? p->ch.arr_head :
				 kind == EV_DEPART ? p->ch.tx_buf : NULL;

	fprintf(sw->evlog, "%" PRIu64 " %s", sw->now_ns, names[kind]);
	if (b)
		fprintf(sw->evlog, " %u %u %u", p->idx, b->len, b->tc);
	fputc('\n', sw->evlog);
}

void timed_run_events(struct sw *sw)
{
	uint64_t h = timed_horizon(sw);

	for (;;) {
		uint64_t t = UINT64_MAX, x;
		unsigned int i, port = 0;
		int kind = -1;
		struct sw_port *p;
		struct sw_buf *b;

		/* Strict comparisons: the lowest port wins a tie. */
		for (i = 0; i < sw->nports; i++) {
			b = sw->port[i].ch.arr_head;
			if (b && b->t_ns < t) {
				t = b->t_ns;
				kind = EV_ARRIVE;
				port = i;
			}
		}
		for (i = 0; i < sw->nports; i++) {
			if (sw->port[i].ch.dep_ns < t) {
				t = sw->port[i].ch.dep_ns;
				kind = EV_DEPART;
				port = i;
			}
		}
		x = impair_next(sw);
		if (x < t) {
			t = x;
			kind = EV_IMPAIR;
		}
		x = qos_next(sw);
		if (x && x < t) {
			t = x;
			kind = EV_QOS;
		}
		if (kind < 0 || t >= h)
			break;
		if (t > sw->now_ns)
			timed_set_now(sw, t);
		sw->events++;
		p = &sw->port[port];
		if (sw->evlog)
			log_event(sw, kind, p);
		switch (kind) {
		case EV_ARRIVE:
			b = p->ch.arr_head;
			p->ch.arr_head = b->q_next;
			p->ch.narr--;
			if (!p->ch.arr_head)
				p->ch.arr_tail = NULL;
			b->q_next = NULL;
			pipeline_input(sw, p, b);
			break;
		case EV_DEPART:
			timed_depart(sw, p);
			break;
		case EV_IMPAIR:
			impair_release(sw);
			break;
		default:
			qos_timer_run(sw);
			break;
		}
		egress_service_pending(sw);
	}
}

/* A port's own promise + L, or --epoch + L before it joins. */
static uint64_t port_horizon(const struct sw *sw, const struct sw_port *p)
{
	const struct sw_chan *c = &p->ch;

	if (c->state == CH_UP)
		return add_sat(c->prom_rx, c->latency_ns);
	return c->left ? UINT64_MAX : add_sat(sw->epoch_ns, c->latency_ns);
}

/*
 * The earliest instant at which a frame of port k can still arrive: its
 * first received frame not arrived yet, else its horizon (a received
 * frame's stamp is at most the port's promise); when the switch is quiet
 * (timed_quiet()), not before the least idle bound + L.
 */
static uint64_t port_next_arrival(const struct sw *sw, const struct sw_port *p,
				  uint64_t quiet)
{
	uint64_t a;

	if (p->ch.arr_head)
		return p->ch.arr_head->t_ns;
	a = port_horizon(sw, p);
	if (quiet && p->ch.state == CH_UP && add_sat(quiet, p->ch.latency_ns) > a)
		a = add_sat(quiet, p->ch.latency_ns);
	return a;
}

/*
 * Whether the switch may send the port a PFC frame (its ingress has PFC);
 * *on: it is in XOFF or owes an XON, so any event may send one.
 */
static bool timed_pfc_sender(const struct sw_qos_port *q, bool *on)
{
	unsigned int k;
	bool gen = false;

	*on = false;
	for (k = 0; k < SW_NUM_PRIO; k++) {
		if (q->xoff[k] || q->xon_retry_ns[k])
			*on = true;
		if (q->prio[k].pfc && q->prio[k].xoff)
			gen = true;
	}
	return gen || *on;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * The least idle bound over the joined ports when the switch is quiet
 * (rocx-device.rst, "The switch's promise"), else 0: it holds no frame,
 * no port is in XOFF or owes an XON, and every joined port's last record
 * is a SYNC with an idle bound made after every frame sent to it arrived.
 * No frame then moves before some NIC sends one of its own.
 */
static uint64_t timed_quiet(const struct sw *sw, uint64_t imp)
{
	uint64_t least = UINT64_MAX;
	unsigned int k;
	bool xoff;

	if (imp != UINT64_MAX)
		return 0;
	for (k = 0; k < sw->nports; k++) {
		const struct sw_port *p = &sw->port[k];
		const struct sw_chan *c = &p->ch;

		if (c->arr_head || c->tx_buf || c->nctl || p->eg.queued)
			return 0;
		timed_pfc_sender(&p->qos, &xoff);
		if (xoff)
			return 0;
		if (c->state != CH_UP)
			continue;
		if (!c->idle_rx || c->tx_arrive >= c->prom_rx)
			return 0;
		least = min64(least, c->idle_rx);
	}
	return least == UINT64_MAX ? 0 : least;
}

/* What timed_bound() needs of every port, gathered once per promise. */
struct timed_next {
	uint64_t imp;		/* the next delay-line release */
	uint64_t qos;		/* the QoS timer's next event */
	uint64_t dep;		/* the least departure over the ports */
	uint64_t arr1, arr2;	/* the least next arrival, the second least */
	unsigned int arr1_port;	/* the port of arr1 */
	uint64_t quiet;		/* timed_quiet() */
};

static void timed_next_gather(struct sw *sw, struct timed_next *n)
{
	unsigned int k;

	n->imp = impair_next(sw);
	n->quiet = timed_quiet(sw, n->imp);
	n->qos = qos_next(sw);
	if (!n->qos)
		n->qos = UINT64_MAX;
	n->dep = UINT64_MAX;
	n->arr1 = UINT64_MAX;
	n->arr2 = UINT64_MAX;
	n->arr1_port = sw->nports;
	for (k = 0; k < sw->nports; k++) {
		struct sw_chan *c = &sw->port[k].ch;
		uint64_t a = port_next_arrival(sw, &sw->port[k], n->quiet);

		/* A NIC must keep to a bound the promises rely on. */
		if (n->quiet && c->state == CH_UP)
			c->idle_floor = c->idle_rx;

		n->dep = min64(n->dep, sw->port[k].ch.dep_ns);
		if (a < n->arr1) {
			n->arr2 = n->arr1;
			n->arr1 = a;
			n->arr1_port = k;
		} else if (a < n->arr2) {
			n->arr2 = a;
		}
	}
}

/*
 * The least stamp the switch can still send on port j, called when every
 * event before the horizon has run (rocx-device.rst, "The switch's
 * promise").  A frame leaves j at least a serialisation after the event
 * that queued it, and the events that can queue one there are: an
 * arrival on another port (a frame never goes back out of the port it
 * came in on); a delay line's release; the end of a pause of j's egress,
 * by the QoS timer or by a PFC frame arriving on j, when frames wait
 * there; and, when j's ingress has PFC, a PFC frame to j: an XOFF only
 * when a frame of j's own is charged (it arrives on j, or leaves j's
 * ingress delay line), and while j is in XOFF, an XON or refresh at any
 * event.
 */
static uint64_t timed_bound(const struct sw *sw, const struct sw_port *pj,
			    const struct timed_next *n)
{
	const struct sw_chan *cj = &pj->ch;
	uint64_t others = n->arr1_port == pj->idx ? n->arr2 : n->arr1;
	uint64_t e = min64(others, n->imp), self, ser;
	bool xoff;

	self = min64(port_next_arrival(sw, pj, n->quiet), n->imp);
	if (!cj->tx_buf && pj->eg.queued)
		e = min64(e, min64(self, n->qos));
	if (timed_pfc_sender(&pj->qos, &xoff)) {
		e = min64(e, self);
		if (xoff)
			e = min64(e, min64(n->qos, n->dep));
	}
	ser = timed_ser_ns(pj, SW_ETH_HLEN);
	return min64(cj->dep_ns, add_sat(e, ser));
}

void timed_promise(struct sw *sw, uint64_t wall)
{
	struct timed_next n;
	bool keep;
	unsigned int i;

	timed_next_gather(sw, &n);
	/*
	 * Repeat the promises now and then, so that a NIC waiting on the
	 * switch never calls it a stall while the switch is itself held: by
	 * a guest still booting, or by a joined one that runs slowly below
	 * its own promise (nine guests on two cores took over a minute of
	 * wall time to reach their epoch).  Judging stalls is the switch's
	 * (timed_stalled(), --stall-ms); a NIC only asks that it be alive.
	 */
	keep = wall - sw->wall_keepalive_ms >= sw->stall_ms / 4;
	for (i = 0; i < sw->nports; i++) {
		struct sw_port *p = &sw->port[i];
		uint64_t t;

		if (p->ch.state != CH_UP)
			continue;
		chan_out_flush(sw, p);
		if (p->ch.state != CH_UP)
			continue;
		/* Nothing can ever come: forever, as the NICs' int64 holds it. */
		t = min64(timed_bound(sw, p, &n), INT64_MAX);
		if (t > p->ch.prom_tx)
			chan_sync(sw, p, t);
		else if (keep)
			chan_sync(sw, p, p->ch.prom_tx);
	}
	if (keep)
		sw->wall_keepalive_ms = wall;
}

bool timed_stalled(struct sw *sw, uint64_t wall, unsigned int *port)
{
	const struct sw_chan *c;
	uint64_t j, u, since;
	unsigned int i;

	horizons(sw, &j, &u);
	/* No joined link, or one booting holds the switch: not a stall. */
	if (j == UINT64_MAX || u <= j) {
		sw->wall_progress_ms = wall;
		return false;
	}
	for (i = 0; i < sw->nports; i++) {
		c = &sw->port[i].ch;
		if (c->state == CH_UP && add_sat(c->prom_rx, c->latency_ns) == j)
			break;
	}
	if (i == sw->nports)
		return false;
	/*
	 * Joined before its epoch and silent since: the NIC runs towards
	 * the epoch with no horizon, so it says nothing until it is there.
	 * That is a guest still booting, however long the host takes.
	 */
	if (c->hello_ns < c->epoch_ns && c->prom_rx == c->epoch_ns) {
		sw->wall_progress_ms = wall;
		return false;
	}
	since = c->wall_rx_ms > sw->wall_progress_ms ? c->wall_rx_ms :
		sw->wall_progress_ms;
	*port = i;
	return wall - since >= sw->stall_ms;
}

void timed_summary(const struct sw *sw, FILE *out)
{
	double wall = (double)(wall_ms() - sw->wall_start_ms) / 1e3;
	double virt = (double)sw->now_ns / 1e9;

	fprintf(out, "rocx-switch: timed: %.9f s virtual in %.3f s wall: ",
		virt, wall);
	fprintf(out, "%.3g wall s per virtual s, %.3g virtual ns per wall s; ",
		virt > 0 ? wall / virt : 0, wall > 0 ? virt * 1e9 / wall : 0);
	fprintf(out, "%" PRIu64 " events, %" PRIu64 " waits, %" PRIu64
		" late\n", sw->events, sw->waits, sw->late);
	fflush(out);
}

void timed_report(struct sw *sw, FILE *out, const char *why)
{
	unsigned int i;

	fprintf(out, "rocx-switch: timed: %s: clock %" PRIu64
		" ns, horizon %" PRIu64 " ns, %" PRIu64 " events\n", why,
		sw->now_ns, timed_horizon(sw), sw->events);
	for (i = 0; i < sw->nports; i++) {
		const struct sw_chan *c = &sw->port[i].ch;

		fprintf(out, "rocx-switch: timed: port%u ch=%s latency=%" PRIu64
			" epoch=%" PRIu64 " promise_rx=%" PRIu64
			" promise_tx=%" PRIu64 " departure=%" PRId64 "\n", i,
			chan_state_name(&sw->port[i]), c->latency_ns,
			c->epoch_ns, c->prom_rx, c->prom_tx,
			c->dep_ns == UINT64_MAX ? (int64_t)-1 :
			(int64_t)c->dep_ns);
	}
	fflush(out);
}
