/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rocx admin queue internals that rocx_core_test.c reaches: command
 * encoding and timeout diagnosis.  Static unless CONFIG_KUNIT is set.
 */
#ifndef _ROCX_AQ_H_
#define _ROCX_AQ_H_

#include <linux/types.h>
#include <rocx/rocx_if.h>

/* Why an admin command timed out, most specific first. */
enum rocx_aq_diag {
	ROCX_AQ_DIAG_LOST_IRQ,		/* completion written, no interrupt */
	ROCX_AQ_DIAG_QUEUE_ERROR,	/* AQ_STATUS.ERROR: ring DMA fault */
	ROCX_AQ_DIAG_DISABLED,		/* queue not enabled any more */
	ROCX_AQ_DIAG_NO_COMPLETION,	/* AQ_HEAD advanced, no completion */
	ROCX_AQ_DIAG_NOT_FETCHED,	/* AQ_HEAD did not reach the command */
};

#if IS_ENABLED(CONFIG_KUNIT)
const char *rocx_aq_op_name(u16 opcode);
void rocx_aq_build_identify(union rocx_aq_cmd *cmd, dma_addr_t addr, u32 len);
void rocx_aq_build_set_port(union rocx_aq_cmd *cmd, u32 valid, u16 mtu,
			    const u8 *mac, bool admin_up, u8 rx_mode);
void rocx_aq_build_get_stats(union rocx_aq_cmd *cmd, dma_addr_t addr,
			     u32 len);
void rocx_aq_build_create_eq(union rocx_aq_cmd *cmd, u16 eqn,
			     dma_addr_t base, u8 log_depth, u8 vector);
void rocx_aq_build_destroy_eq(union rocx_aq_cmd *cmd, u16 eqn);
void rocx_aq_build_create_eth_ring(union rocx_aq_cmd *cmd, u8 type, u8 qid,
				   dma_addr_t base, u8 log_depth, u8 vector,
				   u16 buf_size, u8 tc);
void rocx_aq_build_destroy_eth_ring(union rocx_aq_cmd *cmd, u8 type, u8 qid);
void rocx_aq_build_set_mcast_macs(union rocx_aq_cmd *cmd, dma_addr_t addr,
				  u32 count);
void rocx_aq_build_dcb(union rocx_aq_cmd *cmd, u16 opcode, dma_addr_t addr,
		       u32 len);
enum rocx_aq_diag rocx_aq_diagnose(u16 pi, u32 head, bool cqe_ready,
				   u32 status);
#endif

#endif /* _ROCX_AQ_H_ */
