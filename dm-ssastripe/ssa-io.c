// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the core of the I/O path -- the target's map and end_io,
 * fork and join bookkeeping, children and their completion, and the
 * one-chunk fast path.  The layouts decide how a request is forked
 * (sc->ops->map; ssa-stripe.c, ssa-mirror.c, ssa-parity.c) and build
 * their children with the helpers here; the children reach their members
 * through the dispatchers (ssa-dispatch.c), and the tracepoints' request
 * records live in ssa-io-trace.c.
 *
 * DM core hands the target each logical request (the parent) whole: the
 * target sets no max_io_len, so nothing is cut at chunk boundaries before it
 * gets here.  The parent is forked into children, each child goes through
 * its member's dispatcher to the member device, and the parent is joined
 * when the last child completes, with the first error any child saw (and
 * the layout's join hook, if it has one).
 *
 * A request of the stripe layout inside one chunk needs no fork at all
 * when no dispatcher queues (ssa_map_fast()): the parent is remapped to
 * its member and costs no allocation.
 */
#include <linux/blkdev.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/slab.h>

#include "ssa-io-trace.h"

u8 ssa_op_of(struct bio *bio)
{
	if (op_is_flush(bio->bi_opf) && !bio_sectors(bio))
		return SSA_OP_FLUSH;
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return SSA_OP_READ;
	case REQ_OP_WRITE:
		return SSA_OP_WRITE;
	case REQ_OP_DISCARD:
		return SSA_OP_DISCARD;
	case REQ_OP_WRITE_ZEROES:
		return SSA_OP_WRITE_ZEROES;
	default:
		return SSA_OP_OTHER;
	}
}

/*
 * Unique per device: CPU c's counter starts at c (ssa_alloc_stats()) and
 * steps by nr_cpu_ids, so the CPUs' ids interleave and never meet.  One
 * preemption-safe per-CPU add; no need to pin the CPU.
 */
static inline u64 ssa_next_id(struct ssa_ctx *sc)
{
	return this_cpu_add_return(*sc->req_seq, nr_cpu_ids);
}

void ssa_io_set_error(struct ssa_io *io, blk_status_t status)
{
	cmpxchg(&io->error, 0, (__force u32)status);
}

/* Drop one reference on the fork; the last one joins it. */
void ssa_io_put(struct ssa_io *io)
{
	struct bio *parent;

	if (!atomic_dec_and_test(&io->pending))
		return;

	if (io->sc->ops->join)
		io->sc->ops->join(io);

	parent = ssa_parent_of(io);
	parent->bi_status = (__force blk_status_t)io->error;
	ssa_trace_join(io, parent->bi_status);
	bio_endio(parent);
}

static void ssa_child_endio(struct bio *bio)
{
	struct ssa_child *c = to_child(bio);
	struct ssa_io *io = c->io;

	ssa_child_done(c->sc, bio, io, &c->cs, bio->bi_status);
	if (unlikely(bio->bi_status)) {
		/* a layout may serve a failed read from the others */
		if (c->cs.op == SSA_OP_READ && c->sc->ops->retry_read &&
		    c->sc->ops->retry_read(c->sc, bio, bio->bi_status, true))
			return;
		ssa_io_set_error(io, bio->bi_status);
	}
	bio_put(bio);
	ssa_io_put(io);
}

void ssa_child_init(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		    unsigned int m, u64 msector)
{
	struct ssa_child *c = to_child(bio);

	c->sc = sc;
	c->io = io;
	ssa_cstate_set(&c->cs, m, msector, 0, 0, SSA_CLASS_LOW, SSA_OP_OTHER);
	bio->bi_end_io = ssa_child_endio;
	bio->bi_private = NULL;
}

/* A child that shares the parent's bvec table. */
struct bio *ssa_clone(struct ssa_ctx *sc, struct ssa_io *io,
		      struct bio *parent, unsigned int m, u64 msector)
{
	struct bio *bio;

	bio = bio_alloc_clone(sc->members[m].dev->bdev, parent, GFP_NOIO,
			      &sc->bs);
	if (unlikely(!bio)) {
		ssa_io_set_error(io, BLK_STS_RESOURCE);
		return NULL;
	}
	ssa_child_init(sc, io, bio, m, msector);
	return bio;
}

