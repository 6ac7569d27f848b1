// SPDX-License-Identifier: GPL-2.0
/*
 * rc_flow - one RC WRITE flow with every byte verified, for congestion
 * experiments and benchmarks.
 *
 *   rc_flow -S [-p PORT]                 receiver: serve one flow, then exit
 *   rc_flow -C HOST [-p PORT] -t SECS    sender: run the flow for SECS
 *                                        (fractions allowed: -t 0.02)
 *
 * Options: -d DEV (default: the first rocx device), -g GID_INDEX (default:
 * the first RoCE v2 IPv4 GID), -l SL (the service level, which is the
 * priority), -T TCLASS (the traffic class; DSCP is its upper six bits),
 * -s BYTES (message size, default 65536), -w N (messages in flight,
 * default 8), -i MS (report interval, default 100), -m MTU (default 1024),
 * -x SECS (fail when nothing moves for that long, default 30), -n NAME
 * (the flow's name in the reports), -A T (the ACK timeout, 4.096 us x 2^T,
 * default 14), -G PATH (the sender, once connected, creates PATH.ready
 * and starts when PATH exists: flows of several guests start together),
 * -W MS (the sender starts MS ms after that), -U PORT (the sender, once
 * connected and before -G's PATH.ready, listens on UDP port PORT and
 * starts when a datagram comes: a go that travels over the fabric, so
 * that flows of guests in virtual time start within a link's latency of
 * each other), -K N (the sender damages one byte of
 * message N: the receiver must fail, which proves the check), -Q PATH
 * (once connected, write "QPN PSN" to PATH: this side's QP number and
 * the first PSN it expects), -E MS (after the summary, keep the QP for
 * MS ms before exiting, so that its state can be read), -a MS (both
 * sides, once connected, wait until CLOCK_MONOTONIC reads MS ms and
 * start then, or fail if it already has: in a timed run that clock is
 * virtual, so the flow starts at a stated virtual instant whatever the
 * set-up before it cost), -N MSGS (the sender stops after MSGS messages,
 * or at -t's end if that comes first: a fixed amount of traffic), -Z (no
 * flow: the self-test of the check, self_test()).  RC_FLOW_SCALAR=1 in
 * the environment checks without AVX2; RC_FLOW_TRACE=PATH writes a line
 * per message event to PATH (trace()).
 *
 * The sender writes message n into slot n % N of the receiver's buffer
 * with RDMA WRITE with immediate n; the receiver checks every byte of the
 * slot against the pattern of n and gives the slot back with a SEND, so
 * the sender never has more than N messages unchecked.  Goodput is what
 * the receiver has checked.  Both sides print a JSON object per interval
 * ({"flow", "side", "t" (s since the connection), "bytes", "mbps"}) and a
 * final one with "summary": true, on standard output; the receiver's
 * also has "first_ns" and "last_ns", CLOCK_MONOTONIC when the first and
 * the last message were checked, so that flows into one guest can be
 * added up on its clock, and both name the "check" used.  The exit
 * status is 0 only if the flow ran to its end with no error and no bad
 * byte.
 *
 * The pattern of message n is an arithmetic sequence of 64-bit words
 * from a start drawn from n, so that filling and checking it are a
 * vector add and compare per 32 bytes where the CPU has AVX2: a guest
 * under instruction counting executes at most 10^9 instructions per
 * virtual second, and a check of one instruction per byte would cap a
 * receiver near 8 Gb/s.  Every byte is still checked.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define END_IMM		0xffffffffu	/* the sender's last message */
#define MAX_WINDOW	64

static const char *dev_name;
/*
 * RC_FLOW_TRACE=PATH: a line per message event, "NS EVENT N" (NS on
 * CLOCK_MONOTONIC; the sender's w: WRITE N posted, k: a credit received,
 * N its receive slot, credits coming in message order; the receiver's r:
 * WRITE N received, c: N checked and its credit given), to find which
 * side of the credit loop a stall was on.  Beside a capture of the
 * switch's ports it splits a message's round trip into its hops.
 */
