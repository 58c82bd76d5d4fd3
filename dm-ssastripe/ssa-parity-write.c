// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the write path of the parity layouts: the tasks of an
 * operation, their bios, the sync policies (before_service,
 * after_service), the recovery of a data read that failed, and the
 * entry points (ssa_parity_write(), ssa_parity_join()).
 */
#include "ssa-parity.h"

/* ---- tasks ---------------------------------------------------------- */

static void ssa_ptask_endio(struct bio *bio);

static bool ssa_task_writes(struct ssa_ptask *t)
{
	return t->kind == SSA_T_WRITE_DATA || t->kind == SSA_T_WRITE_PARITY ||
	       ((t->kind == SSA_T_RMW_DATA || t->kind == SSA_T_RMW_PARITY) &&
		t->phase == 1);
}

/* The bio of the task's current phase. */
static struct bio *ssa_task_bio(struct ssa_pop *op, struct ssa_ptask *t)
{
	struct ssa_ctx *sc = op->sc;
	struct ssa_member *mb = &sc->members[t->member];
	u64 msector = sc->layout->group_chunk(&sc->geom, &t->pg->grp,
					      t->member) * sc->geom.chunk +
		      t->lo;
	bool parity = t->kind == SSA_T_RMW_PARITY ||
		      t->kind == SSA_T_WRITE_PARITY;
	bool write = ssa_task_writes(t);
	struct ssa_child *c;
	struct bio *bio;

	if (write && !parity) {
		/* the new data: the request's own pages */
		bio = bio_alloc_clone(mb->dev->bdev, op->parent, GFP_NOIO,
				      &sc->bs);
		bio_trim(bio, t->loff, t->hi - t->lo);
	} else {
		u32 bytes = (t->hi - t->lo) << SECTOR_SHIFT;
		unsigned int i, n = ssa_pages_of(t->hi - t->lo);
		blk_opf_t opf = write ? REQ_OP_WRITE |
				(op->parent->bi_opf & (REQ_FUA | REQ_SYNC)) :
				REQ_OP_READ;

		bio = bio_alloc_bioset(mb->dev->bdev, n, opf, GFP_NOIO,
				       &sc->bs);
		for (i = 0; i < n; i++) {
			u32 b = min_t(u32, PAGE_SIZE, bytes);

			__bio_add_page(bio, ssa_ptask_pages(t)[i], b, 0);
			bytes -= b;
		}
		bio->bi_ioprio = op->parent->bi_ioprio;
		bio_clone_blkg_association(bio, op->parent);
	}
	c = to_child(bio);
	c->sc = sc;
	c->io = op->io;
	c->pt = t;
	ssa_cstate_set(&c->cs, t->member, msector, t->hi - t->lo,
		       t->idx + t->phase,
		       parity ? SSA_CLASS_HIGH : SSA_CLASS_LOW,
		       write ? SSA_OP_WRITE : SSA_OP_READ);
	c->cs.start_hook = t->kind == SSA_T_RMW_DATA && !t->phase &&
			   op->sync == SSA_SYNC_BEFORE;
	bio->bi_iter.bi_sector = mb->offset + msector;
	bio->bi_end_io = ssa_ptask_endio;
	bio->bi_private = NULL;
	return bio;
}

/* Queue the task's first bio at its member. */
static void ssa_task_issue(struct ssa_pop *op, struct ssa_ptask *t,
			   bool from_map)
{
	struct bio *bio = ssa_task_bio(op, t);

	ssa_submit_child(op->sc, bio, op->io, &to_child(bio)->cs, from_map);
}

/* The task's next bio, in the dispatch slot its first one holds. */
static void ssa_task_next(struct ssa_pop *op, struct ssa_ptask *t)
{
	struct bio *bio = ssa_task_bio(op, t);

	to_child(bio)->cs.counted = t->counted;
	ssa_submit_held(op->sc, bio, op->io, &to_child(bio)->cs);
}

/* Failed members, and the first of them in *first (-1 if none). */
unsigned int ssa_parity_nr_failed(struct ssa_ctx *sc, int *first)
{
	unsigned int m, n = 0;

	if (first)
		*first = -1;
	for (m = 0; m < sc->nr_members; m++) {
		if (!test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags))
			continue;
		if (first && !n)
			*first = m;
		n++;
	}
	return n;
}

