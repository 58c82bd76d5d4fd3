/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe tracepoints: the fork/join of every logical request.
 *
 * These events and the order and types of their fields are the project's
 * tracing ABI (Documentation/tracing.rst); fields are only ever appended.
 *
 *   ssastripe_fork            a request arrives and is split
 *   ssastripe_child_queue     a child enters its member's dispatcher
 *   ssastripe_child_dispatch  the child is sent to the member device
 *   ssastripe_child_complete  the member device completed it
 *   ssastripe_place           srarray: the replica a child goes to, and
 *                             when its ssadisk predicted it would end
 *   ssastripe_join            the request's last child completed
 *   ssastripe_request         the same moment, with the request's record:
 *                             every child's times (ssa-trace-abi.h)
 *   ssastripe_record          the same record, for BPF to read in place
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ssastripe

#if !defined(_SSA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SSA_TRACE_H

#include <linux/tracepoint.h>
#include <linux/kdev_t.h>

#include "ssa-trace-abi.h"

/*
 * Every event here counts itself in while it has a probe (ssa-io-trace.c), so
 * that the fast path tests one static branch, not seven.
 */
int ssa_trace_reg(void);
void ssa_trace_unreg(void);

#define ssa_show_op(op)						\
	__print_symbolic(op, { 0, "read" }, { 1, "write" },	\
			 { 2, "flush" }, { 3, "discard" },	\
			 { 4, "write_zeroes" }, { 5, "other" })

#define ssa_show_class(c) __print_symbolic(c, { 0, "high" }, { 1, "low" })

TRACE_EVENT_FN(ssastripe_fork,
	TP_PROTO(dev_t dev, u64 id, u8 op, u64 sector, u32 len, u32 nr_children),
	TP_ARGS(dev, id, op, sector, len, nr_children),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, sector)
		__field(dev_t, dev)
		__field(u32, len)
		__field(u32, nr_children)
		__field(u8, op)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->sector = sector;
		__entry->dev = dev;
		__entry->len = len;
		__entry->nr_children = nr_children;
		__entry->op = op;
	),
	TP_printk("%d:%d id=%llu %s sector=%llu len=%u children=%u",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->id,
		  ssa_show_op(__entry->op), __entry->sector, __entry->len,
		  __entry->nr_children),

	ssa_trace_reg, ssa_trace_unreg
);

DECLARE_EVENT_CLASS(ssastripe_child,
	TP_PROTO(dev_t dev, u64 id, u32 child, u16 member, u8 class, u8 op,
		 u64 msector, u32 len, u32 qlen, int status, dev_t mdev,
		 u64 bsector),
	TP_ARGS(dev, id, child, member, class, op, msector, len, qlen, status,
		mdev, bsector),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, msector)
		__field(u64, bsector)
		__field(dev_t, mdev)
		__field(dev_t, dev)
		__field(u32, child)
		__field(u32, len)
		__field(u32, qlen)
		__field(u16, member)
		__field(u8, class)
		__field(u8, op)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->msector = msector;
		__entry->dev = dev;
		__entry->child = child;
		__entry->len = len;
		__entry->qlen = qlen;
		__entry->member = member;
		__entry->class = class;
		__entry->op = op;
		__entry->status = status;
		__entry->mdev = mdev;
		__entry->bsector = bsector;
	),
	TP_printk("%d:%d id=%llu child=%u member=%u %s %s msector=%llu len=%u qlen=%u status=%d mdev=%d:%d bsector=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->id,
		  __entry->child, __entry->member, ssa_show_class(__entry->class),
		  ssa_show_op(__entry->op), __entry->msector, __entry->len,
		  __entry->qlen, __entry->status, MAJOR(__entry->mdev),
		  MINOR(__entry->mdev), __entry->bsector)
);

DEFINE_EVENT_FN(ssastripe_child, ssastripe_child_queue,
	TP_PROTO(dev_t dev, u64 id, u32 child, u16 member, u8 class, u8 op,
		 u64 msector, u32 len, u32 qlen, int status, dev_t mdev,
		 u64 bsector),
	TP_ARGS(dev, id, child, member, class, op, msector, len, qlen, status,
		mdev, bsector),
	ssa_trace_reg, ssa_trace_unreg);

