// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ssatrace.bpf.c - BPF side of ssatrace: follows each dm-ssastripe request
 * through the module's tracepoints and emits one record per request, at
 * join, to a ring buffer.
 *
 * It attaches to the module's tracepoints as raw tracepoints and reads
 * their arguments, the documented tracing ABI; the module ships no BTF of
 * its own to relocate against.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "ssatrace.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Filters, set by userspace before load. */
const volatile __u32 filter_dev;	/* 0: every device */
const volatile __s32 filter_op = -1;	/* -1: every operation */
const volatile __u64 min_lat_ns;
const volatile bool link_disks;		/* --disk: follow children into ssadisk */

/*
 * Raw tracepoints: the programs get the TP_PROTO arguments of the module's
 * tracepoints (Documentation/tracing.rst), in order:
 *   fork:  dev, id, op, sector, len, nr_children
 *   child: dev, id, child, member, class, op, msector, len, qlen, status,
 *          mdev, bsector
 *   join:  dev, id, status
 *   ssadisk_service_start: dev, id, op, sector, len, arrival, start, ...
 * Raw tracepoint programs guard against recursion per program, so a child
 * completing in interrupt context while another handler runs on the same
 * CPU is still seen.
 */
struct req_key {
	__u64 id;
	__u32 dev;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct req_key);
	__type(value, struct ssatrace_req);
} reqs SEC(".maps");

/* A zeroed record to start from (too large for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ssatrace_req);
} blank SEC(".maps");

/*
 * --disk: a dispatched child, by the member device and sector it went to,
 * until an ssadisk on that device starts serving it (or it completes).
 */
struct disk_key {
	__u64 sector;
	__u32 dev;
	__u32 pad;
};

struct child_ref {
	struct req_key req;
	__u32 child;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct disk_key);
	__type(value, struct child_ref);
} links SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SSATRACE_NR_DROPS);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

static void count_drop(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &what);

	if (n)
		__sync_fetch_and_add(n, 1);
}

SEC("raw_tp/ssastripe_fork")
int handle_fork(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 dev = ctx->args[0];
	__u8 op = ctx->args[2];
	struct req_key key = { .id = ctx->args[1], .dev = dev };
	struct ssatrace_req *r;
	__u32 zero = 0;

	if (filter_dev && dev != filter_dev)
		return 0;
	if (filter_op >= 0 && op != filter_op)
		return 0;
	r = bpf_map_lookup_elem(&blank, &zero);
	if (!r)
		return 0;
	if (bpf_map_update_elem(&reqs, &key, r, BPF_ANY)) {
		count_drop(SSATRACE_DROP_NOSTATE);
		return 0;
	}
	r = bpf_map_lookup_elem(&reqs, &key);
	if (!r)
		return 0;
	r->id = key.id;
	r->dev = dev;
	r->fork_ns = bpf_ktime_get_ns();
	r->sector = ctx->args[3];
	r->len = ctx->args[4];
	r->nr_children = ctx->args[5];
	r->op = op;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	return 0;
}

/* stage: 0 queued, 1 dispatched, 2 completed */
static int child_event(struct bpf_raw_tracepoint_args *ctx, int stage)
{
	struct req_key key = { .id = ctx->args[1], .dev = (__u32)ctx->args[0] };
	__u32 i = ctx->args[2];
	__u64 now = bpf_ktime_get_ns();
	struct ssatrace_child *c;
	struct ssatrace_req *r;

	if (!key.id)		/* internal work, no request */
		return 0;
	r = bpf_map_lookup_elem(&reqs, &key);
	if (!r)
		return 0;
	if (i >= SSATRACE_MAX_CHILDREN) {
		r->truncated = 1;
		return 0;
	}
	c = &r->child[i];
	if (stage == 0) {
		c->queued_ns = now;
		c->member = ctx->args[3];
		c->class = ctx->args[4];
		c->msector = ctx->args[6];
		c->len = ctx->args[7];
		if (i + 1 > r->nr_seen)
			r->nr_seen = i + 1;
	} else if (stage == 1) {
		c->dispatched_ns = now;
		if (link_disks) {
			struct disk_key dk = { .sector = ctx->args[11],
					       .dev = (__u32)ctx->args[10] };
			struct child_ref ref = { .req = key, .child = i };

			bpf_map_update_elem(&links, &dk, &ref, BPF_ANY);
		}
	} else {
		c->completed_ns = now;
		if (link_disks) {
			struct disk_key dk = { .sector = ctx->args[11],
					       .dev = (__u32)ctx->args[10] };

			bpf_map_delete_elem(&links, &dk);
		}
	}
	c->seen32 |= 1 << stage;	/* a child's stages never overlap */
	return 0;
}

SEC("raw_tp/ssastripe_child_queue")
int handle_queue(struct bpf_raw_tracepoint_args *ctx)
{
	return child_event(ctx, 0);
}

SEC("raw_tp/ssastripe_child_dispatch")
int handle_dispatch(struct bpf_raw_tracepoint_args *ctx)
{
	return child_event(ctx, 1);
}

SEC("raw_tp/ssastripe_child_complete")
int handle_complete(struct bpf_raw_tracepoint_args *ctx)
{
	return child_event(ctx, 2);
}

/* --disk: the member is an ssadisk, which now starts serving the child. */
SEC("raw_tp/ssadisk_service_start")
int handle_disk_start(struct bpf_raw_tracepoint_args *ctx)
{
	struct disk_key dk = { .sector = ctx->args[3], .dev = (__u32)ctx->args[0] };
	struct child_ref *ref;
	struct ssatrace_req *r;
	__u32 i;

	ref = bpf_map_lookup_elem(&links, &dk);
	if (!ref)
		return 0;
	r = bpf_map_lookup_elem(&reqs, &ref->req);
	i = ref->child;
	if (r && i < SSATRACE_MAX_CHILDREN) {
		r->child[i].disk_start_ns = ctx->args[6];	/* the model's start */
		r->child[i].seen32 |= 1 << 3;
	}
	bpf_map_delete_elem(&links, &dk);
	return 0;
}

SEC("raw_tp/ssastripe_join")
int handle_join(struct bpf_raw_tracepoint_args *ctx)
{
	struct req_key key = { .id = ctx->args[1], .dev = (__u32)ctx->args[0] };
	struct ssatrace_req *r;
	__u64 size;
	__u32 n;

	r = bpf_map_lookup_elem(&reqs, &key);
	if (!r)
		return 0;
	r->join_ns = bpf_ktime_get_ns();
	r->status = ctx->args[2];
	/* send only the children the request had */
	n = r->nr_seen;
	if (n > SSATRACE_MAX_CHILDREN)
		n = SSATRACE_MAX_CHILDREN;
	size = __builtin_offsetof(struct ssatrace_req, child) +
	       (__u64)n * sizeof(struct ssatrace_child);
	if (r->join_ns - r->fork_ns >= min_lat_ns &&
	    bpf_ringbuf_output(&events, r, size, 0))
		count_drop(SSATRACE_DROP_RINGBUF);
	bpf_map_delete_elem(&reqs, &key);
	return 0;
}