bool ssa_parity_rb_active(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);

	return READ_ONCE(par->rb_active) &&
	       !test_bit(SSA_MEMBER_FAILED, &sc->members[par->rb_member].flags);
}

/* Members not fully readable: the failed ones and one being rebuilt. */
unsigned int ssa_parity_nr_lost(struct ssa_ctx *sc)
{
	return ssa_parity_nr_failed(sc, NULL) +
	       (ssa_parity_rb_active(sc) ? 1 : 0);
}

bool ssa_parity_degraded(struct ssa_ctx *sc)
{
	return ssa_parity_nr_lost(sc) != 0;
}

/*
 * An error the volume survives: a member fault (the member is marked failed
 * by then) while no other member has failed.
 */
bool ssa_parity_survivable(struct ssa_ctx *sc, blk_status_t status)
{
	return ssa_member_fault(status, NULL) && ssa_parity_nr_lost(sc) <= 1;
}

/* The task ends early: its read failed, or its group gave up. */
static void ssa_task_abandon(struct ssa_pop *op, struct ssa_ptask *t,
			     bool error)
{
	if (t->counted)
		ssa_slot_put(op->sc, t->member);
	t->counted = false;
	if (error)
		ssa_io_set_error(op->io, BLK_STS_IOERR);
	ssa_io_put(op->io);
}

/*
 * A data read of the group failed: if the volume survives it, the old data
 * is rebuilt from the other members before the parity is computed; a
 * second loss in the group gives the group up.
 */
static void ssa_lose(struct ssa_pop *op, struct ssa_pgroup *pg,
		     struct ssa_ptask *t)
{
	if (pg->lost || pg->noparity ||
	    !ssa_parity_survivable(op->sc, t->status))
		pg->failed = true;
	else
		pg->lost = t;
}

static void ssa_queue_recovery(struct ssa_pgroup *pg)
{
	struct ssa_parity *par = ssa_par(pg->lost->op->sc);
	unsigned long flags;

	spin_lock_irqsave(&par->lock, flags);
	list_add_tail(&pg->recover, &par->recover);
	spin_unlock_irqrestore(&par->lock, flags);
	queue_work(par->recover_wq, &par->recover_work);
}

/*
 * The group's parity is computed (and logged, with a ppl): write it, and
 * the data that waited for it -- rcw's, and rmw's held for the log.
 */
void ssa_parity_writes(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	struct ssa_ptask *t = ssa_parity_task(pg, op);
	struct ssa_io *io = op->io;
	unsigned int i;

	/* the last bio may end the write before the loop is done */
	atomic_inc(&io->pending);
	if (pg->method == SSA_WM_RCW) {
		ssa_task_issue(op, t, false);
		for (i = 0; i < pg->nr_data; i++)
			ssa_task_issue(op, &op->tasks[pg->first + i], false);
	} else {
		ssa_task_next(op, t);
		for (i = 0; i < pg->nr_data; i++) {
			t = &op->tasks[pg->first + i];
			if (t->held) {
				t->held = false;
				ssa_task_issue(op, t, false);
			}
		}
	}
	ssa_io_put(io);
}

/* rmw data held for the log, when the group is given up or goes on alone. */
static void ssa_release_held(struct ssa_pop *op, struct ssa_pgroup *pg,
			     bool write)
{
	unsigned int i;

	for (i = 0; i < pg->nr_data; i++) {
		struct ssa_ptask *t = &op->tasks[pg->first + i];

		if (!t->held)
			continue;
		t->held = false;
		if (write)
			ssa_task_issue(op, t, false);
		else
			ssa_task_abandon(op, t, true);
	}
}

/*
 * Every read of the group is in (for rmw the old parity too): rebuild lost
 * old data first, then compute the parity, log the group if the volume
 * has a ppl, and write the parity, and (rcw) the data.
 */
