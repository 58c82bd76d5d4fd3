// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the synchronous member I/O of background work (walks,
 * propagation, the write-intent bitmap's and the partial parity log's
 * daemons), in process context: a window of pages read or written on a
 * member through its dispatcher and waited for, a page buffer read or
 * written on a device directly, and every member's volatile cache
 * flushed.  It sits above the dispatchers and below the layouts; the
 * I/O path of requests never calls it.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"

/* A window of pages for internal work (ssa_member_rw()). */
struct page **ssa_pages_alloc(void)
{
	struct page **pages;
	unsigned int i;

	pages = kcalloc(SSA_WINDOW_PAGES, sizeof(*pages), GFP_KERNEL);
	for (i = 0; pages && i < SSA_WINDOW_PAGES; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i])
			goto fail;
	}
	return pages;
fail:
	while (i--)
		__free_page(pages[i]);
	kfree(pages);
	return NULL;
}

void ssa_pages_free(struct page **pages)
{
	unsigned int i;

	if (!pages)
		return;
	for (i = 0; i < SSA_WINDOW_PAGES; i++)
		__free_page(pages[i]);
	kfree(pages);
}

static void ssa_member_rw_endio(struct bio *bio)
{
	struct ssa_child *c = to_child(bio);

	ssa_child_done(c->sc, bio, NULL, &c->cs, bio->bi_status);
	complete(bio->bi_private);
}

/*
 * Read or write @sectors (at most a window) at member sector @ms of member
 * @m, into or from @pages, through the member's dispatcher in @class, and
 * wait for it; 0 or -errno.  A member that fails it is marked failed.
 */
int ssa_member_rw(struct ssa_ctx *sc, unsigned int m, enum req_op op, u64 ms,
		  unsigned int sectors, struct page **pages, u8 class)
{
	struct ssa_member *mb = &sc->members[m];
	DECLARE_COMPLETION_ONSTACK(done);
	unsigned int i, bytes = sectors << SECTOR_SHIFT;
	struct ssa_child *c;
	struct bio *bio;
	int r;

	bio = bio_alloc_bioset(mb->dev->bdev, DIV_ROUND_UP(bytes, PAGE_SIZE),
			       op, GFP_NOIO, &sc->bs);
	for (i = 0; bytes; i++) {
		unsigned int n = min_t(unsigned int, bytes, PAGE_SIZE);

		__bio_add_page(bio, pages[i], n, 0);
		bytes -= n;
	}
	c = to_child(bio);
	c->sc = sc;
	c->io = NULL;
	c->src = NULL;
	ssa_cstate_set(&c->cs, m, ms, sectors, 0, class,
		       op == REQ_OP_READ ? SSA_OP_READ : SSA_OP_WRITE);
	bio->bi_iter.bi_sector = mb->offset + ms;
	bio->bi_private = &done;
	bio->bi_end_io = ssa_member_rw_endio;
	ssa_submit_child(sc, bio, NULL, &c->cs, false);
	wait_for_completion_io(&done);
	r = blk_status_to_errno(bio->bi_status);
	bio_put(bio);
	return r;
}

/*
 * Members' volatile caches to their media (the write-intent bitmap's and
 * the partial parity log's daemons, before they let go of what they
 * recorded).  A member whose
 * flush fails has failed (its writes may be lost); the error is returned.
 */
int ssa_flush_members(struct ssa_ctx *sc)
{
	unsigned int m;
	int r = 0, e;

	for (m = 0; m < sc->nr_members; m++) {
		if (test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags))
			continue;
		e = blkdev_issue_flush(sc->members[m].dev->bdev);
		if (e) {
			ssa_member_error(sc, m, BLK_STS_IOERR, NULL);
			r = e;
		}
	}
	return r;
}

/*
 * Read or write @bytes at @sector of @bdev from @pages, and wait: the
 * background walks' member I/O and the bitmap's (process context only).
 */
int ssa_pages_io(struct block_device *bdev, sector_t sector,
		 struct page **pages, u32 bytes, blk_opf_t opf)
{
	unsigned int i, n = DIV_ROUND_UP(bytes, PAGE_SIZE);
	struct bio *bio;
	int r;

	bio = bio_alloc(bdev, n, opf, GFP_NOIO);
	bio->bi_iter.bi_sector = sector;
	for (i = 0; i < n; i++) {
		u32 b = min_t(u32, PAGE_SIZE, bytes);

		__bio_add_page(bio, pages[i], b, 0);
		bytes -= b;
	}
	r = submit_bio_wait(bio);
	bio_put(bio);
	return r;
}
