// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of the strict number parsing of dm-ssastripe's tables and
 * messages (ssa-args.c): what is a number, what is too large, and that the
 * argument-set readers consume exactly what they read.  Prints TAP.
 */
#include <stdio.h>

#include "ssa-args.h"
#include "tap.h"

/* @s for a TAP line: a newline shown as \n */
static const char *shown(const char *s)
{
	static char buf[64];
	size_t i = 0;

	if (!s)
		return "(null)";
	for (; *s && i < sizeof(buf) - 3; s++) {
		if (*s == '\n') {
			buf[i++] = '\\';
			buf[i++] = 'n';
		} else {
			buf[i++] = *s;
		}
	}
	buf[i] = 0;
	return buf;
}

static void u64_case(const char *s, int want_r, u64 want)
{
	u64 v = 12345;
	int r = ssa_parse_u64(s, &v);

	tap(r == want_r && (r || v == want) && (!r || v == 12345),
	    "u64 '%s': %d %llu (want %d %llu)", shown(s), r,
	    (unsigned long long)v, want_r, (unsigned long long)want);
}

static void uint_case(const char *s, int want_r, unsigned int want)
{
	unsigned int v = 777;
	int r = ssa_parse_uint(s, &v);

	tap(r == want_r && (r || v == want) && (!r || v == 777),
	    "uint '%s': %d %u (want %d %u)", shown(s), r, v, want_r,
	    want);
}

static void read_case(const char *what, char **argv, unsigned int argc,
		      bool group, int want_r, unsigned int want,
		      const char *want_error, unsigned int want_left)
{
	static const struct dm_arg range = { 1, 64, "out of range" };
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	unsigned int v = 0;
	char *error = NULL;
	int r;

	r = group ? ssa_read_group(&range, &as, &v, "too large", &error) :
		    ssa_read_uint(&range, &as, &v, "too large", &error);
	tap(r == want_r && (r || v == want) &&
	    (want_error ? error && !strcmp(error, want_error) : !error) &&
	    as.argc == want_left,
	    "%s: r=%d v=%u error=%s left=%u", what, r, v,
	    error ? error : "-", as.argc);
}

/*
 * ssa_mask_beyond() for every table width 1-64 and every member bit: a
 * bit is beyond the table exactly when its index is n or more; at 64
 * members none is, and the full mask is not either.
 */
static void beyond_cases(void)
{
	unsigned int n, m, bad;

	for (n = 1; n <= 64; n++) {
		bad = 0;
		for (m = 0; m < 64; m++)
			if (ssa_mask_beyond(1ULL << m, n) != (m >= n))
				bad++;
		if (ssa_mask_beyond(n < 64 ? (1ULL << n) - 1 : UINT64_MAX, n))
			bad++;
		if (!ssa_mask_beyond(UINT64_MAX, n) != (n == 64))
			bad++;
		tap(!bad, "mask beyond %u members: %u wrong", n, bad);
	}
	tap(!ssa_mask_beyond(0, 64) && !ssa_mask_beyond(0, 1),
	    "the empty mask is beyond no table");
}

int main(void)
{
	char *four[] = { "4", "a", "b", "c", "d" };
	char *wrap32[] = { "4294967300", "a" };
	char *wrap64[] = { "18446744073709551624", "a" };
	char *neg[] = { "-4", "a" };
	char *plus[] = { "+4", "a" };
	char *many[] = { "3", "a", "b" };
	char *zero[] = { "0" };

	u64_case("0", 0, 0);
	u64_case("8", 0, 8);
	u64_case("007", 0, 7);
	u64_case("18446744073709551615", 0, UINT64_MAX);
	u64_case("18446744073709551616", -ERANGE, 0);
	u64_case("18446744073709551624", -ERANGE, 0);	/* 2^64 + 8 */
	u64_case("99999999999999999999999999", -ERANGE, 0);
	u64_case("99999999999999999999999999x", -EINVAL, 0);
	u64_case("", -EINVAL, 0);
	u64_case(NULL, -EINVAL, 0);
	u64_case("-1", -EINVAL, 0);
	u64_case("+1", -EINVAL, 0);
	u64_case(" 1", -EINVAL, 0);
	u64_case("1 ", -EINVAL, 0);
	u64_case("1\n", -EINVAL, 0);
	u64_case("0x10", -EINVAL, 0);
	u64_case("1k", -EINVAL, 0);
	u64_case("1.5", -EINVAL, 0);

	uint_case("4294967295", 0, UINT_MAX);
	uint_case("4294967296", -ERANGE, 0);
	uint_case("4294967300", -ERANGE, 0);	/* 2^32 + 4 */
	uint_case("18446744073709551620", -ERANGE, 0);
	uint_case("12", 0, 12);
	uint_case("two", -EINVAL, 0);

	read_case("4 of 64", four, 5, false, 0, 4, NULL, 4);
	read_case("2^32 + 4 wraps not", wrap32, 2, false, -EINVAL, 0, "too large", 2);
	read_case("2^64 + 8 wraps not", wrap64, 2, false, -EINVAL, 0, "too large", 2);
	read_case("negative", neg, 2, false, -EINVAL, 0, "out of range", 2);
	read_case("plus sign", plus, 2, false, -EINVAL, 0, "out of range", 2);
	read_case("zero below min", zero, 1, false, -EINVAL, 0, "out of range", 1);
	read_case("nothing left", zero, 0, false, -EINVAL, 0, "out of range", 0);
	read_case("group of 4 with 4 after", four, 5, true, 0, 4, NULL, 4);
	read_case("group of 3 with 2 after", many, 3, true, -EINVAL, 0, "out of range", 3);
	read_case("group 2^32 + 4", wrap32, 2, true, -EINVAL, 0, "too large", 2);

	beyond_cases();

	printf("1..%d\n", test_nr);
	printf("# %d passed, %d failed\n", test_nr - failures, failures);
	return failures ? 1 : 0;
}
