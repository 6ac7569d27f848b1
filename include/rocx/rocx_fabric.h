/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx device contract: fabric bundles, several Ethernet frames in one
 * datagram between a rocx NIC and rocx-switch.
 *
 * Documentation/rocx-device.rst ("Fabric bundles") is the normative text;
 * this header encodes it.  The driver never sees these frames: they exist
 * only on the link, so unlike the rest of the contract (host memory, little
 * endian) every multi-byte field here is big endian, as in the Ethernet
 * header that carries them.
 *
 * A fabric frame is struct rocx_fab_eth, then struct rocx_fab_hdr; a BUNDLE
 * then holds count entries, each a struct rocx_fab_entry and its frame.
 * The header starts at byte 14 of the frame, so its 32-bit fields are not
 * aligned there: access them byte-wise at the ROCX_FAB_OFF_* offsets.
 *
 * The same format runs over the fabric channel ("Fabric channel"), a
 * SOCK_SEQPACKET connection the NIC opens to the switch: there every
 * record is one fabric frame, SYNC and BYE are added, and a record with
 * ROCX_FAB_F_TIMED carries struct rocx_fab_timed after its header, with
 * struct rocx_fab_tentry entries ("Timed mode").
 * Tests written in Python parse this file for their constants.
 */
#ifndef _ROCX_FABRIC_H_
#define _ROCX_FABRIC_H_

#include "rocx_bits.h"

#ifdef __KERNEL__
#include <linux/stddef.h>
#else
#include <stddef.h>
#endif

/* The 802.1 nearest-bridge group address: no bridge forwards it. */
#define ROCX_FAB_DST_MAC	{ 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e }
/* Source of rocx-switch's own fabric frames (locally administered). */
#define ROCX_FAB_SWITCH_MAC	{ 0x02, 0x72, 0x6f, 0x63, 0x78, 0x00 }
/* IEEE 802 local experimental EtherType 2. */
#define ROCX_FAB_ETHERTYPE	0x88b6
/* "RXF1": the 1 is the format's version; another value is not ours. */
#define ROCX_FAB_MAGIC		0x52584631

enum rocx_fab_type {
	ROCX_FAB_HELLO		= 1,	/* NIC: I take bundles up to max_len */
	ROCX_FAB_HELLO_ACK	= 2,	/* switch: so do I; bundles from now */
	ROCX_FAB_BUNDLE		= 3,	/* count entries follow the header */
	ROCX_FAB_SYNC		= 4,	/* channel, timed: a promise of time */
	ROCX_FAB_BYE		= 5,	/* channel: the sender leaves */
	/* Untimed channel with rings: "Direct rings" */
	ROCX_FAB_DIRECT		= 6,	/* switch, socket: the peer's ring */
	ROCX_FAB_DIRECT_ACK	= 7,	/* NIC: through you up to here */
	ROCX_FAB_DIRECT_GO	= 8,	/* switch: the peer's ring 1 is yours */
	ROCX_FAB_DIRECT_END	= 9,	/* switch: stop writing to the peer */
	ROCX_FAB_DIRECT_END_ACK	= 10,	/* NIC: through you from here */
};

/* flags: 0 on a dgram link; bits 3-7 sent as 0 and ignored everywhere. */
#define ROCX_FAB_F_TIMED	ROCX_BIT(0)	/* struct rocx_fab_timed follows */
#define ROCX_FAB_F_REFUSED	ROCX_BIT(1)	/* HELLO_ACK: the port is refused */
#define ROCX_FAB_F_RINGS	ROCX_BIT(2)	/* channel: shared-memory rings */

/*
 * Line time a frame takes beyond its bytes as carried (no FCS is): the
 * preamble, start of frame delimiter and inter-frame gap.  A NIC's line
 * clock and a timed switch port count it alike, so that equal rates
 * mean equal frame rates.
 */
#define ROCX_WIRE_GAP		20

