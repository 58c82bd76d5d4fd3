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
};

/* The geometry every layout function works from. */
struct ssa_geom {
	u32 chunk;		/* stripe unit (BSU), 512-byte sectors */
	int chunk_shift;	/* log2(chunk), or -1 when not a power of two */
	u32 members;		/* members striped over (mirror: sets) */
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
};

void ssa_geom_init(struct ssa_geom *g, u32 chunk, u32 members);
const struct ssa_layout *ssa_layout_find(const char *name);

/* Chunk arithmetic shared by every layout. */
u64 ssa_chunk_index(const struct ssa_geom *g, u64 sector, u32 *offset);

/* The striping layout (RAID 0 over the members, chunk-interleaved). */
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

/* Sectors of each share when a read of @len is split among @n copies. */
u64 ssa_split_share(u64 len, u32 n, u32 align);

#endif /* SSA_LAYOUT_H */
