// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: the device clock in user space (ROCX_CAP2_USER_CLOCK).
 *
 * The device clock (nanoseconds since the device's reset, the timestamp
 * of 64-byte CQEs) is one 64-bit load from the context's doorbell page
 * when the kernel maps it readable (ROCX_UCONTEXT_RESP_DB_CLOCK).  It
 * serves ibv_query_rt_values_ex (the raw clock, in ns: hca_core_clock is
 * 1000000 kHz) and wall-clock completion timestamps, which are the CQE's
 * device time plus the offset to CLOCK_REALTIME.  The offset is measured
 * by reading the device clock between two reads of CLOCK_REALTIME, so it
 * is right to half the time that takes (one MMIO read), and measured
 * again once a second, so that drift between the two clocks and steps of
 * the wall clock reach the timestamps within a second.
 */
#include <errno.h>
#include <time.h>

#include <util/mmio.h>

#include "rocx.h"

#define ROCX_NSEC_PER_SEC	1000000000LL

static int64_t rocx_timespec_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * ROCX_NSEC_PER_SEC + ts->tv_nsec;
}

static uint64_t rocx_clock_read(struct rocx_context *ctx)
{
	return le64toh(mmio_read64_le(ctx->db_clock));
}

int rocx_query_rt_values(struct ibv_context *context,
			 struct ibv_values_ex *values)
{
	struct rocx_context *ctx = to_rocx_context(context);
	uint32_t comp_mask = 0;
	uint64_t ns;

	if (!ctx->db_clock)
		return EOPNOTSUPP;
	/* As other providers: the raw clock in tv_nsec, whole. */
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		ns = rocx_clock_read(ctx);
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = ns;
		comp_mask |= IBV_VALUES_MASK_RAW_CLOCK;
	}
	values->comp_mask = comp_mask;
	return 0;
}

/* CLOCK_REALTIME less the device clock, now; CQ locked. */
static void rocx_cq_wall_sample(struct rocx_cq *cq, int64_t mono)
{
	struct rocx_context *ctx = to_rocx_context(cq->ibvcq.context);
	struct timespec t1, t2;
	uint64_t dev;

	clock_gettime(CLOCK_REALTIME, &t1);
	dev = rocx_clock_read(ctx);
	clock_gettime(CLOCK_REALTIME, &t2);
	cq->wall_offset = (rocx_timespec_ns(&t1) + rocx_timespec_ns(&t2)) / 2 -
			  (int64_t)dev;
	cq->wall_sampled = mono;
}

uint64_t rocx_cq_wallclock_ns(struct rocx_cq *cq, uint64_t dev_ns)
{
	struct timespec now;
	int64_t mono;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	mono = rocx_timespec_ns(&now);
	if (!cq->wall_sampled || mono - cq->wall_sampled >= ROCX_NSEC_PER_SEC)
		rocx_cq_wall_sample(cq, mono ? mono : 1);
	return dev_ns + cq->wall_offset;
}
