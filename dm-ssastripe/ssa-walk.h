/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: the walks over the members of a volume with copies (the
 * rebuild of a replaced copy, check, repair, the resync of what a
 * write-intent bitmap holds), for any layout that keeps copies.  A walk
 * goes window by window over each member's rows (the sectors the stripe
 * mapping gives a set: ssa_rows_of()); while it works on a window, the
 * writes that touch the window's rows wait, and it starts on a window only
 * once the writes already in flight there have completed.
 *
 * The walk never knows the layout: the layout embeds a struct ssa_walk in
 * its state and says through struct ssa_walk_ops how a held write is
 * forked again, how one window of a member is copied from a copy in sync,
 * and how the copies of one window are compared (and repaired).
 */
#ifndef SSA_WALK_H
#define SSA_WALK_H

#include "dm-ssastripe.h"

/* Walks over the members (the status's "action"). */
enum ssa_walk_kind {
	SSA_WALK_IDLE,
	SSA_WALK_REBUILD,
	SSA_WALK_CHECK,
	SSA_WALK_REPAIR,
	SSA_WALK_RESYNC,
};

struct ssa_walk_ops {
	/* Fork again a write the window held back (process context). */
	void (*release)(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
			u8 op, u64 start, u64 end);
	/* Optional: where a window from row sector @lo must end at the latest. */
	u64 (*window_end)(struct ssa_ctx *sc, u64 lo);
	/*
	 * Rebuild: copy rows [lo, lo + len) onto member @m from a copy in
	 * sync, through @pages (one window); mark @m failed if none is left.
	 */
	void (*copy)(struct ssa_ctx *sc, unsigned int m, u64 lo,
		     unsigned int len, struct page **pages);
	/*
	 * Check: compare rows [lo, lo + len) of every set's copies in sync;
	 * with @repair, write the source's data over what differs.  Returns
	 * the sectors found different (once per set sector).
	 */
	u64 (*compare)(struct ssa_ctx *sc, u64 lo, unsigned int len,
		       struct page **ref, struct page **cmp, bool repair);
};

struct ssa_walk {
	struct ssa_ctx *sc;
	const struct ssa_walk_ops *ops;
	/* the write-intent bitmap (rows: chunks of the walk's sectors), or NULL */
	struct ssa_bitmap *bm;
	u64 len;		/* sectors of each member the walks cover */

	struct workqueue_struct *wq;	/* rebuild only */
	struct work_struct work;	/* the rebuild */
	struct work_struct check_work;	/* check, repair, resync */
	wait_queue_head_t wait;

	spinlock_t lock;	/* protects the fields down to @deferred */
	bool active;		/* writes register while a walk runs */
	u64 wlo, whi;		/* window being walked (empty: wlo == whi) */
	struct list_head writes;	/* writes in flight (ssa_io.walk_node) */
	struct bio_list deferred;	/* writes held back by the window */
	/* writes in flight that did not register (mapped while !active) */
	atomic_t unregistered;

	u64 cursor;		/* rows below it are in sync on every copy */
	bool stop;
	unsigned long started;	/* jiffies when the rate window began */
	u64 copied;		/* sectors copied since @started */
	struct page **pages;	/* rebuild: one window */

	unsigned long running;	/* bit 0: a check, repair or resync is under way */
	enum ssa_walk_kind walk;	/* running or last walk */
	u64 walk_pos;		/* sectors the check or repair has done */
	u64 mismatches;		/* sectors where copies differed, last check */
};

void ssa_rows_of(struct ssa_ctx *sc, u64 start, u64 end, u64 *lo, u64 *hi);
int ssa_walk_init(struct ssa_walk *w, struct ssa_ctx *sc,
		  const struct ssa_walk_ops *ops, u64 len);
void ssa_walk_free(struct ssa_walk *w);
u64 ssa_walk_cursor(struct ssa_walk *w);
bool ssa_walk_readable(struct ssa_walk *w, unsigned int m, u64 end);
bool ssa_walk_in_sync(struct ssa_ctx *sc, unsigned int m);
u64 ssa_walk_in_sync_mask(struct ssa_ctx *sc);
int ssa_walk_write(struct ssa_ctx *sc, unsigned int m, u64 ms,
		   unsigned int len, struct page **pages);
void ssa_walk_no_source(struct ssa_ctx *sc, unsigned int m);
bool ssa_walk_diff(struct page **ref, struct page **cmp, unsigned int len,
		   unsigned long *diff);
int ssa_walk_check_rebuild(struct ssa_ctx *sc, char *error);
bool ssa_walk_admit(struct ssa_walk *w, struct ssa_io *io, struct bio *bio,
		    u64 start, u64 end);
void ssa_walk_map_init(struct ssa_io *io);
void ssa_walk_join(struct ssa_walk *w, struct ssa_io *io);
void ssa_walk_resync(struct ssa_walk *w);
int ssa_walk_scrub(struct ssa_walk *w, bool repair);
int ssa_walk_idle(struct ssa_walk *w);
void ssa_walk_status(struct ssa_walk *w, const char **action, u64 *pos,
		     u64 *mismatches);
unsigned int ssa_walk_emit(struct ssa_walk *w, char *result,
			   unsigned int maxlen, unsigned int sz);
void ssa_walk_stop(struct ssa_walk *w);
void ssa_walk_start(struct ssa_walk *w);
void ssa_walk_rate_changed(struct ssa_walk *w);

#endif /* SSA_WALK_H */
