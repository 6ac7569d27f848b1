// SPDX-License-Identifier: GPL-2.0
/*
 * The control socket: one unix stream socket per switch (--ctl, by default
 * DIR/ctl.sock) that takes requests while the switch runs.  Its client,
 * rocx-switch ctl SOCKET [COMMAND], is ctl_client.c.
 *
 * A request is one line: a verb, then words that are KEY=VALUE or bare
 * flags, separated by blanks.  The answer is zero or more lines of output
 * and then one status line, "ok" or "error: WHY"; a request that fails
 * changes nothing.  Blank lines and lines starting with '#' answer "ok".
 * Objects are picked with the same keys by every verb: port=N[,N...]|all,
 * dir=ingress|egress|both (and, for per-priority settings, prio=).  A verb
 * is a handler in ctl_cmds[]: it takes the words it knows with ctl_take()
 * and ctl_flag(), and ctl_check_unused() refuses what is left, so a typo
 * is an error and never a silent no-op (ctl_args.c).
 *
 * Each client has its own input line and output buffer; the switch never
 * blocks on one: a client that sends a line longer than CTL_LINE_MAX or
 * stops reading more than CTL_OUT_MAX of answers is dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "switch.h"

#define CTL_LINE_MAX	4096
#define CTL_OUT_MAX	(4u << 20)

/* ------------------------------------------------------------------ */
/* Commands */

static int ctl_help(struct sw *sw, struct ctl_args *a, FILE *out);

static int ctl_stats(struct sw *sw, struct ctl_args *a, FILE *out)
{
	bool given = false;
	unsigned int i;
	uint64_t ports;

	/* Without port=, the whole report, the MAC table's line too. */
	for (i = 0; i < a->n; i++)
		given |= a->val[i] && !strcmp(a->key[i], "port");
	if (ctl_ports(sw, a, false, &ports) || ctl_check_unused(a))
		return -1;
	if (!given) {
		stats_print(sw, out);
		return 0;
	}
	for (i = 0; i < sw->nports; i++)
		if (ports >> i & 1)
			stats_print_port(sw, i, out);
	return 0;
}

static int ctl_seed(struct sw *sw, struct ctl_args *a, FILE *out)
{
	const char *s = ctl_take_bare(a);
	unsigned long long seed;

	if (ctl_check_unused(a))
		return -1;
	if (s) {
		if (ctl_parse_uint(s, UINT64_MAX, &seed))
			return ctl_err(a, "seed: '%s' is not a decimal number",
				       s);
		impair_seed(sw, seed);
	}
	fprintf(out, "seed=%llu\n", (unsigned long long)sw->seed);
	return 0;
}

/* A verb, its handler, and its help: a synopsis and lines of detail. */
static const struct ctl_cmd {
	const char *verb;
	ctl_handler fn;
	const char *help[6];
} ctl_cmds[] = {
	{ "help", ctl_help, { "help", "this list" } },
	{ "show", impair_show, {
		"show [port=N[,N]...|all] [dir=ingress|egress|both]",
		"impairment settings and counters, a line per port and direction",
	} },
	{ "stats", ctl_stats, {
		"stats [port=N[,N]...|all]",
		"every counter, as SIGUSR1 prints them",
	} },
	{ "impair", impair_cmd, {
		"impair port=N[,N]...|all dir=ingress|egress|both [clear] KEY=VALUE...",
		"set impairments; KEYs not given keep their values (clear: all off)",
		"loss=P | loss-gemodel=P[,R[,1-H[,1-K]]] [ge-step=T]  duplicate=P  corrupt=P",
		"delay=T  jitter=T  reorder=P  gap=N  limit=N",
		"P: 1% or 0.01; T: 2ms, 500us, 1s, ...; as tc-netem's options",
	} },
	{ "seed", ctl_seed, {
		"seed [N]",
		"the seed; with N, restart every random stream from N",
	} },
	{ "qos", qos_cmd, {
		"qos port=N[,N]...|all [clear] [rate=MBPS burst=B speed=MBPS trust=auto|pcp|dscp",
		"    quanta=Q pause=on|off backlog=B latency=T] [dscp=D[,D]... to=P]",
		"    [prio=P[,P]...|all pfc=on|off xoff=B xon=B headroom=B reserved=B",
		"    ets=strict|W kmin=B kmax=B pmax=P]",
		"line rate, trust, PFC, ETS and RED/ECN (B: bytes); KEYs not given keep their values",
	} },
	{ "qshow", qos_show, {
		"qshow [port=N[,N]...|all]",
		"QoS settings, per-priority state and counters, the shared buffer",
	} },
	{ "buffer", qos_buffer_cmd, {
		"buffer [size=BYTES]",
		"the shared buffer's size (0: no limit) and use",
	} },
	{ "capture", capture_cmd, {
		"capture port=N file=PATH | capture stop port=N | capture [list] [port=N[,N]...]",
		"a pcap of what port N receives (at ingress, dropped frames too) and",
		"sends (as it leaves: frames dropped at egress not); PATH absolute;",
		"stop prints its last counters; at most 8 at once",
	} },
	{ "series", series_cmd, {
		"series [file=PATH] [interval=T] [off]",
		"JSON lines of depths, rates, marks and pauses every T (default 100ms)",
	} },
};

