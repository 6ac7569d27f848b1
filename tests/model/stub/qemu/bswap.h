/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stand-in for QEMU's qemu/bswap.h in the host tests and the fuzzers: the
 * unaligned big-endian loads and stores the device core uses, with QEMU's
 * names, types and results (the loads return int, as QEMU's do).  The real
 * header needs QEMU's config-host.h and glib.
 */
#ifndef ROCX_TEST_STUB_BSWAP_H
#define ROCX_TEST_STUB_BSWAP_H

static inline int lduw_be_p(const void *ptr)
{
    const uint8_t *b = ptr;

    return b[0] << 8 | b[1];
}

static inline int ldl_be_p(const void *ptr)
{
    const uint8_t *b = ptr;

    return (int)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
                 (uint32_t)b[2] << 8 | b[3]);
}

static inline void stw_be_p(void *ptr, uint16_t v)
{
    uint8_t *b = ptr;

    b[0] = v >> 8;
    b[1] = v;
}

static inline void stl_be_p(void *ptr, uint32_t v)
{
    uint8_t *b = ptr;

    b[0] = v >> 24;
    b[1] = v >> 16;
    b[2] = v >> 8;
    b[3] = v;
}

#endif /* ROCX_TEST_STUB_BSWAP_H */
