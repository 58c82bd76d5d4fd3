// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the mirror layout (RAID 1 and RAID 1/0).
 *
 * Members form sets of K copies and chunks are striped over the sets, so
 * the stripe mapping (geom.members = number of sets) says which set and
 * which member sector a logical sector has; this file decides which copies
 * of the set a child goes to.
 *
 *  - A piece is what a request has on one set: one chunk piece, or with
 *    coalescing all its chunks on the set, gathered into one bio (the
 *    "source").  Children are clones of the parent or of the source, so a
 *    source stays alive (by reference) until its last child completes.
 *  - Writes, discards and flushes go to every copy that has not failed.  A
 *    write joins without error when, in each set it touched, some copy
 *    completed all of its children; the copies that failed are marked and
 *    take no more I/O.
 *  - Reads go to one copy chosen by the read policy, or with "split" to
 *    every readable copy, each taking a share ("adaptive": a piece of more
 *    than a chunk whose set is idle is divided, the rest go as "queue").
 *    A read child that fails is retried, from a work item, on a copy it
 *    has not tried yet.
 *
 * Rebuild: a copy named by "rebuild <m>" in the table is written by user
 * writes from the start, read only below the rebuild cursor, and filled in
 * the background one window of member sectors at a time.  While a window
 * is copied, writes that touch its rows are held back, and the copy starts
 * only when the writes already in flight there have completed, so the copy
 * never overwrites newer data with older.
 *
 * Check and repair (messages) walk the members the same way, window by
 * window with the same hold on writes: every in-sync copy of a set is read
 * and compared, sector by sector, with the set's first in-sync copy; the
 * sectors where some copy differs are counted, and a repair writes the
 * first copy's data over the copies that differ.  A walk that starts while
 * writes are in flight first waits for those (they were mapped before the
 * walk could register them).
 *
 * With "bitmap <dev>" (ssa-bitmap.c) a write first waits for the bits of
 * the regions of member chunks it touches to be on the bitmap device; the
 * regions still set at the first resume are resynced (a repair over those
 * regions only), and until then their reads go to the copy the resync
 * copies from.
 *
 * Files: this one (the fork, reads and their retries, writes, the
 * personality), ssa-mirror-walk.c (rebuild, check, repair, resync, and
 * their hold on writes), and the private header ssa-mirror.h.
 */
#include "ssa-compat.h"
#include "ssa-mirror.h"

static bool ssa_write_like(u8 op)
{
	return op == SSA_OP_WRITE || op == SSA_OP_DISCARD ||
	       op == SSA_OP_WRITE_ZEROES || op == SSA_OP_FLUSH;
}

static bool ssa_copy_writable(struct ssa_ctx *sc, unsigned int m)
{
	return !test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags);
}

/* May member @m serve a read of its sectors below @mend? */
static bool ssa_copy_readable(struct ssa_ctx *sc, unsigned int m, u64 mend)
{
	return ssa_walk_readable(&ssa_mirror_of(sc)->w, m, mend);
}

/*
 * Whether member sectors [ms, me) lie in a region the bitmap holds for a
 * resync: a crash may have left their copies different.
 */
static bool ssa_mirror_unsynced(struct ssa_ctx *sc, u64 ms, u64 me)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	return unlikely(mi->w.bm) &&
	       ssa_bm_range_pending(mi->w.bm, div_u64(ms, sc->geom.chunk),
				    div_u64(me - 1, sc->geom.chunk));
}

/*
 * The copy of @set that a read of member sectors [ms, me) goes to under
 * the read policy, leaving out the members in @exclude; -1 if none can.
 */
