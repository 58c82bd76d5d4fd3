// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the write-intent bitmap (table option "bitmap <dev>") of
 * the layouts that keep redundancy, so that a volume started after a
 * crash resyncs only the rows a write may have left inconsistent: parity
 * groups whose parity may be stale (raid5, pstripe), member chunks whose
 * copies may differ (mirror).
 *
 * The layout's rows are cut into regions of bitmap_region rows.  Before
 * a write changes a row, the bit of its region must be set on the bitmap
 * device: a write whose regions are all set there goes at once; any
 * other sets their bits in memory and waits while one work item writes
 * the whole bitmap (FUA) and then lets every write whose bits are now on
 * the device go on (the layout's go callback).  Bits are cleared lazily:
 * a daemon pass, once a second, clears the regions no write has touched
 * since the last pass and none holds now, flushes the members (so that
 * the writes that ended there are durable) and writes the bitmap.  At
 * suspend the bitmap keeps only the regions still waiting for a resync
 * and the superblock is marked clean; at resume it is marked active.
 *
 * Whatever the superblock says, every region whose bit is set when the
 * table is first resumed is resynced by the layout's walk, over those
 * regions only.
 *
 * On the device: the superblock (struct ssa_bm_sb) in the first 4 KiB,
 * the bitmap from sector 8 (region r: byte r / 8, bit r % 8).  A bitmap
 * device that fails is given up: the volume goes on unprotected, status
 * says "bitmap failed", and after a crash the whole volume is resynced.
 *
 * Also here: the metadata helpers the bitmap shares with the partial
 * parity log (a members' flush, synchronous page I/O).
 */
#include <linux/crc32.h>

#include <linux/slab.h>

#include "dm-ssastripe.h"
#include "ssa-bitmap.h"

#define SSA_BM_MAGIC		"SSABMAP1"
#define SSA_BM_VERSION		1
#define SSA_BM_BLOCK		4096	/* on-device unit, whatever PAGE_SIZE */
#define SSA_BM_SB_SECTORS	8	/* the superblock's 4 KiB */
#define SSA_BM_CLEAN		BIT(0)	/* flags: stopped by a suspend */
#define SSA_BM_UNTRUSTED	BIT(1)	/* flags: given up; resync everything */
#define SSA_BM_MIN_REGION	16	/* default: rows a region, at least */
#define SSA_BM_ONE_PAGE		(8 * 4096)	/* default: regions in 4 KiB */
#define SSA_BM_MAX_REGIONS	BIT(20)
#define SSA_BM_DAEMON_MS	1000

struct ssa_bm_sb {
	u8 magic[8];
	__le32 version;
	__le32 layout;
	__le32 members;
	__le32 chunk;		/* sectors */
	__le64 rows;		/* the layout's rows */
	__le32 region;		/* rows a region */
	__le32 flags;
	__le64 events;		/* superblock writes */
	__le64 sync_pos;	/* parity: the initial sync's progress */
	__le32 csum;		/* crc32 of the bytes before it */
} __packed;

struct ssa_bitmap {
	struct ssa_ctx *sc;
	struct block_device *bdev;
	ssa_bm_go_fn go;	/* lets a write that waited go on */
	u64 *sync_pos;		/* parity: the initial sync's progress */
	u64 rows;
	u32 region;		/* rows a region */
	u32 regions;
	u32 io_bytes;		/* the bitmap's bytes on the device */
	unsigned int nr_pages;	/* pages holding them */
	struct page **pages;	/* its write (and read) buffer */
	struct page *sb_page;

	spinlock_t lock;	/* the bit maps, @inflight, @waiting */
	unsigned long *mem;	/* set: a write may change the region */
	unsigned long *disk;	/* set on the device (as far as is known) */
	unsigned long *snap;	/* what the write under way writes */
	unsigned long *touched;	/* written since the daemon's last pass */
	unsigned long *cleared;	/* the daemon's pass clears these */
	unsigned long *resync;	/* to be resynced (set at the first resume) */
	u32 *inflight;		/* writes holding a region */
	struct list_head waiting;	/* writes waiting for their bits */

	struct mutex io_mutex;	/* one metadata write at a time */
	struct workqueue_struct *wq;
	struct work_struct write_work;
	struct delayed_work daemon;
	u64 events;
	bool loaded;		/* the first resume read the device */
	bool active;		/* resumed: the daemon runs */
	bool failed;
};

static u32 ssa_bm_bytes(u32 regions)
{
	return DIV_ROUND_UP(regions, 8);
}

/* Sectors the bitmap device needs for @regions. */
static sector_t ssa_bm_sectors(u32 regions)
{
	return SSA_BM_SB_SECTORS +
	       (round_up(ssa_bm_bytes(regions), SSA_BM_BLOCK) >> SECTOR_SHIFT);
}

static u32 ssa_bm_region_of(struct ssa_bitmap *bm, u64 row)
{
	return div_u64(row, bm->region);
}

static int ssa_bm_io(struct ssa_bitmap *bm, sector_t sector,
		     struct page **pages, u32 bytes, blk_opf_t opf)
{
	return ssa_pages_io(bm->bdev, sector, pages, bytes, opf);
}

static const char *ssa_bm_name(struct ssa_bitmap *bm)
{
	return dm_device_name(dm_table_get_md(bm->sc->ti->table));
}

/* What a row is, in log lines. */
static const char *ssa_bm_rows_name(struct ssa_bitmap *bm)
{
	return bm->sync_pos ? "groups" : "member chunks";
}

static int ssa_bm_write_sb(struct ssa_bitmap *bm, u32 flags);

/*
 * The device failed: go on without it.  Its superblock, if it can still
 * be written, says so, so that a later table resyncs every group rather
 * than trust bits that missed what was written from now on.  Called with
 * io_mutex held.
 */
static void ssa_bm_fail(struct ssa_bitmap *bm, const char *what, int r)
{
	if (bm->failed)
		return;
	DMERR("%s: bitmap %s: %s error %d: unprotected; a crash now needs a full resync",
	      ssa_bm_name(bm), bm->sc->meta_dev->name, what, r);
	WRITE_ONCE(bm->failed, true);
	ssa_bm_write_sb(bm, SSA_BM_UNTRUSTED);
}

/* ---- the superblock and the bits on the device ---------------------- */

static void ssa_bm_sb_fill(struct ssa_bitmap *bm, struct ssa_bm_sb *sb,
			   u32 flags)
{
	struct ssa_ctx *sc = bm->sc;

	memset(sb, 0, PAGE_SIZE);
	memcpy(sb->magic, SSA_BM_MAGIC, sizeof(sb->magic));
	sb->version = cpu_to_le32(SSA_BM_VERSION);
	sb->layout = cpu_to_le32(sc->layout->id);
	sb->members = cpu_to_le32(sc->nr_members);
	sb->chunk = cpu_to_le32(sc->geom.chunk);
	sb->rows = cpu_to_le64(bm->rows);
	sb->region = cpu_to_le32(bm->region);
	sb->flags = cpu_to_le32(flags);
	sb->events = cpu_to_le64(++bm->events);
	sb->sync_pos = cpu_to_le64(bm->sync_pos ? READ_ONCE(*bm->sync_pos) : 0);
	sb->csum = cpu_to_le32(crc32(0, sb, offsetof(struct ssa_bm_sb, csum)));
}

static int ssa_bm_write_sb(struct ssa_bitmap *bm, u32 flags)
{
	ssa_bm_sb_fill(bm, page_address(bm->sb_page), flags);
	return ssa_bm_io(bm, 0, &bm->sb_page, SSA_BM_BLOCK,
			 REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
}

/* Write @bits (all regions) to the device; 0 or the error. */
static int ssa_bm_write_bits(struct ssa_bitmap *bm, const unsigned long *bits)
{
	unsigned int i;
	u32 r;

	for (i = 0; i < bm->nr_pages; i++)
		memset(page_address(bm->pages[i]), 0, PAGE_SIZE);
	for_each_set_bit(r, bits, bm->regions) {
		u8 *p = page_address(bm->pages[r / (8 * PAGE_SIZE)]);

		p[(r / 8) % PAGE_SIZE] |= 1 << (r % 8);
	}
	return ssa_bm_io(bm, SSA_BM_SB_SECTORS, bm->pages, bm->io_bytes,
			 REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
}

static int ssa_bm_read_bits(struct ssa_bitmap *bm, unsigned long *bits)
{
	int r;
	u32 i;

	r = ssa_bm_io(bm, SSA_BM_SB_SECTORS, bm->pages, bm->io_bytes,
		      REQ_OP_READ | REQ_SYNC);
	if (r)
		return r;
	bitmap_zero(bits, bm->regions);
	for (i = 0; i < bm->regions; i++) {
		u8 *p = page_address(bm->pages[i / (8 * PAGE_SIZE)]);

		if (p[(i / 8) % PAGE_SIZE] & (1 << (i % 8)))
			set_bit(i, bits);
	}
	return 0;
}

/*
 * Whether the superblock in bm->sb_page is one of ours: 1 (and its
 * geometry matches the table's), 0 (not a bitmap: a new one), or -EINVAL
 * (another volume's).
 */
static int ssa_bm_sb_check(struct ssa_bitmap *bm, char **error)
{
	struct ssa_bm_sb *sb = page_address(bm->sb_page);
	struct ssa_ctx *sc = bm->sc;

	if (memcmp(sb->magic, SSA_BM_MAGIC, sizeof(sb->magic)))
		return 0;
	if (le32_to_cpu(sb->csum) !=
	    crc32(0, sb, offsetof(struct ssa_bm_sb, csum))) {
		*error = "Bitmap superblock checksum mismatch (wipe it to start afresh)";
		return -EINVAL;
	}
	if (le32_to_cpu(sb->version) != SSA_BM_VERSION) {
		*error = "Bitmap superblock of an unknown version";
		return -EINVAL;
	}
	if (le32_to_cpu(sb->layout) != sc->layout->id ||
	    le32_to_cpu(sb->members) != sc->nr_members ||
	    le32_to_cpu(sb->chunk) != sc->geom.chunk ||
	    le64_to_cpu(sb->rows) != bm->rows ||
	    le32_to_cpu(sb->region) != bm->region) {
		DMERR("bitmap %s: of layout %u, %u members, chunk %u, %llu %s, region %u",
		      sc->meta_dev->name, le32_to_cpu(sb->layout),
		      le32_to_cpu(sb->members), le32_to_cpu(sb->chunk),
		      le64_to_cpu(sb->rows), ssa_bm_rows_name(bm),
		      le32_to_cpu(sb->region));
		*error = "Bitmap device holds the bitmap of another geometry";
		return -EINVAL;
	}
	return 1;
}

/* ---- writes wait for their bits ------------------------------------ */

/* All of @w's regions are set on the device (or the bitmap failed). */
static bool ssa_bm_ready(struct ssa_bitmap *bm, struct ssa_bm_wait *w)
{
	u32 r;

	if (READ_ONCE(bm->failed))
		return true;
	for (r = w->lo; r < w->hi; r++)
		if (!test_bit(r, bm->disk))
			return false;
	return true;
}

/*
 * A write is about to change rows [first, last]: count it in their
 * regions.  True when it may go now; otherwise it waits for the bitmap
 * write, after which bm->go lets it go on.  A write gates once; it
 * releases its regions (ssa_bm_release()) when it ends.
 */
bool ssa_bm_gate(struct ssa_bitmap *bm, struct ssa_bm_wait *w, u64 first,
		 u64 last)
{
	unsigned long flags;
	bool ready;
	u32 r;

	if (w->lo < w->hi)
		return true;
	w->lo = ssa_bm_region_of(bm, min(first, bm->rows - 1));
	w->hi = ssa_bm_region_of(bm, min(last, bm->rows - 1)) + 1;
	spin_lock_irqsave(&bm->lock, flags);
	for (r = w->lo; r < w->hi; r++) {
		bm->inflight[r]++;
		set_bit(r, bm->touched);
		set_bit(r, bm->mem);
	}
	ready = ssa_bm_ready(bm, w);
	if (!ready)
		list_add_tail(&w->node, &bm->waiting);
	spin_unlock_irqrestore(&bm->lock, flags);
	if (!ready)
		queue_work(bm->wq, &bm->write_work);
	return ready;
}

/* The write has ended, or will not change its rows any more (any context). */
void ssa_bm_release(struct ssa_bitmap *bm, struct ssa_bm_wait *w)
{
	unsigned long flags;
	u32 r;

	if (!bm || w->lo >= w->hi)
		return;
	spin_lock_irqsave(&bm->lock, flags);
	for (r = w->lo; r < w->hi; r++)
		bm->inflight[r]--;
	spin_unlock_irqrestore(&bm->lock, flags);
	ssa_bm_wait_init(w);
}

/* Write the bits set in memory; then the device holds exactly those. */
static void ssa_bm_sync_bits(struct ssa_bitmap *bm)
{
	int r;

	lockdep_assert_held(&bm->io_mutex);
	if (READ_ONCE(bm->failed))
		return;
	spin_lock_irq(&bm->lock);
	bitmap_copy(bm->snap, bm->mem, bm->regions);
	spin_unlock_irq(&bm->lock);
	r = ssa_bm_write_bits(bm, bm->snap);
	if (r) {
		ssa_bm_fail(bm, "write", r);
		return;
	}
	spin_lock_irq(&bm->lock);
	bitmap_copy(bm->disk, bm->snap, bm->regions);
	spin_unlock_irq(&bm->lock);
}

/* Start the writes whose bits are on the device; more bits if need be. */
static void ssa_bm_start_ready(struct ssa_bitmap *bm)
{
	struct ssa_bm_wait *w, *tmp;
	LIST_HEAD(go);
	bool more;

	spin_lock_irq(&bm->lock);
	list_for_each_entry_safe(w, tmp, &bm->waiting, node)
		if (ssa_bm_ready(bm, w))
			list_move_tail(&w->node, &go);
	more = !list_empty(&bm->waiting);
	spin_unlock_irq(&bm->lock);

	list_for_each_entry_safe(w, tmp, &go, node) {
		list_del(&w->node);
		bm->go(bm->sc, w);
	}
	if (more)
		queue_work(bm->wq, &bm->write_work);
}

static void ssa_bm_write_work(struct work_struct *work)
{
	struct ssa_bitmap *bm = container_of(work, struct ssa_bitmap,
					     write_work);

	mutex_lock(&bm->io_mutex);
	ssa_bm_sync_bits(bm);
	mutex_unlock(&bm->io_mutex);
	ssa_bm_start_ready(bm);
}

/*
 * Clear the regions no write touched since the last pass and none holds
 * now.  Their bits leave @disk at once, so that a write arriving from now
 * on waits for the bitmap write (which sets its bit again) rather than
 * going on a bit about to be cleared.
 */
static void ssa_bm_daemon(struct work_struct *work)
{
	struct ssa_bitmap *bm = container_of(to_delayed_work(work),
					     struct ssa_bitmap, daemon);
	unsigned int cleared = 0;
	u32 r;

	mutex_lock(&bm->io_mutex);
	bitmap_zero(bm->cleared, bm->regions);
	spin_lock_irq(&bm->lock);
	for_each_set_bit(r, bm->mem, bm->regions) {
		if (bm->inflight[r] || test_bit(r, bm->touched) ||
		    test_bit(r, bm->resync))
			continue;
		clear_bit(r, bm->mem);
		clear_bit(r, bm->disk);
		set_bit(r, bm->cleared);
		cleared++;
	}
	bitmap_zero(bm->touched, bm->regions);
	spin_unlock_irq(&bm->lock);
	if (cleared && !READ_ONCE(bm->failed)) {
		/* what ended in those regions is on the media first */
		if (ssa_flush_members(bm->sc)) {
			/* not durable: the bits stay, as the device has them */
			spin_lock_irq(&bm->lock);
			bitmap_or(bm->mem, bm->mem, bm->cleared, bm->regions);
			bitmap_or(bm->disk, bm->disk, bm->cleared, bm->regions);
			spin_unlock_irq(&bm->lock);
		} else {
			ssa_bm_sync_bits(bm);
		}
	}
	mutex_unlock(&bm->io_mutex);
	ssa_bm_start_ready(bm);
	if (READ_ONCE(bm->active))
		queue_delayed_work(bm->wq, &bm->daemon,
				   msecs_to_jiffies(SSA_BM_DAEMON_MS));
}

/* ---- the resync ----------------------------------------------------- */

/* Regions waiting for a resync. */
bool ssa_bm_pending(struct ssa_bitmap *bm)
{
	return bm && find_first_bit(bm->resync, bm->regions) < bm->regions;
}

/* Whether @row lies in a region waiting for a resync. */
bool ssa_bm_row_pending(struct ssa_bitmap *bm, u64 row)
{
	return bm && test_bit(ssa_bm_region_of(bm, row), bm->resync);
}

/* Whether a row of [first, last] lies in a region waiting for a resync. */
bool ssa_bm_range_pending(struct ssa_bitmap *bm, u64 first, u64 last)
{
	u32 r, end;

	if (!bm)
		return false;
	end = ssa_bm_region_of(bm, min(last, bm->rows - 1)) + 1;
	r = find_next_bit(bm->resync, end, ssa_bm_region_of(bm, first));
	return r < end;
}

/* The first row at or after @row in a region waiting for a resync. */
u64 ssa_bm_next_pending(struct ssa_bitmap *bm, u64 row)
{
	u32 r;

	if (!bm)
		return U64_MAX;
	r = find_next_bit(bm->resync, bm->regions, ssa_bm_region_of(bm, row));
	if (r >= bm->regions)
		return U64_MAX;
	return max_t(u64, row, (u64)r * bm->region);
}

/* The row after the last of @row's region. */
u64 ssa_bm_region_end(struct ssa_bitmap *bm, u64 row)
{
	return min_t(u64, ((u64)ssa_bm_region_of(bm, row) + 1) * bm->region,
		     bm->rows);
}

/* The walk resynced @row: at a region's last, the region is done. */
void ssa_bm_synced(struct ssa_bitmap *bm, u64 row)
{
	if (bm && row + 1 == ssa_bm_region_end(bm, row))
		clear_bit(ssa_bm_region_of(bm, row), bm->resync);
}

/* ---- life cycle ----------------------------------------------------- */

static void ssa_bm_free_bits(struct ssa_bitmap *bm)
{
	bitmap_free(bm->mem);
	bitmap_free(bm->disk);
	bitmap_free(bm->snap);
	bitmap_free(bm->touched);
	bitmap_free(bm->cleared);
	bitmap_free(bm->resync);
	kvfree(bm->inflight);
}

void ssa_bm_free(struct ssa_bitmap *bm)
{
	unsigned int i;

	if (!bm)
		return;
	WRITE_ONCE(bm->active, false);
	cancel_delayed_work_sync(&bm->daemon);
	if (bm->wq)
		destroy_workqueue(bm->wq);
	for (i = 0; bm->pages && i < bm->nr_pages; i++)
		if (bm->pages[i])
			__free_page(bm->pages[i]);
	kfree(bm->pages);
	if (bm->sb_page)
		__free_page(bm->sb_page);
	ssa_bm_free_bits(bm);
	kfree(bm);
}

/*
 * Constructor: the bitmap of the table's "bitmap" device over the
 * layout's @rows, its geometry checked against a superblock already
 * there.  @sync_pos (parity layouts, else NULL) is the initial sync's
 * progress, kept in the superblock.  Its state is read at the first
 * resume (ssa_bm_prepare()): a table being replaced may still be writing
 * it now.  *@out is set first: ssa_bm_free() takes what a failure leaves.
 */
int ssa_bm_create(struct ssa_ctx *sc, u64 rows, u64 *sync_pos, ssa_bm_go_fn go,
		  struct ssa_bitmap **out)
{
	struct dm_target *ti = sc->ti;
	struct ssa_bitmap *bm;
	u64 regions;
	unsigned int i;
	int r;

	bm = kzalloc(sizeof(*bm), GFP_KERNEL);
	*out = bm;
	if (!bm)
		goto nomem;
	bm->sc = sc;
	bm->go = go;
	bm->sync_pos = sync_pos;
	bm->rows = rows;
	bm->bdev = sc->meta_dev->bdev;
	spin_lock_init(&bm->lock);
	INIT_LIST_HEAD(&bm->waiting);
	mutex_init(&bm->io_mutex);
	INIT_WORK(&bm->write_work, ssa_bm_write_work);
	INIT_DELAYED_WORK(&bm->daemon, ssa_bm_daemon);

	bm->region = sc->opt[SSA_OPT_BITMAP_REGION];
	if (!bm->region) {
		bm->region = SSA_BM_MIN_REGION;
		while (DIV_ROUND_UP_ULL(rows, bm->region) > SSA_BM_ONE_PAGE &&
		       bm->region < (1U << 30))
			bm->region <<= 1;
	}
	regions = DIV_ROUND_UP_ULL(rows, bm->region);
	if (regions > SSA_BM_MAX_REGIONS) {
		ti->error = "bitmap_region too small: more than 1048576 regions";
		return -EINVAL;
	}
	bm->regions = regions;
	if (bdev_nr_sectors(bm->bdev) < ssa_bm_sectors(bm->regions)) {
		DMERR("bitmap %s: %llu sectors, %llu needed for %u regions",
		      sc->meta_dev->name,
		      (unsigned long long)bdev_nr_sectors(bm->bdev),
		      (unsigned long long)ssa_bm_sectors(bm->regions),
		      bm->regions);
		ti->error = "Bitmap device too small";
		return -EINVAL;
	}

	bm->io_bytes = round_up(ssa_bm_bytes(bm->regions), SSA_BM_BLOCK);
	bm->nr_pages = DIV_ROUND_UP(bm->io_bytes, PAGE_SIZE);
	bm->pages = kcalloc(bm->nr_pages, sizeof(*bm->pages), GFP_KERNEL);
	if (!bm->pages)
		goto nomem;
	for (i = 0; i < bm->nr_pages; i++) {
		bm->pages[i] = alloc_page(GFP_KERNEL);
		if (!bm->pages[i])
			goto nomem;
	}
	bm->sb_page = alloc_page(GFP_KERNEL);
	bm->mem = bitmap_zalloc(bm->regions, GFP_KERNEL);
	bm->disk = bitmap_zalloc(bm->regions, GFP_KERNEL);
	bm->snap = bitmap_zalloc(bm->regions, GFP_KERNEL);
	bm->touched = bitmap_zalloc(bm->regions, GFP_KERNEL);
	bm->cleared = bitmap_zalloc(bm->regions, GFP_KERNEL);
	bm->resync = bitmap_zalloc(bm->regions, GFP_KERNEL);
	bm->inflight = kvcalloc(bm->regions, sizeof(*bm->inflight), GFP_KERNEL);
	if (!bm->sb_page || !bm->mem || !bm->disk || !bm->snap ||
	    !bm->touched || !bm->cleared || !bm->resync || !bm->inflight)
		goto nomem;
	bm->wq = alloc_ordered_workqueue("kssabitmap", WQ_MEM_RECLAIM);
	if (!bm->wq)
		goto nomem;

	r = ssa_bm_io(bm, 0, &bm->sb_page, SSA_BM_BLOCK, REQ_OP_READ | REQ_SYNC);
	if (r) {
		DMERR("bitmap %s: cannot read its superblock: error %d",
		      sc->meta_dev->name, r);
		ti->error = "Cannot read the bitmap device";
		return r;
	}
	r = ssa_bm_sb_check(bm, &ti->error);
	return r < 0 ? r : 0;
nomem:
	ti->error = "Cannot allocate the bitmap";
	return -ENOMEM;
}

/*
 * Before a resume.  The first: read the device (a bitmap of ours: its set
 * bits are to be resynced, and the initial sync goes on where it was,
 * unless the table gives initial_sync; otherwise a new bitmap), then mark
 * the superblock active.  A device that cannot be read or written is
 * given up, and the whole volume resynced; so is a bitmap given up before
 * (flag UNTRUSTED: its bits missed what was written after).
 */
static void ssa_bm_resync_all(struct ssa_bitmap *bm)
{
	if (bm->sync_pos)
		WRITE_ONCE(*bm->sync_pos, 0);	/* the initial sync's walk */
	else
		bitmap_fill(bm->resync, bm->regions);
}

static int ssa_bm_load(struct ssa_bitmap *bm)
{
	struct ssa_ctx *sc = bm->sc;
	struct ssa_bm_sb *sb = page_address(bm->sb_page);
	unsigned int nr;
	char *error;
	u32 flags;
	int r, ours;

	r = ssa_bm_io(bm, 0, &bm->sb_page, SSA_BM_BLOCK, REQ_OP_READ | REQ_SYNC);
	ours = r ? 0 : ssa_bm_sb_check(bm, &error);
	if (ours < 0) {
		DMERR("%s: bitmap %s: %s", ssa_bm_name(bm), sc->meta_dev->name,
		      error);
		return -EINVAL;
	}
	flags = ours ? le32_to_cpu(sb->flags) : 0;
	if (!r && ours) {
		bm->events = le64_to_cpu(sb->events);
		r = ssa_bm_read_bits(bm, bm->resync);
	}
	if (r) {
		ssa_bm_fail(bm, "read", r);
		ssa_bm_resync_all(bm);
	} else if (ours && (flags & SSA_BM_UNTRUSTED)) {
		DMWARN("%s: bitmap %s: given up earlier (an I/O error): resyncing every %s",
		       ssa_bm_name(bm), sc->meta_dev->name,
		       bm->sync_pos ? "group" : "region");
		bitmap_zero(bm->resync, bm->regions);
		ssa_bm_resync_all(bm);
		bitmap_copy(bm->mem, bm->resync, bm->regions);
		bitmap_copy(bm->disk, bm->resync, bm->regions);
	} else if (ours) {
		if (bm->sync_pos &&
		    !test_bit(SSA_OPT_INITIAL_SYNC, &sc->opts_given) &&
		    !sc->rebuild_mask)
			WRITE_ONCE(*bm->sync_pos, min(le64_to_cpu(sb->sync_pos),
						      bm->rows));
		bitmap_copy(bm->mem, bm->resync, bm->regions);
		bitmap_copy(bm->disk, bm->resync, bm->regions);
		nr = bitmap_weight(bm->resync, bm->regions);
		DMINFO("%s: bitmap %s: stopped %s, %u of %u regions to resync",
		       ssa_bm_name(bm), sc->meta_dev->name,
		       flags & SSA_BM_CLEAN ? "cleanly" : "without a suspend (a crash?)",
		       nr, bm->regions);
	} else {
		DMINFO("%s: bitmap %s: new, %u regions of %u %s",
		       ssa_bm_name(bm), sc->meta_dev->name, bm->regions,
		       bm->region, ssa_bm_rows_name(bm));
	}
	if (!bm->failed) {
		r = ssa_bm_write_bits(bm, bm->disk);
		if (r)
			ssa_bm_fail(bm, "write", r);
	}
	return 0;
}

int ssa_bm_prepare(struct ssa_bitmap *bm)
{
	int r = 0;

	if (!bm)
		return 0;
	mutex_lock(&bm->io_mutex);
	if (!bm->loaded && !bm->failed) {
		r = ssa_bm_load(bm);
		/* a refused device is read again at the next resume */
		bm->loaded = !r;
	}
	if (!r && !bm->failed) {
		r = ssa_bm_write_sb(bm, 0);
		if (r)
			ssa_bm_fail(bm, "write", r);
		r = 0;
	}
	mutex_unlock(&bm->io_mutex);
	return r;
}

/* Resumed: the daemon clears idle regions (stopped at postsuspend). */
void ssa_bm_start(struct ssa_bitmap *bm)
{
	if (!bm || !bm->loaded)
		return;
	WRITE_ONCE(bm->active, true);
	queue_delayed_work(bm->wq, &bm->daemon,
			   msecs_to_jiffies(SSA_BM_DAEMON_MS));
}

/*
 * Suspended, nothing in flight: the members are flushed, and the device
 * keeps only the regions still waiting for a resync, under a clean
 * superblock.
 */
void ssa_bm_quiesced(struct ssa_bitmap *bm)
{
	int r;

	if (!bm || !bm->loaded)
		return;
	WRITE_ONCE(bm->active, false);
	cancel_delayed_work_sync(&bm->daemon);
	flush_workqueue(bm->wq);
	mutex_lock(&bm->io_mutex);
	if (!bm->failed && !ssa_flush_members(bm->sc)) {
		spin_lock_irq(&bm->lock);
		bitmap_copy(bm->mem, bm->resync, bm->regions);
		bitmap_zero(bm->touched, bm->regions);
		spin_unlock_irq(&bm->lock);
		ssa_bm_sync_bits(bm);
		if (!bm->failed) {
			r = ssa_bm_write_sb(bm, SSA_BM_CLEAN);
			if (r)
				ssa_bm_fail(bm, "write", r);
		}
	}
	mutex_unlock(&bm->io_mutex);
}

/* Status: " bitmap <regions set on the device>/<regions>" or " bitmap failed". */
unsigned int ssa_bm_status(struct ssa_bitmap *bm, char *result,
			   unsigned int maxlen, unsigned int sz)
{
	unsigned int set;

	if (!bm)
		return sz;
	if (READ_ONCE(bm->failed)) {
		DMEMIT(" bitmap failed");
		return sz;
	}
	spin_lock_irq(&bm->lock);
	set = bitmap_weight(bm->disk, bm->regions);
	spin_unlock_irq(&bm->lock);
	DMEMIT(" bitmap %u/%u", set, bm->regions);
	return sz;
}
