/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocx-switch: a user-space Ethernet switch for QEMU guests.
 *
 * Each port is a unix datagram socket bound at <dir>/sw<N>.sock that talks
 * to the guest's QEMU dgram backend bound at <dir>/g<N>.sock.  A frame goes
 * through one pipeline:
 *
 *   port_rx -> pipeline_input ([port capture]) -> [ingress impairments]
 *           -> pipeline_forward (parse, learn, lookup, capture)
 *           -> egress_enqueue -> [egress impairments] -> egress_queue
 *           -> egress_service (per-class queues, scheduler)
 *           -> port_xmit ([port capture])
 *
 * The impairment stages (impair.c) are skipped by a port and direction
 * that has none configured; a control socket (ctl_server.c) sets them,
 * and shows them and the counters, while the switch runs.
 *
 * Everything runs in one thread; buffers come from a pool sized at start-up
 * so the data path never allocates.  Egress queues are served once per
 * event-loop wakeup (or when one fills), so the frames of one wakeup leave
 * in as few datagrams as the port allows: a batch of sendmmsg() for plain
 * ports, bundles for ports whose guest asked for them (fabric.c).
 */
#ifndef ROCX_SWITCH_H
#define ROCX_SWITCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

/* The fabric bundle format (fabric.c) is the device contract's. */
#include "rocx/rocx_fabric.h"
#include "rocx/rocx_ring.h"
#include "qos.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define SW_MAX_PORTS		64
/* Jumbo MTU 9000 plus Ethernet, VLAN and QinQ headers fits with room. */
#define SW_MAX_FRAME		9216
#define SW_ETH_HLEN		14
#define SW_NUM_TC		8
#define SW_RX_BATCH		32
#define SW_DEF_QUEUE_LIMIT	256
#define SW_DEF_AGE_SEC		300
/* How often a port whose guest is absent may retry connect(). */
#define SW_CONNECT_RETRY_MS	50
/* Frames one sendmmsg() may carry to a port without bundles. */
#define SW_TX_BATCH		32
/*
 * Timed: frames a port may hold received but not arrived yet, in egress
 * queue limits.  A NIC keeps about two latencies of its line rate there;
 * a peer that runs further ahead must not take the pool from the others.
 */
#define SW_ARRIVE_LIMITS	4

/* ------------------------------------------------------------------ */
/* Frame buffers */

struct sw_buf {
	struct sw_buf *next_free;
	/* Timed mode: a channel port's received frames, in arrival order. */
	struct sw_buf *q_next;
	uint64_t t_ns;		/* ... and the instant each arrives */
	uint32_t len;
	uint16_t refs;		/* egress queues still holding this buffer */
	uint8_t in_port;
	uint8_t tc;		/* traffic class 0..7, 7 served first */
	/* Shared-buffer charge (qos.c): enum sw_acct, bytes in acct_len. */
	uint8_t acct;
	uint32_t acct_len;
	uint8_t data[SW_MAX_FRAME];
};

struct sw_pool {
	struct sw_buf *bufs;
	struct sw_buf *free_list;
	unsigned int nbufs;
	unsigned int fresh;	/* bufs[fresh..nbufs) never handed out yet */
	unsigned int nfree;
	/* Called for a buffer with a shared-buffer charge as it comes back. */
	void (*on_put)(void *owner, struct sw_buf *buf);
	void *owner;
};

int pool_init(struct sw_pool *pool, unsigned int nbufs);
void pool_fini(struct sw_pool *pool);
struct sw_buf *pool_get(struct sw_pool *pool);
void pool_put(struct sw_pool *pool, struct sw_buf *buf);

/* Drops one reference; the last one returns the buffer to the pool. */
void buf_release(struct sw_pool *pool, struct sw_buf *buf);

/* ------------------------------------------------------------------ */
/* Egress: per-port queues, one per traffic class */

struct sw_ring {
	struct sw_buf **slot;
	unsigned int size;
	unsigned int head;	/* next to dequeue */
	unsigned int count;
};

struct sw_egress {
	struct sw_ring q[SW_NUM_TC];
	unsigned int queued;	/* frames over all classes */
	unsigned int limit;	/* tail-drop above this many frames */
	bool blocked;		/* peer full: wait for EPOLLOUT */
	bool pending;		/* listed in sw->pending for this wakeup */
};

/* ------------------------------------------------------------------ */
/*
 * Impairments (impair.c): netem's loss, duplicate, corrupt, delay, jitter
 * and reorder, set per port and direction
 */

enum sw_dir {
	SW_DIR_INGRESS,		/* frames the port's guest sent to the switch */
	SW_DIR_EGRESS,		/* frames the switch sends to the port's guest */
	SW_DIR_NUM,
};

