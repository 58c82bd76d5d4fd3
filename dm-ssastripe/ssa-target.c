// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: target registration, table parsing, status and limits.
 *
 * Table:
 *   <layout> <chunk_sectors> <#members> <dev> <offset> [<dev> <offset>]...
 *   [<#opt_args> <opt_args>...]
 *
 * See Documentation/ssastripe.rst for the full syntax and the status format.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/blkdev.h>
#include <linux/slab.h>

#include "dm-ssastripe.h"

/* Optional arguments: each takes one numeric value in [min, max]. */
struct ssa_opt_desc {
	const char *name;
	struct dm_arg range;
	unsigned int def;
};

static const struct ssa_opt_desc ssa_opts[SSA_NR_OPTS] = {
	[SSA_OPT_COALESCE] = {
		.name = "coalesce",
		.range = { 0, 1, "Invalid coalesce value: expected 0 or 1" },
		.def = 1,
	},
};

static void ssa_event_work(struct work_struct *work)
{
	struct ssa_ctx *sc = container_of(work, struct ssa_ctx, event_work);

	dm_table_event(sc->ti->table);
}

static void ssa_free(struct ssa_ctx *sc)
{
	unsigned int m;

	for (m = 0; m < sc->nr_members; m++) {
		struct ssa_member *mb = &sc->members[m];

		if (mb->dev)
			dm_put_device(sc->ti, mb->dev);
		free_percpu(mb->stats);
	}
	free_percpu(sc->stats);
	if (bioset_initialized(&sc->bs))
		bioset_exit(&sc->bs);
	kfree(sc);
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

	if (kstrtoull(offset_arg, 10, &offset) || offset != (sector_t)offset) {
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

static int ssa_parse_opts(struct ssa_ctx *sc, struct dm_arg_set *as)
{
	unsigned int *vals = sc->opt;
	/* Loose bound: a repeated option gets its own, clearer, message. */
	static const struct dm_arg group = {
		0, 4 * SSA_NR_OPTS, "Invalid number of optional arguments"
	};
	struct dm_target *ti = sc->ti;
	unsigned int argc, i;
	const char *key;
	int r;

	for (i = 0; i < SSA_NR_OPTS; i++)
		vals[i] = ssa_opts[i].def;
	if (!as->argc)
		return 0;

	r = dm_read_arg_group(&group, as, &argc, &ti->error);
	if (r)
		return r;

	while (argc) {
		key = dm_shift_arg(as);
		argc--;
		for (i = 0; i < SSA_NR_OPTS; i++)
			if (!strcasecmp(key, ssa_opts[i].name))
				break;
		if (i == SSA_NR_OPTS) {
			DMERR("unknown optional argument '%s'", key);
			ti->error = "Unknown optional argument";
			return -EINVAL;
		}
		if (test_and_set_bit(i, &sc->opts_given)) {
			DMERR("optional argument '%s' given twice", key);
			ti->error = "Duplicate optional argument";
			return -EINVAL;
		}
		if (!argc) {
			DMERR("optional argument '%s' needs a value", key);
			ti->error = "Optional argument without a value";
			return -EINVAL;
		}
		r = dm_read_arg(&ssa_opts[i].range, as, &vals[i], &ti->error);
		if (r)
			return r;
		argc--;
	}
	return 0;
}

static int ssa_alloc_stats(struct ssa_ctx *sc)
{
	unsigned int m;

	sc->stats = alloc_percpu(struct ssa_volume_stats);
	if (!sc->stats)
		return -ENOMEM;
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
		ti->error = "Unknown layout: expected stripe";
		return -EINVAL;
	}

	if (kstrtouint(dm_shift_arg(&as), 10, &chunk) || !chunk) {
		ti->error = "Invalid chunk size: expected a positive number of 512-byte sectors";
		return -EINVAL;
	}
	if (chunk > SSA_MAX_CHUNK_SECTORS) {
		ti->error = "Chunk size too large: at most 1048576 sectors (512 MiB)";
		return -EINVAL;
	}

	r = dm_read_arg(&members_arg, &as, &n, &ti->error);
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
	sc->nr_members = n;
	ssa_geom_init(&sc->geom, chunk, n);
	INIT_WORK(&sc->event_work, ssa_event_work);

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

	for (m = 0; m < n; m++) {
		const char *path = dm_shift_arg(&as);

		r = ssa_get_member(sc, m, path, dm_shift_arg(&as));
		if (r)
			goto bad;
	}

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
	sc->coalesce = sc->opt[SSA_OPT_COALESCE];

	r = ssa_check_overlap(sc);
	if (r)
		goto bad;

	r = ssa_alloc_stats(sc);
	if (r) {
		ti->error = "Cannot allocate statistics";
		goto bad;
	}

	r = bioset_init(&sc->bs, max_t(unsigned int, BIO_POOL_SIZE, n),
			offsetof(struct ssa_child, bio),
			BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER);
	if (r) {
		ti->error = "Cannot allocate bio set";
		goto bad;
	}

	ti->private = sc;
	ti->per_io_data_size = ssa_io_size(n);
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	return 0;

bad:
	ssa_free(sc);
	return r;
}

static void ssa_dtr(struct dm_target *ti)
{
	struct ssa_ctx *sc = ti->private;

	flush_work(&sc->event_work);
	ssa_free(sc);
}

static void ssa_sum_member(struct ssa_member *mb, struct ssa_member_stats *s)
{
	int cpu;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		struct ssa_member_stats *p = per_cpu_ptr(mb->stats, cpu);

		s->children[READ] += p->children[READ];
		s->children[WRITE] += p->children[WRITE];
		s->sectors[READ] += p->sectors[READ];
		s->sectors[WRITE] += p->sectors[WRITE];
		s->other += p->other;
	}
}

static void ssa_sum_volume(struct ssa_ctx *sc, struct ssa_volume_stats *s)
{
	int cpu;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		struct ssa_volume_stats *p = per_cpu_ptr(sc->stats, cpu);

		s->requests[READ] += p->requests[READ];
		s->requests[WRITE] += p->requests[WRITE];
		s->other += p->other;
	}
}