static int ssa_choose(struct ssa_ctx *sc, u32 set, u64 ms, u64 me,
		      u64 exclude)
{
	unsigned int policy = READ_ONCE(sc->read_policy);
	unsigned int k, i, start = 0, copies = sc->copies;
	u64 best_v = U64_MAX;
	int best = -1;

	/*
	 * Where a crash may have left the copies different (a region waiting
	 * for the resync), every read goes to the copy the resync copies
	 * from -- the first in-sync copy that can be read -- so that two
	 * reads never disagree.
	 */
	if (ssa_mirror_unsynced(sc, ms, me)) {
		for (k = 0; k < copies; k++) {
			unsigned int m = ssa_mirror_member(set, copies, k);

			if (!(exclude & BIT_ULL(m)) && ssa_walk_in_sync(sc, m))
				return m;
		}
	}

	/*
	 * Ties (and split's pieces too small to divide) go round robin;
	 * under "queue" and "adaptive" a copy on which the read continues a sequential
	 * stream (its last child ended at @ms) wins a tie first, so that one
	 * stream stays on one copy, as md's raid1 keeps it.
	 */
	if (policy != SSA_READ_NEAREST)
		start = (unsigned int)atomic_inc_return(&ssa_mirror_of(sc)->rr) % copies;

	for (i = 0; i < copies; i++) {
		unsigned int m;
		struct ssa_member *mb;
		u64 v, head;

		k = (start + i) % copies;
		m = ssa_mirror_member(set, copies, k);
		if ((exclude & BIT_ULL(m)) || !ssa_copy_readable(sc, m, me))
			continue;
		mb = &sc->members[m];
		switch (policy) {
		case SSA_READ_QUEUE:
		case SSA_READ_ADAPTIVE:
			v = (u64)atomic_read(&mb->outstanding) << 1 |
			    (READ_ONCE(mb->head) != ms);
			break;
		case SSA_READ_NEAREST:
			head = READ_ONCE(mb->head);
			v = head > ms ? head - ms : ms - head;
			break;
		default:	/* round robin; split falls back to it */
			v = 0;
		}
		if (v < best_v) {
			best_v = v;
			best = m;
		}
	}
	return best;
}

static void ssa_mirror_child_put(struct bio *bio)
{
	struct bio *src = to_child(bio)->src;

	bio_put(bio);
	if (src)
		bio_put(src);
}

static void ssa_mirror_endio(struct bio *bio)
{
	struct ssa_child *c = to_child(bio);
	struct ssa_ctx *sc = c->sc;
	struct ssa_io *io = c->io;
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	blk_status_t status = bio->bi_status;

	atomic_dec(&sc->members[c->cs.member].outstanding);
	ssa_child_done(sc, bio, io, &c->cs, status);
	if (unlikely(status) && !ssa_member_fault(status, bio)) {
		ssa_io_set_error(io, status);
	} else if (unlikely(status) && c->cs.op == SSA_OP_READ) {
		/* another copy may have it: retry from process context */
		ssa_retry_add(&mi->retry, bio);
		return;
	} else if (unlikely(status)) {
		atomic64_or(BIT_ULL(c->cs.member), &io->failed);
	}
	ssa_mirror_child_put(bio);
	ssa_io_put(io);
}

/* A failed read child's next copy: one of its set it has not been sent to. */
static int ssa_mirror_retry_next(struct ssa_ctx *sc, struct ssa_child *c)
{
	struct ssa_cstate *cs = &c->cs;

	return ssa_choose(sc, cs->member / sc->copies, cs->msector,
			  cs->msector + cs->len, c->tried);
}

/* How the fork walks a request: count its children, or issue them. */
struct ssa_fork_pass {
	bool issue;
	bool from_map;
	u32 count;
	unsigned int policy;	/* the read policy, read once per request */
	u64 divide;		/* "adaptive": sets whose piece is divided */
};

/*
 * Whether "adaptive" divides a read piece of @len sectors at member sector
 * @ms of @set among its copies: when it spans more than a chunk (md's
 * raid10 spreads a request over the copies at chunk size) and every
 * readable copy of the set is idle.  An idle set has no queue to shorten,
 * so dividing the transfer is what shortens the read; a busy one keeps
 * "queue"'s choice, one copy per piece, since dividing there only adds
 * positioning work to disks that are already in demand.
 */
static bool ssa_adaptive_divides(struct ssa_ctx *sc, u32 set, u64 ms, u64 len)
{
	unsigned int k, m, idle = 0;

	if (len <= sc->geom.chunk)
		return false;
	for (k = 0; k < sc->copies; k++) {
		m = ssa_mirror_member(set, sc->copies, k);
		if (!ssa_copy_readable(sc, m, ms + len))
			continue;
		if (atomic_read(&sc->members[m].outstanding))
			return false;
		idle++;
	}
	return idle > 1;
}

/*
 * Issue one child on member @m: sectors [off, off + len) of @src (the
 * parent, or a source bio built for the set), at member sector @ms.
 */
