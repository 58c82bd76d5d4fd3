// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the parity layouts' buffers: XOR and copies between page
 * buffers and a request's bvecs, and the pages of an operation.
 */
#include "ssa-parity.h"

/* ---- XOR and copies over page buffers and the request's bvecs ------- */

static void ssa_xor(void *dst, void *src, unsigned int bytes)
{
	if (!(((unsigned long)dst | (unsigned long)src | bytes) & 511)) {
		ssa_xor_gen(dst, &src, 1, bytes);
	} else {
		u8 *d = dst, *s = src;

		while (bytes--)
			*d++ ^= *s++;
	}
}

/* dst[doff..] ^= src[soff..] over @bytes (buffers of whole pages). */
void ssa_parity_xor_buf(struct page **dst, u32 doff, struct page **src,
			u32 soff, u32 bytes)
{
	while (bytes) {
		u32 n = min3(bytes, (u32)(PAGE_SIZE - offset_in_page(doff)),
			     (u32)(PAGE_SIZE - offset_in_page(soff)));

		ssa_xor(ssa_parity_buf_at(dst, doff),
			ssa_parity_buf_at(src, soff), n);
		doff += n;
		soff += n;
		bytes -= n;
	}
}

/*
 * Move @bytes between @bio's data at @it (which advances past them) and
 * the page buffer @buf from byte @off, as @how says.
 */
void ssa_parity_xfer(struct bio *bio, struct bvec_iter *it, struct page **buf,
		     u32 off, u32 bytes, enum ssa_xfer how)
{
	while (bytes) {
		struct bio_vec bv = bio_iter_iovec(bio, *it);
		u32 n = min3(bytes, bv.bv_len,
			     (u32)(PAGE_SIZE - offset_in_page(off)));
		void *data = kmap_local_page(bv.bv_page) + bv.bv_offset;

		if (how == SSA_XFER_COPY_IN)
			memcpy(ssa_parity_buf_at(buf, off), data, n);
		else if (how == SSA_XFER_XOR_IN)
			ssa_xor(ssa_parity_buf_at(buf, off), data, n);
		else
			memcpy(data, ssa_parity_buf_at(buf, off), n);
		kunmap_local(data);
		bio_advance_iter_single(bio, it, n);
		off += n;
		bytes -= n;
	}
}

/*
 * Combine the request's data at sector @loff (from its start) into
 * dst[doff..], @sectors long: XOR it in, or copy it over.
 */
void ssa_parity_bio_to_buf(struct ssa_pop *op, struct page **dst, u32 doff,
			   u32 loff, u32 sectors, bool copy)
{
	struct bvec_iter it = op->iter;

	bio_advance_iter(op->parent, &it, loff << SECTOR_SHIFT);
	ssa_parity_xfer(op->parent, &it, dst, doff, sectors << SECTOR_SHIFT,
			copy ? SSA_XFER_COPY_IN : SSA_XFER_XOR_IN);
}

/* dst[doff..] = src[soff..] over @bytes (buffers of whole pages). */
void ssa_parity_copy_buf(struct page **dst, u32 doff, struct page **src,
			 u32 soff, u32 bytes)
{
	while (bytes) {
		u32 n = min3(bytes, (u32)(PAGE_SIZE - offset_in_page(doff)),
			     (u32)(PAGE_SIZE - offset_in_page(soff)));

		memcpy(ssa_parity_buf_at(dst, doff),
		       ssa_parity_buf_at(src, soff), n);
		doff += n;
		soff += n;
		bytes -= n;
	}
}

void ssa_parity_zero_buf(struct page **pages, u32 bytes)
{
	u32 i;

	for (i = 0; i < bytes; i += PAGE_SIZE)
		memset(page_address(pages[i >> PAGE_SHIFT]), 0,
		       min_t(u32, PAGE_SIZE, bytes - i));
}

/* The new parity of @pg over [lo, hi), into its parity task's buffer. */
void ssa_parity_compute(struct ssa_pop *op, struct ssa_pgroup *pg)
{
	struct ssa_ptask *pt = ssa_parity_task(pg, op);
	struct page **p = ssa_ptask_pages(pt);
	u32 span = pg->hi - pg->lo;
	unsigned int i, j;

	if (pg->method == SSA_WM_RMW) {
		/* new parity = old parity ^ old data ^ new data */
		for (i = 0; i < pg->nr_data; i++) {
			struct ssa_ptask *t = &op->tasks[pg->first + i];
			u32 doff = (t->lo - pg->lo) << SECTOR_SHIFT;

			ssa_parity_xor_buf(p, doff, ssa_ptask_pages(t), 0,
					   (t->hi - t->lo) << SECTOR_SHIFT);
			ssa_parity_bio_to_buf(op, p, doff, t->loff,
					      t->hi - t->lo, false);
		}
		return;
	}

	/* rcw: the XOR of every data member's new contents over the range */
	ssa_parity_zero_buf(p, span << SECTOR_SHIFT);
	for (i = 0; i < pg->nr_data; i++) {
		struct ssa_ptask *t = &op->tasks[pg->first + i];
		struct ssa_ptask *r = NULL;

		for (j = 0; j < pg->nr_reads; j++)
			if (op->tasks[pg->xfirst + j].member ==
			    t->member)
				r = &op->tasks[pg->xfirst + j];
		if (!r) {	/* the write covers the whole range */
			ssa_parity_bio_to_buf(op, p, 0, t->loff, span, false);
			continue;
		}
		ssa_parity_bio_to_buf(op, ssa_ptask_pages(r),
				      (t->lo - pg->lo) << SECTOR_SHIFT, t->loff,
				      t->hi - t->lo, true);
	}
	for (j = 0; j < pg->nr_reads; j++)
		ssa_parity_xor_buf(p, 0,
				   ssa_ptask_pages(&op->tasks[pg->xfirst + j]),
				   0, span << SECTOR_SHIFT);
}

/* ---- pages ---------------------------------------------------------- */

void ssa_parity_get_pages(struct ssa_parity *par, struct ssa_pop *op)
{
	unsigned int i;

	for (i = 0; i < op->nr_pages; i++) {
		op->pages[i] = alloc_page(GFP_NOWAIT | __GFP_NOWARN);
		if (!op->pages[i])
			break;
	}
	if (i < op->nr_pages) {
		mutex_lock(&par->reserve);
		for (; i < op->nr_pages; i++)
			op->pages[i] = mempool_alloc(par->page_pool, GFP_NOIO);
		mutex_unlock(&par->reserve);
	}
	op->nr_alloc = op->nr_pages;
}

void ssa_parity_put_pages(struct ssa_parity *par, struct ssa_pop *op)
{
	unsigned int i;

	for (i = 0; i < op->nr_alloc; i++)
		mempool_free(op->pages[i], par->page_pool);
	op->nr_alloc = 0;
}
