/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx DCB internals that rocx_core_test.c reaches: dcbnl validation, the
 * app-trust selector mapping and the SET_DCB encoding of every setter.
 * Static unless CONFIG_KUNIT is set.
 */
#ifndef _ROCX_DCB_H_
#define _ROCX_DCB_H_

#include <linux/types.h>
#include <rocx/rocx_if.h>

struct ieee_ets;
struct ieee_maxrate;

/* PFC quanta the driver asks for: the device's default, the longest. */
#define ROCX_DCB_PFC_QUANTA	0xffff

#if IS_ENABLED(CONFIG_KUNIT)
bool rocx_dcb_dscp_table(const u8 *masks, u8 *map);
int rocx_dcb_check_ets(const struct ieee_ets *ets, const char **why);
int rocx_dcb_trust_of(const u8 *sel, int n);
int rocx_dcb_trust_sel(u8 trust, u8 *sel);
u8 rocx_dcb_tag_prios(u8 trust, u8 pfc_en);
void rocx_dcb_build_pfc(struct rocx_dcb_cfg *cfg, u8 pfc_en, u16 quanta);
void rocx_dcb_build_pause(struct rocx_dcb_cfg *cfg, u8 pause);
void rocx_dcb_build_trust(struct rocx_dcb_cfg *cfg, u8 trust);
void rocx_dcb_build_dscp2prio(struct rocx_dcb_cfg *cfg, const u8 *map);
void rocx_dcb_build_ets(struct rocx_dcb_cfg *cfg, const struct ieee_ets *ets);
void rocx_dcb_build_maxrate(struct rocx_dcb_cfg *cfg,
			    const struct ieee_maxrate *rate);
#endif

#endif /* _ROCX_DCB_H_ */
