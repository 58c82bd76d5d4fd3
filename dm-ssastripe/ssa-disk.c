// SPDX-License-Identifier: GPL-2.0-only
/*
 * ssadisk: a target that passes data through to a backing device but
 * completes every read and write when a modelled mechanical disk would
 * (ssa-disk-model.c), so that the seeds' experiments can run on ramdisks.
 *
 * Table:
 *   <dev> <offset> [<#args> [preset <name>] [<name> <value>]... [spread]]
 *
 * The disk is one server.  Reads and writes wait in arrival order (or are
 * picked by LOOK); the access in service holds the disk from its start to
 * its modelled end.  That end is an absolute CLOCK_MONOTONIC deadline
 * computed from the previous end (busy-until), and an hrtimer is set for
 * it.  The timer callback ends the service, starts the next one at the
 * modelled instant, and hands the finished bios to a work item which sends
 * them to the backing device (submission may sleep; the callback may not).
 * A late timer delays the delivery of a completion, never the model.
 *
 * The status figures are the model's too: they cover a window of the
 * model's own timeline, from the first arrival after creation or
 * reset_stats to the end of the last service (or to now while one is in
 * service), not the guest's time around it.  See ssad_status().
 *
 * Flushes, discards and write-zeroes go straight through: the modelled disk
 * has no write cache to flush and models reads and writes only.
 *
 * See Documentation/ssadisk.rst.
 */
#include <linux/device-mapper.h>
#include <linux/bio.h>
#include <linux/ctype.h>
#include <linux/hrtimer.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ssa-args.h"
#include "ssa-compat.h"
#include "ssa-disk.h"
#include "ssa-disk-model.h"

#define CREATE_TRACE_POINTS
#include "ssa-disk-trace.h"

#define DM_MSG_PREFIX "ssadisk"

#define SSAD_NS_PER_S		1000000000ULL
#define SSAD_MAX_ARGS		128

enum ssad_sched {
	SSAD_FIFO,
	SSAD_LOOK,
};

/* Per-bio data: the access while it waits and while it is served. */
struct ssad_io {
	struct list_head list;
	u64 id;
	u64 arrival;
	u64 start;
	u64 end;		/* modelled end; 0 if it was released unmodelled */
	u64 sector;		/* on the modelled disk */
	u64 dsector;		/* on the ssadisk device, as submitted */
	u64 dist_q10;		/* seek distance, 1/1024 cylinder */
	u32 len;
	u32 cyl;
	u32 gen;		/* the stats window it was counted in */
	u8 op;			/* 0 read, 1 write */
	bool hit;		/* served from the read-ahead cache */
};

/*
 * Counters of the accesses that ended since creation or the last
 * reset_stats message, and the window of the model's timeline they cover:
 * it opens at the first arrival (at the reset itself if an access was in
 * service then) and ends at the end of the last service, or at the
 * moment of the status while one is in service.  The idle time before
 * the first access and after the last is outside it: that is the time a
 * test spends starting its load and reading the status, which has nothing
 * to do with the disk (and which QEMU's instruction clock inflates: every
 * wait of an idle guest for the host jumps its clock to the next timer).
 */
struct ssad_stats {
	bool open;		/* the window has opened */
	u64 first;		/* ... at this time */
	u64 last;		/* end of the last service counted */
	u64 ios;
	u64 reads;
	u64 writes;
	u64 busy;		/* sum of service times */
	u64 busy_in;		/* ... of their parts inside the window */
	u64 svc_sq;		/* sum of squared service times, 2^20 ns^2 */
	u64 resp;		/* sum of arrival-to-end times */
	u64 dist_q10;		/* sum of seek distances, 1/1024 cylinder */
	u64 late;		/* sum of delivery lateness */
	u64 late_n;
	u64 hits;		/* reads served from the read-ahead cache */
};

struct ssad_ctx {
	struct dm_target *ti;
	struct dm_dev *dev;
	sector_t offset;
	dev_t devt;

