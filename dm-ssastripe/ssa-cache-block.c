// SPDX-License-Identifier: GPL-2.0-only
/*
 * ssacache: the blocks (lookup, allocation, their lists), the copies
 * between bios and blocks, the end of the target's bios (with the
 * emulated transfer), and the cache's own bios to the origin: fills,
 * destages and writes passing through.  Everything here runs in the work
 * item (ssa-cache-io.c) but the end_io callbacks, which only hand their
 * results over under the lock.
 */
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/math64.h>
#include <linux/vmalloc.h>

#include "ssa-cache-priv.h"
#include "ssa-compat.h"

/* -- the blocks -------------------------------------------------------- */

struct ssac_block *ssac_lookup(struct ssa_cache *sc, sector_t blk)
{
	struct ssac_block *b;

	hlist_for_each_entry(b, &sc->hash[hash_long(blk, sc->hash_bits)], hash)
		if (b->blk == blk)
			return b;
	return NULL;
}

unsigned int ssac_room(struct ssa_cache *sc)
{
	return sc->nr_free + sc->nr_clean;
}

/* A free block, else the least recently used clean one; @blk hashed. */
struct ssac_block *ssac_alloc(struct ssa_cache *sc, sector_t blk)
{
	struct ssac_block *b;

	if (sc->nr_free) {
		b = list_first_entry(&sc->free, struct ssac_block, list);
		sc->nr_free--;
	} else if (sc->nr_clean) {
		b = list_first_entry(&sc->lru, struct ssac_block, list);
		hlist_del(&b->hash);
		sc->nr_clean--;
	} else {
		return NULL;
	}
	list_del_init(&b->list);
	b->blk = blk;
	b->prefetched = false;
	b->demand = NULL;
	b->next = NULL;
	hlist_add_head(&b->hash, &sc->hash[hash_long(blk, sc->hash_bits)]);
	return b;
}

void ssac_forget(struct ssa_cache *sc, struct ssac_block *b)
{
	if (b->state == SSAC_CLEAN)
		sc->nr_clean--;
	else if (b->state == SSAC_DIRTY)
		sc->nr_dirty--;
	list_del(&b->list);
	hlist_del(&b->hash);
	b->state = SSAC_FREE;
	list_add_tail(&b->list, &sc->free);
	sc->nr_free++;
}

void ssac_make_clean(struct ssa_cache *sc, struct ssac_block *b)
{
	b->state = SSAC_CLEAN;
	list_add_tail(&b->list, &sc->lru);
	sc->nr_clean++;
}

/* Dirty since now; the dirty list stays in sequence order. */
void ssac_make_dirty(struct ssa_cache *sc, struct ssac_block *b)
{
	if (b->state == SSAC_DIRTY)
		return;
	if (b->state == SSAC_CLEAN) {
		list_del(&b->list);
		sc->nr_clean--;
	}
	b->state = SSAC_DIRTY;
	b->seq = ++sc->seq;
	list_add_tail(&b->list, &sc->dirty);
	sc->nr_dirty++;
}

/* Back to dirty after a failed destage, in its place by sequence. */
void ssac_redirty(struct ssa_cache *sc, struct ssac_block *b)
{
	struct ssac_block *pos;

	b->state = SSAC_DIRTY;
	list_for_each_entry(pos, &sc->dirty, list)
		if (pos->seq > b->seq)
			break;
	list_add_tail(&b->list, &pos->list);
}

/* -- copies between bios and blocks ------------------------------------- */

/*
 * Copy the part of @bio that lies in block @b: to the block (@to_block) or
 * from it.
 */
void ssac_copy(struct ssa_cache *sc, struct bio *bio,
	       struct ssac_block *b, bool to_block)
{
	sector_t start = b->blk << sc->block_shift;
	sector_t end = start + sc->block_sectors;
	void *data = ssac_data(sc, b);
	struct bvec_iter iter;
	struct bio_vec bv;
	sector_t s = bio->bi_iter.bi_sector;

	bio_for_each_segment(bv, bio, iter) {
		sector_t n = bv.bv_len >> SECTOR_SHIFT;

		if (s + n > start && s < end) {
			sector_t from = max(s, start), to = min(s + n, end);
			struct bio_vec part = bv;
			void *p = data + ((from - start) << SECTOR_SHIFT);

			part.bv_offset += (from - s) << SECTOR_SHIFT;
			part.bv_len = (to - from) << SECTOR_SHIFT;
			if (to_block)
				memcpy_from_bvec(p, &part);
			else
				memcpy_to_bvec(&part, p);
		}
		s += n;
	}
}

void ssac_zero(struct ssa_cache *sc, struct bio *bio,
	       struct ssac_block *b)
{
	sector_t start = b->blk << sc->block_shift;
	sector_t from = max(bio->bi_iter.bi_sector, start);
	sector_t to = min(bio_end_sector(bio), start + sc->block_sectors);

	memset(ssac_data(sc, b) + ((from - start) << SECTOR_SHIFT), 0,
	       (to - from) << SECTOR_SHIFT);
}

/* -- completion of the target's bios ------------------------------------ */

