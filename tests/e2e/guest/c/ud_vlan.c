// SPDX-License-Identifier: GPL-2.0
/*
 * ud_vlan - a UD sender that forges its address vector's VLAN
 * (tests/e2e/groups/dcb.sh).
 *
 *   ud_vlan -d DEV -g GID_INDEX -v VLAN [-n COUNT]
 *
 * Sends COUNT (4) UD messages with Q_Key UD_VLAN_QKEY from GID_INDEX, a
 * RoCE v2 IPv4 GID, to the group ::ffff:239.1.2.9 (a group needs no peer
 * and no ARP, and nobody need be attached), after overwriting the VLAN of
 * the AH's address vector with VLAN.  The rocx provider keeps that vector
 * in the process's memory and copies it into every WQE, so this is what
 * any process can do to its own WQEs.  The device must send on the VLAN
 * of the GID entry, whatever the AV says (Documentation/rocx-device.rst,
 * "Address vectors and priorities"); host/prio_tag_check.sh checks the
 * capture.  Every send must complete successfully: the device overrides,
 * it does not refuse.  Exits 1, saying why, if anything fails.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "rocx/rocx_verbs.h"

#define UD_VLAN_QKEY	0x766c616eu	/* "vlan": host/prio_tag_check.sh */
#define MSG_LEN		64
#define WAIT_MS		10000

/* The provider's AH (providers/rocx/rocx.h): ib_core's, then the AV. */
struct forged_ah {
	struct ibv_ah ibvah;
	struct rocx_av av;
};

static void die(const char *what)
{
	fprintf(stderr, "ud_vlan: %s\n", what);
	exit(1);
}

static bool wait_cqe(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n > 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > WAIT_MS)
			return false;
	}
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	int gid_index = -1, vlan = -1, count = 4, opt, i, n;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_qp_init_attr qia = {};
	struct ibv_qp_attr qa = {};
	struct ibv_ah_attr aa = {};
	struct forged_ah *fah;
	struct ibv_ah *ah;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	static char buf[MSG_LEN];

	while ((opt = getopt(argc, argv, "d:g:v:n:")) != -1) {
		switch (opt) {
		case 'd':
			name = optarg;
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 'v':
			vlan = atoi(optarg);
			break;
		case 'n':
			count = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!name || gid_index < 0 || vlan < 0 || count < 1 || count > 16) {
		fprintf(stderr, "usage: %s -d DEV -g GID_INDEX -v VLAN [-n COUNT]\n",
			argv[0]);
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("open the device");
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 2 * count, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), 0) : NULL;
	if (!mr)
		die("PD, CQ and MR");
	qia.send_cq = cq;
	qia.recv_cq = cq;
	qia.qp_type = IBV_QPT_UD;
	qia.cap.max_send_wr = count;
	qia.cap.max_recv_wr = 1;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qia);
	if (!qp)
		die("create a UD QP");
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = UD_VLAN_QKEY;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("QP to INIT");
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE))
		die("QP to RTR");
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 0;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("QP to RTS");

	aa.is_global = 1;
	aa.port_num = 1;
	aa.grh.sgid_index = gid_index;
	aa.grh.hop_limit = 64;
	aa.grh.dgid.raw[10] = 0xff;
	aa.grh.dgid.raw[11] = 0xff;
	inet_pton(AF_INET, "239.1.2.9", &aa.grh.dgid.raw[12]);
	ah = ibv_create_ah(pd, &aa);
	if (!ah)
		die("create an AH to ::ffff:239.1.2.9");
	fah = (struct forged_ah *)ah;
	printf("GID %d: the kernel's AV says VLAN %u; forged to %d\n",
	       gid_index, le16toh(fah->av.vlan), vlan);
	fah->av.vlan = htole16(vlan);

	for (i = 0; i < count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)buf,
			.length = sizeof(buf),
			.lkey = mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = {
				.ah = ah,
				.remote_qpn = 0xffffff,
				.remote_qkey = UD_VLAN_QKEY,
			},
		}, *bad;
		struct ibv_wc wc;

		if (ibv_post_send(qp, &wr, &bad))
			die("post a send");
		if (!wait_cqe(cq, &wc))
			die("no send completion");
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "send %d: %s\n", i,
				ibv_wc_status_str(wc.status));
			die("a send with a forged VLAN failed");
		}
	}
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
