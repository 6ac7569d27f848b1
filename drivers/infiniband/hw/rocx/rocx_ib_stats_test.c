// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rocx_ib's counter table: the names `rdma statistic`
 * shows (mlx5's spelling, each once), the device counter behind each,
 * and how many a device with fewer counters gets; and get_hw_stats
 * against a fake GET_STATS (rocx_ib_stats_read() redirected).
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/*
 * What users of mlx5 grep for (drivers/infiniband/hw/mlx5/counters.c),
 * written out here rather than taken from the driver's table.  mlx5 has
 * no roce_tx_mtu_drops or db_record_takes: those are rocx's own
 * (rocx-device.rst).
 */
static const struct {
	enum rocx_stat stat;
	const char *name;
} rocx_ib_stats_want[] = {
	{ ROCX_STAT_RX_WRITE_REQUESTS, "rx_write_requests" },
	{ ROCX_STAT_RX_READ_REQUESTS, "rx_read_requests" },
	{ ROCX_STAT_RX_ATOMIC_REQUESTS, "rx_atomic_requests" },
	{ ROCX_STAT_OUT_OF_SEQUENCE, "out_of_sequence" },
	{ ROCX_STAT_PACKET_SEQ_ERR, "packet_seq_err" },
	{ ROCX_STAT_DUPLICATE_REQUEST, "duplicate_request" },
	{ ROCX_STAT_LOCAL_ACK_TIMEOUT_ERR, "local_ack_timeout_err" },
	{ ROCX_STAT_RNR_NAK_RETRY_ERR, "rnr_nak_retry_err" },
	{ ROCX_STAT_IMPLIED_NAK_SEQ_ERR, "implied_nak_seq_err" },
	{ ROCX_STAT_REQ_REMOTE_ACCESS_ERRORS, "req_remote_access_errors" },
	{ ROCX_STAT_REQ_REMOTE_INVALID_REQUEST, "req_remote_invalid_request" },
	{ ROCX_STAT_RESP_REMOTE_ACCESS_ERRORS, "resp_remote_access_errors" },
	{ ROCX_STAT_RESP_REMOTE_INVALID_REQUEST,
	  "resp_remote_invalid_request" },
	{ ROCX_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED,
	  "req_transport_retries_exceeded" },
	{ ROCX_STAT_ROCE_TX_MTU_DROPS, "roce_tx_mtu_drops" },
	{ ROCX_STAT_NP_CNP_SENT, "np_cnp_sent" },
	{ ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS, "np_ecn_marked_roce_packets" },
	{ ROCX_STAT_RP_CNP_HANDLED, "rp_cnp_handled" },
	{ ROCX_STAT_RP_CNP_IGNORED, "rp_cnp_ignored" },
	{ ROCX_STAT_DB_RECORD_TAKES, "db_record_takes" },
};

static struct rdma_hw_stats *rocx_ib_stats_get(struct kunit *test,
					       unsigned int num_stats)
{
	struct rdma_hw_stats *s = rocx_ib_stats_alloc(num_stats);

	KUNIT_ASSERT_NOT_NULL(test, s);
	return s;
}

/* Every counter of a full device, by its name, each name once. */
static void rocx_ib_stats_names_test(struct kunit *test)
{
	struct rdma_hw_stats *s = rocx_ib_stats_get(test, ROCX_STAT_NUM);
	unsigned int i, j;

	KUNIT_ASSERT_EQ(test, s->num_counters, ARRAY_SIZE(rocx_ib_stats_want));
	for (i = 0; i < s->num_counters; i++) {
		KUNIT_EXPECT_STREQ(test, s->descs[i].name,
				   rocx_ib_stats_want[i].name);
		KUNIT_EXPECT_EQ(test, rocx_ib_stat_index(i),
				(int)rocx_ib_stats_want[i].stat);
		/* ib_core makes sysfs files of them: must be unique. */
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, s->descs[i].name,
					    s->descs[j].name);
	}
	KUNIT_EXPECT_EQ(test, rocx_ib_stat_index(s->num_counters), -EINVAL);
	rdma_free_hw_stats_struct(s);
}

/*
 * Every transport and congestion counter of the contract is shown: the
 * table covers ROCX_STAT_PRIO_END up to ROCX_STAT_NUM - 1, in order.
 */
static void rocx_ib_stats_cover_test(struct kunit *test)
{
	unsigned int i, next = ROCX_STAT_PRIO_END;
	int idx, prev = -1;

	for (i = 0; (idx = rocx_ib_stat_index(i)) >= 0; i++) {
		KUNIT_EXPECT_GT(test, idx, prev);
		if (idx >= ROCX_STAT_PRIO_END) {
			KUNIT_EXPECT_EQ(test, idx, (int)next);
			next++;
		}
		prev = idx;
	}
	KUNIT_EXPECT_EQ(test, next, (unsigned int)ROCX_STAT_NUM);
}

struct rocx_ib_stats_num_case {
	const char *desc;
	unsigned int num_stats;
	unsigned int want;
};

