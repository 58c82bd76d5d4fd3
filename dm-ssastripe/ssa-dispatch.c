// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the member dispatchers.  Every child, and every parent
 * remapped whole to one member, reaches its member device through
 * ssa_submit_child() here, and its completion comes back through
 * ssa_child_done(); a member's I/O errors mark it failed here too.
 *
 * With queue_depth 0 (the default) a child goes straight to its member;
 * nothing is locked or queued.  With queue_depth D, each member keeps at
 * most D children dispatched; the others wait in two FIFOs, and when a
 * slot frees the head of the high-priority FIFO goes first (non-preemptive
 * priority; "priority off" puts every child in one FIFO).  A completion
 * never dispatches by itself: it kicks the member's work item, so dispatch
 * neither recurses nor sleeps in completion context.  With "merge on" the
 * work item sends the children that follow the one it dispatches in the
 * same FIFO, while each starts where the last ends on the member, as one
 * bio taking one slot (children of different requests: a sequential
 * stream's adjacent pieces, as a disk's elevator would merge them).
 */
#include <linux/blk-crypto.h>
#include <linux/blkdev.h>
#include <linux/slab.h>

#include "ssa-compat.h"
#include "ssa-io-trace.h"

/*
 * Send a child to its member device; its dispatch event was emitted by the
 * caller (under the member's lock where there is a queue, so that the
 * events of one member come in the order of its decisions).  From the map
 * path DM core is told (dm_submit_bio_remap() starts the request's
 * accounting, once); from the dispatcher's work item the child is
 * submitted plainly, since that one-time start must not race with the map
 * path.  A request all of whose children waited is accounted by DM core
 * when it completes.
 */
static void ssa_dispatch_start(struct ssa_ctx *sc, struct bio *bio,
			       struct ssa_cstate *cs)
{
	this_cpu_inc(sc->members[cs->member].stats->dispatched[cs->class]);
	if (unlikely(cs->start_hook))
		sc->ops->started(bio);
}

static void ssa_dispatch(struct ssa_ctx *sc, struct bio *bio,
			 struct ssa_io *io, struct ssa_cstate *cs, bool from_map)
{
	ssa_dispatch_start(sc, bio, cs);
	/* a remapped request is its own parent */
	if (io && from_map)
		dm_submit_bio_remap(io->remapped ? bio : ssa_parent_of(io), bio);
	else
		submit_bio_noacct(bio);
}

/* A child that may go to one of several places: the layout chooses now. */
static inline void ssa_place(struct ssa_ctx *sc, struct bio *bio,
			     struct ssa_cstate *cs)
{
	if (unlikely(cs->alts))
		sc->ops->place(sc, bio, cs, -1, NULL, NULL);
}

static void ssa_account_issue(struct ssa_member *mb, struct ssa_cstate *cs)
{
	switch (cs->op) {
	case SSA_OP_READ:
	case SSA_OP_WRITE:
		this_cpu_inc(mb->stats->children[cs->op]);
		this_cpu_add(mb->stats->sectors[cs->op], cs->len);
		break;
	default:
		this_cpu_inc(mb->stats->other);
	}
}

/* A child through a member whose queue_depth is bounded. */
static void ssa_submit_queued(struct ssa_ctx *sc, struct bio *bio,
			      struct ssa_io *io, struct ssa_cstate *cs,
			      bool from_map, unsigned int depth)
{
	struct ssa_member *mb = &sc->members[cs->member];
	unsigned long flags;
	u32 waiting;

	spin_lock_irqsave(&mb->lock, flags);
	waiting = mb->qlen[SSA_CLASS_HIGH] + mb->qlen[SSA_CLASS_LOW];
	ssa_trace_child_queue(sc, io, cs, waiting);
	if (!waiting && mb->inflight < depth) {
		mb->inflight++;
		cs->counted = true;
		ssa_place(sc, bio, cs);
		ssa_trace_child_dispatch(sc, io, cs, 0, false);
		spin_unlock_irqrestore(&mb->lock, flags);
		ssa_dispatch(sc, bio, io, cs, io && from_map);
		return;
	}
	bio_list_add(&mb->queue[READ_ONCE(sc->priority) ? cs->class :
				SSA_CLASS_LOW], bio);
	mb->qlen[cs->class]++;
	spin_unlock_irqrestore(&mb->lock, flags);

	/* queue_depth may have been raised or cleared meanwhile */
	if (unlikely(READ_ONCE(sc->queue_depth) != depth))
		queue_work(sc->wq, &mb->dispatch_work);
}

