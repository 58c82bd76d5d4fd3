// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: target registration, the constructor, status, messages and
 * limits; the optional arguments are in ssa-opts.c.
 *
 * Table:
 *   <layout> <chunk_sectors> <#members> <dev> <offset> [<dev> <offset>]...
 *   [<#opt_args> <opt_args>...]
 *
 * <layout> is "stripe" (ssa-stripe.c), "mirror" (sets of "copies" members,
 * ssa-mirror.c), "raid5" or "pstripe" (parity, ssa-parity.c).  This file
 * reaches a layout only through its struct ssa_layout_ops.
 *
 * See Documentation/ssastripe.rst for the full syntax and the status format.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/blkdev.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"
#include "ssa-args.h"
#include "ssa-compat.h"
#include "ssa-cache.h"
#include "ssa-disk.h"

/* The personalities, by layout id (ssa-layout.h). */
static const struct ssa_layout_ops *const ssa_personalities[] = {
	[SSA_LAYOUT_STRIPE] = &ssa_stripe_ops,
	[SSA_LAYOUT_MIRROR] = &ssa_mirror_ops,
	[SSA_LAYOUT_RAID5] = &ssa_raid5_ops,
	[SSA_LAYOUT_PSTRIPE] = &ssa_pstripe_ops,
	[SSA_LAYOUT_SRARRAY] = &ssa_srarray_ops,
};

static void ssa_event_work(struct work_struct *work)
{
	struct ssa_ctx *sc = container_of(work, struct ssa_ctx, event_work);

	dm_table_event(sc->ti->table);
}

static void ssa_free(struct ssa_ctx *sc)
{
	unsigned int m;

	/* the layouts' work items run on sc->wq: gone before their state */
	if (sc->wq)
		destroy_workqueue(sc->wq);
	if (sc->ops->free)
		sc->ops->free(sc);
	ssa_sched_free(sc);

	for (m = 0; m < sc->nr_members; m++) {
		struct ssa_member *mb = &sc->members[m];

		if (mb->dev)
			dm_put_device(sc->ti, mb->dev);
		free_percpu(mb->stats);
	}
	ssa_release_meta(sc);
	if (sc->meta_dev)
		dm_put_device(sc->ti, sc->meta_dev);
	free_percpu(sc->stats);
	free_percpu(sc->req_seq);
	ssa_trace_cache_free(sc);
	if (bioset_initialized(&sc->bs))
		bioset_exit(&sc->bs);
	kfree(sc);
}

/* The "bitmap" or "ppl" option's device: not a member, nor one of theirs. */
static int ssa_get_meta(struct ssa_ctx *sc)
{
	bool ppl = test_bit(SSA_OPT_PPL, &sc->opts_given);
	const char *what = ppl ? "ppl" : "bitmap";
	struct dm_target *ti = sc->ti;
	unsigned int m;
	int r;

	r = dm_get_device(ti, sc->meta_path, dm_table_get_mode(ti->table),
			  &sc->meta_dev);
	if (r) {
		DMERR("%s: cannot open '%s' (error %d)", what, sc->meta_path, r);
		ti->error = ppl ? "ppl device lookup failed" :
				  "Bitmap device lookup failed";
		return r;
	}
	sc->meta_path = NULL;	/* the table's string: gone after ctr */
	for (m = 0; m < sc->nr_members; m++) {
		if (sc->members[m].dev->bdev == sc->meta_dev->bdev) {
			DMERR("%s: %s is member %u", what, sc->meta_dev->name, m);
			ti->error = ppl ? "ppl device is also a member" :
					  "Bitmap device is also a member";
			return -EINVAL;
		}
	}
	/* and not another live volume's */
	return ssa_claim_meta(sc, what);
}

static int ssa_get_member(struct ssa_ctx *sc, unsigned int m,
			  const char *path, const char *offset_arg)
{
	struct dm_target *ti = sc->ti;
	struct ssa_member *mb = &sc->members[m];
	unsigned long long offset;
	unsigned int lbs;
	sector_t size;
	int r;

	r = ssa_parse_u64(offset_arg, &offset);
	if (r == -ERANGE || (!r && offset != (sector_t)offset)) {
		DMERR("member %u: offset '%s' does not fit in a sector number",
		      m, offset_arg);
		ti->error = "Member offset too large: it does not fit in 64 bits";
		return -EINVAL;
	}
	if (r) {
		DMERR("member %u: offset '%s' is not a number of sectors",
		      m, offset_arg);
		ti->error = "Invalid member offset";
		return -EINVAL;
	}

	r = dm_get_device(ti, path, dm_table_get_mode(ti->table), &mb->dev);
	if (r) {
		DMERR("member %u: cannot open '%s' (error %d)", m, path, r);
		ti->error = "Member device lookup failed";
		return r;
	}
	mb->offset = offset;

	size = bdev_nr_sectors(mb->dev->bdev);
	lbs = bdev_logical_block_size(mb->dev->bdev) >> SECTOR_SHIFT;
	if (offset >= size) {
		DMERR("member %u (%s): offset %llu is past the end (%llu sectors)",
		      m, path, offset, (unsigned long long)size);
		ti->error = "Member offset is past the end of the device";
		return -EINVAL;
	}
	if (size - offset < sc->member_len) {
		DMERR("member %u (%s): needs %llu sectors from offset %llu, has %llu",
		      m, path, (unsigned long long)sc->member_len, offset,
		      (unsigned long long)(size - offset));
		ti->error = "Member device too small";
		return -EINVAL;
	}
	if (offset % lbs) {
		DMERR("member %u (%s): offset %llu not a multiple of its %u-byte block",
		      m, path, offset, lbs << SECTOR_SHIFT);
		ti->error = "Member offset not aligned to the device's logical block size";
		return -EINVAL;
	}
	if (sc->geom.chunk % lbs) {
		DMERR("member %u (%s): chunk %u not a multiple of its %u-byte block",
		      m, path, sc->geom.chunk, lbs << SECTOR_SHIFT);
		ti->error = "Chunk size not a multiple of a member's logical block size";
		return -EINVAL;
	}
	return 0;
}

/* Two members on one device must not share sectors. */
static int ssa_check_overlap(struct ssa_ctx *sc)
{
	unsigned int i, j;

	for (i = 0; i < sc->nr_members; i++) {
		struct ssa_member *a = &sc->members[i];

		for (j = i + 1; j < sc->nr_members; j++) {
			struct ssa_member *b = &sc->members[j];

			if (a->dev->bdev != b->dev->bdev)
				continue;
			if (a->offset + sc->member_len <= b->offset ||
			    b->offset + sc->member_len <= a->offset)
				continue;
			DMERR("members %u and %u overlap on %s", i, j,
			      a->dev->name);
			sc->ti->error = "Member areas overlap on one device";
			return -EINVAL;
		}
	}
	return 0;
}

static int ssa_alloc_stats(struct ssa_ctx *sc)
{
	unsigned int m;
	int cpu;

	sc->stats = alloc_percpu(struct ssa_volume_stats);
	sc->req_seq = alloc_percpu(u64);
	sc->trace_cache = alloc_percpu(struct ssa_trace_cache);
	if (!sc->stats || !sc->req_seq || !sc->trace_cache)
		return -ENOMEM;
	/* each CPU's request ids start at its number (ssa_next_id()) */
	for_each_possible_cpu(cpu) {
		u64 *seq = per_cpu_ptr(sc->req_seq, cpu);

		*seq = cpu;
	}
	for (m = 0; m < sc->nr_members; m++) {
		sc->members[m].stats = alloc_percpu(struct ssa_member_stats);
		if (!sc->members[m].stats)
			return -ENOMEM;
	}
	return 0;
}

static int ssa_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	static const struct dm_arg members_arg = {
		1, SSA_MAX_MEMBERS, "Invalid number of members: expected 1 to 64"
	};
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	struct dm_arg_set mas;
	unsigned int chunk, n, m;
	const struct ssa_layout *layout;
	struct ssa_ctx *sc;
	u64 width, rows, rem;
	int r;

	if (argc < 3) {
		ti->error = "Not enough arguments: <layout> <chunk> <#members> <dev> <offset>...";
		return -EINVAL;
	}

	layout = ssa_layout_find(dm_shift_arg(&as));
	if (!layout) {
		ti->error = "Unknown layout: expected stripe, mirror, raid5, pstripe or srarray";
		return -EINVAL;
	}

	r = ssa_parse_uint(dm_shift_arg(&as), &chunk);
	if (r == -EINVAL || (!r && !chunk)) {
		ti->error = "Invalid chunk size: expected a positive number of 512-byte sectors";
		return -EINVAL;
	}
	if (r || chunk > SSA_MAX_CHUNK_SECTORS) {
		ti->error = "Chunk size too large: at most 1048576 sectors (512 MiB)";
		return -EINVAL;
	}

	r = ssa_read_uint(&members_arg, &as, &n,
			  "Member count too large: it does not fit in 32 bits",
			  &ti->error);
	if (r)
		return r;
	if (n < layout->min_members) {
		ti->error = "Too few members for this layout";
		return -EINVAL;
	}
	if (as.argc < 2 * n) {
		ti->error = "Not enough member arguments: expected <dev> <offset> for each member";
		return -EINVAL;
	}

	sc = kzalloc(struct_size(sc, members, n), GFP_KERNEL);
	if (!sc) {
		ti->error = "Cannot allocate context";
		return -ENOMEM;
	}
	sc->ti = ti;
	sc->layout = layout;
	sc->ops = ssa_personalities[layout->id];
	sc->nr_members = n;
	sc->devt = disk_devt(dm_disk(dm_table_get_md(ti->table)));
	ssa_geom_init(&sc->geom, chunk, n);
	INIT_WORK(&sc->event_work, ssa_event_work);
	ssa_inject_init(sc);
	for (m = 0; m < n; m++) {
		struct ssa_member *mb = &sc->members[m];

		mb->sc = sc;
		mb->index = m;
		spin_lock_init(&mb->lock);
		bio_list_init(&mb->queue[SSA_CLASS_HIGH]);
		bio_list_init(&mb->queue[SSA_CLASS_LOW]);
		INIT_WORK(&mb->dispatch_work, ssa_dispatch_work);
		atomic_set(&mb->outstanding, 0);
	}

	/* Options come after the members, but decide the geometry. */
	mas.argc = 2 * n;
	mas.argv = as.argv;
	dm_consume_args(&as, 2 * n);
	r = ssa_parse_opts(sc, &as);
	if (r)
		goto bad;
	if (as.argc) {
		DMERR("%u unexpected argument(s), starting at '%s'",
		      as.argc, as.argv[0]);
		ti->error = "Too many arguments";
		r = -EINVAL;
		goto bad;
	}
	ssa_apply_opts(sc);
	r = ssa_check_opts(sc);
	if (r)
		goto bad;
	ssa_geom_init(&sc->geom, chunk, n / sc->copies);

	width = (u64)chunk * layout->data_members(&sc->geom);
	rows = div64_u64_rem(ti->len, width, &rem);
	if (rem) {
		DMERR("length %llu is not a multiple of the stripe (%u x %u = %llu sectors)",
		      (unsigned long long)ti->len, chunk,
		      layout->data_members(&sc->geom), width);
		ti->error = "Target length is not a multiple of the stripe size";
		r = -EINVAL;
		goto bad;
	}
	sc->member_len = rows * chunk;
	sc->geom.rows = rows;
	sc->geom.rotation = sc->opt[SSA_OPT_PARITY_LAYOUT];
	if (sc->ops->check_geometry) {
		r = sc->ops->check_geometry(sc);
		if (r)
			goto bad;
	}

	for (m = 0; m < n; m++) {
		const char *path = dm_shift_arg(&mas);

		r = ssa_get_member(sc, m, path, dm_shift_arg(&mas));
		if (r)
			goto bad;
	}

	r = ssa_check_overlap(sc);
	if (r)
		goto bad;
	if (sc->meta_path) {
		r = ssa_get_meta(sc);
		if (r)
			goto bad;
	}

	r = ssa_alloc_stats(sc);
	if (r) {
		ti->error = "Cannot allocate statistics";
		goto bad;
	}

	sc->wq = alloc_workqueue("kssastriped",
				 WQ_MEM_RECLAIM | WQ_HIGHPRI | SSA_WQ_PERCPU, 0);
	if (!sc->wq) {
		ti->error = "Cannot allocate workqueue";
		r = -ENOMEM;
		goto bad;
	}

	if (sc->ops->alloc) {
		r = sc->ops->alloc(sc);
		if (r)
			goto bad;
	}
	r = ssa_sched_alloc(sc);
	if (r) {
		ti->error = "Cannot allocate the dispatchers' schedulers";
		goto bad;
	}

	/* a mirror child may hold a gathered source: two bios per child */
	r = bioset_init(&sc->bs, max_t(unsigned int, BIO_POOL_SIZE, 2 * n),
			offsetof(struct ssa_child, bio),
			BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER);
	if (r) {
		ti->error = "Cannot allocate bio set";
		goto bad;
	}

	ti->private = sc;
	sc->io_size = ssa_io_size(n, sc->ops->fast_map);
	sc->trace_slots = ssa_trace_slots(n);
	ti->per_io_data_size = sc->io_size;
	ti->num_flush_bios = 1;
	/* the parity layouts would have to keep parity over them */
	ti->num_discard_bios = sc->ops->discards;
	ti->num_write_zeroes_bios = sc->ops->discards;
	return 0;

bad:
	ssa_free(sc);
	return r;
}

