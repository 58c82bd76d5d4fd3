// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the srarray layout, seed 003's SR-Array with Dm = 1 (a
 * Ds x Dr x 1 array): data striped over the Ds members, and every block
 * written Dr times on its member, in one track, 1/Dr of a turn apart, so
 * that a read waits for whichever replica comes round first.
 *
 * A member's data space (the stripe layout's member sectors) is cut into
 * arcs of track_sectors / replicas sectors; the arc holding data-space
 * sector u is written at the same place in each of the replicas arcs of
 * one track (ssa_sr_sector()).  A write goes to every replica: one child
 * per chunk piece and replica, joined when all are on the member (the
 * seed's foreground propagation).  A read is one child per chunk piece
 * that carries its alternatives (cs.alts) to the dispatcher, which asks
 * the layout to place it just before it leaves (ssa_sr_place()): then the
 * member's ssadisk, if it is one, predicts which replica it would finish
 * first behind everything it already holds (ssad_predict()).  On a member
 * that is not an ssadisk, the replica taken is the first after where the
 * last child placed on that member ended, a guess that assumes no time
 * passed; the status says which members were predicted.
 *
 * See Documentation/srarray.rst.
 */
#include <linux/overflow.h>
#include <linux/slab.h>

#include "ssa-disk.h"
#include "ssa-io.h"

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

struct ssa_sr {
	u32 replicas;		/* Dr */
	u32 track;		/* sectors a track */
	u32 arc;		/* track / replicas */
	struct ssa_sr_member m[];
};

static inline struct ssa_sr *ssa_sr_of(struct ssa_ctx *sc)
{
	return sc->priv;
}

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
	return 0;
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

static int ssa_sr_alloc(struct ssa_ctx *sc)
{
	struct ssa_sr *sr;
	unsigned int m;

	sr = kzalloc(struct_size(sr, m, sc->nr_members), GFP_KERNEL);
	if (!sr) {
		sc->ti->error = "Cannot allocate srarray state";
		return -ENOMEM;
	}
	sr->replicas = sc->opt[SSA_OPT_REPLICAS];
	sr->track = sc->opt[SSA_OPT_TRACK_SECTORS];
	sr->arc = sr->track / sr->replicas;
	sc->alt_stride = sr->arc;
	for (m = 0; m < sc->nr_members; m++) {
		atomic64_set(&sr->m[m].predicted, 0);
		atomic64_set(&sr->m[m].guessed, 0);
		sr->m[m].how = SSA_SR_NONE;
	}
	sc->priv = sr;
	return 0;
}

static void ssa_sr_free(struct ssa_ctx *sc)
{
	kfree(sc->priv);
	sc->priv = NULL;
}

/*
 * Reads and writes: a child per chunk piece, and per replica for a write.
 * A read child is sent with replica 0's place and its alternatives; the
 * dispatcher has it placed.  Flushes go to every member (ssa_map_data()).
 */
static int ssa_sr_map(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		      u8 op, u64 start, u64 end)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	unsigned int copies, r;
	struct ssa_extent e;
	u64 ls, len;

	if (op != SSA_OP_READ && op != SSA_OP_WRITE)
		return ssa_map_data(sc, io, bio, op, start, end);

	copies = op == SSA_OP_WRITE ? sr->replicas : 1;
	ssa_fork_begin(sc, io, op, start, end,
		       ssa_chunks(sc, start, end) * copies);
	for (ls = start; ls < end; ls += len) {
		ssa_stripe_map(&sc->geom, ls, &e);
		len = min(e.len, end - ls);
		for (r = 0; r < copies; r++) {
			struct bio *child;

			child = ssa_clone(sc, io, bio, e.member,
					  ssa_sr_sector(e.msector, sr->track,
							sr->replicas, r));
			if (!child)
				continue;
			bio_trim(child, ls - start, len);
			if (copies == 1 && sr->replicas > 1)
				to_child(child)->cs.alts = sr->replicas;
			ssa_issue(sc, io, child);
		}
	}
	ssa_io_put(io);
	return DM_MAPIO_SUBMITTED;
}

