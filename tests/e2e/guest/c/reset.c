// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * reset: the user-space side of the reset group (guest/reset.sh).
 *
 *   reset [-d DEVICE] storm NQP
 *	NQP RC QPs in INIT share one CQ of two entries; three receives of
 *	the first are flushed into it, which overflows it: the device stops
 *	the CQ and moves every other QP to ERR, one QP_ERROR each.  Every
 *	one must reach this process as IBV_EVENT_QP_FATAL, once, with the
 *	CQ's IBV_EVENT_CQ_ERR; exit 0 only then.
 *   reset [-d DEVICE] [-r READY_FILE] hold
 *	Holds a context, PD, CQ, RC QP (INIT) and MR; says "ready" (and
 *	writes READY_FILE), then prints each asynchronous event.  SIGUSR1
 *	makes it register one more MR and print how that went and how long
 *	it took ("reg_mr: ..."), which a stalled admin queue makes last.
 *	SIGTERM: it releases everything, reporting failures without failing
 *	(the device may have been reset under it), says "released" and exits
 *	0.
 *
 * DEVICE defaults to the first device whose name starts with "rocx".
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static volatile sig_atomic_t stop, want_mr;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		want_mr = 1;
	else
		stop = 1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list) {
		perror("ibv_get_device_list");
		return NULL;
	}
	for (i = 0; list[i]; i++) {
		const char *n = ibv_get_device_name(list[i]);

		if (name ? !strcmp(n, name) : !strncmp(n, "rocx", 4)) {
			ctx = ibv_open_device(list[i]);
			if (!ctx)
				perror("ibv_open_device");
			break;
		}
	}
	if (!list[i])
		fprintf(stderr, "no device %s\n", name ? name : "rocx*");
	ibv_free_device_list(list);
	return ctx;
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			    unsigned int recv_wr)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = recv_wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp) {
		perror("ibv_create_qp");
		return NULL;
	}
	errno = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (errno) {
		perror("ibv_modify_qp INIT");
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static int storm(struct ibv_context *ctx, int nqp)
{
	int i, qp_fatal = 0, distinct = 0, cq_err = 0, other = 0, rc = 1;
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_qp_attr err_attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_recv_wr wr = { .num_sge = 1 }, *bad;
	struct ibv_async_event ev;
	struct ibv_qp **qp;
	struct ibv_sge sge;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	long long t0, deadline;
	char *seen;

	qp = calloc(nqp, sizeof(*qp));
	seen = calloc(nqp, 1);
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 1, NULL, NULL, 0) : NULL;
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	if (!qp || !seen || !pd || !cq || !mr) {
		perror("storm: PD, CQ or MR");
		return 1;
	}
	for (i = 0; i < nqp; i++) {
		qp[i] = rc_qp(pd, cq, i ? 0 : 4);
		if (!qp[i]) {
			fprintf(stderr, "storm: QP %d of %d\n", i, nqp);
			return 1;
		}
	}
	sge.addr = (uintptr_t)buf;
	sge.length = 64;
	sge.lkey = mr->lkey;
	wr.sg_list = &sge;
	for (i = 0; i < 3; i++) {
		wr.wr_id = i;
		if (ibv_post_recv(qp[0], &wr, &bad)) {
			perror("storm: ibv_post_recv");
			return 1;
		}
	}
	/* Three flush completions for a CQ of two. */
	t0 = now_ms();
	if (ibv_modify_qp(qp[0], &err_attr, IBV_QP_STATE)) {
		perror("storm: ibv_modify_qp ERR");
		return 1;
	}

	deadline = t0 + 60000;
	while ((distinct < nqp - 1 || !cq_err) && now_ms() < deadline) {
		struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

		if (poll(&p, 1, 200) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			break;
		if (ev.event_type == IBV_EVENT_QP_FATAL) {
			qp_fatal++;
			for (i = 1; i < nqp && qp[i] != ev.element.qp; i++)
				;
			if (i < nqp && !seen[i]) {
				seen[i] = 1;
				distinct++;
			}
		} else if (ev.event_type == IBV_EVENT_CQ_ERR &&
			   ev.element.cq == cq) {
			cq_err++;
		} else {
			other++;
			printf("storm: event %s\n",
			       ibv_event_type_str(ev.event_type));
		}
		ibv_ack_async_event(&ev);
	}
	/* A late duplicate would show here. */
	usleep(500000);
	while (poll(&(struct pollfd){ .fd = ctx->async_fd, .events = POLLIN },
		    1, 0) > 0 && !ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_QP_FATAL)
			qp_fatal++;
		else
			other++;
		ibv_ack_async_event(&ev);
	}
	printf("storm: %d QPs: IBV_EVENT_QP_FATAL %d (%d QPs), IBV_EVENT_CQ_ERR %d, other %d, in %lld ms\n",
	       nqp, qp_fatal, distinct, cq_err, other, now_ms() - t0);
	if (qp_fatal == nqp - 1 && distinct == nqp - 1 && cq_err == 1 &&
	    !other)
		rc = 0;

	for (i = 0; i < nqp; i++)
		if (ibv_destroy_qp(qp[i]))
			rc = 1;
	if (ibv_destroy_cq(cq) || ibv_dereg_mr(mr) || ibv_dealloc_pd(pd))
		rc = 1;
	free(qp);
	free(seen);
	return rc;
}

