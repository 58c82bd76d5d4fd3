// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: what the walks over a mirror volume's members (ssa-walk.c:
 * rebuild, check, repair, resync) need of the mirror: how one window of a
 * copy is rebuilt, how the copies of a window are compared and repaired,
 * and the status fields that report the walks.
 */
#include "ssa-mirror.h"

/* Copy member sectors [lo, lo + len) onto member @m from an in-sync copy. */
static void ssa_mirror_copy(struct ssa_ctx *sc, unsigned int m, u64 lo,
			    unsigned int len, struct page **pages)
{
	u32 set = m / sc->copies;
	unsigned int k, src;

	for (k = 0; k < sc->copies; k++) {
		src = ssa_mirror_member(set, sc->copies, k);
		if (src == m || !ssa_walk_in_sync(sc, src))
			continue;
		/* a source that fails is marked failed: try the next one */
		if (!ssa_member_rw(sc, src, REQ_OP_READ, lo, len, pages,
				   SSA_CLASS_HIGH)) {
			ssa_walk_write(sc, m, lo, len, pages);
			return;
		}
	}
	ssa_walk_no_source(sc, m);
}

/*
 * Check member sectors [lo, lo + len) of set @set: each in-sync copy is
 * compared with the first in-sync copy that can be read (@ref), and the
 * sectors where one differs are set in @diff.  With @repair, the first
 * copy's data is written over each copy that differs.
 */
static void ssa_check_set(struct ssa_ctx *sc, u32 set, u64 lo,
			  unsigned int len, struct page **ref,
			  struct page **cmp, unsigned long *diff, bool repair)
{
	unsigned int k, m;
	bool have_ref = false;

	for (k = 0; k < sc->copies; k++) {
		m = ssa_mirror_member(set, sc->copies, k);
		if (!ssa_walk_in_sync(sc, m))
			continue;
		/* a copy that cannot be read is marked failed: skip it */
		if (ssa_member_rw(sc, m, REQ_OP_READ, lo, len,
				  have_ref ? cmp : ref, SSA_CLASS_HIGH))
			continue;
		if (!have_ref) {
			have_ref = true;
			continue;
		}
		if (ssa_walk_diff(ref, cmp, len, diff) && repair)
			ssa_walk_write(sc, m, lo, len, ref);
	}
}

/* Compare (and repair) one window of every set: the sectors that differ. */
static u64 ssa_mirror_compare(struct ssa_ctx *sc, u64 lo, unsigned int len,
			      struct page **ref, struct page **cmp,
			      bool repair)
{
	DECLARE_BITMAP(diff, SSA_RB_WINDOW);
	u64 bad = 0;
	u32 set;

	for (set = 0; set < sc->geom.members; set++) {
		bitmap_zero(diff, SSA_RB_WINDOW);
		ssa_check_set(sc, set, lo, len, ref, cmp, diff, repair);
		bad += bitmap_weight(diff, len);
	}
	return bad;
}

/* A write the window held goes on. */
static void ssa_mirror_release(struct ssa_ctx *sc, struct ssa_io *io,
			       struct bio *bio, u8 op, u64 start, u64 end)
{
	ssa_mirror_fork(sc, io, bio, op, start, end, false);
}

const struct ssa_walk_ops ssa_mirror_walk_ops = {
	.release = ssa_mirror_release,
	.copy = ssa_mirror_copy,
	.compare = ssa_mirror_compare,
};

/*
 * INFO: <copies> <read_policy> <action> <done>/<member_sectors> <mismatches>
 * IMA:  ,copies=,read_policy=
 */
unsigned int ssa_mirror_status(struct ssa_ctx *sc, status_type_t type,
			       char *result, unsigned int maxlen, unsigned int sz)
{
	struct ssa_mirror *mi = ssa_mirror_of(sc);
	const char *policy = ssa_opt_word(SSA_OPT_READ_POLICY,
					  READ_ONCE(sc->read_policy));

	if (type == STATUSTYPE_IMA) {
		DMEMIT(",copies=%u,read_policy=%s", sc->copies, policy);
		return sz;
	}
	sz = ssa_bm_status(mi->w.bm, result, maxlen, sz);
	DMEMIT(" %u %s", sc->copies, policy);
	return ssa_walk_emit(&mi->w, result, maxlen, sz);
}
