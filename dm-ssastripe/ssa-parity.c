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
 */
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"
#include "ssa-compat.h"

#define SSA_OP_PAGES		512	/* pages of one operation, at most */
#define SSA_OP_GROUPS		16	/* group spans of one operation */
#define SSA_OP_LOCKS		64	/* group numbers one operation locks */
#define SSA_SPAN_SECTORS	2048	/* a merged pstripe span, at most */
#define SSA_OP_POOL		4	/* operations kept in reserve */
#define SSA_LOCK_BITS		8
#define SSA_RECON_PAGES		16	/* a reconstruction slice per member */
#define SSA_RECON_SECTORS	(SSA_RECON_PAGES << (PAGE_SHIFT - SECTOR_SHIFT))

/* A group whose parity member has failed: its data is written alone. */
#define SSA_WM_DATA_ONLY	SSA_NR_WMETHODS

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
	bool lost;		/* its member failed: no I/O, old data rebuilt */
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
	bool failed;		/* reads of two members failed: give up */
	bool parity_in;		/* rmw: the old parity is in memory */
	bool noparity;		/* the parity member failed: data only */
	bool recovered;		/* @lost's old data has been rebuilt */
	struct ssa_ptask *lost;	/* a data read that failed (or never ran) */
	struct list_head recover;	/* on the recovery list */
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
	int failed;		/* the member failed at arrival, or -1 */
	struct list_head wait;
	unsigned int nr_groups, nr_tasks, nr_locks, nr_pages, nr_alloc;
	struct ssa_pgroup *groups;
	struct ssa_ptask *tasks;
	struct ssa_plock *locks;
	struct page **pages;
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
};

/* The parity layouts' private state (sc->priv). */
static inline struct ssa_parity *ssa_par(struct ssa_ctx *sc)
{
	return sc->priv;
}

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
		ssa_xor_gen(dst, &src, 1, bytes);
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

enum ssa_xfer {
	SSA_XFER_COPY_IN,	/* bio data -> buffer */
	SSA_XFER_XOR_IN,	/* buffer ^= bio data */
	SSA_XFER_COPY_OUT,	/* buffer -> bio data */
};

/*
 * Move @bytes between @bio's data at @it (which advances past them) and
 * the page buffer @buf from byte @off, as @how says.
 */
static void ssa_xfer(struct bio *bio, struct bvec_iter *it, struct page **buf,
		     u32 off, u32 bytes, enum ssa_xfer how)
{
	while (bytes) {
		struct bio_vec bv = bio_iter_iovec(bio, *it);
		u32 n = min3(bytes, bv.bv_len,
			     (u32)(PAGE_SIZE - offset_in_page(off)));
		void *data = kmap_local_page(bv.bv_page) + bv.bv_offset;

		if (how == SSA_XFER_COPY_IN)
			memcpy(ssa_buf_at(buf, off), data, n);
		else if (how == SSA_XFER_XOR_IN)
			ssa_xor(ssa_buf_at(buf, off), data, n);
		else
			memcpy(data, ssa_buf_at(buf, off), n);
		kunmap_local(data);
		bio_advance_iter_single(bio, it, n);
		off += n;
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

	bio_advance_iter(op->parent, &it, loff << SECTOR_SHIFT);
	ssa_xfer(op->parent, &it, dst, doff, sectors << SECTOR_SHIFT,
		 copy ? SSA_XFER_COPY_IN : SSA_XFER_XOR_IN);
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
	if (op->failed == pg->grp.pmember) {
		/* degraded, the parity lost: nothing to keep */
		pg->method = SSA_WM_DATA_ONLY;
		*tasks = pg->nr_data;
		return 0;
	}
	ssa_method_cost(sc, op, pg, SSA_WM_RMW, &r_rmw, &p_rmw);
	if (op->failed >= 0) {
		/*
		 * Degraded: rcw would read the failed member, or leave its
		 * old data unknown; rmw rebuilds that from the others.
		 */
		pg->method = SSA_WM_RMW;
		*tasks = pg->nr_data + 1;
		return p_rmw;
	}
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
		if (t->member == op->failed) {
			/* its old data comes from the others (recovery) */
			t->lost = true;
			pg->lost = t;
		}
	}
	if (pg->method == SSA_WM_DATA_ONLY)
		return;
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
	       op->nr_tasks + extra + pg->cost_extra <= ssa_par(sc)->max_tasks;
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
		     op->nr_tasks == ssa_par(sc)->max_tasks ||
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
	struct ssa_parity *par = ssa_par(sc);
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

/* Failed members, and the first of them in *first (-1 if none). */
static unsigned int ssa_nr_failed(struct ssa_ctx *sc, int *first)
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

static bool ssa_rb_active(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);

	return READ_ONCE(par->rb_active) &&
	       !test_bit(SSA_MEMBER_FAILED, &sc->members[par->rb_member].flags);
}