/*
 * Frames held in delay lines, all lines together, by default: room for a
 * few RoCE windows in flight on each of a few ports.  The pool reserves
 * buffers for them, but touches only those a delay line ever holds.
 */
#define SW_DEF_IMPAIR_HOLD	8192
/* netem's default limit of one delay line. */
#define SW_DEF_IMPAIR_LIMIT	1000
#define SW_MAX_IMPAIR_LIMIT	65536
/* Longest delay (and jitter) accepted: 10 s. */
#define SW_MAX_DELAY_NS		10000000000ULL

/* xoshiro256**: one independent stream per port and direction. */
struct sw_rng {
	uint64_t s[4];
};

/*
 * What one port and direction does to its frames.  Probabilities are
 * 0..1.  loss is netem's "loss random"; with gemodel set, netem's "loss
 * gemodel p r 1-h 1-k" is used instead, its chain stepping once per frame
 * as netem's does, or once per ge_step_ns of time.
 */
struct sw_impair_cfg {
	double loss;
	bool gemodel;
	double ge_p;		/* good -> bad per step */
	double ge_r;		/* bad -> good per step */
	double ge_1h;		/* loss probability in the bad state */
	double ge_1k;		/* loss probability in the good state */
	uint64_t ge_step_ns;	/* the chain's step in time; 0: one per frame */
	double duplicate;
	double corrupt;
	double reorder;		/* frames sent at once, ahead of delayed ones */
	unsigned int gap;	/* netem's reorder gap: at most 1 in gap early */
	uint64_t delay_ns;
	uint64_t jitter_ns;	/* uniform in delay +/- jitter, jitter <= delay */
	unsigned int limit;	/* frames this delay line may hold */
};

/* Frames that went through the stage and what it did to them. */
struct sw_impair_stats {
	uint64_t frames;
	uint64_t lost;
	uint64_t duplicated;	/* extra copies made */
	uint64_t corrupted;
	uint64_t reordered;	/* sent ahead of the delay line */
	uint64_t delayed;
	uint64_t overflow;	/* dropped: delay line at its limit */
};

/* A frame in a delay line; the line is a min-heap on (t_ns, seq). */
struct sw_held {
	uint64_t t_ns;
	uint64_t seq;
	struct sw_buf *buf;
};

struct sw_impair {
	struct sw_impair_cfg cfg;
	bool active;		/* any impairment set: frames take this stage */
	struct sw_rng rng;
	bool ge_bad;		/* Gilbert-Elliott state */
	uint64_t ge_t_ns;	/* with ge_step_ns: when the chain last stepped */
	unsigned int since_reorder;	/* frames delayed since the last early one */
	struct sw_held *heap;
	unsigned int nheld;
	unsigned int heap_size;
	uint64_t seq;
	struct sw_impair_stats st;
};

/* ------------------------------------------------------------------ */
/* Ports */

enum port_state {
	PORT_DOWN,		/* guest socket absent or not yet seen */
	PORT_UP,		/* connected to the guest's socket */
};

/*
 * rx_frames/rx_bytes count every frame received, dropped ones too, each
 * frame of a bundle on its own; rx_bundles and tx_bundles count bundle
 * datagrams.
 */
struct sw_port_stats {
	uint64_t rx_frames;
	uint64_t rx_bytes;
	uint64_t tx_frames;
	uint64_t tx_bytes;
	uint64_t rx_runt;	/* shorter than an Ethernet header */
	uint64_t rx_oversize;	/* longer than SW_MAX_FRAME */
	uint64_t rx_filtered;	/* destination sits behind the ingress port */
	uint64_t rx_err;
	uint64_t tx_nopeer;	/* guest socket absent or gone */
	uint64_t tx_qfull;	/* egress queue at its limit */
	uint64_t tx_err;
	uint64_t tx_blocked;	/* times the guest's socket was full */
	uint64_t tx_held;	/* times the guest had a backlog's worth unread */
	uint64_t tx_tc[SW_NUM_TC];
	uint64_t rx_bundles;
	uint64_t tx_bundles;
	uint64_t rx_fab_err;	/* malformed or unexpected fabric frames */
	uint64_t ch_refused;	/* channel connections and HELLOs refused */
	uint64_t rx_dgram_timed;	/* datagrams a timed switch dropped */
	uint64_t direct_go;	/* times its NIC got the peer's ring 1 */
	uint64_t direct_end;	/* ... and gave it back */
};

/*
 * The fabric channel of a port (channel.c): DIR/chK.sock, one
 * SOCK_SEQPACKET connection at a time (Documentation/rocx-device.rst,
 * "Fabric channel").
 */
