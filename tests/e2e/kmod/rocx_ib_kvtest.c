// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib_kvtest: kernel verbs on a live rocx device, run at module load
 * by the e2e group kverbs (tests/e2e/guest/kverbs.sh).
 *
 * Two RC QPs and two UD QPs on one device talk through the device's own
 * loopback (a packet to one of the port's GIDs never leaves it), as a
 * kernel consumer would: ib_alloc_pd() with its DMA lkey and global rkey,
 * ib_alloc_cq() polled in softirq, work requests posted from a timer
 * (softirq) and from the completion handlers, an address handle created
 * under a spinlock, errors provoked (bad_wr), and ib_drain_qp(); then a
 * kernel SRQ shared by two RC QPs, filled from softirq, with its limit
 * event.  Every byte moved is checked.  Results are TAP lines in the kernel log; the
 * module stays loaded so the script can read "rocx_kvtest: done".
 */
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *ibdev = "rocx0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "ib_device to test");

/*
 * ib_core lets a RoCE device leave the source MAC out of a UD completion
 * (it resolves the MAC from the GRH then); rocx reports it and is held to
 * that, Soft-RoCE does not on loopback.
 */
static bool wc_smac = true;
module_param(wc_smac, bool, 0444);
MODULE_PARM_DESC(wc_smac, "UD completions must carry the source MAC");

#define KV_N		16	/* messages per round */
#define KV_LEN		1024	/* bytes per message */
#define KV_QKEY		0x11111111
#define KV_GRH		40

static int kv_fail;

#define kv_ok(cond, fmt, ...) do {					\
	bool __c = (cond);						\
	if (!__c)							\
		kv_fail++;						\
	pr_info("rocx_kvtest: %s - " fmt "\n", __c ? "ok" : "not ok",	\
		##__VA_ARGS__);						\
} while (0)

struct kv_ctx {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *a, *b;		/* RC */
	struct ib_qp *ua, *ub;		/* UD */
	struct ib_ah *ah;
	const struct ib_gid_attr *sgid;
	union ib_gid gid;		/* sgid's, as the destination too */
	u8 mac[ETH_ALEN];		/* sgid's netdev's, likewise */
	u8 *buf;			/* [0, n*len) source, [n*len, 2n*len) sink */
	dma_addr_t dma;
	size_t size;
	struct ib_cqe send_cqe, recv_cqe;
	atomic_t sends, recvs, errors, flushed;
	struct completion done;
	int want_recvs;
	struct ib_wc last_recv;
	struct timer_list timer;
	int timer_err;
	spinlock_t ah_lock;		/* held across rdma_create_ah() */
	struct ib_srq *srq;
	struct ib_qp *sx, *sy;		/* RC, both receiving from srq */
	struct kv_slot *slots;		/* one per SRQ receive posted */
	struct timer_list srq_timer;
	int srq_timer_err;
	struct completion srq_posted, srq_limit;
	enum ib_event_type srq_event;
	struct ib_srq *srq_event_srq;
};

/* An SRQ receive: which QP took it, and how much arrived. */
struct kv_slot {
	struct ib_cqe cqe;
	struct ib_qp *qp;
	u32 len;
	bool done;
};

static struct kv_ctx *kv;

static u8 kv_pattern(int msg, int i)
{
	return (u8)(msg * 31 + i * 7 + 1);
}

static void kv_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		atomic_inc(&kv->flushed);
	else if (wc->status != IB_WC_SUCCESS)
		atomic_inc(&kv->errors);
	atomic_inc(&kv->sends);
}

static void kv_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		atomic_inc(&kv->flushed);
		return;
	}
	if (wc->status != IB_WC_SUCCESS)
		atomic_inc(&kv->errors);
	kv->last_recv = *wc;
	if (atomic_inc_return(&kv->recvs) == kv->want_recvs)
		complete(&kv->done);
}

