/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: striping device-mapper target with an explicit fork/join
 * core.  Shared definitions of the target context and the I/O path.
 */
#ifndef DM_SSASTRIPE_H
#define DM_SSASTRIPE_H

#include <linux/device-mapper.h>
#include <linux/bio.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>

#include "ssa-layout.h"

#define DM_MSG_PREFIX "ssastripe"

/* Per-member counters, kept per CPU so the I/O path shares no cache line. */
struct ssa_member_stats {
	u64 children[2];	/* child bios issued: [READ], [WRITE] */
	u64 sectors[2];		/* sectors those children carried */
	u64 other;		/* flush, discard and write-zeroes children */
};

enum ssa_member_flags {
	SSA_MEMBER_FAILED,	/* the member has completed a child with an error */
};

struct ssa_member {
	struct dm_dev *dev;
	sector_t offset;	/* start of the member's data area */
	unsigned long flags;
	atomic_t errors;
	struct ssa_member_stats __percpu *stats;
};

/* Per-CPU counters of logical requests. */
struct ssa_volume_stats {
	u64 requests[2];	/* read and write requests mapped */
	u64 other;		/* flush, discard, write-zeroes requests */
};

/* Table options; a bit per option records that the table named it. */
enum ssa_opt {
	SSA_OPT_COALESCE,
	SSA_NR_OPTS,
};

struct ssa_ctx {
	struct dm_target *ti;
	const struct ssa_layout *layout;
	struct ssa_geom geom;
	sector_t member_len;	/* sectors of each member the volume uses */

	unsigned long opts_given;
	unsigned int opt[SSA_NR_OPTS];	/* option values, defaults filled in */
	bool coalesce;		/* one child per member, not one per chunk */

	struct bio_set bs;	/* children; front pad is struct ssa_child */
	struct ssa_volume_stats __percpu *stats;
	struct work_struct event_work;

	unsigned int nr_members;
	struct ssa_member members[];
};

/*
 * Per-bio data of every bio DM hands the target (the parent of a fork).
 * @segs is scratch for the fork: the bvec count each member's child needs.
 */
struct ssa_io {
	struct ssa_ctx *sc;
	atomic_t pending;	/* children in flight, plus one while forking */
	u32 error;		/* first error of a child (a blk_status_t) */
	u32 nr_children;	/* children issued so far */
	u16 member;		/* member of a remapped parent */
	bool remapped;		/* the parent itself went to @member */
	u16 segs[];
};

/* Front pad of each child bio allocated from ssa_ctx.bs. */
struct ssa_child {
	struct ssa_io *io;
	u32 member;
	struct bio bio;		/* must be last */
};

/* DM places per-bio data right before the bio: keep its alignment. */
static inline size_t ssa_io_size(unsigned int nr_members)
{
	return ALIGN(sizeof(struct ssa_io) + nr_members * sizeof(u16),
		     __alignof__(struct ssa_io));
}

static inline struct ssa_io *ssa_io_of(struct ssa_ctx *sc, struct bio *bio)
{
	return dm_per_bio_data(bio, ssa_io_size(sc->nr_members));
}

/* ssa-io.c */
int ssa_map(struct dm_target *ti, struct bio *bio);
int ssa_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error);
void ssa_member_error(struct ssa_ctx *sc, unsigned int m, blk_status_t status,
		      struct bio *bio);

#endif /* DM_SSASTRIPE_H */
