/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ssa-cache-priv.h - the ssacache target's context, blocks and per-bio
 * data, shared by ssa-cache.c (the target), ssa-cache-block.c (blocks and
 * the bios to the origin) and ssa-cache-io.c (the target's bios and the
 * work item).
 */
#ifndef SSA_CACHE_PRIV_H
#define SSA_CACHE_PRIV_H

#include <linux/bio.h>
#include <linux/device-mapper.h>
#include <linux/hrtimer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define SSAC_STREAMS		8	/* sequential read streams followed */
#define SSAC_SEQ_TRIGGER	2	/* reads in a row before prefetching */
#define SSAC_POOL		64	/* bios the cache can always allocate */
#define SSAC_MAX_BLOCK		2048	/* sectors: 1 MiB */

enum ssac_state { SSAC_FREE, SSAC_CLEAN, SSAC_DIRTY, SSAC_FILL, SSAC_DESTAGE };

struct ssac_block {
	struct hlist_node hash;
	struct list_head list;		/* free, lru, dirty or destaging */
	struct list_head done;		/* first block of a finished run */
	struct ssac_block *next;	/* next block of the same run */
	struct bio *demand;		/* the read that asked for this fill */
	sector_t blk;			/* block number on the origin */
	u64 seq;			/* dirty since this write */
	u8 state;
	blk_status_t status;		/* of the run that finished */
	bool prefetched;		/* filled ahead of a read, not read yet */
};

/* The front of every bio the cache sends to the origin. */
struct ssac_job {
	struct ssa_cache *sc;
	struct ssac_block *first;	/* fill or destage run */
	struct bio *orig;		/* pass-through: the bio it carries */
	struct bio bio;
};

/* Per-bio data of the bios the target is given. */
struct ssac_io {
	struct list_head passing;	/* on sc->passing while written through */
	struct hrtimer timer;		/* the emulated transfer */
	u64 flush_seq;
	blk_status_t status;
	bool seen;			/* counted, streams updated */
	bool overlay;			/* read from a failed cache's origin */
	bool throttled;			/* a write that waited for dirty room */
};

struct ssac_stream {
	sector_t next;			/* block a sequential read would start at */
	unsigned int count;		/* reads in a row */
	u64 stamp;
};

struct ssa_cache {
	struct dm_target *ti;
	struct dm_dev *origin;

	/* the table */
	unsigned int block_sectors;
	unsigned int block_shift;	/* log2(block_sectors) */
	unsigned int cache_blocks;
	unsigned int low_water;
	unsigned int high_water;
	unsigned int max_dirty;
	unsigned int destage_depth;
	unsigned int destage_run;	/* blocks a destage write carries at most */
	unsigned int cache_max;		/* sectors: larger requests bypass */
	unsigned int prefetch;		/* blocks */
	unsigned int transfer_mbps;	/* 0: no emulated transfer time */

	/* the blocks: owned by the work item */
	void *mem;
	struct ssac_block *blocks;
	struct hlist_head *hash;
	unsigned int hash_bits;
	struct list_head free, lru, dirty, destaging;
	unsigned int nr_free, nr_clean, nr_dirty;
	unsigned int nr_destaging, nr_destage_runs;	/* blocks, bios */
	unsigned int nr_fill_runs;	/* fill bios in flight */
	bool gate;			/* a write waits for room: so do later ones */
	u64 seq;
	bool destaging_on;		/* between the water marks, going down */
	bool failed;			/* a destage failed: writes go through */
	struct bio_list waiting;	/* bios to try again, arrival order */
	struct bio_list flushes;	/* empty flushes, oldest first */
	struct bio_list flushing;	/* the ones the origin flush carries */
	bool oflush_busy;
	struct list_head passing;	/* writes sent through, in flight */
	unsigned int nr_throttled;
	struct ssac_stream streams[SSAC_STREAMS];
	u64 stream_clock;
	u64 busy_until;			/* the emulated transfer server, ns */

	/* fed by map(), completions and messages, under @lock */
	spinlock_t lock;
	struct bio_list incoming;
	struct bio_list passed;		/* pass-through bios finished */
	struct list_head runs;		/* fill and destage runs finished */
	blk_status_t oflush_status;
	bool oflush_done;
	bool crash;
	bool reset;			/* zero the counters */
	bool kick;

	struct workqueue_struct *wq;
	struct work_struct work;
	wait_queue_head_t drain_wait;
	bool draining;			/* suspending: destage everything */
	bool drained;
	struct bio_set bs;

	/* counters for status; written by the work item only */
	struct ssac_stats {
		u64 read_hits, read_misses, write_hits, write_through;
		u64 destaged, prefetched, prefetch_hits, throttled, lost;
		u64 destage_errors, fill_errors;
	} st;
};

static inline struct ssac_io *ssac_io(struct bio *bio)
{
	return dm_per_bio_data(bio, sizeof(struct ssac_io));
}

static inline void *ssac_data(struct ssa_cache *sc, struct ssac_block *b)
{
	return sc->mem + ((size_t)(b - sc->blocks) << (sc->block_shift + SECTOR_SHIFT));
}

static inline size_t ssac_block_bytes(struct ssa_cache *sc)
{
	return (size_t)sc->block_sectors << SECTOR_SHIFT;
}

static inline void ssac_kick(struct ssa_cache *sc)
{
	queue_work(sc->wq, &sc->work);
}

/* ssa-cache-block.c */
struct ssac_block *ssac_lookup(struct ssa_cache *sc, sector_t blk);
unsigned int ssac_room(struct ssa_cache *sc);
struct ssac_block *ssac_alloc(struct ssa_cache *sc, sector_t blk);
void ssac_forget(struct ssa_cache *sc, struct ssac_block *b);
void ssac_make_clean(struct ssa_cache *sc, struct ssac_block *b);
void ssac_make_dirty(struct ssa_cache *sc, struct ssac_block *b);
void ssac_redirty(struct ssa_cache *sc, struct ssac_block *b);
void ssac_copy(struct ssa_cache *sc, struct bio *bio, struct ssac_block *b,
	       bool to_block);
void ssac_zero(struct ssa_cache *sc, struct bio *bio, struct ssac_block *b);
void ssac_complete(struct ssa_cache *sc, struct bio *bio, blk_status_t status);
struct ssac_job *ssac_new_job(struct ssa_cache *sc, unsigned int vecs,
			      blk_opf_t opf, bio_end_io_t *endio);
void ssac_oflush_endio(struct bio *bio);
unsigned int ssac_run_limit(struct ssa_cache *sc);
bool ssac_overlaps_passing(struct ssa_cache *sc, sector_t start, sector_t end);
bool ssac_block_passing(struct ssa_cache *sc, struct ssac_block *b);
void ssac_send(struct ssa_cache *sc, struct bio *bio);
void ssac_destage_run(struct ssa_cache *sc, struct ssac_block *b,
		      unsigned int limit);
struct ssac_block *ssac_oldest_dirty(struct ssa_cache *sc, u64 upto);
void ssac_destage(struct ssa_cache *sc);
void ssac_fill(struct ssa_cache *sc, sector_t first, sector_t last,
	       struct bio *demand);

/* ssa-cache-io.c */
void ssac_work(struct work_struct *work);

#endif
