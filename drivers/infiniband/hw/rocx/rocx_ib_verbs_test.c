// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rocx_ib's verbs against a fake device: the order in
 * which a destroyed CQ or QP leaves the driver's table and the device,
 * what a failed destroy leaves behind, doorbell pages of user contexts,
 * and requests and responses of providers older and newer than the
 * driver (in the test's own user memory).
 *
 * rocx_ib_admin() is redirected (KUNIT_STATIC_STUB_REDIRECT) to a device
 * that hands a number out again as soon as it is free, as rocx does: the
 * moment DESTROY completes, a create running in another thread can get
 * the same number.  The fake models that create by inserting into the
 * driver's table from inside the DESTROY command.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <rdma/uverbs_ioctl.h>

#include "rocx_ib.h"

/**
 * struct rocx_ib_fake - the device behind rocx_ib_admin() in these tests
 * @dev: the driver's device
 * @destroy_err: what DESTROY_QP, DESTROY_CQ and DEALLOC_XRCD answer
 * @destroys: DESTROY commands executed
 * @in_table: the table still held the object when DESTROY ran
 * @racer: what a concurrent create inserts at the freed number; NULL: none
 * @race_err: the result of that insert
 * @uctx: what ALLOC_UCTX answers
 * @uctx_live: user contexts allocated and not deallocated
 * @pds_live: PDs created and not destroyed
 * @during_destroy: runs inside DESTROY_QP and DESTROY_CQ, as another
 *	thread would meanwhile; NULL: nothing
 * @poll_cq: the CQ @during_destroy polls
 * @polled: what that poll returned
 */
struct rocx_ib_fake {
	struct rocx_ib_dev *dev;
	int destroy_err;
	int destroys;
	bool in_table;
	void *racer;
	int race_err;
	u32 uctx;
	int uctx_live;
	int pds_live;
	void (*during_destroy)(struct rocx_ib_fake *f);
	struct ib_cq *poll_cq;
	int polled;
};

/* DESTROY_QP and DESTROY_CQ: the number is free again once they succeed. */
static int rocx_ib_fake_destroy(struct rocx_ib_fake *f, struct xarray *xa,
				u32 n)
{
	f->destroys++;
	f->in_table = xa_load(xa, n);
	if (f->during_destroy)
		f->during_destroy(f);
	if (f->destroy_err)
		return f->destroy_err;
	/* A concurrent create gets the number now and inserts it. */
	if (f->racer)
		f->race_err = xa_insert_irq(xa, n, f->racer, GFP_KERNEL);
	return 0;
}

static int rocx_ib_fake_admin(struct rocx_ib_dev *dev, union rocx_aq_cmd *cmd,
			      struct rocx_aq_cqe *cqe)
{
	union rocx_aq_verbs_cmd *vcmd = (union rocx_aq_verbs_cmd *)cmd;
	struct kunit *test = kunit_get_current_test();
	struct rocx_ib_fake *f = test->priv;
	u16 op = le16_to_cpu(cmd->hdr.opcode);

	switch (op) {
	case ROCX_AQ_OP_DESTROY_QP:
		return rocx_ib_fake_destroy(f, &dev->qp_xa,
					    le32_to_cpu(vcmd->destroy_qp.qpn));
	case ROCX_AQ_OP_DESTROY_CQ:
		return rocx_ib_fake_destroy(f, &dev->cq_xa,
					    le32_to_cpu(vcmd->destroy_cq.cqn));
	case ROCX_AQ_OP_DEALLOC_XRCD:
		f->destroys++;
		return f->destroy_err;
	case ROCX_AQ_OP_ALLOC_UCTX:
		f->uctx_live++;
		cqe->result = cpu_to_le32(f->uctx);
		return 0;
	case ROCX_AQ_OP_DEALLOC_UCTX:
		KUNIT_EXPECT_EQ(test, le32_to_cpu(cmd->uctx.uctx), f->uctx);
		f->uctx_live--;
		return 0;
	case ROCX_AQ_OP_CREATE_PD:
		KUNIT_EXPECT_EQ(test, le32_to_cpu(cmd->pd.uctx), f->uctx);
		f->pds_live++;
		cqe->result = cpu_to_le32(3);
		return 0;
	case ROCX_AQ_OP_DESTROY_PD:
		f->pds_live--;
		return 0;
	default:
		KUNIT_FAIL(test, "unexpected admin opcode %u", op);
		return -EIO;
	}
}

static void rocx_ib_fake_xa_destroy(void *data)
{
	struct rocx_ib_dev *dev = data;

	xa_destroy(&dev->qp_xa);
	xa_destroy(&dev->cq_xa);
}

static struct rocx_ib_fake *rocx_ib_fake_init(struct kunit *test)
{
	struct rocx_ib_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->dev = kunit_kzalloc(test, sizeof(*f->dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->dev);
	xa_init_flags(&f->dev->cq_xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&f->dev->qp_xa, XA_FLAGS_LOCK_IRQ);
	err = kunit_add_action_or_reset(test, rocx_ib_fake_xa_destroy, f->dev);
	KUNIT_ASSERT_EQ(test, err, 0);
	test->priv = f;
	kunit_activate_static_stub(test, rocx_ib_admin, rocx_ib_fake_admin);
	return f;
}

/* A PCI function behind which coherent buffers are plain memory. */
static void rocx_ib_fake_pdev(struct kunit *test, struct rocx_ib_fake *f)
{
	struct pci_dev *pdev = kunit_kzalloc(test, sizeof(*pdev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pdev);
	pdev->dev.init_name = "rocx-ib-kunit";
	pdev->dev.coherent_dma_mask = DMA_BIT_MASK(64);
	pdev->dev.dma_mask = &pdev->dev.coherent_dma_mask;
	f->dev->pdev = pdev;
}

/* A live QP as create_qp leaves it, without queue memory. */
static struct rocx_ib_qp *rocx_ib_fake_qp(struct kunit *test,
					  struct rocx_ib_fake *f, u32 qpn)
{
	struct rocx_ib_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.device = &f->dev->ibdev;
	qp->ibqp.qp_num = qpn;
	mutex_init(&qp->lock);
	KUNIT_ASSERT_EQ(test, xa_insert_irq(&f->dev->qp_xa, qpn, qp, GFP_KERNEL),
			0);
	return qp;
}

static struct rocx_ib_cq *rocx_ib_fake_cq(struct kunit *test,
					  struct rocx_ib_fake *f, u32 cqn)
{
	struct rocx_ib_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cq);
	cq->ibcq.device = &f->dev->ibdev;
	cq->cqn = cqn;
	KUNIT_ASSERT_EQ(test, xa_insert_irq(&f->dev->cq_xa, cqn, cq,
					    GFP_KERNEL), 0);
	return cq;
}

struct rocx_ib_lost_cq {
	struct rocx_ib_cq cq;
	int calls;
};

static void rocx_ib_lost_handler(struct ib_cq *ibcq, void *ctx)
{
	container_of(ibcq, struct rocx_ib_lost_cq, cq.ibcq)->calls++;
}

/* A kernel CQ of 4 entries, polled by a work item as ib_alloc_cq's are. */
static struct rocx_ib_lost_cq *rocx_ib_lost_kcq(struct kunit *test,
						struct rocx_ib_fake *f,
						u32 cqn, bool armed,
						bool pending)
{
	struct rocx_ib_lost_cq *lc = kunit_kzalloc(test, sizeof(*lc),
						   GFP_KERNEL);
	struct rocx_cqe *ring;

	KUNIT_ASSERT_NOT_NULL(test, lc);
	/* One page of ring, in test memory. */
	ring = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	lc->cq.kbuf.pages = kunit_kzalloc(test, sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lc->cq.kbuf.pages);
	lc->cq.kbuf.pages[0] = ring;
	lc->cq.kbuf.npages = 1;
	lc->cq.ibcq.device = &f->dev->ibdev;
	lc->cq.ibcq.comp_handler = rocx_ib_lost_handler;
	lc->cq.ibcq.poll_ctx = IB_POLL_WORKQUEUE;
	lc->cq.cqn = cqn;
	lc->cq.log_depth = 2;
	lc->cq.kbuf.va = ring;
	lc->cq.armed = armed;
	/* Polled entries go back in batches: no doorbell for one. */
	lc->cq.db_batch = 4;
	spin_lock_init(&lc->cq.lock);
	INIT_LIST_HEAD(&lc->cq.sw_send);
	INIT_LIST_HEAD(&lc->cq.sw_recv);
	INIT_LIST_HEAD(&lc->cq.dying);
	/* The device's first entry: phase 1 on the ring's first pass. */
	if (pending)
		ring[0].flags = ROCX_CQE_PHASE;
	KUNIT_ASSERT_EQ(test, xa_insert_irq(&f->dev->cq_xa, cqn, &lc->cq,
					    GFP_KERNEL), 0);
	return lc;
}

/* ---------------- rocx_ib_destroy ---------------- */

/*
 * The device frees the qpn when DESTROY_QP completes and a concurrent
 * create may get it at once: its insert must find the slot free, and
 * destroy_qp must not take the new QP's entry away afterwards.
 */
static void rocx_ib_destroy_qp_reuse_test(struct kunit *test)
{
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct rocx_ib_qp *qp = rocx_ib_fake_qp(test, f, 7);
	struct rocx_ib_qp *racer = kunit_kzalloc(test, sizeof(*racer),
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, racer);
	f->racer = racer;
	KUNIT_EXPECT_EQ(test, rocx_ib_destroy_qp(&qp->ibqp, NULL), 0);
	KUNIT_EXPECT_EQ(test, f->destroys, 1);
	KUNIT_EXPECT_FALSE_MSG(test, f->in_table,
			       "QP 7 still in the table when the device freed it");
	KUNIT_EXPECT_EQ_MSG(test, f->race_err, 0,
			    "a create given qpn 7 again could not insert it");
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&f->dev->qp_xa, 7), (void *)racer);
}

