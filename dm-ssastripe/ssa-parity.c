// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: writes of the parity layouts (raid5 and pstripe).
 *
 * Reads need nothing special: they are forked like stripe reads, a child per
 * chunk piece, over the layout's map.  A write is served the way seed 002
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
 */
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"

#define SSA_OP_PAGES		512	/* pages of one operation, at most */
#define SSA_OP_GROUPS		16	/* group spans of one operation */
#define SSA_OP_LOCKS		64	/* group numbers one operation locks */
#define SSA_SPAN_SECTORS	2048	/* a merged pstripe span, at most */
#define SSA_OP_POOL		4	/* operations kept in reserve */
#define SSA_LOCK_BITS		8

enum ssa_task_kind {
	SSA_T_RMW_DATA,		/* read old data, write new */
	SSA_T_WRITE_DATA,	/* write new data */
	SSA_T_READ,		/* read data the write leaves (rcw) */
	SSA_T_RMW_PARITY,	/* read old parity, wait, write new */
	SSA_T_WRITE_PARITY,	/* write new parity (rcw) */
};

/* Bios each kind of task issues. */
static const u8 ssa_task_bios[] = {
	[SSA_T_RMW_DATA] = 2,
	[SSA_T_WRITE_DATA] = 1,
	[SSA_T_READ] = 1,
	[SSA_T_RMW_PARITY] = 2,
	[SSA_T_WRITE_PARITY] = 1,
};

struct ssa_pop;
struct ssa_pgroup;

struct ssa_ptask {
	struct ssa_pop *op;
	struct ssa_pgroup *pg;
	u8 kind;
	u8 phase;		/* bios of the task completed */
	bool counted;		/* holds its member's dispatch slot */
	u16 member;
	u32 idx;		/* child number of its first bio */
	u32 lo, hi;		/* sectors from the start of the group span */
	u32 loff;		/* data tasks: sector offset in the request */
	u32 page0;		/* its buffer: op->pages[page0 ...] */
	blk_status_t status;
	struct list_head ready;
};

/*
 * A group span: one parity group or, with pstripe, several whose chunks
 * follow each other on every member.  Sector ranges count from the start
 * of the span's first chunk.
 */
struct ssa_pgroup {
	struct ssa_group grp;	/* the first group of the span */
	u32 nchunks;
	u32 lo, hi;		/* the range the parity is updated over */
	u8 method;		/* SSA_WM_RMW or SSA_WM_RCW */
	bool failed;		/* a read for the group failed */
	bool parity_in;		/* rmw: the old parity is in memory */
	u16 first, nr_data;	/* its data tasks */
	u16 xfirst, nr_reads;	/* its reads, then its parity task */
	unsigned int cost_pages, cost_extra;	/* planning */
	u32 reads_left;		/* reads the parity still waits for */
	atomic_t bs_left;	/* before_service: data tasks not started */
};

struct ssa_plock {
	struct hlist_node node;
	u64 key;
};

struct ssa_pop {
	struct ssa_ctx *sc;
	struct ssa_io *io;
	struct bio *parent;
	struct bvec_iter iter;	/* the parent's data as it arrived */
	u8 sync;		/* enum ssa_sync, fixed at arrival */
	bool locked;
	struct list_head wait;
	unsigned int nr_groups, nr_tasks, nr_locks, nr_pages, nr_alloc;
	struct ssa_pgroup *groups;
	struct ssa_ptask *tasks;
	struct ssa_plock *locks;
	struct page **pages;
};

struct ssa_parity {
	struct ssa_ctx *sc;
	spinlock_t lock;	/* buckets, waiting, ready */
	struct hlist_head buckets[1 << SSA_LOCK_BITS];
	struct list_head waiting;	/* operations waiting for a lock */
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
	mempool_t *op_pool;
	mempool_t *page_pool;
	struct mutex reserve;	/* one operation at a time on the reserve */
	unsigned int max_tasks;

	/* check / repair: a walk over every group (messages) */
	struct work_struct scrub_work;
	struct ssa_plock scrub_lock;
	bool scrub_repair;
	bool scrub_stop;
	unsigned long scrub_running;	/* bit 0: a walk is under way */
	u64 scrub_pos;		/* groups done */
	u64 mismatches;		/* groups whose parity did not match */
};

static inline struct ssa_child *to_child(struct bio *bio)
{
	return container_of(bio, struct ssa_child, bio);
}

static inline struct ssa_ptask *ssa_parity_task(struct ssa_pgroup *pg,
						struct ssa_pop *op)
{
	return &op->tasks[pg->xfirst + pg->nr_reads];
}

