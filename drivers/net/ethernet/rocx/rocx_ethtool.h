/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx ethtool internals that rocx_core_test.c reaches (static unless
 * CONFIG_KUNIT is set), and the self-test numbering.
 */
#ifndef _ROCX_ETHTOOL_H_
#define _ROCX_ETHTOOL_H_

#include <linux/types.h>

struct ethtool_test;

/* `ethtool -t` results, in the order ethtool prints them. */
enum rocx_selftest {
	ROCX_TEST_REGS,		/* SCRATCH patterns; online and offline */
	ROCX_TEST_IRQ,		/* vectors 0 and 1 by TEST_IRQ; offline */
	ROCX_TEST_DMA,		/* TEST_DMA buffer inversion; online and offline */
	ROCX_TEST_NUM
};

#if IS_ENABLED(CONFIG_KUNIT)
const char *rocx_stat_name(unsigned int i);
unsigned int rocx_stat_count(void);
u32 rocx_ring_size_param(u32 req);
const char *rocx_selftest_name(unsigned int i);
bool rocx_selftest_runs(unsigned int test, u32 flags);
void rocx_selftest_report(struct ethtool_test *test, u64 *data,
			  const int *res);
#endif

#endif /* _ROCX_ETHTOOL_H_ */
