// SPDX-License-Identifier: GPL-2.0
/*
 * Lossless fabric, the queueing half (see qos.h): classification by trust
 * mode, the shared buffer charged per ingress port and priority, the
 * egress scheduler (strict, then DRR by ETS weight, skipping paused
 * priorities) behind a token bucket at the port's line rate, one timer
 * for everything that waits, the per-priority counters and the control
 * socket's qos and buffer commands.
 *
 * Shared buffer: a frame is charged once, to its ingress port and
 * priority, from the moment it is admitted until its last copy leaves
 * or is dropped (the pool's on_put hook).  It takes the port's reserved
 * bytes of that priority first, then the shared pool (buffer size less
 * every reserved and headroom part), then, on a lossless priority only,
 * the headroom; a frame that finds none is dropped: the tail drop of a
 * lossy priority, or a lossless one with dishonest headroom.  A lossless
 * priority at or above its xoff takes headroom only: the shared pool is
 * not for frames in flight after XOFF, and stays for the others.  What
 * leaves gives back the priority's headroom before its shared bytes
 * (qos_release()).  Crossing
 * xoff sends PFC XOFF to the ingress port, falling to xon sends XON
 * (pfc.c).  With no buffer size every frame is admitted, and only the
 * egress queues' frame limit bounds what the switch holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "switch.h"
#include "rocx/rocx_pfc.h"

enum sw_acct {
	SW_ACCT_NONE,
	SW_ACCT_RESERVED,
	SW_ACCT_SHARED,
	SW_ACCT_HEADROOM,
};

/* ------------------------------------------------------------------ */
/* Token bucket */

void tbf_set(struct sw_tbf *t, uint64_t rate_bps, uint32_t burst,
	     uint64_t now_ns)
{
	t->rate_bps = rate_bps;
	t->burst = burst;
	t->tokens = burst;
	t->last_ns = now_ns;
}

double tbf_refill(struct sw_tbf *t, uint64_t now_ns)
{
	double over = 0;

	if (now_ns > t->last_ns) {
		t->tokens += (double)(now_ns - t->last_ns) * t->rate_bps /
			     8e9;
		if (t->tokens > t->burst) {
			over = t->tokens - t->burst;
			t->tokens = t->burst;
		}
	}
	t->last_ns = now_ns;
	return over;
}

bool tbf_may_send(const struct sw_tbf *t, uint32_t len)
{
	return !t->rate_bps || t->tokens >= len;
}

void tbf_take(struct sw_tbf *t, uint32_t len)
{
	if (t->rate_bps)
		t->tokens -= len;
}

uint64_t tbf_wait_ns(const struct sw_tbf *t, uint32_t len)
{
	if (tbf_may_send(t, len))
		return 0;
	return (uint64_t)ceil((len - t->tokens) * 8e9 / t->rate_bps);
}

/* ------------------------------------------------------------------ */
/* ETS: strict classes first, highest first, then DRR by weight */

int drr_pick(struct sw_drr *d, const uint8_t *tsa, const uint8_t *bw,
	     const bool *can_send, const uint32_t *len)
{
	bool any = false;
	unsigned int i;
	int c;

	for (c = SW_NUM_PRIO - 1; c >= 0; c--) {
		if (tsa[c] == SW_TSA_STRICT && can_send[c])
			return c;
		any |= tsa[c] == SW_TSA_ETS && can_send[c];
	}
	if (!any)
		return -1;
	/*
	 * Each turn adds at least one quantum to a class that can send, and
	 * a frame is at most SW_MAX_FRAME bytes: this ends.
	 */
	for (i = 0;; i++) {
		c = d->cur;
		if (tsa[c] == SW_TSA_ETS && can_send[c]) {
			if (!d->credited) {
				d->deficit[c] += bw[c] * SW_ETS_QUANTUM;
				d->credited = true;
			}
			if (len[c] <= (uint32_t)d->deficit[c]) {
				d->deficit[c] -= len[c];
				return c;
			}
		} else if (tsa[c] == SW_TSA_ETS) {
			/* A class with nothing to send keeps no credit. */
			d->deficit[c] = 0;
		}
		d->cur = (d->cur + 1) % SW_NUM_PRIO;
		d->credited = false;
	}
}

/* ------------------------------------------------------------------ */
/* Configuration */

