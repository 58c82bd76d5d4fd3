// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: degraded operation of the parity layouts: a read of a
 * failed member (or of a chunk not yet rebuilt) reconstructed from the
 * other members of its group, from the map function or when a read
 * meets a member's failure (ssa_parity_retry_read()), and the old data
 * of a write whose read failed.
 */
#include "ssa-parity.h"

/* ---- degraded operation -------------------------------------------- */

struct ssa_sync_read {
	struct ssa_ctx *sc;
	atomic_t left;
	unsigned long failed;	/* members whose read failed */
	struct completion done;
};

static void ssa_sync_endio(struct bio *bio)
{
	struct ssa_sync_read *s = bio->bi_private;
	unsigned int m;

	if (bio->bi_status)
		for (m = 0; m < s->sc->nr_members; m++)
			if (s->sc->members[m].dev->bdev == bio->bi_bdev)
				set_bit(m, &s->failed);
	bio_put(bio);
	if (atomic_dec_and_test(&s->left))
		complete(&s->done);
}

/*
 * Read [off, off + n) of the group span of @grp from every member but @f,
 * each into its scratch buffer, all at once.  Called under scratch_mutex.
 * A member whose read fails is marked failed.
 */
int ssa_parity_read_others(struct ssa_ctx *sc, const struct ssa_group *grp,
			   unsigned int f, u32 off, u32 n)
{
	struct ssa_parity *par = ssa_par(sc);
	unsigned int m, i, np = ssa_pages_of(n);
	struct ssa_sync_read s = { .sc = sc };
	int r = 0;

	atomic_set(&s.left, 1);
	init_completion(&s.done);
	for (m = 0; m < sc->nr_members; m++) {
		struct ssa_member *mb = &sc->members[m];
		u32 bytes = n << SECTOR_SHIFT;
		struct bio *bio;

		if (m == f)
			continue;
		bio = bio_alloc(mb->dev->bdev, np, REQ_OP_READ, GFP_NOIO);
		bio->bi_iter.bi_sector = mb->offset + off +
			sc->layout->group_chunk(&sc->geom, grp, m) *
			sc->geom.chunk;
		for (i = 0; i < np; i++) {
			u32 b = min_t(u32, PAGE_SIZE, bytes);

			__bio_add_page(bio, par->scratch[m][i], b, 0);
			bytes -= b;
		}
		bio->bi_private = &s;
		bio->bi_end_io = ssa_sync_endio;
		atomic_inc(&s.left);
		submit_bio_noacct(bio);
	}
	if (!atomic_dec_and_test(&s.left))
		wait_for_completion_io(&s.done);
	for_each_set_bit(m, &s.failed, sc->nr_members) {
		ssa_member_error(sc, m, BLK_STS_IOERR, NULL);
		r = -EIO;
	}
	return r;
}

/* After ssa_parity_read_others(): @f's scratch buffer = XOR of the others'. */
void ssa_parity_xor_others(struct ssa_ctx *sc, unsigned int f, u32 sectors)
{
	struct page ***scratch = ssa_par(sc)->scratch;
	unsigned int m;

	ssa_parity_zero_buf(scratch[f], sectors << SECTOR_SHIFT);
	for (m = 0; m < sc->nr_members; m++)
		if (m != f)
			ssa_parity_xor_buf(scratch[f], 0, scratch[m], 0,
					   sectors << SECTOR_SHIFT);
}

/*
 * Rebuild the old data of a write's lost task from the other members into
 * its buffer.  The write holds the group's lock and has not written the
 * parity; where another data task may have written already, its old data
 * (read before) stands in for what is on the disk now.
 */
