/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: the tracing helpers of the I/O path, for the core's I/O
 * files (ssa-io.c, ssa-dispatch.c) and the layouts that emit child
 * events of their own; what is not inline here is in ssa-io-trace.c
 * (the tracepoints and the request records).  Every request passes
 * them, so they are inline: an untraced request pays a few static
 * branches for them and no call.
 */
#ifndef _SSA_IO_TRACE_H
#define _SSA_IO_TRACE_H

#include "dm-ssastripe.h"
#include "ssa-trace.h"

/* On while any ssastripe event has a probe (ssa-io-trace.c). */
DECLARE_STATIC_KEY_FALSE(ssa_events_on);

void ssa_trace_queued(struct ssa_io *io, struct ssa_cstate *cs);
void ssa_trace_dispatched(struct ssa_io *io, struct ssa_cstate *cs, u32 qlen,
			  bool waited);
void ssa_trace_completed(struct ssa_io *io, struct ssa_cstate *cs, int status);
void ssa_trace_rec_start(struct ssa_ctx *sc, struct ssa_io *io, u8 op,
			 u64 start, u32 len, u32 nr_children,
			 unsigned int nr_clear);
void ssa_trace_rec_finish(struct ssa_io *io, int status);

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

/* A child's slot is the request's once its completion is in. */
static __always_inline void __ssa_trace_completed(struct ssa_io *io,
						  struct ssa_trace_child *tc,
						  int status)
{
	tc->completed_ns = ktime_get_ns();
	tc->status = status;
	tc->id = io->id;
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

#endif /* _SSA_IO_TRACE_H */
