// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ssatrace.bpf.c - BPF side of ssatrace: follows each dm-ssastripe request
 * through the module's tracepoints and, at its join, either emits one
 * record for it to a ring buffer (record) or adds its times to log2
 * histograms kept in a map (hist).
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
const volatile bool hist_mode;		/* histograms here, no records */
/*
 * Test-only (--test-keep-slots): a join sends its record or histogram
 * times but leaves its slot taken, as if the join had been missed, so that
 * the tests can reach the take-back paths of claim_slot().
 */
const volatile bool test_keep_slots;
/* Wake the reader only once this much is waiting (it also polls). */
const volatile __u64 wakeup_bytes = 1 << 20;

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

/*
 * Requests in flight live in a table of slots, an array map (whose lookups
 * the verifier inlines), rather than in a hash map: a fork claims a slot
 * and fills it in place, the request's children find it by id, and the
 * join sends it and frees it.  Nothing is allocated, zeroed or copied at
 * fork, which is most of what a hash map cost per request.
 *
 * A request's home slot is its id plus a hash of its device; when the home
 * is taken the fork tries the next slots, SSATRACE_PROBES in all.  Ids are
 * per-device sequences, so one device's requests in flight sit in nearby
 * slots.  A slot's tag is 0 when free, SLOT_BUSY while a fork fills it in,
 * and the request id once published.  The device is written before the tag
 * is published, so whoever matches the tag reads the right device.
 */
#define SSATRACE_SLOTS	8192			/* a power of two */
#define SSATRACE_PROBES	4
#define SLOT_BUSY	(~0ULL)

struct req_slot {
	__u64 tag;
	struct ssatrace_req req;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SSATRACE_SLOTS);
	__type(key, __u32);
	__type(value, struct req_slot);
} reqs SEC(".maps");

static __always_inline __u32 home_slot(__u64 id, __u32 dev)
{
	return (__u32)id + dev * 0x9e3779b1U;
}

/* The published slot of request (dev, id), or NULL. */
static __always_inline struct req_slot *find_slot(__u64 id, __u32 dev)
{
	__u32 home = home_slot(id, dev), i, k;
	struct req_slot *s;

	for (i = 0; i < SSATRACE_PROBES; i++) {
		k = (home + i) & (SSATRACE_SLOTS - 1);
		s = bpf_map_lookup_elem(&reqs, &k);
		if (s && s->tag == id && s->req.dev == dev)
			return s;
	}
	return NULL;
}

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

/*
 * Claim a slot for (dev, id); it stays SLOT_BUSY until published.
 *
 * A slot whose request's join was missed (see "nested" in
 * Documentation/tracing.rst) is never freed, and would push later requests
 * out of the table for good.  So two kinds of slot are taken back:
 *  - one that holds this very (dev, id): ids are unique while a table is
 *    loaded, so it is left from before a reload, and since the probes go
 *    in order it would otherwise shadow the new request's slot;
 *  - when every slot is taken, one whose request forked over STALE_NS ago.
 */
#define STALE_NS	(30ULL * 1000000000)

/* Swap @s's tag from @tag to SLOT_BUSY; a non-zero @tag is a slot taken back. */
static __always_inline bool take_slot(struct req_slot *s, __u64 tag)
{
	if (__sync_val_compare_and_swap(&s->tag, tag, SLOT_BUSY) != tag)
		return false;
	if (tag)
		count_event(SSATRACE_DROP_STALE);
	return true;
}

static __always_inline struct req_slot *claim_slot(__u64 id, __u32 dev, __u64 now)
{
	__u32 home = home_slot(id, dev), i, k;
	struct req_slot *s, *old = NULL;
	__u64 tag, old_tag = 0;

	for (i = 0; i < SSATRACE_PROBES; i++) {
		k = (home + i) & (SSATRACE_SLOTS - 1);
		s = bpf_map_lookup_elem(&reqs, &k);
		if (!s)
			continue;
		tag = s->tag;
		if ((!tag || (tag == id && s->req.dev == dev)) && take_slot(s, tag))
			return s;
		if (!old && tag && tag != SLOT_BUSY &&
		    now - s->req.fork_ns > STALE_NS) {
			old = s;
			old_tag = tag;
		}
	}
	if (old && take_slot(old, old_tag))
		return old;
	return NULL;
}

