// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the srarray layout, seed 003's SR-Array with Dm = 1 (a
 * Ds x Dr x 1 array): data striped over the Ds members, and every block
 * written Dr times on its member, in one track, 1/Dr of a turn apart, so
 * that a read waits for whichever replica comes round first.
 *
 * A set's data space (the stripe layout's member sectors) is cut into
 * arcs of track_sectors / replicas sectors; the arc holding data-space
 * sector u is written at the same place in each of the replicas arcs of
 * one track (ssa_sr_sector()).  A write goes to every replica of every
 * copy: one child per chunk piece, copy and replica, joined when all are
 * on their members (the seed's foreground propagation); with copies, a
 * member that fails a write fails, and the write stands while another
 * copy of its set is alive.  A read is one child per chunk piece, sent to
 * the copy whose disk predicts the earliest end (else the one with the
 * fewest children outstanding), which carries its alternatives (cs.alts)
 * to the dispatcher, which asks
 * the layout to place it just before it leaves (ssa_sr_place()): then the
 * member's ssadisk, if it is one, predicts which replica it would finish
 * first behind everything it already holds (ssad_predict()).  On a member
 * that is not an ssadisk, the replica taken is the first after where the
 * last child placed on that member ended, a guess that assumes no time
 * passed; the status says which members were predicted.  A read that
 * fails is retried on another copy of its set.
 *
 * See Documentation/srarray.rst.
 */
#include <linux/overflow.h>
#include <linux/slab.h>

#include "ssa-disk.h"
#include "ssa-io-trace.h"
#include "ssa-srarray.h"

static int ssa_sr_check_opts(struct ssa_ctx *sc)
{
	u32 replicas = sc->opt[SSA_OPT_REPLICAS];
	u32 track = sc->opt[SSA_OPT_TRACK_SECTORS];

	if (!test_bit(SSA_OPT_TRACK_SECTORS, &sc->opts_given)) {
		sc->ti->error = "srarray needs track_sectors <S>: a member's sectors a track";
		return -EINVAL;
	}
	if (track % replicas) {
		sc->ti->error = "track_sectors must be a multiple of replicas";
		return -EINVAL;
	}
	if (test_bit(SSA_OPT_COPIES, &sc->opts_given)) {
		if (sc->nr_members % sc->opt[SSA_OPT_COPIES]) {
			DMERR("%u members cannot form sets of %u copies",
			      sc->nr_members, sc->opt[SSA_OPT_COPIES]);
			sc->ti->error = "Number of members is not a multiple of copies";
			return -EINVAL;
		}
		sc->copies = sc->opt[SSA_OPT_COPIES];
	}
	if (test_bit(SSA_OPT_BITMAP, &sc->opts_given) &&
	    sc->opt[SSA_OPT_PROPAGATE] == SSA_PROP_BACKGROUND) {
		sc->ti->error = "srarray bitmap needs propagate foreground";
		return -EINVAL;
	}
	if (!sc->rebuild_mask)
		return 0;
	if (sc->opt[SSA_OPT_PROPAGATE] == SSA_PROP_BACKGROUND) {
		sc->ti->error = "srarray rebuild needs propagate foreground";
		return -EINVAL;
	}
	return ssa_walk_check_rebuild(sc,
				      "rebuild would leave an srarray set without a source copy");
}

/*
 * The stripe's rows fill each member's data space; every arc of it takes
 * a whole track of the member.
 */
static int ssa_sr_check_geometry(struct ssa_ctx *sc)
{
	u32 replicas = sc->opt[SSA_OPT_REPLICAS];
	u32 track = sc->opt[SSA_OPT_TRACK_SECTORS];
	u32 arc = track / replicas;
	u64 data = sc->member_len, tracks, len;

	if (arc % sc->geom.chunk) {
		DMERR("chunk %u does not divide an arc (%u / %u = %u sectors)",
		      sc->geom.chunk, track, replicas, arc);
		sc->ti->error = "The chunk must divide track_sectors / replicas";
		return -EINVAL;
	}
	tracks = div64_u64(data, arc);
	if (tracks * arc != data) {
		DMERR("a member's share (%llu sectors) is not whole arcs of %u",
		      (unsigned long long)data, arc);
		sc->ti->error = "Length not a multiple of members x track_sectors / replicas";
		return -EINVAL;
	}
	if (check_mul_overflow(tracks, (u64)track, &len)) {
		sc->ti->error = "Target length too large for its replicas";
		return -EINVAL;
	}
	sc->member_len = len;
	return 0;
}

static int ssa_sr_retry_next(struct ssa_ctx *sc, struct ssa_child *c);
static void ssa_sr_bm_go(struct ssa_ctx *sc, struct ssa_bm_wait *w);

/*
 * A replica's place on its track is counted from the member's offset
 * (ssa_sr_sector()): the offset must start a track of the member, or the
 * replicas would land where the disk's rotation does not bring them.
 */
static int ssa_sr_check_offsets(struct ssa_ctx *sc)
{
	u32 track = sc->opt[SSA_OPT_TRACK_SECTORS], rem;
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++) {
		div_u64_rem(sc->members[m].offset, track, &rem);
		if (!rem)
			continue;
		DMERR("member %u (%s): offset %llu is not whole tracks of %u sectors",
		      m, sc->members[m].dev->name,
		      (unsigned long long)sc->members[m].offset, track);
		sc->ti->error = "srarray member offsets must be a multiple of track_sectors";
		return -EINVAL;
	}
	return 0;
}

