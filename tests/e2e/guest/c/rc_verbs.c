// SPDX-License-Identifier: GPL-2.0
/*
 * rocx_verbs_test - verbs checks of the rocx provider and device.
 *
 *   rocx_verbs_test -c              control path: objects and error codes
 *   rocx_verbs_test -L              data path, two QPs of one device
 *   rocx_verbs_test -S              data path, passive side (a server)
 *   rocx_verbs_test -C HOST         data path, active side against -S
 *   rocx_verbs_test -C HOST -X      transfers only: WRITE, READ and SEND of
 *                                   1 B to 1 MiB, one at a time and several
 *                                   in flight, every byte checked (for a
 *                                   lossy fabric: tests/e2e/guest/lossy.sh)
 *   rocx_verbs_test -H              hold connected QPs, CQs and MRs until
 *                                   SIGUSR1, then use and release them
 *                                   (the device may be gone by then)
 *   rocx_verbs_test -M -m MTU       two QPs of one device at path MTU MTU
 *                                   until SIGUSR1, sent once the netdev
 *                                   MTU is too small for it: both must
 *                                   have failed, and a new QP must refuse
 *                                   that path MTU
 * Options: -d DEV (default: the first rocx device), -g GID_INDEX (default:
 * the first RoCE v2 IPv4 GID), -p PORT (TCP port, default 18600), -m MTU
 * (256..4096, default 1024), -t SECONDS (completion timeout, default 30).
 * Each QP's initial PSN is random from a seed printed at the start, which
 * ROCX_RC_SEED=N in the environment sets instead.
 *
 * Prints one TAP-style line per check, "ok - verbs: ..." or "not ok -
 * verbs: ...", and exits 1 if any failed.  On a device without the RDMA
 * transport objects (contract 1.0: query_device reports max_mr 0) the
 * object checks expect EOPNOTSUPP and the data path checks are skipped;
 * reg_mr's EOPNOTSUPP from a device that reports MRs is a failure.
 *
 * The data path checks run on the active side; what they need done on the
 * other end (post receives, fill or check memory, destroy its QP) are
 * requests to the peer, carried out in-process by -L and over TCP by -C.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define BUF_SIZE	(4u << 20)	/* each side's registered buffer */
#define HALF		(BUF_SIZE / 2)
#define MIB		(1u << 20)
#define QP_DEPTH	64
#define CQ_DEPTH	256

static int failures;
static int timeout_s = 30;

static void ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	printf("%s - verbs: ", pass ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!pass)
		failures++;
}

static void skip(const char *what, const char *why)
{
	printf("ok - verbs: %s # SKIP %s\n", what, why);
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("not ok - verbs: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/* ---- Patterns ---- */

static uint8_t pat(uint32_t seed, size_t i)
{
	return (uint8_t)(seed * 131 + i * 7 + (i >> 9) + (i >> 17));
}

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seed, i);
}

/* Offset of the first wrong byte, or -1. */
static long check(const uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seed, i))
			return (long)i;
	return -1;
}

/* ---- Device ---- */

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	uint32_t max_inline;	/* of a QP as ep_create makes them */
};

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		die("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; list[i]; i++) {
		const char *n = ibv_get_device_name(list[i]);

		if (name ? !strcmp(n, name) : !strncmp(n, "rocx", 4)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	}
	ibv_free_device_list(list);
	return ctx;
}

static bool gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

/* The first RoCE v2 GID holding an IPv4 address. */
static int pick_gid(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int i;

	if (ibv_query_port(ctx, 1, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_v4(&e.gid))
			return i;
	}
	return -1;
}

static void dev_open(struct dev *d, const char *name, int gid_index,
		     enum ibv_mtu mtu)
{
	d->ctx = open_dev(name);
	if (!d->ctx)
		die("no rocx device %s", name ? name : "");
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	d->ch = ibv_create_comp_channel(d->ctx);
	if (!d->ch)
		die("ibv_create_comp_channel: %s", strerror(errno));
	d->mtu = mtu;
	d->gid_index = gid_index;
}

static void dev_gid(struct dev *d)
{
	if (d->gid_index < 0)
		d->gid_index = pick_gid(d->ctx);
	if (d->gid_index < 0)
		die("no RoCE v2 IPv4 GID (is an address configured?)");
	if (ibv_query_gid(d->ctx, 1, d->gid_index, &d->gid))
		die("ibv_query_gid %d: %s", d->gid_index, strerror(errno));
}

static void dev_close(struct dev *d)
{
	ibv_destroy_comp_channel(d->ch);
	ibv_dealloc_pd(d->pd);
	ibv_close_device(d->ctx);
}

/* ---- Endpoints: one side of an RC connection ---- */

struct ep {
	struct dev *d;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t psn;
};

/* What one side tells the other to connect (network byte order inside). */
struct ep_info {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t pad;
	uint64_t addr;
	uint8_t gid[16];
};

static int ep_create(struct dev *d, struct ep *e, int cq_depth)
{
	struct ibv_qp_init_attr init = {
		.cap = {
			.max_send_wr = QP_DEPTH,
			.max_recv_wr = QP_DEPTH,
			.max_send_sge = 4,
			.max_recv_sge = 4,
			.max_inline_data = 64,
		},
		.qp_type = IBV_QPT_RC,
	};

	memset(e, 0, sizeof(*e));
	e->d = d;
	if (posix_memalign((void **)&e->buf, 4096, BUF_SIZE))
		return ENOMEM;
	memset(e->buf, 0, BUF_SIZE);
	e->mr = ibv_reg_mr(d->pd, e->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!e->mr)
		return errno;
	e->scq = ibv_create_cq(d->ctx, cq_depth, NULL, d->ch, 0);
	e->rcq = ibv_create_cq(d->ctx, CQ_DEPTH, NULL, d->ch, 0);
	if (!e->scq || !e->rcq)
		return errno;
	init.send_cq = e->scq;
	init.recv_cq = e->rcq;
	e->qp = ibv_create_qp(d->pd, &init);
	if (!e->qp)
		return errno;
	d->max_inline = init.cap.max_inline_data;
	e->psn = (uint32_t)random() & 0xffffff;
	/* With the seed (main) the PSN a failure started from is known. */
	diag("QP 0x%x: initial PSN 0x%06x", e->qp->qp_num, e->psn);
	return 0;
}

static void ep_destroy_qp(struct ep *e)
{
	if (e->qp && ibv_destroy_qp(e->qp))
		diag("ibv_destroy_qp: %s", strerror(errno));
	e->qp = NULL;
}

static void ep_destroy(struct ep *e)
{
	ep_destroy_qp(e);
	if (e->scq)
		ibv_destroy_cq(e->scq);
	if (e->rcq)
		ibv_destroy_cq(e->rcq);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	free(e->buf);
	memset(e, 0, sizeof(*e));
}

static void ep_info(const struct ep *e, struct ep_info *info)
{
	memset(info, 0, sizeof(*info));
	info->qpn = htonl(e->qp->qp_num);
	info->psn = htonl(e->psn);
	info->rkey = htonl(e->mr->rkey);
	info->addr = htobe64((uintptr_t)e->buf);
	memcpy(info->gid, e->d->gid.raw, 16);
}

/* What a QP lets its peer do unless a check asks for less. */
#define EP_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* RESET -> INIT -> RTR -> RTS towards @r; @access: the QP's access flags. */
static int ep_connect(struct ep *e, const struct ep_info *r, uint8_t timeout,
		      uint8_t retry_cnt, unsigned int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = access,
	};
	int err;

	err = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = e->d->mtu;
	a.dest_qp_num = ntohl(r->qpn);
	a.rq_psn = ntohl(r->psn);
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = e->d->gid_index;
	memcpy(a.ah_attr.grh.dgid.raw, r->gid, 16);
	err = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = timeout;
	a.retry_cnt = retry_cnt;
	a.rnr_retry = 7;
	a.sq_psn = e->psn;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Wait for @n completions on @cq; returns how many arrived. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	uint64_t end = now_ms() + timeout_s * 1000ull;
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0) {
			diag("ibv_poll_cq: %d", r);
			break;
		}
		got += r;
		if (!r) {
			if (now_ms() > end)
				break;
			usleep(200);
		}
	}
	return got;
}