struct req_key {
	__u64 id;
	__u32 dev;
	__u32 pad;
};

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

/*
 * hist: one histogram per device and op (response time) and per device,
 * member and class (queueing and service time).  The counts only grow;
 * userspace prints the difference from what it printed last.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SSATRACE_HISTS);
	__type(key, struct ssatrace_hist_key);
	__type(value, struct ssatrace_hist);
} hists SEC(".maps");

static struct ssatrace_hist empty_hist;	/* in .bss: all zero */

/*
 * A global function: the verifier checks it once, on its own, rather than
 * again at every call in hist_request()'s loop over up to 64 children.
 */
__noinline int hist_add(__u32 dev, __u32 kind, __u32 idx, __u32 class, __u64 ns)
{
	struct ssatrace_hist_key key = {
		.dev = dev, .idx = idx, .kind = kind, .class = class,
	};
	struct ssatrace_hist *h;
	__u32 s = ssatrace_hist_slot(ns);

	h = bpf_map_lookup_elem(&hists, &key);
	if (!h) {
		bpf_map_update_elem(&hists, &key, &empty_hist, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, &key);
		if (!h) {
			count_event(SSATRACE_DROP_HIST);
			return 0;
		}
	}
	if (s < SSATRACE_HIST_SLOTS)	/* always; the verifier wants to see it */
		__sync_fetch_and_add(&h->slot[s], 1);
	return 0;
}

/* hist: a joined request's response time and its children's times. */
static void hist_request(const struct ssatrace_req *r, __u32 n)
{
	const struct ssatrace_child *c;
	__u32 i;

	hist_add(r->dev, SSATRACE_HIST_RESPONSE, r->op, 0, r->join_ns - r->fork_ns);
	for (i = 0; i < SSATRACE_MAX_CHILDREN && i < n; i++) {
		c = &r->child[i];
		if ((c->seen32 & 7) != 7)
			count_event(SSATRACE_HIST_INCOMPLETE);
		if ((c->seen32 & 3) == 3)
			hist_add(r->dev, SSATRACE_HIST_WAIT, c->member, c->class & 1,
				 c->dispatched_ns - c->queued_ns);
		if ((c->seen32 & 6) == 6)
			hist_add(r->dev, SSATRACE_HIST_SERVICE, c->member, c->class & 1,
				 c->completed_ns - c->dispatched_ns);
	}
	count_event(SSATRACE_HIST_REQS);
}

SEC("raw_tp/ssastripe_fork")
int handle_fork(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 dev = ctx->args[0];
	__u64 id = ctx->args[1];
	__u8 op = ctx->args[2];
	struct ssatrace_req *r;
	struct req_slot *s;
	__u32 i, n;
	__u64 now;

	if (filter_dev && dev != filter_dev)
		return 0;
	if (filter_op >= 0 && op != filter_op)
		return 0;
	if (!id || id == SLOT_BUSY)
		return 0;
	now = bpf_ktime_get_ns();
	s = claim_slot(id, dev, now);
	if (!s) {
		count_event(SSATRACE_DROP_NOSTATE);
		return 0;
	}
	r = &s->req;
	r->id = id;
	r->dev = dev;
	r->fork_ns = now;
	r->join_ns = 0;
	r->sector = ctx->args[3];
	r->len = ctx->args[4];
	r->nr_children = ctx->args[5];
	r->nr_seen = 0;
	r->status = 0;
	r->op = op;
	r->truncated = 0;
	if (!hist_mode)		/* only records show it */
		bpf_get_current_comm(r->comm, sizeof(r->comm));
	/*
	 * Clear what the last occupant left in the children this one will
	 * use, so that a child whose event is missed shows zeros, not
	 * another request's times.
	 */
	n = r->nr_children;
	for (i = 0; i < SSATRACE_MAX_CHILDREN && i < n; i++) {
		struct ssatrace_child *c = &r->child[i];

		c->queued_ns = 0;
		c->dispatched_ns = 0;
		c->completed_ns = 0;
		c->msector = 0;
		c->disk_start_ns = 0;
		c->len = 0;
		c->seen32 = 0;
		c->member = 0;
		c->class = 0;
	}
	__sync_lock_test_and_set(&s->tag, id);		/* publish */
	return 0;
}

