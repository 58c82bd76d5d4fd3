// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the tracepoints (defined here; ssa-trace.h) and the
 * request records behind ssastripe_request and ssastripe_record: the
 * per-CPU cache they come from, a request's record from its fork to its
 * join, and the slots its children write their times into.  The inline
 * helpers the I/O path calls are in ssa-io-trace.h.
 */
#include <linux/slab.h>

#define CREATE_TRACE_POINTS
#include "ssa-io-trace.h"

/* On while any ssastripe event has a probe (ssa-trace.h). */
DEFINE_STATIC_KEY_FALSE(ssa_events_on);

int ssa_trace_reg(void)
{
	static_branch_inc(&ssa_events_on);
	return 0;
}

void ssa_trace_unreg(void)
{
	static_branch_dec(&ssa_events_on);
}

/* A traced request's slot for @cs, if it has one (callers test first). */
static struct ssa_trace_child *ssa_trace_slot(struct ssa_io *io,
					      struct ssa_cstate *cs)
{
	if (cs->idx >= io->sc->trace_slots)
		return NULL;
	return &io->rec->child[cs->idx];
}

void ssa_trace_queued(struct ssa_io *io, struct ssa_cstate *cs)
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
void ssa_trace_dispatched(struct ssa_io *io, struct ssa_cstate *cs, u32 qlen,
			  bool waited)
{
	struct ssa_trace_child *tc = ssa_trace_slot(io, cs);

	if (!tc)
		return;
	tc->dispatched_ns = waited ? ktime_get_ns() : tc->queued_ns;
	tc->qlen = qlen;
	tc->msector = cs->msector;	/* srarray: the replica chosen */
}

void ssa_trace_completed(struct ssa_io *io, struct ssa_cstate *cs, int status)
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
void ssa_trace_rec_start(struct ssa_ctx *sc, struct ssa_io *io, u8 op,
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

/* Hand a joined request's record to its two events and release it. */
void ssa_trace_rec_finish(struct ssa_io *io, int status)
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

