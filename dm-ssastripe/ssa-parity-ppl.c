// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the partial parity log of the parity layouts (table option
 * "ppl <dev>"), which closes the RAID 5 write hole.
 *
 * The hole: a crash between a write's data and its parity leaves a group
 * whose parity lies, and when a member then fails, its chunks are rebuilt
 * from that parity wrongly -- chunks nobody was writing.  Before any write
 * of a group goes to the members, its entry goes to the log device (FUA):
 * the group, the ranges the write changes on each data member, and the
 * partial parity, the XOR of everything in the group's parity range that
 * the write does not change (computed as new parity ^ new data).  After a
 * crash, each entry still in the log gives the group a parity that agrees
 * with whatever reached the members: partial parity ^ the changed ranges
 * as they are now.  Only the changed ranges are read, so a member missing
 * at that time costs nothing unless the write changed it; then its
 * sectors' parity is left as it was (they were in flight).
 *
 * An entry covers one group (a pstripe span of several groups takes one
 * entry a group) and lives in one slot of a ring: slot = seq % slots.  A
 * write takes the slots of all its groups at once, before any of its I/O
 * (ssa_ppl_gate(), in arrival order), and releases them when it has
 * ended; the log's tail (the first entry still needed) goes forward only
 * after a flush of the members has made the released writes durable, and
 * is written in the superblock (FUA) before its slots are used again.  A
 * write that finds the ring full waits for that, holding nothing but its
 * group locks.  At a suspend the members are flushed and the superblock
 * says the log is empty and clean.
 *
 * One group has one entry in the log at a time.  A later write's partial
 * parity holds what the earlier writes of its group left there, and those
 * may still sit in a member's volatile cache: after a crash that lost
 * them, the later entry would give the group a parity for data it does
 * not have.  So a write whose group still has an entry at or past the
 * tail on the device waits until a flush of the members has made the
 * earlier write durable (@flushed: the daemon's flush, before it moves
 * the tail); it waits apart (@held), so that the writes behind it do not
 * wait for it.  The groups with entries are known by hash (@last): a
 * collision only makes a write wait for a flush it did not need.
 *
 * Writes of a degraded volume (a member failed or being rebuilt when the
 * write arrived) are not logged: there is nothing left to protect.  But
 * an entry still in the log would be replayed over what such a write
 * changes, so the first unlogged writes wait until the tail has passed
 * every entry.  The walks' parity writes (initial sync, repair, rebuild)
 * are not logged either.  A log device that fails is given up: status
 * says "ppl failed", the superblock asks the next table for a full
 * resync, and only once that is written do writes go on, unprotected.
 *
 * On the device, in 4 KiB blocks: the superblock (struct ssa_ppl_sb) in
 * block 0, slot s from block 1 + s * (1 + chunk blocks): a header (struct
 * ssa_ppl_hdr) and the partial parity of the entry's range.
 */
#include <linux/crc32.h>

#include "ssa-parity-ppl.h"

/* ---- writes wait for their entries ---------------------------------- */

/* The group number of entry @i of span @g of @op. */
static u64 ssa_ppl_group(struct ssa_pop *op, unsigned int g, unsigned int i)
{
	return op->groups[g].grp.idx + (u64)i * op->sc->nr_members;
}

/* The @last bucket of that group (lock held). */
static u64 *ssa_ppl_last(struct ssa_ppl *ppl, struct ssa_pop *op,
			 unsigned int g, unsigned int i)
{
	return &ppl->last[hash_64(ssa_ppl_group(op, g, i), ppl->last_bits)];
}

/* What ssa_ppl_may_go() says of a write. */
enum ssa_ppl_gate {
	SSA_PPL_GO,
	SSA_PPL_FULL,		/* wait for slots (or the log to empty) */
	SSA_PPL_HELD,		/* wait for a flush after a group's last write */
};

