// SPDX-License-Identifier: GPL-2.0-only
/*
 * ssadisk: the table, in and out -- the presets, the parsing of every
 * argument (strict numbers: ssa-args.c), the checks of a whole table
 * against the model, and the table line that status prints back.  See
 * Documentation/ssadisk.rst for the syntax.
 */
#include <linux/ctype.h>
#include <linux/math64.h>

#include "ssa-args.h"
#include "ssa-disk-priv.h"

struct ssad_preset {
	const char *name;
	struct ssad_params p;
};

/* One revolution at @rpm, to the nearest ns. */
static u64 ssad_rpm(u32 rpm)
{
	return div_u64(60 * SSAD_NS_PER_S + rpm / 2, rpm);
}

/* Where the numbers come from: Documentation/ssadisk.rst, "Presets". */
static const struct ssad_preset ssad_presets[] = {
	{ "ct1992", {		/* seed 002, section 4.1 */
		.mode = SSAD_STOCHASTIC, .cylinders = 1200, .heads = 16,
		.nr_zones = 1, .zone = { { .spt = 102 } },
		.seek_a = 3 * SSAD_MS, .seek_b = 500 * SSAD_US, .rotation = 16666667 /* 3600 rpm */,
		.block_time = 1300 * SSAD_US, .block_sectors = 8,
	} },
	{ "ssa1999", {		/* seed 000, Table 1 and sections 2.2, 3.1 */
		.mode = SSAD_MECHANICAL, .cylinders = 4390, .heads = 8,
		.nr_zones = 1, .zone = { { .spt = 135 } },
		.seek_a = 2 * SSAD_MS, .seek_b = 192 * SSAD_US, .rotation = 8333333 /* 7200 rpm */,
		.block_time = 493827, .block_sectors = 8,
		.overhead = 500 * SSAD_US, .max_transfer = 256 /* 128 KiB */,
		.phase = SSAD_PHASE_RANDOM,
	} },
	{ "cheetah73", {	/* seed 001, Table 1 and section 5.1 */
		.mode = SSAD_MECHANICAL, .cylinders = 16454, .heads = 24,
		.nr_zones = 1, .zone = { { .spt = 363 } },
		.seek_a = 1 * SSAD_MS, .seek_b = 74 * SSAD_US, .settle = 500 * SSAD_US,
		.rotation = 6000000 /* 10000 rpm */, .block_time = 132129,
		.block_sectors = 8,
	} },
};

const char *const ssad_modes[] = { "mechanical", "stochastic", NULL };
const char *const ssad_scheds[] = { "fifo", "look", NULL };

static int ssad_word(const char *arg, const char *const *words)
{
	int i;

	for (i = 0; arg && words[i]; i++)
		if (!strcasecmp(arg, words[i]))
			return i;
	return -1;
}

/*
 * "<whole>[.<fraction>]" into an integer scaled by 10^digits, at most @max;
 * *rest gets what follows the number.
 */
static int ssad_parse_fixed(const char *arg, unsigned int digits, u64 max,
			    u64 *out, const char **rest)
{
	u64 whole = 0, frac = 0;
	unsigned int n = 0;

	if (!arg || !isdigit(*arg))
		return -EINVAL;
	for (; isdigit(*arg); arg++) {
		whole = whole * 10 + (*arg - '0');
		if (whole > max)
			return -EINVAL;
	}
	if (*arg == '.') {
		for (arg++; isdigit(*arg); arg++, n++) {
			if (n == digits)
				return -EINVAL;
			frac = frac * 10 + (*arg - '0');
		}
		if (!n)
			return -EINVAL;
	}
	*out = whole * int_pow(10, digits) + frac * int_pow(10, digits - n);
	if (*out > max * int_pow(10, digits))
		return -EINVAL;
	if (rest)
		*rest = arg;
	else if (*arg)
		return -EINVAL;
	return 0;
}

/* A time with its unit: "3ms", "0.5ms", "500us", "16666667ns", "1s". */
static int ssad_parse_time(const char *arg, u64 *ns)
{
	static const struct { const char *unit; u64 ns; } units[] = {
		{ "ns", 1 }, { "us", SSAD_US }, { "ms", SSAD_MS }, { "s", SSAD_NS_PER_S },
	};
	const char *unit;
	unsigned int i;
	u64 milli;

	/* three decimals of the unit, up to 1000 s */
	if (ssad_parse_fixed(arg, 3, 1000ULL * SSAD_NS_PER_S, &milli, &unit))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(unit, units[i].unit)) {
			if (milli > div64_u64(1000ULL * 1000 * SSAD_NS_PER_S,
					      units[i].ns))
				return -EINVAL;
			*ns = div_u64(milli * units[i].ns, 1000);
			return 0;
		}
	}
	return -EINVAL;
}

