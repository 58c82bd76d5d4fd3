// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of dm-ssastripe's layout mapping (ssa-layout.c), against a
 * reference that places chunks one at a time, round robin, the way one would
 * on paper.  Prints TAP.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ssa-layout.h"
#include "tap.h"

/* Reference placement: member and member sector of every logical sector. */
struct ref {
	u32 *member;
	u64 *msector;
	u64 len;
};

static void ref_build(struct ref *r, u32 chunk, u32 n, u64 len)
{
	u64 *next = calloc(n, sizeof(*next));	/* next free sector per member */
	u64 s = 0;
	u32 m = 0, i;

	r->len = len;
	r->member = malloc(len * sizeof(*r->member));
	r->msector = malloc(len * sizeof(*r->msector));
	while (s < len) {
		for (i = 0; i < chunk && s < len; i++, s++) {
			r->member[s] = m;
			r->msector[s] = next[m] + i;
		}
		next[m] += chunk;
		m = (m + 1) % n;
	}
	free(next);
}

static void ref_free(struct ref *r)
{
	free(r->member);
	free(r->msector);
}

static bool check_map(const struct ssa_geom *g, const struct ref *r)
{
	struct ssa_extent e;
	u64 s;

	for (s = 0; s < r->len; s++) {
		ssa_stripe_map(g, s, &e);
		if (e.member != r->member[s] || e.msector != r->msector[s]) {
			fprintf(stderr, "# map(%llu): got m%u/%llu want m%u/%llu\n",
				(unsigned long long)s, e.member,
				(unsigned long long)e.msector, r->member[s],
				(unsigned long long)r->msector[s]);
			return false;
		}
		/* The run goes to the end of the chunk and no further. */
		if (s + e.len < r->len &&
		    (r->member[s + e.len] == e.member && g->members > 1)) {
			fprintf(stderr, "# map(%llu): run length %llu too short\n",
				(unsigned long long)s, (unsigned long long)e.len);
			return false;
		}
		if (e.len == 0 || e.len > g->chunk)
			return false;
	}
	return true;
}

/* member_range() against the brute-force min/max over the range. */
static bool check_range(const struct ssa_geom *g, const struct ref *r,
			u64 start, u64 end)
{
	u64 lo[SSA_MAX_MEMBERS], hi[SSA_MAX_MEMBERS], count[SSA_MAX_MEMBERS];
	u64 s, ms = 0, me = 0;
	u32 m;

	for (m = 0; m < g->members; m++) {
		lo[m] = UINT64_MAX;
		hi[m] = 0;
		count[m] = 0;
	}
	for (s = start; s < end; s++) {
		m = r->member[s];
		if (r->msector[s] < lo[m])
			lo[m] = r->msector[s];
		if (r->msector[s] + 1 > hi[m])
			hi[m] = r->msector[s] + 1;
		count[m]++;
	}
	for (m = 0; m < g->members; m++) {
		bool got = ssa_stripe_member_range(g, start, end, m, &ms, &me);

		/* Untouched, or one contiguous extent equal to the brute force. */
		if (!count[m] ? !got :
		    got && hi[m] - lo[m] == count[m] && ms == lo[m] && me == hi[m])
			continue;
		fprintf(stderr, "# range [%llu,%llu) member %u: got %d [%llu,%llu) want [%llu,%llu) count %llu\n",
			(unsigned long long)start, (unsigned long long)end, m,
			got, (unsigned long long)ms, (unsigned long long)me,
			(unsigned long long)lo[m], (unsigned long long)hi[m],
			(unsigned long long)count[m]);
		return false;
	}
	return true;
}

/*
 * Every read length and copy count: the shares, taken in order, cover the
 * read exactly, are aligned multiples except the last, and there are at
 * most as many as copies (at least two when splitting at all).
 */
