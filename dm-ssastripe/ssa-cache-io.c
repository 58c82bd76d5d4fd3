// SPDX-License-Identifier: GPL-2.0-only
/*
 * ssacache: the work item -- the target's bios (reads, writes, discards,
 * write-zeroes and flushes), tried in arrival order and again after every
 * change, the sequential streams and their prefetch, and what the
 * completions of the cache's own bios change.  See ssa-cache.c for the
 * rules that keep the data right.
 */
#include <linux/vmalloc.h>

#include "ssa-cache-priv.h"

#define DM_MSG_PREFIX "ssacache"

static void ssac_stream(struct ssa_cache *sc, sector_t first, sector_t end);

static sector_t ssac_first(struct ssa_cache *sc, struct bio *bio)
{
	return bio->bi_iter.bi_sector >> sc->block_shift;
}

static sector_t ssac_last(struct ssa_cache *sc, struct bio *bio)
{
	return (bio_end_sector(bio) - 1) >> sc->block_shift;
}

/*
 * A read that bypasses the cache: after the dirty blocks it covers are
 * destaged -- but for a failed cache, which destages nothing: its read
 * goes at once and gets the dirty blocks copied over it when it is back
 * (nothing can make them clean meanwhile).
 */
static bool ssac_bypass_read(struct ssa_cache *sc, struct bio *bio)
{
	sector_t blk, last = ssac_last(sc, bio);
	bool wait = false;
	struct ssac_block *b;

	for (blk = ssac_first(sc, bio); blk <= last; blk++) {
		b = ssac_lookup(sc, blk);
		if (!b || b->state == SSAC_CLEAN)
			continue;
		if (b->state == SSAC_DIRTY && sc->failed) {
			ssac_io(bio)->overlay = true;
			continue;
		}
		wait = true;
		if (b->state == SSAC_DIRTY && !ssac_block_passing(sc, b))
			ssac_destage_run(sc, b, ssac_run_limit(sc));
	}
	if (wait || ssac_overlaps_passing(sc, bio->bi_iter.bi_sector,
					  bio_end_sector(bio)))
		return false;
	ssac_send(sc, bio);
	return true;
}

static bool ssac_read(struct ssa_cache *sc, struct bio *bio)
{
	struct ssac_io *io = ssac_io(bio);
	sector_t blk, first = ssac_first(sc, bio), last = ssac_last(sc, bio);
	unsigned int absent = 0;
	struct ssac_block *b;

	if (io->status) {	/* the fill it waited for failed */
		ssac_complete(sc, bio, io->status);
		return true;
	}
	if (bio_sectors(bio) > sc->cache_max) {
		if (!io->seen)
			sc->st.read_misses++;
		io->seen = true;
		return ssac_bypass_read(sc, bio);
	}
	for (blk = first; blk <= last; blk++) {
		b = ssac_lookup(sc, blk);
		if (!b)
			absent++;
		else if (b->state == SSAC_FILL)
			return false;
	}
	if (!absent) {
		for (blk = first; blk <= last; blk++) {
			b = ssac_lookup(sc, blk);
			if (b->prefetched) {
				b->prefetched = false;
				sc->st.prefetch_hits++;
			}
			if (b->state == SSAC_CLEAN)
				list_move_tail(&b->list, &sc->lru);
			ssac_copy(sc, bio, b, false);
		}
		if (!io->seen) {
			sc->st.read_hits++;
			ssac_stream(sc, first, last + 1);
		}
		ssac_complete(sc, bio, BLK_STS_OK);
		return true;
	}
	if (!io->seen) {
		bool fill = ssac_room(sc) >= absent &&
			    !ssac_overlaps_passing(sc, first << sc->block_shift,
						   (last + 1) << sc->block_shift);

		sc->st.read_misses++;
		io->seen = true;
		if (fill) {
			/* keep the blocks it has from being taken for the rest */
			for (blk = first; blk <= last; blk++) {
				b = ssac_lookup(sc, blk);
				if (b && b->state == SSAC_CLEAN)
					list_move_tail(&b->list, &sc->lru);
			}
			ssac_fill(sc, first, last, bio);
		}
		ssac_stream(sc, first, last + 1);
		if (fill)
			return false;
	}
	/* no room, a write passing, or a block gone again: bypass */
	return ssac_bypass_read(sc, bio);
}