/* Nothing more arrives on @cq within @ms. */
static bool cq_quiet(struct ibv_cq *cq, int ms)
{
	uint64_t end = now_ms() + ms;
	struct ibv_wc wc;

	while (now_ms() < end) {
		if (ibv_poll_cq(cq, 1, &wc)) {
			diag("unexpected completion: wr_id %llu status %s",
			     (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status));
			return false;
		}
		usleep(1000);
	}
	return true;
}

static int post_recv(struct ep *e, uint64_t wr_id, size_t off, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + off,
		.length = len,
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

static int post_send(struct ep *e, uint64_t wr_id, enum ibv_wr_opcode op,
		     size_t off, size_t len, uint64_t raddr, uint32_t rkey,
		     uint32_t imm, unsigned int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + off,
		.length = len,
		.lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = flags,
		.imm_data = htonl(imm),
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	return ibv_post_send(e->qp, &wr, &bad);
}

/* ---- The peer: in this process (-L) or over TCP (-C/-S) ---- */

enum peer_op {
	PEER_CONNECT = 1,	/* new QP: timeout, retry_cnt, access */
	PEER_FILL,		/* off, len, seed */
	PEER_CHECK,		/* off, len, seed */
	PEER_RECV,		/* post count receives of len at off + i * len */
	PEER_WAIT_RECV,		/* count completions: len, seed, imm, flags */
	PEER_DESTROY_QP,
	PEER_WAIT_ASYNC,	/* an async event of type opcode for the QP */
	PEER_QUIT,
};

struct peer_req {
	uint32_t op;
	uint32_t count;
	uint32_t seed;
	uint32_t imm;
	uint64_t off;
	uint64_t len;
	uint32_t flags;		/* WAIT_RECV: expected wc_flags; CONNECT: timeout */
	uint32_t opcode;	/* WAIT_RECV: expected opcode; CONNECT: retry */
	uint32_t access;	/* CONNECT: the new QP's access flags */
	uint32_t pad;
	struct ep_info info;	/* CONNECT: the active side's */
};

struct peer_resp {
	int32_t status;		/* 0: done as asked */
	uint32_t pad;
	struct ep_info info;	/* CONNECT: the passive side's */
};

struct peer {
	int fd;			/* -1: in this process */
	struct dev *d;
	struct ep e;
};

static int xfer(int fd, void *p, size_t len, bool out)
{
	uint8_t *b = p;
	ssize_t n;

	while (len) {
		n = out ? write(fd, b, len) : read(fd, b, len);
		if (n <= 0)
			return -1;
		b += n;
		len -= n;
	}
	return 0;
}

/*
 * Wait for an async event of @type for @obj (a QP, or a CQ for CQ events),
 * passing over port events.
 */
static int wait_async(struct dev *d, void *obj, uint32_t type)
{
	struct pollfd pfd = { .fd = d->ctx->async_fd, .events = POLLIN };
	uint64_t end = now_ms() + timeout_s * 1000ull;
	struct ibv_async_event ev;
	int err = ETIMEDOUT;
	int64_t left;

	while (err == ETIMEDOUT && (left = end - now_ms()) > 0) {
		if (poll(&pfd, 1, left) != 1 ||
		    ibv_get_async_event(d->ctx, &ev))
			continue;
		switch (ev.event_type) {
		case IBV_EVENT_PORT_ACTIVE:
		case IBV_EVENT_PORT_ERR:
		case IBV_EVENT_GID_CHANGE:
			break;
		case IBV_EVENT_CQ_ERR:
			err = type == ev.event_type && ev.element.cq == obj ?
			      0 : EIO;
			break;
		default:
			err = type == ev.event_type && ev.element.qp == obj ?
			      0 : EIO;
		}
		if (err == EIO)
			diag("async event %s, want %s",
			     ibv_event_type_str(ev.event_type),
			     ibv_event_type_str(type));
		ibv_ack_async_event(&ev);
	}
	return err;
}

/* Carry out @q on the passive side's endpoint. */
static int peer_do(struct dev *d, struct ep *e, const struct peer_req *q,
		   struct peer_resp *r)
{
	struct ibv_wc wc[QP_DEPTH];
	uint32_t i;
	long bad;
	int n;

	memset(r, 0, sizeof(*r));
	switch (q->op) {
	case PEER_CONNECT:
		ep_destroy(e);
		r->status = ep_create(d, e, CQ_DEPTH);
		if (r->status)
			break;
		ep_info(e, &r->info);
		r->status = ep_connect(e, &q->info, q->flags, q->opcode,
				       q->access);
		break;
	case PEER_FILL:
		fill(e->buf + q->off, q->len, q->seed);
		break;
	case PEER_CHECK:
		bad = check(e->buf + q->off, q->len, q->seed);
		if (bad >= 0) {
			diag("peer: byte %ld of %llu is %#x, want %#x", bad,
			     (unsigned long long)q->len, e->buf[q->off + bad],
			     pat(q->seed, bad));
			r->status = EIO;
		}
		break;
	case PEER_RECV:
		for (i = 0; i < q->count && !r->status; i++)
			r->status = post_recv(e, 1000 + i, q->off + i * q->len,
					      q->len);
		break;
	case PEER_WAIT_RECV:
		n = poll_n(e->rcq, wc, q->count);
		if (n != (int)q->count) {
			diag("peer: %d of %u receive completions", n, q->count);
			r->status = ETIMEDOUT;
			break;
		}
		for (i = 0; i < q->count; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].opcode != q->opcode ||
			    wc[i].byte_len != q->len ||
			    (wc[i].wc_flags & IBV_WC_WITH_IMM) != q->flags ||
			    ((q->flags & IBV_WC_WITH_IMM) &&
			     ntohl(wc[i].imm_data) != q->imm) ||
			    wc[i].qp_num != e->qp->qp_num) {
				diag("peer: recv %u: status %s opcode %d len %u flags %#x imm %#x qpn %u",
				     i, ibv_wc_status_str(wc[i].status),
				     wc[i].opcode, wc[i].byte_len,
				     wc[i].wc_flags, ntohl(wc[i].imm_data),
				     wc[i].qp_num);
				r->status = EIO;
			}
		}
		break;
	case PEER_DESTROY_QP:
		ep_destroy_qp(e);
		break;
	case PEER_WAIT_ASYNC:
		r->status = wait_async(d, e->qp, q->opcode);
		break;
	default:
		r->status = EINVAL;
	}
	return r->status;
}

static int peer_req(struct peer *p, const struct peer_req *q,
		    struct peer_resp *r)
{
	if (p->fd < 0)
		return peer_do(p->d, &p->e, q, r);
	if (xfer(p->fd, (void *)q, sizeof(*q), true) ||
	    xfer(p->fd, r, sizeof(*r), false))
		die("connection to the peer lost");
	return r->status;
}

static int peer_simple(struct peer *p, enum peer_op op, uint64_t off,
		       uint64_t len, uint32_t seed, uint32_t count)
{
	struct peer_req q = {
		.op = op, .off = off, .len = len, .seed = seed, .count = count,
	};
	struct peer_resp r;

	return peer_req(p, &q, &r);
}

static int peer_wait_recv(struct peer *p, uint32_t count, uint64_t len,
			  enum ibv_wc_opcode opcode, bool imm, uint32_t immv)
{
	struct peer_req q = {
		.op = PEER_WAIT_RECV, .count = count, .len = len,
		.opcode = opcode, .flags = imm ? IBV_WC_WITH_IMM : 0,
		.imm = immv,
	};
	struct peer_resp r;

