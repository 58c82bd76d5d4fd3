// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the claims of live volumes on their metadata devices
 * (table option "bitmap" or "ppl").
 *
 * A bitmap or a partial parity log keeps its superblock at the start of
 * its device and writes the rest as its own.  DM lets any number of
 * tables open one device, so two volumes given the same one would both
 * load and overwrite each other's superblock and bits.  Each table that
 * opens a metadata device therefore claims the sectors of it, in one list
 * the module keeps, until the table is destroyed; a table whose sectors
 * overlap a claim is refused, naming the volume that holds them.
 *
 * A table of the same mapped device may claim again: DM constructs the
 * table a "dmsetup reload" loads while the live one still runs (and an
 * inactive table that a second reload replaces lives until the new one is
 * constructed), and the table a resume swaps in reads the device only
 * after the old one has been suspended, which leaves it clean.  Two
 * targets of one table may not share the sectors.
 *
 * The sectors are those of the device the table names, as its whole
 * disk's: a partition and its disk, or two overlapping partitions, are
 * the same sectors.  A stacked device (a linear target over the same
 * disk) is not seen through.  The claims are only those of this boot's
 * live volumes: nothing on the device records them.
 */
#include <linux/blkdev.h>
#include <linux/dm-ioctl.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"

struct ssa_claim {
	struct list_head node;
	struct gendisk *disk;		/* the sectors' whole disk */
	sector_t start, end;		/* [start, end) on it */
	struct mapped_device *md;	/* the volume */
	struct dm_table *table;		/* and its table */
	char name[DM_NAME_LEN];		/* the volume's name, for messages */
};

static LIST_HEAD(ssa_claims);
static DEFINE_MUTEX(ssa_claims_lock);

/*
 * Claim the sectors of the table's metadata device (@what: "bitmap" or
 * "ppl") for its volume; -EBUSY, with ti->error set, if another volume's
 * table, or another target of this one, holds any of them.
 */
int ssa_claim_meta(struct ssa_ctx *sc, const char *what)
{
	struct dm_target *ti = sc->ti;
	struct block_device *bdev = sc->meta_dev->bdev;
	struct mapped_device *md = dm_table_get_md(ti->table);
	struct ssa_claim *claim, *c;
	int r = 0;

	claim = kzalloc(sizeof(*claim), GFP_KERNEL);
	if (!claim) {
		ti->error = "Cannot allocate the metadata device's claim";
		return -ENOMEM;
	}
	claim->disk = bdev->bd_disk;
	claim->start = get_start_sect(bdev);
	claim->end = claim->start + bdev_nr_sectors(bdev);
	claim->md = md;
	claim->table = ti->table;
	if (dm_copy_name_and_uuid(md, claim->name, NULL))
		strscpy(claim->name, dm_device_name(md), sizeof(claim->name));

	mutex_lock(&ssa_claims_lock);
	list_for_each_entry(c, &ssa_claims, node) {
		if (c->disk != claim->disk || c->end <= claim->start ||
		    claim->end <= c->start)
			continue;
		if (c->md == md && c->table != ti->table)
			continue;	/* the same volume, reloaded */
		DMERR("%s %s: in use by volume %s (%s)%s", what,
		      sc->meta_dev->name, c->name, dm_device_name(c->md),
		      c->md == md ? ", another target of this table" : "");
		if (c->md == md)
			ti->error = "Two targets of the table name one bitmap or ppl device";
		else if (strcmp(what, "ppl"))
			ti->error = "Bitmap device is in use by another live volume";
		else
			ti->error = "ppl device is in use by another live volume";
		r = -EBUSY;
		break;
	}
	if (!r) {
		list_add_tail(&claim->node, &ssa_claims);
		sc->meta_claim = claim;
	}
	mutex_unlock(&ssa_claims_lock);
	if (r)
		kfree(claim);
	return r;
}

/* The table is being destroyed: its metadata device is free again. */
void ssa_release_meta(struct ssa_ctx *sc)
{
	struct ssa_claim *claim = sc->meta_claim;

	if (!claim)
		return;
	mutex_lock(&ssa_claims_lock);
	list_del(&claim->node);
	mutex_unlock(&ssa_claims_lock);
	kfree(claim);
	sc->meta_claim = NULL;
}