/* A write, write-zeroes or discard sent through to the origin. */
static bool ssac_write_through(struct ssa_cache *sc, struct bio *bio)
{
	sector_t blk, last = ssac_last(sc, bio);
	sector_t start = bio->bi_iter.bi_sector, end = bio_end_sector(bio);
	struct ssac_block *b;

	for (blk = ssac_first(sc, bio); blk <= last; blk++) {
		b = ssac_lookup(sc, blk);
		if (b && (b->state == SSAC_FILL || b->state == SSAC_DESTAGE))
			return false;
		if (!(blk & 4095))	/* a discard of a whole disk is long */
			cond_resched();
	}
	for (blk = ssac_first(sc, bio); blk <= last; blk++) {
		b = ssac_lookup(sc, blk);
		if (!(blk & 4095))
			cond_resched();
		if (!b)
			continue;
		if (b->state == SSAC_CLEAN) {
			ssac_forget(sc, b);
			continue;
		}
		/* dirty: keep it right; it is not destaged while this passes */
		switch (bio_op(bio)) {
		case REQ_OP_WRITE:
			ssac_copy(sc, bio, b, true);
			break;
		case REQ_OP_WRITE_ZEROES:
			ssac_zero(sc, bio, b);
			break;
		default:	/* discard: a block it covers whole is gone */
			if (start <= b->blk << sc->block_shift &&
			    end >= (b->blk + 1) << sc->block_shift)
				ssac_forget(sc, b);
			break;
		}
	}
	if (bio_op(bio) == REQ_OP_WRITE)
		sc->st.write_through++;
	ssac_send(sc, bio);
	return true;
}

static bool ssac_write(struct ssa_cache *sc, struct bio *bio)
{
	struct ssac_io *io = ssac_io(bio);
	sector_t blk, first = ssac_first(sc, bio), last = ssac_last(sc, bio);
	unsigned int absent = 0, clean = 0;
	struct ssac_block *b;

	if (bio_sectors(bio) > sc->cache_max || sc->failed ||
	    (bio->bi_opf & REQ_FUA))
		return ssac_write_through(sc, bio);
	for (blk = first; blk <= last; blk++) {
		b = ssac_lookup(sc, blk);
		if (!b) {
			/* part of an absent block: not absorbed */
			if (bio->bi_iter.bi_sector > blk << sc->block_shift ||
			    bio_end_sector(bio) < (blk + 1) << sc->block_shift)
				return ssac_write_through(sc, bio);
			absent++;
		} else if (b->state == SSAC_FILL || b->state == SSAC_DESTAGE) {
			return false;
		} else if (b->state == SSAC_CLEAN) {
			clean++;
		}
	}
	/*
	 * Room for the absent blocks, not counting its own clean ones; and
	 * none taken past an earlier write that waits for room (else a
	 * stream of small writes could keep a large one waiting for ever).
	 */
	if (sc->nr_dirty + absent + clean > sc->max_dirty ||
	    ssac_room(sc) - clean < absent || (sc->gate && absent + clean)) {
		sc->gate = true;
		if (!io->throttled) {
			io->throttled = true;
			sc->st.throttled++;
			sc->nr_throttled++;
		}
		return false;
	}
	/* the blocks it has first (off the LRU), then new ones */
	for (blk = first; blk <= last; blk++) {
		b = ssac_lookup(sc, blk);
		if (b) {
			ssac_copy(sc, bio, b, true);
			b->prefetched = false;
			ssac_make_dirty(sc, b);
		}
	}
	for (blk = first; absent && blk <= last; blk++) {
		if (ssac_lookup(sc, blk))
			continue;
		b = ssac_alloc(sc, blk);
		b->state = SSAC_FREE;
		ssac_copy(sc, bio, b, true);
		ssac_make_dirty(sc, b);
		absent--;
	}
	sc->st.write_hits++;
	ssac_complete(sc, bio, BLK_STS_OK);
	return true;
}

/* Try @bio; false while it must wait. */
static bool ssac_handle(struct ssa_cache *sc, struct bio *bio)
{
	struct ssac_io *io = ssac_io(bio);
	bool done;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return ssac_read(sc, bio);
	case REQ_OP_WRITE:
		done = ssac_write(sc, bio);
		if (done && io->throttled)
			sc->nr_throttled--;
		return done;
	default:	/* discard, write-zeroes */
		return ssac_write_through(sc, bio);
	}
}

