/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ssadisk: the service-time model of an emulated mechanical disk.
 *
 * Pure functions of the parameters, the disk's state and the time at which
 * an access starts service: no locking, no allocation, no clock reads.  The
 * same source is compiled into the module and into the host unit test
 * (tests/unit/test_disk.c), which checks the geometry, the spindle and the
 * sampled distributions against their closed forms.
 *
 * All times are nanoseconds.  Sectors are 512 bytes.
 */
#ifndef SSA_DISK_MODEL_H
#define SSA_DISK_MODEL_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#else
#include "kcompat.h"
#endif

enum ssad_mode {
	SSAD_MECHANICAL,	/* geometry, head position and spindle phase */
	SSAD_STOCHASTIC,	/* seed 002, section 4.1: random seek and rotation */
};

#define SSAD_MAX_ZONES		32
#define SSAD_MAX_CYLINDERS	BIT(24)
#define SSAD_MAX_HEADS		1024
#define SSAD_MAX_SPT		BIT(16)
#define SSAD_PPM		1000000U	/* probabilities: parts per million */
#define SSAD_MAX_TRANSFER	BIT(17)		/* max_transfer: 64 MiB, in sectors */
#define SSAD_PHASE_RANDOM	U32_MAX		/* phase: drawn from the seed */

/* A band of cylinders recorded with the same number of sectors per track. */
struct ssad_zone {
	u32 cylinders;
	u32 spt;
	/* derived by ssad_model_init() */
	u32 first_cyl;
	u64 first_sector;
};

struct ssad_params {
	u32 mode;		/* enum ssad_mode */
	u32 cylinders;		/* C */
	u32 heads;		/* tracks per cylinder */
	u32 nr_zones;
	struct ssad_zone zone[SSAD_MAX_ZONES];
	u64 seek_a;		/* seek time a + b sqrt(distance), distance > 0 */
	u64 seek_b;		/* ... b: ns per square root of a cylinder */
	u64 settle;		/* added to a write that moves the arm */
	u64 rotation;		/* one revolution (R_max) */
	u64 overhead;		/* command processing, every access */
	u64 block_time;		/* stochastic mode: transfer of one block */
	u32 block_sectors;	/* ... the block, in sectors */
	u32 p_seq;		/* stochastic mode: P{zero seek}, ppm */
	u32 read_ahead;		/* sectors read ahead after a read; 0 no cache */
	u64 hit_time;		/* delivering one block from the cache */
	u32 max_transfer;	/* sectors of one command; 0 no limit */
	u32 phase;		/* spindle angle at load, ppm of a turn, or
				 * SSAD_PHASE_RANDOM (mechanical mode only)
				 */
	/* derived by ssad_model_init() */
	u64 capacity;		/* sectors the geometry holds */
	u64 p_seq_q32;		/* p_seq scaled to 2^32 */
};

/* What the disk remembers between accesses. */
struct ssad_state {
	u64 rng;		/* splitmix64 state */
	/*
	 * The spindle: at the epoch (the table's load) it is phase0 ns into
	 * its turn, so at angle 0 at epoch - phase0 + k R.
	 */
	u64 epoch;
	u64 phase0;
	u32 cyl;		/* arm position (mechanical mode) */
	bool last_valid;
	u64 last_sector;	/* first sector of the last access served */
	u64 last_end;		/* ... and when its transfer ended */
	u64 last_rev;		/* ... and when its first block had passed */
	/*
	 * The read-ahead segment: sectors from seg_start on, read at media
	 * speed from seg_t0 on (one segment: the next miss replaces it).
	 */
	bool seg_valid;
	u64 seg_start;
	u64 seg_t0;
};

/* The cost of one access, and where it left the arm. */
struct ssad_cost {
	u64 seek;
	u64 rot;
	u64 xfer;
	u64 chan;		/* the channel's delay (ssad_channel()) */
	u64 total;		/* overhead + seek + rot + xfer + chan */
	u64 dist_q10;		/* seek distance, 1/1024 cylinder */
	u32 cyl;		/* cylinder of the access (mechanical mode) */
	bool hit;		/* served from the read-ahead cache */
};

const char *ssad_model_init(struct ssad_params *p);
void ssad_state_init(struct ssad_state *s, u64 seed, u64 epoch);
void ssad_spindle_init(const struct ssad_params *p, struct ssad_state *s);
void ssad_scale(struct ssad_params *p, u32 per_mille);

u32 ssad_cylinder(const struct ssad_params *p, u64 sector);
void ssad_locate(const struct ssad_params *p, u64 sector, u32 *cyl, u32 *spt,
		 u32 *index);
u64 ssad_seek_time(const struct ssad_params *p, u64 dist_q10, bool write);
u64 ssad_rand(struct ssad_state *s);
u64 ssad_draw_distance(const struct ssad_params *p, struct ssad_state *s);
u64 ssad_isqrt(u64 x);

void ssad_service(const struct ssad_params *p, struct ssad_state *s,
		  bool write, u64 sector, u32 len, u64 start,
		  struct ssad_cost *c);
u32 ssad_command(const struct ssad_params *p, struct ssad_state *s,
		 bool write, u64 sector, u32 len, u32 done, u64 start,
		 struct ssad_cost *c);
void ssad_channel(u64 *busy_until, u32 mbps, u32 len, u64 start,
		  struct ssad_cost *c);

#endif /* SSA_DISK_MODEL_H */
