// SPDX-License-Identifier: GPL-2.0
/*
 * Write garbage to every rocx register and doorbell through the BARs'
 * sysfs resource files, with no driver bound, to show that nothing a guest
 * writes can crash or hang the device model.
 *
 * Usage: hostile PCI_DEVICE_DIR [ROUNDS]
 *
 * Every value written to a register has bit 31 set (random rounds) or is
 * one of a few fixed patterns: the device DMAs wherever its address
 * registers point, and with the high halves of those addresses non-zero it
 * points outside guest RAM.  Without an IOMMU a device told to write into
 * guest RAM would do so; that is not a model bug, so the test avoids it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rocx/rocx_hw.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static volatile void *map_bar(const char *dir, int bar, size_t *len)
{
	char path[512];
	void *p;
	off_t sz;
	int fd;

	snprintf(path, sizeof(path), "%s/resource%d", dir, bar);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	sz = lseek(fd, 0, SEEK_END);
	p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "mmap %s: %s\n", path, strerror(errno));
		exit(2);
	}
	close(fd);
	*len = sz;
	return p;
}

static void w32(volatile void *base, size_t off, uint32_t v)
{
	*(volatile uint32_t *)((volatile char *)base + off) = v;
}

static uint32_t r32(volatile void *base, size_t off)
{
	return *(volatile uint32_t *)((volatile char *)base + off);
}

static void w64(volatile void *base, size_t off, uint64_t v)
{
	*(volatile uint64_t *)((volatile char *)base + off) = v;
}

static void regs_round(volatile void *regs, size_t len, int round)
{
	static const uint32_t patterns[] = {
		0xffffffff, 0xdeadbeef, 0x80000001, 0xa5a5a5a5,
	};
	size_t off;

	for (off = 0; off + 4 <= len; off += 4) {
		uint32_t v = round < 4 ? patterns[round] :
			     (uint32_t)next_rand() | 0x80000000u;

		w32(regs, off, v);
		(void)r32(regs, off);
	}
	/* Narrow and misaligned accesses. */
	for (off = 0; off < 0x200; off += 3) {
		*((volatile uint8_t *)regs + off) = (uint8_t)next_rand();
		*(volatile uint16_t *)((volatile uint8_t *)regs + (off & ~1UL)) =
			(uint16_t)next_rand();
	}
}

static void db_round(volatile void *db, size_t len)
{
	size_t page, off;

	for (page = 0; page * ROCX_DB_PAGE_SIZE < len; page++) {
		size_t base = page * ROCX_DB_PAGE_SIZE;

		/* Every defined doorbell and a few undefined offsets. */
		for (off = 0; off <= 0x48; off += 8)
			w64(db, base + off, next_rand());
		w64(db, base + ROCX_DB_PAGE_SIZE - 8, next_rand());
		w32(db, base + ROCX_DB_SQ, (uint32_t)next_rand());
		*((volatile uint8_t *)db + base + ROCX_DB_CQ + 1) = 0xff;
		(void)*(volatile uint64_t *)((volatile char *)db + base);
	}
}

int main(int argc, char **argv)
{
	volatile void *regs, *db;
	size_t regs_len, db_len;
	int rounds, i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PCI_DEVICE_DIR [ROUNDS]\n", argv[0]);
		return 2;
	}
	rounds = argc > 2 ? atoi(argv[2]) : 8;
	regs = map_bar(argv[1], ROCX_BAR_REGS, &regs_len);
	db = map_bar(argv[1], ROCX_BAR_DB, &db_len);

	if (r32(regs, ROCX_REG_ID) != ROCX_ID_MAGIC) {
		fprintf(stderr, "not a rocx: ID %#x\n", r32(regs, ROCX_REG_ID));
		return 1;
	}
	for (i = 0; i < rounds; i++) {
		regs_round(regs, regs_len, i);
		db_round(db, db_len);
	}
	/* The device must still answer, and must have noticed. */
	printf("ID %#x GUEST_ERR_COUNT %u LAST_GUEST_ERR %#x\n",
	       r32(regs, ROCX_REG_ID), r32(regs, ROCX_REG_GUEST_ERR_COUNT),
	       r32(regs, ROCX_REG_LAST_GUEST_ERR));
	if (r32(regs, ROCX_REG_ID) != ROCX_ID_MAGIC)
		return 1;
	if (r32(regs, ROCX_REG_GUEST_ERR_COUNT) == 0) {
		fprintf(stderr, "device counted no guest errors\n");
		return 1;
	}
	return 0;
}