static FILE *trace_fp;
static const char *flow_name = "flow";
static int gid_index = -1;
static int sl, tclass;
static uint32_t msg_size = 65536;
static unsigned int window = 8;
static unsigned int interval_ms = 100;
static enum ibv_mtu mtu = IBV_MTU_1024;
static int stall_s = 30;
static long damage = -1;
static int ack_timeout = 14;
static const char *go_path;
static const char *qp_path;
static unsigned int start_delay_ms;
static long long start_at_ms = -1;
static unsigned long max_msgs;
static int go_udp_port;
static int go_udp_fd = -1;
static double run_seconds = 10;
static unsigned int linger_ms;

/* What each side tells the other over TCP before the flow starts. */
struct peer_info {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t window;
	uint64_t addr;
	uint32_t msg_size;
	uint8_t gid[16];
};

struct flow {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;		/* window slots of msg_size bytes */
	uint32_t *credit;	/* window words: SENDs in and out */
	struct ibv_mr *credit_mr;
	struct peer_info me, peer;
	bool sender;
	uint64_t start_ns, last_ns, last_bytes, bytes, msgs;
	uint64_t first_msg_ns, last_msg_ns;	/* receiver: checked */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void trace(char ev, uint32_t n)
{
	if (trace_fp)
		fprintf(trace_fp, "%llu %c %u\n",
			(unsigned long long)now_ns(), ev, n);
}

static void die(const char *what)
{
	fprintf(stderr, "rc_flow: %s: %s\n", what,
		errno ? strerror(errno) : "failed");
	exit(1);
}

/*
 * Message n's words: pat_base(n) + j * PAT_STEP.  The step is odd, so
 * no two words of a message are equal and a word out of place (a
 * packet at the wrong offset) is caught; the start is a mix of n, so a
 * message left over from an earlier one in the slot is caught too.
 */
#define PAT_STEP	0x9e3779b97f4a7c15ull
#define PAT_BLOCK	512	/* words compared before a branch */

typedef uint64_t v4u64 __attribute__((vector_size(32)));

static bool use_avx2;

static uint64_t pat_base(uint32_t n)
{
	uint64_t x = ((uint64_t)n + 1) * 0xbf58476d1ce4e5b9ull;

	return x ^ x >> 31;
}

static uint64_t pat_word(uint32_t n, size_t j)
{
	return pat_base(n) + j * PAT_STEP;
}

static void fill_words(uint8_t *p, uint32_t n, size_t from, size_t to)
{
	size_t j;

	for (j = from; j < to; j++)
		memcpy(p + 8 * j, &(uint64_t){ pat_word(n, j) }, 8);
}

/* Index of the first bad word in [from, to), or -1. */
static long check_words(const uint8_t *p, uint32_t n, size_t from, size_t to)
{
	uint64_t w;
	size_t j;

	for (j = from; j < to; j++) {
		memcpy(&w, p + 8 * j, 8);
		if (w != pat_word(n, j))
			return j;
	}
	return -1;
}

/* The words that make up whole groups of 16 (128 bytes). */
static size_t vec_words(void)
{
	return msg_size / 8 / 16 * 16;
}

__attribute__((target("avx2")))
static void fill_avx2(uint8_t *p, uint32_t n)
{
	const uint64_t b = pat_base(n);
	v4u64 a = { b, b + PAT_STEP, b + 2 * PAT_STEP, b + 3 * PAT_STEP };
	const v4u64 s4 = { 4 * PAT_STEP, 4 * PAT_STEP, 4 * PAT_STEP,
			   4 * PAT_STEP };
	size_t j, end = vec_words();

	for (j = 0; j < end; j += 4) {
		memcpy(p + 8 * j, &a, sizeof(a));
		a += s4;
	}
	fill_words(p, n, end, msg_size / 8);
}

__attribute__((target("avx2")))
static long check_avx2(const uint8_t *p, uint32_t n)
{
	const uint64_t b = pat_base(n);
	const v4u64 a0 = { b, b + PAT_STEP, b + 2 * PAT_STEP,
			   b + 3 * PAT_STEP };
	const v4u64 s4 = { 4 * PAT_STEP, 4 * PAT_STEP, 4 * PAT_STEP,
			   4 * PAT_STEP };
	const v4u64 s16 = s4 * 4;
	size_t j, k, end = vec_words();
	v4u64 a = a0, x0, x1, x2, x3, acc;
	long bad;

	for (j = 0; j < end; j = k) {
		size_t stop = j + PAT_BLOCK < end ? j + PAT_BLOCK : end;

		acc = (v4u64){ 0 };
		/* Four vectors in flight: a loop step per 128 bytes. */
		for (k = j; k < stop; k += 16) {
			memcpy(&x0, p + 8 * k, 32);
			memcpy(&x1, p + 8 * k + 32, 32);
			memcpy(&x2, p + 8 * k + 64, 32);
			memcpy(&x3, p + 8 * k + 96, 32);
			acc |= (x0 ^ a) | (x1 ^ (a + s4)) |
			       (x2 ^ (a + 2 * s4)) | (x3 ^ (a + 3 * s4));
			a += s16;
		}
		if (acc[0] | acc[1] | acc[2] | acc[3]) {
			bad = check_words(p, n, j, stop);
			if (bad >= 0)
				return bad;
		}
	}
	return check_words(p, n, end, msg_size / 8);
}

static void fill(uint8_t *p, uint32_t n)
{
	if (use_avx2)
		fill_avx2(p, n);
	else
		fill_words(p, n, 0, msg_size / 8);
}

/* Index of the first bad word, or -1. */
static long check(const uint8_t *p, uint32_t n)
{
	if (use_avx2)
		return check_avx2(p, n);
	return check_words(p, n, 0, msg_size / 8);
}

static bool gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

static void dev_open(struct flow *f)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	union ibv_gid gid;
	int i;

