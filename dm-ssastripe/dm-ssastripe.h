/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-ssastripe: striping device-mapper target with an explicit fork/join
 * core.  Shared definitions of the target context and the I/O path.
 */
#ifndef DM_SSASTRIPE_H
#define DM_SSASTRIPE_H

#include <linux/device-mapper.h>
#include <linux/bio.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "ssa-bitmap.h"
#include "ssa-layout.h"
#include "ssa-trace-abi.h"

#define DM_MSG_PREFIX "ssastripe"

/* Scheduling classes of a member's dispatcher; HIGH is served first. */
enum ssa_class {
	SSA_CLASS_HIGH,		/* parity updates and other internal work */
	SSA_CLASS_LOW,		/* reads and writes of user data */
	SSA_NR_CLASSES,
};

/* Operation codes of the tracepoints (the tracing ABI: append only). */
enum ssa_op {
	SSA_OP_READ,
	SSA_OP_WRITE,
	SSA_OP_FLUSH,
	SSA_OP_DISCARD,
	SSA_OP_WRITE_ZEROES,
	SSA_OP_OTHER,
};

/* Per-member counters, kept per CPU so the I/O path shares no cache line. */
struct ssa_member_stats {
	u64 children[2];	/* user-data children issued: [READ], [WRITE] */
	/*
	 * Requests ssa_map_fast() remapped to this member whole, [READ] and
	 * [WRITE]: each also a request, a child and a low-class dispatch.
	 */
	u64 remapped[2];
	u64 sectors[2];		/* sectors those children carried */
	u64 other;		/* flush, discard and write-zeroes children */
	u64 dispatched[SSA_NR_CLASSES];	/* children sent to the device */
	u64 completed;		/* children the device completed */
};

enum ssa_member_flags {
	SSA_MEMBER_FAILED,	/* the member has completed a child with an error */
	SSA_MEMBER_REBUILD,	/* a copy being rebuilt: readable below the cursor */
};

/* Read policies of the mirror layout (table and message "read_policy"). */
enum ssa_read_policy {
	SSA_READ_QUEUE,		/* the copy with the fewest outstanding children */
	SSA_READ_SPLIT,		/* every copy of the set transfers a share */
	SSA_READ_NEAREST,	/* the copy whose last sector is nearest */
	SSA_READ_ROUND_ROBIN,
	/* queue, but a large piece on a set whose copies are idle is split */
	SSA_READ_ADAPTIVE,
	SSA_NR_READ_POLICIES,
};

/* Orders of a member's dispatcher (table and message "sched"). */
enum ssa_sched {
	SSA_SCHED_FIFO,		/* arrival order within a class */
	SSA_SCHED_RSATF,	/* shortest predicted access (and replica) first */
	SSA_SCHED_RLOOK,	/* LOOK over the predicted cylinders */
	SSA_NR_SCHEDS,
};

/* srarray: when a write reaches its replicas past the first (table option). */
enum ssa_propagation {
	SSA_PROP_FOREGROUND,	/* every replica before the write completes */
	SSA_PROP_BACKGROUND,	/* one; the others copied from it later */
};

/* Parity layouts: when a parity update joins its member's queue. */
enum ssa_sync {
	SSA_SYNC_BEFORE,	/* when the data task starts service (BS) */
	SSA_SYNC_AFTER,		/* when the old data has been read (AS) */
	SSA_NR_SYNC,
};

struct ssa_ctx;
struct ssa_cstate;
struct ssad_cand;
struct ssad_guess;
struct ssa_parity;
struct ssa_pop;
struct ssa_ptask;

struct ssa_member {
	struct ssa_ctx *sc;
	unsigned int index;
	struct dm_dev *dev;
	sector_t offset;	/* start of the member's data area */
	unsigned long flags;
	atomic_t errors;
	struct ssa_member_stats __percpu *stats;

	/* The dispatcher; used only while queue_depth > 0. */
	spinlock_t lock;
	struct bio_list queue[SSA_NR_CLASSES];
	unsigned int qlen[SSA_NR_CLASSES];	/* children per class waiting */
	unsigned int inflight;	/* dispatched through the queue, not done */
	struct work_struct dispatch_work;

	/* Mirror read balancing. */
	atomic_t outstanding;	/* children issued, not completed */
	u64 head;		/* member sector after the last child issued */

