// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of the parity write planner (dm-ssastripe/ssa-parity-plan.c):
 * the method each group gets (rmw, rcw, data only), its read and parity
 * tasks and pages, where a write too large for one operation is cut, and
 * over many random writes on raid5 and pstripe the invariants the write
 * path relies on.  TAP output.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ssa-parity-plan.h"
#include "tap.h"

#define MAX_TASKS 256

struct plan {
	struct ssa_geom g;
	struct ssa_plan_in in;
	struct ssa_pop op;
	struct ssa_pgroup groups[SSA_OP_GROUPS];
	struct ssa_ptask tasks[MAX_TASKS];
	struct ssa_plock locks[SSA_OP_LOCKS];
};

/* A volume of @rows chunks a member; @failed: a failed member, or -1. */
static void setup(struct plan *p, const char *layout, u32 n, u32 chunk,
		  u64 rows, unsigned int wm, int failed)
{
	memset(p, 0, sizeof(*p));
	ssa_geom_init(&p->g, chunk, n);
	p->g.rows = rows;
	p->in.layout = ssa_layout_find(layout);
	p->in.geom = &p->g;
	p->in.nr_members = n;
	p->in.write_method = wm;
	p->in.max_tasks = 2 * n > 64 ? 2 * n : 64;
	p->op.groups = p->groups;
	p->op.tasks = p->tasks;
	p->op.locks = p->locks;
	p->op.failed = failed;
}

static u64 plan(struct plan *p, u64 start, u64 end)
{
	return ssa_plan(&p->in, &p->op, start, end);
}

static struct ssa_ptask *parity_task(struct plan *p, struct ssa_pgroup *pg)
{
	return &p->tasks[pg->xfirst + pg->nr_reads];
}

/*
 * What the write path relies on: the data tasks cover [start, cut) piece
 * by piece; every task is inside its group's span and on a member of the
 * volume, the parity task on the group's parity member and no data task
 * there; the pages are what the tasks' buffers need and fit the reserve.
 * Returns a reason, or NULL.
 */
static const char *check(struct plan *p, u64 start, u64 cut)
{
	unsigned int g, i, pages = 0, ntasks = 0;
	u64 covered = 0;

	if (cut <= start)
		return "planned nothing";
	if (p->op.nr_groups > SSA_OP_GROUPS || p->op.nr_tasks > p->in.max_tasks ||
	    p->op.nr_locks > SSA_OP_LOCKS)
		return "more groups, tasks or locks than an operation holds";
	for (g = 0; g < p->op.nr_groups; g++) {
		struct ssa_pgroup *pg = &p->groups[g];
		u32 lo = U32_MAX, hi = 0;

		for (i = 0; i < pg->nr_data; i++) {
			struct ssa_ptask *t = &p->tasks[pg->first + i];

			if (t->pg != pg || t->op != &p->op)
				return "a data task not tied to its group and operation";
			if (t->member >= p->in.nr_members || t->member == pg->grp.pmember)
				return "a data task on no member or on the parity member";
			if (t->kind != (pg->method == SSA_WM_RMW ? SSA_T_RMW_DATA :
					SSA_T_WRITE_DATA))
				return "a data task of the wrong kind";
			lo = min(lo, t->lo);
			hi = max(hi, t->hi);
			covered += t->hi - t->lo;
			if (t->kind == SSA_T_RMW_DATA)
				pages += ssa_pages_of(t->hi - t->lo);
		}
		ntasks += pg->nr_data;
		if (pg->lo != lo || pg->hi != hi)
			return "a group's span is not its data tasks' union";
		if (pg->method == SSA_WM_DATA_ONLY)
			continue;
		for (i = 0; i < pg->nr_reads; i++) {
			struct ssa_ptask *t = &p->tasks[pg->xfirst + i];

			if (t->kind != SSA_T_READ || t->lo != pg->lo || t->hi != pg->hi ||
			    t->member == pg->grp.pmember)
				return "a read task that is not of the group's span";
			pages += ssa_pages_of(pg->hi - pg->lo);
		}
		if (pg->method == SSA_WM_RMW && pg->nr_reads)
			return "rmw with read tasks";
		if (parity_task(p, pg)->member != pg->grp.pmember ||
		    parity_task(p, pg)->kind != (pg->method == SSA_WM_RMW ?
						 SSA_T_RMW_PARITY : SSA_T_WRITE_PARITY))
			return "the parity task is not on the parity member";
		pages += ssa_pages_of(pg->hi - pg->lo);
		ntasks += pg->nr_reads + 1;
	}
	if (covered != cut - start)
		return "the data tasks do not cover the planned range";
	if (ntasks != p->op.nr_tasks)
		return "tasks that belong to no group";
	if (pages != p->op.nr_pages || pages > SSA_OP_PAGES)
		return "pages that are not the tasks' buffers, or over the reserve";
	return NULL;
}

