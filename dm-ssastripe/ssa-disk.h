/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ssadisk: the emulated-disk target that shares the dm-ssastripe module.
 */
#ifndef SSA_DISK_H
#define SSA_DISK_H

int ssadisk_register(void);
void ssadisk_unregister(void);

#endif /* SSA_DISK_H */