enum ch_state {
	CH_NONE,		/* no connection */
	CH_HELLO,		/* connected, HELLO not received yet */
	CH_UP,			/* HELLO answered: the port's link */
};

/* A link's shared-memory rings (chan_ring.c). */
struct sw_chan_ring {
	uint8_t *map;
	size_t map_bytes;
	struct rocx_ring rx;	/* ring 0: the NIC's records */
	struct rocx_ring tx;	/* ring 1: the switch's */
	int wake_fd;		/* the switch's: the NIC writes it; in epoll */
	int kick_fd;		/* the NIC's */
	int mem_fd;		/* the memory, kept to pass on in DIRECT */
	/*
	 * Ring 1 is lent to the NIC of port lent_to (direct.c): the switch
	 * writes nothing there until that NIC gives it back.
	 */
	bool lent;
	unsigned int lent_to;
};

/* The switch's side of a NIC's direct link to its peer (direct.c). */
enum sw_direct_state {
	DIR_NONE,		/* records go through the switch */
	DIR_OFFERED,		/* DIRECT sent, DIRECT_ACK awaited */
	DIR_DRAIN,		/* acked: the peer's queue empties first */
	DIR_LENT,		/* DIRECT_GO sent: it writes the peer's ring 1 */
	DIR_ENDING,		/* DIRECT_END sent, DIRECT_END_ACK awaited */
};

struct sw_chan {
	int lfd;		/* listening */
	int fd;			/* the connection, or -1 */
	enum ch_state state;
	/* EPOLLOUT armed on fd; with rings: egress waits for room in one */
	bool pollout;
	/* Descriptors HELLO passed, until its rings are taken or refused. */
	int offer[ROCX_RING_NFDS];
	unsigned int noffer;
	/* The rings, once HELLO_ACK took them; pending: checked, not yet. */
	struct sw_chan_ring *ring, *ring_pending;
	/* Timed: the port joined once and left; it promises forever. */
	bool left;
	/* Direct rings (direct.c): this NIC's state toward port dpeer. */
	enum sw_direct_state dstate;
	unsigned int dpeer;
	bool dend_wanted;	/* offered, and ending as soon as acked */
	bool ddeclined;		/* refused: not offered again in this pair */
	bool warned_dgram;	/* a timed switch said once that it drops them */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint32_t max;		/* the peer's max_len */
	/* Timed mode. */
	uint64_t latency_ns;	/* L of the link */
	uint64_t epoch_ns;	/* when its carrier came up */
	uint64_t hello_ns;	/* the NIC's clock when it joined */
	uint64_t prom_rx;	/* last promise received */
	uint64_t prom_tx;	/* last promise sent */
	/* The idle bound of its last record, if a SYNC with one, else 0. */
	uint64_t idle_rx;
	/* A bound a promise relied on and no frame sent since lapsed, or 0. */
	uint64_t idle_floor;
	uint64_t tx_arrive;	/* when the last frame sent arrives (0: none) */
	uint64_t wall_rx_ms;	/* wall time of its last record */
	/* Frames received, not arrived yet (t_ns order: a link's stamps grow). */
	struct sw_buf *arr_head, *arr_tail;
	unsigned int narr;
	/* The frame being clocked out, its last bit out at dep_ns. */
	struct sw_buf *tx_buf;
	uint64_t dep_ns;	/* UINT64_MAX: the port is idle */
	/* PFC frames to go next, ahead of the class queues. */
	struct sw_buf *ctlq[SW_NUM_PRIO];
	unsigned int nctl;
	/* The record being built: frames departed, not sent yet. */
	uint8_t *ob;
	uint32_t ob_len;
	uint16_t ob_count;
	uint64_t ob_time;
	uint64_t ob_last;
};

struct sw_port {
	unsigned int idx;
	int fd;
	enum port_state state;
	bool pollout;		/* EPOLLOUT currently armed */
	char local_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct sockaddr_un peer;
	socklen_t peer_len;
	/*
	 * Identity of the socket we connected to, to notice a restarted guest:
	 * the inode of a removed socket file is soon reused, its ctime not.
	 */
	dev_t peer_dev;
	ino_t peer_ino;
	struct timespec peer_ctime;
	uint64_t next_connect_ms;
	struct sw_egress eg;
	/* The guest sent HELLO: it takes bundles up to bundle_max bytes. */
	bool bundle;
	uint32_t bundle_max;
	struct sw_port_stats st;
	struct sw_impair imp[SW_DIR_NUM];
	struct sw_qos_port qos;
	/* Timed: RED's stream of each priority (red.c). */
	uint64_t red_rng[SW_NUM_PRIO];
	struct sw_chan ch;
	/* The port's capture (capture.c), or NULL. */
	struct sw_capture *cap;
};