static int kv_post_recvs(struct ib_qp *qp, int n, u32 off, u32 len)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	int i, err;

	for (i = 0; i < n; i++) {
		sge.addr = kv->dma + off + (u64)i * len;
		sge.length = len;
		sge.lkey = kv->pd->local_dma_lkey;
		wr.wr_cqe = &kv->recv_cqe;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		err = ib_post_recv(qp, &wr, &bad);
		if (err)
			return err;
	}
	return 0;
}

/* KV_N SENDs (or UD SENDs) as one chain, from whatever context calls it. */
static int kv_post_sends(struct ib_qp *qp, bool ud)
{
	struct ib_ud_wr wr[KV_N] = {};
	struct ib_sge sge[KV_N];
	const struct ib_send_wr *bad;
	int i;

	for (i = 0; i < KV_N; i++) {
		sge[i].addr = kv->dma + (u64)i * KV_LEN;
		sge[i].length = KV_LEN;
		sge[i].lkey = kv->pd->local_dma_lkey;
		wr[i].wr.wr_cqe = &kv->send_cqe;
		wr[i].wr.sg_list = &sge[i];
		wr[i].wr.num_sge = 1;
		wr[i].wr.opcode = IB_WR_SEND;
		wr[i].wr.send_flags = IB_SEND_SIGNALED;
		wr[i].wr.next = i + 1 < KV_N ? &wr[i + 1].wr : NULL;
		if (ud) {
			wr[i].ah = kv->ah;
			wr[i].remote_qpn = kv->ub->qp_num;
			wr[i].remote_qkey = KV_QKEY;
		}
	}
	return ib_post_send(qp, &wr[0].wr, &bad);
}

static void kv_timer_fn(struct timer_list *t)
{
	/* Softirq: the chain must go out without sleeping. */
	kv->timer_err = kv_post_sends(kv->a, false);
}

static bool kv_wait(int recvs)
{
	return wait_for_completion_timeout(&kv->done, 20 * HZ) &&
	       atomic_read(&kv->recvs) >= recvs;
}

/*
 * Send completions up to n, 20 s at the most (kv_wait's bound): a
 * requester's completion waits for the responder's ACK, so it can come
 * after the receive it matched.
 */
static bool kv_wait_sends(int n)
{
	int i;

	for (i = 0; i < 10000 && atomic_read(&kv->sends) < n; i++)
		usleep_range(1000, 2000);
	return atomic_read(&kv->sends) >= n;
}

static void kv_reset_counts(int want)
{
	atomic_set(&kv->sends, 0);
	atomic_set(&kv->recvs, 0);
	atomic_set(&kv->errors, 0);
	atomic_set(&kv->flushed, 0);
	kv->want_recvs = want;
	reinit_completion(&kv->done);
}

static bool kv_check(u32 off, u32 stride, u32 skip)
{
	int m, i;

	for (m = 0; m < KV_N; m++)
		for (i = 0; i < KV_LEN; i++)
			if (kv->buf[off + m * stride + skip + i] != kv_pattern(m, i))
				return false;
	return true;
}

/* 0 if @b holds message @m, else the offset of the first wrong byte + 1. */
static int kv_check_msg(const u8 *b, int m)
{
	int i;

	for (i = 0; i < KV_LEN; i++)
		if (b[i] != kv_pattern(m, i))
			return i + 1;
	return 0;
}

static int kv_rc_connect(struct ib_qp *qp, u32 dest)
{
	struct ib_qp_attr attr = {};
	int err;

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_READ;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = dest;
	attr.rq_psn = 100;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &kv->gid, 0, kv->sgid->index, 64, 0);
	ether_addr_copy(attr.ah_attr.roce.dmac, kv->mac);
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = 100;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

static int kv_ud_ready(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT, .port_num = 1,
				   .qkey = KV_QKEY };
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 1;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static struct ib_qp *kv_qp(enum ib_qp_type type)
{
	struct ib_qp_init_attr init = {
		.send_cq = kv->cq, .recv_cq = kv->cq, .qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 2 * KV_N, .max_recv_wr = 2 * KV_N,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};

	return ib_create_qp(kv->pd, &init);
}