/* -- sequential streams and prefetch ------------------------------------ */

static void ssac_stream(struct ssa_cache *sc, sector_t first, sector_t end)
{
	struct ssac_stream *s, *hit = NULL, *old = &sc->streams[0];
	sector_t nr = sc->ti->len >> sc->block_shift;

	for (s = sc->streams; s < sc->streams + SSAC_STREAMS; s++) {
		if (s->count && s->next == first) {
			hit = s;
			break;
		}
		if (s->stamp < old->stamp)
			old = s;
	}
	if (!hit) {
		hit = old;
		hit->count = 0;
	}
	hit->count++;
	hit->next = end;
	hit->stamp = ++sc->stream_clock;
	if (sc->prefetch && hit->count >= SSAC_SEQ_TRIGGER && end < nr)
		ssac_fill(sc, end, min_t(sector_t, end + sc->prefetch, nr) - 1,
			  NULL);
}

/* -- flushes ------------------------------------------------------------ */

static u64 ssac_oldest_seq(struct ssa_cache *sc)
{
	struct ssac_block *b;
	u64 seq = U64_MAX;

	if (!list_empty(&sc->dirty))
		seq = list_first_entry(&sc->dirty, struct ssac_block, list)->seq;
	list_for_each_entry(b, &sc->destaging, list)
		seq = min(seq, b->seq);
	return seq;
}

/*
 * The empty flushes, oldest first: each waits for the blocks dirty when it
 * came to be destaged, then for one origin flush that carries every flush
 * whose blocks are out.
 */
static void ssac_flushes(struct ssa_cache *sc)
{
	struct ssac_job *job;
	struct ssac_block *b;
	struct bio *bio;
	u64 oldest;

	while ((bio = bio_list_peek(&sc->flushes))) {
		u64 seq = ssac_io(bio)->flush_seq;

		oldest = ssac_oldest_seq(sc);
		if (oldest <= seq) {
			if (sc->failed && list_empty(&sc->destaging)) {
				bio_list_pop(&sc->flushes);
				ssac_complete(sc, bio, BLK_STS_IOERR);
				continue;
			}
			while (!sc->failed && (b = ssac_oldest_dirty(sc, seq)))
				ssac_destage_run(sc, b, ssac_run_limit(sc));
			return;
		}
		if (sc->oflush_busy)
			return;
		/* every flush whose blocks are out rides on one origin flush */
		while ((bio = bio_list_peek(&sc->flushes)) &&
		       ssac_io(bio)->flush_seq < oldest)
			bio_list_add(&sc->flushing, bio_list_pop(&sc->flushes));
		sc->oflush_busy = true;
		job = ssac_new_job(sc, 0, REQ_OP_WRITE | REQ_PREFLUSH,
				   ssac_oflush_endio);
		submit_bio_noacct(&job->bio);
		return;
	}
}

/* -- the work item ------------------------------------------------------ */

static void ssac_run_done(struct ssa_cache *sc, struct ssac_block *first)
{
	blk_status_t status = first->status;
	struct ssac_block *b, *next;

	if (first->state == SSAC_FILL)
		sc->nr_fill_runs--;
	if (first->state == SSAC_DESTAGE) {
		sc->nr_destage_runs--;
		if (status) {
			sc->st.destage_errors++;
			if (!sc->failed)
				DMERR("destage failed (%d): writes now go through, flushes fail",
				      blk_status_to_errno(status));
			sc->failed = true;
		}
	}
	for (b = first; b; b = next) {
		next = b->next;
		b->next = NULL;
		if (b->state == SSAC_DESTAGE) {
			list_del(&b->list);
			sc->nr_destaging--;
			if (status) {
				ssac_redirty(sc, b);
				continue;
			}
			sc->nr_dirty--;
			sc->st.destaged++;
			ssac_make_clean(sc, b);
			continue;
		}
		/* a fill */
		if (status) {
			sc->st.fill_errors++;
			if (b->demand)
				ssac_io(b->demand)->status = status;
			hlist_del(&b->hash);
			b->state = SSAC_FREE;
			list_add_tail(&b->list, &sc->free);
			sc->nr_free++;
			continue;
		}
		invalidate_kernel_vmap_range(ssac_data(sc, b), ssac_block_bytes(sc));
		b->demand = NULL;
		ssac_make_clean(sc, b);
	}
}