const char *port_state_name(enum port_state state);

/* ------------------------------------------------------------------ */
/* Forwarding database (MAC learning) */

#define SW_FDB_BUCKETS		4096
#define SW_FDB_WAYS		4

struct sw_fdb_entry {
	uint64_t key;		/* MAC in bits 47:0, VLAN id in bits 59:48 */
	uint64_t seen_ms;
	uint8_t port;
	bool used;
};

struct sw_fdb {
	struct sw_fdb_entry e[SW_FDB_BUCKETS][SW_FDB_WAYS];
	uint64_t age_ms;
	uint64_t learned;
	uint64_t moved;
	uint64_t evicted;
};

void fdb_init(struct sw_fdb *fdb, uint64_t age_ms);
void fdb_learn(struct sw_fdb *fdb, const uint8_t *mac, uint16_t vid,
	       unsigned int port, uint64_t now_ms);
int fdb_lookup(struct sw_fdb *fdb, const uint8_t *mac, uint16_t vid,
	       uint64_t now_ms);
unsigned int fdb_count(const struct sw_fdb *fdb, uint64_t now_ms);

/* ------------------------------------------------------------------ */
/* pcap writer */

/*
 * One pcap file.  A write or flush that fails closes the file: f is then
 * NULL, err says why, and every later frame is skipped, so a full disk
 * never stalls forwarding.
 */
struct sw_pcap {
	FILE *f;
	const char *path;
	char *iobuf;		/* f's buffer when not the --pcap one */
	bool dirty;		/* records written since the last flush */
	uint64_t records;	/* frames handed to f */
	uint64_t bytes;		/* ... their bytes, without pcap headers */
	uint64_t errors;	/* writes, flushes and closes that failed */
	int err;		/* errno of the last of them */
	dev_t dev;		/* the file, to refuse a second capture into it */
	ino_t ino;
};

int pcap_open(struct sw_pcap *pc, const char *path);
/* A regular file only, with a buffer of its own (a port's capture). */
int pcap_open_regular(struct sw_pcap *pc, const char *path);
void pcap_write(struct sw_pcap *pc, const struct sw_buf *buf,
		const struct timespec *ts);
void pcap_flush(struct sw_pcap *pc);
/* Flush and close; -1 if any write failed since it was opened. */
int pcap_close(struct sw_pcap *pc);

/*
 * A capture of one port (capture.c): the frames the switch receives
 * from the port, as they enter the pipeline, and those it sends to it,
 * as they leave.  Slots are few and fixed, so starting one never
 * allocates on the data path.
 */
#define SW_MAX_CAPTURES		8

struct sw_capture {
	bool used;
	unsigned int port;
	char path[PATH_MAX];
	struct sw_pcap pc;
};

/* ------------------------------------------------------------------ */
/* The switch */

struct sw_ctl;

struct sw {
	unsigned int nports;
	struct sw_port port[SW_MAX_PORTS];
	struct sw_pool pool;
	struct sw_fdb *fdb;
	struct sw_pcap pcap;
	/* Captures of one port each, started and stopped by the capture verb. */
	struct sw_capture cap[SW_MAX_CAPTURES];
	int epfd;
	/* Sampled once per event-loop wakeup: one clock read per batch. */
	uint64_t now_ms;
	uint64_t now_ns;	/* CLOCK_MONOTONIC, for delay lines */
	struct timespec now_rt;
	/* Ports with frames queued during this wakeup, served at its end. */
	unsigned int npending;
	uint8_t pending[SW_MAX_PORTS];
	/* Impairments: the seed every random stream derives from. */
	uint64_t seed;
	unsigned int imp_held;	/* frames in all delay lines */
	unsigned int imp_hold_max;	/* ... at most; the pool has room */
	int imp_tfd;		/* fires when the next held frame is due */
	uint64_t imp_armed_ns;	/* 0: disarmed */
	struct sw_ctl *ctl;
	/*
	 * The shared buffer (qos.c): buf_size 0 is no limit.  shared_size
	 * is what the reserved and headroom parts leave of it.
	 */
	uint64_t buf_size;
	uint64_t shared_size;
	uint64_t shared_used;
	uint64_t qos_rng;	/* RED's random stream (red.c) */
	int qos_tfd;		/* egress wake-ups, PFC refresh, series */
	int watch_fd;		/* inotify on the socket directory */
	uint64_t qos_armed_ns;	/* 0: disarmed */
	/* Time series (series.c): JSON lines every series_ns. */
	FILE *series;
	char *series_path;
	uint64_t series_ns;
	uint64_t series_next_ns;
	uint64_t series_t0_ns;
	struct sw_series_prev *series_prev;
	/*
	 * Timed mode (timed.c): now_ns, now_ms and now_rt are the virtual
	 * clock, which only the event loop moves.
	 */
	bool timed;
	bool direct;		/* --direct: lend rings between two NICs */
	uint64_t epoch_ns;	/* --epoch: what an unjoined port promises */
	uint64_t def_latency_ns;	/* --latency */
	double def_rate_mbps;	/* --rate: for ports given none */
	uint64_t stall_ms;	/* wall time a wait may receive nothing */
	uint64_t wall_progress_ms;	/* last join, or last wait not a stall */
	uint64_t wall_keepalive_ms;	/* last repeated promise */
	uint64_t events;	/* events executed */
	uint64_t waits;		/* times it waited for records */
	/* frames held to a promise a control command made them break */
	uint64_t late;
	uint64_t wall_start_ms;	/* when the event loop started */
	bool started;		/* the event loop runs: latencies are fixed */
	FILE *evlog;		/* --event-log: a line per event */
};

