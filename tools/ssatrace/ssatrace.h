/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ssatrace: what the BPF side (bpf/ssatrace.bpf.c) hands to userspace.
 * One record per logical request, sent when the request joins.
 */
#ifndef SSATRACE_H
#define SSATRACE_H

#include "ssa-trace-abi.h"

/*
 * A record sample in the ring buffer: the module's request record
 * (struct ssa_trace_req, ssa-trace-abi.h) with room for 1, 4, 16 or 64
 * children, of which the record's nr_slots are filled in; with --disk, an
 * array of @room disk start times (ns, 0: none) follows the room.
 */
static inline __u64 ssatrace_sample_size(__u32 room, int disk)
{
	return ssa_trace_rec_size(room) + (disk ? room * sizeof(__u64) : 0);
}

/* The room of a sample of @size bytes; 0 if it is no sample's size. */
static inline __u32 ssatrace_rec_room(__u64 size, int disk)
{
	static const __u32 rooms[] = { 1, 4, 16, SSA_TRACE_MAX_SLOTS };
	unsigned int i;

	for (i = 0; i < sizeof(rooms) / sizeof(rooms[0]); i++)
		if (size == ssatrace_sample_size(rooms[i], disk))
			return rooms[i];
	return 0;
}

/* The record ring buffer's size unless --buffer says otherwise. */
#define SSATRACE_RINGBUF_BYTES	(16 << 20)
#define SSATRACE_RINGBUF_MIN_KIB	16	/* --buffer: the least, unless pages are larger */
#define SSATRACE_RINGBUF_MAX_KIB	(1 << 20)	/* and the most: 1 GiB */

/*
 * How many bytes of records may wait before the BPF side wakes the reader:
 * a sixteenth of the ring buffer (1 MiB of the default 16 MiB).  The
 * reader takes what is there every poll in any case; the wake-up is for a
 * burst that would otherwise fill the buffer before the next poll, so it
 * comes with fifteen sixteenths still free, and a larger buffer, chosen
 * to ride out a longer stall of the reader, wakes it proportionally later.
 */
#define SSATRACE_WAKEUP_BYTES(ringbuf_bytes)	((ringbuf_bytes) / 16)

/* Counters kept by the BPF side (array map "counts"). */
enum ssatrace_count {
	SSATRACE_DROP_RINGBUF,	/* ring buffer full at join */
	SSATRACE_DROP_HIST,	/* hist: device table full */
	SSATRACE_HIST_INCOMPLETE, /* hist: slots with no child of the request */
	SSATRACE_HIST_TRUNCATED, /* hist: requests with children beyond the record */
	SSATRACE_HIST_ROWS_HELD, /* hist: a bit per row held (see hist_devs) */
	SSATRACE_NR_COUNTS,
};

/*
 * hist: log2 histograms of microseconds, kept by the BPF side in the array
 * map "hists".  Slot 0 counts times under 1 us, slot s > 0 times of
 * 2^(s-1) to 2^s - 1 us; the last slot also takes everything longer.
 *
 * A device gets a row of SSATRACE_HISTS_PER_DEV histograms the first time
 * one of its requests joins (map "hist_devs": device -> row): response
 * time by op, then queueing and service time by member and class.  A
 * request's histograms are found by arithmetic, with one hash lookup (its
 * device) per request.
 */
#define SSATRACE_HIST_SLOTS	32
#define SSATRACE_HIST_DEVS	16	/* devices counted; more are lost */
#define SSATRACE_HIST_OPS	6	/* as the record's op: read ... other */
#define SSATRACE_HIST_MEMBERS	64	/* SSA_MAX_MEMBERS */
#define SSATRACE_HISTS_PER_DEV	(SSATRACE_HIST_OPS + SSATRACE_HIST_MEMBERS * 2 * 2)
#define SSATRACE_HISTS		(SSATRACE_HIST_DEVS * SSATRACE_HISTS_PER_DEV)

