/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: the plan of a parity write -- its operation, group spans
 * and tasks, and ssa_plan(), which fills them in.  Pure arithmetic over
 * the layout's geometry: ssa-parity-plan.c is built into the host unit
 * test tests/unit/test_plan.c as well as into the module.
 */
#ifndef SSA_PARITY_PLAN_H
#define SSA_PARITY_PLAN_H

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/blk_types.h>
#include <linux/bvec.h>
#include <linux/list.h>
#endif

#include "ssa-layout.h"
#include "ssa-bitmap.h"

#define SSA_OP_PAGES		512	/* pages of one operation, at most */
#define SSA_OP_GROUPS		16	/* group spans of one operation */
#define SSA_OP_LOCKS		64	/* group numbers one operation locks */
#define SSA_SPAN_SECTORS	2048	/* a merged pstripe span, at most */

/* A group whose parity member has failed: its data is written alone. */
#define SSA_WM_DATA_ONLY	SSA_NR_WMETHODS

enum ssa_task_kind {
	SSA_T_RMW_DATA,		/* read old data, write new */
	SSA_T_WRITE_DATA,	/* write new data */
	SSA_T_READ,		/* read data the write leaves (rcw) */
	SSA_T_RMW_PARITY,	/* read old parity, wait, write new */
	SSA_T_WRITE_PARITY,	/* write new parity (rcw) */
};

struct ssa_pop;
struct ssa_pgroup;

struct ssa_ptask {
	struct ssa_pop *op;
	struct ssa_pgroup *pg;
	u8 kind;
	u8 phase;		/* bios of the task completed */
	bool counted;		/* holds its member's dispatch slot */
	bool lost;		/* its member failed: no I/O, old data rebuilt */
	bool held;		/* rmw data read: the write waits for the log */
	u16 member;
	u32 idx;		/* child number of its first bio */
	u32 lo, hi;		/* sectors from the start of the group span */
	u32 loff;		/* data tasks: sector offset in the request */
	u32 page0;		/* its buffer: op->pages[page0 ...] */
	blk_status_t status;
	struct list_head ready;
};

/*
 * A group span: one parity group or, with pstripe, several whose chunks
 * follow each other on every member.  Sector ranges count from the start
 * of the span's first chunk.
 */
struct ssa_pgroup {
	struct ssa_group grp;	/* the first group of the span */
	u32 nchunks;
	u32 lo, hi;		/* the range the parity is updated over */
	u8 method;		/* SSA_WM_RMW or SSA_WM_RCW */
	bool failed;		/* reads of two members failed: give up */
	bool parity_in;		/* rmw: the old parity is in memory */
	bool noparity;		/* the parity member failed: data only */
	bool recovered;		/* @lost's old data has been rebuilt */
	struct ssa_ptask *lost;	/* a data read that failed (or never ran) */
	struct list_head recover;	/* on the recovery list */
	u16 first, nr_data;	/* its data tasks */
	u16 xfirst, nr_reads;	/* its reads, then its parity task */
	unsigned int cost_pages, cost_extra;	/* planning */
	u32 reads_left;		/* reads the parity still waits for */
	atomic_t bs_left;	/* before_service: data tasks not started */
	/* the partial parity log (ssa-parity-ppl.c) */
	struct ssa_pop *op;	/* set when it is logged */
	struct list_head ppl_node;	/* waiting for slots, or logged */
	u64 ppl_seq;		/* its first entry */
	u16 ppl_n;		/* its entries held in the log */
	atomic_t ppl_left;	/* entries still being written */
};

struct ssa_plock {
	struct hlist_node node;
	u64 key;
};

struct ssa_pop {
	struct ssa_ctx *sc;
	struct ssa_io *io;
	struct bio *parent;
	struct bvec_iter iter;	/* the parent's data as it arrived */
	u8 sync;		/* enum ssa_sync, fixed at arrival */
	bool locked;
	bool ppl_gated;		/* passed the ppl's gate (ssa_ppl_gate()) */
	bool ppl;		/* its groups are logged before they are written */
	int failed;		/* the member failed at arrival, or -1 */
	struct list_head wait;
	struct ssa_bm_wait bmw;	/* its claim on the bitmap's regions */
	unsigned int nr_groups, nr_tasks, nr_locks, nr_pages, nr_alloc;
	struct ssa_pgroup *groups;
	struct ssa_ptask *tasks;
	struct ssa_plock *locks;
	struct page **pages;
};

static inline unsigned int ssa_pages_of(u32 sectors)
{
	return DIV_ROUND_UP(sectors << SECTOR_SHIFT, PAGE_SIZE);
}

/* What the planner needs to know of the volume. */
struct ssa_plan_in {
	const struct ssa_layout *layout;
	const struct ssa_geom *geom;
	unsigned int nr_members;
	unsigned int write_method;	/* enum ssa_wmethod */
	unsigned int max_tasks;		/* room in op->tasks */
};

u64 ssa_plan(const struct ssa_plan_in *in, struct ssa_pop *op, u64 start,
	     u64 end);

#endif /* SSA_PARITY_PLAN_H */