static bool check_split(void)
{
	u32 n, align = 8;
	u64 len, share, nshares;

	for (n = 1; n <= 8; n++) {
		for (len = 1; len <= 4096; len++) {
			share = ssa_split_share(len, n, align);
			if (!share) {
				if (n >= 2 && len > align)
					return false;
				continue;
			}
			nshares = (len + share - 1) / share;
			if (share % align || nshares > n || nshares < 2 ||
			    (nshares - 1) * share >= len) {
				fprintf(stderr, "# split len=%llu n=%u: share %llu\n",
					(unsigned long long)len, n,
					(unsigned long long)share);
				return false;
			}
		}
	}
	return true;
}

/*
 * A parity layout over @n members of @rows chunks (chunk = 1 sector): every
 * logical chunk lands on a distinct member chunk; the groups partition all
 * member chunks, one per member, with the parity chunk the one chunk no
 * logical chunk maps to; group_of() inverts group_chunk().
 */
static bool check_parity(const struct ssa_layout *l, u32 n, u64 rows, u32 rot)
{
	u64 data = (u64)(n - 1) * rows, k, c, idx;
	long long *owner = malloc(n * rows * sizeof(*owner));
	char *seen = calloc(n * rows, 1);
	struct ssa_geom g;
	struct ssa_extent e;
	struct ssa_group grp, back;
	bool ok = true;
	u32 m;

	ssa_geom_init(&g, 1, n);
	g.rotation = rot;
	g.rows = rows;
	for (k = 0; k < n * rows; k++)
		owner[k] = -1;
	for (k = 0; k < data && ok; k++) {
		l->map(&g, k, &e);
		if (e.member >= n || e.msector >= rows || e.len != 1 ||
		    owner[e.member * rows + e.msector] >= 0) {
			fprintf(stderr, "# %s n=%u rot=%u: chunk %llu -> m%u/%llu\n",
				l->name, n, rot, (unsigned long long)k, e.member,
				(unsigned long long)e.msector);
			ok = false;
		} else {
			owner[e.member * rows + e.msector] = (long long)k;
		}
	}
	for (idx = 0; idx < rows && ok; idx++) {
		l->group_at(&g, idx, &grp);
		if (grp.idx != idx || grp.pmember >= n ||
		    owner[grp.pmember * rows + grp.pchunk] != -1)
			ok = false;
		for (m = 0; m < n && ok; m++) {
			c = l->group_chunk(&g, &grp, m);
			if (c >= rows || seen[m * rows + c]) {
				ok = false;
				break;
			}
			seen[m * rows + c] = 1;
			l->group_of(&g, m, c, &back);
			if (back.idx != idx || back.pmember != grp.pmember ||
			    back.pchunk != grp.pchunk)
				ok = false;
			if ((m == grp.pmember) != (owner[m * rows + c] < 0))
				ok = false;
		}
		if (!ok)
			fprintf(stderr, "# %s n=%u rot=%u: group %llu is wrong\n",
				l->name, n, rot, (unsigned long long)idx);
	}
	free(owner);
	free(seen);
	return ok;
}

/* Left-symmetric raid5 as in the picture in ssa-layout.c (and md). */
static bool check_raid5_picture(void)
{
	static const int want[4][4] = {	/* logical chunk, -1 for parity */
		{ 0, 1, 2, -1 }, { 4, 5, -1, 3 }, { 8, -1, 6, 7 },
		{ -1, 9, 10, 11 },
	};
	struct ssa_geom g;
	struct ssa_extent e;
	u32 k;

	ssa_geom_init(&g, 8, 4);
	g.rows = 4;
	for (k = 0; k < 12; k++) {
		ssa_raid5_map(&g, k * 8 + 3, &e);
		if (want[e.msector / 8][e.member] != (int)k || e.len != 5)
			return false;
	}
	return true;
}