/*
 * Whether the write @op may start now, lock held: a logged write (the
 * volume whole, the log working) when the last write of each of its
 * groups has been flushed to the members and the ring has room for its
 * groups' entries (taken now); an unlogged one when no entry it could
 * meet is left in the log (the tail has passed them all) or the log is
 * given up.
 */
static enum ssa_ppl_gate ssa_ppl_may_go(struct ssa_ppl *ppl,
					struct ssa_pop *op)
{
	unsigned int g, i, k = 0;
	u64 seq;

	if (!READ_ONCE(ppl->failed) && op->failed < 0 &&
	    !ssa_parity_nr_lost(op->sc)) {
		for (g = 0; g < op->nr_groups; g++) {
			k += op->groups[g].nchunks;
			/* a group's last write, not yet flushed */
			for (i = 0; i < op->groups[g].nchunks; i++)
				if (*ssa_ppl_last(ppl, op, g, i) > ppl->flushed)
					return SSA_PPL_HELD;
		}
		if (ppl->head + k - ppl->tail_disk > ppl->slots)
			return SSA_PPL_FULL;
		op->ppl = true;
		seq = ppl->head;
		ppl->head += k;
		for (g = 0; g < op->nr_groups; g++) {
			op->groups[g].ppl_seq = seq;
			op->groups[g].ppl_n = op->groups[g].nchunks;
			for (i = 0; i < op->groups[g].nchunks; i++)
				*ssa_ppl_last(ppl, op, g, i) = seq + i + 1;
			seq += op->groups[g].nchunks;
		}
		return SSA_PPL_GO;
	}
	op->ppl = false;
	return READ_ONCE(ppl->given_up) ||
	       (!READ_ONCE(ppl->failed) && ppl->tail_disk == ppl->head) ?
	       SSA_PPL_GO : SSA_PPL_FULL;
}

/*
 * A write that holds its group locks is about to start (ssa_parity_op_go()):
 * true when it may go now; otherwise it waits, and ssa_ppl_start_ready()
 * starts it with its own reference.
 */
bool ssa_ppl_gate(struct ssa_pop *op)
{
	struct ssa_ppl *ppl = ssa_par(op->sc)->ppl;
	unsigned long flags;
	enum ssa_ppl_gate r;
	bool go;

	if (!ppl || op->ppl_gated)
		return true;
	spin_lock_irqsave(&ppl->lock, flags);
	op->ppl_gated = true;
	/* behind writes waiting for slots, in arrival order */
	r = list_empty(&ppl->waiting) ? ssa_ppl_may_go(ppl, op) : SSA_PPL_FULL;
	go = r == SSA_PPL_GO;
	if (!go) {
		atomic_inc(&op->io->pending);	/* the gate's */
		list_add_tail(&op->wait, r == SSA_PPL_HELD ? &ppl->held :
			      &ppl->waiting);
	}
	spin_unlock_irqrestore(&ppl->lock, flags);
	if (!go)
		mod_delayed_work(ppl->wq, &ppl->daemon, 0);
	return go;
}

/*
 * The writes waiting at the gate that may go now: those held for their
 * groups, then those waiting for slots, in order.
 */
static void ssa_ppl_start_ready(struct ssa_ppl *ppl)
{
	struct ssa_pop *op, *tmp;
	enum ssa_ppl_gate r;
	LIST_HEAD(go);

	spin_lock_irq(&ppl->lock);
	list_for_each_entry_safe(op, tmp, &ppl->held, wait) {
		r = ssa_ppl_may_go(ppl, op);
		if (r == SSA_PPL_GO)
			list_move_tail(&op->wait, &go);
		else if (r == SSA_PPL_FULL)
			list_move_tail(&op->wait, &ppl->waiting);
	}
	list_for_each_entry_safe(op, tmp, &ppl->waiting, wait) {
		r = ssa_ppl_may_go(ppl, op);
		if (r == SSA_PPL_FULL)
			break;
		list_move_tail(&op->wait, r == SSA_PPL_GO ? &go : &ppl->held);
	}
	spin_unlock_irq(&ppl->lock);
	list_for_each_entry_safe(op, tmp, &go, wait) {
		list_del(&op->wait);
		ssa_parity_op_go(op, false);
		ssa_io_put(op->io);
	}
}

