/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: what the files of the parity layouts share (private to
 * them): the operation, group and task of a write, the layouts' state,
 * and the functions one file calls in another.  ssa-parity.c says how
 * the parts fit together.
 */
#ifndef SSA_PARITY_H
#define SSA_PARITY_H

#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"
#include "ssa-compat.h"
#include "ssa-parity-plan.h"

#define SSA_PARITY_MAX_CHUNK	2048	/* sectors: 1 MiB */
#define SSA_OP_POOL		4	/* operations kept in reserve */
#define SSA_LOCK_BITS		8
#define SSA_RECON_PAGES		16	/* a reconstruction slice per member */
#define SSA_RECON_SECTORS	(SSA_RECON_PAGES << (PAGE_SHIFT - SECTOR_SHIFT))

/* Bios each kind of task issues. */
static const u8 ssa_task_bios[] = {
	[SSA_T_RMW_DATA] = 2,
	[SSA_T_WRITE_DATA] = 1,
	[SSA_T_READ] = 1,
	[SSA_T_RMW_PARITY] = 2,
	[SSA_T_WRITE_PARITY] = 1,
};

/* The background walks over the groups; see ssa_walk_names. */
enum ssa_walk {
	SSA_WALK_CHECK,		/* message "check": count mismatches */
	SSA_WALK_REPAIR,	/* message "repair": and rewrite the parity */
	SSA_WALK_RESYNC,	/* the initial sync: a repair from sync_pos */
	SSA_WALK_REBUILD,	/* rebuild of a replaced member */
};

/* In the kernel log and in the status line. */
static const char *const ssa_walk_names[][2] = {
	[SSA_WALK_CHECK] = { "check", "check" },
	[SSA_WALK_REPAIR] = { "repair", "repair" },
	[SSA_WALK_RESYNC] = { "initial sync", "resync" },
	[SSA_WALK_REBUILD] = { "rebuild", "rebuild" },
};

struct ssa_parity {
	struct ssa_ctx *sc;
	spinlock_t lock;	/* buckets, waiting, ready */
	struct hlist_head buckets[1 << SSA_LOCK_BITS];
	struct list_head waiting;	/* operations waiting for a lock */
	wait_queue_head_t lock_wait;	/* ssa_pg_wait_lock()'s sleepers */
	struct list_head ready;		/* tasks whose bio completed */
	bool retry;		/* something unlocked: retry the waiting */
	struct work_struct work;	/* advances tasks (never blocks on memory) */
	/*
	 * Starts operations that waited for a lock.  Starting may wait for
	 * reserve pages, which only operations in flight give back, and they
	 * need @work to advance: so starting has its own workqueue.
	 */
	struct workqueue_struct *start_wq;
	struct work_struct start_work;
	/*
	 * whole-stripe writes sent together under a plug
	 * (ssa_parity_op_start())
	 */
	struct work_struct plug_work;
	struct list_head plugged;
	mempool_t *op_pool;
	mempool_t *page_pool;
	struct mutex reserve;	/* one operation at a time on the reserve */
	unsigned int max_tasks;

	/*
	 * Degraded operation.  Rebuilding a member's contents from the others
	 * reads every other member of the group synchronously into @scratch
	 * (one slice buffer per member, one accumulator) under @scratch_mutex,
	 * from one of two workqueues: recovery of a write's lost old data
	 * (the write holds its group locks) and reconstruction of reads
	 * (which take the group lock first, so they never see a write half
	 * done).  Neither waits for the other while holding the mutex.
	 */
	struct page ***scratch;
	struct mutex scratch_mutex;	/* one rebuild at a time on @scratch */
	struct workqueue_struct *recover_wq;
	struct work_struct recover_work;
	struct list_head recover;	/* groups waiting for recovery */
	struct workqueue_struct *recon_wq;
	struct work_struct recon_work;
	struct bio_list recon_children;	/* failed read children to redo */
	struct bio_list recon_parents;	/* reads mapped to a failed member */

	/*
	 * check / repair (messages) and the initial sync: a walk over the
	 * groups.  Groups below @sync_pos have parity computed from their
	 * data; the others hold whatever the members held before, so a
	 * member lost there cannot be rebuilt.
	 */
	struct work_struct scrub_work;
	struct ssa_plock scrub_lock;
	enum ssa_walk walk;	/* the kind of the current (or last) walk */
	u64 sync_pos;		/* groups known to be in sync */

	/*
	 * Rebuild of one member onto a replacement (table "rebuild <m>").
	 * Its chunk of a group is readable once the group's bit is set in
	 * @rb_done: by the walk, in group order, or first thing when a write
	 * that locked the group starts (the write may read it).  Until then
	 * reads of it are rebuilt from the others, as for a failed member.
	 */
	int rb_member;		/* the member, or -1 */
	bool rb_active;		/* it has groups not yet rebuilt */
	unsigned long *rb_done;	/* groups whose chunk of it is rebuilt */
	u64 rb_pos;		/* the walk's next group */
	struct work_struct prebuild_work;
	struct list_head prebuild;	/* writes whose groups come first */
	bool scrub_stop;
	unsigned long scrub_running;	/* bit 0: a walk is under way */
	u64 scrub_pos;		/* groups done */
	u64 mismatches;		/* groups whose parity did not match */

	struct ssa_bitmap *bm;	/* the write-intent bitmap, or NULL */
	struct ssa_ppl *ppl;	/* the partial parity log, or NULL */
};

/* The parity layouts' private state (sc->priv). */
static inline struct ssa_parity *ssa_par(struct ssa_ctx *sc)
{
	return sc->priv;
}