/* stage: 0 queued, 1 dispatched, 2 completed */
static int child_event(struct bpf_raw_tracepoint_args *ctx, int stage)
{
	struct req_key key = { .id = ctx->args[1], .dev = (__u32)ctx->args[0] };
	__u32 i = ctx->args[2];
	struct ssatrace_child *c;
	struct ssatrace_req *r;
	struct req_slot *s;
	__u64 now;

	if (!key.id)		/* internal work, no request */
		return 0;
	s = find_slot(key.id, key.dev);
	if (!s)			/* filtered out, or forked before we came */
		return 0;
	now = bpf_ktime_get_ns();
	r = &s->req;
	if (i >= SSATRACE_MAX_CHILDREN) {
		r->truncated = 1;
		return 0;
	}
	c = &r->child[i];
	if (i + 1 > r->nr_seen)
		r->nr_seen = i + 1;
	if (stage == 0) {
		/*
		 * A fork clears the children it announces; a request may
		 * have more (a degraded parity read announces none), and
		 * those start afresh here.
		 */
		if (i >= r->nr_children) {
			c->dispatched_ns = 0;
			c->completed_ns = 0;
			c->disk_start_ns = 0;
			c->seen32 = 0;
		}
		c->queued_ns = now;
		c->member = ctx->args[3];
		c->class = ctx->args[4];
		c->msector = ctx->args[6];
		c->len = ctx->args[7];
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
	struct req_slot *s;
	__u32 i;

	ref = bpf_map_lookup_elem(&links, &dk);
	if (!ref)
		return 0;
	s = find_slot(ref->req.id, ref->req.dev);
	i = ref->child;
	if (s && i < SSATRACE_MAX_CHILDREN) {
		s->req.child[i].disk_start_ns = ctx->args[6];	/* the model's start */
		s->req.child[i].seen32 |= 1 << 3;
	}
	bpf_map_delete_elem(&links, &dk);
	return 0;
}

SEC("raw_tp/ssastripe_join")
int handle_join(struct bpf_raw_tracepoint_args *ctx)
{
	struct ssatrace_req *r;
	struct req_slot *s;
	__u64 size, flags;
	__u32 n;

	s = find_slot(ctx->args[1], (__u32)ctx->args[0]);
	if (!s)
		return 0;
	r = &s->req;
	r->join_ns = bpf_ktime_get_ns();
	r->status = ctx->args[2];
	/* send only the children the request had */
	n = r->nr_seen;
	if (n > SSATRACE_MAX_CHILDREN)
		n = SSATRACE_MAX_CHILDREN;
	if (r->join_ns - r->fork_ns < min_lat_ns)
		goto out;
	if (hist_mode) {
		hist_request(r, n);
		goto out;
	}
	size = __builtin_offsetof(struct ssatrace_req, child) +
	       (__u64)n * sizeof(struct ssatrace_child);
	/*
	 * A wake-up per record would cost a context switch per request; the
	 * reader polls the buffer and is woken only when it fills up.
	 */
	flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, r, size, flags))
		count_event(SSATRACE_DROP_RINGBUF);
out:
	if (!test_keep_slots)
		__sync_lock_test_and_set(&s->tag, 0);	/* free the slot */
	return 0;
}