static int ssa_sr_alloc(struct ssa_ctx *sc)
{
	struct ssa_sr *sr;
	unsigned int m;
	int r;

	r = ssa_sr_check_offsets(sc);
	if (r)
		return r;
	sr = kzalloc(struct_size(sr, m, sc->nr_members), GFP_KERNEL);
	if (!sr) {
		sc->ti->error = "Cannot allocate srarray state";
		return -ENOMEM;
	}
	sr->sc = sc;
	ssa_retry_init(&sr->retry, sc, ssa_sr_retry_next, NULL);
	sr->replicas = sc->opt[SSA_OPT_REPLICAS];
	sr->track = sc->opt[SSA_OPT_TRACK_SECTORS];
	sr->arc = sr->track / sr->replicas;
	sr->all = GENMASK(sr->replicas - 1, 0);
	sc->alt_stride = sr->arc;
	for (m = 0; m < sc->nr_members; m++) {
		atomic64_set(&sr->m[m].predicted, 0);
		atomic64_set(&sr->m[m].guessed, 0);
		sr->m[m].how = SSA_SR_NONE;
	}
	sc->priv = sr;
	r = ssa_walk_init(&sr->w, sc, &ssa_sr_walk_ops,
			  div_u64(sc->member_len, sr->replicas));
	if (!r && sc->meta_dev)
		r = ssa_bm_create(sc, div_u64(sr->w.len, sc->geom.chunk), NULL,
				  ssa_sr_bm_go, &sr->w.bm);
	if (r)
		return r;
	/* with one replica there is nothing to propagate */
	if (sc->opt[SSA_OPT_PROPAGATE] != SSA_PROP_BACKGROUND || sr->replicas < 2)
		return 0;
	/*
	 * A completed write is then on one replica, and on all of them only
	 * after a flush (or with FUA): the volume has a volatile write cache
	 * whatever its members have, so flushes and FUA reach the target.
	 */
	sc->ti->flush_supported = true;
	return ssa_sr_prop_alloc(sc, sr);
}

static void ssa_sr_free(struct ssa_ctx *sc)
{
	struct ssa_sr *sr = ssa_sr_of(sc);

	if (!sr)
		return;
	cancel_work_sync(&sr->retry.work);
	ssa_walk_free(&sr->w);
	ssa_bm_free(sr->w.bm);
	ssa_sr_prop_free(sr);
	kfree(sr);
	sc->priv = NULL;
}

/* Members not failed, as a mask. */
static u64 ssa_sr_live(struct ssa_ctx *sc)
{
	u64 live = 0;
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++)
		if (!test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags))
			live |= BIT_ULL(m);
	return live;
}

