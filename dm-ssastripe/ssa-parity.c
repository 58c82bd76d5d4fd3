// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the parity layouts (raid5 and pstripe): their writes, the
 * reads of a degraded volume, the walks (initial sync, check, repair,
 * rebuild) and their personalities (ssa_raid5_ops, ssa_pstripe_ops).
 *
 * Reads of a volume in sync need nothing special: they are forked like
 * stripe reads (ssa_map_data()), a child per chunk piece or, on pstripe,
 * per run of pieces on one member.  A write is served the way seed 002
 * models it.  It becomes one operation (struct ssa_pop) over the parity
 * groups it touches, each group a few tasks, each task one unit of service
 * on one member:
 *
 *  - read-modify-write (rmw): a data task per member written (read the old
 *    data, then write the new, keeping the member's dispatch slot between
 *    the two) and a high-priority parity task (read the old parity, wait
 *    until every old data piece of the group is in memory, XOR, write the
 *    new parity; again one slot throughout).
 *  - reconstruct-write (rcw): the new data is written, the group's other
 *    data is read where the write does not cover the parity range, and when
 *    those reads are in, the new parity is computed and written (high
 *    priority).  A full-stripe write is an rcw with nothing to read.
 *
 * The sync policy decides when an rmw parity task joins its member's queue:
 * "before_service" when the last data task of the group is dispatched (its
 * service starts), "after_service" once every old data piece has been read.
 *
 * Exclusion: before any task is queued the operation locks every group it
 * touches (group numbers in a hash under one spinlock, all or nothing).  An
 * operation that finds a group locked waits, holding nothing, on a FIFO and
 * is retried from the work item whenever an operation unlocks.  Two writes
 * therefore never update one parity chunk at the same time, and old data
 * and old parity are read while nobody else can change them.
 *
 * Memory: operations come from a mempool of the largest size the volume can
 * need, pages for old data and parity from a page mempool of SSA_OP_PAGES.
 * A request that would need more pages (or more groups or tasks than an
 * operation holds) is cut at a piece boundary, and DM core sends the rest
 * as a new request, so one operation always fits in the reserve.  Pages are
 * first taken without waiting; failing that, one operation at a time takes
 * them from the reserve, which the operations in flight refill.
 *
 * Completions run in any context: a task whose bio completed goes on a
 * list, and the work item advances it (submits its next bio, computes
 * parity).  Nothing is submitted from a completion.  Operations that
 * waited for a lock are started from a second work item on a workqueue of
 * their own, since starting may wait for reserve pages that only the
 * first work item's progress gives back.
 *
 * Files: this one (the personalities, the map, status,
 * messages, state), ssa-parity-plan.c (a write's plan: groups, method,
 * tasks, pages), ssa-parity-write.c (tasks, sync policies, the entry
 * points), ssa-parity-buf.c (XOR, copies, group locks, pages),
 * ssa-parity-read.c (degraded reads and recovered old data),
 * ssa-parity-walk.c (check, repair, initial sync, rebuild),
 * ssa-parity-ppl.c (the partial parity log that closes the write hole),
 * and the private header ssa-parity.h; the write-intent bitmap, shared
 * with the mirror, is ssa-bitmap.c.
 */
#include "ssa-args.h"
#include "ssa-parity.h"

/* Message "fail <m>": the volume goes on without member @m. */
static int ssa_parity_fail(struct ssa_ctx *sc, unsigned int m)
{
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_member *mb = &sc->members[m];
	int f;

	if (test_bit(SSA_MEMBER_FAILED, &mb->flags))
		return 0;
	if (ssa_parity_rb_active(sc) && (int)m != par->rb_member) {
		DMWARN("fail %u: member %d is being rebuilt, and parity covers one loss",
		       m, par->rb_member);
		return -EBUSY;
	}
	if (ssa_parity_nr_failed(sc, &f)) {
		DMWARN("fail %u: member %d has failed already, and parity covers one loss",
		       m, f);
		return -EBUSY;
	}
	/* a check would compare against the member left behind */
	ssa_parity_scrub_stop(sc);
	ssa_member_fail(sc, m);
	if (READ_ONCE(par->sync_pos) < sc->geom.rows || ssa_bm_pending(par->bm))
		ssa_parity_unsynced_warn(sc, m);
	return 0;
}