	return peer_req(p, &q, &r);
}

static int peer_async(struct peer *p, enum ibv_event_type type)
{
	struct peer_req q = { .op = PEER_WAIT_ASYNC, .opcode = type };
	struct peer_resp r;

	return peer_req(p, &q, &r);
}

/*
 * Fresh QPs on both sides, connected; @r gets the peer's info.  Our send
 * CQ holds @cq_depth entries; the peer's QP has access flags
 * @peer_access.
 */
static int connect_pair_access(struct peer *p, struct ep *e,
			       struct ep_info *r, uint8_t timeout,
			       uint8_t retry_cnt, int cq_depth,
			       unsigned int peer_access)
{
	struct peer_req q = {
		.op = PEER_CONNECT, .flags = timeout, .opcode = retry_cnt,
		.access = peer_access,
	};
	struct peer_resp resp;
	int err;

	ep_destroy(e);
	err = ep_create(p->d, e, cq_depth);
	if (err)
		return err;
	ep_info(e, &q.info);
	err = peer_req(p, &q, &resp);
	if (err)
		return err;
	*r = resp.info;
	return ep_connect(e, r, timeout, retry_cnt, EP_ACCESS);
}

static int connect_pair_cq(struct peer *p, struct ep *e, struct ep_info *r,
			   uint8_t timeout, uint8_t retry_cnt, int cq_depth)
{
	return connect_pair_access(p, e, r, timeout, retry_cnt, cq_depth,
				   EP_ACCESS);
}

static int connect_pair(struct peer *p, struct ep *e, struct ep_info *r,
			uint8_t timeout, uint8_t retry_cnt)
{
	return connect_pair_cq(p, e, r, timeout, retry_cnt, CQ_DEPTH);
}

/* ---- Data path checks (active side) ---- */

static bool send_done(struct ep *e, uint64_t wr_id, enum ibv_wc_opcode op,
		      enum ibv_wc_status want)
{
	struct ibv_wc wc;

	if (poll_n(e->scq, &wc, 1) != 1) {
		diag("no send completion for wr_id %llu",
		     (unsigned long long)wr_id);
		return false;
	}
	if (wc.status != want || wc.wr_id != wr_id ||
	    (want == IBV_WC_SUCCESS && wc.opcode != op) ||
	    wc.qp_num != e->qp->qp_num) {
		diag("send completion: wr_id %llu status %s (vendor %u) opcode %d qpn %u; want wr_id %llu %s opcode %d",
		     (unsigned long long)wc.wr_id,
		     ibv_wc_status_str(wc.status), wc.vendor_err, wc.opcode,
		     wc.qp_num, (unsigned long long)wr_id,
		     ibv_wc_status_str(want), op);
		return false;
	}
	return true;
}

static void test_write(struct peer *p, struct ep *e, const struct ep_info *r,
		       size_t len, uint32_t seed)
{
	uint64_t raddr = be64toh(r->addr);
	bool pass;

	fill(e->buf, len, seed);
	pass = !post_send(e, 1, IBV_WR_RDMA_WRITE, 0, len, raddr,
			  ntohl(r->rkey), 0, IBV_SEND_SIGNALED) &&
	       send_done(e, 1, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS) &&
	       !peer_simple(p, PEER_CHECK, 0, len, seed, 0);
	ok(pass, "RDMA WRITE %zu bytes, pattern checked at the peer", len);
}

static void test_read(struct peer *p, struct ep *e, const struct ep_info *r,
		      size_t len, uint32_t seed)
{
	uint64_t raddr = be64toh(r->addr) + HALF;
	long bad = -1;
	bool pass;

	memset(e->buf + HALF, 0, len);
	pass = !peer_simple(p, PEER_FILL, HALF, len, seed, 0) &&
	       !post_send(e, 2, IBV_WR_RDMA_READ, HALF, len, raddr,
			  ntohl(r->rkey), 0, IBV_SEND_SIGNALED) &&
	       send_done(e, 2, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	if (pass) {
		bad = check(e->buf + HALF, len, seed);
		if (bad >= 0)
			diag("byte %ld read is %#x, want %#x", bad,
			     e->buf[HALF + bad], pat(seed, bad));
	}
	ok(pass && bad < 0, "RDMA READ %zu bytes, pattern checked", len);
}

static void test_send(struct peer *p, struct ep *e, size_t len, uint32_t seed,
		      bool imm, unsigned int flags, const char *what)
{
	bool pass;

	fill(e->buf, len, seed);
	pass = !peer_simple(p, PEER_RECV, 0, len, 0, 1) &&
	       !post_send(e, 3, imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, 0,
			  len, 0, 0, 0xc0ffee00 + seed,
			  IBV_SEND_SIGNALED | flags) &&
	       send_done(e, 3, IBV_WC_SEND, IBV_WC_SUCCESS) &&
	       !peer_wait_recv(p, 1, len, IBV_WC_RECV, imm,
			       0xc0ffee00 + seed) &&
	       !peer_simple(p, PEER_CHECK, 0, len, seed, 0);
	ok(pass, "%s %zu bytes, received and checked", what, len);
}

static void test_write_imm(struct peer *p, struct ep *e,
			   const struct ep_info *r, size_t len, uint32_t seed)
{
	bool pass;

	fill(e->buf, len, seed);
	pass = !peer_simple(p, PEER_RECV, HALF, 16, 0, 1) &&
	       !post_send(e, 4, IBV_WR_RDMA_WRITE_WITH_IMM, 0, len,
			  be64toh(r->addr), ntohl(r->rkey), 0x1234abcd,
			  IBV_SEND_SIGNALED) &&
	       send_done(e, 4, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS) &&
	       !peer_wait_recv(p, 1, len, IBV_WC_RECV_RDMA_WITH_IMM, true,
			       0x1234abcd) &&
	       !peer_simple(p, PEER_CHECK, 0, len, seed, 0);
	ok(pass, "RDMA WRITE with immediate %zu bytes: data and immediate",
	   len);
}

/* One WRITE gathering three pieces of local memory. */
static void test_sge_list(struct peer *p, struct ep *e,
			  const struct ep_info *r, uint32_t seed)
{
	static const size_t lens[3] = { 100, 4096, 3000 };
	static const size_t offs[3] = { 65536, 8192 + 7, 1 * MIB + 3 };
	struct ibv_sge sge[3];
	struct ibv_send_wr wr = {
		.wr_id = 5,
		.sg_list = sge,
		.num_sge = 3,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = be64toh(r->addr),
			     .rkey = ntohl(r->rkey) },
	}, *bad;
	uint8_t *whole = malloc(lens[0] + lens[1] + lens[2]);
	size_t i, at = 0;
	bool pass;

	fill(whole, lens[0] + lens[1] + lens[2], seed);
	for (i = 0; i < 3; i++) {
		memcpy(e->buf + offs[i], whole + at, lens[i]);
		sge[i].addr = (uintptr_t)e->buf + offs[i];
		sge[i].length = lens[i];
		sge[i].lkey = e->mr->lkey;
		at += lens[i];
	}
	pass = !ibv_post_send(e->qp, &wr, &bad) &&
	       send_done(e, 5, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS) &&
	       !peer_simple(p, PEER_CHECK, 0, at, seed, 0);
	free(whole);
	ok(pass, "RDMA WRITE gathering 3 SGEs (%zu bytes)", at);
}

