// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for ssatrace's histogram slots (tools/ssatrace/ssatrace.h):
 * the slot the BPF side counts a time in is the slot whose printed range
 * holds that time, and the ranges tile the microseconds without a gap.
 * And its number writer (tools/ssatrace/outbuf.h) writes what printf
 * would, and so do its CSV and JSON record lines (tools/ssatrace/record.h),
 * checked against the printf formulation they replaced.  And hist's rows
 * go to devices one each, however CPUs race for them.  And the reader's
 * forced wake-up comes at a size that batches and leaves room.
 */
#include <linux/types.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "ssatrace.h"
#include "outbuf.h"
#include "record.h"

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

/* Every histogram of a device's row is a different one, and says which. */
static void test_hist_rows(void)
{
	struct ssatrace_hist_key k;
	static bool seen[SSATRACE_HISTS_PER_DEV];
	bool ok = true;
	__u32 op, m, class, kind, i;

	for (op = 0; op < SSATRACE_HIST_OPS; op++) {
		i = ssatrace_hist_response(op);
		ssatrace_hist_what(i, &k);
		ok &= i < SSATRACE_HISTS_PER_DEV && !seen[i] &&
		      k.kind == SSATRACE_HIST_RESPONSE && k.idx == op;
		seen[i] = true;
	}
	for (m = 0; m < SSATRACE_HIST_MEMBERS; m++)
		for (class = 0; class < 2; class++)
			for (kind = SSATRACE_HIST_WAIT; kind <= SSATRACE_HIST_SERVICE; kind++) {
				i = ssatrace_hist_child(m, class, kind);
				ssatrace_hist_what(i, &k);
				ok &= i < SSATRACE_HISTS_PER_DEV && !seen[i] &&
				      k.kind == kind && k.idx == m && k.class == class;
				seen[i] = true;
			}
	for (i = 0; i < SSATRACE_HISTS_PER_DEV; i++)
		ok &= seen[i];
	tap(ok, "a device's %d histograms: one per op, member, class and kind, each named back",
	    SSATRACE_HISTS_PER_DEV);
}

/* Taking and giving back rows, one thread. */
static void test_row_take(void)
{
	__u64 held = 0;
	bool ok = true;
	int r;

	for (r = 0; r < SSATRACE_HIST_DEVS; r++)
		ok &= ssatrace_hist_row_take(&held) == r;
	ok &= held == SSATRACE_HIST_ALL_ROWS;
	ok &= ssatrace_hist_row_take(&held) == -1;
	ssatrace_hist_row_give(&held, 5);
	ok &= held == (SSATRACE_HIST_ALL_ROWS & ~(1ULL << 5));
	ok &= ssatrace_hist_row_take(&held) == 5;
	ok &= ssatrace_hist_row_take(&held) == -1;
	tap(ok, "rows are taken lowest first, none past the last, a given-back row again");
}

/*
 * Threads give rows to devices as the BPF side does (hist_row()), with a
 * locked table standing in for the hash map hist_devs and its BPF_NOEXIST
 * insert.  Half the threads walk the devices in one order and half in the
 * other, twice, so that they keep meeting the same new device at once.
 * Then, as a device's next request would, one more walk on its own gives
 * a row to any device whose request was lost while a row was being given
 * back (hist_row()); after that every device must have one.
 */
#define ROW_THREADS	4
#define ROW_ROUNDS	3000	/* at least; on until ROW_RACES races were seen */
#define ROW_ROUNDS_MAX	60000
#define ROW_RACES	200

static struct {
	pthread_mutex_t lock;
	pthread_barrier_t start;
	__u64 held;
	int row[SSATRACE_HIST_DEVS + 4];	/* device -> row, -1: none */
	int devs;
	bool stop;
	unsigned long inserts_lost;
} rows = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int row_lookup(int dev)
{
	int r;

	pthread_mutex_lock(&rows.lock);
	r = rows.row[dev];
	pthread_mutex_unlock(&rows.lock);
	return r;
}

static bool row_insert(int dev, int row)
{
	bool won;

	pthread_mutex_lock(&rows.lock);
	won = rows.row[dev] < 0;
	if (won)
		rows.row[dev] = row;
	else
		rows.inserts_lost++;
	pthread_mutex_unlock(&rows.lock);
	return won;
}