	/* sched rsatf/rlook (ssa-sched.c), under lock: the questions put to
	 * the member's disk, and LOOK's direction
	 */
	struct ssad_cand *cand;
	bool sweep_up;
};

/* Per-CPU counters of logical requests. */
struct ssa_volume_stats {
	u64 requests[2];	/* read and write requests mapped */
	u64 other;		/* flush, discard, write-zeroes requests */
};

/*
 * Request records freed at a join, kept on that CPU for the next fork
 * (ssa-io-trace.c): the slab allocator is not on the path of a traced request.
 */
#define SSA_TRACE_CACHE	32

struct ssa_trace_cache {
	struct ssa_trace_req *rec[SSA_TRACE_CACHE];	/* NULL: empty */
};

/* Table options; a bit per option records that the table named it. */
enum ssa_opt {
	SSA_OPT_COALESCE,
	SSA_OPT_QUEUE_DEPTH,
	SSA_OPT_PRIORITY,
	SSA_OPT_COPIES,
	SSA_OPT_READ_POLICY,
	SSA_OPT_REBUILD_RATE,
	SSA_OPT_SYNC,
	SSA_OPT_WRITE_METHOD,
	SSA_OPT_PARITY_LAYOUT,
	SSA_OPT_INITIAL_SYNC,
	SSA_OPT_REBUILD,	/* repeatable: one per member to rebuild */
	SSA_OPT_BITMAP,		/* a device path (sc->meta_dev), not a number */
	SSA_OPT_BITMAP_REGION,
	SSA_OPT_PPL,		/* a device path too: bitmap or ppl, not both */
	SSA_OPT_MERGE,
	SSA_OPT_REPLICAS,	/* srarray: rotational replicas a block (Dr) */
	SSA_OPT_TRACK_SECTORS,	/* srarray: sectors a track of every member */
	SSA_OPT_SCHED,
	SSA_OPT_PROPAGATE,	/* srarray: when replicas past the first are written */
	SSA_NR_OPTS,
};

#define SSA_MAX_QUEUE_DEPTH	65536

/* The options of the layouts whose dispatchers may reorder children. */
#define SSA_SCHED_OPTS	BIT(SSA_OPT_SCHED)

/* The options every layout takes. */
#define SSA_COMMON_OPTS	(BIT(SSA_OPT_QUEUE_DEPTH) | BIT(SSA_OPT_PRIORITY) | \
			 BIT(SSA_OPT_MERGE))

struct ssa_io;

/*
 * A layout's personality (md's struct md_personality, dm-mpath's path
 * selector type): everything the core does that depends on the layout
 * goes through these.  The core never names a layout's functions; a
 * layout calls the core's fork, child and dispatch helpers below.  A NULL
 * hook means the layout has nothing to do there.  raid5 and pstripe share
 * their functions and differ in flags and options; the geometry that
 * tells layouts apart is struct ssa_layout (ssa-layout.h).
 */
struct ssa_layout_ops {
	unsigned long opts;	/* BIT(SSA_OPT_*): options the layout takes */
	bool fast_map;		/* ssa_map_fast() may remap requests whole */
	bool discards;		/* discard and write-zeroes reach the members */
	bool unstriped;		/* consecutive chunks continue on one member */

	/* Constructor: options, before the geometry; sets ti->error. */
	int (*check_opts)(struct ssa_ctx *sc);
	/* ... and the geometry, once the rows are known. */
	int (*check_geometry)(struct ssa_ctx *sc);
	/* Private state (sets ti->error); its release takes any state. */
	int (*alloc)(struct ssa_ctx *sc);
	void (*free)(struct ssa_ctx *sc);

	/*
	 * Every request ssa_map_fast() does not remap whole: fork it.
	 * Returns a DM_MAPIO_* value.
	 */
	int (*map)(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		   u8 op, u64 start, u64 end);
	/* The last child of @io completed, before its parent ends. */
	void (*join)(struct ssa_io *io);
	/* A read child (@child) or remapped read failed: true if taken over. */
	bool (*retry_read)(struct ssa_ctx *sc, struct bio *bio,
			   blk_status_t status, bool child);
	/* A child with cs.start_hook set is dispatched to its member. */
	void (*started)(struct bio *bio);
	/*
	 * A child with cs.alts set is about to be dispatched: send it to
	 * alternative @alt (0 .. cs.alts - 1, chosen by the dispatcher's
	 * scheduler from the member disk's answers: @c for @alt, @g for
	 * all), or choose one if @alt < 0 (@c and @g NULL); set cs->msector
	 * and the bio's sector.  Called under the member's dispatcher lock
	 * where there is a queue.
	 */
	void (*place)(struct ssa_ctx *sc, struct bio *bio,
		      struct ssa_cstate *cs, int alt,
		      const struct ssad_cand *c, const struct ssad_guess *g);
	/*
	 * Which of a child's alternatives hold its data now (bit r for
	 * alternative r); without this op, all of them.
	 */
	u8 (*alt_mask)(struct ssa_ctx *sc, struct ssa_cstate *cs);