/* Frame header fields the pipeline decides on. */
struct sw_frame_info {
	const uint8_t *dst;
	const uint8_t *src;
	uint16_t vid;		/* 0 when untagged */
	uint16_t ethertype;	/* after any VLAN tags */
	uint8_t tc;
	/* For the trust modes (qos.c): the outer tag's PCP, the DSCP. */
	bool tagged;
	uint8_t pcp;
	int dscp;		/* -1: not IP */
};

void frame_parse(const uint8_t *data, uint32_t len,
		 struct sw_frame_info *fi);
void pipeline_input(struct sw *sw, struct sw_port *in, struct sw_buf *buf);
/* The pipeline after the ingress impairments: parse, learn, forward. */
void pipeline_forward(struct sw *sw, struct sw_port *in, struct sw_buf *buf);

int port_open(struct sw *sw, struct sw_port *p, const char *dir,
	      unsigned int idx);
void port_close(struct sw_port *p);
void port_rx(struct sw *sw, struct sw_port *p);
void port_check_peer(struct sw *sw, struct sw_port *p);
int port_watch_open(struct sw *sw, const char *dir);
void port_watch_event(struct sw *sw);
bool port_try_connect(struct sw *sw, struct sw_port *p, bool force);
void port_set_pollout(struct sw *sw, struct sw_port *p, bool on);

/*
 * Send frames (in this order) to the port's guest: as one bundle if the
 * port takes bundles, else as a batch of datagrams.  Returns how many of
 * them are done with (sent, or dropped and counted), or -1 if the guest's
 * socket is full and none was sent.
 */
uint64_t port_unread(const struct sw_port *p);
int port_xmit(struct sw *sw, struct sw_port *p, struct sw_buf **bufs,
	      unsigned int n);
/* Forget what the guest negotiated (it went away). */
void port_reset_fabric(struct sw_port *p);
/* Count frames as sent on the port (and capture them, if it is). */
void port_count_tx(struct sw *sw, struct sw_port *p, struct sw_buf **bufs,
		   unsigned int n);

/* Fabric frames (fabric.c). */
bool fabric_is_ctrl(const uint8_t *data, uint32_t len);
/* A fabric frame from port p: HELLO answered, BUNDLE split into frames. */
void fabric_input(struct sw *sw, struct sw_port *p, const uint8_t *data,
		  uint32_t len);
/* One received frame into the pipeline (copied into a pool buffer). */
void port_input(struct sw *sw, struct sw_port *p, const uint8_t *data,
		uint32_t len);
/*
 * Pack the first frames of bufs into a bundle of at most max bytes at out;
 * returns how many went in (*len: the bundle's bytes).
 */
unsigned int fabric_pack(uint8_t *out, uint32_t max, struct sw_buf **bufs,
			 unsigned int n, uint32_t *len);
/* Ethernet and fabric headers of one of the switch's own records. */
void fabric_header(uint8_t *out, uint8_t type, uint8_t flags, uint16_t count,
		   uint32_t max_len);

/* The fabric channel (channel.c). */
int chan_open(struct sw *sw, struct sw_port *p, const char *dir);
void chan_close(struct sw *sw, struct sw_port *p);
void chan_accept(struct sw *sw, struct sw_port *p);
/* Records the peer sent (events: epoll's); EOF, BYE or an error ends it. */
void chan_rx(struct sw *sw, struct sw_port *p, uint32_t events);
/* Untimed: frames as one BUNDLE record; as port_xmit(). */
int chan_xmit(struct sw *sw, struct sw_port *p, struct sw_buf **bufs,
	      unsigned int n);
