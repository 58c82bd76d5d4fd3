// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the core of the I/O path -- fork and join bookkeeping,
 * children, the member dispatchers, completion, and the request records
 * of the tracepoints.  The layouts decide how a request is forked
 * (sc->ops->map; ssa-stripe.c, ssa-mirror.c, ssa-parity.c) and build
 * their children with the helpers here.
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
 *
 * Dispatcher: with queue_depth 0 (the default) a child goes straight to its
 * member; nothing is locked or queued.  With queue_depth D, each member
 * keeps at most D children dispatched; the others wait in two FIFOs, and
 * when a slot frees the head of the high-priority FIFO goes first
 * (non-preemptive priority; "priority off" puts every child in one FIFO).
 * A completion never dispatches by itself: it kicks the member's work item,
 * so dispatch neither recurses nor sleeps in completion context.
 */
#include <linux/blkdev.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"

#define CREATE_TRACE_POINTS
#include "ssa-trace.h"

/* On while any ssastripe event has a probe (ssa-trace.h). */
static DEFINE_STATIC_KEY_FALSE(ssa_events_on);

int ssa_trace_reg(void)
{
	static_branch_inc(&ssa_events_on);
	return 0;
}

void ssa_trace_unreg(void)
{
	static_branch_dec(&ssa_events_on);
}

/*
 * Whether a request keeps a record for its join: while either event that
 * hands records out has a probe.
 */
static __always_inline bool ssa_trace_records_on(void)
{
	return trace_ssastripe_request_enabled() ||
	       trace_ssastripe_record_enabled();
}

/* The member device and the child's sector on it, for the child events. */
static inline dev_t ssa_trace_mdev(struct ssa_ctx *sc, struct ssa_cstate *cs)
{
	return sc->members[cs->member].dev->bdev->bd_dev;
}

static inline u64 ssa_trace_bsector(struct ssa_ctx *sc, struct ssa_cstate *cs)
{
	return sc->members[cs->member].offset + cs->msector;
}

/*
 * Request records (ssastripe_request, ssastripe_record): while either
 * event is enabled, a request that forks gets a record (allocated then, so
 * that untraced requests carry nothing; a request ssa_map_fast() remaps
 * has one in its per-bio data instead), its children write their times
 * into their own slots, and the join hands the record to the events,
 * ssastripe_record last, and releases it.  The join reads the slots after
 * the last child's reference is dropped, so no lock is needed.
 */
static inline bool ssa_io_traced(const struct ssa_io *io)
{
	return unlikely(io && io->rec);
}

/* A traced request's slot for @cs, if it has one (callers test first). */
static struct ssa_trace_child *ssa_trace_slot(struct ssa_io *io,
					      struct ssa_cstate *cs)
{
	if (cs->idx >= io->sc->trace_slots)
		return NULL;
	return &io->rec->child[cs->idx];
}

static void ssa_trace_queued(struct ssa_io *io, struct ssa_cstate *cs)
{
	struct ssa_trace_child *tc = ssa_trace_slot(io, cs);

	if (!tc)
		return;
	/* a remapped request is queued as it forks: one clock read less */
	tc->queued_ns = io->remapped ? io->rec->fork_ns : ktime_get_ns();
	tc->msector = cs->msector;
	tc->len = cs->len;
	tc->member = cs->member;
	tc->class = cs->class;
	tc->op = cs->op;
}

/* A child that never waited was dispatched when it was queued. */
static void ssa_trace_dispatched(struct ssa_io *io, struct ssa_cstate *cs,
				 u32 qlen, bool waited)
{
	struct ssa_trace_child *tc = ssa_trace_slot(io, cs);

	if (!tc)
		return;
	tc->dispatched_ns = waited ? ktime_get_ns() : tc->queued_ns;
	tc->qlen = qlen;
}

/* A child's slot is the request's once its completion is in. */
static __always_inline void __ssa_trace_completed(struct ssa_io *io,
						  struct ssa_trace_child *tc,
						  int status)
{
	tc->completed_ns = ktime_get_ns();
	tc->status = status;
	tc->id = io->id;
}

static void ssa_trace_completed(struct ssa_io *io, struct ssa_cstate *cs,
				int status)
{
	struct ssa_trace_child *tc = ssa_trace_slot(io, cs);

	if (tc)
		__ssa_trace_completed(io, tc, status);
}

/*
 * A record for a fork: one a join on this CPU left behind, or a new one.
 * The cache is a row of pointers that this_cpu_cmpxchg() takes and fills
 * one at a time, so neither side masks interrupts (a join may run in
 * one).  A fork that moved to another CPU between the read and the
 * exchange fails the exchange or takes a record that was free there:
 * either is fine.  Taken without sleeping or dipping into reserves: under
 * memory pressure a request goes untraced, and the log says so.
 */