static bool qos_port_plain(const struct sw_qos_port *q)
{
	unsigned int i;

	if (q->tbf.rate_bps || q->pause)
		return false;
	for (i = 0; i < SW_NUM_PRIO; i++)
		if (q->prio[i].pfc || q->prio[i].tsa != SW_TSA_STRICT)
			return false;
	return true;
}

void qos_init_port(struct sw *sw, struct sw_port *p)
{
	struct sw_qos_port *q = &p->qos;
	unsigned int i;

	memset(q, 0, sizeof(*q));
	q->speed_mbps = SW_DEF_SPEED_MBPS;
	q->quanta = ROCX_PFC_QUANTA_MAX;
	q->backlog = SW_DEF_BACKLOG;
	for (i = 0; i < 64; i++)
		q->dscp2prio[i] = i >> 3;
	for (i = 0; i < SW_NUM_PRIO; i++)
		q->prio[i].bw = 1;
	q->plain = true;
	q->tbf.last_ns = sw->now_ns;
}

/* The shared pool is what reserved and headroom parts leave. */
static void qos_resize_shared(struct sw *sw)
{
	uint64_t set_aside = 0;
	unsigned int i, k;

	for (i = 0; i < sw->nports; i++)
		for (k = 0; k < SW_NUM_PRIO; k++)
			set_aside += sw->port[i].qos.prio[k].reserved +
				     (sw->port[i].qos.prio[k].pfc ?
				      sw->port[i].qos.prio[k].headroom : 0);
	sw->shared_size = sw->buf_size > set_aside ?
			  sw->buf_size - set_aside : 0;
}

static void qos_release(void *owner, struct sw_buf *buf)
{
	struct sw *sw = owner;
	struct sw_port *in = &sw->port[buf->in_port];
	struct sw_qos_port *q = &in->qos;
	unsigned int prio = buf->tc;

	q->in_bytes[prio] -= buf->acct_len;
	if (buf->acct == SW_ACCT_SHARED || buf->acct == SW_ACCT_HEADROOM) {
		/*
		 * Headroom is how far the priority is over what the shared
		 * pool gave it, a count rather than the frames that came
		 * after XOFF: what leaves gives it back first.  Those frames
		 * wait at the tail of a queue that can take longer to drain
		 * than a cycle from XON back to XOFF, and headroom still held
		 * by them would be short for the next round trip.
		 */
		uint32_t head = q->in_head[prio] < buf->acct_len ?
				q->in_head[prio] : buf->acct_len;

		q->in_head[prio] -= head;
		q->in_shared[prio] -= buf->acct_len - head;
		sw->shared_used -= buf->acct_len - head;
	}
	buf->acct = SW_ACCT_NONE;
	pfc_check_xon(sw, in, prio);
}

int qos_init(struct sw *sw)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = SW_TAG_QOS };
	unsigned int i, k;

	for (i = 0; i < sw->nports; i++)
		qos_init_port(sw, &sw->port[i]);
	sw->pool.on_put = qos_release;
	sw->pool.owner = sw;
	sw->qos_rng = sw->seed ^ 0x5245443a45434eULL;
	/* Each stream starts 2^32 draws after the last: none meet in a run. */
	for (i = 0; i < sw->nports; i++)
		for (k = 0; k < SW_NUM_PRIO; k++)
			sw->port[i].red_rng[k] = sw->qos_rng +
				((uint64_t)(i * SW_NUM_PRIO + k + 1) << 32) *
				0x9e3779b97f4a7c15ULL;
	sw->qos_tfd = timerfd_create(CLOCK_MONOTONIC,
				     TFD_NONBLOCK | TFD_CLOEXEC);
	if (sw->qos_tfd < 0 || epoll_ctl(sw->epfd, EPOLL_CTL_ADD, sw->qos_tfd,
					 &ev))
		return -1;
	return 0;
}

void qos_fini(struct sw *sw)
{
	series_close(sw);
	if (sw->qos_tfd >= 0)
		close(sw->qos_tfd);
	sw->qos_tfd = -1;
}

uint8_t qos_classify(const struct sw_port *in, const struct sw_frame_info *fi)
{
	switch (in->qos.trust) {
	case SW_TRUST_PCP:
		return fi->tagged ? fi->pcp : 0;
	case SW_TRUST_DSCP:
		return fi->dscp >= 0 ? in->qos.dscp2prio[fi->dscp] : 0;
	default:
		return fi->tc;
	}
}