void ssa_parity_try(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	struct ssa_ptask *t = ssa_parity_task(pg, op);
	bool rcw = pg->method == SSA_WM_RCW;
	unsigned int i;

	if (pg->reads_left || (!rcw && !pg->parity_in))
		return;
	if (!pg->failed && !pg->noparity && pg->lost && !pg->recovered) {
		ssa_queue_recovery(pg);
		return;
	}
	if (pg->failed || pg->noparity) {
		/* rcw data waits for its reads: it is given up too */
		for (i = 0; rcw && i < pg->nr_data; i++)
			ssa_task_abandon(op, &op->tasks[pg->first + i], true);
		/* rmw data held for the log goes alone if the parity is lost */
		ssa_release_held(op, pg, !pg->failed);
		ssa_task_abandon(op, t, pg->failed);
		return;
	}
	ssa_parity_compute(op, pg);
	if (op->ppl)
		ssa_ppl_log(op, pg);	/* ssa_parity_writes() once logged */
	else
		ssa_parity_writes(op, pg);
}

static void ssa_read_done(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	if (--pg->reads_left)
		return;
	if (pg->method == SSA_WM_RMW && op->sync == SSA_SYNC_AFTER) {
		/* after_service: the parity task is queued only now */
		if (pg->failed) {
			ssa_release_held(op, pg, false);
			ssa_task_abandon(op, ssa_parity_task(pg, op), true);
		} else {
			ssa_task_issue(op, ssa_parity_task(pg, op), false);
		}
		return;
	}
	ssa_parity_try(op, pg);
}

/*
 * before_service: an rmw data task's first bio is being dispatched (from
 * ssa_dispatch()); the last one of its group queues the parity task.
 */
void ssa_parity_started(struct bio *bio)
{
	struct ssa_ptask *t = to_child(bio)->pt;

	if (atomic_dec_and_test(&t->pg->bs_left))
		ssa_task_issue(t->op, ssa_parity_task(t->pg, t->op), false);
}

/* A task's bio completed before its last: carry on (work item). */
static void ssa_task_advance(struct ssa_ptask *t)
{
	struct ssa_pop *op = t->op;
	struct ssa_pgroup *pg = t->pg;

	switch (t->kind) {
	case SSA_T_RMW_DATA:
		if (t->status) {
			ssa_lose(op, pg, t);
			ssa_task_abandon(op, t, pg->failed);
		} else if (op->ppl) {
			/*
			 * Written once the group is logged, from a slot of
			 * its own: held across the wait, the slot could be
			 * the one another group's parity read waits for.
			 */
			if (t->counted)
				ssa_slot_put(op->sc, t->member);
			t->counted = false;
			t->held = true;
		} else {
			ssa_task_next(op, t);	/* write the new data */
		}
		ssa_read_done(op, pg);
		break;
	case SSA_T_READ:
		if (t->status)
			ssa_lose(op, pg, t);
		ssa_read_done(op, pg);
		ssa_io_put(op->io);
		break;
	case SSA_T_RMW_PARITY:
		if (t->status) {
			/* the parity member failed: the data goes on alone */
			if (pg->lost ||
			    !ssa_parity_survivable(op->sc, t->status))
				pg->failed = true;
			else
				pg->noparity = true;
		}
		pg->parity_in = true;
		ssa_parity_try(op, pg);
		break;
	}
}

static void ssa_ptask_endio(struct bio *bio)
{
	struct ssa_child *c = to_child(bio);
	struct ssa_ptask *t = c->pt;
	struct ssa_pop *op = t->op;
	struct ssa_ctx *sc = op->sc;
	struct ssa_parity *par = ssa_par(sc);
	blk_status_t status = bio->bi_status;
	bool last = t->phase + 1 == ssa_task_bios[t->kind];
	bool wrote = ssa_task_writes(t);
	unsigned long flags;

	t->counted = c->cs.counted;
	if (last)
		ssa_child_done(sc, bio, op->io, &c->cs, status);
	else
		ssa_child_done_held(sc, bio, op->io, &c->cs, status);
	bio_put(bio);
	t->phase++;
	if (unlikely(status)) {
		t->status = status;
		/*
		 * A write the volume survives: the group's parity covers the
		 * data lost with the member (or the parity alone was lost).
		 * Reads are judged when the task advances.
		 */
		if (wrote && !ssa_parity_survivable(sc, status))
			ssa_io_set_error(op->io, status);
	}
	if (last && t->kind != SSA_T_READ) {
		ssa_io_put(op->io);
		return;
	}
	spin_lock_irqsave(&par->lock, flags);
	list_add_tail(&t->ready, &par->ready);
	spin_unlock_irqrestore(&par->lock, flags);
	queue_work(sc->wq, &par->work);
}

