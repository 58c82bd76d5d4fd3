// SPDX-License-Identifier: GPL-2.0-only
/*
 * ssacache: a volatile write-back cache in front of one device, the array
 * cache of seed 001 (Varki et al.) for the lab: read hits, sequential
 * prefetch, writes absorbed up to a size and destaged between water marks,
 * writes waiting while the dirty blocks are at their maximum, and an
 * optional transfer rate that makes the cache a queueing server of its
 * own, as the seed's model has it.
 *
 * Table:
 *   <origin> <block_sectors> <cache_blocks> [<#args> [<name> <value>]...]
 *
 * The cache holds cache_blocks blocks of block_sectors each, in vmalloc'd
 * memory.  A block is absent, or present and then FILL (being read from
 * the origin), CLEAN, DIRTY or DESTAGE (being written to the origin).  A
 * present block's data is always whole: reads fill whole blocks, and a
 * write that covers only part of an absent block is not absorbed but
 * written through.
 *
 * All the cache's decisions are taken by one work item: map() queues the
 * bio, and every completion from the origin queues what it finished, so
 * the blocks, lists and counters need no lock of their own.  A bio that
 * cannot go on yet (its blocks are busy, or it would need more dirty
 * blocks than allowed) waits on a list that the work item tries again in
 * arrival order after every change.
 *
 * Ordering rules that keep the data right:
 *  - nothing writes a block while it is FILL or DESTAGE: a write to it
 *    waits;
 *  - a write sent through to the origin ("passing") keeps a range: no fill
 *    reads it, no destage writes it and no bypassing read reads it until
 *    that write has completed; a DIRTY block it overlaps gets its data too,
 *    a CLEAN one is dropped;
 *  - a read that bypasses the cache first has the dirty blocks it overlaps
 *    destaged;
 *  - a flush completes when every block that was dirty when it arrived has
 *    been destaged and the origin has been flushed (dirty blocks carry the
 *    sequence number of the write that made them dirty);
 *  - suspending destages everything, so a table reload or removal loses
 *    nothing; only the test message "crash" drops dirty data.
 *
 * See Documentation/ssacache.rst.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ssa-args.h"
#include "ssa-cache.h"
#include "ssa-cache-priv.h"
#include "ssa-compat.h"

#define DM_MSG_PREFIX "ssacache"

/* -- the target --------------------------------------------------------- */

static int ssac_map(struct dm_target *ti, struct bio *bio)
{
	struct ssa_cache *sc = ti->private;
	struct ssac_io *io = ssac_io(bio);
	unsigned long flags;

	memset(io, 0, sizeof(*io));
	INIT_LIST_HEAD(&io->passing);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	spin_lock_irqsave(&sc->lock, flags);
	bio_list_add(&sc->incoming, bio);
	spin_unlock_irqrestore(&sc->lock, flags);
	ssac_kick(sc);
	return DM_MAPIO_SUBMITTED;
}

static void ssac_postsuspend(struct dm_target *ti)
{
	struct ssa_cache *sc = ti->private;
	unsigned long flags;
	int r;

	WRITE_ONCE(sc->drained, false);
	WRITE_ONCE(sc->draining, true);
	spin_lock_irqsave(&sc->lock, flags);
	sc->kick = true;
	spin_unlock_irqrestore(&sc->lock, flags);
	ssac_kick(sc);
	wait_event(sc->drain_wait, READ_ONCE(sc->drained));
	flush_workqueue(sc->wq);
	if (sc->nr_dirty)
		DMERR("%u dirty blocks could not be destaged to the origin and are lost",
		      sc->nr_dirty);
	r = blkdev_issue_flush(sc->origin->bdev);
	if (r)
		DMERR("flushing the origin at suspend failed: %d", r);
}

static void ssac_resume(struct dm_target *ti)
{
	struct ssa_cache *sc = ti->private;

	WRITE_ONCE(sc->draining, false);
}

static const struct dm_arg ssac_opt_count = {
	0, 16, "Invalid number of optional arguments"
};

