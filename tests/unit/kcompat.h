/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Just enough of the kernel's types and helpers to compile the module's
 * pure code (dm-ssastripe/ssa-layout.c, ssa-disk-model.c, ssa-args.c,
 * ssa-parity-plan.c) as a host program.
 */
#ifndef SSA_KCOMPAT_H
#define SSA_KCOMPAT_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef uint32_t u32;
typedef uint64_t u64;
typedef uint16_t u16;
typedef uint8_t u8;

#define U32_MAX UINT32_MAX
#define SECTOR_SHIFT 9
#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

/* types that the parity plan's structs hold but the planner never uses */
struct list_head { struct list_head *next, *prev; };
struct hlist_node { struct hlist_node *next, **pprev; };
typedef struct { int counter; } atomic_t;
typedef u8 blk_status_t;
struct bvec_iter { u64 bi_sector; u32 bi_size, bi_idx, bi_bvec_done; };

#define BIT(n) (1UL << (n))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline unsigned long __ffs(unsigned long x)
{
	return (unsigned long)__builtin_ctzl(x);
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}

#define U64_MAX UINT64_MAX

/* the argument parsing of include/linux/device-mapper.h */
struct dm_arg_set {
	unsigned int argc;
	char **argv;
};

struct dm_arg {
	unsigned int min;
	unsigned int max;
	char *error;
};

#endif /* SSA_KCOMPAT_H */