/* ------------------------------------------------------------------ */
/* Admission, enqueue, dequeue */

bool qos_admit(struct sw *sw, struct sw_port *in, struct sw_buf *buf)
{
	struct sw_qos_port *q = &in->qos;
	unsigned int prio = buf->tc;
	const struct sw_prio_cfg *c = &q->prio[prio];
	uint32_t len = buf->len;

	/*
	 * A lossless priority at or above xoff has sent XOFF: what still
	 * comes is in flight, and headroom is for that, so it takes no more
	 * of the shared pool (which the other priorities keep).
	 */
	bool in_flight = c->pfc && c->xoff && q->in_bytes[prio] >= c->xoff;

	q->st[prio].rx_bytes += len;
	if (q->in_bytes[prio] + len <= c->reserved) {
		buf->acct = SW_ACCT_RESERVED;
	} else if (!sw->buf_size ||
		   (!in_flight && sw->shared_used + len <= sw->shared_size)) {
		buf->acct = SW_ACCT_SHARED;
		q->in_shared[prio] += len;
		sw->shared_used += len;
	} else if (c->pfc && q->in_head[prio] + len <= c->headroom) {
		buf->acct = SW_ACCT_HEADROOM;
		q->in_head[prio] += len;
	} else {
		/* Counted where the frame would have waited: its ingress. */
		q->st[prio].dropped++;
		return false;
	}
	buf->acct_len = len;
	q->in_bytes[prio] += len;
	pfc_check_xoff(sw, in, prio);
	return true;
}

bool qos_enqueue(struct sw *sw, struct sw_port *p, struct sw_buf *buf)
{
	struct sw_qos_port *q = &p->qos;
	unsigned int prio = buf->tc;

	if (q->prio[prio].kmax && !red_enqueue(sw, p, buf)) {
		q->st[prio].dropped++;
		return false;
	}
	q->st[prio].enqueued++;
	q->q_bytes[prio] += buf->len;
	if (q->q_bytes[prio] > q->st[prio].max_depth)
		q->st[prio].max_depth = q->q_bytes[prio];
	return true;
}

void qos_dequeued(struct sw_port *p, const struct sw_buf *buf)
{
	p->qos.q_bytes[buf->tc] -= buf->len;
	p->qos.st[buf->tc].tx_bytes += buf->len;
}

/* ------------------------------------------------------------------ */
/* The scheduler */

#define QOS_BURST	64
/* How soon a port held by its guest's backlog looks again. */
#define QOS_BACKLOG_POLL_NS	100000