/* A RoCE v2 IPv4 GID of the port: the guest script has set an address. */
static const struct ib_gid_attr *kv_find_gid(struct ib_device *dev)
{
	const struct ib_gid_attr *attr;
	int i;

	for (i = 0; i < dev->port_data[1].immutable.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(dev, 1, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw))
			return attr;
		rdma_put_gid_attr(attr);
	}
	return NULL;
}

static void kv_rc_tests(void)
{
	struct ib_rdma_wr rw = {};
	struct ib_send_wr bad_op = {}, two[2] = {};
	const struct ib_send_wr *bad;
	struct ib_sge sge, many[9];
	u32 sink = KV_N * KV_LEN;
	int err, i;

	kv->a = kv_qp(IB_QPT_RC);
	kv->b = kv_qp(IB_QPT_RC);
	kv_ok(!IS_ERR(kv->a) && !IS_ERR(kv->b), "two kernel RC QPs created");
	if (IS_ERR(kv->a) || IS_ERR(kv->b))
		return;
	err = kv_rc_connect(kv->a, kv->b->qp_num);
	if (!err)
		err = kv_rc_connect(kv->b, kv->a->qp_num);
	kv_ok(!err, "RC QPs %u and %u connected through loopback (%d)",
	      kv->a->qp_num, kv->b->qp_num, err);
	if (err)
		return;

	/* SENDs posted from a timer (softirq), received into the sink. */
	memset(kv->buf + sink, 0, sink);
	kv_reset_counts(KV_N);
	kv_ok(!kv_post_recvs(kv->b, KV_N, sink, KV_LEN), "post_recv x%d", KV_N);
	mod_timer(&kv->timer, jiffies + 1);
	kv_ok(kv_wait(KV_N), "%d SENDs posted from softirq arrived", KV_N);
	/* Before the counts are reset: a late one would count as the WRITE's. */
	kv_ok(kv_wait_sends(KV_N) && atomic_read(&kv->sends) == KV_N,
	      "%d SEND completions (%d)", KV_N, atomic_read(&kv->sends));
	kv_ok(!kv->timer_err, "post_send in softirq returned %d", kv->timer_err);
	kv_ok(!atomic_read(&kv->errors), "no error completions");
	kv_ok(kv_check(sink, KV_LEN, 0), "SEND data verified, %d x %d bytes",
	      KV_N, KV_LEN);
	kv_ok(kv->last_recv.byte_len == KV_LEN && kv->last_recv.qp == kv->b,
	      "receive completion: byte_len %u, QP", kv->last_recv.byte_len);

	/* RDMA WRITE then READ through the PD's global rkey. */
	memset(kv->buf + sink, 0, sink);
	sge.addr = kv->dma;
	sge.length = sink;
	sge.lkey = kv->pd->local_dma_lkey;
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.wr.wr_cqe = &kv->send_cqe;
	rw.wr.send_flags = IB_SEND_SIGNALED;
	rw.wr.sg_list = &sge;
	rw.wr.num_sge = 1;
	rw.remote_addr = kv->dma + sink;
	rw.rkey = kv->pd->unsafe_global_rkey;
	kv_reset_counts(0);
	err = ib_post_send(kv->a, &rw.wr, &bad);
	kv_ok(!err && kv_wait_sends(1) && atomic_read(&kv->sends) == 1 &&
	      !atomic_read(&kv->errors),
	      "RDMA WRITE of %u bytes completed (%d, %d completions)", sink,
	      err, atomic_read(&kv->sends));
	kv_ok(kv_check(sink, KV_LEN, 0), "RDMA WRITE data verified");

	memset(kv->buf, 0, sink);
	rw.wr.opcode = IB_WR_RDMA_READ;
	kv_reset_counts(0);
	err = ib_post_send(kv->a, &rw.wr, &bad);
	kv_ok(!err && kv_wait_sends(1) && atomic_read(&kv->sends) == 1 &&
	      !atomic_read(&kv->errors),
	      "RDMA READ of %u bytes completed (%d, %d completions)", sink,
	      err, atomic_read(&kv->sends));
	kv_ok(kv_check(0, KV_LEN, 0), "RDMA READ data verified");

	/* Refused work requests: the errno and bad_wr name the culprit. */
	bad_op.opcode = IB_WR_LSO;
	bad_op.wr_cqe = &kv->send_cqe;
	bad = NULL;
	err = ib_post_send(kv->a, &bad_op, &bad);
	kv_ok(err == -EINVAL && bad == &bad_op,
	      "unknown opcode: -EINVAL and bad_wr (%d)", err);
	/* More SGEs than any rocx WQE holds (IDENTIFY.max_sge is 8). */
	for (i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = sge;
	many[0].length = 8;
	two[0].opcode = IB_WR_SEND;
	two[0].wr_cqe = &kv->send_cqe;
	two[0].sg_list = many;
	two[0].num_sge = 1;
	two[0].send_flags = IB_SEND_SIGNALED;
	two[0].next = &two[1];
	two[1] = two[0];
	two[1].next = NULL;
	two[1].sg_list = many;
	two[1].num_sge = ARRAY_SIZE(many);
	kv_reset_counts(1);
	kv_ok(!kv_post_recvs(kv->b, 1, sink, KV_LEN), "post_recv x1");
	bad = NULL;
	err = ib_post_send(kv->a, two, &bad);
	kv_ok(err == -EINVAL && bad == &two[1],
	      "too many SGEs in the 2nd WR: -EINVAL, bad_wr the 2nd (%d)", err);
	kv_ok(kv_wait(1) && kv_wait_sends(1), "the 1st WR of that chain was sent");

	/* Drain: outstanding receives flush, the drain WRs complete. */
	kv_reset_counts(0);
	kv_ok(!kv_post_recvs(kv->a, 4, sink, KV_LEN), "post_recv x4 on A");
	ib_drain_qp(kv->a);
	kv_ok(atomic_read(&kv->flushed) == 4,
	      "ib_drain_qp: 4 receives flushed (%d)", atomic_read(&kv->flushed));
}

static void kv_ud_tests(void)
{
	struct rdma_ah_attr ah_attr = {};
	u32 sink = KV_N * KV_LEN;
	u32 stride = KV_LEN + KV_GRH;
	unsigned long flags;
	int err;

	kv->ua = kv_qp(IB_QPT_UD);
	kv->ub = kv_qp(IB_QPT_UD);
	kv_ok(!IS_ERR(kv->ua) && !IS_ERR(kv->ub), "two kernel UD QPs created");
	if (IS_ERR(kv->ua) || IS_ERR(kv->ub))
		return;
	err = kv_ud_ready(kv->ua);
	if (!err)
		err = kv_ud_ready(kv->ub);
	kv_ok(!err, "UD QPs to RTS (%d)", err);
	if (err)
		return;

	ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&ah_attr, 1);
	rdma_ah_set_grh(&ah_attr, &kv->gid, 0, kv->sgid->index, 64, 0);
	ether_addr_copy(ah_attr.roce.dmac, kv->mac);
	/* As ib_mad and ib_cm do: in atomic context. */
	spin_lock_irqsave(&kv->ah_lock, flags);
	kv->ah = rdma_create_ah(kv->pd, &ah_attr, 0);
	spin_unlock_irqrestore(&kv->ah_lock, flags);
	kv_ok(!IS_ERR(kv->ah), "rdma_create_ah under a spinlock (%d)",
	      PTR_ERR_OR_ZERO(kv->ah));
	if (IS_ERR(kv->ah))
		return;

	memset(kv->buf + sink, 0, KV_N * stride);
	kv_reset_counts(KV_N);
	kv_ok(!kv_post_recvs(kv->ub, KV_N, sink, stride), "UD post_recv x%d",
	      KV_N);
	local_bh_disable();
	err = kv_post_sends(kv->ua, true);
	local_bh_enable();
	kv_ok(!err, "UD post_send with bottom halves off (%d)", err);
	kv_ok(kv_wait(KV_N), "%d UD SENDs arrived", KV_N);
	kv_ok(!atomic_read(&kv->errors), "no UD error completions");
	kv_ok(kv_check(sink, stride, KV_GRH), "UD data after the 40-byte GRH area verified");
	kv_ok(kv->last_recv.byte_len == stride,
	      "UD byte_len counts the GRH area (%u)", kv->last_recv.byte_len);
	kv_ok(kv->last_recv.src_qp == kv->ua->qp_num,
	      "UD src_qp %u", kv->last_recv.src_qp);
	kv_ok((kv->last_recv.wc_flags & IB_WC_GRH) &&
	      (kv->last_recv.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) &&
	      kv->last_recv.network_hdr_type == RDMA_NETWORK_IPV4,
	      "UD completion: GRH, network header type IPv4");
	if (wc_smac)
		kv_ok((kv->last_recv.wc_flags & IB_WC_WITH_SMAC) &&
		      ether_addr_equal(kv->last_recv.smac, kv->mac),
		      "UD completion: source MAC");
	else
		kv_ok(!(kv->last_recv.wc_flags & IB_WC_WITH_SMAC) ||
		      ether_addr_equal(kv->last_recv.smac, kv->mac),
		      "UD completion: source MAC, if reported, the sender's");
	/* An IPv4 header at offset 20 of the GRH area. */
	kv_ok((kv->buf[sink + (KV_N - 1) * stride + 20] >> 4) == 4,
	      "GRH area: IPv4 header at offset 20");
}

