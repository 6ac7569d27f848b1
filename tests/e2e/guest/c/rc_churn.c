// SPDX-License-Identifier: GPL-2.0
/*
 * rc_churn - create and destroy QPs and CQs while traffic runs.
 *
 *   rc_churn [-P PROCS] [-T THREADS] [-s SECONDS]
 *              churn: PROCS processes (default 2), each with its own
 *              context, THREADS threads (default 3) and one traffic
 *              thread.  A churn thread loops: two CQs or four, two RC
 *              QPs connected to each other through the device, 1-16
 *              SENDs each way, every completion and every byte checked,
 *              then everything destroyed again (in varying order).  The
 *              traffic thread keeps one pair for the whole run and
 *              exchanges on it all the time.
 *   rc_churn -R
 *              QPN reuse: QP X is destroyed while another thread creates
 *              QP Y.  The device does not give X's qpn out again at once
 *              (contract 1.2, ROCX_CAP2_QPN_ROTATE), so Y's differs; Y
 *              must get every one of its completions.  The interleaving
 *              is forced, see below.
 * Options: -d DEV (default: the first rocx device), -g GID_INDEX (default:
 * the first RoCE v2 IPv4 GID), -t SECONDS (completion timeout, default 60).
 *
 * Prints one TAP-style line per check, "ok - churn: ..." or "not ok -
 * churn: ...", and exits 1 if any failed.
 *
 * A 1.1 device handed a freed QP or CQ number out again at once, so every
 * table that maps numbers to objects (the kernel's, the provider's) had
 * to forget the old object before the number was free, or a new object
 * with that number was lost.  A 1.2 device moves a slot's generation on
 * each time (rocx-device.rst, "Object numbers"): the just-freed number
 * is not handed out, which -R checks, and the tables' ordering still
 * matters when the number space wraps.  -R makes the interleaving
 * certain: this program defines ibv_cmd_destroy_qp(), which the provider
 * calls (through the PLT, libibverbs' private ABI) to destroy a QP in the
 * kernel, so its definition here runs instead of libibverbs'.  It calls
 * libibverbs' and, for the QP -R names, lets the creating thread run and
 * waits (3 s at most) until that thread's ibv_create_qp() has returned,
 * before the provider goes on with its part of the destroy.  A provider that
 * serialises destroy and create holds the create back until the destroy
 * is complete; that is fine, the wait simply times out.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MAX_MSGS	16		/* SENDs each way per exchange */
#define MAX_LEN		4096		/* bytes per SEND */
#define REGION		(MAX_MSGS * MAX_LEN)
#define BUF_SIZE	(4 * REGION)	/* per thread: 2 sides x send, recv */
#define MAX_THREADS	16

static const char *dev_name;
static int gid_arg = -1;
static int timeout_s = 60;
static int failures;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	printf("%s - churn: ", pass ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!pass)
		failures++;
	pthread_mutex_unlock(&out_lock);
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static uint8_t pat(uint32_t seed, size_t i)
{
	return (uint8_t)(seed * 167 + i * 13 + (i >> 8));
}

/* ---- Device ---- */

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int gid_index;
};

static bool gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

static int pick_gid(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int i;

	if (ibv_query_port(ctx, 1, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++)
		if (!ibv_query_gid_ex(ctx, 1, i, &e, 0) &&
		    e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_v4(&e.gid))
			return i;
	return -1;
}

static int dev_open(struct dev *d)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; list && list[i]; i++) {
		const char *n = ibv_get_device_name(list[i]);

		if (dev_name ? !strcmp(n, dev_name) : !strncmp(n, "rocx", 4)) {
			d->ctx = ibv_open_device(list[i]);
			break;
		}
	}
	if (list)
		ibv_free_device_list(list);
	if (!d->ctx)
		return ENODEV;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		return errno;
	d->gid_index = gid_arg >= 0 ? gid_arg : pick_gid(d->ctx);
	return d->gid_index < 0 ? ENOENT : 0;
}

static void dev_close(struct dev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
}

/* ---- One side of a looped-back RC connection ---- */

struct side {
	struct ibv_cq *scq;
	struct ibv_cq *rcq;	/* may be scq */
	struct ibv_qp *qp;
	uint8_t *sbuf;		/* what it sends */
	uint8_t *rbuf;		/* where it receives */
};