static unsigned int ssa_pages_of(u32 sectors)
{
	return DIV_ROUND_UP(sectors << SECTOR_SHIFT, PAGE_SIZE);
}

static inline struct page **ssa_task_pages(struct ssa_ptask *t)
{
	return &t->op->pages[t->page0];
}

/* ---- XOR and copies over page buffers and the request's bvecs ------- */

static void ssa_xor(void *dst, void *src, unsigned int bytes)
{
	if (!(((unsigned long)dst | (unsigned long)src | bytes) & 511)) {
		xor_blocks(1, bytes, dst, &src);
	} else {
		u8 *d = dst, *s = src;

		while (bytes--)
			*d++ ^= *s++;
	}
}

static inline void *ssa_buf_at(struct page **pages, u32 byte)
{
	return page_address(pages[byte >> PAGE_SHIFT]) + offset_in_page(byte);
}

/* dst[doff..] ^= src[soff..] over @bytes (buffers of whole pages). */
static void ssa_xor_buf(struct page **dst, u32 doff, struct page **src,
			u32 soff, u32 bytes)
{
	while (bytes) {
		u32 n = min3(bytes, (u32)(PAGE_SIZE - offset_in_page(doff)),
			     (u32)(PAGE_SIZE - offset_in_page(soff)));

		ssa_xor(ssa_buf_at(dst, doff), ssa_buf_at(src, soff), n);
		doff += n;
		soff += n;
		bytes -= n;
	}
}

/*
 * Combine the request's data at sector @loff (from its start) into
 * dst[doff..], @sectors long: XOR it in, or copy it over.
 */
static void ssa_bio_to_buf(struct ssa_pop *op, struct page **dst, u32 doff,
			   u32 loff, u32 sectors, bool copy)
{
	struct bvec_iter it = op->iter;
	u32 bytes = sectors << SECTOR_SHIFT;

	bio_advance_iter(op->parent, &it, loff << SECTOR_SHIFT);
	while (bytes) {
		struct bio_vec bv = bio_iter_iovec(op->parent, it);
		u32 n = min3(bytes, bv.bv_len,
			     (u32)(PAGE_SIZE - offset_in_page(doff)));
		void *src = kmap_local_page(bv.bv_page) + bv.bv_offset;

		if (copy)
			memcpy(ssa_buf_at(dst, doff), src, n);
		else
			ssa_xor(ssa_buf_at(dst, doff), src, n);
		kunmap_local(src);
		bio_advance_iter_single(op->parent, &it, n);
		doff += n;
		bytes -= n;
	}
}

static void ssa_zero_buf(struct page **pages, u32 bytes)
{
	u32 i;

	for (i = 0; i < bytes; i += PAGE_SIZE)
		memset(page_address(pages[i >> PAGE_SHIFT]), 0,
		       min_t(u32, PAGE_SIZE, bytes - i));
}

/* The new parity of @pg over [lo, hi), into its parity task's buffer. */
static void ssa_compute_parity(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	struct ssa_ptask *pt = ssa_parity_task(pg, op);
	struct page **p = ssa_task_pages(pt);
	u32 span = pg->hi - pg->lo;
	unsigned int i, j;

	if (pg->method == SSA_WM_RMW) {
		/* new parity = old parity ^ old data ^ new data */
		for (i = 0; i < pg->nr_data; i++) {
			struct ssa_ptask *t = &op->tasks[pg->first + i];
			u32 doff = (t->lo - pg->lo) << SECTOR_SHIFT;

			ssa_xor_buf(p, doff, ssa_task_pages(t), 0,
				    (t->hi - t->lo) << SECTOR_SHIFT);
			ssa_bio_to_buf(op, p, doff, t->loff, t->hi - t->lo,
				       false);
		}
		return;
	}

	/* rcw: the XOR of every data member's new contents over the range */
	ssa_zero_buf(p, span << SECTOR_SHIFT);
	for (i = 0; i < pg->nr_data; i++) {
		struct ssa_ptask *t = &op->tasks[pg->first + i];
		struct ssa_ptask *r = NULL;

		for (j = 0; j < pg->nr_reads; j++)
			if (op->tasks[pg->xfirst + j].member ==
			    t->member)
				r = &op->tasks[pg->xfirst + j];
		if (!r) {	/* the write covers the whole range */
			ssa_bio_to_buf(op, p, 0, t->loff, span, false);
			continue;
		}
		ssa_bio_to_buf(op, ssa_task_pages(r),
			       (t->lo - pg->lo) << SECTOR_SHIFT, t->loff,
			       t->hi - t->lo, true);
	}
	for (j = 0; j < pg->nr_reads; j++)
		ssa_xor_buf(p, 0,
			    ssa_task_pages(&op->tasks[pg->xfirst + j]),
			    0, span << SECTOR_SHIFT);
}