static void kv_srq_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_slot *slot = container_of(wc->wr_cqe, struct kv_slot, cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		atomic_inc(&kv->flushed);
		return;
	}
	if (wc->status != IB_WC_SUCCESS)
		atomic_inc(&kv->errors);
	slot->qp = wc->qp;
	slot->len = wc->byte_len;
	slot->done = true;
	if (atomic_inc_return(&kv->recvs) == kv->want_recvs)
		complete(&kv->done);
}

/* A chain of @n SRQ receives into the sink, slots @first on. */
static int kv_post_srq_recvs(int first, int n, const struct ib_recv_wr **bad)
{
	struct ib_recv_wr wr[KV_N] = {};
	struct ib_sge sge[KV_N];
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = kv->dma + (u64)(KV_N + first + i) * KV_LEN;
		sge[i].length = KV_LEN;
		sge[i].lkey = kv->pd->local_dma_lkey;
		kv->slots[first + i].cqe.done = kv_srq_recv_done;
		wr[i].wr_cqe = &kv->slots[first + i].cqe;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	return ib_post_srq_recv(kv->srq, wr, bad);
}

static void kv_srq_timer_fn(struct timer_list *t)
{
	const struct ib_recv_wr *bad;

	/* Softirq: the chain must be posted without sleeping. */
	kv->srq_timer_err = kv_post_srq_recvs(0, KV_N, &bad);
	complete(&kv->srq_posted);
}