static void ssa_dtr(struct dm_target *ti)
{
	struct ssa_ctx *sc = ti->private;

	/* DM waits for requests; internal work it does not know about. */
	ssa_inject_drain(sc);
	/* a walk started while suspended would raise an event at its end */
	if (sc->ops->stop)
		sc->ops->stop(sc);
	flush_work(&sc->event_work);
	ssa_free(sc);
}

/* remapped[] is folded into the counts it stands for (ssa_map_fast()). */
static void ssa_sum_member(struct ssa_member *mb, struct ssa_member_stats *s)
{
	int cpu, c;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		struct ssa_member_stats *p = per_cpu_ptr(mb->stats, cpu);

		for (c = 0; c < 2; c++) {
			s->children[c] += p->children[c] + p->remapped[c];
			s->sectors[c] += p->sectors[c];
		}
		for (c = 0; c < SSA_NR_CLASSES; c++)
			s->dispatched[c] += p->dispatched[c];
		s->dispatched[SSA_CLASS_LOW] += p->remapped[READ] + p->remapped[WRITE];
		s->other += p->other;
		s->completed += p->completed;
	}
}

/* With the requests each member counted as remapped (ssa_map_fast()). */
static void ssa_sum_volume(struct ssa_ctx *sc, struct ssa_volume_stats *s)
{
	unsigned int m;
	int cpu;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		struct ssa_volume_stats *p = per_cpu_ptr(sc->stats, cpu);

		s->requests[READ] += p->requests[READ];
		s->requests[WRITE] += p->requests[WRITE];
		s->other += p->other;
		for (m = 0; m < sc->nr_members; m++) {
			struct ssa_member_stats *q = per_cpu_ptr(sc->members[m].stats, cpu);

			s->requests[READ] += q->remapped[READ];
			s->requests[WRITE] += q->remapped[WRITE];
		}
	}
}