/* Locks held: take the pages and queue the first tasks. */
static void __ssa_op_start(struct ssa_pop *op, bool from_map)
{
	struct ssa_ctx *sc = op->sc;
	unsigned int g, i, lost = 0;

	ssa_parity_get_pages(ssa_par(sc), op);
	for (g = 0; g < op->nr_groups; g++) {
		struct ssa_pgroup *pg = &op->groups[g];
		unsigned int gl = pg->lost ? 1 : 0;

		lost += gl;
		pg->reads_left = pg->method == SSA_WM_RMW ? pg->nr_data - gl :
			pg->method == SSA_WM_RCW ? pg->nr_reads : 0;
		atomic_set(&pg->bs_left, pg->nr_data - gl);
	}
	atomic_add(op->nr_tasks - lost, &op->io->pending);
	for (g = 0; g < op->nr_groups; g++) {
		struct ssa_pgroup *pg = &op->groups[g];
		bool rcw = pg->method == SSA_WM_RCW;
		/* rmw whose only data task is lost: nothing to wait for */
		bool parity_now = pg->method == SSA_WM_RMW && !pg->reads_left;

		/*
		 * rcw data is written once its reads are in, so a failed
		 * read can still be rebuilt from the old contents.
		 */
		for (i = 0; i < pg->nr_data; i++) {
			struct ssa_ptask *t = &op->tasks[pg->first + i];

			if (!t->lost && !(rcw && (pg->nr_reads || op->ppl)))
				ssa_task_issue(op, t, from_map);
		}
		for (i = 0; i < pg->nr_reads; i++)
			ssa_task_issue(op, &op->tasks[pg->xfirst + i], from_map);
		if (rcw && !pg->nr_reads) {
			/* a full-stripe write: the parity is known now */
			ssa_parity_compute(op, pg);
			if (op->ppl) {
				ssa_ppl_log(op, pg);
				continue;
			}
			ssa_task_issue(op, ssa_parity_task(pg, op), from_map);
		}
		if (parity_now)
			ssa_task_issue(op, ssa_parity_task(pg, op), from_map);
	}
}

/*
 * Does @op write a whole stripe (a stream's writes), to be sent with the
 * others that arrive meanwhile under one plug?  Only without a dispatcher
 * queue (with queue_depth D the dispatcher orders and merges: merge on),
 * and not with a ppl, whose gate orders the writes itself.
 */
static bool ssa_op_plugs(struct ssa_pop *op)
{
	unsigned int g;

	if (READ_ONCE(op->sc->queue_depth) || ssa_par(op->sc)->ppl)
		return false;
	for (g = 0; g < op->nr_groups; g++)
		if (op->groups[g].method == SSA_WM_RCW &&
		    !op->groups[g].nr_reads)
			return true;
	return false;
}

/*
 * Locks held.  A write arriving from the map path that writes whole
 * stripes is started by the plug work item, with every other such write
 * that arrived before it runs, under one plug: a member whose queue
 * merges (a disk's request queue) then gets the consecutive stripes'
 * chunks as one write, as md's raid5d sends the stripes it handles
 * together.  The wait is that of a work item, no timer.
 */
void ssa_parity_op_start(struct ssa_pop *op, bool from_map)
{
	struct ssa_parity *par = ssa_par(op->sc);
	unsigned long flags;

	if (!from_map || !ssa_op_plugs(op)) {
		__ssa_op_start(op, from_map);
		return;
	}
	atomic_inc(&op->io->pending);	/* the plug work's */
	spin_lock_irqsave(&par->lock, flags);
	list_add_tail(&op->wait, &par->plugged);
	spin_unlock_irqrestore(&par->lock, flags);
	queue_work(par->start_wq, &par->plug_work);
}