/* The optional arguments: "<name> <value>" pairs. */
static int ssac_parse_opts(struct ssa_cache *sc, struct dm_arg_set *as,
			   unsigned int *seenp, char **error)
{
	static const struct {
		const char *name;
		size_t field;
	} opts[] = {
		{ "low_water", offsetof(struct ssa_cache, low_water) },
		{ "high_water", offsetof(struct ssa_cache, high_water) },
		{ "max_dirty", offsetof(struct ssa_cache, max_dirty) },
		{ "destage_depth", offsetof(struct ssa_cache, destage_depth) },
		{ "cache_max", offsetof(struct ssa_cache, cache_max) },
		{ "prefetch", offsetof(struct ssa_cache, prefetch) },
		{ "transfer_mbps", offsetof(struct ssa_cache, transfer_mbps) },
		{ "destage_run", offsetof(struct ssa_cache, destage_run) },
	};
	static const struct dm_arg any = {
		0, UINT_MAX, "Invalid optional argument value: expected a decimal number"
	};
	unsigned int count, i, *field, seen = 0;
	const char *name;
	int r;

	if (!as->argc)
		return 0;
	r = ssa_read_group(&ssac_opt_count, as, &count,
			   "Too many optional arguments: the count does not fit in 32 bits",
			   error);
	if (r)
		return r;
	if (count % 2) {
		*error = "Optional argument without a value: they come in <name> <value> pairs";
		return -EINVAL;
	}
	for (; count; count -= 2) {
		name = dm_shift_arg(as);
		for (i = 0; i < ARRAY_SIZE(opts); i++)
			if (!strcasecmp(name, opts[i].name))
				break;
		if (i == ARRAY_SIZE(opts)) {
			*error = "Unknown optional argument (see Documentation/ssacache.rst)";
			return -EINVAL;
		}
		if (seen & BIT(i)) {
			*error = "Duplicate optional argument";
			return -EINVAL;
		}
		seen |= BIT(i);
		*seenp = seen;
		field = (void *)sc + opts[i].field;
		r = ssa_read_uint(&any, as, field,
				  "Optional argument value too large: it does not fit in 32 bits",
				  error);
		if (r)
			return r;
	}
	if (as->argc) {
		*error = "Too many arguments after the options";
		return -EINVAL;
	}
	return 0;
}

/*
 * What the table leaves out (@seen: the options given, in ssac_parse_opts()
 * order): max_dirty the whole cache, both water marks 3/4 of it (the
 * seed's single destage threshold), 8 destage writes of as many
 * consecutive dirty blocks as a bio holds, requests up to max_dirty - 1
 * blocks cached, no prefetch, no transfer time.
 */
static void ssac_defaults(struct ssa_cache *sc, unsigned int seen)
{
	if (!(seen & BIT(2)))
		sc->max_dirty = sc->cache_blocks;
	if (!(seen & BIT(1)))
		sc->high_water = (seen & BIT(0)) ?
			max(sc->low_water, sc->max_dirty * 3 / 4) :
			sc->max_dirty * 3 / 4;
	if (!(seen & BIT(0)))
		sc->low_water = sc->high_water;
	if (!(seen & BIT(3)))
		sc->destage_depth = 8;
	if (!(seen & BIT(4)) && sc->max_dirty)
		sc->cache_max = min_t(u64, (u64)(sc->max_dirty - 1) * sc->block_sectors,
				      UINT_MAX & ~(sc->block_sectors - 1));
	if (!(seen & BIT(7)))
		sc->destage_run = ssac_run_limit(sc);
}

static int ssac_check(struct ssa_cache *sc, char **error)
{
	if (sc->max_dirty < 1 || sc->max_dirty > sc->cache_blocks) {
		*error = "max_dirty must be between 1 and cache_blocks";
		return -EINVAL;
	}
	if (sc->low_water > sc->high_water || sc->high_water >= sc->max_dirty) {
		*error = "Water marks must satisfy low_water <= high_water < max_dirty";
		return -EINVAL;
	}
	if (!sc->destage_depth || sc->destage_depth > 256) {
		*error = "destage_depth must be between 1 and 256";
		return -EINVAL;
	}
	if (sc->cache_max % sc->block_sectors ||
	    (u64)sc->cache_max / sc->block_sectors + 1 > sc->max_dirty) {
		*error = "cache_max must be whole blocks, at most max_dirty - 1 of them";
		return -EINVAL;
	}
	if (!sc->destage_run || sc->destage_run > ssac_run_limit(sc)) {
		*error = "destage_run must be between 1 and the blocks a bio holds (1 MiB)";
		return -EINVAL;
	}
	if (sc->prefetch > sc->cache_blocks / 2) {
		*error = "prefetch must be at most half the cache's blocks";
		return -EINVAL;
	}
	return 0;
}

static int ssac_alloc_blocks(struct ssa_cache *sc)
{
	unsigned int i;

	sc->mem = __vmalloc((size_t)sc->cache_blocks * ssac_block_bytes(sc),
			    GFP_KERNEL | __GFP_NOWARN);
	if (!sc->mem)
		return -ENOMEM;
	sc->blocks = kvcalloc(sc->cache_blocks, sizeof(*sc->blocks), GFP_KERNEL);
	if (!sc->blocks)
		return -ENOMEM;
	sc->hash_bits = ilog2(roundup_pow_of_two(sc->cache_blocks));
	sc->hash = kvcalloc(1U << sc->hash_bits, sizeof(*sc->hash), GFP_KERNEL);
	if (!sc->hash)
		return -ENOMEM;
	for (i = 0; i < (1U << sc->hash_bits); i++)
		INIT_HLIST_HEAD(&sc->hash[i]);
	for (i = 0; i < sc->cache_blocks; i++) {
		INIT_LIST_HEAD(&sc->blocks[i].done);
		list_add_tail(&sc->blocks[i].list, &sc->free);
	}
	sc->nr_free = sc->cache_blocks;
	return 0;
}