static int ctl_help(struct sw *sw, struct ctl_args *a, FILE *out)
{
	unsigned int i, k;

	(void)sw;
	if (ctl_check_unused(a))
		return -1;
	for (i = 0; i < ARRAY_SIZE(ctl_cmds); i++) {
		fprintf(out, "%s\n", ctl_cmds[i].help[0]);
		for (k = 1; k < ARRAY_SIZE(ctl_cmds[i].help) &&
		     ctl_cmds[i].help[k]; k++)
			fprintf(out, "    %s\n", ctl_cmds[i].help[k]);
	}
	return 0;
}

int ctl_exec(struct sw *sw, char *line, FILE *out, char *err, size_t len)
{
	struct ctl_args a;
	char *text = NULL;
	size_t text_len = 0;
	unsigned int i;
	FILE *tmp;
	int rc;

	if (ctl_split(line, &a)) {
		snprintf(err, len, "%s", a.err);
		return -1;
	}
	if (!a.verb)
		return 0;
	for (i = 0; i < ARRAY_SIZE(ctl_cmds); i++)
		if (!strcmp(ctl_cmds[i].verb, a.verb))
			break;
	if (i == ARRAY_SIZE(ctl_cmds)) {
		snprintf(err, len, "unknown command '%s' (try help)", a.verb);
		return -1;
	}
	/* Output is kept apart until the handler succeeds. */
	tmp = open_memstream(&text, &text_len);
	if (!tmp) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	rc = ctl_cmds[i].fn(sw, &a, tmp);
	fclose(tmp);
	if (rc)
		snprintf(err, len, "%s", a.err[0] ? a.err : "failed");
	else
		fwrite(text, 1, text_len, out);
	free(text);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The socket */

struct ctl_client {
	int fd;			/* -1: slot free */
	bool eof;		/* no more requests: close once answered */
	bool pollout;		/* EPOLLOUT armed: answers wait for room */
	size_t in_len;
	char in[CTL_LINE_MAX];
	char *out;		/* answers not sent yet: out[out_off..out_len) */
	size_t out_len;
	size_t out_off;
	size_t out_cap;
};

struct sw_ctl {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct ctl_client cl[SW_CTL_MAX_CLIENTS];
};

int ctl_open(struct sw *sw, const char *path)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = SW_TAG_CTL };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sw_ctl *ctl;
	unsigned int k;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return -1;
	for (k = 0; k < SW_CTL_MAX_CLIENTS; k++)
		ctl->cl[k].fd = -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	memcpy(ctl->path, path, strlen(path) + 1);
	ctl->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			 0);
	if (ctl->fd < 0)
		goto err;
	/* A stale socket file from a killed run would make bind() fail. */
	if ((unlink(path) && errno != ENOENT) ||
	    bind(ctl->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(ctl->fd, SW_CTL_MAX_CLIENTS) ||
	    epoll_ctl(sw->epfd, EPOLL_CTL_ADD, ctl->fd, &ev))
		goto err;
	sw->ctl = ctl;
	return 0;
err:
	if (ctl->fd >= 0)
		close(ctl->fd);
	free(ctl);
	return -1;
}

static void client_close(struct ctl_client *c)
{
	close(c->fd);
	c->fd = -1;
	free(c->out);
	c->out = NULL;
	c->out_len = 0;
	c->out_off = 0;
	c->out_cap = 0;
	c->in_len = 0;
	c->eof = false;
	c->pollout = false;
}

void ctl_close(struct sw *sw)
{
	struct sw_ctl *ctl = sw->ctl;
	unsigned int k;

	if (!ctl)
		return;
	for (k = 0; k < SW_CTL_MAX_CLIENTS; k++)
		if (ctl->cl[k].fd >= 0)
			client_close(&ctl->cl[k]);
	close(ctl->fd);
	unlink(ctl->path);
	free(ctl);
	sw->ctl = NULL;
}

