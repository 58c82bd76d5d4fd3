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

int main(void)
{
	static const u32 chunks[] = { 1, 3, 8, 128, 192, 2048 };
	static const u32 widths[] = { 1, 2, 3, 4, 5, 8, 64 };
	unsigned int ci, wi, i;
	const struct ssa_layout *l;

	printf("TAP version 13\n");
	printf("1..%zu\n", 6 + 2 * ARRAY_SIZE(chunks) * ARRAY_SIZE(widths));

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

	printf("# %d passed, %d failed\n", test_nr - failures, failures);
	return failures ? 1 : 0;
}
