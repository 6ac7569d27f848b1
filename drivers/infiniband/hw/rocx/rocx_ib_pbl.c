// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib page lists: how queue buffers and memory regions are described
 * to the device (struct rocx_pbl, rocx-device.rst "Page lists").
 *
 * The device copies a list when it executes the command that names it, so
 * a list lives only as long as one admin command: built from the pinned
 * user memory, handed over, freed.  Its table pages are separate 4 KiB
 * coherent allocations rather than one large one, so that a 1 GiB region
 * (513 table pages) does not need 2 MiB of contiguous memory.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "rocx_ib.h"

#define ROCX_IB_PBL_TBL_SIZE	(ROCX_PBL_ENTRIES_PER_PAGE * sizeof(__le64))

/**
 * rocx_ib_pbl_levels() - page-list depth the device needs for @npages
 * @npages: pages in the buffer
 *
 * Return: 0 (the page itself), 1 (one table), 2 (a table of tables), or
 * -E2BIG beyond ROCX_PBL_MAX_PAGES and -EINVAL for no page at all.
 */
VISIBLE_IF_KUNIT int rocx_ib_pbl_levels(u32 npages)
{
	if (!npages)
		return -EINVAL;
	if (npages == 1)
		return 0;
	if (npages <= ROCX_PBL_ENTRIES_PER_PAGE)
		return 1;
	if (npages <= ROCX_PBL_MAX_PAGES)
		return 2;
	return -E2BIG;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_pbl_levels);

/**
 * rocx_ib_pgsz_bitmap() - page sizes a page list may use
 * @page_size_cap: the identify block's page_size_cap (bit n: 2^n bytes)
 *
 * The contract bounds page lists to 2^12..2^21 whatever the device claims
 * for its MRs; a device that reports none of those gets 4 KiB, which every
 * 1.1 device supports.
 */