void ssa_parity_plug_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      plug_work);
	struct ssa_pop *op, *tmp;
	struct blk_plug plug;
	LIST_HEAD(list);

	spin_lock_irq(&par->lock);
	list_splice_init(&par->plugged, &list);
	spin_unlock_irq(&par->lock);

	blk_start_plug(&plug);
	list_for_each_entry_safe(op, tmp, &list, wait) {
		list_del(&op->wait);
		__ssa_op_start(op, false);
		ssa_io_put(op->io);	/* the plug work's reference */
	}
	blk_finish_plug(&plug);
}

/* A failure stopped the rebuild before the write's groups were done. */
void ssa_parity_rb_refuse(struct ssa_pop *op)
{
	struct ssa_ctx *sc = op->sc;

	DMERR_LIMIT("%s: rebuild of member %d cut short by a failure: a write fails",
		    dm_device_name(dm_table_get_md(sc->ti->table)),
		    ssa_par(sc)->rb_member);
	ssa_io_set_error(op->io, BLK_STS_IOERR);
}

/*
 * Count @op in the bitmap regions of its groups: false while it waits for
 * their bits, after which ssa_parity_bm_go() starts it.
 */
static bool ssa_op_bm_gate(struct ssa_parity *par, struct ssa_pop *op)
{
	u64 first = U64_MAX, last = 0;
	unsigned int i;

	if (!op->nr_locks)
		return true;
	for (i = 0; i < op->nr_locks; i++) {
		first = min(first, op->locks[i].key);
		last = max(last, op->locks[i].key);
	}
	atomic_inc(&op->io->pending);	/* the bitmap work's, if it waits */
	if (ssa_bm_gate(par->bm, &op->bmw, first, last)) {
		atomic_dec(&op->io->pending);	/* the caller holds another */
		return true;
	}
	return false;
}

/* The bitmap's work: the bits of @w's write are on the device. */
void ssa_parity_bm_go(struct ssa_ctx *sc, struct ssa_bm_wait *w)
{
	struct ssa_pop *op = container_of(w, struct ssa_pop, bmw);

	ssa_parity_op_go(op, false);
	ssa_io_put(op->io);
}

/*
 * Locks held.  While a member is being rebuilt, the groups of the write
 * whose chunk of it is not rebuilt yet are rebuilt first, on a worker
 * (the write may read that chunk: its old data or old parity).
 */
void ssa_parity_op_go(struct ssa_pop *op, bool from_map)
{
	struct ssa_parity *par = ssa_par(op->sc);
	unsigned long flags;
	unsigned int i;

	/* its regions' bits on the bitmap device first (if it has one) */
	if (unlikely(par->bm) && !ssa_op_bm_gate(par, op))
		return;
	/* its slots in the partial parity log (if it has one) */
	if (unlikely(par->ppl) && !ssa_ppl_gate(op))
		return;
	if (unlikely(READ_ONCE(par->rb_active)) && op->failed != par->rb_member) {
		for (i = 0; i < op->nr_locks; i++)
			if (!test_bit(op->locks[i].key, par->rb_done))
				break;
		if (i < op->nr_locks && !ssa_parity_rb_active(op->sc)) {
			/* planned to read a chunk that will not be rebuilt now */
			ssa_parity_rb_refuse(op);
			return;
		}
		if (i < op->nr_locks) {
			atomic_inc(&op->io->pending);	/* the worker's */
			spin_lock_irqsave(&par->lock, flags);
			list_add_tail(&op->wait, &par->prebuild);
			spin_unlock_irqrestore(&par->lock, flags);
			queue_work(par->recover_wq, &par->prebuild_work);
			return;
		}
	}
	ssa_parity_op_start(op, from_map);
}