/*
 * Every child, and every remapped parent, reaches its member here.
 * @from_map: called from the target's map function (see ssa_dispatch()).
 * With queue_depth 0 this is a few counters and the submission.
 */
void ssa_submit_child(struct ssa_ctx *sc, struct bio *bio, struct ssa_io *io,
		      struct ssa_cstate *cs, bool from_map)
{
	unsigned int depth = READ_ONCE(sc->queue_depth);

	if (io)
		ssa_account_issue(&sc->members[cs->member], cs);
	cs->counted = false;
	if (depth) {
		ssa_submit_queued(sc, bio, io, cs, from_map, depth);
		return;
	}
	ssa_trace_child_queue(sc, io, cs, 0);
	ssa_place(sc, bio, cs);
	ssa_trace_child_dispatch(sc, io, cs, 0, false);
	ssa_dispatch(sc, bio, io, cs, io && from_map);
}

/*
 * The next bio of a unit of service that already holds its member (a
 * parity-layout task): no queueing, the slot passes on with cs->counted.
 */
void ssa_submit_held(struct ssa_ctx *sc, struct bio *bio, struct ssa_io *io,
		     struct ssa_cstate *cs)
{
	if (io)
		ssa_account_issue(&sc->members[cs->member], cs);
	ssa_trace_child_queue(sc, io, cs, 0);
	ssa_trace_child_dispatch(sc, io, cs, 0, false);
	ssa_dispatch(sc, bio, io, cs, false);
}

/*
 * Merging ("merge on").  The children sent as one are kept on @parts, in
 * member order; the merged bio points at their data vectors (no copy) and
 * completes each of them, with its own status, when it completes.
 */
#define SSA_MERGE_MAX_SECTORS	2048	/* 1 MiB a merged bio */

struct ssa_merged {
	struct bio_list parts;
	struct bio_vec *vecs;	/* after the struct, in the same allocation */
	struct bio bio;		/* must be last */
};

static bool ssa_same_blkg(struct bio *a, struct bio *b)
{
#ifdef CONFIG_BLK_CGROUP
	return a->bi_blkg == b->bi_blkg;
#else
	return true;
#endif
}

static unsigned int ssa_nr_bvecs(struct bio *bio)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned int n = 0;

	bio_for_each_bvec(bv, bio, iter)
		n++;
	return n;
}

/* May @next go out in one bio with @head, which the merge has reached @end? */
static bool ssa_mergeable(struct bio *head, struct bio *next, sector_t end,
			  unsigned int sectors, unsigned int *vecs)
{
	unsigned int n;

	if (next->bi_iter.bi_sector != end || next->bi_bdev != head->bi_bdev ||
	    next->bi_opf != head->bi_opf || next->bi_ioprio != head->bi_ioprio ||
	    bio_integrity(next) || bio_has_crypt_ctx(next) ||
	    !ssa_same_blkg(head, next) ||
	    sectors + bio_sectors(next) > SSA_MERGE_MAX_SECTORS)
		return false;
	n = ssa_nr_bvecs(next);
	if (*vecs + n > BIO_MAX_VECS)
		return false;
	*vecs += n;
	return true;
}

/* Only plain reads and writes of data merge. */
static bool ssa_merge_head(struct bio *bio)
{
	return (bio_op(bio) == REQ_OP_READ || bio_op(bio) == REQ_OP_WRITE) &&
	       !(bio->bi_opf & REQ_PREFLUSH) && bio_sectors(bio) &&
	       !bio_integrity(bio) && !bio_has_crypt_ctx(bio);
}

static void ssa_merged_endio(struct bio *bio)
{
	struct ssa_merged *mg = container_of(bio, struct ssa_merged, bio);
	struct bio *part;

	while ((part = bio_list_pop(&mg->parts))) {
		part->bi_status = bio->bi_status;
		bio_endio(part);
	}
	bio_uninit(bio);
	kfree(mg);
}

/*
 * Send @parts (more than one child, the first holding the member's slot)
 * as one bio of @vecs vectors.  If it cannot be allocated they go one by
 * one, each given a slot of its own.
 */
