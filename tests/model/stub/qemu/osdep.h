/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stand-in for QEMU's qemu/osdep.h, so that the device core
 * (qemu/hw/net/rocx/rocx-core.c) builds in the host tests and the fuzzer.
 * It provides only what the core uses: standard headers and a few macros
 * with QEMU's names and meaning.
 */
#ifndef ROCX_TEST_STUB_OSDEP_H
#define ROCX_TEST_STUB_OSDEP_H

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define G_GNUC_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))
#define QEMU_BUILD_BUG_ON(x) _Static_assert(!(x), "not expecting: " #x)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

/* glib's allocators, which QEMU code uses: they abort instead of failing. */
static inline void *rocx_stub_alloc(size_t n, size_t size, bool zero)
{
    void *p = zero ? calloc(n ? n : 1, size) : malloc(n ? n * size : size);

    if (!p) {
        abort();
    }
    return p;
}
#define g_new(type, n) ((type *)rocx_stub_alloc((n), sizeof(type), false))
#define g_new0(type, n) ((type *)rocx_stub_alloc((n), sizeof(type), true))
#define g_free(p) free(p)

#endif /* ROCX_TEST_STUB_OSDEP_H */
