// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the walks over the members of a volume with copies
 * (mirror, srarray): the rebuild of the copies a table names; check and
 * repair; the resync, after a crash, of the regions the write-intent
 * bitmap had set (a repair over those regions only); window by window,
 * and the hold they put on the writes that touch the window.  Their start
 * at a resume, stop at a suspend, and the status fields that report them.
 * ssa-walk.h says what a layout provides.
 */
#include <linux/jiffies.h>

#include "ssa-args.h"
#include "ssa-compat.h"
#include "ssa-walk.h"

static const char * const ssa_walk_names[] = {
	[SSA_WALK_IDLE] = "idle",
	[SSA_WALK_REBUILD] = "rebuild",
	[SSA_WALK_CHECK] = "check",
	[SSA_WALK_REPAIR] = "repair",
	[SSA_WALK_RESYNC] = "resync",
};

static const char *ssa_walk_dev(struct ssa_walk *w)
{
	return dm_device_name(dm_table_get_md(w->sc->ti->table));
}

/* Row sectors [*lo, *hi) (whole chunks) that logical [start, end) touches. */
void ssa_rows_of(struct ssa_ctx *sc, u64 start, u64 end, u64 *lo, u64 *hi)
{
	const struct ssa_geom *g = &sc->geom;
	u32 off, set;
	u64 c;

	c = ssa_chunk_index(g, start, &off);
	*lo = div_u64_rem(c, g->members, &set) * g->chunk;
	c = ssa_chunk_index(g, max(end, start + 1) - 1, &off);
	*hi = (div_u64_rem(c, g->members, &set) + 1) * g->chunk;
}

/* Rows below @cursor are in sync on every copy (the rebuild's progress). */
u64 ssa_walk_cursor(struct ssa_walk *w)
{
	/* pairs with the release in ssa_walk_rebuild(): the copy is written */
	return smp_load_acquire(&w->cursor);
}

/* Neither failed nor being rebuilt: a copy to read from and copy from. */
bool ssa_walk_in_sync(struct ssa_ctx *sc, unsigned int m)
{
	return !(READ_ONCE(sc->members[m].flags) &
		 (BIT(SSA_MEMBER_FAILED) | BIT(SSA_MEMBER_REBUILD)));
}

/* The members in sync, as a mask. */
u64 ssa_walk_in_sync_mask(struct ssa_ctx *sc)
{
	u64 mask = 0;
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++)
		if (ssa_walk_in_sync(sc, m))
			mask |= BIT_ULL(m);
	return mask;
}

/*
 * A walk's write (a rebuild's copy, a repair) of sectors [ms, ms + len) of
 * member @m.  An I/O error has failed the member already; any other error
 * (the member refused the write) fails it here: a copy that did not take
 * what the walk wrote must not count the window as done.
 */
int ssa_walk_write(struct ssa_ctx *sc, unsigned int m, u64 ms,
		   unsigned int len, struct page **pages)
{
	int r = ssa_member_rw(sc, m, REQ_OP_WRITE, ms, len, pages,
			      SSA_CLASS_HIGH);

	if (r && !test_and_set_bit(SSA_MEMBER_FAILED, &sc->members[m].flags)) {
		DMERR("%s: member %u (%s) failed: it refused a rebuild or repair write (error %d)",
		      dm_device_name(dm_table_get_md(sc->ti->table)), m,
		      sc->members[m].dev->name, r);
		schedule_work(&sc->event_work);
	}
	return r;
}

/* No copy in sync is left to rebuild member @m from: it fails. */
void ssa_walk_no_source(struct ssa_ctx *sc, unsigned int m)
{
	if (test_and_set_bit(SSA_MEMBER_FAILED, &sc->members[m].flags))
		return;
	DMERR("%s: member %u (%s) failed: no copy in sync left to rebuild it from",
	      dm_device_name(dm_table_get_md(sc->ti->table)), m,
	      sc->members[m].dev->name);
	schedule_work(&sc->event_work);
}

