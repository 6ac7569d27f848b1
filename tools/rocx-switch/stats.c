// SPDX-License-Identifier: GPL-2.0
/*
 * Counter report: one "key=value" line per port so tests can parse it;
 * rx_imp_* and tx_imp_* are the port's ingress and egress impairments.
 */
#include <inttypes.h>

#include "switch.h"

void stats_print_port(const struct sw *sw, unsigned int idx, FILE *out)
{
	const struct sw_port *p = &sw->port[idx];
	const struct sw_port_stats *s = &p->st;
	int tc;

	fprintf(out,
		"rocx-switch: port%u state=%s rx_frames=%" PRIu64
		" rx_bytes=%" PRIu64 " tx_frames=%" PRIu64
		" tx_bytes=%" PRIu64 " rx_runt=%" PRIu64
		" rx_oversize=%" PRIu64 " rx_filtered=%" PRIu64
		" rx_err=%" PRIu64 " tx_nopeer=%" PRIu64
		" tx_qfull=%" PRIu64 " tx_err=%" PRIu64
		" tx_blocked=%" PRIu64 " tx_held=%" PRIu64
		" rx_bundles=%" PRIu64
		" tx_bundles=%" PRIu64 " rx_fab_err=%" PRIu64
		" bundle=%u queued=%u ch=%s ch_refused=%" PRIu64
		" rx_dgram_timed=%" PRIu64 " promise_rx=%" PRIu64
		" promise_tx=%" PRIu64 " direct=%s direct_go=%" PRIu64
		" direct_end=%" PRIu64 " tx_tc=",
		idx, port_state_name(p->state), s->rx_frames,
		s->rx_bytes, s->tx_frames, s->tx_bytes, s->rx_runt,
		s->rx_oversize, s->rx_filtered, s->rx_err,
		s->tx_nopeer, s->tx_qfull, s->tx_err, s->tx_blocked, s->tx_held,
		s->rx_bundles, s->tx_bundles, s->rx_fab_err,
		p->bundle ? p->bundle_max : 0, p->eg.queued,
		chan_state_name(p), s->ch_refused, s->rx_dgram_timed,
		p->ch.prom_rx, p->ch.prom_tx, direct_state_name(p),
		s->direct_go, s->direct_end);
	for (tc = 0; tc < SW_NUM_TC; tc++)
		fprintf(out, "%s%" PRIu64, tc ? "," : "", s->tx_tc[tc]);
	impair_stats_print(p, out);
	qos_stats_print(p, out);
	fputc('\n', out);
}

void stats_print(const struct sw *sw, FILE *out)
{
	unsigned int i;

	for (i = 0; i < sw->nports; i++)
		stats_print_port(sw, i, out);
	fprintf(out,
		"rocx-switch: fdb entries=%u learned=%" PRIu64 " moved=%" PRIu64
		" evicted=%" PRIu64 " pcap_records=%" PRIu64 " seed=%" PRIu64
		" imp_held=%u clock=%" PRIu64 " events=%" PRIu64 "\n",
		fdb_count(sw->fdb, sw->now_ms), sw->fdb->learned,
		sw->fdb->moved, sw->fdb->evicted, sw->pcap.records, sw->seed,
		sw->imp_held, sw->timed ? sw->now_ns : 0, sw->events);
	fflush(out);
}
