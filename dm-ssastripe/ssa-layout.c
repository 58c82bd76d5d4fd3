// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: address mapping of the layouts.
 *
 * Stripe layout, with C = chunk sectors and N = members:
 *
 *   logical chunk k  ->  member (k mod N), member chunk (k div N)
 *
 *           member 0   member 1   member 2   member 3
 *   stripe 0  chunk 0    chunk 1    chunk 2    chunk 3
 *   stripe 1  chunk 4    chunk 5    chunk 6    chunk 7
 *
 * which is the placement of the kernel's own "striped" target, so the two
 * leave identical bytes on identical members.
 *
 * Mirror layout, with K copies: the same placement over N / K sets, each
 * set being K consecutive members holding identical data.
 *
 * raid5 layout: N - 1 data chunks and one parity chunk (P) per row; the
 * parity moves one member left each row and the data starts right after it,
 * wrapping (left-symmetric, md's default, so md and this target place
 * bytes identically):
 *
 *           member 0   member 1   member 2   member 3
 *   row 0    D0         D1         D2         P
 *   row 1    D4         D5         P          D3
 *   row 2    D8         P          D6         D7
 *   row 3    P          D9         D10        D11
 *
 * The other rotations: left-asymmetric keeps the data in member order,
 * skipping P; right-* start P on member 0 and move it right.
 *
 * pstripe layout (parity striping), with R = rows, G = R / N and
 * D = R - G: member i's chunks 0 .. D - 1 are one contiguous data area
 * holding logical chunks i * D .. i * D + D - 1; chunks D .. R - 1 are its
 * parity area.  The data area is cut into N - 1 segments of G chunks, and
 * segment k of member i is covered by the parity area of member
 * (i + 1 + k) mod N, chunk for chunk.  With N = 3:
 *
 *            member 0      member 1      member 2
 *   seg 0    A0 -> P1      B0 -> P2      C0 -> P0
 *   seg 1    A1 -> P2      B1 -> P0      C1 -> P1
 *   parity   P0 = B1^C0    P1 = A0^C1    P2 = A1^B0
 *
 * so a request inside one member's data area touches that member alone,
 * and a small write touches it and one parity member.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/bitops.h>
#endif

#include "ssa-layout.h"

void ssa_geom_init(struct ssa_geom *g, u32 chunk, u32 members)
{
	g->chunk = chunk;
	g->members = members;
	g->chunk_shift = (chunk & (chunk - 1)) ? -1 : (int)__ffs(chunk);
	g->members_shift = (members & (members - 1)) ? -1 : (int)__ffs(members);
	g->rotation = SSA_LEFT_SYMMETRIC;
	g->rows = 0;
}

static u32 ssa_stripe_data_members(const struct ssa_geom *g)
{
	return g->members;
}

void ssa_stripe_map(const struct ssa_geom *g, u64 lsector,
		    struct ssa_extent *e)
{
	__ssa_stripe_map(g, lsector, e);
}

/*
 * The member-space extent [*mstart, *mend) that logical [start, end) covers
 * on @member.  A contiguous logical range always covers a contiguous range
 * of each member, so this is one extent or none (returns false).
 */
bool ssa_stripe_member_range(const struct ssa_geom *g, u64 start, u64 end,
			     u32 member, u64 *mstart, u64 *mend)
{
	u32 n = g->members, off0, off1, r0, r1;
	u64 c0, c1, first, last;

	if (start >= end)
		return false;

	c0 = ssa_chunk_index(g, start, &off0);
	c1 = ssa_chunk_index(g, end - 1, &off1);
	div_u64_rem(c0, n, &r0);
	div_u64_rem(c1, n, &r1);

	first = c0 + (member + n - r0) % n;
	if (first > c1)
		return false;
	last = c1 - (r1 + n - member) % n;

	*mstart = div_u64(first, n) * g->chunk + (first == c0 ? off0 : 0);
	*mend = div_u64(last, n) * g->chunk + (last == c1 ? off1 + 1 : g->chunk);
	return true;
}

/*
 * A read split among @n copies: every share but the last is the same
 * multiple of @align sectors, so no share starts inside an @align block
 * that another share also touches.  Fewer than @n shares result when @len
 * is short; 0 means do not split (@len fits in one @align block).
 */
u64 ssa_split_share(u64 len, u32 n, u32 align)
{
	u64 share;

	if (n < 2 || len <= align)
		return 0;
	share = div_u64(len + n - 1, n);
	share = div_u64(share + align - 1, align) * align;
	return share;
}

/* raid5: parity member of row @row. */
static u32 ssa_raid5_pmember(const struct ssa_geom *g, u64 row)
{
	u32 r;

	div_u64_rem(row, g->members, &r);
	if (g->rotation == SSA_LEFT_SYMMETRIC ||
	    g->rotation == SSA_LEFT_ASYMMETRIC)
		return g->members - 1 - r;
	return r;
}

static u32 ssa_raid5_data_members(const struct ssa_geom *g)
{
	return g->members - 1;
}