	/* Messages: fail <member>, check, repair, idle. */
	int (*fail)(struct ssa_ctx *sc, unsigned int m);
	int (*scrub)(struct ssa_ctx *sc, bool repair);
	int (*idle)(struct ssa_ctx *sc);
	/* A message changed option @opt; the value has been applied. */
	void (*opt_changed)(struct ssa_ctx *sc, int opt);
	/* The layout's tail of STATUSTYPE_INFO and _IMA; returns the new sz. */
	unsigned int (*status)(struct ssa_ctx *sc, status_type_t type,
			       char *result, unsigned int maxlen,
			       unsigned int sz);
	/* Background walks: stopped at suspend and removal, started at resume. */
	void (*stop)(struct ssa_ctx *sc);
	void (*start)(struct ssa_ctx *sc);
	/*
	 * Metadata: read before the first resume (an older table of the
	 * device has written its own by then), and written when suspended
	 * with nothing in flight.
	 */
	int (*prepare)(struct ssa_ctx *sc);
	void (*quiesced)(struct ssa_ctx *sc);
};

extern const struct ssa_layout_ops ssa_stripe_ops;	/* ssa-stripe.c */
extern const struct ssa_layout_ops ssa_mirror_ops;	/* ssa-mirror.c */
extern const struct ssa_layout_ops ssa_raid5_ops;	/* ssa-parity.c */
extern const struct ssa_layout_ops ssa_pstripe_ops;	/* ssa-parity.c */
extern const struct ssa_layout_ops ssa_srarray_ops;	/* ssa-srarray.c */

struct ssa_ctx {
	struct dm_target *ti;
	const struct ssa_layout *layout;
	struct ssa_geom geom;
	sector_t member_len;	/* sectors of each member the volume uses */
	dev_t devt;		/* of the mapped device, for tracepoints */

	unsigned long opts_given;
	unsigned int opt[SSA_NR_OPTS];	/* option values, defaults filled in */
	bool coalesce;		/* one child per member, not one per chunk */
	unsigned int queue_depth;	/* 0: unbounded, no queueing */
	bool priority;		/* false: both classes share one FIFO */
	bool merge;		/* the dispatcher merges adjacent children */
	unsigned int sched;	/* enum ssa_sched */
	/* a child's alternatives (cs.alts) lie this many sectors apart */
	u32 alt_stride;

	unsigned int io_size;	/* per-bio data: ssa_io_size() */
	bool fast_map;		/* stripe layout, queue_depth 0: ssa_map_fast() */
	/* children a request record holds (ssastripe_request) */
	unsigned int trace_slots;
	struct ssa_trace_cache __percpu *trace_cache;

	struct bio_set bs;	/* children; front pad is struct ssa_child */
	struct workqueue_struct *wq;	/* member dispatchers */
	struct ssa_volume_stats __percpu *stats;
	u64 __percpu *req_seq;	/* request id generator */
	struct work_struct event_work;

	/* Option values the layouts read (ssa_apply_opts()). */
	unsigned int copies;	/* mirror: members a set; 1 otherwise */
	unsigned int read_policy;	/* enum ssa_read_policy */
	unsigned int sync;		/* enum ssa_sync */
	unsigned int write_method;	/* enum ssa_wmethod */
	u64 rebuild_mask;	/* members the table named with "rebuild" */
	/* option "bitmap" or "ppl": the layout's metadata device */
	const char *meta_path;
	struct dm_dev *meta_dev;
	struct ssa_claim *meta_claim;	/* its sectors, ours (ssa-claim.c) */

