/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx device contract: portable types and bit-field helpers.
 *
 * The kernel, QEMU and rdma-core each define their own BIT()/GENMASK(), so
 * the contract carries its own, ROCX_-prefixed, and compiles unchanged in
 * all three.  Every multi-byte field in the contract is little endian.
 */
#ifndef _ROCX_BITS_H_
#define _ROCX_BITS_H_

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#include <asm/byteorder.h>
#else
#include <stdint.h>
#include <assert.h>
#include <endian.h>
#include <linux/types.h>
#endif

/*
 * CPU to little-endian order for the contract's inline encoders: the
 * kernel's typed conversions (sparse checks them), glibc's elsewhere.
 */
#ifdef __KERNEL__
#define ROCX_CPU_TO_LE16(x)	cpu_to_le16(x)
#define ROCX_CPU_TO_LE32(x)	cpu_to_le32(x)
#define ROCX_CPU_TO_LE64(x)	cpu_to_le64(x)
#else
#define ROCX_CPU_TO_LE16(x)	((__le16)htole16(x))
#define ROCX_CPU_TO_LE32(x)	((__le32)htole32(x))
#define ROCX_CPU_TO_LE64(x)	((__le64)htole64(x))
#endif

#define ROCX_BIT(n)		(1U << (n))
#define ROCX_BIT_ULL(n)		(1ULL << (n))
/* Mask of bits h..l inclusive, h >= l, within 32 or 64 bits. */
#define ROCX_GENMASK(h, l)	((~0U << (l)) & (~0U >> (31 - (h))))
#define ROCX_GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))

/*
 * Shift of a mask's lowest set bit.  The field helpers name their mask
 * twice so that they stay constant expressions (usable in initializers);
 * masks are always compile-time constants, so that is harmless.
 */
#define ROCX_MASK_SHIFT(m)	__builtin_ctzll((unsigned long long)(m))
#define ROCX_FIELD_PREP(m, v) \
	((__typeof__(m))(((__typeof__(m))(v) << ROCX_MASK_SHIFT(m)) & (m)))
#define ROCX_FIELD_GET(m, r) \
	((__typeof__(m))(((r) & (m)) >> ROCX_MASK_SHIFT(m)))

/* Size checks on every descriptor and command; both C11 and the kernel. */
#define ROCX_ASSERT_SIZE(type, size) \
	static_assert(sizeof(type) == (size), #type " must be " #size " bytes")

#endif /* _ROCX_BITS_H_ */
