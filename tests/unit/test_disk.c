// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of ssadisk's service-time model (ssa-disk-model.c): the
 * geometry, the spindle, the seed-002 conventions, the sampled seek and
 * rotation distributions against their closed forms, and the seed-000
 * features: commands of at most max_transfer, the spindle's phase at
 * load, and the channel shared by several disks.  Prints TAP.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ssa-disk-model.h"
#include "tap.h"

static bool close_rel(double got, double want, double tol)
{
	return fabs(got - want) <= tol * fabs(want);
}

#define MS 1000000ULL

/* The disk of seed 002: C = 1200, a = 3 ms, b = 0.5 ms, R = 16.7 ms. */
static struct ssad_params ct1992(u32 p_seq)
{
	struct ssad_params p = {
		.mode = SSAD_STOCHASTIC, .cylinders = 1200, .heads = 16,
		.nr_zones = 1, .zone = { { .spt = 102 } },
		.seek_a = 3 * MS, .seek_b = MS / 2, .rotation = 16700000,
		.block_time = 1300000, .block_sectors = 8, .p_seq = p_seq,
	};

	if (ssad_model_init(&p))
		abort();
	return p;
}

static void test_isqrt(void)
{
	bool ok = true;
	u64 i;

	for (i = 0; i < 100000 && ok; i++)
		ok = ssad_isqrt(i * i) == i && (!i || ssad_isqrt(i * i - 1) == i - 1);
	ok = ok && ssad_isqrt(~0ULL) == 0xffffffffULL;
	ok = ok && ssad_isqrt(1ULL << 62) == 1ULL << 31;
	tap(ok, "isqrt is exact on squares, their predecessors and the extremes");
}

static void test_bad_params(void)
{
	static const struct {
		const char *what;
		struct ssad_params p;
	} bad[] = {
		{ "one cylinder", { .cylinders = 1, .heads = 1, .nr_zones = 1,
		  .zone = { { .spt = 8 } }, .rotation = MS, .block_sectors = 8 } },
		{ "no rotation", { .cylinders = 10, .heads = 1, .nr_zones = 1,
		  .zone = { { .spt = 8 } }, .block_sectors = 8 } },
		{ "zones short", { .cylinders = 10, .heads = 1, .nr_zones = 2,
		  .zone = { { 4, 8 }, { 4, 8 } }, .rotation = MS, .block_sectors = 8 } },
		{ "zones long", { .cylinders = 10, .heads = 1, .nr_zones = 2,
		  .zone = { { 4, 8 }, { 7, 8 } }, .rotation = MS, .block_sectors = 8 } },
		{ "zero spt", { .cylinders = 10, .heads = 1, .nr_zones = 1,
		  .rotation = MS, .block_sectors = 8 } },
		{ "no heads", { .cylinders = 10, .nr_zones = 1,
		  .zone = { { .spt = 8 } }, .rotation = MS, .block_sectors = 8 } },
		{ "p_seq > 1", { .cylinders = 10, .heads = 1, .nr_zones = 1,
		  .zone = { { .spt = 8 } }, .rotation = MS, .block_sectors = 8,
		  .p_seq = SSAD_PPM + 1 } },
		{ "spt beyond rotation", { .cylinders = 10, .heads = 1,
		  .nr_zones = 1, .zone = { { .spt = 8 } }, .rotation = 4,
		  .block_sectors = 8 } },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct ssad_params p = bad[i].p;
		const char *err = ssad_model_init(&p);

		tap(err != NULL, "refused: %s (%s)", bad[i].what, err ? err : "accepted");
	}
}

