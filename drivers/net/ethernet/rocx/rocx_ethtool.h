/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx ethtool internals that rocx_core_test.c reaches.  Static unless
 * CONFIG_KUNIT is set.
 */
#ifndef _ROCX_ETHTOOL_H_
#define _ROCX_ETHTOOL_H_

#include <linux/types.h>

#if IS_ENABLED(CONFIG_KUNIT)
const char *rocx_stat_name(unsigned int i);
unsigned int rocx_stat_count(void);
u32 rocx_ring_size_param(u32 req);
#endif

#endif /* _ROCX_ETHTOOL_H_ */
