// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: background propagation for the srarray layout (table
 * option "propagate background").  A write goes to one replica of each
 * live copy -- the one its member's dispatcher finds quickest, as a read
 * does -- and completes when that replica is written; a work item copies
 * the unit (a chunk of the member's data space) from that replica to the
 * others later, while the member has no user I/O of the volume in hand.
 *
 * Each member's units carry a mask of the replicas that hold the unit's
 * latest data.  Reads and writes are placed only on replicas in the mask;
 * a write placed on replica r leaves the mask {r} (every write in flight
 * on a unit goes to the same replica, since the mask only grows when a
 * copy completes and a copy starts only with no write in flight).  A copy
 * that a write overlapped (SSA_SRU_REDO) is not trusted: the unit stays
 * stale and is copied again.  A copy that fails gives the unit up: its
 * mask keeps only the good replicas, which still serve it while the table
 * is loaded, but it is no longer durable, so every flush fails from then
 * on (and a DM event is raised).  The units of a failed member of a set
 * with another live copy are dropped: that member is read no more.
 *
 * Durability: a flush is held until no unit is stale (the replicas of
 * every write before it are on their members), and meanwhile writes go to
 * every replica, so that nothing new becomes stale; FUA writes always go
 * to every replica.  A suspend propagates everything first.  The masks
 * live in memory only: after a crash the replicas of a unit written since
 * the last flush may differ, as the copies of a mirror may.
 */
#include <linux/overflow.h>
#include <linux/slab.h>

#include "ssa-compat.h"
#include "ssa-io-trace.h"
#include "ssa-srarray.h"

/* Index of the unit holding replica 0's place @u0 on member @m. */
static u64 ssa_sr_unit_idx(struct ssa_sr *sr, unsigned int m, u64 u0)
{
	struct ssa_ctx *sc = sr->sc;
	u32 j;
	u64 t = div_u64_rem(u0, sr->track, &j);

	return m * sr->prop->nr_units +
	       div_u64(t * sr->arc + j, sc->geom.chunk);
}

static struct ssa_sr_unit *ssa_sr_unit(struct ssa_sr *sr, unsigned int m,
				       u64 u0)
{
	return &sr->prop->units[ssa_sr_unit_idx(sr, m, u0)];
}

static void ssa_sr_work_prop(struct work_struct *work);

int ssa_sr_prop_alloc(struct ssa_ctx *sc, struct ssa_sr *sr)
{
	u64 units = div_u64(div_u64(sc->member_len, sr->replicas),
			    sc->geom.chunk);
	struct ssa_sr_prop *p;
	u64 n, i;

	if (check_mul_overflow(units, (u64)sc->nr_members, &n) ||
	    n > SSA_SR_MAX_UNITS) {
		DMERR("background propagation would track %llu units of %u sectors (at most %lu)",
		      (unsigned long long)units * sc->nr_members,
		      sc->geom.chunk, SSA_SR_MAX_UNITS);
		sc->ti->error = "Too many chunks for background propagation: use a larger chunk";
		return -EINVAL;
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		goto nomem;
	sr->prop = p;
	p->sr = sr;
	p->nr_units = units;
	p->units = kvcalloc(n, sizeof(*p->units), GFP_KERNEL);
	p->stale = kvcalloc(BITS_TO_LONGS(n), sizeof(long), GFP_KERNEL);
	p->pages = ssa_pages_alloc();
	p->wq = alloc_workqueue("kssapropagate", WQ_MEM_RECLAIM | WQ_UNBOUND, 1);
	if (!p->units || !p->stale || !p->pages || !p->wq)
		goto nomem;
	for (i = 0; i < n; i++) {
		p->units[i].valid = sr->all;
		if (!(i % 65536))
			cond_resched();
	}
	spin_lock_init(&p->lock);
	bio_list_init(&p->flushes);
	INIT_WORK(&p->work, ssa_sr_work_prop);
	init_waitqueue_head(&p->drained);
	atomic64_set(&p->copied, 0);
	atomic64_set(&p->dropped, 0);
	return 0;
nomem:
	sc->ti->error = "Cannot allocate the replica map for background propagation";
	return -ENOMEM;
}

void ssa_sr_prop_free(struct ssa_sr *sr)
{
	struct ssa_sr_prop *p = sr->prop;

	if (!p)
		return;
	/* a suspend released every held flush */
	WARN_ON_ONCE(!bio_list_empty(&p->flushes));
	if (p->wq)
		destroy_workqueue(p->wq);
	ssa_pages_free(p->pages);
	kvfree(p->stale);
	kvfree(p->units);
	kfree(p);
	sr->prop = NULL;
}

static void ssa_sr_kick(struct ssa_sr_prop *p)
{
	queue_work(p->wq, &p->work);
}

/* The replicas of member @m's unit at replica 0's place @u0 with its data. */
u8 ssa_sr_valid(struct ssa_sr *sr, unsigned int m, u64 u0)
{
	if (!sr->prop)
		return sr->all;
	return READ_ONCE(ssa_sr_unit(sr, m, u0)->valid);
}

/* Does this write go to one replica (true) or to all? */
bool ssa_sr_write_background(struct ssa_sr *sr, struct bio *bio)
{
	return sr->prop && !READ_ONCE(sr->prop->draining) &&
	       !(bio->bi_opf & REQ_FUA);
}

/* A write child for member @m's unit at @u0 is mapped (map). */
void ssa_sr_write_mapped(struct ssa_sr *sr, unsigned int m, u64 u0)
{
	struct ssa_sr_prop *p = sr->prop;
	struct ssa_sr_unit *un;
	unsigned long flags;

	if (!p)
		return;
	un = ssa_sr_unit(sr, m, u0);
	spin_lock_irqsave(&p->lock, flags);
	un->writing++;
	if (un->flags & SSA_SRU_COPYING)
		un->flags |= SSA_SRU_REDO;
	spin_unlock_irqrestore(&p->lock, flags);
}

/*
 * A one-replica write child leaves for member @m: it goes to replica @r
 * if that holds the unit's data, else to one that does, which is
 * returned.  The unit is then stale but for that replica.
 */
unsigned int ssa_sr_write_placed(struct ssa_sr *sr, unsigned int m, u64 u0,
				 unsigned int r)
{
	struct ssa_sr_prop *p = sr->prop;
	u64 i = ssa_sr_unit_idx(sr, m, u0);
	struct ssa_sr_unit *un = &p->units[i];
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	if (!(un->valid & BIT(r)))
		r = __ffs(un->valid);
	WRITE_ONCE(un->valid, BIT(r));
	if (un->flags & SSA_SRU_COPYING)
		un->flags |= SSA_SRU_REDO;
	if (un->valid != sr->all && !__test_and_set_bit(i, p->stale))
		WRITE_ONCE(p->nr_stale, p->nr_stale + 1);
	spin_unlock_irqrestore(&p->lock, flags);
	return r;
}

/* A write child of member @m's unit at @u0 completed. */
void ssa_sr_write_done(struct ssa_sr *sr, unsigned int m, u64 u0)
{
	struct ssa_sr_prop *p = sr->prop;
	u64 i = ssa_sr_unit_idx(sr, m, u0);
	unsigned long flags;
	bool kick;

	spin_lock_irqsave(&p->lock, flags);
	kick = !--p->units[i].writing && test_bit(i, p->stale);
	spin_unlock_irqrestore(&p->lock, flags);
	if (kick)
		ssa_sr_kick(p);
}

/* A member has no user I/O of the volume left in hand. */
void ssa_sr_member_idle(struct ssa_sr *sr)
{
	if (sr->prop && READ_ONCE(sr->prop->nr_stale))
		ssa_sr_kick(sr->prop);
}

/*
 * An empty flush (DM sends a flush's data separately): held while a unit
 * is stale, and then writes go to every replica until it is released;
 * failed once a copy has failed.  True if taken, with *@r the DM_MAPIO_*
 * value for the map; false: the flush goes on as usual.
 */
bool ssa_sr_hold_flush(struct ssa_sr *sr, struct bio *bio, int *r)
{
	struct ssa_sr_prop *p = sr->prop;
	unsigned long flags;
	bool held = false;

	if (!p)
		return false;
	if (READ_ONCE(p->lost)) {
		*r = DM_MAPIO_KILL;
		return true;
	}
	spin_lock_irqsave(&p->lock, flags);
	if (p->nr_stale) {
		bio_list_add(&p->flushes, bio);
		WRITE_ONCE(p->draining, true);
		held = true;
	}
	spin_unlock_irqrestore(&p->lock, flags);
	if (held) {
		ssa_sr_kick(p);
		*r = DM_MAPIO_SUBMITTED;
	}
	return held;
}

/* Unit @i is no longer stale (lock held). */
static void ssa_sr_unstale(struct ssa_sr_prop *p, u64 i)
{
	__clear_bit(i, p->stale);
	WRITE_ONCE(p->nr_stale, p->nr_stale - 1);
	if (!p->nr_stale)
		wake_up_all(&p->drained);
}

/*
 * The next unit to copy, marked as being copied: stale, no write in
 * flight on it, and -- unless a flush or a suspend waits -- its member
 * without user I/O of the volume.  Units of a failed member with another
 * live copy are dropped (it is neither read nor written any more).
 */
static bool ssa_sr_next(struct ssa_sr *sr, u64 *idx)
{
	struct ssa_sr_prop *p = sr->prop;
	struct ssa_ctx *sc = sr->sc;
	u64 n = p->nr_units * sc->nr_members, i, start, end;
	struct ssa_sr_unit *un;
	bool found = false, wrapped = false;
	unsigned int m;

	spin_lock_irq(&p->lock);
	start = p->cursor < n ? p->cursor : 0;
	/* one pass: [start, n), then [0, start) */
	for (i = start, end = n; p->nr_stale; i++) {
		i = find_next_bit(p->stale, end, i);
		if (i >= end) {
			if (wrapped)
				break;
			wrapped = true;
			i = find_first_bit(p->stale, start);
			end = start;
			if (i >= end)
				break;
		}
		m = div64_u64(i, p->nr_units);
		un = &p->units[i];
		if (sc->copies > 1 &&
		    test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags)) {
			atomic64_inc(&p->dropped);
			ssa_sr_unstale(p, i);
			continue;
		}
		if (un->writing || (!p->draining &&
				    atomic_read(&sc->members[m].outstanding)))
			continue;
		un->flags = SSA_SRU_COPYING;
		p->cursor = i + 1;
		*idx = i;
		found = true;
		break;
	}
	spin_unlock_irq(&p->lock);
	return found;
}

/* Copy unit @i from a replica that holds its data to the others. */
static void ssa_sr_copy_unit(struct ssa_sr *sr, u64 i)
{
	struct ssa_sr_prop *p = sr->prop;
	struct ssa_ctx *sc = sr->sc;
	u32 chunk = sc->geom.chunk, off, len;
	unsigned int m, r, from;
	struct ssa_sr_unit *un = &p->units[i];
	u64 unit, u0;
	u8 to;
	int err = 0;

	m = div64_u64_rem(i, p->nr_units, &unit);
	u0 = ssa_sr_sector(unit * chunk, sr->track, sr->replicas, 0);
	spin_lock_irq(&p->lock);
	from = __ffs(un->valid);
	to = sr->all & ~un->valid;
	spin_unlock_irq(&p->lock);

	for (off = 0; off < chunk && !err; off += len) {
		len = min_t(u32, chunk - off, SSA_WINDOW_SECTORS);
		err = ssa_member_rw(sc, m, REQ_OP_READ,
				    u0 + (u64)from * sr->arc + off, len,
				    p->pages, SSA_CLASS_LOW);
		for (r = 0; r < sr->replicas && !err; r++)
			if (to & BIT(r))
				err = ssa_member_rw(sc, m, REQ_OP_WRITE,
						    u0 + (u64)r * sr->arc + off,
						    len, p->pages,
						    SSA_CLASS_LOW);
	}

	spin_lock_irq(&p->lock);
	if (err) {
		/*
		 * The replicas that hold the data keep serving the unit while
		 * the table is loaded; the data is not durable any more.
		 */
		atomic64_inc(&p->dropped);
		WRITE_ONCE(p->lost, true);
		ssa_sr_unstale(p, i);
	} else if (!(un->flags & SSA_SRU_REDO)) {
		WRITE_ONCE(un->valid, un->valid | to);
		if (un->valid == sr->all) {
			atomic64_inc(&p->copied);
			ssa_sr_unstale(p, i);
		}
	}
	un->flags = 0;
	spin_unlock_irq(&p->lock);
	if (err && !test_and_set_bit(SSA_SR_LOST_REPORTED, &p->reported))
		schedule_work(&sc->event_work);
	if (err)
		DMERR_LIMIT("%s: member %u: sector %llu not copied (%d): stale replicas unused",
			    dm_device_name(dm_table_get_md(sc->ti->table)), m,
			    (unsigned long long)u0, err);
}

/* Flushes held: released once nothing is stale. */
static void ssa_sr_release_flushes(struct ssa_sr *sr)
{
	struct ssa_sr_prop *p = sr->prop;
	struct ssa_ctx *sc = sr->sc;
	struct bio_list list;
	struct bio *bio;

	spin_lock_irq(&p->lock);
	if (p->nr_stale) {
		spin_unlock_irq(&p->lock);
		return;
	}
	list = p->flushes;
	bio_list_init(&p->flushes);
	WRITE_ONCE(p->draining, p->suspending);
	spin_unlock_irq(&p->lock);

	while ((bio = bio_list_pop(&list))) {
		if (READ_ONCE(p->lost))
			bio_io_error(bio);
		else
			ssa_flush_deferred(sc, ssa_io_of(sc, bio), bio);
	}
}

static void ssa_sr_work_prop(struct work_struct *work)
{
	struct ssa_sr_prop *p = container_of(work, struct ssa_sr_prop, work);
	struct ssa_sr *sr = p->sr;
	u64 i;

	while (ssa_sr_next(sr, &i)) {
		ssa_sr_copy_unit(sr, i);
		cond_resched();
	}
	ssa_sr_release_flushes(sr);
}

/* Presuspend: every replica is written from now on, and the rest copied. */
void ssa_sr_prop_stop(struct ssa_ctx *sc)
{
	struct ssa_sr_prop *p = ssa_sr_of(sc)->prop;

	if (!p)
		return;
	spin_lock_irq(&p->lock);
	p->suspending = true;
	WRITE_ONCE(p->draining, true);
	spin_unlock_irq(&p->lock);
	if (READ_ONCE(p->nr_stale))
		ssa_sr_kick(p);
}

/* Postsuspend: nothing of the volume in flight; copy what is stale. */
void ssa_sr_prop_quiesced(struct ssa_ctx *sc)
{
	struct ssa_sr_prop *p = ssa_sr_of(sc)->prop;

	if (!p)
		return;
	ssa_sr_kick(p);
	wait_event(p->drained, !READ_ONCE(p->nr_stale));
	flush_workqueue(p->wq);
}

/* Resume (or a suspend undone): back to one replica a write. */
void ssa_sr_prop_start(struct ssa_ctx *sc)
{
	struct ssa_sr_prop *p = ssa_sr_of(sc)->prop;

	if (!p)
		return;
	spin_lock_irq(&p->lock);
	p->suspending = false;
	WRITE_ONCE(p->draining, !bio_list_empty(&p->flushes));
	spin_unlock_irq(&p->lock);
}
