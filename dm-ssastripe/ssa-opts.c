// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the optional arguments of a table and the messages that
 * change them: their names, values and defaults, parsing, the check
 * against what the layout takes (sc->ops->opts), applying them, and
 * emitting them back in the table line.
 */
#include <linux/module.h>

#include "dm-ssastripe.h"
#include "ssa-args.h"

/*
 * Optional arguments: each takes one value, a number in [min, max] or, for
 * options with @words, one of those words (stored as its index).
 */
struct ssa_opt_desc {
	const char *name;
	struct dm_arg range;
	const char *const *words;
	bool device;		/* the value is a device path (sc->meta_path) */
	unsigned int def;
	/* the error when a layout that does not take the option is given it */
	const char *only;
};

static const char *const ssa_on_off[] = { "off", "on", NULL };
static const char *const ssa_policies[] = {
	[SSA_READ_QUEUE] = "queue",
	[SSA_READ_SPLIT] = "split",
	[SSA_READ_NEAREST] = "nearest",
	[SSA_READ_ROUND_ROBIN] = "round_robin",
	[SSA_READ_ADAPTIVE] = "adaptive",
	NULL
};

static const char *const ssa_syncs[] = {
	[SSA_SYNC_BEFORE] = "before_service",
	[SSA_SYNC_AFTER] = "after_service",
	NULL
};

static const char *const ssa_wmethods[] = {
	[SSA_WM_AUTO] = "auto",
	[SSA_WM_RMW] = "rmw",
	[SSA_WM_RCW] = "rcw",
	NULL
};

static const char *const ssa_scheds[] = {
	[SSA_SCHED_FIFO] = "fifo",
	[SSA_SCHED_RSATF] = "rsatf",
	[SSA_SCHED_RLOOK] = "rlook",
	NULL
};

static const char *const ssa_propagations[] = {
	[SSA_PROP_FOREGROUND] = "foreground",
	[SSA_PROP_BACKGROUND] = "background",
	NULL
};

static const char *const ssa_rotations[] = {
	[SSA_LEFT_SYMMETRIC] = "left_symmetric",
	[SSA_LEFT_ASYMMETRIC] = "left_asymmetric",
	[SSA_RIGHT_SYMMETRIC] = "right_symmetric",
	[SSA_RIGHT_ASYMMETRIC] = "right_asymmetric",
	NULL
};

#define SSA_ONLY_MIRROR	"Option only valid for the mirror layout"
#define SSA_ONLY_PARITY	"Option only valid for the raid5 and pstripe layouts"
#define SSA_ONLY_SRARRAY "Option only valid for the srarray layout"
#define SSA_BM_LAYOUTS	"the mirror, raid5, pstripe and srarray layouts"