void chan_set_pollout(struct sw *sw, struct sw_port *p, bool on);
/* Timed: a frame departed at stamp, into the record being built. */
void chan_out_frame(struct sw *sw, struct sw_port *p, struct sw_buf *buf,
		    uint64_t stamp);
void chan_out_flush(struct sw *sw, struct sw_port *p);
/* Timed: promise t (a SYNC) on the port's link. */
void chan_sync(struct sw *sw, struct sw_port *p, uint64_t t);
/* BYE on every link, at exit. */
void chan_bye_all(struct sw *sw);
const char *chan_state_name(const struct sw_port *p);
/* For chan_ring.c: one record (0, or -1: the link ended), an error, the end. */
int chan_record(struct sw *sw, struct sw_port *p, const uint8_t *rec,
		uint32_t len);
void chan_error(struct sw *sw, struct sw_port *p, const char *why);
void chan_drop(struct sw *sw, struct sw_port *p);

/* The channel's shared-memory rings (chan_ring.c). */
void chan_ring_forget(struct sw_chan *c);
/* Check and map what HELLO offered: NULL, or why the port is refused. */
const char *chan_ring_offer(struct sw_port *p);
int chan_ring_start(struct sw *sw, struct sw_port *p);
void chan_ring_free(struct sw *sw, struct sw_chan_ring *r);
void chan_ring_kick(int fd);
int chan_ring_send(struct sw *sw, struct sw_port *p, const uint8_t *rec,
		   uint32_t len);
void chan_ring_pollout(struct sw_port *p, bool on);
bool chan_ring_wants_room(const struct sw_port *p);
/* Direct rings between two NICs (direct.c). */
void direct_update(struct sw *sw);
int direct_record(struct sw *sw, struct sw_port *p, uint8_t type,
		  uint8_t flags);
void direct_port_gone(struct sw *sw, struct sw_port *p);
void direct_relay_room(struct sw *sw, struct sw_port *p);
const char *direct_state_name(const struct sw_port *p);
int chan_send_sock(struct sw *sw, struct sw_port *p, const uint8_t *rec,
		   uint32_t len, const int *fds, unsigned int nfds);
void chan_ring_rx(struct sw *sw, struct sw_port *p, uint32_t events,
		  uint8_t *rec, uint32_t cap);

/* Timed mode (timed.c). */
uint64_t timed_ser_ns(const struct sw_port *p, uint32_t len);
/* The least over the ports of (promise received + L). */
uint64_t timed_horizon(struct sw *sw);
/* Every event before the horizon, in (instant, kind, port, sequence) order. */
void timed_run_events(struct sw *sw);
/* Records out, then a SYNC where the switch can promise more. */
void timed_promise(struct sw *sw, uint64_t wall_ms);
/*
 * A joined link has held the horizon with nothing received too long:
 * true, and *port is that link's.
 */
bool timed_stalled(struct sw *sw, uint64_t wall_ms, unsigned int *port);
void timed_report(struct sw *sw, FILE *out, const char *why);
/* Virtual time reached, wall time taken, and their ratios. */
void timed_summary(const struct sw *sw, FILE *out);
void timed_service(struct sw *sw, struct sw_port *p);
/* A PFC frame for port p; false: it could not be queued (retry). */
bool timed_ctl_xmit(struct sw *sw, struct sw_port *p, struct sw_buf *buf);
/* The port's link is up and past its epoch: frames may go there. */
bool timed_link_up(const struct sw *sw, const struct sw_port *p);
/* Give a port without a line rate the default one. */
void timed_default_rate(struct sw *sw, struct sw_port *p);
void timed_set_now(struct sw *sw, uint64_t t);
uint64_t wall_ms(void);

int egress_init(struct sw_egress *eg, unsigned int limit);
void egress_fini(struct sw_egress *eg);
void egress_enqueue(struct sw *sw, struct sw_port *p, struct sw_buf *buf);
/* Into the port's class queue, past the egress impairments. */
void egress_queue(struct sw *sw, struct sw_port *p, struct sw_buf *buf);
void egress_service(struct sw *sw, struct sw_port *p);
/* Serve the ports that queued frames during this wakeup. */
void egress_service_pending(struct sw *sw);

void stats_print(const struct sw *sw, FILE *out);
void stats_print_port(const struct sw *sw, unsigned int idx, FILE *out);

/* ------------------------------------------------------------------ */
/* Impairments (impair.c) */

