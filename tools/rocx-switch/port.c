// SPDX-License-Identifier: GPL-2.0
/*
 * Switch ports: one unix datagram socket each.
 *
 * The port socket is bound at <dir>/sw<N>.sock and, once the guest's
 * <dir>/g<N>.sock exists, connected to it.  Connecting matters for more
 * than addressing: a unix datagram receiver that is not connected back to
 * its sender accepts only net.unix.max_dgram_qlen (often 10) queued
 * datagrams, so a connected port takes whole bursts from its guest, and
 * poll() on it reports when the guest's own queue has room again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/stat.h>
#include <unistd.h>

#include "switch.h"

static const char * const port_state_names[] = {
	[PORT_DOWN] = "down",
	[PORT_UP] = "up",
};

const char *port_state_name(enum port_state state)
{
	return state < ARRAY_SIZE(port_state_names) ?
	       port_state_names[state] : "?";
}

static int set_path(struct sockaddr_un *sa, const char *dir, const char *pfx,
		    unsigned int idx)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s%u.sock", dir,
		     pfx, idx);
	if (n < 0 || (size_t)n >= sizeof(sa->sun_path)) {
		fprintf(stderr, "rocx-switch: socket path in %s too long\n",
			dir);
		return -1;
	}
	return 0;
}

static void sock_bufsize(int fd, int opt, int force_opt, int bytes)
{
	/* As root the FORCE variant passes net.core.*mem_max. */
	if (setsockopt(fd, SOL_SOCKET, force_opt, &bytes, sizeof(bytes)))
		setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof(bytes));
}

int port_open(struct sw *sw, struct sw_port *p, const char *dir,
	      unsigned int idx)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = idx };
	struct sockaddr_un sa;

	memset(p, 0, sizeof(*p));
	p->idx = idx;
	p->fd = -1;
	p->ch.lfd = -1;
	p->ch.fd = -1;
	p->ch.dep_ns = UINT64_MAX;
	p->state = PORT_DOWN;
	if (set_path(&sa, dir, "sw", idx) ||
	    set_path(&p->peer, dir, "g", idx))
		return -1;
	p->peer_len = sizeof(p->peer);
	memcpy(p->local_path, sa.sun_path, sizeof(p->local_path));

	p->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		goto err;
	sock_bufsize(p->fd, SO_SNDBUF, SO_SNDBUFFORCE, 4 << 20);
	sock_bufsize(p->fd, SO_RCVBUF, SO_RCVBUFFORCE, 4 << 20);
	/* Who sends: lost line time asks how long the guest waited (lost.c). */
	setsockopt(p->fd, SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int));
	/* A stale socket file from a killed run would make bind() fail. */
	if (unlink(sa.sun_path) && errno != ENOENT)
		goto err;
	if (bind(p->fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto err;
	if (epoll_ctl(sw->epfd, EPOLL_CTL_ADD, p->fd, &ev))
		goto err;
	return 0;
err:
	fprintf(stderr, "rocx-switch: port %u (%s): %s\n", idx, sa.sun_path,
		strerror(errno));
	return -1;
}

void port_close(struct sw_port *p)
{
	if (p->fd < 0)
		return;
	close(p->fd);
	p->fd = -1;
	unlink(p->local_path);
}

static void port_disconnect(struct sw_port *p)
{
	struct sockaddr sa = { .sa_family = AF_UNSPEC };

	/* AF_UNSPEC dissolves a datagram socket's association. */
	connect(p->fd, &sa, sizeof(sa));
	p->state = PORT_DOWN;
	/* Whoever comes back on this path says HELLO again if it can. */
	port_reset_fabric(p);
}

/*
 * Connects to the guest's socket if it exists.  Absent guests are retried
 * at most every SW_CONNECT_RETRY_MS, unless @force (the guest just sent us
 * a frame, so its socket is there).
 */
bool port_try_connect(struct sw *sw, struct sw_port *p, bool force)
{
	struct stat st;

	if (p->state == PORT_UP)
		return true;
	if (!force && sw->now_ms < p->next_connect_ms)
		return false;
	p->next_connect_ms = sw->now_ms + SW_CONNECT_RETRY_MS;
	if (stat(p->peer.sun_path, &st) || !S_ISSOCK(st.st_mode))
		return false;
	if (connect(p->fd, (struct sockaddr *)&p->peer, p->peer_len))
		return false;
	p->peer_dev = st.st_dev;
	p->peer_ino = st.st_ino;
	p->peer_ctime = st.st_ctim;
	p->state = PORT_UP;
	return true;
}

/*
 * A guest that exited leaves us connected to a dead socket, and a guest
 * restarted on the same path cannot send to us until we let go of it.
 */
void port_check_peer(struct sw *sw, struct sw_port *p)
{
	struct stat st;

	if (p->state != PORT_UP)
		return;
	if (stat(p->peer.sun_path, &st) || st.st_dev != p->peer_dev ||
	    st.st_ino != p->peer_ino ||
	    st.st_ctim.tv_sec != p->peer_ctime.tv_sec ||
	    st.st_ctim.tv_nsec != p->peer_ctime.tv_nsec) {
		port_disconnect(p);
		port_try_connect(sw, p, true);
	}
}

/*
 * A guest that binds its path again cannot send to us until we let go of
 * its old socket (the kernel refuses it with EPERM while we are connected
 * elsewhere); the second's timer would notice within a second, the
 * directory's watch notices when the new socket file appears.
 */
int port_watch_open(struct sw *sw, const char *dir)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = SW_TAG_WATCH };

	sw->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (sw->watch_fd < 0)
		return -1;
	if (inotify_add_watch(sw->watch_fd, dir, IN_CREATE | IN_MOVED_TO) < 0 ||
	    epoll_ctl(sw->epfd, EPOLL_CTL_ADD, sw->watch_fd, &ev)) {
		close(sw->watch_fd);
		sw->watch_fd = -1;
		return -1;
	}
	return 0;
}