/* Unsignalled WQEs complete silently and free their slots. */
static void test_unsignaled(struct peer *p, struct ep *e,
			    const struct ep_info *r, uint32_t seed)
{
	bool pass = true;
	int i, round;

	fill(e->buf, 4096, seed);
	/* Several times the SQ depth: slots must come back. */
	for (round = 0; round < 4 && pass; round++) {
		for (i = 0; i < QP_DEPTH - 1 && pass; i++)
			pass = !post_send(e, 100 + i, IBV_WR_RDMA_WRITE, 0, 4096,
					  be64toh(r->addr), ntohl(r->rkey), 0,
					  0);
		pass = pass && !post_send(e, 999, IBV_WR_RDMA_WRITE, 0, 4096,
					  be64toh(r->addr), ntohl(r->rkey), 0,
					  IBV_SEND_SIGNALED) &&
		       send_done(e, 999, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	}
	pass = pass && cq_quiet(e->scq, 200) &&
	       !peer_simple(p, PEER_CHECK, 0, 4096, seed, 0);
	ok(pass, "%d unsignalled WRITEs retired by signalled ones",
	   4 * (QP_DEPTH - 1));
}

/* A full SQ says ENOMEM; nothing is lost. */
static void test_sq_full(struct ep *e, const struct ep_info *r)
{
	int i, err = 0, posted = 0;
	struct ibv_wc wc[QP_DEPTH + 1];
	bool pass;

	for (i = 0; i < QP_DEPTH + 1 && !err; i++) {
		err = post_send(e, 200 + i, IBV_WR_RDMA_WRITE, 0, 64,
				be64toh(r->addr), ntohl(r->rkey), 0,
				IBV_SEND_SIGNALED);
		posted += !err;
	}
	pass = err == ENOMEM && posted >= QP_DEPTH;
	if (!pass)
		diag("posted %d, then %s", posted, strerror(err));
	pass = pass && poll_n(e->scq, wc, posted) == posted;
	for (i = 0; pass && i < posted; i++)
		pass = wc[i].status == IBV_WC_SUCCESS &&
		       wc[i].wr_id == (uint64_t)200 + i;
	ok(pass, "full SQ refuses post_send with ENOMEM, %d complete in order",
	   posted);
}

static void test_bad_rkey(struct peer *p, struct ep *e)
{
	struct ep_info r;
	bool pass;

	pass = !connect_pair(p, e, &r, 14, 7);
	pass = pass && !post_send(e, 6, IBV_WR_RDMA_WRITE, 0, 4096,
				  be64toh(r.addr), ntohl(r.rkey) ^ 0x5a00, 0,
				  IBV_SEND_SIGNALED) &&
	       send_done(e, 6, IBV_WC_RDMA_WRITE, IBV_WC_REM_ACCESS_ERR);
	ok(pass, "WRITE with a bad rkey completes with REM_ACCESS_ERR");
	ok(!peer_async(p, IBV_EVENT_QP_ACCESS_ERR),
	   "the peer's QP reports IBV_EVENT_QP_ACCESS_ERR");

	/* The same for a range beyond the region. */
	pass = !connect_pair(p, e, &r, 14, 7);
	pass = pass && !post_send(e, 7, IBV_WR_RDMA_READ, 0, 8192,
				  be64toh(r.addr) + BUF_SIZE - 4096,
				  ntohl(r.rkey), 0, IBV_SEND_SIGNALED) &&
	       send_done(e, 7, IBV_WC_RDMA_READ, IBV_WC_REM_ACCESS_ERR);
	ok(pass, "READ beyond the remote region completes with REM_ACCESS_ERR");
}

/*
 * A READ or WRITE to a QP whose access flags do not enable it is an
 * invalid request, not a remote access error: the R_Key and the region
 * are fine.
 */
static void test_not_enabled(struct peer *p, struct ep *e)
{
	struct ep_info r;
	bool pass;

	pass = !connect_pair_access(p, e, &r, 14, 7, CQ_DEPTH,
				    IBV_ACCESS_REMOTE_WRITE);
	pass = pass && !post_send(e, 8, IBV_WR_RDMA_READ, 0, 4096,
				  be64toh(r.addr), ntohl(r.rkey), 0,
				  IBV_SEND_SIGNALED) &&
	       send_done(e, 8, IBV_WC_RDMA_READ, IBV_WC_REM_INV_REQ_ERR);
	ok(pass, "READ to a QP without remote read completes with REM_INV_REQ_ERR");
	ok(!peer_async(p, IBV_EVENT_QP_REQ_ERR),
	   "the peer's QP reports IBV_EVENT_QP_REQ_ERR");

	pass = !connect_pair_access(p, e, &r, 14, 7, CQ_DEPTH,
				    IBV_ACCESS_REMOTE_READ);
	pass = pass && !post_send(e, 9, IBV_WR_RDMA_WRITE, 0, 4096,
				  be64toh(r.addr), ntohl(r.rkey), 0,
				  IBV_SEND_SIGNALED) &&
	       send_done(e, 9, IBV_WC_RDMA_WRITE, IBV_WC_REM_INV_REQ_ERR);
	ok(pass, "WRITE to a QP without remote write completes with REM_INV_REQ_ERR");
	ok(!peer_async(p, IBV_EVENT_QP_REQ_ERR),
	   "the peer's QP reports IBV_EVENT_QP_REQ_ERR");
}

/* Moving to ERR flushes everything outstanding, and what comes after. */
static void test_flush(struct peer *p, struct ep *e)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[8];
	struct ep_info r;
	bool pass;
	int i, n;

	pass = !connect_pair(p, e, &r, 14, 7);
	for (i = 0; i < 8 && pass; i++)
		pass = !post_recv(e, 300 + i, i * 4096, 4096);
	pass = pass && !ibv_modify_qp(e->qp, &a, IBV_QP_STATE);
	n = pass ? poll_n(e->rcq, wc, 8) : 0;
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_WR_FLUSH_ERR ||
		    wc[i].wr_id != (uint64_t)300 + i) {
			diag("flushed recv %d: wr_id %llu status %s", i,
			     (unsigned long long)wc[i].wr_id,
			     ibv_wc_status_str(wc[i].status));
			pass = false;
		}
	ok(pass && n == 8, "modify to ERR flushes 8 receives in order (%d)",
	   n);

	pass = !post_send(e, 400, IBV_WR_SEND, 0, 16, 0, 0, 0,
			  IBV_SEND_SIGNALED) &&
	       send_done(e, 400, IBV_WC_SEND, IBV_WC_WR_FLUSH_ERR);
	ok(pass, "a send posted in ERR completes with WR_FLUSH_ERR");
}

/*
 * The peer's QP disappears while WRITEs are in flight: nothing answers, the
 * requester retries, gives up with RETRY_EXC_ERR and flushes the rest.  One
 * more WRITE after the destruction makes sure something is left to fail.
 */
static void test_retry_exceeded(struct peer *p, struct ep *e)
{
	const int nwr = 17;
	struct ibv_wc wc[17];
	int i, n, ok_n = 0, retry = 0, flush = 0;
	struct ep_info r;
	bool pass, order = true;

	/* timeout 10: 4 ms (the device may round it up), 2 retries. */
	pass = !connect_pair(p, e, &r, 10, 2);
	fill(e->buf, MIB, 77);
	for (i = 0; i < nwr - 1 && pass; i++)
		pass = !post_send(e, 500 + i, IBV_WR_RDMA_WRITE, 0, 256 * 1024,
				  be64toh(r.addr), ntohl(r.rkey), 0,
				  IBV_SEND_SIGNALED);
	/* The transfer is under way once the first WRITE has completed. */
	n = pass ? poll_n(e->scq, wc, 1) : 0;
	pass = pass && n == 1 &&
	       !peer_simple(p, PEER_DESTROY_QP, 0, 0, 0, 0) &&
	       !post_send(e, 500 + i, IBV_WR_RDMA_WRITE, 0, 4096,
			  be64toh(r.addr), ntohl(r.rkey), 0, IBV_SEND_SIGNALED);
	n += pass ? poll_n(e->scq, wc + 1, nwr - 1) : 0;
	for (i = 0; i < n; i++) {
		if (wc[i].wr_id != (uint64_t)500 + i)
			order = false;
		switch (wc[i].status) {
		case IBV_WC_SUCCESS:
			order = order && !retry && !flush;
			ok_n++;
			break;
		case IBV_WC_RETRY_EXC_ERR:
			order = order && !flush;
			retry++;
			break;
		case IBV_WC_WR_FLUSH_ERR:
			flush++;
			break;
		default:
			order = false;
		}
	}
	if (n != nwr || retry != 1 || !order)
		diag("%d completions: %d ok, %d retry exceeded, %d flushed%s",
		     n, ok_n, retry, flush, order ? "" : ", out of order");
	ok(pass && n == nwr && retry == 1 && order,
	   "peer QP destroyed mid-transfer: RETRY_EXC_ERR after %d WRITEs, %d flushed",
	   ok_n, flush);
}

