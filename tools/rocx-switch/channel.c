// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric channel: a SOCK_SEQPACKET connection per port, which a rocx
 * NIC opens to DIR/chK.sock instead of using a dgram netdev
 * (Documentation/rocx-device.rst, "Fabric channel").  Every record is one
 * fabric frame; every Ethernet frame travels in a BUNDLE, a bundle of one
 * included.  On an untimed switch the channel is one more way into the
 * same pipeline as the dgram socket.  On a timed switch (--timed) every
 * record carries virtual time: received frames wait in the port's arrival
 * queue for the instant they arrive (timed.c), departed frames are
 * gathered into one record per port until the switch next waits, and
 * SYNC records carry promises.
 *
 * A record the switch cannot take is a bug of its peer, not loss to
 * survive: it counts an error and ends the link, which a timed switch then
 * counts as a promise of forever.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "switch.h"

static const char * const ch_state_names[] = {
	[CH_NONE] = "none",
	[CH_HELLO] = "hello",
	[CH_UP] = "up",
};

const char *chan_state_name(const struct sw_port *p)
{
	if (p->ch.left && p->ch.state == CH_NONE)
		return "left";
	return p->ch.state < ARRAY_SIZE(ch_state_names) ?
	       ch_state_names[p->ch.state] : "?";
}

static void put_be64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get_be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

int chan_open(struct sw *sw, struct sw_port *p, const char *dir)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u32 = SW_TAG_CH_LISTEN(p->idx) };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sw_chan *c = &p->ch;
	int n;

	c->fd = -1;
	c->dep_ns = UINT64_MAX;
	c->latency_ns = sw->def_latency_ns;
	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/ch%u.sock", dir,
		     p->idx);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path)) {
		fprintf(stderr, "rocx-switch: socket path in %s too long\n",
			dir);
		return -1;
	}
	memcpy(c->path, sa.sun_path, sizeof(c->path));
	c->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (c->lfd < 0)
		goto err;
	if (unlink(sa.sun_path) && errno != ENOENT)
		goto err;
	if (bind(c->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(c->lfd, 4) ||
	    epoll_ctl(sw->epfd, EPOLL_CTL_ADD, c->lfd, &ev))
		goto err;
	return 0;
err:
	fprintf(stderr, "rocx-switch: port %u (%s): %s\n", p->idx, sa.sun_path,
		strerror(errno));
	if (c->lfd >= 0)
		close(c->lfd);
	c->lfd = -1;
	return -1;
}

/* The link ends: BYE, end of file, an error, or the switch stopping. */
void chan_drop(struct sw *sw, struct sw_port *p)
{
	struct sw_chan *c = &p->ch;
	unsigned int i;

	if (c->fd < 0)
		return;
	/* Before the rings go: a peer may hold one of ours, or we of its. */
	direct_port_gone(sw, p);
	chan_ring_forget(c);
	chan_ring_free(sw, c->ring_pending);
	chan_ring_free(sw, c->ring);
	c->ring = NULL;
	c->ring_pending = NULL;
	epoll_ctl(sw->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->pollout = false;
	/*
	 * What waited for room on the channel goes the dgram way, or is
	 * dropped there as sent to nobody.
	 */
	p->eg.blocked = false;
	/* A timed link that was up promises forever from now on. */
	if (c->state == CH_UP && sw->timed)
		c->left = true;
	c->state = CH_NONE;
	c->ob_count = 0;
	free(c->ob);
	c->ob = NULL;
	for (i = 0; i < c->nctl; i++)
		buf_release(&sw->pool, c->ctlq[i]);
	c->nctl = 0;
	/* Frames already received arrive all the same: they were promised. */
}

void chan_close(struct sw *sw, struct sw_port *p)
{
	struct sw_chan *c = &p->ch;

	chan_drop(sw, p);
	while (c->arr_head) {
		struct sw_buf *b = c->arr_head;

		c->arr_head = b->q_next;
		pool_put(&sw->pool, b);
	}
	c->arr_tail = NULL;
	c->narr = 0;
	if (c->tx_buf)
		buf_release(&sw->pool, c->tx_buf);
	c->tx_buf = NULL;
	if (c->lfd >= 0) {
		close(c->lfd);
		unlink(c->path);
	}
	c->lfd = -1;
}

void chan_accept(struct sw *sw, struct sw_port *p)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u32 = SW_TAG_CH(p->idx) };
	struct sw_chan *c = &p->ch;
	int bytes = 4 << 20;
	int fd;

	while ((fd = accept4(c->lfd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (c->fd >= 0) {
			/* One link per port: a second NIC on it is a mistake. */
			fprintf(stderr,
				"rocx-switch: port %u: refused a second channel connection\n",
				p->idx);
			p->st.ch_refused++;
			close(fd);
			continue;
		}
		/*
		 * A connected seqpacket socket queues what its send buffer
		 * holds: records a NIC leaves unread until its next wait.
		 * As root the FORCE variant passes net.core.wmem_max.
		 */
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes,
			       sizeof(bytes)))
			setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes,
				   sizeof(bytes));
		if (epoll_ctl(sw->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->state = CH_HELLO;
	}
}