static void test_geometry(void)
{
	struct ssad_params p = {
		.mode = SSAD_MECHANICAL, .cylinders = 10, .heads = 2,
		.nr_zones = 2, .zone = { { 4, 8 }, { 6, 5 } },
		.rotation = 8 * MS, .block_sectors = 8,
	};
	u32 cyl, spt, index;
	bool ok;

	tap(!ssad_model_init(&p), "two-zone geometry accepted");
	tap(p.capacity == 4 * 2 * 8 + 6 * 2 * 5, "capacity sums the zones (%llu)",
	    (unsigned long long)p.capacity);
	ssad_locate(&p, 0, &cyl, &spt, &index);
	ok = cyl == 0 && spt == 8 && index == 0;
	ssad_locate(&p, 15, &cyl, &spt, &index);	/* head 1, last sector */
	ok = ok && cyl == 0 && index == 7;
	ssad_locate(&p, 16, &cyl, &spt, &index);
	ok = ok && cyl == 1 && index == 0;
	ssad_locate(&p, 63, &cyl, &spt, &index);	/* last of zone 0 */
	ok = ok && cyl == 3 && spt == 8 && index == 7;
	ssad_locate(&p, 64, &cyl, &spt, &index);	/* first of zone 1 */
	ok = ok && cyl == 4 && spt == 5 && index == 0;
	ssad_locate(&p, 64 + 13, &cyl, &spt, &index);	/* cyl 5, head 0, 3 */
	ok = ok && cyl == 5 && index == 3;
	ssad_locate(&p, p.capacity - 1, &cyl, &spt, &index);
	ok = ok && cyl == 9 && index == 4;
	tap(ok, "sectors map to cylinder, zone and track index");
}

static void test_mechanical_spindle(void)
{
	struct ssad_params p = {
		.mode = SSAD_MECHANICAL, .cylinders = 100, .heads = 1,
		.nr_zones = 1, .zone = { { .spt = 10 } }, .rotation = 10 * MS,
		.seek_a = MS, .seek_b = MS / 10, .settle = MS / 2,
		.block_sectors = 8,
	};
	struct ssad_state s;
	struct ssad_cost c;

	ssad_model_init(&p);
	ssad_state_init(&s, 1, 0);
	/* at t = 0 the head is over sector 0 of cylinder 0 */
	ssad_service(&p, &s, false, 3, 2, 0, &c);
	tap(c.seek == 0 && c.rot == 3 * MS && c.xfer == 2 * MS &&
	    c.total == 5 * MS, "rotational wait is the angle to the sector");
	/* the next sector, at once: no wait */
	ssad_service(&p, &s, false, 5, 1, 5 * MS, &c);
	tap(c.rot == 0 && c.total == MS, "a sequential continuation waits for nothing");
	/* same sector again: almost a full turn */
	ssad_service(&p, &s, true, 5, 1, 6 * MS, &c);
	tap(c.rot == 9 * MS && c.total == 10 * MS,
	    "re-reading the sector just passed waits R - T");
	/* 16 cylinders away: a + b * 4, plus the write settle */
	ssad_service(&p, &s, true, 16 * 10, 1, 20 * MS, &c);
	tap(c.seek == MS + 4 * MS / 10 + MS / 2 && c.dist_q10 == 16 << 10,
	    "seek a + b sqrt(d) + settle for a write (%llu ns)",
	    (unsigned long long)c.seek);
	/* after the 1.9 ms seek the spindle is at 1.9 ms: sector 0 is 8.1 away */
	tap(c.rot == 10 * MS - (MS + 4 * MS / 10 + MS / 2),
	    "rotation after a seek uses the spindle phase at its end");
	ssad_service(&p, &s, false, 16 * 10 + 2, 1, 40 * MS, &c);
	tap(c.seek == 0 && c.rot == 2 * MS, "no seek within the cylinder");
}

static void test_seed002_rotation(void)
{
	struct ssad_params p = ct1992(0);
	struct ssad_state s;
	struct ssad_cost r, w, late;
	u64 t;

	ssad_state_init(&s, 7, 0);
	ssad_service(&p, &s, false, 4096, 8, 0, &r);
	ssad_service(&p, &s, true, 4096, 8, r.total, &w);
	tap(w.seek == 0 && w.rot == p.rotation && w.xfer == 1300000,
	    "read then write of the block: the write costs R_max + T (eq. 6)");
	tap(r.total + w.total == r.seek + r.rot + 2 * 1300000 + p.rotation,
	    "together X + T + R_max + T");
	/* a write issued 1.5 rotations after the read waits for the 2nd turn */
	t = s.last_end;
	ssad_service(&p, &s, true, 4096, 8, t + p.rotation + p.rotation / 2, &late);
	tap(late.rot == p.rotation / 2 + (p.rotation & 1),
	    "a late write waits for a further whole rotation (%llu ns)",
	    (unsigned long long)late.rot);
	/* four blocks: the first comes round R_max after it passed (eq. 37) */
	ssad_service(&p, &s, false, 8192, 32, 100 * p.rotation, &r);
	ssad_service(&p, &s, true, 8192, 32, 100 * p.rotation + r.total, &w);
	tap(w.seek == 0 && w.rot == p.rotation - 3 * 1300000 && w.xfer == 4 * 1300000,
	    "read then write of four blocks: the write waits R_max - 3 alpha (%llu ns)",
	    (unsigned long long)w.rot);
}

