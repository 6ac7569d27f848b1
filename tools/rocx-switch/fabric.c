// SPDX-License-Identifier: GPL-2.0
/*
 * Fabric frames between the switch and rocx NICs.
 *
 * A datagram per frame costs a system call and a wakeup at both ends of
 * every hop, which is most of what moving a RoCE packet through QEMU and
 * the switch costs.  A rocx NIC therefore offers, with a HELLO frame, to
 * exchange bundles: several frames in one datagram.  The switch answers
 * HELLO_ACK and from then on packs what it has queued for that port into
 * bundles; it splits every bundle it receives at once, so the pipeline,
 * the MAC table, the egress queues, the counters and the capture all see
 * single frames, and no other port ever sees a bundle.  The format is in
 * switch.h and Documentation/qemu-rocx.rst.
 */
#include <string.h>
#include <sys/socket.h>

#include "switch.h"

/* The 802.1 nearest-bridge group address: bridges never forward it. */
static const uint8_t fab_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };
/* Locally administered source address of the switch's own frames. */
static const uint8_t fab_src[6] = { 0x02, 0x72, 0x6f, 0x63, 0x78, 0x00 };
static const uint8_t fab_magic[4] = { 'R', 'X', 'F', '1' };

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}

/* Ethernet header and fabric header: type, count, max datagram. */
static void fab_header(uint8_t *out, uint8_t type, uint16_t count,
		       uint32_t max)
{
	memcpy(out, fab_dst, 6);
	memcpy(out + 6, fab_src, 6);
	put_be16(out + 12, SW_FAB_ETHERTYPE);
	memcpy(out + 14, fab_magic, 4);
	out[18] = type;
	out[19] = 0;
	put_be16(out + 20, count);
	put_be32(out + 22, max);
}

bool fabric_is_ctrl(const uint8_t *data, uint32_t len)
{
	return len >= SW_FAB_HLEN && !memcmp(data, fab_dst, 6) &&
	       get_be16(data + 12) == SW_FAB_ETHERTYPE &&
	       !memcmp(data + 14, fab_magic, 4);
}

static void fabric_hello(struct sw *sw, struct sw_port *p, uint32_t max)
{
	uint8_t ack[SW_FAB_MIN_LEN] = { 0 };

	/* The guest must take at least one bundle of two full frames. */
	if (max < SW_FAB_HLEN + 2 * (2 + SW_MAX_FRAME)) {
		p->st.rx_fab_err++;
		return;
	}
	p->bundle = true;
	p->bundle_max = max < SW_BUNDLE_MAX ? max : SW_BUNDLE_MAX;
	/* Its socket exists: it just sent from it. */
	port_try_connect(sw, p, true);
	fab_header(ack, SW_FAB_HELLO_ACK, 0, SW_BUNDLE_MAX);
	/* Lost (socket full)?  The guest says HELLO again. */
	if (send(p->fd, ack, sizeof(ack), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		p->st.tx_err++;
}

void fabric_input(struct sw *sw, struct sw_port *p, const uint8_t *data,
		  uint32_t len)
{
	uint16_t count = get_be16(data + 20);
	uint32_t off = SW_FAB_HLEN;

	switch (data[18]) {
	case SW_FAB_HELLO:
		fabric_hello(sw, p, get_be32(data + 22));
		return;
	case SW_FAB_BUNDLE:
		break;
	default:
		/* HELLO_ACK is the switch's to send; anything else is junk. */
		p->st.rx_fab_err++;
		return;
	}
	p->st.rx_bundles++;
	while (count--) {
		uint16_t flen;

		if (len - off < 2) {
			p->st.rx_fab_err++;
			return;
		}
		flen = get_be16(data + off);
		off += 2;
		if (flen > len - off) {
			p->st.rx_fab_err++;
			return;
		}
		port_input(sw, p, data + off, flen);
		off += flen;
	}
	if (off != len)
		p->st.rx_fab_err++;
}

unsigned int fabric_pack(uint8_t *out, uint32_t max, struct sw_buf **bufs,
			 unsigned int n, uint32_t *len)
{
	uint32_t off = SW_FAB_HLEN;
	unsigned int i;

	for (i = 0; i < n && off + 2 + bufs[i]->len <= max; i++) {
		put_be16(out + off, bufs[i]->len);
		memcpy(out + off + 2, bufs[i]->data, bufs[i]->len);
		off += 2 + bufs[i]->len;
	}
	fab_header(out, SW_FAB_BUNDLE, i, SW_BUNDLE_MAX);
	*len = off;
	return i;
}