/* Queue answer bytes; false if the client hoards more than it may. */
static bool client_append(struct ctl_client *c, const char *data, size_t len)
{
	size_t need;
	char *p;

	if (c->out_off == c->out_len) {
		c->out_off = 0;
		c->out_len = 0;
	}
	need = c->out_len + len;
	if (need - c->out_off > CTL_OUT_MAX)
		return false;
	if (need > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;

		while (cap < need)
			cap *= 2;
		p = realloc(c->out, cap);
		if (!p)
			return false;
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, data, len);
	c->out_len += len;
	return true;
}

static bool client_answer(struct sw *sw, struct ctl_client *c, char *line)
{
	char err[CTL_ERR_LEN + 64], *text = NULL;
	size_t text_len = 0;
	FILE *out;
	bool ok;
	int rc;

	out = open_memstream(&text, &text_len);
	if (!out)
		return false;
	rc = ctl_exec(sw, line, out, err, sizeof(err));
	if (rc)
		fprintf(out, "error: %s\n", err);
	else
		fputs("ok\n", out);
	fclose(out);
	ok = client_append(c, text, text_len);
	free(text);
	return ok;
}

/* Answer every complete line; false if the client is to be dropped. */
static bool client_lines(struct sw *sw, struct ctl_client *c)
{
	char *nl;

	while ((nl = memchr(c->in, '\n', c->in_len))) {
		size_t used = (size_t)(nl - c->in) + 1;

		*nl = '\0';
		if (!client_answer(sw, c, c->in))
			return false;
		memmove(c->in, c->in + used, c->in_len - used);
		c->in_len -= used;
	}
	if (c->in_len == sizeof(c->in)) {
		static const char msg[] = "error: request longer than 4095 bytes\n";

		c->in_len = 0;
		c->eof = true;
		return client_append(c, msg, sizeof(msg) - 1);
	}
	/* The last request may come without its newline. */
	if (c->eof && c->in_len) {
		c->in[c->in_len] = '\0';
		c->in_len = 0;
		return client_answer(sw, c, c->in);
	}
	return true;
}

static void client_pollout(struct sw *sw, struct ctl_client *c,
			   unsigned int k, bool on)
{
	struct epoll_event ev = {
		.events = EPOLLIN | (on ? EPOLLOUT : 0),
		.data.u32 = SW_TAG_CTL_CLIENT(k),
	};

	if (c->pollout != on &&
	    epoll_ctl(sw->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->pollout = on;
}

/* Send what the socket takes; close once done if the client is. */
static void client_flush(struct sw *sw, struct ctl_client *c, unsigned int k)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			c->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			client_pollout(sw, c, k, true);
			return;
		}
		client_close(c);
		return;
	}
	client_pollout(sw, c, k, false);
	if (c->eof)
		client_close(c);
}

static void client_read(struct sw *sw, struct ctl_client *c, unsigned int k)
{
	while (!c->eof) {
		ssize_t n = recv(c->fd, c->in + c->in_len,
				 sizeof(c->in) - c->in_len, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			c->eof = true;
		else
			c->in_len += (size_t)n;
		if (!client_lines(sw, c)) {
			client_close(c);
			return;
		}
	}
	client_flush(sw, c, k);
}

static void ctl_accept(struct sw *sw, struct sw_ctl *ctl)
{
	static const char busy[] = "error: too many control clients\n";
	int fd;

	while ((fd = accept4(ctl->fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct epoll_event ev = { .events = EPOLLIN };
		unsigned int k;

		for (k = 0; k < SW_CTL_MAX_CLIENTS; k++)
			if (ctl->cl[k].fd < 0)
				break;
		if (k == SW_CTL_MAX_CLIENTS) {
			if (send(fd, busy, sizeof(busy) - 1,
				 MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
				/* Nothing more to tell it. */
			}
			close(fd);
			continue;
		}
		ev.data.u32 = SW_TAG_CTL_CLIENT(k);
		if (epoll_ctl(sw->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			continue;
		}
		ctl->cl[k].fd = fd;
	}
}

void ctl_event(struct sw *sw, uint32_t tag, uint32_t events)
{
	struct sw_ctl *ctl = sw->ctl;
	struct ctl_client *c;
	unsigned int k;

	if (!ctl)
		return;
	if (tag == SW_TAG_CTL) {
		ctl_accept(sw, ctl);
		return;
	}
	k = tag - SW_TAG_CTL_CLIENT(0);
	if (k >= SW_CTL_MAX_CLIENTS || ctl->cl[k].fd < 0)
		return;
	c = &ctl->cl[k];
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		client_read(sw, c, k);
	else if (events & EPOLLOUT)
		client_flush(sw, c, k);
}
