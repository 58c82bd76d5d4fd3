// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ssastripe: the parity layouts' group locks.  A write locks every
 * parity group it touches for its whole read-modify-write, or queues on
 * par->waiting until a holder unlocks (which kicks the start work); a
 * walk's group and a reconstructed read take one group's lock, waiting
 * for it in process context.  The locks live in a hash of par->buckets,
 * under par->lock.
 */
#include "ssa-parity.h"

static struct hlist_head *ssa_pg_bucket(struct ssa_parity *par, u64 key)
{
	return &par->buckets[hash_64(key, SSA_LOCK_BITS)];
}

/* Lock every group of @op, or queue it to wait.  Called under par->lock. */
bool ssa_pg_lock_or_wait(struct ssa_parity *par, struct ssa_pop *op)
{
	struct ssa_plock *l;
	unsigned int i;

	for (i = 0; i < op->nr_locks; i++) {
		hlist_for_each_entry(l, ssa_pg_bucket(par, op->locks[i].key),
				     node) {
			if (l->key == op->locks[i].key) {
				list_add_tail(&op->wait, &par->waiting);
				return false;
			}
		}
	}
	for (i = 0; i < op->nr_locks; i++)
		hlist_add_head(&op->locks[i].node,
			       ssa_pg_bucket(par, op->locks[i].key));
	op->locked = true;
	return true;
}

/* After an unlock, under no lock: wake those waiting for a group. */
static void ssa_pg_wake_waiters(struct ssa_parity *par)
{
	if (wq_has_sleeper(&par->lock_wait))
		wake_up(&par->lock_wait);
}

void ssa_pg_unlock(struct ssa_ctx *sc, struct ssa_pop *op)
{
	struct ssa_parity *par = ssa_par(sc);
	unsigned long flags;
	unsigned int i;
	bool kick;

	spin_lock_irqsave(&par->lock, flags);
	for (i = 0; i < op->nr_locks; i++)
		hlist_del(&op->locks[i].node);
	kick = !list_empty(&par->waiting);
	if (kick)
		par->retry = true;
	spin_unlock_irqrestore(&par->lock, flags);
	op->locked = false;
	ssa_pg_wake_waiters(par);
	ssa_bm_release(par->bm, &op->bmw);
	ssa_ppl_release(op);
	if (kick)
		queue_work(par->start_wq, &par->start_work);
}

/* Take one group's lock if nothing holds it. */
static bool ssa_pg_try_lock(struct ssa_parity *par, struct ssa_plock *lk,
			    u64 key)
{
	struct ssa_plock *l;
	bool busy = false;

	spin_lock_irq(&par->lock);
	hlist_for_each_entry(l, ssa_pg_bucket(par, key), node)
		busy |= l->key == key;
	if (!busy) {
		lk->key = key;
		hlist_add_head(&lk->node, ssa_pg_bucket(par, key));
	}
	spin_unlock_irq(&par->lock);
	return !busy;
}

/*
 * Lock one group, sleeping on par->lock_wait while a write holds it
 * (scrub, rebuilt reads; process context).  Every unlock wakes the
 * waiters, which look again.  TASK_IDLE: a write may hold the group for
 * as long as its member takes, which is no hung task.
 */
void ssa_pg_wait_lock(struct ssa_parity *par, struct ssa_plock *lk,
		      u64 key)
{
	wait_event_idle(par->lock_wait, ssa_pg_try_lock(par, lk, key));
}

void ssa_pg_drop_lock(struct ssa_ctx *sc, struct ssa_plock *lk)
{
	struct ssa_parity *par = ssa_par(sc);
	bool kick;

	spin_lock_irq(&par->lock);
	hlist_del(&lk->node);
	kick = !list_empty(&par->waiting);
	if (kick)
		par->retry = true;
	spin_unlock_irq(&par->lock);
	ssa_pg_wake_waiters(par);
	if (kick)
		queue_work(par->start_wq, &par->start_work);
}
