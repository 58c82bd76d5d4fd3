/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The few kernel APIs that differ between the kernels the
 * module builds for (6.1 to 7.x).  Each difference is found by a probe of
 * the kernel's own headers in Kbuild (SSA_HAVE_*), not by version number.
 */
#ifndef SSA_COMPAT_H
#define SSA_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/raid/xor.h>
#include <linux/workqueue.h>

/* bio_integrity() moved to its own header in 6.11 (linux/bio.h before) */
#ifdef SSA_HAVE_BIO_INTEGRITY_H
#include <linux/bio-integrity.h>
#endif

/*
 * WQ_PERCPU (6.17; 6.12's stable series has it too) names what a
 * workqueue without WQ_UNBOUND always was, per-CPU; 7.x warns when
 * alloc_workqueue() is given neither.  Where it is missing, 0 asks for the
 * same thing.
 */
#ifdef SSA_HAVE_WQ_PERCPU
#define SSA_WQ_PERCPU	WQ_PERCPU
#else
#define SSA_WQ_PERCPU	0
#endif

/*
 * hrtimer_setup() (6.13) sets the callback with the clock and mode;
 * hrtimer_init() is gone since 6.15.
 */
static inline void ssa_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef SSA_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * xor_gen() (7.1) XORs any number of sources into the destination;
 * xor_blocks(), at most MAX_XOR_BLOCKS sources and the destination after
 * the count, is not in 7.2 (the 7.x Debian carries).
 */
static inline void ssa_xor_gen(void *dest, void **srcs, unsigned int src_cnt,
			       unsigned int bytes)
{
#ifdef SSA_HAVE_XOR_GEN
	xor_gen(dest, srcs, src_cnt, bytes);
#else
	while (src_cnt) {
		unsigned int n = min_t(unsigned int, src_cnt, MAX_XOR_BLOCKS);

		xor_blocks(n, bytes, dest, srcs);
		srcs += n;
		src_cnt -= n;
	}
#endif
}

#endif