static void ssa_mirror_child(struct ssa_ctx *sc, struct ssa_io *io,
			     struct bio *parent, struct bio *src, u64 off,
			     u64 len, unsigned int m, u64 ms, u8 op,
			     bool from_map)
{
	struct ssa_member *mb = &sc->members[m];
	struct ssa_child *c;
	struct bio *bio;

	bio = bio_alloc_clone(mb->dev->bdev, src, GFP_NOIO, &sc->bs);
	if (unlikely(!bio)) {
		ssa_io_set_error(io, BLK_STS_RESOURCE);
		return;
	}
	if (bio_has_data(bio))
		bio_trim(bio, off, len);
	else if (op != SSA_OP_FLUSH)
		bio->bi_iter.bi_size = len << SECTOR_SHIFT;

	c = to_child(bio);
	c->sc = sc;
	c->io = io;
	c->src = NULL;
	if (src != parent) {
		bio_get(src);
		c->src = src;
	}
	c->tried = BIT_ULL(m);
	ssa_cstate_set(&c->cs, m, ms, bio_sectors(bio), io->nr_children++,
		       SSA_CLASS_LOW, op);
	bio->bi_iter.bi_sector = mb->offset + ms;
	bio->bi_end_io = ssa_mirror_endio;
	bio->bi_private = NULL;
	c->iter = bio->bi_iter;

	if (ssa_write_like(op))
		io->issued |= BIT_ULL(m);
	atomic_inc(&mb->outstanding);
	WRITE_ONCE(mb->head, ms + c->cs.len);
	atomic_inc(&io->pending);
	ssa_submit_child(sc, bio, io, &c->cs, from_map);
}

/* The children of one piece: [off, off + len) of @src, on @set at @ms. */
static void ssa_mirror_piece(struct ssa_ctx *sc, struct ssa_io *io,
			     struct bio *parent, struct bio *src, u64 off,
			     u64 len, u32 set, u64 ms, u8 op, struct ssa_fork_pass *w)
{
	unsigned int k, n = 0, copies = sc->copies;
	unsigned int live[SSA_MAX_MEMBERS];
	u64 share, o;
	int m;

	if (ssa_write_like(op)) {
		for (k = 0; k < copies; k++) {
			m = ssa_mirror_member(set, copies, k);
			if (!ssa_copy_writable(sc, m))
				continue;
			n++;
			if (w->issue)
				ssa_mirror_child(sc, io, parent, src, off, len,
						 m, ms, op, w->from_map);
		}
		goto out;
	}

	/*
	 * "adaptive" decides while counting, and the issuing pass follows
	 * that decision: the copies' queues may have moved in between.
	 */
	if (w->policy == SSA_READ_ADAPTIVE && !w->issue &&
	    ssa_adaptive_divides(sc, set, ms, len))
		w->divide |= BIT_ULL(set);

	/* (not where the copies may differ: one copy serves it, ssa_choose()) */
	if ((w->policy == SSA_READ_SPLIT ||
	     (w->policy == SSA_READ_ADAPTIVE && (w->divide & BIT_ULL(set)))) &&
	    !ssa_mirror_unsynced(sc, ms, ms + len)) {
		for (k = 0; k < copies; k++) {
			m = ssa_mirror_member(set, copies, k);
			if (ssa_copy_readable(sc, m, ms + len))
				live[n++] = m;
		}
		share = ssa_split_share(len, n, SSA_SPLIT_ALIGN);
		if (share) {
			for (o = 0, k = 0; o < len; o += share, k++) {
				if (w->issue)
					ssa_mirror_child(sc, io, parent, src,
							 off + o,
							 min(share, len - o),
							 live[k], ms + o, op,
							 w->from_map);
			}
			w->count += k;
			return;
		}
	}

	/* counting must not move the round-robin position */
	if (!w->issue) {
		w->count++;
		return;
	}
	m = ssa_choose(sc, set, ms, ms + len, 0);
	n = m >= 0;
	if (n)
		ssa_mirror_child(sc, io, parent, src, off, len, m, ms, op,
				 w->from_map);
out:
	w->count += n;
	if (!n && w->issue) {
		DMERR_LIMIT("%s: set %u has no copy left for member sectors %llu+%llu",
			    dm_device_name(dm_table_get_md(sc->ti->table)), set,
			    (unsigned long long)ms, (unsigned long long)len);
		ssa_io_set_error(io, BLK_STS_IOERR);
	}
}