/* The running or last walk, its progress and its mismatches. */
static void ssa_parity_walk_status(struct ssa_ctx *sc, const char **action,
				   u64 *pos, u64 *mismatches)
{
	struct ssa_parity *par = ssa_par(sc);

	if (test_bit(0, &par->scrub_running)) {
		*action = ssa_walk_names[READ_ONCE(par->walk)][1];
		*pos = READ_ONCE(par->scrub_pos);
	} else if (READ_ONCE(par->rb_active)) {
		*action = "rebuild_stopped";	/* a failure, or not resumed */
		*pos = READ_ONCE(par->rb_pos);
	} else if (READ_ONCE(par->sync_pos) < sc->geom.rows ||
		   ssa_bm_pending(par->bm)) {
		*action = "unsynced";	/* stopped short, or not resumed yet */
		*pos = READ_ONCE(par->sync_pos);
	} else {
		*action = "idle";
		*pos = READ_ONCE(par->scrub_pos);
	}
	*mismatches = READ_ONCE(par->mismatches);
}

static int ssa_parity_alloc(struct ssa_ctx *sc)
{
	struct ssa_parity *par;
	unsigned int m, i;
	size_t size;
	int r;

	par = kzalloc(sizeof(*par), GFP_KERNEL);
	if (!par)
		goto nomem;
	par->sc = sc;
	spin_lock_init(&par->lock);
	INIT_LIST_HEAD(&par->waiting);
	init_waitqueue_head(&par->lock_wait);
	INIT_LIST_HEAD(&par->ready);
	INIT_WORK(&par->work, ssa_parity_work);
	INIT_WORK(&par->scrub_work, ssa_parity_scrub_work);
	INIT_WORK(&par->start_work, ssa_parity_start_work);
	INIT_WORK(&par->plug_work, ssa_parity_plug_work);
	INIT_LIST_HEAD(&par->plugged);
	INIT_WORK(&par->recover_work, ssa_parity_recover_work);
	INIT_WORK(&par->recon_work, ssa_parity_recon_work);
	INIT_LIST_HEAD(&par->recover);
	bio_list_init(&par->recon_children);
	bio_list_init(&par->recon_parents);
	mutex_init(&par->reserve);
	mutex_init(&par->scratch_mutex);
	/* a rebuild table takes the other members as in sync */
	par->sync_pos = sc->opt[SSA_OPT_INITIAL_SYNC] && !sc->rebuild_mask ?
			0 : sc->geom.rows;
	par->rb_member = -1;
	INIT_WORK(&par->prebuild_work, ssa_parity_prebuild_work);
	INIT_LIST_HEAD(&par->prebuild);
	if (sc->rebuild_mask) {
		par->rb_member = __ffs64(sc->rebuild_mask);
		par->rb_active = true;
		par->rb_done = bitmap_zalloc(sc->geom.rows, GFP_KERNEL);
		if (!par->rb_done) {
			sc->priv = par;
			goto nomem;
		}
	}
	if (sc->meta_dev) {
		sc->priv = par;
		r = test_bit(SSA_OPT_PPL, &sc->opts_given) ?
		    ssa_ppl_create(par) :
		    ssa_bm_create(sc, sc->geom.rows, &par->sync_pos,
				  ssa_parity_bm_go, &par->bm);
		if (r)
			return r;
	}
	/* one group always fits: N - 1 writes, N - 1 reads and its parity */
	par->max_tasks = max(2 * sc->nr_members, 64U);
	size = sizeof(struct ssa_pop) +
	       SSA_OP_GROUPS * sizeof(struct ssa_pgroup) +
	       par->max_tasks * sizeof(struct ssa_ptask) +
	       SSA_OP_LOCKS * sizeof(struct ssa_plock) +
	       SSA_OP_PAGES * sizeof(struct page *);
	par->op_pool = mempool_create_kmalloc_pool(SSA_OP_POOL, size);
	par->page_pool = mempool_create_page_pool(SSA_OP_PAGES, 0);
	par->start_wq = alloc_workqueue("kssaparity",
					WQ_MEM_RECLAIM | SSA_WQ_PERCPU, 1);
	par->recover_wq = alloc_workqueue("kssarecover",
					  WQ_MEM_RECLAIM | SSA_WQ_PERCPU, 1);
	par->recon_wq = alloc_workqueue("kssarecon",
					WQ_MEM_RECLAIM | SSA_WQ_PERCPU, 1);
	sc->priv = par;
	if (!par->op_pool || !par->page_pool || !par->start_wq ||
	    !par->recover_wq || !par->recon_wq)
		goto nomem;

	par->scratch = kcalloc(sc->nr_members, sizeof(*par->scratch),
			       GFP_KERNEL);
	if (!par->scratch)
		goto nomem;
	for (m = 0; m < sc->nr_members; m++) {
		par->scratch[m] = kcalloc(SSA_RECON_PAGES, sizeof(struct page *),
					  GFP_KERNEL);
		if (!par->scratch[m])
			goto nomem;
		for (i = 0; i < SSA_RECON_PAGES; i++) {
			par->scratch[m][i] = alloc_page(GFP_KERNEL);
			if (!par->scratch[m][i])
				goto nomem;
		}
	}
	return 0;
nomem:
	sc->ti->error = "Cannot allocate parity state";
	return -ENOMEM;
}