static void ssac_free(struct ssa_cache *sc)
{
	if (sc->wq)
		destroy_workqueue(sc->wq);
	bioset_exit(&sc->bs);
	kvfree(sc->hash);
	kvfree(sc->blocks);
	vfree(sc->mem);
	if (sc->origin)
		dm_put_device(sc->ti, sc->origin);
	kfree(sc);
}

static int ssac_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	static const struct dm_arg block_arg = {
		8, SSAC_MAX_BLOCK,
		"Invalid block size: expected a power of two from 8 to 2048 sectors"
	};
	static const struct dm_arg blocks_arg = {
		4, 1U << 24, "Invalid cache size: expected 4 to 16777216 blocks"
	};
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	unsigned int seen = 0;
	struct ssa_cache *sc;
	const char *path;
	int r;

	if (argc < 3) {
		ti->error = "Not enough arguments: <origin> <block_sectors> <cache_blocks>";
		return -EINVAL;
	}
	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc) {
		ti->error = "Cannot allocate ssacache context";
		return -ENOMEM;
	}
	sc->ti = ti;
	spin_lock_init(&sc->lock);
	INIT_LIST_HEAD(&sc->free);
	INIT_LIST_HEAD(&sc->lru);
	INIT_LIST_HEAD(&sc->dirty);
	INIT_LIST_HEAD(&sc->destaging);
	INIT_LIST_HEAD(&sc->passing);
	INIT_LIST_HEAD(&sc->runs);
	bio_list_init(&sc->incoming);
	bio_list_init(&sc->passed);
	bio_list_init(&sc->waiting);
	bio_list_init(&sc->flushes);
	bio_list_init(&sc->flushing);
	INIT_WORK(&sc->work, ssac_work);
	init_waitqueue_head(&sc->drain_wait);

	path = dm_shift_arg(&as);
	r = ssa_read_uint(&block_arg, &as, &sc->block_sectors,
			  "Block size too large: it does not fit in 32 bits",
			  &ti->error);
	if (r)
		goto bad;
	if (!is_power_of_2(sc->block_sectors)) {
		ti->error = block_arg.error;
		r = -EINVAL;
		goto bad;
	}
	if (((size_t)sc->block_sectors << SECTOR_SHIFT) < PAGE_SIZE) {
		ti->error = "Invalid block size: smaller than a page";
		r = -EINVAL;
		goto bad;
	}
	sc->block_shift = ilog2(sc->block_sectors);
	r = ssa_read_uint(&blocks_arg, &as, &sc->cache_blocks,
			  "Cache size too large: it does not fit in 32 bits",
			  &ti->error);
	if (r)
		goto bad;

	r = ssac_parse_opts(sc, &as, &seen, &ti->error);
	if (r)
		goto bad;
	ssac_defaults(sc, seen);
	r = ssac_check(sc, &ti->error);
	if (r)
		goto bad;
	if (ti->len & (sc->block_sectors - 1)) {
		ti->error = "Target length must be a multiple of the block size";
		r = -EINVAL;
		goto bad;
	}
	r = dm_get_device(ti, path, dm_table_get_mode(ti->table), &sc->origin);
	if (r) {
		ti->error = "Origin device lookup failed";
		goto bad;
	}
	if (ti->len > bdev_nr_sectors(sc->origin->bdev)) {
		ti->error = "Origin device is smaller than the target";
		r = -EINVAL;
		goto bad;
	}
	r = ssac_alloc_blocks(sc);
	if (r) {
		ti->error = "Cannot allocate the cache's memory";
		goto bad;
	}
	r = bioset_init(&sc->bs, SSAC_POOL, offsetof(struct ssac_job, bio),
			BIOSET_NEED_BVECS);
	if (r) {
		ti->error = "Cannot allocate bio set";
		goto bad;
	}
	sc->wq = alloc_ordered_workqueue("kssacache", WQ_MEM_RECLAIM);
	if (!sc->wq) {
		ti->error = "Cannot allocate workqueue";
		r = -ENOMEM;
		goto bad;
	}
	ti->private = sc;
	ti->per_io_data_size = sizeof(struct ssac_io);
	ti->num_flush_bios = 1;
	/* a volatile cache: flush and FUA must reach it, whatever the origin */
	ti->flush_supported = true;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	return 0;
