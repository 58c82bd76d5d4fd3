/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ssatrace record: one request's record as a CSV line or a JSON line
 * (Documentation/tracing.rst gives both formats).  The line is put
 * together in the caller's buffer with the outbuf.h writers, which cost a
 * fraction of printf's format parsing; the caller keeps SSATRACE_LINE_MAX
 * bytes of room.
 */
#ifndef SSATRACE_RECORD_H
#define SSATRACE_RECORD_H

#include "ssatrace.h"
#include "outbuf.h"

/*
 * The longest line: a JSON request's fields are under 1 KiB, and each
 * child's under 512 bytes (some 160 bytes of keys and ten numbers of at
 * most 20 digits).
 */
#define SSATRACE_LINE_MAX	(1024 + 512 * SSA_TRACE_MAX_SLOTS)

static const char *const ssatrace_op_names[] = {
	"read", "write", "flush", "discard", "write_zeroes", "other",
};
static const char *const ssatrace_class_names[] = { "high", "low" };

static inline const char *ssatrace_op_name(unsigned int op)
{
	return ssatrace_op_names[op < 6 ? op : 5];
}

/*
 * CSV: fork_ns,join_ns,dev,id,op,sector,len,comm,status,nr_children,
 * resp_ns,max_wait_ns,max_service_ns,skew_ns,children,truncated.
 * children: member:class:queued:dispatched:completed:msector:len, and with
 * @disk :disk_start; '|'-joined, in child order.  A slot that holds no
 * child of the request (one never issued) is left out.
 */
static inline char *ssatrace_csv(char *p, const struct ssa_trace_req *r,
				 const struct ssa_trace_derived *d, const __u64 *disk)
{
	struct outbuf_memo t = { 0 };	/* the times */
	unsigned int i, k = 0;

	p = outbuf_char(outbuf_u64_memo(p, r->fork_ns, &t), ',');
	p = outbuf_char(outbuf_u64_memo(p, r->join_ns, &t), ',');
	p = outbuf_char(outbuf_u64(p, r->dev >> 20), ':');
	p = outbuf_char(outbuf_u64(p, r->dev & 0xfffff), ',');
	p = outbuf_char(outbuf_u64(p, r->id), ',');
	p = outbuf_char(outbuf_str(p, ssatrace_op_name(r->op), 16), ',');
	p = outbuf_char(outbuf_u64(p, r->sector), ',');
	p = outbuf_char(outbuf_u64(p, r->len), ',');
	p = outbuf_char(outbuf_name(p, r->comm, sizeof(r->comm)), ',');
	p = outbuf_char(outbuf_s64(p, r->status), ',');
	p = outbuf_char(outbuf_u64(p, r->nr_children), ',');
	p = outbuf_char(outbuf_u64(p, d->resp_ns), ',');
	p = outbuf_char(outbuf_u64(p, d->max_wait_ns), ',');
	p = outbuf_char(outbuf_u64(p, d->max_service_ns), ',');
	p = outbuf_char(outbuf_u64(p, d->skew_ns), ',');
	for (i = 0; i < r->nr_slots && i < SSA_TRACE_MAX_SLOTS; i++) {
		const struct ssa_trace_child *c = &r->child[i];

		if (!ssa_trace_child_valid(r, i))
			continue;
		if (k++)
			p = outbuf_char(p, '|');
		p = outbuf_char(outbuf_u64(p, c->member), ':');
		p = outbuf_char(outbuf_str(p, ssatrace_class_names[c->class & 1], 4), ':');
		p = outbuf_char(outbuf_u64_memo(p, c->queued_ns, &t), ':');
		p = outbuf_char(outbuf_u64_memo(p, c->dispatched_ns, &t), ':');
		p = outbuf_char(outbuf_u64_memo(p, c->completed_ns, &t), ':');
		p = outbuf_char(outbuf_u64(p, c->msector), ':');
		p = outbuf_u64(p, c->len);
		if (disk)
			p = outbuf_u64(outbuf_char(p, ':'), disk[i]);
	}
	p = outbuf_char(p, ',');
	p = outbuf_char(p, r->nr_children > r->nr_slots ? '1' : '0');
	return outbuf_char(p, '\n');
}

