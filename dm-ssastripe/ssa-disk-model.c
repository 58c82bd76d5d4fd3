// SPDX-License-Identifier: GPL-2.0-only
/*
 * ssadisk: service time of one access on a modelled disk.
 *
 * An access starting service at time t costs, in this order:
 *   overhead  command processing (a constant);
 *   seek      0 for no arm movement, else a + b sqrt(distance) (+ settle
 *             for a write);
 *   rot       until the first sector comes under the head;
 *   xfer      the sectors passing under the head.
 *
 * Mechanical mode derives the distance from the cylinder the arm is on and
 * the rotational wait from the spindle phase, a function of absolute time.
 * Stochastic mode is the disk of seed 002 section 4.1: the distance is 0 with
 * probability p_s, otherwise drawn from the density 2(C - x)/C^2 (continuous,
 * as in the seed), and the rotational latency is uniform on [0, R_max).  An
 * access to the same first sector as the access just served is the
 * exception: its first block comes round R_max after that block's transfer
 * ended (the seed's convention, which makes a single-block
 * read-modify-write cost X + T + R_max + T, eq. 6, and a B-block one
 * X + T + R_max - (B - 1) alpha + T, as eq. 37 has it within a track), or a
 * whole number of rotations later if the access starts later.
 *
 * With read_ahead set, a read that misses leaves the disk reading on, at
 * media speed, into one segment of read_ahead sectors after it.  A read
 * inside the segment is a hit: no seek, a wait until the read-ahead has
 * reached its last sector (if it has not yet), and hit_time per block.
 * The next miss replaces the segment; a write drops it.
 *
 * With max_transfer set, an access longer than that is served as
 * consecutive commands of at most max_transfer sectors (ssad_command()),
 * each costed as above when it starts, at the end of the one before: in
 * mechanical mode the second command's first sector has just passed the
 * head, and it waits almost a turn.
 *
 * The spindle's angle at the epoch (the table's load) is the phase, a
 * fraction of a turn, or one drawn from the disk's random stream
 * (ssad_spindle_init()).
 *
 * A channel shared by several disks (ssad_channel()) is a pure function of
 * its busy-until time: the caller keeps that time and its lock.
 */
#ifdef __KERNEL__
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#endif

#include "ssa-disk-model.h"

/* Largest rotation after scaling: keeps every product below 2^64. */
#define SSAD_MAX_ROTATION	(60ULL * 1000 * 1000 * 1000)
#define SSAD_MAX_TIME		(1000ULL * 1000 * 1000 * 1000)

