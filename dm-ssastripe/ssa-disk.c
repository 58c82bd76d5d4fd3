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
 * An access longer than the table's max_transfer is served as consecutive
 * commands, back to back, the disk held for all of them: each command's
 * cost is computed when it starts (at the end of the one before, which
 * its timer marks), so that a channel shared with other disks
 * (ssa-disk-chan.c) is reserved in the order the commands start.
 *
 * The status figures are the model's too: they cover a window of the
 * model's own timeline, from the first arrival after creation or
 * reset_stats to the end of the last service (or to now while one is in
 * service), not the guest's time around it.  See ssad_status().
 *
 * Flushes, discards and write-zeroes go straight through: the modelled disk
 * has no write cache to flush and models reads and writes only.
 *
 * The table's presets and parsing are in ssa-disk-table.c.  See
 * Documentation/ssadisk.rst.
 */
#include <linux/bio.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "ssa-args.h"
#include "ssa-compat.h"
#include "ssa-disk.h"
#include "ssa-disk-priv.h"

#define CREATE_TRACE_POINTS
#include "ssa-disk-trace.h"

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

/*
 * Start the next command of @io at @start: the access's start, or the end
 * of its command before (back to back, the disk held).  Its cost is the
 * model's, and the channel's, as of @start; the command's end becomes the
 * access's end so far.  The access's ssadisk_service_start goes out when
 * its last command starts, the first moment its end is known.
 */
static void ssad_start_cmd(struct ssad_ctx *sc, struct ssad_io *io, u64 start)
{
	struct ssad_svc *v = &io->svc;
	struct ssad_cost c;
	u32 n;

	n = ssad_command(&sc->model, &sc->state, io->op, io->sector, io->len,
			 io->done, start, &c);
	if (sc->chan)
		ssad_chan_reserve(sc->chan, n, start, &c);
	io->hit = c.hit && (!v->commands || io->hit);
	io->done += n;
	io->end = start + c.total;
	v->commands++;
	v->seek += c.seek;
	v->rot += c.rot;
	v->xfer += c.xfer;
	v->chan += c.chan;
	v->dist_q10 += c.dist_q10;
	if (io->done == io->len)
		trace_ssadisk_service_start(sc->devt, io->id, io->op,
					    io->dsector, io->len, io->arrival,
					    io->start, io->end, v->seek, v->rot,
					    v->xfer, v);
}

/* Put the next access in service; false if none is waiting. */
static bool ssad_start_next(struct ssad_ctx *sc)
{
	struct ssad_io *io = ssad_pick(sc);

	if (!io)
		return false;
	list_del(&io->list);
	sc->queued--;
	io->start = max(io->arrival, sc->busy_until);
	io->done = 0;
	memset(&io->svc, 0, sizeof(io->svc));
	sc->cur = io;
	ssad_start_cmd(sc, io, io->start);
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
	st->dist_q10 += io->svc.dist_q10;
	st->hits += io->hit;
	st->commands += io->svc.commands;
	st->chan += io->svc.chan;
	io->gen = sc->gen;
	trace_ssadisk_service_end(sc->devt, io->id, io->op, io->dsector,
				  io->len, io->start, io->end);
	sc->busy_until = io->end;
	bio_list_add(&sc->done, ssad_bio(io));
	sc->cur = NULL;
}

/*
 * End every command whose deadline has passed and start what follows it:
 * the access's next command, or when it has none the access is served and
 * the next access starts.  True if bios are ready for the device.  Called
 * with the lock held.
 */