	/* The layout's personality and its private state (ops->alloc). */
	const struct ssa_layout_ops *ops;
	void *priv;

#ifdef SSA_DEBUG
	/* Test-only high-priority reads (ssa-inject.c). */
	atomic_t injected;
	atomic_t inject_seq;	/* child numbers of injected reads */
	wait_queue_head_t injected_wait;
#endif

	unsigned int nr_members;
	struct ssa_member members[];
};

/* What the tracepoints and the dispatcher need to know of one child. */
struct ssa_cstate {
	u64 msector;		/* member sector, relative to its data area */
	u32 len;		/* sectors */
	u32 idx;		/* child number within its request */
	u16 member;
	u8 class;
	u8 op;			/* enum ssa_op */
	bool counted;		/* holds a dispatch slot (queue_depth > 0) */
	bool start_hook;	/* call sc->ops->started() at dispatch */
	u8 alts;		/* places to choose from at dispatch; 0 fixed */
	u8 passes;		/* times passed over at the head of its queue */
};

/*
 * A child's state: member @m at @msector (relative to its data area),
 * @len sectors, child number @idx, in scheduling class @class, doing @op;
 * no start hook.  What is not known yet (a clone's length, its number and
 * op) ssa_issue() sets.  @counted belongs to the dispatcher.
 */
static inline void ssa_cstate_set(struct ssa_cstate *cs, unsigned int m,
				  u64 msector, u32 len, u32 idx, u8 class,
				  u8 op)
{
	cs->member = m;
	cs->msector = msector;
	cs->len = len;
	cs->idx = idx;
	cs->class = class;
	cs->op = op;
	cs->start_hook = false;
	cs->alts = 0;
	cs->passes = 0;
}

/*
 * Per-bio data of every bio DM hands the target (the parent of a fork).
 * @segs is scratch for the fork: the bvec count each member's child needs.
 */
struct ssa_io {
	struct ssa_ctx *sc;
	u64 id;			/* request id, unique per device */
	atomic_t pending;	/* children in flight, plus one while forking */
	u32 error;		/* first error of a child (a blk_status_t) */
	u32 nr_children;	/* children issued so far */
	/* ssastripe_request's record: NULL unless the event was on at the fork */
	struct ssa_trace_req *rec;
	bool remapped;		/* the parent itself went to cs.member */
	struct ssa_cstate cs;	/* the parent's own child state if remapped */
	/* Mirror writes: members written to, and those that failed. */
	u64 issued;
	atomic64_t failed;
	struct list_head walk_node;	/* on the mirror walk's list of writes */
	u64 walk_lo, walk_hi;	/* member sectors the write may touch */
	bool walk_counted;	/* in the walk's count of unregistered writes */
	struct ssa_bm_wait bmw;	/* mirror writes: claim on the bitmap's regions */
	struct ssa_pop *pop;	/* parity layouts: the write operation */
	struct bvec_iter iter;	/* parity layouts: the parent as mapped */
	u16 segs[];
	/*
	 * The stripe layout's per-bio data ends in one more block of
	 * SSA_IO_REC1_SIZE bytes (ssa_io_size()): the record of a request
	 * ssa_map_fast() remaps while ssastripe_request is enabled, its
	 * header and its one child, there rather than from the record cache
	 * (ssa_io_rec1()).
	 */
};

/* Front pad of each child bio allocated from ssa_ctx.bs. */
struct ssa_child {
	struct ssa_ctx *sc;
	struct ssa_io *io;	/* NULL for internal work without a request */
	struct ssa_cstate cs;
	/*
	 * Mirror children: the bio the child's bvecs come from, if not the
	 * parent, and what a retry on another copy needs.
	 */
	struct bio *src;
	struct bvec_iter iter;	/* as first submitted */
	u64 tried;		/* members a read has been sent to */
	struct ssa_ptask *pt;	/* parity layouts: the task of the bio */
	struct bio bio;		/* must be last */
};

/* The record's sizes are tracing ABI (ssa-trace-abi.h): never change them. */
static_assert(sizeof(struct ssa_trace_child) == 56);
static_assert(sizeof(struct ssa_trace_req) == 72);
#define SSA_IO_REC1_SIZE (sizeof(struct ssa_trace_req) + \
			  sizeof(struct ssa_trace_child))
static_assert(SSA_IO_REC1_SIZE % __alignof__(struct ssa_trace_req) == 0);
/* what ssastripe_record lets a BPF program read in place: every record */
static_assert(sizeof(union ssa_trace_rec_head) == SSA_IO_REC1_SIZE);
/* ssa_io_rec1() of a layout without the room points inside struct ssa_io */
static_assert(sizeof(struct ssa_io) >= SSA_IO_REC1_SIZE);