DEFINE_EVENT_FN(ssastripe_child, ssastripe_child_dispatch,
	TP_PROTO(dev_t dev, u64 id, u32 child, u16 member, u8 class, u8 op,
		 u64 msector, u32 len, u32 qlen, int status, dev_t mdev,
		 u64 bsector),
	TP_ARGS(dev, id, child, member, class, op, msector, len, qlen, status,
		mdev, bsector),
	ssa_trace_reg, ssa_trace_unreg);

DEFINE_EVENT_FN(ssastripe_child, ssastripe_child_complete,
	TP_PROTO(dev_t dev, u64 id, u32 child, u16 member, u8 class, u8 op,
		 u64 msector, u32 len, u32 qlen, int status, dev_t mdev,
		 u64 bsector),
	TP_ARGS(dev, id, child, member, class, op, msector, len, qlen, status,
		mdev, bsector),
	ssa_trace_reg, ssa_trace_unreg);

/*
 * A child with several places (srarray's replicas) is placed on
 * @replica, at @bsector of the member device @mdev.  @how is 1 when the
 * member's ssadisk predicted the replicas (then @free_ns is when the disk
 * would be free for the child and @end_ns when the chosen replica would
 * end, on the monotonic clock; @exact says the disk serves in arrival
 * order), 0 when the layout guessed (both times 0).  (Twelve arguments:
 * the most a BPF program can be given.)
 */
TRACE_EVENT_FN(ssastripe_place,
	TP_PROTO(dev_t dev, u64 id, u32 child, u16 member, u8 replica, u8 how,
		 u8 exact, u32 len, dev_t mdev, u64 bsector, u64 free_ns,
		 u64 end_ns),
	TP_ARGS(dev, id, child, member, replica, how, exact, len, mdev,
		bsector, free_ns, end_ns),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, bsector)
		__field(u64, free_ns)
		__field(u64, end_ns)
		__field(dev_t, dev)
		__field(dev_t, mdev)
		__field(u32, child)
		__field(u32, len)
		__field(u16, member)
		__field(u8, replica)
		__field(u8, how)
		__field(u8, exact)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->bsector = bsector;
		__entry->free_ns = free_ns;
		__entry->end_ns = end_ns;
		__entry->dev = dev;
		__entry->mdev = mdev;
		__entry->child = child;
		__entry->len = len;
		__entry->member = member;
		__entry->replica = replica;
		__entry->how = how;
		__entry->exact = exact;
	),
	TP_printk("%d:%d id=%llu child=%u member=%u replica=%u %s len=%u mdev=%d:%d bsector=%llu free_ns=%llu end_ns=%llu exact=%u",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->id,
		  __entry->child, __entry->member, __entry->replica,
		  __print_symbolic(__entry->how, { 0, "guessed" },
				   { 1, "predicted" }),
		  __entry->len, MAJOR(__entry->mdev), MINOR(__entry->mdev),
		  __entry->bsector, __entry->free_ns, __entry->end_ns,
		  __entry->exact),

	ssa_trace_reg, ssa_trace_unreg
);

TRACE_EVENT_FN(ssastripe_join,
	TP_PROTO(dev_t dev, u64 id, int status),
	TP_ARGS(dev, id, status),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(dev_t, dev)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->dev = dev;
		__entry->status = status;
	),
	TP_printk("%d:%d id=%llu status=%d", MAJOR(__entry->dev),
		  MINOR(__entry->dev), __entry->id, __entry->status),

	ssa_trace_reg, ssa_trace_unreg
);

/*
 * One event per request at its join, carrying the record the module kept
 * for it (only while this event is enabled).  Raw tracepoint and BPF
 * probes get @rec and copy ssa_trace_rec_size(@nr_slots) bytes of it;
 * ftrace and perf get the request's fields and what follows from its
 * children's times.
 */