static bool ssad_advance(struct ssad_ctx *sc, u64 now)
{
	bool ready = false;

	for (;;) {
		if (!sc->cur && !ssad_start_next(sc))
			break;
		if (sc->cur->end > now)
			break;
		if (sc->cur->done < sc->cur->len) {
			ssad_start_cmd(sc, sc->cur, sc->cur->end);
			continue;
		}
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

/* The modelled disk's sector of sector @sector of the target. */
static u64 ssad_model_sector(struct ssad_ctx *sc, u64 sector)
{
	if (!sc->spread)
		return sector;
	return mul_u64_u64_div_u64(sector, sc->model.capacity, sc->ti->len);
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
	io->sector = ssad_model_sector(sc, sector);
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

/* -- prediction, for the layouts stacked on the disk ------------------- */

/*
 * The disks whose model may be asked (ssad_predict()), by the dev_t of
 * their mapped device: a table is entered at resume when its one target
 * starts at sector 0, and leaves at postsuspend and at its destruction,
 * which waits for an RCU grace period before freeing it.  A table swap
 * enters the new table after the old one has left.  (GFP_NOIO: resume
 * and suspend run while I/O to the device may be held.)
 */
static DEFINE_XARRAY(ssad_registry);

static void ssad_enter(struct ssad_ctx *sc)
{
	if (!sc->ti->begin && sc->model.mode == SSAD_MECHANICAL)
		xa_store(&ssad_registry, sc->devt, sc, GFP_NOIO);
}

static void ssad_leave(struct ssad_ctx *sc)
{
	xa_cmpxchg(&ssad_registry, sc->devt, sc, NULL, GFP_NOIO);
}

/*
 * A copy of the disk's model, for replaying accesses on it: the state,
 * and the channel's busy-until time as it stands (other disks may take
 * the channel before the accesses replayed would).
 */
struct ssad_replay {
	struct ssad_state st;
	u64 chan_busy;
};

/*
 * The commands of an access of @len sectors at @sector from @done on,
 * the first of them starting at @t, on the copy @rp: the access's end.
 */
static u64 ssad_replay(struct ssad_ctx *sc, struct ssad_replay *rp,
		       bool write, u64 sector, u32 len, u32 done, u64 t)
{
	struct ssad_cost cost;
	u32 k;

	while (done < len) {
		k = ssad_command(&sc->model, &rp->st, write, sector, len, done,
				 t, &cost);
		if (sc->chan)
			ssad_channel(&rp->chan_busy, sc->chan_mbps, k, t, &cost);
		done += k;
		t += cost.total;
	}
	return t;
}

/*
 * When the disk would be free of everything it holds, on the copy @rp of
 * its model: the rest of the access in service, then the waiting ones
 * replayed in arrival order.  The disk's lock is held.
 */
static u64 ssad_replay_held(struct ssad_ctx *sc, struct ssad_replay *rp)
{
	struct ssad_io *io, *cur = sc->cur;
	u64 t = sc->busy_until;

	rp->st = sc->state;
	rp->chan_busy = sc->chan ? ssad_chan_busy(sc->chan) : 0;
	if (cur)
		t = ssad_replay(sc, rp, cur->op, cur->sector, cur->len,
				cur->done, cur->end);
	list_for_each_entry(io, &sc->queue, list)
		t = ssad_replay(sc, rp, io->op, io->sector, io->len, 0,
				max(io->arrival, t));
	return t;
}

/*
 * What the disk would do with each of the @n accesses @c if it arrived
 * now, behind everything it holds: the state after the access in
 * service, the waiting ones replayed in arrival order on a copy of the
 * model, then each candidate alone from the moment the disk is free.
 * Returns the index of the candidate that would end first, or -ENODEV
 * when @devt is not an ssadisk that can be asked (none, another target,
 * a stochastic model, suspended).  Any context; takes the disk's lock.
 */
int ssad_predict(dev_t devt, struct ssad_cand *c, unsigned int n,
		 struct ssad_guess *g)
{
	struct ssad_replay held, cand;
	struct ssad_ctx *sc;
	unsigned long flags;
	u64 best_end = U64_MAX;
	int best = -ENODEV;
	unsigned int i;

	rcu_read_lock();
	sc = xa_load(&ssad_registry, devt);
	if (!sc)
		goto out;
	spin_lock_irqsave(&sc->lock, flags);
	if (sc->draining)
		goto unlock;
	g->start = max(ktime_get_ns(), ssad_replay_held(sc, &held));
	g->arm = held.st.cyl;
	/* a shared channel may be taken by another disk in the meantime */
	g->exact = !sc->chan && (sc->sched == SSAD_FIFO || sc->queued <= 1);
	for (i = 0; i < n; i++) {
		u64 sector;

		c[i].end = U64_MAX;
		c[i].cyl = 0;
		if (!c[i].len || c[i].dsector + c[i].len > sc->ti->len)
			continue;
		sector = ssad_model_sector(sc, c[i].dsector);
		cand = held;
		c[i].end = ssad_replay(sc, &cand, c[i].write, sector, c[i].len,
				       0, g->start);
		c[i].cyl = ssad_cylinder(&sc->model, sector);
		if (best < 0 || c[i].end < best_end) {
			best = i;
			best_end = c[i].end;
		}
	}
unlock:
	spin_unlock_irqrestore(&sc->lock, flags);
out:
	rcu_read_unlock();
	return best;
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

	ssad_leave(sc);
	flush_workqueue(sc->wq);
}

/* Model again: after resume, or when the suspend did not happen. */
static void ssad_resume(struct dm_target *ti)
{
	struct ssad_ctx *sc = ti->private;

	spin_lock_irq(&sc->lock);
	sc->draining = false;
	spin_unlock_irq(&sc->lock);
	ssad_enter(sc);
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
	if (!r && sc->chan_name[0])
		r = ssad_chan_get(sc->chan_name, sc->chan_mbps, &sc->chan,
				  &ti->error);
	if (r)
		goto bad_dev;

	sc->wq = alloc_workqueue("kssadisk",
				 WQ_MEM_RECLAIM | WQ_HIGHPRI | SSA_WQ_PERCPU, 1);
	if (!sc->wq) {
		ti->error = "Cannot allocate ssadisk workqueue";
		r = -ENOMEM;
		goto bad_chan;
	}
	sc->devt = disk_devt(dm_disk(dm_table_get_md(ti->table)));
	ssad_state_init(&sc->state, sc->seed, ktime_get_ns());
	ssad_spindle_init(&sc->model, &sc->state);

	ti->private = sc;
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct ssad_io);
	return 0;

bad_chan:
	ssad_chan_put(sc->chan);
bad_dev:
	dm_put_device(ti, sc->dev);
bad:
	kfree(sc);
	return r;
}

static void ssad_dtr(struct dm_target *ti)
{
	struct ssad_ctx *sc = ti->private;

	/* a layout above may be asking the model: let it finish */
	ssad_leave(sc);
	synchronize_rcu();
	hrtimer_cancel(&sc->timer);
	destroy_workqueue(sc->wq);
	ssad_chan_put(sc->chan);
	dm_put_device(ti, sc->dev);
	kfree(sc);
}

/* -- status and messages ----------------------------------------------- */

/* @num / @den with three decimals, as "<int>.<ddd>". */
static void ssad_fmt_ratio(char *buf, size_t len, u64 num, u64 den)
{
	u64 v = den ? mul_u64_u64_div_u64(num, 1000, den) : 0;

	snprintf(buf, len, "%llu.%03llu", v / 1000, v % 1000);
}

static void ssad_status(struct dm_target *ti, status_type_t type,
			unsigned int status_flags, char *result,
			unsigned int maxlen)
{
	struct ssad_ctx *sc = ti->private;
	char el[24], svc[24], resp[24], seek[24], late[24], chan[24];
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
		ssad_fmt_ratio(el, sizeof(el), elapsed, SSAD_MS);
		ssad_fmt_ratio(svc, sizeof(svc), st.busy, st.ios * SSAD_US);
		ssad_fmt_ratio(resp, sizeof(resp), st.resp, st.ios * SSAD_US);
		ssad_fmt_ratio(seek, sizeof(seek), st.dist_q10, st.ios * 1024);
		ssad_fmt_ratio(late, sizeof(late), st.late, st.late_n * SSAD_US);
		ssad_fmt_ratio(chan, sizeof(chan), st.chan,
			       st.commands * SSAD_US);
		DMEMIT("%s %s %llu %llu %llu %u %s %llu.%04llu %s %llu %s %s %s %llu",
		       ssad_modes[sc->table.mode], ssad_scheds[sc->sched],
		       st.ios, st.reads, st.writes, queued, el,
		       util / 10000, util % 10000, svc, m2, resp, seek, late,
		       st.hits);
		DMEMIT(" %llu %s", st.commands, chan);
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
	.version = { 1, 4, 1 },
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