/* ---- planning ------------------------------------------------------- */

/* Reads, tasks and pages the group needs with @method. */
static void ssa_method_cost(struct ssa_ctx *sc, struct ssa_pop *op,
			    struct ssa_pgroup *pg, unsigned int method,
			    unsigned int *reads, unsigned int *pages)
{
	u32 span = pg->hi - pg->lo;
	unsigned int i, covering = 0;

	if (method == SSA_WM_RMW) {
		*reads = pg->nr_data + 1;
		*pages = ssa_pages_of(span);
		for (i = 0; i < pg->nr_data; i++) {
			struct ssa_ptask *t = &op->tasks[pg->first + i];

			*pages += ssa_pages_of(t->hi - t->lo);
		}
		return;
	}
	for (i = 0; i < pg->nr_data; i++) {
		struct ssa_ptask *t = &op->tasks[pg->first + i];

		covering += t->lo == pg->lo && t->hi == pg->hi;
	}
	*reads = sc->nr_members - 1 - covering;
	*pages = (*reads + 1) * ssa_pages_of(span);
}

/*
 * Choose the group's method (the table's, or with "auto" the one with fewer
 * reads, rmw on a tie).  If that does not fit in @budget pages and the
 * other does, take the other.  Returns the pages, and the tasks in *tasks.
 */
static unsigned int ssa_plan_method(struct ssa_ctx *sc, struct ssa_pop *op,
				    struct ssa_pgroup *pg, unsigned int budget,
				    unsigned int *tasks)
{
	unsigned int method = READ_ONCE(sc->write_method);
	unsigned int r_rmw, p_rmw, r_rcw, p_rcw, i;

	pg->lo = U32_MAX;
	pg->hi = 0;
	for (i = 0; i < pg->nr_data; i++) {
		pg->lo = min(pg->lo, op->tasks[pg->first + i].lo);
		pg->hi = max(pg->hi, op->tasks[pg->first + i].hi);
	}
	ssa_method_cost(sc, op, pg, SSA_WM_RMW, &r_rmw, &p_rmw);
	ssa_method_cost(sc, op, pg, SSA_WM_RCW, &r_rcw, &p_rcw);
	if (method == SSA_WM_AUTO)
		method = r_rcw < r_rmw ? SSA_WM_RCW : SSA_WM_RMW;
	if (method == SSA_WM_RCW && p_rcw > budget && p_rmw <= budget)
		method = SSA_WM_RMW;
	else if (method == SSA_WM_RMW && p_rmw > budget && p_rcw <= budget)
		method = SSA_WM_RCW;
	pg->method = method;
	if (method == SSA_WM_RMW) {
		*tasks = pg->nr_data + 1;
		return p_rmw;
	}
	*tasks = pg->nr_data + r_rcw + 1;
	return p_rcw;
}

/* Append the group's read and parity tasks and place its buffers. */
static void ssa_close_group(struct ssa_ctx *sc, struct ssa_pop *op,
			    struct ssa_pgroup *pg)
{
	u32 span = pg->hi - pg->lo;
	unsigned int i, m;
	struct ssa_ptask *t;

	pg->xfirst = op->nr_tasks;
	pg->nr_reads = 0;
	for (i = 0; i < pg->nr_data; i++) {
		t = &op->tasks[pg->first + i];
		t->pg = pg;
		t->kind = pg->method == SSA_WM_RMW ? SSA_T_RMW_DATA :
						     SSA_T_WRITE_DATA;
		if (t->kind == SSA_T_RMW_DATA) {
			t->page0 = op->nr_pages;
			op->nr_pages += ssa_pages_of(t->hi - t->lo);
		}
	}
	if (pg->method == SSA_WM_RCW) {
		for (m = 0; m < sc->nr_members; m++) {
			bool covered = false;

			if (m == pg->grp.pmember)
				continue;
			for (i = 0; i < pg->nr_data; i++) {
				t = &op->tasks[pg->first + i];
				if (t->member == m && t->lo == pg->lo &&
				    t->hi == pg->hi)
					covered = true;
			}
			if (covered)
				continue;
			t = &op->tasks[op->nr_tasks++];
			memset(t, 0, sizeof(*t));
			t->pg = pg;
			t->kind = SSA_T_READ;
			t->member = m;
			t->lo = pg->lo;
			t->hi = pg->hi;
			t->page0 = op->nr_pages;
			op->nr_pages += ssa_pages_of(span);
			pg->nr_reads++;
		}
	}
	t = &op->tasks[op->nr_tasks++];
	memset(t, 0, sizeof(*t));
	t->pg = pg;
	t->kind = pg->method == SSA_WM_RMW ? SSA_T_RMW_PARITY :
					     SSA_T_WRITE_PARITY;
	t->member = pg->grp.pmember;
	t->lo = pg->lo;
	t->hi = pg->hi;
	t->page0 = op->nr_pages;
	op->nr_pages += ssa_pages_of(span);
}