TRACE_EVENT_FN(ssastripe_request,
	TP_PROTO(dev_t dev, u64 id, u8 op, int status, u32 nr_slots,
		 const struct ssa_trace_req *rec),
	TP_ARGS(dev, id, op, status, nr_slots, rec),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, sector)
		__field(u64, fork_ns)
		__field(u64, join_ns)
		__field(u64, max_wait_ns)
		__field(u64, max_service_ns)
		__field(u64, skew_ns)
		__field(dev_t, dev)
		__field(u32, len)
		__field(u32, nr_children)
		__field(u32, nr_valid)
		__field(int, status)
		__field(int, last_member)
		__field(u8, op)
	),
	TP_fast_assign(
		struct ssa_trace_derived d;

		ssa_trace_derive(rec, &d);
		__entry->id = id;
		__entry->sector = rec->sector;
		__entry->fork_ns = rec->fork_ns;
		__entry->join_ns = rec->join_ns;
		__entry->max_wait_ns = d.max_wait_ns;
		__entry->max_service_ns = d.max_service_ns;
		__entry->skew_ns = d.skew_ns;
		__entry->dev = dev;
		__entry->len = rec->len;
		__entry->nr_children = rec->nr_children;
		__entry->nr_valid = d.nr_valid;
		__entry->status = status;
		__entry->last_member = d.last_member;
		__entry->op = op;
	),
	TP_printk("%d:%d id=%llu %s sector=%llu len=%u children=%u/%u status=%d resp_ns=%llu max_wait_ns=%llu max_service_ns=%llu skew_ns=%llu last=%d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->id,
		  ssa_show_op(__entry->op), __entry->sector, __entry->len,
		  __entry->nr_valid, __entry->nr_children, __entry->status,
		  __entry->join_ns - __entry->fork_ns, __entry->max_wait_ns,
		  __entry->max_service_ns, __entry->skew_ns,
		  __entry->last_member),

	ssa_trace_reg, ssa_trace_unreg
);

/*
 * The same moment again, for BPF programs: the record alone, as the
 * buffer of a writable raw tracepoint.  A raw_tp.w program reads its first
 * sizeof(union ssa_trace_rec_head) bytes in place with plain loads (no
 * helper call, which costs more than the copy itself) and may copy the
 * children past the first from the same address.  It fires after
 * ssastripe_request, and the module reads nothing of the record after
 * it, so what a program writes there reaches only later probes of this
 * event.  ftrace and perf get the request's device, id and slots only.
 */
DECLARE_EVENT_CLASS(ssastripe_record_class,
	TP_PROTO(union ssa_trace_rec_head *rec),
	TP_ARGS(rec),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(dev_t, dev)
		__field(u32, nr_slots)
	),
	TP_fast_assign(
		__entry->id = rec->req.id;
		__entry->dev = rec->req.dev;
		__entry->nr_slots = rec->req.nr_slots;
	),
	TP_printk("%d:%d id=%llu slots=%u", MAJOR(__entry->dev),
		  MINOR(__entry->dev), __entry->id, __entry->nr_slots)
);

/*
 * Only the BPF pass over this header (trace/bpf_probe.h) defines
 * DEFINE_EVENT_WRITABLE; every other pass needs the reg/unreg hooks.
 */
#undef SSA_DEFINE_RECORD_EVENT
#ifdef DEFINE_EVENT_WRITABLE
#define SSA_DEFINE_RECORD_EVENT(name)					\
	DEFINE_EVENT_WRITABLE(ssastripe_record_class, name,		\
		TP_PROTO(union ssa_trace_rec_head *rec), TP_ARGS(rec),	\
		sizeof(union ssa_trace_rec_head))
#else
#define SSA_DEFINE_RECORD_EVENT(name)					\
	DEFINE_EVENT_FN(ssastripe_record_class, name,			\
		TP_PROTO(union ssa_trace_rec_head *rec), TP_ARGS(rec),	\
		ssa_trace_reg, ssa_trace_unreg)
#endif

SSA_DEFINE_RECORD_EVENT(ssastripe_record);

#endif /* _SSA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ssa-trace
#include <trace/define_trace.h>
