/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocx-switch: a user-space Ethernet switch for QEMU guests.
 *
 * Each port is a unix datagram socket bound at <dir>/sw<N>.sock that talks
 * to the guest's QEMU dgram backend bound at <dir>/g<N>.sock.  A frame goes
 * through one pipeline:
 *
 *   port_rx -> pipeline_input (parse, learn, lookup) -> egress_enqueue
 *           -> egress_service (per-class queues, scheduler) -> port_xmit
 *
 * Everything runs in one thread; buffers come from a pool sized at start-up
 * so the data path never allocates.  Egress queues are served once per
 * event-loop wakeup (or when one fills), so the frames of one wakeup leave
 * in as few datagrams as the port allows: a batch of sendmmsg() for plain
 * ports, bundles for ports whose guest asked for them (fabric.c).
 */
#ifndef ROCX_SWITCH_H
#define ROCX_SWITCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

/* The fabric bundle format (fabric.c) is the device contract's. */
#include "rocx/rocx_fabric.h"

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

/* ------------------------------------------------------------------ */
/* Frame buffers */

struct sw_buf {
	struct sw_buf *next_free;
	uint32_t len;
	uint16_t refs;		/* egress queues still holding this buffer */
	uint8_t in_port;
	uint8_t tc;		/* traffic class 0..7, 7 served first */
	uint8_t data[SW_MAX_FRAME];
};

struct sw_pool {
	struct sw_buf *bufs;
	struct sw_buf *free_list;
	unsigned int nbufs;
	unsigned int nfree;
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
	uint64_t tx_tc[SW_NUM_TC];
	uint64_t rx_bundles;
	uint64_t tx_bundles;
	uint64_t rx_fab_err;	/* malformed or unexpected fabric frames */
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

struct sw_pcap {
	FILE *f;
	const char *path;
	bool dirty;		/* records written since the last flush */
	uint64_t records;
};

int pcap_open(struct sw_pcap *pc, const char *path);
void pcap_write(struct sw_pcap *pc, const struct sw_buf *buf,
		const struct timespec *ts);
void pcap_flush(struct sw_pcap *pc);
void pcap_close(struct sw_pcap *pc);

/* ------------------------------------------------------------------ */
/* The switch */

struct sw {
	unsigned int nports;
	struct sw_port port[SW_MAX_PORTS];
	struct sw_pool pool;
	struct sw_fdb *fdb;
	struct sw_pcap pcap;
	int epfd;
	/* Sampled once per event-loop wakeup: one clock read per batch. */
	uint64_t now_ms;
	struct timespec now_rt;
	/* Ports with frames queued during this wakeup, served at its end. */
	unsigned int npending;
	uint8_t pending[SW_MAX_PORTS];
};

/* Frame header fields the pipeline decides on. */
struct sw_frame_info {
	const uint8_t *dst;
	const uint8_t *src;
	uint16_t vid;		/* 0 when untagged */
	uint16_t ethertype;	/* after any VLAN tags */
	uint8_t tc;
};

void frame_parse(const uint8_t *data, uint32_t len,
		 struct sw_frame_info *fi);
void pipeline_input(struct sw *sw, struct sw_port *in, struct sw_buf *buf);

int port_open(struct sw *sw, struct sw_port *p, const char *dir,
	      unsigned int idx);
void port_close(struct sw_port *p);
void port_rx(struct sw *sw, struct sw_port *p);
void port_check_peer(struct sw *sw, struct sw_port *p);
bool port_try_connect(struct sw *sw, struct sw_port *p, bool force);
void port_set_pollout(struct sw *sw, struct sw_port *p, bool on);

/*
 * Send frames (in this order) to the port's guest: as one bundle if the
 * port takes bundles, else as a batch of datagrams.  Returns how many of
 * them are done with (sent, or dropped and counted), or -1 if the guest's
 * socket is full and none was sent.
 */
int port_xmit(struct sw *sw, struct sw_port *p, struct sw_buf **bufs,
	      unsigned int n);
/* Forget what the guest negotiated (it went away). */
void port_reset_fabric(struct sw_port *p);

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

int egress_init(struct sw_egress *eg, unsigned int limit);
void egress_fini(struct sw_egress *eg);
void egress_enqueue(struct sw *sw, struct sw_port *p, struct sw_buf *buf);
void egress_service(struct sw *sw, struct sw_port *p);
/* Serve the ports that queued frames during this wakeup. */
void egress_service_pending(struct sw *sw);

void stats_print(const struct sw *sw, FILE *out);

/* Epoll tags beyond port indexes. */
#define SW_TAG_SIGNAL		(SW_MAX_PORTS + 1)
#define SW_TAG_TIMER		(SW_MAX_PORTS + 2)

#endif /* ROCX_SWITCH_H */