/*
 * ib_core takes a QP out of its resource tracking, and waits for the
 * queries there (rdma_restrack_del()), only after destroy_qp has
 * returned: a `rdma resource show` running meanwhile reads the QP's
 * congestion state after destroy.  It must neither ask the device about
 * a number that may be another QP's by now nor take a lock destroy
 * tore down.
 */
static void rocx_ib_destroy_qp_query_test(struct kunit *test)
{
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct rocx_ib_qp *qp = rocx_ib_fake_qp(test, f, 6);
	struct rocx_ib_qp_cc cc;

	rocx_ib_fake_pdev(test, f);
	KUNIT_EXPECT_EQ(test, rocx_ib_destroy_qp(&qp->ibqp, NULL), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_qp_query_cc(qp, &cc), -ENOENT);
	KUNIT_EXPECT_EQ(test, f->destroys, 1);
	/* The lock still works: ib_core frees the QP after the query. */
	KUNIT_EXPECT_TRUE(test, mutex_trylock(&qp->lock));
	mutex_unlock(&qp->lock);
}

/* Another consumer of the CQ polls it while DESTROY_QP runs. */
static void rocx_ib_poll_during_destroy(struct rocx_ib_fake *f)
{
	struct ib_wc wc[4];

	f->polled = rocx_ib_poll_cq(f->poll_cq, ARRAY_SIZE(wc), wc);
}