/*
 * Send a built child: its sector and size are final.  @from_map: issued
 * from the target's map (else from a work item that took the request over).
 */
void ssa_issue_from(struct ssa_ctx *sc, struct ssa_io *io, struct bio *child,
		    bool from_map)
{
	struct ssa_cstate *cs = &to_child(child)->cs;

	child->bi_iter.bi_sector = sc->members[cs->member].offset + cs->msector;
	cs->len = bio_sectors(child);
	cs->op = ssa_op_of(child);
	cs->idx = io->nr_children++;
	to_child(child)->iter = child->bi_iter;
	atomic_inc(&io->pending);
	ssa_submit_child(sc, child, io, cs, from_map);
}

void ssa_issue(struct ssa_ctx *sc, struct ssa_io *io, struct bio *child)
{
	ssa_issue_from(sc, io, child, true);
}

void ssa_fork_begin(struct ssa_ctx *sc, struct ssa_io *io, u8 op, u64 start,
		    u64 end, u32 nr_children)
{
	atomic_set(&io->pending, 1);
	ssa_trace_fork(sc, io, op, start, end - start, nr_children);
}

/*
 * The record of a request ssa_map_fast() remaps while records are on.
 * It has one child, the request itself, queued and dispatched as it
 * forks, so the record is filled in whole here but for the completion,
 * and it lives in the request's per-bio data: no record to take from the
 * cache or give back, nothing to allocate, one clock read.  io->cs is
 * set.
 */
static __always_inline void ssa_trace_rec1_start(struct ssa_ctx *sc,
						 struct ssa_io *io, u8 op,
						 u64 start, u32 len)
{
	struct ssa_trace_req *rec = ssa_io_rec1(io);
	struct ssa_trace_child *c = &rec->child[0];
	u64 now = ktime_get_ns();

	io->id = ssa_next_id(sc);
	io->nr_children = 1;
	rec->id = io->id;
	rec->sector = start;
	rec->fork_ns = now;
	rec->dev = sc->devt;
	rec->len = len;
	rec->nr_children = 1;
	rec->nr_slots = 1;
	rec->op = op;
	rec->version = SSA_TRACE_REC_VERSION;
	rec->pad[0] = 0;
	rec->pad[1] = 0;
	memcpy(rec->comm, current->comm, sizeof(rec->comm));
	c->id = 0;		/* the child's once it completes */
	c->queued_ns = now;
	c->dispatched_ns = now;
	c->msector = io->cs.msector;
	c->len = len;
	c->qlen = 0;
	c->member = io->cs.member;
	c->class = io->cs.class;
	c->op = op;
	io->rec = rec;
}

/*
 * The completion of a request with a per-bio record, when nothing but
 * its two record events follow it (no slot held, no child complete or
 * join event): the general path's steps for it, in one place and in the
 * same order (__ssa_child_done_held(), ssa_trace_rec_finish()).  Calling
 * those two instead costs some 60 instructions a request, the whole
 * general path some 75 (bench/README.md, 2026-11-26 later).  @bio is the
 * request's clone.
 */
static noinline void ssa_end_io_rec1(struct ssa_ctx *sc, struct bio *bio,
				     struct ssa_io *io, blk_status_t error)
{
	struct ssa_trace_req *rec = io->rec;
	struct ssa_trace_child *c = &rec->child[0];
	unsigned int m = io->cs.member;
	int err = 0;

	this_cpu_inc(sc->members[m].stats->completed);
	if (unlikely(error))
		err = blk_status_to_errno(error);
	__ssa_trace_completed(io, c, err);
	if (unlikely(error))
		ssa_member_error(sc, m, error, bio);
	rec->join_ns = c->completed_ns;	/* joined in its child's completion */
	rec->status = err;
	io->rec = NULL;
	trace_ssastripe_request(sc->devt, io->id, rec->op, err, 1, rec);
	trace_ssastripe_record((union ssa_trace_rec_head *)rec);
}