enum ssatrace_hist_kind {
	SSATRACE_HIST_RESPONSE,	/* fork to join; idx is the op */
	SSATRACE_HIST_WAIT,	/* a child's queued to dispatched; idx is the member */
	SSATRACE_HIST_SERVICE,	/* a child's dispatched to completed */
};

struct ssatrace_hist_key {
	__u32 dev;
	__u16 idx;
	__u8 kind;
	__u8 class;		/* WAIT, SERVICE: 0 high, 1 low */
};

struct ssatrace_hist {
	__u64 slot[SSATRACE_HIST_SLOTS];
};

/* A histogram's place in its device's row: ops, then member x class x kind. */
static inline __u32 ssatrace_hist_response(__u32 op)
{
	return op;
}

static inline __u32 ssatrace_hist_child(__u32 member, __u32 class, __u32 kind)
{
	return SSATRACE_HIST_OPS + (member * 2 + (class & 1)) * 2 +
	       (kind == SSATRACE_HIST_SERVICE);
}

/* What histogram @i of a row counts (dev is left to the caller). */
static inline void ssatrace_hist_what(__u32 i, struct ssatrace_hist_key *k)
{
	if (i < SSATRACE_HIST_OPS) {
		k->kind = SSATRACE_HIST_RESPONSE;
		k->idx = i;
		k->class = 0;
		return;
	}
	i -= SSATRACE_HIST_OPS;
	k->kind = i & 1 ? SSATRACE_HIST_SERVICE : SSATRACE_HIST_WAIT;
	k->class = (i >> 1) & 1;
	k->idx = i >> 2;
}

/*
 * hist's rows: bit r of the counter SSATRACE_HIST_ROWS_HELD is set while
 * row r is held, by the device it was given to or by a CPU about to give
 * it to one.  A CPU takes a row by setting the first bit it finds clear:
 * an atomic or that finds the bit already set changes nothing, so a row is
 * taken by exactly one CPU, and one that is given back (its device was
 * given another row by another CPU meanwhile) is free again at once.
 * Returns the row, or -1 when every row is held.  A search that passes a
 * row just before it is given back can find none free: the request it was
 * for is then counted lost, and the device's next request takes the row.
 */
#define SSATRACE_HIST_ALL_ROWS	((1ULL << SSATRACE_HIST_DEVS) - 1)
_Static_assert(SSATRACE_HIST_DEVS < 64, "a bit per row in one __u64");

static inline int ssatrace_hist_row_take(__u64 *held)
{
	__u64 bit;
	int r;

	for (r = 0; r < SSATRACE_HIST_DEVS; r++) {
		bit = 1ULL << r;
		if (*(volatile __u64 *)held & bit)
			continue;
		if (!(__sync_fetch_and_or(held, bit) & bit))
			return r;
	}
	return -1;
}

static inline void ssatrace_hist_row_give(__u64 *held, int r)
{
	__sync_fetch_and_and(held, ~(1ULL << r));
}

/* The slot of a time in ns (the BPF side counts with it). */
static inline __u32 ssatrace_hist_slot(__u64 ns)
{
	__u64 us = ns / 1000;
	__u32 s = 0, shift;

	/* binary search for the highest set bit */
	for (shift = 32; shift; shift >>= 1) {
		if (us >> shift) {
			us >>= shift;
			s += shift;
		}
	}
	s += us;		/* us is 0 or 1 by now */
	return s < SSATRACE_HIST_SLOTS ? s : SSATRACE_HIST_SLOTS - 1;
}

/* The first and last microsecond of slot @s (userspace labels it so). */
static inline __u64 ssatrace_hist_lo_us(__u32 s)
{
	return s ? 1ULL << (s - 1) : 0;
}

static inline __u64 ssatrace_hist_hi_us(__u32 s)
{
	return (1ULL << s) - 1;
}

#endif /* SSATRACE_H */