static void *ssa_walk_sector(struct page **pages, unsigned int s)
{
	unsigned int off = s << SECTOR_SHIFT;

	return page_address(pages[off >> PAGE_SHIFT]) + offset_in_page(off);
}

/*
 * Compare the first @len sectors of two window buffers: set the bit of
 * each sector that differs in @diff; true if any did.
 */
bool ssa_walk_diff(struct page **ref, struct page **cmp, unsigned int len,
		   unsigned long *diff)
{
	bool differs = false;
	unsigned int s;

	for (s = 0; s < len; s++) {
		if (memcmp(ssa_walk_sector(ref, s), ssa_walk_sector(cmp, s),
			   SECTOR_SIZE)) {
			__set_bit(s, diff);
			differs = true;
		}
	}
	return differs;
}

/* May member @m serve a read of its rows below @end? */
bool ssa_walk_readable(struct ssa_walk *w, unsigned int m, u64 end)
{
	unsigned long flags = READ_ONCE(w->sc->members[m].flags);

	if (flags & BIT(SSA_MEMBER_FAILED))
		return false;
	if (flags & BIT(SSA_MEMBER_REBUILD))
		return end <= ssa_walk_cursor(w);
	return true;
}

/*
 * Table: the members "rebuild" names exist, and every set of sc->copies
 * members keeps one that is not named (@error otherwise); they are marked
 * as being rebuilt.
 */
int ssa_walk_check_rebuild(struct ssa_ctx *sc, char *error)
{
	unsigned int n = sc->nr_members, copies = sc->copies, m, k, set;

	if (ssa_mask_beyond(sc->rebuild_mask, n)) {
		sc->ti->error = "rebuild names a member the table does not have";
		return -EINVAL;
	}
	for (set = 0; set < n / copies; set++) {
		for (k = 0; k < copies; k++)
			if (!(sc->rebuild_mask & BIT_ULL(set * copies + k)))
				break;
		if (k == copies) {
			DMERR("every copy of set %u (members %u to %u) is named by rebuild",
			      set, set * copies, set * copies + copies - 1);
			sc->ti->error = error;
			return -EINVAL;
		}
	}
	for (m = 0; m < n; m++)
		if (sc->rebuild_mask & BIT_ULL(m))
			set_bit(SSA_MEMBER_REBUILD, &sc->members[m].flags);
	return 0;
}

/* Before a request's fork: it holds no place among the walk's writes. */
void ssa_walk_map_init(struct ssa_io *io)
{
	io->walk_hi = 0;
	io->walk_counted = false;
}

/*
 * A write while a walk may run: hold it back (true) if it touches the
 * window being walked, else register it so the walk of a later window
 * waits for it.
 */
bool ssa_walk_admit(struct ssa_walk *w, struct ssa_io *io, struct bio *bio,
		    u64 start, u64 end)
{
	unsigned long flags;
	bool held = false;
	u64 lo, hi;

	io->walk_hi = 0;
	/*
	 * Counted first, then the flag read: a walk that sets the flag and
	 * then reads the count sees this write one way or the other.
	 */
	atomic_inc(&w->unregistered);
	io->walk_counted = true;
	smp_mb__after_atomic();	/* pairs with smp_mb() in ssa_walk_begin() */
	if (!READ_ONCE(w->active))
		return false;
	ssa_rows_of(w->sc, start, end, &lo, &hi);

	spin_lock_irqsave(&w->lock, flags);
	if (w->active) {
		io->walk_counted = false;
		if (lo < w->whi && w->wlo < hi) {
			bio_list_add(&w->deferred, bio);
			held = true;
		} else {
			io->walk_lo = lo;
			io->walk_hi = hi;
			list_add_tail(&io->walk_node, &w->writes);
		}
	}
	spin_unlock_irqrestore(&w->lock, flags);
	/* registered or held: no longer one the walk must wait for */
	if (!io->walk_counted && atomic_dec_and_test(&w->unregistered))
		wake_up(&w->wait);
	return held;
}

