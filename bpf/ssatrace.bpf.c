// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ssatrace.bpf.c - BPF side of ssatrace: one program on the module's
 * ssastripe_record tracepoint, which fires once per request at its join
 * with the record the module kept of it (dm-ssastripe/ssa-trace-abi.h:
 * fork and join times, every child's queued, dispatched and completed
 * times).  The program copies the record to a ring buffer (record) or
 * adds its times to log2 histograms kept in a map (hist).
 *
 * So a request costs one program call, whatever its children, and there
 * is no per-request state here to claim, find, or lose.
 *
 * With --disk, three more programs follow each child into an ssadisk
 * member (child dispatch, ssadisk service start, child completion), and
 * the record gets the time each disk began serving its child.
 *
 * All are raw tracepoints reading the documented arguments (the tracing
 * ABI; ssastripe_record's is a writable raw tracepoint's buffer); the
 * module ships no BTF of its own to relocate against.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "ssatrace.h"	/* and the module's ssa-trace-abi.h */

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Filters, set by userspace before load. */
const volatile __u32 filter_dev;	/* 0: every device */
const volatile __s32 filter_op = -1;	/* -1: every operation */
const volatile __u64 min_lat_ns;
const volatile bool link_disks;		/* --disk: follow children into ssadisk */
const volatile bool hist_mode;		/* histograms here, no records */
/* Wake the reader only once this much is waiting (it also polls). */
const volatile __u64 wakeup_bytes = SSATRACE_WAKEUP_BYTES(SSATRACE_RINGBUF_BYTES);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SSATRACE_NR_COUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static void count_event(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&counts, &what);

	if (n)
		__sync_fetch_and_add(n, 1);
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SSATRACE_RINGBUF_BYTES);
} events SEC(".maps");

/*
 * --disk: a dispatched child, by the member device and sector it went to,
 * until an ssadisk on that device starts serving it (or it completes);
 * then the start time, by request and child, until the request joins.
 */
struct disk_key {
	__u64 sector;
	__u32 dev;
	__u32 pad;
};

struct child_key {
	__u64 id;
	__u32 dev;
	__u32 child;
};

/*
 * LRU: a child of a request that forked before ssatrace attached has no
 * record to be taken into, and its entries age out.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct disk_key);
	__type(value, struct child_key);
} links SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct child_key);
	__type(value, __u64);
} disk_starts SEC(".maps");

/*
 * hist: a row of histograms per device (ssatrace.h), in an array that the
 * program indexes itself; only the device is looked up by hash.  The
 * counts only grow; userspace prints the difference from what it printed
 * last.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SSATRACE_HISTS);
	__type(key, __u32);
	__type(value, struct ssatrace_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SSATRACE_HIST_DEVS);
	__type(key, __u32);	/* the device */
	__type(value, __u32);	/* its row */
} hist_devs SEC(".maps");

/*
 * The first histogram of @dev's row; a device seen for the first time
 * takes a free row (ssatrace_hist_row_take()).  When two CPUs meet a new
 * device at once, both take a row and one's insert loses: it gives its
 * row back and uses the winner's, so no row is ever left unused.  Returns
 * -1 when every row is held, or when a row given back was passed over
 * by a search that was under way (that one request is counted lost; the
 * device's next request finds the row free).
 */
static __always_inline __s64 hist_row(__u32 dev)
{
	__u32 k = SSATRACE_HIST_ROWS_HELD, row, *r;
	__u64 *held;
	int taken;

	r = bpf_map_lookup_elem(&hist_devs, &dev);
	if (!r) {
		held = bpf_map_lookup_elem(&counts, &k);
		if (!held)
			return -1;
		taken = ssatrace_hist_row_take(held);
		if (taken < 0)
			return -1;
		row = taken;
		if (bpf_map_update_elem(&hist_devs, &dev, &row, BPF_NOEXIST))
			ssatrace_hist_row_give(held, taken);
		/* ours, or another CPU's for the same device */
		r = bpf_map_lookup_elem(&hist_devs, &dev);
		if (!r)
			return -1;
	}
	return (__s64)*r * SSATRACE_HISTS_PER_DEV;
}