/*
 * Children a request record has room for: twice the members (a parity
 * read-modify-write reads and writes each member it touches), at most
 * SSA_TRACE_MAX_SLOTS.
 */
static inline unsigned int ssa_trace_slots(unsigned int nr_members)
{
	return min_t(unsigned int, 2 * nr_members, SSA_TRACE_MAX_SLOTS);
}

/*
 * DM places per-bio data right before the bio: keep its alignment.  Only
 * the stripe layout remaps requests whole (ssa_map_fast()), so only its
 * per-bio data has room for a one-child record at the end.
 */
static inline size_t ssa_io_size(unsigned int nr_members, bool rec1)
{
	return ALIGN(sizeof(struct ssa_io) + nr_members * sizeof(u16),
		     __alignof__(struct ssa_io)) + (rec1 ? SSA_IO_REC1_SIZE : 0);
}

static inline struct ssa_io *ssa_io_of(struct ssa_ctx *sc, struct bio *bio)
{
	return dm_per_bio_data(bio, sc->io_size);
}

static inline struct bio *ssa_parent_of(struct ssa_io *io)
{
	return dm_bio_from_per_bio_data(io, io->sc->io_size);
}

static inline struct ssa_child *to_child(struct bio *bio)
{
	return container_of(bio, struct ssa_child, bio);
}

/* The child state and request of any bio a member's dispatcher holds. */
static inline struct ssa_cstate *ssa_cstate_of(struct ssa_ctx *sc,
					       struct bio *bio,
					       struct ssa_io **io)
{
	if (bio->bi_pool == &sc->bs) {
		*io = to_child(bio)->io;
		return &to_child(bio)->cs;
	}
	*io = ssa_io_of(sc, bio);	/* a remapped parent */
	return &(*io)->cs;
}

/* ssa-io.c: the target's map and end_io */
int ssa_map(struct dm_target *ti, struct bio *bio);
int ssa_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error);

/* ssa-io.c: fork, join and children, for the layouts' fork code */
u8 ssa_op_of(struct bio *bio);
void ssa_fork_begin(struct ssa_ctx *sc, struct ssa_io *io, u8 op,
		    u64 start, u64 end, u32 nr_children);
void ssa_io_put(struct ssa_io *io);
void ssa_io_set_error(struct ssa_io *io, blk_status_t status);
void ssa_child_init(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		    unsigned int m, u64 msector);
struct bio *ssa_clone(struct ssa_ctx *sc, struct ssa_io *io,
		      struct bio *parent, unsigned int m, u64 msector);
void ssa_issue(struct ssa_ctx *sc, struct ssa_io *io, struct bio *child);
void ssa_issue_from(struct ssa_ctx *sc, struct ssa_io *io, struct bio *child,
		    bool from_map);
void ssa_remap_parent(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		      u8 op, u64 start, u64 end, const struct ssa_extent *e);

/* ssa-dispatch.c: the member dispatchers and member failures */
void ssa_submit_child(struct ssa_ctx *sc, struct bio *bio, struct ssa_io *io,
		      struct ssa_cstate *cs, bool from_map);
void ssa_submit_held(struct ssa_ctx *sc, struct bio *bio, struct ssa_io *io,
		     struct ssa_cstate *cs);
void ssa_child_done(struct ssa_ctx *sc, struct bio *bio, struct ssa_io *io,
		    struct ssa_cstate *cs, blk_status_t status);
void ssa_child_done_held(struct ssa_ctx *sc, struct bio *bio,
			 struct ssa_io *io, struct ssa_cstate *cs,
			 blk_status_t status);
void ssa_slot_put(struct ssa_ctx *sc, unsigned int m);
void ssa_dispatch_work(struct work_struct *work);
void ssa_kick_members(struct ssa_ctx *sc);
bool ssa_member_fault(blk_status_t status, struct bio *bio);
void ssa_member_error(struct ssa_ctx *sc, unsigned int m, blk_status_t status,
		      struct bio *bio);
void ssa_member_fail(struct ssa_ctx *sc, unsigned int m);