static enum hrtimer_restart ssac_timer_fn(struct hrtimer *timer)
{
	struct ssac_io *io = container_of(timer, struct ssac_io, timer);

	bio_endio(dm_bio_from_per_bio_data(io, sizeof(*io)));
	return HRTIMER_NORESTART;
}

/*
 * End @bio, after the emulated transfer when the table asks for one: the
 * cache is one server, busy for bytes / rate per request, first come first
 * served.
 */
void ssac_complete(struct ssa_cache *sc, struct bio *bio,
		   blk_status_t status)
{
	struct ssac_io *io = ssac_io(bio);
	u64 now, bytes = bio->bi_iter.bi_size;

	bio->bi_status = status;
	if (!sc->transfer_mbps || !bytes ||
	    bio_op(bio) == REQ_OP_DISCARD || bio_op(bio) == REQ_OP_WRITE_ZEROES) {
		bio_endio(bio);
		return;
	}
	now = ktime_get_ns();
	sc->busy_until = max(sc->busy_until, now) +
			 div_u64(bytes * 1000, sc->transfer_mbps);
	ssa_hrtimer_setup(&io->timer, ssac_timer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_ABS);
	hrtimer_start(&io->timer, ns_to_ktime(sc->busy_until), HRTIMER_MODE_ABS);
}

/* -- bios to the origin ------------------------------------------------- */

static void ssac_run_endio(struct bio *bio)
{
	struct ssac_job *job = container_of(bio, struct ssac_job, bio);
	struct ssac_block *first = job->first;
	struct ssa_cache *sc = job->sc;
	unsigned long flags;

	first->status = bio->bi_status;
	bio_put(bio);
	/* kicked under the lock: once the work item has the run, @sc may go */
	spin_lock_irqsave(&sc->lock, flags);
	list_add_tail(&first->done, &sc->runs);
	ssac_kick(sc);
	spin_unlock_irqrestore(&sc->lock, flags);
}

static void ssac_pass_endio(struct bio *bio)
{
	struct ssac_job *job = container_of(bio, struct ssac_job, bio);
	struct ssa_cache *sc = job->sc;
	struct bio *orig = job->orig;
	unsigned long flags;

	ssac_io(orig)->status = bio->bi_status;
	bio_put(bio);
	spin_lock_irqsave(&sc->lock, flags);
	bio_list_add(&sc->passed, orig);
	ssac_kick(sc);
	spin_unlock_irqrestore(&sc->lock, flags);
}

void ssac_oflush_endio(struct bio *bio)
{
	struct ssac_job *job = container_of(bio, struct ssac_job, bio);
	struct ssa_cache *sc = job->sc;
	unsigned long flags;

	sc->oflush_status = bio->bi_status;
	bio_put(bio);
	spin_lock_irqsave(&sc->lock, flags);
	sc->oflush_done = true;
	ssac_kick(sc);
	spin_unlock_irqrestore(&sc->lock, flags);
}

struct ssac_job *ssac_new_job(struct ssa_cache *sc, unsigned int vecs,
			      blk_opf_t opf, bio_end_io_t *endio)
{
	struct bio *bio = bio_alloc_bioset(sc->origin->bdev, vecs, opf,
					   GFP_NOIO, &sc->bs);
	struct ssac_job *job = container_of(bio, struct ssac_job, bio);

	job->sc = sc;
	job->first = NULL;
	job->orig = NULL;
	bio->bi_end_io = endio;
	return job;
}

/*
 * One bio for the run of consecutive blocks starting at @first (chained by
 * ->next): a fill (read) or a destage (write).
 */
static void ssac_submit_run(struct ssa_cache *sc, struct ssac_block *first,
			    unsigned int n, bool write)
{
	unsigned int pages = ssac_block_bytes(sc) >> PAGE_SHIFT;
	struct ssac_job *job;
	struct ssac_block *b;
	unsigned int i;

	job = ssac_new_job(sc, n * pages, write ? REQ_OP_WRITE : REQ_OP_READ,
			   ssac_run_endio);
	job->first = first;
	job->bio.bi_iter.bi_sector = first->blk << sc->block_shift;
	if (!write)
		sc->nr_fill_runs++;
	for (b = first; b; b = b->next) {
		void *data = ssac_data(sc, b);

		flush_kernel_vmap_range(data, ssac_block_bytes(sc));
		for (i = 0; i < pages; i++)
			__bio_add_page(&job->bio,
				       vmalloc_to_page(data + (i << PAGE_SHIFT)),
				       PAGE_SIZE, 0);
	}
	submit_bio_noacct(&job->bio);
}

unsigned int ssac_run_limit(struct ssa_cache *sc)
{
	return max_t(unsigned int, 1,
		     BIO_MAX_VECS / (ssac_block_bytes(sc) >> PAGE_SHIFT));
}

/* -- passing writes ----------------------------------------------------- */

bool ssac_overlaps_passing(struct ssa_cache *sc, sector_t start,
			   sector_t end)
{
	struct ssac_io *io;

	list_for_each_entry(io, &sc->passing, passing) {
		struct bio *bio = dm_bio_from_per_bio_data(io, sizeof(*io));

		if (bio->bi_iter.bi_sector < end && bio_end_sector(bio) > start)
			return true;
	}
	return false;
}

