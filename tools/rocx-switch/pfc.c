// SPDX-License-Identifier: GPL-2.0
/*
 * Lossless fabric, priority flow control (802.1Qbb; see qos.h).
 *
 * Sent: when a lossless priority's ingress occupancy on a port reaches
 * xoff, the switch sends that port a PFC frame pausing the priority for
 * the port's quanta, and again every half of that time while the
 * occupancy stays above xon; falling to xon sends quanta 0.  Frames are
 * built from include/rocx/rocx_pfc.h and go out at once, ahead of the
 * port's queues, as a MAC's control frames do; one the port's socket
 * refuses goes again SW_PFC_RETRY_NS later, never lost.
 *
 * Received: a port with PFC on for a priority honours PFC frames naming
 * it: the priority's egress is paused for quanta x 512 bit times at the
 * port's speed (its line rate, else its speed setting), and quanta 0
 * resumes it.  A port with pause on honours 802.3x pause for every
 * priority.  MAC control frames reaching a port that honours either are
 * consumed and counted; elsewhere they are forwarded like any frame.
 */
#include <arpa/inet.h>
#include <string.h>

#include "switch.h"
#include "rocx/rocx_pfc.h"

static const uint8_t pfc_dst[6] = ROCX_PFC_DST_MAC;
static const uint8_t pfc_src[6] = ROCX_FAB_SWITCH_MAC;

uint64_t pfc_pause_ns(uint16_t quanta, uint64_t speed_mbps)
{
	/* bits / (Mb/s) = us; times 1000 for ns, rounded up. */
	uint64_t bits = (uint64_t)quanta * ROCX_PFC_QUANTUM_BITS * 1000;

	return speed_mbps ? (bits + speed_mbps - 1) / speed_mbps : 0;
}

bool pfc_is_mac_ctl(const struct sw_frame_info *fi)
{
	return fi->ethertype == ROCX_PFC_ETHERTYPE &&
	       !memcmp(fi->dst, pfc_dst, sizeof(pfc_dst));
}

bool pfc_port_lossless(const struct sw_qos_port *q)
{
	unsigned int k;

	for (k = 0; k < SW_NUM_PRIO; k++)
		if (q->prio[k].pfc)
			return true;
	return false;
}

/* End a pause: its time joins paused_ns. */
static void pause_end(struct sw *sw, struct sw_qos_port *q, unsigned int k)
{
	uint64_t end = q->paused_until[k] < sw->now_ns ? q->paused_until[k] :
		       sw->now_ns;

	q->st[k].paused_ns += end - q->pause_start[k];
	q->paused_until[k] = 0;
}

static void pause_set(struct sw *sw, struct sw_qos_port *q, unsigned int k,
		      uint16_t quanta)
{
	if (q->paused_until[k])
		pause_end(sw, q, k);
	if (!quanta)
		return;
	q->pause_start[k] = sw->now_ns;
	q->paused_until[k] = sw->now_ns +
			     pfc_pause_ns(quanta, q->speed_mbps);
}

bool pfc_input(struct sw *sw, struct sw_port *in, struct sw_buf *buf)
{
	struct sw_qos_port *q = &in->qos;
	const uint8_t *f = buf->data + ROCX_PFC_ETH_HLEN;
	uint16_t opcode, cev;
	unsigned int k;

	if (!pfc_port_lossless(q) && !q->pause)
		return false;
	q->rx_frames_mac_ctl++;
	if (buf->len < ROCX_PFC_ETH_HLEN + 4 + 2 * SW_NUM_PRIO) {
		in->st.rx_err++;
		pool_put(&sw->pool, buf);
		return true;
	}
	opcode = (uint16_t)(f[0] << 8 | f[1]);
	cev = (uint16_t)(f[2] << 8 | f[3]);
	for (k = 0; k < SW_NUM_PRIO; k++) {
		uint16_t quanta = (uint16_t)(f[4 + 2 * k] << 8 | f[5 + 2 * k]);

		if (opcode == ROCX_PFC_OPCODE && cev >> k & 1 &&
		    q->prio[k].pfc) {
			q->st[k].pause_rx++;
			pause_set(sw, q, k, quanta);
		} else if (opcode == ROCX_PAUSE_OPCODE && q->pause) {
			/* 802.3x: the time is where class_enable is. */
			q->st[k].pause_rx++;
			pause_set(sw, q, k, cev);
		}
	}
	pool_put(&sw->pool, buf);
	/* A resume: what waited may go now. */
	if (!in->eg.blocked && in->eg.queued)
		egress_service(sw, in);
	return true;
}