/* A: in sync; a: being rebuilt; D: failed. */
static char ssa_health(struct ssa_member *mb)
{
	if (test_bit(SSA_MEMBER_FAILED, &mb->flags))
		return 'D';
	return test_bit(SSA_MEMBER_REBUILD, &mb->flags) ? 'a' : 'A';
}

static void ssa_status(struct dm_target *ti, status_type_t type,
		       unsigned int status_flags, char *result,
		       unsigned int maxlen)
{
	struct ssa_ctx *sc = ti->private;
	struct ssa_volume_stats vs;
	struct ssa_member_stats ms;
	unsigned int sz = 0, m;

	switch (type) {
	case STATUSTYPE_INFO:
		ssa_sum_volume(sc, &vs);
		DMEMIT("%s %u ", sc->layout->name, sc->nr_members);
		for (m = 0; m < sc->nr_members; m++)
			DMEMIT("%c", ssa_health(&sc->members[m]));
		DMEMIT(" %u %s %llu %llu %llu", READ_ONCE(sc->queue_depth),
		       READ_ONCE(sc->priority) ? "on" : "off",
		       vs.requests[READ], vs.requests[WRITE], vs.other);
		for (m = 0; m < sc->nr_members; m++) {
			struct ssa_member *mb = &sc->members[m];
			u64 dispatched;

			ssa_sum_member(mb, &ms);
			dispatched = ms.dispatched[SSA_CLASS_HIGH] +
				     ms.dispatched[SSA_CLASS_LOW];
			DMEMIT(" %s %llu %llu %llu %llu %llu %u", mb->dev->name,
			       ms.children[READ], ms.children[WRITE],
			       ms.sectors[READ], ms.sectors[WRITE], ms.other,
			       atomic_read(&mb->errors));
			DMEMIT(" %u %u %lld %llu %llu",
			       READ_ONCE(mb->qlen[SSA_CLASS_HIGH]),
			       READ_ONCE(mb->qlen[SSA_CLASS_LOW]),
			       (long long)(dispatched - ms.completed),
			       ms.dispatched[SSA_CLASS_HIGH],
			       ms.dispatched[SSA_CLASS_LOW]);
		}
		if (sc->ops->status)
			sz = sc->ops->status(sc, type, result, maxlen, sz);
		break;

	case STATUSTYPE_TABLE:
		DMEMIT("%s %u %u", sc->layout->name, sc->geom.chunk,
		       sc->nr_members);
		for (m = 0; m < sc->nr_members; m++)
			DMEMIT(" %s %llu", sc->members[m].dev->name,
			       (unsigned long long)sc->members[m].offset);
		if (sc->opts_given)
			sz = ssa_emit_opts(sc, result, maxlen, sz);
		break;

	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",layout=%s,chunk_sectors=%u,members=%u,coalesce=%c",
		       sc->layout->name, sc->geom.chunk, sc->nr_members,
		       sc->coalesce ? 'y' : 'n');
		DMEMIT(",queue_depth=%u,priority=%c,merge=%c,sched=%s",
		       READ_ONCE(sc->queue_depth),
		       READ_ONCE(sc->priority) ? 'y' : 'n',
		       READ_ONCE(sc->merge) ? 'y' : 'n',
		       ssa_opt_word(SSA_OPT_SCHED, READ_ONCE(sc->sched)));
		if (sc->ops->status)
			sz = sc->ops->status(sc, type, result, maxlen, sz);
		for (m = 0; m < sc->nr_members; m++)
			DMEMIT(",member_%u_device_name=%s,member_%u_offset=%llu",
			       m, sc->members[m].dev->name, m,
			       (unsigned long long)sc->members[m].offset);
		for (m = 0; m < sc->nr_members; m++)
			DMEMIT(",member_%u_status=%c", m,
			       ssa_health(&sc->members[m]));
		DMEMIT(";");
		break;
	}
}