/*
 * The clone DM core hands a target is the target's until it completes, its
 * bi_private included: DM core neither sets nor reads it (dm-bio-record.h
 * lets targets hook it).  A request ssa_map_fast() remaps while no event
 * would follow it to its completion carries its member there, as
 * member + 1, and nothing in its per-bio data: ssa_end_io() reads the tag,
 * and per-bio data only when there is none.
 */
static inline void ssa_fast_tag_set(struct bio *bio, unsigned int member)
{
	bio->bi_private = (void *)(uintptr_t)(member + 1);
}

/*
 * The member of a tagged request, or -1: ssa_map_fast() set no tag.  A
 * value no tag can have is not taken for one.
 */
static inline int ssa_fast_tag(struct bio *bio)
{
	uintptr_t m = (uintptr_t)bio->bi_private - 1;

	return m < SSA_MAX_MEMBERS ? (int)m : -1;
}

/*
 * The request dm-stripe sets the pace for: a read or a write inside one
 * chunk of a stripe volume, with queue_depth 0 and none of the events a
 * map emits (fork, child queue and dispatch) enabled.  The parent is
 * remapped to its member and handed back to DM core, which submits it,
 * after the counters the general path below would have bumped: one,
 * remapped[op], stands for the request, its child and the child's
 * dispatch (ssa_sum_member()).
 *
 * With no completion event enabled either (child complete, join,
 * ssastripe_request, ssastripe_record), nothing about the request is kept
 * but the tag above.  Otherwise its per-bio state is what ssa_end_io()
 * reads of a remapped request (io->remapped, io->cs, io->rec), and unless
 * it has a record its id is drawn only if an event at its completion
 * needs it.
 * Anything else is left to ssa_map_general().
 */
static __always_inline bool ssa_map_fast(struct ssa_ctx *sc, struct bio *bio,
					 u64 start, u32 len, u8 op)
{
	bool events = static_branch_unlikely(&ssa_events_on);
	struct ssa_member_stats __percpu *ms;
	struct ssa_member *mb;
	struct ssa_extent e;
	struct ssa_io *io;

	if (!READ_ONCE(sc->fast_map))
		return false;
	if (events && (trace_ssastripe_fork_enabled() ||
		       trace_ssastripe_child_queue_enabled() ||
		       trace_ssastripe_child_dispatch_enabled()))
		return false;
	__ssa_stripe_map(&sc->geom, start, &e);
	if (unlikely(len > e.len))
		return false;

	mb = &sc->members[e.member];
	ms = mb->stats;
	this_cpu_inc(ms->remapped[op]);
	this_cpu_add(ms->sectors[op], len);
	if (likely(!events) ||
	    (!ssa_trace_records_on() &&
	     !trace_ssastripe_child_complete_enabled() &&
	     !trace_ssastripe_join_enabled())) {
		ssa_fast_tag_set(bio, e.member);
	} else {
		io = ssa_io_of(sc, bio);
		io->sc = sc;
		io->rec = NULL;
		io->remapped = true;
		io->cs = (struct ssa_cstate) {
			.msector = e.msector,
			.len = len,
			.member = e.member,
			.class = SSA_CLASS_LOW,
			.op = op,
		};
		if (ssa_trace_records_on())
			ssa_trace_rec1_start(sc, io, op, start, len);
		else
			io->id = 0;	/* drawn if an event needs it: ssa_end_io() */
	}
	bio->bi_iter.bi_sector = mb->offset + e.msector;
	bio_set_dev(bio, mb->dev->bdev);
	return true;
}

/* Every other request: forks, flushes, discards, mirror and parity. */
static noinline int ssa_map_general(struct ssa_ctx *sc, struct ssa_io *io,
				    struct bio *bio, u64 start, u8 op)
{
	u64 end = start + bio_sectors(bio);

	io->id = ssa_next_id(sc);
	io->error = 0;
	io->nr_children = 0;
	io->remapped = false;
	io->pop = NULL;
	io->iter = bio->bi_iter;

	switch (op) {
	case SSA_OP_READ:
	case SSA_OP_WRITE:
		this_cpu_inc(sc->stats->requests[op]);
		break;
	case SSA_OP_FLUSH:
	case SSA_OP_DISCARD:
	case SSA_OP_WRITE_ZEROES:
		this_cpu_inc(sc->stats->other);
		break;
	default:
		return DM_MAPIO_KILL;
	}

