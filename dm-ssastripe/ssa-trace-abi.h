/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * dm-ssastripe: the request record that the ssastripe_request and
 * ssastripe_record tracepoints hand to their probes
 * (Documentation/tracing.rst, "Request records").
 *
 * A raw tracepoint or BPF program receives a pointer to a struct
 * ssa_trace_req followed by nr_slots struct ssa_trace_child, and may copy
 * that many bytes (ssa_trace_rec_size()).  The layout is part of the
 * tracing ABI: fields are only ever appended, and SSA_TRACE_REC_VERSION
 * is raised when they are.
 *
 * Shared by the kernel module, BPF programs and userspace: include
 * <linux/types.h> (or a vmlinux.h) before this header.
 */
#ifndef SSA_TRACE_ABI_H
#define SSA_TRACE_ABI_H

#define SSA_TRACE_REC_VERSION	1

/* Children a request record can hold at most (a table holds fewer). */
#define SSA_TRACE_MAX_SLOTS	64

/*
 * One child, written by the module as the child moves through its
 * member: member, op, sectors and queued_ns when it is queued,
 * dispatched_ns and qlen when it is dispatched, completed_ns and status
 * when it completes, and last @id.  A slot whose @id is not its request's
 * id belongs to no child of this request (a child that was never issued):
 * skip it.
 */
struct ssa_trace_child {
	__u64 id;		/* the request's id, once the child completed */
	__u64 queued_ns;	/* CLOCK_MONOTONIC, as ktime_get_ns() */
	__u64 dispatched_ns;	/* == queued_ns: the child never waited */
	__u64 completed_ns;
	__u64 msector;		/* sector in the member's data area */
	__u32 len;		/* sectors */
	__u32 qlen;		/* children left waiting on the member at dispatch */
	__s32 status;		/* 0 or a negative errno */
	__u16 member;
	__u8 class;		/* 0 high, 1 low */
	__u8 op;		/* as the request's op */
};

/* A request, filled in at its fork and completed at its join. */
struct ssa_trace_req {
	__u64 id;		/* unique per device while a table is loaded */
	__u64 sector;		/* relative to the target's start */
	__u64 fork_ns;		/* CLOCK_MONOTONIC */
	__u64 join_ns;
	__u32 dev;		/* the mapped device: major << 20 | minor */
	__u32 len;		/* sectors */
	__u32 nr_children;	/* children the request issued */
	__u32 nr_slots;		/* child[] entries that follow */
	__s32 status;		/* 0 or the first child's negative errno */
	__u8 op;		/* as ssastripe_fork's: 0 read, 1 write... */
	__u8 version;		/* SSA_TRACE_REC_VERSION */
	__u8 pad[2];
	char comm[16];		/* the task that submitted the request */
	struct ssa_trace_child child[];
};

static inline __u64 ssa_trace_rec_size(__u32 nr_slots)
{
	return sizeof(struct ssa_trace_req) +
	       (__u64)nr_slots * sizeof(struct ssa_trace_child);
}

/*
 * The first bytes of every record, which always has room for one child
 * (nr_slots may still be 0): what the ssastripe_record event lets a
 * raw_tp.w BPF program read in place, with plain loads.  Children past
 * the first are copied from the same address (ssa_trace_rec_size()).
 */
union ssa_trace_rec_head {
	struct ssa_trace_req req;
	__u8 bytes[sizeof(struct ssa_trace_req) + sizeof(struct ssa_trace_child)];
};

/* What a request record gives beyond its fields (all times in ns). */
struct ssa_trace_derived {
	__u64 resp_ns;		/* join_ns - fork_ns */
	__u64 max_wait_ns;	/* the longest a child waited in its dispatcher */
	__u64 max_service_ns;	/* the longest a child was at its member */
	__u64 skew_ns;		/* last child completion - first */
	__s32 last_member;	/* the member that completed last; -1: no child */
	__u32 nr_valid;		/* slots that hold a child of this request */
};

static inline int ssa_trace_child_valid(const struct ssa_trace_req *r, __u32 i)
{
	return r->child[i].id == r->id;
}

static inline void ssa_trace_derive(const struct ssa_trace_req *r,
				    struct ssa_trace_derived *d)
{
	__u64 first = 0, last = 0;
	__u32 i;

	d->resp_ns = r->join_ns - r->fork_ns;
	d->max_wait_ns = 0;
	d->max_service_ns = 0;
	d->last_member = -1;
	d->nr_valid = 0;
	for (i = 0; i < r->nr_slots && i < SSA_TRACE_MAX_SLOTS; i++) {
		const struct ssa_trace_child *c = &r->child[i];

		if (!ssa_trace_child_valid(r, i))
			continue;
		d->nr_valid++;
		if (c->dispatched_ns - c->queued_ns > d->max_wait_ns)
			d->max_wait_ns = c->dispatched_ns - c->queued_ns;
		if (c->completed_ns - c->dispatched_ns > d->max_service_ns)
			d->max_service_ns = c->completed_ns - c->dispatched_ns;
		if (!first || c->completed_ns < first)
			first = c->completed_ns;
		if (c->completed_ns >= last) {
			last = c->completed_ns;
			d->last_member = c->member;
		}
	}
	d->skew_ns = last - first;
}

#endif /* SSA_TRACE_ABI_H */
