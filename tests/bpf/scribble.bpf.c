// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * scribble.bpf.c - test only: a raw_tp.w program on ssastripe_record that
 * writes over every byte the event lets it write (the request and its
 * first child), so that the kernel suite can check that nothing the module
 * does afterwards depends on them (tests/kernel/t_90_ssatrace.sh,
 * record_scribbled).  Each run also counts itself, and the records that
 * were whole when it read them (an id, the ABI version, a child slot, a
 * join no earlier than the fork): a record the cache hands out again
 * after a scribble must have been filled in anew.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "ssa-trace-abi.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 target_dev;	/* the volume's records only */
__u64 runs, sane;

SEC("raw_tp.w/ssastripe_record")
int scribble(struct bpf_raw_tracepoint_args *ctx)
{
	union ssa_trace_rec_head *h = (void *)ctx->args[0];
	__u64 *w = (void *)h;
	int i;

	if (h->req.dev != target_dev)
		return 0;
	__sync_fetch_and_add(&runs, 1);
	if (h->req.id && h->req.version == SSA_TRACE_REC_VERSION &&
	    h->req.nr_slots >= 1 && h->req.join_ns >= h->req.fork_ns)
		__sync_fetch_and_add(&sane, 1);
	/* all ones: the worst values for ids, counts, sizes and pointers */
	for (i = 0; i < sizeof(*h) / sizeof(*w); i++)
		w[i] = ~0ULL;
	return 0;
}
