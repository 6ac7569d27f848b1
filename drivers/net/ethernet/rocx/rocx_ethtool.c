// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx ethtool operations.  `ethtool -S` shows the device counters
 * (GET_STATS, "hw_" names in enum rocx_stat order) followed by the driver's
 * software counters ("sw_" names), the last of them per TX queue
 * ("sw_txQ_packets", ...: queue Q is traffic class Q).  `ethtool -t` runs the probe's
 * self-tests again on the live device.
 */
#include <kunit/visibility.h>
#include <linux/ethtool.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include "rocx.h"
#include "rocx_ethtool.h"
#include "rocx_ring.h"

static const char * const rocx_hw_stat_names[] = {
	[ROCX_STAT_TX_PACKETS] = "hw_tx_packets",
	[ROCX_STAT_TX_BYTES] = "hw_tx_bytes",
	[ROCX_STAT_TX_ERRORS] = "hw_tx_errors",
	[ROCX_STAT_TX_DROPPED_LINK_DOWN] = "hw_tx_dropped_link_down",
	[ROCX_STAT_RX_PACKETS] = "hw_rx_packets",
	[ROCX_STAT_RX_BYTES] = "hw_rx_bytes",
	[ROCX_STAT_RX_BROADCAST] = "hw_rx_broadcast",
	[ROCX_STAT_RX_MULTICAST] = "hw_rx_multicast",
	[ROCX_STAT_RX_DROPPED_FILTER] = "hw_rx_dropped_filter",
	[ROCX_STAT_RX_DROPPED_LINK_DOWN] = "hw_rx_dropped_link_down",
	[ROCX_STAT_RX_TRUNCATED] = "hw_rx_truncated",
	[ROCX_STAT_RX_ERRORS] = "hw_rx_errors",
	[ROCX_STAT_RX_NO_BUFFER] = "hw_rx_no_buffer",
	[ROCX_STAT_INTERRUPTS] = "hw_interrupts",
	[ROCX_STAT_DOORBELLS] = "hw_doorbells",
	[ROCX_STAT_AQ_COMMANDS] = "hw_aq_commands",
	[ROCX_STAT_AQ_ERRORS] = "hw_aq_errors",
	[ROCX_STAT_GUEST_ERRORS] = "hw_guest_errors",
	[ROCX_STAT_EQ_OVERFLOWS] = "hw_eq_overflows",
	[ROCX_STAT_LINK_CHANGES] = "hw_link_changes",
	[ROCX_STAT_ROCE_RX_PACKETS] = "hw_roce_rx_packets",
	[ROCX_STAT_ROCE_TX_PACKETS] = "hw_roce_tx_packets",
	[ROCX_STAT_ROCE_ICRC_ERRORS] = "hw_roce_icrc_errors",
	[ROCX_STAT_ROCE_RX_DROPPED] = "hw_roce_rx_dropped",
	[ROCX_STAT_RX_DISCARDS] = "hw_rx_discards",
	[ROCX_STAT_RX_PAUSE] = "hw_rx_pause",
	[ROCX_STAT_TX_PAUSE] = "hw_tx_pause",
	[ROCX_STAT_RX_PAUSE_DURATION] = "hw_rx_pause_duration",
	[ROCX_STAT_TX_PAUSE_DURATION] = "hw_tx_pause_duration",
	[ROCX_STAT_RX_WRITE_REQUESTS] = "hw_rx_write_requests",
	[ROCX_STAT_RX_READ_REQUESTS] = "hw_rx_read_requests",
	[ROCX_STAT_RX_ATOMIC_REQUESTS] = "hw_rx_atomic_requests",
};

static_assert(ARRAY_SIZE(rocx_hw_stat_names) == ROCX_STAT_PRIO_BASE);

/*
 * The per-priority block keeps mlx5's names (rx_prio3_pause, ...), which
 * DCB users' scripts already look for.
 */
#define ROCX_PRIO_NAMES(p)						\
	"rx_prio" #p "_bytes", "rx_prio" #p "_packets",			\
	"tx_prio" #p "_bytes", "tx_prio" #p "_packets",			\
	"rx_prio" #p "_pause", "tx_prio" #p "_pause",			\
	"rx_prio" #p "_pause_duration", "tx_prio" #p "_pause_duration",	\
	"rx_prio" #p "_discards", "rx_prio" #p "_buf_max"

