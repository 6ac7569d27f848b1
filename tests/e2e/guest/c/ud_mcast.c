// SPDX-License-Identifier: GPL-2.0
/*
 * ud_mcast - UD multicast across three guests (tests/e2e/groups/mcast.sh).
 *
 *   ud_mcast -d DEV -k KIND -g GID_INDEX [-e]
 *
 * KIND (v2, v6 or v1) names the GID kind GID_INDEX is and picks the group:
 * ::ffff:239.1.1.1 for RoCE v2 over IPv4, ff0e::1:6 and ff0e::1:1 for RoCE
 * v2 over IPv6 and RoCE v1.  Guests 0, 1 and 2 (ROCX_GUEST_INDEX) play:
 *
 *   guest 0  the sender S, attached; R2, attached; N, attached and created
 *            with IBV_QP_CREATE_BLOCK_SELF_MCAST_LB
 *   guest 1  R, attached
 *   guest 2  X, not attached
 *
 * and check, every message's data, immediate, source QP and GRH area
 * verified:
 *
 *   a. S sends to the group: R, and on S's own device S, R2 and N, get
 *      each message once; X gets none;
 *   b. N sends: R gets them; S, R2 and N do not (loopback blocked); X none;
 *   c. R detaches; S sends: S and R2 get it, R and X do not.
 *
 * A negative is proved without waiting on a clock: after its group
 * messages the sender sends a unicast "sentinel" to R and X from the same
 * QP, and the fabric keeps order, so a receiver that has the sentinel has
 * everything sent before it.  On the sender's own device a group message
 * is delivered before its send completes.  -e adds the error checks (in
 * guest 2): a group full at max_mcast_qp_attach QPs, an RC QP, a unicast
 * GID.
 *
 * The guests meet through files in ROCX_SHARED, as scripts/guest/guest_lib.sh's
 * rocx_put/rocx_get/rocx_barrier do.  Prints TAP lines "ok - mcast KIND:
 * ..." and exits 1 if any check failed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define QKEY		0x11110000u
#define NMSG		4
#define MSG_MAX		1024		/* fits the 1500-byte port MTU */
#define GRH_LEN		40
#define SLOT		2048
#define RQ_DEPTH	32
#define SQ_DEPTH	32
#define MAX_QPS		4
#define SENTINEL	0x5e0000aau
#define WAIT_MS		10000

static const char *kind = "v2";
static int failures;
static int me;
static const char *shared = "/rocx-shared";

static void ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	printf("%s - mcast %s: ", pass ? "ok" : "not ok", kind);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!pass)
		failures++;
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("not ok - mcast %s: ", kind);
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

/* ---- Meeting the other guests (scripts/guest/guest_lib.sh's files) ---- */

static void put(const char *key, const char *val)
{
	char path[512], tmp[560];
	FILE *f;

	snprintf(path, sizeof(path), "%s/val.mc.%s.%s", shared, kind, key);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, me);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", val) < 0 || fclose(f) || rename(tmp, path))
		die("cannot publish %s: %s", key, strerror(errno));
}

static void get(const char *key, char *val, size_t len)
{
	uint64_t end = now_ms() + 120000;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/val.mc.%s.%s", shared, kind, key);
	while (now_ms() < end) {
		f = fopen(path, "r");
		if (f) {
			if (!fgets(val, len, f))
				val[0] = 0;
			fclose(f);
			val[strcspn(val, "\n")] = 0;
			return;
		}
		usleep(50000);
	}
	die("no value for %s", key);
}

static void barrier(const char *name)
{
	uint64_t end = now_ms() + 120000;
	char path[600];
	int i, n;

	snprintf(path, sizeof(path), "%s/barrier.mc.%s.%s", shared, kind, name);
	mkdir(path, 0777);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%d", me);
	fclose(fopen(path, "w"));
	*strrchr(path, '/') = 0;
	while (now_ms() < end) {
		char f[640];

		for (i = 0, n = 0; i < 3; i++) {
			snprintf(f, sizeof(f), "%s/%d", path, i);
			n += access(f, F_OK) == 0;
		}
		if (n == 3)
			return;
		usleep(50000);
	}
	die("barrier %s", name);
}

/* ---- Data ---- */

static uint8_t pat(uint32_t seed, size_t i)
{
	return (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seed, i);
}

static long check_data(const uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seed, i))
			return (long)i;
	return -1;
}

/* Message n (1..NMSG) of a phase: its length and seed. */
static size_t msg_len(int n)
{
	static const size_t len[] = { 0, 1, 333, 777, MSG_MAX };

	return len[n];
}

/* ---- Verbs ---- */