static void ssa_dispatch_merged(struct ssa_ctx *sc, struct ssa_member *mb,
				struct bio_list *parts, unsigned int vecs)
{
	struct bio *head = bio_list_peek(parts);
	struct ssa_merged *mg;
	struct bvec_iter iter;
	struct ssa_cstate *cs;
	struct bio_vec bv;
	struct ssa_io *io;
	struct bio *part;
	unsigned int n = 0;

	mg = kmalloc(sizeof(*mg) + vecs * sizeof(struct bio_vec),
		     GFP_NOIO | __GFP_NORETRY | __GFP_NOWARN);
	if (!mg) {
		spin_lock_irq(&mb->lock);
		mb->inflight += bio_list_size(parts) - 1;
		spin_unlock_irq(&mb->lock);
		while ((part = bio_list_pop(parts))) {
			cs = ssa_cstate_of(sc, part, &io);
			cs->counted = true;
			ssa_dispatch(sc, part, io, cs, false);
		}
		return;
	}
	mg->vecs = (struct bio_vec *)(mg + 1);
	bio_init(&mg->bio, head->bi_bdev, mg->vecs, vecs, head->bi_opf);
	mg->bio.bi_iter.bi_sector = head->bi_iter.bi_sector;
	mg->bio.bi_ioprio = head->bi_ioprio;
	mg->bio.bi_end_io = ssa_merged_endio;
	bio_clone_blkg_association(&mg->bio, head);
	bio_list_for_each(part, parts) {
		cs = ssa_cstate_of(sc, part, &io);
		ssa_dispatch_start(sc, part, cs);
		bio_for_each_bvec(bv, part, iter)
			mg->vecs[n++] = bv;
		mg->bio.bi_iter.bi_size += part->bi_iter.bi_size;
	}
	mg->bio.bi_vcnt = n;
	mg->parts = *parts;
	submit_bio_noacct(&mg->bio);
}

/*
 * Under the member's lock: move the children that may go out with @head
 * (just taken from @q, holding the slot) from the head of @q onto @parts,
 * each dispatched as far as the queues and the trace are concerned.
 * Returns false, @parts unused, when none may.
 */
static bool ssa_take_merges(struct ssa_ctx *sc, struct ssa_member *mb,
			    struct bio_list *q, struct bio *head,
			    struct bio_list *parts, unsigned int *vecs)
{
	unsigned int sectors = bio_sectors(head);
	struct ssa_cstate *cs;
	struct ssa_io *io;
	struct bio *next;
	u32 waiting;

	if (sectors >= SSA_MERGE_MAX_SECTORS)
		return false;
	*vecs = ssa_nr_bvecs(head);
	bio_list_init(parts);
	/* a child still to be placed is no neighbour of anything yet */
	while ((next = bio_list_peek(q)) &&
	       !ssa_cstate_of(sc, next, &io)->alts &&
	       ssa_mergeable(head, next, head->bi_iter.bi_sector + sectors,
			     sectors, vecs)) {
		if (bio_list_empty(parts))
			bio_list_add(parts, head);
		bio_list_pop(q);
		cs = ssa_cstate_of(sc, next, &io);
		mb->qlen[cs->class]--;
		cs->counted = false;
		waiting = mb->qlen[SSA_CLASS_HIGH] + mb->qlen[SSA_CLASS_LOW];
		ssa_trace_child_dispatch(sc, io, cs, waiting, true);
		bio_list_add(parts, next);
		sectors += bio_sectors(next);
	}
	return !bio_list_empty(parts);
}

/* Dispatch waiting children while the member has free slots. */
void ssa_dispatch_work(struct work_struct *work)
{
	struct ssa_member *mb = container_of(work, struct ssa_member,
					     dispatch_work);
	struct ssa_ctx *sc = mb->sc;
	struct bio_list parts, *q;
	struct ssa_cstate *cs;
	unsigned int depth, vecs;
	struct ssa_io *io;
	struct bio *bio;
	u32 waiting;

	for (;;) {
		spin_lock_irq(&mb->lock);
		depth = READ_ONCE(sc->queue_depth);
		if (depth && mb->inflight >= depth)
			break;
		q = &mb->queue[SSA_CLASS_HIGH];
		if (bio_list_empty(q))
			q = &mb->queue[SSA_CLASS_LOW];
		if (bio_list_empty(q))
			break;
		bio = ssa_sched_pop(sc, mb, q);
		cs = ssa_cstate_of(sc, bio, &io);
		mb->qlen[cs->class]--;
		waiting = mb->qlen[SSA_CLASS_HIGH] + mb->qlen[SSA_CLASS_LOW];
		mb->inflight++;
		cs->counted = true;
		ssa_place(sc, bio, cs);
		ssa_trace_child_dispatch(sc, io, cs, waiting, true);
		if (READ_ONCE(sc->merge) && ssa_merge_head(bio) &&
		    ssa_take_merges(sc, mb, q, bio, &parts, &vecs)) {
			spin_unlock_irq(&mb->lock);
			ssa_dispatch_merged(sc, mb, &parts, vecs);
		} else {
			spin_unlock_irq(&mb->lock);
			ssa_dispatch(sc, bio, io, cs, false);
		}
		cond_resched();
	}
	spin_unlock_irq(&mb->lock);
}