static void kv_srq_event(struct ib_event *ev, void *ctx)
{
	kv->srq_event = ev->event;
	kv->srq_event_srq = ev->element.srq;
	complete(&kv->srq_limit);
}

/* Messages [first, first + n) of the source, SENDs from @qp. */
static int kv_post_send_range(struct ib_qp *qp, int first, int n)
{
	struct ib_send_wr wr[KV_N] = {};
	struct ib_sge sge[KV_N];
	const struct ib_send_wr *bad;
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = kv->dma + (u64)(first + i) * KV_LEN;
		sge[i].length = KV_LEN;
		sge[i].lkey = kv->pd->local_dma_lkey;
		wr[i].wr_cqe = &kv->send_cqe;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IB_WR_SEND;
		wr[i].send_flags = IB_SEND_SIGNALED;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	return ib_post_send(qp, wr, &bad);
}

/*
 * Each message arrived once, in a slot that saw KV_LEN bytes, at the QP
 * it was sent to: 0..KV_N/2-1 from sx to sy, the rest from sy to sx.
 * A message's first byte is kv_pattern(m, 0) = 31m + 1, and 223 is 31's
 * inverse mod 256.
 */
static bool kv_srq_check(void)
{
	bool seen[KV_N] = {};
	int s, m;

	for (s = 0; s < KV_N; s++) {
		const u8 *b = kv->buf + (KV_N + s) * KV_LEN;

		if (!kv->slots[s].done || kv->slots[s].len != KV_LEN)
			return false;
		m = (u8)((b[0] - 1) * 223);
		if (m >= KV_N || seen[m] || kv_check_msg(b, m) ||
		    kv->slots[s].qp != (m < KV_N / 2 ? kv->sy : kv->sx))
			return false;
		seen[m] = true;
	}
	return true;
}