static void ssac_crash(struct ssa_cache *sc)
{
	struct ssac_block *b, *tmp;
	struct bio *bio;
	unsigned int dirty = 0;

	list_for_each_entry_safe(b, tmp, &sc->dirty, list) {
		ssac_forget(sc, b);
		dirty++;
	}
	list_for_each_entry_safe(b, tmp, &sc->lru, list)
		ssac_forget(sc, b);
	sc->st.lost += dirty;
	/* what the waiting flushes were to make durable is gone */
	while ((bio = bio_list_pop(&sc->flushes)))
		ssac_complete(sc, bio, BLK_STS_IOERR);
	DMWARN("crash: %u dirty blocks dropped", dirty);
}

static void ssac_retry(struct ssa_cache *sc)
{
	struct bio_list again = BIO_EMPTY_LIST;
	struct bio *bio;

	sc->gate = false;
	while ((bio = bio_list_pop(&sc->waiting))) {
		if (op_is_flush(bio->bi_opf) && !bio_sectors(bio) &&
		    bio_op(bio) == REQ_OP_WRITE) {
			ssac_io(bio)->flush_seq = sc->seq;
			bio_list_add(&sc->flushes, bio);
			continue;
		}
		if (!ssac_handle(sc, bio))
			bio_list_add(&again, bio);
	}
	sc->waiting = again;
}

/* The dirty blocks a read from a failed cache's origin must show. */
static void ssac_overlay(struct ssa_cache *sc, struct bio *bio)
{
	sector_t blk, last = ssac_last(sc, bio);
	struct ssac_block *b;

	for (blk = ssac_first(sc, bio); blk <= last; blk++) {
		b = ssac_lookup(sc, blk);
		if (b && b->state == SSAC_DIRTY)
			ssac_copy(sc, bio, b, false);
	}
}

void ssac_work(struct work_struct *work)
{
	struct ssa_cache *sc = container_of(work, struct ssa_cache, work);
	struct bio_list in, passed, flushed;
	struct ssac_block *b, *tmp;
	blk_status_t oflush_status;
	bool oflush_done, crash;
	LIST_HEAD(runs);
	struct bio *bio;

	for (;;) {
		spin_lock_irq(&sc->lock);
		in = sc->incoming;
		bio_list_init(&sc->incoming);
		passed = sc->passed;
		bio_list_init(&sc->passed);
		list_splice_init(&sc->runs, &runs);
		oflush_done = sc->oflush_done;
		oflush_status = sc->oflush_status;
		sc->oflush_done = false;
		crash = sc->crash;
		sc->crash = false;
		if (sc->reset) {
			memset(&sc->st, 0, sizeof(sc->st));
			sc->reset = false;
		}
		if (bio_list_empty(&in) && bio_list_empty(&passed) &&
		    list_empty(&runs) && !oflush_done && !crash && !sc->kick) {
			spin_unlock_irq(&sc->lock);
			break;
		}
		sc->kick = false;
		spin_unlock_irq(&sc->lock);

		list_for_each_entry_safe(b, tmp, &runs, done) {
			list_del_init(&b->done);
			ssac_run_done(sc, b);
		}
		while ((bio = bio_list_pop(&passed))) {
			list_del_init(&ssac_io(bio)->passing);
			if (ssac_io(bio)->overlay && !ssac_io(bio)->status)
				ssac_overlay(sc, bio);
			ssac_complete(sc, bio, ssac_io(bio)->status);
		}
		if (oflush_done) {
			sc->oflush_busy = false;
			flushed = sc->flushing;
			bio_list_init(&sc->flushing);
			while ((bio = bio_list_pop(&flushed)))
				ssac_complete(sc, bio, oflush_status);
		}
		if (crash)
			ssac_crash(sc);
		bio_list_merge(&sc->waiting, &in);
		ssac_retry(sc);
		ssac_flushes(sc);
		ssac_destage(sc);
	}
	if (READ_ONCE(sc->draining) && !sc->nr_destage_runs && !sc->nr_fill_runs &&
	    (!sc->nr_dirty || sc->failed) && bio_list_empty(&sc->waiting)) {
		WRITE_ONCE(sc->drained, true);
		wake_up(&sc->drain_wait);
	}
}