	for (i = 0; list && list[i]; i++) {
		const char *n = ibv_get_device_name(list[i]);

		if (dev_name ? !strcmp(n, dev_name) : !strncmp(n, "rocx", 4)) {
			f->ctx = ibv_open_device(list[i]);
			break;
		}
	}
	if (list)
		ibv_free_device_list(list);
	if (!f->ctx)
		die("no device to open");
	if (ibv_query_port(f->ctx, 1, &pa))
		die("ibv_query_port");
	for (i = 0; gid_index < 0 && i < pa.gid_tbl_len; i++)
		if (!ibv_query_gid_ex(f->ctx, 1, i, &e, 0) &&
		    e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_v4(&e.gid))
			gid_index = i;
	if (gid_index < 0)
		die("no RoCE v2 IPv4 GID (give -g)");
	if (ibv_query_gid(f->ctx, 1, gid_index, &gid))
		die("ibv_query_gid");
	memcpy(f->me.gid, gid.raw, 16);
}

static void resources(struct flow *f)
{
	size_t len = (size_t)window * msg_size;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = window + 1,
			.max_recv_wr = window + 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	f->pd = ibv_alloc_pd(f->ctx);
	f->ch = ibv_create_comp_channel(f->ctx);
	if (!f->pd || !f->ch)
		die("ibv_alloc_pd/ibv_create_comp_channel");
	f->cq = ibv_create_cq(f->ctx, 4 * (window + 1), NULL, f->ch, 0);
	if (!f->cq)
		die("ibv_create_cq");
	qa.send_cq = qa.recv_cq = f->cq;
	f->qp = ibv_create_qp(f->pd, &qa);
	if (!f->qp)
		die("ibv_create_qp");
	if (posix_memalign((void **)&f->buf, 4096, len) ||
	    posix_memalign((void **)&f->credit, 4096, 4096))
		die("posix_memalign");
	memset(f->buf, 0, len);
	f->mr = ibv_reg_mr(f->pd, f->buf, len, access);
	f->credit_mr = ibv_reg_mr(f->pd, f->credit, 4096,
				  IBV_ACCESS_LOCAL_WRITE);
	if (!f->mr || !f->credit_mr)
		die("ibv_reg_mr");
	f->me.qpn = f->qp->qp_num;
	f->me.psn = (uint32_t)(now_ns() & 0xffffff);
	f->me.rkey = f->mr->rkey;
	f->me.addr = (uintptr_t)f->buf;
	f->me.window = window;
	f->me.msg_size = msg_size;
}