static inline struct ssa_ptask *ssa_parity_task(struct ssa_pgroup *pg,
						struct ssa_pop *op)
{
	return &op->tasks[pg->xfirst + pg->nr_reads];
}

static inline struct page **ssa_ptask_pages(struct ssa_ptask *t)
{
	return &t->op->pages[t->page0];
}

static inline void *ssa_parity_buf_at(struct page **pages, u32 byte)
{
	return page_address(pages[byte >> PAGE_SHIFT]) + offset_in_page(byte);
}

/* What ssa_parity_xfer() does with the bytes it moves. */
enum ssa_xfer {
	SSA_XFER_COPY_IN,	/* bio data -> buffer */
	SSA_XFER_XOR_IN,	/* buffer ^= bio data */
	SSA_XFER_COPY_OUT,	/* buffer -> bio data */
};

/* ssa-parity-buf.c */
void ssa_parity_xor_buf(struct page **dst, u32 doff, struct page **src,
			u32 soff, u32 bytes);
void ssa_parity_xfer(struct bio *bio, struct bvec_iter *it, struct page **buf,
		     u32 off, u32 bytes, enum ssa_xfer how);
void ssa_parity_zero_buf(struct page **pages, u32 bytes);
void ssa_parity_compute(struct ssa_pop *op, struct ssa_pgroup *pg);
void ssa_parity_bio_to_buf(struct ssa_pop *op, struct page **dst, u32 doff,
			   u32 loff, u32 sectors, bool copy);
void ssa_parity_copy_buf(struct page **dst, u32 doff, struct page **src,
			 u32 soff, u32 bytes);
void ssa_parity_get_pages(struct ssa_parity *par, struct ssa_pop *op);
void ssa_parity_put_pages(struct ssa_parity *par, struct ssa_pop *op);

/* ssa-parity-lock.c: the group locks */
bool ssa_pg_lock_or_wait(struct ssa_parity *par, struct ssa_pop *op);
void ssa_pg_unlock(struct ssa_ctx *sc, struct ssa_pop *op);
void ssa_pg_wait_lock(struct ssa_parity *par, struct ssa_plock *lk, u64 key);
void ssa_pg_drop_lock(struct ssa_ctx *sc, struct ssa_plock *lk);

/* ssa-parity-write.c */
unsigned int ssa_parity_nr_failed(struct ssa_ctx *sc, int *first);
bool ssa_parity_rb_active(struct ssa_ctx *sc);
unsigned int ssa_parity_nr_lost(struct ssa_ctx *sc);
bool ssa_parity_degraded(struct ssa_ctx *sc);
bool ssa_parity_survivable(struct ssa_ctx *sc, blk_status_t status);
void ssa_parity_try(struct ssa_pop *op, struct ssa_pgroup *pg);
void ssa_parity_writes(struct ssa_pop *op, struct ssa_pgroup *pg);
void ssa_parity_started(struct bio *bio);
void ssa_parity_op_start(struct ssa_pop *op, bool from_map);
void ssa_parity_rb_refuse(struct ssa_pop *op);
void ssa_parity_op_go(struct ssa_pop *op, bool from_map);
void ssa_parity_bm_go(struct ssa_ctx *sc, struct ssa_bm_wait *w);
void ssa_parity_work(struct work_struct *work);
void ssa_parity_start_work(struct work_struct *work);
void ssa_parity_plug_work(struct work_struct *work);
int ssa_parity_write(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		     u64 start, u64 end);
void ssa_parity_join(struct ssa_io *io);

/* ssa-parity-walk.c */
void ssa_parity_unsynced_warn(struct ssa_ctx *sc, int m);
void ssa_parity_scrub_work(struct work_struct *work);
int ssa_parity_scrub(struct ssa_ctx *sc, bool repair);
void ssa_parity_scrub_stop(struct ssa_ctx *sc);
int ssa_parity_idle(struct ssa_ctx *sc);
void ssa_parity_resume(struct ssa_ctx *sc);
bool ssa_parity_span_synced(struct ssa_ctx *sc, const struct ssa_group *grp,
			    u32 nchunks);
int ssa_parity_unsynced(struct ssa_ctx *sc, unsigned int f, u64 idx);
void ssa_parity_prebuild_work(struct work_struct *work);

/* ssa-parity-ppl.c */
int ssa_ppl_create(struct ssa_parity *par);
void ssa_ppl_free(struct ssa_parity *par);
int ssa_ppl_prepare(struct ssa_parity *par);
void ssa_ppl_start(struct ssa_parity *par);
void ssa_ppl_quiesced(struct ssa_parity *par);
bool ssa_ppl_gate(struct ssa_pop *op);
void ssa_ppl_log(struct ssa_pop *op, struct ssa_pgroup *pg);
void ssa_ppl_release(struct ssa_pop *op);
u32 ssa_ppl_crc(struct page **pages, u32 bytes);
unsigned int ssa_ppl_status(struct ssa_parity *par, char *result,
			    unsigned int maxlen, unsigned int sz);

/* ssa-parity-read.c */
int ssa_parity_read_others(struct ssa_ctx *sc, const struct ssa_group *grp,
			   unsigned int f, u32 off, u32 n);
void ssa_parity_xor_others(struct ssa_ctx *sc, unsigned int f, u32 sectors);
void ssa_parity_recover_work(struct work_struct *work);
void ssa_parity_recon_work(struct work_struct *work);
bool ssa_parity_retry_read(struct ssa_ctx *sc, struct bio *bio,
			   blk_status_t status, bool child);
int ssa_parity_read(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		    u64 start, u64 end);

#endif /* SSA_PARITY_H */