/*
 * A kernel QP on an SRQ shares its CQ with others (nvmet-rdma with
 * use_srq).  destroy_qp takes it out of the driver's table before the
 * device destroys it and before it is cleaned out of its CQs: a poll_cq
 * in between meets its receive CQE with no QP to find the SRQ by.  The
 * SRQ entry that receive consumed must become free again all the same,
 * or each such destroy costs the SRQ an entry for good.
 */
static void rocx_ib_destroy_qp_srq_test(struct kunit *test)
{
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct rocx_ib_lost_cq *lc = rocx_ib_lost_kcq(test, f, 2, false, true);
	struct rocx_ib_qp *qp = rocx_ib_fake_qp(test, f, 8);
	struct rocx_ib_srq *srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);
	struct rocx_cqe *cqe = lc->cq.kbuf.va;
	struct rocx_ib_pbl pbl;

	KUNIT_ASSERT_NOT_NULL(test, srq);
	rocx_ib_fake_pdev(test, f);
	/* A kernel SRQ of 4 entries; the one tagged 2 went to the QP. */
	srq->attr.max_wr = 4;
	srq->kbuf.va = srq;
	spin_lock_init(&srq->klock);
	srq->held = kunit_kzalloc(test, sizeof(*srq->held), GFP_KERNEL);
	srq->free_tags = kunit_kcalloc(test, 4, sizeof(u16), GFP_KERNEL);
	srq->wrid = kunit_kcalloc(test, 4, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, srq->held);
	KUNIT_ASSERT_NOT_NULL(test, srq->free_tags);
	KUNIT_ASSERT_NOT_NULL(test, srq->wrid);
	srq->free_tags[0] = 3;
	srq->free_tags[1] = 1;
	srq->free_tags[2] = 0;
	srq->nfree = 3;
	__set_bit(2, srq->held);
	/* A kernel RC QP on it, sending and receiving on the CQ. */
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->ibqp.srq = &srq->ibsrq;
	qp->ibqp.send_cq = &lc->cq.ibcq;
	qp->ibqp.recv_cq = &lc->cq.ibcq;
	KUNIT_ASSERT_EQ(test, rocx_ib_kbuf_alloc(f->dev, &qp->kbuf,
						 ROCX_IB_KPAGE_SIZE, &pbl), 0);
	rocx_ib_pbl_destroy(&pbl);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	INIT_LIST_HEAD(&qp->dying);
	/* Its receive's CQE, the CQ's first entry. */
	cqe[0].qpn_op = cpu_to_le32(ROCX_FIELD_PREP(ROCX_CQE_QPN_MASK, 8));
	cqe[0].wqe_idx = cpu_to_le16(2);
	cqe[0].flags |= ROCX_CQE_RECV;

	f->during_destroy = rocx_ib_poll_during_destroy;
	f->poll_cq = &lc->cq.ibcq;
	KUNIT_EXPECT_EQ(test, rocx_ib_destroy_qp(&qp->ibqp, NULL), 0);
	KUNIT_EXPECT_EQ(test, f->destroys, 1);
	/* Consumed there, and not reported: its QP is being destroyed. */
	KUNIT_EXPECT_EQ(test, lc->cq.ci, 1U);
	KUNIT_EXPECT_EQ(test, f->polled, 0);
	KUNIT_EXPECT_EQ_MSG(test, srq->nfree, 4U,
			    "the SRQ entry of the destroyed QP's receive is lost");
	KUNIT_EXPECT_FALSE(test, test_bit(2, srq->held));
}

/*
 * A kernel ring the device takes, however large, is allocated whatever
 * the state of memory: a 32 MiB send queue (32768 WQEs of 1 KiB) cannot
 * be one contiguous buffer (the page allocator's largest is 4 MiB).  The
 * device reads it through its page list, page by page, and the driver
 * finds each entry in its page.
 */
static void rocx_ib_kbuf_large_test(struct kunit *test)
{
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	const size_t size = 32 << 20;
	struct rocx_ib_kbuf kb = {};
	struct rocx_ib_pbl pbl;
	u8 *last;
	int err;

	rocx_ib_fake_pdev(test, f);
	err = rocx_ib_kbuf_alloc(f->dev, &kb, size, &pbl);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "a %zu MiB kernel ring", size >> 20);
	KUNIT_EXPECT_EQ(test, kb.size, size);
	KUNIT_EXPECT_EQ(test, pbl.npages, (u32)(size >> ROCX_IB_KPAGE_SHIFT));
	KUNIT_EXPECT_PTR_EQ(test, rocx_ib_kbuf_at(&kb, 0), kb.va);
	/* The last byte is the last page's, and the ring starts zeroed. */
	last = rocx_ib_kbuf_at(&kb, size - 1);
	KUNIT_EXPECT_PTR_EQ(test, last,
			    (u8 *)kb.pages[kb.npages - 1] + ROCX_IB_KPAGE_SIZE - 1);
	KUNIT_EXPECT_EQ(test, *last, 0);
	rocx_ib_pbl_destroy(&pbl);
	rocx_ib_kbuf_free(f->dev, &kb);
	KUNIT_EXPECT_NULL(test, kb.va);
}

