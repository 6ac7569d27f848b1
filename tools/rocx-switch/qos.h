/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocx-switch's lossless fabric: line rate, shared buffer, PFC, ETS and
 * RED/ECN (Documentation/rocx-switch.rst, "Lossless fabric").
 *
 *   classify (trust pcp|dscp|auto) -> admit into the shared buffer,
 *   charged to the ingress port and priority (reserved, shared, headroom;
 *   PFC XOFF to the ingress port above xoff, XON below xon) -> RED/ECN at
 *   the egress queue (mark ECT, drop non-ECT on lossy priorities) ->
 *   ETS (strict, then DRR by weight) over priorities that are not paused
 *   (PFC received) -> token bucket at the port's line rate -> port_xmit.
 *
 * Everything is off by default, which leaves a learning switch with
 * strict-priority class queues: no rate limit, no accounting limits, no
 * PFC, no marking.  The pure parts (token bucket, RED probability, pause time,
 * DRR pick) take their state and the time as arguments, so the unit test
 * (tests/switch/test_qos.c) drives them on a virtual clock.
 */
#ifndef ROCX_SWITCH_QOS_H
#define ROCX_SWITCH_QOS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SW_NUM_PRIO		8
/* DRR: an ETS class of weight w (1..100) earns w times this per round. */
#define SW_ETS_QUANTUM		256
/*
 * A PFC frame the port's socket refused (its guest is slow to read) goes
 * again this much later: a lost XOFF would let a pause's worth of frames
 * past the headroom, a lost XON would stop the priority for a pause.
 */
#define SW_PFC_RETRY_NS		100000
/* Pause times are worked out at this rate when a port has no line rate. */
#define SW_DEF_SPEED_MBPS	100000
/*
 * A port's default backlog (qos backlog=): about ten datagrams of full
 * frames, what Linux's default net.unix.max_dgram_qlen of 10 let a guest
 * leave unread when the fabric ran in the host's namespace.
 */
#define SW_DEF_BACKLOG		32768

enum sw_trust {
	SW_TRUST_AUTO,		/* PCP when tagged, else DSCP >> 3: frame_parse() */
	SW_TRUST_PCP,		/* PCP when tagged, else priority 0 */
	SW_TRUST_DSCP,		/* dscp2prio[DSCP]; not IP: priority 0 */
};

enum sw_tsa {
	SW_TSA_STRICT,
	SW_TSA_ETS,
};

/* Token bucket: bytes earned at rate, at most burst of them saved. */
struct sw_tbf {
	uint64_t rate_bps;	/* bits per second; 0: no limit */
	uint32_t burst;		/* bytes */
	double tokens;		/* bytes */
	uint64_t last_ns;
};

void tbf_set(struct sw_tbf *t, uint64_t rate_bps, uint32_t burst,
	     uint64_t now_ns);
/* Earn what now_ns brings; returns the bytes beyond the burst, not kept. */
double tbf_refill(struct sw_tbf *t, uint64_t now_ns);
/* Whether len bytes may leave now (after tbf_refill). */
bool tbf_may_send(const struct sw_tbf *t, uint32_t len);
void tbf_take(struct sw_tbf *t, uint32_t len);
/* ns from now until len bytes may leave; 0: now. */
uint64_t tbf_wait_ns(const struct sw_tbf *t, uint32_t len);

/* RED: marking probability for a queue of q bytes (red.c). */
double red_prob(uint64_t q, uint32_t kmin, uint32_t kmax, double pmax);

/* ns that quanta of 512 bit times last at speed_mbps (pfc.c). */
uint64_t pfc_pause_ns(uint16_t quanta, uint64_t speed_mbps);

/* DRR over the ETS classes (qos.c). */
struct sw_drr {
	int32_t deficit[SW_NUM_PRIO];
	uint8_t cur;		/* class whose turn it is */
	bool credited;		/* cur got its quantum this turn */
};

/*
 * The next class to send from: the highest strict class that can
 * (can_send[c]: has a frame and is not paused), else the ETS classes by
 * DRR (len[c]: bytes of the head frame), updating d; -1: none.
 */
int drr_pick(struct sw_drr *d, const uint8_t *tsa, const uint8_t *bw,
	     const bool *can_send, const uint32_t *len);

