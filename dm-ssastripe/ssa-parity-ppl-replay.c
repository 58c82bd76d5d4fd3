// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the partial parity log's superblock, and its replay at the
 * first resume after a crash: every sound entry at or after the tail gives
 * its group a parity that agrees with what reached the members (the
 * design: ssa-parity-ppl.c).
 */
#include <linux/crc32.h>
#include <linux/random.h>
#include <linux/sort.h>

#include "ssa-parity-ppl.h"

/* ---- the superblock ------------------------------------------------- */

int ssa_ppl_write_sb(struct ssa_ppl *ppl, u64 tail, u32 flags)
{
	struct ssa_ppl_sb *sb = page_address(ppl->sb_page);
	struct ssa_ctx *sc = ppl->sc;

	lockdep_assert_held(&ppl->io_mutex);
	memset(sb, 0, PAGE_SIZE);
	memcpy(sb->magic, SSA_PPL_MAGIC, sizeof(sb->magic));
	sb->version = cpu_to_le32(SSA_PPL_VERSION);
	sb->layout = cpu_to_le32(sc->layout->id);
	sb->members = cpu_to_le32(sc->nr_members);
	sb->chunk = cpu_to_le32(sc->geom.chunk);
	sb->rows = cpu_to_le64(sc->geom.rows);
	sb->slots = cpu_to_le64(ppl->slots);
	sb->slot_sectors = cpu_to_le32(ppl->slot_sectors);
	sb->flags = cpu_to_le32(flags);
	sb->log_id = cpu_to_le64(ppl->log_id);
	sb->tail = cpu_to_le64(tail);
	sb->events = cpu_to_le64(++ppl->events);
	sb->sync_pos = cpu_to_le64(READ_ONCE(ssa_par(sc)->sync_pos));
	sb->csum = cpu_to_le32(crc32(0, sb, offsetof(struct ssa_ppl_sb, csum)));
	return ssa_pages_io(ppl->bdev, 0, &ppl->sb_page, SSA_PPL_BLOCK,
			    REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
}

/*
 * The device failed: writes go on unprotected from now on.  Its
 * superblock, if it can still be written, says so.  io_mutex held.
 */
void ssa_ppl_fail(struct ssa_ppl *ppl, const char *what, int r)
{
	if (ppl->given_up)
		return;
	WRITE_ONCE(ppl->given_up, true);
	DMERR("%s: ppl %s: %s error %d: writes unprotected; a crash now needs a full resync",
	      ssa_ppl_name(ppl), ppl->sc->meta_dev->name, what, r);
	WRITE_ONCE(ppl->failed, true);
	ssa_ppl_write_sb(ppl, 0, SSA_PPL_UNTRUSTED);
}

/*
 * Whether ppl->sb_page holds one of ours: 1 (its geometry matches the
 * table's), 0 (not a log: a new one), -EINVAL (another volume's).
 */
int ssa_ppl_sb_check(struct ssa_ppl *ppl, char **error)
{
	struct ssa_ppl_sb *sb = page_address(ppl->sb_page);
	struct ssa_ctx *sc = ppl->sc;

	if (memcmp(sb->magic, SSA_PPL_MAGIC, sizeof(sb->magic)))
		return 0;
	if (le32_to_cpu(sb->csum) !=
	    crc32(0, sb, offsetof(struct ssa_ppl_sb, csum))) {
		*error = "ppl superblock checksum mismatch (wipe it to start afresh)";
		return -EINVAL;
	}
	if (le32_to_cpu(sb->version) != SSA_PPL_VERSION) {
		*error = "ppl superblock of an unknown version";
		return -EINVAL;
	}
	if (le32_to_cpu(sb->layout) != sc->layout->id ||
	    le32_to_cpu(sb->members) != sc->nr_members ||
	    le32_to_cpu(sb->chunk) != sc->geom.chunk ||
	    le64_to_cpu(sb->rows) != sc->geom.rows ||
	    le64_to_cpu(sb->slots) != ppl->slots ||
	    le32_to_cpu(sb->slot_sectors) != ppl->slot_sectors) {
		/* (a log device that grew or shrank has other slots) */
		DMERR("ppl %s: of layout %u, %u members, chunk %u, %llu groups, %llu slots",
		      sc->meta_dev->name, le32_to_cpu(sb->layout),
		      le32_to_cpu(sb->members), le32_to_cpu(sb->chunk),
		      le64_to_cpu(sb->rows), le64_to_cpu(sb->slots));
		DMERR("ppl %s: the table: layout %u, %u members, chunk %u, %llu groups, %llu slots",
		      sc->meta_dev->name, sc->layout->id, sc->nr_members,
		      sc->geom.chunk, sc->geom.rows, ppl->slots);
		*error = "ppl device holds the log of another geometry";
		return -EINVAL;
	}
	return 1;
}

/* ---- replay after a crash -------------------------------------------- */

/* crc32 of @bytes of a page buffer. */
u32 ssa_ppl_crc(struct page **pages, u32 bytes)
{
	u32 crc = 0, i;

	for (i = 0; i < bytes; i += PAGE_SIZE)
		crc = crc32(crc, page_address(pages[i >> PAGE_SHIFT]),
			    min_t(u32, PAGE_SIZE, bytes - i));
	return crc;
}

/* A member the replay cannot read or write: failed, or being rebuilt. */
static bool ssa_ppl_gone(struct ssa_ctx *sc, unsigned int m)
{
	struct ssa_parity *par = ssa_par(sc);

	return test_bit(SSA_MEMBER_FAILED, &sc->members[m].flags) ||
	       (par->rb_active && (int)m == par->rb_member);
}

/* Sectors [lo, hi) of member @m's chunk of @grp, to or from @pages. */
static int ssa_ppl_member_io(struct ssa_ctx *sc, const struct ssa_group *grp,
			     unsigned int m, u32 lo, u32 hi,
			     struct page **pages, blk_opf_t opf)
{
	struct ssa_member *mb = &sc->members[m];
	sector_t s = mb->offset + lo +
		     sc->layout->group_chunk(&sc->geom, grp, m) * sc->geom.chunk;
	int r = ssa_pages_io(mb->dev->bdev, s, pages,
			     (hi - lo) << SECTOR_SHIFT, opf);

	if (r)
		ssa_member_error(sc, m, BLK_STS_IOERR, NULL);
	return r;
}

/*
 * Give sectors [from, to) of the group of entry @h the parity its partial
 * parity @pp and the changed ranges as they are now make, a slice at a
 * time.  Sectors that a member gone now was changing keep the parity they
 * have.  False if a slice could not be made right.  Under scratch_mutex.
 */
static bool ssa_ppl_apply(struct ssa_ppl *ppl, const struct ssa_ppl_hdr *h,
			  struct page **pp, u32 from, u32 to)
{
	struct ssa_ctx *sc = ppl->sc;
	struct page ***scratch = ssa_par(sc)->scratch;
	u32 lo = le32_to_cpu(h->lo), a, n, i;
	struct ssa_group grp;
	unsigned int pm;
	bool whole = true;

	sc->layout->group_at(&sc->geom, le64_to_cpu(h->group), &grp);
	pm = grp.pmember;
	if (ssa_ppl_gone(sc, pm))
		return true;	/* no parity to mend */
	for (a = from; a < to; a += n) {
		struct page **acc = scratch[pm];
		int gone = -1;
		u32 gx = 0, gy = 0;

		n = min_t(u32, to - a, SSA_RECON_SECTORS);
		ssa_parity_copy_buf(acc, 0, pp, (a - lo) << SECTOR_SHIFT,
				    n << SECTOR_SHIFT);
		for (i = 0; i < le32_to_cpu(h->nr); i++) {
			unsigned int m = le32_to_cpu(h->ranges[i].member);
			u32 x = max(le32_to_cpu(h->ranges[i].lo), a);
			u32 y = min(le32_to_cpu(h->ranges[i].hi), a + n);

			if (x >= y)
				continue;
			if (!ssa_ppl_gone(sc, m) &&
			    !ssa_ppl_member_io(sc, &grp, m, x, y, scratch[m],
					       REQ_OP_READ | REQ_SYNC)) {
				ssa_parity_xor_buf(acc, (x - a) << SECTOR_SHIFT,
						   scratch[m], 0,
						   (y - x) << SECTOR_SHIFT);
				continue;
			}
			if (gone >= 0)
				goto skip;	/* two gone: nothing to mend */
			gone = m;
			gx = x;
			gy = y;
		}
		/* the gone member was in flight there: the parity stays */
		if (gone >= 0) {
			if (ssa_ppl_member_io(sc, &grp, pm, gx, gy, scratch[gone],
					      REQ_OP_READ | REQ_SYNC))
				goto skip;
			ssa_parity_copy_buf(acc, (gx - a) << SECTOR_SHIFT,
					    scratch[gone], 0,
					    (gy - gx) << SECTOR_SHIFT);
		}
		if (!ssa_ppl_member_io(sc, &grp, pm, a, a + n, acc,
				       REQ_OP_WRITE | REQ_SYNC))
			continue;
skip:
		whole = false;
	}
	return whole;
}

struct ssa_ppl_found {
	u64 group;
	u64 seq;
	u64 slot;
};

/* By group, and in a group the newest entry first. */
static int ssa_ppl_found_cmp(const void *a, const void *b)
{
	const struct ssa_ppl_found *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/*
 * Entry @h over the sectors of its range that no newer entry of its group
 * covers (@decided: those that one does; these are added).  The newest
 * entry covering a sector is the one that tells its parity: the ranges an
 * older one left unchanged may have been changed since.
 */
static bool ssa_ppl_apply_undecided(struct ssa_ppl *ppl,
				    const struct ssa_ppl_hdr *h,
				    struct page **pp, unsigned long *decided)
{
	u32 lo = le32_to_cpu(h->lo), hi = le32_to_cpu(h->hi), a, b;
	bool whole = true;

	for (a = lo; a < hi; a = b) {
		a = find_next_zero_bit(decided, hi, a);
		if (a >= hi)
			break;
		b = find_next_bit(decided, hi, a);
		if (!ssa_ppl_apply(ppl, h, pp, a, b))
			whole = false;
	}
	bitmap_set(decided, lo, hi - lo);
	return whole;
}

/* Whether header @h is a sound entry of this log at or after @tail. */
static bool ssa_ppl_hdr_ok(struct ssa_ppl *ppl, struct ssa_ppl_hdr *h,
			   u64 tail)
{
	struct ssa_ctx *sc = ppl->sc;
	u32 csum = le32_to_cpu(h->csum), lo, hi, nr, i;
	bool ok;

	if (memcmp(h->magic, SSA_PPL_ENTRY_MAGIC, sizeof(h->magic)) ||
	    le64_to_cpu(h->log_id) != ppl->log_id ||
	    le64_to_cpu(h->seq) < tail)
		return false;
	h->csum = 0;
	ok = crc32(0, h, sizeof(*h)) == csum;
	h->csum = cpu_to_le32(csum);
	lo = le32_to_cpu(h->lo);
	hi = le32_to_cpu(h->hi);
	nr = le32_to_cpu(h->nr);
	if (!ok || le64_to_cpu(h->group) >= sc->geom.rows || lo >= hi ||
	    hi > sc->geom.chunk || nr > sc->nr_members)
		return false;
	for (i = 0; i < nr; i++) {
		u32 m = le32_to_cpu(h->ranges[i].member);
		u32 a = le32_to_cpu(h->ranges[i].lo);
		u32 b = le32_to_cpu(h->ranges[i].hi);

		if (m >= sc->nr_members || a >= b || a < lo || b > hi)
			return false;
	}
	return true;
}

/*
 * Every sound entry at or after @tail onto the members, group by group,
 * the newest first.  *@next: the seq after the newest found.  The number
 * replayed, or an error reading the log.
 */
static int ssa_ppl_replay(struct ssa_ppl *ppl, u64 tail, u64 *next,
			  unsigned int *torn)
{
	struct ssa_parity *par = ssa_par(ppl->sc);
	unsigned int npages = ppl->slot_sectors >> (PAGE_SHIFT - SECTOR_SHIFT);
	DECLARE_BITMAP(decided, SSA_PARITY_MAX_CHUNK);
	struct ssa_ppl_found *found;
	struct page **pages;
	u64 s, nr = 0, i;
	int r = 0, done = 0;

	*next = tail;
	*torn = 0;
	found = kvmalloc_array(ppl->slots, sizeof(*found), GFP_KERNEL);
	pages = kcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!found || !pages) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < npages; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i]) {
			r = -ENOMEM;
			goto out;
		}
	}
	for (s = 0; s < ppl->slots; s++) {
		struct ssa_ppl_hdr *h = page_address(pages[0]);

		r = ssa_pages_io(ppl->bdev, SSA_PPL_BLOCK_SECTORS +
				 s * ppl->slot_sectors, pages, SSA_PPL_BLOCK,
				 REQ_OP_READ | REQ_SYNC);
		if (r)
			goto out;
		if (!ssa_ppl_hdr_ok(ppl, h, tail))
			continue;
		found[nr].group = le64_to_cpu(h->group);
		found[nr].seq = le64_to_cpu(h->seq);
		found[nr++].slot = s;
	}
	sort(found, nr, sizeof(*found), ssa_ppl_found_cmp, NULL);
	mutex_lock(&par->scratch_mutex);
	for (i = 0; i < nr; i++) {
		struct ssa_ppl_hdr *h = page_address(pages[0]);
		struct page **pp = &pages[SSA_PPL_BLOCK / PAGE_SIZE];
		u32 bytes;

		if (!i || found[i].group != found[i - 1].group)
			bitmap_zero(decided, SSA_PARITY_MAX_CHUNK);
		r = ssa_pages_io(ppl->bdev, SSA_PPL_BLOCK_SECTORS +
				 found[i].slot * ppl->slot_sectors, pages,
				 ppl->slot_sectors << SECTOR_SHIFT,
				 REQ_OP_READ | REQ_SYNC);
		if (r)
			break;
		bytes = (le32_to_cpu(h->hi) - le32_to_cpu(h->lo)) << SECTOR_SHIFT;
		if (!ssa_ppl_hdr_ok(ppl, h, tail) ||
		    ssa_ppl_crc(pp, bytes) != le32_to_cpu(h->pp_csum)) {
			/* its write was cut short: so were the writes after it */
			(*torn)++;
			continue;
		}
		if (!ssa_ppl_apply_undecided(ppl, h, pp, decided))
			DMWARN("%s: ppl: group %llu only partly mended (a member failed)",
			       ssa_ppl_name(ppl), le64_to_cpu(h->group));
		*next = max(*next, found[i].seq + 1);
		done++;
	}
	mutex_unlock(&par->scratch_mutex);