static const char * const rocx_prio_stat_names[] = {
	ROCX_PRIO_NAMES(0), ROCX_PRIO_NAMES(1), ROCX_PRIO_NAMES(2),
	ROCX_PRIO_NAMES(3), ROCX_PRIO_NAMES(4), ROCX_PRIO_NAMES(5),
	ROCX_PRIO_NAMES(6), ROCX_PRIO_NAMES(7),
};

static_assert(ARRAY_SIZE(rocx_prio_stat_names) ==
	      ROCX_STAT_PRIO_END - ROCX_STAT_PRIO_BASE);
static_assert(ROCX_STAT_PRIO_NUM == 10);

/*
 * The transport and congestion counters rdma statistic shows too, under
 * mlx5's names; here "hw_" is prefixed and one name shortened to fit
 * ETH_GSTRING_LEN.
 */
static const char * const rocx_tail_stat_names[] = {
	[ROCX_STAT_OUT_OF_SEQUENCE - ROCX_STAT_PRIO_END] =
		"hw_out_of_sequence",
	[ROCX_STAT_PACKET_SEQ_ERR - ROCX_STAT_PRIO_END] = "hw_packet_seq_err",
	[ROCX_STAT_DUPLICATE_REQUEST - ROCX_STAT_PRIO_END] =
		"hw_duplicate_request",
	[ROCX_STAT_LOCAL_ACK_TIMEOUT_ERR - ROCX_STAT_PRIO_END] =
		"hw_local_ack_timeout_err",
	[ROCX_STAT_RNR_NAK_RETRY_ERR - ROCX_STAT_PRIO_END] =
		"hw_rnr_nak_retry_err",
	[ROCX_STAT_IMPLIED_NAK_SEQ_ERR - ROCX_STAT_PRIO_END] =
		"hw_implied_nak_seq_err",
	[ROCX_STAT_REQ_REMOTE_ACCESS_ERRORS - ROCX_STAT_PRIO_END] =
		"hw_req_remote_access_errors",
	[ROCX_STAT_REQ_REMOTE_INVALID_REQUEST - ROCX_STAT_PRIO_END] =
		"hw_req_remote_invalid_request",
	[ROCX_STAT_RESP_REMOTE_ACCESS_ERRORS - ROCX_STAT_PRIO_END] =
		"hw_resp_remote_access_errors",
	[ROCX_STAT_RESP_REMOTE_INVALID_REQUEST - ROCX_STAT_PRIO_END] =
		"hw_resp_remote_invalid_request",
	[ROCX_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED - ROCX_STAT_PRIO_END] =
		"hw_transport_retries_exceeded",
	[ROCX_STAT_ROCE_TX_MTU_DROPS - ROCX_STAT_PRIO_END] =
		"hw_roce_tx_mtu_drops",
	[ROCX_STAT_NP_CNP_SENT - ROCX_STAT_PRIO_END] = "hw_np_cnp_sent",
	[ROCX_STAT_NP_ECN_MARKED_ROCE_PACKETS - ROCX_STAT_PRIO_END] =
		"hw_np_ecn_marked_roce_packets",
	[ROCX_STAT_RP_CNP_HANDLED - ROCX_STAT_PRIO_END] = "hw_rp_cnp_handled",
	[ROCX_STAT_RP_CNP_IGNORED - ROCX_STAT_PRIO_END] = "hw_rp_cnp_ignored",
	[ROCX_STAT_DB_RECORD_TAKES - ROCX_STAT_PRIO_END] =
		"hw_db_record_takes",
};

static_assert(ARRAY_SIZE(rocx_tail_stat_names) ==
	      ROCX_STAT_NUM - ROCX_STAT_PRIO_END);

enum rocx_sw_stat {
	ROCX_SW_TX_PACKETS,
	ROCX_SW_TX_BYTES,
	ROCX_SW_TX_ERRORS,
	ROCX_SW_TX_DROPPED,
	ROCX_SW_TX_BUSY,
	ROCX_SW_TX_TIMEOUTS,
	ROCX_SW_RX_PACKETS,
	ROCX_SW_RX_BYTES,
	ROCX_SW_RX_ERRORS,
	ROCX_SW_RX_DROPPED,
	ROCX_SW_RX_TRUNCATED,
	ROCX_SW_FUNCTION_RESETS,
	ROCX_SW_EQ_LOST_EVENTS,
	ROCX_SW_NUM
};