/* pstripe with N = 3, G = 2 as in the picture in ssa-layout.c. */
static bool check_pstripe_picture(void)
{
	const struct ssa_layout *l = ssa_layout_find("pstripe");
	struct ssa_geom g;
	struct ssa_extent e;
	struct ssa_group grp;
	u64 k;

	ssa_geom_init(&g, 1, 3);
	g.rows = 6;	/* D = 4 data chunks, 2 parity chunks a member */
	for (k = 0; k < 12; k++) {
		ssa_pstripe_map(&g, k, &e);
		if (e.member != k / 4 || e.msector != k % 4)
			return false;
	}
	/* A0 (member 0, chunk 0) is covered by P1: member 1's chunk 4. */
	l->group_of(&g, 0, 0, &grp);
	if (grp.pmember != 1 || grp.pchunk != 4 ||
	    l->group_chunk(&g, &grp, 2) != 2)	/* C1: member 2's chunk 2 */
		return false;
	/* B0 (member 1, chunk 0) by P2; C0 (member 2, chunk 0) by P0. */
	l->group_of(&g, 1, 0, &grp);
	if (grp.pmember != 2 || grp.pchunk != 4)
		return false;
	l->group_of(&g, 2, 0, &grp);
	return grp.pmember == 0 && grp.pchunk == 4 &&
	       l->group_chunk(&g, &grp, 1) == 2;	/* B1 */
}

/*
 * srarray: over @tracks tracks of @track sectors, (u, r) -> member sector
 * is one to one onto the tracks, replica r of u lies r arcs after replica
 * 0 in the same track, and u's replica 0 runs on from u - 1's inside an arc.
 */
static bool check_srarray(u32 track, u32 replicas, u32 tracks)
{
	u32 arc = track / replicas;
	u64 data = (u64)arc * tracks, n = (u64)track * tracks, u;
	unsigned char *seen = calloc(n, 1);
	bool ok = seen != NULL;
	u32 r;

	for (u = 0; ok && u < data; u++) {
		u64 s0 = ssa_sr_sector(u, track, replicas, 0);

		for (r = 0; ok && r < replicas; r++) {
			u64 s = ssa_sr_sector(u, track, replicas, r);

			ok = s < n && !seen[s] && s / track == s0 / track &&
			     s - s0 == (u64)r * arc;
			if (ok)
				seen[s] = 1;
		}
		if (ok && u % arc)
			ok = s0 == ssa_sr_sector(u - 1, track, replicas, 0) + 1;
	}
	for (u = 0; ok && u < n; u++)
		ok = seen[u];
	free(seen);
	return ok;
}