/*
 * dmsetup message <dev> 0 queue_depth <D>
 * dmsetup message <dev> 0 priority on|off
 * dmsetup message <dev> 0 read_policy adaptive|queue|split|nearest|round_robin
 * dmsetup message <dev> 0 rebuild_rate <KiB/s>
 * dmsetup message <dev> 0 sync before_service|after_service
 * dmsetup message <dev> 0 write_method auto|rmw|rcw
 * dmsetup message <dev> 0 check|repair|idle   (parity layouts)
 * dmsetup message <dev> 0 fail <member>
 * dmsetup message <dev> 0 debug_inject_high <member> <count>   (SSA_DEBUG=y)
 */
static int ssa_message(struct dm_target *ti, unsigned int argc, char **argv,
		       char *result, unsigned int maxlen)
{
	struct ssa_ctx *sc = ti->private;
	unsigned int m;
	int r;

	r = ssa_message_opt(sc, argc, argv);
	if (r <= 0)
		return r;

	if (argc == 2 && !strcasecmp(argv[0], "fail")) {
		if (!sc->ops->fail) {
			DMWARN("fail: the stripe layout has no redundancy to fail over to");
			return -EINVAL;
		}
		if (ssa_parse_uint(argv[1], &m) || m >= sc->nr_members) {
			DMWARN("fail <member 0..%u>", sc->nr_members - 1);
			return -EINVAL;
		}
		return sc->ops->fail(sc, m);
	}

	if (argc == 1 &&
	    (!strcasecmp(argv[0], "check") || !strcasecmp(argv[0], "repair"))) {
		bool repair = !strcasecmp(argv[0], "repair");

		if (sc->ops->scrub)
			return sc->ops->scrub(sc, repair);
	}
	if (argc == 1 && !strcasecmp(argv[0], "idle")) {
		if (sc->ops->idle)
			return sc->ops->idle(sc);
	}

#ifdef SSA_DEBUG
	if (argc == 3 && !strcasecmp(argv[0], "debug_inject_high"))
		return ssa_inject_message(sc, argv);
#endif

	DMWARN("unrecognised message '%s'", argc ? argv[0] : "");
	return -EINVAL;
}