/* hist: a copy of the record to walk its children (per CPU, no stack). */
struct whole_rec {
	__u8 bytes[sizeof(struct ssa_trace_req) +
		   SSA_TRACE_MAX_SLOTS * sizeof(struct ssa_trace_child)];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct whole_rec);
} scratch SEC(".maps");

/*
 * A global function: the verifier checks it once, on its own, rather than
 * again at every call in hist_request()'s loop over up to 64 children.
 */
__noinline int hist_add(__u32 i, __u64 ns)
{
	struct ssatrace_hist *h = bpf_map_lookup_elem(&hists, &i);
	__u32 s = ssatrace_hist_slot(ns);

	if (h && s < SSATRACE_HIST_SLOTS)	/* s: always; for the verifier */
		__sync_fetch_and_add(&h->slot[s], 1);
	return 0;
}

/*
 * hist: a joined request's response time and its children's times.  The
 * record's head is read in place (ssastripe_record's buffer), any further
 * children with the helper.
 */
static __always_inline int hist_request(const union ssa_trace_rec_head *h, __u32 n)
{
	const struct ssa_trace_child *c;
	struct ssa_trace_req *r;
	__u32 i, zero = 0;
	__s64 row;

	r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 0;
	__builtin_memcpy(r, h, sizeof(*h));
	if (n > 1) {
		__u32 rest = (n - 1) * sizeof(struct ssa_trace_child);

		/* a bound the verifier sees on the register it checks */
		barrier_var(rest);
		if (rest > (SSA_TRACE_MAX_SLOTS - 1) * sizeof(struct ssa_trace_child))
			return 0;
		if (bpf_probe_read_kernel((void *)r + sizeof(*h), rest,
					  (const void *)h + sizeof(*h)))
			return 0;
	}
	if (r->join_ns - r->fork_ns < min_lat_ns)
		return 0;
	row = hist_row(r->dev);
	if (row < 0) {
		count_event(SSATRACE_DROP_HIST);
		return 0;
	}
	hist_add(row + ssatrace_hist_response(r->op < SSATRACE_HIST_OPS ?
					      r->op : SSATRACE_HIST_OPS - 1),
		 r->join_ns - r->fork_ns);
	if (r->nr_children > n)
		count_event(SSATRACE_HIST_TRUNCATED);
	for (i = 0; i < SSA_TRACE_MAX_SLOTS && i < n; i++) {
		__u32 m;

		c = &r->child[i];
		if (!ssa_trace_child_valid(r, i)) {
			count_event(SSATRACE_HIST_INCOMPLETE);
			continue;
		}
		m = c->member < SSATRACE_HIST_MEMBERS ? c->member : SSATRACE_HIST_MEMBERS - 1;
		hist_add(row + ssatrace_hist_child(m, c->class, SSATRACE_HIST_WAIT),
			 c->dispatched_ns - c->queued_ns);
		hist_add(row + ssatrace_hist_child(m, c->class, SSATRACE_HIST_SERVICE),
			 c->completed_ns - c->dispatched_ns);
	}
	return 0;
}

/*
 * --disk: fill in the start times the ssadisk members reported for the
 * record's children (the array of @room after the @room child slots).
 * Inlined, so that the verifier sees @room as the constant bound.
 */
static __always_inline void add_disk_starts(struct ssa_trace_req *r, __u64 *starts,
					    __u32 n, const __u32 room)
{
	struct child_key key = { .id = r->id, .dev = r->dev };
	__u64 *t;
	__u32 i;

	for (i = 0; i < room && i < n; i++) {
		key.child = i;
		t = bpf_map_lookup_elem(&disk_starts, &key);
		starts[i] = t ? *t : 0;
		if (t)
			bpf_map_delete_elem(&disk_starts, &key);
	}
}

/*
 * record: a ring-buffer sample needs a size the verifier knows, so a
 * record goes into the smallest of four sizes that holds its children.
 * The sample's length tells userspace which (ssatrace_rec_room()).  The
 * record's head (the request and its first child) is copied with plain
 * loads from the event's buffer; only further children need the helper.
 */