static struct ssa_trace_req *ssa_trace_rec_get(struct ssa_ctx *sc)
{
	struct ssa_trace_req *rec;
	unsigned int i;

	for (i = 0; i < SSA_TRACE_CACHE; i++) {
		rec = this_cpu_read(sc->trace_cache->rec[i]);
		if (rec && this_cpu_cmpxchg(sc->trace_cache->rec[i], rec, NULL) == rec)
			return rec;
	}
	/* zeroed: a slot no child of a request fills holds no old memory */
	return kzalloc(ssa_trace_rec_size(sc->trace_slots),
		       GFP_NOWAIT | __GFP_NOWARN);
}

static void ssa_trace_rec_put(struct ssa_ctx *sc, struct ssa_trace_req *rec)
{
	unsigned int i;

	for (i = 0; i < SSA_TRACE_CACHE; i++)
		if (!this_cpu_read(sc->trace_cache->rec[i]) &&
		    !this_cpu_cmpxchg(sc->trace_cache->rec[i], NULL, rec))
			return;
	kfree(rec);
}

/* At the target's end, when no request is left. */
void ssa_trace_cache_free(struct ssa_ctx *sc)
{
	unsigned int i;
	int cpu;

	if (!sc->trace_cache)
		return;
	for_each_possible_cpu(cpu) {
		struct ssa_trace_cache *c = per_cpu_ptr(sc->trace_cache, cpu);

		for (i = 0; i < SSA_TRACE_CACHE; i++)
			kfree(c->rec[i]);
	}
	free_percpu(sc->trace_cache);
	sc->trace_cache = NULL;
}

/*
 * A record for a request that forks while records are on.
 * @nr_clear: the slots that may be read at the join (see below).
 */
static void ssa_trace_rec_start(struct ssa_ctx *sc, struct ssa_io *io, u8 op,
				u64 start, u32 len, u32 nr_children,
				unsigned int nr_clear)
{
	struct ssa_trace_req *rec;
	unsigned int i;

	/* a request forks once; the test keeps a record from leaking if not */
	if (io->rec)
		return;
	rec = ssa_trace_rec_get(sc);
	if (unlikely(!rec)) {
		DMWARN_LIMIT("%s: no memory for a request record: request %llu not traced",
			     dm_device_name(dm_table_get_md(sc->ti->table)),
			     io->id);
		return;
	}
	rec->fork_ns = ktime_get_ns();
	rec->id = io->id;
	rec->sector = start;
	rec->dev = sc->devt;
	rec->len = len;
	rec->nr_children = nr_children;
	rec->op = op;
	rec->version = SSA_TRACE_REC_VERSION;
	rec->pad[0] = 0;	/* zero in every record, whatever it held */
	rec->pad[1] = 0;
	memcpy(rec->comm, current->comm, sizeof(rec->comm));
	/*
	 * A slot is this request's once a child completes in it.  Until then
	 * it must not hold this id: a reused record (or one another volume,
	 * whose ids start alike, freed) may hold an old request's slots.
	 */
	for (i = 0; i < nr_clear; i++)
		rec->child[i].id = 0;
	io->rec = rec;
}

/*
 * The per-bio record of a request ssa_map_fast() remapped: the last
 * SSA_IO_REC1_SIZE bytes of a stripe layout's per-bio data.  In the other
 * layouts, which have no such room, this is an address inside @io that no
 * record has.
 */
static __always_inline struct ssa_trace_req *ssa_io_rec1(struct ssa_io *io)
{
	return (void *)io + io->sc->io_size - SSA_IO_REC1_SIZE;
}

/* Hand a joined request's record to its two events and release it. */
static void ssa_trace_rec_finish(struct ssa_io *io, int status)
{
	struct ssa_ctx *sc = io->sc;
	struct ssa_trace_req *rec = io->rec;

	io->rec = NULL;
	/*
	 * A remapped request joins in its one child's completion, straight
	 * after it (ssa_end_io()): that child's time is the join's.
	 */
	if (io->remapped && rec->child[0].id == io->id)
		rec->join_ns = rec->child[0].completed_ns;
	else
		rec->join_ns = ktime_get_ns();
	rec->status = status;
	rec->nr_children = max(rec->nr_children, io->nr_children);
	rec->nr_slots = min(rec->nr_children, sc->trace_slots);
	trace_ssastripe_request(sc->devt, io->id, rec->op, status,
				rec->nr_slots, rec);
	/* last: a program may write the record, which nothing reads after */
	trace_ssastripe_record((union ssa_trace_rec_head *)rec);
	if (rec != ssa_io_rec1(io))	/* that one goes with the bio */
		ssa_trace_rec_put(sc, rec);
}