static void test_methods(void)
{
	struct plan *p = malloc(sizeof(*p));
	struct ssa_pgroup *pg = &p->groups[0];
	const char *why;
	u64 cut;

	/* raid5, 4 members, 4 KiB chunks: one block, read-modify-write */
	setup(p, "raid5", 4, 8, 64, SSA_WM_RMW, -1);
	cut = plan(p, 0, 8);
	why = check(p, 0, cut);
	tap(!why && cut == 8 && p->op.nr_groups == 1 && pg->method == SSA_WM_RMW &&
	    p->op.nr_tasks == 2 && p->op.nr_pages == 2 && p->op.nr_locks == 1,
	    "raid5 one block, rmw: one group, a data and a parity task, 2 pages%s%s",
	    why ? ": " : "", why ?: "");

	/* a full stripe under auto: reconstruct-write with nothing to read */
	setup(p, "raid5", 5, 8, 64, SSA_WM_AUTO, -1);
	cut = plan(p, 0, 32);
	why = check(p, 0, cut);
	tap(!why && cut == 32 && pg->method == SSA_WM_RCW && pg->nr_reads == 0 &&
	    pg->nr_data == 4 && p->op.nr_pages == 1,
	    "raid5 full stripe, auto: rcw, no reads, one parity page%s%s",
	    why ? ": " : "", why ?: "");

	/* three of four chunks: rcw reads 1, rmw would read 4 */
	setup(p, "raid5", 5, 8, 64, SSA_WM_AUTO, -1);
	cut = plan(p, 0, 24);
	why = check(p, 0, cut);
	tap(!why && pg->method == SSA_WM_RCW && pg->nr_reads == 1,
	    "raid5 3 of 4 chunks, auto: rcw reading the fourth%s%s",
	    why ? ": " : "", why ?: "");

	/* the same with rmw asked for: rmw, whatever it reads */
	setup(p, "raid5", 5, 8, 64, SSA_WM_RMW, -1);
	cut = plan(p, 0, 24);
	why = check(p, 0, cut);
	tap(!why && pg->method == SSA_WM_RMW && p->op.nr_tasks == 4,
	    "raid5 3 of 4 chunks, rmw asked: rmw, 3 data tasks and parity%s%s",
	    why ? ": " : "", why ?: "");

	/* a tie (one of three chunks on 4 members: 2 reads either way): rcw */
	setup(p, "raid5", 4, 8, 64, SSA_WM_AUTO, -1);
	cut = plan(p, 0, 8);
	why = check(p, 0, cut);
	tap(!why && pg->method == SSA_WM_RCW, "raid5 auto on a tie: rcw%s%s",
	    why ? ": " : "", why ?: "");

	/* degraded, the group's parity member lost: the data alone */
	setup(p, "raid5", 4, 8, 64, SSA_WM_AUTO, -1);
	plan(p, 0, 8);
	setup(p, "raid5", 4, 8, 64, SSA_WM_AUTO, (int)pg->grp.pmember);
	cut = plan(p, 0, 8);
	why = check(p, 0, cut);
	tap(!why && pg->method == SSA_WM_DATA_ONLY && p->op.nr_tasks == 1 &&
	    p->op.nr_pages == 0,
	    "raid5 parity member failed: data only, no pages%s%s",
	    why ? ": " : "", why ?: "");

	/* degraded, the written member lost: rmw, its old data rebuilt */
	setup(p, "raid5", 4, 8, 64, SSA_WM_RCW, -1);
	plan(p, 0, 8);
	setup(p, "raid5", 4, 8, 64, SSA_WM_RCW, (int)p->tasks[0].member);
	cut = plan(p, 0, 8);
	why = check(p, 0, cut);
	tap(!why && pg->method == SSA_WM_RMW && pg->lost == &p->tasks[0] &&
	    p->tasks[0].lost,
	    "raid5 written member failed: rmw with the lost task marked%s%s",
	    why ? ": " : "", why ?: "");
	free(p);
}

