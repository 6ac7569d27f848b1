// SPDX-License-Identifier: GPL-2.0
/*
 * Lossless fabric, RED/ECN marking at the egress queue (see qos.h).
 *
 * A frame joining priority p's queue of a port with kmax set sees the
 * queue's instantaneous depth q in bytes (what waits ahead of it, as the
 * DCQCN switches mark, not an average):
 *
 *   q <  kmin:         p = 0
 *   kmin <= q < kmax:  p = pmax * (q - kmin) / (kmax - kmin)
 *   q >= kmax:         p = 1
 *
 * With probability p an ECN-capable IP frame (ECT(0) or ECT(1)) leaves
 * marked CE (the IPv4 header checksum fixed; the RoCE ICRC covers the
 * ECN bits masked, so it stays right); a frame already CE is left so; a
 * frame that is not ECN capable is dropped on a lossy priority and sent
 * unmarked on a lossless one.  A flooded frame's copies share one buffer,
 * so they are neither marked nor dropped here.
 */
#include "switch.h"

#define ETH_P_IPV4	0x0800
#define ETH_P_IPV6	0x86dd
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88a8

double red_prob(uint64_t q, uint32_t kmin, uint32_t kmax, double pmax)
{
	if (q < kmin)
		return 0;
	if (q >= kmax)
		return 1;
	return pmax * (double)(q - kmin) / (double)(kmax - kmin);
}

/*
 * splitmix64 from the switch's seed: one stream for the whole switch, or
 * in timed mode one per port and priority, so that a change of one
 * queue's traffic moves no other queue's draws.
 */
static double red_uniform(struct sw *sw, struct sw_port *p, unsigned int prio)
{
	uint64_t *st = sw->timed ? &p->red_rng[prio] : &sw->qos_rng;
	uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ULL << 53);
}

/* Offset of the IP header and its version (4, 6), or 0 when not IP. */
static unsigned int ip_offset(const struct sw_buf *buf, int *ver)
{
	const uint8_t *d = buf->data;
	unsigned int off = 12;
	uint16_t et = (uint16_t)(d[12] << 8 | d[13]);
	int tags;

	for (tags = 0; tags < 2 && (et == ETH_P_8021Q || et == ETH_P_8021AD);
	     tags++) {
		off += 4;
		if (buf->len < off + 2)
			return 0;
		et = (uint16_t)(d[off] << 8 | d[off + 1]);
	}
	off += 2;
	if (et == ETH_P_IPV4 && buf->len >= off + 20 && d[off] >> 4 == 4 &&
	    (d[off] & 0xf) >= 5 && buf->len >= off + (d[off] & 0xfu) * 4) {
		*ver = 4;
		return off;
	}
	if (et == ETH_P_IPV6 && buf->len >= off + 40 && d[off] >> 4 == 6) {
		*ver = 6;
		return off;
	}
	return 0;
}

static unsigned int ecn_of(const uint8_t *ip, int ver)
{
	return ver == 4 ? ip[1] & 3 : (ip[1] >> 4) & 3;
}

static void set_ce(uint8_t *ip, int ver)
{
	uint32_t sum = 0;
	unsigned int i, hlen;

	if (ver == 6) {
		ip[1] |= 0x30;
		return;
	}
	ip[1] |= 3;
	hlen = (ip[0] & 0xfu) * 4;
	ip[10] = 0;
	ip[11] = 0;
	for (i = 0; i < hlen; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	ip[10] = (uint8_t)(sum >> 8);
	ip[11] = (uint8_t)sum;
}

bool red_enqueue(struct sw *sw, struct sw_port *p, struct sw_buf *buf)
{
	struct sw_qos_port *q = &p->qos;
	unsigned int prio = buf->tc;
	const struct sw_prio_cfg *c = &q->prio[prio];
	double pr = red_prob(q->q_bytes[prio], c->kmin, c->kmax, c->pmax);
	unsigned int off, ecn;
	int ver = 0;

	if (pr <= 0 || buf->refs > 1)
		return true;
	if (pr < 1 && red_uniform(sw, p, prio) >= pr)
		return true;
	off = ip_offset(buf, &ver);
	ecn = off ? ecn_of(buf->data + off, ver) : 0;
	if (ecn == 3)
		return true;
	if (ecn) {
		set_ce(buf->data + off, ver);
		q->st[prio].marked++;
		return true;
	}
	/* Not ECN capable: a lossy priority drops it, a lossless one cannot. */
	return c->pfc;
}