static void reg_mr_once(struct ibv_pd *pd)
{
	static char buf[65536] __attribute__((aligned(4096)));
	long long t0 = now_ms();
	struct ibv_mr *mr;

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (mr) {
		printf("reg_mr: ok, key %#x, after %lld ms\n", mr->lkey,
		       now_ms() - t0);
		ibv_dereg_mr(mr);
	} else {
		printf("reg_mr: failed: %s, after %lld ms\n", strerror(errno),
		       now_ms() - t0);
	}
	fflush(stdout);
}

static int hold(struct ibv_context *ctx, const char *ready_file)
{
	static char buf[65536] __attribute__((aligned(4096)));
	struct ibv_async_event ev;
	bool events = true;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	int err;

	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	qp = cq ? rc_qp(pd, cq, 4) : NULL;
	if (!pd || !cq || !mr || !qp) {
		perror("hold: PD, CQ, MR or QP");
		return 1;
	}
	printf("ready pid=%d qpn=%u cqe=%d lkey=%#x\n", (int)getpid(),
	       qp->qp_num, cq->cqe, mr->lkey);
	fflush(stdout);
	if (ready_file) {
		FILE *f = fopen(ready_file, "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
			perror(ready_file);
			return 1;
		}
	}

	while (!stop) {
		struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

		if (want_mr) {
			want_mr = 0;
			reg_mr_once(pd);
		}
		if (!events) {
			usleep(100000);
			continue;
		}
		if (poll(&p, 1, 100) <= 0)
			continue;
		/* After disassociation the file reports an error: stop. */
		if (ibv_get_async_event(ctx, &ev)) {
			events = false;
			continue;
		}
		printf("event %s\n", ibv_event_type_str(ev.event_type));
		fflush(stdout);
		ibv_ack_async_event(&ev);
	}

	/* The device may have been reset: report, do not fail. */
	err = ibv_destroy_qp(qp);
	if (err)
		printf("destroy_qp: %s\n", strerror(err));
	err = ibv_destroy_cq(cq);
	if (err)
		printf("destroy_cq: %s\n", strerror(err));
	err = ibv_dereg_mr(mr);
	if (err)
		printf("dereg_mr: %s\n", strerror(err));
	err = ibv_dealloc_pd(pd);
	if (err)
		printf("dealloc_pd: %s\n", strerror(err));
	printf("released\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *ready = NULL;
	struct ibv_context *ctx;
	struct sigaction sa;
	int opt, rc;

	while ((opt = getopt(argc, argv, "d:r:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'r':
			ready = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wake the poll */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	ctx = open_dev(dev);
	if (!ctx)
		return 1;
	if (!strcmp(argv[optind], "storm") && optind + 1 < argc)
		rc = storm(ctx, atoi(argv[optind + 1]));
	else if (!strcmp(argv[optind], "hold"))
		rc = hold(ctx, ready);
	else
		goto usage;
	ibv_close_device(ctx);
	return rc;

usage:
	fprintf(stderr, "usage: %s [-d DEVICE] storm NQP | [-d DEVICE] [-r READY_FILE] hold\n",
		argv[0]);
	return 2;
}