static struct ib_qp *kv_srq_qp(void)
{
	struct ib_qp_init_attr init = {
		.send_cq = kv->cq, .recv_cq = kv->cq, .qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR, .srq = kv->srq,
		.cap = { .max_send_wr = 2 * KV_N, .max_send_sge = 1 },
	};

	return ib_create_qp(kv->pd, &init);
}

static void kv_srq_tests(void)
{
	struct ib_srq_init_attr init = {
		.event_handler = kv_srq_event,
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 2 * KV_N, .max_sge = 1 },
	};
	struct ib_srq_attr attr = {};
	struct ib_recv_wr two[2] = {}, *many;
	const struct ib_recv_wr *bad;
	struct ib_sge sge, big[2];
	u32 sink = KV_N * KV_LEN;
	int err, i, depth;

	kv->srq = ib_create_srq(kv->pd, &init);
	kv_ok(!IS_ERR(kv->srq), "kernel SRQ created (%d)",
	      PTR_ERR_OR_ZERO(kv->srq));
	if (IS_ERR(kv->srq))
		return;
	err = ib_query_srq(kv->srq, &attr);
	depth = attr.max_wr;
	kv_ok(!err && attr.max_wr >= 2 * KV_N && attr.max_sge >= 1 &&
	      !attr.srq_limit, "query_srq: max_wr %u, max_sge %u, limit %u",
	      attr.max_wr, attr.max_sge, attr.srq_limit);
	if (err || depth < 2 * KV_N)
		return;
	kv->slots = kcalloc(depth + 1, sizeof(*kv->slots), GFP_KERNEL);
	if (!kv->slots)
		return;
	kv->sx = kv_srq_qp();
	kv->sy = kv_srq_qp();
	kv_ok(!IS_ERR(kv->sx) && !IS_ERR(kv->sy),
	      "two kernel RC QPs on the SRQ created");
	if (IS_ERR(kv->sx) || IS_ERR(kv->sy))
		return;
	/* An SRQ QP has no RQ of its own. */
	kv_ok(ib_post_recv(kv->sx, &two[0], &bad) == -EINVAL && bad == &two[0],
	      "post_recv on an SRQ QP refused with bad_wr");
	err = kv_rc_connect(kv->sx, kv->sy->qp_num);
	if (!err)
		err = kv_rc_connect(kv->sy, kv->sx->qp_num);
	kv_ok(!err, "SRQ QPs %u and %u connected (%d)", kv->sx->qp_num,
	      kv->sy->qp_num, err);
	if (err)
		return;

	/* The receives posted from softirq; the limit armed below them. */
	memset(kv->buf + sink, 0, sink);
	kv_reset_counts(KV_N);
	mod_timer(&kv->srq_timer, jiffies + 1);
	kv_ok(wait_for_completion_timeout(&kv->srq_posted, 5 * HZ) &&
	      !kv->srq_timer_err, "post_srq_recv x%d from softirq (%d)", KV_N,
	      kv->srq_timer_err);
	attr.srq_limit = 4;
	err = ib_modify_srq(kv->srq, &attr, IB_SRQ_LIMIT);
	kv_ok(!err, "modify_srq arms the limit at 4 (%d)", err);
	err = ib_query_srq(kv->srq, &attr);
	kv_ok(!err && attr.srq_limit == 4, "query_srq: limit %u",
	      attr.srq_limit);
	attr.srq_limit = depth + 1;
	kv_ok(ib_modify_srq(kv->srq, &attr, IB_SRQ_LIMIT) == -EINVAL,
	      "a limit above max_wr refused");

	err = kv_post_send_range(kv->sx, 0, KV_N / 2);
	if (!err)
		err = kv_post_send_range(kv->sy, KV_N / 2, KV_N / 2);
	kv_ok(!err, "%d SENDs each way posted (%d)", KV_N / 2, err);
	kv_ok(kv_wait(KV_N), "%d SENDs arrived through the SRQ (%d)", KV_N,
	      atomic_read(&kv->recvs));
	kv_ok(kv_wait_sends(KV_N) && atomic_read(&kv->sends) == KV_N,
	      "%d SEND completions (%d)", KV_N, atomic_read(&kv->sends));
	kv_ok(!atomic_read(&kv->errors), "no error completions");
	kv_ok(kv_srq_check(),
	      "SRQ data verified: each message once, at the QP it was sent to");
	kv_ok(wait_for_completion_timeout(&kv->srq_limit, 5 * HZ) &&
	      kv->srq_event == IB_EVENT_SRQ_LIMIT_REACHED &&
	      kv->srq_event_srq == kv->srq,
	      "IB_EVENT_SRQ_LIMIT_REACHED delivered to the SRQ's handler (%d)",
	      kv->srq_event);
	err = ib_query_srq(kv->srq, &attr);
	kv_ok(!err && !attr.srq_limit, "query_srq: limit %u once it fired",
	      attr.srq_limit);

	/* Refused work requests: the bad one named, those before it posted. */
	sge.addr = kv->dma + sink;
	sge.length = KV_LEN;
	sge.lkey = kv->pd->local_dma_lkey;
	big[0] = sge;
	big[1] = sge;
	kv->slots[depth].cqe.done = kv_srq_recv_done;
	two[0].wr_cqe = &kv->slots[depth].cqe;
	two[0].sg_list = &sge;
	two[0].num_sge = 1;
	two[0].next = &two[1];
	two[1].wr_cqe = &kv->slots[depth].cqe;
	two[1].sg_list = big;
	two[1].num_sge = 2;
	bad = NULL;
	err = ib_post_srq_recv(kv->srq, two, &bad);
	kv_ok(err == -EINVAL && bad == &two[1],
	      "post_srq_recv: 2 SGEs on a 1-SGE SRQ refused (%d), bad_wr the second",
	      err);
	/* One entry is outstanding now: a chain of depth overflows at its last. */
	many = kcalloc(depth, sizeof(*many), GFP_KERNEL);
	if (!many)
		return;
	for (i = 0; i < depth; i++) {
		many[i].wr_cqe = &kv->slots[depth].cqe;
		many[i].sg_list = &sge;
		many[i].num_sge = 1;
		many[i].next = i + 1 < depth ? &many[i + 1] : NULL;
	}
	bad = NULL;
	err = ib_post_srq_recv(kv->srq, many, &bad);
	kv_ok(err == -ENOMEM && bad == &many[depth - 1],
	      "post_srq_recv: a full SRQ refuses with -ENOMEM (%d), bad_wr the last",
	      err);
	kfree(many);
}

