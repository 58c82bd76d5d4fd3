/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ssadisk tracepoints: when the modelled disk starts and ends serving each
 * access.  Part of the tracing ABI (Documentation/ssadisk.rst): fields are
 * only ever appended.
 *
 * sector is the device sector the access was submitted for (so a child of
 * an ssastripe volume is found by its member dev_t and bsector).
 * The model's times (arrival, start, end) are CLOCK_MONOTONIC nanoseconds,
 * the clock of bpf_ktime_get_ns() and of the ssastripe events' timestamps.
 * An event fires when the timer that carries it runs, which may be a little
 * later than the model time it reports; the difference is timer lateness.
 *
 *   ssadisk_service_start   the access takes the disk (queue time ends);
 *                           for an access of several commands (max_transfer)
 *                           it fires when the last command starts, with the
 *                           first command's start and the sums of their parts
 *   ssadisk_service_end     the modelled service ends; the data goes to the
 *                           backing device now
 *
 * A BPF program gets at most twelve arguments: ssadisk_service_start's
 * twelfth (args[11] of a raw tracepoint; dist_q10 before 1.4.0) is the
 * struct ssad_svc that holds the rest.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ssadisk

#if !defined(_SSA_DISK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SSA_DISK_TRACE_H

#include <linux/tracepoint.h>
#include <linux/kdev_t.h>

#include "ssa-disk-priv.h"

#define ssad_show_op(op) __print_symbolic(op, { 0, "read" }, { 1, "write" })

TRACE_EVENT(ssadisk_service_start,
	TP_PROTO(dev_t dev, u64 id, u8 op, u64 sector, u32 len, u64 arrival,
		 u64 start, u64 end, u64 seek, u64 rot, u64 xfer,
		 const struct ssad_svc *svc),
	TP_ARGS(dev, id, op, sector, len, arrival, start, end, seek, rot, xfer,
		svc),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, sector)
		__field(u64, arrival)
		__field(u64, start)
		__field(u64, end)
		__field(u64, seek)
		__field(u64, rot)
		__field(u64, xfer)
		__field(u64, dist_q10)
		__field(dev_t, dev)
		__field(u32, len)
		__field(u8, op)
		__field(u64, chan)
		__field(u32, commands)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->sector = sector;
		__entry->arrival = arrival;
		__entry->start = start;
		__entry->end = end;
		__entry->seek = seek;
		__entry->rot = rot;
		__entry->xfer = xfer;
		__entry->dist_q10 = svc->dist_q10;
		__entry->dev = dev;
		__entry->len = len;
		__entry->op = op;
		__entry->chan = svc->chan;
		__entry->commands = svc->commands;
	),
	TP_printk("dev %d:%d id %llu %s sector %llu len %u arrival %llu start %llu end %llu seek %llu rot %llu xfer %llu dist_q10 %llu commands %u chan %llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->id,
		  ssad_show_op(__entry->op), __entry->sector, __entry->len,
		  __entry->arrival, __entry->start,
		  __entry->end, __entry->seek, __entry->rot, __entry->xfer,
		  __entry->dist_q10, __entry->commands, __entry->chan)
);

TRACE_EVENT(ssadisk_service_end,
	TP_PROTO(dev_t dev, u64 id, u8 op, u64 sector, u32 len, u64 start,
		 u64 end),
	TP_ARGS(dev, id, op, sector, len, start, end),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, sector)
		__field(u64, start)
		__field(u64, end)
		__field(dev_t, dev)
		__field(u32, len)
		__field(u8, op)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->sector = sector;
		__entry->start = start;
		__entry->end = end;
		__entry->dev = dev;
		__entry->len = len;
		__entry->op = op;
	),
	TP_printk("dev %d:%d id %llu %s sector %llu len %u start %llu end %llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->id,
		  ssad_show_op(__entry->op), __entry->sector, __entry->len,
		  __entry->start, __entry->end)
);

#endif /* _SSA_DISK_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ssa-disk-trace
#include <trace/define_trace.h>