/* Members not fully readable: the failed ones and one being rebuilt. */
static unsigned int ssa_nr_lost(struct ssa_ctx *sc)
{
	return ssa_nr_failed(sc, NULL) + (ssa_rb_active(sc) ? 1 : 0);
}

static bool ssa_parity_degraded(struct ssa_ctx *sc)
{
	return ssa_nr_lost(sc) != 0;
}

/*
 * An error the volume survives: a member fault (the member is marked failed
 * by then) while no other member has failed.
 */
static bool ssa_survivable(struct ssa_ctx *sc, blk_status_t status)
{
	return status != BLK_STS_NOTSUPP && status != BLK_STS_AGAIN &&
	       ssa_nr_lost(sc) <= 1;
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
	if (pg->lost || pg->noparity || !ssa_survivable(op->sc, t->status))
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
 * Every read of the group is in (for rmw the old parity too): rebuild lost
 * old data first, then compute and write the parity, and (rcw) the data.
 */
static void ssa_try_parity(struct ssa_pop *op, struct ssa_pgroup *pg)
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
		ssa_task_abandon(op, t, pg->failed);
		return;
	}
	ssa_compute_parity(op, pg);
	if (!rcw) {
		ssa_task_next(op, t);
		return;
	}
	ssa_task_issue(op, t, false);
	for (i = 0; i < pg->nr_data; i++)
		ssa_task_issue(op, &op->tasks[pg->first + i], false);
}

static void ssa_read_done(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	if (--pg->reads_left)
		return;
	if (pg->method == SSA_WM_RMW && op->sync == SSA_SYNC_AFTER) {
		/* after_service: the parity task is queued only now */
		if (pg->failed)
			ssa_task_abandon(op, ssa_parity_task(pg, op), true);
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
static void ssa_parity_started(struct bio *bio)
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
			if (pg->lost || !ssa_survivable(op->sc, t->status))
				pg->failed = true;
			else
				pg->noparity = true;
		}
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
		if (wrote && !ssa_survivable(sc, status))
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
	unsigned int g, i, lost = 0;

	ssa_get_pages(ssa_par(sc), op);
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

			if (!t->lost && !(rcw && pg->nr_reads))
				ssa_task_issue(op, t, from_map);
		}
		for (i = 0; i < pg->nr_reads; i++)
			ssa_task_issue(op, &op->tasks[pg->xfirst + i], from_map);
		if (rcw && !pg->nr_reads) {
			/* a full-stripe write: the parity is known now */
			ssa_compute_parity(op, pg);
			ssa_task_issue(op, ssa_parity_task(pg, op), from_map);
		}
		if (parity_now)
			ssa_task_issue(op, ssa_parity_task(pg, op), from_map);
	}
}

static void ssa_prebuild_work(struct work_struct *work);

/* A failure stopped the rebuild before the write's groups were done. */
static void ssa_rb_refuse(struct ssa_pop *op)
{
	struct ssa_ctx *sc = op->sc;

	DMERR_LIMIT("%s: rebuild of member %d cut short by a failure: a write fails",
		    dm_device_name(dm_table_get_md(sc->ti->table)),
		    ssa_par(sc)->rb_member);
	ssa_io_set_error(op->io, BLK_STS_IOERR);
}

/*
 * Locks held.  While a member is being rebuilt, the groups of the write
 * whose chunk of it is not rebuilt yet are rebuilt first, on a worker
 * (the write may read that chunk: its old data or old parity).
 */