/* A request is about to be joined (any context): off the walk's books. */
void ssa_walk_join(struct ssa_walk *w, struct ssa_io *io)
{
	unsigned long flags;

	if (io->walk_hi) {
		spin_lock_irqsave(&w->lock, flags);
		list_del(&io->walk_node);
		spin_unlock_irqrestore(&w->lock, flags);
		io->walk_hi = 0;
		wake_up(&w->wait);
	}
	if (io->walk_counted) {
		io->walk_counted = false;
		if (atomic_dec_and_test(&w->unregistered) &&
		    READ_ONCE(w->active))
			wake_up(&w->wait);
	}
}

/* Fork the writes the last window held back (work item). */
static void ssa_walk_release(struct ssa_walk *w, struct bio_list *held)
{
	struct ssa_ctx *sc = w->sc;
	struct bio *bio;

	while ((bio = bio_list_pop(held))) {
		struct ssa_io *io = ssa_io_of(sc, bio);
		u64 start = dm_target_offset(sc->ti, bio->bi_iter.bi_sector);
		u64 end = start + bio_sectors(bio);

		if (ssa_walk_admit(w, io, bio, start, end))
			continue;	/* cannot happen: no window is set */
		w->ops->release(sc, io, bio, ssa_op_of(bio), start, end);
	}
}

static bool ssa_window_clear_of_writes(struct ssa_walk *w)
{
	struct ssa_io *io;
	bool clear = true;

	spin_lock_irq(&w->lock);
	list_for_each_entry(io, &w->writes, walk_node) {
		if (io->walk_lo < w->whi && w->wlo < io->walk_hi) {
			clear = false;
			break;
		}
	}
	spin_unlock_irq(&w->lock);
	return clear;
}

/* Start writes registering, and wait for those mapped before (may sleep). */
static void ssa_walk_begin(struct ssa_walk *w)
{
	spin_lock_irq(&w->lock);
	w->active = true;
	spin_unlock_irq(&w->lock);
	/* pairs with the barrier in ssa_walk_admit() */
	smp_mb();
	wait_event(w->wait, !atomic_read(&w->unregistered));
}

/* Hold writes to rows [lo, hi) and wait for those in flight there. */
static void ssa_window_set(struct ssa_walk *w, u64 lo, u64 hi)
{
	spin_lock_irq(&w->lock);
	w->wlo = lo;
	w->whi = hi;
	spin_unlock_irq(&w->lock);
	wait_event(w->wait, ssa_window_clear_of_writes(w));
}

/* Release the writes the window held. */
static void ssa_window_clear(struct ssa_walk *w)
{
	struct bio_list held;

	spin_lock_irq(&w->lock);
	w->wlo = 0;
	w->whi = 0;
	held = w->deferred;
	bio_list_init(&w->deferred);
	spin_unlock_irq(&w->lock);
	ssa_walk_release(w, &held);
}

/* Writes stop registering; those held back go on (may sleep). */
static void ssa_walk_end(struct ssa_walk *w)
{
	spin_lock_irq(&w->lock);
	w->active = false;
	spin_unlock_irq(&w->lock);
	ssa_window_clear(w);
}

/*
 * The end of the window from @lo: a window's worth of pages, no further
 * than the layout allows, and for a resync no further than its region.
 */
static u64 ssa_walk_window_end(struct ssa_walk *w, u64 lo)
{
	struct ssa_ctx *sc = w->sc;
	u64 hi = min_t(u64, lo + SSA_WINDOW_SECTORS, w->len);

	if (w->ops->window_end)
		hi = min(hi, w->ops->window_end(sc, lo));
	if (w->walk == SSA_WALK_RESYNC)
		hi = min(hi, ssa_bm_region_end(w->bm, div_u64(lo, sc->geom.chunk)) *
			 sc->geom.chunk);
	return hi;
}

/* --- rebuild ----------------------------------------------------------- */