/*
 * The copy of @set a read of @len sectors at replica 0's place @u0 goes
 * to, among the members in @live and not in @tried: the one whose disk
 * predicts the earliest end over its replicas; without predictions, the
 * one with the fewest children outstanding.  -1 if none.
 */
static int ssa_sr_choose(struct ssa_ctx *sc, u32 set, u64 u0, u32 len,
			 u64 live, u64 tried)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	struct ssad_cand c[SSA_MAX_REPLICAS];
	int best = -1, fewest = -1;
	u64 best_end = U64_MAX;
	unsigned int k, r, out, least = UINT_MAX;
	struct ssad_guess g;
	u8 valid;

	for (k = 0; k < sc->copies; k++) {
		unsigned int m = set * sc->copies + k;
		struct ssa_member *mb = &sc->members[m];
		int i;

		if (!(live & BIT_ULL(m)) || (tried & BIT_ULL(m)))
			continue;
		if (sc->copies == 1)
			return m;
		/* a copy being rebuilt: only what the rebuild has written */
		if (!ssa_walk_readable(&sr->w, m, ssa_sr_data(sr, u0) + len))
			continue;
		valid = ssa_sr_valid(sr, m, u0);
		for (r = 0; r < sr->replicas; r++) {
			c[r].dsector = mb->offset + u0 + (u64)r * sr->arc;
			c[r].len = valid & BIT(r) ? len : 0;
			c[r].write = false;
		}
		i = ssad_predict(mb->dev->bdev->bd_dev, c, sr->replicas, &g);
		if (i >= 0 && c[i].end < best_end) {
			best = m;
			best_end = c[i].end;
		}
		out = atomic_read(&mb->outstanding);
		if (out < least) {
			least = out;
			fewest = m;
		}
	}
	return best >= 0 ? best : fewest;
}

/*
 * Whether data-space sectors [u, u + len) lie in a region the bitmap
 * holds for a resync: a crash may have left their replicas and copies
 * different, so a read goes where the resync copies from.
 */
static bool ssa_sr_unsynced(struct ssa_ctx *sc, u64 u, u64 len)
{
	struct ssa_bitmap *bm = ssa_sr_of(sc)->w.bm;

	return unlikely(bm) &&
	       ssa_bm_range_pending(bm, div_u64(u, sc->geom.chunk),
				    div_u64(u + len - 1, sc->geom.chunk));
}

/* The resync's source of @set: its first copy in sync and in @live. */
static int ssa_sr_source(struct ssa_ctx *sc, u32 set, u64 live)
{
	unsigned int k, m;

	for (k = 0; k < sc->copies; k++) {
		m = set * sc->copies + k;
		if ((live & BIT_ULL(m)) && ssa_walk_in_sync(sc, m))
			return m;
	}
	return -1;
}

/* Has @set a copy in @live? */
static bool ssa_sr_set_live(struct ssa_ctx *sc, u64 live, u32 set)
{
	return live >> (set * sc->copies) & GENMASK_ULL(sc->copies - 1, 0);
}

static void ssa_sr_endio(struct bio *bio);

/*
 * One child of @io: [off, off + len) of @parent on member @m at @ms, or,
 * with @alts, at one of the replicas of replica 0's place @ms, chosen when
 * it leaves (ssa_sr_place()).
 */
static void ssa_sr_child(struct ssa_ctx *sc, struct ssa_io *io,
			 struct bio *parent, u64 off, u64 len, unsigned int m,
			 u64 ms, bool alts, bool from_map)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	struct bio *child = ssa_clone(sc, io, parent, m, ms);

	if (!child)
		return;
	if (op_is_write(bio_op(parent)))
		ssa_sr_write_mapped(sr, m, ssa_sr_base(sr, ms));
	bio_trim(child, off, len);
	child->bi_end_io = ssa_sr_endio;
	to_child(child)->tried = BIT_ULL(m);
	if (alts && sr->replicas > 1)
		to_child(child)->cs.alts = sr->replicas;
	atomic_inc(&sc->members[m].outstanding);
	ssa_issue_from(sc, io, child, from_map);
}

