// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of ssadisk's service-time model (ssa-disk-model.c): the
 * geometry, the spindle, the seed-002 conventions, and the sampled seek and
 * rotation distributions against their closed forms.  Prints TAP.
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
	test_scale();
	printf("1..%d\n", test_nr);
	return failures ? 1 : 0;
}