struct qp {
	const char *name;
	struct ibv_qp *qp;
	struct ibv_cq *rcq;
	uint8_t *buf;		/* RQ_DEPTH slots */
	uint32_t lkey;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq;
static struct ibv_mr *mr;
static uint8_t *mem;
static int gid_index;
static union ibv_gid group, my_gid;
static uint8_t *sbuf;

static void post_recv(struct qp *q, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(q->buf + slot * SLOT),
		.length = SLOT,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_recv(q->qp, &wr, &bad))
		die("%s: post_recv: %s", q->name, strerror(errno));
}

static int to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = QKEY,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return errno;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return errno;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? errno : 0;
}

/* A UD QP in RTS with its receives posted; NULL qp if flags are refused. */
static int make_qp(struct qp *q, const char *name, int idx, uint32_t flags)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_UD,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = RQ_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	int i, err;

	q->name = name;
	q->rcq = ibv_create_cq(ctx, RQ_DEPTH, NULL, NULL, 0);
	if (!q->rcq)
		die("%s: create_cq: %s", name, strerror(errno));
	ia.send_cq = scq;
	ia.recv_cq = q->rcq;
	if (flags) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		ia.create_flags = flags;
	}
	q->qp = ibv_create_qp_ex(ctx, &ia);
	if (!q->qp) {
		err = errno;
		ibv_destroy_cq(q->rcq);
		q->rcq = NULL;
		if (flags)
			return err;
		die("%s: create_qp: %s", name, strerror(err));
	}
	err = to_rts(q->qp);
	if (err)
		die("%s: to RTS: %s", name, strerror(err));
	q->buf = mem + (size_t)idx * RQ_DEPTH * SLOT;
	for (i = 0; i < RQ_DEPTH; i++)
		post_recv(q, i);
	return 0;
}

static struct ibv_ah *make_ah(const union ibv_gid *dgid)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = gid_index,
			 .hop_limit = 64 },
	};
	struct ibv_ah *ah = ibv_create_ah(pd, &a);

	if (!ah)
		die("create_ah: %s", strerror(errno));
	return ah;
}

/* Send len bytes of seed (imm = seed) and wait for the completion. */
static void send_one(struct qp *q, struct ibv_ah *ah, uint32_t rqpn,
		     size_t len, uint32_t imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)sbuf, .length = len, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.imm_data = htonl(imm),
		.wr = { .ud = { .ah = ah, .remote_qpn = rqpn,
				.remote_qkey = QKEY } },
	}, *bad;
	struct ibv_wc wc;
	uint64_t end = now_ms() + WAIT_MS;
	int n;

	fill(sbuf, len, imm);
	if (ibv_post_send(q->qp, &wr, &bad))
		die("%s: post_send: %s", q->name, strerror(errno));
	do {
		n = ibv_poll_cq(scq, 1, &wc);
	} while (!n && now_ms() < end);
	if (n != 1 || wc.status != IBV_WC_SUCCESS)
		die("%s: send completion: %s", q->name,
		    n == 1 ? ibv_wc_status_str(wc.status) : "none");
}

/* The GRH area's destination address and whether it is the group. */
static bool grh_is_group(const uint8_t *grh)
{
	if (!strcmp(kind, "v2"))
		return !memcmp(grh + 20 + 16, group.raw + 12, 4);
	return !memcmp(grh + 24, group.raw, 16);
}

/*
 * Receive on q until the sentinel (want_sentinel) or until n messages
 * came (not): the messages must be 1..n from src_qpn in order, verified.
 * Returns how many group messages arrived; msgs beyond n count too.
 */