static int ssa_iterate_devices(struct dm_target *ti,
			       iterate_devices_callout_fn fn, void *data)
{
	struct ssa_ctx *sc = ti->private;
	unsigned int m;
	int r = 0;

	for (m = 0; m < sc->nr_members && !r; m++)
		r = fn(ti, sc->members[m].dev, sc->members[m].offset,
		       sc->member_len, data);
	return r;
}

static void ssa_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct ssa_ctx *sc = ti->private;
	u64 chunk_bytes = (u64)sc->geom.chunk << SECTOR_SHIFT;
	u64 stripe_bytes = chunk_bytes * sc->layout->data_members(&sc->geom);

	/* pstripe does not stripe data: a chunk is all one member takes */
	if (sc->ops->unstriped)
		stripe_bytes = chunk_bytes;

	/*
	 * Set directly (the blk_limits_io_*() helpers are gone since 6.11),
	 * never below the members' physical block, as those helpers did.
	 */
	limits->io_min = max_t(u64, chunk_bytes, limits->physical_block_size);
	if (stripe_bytes <= UINT_MAX)
		limits->io_opt = stripe_bytes;
}

static void ssa_presuspend(struct dm_target *ti)
{
	struct ssa_ctx *sc = ti->private;

	if (sc->ops->stop)
		sc->ops->stop(sc);
}

