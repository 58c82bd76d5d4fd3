// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for ssatrace's histogram slots (tools/ssatrace/ssatrace.h):
 * the slot the BPF side counts a time in is the slot whose printed range
 * holds that time, and the ranges tile the microseconds without a gap.
 * And its number writer (tools/ssatrace/outbuf.h) writes what printf
 * would.
 */
#include <linux/types.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "ssatrace.h"
#include "outbuf.h"

static bool in_slot(__u64 ns)
{
	__u32 s = ssatrace_hist_slot(ns);
	__u64 us = ns / 1000;

	if (s == SSATRACE_HIST_SLOTS - 1)	/* the last slot takes the rest */
		return us >= ssatrace_hist_lo_us(s);
	return ssatrace_hist_lo_us(s) <= us && us <= ssatrace_hist_hi_us(s);
}

static void test_edges(void)
{
	bool ok = true;
	__u32 b;

	for (b = 0; b < 54; b++) {	/* us * 1000 stays below 2^64 */
		__u64 us = 1ULL << b;

		ok &= in_slot(us * 1000 - 1) && in_slot(us * 1000) &&
		      in_slot((us + 1) * 1000 - 1) && in_slot(us * 1000 + 999);
	}
	tap(ok, "every power-of-two edge lands in the slot printed for it");
}

static void test_known(void)
{
	tap(ssatrace_hist_slot(0) == 0 && ssatrace_hist_slot(999) == 0,
	    "under 1 us: slot 0 (printed 0 -> 0)");
	tap(ssatrace_hist_slot(1000) == 1 && ssatrace_hist_slot(1999) == 1,
	    "1 us: slot 1 (printed 1 -> 1)");
	tap(ssatrace_hist_slot(2000) == 2 && ssatrace_hist_slot(3999) == 2,
	    "2-3 us: slot 2");
	tap(ssatrace_hist_slot(2000000) == 11, "2 ms: slot 11 (printed 1024 -> 2047)");
	tap(ssatrace_hist_slot(~0ULL) == SSATRACE_HIST_SLOTS - 1,
	    "the longest time: the last slot");
}

static void test_tiling(void)
{
	bool ok = ssatrace_hist_lo_us(0) == 0 && ssatrace_hist_hi_us(0) == 0;
	__u32 s;

	for (s = 1; s < SSATRACE_HIST_SLOTS; s++)
		ok &= ssatrace_hist_lo_us(s) == ssatrace_hist_hi_us(s - 1) + 1;
	tap(ok, "the printed ranges follow one another without a gap");
}

static void test_pseudo_random(void)
{
	__u64 x = 88172645463325252ULL;
	bool ok = true;
	int i;

	for (i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ok &= in_slot(x >> (x & 63));	/* times of every magnitude */
	}
	tap(ok, "100000 times of every magnitude each land in their printed range");
}

/* outbuf_*() against snprintf() on the edges and 10^6 pseudo-random values */
static void test_outbuf(void)
{
	static const unsigned long long edges[] = {
		0, 1, 9, 10, 99, 100, 4294967295ULL, 4294967296ULL,
		9223372036854775807ULL, 9223372036854775808ULL, 9999999999999999999ULL,
		10000000000000000000ULL, ULLONG_MAX,
	};
	char want[64], got[64], *end;
	unsigned long long x = 88172645463325252ULL, v;
	bool ok_u = true, ok_s = true;
	unsigned int i;

	for (i = 0; i < 1000000 + sizeof(edges) / sizeof(edges[0]); i++) {
		if (i < sizeof(edges) / sizeof(edges[0])) {
			v = edges[i];
		} else {	/* xorshift64, then a random magnitude */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v = x >> (x % 64);
		}
		snprintf(want, sizeof(want), "%llu", v);
		end = outbuf_u64(got, v);
		*end = 0;
		ok_u &= !strcmp(want, got);
		snprintf(want, sizeof(want), "%lld", (long long)v);
		end = outbuf_s64(got, (long long)v);
		*end = 0;
		ok_s &= !strcmp(want, got);
	}
	tap(ok_u, "outbuf_u64 writes what %%llu does");
	tap(ok_s, "outbuf_s64 writes what %%lld does, LLONG_MIN included");
	end = outbuf_char(outbuf_str(got, "fio\0junk", 16), '|');
	end = outbuf_str(end, "0123456789abcdefXYZ", 16);
	*end = 0;
	tap(!strcmp(got, "fio|0123456789abcdef"),
	    "outbuf_str stops at the NUL or the bound");
	end = outbuf_name(got, "a,b\"c\\d\ne\x7f\xc3\xa9" "f\0x", 16);
	*end = 0;
	tap(!strcmp(got, "a?b?c?d?e?\xc3\xa9" "f"),
	    "outbuf_name masks what would break a CSV field or JSON string");
}

int main(void)
{
	printf("TAP version 13\n");
	test_known();
	test_edges();
	test_tiling();
	test_pseudo_random();
	test_outbuf();
	printf("1..%d\n", test_nr);
	return failures ? 1 : 0;
}