/*
 * Completions the application does not poll overflow a CQ of 2: the device
 * stops the CQ, says so, and moves its QP to the error state.
 */
static void test_cq_overflow(struct peer *p, struct ep *e)
{
	struct ep_info r;
	bool pass;
	int i;

	pass = !connect_pair_cq(p, e, &r, 14, 7, 2);
	for (i = 0; i < 4 && pass; i++)
		pass = !post_send(e, 600 + i, IBV_WR_RDMA_WRITE, 0, 64,
				  be64toh(r.addr), ntohl(r.rkey), 0,
				  IBV_SEND_SIGNALED);
	ok(pass && !wait_async(e->d, e->scq, IBV_EVENT_CQ_ERR),
	   "4 completions on a CQ of 2 raise IBV_EVENT_CQ_ERR");
	ok(pass && !wait_async(e->d, e->qp, IBV_EVENT_QP_FATAL),
	   "and IBV_EVENT_QP_FATAL for the QP using it");
}

/* A completion event through the channel, after req_notify_cq. */
static void test_event(struct peer *p, struct ep *e, const struct ep_info *r)
{
	struct pollfd pfd = { .fd = e->d->ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq = NULL;
	void *ev_ctx;
	bool pass;

	(void)p;
	pass = !ibv_req_notify_cq(e->scq, 0) &&
	       !post_send(e, 8, IBV_WR_RDMA_WRITE, 0, 64, be64toh(r->addr),
			  ntohl(r->rkey), 0, IBV_SEND_SIGNALED) &&
	       poll(&pfd, 1, timeout_s * 1000) == 1 &&
	       !ibv_get_cq_event(e->d->ch, &ev_cq, &ev_ctx) && ev_cq == e->scq;
	if (ev_cq)
		ibv_ack_cq_events(ev_cq, 1);
	pass = pass && send_done(e, 8, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	ok(pass, "req_notify_cq: the completion raises a channel event");
}

static void run_data(struct peer *p)
{
	static const size_t sizes[] = { 1, 4096, MIB };
	struct ep e = {};
	struct ep_info r;
	unsigned int i;
	int err;

	err = connect_pair(p, &e, &r, 14, 7);
	ok(!err, "connect two RC QPs (%s)", err ? strerror(err) : "RTS");
	if (err)
		return;
	for (i = 0; i < 3; i++)
		test_write(p, &e, &r, sizes[i], 10 + i);
	for (i = 0; i < 3; i++)
		test_read(p, &e, &r, sizes[i], 20 + i);
	for (i = 0; i < 3; i++)
		test_send(p, &e, sizes[i], 30 + i, false, 0, "SEND");
	test_send(p, &e, 4096, 40, true, 0, "SEND with immediate");
	if (e.d->max_inline >= 64)
		test_send(p, &e, 64, 41, false, IBV_SEND_INLINE, "inline SEND");
	else
		skip("inline SEND", "no inline data");
	test_write_imm(p, &e, &r, 4096, 50);
	test_sge_list(p, &e, &r, 60);
	test_unsignaled(p, &e, &r, 70);
	test_sq_full(&e, &r);
	test_event(p, &e, &r);
	test_bad_rkey(p, &e);
	test_not_enabled(p, &e);
	test_flush(p, &e);
	test_retry_exceeded(p, &e);
	test_cq_overflow(p, &e);
	ep_destroy(&e);
}

/* Check @n completions in @wc: in order from @wr_id, successful, of @op. */
static bool burst_done(const struct ibv_wc *wc, int n, uint64_t wr_id,
		       enum ibv_wc_opcode op)
{
	int i;

	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != op ||
		    wc[i].wr_id != wr_id + i) {
			diag("completion %d: wr_id %llu status %s opcode %d; want wr_id %llu",
			     i, (unsigned long long)wc[i].wr_id,
			     ibv_wc_status_str(wc[i].status), wc[i].opcode,
			     (unsigned long long)(wr_id + i));
			return false;
		}
	return true;
}

/* All @n completions of a burst on @cq, or a comment on how many came. */
static bool burst_polled(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	int got = poll_n(cq, wc, n);

	if (got != n)
		diag("%d of %d send completions in %d s", got, n, timeout_s);
	return got == n;
}

/* A peer request of a burst, with a comment if the peer refused it. */
static bool burst_peer(struct peer *p, enum peer_op op, uint64_t off,
		       uint64_t len, uint32_t seed, uint32_t count)
{
	int err = peer_simple(p, op, off, len, seed, count);

	if (err)
		diag("peer request %d failed: %s", op, strerror(err));
	return !err;
}

/*
 * Several messages in flight at once, so that a loss or a reordering on
 * the fabric hits one while others follow it: the requester must resend
 * from the lost packet across WQEs, and complete them all in order.
 */
static void test_burst(struct peer *p, struct ep *e, const struct ep_info *r,
		       uint32_t seed)
{
	enum { N = 16, WLEN = 64 * 1024, SLEN = 4096, RLEN = 64 * 1024 };
	uint64_t raddr = be64toh(r->addr);
	struct ibv_wc wc[N];
	long bad = -1;
	bool pass = true;
	int i;

	fill(e->buf, N * WLEN, seed);
	for (i = 0; i < N && pass; i++)
		pass = !post_send(e, 600 + i, IBV_WR_RDMA_WRITE, i * WLEN, WLEN,
				  raddr + i * WLEN, ntohl(r->rkey), 0,
				  IBV_SEND_SIGNALED);
	pass = pass && burst_polled(e->scq, wc, N) &&
	       burst_done(wc, N, 600, IBV_WC_RDMA_WRITE) &&
	       burst_peer(p, PEER_CHECK, 0, N * WLEN, seed, 0);
	ok(pass, "%d RDMA WRITEs of %d KiB in flight, pattern checked at the peer",
	   N, WLEN / 1024);

	fill(e->buf, N * SLEN, seed + 1);
	pass = burst_peer(p, PEER_RECV, 0, SLEN, 0, N);
	for (i = 0; i < N && pass; i++)
		pass = !post_send(e, 700 + i, IBV_WR_SEND, i * SLEN, SLEN, 0, 0,
				  0, IBV_SEND_SIGNALED);
	pass = pass && burst_polled(e->scq, wc, N) &&
	       burst_done(wc, N, 700, IBV_WC_SEND) &&
	       !peer_wait_recv(p, N, SLEN, IBV_WC_RECV, false, 0) &&
	       burst_peer(p, PEER_CHECK, 0, N * SLEN, seed + 1, 0);
	ok(pass, "%d SENDs of %d KiB in flight, received in order and checked",
	   N, SLEN / 1024);

	memset(e->buf + HALF, 0, N * RLEN);
	pass = burst_peer(p, PEER_FILL, HALF, N * RLEN, seed + 2, 0);
	for (i = 0; i < N && pass; i++)
		pass = !post_send(e, 800 + i, IBV_WR_RDMA_READ, HALF + i * RLEN,
				  RLEN, raddr + HALF + i * RLEN, ntohl(r->rkey),
				  0, IBV_SEND_SIGNALED);
	pass = pass && burst_polled(e->scq, wc, N) &&
	       burst_done(wc, N, 800, IBV_WC_RDMA_READ);
	if (pass) {
		bad = check(e->buf + HALF, N * RLEN, seed + 2);
		if (bad >= 0)
			diag("byte %ld read is %#x, want %#x", bad,
			     e->buf[HALF + bad], pat(seed + 2, bad));
	}
	ok(pass && bad < 0, "%d RDMA READs of %d KiB in flight, pattern checked",
	   N, RLEN / 1024);
}

/* -X: transfers of every kind and many sizes, each byte checked. */
static void run_xfer(struct peer *p)
{
	static const size_t sizes[] = {
		1, 64, 1023, 1024, 1025, 4096, 65536 + 7, 262144, MIB,
	};
	struct ep e = {};
	struct ep_info r;
	unsigned int i;
	int err;

	err = connect_pair(p, &e, &r, 14, 7);
	ok(!err, "connect two RC QPs (%s)", err ? strerror(err) : "RTS");
	if (err)
		return;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		test_write(p, &e, &r, sizes[i], 100 + i);
		test_read(p, &e, &r, sizes[i], 200 + i);
		test_send(p, &e, sizes[i], 300 + i, false, 0, "SEND");
	}
	test_write_imm(p, &e, &r, 65536, 400);
	test_burst(p, &e, &r, 500);
	ep_destroy(&e);
}