static char ssa_health(struct ssa_member *mb)
{
	return test_bit(SSA_MEMBER_FAILED, &mb->flags) ? 'D' : 'A';
}

static void ssa_status(struct dm_target *ti, status_type_t type,
		       unsigned int status_flags, char *result,
		       unsigned int maxlen)
{
	struct ssa_ctx *sc = ti->private;
	struct ssa_volume_stats vs;
	struct ssa_member_stats ms;
	unsigned int sz = 0, m, i;

	switch (type) {
	case STATUSTYPE_INFO:
		ssa_sum_volume(sc, &vs);
		DMEMIT("%s %u ", sc->layout->name, sc->nr_members);
		for (m = 0; m < sc->nr_members; m++)
			DMEMIT("%c", ssa_health(&sc->members[m]));
		DMEMIT(" %llu %llu %llu", vs.requests[READ],
		       vs.requests[WRITE], vs.other);
		for (m = 0; m < sc->nr_members; m++) {
			struct ssa_member *mb = &sc->members[m];

			ssa_sum_member(mb, &ms);
			DMEMIT(" %s %llu %llu %llu %llu %llu %u", mb->dev->name,
			       ms.children[READ], ms.children[WRITE],
			       ms.sectors[READ], ms.sectors[WRITE], ms.other,
			       atomic_read(&mb->errors));
		}
		break;

	case STATUSTYPE_TABLE:
		DMEMIT("%s %u %u", sc->layout->name, sc->geom.chunk,
		       sc->nr_members);
		for (m = 0; m < sc->nr_members; m++)
			DMEMIT(" %s %llu", sc->members[m].dev->name,
			       (unsigned long long)sc->members[m].offset);
		if (sc->opts_given) {
			DMEMIT(" %u", 2 * (unsigned int)hweight_long(sc->opts_given));
			for (i = 0; i < SSA_NR_OPTS; i++)
				if (test_bit(i, &sc->opts_given))
					DMEMIT(" %s %u", ssa_opts[i].name, sc->opt[i]);
		}
		break;

	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",layout=%s,chunk_sectors=%u,members=%u,coalesce=%c",
		       sc->layout->name, sc->geom.chunk, sc->nr_members,
		       sc->coalesce ? 'y' : 'n');
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

	blk_limits_io_min(limits, chunk_bytes);
	if (stripe_bytes <= UINT_MAX)
		blk_limits_io_opt(limits, stripe_bytes);
}

static struct target_type ssa_target = {
	.name = "ssastripe",
	.version = { 1, 0, 0 },
	.module = THIS_MODULE,
	.ctr = ssa_ctr,
	.dtr = ssa_dtr,
	.map = ssa_map,
	.end_io = ssa_end_io,
	.status = ssa_status,
	.iterate_devices = ssa_iterate_devices,
	.io_hints = ssa_io_hints,
};

static int __init dm_ssastripe_init(void)
{
	int r = dm_register_target(&ssa_target);

	if (r < 0)
		DMERR("register failed %d", r);
	return r;
}

static void __exit dm_ssastripe_exit(void)
{
	dm_unregister_target(&ssa_target);
}

module_init(dm_ssastripe_init);
module_exit(dm_ssastripe_exit);

MODULE_DESCRIPTION(DM_NAME " striping target with an explicit fork/join core");
MODULE_AUTHOR("dm-ssastripe developers");
MODULE_LICENSE("GPL");