int main(void)
{
	static const u32 chunks[] = { 1, 3, 8, 128, 192, 2048 };
	static const u32 widths[] = { 1, 2, 3, 4, 5, 8, 64 };
	unsigned int ci, wi, i;
	const struct ssa_layout *l;

	printf("TAP version 13\n");
	printf("1..%zu\n", 6 + 2 * ARRAY_SIZE(chunks) * ARRAY_SIZE(widths) +
	       6 + SSA_NR_ROTATIONS + 2);

	l = ssa_layout_find("stripe");
	tap(l && l->map == ssa_stripe_map && l->min_members == 1,
	    "layout_find(stripe)");
	tap(!ssa_layout_find("raid7") && !ssa_layout_find(""),
	    "layout_find rejects unknown names");

	for (ci = 0; ci < ARRAY_SIZE(chunks); ci++) {
		for (wi = 0; wi < ARRAY_SIZE(widths); wi++) {
			u32 c = chunks[ci], n = widths[wi];
			u64 len = (u64)c * n * 7;
			struct ssa_geom g;
			struct ref r;
			bool ok = true;

			ssa_geom_init(&g, c, n);
			ref_build(&r, c, n, len);
			tap(check_map(&g, &r), "map chunk=%u members=%u", c, n);

			srand(c * 131 + n);
			/* Ranges from one sector to a few stripes, anywhere. */
			for (i = 0; i < 2000 && ok; i++) {
				u64 a = (u64)rand() % len;
				u64 b = a + 1 + (u64)rand() % ((u64)c * n * 3);

				ok = check_range(&g, &r, a, b < len ? b : len);
			}
			/* Whole stripes from a stripe boundary. */
			ok = ok && check_range(&g, &r, 0, len) &&
			     check_range(&g, &r, (u64)c * n, (u64)c * n * 3);
			tap(ok, "member_range chunk=%u members=%u", c, n);
			ref_free(&r);
		}
	}

	/* Large sector numbers stay exact (no 32-bit truncation). */
	{
		struct ssa_geom g;
		struct ssa_extent e;
		u64 s = (1ULL << 40) + 12345;

		ssa_geom_init(&g, 192, 5);
		ssa_stripe_map(&g, s, &e);
		tap(e.member == (s / 192) % 5 &&
		    e.msector == (s / 192 / 5) * 192 + s % 192,
		    "map beyond 2^40 sectors");
	}

	l = ssa_layout_find("mirror");
	tap(l && l->id == SSA_LAYOUT_MIRROR && l->map == ssa_stripe_map &&
	    l->min_members == 2 && ssa_mirror_member(3, 2, 1) == 7 &&
	    ssa_mirror_member(0, 3, 2) == 2,
	    "mirror: sets of consecutive members, striped like stripe");

	tap(check_split(), "split shares cover the read in aligned pieces");
	tap(ssa_split_share(8, 2, 8) == 0 && ssa_split_share(100, 1, 8) == 0 &&
	    ssa_split_share(2048, 2, 8) == 1024 &&
	    ssa_split_share(24, 2, 8) == 16 && ssa_split_share(9, 3, 8) == 8,
	    "split share examples");

	l = ssa_layout_find("srarray");
	tap(l && l->id == SSA_LAYOUT_SRARRAY && l->map == ssa_stripe_map &&
	    check_srarray(96, 1, 5) && check_srarray(96, 2, 7) &&
	    check_srarray(96, 3, 4) && check_srarray(384, 6, 3) &&
	    check_srarray(64, 8, 2),
	    "srarray: replicas fill whole tracks, an arc apart");
	/* the documented example: u = 100, arc 48 -> track 2, offset 4 */
	tap(ssa_sr_sector(100, 96, 2, 0) == 196 &&
	    ssa_sr_sector(100, 96, 2, 1) == 244 &&
	    ssa_sr_sector(1ULL << 40, 384, 3, 2) ==
	    ((1ULL << 40) / 128) * 384 + 256 + (1ULL << 40) % 128,
	    "srarray: sector examples, beyond 2^40");

	tap(check_raid5_picture(), "raid5 left-symmetric placement");
	tap(check_pstripe_picture(), "pstripe placement and parity groups");
	for (i = 0; i < SSA_NR_ROTATIONS; i++) {
		bool ok = true;
		u32 n;

		for (n = 3; n <= 9 && ok; n++)
			ok = check_parity(ssa_layout_find("raid5"), n, 3 * n + 2, i);
		tap(ok, "raid5 rotation %u: groups partition the members", i);
	}
	{
		bool ok = true;
		u32 n;

		for (n = 3; n <= 9 && ok; n++)
			ok = check_parity(ssa_layout_find("pstripe"), n, 5 * n, 0);
		tap(ok, "pstripe: groups partition the members");
	}
	{
		struct ssa_geom g;
		struct ssa_extent e;
		u64 s = (1ULL << 40) + 777;

		ssa_geom_init(&g, 128, 6);
		g.rows = 1ULL << 36;
		ssa_raid5_map(&g, s, &e);
		tap(e.msector == (s / 128 / 5) * 128 + s % 128,
		    "raid5 map beyond 2^40 sectors");
		ssa_pstripe_map(&g, s, &e);
		tap(e.member == 0 && e.msector == s,
		    "pstripe map beyond 2^40 sectors");
	}
	tap(ssa_layout_find("raid5")->min_members == 3 &&
	    ssa_layout_find("pstripe")->min_members == 3,
	    "parity layouts need 3 members");

	printf("# %d passed, %d failed\n", test_nr - failures, failures);
	return failures ? 1 : 0;
}