/* Keep to rebuild_rate (KiB/s; 0: no limit). */
static void ssa_walk_throttle(struct ssa_walk *w)
{
	unsigned int rate = READ_ONCE(w->sc->opt[SSA_OPT_REBUILD_RATE]);
	unsigned long due;

	if (!rate)
		return;
	/* sectors / 2 = KiB; KiB * 1000 / rate = ms */
	due = w->started + msecs_to_jiffies(div_u64(w->copied * 500, rate));
	if (time_before(jiffies, due))
		wait_event_timeout(w->wait, READ_ONCE(w->stop), due - jiffies);
}

/* Members still to be rebuilt (named, not failed since). */
static u64 ssa_walk_todo(struct ssa_ctx *sc)
{
	u64 todo = 0;
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++)
		if (READ_ONCE(sc->members[m].flags) == BIT(SSA_MEMBER_REBUILD))
			todo |= BIT_ULL(m);
	return todo;
}

static void ssa_walk_rebuilt(struct ssa_walk *w)
{
	struct ssa_ctx *sc = w->sc;
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++) {
		if (!(sc->rebuild_mask & BIT_ULL(m)))
			continue;
		if (test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags))
			DMERR("%s: rebuild of member %u (%s) did not complete",
			      ssa_walk_dev(w), m, sc->members[m].dev->name);
		else
			DMINFO("%s: member %u (%s) rebuilt", ssa_walk_dev(w), m,
			       sc->members[m].dev->name);
		clear_bit(SSA_MEMBER_REBUILD, &sc->members[m].flags);
	}
	ssa_walk_end(w);
	schedule_work(&sc->event_work);
	/* what a crash left unsynced is resynced after the rebuild */
	ssa_walk_resync(w);
}

static void ssa_walk_rebuild(struct work_struct *work)
{
	struct ssa_walk *w = container_of(work, struct ssa_walk, work);
	struct ssa_ctx *sc = w->sc;
	u64 todo, lo, hi;
	unsigned int m;

	while (!READ_ONCE(w->stop)) {
		todo = ssa_walk_todo(sc);
		lo = w->cursor;
		if (!todo || lo >= w->len) {
			ssa_walk_rebuilt(w);
			return;
		}
		hi = ssa_walk_window_end(w, lo);

		ssa_window_set(w, lo, hi);
		for (m = 0; m < sc->nr_members; m++)
			if (todo & BIT_ULL(m))
				w->ops->copy(sc, m, lo, hi - lo, w->pages);
		/* readers that see the new cursor see the copy completed */
		smp_store_release(&w->cursor, hi);
		ssa_window_clear(w);

		w->copied += hi - lo;
		ssa_walk_throttle(w);
		cond_resched();
	}
}

/* --- check, repair and resync ----------------------------------------- */

/*
 * The next row sector at or after @pos the walk visits: every one for
 * check and repair, those of the regions waiting for a resync for the
 * resync.
 */
static u64 ssa_walk_next(struct ssa_walk *w, u64 pos)
{
	u32 chunk = w->sc->geom.chunk;
	u64 row;

	if (w->walk != SSA_WALK_RESYNC || pos >= w->len)
		return pos;
	row = ssa_bm_next_pending(w->bm, div_u64(pos, chunk));
	if (row == U64_MAX)
		return w->len;
	return max(pos, row * chunk);
}

/* The resync has made row sectors [lo, hi) agree: done with their rows. */
static void ssa_resync_done(struct ssa_walk *w, u64 lo, u64 hi)
{
	u32 chunk = w->sc->geom.chunk;
	u64 row;

	for (row = div_u64(lo, chunk);
	     min_t(u64, (row + 1) * chunk, w->len) <= hi &&
	     row * chunk < w->len; row++)
		ssa_bm_synced(w->bm, row);
}