/* JSON lines: one object per request, its children in an array. */
static inline char *ssatrace_json(char *p, const struct ssa_trace_req *r,
				  const struct ssa_trace_derived *d, const __u64 *disk)
{
	struct outbuf_memo t = { 0 };	/* the times */
	unsigned int i, k = 0;

	p = outbuf_u64_memo(outbuf_lit(p, "{\"fork_ns\":"), r->fork_ns, &t);
	p = outbuf_u64_memo(outbuf_lit(p, ",\"join_ns\":"), r->join_ns, &t);
	p = outbuf_u64(outbuf_lit(p, ",\"dev\":\""), r->dev >> 20);
	p = outbuf_u64(outbuf_char(p, ':'), r->dev & 0xfffff);
	p = outbuf_u64(outbuf_lit(p, "\",\"id\":"), r->id);
	p = outbuf_str(outbuf_lit(p, ",\"op\":\""), ssatrace_op_name(r->op), 16);
	p = outbuf_u64(outbuf_lit(p, "\",\"sector\":"), r->sector);
	p = outbuf_u64(outbuf_lit(p, ",\"len\":"), r->len);
	p = outbuf_name(outbuf_lit(p, ",\"comm\":\""), r->comm, sizeof(r->comm));
	p = outbuf_s64(outbuf_lit(p, "\",\"status\":"), r->status);
	p = outbuf_u64(outbuf_lit(p, ",\"nr_children\":"), r->nr_children);
	p = outbuf_lit(p, ",\"truncated\":");
	if (r->nr_children > r->nr_slots)
		p = outbuf_lit(p, "true");
	else
		p = outbuf_lit(p, "false");
	p = outbuf_u64(outbuf_lit(p, ",\"resp_ns\":"), d->resp_ns);
	p = outbuf_u64(outbuf_lit(p, ",\"max_wait_ns\":"), d->max_wait_ns);
	p = outbuf_u64(outbuf_lit(p, ",\"max_service_ns\":"), d->max_service_ns);
	p = outbuf_u64(outbuf_lit(p, ",\"skew_ns\":"), d->skew_ns);
	p = outbuf_s64(outbuf_lit(p, ",\"last_member\":"), d->last_member);
	p = outbuf_lit(p, ",\"children\":[");
	for (i = 0; i < r->nr_slots && i < SSA_TRACE_MAX_SLOTS; i++) {
		const struct ssa_trace_child *c = &r->child[i];

		if (!ssa_trace_child_valid(r, i))
			continue;
		if (k++)
			p = outbuf_char(p, ',');
		p = outbuf_u64(outbuf_lit(p, "{\"child\":"), i);
		p = outbuf_u64(outbuf_lit(p, ",\"member\":"), c->member);
		p = outbuf_str(outbuf_lit(p, ",\"class\":\""),
			       ssatrace_class_names[c->class & 1], 4);
		p = outbuf_str(outbuf_lit(p, "\",\"op\":\""), ssatrace_op_name(c->op), 16);
		p = outbuf_u64_memo(outbuf_lit(p, "\",\"queued_ns\":"), c->queued_ns, &t);
		p = outbuf_u64_memo(outbuf_lit(p, ",\"dispatched_ns\":"),
				    c->dispatched_ns, &t);
		p = outbuf_u64_memo(outbuf_lit(p, ",\"completed_ns\":"),
				    c->completed_ns, &t);
		p = outbuf_u64(outbuf_lit(p, ",\"msector\":"), c->msector);
		p = outbuf_u64(outbuf_lit(p, ",\"len\":"), c->len);
		p = outbuf_u64(outbuf_lit(p, ",\"qlen\":"), c->qlen);
		p = outbuf_s64(outbuf_lit(p, ",\"status\":"), c->status);
		if (disk)
			p = outbuf_u64(outbuf_lit(p, ",\"disk_start_ns\":"), disk[i]);
		p = outbuf_char(p, '}');
	}
	return outbuf_lit(p, "]}\n");
}

#endif /* SSATRACE_RECORD_H */
