/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * <kunit/static_stub.h> for kernels before 6.4, found only when the
 * kernel's own is missing (the Makefile's -idirafter).  Those kernels run
 * no rocx KUnit test, so the redirection is empty, as the kernel's is
 * without CONFIG_KUNIT.
 */
#ifndef _ROCX_IB_COMPAT_STATIC_STUB_H_
#define _ROCX_IB_COMPAT_STATIC_STUB_H_

#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) \
	((void)(real_fn_name))

#endif