static void test_cut(void)
{
	struct plan *p = malloc(sizeof(*p));
	const char *why;
	u64 cut, end;

	/* 1 MiB chunks, 8 members: 7 MiB of data a row, more pages than 512 */
	setup(p, "raid5", 8, 2048, 64, SSA_WM_RMW, -1);
	end = 7 * 2048 * 4;
	cut = plan(p, 0, end);
	why = check(p, 0, cut);
	tap(!why && cut < end && cut % 8 == 0,
	    "a write over the page reserve is cut short (at %llu of %llu)%s%s",
	    (unsigned long long)cut, (unsigned long long)end,
	    why ? ": " : "", why ?: "");

	/* 4 KiB chunks: more groups than an operation holds */
	setup(p, "raid5", 4, 8, 4096, SSA_WM_AUTO, -1);
	end = 3 * 8 * (SSA_OP_GROUPS + 4);
	cut = plan(p, 0, end);
	why = check(p, 0, cut);
	tap(!why && p->op.nr_groups == SSA_OP_GROUPS && cut == 3 * 8 * SSA_OP_GROUPS,
	    "a write of %d rows is cut after %d groups%s%s", SSA_OP_GROUPS + 4,
	    SSA_OP_GROUPS, why ? ": " : "", why ?: "");

	/* the first piece is always planned, however large */
	setup(p, "raid5", 3, 2048, 64, SSA_WM_RMW, -1);
	cut = plan(p, 100, 2048);
	why = check(p, 100, cut);
	tap(!why && cut == 2048, "the first piece is planned whole%s%s",
	    why ? ": " : "", why ?: "");
	free(p);
}

static void test_pstripe_span(void)
{
	struct plan *p = malloc(sizeof(*p));
	const char *why;
	u64 cut;

	/* pstripe keeps a member's data in one area: consecutive chunks there
	 * make one group span and one data task */
	setup(p, "pstripe", 4, 8, 64, SSA_WM_RMW, -1);
	cut = plan(p, 0, 24);
	why = check(p, 0, cut);
	tap(!why && cut == 24 && p->op.nr_groups == 1 && p->groups[0].nchunks == 3 &&
	    p->groups[0].nr_data == 1 && p->op.nr_locks == 3,
	    "pstripe 3 consecutive chunks: one span of 3 groups, one data task%s%s",
	    why ? ": " : "", why ?: "");
	free(p);
}

/* Random writes: the invariants hold and only the reserve cuts a write. */
static void test_random(void)
{
	static const struct { const char *layout; u32 n, chunk; } vols[] = {
		{ "raid5", 3, 8 }, { "raid5", 4, 128 }, { "raid5", 5, 8 },
		{ "raid5", 8, 16 }, { "pstripe", 3, 8 }, { "pstripe", 4, 128 },
	};
	struct plan *p = malloc(sizeof(*p));
	unsigned int v, wm, k, bad = 0, cuts = 0, runs = 0;
	const char *why = NULL;

	srand(1);
	for (v = 0; v < ARRAY_SIZE(vols); v++) {
		u64 rows = 64 * vols[v].n;
		u64 len = rows * vols[v].chunk * (vols[v].n - 1);

		for (wm = SSA_WM_AUTO; wm <= SSA_WM_RCW; wm++) {
			for (k = 0; k < 2000; k++) {
				u64 start = (u64)rand() % len;
				u64 n = 1 + (u64)rand() % (4 * vols[v].chunk * vols[v].n);
				u64 end = start + n < len ? start + n : len;
				int failed = rand() % 4 ? -1 : rand() % (int)vols[v].n;
				u64 cut;

				setup(p, vols[v].layout, vols[v].n, vols[v].chunk, rows, wm,
				      failed);
				cut = plan(p, start, end);
				runs++;
				cuts += cut < end;
				why = check(p, start, cut);
				if (why && bad++ < 5) {
					fprintf(stderr, "# %s n=%u chunk=%u wm=%u failed=%d [%llu, %llu): %s\n",
						vols[v].layout, vols[v].n, vols[v].chunk, wm, failed,
						(unsigned long long)start, (unsigned long long)end, why);
				}
			}
		}
	}
	tap(!bad, "%u random writes on raid5 and pstripe, every method, some degraded: "
	    "plans consistent (%u cut short)", runs, cuts);
	free(p);
}

int main(void)
{
	printf("TAP version 13\n1..12\n");
	test_methods();
	test_cut();
	test_pstripe_span();
	test_random();
	printf("# %d passed, %d failed\n", test_nr - failures, failures);
	return failures ? 1 : 0;
}