static void ssa_walk_check(struct work_struct *work)
{
	struct ssa_walk *w = container_of(work, struct ssa_walk, check_work);
	struct ssa_ctx *sc = w->sc;
	bool resync = w->walk == SSA_WALK_RESYNC;
	bool repair = resync || w->walk == SSA_WALK_REPAIR;
	struct page **ref, **cmp;
	u64 lo, hi, bad;
	int r = 0;

	ref = ssa_pages_alloc();
	cmp = ssa_pages_alloc();
	if (!ref || !cmp)
		r = -ENOMEM;
	if (!r)
		ssa_walk_begin(w);
	for (lo = ssa_walk_next(w, 0);
	     !r && lo < w->len && !READ_ONCE(w->stop);
	     lo = ssa_walk_next(w, hi)) {
		hi = ssa_walk_window_end(w, lo);
		ssa_window_set(w, lo, hi);
		bad = w->ops->compare(sc, lo, hi - lo, ref, cmp, repair);
		WRITE_ONCE(w->mismatches, w->mismatches + bad);
		ssa_window_clear(w);
		if (resync)
			ssa_resync_done(w, lo, hi);
		WRITE_ONCE(w->walk_pos, hi);
		cond_resched();
	}
	if (!r && resync && !READ_ONCE(w->stop))
		WRITE_ONCE(w->walk_pos, w->len);
	if (!r)
		ssa_walk_end(w);
	DMINFO("%s: %s %s: %llu of %llu sectors per member, %llu mismatched%s",
	       ssa_walk_dev(w), ssa_walk_names[w->walk],
	       r ? "failed" : READ_ONCE(w->stop) ? "stopped" : "done",
	       READ_ONCE(w->walk_pos), w->len, READ_ONCE(w->mismatches),
	       repair && w->mismatches ? " (rewritten)" : "");
	ssa_pages_free(ref);
	ssa_pages_free(cmp);
	clear_bit(0, &w->running);
	schedule_work(&sc->event_work);
}

/* Start the walk @walk (check_work); the caller set w->running. */
static void ssa_walk_go(struct ssa_walk *w, enum ssa_walk_kind walk)
{
	/* the last walk's work item may still be finishing */
	flush_work(&w->check_work);
	WRITE_ONCE(w->walk, walk);
	WRITE_ONCE(w->stop, false);
	WRITE_ONCE(w->walk_pos, 0);
	WRITE_ONCE(w->mismatches, 0);
	queue_work(system_long_wq, &w->check_work);
}

/*
 * Resync the regions the bitmap had set at the first resume (a crash may
 * have left their copies different), unless a rebuild runs (it starts the
 * resync when it ends) or another walk does (the resync waits for the
 * next resume).
 */
void ssa_walk_resync(struct ssa_walk *w)
{
	if (!ssa_bm_pending(w->bm) || READ_ONCE(w->active) ||
	    test_and_set_bit(0, &w->running))
		return;
	ssa_walk_go(w, SSA_WALK_RESYNC);
}

/* Message "check" or "repair": walk every set's copies. */
int ssa_walk_scrub(struct ssa_walk *w, bool repair)
{
	const char *what = repair ? "repair" : "check";

	if (READ_ONCE(w->active) && !test_bit(0, &w->running)) {
		DMWARN("%s: a rebuild is running", what);
		return -EBUSY;
	}
	if (test_and_set_bit(0, &w->running)) {
		DMWARN("%s: the %s is still running", what,
		       ssa_walk_names[READ_ONCE(w->walk)]);
		return -EBUSY;
	}
	ssa_walk_go(w, repair ? SSA_WALK_REPAIR : SSA_WALK_CHECK);
	return 0;
}

/* Message "idle": stop a check or repair (a rebuild goes on). */
int ssa_walk_idle(struct ssa_walk *w)
{
	if (!test_bit(0, &w->running)) {
		if (!READ_ONCE(w->active))
			return 0;
		DMWARN("idle: the rebuild cannot be stopped (suspend pauses it)");
		return -EBUSY;
	}
	if (READ_ONCE(w->walk) == SSA_WALK_RESYNC) {
		DMWARN("idle: the resync cannot be stopped (suspend pauses it)");
		return -EBUSY;
	}
	WRITE_ONCE(w->stop, true);
	wake_up(&w->wait);
	flush_work(&w->check_work);
	return 0;
}