static void rocx_ib_destroy_cq_reuse_test(struct kunit *test)
{
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct rocx_ib_cq *cq = rocx_ib_fake_cq(test, f, 3);
	struct rocx_ib_cq *racer = kunit_kzalloc(test, sizeof(*racer),
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, racer);
	f->racer = racer;
	KUNIT_EXPECT_EQ(test, rocx_ib_destroy_cq(&cq->ibcq, NULL), 0);
	KUNIT_EXPECT_EQ(test, f->destroys, 1);
	KUNIT_EXPECT_FALSE_MSG(test, f->in_table,
			       "CQ 3 still in the table when the device freed it");
	KUNIT_EXPECT_EQ_MSG(test, f->race_err, 0,
			    "a create given cqn 3 again could not insert it");
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&f->dev->cq_xa, 3), (void *)racer);
}

/*
 * What a destroy reports for each answer of the device, and whether the
 * object is still in the table (still reachable by events) afterwards.
 */
struct rocx_ib_destroy_case {
	const char *desc;
	int dev_err;	/* the device's answer to DESTROY */
	int ret;	/* what the verb returns to ib_core */
	bool kept;	/* still in the driver's table */
};

static const struct rocx_ib_destroy_case rocx_ib_destroy_cases[] = {
	{ "done", 0, 0, false },
	/* rocx_core going away: the device forgets every object. */
	{ "device_gone", -ENODEV, 0, false },
	/* The device holds no such object: nothing is left to wait for. */
	{ "not_found", -ENOENT, 0, false },
	/*
	 * Refused: the device still has the object and its number, so does
	 * ib_core, which may call destroy again.
	 */
	{ "busy", -EBUSY, -EBUSY, true },
	{ "invalid", -EINVAL, -EINVAL, true },
	{ "internal", -EIO, -EIO, true },
	/*
	 * Unknown outcome: the number may already be someone else's, so
	 * destroy must not be retried; the memory stays pinned.
	 */
	{ "timeout", -ETIMEDOUT, 0, false },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_destroy, rocx_ib_destroy_cases, desc);

static void rocx_ib_destroy_qp_result_test(struct kunit *test)
{
	const struct rocx_ib_destroy_case *c = test->param_value;
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct rocx_ib_qp *qp = rocx_ib_fake_qp(test, f, 5);
	void *want = c->kept ? qp : NULL;

	f->destroy_err = c->dev_err;
	KUNIT_EXPECT_EQ(test, rocx_ib_destroy_qp(&qp->ibqp, NULL), c->ret);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&f->dev->qp_xa, 5), want);
	if (!c->kept)
		return;

	/* ib_core destroys it again (at the latest when the context goes). */
	f->destroy_err = 0;
	KUNIT_EXPECT_EQ(test, rocx_ib_destroy_qp(&qp->ibqp, NULL), 0);
	KUNIT_EXPECT_EQ(test, f->destroys, 2);
	KUNIT_EXPECT_NULL(test, xa_load(&f->dev->qp_xa, 5));
}

static void rocx_ib_destroy_cq_result_test(struct kunit *test)
{
	const struct rocx_ib_destroy_case *c = test->param_value;
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct rocx_ib_cq *cq = rocx_ib_fake_cq(test, f, 9);
	void *want = c->kept ? cq : NULL;

	f->destroy_err = c->dev_err;
	KUNIT_EXPECT_EQ(test, rocx_ib_destroy_cq(&cq->ibcq, NULL), c->ret);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&f->dev->cq_xa, 9), want);
	if (!c->kept)
		return;

	f->destroy_err = 0;
	KUNIT_EXPECT_EQ(test, rocx_ib_destroy_cq(&cq->ibcq, NULL), 0);
	KUNIT_EXPECT_EQ(test, f->destroys, 2);
	KUNIT_EXPECT_NULL(test, xa_load(&f->dev->cq_xa, 9));
}

/*
 * An XRC domain is a number without memory: whatever the device answers
 * but a refusal, ib_core must forget it (it never retries a failed
 * dealloc_xrcd on device removal and leaks the domain), and a refusal
 * leaves the domain with both, for the next dealloc.
 */
static void rocx_ib_dealloc_xrcd_result_test(struct kunit *test)
{
	const struct rocx_ib_destroy_case *c = test->param_value;
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct rocx_ib_xrcd *xrcd = kunit_kzalloc(test, sizeof(*xrcd),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, xrcd);
	xrcd->ibxrcd.device = &f->dev->ibdev;
	xrcd->xrcdn = 4;
	f->destroy_err = c->dev_err;
	KUNIT_EXPECT_EQ(test, rocx_ib_dealloc_xrcd(&xrcd->ibxrcd, NULL),
			c->ret);
	KUNIT_EXPECT_EQ(test, f->destroys, 1);
}

