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
 * neither recurses nor sleeps in completion context.
 */
#include <linux/blkdev.h>

#include "ssa-io.h"

/* The child state and request of any bio the dispatcher holds. */
struct ssa_cstate *ssa_cstate_of(struct ssa_ctx *sc, struct bio *bio,
				 struct ssa_io **io)
{
	if (bio->bi_pool == &sc->bs) {
		*io = to_child(bio)->io;
		return &to_child(bio)->cs;
	}
	*io = ssa_io_of(sc, bio);	/* a remapped parent */
	return &(*io)->cs;
}

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
static void ssa_dispatch(struct ssa_ctx *sc, struct bio *bio,
			 struct ssa_io *io, struct ssa_cstate *cs, bool from_map)
{
	this_cpu_inc(sc->members[cs->member].stats->dispatched[cs->class]);
	if (unlikely(cs->start_hook))
		sc->ops->started(bio);
	/* a remapped request is its own parent */
	if (io && from_map)
		dm_submit_bio_remap(io->remapped ? bio : ssa_parent_of(io), bio);
	else
		submit_bio_noacct(bio);
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

/* Dispatch waiting children while the member has free slots. */
void ssa_dispatch_work(struct work_struct *work)
{
	struct ssa_member *mb = container_of(work, struct ssa_member,
					     dispatch_work);
	struct ssa_ctx *sc = mb->sc;
	struct ssa_cstate *cs;
	struct ssa_io *io;
	struct bio *bio;
	unsigned int depth;
	u32 waiting;

	for (;;) {
		spin_lock_irq(&mb->lock);
		depth = READ_ONCE(sc->queue_depth);
		if (depth && mb->inflight >= depth)
			break;
		bio = bio_list_pop(&mb->queue[SSA_CLASS_HIGH]);
		if (!bio)
			bio = bio_list_pop(&mb->queue[SSA_CLASS_LOW]);
		if (!bio)
			break;
		cs = ssa_cstate_of(sc, bio, &io);
		mb->qlen[cs->class]--;
		waiting = mb->qlen[SSA_CLASS_HIGH] + mb->qlen[SSA_CLASS_LOW];
		mb->inflight++;
		cs->counted = true;
		ssa_trace_child_dispatch(sc, io, cs, waiting, true);
		spin_unlock_irq(&mb->lock);

		ssa_dispatch(sc, bio, io, cs, false);
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