/* ---- Control path checks ---- */

static bool want_errno(const void *obj, int want, const char *what)
{
	int err = obj ? 0 : errno;

	if (obj || err != want)
		diag("%s: %s, want %s", what, obj ? "succeeded" : strerror(err),
		     strerror(want));
	return !obj && err == want;
}

/*
 * IBV_ACCESS_MW_BIND: allowed exactly when the device has memory windows
 * (contract 1.2, ROCX_CAP2_MW), EOPNOTSUPP otherwise.
 */
static void test_mw_bind_access(struct dev *d)
{
	struct ibv_device_attr da;
	struct ibv_mr *mr;
	void *buf;
	bool mw;

	/*
	 * Memory of its own: the caller's buffer has an MR already, and a
	 * second DMA mapping of the same pages is what the debug kernel's
	 * DMA-API checks report (overlapping mappings).
	 */
	if (posix_memalign(&buf, 4096, MIB))
		die("no memory");
	mw = !ibv_query_device(d->ctx, &da) &&
	     (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW);
	mr = ibv_reg_mr(d->pd, buf, MIB, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_MW_BIND);
	if (mw) {
		ok(mr != NULL, "reg_mr: memory window binding, the device has "
		   "windows (%s)", mr ? "ok" : strerror(errno));
	} else {
		ok(want_errno(mr, EOPNOTSUPP, "reg_mr MW_BIND"),
		   "reg_mr: memory window binding is EOPNOTSUPP without windows");
	}
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
}

/*
 * SRQs as query_device says: one of max_srq_wr entries and max_srq_sge
 * SGEs is created and holds them, one entry more is refused.
 */
static void test_srq_limits(struct dev *d)
{
	struct ibv_srq_init_attr sa = {};
	struct ibv_device_attr da;
	struct ibv_srq *srq = NULL, *big = NULL;
	bool held = false;
	int err;

	err = ibv_query_device(d->ctx, &da);
	if (!err && da.max_srq > 0 && da.max_srq_wr > 0) {
		sa.attr.max_wr = da.max_srq_wr;
		sa.attr.max_sge = da.max_srq_sge;
		srq = ibv_create_srq(d->pd, &sa);
		held = srq && sa.attr.max_wr >= (uint32_t)da.max_srq_wr &&
		       sa.attr.max_sge >= (uint32_t)da.max_srq_sge;
		sa.attr.max_wr = da.max_srq_wr + 1;
		sa.attr.max_sge = 1;
		big = ibv_create_srq(d->pd, &sa);
	}
	ok(!err && held && want_errno(big, EINVAL, "create_srq beyond max_srq_wr"),
	   "SRQs: max_srq %d, one of max_srq_wr %d entries of max_srq_sge %d SGEs, none larger",
	   err ? -1 : da.max_srq, err ? -1 : da.max_srq_wr,
	   err ? -1 : da.max_srq_sge);
	if (srq)
		ibv_destroy_srq(srq);
	if (big)
		ibv_destroy_srq(big);
}

/*
 * Every CQ size up to the max_cqe query_device reports is taken and holds
 * what was asked for, whatever ring the provider makes of it.
 */
static void test_cq_sizes(struct dev *d)
{
	struct ibv_device_attr da;
	int sizes[8], i, bad = 0;
	struct ibv_cq *cq;

	if (ibv_query_device(d->ctx, &da)) {
		ok(false, "query_device: %s", strerror(errno));
		return;
	}
	sizes[0] = 1;
	sizes[1] = 2;
	sizes[2] = 15;
	sizes[3] = 16;
	sizes[4] = 17;
	sizes[5] = da.max_cqe / 2;
	sizes[6] = da.max_cqe / 2 + 1;
	sizes[7] = da.max_cqe;
	for (i = 0; i < 8; i++) {
		cq = ibv_create_cq(d->ctx, sizes[i], NULL, NULL, 0);
		if (!cq || cq->cqe < sizes[i]) {
			diag("create_cq of %d: %s", sizes[i],
			     cq ? "fewer entries" : strerror(errno));
			bad++;
		}
		if (cq)
			ibv_destroy_cq(cq);
	}
	ok(!bad, "create_cq of 1 to max_cqe (%d) entries", da.max_cqe);
	ok(want_errno(ibv_create_cq(d->ctx, da.max_cqe + 1, NULL, NULL, 0),
		      EINVAL, "create_cq max_cqe + 1"),
	   "create_cq: max_cqe + 1 entries is EINVAL");
}

/*
 * Whether reg_mr's @err means a device without transport objects
 * (contract 1.0), the one case the transport checks may skip: only if
 * the device reports no MRs either.  One that reports MRs and refuses to
 * register one has regressed.
 */
static bool no_objects(struct dev *d, int err)
{
	struct ibv_device_attr da;

	if (err != EOPNOTSUPP)
		return false;
	if (ibv_query_device(d->ctx, &da))
		die("query_device: %s", strerror(errno));
	if (da.max_mr)
		diag("reg_mr EOPNOTSUPP, yet max_mr %d", da.max_mr);
	return !da.max_mr;
}

