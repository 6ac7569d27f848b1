/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx device contract: 802.1Qbb priority flow control and 802.3x pause
 * frames, as the device and rocx-switch send and take them.
 *
 * Documentation/rocx-device.rst ("PFC received") is the normative text;
 * this header encodes it.  A MAC control frame is an Ethernet header
 * (destination ROCX_PFC_DST_MAC, EtherType ROCX_PFC_ETHERTYPE), then
 * struct rocx_pfc_frame, padded to Ethernet's 60-byte minimum.  Like the
 * rest of the link's formats (rocx_fabric.h) its fields are big endian.
 *
 * Opcode ROCX_PFC_OPCODE (802.1Qbb): priority p is paused for quanta[p]
 * times 512 bit times at the port's rate when bit p of class_enable is
 * set; quanta 0 resumes it at once.  Opcode ROCX_PAUSE_OPCODE (802.3x):
 * every priority is paused for the pause time, which sits where
 * class_enable does.
 */
#ifndef _ROCX_PFC_H_
#define _ROCX_PFC_H_

#include "rocx_bits.h"

/* The 802.1 MAC control group address: no bridge forwards it. */
#define ROCX_PFC_DST_MAC	{ 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 }
#define ROCX_PFC_ETHERTYPE	0x8808
#define ROCX_PAUSE_OPCODE	0x0001
#define ROCX_PFC_OPCODE		0x0101
#define ROCX_PFC_PRIOS		8
/* One quantum is 512 bit times at the port's rate. */
#define ROCX_PFC_QUANTUM_BITS	512
/* The quanta an XOFF carries unless configured otherwise. */
#define ROCX_PFC_QUANTA_MAX	0xffff
/* The frame, Ethernet header included, is Ethernet's minimum. */
#define ROCX_PFC_FRAME_LEN	60
#define ROCX_PFC_ETH_HLEN	14

struct rocx_pfc_frame {
	__be16 opcode;		/* [15:0] ROCX_PFC_OPCODE or ROCX_PAUSE_OPCODE */
	__be16 class_enable;	/* [7:0] bit p: quanta[p] applies; 802.3x: time */
	__be16 quanta[ROCX_PFC_PRIOS];	/* [15:0] pause of priority p */
	__u8 pad[ROCX_PFC_FRAME_LEN - ROCX_PFC_ETH_HLEN - 20];	/* 0 */
};

ROCX_ASSERT_SIZE(struct rocx_pfc_frame,
		 ROCX_PFC_FRAME_LEN - ROCX_PFC_ETH_HLEN);

#endif /* _ROCX_PFC_H_ */