/*
 * Reads and writes: a child per chunk piece, and per live copy and
 * replica for a write.  A read child is sent with replica 0's place and
 * its alternatives; the dispatcher has it placed.  @from_map: called from
 * the target's map (else from the work item of a walk that held a write).
 */
void ssa_sr_fork(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		 u8 op, u64 start, u64 end, bool from_map)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	unsigned int k, r, m, copies = sc->copies;
	u64 ls, len, u0, live, sync;
	struct ssa_extent e;
	u32 children = 0, nr;
	int pick;
	bool one;

	/* background propagation: one replica a copy, placed as it leaves */
	one = op == SSA_OP_WRITE && ssa_sr_write_background(sr, bio);
	nr = one ? 1 : sr->replicas;
	/* without copies a failed member is still tried, as stripe does */
	live = copies > 1 ? ssa_sr_live(sc) : U64_MAX;
	/* a write stands only on a copy in sync, not one being rebuilt */
	sync = copies > 1 && op != SSA_OP_READ ? ssa_walk_in_sync_mask(sc) : live;
	for (ls = start; ls < end; ls += len) {
		ssa_stripe_map(&sc->geom, ls, &e);
		len = min(e.len, end - ls);
		/* a piece whose set has no live copy fails without a child */
		if (op == SSA_OP_READ)
			children += ssa_sr_set_live(sc, live, e.member);
		else
			for (k = 0; k < copies; k++)
				if (live & BIT_ULL(e.member * copies + k))
					children += nr;
	}
	ssa_fork_begin(sc, io, op, start, end, children);
	for (ls = start; ls < end; ls += len) {
		ssa_stripe_map(&sc->geom, ls, &e);
		len = min(e.len, end - ls);
		u0 = ssa_sr_sector(e.msector, sr->track, sr->replicas, 0);
		if (op == SSA_OP_READ) {
			if (ssa_sr_unsynced(sc, e.msector, len))
				pick = ssa_sr_source(sc, e.member, live);
			else
				pick = ssa_sr_choose(sc, e.member, u0, len, live, 0);
			if (pick < 0)
				ssa_io_set_error(io, BLK_STS_IOERR);
			else
				ssa_sr_child(sc, io, bio, ls - start, len, pick,
					     u0, !ssa_sr_unsynced(sc, e.msector, len),
					     from_map);
			continue;
		}
		for (k = 0; k < copies; k++) {
			m = e.member * copies + k;
			if (!(live & BIT_ULL(m)))
				continue;
			if (one) {
				ssa_sr_child(sc, io, bio, ls - start, len, m,
					     u0, true, from_map);
				continue;
			}
			for (r = 0; r < sr->replicas; r++)
				ssa_sr_child(sc, io, bio, ls - start, len, m,
					     u0 + (u64)r * sr->arc, false,
					     from_map);
		}
		if (!ssa_sr_set_live(sc, sync, e.member))
			ssa_io_set_error(io, BLK_STS_IOERR);
	}
	ssa_io_put(io);
}

/*
 * Past the bitmap: a write waits for a walk's window, then forks.  Under
 * background propagation no walk can run (rebuild, bitmap, check and
 * repair are refused there): its writes skip the walk's books.
 */
static void ssa_sr_admit(struct ssa_ctx *sc, struct ssa_io *io,
			 struct bio *bio, u8 op, u64 start, u64 end,
			 bool from_map)
{
	struct ssa_sr *sr = ssa_sr_of(sc);

	if (op == SSA_OP_WRITE && !sr->prop &&
	    ssa_walk_admit(&sr->w, io, bio, start, end))
		return;
	ssa_sr_fork(sc, io, bio, op, start, end, from_map);
}

/* The bitmap's work: the bits of a write that waited are on the device. */
static void ssa_sr_bm_go(struct ssa_ctx *sc, struct ssa_bm_wait *w)
{
	struct ssa_io *io = container_of(w, struct ssa_io, bmw);
	struct bio *bio = dm_bio_from_per_bio_data(io, sc->io_size);
	u64 start = dm_target_offset(sc->ti, bio->bi_iter.bi_sector);

	ssa_sr_admit(sc, io, bio, ssa_op_of(bio), start,
		     start + bio_sectors(bio), false);
}

