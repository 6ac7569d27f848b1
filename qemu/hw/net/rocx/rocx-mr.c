/*
 * rocx device model: page lists, memory regions and key checks.
 *
 * Every object whose memory the guest hands over (MR, CQ ring, QP queue
 * buffer) comes with a page list, which the device copies when the object
 * is created: afterwards the guest may free the list, and nothing it
 * writes there changes what the device touches.  All data the transport
 * moves goes through rocx_mr_rw() or rocx_pbl_rw(), which never leave the
 * pages of the object.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- Page lists ---- */

int rocx_pbl_read_list(RocxCore *c, uint64_t addr, uint64_t *out, uint32_t n)
{
    uint32_t i;

    if (rocx_dma_read(c, addr, out, (size_t)n * 8)) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        out[i] = ldq_le_p(&out[i]);
    }
    return 0;
}

uint8_t rocx_pbl_copy(RocxCore *c, const struct rocx_pbl *d, uint64_t need,
                      RocxPbl *out)
{
    static const uint32_t max_pages[] = {
        1, ROCX_PBL_ENTRIES_PER_PAGE, ROCX_PBL_MAX_PAGES,
    };
    uint64_t addr = ldq_le_p(&d->addr);
    uint32_t npages = ldl_le_p(&d->npages);
    uint8_t shift = d->page_shift;
    uint64_t *pages;
    uint32_t i;

    memset(out, 0, sizeof(*out));
    if (shift < ROCX_MIN_PAGE_SHIFT || shift > ROCX_MAX_PAGE_SHIFT ||
        d->levels > 2 || lduw_le_p(&d->rsvd) || !npages ||
        npages > max_pages[d->levels] ||
        ((uint64_t)npages << shift) < need || (d->levels && (addr & 7))) {
        return ROCX_AQ_STS_INVALID;
    }
    if (npages > ROCX_CORE_MAX_PBL_ENTRIES - c->rdma.pbl_entries) {
        return ROCX_AQ_STS_NO_RESOURCE;
    }

    pages = g_new(uint64_t, npages);
    if (d->levels == 0) {
        pages[0] = addr;
    } else if (d->levels == 1) {
        if (rocx_pbl_read_list(c, addr, pages, npages)) {
            goto dma_error;
        }
    } else {
        uint32_t nl1 = DIV_ROUND_UP(npages, ROCX_PBL_ENTRIES_PER_PAGE);
        uint64_t l1[ROCX_PBL_ENTRIES_PER_PAGE];

        if (rocx_pbl_read_list(c, addr, l1, nl1)) {
            goto dma_error;
        }
        for (i = 0; i < nl1; i++) {
            uint32_t n = MIN(npages - i * ROCX_PBL_ENTRIES_PER_PAGE,
                             (uint32_t)ROCX_PBL_ENTRIES_PER_PAGE);

            if ((l1[i] & 7) ||
                rocx_pbl_read_list(c, l1[i],
                                   pages + i * ROCX_PBL_ENTRIES_PER_PAGE,
                                   n)) {
                goto dma_error;
            }
        }
    }
    for (i = 0; i < npages; i++) {
        if (pages[i] & ((1ULL << shift) - 1)) {
            g_free(pages);
            return ROCX_AQ_STS_INVALID;
        }
    }
    out->pages = pages;
    out->npages = npages;
    out->page_shift = shift;
    c->rdma.pbl_entries += npages;
    return ROCX_AQ_STS_OK;

dma_error:
    g_free(pages);
    return ROCX_AQ_STS_DMA_ERROR;
}

void rocx_pbl_free(RocxCore *c, RocxPbl *p)
{
    if (p->pages) {
        c->rdma.pbl_entries -= p->npages;
        g_free(p->pages);
    }
    memset(p, 0, sizeof(*p));
}

int rocx_pbl_rw(RocxCore *c, const RocxPbl *p, uint64_t off, void *buf,
                size_t len, bool write)
{
    uint8_t *b = buf;
    uint64_t psize = 1ULL << p->page_shift;

    while (len) {
        uint64_t pg = off >> p->page_shift;
        uint64_t in = off & (psize - 1);
        size_t n = MIN(len, psize - in);
        int r;

        if (pg >= p->npages) {
            return -1;
        }
        r = write ? rocx_dma_write(c, p->pages[pg] + in, b, n)
                  : rocx_dma_read(c, p->pages[pg] + in, b, n);
        if (r) {
            return -1;
        }
        b += n;
        off += n;
        len -= n;
    }
    return 0;
}

/* ---- Memory regions ---- */

static bool rocx_pd_valid(RocxCore *c, uint32_t pdn)
{
    return pdn >= 1 && pdn <= ROCX_CORE_MAX_PD && c->pd_owner[pdn - 1];
}

