/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: the write-intent bitmap (table option "bitmap <dev>"),
 * shared by the layouts that keep redundancy (ssa-bitmap.c says how it
 * works), and the metadata helpers it shares with the partial parity log.
 *
 * A layout cuts its volume into rows (parity groups; a mirror's member
 * chunks) and names, for each write, the rows it may change.  The bitmap
 * counts them by region (bitmap_region rows); a write waits until the
 * bits of its regions are on the device, and after a crash the layout
 * resyncs the regions whose bits were set.  (The parity planner's host
 * unit test sees only struct ssa_bm_wait.)
 */
#ifndef SSA_BITMAP_H
#define SSA_BITMAP_H

#ifdef __KERNEL__
#include <linux/blk_types.h>
#include <linux/list.h>
#include <linux/types.h>
#endif

struct block_device;
struct page;
struct ssa_bitmap;
struct ssa_ctx;

/* A write's claim on its regions. */
struct ssa_bm_wait {
	struct list_head node;	/* on the bitmap's list while it waits */
	u32 lo, hi;		/* regions [lo, hi); counted while lo < hi */
};

#ifdef __KERNEL__
/*
 * Called (process context) for a write that waited, once its bits are on
 * the device (or the bitmap has been given up): it goes on.
 */
typedef void (*ssa_bm_go_fn)(struct ssa_ctx *sc, struct ssa_bm_wait *w);

int ssa_bm_create(struct ssa_ctx *sc, u64 rows, u64 *sync_pos, ssa_bm_go_fn go,
		  struct ssa_bitmap **out);
void ssa_bm_free(struct ssa_bitmap *bm);
int ssa_bm_prepare(struct ssa_bitmap *bm);
void ssa_bm_start(struct ssa_bitmap *bm);
void ssa_bm_quiesced(struct ssa_bitmap *bm);

static inline void ssa_bm_wait_init(struct ssa_bm_wait *w)
{
	w->lo = 0;
	w->hi = 0;
}

bool ssa_bm_gate(struct ssa_bitmap *bm, struct ssa_bm_wait *w, u64 first,
		 u64 last);
void ssa_bm_release(struct ssa_bitmap *bm, struct ssa_bm_wait *w);

bool ssa_bm_pending(struct ssa_bitmap *bm);
bool ssa_bm_row_pending(struct ssa_bitmap *bm, u64 row);
bool ssa_bm_range_pending(struct ssa_bitmap *bm, u64 first, u64 last);
u64 ssa_bm_next_pending(struct ssa_bitmap *bm, u64 row);
u64 ssa_bm_region_end(struct ssa_bitmap *bm, u64 row);
void ssa_bm_synced(struct ssa_bitmap *bm, u64 row);
unsigned int ssa_bm_status(struct ssa_bitmap *bm, char *result,
			   unsigned int maxlen, unsigned int sz);

#endif /* __KERNEL__ */
#endif /* SSA_BITMAP_H */