/*
 * Flushes go to every member (ssa_map_data()), with background
 * propagation once nothing is stale; a write that touches the window a
 * walk works in waits for it (ssa_walk_admit()).
 */
static int ssa_sr_map(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		      u8 op, u64 start, u64 end)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	u64 lo, hi;
	int held;

	ssa_walk_map_init(io);
	ssa_bm_wait_init(&io->bmw);
	if (op == SSA_OP_FLUSH && ssa_sr_hold_flush(sr, bio, &held))
		return held;
	if (op != SSA_OP_READ && op != SSA_OP_WRITE)
		return ssa_map_data(sc, io, bio, op, start, end);
	/* a write's regions on the bitmap device first (if it has one) */
	if (unlikely(sr->w.bm) && op == SSA_OP_WRITE) {
		ssa_rows_of(sc, start, end, &lo, &hi);
		if (!ssa_bm_gate(sr->w.bm, &io->bmw, div_u64(lo, sc->geom.chunk),
				 div_u64(hi - 1, sc->geom.chunk)))
			return DM_MAPIO_SUBMITTED;
	}
	ssa_sr_admit(sc, io, bio, op, start, end, true);
	return DM_MAPIO_SUBMITTED;
}

/* The request is about to be joined: off the bitmap's and walk's books. */
static void ssa_sr_join(struct ssa_io *io)
{
	struct ssa_sr *sr = ssa_sr_of(io->sc);

	ssa_bm_release(sr->w.bm, &io->bmw);
	ssa_walk_join(&sr->w, io);
}

/* Is a member of @m's set other than @m in sync (a source of its data)? */
static bool ssa_sr_set_in_sync(struct ssa_ctx *sc, unsigned int m)
{
	unsigned int k, first = m / sc->copies * sc->copies;

	for (k = first; k < first + sc->copies; k++)
		if (k != m && ssa_walk_in_sync(sc, k))
			return true;
	return false;
}

/*
 * A child completed.  A read that failed on its member goes to another
 * copy (ssa_sr_retry_next()); a write that failed on a member that has
 * failed stands if another copy of its set is in sync (its own children
 * carry the data; if they fail too, the last of them sets the error).  A
 * copy being rebuilt does not count: it has no source left to finish from.
 */
static void ssa_sr_endio(struct bio *bio)
{
	struct ssa_child *c = to_child(bio);
	struct ssa_ctx *sc = c->sc;
	struct ssa_sr *sr = ssa_sr_of(sc);
	struct ssa_io *io = c->io;
	blk_status_t status = bio->bi_status;

	ssa_child_done(sc, bio, io, &c->cs, status);
	if (sr->prop && c->cs.op == SSA_OP_WRITE)
		ssa_sr_write_done(sr, c->cs.member,
				  ssa_sr_base(sr, c->cs.msector));
	if (atomic_dec_and_test(&sc->members[c->cs.member].outstanding))
		ssa_sr_member_idle(sr);
	if (unlikely(status)) {
		bool fault = ssa_member_fault(status, bio);

		if (fault && c->cs.op == SSA_OP_READ && sc->copies > 1) {
			ssa_retry_add(&sr->retry, bio);
			return;
		}
		if (!fault || c->cs.op != SSA_OP_WRITE || sc->copies < 2 ||
		    !ssa_sr_set_in_sync(sc, c->cs.member))
			ssa_io_set_error(io, status);
	}
	bio_put(bio);
	ssa_io_put(io);
}

/* A failed read's next copy: a live one of its set not yet tried. */
static int ssa_sr_retry_next(struct ssa_ctx *sc, struct ssa_child *c)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	struct ssa_cstate *cs = &c->cs;
	int m;

	cs->msector = ssa_sr_base(sr, cs->msector);	/* placed again */
	m = ssa_sr_choose(sc, cs->member / sc->copies, cs->msector, cs->len,
			  ssa_sr_live(sc), c->tried);
	if (m >= 0)
		cs->alts = sr->replicas > 1 ? sr->replicas : 0;
	return m;
}