/* A bio holding the pages of everything [start, end) has on @set. */
static struct bio *ssa_mirror_source(struct ssa_ctx *sc, struct ssa_io *io,
				     struct bio *parent, u32 set, u64 start,
				     u64 end, u64 sectors)
{
	struct block_device *bdev;
	struct bio *src;

	/* any member of the set: the source itself is never submitted */
	bdev = sc->members[ssa_mirror_member(set, sc->copies, 0)].dev->bdev;
	src = bio_alloc_bioset(bdev, io->segs[set], parent->bi_opf, GFP_NOIO,
			       &sc->bs);
	if (unlikely(!src))
		return NULL;
	bio_clone_blkg_association(src, parent);
	src->bi_ioprio = parent->bi_ioprio;
	if (unlikely(!ssa_gather(sc, parent, src, set, start, end) ||
		     bio_sectors(src) != sectors)) {
		bio_put(src);
		return NULL;
	}
	return src;
}

/* Walk the pieces of a read, write, discard or write-zeroes request. */
static void ssa_mirror_walk(struct ssa_ctx *sc, struct ssa_io *io,
			    struct bio *parent, u8 op, u64 start, u64 end,
			    struct ssa_fork_pass *w)
{
	const struct ssa_geom *g = &sc->geom;
	bool data = op == SSA_OP_READ || op == SSA_OP_WRITE;
	struct ssa_extent e;
	u64 ls, len, ms, me;
	u32 set, off;

	if (data && (!sc->coalesce || ssa_chunks(sc, start, end) <= g->members)) {
		for (ls = start; ls < end; ls += len) {
			sc->layout->map(g, ls, &e);
			len = min(e.len, end - ls);
			ssa_mirror_piece(sc, io, parent, parent, ls - start, len,
					 e.member, e.msector, op, w);
		}
		return;
	}

	for (set = 0; set < g->members; set++) {
		struct bio *src;

		if (!sc->layout->member_range(g, start, end, set, &ms, &me))
			continue;
		if (!data || ssa_chunk_index(g, ms, &off) ==
			     ssa_chunk_index(g, me - 1, &off)) {
			/* one piece of the parent (or no data at all) */
			ssa_mirror_piece(sc, io, parent, parent,
					 data ? ssa_member_first(sc, set, ms) - start : 0,
					 me - ms, set, ms, op, w);
			continue;
		}
		if (!w->issue) {
			ssa_mirror_piece(sc, io, parent, NULL, 0, me - ms, set,
					 ms, op, w);
			continue;
		}
		src = ssa_mirror_source(sc, io, parent, set, start, end,
					me - ms);
		if (unlikely(!src)) {
			DMERR_LIMIT("set %u: could not build a %llu-sector child",
				    set, (unsigned long long)(me - ms));
			ssa_io_set_error(io, BLK_STS_RESOURCE);
			continue;
		}
		ssa_mirror_piece(sc, io, parent, src, 0, me - ms, set, ms, op,
				 w);
		bio_put(src);	/* the children hold their own references */
	}
}

void ssa_mirror_fork(struct ssa_ctx *sc, struct ssa_io *io,
		     struct bio *parent, u8 op, u64 start, u64 end,
		     bool from_map)
{
	struct ssa_fork_pass w = {
		.issue = false,
		.from_map = from_map,
		.policy = READ_ONCE(sc->read_policy),
	};
	unsigned int m;

	io->issued = 0;
	atomic64_set(&io->failed, 0);

	if (op == SSA_OP_FLUSH) {
		for (m = 0; m < sc->nr_members; m++)
			w.count += ssa_copy_writable(sc, m);
		ssa_fork_begin(sc, io, op, start, start, w.count);
		for (m = 0; m < sc->nr_members; m++)
			if (ssa_copy_writable(sc, m))
				ssa_mirror_child(sc, io, parent, parent, 0, 0,
						 m, 0, op, from_map);
		if (!w.count)
			ssa_io_set_error(io, BLK_STS_IOERR);
		ssa_io_put(io);
		return;
	}

	/* count first: the fork event announces its number of children */
	ssa_mirror_walk(sc, io, parent, op, start, end, &w);
	ssa_fork_begin(sc, io, op, start, end, w.count);
	w.issue = true;
	w.count = 0;
	ssa_mirror_walk(sc, io, parent, op, start, end, &w);
	ssa_io_put(io);
}