static void run_ctrl(struct dev *d)
{
	struct ibv_qp_init_attr init = {
		.cap = { 16, 16, 1, 1, 0 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr a = {};
	struct ibv_qp_init_attr got;
	struct ibv_cq *cq, *cq2, *big;
	struct ibv_qp *qp, *qp2;
	struct ibv_mr *mr;
	void *buf;
	int err;

	if (posix_memalign(&buf, 4096, MIB))
		die("no memory");
	mr = ibv_reg_mr(d->pd, buf, MIB, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	err = mr ? 0 : errno;
	if (!mr && no_objects(d, err)) {
		ok(true, "device without transport objects: reg_mr EOPNOTSUPP");
		cq = ibv_create_cq(d->ctx, 16, NULL, NULL, 0);
		ok(want_errno(cq, EOPNOTSUPP, "create_cq"),
		   "device without transport objects: create_cq EOPNOTSUPP");
		if (cq)
			ibv_destroy_cq(cq);
		skip("transport object checks", "contract 1.0 device");
		free(buf);
		return;
	}
	ok(mr != NULL, "reg_mr 1 MiB (%s)", mr ? "ok" : strerror(err));
	if (!mr)
		return;
	test_srq_limits(d);
	test_cq_sizes(d);
	ok(mr->lkey == mr->rkey, "MR lkey == rkey (%#x)", mr->lkey);
	ok(want_errno(ibv_reg_mr(d->pd, buf, MIB, IBV_ACCESS_REMOTE_WRITE),
		      EINVAL, "reg_mr remote write only"),
	   "reg_mr: remote write without local write is EINVAL");
	test_mw_bind_access(d);
	ok(want_errno(ibv_reg_mr(d->pd, NULL, MIB, IBV_ACCESS_LOCAL_WRITE),
		      EFAULT, "reg_mr NULL"),
	   "reg_mr: unmapped memory is EFAULT");

	cq = ibv_create_cq(d->ctx, 1, NULL, NULL, 0);
	ok(cq != NULL, "create_cq of 1 entry (cqe %d)", cq ? cq->cqe : 0);
	big = ibv_create_cq(d->ctx, 65536, NULL, d->ch, 0);
	ok(big != NULL, "create_cq of 65536 entries with a channel");
	ok(want_errno(ibv_create_cq(d->ctx, 65537, NULL, NULL, 0), EINVAL,
		      "create_cq 65537"), "create_cq: 65537 entries is EINVAL");
	ok(want_errno(ibv_create_cq(d->ctx, 0, NULL, NULL, 0), EINVAL,
		      "create_cq 0"), "create_cq: 0 entries is EINVAL");
	ok(want_errno(ibv_create_cq(d->ctx, 16, NULL, d->ch, 1), EINVAL,
		      "create_cq vector 1"),
	   "create_cq: completion vector 1 of 1 is EINVAL");
	cq2 = ibv_create_cq(d->ctx, 100, NULL, NULL, 0);
	ok(cq2 && cq2->cqe >= 100, "create_cq of 100 entries (cqe %d)",
	   cq2 ? cq2->cqe : 0);
	if (!cq || !cq2 || !big)
		return;

	init.send_cq = cq2;
	init.recv_cq = cq2;
	qp = ibv_create_qp(d->pd, &init);
	ok(qp != NULL, "create RC QP (%s)", qp ? "ok" : strerror(errno));
	if (!qp)
		return;
	ok(init.cap.max_send_wr >= 16 && init.cap.max_recv_wr >= 16 &&
	   init.cap.max_send_sge >= 1 && init.cap.max_recv_sge >= 1,
	   "create_qp reports caps %u/%u wr, %u/%u sge, %u inline",
	   init.cap.max_send_wr, init.cap.max_recv_wr, init.cap.max_send_sge,
	   init.cap.max_recv_sge, init.cap.max_inline_data);
	memset(&got, 0, sizeof(got));
	err = ibv_query_qp(qp, &a, IBV_QP_CAP, &got);
	ok(!err && got.cap.max_send_wr == init.cap.max_send_wr &&
	   got.cap.max_inline_data == init.cap.max_inline_data,
	   "query_qp(CAP) agrees with create_qp (%s)",
	   err ? strerror(err) : "ok");

	init.cap.max_recv_wr = 0;
	qp2 = ibv_create_qp(d->pd, &init);
	ok(qp2 && init.cap.max_recv_wr == 0, "create RC QP without an RQ (%s)",
	   qp2 ? "ok" : strerror(errno));
	if (qp2)
		ibv_destroy_qp(qp2);
	init.cap.max_recv_wr = 16;

	/* UD is contract 1.2's (ROCX_CAP2_UD); raw packet QPs never exist. */
	init.qp_type = IBV_QPT_UD;
	qp2 = ibv_create_qp(d->pd, &init);
	ok(qp2 != NULL, "create UD QP (%s)", qp2 ? "ok" : strerror(errno));
	if (qp2)
		ibv_destroy_qp(qp2);
	init.qp_type = IBV_QPT_RAW_PACKET;
	ok(want_errno(ibv_create_qp(d->pd, &init), EOPNOTSUPP, "raw packet QP"),
	   "create_qp: raw packet is EOPNOTSUPP");
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_sge = 1000;
	ok(want_errno(ibv_create_qp(d->pd, &init), EINVAL, "1000 SGEs"),
	   "create_qp: 1000 send SGEs is EINVAL");
	init.cap.max_send_sge = 1;
	init.cap.max_inline_data = 100000;
	ok(want_errno(ibv_create_qp(d->pd, &init), EINVAL, "inline 100000"),
	   "create_qp: 100000 inline bytes is EINVAL");
	init.cap.max_inline_data = 0;
	init.cap.max_send_wr = 1u << 20;
	ok(want_errno(ibv_create_qp(d->pd, &init), EINVAL, "2^20 WRs"),
	   "create_qp: 2^20 send WRs is EINVAL");
	init.cap.max_send_wr = 16;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	ok(!err, "modify_qp RESET -> INIT (%s)", err ? strerror(err) : "ok");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	ok(err == EINVAL, "modify_qp INIT -> RTS is EINVAL (%s)",
	   strerror(err));
	memset(&a, 0, sizeof(a));
	err = ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, &got);
	ok(!err && a.qp_state == IBV_QPS_INIT &&
	   (a.qp_access_flags & IBV_ACCESS_REMOTE_WRITE),
	   "query_qp: state INIT, remote write (%s, state %d)",
	   err ? strerror(err) : "ok", a.qp_state);
	a.qp_state = IBV_QPS_RESET;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	ok(!err, "modify_qp INIT -> RESET (%s)", err ? strerror(err) : "ok");

	err = ibv_destroy_cq(cq2);
	ok(err == EBUSY, "destroy_cq of a CQ in use is EBUSY (%s)",
	   strerror(err));
	ok(!ibv_destroy_qp(qp), "destroy_qp");
	ok(!ibv_destroy_cq(cq2) && !ibv_destroy_cq(cq) && !ibv_destroy_cq(big),
	   "destroy_cq x3");
	ok(!ibv_dereg_mr(mr), "dereg_mr");
	free(buf);
}

/* ---- Objects held across the driver's removal ---- */

static void run_hold(struct peer *p)
{
	struct ibv_wc wc;
	struct ep_info r;
	sigset_t set;
	struct ep e = {};
	int sig, err;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	err = connect_pair(p, &e, &r, 14, 7);
	if (!err)
		err = post_recv(&e, 1, 0, 4096);
	if (!err)
		err = ibv_req_notify_cq(e.rcq, 0);
	ok(!err, "hold: connected QPs, a posted receive, an armed CQ (%s)",
	   err ? strerror(err) : "ok");
	printf("# holding\n");
	fflush(stdout);
	/* Bounded, so that a lost signal does not leave a process behind. */
	sig = sigtimedwait(&set, NULL,
			   &(struct timespec){ .tv_sec = 10 * timeout_s });
	ok(sig == SIGUSR1, "hold: SIGUSR1 arrived");

	/* None of this may crash or hang once the device is gone. */
	err = post_send(&e, 2, IBV_WR_RDMA_WRITE, 0, 64, be64toh(r.addr),
			ntohl(r.rkey), 0, IBV_SEND_SIGNALED);
	diag("after SIGUSR1: post_send %s, poll_cq %d", strerror(err),
	     ibv_poll_cq(e.scq, 1, &wc));
	ep_destroy(&e);
	ep_destroy(&p->e);
	ok(true, "hold: objects used and released after SIGUSR1");
}

/* ---- Path MTU and the port's MTU ---- */

/* Wait for IBV_EVENT_QP_FATAL of both QPs, passing over port events. */
static bool wait_fatal2(struct dev *d, struct ibv_qp *a, struct ibv_qp *b)
{
	struct pollfd pfd = { .fd = d->ctx->async_fd, .events = POLLIN };
	uint64_t end = now_ms() + timeout_s * 1000ull;
	struct ibv_async_event ev;
	bool got_a = false, got_b = false, bad = false;
	int64_t left;

	while (!(got_a && got_b) && !bad && (left = end - now_ms()) > 0) {
		if (poll(&pfd, 1, left) != 1 || ibv_get_async_event(d->ctx, &ev))
			continue;
		switch (ev.event_type) {
		case IBV_EVENT_PORT_ACTIVE:
		case IBV_EVENT_PORT_ERR:
		case IBV_EVENT_GID_CHANGE:
			break;
		case IBV_EVENT_QP_FATAL:
			got_a |= ev.element.qp == a;
			got_b |= ev.element.qp == b;
			break;
		default:
			diag("async event %s, want QP_FATAL",
			     ibv_event_type_str(ev.event_type));
			bad = true;
		}
		ibv_ack_async_event(&ev);
	}
	return got_a && got_b;
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	return ibv_query_qp(qp, &a, IBV_QP_STATE, &init) ? -1 : (int)a.qp_state;
}

/*
 * Two QPs connected at the path MTU -m asks for; once the script has made
 * the netdev MTU too small for it (SIGUSR1), the device has moved both to
 * ERR, and the path MTU is refused for a new QP while 1024 is not.
 */
static void run_mtu(struct peer *p)
{
	struct ep_info r, self;
	struct ep e = {}, n = {};
	enum ibv_mtu mtu = p->d->mtu;
	sigset_t set;
	int sig, err;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	err = connect_pair(p, &e, &r, 14, 7);
	ok(!err, "mtu: two QPs at path MTU %d (%s)", 128 << mtu,
	   err ? strerror(err) : "ok");
	if (err)
		return;
	test_write(p, &e, &r, 64 * 1024, 90);
	printf("# mtu holding\n");
	fflush(stdout);
	sig = sigtimedwait(&set, NULL,
			   &(struct timespec){ .tv_sec = 10 * timeout_s });
	ok(sig == SIGUSR1, "mtu: SIGUSR1 arrived");
	ok(wait_fatal2(p->d, e.qp, p->e.qp),
	   "mtu: both QPs report IBV_EVENT_QP_FATAL");
	ok(qp_state(e.qp) == IBV_QPS_ERR && qp_state(p->e.qp) == IBV_QPS_ERR,
	   "mtu: both QPs are in ERR (%d, %d)", qp_state(e.qp),
	   qp_state(p->e.qp));

	err = ep_create(p->d, &n, CQ_DEPTH);
	if (!err) {
		ep_info(&n, &self);
		err = ep_connect(&n, &self, 14, 7, EP_ACCESS);
	}
	ok(err == EINVAL, "mtu: a new QP at path MTU %d is EINVAL (%s)",
	   128 << mtu, strerror(err));
	p->d->mtu = IBV_MTU_1024;
	ep_destroy(&n);
	err = ep_create(p->d, &n, CQ_DEPTH);
	if (!err) {
		ep_info(&n, &self);
		err = ep_connect(&n, &self, 14, 7, EP_ACCESS);
	}
	ok(!err, "mtu: a new QP at path MTU 1024 connects (%s)",
	   err ? strerror(err) : "ok");
	p->d->mtu = mtu;
	ep_destroy(&n);
	ep_destroy(&e);
	ep_destroy(&p->e);
}

/* ---- Main ---- */

static int tcp_listen(int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1, s, c;

	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 1))
		die("listen on %d: %s", port, strerror(errno));
	c = accept(s, NULL, NULL);
	if (c < 0)
		die("accept: %s", strerror(errno));
	close(s);
	return c;
}

