// SPDX-License-Identifier: GPL-2.0
/*
 * Impairments: what a lossy, slow or faulty link does to frames, set per
 * port and per direction, with the names tc-netem gives them.
 *
 * Every port has two stages.  Ingress works on the frames its guest sends,
 * before the switch learns, captures and forwards them (so the capture
 * shows what the ingress stage let through); egress works on the frames
 * forwarded to the port, before its class queues.  A stage with nothing
 * set is skipped.  Each frame, in this order:
 *
 *   duplicate  with probability duplicate, a second copy goes on too;
 *              each copy then takes the steps below with draws of its own
 *   loss       random ("loss random P") or the Gilbert-Elliott model
 *              ("loss gemodel p r 1-h 1-k"): a frame is lost with 1-k in
 *              the good state and 1-h in the bad one, and the state then
 *              moves good -> bad with p, bad -> good with r; with
 *              ge-step=T the state moves once per T of time instead,
 *              however many frames pass (a burst is a time on the line)
 *   corrupt    one random bit flipped after the Ethernet header, so the
 *              frame still reaches its destination and fails its checks
 *              there
 *   delay      held for delay, or uniformly delay - jitter .. delay +
 *              jitter; held frames leave in the order of their release
 *              times, so a jitter above the frames' spacing reorders them
 *   reorder    (needs a delay) once gap - 1 frames in a row were delayed,
 *              a frame goes on at once with probability reorder, ahead of
 *              the delayed ones ("reorder P gap N")
 *
 * Random draws come from one xoshiro256** stream per port and direction,
 * seeded from the switch's seed and that port and direction alone: the
 * same seed and the same frames through a stage give the same result,
 * whatever the other ports carry.  Frames held in delay lines count
 * against a limit per line and one for the switch, for which the buffer
 * pool has room; a frame beyond either is dropped and counted (overflow).
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

static const char * const dir_names[SW_DIR_NUM] = {
	[SW_DIR_INGRESS] = "ingress",
	[SW_DIR_EGRESS] = "egress",
};

const char *impair_dir_name(enum sw_dir dir)
{
	return dir < SW_DIR_NUM ? dir_names[dir] : "?";
}

/* ------------------------------------------------------------------ */
/* Random numbers */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct sw_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* The stream of one port and direction: from the seed and those alone. */
static void rng_seed(struct sw_rng *r, uint64_t seed, unsigned int port,
		     enum sw_dir dir)
{
	uint64_t x = seed ^ (((uint64_t)port << 1 | dir) + 1) *
			    0xd1b54a32d192ed03ULL;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/* True with probability p; p of 0 or 1 costs no draw. */
static bool chance(struct sw_rng *r, double p)
{
	if (p <= 0)
		return false;
	if (p >= 1)
		return true;
	/* 53 random bits: a double uniform in [0, 1). */
	return (double)(rng_next(r) >> 11) / (double)(1ULL << 53) < p;
}

/* Uniform in 0..n-1 (n > 0). */
static uint64_t rng_below(struct sw_rng *r, uint64_t n)
{
	return (uint64_t)(((__uint128_t)rng_next(r) * n) >> 64);
}

/* ------------------------------------------------------------------ */
/* Delay lines: a min-heap on (release time, arrival order) */

static bool held_before(const struct sw_held *a, const struct sw_held *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->seq < b->seq);
}

static void heap_push(struct sw_impair *im, uint64_t t_ns,
		      struct sw_buf *buf)
{
	struct sw_held h = { .t_ns = t_ns, .seq = im->seq++, .buf = buf };
	unsigned int i = im->nheld++;

	while (i) {
		unsigned int parent = (i - 1) / 2;

		if (!held_before(&h, &im->heap[parent]))
			break;
		im->heap[i] = im->heap[parent];
		i = parent;
	}
	im->heap[i] = h;
}

static struct sw_buf *heap_pop(struct sw_impair *im)
{
	struct sw_buf *buf = im->heap[0].buf;
	struct sw_held last = im->heap[--im->nheld];
	unsigned int i = 0, n = im->nheld;

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && held_before(&im->heap[c + 1], &im->heap[c]))
			c++;
		if (!held_before(&im->heap[c], &last))
			break;
		im->heap[i] = im->heap[c];
		i = c;
	}
	if (n)
		im->heap[i] = last;
	return buf;
}