static void ssa_op_go(struct ssa_pop *op, bool from_map)
{
	struct ssa_parity *par = ssa_par(op->sc);
	unsigned long flags;
	unsigned int i;

	if (unlikely(READ_ONCE(par->rb_active)) && op->failed != par->rb_member) {
		for (i = 0; i < op->nr_locks; i++)
			if (!test_bit(op->locks[i].key, par->rb_done))
				break;
		if (i < op->nr_locks && !ssa_rb_active(op->sc)) {
			/* planned to read a chunk that will not be rebuilt now */
			ssa_rb_refuse(op);
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
	ssa_op_start(op, from_map);
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
		if (ssa_lock_or_wait(par, op))
			list_add_tail(&op->wait, &go);
	}
	spin_unlock_irq(&par->lock);

	list_for_each_entry_safe(op, tmp, &go, wait) {
		list_del(&op->wait);
		ssa_op_go(op, false);
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

static int ssa_parity_write(struct ssa_ctx *sc, struct ssa_io *io,
			    struct bio *bio, u64 start, u64 end)
{
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_pop *op;
	unsigned int i, children = 0;
	bool locked;
	int failed;
	u64 cut;

	ssa_nr_failed(sc, &failed);
	if (unlikely(ssa_nr_lost(sc) > 1)) {
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
	op->failed = failed;
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
		if (!op->tasks[i].lost)
			children += ssa_task_bios[op->tasks[i].kind];
	}

	ssa_fork_begin(sc, io, SSA_OP_WRITE, start, end, children);
	spin_lock_irq(&par->lock);
	locked = ssa_lock_or_wait(par, op);
	spin_unlock_irq(&par->lock);
	if (locked) {
		ssa_op_go(op, true);
		ssa_io_put(io);
	}
	/* else the work item starts it, and drops the fork's reference */
	return DM_MAPIO_SUBMITTED;
}

/* The last reference to a write went: unlock, free (any context). */
static void ssa_parity_join(struct ssa_io *io)
{
	struct ssa_pop *op = io->pop;
	struct ssa_ctx *sc = io->sc;

	if (!op)		/* a read or a flush */
		return;

	if (op->locked)
		ssa_unlock(sc, op);
	ssa_put_pages(ssa_par(sc), op);
	mempool_free(op, ssa_par(sc)->op_pool);
	io->pop = NULL;
}

/* ---- check and repair ---------------------------------------------- */

#define SSA_SCRUB_SECTORS	512	/* a group is checked 256 KiB at a time */

/* Lock one group, waiting while a write holds it (scrub, rebuilt reads). */
static void ssa_wait_lock(struct ssa_parity *par, struct ssa_plock *lk,
			  u64 key)
{
	struct ssa_plock *l;
	bool busy;

	for (;;) {
		busy = false;
		spin_lock_irq(&par->lock);
		hlist_for_each_entry(l, ssa_bucket(par, key), node)
			busy |= l->key == key;
		if (!busy) {
			lk->key = key;
			hlist_add_head(&lk->node, ssa_bucket(par, key));
		}
		spin_unlock_irq(&par->lock);
		if (!busy)
			return;
		usleep_range(100, 200);
	}
}

static void ssa_drop_lock(struct ssa_ctx *sc, struct ssa_plock *lk)
{
	struct ssa_parity *par = ssa_par(sc);
	bool kick;

	spin_lock_irq(&par->lock);
	hlist_del(&lk->node);
	kick = !list_empty(&par->waiting);
	if (kick)
		par->retry = true;
	spin_unlock_irq(&par->lock);
	if (kick)
		queue_work(par->start_wq, &par->start_work);
}

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
	unsigned int i, n = ssa_pages_of(sectors);
	u32 bytes = sectors << SECTOR_SHIFT;
	struct bio *bio;
	int r;

	bio = bio_alloc(mb->dev->bdev, n, opf, GFP_NOIO);
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
	ssa_zero_buf(acc, bytes);
	for (m = 0; m < n; m++)
		if (m != grp->pmember)
			ssa_xor_buf(acc, 0, bufs[m], 0, bytes);
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

static void ssa_unsynced_warn(struct ssa_ctx *sc, int m)
{
	DMERR("%s: member %d lost before the initial sync: groups %llu-%llu not rebuildable",
	      dm_device_name(dm_table_get_md(sc->ti->table)), m,
	      READ_ONCE(ssa_par(sc)->sync_pos), sc->geom.rows - 1);
}

static int ssa_rebuild_walk(struct ssa_ctx *sc);

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
	idx = resync ? READ_ONCE(par->sync_pos) : 0;
	for (; !r && idx < sc->geom.rows && !READ_ONCE(par->scrub_stop); idx++) {
		bool bad, group_bad = false;

		/* no walk goes on without every member */
		if (ssa_nr_failed(sc, NULL)) {
			r = -EIO;
			break;
		}

		sc->layout->group_at(&sc->geom, idx, &grp);
		ssa_wait_lock(par, &par->scrub_lock, idx);
		for (off = 0; !r && off < sc->geom.chunk; off += len) {
			len = min_t(u32, SSA_SCRUB_SECTORS, sc->geom.chunk - off);
			r = ssa_scrub_slice(sc, &grp, off, len, bufs, &bad);
			group_bad |= bad;
		}
		if (!r && resync)
			WRITE_ONCE(par->sync_pos, idx + 1);
		ssa_drop_lock(sc, &par->scrub_lock);
		if (r)
			break;
		if (group_bad)
			WRITE_ONCE(par->mismatches, par->mismatches + 1);
		WRITE_ONCE(par->scrub_pos, idx + 1);
		cond_resched();
	}
	if (r && resync && ssa_nr_failed(sc, &f))
		ssa_unsynced_warn(sc, f);

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
static int ssa_parity_scrub(struct ssa_ctx *sc, bool repair)
{
	struct ssa_parity *par = ssa_par(sc);

	if (ssa_parity_degraded(sc)) {
		DMWARN("%s: a member has failed or is being rebuilt: nothing to check against",
		       repair ? "repair" : "check");
		return -EBUSY;
	}
	if (READ_ONCE(par->sync_pos) < sc->geom.rows &&
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
static void ssa_parity_scrub_stop(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);

	if (!par)
		return;
	WRITE_ONCE(par->scrub_stop, true);
	flush_work(&par->scrub_work);
}

/* Message "idle": stop a check or repair; the initial sync goes on. */
static int ssa_parity_idle(struct ssa_ctx *sc)
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
static void ssa_parity_resume(struct ssa_ctx *sc)
{
	struct ssa_parity *par = ssa_par(sc);
	int f;

	if (!par)
		return;
	if (READ_ONCE(par->rb_active)) {
		if (ssa_nr_failed(sc, &f)) {
			DMERR("%s: member %d has failed: the rebuild of member %d cannot go on",
			      dm_device_name(dm_table_get_md(sc->ti->table)),
			      f, par->rb_member);
			return;
		}
		ssa_walk_start(par, SSA_WALK_REBUILD, READ_ONCE(par->rb_pos));
		return;
	}
	if (READ_ONCE(par->sync_pos) >= sc->geom.rows)
		return;
	if (ssa_nr_failed(sc, &f)) {
		ssa_unsynced_warn(sc, f);
		return;
	}
	ssa_walk_start(par, SSA_WALK_RESYNC, READ_ONCE(par->sync_pos));
}

/*
 * Whether the groups of a span (pstripe's consecutive chunks are groups
 * @grp->idx + k * N) have been synced, so that a lost member's data in it
 * can be rebuilt from the others.
 */
static bool ssa_span_synced(struct ssa_ctx *sc, const struct ssa_group *grp,
			    u32 nchunks)
{
	u64 last = grp->idx;

	if (sc->layout->id == SSA_LAYOUT_PSTRIPE)
		last += (u64)(nchunks - 1) * sc->nr_members;
	return last < READ_ONCE(ssa_par(sc)->sync_pos);
}

static int ssa_unsynced(struct ssa_ctx *sc, unsigned int f, u64 idx)
{
	DMERR_LIMIT("%s: group %llu was never synced: member %u cannot be rebuilt there",
		    dm_device_name(dm_table_get_md(sc->ti->table)), idx, f);
	return -EIO;
}

/* ---- degraded operation -------------------------------------------- */

struct ssa_sync_read {
	struct ssa_ctx *sc;
	atomic_t left;
	unsigned long failed;	/* members whose read failed */
	struct completion done;
};

static void ssa_sync_endio(struct bio *bio)
{
	struct ssa_sync_read *s = bio->bi_private;
	unsigned int m;

	if (bio->bi_status)
		for (m = 0; m < s->sc->nr_members; m++)
			if (s->sc->members[m].dev->bdev == bio->bi_bdev)
				set_bit(m, &s->failed);
	bio_put(bio);
	if (atomic_dec_and_test(&s->left))
		complete(&s->done);
}

/*
 * Read [off, off + n) of the group span of @grp from every member but @f,
 * each into its scratch buffer, all at once.  Called under scratch_mutex.
 * A member whose read fails is marked failed.
 */
static int ssa_read_others(struct ssa_ctx *sc, const struct ssa_group *grp,
			   unsigned int f, u32 off, u32 n)
{
	struct ssa_parity *par = ssa_par(sc);
	unsigned int m, i, np = ssa_pages_of(n);
	struct ssa_sync_read s = { .sc = sc };
	int r = 0;

	atomic_set(&s.left, 1);
	init_completion(&s.done);
	for (m = 0; m < sc->nr_members; m++) {
		struct ssa_member *mb = &sc->members[m];
		u32 bytes = n << SECTOR_SHIFT;
		struct bio *bio;

		if (m == f)
			continue;
		bio = bio_alloc(mb->dev->bdev, np, REQ_OP_READ, GFP_NOIO);
		bio->bi_iter.bi_sector = mb->offset + off +
			sc->layout->group_chunk(&sc->geom, grp, m) *
			sc->geom.chunk;
		for (i = 0; i < np; i++) {
			u32 b = min_t(u32, PAGE_SIZE, bytes);

			__bio_add_page(bio, par->scratch[m][i], b, 0);
			bytes -= b;
		}
		bio->bi_private = &s;
		bio->bi_end_io = ssa_sync_endio;
		atomic_inc(&s.left);
		submit_bio_noacct(bio);
	}
	if (!atomic_dec_and_test(&s.left))
		wait_for_completion_io(&s.done);
	for_each_set_bit(m, &s.failed, sc->nr_members) {
		ssa_member_error(sc, m, BLK_STS_IOERR, NULL);
		r = -EIO;
	}
	return r;
}

/* After ssa_read_others(): @f's scratch buffer = XOR of the others'. */
static void ssa_xor_others(struct ssa_ctx *sc, unsigned int f, u32 sectors)
{
	struct page ***scratch = ssa_par(sc)->scratch;
	unsigned int m;

	ssa_zero_buf(scratch[f], sectors << SECTOR_SHIFT);
	for (m = 0; m < sc->nr_members; m++)
		if (m != f)
			ssa_xor_buf(scratch[f], 0, scratch[m], 0,
				    sectors << SECTOR_SHIFT);
}

/* dst[doff..] = src[soff..] over @bytes (buffers of whole pages). */
static void ssa_copy_buf(struct page **dst, u32 doff, struct page **src,
			 u32 soff, u32 bytes)
{
	while (bytes) {
		u32 n = min3(bytes, (u32)(PAGE_SIZE - offset_in_page(doff)),
			     (u32)(PAGE_SIZE - offset_in_page(soff)));

		memcpy(ssa_buf_at(dst, doff), ssa_buf_at(src, soff), n);
		doff += n;
		soff += n;
		bytes -= n;
	}
}

/*
 * Rebuild the old data of a write's lost task from the other members into
 * its buffer.  The write holds the group's lock and has not written the
 * parity; where another data task may have written already, its old data
 * (read before) stands in for what is on the disk now.
 */
static int ssa_recover(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	struct ssa_ctx *sc = op->sc;
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_ptask *lt = pg->lost;
	struct page **dst = ssa_task_pages(lt);
	unsigned int m, i;
	u32 off, n;
	int r = 0;

	if (!ssa_span_synced(sc, &pg->grp, pg->nchunks))
		return ssa_unsynced(sc, lt->member, pg->grp.idx);
	ssa_zero_buf(dst, (lt->hi - lt->lo) << SECTOR_SHIFT);
	mutex_lock(&par->scratch_mutex);
	for (off = lt->lo; off < lt->hi; off += n) {
		n = min_t(u32, SSA_RECON_SECTORS, lt->hi - off);
		r = ssa_read_others(sc, &pg->grp, lt->member, off, n);
		if (r)
			break;
		for (i = 0; i < pg->nr_data; i++) {
			struct ssa_ptask *d = &op->tasks[pg->first + i];
			u32 a = max(off, d->lo), b = min(off + n, d->hi);

			if (d != lt && d->kind == SSA_T_RMW_DATA && a < b)
				ssa_copy_buf(par->scratch[d->member],
					     (a - off) << SECTOR_SHIFT,
					     ssa_task_pages(d),
					     (a - d->lo) << SECTOR_SHIFT,
					     (b - a) << SECTOR_SHIFT);
		}
		for (m = 0; m < sc->nr_members; m++)
			if (m != lt->member)
				ssa_xor_buf(dst, (off - lt->lo) << SECTOR_SHIFT,
					    par->scratch[m], 0,
					    n << SECTOR_SHIFT);
	}
	mutex_unlock(&par->scratch_mutex);
	return r;
}

static void ssa_recover_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      recover_work);
	struct ssa_pgroup *pg;

	for (;;) {
		spin_lock_irq(&par->lock);
		pg = list_first_entry_or_null(&par->recover,
					      struct ssa_pgroup, recover);
		if (pg)
			list_del(&pg->recover);
		spin_unlock_irq(&par->lock);
		if (!pg)
			break;
		if (ssa_recover(pg->lost->op, pg))
			pg->failed = true;
		pg->recovered = true;
		ssa_try_parity(pg->lost->op, pg);
	}
}

/*
 * A read of @len sectors of failed member @f from member sector @ms, rebuilt
 * from the other members into @dst's data at @it, a chunk at a time with
 * the chunk's group locked (so no write is half done under it).
 */
static int ssa_recon(struct ssa_ctx *sc, unsigned int f, u64 ms, u32 len,
		     struct bio *dst, struct bvec_iter it)
{
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_plock lk;
	struct ssa_group grp;
	u32 off, n, k, done;
	u64 c;
	int r = 0;

	while (len && !r) {
		c = ssa_chunk_index(&sc->geom, ms, &off);
		n = min(len, sc->geom.chunk - off);
		sc->layout->group_of(&sc->geom, f, c, &grp);
		ssa_wait_lock(par, &lk, grp.idx);
		if (!ssa_span_synced(sc, &grp, 1))
			r = ssa_unsynced(sc, f, grp.idx);
		mutex_lock(&par->scratch_mutex);
		for (done = 0; done < n && !r; done += k) {
			k = min_t(u32, SSA_RECON_SECTORS, n - done);
			r = ssa_read_others(sc, &grp, f, off + done, k);
			if (r)
				break;
			ssa_xor_others(sc, f, k);
			ssa_xfer(dst, &it, par->scratch[f], 0,
				 k << SECTOR_SHIFT, SSA_XFER_COPY_OUT);
		}
		mutex_unlock(&par->scratch_mutex);
		ssa_drop_lock(sc, &lk);
		ms += n;
		len -= n;
	}
	return r;
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
		r = ssa_read_others(sc, &grp, m, off, n);
		if (r)
			break;
		ssa_xor_others(sc, m, n);
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
		if (ssa_nr_failed(sc, NULL)) {
			r = -EIO;
			break;
		}
		ssa_wait_lock(par, &par->scrub_lock, idx);
		if (!test_bit(idx, par->rb_done))
			r = ssa_rebuild_group(sc, idx);
		ssa_drop_lock(sc, &par->scrub_lock);
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

/* Writes whose groups are rebuilt before they start (ssa_op_go()). */
static void ssa_prebuild_work(struct work_struct *work)
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
			ssa_rb_refuse(op);
		else
			ssa_op_start(op, false);
		ssa_io_put(op->io);
		cond_resched();
	}
}

static void ssa_recon_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      recon_work);
	struct ssa_ctx *sc = par->sc;
	struct bio *child, *parent;
	struct ssa_io *io;
	int r;

	for (;;) {
		spin_lock_irq(&par->lock);
		parent = NULL;
		child = bio_list_pop(&par->recon_children);
		if (!child)
			parent = bio_list_pop(&par->recon_parents);
		spin_unlock_irq(&par->lock);
		if (child) {
			struct ssa_child *c = to_child(child);

			io = c->io;
			r = ssa_recon(sc, c->cs.member, c->cs.msector, c->cs.len,
				      child, c->iter);
			bio_put(child);
		} else if (parent) {
			io = ssa_io_of(sc, parent);
			r = ssa_recon(sc, io->cs.member, io->cs.msector,
				      io->cs.len, parent, io->iter);
		} else {
			break;
		}
		if (r)
			ssa_io_set_error(io, errno_to_blk_status(r));
		ssa_io_put(io);
		cond_resched();
	}
}