static void connect_qp(struct flow *f)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = f->peer.qpn;
	a.rq_psn = f->peer.psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.sl = sl;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.traffic_class = tclass;
	memcpy(a.ah_attr.grh.dgid.raw, f->peer.gid, 16);
	if (ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = f->me.psn;
	a.timeout = ack_timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify to RTS");
}

/* Exchange peer_info over TCP; the receiver listens. */
static void exchange(struct flow *f, const char *host, const char *port)
{
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = host ? 0 : AI_PASSIVE,
	}, *ai;
	int fd, one = 1;
	ssize_t got;

	if (getaddrinfo(host, port, &hints, &ai))
		die("getaddrinfo");
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (!host) {
		int lfd = fd;

		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 1))
			die("bind/listen");
		fd = accept(lfd, NULL, NULL);
		close(lfd);
		if (fd < 0)
			die("accept");
	} else {
		int tries;

		/* The receiver may still be starting. */
		for (tries = 0; connect(fd, ai->ai_addr, ai->ai_addrlen);
		     tries++) {
			if (tries == 100)
				die("connect");
			usleep(100000);
		}
	}
	freeaddrinfo(ai);
	if (write(fd, &f->me, sizeof(f->me)) != sizeof(f->me))
		die("write peer info");
	got = recv(fd, &f->peer, sizeof(f->peer), MSG_WAITALL);
	if (got != sizeof(f->peer))
		die("read peer info");
	close(fd);
	if (f->peer.msg_size != msg_size || f->peer.window != window) {
		fprintf(stderr, "rc_flow: the peer uses -s %u -w %u\n",
			f->peer.msg_size, f->peer.window);
		exit(1);
	}
}

static void post_recv(struct flow *f, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&f->credit[i],
		.length = 4,
		.lkey = f->credit_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(f->qp, &wr, &bad))
		die("ibv_post_recv");
}

static void post_write(struct flow *f, uint32_t n, bool last)
{
	unsigned int slot = n % window;
	struct ibv_sge sge = {
		.addr = (uintptr_t)(f->buf + (size_t)slot * msg_size),
		.length = last ? 0 : msg_size,
		.lkey = f->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = n,
		.sg_list = &sge,
		.num_sge = last ? 0 : 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(last ? END_IMM : n),
		.wr.rdma = {
			.remote_addr = f->peer.addr + (uint64_t)slot * msg_size,
			.rkey = f->peer.rkey,
		},
	};
	struct ibv_send_wr *bad;

	if (!last)
		fill(f->buf + (size_t)slot * msg_size, n);
	if (!last && n == damage)
		f->buf[(size_t)slot * msg_size + msg_size / 2] ^= 0x20;
	if (ibv_post_send(f->qp, &wr, &bad))
		die("ibv_post_send WRITE");
}