static struct kunit_case rocx_ib_destroy_test_cases[] = {
	KUNIT_CASE(rocx_ib_destroy_qp_reuse_test),
	KUNIT_CASE(rocx_ib_destroy_qp_query_test),
	KUNIT_CASE(rocx_ib_destroy_qp_srq_test),
	KUNIT_CASE(rocx_ib_kbuf_large_test),
	KUNIT_CASE(rocx_ib_destroy_cq_reuse_test),
	KUNIT_CASE_PARAM(rocx_ib_destroy_qp_result_test,
			 rocx_ib_destroy_gen_params),
	KUNIT_CASE_PARAM(rocx_ib_destroy_cq_result_test,
			 rocx_ib_destroy_gen_params),
	KUNIT_CASE_PARAM(rocx_ib_dealloc_xrcd_result_test,
			 rocx_ib_destroy_gen_params),
	{}
};

static struct kunit_suite rocx_ib_destroy_suite = {
	.name = "rocx_ib_destroy",
	.test_cases = rocx_ib_destroy_test_cases,
};

/* ---------------- rocx_ib_ceq_lost ---------------- */

/*
 * After an EQ overflow, only the CQs whose event can have been lost are
 * woken: armed, with an entry.  A kernel CQ whose consumer stopped
 * polling it (ib_free_cq() before destroy_cq: not armed, or armed and
 * empty) must not be called, or its work is queued on a CQ about to be
 * freed.  User CQs are woken whatever they hold; direct CQs never.
 */
static void rocx_ib_ceq_lost_test(struct kunit *test)
{
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct rocx_ib_lost_cq *idle = rocx_ib_lost_kcq(test, f, 1, false, true);
	struct rocx_ib_lost_cq *empty = rocx_ib_lost_kcq(test, f, 2, true, false);
	struct rocx_ib_lost_cq *lost = rocx_ib_lost_kcq(test, f, 3, true, true);
	struct rocx_ib_lost_cq *user = rocx_ib_lost_kcq(test, f, 4, false, false);
	struct rocx_ib_lost_cq *direct = rocx_ib_lost_kcq(test, f, 5, true, true);

	user->cq.kbuf.va = NULL;
	direct->cq.ibcq.poll_ctx = IB_POLL_DIRECT;
	rocx_ib_ceq_lost(f->dev, 1);
	KUNIT_EXPECT_EQ_MSG(test, idle->calls, 0,
			    "a kernel CQ nobody armed was called");
	KUNIT_EXPECT_EQ_MSG(test, empty->calls, 0,
			    "an armed kernel CQ with no entry was called");
	KUNIT_EXPECT_EQ(test, lost->calls, 1);
	KUNIT_EXPECT_EQ(test, user->calls, 1);
	KUNIT_EXPECT_EQ(test, direct->calls, 0);
	/* The wake disarmed it, as the event would have: once. */
	rocx_ib_ceq_lost(f->dev, 1);
	KUNIT_EXPECT_EQ(test, lost->calls, 1);
	KUNIT_EXPECT_EQ(test, user->calls, 2);
	/* A delivered event disarms it too. */
	lost->cq.armed = true;
	rocx_ib_cq_comp(f->dev, 3);
	KUNIT_EXPECT_EQ(test, lost->calls, 2);
	rocx_ib_ceq_lost(f->dev, 1);
	KUNIT_EXPECT_EQ(test, lost->calls, 2);
}

static struct kunit_case rocx_ib_event_test_cases[] = {
	KUNIT_CASE(rocx_ib_ceq_lost_test),
	{}
};

static struct kunit_suite rocx_ib_event_suite = {
	.name = "rocx_ib_event",
	.test_cases = rocx_ib_event_test_cases,
};

/* ---------------- rocx_ib_uctx ---------------- */

#define ROCX_IB_TEST_BAR2	0xfe000000ULL
#define ROCX_IB_TEST_BAR_PAGES	16

/*
 * rocx_db_page_phys() of a PCI function whose BAR2 holds 16 doorbell
 * pages (rocx_core_test.c checks the real one against such a BAR).
 */
static int rocx_ib_fake_db_page(struct rocx_ib_dev *dev, u32 uctx,
				phys_addr_t *phys)
{
	if (!uctx || uctx >= ROCX_IB_TEST_BAR_PAGES)
		return -EINVAL;
	*phys = ROCX_IB_TEST_BAR2 + ((phys_addr_t)uctx << ROCX_DB_PAGE_SHIFT);
	return 0;
}

/*
 * The identify block reports 256 doorbell pages, BAR2 holds 16, and the
 * device hands out context 20: the context is refused and given back,
 * and nothing is offered for mmap().
 */
static void rocx_ib_uctx_past_bar_test(struct kunit *test)
{
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct rocx_identify *id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);
	struct rocx_ib_ucontext *uc = kunit_kzalloc(test, sizeof(*uc),
						    GFP_KERNEL);
	struct ib_udata udata = {};

	KUNIT_ASSERT_NOT_NULL(test, id);
	KUNIT_ASSERT_NOT_NULL(test, uc);
	id->db_pages = cpu_to_le16(256);
	f->dev->id = id;
	kunit_activate_static_stub(test, rocx_ib_db_page, rocx_ib_fake_db_page);
	uc->ibuc.device = &f->dev->ibdev;
	f->uctx = 20;

	KUNIT_EXPECT_EQ(test, rocx_ib_alloc_ucontext(&uc->ibuc, &udata), -EIO);
	KUNIT_EXPECT_EQ(test, f->uctx_live, 0);
	KUNIT_EXPECT_NULL(test, uc->db_entry);
}