static const struct ssa_opt_desc ssa_opts[SSA_NR_OPTS] = {
	[SSA_OPT_COALESCE] = {
		.name = "coalesce",
		.range = { 0, 1, "Invalid coalesce value: expected 0 or 1" },
		.def = 1,
		.only = "coalesce is not an option of the parity layouts",
	},
	[SSA_OPT_QUEUE_DEPTH] = {
		.name = "queue_depth",
		.range = { 0, SSA_MAX_QUEUE_DEPTH,
			   "Invalid queue_depth: expected 0 (unbounded) to 65536" },
		.def = 0,
	},
	[SSA_OPT_PRIORITY] = {
		.name = "priority",
		.range = { 0, 1, "Invalid priority: expected on or off" },
		.words = ssa_on_off,
		.def = 1,
	},
	[SSA_OPT_COPIES] = {
		.name = "copies",
		.range = { 2, SSA_MAX_MEMBERS,
			   "Invalid copies: expected 2 to 64" },
		.def = 2,
		.only = "copies is an option of the mirror and srarray layouts",
	},
	[SSA_OPT_READ_POLICY] = {
		.name = "read_policy",
		.range = {
			0, SSA_NR_READ_POLICIES - 1,
			"Invalid read_policy: expected adaptive, queue, split, nearest or round_robin",
		},
		.words = ssa_policies,
		.def = SSA_READ_ADAPTIVE,
		.only = SSA_ONLY_MIRROR,
	},
	[SSA_OPT_REBUILD_RATE] = {
		.name = "rebuild_rate",
		.range = { 0, INT_MAX,
			   "Invalid rebuild_rate: expected KiB/s, 0 for no limit" },
		.def = 0,
		.only = "rebuild_rate is an option of the mirror and srarray layouts",
	},
	[SSA_OPT_SYNC] = {
		.name = "sync",
		.range = { 0, SSA_NR_SYNC - 1,
			   "Invalid sync: expected before_service or after_service" },
		.words = ssa_syncs,
		.def = SSA_SYNC_BEFORE,
		.only = SSA_ONLY_PARITY,
	},
	[SSA_OPT_WRITE_METHOD] = {
		.name = "write_method",
		.range = { 0, SSA_NR_WMETHODS - 1,
			   "Invalid write_method: expected auto, rmw or rcw" },
		.words = ssa_wmethods,
		.def = SSA_WM_AUTO,
		.only = SSA_ONLY_PARITY,
	},
	[SSA_OPT_PARITY_LAYOUT] = {
		.name = "parity_layout",
		.range = { 0, SSA_NR_ROTATIONS - 1,
			   "Invalid parity_layout: expected left_symmetric, left_asymmetric, right_symmetric or right_asymmetric"
		},
		.words = ssa_rotations,
		.def = SSA_LEFT_SYMMETRIC,
		.only = "parity_layout is an option of raid5 only",
	},
	[SSA_OPT_INITIAL_SYNC] = {
		.name = "initial_sync",
		.range = { 0, 1, "Invalid initial_sync: expected on or off" },
		.words = ssa_on_off,
		.def = 1,
		.only = SSA_ONLY_PARITY,
	},
	[SSA_OPT_REBUILD] = {
		.name = "rebuild",
		.range = { 0, SSA_MAX_MEMBERS - 1,
			   "Invalid rebuild member: expected a member index" },
		.def = 0,
		.only = "rebuild is an option of " SSA_BM_LAYOUTS,
	},
	[SSA_OPT_BITMAP] = {
		.name = "bitmap",
		.device = true,
		.only = "bitmap is an option of " SSA_BM_LAYOUTS,
	},
	[SSA_OPT_BITMAP_REGION] = {
		.name = "bitmap_region",
		.range = { 1, INT_MAX,
			   "Invalid bitmap_region: expected rows a region, at least 1" },
		.def = 0,	/* 0: chosen by the layout */
		.only = "bitmap_region is an option of " SSA_BM_LAYOUTS,
	},
	[SSA_OPT_PPL] = {
		.name = "ppl",
		.device = true,
		.only = SSA_ONLY_PARITY,
	},
	[SSA_OPT_MERGE] = {
		.name = "merge",
		.range = { 0, 1, "Invalid merge: expected on or off" },
		.words = ssa_on_off,
		.def = 0,
	},
	[SSA_OPT_REPLICAS] = {
		.name = "replicas",
		.range = { 1, SSA_MAX_REPLICAS,
			   "Invalid replicas: expected 1 to 8 rotational replicas" },
		.def = 2,
		.only = SSA_ONLY_SRARRAY,
	},
	[SSA_OPT_TRACK_SECTORS] = {
		.name = "track_sectors",
		.range = { 1, 65536,
			   "Invalid track_sectors: expected 1 to 65536 sectors a track" },
		.def = 0,	/* required by srarray */
		.only = SSA_ONLY_SRARRAY,
	},
	[SSA_OPT_SCHED] = {
		.name = "sched",
		.range = { 0, SSA_NR_SCHEDS - 1,
			   "Invalid sched: expected fifo, rsatf or rlook" },
		.words = ssa_scheds,
		.def = SSA_SCHED_FIFO,
		.only = "sched is an option of the stripe, mirror and srarray layouts",
	},
	[SSA_OPT_PROPAGATE] = {
		.name = "propagate",
		.range = { 0, 1,
			   "Invalid propagate: expected foreground or background" },
		.words = ssa_propagations,
		.def = SSA_PROP_FOREGROUND,
		.only = SSA_ONLY_SRARRAY,
	},
};

