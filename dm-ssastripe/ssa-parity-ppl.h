/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: the partial parity log's private header: its on-device
 * format (superblock, entry header), its state, and what its two files
 * share -- ssa-parity-ppl.c (the write path: slots, entries, the daemon
 * that moves the tail; life cycle) and ssa-parity-ppl-replay.c (the
 * superblock, and reading the log back and replaying it at the first
 * resume).  Design: the opening comment of ssa-parity-ppl.c.
 */
#ifndef SSA_PARITY_PPL_H
#define SSA_PARITY_PPL_H

#include "ssa-parity.h"

#define SSA_PPL_MAGIC		"SSAPPL01"
#define SSA_PPL_ENTRY_MAGIC	"SSAPPLE1"
#define SSA_PPL_VERSION		1
#define SSA_PPL_BLOCK		4096
#define SSA_PPL_BLOCK_SECTORS	(SSA_PPL_BLOCK >> SECTOR_SHIFT)
#define SSA_PPL_CLEAN		BIT(0)	/* flags: stopped by a suspend */
#define SSA_PPL_UNTRUSTED	BIT(1)	/* flags: given up; resync everything */
#define SSA_PPL_MIN_SLOTS	SSA_OP_LOCKS	/* the largest write fits */
#define SSA_PPL_POOL_ENTRIES	4
#define SSA_PPL_DAEMON_MS	1000
#define SSA_PPL_MIN_BUCKETS	1024	/* of @last: 4 a slot, at least this */
#define SSA_PPL_MAX_SLOTS	65536

struct ssa_ppl_sb {
	u8 magic[8];
	__le32 version;
	__le32 layout;
	__le32 members;
	__le32 chunk;		/* sectors */
	__le64 rows;		/* parity groups */
	__le64 slots;
	__le32 slot_sectors;
	__le32 flags;
	__le64 log_id;		/* random, in every entry of this log */
	__le64 tail;		/* entries with a lower seq are void */
	__le64 events;		/* superblock writes */
	__le64 sync_pos;	/* the initial sync's progress */
	__le32 csum;		/* crc32 of the bytes before it */
} __packed;

struct ssa_ppl_range {
	__le32 member;
	__le32 lo, hi;		/* sectors of the chunk the write changes */
} __packed;

struct ssa_ppl_hdr {
	u8 magic[8];
	__le64 log_id;
	__le64 seq;
	__le64 group;		/* the parity group */
	__le32 lo, hi;		/* its parity range, sectors of the chunk */
	__le32 nr;		/* ranges */
	__le32 pp_csum;		/* crc32 of the partial parity */
	__le32 csum;		/* crc32 of this header, with csum 0 */
	struct ssa_ppl_range ranges[SSA_MAX_MEMBERS];
} __packed;

struct ssa_ppl {
	struct ssa_ctx *sc;
	struct block_device *bdev;
	u64 slots;
	u32 slot_sectors;
	u32 pp_pages;		/* pages of a chunk */
	u64 log_id;
	mempool_t *page_pool;

	spinlock_t lock;	/* the ring, @pending, @logged */
	u64 head;		/* the next entry's seq */
	u64 tail_mem;		/* entries below have been released */
	u64 tail_disk;		/* the superblock's tail */
	u64 flushed;		/* entries below: their writes are durable */
	u8 *released;		/* a slot's entry was released */
	u64 *last;		/* by group hash: newest entry's seq + 1, or 0 */
	unsigned int last_bits;	/* log2 of @last's buckets */
	struct list_head waiting;	/* writes waiting for slots, in order */
	struct list_head held;	/* writes waiting for a flush (their groups) */
	struct list_head pending;	/* groups to log (slots taken) */
	struct list_head logged;	/* groups whose entries are written */

	struct workqueue_struct *wq;
	struct work_struct log_work;	/* writes the entries of @pending */
	struct bio_set bs;		/* the entries' bios */
	mempool_t *pio_pool;		/* their struct ssa_ppl_io */
	struct work_struct done_work;	/* starts the writes of @logged */
	struct delayed_work daemon;	/* moves the tail on */
	struct mutex io_mutex;	/* superblock writes */
	struct page *sb_page;
	u64 events;
	u64 replayed;
	int io_error;		/* an entry write's */
	bool loaded;		/* the first resume read the device */
	bool active;		/* resumed: the daemon runs */
	bool failed;		/* writes are no longer logged */
	bool given_up;		/* ... and the superblock says so */
};

/* One entry being written: its bio's pages, its group's countdown. */
struct ssa_ppl_io {
	struct ssa_ppl *ppl;
	struct ssa_pgroup *pg;
	unsigned int nr_pages;
	struct page *pages[];
};

static inline const char *ssa_ppl_name(struct ssa_ppl *ppl)
{
	return dm_device_name(dm_table_get_md(ppl->sc->ti->table));
}

static inline u64 ssa_ppl_slot(struct ssa_ppl *ppl, u64 seq)
{
	u64 slot;

	div64_u64_rem(seq, ppl->slots, &slot);
	return slot;
}

static inline sector_t ssa_ppl_slot_sector(struct ssa_ppl *ppl, u64 seq)
{
	return SSA_PPL_BLOCK_SECTORS +
	       ssa_ppl_slot(ppl, seq) * ppl->slot_sectors;
}

int ssa_ppl_write_sb(struct ssa_ppl *ppl, u64 tail, u32 flags);
void ssa_ppl_fail(struct ssa_ppl *ppl, const char *what, int r);
int ssa_ppl_sb_check(struct ssa_ppl *ppl, char **error);
int ssa_ppl_load(struct ssa_ppl *ppl);

#endif
