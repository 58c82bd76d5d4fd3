/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: what the files of the mirror layout share (private to
 * them): its state and the functions one file calls in the other.
 * ssa-mirror.c says how the parts fit together.
 */
#ifndef SSA_MIRROR_H
#define SSA_MIRROR_H

#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"

/* Member sectors copied per rebuild step: one window (dm-ssastripe.h). */
#define SSA_RB_WINDOW		SSA_WINDOW_SECTORS
/* Split read shares are multiples of 4 KiB. */
#define SSA_SPLIT_ALIGN		8

/* Walks over the members of a mirror volume (status "action"). */
enum ssa_mwalk {
	SSA_MWALK_IDLE,
	SSA_MWALK_REBUILD,
	SSA_MWALK_CHECK,
	SSA_MWALK_REPAIR,
	SSA_MWALK_RESYNC,
};

static const char * const ssa_mwalk_names[] = {
	[SSA_MWALK_IDLE] = "idle",
	[SSA_MWALK_REBUILD] = "rebuild",
	[SSA_MWALK_CHECK] = "check",
	[SSA_MWALK_REPAIR] = "repair",
	[SSA_MWALK_RESYNC] = "resync",
};

/*
 * The mirror layout's private state (sc->priv): read balancing, the retry
 * of failed reads, the walks over the members (rebuild, check, repair,
 * the resync after a crash) and the write-intent bitmap.
 */
struct ssa_mirror {
	struct ssa_ctx *sc;
	struct ssa_bitmap *bm;	/* option "bitmap": rows are member chunks */
	atomic_t rr;		/* round-robin position of reads */
	struct ssa_retry retry;	/* read children to retry on another copy */

	struct workqueue_struct *wq;	/* rebuild only */
	struct work_struct work;	/* the rebuild */
	struct work_struct check_work;	/* check and repair */
	wait_queue_head_t wait;

	spinlock_t lock;	/* protects the fields down to @deferred */
	bool active;		/* writes register while a walk runs */
	u64 wlo, whi;		/* window being walked (empty: wlo == whi) */
	struct list_head writes;	/* writes in flight (ssa_io.walk_node) */
	struct bio_list deferred;	/* writes held back by the window */
	/* writes in flight that did not register (mapped while !active) */
	atomic_t unregistered;

	u64 cursor;		/* member sectors below it are in sync */
	bool stop;
	unsigned long started;	/* jiffies when the rate window began */
	u64 copied;		/* sectors copied since @started */
	struct page **pages;	/* rebuild: one window */
	unsigned int nr_pages;

	unsigned long running;	/* bit 0: a check or repair is under way */
	enum ssa_mwalk walk;	/* running or last walk */
	u64 walk_pos;		/* member sectors the check or repair has done */
	u64 mismatches;		/* sectors where copies differed, last check */
};

static inline struct ssa_mirror *ssa_mirror_of(struct ssa_ctx *sc)
{
	return sc->priv;
}

/* ssa-mirror.c */
u64 ssa_rebuild_cursor(struct ssa_ctx *sc);
void ssa_mirror_fork(struct ssa_ctx *sc, struct ssa_io *io, struct bio *parent,
		     u8 op, u64 start, u64 end, bool from_map);

/* ssa-mirror-walk.c */
void ssa_rows_of(struct ssa_ctx *sc, u64 start, u64 end, u64 *lo, u64 *hi);
void ssa_mirror_resync(struct ssa_ctx *sc);
bool ssa_rebuild_admit(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		       u64 start, u64 end);
void ssa_rebuild_work(struct work_struct *work);
void ssa_check_work(struct work_struct *work);
int ssa_mirror_scrub(struct ssa_ctx *sc, bool repair);
int ssa_mirror_idle(struct ssa_ctx *sc);
void ssa_mirror_stop(struct ssa_ctx *sc);
void ssa_mirror_start(struct ssa_ctx *sc);
void ssa_mirror_opt_changed(struct ssa_ctx *sc, int opt);
unsigned int ssa_mirror_status(struct ssa_ctx *sc, status_type_t type,
			       char *result, unsigned int maxlen, unsigned int sz);
void ssa_mirror_walk_status(struct ssa_ctx *sc, const char **action, u64 *pos,
			    u64 *mismatches);

#endif /* SSA_MIRROR_H */