/* Sampled X = S + R against the closed forms of seed 002 section 4.1. */
static void test_stochastic_moments(u32 p_seq)
{
	const int n = 2000000;
	struct ssad_params p = ct1992(p_seq);
	double c = p.cylinders, a = p.seek_a, b = p.seek_b, R = p.rotation;
	double q = 1.0 - p_seq / 1e6, es, es2, ex, ex2, m1 = 0, m2 = 0, d1 = 0;
	double zero = 0;
	struct ssad_state s;
	struct ssad_cost cost;
	int i;

	ssad_state_init(&s, 42, 0);
	for (i = 0; i < n; i++) {
		double x;

		ssad_service(&p, &s, false, (u64)i * 8, 8, 0, &cost);
		x = (double)(cost.seek + cost.rot);
		m1 += x;
		m2 += x * x;
		d1 += cost.dist_q10 / 1024.0;
		zero += cost.dist_q10 == 0;
	}
	m1 /= n;
	m2 /= n;
	d1 /= n;
	/* E[sqrt D] = 8/15 sqrt(C), E[D] = C/3 for the density 2(C - x)/C^2 */
	es = q * (a + b * 8.0 / 15.0 * sqrt(c));
	es2 = q * (a * a + 2 * a * b * 8.0 / 15.0 * sqrt(c) + b * b * c / 3);
	ex = es + R / 2;
	ex2 = es2 + es * R + R * R / 3;
	tap(close_rel(d1, q * c / 3, 0.005), "p_s=%.2f: mean seek distance %.2f, want %.2f",
	    p_seq / 1e6, d1, q * c / 3);
	tap(fabs(zero / n - p_seq / 1e6) < 0.002, "p_s=%.2f: share of zero seeks %.4f",
	    p_seq / 1e6, zero / n);
	tap(close_rel(m1, ex, 0.003), "p_s=%.2f: E[X] %.4f ms, want %.4f ms",
	    p_seq / 1e6, m1 / 1e6, ex / 1e6);
	tap(close_rel(m2, ex2, 0.005), "p_s=%.2f: E[X^2] %.4f ms^2, want %.4f ms^2",
	    p_seq / 1e6, m2 / 1e12, ex2 / 1e12);
}

/* Uniformly random cylinders are C/3 apart on average. */
static void test_mechanical_distance(void)
{
	struct ssad_params p = {
		.mode = SSAD_MECHANICAL, .cylinders = 1000, .heads = 2,
		.nr_zones = 1, .zone = { { .spt = 32 } }, .rotation = 8 * MS,
		.seek_a = MS, .seek_b = MS / 10, .block_sectors = 8,
	};
	struct ssad_state s, r;
	struct ssad_cost c;
	double sum = 0;
	const int n = 200000;
	int i;

	ssad_model_init(&p);
	ssad_state_init(&s, 3, 0);
	ssad_state_init(&r, 99, 0);
	for (i = 0; i < n; i++) {
		u64 sector = ssad_rand(&r) % p.capacity;

		ssad_service(&p, &s, false, sector, 8, (u64)i * 100 * MS, &c);
		sum += c.dist_q10 / 1024.0;
	}
	tap(close_rel(sum / n, 1000.0 / 3, 0.01), "mechanical: mean distance %.2f, want C/3",
	    sum / n);
}