static void kv_cleanup(void)
{
	if (kv->sx && !IS_ERR(kv->sx))
		ib_destroy_qp(kv->sx);
	if (kv->sy && !IS_ERR(kv->sy))
		ib_destroy_qp(kv->sy);
	if (kv->srq && !IS_ERR(kv->srq))
		kv_ok(!ib_destroy_srq_user(kv->srq, NULL), "kernel SRQ destroyed");
	kfree(kv->slots);
	if (kv->ah && !IS_ERR(kv->ah))
		rdma_destroy_ah(kv->ah, 0);
	if (kv->ua && !IS_ERR(kv->ua))
		ib_destroy_qp(kv->ua);
	if (kv->ub && !IS_ERR(kv->ub))
		ib_destroy_qp(kv->ub);
	if (kv->a && !IS_ERR(kv->a))
		ib_destroy_qp(kv->a);
	if (kv->b && !IS_ERR(kv->b))
		ib_destroy_qp(kv->b);
	if (kv->cq && !IS_ERR(kv->cq))
		ib_free_cq(kv->cq);
	if (kv->buf) {
		ib_dma_unmap_single(kv->dev, kv->dma, kv->size,
				    DMA_BIDIRECTIONAL);
		kfree(kv->buf);
	}
	if (kv->pd && !IS_ERR(kv->pd))
		ib_dealloc_pd(kv->pd);
	if (kv->sgid)
		rdma_put_gid_attr(kv->sgid);
	if (kv->dev)
		ib_device_put(kv->dev);
}

