/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: address mapping of the layouts.
 *
 * Everything here is a pure function of the geometry: no locking, no I/O,
 * no allocation.  The same source is compiled into the module and into the
 * host-side unit test (tests/unit), which checks it against a brute-force
 * reference.
 */
#ifndef SSA_LAYOUT_H
#define SSA_LAYOUT_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/math64.h>
#include <linux/types.h>
#else
#include "kcompat.h"
#endif

#define SSA_MAX_MEMBERS		64
/* Largest stripe unit: 512 MiB, so chunk bytes always fit in 32 bits. */
#define SSA_MAX_CHUNK_SECTORS	BIT(20)

enum ssa_layout_id {
	SSA_LAYOUT_STRIPE,
	SSA_LAYOUT_MIRROR,	/* RAID 1 / RAID 1/0: stripe over mirror sets */
	SSA_LAYOUT_RAID5,	/* data striped, one rotated parity chunk a row */
	SSA_LAYOUT_PSTRIPE,	/* Gray's parity striping: data not striped */
	SSA_LAYOUT_SRARRAY,	/* seed 003: striped, rotational replicas */
};

#define SSA_MAX_REPLICAS	8

/* Parity rotations of the raid5 layout (table option parity_layout). */
enum ssa_parity_rot {
	SSA_LEFT_SYMMETRIC,
	SSA_LEFT_ASYMMETRIC,
	SSA_RIGHT_SYMMETRIC,
	SSA_RIGHT_ASYMMETRIC,
	SSA_NR_ROTATIONS,
};

/* The geometry every layout function works from. */
struct ssa_geom {
	u32 chunk;		/* stripe unit (BSU), 512-byte sectors */
	int chunk_shift;	/* log2(chunk), or -1 when not a power of two */
	u32 members;		/* members striped over (mirror: sets) */
	int members_shift;	/* log2(members), or -1 when not a power of two */
	u32 rotation;		/* raid5: enum ssa_parity_rot */
	u64 rows;		/* chunks of each member the volume uses */
};

/*
 * A parity group: one parity chunk and the data chunks it covers, one on
 * every other member.  @idx numbers the groups 0 .. rows - 1.
 */
struct ssa_group {
	u64 idx;
	u32 pmember;		/* member holding the parity chunk */
	u64 pchunk;		/* its chunk index on that member */
};

/* Where one logical sector lands, and how far the run goes from there. */
struct ssa_extent {
	u32 member;		/* member index, 0-based */
	u64 msector;		/* sector inside the member's data area */
	u64 len;		/* sectors left in this chunk from here */
};

struct ssa_layout {
	const char *name;
	enum ssa_layout_id id;
	u32 min_members;
	/* Members whose chunks in one stripe hold distinct user data. */
	u32 (*data_members)(const struct ssa_geom *g);
	void (*map)(const struct ssa_geom *g, u64 lsector,
		    struct ssa_extent *e);
	bool (*member_range)(const struct ssa_geom *g, u64 start, u64 end,
			     u32 member, u64 *mstart, u64 *mend);
	/* Parity layouts only: the group of any member chunk, ... */
	void (*group_of)(const struct ssa_geom *g, u32 member, u64 mchunk,
			 struct ssa_group *grp);
	/* ... group number @idx, ... */
	void (*group_at)(const struct ssa_geom *g, u64 idx,
			 struct ssa_group *grp);
	/* ... and the chunk of @member that belongs to group @grp. */
	u64 (*group_chunk)(const struct ssa_geom *g, const struct ssa_group *grp,
			   u32 member);
};

void ssa_geom_init(struct ssa_geom *g, u32 chunk, u32 members);
const struct ssa_layout *ssa_layout_find(const char *name);

/* Chunk arithmetic shared by every layout: chunk of @sector, offset in it. */
static inline u64 ssa_chunk_index(const struct ssa_geom *g, u64 sector,
				  u32 *offset)
{
	if (g->chunk_shift >= 0) {
		*offset = sector & (g->chunk - 1);
		return sector >> g->chunk_shift;
	}
	return div_u64_rem(sector, g->chunk, offset);
}

/*
 * The striping layout (RAID 0 over the members, chunk-interleaved).
 * Inline for the one-chunk fast path of the map (ssa-io.c); the layout
 * table calls it through ssa_stripe_map().
 */
static inline void __ssa_stripe_map(const struct ssa_geom *g, u64 lsector,
				    struct ssa_extent *e)
{
	u32 offset, member;
	u64 chunk = ssa_chunk_index(g, lsector, &offset);
	u64 row;

	/* a 64-bit division is the costliest step of a small request's map */
	if (g->members_shift >= 0) {
		member = chunk & (g->members - 1);
		row = chunk >> g->members_shift;
	} else {
		row = div_u64_rem(chunk, g->members, &member);
	}
	e->member = member;
	e->msector = row * g->chunk + offset;
	e->len = g->chunk - offset;
}

void ssa_stripe_map(const struct ssa_geom *g, u64 lsector,
		    struct ssa_extent *e);
bool ssa_stripe_member_range(const struct ssa_geom *g, u64 start, u64 end,
			     u32 member, u64 *mstart, u64 *mend);

/*
 * Mirror layout: members are grouped into sets of @copies consecutive
 * members and chunks are striped over the sets (geom.members is the number
 * of sets), so the stripe functions above map a logical sector to its set.
 * Member k of set s is member s * copies + k.
 */
static inline u32 ssa_mirror_member(u32 set, u32 copies, u32 k)
{
	return set * copies + k;
}

/*
 * raid5: row r of every member holds one parity chunk and N - 1 data chunks.
 * pstripe: each member's first rows - rows / N chunks are one contiguous
 * data area, the rest its parity area.  See ssa-layout.c for the pictures.
 */
void ssa_raid5_map(const struct ssa_geom *g, u64 lsector, struct ssa_extent *e);
void ssa_pstripe_map(const struct ssa_geom *g, u64 lsector,
		     struct ssa_extent *e);
u64 ssa_pstripe_data_chunks(const struct ssa_geom *g);

/*
 * srarray: the stripe layout maps a logical sector to its member's data
 * space; each track of @track sectors holds @track / @replicas sectors of
 * it (an arc), written @replicas times, one arc after another round the
 * track.  Replica @r of data-space sector @u of a member.
 */
static inline u64 ssa_sr_sector(u64 u, u32 track, u32 replicas, u32 r)
{
	u32 arc = track / replicas, j;
	u64 t = div_u64_rem(u, arc, &j);

	return t * track + (u64)r * arc + j;
}

/* Sectors of each share when a read of @len is split among @n copies. */
u64 ssa_split_share(u64 len, u32 n, u32 align);

/* Parity layouts: how a partial-stripe write gets its new parity. */
enum ssa_wmethod {
	SSA_WM_AUTO,		/* whichever reads less; rmw on a tie */
	SSA_WM_RMW,		/* read-modify-write (seed 002's model) */
	SSA_WM_RCW,		/* reconstruct-write */
	SSA_NR_WMETHODS,
};

#endif /* SSA_LAYOUT_H */
