// SPDX-License-Identifier: GPL-2.0
/*
 * Frame buffer pool.  All buffers are allocated once at start-up; the pool
 * is sized so that every egress queue and every delay line full to its
 * limit plus one receive batch still fits, which means receive never finds
 * it empty.  Buffers never used yet are handed out in address order before
 * the free list is needed, so a quiet switch touches few pages however
 * large its pool.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "switch.h"

int pool_init(struct sw_pool *pool, unsigned int nbufs)
{
	size_t bytes = (size_t)nbufs * sizeof(struct sw_buf);

	/* Anonymous memory: pages are only backed once a buffer is used. */
	pool->bufs = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (pool->bufs == MAP_FAILED) {
		pool->bufs = NULL;
		return -1;
	}
	pool->nbufs = nbufs;
	pool->free_list = NULL;
	pool->fresh = 0;
	pool->nfree = nbufs;
	return 0;
}

void pool_fini(struct sw_pool *pool)
{
	if (pool->bufs)
		munmap(pool->bufs, (size_t)pool->nbufs * sizeof(struct sw_buf));
	pool->bufs = NULL;
	pool->free_list = NULL;
	pool->fresh = 0;
	pool->nfree = 0;
}

struct sw_buf *pool_get(struct sw_pool *pool)
{
	struct sw_buf *buf = pool->free_list;

	if (buf)
		pool->free_list = buf->next_free;
	else if (pool->fresh < pool->nbufs)
		buf = &pool->bufs[pool->fresh++];
	else
		return NULL;
	pool->nfree--;
	buf->next_free = NULL;
	buf->refs = 0;
	buf->acct = 0;
	return buf;
}

void pool_put(struct sw_pool *pool, struct sw_buf *buf)
{
	if (buf->acct && pool->on_put)
		pool->on_put(pool->owner, buf);
	buf->next_free = pool->free_list;
	pool->free_list = buf;
	pool->nfree++;
}

void buf_release(struct sw_pool *pool, struct sw_buf *buf)
{
	if (--buf->refs == 0)
		pool_put(pool, buf);
}