/*
 * The untraced path of every request goes through the helpers below, so
 * each of them is a few static branches and a test of io->rec; nothing is
 * computed for an event that is off (the child events' arguments are a
 * dozen loads, and status conversions are calls).
 */

/* The fork events of a request (ssa_fork_begin() and the remapped path). */
static inline void ssa_trace_fork(struct ssa_ctx *sc, struct ssa_io *io,
				  u8 op, u64 start, u32 len, u32 nr_children)
{
	trace_ssastripe_fork(sc->devt, io->id, op, start, len, nr_children);
	if (ssa_trace_records_on())
		ssa_trace_rec_start(sc, io, op, start, len, nr_children,
				    sc->trace_slots);
}

/* The join events; a record is released even if its event went off. */
static inline void ssa_trace_join(struct ssa_io *io, blk_status_t status)
{
	int err;

	if (!trace_ssastripe_join_enabled() && likely(!io->rec))
		return;
	err = likely(!status) ? 0 : blk_status_to_errno(status);
	trace_ssastripe_join(io->sc->devt, io->id, err);
	if (io->rec)
		ssa_trace_rec_finish(io, err);
}

static inline void ssa_trace_child_queue(struct ssa_ctx *sc, struct ssa_io *io,
					 struct ssa_cstate *cs, u32 waiting)
{
	if (ssa_io_traced(io))
		ssa_trace_queued(io, cs);
	if (trace_ssastripe_child_queue_enabled())
		trace_ssastripe_child_queue(sc->devt, io ? io->id : 0, cs->idx,
					    cs->member, cs->class, cs->op,
					    cs->msector, cs->len, waiting, 0,
					    ssa_trace_mdev(sc, cs),
					    ssa_trace_bsector(sc, cs));
}

static inline void ssa_trace_child_dispatch(struct ssa_ctx *sc,
					    struct ssa_io *io,
					    struct ssa_cstate *cs, u32 qlen,
					    bool waited)
{
	if (ssa_io_traced(io))
		ssa_trace_dispatched(io, cs, qlen, waited);
	if (trace_ssastripe_child_dispatch_enabled())
		trace_ssastripe_child_dispatch(sc->devt, io ? io->id : 0,
					       cs->idx, cs->member, cs->class,
					       cs->op, cs->msector, cs->len,
					       qlen, 0, ssa_trace_mdev(sc, cs),
					       ssa_trace_bsector(sc, cs));
}

static inline void ssa_trace_child_complete(struct ssa_ctx *sc,
					    struct ssa_io *io,
					    struct ssa_cstate *cs,
					    blk_status_t status)
{
	if (ssa_io_traced(io))
		ssa_trace_completed(io, cs, likely(!status) ? 0 :
				    blk_status_to_errno(status));
	if (trace_ssastripe_child_complete_enabled())
		trace_ssastripe_child_complete(sc->devt, io ? io->id : 0,
					       cs->idx, cs->member, cs->class,
					       cs->op, cs->msector, cs->len, 0,
					       blk_status_to_errno(status),
					       ssa_trace_mdev(sc, cs),
					       ssa_trace_bsector(sc, cs));
}

static inline struct ssa_child *to_child(struct bio *bio)
{
	return container_of(bio, struct ssa_child, bio);
}

static inline struct bio *ssa_parent_of(struct ssa_io *io)
{
	return dm_bio_from_per_bio_data(io, io->sc->io_size);
}

/* The child state and request of any bio the dispatcher holds. */
static struct ssa_cstate *ssa_cstate_of(struct ssa_ctx *sc, struct bio *bio,
					struct ssa_io **io)
{
	if (bio->bi_pool == &sc->bs) {
		*io = to_child(bio)->io;
		return &to_child(bio)->cs;
	}
	*io = ssa_io_of(sc, bio);	/* a remapped parent */
	return &(*io)->cs;
}

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

/*
 * Send a child to its member device.  From the map path DM core is told
 * (dm_submit_bio_remap() starts the request's accounting, once); from the
 * dispatcher's work item the child is submitted plainly, since that
 * one-time start must not race with the map path.  A request all of whose
 * children waited is accounted by DM core when it completes.  @waited:
 * the child waited in its member's queue (for its record's dispatch time).
 */
