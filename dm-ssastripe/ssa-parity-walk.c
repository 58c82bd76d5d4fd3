// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the walks over the parity groups: check, repair, the
 * initial sync (a repair from the sync position) and the rebuild of a
 * replaced member (whose groups a write reaches first are rebuilt
 * first), started by messages and at resume.
 */
#include "ssa-parity.h"

/* ---- check and repair ---------------------------------------------- */

#define SSA_SCRUB_SECTORS	512	/* a group is checked 256 KiB at a time */

static const char *ssa_walk_name(struct ssa_parity *par)
{
	return ssa_walk_names[READ_ONCE(par->walk)][0];
}

/* Whether the walk rewrites the parity of the groups it finds wrong. */
static bool ssa_walk_rewrites(struct ssa_parity *par)
{
	return par->walk == SSA_WALK_REPAIR || par->walk == SSA_WALK_RESYNC;
}

/* Synchronous I/O of @sectors at member sector @ms of member @m. */
static int ssa_scrub_io(struct ssa_ctx *sc, unsigned int m, u64 ms,
			struct page **pages, u32 sectors, blk_opf_t opf)
{
	struct ssa_member *mb = &sc->members[m];

	return ssa_pages_io(mb->dev->bdev, mb->offset + ms, pages,
			    sectors << SECTOR_SHIFT, opf);
}

/*
 * A walk's read or write of member @m failed: the member fails, as it would
 * for a user's I/O, and the walk ends (a check has nothing left to compare
 * with; the initial sync cannot go on without every member).
 */
static int ssa_scrub_error(struct ssa_ctx *sc, unsigned int m,
			   const char *what, int r)
{
	DMERR("%s: %s: member %u: %s error %d",
	      dm_device_name(dm_table_get_md(sc->ti->table)),
	      ssa_walk_name(ssa_par(sc)), m, what, r);
	ssa_member_error(sc, m, errno_to_blk_status(r), NULL);
	return r;
}

/*
 * Check (and with repair, rewrite) one slice [off, off + len) of a group:
 * the XOR of its N chunks must be zero.  bufs: N + 1 buffers of pages.
 */
static int ssa_scrub_slice(struct ssa_ctx *sc, const struct ssa_group *grp,
			   u32 off, u32 len, struct page ***bufs, bool *bad)
{
	unsigned int m, n = sc->nr_members;
	struct page **acc = bufs[n];
	u32 bytes = len << SECTOR_SHIFT, i;
	int r;

	*bad = false;
	for (m = 0; m < n; m++) {
		u64 ms = sc->layout->group_chunk(&sc->geom, grp, m) *
			 sc->geom.chunk + off;

		r = ssa_scrub_io(sc, m, ms, bufs[m], len, REQ_OP_READ);
		if (r)
			return ssa_scrub_error(sc, m, "read", r);
	}
	/* acc = XOR of the data chunks; it must equal the parity */
	ssa_parity_zero_buf(acc, bytes);
	for (m = 0; m < n; m++)
		if (m != grp->pmember)
			ssa_parity_xor_buf(acc, 0, bufs[m], 0, bytes);
	for (i = 0; i < bytes && !*bad; i += PAGE_SIZE)
		*bad = memcmp(page_address(acc[i >> PAGE_SHIFT]),
			      page_address(bufs[grp->pmember][i >> PAGE_SHIFT]),
			      min_t(u32, PAGE_SIZE, bytes - i)) != 0;
	if (*bad && ssa_walk_rewrites(ssa_par(sc))) {
		r = ssa_scrub_io(sc, grp->pmember,
				 grp->pchunk * sc->geom.chunk + off, acc, len,
				 REQ_OP_WRITE | REQ_SYNC);
		if (r)
			return ssa_scrub_error(sc, grp->pmember, "write", r);
	}
	return 0;
}

void ssa_parity_unsynced_warn(struct ssa_ctx *sc, int m)
{
	struct ssa_parity *par = ssa_par(sc);

	if (ssa_bm_pending(par->bm))
		DMERR("%s: member %d lost before the bitmap's resync: its regions not rebuildable",
		      dm_device_name(dm_table_get_md(sc->ti->table)), m);
	if (READ_ONCE(par->sync_pos) >= sc->geom.rows)
		return;
	DMERR("%s: member %d lost before the initial sync: groups %llu-%llu not rebuildable",
	      dm_device_name(dm_table_get_md(sc->ti->table)), m,
	      READ_ONCE(par->sync_pos), sc->geom.rows - 1);
}