/* 0; -ERANGE for a number too large for 32 bits; -EINVAL otherwise */
static int ssad_parse_u32(const char *arg, u32 min, u32 max, u32 *out)
{
	unsigned int v;
	int r = ssa_parse_uint(arg, &v);

	if (r)
		return r;
	if (v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static const char ssad_too_large[] =
	"Invalid ssadisk argument: a number too large to fit in 32 bits";

static int ssad_parse_zones(struct ssad_ctx *sc, struct dm_arg_set *as,
			    char **error)
{
	static const struct dm_arg arg = {
		1, SSAD_MAX_ZONES, "Invalid zones: expected 1 to 32 zones"
	};
	struct ssad_params *p = &sc->table;
	unsigned int n, i;
	int r;

	if (ssa_read_uint(&arg, as, &n, (char *)ssad_too_large, error))
		return -EINVAL;
	if (as->argc < 2 * n) {
		*error = "Invalid zones: expected <#zones> <cylinders> <spt>...";
		return -EINVAL;
	}
	p->nr_zones = n;
	for (i = 0; i < n; i++) {
		r = ssad_parse_u32(dm_shift_arg(as), 1, SSAD_MAX_CYLINDERS,
				   &p->zone[i].cylinders);
		if (!r)
			r = ssad_parse_u32(dm_shift_arg(as), 1, SSAD_MAX_SPT,
					   &p->zone[i].spt);
		if (r) {
			*error = r == -ERANGE ? (char *)ssad_too_large :
				 "Invalid zone: cylinders 1-16777216, spt 1-65536";
			return -EINVAL;
		}
	}
	return 0;
}

/* Named time parameters and where they go. */
static u64 *ssad_time_param(struct ssad_params *p, const char *name)
{
	if (!strcasecmp(name, "seek_a"))
		return &p->seek_a;
	if (!strcasecmp(name, "seek_b"))
		return &p->seek_b;
	if (!strcasecmp(name, "settle"))
		return &p->settle;
	if (!strcasecmp(name, "rotation"))
		return &p->rotation;
	if (!strcasecmp(name, "overhead"))
		return &p->overhead;
	if (!strcasecmp(name, "block_time"))
		return &p->block_time;
	if (!strcasecmp(name, "hit_time"))
		return &p->hit_time;
	return NULL;
}

static int ssad_bad(char **error, const char *msg)
{
	*error = (char *)msg;
	return -EINVAL;
}

/* ssad_bad() for a number that ssad_parse_u32() refused with @r */
static int ssad_bad_num(char **error, int r, const char *msg)
{
	return ssad_bad(error, r == -ERANGE ? ssad_too_large : msg);
}

/* "phase F" (a fraction of a turn, six decimals) or "phase random" */
static int ssad_parse_phase(struct ssad_params *p, const char *val,
			    char **error)
{
	u64 v;

	if (!strcasecmp(val, "random")) {
		p->phase = SSAD_PHASE_RANDOM;
		return 0;
	}
	if (ssad_parse_fixed(val, 6, 1, &v, NULL) || v >= SSAD_PPM)
		return ssad_bad(error,
				"Invalid phase: a fraction of a turn, 0 to 0.999999, or random");
	p->phase = v;
	return 0;
}

/* "channel NAME": 1 to 31 of [A-Za-z0-9_-] */
static int ssad_parse_chan_name(struct ssad_ctx *sc, const char *val,
				char **error)
{
	size_t i, n = strlen(val);

	if (!n || n > SSAD_CHAN_NAME_MAX)
		return ssad_bad(error, "Invalid channel: a name of 1 to 31 characters");
	for (i = 0; i < n; i++)
		if (!isalnum(val[i]) && val[i] != '_' && val[i] != '-')
			return ssad_bad(error, "Invalid channel: letters, digits, _ and - only");
	strscpy(sc->chan_name, val, sizeof(sc->chan_name));
	return 0;
}

/* One "<name> <value>" (or "zones ...", or "spread"); consumes it. */
static int ssad_parse_one(struct ssad_ctx *sc, struct dm_arg_set *as,
			  char **error)
{
	struct ssad_params *p = &sc->table;
	const char *name = dm_shift_arg(as);
	const char *val;
	u64 *t, v;
	u32 u;
	int w, r;

	if (!strcasecmp(name, "spread")) {
		sc->spread = true;
		return 0;
	}
	if (!strcasecmp(name, "zones"))
		return ssad_parse_zones(sc, as, error);

	val = dm_shift_arg(as);
	if (!val) {
		*error = "Missing value for an ssadisk argument";
		return -EINVAL;
	}
	t = ssad_time_param(p, name);
	if (t) {
		if (ssad_parse_time(val, t))
			return ssad_bad(error, "Invalid time: number and unit, e.g. 0.5ms");
	} else if (!strcasecmp(name, "mode")) {
		w = ssad_word(val, ssad_modes);
		if (w < 0)
			return ssad_bad(error, "Invalid mode: mechanical or stochastic");
		p->mode = w;
	} else if (!strcasecmp(name, "sched")) {
		w = ssad_word(val, ssad_scheds);
		if (w < 0)
			return ssad_bad(error, "Invalid sched: fifo or look");
		sc->sched = w;
	} else if (!strcasecmp(name, "cylinders")) {
		r = ssad_parse_u32(val, 2, SSAD_MAX_CYLINDERS, &p->cylinders);
		if (r)
			return ssad_bad_num(error, r, "Invalid cylinders: 2 to 16777216");
	} else if (!strcasecmp(name, "heads")) {
		r = ssad_parse_u32(val, 1, SSAD_MAX_HEADS, &p->heads);
		if (r)
			return ssad_bad_num(error, r, "Invalid heads: 1 to 1024");
	} else if (!strcasecmp(name, "sectors_per_track")) {
		r = ssad_parse_u32(val, 1, SSAD_MAX_SPT, &u);
		if (r)
			return ssad_bad_num(error, r, "Invalid sectors_per_track: 1 to 65536");
		p->nr_zones = 1;
		p->zone[0].cylinders = 0;	/* all of them */
		p->zone[0].spt = u;
	} else if (!strcasecmp(name, "rpm")) {
		r = ssad_parse_u32(val, 1, 1000000, &u);
		if (r)
			return ssad_bad_num(error, r, "Invalid rpm: 1 to 1000000");
		p->rotation = ssad_rpm(u);
	} else if (!strcasecmp(name, "block_size")) {
		r = ssad_parse_u32(val, 512, 512 * SSAD_MAX_SPT, &u);
		if (r || u % 512)
			return ssad_bad_num(error, r,
					    "Invalid block_size: bytes, a multiple of 512");
		p->block_sectors = u / 512;
	} else if (!strcasecmp(name, "read_ahead")) {
		r = ssad_parse_u32(val, 0, 512 * 2 * SSAD_MAX_SPT, &u);
		if (r || u % 512)
			return ssad_bad_num(error, r,
					    "Invalid read_ahead: bytes, n x 512, to 64 MiB");
		p->read_ahead = u / 512;
	} else if (!strcasecmp(name, "p_seq")) {
		if (ssad_parse_fixed(val, 6, 1, &v, NULL))
			return ssad_bad(error, "Invalid p_seq: a probability, 0 to 1");
		p->p_seq = v;
	} else if (!strcasecmp(name, "time_scale")) {
		if (ssad_parse_fixed(val, 3, 1000, &v, NULL) || !v)
			return ssad_bad(error, "Invalid time_scale: 0.001 to 1000");
		sc->time_scale = v;
	} else if (!strcasecmp(name, "queue_limit")) {
		r = ssad_parse_u32(val, 0, 65536, &sc->queue_limit);
		if (r)
			return ssad_bad_num(error, r, "Invalid queue_limit: 0 to 65536");
	} else if (!strcasecmp(name, "max_transfer")) {
		r = ssad_parse_u32(val, 0, 512 * SSAD_MAX_TRANSFER, &u);
		if (r || u % 512)
			return ssad_bad_num(error, r,
					    "Invalid max_transfer: bytes, n x 512, to 64 MiB (0: no limit)");
		p->max_transfer = u / 512;
	} else if (!strcasecmp(name, "phase")) {
		return ssad_parse_phase(p, val, error);
	} else if (!strcasecmp(name, "channel")) {
		return ssad_parse_chan_name(sc, val, error);
	} else if (!strcasecmp(name, "channel_mbps")) {
		r = ssad_parse_u32(val, 1, SSAD_MAX_MBPS, &sc->chan_mbps);
		if (r)
			return ssad_bad_num(error, r,
					    "Invalid channel_mbps: MB/s (10^6 bytes), 1 to 100000");
	} else if (!strcasecmp(name, "seed")) {
		r = ssa_parse_u64(val, &sc->seed);
		if (r)
			return ssad_bad(error, r == -ERANGE ?
					"Invalid seed: too large for 64 bits" :
					"Invalid seed: a decimal number");
	} else {
		*error = "Unknown ssadisk argument (see Documentation/ssadisk.rst)";
		return -EINVAL;
	}
	return 0;
}

/*
 * The arguments, by the parameter each sets: a second name of one
 * parameter (rpm for rotation, zones for sectors_per_track) shares its
 * slot, so that giving both is a repeat too.
 */
static const char *const ssad_arg_names[][2] = {
	{ "mode" }, { "sched" }, { "cylinders" }, { "heads" },
	{ "sectors_per_track", "zones" }, { "rotation", "rpm" },
	{ "seek_a" }, { "seek_b" }, { "settle" }, { "overhead" },
	{ "block_time" }, { "hit_time" }, { "block_size" }, { "read_ahead" },
	{ "p_seq" }, { "time_scale" }, { "queue_limit" }, { "max_transfer" },
	{ "phase" }, { "channel" }, { "channel_mbps" }, { "seed" },
	{ "spread" },
};

/*
 * Refuse the argument @name when its parameter is in @given already;
 * mark it there.  An unknown name is ssad_parse_one()'s to refuse.
 */
static int ssad_once(const char *name, unsigned long *given, char **error)
{
	unsigned int i, k;

	BUILD_BUG_ON(ARRAY_SIZE(ssad_arg_names) > BITS_PER_LONG);
	for (i = 0; i < ARRAY_SIZE(ssad_arg_names); i++) {
		for (k = 0; k < 2 && ssad_arg_names[i][k]; k++) {
			if (strcasecmp(name, ssad_arg_names[i][k]))
				continue;
			if (!__test_and_set_bit(i, given))
				return 0;
			if (ssad_arg_names[i][1])
				DMERR("'%s' given again (%s and %s set one parameter)",
				      name, ssad_arg_names[i][0],
				      ssad_arg_names[i][1]);
			else
				DMERR("'%s' given twice", name);
			*error = "Duplicate ssadisk argument: each may be given once";
			return -EINVAL;
		}
	}
	return 0;
}

int ssad_parse_args(struct ssad_ctx *sc, struct dm_arg_set *as, char **error)
{
	unsigned long given = 0;
	static const struct dm_arg group = {
		0, SSAD_MAX_ARGS, "Invalid number of ssadisk arguments"
	};
	struct dm_arg_set args;
	unsigned int argc, i;
	int w;

	sc->table = ssad_presets[0].p;	/* ct1992 unless told otherwise */
	sc->time_scale = 1000;
	if (!as->argc)
		return 0;
	if (ssa_read_group(&group, as, &argc,
			   "Ssadisk argument count too large: it does not fit in 32 bits",
			   error))
		return -EINVAL;
	args.argc = argc;
	args.argv = as->argv;
	dm_consume_args(as, argc);

	if (args.argc && !strcasecmp(args.argv[0], "preset")) {
		dm_consume_args(&args, 1);
		w = -1;
		for (i = 0; args.argc && i < ARRAY_SIZE(ssad_presets); i++)
			if (!strcasecmp(args.argv[0], ssad_presets[i].name))
				w = i;
		if (w < 0) {
			*error = "Unknown preset: expected ct1992, ssa1999 or cheetah73";
			return -EINVAL;
		}
		sc->table = ssad_presets[w].p;
		dm_consume_args(&args, 1);
	}
	while (args.argc) {
		if (!strcasecmp(args.argv[0], "preset")) {
			*error = "preset must be the first ssadisk argument";
			return -EINVAL;
		}
		if (ssad_once(args.argv[0], &given, error) ||
		    ssad_parse_one(sc, &args, error))
			return -EINVAL;
	}
	return 0;
}

int ssad_check(struct ssad_ctx *sc, char **error)
{
	struct dm_target *ti = sc->ti;
	const char *err;

	err = ssad_model_init(&sc->table);
	if (err) {
		*error = (char *)err;
		return -EINVAL;
	}
	if (sc->sched == SSAD_LOOK && sc->table.mode != SSAD_MECHANICAL) {
		*error = "sched look needs mode mechanical (stochastic mode has no head position)";
		return -EINVAL;
	}
	if (sc->chan_name[0] && !sc->chan_mbps) {
		*error = "channel needs channel_mbps, the channel's rate in MB/s";
		return -EINVAL;
	}
	if (!sc->chan_name[0] && sc->chan_mbps) {
		*error = "channel_mbps needs channel <name>, the channel it is the rate of";
		return -EINVAL;
	}
	if (sc->table.mode == SSAD_MECHANICAL && !sc->spread &&
	    ti->len > sc->table.capacity) {
		*error = "Target larger than the modelled disk: add spread";
		return -EINVAL;
	}
	sc->model = sc->table;
	ssad_scale(&sc->model, sc->time_scale);
	if (ssad_model_init(&sc->model)) {
		*error = "time_scale makes a time too long: rotation at most 60 s, others 1000 s";
		return -EINVAL;
	}
	return 0;
}

/* -- the table as status prints it ------------------------------------ */

/* A time in the largest unit that shows it exactly. */
static void ssad_fmt_time(char *buf, size_t len, u64 ns)
{
	if (ns && !(ns % SSAD_MS))
		snprintf(buf, len, "%llums", ns / SSAD_MS);
	else if (ns && !(ns % SSAD_US))
		snprintf(buf, len, "%lluus", ns / SSAD_US);
	else
		snprintf(buf, len, "%lluns", ns);
}

unsigned int ssad_emit_table(struct ssad_ctx *sc, char *result,
			     unsigned int maxlen, unsigned int sz)
{
	const struct ssad_params *p = &sc->table;
	unsigned int i, n = 38 + (p->nr_zones > 1 ? 2 + 2 * p->nr_zones : 2) +
			    (sc->chan ? 4 : 0) + sc->spread;
	char t[7][24];

	ssad_fmt_time(t[0], sizeof(t[0]), p->rotation);
	ssad_fmt_time(t[1], sizeof(t[1]), p->seek_a);
	ssad_fmt_time(t[2], sizeof(t[2]), p->seek_b);
	ssad_fmt_time(t[3], sizeof(t[3]), p->settle);
	ssad_fmt_time(t[4], sizeof(t[4]), p->overhead);
	ssad_fmt_time(t[5], sizeof(t[5]), p->block_time);
	ssad_fmt_time(t[6], sizeof(t[6]), p->hit_time);

	DMEMIT("%s %llu %u mode %s cylinders %u heads %u", sc->dev->name,
	       (unsigned long long)sc->offset, n, ssad_modes[p->mode],
	       p->cylinders, p->heads);
	if (p->nr_zones > 1) {
		DMEMIT(" zones %u", p->nr_zones);
		for (i = 0; i < p->nr_zones; i++)
			DMEMIT(" %u %u", p->zone[i].cylinders, p->zone[i].spt);
	} else {
		DMEMIT(" sectors_per_track %u", p->zone[0].spt);
	}
	DMEMIT(" rotation %s seek_a %s seek_b %s settle %s overhead %s",
	       t[0], t[1], t[2], t[3], t[4]);
	DMEMIT(" block_time %s block_size %u p_seq %u.%06u sched %s",
	       t[5], p->block_sectors * 512, p->p_seq / SSAD_PPM,
	       p->p_seq % SSAD_PPM, ssad_scheds[sc->sched]);
	DMEMIT(" read_ahead %u hit_time %s", p->read_ahead * 512, t[6]);
	DMEMIT(" queue_limit %u time_scale %u.%03u seed %llu",
	       sc->queue_limit, sc->time_scale / 1000, sc->time_scale % 1000,
	       sc->seed);
	DMEMIT(" max_transfer %u", p->max_transfer * 512);
	if (p->phase == SSAD_PHASE_RANDOM)
		DMEMIT(" phase random");
	else
		DMEMIT(" phase %u.%06u", p->phase / SSAD_PPM, p->phase % SSAD_PPM);
	if (sc->chan)
		DMEMIT(" channel %s channel_mbps %u", sc->chan_name,
		       sc->chan_mbps);
	DMEMIT("%s", sc->spread ? " spread" : "");
	return sz;
}
