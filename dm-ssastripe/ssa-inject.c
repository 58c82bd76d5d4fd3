// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: test-only fault injection, built with SSA_DEBUG=y (the
 * default of a build from the tree; the DKMS package builds without it).
 *
 * dmsetup message <dev> 0 debug_inject_high <member> <count>
 *
 * sends @count page reads to @member in the high-priority class, as
 * internal work with no request behind it, so that the kernel tests can
 * see the dispatchers serve two classes.  The target's destructor waits
 * for the reads still in flight (ssa_inject_drain()).
 */
#include <linux/blkdev.h>

#include "dm-ssastripe.h"
#include "ssa-args.h"

void ssa_inject_init(struct ssa_ctx *sc)
{
	atomic_set(&sc->injected, 0);
	atomic_set(&sc->inject_seq, 0);
	init_waitqueue_head(&sc->injected_wait);
}

/* DM waits for requests; internal work it does not know about. */
void ssa_inject_drain(struct ssa_ctx *sc)
{
	wait_event(sc->injected_wait, !atomic_read(&sc->injected));
}

/* High-priority reads with no request behind them. */
static void ssa_inject_endio(struct bio *bio)
{
	struct ssa_child *c = to_child(bio);
	struct ssa_ctx *sc = c->sc;

	ssa_child_done(sc, bio, NULL, &c->cs, bio->bi_status);
	__free_page(bio_first_page_all(bio));
	bio_put(bio);
	if (atomic_dec_and_test(&sc->injected))
		wake_up(&sc->injected_wait);
}

static int ssa_inject_high(struct ssa_ctx *sc, unsigned int m,
			   unsigned int count)
{
	struct ssa_member *mb = &sc->members[m];
	unsigned int i, step = PAGE_SIZE >> SECTOR_SHIFT;
	u32 slots = min_t(u64, div_u64(sc->member_len, step), U32_MAX);

	if (!slots)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		struct ssa_child *c;
		struct page *page;
		struct bio *bio;

		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		bio = bio_alloc_bioset(mb->dev->bdev, 1, REQ_OP_READ,
				       GFP_KERNEL, &sc->bs);
		__bio_add_page(bio, page, PAGE_SIZE, 0);
		c = to_child(bio);
		c->sc = sc;
		c->io = NULL;
		ssa_cstate_set(&c->cs, m, (i % slots) * step, step,
			       atomic_inc_return(&sc->inject_seq),
			       SSA_CLASS_HIGH, SSA_OP_READ);
		bio->bi_iter.bi_sector = mb->offset + c->cs.msector;
		bio->bi_end_io = ssa_inject_endio;
		atomic_inc(&sc->injected);
		ssa_submit_child(sc, bio, NULL, &c->cs, false);
	}
	return 0;
}

/* The message "debug_inject_high <member> <count>" (argv[0] is its word). */
int ssa_inject_message(struct ssa_ctx *sc, char **argv)
{
	unsigned int m, val;

	if (ssa_parse_uint(argv[1], &m) || m >= sc->nr_members ||
	    ssa_parse_uint(argv[2], &val) || !val || val > 1024) {
		DMWARN("debug_inject_high <member 0..%u> <count 1..1024>",
		       sc->nr_members - 1);
		return -EINVAL;
	}
	return ssa_inject_high(sc, m, val);
}
