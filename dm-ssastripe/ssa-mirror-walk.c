// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the walks over a mirror volume's members: the rebuild of
 * the copies a table names; check and repair; the resync, after a crash,
 * of the regions the write-intent bitmap had set (a repair over those
 * regions only); window by window, and the hold they put on the writes
 * that touch the window.  Their start at a resume, stop at a suspend, and
 * the status fields that report them.
 */
#include "ssa-mirror.h"

/* Member sectors [*lo, *hi) (whole chunks) that logical [start, end) touches. */
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

/*
 * Writes while a rebuild runs: hold back (true) a write that touches the
 * window being copied, else register it so the copy of a later window
 * waits for it.
 */
bool ssa_rebuild_admit(struct ssa_ctx *sc, struct ssa_io *io,
		       struct bio *bio, u64 start, u64 end)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	unsigned long flags;
	bool held = false;
	u64 lo, hi;

	io->walk_hi = 0;
	/*
	 * Counted first, then the flag read: a walk that sets the flag and
	 * then reads the count sees this write one way or the other.
	 */
	atomic_inc(&mi->unregistered);
	io->walk_counted = true;
	smp_mb__after_atomic();	/* pairs with smp_mb() in ssa_walk_begin() */
	if (!READ_ONCE(mi->active))
		return false;
	ssa_rows_of(sc, start, end, &lo, &hi);

	spin_lock_irqsave(&mi->lock, flags);
	if (mi->active) {
		io->walk_counted = false;
		if (lo < mi->whi && mi->wlo < hi) {
			bio_list_add(&mi->deferred, bio);
			held = true;
		} else {
			io->walk_lo = lo;
			io->walk_hi = hi;
			list_add_tail(&io->walk_node, &mi->writes);
		}
	}
	spin_unlock_irqrestore(&mi->lock, flags);
	/* registered or held: no longer one the walk must wait for */
	if (!io->walk_counted && atomic_dec_and_test(&mi->unregistered))
		wake_up(&mi->wait);
	return held;
}

/* Fork the writes the last window held back (rebuild work item). */
static void ssa_rebuild_release(struct ssa_ctx *sc, struct bio_list *held)
{
	struct bio *bio;

	while ((bio = bio_list_pop(held))) {
		struct ssa_io *io = ssa_io_of(sc, bio);
		u64 start = dm_target_offset(sc->ti, bio->bi_iter.bi_sector);
		u64 end = start + bio_sectors(bio);
		u8 op = ssa_op_of(bio);

		if (ssa_rebuild_admit(sc, io, bio, start, end))
			continue;	/* cannot happen: no window is set */
		ssa_mirror_fork(sc, io, bio, op, start, end, false);
	}
}

/* --- rebuild ----------------------------------------------------------- */

/* Copy member sectors [lo, lo + len) onto member @m from an in-sync copy. */
static void ssa_rebuild_copy(struct ssa_ctx *sc, unsigned int m, u64 lo,
			     unsigned int len)
{
	struct page **pages = ssa_mirror_of(sc)->pages;
	u32 set = m / sc->copies;
	unsigned int k, src;

	for (k = 0; k < sc->copies; k++) {
		src = ssa_mirror_member(set, sc->copies, k);
		if (src == m || (READ_ONCE(sc->members[src].flags) &
				 (BIT(SSA_MEMBER_FAILED) | BIT(SSA_MEMBER_REBUILD))))
			continue;
		/* a source that fails is marked failed: try the next one */
		if (!ssa_member_rw(sc, src, REQ_OP_READ, lo, len, pages,
				   SSA_CLASS_HIGH)) {
			ssa_member_rw(sc, m, REQ_OP_WRITE, lo, len, pages,
				      SSA_CLASS_HIGH);
			return;
		}
	}
	if (!test_and_set_bit(SSA_MEMBER_FAILED, &sc->members[m].flags)) {
		DMERR("%s: member %u (%s) failed: no in-sync copy left to rebuild it from",
		      dm_device_name(dm_table_get_md(sc->ti->table)), m,
		      sc->members[m].dev->name);
		schedule_work(&sc->event_work);
	}
}