void chan_set_pollout(struct sw *sw, struct sw_port *p, bool on)
{
	struct epoll_event ev = {
		.events = EPOLLIN | (on ? EPOLLOUT : 0),
		.data.u32 = SW_TAG_CH(p->idx),
	};

	if (p->ch.ring) {
		chan_ring_pollout(p, on);
		return;
	}
	if (p->ch.fd < 0 || p->ch.pollout == on)
		return;
	if (epoll_ctl(sw->epfd, EPOLL_CTL_MOD, p->ch.fd, &ev) == 0)
		p->ch.pollout = on;
}

/*
 * Send one record.  An untimed switch does not wait: -1 with errno EAGAIN
 * tells the caller to wait for EPOLLOUT.  A timed one must not lose a
 * record, so it waits for room, at most its stall bound (its peer reads
 * whenever it waits for the switch).  1: the peer is gone (link ended).
 */
static int chan_send(struct sw *sw, struct sw_port *p, const uint8_t *rec,
		     uint32_t len)
{
	struct sw_chan *c = &p->ch;
	ssize_t ret;

	if (c->ring)
		return chan_ring_send(sw, p, rec, len);
	for (;;) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLOUT };

		if (c->fd < 0)
			return 1;
		ret = send(c->fd, rec, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (ret == (ssize_t)len)
			return 0;
		if (ret >= 0 || (errno != EAGAIN && errno != EINTR)) {
			chan_drop(sw, p);
			return 1;
		}
		if (!sw->timed) {
			errno = EAGAIN;
			return -1;
		}
		if (errno == EINTR)
			continue;
		if (poll(&pfd, 1, (int)sw->stall_ms) == 0) {
			timed_report(sw, stderr, "a channel stayed full");
			exit(1);
		}
	}
}

/*
 * A record on the socket even when the link has rings, with descriptors
 * (DIRECT, "Direct rings").  A seqpacket socket with 4 MiB to send holds
 * the few control records the switch sends this way, so one that does
 * not fit means the NIC stopped reading: 0 sent, -1 the link ended.
 */