void ssa_raid5_map(const struct ssa_geom *g, u64 lsector, struct ssa_extent *e)
{
	u32 offset, d, p;
	u64 chunk = ssa_chunk_index(g, lsector, &offset);
	u64 row = div_u64_rem(chunk, g->members - 1, &d);

	p = ssa_raid5_pmember(g, row);
	if (g->rotation == SSA_LEFT_SYMMETRIC ||
	    g->rotation == SSA_RIGHT_SYMMETRIC)
		e->member = (p + 1 + d) % g->members;
	else
		e->member = d < p ? d : d + 1;
	e->msector = row * g->chunk + offset;
	e->len = g->chunk - offset;
}

static void ssa_raid5_group_at(const struct ssa_geom *g, u64 idx,
			       struct ssa_group *grp)
{
	grp->idx = idx;
	grp->pmember = ssa_raid5_pmember(g, idx);
	grp->pchunk = idx;
}

static void ssa_raid5_group_of(const struct ssa_geom *g, u32 member,
			       u64 mchunk, struct ssa_group *grp)
{
	ssa_raid5_group_at(g, mchunk, grp);
}

static u64 ssa_raid5_group_chunk(const struct ssa_geom *g,
				 const struct ssa_group *grp, u32 member)
{
	return grp->pchunk;
}

/* pstripe: chunks in each member's data area (D). */
u64 ssa_pstripe_data_chunks(const struct ssa_geom *g)
{
	return g->rows - div_u64(g->rows, g->members);
}

void ssa_pstripe_map(const struct ssa_geom *g, u64 lsector,
		     struct ssa_extent *e)
{
	u32 offset;
	u64 chunk = ssa_chunk_index(g, lsector, &offset);
	u64 dchunks = ssa_pstripe_data_chunks(g);

	e->member = div64_u64(chunk, dchunks);
	e->msector = (chunk - (u64)e->member * dchunks) * g->chunk + offset;
	e->len = g->chunk - offset;
}

/* Groups are numbered g * N + parity member, g the parity-area chunk. */
static void ssa_pstripe_group_at(const struct ssa_geom *g, u64 idx,
				 struct ssa_group *grp)
{
	u64 gg = div_u64_rem(idx, g->members, &grp->pmember);

	grp->idx = idx;
	grp->pchunk = ssa_pstripe_data_chunks(g) + gg;
}

static void ssa_pstripe_group_of(const struct ssa_geom *g, u32 member,
				 u64 mchunk, struct ssa_group *grp)
{
	u64 dchunks = ssa_pstripe_data_chunks(g);
	u64 per_seg = div_u64(g->rows, g->members);
	u64 seg, gg;
	u32 pm;

	if (mchunk >= dchunks) {
		pm = member;
		gg = mchunk - dchunks;
	} else {
		seg = div64_u64(mchunk, per_seg);
		gg = mchunk - seg * per_seg;
		pm = (member + 1 + (u32)seg) % g->members;
	}
	ssa_pstripe_group_at(g, gg * g->members + pm, grp);
}

static u64 ssa_pstripe_group_chunk(const struct ssa_geom *g,
				   const struct ssa_group *grp, u32 member)
{
	u64 dchunks = ssa_pstripe_data_chunks(g);
	u64 per_seg = div_u64(g->rows, g->members);
	u32 seg;

	if (member == grp->pmember)
		return grp->pchunk;
	seg = (grp->pmember + g->members - member - 1) % g->members;
	return seg * per_seg + (grp->pchunk - dchunks);
}

static const struct ssa_layout ssa_layouts[] = {
	{
		.name = "stripe",
		.id = SSA_LAYOUT_STRIPE,
		.min_members = 1,
		.data_members = ssa_stripe_data_members,
		.map = ssa_stripe_map,
		.member_range = ssa_stripe_member_range,
	},
	{
		/* geom.members counts mirror sets; see ssa_mirror_member() */
		.name = "mirror",
		.id = SSA_LAYOUT_MIRROR,
		.min_members = 2,
		.data_members = ssa_stripe_data_members,
		.map = ssa_stripe_map,
		.member_range = ssa_stripe_member_range,
	},
	{
		.name = "raid5",
		.id = SSA_LAYOUT_RAID5,
		.min_members = 3,
		.data_members = ssa_raid5_data_members,
		.map = ssa_raid5_map,
		.group_of = ssa_raid5_group_of,
		.group_at = ssa_raid5_group_at,
		.group_chunk = ssa_raid5_group_chunk,
	},
	{
		/* as much data per row as raid5: N - 1 chunks */
		.name = "pstripe",
		.id = SSA_LAYOUT_PSTRIPE,
		.min_members = 3,
		.data_members = ssa_raid5_data_members,
		.map = ssa_pstripe_map,
		.group_of = ssa_pstripe_group_of,
		.group_at = ssa_pstripe_group_at,
		.group_chunk = ssa_pstripe_group_chunk,
	},
	{
		/*
		 * Striped over the members in their data space; where a
		 * data-space sector's replicas lie is ssa_sr_sector()'s.
		 */
		.name = "srarray",
		.id = SSA_LAYOUT_SRARRAY,
		.min_members = 1,
		.data_members = ssa_stripe_data_members,
		.map = ssa_stripe_map,
		.member_range = ssa_stripe_member_range,
	},
};

const struct ssa_layout *ssa_layout_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ssa_layouts); i++)
		if (!strcmp(ssa_layouts[i].name, name))
			return &ssa_layouts[i];
	return NULL;
}