/*
 * No model: the replica whose first sector comes round first after the
 * end of the last read placed on the member, were the platter still there.
 */
static unsigned int ssa_sr_guess(struct ssa_sr *sr, struct ssa_sr_member *sm,
				 u64 msector, unsigned int n)
{
	u32 head, pos, best_d = U32_MAX;
	unsigned int r, best = 0;

	div_u64_rem(READ_ONCE(sm->next), sr->track, &head);
	div_u64_rem(msector, sr->track, &pos);
	for (r = 0; r < n; r++) {
		u32 at = (pos + r * sr->arc) % sr->track;
		u32 d = (at + sr->track - head) % sr->track;

		if (d < best_d) {
			best_d = d;
			best = r;
		}
	}
	return best;
}

/*
 * Dispatch of a read: send it to replica @alt, which the dispatcher's
 * scheduler chose from the disk's prediction, or choose one (ops->place).
 */
static void ssa_sr_place(struct ssa_ctx *sc, struct bio *bio,
			 struct ssa_cstate *cs, int alt)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	struct ssa_member *mb = &sc->members[cs->member];
	struct ssa_sr_member *sm = &sr->m[cs->member];
	struct ssad_cand c[SSA_MAX_REPLICAS];
	unsigned int r, n = min_t(unsigned int, cs->alts, SSA_MAX_REPLICAS);
	struct ssad_guess g;
	int best = alt;

	if (best < 0) {
		for (r = 0; r < n; r++) {
			c[r].dsector = mb->offset + cs->msector +
				       (u64)r * sr->arc;
			c[r].len = cs->len;
			c[r].write = cs->op == SSA_OP_WRITE;
		}
		best = ssad_predict(mb->dev->bdev->bd_dev, c, n, &g);
	}
	if (best >= 0) {
		atomic64_inc(&sm->predicted);
		WRITE_ONCE(sm->how, SSA_SR_PREDICTED);
	} else {
		best = ssa_sr_guess(sr, sm, cs->msector, n);
		atomic64_inc(&sm->guessed);
		WRITE_ONCE(sm->how, SSA_SR_GUESSED);
	}
	cs->msector += (u64)best * sr->arc;
	cs->alts = 0;
	bio->bi_iter.bi_sector = mb->offset + cs->msector;
	WRITE_ONCE(sm->next, cs->msector + cs->len);
}

/*
 * Status tail: <replicas> <track_sectors> <how> <predicted> <guessed>,
 * <how> a character per member (enum ssa_sr_how).
 */
static unsigned int ssa_sr_status(struct ssa_ctx *sc, status_type_t type,
				  char *result, unsigned int maxlen,
				  unsigned int sz)
{
	struct ssa_sr *sr = ssa_sr_of(sc);
	u64 predicted = 0, guessed = 0;
	unsigned int m;

	if (type == STATUSTYPE_IMA) {
		DMEMIT(",replicas=%u,track_sectors=%u", sr->replicas,
		       sr->track);
		return sz;
	}
	DMEMIT(" %u %u ", sr->replicas, sr->track);
	for (m = 0; m < sc->nr_members; m++) {
		DMEMIT("%c", READ_ONCE(sr->m[m].how));
		predicted += atomic64_read(&sr->m[m].predicted);
		guessed += atomic64_read(&sr->m[m].guessed);
	}
	DMEMIT(" %llu %llu", predicted, guessed);
	return sz;
}

const struct ssa_layout_ops ssa_srarray_ops = {
	.opts = SSA_COMMON_OPTS | SSA_SCHED_OPTS | BIT(SSA_OPT_REPLICAS) |
		BIT(SSA_OPT_TRACK_SECTORS),
	.check_opts = ssa_sr_check_opts,
	.check_geometry = ssa_sr_check_geometry,
	.alloc = ssa_sr_alloc,
	.free = ssa_sr_free,
	.map = ssa_sr_map,
	.place = ssa_sr_place,
	.status = ssa_sr_status,
};
