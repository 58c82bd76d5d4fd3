/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ssadisk: the emulated-disk target that shares the dm-ssastripe module.
 */
#ifndef SSA_DISK_H
#define SSA_DISK_H

#include <linux/types.h>

int ssadisk_register(void);
void ssadisk_unregister(void);

/*
 * What an ssadisk predicts for an access that arrives now: when it would
 * start service, and its rotational wait and end.  @exact: the disk
 * serves in arrival order (or has at most one access waiting), so the
 * prediction holds to the nanosecond if the access arrives before the
 * disk is free; LOOK may serve the waiting ones in another order.
 */
struct ssad_guess {
	u64 start;
	u64 rot;
	u64 end;
	bool exact;
};

int ssad_predict(dev_t devt, const sector_t *dsector, unsigned int n,
		 u32 len, bool write, struct ssad_guess *g);

#endif /* SSA_DISK_H */
