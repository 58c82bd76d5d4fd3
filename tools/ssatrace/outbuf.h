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

/* The number of decimal digits of v (1 for 0). */
static inline unsigned int outbuf_u64_len(unsigned long long v)
{
	static const unsigned long long pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL,
	};
	/* bits * log10(2), rounded down, is the length or one short of it */
	unsigned int t = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + ((v | 1) >= pow10[t]);
}

/* The two digits of r < 100 just before q; returns where they start. */
static inline char *outbuf_pair(char *q, unsigned int r)
{
	q -= 2;
	memcpy(q, outbuf_pairs + 2 * r, 2);
	return q;
}

static inline char *outbuf_u64(char *p, unsigned long long v)
{
	char *end = p + outbuf_u64_len(v), *q = end;
	unsigned int w, i;

	/*
	 * The digits go in from the end, so nothing is reversed or moved.
	 * Eight at a time come off with one 64-bit division; the rest of
	 * the work is in 32 bits, which is cheaper.
	 */
	while (v >= 100000000) {
		w = v % 100000000;
		v /= 100000000;
		for (i = 0; i < 4; i++) {
			q = outbuf_pair(q, w % 100);
			w /= 100;
		}
	}
	w = v;
	while (w >= 100) {
		q = outbuf_pair(q, w % 100);
		w /= 100;
	}
	if (w >= 10)
		outbuf_pair(q, w);
	else
		q[-1] = '0' + w;
	return end;
}

static inline char *outbuf_s64(char *p, long long v)
{
	if (v < 0) {
		*p++ = '-';
		return outbuf_u64(p, 0ULL - (unsigned long long)v);
	}
	return outbuf_u64(p, v);
}

/*
 * The last two times written through it, as text.  A record's times
 * repeat: a child that never waited was dispatched when it was queued, and
 * a remapped request is queued as it forks and joins as its child
 * completes.  Copying digits already written costs a few moves; writing
 * a 19-digit time again costs a dozen multiplications and as many stores.
 * Zero it before use.
 */
struct outbuf_memo {
	unsigned long long v[2];
	unsigned int len[2];	/* 0: nothing kept */
	unsigned int next;	/* the entry the next new value replaces */
	char s[2][OUTBUF_U64_MAX];
};

/* outbuf_u64(), through @m: writes up to OUTBUF_U64_MAX bytes, as it does. */
static inline char *outbuf_u64_memo(char *p, unsigned long long v,
				    struct outbuf_memo *m)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (m->len[i] && m->v[i] == v)
			goto copy;
	i = m->next;
	m->next = !i;
	m->v[i] = v;
	m->len[i] = outbuf_u64(m->s[i], v) - m->s[i];
copy:
	/* a fixed-size copy is a few moves; what follows is written over */
	memcpy(p, m->s[i], OUTBUF_U64_MAX);
	return p + m->len[i];
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

/* n bytes of s; outbuf_lit(): a string constant, without its NUL. */
static inline char *outbuf_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

#define outbuf_lit(p, s)	outbuf_mem(p, s, sizeof(s) - 1)

static inline char *outbuf_char(char *p, char c)
{
	*p = c;
	return p + 1;
}

#endif /* SSATRACE_OUTBUF_H */