	struct ssad_params table;	/* as the table gave it */
	struct ssad_params model;	/* ... with time_scale applied */
	u32 sched;
	u32 queue_limit;		/* accesses LOOK may choose from; 0 all */
	u32 time_scale;			/* per mille */
	u64 seed;
	bool spread;

	spinlock_t lock;		/* protects everything below */
	struct ssad_state state;
	struct list_head queue;		/* waiting, in arrival order */
	u32 queued;
	struct ssad_io *cur;		/* in service */
	u64 busy_until;
	bool up;			/* LOOK: the arm sweeps outwards */
	bool draining;			/* suspending: release everything */
	u64 next_id;
	struct bio_list done;		/* served, to send to the device */
	struct ssad_stats stats;
	u32 gen;			/* stats window, bumped by reset_stats */

	struct hrtimer timer;
	struct workqueue_struct *wq;
	struct work_struct submit_work;
};

static inline struct ssad_io *ssad_io(struct bio *bio)
{
	return dm_per_bio_data(bio, sizeof(struct ssad_io));
}

static inline struct bio *ssad_bio(struct ssad_io *io)
{
	return dm_bio_from_per_bio_data(io, sizeof(struct ssad_io));
}

/* -- the server -------------------------------------------------------- */

/* LOOK: nearest cylinder in the sweep direction, else turn round. */
static struct ssad_io *ssad_look(struct ssad_ctx *sc)
{
	struct ssad_io *io, *best = NULL, *back = NULL;
	u32 head = sc->state.cyl, n = 0;

	list_for_each_entry(io, &sc->queue, list) {
		if (sc->queue_limit && n++ == sc->queue_limit)
			break;
		if (sc->up ? io->cyl >= head : io->cyl <= head) {
			if (!best || (sc->up ? io->cyl < best->cyl
					     : io->cyl > best->cyl))
				best = io;
		} else if (!back || (sc->up ? io->cyl > back->cyl
					    : io->cyl < back->cyl)) {
			back = io;
		}
	}
	if (!best && back)
		sc->up = !sc->up;
	return best ?: back;
}

static struct ssad_io *ssad_pick(struct ssad_ctx *sc)
{
	if (list_empty(&sc->queue))
		return NULL;
	if (sc->sched == SSAD_LOOK)
		return ssad_look(sc);
	return list_first_entry(&sc->queue, struct ssad_io, list);
}

/* Put the next access in service; false if none is waiting. */
static bool ssad_start_next(struct ssad_ctx *sc)
{
	struct ssad_io *io = ssad_pick(sc);
	struct ssad_cost cost;

	if (!io)
		return false;
	list_del(&io->list);
	sc->queued--;
	io->start = max(io->arrival, sc->busy_until);
	ssad_service(&sc->model, &sc->state, io->op, io->sector, io->len,
		     io->start, &cost);
	io->end = io->start + cost.total;
	io->hit = cost.hit;
	io->dist_q10 = cost.dist_q10;
	sc->cur = io;
	trace_ssadisk_service_start(sc->devt, io->id, io->op, io->dsector,
				    io->len, io->arrival, io->start,
				    io->end, cost.seek, cost.rot, cost.xfer,
				    cost.dist_q10);
	return true;
}

static void ssad_finish(struct ssad_ctx *sc)
{
	struct ssad_io *io = sc->cur;
	struct ssad_stats *st = &sc->stats;
	u64 svc = io->end - io->start;

	st->ios++;
	if (io->op)
		st->writes++;
	else
		st->reads++;
	st->busy += svc;
	if (io->end > st->first)
		st->busy_in += io->end - max(io->start, st->first);
	st->last = io->end;
	st->svc_sq += mul_u64_u64_shr(svc, svc, 20);
	st->resp += io->end - io->arrival;
	st->dist_q10 += io->dist_q10;
	st->hits += io->hit;
	io->gen = sc->gen;
	trace_ssadisk_service_end(sc->devt, io->id, io->op, io->dsector,
				  io->len, io->start, io->end);
	sc->busy_until = io->end;
	bio_list_add(&sc->done, ssad_bio(io));
	sc->cur = NULL;
}

/*
 * End every service whose deadline has passed and start the next ones;
 * true if bios are ready for the device.  Called with the lock held.
 */