static void ssa_dispatch(struct ssa_ctx *sc, struct bio *bio,
			 struct ssa_io *io, struct ssa_cstate *cs, u32 qlen,
			 bool waited, bool from_map)
{
	this_cpu_inc(sc->members[cs->member].stats->dispatched[cs->class]);
	if (unlikely(cs->start_hook))
		sc->ops->started(bio);
	ssa_trace_child_dispatch(sc, io, cs, qlen, waited);
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
		spin_unlock_irqrestore(&mb->lock, flags);
		ssa_dispatch(sc, bio, io, cs, 0, false, io && from_map);
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
 * With queue_depth 0 this is a few counters and the submission, inlined
 * into the remapped request's map.
 */
static __always_inline void __ssa_submit_child(struct ssa_ctx *sc,
					       struct bio *bio,
					       struct ssa_io *io,
					       struct ssa_cstate *cs,
					       bool from_map)
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
	ssa_dispatch(sc, bio, io, cs, 0, false, io && from_map);
}

void ssa_submit_child(struct ssa_ctx *sc, struct bio *bio, struct ssa_io *io,
		      struct ssa_cstate *cs, bool from_map)
{
	__ssa_submit_child(sc, bio, io, cs, from_map);
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
	ssa_dispatch(sc, bio, io, cs, 0, false, false);
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
		spin_unlock_irq(&mb->lock);

		ssa_dispatch(sc, bio, io, cs, waiting, true, false);
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
 * The member device completed a child; it keeps its dispatch slot.  Inlined
 * into the completions every request passes (ssa_end_io(),
 * ssa_child_endio()); ssa_child_done_held() is it for the other layouts.
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
static __always_inline void __ssa_child_done(struct ssa_ctx *sc,
					     struct bio *bio,
					     struct ssa_io *io,
					     struct ssa_cstate *cs,
					     blk_status_t status)
{
	__ssa_child_done_held(sc, bio, io, cs, status);
	if (cs->counted)
		ssa_slot_put(sc, cs->member);
}

void ssa_child_done(struct ssa_ctx *sc, struct bio *bio, struct ssa_io *io,
		    struct ssa_cstate *cs, blk_status_t status)
{
	__ssa_child_done(sc, bio, io, cs, status);
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

	__ssa_child_done(c->sc, bio, io, &c->cs, bio->bi_status);
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

/* Send a built child: its sector and size are final. */
void ssa_issue(struct ssa_ctx *sc, struct ssa_io *io, struct bio *child)
{
	struct ssa_cstate *cs = &to_child(child)->cs;

	child->bi_iter.bi_sector = sc->members[cs->member].offset + cs->msector;
	cs->len = bio_sectors(child);
	cs->op = ssa_op_of(child);
	cs->idx = io->nr_children++;
	to_child(child)->iter = child->bi_iter;
	atomic_inc(&io->pending);
	ssa_submit_child(sc, child, io, cs, true);
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
	__ssa_submit_child(sc, bio, io, cs, true);
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
	__ssa_child_done(sc, bio, io, &io->cs, *error);
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
	 * all that __ssa_child_done() and ssa_trace_join() would do is count.
	 */
	if (likely(!*error && !io->cs.counted && !io->rec) &&
	    !trace_ssastripe_child_complete_enabled() &&
	    !trace_ssastripe_join_enabled()) {
		this_cpu_inc(sc->members[io->cs.member].stats->completed);
		return DM_ENDIO_DONE;
	}
	return ssa_end_io_remapped(sc, bio, io, error);
}

/* Test-only internal work: high-priority reads with no request behind. */
static void ssa_inject_endio(struct bio *bio)
{
	struct ssa_child *c = to_child(bio);
	struct ssa_ctx *sc = c->sc;

	ssa_child_done(sc, bio, NULL, &c->cs, bio->bi_status);
	__free_page(bio_first_page_all(bio));
	bio_put(bio);
	if (atomic_dec_and_test(&sc->injected))
		wake_up(&sc->injected_wait);
}

int ssa_inject_high(struct ssa_ctx *sc, unsigned int m, unsigned int count)
{
	struct ssa_member *mb = &sc->members[m];
	unsigned int i, step = PAGE_SIZE >> SECTOR_SHIFT;
	u32 slots = min_t(u64, div_u64(sc->member_len, step), U32_MAX);

	if (!slots)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		struct ssa_child *c;
		struct page *page;
		struct bio *bio;

		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		bio = bio_alloc_bioset(mb->dev->bdev, 1, REQ_OP_READ,
				       GFP_KERNEL, &sc->bs);
		__bio_add_page(bio, page, PAGE_SIZE, 0);
		c = to_child(bio);
		c->sc = sc;
		c->io = NULL;
		ssa_cstate_set(&c->cs, m, (i % slots) * step, step,
			       atomic_inc_return(&sc->inject_seq),
			       SSA_CLASS_HIGH, SSA_OP_READ);
		bio->bi_iter.bi_sector = mb->offset + c->cs.msector;
		bio->bi_end_io = ssa_inject_endio;
		atomic_inc(&sc->injected);
		ssa_submit_child(sc, bio, NULL, &c->cs, false);
	}
	return 0;
}