int chan_send_sock(struct sw *sw, struct sw_port *p, const uint8_t *rec,
		   uint32_t len, const int *fds, unsigned int nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(ROCX_RING_NFDS * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)rec, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	if (p->ch.fd < 0 || nfds > ROCX_RING_NFDS)
		return -1;
	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.buf;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	do {
		n = sendmsg(p->ch.fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len)
		return 0;
	chan_error(sw, p, "a NIC that reads nothing from its socket");
	return -1;
}

/* HELLO_ACK, refused or not; BYE.  Timed: with the extension. */
static int chan_ctrl(struct sw *sw, struct sw_port *p, uint8_t type,
		     uint8_t flags, uint64_t time, uint32_t latency)
{
	uint8_t rec[ROCX_FAB_CTRL_LEN] = { 0 };
	uint32_t len = type == ROCX_FAB_HELLO_ACK ? ROCX_FAB_CTRL_LEN :
		       ROCX_FAB_HLEN;

	if (sw->timed) {
		flags |= ROCX_FAB_F_TIMED;
		put_be64(rec + ROCX_FAB_OFF_TIME, time);
		put_be32(rec + ROCX_FAB_OFF_LATENCY, latency);
		if (len < ROCX_FAB_TIMED_HLEN)
			len = ROCX_FAB_TIMED_HLEN;
	}
	fabric_header(rec, type, flags, 0, ROCX_FAB_BUNDLE_MAX);
	return chan_send(sw, p, rec, len);
}

void chan_sync(struct sw *sw, struct sw_port *p, uint64_t t)
{
	uint8_t rec[ROCX_FAB_TIMED_HLEN] = { 0 };

	if (p->ch.state != CH_UP)
		return;
	fabric_header(rec, ROCX_FAB_SYNC, ROCX_FAB_F_TIMED, 0,
		      ROCX_FAB_BUNDLE_MAX);
	put_be64(rec + ROCX_FAB_OFF_TIME, t);
	if (chan_send(sw, p, rec, sizeof(rec)) == 0)
		p->ch.prom_tx = t;
}

void chan_bye_all(struct sw *sw)
{
	unsigned int i;

	for (i = 0; i < sw->nports; i++) {
		struct sw_port *p = &sw->port[i];

		if (p->ch.state != CH_UP)
			continue;
		if (sw->timed)
			chan_out_flush(sw, p);
		if (p->ch.state == CH_UP)
			chan_ctrl(sw, p, ROCX_FAB_BYE, 0, p->ch.prom_tx, 0);
	}
}

/* A protocol error: counted, said, and the link ends. */
void chan_error(struct sw *sw, struct sw_port *p, const char *why)
{
	p->st.rx_fab_err++;
	fprintf(stderr, "rocx-switch: port %u: channel closed: %s\n", p->idx,
		why);
	chan_drop(sw, p);
}

static void chan_refuse(struct sw *sw, struct sw_port *p, const char *why)
{
	p->st.ch_refused++;
	fprintf(stderr, "rocx-switch: port %u: refused: %s\n", p->idx, why);
	chan_ctrl(sw, p, ROCX_FAB_HELLO_ACK, ROCX_FAB_F_REFUSED, sw->now_ns,
		  (uint32_t)p->ch.latency_ns);
	chan_drop(sw, p);
}

static void chan_hello(struct sw *sw, struct sw_port *p, const uint8_t *rec,
		       uint8_t flags, uint32_t max_len)
{
	struct sw_chan *c = &p->ch;
	bool timed = flags & ROCX_FAB_F_TIMED;
	uint32_t least = timed ? ROCX_FAB_TIMED_HLEN +
			 2 * (ROCX_FAB_TENTRY_HLEN + SW_MAX_FRAME) :
			 ROCX_FAB_MIN_MAX(SW_MAX_FRAME);
	const char *why = NULL;
	uint64_t t = 0;

	if (timed && !sw->timed)
		why = "a timed NIC, and the switch is untimed";
	else if (!timed && sw->timed)
		why = "an untimed NIC, and the switch is timed";
	else if (c->left)
		why = "the port left this timed run";
	else if (max_len < least)
		why = "max_len below two of the switch's largest frames";
	if (!why && (flags & ROCX_FAB_F_RINGS))
		why = chan_ring_offer(p);
	/* Descriptors of an offer taken, refused, or never made. */
	chan_ring_forget(c);
	if (!why && timed) {
		c->ob = malloc(ROCX_FAB_BUNDLE_MAX);
		if (!c->ob)
			why = "out of memory";
	}
	if (why) {
		chan_refuse(sw, p, why);
		return;
	}
	c->max = max_len < ROCX_FAB_BUNDLE_MAX ? max_len : ROCX_FAB_BUNDLE_MAX;
	if (timed) {
		c->ob_count = 0;
		t = get_be64(rec + ROCX_FAB_OFF_TIME);
		/* The link's epoch: neither end stamps anything before it. */
		c->epoch_ns = t > sw->epoch_ns ? t : sw->epoch_ns;
		c->hello_ns = t;
		c->prom_rx = c->epoch_ns;
		c->prom_tx = c->epoch_ns;
		sw->wall_progress_ms = wall_ms();
		c->wall_rx_ms = sw->wall_progress_ms;
	}
	c->state = CH_UP;
	if (chan_ctrl(sw, p, ROCX_FAB_HELLO_ACK,
		      c->ring_pending ? ROCX_FAB_F_RINGS : 0, c->epoch_ns,
		      (uint32_t)c->latency_ns))
		return;
	if (c->ring_pending && chan_ring_start(sw, p)) {
		chan_error(sw, p, "the rings' eventfd cannot be polled");
		return;
	}
	if (timed)
		fprintf(stderr,
			"rocx-switch: port %u: joined at %" PRIu64 " ns (NIC at %" PRIu64
			" ns), latency %" PRIu64 " ns\n",
			p->idx, c->epoch_ns, t, c->latency_ns);
}

/* A frame of a timed BUNDLE into the port's arrival queue. */
static void chan_queue(struct sw *sw, struct sw_port *p, const uint8_t *data,
		       uint32_t len, uint64_t stamp)
{
	struct sw_chan *c = &p->ch;
	struct sw_buf *buf;

	if (len > SW_MAX_FRAME) {
		p->st.rx_frames++;
		p->st.rx_bytes += len;
		p->st.rx_oversize++;
		return;
	}
	buf = c->narr < SW_ARRIVE_LIMITS * p->eg.limit ?
	      pool_get(&sw->pool) : NULL;
	if (!buf) {
		p->st.rx_frames++;
		p->st.rx_err++;
		return;
	}
	memcpy(buf->data, data, len);
	buf->len = len;
	buf->t_ns = stamp + c->latency_ns;
	buf->q_next = NULL;
	if (c->arr_tail)
		c->arr_tail->q_next = buf;
	else
		c->arr_head = buf;
	c->arr_tail = buf;
	c->narr++;
}

/*
 * A BUNDLE, checked whole before a frame of it is delivered.  Returns the
 * reason it is damaged, or NULL.
 */
static const char *chan_bundle(struct sw *sw, struct sw_port *p,
			       const uint8_t *rec, uint32_t len, uint16_t count,
			       bool deliver)
{
	struct sw_chan *c = &p->ch;
	uint32_t hlen = sw->timed ? ROCX_FAB_TIMED_HLEN : ROCX_FAB_HLEN;
	uint32_t ehlen = sw->timed ? ROCX_FAB_TENTRY_HLEN : ROCX_FAB_ENTRY_HLEN;
	uint64_t t = sw->timed ? get_be64(rec + ROCX_FAB_OFF_TIME) : 0;
	uint64_t stamp = t;
	uint32_t off = hlen;
	unsigned int i;

	if (!count)
		return "a BUNDLE of no frame";
	if (sw->timed && t < c->prom_rx)
		return "a stamp below the last promise";
	if (sw->timed && t < c->idle_floor)
		return "a stamp below the sender's idle bound";
	for (i = 0; i < count; i++) {
		uint32_t o = 0;
		uint16_t flen;

		if (len - off < ehlen)
			return "a BUNDLE shorter than its count";
		if (sw->timed) {
			o = get_be32(rec + off);
			if ((i == 0 && o) || t + o < stamp || t + o < t)
				return "a BUNDLE's offsets go back";
			stamp = t + o;
		}
		flen = get_be16(rec + off + ehlen - 2);
		off += ehlen;
		if (flen > len - off)
			return "an entry runs past the record";
		if (deliver && sw->timed)
			chan_queue(sw, p, rec + off, flen, stamp);
		else if (deliver)
			port_input(sw, p, rec + off, flen);
		off += flen;
	}
	if (off != len)
		return "bytes after a BUNDLE's last entry";
	if (deliver) {
		p->st.rx_bundles++;
		if (sw->timed) {
			c->prom_rx = stamp;
			c->idle_rx = 0;
		}
	}
	return NULL;
}

/* One record: 0, or -1 when the link ended. */
int chan_record(struct sw *sw, struct sw_port *p, const uint8_t *rec,
		uint32_t len)
{
	struct sw_chan *c = &p->ch;
	const char *why;
	uint8_t type, flags;
	uint16_t count;
	uint64_t t, idle;

	if (!fabric_is_ctrl(rec, len)) {
		chan_error(sw, p, "a record that is not a fabric frame");
		return -1;
	}
	type = rec[ROCX_FAB_OFF_TYPE];
	flags = rec[ROCX_FAB_OFF_FLAGS];
	count = get_be16(rec + ROCX_FAB_OFF_COUNT);
	if ((flags & ROCX_FAB_F_TIMED) && len < ROCX_FAB_TIMED_HLEN) {
		chan_error(sw, p, "a timed record shorter than its extension");
		return -1;
	}
	if (c->state == CH_HELLO) {
		if (type != ROCX_FAB_HELLO) {
			chan_error(sw, p, "a record before HELLO");
			return -1;
		}
		chan_hello(sw, p, rec, flags,
			   get_be32(rec + ROCX_FAB_OFF_MAX_LEN));
		return c->state == CH_UP ? 0 : -1;
	}
	if (type == ROCX_FAB_BYE) {
		chan_drop(sw, p);
		return -1;
	}
	/* After HELLO every record of a link is in the link's mode. */
	if (!(flags & ROCX_FAB_F_TIMED) != !sw->timed) {
		chan_error(sw, p, sw->timed ? "an untimed record on a timed link" :
			   "a timed record on an untimed link");
		return -1;
	}
	switch (type) {
	case ROCX_FAB_BUNDLE:
		why = chan_bundle(sw, p, rec, len, count, false);
		if (why) {
			chan_error(sw, p, why);
			return -1;
		}
		chan_bundle(sw, p, rec, len, count, true);
		return 0;
	case ROCX_FAB_SYNC:
		t = get_be64(rec + ROCX_FAB_OFF_TIME);
		if (count) {
			chan_error(sw, p, "a SYNC with entries");
			return -1;
		}
		if (t < c->prom_rx) {
			chan_error(sw, p, "a promise below the last one");
			return -1;
		}
		idle = get_be64(rec + ROCX_FAB_OFF_IDLE);
		if (idle && idle <= t) {
			chan_error(sw, p, "an idle bound not above its promise");
			return -1;
		}
		c->prom_rx = t;
		c->idle_rx = idle;
		return 0;
	case ROCX_FAB_HELLO:
		chan_error(sw, p, "a second HELLO");
		return -1;
	case ROCX_FAB_DIRECT_ACK:
	case ROCX_FAB_DIRECT_END_ACK:
		return direct_record(sw, p, type, flags);
	default:
		chan_error(sw, p, "a record of a type the NIC does not send");
		return -1;
	}
}

/* Records per wakeup of a port, so that one busy peer does not starve. */
#define CHAN_RX_BATCH	64

/*
 * HELLO may come with the descriptors of a rings offer: keep them for
 * chan_hello().  Descriptors with any other record are closed.
 */
static ssize_t chan_recv_hello(struct sw_chan *c, uint8_t *rec, size_t cap)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(ROCX_RING_NFDS * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = rec, .iov_len = cap };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm;
	ssize_t n;

	n = recvmsg(c->fd, &m, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return n;
	chan_ring_forget(c);
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		size_t nfd, i;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfd; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			if (c->noffer < ROCX_RING_NFDS)
				c->offer[c->noffer++] = fd;
			else
				close(fd);
		}
	}
	/* Truncated descriptors: an offer that cannot be whole. */
	if (m.msg_flags & MSG_CTRUNC)
		chan_ring_forget(c);
	return n;
}