static void post_credit(struct flow *f, uint32_t n)
{
	unsigned int slot = n % window;
	struct ibv_sge sge = {
		.addr = (uintptr_t)&f->credit[window + slot],
		.length = 4,
		.lkey = f->credit_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = n,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	f->credit[window + slot] = n;
	if (ibv_post_send(f->qp, &wr, &bad))
		die("ibv_post_send SEND");
}

static void report(struct flow *f, uint64_t now, bool summary)
{
	double t = (now - f->start_ns) / 1e9;
	double dt = (now - f->last_ns) / 1e9;
	const char *side = f->sender ? "sender" : "receiver";

	if (summary) {
		printf("{\"flow\": \"%s\", \"side\": \"%s\", \"summary\": true, "
		       "\"seconds\": %.6f, \"bytes\": %llu, \"messages\": %llu, "
		       "\"first_ns\": %llu, \"last_ns\": %llu, "
		       "\"check\": \"%s\", \"mbps\": %.1f}\n", flow_name, side, t,
		       (unsigned long long)f->bytes,
		       (unsigned long long)f->msgs,
		       (unsigned long long)f->first_msg_ns,
		       (unsigned long long)f->last_msg_ns,
		       use_avx2 ? "avx2" : "scalar",
		       t > 0 ? f->bytes * 8 / t / 1e6 : 0.0);
	} else {
		printf("{\"flow\": \"%s\", \"side\": \"%s\", \"t\": %.3f, "
		       "\"bytes\": %llu, \"mbps\": %.1f}\n", flow_name, side,
		       t, (unsigned long long)(f->bytes - f->last_bytes),
		       dt > 0 ? (f->bytes - f->last_bytes) * 8 / dt / 1e6 : 0.0);
	}
	fflush(stdout);
	f->last_ns = now;
	f->last_bytes = f->bytes;
}

/* Wait for completions until the next report is due or one arrives. */
static int wait_wc(struct flow *f, struct ibv_wc *wc, int max, uint64_t *moved)
{
	uint64_t now = now_ns();
	uint64_t due = f->last_ns + interval_ms * 1000000ull;
	struct pollfd pfd = { .fd = f->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;
	int n;

	n = ibv_poll_cq(f->cq, max, wc);
	if (n)
		return n;
	if (ibv_req_notify_cq(f->cq, 0))
		die("ibv_req_notify_cq");
	n = ibv_poll_cq(f->cq, max, wc);
	if (n)
		return n;
	if (now < due &&
	    poll(&pfd, 1, (int)((due - now) / 1000000) + 1) > 0) {
		if (ibv_get_cq_event(f->ch, &cq, &ctx))
			die("ibv_get_cq_event");
		ibv_ack_cq_events(cq, 1);
	}
	now = now_ns();
	if (now >= due)
		report(f, now, false);
	if (now - *moved > (uint64_t)stall_s * 1000000000ull) {
		fprintf(stderr, "rc_flow: %s: nothing moved for %d s\n",
			flow_name, stall_s);
		exit(1);
	}
	return ibv_poll_cq(f->cq, max, wc);
}

static void wc_fail(const struct ibv_wc *wc)
{
	fprintf(stderr, "rc_flow: %s: completion wr_id %llu opcode %d: %s\n",
		flow_name, (unsigned long long)wc->wr_id, wc->opcode,
		ibv_wc_status_str(wc->status));
	exit(1);
}

/*
 * The receiver's credits wait for send queue room.  A credit's SEND
 * completes when the sender's ACK comes back, and that ACK travels
 * behind the data: through a shaped queue (or one that drops non-ECT
 * packets, as Linux's RED does, and an ACK is not ECT) the receiver can
 * have checked more messages than its send queue has credits in flight.
 * At most the window's worth wait (the sender stops without credits).
 */
struct credits {
	unsigned int in_flight;
	unsigned int head, count;
	uint32_t wait[MAX_WINDOW];
};

static void credit_give(struct flow *f, struct credits *c, uint32_t n)
{
	if (c->in_flight < window + 1 && !c->count) {
		post_credit(f, n);
		c->in_flight++;
		return;
	}
	if (c->count == MAX_WINDOW) {
		fprintf(stderr, "rc_flow: more than %d credits waiting\n",
			MAX_WINDOW);
		exit(1);
	}
	c->wait[(c->head + c->count++) % MAX_WINDOW] = n;
}

/* A credit's SEND completed: post the oldest waiting one. */
static void credit_sent(struct flow *f, struct credits *c)
{
	c->in_flight--;
	if (c->count) {
		post_credit(f, c->wait[c->head]);
		c->head = (c->head + 1) % MAX_WINDOW;
		c->count--;
		c->in_flight++;
	}
}

/*
 * -a: sleep until CLOCK_MONOTONIC reads the start instant.  An absolute
 * deadline with a timer slack of 1 ns wakes at that instant itself, not
 * at a relative delay from a set-up whose length varies, nor anywhere in
 * the default 50 us of slack the kernel may coalesce other timers into.
 */
static void start_at(void)
{
	uint64_t at = (uint64_t)start_at_ms * 1000000ull, now = now_ns();
	struct timespec ts = { .tv_sec = at / 1000000000ull,
			       .tv_nsec = at % 1000000000ull };
	int err;

	if (start_at_ms < 0)
		return;
	if (now >= at) {
		fprintf(stderr, "rc_flow: %s: start at %lld ms missed: the clock reads %.3f ms\n",
			flow_name, start_at_ms, now / 1e6);
		exit(1);
	}
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0))
		die("PR_SET_TIMERSLACK");
	do {
		err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	} while (err == EINTR);
	if (err) {
		errno = err;
		die("clock_nanosleep");
	}
}