/*
 * The resync walk's next group from @idx: every group from the initial
 * sync's position on, and before it those of the regions the bitmap
 * says a crash may have left stale.
 */
static u64 ssa_resync_next(struct ssa_parity *par, u64 idx)
{
	u64 pos = READ_ONCE(par->sync_pos);

	if (idx >= pos)
		return idx;
	return min(pos, ssa_bm_next_pending(par->bm, idx));
}

static int ssa_rebuild_walk(struct ssa_ctx *sc);

void ssa_parity_scrub_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      scrub_work);
	struct ssa_ctx *sc = par->sc;
	unsigned int m, n = sc->nr_members, np = ssa_pages_of(SSA_SCRUB_SECTORS);
	struct page ***bufs;
	struct ssa_group grp;
	u64 idx;
	u32 off, len;
	int r = 0, f;
	bool resync;

	/* the rebuild uses the scratch buffers, not these */
	bufs = NULL;
	if (par->walk == SSA_WALK_REBUILD) {
		r = ssa_rebuild_walk(sc);
		goto out;
	}
	bufs = kcalloc(n + 1, sizeof(*bufs), GFP_KERNEL);
	for (m = 0; bufs && m <= n; m++) {
		unsigned int i;

		bufs[m] = kcalloc(np, sizeof(struct page *), GFP_KERNEL);
		for (i = 0; bufs[m] && i < np; i++) {
			bufs[m][i] = alloc_page(GFP_KERNEL);
			if (!bufs[m][i])
				r = -ENOMEM;
		}
		if (!bufs[m])
			r = -ENOMEM;
	}
	if (!bufs)
		r = -ENOMEM;

	resync = par->walk == SSA_WALK_RESYNC;
	idx = resync ? ssa_resync_next(par, 0) : 0;
	for (; !r && idx < sc->geom.rows && !READ_ONCE(par->scrub_stop); idx++) {
		bool bad, group_bad = false;

		if (resync) {
			idx = ssa_resync_next(par, idx);
			if (idx >= sc->geom.rows)
				break;
		}

		/* no walk goes on without every member */
		if (ssa_parity_nr_failed(sc, NULL)) {
			r = -EIO;
			break;
		}

		sc->layout->group_at(&sc->geom, idx, &grp);
		ssa_pg_wait_lock(par, &par->scrub_lock, idx);
		for (off = 0; !r && off < sc->geom.chunk; off += len) {
			len = min_t(u32, SSA_SCRUB_SECTORS, sc->geom.chunk - off);
			r = ssa_scrub_slice(sc, &grp, off, len, bufs, &bad);
			group_bad |= bad;
		}
		if (!r && resync) {
			if (idx >= READ_ONCE(par->sync_pos))
				WRITE_ONCE(par->sync_pos, idx + 1);
			ssa_bm_synced(par->bm, idx);
		}
		ssa_pg_drop_lock(sc, &par->scrub_lock);
		if (r)
			break;
		if (group_bad)
			WRITE_ONCE(par->mismatches, par->mismatches + 1);
		WRITE_ONCE(par->scrub_pos, idx + 1);
		cond_resched();
	}
	if (r && resync && ssa_parity_nr_failed(sc, &f))
		ssa_parity_unsynced_warn(sc, f);

out:
	if (par->walk == SSA_WALK_REBUILD)
		DMINFO("%s: rebuild of member %d %s: %llu of %llu groups",
		       dm_device_name(dm_table_get_md(sc->ti->table)),
		       par->rb_member,
		       r ? "failed" : READ_ONCE(par->scrub_stop) ? "stopped" : "done",
		       READ_ONCE(par->scrub_pos), sc->geom.rows);
	else
		DMINFO("%s: %s %s: %llu of %llu groups, %llu mismatched%s",
		       dm_device_name(dm_table_get_md(sc->ti->table)),
		       ssa_walk_name(par),
		       r ? "failed" : READ_ONCE(par->scrub_stop) ? "stopped" : "done",
		       READ_ONCE(par->scrub_pos), sc->geom.rows,
		       READ_ONCE(par->mismatches),
		       ssa_walk_rewrites(par) ? " (rewritten)" : "");
	for (m = 0; bufs && m <= n; m++) {
		unsigned int i;

		for (i = 0; bufs[m] && i < np; i++)
			if (bufs[m][i])
				__free_page(bufs[m][i]);
		kfree(bufs[m]);
	}
	kfree(bufs);
	clear_bit(0, &par->scrub_running);
	schedule_work(&sc->event_work);
}