bool ssac_block_passing(struct ssa_cache *sc, struct ssac_block *b)
{
	sector_t start = b->blk << sc->block_shift;

	return ssac_overlaps_passing(sc, start, start + sc->block_sectors);
}

void ssac_send(struct ssa_cache *sc, struct bio *bio)
{
	struct ssac_job *job;
	struct bio *clone;

	clone = bio_alloc_clone(sc->origin->bdev, bio, GFP_NOIO, &sc->bs);
	job = container_of(clone, struct ssac_job, bio);
	job->sc = sc;
	job->first = NULL;
	job->orig = bio;
	clone->bi_end_io = ssac_pass_endio;
	if (op_is_write(bio_op(bio)))
		list_add_tail(&ssac_io(bio)->passing, &sc->passing);
	submit_bio_noacct(clone);
}

/* -- destaging ---------------------------------------------------------- */

/*
 * Destage @b with the dirty blocks that follow it on the origin, as one
 * write of at most @limit blocks.  The blocks must not be under a passing
 * write.
 */
void ssac_destage_run(struct ssa_cache *sc, struct ssac_block *b,
		      unsigned int limit)
{
	unsigned int n = 1;
	struct ssac_block *last = b, *nb;

	limit = min(limit, sc->destage_run);
	list_move_tail(&b->list, &sc->destaging);
	b->state = SSAC_DESTAGE;
	b->next = NULL;
	while (n < limit) {
		nb = ssac_lookup(sc, last->blk + 1);
		if (!nb || nb->state != SSAC_DIRTY || ssac_block_passing(sc, nb))
			break;
		list_move_tail(&nb->list, &sc->destaging);
		nb->state = SSAC_DESTAGE;
		nb->next = NULL;
		last->next = nb;
		last = nb;
		n++;
	}
	sc->nr_destage_runs++;
	sc->nr_destaging += n;
	ssac_submit_run(sc, b, n, true);
}

/* The oldest dirty block that may be destaged now, if any. */
struct ssac_block *ssac_oldest_dirty(struct ssa_cache *sc, u64 upto)
{
	struct ssac_block *b;

	list_for_each_entry(b, &sc->dirty, list) {
		if (b->seq > upto)
			break;
		if (!ssac_block_passing(sc, b))
			return b;
	}
	return NULL;
}

/*
 * Background destaging: start above high_water, go on down to low_water;
 * any time while a write waits for dirty room or a suspend drains.
 */
void ssac_destage(struct ssa_cache *sc)
{
	unsigned int pending, limit;
	struct ssac_block *b;

	if (sc->failed)
		return;
	if (sc->nr_dirty > sc->high_water)
		sc->destaging_on = true;
	for (;;) {
		/* dirty blocks not already on their way */
		pending = sc->nr_dirty - sc->nr_destaging;
		if (pending <= sc->low_water)
			sc->destaging_on = false;
		if (!pending ||
		    (!sc->draining && !sc->nr_throttled && !sc->destaging_on))
			break;
		if (sc->nr_destage_runs >= sc->destage_depth && !sc->draining)
			break;
		b = ssac_oldest_dirty(sc, U64_MAX);
		if (!b)
			break;
		/* down to the low water mark, not below it (but to drain) */
		limit = ssac_run_limit(sc);
		if (!sc->draining && !sc->nr_throttled)
			limit = min(limit, pending - sc->low_water);
		ssac_destage_run(sc, b, limit);
	}
}

/* -- the target's bios ---------------------------------------------------- */

/*
 * Fill the absent blocks of [first, last] (allocated by the caller's
 * check of the room), as runs of consecutive blocks; @demand is the read
 * that waits for them, or NULL for a prefetch.
 */
void ssac_fill(struct ssa_cache *sc, sector_t first, sector_t last,
	       struct bio *demand)
{
	unsigned int n = 0, limit = ssac_run_limit(sc);
	struct ssac_block *head = NULL, *tail = NULL, *b;
	sector_t blk;

	for (blk = first; blk <= last; blk++) {
		b = ssac_lookup(sc, blk);
		if (b || !ssac_room(sc) ||
		    ssac_overlaps_passing(sc, blk << sc->block_shift,
					  (blk + 1) << sc->block_shift)) {
			/*
			 * present, no room for a prefetch, or a write passing
			 * through (the fill could read what it replaces): the
			 * run ends
			 */
			if (head)
				ssac_submit_run(sc, head, n, false);
			head = NULL;
			continue;
		}
		b = ssac_alloc(sc, blk);
		b->state = SSAC_FILL;
		b->demand = demand;
		b->prefetched = !demand;
		if (!demand)
			sc->st.prefetched++;
		if (head && n < limit) {
			tail->next = b;
			tail = b;
			n++;
			continue;
		}
		if (head)
			ssac_submit_run(sc, head, n, false);
		head = b;
		tail = b;
		n = 1;
	}
	if (head)
		ssac_submit_run(sc, head, n, false);
}