static int tcp_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char ports[16];
	int s, i;

	snprintf(ports, sizeof(ports), "%d", port);
	if (getaddrinfo(host, ports, &hints, &res))
		die("cannot resolve %s", host);
	/* The server may still be starting. */
	for (i = 0; i < 300; i++) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s >= 0 && !connect(s, res->ai_addr, res->ai_addrlen)) {
			freeaddrinfo(res);
			return s;
		}
		if (s >= 0)
			close(s);
		usleep(100000);
	}
	die("connect to %s:%d: %s", host, port, strerror(errno));
	return -1;
}

static void serve(struct dev *d, int fd)
{
	struct peer_resp r;
	struct peer_req q;
	struct ep e = {};

	while (!xfer(fd, &q, sizeof(q), false) && q.op != PEER_QUIT) {
		peer_do(d, &e, &q, &r);
		if (xfer(fd, &r, sizeof(r), true))
			break;
	}
	ep_destroy(&e);
}

/* Whether the device has transport objects; says why not. */
static bool have_objects(struct dev *d)
{
	struct ibv_mr *mr;
	char buf[64];
	int err;

	mr = ibv_reg_mr(d->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (mr) {
		ibv_dereg_mr(mr);
		return true;
	}
	err = errno;
	if (!no_objects(d, err))
		die("reg_mr: %s", strerror(err));
	return false;
}

static enum ibv_mtu mtu_of(int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: die("bad MTU %d", bytes);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev_name = NULL, *host = NULL;
	int mode = 0, port = 18600, gid_index = -1, mtu = 1024, opt;
	bool xfer_only = false;
	struct peer p = { .fd = -1 };
	struct peer_req quit = { .op = PEER_QUIT };
	struct dev d = {};
	unsigned int seed;

	while ((opt = getopt(argc, argv, "cLSHMXC:d:g:p:m:t:")) != -1) {
		switch (opt) {
		case 'c':
		case 'L':
		case 'S':
		case 'H':
		case 'M':
			mode = opt;
			break;
		case 'C':
			mode = opt;
			host = optarg;
			break;
		case 'd':
			dev_name = optarg;
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'm':
			mtu = atoi(optarg);
			break;
		case 't':
			timeout_s = atoi(optarg);
			break;
		case 'X':
			xfer_only = true;
			break;
		default:
			mode = 0;
			break;
		}
	}
	if (!mode) {
		fprintf(stderr, "usage: %s -c|-L|-S|-H|-M|-C HOST [-X] [-d DEV] [-g GID] [-p PORT] [-m MTU] [-t SEC]\n",
			argv[0]);
		return 2;
	}
	/*
	 * Initial PSNs are random, as a real peer's are, so that wrap and
	 * window arithmetic meets more than one start.  The seed is printed
	 * and ROCX_RC_SEED replays it: a failure near a wrap reproduces.
	 */
	seed = getenv("ROCX_RC_SEED") ?
	       (unsigned int)strtoul(getenv("ROCX_RC_SEED"), NULL, 0) :
	       (unsigned int)(getpid() ^ time(NULL));
	srandom(seed);
	setvbuf(stdout, NULL, _IOLBF, 0);
	dev_open(&d, dev_name, gid_index, mtu_of(mtu));
	p.d = &d;

	if (mode == 'c') {
		run_ctrl(&d);
	} else if (!have_objects(&d)) {
		skip("data path", "contract 1.0 device: no transport objects");
		if (mode == 'S' || mode == 'C') {
			/* Keep the two sides in step: both just stop. */
			diag("peer not contacted");
		}
	} else {
		dev_gid(&d);
		diag("%s, GID index %d, MTU %d, seed %u (ROCX_RC_SEED)",
		     ibv_get_device_name(d.ctx->device), d.gid_index, mtu, seed);
		if (mode == 'S') {
			serve(&d, tcp_listen(port));
		} else if (mode == 'H') {
			run_hold(&p);
		} else if (mode == 'M') {
			run_mtu(&p);
		} else {
			if (mode == 'C')
				p.fd = tcp_connect(host, port);
			if (xfer_only)
				run_xfer(&p);
			else
				run_data(&p);
			if (p.fd >= 0) {
				xfer(p.fd, &quit, sizeof(quit), true);
				close(p.fd);
			}
			ep_destroy(&p.e);
		}
	}
	dev_close(&d);
	return failures ? 1 : 0;
}
