// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the stripe layout, and the fork of data requests that the
 * other layouts reuse.
 *
 * ssa_map_data() maps what a layout has no special rule for: an empty
 * flush goes to every member, a discard or write-zeroes to each member's
 * extent of it, a request inside one chunk is remapped whole
 * (ssa_remap_parent()), and a larger one is forked:
 *
 *  - without coalescing, or with no more chunks than members, one child
 *    per chunk piece, each a trimmed clone of the parent;
 *  - with coalescing, one child per member, whose bvec table is gathered
 *    from the parent's pieces on that member (ssa_count_segs() first cuts
 *    the request where a child would need too many bvecs);
 *  - on parity striping, whose consecutive chunks continue on one member,
 *    one child per run of such chunks.
 *
 * The stripe layout is this and nothing else; with queue_depth 0 its
 * single-chunk requests never get here (ssa_map_fast() in ssa-io.c).
 */
#include <linux/blkdev.h>
#include <linux/indirect_call_wrapper.h>

#include "dm-ssastripe.h"

/* An empty flush: every member flushes. */
static void ssa_fork_flush(struct ssa_ctx *sc, struct ssa_io *io,
			   struct bio *parent, bool from_map)
{
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++) {
		struct bio *child = ssa_clone(sc, io, parent, m, 0);

		if (child)
			ssa_issue_from(sc, io, child, from_map);
	}
}

/*
 * An empty flush a layout held back and now sends to every member from its
 * work item (not from the map: DM core accounts it at its end).
 */
void ssa_flush_deferred(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio)
{
	u64 start = dm_target_offset(sc->ti, bio->bi_iter.bi_sector);

	ssa_fork_begin(sc, io, SSA_OP_FLUSH, start, start, sc->nr_members);
	ssa_fork_flush(sc, io, bio, false);
	ssa_io_put(io);
}

/* Discard and write-zeroes: one child per member over its whole extent. */
static void ssa_fork_extent(struct ssa_ctx *sc, struct ssa_io *io,
			    struct bio *parent, u64 start, u64 end)
{
	unsigned int m;
	u64 ms, me;

	for (m = 0; m < sc->nr_members; m++) {
		struct bio *child;

		if (!sc->layout->member_range(&sc->geom, start, end, m,
					      &ms, &me))
			continue;
		child = ssa_clone(sc, io, parent, m, ms);
		if (!child)
			continue;
		child->bi_iter.bi_size = (me - ms) << SECTOR_SHIFT;
		ssa_issue(sc, io, child);
	}
}

/* One child per chunk piece, each a trimmed clone of the parent. */
static void ssa_fork_pieces(struct ssa_ctx *sc, struct ssa_io *io,
			    struct bio *parent, u64 start, u64 end)
{
	struct ssa_extent e;
	u64 ls, len;

	for (ls = start; ls < end; ls += len) {
		struct bio *child;

		sc->layout->map(&sc->geom, ls, &e);
		len = min(e.len, end - ls);
		child = ssa_clone(sc, io, parent, e.member, e.msector);
		if (!child)
			continue;
		bio_trim(child, ls - start, len);
		ssa_issue(sc, io, child);
	}
}

/*
 * The next piece of @parent at @it, as one bvec of at most @bytes: a
 * segment of the parent's table, which may span pages, with its offset
 * brought inside its first page.
 */
static inline struct bio_vec ssa_next_seg(struct bio *parent,
					  struct bvec_iter it,
					  unsigned int bytes)
{
	struct bio_vec bv = mp_bvec_iter_bvec(parent->bi_io_vec, it);

	bv.bv_page += bv.bv_offset >> PAGE_SHIFT;
	bv.bv_offset &= ~PAGE_MASK;
	bv.bv_len = min(bv.bv_len, bytes);
	return bv;
}

/* Segments (see ssa_next_seg()) of the next @bytes of @parent at @it. */
static unsigned int ssa_count_bytes(struct bio *parent, struct bvec_iter *it,
				    unsigned int bytes)
{
	unsigned int nsegs = 0;

	while (bytes) {
		unsigned int n = ssa_next_seg(parent, *it, bytes).bv_len;

		bio_advance_iter_single(parent, it, n);
		bytes -= n;
		nsegs++;
	}
	return nsegs;
}

/*
 * Count the bvecs each member's coalesced child needs (io->segs).  A child
 * holds at most BIO_MAX_VECS; if a member would need more, the request is
 * cut at the start of the chunk piece that overflows it and DM core sends
 * the rest as a new request.  Returns the (possibly reduced) end.
 */