void port_watch_event(struct sw *sw)
{
	/* The union aligns the buffer for the events read into it. */
	union {
		struct inotify_event ie;
		char b[4096];
	} buf;
	const struct inotify_event *ie;
	unsigned int idx;
	char tail;
	ssize_t n;
	char *at;

	while ((n = read(sw->watch_fd, buf.b, sizeof(buf.b))) > 0) {
		for (at = buf.b; at < buf.b + n; at += sizeof(*ie) + ie->len) {
			ie = (const struct inotify_event *)at;
			if (!ie->len ||
			    sscanf(ie->name, "g%u.soc%c", &idx, &tail) != 2 ||
			    tail != 'k' || idx >= sw->nports)
				continue;
			port_check_peer(sw, &sw->port[idx]);
		}
	}
}

void port_set_pollout(struct sw *sw, struct sw_port *p, bool on)
{
	struct epoll_event ev = {
		.events = EPOLLIN | (on ? EPOLLOUT : 0),
		.data.u32 = p->idx,
	};

	if (p->ch.state == CH_UP) {
		chan_set_pollout(sw, p, on);
		return;
	}
	if (p->pollout == on)
		return;
	if (epoll_ctl(sw->epfd, EPOLL_CTL_MOD, p->fd, &ev) == 0)
		p->pollout = on;
}

void port_reset_fabric(struct sw_port *p)
{
	p->bundle = false;
	p->bundle_max = 0;
}

/* The send failed with errno: 0 if the peer is gone, 1 for other errors. */
static void xmit_error(struct sw_port *p, unsigned int n)
{
	switch (errno) {
	case ECONNREFUSED:
	case ECONNRESET:
	case ENOENT:
	case ENOTCONN:
	case EPERM:
		/* Guest gone: the kernel may have dissolved the link itself. */
		port_disconnect(p);
		p->st.tx_nopeer += n;
		break;
	default:
		p->st.tx_err += n;
		break;
	}
}