static void ssa_queue_recon(struct ssa_parity *par, struct bio *bio,
			    bool child)
{
	unsigned long flags;

	spin_lock_irqsave(&par->lock, flags);
	bio_list_add(child ? &par->recon_children : &par->recon_parents, bio);
	spin_unlock_irqrestore(&par->lock, flags);
	queue_work(par->recon_wq, &par->recon_work);
}

/*
 * A read completed with an error (any context).  If the volume survives the
 * member's loss, the read is rebuilt from the others: a forked child
 * (@child, its request keeps the reference) or the request itself when it
 * went to the member whole.  False: let the error through.
 */
static bool ssa_parity_retry_read(struct ssa_ctx *sc, struct bio *bio,
				  blk_status_t status, bool child)
{
	if (!ssa_member_fault(status, bio) || !ssa_survivable(sc, status))
		return false;
	if (!child) {
		struct ssa_io *io = ssa_io_of(sc, bio);

		io->remapped = false;
		atomic_set(&io->pending, 1);
	}
	ssa_queue_recon(ssa_par(sc), bio, child);
	return true;
}

/* A piece on a failed member, or on a not yet rebuilt chunk. */
static bool ssa_piece_lost(struct ssa_ctx *sc, const struct ssa_extent *e)
{
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_group grp;
	u32 off;

	if (test_bit(SSA_MEMBER_FAILED, &sc->members[e->member].flags))
		return true;
	if (e->member != par->rb_member || !ssa_rb_active(sc))
		return false;
	sc->layout->group_of(&sc->geom, e->member,
			     ssa_chunk_index(&sc->geom, e->msector, &off), &grp);
	return !test_bit(grp.idx, par->rb_done);
}