/* Members still to be rebuilt. */
static u64 ssa_rebuild_todo(struct ssa_ctx *sc)
{
	u64 todo = 0;
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++)
		if (READ_ONCE(sc->members[m].flags) == BIT(SSA_MEMBER_REBUILD))
			todo |= BIT_ULL(m);
	return todo;
}

static bool ssa_rebuild_window_clear(struct ssa_mirror *mi)
{
	struct ssa_io *io;
	bool clear = true;

	spin_lock_irq(&mi->lock);
	list_for_each_entry(io, &mi->writes, walk_node) {
		if (io->walk_lo < mi->whi && mi->wlo < io->walk_hi) {
			clear = false;
			break;
		}
	}
	spin_unlock_irq(&mi->lock);
	return clear;
}

/* Start writes registering, and wait for those mapped before (may sleep). */
static void ssa_walk_begin(struct ssa_mirror *mi)
{
	spin_lock_irq(&mi->lock);
	mi->active = true;
	spin_unlock_irq(&mi->lock);
	/* pairs with the barrier in ssa_rebuild_admit() */
	smp_mb();
	wait_event(mi->wait, !atomic_read(&mi->unregistered));
}

static void ssa_window_clear(struct ssa_ctx *sc);

/* Writes stop registering; those held back go on (may sleep). */
static void ssa_walk_end(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	spin_lock_irq(&mi->lock);
	mi->active = false;
	spin_unlock_irq(&mi->lock);
	ssa_window_clear(sc);
}

/* Hold writes to rows [lo, hi) and wait for those in flight there. */
static void ssa_window_set(struct ssa_mirror *mi, u64 lo, u64 hi)
{
	spin_lock_irq(&mi->lock);
	mi->wlo = lo;
	mi->whi = hi;
	spin_unlock_irq(&mi->lock);
	wait_event(mi->wait, ssa_rebuild_window_clear(mi));
}

/* Release the writes the window held. */
static void ssa_window_clear(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	struct bio_list held;

	spin_lock_irq(&mi->lock);
	mi->wlo = 0;
	mi->whi = 0;
	held = mi->deferred;
	bio_list_init(&mi->deferred);
	spin_unlock_irq(&mi->lock);
	ssa_rebuild_release(sc, &held);
}

/* Keep to rebuild_rate (KiB/s; 0: no limit). */
static void ssa_rebuild_throttle(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	unsigned int rate = READ_ONCE(sc->opt[SSA_OPT_REBUILD_RATE]);
	unsigned long due;

	if (!rate)
		return;
	/* sectors / 2 = KiB; KiB * 1000 / rate = ms */
	due = mi->started + msecs_to_jiffies(div_u64(mi->copied * 500, rate));
	if (time_before(jiffies, due))
		wait_event_timeout(mi->wait, READ_ONCE(mi->stop),
				   due - jiffies);
}

static void ssa_rebuild_finish(struct ssa_ctx *sc)
{
	const char *name = dm_device_name(dm_table_get_md(sc->ti->table));
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++) {
		if (!(sc->rebuild_mask & BIT_ULL(m)))
			continue;
		if (test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags))
			DMERR("%s: rebuild of member %u (%s) did not complete",
			      name, m, sc->members[m].dev->name);
		else
			DMINFO("%s: member %u (%s) rebuilt", name, m,
			       sc->members[m].dev->name);
		clear_bit(SSA_MEMBER_REBUILD, &sc->members[m].flags);
	}
	ssa_walk_end(sc);
	schedule_work(&sc->event_work);
	/* what a crash left unsynced is resynced after the rebuild */
	ssa_mirror_resync(sc);
}