static struct kunit_case rocx_ib_uctx_test_cases[] = {
	KUNIT_CASE(rocx_ib_uctx_past_bar_test),
	{}
};

static struct kunit_suite rocx_ib_uctx_suite = {
	.name = "rocx_ib_uctx",
	.test_cases = rocx_ib_uctx_test_cases,
};

/* ---------------- rocx_ib_udata ---------------- */

#define ROCX_IB_TEST_UBUF	256

/* A page of this test's own user memory, every byte @fill. */
static u8 __user *rocx_ib_user_buf(struct kunit *test, u8 fill)
{
	unsigned long addr;
	u8 *k;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, !addr || IS_ERR_VALUE(addr),
			       "no user memory: %ld", (long)addr);
	k = kunit_kmalloc(test, ROCX_IB_TEST_UBUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	memset(k, fill, ROCX_IB_TEST_UBUF);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, k,
					   ROCX_IB_TEST_UBUF), 0);
	return (u8 __user *)addr;
}

/*
 * A request as some kernel defines it: a first layout of 12 bytes, and a
 * field added later.
 */
struct rocx_ib_test_req {
	u64 a;
	u32 b;		/* end of the first layout */
	u32 c;
	u64 d;
};

#define ROCX_IB_TEST_REQ_MIN	offsetofend(struct rocx_ib_test_req, b)

struct rocx_ib_req_case {
	const char *desc;
	size_t inlen;	/* what the provider sends */
	int tail;	/* offset of a non-zero byte past the request, or -1 */
	int err;
};

static const struct rocx_ib_req_case rocx_ib_req_cases[] = {
	/* An older provider: the later fields read as zero. */
	{ "first_layout", ROCX_IB_TEST_REQ_MIN, -1, 0 },
	{ "this_layout", sizeof(struct rocx_ib_test_req), -1, 0 },
	/* A newer provider: what this kernel does not know must be zero. */
	{ "newer_zero", sizeof(struct rocx_ib_test_req) + 40, -1, 0 },
	{ "newer_set", sizeof(struct rocx_ib_test_req) + 40,
	  sizeof(struct rocx_ib_test_req) + 17, -EOPNOTSUPP },
	{ "newer_set_last", sizeof(struct rocx_ib_test_req) + 40,
	  sizeof(struct rocx_ib_test_req) + 39, -EOPNOTSUPP },
	{ "short", ROCX_IB_TEST_REQ_MIN - 1, -1, -EINVAL },
	{ "none", 0, -1, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_req, rocx_ib_req_cases, desc);

static void rocx_ib_udata_in_test(struct kunit *test)
{
	const struct rocx_ib_req_case *c = test->param_value;
	struct rocx_ib_test_req sent = {
		.a = 0x1122334455667788ULL, .b = 0x99aabbcc,
		.c = 0xddeeff00, .d = 0x0123456789abcdefULL,
	};
	u8 __user *ubuf = rocx_ib_user_buf(test, 0);
	struct ib_udata udata = { .inbuf = ubuf, .inlen = c->inlen };
	struct rocx_ib_test_req req;
	u8 one = 1;

	KUNIT_ASSERT_EQ(test, copy_to_user(ubuf, &sent, sizeof(sent)), 0);
	if (c->tail >= 0)
		KUNIT_ASSERT_EQ(test, copy_to_user(ubuf + c->tail, &one, 1), 0);

	KUNIT_ASSERT_EQ(test, rocx_ib_udata_in(&udata, &req, sizeof(req),
					       ROCX_IB_TEST_REQ_MIN), c->err);
	if (c->err)
		return;
	KUNIT_EXPECT_EQ(test, req.a, sent.a);
	KUNIT_EXPECT_EQ(test, req.b, sent.b);
	/* Past what the provider sent, nothing of its buffer is read. */
	KUNIT_EXPECT_EQ(test, req.c, c->inlen > 12 ? sent.c : 0);
	KUNIT_EXPECT_EQ(test, req.d, c->inlen > 16 ? sent.d : 0);
}

/* A verb without a request (reg_mr, modify_qp, alloc_pd). */
static void rocx_ib_udata_in_none_test(struct kunit *test)
{
	u8 __user *ubuf = rocx_ib_user_buf(test, 0);
	struct ib_udata udata = { .inbuf = ubuf };
	u8 one = 1;

	KUNIT_EXPECT_EQ(test, rocx_ib_udata_in(&udata, NULL, 0, 0), 0);
	udata.inlen = 16;
	KUNIT_EXPECT_EQ(test, rocx_ib_udata_in(&udata, NULL, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, copy_to_user(ubuf + 15, &one, 1), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_udata_in(&udata, NULL, 0, 0),
			-EOPNOTSUPP);
}

/* The create_cq and create_qp requests of the first providers. */
static void rocx_ib_udata_in_old_objects_test(struct kunit *test)
{
	struct rocx_create_cq_req cq_old = { .buf_addr = 0x10000,
					     .log_depth = 4 };
	struct rocx_create_qp_req qp_old = { .buf_addr = 0x20000,
					     .sq_log_depth = 1,
					     .sq_wqe_shift = 7 };
	u8 __user *ubuf = rocx_ib_user_buf(test, 0);
	struct ib_udata udata = { .inbuf = ubuf };
	struct rocx_create_cq_req cq;
	struct rocx_create_qp_req qp;

	/* 16 bytes each, the reserved word where comp_mask is now. */
	KUNIT_EXPECT_EQ(test, ROCX_IB_CQ_REQ_MIN, 16);
	KUNIT_EXPECT_EQ(test, ROCX_IB_QP_REQ_MIN, 16);

	udata.inlen = 16;
	KUNIT_ASSERT_EQ(test, copy_to_user(ubuf, &cq_old, 16), 0);
	KUNIT_ASSERT_EQ(test, rocx_ib_udata_in(&udata, &cq, sizeof(cq),
					       ROCX_IB_CQ_REQ_MIN), 0);
	KUNIT_EXPECT_EQ(test, cq.buf_addr, 0x10000);
	KUNIT_EXPECT_EQ(test, cq.log_depth, 4);
	KUNIT_EXPECT_EQ(test, cq.comp_mask, 0);

	KUNIT_ASSERT_EQ(test, copy_to_user(ubuf, &qp_old, 16), 0);
	KUNIT_ASSERT_EQ(test, rocx_ib_udata_in(&udata, &qp, sizeof(qp),
					       ROCX_IB_QP_REQ_MIN), 0);
	KUNIT_EXPECT_EQ(test, qp.buf_addr, 0x20000);
	KUNIT_EXPECT_EQ(test, qp.sq_wqe_shift, 7);
	KUNIT_EXPECT_EQ(test, qp.comp_mask, 0);

	/* Shorter than that was never a valid request. */
	udata.inlen = 12;
	KUNIT_EXPECT_EQ(test, rocx_ib_udata_in(&udata, &cq, sizeof(cq),
					       ROCX_IB_CQ_REQ_MIN), -EINVAL);
}

struct rocx_ib_resp_case {
	const char *desc;
	size_t outlen;	/* room in the provider's buffer */
	size_t written;
};

/* A 48-byte response (alloc_ucontext's). */
static const struct rocx_ib_resp_case rocx_ib_resp_cases[] = {
	{ "older_provider", 40, 40 },
	{ "same", 48, 48 },
	{ "newer_provider", 64, 48 },
	{ "no_room", 0, 0 },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_resp, rocx_ib_resp_cases, desc);

static void rocx_ib_udata_out_test(struct kunit *test)
{
	const struct rocx_ib_resp_case *c = test->param_value;
	u8 __user *ubuf = rocx_ib_user_buf(test, 0xee);
	struct ib_udata udata = { .outbuf = ubuf, .outlen = c->outlen };
	u8 resp[48], got[ROCX_IB_TEST_UBUF];
	size_t i;

	KUNIT_ASSERT_EQ(test, sizeof(struct rocx_alloc_ucontext_resp),
			sizeof(resp));
	for (i = 0; i < sizeof(resp); i++)
		resp[i] = i + 1;
	KUNIT_ASSERT_EQ(test, rocx_ib_udata_out(&udata, resp, sizeof(resp)),
			0);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, ubuf, sizeof(got)), 0);
	for (i = 0; i < sizeof(got); i++) {
		u8 want = i < c->written ? i + 1 : 0xee;

		if (got[i] != want) {
			KUNIT_FAIL(test, "byte %zu of the provider's buffer is %#x, want %#x",
				   i, got[i], want);
			break;
		}
	}
}