/*
 * Every parity of @pg (of a logged write) is computed: log it;
 * ssa_parity_writes() is called when its entries are on the device.  Any
 * context.
 */
void ssa_ppl_log(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	struct ssa_ppl *ppl = ssa_par(op->sc)->ppl;
	unsigned long flags;

	pg->op = op;
	spin_lock_irqsave(&ppl->lock, flags);
	list_add_tail(&pg->ppl_node, &ppl->pending);
	spin_unlock_irqrestore(&ppl->lock, flags);
	queue_work(ppl->wq, &ppl->log_work);
}

/* The write ended: its entries are no longer needed (any context). */
void ssa_ppl_release(struct ssa_pop *op)
{
	struct ssa_ppl *ppl = ssa_par(op->sc)->ppl;
	unsigned long flags;
	unsigned int g, i;
	bool kick;

	if (!ppl || !op->ppl)
		return;
	spin_lock_irqsave(&ppl->lock, flags);
	for (g = 0; g < op->nr_groups; g++) {
		struct ssa_pgroup *pg = &op->groups[g];

		for (i = 0; i < pg->ppl_n; i++)
			ppl->released[ssa_ppl_slot(ppl, pg->ppl_seq + i)] = 1;
		pg->ppl_n = 0;
	}
	while (ppl->tail_mem < ppl->head &&
	       ppl->released[ssa_ppl_slot(ppl, ppl->tail_mem)])
		ppl->released[ssa_ppl_slot(ppl, ppl->tail_mem++)] = 0;
	/* writes wait at the gate, or half the ring is held: move the tail */
	kick = ppl->tail_mem > ppl->tail_disk &&
	       (!list_empty(&ppl->waiting) || !list_empty(&ppl->held) ||
		ppl->head - ppl->tail_disk > ppl->slots / 2);
	spin_unlock_irqrestore(&ppl->lock, flags);
	if (kick && READ_ONCE(ppl->active))
		mod_delayed_work(ppl->wq, &ppl->daemon, 0);
}

static void ssa_ppl_endio(struct bio *bio)
{
	struct ssa_ppl_io *pio = bio->bi_private;
	struct ssa_ppl *ppl = pio->ppl;
	struct ssa_pgroup *pg = pio->pg;
	unsigned long flags;
	unsigned int i;

	if (bio->bi_status) {
		/* the group's writes wait for the log to be given up */
		WRITE_ONCE(ppl->io_error, blk_status_to_errno(bio->bi_status));
		WRITE_ONCE(ppl->failed, true);
	}
	for (i = 0; i < pio->nr_pages; i++)
		mempool_free(pio->pages[i], ppl->page_pool);
	mempool_free(pio, ppl->pio_pool);
	bio_put(bio);
	if (!atomic_dec_and_test(&pg->ppl_left))
		return;
	spin_lock_irqsave(&ppl->lock, flags);
	list_add_tail(&pg->ppl_node, &ppl->logged);
	spin_unlock_irqrestore(&ppl->lock, flags);
	queue_work(ppl->wq, &ppl->done_work);
}

/* The entry of chunk @i of the span @pg, seq @seq: build it, write it. */
static void ssa_ppl_write_entry(struct ssa_ppl *ppl, struct ssa_pop *op,
				struct ssa_pgroup *pg, unsigned int i, u64 seq)
{
	struct ssa_ctx *sc = op->sc;
	u32 c = sc->geom.chunk, base = i * c;
	u32 lo = max(pg->lo, base), hi = min(pg->hi, base + c);
	u32 bytes = (hi - lo) << SECTOR_SHIFT;
	u32 io_bytes = SSA_PPL_BLOCK + round_up(bytes, SSA_PPL_BLOCK);
	unsigned int n = DIV_ROUND_UP(io_bytes, PAGE_SIZE);
	struct ssa_ppl_hdr *h;
	struct ssa_ppl_io *pio;
	unsigned int k, nr = 0;
	struct page **pp;
	struct bio *bio;

