/*
 * rocx device model: fast registration (contract 1.2, ROCX_CAP2_FAST_REG).
 *
 * ALLOC_MR makes a fast-register MR, an MR table slot that no key reaches
 * ("free") until the requester executes a REG_MR work request for it:
 * then the MR takes the WQE's key, rights, range and pages, the pages
 * read from the consumer's page list at that moment.  LOCAL_INV and a
 * SEND with invalidate make it free again.  ALLOC_MR also makes DMA MRs,
 * and the local DMA lkey is here: both reach the bus address space
 * directly, for kernel PDs only.
 *
 * Nothing caches a key: every access goes through rocx_mr_check(), which
 * finds a free MR by no key, so a registration or invalidation takes
 * effect at the very next packet.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

#define ROCX_FR_ACCESS  (ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE | \
                         ROCX_ACCESS_REMOTE_READ | ROCX_ACCESS_REMOTE_ATOMIC | \
                         ROCX_ACCESS_MW_BIND)

static bool rocx_fr_zero(const uint8_t *p, size_t len)
{
    while (len--) {
        if (*p++) {
            return false;
        }
    }
    return true;
}

/* IBTA: remote write and atomic rights need local write. */
static bool rocx_fr_access_ok(uint32_t access)
{
    return !(access & ~ROCX_FR_ACCESS) &&
           (!(access & (ROCX_ACCESS_REMOTE_WRITE |
                        ROCX_ACCESS_REMOTE_ATOMIC)) ||
            (access & ROCX_ACCESS_LOCAL_WRITE));
}

/* A PD of the kernel (uctx 0: pd_owner holds uctx + 1). */
static bool rocx_fr_kernel_pd(RocxCore *c, uint32_t pdn)
{
    return pdn >= 1 && pdn <= ROCX_CORE_MAX_PD && c->pd_owner[pdn - 1] == 1;
}

RocxMr *rocx_fr_slot(RocxCore *c, uint32_t key)
{
    uint32_t idx = ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, key);
    RocxMr *mr;

    if (idx < 1 || idx >= ROCX_CORE_MR_SLOTS) {
        return NULL;
    }
    mr = &c->rdma.mr[idx];
    return mr->valid && mr->kind == ROCX_MR_KIND_FAST ? mr : NULL;
}

/* ---- Admin commands ---- */

