// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib hardware counters: `rdma statistic show link rocxN/1` and the
 * port's hw_counters directory in sysfs.
 *
 * The names are mlx5's (drivers/infiniband/hw/mlx5/counters.c) where the
 * meaning is the same, so that tools and habits built on mlx5 read rocx
 * too; the meanings are the device's (rocx-device.rst, "Counters").
 * Every read is one GET_STATS: the device keeps the counters, the driver
 * keeps no copy.
 */
#include <linux/slab.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "rocx_ib.h"

/*
 * In enum rocx_stat order, so that a device with fewer counters
 * (IDENTIFY num_stats) has a prefix of the table: rocx_ib_stats_num().
 */
static const struct rdma_stat_desc rocx_ib_stat_descs[] = {
	{ .name = "rx_write_requests" },
	{ .name = "rx_read_requests" },
	{ .name = "rx_atomic_requests" },
	{ .name = "out_of_sequence" },
	{ .name = "packet_seq_err" },
	{ .name = "duplicate_request" },
	{ .name = "local_ack_timeout_err" },
	{ .name = "rnr_nak_retry_err" },
	{ .name = "implied_nak_seq_err" },
	{ .name = "req_remote_access_errors" },
	{ .name = "req_remote_invalid_request" },
	{ .name = "resp_remote_access_errors" },
	{ .name = "resp_remote_invalid_request" },
	{ .name = "req_transport_retries_exceeded" },
	{ .name = "roce_tx_mtu_drops" },
	{ .name = "np_cnp_sent" },
	{ .name = "np_ecn_marked_roce_packets" },
	{ .name = "rp_cnp_handled" },
	{ .name = "rp_cnp_ignored" },
	{ .name = "db_record_takes" },
};

/* rocx_ib_stat_descs[i] is the device's counter rocx_ib_stat_map[i]. */
static const u16 rocx_ib_stat_map[] = {
	ROCX_STAT_RX_WRITE_REQUESTS,
	ROCX_STAT_RX_READ_REQUESTS,
	ROCX_STAT_RX_ATOMIC_REQUESTS,
	ROCX_STAT_OUT_OF_SEQUENCE,
	ROCX_STAT_PACKET_SEQ_ERR,
	ROCX_STAT_DUPLICATE_REQUEST,
	ROCX_STAT_LOCAL_ACK_TIMEOUT_ERR,
	ROCX_STAT_RNR_NAK_RETRY_ERR,
	ROCX_STAT_IMPLIED_NAK_SEQ_ERR,
	ROCX_STAT_REQ_REMOTE_ACCESS_ERRORS,
	ROCX_STAT_REQ_REMOTE_INVALID_REQUEST,
	ROCX_STAT_RESP_REMOTE_ACCESS_ERRORS,
	ROCX_STAT_RESP_REMOTE_INVALID_REQUEST,
	ROCX_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED,
	ROCX_STAT_ROCE_TX_MTU_DROPS,
	ROCX_STAT_NP_CNP_SENT,
	ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS,
	ROCX_STAT_RP_CNP_HANDLED,
	ROCX_STAT_RP_CNP_IGNORED,
	ROCX_STAT_DB_RECORD_TAKES,
};

static_assert(ARRAY_SIZE(rocx_ib_stat_descs) == ARRAY_SIZE(rocx_ib_stat_map));

/**
 * rocx_ib_stat_index() - the device counter behind entry @i of the table
 * @i: index into the table, and into rdma_hw_stats.value
 *
 * Return: an enum rocx_stat, or -EINVAL past the end of the table.
 */
VISIBLE_IF_KUNIT int rocx_ib_stat_index(unsigned int i)
{
	if (i >= ARRAY_SIZE(rocx_ib_stat_map))
		return -EINVAL;
	return rocx_ib_stat_map[i];
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_stat_index);

/**
 * rocx_ib_stats_num() - how many of the table a device has
 * @num_stats: counters the device writes (IDENTIFY num_stats)
 */
VISIBLE_IF_KUNIT unsigned int rocx_ib_stats_num(unsigned int num_stats)
{
	unsigned int n = 0;

	while (n < ARRAY_SIZE(rocx_ib_stat_map) &&
	       rocx_ib_stat_map[n] < num_stats)
		n++;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_stats_num);

static unsigned int rocx_ib_dev_stats_num(struct rocx_ib_dev *dev)
{
	return rocx_ib_stats_num(le16_to_cpu(dev->id->num_stats));
}

bool rocx_ib_has_stats(struct rocx_ib_dev *dev)
{
	return rocx_ib_dev_stats_num(dev);
}

/**
 * rocx_ib_stats_alloc() - the counters ib_core shows for a device
 * @num_stats: counters the device writes (IDENTIFY num_stats)
 *
 * Return: names and room for values, or NULL (no memory).
 */
VISIBLE_IF_KUNIT struct rdma_hw_stats *rocx_ib_stats_alloc(unsigned int num_stats)
{
	/* ib_core reads the cache for a few ms before asking again. */
	return rdma_alloc_hw_stats_struct(rocx_ib_stat_descs,
					  rocx_ib_stats_num(num_stats),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_stats_alloc);

static struct rdma_hw_stats *rocx_ib_alloc_hw_port_stats(struct ib_device *ibdev,
							 u32 port)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibdev);

	return rocx_ib_stats_alloc(le16_to_cpu(dev->id->num_stats));
}

/**
 * rocx_ib_stats_read() - the device's first @n counters (GET_STATS)
 * @dev: device
 * @buf: receives them
 * @n: room in @buf
 *
 * Return: how many the device wrote, or a negative errno.
 */
VISIBLE_IF_KUNIT int rocx_ib_stats_read(struct rocx_ib_dev *dev, u64 *buf,
					unsigned int n)
{
	/* KUnit tests put a fake device here. */
	KUNIT_STATIC_STUB_REDIRECT(rocx_ib_stats_read, dev, buf, n);
	return rocx_aq_get_stats(dev->core, buf, n);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_stats_read);

VISIBLE_IF_KUNIT int rocx_ib_get_hw_stats(struct ib_device *ibdev,
					  struct rdma_hw_stats *stats,
					  u32 port, int index)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibdev);
	unsigned int n = min_t(unsigned int, stats->num_counters,
			       rocx_ib_dev_stats_num(dev));
	unsigned int i, want;
	u64 *buf;
	int got;

	if (!n)
		return 0;
	/* The table is in device order: its last entry bounds the read. */
	want = rocx_ib_stat_index(n - 1) + 1;
	buf = kcalloc(want, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	got = rocx_ib_stats_read(dev, buf, want);
	if (got < 0)
		goto out;
	/* A counter the device did not write (a shorter answer) reads 0. */
	for (i = 0; i < n; i++)
		stats->value[i] = buf[rocx_ib_stat_index(i)];
	got = n;
out:
	kfree(buf);
	return got;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_get_hw_stats);

const struct ib_device_ops rocx_ib_stats_ops = {
	.alloc_hw_port_stats = rocx_ib_alloc_hw_port_stats,
	.get_hw_stats = rocx_ib_get_hw_stats,
};