u64 ssa_count_segs(struct ssa_ctx *sc, struct ssa_io *io, struct bio *parent,
		   u64 start, u64 end)
{
	struct bvec_iter it = parent->bi_iter;
	struct ssa_extent e;
	u64 ls, len;

	memset(io->segs, 0, sc->nr_members * sizeof(io->segs[0]));
	for (ls = start; ls < end; ls += len) {
		unsigned int n;
		u16 *segs;

		sc->layout->map(&sc->geom, ls, &e);
		len = min(e.len, end - ls);
		segs = &io->segs[e.member];
		n = ssa_count_bytes(parent, &it, len << SECTOR_SHIFT);
		/* A member's first piece may be large: it needs no bvecs. */
		if (*segs && *segs + n > BIO_MAX_VECS) {
			dm_accept_partial_bio(parent, ls - start);
			return ls;
		}
		*segs = min_t(unsigned int, *segs + n, U16_MAX);
	}
	return end;
}

/*
 * Add the pieces of [start, end) that lie on member @m to @child.  @start
 * must be where @parent's iterator stands.
 */
bool ssa_gather(struct ssa_ctx *sc, struct bio *parent, struct bio *child,
		unsigned int m, u64 start, u64 end)
{
	struct bvec_iter it = parent->bi_iter;
	struct ssa_extent e;
	u64 ls, len;

	for (ls = start; ls < end; ls += len) {
		unsigned int bytes;

		sc->layout->map(&sc->geom, ls, &e);
		len = min(e.len, end - ls);
		bytes = len << SECTOR_SHIFT;
		if (e.member != m) {
			bio_advance_iter(parent, &it, bytes);
			continue;
		}
		while (bytes) {
			struct bio_vec bv = ssa_next_seg(parent, it, bytes);

			/* the child has the bvecs ssa_count_segs() counted */
			if (unlikely(child->bi_vcnt >= child->bi_max_vecs))
				return false;
			__bio_add_page(child, bv.bv_page, bv.bv_len,
				       bv.bv_offset);
			bio_advance_iter_single(parent, &it, bv.bv_len);
			bytes -= bv.bv_len;
		}
	}
	return true;
}

/* Logical sector of member sector @ms of member @m. */
u64 ssa_member_first(struct ssa_ctx *sc, unsigned int m, u64 ms)
{
	const struct ssa_geom *g = &sc->geom;
	u32 off;
	u64 mchunk = ssa_chunk_index(g, ms, &off);

	return (mchunk * g->members + m) * g->chunk + off;
}

/* Chunks that [start, end) touches. */
u64 ssa_chunks(struct ssa_ctx *sc, u64 start, u64 end)
{
	u32 off;

	return ssa_chunk_index(&sc->geom, end - 1, &off) -
	       ssa_chunk_index(&sc->geom, start, &off) + 1;
}

/* A request spanning more chunks than there are members: coalesce. */
static void ssa_fork_coalesced(struct ssa_ctx *sc, struct ssa_io *io,
			       struct bio *parent, u64 start, u64 end)
{
	const struct ssa_geom *g = &sc->geom;
	unsigned int i, m, first_member;
	struct ssa_extent e;
	u64 ms, me;
	u32 off;

	sc->layout->map(g, start, &e);
	first_member = e.member;

	for (i = 0; i < sc->nr_members; i++) {
		struct block_device *bdev;
		struct bio *child;

		m = (first_member + i) % sc->nr_members;
		if (!sc->layout->member_range(g, start, end, m, &ms, &me))
			continue;

		/* One piece: a trimmed clone, however large. */
		if (ssa_chunk_index(g, ms, &off) ==
		    ssa_chunk_index(g, me - 1, &off)) {
			child = ssa_clone(sc, io, parent, m, ms);
			if (!child)
				continue;
			bio_trim(child, ssa_member_first(sc, m, ms) - start,
				 me - ms);
			ssa_issue(sc, io, child);
			continue;
		}

		bdev = sc->members[m].dev->bdev;
		child = bio_alloc_bioset(bdev, io->segs[m], parent->bi_opf,
					 GFP_NOIO, &sc->bs);
		if (unlikely(!child)) {
			ssa_io_set_error(io, BLK_STS_RESOURCE);
			continue;
		}
		ssa_child_init(sc, io, child, m, ms);
		child->bi_ioprio = parent->bi_ioprio;
		/*
		 * Clones inherit the parent's cgroup; a built child must be
		 * told, or one dispatched later from the work item (which does
		 * not go through dm_submit_bio_remap()) escapes its controls.
		 */
		bio_clone_blkg_association(child, parent);
		if (unlikely(!ssa_gather(sc, parent, child, m, start, end) ||
			     bio_sectors(child) != me - ms)) {
			DMERR_LIMIT("member %u: could not build a %llu-sector child",
				    m, (unsigned long long)(me - ms));
			ssa_io_set_error(io, BLK_STS_RESOURCE);
			bio_put(child);
			continue;
		}
		ssa_issue(sc, io, child);
	}
}