u64 ssad_isqrt(u64 x)
{
	u64 r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* splitmix64: small, fast, and good enough for service-time draws. */
u64 ssad_rand(struct ssad_state *s)
{
	u64 z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void ssad_state_init(struct ssad_state *s, u64 seed, u64 epoch)
{
	memset(s, 0, sizeof(*s));
	s->rng = seed;
	s->epoch = epoch;
}

/*
 * Set the spindle's angle at the epoch: the fraction p->phase of a turn,
 * or one drawn from the state's random stream (its first draw, so that a
 * table loaded again with the same seed gets the same angle).  Mechanical
 * mode only: stochastic mode has no angle, and draws nothing here.
 */
void ssad_spindle_init(const struct ssad_params *p, struct ssad_state *s)
{
	if (p->mode != SSAD_MECHANICAL)
		return;
	if (p->phase == SSAD_PHASE_RANDOM)
		s->phase0 = mul_u64_u32_shr(p->rotation, ssad_rand(s) >> 32, 32);
	else
		s->phase0 = div_u64(p->rotation * p->phase, SSAD_PPM);
}

/* Check the parameters and derive the zone table; NULL or an error. */
const char *ssad_model_init(struct ssad_params *p)
{
	u64 times[] = { p->seek_a, p->seek_b, p->settle, p->overhead,
			p->block_time, p->hit_time };
	u32 i, cyl = 0;
	u64 sector = 0;

	if (p->cylinders < 2 || p->cylinders > SSAD_MAX_CYLINDERS)
		return "cylinders must be 2 to 16777216";
	if (!p->rotation || p->rotation > SSAD_MAX_ROTATION)
		return "rotation must be longer than 0 and at most 60 s";
	for (i = 0; i < ARRAY_SIZE(times); i++)
		if (times[i] > SSAD_MAX_TIME)
			return "times must be at most 1000 s";
	if (p->p_seq > SSAD_PPM)
		return "p_seq must be a probability (0 to 1)";
	p->p_seq_q32 = ((u64)p->p_seq << 32) / SSAD_PPM;
	if (!p->block_sectors || p->block_sectors > SSAD_MAX_SPT)
		return "block_size must be 512 bytes to 32 MiB, a multiple of 512";
	if (p->heads < 1 || p->heads > SSAD_MAX_HEADS)
		return "heads must be 1 to 1024";
	if (p->nr_zones < 1 || p->nr_zones > SSAD_MAX_ZONES)
		return "zones: 1 to 32 zones";
	if (p->nr_zones == 1 && !p->zone[0].cylinders)
		p->zone[0].cylinders = p->cylinders;
	for (i = 0; i < p->nr_zones; i++) {
		struct ssad_zone *z = &p->zone[i];

		if (!z->cylinders || z->cylinders > p->cylinders - cyl)
			return "zones must cover the cylinders exactly, each zone at least one";
		if (!z->spt || z->spt > SSAD_MAX_SPT)
			return "sectors_per_track must be 1 to 65536";
		if (p->rotation / z->spt < 1)
			return "sectors_per_track too large for the rotation";
		z->first_cyl = cyl;
		z->first_sector = sector;
		cyl += z->cylinders;
		sector += (u64)z->cylinders * p->heads * z->spt;
	}
	if (cyl != p->cylinders)
		return "zones must cover the cylinders exactly, each zone at least one";
	if (p->read_ahead > SSAD_MAX_SPT * 2)
		return "read_ahead must be at most 64 MiB";
	if (p->max_transfer > SSAD_MAX_TRANSFER)
		return "max_transfer must be at most 64 MiB";
	if (p->phase >= SSAD_PPM && p->phase != SSAD_PHASE_RANDOM)
		return "phase must be a fraction of a turn, 0 to 0.999999, or random";
	p->capacity = sector;
	return NULL;
}

/* Multiply every time by per_mille / 1000 (the table's time_scale). */
void ssad_scale(struct ssad_params *p, u32 per_mille)
{
	u64 *t[] = { &p->seek_a, &p->seek_b, &p->settle, &p->rotation,
		     &p->overhead, &p->block_time, &p->hit_time };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		*t[i] = div_u64(*t[i] * per_mille, 1000);
	if (!p->rotation)
		p->rotation = 1;
}

void ssad_locate(const struct ssad_params *p, u64 sector, u32 *cyl, u32 *spt,
		 u32 *index)
{
	const struct ssad_zone *z = &p->zone[p->nr_zones - 1];
	u32 i, track_index;
	u64 track;

	if (sector >= p->capacity)
		sector = p->capacity - 1;
	for (i = 0; i < p->nr_zones; i++) {
		u64 end = p->zone[i].first_sector +
			  (u64)p->zone[i].cylinders * p->heads * p->zone[i].spt;

		if (sector < end) {
			z = &p->zone[i];
			break;
		}
	}
	track = div_u64_rem(sector - z->first_sector, z->spt, &track_index);
	*cyl = z->first_cyl + (u32)div_u64(track, p->heads);
	*spt = z->spt;
	*index = track_index;
}

u32 ssad_cylinder(const struct ssad_params *p, u64 sector)
{
	u32 cyl, spt, index;

	ssad_locate(p, sector, &cyl, &spt, &index);
	return cyl;
}

/* a + b sqrt(d) for d > 0, with d in 1/1024 cylinder; sqrt to 1/65536. */
u64 ssad_seek_time(const struct ssad_params *p, u64 dist_q10, bool write)
{
	u64 root_q16;

	if (!dist_q10)
		return 0;
	root_q16 = ssad_isqrt(dist_q10 << 22);
	return p->seek_a + ((p->seek_b * root_q16) >> 16) +
	       (write ? p->settle : 0);
}

/*
 * Seek distance of stochastic mode, 1/1024 cylinder: 0 with probability
 * p_s, otherwise the inverse of F(x) = 1 - (1 - x/C)^2 at a uniform u,
 * x = C (1 - sqrt(1 - u)).
 */
u64 ssad_draw_distance(const struct ssad_params *p, struct ssad_state *s)
{
	u64 v, root_q31;

	if ((ssad_rand(s) >> 32) < p->p_seq_q32)
		return 0;
	v = (1ULL << 32) - (ssad_rand(s) >> 32);	/* 1 - u, in (0, 1] Q32 */
	root_q31 = ssad_isqrt(v << 30);			/* sqrt(1 - u), Q31 */
	return ((u64)p->cylinders * ((1ULL << 31) - root_q31)) >> 21;
}

static void ssad_stochastic(const struct ssad_params *p, struct ssad_state *s,
			    bool write, u64 sector, u32 len, u64 t,
			    struct ssad_cost *c)
{
	if (s->last_valid && sector == s->last_sector) {
		u64 round = s->last_rev + p->rotation;

		if (t > round)
			round += div64_u64(t - round + p->rotation - 1,
					   p->rotation) * p->rotation;
		c->rot = round - t;
	} else {
		c->dist_q10 = ssad_draw_distance(p, s);
		c->seek = ssad_seek_time(p, c->dist_q10, write);
		c->rot = mul_u64_u32_shr(p->rotation, ssad_rand(s) >> 32, 32);
	}
	c->xfer = div_u64(p->block_time * len, p->block_sectors);
}

static void ssad_mechanical(const struct ssad_params *p, struct ssad_state *s,
			    bool write, u64 sector, u32 len, u64 t,
			    struct ssad_cost *c)
{
	u32 cyl, spt, index;
	u64 phase, target;

	ssad_locate(p, sector, &cyl, &spt, &index);
	c->cyl = cyl;
	c->dist_q10 = (u64)(cyl > s->cyl ? cyl - s->cyl : s->cyl - cyl) << 10;
	c->seek = ssad_seek_time(p, c->dist_q10, write);
	t += c->seek;

	/* where the spindle is, and where the first sector is, in ns */
	div64_u64_rem(t - s->epoch + s->phase0, p->rotation, &phase);
	target = div_u64(p->rotation * index, spt);
	c->rot = target >= phase ? target - phase
				 : target + p->rotation - phase;
	c->xfer = div_u64(p->rotation * len, spt);
	s->cyl = ssad_cylinder(p, sector + (len ? len - 1 : 0));
}

/* Media time of one sector where the read-ahead segment lies. */
static u64 ssad_sector_time(const struct ssad_params *p, u64 sector)
{
	u32 cyl, spt, index;

	if (p->mode == SSAD_STOCHASTIC)
		return div_u64(p->block_time, p->block_sectors);
	ssad_locate(p, sector, &cyl, &spt, &index);
	return div_u64(p->rotation, spt);
}

/* A read inside the read-ahead segment: true, and its cost, if a hit. */
static bool ssad_cache_hit(const struct ssad_params *p,
			   const struct ssad_state *s, u64 sector, u32 len,
			   u64 t, struct ssad_cost *c)
{
	u64 ready;

	if (!p->read_ahead || !s->seg_valid || sector < s->seg_start ||
	    sector + len > s->seg_start + p->read_ahead)
		return false;
	ready = s->seg_t0 + (sector + len - s->seg_start) *
			    ssad_sector_time(p, s->seg_start);
	c->rot = ready > t ? ready - t : 0;
	c->xfer = div_u64(p->hit_time * len, p->block_sectors);
	c->hit = true;
	return true;
}

/*
 * Cost of an access of @len sectors at @sector that starts service at
 * @start (ns, on the clock of the state's epoch); updates the state.
 */
void ssad_service(const struct ssad_params *p, struct ssad_state *s,
		  bool write, u64 sector, u32 len, u64 start,
		  struct ssad_cost *c)
{
	u64 t = start + p->overhead;

	memset(c, 0, sizeof(*c));
	if (!write && ssad_cache_hit(p, s, sector, len, t, c)) {
		c->total = p->overhead + c->rot + c->xfer;
		return;
	}
	if (p->mode == SSAD_STOCHASTIC)
		ssad_stochastic(p, s, write, sector, len, t, c);
	else
		ssad_mechanical(p, s, write, sector, len, t, c);
	c->total = p->overhead + c->seek + c->rot + c->xfer;
	s->last_valid = true;
	s->last_sector = sector;
	s->last_end = start + c->total;
	s->last_rev = s->last_end;
	if (p->mode == SSAD_STOCHASTIC && len > p->block_sectors)
		s->last_rev -= c->xfer - p->block_time;
	s->seg_valid = p->read_ahead && !write;
	if (s->seg_valid) {
		s->seg_start = sector + len;
		s->seg_t0 = s->last_end;
	}
}

/*
 * The next command of an access of @len sectors at @sector of which @done
 * are served: at most max_transfer sectors from @sector + @done on, which
 * starts at @start (the end of the command before, or of the access
 * before).  Its cost goes to @c; returns its length in sectors.
 */
u32 ssad_command(const struct ssad_params *p, struct ssad_state *s,
		 bool write, u64 sector, u32 len, u32 done, u64 start,
		 struct ssad_cost *c)
{
	u32 n = len - done;

	if (p->max_transfer && n > p->max_transfer)
		n = p->max_transfer;
	ssad_service(p, s, write, sector + done, n, start, c);
	return n;
}

/*
 * The command costed in @c, of @len sectors, started at @start, moves its
 * data over a channel of @mbps MB/s (10^6 bytes/s) that other disks share,
 * cut-through and first come first served: the data needs len / rate of
 * the channel, from no earlier than the command's media transfer begins
 * (start + overhead + seek + rot) and no earlier than the channel is free
 * (*@busy_until, which becomes the end of this reservation).  The command
 * ends at the later of its media end and its channel end: c->chan is the
 * difference, and is added to c->total.
 */
void ssad_channel(u64 *busy_until, u32 mbps, u32 len, u64 start,
		  struct ssad_cost *c)
{
	u64 media_end = start + c->total;
	u64 from = max(media_end - c->xfer, *busy_until);
	u64 end = from + div_u64((u64)len * 512 * 1000, mbps);

	*busy_until = end;
	c->chan = end > media_end ? end - media_end : 0;
	c->total += c->chan;
}