static const char * const rocx_sw_stat_names[] = {
	[ROCX_SW_TX_PACKETS] = "sw_tx_packets",
	[ROCX_SW_TX_BYTES] = "sw_tx_bytes",
	[ROCX_SW_TX_ERRORS] = "sw_tx_errors",
	[ROCX_SW_TX_DROPPED] = "sw_tx_dropped",
	[ROCX_SW_TX_BUSY] = "sw_tx_busy",
	[ROCX_SW_TX_TIMEOUTS] = "sw_tx_timeouts",
	[ROCX_SW_RX_PACKETS] = "sw_rx_packets",
	[ROCX_SW_RX_BYTES] = "sw_rx_bytes",
	[ROCX_SW_RX_ERRORS] = "sw_rx_errors",
	[ROCX_SW_RX_DROPPED] = "sw_rx_dropped",
	[ROCX_SW_RX_TRUNCATED] = "sw_rx_truncated",
	[ROCX_SW_FUNCTION_RESETS] = "sw_function_resets",
	[ROCX_SW_EQ_LOST_EVENTS] = "sw_eq_lost_events",
};

static_assert(ARRAY_SIZE(rocx_sw_stat_names) == ROCX_SW_NUM);

/* Per TX queue, after the rest: "sw_tx<q>_<name>". */
enum rocx_txq_stat {
	ROCX_TXQ_PACKETS,
	ROCX_TXQ_BYTES,
	ROCX_TXQ_DROPPED,
	ROCX_TXQ_NUM
};

static const char * const rocx_txq_stat_names[] = {
	[ROCX_TXQ_PACKETS] = "packets",
	[ROCX_TXQ_BYTES] = "bytes",
	[ROCX_TXQ_DROPPED] = "dropped",
};

static_assert(ARRAY_SIZE(rocx_txq_stat_names) == ROCX_TXQ_NUM);

/**
 * rocx_stat_name() - name of `ethtool -S` entry @i
 * @i: 0..ROCX_STAT_NUM + ROCX_SW_NUM - 1
 *
 * Return: the name, or NULL past the end.
 */
