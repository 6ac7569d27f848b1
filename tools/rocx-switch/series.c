// SPDX-License-Identifier: GPL-2.0
/*
 * Lossless fabric, the time series (see qos.h): every interval one JSON
 * line with, per port, the egress queue depth (bytes, all priorities and
 * each), the transmit and receive rates over the interval (Mb/s, the
 * port's and each priority's), and the counters of marks, drops and pause
 * frames sent and received (running totals), and which priorities are
 * paused; "unread" is what the port's guest has not read yet of what the
 * port sent it, as the kernel counts it (port_unread()).  "t" is seconds since the series started.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "switch.h"

struct sw_series_prev {
	uint64_t tx[SW_MAX_PORTS][SW_NUM_PRIO];
	uint64_t rx[SW_MAX_PORTS][SW_NUM_PRIO];
};

int series_open(struct sw *sw, const char *path, uint64_t interval_ns)
{
	FILE *f;
	char *copy;

	if (!interval_ns)
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	copy = strdup(path);
	if (!sw->series_prev)
		sw->series_prev = calloc(1, sizeof(*sw->series_prev));
	if (!copy || !sw->series_prev) {
		free(copy);
		fclose(f);
		return -1;
	}
	series_close(sw);
	sw->series = f;
	sw->series_path = copy;
	sw->series_ns = interval_ns;
	sw->series_t0_ns = sw->now_ns;
	sw->series_next_ns = sw->now_ns + interval_ns;
	memset(sw->series_prev, 0, sizeof(*sw->series_prev));
	for (unsigned int i = 0; i < sw->nports; i++)
		for (unsigned int k = 0; k < SW_NUM_PRIO; k++) {
			sw->series_prev->tx[i][k] = sw->port[i].qos.st[k].tx_bytes;
			sw->series_prev->rx[i][k] = sw->port[i].qos.st[k].rx_bytes;
		}
	return 0;
}

void series_close(struct sw *sw)
{
	if (sw->series)
		fclose(sw->series);
	sw->series = NULL;
	free(sw->series_path);
	sw->series_path = NULL;
}

static void put_array(FILE *f, const char *key, const uint64_t *v)
{
	unsigned int k;

	fprintf(f, ",\"%s\":[", key);
	for (k = 0; k < SW_NUM_PRIO; k++)
		fprintf(f, "%s%" PRIu64, k ? "," : "", v[k]);
	fputc(']', f);
}

static void put_rates(FILE *f, const char *key, const uint64_t *bytes,
		      double secs)
{
	unsigned int k;

	fprintf(f, ",\"%s\":[", key);
	for (k = 0; k < SW_NUM_PRIO; k++)
		fprintf(f, "%s%.3f", k ? "," : "", bytes[k] * 8 / secs / 1e6);
	fputc(']', f);
}

void series_tick(struct sw *sw)
{
	/* The interval the rates are over: late ticks count as long. */
	double secs = (double)(sw->now_ns - (sw->series_next_ns -
					     sw->series_ns)) / 1e9;
	FILE *f = sw->series;
	unsigned int i, k;

	if (secs <= 0)
		secs = (double)sw->series_ns / 1e9;
	fprintf(f, "{\"t\":%.6f,\"ports\":[",
		(double)(sw->now_ns - sw->series_t0_ns) / 1e9);
	for (i = 0; i < sw->nports; i++) {
		const struct sw_qos_port *q = &sw->port[i].qos;
		uint64_t dtx[SW_NUM_PRIO], drx[SW_NUM_PRIO], v[SW_NUM_PRIO];
		uint64_t depth = 0, ttx = 0, trx = 0;

		lost_flush(sw, &sw->port[i]);
		for (k = 0; k < SW_NUM_PRIO; k++) {
			dtx[k] = q->st[k].tx_bytes - sw->series_prev->tx[i][k];
			drx[k] = q->st[k].rx_bytes - sw->series_prev->rx[i][k];
			sw->series_prev->tx[i][k] = q->st[k].tx_bytes;
			sw->series_prev->rx[i][k] = q->st[k].rx_bytes;
			depth += q->q_bytes[k];
			ttx += dtx[k];
			trx += drx[k];
		}
		fprintf(f, "%s{\"port\":%u,\"depth\":%" PRIu64
			",\"unread\":%" PRIu64
			",\"tx_mbps\":%.3f,\"rx_mbps\":%.3f,\"lost_line_ns\":%.0f",
			i ? "," : "", i,
			depth, sw->timed ? 0 : port_unread(&sw->port[i]),
			ttx * 8 / secs / 1e6, trx * 8 / secs / 1e6,
			q->lost_line_ns);
		fprintf(f, ",\"lost_host_ns\":%.0f,\"lost_recv_ns\":%.0f",
			q->lost_host_ns, q->lost_recv_ns);
		put_array(f, "depth_prio", q->q_bytes);
		put_rates(f, "tx_mbps_prio", dtx, secs);
		put_rates(f, "rx_mbps_prio", drx, secs);
		for (k = 0; k < SW_NUM_PRIO; k++)
			v[k] = q->st[k].marked;
		put_array(f, "marked", v);
		for (k = 0; k < SW_NUM_PRIO; k++)
			v[k] = q->st[k].dropped;
		put_array(f, "dropped", v);
		for (k = 0; k < SW_NUM_PRIO; k++)
			v[k] = q->st[k].pause_tx;
		put_array(f, "pause_tx", v);
		for (k = 0; k < SW_NUM_PRIO; k++)
			v[k] = q->st[k].pause_rx;
		put_array(f, "pause_rx", v);
		for (k = 0; k < SW_NUM_PRIO; k++)
			v[k] = q->paused_until[k] > sw->now_ns;
		put_array(f, "paused", v);
		fputc('}', f);
	}
	fputs("]}\n", f);
	fflush(f);
	/* A fixed grid: a late tick does not shift the next ones. */
	while (sw->series_next_ns <= sw->now_ns)
		sw->series_next_ns += sw->series_ns;
}

int series_cmd(struct sw *sw, struct ctl_args *a, FILE *out)
{
	const char *path = ctl_take(a, "file");
	const char *iv = ctl_take(a, "interval");
	bool off = ctl_flag(a, "off");
	uint64_t ns = sw->series_ns ? sw->series_ns : 100000000;
	/*
	 * On the wall clock a tick is a timer wake-up of the host; on the
	 * virtual clock it is an event like any other, and congestion at
	 * tens of Gb/s changes within tens of microseconds.
	 */
	uint64_t min_ns = sw->timed ? 10000 : 1000000;

	if (ctl_check_unused(a))
		return -1;
	if (iv && (ctl_parse_time(iv, &ns) || ns < min_ns))
		return ctl_err(a, "series: interval=%s: a time, %s or more",
			       iv, sw->timed ? "10us" : "1ms");
	if (off) {
		series_close(sw);
	} else if (path) {
		if (series_open(sw, path, ns))
			return ctl_err(a, "series: %s: cannot write it", path);
	} else if (iv && sw->series) {
		sw->series_ns = ns;
		sw->series_next_ns = sw->now_ns + ns;
	}
	if (sw->series)
		fprintf(out, "series file=%s interval_ns=%" PRIu64 "\n",
			sw->series_path, sw->series_ns);
	else
		fprintf(out, "series off\n");
	return 0;
}