static struct ibv_qp *qp_create(struct dev *d, struct ibv_cq *scq,
				struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = {
			.max_send_wr = MAX_MSGS,
			.max_recv_wr = MAX_MSGS,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(d->pd, &init);
}

/* CQs of @depth (one for both directions if @shared) and the QP. */
static int side_create(struct dev *d, struct side *s, int depth, bool shared)
{
	s->scq = ibv_create_cq(d->ctx, depth, NULL, NULL, 0);
	if (!s->scq)
		return errno;
	s->rcq = shared ? s->scq : ibv_create_cq(d->ctx, depth, NULL, NULL, 0);
	if (!s->rcq)
		return errno;
	s->qp = qp_create(d, s->scq, s->rcq);
	return s->qp ? 0 : errno;
}

/* Destroy what exists; the QP first, then the CQs in either order. */
static int side_destroy(struct side *s, bool rcq_first)
{
	int err = 0, e;

	if (s->qp && (e = ibv_destroy_qp(s->qp)))
		err = e;
	s->qp = NULL;
	if (rcq_first && s->rcq && s->rcq != s->scq &&
	    (e = ibv_destroy_cq(s->rcq)))
		err = e;
	if (s->scq && (e = ibv_destroy_cq(s->scq)))
		err = e;
	if (!rcq_first && s->rcq && s->rcq != s->scq &&
	    (e = ibv_destroy_cq(s->rcq)))
		err = e;
	s->scq = s->rcq = NULL;
	return err;
}

/* RESET -> INIT -> RTR -> RTS, towards @dest_qpn on this device's GID. */
static int qp_connect(struct dev *d, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
	};
	union ibv_gid gid;
	int err;

	if (ibv_query_gid(d->ctx, 1, d->gid_index, &gid))
		return EIO;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = d->gid_index;
	a.ah_attr.grh.dgid = gid;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = qp->qp_num;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int pair_connect(struct dev *d, struct side *a, struct side *b)
{
	int err = qp_connect(d, a->qp, b->qp->qp_num);

	return err ? err : qp_connect(d, b->qp, a->qp->qp_num);
}

/* ---- Exchanges: every completion and every byte accounted for ---- */

struct xchg {
	struct side *s;
	uint32_t seed;		/* of what s sends; the peer's is seed ^ 1 */
	int sends, recvs;	/* completions seen */
	uint32_t sent, rcvd;	/* bitmaps of wr_ids seen */
};

static int post_recvs(struct side *s, struct ibv_mr *mr, int n, uint32_t len)
{
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		sge = (struct ibv_sge){ (uintptr_t)s->rbuf + i * MAX_LEN, len,
					mr->lkey };
		wr.wr_id = 100 + i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		err = ibv_post_recv(s->qp, &wr, &bad);
	}
	return err;
}

static int post_sends(struct side *s, struct ibv_mr *mr, int n, uint32_t len)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		sge = (struct ibv_sge){ (uintptr_t)s->sbuf + i * MAX_LEN, len,
					mr->lkey };
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		err = ibv_post_send(s->qp, &wr, &bad);
	}
	return err;
}

/* Take one work completion for @x's QP; false (with @why) if wrong. */
static bool account(struct xchg *x, const struct ibv_wc *wc, int n,
		    uint32_t len, char *why, size_t whylen)
{
	uint32_t peer_seed = x->seed ^ 1;
	uint64_t i;
	size_t k;

	if (wc->status != IBV_WC_SUCCESS || wc->qp_num != x->s->qp->qp_num) {
		snprintf(why, whylen, "QP %u: completion wr_id %llu status %s qpn %u",
			 x->s->qp->qp_num, (unsigned long long)wc->wr_id,
			 ibv_wc_status_str(wc->status), wc->qp_num);
		return false;
	}
	if (wc->opcode == IBV_WC_SEND && wc->wr_id < (uint64_t)n &&
	    !(x->sent & (1u << wc->wr_id))) {
		x->sent |= 1u << wc->wr_id;
		x->sends++;
		return true;
	}
	i = wc->wr_id - 100;
	if (wc->opcode != IBV_WC_RECV || wc->wr_id < 100 || i >= (uint64_t)n ||
	    (x->rcvd & (1u << i)) || wc->byte_len != len) {
		snprintf(why, whylen, "QP %u: unexpected completion wr_id %llu opcode %d len %u",
			 x->s->qp->qp_num, (unsigned long long)wc->wr_id,
			 wc->opcode, wc->byte_len);
		return false;
	}
	for (k = 0; k < len; k++) {
		if (x->s->rbuf[i * MAX_LEN + k] != pat(peer_seed + i, k)) {
			snprintf(why, whylen, "QP %u: receive %llu byte %zu is %#x, want %#x",
				 x->s->qp->qp_num, (unsigned long long)i, k,
				 x->s->rbuf[i * MAX_LEN + k],
				 pat(peer_seed + i, k));
			return false;
		}
	}
	x->rcvd |= 1u << i;
	x->recvs++;
	return true;
}

