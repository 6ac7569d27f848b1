/*
 * rocx device model: the RoCE invariant CRC.
 *
 * The ICRC is the CRC-32 of the IBTA (IEEE 802.3 polynomial, reflected)
 * over the packet from the network header to the end of the padded
 * payload, with the fields routers may change masked to ones, and an
 * 8-byte "LRH" of ones in front (RoCE has no LRH).  Masked: IPv4 TOS,
 * TTL and header checksum; IPv6/GRH traffic class, flow label and hop
 * limit; the UDP checksum; BTH byte 4 (resv8a).  The 32-bit result goes
 * on the wire least significant byte first, as Linux rxe sends it.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <zlib.h>
#include "rocx-int.h"

/*
 * The one CRC routine of the device.  zlib's is portable and about
 * 5 GB/s here; a faster one (carry-less multiply, ISA-L) can replace it
 * behind this function without touching the callers.
 */
uint32_t rocx_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
    while (len) {
        /* zlib takes a uInt length. */
        uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;

        crc = crc32(crc, buf, n);
        buf += n;
        len -= n;
    }
    return crc;
}

#define ROCX_IPV4_HLEN      20
#define ROCX_IPV6_HLEN      40
#define ROCX_UDP_HLEN       8

uint32_t rocx_icrc(uint8_t net_type, const uint8_t *l3, const uint8_t *bth,
                   const uint8_t *end)
{
    static const uint8_t lrh[8] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    };
    /* The masked copy of the network, UDP and base transport headers. */
    uint8_t hdr[ROCX_IPV6_HLEN + ROCX_UDP_HLEN + ROCX_BTH_LEN];
    size_t n;
    uint32_t crc;

    switch (net_type) {
    case ROCX_NET_ROCE_V2_IPV4:
        n = ROCX_IPV4_HLEN + ROCX_UDP_HLEN;
        memcpy(hdr, l3, n);
        hdr[1] = 0xff;                      /* TOS */
        hdr[8] = 0xff;                      /* TTL */
        hdr[10] = hdr[11] = 0xff;           /* header checksum */
        hdr[ROCX_IPV4_HLEN + 6] = 0xff;     /* UDP checksum */
        hdr[ROCX_IPV4_HLEN + 7] = 0xff;
        break;
    case ROCX_NET_ROCE_V2_IPV6:
        n = ROCX_IPV6_HLEN + ROCX_UDP_HLEN;
        memcpy(hdr, l3, n);
        hdr[0] |= 0x0f;                     /* traffic class, flow label */
        hdr[1] = hdr[2] = hdr[3] = 0xff;
        hdr[7] = 0xff;                      /* hop limit */
        hdr[ROCX_IPV6_HLEN + 6] = 0xff;
        hdr[ROCX_IPV6_HLEN + 7] = 0xff;
        break;
    default:                                /* RoCE v1: the GRH */
        n = ROCX_IPV6_HLEN;
        memcpy(hdr, l3, n);
        hdr[0] |= 0x0f;
        hdr[1] = hdr[2] = hdr[3] = 0xff;
        hdr[7] = 0xff;
        break;
    }
    memcpy(hdr + n, bth, ROCX_BTH_LEN);
    hdr[n + 4] = 0xff;                      /* BTH resv8a */
    n += ROCX_BTH_LEN;

    crc = rocx_crc32(0, lrh, sizeof(lrh));
    crc = rocx_crc32(crc, hdr, n);
    return rocx_crc32(crc, bth + ROCX_BTH_LEN, end - (bth + ROCX_BTH_LEN));
}