void ssa_rebuild_work(struct work_struct *work)
{
	struct ssa_mirror *mi = container_of(work, struct ssa_mirror, work);
	struct ssa_ctx *sc = mi->sc;
	u64 todo, lo, hi;
	unsigned int m;

	while (!READ_ONCE(mi->stop)) {
		todo = ssa_rebuild_todo(sc);
		lo = mi->cursor;
		if (!todo || lo >= sc->member_len) {
			ssa_rebuild_finish(sc);
			return;
		}
		hi = min_t(u64, lo + SSA_RB_WINDOW, sc->member_len);

		ssa_window_set(mi, lo, hi);
		for (m = 0; m < sc->nr_members; m++)
			if (todo & BIT_ULL(m))
				ssa_rebuild_copy(sc, m, lo, hi - lo);
		/* readers that see the new cursor see the copy completed */
		smp_store_release(&mi->cursor, hi);
		ssa_window_clear(sc);

		mi->copied += hi - lo;
		ssa_rebuild_throttle(sc);
		cond_resched();
	}
}

/* --- check and repair -------------------------------------------------- */

static void *ssa_sector_addr(struct page **pages, unsigned int s)
{
	unsigned int off = s << SECTOR_SHIFT;

	return page_address(pages[off >> PAGE_SHIFT]) + offset_in_page(off);
}

/*
 * Check member sectors [lo, lo + len) of set @set: each in-sync copy is
 * compared with the first in-sync copy that can be read (@ref), and the
 * sectors where one differs are set in @diff.  With @repair, the first
 * copy's data is written over each copy that differs.
 */
static void ssa_check_set(struct ssa_ctx *sc, u32 set, u64 lo,
			  unsigned int len, struct page **ref,
			  struct page **cmp, unsigned long *diff, bool repair)
{
	unsigned int k, m, s;
	bool have_ref = false, differs;

	for (k = 0; k < sc->copies; k++) {
		m = ssa_mirror_member(set, sc->copies, k);
		if (READ_ONCE(sc->members[m].flags) &
		    (BIT(SSA_MEMBER_FAILED) | BIT(SSA_MEMBER_REBUILD)))
			continue;
		/* a copy that cannot be read is marked failed: skip it */
		if (ssa_member_rw(sc, m, REQ_OP_READ, lo, len,
				  have_ref ? cmp : ref, SSA_CLASS_HIGH))
			continue;
		if (!have_ref) {
			have_ref = true;
			continue;
		}
		differs = false;
		for (s = 0; s < len; s++) {
			if (memcmp(ssa_sector_addr(ref, s), ssa_sector_addr(cmp, s),
				   SECTOR_SIZE)) {
				__set_bit(s, diff);
				differs = true;
			}
		}
		if (differs && repair)
			ssa_member_rw(sc, m, REQ_OP_WRITE, lo, len, ref,
				      SSA_CLASS_HIGH);
	}
}

/*
 * The next member sector at or after @pos the walk visits: every one for
 * check and repair, those of the regions waiting for a resync for the
 * resync.
 */
static u64 ssa_walk_next(struct ssa_ctx *sc, u64 pos)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	u32 chunk = sc->geom.chunk;
	u64 row;

	if (mi->walk != SSA_MWALK_RESYNC || pos >= sc->member_len)
		return pos;
	row = ssa_bm_next_pending(mi->bm, div_u64(pos, chunk));
	if (row == U64_MAX)
		return sc->member_len;
	return max(pos, row * chunk);
}

/* The end of the window from @lo: a resync's stops at its region's end. */
static u64 ssa_walk_window_end(struct ssa_ctx *sc, u64 lo)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	u64 hi = min_t(u64, lo + SSA_RB_WINDOW, sc->member_len);

	if (mi->walk == SSA_MWALK_RESYNC)
		hi = min(hi, ssa_bm_region_end(mi->bm, div_u64(lo, sc->geom.chunk)) *
			 sc->geom.chunk);
	return hi;
}

/* The resync has made member sectors [lo, hi) agree: done with their rows. */
static void ssa_resync_done(struct ssa_ctx *sc, u64 lo, u64 hi)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	u32 chunk = sc->geom.chunk;
	u64 row;

	for (row = div_u64(lo, chunk);
	     min_t(u64, (row + 1) * chunk, sc->member_len) <= hi &&
	     row * chunk < sc->member_len; row++)
		ssa_bm_synced(mi->bm, row);
}