/* Frame offsets of the fields below; the asserts at the bottom bind them. */
#define ROCX_FAB_ETH_HLEN	14
#define ROCX_FAB_OFF_DST	0
#define ROCX_FAB_OFF_SRC	6
#define ROCX_FAB_OFF_ETHERTYPE	12
#define ROCX_FAB_OFF_MAGIC	14
#define ROCX_FAB_OFF_TYPE	18
#define ROCX_FAB_OFF_FLAGS	19
#define ROCX_FAB_OFF_COUNT	20
#define ROCX_FAB_OFF_MAX_LEN	22
/* Ethernet and fabric headers: where a BUNDLE's first entry starts. */
#define ROCX_FAB_HLEN		26
#define ROCX_FAB_ENTRY_HLEN	2

/* HELLO and HELLO_ACK: the headers, zero-padded to Ethernet's minimum. */
#define ROCX_FAB_CTRL_LEN	60
/*
 * The max_len both the model and rocx-switch advertise, and the largest
 * datagram either builds or takes.
 */
#define ROCX_FAB_BUNDLE_MAX	65536
/*
 * The least max_len a receiver whose largest frame is max_frame bytes
 * accepts in HELLO or HELLO_ACK: one bundle of two such frames.
 */
#define ROCX_FAB_MIN_MAX(max_frame) \
	(ROCX_FAB_HLEN + 2 * (ROCX_FAB_ENTRY_HLEN + (max_frame)))
/* A NIC says HELLO at link-up, then again a second apart, 3 in all. */
#define ROCX_FAB_HELLO_TRIES	3
#define ROCX_FAB_HELLO_INTERVAL_MS	1000

/*
 * Channel only.  A NIC that is neither answered nor refused within
 * ROCX_FAB_JOIN_MS of wall time fails to start; a timed wait that receives
 * nothing for ROCX_FAB_STALL_MS of wall time fails the run.
 */
#define ROCX_FAB_JOIN_MS	10000
#define ROCX_FAB_STALL_MS	60000
/*
 * Channel only: the shared-memory rings ("Shared-memory rings").  HELLO
 * with ROCX_FAB_F_RINGS passes, in order, the memory, the switch's wake
 * eventfd and the NIC's.  The memory is a control page, then ring 0 (NIC
 * to switch), then ring 1 (switch to NIC), each ring_size bytes; the
 * control fields are 32-bit in the host's byte order at these offsets
 * (K: the ring, 0 or 1).  include/rocx/rocx_ring.h implements them.
 */
#define ROCX_RING_MAGIC		0x52585231	/* "RXR1" */
#define ROCX_RING_CTL_BYTES	4096
#define ROCX_RING_OFF_MAGIC	0
#define ROCX_RING_OFF_SIZE	4
#define ROCX_RING_OFF_HEAD(k)	(64 + 128 * (k))
#define ROCX_RING_OFF_PWAIT(k)	(68 + 128 * (k))
#define ROCX_RING_OFF_TAIL(k)	(128 + 128 * (k))
#define ROCX_RING_OFF_CWAIT(k)	(132 + 128 * (k))
#define ROCX_RING_MIN		(128 * 1024)
#define ROCX_RING_MAX		(64 * 1024 * 1024)
/* A record's length that says: the rest of the ring is unused. */
#define ROCX_RING_WRAP		0xffffffffu
#define ROCX_RING_ALIGN		8
#define ROCX_RING_NFDS		3
/* DIRECT passes the peer's ring memory and the peer NIC's wake eventfd. */
#define ROCX_RING_DIRECT_NFDS	2

/* A timed record's headers: where its first struct rocx_fab_tentry starts. */
#define ROCX_FAB_TIMED_HLEN	42
#define ROCX_FAB_TENTRY_HLEN	6
#define ROCX_FAB_OFF_TIME	26
#define ROCX_FAB_OFF_LATENCY	34
#define ROCX_FAB_OFF_IDLE	34

struct rocx_fab_eth {
	__u8 dst[6];		/* ROCX_FAB_DST_MAC */
	__u8 src[6];		/* the sender's MAC; switch: ROCX_FAB_SWITCH_MAC */
	__be16 ethertype;	/* [15:0] ROCX_FAB_ETHERTYPE */
};

