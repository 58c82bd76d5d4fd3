/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ssatrace: building a record's text line without printf.  A record is
 * some twenty numbers; printf's format parsing made writing it cost more
 * than the whole BPF side of the request (bench/README.md), so each line
 * is put together with these and written with one fwrite().
 *
 * Each function writes at p and returns the end of what it wrote; the
 * caller keeps room (OUTBUF_U64_MAX bytes per number).
 */
#ifndef SSATRACE_OUTBUF_H
#define SSATRACE_OUTBUF_H

#include <string.h>

#define OUTBUF_U64_MAX	20	/* digits of 2^64 - 1 */

/* "00" to "99": two digits per division, half the divisions of one each */
static const char outbuf_pairs[] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline char *outbuf_u64(char *p, unsigned long long v)
{
	char tmp[OUTBUF_U64_MAX];
	int n = OUTBUF_U64_MAX;

	/* the digits go in from the end, so nothing is reversed */
	while (v >= 100) {
		unsigned int r = v % 100;

		v /= 100;
		n -= 2;
		memcpy(tmp + n, outbuf_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		n -= 2;
		memcpy(tmp + n, outbuf_pairs + 2 * v, 2);
	} else {
		tmp[--n] = '0' + v;
	}
	memcpy(p, tmp + n, OUTBUF_U64_MAX - n);
	return p + OUTBUF_U64_MAX - n;
}

static inline char *outbuf_s64(char *p, long long v)
{
	if (v < 0) {
		*p++ = '-';
		return outbuf_u64(p, 0ULL - (unsigned long long)v);
	}
	return outbuf_u64(p, v);
}

/* At most max bytes of s, up to its NUL. */
static inline char *outbuf_str(char *p, const char *s, unsigned int max)
{
	while (max-- && *s)
		*p++ = *s++;
	return p;
}

/*
 * A task name, at most max bytes up to its NUL, as a CSV field or a JSON
 * string can hold it: control characters, ',', '"' and '\\' become '?'
 * (a task can name itself anything).
 */
static inline char *outbuf_name(char *p, const char *s, unsigned int max)
{
	for (; max-- && *s; s++) {
		unsigned char c = *s;

		*p++ = c < 0x20 || c == 0x7f || c == ',' || c == '"' || c == '\\' ?
		       '?' : c;
	}
	return p;
}

static inline char *outbuf_char(char *p, char c)
{
	*p = c;
	return p + 1;
}

#endif /* SSATRACE_OUTBUF_H */