/* The word option @opt's value @val stands for (status lines). */
const char *ssa_opt_word(int opt, unsigned int val)
{
	return ssa_opts[opt].words[val];
}

/* Parse the value of option @i from @arg into @val; 0 or -EINVAL. */
static int ssa_opt_value(unsigned int i, const char *arg, unsigned int *val,
			 char **error)
{
	const struct ssa_opt_desc *d = &ssa_opts[i];
	unsigned int w;
	int r;

	if (d->words) {
		for (w = 0; d->words[w]; w++) {
			if (!strcasecmp(arg, d->words[w])) {
				*val = w;
				return 0;
			}
		}
	} else {
		r = ssa_parse_uint(arg, &w);
		if (r == -ERANGE) {
			*error = "Optional argument value too large: it does not fit in 32 bits";
			return -EINVAL;
		}
		if (!r && w >= d->range.min && w <= d->range.max) {
			*val = w;
			return 0;
		}
	}
	*error = d->range.error;
	return -EINVAL;
}

/* Make option values take effect (constructor and messages). */
void ssa_apply_opts(struct ssa_ctx *sc)
{
	WRITE_ONCE(sc->coalesce, sc->opt[SSA_OPT_COALESCE]);
	WRITE_ONCE(sc->queue_depth, sc->opt[SSA_OPT_QUEUE_DEPTH]);
	WRITE_ONCE(sc->fast_map, sc->ops->fast_map &&
		   !sc->opt[SSA_OPT_QUEUE_DEPTH]);
	WRITE_ONCE(sc->priority, sc->opt[SSA_OPT_PRIORITY]);
	WRITE_ONCE(sc->merge, sc->opt[SSA_OPT_MERGE]);
	WRITE_ONCE(sc->sched, sc->opt[SSA_OPT_SCHED]);
	WRITE_ONCE(sc->read_policy, sc->opt[SSA_OPT_READ_POLICY]);
	WRITE_ONCE(sc->sync, sc->opt[SSA_OPT_SYNC]);
	WRITE_ONCE(sc->write_method, sc->opt[SSA_OPT_WRITE_METHOD]);
	/* a layout without the option (parity) never coalesces */
	if (!(sc->ops->opts & BIT(SSA_OPT_COALESCE)))
		WRITE_ONCE(sc->coalesce, false);
}

static int ssa_opt_find(const char *key)
{
	int i;

	for (i = 0; i < SSA_NR_OPTS; i++)
		if (!strcasecmp(key, ssa_opts[i].name))
			return i;
	return -1;
}

int ssa_parse_opts(struct ssa_ctx *sc, struct dm_arg_set *as)
{
	/* Every option once, rebuild once per member: two words each. */
	static const struct dm_arg group = {
		0, 2 * (SSA_NR_OPTS - 1 + SSA_MAX_MEMBERS),
		"Invalid number of optional arguments"
	};
	struct dm_target *ti = sc->ti;
	unsigned int argc, i;
	const char *key;
	int r, o;

	for (i = 0; i < SSA_NR_OPTS; i++)
		sc->opt[i] = ssa_opts[i].def;
	if (!as->argc)
		return 0;

	r = ssa_read_group(&group, as, &argc,
			   "Optional argument count too large: it does not fit in 32 bits",
			   &ti->error);
	if (r)
		return r;

	while (argc) {
		key = dm_shift_arg(as);
		argc--;
		o = ssa_opt_find(key);
		if (o < 0) {
			DMERR("unknown optional argument '%s'", key);
			ti->error = "Unknown optional argument";
			return -EINVAL;
		}
		if (test_and_set_bit(o, &sc->opts_given) &&
		    o != SSA_OPT_REBUILD) {
			DMERR("optional argument '%s' given twice", key);
			ti->error = "Duplicate optional argument";
			return -EINVAL;
		}
		if (!argc) {
			DMERR("optional argument '%s' needs a value", key);
			ti->error = "Optional argument without a value";
			return -EINVAL;
		}
		argc--;
		if (ssa_opts[o].device) {
			/* a device: opened once the members are */
			if (sc->meta_path) {
				ti->error = "bitmap and ppl exclude each other";
				return -EINVAL;
			}
			sc->meta_path = dm_shift_arg(as);
			continue;
		}
		r = ssa_opt_value(o, dm_shift_arg(as), &sc->opt[o], &ti->error);
		if (r)
			return r;
		if (o == SSA_OPT_REBUILD) {
			if (sc->rebuild_mask & BIT_ULL(sc->opt[o])) {
				DMERR("rebuild %u given twice", sc->opt[o]);
				ti->error = "Duplicate rebuild member";
				return -EINVAL;
			}
			sc->rebuild_mask |= BIT_ULL(sc->opt[o]);
		}
	}
	return 0;
}