static int recv_phase(struct qp *q, const char *what, int n,
		      uint32_t src_qpn, bool want_sentinel, int wait_ms)
{
	uint64_t end = now_ms() + wait_ms;
	int got = 0, bad = 0;
	bool sentinel = false;
	struct ibv_wc wc;

	while (now_ms() < end && !sentinel &&
	       (want_sentinel || got < n)) {
		uint8_t *slot;
		uint32_t imm;
		long at;

		if (ibv_poll_cq(q->rcq, 1, &wc) != 1) {
			usleep(200);
			continue;
		}
		slot = q->buf + wc.wr_id * SLOT;
		imm = ntohl(wc.imm_data);
		if (wc.status != IBV_WC_SUCCESS) {
			diag("%s: %s: status %s", q->name, what,
			     ibv_wc_status_str(wc.status));
			bad++;
		} else if (imm == SENTINEL) {
			sentinel = true;
		} else if (got >= n || imm != (uint32_t)got + 1) {
			diag("%s: %s: message %u, expected %d of %d", q->name,
			     what, imm, got + 1, n);
			got++;
			bad++;
		} else {
			size_t len = msg_len(imm);

			got++;
			at = check_data(slot + GRH_LEN, len, imm);
			if (wc.byte_len != len + GRH_LEN || at >= 0 ||
			    !(wc.wc_flags & IBV_WC_GRH) ||
			    !(wc.wc_flags & IBV_WC_WITH_IMM) ||
			    wc.src_qp != src_qpn || !grh_is_group(slot)) {
				diag("%s: %s: message %u: byte_len %u (want %zu), byte %ld, flags %#x, src_qp %u (want %u), group %s",
				     q->name, what, imm, wc.byte_len,
				     len + GRH_LEN, at, wc.wc_flags,
				     wc.src_qp, src_qpn,
				     grh_is_group(slot) ? "yes" : "no");
				bad++;
			}
		}
		post_recv(q, wc.wr_id);
	}
	/*
	 * On the sender's device a copy is written before the send
	 * completes: one more now would be a second copy.
	 */
	if (!want_sentinel && got == n && ibv_poll_cq(q->rcq, 1, &wc) == 1) {
		diag("%s: %s: a copy too many (imm %u)", q->name, what,
		     ntohl(wc.imm_data));
		post_recv(q, wc.wr_id);
		bad++;
	}
	if (want_sentinel && !sentinel) {
		diag("%s: %s: no sentinel within %d ms", q->name, what,
		     wait_ms);
		bad++;
	}
	ok(!bad && got == n, "%s: %s: %d of %d", q->name, what, got, n);
	return got;
}

/* Group messages 1..NMSG from q, then the sentinels to R and X. */
static void send_phase(struct qp *q, struct ibv_ah *gah, int n,
		       struct ibv_ah *ah1, uint32_t qpn1,
		       struct ibv_ah *ah2, uint32_t qpn2)
{
	int i;

	/* remote_qpn is ignored for a group: the device sends 0xffffff. */
	for (i = 1; i <= n; i++)
		send_one(q, gah, 0xffffff, msg_len(i), i);
	send_one(q, ah1, qpn1, 8, SENTINEL);
	send_one(q, ah2, qpn2, 8, SENTINEL);
}

