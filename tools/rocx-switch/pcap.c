// SPDX-License-Identifier: GPL-2.0
/*
 * Capture of forwarded frames in the classic pcap format (LINKTYPE_ETHERNET,
 * microsecond timestamps, host byte order as the magic number tells readers).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

static void pcap_fail(struct sw_pcap *pc)
{
	fprintf(stderr, "rocx-switch: pcap %s: %s; capture stopped\n",
		pc->path, strerror(errno));
	fclose(pc->f);
	pc->f = NULL;
}

int pcap_open(struct sw_pcap *pc, const char *path)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC_USEC,
		.version_major = 2,
		.version_minor = 4,
		.snaplen = SW_MAX_FRAME,
		.linktype = PCAP_LINKTYPE_ETHERNET,
	};

	pc->path = path;
	pc->records = 0;
	pc->dirty = false;
	pc->f = fopen(path, "wb");
	if (!pc->f)
		return -1;
	setvbuf(pc->f, pcap_iobuf, _IOFBF, sizeof(pcap_iobuf));
	if (fwrite(&h, sizeof(h), 1, pc->f) != 1 || fflush(pc->f)) {
		pcap_fail(pc);
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

void pcap_close(struct sw_pcap *pc)
{
	if (!pc->f)
		return;
	pcap_flush(pc);
	if (pc->f && fclose(pc->f))
		fprintf(stderr, "rocx-switch: pcap %s: %s\n", pc->path,
			strerror(errno));
	pc->f = NULL;
}