#define TRY_ROOM(ROOM)							\
	if (n <= (ROOM)) {						\
		size = ssatrace_sample_size(ROOM, link_disks);		\
		r = bpf_ringbuf_reserve(&events, size, 0);		\
		if (!r)							\
			goto lost;					\
		__builtin_memcpy(r, h, sizeof(*h));			\
		if ((ROOM) > 1 && n > 1 &&				\
		    bpf_probe_read_kernel((void *)r + sizeof(*h),	\
					  ssa_trace_rec_size(n) - sizeof(*h), \
					  (const void *)h + sizeof(*h)))	\
			goto discard;					\
		if (link_disks)						\
			add_disk_starts(r, (void *)r +			\
					ssa_trace_rec_size(ROOM), n, ROOM); \
		goto got;						\
	}

/*
 * ssastripe_record hands the program the record itself as a writable
 * raw tracepoint's buffer (only read here): its first
 * sizeof(union ssa_trace_rec_head) bytes are plain memory to the
 * verifier, with no helper call and no fault handling, where a pointer
 * argument would have to go through bpf_probe_read_kernel().
 */
SEC("raw_tp.w/ssastripe_record")
int handle_request(struct bpf_raw_tracepoint_args *ctx)
{
	const union ssa_trace_rec_head *h = (const void *)ctx->args[0];
	__u32 n = h->req.nr_slots;
	__u8 op = h->req.op;
	struct ssa_trace_req *r;
	__u64 size, flags;

	if (filter_dev && h->req.dev != filter_dev)
		return 0;
	/* --disk: the record's disk times are taken (and freed) first */
	if (!link_disks) {
		if (filter_op >= 0 && op != filter_op)
			return 0;
		if (h->req.join_ns - h->req.fork_ns < min_lat_ns)
			return 0;
	}
	if (n > SSA_TRACE_MAX_SLOTS)	/* never; bounds the copies */
		n = SSA_TRACE_MAX_SLOTS;
	if (hist_mode)
		return hist_request(h, n);

	TRY_ROOM(1);
	TRY_ROOM(4);
	TRY_ROOM(16);
	TRY_ROOM(SSA_TRACE_MAX_SLOTS);
	return 0;
got:
	if (link_disks) {
		if (r->join_ns - r->fork_ns < min_lat_ns)
			goto discard;
		if (filter_op >= 0 && op != filter_op)
			goto discard;
	}
	/*
	 * A wake-up per record would cost a context switch per request; the
	 * reader polls the buffer and is woken only when it fills up.
	 */
	flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(r, flags);
	return 0;
discard:
	bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
	return 0;
lost:
	count_event(SSATRACE_DROP_RINGBUF);
	return 0;
}

/*
 * --disk.  Child events: dev, id, child, member, class, op, msector, len,
 * qlen, status, mdev, bsector (Documentation/tracing.rst).
 */
SEC("raw_tp/ssastripe_child_dispatch")
int handle_dispatch(struct bpf_raw_tracepoint_args *ctx)
{
	struct disk_key dk = { .sector = ctx->args[11], .dev = (__u32)ctx->args[10] };
	struct child_key ck = {
		.id = ctx->args[1], .dev = (__u32)ctx->args[0], .child = ctx->args[2],
	};

	if (!ck.id)		/* internal work, no request */
		return 0;
	if (filter_dev && ck.dev != filter_dev)
		return 0;
	bpf_map_update_elem(&links, &dk, &ck, BPF_ANY);
	return 0;
}

SEC("raw_tp/ssastripe_child_complete")
int handle_complete(struct bpf_raw_tracepoint_args *ctx)
{
	struct disk_key dk = { .sector = ctx->args[11], .dev = (__u32)ctx->args[10] };

	if (ctx->args[1])
		bpf_map_delete_elem(&links, &dk);
	return 0;
}

/* --disk: the member is an ssadisk, which now starts serving the child. */
SEC("raw_tp/ssadisk_service_start")
int handle_disk_start(struct bpf_raw_tracepoint_args *ctx)
{
	struct disk_key dk = { .sector = ctx->args[3], .dev = (__u32)ctx->args[0] };
	struct child_key *ck;
	__u64 start = ctx->args[6];	/* the model's start */

	ck = bpf_map_lookup_elem(&links, &dk);
	if (!ck)
		return 0;
	bpf_map_update_elem(&disk_starts, ck, &start, BPF_ANY);
	bpf_map_delete_elem(&links, &dk);
	return 0;
}