/* Pages and read/parity tasks the groups before the last one need. */
static void ssa_plan_totals(struct ssa_pop *op, unsigned int *pages,
			    unsigned int *extra)
{
	unsigned int g;

	*pages = 0;
	*extra = 0;
	for (g = 0; g + 1 < op->nr_groups; g++) {
		*pages += op->groups[g].cost_pages;
		*extra += op->groups[g].cost_extra;
	}
}

/* (Re)decide the last group's method and cost; false if over budget. */
static bool ssa_plan_fits(struct ssa_ctx *sc, struct ssa_pop *op)
{
	struct ssa_pgroup *pg = &op->groups[op->nr_groups - 1];
	unsigned int pages, extra, tasks;

	ssa_plan_totals(op, &pages, &extra);
	pg->cost_pages = ssa_plan_method(sc, op, pg, SSA_OP_PAGES - pages,
					 &tasks);
	pg->cost_extra = tasks - pg->nr_data;
	return pages + pg->cost_pages <= SSA_OP_PAGES &&
	       op->nr_tasks + extra + pg->cost_extra <= sc->par->max_tasks;
}

/*
 * Build the operation's groups and tasks for [start, end): first the data
 * tasks, piece by piece, stopping before a piece that would not fit; then
 * each group's reads and parity task.  Returns the end actually planned.
 */
static u64 ssa_plan(struct ssa_ctx *sc, struct ssa_pop *op, u64 start,
		    u64 end)
{
	const struct ssa_layout *l = sc->layout;
	bool pstripe = l->id == SSA_LAYOUT_PSTRIPE;
	struct ssa_pgroup *pg = NULL;
	struct ssa_extent e;
	struct ssa_group grp;
	struct ssa_ptask *t;
	unsigned int g;
	u64 ls, len;
	u32 off;

	op->nr_groups = 0;
	op->nr_tasks = 0;
	op->nr_locks = 0;
	op->nr_pages = 0;
	for (ls = start; ls < end; ls += len) {
		enum { SAME, EXTEND, NEW } how;

		l->map(&sc->geom, ls, &e);
		len = min(e.len, end - ls);
		l->group_of(&sc->geom, e.member,
			    ssa_chunk_index(&sc->geom, e.msector, &off), &grp);

		if (pg && !pstripe && grp.idx == pg->grp.idx)
			how = SAME;	/* raid5: the row's next member */
		else if (pg && pstripe && !off &&
			 e.member == op->tasks[pg->first].member &&
			 grp.pmember == pg->grp.pmember &&
			 grp.idx == pg->grp.idx +
				    (u64)pg->nchunks * sc->nr_members &&
			 (pg->nchunks + 1) * sc->geom.chunk <= SSA_SPAN_SECTORS)
			how = EXTEND;	/* pstripe: the segment's next chunk */
		else
			how = NEW;

		if (ls > start &&
		    (op->nr_locks == SSA_OP_LOCKS ||
		     op->nr_tasks == sc->par->max_tasks ||
		     (how == NEW && op->nr_groups == SSA_OP_GROUPS)))
			break;

		if (how == NEW) {
			pg = &op->groups[op->nr_groups++];
			memset(pg, 0, sizeof(*pg));
			pg->grp = grp;
			pg->first = op->nr_tasks;
		}
		if (how != SAME)
			op->locks[op->nr_locks++].key = grp.idx;
		if (how == EXTEND) {
			op->tasks[pg->first].hi += len;
			pg->nchunks++;
		} else {
			t = &op->tasks[op->nr_tasks++];
			memset(t, 0, sizeof(*t));
			t->op = op;
			t->member = e.member;
			t->lo = off;
			t->hi = off + len;
			t->loff = ls - start;
			pg->nr_data++;
			if (how == NEW)
				pg->nchunks = 1;
		}

		if (ssa_plan_fits(sc, op) || ls == start)
			continue;

		/* does not fit: take the piece back and stop before it */
		if (how != SAME)
			op->nr_locks--;
		if (how == EXTEND) {
			op->tasks[pg->first].hi -= len;
			pg->nchunks--;
		} else {
			op->nr_tasks--;
			pg->nr_data--;
		}
		if (how == NEW)
			op->nr_groups--;
		ssa_plan_fits(sc, op);
		break;
	}

	for (g = 0; g < op->nr_groups; g++)
		ssa_close_group(sc, op, &op->groups[g]);
	for (g = 0; g < op->nr_tasks; g++)
		op->tasks[g].op = op;
	return ls < end ? ls : end;
}

