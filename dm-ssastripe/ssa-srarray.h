/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: what the files of the srarray layout share (private to
 * them): its state and background propagation's interface to the I/O
 * path.  ssa-srarray.c says how the layout works, ssa-srarray-prop.c how
 * a write reaches its other replicas in the background.
 */
#ifndef SSA_SRARRAY_H
#define SSA_SRARRAY_H

#include <linux/wait.h>
#include <linux/workqueue.h>

#include "dm-ssastripe.h"
#include "ssa-walk.h"

/* How a member's reads were placed, for the status. */
enum ssa_sr_how {
	SSA_SR_NONE = '-',	/* no read placed yet */
	SSA_SR_PREDICTED = 'P',	/* by its ssadisk's model */
	SSA_SR_GUESSED = 'g',	/* no model: the next replica round */
};

struct ssa_sr_member {
	u64 next;		/* data area sector after the last placed read */
	atomic64_t predicted;	/* reads placed by the model ... */
	atomic64_t guessed;	/* ... and without one */
	u8 how;			/* enum ssa_sr_how of the last one */
};

/*
 * Background propagation keeps, for every member and unit (a chunk of
 * its data space), which replicas hold the unit's latest data.
 */
struct ssa_sr_unit {
	u32 writing;		/* write children mapped, not completed */
	u8 valid;		/* replicas with the latest data (bit r) */
	u8 flags;		/* SSA_SRU_* */
};

#define SSA_SRU_COPYING	BIT(0)	/* being copied to its other replicas */
#define SSA_SRU_REDO	BIT(1)	/* written meanwhile: the copy may be old */

/* At most this many units (8 bytes each) for background propagation. */
#define SSA_SR_MAX_UNITS	BIT(27)

#define SSA_SR_LOST_REPORTED	0

struct ssa_sr_prop {
	struct ssa_sr *sr;
	spinlock_t lock;	/* everything below but the counters */
	struct ssa_sr_unit *units;	/* member m's unit u: m * nr_units + u */
	unsigned long *stale;	/* units with a replica to write */
	u64 nr_units;		/* units of one member */
	u64 nr_stale;		/* bits set in @stale */
	u64 cursor;		/* where the next search of @stale starts */
	bool suspending;	/* presuspend to resume */
	bool draining;		/* suspending or a flush held: write through */
	bool lost;		/* a copy failed: flushes fail from now on */
	unsigned long reported;	/* SSA_SR_LOST_REPORTED: its DM event raised */
	struct bio_list flushes;	/* held until nothing is stale */
	struct workqueue_struct *wq;
	struct work_struct work;
	wait_queue_head_t drained;
	struct page **pages;
	atomic64_t copied;	/* units brought to every replica */
	atomic64_t dropped;	/* units given up: a copy failed */
};

struct ssa_sr {
	struct ssa_ctx *sc;
	u32 replicas;		/* Dr */
	u32 track;		/* sectors a track */
	u32 arc;		/* track / replicas */
	u8 all;			/* every replica, as a mask */
	/* reads to retry on another copy, from process context */
	struct ssa_retry retry;
	struct ssa_sr_prop *prop;	/* NULL: foreground propagation */
	/* rebuild, check, repair (ssa-walk.c): rows are data-space sectors */
	struct ssa_walk w;
	struct ssa_sr_member m[];
};

static inline struct ssa_sr *ssa_sr_of(struct ssa_ctx *sc)
{
	return sc->priv;
}

/* Replica 0's place of the data a child at member sector @ms holds. */
static inline u64 ssa_sr_base(struct ssa_sr *sr, u64 ms)
{
	u32 in_track;

	div_u64_rem(ms, sr->track, &in_track);
	return ms - in_track / sr->arc * sr->arc;
}

/* The data-space sector whose replica 0 is at member sector @u0. */
static inline u64 ssa_sr_data(struct ssa_sr *sr, u64 u0)
{
	u32 in_track;
	u64 t = div_u64_rem(u0, sr->track, &in_track);

	return t * sr->arc + in_track;
}

/* ssa-srarray.c */
void ssa_sr_fork(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		 u8 op, u64 start, u64 end, bool from_map);

/* ssa-srarray-walk.c */
extern const struct ssa_walk_ops ssa_sr_walk_ops;
int ssa_sr_scrub(struct ssa_ctx *sc, bool repair);
int ssa_sr_idle(struct ssa_ctx *sc);
void ssa_sr_opt_changed(struct ssa_ctx *sc, int opt);
void ssa_sr_stop(struct ssa_ctx *sc);
int ssa_sr_prepare(struct ssa_ctx *sc);
void ssa_sr_quiesced(struct ssa_ctx *sc);
void ssa_sr_start(struct ssa_ctx *sc);

/* ssa-srarray-prop.c */
int ssa_sr_prop_alloc(struct ssa_ctx *sc, struct ssa_sr *sr);
void ssa_sr_prop_free(struct ssa_sr *sr);
u8 ssa_sr_valid(struct ssa_sr *sr, unsigned int m, u64 u0);
bool ssa_sr_write_background(struct ssa_sr *sr, struct bio *bio);
void ssa_sr_write_mapped(struct ssa_sr *sr, unsigned int m, u64 u0);
unsigned int ssa_sr_write_placed(struct ssa_sr *sr, unsigned int m, u64 u0,
				 unsigned int r);
void ssa_sr_write_done(struct ssa_sr *sr, unsigned int m, u64 u0);
void ssa_sr_member_idle(struct ssa_sr *sr);
bool ssa_sr_hold_flush(struct ssa_sr *sr, struct bio *bio, int *r);
void ssa_sr_prop_stop(struct ssa_ctx *sc);
void ssa_sr_prop_start(struct ssa_ctx *sc);
void ssa_sr_prop_quiesced(struct ssa_ctx *sc);

#endif /* SSA_SRARRAY_H */
