/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ssa-cache.h - the ssacache target (ssa-cache.c), registered by the
 * module beside ssastripe and ssadisk.
 */
#ifndef SSA_CACHE_H
#define SSA_CACHE_H

int ssacache_register(void);
void ssacache_unregister(void);

#endif