/*
 * Fail member @m by hand (message "fail"): only with copies, and never
 * the last live copy of a set.
 */
static int ssa_sr_fail(struct ssa_ctx *sc, unsigned int m)
{
	if (test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags))
		return 0;
	if (sc->copies < 2 || !ssa_sr_set_in_sync(sc, m)) {
		DMWARN("fail %u: member %u holds the only live copy of its data",
		       m, m);
		return -EBUSY;
	}
	ssa_member_fail(sc, m);
	return 0;
}

/*
 * No model: of the replicas in @valid, the one whose first sector comes
 * round first after the end of the last child placed on the member, were
 * the platter still there.
 */
static unsigned int ssa_sr_guess(struct ssa_sr *sr, struct ssa_sr_member *sm,
				 u64 msector, unsigned int n, u8 valid)
{
	u32 head, pos, best_d = U32_MAX;
	unsigned int r, best = 0;

	div_u64_rem(READ_ONCE(sm->next), sr->track, &head);
	div_u64_rem(msector, sr->track, &pos);
	for (r = 0; r < n; r++) {
		u32 at = (pos + r * sr->arc) % sr->track;
		u32 d = (at + sr->track - head) % sr->track;

		if ((valid & BIT(r)) && d < best_d) {
			best_d = d;
			best = r;
		}
	}
	return best;
}

/* The placement event: which replica, and what the disk predicted. */
static void ssa_sr_trace_place(struct ssa_ctx *sc, struct bio *bio,
			       struct ssa_cstate *cs, unsigned int r,
			       const struct ssad_cand *c,
			       const struct ssad_guess *g)
{
	struct ssa_io *io;

	ssa_cstate_of(sc, bio, &io);
	trace_ssastripe_place(sc->devt, io ? io->id : 0, cs->idx, cs->member,
			      r, !!c, c && g->exact, cs->len,
			      ssa_trace_mdev(sc, cs), ssa_trace_bsector(sc, cs),
			      c ? g->start : 0, c ? c->end : 0);
}

/*
 * Dispatch of a read, or of a write with background propagation: send it
 * to replica @alt, which the dispatcher's scheduler chose from the disk's
 * prediction (@pc, @pg), or choose one (ops->place); only a replica that
 * holds the unit's data (all of them but while a write propagates).
 */
static void ssa_sr_place(struct ssa_ctx *sc, struct bio *bio,
			 struct ssa_cstate *cs, int alt,
			 const struct ssad_cand *pc, const struct ssad_guess *pg)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	struct ssa_member *mb = &sc->members[cs->member];
	struct ssa_sr_member *sm = &sr->m[cs->member];
	struct ssad_cand c[SSA_MAX_REPLICAS];
	unsigned int r, n = min_t(unsigned int, cs->alts, SSA_MAX_REPLICAS);
	u8 valid = ssa_sr_valid(sr, cs->member, cs->msector);
	struct ssad_guess g;
	int best = alt;

	if (best >= 0 && !(valid & BIT(best)))
		best = -1;
	if (best < 0) {
		for (r = 0; r < n; r++) {
			c[r].dsector = mb->offset + cs->msector +
				       (u64)r * sr->arc;
			c[r].len = valid & BIT(r) ? cs->len : 0;
			c[r].write = cs->op == SSA_OP_WRITE;
		}
		best = ssad_predict(mb->dev->bdev->bd_dev, c, n, &g);
		pc = best >= 0 ? &c[best] : NULL;
		pg = &g;
	}
	if (best >= 0) {
		atomic64_inc(&sm->predicted);
		WRITE_ONCE(sm->how, SSA_SR_PREDICTED);
	} else {
		best = ssa_sr_guess(sr, sm, cs->msector, n, valid);
		atomic64_inc(&sm->guessed);
		WRITE_ONCE(sm->how, SSA_SR_GUESSED);
	}
	if (cs->op == SSA_OP_WRITE) {
		r = ssa_sr_write_placed(sr, cs->member, cs->msector, best);
		if ((int)r != best)
			pc = NULL;	/* its set changed: not the one predicted */
		best = r;
	}
	cs->msector += (u64)best * sr->arc;
	cs->alts = 0;
	bio->bi_iter.bi_sector = mb->offset + cs->msector;
	WRITE_ONCE(sm->next, cs->msector + cs->len);
	if (trace_ssastripe_place_enabled())
		ssa_sr_trace_place(sc, bio, cs, best, pc, pg);
}