static bool ssad_advance(struct ssad_ctx *sc, u64 now)
{
	bool ready = false;

	for (;;) {
		if (!sc->cur && !ssad_start_next(sc))
			break;
		if (sc->cur->end > now)
			break;
		ssad_finish(sc);
		ready = true;
	}
	return ready;
}

static enum hrtimer_restart ssad_timer_fn(struct hrtimer *timer)
{
	struct ssad_ctx *sc = container_of(timer, struct ssad_ctx, timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&sc->lock, flags);
	ready = ssad_advance(sc, ktime_get_ns());
	if (sc->cur) {
		hrtimer_set_expires(timer, ns_to_ktime(sc->cur->end));
		ret = HRTIMER_RESTART;
	}
	spin_unlock_irqrestore(&sc->lock, flags);
	if (ready)
		queue_work(sc->wq, &sc->submit_work);
	return ret;
}

/*
 * Bring the model up to @now, as the timer does when it fires: a status or
 * a reset then sees every service that has ended by @now, not only those
 * whose (possibly late) timer has run.  While an access is in service the
 * timer is set for its end, which is then past: it fires and sets itself
 * for whatever is in service by then.  Lock held; true if bios are ready.
 */
static bool ssad_catch_up(struct ssad_ctx *sc, u64 now)
{
	return !sc->draining && sc->cur && ssad_advance(sc, now);
}

/* Send served bios to the backing device, in the order they were served. */
static void ssad_submit_work(struct work_struct *work)
{
	struct ssad_ctx *sc = container_of(work, struct ssad_ctx, submit_work);
	u64 late = 0, late_n = 0, now;
	struct bio_list list;
	struct bio *bio;
	u32 gen;

	spin_lock_irq(&sc->lock);
	list = sc->done;
	bio_list_init(&sc->done);
	gen = sc->gen;
	spin_unlock_irq(&sc->lock);

	now = ktime_get_ns();
	while ((bio = bio_list_pop(&list))) {
		struct ssad_io *io = ssad_io(bio);

		/* the accesses the status counts: modelled, in this window */
		if (io->end && io->gen == gen) {
			late += now > io->end ? now - io->end : 0;
			late_n++;
		}
		dm_submit_bio_remap(bio, NULL);
	}
	if (late_n) {
		spin_lock_irq(&sc->lock);
		if (sc->gen == gen) {
			sc->stats.late += late;
			sc->stats.late_n += late_n;
		}
		spin_unlock_irq(&sc->lock);
	}
}