/*
 * What alloc_ucontext answers: the doorbell page and the request bits it
 * takes, each under its comp_mask bit.  An older provider's 40 bytes end
 * before the request bits; it knows neither them nor their comp_mask bit.
 */
static void rocx_ib_ucontext_resp_test(struct kunit *test)
{
	struct rocx_identify id = {};
	struct rocx_ib_dev *dev = kunit_kzalloc(test, sizeof(*dev),
						GFP_KERNEL);
	struct rdma_user_mmap_entry db = { .start_pgoff = 5 };
	struct rocx_ib_ucontext uc = { .uctx = 7, .db_entry = &db };
	struct rocx_alloc_ucontext_resp resp = {};

	KUNIT_ASSERT_NOT_NULL(test, dev);
	id.caps = cpu_to_le32(0x2f);
	id.max_inline = cpu_to_le32(256);
	id.max_sge = cpu_to_le32(8);
	dev->id = &id;

	rocx_ib_ucontext_resp(dev, &uc, &resp);
	KUNIT_EXPECT_EQ(test, resp.comp_mask, (u64)(ROCX_UCONTEXT_RESP_DB |
						    ROCX_UCONTEXT_RESP_REQ_COMP));
	KUNIT_EXPECT_EQ(test, resp.db_mmap_key, 5ULL << PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, resp.db_page_size, ROCX_DB_PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, resp.uctx, 7);
	KUNIT_EXPECT_EQ(test, resp.dev_caps, 0x2f);
	KUNIT_EXPECT_EQ(test, resp.max_inline, 256);
	KUNIT_EXPECT_EQ(test, resp.max_sge, 8);
	KUNIT_EXPECT_EQ(test, resp.reserved, 0);
	/* A device without the 64-byte CQE: no CQE format to ask for. */
	KUNIT_EXPECT_EQ(test, resp.cq_req_comp, 0);
	/* Nor a doorbell record without its bit. */
	KUNIT_EXPECT_EQ(test, resp.qp_req_comp, 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct rocx_alloc_ucontext_resp,
				       cq_req_comp), 40);
	id.caps2 = cpu_to_le64(ROCX_CAP2_CQE64);
	memset(&resp, 0, sizeof(resp));
	rocx_ib_ucontext_resp(dev, &uc, &resp);
	KUNIT_EXPECT_EQ(test, resp.cq_req_comp,
			(u32)ROCX_CREATE_CQ_REQ_CQE_FORMAT);
	KUNIT_EXPECT_FALSE(test, resp.comp_mask & ROCX_UCONTEXT_RESP_DB_CLOCK);
	/* The clock is readable from the doorbell page only with its bit. */
	id.caps2 = cpu_to_le64(ROCX_CAP2_USER_CLOCK);
	memset(&resp, 0, sizeof(resp));
	rocx_ib_ucontext_resp(dev, &uc, &resp);
	KUNIT_EXPECT_EQ(test, resp.comp_mask, (u64)(ROCX_UCONTEXT_RESP_DB |
						    ROCX_UCONTEXT_RESP_REQ_COMP |
						    ROCX_UCONTEXT_RESP_DB_CLOCK));
	id.caps2 = cpu_to_le64(ROCX_CAP2_DB_RECORD);
	memset(&resp, 0, sizeof(resp));
	rocx_ib_ucontext_resp(dev, &uc, &resp);
	KUNIT_EXPECT_EQ(test, resp.qp_req_comp,
			(u32)ROCX_CREATE_QP_REQ_DB_RECORD);
}