static int run_receiver(struct flow *f)
{
	struct ibv_wc wc[16];
	struct credits cr = { 0 };
	uint64_t moved = now_ns();
	unsigned int i;
	bool done = false;
	int n, k;

	for (i = 0; i < window + 1; i++)
		post_recv(f, i);
	start_at();
	/* The sender's first WRITE can come before our first report. */
	f->start_ns = f->last_ns = moved = now_ns();
	while (!done) {
		n = wait_wc(f, wc, 16, &moved);
		for (k = 0; k < n; k++) {
			uint32_t m;
			long bad;

			if (wc[k].status != IBV_WC_SUCCESS)
				wc_fail(&wc[k]);
			if (wc[k].opcode == IBV_WC_SEND) {
				credit_sent(f, &cr);
				continue;
			}
			if (wc[k].opcode != IBV_WC_RECV_RDMA_WITH_IMM) {
				fprintf(stderr, "rc_flow: unexpected opcode %d\n",
					wc[k].opcode);
				return 1;
			}
			m = ntohl(wc[k].imm_data);
			post_recv(f, wc[k].wr_id);
			if (m == END_IMM) {
				done = true;
				continue;
			}
			/* Goodput counts from the first message: a sender may
			 * wait for its start (-G) after connecting.
			 */
			if (!f->msgs)
				f->start_ns = f->last_ns = now_ns();
			trace('r', m);
			if (m != f->msgs) {
				fprintf(stderr, "rc_flow: message %u came as number %llu\n",
					m, (unsigned long long)f->msgs);
				return 1;
			}
			bad = check(f->buf + (size_t)(m % window) * msg_size, m);
			if (bad >= 0) {
				fprintf(stderr, "rc_flow: message %u: bad data at byte %ld\n",
					m, bad * 8);
				return 1;
			}
			f->msgs++;
			f->bytes += msg_size;
			moved = now_ns();
			if (!f->first_msg_ns)
				f->first_msg_ns = moved;
			f->last_msg_ns = moved;
			credit_give(f, &cr, m);
			trace('c', m);
		}
	}
	report(f, now_ns(), true);
	return 0;
}

/*
 * -U: the go's socket, bound before anyone can be told this sender is
 * ready, so that a go sent at once is queued, not lost.
 */