unsigned long rocx_ib_pgsz_bitmap(u64 page_size_cap)
{
	unsigned long bitmap = page_size_cap &
			       GENMASK_ULL(ROCX_MAX_PAGE_SHIFT,
					   ROCX_MIN_PAGE_SHIFT);

	return bitmap ?: BIT(ROCX_MIN_PAGE_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_pgsz_bitmap);

/**
 * rocx_ib_pbl_init() - allocate the tables of a page list
 * @pbl: list to set up; rocx_ib_pbl_destroy() frees it, also on error
 * @dma_dev: device the tables are mapped for
 * @npages: pages the list will hold (1..ROCX_PBL_MAX_PAGES)
 * @page_shift: log2 of their size (ROCX_MIN_PAGE_SHIFT..ROCX_MAX_PAGE_SHIFT)
 *
 * Level 2 tables are linked here; the caller then stores every page
 * address with rocx_ib_pbl_set().
 *
 * Return: 0, -EINVAL/-E2BIG for a list the contract cannot express, or
 * -ENOMEM.
 */
int rocx_ib_pbl_init(struct rocx_ib_pbl *pbl, struct device *dma_dev,
		     u32 npages, u8 page_shift)
{
	unsigned int i;
	int levels;

	memset(pbl, 0, sizeof(*pbl));
	pbl->dma_dev = dma_dev;
	if (page_shift < ROCX_MIN_PAGE_SHIFT ||
	    page_shift > ROCX_MAX_PAGE_SHIFT)
		return -EINVAL;
	levels = rocx_ib_pbl_levels(npages);
	if (levels < 0)
		return levels;
	pbl->npages = npages;
	pbl->page_shift = page_shift;
	pbl->levels = levels;
	if (!levels)
		return 0;

	/* Level 1: one table; level 2: the root plus one table per 512. */
	pbl->ntbl = levels == 1 ? 1 :
		    1 + DIV_ROUND_UP(npages, ROCX_PBL_ENTRIES_PER_PAGE);
	pbl->tbl = kcalloc(pbl->ntbl, sizeof(*pbl->tbl), GFP_KERNEL);
	pbl->tbl_dma = kcalloc(pbl->ntbl, sizeof(*pbl->tbl_dma), GFP_KERNEL);
	if (!pbl->tbl || !pbl->tbl_dma)
		return -ENOMEM;
	for (i = 0; i < pbl->ntbl; i++) {
		pbl->tbl[i] = dma_alloc_coherent(dma_dev, ROCX_IB_PBL_TBL_SIZE,
						 &pbl->tbl_dma[i], GFP_KERNEL);
		if (!pbl->tbl[i])
			return -ENOMEM;
	}
	for (i = 1; i < pbl->ntbl; i++)
		pbl->tbl[0][i - 1] = cpu_to_le64(pbl->tbl_dma[i]);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_pbl_init);

/**
 * rocx_ib_pbl_set() - store the address of page @i
 * @pbl: list from rocx_ib_pbl_init()
 * @i: page number, < @pbl->npages
 * @addr: bus address, aligned to the list's page size
 */
void rocx_ib_pbl_set(struct rocx_ib_pbl *pbl, u32 i, u64 addr)
{
	if (WARN_ON_ONCE(i >= pbl->npages))
		return;
	switch (pbl->levels) {
	case 0:
		pbl->addr0 = addr;
		break;
	case 1:
		pbl->tbl[0][i] = cpu_to_le64(addr);
		break;
	default:
		pbl->tbl[1 + i / ROCX_PBL_ENTRIES_PER_PAGE]
			[i % ROCX_PBL_ENTRIES_PER_PAGE] = cpu_to_le64(addr);
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_pbl_set);

/**
 * rocx_ib_pbl_to_hw() - the struct rocx_pbl a command carries
 * @pbl: a complete list
 * @hw: filled in
 */
void rocx_ib_pbl_to_hw(const struct rocx_ib_pbl *pbl, struct rocx_pbl *hw)
{
	memset(hw, 0, sizeof(*hw));
	hw->addr = cpu_to_le64(pbl->levels ? pbl->tbl_dma[0] : pbl->addr0);
	hw->npages = cpu_to_le32(pbl->npages);
	hw->page_shift = pbl->page_shift;
	hw->levels = pbl->levels;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_pbl_to_hw);

/**
 * rocx_ib_pbl_destroy() - free a list's tables
 * @pbl: list from rocx_ib_pbl_init(), complete or not
 *
 * Only once the command that carried it has completed: the device reads
 * the tables while it executes the command.
 */
void rocx_ib_pbl_destroy(struct rocx_ib_pbl *pbl)
{
	unsigned int i;

	for (i = 0; pbl->tbl && pbl->tbl_dma && i < pbl->ntbl; i++)
		if (pbl->tbl[i])
			dma_free_coherent(pbl->dma_dev, ROCX_IB_PBL_TBL_SIZE,
					  pbl->tbl[i], pbl->tbl_dma[i]);
	kfree(pbl->tbl);
	kfree(pbl->tbl_dma);
	pbl->tbl = NULL;
	pbl->tbl_dma = NULL;
	pbl->ntbl = 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_pbl_destroy);

/**
 * rocx_ib_pbl_from_umem() - page list of pinned user memory
 * @pbl: list to build; rocx_ib_pbl_destroy() frees it, also on error
 * @dma_dev: device the tables are mapped for
 * @umem: the pinned, DMA-mapped memory
 * @pgsz_bitmap: page sizes allowed (rocx_ib_pgsz_bitmap())
 * @iova: address the device will use for the first byte of @umem; 0 for
 *	a queue buffer, which then starts at offset 0 of its first page
 * @offset: set to the offset of @iova within the first page
 *
 * Picks the largest page size that describes @umem with the fewest pages,
 * so that huge pages cost one entry each.
 *
 * Return: 0, -EINVAL when no allowed page size fits the memory's layout,
 * -E2BIG when it needs more pages than a list holds, or -ENOMEM.
 */
int rocx_ib_pbl_from_umem(struct rocx_ib_pbl *pbl, struct device *dma_dev,
			  struct ib_umem *umem, unsigned long pgsz_bitmap,
			  u64 iova, u32 *offset)
{
	struct ib_block_iter biter;
	unsigned long pgsz;
	size_t npages;
	u32 i = 0;
	int err;

	memset(pbl, 0, sizeof(*pbl));
	pgsz = ib_umem_find_best_pgsz(umem, pgsz_bitmap, iova);
	if (!pgsz)
		return -EINVAL;
	npages = ib_umem_num_dma_blocks(umem, pgsz);
	if (npages > ROCX_PBL_MAX_PAGES)
		return -E2BIG;
	err = rocx_ib_pbl_init(pbl, dma_dev, npages, order_base_2(pgsz));
	if (err)
		return err;
	rdma_umem_for_each_dma_block(umem, &biter, pgsz)
		rocx_ib_pbl_set(pbl, i++, rdma_block_iter_dma_address(&biter));
	if (WARN_ON_ONCE(i != npages))
		return -EINVAL;
	*offset = iova & (pgsz - 1);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_pbl_from_umem);