const char *impair_dir_name(enum sw_dir dir);
int impair_init(struct sw *sw, uint64_t seed, unsigned int hold_max);
void impair_fini(struct sw *sw);
/* Restart every port's and direction's random stream from @seed. */
void impair_seed(struct sw *sw, uint64_t seed);
/* A frame through port p's ingress (egress) stage, then on. */
void impair_ingress(struct sw *sw, struct sw_port *p, struct sw_buf *buf);
void impair_egress(struct sw *sw, struct sw_port *p, struct sw_buf *buf);
/* Frames whose delay is over go on; then the timer is set for the next. */
void impair_release(struct sw *sw);
void impair_arm(struct sw *sw);
/* The delay-line timer fired (SW_TAG_IMPAIR). */
void impair_timer(struct sw *sw);
/* When the next held frame is due; UINT64_MAX: none. */
uint64_t impair_next(const struct sw *sw);
/* The impairment counters of one port for its stats line. */
void impair_stats_print(const struct sw_port *p, FILE *out);

/* ------------------------------------------------------------------ */
/* Control requests: their words and values (ctl_args.c) */

#define CTL_MAX_WORDS		32
#define CTL_ERR_LEN		256

/*
 * One request: a verb and words, each KEY=VALUE or a bare flag.  A
 * handler takes the words it knows (ctl_take, ctl_flag); any word left
 * over is an error.
 */
struct ctl_args {
	const char *verb;
	unsigned int n;
	char *key[CTL_MAX_WORDS];
	char *val[CTL_MAX_WORDS];	/* NULL for a bare word */
	bool used[CTL_MAX_WORDS];
	char err[CTL_ERR_LEN];
};

/* Handlers print their answer on out and return 0, or set a->err. */
typedef int (*ctl_handler)(struct sw *sw, struct ctl_args *a, FILE *out);

/* Sets the request's error (printf-style) and evaluates to -1. */
#define ctl_err(a, ...) \
	(snprintf((a)->err, sizeof((a)->err), __VA_ARGS__), -1)
int ctl_split(char *line, struct ctl_args *a);
const char *ctl_take(struct ctl_args *a, const char *key);
bool ctl_flag(struct ctl_args *a, const char *word);
/* The first bare word not taken yet, or NULL. */
const char *ctl_take_bare(struct ctl_args *a);
int ctl_check_unused(struct ctl_args *a);
/* port=N[,N]...|all into a mask of ports; absent: all if !required. */
int ctl_ports(struct sw *sw, struct ctl_args *a, bool required,
	      uint64_t *mask);
/* dir=ingress|egress|both into a mask of (1 << enum sw_dir). */
int ctl_dirs(struct ctl_args *a, bool required, unsigned int *mask);
/* Values: "1%" or "0.01"; "2ms", "500us", "1s", "100ns"; decimal. */
int ctl_parse_prob(const char *s, double *p);
int ctl_parse_time(const char *s, uint64_t *ns);
/* A time as ctl_parse_time(), or digits alone as ns. */
int ctl_parse_ns(const char *s, uint64_t *ns);
int ctl_parse_uint(const char *s, unsigned long long max,
		   unsigned long long *v);

/* ------------------------------------------------------------------ */
/* Control socket (ctl_server.c) */

/* Run one request line as the socket would; the answer goes to out. */
int ctl_exec(struct sw *sw, char *line, FILE *out, char *err, size_t len);

/* The impair command (impair.c), reached through ctl_exec. */
int impair_cmd(struct sw *sw, struct ctl_args *a, FILE *out);
int impair_show(struct sw *sw, struct ctl_args *a, FILE *out);

int ctl_open(struct sw *sw, const char *path);
void ctl_close(struct sw *sw);
void ctl_event(struct sw *sw, uint32_t tag, uint32_t events);
/* The client (ctl_client.c): rocx-switch ctl SOCKET [CMD...] */
int ctl_client_main(int argc, char **argv);

/* ------------------------------------------------------------------ */
/* Lossless fabric (qos.c, pfc.c, red.c, series.c; see qos.h) */

struct sw_series_prev;