/*
 * Start a walk over the groups from group @from, unless one is running
 * (false).  A walk from group 0 counts its mismatches afresh.
 */
static bool ssa_walk_start(struct ssa_parity *par, enum ssa_walk walk, u64 from)
{
	if (test_and_set_bit(0, &par->scrub_running))
		return false;
	/* the previous walk's work item may still be finishing */
	flush_work(&par->scrub_work);
	WRITE_ONCE(par->walk, walk);
	WRITE_ONCE(par->scrub_stop, false);
	WRITE_ONCE(par->scrub_pos, from);
	if (!from)
		WRITE_ONCE(par->mismatches, 0);
	queue_work(system_long_wq, &par->scrub_work);
	return true;
}

/* Message "check" or "repair": start a walk over every group. */
int ssa_parity_scrub(struct ssa_ctx *sc, bool repair)
{
	struct ssa_parity *par = ssa_par(sc);

	if (ssa_parity_degraded(sc)) {
		DMWARN("%s: a member has failed or is being rebuilt: nothing to check against",
		       repair ? "repair" : "check");
		return -EBUSY;
	}
	if ((READ_ONCE(par->sync_pos) < sc->geom.rows || ssa_bm_pending(par->bm)) &&
	    !test_bit(0, &par->scrub_running)) {
		DMWARN("%s: the initial sync has not finished (it goes on at resume)",
		       repair ? "repair" : "check");
		return -EBUSY;
	}
	if (!ssa_walk_start(par, repair ? SSA_WALK_REPAIR : SSA_WALK_CHECK, 0)) {
		DMWARN("%s: the %s is still running",
		       repair ? "repair" : "check", ssa_walk_name(par));
		return -EBUSY;
	}
	return 0;
}

/* Suspend and destruction (and "idle"): stop a walk and wait for it. */
void ssa_parity_scrub_stop(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);

	if (!par)
		return;
	WRITE_ONCE(par->scrub_stop, true);
	flush_work(&par->scrub_work);
}

/* Message "idle": stop a check or repair; the initial sync goes on. */
int ssa_parity_idle(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);

	if (test_bit(0, &par->scrub_running) &&
	    (par->walk == SSA_WALK_RESYNC || par->walk == SSA_WALK_REBUILD)) {
		DMWARN("idle: the %s cannot be stopped (suspend pauses it)",
		       ssa_walk_name(par));
		return -EBUSY;
	}
	ssa_parity_scrub_stop(sc);
	return 0;
}

/*
 * On resume: start (or go on with) the rebuild, or else the initial sync
 * unless the table said initial_sync off or it is done.  Either needs
 * every other member.
 */
void ssa_parity_resume(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);
	int f;

	if (!par)
		return;
	ssa_bm_start(par->bm);
	ssa_ppl_start(par);
	if (READ_ONCE(par->rb_active)) {
		if (ssa_bm_pending(par->bm))
			DMWARN("%s: rebuild of %d: bitmap regions unsynced: parity may lie",
			       dm_device_name(dm_table_get_md(sc->ti->table)),
			       par->rb_member);
		if (ssa_parity_nr_failed(sc, &f)) {
			DMERR("%s: member %d has failed: the rebuild of member %d cannot go on",
			      dm_device_name(dm_table_get_md(sc->ti->table)),
			      f, par->rb_member);
			return;
		}
		ssa_walk_start(par, SSA_WALK_REBUILD, READ_ONCE(par->rb_pos));
		return;
	}
	if (READ_ONCE(par->sync_pos) >= sc->geom.rows && !ssa_bm_pending(par->bm))
		return;
	if (ssa_parity_nr_failed(sc, &f)) {
		ssa_parity_unsynced_warn(sc, f);
		return;
	}
	ssa_walk_start(par, SSA_WALK_RESYNC, ssa_resync_next(par, 0));
}

/*
 * Whether the groups of a span (pstripe's consecutive chunks are groups
 * @grp->idx + k * N) have been synced, so that a lost member's data in it
 * can be rebuilt from the others.
 */