	/* the stripe layout is the common one: no retpoline for it */
	return INDIRECT_CALL_1(sc->ops->map, ssa_map_data, sc, io, bio, op,
			       start, end);
}

/*
 * A request inside one chunk, or the part of one a layout keeps on one
 * member: the parent itself goes to the member at @e.
 */
void ssa_remap_parent(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		      u8 op, u64 start, u64 end, const struct ssa_extent *e)
{
	struct ssa_cstate *cs = &io->cs;

	ssa_trace_fork(sc, io, op, start, end - start, 1);
	io->remapped = true;
	io->nr_children = 1;
	ssa_cstate_set(cs, e->member, e->msector, end - start, 0,
		       SSA_CLASS_LOW, op);
	bio_set_dev(bio, sc->members[e->member].dev->bdev);
	bio->bi_iter.bi_sector = sc->members[e->member].offset + e->msector;
	ssa_submit_child(sc, bio, io, cs, true);
}

int ssa_map(struct dm_target *ti, struct bio *bio)
{
	struct ssa_ctx *sc = ti->private;
	u64 start = dm_target_offset(ti, bio->bi_iter.bi_sector);
	u8 op = ssa_op_of(bio);
	struct ssa_io *io;

	if (op <= SSA_OP_WRITE &&
	    ssa_map_fast(sc, bio, start, bio_sectors(bio), op))
		return DM_MAPIO_REMAPPED;
	io = ssa_io_of(sc, bio);
	io->sc = sc;
	io->rec = NULL;
	return ssa_map_general(sc, io, bio, start, op);
}

/* A remapped request that failed, held a slot or is traced. */
static noinline int ssa_end_io_remapped(struct ssa_ctx *sc, struct bio *bio,
					struct ssa_io *io, blk_status_t *error)
{
	if (!io->id)		/* from ssa_map_fast() */
		io->id = ssa_next_id(sc);
	ssa_child_done(sc, bio, io, &io->cs, *error);
	if (unlikely(*error) && io->cs.op == SSA_OP_READ &&
	    sc->ops->retry_read && sc->ops->retry_read(sc, bio, *error, false))
		return DM_ENDIO_INCOMPLETE;	/* rebuilt, then ended */
	ssa_trace_join(io, *error);
	return DM_ENDIO_DONE;
}

/* A tagged request (ssa_map_fast()) that failed. */
static noinline void ssa_end_io_tagged_error(struct ssa_ctx *sc,
					     struct bio *bio, unsigned int m,
					     blk_status_t error)
{
	this_cpu_inc(sc->members[m].stats->completed);
	ssa_member_error(sc, m, error, bio);
}

int ssa_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error)
{
	struct ssa_ctx *sc = ti->private;
	int m = ssa_fast_tag(bio);
	struct ssa_io *io;

	/* Remapped with no event to follow it: nothing to do but count. */
	if (likely(m >= 0)) {
		if (likely(!*error))
			this_cpu_inc(sc->members[m].stats->completed);
		else
			ssa_end_io_tagged_error(sc, bio, m, *error);
		return DM_ENDIO_DONE;
	}

	io = ssa_io_of(sc, bio);
	/* A forked parent was joined in ssa_io_put(). */
	if (!io->remapped)
		return DM_ENDIO_DONE;
	/* A per-bio record and nothing else to follow the request. */
	if (io->rec == ssa_io_rec1(io) && !io->cs.counted &&
	    !trace_ssastripe_child_complete_enabled() &&
	    !trace_ssastripe_join_enabled()) {
		ssa_end_io_rec1(sc, bio, io, *error);
		return DM_ENDIO_DONE;
	}
	/*
	 * No error, no dispatch slot, no record and no completion event:
	 * all that ssa_child_done() and ssa_trace_join() would do is count.
	 */
	if (likely(!*error && !io->cs.counted && !io->rec) &&
	    !trace_ssastripe_child_complete_enabled() &&
	    !trace_ssastripe_join_enabled()) {
		this_cpu_inc(sc->members[io->cs.member].stats->completed);
		return DM_ENDIO_DONE;
	}
	return ssa_end_io_remapped(sc, bio, io, error);
}