void chan_rx(struct sw *sw, struct sw_port *p, uint32_t events)
{
	static uint8_t rec[ROCX_FAB_BUNDLE_MAX];
	unsigned int k;
	ssize_t n;

	if (p->ch.ring) {
		chan_ring_rx(sw, p, events, rec, sizeof(rec));
		return;
	}
	for (k = 0; k < CHAN_RX_BATCH && p->ch.fd >= 0 && !p->ch.ring; k++) {
		if (p->ch.state == CH_HELLO)
			n = chan_recv_hello(&p->ch, rec, sizeof(rec));
		else
			n = recv(p->ch.fd, rec, sizeof(rec),
				 MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			chan_drop(sw, p);
			return;
		}
		if (n == 0) {
			/* End of file: as BYE. */
			chan_drop(sw, p);
			return;
		}
		if (sw->timed)
			p->ch.wall_rx_ms = wall_ms();
		if ((size_t)n > sizeof(rec)) {
			chan_error(sw, p, "a record above max_len");
			return;
		}
		if (chan_record(sw, p, rec, (uint32_t)n))
			return;
	}
}

int chan_xmit(struct sw *sw, struct sw_port *p, struct sw_buf **bufs,
	      unsigned int n)
{
	static uint8_t out[ROCX_FAB_BUNDLE_MAX];
	uint32_t len;
	unsigned int k;
	int ret;

	k = fabric_pack(out, p->ch.max, bufs, n, &len);
	ret = chan_send(sw, p, out, len);
	if (ret < 0)
		return -1;
	if (ret > 0) {
		p->st.tx_nopeer += k;
		return k;
	}
	port_count_tx(sw, p, bufs, k);
	p->st.tx_bundles++;
	return k;
}

