// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: what the walks over an srarray volume's members
 * (ssa-walk.c: rebuild, check, repair) need of the layout.  A walk goes
 * over the members' data space (the stripe layout's member sectors, before
 * the replicas), a window at a time that never crosses an arc, so that
 * each replica of a window is one run on its member (ssa_sr_sector()).
 *
 *  - Rebuild: a window of a copy being rebuilt is read from replica 0 of
 *    a copy of its set in sync and written to every replica of the copy.
 *  - Check and repair: in every set, each replica of each copy in sync is
 *    compared with replica 0 of the set's first copy in sync that can be
 *    read (the source); a repair writes the source over each replica that
 *    differs.
 *
 * With background propagation the replicas of a unit differ until it is
 * copied, so the table refuses rebuild and the messages check and repair.
 */
#include "ssa-srarray.h"

/* A window ends at its arc's end at the latest. */
static u64 ssa_sr_window_end(struct ssa_ctx *sc, u64 lo)
{
	struct ssa_sr *sr = ssa_sr_of(sc);

	return (div_u64(lo, sr->arc) + 1) * sr->arc;
}

/* Replica @r of data-space sector @u on its member. */
static u64 ssa_sr_at(struct ssa_sr *sr, u64 u, unsigned int r)
{
	return ssa_sr_sector(u, sr->track, sr->replicas, r);
}

/*
 * Rebuild data-space sectors [lo, lo + len) of member @m: read them from
 * replica 0 of a copy of its set in sync, write them to every replica.
 */
static void ssa_sr_copy(struct ssa_ctx *sc, unsigned int m, u64 lo,
			unsigned int len, struct page **pages)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	unsigned int k, r, src, first = m / sc->copies * sc->copies;

	for (k = 0; k < sc->copies; k++) {
		src = first + k;
		if (src == m || !ssa_walk_in_sync(sc, src))
			continue;
		/* a source that fails is marked failed: try the next one */
		if (ssa_member_rw(sc, src, REQ_OP_READ, ssa_sr_at(sr, lo, 0),
				  len, pages, SSA_CLASS_HIGH))
			continue;
		/* a replica that fails marks @m failed: the rest is moot */
		for (r = 0; r < sr->replicas; r++)
			if (ssa_walk_write(sc, m, ssa_sr_at(sr, lo, r), len, pages))
				return;
		return;
	}
	ssa_walk_no_source(sc, m);
}

/*
 * One set's window: every replica of every copy in sync against the
 * source (@ref, replica 0 of the first copy in sync that reads); the
 * sectors that differ somewhere are set in @diff.
 */
static void ssa_sr_check_set(struct ssa_ctx *sc, u32 set, u64 lo,
			     unsigned int len, struct page **ref,
			     struct page **cmp, unsigned long *diff,
			     bool repair)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	unsigned int k, r, m;
	bool have_ref = false;
	u64 ms;

	for (k = 0; k < sc->copies; k++) {
		m = set * sc->copies + k;
		for (r = 0; r < sr->replicas && ssa_walk_in_sync(sc, m); r++) {
			ms = ssa_sr_at(sr, lo, r);
			/* a copy that cannot be read is marked failed */
			if (ssa_member_rw(sc, m, REQ_OP_READ, ms, len,
					  have_ref ? cmp : ref, SSA_CLASS_HIGH))
				break;
			if (!have_ref) {
				have_ref = true;
				continue;
			}
			if (ssa_walk_diff(ref, cmp, len, diff) && repair)
				ssa_walk_write(sc, m, ms, len, ref);
		}
	}
}

/* Compare (and repair) one window of every set: the sectors that differ. */
static u64 ssa_sr_compare(struct ssa_ctx *sc, u64 lo, unsigned int len,
			  struct page **ref, struct page **cmp, bool repair)
{
	DECLARE_BITMAP(diff, SSA_WINDOW_SECTORS);
	u64 bad = 0;
	u32 set;

	for (set = 0; set < sc->geom.members; set++) {
		bitmap_zero(diff, SSA_WINDOW_SECTORS);
		ssa_sr_check_set(sc, set, lo, len, ref, cmp, diff, repair);
		bad += bitmap_weight(diff, len);
	}
	return bad;
}

/* A write the window held goes on. */
static void ssa_sr_release(struct ssa_ctx *sc, struct ssa_io *io,
			   struct bio *bio, u8 op, u64 start, u64 end)
{
	ssa_sr_fork(sc, io, bio, op, start, end, false);
}

const struct ssa_walk_ops ssa_sr_walk_ops = {
	.release = ssa_sr_release,
	.window_end = ssa_sr_window_end,
	.copy = ssa_sr_copy,
	.compare = ssa_sr_compare,
};

/* Messages "check" and "repair": with copies or replicas to compare. */
int ssa_sr_scrub(struct ssa_ctx *sc, bool repair)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	const char *what = repair ? "repair" : "check";

	if (sr->prop) {
		DMWARN("%s: not with propagate background (replicas differ until copied)",
		       what);
		return -EINVAL;
	}
	if (sc->copies < 2 && sr->replicas < 2) {
		DMWARN("%s: one copy and one replica: nothing to compare", what);
		return -EINVAL;
	}
	return ssa_walk_scrub(&sr->w, repair);
}

int ssa_sr_idle(struct ssa_ctx *sc)
{
	return ssa_walk_idle(&ssa_sr_of(sc)->w);
}

void ssa_sr_opt_changed(struct ssa_ctx *sc, int opt)
{
	if (opt == SSA_OPT_REBUILD_RATE)
		ssa_walk_rate_changed(&ssa_sr_of(sc)->w);
}

/* Suspend and removal: the walks, then background propagation. */
void ssa_sr_stop(struct ssa_ctx *sc)
{
	ssa_walk_stop(&ssa_sr_of(sc)->w);
	ssa_sr_prop_stop(sc);
}

/* Before the first resume: read the bitmap. */
int ssa_sr_prepare(struct ssa_ctx *sc)
{
	return ssa_bm_prepare(ssa_sr_of(sc)->w.bm);
}

/* Suspended with nothing in flight: propagation's end, the bitmap clean. */
void ssa_sr_quiesced(struct ssa_ctx *sc)
{
	ssa_sr_prop_quiesced(sc);
	ssa_bm_quiesced(ssa_sr_of(sc)->w.bm);
}

/* Resume: background propagation, then the walks (rebuild, resync). */
void ssa_sr_start(struct ssa_ctx *sc)
{
	ssa_sr_prop_start(sc);
	ssa_walk_start(&ssa_sr_of(sc)->w);
}