/*
 * After the member dispatchers' workqueue is gone (par->work runs there):
 * nothing is in flight.
 */
static void ssa_parity_free(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);
	unsigned int m, i;

	if (!par)
		return;
	ssa_parity_scrub_stop(sc);
	ssa_bm_free(par->bm);
	par->bm = NULL;
	ssa_ppl_free(par);
	if (par->start_wq)
		destroy_workqueue(par->start_wq);
	if (par->recover_wq)
		destroy_workqueue(par->recover_wq);
	if (par->recon_wq)
		destroy_workqueue(par->recon_wq);
	for (m = 0; par->scratch && m < sc->nr_members; m++) {
		for (i = 0; par->scratch[m] && i < SSA_RECON_PAGES; i++)
			if (par->scratch[m][i])
				__free_page(par->scratch[m][i]);
		kfree(par->scratch[m]);
	}
	kfree(par->scratch);
	bitmap_free(par->rb_done);
	mempool_destroy(par->page_pool);
	mempool_destroy(par->op_pool);
	kfree(par);
	sc->priv = NULL;
}

/*
 * Every request but a write of data: a read of a degraded volume may need
 * a reconstruction, discard and write-zeroes are refused (their parity
 * would have to follow), and the rest is forked as the stripe layout's.
 */
static int ssa_parity_map(struct ssa_ctx *sc, struct ssa_io *io,
			  struct bio *bio, u8 op, u64 start, u64 end)
{
	if (op == SSA_OP_WRITE)
		return ssa_parity_write(sc, io, bio, start, end);
	if (op == SSA_OP_READ && unlikely(ssa_parity_degraded(sc))) {
		int r = ssa_parity_read(sc, io, bio, start, end);

		if (r >= 0)
			return r;
		end = start + bio_sectors(bio);	/* maybe cut */
		io->iter = bio->bi_iter;
	}
	if (op == SSA_OP_DISCARD || op == SSA_OP_WRITE_ZEROES)
		return DM_MAPIO_KILL;
	return ssa_map_data(sc, io, bio, op, start, end);
}

/* Table options: the chunk's size and at most one member to rebuild. */
static int ssa_parity_check_opts(struct ssa_ctx *sc)
{
	struct dm_target *ti = sc->ti;

	if (sc->geom.chunk > SSA_PARITY_MAX_CHUNK) {
		ti->error = "Chunk too large for raid5/pstripe: at most 2048 sectors";
		return -EINVAL;
	}
	if (ssa_mask_beyond(sc->rebuild_mask, sc->nr_members)) {
		ti->error = "rebuild names a member the table does not have";
		return -EINVAL;
	}
	if (hweight64(sc->rebuild_mask) > 1) {
		ti->error = "raid5/pstripe rebuild one member at a time";
		return -EINVAL;
	}
	if (sc->rebuild_mask)
		set_bit(SSA_MEMBER_REBUILD,
			&sc->members[__ffs64(sc->rebuild_mask)].flags);
	sc->copies = 1;
	return 0;
}

/* Parity striping rotates its parity area over every member. */
static int ssa_pstripe_check_geometry(struct ssa_ctx *sc)
{
	u64 width = (u64)sc->geom.chunk * (sc->nr_members - 1);
	struct dm_target *ti = sc->ti;

	if (sc->geom.rows % sc->nr_members) {
		DMERR("pstripe: length %llu is not a multiple of %llu sectors",
		      (unsigned long long)ti->len, width * sc->nr_members);
		ti->error = "pstripe: length is not a multiple of chunk x (members - 1) x members";
		return -EINVAL;
	}
	return 0;
}