void port_count_tx(struct sw *sw, struct sw_port *p, struct sw_buf **bufs,
		   unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		p->st.tx_frames++;
		p->st.tx_bytes += bufs[i]->len;
		p->st.tx_tc[bufs[i]->tc]++;
		/* As the guest is given it (capture.c). */
		if (p->cap)
			capture_frame(sw, p, bufs[i]);
	}
}

/* Several frames in one datagram; the guest said it takes them. */
static int xmit_bundle(struct sw *sw, struct sw_port *p, struct sw_buf **bufs,
		       unsigned int n)
{
	static uint8_t out[ROCX_FAB_BUNDLE_MAX];
	uint32_t len;
	unsigned int k;
	ssize_t ret;

	k = fabric_pack(out, p->bundle_max, bufs, n, &len);
	ret = send(p->fd, out, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (ret == (ssize_t)len) {
		port_count_tx(sw, p, bufs, k);
		p->st.tx_bundles++;
		return k;
	}
	if (ret >= 0) {
		p->st.tx_err += k;
		return k;
	}
	if (errno == EAGAIN)
		return -1;
	xmit_error(p, k);
	return k;
}

/* One datagram per frame, as many as the socket takes in one call. */
static int xmit_plain(struct sw *sw, struct sw_port *p, struct sw_buf **bufs,
		      unsigned int n)
{
	struct mmsghdr msgs[SW_TX_BATCH];
	struct iovec iov[SW_TX_BATCH];
	unsigned int i;
	int ret;

	if (n > SW_TX_BATCH)
		n = SW_TX_BATCH;
	memset(msgs, 0, sizeof(msgs[0]) * n);
	for (i = 0; i < n; i++) {
		iov[i].iov_base = bufs[i]->data;
		iov[i].iov_len = bufs[i]->len;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	ret = sendmmsg(p->fd, msgs, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (ret > 0) {
		/* A datagram socket sends each message whole or not at all. */
		port_count_tx(sw, p, bufs, ret);
		return ret;
	}
	if (ret == 0 || errno == EAGAIN)
		return -1;
	xmit_error(p, 1);
	return 1;
}

/*
 * What the guest has not read yet of what this port sent it, as the
 * kernel counts it (each datagram's buffer: 2304 bytes for a 1102-byte
 * frame): the port's socket sends to that guest only.
 */
uint64_t port_unread(const struct sw_port *p)
{
	int n;

	if (p->fd < 0 || ioctl(p->fd, SIOCOUTQ, &n) || n < 0)
		return 0;
	return (uint64_t)n;
}

int port_xmit(struct sw *sw, struct sw_port *p, struct sw_buf **bufs,
	      unsigned int n)
{
	/* A NIC on the port's channel takes everything there. */
	if (p->ch.state == CH_UP)
		return chan_xmit(sw, p, bufs, n);
	if (!port_try_connect(sw, p, false)) {
		p->st.tx_nopeer += n;
		return n;
	}
	/* A bundle of one frame would only add its header. */
	if (p->bundle && n > 1 &&
	    p->bundle_max >= ROCX_FAB_HLEN + 2 * ROCX_FAB_ENTRY_HLEN +
			      bufs[0]->len + bufs[1]->len)
		return xmit_bundle(sw, p, bufs, n);
	return xmit_plain(sw, p, bufs, n);
}

void port_input(struct sw *sw, struct sw_port *p, const uint8_t *data,
		uint32_t len)
{
	struct sw_buf *buf;

	if (len > SW_MAX_FRAME) {
		p->st.rx_frames++;
		p->st.rx_bytes += len;
		p->st.rx_oversize++;
		return;
	}
	/* Never empty: it holds every queue full and one frame more. */
	buf = pool_get(&sw->pool);
	if (!buf) {
		p->st.rx_frames++;
		p->st.rx_err++;
		return;
	}
	memcpy(buf->data, data, len);
	buf->len = len;
	pipeline_input(sw, p, buf);
}

/* Frames of got datagrams received into stage. */
static void port_rx_batch(struct sw *sw, struct sw_port *p,
			  const struct mmsghdr *msgs,
			  uint8_t (*stage)[ROCX_FAB_BUNDLE_MAX], unsigned int got)
{
	struct cmsghdr *cm;
	unsigned int i;

	/* A timed switch takes frames that carry their time only. */
	if (sw->timed) {
		p->st.rx_dgram_timed += got;
		if (!p->ch.warned_dgram)
			fprintf(stderr,
				"rocx-switch: port %u: dropping datagrams: the switch is timed (use DIR/ch%u.sock)\n",
				p->idx, p->idx);
		p->ch.warned_dgram = true;
		return;
	}
	/* The guest is sending, so its socket exists: link up now. */
	port_try_connect(sw, p, true);
	for (cm = CMSG_FIRSTHDR(&msgs[0].msg_hdr); cm;
	     cm = CMSG_NXTHDR((struct msghdr *)&msgs[0].msg_hdr, cm)) {
		struct ucred uc;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_CREDENTIALS ||
		    cm->cmsg_len < CMSG_LEN(sizeof(uc)))
			continue;
		memcpy(&uc, CMSG_DATA(cm), sizeof(uc));
		lost_set_pid(p, uc.pid);
	}
	for (i = 0; i < got; i++) {
		uint32_t len = msgs[i].msg_len;

		if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
			p->st.rx_frames++;
			p->st.rx_bytes += len;
			p->st.rx_oversize++;
		} else if (fabric_is_ctrl(stage[i], len)) {
			fabric_input(sw, p, stage[i], len);
		} else {
			port_input(sw, p, stage[i], len);
		}
	}
}

void port_rx(struct sw *sw, struct sw_port *p)
{
	/*
	 * Received into staging buffers as large as a bundle, then copied
	 * frame by frame into pool buffers: a copy of each frame buys one
	 * receive call for a whole burst of bundles.
	 *
	 * A port with a lossless priority is read one datagram per call
	 * instead (as many calls): a datagram left in the socket is still
	 * the guest's, and what a batch took out before its frames crossed
	 * xoff would make room for more in flight behind the XOFF.  So
	 * after XOFF the most that can still arrive is the rest of one
	 * datagram plus what the guest's socket holds (Documentation/
	 * experiments.rst, "Headroom").
	 */
	static uint8_t stage[SW_RX_BATCH][ROCX_FAB_BUNDLE_MAX];
	static struct mmsghdr msgs[SW_RX_BATCH];
	static struct iovec iov[SW_RX_BATCH];
	static union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} cbuf[SW_RX_BATCH];
	bool one = pfc_port_lossless(&p->qos);
	unsigned int i, k, calls = one ? SW_RX_BATCH : 1;
	int got = 0;

	for (k = 0; k < calls && p->fd >= 0; k++) {
		for (i = 0; i < SW_RX_BATCH; i++) {
			iov[i].iov_base = stage[i];
			iov[i].iov_len = sizeof(stage[i]);
			memset(&msgs[i].msg_hdr, 0, sizeof(msgs[i].msg_hdr));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_control = cbuf[i].buf;
			msgs[i].msg_hdr.msg_controllen = sizeof(cbuf[i].buf);
		}
		got = recvmmsg(p->fd, msgs, one ? 1 : SW_RX_BATCH,
			       MSG_DONTWAIT, NULL);
		if (got <= 0)
			break;
		port_rx_batch(sw, p, msgs, stage, (unsigned int)got);
	}
	if (got < 0) {
		if (errno == ECONNREFUSED || errno == ECONNRESET)
			port_disconnect(p);
		else if (errno != EAGAIN && errno != EINTR)
			p->st.rx_err++;
	}
}