void ssa_kick_members(struct ssa_ctx *sc)
{
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++)
		queue_work(sc->wq, &sc->members[m].dispatch_work);
}

/*
 * Is a child's error a fault of its member (not an unsupported op, or a
 * hint that failed)?
 */
bool ssa_member_fault(blk_status_t status, struct bio *bio)
{
	return status != BLK_STS_NOTSUPP && status != BLK_STS_AGAIN &&
	       !(bio && bio->bi_opf & REQ_RAHEAD);
}

void ssa_member_error(struct ssa_ctx *sc, unsigned int m, blk_status_t status,
		      struct bio *bio)
{
	struct ssa_member *mb = &sc->members[m];

	if (!ssa_member_fault(status, bio))
		return;

	atomic_inc(&mb->errors);
	if (!test_and_set_bit(SSA_MEMBER_FAILED, &mb->flags)) {
		DMERR("%s: member %u (%s) failed: I/O error %d",
		      dm_device_name(dm_table_get_md(sc->ti->table)), m,
		      mb->dev->name, blk_status_to_errno(status));
		schedule_work(&sc->event_work);
	}
}

/* Message "fail <m>": mark the member failed, once, with a log line. */
void ssa_member_fail(struct ssa_ctx *sc, unsigned int m)
{
	struct ssa_member *mb = &sc->members[m];

	if (!test_and_set_bit(SSA_MEMBER_FAILED, &mb->flags)) {
		DMERR("%s: member %u (%s) failed: by message",
		      dm_device_name(dm_table_get_md(sc->ti->table)), m,
		      mb->dev->name);
		schedule_work(&sc->event_work);
	}
}

/*
 * The member device completed a child; it keeps its dispatch slot.  Shared
 * by ssa_child_done() and ssa_child_done_held() (a parity task's bio that
 * passes its slot on).
 */
static __always_inline void __ssa_child_done_held(struct ssa_ctx *sc,
						  struct bio *bio,
						  struct ssa_io *io,
						  struct ssa_cstate *cs,
						  blk_status_t status)
{
	struct ssa_member *mb = &sc->members[cs->member];

	this_cpu_inc(mb->stats->completed);
	ssa_trace_child_complete(sc, io, cs, status);
	if (unlikely(status))
		ssa_member_error(sc, cs->member, status, bio);
}

void ssa_child_done_held(struct ssa_ctx *sc, struct bio *bio,
			 struct ssa_io *io, struct ssa_cstate *cs,
			 blk_status_t status)
{
	__ssa_child_done_held(sc, bio, io, cs, status);
}

/* Free a dispatch slot of member @m (any context). */
void ssa_slot_put(struct ssa_ctx *sc, unsigned int m)
{
	struct ssa_member *mb = &sc->members[m];
	unsigned long flags;
	bool kick;

	spin_lock_irqsave(&mb->lock, flags);
	mb->inflight--;
	kick = !bio_list_empty(&mb->queue[SSA_CLASS_HIGH]) ||
	       !bio_list_empty(&mb->queue[SSA_CLASS_LOW]);
	spin_unlock_irqrestore(&mb->lock, flags);
	if (kick)
		queue_work(sc->wq, &mb->dispatch_work);
}

/* The member device completed a child (any context). */
void ssa_child_done(struct ssa_ctx *sc, struct bio *bio, struct ssa_io *io,
		    struct ssa_cstate *cs, blk_status_t status)
{
	__ssa_child_done_held(sc, bio, io, cs, status);
	if (cs->counted)
		ssa_slot_put(sc, cs->member);
}