void rocx_cmd_alloc_mr(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res)
{
    const struct rocx_aq_alloc_mr *a = (const void *)cmd;
    uint32_t pdn = ldl_le_p(&a->pdn);
    uint32_t max_pages = ldl_le_p(&a->max_pages);
    uint32_t access = ldl_le_p(&a->access);
    bool fast = a->type == ROCX_MR_TYPE_FAST_REG;
    RocxMr *mr = NULL;
    unsigned i;

    if (pdn < 1 || pdn > ROCX_CORE_MAX_PD ||
        (a->type != ROCX_MR_TYPE_FAST_REG && a->type != ROCX_MR_TYPE_DMA) ||
        !rocx_fr_zero(a->rsvd0, sizeof(a->rsvd0)) ||
        !rocx_fr_zero(a->rsvd1, sizeof(a->rsvd1)) ||
        (fast && (max_pages < 1 || max_pages > ROCX_CORE_MAX_FAST_REG_PAGES ||
                  access)) ||
        (!fast && (max_pages || !rocx_fr_access_ok(access) ||
                   (access & ROCX_ACCESS_MW_BIND)))) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (!c->pd_owner[pdn - 1]) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* A DMA MR reaches all memory: never for a user context. */
    if (!fast && !rocx_fr_kernel_pd(c, pdn)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    for (i = 1; i < ROCX_CORE_MR_SLOTS; i++) {
        if (!c->rdma.mr[i].valid) {
            mr = &c->rdma.mr[i];
            break;
        }
    }
    if (!mr || (fast && max_pages > ROCX_CORE_MAX_PBL_ENTRIES -
                                    c->rdma.pbl_entries)) {
        res->status = ROCX_AQ_STS_NO_RESOURCE;
        return;
    }
    memset(&mr->pbl, 0, sizeof(mr->pbl));
    if (fast) {
        /*
         * Room for the largest list, reserved now, so that a REG_MR never
         * fails for it.  pbl.npages stays the capacity: the MR's length,
         * checked at REG_MR against the pages registered, keeps every
         * access inside those.
         */
        mr->pbl.pages = g_new0(uint64_t, max_pages);
        mr->pbl.npages = max_pages;
        mr->pbl.page_shift = ROCX_MIN_PAGE_SHIFT;
        c->rdma.pbl_entries += max_pages;
    }
    mr->valid = true;
    /* A fresh variant: keys of earlier MRs at this index go stale. */
    mr->variant++;
    mr->kind = fast ? ROCX_MR_KIND_FAST : ROCX_MR_KIND_DMA;
    mr->fr_valid = false;
    mr->pdn = pdn;
    mr->access = access;
    mr->iova = 0;
    mr->length = fast ? 0 : UINT64_MAX;
    mr->offset = 0;
    res->result = ROCX_FIELD_PREP(ROCX_KEY_INDEX_MASK, i) |
                  ROCX_FIELD_PREP(ROCX_KEY_VARIANT_MASK, mr->variant);
}

/* ---- The local DMA lkey ---- */

uint8_t rocx_fr_local_dma(RocxCore *c, uint32_t pdn, uint32_t access,
                          RocxMr **mrp)
{
    /*
     * Slot 0 is never an MR's (rocx_mr_lookup() refuses index 0): it
     * stands for the bus address space here, and stays !valid so that
     * nothing that walks the table sees it.
     */
    RocxMr *mr = &c->rdma.mr[0];

    if (!rocx_fr_kernel_pd(c, pdn) || (access & ~ROCX_ACCESS_LOCAL_WRITE)) {
        return ROCX_VERR_BAD_LKEY;
    }
    memset(mr, 0, sizeof(*mr));
    mr->kind = ROCX_MR_KIND_DMA;
    mr->pdn = pdn;
    mr->access = ROCX_ACCESS_LOCAL_WRITE;
    mr->length = UINT64_MAX;
    *mrp = mr;
    return ROCX_VERR_NONE;
}

/* ---- Work requests ---- */

bool rocx_fr_fetch(const struct rocx_send_wqe *hdr, RocxSendWqe *w)
{
    const struct rocx_wqe_reg_mr *r = &hdr->reg_mr;
    const struct rocx_pbl *d = &r->pbl;
    uint32_t npages = ldl_le_p(&d->npages);
    static const uint32_t max_pages[] = {
        1, ROCX_PBL_ENTRIES_PER_PAGE, ROCX_PBL_MAX_PAGES,
    };

    w->reg.key = ldl_le_p(&r->key);
    w->reg.access = ldl_le_p(&r->access);
    w->reg.iova = ldq_le_p(&r->iova);
    w->reg.length = ldq_le_p(&r->length);
    w->reg.pbl_addr = ldq_le_p(&d->addr);
    w->reg.npages = npages;
    w->reg.page_shift = d->page_shift;
    w->reg.levels = d->levels;
    return !w->imm && rocx_fr_zero(r->rsvd, sizeof(r->rsvd)) &&
           !lduw_le_p(&d->rsvd) && rocx_fr_access_ok(w->reg.access) &&
           d->page_shift >= ROCX_MIN_PAGE_SHIFT &&
           d->page_shift <= ROCX_MAX_PAGE_SHIFT && d->levels <= 2 &&
           npages >= 1 && npages <= max_pages[d->levels] &&
           !(d->levels && (w->reg.pbl_addr & 7));
}

/*
 * Read the WQE's page list into pages[] (room for npages): 0, or the
 * ROCX_VERR_* of the failure.  Now, at execution, is the only time the
 * device looks at it.
 */
static uint8_t rocx_fr_read_pages(RocxCore *c, const RocxSendWqe *w,
                                  uint64_t *pages)
{
    uint64_t addr = w->reg.pbl_addr;
    uint32_t n = w->reg.npages, i;

    if (w->reg.levels == 0) {
        pages[0] = addr;
    } else if (w->reg.levels == 1) {
        if (rocx_pbl_read_list(c, addr, pages, n)) {
            return ROCX_VERR_DMA;
        }
    } else {
        uint32_t nl1 = DIV_ROUND_UP(n, ROCX_PBL_ENTRIES_PER_PAGE);
        uint64_t l1[ROCX_PBL_ENTRIES_PER_PAGE];

        if (rocx_pbl_read_list(c, addr, l1, nl1)) {
            return ROCX_VERR_DMA;
        }
        for (i = 0; i < nl1; i++) {
            uint32_t m = MIN(n - i * ROCX_PBL_ENTRIES_PER_PAGE,
                             (uint32_t)ROCX_PBL_ENTRIES_PER_PAGE);

            if (l1[i] & 7) {
                return ROCX_VERR_BAD_WQE;
            }
            if (rocx_pbl_read_list(c, l1[i],
                                   pages + i * ROCX_PBL_ENTRIES_PER_PAGE, m)) {
                return ROCX_VERR_DMA;
            }
        }
    }
    for (i = 0; i < n; i++) {
        if (pages[i] & ((1ULL << w->reg.page_shift) - 1)) {
            return ROCX_VERR_BAD_WQE;
        }
    }
    return ROCX_VERR_NONE;
}

uint8_t rocx_fr_reg(RocxCore *c, RocxQp *qp, const RocxSendWqe *w,
                    uint8_t *verr)
{
    RocxMr *mr = rocx_fr_slot(c, w->reg.key);
    uint64_t psize = 1ULL << w->reg.page_shift;
    uint64_t off = w->reg.iova & (psize - 1);

    *verr = ROCX_VERR_BAD_LKEY;
    if (!mr) {
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    if (mr->pdn != qp->pdn) {
        return ROCX_WC_LOC_PROT_ERR;
    }
    /* IBTA: only a free MR is registered; it is invalidated first. */
    if (mr->fr_valid) {
        *verr = ROCX_VERR_MR_STATE;
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    if (w->reg.npages > mr->pbl.npages ||
        w->reg.length > ROCX_CORE_MAX_MR_SIZE ||
        w->reg.iova + w->reg.length < w->reg.iova ||
        off + w->reg.length > (uint64_t)w->reg.npages << w->reg.page_shift) {
        *verr = ROCX_VERR_LKEY_BOUNDS;
        return ROCX_WC_LOC_LEN_ERR;
    }
    /*
     * Into the MR's own entries: it is free, so no key reaches them and
     * a list that fails half read leaves nothing anyone can use.
     */
    *verr = rocx_fr_read_pages(c, w, mr->pbl.pages);
    if (*verr) {
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    mr->pbl.page_shift = w->reg.page_shift;
    mr->variant = ROCX_FIELD_GET(ROCX_KEY_VARIANT_MASK, w->reg.key);
    mr->access = w->reg.access;
    mr->iova = w->reg.iova;
    mr->length = w->reg.length;
    mr->offset = off;
    mr->fr_valid = true;
    return ROCX_WC_SUCCESS;
}

/*
 * Invalidate the fast-register MR key names, for a QP of PD pdn: 0 or
 * the ROCX_VERR_* why not.  One that is free already stays so.
 */
static uint8_t rocx_fr_invalidate(RocxCore *c, uint32_t pdn, uint32_t key)
{
    RocxMr *mr = rocx_fr_slot(c, key);

    /* Nothing at that index to invalidate: as for a key of no window. */
    if (!mr) {
        return ROCX_VERR_BAD_MW;
    }
    if (mr->pdn != pdn ||
        mr->variant != ROCX_FIELD_GET(ROCX_KEY_VARIANT_MASK, key)) {
        return ROCX_VERR_BAD_LKEY;
    }
    /* IBTA: an MR with windows bound is not invalidated. */
    if (mr->fr_valid && rocx_mr_has_mw(c, key)) {
        return ROCX_VERR_MR_STATE;
    }
    mr->fr_valid = false;
    return ROCX_VERR_NONE;
}

uint8_t rocx_fr_local_inv(RocxCore *c, RocxQp *qp, uint32_t key,
                          uint8_t *verr)
{
    *verr = rocx_fr_invalidate(c, qp->pdn, key);
    return *verr ? ROCX_WC_LOC_QP_OP_ERR : ROCX_WC_SUCCESS;
}

uint8_t rocx_fr_remote_inv(RocxCore *c, const RocxQp *qp, uint32_t rkey)
{
    return rocx_fr_invalidate(c, qp->pdn, rkey);
}