/* ------------------------------------------------------------------ */
/* The stage */

static bool cfg_active(const struct sw_impair_cfg *c)
{
	return c->loss > 0 || c->gemodel || c->duplicate > 0 ||
	       c->corrupt > 0 || c->delay_ns;
}

static void cfg_default(struct sw_impair_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->gap = 1;
	c->limit = SW_DEF_IMPAIR_LIMIT;
}

/* Where a frame goes after the stage. */
static void stage_next(struct sw *sw, struct sw_port *p, enum sw_dir dir,
		       struct sw_buf *buf)
{
	if (dir == SW_DIR_INGRESS)
		pipeline_forward(sw, p, buf);
	else
		egress_queue(sw, p, buf);
}

/*
 * At ingress the frame is the stage's alone (no references yet); at
 * egress the stage holds the port's one reference to a buffer other
 * ports may share.
 */
static void stage_drop(struct sw *sw, enum sw_dir dir, struct sw_buf *buf)
{
	if (dir == SW_DIR_INGRESS)
		pool_put(&sw->pool, buf);
	else
		buf_release(&sw->pool, buf);
}

static struct sw_buf *buf_clone(struct sw *sw, const struct sw_buf *buf)
{
	struct sw_buf *c = pool_get(&sw->pool);

	if (!c)
		return NULL;
	memcpy(c->data, buf->data, buf->len);
	c->len = buf->len;
	c->in_port = buf->in_port;
	c->tc = buf->tc;
	return c;
}

/* A second copy of the frame: a reference at egress, a buffer at ingress. */
static struct sw_buf *stage_dup(struct sw *sw, enum sw_dir dir,
				struct sw_buf *buf)
{
	if (dir == SW_DIR_EGRESS) {
		buf->refs++;
		return buf;
	}
	return buf_clone(sw, buf);
}

/* A buffer the stage may write: shared ones are copied first. */
static struct sw_buf *stage_own(struct sw *sw, enum sw_dir dir,
				struct sw_buf *buf)
{
	struct sw_buf *c;

	if (dir == SW_DIR_INGRESS || buf->refs == 1)
		return buf;
	c = buf_clone(sw, buf);
	if (c)
		c->refs = 1;
	buf_release(&sw->pool, buf);
	return c;
}

/*
 * Move a time-stepped chain on to now: k steps in one draw, from the
 * k-step transition of a two-state chain.  With lam = 1 - p - r and
 * pi = p / (p + r) its share of bad steps, the chance of being bad after
 * k steps is pi + (1 - pi) lam^k from bad and pi (1 - lam^k) from good.
 * Per-frame stepping would make a burst outlast any idle time: a lone
 * retransmission every timeout would meet the same burst again and again.
 */
static void ge_catch_up(struct sw_impair *im, uint64_t now)
{
	const struct sw_impair_cfg *c = &im->cfg;
	double lam, pi, bad;
	uint64_t k;

	if (now < im->ge_t_ns) {
		/* A clock that started again (timed mode's virtual time). */
		im->ge_t_ns = now;
		return;
	}
	k = (now - im->ge_t_ns) / c->ge_step_ns;
	if (!k)
		return;
	im->ge_t_ns += k * c->ge_step_ns;
	if (c->ge_p + c->ge_r <= 0)
		return;
	lam = pow(1 - c->ge_p - c->ge_r, (double)k);
	pi = c->ge_p / (c->ge_p + c->ge_r);
	bad = im->ge_bad ? pi + (1 - pi) * lam : pi * (1 - lam);
	im->ge_bad = chance(&im->rng, bad);
}

static bool loss_event(struct sw *sw, struct sw_impair *im)
{
	const struct sw_impair_cfg *c = &im->cfg;
	bool lost;

	if (!c->gemodel)
		return chance(&im->rng, c->loss);
	if (c->ge_step_ns) {
		ge_catch_up(im, sw->now_ns);
		return chance(&im->rng, im->ge_bad ? c->ge_1h : c->ge_1k);
	}
	lost = chance(&im->rng, im->ge_bad ? c->ge_1h : c->ge_1k);
	if (im->ge_bad)
		im->ge_bad = !chance(&im->rng, c->ge_r);
	else
		im->ge_bad = chance(&im->rng, c->ge_p);
	return lost;
}