static bool poll_side(struct xchg *x, int n, uint32_t len, char *why,
		      size_t whylen)
{
	struct ibv_cq *cqs[2] = { x->s->scq, x->s->rcq };
	struct ibv_wc wc[8];
	int c, i, got;

	for (c = 0; c < (cqs[0] == cqs[1] ? 1 : 2); c++) {
		got = ibv_poll_cq(cqs[c], 8, wc);
		if (got < 0) {
			snprintf(why, whylen, "ibv_poll_cq: %d", got);
			return false;
		}
		for (i = 0; i < got; i++)
			if (!account(x, &wc[i], n, len, why, whylen))
				return false;
	}
	return true;
}

/*
 * @n SENDs of @len bytes each way between @a and @b, every completion of
 * both QPs checked.  Returns 0, or an errno with @why filled in.
 */
static int exchange(struct ibv_mr *mr, struct side *a, struct side *b, int n,
		    uint32_t len, uint32_t seed, char *why, size_t whylen)
{
	struct xchg x[2] = { { .s = a, .seed = seed }, { .s = b, .seed = seed ^ 1 } };
	uint64_t end;
	int i, j, err;
	size_t k;

	for (j = 0; j < 2; j++) {
		for (i = 0; i < n; i++)
			for (k = 0; k < len; k++)
				x[j].s->sbuf[i * MAX_LEN + k] = pat(x[j].seed + i, k);
		memset(x[j].s->rbuf, 0, REGION);
	}
	/* Both sides' receives are posted before either side sends. */
	err = post_recvs(a, mr, n, len);
	if (!err)
		err = post_recvs(b, mr, n, len);
	if (!err)
		err = post_sends(a, mr, n, len);
	if (!err)
		err = post_sends(b, mr, n, len);
	if (err) {
		snprintf(why, whylen, "post: %s", strerror(err));
		return err;
	}

	end = now_ms() + timeout_s * 1000ull;
	while (x[0].sends + x[0].recvs + x[1].sends + x[1].recvs < 4 * n) {
		for (j = 0; j < 2; j++)
			if (!poll_side(&x[j], n, len, why, whylen))
				return EIO;
		if (now_ms() > end) {
			snprintf(why, whylen,
				 "after %d s: QP %u %d/%d sends %d/%d receives, QP %u %d/%d sends %d/%d receives",
				 timeout_s, a->qp->qp_num, x[0].sends, n,
				 x[0].recvs, n, b->qp->qp_num, x[1].sends, n,
				 x[1].recvs, n);
			return ETIMEDOUT;
		}
		usleep(100);
	}
	return 0;
}

/* ---- Churn ---- */

struct worker {
	pthread_t th;
	int id;
	bool traffic;		/* one pair for the whole run */
	struct dev *d;
	uint64_t deadline;
	uint8_t *buf;
	struct ibv_mr *mr;
	unsigned long pairs;	/* pairs created and destroyed */
	unsigned long completions;
	char why[256];
	int err;
};

static void sides_init(struct worker *w, struct side *a, struct side *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	a->sbuf = w->buf;
	a->rbuf = w->buf + REGION;
	b->sbuf = w->buf + 2 * REGION;
	b->rbuf = w->buf + 3 * REGION;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	unsigned int rnd = w->id * 7919 + getpid();
	struct side a, b;
	uint32_t seed = w->id << 16;
	int n, depth, err = 0;
	uint32_t len;
	bool shared;

	sides_init(w, &a, &b);
	while (!err && now_ms() < w->deadline) {
		n = 1 + rand_r(&rnd) % MAX_MSGS;
		len = 1 + rand_r(&rnd) % MAX_LEN;
		if (!a.qp || !w->traffic) {
			/* Room for every completion of one exchange, or more. */
			depth = 2 * (w->traffic ? MAX_MSGS : n) +
				rand_r(&rnd) % 64;
			shared = rand_r(&rnd) & 1;
			err = side_create(w->d, &a, depth, shared);
			if (!err)
				err = side_create(w->d, &b, depth, !shared);
			if (!err)
				err = pair_connect(w->d, &a, &b);
			if (err) {
				snprintf(w->why, sizeof(w->why),
					 "creating a pair: %s", strerror(err));
				break;
			}
		}
		err = exchange(w->mr, &a, &b, n, len, seed += 2, w->why,
			       sizeof(w->why));
		if (err)
			break;
		w->completions += 4 * n;
		if (!w->traffic) {
			/* Vary the order objects go back to the device in. */
			err = side_destroy(rand_r(&rnd) & 1 ? &a : &b,
					   rand_r(&rnd) & 1);
			if (!err)
				err = side_destroy(a.qp ? &a : &b,
						   rand_r(&rnd) & 1);
			if (err) {
				snprintf(w->why, sizeof(w->why),
					 "destroying a pair: %s", strerror(err));
				break;
			}
			w->pairs++;
		}
	}
	side_destroy(&a, false);
	side_destroy(&b, false);
	w->err = err;
	return NULL;
}