/*
 * Reads of a degraded volume (from the map function).  A request that
 * starts on a failed member is cut to that chunk piece and rebuilt from the
 * others (or fails, with two members lost); one that starts elsewhere is cut
 * before the first piece of a failed member and read as usual (-1).
 */
static int ssa_parity_read(struct ssa_ctx *sc, struct ssa_io *io,
			   struct bio *bio, u64 start, u64 end)
{
	struct ssa_extent e;
	u64 ls, len;

	sc->layout->map(&sc->geom, start, &e);
	len = min(e.len, end - start);
	if (!ssa_piece_lost(sc, &e)) {
		for (ls = start + len; ls < end; ls += len) {
			sc->layout->map(&sc->geom, ls, &e);
			if (ssa_piece_lost(sc, &e))
				break;
			len = min(e.len, end - ls);
		}
		if (ls < end)
			dm_accept_partial_bio(bio, ls - start);
		return -1;
	}

	if (len < end - start)
		dm_accept_partial_bio(bio, len);
	ssa_fork_begin(sc, io, SSA_OP_READ, start, start + len, 0);
	if (ssa_nr_lost(sc) > 1) {
		DMERR_LIMIT("%s: two members have failed: member %u cannot be rebuilt",
			    dm_device_name(dm_table_get_md(sc->ti->table)),
			    e.member);
		ssa_io_set_error(io, BLK_STS_IOERR);
		ssa_io_put(io);
		return DM_MAPIO_SUBMITTED;
	}
	io->cs.member = e.member;
	io->cs.msector = e.msector;
	io->cs.len = len;
	io->iter = bio->bi_iter;
	ssa_queue_recon(ssa_par(sc), bio, false);
	return DM_MAPIO_SUBMITTED;
}