void qos_service(struct sw *sw, struct sw_port *p)
{
	struct sw_egress *eg = &p->eg;
	struct sw_qos_port *q = &p->qos;
	struct sw_buf *bufs[QOS_BURST];
	struct sw_drr snap[QOS_BURST];
	uint8_t tcs[QOS_BURST];
	uint8_t tsa[SW_NUM_PRIO], bw[SW_NUM_PRIO];
	unsigned int i, n;
	/*
	 * How late the switch came back to a port held by its guest's
	 * backlog: the host's if the guest has read since (the hold ended),
	 * the guest's if it still holds (it would have been lost anyway).
	 */
	uint64_t due = q->held ? q->wake_ns : 0;
	double late = 0;
	int done;

	for (i = 0; i < SW_NUM_PRIO; i++) {
		tsa[i] = q->prio[i].tsa;
		bw[i] = q->prio[i].bw;
	}
	eg->blocked = false;
	q->wake_ns = 0;
	for (;;) {
		unsigned int off[SW_NUM_PRIO] = { 0 };
		bool can[SW_NUM_PRIO];
		uint32_t len[SW_NUM_PRIO];
		struct sw_drr d = q->drr;
		double tokens;
		uint64_t unread = q->backlog ? port_unread(p) : 0;
		double over = tbf_refill(&q->tbf, sw->now_ns);

		if (q->waiting && over > 0) {
			double ns = over * 8e9 / q->tbf.rate_bps;

			if (due && sw->now_ns > due) {
				late = fmin(ns, (double)(sw->now_ns - due));
				ns -= late;
			}
			lost_add(sw, p, q->held, ns);
		}
		q->waiting = false;
		q->held = false;
		tokens = q->tbf.tokens;
		for (n = 0; n < QOS_BURST; n++) {
			struct sw_buf *b;
			int c;

			for (i = 0; i < SW_NUM_PRIO; i++) {
				struct sw_ring *r = &eg->q[i];

				can[i] = off[i] < r->count &&
					 !pfc_paused(sw, p, i);
				len[i] = can[i] ? r->slot[(r->head + off[i]) %
							  r->size]->len : 0;
			}
			c = drr_pick(&d, tsa, bw, can, len);
			if (c < 0)
				break;
			/*
			 * What the guest has not read, and this burst's frames
			 * by their length.  The kernel tells no one when a
			 * guest reads, so a port held by its backlog polls.
			 */
			if (q->backlog && unread >= q->backlog) {
				p->st.tx_held++;
				q->wake_ns = sw->now_ns + QOS_BACKLOG_POLL_NS;
				q->waiting = true;
				q->held = true;
				lost_held(sw, p);
				lost_add(sw, p, true, late);
				late = 0;
				break;
			}
			b = eg->q[c].slot[(eg->q[c].head + off[c]) %
					  eg->q[c].size];
			if (!tbf_may_send(&q->tbf, b->len)) {
				q->wake_ns = sw->now_ns +
					     tbf_wait_ns(&q->tbf, b->len);
				q->waiting = true;
				break;
			}
			tbf_take(&q->tbf, b->len);
			unread += b->len;
			bufs[n] = b;
			tcs[n] = c;
			snap[n] = d;
			off[c]++;
		}
		if (!n) {
			/* Ran dry: a hold's time is split while it is fresh. */
			if (!q->waiting)
				lost_end(sw, p);
			break;
		}
		q->tbf.tokens = tokens;
		done = port_xmit(sw, p, bufs, n);
		if (done < 0) {
			eg->blocked = true;
			q->waiting = true;
			q->held = true;
			lost_held(sw, p);
			lost_add(sw, p, true, late);
			p->st.tx_blocked++;
			q->wake_ns = 0;
			port_set_pollout(sw, p, true);
			return;
		}
		for (i = 0; i < (unsigned int)done; i++) {
			struct sw_ring *r = &eg->q[tcs[i]];

			tbf_take(&q->tbf, bufs[i]->len);
			qos_dequeued(p, bufs[i]);
			buf_release(&sw->pool, bufs[i]);
			r->head = (r->head + 1) % r->size;
			r->count--;
			eg->queued--;
		}
		if (done) {
			q->drr = snap[done - 1];
			lost_end(sw, p);
		}
		/* Short of tokens: the timer comes back for the rest. */
		if (q->wake_ns)
			break;
	}
	lost_add(sw, p, false, late);
	port_set_pollout(sw, p, false);
}

/* ------------------------------------------------------------------ */
/* The timer: egress wake-ups, PFC refresh and pause ends, the series */

uint64_t qos_next(const struct sw *sw)
{
	uint64_t next = sw->series ? sw->series_next_ns : 0;
	unsigned int i, k;

	for (i = 0; i < sw->nports; i++) {
		const struct sw_qos_port *q = &sw->port[i].qos;

		if (q->wake_ns && (!next || q->wake_ns < next))
			next = q->wake_ns;
		for (k = 0; k < SW_NUM_PRIO; k++) {
			uint64_t t = q->xoff[k] ? q->xoff_refresh_ns[k] :
				     q->xon_retry_ns[k];

			if (t && (!next || t < next))
				next = t;
			t = q->paused_until[k];
			if (t && (!next || t < next))
				next = t;
		}
	}
	return next;
}