VISIBLE_IF_KUNIT const char *rocx_stat_name(unsigned int i)
{
	if (i < ROCX_STAT_PRIO_BASE)
		return rocx_hw_stat_names[i];
	if (i < ROCX_STAT_PRIO_END)
		return rocx_prio_stat_names[i - ROCX_STAT_PRIO_BASE];
	if (i < ROCX_STAT_NUM)
		return rocx_tail_stat_names[i - ROCX_STAT_PRIO_END];
	i -= ROCX_STAT_NUM;
	if (i < ROCX_SW_NUM)
		return rocx_sw_stat_names[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_stat_name);

/**
 * rocx_stat_count() - number of `ethtool -S` entries
 *
 * Return: device counters plus driver counters.
 */
VISIBLE_IF_KUNIT unsigned int rocx_stat_count(void)
{
	return ROCX_STAT_NUM + ROCX_SW_NUM;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_stat_count);

/**
 * rocx_ring_size_param() - ring size for an `ethtool -G` request
 * @req: requested entries
 *
 * Return: @req rounded up to a power of two the device accepts.
 */
VISIBLE_IF_KUNIT u32 rocx_ring_size_param(u32 req)
{
	if (req <= ROCX_RING_MIN)
		return ROCX_RING_MIN;
	if (req >= ROCX_RING_MAX)
		return ROCX_RING_MAX;
	return roundup_pow_of_two(req);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ring_size_param);

static const char * const rocx_selftest_names[] = {
	[ROCX_TEST_REGS] = "Register test  (on/offline)",
	[ROCX_TEST_IRQ] = "Interrupt test (offline)",
	[ROCX_TEST_DMA] = "DMA test       (on/offline)",
};

static_assert(ARRAY_SIZE(rocx_selftest_names) == ROCX_TEST_NUM);

/**
 * rocx_selftest_name() - name of `ethtool -t` result @i
 * @i: enum rocx_selftest value
 *
 * Return: the name, or NULL past the end.
 */
VISIBLE_IF_KUNIT const char *rocx_selftest_name(unsigned int i)
{
	return i < ROCX_TEST_NUM ? rocx_selftest_names[i] : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_selftest_name);

/**
 * rocx_selftest_runs() - whether a test runs in a self-test of @flags
 * @test: enum rocx_selftest value
 * @flags: ethtool_test.flags as requested
 *
 * The interrupt test raises the vector NAPI owns, so it stops the data
 * path for a moment: offline only.  The register and DMA tests touch
 * only the self-test registers and their own buffer: online too.
 *
 * Return: true if @test runs.
 */
VISIBLE_IF_KUNIT bool rocx_selftest_runs(unsigned int test, u32 flags)
{
	return test != ROCX_TEST_IRQ || (flags & ETH_TEST_FL_OFFLINE);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_selftest_runs);

/**
 * rocx_selftest_report() - results as ethtool wants them
 * @test: ethtool's request; ETH_TEST_FL_FAILED is added if a test failed
 * @data: ROCX_TEST_NUM results: 0 passed (or did not run), else the
 *	positive errno of the failure
 * @res: ROCX_TEST_NUM results as 0 or negative errnos
 */
VISIBLE_IF_KUNIT void rocx_selftest_report(struct ethtool_test *test,
					   u64 *data, const int *res)
{
	unsigned int i;

	for (i = 0; i < ROCX_TEST_NUM; i++) {
		data[i] = res[i] < 0 ? -res[i] : res[i];
		if (res[i])
			test->flags |= ETH_TEST_FL_FAILED;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_selftest_report);

static void rocx_get_drvinfo(struct net_device *netdev,
			     struct ethtool_drvinfo *info)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	u32 fw = nd->core->fw_version;

	strscpy(info->driver, ROCX_DRV_NAME, sizeof(info->driver));
	snprintf(info->fw_version, sizeof(info->fw_version), "%u.%u.%u",
		 fw >> 16, (fw >> 8) & 0xff, fw & 0xff);
	strscpy(info->bus_info, pci_name(nd->core->pdev),
		sizeof(info->bus_info));
}

/*
 * The port's line rate in Mb/s, 0 with the link down.  A 1.2 device with
 * DCB models the rate in Mb/s (LINK_SPEED), small enough for TCG guests
 * to fill; LINK_STATUS's Gb/s field would round it away.
 */
static u32 rocx_port_speed_mbps(struct rocx_core *core)
{
	u32 status = rocx_rd32(core, ROCX_REG_LINK_STATUS);
	u32 minor = ROCX_FIELD_GET(ROCX_VERSION_MINOR_MASK, core->version);

	if (rocx_gone(core) || !(status & ROCX_LINK_UP))
		return 0;
	if (minor >= 2 && rocx_dcb_supported(core))
		return rocx_rd32(core, ROCX_REG_LINK_SPEED);
	return rocx_link_speed_mbps(status);
}

static int rocx_get_link_ksettings(struct net_device *netdev,
				   struct ethtool_link_ksettings *cmd)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	u32 speed = rocx_port_speed_mbps(nd->core);

	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	cmd->base.speed = speed ? speed : SPEED_UNKNOWN;
	cmd->base.duplex = speed ? DUPLEX_FULL : DUPLEX_UNKNOWN;
	cmd->base.port = PORT_OTHER;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

/* 802.3x pause is SET_DCB's pause field; there is no autonegotiation. */
static void rocx_get_pauseparam(struct net_device *netdev,
				struct ethtool_pauseparam *pause)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	u8 bits = 0;

	pause->autoneg = AUTONEG_DISABLE;
	if (rocx_dcb_supported(nd->core) &&
	    rocx_dcb_get_pause(nd->core, &bits, NULL))
		netdev_warn_once(netdev, "QUERY_DCB failed\n");
	pause->rx_pause = !!(bits & ROCX_PAUSE_RX);
	pause->tx_pause = !!(bits & ROCX_PAUSE_TX);
}

static int rocx_set_pauseparam(struct net_device *netdev,
			       struct ethtool_pauseparam *pause)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	u8 bits = 0, cur, pfc_en;
	const char *why;
	int err;

	if (!rocx_dcb_supported(nd->core))
		return -EOPNOTSUPP;
	if (pause->autoneg) {
		netdev_err(netdev, "pause autonegotiation is not supported\n");
		return -EINVAL;
	}
	if (pause->rx_pause)
		bits |= ROCX_PAUSE_RX;
	if (pause->tx_pause)
		bits |= ROCX_PAUSE_TX;
	err = rocx_dcb_get_pause(nd->core, &cur, &pfc_en);
	if (err)
		return err;
	err = rocx_dcb_pause_pfc_check(bits, pfc_en, &why);
	if (err) {
		netdev_err(netdev, "link pause refused: PFC is on for priorities 0x%02x; %s (dcb pfc set dev %s prio-pfc all:off)\n",
			   pfc_en, why, netdev->name);
		return err;
	}
	if (bits == cur)
		return 0;
	return rocx_dcb_set_pause(nd->core, bits);
}