bool ssa_parity_span_synced(struct ssa_ctx *sc, const struct ssa_group *grp,
			    u32 nchunks)
{
	struct ssa_parity *par = ssa_par(sc);
	u64 idx = grp->idx, step = 1;
	u32 i;

	if (sc->layout->id == SSA_LAYOUT_PSTRIPE)
		step = sc->nr_members;
	if (idx + (nchunks - 1) * step >= READ_ONCE(par->sync_pos))
		return false;
	for (i = 0; par->bm && i < nchunks; i++)
		if (ssa_bm_row_pending(par->bm, idx + i * step))
			return false;
	return true;
}

int ssa_parity_unsynced(struct ssa_ctx *sc, unsigned int f, u64 idx)
{
	DMERR_LIMIT("%s: group %llu was never synced: member %u cannot be rebuilt there",
		    dm_device_name(dm_table_get_md(sc->ti->table)), idx, f);
	return -EIO;
}

/* ---- rebuild ------------------------------------------------------- */

/*
 * Write the chunk of group @idx of the member being rebuilt: the XOR of
 * the other members' chunks.  The group is locked by the caller.
 */
static int ssa_rebuild_group(struct ssa_ctx *sc, u64 idx)
{
	struct ssa_parity *par = ssa_par(sc);
	unsigned int m = par->rb_member;
	struct ssa_group grp;
	u32 off, n;
	u64 ms;
	int r = 0;

	sc->layout->group_at(&sc->geom, idx, &grp);
	ms = sc->layout->group_chunk(&sc->geom, &grp, m) * sc->geom.chunk;
	mutex_lock(&par->scratch_mutex);
	for (off = 0; off < sc->geom.chunk; off += n) {
		n = min_t(u32, SSA_RECON_SECTORS, sc->geom.chunk - off);
		r = ssa_parity_read_others(sc, &grp, m, off, n);
		if (r)
			break;
		ssa_parity_xor_others(sc, m, n);
		r = ssa_scrub_io(sc, m, ms + off, par->scratch[m], n,
				 REQ_OP_WRITE | REQ_SYNC);
		if (r) {
			ssa_member_error(sc, m, BLK_STS_IOERR, NULL);
			break;
		}
	}
	mutex_unlock(&par->scratch_mutex);
	if (!r)
		set_bit(idx, par->rb_done);
	return r;
}

/* The background walk: every group in order, each under its lock. */
static int ssa_rebuild_walk(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);
	u64 idx;
	int r = 0;

	for (idx = READ_ONCE(par->rb_pos);
	     idx < sc->geom.rows && !READ_ONCE(par->scrub_stop); idx++) {
		if (ssa_parity_nr_failed(sc, NULL)) {
			r = -EIO;
			break;
		}
		ssa_pg_wait_lock(par, &par->scrub_lock, idx);
		if (!test_bit(idx, par->rb_done))
			r = ssa_rebuild_group(sc, idx);
		ssa_pg_drop_lock(sc, &par->scrub_lock);
		if (r)
			break;
		WRITE_ONCE(par->rb_pos, idx + 1);
		WRITE_ONCE(par->scrub_pos, idx + 1);
		cond_resched();
	}
	if (!r && idx == sc->geom.rows) {
		WRITE_ONCE(par->rb_active, false);
		clear_bit(SSA_MEMBER_REBUILD,
			  &sc->members[par->rb_member].flags);
	}
	return r;
}

/* Writes whose groups are rebuilt before they start (ssa_parity_op_go()). */
void ssa_parity_prebuild_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      prebuild_work);
	struct ssa_ctx *sc = par->sc;
	struct ssa_pop *op;
	unsigned int i;
	int r;

	for (;;) {
		spin_lock_irq(&par->lock);
		op = list_first_entry_or_null(&par->prebuild, struct ssa_pop,
					      wait);
		if (op)
			list_del(&op->wait);
		spin_unlock_irq(&par->lock);
		if (!op)
			break;
		r = 0;
		for (i = 0; !r && i < op->nr_locks; i++)
			if (!test_bit(op->locks[i].key, par->rb_done))
				r = ssa_rebuild_group(sc, op->locks[i].key);
		if (r)
			ssa_parity_rb_refuse(op);
		else
			ssa_parity_op_start(op, false);
		ssa_io_put(op->io);
		cond_resched();
	}
}