/*
 * Runs of [start, end): consecutive chunk pieces that continue one another
 * on one member.  Parity striping keeps a member's data in one area, so a
 * read there is one run, served by one child as the paper's disk reads
 * contiguous blocks in one access; the other layouts put consecutive
 * chunks on different members and have a run per piece.
 */
static u32 ssa_count_runs(struct ssa_ctx *sc, u64 start, u64 end)
{
	struct ssa_extent e;
	u64 ls, len, next = 0;
	u32 prev = U32_MAX, runs = 0;

	for (ls = start; ls < end; ls += len) {
		sc->layout->map(&sc->geom, ls, &e);
		len = min(e.len, end - ls);
		if (e.member != prev || e.msector != next)
			runs++;
		prev = e.member;
		next = e.msector + len;
	}
	return runs;
}

/* One child per run (see ssa_count_runs()). */
static void ssa_fork_runs(struct ssa_ctx *sc, struct ssa_io *io,
			  struct bio *parent, u64 start, u64 end)
{
	struct ssa_extent e, run = { };
	u64 ls, len, rs = start;
	struct bio *child;

	for (ls = start; ls <= end; ls += len) {
		len = 0;
		if (ls < end) {
			sc->layout->map(&sc->geom, ls, &e);
			len = min(e.len, end - ls);
			if (ls > start && e.member == run.member &&
			    e.msector == run.msector + run.len) {
				run.len += len;
				continue;
			}
		}
		if (ls > start) {
			child = ssa_clone(sc, io, parent, run.member, run.msector);
			if (child) {
				bio_trim(child, rs - start, run.len);
				ssa_issue(sc, io, child);
			}
		}
		if (ls == end)
			break;
		run = e;
		run.len = len;
		rs = ls;
	}
}

/* A data request that spans more than one chunk. */
static void ssa_fork_rw(struct ssa_ctx *sc, struct ssa_io *io,
			struct bio *parent, u8 op, u64 start, u64 end)
{
	u64 chunks = ssa_chunks(sc, start, end);

	/* reads of parity striping (its writes are planned elsewhere) */
	if (sc->ops->unstriped) {
		ssa_fork_begin(sc, io, op, start, end,
			       ssa_count_runs(sc, start, end));
		ssa_fork_runs(sc, io, parent, start, end);
		ssa_io_put(io);
		return;
	}

	/* With no more chunks than members, each member has one piece. */
	if (!sc->coalesce || chunks <= sc->nr_members) {
		ssa_fork_begin(sc, io, op, start, end, chunks);
		ssa_fork_pieces(sc, io, parent, start, end);
	} else {
		end = ssa_count_segs(sc, io, parent, start, end);
		chunks = ssa_chunks(sc, start, end);
		ssa_fork_begin(sc, io, op, start, end,
			       min_t(u64, chunks, sc->nr_members));
		ssa_fork_coalesced(sc, io, parent, start, end);
	}
	ssa_io_put(io);
}

int ssa_map_data(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		 u8 op, u64 start, u64 end)
{
	struct ssa_extent e;

	switch (op) {
	case SSA_OP_FLUSH:
		/* DM core sends the data of a flush separately, after it. */
		ssa_fork_begin(sc, io, op, start, start, sc->nr_members);
		ssa_fork_flush(sc, io, bio, true);
		ssa_io_put(io);
		return DM_MAPIO_SUBMITTED;
	case SSA_OP_DISCARD:
	case SSA_OP_WRITE_ZEROES:
		ssa_fork_begin(sc, io, op, start, end,
			       min_t(u64, ssa_chunks(sc, start, end),
				     sc->nr_members));
		ssa_fork_extent(sc, io, bio, start, end);
		ssa_io_put(io);
		return DM_MAPIO_SUBMITTED;
	}

	/* the stripe layout is the common one: no retpoline for it */
	INDIRECT_CALL_1(sc->layout->map, ssa_stripe_map, &sc->geom, start, &e);
	if (likely(end - start <= e.len))
		ssa_remap_parent(sc, io, bio, op, start, end, &e);
	else
		ssa_fork_rw(sc, io, bio, op, start, end);
	return DM_MAPIO_SUBMITTED;
}

const struct ssa_layout_ops ssa_stripe_ops = {
	.opts = SSA_COMMON_OPTS | SSA_SCHED_OPTS | BIT(SSA_OPT_COALESCE),
	.fast_map = true,
	.discards = true,
	.map = ssa_map_data,
};