/* The read-ahead cache: hits, waiting for the media, stops, writes. */
static void test_read_ahead(void)
{
	struct ssad_params p = {
		.mode = SSAD_MECHANICAL, .cylinders = 100, .heads = 1,
		.nr_zones = 1, .zone = { { .spt = 10 } }, .rotation = 10 * MS,
		.seek_a = MS, .seek_b = MS / 10, .block_sectors = 8,
		.read_ahead = 16, .hit_time = 80000,	/* 10 us a sector */
	};
	struct ssad_state s;
	struct ssad_cost c;
	u64 end;

	ssad_model_init(&p);
	ssad_state_init(&s, 1, 0);
	ssad_service(&p, &s, false, 0, 2, 0, &c);	/* miss: 2 ms */
	end = c.total;
	tap(!c.hit && end == 2 * MS, "a first read misses");
	/* sectors 2..3 are read ahead by end + 2 ms; asked at end: wait */
	ssad_service(&p, &s, false, 2, 2, end, &c);
	tap(c.hit && c.seek == 0 && c.rot == 2 * MS && c.xfer == 20000,
	    "a sequential read hits and waits for the read-ahead (%llu ns)",
	    (unsigned long long)c.rot);
	/* asked late: already there, only the delivery */
	ssad_service(&p, &s, false, 4, 4, end + 50 * MS, &c);
	tap(c.hit && c.rot == 0 && c.total == 40000, "a read of data read ahead costs hit_time");
	ssad_service(&p, &s, false, 2 + 16, 2, end + 60 * MS, &c);
	tap(!c.hit, "past the segment misses");
	/* the miss stopped the old read-ahead and began a new one after 20 */
	ssad_service(&p, &s, false, 20, 1, c.total + end + 60 * MS + 1 * MS, &c);
	tap(c.hit && c.rot == 0, "the miss starts a new segment after itself");
	/* one segment: a miss elsewhere replaces it */
	ssad_service(&p, &s, false, 500, 1, 200 * MS, &c);
	ssad_service(&p, &s, false, 900, 1, 300 * MS, &c);
	ssad_service(&p, &s, false, 501, 1, 400 * MS, &c);
	tap(!c.hit, "a miss elsewhere replaces the segment");
	ssad_service(&p, &s, true, 800, 1, 500 * MS, &c);
	ssad_service(&p, &s, false, 801, 1, 600 * MS, &c);
	tap(!c.hit, "a write leaves no segment behind");
	p.read_ahead = 0;
	ssad_service(&p, &s, false, 700, 1, 700 * MS, &c);
	ssad_service(&p, &s, false, 701, 1, 800 * MS, &c);
	tap(!c.hit, "read_ahead 0: no cache");
}

/*
 * A disk whose numbers come out exact: 256 sectors a track (128 KiB),
 * 8 ms a turn (31.25 us a sector), four heads, 500 us per command.
 */
static struct ssad_params track256(u32 max_transfer)
{
	struct ssad_params p = {
		.mode = SSAD_MECHANICAL, .cylinders = 100, .heads = 4,
		.nr_zones = 1, .zone = { { .spt = 256 } }, .rotation = 8 * MS,
		.seek_a = MS, .seek_b = MS / 10, .overhead = MS / 2,
		.block_sectors = 8, .max_transfer = max_transfer,
	};

	if (ssad_model_init(&p))
		abort();
	return p;
}

/* Serve a whole access command by command, as the kernel does; its end. */
static u64 serve_all(const struct ssad_params *p, struct ssad_state *s,
		     bool write, u64 sector, u32 len, u64 start, u32 *commands,
		     struct ssad_cost *each)
{
	struct ssad_cost c;
	u32 done = 0, n = 0;

	while (done < len) {
		done += ssad_command(p, s, write, sector, len, done, start, &c);
		if (each)
			each[n] = c;
		n++;
		start += c.total;
	}
	*commands = n;
	return start;
}