	pio = mempool_alloc(ppl->pio_pool, GFP_NOIO);
	pio->ppl = ppl;
	pio->pg = pg;
	pio->nr_pages = n;
	for (k = 0; k < n; k++) {
		pio->pages[k] = mempool_alloc(ppl->page_pool, GFP_NOIO);
		memset(page_address(pio->pages[k]), 0, PAGE_SIZE);
	}
	/* the header's block, then the partial parity from the next one */
	h = page_address(pio->pages[0]);
	pp = &pio->pages[SSA_PPL_BLOCK / PAGE_SIZE];

	/* partial parity = new parity ^ new data, over [lo, hi) */
	ssa_parity_copy_buf(pp, 0, ssa_ptask_pages(ssa_parity_task(pg, op)),
			    (lo - pg->lo) << SECTOR_SHIFT, bytes);
	for (k = 0; k < pg->nr_data; k++) {
		struct ssa_ptask *t = &op->tasks[pg->first + k];
		u32 a = max(t->lo, lo), b = min(t->hi, hi);

		if (a >= b)
			continue;
		ssa_parity_bio_to_buf(op, pp, (a - lo) << SECTOR_SHIFT,
				      t->loff + a - t->lo, b - a, false);
		h->ranges[nr].member = cpu_to_le32(t->member);
		h->ranges[nr].lo = cpu_to_le32(a - base);
		h->ranges[nr].hi = cpu_to_le32(b - base);
		nr++;
	}
	memcpy(h->magic, SSA_PPL_ENTRY_MAGIC, sizeof(h->magic));
	h->log_id = cpu_to_le64(ppl->log_id);
	h->seq = cpu_to_le64(seq);
	h->group = cpu_to_le64(ssa_ppl_group(op, pg - op->groups, i));
	h->lo = cpu_to_le32(lo - base);
	h->hi = cpu_to_le32(hi - base);
	h->nr = cpu_to_le32(nr);
	h->pp_csum = cpu_to_le32(ssa_ppl_crc(pp, bytes));
	h->csum = 0;
	h->csum = cpu_to_le32(crc32(0, h, sizeof(*h)));

	bio = bio_alloc_bioset(ppl->bdev, n, REQ_OP_WRITE | REQ_SYNC | REQ_FUA,
			       GFP_NOIO, &ppl->bs);
	bio->bi_iter.bi_sector = ssa_ppl_slot_sector(ppl, seq);
	for (k = 0; k < n; k++) {
		u32 len = min_t(u32, PAGE_SIZE, io_bytes);

		__bio_add_page(bio, pio->pages[k], len, 0);
		io_bytes -= len;
	}
	bio->bi_private = pio;
	bio->bi_end_io = ssa_ppl_endio;
	submit_bio_noacct(bio);
}

/* The first group on @list (ppl->pending or ppl->logged), taken off. */
static struct ssa_pgroup *ssa_ppl_next(struct ssa_ppl *ppl,
				       struct list_head *list)
{
	struct ssa_pgroup *pg;

	spin_lock_irq(&ppl->lock);
	pg = list_first_entry_or_null(list, struct ssa_pgroup, ppl_node);
	if (pg)
		list_del(&pg->ppl_node);
	spin_unlock_irq(&ppl->lock);
	return pg;
}

/* The entries of the groups whose parity is computed, in their slots. */
static void ssa_ppl_log_work(struct work_struct *work)
{
	struct ssa_ppl *ppl = container_of(work, struct ssa_ppl, log_work);
	struct ssa_pgroup *pg;
	unsigned int i, n;
	u64 seq;

	while ((pg = ssa_ppl_next(ppl, &ppl->pending))) {
		/* the last entry's completion may end the write: copies */
		n = pg->ppl_n;
		seq = pg->ppl_seq;
		atomic_set(&pg->ppl_left, n);
		for (i = 0; i < n; i++)
			ssa_ppl_write_entry(ppl, pg->op, pg, i, seq + i);
	}
}