/*
 * Options the layout does not take, options that need another, then the
 * layout's own checks.
 */
int ssa_check_opts(struct ssa_ctx *sc)
{
	unsigned long wrong = sc->opts_given & ~sc->ops->opts;

	if (wrong) {
		sc->ti->error = (char *)ssa_opts[__ffs(wrong)].only;
		return -EINVAL;
	}
	if (test_bit(SSA_OPT_BITMAP_REGION, &sc->opts_given) &&
	    !test_bit(SSA_OPT_BITMAP, &sc->opts_given)) {
		sc->ti->error = "bitmap_region needs a bitmap device (option bitmap)";
		return -EINVAL;
	}
	sc->copies = 1;
	return sc->ops->check_opts ? sc->ops->check_opts(sc) : 0;
}

/* The optional arguments of the table line; returns the new length. */
unsigned int ssa_emit_opts(struct ssa_ctx *sc, char *result,
			   unsigned int maxlen, unsigned int sz)
{
	unsigned long plain = sc->opts_given & ~BIT(SSA_OPT_REBUILD);
	unsigned int i, m;

	DMEMIT(" %u", 2 * ((unsigned int)hweight_long(plain) +
			   (unsigned int)hweight64(sc->rebuild_mask)));
	for_each_set_bit(i, &plain, SSA_NR_OPTS) {
		if (ssa_opts[i].device)
			DMEMIT(" %s %s", ssa_opts[i].name,
			       sc->meta_dev ? sc->meta_dev->name : "-");
		else if (ssa_opts[i].words)
			DMEMIT(" %s %s", ssa_opts[i].name,
			       ssa_opts[i].words[sc->opt[i]]);
		else
			DMEMIT(" %s %u", ssa_opts[i].name, sc->opt[i]);
	}
	for (m = 0; m < sc->nr_members; m++)
		if (sc->rebuild_mask & BIT_ULL(m))
			DMEMIT(" rebuild %u", m);
	return sz;
}

/*
 * "<option> <value>" messages (queue_depth, priority, merge, sched,
 * read_policy, rebuild_rate, sync, write_method): 0 when applied,
 * -EINVAL when refused, 1 when @argv is not such a message.
 */
int ssa_message_opt(struct ssa_ctx *sc, unsigned int argc, char **argv)
{
	unsigned int val;
	char *error;
	int o;

	o = argc ? ssa_opt_find(argv[0]) : -1;
	if (argc != 2 || !(o == SSA_OPT_QUEUE_DEPTH || o == SSA_OPT_PRIORITY ||
			   o == SSA_OPT_MERGE || o == SSA_OPT_SCHED ||
			   o == SSA_OPT_READ_POLICY ||
			   o == SSA_OPT_REBUILD_RATE || o == SSA_OPT_SYNC ||
			   o == SSA_OPT_WRITE_METHOD))
		return 1;
	if (!(sc->ops->opts & BIT(o))) {
		DMWARN("%s: %s", argv[0], ssa_opts[o].only);
		return -EINVAL;
	}
	if (ssa_opt_value(o, argv[1], &val, &error)) {
		DMWARN("%s", error);
		return -EINVAL;
	}
	sc->opt[o] = val;
	set_bit(o, &sc->opts_given);
	ssa_apply_opts(sc);
	ssa_kick_members(sc);
	if (sc->ops->opt_changed)
		sc->ops->opt_changed(sc, o);
	return 0;
}

