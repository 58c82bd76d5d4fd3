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
 * One access an ssadisk may be asked about (ssad_predict()): where (a
 * sector of the ssadisk device), how long and which way; the answer is
 * when it would end if it were the next to arrive, and the cylinder it
 * lies on.  @end is U64_MAX for an access outside the disk, and for one
 * of no length (a place the caller leaves out).
 */
struct ssad_cand {
	sector_t dsector;
	u32 len;
	bool write;
	/* answers */
	u32 cyl;
	u64 end;
};

/*
 * What holds for all the candidates: when the disk is free to start the
 * next access, where its arm is then, and whether the answers are exact:
 * the disk serves in arrival order (or has at most one access waiting),
 * so a candidate that arrives before @start starts then and ends at its
 * @end; LOOK may serve the waiting ones in another order.
 */
struct ssad_guess {
	u64 start;
	u32 arm;
	bool exact;
};

int ssad_predict(dev_t devt, struct ssad_cand *c, unsigned int n,
		 struct ssad_guess *g);

#endif /* SSA_DISK_H */