static void rocx_get_pause_stats(struct net_device *netdev,
				 struct ethtool_pause_stats *stats)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	u64 *data;
	int got;

	if (!rocx_dcb_supported(nd->core))
		return;
	data = kcalloc(ROCX_STAT_PRIO_BASE, sizeof(*data), GFP_KERNEL);
	if (!data)
		return;
	/* Left ETHTOOL_STAT_NOT_SET when the device has no such counter. */
	got = rocx_aq_get_stats(nd->core, data, ROCX_STAT_PRIO_BASE);
	if (got > ROCX_STAT_TX_PAUSE) {
		stats->rx_pause_frames = data[ROCX_STAT_RX_PAUSE];
		stats->tx_pause_frames = data[ROCX_STAT_TX_PAUSE];
	}
	kfree(data);
}

static void rocx_get_ringparam(struct net_device *netdev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct rocx_ndev *nd = netdev_priv(netdev);

	ring->rx_max_pending = ROCX_RING_MAX;
	ring->tx_max_pending = ROCX_RING_MAX;
	ring->rx_pending = nd->rx_ring_size;
	ring->tx_pending = nd->tx_ring_size;
}

static int rocx_set_ringparam(struct net_device *netdev,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	u32 tx = rocx_ring_size_param(ring->tx_pending);
	u32 rx = rocx_ring_size_param(ring->rx_pending);

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "rx-mini and rx-jumbo rings are not supported");
		return -EINVAL;
	}
	if (tx == nd->tx_ring_size && rx == nd->rx_ring_size)
		return 0;
	return rocx_netdev_reconfig(nd, tx, rx, netdev->mtu);
}

/*
 * A TX ring per traffic class and one RX ring, on one vector: the
 * classes are the device's, so `ethtool -L` has nothing to change.
 */
static void rocx_get_channels(struct net_device *netdev,
			      struct ethtool_channels *ch)
{
	struct rocx_ndev *nd = netdev_priv(netdev);

	ch->max_rx = 1;
	ch->max_tx = nd->num_txq;
	ch->rx_count = 1;
	ch->tx_count = nd->num_txq;
}

static int rocx_get_sset_count(struct net_device *netdev, int sset)
{
	struct rocx_ndev *nd = netdev_priv(netdev);

	switch (sset) {
	case ETH_SS_STATS:
		return rocx_stat_count() + nd->num_txq * ROCX_TXQ_NUM;
	case ETH_SS_TEST:
		if (!(nd->core->caps & ROCX_CAP_SELFTEST))
			return -EOPNOTSUPP;
		return ROCX_TEST_NUM;
	default:
		return -EOPNOTSUPP;
	}
}

static void rocx_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	unsigned int i, q;

	switch (sset) {
	case ETH_SS_STATS:
		for (i = 0; i < rocx_stat_count(); i++)
			ethtool_puts(&data, rocx_stat_name(i));
		for (q = 0; q < nd->num_txq; q++)
			for (i = 0; i < ROCX_TXQ_NUM; i++)
				ethtool_sprintf(&data, "sw_tx%u_%s", q,
						rocx_txq_stat_names[i]);
		break;
	case ETH_SS_TEST:
		for (i = 0; i < ROCX_TEST_NUM; i++)
			ethtool_puts(&data, rocx_selftest_name(i));
		break;
	}
}

/*
 * Vector 0 (admin queue, EQ 0) keeps its handler: both decide by phase
 * bits, so the extra interrupt is harmless.  Vector 1 is NAPI's: the
 * data path is quiesced around it.  Vectors 2 and up are handed to
 * rocx_ib (rocx_irq_vector()) and tested at probe only: raising one would
 * call a handler rocx_core does not own, and a temporary handler here
 * could make rocx_ib's request_irq() fail while it binds.
 */
static int rocx_selftest_irqs(struct rocx_ndev *nd)
{
	struct rocx_core *core = nd->core;
	bool quiesced;
	int err;

	err = rocx_selftest_vector(core, ROCX_VEC_ADMIN, false);
	if (err)
		return err;
	/* Vector 1 has a handler exactly while the interface is open. */
	quiesced = rocx_netdev_quiesce(nd);
	err = rocx_selftest_vector(core, ROCX_VEC_ETH,
				   !netif_running(nd->netdev));
	if (quiesced)
		rocx_netdev_restore(nd);
	return err;
}

