// SPDX-License-Identifier: GPL-2.0
/*
 * Captures of one port each, started and stopped while the switch runs
 * (the control socket's capture verb), as tcpdump on a switch's mirror
 * port: a pcap file of the frames the port's guest sent to the switch and
 * of those the switch sent to it.
 *
 * A received frame is captured as it enters the pipeline
 * (pipeline_input()), before the ingress impairments, parsing and the
 * forwarding decision, so a frame the switch later drops (lost to an
 * impairment, filtered, refused by the shared buffer, tail-dropped at
 * another port) is in the file, a runt too; a frame too long for a
 * buffer, or one that found the pool empty, is not.  A sent frame is
 * captured as the port's socket or channel takes it (port_count_tx()),
 * after the egress impairments and the class queues: only frames the
 * guest was given are in the file, a duplicated one twice, a corrupted
 * one as corrupted, and the switch's own PFC frames to the port too; a
 * frame dropped at egress is not.  Timestamps are the wakeup's clock
 * (the virtual clock in timed mode), as the whole-switch --pcap's.
 *
 * A capture whose file fails (a full disk, a file size limit) closes it,
 * says so on stderr and skips every later frame; it stays listed, with
 * its error, until stopped.  Its frames and bytes count records handed
 * to the file's buffer, so the last burst before a failure may be
 * missing from the file.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "switch.h"

void capture_frame(struct sw *sw, struct sw_port *p, const struct sw_buf *buf)
{
	pcap_write(&p->cap->pc, buf, &sw->now_rt);
}

void capture_flush(struct sw *sw)
{
	unsigned int i;

	for (i = 0; i < SW_MAX_CAPTURES; i++)
		if (sw->cap[i].used)
			pcap_flush(&sw->cap[i].pc);
}

static void capture_print(const struct sw_capture *c, FILE *out)
{
	fprintf(out, "port=%u file=%s state=%s frames=%llu bytes=%llu errors=%llu",
		c->port, c->path,
		c->pc.errors ? "failed" : c->pc.f ? "running" : "stopped",
		(unsigned long long)c->pc.records,
		(unsigned long long)c->pc.bytes,
		(unsigned long long)c->pc.errors);
	/* Last: the reason is several words. */
	if (c->pc.err)
		fprintf(out, " why=%s", strerror(c->pc.err));
	fputc('\n', out);
}

static void capture_end(struct sw *sw, struct sw_capture *c)
{
	pcap_close(&c->pc);
	sw->port[c->port].cap = NULL;
	c->used = false;
}

void capture_close_all(struct sw *sw)
{
	unsigned int i;

	for (i = 0; i < SW_MAX_CAPTURES; i++)
		if (sw->cap[i].used)
			capture_end(sw, &sw->cap[i]);
}

/* The file is one a capture (or --pcap) writes already. */
static bool capture_file_busy(const struct sw *sw, const struct stat *st)
{
	unsigned int i;

	if (sw->pcap.f && sw->pcap.dev == st->st_dev &&
	    sw->pcap.ino == st->st_ino)
		return true;
	for (i = 0; i < SW_MAX_CAPTURES; i++)
		if (sw->cap[i].used && sw->cap[i].pc.f &&
		    sw->cap[i].pc.dev == st->st_dev &&
		    sw->cap[i].pc.ino == st->st_ino)
			return true;
	return false;
}

static int capture_start(struct sw *sw, struct ctl_args *a, unsigned int port,
			 const char *file, FILE *out)
{
	struct sw_capture *c = NULL;
	struct stat st;
	unsigned int i;

	if (sw->port[port].cap)
		return ctl_err(a, "capture: port %u is captured already, to %.200s",
			       port, sw->port[port].cap->path);
	/* A relative path would be the switch's, not the caller's: refused. */
	if (file[0] != '/')
		return ctl_err(a, "capture: file=%.200s: give an absolute path",
			       file);
	if (strlen(file) >= sizeof(c->path))
		return ctl_err(a, "capture: file=%.64s...: path too long", file);
	for (i = 0; i < SW_MAX_CAPTURES && !c; i++)
		if (!sw->cap[i].used)
			c = &sw->cap[i];
	if (!c)
		return ctl_err(a, "capture: %d captures run already; stop one first",
			       SW_MAX_CAPTURES);
	if (!stat(file, &st)) {
		if (!S_ISREG(st.st_mode))
			return ctl_err(a, "capture: %.200s: not a regular file",
				       file);
		if (capture_file_busy(sw, &st))
			return ctl_err(a, "capture: %.200s: another capture writes it",
				       file);
	}
	memset(c, 0, sizeof(*c));
	memcpy(c->path, file, strlen(file) + 1);
	if (pcap_open_regular(&c->pc, c->path))
		return ctl_err(a, "capture: %.180s: %s", file,
			       errno == EINVAL ? "not a regular file" :
			       strerror(errno));
	c->used = true;
	c->port = port;
	sw->port[port].cap = c;
	capture_print(c, out);
	return 0;
}

int capture_cmd(struct sw *sw, struct ctl_args *a, FILE *out)
{
	bool stop = ctl_flag(a, "stop"), list = ctl_flag(a, "list");
	const char *file = ctl_take(a, "file");
	unsigned int i, port = 0, nsel = 0;
	struct sw_capture *c;
	bool given = false;
	uint64_t ports;

	for (i = 0; i < a->n; i++)
		given |= a->val[i] && !strcmp(a->key[i], "port");
	if (ctl_ports(sw, a, false, &ports) || ctl_check_unused(a))
		return -1;
	for (i = 0; i < sw->nports; i++)
		if (ports >> i & 1) {
			port = i;
			nsel++;
		}
	if (stop + list + !!file > 1)
		return ctl_err(a, "capture: give one of file=PATH, stop and list");
	if (!stop && !file) {
		/* The list: every capture, or those of the ports given. */
		for (i = 0; i < SW_MAX_CAPTURES; i++)
			if (sw->cap[i].used && ports >> sw->cap[i].port & 1)
				capture_print(&sw->cap[i], out);
		return 0;
	}
	if (!given)
		return ctl_err(a, "capture: give port=N");
	if (nsel != 1)
		return ctl_err(a, "capture: one port at a time");
	if (file)
		return capture_start(sw, a, port, file, out);
	c = sw->port[port].cap;
	if (!c)
		return ctl_err(a, "capture: port %u has no capture to stop", port);
	/* Its last counters, after the last flush, and why it failed. */
	pcap_close(&c->pc);
	capture_print(c, out);
	capture_end(sw, c);
	return 0;
}