static void row_for(int dev)
{
	volatile int spin;
	int taken;

	if (row_lookup(dev) >= 0)
		return;
	taken = ssatrace_hist_row_take(&rows.held);
	if (taken < 0)
		return;
	/* widen the window in which another thread meets the same device */
	for (spin = 0; spin < 500; spin++)
		;
	if (!row_insert(dev, taken))
		ssatrace_hist_row_give(&rows.held, taken);
}

static void *row_thread(void *arg)
{
	long t = (long)arg;
	int pass, i;

	for (;;) {
		pthread_barrier_wait(&rows.start);
		if (rows.stop)
			break;
		for (pass = 0; pass < 2; pass++)
			for (i = 0; i < rows.devs; i++)
				row_for(t & 1 ? rows.devs - 1 - i : i);
		pthread_barrier_wait(&rows.start);
	}
	return NULL;
}

static void test_row_race(void)
{
	pthread_t th[ROW_THREADS];
	bool ok = true, used[SSATRACE_HIST_DEVS];
	int round, dev, n, want;
	__u64 mask;
	long t;

	pthread_barrier_init(&rows.start, NULL, ROW_THREADS + 1);
	for (t = 0; t < ROW_THREADS; t++)
		pthread_create(&th[t], NULL, row_thread, (void *)t);
	for (round = 0; round < ROW_ROUNDS_MAX; round++) {
		if (round >= ROW_ROUNDS && rows.inserts_lost >= ROW_RACES)
			break;
		/* 1..SSATRACE_HIST_DEVS + 4 devices, in turn */
		rows.devs = 1 + round % (SSATRACE_HIST_DEVS + 4);
		rows.held = 0;
		for (dev = 0; dev < SSATRACE_HIST_DEVS + 4; dev++)
			rows.row[dev] = -1;
		pthread_barrier_wait(&rows.start);
		pthread_barrier_wait(&rows.start);
		for (dev = 0; dev < rows.devs; dev++)
			row_for(dev);
		memset(used, 0, sizeof(used));
		mask = 0;
		n = 0;
		for (dev = 0; dev < rows.devs; dev++) {
			int r = rows.row[dev];

			if (r < 0)
				continue;
			if (r >= SSATRACE_HIST_DEVS || used[r]) {
				ok = false;
				continue;
			}
			used[r] = true;
			mask |= 1ULL << r;
			n++;
		}
		want = rows.devs < SSATRACE_HIST_DEVS ? rows.devs : SSATRACE_HIST_DEVS;
		if (n != want || mask != rows.held)
			ok = false;
	}
	rows.stop = true;
	pthread_barrier_wait(&rows.start);
	for (t = 0; t < ROW_THREADS; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&rows.start);
	if (!rows.inserts_lost) {
		printf("ok %d - rows under a race # SKIP no two threads met a new device at once in %d rounds\n",
		       ++test_nr, round);
		return;
	}
	tap(ok, "%d threads, %d rounds: each device one row of its own, no row held by none (%lu inserts lost a race)",
	    ROW_THREADS, round, rows.inserts_lost);
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

/* xorshift64, and a value of a random magnitude */
static unsigned long long rnd_state = 88172645463325252ULL;

static unsigned long long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static unsigned long long rnd_mag(void)
{
	unsigned long long v = rnd();

	return v >> (rnd() % 64);
}

/* A record with room for @room children, every field random. */
static void random_record(struct ssa_trace_req *r, __u32 room, __u64 *disk)
{
	unsigned int j;

	r->id = rnd_mag();
	r->sector = rnd_mag();
	r->fork_ns = rnd_mag();
	r->join_ns = rnd_mag();
	r->dev = rnd();
	r->len = rnd();
	r->nr_slots = rnd() % (room + 1);
	r->nr_children = rnd() % 3 ? r->nr_slots : rnd() % 200;
	r->status = rnd() % 3 ? 0 : (int)rnd();
	r->op = rnd() % 8;
	for (j = 0; j < sizeof(r->comm); j++)
		r->comm[j] = (char)(rnd() % 4 ? 'a' + rnd() % 26 : rnd());
	for (j = 0; j < room; j++) {
		struct ssa_trace_child *c = &r->child[j];

		c->id = rnd() % 5 ? r->id : rnd();	/* some slots hold no child */
		c->queued_ns = rnd_mag();
		c->dispatched_ns = rnd_mag();
		c->completed_ns = rnd_mag();
		c->msector = rnd_mag();
		c->len = rnd();
		c->qlen = rnd();
		c->status = rnd() % 3 ? 0 : (int)rnd();
		c->member = rnd();
		c->class = rnd();
		c->op = rnd();
		disk[j] = rnd_mag();
		/* times repeat as the module writes them (outbuf_u64_memo()) */
		if (rnd() % 2)
			c->dispatched_ns = c->queued_ns;
		if (rnd() % 4 == 0)
			c->queued_ns = r->fork_ns;
		if (rnd() % 4 == 0)
			c->completed_ns = r->join_ns;
		if (j && rnd() % 4 == 0)
			c->queued_ns = r->child[j - 1].completed_ns;
	}
}

#define REF_PRINT(...)	(p += snprintf(p, end - p, __VA_ARGS__))

/* The CSV line as printf writes it. */
static void ref_csv(char *p, char *end, const struct ssa_trace_req *r,
		    const struct ssa_trace_derived *d, const __u64 *disk)
{
	char comm[sizeof(r->comm) + 1];
	unsigned int i, k = 0;

	*outbuf_name(comm, r->comm, sizeof(r->comm)) = '\0';
	REF_PRINT("%llu,%llu,%u:%u,%llu,%s,%llu,%u,%s,%d,%u,%llu,%llu,%llu,%llu,",
		  r->fork_ns, r->join_ns, r->dev >> 20, r->dev & 0xfffff, r->id,
		  ssatrace_op_name(r->op), r->sector, r->len, comm, r->status,
		  r->nr_children, d->resp_ns, d->max_wait_ns, d->max_service_ns,
		  d->skew_ns);
	for (i = 0; i < r->nr_slots; i++) {
		const struct ssa_trace_child *c = &r->child[i];

		if (!ssa_trace_child_valid(r, i))
			continue;
		REF_PRINT("%s%u:%s:%llu:%llu:%llu:%llu:%u", k++ ? "|" : "", c->member,
			  ssatrace_class_names[c->class & 1], c->queued_ns,
			  c->dispatched_ns, c->completed_ns, c->msector, c->len);
		if (disk)
			REF_PRINT(":%llu", disk[i]);
	}
	REF_PRINT(",%d\n", r->nr_children > r->nr_slots);
}

/* The JSON line as printf writes it. */
static void ref_json(char *p, char *end, const struct ssa_trace_req *r,
		     const struct ssa_trace_derived *d, const __u64 *disk)
{
	char comm[sizeof(r->comm) + 1];
	unsigned int i, k = 0;

	*outbuf_name(comm, r->comm, sizeof(r->comm)) = '\0';
	REF_PRINT("{\"fork_ns\":%llu,\"join_ns\":%llu,\"dev\":\"%u:%u\",\"id\":%llu,"
		  "\"op\":\"%s\",\"sector\":%llu,\"len\":%u,\"comm\":\"%s\",\"status\":%d,"
		  "\"nr_children\":%u,\"truncated\":%s,\"resp_ns\":%llu,\"max_wait_ns\":%llu,"
		  "\"max_service_ns\":%llu,\"skew_ns\":%llu,\"last_member\":%d,\"children\":[",
		  r->fork_ns, r->join_ns, r->dev >> 20, r->dev & 0xfffff, r->id,
		  ssatrace_op_name(r->op), r->sector, r->len, comm, r->status,
		  r->nr_children, r->nr_children > r->nr_slots ? "true" : "false",
		  d->resp_ns, d->max_wait_ns, d->max_service_ns, d->skew_ns,
		  d->last_member);
	for (i = 0; i < r->nr_slots; i++) {
		const struct ssa_trace_child *c = &r->child[i];

		if (!ssa_trace_child_valid(r, i))
			continue;
		REF_PRINT("%s{\"child\":%u,\"member\":%u,\"class\":\"%s\",\"op\":\"%s\","
			  "\"queued_ns\":%llu,\"dispatched_ns\":%llu,\"completed_ns\":%llu,"
			  "\"msector\":%llu,\"len\":%u,\"qlen\":%u,\"status\":%d",
			  k++ ? "," : "", i, c->member, ssatrace_class_names[c->class & 1],
			  ssatrace_op_name(c->op), c->queued_ns, c->dispatched_ns,
			  c->completed_ns, c->msector, c->len, c->qlen, c->status);
		if (disk)
			REF_PRINT(",\"disk_start_ns\":%llu", disk[i]);
		REF_PRINT("}");
	}
	REF_PRINT("]}\n");
}

/*
 * ssatrace_csv() and ssatrace_json() against printf on random records of
 * every room, with and without disk times; and the longest line each can
 * write stays under SSATRACE_LINE_MAX.
 */
static void test_record_lines(void)
{
	static const __u32 rooms[] = { 1, 4, 16, SSA_TRACE_MAX_SLOTS };
	static __u64 rec[(sizeof(struct ssa_trace_req) +
			  SSA_TRACE_MAX_SLOTS * sizeof(struct ssa_trace_child)) / 8 + 1];
	static char want[2 * SSATRACE_LINE_MAX], got[2 * SSATRACE_LINE_MAX];
	static __u64 disk[SSA_TRACE_MAX_SLOTS];
	struct ssa_trace_req *r = (void *)rec;
	struct ssa_trace_derived d;
	bool ok_csv = true, ok_json = true, ok_max = true;
	unsigned int i, j;
	char *end;

	for (i = 0; i < 40000; i++) {
		const __u64 *dk = i & 1 ? disk : NULL;

		random_record(r, rooms[i % 4], disk);
		ssa_trace_derive(r, &d);
		ref_csv(want, want + sizeof(want), r, &d, dk);
		end = ssatrace_csv(got, r, &d, dk);
		*end = '\0';
		ok_csv &= !strcmp(want, got);
		ref_json(want, want + sizeof(want), r, &d, dk);
		end = ssatrace_json(got, r, &d, dk);
		*end = '\0';
		ok_json &= !strcmp(want, got);
	}
	tap(ok_csv, "ssatrace_csv writes what printf does, 40000 random records");
	tap(ok_json, "ssatrace_json writes what printf does, 40000 random records");

	/* the longest: every number at its widest, every slot a child */
	memset(rec, 0xff, sizeof(rec));
	r->nr_slots = SSA_TRACE_MAX_SLOTS;
	r->status = INT_MIN;
	memset(r->comm, 'x', sizeof(r->comm));
	for (j = 0; j < SSA_TRACE_MAX_SLOTS; j++) {
		r->child[j].status = INT_MIN;
		r->child[j].op = 4;	/* the longest op name */
		r->child[j].class = 0;
	}
	r->op = 4;
	ssa_trace_derive(r, &d);
	d.last_member = INT_MIN;
	ok_max &= ssatrace_csv(got, r, &d, disk) - got < SSATRACE_LINE_MAX;
	ok_max &= ssatrace_json(got, r, &d, disk) - got < SSATRACE_LINE_MAX;
	tap(ok_max, "the longest CSV and JSON lines fit SSATRACE_LINE_MAX");
}

/*
 * The reader's forced wake-up (SSATRACE_WAKEUP_BYTES), for every ring
 * buffer --buffer accepts: it batches (a wake-up never waits on fewer
 * bytes than one one-child record), and it comes while the largest record
 * still fits, so a burst that outruns the reader's poll reaches it before
 * the buffer is full.  And the default buffer wakes it at 1 MiB, as
 * Documentation/tracing.rst says.
 */
static void test_wakeup(void)
{
	const __u64 smallest = ssatrace_sample_size(1, 0) + 8;	/* + header */
	const __u64 largest = ssatrace_sample_size(SSA_TRACE_MAX_SLOTS, 1) + 8;
	bool batches = true, room = true;
	__u64 kib, size, w;

	for (kib = SSATRACE_RINGBUF_MIN_KIB; kib <= SSATRACE_RINGBUF_MAX_KIB; kib *= 2) {
		size = kib * 1024;
		w = SSATRACE_WAKEUP_BYTES(size);
		if (w < smallest) {
			printf("# %llu KiB: wakes at %llu bytes, less than a record\n",
			       (unsigned long long)kib, (unsigned long long)w);
			batches = false;
		}
		if (w > size || size - w < largest) {
			printf("# %llu KiB: wakes at %llu bytes, too late for a %llu-byte record\n",
			       (unsigned long long)kib, (unsigned long long)w,
			       (unsigned long long)largest);
			room = false;
		}
	}
	tap(batches, "the reader is woken for a batch of records at every buffer size");
	tap(room, "the reader is woken while the largest record still fits, at every buffer size");
	tap(SSATRACE_WAKEUP_BYTES(SSATRACE_RINGBUF_BYTES) == 1 << 20,
	    "the default 16 MiB buffer wakes the reader at 1 MiB");
}

int main(void)
{
	printf("TAP version 13\n");
	test_known();
	test_edges();
	test_tiling();
	test_pseudo_random();
	test_hist_rows();
	test_row_take();
	test_row_race();
	test_outbuf();
	test_record_lines();
	test_wakeup();
	printf("1..%d\n", test_nr);
	return failures ? 1 : 0;
}
