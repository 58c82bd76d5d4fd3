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
}

u64 ssa_chunk_index(const struct ssa_geom *g, u64 sector, u32 *offset)
{
	if (g->chunk_shift >= 0) {
		*offset = sector & (g->chunk - 1);
		return sector >> g->chunk_shift;
	}
	return div_u64_rem(sector, g->chunk, offset);
}

static u32 ssa_stripe_data_members(const struct ssa_geom *g)
{
	return g->members;
}

void ssa_stripe_map(const struct ssa_geom *g, u64 lsector,
		    struct ssa_extent *e)
{
	u32 offset, member;
	u64 chunk = ssa_chunk_index(g, lsector, &offset);
	u64 row = div_u64_rem(chunk, g->members, &member);

	e->member = member;
	e->msector = row * g->chunk + offset;
	e->len = g->chunk - offset;
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
};

const struct ssa_layout *ssa_layout_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ssa_layouts); i++)
		if (!strcmp(ssa_layouts[i].name, name))
			return &ssa_layouts[i];
	return NULL;
}