/* ---- group locks ---------------------------------------------------- */

static struct hlist_head *ssa_bucket(struct ssa_parity *par, u64 key)
{
	return &par->buckets[hash_64(key, SSA_LOCK_BITS)];
}

/* Lock every group of @op, or queue it to wait.  Called under par->lock. */
static bool ssa_lock_or_wait(struct ssa_parity *par, struct ssa_pop *op)
{
	struct ssa_plock *l;
	unsigned int i;

	for (i = 0; i < op->nr_locks; i++) {
		hlist_for_each_entry(l, ssa_bucket(par, op->locks[i].key), node) {
			if (l->key == op->locks[i].key) {
				list_add_tail(&op->wait, &par->waiting);
				return false;
			}
		}
	}
	for (i = 0; i < op->nr_locks; i++)
		hlist_add_head(&op->locks[i].node,
			       ssa_bucket(par, op->locks[i].key));
	op->locked = true;
	return true;
}

static void ssa_unlock(struct ssa_ctx *sc, struct ssa_pop *op)
{
	struct ssa_parity *par = sc->par;
	unsigned long flags;
	unsigned int i;
	bool kick;

	spin_lock_irqsave(&par->lock, flags);
	for (i = 0; i < op->nr_locks; i++)
		hlist_del(&op->locks[i].node);
	kick = !list_empty(&par->waiting);
	if (kick)
		par->retry = true;
	spin_unlock_irqrestore(&par->lock, flags);
	op->locked = false;
	if (kick)
		queue_work(par->start_wq, &par->start_work);
}

/* ---- pages ---------------------------------------------------------- */

static void ssa_get_pages(struct ssa_parity *par, struct ssa_pop *op)
{
	unsigned int i;

	for (i = 0; i < op->nr_pages; i++) {
		op->pages[i] = alloc_page(GFP_NOWAIT | __GFP_NOWARN);
		if (!op->pages[i])
			break;
	}
	if (i < op->nr_pages) {
		mutex_lock(&par->reserve);
		for (; i < op->nr_pages; i++)
			op->pages[i] = mempool_alloc(par->page_pool, GFP_NOIO);
		mutex_unlock(&par->reserve);
	}
	op->nr_alloc = op->nr_pages;
}

static void ssa_put_pages(struct ssa_parity *par, struct ssa_pop *op)
{
	unsigned int i;

	for (i = 0; i < op->nr_alloc; i++)
		mempool_free(op->pages[i], par->page_pool);
	op->nr_alloc = 0;
}

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

			__bio_add_page(bio, ssa_task_pages(t)[i], b, 0);
			bytes -= b;
		}
		bio->bi_ioprio = op->parent->bi_ioprio;
		bio_clone_blkg_association(bio, op->parent);
	}
	c = to_child(bio);
	c->sc = sc;
	c->io = op->io;
	c->pt = t;
	c->cs.member = t->member;
	c->cs.msector = msector;
	c->cs.len = t->hi - t->lo;
	c->cs.idx = t->idx + t->phase;
	c->cs.class = parity ? SSA_CLASS_HIGH : SSA_CLASS_LOW;
	c->cs.op = write ? SSA_OP_WRITE : SSA_OP_READ;
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

/* The task ends early (a read it needed failed). */
static void ssa_task_abandon(struct ssa_pop *op, struct ssa_ptask *t)
{
	if (t->counted)
		ssa_slot_put(op->sc, t->member);
	t->counted = false;
	ssa_io_set_error(op->io, BLK_STS_IOERR);
	ssa_io_put(op->io);
}

/* Both the old data (or the rcw reads) and, for rmw, the old parity in. */
static void ssa_try_parity(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	struct ssa_ptask *t = ssa_parity_task(pg, op);

	if (pg->reads_left || (pg->method == SSA_WM_RMW && !pg->parity_in))
		return;
	if (pg->failed) {
		ssa_task_abandon(op, t);
		return;
	}
	ssa_compute_parity(op, pg);
	if (pg->method == SSA_WM_RMW)
		ssa_task_next(op, t);
	else
		ssa_task_issue(op, t, false);
}

