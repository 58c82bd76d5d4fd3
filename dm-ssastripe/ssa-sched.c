// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the order in which a member's dispatcher serves the
 * children waiting in one class (option and message "sched"; the classes
 * themselves keep their non-preemptive priority):
 *
 *   fifo   arrival order (the default);
 *   rsatf  shortest access time first: of the children at the head of the
 *          queue (up to SSA_SCHED_CANDS places), and of every place each
 *          may go to (srarray's rotational replicas), the one the member's
 *          ssadisk predicts would end first -- seed 003's RSATF, which is
 *          SATF for children with one place;
 *   rlook  LOOK over the cylinders the disk predicts: the arm keeps its
 *          direction while anything lies ahead of it, turning round
 *          otherwise; among the places on the nearest cylinder ahead, the
 *          one that would end first -- seed 003's RLOOK.
 *
 * A child passed over SSA_SCHED_MAX_PASSES times at the head of its queue
 * goes next, so none waits for ever.  Nothing passes a child that is not
 * a plain read or write (a flush, a discard): the window ends there.  A
 * member whose disk cannot be asked (not an ssadisk, or suspended) is
 * served in arrival order.  Everything here runs under the member's
 * dispatcher lock; the question to the disk takes the disk's lock inside
 * it, and the disk never calls back.
 */
#include <linux/slab.h>

#include "ssa-disk.h"
#include "dm-ssastripe.h"

/* The questions each member's scheduler puts to its disk, if it may. */
int ssa_sched_alloc(struct ssa_ctx *sc)
{
	unsigned int m;

	if (!(sc->ops->opts & SSA_SCHED_OPTS))
		return 0;
	for (m = 0; m < sc->nr_members; m++) {
		sc->members[m].cand = kcalloc(SSA_SCHED_CANDS,
					      sizeof(struct ssad_cand),
					      GFP_KERNEL);
		if (!sc->members[m].cand)
			return -ENOMEM;
	}
	return 0;
}

void ssa_sched_free(struct ssa_ctx *sc)
{
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++) {
		kfree(sc->members[m].cand);
		sc->members[m].cand = NULL;
	}
}

/* May the scheduler move this child, or others past it? */
static bool ssa_sched_movable(struct bio *bio, struct ssa_cstate *cs)
{
	return (cs->op == SSA_OP_READ || cs->op == SSA_OP_WRITE) &&
	       !(bio->bi_opf & REQ_PREFLUSH);
}

static unsigned int ssa_sched_nr_alts(struct ssa_cstate *cs)
{
	return cs->alts ? cs->alts : 1;
}

/* The questions: every place of the movable children at the head of @q. */
static unsigned int ssa_sched_fill(struct ssa_ctx *sc, struct ssa_member *mb,
				   struct bio_list *q)
{
	struct ssa_cstate *cs;
	struct ssa_io *io;
	struct bio *bio;
	unsigned int n = 0, r, alts;
	u8 mask;

	for (bio = q->head; bio; bio = bio->bi_next) {
		cs = ssa_cstate_of(sc, bio, &io);
		alts = ssa_sched_nr_alts(cs);
		if (!ssa_sched_movable(bio, cs) || n + alts > SSA_SCHED_CANDS)
			break;
		mask = cs->alts && sc->ops->alt_mask ?
		       sc->ops->alt_mask(sc, cs) : U8_MAX;
		for (r = 0; r < alts; r++, n++) {
			mb->cand[n].dsector = mb->offset + cs->msector +
					      (u64)r * sc->alt_stride;
			/* a place without the data is no candidate */
			mb->cand[n].len = mask & BIT(r) ? cs->len : 0;
			mb->cand[n].write = cs->op == SSA_OP_WRITE;
		}
	}
	return n;
}

/*
 * LOOK: the nearest cylinder ahead of the arm in the sweep's direction
 * (the arm's own included), else turn round; ties by the earlier end.
 */
static int ssa_sched_look(struct ssa_member *mb, unsigned int n, u32 arm)
{
	int ahead = -1, behind = -1;
	u64 da = U64_MAX, db = U64_MAX;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ssad_cand *c = &mb->cand[i];
		bool fwd = mb->sweep_up ? c->cyl >= arm : c->cyl <= arm;
		u64 d = c->cyl > arm ? c->cyl - arm : arm - c->cyl;

		if (c->end == U64_MAX)
			continue;
		if (fwd && (d < da || (d == da && c->end < mb->cand[ahead].end))) {
			ahead = i;
			da = d;
		} else if (!fwd &&
			   (d < db || (d == db && c->end < mb->cand[behind].end))) {
			behind = i;
			db = d;
		}
	}
	if (ahead >= 0)
		return ahead;
	mb->sweep_up = !mb->sweep_up;
	return behind;
}

/*
 * Take the next child to dispatch from @q (not empty), as the volume's
 * sched says; a child with alternatives chosen here is placed here.
 */
struct bio *ssa_sched_pop(struct ssa_ctx *sc, struct ssa_member *mb,
			  struct bio_list *q)
{
	unsigned int sched = READ_ONCE(sc->sched), n, k = 0, alts;
	struct bio *bio, *prev = NULL;
	struct ssa_cstate *cs;
	struct ssad_guess g;
	struct ssa_io *io;
	int best;

	if (sched == SSA_SCHED_FIFO || !mb->cand || !q->head->bi_next)
		return bio_list_pop(q);
	cs = ssa_cstate_of(sc, q->head, &io);
	if (cs->passes >= SSA_SCHED_MAX_PASSES)
		return bio_list_pop(q);
	n = ssa_sched_fill(sc, mb, q);
	if (n < 2)
		return bio_list_pop(q);
	best = ssad_predict(mb->dev->bdev->bd_dev, mb->cand, n, &g);
	if (best >= 0 && sched == SSA_SCHED_RLOOK)
		best = ssa_sched_look(mb, n, g.arm);
	if (best < 0)
		return bio_list_pop(q);

	/* the child whose places the winner is among */
	for (bio = q->head; bio; prev = bio, bio = bio->bi_next) {
		cs = ssa_cstate_of(sc, bio, &io);
		alts = ssa_sched_nr_alts(cs);
		if (best < k + alts)
			break;
		k += alts;
	}
	if (!prev) {
		bio_list_pop(q);
	} else {
		struct ssa_cstate *head = ssa_cstate_of(sc, q->head, &io);

		head->passes++;
		prev->bi_next = bio->bi_next;
		if (q->tail == bio)
			q->tail = prev;
		bio->bi_next = NULL;
	}
	if (cs->alts)
		sc->ops->place(sc, bio, cs, best - k, &mb->cand[best], &g);
	return bio;
}