/*
 * Groups whose entries are on the device: their writes go now.  If an
 * entry write failed, not before the log is given up on the device (a
 * crash must not replay entries over unlogged writes).
 */
static void ssa_ppl_done_work(struct work_struct *work)
{
	struct ssa_ppl *ppl = container_of(work, struct ssa_ppl, done_work);
	struct ssa_pgroup *pg;

	if (READ_ONCE(ppl->failed) && !READ_ONCE(ppl->given_up)) {
		mutex_lock(&ppl->io_mutex);
		ssa_ppl_fail(ppl, "entry write", READ_ONCE(ppl->io_error));
		mutex_unlock(&ppl->io_mutex);
	}
	while ((pg = ssa_ppl_next(ppl, &ppl->logged)))
		ssa_parity_writes(pg->op, pg);
}

/*
 * Move the tail to the first entry not released: the members flushed
 * first, so that the writes of the entries left behind are durable, then
 * the superblock.  Then the writes waiting for slots go on.
 */
static void ssa_ppl_daemon(struct work_struct *work)
{
	struct ssa_ppl *ppl = container_of(to_delayed_work(work),
					   struct ssa_ppl, daemon);
	bool flushed = false;
	u64 tail;
	int r;

	mutex_lock(&ppl->io_mutex);
	if (READ_ONCE(ppl->failed))
		ssa_ppl_fail(ppl, "entry write", READ_ONCE(ppl->io_error));
	spin_lock_irq(&ppl->lock);
	tail = ppl->tail_mem;
	spin_unlock_irq(&ppl->lock);
	/* a member that fails its flush is failed; the next pass retries */
	if (!ppl->given_up && tail > ppl->tail_disk &&
	    !ssa_flush_members(ppl->sc)) {
		spin_lock_irq(&ppl->lock);
		ppl->flushed = max(ppl->flushed, tail);
		spin_unlock_irq(&ppl->lock);
		flushed = true;
	}
	mutex_unlock(&ppl->io_mutex);
	if (!flushed)
		goto out;
	/* the writes held for their groups need only the flush: they go now */
	ssa_ppl_start_ready(ppl);
	mutex_lock(&ppl->io_mutex);
	if (!ppl->given_up) {
		r = ssa_ppl_write_sb(ppl, tail, 0);
		if (r) {
			ssa_ppl_fail(ppl, "superblock write", r);
		} else {
			spin_lock_irq(&ppl->lock);
			ppl->tail_disk = max(ppl->tail_disk, tail);
			spin_unlock_irq(&ppl->lock);
		}
	}
	mutex_unlock(&ppl->io_mutex);
out:
	ssa_ppl_start_ready(ppl);
	if (READ_ONCE(ppl->active))
		queue_delayed_work(ppl->wq, &ppl->daemon,
				   msecs_to_jiffies(SSA_PPL_DAEMON_MS));
}

/* ---- life cycle ------------------------------------------------------ */

int ssa_ppl_prepare(struct ssa_parity *par)
{
	struct ssa_ppl *ppl = par->ppl;
	int r = 0;

	if (!ppl)
		return 0;
	mutex_lock(&ppl->io_mutex);
	if (!ppl->loaded && !ppl->given_up) {
		r = ssa_ppl_load(ppl);
		/* a refused device is read again at the next resume */
		ppl->loaded = !r;
	}
	if (!r && !ppl->given_up) {
		r = ssa_ppl_write_sb(ppl, ppl->tail_disk, 0);
		if (r)
			ssa_ppl_fail(ppl, "write", r);
		r = 0;
	}
	mutex_unlock(&ppl->io_mutex);
	return r;
}