static void ssa_read_done(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	if (--pg->reads_left)
		return;
	if (pg->method == SSA_WM_RMW && op->sync == SSA_SYNC_AFTER) {
		/* after_service: the parity task is queued only now */
		if (pg->failed)
			ssa_task_abandon(op, ssa_parity_task(pg, op));
		else
			ssa_task_issue(op, ssa_parity_task(pg, op), false);
		return;
	}
	ssa_try_parity(op, pg);
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
			pg->failed = true;
			ssa_task_abandon(op, t);
		} else {
			ssa_task_next(op, t);	/* write the new data */
		}
		ssa_read_done(op, pg);
		break;
	case SSA_T_READ:
		if (t->status)
			pg->failed = true;
		ssa_read_done(op, pg);
		ssa_io_put(op->io);
		break;
	case SSA_T_RMW_PARITY:
		if (t->status)
			pg->failed = true;
		pg->parity_in = true;
		ssa_try_parity(op, pg);
		break;
	}
}

static void ssa_ptask_endio(struct bio *bio)
{
	struct ssa_child *c = to_child(bio);
	struct ssa_ptask *t = c->pt;
	struct ssa_pop *op = t->op;
	struct ssa_ctx *sc = op->sc;
	struct ssa_parity *par = sc->par;
	blk_status_t status = bio->bi_status;
	bool last = t->phase + 1 == ssa_task_bios[t->kind];
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
static void ssa_op_start(struct ssa_pop *op, bool from_map)
{
	struct ssa_ctx *sc = op->sc;
	unsigned int g, i;

	ssa_get_pages(sc->par, op);
	atomic_add(op->nr_tasks, &op->io->pending);
	for (g = 0; g < op->nr_groups; g++) {
		struct ssa_pgroup *pg = &op->groups[g];

		pg->reads_left = pg->method == SSA_WM_RMW ? pg->nr_data :
							    pg->nr_reads;
		atomic_set(&pg->bs_left, pg->nr_data);
	}
	for (g = 0; g < op->nr_groups; g++) {
		struct ssa_pgroup *pg = &op->groups[g];

		for (i = 0; i < pg->nr_data; i++)
			ssa_task_issue(op, &op->tasks[pg->first + i], from_map);
		for (i = 0; i < pg->nr_reads; i++)
			ssa_task_issue(op, &op->tasks[pg->xfirst + i], from_map);
		if (pg->method == SSA_WM_RCW && !pg->nr_reads) {
			/* a full-stripe write: the parity is known now */
			ssa_compute_parity(op, pg);
			ssa_task_issue(op, ssa_parity_task(pg, op), from_map);
		}
	}
}

/* Operations that waited for a lock, retried in arrival order. */
static void ssa_retry_waiting(struct ssa_ctx *sc)
{
	struct ssa_parity *par = sc->par;
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
		if (ssa_lock_or_wait(par, op))
			list_add_tail(&op->wait, &go);
	}
	spin_unlock_irq(&par->lock);

	list_for_each_entry_safe(op, tmp, &go, wait) {
		list_del(&op->wait);
		ssa_op_start(op, false);
		ssa_io_put(op->io);	/* the fork's own reference */
	}
}

static void ssa_parity_work(struct work_struct *work)
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

static void ssa_start_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      start_work);

	ssa_retry_waiting(par->sc);
}

/* ---- entry points --------------------------------------------------- */

static bool ssa_parity_degraded(struct ssa_ctx *sc)
{
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++)
		if (test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags))
			return true;
	return false;
}