/* The first QP response was 8 bytes; comp_mask comes after them. */
static void rocx_ib_qp_resp_layout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, offsetof(struct rocx_create_qp_resp, comp_mask),
			8);
	KUNIT_EXPECT_EQ(test, offsetof(struct rocx_create_cq_resp, comp_mask),
			4);
	KUNIT_EXPECT_EQ(test, offsetof(struct rocx_alloc_pd_resp, comp_mask),
			4);
	KUNIT_EXPECT_EQ(test, offsetof(struct rocx_create_cq_req, comp_mask),
			12);
	KUNIT_EXPECT_EQ(test, offsetof(struct rocx_create_qp_req, comp_mask),
			12);
}

/*
 * alloc_pd defines no request and answers the pdn and a comp_mask; a
 * newer provider's request is taken only if all of it is zero.
 */
static void rocx_ib_alloc_pd_udata_test(struct kunit *test)
{
	struct rocx_ib_fake *f = rocx_ib_fake_init(test);
	struct uverbs_attr_bundle *attrs = kunit_kzalloc(test, sizeof(*attrs),
							 GFP_KERNEL);
	struct rocx_ib_ucontext *uc = kunit_kzalloc(test, sizeof(*uc),
						    GFP_KERNEL);
	struct rocx_ib_pd *pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	u8 __user *in = rocx_ib_user_buf(test, 0);
	u8 __user *out = rocx_ib_user_buf(test, 0xee);
	struct rocx_alloc_pd_resp resp;
	u8 one = 1;

	KUNIT_ASSERT_NOT_NULL(test, attrs);
	KUNIT_ASSERT_NOT_NULL(test, uc);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	f->uctx = 4;
	uc->uctx = 4;
	uc->ibuc.device = &f->dev->ibdev;
	pd->ibpd.device = &f->dev->ibdev;
	attrs->context = &uc->ibuc;
	attrs->driver_udata = (struct ib_udata){
		.inbuf = in, .inlen = 8, .outbuf = out, .outlen = sizeof(resp),
	};

	KUNIT_ASSERT_EQ(test, rocx_ib_alloc_pd(&pd->ibpd, &attrs->driver_udata),
			0);
	KUNIT_ASSERT_EQ(test, copy_from_user(&resp, out, sizeof(resp)), 0);
	KUNIT_EXPECT_EQ(test, resp.pdn, 3);
	KUNIT_EXPECT_EQ(test, resp.comp_mask, 0);
	KUNIT_EXPECT_EQ(test, f->pds_live, 1);

	KUNIT_ASSERT_EQ(test, copy_to_user(in + 7, &one, 1), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_alloc_pd(&pd->ibpd, &attrs->driver_udata),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, f->pds_live, 1);
}

static struct kunit_case rocx_ib_udata_test_cases[] = {
	KUNIT_CASE_PARAM(rocx_ib_udata_in_test, rocx_ib_req_gen_params),
	KUNIT_CASE(rocx_ib_udata_in_none_test),
	KUNIT_CASE(rocx_ib_udata_in_old_objects_test),
	KUNIT_CASE_PARAM(rocx_ib_udata_out_test, rocx_ib_resp_gen_params),
	KUNIT_CASE(rocx_ib_ucontext_resp_test),
	KUNIT_CASE(rocx_ib_qp_resp_layout_test),
	KUNIT_CASE(rocx_ib_alloc_pd_udata_test),
	{}
};

static struct kunit_suite rocx_ib_udata_suite = {
	.name = "rocx_ib_udata",
	.test_cases = rocx_ib_udata_test_cases,
};

kunit_test_suites(&rocx_ib_destroy_suite, &rocx_ib_event_suite,
		  &rocx_ib_uctx_suite, &rocx_ib_udata_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for rocx_ib's verbs against a fake device");
MODULE_LICENSE("Dual BSD/GPL");
