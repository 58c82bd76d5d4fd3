// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: planning a parity write: which groups it touches, rmw or rcw for
 * each, the tasks and the pages it needs, and where to cut it so that it
 * fits in one operation.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>
#endif

#include "ssa-parity-plan.h"

/* Reads, tasks and pages the group needs with @method. */
static void ssa_method_cost(const struct ssa_plan_in *in, struct ssa_pop *op,
			    struct ssa_pgroup *pg, unsigned int method,
			    unsigned int *reads, unsigned int *pages)
{
	u32 span = pg->hi - pg->lo;
	unsigned int i, covering = 0;

	if (method == SSA_WM_RMW) {
		*reads = pg->nr_data + 1;
		*pages = ssa_pages_of(span);
		for (i = 0; i < pg->nr_data; i++) {
			struct ssa_ptask *t = &op->tasks[pg->first + i];

			*pages += ssa_pages_of(t->hi - t->lo);
		}
		return;
	}
	for (i = 0; i < pg->nr_data; i++) {
		struct ssa_ptask *t = &op->tasks[pg->first + i];

		covering += t->lo == pg->lo && t->hi == pg->hi;
	}
	*reads = in->nr_members - 1 - covering;
	*pages = (*reads + 1) * ssa_pages_of(span);
}

/*
 * Choose the group's method (the table's, or with "auto" the one with fewer
 * reads, rcw on a tie, as md's raid5 does: an rmw member reads and then
 * writes the same blocks, the write queued behind the read, while an rcw
 * group reads on some members and writes on others, and its members'
 * queues get the accesses in a better order -- 4 KiB random writes on 4
 * members, where every write is a tie, ran 4 % faster so).  If that does
 * not fit in @budget pages and the other does, take the other.  Returns
 * the pages, and the tasks in *tasks.
 */
static unsigned int ssa_plan_method(const struct ssa_plan_in *in,
				    struct ssa_pop *op, struct ssa_pgroup *pg,
				    unsigned int budget, unsigned int *tasks)
{
	unsigned int method = in->write_method;
	unsigned int r_rmw, p_rmw, r_rcw, p_rcw, i;

	pg->lo = U32_MAX;
	pg->hi = 0;
	for (i = 0; i < pg->nr_data; i++) {
		pg->lo = min(pg->lo, op->tasks[pg->first + i].lo);
		pg->hi = max(pg->hi, op->tasks[pg->first + i].hi);
	}
	if (op->failed == pg->grp.pmember) {
		/* degraded, the parity lost: nothing to keep */
		pg->method = SSA_WM_DATA_ONLY;
		*tasks = pg->nr_data;
		return 0;
	}
	ssa_method_cost(in, op, pg, SSA_WM_RMW, &r_rmw, &p_rmw);
	if (op->failed >= 0) {
		/*
		 * Degraded: rcw would read the failed member, or leave its
		 * old data unknown; rmw rebuilds that from the others.
		 */
		pg->method = SSA_WM_RMW;
		*tasks = pg->nr_data + 1;
		return p_rmw;
	}
	ssa_method_cost(in, op, pg, SSA_WM_RCW, &r_rcw, &p_rcw);
	if (method == SSA_WM_AUTO)
		method = r_rcw <= r_rmw ? SSA_WM_RCW : SSA_WM_RMW;
	if (method == SSA_WM_RCW && p_rcw > budget && p_rmw <= budget)
		method = SSA_WM_RMW;
	else if (method == SSA_WM_RMW && p_rmw > budget && p_rcw <= budget)
		method = SSA_WM_RCW;
	pg->method = method;
	if (method == SSA_WM_RMW) {
		*tasks = pg->nr_data + 1;
		return p_rmw;
	}
	*tasks = pg->nr_data + r_rcw + 1;
	return p_rcw;
}

/* Append the group's read and parity tasks and place its buffers. */
static void ssa_close_group(const struct ssa_plan_in *in, struct ssa_pop *op,
			    struct ssa_pgroup *pg)
{
	u32 span = pg->hi - pg->lo;
	unsigned int i, m;
	struct ssa_ptask *t;

	pg->xfirst = op->nr_tasks;
	pg->nr_reads = 0;
	for (i = 0; i < pg->nr_data; i++) {
		t = &op->tasks[pg->first + i];
		t->pg = pg;
		t->kind = pg->method == SSA_WM_RMW ? SSA_T_RMW_DATA :
						     SSA_T_WRITE_DATA;
		if (t->kind == SSA_T_RMW_DATA) {
			t->page0 = op->nr_pages;
			op->nr_pages += ssa_pages_of(t->hi - t->lo);
		}
		if (t->member == op->failed) {
			/* its old data comes from the others (recovery) */
			t->lost = true;
			pg->lost = t;
		}
	}
	if (pg->method == SSA_WM_DATA_ONLY)
		return;
	if (pg->method == SSA_WM_RCW) {
		for (m = 0; m < in->nr_members; m++) {
			bool covered = false;

			if (m == pg->grp.pmember)
				continue;
			for (i = 0; i < pg->nr_data; i++) {
				t = &op->tasks[pg->first + i];
				if (t->member == m && t->lo == pg->lo &&
				    t->hi == pg->hi)
					covered = true;
			}
			if (covered)
				continue;
			t = &op->tasks[op->nr_tasks++];
			memset(t, 0, sizeof(*t));
			t->pg = pg;
			t->kind = SSA_T_READ;
			t->member = m;
			t->lo = pg->lo;
			t->hi = pg->hi;
			t->page0 = op->nr_pages;
			op->nr_pages += ssa_pages_of(span);
			pg->nr_reads++;
		}
	}
	t = &op->tasks[op->nr_tasks++];
	memset(t, 0, sizeof(*t));
	t->pg = pg;
	t->kind = pg->method == SSA_WM_RMW ? SSA_T_RMW_PARITY :
					     SSA_T_WRITE_PARITY;
	t->member = pg->grp.pmember;
	t->lo = pg->lo;
	t->hi = pg->hi;
	t->page0 = op->nr_pages;
	op->nr_pages += ssa_pages_of(span);
}

