/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ssa-args.h - strict numbers for the tables and messages of ssastripe and
 * ssadisk (ssa-args.c).
 */
#ifndef SSA_ARGS_H
#define SSA_ARGS_H

#ifdef __KERNEL__
#include <linux/device-mapper.h>
#include <linux/types.h>
#else
#include "kcompat.h"
#endif

int ssa_parse_u64(const char *s, u64 *val);
int ssa_parse_uint(const char *s, unsigned int *val);
int ssa_read_uint(const struct dm_arg *range, struct dm_arg_set *as,
		  unsigned int *val, char *too_large, char **error);
int ssa_read_group(const struct dm_arg *range, struct dm_arg_set *as,
		   unsigned int *val, char *too_large, char **error);
bool ssa_mask_beyond(u64 mask, unsigned int n);

#endif