static int ssa_recover(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	struct ssa_ctx *sc = op->sc;
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_ptask *lt = pg->lost;
	struct page **dst = ssa_ptask_pages(lt);
	unsigned int m, i;
	u32 off, n;
	int r = 0;

	if (!ssa_parity_span_synced(sc, &pg->grp, pg->nchunks))
		return ssa_parity_unsynced(sc, lt->member, pg->grp.idx);
	ssa_parity_zero_buf(dst, (lt->hi - lt->lo) << SECTOR_SHIFT);
	mutex_lock(&par->scratch_mutex);
	for (off = lt->lo; off < lt->hi; off += n) {
		n = min_t(u32, SSA_RECON_SECTORS, lt->hi - off);
		r = ssa_parity_read_others(sc, &pg->grp, lt->member, off, n);
		if (r)
			break;
		for (i = 0; i < pg->nr_data; i++) {
			struct ssa_ptask *d = &op->tasks[pg->first + i];
			u32 a = max(off, d->lo), b = min(off + n, d->hi);

			if (d != lt && d->kind == SSA_T_RMW_DATA && a < b)
				ssa_parity_copy_buf(par->scratch[d->member],
						    (a - off) << SECTOR_SHIFT,
						    ssa_ptask_pages(d),
						    (a - d->lo) << SECTOR_SHIFT,
						    (b - a) << SECTOR_SHIFT);
		}
		for (m = 0; m < sc->nr_members; m++)
			if (m != lt->member)
				ssa_parity_xor_buf(dst,
						   (off - lt->lo) << SECTOR_SHIFT,
						   par->scratch[m], 0,
						   n << SECTOR_SHIFT);
	}
	mutex_unlock(&par->scratch_mutex);
	return r;
}

void ssa_parity_recover_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      recover_work);
	struct ssa_pgroup *pg;

	for (;;) {
		spin_lock_irq(&par->lock);
		pg = list_first_entry_or_null(&par->recover,
					      struct ssa_pgroup, recover);
		if (pg)
			list_del(&pg->recover);
		spin_unlock_irq(&par->lock);
		if (!pg)
			break;
		if (ssa_recover(pg->lost->op, pg))
			pg->failed = true;
		pg->recovered = true;
		ssa_parity_try(pg->lost->op, pg);
	}
}

/*
 * A read of @len sectors of failed member @f from member sector @ms, rebuilt
 * from the other members into @dst's data at @it, a chunk at a time with
 * the chunk's group locked (so no write is half done under it).
 */
static int ssa_recon(struct ssa_ctx *sc, unsigned int f, u64 ms, u32 len,
		     struct bio *dst, struct bvec_iter it)
{
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_plock lk;
	struct ssa_group grp;
	u32 off, n, k, done;
	u64 c;
	int r = 0;

	while (len && !r) {
		c = ssa_chunk_index(&sc->geom, ms, &off);
		n = min(len, sc->geom.chunk - off);
		sc->layout->group_of(&sc->geom, f, c, &grp);
		ssa_pg_wait_lock(par, &lk, grp.idx);
		if (!ssa_parity_span_synced(sc, &grp, 1))
			r = ssa_parity_unsynced(sc, f, grp.idx);
		mutex_lock(&par->scratch_mutex);
		for (done = 0; done < n && !r; done += k) {
			k = min_t(u32, SSA_RECON_SECTORS, n - done);
			r = ssa_parity_read_others(sc, &grp, f, off + done, k);
			if (r)
				break;
			ssa_parity_xor_others(sc, f, k);
			ssa_parity_xfer(dst, &it, par->scratch[f], 0,
					k << SECTOR_SHIFT, SSA_XFER_COPY_OUT);
		}
		mutex_unlock(&par->scratch_mutex);
		ssa_pg_drop_lock(sc, &lk);
		ms += n;
		len -= n;
	}
	return r;
}

void ssa_parity_recon_work(struct work_struct *work)
{
	struct ssa_parity *par = container_of(work, struct ssa_parity,
					      recon_work);
	struct ssa_ctx *sc = par->sc;
	struct bio *child, *parent;
	struct ssa_io *io;
	int r;

	for (;;) {
		spin_lock_irq(&par->lock);
		parent = NULL;
		child = bio_list_pop(&par->recon_children);
		if (!child)
			parent = bio_list_pop(&par->recon_parents);
		spin_unlock_irq(&par->lock);
		if (child) {
			struct ssa_child *c = to_child(child);

			io = c->io;
			r = ssa_recon(sc, c->cs.member, c->cs.msector, c->cs.len,
				      child, c->iter);
			bio_put(child);
		} else if (parent) {
			io = ssa_io_of(sc, parent);
			r = ssa_recon(sc, io->cs.member, io->cs.msector,
				      io->cs.len, parent, io->iter);
		} else {
			break;
		}
		if (r)
			ssa_io_set_error(io, errno_to_blk_status(r));
		ssa_io_put(io);
		cond_resched();
	}
}