static void gid_str(const union ibv_gid *g, char *out)
{
	int i;

	for (i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", g->raw[i]);
}

static void gid_parse(const char *s, union ibv_gid *g)
{
	int i;
	unsigned int b;

	for (i = 0; i < 16; i++) {
		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			die("bad GID %s", s);
		g->raw[i] = b;
	}
}

/* The guest's receiver: its qpn and GID, for the sentinels. */
static void peer(int idx, uint32_t *qpn, union ibv_gid *gid)
{
	char key[16], val[128], g[40];

	snprintf(key, sizeof(key), "rx%d", idx);
	get(key, val, sizeof(val));
	if (sscanf(val, "%u %39s", qpn, g) != 2)
		die("bad value %s for %s", val, key);
	gid_parse(g, gid);
}

/* -e: what the device refuses, in guest 2. */
static void errors(void)
{
	struct ibv_device_attr da;
	struct qp q[MAX_QPS];
	struct ibv_qp **many;
	union ibv_gid uni = my_gid;
	struct ibv_qp_init_attr rc = {
		.send_cq = scq, .recv_cq = scq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_init_attr_ex rcx = {
		.send_cq = scq, .recv_cq = scq, .qp_type = IBV_QPT_RC,
		.cap = rc.cap, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB,
	};
	struct ibv_qp *rcqp;
	int i, n, err = 0;

	if (ibv_query_device(ctx, &da))
		die("query_device: %s", strerror(errno));
	ok(da.max_mcast_grp > 0 && da.max_mcast_qp_attach > 0 &&
	   da.max_total_mcast_qp_attach >=
	   da.max_mcast_qp_attach, "device reports %d groups of %d QPs (%d)",
	   da.max_mcast_grp, da.max_mcast_qp_attach,
	   da.max_total_mcast_qp_attach);
	n = da.max_mcast_qp_attach;
	if (n < 1 || n > 256)
		return;
	many = calloc(n + 1, sizeof(*many));
	for (i = 0; i <= n; i++) {
		memset(q, 0, sizeof(q));
		make_qp(&q[0], "full", 0, 0);
		many[i] = q[0].qp;
		err = ibv_attach_mcast(many[i], &group, 0);
		if (i < n && err)
			break;
	}
	ok(i == n + 1 && err == ENOMEM,
	   "attach QP %d of a group of %d: %s", i, n,
	   err ? strerror(err) : "attached");
	err = ibv_detach_mcast(many[0], &group, 0);
	ok(!err, "detach one of the full group: %s", strerror(err));
	err = ibv_attach_mcast(many[n], &group, 0);
	ok(!err, "then the last QP attaches: %s", strerror(err));
	for (i = 0; i <= n; i++) {
		struct ibv_cq *cq = many[i]->recv_cq;

		ibv_destroy_qp(many[i]);
		ibv_destroy_cq(cq);
	}
	free(many);

	rcqp = ibv_create_qp(pd, &rc);
	if (!rcqp)
		die("create RC QP: %s", strerror(errno));
	err = ibv_attach_mcast(rcqp, &group, 0);
	ok(err == EINVAL, "an RC QP cannot attach: %s", strerror(err));
	ibv_destroy_qp(rcqp);

	/* Only UD sends to groups; only the loopback flag has a device bit. */
	rcqp = ibv_create_qp_ex(ctx, &rcx);
	err = rcqp ? 0 : errno;
	ok(err == EOPNOTSUPP, "an RC QP with BLOCK_SELF_MCAST_LB is refused: %s",
	   rcqp ? "created" : strerror(err));
	if (rcqp)
		ibv_destroy_qp(rcqp);
	memset(q, 0, sizeof(q));
	err = make_qp(&q[0], "fcs", 0, IBV_QP_CREATE_SCATTER_FCS);
	ok(err == EOPNOTSUPP, "a UD QP with SCATTER_FCS is refused: %s",
	   q[0].qp ? "created" : strerror(err));
	if (q[0].qp) {
		ibv_destroy_qp(q[0].qp);
		ibv_destroy_cq(q[0].rcq);
	}

	memset(q, 0, sizeof(q));
	make_qp(&q[0], "uni", 0, 0);
	err = ibv_attach_mcast(q[0].qp, &uni, 0);
	ok(err == EINVAL, "a unicast GID is no group: %s", strerror(err));
	ibv_destroy_qp(q[0].qp);
	ibv_destroy_cq(q[0].rcq);
}

static void set_group(void)
{
	memset(&group, 0, sizeof(group));
	if (!strcmp(kind, "v2")) {
		group.raw[10] = 0xff;
		group.raw[11] = 0xff;
		group.raw[12] = 239;
		group.raw[13] = 1;
		group.raw[14] = 1;
		group.raw[15] = 1;
		return;
	}
	group.raw[0] = 0xff;
	group.raw[1] = 0x0e;
	group.raw[13] = 1;
	group.raw[15] = !strcmp(kind, "v6") ? 6 : 1;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct ibv_device **list;
	struct qp s = {}, r2 = {}, nlb = {}, r = {}, x = {};
	struct ibv_ah *gah, *ah1, *ah2;
	union ibv_gid g1, g2;
	uint32_t qpn1, qpn2;
	char val[128], gs[40], srcs[16];
	bool errs = false, have_n = false;
	int opt, i, err;

	while ((opt = getopt(argc, argv, "d:k:g:e")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'k':
			kind = optarg;
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 'e':
			errs = true;
			break;
		default:
			return 2;
		}
	}
	if (getenv("ROCX_GUEST_INDEX"))
		me = atoi(getenv("ROCX_GUEST_INDEX"));
	if (getenv("ROCX_SHARED"))
		shared = getenv("ROCX_SHARED");
	set_group();

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!dev || !strcmp(ibv_get_device_name(list[i]), dev))
			break;
	if (!list || !list[i])
		die("no device %s", dev ? dev : "");
	ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("open %s: %s", dev, strerror(errno));
	if (ibv_query_gid(ctx, 1, gid_index, &my_gid))
		die("query_gid %d: %s", gid_index, strerror(errno));
	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, SQ_DEPTH * MAX_QPS, NULL, NULL, 0);
	mem = calloc(MAX_QPS + 1, (size_t)RQ_DEPTH * SLOT);
	if (!pd || !scq || !mem)
		die("pd/cq/memory: %s", strerror(errno));
	mr = ibv_reg_mr(pd, mem, (size_t)(MAX_QPS + 1) * RQ_DEPTH * SLOT,
			IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("reg_mr: %s", strerror(errno));
	sbuf = mem + (size_t)MAX_QPS * RQ_DEPTH * SLOT;
	gid_str(&my_gid, gs);

	/* Set up and attach; the receivers publish themselves. */
	if (me == 0) {
		make_qp(&s, "S", 0, 0);
		make_qp(&r2, "R2", 1, 0);
		/* The device has multicast, so it has the flag too. */
		err = make_qp(&nlb, "N", 2, IBV_QP_CREATE_BLOCK_SELF_MCAST_LB);
		have_n = !err;
		ok(have_n, "N: create_qp_ex with BLOCK_SELF_MCAST_LB: %s",
		   strerror(err));
		ok(!ibv_attach_mcast(s.qp, &group, 0) &&
		   !ibv_attach_mcast(r2.qp, &group, 0) &&
		   (!have_n || !ibv_attach_mcast(nlb.qp, &group, 0)),
		   "guest 0 attaches S, R2%s", have_n ? " and N" : "");
		snprintf(srcs, sizeof(srcs), "%u %u", s.qp->qp_num,
			 have_n ? nlb.qp->qp_num : 0);
		put("src", srcs);
	} else if (me == 1) {
		make_qp(&r, "R", 0, 0);
		err = ibv_attach_mcast(r.qp, &group, 0);
		ok(!err, "guest 1 attaches R: %s", strerror(err));
		snprintf(val, sizeof(val), "%u %s", r.qp->qp_num, gs);
		put("rx1", val);
	} else {
		make_qp(&x, "X", 0, 0);
		snprintf(val, sizeof(val), "%u %s", x.qp->qp_num, gs);
		put("rx2", val);
	}
	barrier("ready");
	get("src", val, sizeof(val));
	{
		unsigned int a, b;

		if (sscanf(val, "%u %u", &a, &b) != 2)
			die("bad sources %s", val);
		qpn1 = a;	/* S */
		qpn2 = b;	/* N, or 0 */
	}

	if (me == 0) {
		uint32_t sq = qpn1, nq = qpn2;

		gah = make_ah(&group);
		peer(1, &qpn1, &g1);
		peer(2, &qpn2, &g2);
		ah1 = make_ah(&g1);
		ah2 = make_ah(&g2);

		/* a: S sends; its device's attached QPs get every message. */
		send_phase(&s, gah, NMSG, ah1, qpn1, ah2, qpn2);
		recv_phase(&s, "a: S's own sends loop back to S", NMSG, sq,
			   false, 2000);
		recv_phase(&r2, "a: S's sends loop back to R2", NMSG, sq,
			   false, 2000);
		if (have_n)
			recv_phase(&nlb, "a: S's sends loop back to N", NMSG,
				   sq, false, 2000);
		barrier("a");

		/* b: N sends with loopback blocked: nothing comes back. */
		if (have_n) {
			send_phase(&nlb, gah, NMSG, ah1, qpn1, ah2, qpn2);
			recv_phase(&s, "b: N's sends skip S", 0, nq, false,
				   300);
			recv_phase(&r2, "b: N's sends skip R2", 0, nq, false,
				   300);
			recv_phase(&nlb, "b: N's sends skip N itself", 0, nq,
				   false, 300);
		}
		barrier("b");

		/* c: after R detached, S's message stays on its device. */
		barrier("detached");
		send_phase(&s, gah, 1, ah1, qpn1, ah2, qpn2);
		recv_phase(&s, "c: S gets its send", 1, sq, false, 2000);
		recv_phase(&r2, "c: R2 gets S's send", 1, sq, false, 2000);
		barrier("c");
		ibv_destroy_ah(gah);
		ibv_destroy_ah(ah1);
		ibv_destroy_ah(ah2);
	} else {
		struct qp *q = me == 1 ? &r : &x;
		int want = me == 1 ? NMSG : 0;

		recv_phase(q, me == 1 ? "a: R gets S's group sends" :
			   "a: X, not attached, gets none", want, qpn1, true,
			   WAIT_MS);
		barrier("a");
		if (qpn2)
			recv_phase(q, me == 1 ? "b: R gets N's group sends" :
				   "b: X gets none of N's", want, qpn2, true,
				   WAIT_MS);
		barrier("b");
		if (me == 1) {
			err = ibv_detach_mcast(r.qp, &group, 0);
			ok(!err, "c: R detaches: %s", strerror(err));
		}
		barrier("detached");
		recv_phase(q, me == 1 ? "c: R, detached, gets none" :
			   "c: X gets none", 0, qpn1, true, WAIT_MS);
		barrier("c");
		if (errs && me == 2)
			errors();
	}

	/* Attached QPs are destroyed as they are: the kernel detaches them. */
	for (i = 0; i < 5; i++) {
		struct qp *all[] = { &s, &r2, &nlb, &r, &x };
		struct qp *q = all[i];

		if (q->qp)
			ibv_destroy_qp(q->qp);
		if (q->rcq)
			ibv_destroy_cq(q->rcq);
	}
	ibv_dereg_mr(mr);
	ibv_destroy_cq(scq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(mem);
	return failures ? 1 : 0;
}
