// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the fork/join I/O path.
 *
 * DM core hands the target each logical request (the parent) whole: the
 * target sets no max_io_len, so nothing is cut at chunk boundaries before it
 * gets here.  The parent is forked into children, issued to the members,
 * and joined when the last child completes; the parent then completes with
 * the first error any child saw.
 *
 *  - A request inside one chunk needs no fork: the parent itself is remapped
 *    to its member.  Small random I/O thus costs no allocation at all.
 *  - A request that touches a member in one piece gets a clone of the parent
 *    trimmed to that piece (the bvec table is shared, nothing is copied).
 *  - With coalescing on (the default), the pieces a request has on one
 *    member, which are contiguous in the member's address space, become one
 *    child whose bvec table points into the parent's pages.  A request of k
 *    full stripes therefore issues exactly one child per member.
 *
 * Every child reaches its member through ssa_submit_child().
 */
#include <linux/blkdev.h>

#include "dm-ssastripe.h"

static inline struct ssa_child *to_child(struct bio *bio)
{
	return container_of(bio, struct ssa_child, bio);
}

/* READ or WRITE for bios that carry data, -1 for the rest. */
static int ssa_data_dir(struct bio *bio)
{
	if (!bio_has_data(bio))
		return -1;
	return op_is_write(bio_op(bio)) ? WRITE : READ;
}

/* Every child, and every remapped parent, reaches its member here. */
static void ssa_submit_child(struct ssa_ctx *sc, struct bio *parent,
			     unsigned int m, struct bio *child)
{
	struct ssa_member_stats __percpu *st = sc->members[m].stats;
	int dir = ssa_data_dir(child);

	if (dir >= 0) {
		this_cpu_inc(st->children[dir]);
		this_cpu_add(st->sectors[dir], bio_sectors(child));
	} else {
		this_cpu_inc(st->other);
	}
	dm_submit_bio_remap(parent, child);
}

void ssa_member_error(struct ssa_ctx *sc, unsigned int m, blk_status_t status,
		      struct bio *bio)
{
	struct ssa_member *mb = &sc->members[m];

	/* Not a fault of the member: unsupported op, or a hint that failed. */
	if (status == BLK_STS_NOTSUPP || status == BLK_STS_AGAIN ||
	    (bio->bi_opf & REQ_RAHEAD))
		return;

	atomic_inc(&mb->errors);
	if (!test_and_set_bit(SSA_MEMBER_FAILED, &mb->flags)) {
		DMERR("%s: member %u (%s) failed: I/O error %d",
		      dm_device_name(dm_table_get_md(sc->ti->table)), m,
		      mb->dev->name, blk_status_to_errno(status));
		schedule_work(&sc->event_work);
	}
}

static void ssa_io_set_error(struct ssa_io *io, blk_status_t status)
{
	cmpxchg(&io->error, 0, (__force u32)status);
}

/* Drop one reference on the fork; the last one joins it. */
static void ssa_io_put(struct ssa_io *io)
{
	struct bio *parent;

	if (!atomic_dec_and_test(&io->pending))
		return;

	parent = dm_bio_from_per_bio_data(io, ssa_io_size(io->sc->nr_members));
	parent->bi_status = (__force blk_status_t)io->error;
	bio_endio(parent);
}

static void ssa_child_endio(struct bio *bio)
{
	struct ssa_child *c = to_child(bio);
	struct ssa_io *io = c->io;

	if (unlikely(bio->bi_status)) {
		ssa_member_error(io->sc, c->member, bio->bi_status, bio);
		ssa_io_set_error(io, bio->bi_status);
	}
	bio_put(bio);
	ssa_io_put(io);
}

static void ssa_child_init(struct ssa_io *io, struct bio *bio, unsigned int m)
{
	struct ssa_child *c = to_child(bio);

	c->io = io;
	c->member = m;
	bio->bi_end_io = ssa_child_endio;
	bio->bi_private = NULL;
}

/* A child that shares the parent's bvec table. */
static struct bio *ssa_clone(struct ssa_ctx *sc, struct ssa_io *io,
			     struct bio *parent, unsigned int m)
{
	struct bio *bio;

	bio = bio_alloc_clone(sc->members[m].dev->bdev, parent, GFP_NOIO,
			      &sc->bs);
	if (unlikely(!bio)) {
		ssa_io_set_error(io, BLK_STS_RESOURCE);
		return NULL;
	}
	ssa_child_init(io, bio, m);
	return bio;
}

static void ssa_issue(struct ssa_ctx *sc, struct ssa_io *io,
		      struct bio *parent, struct bio *child, unsigned int m,
		      u64 msector)
{
	child->bi_iter.bi_sector = sc->members[m].offset + msector;
	atomic_inc(&io->pending);
	io->nr_children++;
	ssa_submit_child(sc, parent, m, child);
}

/* An empty flush: every member flushes. */
static void ssa_fork_flush(struct ssa_ctx *sc, struct ssa_io *io,
			   struct bio *parent)
{
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++) {
		struct bio *child = ssa_clone(sc, io, parent, m);

		if (child)
			ssa_issue(sc, io, parent, child, m, 0);
	}
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
		child = ssa_clone(sc, io, parent, m);
		if (!child)
			continue;
		child->bi_iter.bi_size = (me - ms) << SECTOR_SHIFT;
		ssa_issue(sc, io, parent, child, m, ms);
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
		child = ssa_clone(sc, io, parent, e.member);
		if (!child)
			continue;
		bio_trim(child, ls - start, len);
		ssa_issue(sc, io, parent, child, e.member, e.msector);
	}
}

