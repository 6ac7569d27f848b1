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

#endif /* ROCX_TEST_STUB_OSDEP_H */