/*
 * INFO: [bitmap <set>/<regions>|failed] [ppl <held>/<slots>|failed]
 *       <parity_layout> <sync>
 *       <write_method> <action> <done>/<rows> <mismatches>
 * IMA:  ,parity_layout=,sync=,write_method=
 */
static unsigned int ssa_parity_status(struct ssa_ctx *sc, status_type_t type,
				      char *result, unsigned int maxlen,
				      unsigned int sz)
{
	bool raid5 = sc->ops->opts & BIT(SSA_OPT_PARITY_LAYOUT);
	const char *rotation = raid5 ?
		ssa_opt_word(SSA_OPT_PARITY_LAYOUT, sc->geom.rotation) : NULL;
	const char *sync = ssa_opt_word(SSA_OPT_SYNC, READ_ONCE(sc->sync));
	const char *wm = ssa_opt_word(SSA_OPT_WRITE_METHOD,
				      READ_ONCE(sc->write_method));
	const char *action;
	u64 pos, bad;

	if (type == STATUSTYPE_IMA) {
		DMEMIT(",parity_layout=%s,sync=%s,write_method=%s",
		       rotation ?: "none", sync, wm);
		return sz;
	}
	ssa_parity_walk_status(sc, &action, &pos, &bad);
	sz = ssa_bm_status(ssa_par(sc)->bm, result, maxlen, sz);
	sz = ssa_ppl_status(ssa_par(sc), result, maxlen, sz);
	DMEMIT(" %s %s %s %s %llu/%llu %llu", rotation ?: "-", sync, wm,
	       action, pos, sc->geom.rows, bad);
	return sz;
}

#define SSA_PARITY_OPTS	(SSA_COMMON_OPTS | BIT(SSA_OPT_SYNC) | \
			 BIT(SSA_OPT_WRITE_METHOD) | BIT(SSA_OPT_INITIAL_SYNC) | \
			 BIT(SSA_OPT_REBUILD) | BIT(SSA_OPT_BITMAP) | \
			 BIT(SSA_OPT_BITMAP_REGION) | BIT(SSA_OPT_PPL))

static int ssa_parity_prepare(struct ssa_ctx *sc)
{
	return ssa_bm_prepare(ssa_par(sc)->bm) ?: ssa_ppl_prepare(ssa_par(sc));
}

static void ssa_parity_quiesced(struct ssa_ctx *sc)
{
	ssa_bm_quiesced(ssa_par(sc)->bm);
	ssa_ppl_quiesced(ssa_par(sc));
}

/* raid5 and pstripe differ in geometry (struct ssa_layout) and here. */
const struct ssa_layout_ops ssa_raid5_ops = {
	.opts = SSA_PARITY_OPTS | BIT(SSA_OPT_PARITY_LAYOUT),
	.check_opts = ssa_parity_check_opts,
	.alloc = ssa_parity_alloc,
	.free = ssa_parity_free,
	.map = ssa_parity_map,
	.join = ssa_parity_join,
	.retry_read = ssa_parity_retry_read,
	.started = ssa_parity_started,
	.fail = ssa_parity_fail,
	.scrub = ssa_parity_scrub,
	.idle = ssa_parity_idle,
	.status = ssa_parity_status,
	.stop = ssa_parity_scrub_stop,
	.start = ssa_parity_resume,
	.prepare = ssa_parity_prepare,
	.quiesced = ssa_parity_quiesced,
};

const struct ssa_layout_ops ssa_pstripe_ops = {
	.opts = SSA_PARITY_OPTS,
	.unstriped = true,
	.check_opts = ssa_parity_check_opts,
	.check_geometry = ssa_pstripe_check_geometry,
	.alloc = ssa_parity_alloc,
	.free = ssa_parity_free,
	.map = ssa_parity_map,
	.join = ssa_parity_join,
	.retry_read = ssa_parity_retry_read,
	.started = ssa_parity_started,
	.fail = ssa_parity_fail,
	.scrub = ssa_parity_scrub,
	.idle = ssa_parity_idle,
	.status = ssa_parity_status,
	.stop = ssa_parity_scrub_stop,
	.start = ssa_parity_resume,
	.prepare = ssa_parity_prepare,
	.quiesced = ssa_parity_quiesced,
};