/* Message "fail <m>": the volume goes on without member @m. */
static int ssa_parity_fail(struct ssa_ctx *sc, unsigned int m)
{
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_member *mb = &sc->members[m];
	int f;

	if (test_bit(SSA_MEMBER_FAILED, &mb->flags))
		return 0;
	if (ssa_rb_active(sc) && (int)m != par->rb_member) {
		DMWARN("fail %u: member %d is being rebuilt, and parity covers one loss",
		       m, par->rb_member);
		return -EBUSY;
	}
	if (ssa_nr_failed(sc, &f)) {
		DMWARN("fail %u: member %d has failed already, and parity covers one loss",
		       m, f);
		return -EBUSY;
	}
	/* a check would compare against the member left behind */
	ssa_parity_scrub_stop(sc);
	ssa_member_fail(sc, m);
	if (READ_ONCE(par->sync_pos) < sc->geom.rows)
		ssa_unsynced_warn(sc, m);
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
	} else if (READ_ONCE(par->sync_pos) < sc->geom.rows) {
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

	par = kzalloc(sizeof(*par), GFP_KERNEL);
	if (!par)
		goto nomem;
	par->sc = sc;
	spin_lock_init(&par->lock);
	INIT_LIST_HEAD(&par->waiting);
	INIT_LIST_HEAD(&par->ready);
	INIT_WORK(&par->work, ssa_parity_work);
	INIT_WORK(&par->scrub_work, ssa_scrub_work);
	INIT_WORK(&par->start_work, ssa_start_work);
	INIT_WORK(&par->recover_work, ssa_recover_work);
	INIT_WORK(&par->recon_work, ssa_recon_work);
	INIT_LIST_HEAD(&par->recover);
	bio_list_init(&par->recon_children);
	bio_list_init(&par->recon_parents);
	mutex_init(&par->reserve);
	mutex_init(&par->scratch_mutex);
	/* a rebuild table takes the other members as in sync */
	par->sync_pos = sc->opt[SSA_OPT_INITIAL_SYNC] && !sc->rebuild_mask ?
			0 : sc->geom.rows;
	par->rb_member = -1;
	INIT_WORK(&par->prebuild_work, ssa_prebuild_work);
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
	par->recover_wq = alloc_workqueue("kssarecover", WQ_MEM_RECLAIM, 1);
	par->recon_wq = alloc_workqueue("kssarecon", WQ_MEM_RECLAIM, 1);
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

/* The largest chunk of the parity layouts: 1 MiB. */
#define SSA_PARITY_MAX_CHUNK	2048

/* Table options: the chunk's size and at most one member to rebuild. */
static int ssa_parity_check_opts(struct ssa_ctx *sc)
{
	struct dm_target *ti = sc->ti;

	if (sc->geom.chunk > SSA_PARITY_MAX_CHUNK) {
		ti->error = "Chunk too large for raid5/pstripe: at most 2048 sectors";
		return -EINVAL;
	}
	if (sc->rebuild_mask >> sc->nr_members) {
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
 * INFO: <parity_layout> <sync> <write_method> <action> <done>/<rows>
 *       <mismatches>
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
	DMEMIT(" %s %s %s %s %llu/%llu %llu", rotation ?: "-", sync, wm,
	       action, pos, sc->geom.rows, bad);
	return sz;
}

#define SSA_PARITY_OPTS	(SSA_COMMON_OPTS | BIT(SSA_OPT_SYNC) | \
			 BIT(SSA_OPT_WRITE_METHOD) | BIT(SSA_OPT_INITIAL_SYNC) | \
			 BIT(SSA_OPT_REBUILD))

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
};