static void ssa_queue_recon(struct ssa_parity *par, struct bio *bio,
			    bool child)
{
	unsigned long flags;

	spin_lock_irqsave(&par->lock, flags);
	bio_list_add(child ? &par->recon_children : &par->recon_parents, bio);
	spin_unlock_irqrestore(&par->lock, flags);
	queue_work(par->recon_wq, &par->recon_work);
}

/*
 * A read completed with an error (any context).  If the volume survives the
 * member's loss, the read is rebuilt from the others: a forked child
 * (@child, its request keeps the reference) or the request itself when it
 * went to the member whole.  False: let the error through.
 */
bool ssa_parity_retry_read(struct ssa_ctx *sc, struct bio *bio,
			   blk_status_t status, bool child)
{
	if (!ssa_member_fault(status, bio) ||
	    !ssa_parity_survivable(sc, status))
		return false;
	if (!child) {
		struct ssa_io *io = ssa_io_of(sc, bio);

		io->remapped = false;
		atomic_set(&io->pending, 1);
	}
	ssa_queue_recon(ssa_par(sc), bio, child);
	return true;
}

/* A piece on a failed member, or on a not yet rebuilt chunk. */
static bool ssa_piece_lost(struct ssa_ctx *sc, const struct ssa_extent *e)
{
	struct ssa_parity *par = ssa_par(sc);
	struct ssa_group grp;
	u32 off;

	if (test_bit(SSA_MEMBER_FAILED, &sc->members[e->member].flags))
		return true;
	if (e->member != par->rb_member || !ssa_parity_rb_active(sc))
		return false;
	sc->layout->group_of(&sc->geom, e->member,
			     ssa_chunk_index(&sc->geom, e->msector, &off), &grp);
	return !test_bit(grp.idx, par->rb_done);
}

/*
 * Reads of a degraded volume (from the map function).  A request that
 * starts on a failed member is cut to that chunk piece and rebuilt from the
 * others (or fails, with two members lost); one that starts elsewhere is cut
 * before the first piece of a failed member and read as usual (-1).
 */
int ssa_parity_read(struct ssa_ctx *sc, struct ssa_io *io,
		    struct bio *bio, u64 start, u64 end)
{
	struct ssa_extent e;
	u64 ls, len;

	sc->layout->map(&sc->geom, start, &e);
	len = min(e.len, end - start);
	if (!ssa_piece_lost(sc, &e)) {
		for (ls = start + len; ls < end; ls += len) {
			sc->layout->map(&sc->geom, ls, &e);
			if (ssa_piece_lost(sc, &e))
				break;
			len = min(e.len, end - ls);
		}
		if (ls < end)
			dm_accept_partial_bio(bio, ls - start);
		return -1;
	}

	if (len < end - start)
		dm_accept_partial_bio(bio, len);
	ssa_fork_begin(sc, io, SSA_OP_READ, start, start + len, 0);
	if (ssa_parity_nr_lost(sc) > 1) {
		DMERR_LIMIT("%s: two members have failed: member %u cannot be rebuilt",
			    dm_device_name(dm_table_get_md(sc->ti->table)),
			    e.member);
		ssa_io_set_error(io, BLK_STS_IOERR);
		ssa_io_put(io);
		return DM_MAPIO_SUBMITTED;
	}
	io->cs.member = e.member;
	io->cs.msector = e.msector;
	io->cs.len = len;
	io->iter = bio->bi_iter;
	ssa_queue_recon(ssa_par(sc), bio, false);
	return DM_MAPIO_SUBMITTED;
}