void ssa_check_work(struct work_struct *work)
{
	struct ssa_mirror *mi = container_of(work, struct ssa_mirror,
					      check_work);
	struct ssa_ctx *sc = mi->sc;
	const char *name = dm_device_name(dm_table_get_md(sc->ti->table));
	bool resync = mi->walk == SSA_MWALK_RESYNC;
	bool repair = resync || mi->walk == SSA_MWALK_REPAIR;
	DECLARE_BITMAP(diff, SSA_RB_WINDOW);
	struct page **ref, **cmp;
	u64 lo, hi;
	u32 set;
	int r = 0;

	ref = ssa_pages_alloc();
	cmp = ssa_pages_alloc();
	if (!ref || !cmp)
		r = -ENOMEM;
	if (!r)
		ssa_walk_begin(mi);
	for (lo = ssa_walk_next(sc, 0);
	     !r && lo < sc->member_len && !READ_ONCE(mi->stop);
	     lo = ssa_walk_next(sc, hi)) {
		hi = ssa_walk_window_end(sc, lo);
		ssa_window_set(mi, lo, hi);
		for (set = 0; set < sc->geom.members; set++) {
			bitmap_zero(diff, SSA_RB_WINDOW);
			ssa_check_set(sc, set, lo, hi - lo, ref, cmp, diff,
				      repair);
			WRITE_ONCE(mi->mismatches, mi->mismatches +
				   bitmap_weight(diff, hi - lo));
		}
		ssa_window_clear(sc);
		if (resync)
			ssa_resync_done(sc, lo, hi);
		WRITE_ONCE(mi->walk_pos, hi);
		cond_resched();
	}
	if (!r && resync && !READ_ONCE(mi->stop))
		WRITE_ONCE(mi->walk_pos, sc->member_len);
	if (!r)
		ssa_walk_end(sc);
	DMINFO("%s: %s %s: %llu of %llu sectors per member, %llu mismatched%s",
	       name, ssa_mwalk_names[mi->walk],
	       r ? "failed" : READ_ONCE(mi->stop) ? "stopped" : "done",
	       READ_ONCE(mi->walk_pos), sc->member_len,
	       READ_ONCE(mi->mismatches),
	       repair && mi->mismatches ? " (rewritten)" : "");
	ssa_pages_free(ref);
	ssa_pages_free(cmp);
	clear_bit(0, &mi->running);
	schedule_work(&sc->event_work);
}

/* Start the walk @walk (check_work); the caller set mi->running. */
static void ssa_walk_start(struct ssa_mirror *mi, enum ssa_mwalk walk)
{
	/* the last walk's work item may still be finishing */
	flush_work(&mi->check_work);
	WRITE_ONCE(mi->walk, walk);
	WRITE_ONCE(mi->stop, false);
	WRITE_ONCE(mi->walk_pos, 0);
	WRITE_ONCE(mi->mismatches, 0);
	queue_work(system_long_wq, &mi->check_work);
}

/*
 * Resync the regions the bitmap had set at the first resume (a crash may
 * have left their copies different), unless a rebuild runs (it starts the
 * resync when it ends) or another walk does (the resync waits for the
 * next resume).
 */
void ssa_mirror_resync(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	if (!ssa_bm_pending(mi->bm) || READ_ONCE(mi->active) ||
	    test_and_set_bit(0, &mi->running))
		return;
	ssa_walk_start(mi, SSA_MWALK_RESYNC);
}

/* Message "check" or "repair": walk every set's copies. */
int ssa_mirror_scrub(struct ssa_ctx *sc, bool repair)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	const char *what = repair ? "repair" : "check";

	if (READ_ONCE(mi->active) && !test_bit(0, &mi->running)) {
		DMWARN("%s: a rebuild is running", what);
		return -EBUSY;
	}
	if (test_and_set_bit(0, &mi->running)) {
		DMWARN("%s: the %s is still running", what,
		       ssa_mwalk_names[READ_ONCE(mi->walk)]);
		return -EBUSY;
	}
	ssa_walk_start(mi, repair ? SSA_MWALK_REPAIR : SSA_MWALK_CHECK);
	return 0;
}