void ssa_ppl_start(struct ssa_parity *par)
{
	struct ssa_ppl *ppl = par->ppl;

	if (!ppl || !ppl->loaded)
		return;
	WRITE_ONCE(ppl->active, true);
	queue_delayed_work(ppl->wq, &ppl->daemon,
			   msecs_to_jiffies(SSA_PPL_DAEMON_MS));
}

/* Suspended, nothing in flight: the members flushed, the log empty. */
void ssa_ppl_quiesced(struct ssa_parity *par)
{
	struct ssa_ppl *ppl = par->ppl;
	int r;

	if (!ppl || !ppl->loaded)
		return;
	WRITE_ONCE(ppl->active, false);
	cancel_delayed_work_sync(&ppl->daemon);
	flush_workqueue(ppl->wq);
	mutex_lock(&ppl->io_mutex);
	if (READ_ONCE(ppl->failed))
		ssa_ppl_fail(ppl, "entry write", READ_ONCE(ppl->io_error));
	/* (a member that fails its flush leaves the entries to a replay) */
	if (!ppl->given_up && !ssa_flush_members(par->sc)) {
		r = ssa_ppl_write_sb(ppl, ppl->head, SSA_PPL_CLEAN);
		if (r)
			ssa_ppl_fail(ppl, "superblock write", r);
		else
			ppl->tail_disk = ppl->head;
		ppl->flushed = ppl->head;
	}
	ssa_ppl_start_ready(ppl);
	mutex_unlock(&ppl->io_mutex);
}

/* Status: " ppl <entries held>/<slots>" or " ppl failed". */
unsigned int ssa_ppl_status(struct ssa_parity *par, char *result,
			    unsigned int maxlen, unsigned int sz)
{
	struct ssa_ppl *ppl = par->ppl;
	u64 held;

	if (!ppl)
		return sz;
	if (READ_ONCE(ppl->failed)) {
		DMEMIT(" ppl failed");
		return sz;
	}
	spin_lock_irq(&ppl->lock);
	held = ppl->head - ppl->tail_disk;
	spin_unlock_irq(&ppl->lock);
	DMEMIT(" ppl %llu/%llu", held, ppl->slots);
	return sz;
}

void ssa_ppl_free(struct ssa_parity *par)
{
	struct ssa_ppl *ppl = par->ppl;

	if (!ppl)
		return;
	WRITE_ONCE(ppl->active, false);
	cancel_delayed_work_sync(&ppl->daemon);
	if (ppl->wq)
		destroy_workqueue(ppl->wq);
	mempool_destroy(ppl->page_pool);
	mempool_destroy(ppl->pio_pool);
	bioset_exit(&ppl->bs);
	if (ppl->sb_page)
		__free_page(ppl->sb_page);
	kvfree(ppl->released);
	kvfree(ppl->last);
	kfree(ppl);
	par->ppl = NULL;
}

/*
 * Constructor: the log of the table's "ppl" device, its geometry checked
 * against a superblock already there; it is replayed at the first resume
 * (ssa_ppl_prepare()), when a table being replaced has stopped writing.
 */