/* A mirror request is about to be joined (any context). */
static void ssa_mirror_join(struct ssa_io *io)
{
	struct ssa_ctx *sc = io->sc;
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	u64 failed, good, set_mask;
	unsigned int s;

	ssa_bm_release(mi->w.bm, &io->bmw);
	ssa_walk_join(&mi->w, io);

	failed = atomic64_read(&io->failed);
	if (likely(!failed) && likely(!(io->issued & sc->rebuild_mask)))
		return;
	/*
	 * Some copy of every set written must have taken all its children and
	 * be in sync: a copy being rebuilt is not trusted with the only copy
	 * of a write (once its set has no copy in sync, its rebuild has no
	 * source and it fails too), as md's raid1 does not count one.
	 */
	good = io->issued & ~failed & ssa_walk_in_sync_mask(sc);
	for (s = 0; s < sc->geom.members; s++) {
		set_mask = GENMASK_ULL((s + 1) * sc->copies - 1, s * sc->copies);
		if ((io->issued & set_mask) && !(good & set_mask)) {
			ssa_io_set_error(io, BLK_STS_IOERR);
			return;
		}
	}
}

/* Past the bitmap: a write waits for a walk's window, then forks. */
static void ssa_mirror_admit(struct ssa_ctx *sc, struct ssa_io *io,
			     struct bio *bio, u8 op, u64 start, u64 end,
			     bool from_map)
{
	if (op != SSA_OP_READ && op != SSA_OP_FLUSH &&
	    ssa_walk_admit(&ssa_mirror_of(sc)->w, io, bio, start, end))
		return;
	ssa_mirror_fork(sc, io, bio, op, start, end, from_map);
}

/* The bitmap's work: the bits of a write that waited are on the device. */
static void ssa_mirror_bm_go(struct ssa_ctx *sc, struct ssa_bm_wait *w)
{
	struct ssa_io *io = container_of(w, struct ssa_io, bmw);
	struct bio *bio = dm_bio_from_per_bio_data(io, sc->io_size);
	u64 start = dm_target_offset(sc->ti, bio->bi_iter.bi_sector);

	ssa_mirror_admit(sc, io, bio, ssa_op_of(bio), start,
			 start + bio_sectors(bio), false);
}

static int ssa_mirror_map(struct ssa_ctx *sc, struct ssa_io *io,
			  struct bio *bio, u8 op, u64 start, u64 end)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	u64 lo, hi;

	/* Cut the request here if a gathered child would need too many bvecs. */
	if ((op == SSA_OP_READ || op == SSA_OP_WRITE) && sc->coalesce &&
	    ssa_chunks(sc, start, end) > sc->geom.members)
		end = ssa_count_segs(sc, io, bio, start, end);

	ssa_walk_map_init(io);
	ssa_bm_wait_init(&io->bmw);
	/* a write's regions on the bitmap device first (if it has one) */
	if (unlikely(mi->w.bm) && op != SSA_OP_READ && op != SSA_OP_FLUSH) {
		ssa_rows_of(sc, start, end, &lo, &hi);
		if (!ssa_bm_gate(mi->w.bm, &io->bmw, div_u64(lo, sc->geom.chunk),
				 div_u64(hi - 1, sc->geom.chunk)))
			return DM_MAPIO_SUBMITTED;
	}
	ssa_mirror_admit(sc, io, bio, op, start, end, true);
	return DM_MAPIO_SUBMITTED;
}

/*
 * Fail member @m by hand (message "fail").  The last copy of a set that can
 * still be read is refused: failing it would only turn reads into errors.
 */
static int ssa_mirror_fail(struct ssa_ctx *sc, unsigned int m)
{
	struct ssa_member *mb = &sc->members[m];
	u32 set = m / sc->copies;
	unsigned int k, others = 0;

	if (test_bit(SSA_MEMBER_FAILED, &mb->flags))
		return 0;
	for (k = 0; k < sc->copies; k++) {
		unsigned int o = ssa_mirror_member(set, sc->copies, k);

		if (o != m && ssa_walk_in_sync(sc, o))
			others++;
	}
	if (!others) {
		DMWARN("fail %u: member %u is the last in-sync copy of set %u",
		       m, m, set);
		return -EBUSY;
	}
	ssa_member_fail(sc, m);
	return 0;
}