/* Operations that waited for a lock, retried in arrival order. */
static void ssa_retry_waiting(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_pop *op, *tmp;
	LIST_HEAD(list);
	LIST_HEAD(go);

	spin_lock_irq(&par->lock);
	if (!par->retry) {
		spin_unlock_irq(&par->lock);
		return;
	}
	par->retry = false;
	list_splice_init(&par->waiting, &list);
	list_for_each_entry_safe(op, tmp, &list, wait) {
		list_del(&op->wait);
		if (ssa_pg_lock_or_wait(par, op))
			list_add_tail(&op->wait, &go);
	}
	spin_unlock_irq(&par->lock);

	list_for_each_entry_safe(op, tmp, &go, wait) {
		list_del(&op->wait);
		ssa_parity_op_go(op, false);
		ssa_io_put(op->io);	/* the fork's own reference */
	}
}

void ssa_parity_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity, work);
	struct ssa_ptask *t;

	for (;;) {
		spin_lock_irq(&par->lock);
		t = list_first_entry_or_null(&par->ready, struct ssa_ptask,
					     ready);
		if (t)
			list_del(&t->ready);
		spin_unlock_irq(&par->lock);
		if (!t)
			break;
		ssa_task_advance(t);
		cond_resched();
	}
}

void ssa_parity_start_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      start_work);

	ssa_retry_waiting(par->sc);
}

/* ---- entry points --------------------------------------------------- */

int ssa_parity_write(struct ssa_ctx *sc, struct ssa_io *io,
		     struct bio *bio, u64 start, u64 end)
{
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_plan_in in = {
		.layout = sc->layout,
		.geom = &sc->geom,
		.nr_members = sc->nr_members,
		.write_method = READ_ONCE(sc->write_method),
		.max_tasks = par->max_tasks,
	};
	struct ssa_pop *op;
	unsigned int i, children = 0;
	bool locked;
	int failed;
	u64 cut;

	ssa_parity_nr_failed(sc, &failed);
	if (unlikely(ssa_parity_nr_lost(sc) > 1)) {
		ssa_fork_begin(sc, io, SSA_OP_WRITE, start, end, 0);
		DMERR_LIMIT("%s: two members have failed: writes are refused",
			    dm_device_name(dm_table_get_md(sc->ti->table)));
		ssa_io_set_error(io, BLK_STS_IOERR);
		ssa_io_put(io);
		return DM_MAPIO_SUBMITTED;
	}

	op = mempool_alloc(par->op_pool, GFP_NOIO);

	op->groups = (void *)(op + 1);
	op->tasks = (void *)(op->groups + SSA_OP_GROUPS);
	op->locks = (void *)(op->tasks + par->max_tasks);
	op->pages = (void *)(op->locks + SSA_OP_LOCKS);
	op->sc = sc;
	op->io = io;
	op->parent = bio;
	op->sync = READ_ONCE(sc->sync);
	op->locked = false;
	ssa_bm_wait_init(&op->bmw);
	op->ppl = false;
	op->ppl_gated = false;
	op->failed = failed;
	op->nr_alloc = 0;
	io->pop = op;

	cut = ssa_plan(&in, op, start, end);
	if (cut < end) {
		dm_accept_partial_bio(bio, cut - start);
		end = cut;
	}
	op->iter = bio->bi_iter;
	for (i = 0; i < op->nr_tasks; i++) {
		op->tasks[i].idx = children;
		if (!op->tasks[i].lost)
			children += ssa_task_bios[op->tasks[i].kind];
	}

	ssa_fork_begin(sc, io, SSA_OP_WRITE, start, end, children);
	spin_lock_irq(&par->lock);
	locked = ssa_pg_lock_or_wait(par, op);
	spin_unlock_irq(&par->lock);
	if (locked) {
		ssa_parity_op_go(op, true);
		ssa_io_put(io);
	}
	/* else the work item starts it, and drops the fork's reference */
	return DM_MAPIO_SUBMITTED;
}

/* The last reference to a write went: unlock, free (any context). */
void ssa_parity_join(struct ssa_io *io)
{
	struct ssa_pop *op = io->pop;
	struct ssa_ctx *sc = io->sc;

	if (!op)		/* a read or a flush */
		return;

	if (op->locked)
		ssa_pg_unlock(sc, op);
	ssa_parity_put_pages(ssa_par(sc), op);
	mempool_free(op, ssa_par(sc)->op_pool);
	io->pop = NULL;
}