int ssa_ppl_create(struct ssa_parity *par)
{
	struct ssa_ctx *sc = par->sc;
	struct dm_target *ti = sc->ti;
	sector_t size = bdev_nr_sectors(sc->meta_dev->bdev);
	struct ssa_ppl *ppl;
	unsigned int pages;
	size_t pio_size;
	u64 buckets;
	char *error;
	int r;

	ppl = kzalloc(sizeof(*ppl), GFP_KERNEL);
	if (!ppl)
		goto nomem;
	par->ppl = ppl;
	ppl->sc = sc;
	ppl->bdev = sc->meta_dev->bdev;
	spin_lock_init(&ppl->lock);
	INIT_LIST_HEAD(&ppl->waiting);
	INIT_LIST_HEAD(&ppl->held);
	INIT_LIST_HEAD(&ppl->pending);
	INIT_LIST_HEAD(&ppl->logged);
	mutex_init(&ppl->io_mutex);
	INIT_WORK(&ppl->log_work, ssa_ppl_log_work);
	INIT_WORK(&ppl->done_work, ssa_ppl_done_work);
	INIT_DELAYED_WORK(&ppl->daemon, ssa_ppl_daemon);

	/* a slot: the header's block and a chunk of partial parity */
	ppl->slot_sectors = SSA_PPL_BLOCK_SECTORS +
			    round_up(sc->geom.chunk, SSA_PPL_BLOCK_SECTORS);
	if (PAGE_SIZE != SSA_PPL_BLOCK) {
		ti->error = "ppl needs 4 KiB pages";
		return -EINVAL;
	}
	/* a slot is one bio */
	if ((ppl->slot_sectors << SECTOR_SHIFT) / PAGE_SIZE > BIO_MAX_VECS) {
		ti->error = "ppl: chunk too large for the log (at most 1020 KiB)";
		return -EINVAL;
	}
	ppl->slots = size > SSA_PPL_BLOCK_SECTORS ?
		     div_u64(size - SSA_PPL_BLOCK_SECTORS, ppl->slot_sectors) : 0;
	/* more would not help, and the replay reads every header */
	ppl->slots = min_t(u64, ppl->slots, SSA_PPL_MAX_SLOTS);
	if (ppl->slots < SSA_PPL_MIN_SLOTS) {
		DMERR("ppl %s: %llu sectors, %llu needed for %u entries of %u sectors",
		      sc->meta_dev->name, (unsigned long long)size,
		      (unsigned long long)SSA_PPL_BLOCK_SECTORS +
		      (u64)SSA_PPL_MIN_SLOTS * ppl->slot_sectors,
		      SSA_PPL_MIN_SLOTS, ppl->slot_sectors);
		ti->error = "ppl device too small";
		return -EINVAL;
	}
	pages = DIV_ROUND_UP(ppl->slot_sectors << SECTOR_SHIFT, PAGE_SIZE);
	ppl->page_pool = mempool_create_page_pool(SSA_PPL_POOL_ENTRIES * pages, 0);
	pio_size = sizeof(struct ssa_ppl_io) + pages * sizeof(struct page *);
	ppl->pio_pool = mempool_create_kmalloc_pool(SSA_PPL_POOL_ENTRIES, pio_size);
	r = bioset_init(&ppl->bs, SSA_PPL_POOL_ENTRIES, 0, BIOSET_NEED_BVECS);
	if (r)
		goto nomem;
	ppl->released = kvcalloc(ppl->slots, 1, GFP_KERNEL);
	buckets = max_t(u64, 4 * ppl->slots, SSA_PPL_MIN_BUCKETS);
	ppl->last_bits = ilog2(roundup_pow_of_two(buckets));
	ppl->last = kvcalloc(BIT(ppl->last_bits), sizeof(*ppl->last), GFP_KERNEL);
	ppl->sb_page = alloc_page(GFP_KERNEL);
	ppl->wq = alloc_workqueue("kssappl", WQ_MEM_RECLAIM | SSA_WQ_PERCPU, 0);
	if (!ppl->page_pool || !ppl->pio_pool || !ppl->released || !ppl->last ||
	    !ppl->sb_page || !ppl->wq)
		goto nomem;

	r = ssa_pages_io(ppl->bdev, 0, &ppl->sb_page, SSA_PPL_BLOCK,
			 REQ_OP_READ | REQ_SYNC);
	if (r) {
		DMERR("ppl %s: cannot read its superblock: error %d",
		      sc->meta_dev->name, r);
		ti->error = "Cannot read the ppl device";
		return r;
	}
	r = ssa_ppl_sb_check(ppl, &error);
	if (r < 0) {
		ti->error = error;
		return r;
	}
	return 0;
nomem:
	ti->error = "Cannot allocate the ppl";
	return -ENOMEM;
}