static int ssad_map(struct dm_target *ti, struct bio *bio)
{
	struct ssad_ctx *sc = ti->private;
	struct ssad_io *io = ssad_io(bio);
	enum req_op op = bio_op(bio);
	sector_t dsector = bio->bi_iter.bi_sector;
	sector_t sector = dm_target_offset(ti, dsector);
	unsigned long flags;
	bool ready = false;
	u64 now;

	bio_set_dev(bio, sc->dev->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = sc->offset + sector;
	if ((op != REQ_OP_READ && op != REQ_OP_WRITE) || !bio_sectors(bio))
		return DM_MAPIO_REMAPPED;

	io->len = bio_sectors(bio);
	io->op = op == REQ_OP_WRITE;
	io->dsector = dsector;
	io->sector = sc->spread ? mul_u64_u64_div_u64(sector, sc->model.capacity,
						      ti->len) : sector;
	io->cyl = sc->model.mode == SSAD_MECHANICAL ?
		  ssad_cylinder(&sc->model, io->sector) : 0;

	spin_lock_irqsave(&sc->lock, flags);
	if (unlikely(sc->draining)) {
		spin_unlock_irqrestore(&sc->lock, flags);
		return DM_MAPIO_REMAPPED;
	}
	now = ktime_get_ns();
	io->arrival = now;
	io->end = 0;
	io->id = sc->next_id++;
	if (!sc->stats.open) {
		sc->stats.open = true;
		sc->stats.first = now;
	}
	list_add_tail(&io->list, &sc->queue);
	sc->queued++;
	if (!sc->cur) {
		ready = ssad_advance(sc, now);
		if (sc->cur)
			hrtimer_start(&sc->timer, ns_to_ktime(sc->cur->end),
				      HRTIMER_MODE_ABS);
	}
	spin_unlock_irqrestore(&sc->lock, flags);
	if (ready)
		queue_work(sc->wq, &sc->submit_work);
	return DM_MAPIO_SUBMITTED;
}

/*
 * Suspend (and so removal) must not wait for the model to drain a long
 * queue: release every access to the device now, unmodelled, and let new
 * ones through until resume.
 */
static void ssad_presuspend(struct dm_target *ti)
{
	struct ssad_ctx *sc = ti->private;
	struct ssad_io *io, *tmp;

	spin_lock_irq(&sc->lock);
	sc->draining = true;
	if (sc->cur) {
		sc->cur->end = 0;
		bio_list_add(&sc->done, ssad_bio(sc->cur));
		sc->cur = NULL;
	}
	list_for_each_entry_safe(io, tmp, &sc->queue, list) {
		list_del(&io->list);
		bio_list_add(&sc->done, ssad_bio(io));
	}
	sc->queued = 0;
	spin_unlock_irq(&sc->lock);

	hrtimer_cancel(&sc->timer);
	queue_work(sc->wq, &sc->submit_work);
}

static void ssad_postsuspend(struct dm_target *ti)
{
	struct ssad_ctx *sc = ti->private;

	flush_workqueue(sc->wq);
}

/* Model again: after resume, or when the suspend did not happen. */
static void ssad_resume(struct dm_target *ti)
{
	struct ssad_ctx *sc = ti->private;

	spin_lock_irq(&sc->lock);
	sc->draining = false;
	spin_unlock_irq(&sc->lock);
}

/* -- table parsing ----------------------------------------------------- */

struct ssad_preset {
	const char *name;
	struct ssad_params p;
};

#define US	1000ULL
#define MS	(1000 * US)

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
		.seek_a = 3 * MS, .seek_b = 500 * US, .rotation = 16666667 /* 3600 rpm */,
		.block_time = 1300 * US, .block_sectors = 8,
	} },
	{ "ssa1999", {		/* seed 000, Table 1 */
		.mode = SSAD_MECHANICAL, .cylinders = 4390, .heads = 8,
		.nr_zones = 1, .zone = { { .spt = 135 } },
		.seek_a = 2 * MS, .seek_b = 192 * US, .rotation = 8333333 /* 7200 rpm */,
		.block_time = 493827, .block_sectors = 8,
	} },
	{ "cheetah73", {	/* seed 001, Table 1 and section 5.1 */
		.mode = SSAD_MECHANICAL, .cylinders = 16454, .heads = 24,
		.nr_zones = 1, .zone = { { .spt = 363 } },
		.seek_a = 1 * MS, .seek_b = 74 * US, .settle = 500 * US,
		.rotation = 6000000 /* 10000 rpm */, .block_time = 132129,
		.block_sectors = 8,
	} },
};

static const char *const ssad_modes[] = { "mechanical", "stochastic", NULL };
static const char *const ssad_scheds[] = { "fifo", "look", NULL };

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
		{ "ns", 1 }, { "us", US }, { "ms", MS }, { "s", SSAD_NS_PER_S },
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

static int ssad_parse_args(struct ssad_ctx *sc, struct dm_arg_set *as,
			   char **error)
{
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
		if (ssad_parse_one(sc, &args, error))
			return -EINVAL;
	}
	return 0;
}

static int ssad_check(struct ssad_ctx *sc, char **error)
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

/*
 * Construct: <dev> <offset> [<#args> <args>...]
 */