static void ssa_postsuspend(struct dm_target *ti)
{
	struct ssa_ctx *sc = ti->private;

	if (sc->ops->quiesced)
		sc->ops->quiesced(sc);
}

static int ssa_preresume(struct dm_target *ti)
{
	struct ssa_ctx *sc = ti->private;

	return sc->ops->prepare ? sc->ops->prepare(sc) : 0;
}

static void ssa_resume(struct dm_target *ti)
{
	struct ssa_ctx *sc = ti->private;

	if (sc->ops->start)
		sc->ops->start(sc);
}

static struct target_type ssa_target = {
	.name = "ssastripe",
	.version = { 1, 19, 1 },
	.module = THIS_MODULE,
	.ctr = ssa_ctr,
	.dtr = ssa_dtr,
	.map = ssa_map,
	.end_io = ssa_end_io,
	.status = ssa_status,
	.message = ssa_message,
	.presuspend = ssa_presuspend,
	.presuspend_undo = ssa_resume,
	.postsuspend = ssa_postsuspend,
	.preresume = ssa_preresume,
	.resume = ssa_resume,
	.iterate_devices = ssa_iterate_devices,
	.io_hints = ssa_io_hints,
};

static int __init dm_ssastripe_init(void)
{
	int r = dm_register_target(&ssa_target);

	if (r < 0) {
		DMERR("register failed %d", r);
		return r;
	}
	r = ssadisk_register();
	if (r < 0) {
		DMERR("registering ssadisk failed %d", r);
		goto bad_disk;
	}
	r = ssacache_register();
	if (r < 0) {
		DMERR("registering ssacache failed %d", r);
		goto bad_cache;
	}
	return 0;
bad_cache:
	ssadisk_unregister();
bad_disk:
	dm_unregister_target(&ssa_target);
	return r;
}

static void __exit dm_ssastripe_exit(void)
{
	ssacache_unregister();
	ssadisk_unregister();
	dm_unregister_target(&ssa_target);
}

module_init(dm_ssastripe_init);
module_exit(dm_ssastripe_exit);

MODULE_DESCRIPTION(DM_NAME " striping target with an explicit fork/join core, and an emulated disk");
MODULE_ALIAS("dm-ssadisk");
MODULE_ALIAS("dm-ssacache");
MODULE_AUTHOR("dm-ssastripe developers");
MODULE_LICENSE("GPL");