static void go_udp_open(void)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(go_udp_port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};

	go_udp_fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (go_udp_fd < 0 ||
	    bind(go_udp_fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("-U: UDP socket");
}

/* Tell whoever starts the flows that this one is ready, wait for "go". */
static void wait_go(void)
{
	char ready[4096];
	uint64_t t0 = now_ns();
	FILE *fp;

	if (go_udp_port)
		go_udp_open();
	if (go_path && go_udp_port) {
		snprintf(ready, sizeof(ready), "%s.%s.ready", go_path, flow_name);
		fp = fopen(ready, "w");
		if (!fp)
			die(ready);
		fclose(fp);
	}
	if (go_udp_port) {
		struct pollfd pfd = { .fd = go_udp_fd, .events = POLLIN };
		char b[64];

		/*
		 * Bounded by -x in the guest's time, which in a timed run
		 * is virtual: give a -x that the run's wall-clock bound,
		 * not this one, ends.
		 */
		if (poll(&pfd, 1, stall_s * 1000) != 1 ||
		    recv(go_udp_fd, b, sizeof(b), 0) < 0) {
			fprintf(stderr, "rc_flow: %s: no go on UDP port %d after %d s\n",
				flow_name, go_udp_port, stall_s);
			exit(1);
		}
		close(go_udp_fd);
	} else if (go_path) {
		snprintf(ready, sizeof(ready), "%s.%s.ready", go_path, flow_name);
		fp = fopen(ready, "w");
		if (!fp)
			die(ready);
		fclose(fp);
		while (access(go_path, F_OK)) {
			if (now_ns() - t0 > (uint64_t)stall_s * 1000000000ull) {
				fprintf(stderr, "rc_flow: %s: no %s after %d s\n",
					flow_name, go_path, stall_s);
				exit(1);
			}
			usleep(10000);
		}
	}
	if (start_delay_ms)
		usleep(start_delay_ms * 1000);
	start_at();
}

static int run_sender(struct flow *f)
{
	uint64_t end, moved = now_ns();
	struct ibv_wc wc[16];
	unsigned int credits = window, i;
	uint32_t next = 0;
	bool stopping = false, last_sent = false, last_done = false;
	int n, k;

	for (i = 0; i < window + 1; i++)
		post_recv(f, i);
	wait_go();
	f->start_ns = f->last_ns = moved = now_ns();
	end = f->start_ns + (uint64_t)(run_seconds * 1e9);
	while (!last_done) {
		if (!stopping && now_ns() >= end)
			stopping = true;
		while (!stopping && credits) {
			if (max_msgs && next >= max_msgs) {
				stopping = true;
				break;
			}
			post_write(f, next, false);
			trace('w', next++);
			credits--;
		}
		if (stopping && credits == window && !last_sent) {
			post_write(f, next, true);
			last_sent = true;
		}
		n = wait_wc(f, wc, 16, &moved);
		for (k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS)
				wc_fail(&wc[k]);
			if (wc[k].opcode == IBV_WC_RDMA_WRITE) {
				if (last_sent && wc[k].wr_id == next)
					last_done = true;
				continue;
			}
			/* A credit: the receiver checked that message. */
			trace('k', wc[k].wr_id);
			post_recv(f, wc[k].wr_id);
			credits++;
			f->msgs++;
			f->bytes += msg_size;
			moved = now_ns();
		}
	}
	report(f, now_ns(), true);
	return 0;
}

/*
 * -Z: the check against damage, without a device: for each way this CPU
 * can check (scalar, and AVX2 if it has it) and a message size with and
 * without a tail past the vector part, a flipped bit anywhere it may
 * fall, another message's data and two packets swapped are each caught
 * at the right word, and the message as filled passes.
 */
static int self_test(void)
{
	const uint32_t sizes[] = { msg_size, msg_size + 24 };
	bool modes[2] = { false, use_avx2 };
	unsigned int fails = 0, checks = 0, nmodes = use_avx2 ? 2 : 1;
	unsigned int m, z, i;

	for (m = 0; m < nmodes; m++) {
		use_avx2 = modes[m];
		for (z = 0; z < 2; z++) {
			uint32_t bytes = sizes[z];
			const size_t pos[] = { 0, 7, 8 * PAT_BLOCK + 3,
					       bytes / 2, bytes - 25, bytes - 1 };
			uint8_t *p = malloc(bytes), *q = malloc(bytes);
			long bad;

			if (!p || !q)
				die("malloc");
			msg_size = bytes;
			fill(p, 77);
			fill(q, 78);
			checks++;
			fails += check(p, 77) != -1;
			for (i = 0; i < sizeof(pos) / sizeof(pos[0]); i++) {
				if (pos[i] >= bytes)
					continue;
				p[pos[i]] ^= 0x20;
				bad = check(p, 77);
				p[pos[i]] ^= 0x20;
				checks++;
				if (bad != (long)(pos[i] / 8)) {
					fprintf(stderr, "rc_flow: self-test: %s, %u bytes: byte %zu flipped, found %ld\n",
						use_avx2 ? "avx2" : "scalar",
						bytes, pos[i], bad);
					fails++;
				}
			}
			checks++;
			fails += check(q, 77) != 0;
			if (bytes >= 2048) {
				memcpy(q, p + 1024, 1024);
				memcpy(q + 1024, p, 1024);
				memcpy(q + 2048, p + 2048, bytes - 2048);
				checks++;
				fails += check(q, 77) != 0;
			}
			free(p);
			free(q);
		}
	}
	printf("rc_flow: self-test: %u of %u checks passed (%s)\n",
	       checks - fails, checks, modes[1] ? "scalar and avx2" : "scalar");
	return fails ? 1 : 0;
}