static int ssad_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	struct ssad_ctx *sc;
	u64 offset;
	int r;

	if (argc < 2) {
		ti->error = "Invalid argument count: expected <dev> <offset> [<#args> <args>...]";
		return -EINVAL;
	}
	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc) {
		ti->error = "Cannot allocate ssadisk context";
		return -ENOMEM;
	}
	sc->ti = ti;
	spin_lock_init(&sc->lock);
	INIT_LIST_HEAD(&sc->queue);
	bio_list_init(&sc->done);
	INIT_WORK(&sc->submit_work, ssad_submit_work);
	ssa_hrtimer_setup(&sc->timer, ssad_timer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_ABS);
	sc->up = true;

	r = ssa_parse_u64(argv[1], &offset);
	if (r == -ERANGE || (!r && offset != (sector_t)offset)) {
		ti->error = "Device offset too large: it does not fit in 64 bits";
		r = -EINVAL;
		goto bad;
	}
	if (r) {
		ti->error = "Invalid device offset: expected a sector number";
		goto bad;
	}
	sc->offset = offset;
	r = dm_get_device(ti, argv[0], dm_table_get_mode(ti->table), &sc->dev);
	if (r) {
		ti->error = "Backing device lookup failed";
		goto bad;
	}
	dm_consume_args(&as, 2);
	sc->seed = ((u64)sc->dev->bdev->bd_dev << 32) ^ sc->offset ^
		   0x55a5d15cULL;
	r = ssad_parse_args(sc, &as, &ti->error);
	if (!r && as.argc) {
		ti->error = "Too many ssadisk arguments: is <#args> right?";
		r = -EINVAL;
	}
	if (!r)
		r = ssad_check(sc, &ti->error);
	if (r)
		goto bad_dev;

	sc->wq = alloc_workqueue("kssadisk", WQ_MEM_RECLAIM | WQ_HIGHPRI, 1);
	if (!sc->wq) {
		ti->error = "Cannot allocate ssadisk workqueue";
		r = -ENOMEM;
		goto bad_dev;
	}
	sc->devt = disk_devt(dm_disk(dm_table_get_md(ti->table)));
	ssad_state_init(&sc->state, sc->seed, ktime_get_ns());

	ti->private = sc;
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct ssad_io);
	return 0;

bad_dev:
	dm_put_device(ti, sc->dev);
bad:
	kfree(sc);
	return r;
}

static void ssad_dtr(struct dm_target *ti)
{
	struct ssad_ctx *sc = ti->private;

	hrtimer_cancel(&sc->timer);
	destroy_workqueue(sc->wq);
	dm_put_device(ti, sc->dev);
	kfree(sc);
}

/* -- status and messages ----------------------------------------------- */

/* A time in the largest unit that shows it exactly. */
static void ssad_fmt_time(char *buf, size_t len, u64 ns)
{
	if (ns && !(ns % MS))
		snprintf(buf, len, "%llums", ns / MS);
	else if (ns && !(ns % US))
		snprintf(buf, len, "%lluus", ns / US);
	else
		snprintf(buf, len, "%lluns", ns);
}

/* @num / @den with three decimals, as "<int>.<ddd>". */
static void ssad_fmt_ratio(char *buf, size_t len, u64 num, u64 den)
{
	u64 v = den ? mul_u64_u64_div_u64(num, 1000, den) : 0;

	snprintf(buf, len, "%llu.%03llu", v / 1000, v % 1000);
}

static unsigned int ssad_emit_table(struct ssad_ctx *sc, char *result,
				    unsigned int maxlen, unsigned int sz)
{
	const struct ssad_params *p = &sc->table;
	unsigned int i, n = 34 + (p->nr_zones > 1 ? 2 + 2 * p->nr_zones : 2) +
			    sc->spread;
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
	DMEMIT(" queue_limit %u time_scale %u.%03u seed %llu%s",
	       sc->queue_limit, sc->time_scale / 1000, sc->time_scale % 1000,
	       sc->seed, sc->spread ? " spread" : "");
	return sz;
}

