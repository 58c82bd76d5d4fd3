/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ssa-compat.h - the few kernel APIs that differ between the kernels the
 * module builds for (6.1 to 7.x).  Each difference is found by a probe of
 * the kernel's own headers in Kbuild (SSA_HAVE_*), not by version number.
 */
#ifndef SSA_COMPAT_H
#define SSA_COMPAT_H

#include <linux/hrtimer.h>

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

#endif