void chan_out_frame(struct sw *sw, struct sw_port *p, struct sw_buf *buf,
		    uint64_t stamp)
{
	struct sw_chan *c = &p->ch;
	uint32_t need = ROCX_FAB_TENTRY_HLEN + buf->len;

	if (c->ob_count && (c->ob_len + need > c->max ||
			    stamp - c->ob_time > UINT32_MAX ||
			    c->ob_count == UINT16_MAX))
		chan_out_flush(sw, p);
	if (c->state != CH_UP || !c->ob) {
		p->st.tx_nopeer++;
		return;
	}
	if (!c->ob_count) {
		c->ob_time = stamp;
		c->ob_len = ROCX_FAB_TIMED_HLEN;
	}
	put_be32(c->ob + c->ob_len, (uint32_t)(stamp - c->ob_time));
	put_be16(c->ob + c->ob_len + 4, (uint16_t)buf->len);
	memcpy(c->ob + c->ob_len + ROCX_FAB_TENTRY_HLEN, buf->data, buf->len);
	c->ob_len += need;
	c->ob_count++;
	c->ob_last = stamp;
	port_count_tx(sw, p, &buf, 1);
}

void chan_out_flush(struct sw *sw, struct sw_port *p)
{
	struct sw_chan *c = &p->ch;

	if (!c->ob_count || c->state != CH_UP)
		return;
	fabric_header(c->ob, ROCX_FAB_BUNDLE, ROCX_FAB_F_TIMED, c->ob_count,
		      ROCX_FAB_BUNDLE_MAX);
	put_be64(c->ob + ROCX_FAB_OFF_TIME, c->ob_time);
	memset(c->ob + ROCX_FAB_OFF_LATENCY, 0, 8);
	c->ob_count = 0;
	if (chan_send(sw, p, c->ob, c->ob_len) == 0) {
		p->st.tx_bundles++;
		c->prom_tx = c->ob_last;
	}
}