bad:
	ssac_free(sc);
	return r;
}

static void ssac_dtr(struct dm_target *ti)
{
	ssac_free(ti->private);
}

static void ssac_status(struct dm_target *ti, status_type_t type,
			unsigned int status_flags, char *result,
			unsigned int maxlen)
{
	struct ssa_cache *sc = ti->private;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_INFO:
		DMEMIT("%u %u %u %u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %s",
		       READ_ONCE(sc->nr_dirty), READ_ONCE(sc->nr_clean),
		       READ_ONCE(sc->nr_free), READ_ONCE(sc->nr_destage_runs),
		       READ_ONCE(sc->st.read_hits), READ_ONCE(sc->st.read_misses),
		       READ_ONCE(sc->st.write_hits), READ_ONCE(sc->st.write_through),
		       READ_ONCE(sc->st.destaged), READ_ONCE(sc->st.prefetched),
		       READ_ONCE(sc->st.prefetch_hits), READ_ONCE(sc->st.throttled),
		       READ_ONCE(sc->st.lost),
		       READ_ONCE(sc->st.destage_errors) + READ_ONCE(sc->st.fill_errors),
		       READ_ONCE(sc->failed) ? "E" : "A");
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %u %u 16 low_water %u high_water %u max_dirty %u",
		       sc->origin->name, sc->block_sectors, sc->cache_blocks,
		       sc->low_water, sc->high_water, sc->max_dirty);
		DMEMIT(" destage_depth %u destage_run %u cache_max %u",
		       sc->destage_depth, sc->destage_run, sc->cache_max);
		DMEMIT(" prefetch %u transfer_mbps %u", sc->prefetch,
		       sc->transfer_mbps);
		break;
	case STATUSTYPE_IMA:
		DMEMIT("target_name=%s,target_version=%u.%u.%u,origin=%s",
		       ti->type->name, ti->type->version[0],
		       ti->type->version[1], ti->type->version[2],
		       sc->origin->name);
		DMEMIT(",block_sectors=%u,cache_blocks=%u,low_water=%u,high_water=%u",
		       sc->block_sectors, sc->cache_blocks, sc->low_water,
		       sc->high_water);
		DMEMIT(",max_dirty=%u,destage_depth=%u,destage_run=%u,cache_max=%u",
		       sc->max_dirty, sc->destage_depth, sc->destage_run,
		       sc->cache_max);
		DMEMIT(",prefetch=%u,transfer_mbps=%u;", sc->prefetch,
		       sc->transfer_mbps);
		break;
	}
}

/* Hand @flag (sc->crash or sc->reset) to the work item and wait for it. */
static void ssac_order(struct ssa_cache *sc, bool *flag)
{
	spin_lock_irq(&sc->lock);
	*flag = true;
	spin_unlock_irq(&sc->lock);
	ssac_kick(sc);
	flush_workqueue(sc->wq);
}

static int ssac_message(struct dm_target *ti, unsigned int argc, char **argv,
			char *result, unsigned int maxlen)
{
	struct ssa_cache *sc = ti->private;

	if (argc == 1 && !strcasecmp(argv[0], "crash")) {
		ssac_order(sc, &sc->crash);
		return 0;
	}
	if (argc == 1 && !strcasecmp(argv[0], "reset_stats")) {
		ssac_order(sc, &sc->reset);
		return 0;
	}
	DMWARN("unrecognised message: expected crash or reset_stats");
	return -EINVAL;
}

static int ssac_iterate_devices(struct dm_target *ti,
				iterate_devices_callout_fn fn, void *data)
{
	struct ssa_cache *sc = ti->private;

	return fn(ti, sc->origin, 0, ti->len, data);
}

static void ssac_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct ssa_cache *sc = ti->private;

	/* a write of whole blocks is absorbed; a part of an absent one is not */
	limits->io_min = max_t(unsigned int, limits->io_min,
			       ssac_block_bytes(sc));
}

static struct target_type ssac_target = {
	.name = "ssacache",
	.version = { 1, 0, 0 },
	.module = THIS_MODULE,
	.ctr = ssac_ctr,
	.dtr = ssac_dtr,
	.map = ssac_map,
	.status = ssac_status,
	.message = ssac_message,
	.postsuspend = ssac_postsuspend,
	.resume = ssac_resume,
	.iterate_devices = ssac_iterate_devices,
	.io_hints = ssac_io_hints,
};

int ssacache_register(void)
{
	return dm_register_target(&ssac_target);
}

void ssacache_unregister(void)
{
	dm_unregister_target(&ssac_target);
}