static enum ibv_mtu mtu_of(int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	}
	fprintf(stderr, "rc_flow: -m takes 256, 512, 1024, 2048 or 4096\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *host = NULL, *port = "18700";
	struct flow f = { 0 };
	bool server = false, selftest = false;
	int c;

	while ((c = getopt(argc, argv, "SC:p:t:d:g:l:T:s:w:i:m:x:n:K:A:G:W:Q:U:ZE:a:N:")) != -1) {
		switch (c) {
		case 'S': server = true; break;
		case 'C': host = optarg; break;
		case 'p': port = optarg; break;
		case 't': run_seconds = atof(optarg); break;
		case 'd': dev_name = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'l': sl = atoi(optarg); break;
		case 'T': tclass = atoi(optarg); break;
		case 's': msg_size = strtoul(optarg, NULL, 0); break;
		case 'w': window = atoi(optarg); break;
		case 'i': interval_ms = atoi(optarg); break;
		case 'm': mtu = mtu_of(atoi(optarg)); break;
		case 'x': stall_s = atoi(optarg); break;
		case 'n': flow_name = optarg; break;
		case 'K': damage = atol(optarg); break;
		case 'A': ack_timeout = atoi(optarg); break;
		case 'G': go_path = optarg; break;
		case 'W': start_delay_ms = atoi(optarg); break;
		case 'Q': qp_path = optarg; break;
		case 'a': start_at_ms = atoll(optarg); break;
		case 'N': max_msgs = strtoul(optarg, NULL, 0); break;
		case 'U': go_udp_port = atoi(optarg); break;
		case 'Z': selftest = true; break;
		case 'E': linger_ms = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: rc_flow -S | -C HOST [options]\n");
			return 2;
		}
	}
	__builtin_cpu_init();
	use_avx2 = __builtin_cpu_supports("avx2") &&
		   !getenv("RC_FLOW_SCALAR");
	if (selftest)
		return msg_size % 8 || msg_size < 128 ? 2 : self_test();
	if (server == !!host || !msg_size || msg_size % 8 ||
	    msg_size > (1u << 24) || !window || window > MAX_WINDOW ||
	    !(run_seconds > 0) || !interval_ms || go_udp_port < 0 ||
	    go_udp_port > 65535 || sl < 0 || sl > 7 ||
	    tclass < 0 || tclass > 255 || ack_timeout < 0 || ack_timeout > 31) {
		fprintf(stderr, "rc_flow: give -S or -C HOST; -s a multiple of 8 up to 16 MiB, -w 1..%d, -l 0..7\n",
			MAX_WINDOW);
		return 2;
	}
	if (getenv("RC_FLOW_TRACE")) {
		trace_fp = fopen(getenv("RC_FLOW_TRACE"), "w");
		if (!trace_fp)
			die(getenv("RC_FLOW_TRACE"));
	}
	f.sender = !server;
	dev_open(&f);
	resources(&f);
	exchange(&f, host, port);
	connect_qp(&f);
	if (qp_path) {
		FILE *q = fopen(qp_path, "w");

		/* For a test that aims frames at this live QP. */
		if (!q || fprintf(q, "%u %u\n", f.me.qpn, f.peer.psn) < 0 ||
		    fclose(q))
			die("writing -Q's file");
	}
	c = server ? run_receiver(&f) : run_sender(&f);
	if (linger_ms)
		usleep(linger_ms * 1000);
	return c;
}