struct sw_prio_cfg {
	bool pfc;		/* lossless: PFC sent and honoured */
	uint8_t tsa;		/* enum sw_tsa */
	uint8_t bw;		/* ETS weight 1..100 */
	uint32_t xoff;		/* ingress bytes: send XOFF at or above */
	uint32_t xon;		/* ingress bytes: send XON at or below */
	uint32_t headroom;	/* ingress bytes above the shared pool */
	uint32_t reserved;	/* ingress bytes before the shared pool */
	uint32_t kmin, kmax;	/* egress bytes; kmax 0: no RED */
	double pmax;
};

struct sw_prio_stats {
	uint64_t enqueued;	/* frames into this egress queue */
	uint64_t dropped;	/* tail, RED and buffer drops */
	uint64_t marked;	/* CE set */
	uint64_t pause_tx;	/* PFC frames sent pausing (or resuming) it */
	uint64_t pause_rx;	/* PFC frames received naming it */
	uint64_t paused_ns;	/* egress time spent paused, ended pauses */
	uint64_t max_depth;	/* largest egress queue, bytes */
	uint64_t tx_bytes;
	uint64_t rx_bytes;
};

/* A thread of the port's guest and its run delay at the last sample. */
struct sw_lost_thread {
	pid_t tid;
	uint64_t run_ns;	/* its CPU time */
	uint64_t delay_ns;	/* its run delay, as the kernel reported it */
	uint64_t credit_ns;	/* waited, counted, not yet reported */
};

#define SW_LOST_THREADS	32

/* The attribution of a port's lost line time (lost.c). */
struct sw_lost {
	pid_t pid;		/* the guest's process; 0 not known */
	uint64_t sampled_ns;	/* the last sample; 0 none */
	bool peer_ok;		/* the last sample read the guest's */
	unsigned int nthr;
	struct sw_lost_thread thr[SW_LOST_THREADS];
	bool in_hold;		/* the guest holds frames, or did since */
	/* Time the hold lost, not yet split; the guest's waits in it. */
	double pending_ns;
	uint64_t excuse_ns;
};

struct sw_qos_port {
	/* Configuration. */
	struct sw_tbf tbf;
	double rate_mbps;	/* as given; 0: no limit */
	uint64_t speed_mbps;	/* for pause times: the rate, or this */
	uint8_t trust;		/* enum sw_trust */
	bool pause;		/* honour 802.3x pause */
	uint16_t quanta;	/* sent in an XOFF */
	/*
	 * The most the guest may leave unread of what the port sent it
	 * (port_unread()) before the next frame goes: a PFC frame waits
	 * behind that much at a guest busy running its engine.  0: only
	 * the kernel's limits.
	 */
	uint32_t backlog;
	uint8_t dscp2prio[64];
	struct sw_prio_cfg prio[SW_NUM_PRIO];
	/* Ingress accounting: what this port's frames hold, per priority. */
	uint64_t in_bytes[SW_NUM_PRIO];
	uint64_t in_shared[SW_NUM_PRIO];
	uint64_t in_head[SW_NUM_PRIO];
	bool xoff[SW_NUM_PRIO];		/* XOFF sent, XON not yet */
	uint64_t xoff_refresh_ns[SW_NUM_PRIO];
	/* An XON the port's socket refused: sent again then; 0 none. */
	uint64_t xon_retry_ns[SW_NUM_PRIO];
	/* Egress. */
	uint64_t q_bytes[SW_NUM_PRIO];
	uint64_t paused_until[SW_NUM_PRIO];	/* 0: not paused */
	uint64_t pause_start[SW_NUM_PRIO];
	struct sw_drr drr;
	bool plain;		/* no rate, ETS, PFC or pause: egress.c's drain */
	uint64_t wake_ns;	/* egress waits for tokens or a pause: 0 none */
	/*
	 * The last service left frames that could go (held by the guest's
	 * backlog or its socket, or short of tokens): tokens the bucket
	 * cannot keep until the next are line time the port lost with work
	 * waiting, counted in lost_line_ns.  A port that ran dry loses
	 * nothing by idling.
	 */
	bool waiting;
	/* What held the frames was the guest (backlog or its socket). */
	bool held;
	double lost_line_ns;
	/*
	 * lost_line_ns split by whose doing it was (lost.c): the host's,
	 * which did not run the switch or the port's guest, and the
	 * receiver's, a guest that ran and did not read.
	 */
	double lost_host_ns;
	double lost_recv_ns;
	struct sw_lost lost;
	struct sw_prio_stats st[SW_NUM_PRIO];
	uint64_t rx_frames_mac_ctl;	/* MAC control frames consumed */
};

#endif /* ROCX_SWITCH_QOS_H */