void qos_arm(struct sw *sw)
{
	struct itimerspec its = { 0 };
	uint64_t next;

	/* Timed: the event loop runs the timer (timed.c). */
	if (sw->timed)
		return;
	next = qos_next(sw);
	if (next == sw->qos_armed_ns)
		return;
	sw->qos_armed_ns = next;
	if (next) {
		/* Absolute, and never 0, which would disarm. */
		its.it_value.tv_sec = next / 1000000000;
		its.it_value.tv_nsec = next % 1000000000;
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(sw->qos_tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

void qos_timer(struct sw *sw)
{
	uint64_t expirations;

	if (read(sw->qos_tfd, &expirations, sizeof(expirations)) < 0 &&
	    errno != EAGAIN)
		return;
	sw->qos_armed_ns = 0;
	qos_timer_run(sw);
}

void qos_timer_run(struct sw *sw)
{
	unsigned int i;

	for (i = 0; i < sw->nports; i++) {
		struct sw_port *p = &sw->port[i];
		bool resumed = pfc_timer(sw, p);

		if ((resumed || (p->qos.wake_ns &&
				 p->qos.wake_ns <= sw->now_ns)) &&
		    !p->eg.blocked && p->eg.queued)
			egress_service(sw, p);
	}
	if (sw->series && sw->now_ns >= sw->series_next_ns)
		series_tick(sw);
}

/* ------------------------------------------------------------------ */
/* Control socket: qos, buffer */

static int parse_list(struct ctl_args *a, const char *key, unsigned int max,
		      uint64_t *mask)
{
	const char *s = ctl_take(a, key);
	char buf[128], *tok, *save = NULL;
	unsigned long long v;

	*mask = 0;
	if (!s)
		return 0;
	if (!strcmp(s, "all")) {
		*mask = max == 64 ? UINT64_MAX : (1ULL << max) - 1;
		return 1;
	}
	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return ctl_err(a, "%s: '%s' too long", a->verb, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (ctl_parse_uint(tok, max - 1, &v))
			return ctl_err(a, "%s: %s=%s: 0..%u or all", a->verb,
				       key, s, max - 1);
		*mask |= 1ULL << v;
	}
	return 1;
}

static int take_u32(struct ctl_args *a, const char *key, uint32_t max,
		    bool *given, uint32_t *v)
{
	const char *s = ctl_take(a, key);
	unsigned long long x;

	*given = s;
	if (!s)
		return 0;
	if (ctl_parse_uint(s, max, &x))
		return ctl_err(a, "%s: %s=%s: a number, 0..%u", a->verb, key,
			       s, max);
	*v = (uint32_t)x;
	return 0;
}

static int take_onoff(struct ctl_args *a, const char *key, bool *given,
		      bool *v)
{
	const char *s = ctl_take(a, key);

	*given = s;
	if (!s)
		return 0;
	if (!strcmp(s, "on") || !strcmp(s, "1"))
		*v = true;
	else if (!strcmp(s, "off") || !strcmp(s, "0"))
		*v = false;
	else
		return ctl_err(a, "%s: %s=%s: on or off", a->verb, key, s);
	return 0;
}

/* A gigabyte: more than any buffer the pool could fill. */
#define QOS_MAX_BYTES	0x40000000u

int qos_cmd(struct sw *sw, struct ctl_args *a, FILE *out)
{
	bool g_xoff, g_xon, g_head, g_res, g_kmin, g_kmax, g_pfc, g_burst,
	     g_quanta, g_speed, g_pause, g_dscpv, g_backlog, pfc = false,
	     pause = false;
	uint32_t xoff = 0, xon = 0, head = 0, res = 0, kmin = 0, kmax = 0,
		 burst = 0, quanta = 0, speed = 0, dscpv = 0, backlog = 0;
	uint64_t prios, dscps;
	const char *s_rate = ctl_take(a, "rate");
	const char *s_trust = ctl_take(a, "trust");
	const char *s_ets = ctl_take(a, "ets");
	const char *s_pmax = ctl_take(a, "pmax");
	const char *s_lat = ctl_take(a, "latency");
	uint64_t lat = 0;
	double rate = 0, pmax = 0;
	uint8_t trust = 0, tsa = 0, bw = 0;
	bool clear = ctl_flag(a, "clear");
	uint64_t ports;
	unsigned int i, k;
	int hp, hd;

	(void)out;
	if (ctl_ports(sw, a, true, &ports))
		return -1;
	hp = parse_list(a, "prio", SW_NUM_PRIO, &prios);
	if (hp < 0)
		return -1;
	hd = parse_list(a, "dscp", 64, &dscps);
	if (hd < 0)
		return -1;
	if (take_u32(a, "xoff", QOS_MAX_BYTES, &g_xoff, &xoff) ||
	    take_u32(a, "xon", QOS_MAX_BYTES, &g_xon, &xon) ||
	    take_u32(a, "headroom", QOS_MAX_BYTES, &g_head, &head) ||
	    take_u32(a, "reserved", QOS_MAX_BYTES, &g_res, &res) ||
	    take_u32(a, "kmin", QOS_MAX_BYTES, &g_kmin, &kmin) ||
	    take_u32(a, "kmax", QOS_MAX_BYTES, &g_kmax, &kmax) ||
	    take_u32(a, "burst", QOS_MAX_BYTES, &g_burst, &burst) ||
	    take_u32(a, "quanta", 0xffff, &g_quanta, &quanta) ||
	    take_u32(a, "backlog", QOS_MAX_BYTES, &g_backlog, &backlog) ||
	    take_u32(a, "speed", 1000000, &g_speed, &speed) ||
	    take_u32(a, "to", SW_NUM_PRIO - 1, &g_dscpv, &dscpv) ||
	    take_onoff(a, "pfc", &g_pfc, &pfc) ||
	    take_onoff(a, "pause", &g_pause, &pause))
		return -1;
	if (s_rate) {
		char *end;

		errno = 0;
		rate = strtod(s_rate, &end);
		if (errno || end == s_rate || *end || !(rate >= 0) ||
		    rate > 1e6)
			return ctl_err(a, "qos: rate=%s: Mb/s, 0 (none) to 1000000",
				       s_rate);
	}
	if (s_trust) {
		if (!strcmp(s_trust, "auto"))
			trust = SW_TRUST_AUTO;
		else if (!strcmp(s_trust, "pcp"))
			trust = SW_TRUST_PCP;
		else if (!strcmp(s_trust, "dscp"))
			trust = SW_TRUST_DSCP;
		else
			return ctl_err(a, "qos: trust=%s: auto, pcp or dscp",
				       s_trust);
	}
	if (s_ets) {
		unsigned long long w;

		if (!strcmp(s_ets, "strict")) {
			tsa = SW_TSA_STRICT;
		} else if (!ctl_parse_uint(s_ets, 100, &w) && w >= 1) {
			tsa = SW_TSA_ETS;
			bw = (uint8_t)w;
		} else {
			return ctl_err(a, "qos: ets=%s: strict or a weight 1..100",
				       s_ets);
		}
	}
	if (s_lat && (ctl_parse_ns(s_lat, &lat) || !lat || lat > UINT32_MAX))
		return ctl_err(a, "qos: latency=%s: a time, 1ns to 4s", s_lat);
	if (sw->timed && s_rate && !(rate > 0))
		return ctl_err(a, "qos: rate=%s: a timed switch gives every port a rate",
			       s_rate);
	if (s_pmax && (ctl_parse_prob(s_pmax, &pmax) || pmax > 1))
		return ctl_err(a, "qos: pmax=%s: a probability", s_pmax);
	if (g_speed && !speed)
		return ctl_err(a, "qos: speed=0: Mb/s, 1 or more");
	if ((g_xoff || g_xon || g_head || g_res || g_kmin || g_kmax || s_ets ||
	     s_pmax || g_pfc) && !hp)
		return ctl_err(a, "qos: per-priority keys need prio=P[,P]...|all");
	if (g_dscpv ^ hd)
		return ctl_err(a, "qos: give dscp=D[,D]... and to=P together");
	if (ctl_check_unused(a))
		return -1;

	/* Check every port before changing any: an error changes nothing. */
	for (i = 0; i < sw->nports; i++) {
		const struct sw_qos_port *q = &sw->port[i].qos;

		if (!(ports >> i & 1))
			continue;
		/* HELLO_ACK told the NIC the latency: it is the link's now. */
		if (s_lat && sw->port[i].ch.state == CH_UP)
			return ctl_err(a, "qos: port %u: latency of a link that is up",
				       i);
		/*
		 * A timed switch has run up to --epoch + L of the ports not
		 * joined: a shorter L would let a frame arrive in its past.
		 */
		if (s_lat && sw->started)
			return ctl_err(a, "qos: latency: a timed switch takes it at start only");
		for (k = 0; k < SW_NUM_PRIO; k++) {
			const struct sw_prio_cfg *c = &q->prio[k];
			uint32_t nxoff = g_xoff ? xoff : c->xoff;
			uint32_t nxon = g_xon ? xon : c->xon;
			uint32_t nkmin = g_kmin ? kmin : c->kmin;
			uint32_t nkmax = g_kmax ? kmax : c->kmax;

			if (!(prios >> k & 1) || clear)
				continue;
			if (nxon > nxoff)
				return ctl_err(a, "qos: port %u prio %u: xon %u above xoff %u",
					       i, k, nxon, nxoff);
			if (nkmax && nkmin > nkmax)
				return ctl_err(a, "qos: port %u prio %u: kmin %u above kmax %u",
					       i, k, nkmin, nkmax);
		}
	}
	for (i = 0; i < sw->nports; i++) {
		struct sw_port *p = &sw->port[i];
		struct sw_qos_port *q = &p->qos;

		if (!(ports >> i & 1))
			continue;
		if (clear) {
			/* Frames held stay charged: keep the accounting. */
			struct sw_qos_port keep = *q;

			qos_init_port(sw, p);
			memcpy(q->in_bytes, keep.in_bytes, sizeof(q->in_bytes));
			memcpy(q->in_shared, keep.in_shared,
			       sizeof(q->in_shared));
			memcpy(q->in_head, keep.in_head, sizeof(q->in_head));
			memcpy(q->q_bytes, keep.q_bytes, sizeof(q->q_bytes));
			memcpy(q->st, keep.st, sizeof(q->st));
			q->lost_line_ns = keep.lost_line_ns;
			q->lost_host_ns = keep.lost_host_ns;
			q->lost_recv_ns = keep.lost_recv_ns;
			q->lost = keep.lost;
			for (k = 0; k < SW_NUM_PRIO; k++)
				if (keep.xoff[k])
					pfc_send(sw, p, k, false);
		}
		if (s_rate || g_burst) {
			double r = s_rate ? rate : q->rate_mbps;
			uint32_t b = g_burst ? burst : q->tbf.burst;

			/* Default burst: 1 ms at the rate, at least a frame. */
			if (!g_burst || !b)
				b = (uint32_t)fmax(SW_MAX_FRAME, r * 125);
			q->rate_mbps = r;
			tbf_set(&q->tbf, (uint64_t)(r * 1e6), b, sw->now_ns);
		}
		if (g_speed)
			q->speed_mbps = speed;
		else if (s_rate)
			q->speed_mbps = rate >= 1 ? (uint64_t)rate :
					rate > 0 ? 1 : SW_DEF_SPEED_MBPS;
		if (s_trust)
			q->trust = trust;
		if (g_quanta)
			q->quanta = quanta;
		if (g_backlog)
			q->backlog = backlog;
		if (g_pause)
			q->pause = pause;
		for (k = 0; k < 64; k++)
			if (dscps >> k & 1)
				q->dscp2prio[k] = dscpv;
		for (k = 0; k < SW_NUM_PRIO; k++) {
			struct sw_prio_cfg *c = &q->prio[k];

			if (!(prios >> k & 1))
				continue;
			if (g_pfc) {
				if (!pfc && q->xoff[k])
					pfc_send(sw, p, k, false);
				if (!pfc && q->paused_until[k])
					q->paused_until[k] = sw->now_ns;
				c->pfc = pfc;
			}
			if (g_xoff)
				c->xoff = xoff;
			if (g_xon)
				c->xon = xon;
			if (g_head)
				c->headroom = head;
			if (g_res)
				c->reserved = res;
			if (g_kmin)
				c->kmin = kmin;
			if (g_kmax)
				c->kmax = kmax;
			if (s_pmax)
				c->pmax = pmax;
			if (s_ets) {
				c->tsa = tsa;
				if (tsa == SW_TSA_ETS)
					c->bw = bw;
			}
		}
		if (s_lat)
			p->ch.latency_ns = lat;
		if (sw->timed)
			timed_default_rate(sw, p);
		q->plain = qos_port_plain(q);
		pfc_timer(sw, p);
		if (!p->eg.blocked && p->eg.queued)
			egress_service(sw, p);
	}
	qos_resize_shared(sw);
	return 0;
}

static const char *trust_name(uint8_t t)
{
	return t == SW_TRUST_PCP ? "pcp" : t == SW_TRUST_DSCP ? "dscp" :
	       "auto";
}

int qos_show(struct sw *sw, struct ctl_args *a, FILE *out)
{
	uint64_t ports;
	unsigned int i, k;

	if (ctl_ports(sw, a, false, &ports) || ctl_check_unused(a))
		return -1;
	for (i = 0; i < sw->nports; i++) {
		const struct sw_qos_port *q = &sw->port[i].qos;

		if (!(ports >> i & 1))
			continue;
		lost_flush(sw, &sw->port[i]);
		fprintf(out, "port%u rate=%g burst=%u speed=%" PRIu64
			" trust=%s pause=%s quanta=%u backlog=%u plain=%d lost_line_ns=%.0f",
			i, q->rate_mbps, q->tbf.burst, q->speed_mbps,
			trust_name(q->trust), q->pause ? "on" : "off",
			q->quanta, q->backlog, q->plain, q->lost_line_ns);
		fprintf(out, " lost_host_ns=%.0f lost_recv_ns=%.0f",
			q->lost_host_ns, q->lost_recv_ns);
		fprintf(out, " latency=%" PRIu64 "\n", sw->port[i].ch.latency_ns);
		for (k = 0; k < SW_NUM_PRIO; k++) {
			const struct sw_prio_cfg *c = &q->prio[k];
			const struct sw_prio_stats *st = &q->st[k];
			char ets[8];

			if (c->tsa == SW_TSA_ETS)
				snprintf(ets, sizeof(ets), "%u", c->bw);
			else
				snprintf(ets, sizeof(ets), "strict");
			fprintf(out, "port%u prio%u pfc=%s xoff=%u xon=%u",
				i, k, c->pfc ? "on" : "off", c->xoff, c->xon);
			fprintf(out, " headroom=%u reserved=%u ets=%s", c->headroom,
				c->reserved, ets);
			fprintf(out, " kmin=%u kmax=%u pmax=%g", c->kmin, c->kmax,
				c->pmax);
			fprintf(out, " in_bytes=%" PRIu64 " depth=%" PRIu64,
				q->in_bytes[k], q->q_bytes[k]);
			fprintf(out, " paused=%d xoff_sent=%d",
				q->paused_until[k] != 0, q->xoff[k]);
			fprintf(out, " enqueued=%" PRIu64 " dropped=%" PRIu64
				" marked=%" PRIu64 " pause_tx=%" PRIu64
				" pause_rx=%" PRIu64 " paused_ns=%" PRIu64
				" max_depth=%" PRIu64 " tx_bytes=%" PRIu64
				" rx_bytes=%" PRIu64 "\n",
				st->enqueued, st->dropped, st->marked,
				st->pause_tx, st->pause_rx,
				st->paused_ns +
				(q->paused_until[k] ? sw->now_ns -
				 q->pause_start[k] : 0),
				st->max_depth, st->tx_bytes, st->rx_bytes);
		}
	}
	fprintf(out, "buffer size=%" PRIu64 " shared=%" PRIu64 " used=%" PRIu64
		"\n", sw->buf_size, sw->shared_size, sw->shared_used);
	return 0;
}

int qos_buffer_cmd(struct sw *sw, struct ctl_args *a, FILE *out)
{
	const char *s = ctl_take(a, "size");
	unsigned long long v = sw->buf_size;

	if (ctl_check_unused(a))
		return -1;
	if (s && ctl_parse_uint(s, 1ULL << 40, &v))
		return ctl_err(a, "buffer: size=%s: bytes, 0 (no limit) or more",
			       s);
	sw->buf_size = v;
	qos_resize_shared(sw);
	fprintf(out, "buffer size=%" PRIu64 " shared=%" PRIu64 " used=%" PRIu64
		"\n", sw->buf_size, sw->shared_size, sw->shared_used);
	return 0;
}

void qos_stats_print(const struct sw_port *p, FILE *out)
{
	const struct sw_qos_port *q = &p->qos;
	static const char *const names[] = {
		"enq", "drop", "mark", "pause_tx", "pause_rx", "paused_ns",
		"max_depth",
	};
	unsigned int n, k;

	for (n = 0; n < ARRAY_SIZE(names); n++) {
		fprintf(out, " q_%s=", names[n]);
		for (k = 0; k < SW_NUM_PRIO; k++) {
			const struct sw_prio_stats *st = &q->st[k];
			const uint64_t v[] = {
				st->enqueued, st->dropped, st->marked,
				st->pause_tx, st->pause_rx, st->paused_ns,
				st->max_depth,
			};

			fprintf(out, "%s%" PRIu64, k ? "," : "", v[n]);
		}
	}
	fprintf(out, " mac_ctl=%" PRIu64, q->rx_frames_mac_ctl);
}