static void ssad_status(struct dm_target *ti, status_type_t type,
			unsigned int status_flags, char *result,
			unsigned int maxlen)
{
	struct ssad_ctx *sc = ti->private;
	char el[24], svc[24], resp[24], seek[24], late[24];
	struct ssad_stats st;
	unsigned int sz = 0;
	u64 now, elapsed = 0, busy, util, m2;
	bool ready;
	u32 queued;

	switch (type) {
	case STATUSTYPE_INFO:
		/*
		 * The window on the model's timeline (struct ssad_stats): to
		 * now, with the part of the current service done by now, while
		 * the disk is busy; to the end of the last service when idle.
		 */
		spin_lock_irq(&sc->lock);
		now = ktime_get_ns();
		ready = ssad_catch_up(sc, now);
		st = sc->stats;
		queued = sc->queued;
		busy = st.busy_in;
		if (st.open && sc->cur) {
			elapsed = now - st.first;
			busy += now - min(now, max(sc->cur->start, st.first));
		} else if (st.open && st.last > st.first) {
			elapsed = st.last - st.first;
		}
		spin_unlock_irq(&sc->lock);
		if (ready)
			queue_work(sc->wq, &sc->submit_work);
		util = elapsed ? mul_u64_u64_div_u64(min(busy, elapsed), 10000,
						     elapsed) : 0;
		m2 = st.ios ? mul_u64_u64_div_u64(st.svc_sq, 1 << 20,
						  st.ios * 1000000) : 0;
		ssad_fmt_ratio(el, sizeof(el), elapsed, MS);
		ssad_fmt_ratio(svc, sizeof(svc), st.busy, st.ios * US);
		ssad_fmt_ratio(resp, sizeof(resp), st.resp, st.ios * US);
		ssad_fmt_ratio(seek, sizeof(seek), st.dist_q10, st.ios * 1024);
		ssad_fmt_ratio(late, sizeof(late), st.late, st.late_n * US);
		DMEMIT("%s %s %llu %llu %llu %u %s %llu.%04llu %s %llu %s %s %s %llu",
		       ssad_modes[sc->table.mode], ssad_scheds[sc->sched],
		       st.ios, st.reads, st.writes, queued, el,
		       util / 10000, util % 10000, svc, m2, resp, seek, late,
		       st.hits);
		break;
	case STATUSTYPE_TABLE:
		sz = ssad_emit_table(sc, result, maxlen, sz);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",device_name=%s,offset=%llu,mode=%s,time_scale=%u;",
		       sc->dev->name, (unsigned long long)sc->offset,
		       ssad_modes[sc->table.mode], sc->time_scale);
		break;
	}
}

static int ssad_message(struct dm_target *ti, unsigned int argc, char **argv,
			char *result, unsigned int maxlen)
{
	struct ssad_ctx *sc = ti->private;
	bool ready;
	u64 now;

	if (argc == 1 && !strcasecmp(argv[0], "reset_stats")) {
		spin_lock_irq(&sc->lock);
		now = ktime_get_ns();
		ready = ssad_catch_up(sc, now);
		memset(&sc->stats, 0, sizeof(sc->stats));
		sc->gen++;
		/* busy now: the window opens here, with the rest of that service */
		if (sc->cur) {
			sc->stats.open = true;
			sc->stats.first = now;
		}
		spin_unlock_irq(&sc->lock);
		if (ready)
			queue_work(sc->wq, &sc->submit_work);
		return 0;
	}
	DMWARN("unrecognised message '%s' (expected reset_stats)",
	       argc ? argv[0] : "");
	return -EINVAL;
}

static int ssad_iterate_devices(struct dm_target *ti,
				iterate_devices_callout_fn fn, void *data)
{
	struct ssad_ctx *sc = ti->private;

	return fn(ti, sc->dev, sc->offset, ti->len, data);
}

static struct target_type ssad_target = {
	.name = "ssadisk",
	.version = { 1, 2, 0 },
	.module = THIS_MODULE,
	.ctr = ssad_ctr,
	.dtr = ssad_dtr,
	.map = ssad_map,
	.presuspend = ssad_presuspend,
	.presuspend_undo = ssad_resume,
	.postsuspend = ssad_postsuspend,
	.resume = ssad_resume,
	.status = ssad_status,
	.message = ssad_message,
	.iterate_devices = ssad_iterate_devices,
};

int ssadisk_register(void)
{
	return dm_register_target(&ssad_target);
}

void ssadisk_unregister(void)
{
	dm_unregister_target(&ssad_target);
}