/* rtnl held by ethtool: ndo_open/stop and ring changes wait for us. */
static void rocx_self_test(struct net_device *netdev,
			   struct ethtool_test *test, u64 *data)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	struct rocx_core *core = nd->core;
	int res[ROCX_TEST_NUM] = {};

	res[ROCX_TEST_REGS] = rocx_selftest_regs(core);
	if (rocx_selftest_runs(ROCX_TEST_IRQ, test->flags))
		res[ROCX_TEST_IRQ] = rocx_selftest_irqs(nd);
	/* Never a reset: that would destroy every queue, RDMA's too. */
	res[ROCX_TEST_DMA] = rocx_selftest_dma(core, false);
	rocx_selftest_report(test, data, res);
	if (test->flags & ETH_TEST_FL_FAILED)
		netdev_err(netdev, "self-test failed: registers %d, interrupts %d, DMA %d\n",
			   res[ROCX_TEST_REGS], res[ROCX_TEST_IRQ],
			   res[ROCX_TEST_DMA]);
}

/* The ROCX_SW_* counters, then ROCX_TXQ_* per TX queue. */
static void rocx_read_sw_stats(struct rocx_ndev *nd, u64 *data)
{
	u64 *per_q = data + ROCX_SW_NUM;
	const struct rocx_sw_stats *st;
	struct rocx_txq_stats tq;
	unsigned int start, q;

	for (q = 0; q < nd->num_txq; q++, per_q += ROCX_TXQ_NUM) {
		rocx_txq_stats_read(nd, q, &tq);
		data[ROCX_SW_TX_PACKETS] += tq.packets;
		data[ROCX_SW_TX_BYTES] += tq.bytes;
		data[ROCX_SW_TX_ERRORS] += tq.errors;
		data[ROCX_SW_TX_DROPPED] += tq.dropped;
		data[ROCX_SW_TX_BUSY] += tq.busy;
		per_q[ROCX_TXQ_PACKETS] = tq.packets;
		per_q[ROCX_TXQ_BYTES] = tq.bytes;
		per_q[ROCX_TXQ_DROPPED] = tq.dropped;
	}
	data[ROCX_SW_TX_TIMEOUTS] = atomic64_read(&nd->tx_timeouts);
	st = &nd->rx_stats;
	do {
		start = u64_stats_fetch_begin(&st->syncp);
		data[ROCX_SW_RX_PACKETS] = u64_stats_read(&st->packets);
		data[ROCX_SW_RX_BYTES] = u64_stats_read(&st->bytes);
		data[ROCX_SW_RX_ERRORS] = u64_stats_read(&st->errors);
		data[ROCX_SW_RX_DROPPED] = u64_stats_read(&st->dropped);
		data[ROCX_SW_RX_TRUNCATED] = u64_stats_read(&st->truncated);
	} while (u64_stats_fetch_retry(&st->syncp, start));
	data[ROCX_SW_FUNCTION_RESETS] = atomic64_read(&nd->core->resets);
	data[ROCX_SW_EQ_LOST_EVENTS] = atomic64_read(&nd->core->eq.lost);
}

static void rocx_get_ethtool_stats(struct net_device *netdev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	int got;

	/* Counters an older device does not have read as 0; sums start at 0. */
	memset(data, 0, (ROCX_STAT_NUM + ROCX_SW_NUM) * sizeof(*data));
	got = rocx_aq_get_stats(nd->core, data, ROCX_STAT_NUM);
	if (got < 0)
		netdev_warn_once(netdev, "GET_STATS failed: %d\n", got);
	rocx_read_sw_stats(nd, data + ROCX_STAT_NUM);
}

static const struct ethtool_ops rocx_ethtool_ops = {
	.get_drvinfo		= rocx_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= rocx_get_link_ksettings,
	.get_pauseparam		= rocx_get_pauseparam,
	.set_pauseparam		= rocx_set_pauseparam,
	.get_pause_stats	= rocx_get_pause_stats,
	.get_ringparam		= rocx_get_ringparam,
	.set_ringparam		= rocx_set_ringparam,
	.get_channels		= rocx_get_channels,
	.get_sset_count		= rocx_get_sset_count,
	.get_strings		= rocx_get_strings,
	.get_ethtool_stats	= rocx_get_ethtool_stats,
	.self_test		= rocx_self_test,
};

/**
 * rocx_set_ethtool_ops() - install the ethtool operations
 * @netdev: the port's netdev
 */
void rocx_set_ethtool_ops(struct net_device *netdev)
{
	netdev->ethtool_ops = &rocx_ethtool_ops;
}