void qos_init_port(struct sw *sw, struct sw_port *p);
int qos_init(struct sw *sw);
void qos_fini(struct sw *sw);
/* The frame's priority under the ingress port's trust mode. */
uint8_t qos_classify(const struct sw_port *in, const struct sw_frame_info *fi);
/* Charge a frame to its ingress port and priority; false: dropped. */
bool qos_admit(struct sw *sw, struct sw_port *in, struct sw_buf *buf);
/* Into an egress class queue: RED, counters; false: drop it. */
bool qos_enqueue(struct sw *sw, struct sw_port *p, struct sw_buf *buf);
void qos_dequeued(struct sw_port *p, const struct sw_buf *buf);
/* Egress for a port with a rate, ETS or pauses (egress.c otherwise). */
void qos_service(struct sw *sw, struct sw_port *p);
/* Set the QoS timer for the earliest thing due; its handler. */
void qos_arm(struct sw *sw);
void qos_timer(struct sw *sw);
/* When the QoS timer is due next (0: nothing); what it does then. */
uint64_t qos_next(const struct sw *sw);
void qos_timer_run(struct sw *sw);
int qos_cmd(struct sw *sw, struct ctl_args *a, FILE *out);
int qos_show(struct sw *sw, struct ctl_args *a, FILE *out);
int qos_buffer_cmd(struct sw *sw, struct ctl_args *a, FILE *out);
void qos_stats_print(const struct sw_port *p, FILE *out);
/*
 * Lost line time by whose doing (lost.c): lost_add() counts ns lost, held
 * by the guest or not; lost_held() when the guest starts holding frames;
 * lost_flush() splits what is pending now, lost_end() too at the hold's
 * end; lost_set_pid() names the
 * guest's process, learnt from what it sends.
 */
void lost_add(struct sw *sw, struct sw_port *p, bool held, double ns);
void lost_held(struct sw *sw, struct sw_port *p);
void lost_sample(struct sw *sw, struct sw_port *p);
void lost_flush(struct sw *sw, struct sw_port *p);
/* The port sent or ran dry: its guest holds nothing. */
void lost_end(struct sw *sw, struct sw_port *p);
void lost_set_pid(struct sw_port *p, pid_t pid);

bool pfc_is_mac_ctl(const struct sw_frame_info *fi);
/* A MAC control frame from port in: consumed (true) or forwarded. */
bool pfc_input(struct sw *sw, struct sw_port *in, struct sw_buf *buf);
/* Send an XOFF (quanta of the port) or an XON (0) for prio to port p. */
void pfc_send(struct sw *sw, struct sw_port *p, unsigned int prio, bool xoff);
/* After a release: XON where the occupancy fell to xon. */
void pfc_check_xon(struct sw *sw, struct sw_port *p, unsigned int prio);
void pfc_check_xoff(struct sw *sw, struct sw_port *p, unsigned int prio);
/* Some priority of the port is lossless (PFC on). */
bool pfc_port_lossless(const struct sw_qos_port *q);
/* XOFFs due again, XONs to retry, pauses over; true if a pause ended. */
bool pfc_timer(struct sw *sw, struct sw_port *p);
bool pfc_paused(struct sw *sw, struct sw_port *p, unsigned int prio);

/* RED/ECN at enqueue: false drops the frame (red.c). */
bool red_enqueue(struct sw *sw, struct sw_port *p, struct sw_buf *buf);

/* A port's captures (capture.c). */
int capture_cmd(struct sw *sw, struct ctl_args *a, FILE *out);
/* A frame port p received, or sent; only for a port with a capture. */
void capture_frame(struct sw *sw, struct sw_port *p, const struct sw_buf *buf);
/* Before the event loop sleeps: what this wakeup captured goes out. */
void capture_flush(struct sw *sw);
void capture_close_all(struct sw *sw);

int series_cmd(struct sw *sw, struct ctl_args *a, FILE *out);
int series_open(struct sw *sw, const char *path, uint64_t interval_ns);
void series_close(struct sw *sw);
void series_tick(struct sw *sw);

/* Epoll tags beyond port indexes. */
#define SW_TAG_SIGNAL		(SW_MAX_PORTS + 1)
#define SW_TAG_TIMER		(SW_MAX_PORTS + 2)
#define SW_TAG_IMPAIR		(SW_MAX_PORTS + 3)
#define SW_TAG_CTL		(SW_MAX_PORTS + 4)
#define SW_CTL_MAX_CLIENTS	8
/* Client k of the control socket. */
#define SW_TAG_CTL_CLIENT(k)	(SW_MAX_PORTS + 5 + (k))
#define SW_TAG_QOS		(SW_MAX_PORTS + 5 + SW_CTL_MAX_CLIENTS)
#define SW_TAG_WATCH		(SW_MAX_PORTS + 6 + SW_CTL_MAX_CLIENTS)
#define SW_MAX_EVENTS		(SW_MAX_PORTS + 7 + SW_CTL_MAX_CLIENTS)
/* Port k's channel: its listening socket and its connection. */
#define SW_TAG_CH_LISTEN(k)	(0x100 + (k))
#define SW_TAG_CH(k)		(0x200 + (k))
#define SW_TAG_IS_CH_LISTEN(t)	((uint32_t)(t) - 0x100 < SW_MAX_PORTS)
#define SW_TAG_IS_CH(t)		((uint32_t)(t) - 0x200 < SW_MAX_PORTS)

#endif /* ROCX_SWITCH_H */
