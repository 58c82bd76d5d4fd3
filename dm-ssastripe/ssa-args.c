// SPDX-License-Identifier: GPL-2.0-only
/*
 * ssa-args.c - the numbers of ssastripe's and ssadisk's tables and
 * messages, read strictly.
 *
 * DM core's dm_read_arg() and the sscanf("%llu%c") idiom go through
 * simple_strtoull(), which wraps silently: a member count of 4294967300 is
 * read as 4, an offset of 2^64 + 8 as 8.  The kstrto*() family refuses
 * overflow but takes a leading '+' and a trailing newline.  Here a number
 * is one to twenty decimal digits and nothing else, and one that does not
 * fit its type is an error of its own (-ERANGE), so that a table can say
 * "too large" rather than "invalid" or, worse, take another number.
 *
 * Pure code: tests/unit/test_args.c builds it on the host.
 */
#ifdef __KERNEL__
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#endif

#include "ssa-args.h"

/*
 * @s as a decimal number: 0, -EINVAL if it is empty or has anything but
 * digits, -ERANGE if it does not fit in 64 bits.  @val is set only on 0.
 */
int ssa_parse_u64(const char *s, u64 *val)
{
	u64 v = 0;
	unsigned int d;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (!isdigit(*s))
			return -EINVAL;
		d = *s - '0';
		if (v > (U64_MAX - d) / 10) {
			/* still a syntax error if a non-digit follows */
			while (isdigit(*s))
				s++;
			return *s ? -EINVAL : -ERANGE;
		}
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

/* ssa_parse_u64() for an unsigned int: -ERANGE above UINT_MAX. */
int ssa_parse_uint(const char *s, unsigned int *val)
{
	u64 v;
	int r = ssa_parse_u64(s, &v);

	if (r)
		return r;
	if (v > UINT_MAX)
		return -ERANGE;
	*val = v;
	return 0;
}

static int ssa_next_uint(const struct dm_arg *range, struct dm_arg_set *as,
			 unsigned int *val, char *too_large, char **error,
			 bool group)
{
	const char *s = as->argc ? as->argv[0] : NULL;
	unsigned int v;
	int r;

	r = ssa_parse_uint(s, &v);
	if (r == -ERANGE) {
		*error = too_large;
		return -EINVAL;
	}
	if (r || v < range->min || v > range->max ||
	    (group && v > as->argc - 1)) {
		*error = range->error;
		return -EINVAL;
	}
	as->argc--;
	as->argv++;
	*val = v;
	return 0;
}

/*
 * dm_read_arg() without the wrap: the next word of @as as a number in
 * [@range->min, @range->max], consumed.  A number too large for 32 bits
 * sets @too_large as the error; anything else wrong, @range->error.
 */
int ssa_read_uint(const struct dm_arg *range, struct dm_arg_set *as,
		  unsigned int *val, char *too_large, char **error)
{
	return ssa_next_uint(range, as, val, too_large, error, false);
}

/*
 * dm_read_arg_group() without the wrap: as ssa_read_uint(), and the count
 * must not exceed the words that follow it.  The words stay in @as.
 */
int ssa_read_group(const struct dm_arg *range, struct dm_arg_set *as,
		   unsigned int *val, char *too_large, char **error)
{
	return ssa_next_uint(range, as, val, too_large, error, true);
}

/*
 * Whether @mask, a set of member indexes (bit m: member m, as the table's
 * "rebuild" options name them), holds one at @n or above: a member a
 * table of @n members does not have.  @n may be 64 (SSA_MAX_MEMBERS),
 * where "mask >> n" would shift by the type's width, which C leaves
 * undefined (x86 shifts by 0 and finds every mask out of range).
 */
bool ssa_mask_beyond(u64 mask, unsigned int n)
{
	return n < 64 && (mask >> n);
}