/*
 * Table options: copies divides the members, and every set keeps a copy
 * that is not being rebuilt.
 */
static int ssa_mirror_check_opts(struct ssa_ctx *sc)
{
	unsigned int n = sc->nr_members, copies;

	copies = sc->opt[SSA_OPT_COPIES];
	if (copies > n || n % copies) {
		DMERR("%u members cannot form sets of %u copies", n, copies);
		sc->ti->error = "Number of members is not a multiple of copies";
		return -EINVAL;
	}
	sc->copies = copies;
	return ssa_walk_check_rebuild(sc, "rebuild would leave a mirror set without a source copy");
}

static void ssa_mirror_free(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	if (!mi)
		return;
	/* @retry.work ran on sc->wq, drained when ssa_free() destroyed it */
	ssa_walk_free(&mi->w);
	ssa_bm_free(mi->w.bm);
	kfree(mi);
	sc->priv = NULL;
}

/*
 * Every mirror volume has its walk state; the rebuild's window buffer and
 * workqueue only when the table names a member to rebuild.
 */
static int ssa_mirror_alloc(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi;
	int r;

	mi = kzalloc(sizeof(*mi), GFP_KERNEL);
	if (!mi) {
		sc->ti->error = "Cannot allocate mirror state";
		return -ENOMEM;
	}
	sc->priv = mi;
	mi->sc = sc;
	atomic_set(&mi->rr, 0);
	ssa_retry_init(&mi->retry, sc, ssa_mirror_retry_next,
		       ssa_mirror_child_put);
	r = ssa_walk_init(&mi->w, sc, &ssa_mirror_walk_ops, sc->member_len);
	if (r || !sc->meta_dev)
		return r;
	return ssa_bm_create(sc, DIV_ROUND_UP_ULL(sc->member_len, sc->geom.chunk),
			     NULL, ssa_mirror_bm_go, &mi->w.bm);
}

static int ssa_mirror_prepare(struct ssa_ctx *sc)
{
	return ssa_bm_prepare(ssa_mirror_of(sc)->w.bm);
}

static void ssa_mirror_quiesced(struct ssa_ctx *sc)
{
	ssa_bm_quiesced(ssa_mirror_of(sc)->w.bm);
}

static int ssa_mirror_scrub(struct ssa_ctx *sc, bool repair)
{
	return ssa_walk_scrub(&ssa_mirror_of(sc)->w, repair);
}

static int ssa_mirror_idle(struct ssa_ctx *sc)
{
	return ssa_walk_idle(&ssa_mirror_of(sc)->w);
}

static void ssa_mirror_opt_changed(struct ssa_ctx *sc, int opt)
{
	if (opt == SSA_OPT_REBUILD_RATE)
		ssa_walk_rate_changed(&ssa_mirror_of(sc)->w);
}

static void ssa_mirror_stop(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	if (mi)
		ssa_walk_stop(&mi->w);
}

static void ssa_mirror_start(struct ssa_ctx *sc)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);

	if (mi)
		ssa_walk_start(&mi->w);
}

const struct ssa_layout_ops ssa_mirror_ops = {
	.opts = SSA_COMMON_OPTS | SSA_SCHED_OPTS | BIT(SSA_OPT_COALESCE) |
		BIT(SSA_OPT_COPIES) | BIT(SSA_OPT_READ_POLICY) |
		BIT(SSA_OPT_REBUILD_RATE) |
		BIT(SSA_OPT_REBUILD) | BIT(SSA_OPT_BITMAP) |
		BIT(SSA_OPT_BITMAP_REGION),
	.discards = true,
	.check_opts = ssa_mirror_check_opts,
	.alloc = ssa_mirror_alloc,
	.free = ssa_mirror_free,
	.map = ssa_mirror_map,
	.join = ssa_mirror_join,
	.fail = ssa_mirror_fail,
	.scrub = ssa_mirror_scrub,
	.idle = ssa_mirror_idle,
	.opt_changed = ssa_mirror_opt_changed,
	.status = ssa_mirror_status,
	.stop = ssa_mirror_stop,
	.start = ssa_mirror_start,
	.prepare = ssa_mirror_prepare,
	.quiesced = ssa_mirror_quiesced,
};
