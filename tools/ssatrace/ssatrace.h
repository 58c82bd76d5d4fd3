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

/* Counters of what could not be recorded (array map "drops"). */
enum ssatrace_drop {
	SSATRACE_DROP_RINGBUF,	/* ring buffer full at join */
	SSATRACE_DROP_NOSTATE,	/* request table full at fork */
	SSATRACE_DROP_STALE,	/* join never seen: its slot taken back */
	SSATRACE_NR_DROPS,
};

#endif /* SSATRACE_H */
