// SPDX-License-Identifier: GPL-2.0
/*
 * The per-frame pipeline: count, port capture -> ingress impairments ->
 * parse -> learn -> lookup -> capture -> egress.
 */
#include <string.h>

#include "switch.h"

#define ETH_P_IPV4	0x0800
#define ETH_P_IPV6	0x86dd
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88a8

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool mac_is_multicast(const uint8_t *mac)
{
	/* Broadcast is a multicast address too. */
	return mac[0] & 1;
}

static bool mac_is_zero(const uint8_t *mac)
{
	return !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]);
}

/*
 * Traffic class: the outer VLAN tag's PCP when the frame has one, else the
 * top three bits of the IP DSCP (so RoCE's customary DSCP 26 lands in class
 * 3), else 0.  Frames too short for the field they claim fall to class 0.
 */
void frame_parse(const uint8_t *data, uint32_t len, struct sw_frame_info *fi)
{
	uint32_t off = 12;
	bool tagged = false;
	int tags;

	fi->dst = data;
	fi->src = data + 6;
	fi->vid = 0;
	fi->tc = 0;
	fi->tagged = false;
	fi->pcp = 0;
	fi->dscp = -1;
	fi->ethertype = get_be16(data + off);

	for (tags = 0; tags < 2; tags++) {
		if (fi->ethertype != ETH_P_8021Q && fi->ethertype != ETH_P_8021AD)
			break;
		if (len < off + 6)
			return;
		if (!tagged) {
			uint16_t tci = get_be16(data + off + 2);

			fi->vid = tci & 0xfff;
			fi->tc = tci >> 13;
			fi->pcp = fi->tc;
			fi->tagged = true;
			tagged = true;
		}
		off += 4;
		fi->ethertype = get_be16(data + off);
	}
	off += 2;
	if (fi->ethertype == ETH_P_IPV4 && len >= off + 2 &&
	    (data[off] >> 4) == 4)
		fi->dscp = data[off + 1] >> 2;
	else if (fi->ethertype == ETH_P_IPV6 && len >= off + 2 &&
		 (data[off] >> 4) == 6)
		fi->dscp = ((data[off] & 0x0f) << 2) | data[off + 1] >> 6;
	if (!tagged && fi->dscp >= 0)
		fi->tc = fi->dscp >> 3;
}

void pipeline_input(struct sw *sw, struct sw_port *in, struct sw_buf *buf)
{
	in->st.rx_frames++;
	in->st.rx_bytes += buf->len;
	/* As received, whatever the pipeline then does with it (capture.c). */
	if (in->cap)
		capture_frame(sw, in, buf);
	if (buf->len < SW_ETH_HLEN) {
		in->st.rx_runt++;
		pool_put(&sw->pool, buf);
		return;
	}

	buf->in_port = in->idx;
	if (in->imp[SW_DIR_INGRESS].active) {
		impair_ingress(sw, in, buf);
		return;
	}
	pipeline_forward(sw, in, buf);
}

void pipeline_forward(struct sw *sw, struct sw_port *in, struct sw_buf *buf)
{
	struct sw_port *out[SW_MAX_PORTS];
	struct sw_frame_info fi;
	unsigned int n = 0, i;
	int dport;

	/* parse, classify; MAC control frames end at a port that takes them */
	frame_parse(buf->data, buf->len, &fi);
	buf->tc = qos_classify(in, &fi);
	if (pfc_is_mac_ctl(&fi) && pfc_input(sw, in, buf))
		return;

	/* learn: a multicast or zero source is bogus, never learn it */
	if (!mac_is_multicast(fi.src) && !mac_is_zero(fi.src))
		fdb_learn(sw->fdb, fi.src, fi.vid, in->idx, sw->now_ms);

	/* lookup */
	dport = mac_is_multicast(fi.dst) ? -1 :
		fdb_lookup(sw->fdb, fi.dst, fi.vid, sw->now_ms);
	if (dport == (int)in->idx) {
		in->st.rx_filtered++;
		pool_put(&sw->pool, buf);
		return;
	}
	if (dport >= 0) {
		out[n++] = &sw->port[dport];
	} else {
		for (i = 0; i < sw->nports; i++)
			if (i != in->idx)
				out[n++] = &sw->port[i];
	}
	if (!n) {
		pool_put(&sw->pool, buf);
		return;
	}
	/* The shared buffer: a charge to the ingress port, or a drop. */
	if (!qos_admit(sw, in, buf)) {
		pool_put(&sw->pool, buf);
		return;
	}

	pcap_write(&sw->pcap, buf, &sw->now_rt);

	/* egress: every queue holds a reference until it sends or drops */
	buf->refs = n;
	for (i = 0; i < n; i++)
		egress_enqueue(sw, out[i], buf);
}
