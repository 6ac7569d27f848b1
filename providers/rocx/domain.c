// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx provider: thread domains and parent domains.
 *
 * A thread domain promises that one thread at a time uses what is
 * created in it; the rocx data path has nothing to gain from that
 * promise (its locks are uncontended spinlocks), so a thread domain is
 * only an object to hold.  A parent domain is a PD to the kernel, which
 * sees only the protection domain inside it, and carries the
 * application's allocators: the provider takes the memory of QP buffers,
 * which it shares with the device, from them.
 */
#include <errno.h>
#include <stdlib.h>

#include "rocx.h"

struct ibv_td *rocx_alloc_td(struct ibv_context *context,
			     struct ibv_td_init_attr *attr)
{
	struct rocx_td *td;

	if (attr->comp_mask) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td)
		return NULL;
	td->ibvtd.context = context;
	atomic_init(&td->refcount, 1);
	return &td->ibvtd;
}

int rocx_dealloc_td(struct ibv_td *ibtd)
{
	struct rocx_td *td = container_of(ibtd, struct rocx_td, ibvtd);

	/* Still in a parent domain. */
	if (atomic_load(&td->refcount) > 1)
		return EBUSY;
	free(td);
	return 0;
}

struct ibv_pd *rocx_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr)
{
	struct rocx_pd *pd;

	if (ibv_check_alloc_parent_domain(attr))
		return NULL;
	if (!check_comp_mask(attr->comp_mask,
			     IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* A parent domain holds a protection domain, never another parent. */
	if (to_rocx_pd(attr->pd)->protection || attr->pd->context != context ||
	    (attr->td && attr->td->context != context)) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->protection = to_rocx_pd(attr->pd);
	pd->pdn = pd->protection->pdn;
	atomic_fetch_add(&pd->protection->refcount, 1);
	if (attr->td) {
		pd->td = container_of(attr->td, struct rocx_td, ibvtd);
		atomic_fetch_add(&pd->td->refcount, 1);
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS &&
	    attr->alloc && attr->free) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	atomic_init(&pd->refcount, 1);
	ibv_initialize_parent_domain(&pd->ibvpd, attr->pd);
	return &pd->ibvpd;
}

/* dealloc_pd of a parent domain. */
int rocx_dealloc_parent_domain(struct rocx_pd *pd)
{
	if (atomic_load(&pd->refcount) > 1)
		return EBUSY;
	atomic_fetch_sub(&pd->protection->refcount, 1);
	if (pd->td)
		atomic_fetch_sub(&pd->td->refcount, 1);
	free(pd);
	return 0;
}

/*
 * Memory the device will share, @align aligned: from the parent domain's
 * allocator when @ibpd is one with allocators and it does not defer to
 * the default (then *@custom is set), else from posix_memalign().
 * Returns an errno.  A parent domain stays while memory of it is out.
 */
int rocx_pd_alloc(struct ibv_pd *ibpd, size_t size, size_t align,
		  uint64_t type, void **p, bool *custom)
{
	struct rocx_pd *pd = ibpd ? to_rocx_pd(ibpd) : NULL;

	*custom = false;
	if (pd && pd->alloc) {
		*p = pd->alloc(ibpd, pd->pd_context, size, align, type);
		if (*p != IBV_ALLOCATOR_USE_DEFAULT) {
			if (!*p)
				return ENOMEM;
			*custom = true;
		}
	}
	if (!*custom && posix_memalign(p, align, size))
		return ENOMEM;
	if (pd && pd->protection)
		atomic_fetch_add(&pd->refcount, 1);
	return 0;
}

/* Give back what rocx_pd_alloc() returned for the same @ibpd and @type. */
void rocx_pd_free(struct ibv_pd *ibpd, void *p, uint64_t type, bool custom)
{
	struct rocx_pd *pd = ibpd ? to_rocx_pd(ibpd) : NULL;

	if (custom)
		pd->free(ibpd, pd->pd_context, p, type);
	else
		free(p);
	if (pd && pd->protection)
		atomic_fetch_sub(&pd->refcount, 1);
}