void rocx_cmd_reg_mr(RocxCore *c, const union rocx_aq_cmd *cmd,
                     RocxAqResult *res)
{
    const struct rocx_aq_reg_mr *r = (const void *)cmd;
    const uint32_t known = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
                           ROCX_ACCESS_REMOTE_READ | ROCX_ACCESS_REMOTE_ATOMIC |
                           ROCX_ACCESS_MW_BIND;
    uint32_t pdn = ldl_le_p(&r->pdn);
    uint32_t access = ldl_le_p(&r->access);
    uint64_t iova = ldq_le_p(&r->iova);
    uint64_t length = ldq_le_p(&r->length);
    uint32_t offset = ldl_le_p(&r->offset);
    unsigned i;
    RocxMr *mr = NULL;

    if (pdn < 1 || pdn > ROCX_CORE_MAX_PD || (access & ~known) ||
        length > ROCX_CORE_MAX_MR_SIZE || iova + length < iova ||
        r->pbl.page_shift > ROCX_MAX_PAGE_SHIFT ||
        offset >= (1u << r->pbl.page_shift)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (!rocx_pd_valid(c, pdn)) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    for (i = 1; i < ROCX_CORE_MR_SLOTS; i++) {
        if (!c->rdma.mr[i].valid) {
            mr = &c->rdma.mr[i];
            break;
        }
    }
    if (!mr) {
        res->status = ROCX_AQ_STS_NO_RESOURCE;
        return;
    }
    res->status = rocx_pbl_copy(c, &r->pbl, offset + length, &mr->pbl);
    if (res->status != ROCX_AQ_STS_OK) {
        return;
    }
    mr->valid = true;
    mr->kind = ROCX_MR_KIND_REG;
    mr->fr_valid = false;
    /* A new variant, so keys of earlier regions at this index go stale. */
    mr->variant++;
    mr->pdn = pdn;
    mr->access = access;
    mr->iova = iova;
    mr->length = length;
    mr->offset = offset;
    res->result = ROCX_FIELD_PREP(ROCX_KEY_INDEX_MASK, i) |
                  ROCX_FIELD_PREP(ROCX_KEY_VARIANT_MASK, mr->variant);
}

RocxMr *rocx_mr_lookup(RocxCore *c, uint32_t key)
{
    uint32_t idx = ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, key);
    RocxMr *mr;

    if (idx < 1 || idx >= ROCX_CORE_MR_SLOTS) {
        return NULL;
    }
    mr = &c->rdma.mr[idx];
    /* A free fast-register MR has no key at all (rocx-fr.c). */
    if (!mr->valid ||
        mr->variant != ROCX_FIELD_GET(ROCX_KEY_VARIANT_MASK, key) ||
        (mr->kind == ROCX_MR_KIND_FAST && !mr->fr_valid)) {
        return NULL;
    }
    return mr;
}

void rocx_cmd_dereg_mr(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res)
{
    const struct rocx_aq_dereg_mr *d = (const void *)cmd;
    uint32_t key = ldl_le_p(&d->key);
    uint32_t idx = ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, key);
    RocxMr *mr;

    if (idx < 1 || idx >= ROCX_CORE_MR_SLOTS) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    /*
     * A fast-register MR by its index alone: REG_MR WQEs gave it variants
     * the driver may not know (rocx-device.rst, "Fast registration").
     */
    mr = rocx_fr_slot(c, key) ?: rocx_mr_lookup(c, key);
    if (!mr) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /*
     * Every access looks the key up again, so from here on the device
     * never touches these pages; nor through a window bound to it.
     */
    rocx_mw_mr_gone(c, key);
    rocx_pbl_free(c, &mr->pbl);
    mr->valid = false;
}

/*
 * REREG_MR: the region keeps its key and changes what valid names; every
 * check is made before anything changes, so a failure leaves it as it was.
 */