static const struct rocx_ib_stats_num_case rocx_ib_stats_num_cases[] = {
	{ "none", 0, 0 },
	/* A 1.1 device: counters up to ROCX_STAT_ROCE_RX_DROPPED. */
	{ "contract_1_1", ROCX_STAT_ROCE_RX_DROPPED + 1, 0 },
	{ "rx_write_only", ROCX_STAT_RX_WRITE_REQUESTS + 1, 1 },
	{ "no_transport", ROCX_STAT_PRIO_END, 3 },
	{ "transport_no_cc", ROCX_STAT_NP_CNP_SENT, 15 },
	/* A device before doorbell records: all but db_record_takes. */
	{ "no_db_record", ROCX_STAT_DB_RECORD_TAKES, 19 },
	{ "all", ROCX_STAT_NUM, 20 },
	/* A later device with more: only those this driver knows. */
	{ "newer_device", ROCX_STAT_NUM + 40, 20 },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_stats_num, rocx_ib_stats_num_cases, desc);

static void rocx_ib_stats_num_test(struct kunit *test)
{
	const struct rocx_ib_stats_num_case *c = test->param_value;
	struct rdma_hw_stats *s;

	KUNIT_EXPECT_EQ(test, rocx_ib_stats_num(c->num_stats), c->want);
	if (!c->want)
		return;
	s = rocx_ib_stats_get(test, c->num_stats);
	KUNIT_EXPECT_EQ(test, s->num_counters, c->want);
	/* The ones shown are all the device writes. */
	KUNIT_EXPECT_LT(test, rocx_ib_stat_index(c->want - 1),
			(int)c->num_stats);
	rdma_free_hw_stats_struct(s);
}

/*
 * A fake GET_STATS: counter i reads 1000 + i, and the device writes
 * rocx_ib_fake_wrote of them at most (or fails with rocx_ib_fake_err).
 */
static unsigned int rocx_ib_fake_wrote, rocx_ib_fake_asked;
static int rocx_ib_fake_err;

static int rocx_ib_fake_read(struct rocx_ib_dev *dev, u64 *buf,
			     unsigned int n)
{
	unsigned int i, got = min(n, rocx_ib_fake_wrote);

	rocx_ib_fake_asked = n;
	if (rocx_ib_fake_err)
		return rocx_ib_fake_err;
	for (i = 0; i < got; i++)
		buf[i] = 1000 + i;
	return got;
}

struct rocx_ib_get_case {
	const char *desc;
	unsigned int num_stats;	/* IDENTIFY */
	unsigned int wrote;	/* what GET_STATS answers */
	int err;
	unsigned int asked;	/* the read it should make */
	int ret;
};

static const struct rocx_ib_get_case rocx_ib_get_cases[] = {
	{ "all", ROCX_STAT_NUM, ROCX_STAT_NUM, 0, ROCX_STAT_NUM, 20 },
	{ "no_cc", ROCX_STAT_NP_CNP_SENT, ROCX_STAT_NP_CNP_SENT, 0,
	  ROCX_STAT_ROCE_TX_MTU_DROPS + 1, 15 },
	/* Fewer than IDENTIFY said: the rest reads 0. */
	{ "short_answer", ROCX_STAT_NUM, ROCX_STAT_RP_CNP_HANDLED, 0,
	  ROCX_STAT_NUM, 20 },
	{ "error", ROCX_STAT_NUM, ROCX_STAT_NUM, -EIO, ROCX_STAT_NUM, -EIO },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_get, rocx_ib_get_cases, desc);

static void rocx_ib_get_hw_stats_test(struct kunit *test)
{
	const struct rocx_ib_get_case *c = test->param_value;
	struct rocx_ib_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct rocx_identify *id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);
	struct rdma_hw_stats *s;
	unsigned int i;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, id);
	id->num_stats = cpu_to_le16(c->num_stats);
	dev->id = id;
	rocx_ib_fake_wrote = c->wrote;
	rocx_ib_fake_err = c->err;
	rocx_ib_fake_asked = 0;
	kunit_activate_static_stub(test, rocx_ib_stats_read, rocx_ib_fake_read);

	s = rocx_ib_stats_get(test, c->num_stats);
	for (i = 0; i < s->num_counters; i++)
		s->value[i] = 0xdead;
	ret = rocx_ib_get_hw_stats(&dev->ibdev, s, ROCX_IB_PORT, 0);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, rocx_ib_fake_asked, c->asked);
	for (i = 0; ret > 0 && i < s->num_counters; i++) {
		unsigned int stat = rocx_ib_stats_want[i].stat;

		KUNIT_EXPECT_EQ_MSG(test, s->value[i],
				    stat < c->wrote ? 1000 + stat : 0,
				    "%s", rocx_ib_stats_want[i].name);
	}
	rdma_free_hw_stats_struct(s);
}

static struct kunit_case rocx_ib_stats_test_cases[] = {
	KUNIT_CASE(rocx_ib_stats_names_test),
	KUNIT_CASE(rocx_ib_stats_cover_test),
	KUNIT_CASE_PARAM(rocx_ib_stats_num_test, rocx_ib_stats_num_gen_params),
	KUNIT_CASE_PARAM(rocx_ib_get_hw_stats_test, rocx_ib_get_gen_params),
	{}
};

static struct kunit_suite rocx_ib_stats_suite = {
	.name = "rocx_ib_stats",
	.test_cases = rocx_ib_stats_test_cases,
};

kunit_test_suite(rocx_ib_stats_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for rocx_ib's hardware counters");
MODULE_LICENSE("Dual BSD/GPL");
