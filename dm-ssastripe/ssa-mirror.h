/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: what the files of the mirror layout share (private to
 * them): its state and the functions one file calls in the other.
 * ssa-mirror.c says how the parts fit together.
 */
#ifndef SSA_MIRROR_H
#define SSA_MIRROR_H

#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"
#include "ssa-walk.h"

/* Member sectors copied per rebuild step: one window (dm-ssastripe.h). */
#define SSA_RB_WINDOW		SSA_WINDOW_SECTORS
/* Split read shares are multiples of 4 KiB. */
#define SSA_SPLIT_ALIGN		8

/*
 * The mirror layout's private state (sc->priv): read balancing, the retry
 * of failed reads, and the walks over the members (rebuild, check,
 * repair, the resync after a crash, ssa-walk.c) with the write-intent
 * bitmap (w.bm).
 */
struct ssa_mirror {
	struct ssa_ctx *sc;
	atomic_t rr;		/* round-robin position of reads */
	struct ssa_retry retry;	/* read children to retry on another copy */
	struct ssa_walk w;	/* the walks; w.bm: rows are member chunks */
};

static inline struct ssa_mirror *ssa_mirror_of(struct ssa_ctx *sc)
{
	return sc->priv;
}

/* ssa-mirror.c */
void ssa_mirror_fork(struct ssa_ctx *sc, struct ssa_io *io, struct bio *parent,
		     u8 op, u64 start, u64 end, bool from_map);

/* ssa-mirror-walk.c */
extern const struct ssa_walk_ops ssa_mirror_walk_ops;
unsigned int ssa_mirror_status(struct ssa_ctx *sc, status_type_t type,
			       char *result, unsigned int maxlen, unsigned int sz);

#endif /* SSA_MIRROR_H */