out:
	for (i = 0; pages && i < npages; i++)
		if (pages[i])
			__free_page(pages[i]);
	kfree(pages);
	kvfree(found);
	return r ?: done;
}

/*
 * The first resume: read the log; an existing one is replayed (whatever
 * the superblock's flags: entries at or after its tail are writes that may
 * not have ended) and emptied, a device of no log becomes a new one.  A
 * log given up before means a resync of every group.  io_mutex held.
 */
int ssa_ppl_load(struct ssa_ppl *ppl)
{
	struct ssa_ppl_sb *sb = page_address(ppl->sb_page);
	struct ssa_ctx *sc = ppl->sc;
	struct ssa_parity *par = ssa_par(sc);
	unsigned int torn = 0;
	u64 tail = 0, next;
	char *error;
	u32 flags = 0;
	int r, ours;

	r = ssa_pages_io(ppl->bdev, 0, &ppl->sb_page, SSA_PPL_BLOCK,
			 REQ_OP_READ | REQ_SYNC);
	ours = r ? 0 : ssa_ppl_sb_check(ppl, &error);
	if (ours < 0) {
		DMERR("%s: ppl %s: %s", ssa_ppl_name(ppl), sc->meta_dev->name,
		      error);
		return -EINVAL;
	}
	if (r) {
		ssa_ppl_fail(ppl, "read", r);
		WRITE_ONCE(par->sync_pos, 0);
		return 0;
	}
	if (ours) {
		flags = le32_to_cpu(sb->flags);
		ppl->log_id = le64_to_cpu(sb->log_id);
		ppl->events = le64_to_cpu(sb->events);
		tail = le64_to_cpu(sb->tail);
	}
	if (ours && (flags & SSA_PPL_UNTRUSTED)) {
		DMWARN("%s: ppl %s: given up earlier (an I/O error): resyncing every group",
		       ssa_ppl_name(ppl), sc->meta_dev->name);
		WRITE_ONCE(par->sync_pos, 0);
		ours = 0;
	}
	if (!ours) {
		/* a new log: entries of any earlier one do not match its id */
		ppl->log_id = get_random_u64();
		DMINFO("%s: ppl %s: new, %llu slots of %u sectors",
		       ssa_ppl_name(ppl), sc->meta_dev->name, ppl->slots,
		       ppl->slot_sectors);
		next = 0;
	} else {
		if (!test_bit(SSA_OPT_INITIAL_SYNC, &sc->opts_given) &&
		    !sc->rebuild_mask)
			WRITE_ONCE(par->sync_pos, min(le64_to_cpu(sb->sync_pos),
						      sc->geom.rows));
		/* a clean stop left nothing at or after its tail */
		r = flags & SSA_PPL_CLEAN ? 0 : ssa_ppl_replay(ppl, tail, &next, &torn);
		if (r < 0) {
			ssa_ppl_fail(ppl, "replay", r);
			WRITE_ONCE(par->sync_pos, 0);
			return 0;
		}
		ppl->replayed = r;
		DMINFO("%s: ppl %s: stopped %s, %d entries replayed, %u cut short",
		       ssa_ppl_name(ppl), sc->meta_dev->name,
		       flags & SSA_PPL_CLEAN ? "cleanly" : "without a suspend (a crash?)",
		       r, torn);
		/* what the replay wrote is durable before the log forgets it */
		if (r && ssa_flush_members(sc)) {
			ssa_ppl_fail(ppl, "member flush after the replay", -EIO);
			WRITE_ONCE(par->sync_pos, 0);
			return 0;
		}
		next = max(next, tail);
	}
	ppl->head = next;
	ppl->tail_mem = next;
	ppl->tail_disk = next;
	ppl->flushed = next;
	return 0;
}