int ssa_parity_write(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		     u64 start, u64 end)
{
	struct ssa_parity *par = sc->par;
	struct ssa_pop *op = mempool_alloc(par->op_pool, GFP_NOIO);
	unsigned int i, children = 0;
	bool locked;
	u64 cut;

	op->groups = (void *)(op + 1);
	op->tasks = (void *)(op->groups + SSA_OP_GROUPS);
	op->locks = (void *)(op->tasks + par->max_tasks);
	op->pages = (void *)(op->locks + SSA_OP_LOCKS);
	op->sc = sc;
	op->io = io;
	op->parent = bio;
	op->sync = READ_ONCE(sc->sync);
	op->locked = false;
	op->nr_alloc = 0;
	io->pop = op;

	cut = ssa_plan(sc, op, start, end);
	if (cut < end) {
		dm_accept_partial_bio(bio, cut - start);
		end = cut;
	}
	op->iter = bio->bi_iter;
	for (i = 0; i < op->nr_tasks; i++) {
		op->tasks[i].idx = children;
		children += ssa_task_bios[op->tasks[i].kind];
	}

	if (unlikely(ssa_parity_degraded(sc))) {
		ssa_fork_begin(sc, io, SSA_OP_WRITE, start, end, 0);
		DMERR_LIMIT("%s: a member has failed: writes are refused",
			    dm_device_name(dm_table_get_md(sc->ti->table)));
		ssa_io_set_error(io, BLK_STS_IOERR);
		ssa_io_put(io);
		return DM_MAPIO_SUBMITTED;
	}

	ssa_fork_begin(sc, io, SSA_OP_WRITE, start, end, children);
	spin_lock_irq(&par->lock);
	locked = ssa_lock_or_wait(par, op);
	spin_unlock_irq(&par->lock);
	if (locked) {
		ssa_op_start(op, true);
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

	if (op->locked)
		ssa_unlock(sc, op);
	ssa_put_pages(sc->par, op);
	mempool_free(op, sc->par->op_pool);
	io->pop = NULL;
}

/* ---- check and repair ---------------------------------------------- */

#define SSA_SCRUB_SECTORS	512	/* a group is checked 256 KiB at a time */

/* Lock one group for the scrub, waiting while a write holds it. */
static void ssa_scrub_lock(struct ssa_parity *par, u64 key)
{
	struct ssa_plock *l;
	bool busy;

	for (;;) {
		busy = false;
		spin_lock_irq(&par->lock);
		hlist_for_each_entry(l, ssa_bucket(par, key), node)
			busy |= l->key == key;
		if (!busy) {
			par->scrub_lock.key = key;
			hlist_add_head(&par->scrub_lock.node,
				       ssa_bucket(par, key));
		}
		spin_unlock_irq(&par->lock);
		if (!busy)
			return;
		usleep_range(100, 200);
	}
}

static void ssa_scrub_unlock(struct ssa_ctx *sc)
{
	struct ssa_parity *par = sc->par;
	bool kick;

	spin_lock_irq(&par->lock);
	hlist_del(&par->scrub_lock.node);
	kick = !list_empty(&par->waiting);
	if (kick)
		par->retry = true;
	spin_unlock_irq(&par->lock);
	if (kick)
		queue_work(par->start_wq, &par->start_work);
}

/* Synchronous I/O of @sectors at member sector @ms of member @m. */
static int ssa_scrub_io(struct ssa_ctx *sc, unsigned int m, u64 ms,
			struct page **pages, u32 sectors, blk_opf_t opf)
{
	struct ssa_member *mb = &sc->members[m];
	unsigned int i, n = ssa_pages_of(sectors);
	u32 bytes = sectors << SECTOR_SHIFT;
	struct bio *bio;
	int r;

	bio = bio_alloc(mb->dev->bdev, n, opf, GFP_KERNEL);
	bio->bi_iter.bi_sector = mb->offset + ms;
	for (i = 0; i < n; i++) {
		u32 b = min_t(u32, PAGE_SIZE, bytes);

		__bio_add_page(bio, pages[i], b, 0);
		bytes -= b;
	}
	r = submit_bio_wait(bio);
	bio_put(bio);
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

	for (m = 0; m < n; m++) {
		u64 ms = sc->layout->group_chunk(&sc->geom, grp, m) *
			 sc->geom.chunk + off;

		r = ssa_scrub_io(sc, m, ms, bufs[m], len, REQ_OP_READ);
		if (r) {
			DMERR("%s: check: member %u: read error %d",
			      dm_device_name(dm_table_get_md(sc->ti->table)),
			      m, r);
			return r;
		}
	}
	/* acc = XOR of the data chunks; it must equal the parity */
	ssa_zero_buf(acc, bytes);
	for (m = 0; m < n; m++)
		if (m != grp->pmember)
			ssa_xor_buf(acc, 0, bufs[m], 0, bytes);
	*bad = false;
	for (i = 0; i < bytes && !*bad; i += PAGE_SIZE)
		*bad = memcmp(page_address(acc[i >> PAGE_SHIFT]),
			      page_address(bufs[grp->pmember][i >> PAGE_SHIFT]),
			      min_t(u32, PAGE_SIZE, bytes - i)) != 0;
	if (*bad && sc->par->scrub_repair)
		return ssa_scrub_io(sc, grp->pmember,
				    grp->pchunk * sc->geom.chunk + off, acc,
				    len, REQ_OP_WRITE | REQ_SYNC);
	return 0;
}

static void ssa_scrub_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      scrub_work);
	struct ssa_ctx *sc = par->sc;
	unsigned int m, n = sc->nr_members, np = ssa_pages_of(SSA_SCRUB_SECTORS);
	struct page ***bufs;
	struct ssa_group grp;
	u64 idx;
	u32 off, len;
	int r = 0;

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

	for (idx = 0; !r && idx < sc->geom.rows && !READ_ONCE(par->scrub_stop);
	     idx++) {
		bool bad, group_bad = false;

		sc->layout->group_at(&sc->geom, idx, &grp);
		ssa_scrub_lock(par, idx);
		for (off = 0; !r && off < sc->geom.chunk; off += len) {
			len = min_t(u32, SSA_SCRUB_SECTORS, sc->geom.chunk - off);
			r = ssa_scrub_slice(sc, &grp, off, len, bufs, &bad);
			group_bad |= bad;
		}
		ssa_scrub_unlock(sc);
		if (group_bad)
			WRITE_ONCE(par->mismatches, par->mismatches + 1);
		WRITE_ONCE(par->scrub_pos, idx + 1);
		cond_resched();
	}

	DMINFO("%s: %s %s: %llu of %llu groups, %llu mismatched%s",
	       dm_device_name(dm_table_get_md(sc->ti->table)),
	       par->scrub_repair ? "repair" : "check",
	       r ? "failed" : READ_ONCE(par->scrub_stop) ? "stopped" : "done",
	       READ_ONCE(par->scrub_pos), sc->geom.rows,
	       READ_ONCE(par->mismatches),
	       par->scrub_repair ? " (rewritten)" : "");
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

