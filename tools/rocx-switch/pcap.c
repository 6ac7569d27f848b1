// SPDX-License-Identifier: GPL-2.0
/*
 * The pcap writer of every capture: the whole switch's (--pcap) and a
 * port's (capture.c).  The classic pcap format (LINKTYPE_ETHERNET,
 * microsecond timestamps, host byte order as the magic number tells
 * readers).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "switch.h"

#define PCAP_MAGIC_USEC		0xa1b2c3d4u
#define PCAP_LINKTYPE_ETHERNET	1

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t version_major;
	uint16_t version_minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

struct pcap_rec_hdr {
	uint32_t ts_sec;
	uint32_t ts_usec;
	uint32_t incl_len;
	uint32_t orig_len;
};

_Static_assert(sizeof(struct pcap_file_hdr) == 24, "pcap file header");
_Static_assert(sizeof(struct pcap_rec_hdr) == 16, "pcap record header");

/* Large enough that a burst of jumbo frames costs one write(). */
static char pcap_iobuf[1 << 20];
/* A port's capture: a burst of a port's frames, a few per capture. */
#define PCAP_PORT_IOBUF		(64u << 10)

/* The file failed: it is closed, and the capture ends with its error. */
static void pcap_fail(struct sw_pcap *pc)
{
	pc->err = errno;
	pc->errors++;
	fprintf(stderr, "rocx-switch: pcap %s: %s; capture stopped\n",
		pc->path, strerror(pc->err));
	fclose(pc->f);
	pc->f = NULL;
}

/* The file header, written through at once: a reader sees a pcap file. */
static int pcap_start(struct sw_pcap *pc, const char *path)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC_USEC,
		.version_major = 2,
		.version_minor = 4,
		.snaplen = SW_MAX_FRAME,
		.linktype = PCAP_LINKTYPE_ETHERNET,
	};
	struct stat st;

	pc->path = path;
	pc->records = 0;
	pc->bytes = 0;
	pc->errors = 0;
	pc->err = 0;
	pc->dirty = false;
	if (!fstat(fileno(pc->f), &st)) {
		pc->dev = st.st_dev;
		pc->ino = st.st_ino;
	}
	if (fwrite(&h, sizeof(h), 1, pc->f) != 1 || fflush(pc->f)) {
		pcap_fail(pc);
		return -1;
	}
	return 0;
}

int pcap_open(struct sw_pcap *pc, const char *path)
{
	pc->f = fopen(path, "wb");
	if (!pc->f)
		return -1;
	setvbuf(pc->f, pcap_iobuf, _IOFBF, sizeof(pcap_iobuf));
	return pcap_start(pc, path);
}

int pcap_open_regular(struct sw_pcap *pc, const char *path)
{
	struct stat st;
	int fd, e;

	/*
	 * Only a regular file: opening a FIFO would wait for its reader,
	 * and a reader that stops reading would stall forwarding, as a
	 * device might.  O_NONBLOCK makes a FIFO without a reader fail at
	 * once rather than block before fstat() can refuse it.
	 */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOCTTY |
		  O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else
		e = fcntl(fd, F_SETFL, 0) ? errno : 0;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	pc->iobuf = malloc(PCAP_PORT_IOBUF);
	pc->f = pc->iobuf ? fdopen(fd, "wb") : NULL;
	if (!pc->f) {
		e = pc->iobuf ? errno : ENOMEM;
		free(pc->iobuf);
		pc->iobuf = NULL;
		close(fd);
		errno = e;
		return -1;
	}
	setvbuf(pc->f, pc->iobuf, _IOFBF, PCAP_PORT_IOBUF);
	if (pcap_start(pc, path)) {
		e = errno;
		free(pc->iobuf);
		pc->iobuf = NULL;
		errno = e;
		return -1;
	}
	return 0;
}

void pcap_write(struct sw_pcap *pc, const struct sw_buf *buf,
		const struct timespec *ts)
{
	struct pcap_rec_hdr r = {
		.ts_sec = (uint32_t)ts->tv_sec,
		.ts_usec = (uint32_t)(ts->tv_nsec / 1000),
		.incl_len = buf->len,
		.orig_len = buf->len,
	};

	if (!pc->f)
		return;
	if (fwrite(&r, sizeof(r), 1, pc->f) != 1 ||
	    fwrite(buf->data, buf->len, 1, pc->f) != 1) {
		pcap_fail(pc);
		return;
	}
	pc->records++;
	pc->bytes += buf->len;
	pc->dirty = true;
}

void pcap_flush(struct sw_pcap *pc)
{
	if (!pc->f || !pc->dirty)
		return;
	if (fflush(pc->f)) {
		pcap_fail(pc);
		return;
	}
	pc->dirty = false;
}

int pcap_close(struct sw_pcap *pc)
{
	int rc = 0;

	if (pc->f) {
		pcap_flush(pc);
		if (pc->f && fclose(pc->f)) {
			pc->err = errno;
			pc->errors++;
			fprintf(stderr, "rocx-switch: pcap %s: %s\n", pc->path,
				strerror(pc->err));
		}
		pc->f = NULL;
	}
	if (pc->errors)
		rc = -1;
	free(pc->iobuf);
	pc->iobuf = NULL;
	return rc;
}