void rocx_cmd_rereg_mr(RocxCore *c, const union rocx_aq_cmd *cmd,
                       RocxAqResult *res)
{
    const struct rocx_aq_rereg_mr *r = (const void *)cmd;
    const uint32_t known_valid = ROCX_REREG_TRANS | ROCX_REREG_PD |
                                 ROCX_REREG_ACCESS;
    const uint32_t known = ROCX_ACCESS_LOCAL_WRITE | ROCX_ACCESS_REMOTE_WRITE |
                           ROCX_ACCESS_REMOTE_READ | ROCX_ACCESS_REMOTE_ATOMIC |
                           ROCX_ACCESS_MW_BIND;
    uint32_t key = ldl_le_p(&r->key);
    uint32_t valid = ldl_le_p(&r->valid);
    uint32_t pdn = ldl_le_p(&r->pdn);
    uint32_t access = ldl_le_p(&r->access);
    uint64_t iova = ldq_le_p(&r->iova);
    uint64_t length = ldq_le_p(&r->length);
    uint32_t offset = ldl_le_p(&r->offset);
    uint32_t idx = ROCX_FIELD_GET(ROCX_KEY_INDEX_MASK, key);
    RocxPbl pbl = { 0 };
    RocxMr *mr;

    if (idx < 1 || idx >= ROCX_CORE_MR_SLOTS || !valid ||
        (valid & ~known_valid) || ldl_le_p(&r->rsvd1) ||
        ((valid & ROCX_REREG_PD) && (pdn < 1 || pdn > ROCX_CORE_MAX_PD)) ||
        ((valid & ROCX_REREG_ACCESS) && (access & ~known)) ||
        ((valid & ROCX_REREG_TRANS) &&
         (length > ROCX_CORE_MAX_MR_SIZE || iova + length < iova ||
          r->pbl.page_shift > ROCX_MAX_PAGE_SHIFT ||
          offset >= (1u << r->pbl.page_shift)))) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    /* Fast-register and DMA MRs are not re-registered (rocx-fr.c). */
    if (c->rdma.mr[idx].valid && c->rdma.mr[idx].kind != ROCX_MR_KIND_REG) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    mr = rocx_mr_lookup(c, key);
    if (!mr || ((valid & ROCX_REREG_PD) && !rocx_pd_valid(c, pdn))) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* IBTA: a region with windows bound cannot be re-registered. */
    if (rocx_mr_has_mw(c, key)) {
        res->status = ROCX_AQ_STS_BAD_STATE;
        return;
    }
    if (valid & ROCX_REREG_TRANS) {
        res->status = rocx_pbl_copy(c, &r->pbl, offset + length, &pbl);
        if (res->status != ROCX_AQ_STS_OK) {
            return;
        }
        rocx_pbl_free(c, &mr->pbl);
        mr->pbl = pbl;
        mr->iova = iova;
        mr->length = length;
        mr->offset = offset;
    }
    if (valid & ROCX_REREG_PD) {
        mr->pdn = pdn;
    }
    if (valid & ROCX_REREG_ACCESS) {
        mr->access = access;
    }
    res->result = key;
}

bool rocx_pd_has_mr(RocxCore *c, uint32_t pdn)
{
    unsigned i;

    for (i = 1; i < ROCX_CORE_MR_SLOTS; i++) {
        if (c->rdma.mr[i].valid && c->rdma.mr[i].pdn == pdn) {
            return true;
        }
    }
    return false;
}

uint8_t rocx_mr_check(RocxCore *c, uint32_t key, uint32_t pdn, uint64_t va,
                      uint64_t len, uint32_t access, RocxMr **mrp)
{
    RocxMr *mr;

    if (key == ROCX_LOCAL_DMA_LKEY) {
        uint8_t err = rocx_fr_local_dma(c, pdn, access, &mr);

        if (err) {
            return err;
        }
    } else {
        mr = rocx_mr_lookup(c, key);
        if (!mr || mr->pdn != pdn) {
            return ROCX_VERR_BAD_LKEY;
        }
    }
    if ((mr->access & access) != access) {
        return ROCX_VERR_LKEY_ACCESS;
    }
    if (va < mr->iova || va - mr->iova > mr->length ||
        len > mr->length - (va - mr->iova)) {
        return ROCX_VERR_LKEY_BOUNDS;
    }
    if (mrp) {
        *mrp = mr;
    }
    return ROCX_VERR_NONE;
}

int rocx_mr_rw(RocxCore *c, const RocxMr *mr, uint64_t va, void *buf,
               size_t len, bool write)
{
    /* A DMA MR's iova is the bus address (rocx-fr.c). */
    if (mr->kind == ROCX_MR_KIND_DMA) {
        return write ? rocx_dma_write(c, va, buf, len)
                     : rocx_dma_read(c, va, buf, len);
    }
    return rocx_pbl_rw(c, &mr->pbl, va - mr->iova + mr->offset, buf, len,
                       write);
}

uint8_t rocx_sge_rw(RocxCore *c, const RocxSge *sge, unsigned n,
                    uint32_t pdn, uint32_t access, uint64_t off, void *buf,
                    size_t len, bool write)
{
    uint8_t *b = buf;
    unsigned i;

    for (i = 0; i < n && len; i++) {
        uint64_t chunk;
        RocxMr *mr;
        uint8_t err;

        if (off >= sge[i].length) {
            off -= sge[i].length;
            continue;
        }
        chunk = MIN((uint64_t)len, sge[i].length - off);
        err = rocx_mr_check(c, sge[i].lkey, pdn, sge[i].addr + off, chunk,
                            access, &mr);
        if (err) {
            return err;
        }
        if (rocx_mr_rw(c, mr, sge[i].addr + off, b, chunk, write)) {
            return ROCX_VERR_DMA;
        }
        b += chunk;
        len -= chunk;
        off = 0;
    }
    return len ? ROCX_VERR_RQ_OVERFLOW : ROCX_VERR_NONE;
}