struct rocx_fab_hdr {
	__be32 magic;		/* [31:0] ROCX_FAB_MAGIC */
	__u8 type;		/* [7:0] enum rocx_fab_type; others ignored */
	__u8 flags;		/* [7:0] 0 when sent, ignored when received */
	__be16 count;		/* [15:0] BUNDLE: entries that follow; else 0 */
	__be32 max_len;		/* [31:0] largest datagram the sender takes */
};

/* One frame of a BUNDLE: its length, then that many bytes, no padding. */
struct rocx_fab_entry {
	__be16 len;		/* [15:0] bytes of frame[] */
	__u8 frame[];
};

/*
 * After the header of a record with ROCX_FAB_F_TIMED.  A stamp is the
 * virtual instant a frame's last bit leaves its sender; the receiver
 * delivers it latency ns later.  Every record promises that nothing later
 * on its link is stamped before its last stamp (SYNC: before time).
 */
struct rocx_fab_timed {
	__be64 time;		/* [63:0] virtual ns: first stamp, or promise */
	/*
	 * [31:0] HELLO_ACK: the link's latency, ns.  In a SYNC, latency and
	 * rsvd together are one big-endian 64-bit value at ROCX_FAB_OFF_IDLE:
	 * 0, or the sender's idle bound, before which it stamps nothing
	 * unless a frame reaches it first.
	 */
	__be32 latency;
	__be32 rsvd;
};

/*
 * One frame of a timed BUNDLE.  offset is a big-endian 32-bit value kept
 * as bytes so that the entry stays 6 bytes without packing.
 */
struct rocx_fab_tentry {
	__u8 offset[4];		/* [31:0] stamp less rocx_fab_timed.time, ns */
	__be16 len;		/* [15:0] bytes of frame[] */
	__u8 frame[];
};

ROCX_ASSERT_SIZE(struct rocx_fab_eth, ROCX_FAB_ETH_HLEN);
ROCX_ASSERT_SIZE(struct rocx_fab_timed, ROCX_FAB_TIMED_HLEN - ROCX_FAB_HLEN);
ROCX_ASSERT_SIZE(struct rocx_fab_tentry, ROCX_FAB_TENTRY_HLEN);
ROCX_ASSERT_SIZE(struct rocx_fab_hdr, ROCX_FAB_HLEN - ROCX_FAB_ETH_HLEN);
ROCX_ASSERT_SIZE(struct rocx_fab_entry, ROCX_FAB_ENTRY_HLEN);

#define ROCX_FAB_ASSERT_OFF(off, type, field, base) \
	static_assert((off) == (base) + offsetof(type, field), \
		      #off " must match " #type "." #field)
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_DST, struct rocx_fab_eth, dst, 0);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_SRC, struct rocx_fab_eth, src, 0);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_ETHERTYPE, struct rocx_fab_eth, ethertype, 0);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_MAGIC, struct rocx_fab_hdr, magic,
		    ROCX_FAB_ETH_HLEN);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_TYPE, struct rocx_fab_hdr, type,
		    ROCX_FAB_ETH_HLEN);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_FLAGS, struct rocx_fab_hdr, flags,
		    ROCX_FAB_ETH_HLEN);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_COUNT, struct rocx_fab_hdr, count,
		    ROCX_FAB_ETH_HLEN);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_MAX_LEN, struct rocx_fab_hdr, max_len,
		    ROCX_FAB_ETH_HLEN);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_TIME, struct rocx_fab_timed, time,
		    ROCX_FAB_HLEN);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_LATENCY, struct rocx_fab_timed, latency,
		    ROCX_FAB_HLEN);
ROCX_FAB_ASSERT_OFF(ROCX_FAB_OFF_IDLE, struct rocx_fab_timed, latency,
		    ROCX_FAB_HLEN);
#undef ROCX_FAB_ASSERT_OFF

#endif /* _ROCX_FABRIC_H_ */