static int __init kv_init(void)
{
	int i;

	kv = kzalloc(sizeof(*kv), GFP_KERNEL);
	if (!kv)
		return -ENOMEM;
	init_completion(&kv->done);
	spin_lock_init(&kv->ah_lock);
	timer_setup(&kv->timer, kv_timer_fn, 0);
	timer_setup(&kv->srq_timer, kv_srq_timer_fn, 0);
	init_completion(&kv->srq_posted);
	init_completion(&kv->srq_limit);
	kv->send_cqe.done = kv_send_done;
	kv->recv_cqe.done = kv_recv_done;

	kv->dev = ib_device_get_by_name(ibdev, RDMA_DRIVER_UNKNOWN);
	kv_ok(kv->dev, "%s found", ibdev);
	if (!kv->dev)
		goto out;
	kv_ok(kv->dev->kverbs_provider, "%s is a kverbs provider", ibdev);
	kv->sgid = kv_find_gid(kv->dev);
	kv_ok(kv->sgid, "a RoCE v2 IPv4 GID");
	if (!kv->sgid)
		goto out;
	kv->gid = kv->sgid->gid;
	kv_ok(!rdma_read_gid_l2_fields(kv->sgid, NULL, kv->mac),
	      "the GID's MAC address");
	kv->pd = ib_alloc_pd(kv->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	kv_ok(!IS_ERR(kv->pd), "ib_alloc_pd: DMA lkey and global rkey");
	if (IS_ERR(kv->pd))
		goto out;
	kv->cq = ib_alloc_cq(kv->dev, NULL, 8 * KV_N, 0, IB_POLL_SOFTIRQ);
	kv_ok(!IS_ERR(kv->cq), "ib_alloc_cq, polled in softirq");
	if (IS_ERR(kv->cq))
		goto out;
	kv->size = 2 * KV_N * (KV_LEN + KV_GRH);
	kv->buf = kzalloc(kv->size, GFP_KERNEL);
	if (!kv->buf)
		goto out;
	kv->dma = ib_dma_map_single(kv->dev, kv->buf, kv->size,
				    DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(kv->dev, kv->dma)) {
		kfree(kv->buf);
		kv->buf = NULL;
		goto out;
	}
	for (i = 0; i < KV_N * KV_LEN; i++)
		kv->buf[i] = kv_pattern(i / KV_LEN, i % KV_LEN);

	kv_rc_tests();
	for (i = 0; i < KV_N * KV_LEN; i++)
		kv->buf[i] = kv_pattern(i / KV_LEN, i % KV_LEN);
	kv_ud_tests();
	for (i = 0; i < KV_N * KV_LEN; i++)
		kv->buf[i] = kv_pattern(i / KV_LEN, i % KV_LEN);
	if (kv->dev->attrs.max_srq)
		kv_srq_tests();
	else
		kv_ok(false, "%s offers SRQs", ibdev);
out:
	timer_shutdown_sync(&kv->timer);
	timer_shutdown_sync(&kv->srq_timer);
	kv_cleanup();
	pr_info("rocx_kvtest: done, %d failed\n", kv_fail);
	return 0;
}

static void __exit kv_exit(void)
{
	kfree(kv);
}

module_init(kv_init);
module_exit(kv_exit);
MODULE_DESCRIPTION("rocx kernel verbs test on a live device");
MODULE_LICENSE("Dual BSD/GPL");
