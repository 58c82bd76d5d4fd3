// SPDX-License-Identifier: GPL-2.0-only
/*
 * ssadisk channels: the transfer path that every disk naming the same
 * channel shares (the loop and host adapter of an SSA array, seed 000
 * Table 1: "Bus communication rate 20 MB per second per route").  The
 * arithmetic is ssad_channel() in ssa-disk-model.c; this file keeps the
 * channels.
 *
 * A channel is created by the first ssadisk constructor that names it and
 * freed when the last table holding it is destroyed: a table reload joins
 * the channel again before the old table leaves it, so the channel and its
 * busy-until time carry over.  The list and the reference counts are under
 * ssad_chans_mutex (constructors and destructors only, which may sleep).
 * Targets hold the module, so no channel can be alive at module unload.
 *
 * Locking: a channel's spinlock protects its busy-until time and is taken
 * only with its disk's lock held, interrupts off (from the disk's timer,
 * map, status and prediction).  Lock order: the disk's lock, then the
 * channel's; never the other way round, never two disks' locks at once.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "ssa-disk-priv.h"

struct ssad_chan {
	struct list_head list;		/* in ssad_chans */
	unsigned int refs;		/* tables holding it */
	u32 mbps;			/* MB/s, 10^6 bytes a second */
	spinlock_t lock;		/* protects busy_until */
	u64 busy_until;			/* end of the last reservation */
	char name[SSAD_CHAN_NAME_MAX + 1];
};

static LIST_HEAD(ssad_chans);
static DEFINE_MUTEX(ssad_chans_mutex);	/* the list and the refs */

static struct ssad_chan *ssad_chan_find(const char *name)
{
	struct ssad_chan *ch;

	lockdep_assert_held(&ssad_chans_mutex);
	list_for_each_entry(ch, &ssad_chans, list)
		if (!strcmp(ch->name, name))
			return ch;
	return NULL;
}

static struct ssad_chan *ssad_chan_new(const char *name, u32 mbps)
{
	struct ssad_chan *ch = kzalloc(sizeof(*ch), GFP_KERNEL);

	if (!ch)
		return NULL;
	strscpy(ch->name, name, sizeof(ch->name));
	ch->mbps = mbps;
	spin_lock_init(&ch->lock);
	list_add(&ch->list, &ssad_chans);
	return ch;
}

/*
 * Join the channel @name of @mbps MB/s, creating it if no disk has; 0, or
 * an error with *@error set.  A channel has one rate: a table that asks
 * another is refused while any table holds the channel.  (ti->error must
 * be a string that outlives the constructor, so the refusal's figures go
 * to the kernel log, just before DM's line with *@error.)
 */
int ssad_chan_get(const char *name, u32 mbps, struct ssad_chan **out,
		  char **error)
{
	struct ssad_chan *ch;
	int r = 0;

	mutex_lock(&ssad_chans_mutex);
	ch = ssad_chan_find(name);
	if (ch && ch->mbps != mbps) {
		DMERR("channel %s already has rate %u MB/s (this table asks %u MB/s)",
		      name, ch->mbps, mbps);
		*error = "Channel already has another rate: one channel_mbps per channel";
		r = -EINVAL;
		goto out;
	}
	if (!ch)
		ch = ssad_chan_new(name, mbps);
	if (!ch) {
		*error = "Cannot allocate ssadisk channel";
		r = -ENOMEM;
		goto out;
	}
	ch->refs++;
	*out = ch;
out:
	mutex_unlock(&ssad_chans_mutex);
	return r;
}

/* Leave a channel (NULL: none); the last table to leave frees it. */
void ssad_chan_put(struct ssad_chan *ch)
{
	if (!ch)
		return;
	mutex_lock(&ssad_chans_mutex);
	if (!--ch->refs) {
		list_del(&ch->list);
		kfree(ch);
	}
	mutex_unlock(&ssad_chans_mutex);
}

/*
 * Reserve the channel for the command of @len sectors that starts at
 * @start and costs @c (ssad_channel()).  The disk's lock is held.
 */
void ssad_chan_reserve(struct ssad_chan *ch, u32 len, u64 start,
		       struct ssad_cost *c)
{
	spin_lock(&ch->lock);
	ssad_channel(&ch->busy_until, ch->mbps, len, start, c);
	spin_unlock(&ch->lock);
}

/* When the channel is free, as of now (prediction); the disk's lock is held. */
u64 ssad_chan_busy(struct ssad_chan *ch)
{
	u64 t;

	spin_lock(&ch->lock);
	t = ch->busy_until;
	spin_unlock(&ch->lock);
	return t;
}
