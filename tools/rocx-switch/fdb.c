// SPDX-License-Identifier: GPL-2.0
/*
 * Forwarding database: which port a (MAC, VLAN) was last seen on.
 *
 * A set-associative table: a key hashes to one bucket of SW_FDB_WAYS
 * entries.  A full bucket evicts its oldest entry, and an entry older than
 * the ageing time counts as absent, so no sweep is needed.
 */
#include <string.h>

#include "switch.h"

static uint64_t fdb_key(const uint8_t *mac, uint16_t vid)
{
	uint64_t k = 0;
	int i;

	for (i = 0; i < 6; i++)
		k = (k << 8) | mac[i];
	return k | ((uint64_t)(vid & 0xfff) << 48);
}

static unsigned int fdb_hash(uint64_t key)
{
	/* Fibonacci hashing: the low MAC bytes vary most, mix them up. */
	return (unsigned int)((key * 0x9e3779b97f4a7c15ULL) >> 52) &
	       (SW_FDB_BUCKETS - 1);
}

static bool fdb_live(const struct sw_fdb *fdb, const struct sw_fdb_entry *e,
		     uint64_t now_ms)
{
	return e->used && now_ms - e->seen_ms < fdb->age_ms;
}

void fdb_init(struct sw_fdb *fdb, uint64_t age_ms)
{
	memset(fdb, 0, sizeof(*fdb));
	fdb->age_ms = age_ms;
}

void fdb_learn(struct sw_fdb *fdb, const uint8_t *mac, uint16_t vid,
	       unsigned int port, uint64_t now_ms)
{
	uint64_t key = fdb_key(mac, vid);
	struct sw_fdb_entry *b = fdb->e[fdb_hash(key)];
	struct sw_fdb_entry *victim = &b[0];
	int i;

	for (i = 0; i < SW_FDB_WAYS; i++) {
		if (b[i].used && b[i].key == key) {
			if (b[i].port != port)
				fdb->moved++;
			b[i].port = port;
			b[i].seen_ms = now_ms;
			return;
		}
	}
	for (i = 0; i < SW_FDB_WAYS; i++) {
		if (!fdb_live(fdb, &b[i], now_ms)) {
			victim = &b[i];
			goto fill;
		}
		if (b[i].seen_ms < victim->seen_ms)
			victim = &b[i];
	}
	fdb->evicted++;
fill:
	victim->key = key;
	victim->port = port;
	victim->seen_ms = now_ms;
	victim->used = true;
	fdb->learned++;
}

int fdb_lookup(struct sw_fdb *fdb, const uint8_t *mac, uint16_t vid,
	       uint64_t now_ms)
{
	uint64_t key = fdb_key(mac, vid);
	struct sw_fdb_entry *b = fdb->e[fdb_hash(key)];
	int i;

	for (i = 0; i < SW_FDB_WAYS; i++)
		if (b[i].used && b[i].key == key)
			return fdb_live(fdb, &b[i], now_ms) ? b[i].port : -1;
	return -1;
}

unsigned int fdb_count(const struct sw_fdb *fdb, uint64_t now_ms)
{
	unsigned int n = 0, i, j;

	for (i = 0; i < SW_FDB_BUCKETS; i++)
		for (j = 0; j < SW_FDB_WAYS; j++)
			n += fdb_live(fdb, &fdb->e[i][j], now_ms);
	return n;
}
