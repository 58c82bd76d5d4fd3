/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ssadisk internals shared by its files: ssa-disk.c (the server, the
 * target's map, suspend, status and messages), ssa-disk-table.c (the
 * table: presets, parsing, checks, and the table as status prints it) and
 * ssa-disk-chan.c (the channels that disks share).
 */
#ifndef SSA_DISK_PRIV_H
#define SSA_DISK_PRIV_H

#include <linux/device-mapper.h>
#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ssa-disk-model.h"

#define DM_MSG_PREFIX "ssadisk"

#define SSAD_NS_PER_S		1000000000ULL
#define SSAD_MAX_ARGS		128
#define SSAD_US			1000ULL
#define SSAD_MS			(1000 * SSAD_US)
#define SSAD_CHAN_NAME_MAX	31
#define SSAD_MAX_MBPS		100000

enum ssad_sched {
	SSAD_FIFO,
	SSAD_LOOK,
};

/*
 * The commands of one access, added up (the ssadisk_service_start event
 * reports them).
 */
struct ssad_svc {
	u64 seek;
	u64 rot;
	u64 xfer;
	u64 chan;		/* the channel's delay */
	u64 dist_q10;		/* seek distance, 1/1024 cylinder */
	u32 commands;
};

/* Per-bio data: the access while it waits and while it is served. */
struct ssad_io {
	struct list_head list;
	u64 id;
	u64 arrival;
	u64 start;		/* modelled start of its first command */
	u64 end;		/* modelled end of its latest command started;
				 * 0 if it was released unmodelled
				 */
	u64 sector;		/* on the modelled disk */
	u64 dsector;		/* on the ssadisk device, as submitted */
	struct ssad_svc svc;
	u32 len;
	u32 done;		/* sectors of the commands started */
	u32 cyl;
	u32 gen;		/* the stats window it was counted in */
	u8 op;			/* 0 read, 1 write */
	bool hit;		/* every command served from the read-ahead */
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
	u64 commands;		/* commands of the accesses counted */
	u64 chan;		/* sum of their channel delays */
};

struct ssad_chan;

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
	char chan_name[SSAD_CHAN_NAME_MAX + 1];	/* "" for no channel */
	u32 chan_mbps;			/* the channel's rate, MB/s */
	struct ssad_chan *chan;		/* joined at construction */

	/*
	 * Protects everything below.  Taken with interrupts off (the timer
	 * runs in hard interrupt context).  Lock order: a disk's lock, then
	 * its channel's (ssa-disk-chan.c); never two disks' locks at once.
	 */
	spinlock_t lock;
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

extern const char *const ssad_modes[];
extern const char *const ssad_scheds[];

int ssad_parse_args(struct ssad_ctx *sc, struct dm_arg_set *as, char **error);
int ssad_check(struct ssad_ctx *sc, char **error);
unsigned int ssad_emit_table(struct ssad_ctx *sc, char *result,
			     unsigned int maxlen, unsigned int sz);

int ssad_chan_get(const char *name, u32 mbps, struct ssad_chan **out,
		  char **error);
void ssad_chan_put(struct ssad_chan *ch);
void ssad_chan_reserve(struct ssad_chan *ch, u32 len, u64 start,
		       struct ssad_cost *c);
u64 ssad_chan_busy(struct ssad_chan *ch);

#endif /* SSA_DISK_PRIV_H */