/*
 * ssa-retry.c: read children that failed on their member, sent again from
 * process context, each to a copy it has not been sent to (mirror, srarray).
 * @next picks that member and sets the child's place for it (cs.msector,
 * cs.alts), or returns < 0 when none is left; @put frees a child (NULL:
 * bio_put()).
 */
struct ssa_retry {
	struct ssa_ctx *sc;
	int (*next)(struct ssa_ctx *sc, struct ssa_child *c);
	void (*put)(struct bio *bio);
	spinlock_t lock;		/* protects @list */
	struct bio_list list;
	struct work_struct work;
};

void ssa_retry_init(struct ssa_retry *r, struct ssa_ctx *sc,
		    int (*next)(struct ssa_ctx *sc, struct ssa_child *c),
		    void (*put)(struct bio *bio));
void ssa_retry_add(struct ssa_retry *r, struct bio *bio);
/* ssa-sched.c: the order a member's dispatcher serves a class in */
#define SSA_SCHED_CANDS		64	/* places considered a decision */
#define SSA_SCHED_MAX_PASSES	64	/* then the oldest child goes */
int ssa_sched_alloc(struct ssa_ctx *sc);
void ssa_sched_free(struct ssa_ctx *sc);
struct bio *ssa_sched_pop(struct ssa_ctx *sc, struct ssa_member *mb,
			  struct bio_list *q);

/*
 * ssa-member-io.c: background work's synchronous member and metadata I/O
 * (walks, propagation, the bitmap's and the log's daemons; process
 * context), a window of pages at a time.
 */
#define SSA_WINDOW_SECTORS	512	/* 256 KiB */
#define SSA_WINDOW_PAGES	DIV_ROUND_UP(SSA_WINDOW_SECTORS << SECTOR_SHIFT, \
					     PAGE_SIZE)
struct page **ssa_pages_alloc(void);
void ssa_pages_free(struct page **pages);
int ssa_member_rw(struct ssa_ctx *sc, unsigned int m, enum req_op op, u64 ms,
		  unsigned int sectors, struct page **pages, u8 class);
int ssa_flush_members(struct ssa_ctx *sc);
int ssa_pages_io(struct block_device *bdev, sector_t sector,
		 struct page **pages, u32 bytes, blk_opf_t opf);

/* ssa-inject.c: test-only fault injection, with SSA_DEBUG=y (Kbuild) */
#ifdef SSA_DEBUG
void ssa_inject_init(struct ssa_ctx *sc);
void ssa_inject_drain(struct ssa_ctx *sc);
int ssa_inject_message(struct ssa_ctx *sc, char **argv);
#else
static inline void ssa_inject_init(struct ssa_ctx *sc) {}
static inline void ssa_inject_drain(struct ssa_ctx *sc) {}
#endif

/* ssa-claim.c: live volumes' claims on their bitmap or ppl device */
int ssa_claim_meta(struct ssa_ctx *sc, const char *what);
void ssa_release_meta(struct ssa_ctx *sc);

/* ssa-io-trace.c */
void ssa_trace_cache_free(struct ssa_ctx *sc);

/* ssa-stripe.c: the stripe layout's fork, which the other layouts reuse */
void ssa_flush_deferred(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio);
int ssa_map_data(struct ssa_ctx *sc, struct ssa_io *io, struct bio *bio,
		 u8 op, u64 start, u64 end);
u64 ssa_count_segs(struct ssa_ctx *sc, struct ssa_io *io, struct bio *parent,
		   u64 start, u64 end);
bool ssa_gather(struct ssa_ctx *sc, struct bio *parent, struct bio *child,
		unsigned int m, u64 start, u64 end);
u64 ssa_member_first(struct ssa_ctx *sc, unsigned int m, u64 ms);
u64 ssa_chunks(struct ssa_ctx *sc, u64 start, u64 end);

/* ssa-opts.c: the optional arguments (table and messages) */
const char *ssa_opt_word(int opt, unsigned int val);
int ssa_parse_opts(struct ssa_ctx *sc, struct dm_arg_set *as);
void ssa_apply_opts(struct ssa_ctx *sc);
int ssa_check_opts(struct ssa_ctx *sc);
unsigned int ssa_emit_opts(struct ssa_ctx *sc, char *result,
			   unsigned int maxlen, unsigned int sz);
int ssa_message_opt(struct ssa_ctx *sc, unsigned int argc, char **argv);

#endif /* DM_SSASTRIPE_H */
