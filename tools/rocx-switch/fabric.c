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
 * single frames, and no other port ever sees a bundle.  The format is the
 * device contract's: include/rocx/rocx_fabric.h, and
 * Documentation/rocx-device.rst, "Fabric bundles".
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "switch.h"

static const uint8_t fab_dst[6] = ROCX_FAB_DST_MAC;

/* The frame's fabric header (unaligned in it) in host order. */
struct fab_info {
	uint8_t type;
	uint16_t count;
	uint32_t max_len;
};

static void fab_parse(const uint8_t *data, struct fab_info *fi)
{
	struct rocx_fab_hdr h;

	memcpy(&h, data + ROCX_FAB_ETH_HLEN, sizeof(h));
	fi->type = h.type;
	fi->count = ntohs(h.count);
	fi->max_len = ntohl(h.max_len);
}

void fabric_header(uint8_t *out, uint8_t type, uint8_t flags, uint16_t count,
		   uint32_t max_len)
{
	const struct rocx_fab_eth eth = {
		.dst = ROCX_FAB_DST_MAC,
		.src = ROCX_FAB_SWITCH_MAC,
		.ethertype = htons(ROCX_FAB_ETHERTYPE),
	};
	const struct rocx_fab_hdr h = {
		.magic = htonl(ROCX_FAB_MAGIC),
		.type = type,
		.flags = flags,
		.count = htons(count),
		.max_len = htonl(max_len),
	};

	memcpy(out, &eth, sizeof(eth));
	memcpy(out + ROCX_FAB_ETH_HLEN, &h, sizeof(h));
}

static uint16_t entry_len(const uint8_t *p)
{
	__be16 len;

	memcpy(&len, p, sizeof(len));
	return ntohs(len);
}

static void entry_set_len(uint8_t *p, uint16_t len)
{
	__be16 be = htons(len);

	memcpy(p, &be, sizeof(be));
}

bool fabric_is_ctrl(const uint8_t *data, uint32_t len)
{
	struct rocx_fab_eth eth;
	struct rocx_fab_hdr h;

	if (len < ROCX_FAB_HLEN)
		return false;
	memcpy(&eth, data, sizeof(eth));
	memcpy(&h, data + ROCX_FAB_ETH_HLEN, sizeof(h));
	return !memcmp(eth.dst, fab_dst, sizeof(fab_dst)) &&
	       ntohs(eth.ethertype) == ROCX_FAB_ETHERTYPE &&
	       ntohl(h.magic) == ROCX_FAB_MAGIC;
}

static void fabric_hello(struct sw *sw, struct sw_port *p, uint32_t max)
{
	uint8_t ack[ROCX_FAB_CTRL_LEN] = { 0 };

	/* The guest must take at least one bundle of two full frames. */
	if (max < ROCX_FAB_MIN_MAX(SW_MAX_FRAME)) {
		p->st.rx_fab_err++;
		return;
	}
	p->bundle = true;
	p->bundle_max = max < ROCX_FAB_BUNDLE_MAX ? max : ROCX_FAB_BUNDLE_MAX;
	/* Its socket exists: it just sent from it. */
	port_try_connect(sw, p, true);
	fabric_header(ack, ROCX_FAB_HELLO_ACK, 0, 0, ROCX_FAB_BUNDLE_MAX);
	/* Lost (socket full)?  The guest says HELLO again. */
	if (send(p->fd, ack, sizeof(ack), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		p->st.tx_err++;
}

void fabric_input(struct sw *sw, struct sw_port *p, const uint8_t *data,
		  uint32_t len)
{
	uint32_t off = ROCX_FAB_HLEN;
	struct fab_info fi;

	fab_parse(data, &fi);
	switch (fi.type) {
	case ROCX_FAB_HELLO:
		fabric_hello(sw, p, fi.max_len);
		return;
	case ROCX_FAB_BUNDLE:
		break;
	default:
		/* HELLO_ACK is the switch's to send; anything else is junk. */
		p->st.rx_fab_err++;
		return;
	}
	p->st.rx_bundles++;
	while (fi.count--) {
		uint16_t flen;

		if (len - off < ROCX_FAB_ENTRY_HLEN) {
			p->st.rx_fab_err++;
			return;
		}
		flen = entry_len(data + off);
		off += ROCX_FAB_ENTRY_HLEN;
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
	uint32_t off = ROCX_FAB_HLEN;
	unsigned int i;

	for (i = 0; i < n &&
	     off + ROCX_FAB_ENTRY_HLEN + bufs[i]->len <= max; i++) {
		entry_set_len(out + off, bufs[i]->len);
		memcpy(out + off + ROCX_FAB_ENTRY_HLEN, bufs[i]->data,
		       bufs[i]->len);
		off += ROCX_FAB_ENTRY_HLEN + bufs[i]->len;
	}
	fabric_header(out, ROCX_FAB_BUNDLE, 0, (uint16_t)i, ROCX_FAB_BUNDLE_MAX);
	*len = off;
	return i;
}
