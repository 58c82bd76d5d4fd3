/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ssatrace: what the BPF side (bpf/ssatrace.bpf.c) hands to userspace.
 * One record per logical request, sent when the request joins.
 */
#ifndef SSATRACE_H
#define SSATRACE_H

#define SSATRACE_MAX_CHILDREN	64
#define SSATRACE_COMM_LEN	16

struct ssatrace_child {
	__u64 queued_ns;
	__u64 dispatched_ns;
	__u64 completed_ns;
	__u64 msector;
	__u64 disk_start_ns;	/* --disk: an ssadisk member began serving it */
	__u32 len;
	__u32 seen32;		/* bit 0 queued, 1 dispatched, 2 completed,
				 * 3 disk start */
	__u16 member;
	__u8 class;
	__u8 pad;
};

struct ssatrace_req {
	__u64 id;
	__u64 fork_ns;
	__u64 join_ns;
	__u64 sector;
	__u32 dev;		/* kernel encoding: major << 20 | minor */
	__u32 len;
	__u32 nr_children;	/* announced at fork */
	__u32 nr_seen;		/* children with events (<= MAX_CHILDREN kept) */
	__s32 status;
	__u8 op;
	__u8 truncated;		/* more children than MAX_CHILDREN */
	char comm[SSATRACE_COMM_LEN];	/* task that submitted the request */
	struct ssatrace_child child[SSATRACE_MAX_CHILDREN];
};

/* Counters kept by the BPF side (array map "counts"). */
enum ssatrace_count {
	SSATRACE_DROP_RINGBUF,	/* ring buffer full at join */
	SSATRACE_DROP_NOSTATE,	/* request table full at fork */
	SSATRACE_DROP_STALE,	/* join never seen: its slot taken back */
	SSATRACE_DROP_HIST,	/* hist: histogram table full */
	SSATRACE_HIST_REQS,	/* hist: requests added to the histograms */
	SSATRACE_HIST_INCOMPLETE, /* hist: their children with missing events */
	SSATRACE_NR_COUNTS,
};

/*
 * hist: log2 histograms of microseconds, kept by the BPF side in the hash
 * map "hists".  Slot 0 counts times under 1 us, slot s > 0 times of
 * 2^(s-1) to 2^s - 1 us; the last slot also takes everything longer.
 */
#define SSATRACE_HIST_SLOTS	32
#define SSATRACE_HISTS		4096	/* histograms the map can hold */

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