/* Message "check" or "repair": start a walk over every group. */
int ssa_parity_scrub(struct ssa_ctx *sc, bool repair)
{
	struct ssa_parity *par = sc->par;

	if (test_and_set_bit(0, &par->scrub_running))
		return -EBUSY;
	/* the previous walk's work item may still be finishing */
	flush_work(&par->scrub_work);
	par->scrub_repair = repair;
	WRITE_ONCE(par->scrub_stop, false);
	WRITE_ONCE(par->scrub_pos, 0);
	WRITE_ONCE(par->mismatches, 0);
	queue_work(system_long_wq, &par->scrub_work);
	return 0;
}

/* Message "idle", suspend and destruction: stop a walk and wait for it. */
void ssa_parity_scrub_stop(struct ssa_ctx *sc)
{
	struct ssa_parity *par = sc->par;

	if (!par)
		return;
	WRITE_ONCE(par->scrub_stop, true);
	flush_work(&par->scrub_work);
}

/* Status: "<action> <groups done>/<groups> <mismatches>". */
void ssa_parity_status(struct ssa_ctx *sc, const char **action, u64 *pos,
		       u64 *mismatches)
{
	struct ssa_parity *par = sc->par;

	*action = !test_bit(0, &par->scrub_running) ? "idle" :
		  par->scrub_repair ? "repair" : "check";
	*pos = READ_ONCE(par->scrub_pos);
	*mismatches = READ_ONCE(par->mismatches);
}

int ssa_parity_alloc(struct ssa_ctx *sc)
{
	struct ssa_parity *par;
	size_t size;

	par = kzalloc(sizeof(*par), GFP_KERNEL);
	if (!par)
		return -ENOMEM;
	par->sc = sc;
	spin_lock_init(&par->lock);
	INIT_LIST_HEAD(&par->waiting);
	INIT_LIST_HEAD(&par->ready);
	INIT_WORK(&par->work, ssa_parity_work);
	INIT_WORK(&par->scrub_work, ssa_scrub_work);
	INIT_WORK(&par->start_work, ssa_start_work);
	mutex_init(&par->reserve);
	/* one group always fits: N - 1 writes, N - 1 reads and its parity */
	par->max_tasks = max(2 * sc->nr_members, 64U);
	size = sizeof(struct ssa_pop) +
	       SSA_OP_GROUPS * sizeof(struct ssa_pgroup) +
	       par->max_tasks * sizeof(struct ssa_ptask) +
	       SSA_OP_LOCKS * sizeof(struct ssa_plock) +
	       SSA_OP_PAGES * sizeof(struct page *);
	par->op_pool = mempool_create_kmalloc_pool(SSA_OP_POOL, size);
	par->page_pool = mempool_create_page_pool(SSA_OP_PAGES, 0);
	par->start_wq = alloc_workqueue("kssaparity", WQ_MEM_RECLAIM, 1);
	sc->par = par;
	if (!par->op_pool || !par->page_pool || !par->start_wq)
		return -ENOMEM;
	return 0;
}

/* After the workqueue is gone: nothing is in flight. */
void ssa_parity_free(struct ssa_ctx *sc)
{
	struct ssa_parity *par = sc->par;

	if (!par)
		return;
	ssa_parity_scrub_stop(sc);
	if (par->start_wq)
		destroy_workqueue(par->start_wq);
	mempool_destroy(par->page_pool);
	mempool_destroy(par->op_pool);
	kfree(par);
	sc->par = NULL;
}