/* Status: the running or last walk, its progress and its mismatches. */
void ssa_walk_status(struct ssa_walk *w, const char **action, u64 *pos,
		     u64 *mismatches)
{
	enum ssa_walk_kind walk = READ_ONCE(w->walk);

	*mismatches = READ_ONCE(w->mismatches);
	if (walk == SSA_WALK_CHECK || walk == SSA_WALK_REPAIR ||
	    walk == SSA_WALK_RESYNC) {
		*pos = READ_ONCE(w->walk_pos);
		*action = test_bit(0, &w->running) ? ssa_walk_names[walk] :
			  ssa_bm_pending(w->bm) ? "unsynced" : "idle";
		return;
	}
	*pos = min_t(u64, ssa_walk_cursor(w), w->len);
	*action = READ_ONCE(w->active) ? ssa_walk_names[walk] :
		  ssa_bm_pending(w->bm) ? "unsynced" : "idle";
}

/* The status fields " <action> <done>/<len> <mismatches>". */
unsigned int ssa_walk_emit(struct ssa_walk *w, char *result,
			   unsigned int maxlen, unsigned int sz)
{
	const char *action;
	u64 pos, bad;

	ssa_walk_status(w, &action, &pos, &bad);
	DMEMIT(" %s %llu/%llu %llu", action, pos, w->len, bad);
	return sz;
}

/*
 * On suspend and removal: stop a rebuild after the window being copied
 * (the resume goes on from there), and a check or repair (for good); the
 * writes they held go on.
 */
void ssa_walk_stop(struct ssa_walk *w)
{
	if (!w->sc)
		return;
	WRITE_ONCE(w->stop, true);
	wake_up(&w->wait);
	flush_work(&w->work);
	flush_work(&w->check_work);
}

/*
 * On resume: the bitmap's daemon; go on copying from the cursor, or
 * resync what the bitmap holds (after the rebuild, if one runs).
 */
void ssa_walk_start(struct ssa_walk *w)
{
	ssa_bm_start(w->bm);
	if (!w->wq || !READ_ONCE(w->active)) {
		ssa_walk_resync(w);
		return;
	}
	WRITE_ONCE(w->stop, false);
	w->started = jiffies;
	w->copied = 0;
	queue_work(w->wq, &w->work);
}

/* The rebuild rate changed: measure it from now. */
void ssa_walk_rate_changed(struct ssa_walk *w)
{
	w->started = jiffies;
	w->copied = 0;
	wake_up(&w->wait);
}

/*
 * A walk over @len sectors of each member; with members to rebuild
 * (sc->rebuild_mask), the rebuild's window and workqueue.  Sets ti->error.
 */
int ssa_walk_init(struct ssa_walk *w, struct ssa_ctx *sc,
		  const struct ssa_walk_ops *ops, u64 len)
{
	w->sc = sc;
	w->ops = ops;
	w->len = len;
	spin_lock_init(&w->lock);
	INIT_LIST_HEAD(&w->writes);
	bio_list_init(&w->deferred);
	atomic_set(&w->unregistered, 0);
	init_waitqueue_head(&w->wait);
	INIT_WORK(&w->work, ssa_walk_rebuild);
	INIT_WORK(&w->check_work, ssa_walk_check);
	w->stop = true;
	w->walk_pos = len;
	if (!sc->rebuild_mask) {
		w->cursor = len;
		return 0;
	}
	w->walk = SSA_WALK_REBUILD;
	w->active = true;
	w->pages = ssa_pages_alloc();
	if (w->pages)
		w->wq = alloc_workqueue("kssarebuild",
					WQ_MEM_RECLAIM | SSA_WQ_PERCPU, 1);
	if (w->wq)
		return 0;
	sc->ti->error = "Cannot allocate the rebuild's state";
	return -ENOMEM;
}

/* Stop the walks and free what ssa_walk_init() took (any state). */
void ssa_walk_free(struct ssa_walk *w)
{
	if (!w->sc)
		return;
	ssa_walk_stop(w);
	if (w->wq)
		destroy_workqueue(w->wq);
	ssa_pages_free(w->pages);
	w->wq = NULL;
	w->pages = NULL;
}
