// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the retry of read children that failed on their member,
 * for the layouts that keep copies (mirror, srarray).  A layout's
 * completion hands such a child to ssa_retry_add(); the work item sends
 * it again, from process context, to the copy the layout's @next picks
 * among those the child has not been sent to, or fails the request when
 * none is left.  It sits above the core: it resubmits through the
 * dispatchers and joins through ssa_io_put(), and neither calls it.
 */
#include "dm-ssastripe.h"

static void ssa_retry_work(struct work_struct *work)
{
	struct ssa_retry *r = container_of(work, struct ssa_retry, work);
	struct ssa_ctx *sc = r->sc;
	struct bio_list list;
	struct bio *bio;

	spin_lock_irq(&r->lock);
	list = r->list;
	bio_list_init(&r->list);
	spin_unlock_irq(&r->lock);

	while ((bio = bio_list_pop(&list))) {
		struct ssa_child *c = to_child(bio);
		struct ssa_cstate *cs = &c->cs;
		u32 set = cs->member / sc->copies;
		struct ssa_member *mb;
		int m = r->next(sc, c);

		if (m < 0) {
			DMERR_LIMIT("%s: read of sectors %llu+%u failed on every copy of set %u",
				    dm_device_name(dm_table_get_md(sc->ti->table)),
				    (unsigned long long)cs->msector, cs->len, set);
			ssa_io_set_error(c->io, BLK_STS_IOERR);
			if (r->put)
				r->put(bio);
			else
				bio_put(bio);
			ssa_io_put(c->io);
			continue;
		}
		mb = &sc->members[m];
		c->tried |= BIT_ULL(m);
		cs->member = m;
		bio->bi_iter = c->iter;
		bio->bi_iter.bi_sector = mb->offset + cs->msector;
		bio->bi_status = BLK_STS_OK;
		bio_set_dev(bio, mb->dev->bdev);
		atomic_inc(&mb->outstanding);
		ssa_submit_child(sc, bio, c->io, cs, false);
	}
}

void ssa_retry_init(struct ssa_retry *r, struct ssa_ctx *sc,
		    int (*next)(struct ssa_ctx *sc, struct ssa_child *c),
		    void (*put)(struct bio *bio))
{
	r->sc = sc;
	r->next = next;
	r->put = put;
	spin_lock_init(&r->lock);
	bio_list_init(&r->list);
	INIT_WORK(&r->work, ssa_retry_work);
}

/* Any context: the child's completion. */
void ssa_retry_add(struct ssa_retry *r, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&r->lock, flags);
	bio_list_add(&r->list, bio);
	spin_unlock_irqrestore(&r->lock, flags);
	queue_work(r->sc->wq, &r->work);
}