/* Single-page segments of the next @bytes of @parent at @it. */
static unsigned int ssa_count_bytes(struct bio *parent, struct bvec_iter *it,
				    unsigned int bytes)
{
	unsigned int nsegs = 0;

	while (bytes) {
		struct bio_vec bv = bio_iter_iovec(parent, *it);
		unsigned int n = min(bv.bv_len, bytes);

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
static u64 ssa_count_segs(struct ssa_ctx *sc, struct ssa_io *io,
			  struct bio *parent, u64 start, u64 end)
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
static bool ssa_gather(struct ssa_ctx *sc, struct bio *parent,
		       struct bio *child, unsigned int m, u64 start, u64 end)
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
			struct bio_vec bv = bio_iter_iovec(parent, it);
			unsigned int n = min(bv.bv_len, bytes);

			if (bio_add_page(child, bv.bv_page, n, bv.bv_offset) != n)
				return false;
			bio_advance_iter_single(parent, &it, n);
			bytes -= n;
		}
	}
	return true;
}

/* Logical sector of member sector @ms of member @m. */
static u64 ssa_member_first(struct ssa_ctx *sc, unsigned int m, u64 ms)
{
	const struct ssa_geom *g = &sc->geom;
	u32 off;
	u64 mchunk = ssa_chunk_index(g, ms, &off);

	return (mchunk * g->members + m) * g->chunk + off;
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

	end = ssa_count_segs(sc, io, parent, start, end);
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
			child = ssa_clone(sc, io, parent, m);
			if (!child)
				continue;
			bio_trim(child, ssa_member_first(sc, m, ms) - start,
				 me - ms);
			ssa_issue(sc, io, parent, child, m, ms);
			continue;
		}

		bdev = sc->members[m].dev->bdev;
		child = bio_alloc_bioset(bdev, io->segs[m], parent->bi_opf,
					 GFP_NOIO, &sc->bs);
		if (unlikely(!child)) {
			ssa_io_set_error(io, BLK_STS_RESOURCE);
			continue;
		}
		ssa_child_init(io, child, m);
		child->bi_ioprio = parent->bi_ioprio;
		if (unlikely(!ssa_gather(sc, parent, child, m, start, end) ||
			     bio_sectors(child) != me - ms)) {
			DMERR_LIMIT("member %u: could not build a %llu-sector child",
				    m, (unsigned long long)(me - ms));
			ssa_io_set_error(io, BLK_STS_RESOURCE);
			bio_put(child);
			continue;
		}
		ssa_issue(sc, io, parent, child, m, ms);
	}
}

static void ssa_fork_rw(struct ssa_ctx *sc, struct ssa_io *io,
			struct bio *parent, u64 start, u64 end)
{
	const struct ssa_geom *g = &sc->geom;
	u32 off;
	u64 chunks = ssa_chunk_index(g, end - 1, &off) -
		     ssa_chunk_index(g, start, &off) + 1;

	/* With no more chunks than members, each member has one piece. */
	if (!sc->coalesce || chunks <= sc->nr_members)
		ssa_fork_pieces(sc, io, parent, start, end);
	else
		ssa_fork_coalesced(sc, io, parent, start, end);
}

int ssa_map(struct dm_target *ti, struct bio *bio)
{
	struct ssa_ctx *sc = ti->private;
	struct ssa_io *io = ssa_io_of(sc, bio);
	u64 start = dm_target_offset(ti, bio->bi_iter.bi_sector);
	u64 end = start + bio_sectors(bio);
	int dir = ssa_data_dir(bio);
	struct ssa_extent e;

	io->sc = sc;
	io->error = 0;
	io->nr_children = 0;
	io->remapped = false;

	if (dir >= 0)
		this_cpu_inc(sc->stats->requests[dir]);
	else
		this_cpu_inc(sc->stats->other);

	if (unlikely(bio->bi_opf & REQ_PREFLUSH)) {
		/* DM core sends the data of a flush separately, after it. */
		atomic_set(&io->pending, 1);
		ssa_fork_flush(sc, io, bio);
		ssa_io_put(io);
		return DM_MAPIO_SUBMITTED;
	}

	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		atomic_set(&io->pending, 1);
		ssa_fork_extent(sc, io, bio, start, end);
		ssa_io_put(io);
		return DM_MAPIO_SUBMITTED;
	default:
		return DM_MAPIO_KILL;
	}

	sc->layout->map(&sc->geom, start, &e);
	if (likely(end - start <= e.len)) {
		/* Inside one chunk: the parent goes to the member itself. */
		io->remapped = true;
		io->member = e.member;
		bio_set_dev(bio, sc->members[e.member].dev->bdev);
		bio->bi_iter.bi_sector = sc->members[e.member].offset + e.msector;
		ssa_submit_child(sc, bio, e.member, bio);
		return DM_MAPIO_SUBMITTED;
	}

	atomic_set(&io->pending, 1);
	ssa_fork_rw(sc, io, bio, start, end);
	ssa_io_put(io);
	return DM_MAPIO_SUBMITTED;
}

int ssa_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error)
{
	struct ssa_ctx *sc = ti->private;
	struct ssa_io *io = ssa_io_of(sc, bio);

	/* A forked parent's children have been accounted one by one. */
	if (io->remapped && unlikely(*error))
		ssa_member_error(sc, io->member, *error, bio);
	return DM_ENDIO_DONE;
}
