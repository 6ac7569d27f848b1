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
#ifdef ROCX_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif
#include "rocx-int.h"

/*
 * The one CRC routine of the device: every RoCE packet is summed twice
 * (sender and receiver), which made zlib's crc32 three quarters of the
 * engine's time per packet (about 2 GB/s here).  ISA-L's carry-less
 * multiply version computes the same function (zlib's convention: the
 * inversions are inside, so results chain) about 20 times faster; zlib
 * stays as the fallback where ISA-L is not installed.
 */
uint32_t rocx_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
#ifdef ROCX_HAVE_ISAL
    return crc32_gzip_refl(crc, buf, len);
#else
    while (len) {
        /* zlib takes a uInt length. */
        uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;

        crc = crc32(crc, buf, n);
        buf += n;
        len -= n;
    }
    return crc;
#endif
}

/* rocx_crc32() of the 8-byte "LRH" of ones, which starts every ICRC. */
#define ROCX_ICRC_LRH_CRC   0x2144df1cu

uint32_t rocx_icrc(uint8_t net_type, const uint8_t *l3, const uint8_t *bth,
                   const uint8_t *end)
{
    /* The masked copy of the network, UDP and base transport headers. */
    uint8_t hdr[ROCX_IPV6_HLEN + ROCX_UDP_HLEN + ROCX_BTH_LEN];
    size_t n;
    uint32_t crc;

    switch (net_type) {
    case ROCX_NET_ROCE_V2_IPV4:
        n = ROCX_IPV4_HLEN + ROCX_UDP_HLEN;
        memcpy(hdr, l3, n);
        rocx_ip4_icrc_mask(hdr);
        rocx_udp_icrc_mask(hdr + ROCX_IPV4_HLEN);
        break;
    case ROCX_NET_ROCE_V2_IPV6:
        n = ROCX_IPV6_HLEN + ROCX_UDP_HLEN;
        memcpy(hdr, l3, n);
        rocx_ip6_icrc_mask(hdr);
        rocx_udp_icrc_mask(hdr + ROCX_IPV6_HLEN);
        break;
    default:                                /* RoCE v1: the GRH */
        n = ROCX_GRH_LEN;
        memcpy(hdr, l3, n);
        rocx_ip6_icrc_mask(hdr);
        break;
    }
    memcpy(hdr + n, bth, ROCX_BTH_LEN);
    rocx_bth_icrc_mask(hdr + n);

    crc = rocx_crc32(ROCX_ICRC_LRH_CRC, hdr, n + ROCX_BTH_LEN);
    return rocx_crc32(crc, rocx_bth_next(bth), end - rocx_bth_next(bth));
}