/* Pages and read/parity tasks the groups before the last one need. */
static void ssa_plan_totals(struct ssa_pop *op, unsigned int *pages,
			    unsigned int *extra)
{
	unsigned int g;

	*pages = 0;
	*extra = 0;
	for (g = 0; g + 1 < op->nr_groups; g++) {
		*pages += op->groups[g].cost_pages;
		*extra += op->groups[g].cost_extra;
	}
}

/* (Re)decide the last group's method and cost; false if over budget. */
static bool ssa_plan_fits(const struct ssa_plan_in *in, struct ssa_pop *op)
{
	struct ssa_pgroup *pg = &op->groups[op->nr_groups - 1];
	unsigned int pages, extra, tasks;

	ssa_plan_totals(op, &pages, &extra);
	pg->cost_pages = ssa_plan_method(in, op, pg, SSA_OP_PAGES - pages,
					 &tasks);
	pg->cost_extra = tasks - pg->nr_data;
	return pages + pg->cost_pages <= SSA_OP_PAGES &&
	       op->nr_tasks + extra + pg->cost_extra <= in->max_tasks;
}

/*
 * Build the operation's groups and tasks for [start, end): first the data
 * tasks, piece by piece, stopping before a piece that would not fit; then
 * each group's reads and parity task.  Returns the end actually planned.
 */
u64 ssa_plan(const struct ssa_plan_in *in, struct ssa_pop *op, u64 start,
	     u64 end)
{
	const struct ssa_layout *l = in->layout;
	const struct ssa_geom *geom = in->geom;
	bool pstripe = l->id == SSA_LAYOUT_PSTRIPE;
	struct ssa_pgroup *pg = NULL;
	struct ssa_extent e;
	struct ssa_group grp;
	struct ssa_ptask *t;
	unsigned int g;
	u64 ls, len;
	u32 off;

	op->nr_groups = 0;
	op->nr_tasks = 0;
	op->nr_locks = 0;
	op->nr_pages = 0;
	for (ls = start; ls < end; ls += len) {
		enum { SAME, EXTEND, NEW } how;

		l->map(geom, ls, &e);
		len = min(e.len, end - ls);
		l->group_of(geom, e.member, ssa_chunk_index(geom, e.msector, &off),
			    &grp);

		if (pg && !pstripe && grp.idx == pg->grp.idx)
			how = SAME;	/* raid5: the row's next member */
		else if (pg && pstripe && !off &&
			 e.member == op->tasks[pg->first].member &&
			 grp.pmember == pg->grp.pmember &&
			 grp.idx == pg->grp.idx +
				    (u64)pg->nchunks * in->nr_members &&
			 (pg->nchunks + 1) * geom->chunk <= SSA_SPAN_SECTORS)
			how = EXTEND;	/* pstripe: the segment's next chunk */
		else
			how = NEW;

		if (ls > start &&
		    (op->nr_locks == SSA_OP_LOCKS ||
		     op->nr_tasks == in->max_tasks ||
		     (how == NEW && op->nr_groups == SSA_OP_GROUPS)))
			break;

		if (how == NEW) {
			pg = &op->groups[op->nr_groups++];
			memset(pg, 0, sizeof(*pg));
			pg->grp = grp;
			pg->first = op->nr_tasks;
		}
		if (how != SAME)
			op->locks[op->nr_locks++].key = grp.idx;
		if (how == EXTEND) {
			op->tasks[pg->first].hi += len;
			pg->nchunks++;
		} else {
			t = &op->tasks[op->nr_tasks++];
			memset(t, 0, sizeof(*t));
			t->op = op;
			t->member = e.member;
			t->lo = off;
			t->hi = off + len;
			t->loff = ls - start;
			pg->nr_data++;
			if (how == NEW)
				pg->nchunks = 1;
		}

		if (ssa_plan_fits(in, op) || ls == start)
			continue;

		/* does not fit: take the piece back and stop before it */
		if (how != SAME)
			op->nr_locks--;
		if (how == EXTEND) {
			op->tasks[pg->first].hi -= len;
			pg->nchunks--;
		} else {
			op->nr_tasks--;
			pg->nr_data--;
		}
		if (how == NEW)
			op->nr_groups--;
		ssa_plan_fits(in, op);
		break;
	}

	for (g = 0; g < op->nr_groups; g++)
		ssa_close_group(in, op, &op->groups[g]);
	for (g = 0; g < op->nr_tasks; g++)
		op->tasks[g].op = op;
	return ls < end ? ls : end;
}
