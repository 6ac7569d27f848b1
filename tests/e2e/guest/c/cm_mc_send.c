// SPDX-License-Identifier: GPL-2.0
/*
 * cm_mc_send - join an IPv4 or IPv6 multicast group through rdma_cm and
 * send it COUNT datagrams, each of which must complete before it leaves.
 *
 *   cm_mc_send -b BIND_ADDR -m GROUP [-C COUNT] [-S SIZE]
 *
 * The sending half of librdmacm's mckey, for tests whose receiver is
 * mckey (tests/e2e/guest/kverbs.sh, parts/rxe_cm.sh).  mckey -s posts
 * its sends unsignaled and at once leaves the group and destroys its QP,
 * and a device may discard what it has not sent when its QP goes: rxe
 * sends from a work item that finds the QP invalid and sends nothing
 * (rxe_qp.c, rxe_qp_do_cleanup(); rxe_req.c, rxe_requester()), which
 * under TCG happens often enough to lose a datagram a run.  Here every
 * send is signaled and the QP stays until all have completed, so a
 * receiver that misses one has found a real loss.
 *
 * Datagrams carry what mckey's carry (an immediate of the sender's QP
 * number, SIZE bytes, default 100, mckey's default too).  Prints what it
 * did; exits 0 once all COUNT sends completed successfully, 1 otherwise.
 */
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define EVENT_MS	10000
#define SEND_MS		10000

static void die(const char *fmt, const char *what)
{
	printf("cm_mc_send: ");
	printf(fmt, what);
	printf("\n");
	exit(1);
}

static void die_errno(const char *what)
{
	printf("cm_mc_send: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static void get_addr(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo *res;
	int ret;

	ret = getaddrinfo(s, NULL, NULL, &res);
	if (ret) {
		printf("cm_mc_send: %s: %s\n", s, gai_strerror(ret));
		exit(1);
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
}

/*
 * The next event on @ch, which must be @want; its UD parameters are
 * copied to @ud when @ud is not NULL.  Bounded: a join nobody answers
 * fails here rather than at the test's timeout.
 */
static void expect_event(struct rdma_event_channel *ch,
			 enum rdma_cm_event_type want,
			 struct rdma_ud_param *ud)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, EVENT_MS) != 1)
		die("no %s event within 10 s", rdma_event_str(want));
	if (rdma_get_cm_event(ch, &ev))
		die_errno("rdma_get_cm_event");
	if (ev->event != want) {
		printf("cm_mc_send: event %s (status %d), waiting for %s\n",
		       rdma_event_str(ev->event), ev->status,
		       rdma_event_str(want));
		exit(1);
	}
	if (ud)
		*ud = ev->param.ud;
	rdma_ack_cm_event(ev);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage src = {}, grp = {};
	const char *bind_s = NULL, *grp_s = NULL;
	struct ibv_qp_init_attr qa = {};
	struct rdma_event_channel *ch;
	struct ibv_send_wr wr = {}, *bad;
	struct rdma_ud_param ud;
	struct rdma_cm_id *id;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	int count = 10, size = 100, opt, i, done;
	uint64_t end;
	void *buf;

	while ((opt = getopt(argc, argv, "b:m:C:S:")) != -1) {
		switch (opt) {
		case 'b':
			bind_s = optarg;
			break;
		case 'm':
			grp_s = optarg;
			break;
		case 'C':
			count = atoi(optarg);
			break;
		case 'S':
			size = atoi(optarg);
			break;
		default:
			die("usage: %s -b BIND_ADDR -m GROUP [-C COUNT] [-S SIZE]",
			    argv[0]);
		}
	}
	if (!bind_s || !grp_s || count < 1 || count > 1024 || size < 1 ||
	    size > 1024)
		die("usage: %s -b BIND_ADDR -m GROUP [-C 1-1024] [-S 1-1024]",
		    argv[0]);
	get_addr(bind_s, &src);
	get_addr(grp_s, &grp);

	ch = rdma_create_event_channel();
	if (!ch)
		die_errno("rdma_create_event_channel");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		die_errno("rdma_create_id");
	if (rdma_bind_addr(id, (struct sockaddr *)&src))
		die_errno("rdma_bind_addr");
	if (rdma_resolve_addr(id, (struct sockaddr *)&src,
			      (struct sockaddr *)&grp, 2000))
		die_errno("rdma_resolve_addr");
	expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL);

	pd = ibv_alloc_pd(id->verbs);
	if (!pd)
		die_errno("ibv_alloc_pd");
	cq = ibv_create_cq(id->verbs, count, NULL, NULL, 0);
	if (!cq)
		die_errno("ibv_create_cq");
	buf = calloc(1, size);
	if (!buf)
		die_errno("calloc");
	mr = ibv_reg_mr(pd, buf, size, 0);
	if (!mr)
		die_errno("ibv_reg_mr");
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_UD;
	qa.cap.max_send_wr = count;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	/* rdma_cm brings a UD QP to RTS with its port space's Q_Key. */
	if (rdma_create_qp(id, pd, &qa))
		die_errno("rdma_create_qp");

	if (rdma_join_multicast(id, (struct sockaddr *)&grp, NULL))
		die_errno("rdma_join_multicast");
	expect_event(ch, RDMA_CM_EVENT_MULTICAST_JOIN, &ud);
	printf("cm_mc_send: joined %s: QPN %#x Q_Key %#x\n", grp_s,
	       ud.qp_num, ud.qkey);
	ah = ibv_create_ah(pd, &ud.ah_attr);
	if (!ah)
		die_errno("ibv_create_ah");

	sge.addr = (uintptr_t)buf;
	sge.length = size;
	sge.lkey = mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htobe32(id->qp->qp_num);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ud.qp_num;
	wr.wr.ud.remote_qkey = ud.qkey;
	for (i = 0; i < count; i++) {
		wr.wr_id = i;
		if (ibv_post_send(id->qp, &wr, &bad)) {
			printf("cm_mc_send: ibv_post_send %d of %d failed\n",
			       i + 1, count);
			return 1;
		}
	}
	end = now_ms() + SEND_MS;
	for (done = 0; done < count && now_ms() < end;) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0)
			die("ibv_poll_cq failed%s", "");
		if (!n) {
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			printf("cm_mc_send: send %llu: %s\n",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
			return 1;
		}
		done++;
	}
	printf("cm_mc_send: %d of %d sends to %s completed\n", done, count,
	       grp_s);
	if (done < count)
		return 1;

	if (rdma_leave_multicast(id, (struct sockaddr *)&grp))
		die_errno("rdma_leave_multicast");
	ibv_destroy_ah(ah);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	free(buf);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return 0;
}