static void test_max_transfer(void)
{
	struct ssad_params p = track256(256), whole = track256(0);
	struct ssad_cost c[8], one;
	struct ssad_state s;
	u32 n, i;
	u64 end;
	bool ok = true;

	/*
	 * 512 KiB from sector 0 at t = 0, 128 KiB a command: the first waits
	 * R - overhead for sector 0 (7.5 ms) and reads a track (8 ms); each
	 * later one starts as its first sector passes the head, pays the
	 * overhead, and waits the rest of a turn: 16 ms a command.
	 */
	ssad_state_init(&s, 1, 0);
	end = serve_all(&p, &s, false, 0, 1024, 0, &n, c);
	tap(n == 4 && end == 64 * MS, "512 KiB, max_transfer 128 KiB: 4 commands, 64 ms (%u, %llu ns)",
	    n, (unsigned long long)end);
	for (i = 0; i < n; i++)
		ok = ok && c[i].seek == 0 && c[i].rot == 8 * MS - MS / 2 &&
		     c[i].xfer == 8 * MS && c[i].total == 16 * MS;
	tap(ok, "each command: overhead 0.5, rotation 7.5 (R - overhead), transfer 8 ms");

	/* max_transfer 0: one command, as ever: 0.5 + 7.5 + 32 ms */
	ssad_state_init(&s, 1, 0);
	end = serve_all(&whole, &s, false, 0, 1024, 0, &n, c);
	ssad_state_init(&s, 1, 0);
	ssad_service(&whole, &s, false, 0, 1024, 0, &one);
	tap(n == 1 && end == 40 * MS && one.total == 40 * MS,
	    "max_transfer 0: one command of 40 ms, what ssad_service says");

	/* a short access is one command whatever the limit */
	ssad_state_init(&s, 1, 0);
	end = serve_all(&p, &s, true, 16, 8, 0, &n, c);
	tap(n == 1 && c[0].rot == 0 && end == MS / 2 + MS / 4,
	    "an access within max_transfer: one command (%llu ns)",
	    (unsigned long long)end);

	/* not a multiple: 300 sectors are 256 + 44, the last one shorter */
	ssad_state_init(&s, 1, 0);
	end = serve_all(&p, &s, false, 0, 300, 0, &n, c);
	tap(n == 2 && c[1].xfer == 44 * 31250 && c[1].rot == 8 * MS - MS / 2 &&
	    end == 16 * MS + MS / 2 + 15 * MS / 2 + 44 * 31250,
	    "300 sectors: 256 + 44 (%llu ns)", (unsigned long long)end);

	/* into the next cylinder: the later command seeks one cylinder */
	ssad_state_init(&s, 1, 0);
	end = serve_all(&p, &s, false, 3 * 256, 512, 0, &n, c);
	tap(n == 2 && c[0].seek == 0 && c[1].seek == MS + MS / 10 &&
	    c[1].dist_q10 == 1024, "a command on the next cylinder seeks to it (%llu ns)",
	    (unsigned long long)c[1].seek);

	/* with read-ahead the later commands are read from the segment */
	p.read_ahead = 2048;
	p.hit_time = 8000;			/* 1 us a sector */
	ssad_state_init(&s, 1, 0);
	end = serve_all(&p, &s, false, 0, 1024, 0, &n, c);
	ok = n == 4 && !c[0].hit;
	/* command 2 starts at 16 ms; sector 511 is read ahead by 24 ms */
	ok = ok && c[1].hit && c[1].rot == 8 * MS - MS / 2 && c[1].xfer == 256 * 1000;
	tap(ok, "read_ahead: the later commands hit the segment (rot %llu, xfer %llu ns)",
	    (unsigned long long)c[1].rot, (unsigned long long)c[1].xfer);
}

static void test_phase(void)
{
	struct ssad_params p = {
		.mode = SSAD_MECHANICAL, .cylinders = 100, .heads = 1,
		.nr_zones = 1, .zone = { { .spt = 10 } }, .rotation = 10 * MS,
		.block_sectors = 8, .phase = 250000,
	};
	struct ssad_state s, s2;
	struct ssad_cost c;
	u64 ph[3];
	u32 seed;

	tap(!ssad_model_init(&p), "phase 0.25 accepted");
	ssad_state_init(&s, 1, 0);
	ssad_spindle_init(&p, &s);
	ssad_service(&p, &s, false, 0, 1, 0, &c);
	tap(s.phase0 == 2500000 && c.rot == 7500000,
	    "phase 0.25: sector 0 at t = 0 waits 0.75 turn (%llu ns)",
	    (unsigned long long)c.rot);
	ssad_state_init(&s, 1, 1000 * MS);	/* loaded at 1 s */
	ssad_spindle_init(&p, &s);
	ssad_service(&p, &s, false, 5, 1, 1000 * MS + MS, &c);
	tap(c.rot == MS + MS / 2, "phase 0.25: sector 5, 1 ms after the load, waits 1.5 ms");
	p.phase = 0;
	ssad_state_init(&s, 1, 0);
	ssad_spindle_init(&p, &s);
	ssad_service(&p, &s, false, 0, 1, 0, &c);
	tap(s.phase0 == 0 && c.rot == 0, "phase 0: sector 0 under the head at the load");

	/* random: a function of the seed */
	p.phase = SSAD_PHASE_RANDOM;
	for (seed = 1; seed <= 3; seed++) {
		ssad_state_init(&s, seed, 0);
		ssad_spindle_init(&p, &s);
		ph[seed - 1] = s.phase0;
	}
	ssad_state_init(&s2, 2, 0);
	ssad_spindle_init(&p, &s2);
	tap(ph[0] != ph[1] && ph[1] != ph[2] && ph[0] < p.rotation &&
	    ph[1] < p.rotation && ph[2] < p.rotation && s2.phase0 == ph[1],
	    "phase random: seeds 1, 2, 3 give %llu, %llu, %llu ns; seed 2 again the same",
	    (unsigned long long)ph[0], (unsigned long long)ph[1],
	    (unsigned long long)ph[2]);
	ssad_service(&p, &s2, false, 0, 1, 0, &c);
	tap(c.rot == (ph[1] ? p.rotation - ph[1] : 0),
	    "phase random: sector 0 at the load waits the rest of the turn");

	/* no angle, and no draw, in stochastic mode */
	p.mode = SSAD_STOCHASTIC;
	ssad_state_init(&s, 2, 0);
	ssad_spindle_init(&p, &s);
	tap(s.phase0 == 0 && s.rng == 2, "stochastic mode: the phase draws nothing");

	p.mode = SSAD_MECHANICAL;
	p.phase = SSAD_PPM;
	tap(ssad_model_init(&p) != NULL, "phase 1 refused");
	p.phase = 0;
	p.max_transfer = SSAD_MAX_TRANSFER + 1;
	tap(ssad_model_init(&p) != NULL, "max_transfer beyond 64 MiB refused");
}