static void corrupt_bit(struct sw_impair *im, struct sw_buf *buf)
{
	uint32_t start = buf->len > SW_ETH_HLEN ? SW_ETH_HLEN : 0;
	uint64_t bit = rng_below(&im->rng, (uint64_t)(buf->len - start) * 8);

	buf->data[start + bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

static uint64_t delay_draw(struct sw_impair *im)
{
	const struct sw_impair_cfg *c = &im->cfg;

	if (!c->jitter_ns)
		return c->delay_ns;
	return c->delay_ns - c->jitter_ns +
	       rng_below(&im->rng, 2 * c->jitter_ns + 1);
}

static void stage_hold(struct sw *sw, struct sw_impair *im, enum sw_dir dir,
		       struct sw_buf *buf)
{
	uint64_t t = sw->now_ns + delay_draw(im);

	if (im->nheld >= im->cfg.limit || im->nheld >= im->heap_size ||
	    sw->imp_held >= sw->imp_hold_max) {
		im->st.overflow++;
		stage_drop(sw, dir, buf);
		return;
	}
	heap_push(im, t, buf);
	sw->imp_held++;
	im->st.delayed++;
}

/* One copy of a frame: loss, corruption, then delay or reorder. */
static void stage_copy(struct sw *sw, struct sw_port *p, enum sw_dir dir,
		       struct sw_buf *buf)
{
	struct sw_impair *im = &p->imp[dir];
	const struct sw_impair_cfg *c = &im->cfg;

	if (loss_event(sw, im)) {
		im->st.lost++;
		stage_drop(sw, dir, buf);
		return;
	}
	if (chance(&im->rng, c->corrupt)) {
		buf = stage_own(sw, dir, buf);
		if (!buf) {
			im->st.overflow++;
			return;
		}
		corrupt_bit(im, buf);
		im->st.corrupted++;
	}
	if (!c->delay_ns) {
		stage_next(sw, p, dir, buf);
		return;
	}
	/* netem: early only once gap - 1 frames in a row were delayed. */
	if (c->reorder > 0 && im->since_reorder + 1 >= c->gap &&
	    chance(&im->rng, c->reorder)) {
		im->since_reorder = 0;
		im->st.reordered++;
		stage_next(sw, p, dir, buf);
		return;
	}
	im->since_reorder++;
	stage_hold(sw, im, dir, buf);
}

static void stage_frame(struct sw *sw, struct sw_port *p, enum sw_dir dir,
			struct sw_buf *buf)
{
	struct sw_impair *im = &p->imp[dir];
	struct sw_buf *dup = NULL;

	im->st.frames++;
	if (chance(&im->rng, im->cfg.duplicate)) {
		dup = stage_dup(sw, dir, buf);
		if (dup)
			im->st.duplicated++;
		else
			im->st.overflow++;
	}
	stage_copy(sw, p, dir, buf);
	if (dup)
		stage_copy(sw, p, dir, dup);
}

void impair_ingress(struct sw *sw, struct sw_port *p, struct sw_buf *buf)
{
	stage_frame(sw, p, SW_DIR_INGRESS, buf);
}

void impair_egress(struct sw *sw, struct sw_port *p, struct sw_buf *buf)
{
	stage_frame(sw, p, SW_DIR_EGRESS, buf);
}

void impair_release(struct sw *sw)
{
	unsigned int i;
	int dir;

	if (!sw->imp_held)
		return;
	/* Ingress first: what it releases may be held again at egress. */
	for (dir = 0; dir < SW_DIR_NUM; dir++) {
		for (i = 0; i < sw->nports; i++) {
			struct sw_port *p = &sw->port[i];
			struct sw_impair *im = &p->imp[dir];

			while (im->nheld && im->heap[0].t_ns <= sw->now_ns) {
				struct sw_buf *buf = heap_pop(im);

				sw->imp_held--;
				stage_next(sw, p, dir, buf);
			}
		}
	}
}

uint64_t impair_next(const struct sw *sw)
{
	uint64_t next = UINT64_MAX;
	unsigned int i;
	int dir;

	if (sw->imp_held) {
		for (dir = 0; dir < SW_DIR_NUM; dir++)
			for (i = 0; i < sw->nports; i++) {
				const struct sw_impair *im = &sw->port[i].imp[dir];

				if (im->nheld && im->heap[0].t_ns < next)
					next = im->heap[0].t_ns;
			}
	}
	return next;
}

void impair_arm(struct sw *sw)
{
	struct itimerspec its = { 0 };
	uint64_t next;

	/* Timed: the event loop releases them (timed.c). */
	if (sw->timed)
		return;
	next = impair_next(sw);
	if (next == UINT64_MAX) {
		if (!sw->imp_armed_ns)
			return;
		next = 0;	/* disarm */
	} else if (next == sw->imp_armed_ns) {
		return;
	}
	its.it_value.tv_sec = (time_t)(next / 1000000000);
	its.it_value.tv_nsec = (long)(next % 1000000000);
	if (timerfd_settime(sw->imp_tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		sw->imp_armed_ns = next;
}

void impair_timer(struct sw *sw)
{
	uint64_t expirations;

	if (read(sw->imp_tfd, &expirations, sizeof(expirations)) < 0 &&
	    errno != EAGAIN)
		perror("rocx-switch: impairment timer");
	/* Fired: impair_arm() sets it again for what is still held. */
	sw->imp_armed_ns = 0;
}

void impair_seed(struct sw *sw, uint64_t seed)
{
	unsigned int i;
	int dir;

	sw->seed = seed;
	for (i = 0; i < sw->nports; i++)
		for (dir = 0; dir < SW_DIR_NUM; dir++) {
			struct sw_impair *im = &sw->port[i].imp[dir];

			rng_seed(&im->rng, seed, i, dir);
			/* A replay starts from the same state, too. */
			im->ge_bad = false;
			im->since_reorder = 0;
		}
}

int impair_init(struct sw *sw, uint64_t seed, unsigned int hold_max)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u32 = SW_TAG_IMPAIR };
	unsigned int i;
	int dir;

	sw->imp_hold_max = hold_max;
	sw->imp_held = 0;
	sw->imp_armed_ns = 0;
	for (i = 0; i < sw->nports; i++)
		for (dir = 0; dir < SW_DIR_NUM; dir++)
			cfg_default(&sw->port[i].imp[dir].cfg);
	impair_seed(sw, seed);
	sw->imp_tfd = timerfd_create(CLOCK_MONOTONIC,
				     TFD_NONBLOCK | TFD_CLOEXEC);
	if (sw->imp_tfd < 0)
		return -1;
	return epoll_ctl(sw->epfd, EPOLL_CTL_ADD, sw->imp_tfd, &ev);
}

void impair_fini(struct sw *sw)
{
	unsigned int i;
	int dir;

	for (i = 0; i < sw->nports; i++)
		for (dir = 0; dir < SW_DIR_NUM; dir++) {
			struct sw_impair *im = &sw->port[i].imp[dir];

			while (im->nheld)
				stage_drop(sw, dir, heap_pop(im));
			free(im->heap);
			im->heap = NULL;
			im->heap_size = 0;
		}
	sw->imp_held = 0;
	if (sw->imp_tfd >= 0)
		close(sw->imp_tfd);
	sw->imp_tfd = -1;
}

/* ------------------------------------------------------------------ */
/* Counters and settings as text */

static const struct {
	const char *name;
	size_t off;
} imp_counters[] = {
	{ "frames", offsetof(struct sw_impair_stats, frames) },
	{ "lost", offsetof(struct sw_impair_stats, lost) },
	{ "duplicated", offsetof(struct sw_impair_stats, duplicated) },
	{ "corrupted", offsetof(struct sw_impair_stats, corrupted) },
	{ "reordered", offsetof(struct sw_impair_stats, reordered) },
	{ "delayed", offsetof(struct sw_impair_stats, delayed) },
	{ "overflow", offsetof(struct sw_impair_stats, overflow) },
};

static uint64_t counter(const struct sw_impair_stats *st, unsigned int k)
{
	uint64_t v;

	memcpy(&v, (const char *)st + imp_counters[k].off, sizeof(v));
	return v;
}

void impair_stats_print(const struct sw_port *p, FILE *out)
{
	static const char * const pfx[SW_DIR_NUM] = {
		[SW_DIR_INGRESS] = "rx_imp_",
		[SW_DIR_EGRESS] = "tx_imp_",
	};
	unsigned int k;
	int dir;

	for (dir = 0; dir < SW_DIR_NUM; dir++) {
		for (k = 0; k < ARRAY_SIZE(imp_counters); k++)
			fprintf(out, " %s%s=%" PRIu64, pfx[dir],
				imp_counters[k].name,
				counter(&p->imp[dir].st, k));
		fprintf(out, " %sheld=%u", pfx[dir], p->imp[dir].nheld);
	}
}

static void print_prob(FILE *out, const char *sep, double p)
{
	fprintf(out, "%s%.6g%%", sep, p * 100);
}

static void print_time(FILE *out, const char *key, uint64_t ns)
{
	if (ns % 1000000 == 0)
		fprintf(out, " %s=%" PRIu64 "ms", key, ns / 1000000);
	else if (ns % 1000 == 0)
		fprintf(out, " %s=%" PRIu64 "us", key, ns / 1000);
	else
		fprintf(out, " %s=%" PRIu64 "ns", key, ns);
}

static void show_line(const struct sw_port *p, enum sw_dir dir, FILE *out)
{
	const struct sw_impair *im = &p->imp[dir];
	const struct sw_impair_cfg *c = &im->cfg;
	unsigned int k;

	fprintf(out, "port%u %s", p->idx, impair_dir_name(dir));
	if (c->gemodel) {
		print_prob(out, " loss-gemodel=", c->ge_p);
		print_prob(out, ",", c->ge_r);
		print_prob(out, ",", c->ge_1h);
		print_prob(out, ",", c->ge_1k);
		if (c->ge_step_ns)
			print_time(out, "ge-step", c->ge_step_ns);
	} else {
		print_prob(out, " loss=", c->loss);
	}
	print_prob(out, " duplicate=", c->duplicate);
	print_prob(out, " corrupt=", c->corrupt);
	print_time(out, "delay", c->delay_ns);
	print_time(out, "jitter", c->jitter_ns);
	print_prob(out, " reorder=", c->reorder);
	fprintf(out, " gap=%u limit=%u held=%u", c->gap, c->limit, im->nheld);
	for (k = 0; k < ARRAY_SIZE(imp_counters); k++)
		fprintf(out, " %s=%" PRIu64, imp_counters[k].name,
			counter(&im->st, k));
	fputc('\n', out);
}

/* show [port=N|all] [dir=ingress|egress|both] */
int impair_show(struct sw *sw, struct ctl_args *a, FILE *out)
{
	unsigned int dirs, i;
	uint64_t ports;
	int dir;

	if (ctl_ports(sw, a, false, &ports) || ctl_dirs(a, false, &dirs) ||
	    ctl_check_unused(a))
		return -1;
	for (i = 0; i < sw->nports; i++)
		for (dir = 0; dir < SW_DIR_NUM; dir++)
			if ((ports >> i & 1) && (dirs >> dir & 1))
				show_line(&sw->port[i], dir, out);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The impair command */

enum {
	SET_LOSS = 1 << 0,
	SET_GEMODEL = 1 << 1,
	SET_DUPLICATE = 1 << 2,
	SET_CORRUPT = 1 << 3,
	SET_DELAY = 1 << 4,
	SET_JITTER = 1 << 5,
	SET_REORDER = 1 << 6,
	SET_GAP = 1 << 7,
	SET_LIMIT = 1 << 8,
	SET_GE_STEP = 1 << 9,
};

static const struct {
	const char *key;
	unsigned int bit;
	size_t off;
} imp_probs[] = {
	{ "loss", SET_LOSS, offsetof(struct sw_impair_cfg, loss) },
	{ "duplicate", SET_DUPLICATE,
	  offsetof(struct sw_impair_cfg, duplicate) },
	{ "corrupt", SET_CORRUPT, offsetof(struct sw_impair_cfg, corrupt) },
	{ "reorder", SET_REORDER, offsetof(struct sw_impair_cfg, reorder) },
};

/* loss-gemodel=P[,R[,1-H[,1-K]]], netem's defaults for what is left out. */
static int parse_gemodel(struct ctl_args *a, const char *s,
			 struct sw_impair_cfg *v)
{
	double x[4];
	char buf[128], *tok, *save = NULL;
	int n = 0;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return ctl_err(a, "loss-gemodel: '%s' is too long", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == 4)
			return ctl_err(a, "loss-gemodel: at most 4 values (p,r,1-h,1-k)");
		if (ctl_parse_prob(tok, &x[n]))
			return ctl_err(a, "loss-gemodel: bad probability '%s' (give 1%% or 0.01)",
				       tok);
		n++;
	}
	if (!n)
		return ctl_err(a, "loss-gemodel: give p[,r[,1-h[,1-k]]]");
	v->ge_p = x[0];
	v->ge_r = n > 1 ? x[1] : 1 - x[0];
	v->ge_1h = n > 2 ? x[2] : 1;
	v->ge_1k = n > 3 ? x[3] : 0;
	return 0;
}

/* The words of an impair command into the values they set. */
static int impair_parse(struct ctl_args *a, struct sw_impair_cfg *v,
			unsigned int *set, bool *clear)
{
	unsigned long long n;
	const char *s;
	unsigned int k;

	*set = 0;
	*clear = ctl_flag(a, "clear");
	for (k = 0; k < ARRAY_SIZE(imp_probs); k++) {
		double p;

		s = ctl_take(a, imp_probs[k].key);
		if (!s)
			continue;
		if (ctl_parse_prob(s, &p))
			return ctl_err(a, "%s: bad probability '%s' (give 1%% or 0.01)",
				       imp_probs[k].key, s);
		memcpy((char *)v + imp_probs[k].off, &p, sizeof(p));
		*set |= imp_probs[k].bit;
	}
	s = ctl_take(a, "loss-gemodel");
	if (s) {
		if (*set & SET_LOSS)
			return ctl_err(a, "loss and loss-gemodel exclude each other");
		if (parse_gemodel(a, s, v))
			return -1;
		*set |= SET_GEMODEL;
	}
	s = ctl_take(a, "ge-step");
	if (s) {
		if (ctl_parse_time(s, &v->ge_step_ns))
			return ctl_err(a, "ge-step: bad time '%s' (give 10us, 1ms, ... or 0s)",
				       s);
		*set |= SET_GE_STEP;
	}
	s = ctl_take(a, "delay");
	if (s) {
		if (ctl_parse_time(s, &v->delay_ns))
			return ctl_err(a, "delay: bad time '%s' (give 2ms, 500us, ... up to 10s)",
				       s);
		*set |= SET_DELAY;
	}
	s = ctl_take(a, "jitter");
	if (s) {
		if (ctl_parse_time(s, &v->jitter_ns))
			return ctl_err(a, "jitter: bad time '%s' (give 2ms, 500us, ... up to 10s)",
				       s);
		*set |= SET_JITTER;
	}
	s = ctl_take(a, "gap");
	if (s) {
		if (ctl_parse_uint(s, 1000000, &n) || !n)
			return ctl_err(a, "gap: '%s' is not 1..1000000", s);
		v->gap = (unsigned int)n;
		*set |= SET_GAP;
	}
	s = ctl_take(a, "limit");
	if (s) {
		if (ctl_parse_uint(s, SW_MAX_IMPAIR_LIMIT, &n) || !n)
			return ctl_err(a, "limit: '%s' is not 1..%d", s,
				       SW_MAX_IMPAIR_LIMIT);
		v->limit = (unsigned int)n;
		*set |= SET_LIMIT;
	}
	if (!*set && !*clear)
		return ctl_err(a, "impair: nothing to set (give KEY=VALUE or clear)");
	return 0;
}

/* One line's settings after the command, checked as a whole. */
static int impair_merge(struct ctl_args *a, const struct sw_impair *im,
			const struct sw_impair_cfg *v, unsigned int set,
			bool clear, unsigned int port, enum sw_dir dir,
			struct sw_impair_cfg *c)
{
	if (clear)
		cfg_default(c);
	else
		*c = im->cfg;
	if (set & SET_LOSS) {
		c->loss = v->loss;
		c->gemodel = false;
	}
	if (set & SET_GEMODEL) {
		c->loss = 0;
		c->gemodel = true;
		c->ge_p = v->ge_p;
		c->ge_r = v->ge_r;
		c->ge_1h = v->ge_1h;
		c->ge_1k = v->ge_1k;
	}
	if (set & SET_GE_STEP)
		c->ge_step_ns = v->ge_step_ns;
	if (set & SET_DUPLICATE)
		c->duplicate = v->duplicate;
	if (set & SET_CORRUPT)
		c->corrupt = v->corrupt;
	if (set & SET_DELAY)
		c->delay_ns = v->delay_ns;
	if (set & SET_JITTER)
		c->jitter_ns = v->jitter_ns;
	if (set & SET_REORDER)
		c->reorder = v->reorder;
	if (set & SET_GAP)
		c->gap = v->gap;
	if (set & SET_LIMIT)
		c->limit = v->limit;
	if (!c->gemodel)
		c->ge_step_ns = 0;
	if ((set & SET_GE_STEP) && !c->gemodel)
		return ctl_err(a, "port %u %s: ge-step needs loss-gemodel",
			       port, impair_dir_name(dir));
	if (c->jitter_ns > c->delay_ns)
		return ctl_err(a, "port %u %s: jitter must not exceed delay",
			       port, impair_dir_name(dir));
	if (c->reorder > 0 && !c->delay_ns)
		return ctl_err(a, "port %u %s: reorder needs a delay",
			       port, impair_dir_name(dir));
	return 0;
}

/* Room for the line's limit; grown only, and before anything changes. */
static int impair_reserve(struct ctl_args *a, struct sw_impair *im,
			  const struct sw_impair_cfg *c)
{
	struct sw_held *h;

	if (!c->delay_ns || im->heap_size >= c->limit)
		return 0;
	h = realloc(im->heap, (size_t)c->limit * sizeof(*h));
	if (!h)
		return ctl_err(a, "impair: out of memory for a delay line of %u",
			       c->limit);
	im->heap = h;
	im->heap_size = c->limit;
	return 0;
}

/*
 * impair port=SEL dir=SEL [clear] [KEY=VALUE]...
 * Every selected port and direction is checked before any changes: a bad
 * command changes nothing.  KEYs not given keep their values, unless
 * clear resets them all first; counters are never reset.  Setting a loss
 * model or its step restarts it in the good state, setting reorder or gap restarts the
 * gap count.
 */
int impair_cmd(struct sw *sw, struct ctl_args *a, FILE *out)
{
	struct sw_impair_cfg v, next[SW_MAX_PORTS][SW_DIR_NUM];
	unsigned int dirs, set, i;
	uint64_t ports;
	bool clear;
	int dir;

	(void)out;
	cfg_default(&v);
	if (ctl_ports(sw, a, true, &ports) || ctl_dirs(a, true, &dirs) ||
	    impair_parse(a, &v, &set, &clear) || ctl_check_unused(a))
		return -1;
	for (i = 0; i < sw->nports; i++)
		for (dir = 0; dir < SW_DIR_NUM; dir++) {
			struct sw_impair *im = &sw->port[i].imp[dir];

			if (!(ports >> i & 1) || !(dirs >> dir & 1))
				continue;
			if (impair_merge(a, im, &v, set, clear, i, dir,
					 &next[i][dir]) ||
			    impair_reserve(a, im, &next[i][dir]))
				return -1;
		}
	for (i = 0; i < sw->nports; i++)
		for (dir = 0; dir < SW_DIR_NUM; dir++) {
			struct sw_impair *im = &sw->port[i].imp[dir];

			if (!(ports >> i & 1) || !(dirs >> dir & 1))
				continue;
			im->cfg = next[i][dir];
			im->active = cfg_active(&im->cfg);
			/* A new loss model or reorder gap starts afresh. */
			if (clear ||
			    (set & (SET_LOSS | SET_GEMODEL | SET_GE_STEP))) {
				im->ge_bad = false;
				im->ge_t_ns = sw->now_ns;
			}
			if (clear || (set & (SET_REORDER | SET_GAP)))
				im->since_reorder = 0;
		}
	return 0;
}