/* Message "idle": stop a check or repair (a rebuild goes on). */
int ssa_mirror_idle(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	if (!test_bit(0, &mi->running)) {
		if (!READ_ONCE(mi->active))
			return 0;
		DMWARN("idle: the rebuild cannot be stopped (suspend pauses it)");
		return -EBUSY;
	}
	if (READ_ONCE(mi->walk) == SSA_MWALK_RESYNC) {
		DMWARN("idle: the resync cannot be stopped (suspend pauses it)");
		return -EBUSY;
	}
	WRITE_ONCE(mi->stop, true);
	wake_up(&mi->wait);
	flush_work(&mi->check_work);
	return 0;
}

/* Status: the running or last walk, its progress and its mismatches. */
void ssa_mirror_walk_status(struct ssa_ctx *sc, const char **action,
			    u64 *pos, u64 *mismatches)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	enum ssa_mwalk walk = READ_ONCE(mi->walk);

	*mismatches = READ_ONCE(mi->mismatches);
	if (walk == SSA_MWALK_CHECK || walk == SSA_MWALK_REPAIR ||
	    walk == SSA_MWALK_RESYNC) {
		*pos = READ_ONCE(mi->walk_pos);
		*action = test_bit(0, &mi->running) ? ssa_mwalk_names[walk] :
			  ssa_bm_pending(mi->bm) ? "unsynced" : "idle";
		return;
	}
	*pos = min_t(u64, ssa_rebuild_cursor(sc), sc->member_len);
	*action = READ_ONCE(mi->active) ? ssa_mwalk_names[walk] :
		  ssa_bm_pending(mi->bm) ? "unsynced" : "idle";
}

/*
 * INFO: <copies> <read_policy> <action> <done>/<member_sectors> <mismatches>
 * IMA:  ,copies=,read_policy=
 */
unsigned int ssa_mirror_status(struct ssa_ctx *sc, status_type_t type,
			       char *result, unsigned int maxlen, unsigned int sz)
{
	const char *policy = ssa_opt_word(SSA_OPT_READ_POLICY,
					  READ_ONCE(sc->read_policy));
	const char *action;
	u64 pos, bad;

	if (type == STATUSTYPE_IMA) {
		DMEMIT(",copies=%u,read_policy=%s", sc->copies, policy);
		return sz;
	}
	ssa_mirror_walk_status(sc, &action, &pos, &bad);
	sz = ssa_bm_status(ssa_mirror_of(sc)->bm, result, maxlen, sz);
	DMEMIT(" %u %s %s %llu/%llu %llu", sc->copies, policy, action, pos,
	       (unsigned long long)sc->member_len, bad);
	return sz;
}

/*
 * On suspend and removal: stop a rebuild after the window being copied
 * (the resume goes on from there), and a check or repair (for good); the
 * writes they held go on.
 */
void ssa_mirror_stop(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	if (!mi)
		return;
	WRITE_ONCE(mi->stop, true);
	wake_up(&mi->wait);
	flush_work(&mi->work);
	flush_work(&mi->check_work);
}

/*
 * On resume: the bitmap's daemon; go on copying from the cursor, or
 * resync what the bitmap holds (after the rebuild, if one runs).
 */
void ssa_mirror_start(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	if (!mi)
		return;
	ssa_bm_start(mi->bm);
	if (!mi->wq || !READ_ONCE(mi->active)) {
		ssa_mirror_resync(sc);
		return;
	}
	WRITE_ONCE(mi->stop, false);
	mi->started = jiffies;
	mi->copied = 0;
	queue_work(mi->wq, &mi->work);
}

/* The rebuild rate changed: measure it from now. */
void ssa_mirror_opt_changed(struct ssa_ctx *sc, int opt)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	if (opt != SSA_OPT_REBUILD_RATE)
		return;
	mi->started = jiffies;
	mi->copied = 0;
	wake_up(&mi->wait);
}