/* One process: its own context, @nthreads churning, one with traffic. */
static int churn_process(int proc, int nthreads, int seconds)
{
	struct worker w[MAX_THREADS + 1] = {};
	unsigned long pairs = 0, completions = 0;
	int i, err, bad = 0;
	struct dev d;

	err = dev_open(&d);
	if (err) {
		ok(false, "process %d: open the device: %s", proc,
		   strerror(err));
		dev_close(&d);
		return 1;
	}
	for (i = 0; i <= nthreads; i++) {
		w[i].id = proc * 100 + i;
		w[i].traffic = i == nthreads;
		w[i].d = &d;
		w[i].deadline = now_ms() + seconds * 1000ull;
		if (posix_memalign((void **)&w[i].buf, 4096, BUF_SIZE))
			return 1;
		w[i].mr = ibv_reg_mr(d.pd, w[i].buf, BUF_SIZE,
				     IBV_ACCESS_LOCAL_WRITE);
		if (!w[i].mr) {
			ok(false, "process %d: reg_mr: %s", proc,
			   strerror(errno));
			return 1;
		}
	}
	for (i = 0; i <= nthreads; i++)
		pthread_create(&w[i].th, NULL, worker_run, &w[i]);
	for (i = 0; i <= nthreads; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].err) {
			bad++;
			diag("process %d thread %d%s: %s", proc, i,
			     w[i].traffic ? " (traffic)" : "", w[i].why);
		}
		pairs += w[i].pairs;
		completions += w[i].completions;
	}
	ok(!bad, "process %d: %d threads created and destroyed %lu QP pairs while one more exchanged; %lu completions, all arrived intact%s",
	   proc, nthreads, pairs, completions,
	   bad ? " (until a thread failed)" : "");
	ok(pairs > 0 && w[nthreads].completions > 0,
	   "process %d: both churn and traffic made progress (%lu pairs, %lu traffic completions)",
	   proc, pairs, w[nthreads].completions);
	for (i = 0; i <= nthreads; i++) {
		ibv_dereg_mr(w[i].mr);
		free(w[i].buf);
	}
	dev_close(&d);
	return failures ? 1 : 0;
}

static int run_churn(int nprocs, int nthreads, int seconds)
{
	int i, status, bad = 0;
	pid_t pid;

	fflush(stdout);
	for (i = 0; i < nprocs; i++) {
		pid = fork();
		if (pid < 0) {
			ok(false, "fork: %s", strerror(errno));
			return 1;
		}
		if (!pid)
			_exit(churn_process(i, nthreads, seconds));
	}
	for (i = 0; i < nprocs; i++) {
		pid = wait(&status);
		if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	ok(!bad, "%d processes finished cleanly", nprocs);
	return bad || failures ? 1 : 0;
}

/* ---- QPN reuse (-R) ---- */

/* libibverbs' private ABI, which the provider calls; see the top. */
int ibv_cmd_destroy_qp(struct ibv_qp *qp);

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ibv_qp *victim;	/* the destroy to hold up */
	int stage;		/* 1: destroyed in the kernel, 2: Y created */
	bool held_back;		/* Y's create did not return meanwhile */
	struct dev *d;
	struct side y;
} reuse = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void reuse_wait(int stage, int seconds)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += seconds;
	while (reuse.stage < stage &&
	       pthread_cond_timedwait(&reuse.cond, &reuse.lock, &ts) != ETIMEDOUT)
		;
}

int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	static int (*real)(struct ibv_qp *qp);
	int ret;

	if (!real)
		real = (int (*)(struct ibv_qp *))dlsym(RTLD_NEXT,
						       "ibv_cmd_destroy_qp");
	if (!real)
		return ENOSYS;
	ret = real(qp);
	if (ret || qp != reuse.victim)
		return ret;

	pthread_mutex_lock(&reuse.lock);
	reuse.stage = 1;
	pthread_cond_broadcast(&reuse.cond);
	reuse_wait(2, 3);
	reuse.held_back = reuse.stage < 2;
	pthread_mutex_unlock(&reuse.lock);
	return ret;
}