bool pfc_paused(struct sw *sw, struct sw_port *p, unsigned int prio)
{
	uint64_t until = p->qos.paused_until[prio];

	return until && until > sw->now_ns;
}

/* The frame did not go: the XOFF refresh or an XON retry sends it soon. */
static void pfc_retry(struct sw *sw, struct sw_qos_port *q, unsigned int prio)
{
	if (q->xoff[prio])
		q->xoff_refresh_ns[prio] = sw->now_ns + SW_PFC_RETRY_NS;
	else
		q->xon_retry_ns[prio] = sw->now_ns + SW_PFC_RETRY_NS;
}

void pfc_send(struct sw *sw, struct sw_port *p, unsigned int prio, bool xoff)
{
	struct sw_qos_port *q = &p->qos;
	struct rocx_pfc_frame *pf;
	struct sw_buf *buf = pool_get(&sw->pool);
	uint16_t quanta = xoff ? q->quanta : 0;

	q->xoff[prio] = xoff;
	/* Again at half the pause while it must last. */
	q->xoff_refresh_ns[prio] = xoff ? sw->now_ns +
				   pfc_pause_ns(quanta, q->speed_mbps) / 2 : 0;
	q->xon_retry_ns[prio] = 0;
	if (!buf) {
		p->st.tx_err++;
		pfc_retry(sw, q, prio);
		return;
	}
	memset(buf->data, 0, ROCX_PFC_FRAME_LEN);
	memcpy(buf->data, pfc_dst, 6);
	memcpy(buf->data + 6, pfc_src, 6);
	buf->data[12] = ROCX_PFC_ETHERTYPE >> 8;
	buf->data[13] = ROCX_PFC_ETHERTYPE & 0xff;
	pf = (struct rocx_pfc_frame *)(buf->data + ROCX_PFC_ETH_HLEN);
	pf->opcode = htons(ROCX_PFC_OPCODE);
	pf->class_enable = htons((uint16_t)(1u << prio));
	pf->quanta[prio] = htons(quanta);
	buf->len = ROCX_PFC_FRAME_LEN;
	buf->tc = 7;
	buf->refs = 1;
	q->st[prio].pause_tx++;
	/* Timed: clocked out next, after the frame on the wire. */
	if (sw->timed) {
		if (timed_ctl_xmit(sw, p, buf))
			return;
		q->st[prio].pause_tx--;
		pfc_retry(sw, q, prio);
		buf_release(&sw->pool, buf);
		return;
	}
	/* The guest's socket is full: not lost, sent again soon. */
	if (port_xmit(sw, p, &buf, 1) < 0) {
		q->st[prio].pause_tx--;
		pfc_retry(sw, q, prio);
	}
	buf_release(&sw->pool, buf);
}

void pfc_check_xoff(struct sw *sw, struct sw_port *p, unsigned int prio)
{
	const struct sw_prio_cfg *c = &p->qos.prio[prio];

	if (c->pfc && c->xoff && !p->qos.xoff[prio] &&
	    p->qos.in_bytes[prio] >= c->xoff)
		pfc_send(sw, p, prio, true);
}

void pfc_check_xon(struct sw *sw, struct sw_port *p, unsigned int prio)
{
	if (p->qos.xoff[prio] && p->qos.in_bytes[prio] <= p->qos.prio[prio].xon)
		pfc_send(sw, p, prio, false);
}

bool pfc_timer(struct sw *sw, struct sw_port *p)
{
	struct sw_qos_port *q = &p->qos;
	bool resumed = false;
	unsigned int k;

	for (k = 0; k < SW_NUM_PRIO; k++) {
		if (q->xoff[k] && q->xoff_refresh_ns[k] <= sw->now_ns)
			pfc_send(sw, p, k, true);
		else if (q->xon_retry_ns[k] && q->xon_retry_ns[k] <= sw->now_ns)
			pfc_send(sw, p, k, false);
		if (q->paused_until[k] && q->paused_until[k] <= sw->now_ns) {
			pause_end(sw, q, k);
			resumed = true;
		}
	}
	return resumed;
}