/* The scheduler's question: which of a waiting child's replicas it may use. */
static u8 ssa_sr_alt_mask(struct ssa_ctx *sc, struct ssa_cstate *cs)
{
	return ssa_sr_valid(ssa_sr_of(sc), cs->member, cs->msector);
}

/*
 * Status tail: <copies> <replicas> <track_sectors> <how> <predicted>
 * <guessed> <propagate> <stale> <copied> <dropped> <action>
 * <done>/<data_sectors> <mismatches>, <how> a character per member (enum
 * ssa_sr_how); stale, copied and dropped count units of background
 * propagation; the last three report the walks (ssa-srarray-walk.c).
 */
static unsigned int ssa_sr_status(struct ssa_ctx *sc, status_type_t type,
				  char *result, unsigned int maxlen,
				  unsigned int sz)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	const char *prop = ssa_opt_word(SSA_OPT_PROPAGATE,
					sc->opt[SSA_OPT_PROPAGATE]);
	struct ssa_sr_prop *p = sr->prop;
	u64 predicted = 0, guessed = 0;
	unsigned int m;

	if (type == STATUSTYPE_IMA) {
		DMEMIT(",copies=%u,replicas=%u,track_sectors=%u,propagate=%s",
		       sc->copies, sr->replicas, sr->track, prop);
		return sz;
	}
	DMEMIT(" %u %u %u ", sc->copies, sr->replicas, sr->track);
	for (m = 0; m < sc->nr_members; m++) {
		DMEMIT("%c", READ_ONCE(sr->m[m].how));
		predicted += atomic64_read(&sr->m[m].predicted);
		guessed += atomic64_read(&sr->m[m].guessed);
	}
	DMEMIT(" %llu %llu %s %llu %llu %llu", predicted, guessed, prop,
	       p ? READ_ONCE(p->nr_stale) : 0,
	       p ? (u64)atomic64_read(&p->copied) : 0,
	       p ? (u64)atomic64_read(&p->dropped) : 0);
	sz = ssa_bm_status(sr->w.bm, result, maxlen, sz);
	return ssa_walk_emit(&sr->w, result, maxlen, sz);
}

const struct ssa_layout_ops ssa_srarray_ops = {
	.opts = SSA_COMMON_OPTS | SSA_SCHED_OPTS | BIT(SSA_OPT_REPLICAS) |
		BIT(SSA_OPT_TRACK_SECTORS) | BIT(SSA_OPT_COPIES) |
		BIT(SSA_OPT_PROPAGATE) | BIT(SSA_OPT_REBUILD) |
		BIT(SSA_OPT_REBUILD_RATE) | BIT(SSA_OPT_BITMAP) |
		BIT(SSA_OPT_BITMAP_REGION),
	.check_opts = ssa_sr_check_opts,
	.check_geometry = ssa_sr_check_geometry,
	.alloc = ssa_sr_alloc,
	.free = ssa_sr_free,
	.map = ssa_sr_map,
	.join = ssa_sr_join,
	.place = ssa_sr_place,
	.alt_mask = ssa_sr_alt_mask,
	.fail = ssa_sr_fail,
	.scrub = ssa_sr_scrub,
	.idle = ssa_sr_idle,
	.opt_changed = ssa_sr_opt_changed,
	.status = ssa_sr_status,
	.stop = ssa_sr_stop,
	.start = ssa_sr_start,
	.prepare = ssa_sr_prepare,
	.quiesced = ssa_sr_quiesced,
};