static void test_channel(void)
{
	struct ssad_cost c = { .xfer = 4 * MS, .total = 5 * MS };
	struct ssad_cost a, b;
	u64 busy = 0;

	/* 128 KiB at 20 MB/s: 6.5536 ms, from the media start at 1 ms */
	ssad_channel(&busy, 20, 256, 0, &c);
	tap(c.chan == 2553600 && c.total == 7553600 && busy == 7553600,
	    "a slow channel: the command ends with its channel transfer (%llu ns)",
	    (unsigned long long)c.chan);

	/* 1000 MB/s: done at 1.131072 ms, before the media: no delay */
	c = (struct ssad_cost){ .xfer = 4 * MS, .total = 5 * MS };
	busy = 0;
	ssad_channel(&busy, 1000, 256, 0, &c);
	tap(c.chan == 0 && c.total == 5 * MS && busy == MS + 131072,
	    "a fast channel: no delay, busy until 1.131072 ms");

	/* a channel busy until 10 ms: the transfer waits for it */
	c = (struct ssad_cost){ .xfer = 4 * MS, .total = 5 * MS };
	busy = 10 * MS;
	ssad_channel(&busy, 20, 256, 0, &c);
	tap(c.chan == 10 * MS + 6553600 - 5 * MS && busy == 10 * MS + 6553600,
	    "a busy channel: the transfer starts when it is free (%llu ns)",
	    (unsigned long long)c.chan);

	/*
	 * Two disks, 1 MiB each at 10 MB/s, their media transfers (5 ms at
	 * the disk's rate) beginning at 2 and 3 ms: the second ends
	 * 2 MiB / 10 MB/s after the first began, 209.7152 ms.
	 */
	a = (struct ssad_cost){ .xfer = 5 * MS, .total = 7 * MS };
	b = (struct ssad_cost){ .xfer = 5 * MS, .total = 8 * MS };
	busy = 0;
	ssad_channel(&busy, 10, 2048, 0, &a);
	ssad_channel(&busy, 10, 2048, 0, &b);
	tap(a.total == 2 * MS + 104857600 && b.total == 2 * MS + 209715200,
	    "two disks on one channel: the later ends (sum of bytes) / R after the first began");
}

static void test_scale(void)
{
	struct ssad_params p = ct1992(0);

	ssad_scale(&p, 100);
	tap(p.seek_a == 300000 && p.seek_b == 50000 && p.rotation == 1670000 &&
	    p.block_time == 130000, "time_scale 0.1 scales every time");
}

int main(void)
{
	printf("TAP version 13\n");
	test_isqrt();
	test_bad_params();
	test_geometry();
	test_mechanical_spindle();
	test_seed002_rotation();
	test_stochastic_moments(0);
	test_stochastic_moments(300000);
	test_mechanical_distance();
	test_read_ahead();
	test_max_transfer();
	test_phase();
	test_channel();
	test_scale();
	printf("1..%d\n", test_nr);
	return failures ? 1 : 0;
}