static void *reuse_creator(void *arg)
{
	int err;

	(void)arg;
	pthread_mutex_lock(&reuse.lock);
	reuse_wait(1, timeout_s);
	pthread_mutex_unlock(&reuse.lock);

	err = side_create(reuse.d, &reuse.y, 4 * MAX_MSGS, false);
	if (err)
		diag("reuse: creating QP Y: %s", strerror(err));

	pthread_mutex_lock(&reuse.lock);
	reuse.stage = 2;
	pthread_cond_broadcast(&reuse.cond);
	pthread_mutex_unlock(&reuse.lock);
	return NULL;
}

static int run_reuse(void)
{
	struct side x = {}, z = {};
	struct ibv_mr *mr;
	pthread_t th;
	uint32_t qpn;
	uint8_t *buf;
	char why[256] = "";
	struct dev d;
	int err;

	err = dev_open(&d);
	if (err || posix_memalign((void **)&buf, 4096, BUF_SIZE)) {
		ok(false, "reuse: open the device: %s", strerror(err));
		dev_close(&d);
		return 1;
	}
	mr = ibv_reg_mr(d.pd, buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	err = mr ? side_create(&d, &x, 4 * MAX_MSGS, false) : errno;
	if (err) {
		ok(false, "reuse: create QP X: %s", strerror(err));
		return 1;
	}
	qpn = x.qp->qp_num;
	reuse.d = &d;
	reuse.victim = x.qp;
	pthread_create(&th, NULL, reuse_creator, NULL);
	err = ibv_destroy_qp(x.qp);
	x.qp = NULL;
	pthread_join(th, NULL);
	reuse.victim = NULL;
	side_destroy(&x, false);
	ok(!err && reuse.y.qp, "reuse: QP X (%u) destroyed while QP Y was created (%s, %s)",
	   qpn, err ? strerror(err) : "destroyed",
	   reuse.y.qp ? "created" : "not created");
	if (err || !reuse.y.qp)
		return 1;
	diag("QP Y's create %s until X's destroy was complete",
	     reuse.held_back ? "was held back" : "returned before it waited");
	ok(reuse.y.qp->qp_num != qpn,
	   "reuse: QP Y is given a new qpn (%u), not X's just-freed %u",
	   reuse.y.qp->qp_num, qpn);

	/* Y talks to a third QP; each of Y's completions must reach it. */
	reuse.y.sbuf = buf;
	reuse.y.rbuf = buf + REGION;
	z.sbuf = buf + 2 * REGION;
	z.rbuf = buf + 3 * REGION;
	err = side_create(&d, &z, 4 * MAX_MSGS, false);
	if (!err)
		err = pair_connect(&d, &reuse.y, &z);
	if (!err)
		err = exchange(mr, &reuse.y, &z, MAX_MSGS, 512, 42, why,
			       sizeof(why));
	else
		snprintf(why, sizeof(why), "connecting: %s", strerror(err));
	if (err)
		diag("%s", why);
	ok(!err, "reuse: QP Y, qpn %u, created while X (%u) was being destroyed, gets all %d of its completions",
	   reuse.y.qp->qp_num, qpn, 2 * MAX_MSGS);
	side_destroy(&reuse.y, false);
	side_destroy(&z, false);
	ibv_dereg_mr(mr);
	free(buf);
	dev_close(&d);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	int nprocs = 2, nthreads = 3, seconds = 30, opt;
	bool reuse_mode = false;

	while ((opt = getopt(argc, argv, "RP:T:s:d:g:t:")) != -1) {
		switch (opt) {
		case 'R':
			reuse_mode = true;
			break;
		case 'P':
			nprocs = atoi(optarg);
			break;
		case 'T':
			nthreads = atoi(optarg);
			break;
		case 's':
			seconds = atoi(optarg);
			break;
		case 'd':
			dev_name = optarg;
			break;
		case 'g':
			gid_arg = atoi(optarg);
			break;
		case 't':
			timeout_s = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-R] [-P PROCS] [-T THREADS] [-s SECONDS] [-d DEV] [-g GID] [-t SECONDS]\n",
				argv[0]);
			return 2;
		}
	}
	if (nprocs < 1 || nthreads < 1 || nthreads > MAX_THREADS ||
	    seconds < 1) {
		fprintf(stderr, "%s: 1 or more processes, 1..%d threads, 1 s or more\n",
			argv[0], MAX_THREADS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return reuse_mode ? run_reuse() : run_churn(nprocs, nthreads, seconds);
}
