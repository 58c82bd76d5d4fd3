// SPDX-License-Identifier: GPL-2.0-only
/*
 * ssaload - the project's workload generator: an open-loop (Poisson or
 * constant arrivals) or closed-loop (MPL clients with think time) source
 * of O_DIRECT reads and writes on one block device or regular file, with a
 * record per request and a summary.
 *
 * Open loop: the main thread draws each request and submits it with
 * io_submit(2) at its absolute arrival time (clock_nanosleep with
 * TIMER_ABSTIME), whatever is outstanding; a second thread reaps the
 * completions with io_getevents(2).  Raw AIO syscalls, no libaio.
 *
 * Closed loop: one thread per client; each thinks (sleeps to an absolute
 * time), issues pread(2) or pwrite(2), and thinks again after the
 * completion.
 *
 * Every time is CLOCK_MONOTONIC in nanoseconds, the clock of the kernel's
 * ktime_get_ns() and of BPF's bpf_ktime_get_ns(), so the records can be
 * joined with ssatrace's by time.  Documentation/ssaload.rst has the rest.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define SSALOAD_VERSION	"1.0"

#define EXIT_FAIL	1	/* the run could not be done or written */
#define EXIT_USAGE	2	/* bad options, arguments or device */
#define EXIT_OUTRUN	3	/* open loop: the volume could not keep up */

#define MAX_MPL		4096
#define MAX_OUT		65536	/* fs.aio-max-nr's default */
#define MAX_ZONES	1024
#define MAX_REQ_BYTES	(1ULL << 30)
#define NSEC		1000000000ULL

enum mode { MODE_NONE, MODE_OPEN, MODE_CLOSED };
enum law { LAW_EXP, LAW_CONST };
enum sizes { SIZES_FIXED, SIZES_UNIFORM, SIZES_QGEO };
enum pattern { PAT_RANDOM, PAT_SEQ };
enum op { OP_READ, OP_WRITE };

/* one independent random stream per purpose (and per client) */
enum purpose { RNG_TIME, RNG_OP, RNG_SIZE, RNG_ZONE, RNG_OFFSET, RNG_SEQSTART };

static const char *const law_name[] = { "exp", "const" };
static const char *const pattern_name[] = { "random", "seq" };
static const char *const op_name[] = { "read", "write" };

static struct cfg {
	enum mode mode;
	bool open_set, closed_set;
	double rate;			/* open: requests/s */
	enum law arrivals;
	bool arrivals_set;
	unsigned int mpl;		/* closed: clients */
	double think_ms;
	bool think_set;
	enum law think_dist;
	bool think_dist_set;
	uint64_t requests;
	bool requests_set;
	uint64_t warmup;
	double duration;
	bool duration_set;
	double read_frac;
	uint64_t block;
	const char *sizes_spec;
	enum sizes sizes;
	unsigned int k;			/* largest request, in blocks */
	double sigma, p;		/* qgeo */
	double *size_cdf;		/* qgeo: P{blocks <= i + 1} */
	enum pattern pattern;
	uint64_t align;
	bool align_set;
	uint64_t shift;
	uint64_t range_start, range_len;
	bool range_set;
	const char *zones_spec;
	unsigned int nzones;
	double *zone_w;
	double *zone_cdf;
	uint64_t *zone_lo, *zone_hi;	/* [lo, hi) in bytes */
	uint64_t seed;
	uint64_t max_out;
	bool max_out_set;
	const char *records, *summary, *device;
	/* from the device */
	uint64_t dev_size;
	uint64_t dio_align;		/* offsets and lengths */
	uint64_t mem_align;		/* buffer addresses */
	bool is_blk;
} cfg = {
	.read_frac = 1.0,
	.block = 4096,
	.sizes_spec = "fixed:1",
	.sizes = SIZES_FIXED,
	.k = 1,
	.seed = 1,
	.max_out = 1024,
};

static const char *prog = "ssaload";

/* ------------------------------------------------------------------ */
/* messages */

static void __attribute__((format(printf, 1, 2), noreturn)) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	exit(EXIT_USAGE);
}

static void __attribute__((format(printf, 2, 3), noreturn)) die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* ------------------------------------------------------------------ */
/* numbers */

/*
 * A non-negative decimal integer, the whole string.  With @bytes, one
 * optional binary suffix: K, M, G or T (either case) for 2^10 .. 2^40.
 */
static bool parse_u64(const char *s, uint64_t *out, bool bytes)
{
	unsigned long long v;
	unsigned int sh = 0;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;	/* empty, sign, blank */
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (bytes && *end) {
		switch (*end) {
		case 'k': case 'K':
			sh = 10;
			break;
		case 'm': case 'M':
			sh = 20;
			break;
		case 'g': case 'G':
			sh = 30;
			break;
		case 't': case 'T':
			sh = 40;
			break;
		default:
			return false;
		}
		end++;
		if (v > (UINT64_MAX >> sh))
			return false;
		v <<= sh;
	}
	if (*end)
		return false;
	*out = v;
	return true;
}

/* a finite decimal (or C hex) floating-point number, the whole string */
static bool parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s[0] || isspace((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static uint64_t opt_u64(const char *opt, const char *arg, bool bytes)
{
	uint64_t v;

	if (!parse_u64(arg, &v, bytes))
		usage_error("%s: '%s' is not a non-negative integer%s (or it is too large)",
			    opt, arg, bytes ? " of bytes (suffixes K, M, G, T)" : "");
	return v;
}

static double opt_double(const char *opt, const char *arg)
{
	double v;

	if (!parse_double(arg, &v))
		usage_error("%s: '%s' is not a finite number", opt, arg);
	return v;
}

static enum law opt_law(const char *opt, const char *arg)
{
	if (!strcmp(arg, "exp"))
		return LAW_EXP;
	if (!strcmp(arg, "const"))
		return LAW_CONST;
	usage_error("%s: '%s' is neither exp nor const", opt, arg);
}

/* --sizes fixed:K | uniform:K | qgeo:SIGMA:P:K */
static void parse_sizes(const char *arg)
{
	char *s = strdup(arg), *f[4], *tok;
	unsigned int n = 0;
	uint64_t k;

	if (!s)
		die(EXIT_FAIL, "out of memory");
	/* strtok_r would merge empty fields; split by hand */
	tok = s;
	for (;;) {
		char *c = strchr(tok, ':');

		if (n == 4)
			usage_error("--sizes: '%s' has too many fields", arg);
		f[n++] = tok;
		if (!c)
			break;
		*c = '\0';
		tok = c + 1;
	}
	cfg.sizes_spec = arg;
	if (!strcmp(f[0], "fixed") || !strcmp(f[0], "uniform")) {
		cfg.sizes = f[0][0] == 'f' ? SIZES_FIXED : SIZES_UNIFORM;
		if (n != 2)
			usage_error("--sizes: '%s': %s takes one field, %s:K", arg, f[0], f[0]);
		if (!parse_u64(f[1], &k, false) || k < 1 || k > UINT32_MAX)
			usage_error("--sizes: '%s': K must be an integer >= 1, not '%s'", arg, f[1]);
	} else if (!strcmp(f[0], "qgeo")) {
		cfg.sizes = SIZES_QGEO;
		if (n != 4)
			usage_error("--sizes: '%s': qgeo takes three fields, qgeo:SIGMA:P:K", arg);
		if (!parse_double(f[1], &cfg.sigma) || cfg.sigma < 0 || cfg.sigma > 1)
			usage_error("--sizes: '%s': SIGMA must be a number in [0, 1], not '%s'",
				    arg, f[1]);
		if (!parse_double(f[2], &cfg.p) || cfg.p <= 0 || cfg.p >= 1)
			usage_error("--sizes: '%s': P must be a number in (0, 1), not '%s'", arg, f[2]);
		if (!parse_u64(f[3], &k, false) || k < 2 || k > UINT32_MAX)
			usage_error("--sizes: '%s': K must be an integer >= 2 for qgeo, not '%s'",
				    arg, f[3]);
	} else {
		usage_error("--sizes: '%s' is not fixed:K, uniform:K or qgeo:SIGMA:P:K", arg);
	}
	cfg.k = k;
	free(s);
}

/* the qgeo law: P{1} = sigma, P{i} = (1 - sigma) p q^(i-1) / (q - q^K), q = 1 - p */
static void qgeo_cdf(void)
{
	double q = 1 - cfg.p, norm = q - pow(q, cfg.k), acc = cfg.sigma;
	unsigned int i;

	cfg.size_cdf = calloc(cfg.k, sizeof(double));
	if (!cfg.size_cdf)
		die(EXIT_FAIL, "out of memory");
	cfg.size_cdf[0] = acc;
	for (i = 2; i <= cfg.k; i++) {
		acc += (1 - cfg.sigma) * cfg.p * pow(q, i - 1) / norm;
		cfg.size_cdf[i - 1] = acc;
	}
	cfg.size_cdf[cfg.k - 1] = 1.0;
}

/* --zones W1,W2,...: non-negative weights, at least one positive */
static void parse_zones(const char *arg)
{
	const char *p = arg;
	double sum = 0;
	unsigned int n = 1, i;

	for (p = arg; *p; p++)
		n += *p == ',';
	if (n > MAX_ZONES)
		usage_error("--zones: '%s' has %u zones, more than %d", arg, n, MAX_ZONES);
	cfg.zone_w = calloc(n, sizeof(double));
	cfg.zone_cdf = calloc(n, sizeof(double));
	if (!cfg.zone_w || !cfg.zone_cdf)
		die(EXIT_FAIL, "out of memory");
	p = arg;
	for (i = 0; i < n; i++) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		char buf[64];

		if (len == 0 || len >= sizeof(buf))
			usage_error("--zones: '%s': weight %u is %s", arg, i + 1,
				    len ? "too long" : "empty");
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (!parse_double(buf, &cfg.zone_w[i]) || cfg.zone_w[i] < 0)
			usage_error("--zones: '%s': weight %u, '%s', is not a number >= 0",
				    arg, i + 1, buf);
		sum += cfg.zone_w[i];
		p = c ? c + 1 : p + len;
	}
	if (!(sum > 0) || !isfinite(sum))
		usage_error("--zones: '%s': the weights must have a positive, finite sum", arg);
	cfg.nzones = n;
	cfg.zones_spec = arg;
}

static void parse_range(const char *arg)
{
	const char *c = strchr(arg, ':');
	char buf[64];

	if (!c || (size_t)(c - arg) >= sizeof(buf))
		usage_error("--range: '%s' is not START:LEN", arg);
	memcpy(buf, arg, c - arg);
	buf[c - arg] = '\0';
	if (!parse_u64(buf, &cfg.range_start, true))
		usage_error("--range: '%s': START '%s' is not a non-negative integer of bytes",
			    arg, buf);
	if (!parse_u64(c + 1, &cfg.range_len, true))
		usage_error("--range: '%s': LEN '%s' is not a non-negative integer of bytes",
			    arg, c + 1);
	cfg.range_set = true;
}

/* ------------------------------------------------------------------ */
/* random numbers: xoshiro256**, seeded through splitmix64 */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* a stream of its own for (seed, purpose, client) */
static void rng_init(struct rng *r, uint64_t seed, unsigned int purpose, unsigned int client)
{
	uint64_t x = seed;
	int i;

	x = splitmix64(&x) + purpose;
	x = splitmix64(&x) + client;
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* uniform on [0, 1), 53 bits */
static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* uniform on {0, .., n - 1}, n > 0, without modulo bias */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
	uint64_t lim = -n % n, x;

	do
		x = rng_next(r);
	while (x < lim);
	return x % n;
}

/* a variate of mean @mean by @law; exponential by inversion */
static double rng_time(struct rng *r, enum law law, double mean)
{
	if (law == LAW_CONST)
		return mean;
	return -mean * log1p(-rng_unit(r));
}

/* ------------------------------------------------------------------ */
/* requests */

struct rec {
	uint64_t off;
	uint64_t arrival, submit, complete;
	uint32_t len;
	int32_t status;
	uint32_t client;
	uint8_t op;
	uint8_t used;
	uint8_t short_xfer;
};

struct client {
	unsigned int id;
	struct rng r_time, r_op, r_size, r_zone, r_off;
	uint64_t *cursor;	/* seq: per zone, where the last request ended */
	pthread_t thread;
};

/* first and last multiple m of align with lo <= m*align + shift, m*align + shift + len <= hi */
static bool zone_positions(unsigned int z, uint64_t len, uint64_t *mlo, uint64_t *mhi)
{
	uint64_t lo = cfg.zone_lo[z], hi = cfg.zone_hi[z];

	if (hi < lo + len || hi - len < cfg.shift)
		return false;
	*mlo = lo > cfg.shift ? (lo - cfg.shift + cfg.align - 1) / cfg.align : 0;
	*mhi = (hi - len - cfg.shift) / cfg.align;
	return *mhi >= *mlo;
}

static void client_init(struct client *c, unsigned int id, unsigned int nclients)
{
	unsigned int z;

	c->id = id;
	rng_init(&c->r_time, cfg.seed, RNG_TIME, id);
	rng_init(&c->r_op, cfg.seed, RNG_OP, id);
	rng_init(&c->r_size, cfg.seed, RNG_SIZE, id);
	rng_init(&c->r_zone, cfg.seed, RNG_ZONE, id);
	rng_init(&c->r_off, cfg.seed, RNG_OFFSET, id);
	c->cursor = calloc(cfg.nzones, sizeof(uint64_t));
	if (!c->cursor)
		die(EXIT_FAIL, "out of memory");
	/* seq: client i of n starts i/n of the way into each zone */
	for (z = 0; z < cfg.nzones; z++) {
		uint64_t mlo, mhi;

		if (!zone_positions(z, cfg.block, &mlo, &mhi))
			continue;	/* a zone of weight 0 that nothing fits */
		c->cursor[z] = (mlo + (uint64_t)((unsigned __int128)(mhi - mlo + 1) * id /
						 nclients)) * cfg.align + cfg.shift;
	}
}

/* draw one request: op, size, zone, offset, each from its own stream */
static void draw_request(struct client *c, struct rec *r)
{
	uint64_t blocks, len, mlo, mhi, m;
	unsigned int z = 0;
	double u;

	r->op = rng_unit(&c->r_op) < cfg.read_frac ? OP_READ : OP_WRITE;

	switch (cfg.sizes) {
	case SIZES_FIXED:
		blocks = cfg.k;
		break;
	case SIZES_UNIFORM:
		blocks = 1 + rng_below(&c->r_size, cfg.k);
		break;
	default: {
		uint64_t lo = 0, hi = cfg.k - 1;	/* the first i with u < cdf[i] */

		u = rng_unit(&c->r_size);
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (u < cfg.size_cdf[mid])
				hi = mid;
			else
				lo = mid + 1;
		}
		blocks = lo + 1;
		break;
	}
	}
	len = blocks * cfg.block;

	if (cfg.nzones > 1) {
		u = rng_unit(&c->r_zone);
		for (z = 0; z + 1 < cfg.nzones && !(u < cfg.zone_cdf[z]); z++)
			;
		while (cfg.zone_w[z] == 0)	/* u == 1 - 2^-53 past trailing zeros */
			z--;
	}

	/* checked for the largest request at startup, so it fits */
	zone_positions(z, len, &mlo, &mhi);
	if (cfg.pattern == PAT_RANDOM) {
		m = mlo + rng_below(&c->r_off, mhi - mlo + 1);
	} else {
		uint64_t cur = c->cursor[z];

		if (cur <= mlo * cfg.align + cfg.shift)
			m = mlo;
		else
			m = (cur - cfg.shift + cfg.align - 1) / cfg.align;
		if (m > mhi)
			m = mlo;	/* wrap to the start of the zone */
		c->cursor[z] = m * cfg.align + cfg.shift + len;
	}
	r->off = m * cfg.align + cfg.shift;
	r->len = len;
}

/*
 * The measured requests' records, in chunks allocated as they are needed
 * (a --duration run does not know its count); record i of the run is
 * chunk i >> CHUNK_SHIFT.
 */
#define CHUNK_SHIFT	16
#define CHUNK		(1U << CHUNK_SHIFT)
#define MAX_CHUNKS	(1U << 16)

static _Atomic(struct rec *) chunks[MAX_CHUNKS];
static pthread_mutex_t chunk_lock = PTHREAD_MUTEX_INITIALIZER;

static struct rec *rec_at(uint64_t i)
{
	uint64_t c = i >> CHUNK_SHIFT;
	struct rec *ch;

	if (c >= MAX_CHUNKS)
		return NULL;
	ch = atomic_load_explicit(&chunks[c], memory_order_acquire);
	if (!ch) {
		pthread_mutex_lock(&chunk_lock);
		ch = atomic_load_explicit(&chunks[c], memory_order_relaxed);
		if (!ch) {
			ch = calloc(CHUNK, sizeof(*ch));
			if (ch)
				atomic_store_explicit(&chunks[c], ch, memory_order_release);
		}
		pthread_mutex_unlock(&chunk_lock);
		if (!ch)
			return NULL;
	}
	return &ch[i & (CHUNK - 1)];
}

/*
 * Allocate and write the chunks of the first @n records (at most
 * PREFAULT_MAX) before the run, so that the page faults of a fresh chunk
 * and the mmap() that makes it do not fall between a completion and the
 * next submission; a longer run faults its later chunks as it goes.
 */
#define PREFAULT_MAX	(8 * (uint64_t)CHUNK)

static void records_prefault(uint64_t n)
{
	uint64_t i;

	if (n > PREFAULT_MAX)
		n = PREFAULT_MAX;
	for (i = 0; i < n; i += CHUNK) {
		struct rec *ch = rec_at(i);	/* i is a chunk's first record */

		if (!ch)
			die(EXIT_FAIL, "out of memory for the records");
		memset(ch, 0, CHUNK * sizeof(*ch));
	}
}

/* ------------------------------------------------------------------ */
/* run state */

static int fd = -1;
static void *rbuf, *wbuf;
static volatile sig_atomic_t got_signal;
static atomic_bool stop;
static atomic_bool out_of_records;
static atomic_uint_fast64_t next_idx;		/* closed: requests taken */
static atomic_uint_fast64_t measured_start;	/* closed: first measured arrival */
static atomic_uint_fast64_t nmeasured;		/* records slots 0 .. nmeasured - 1 */
static atomic_uint_fast64_t outstanding;
static atomic_uint_fast64_t peak_outstanding;
static bool outrun;
static double submit_call_sum, submit_call_max;	/* open: time in io_submit, ns */
static uint64_t submit_calls;
static uint64_t outrun_at, outrun_arrival;	/* request index, its arrival */
static uint64_t run_start;

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

/* sleep until @t (CLOCK_MONOTONIC ns); false if a signal came first */
static bool sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / NSEC, .tv_nsec = t % NSEC };
	int rc;

	for (;;) {
		if (got_signal)
			return false;
		rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (rc == 0)
			return true;
		if (rc != EINTR)
			die(EXIT_FAIL, "clock_nanosleep: %s", strerror(rc));
	}
}

static void note_outstanding(uint64_t v)
{
	uint64_t p = atomic_load(&peak_outstanding);

	while (v > p && !atomic_compare_exchange_weak(&peak_outstanding, &p, v))
		;
}

static void note_measured(uint64_t i)
{
	uint64_t n = atomic_load(&nmeasured);

	while (i + 1 > n && !atomic_compare_exchange_weak(&nmeasured, &n, i + 1))
		;
}

static int32_t io_status(int64_t res, uint32_t len, uint8_t *short_xfer)
{
	if (res < 0)
		return (int32_t)res;
	if ((uint64_t)res != len) {
		*short_xfer = 1;
		return -EIO;
	}
	return 0;
}

static void on_signal(int sig)
{
	got_signal = sig;
}

static void block_signals(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* ------------------------------------------------------------------ */
/* open loop: raw Linux AIO */

static long sys_io_setup(unsigned int nr, aio_context_t *ctx)
{
	return syscall(SYS_io_setup, nr, ctx);
}

static long sys_io_destroy(aio_context_t ctx)
{
	return syscall(SYS_io_destroy, ctx);
}

static long sys_io_submit(aio_context_t ctx, long n, struct iocb **iocbs)
{
	return syscall(SYS_io_submit, ctx, n, iocbs);
}

static long sys_io_getevents(aio_context_t ctx, long min_nr, long nr, struct io_event *ev,
			     struct timespec *timeout)
{
	return syscall(SYS_io_getevents, ctx, min_nr, nr, ev, timeout);
}

struct slot {
	struct iocb cb;
	struct rec *rec;
	struct rec scratch;	/* a warm-up request's record */
};

static aio_context_t aio_ctx;
static struct slot **free_slots;
static uint64_t nfree;
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool submit_done;

static void *reaper(void *arg)
{
	struct io_event ev[128];
	long n, i;

	(void)arg;
	for (;;) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 20 * 1000 * 1000 };
		uint64_t t;

		if (atomic_load(&submit_done) && atomic_load(&outstanding) == 0)
			break;
		n = sys_io_getevents(aio_ctx, 1, 128, ev, &ts);
		t = now_ns();
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_FAIL, "io_getevents: %s", strerror(errno));
		}
		for (i = 0; i < n; i++) {
			struct slot *s = (struct slot *)(uintptr_t)ev[i].data;
			struct rec *r = s->rec;

			r->complete = t;
			r->status = io_status(ev[i].res, r->len, &r->short_xfer);
			pthread_mutex_lock(&slot_lock);
			free_slots[nfree++] = s;
			pthread_mutex_unlock(&slot_lock);
			atomic_fetch_sub(&outstanding, 1);
		}
	}
	return NULL;
}

static void run_open(void)
{
	double mean_ns = 1e9 / cfg.rate, t = 0;
	uint64_t i, mstart = 0, dur_ns = 0, total = UINT64_MAX;
	struct slot *slots;
	struct client c;
	pthread_t rt;
	int rc;

	if (cfg.duration_set)
		dur_ns = (uint64_t)llround(cfg.duration * 1e9);
	if (cfg.requests_set)
		total = cfg.warmup + cfg.requests;
	if (sys_io_setup(cfg.max_out, &aio_ctx) < 0)
		die(EXIT_FAIL, "io_setup(%" PRIu64 "): %s%s", cfg.max_out, strerror(errno),
		    errno == EAGAIN ? " (see fs.aio-max-nr, or lower --max-outstanding)" : "");
	slots = calloc(cfg.max_out, sizeof(*slots));
	free_slots = calloc(cfg.max_out, sizeof(*free_slots));
	if (!slots || !free_slots)
		die(EXIT_FAIL, "out of memory");
	for (i = 0; i < cfg.max_out; i++)
		free_slots[nfree++] = &slots[i];
	client_init(&c, 0, 1);

	block_signals(true);
	rc = pthread_create(&rt, NULL, reaper, NULL);
	if (rc)
		die(EXIT_FAIL, "pthread_create: %s", strerror(rc));
	block_signals(false);

	run_start = now_ns();
	for (i = 0; i < total; i++) {
		struct iocb *cbp;
		struct slot *s;
		struct rec d = { 0 }, *r = NULL;
		bool measured = i >= cfg.warmup;
		uint64_t arrival, o, ts;
		long n;

		if (cfg.arrivals == LAW_CONST)
			t = (double)(i + 1) * mean_ns;
		else
			t += rng_time(&c.r_time, LAW_EXP, mean_ns);
		draw_request(&c, &d);
		arrival = run_start + (uint64_t)llround(t);
		if (measured && cfg.duration_set) {
			if (i == cfg.warmup)
				mstart = arrival;
			else if (arrival >= mstart + dur_ns)
				break;
		}
		if (!sleep_until(arrival))
			break;
		if (atomic_load(&outstanding) >= cfg.max_out) {
			outrun = true;
			outrun_at = i;
			outrun_arrival = arrival;
			break;
		}
		if (measured) {
			r = rec_at(i - cfg.warmup);
			if (!r) {
				atomic_store(&out_of_records, true);
				break;
			}
		}
		pthread_mutex_lock(&slot_lock);
		s = free_slots[--nfree];
		pthread_mutex_unlock(&slot_lock);
		if (!measured)
			r = &s->scratch;
		*r = d;
		r->arrival = arrival;
		r->client = 0;
		r->used = 1;
		s->rec = r;
		memset(&s->cb, 0, sizeof(s->cb));
		s->cb.aio_data = (uint64_t)(uintptr_t)s;
		s->cb.aio_lio_opcode = d.op == OP_READ ? IOCB_CMD_PREAD : IOCB_CMD_PWRITE;
		s->cb.aio_fildes = fd;
		s->cb.aio_buf = (uint64_t)(uintptr_t)(d.op == OP_READ ? rbuf : wbuf);
		s->cb.aio_nbytes = d.len;
		s->cb.aio_offset = d.off;
		cbp = &s->cb;
		o = atomic_fetch_add(&outstanding, 1) + 1;
		note_outstanding(o);
		if (measured)
			note_measured(i - cfg.warmup);
		ts = now_ns();
		r->submit = ts;
		n = sys_io_submit(aio_ctx, 1, &cbp);
		{
			double call = (double)(now_ns() - ts);

			submit_call_sum += call;
			submit_calls++;
			if (call > submit_call_max)
				submit_call_max = call;
		}
		if (n != 1) {
			r->status = n < 0 ? -errno : -EAGAIN;
			r->complete = now_ns();
			pthread_mutex_lock(&slot_lock);
			free_slots[nfree++] = s;
			pthread_mutex_unlock(&slot_lock);
			atomic_fetch_sub(&outstanding, 1);
		}
	}
	atomic_store(&submit_done, true);
	pthread_join(rt, NULL);
	sys_io_destroy(aio_ctx);
	free(slots);
	free(free_slots);
}

/* ------------------------------------------------------------------ */
/* closed loop: a thread per client, pread/pwrite */

static pthread_barrier_t clients_ready;

static void *client_main(void *arg)
{
	struct client *c = arg;
	double mean_ns = cfg.think_ms * 1e6;
	uint64_t last, dur_ns = 0, total = UINT64_MAX;

	/* every client exists before the run's start is taken (run_closed) */
	pthread_barrier_wait(&clients_ready);
	last = run_start;
	if (cfg.duration_set)
		dur_ns = (uint64_t)llround(cfg.duration * 1e9);
	if (cfg.requests_set)
		total = cfg.warmup + cfg.requests;
	for (;;) {
		struct rec d = { 0 };
		uint64_t arrival, idx, o;
		ssize_t n;

		arrival = last + (uint64_t)llround(rng_time(&c->r_time, cfg.think_dist, mean_ns));
		draw_request(c, &d);
		if (atomic_load(&stop) || !sleep_until(arrival) || atomic_load(&stop))
			break;
		idx = atomic_fetch_add(&next_idx, 1);
		if (idx >= total) {
			atomic_store(&stop, true);
			break;
		}
		if (idx >= cfg.warmup && cfg.duration_set) {
			uint64_t ms = 0;

			if (atomic_compare_exchange_strong(&measured_start, &ms, arrival))
				ms = arrival;
			if (arrival >= ms + dur_ns) {
				atomic_store(&stop, true);
				break;
			}
		}
		d.arrival = arrival;
		d.client = c->id;
		d.used = 1;
		o = atomic_fetch_add(&outstanding, 1) + 1;
		note_outstanding(o);
		d.submit = now_ns();
		if (d.op == OP_READ)
			n = pread(fd, rbuf, d.len, d.off);
		else
			n = pwrite(fd, wbuf, d.len, d.off);
		d.complete = now_ns();
		atomic_fetch_sub(&outstanding, 1);
		d.status = io_status(n < 0 ? -errno : n, d.len, &d.short_xfer);
		if (idx >= cfg.warmup) {
			struct rec *r = rec_at(idx - cfg.warmup);

			if (!r) {
				atomic_store(&out_of_records, true);
				atomic_store(&stop, true);
				break;
			}
			*r = d;
			note_measured(idx - cfg.warmup);
		}
		last = d.complete;
	}
	return NULL;
}

static void run_closed(void)
{
	struct client *cl = calloc(cfg.mpl, sizeof(*cl));
	unsigned int i;
	int rc;

	if (!cl)
		die(EXIT_FAIL, "out of memory");
	for (i = 0; i < cfg.mpl; i++)
		client_init(&cl[i], i, cfg.mpl);
	rc = pthread_barrier_init(&clients_ready, NULL, cfg.mpl + 1);
	if (rc)
		die(EXIT_FAIL, "pthread_barrier_init: %s", strerror(rc));
	block_signals(true);
	for (i = 0; i < cfg.mpl; i++) {
		rc = pthread_create(&cl[i].thread, NULL, client_main, &cl[i]);
		if (rc)
			die(EXIT_FAIL, "pthread_create (client %u): %s", i, strerror(rc));
	}
	block_signals(false);
	/*
	 * Every client starts thinking at once, once all of them exist:
	 * creating a thread (its stack's mapping, its first page faults)
	 * takes a few ms of an emulated guest's time, and a start taken
	 * before creating 32 of them made the last clients' first requests
	 * 37-62 ms late in the lab's points.
	 */
	run_start = now_ns() + 1000000;
	pthread_barrier_wait(&clients_ready);
	/* a signal interrupts no join; the clients see got_signal */
	for (i = 0; i < cfg.mpl; i++)
		pthread_join(cl[i].thread, NULL);
	pthread_barrier_destroy(&clients_ready);
	for (i = 0; i < cfg.mpl; i++)
		free(cl[i].cursor);
	free(cl);
}

/* ------------------------------------------------------------------ */
/* summary */

struct dist {
	uint64_t n;
	double mean, p50, p99, max;	/* seconds; NaN when n == 0 */
	double service_mean;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank: the smallest value with at least q of the sample at or below it */
static double quantile(const uint64_t *v, uint64_t n, double q)
{
	uint64_t k = (uint64_t)ceil(q * (double)n);

	if (k < 1)
		k = 1;
	return v[k - 1] / 1e9;
}

static void dist_of(uint64_t *v, uint64_t n, double service_sum, struct dist *d)
{
	double sum = 0;
	uint64_t i;

	d->n = n;
	if (!n) {
		d->mean = d->p50 = d->p99 = d->max = d->service_mean = NAN;
		return;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += v[i];
	d->mean = sum / n / 1e9;
	d->p50 = quantile(v, n, 0.50);
	d->p99 = quantile(v, n, 0.99);
	d->max = v[n - 1] / 1e9;
	d->service_mean = service_sum / n / 1e9;
}

/* squared coefficient of variation of the gaps of sorted times */
static double gaps_cv2(uint64_t *t, uint64_t n)
{
	double mean, var = 0;
	uint64_t i;

	if (n < 3)
		return NAN;
	qsort(t, n, sizeof(*t), cmp_u64);
	mean = (double)(t[n - 1] - t[0]) / (n - 1);
	for (i = 1; i < n; i++) {
		double g = (double)(t[i] - t[i - 1]) - mean;

		var += g * g;
	}
	var /= n - 2;	/* n - 1 gaps: the sample variance */
	return mean > 0 ? var / (mean * mean) : NAN;
}

static struct summary {
	uint64_t requests, reads, writes, errors, shorts;
	double span, rate, arrival_rate, arrival_cv2, submit_cv2;
	double late_mean, late_max;
	struct dist all, op[2];
} sm;

static void summarise(void)
{
	uint64_t n = atomic_load(&nmeasured), i, m = 0, k[2] = { 0, 0 };
	uint64_t first_arr = UINT64_MAX, last_arr = 0, last_done = 0;
	uint64_t *arr, *sub, *resp, *resp_op[2];
	double late_sum = 0, late_max = 0, svc[2] = { 0, 0 };

	arr = calloc(n + 1, sizeof(uint64_t));
	sub = calloc(n + 1, sizeof(uint64_t));
	resp = calloc(n + 1, sizeof(uint64_t));
	resp_op[0] = calloc(n + 1, sizeof(uint64_t));
	resp_op[1] = calloc(n + 1, sizeof(uint64_t));
	if (!arr || !sub || !resp || !resp_op[0] || !resp_op[1])
		die(EXIT_FAIL, "out of memory");
	for (i = 0; i < n; i++) {
		struct rec *r = rec_at(i);
		double late;

		if (!r || !r->used)
			continue;
		arr[m] = r->arrival;
		sub[m] = r->submit;
		m++;
		if (r->op == OP_READ)
			sm.reads++;
		else
			sm.writes++;
		if (r->status)
			sm.errors++;
		sm.shorts += r->short_xfer;
		if (r->arrival < first_arr)
			first_arr = r->arrival;
		if (r->arrival > last_arr)
			last_arr = r->arrival;
		if (r->complete > last_done)
			last_done = r->complete;
		late = (double)(r->submit - r->arrival);
		late_sum += late;
		if (late > late_max)
			late_max = late;
		if (r->status == 0) {
			resp_op[r->op][k[r->op]++] = r->complete - r->arrival;
			svc[r->op] += r->complete - r->submit;
		}
	}
	sm.requests = m;
	sm.span = sm.rate = sm.arrival_rate = sm.late_mean = sm.late_max = NAN;
	if (m) {
		sm.span = (last_done - first_arr) / 1e9;
		sm.rate = sm.span > 0 ? m / sm.span : NAN;
		sm.late_mean = late_sum / m / 1e9;
		sm.late_max = late_max / 1e9;
	}
	if (m > 1 && last_arr > first_arr)
		sm.arrival_rate = (m - 1) / ((last_arr - first_arr) / 1e9);
	sm.arrival_cv2 = gaps_cv2(arr, m);
	sm.submit_cv2 = gaps_cv2(sub, m);
	memcpy(resp, resp_op[0], k[0] * sizeof(uint64_t));
	memcpy(resp + k[0], resp_op[1], k[1] * sizeof(uint64_t));
	dist_of(resp, k[0] + k[1], svc[0] + svc[1], &sm.all);
	dist_of(resp_op[0], k[0], svc[0], &sm.op[OP_READ]);
	dist_of(resp_op[1], k[1], svc[1], &sm.op[OP_WRITE]);
	free(arr);
	free(sub);
	free(resp);
	free(resp_op[0]);
	free(resp_op[1]);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

static void json_dist(FILE *f, const char *name, const struct dist *d, bool last)
{
	fprintf(f, "    \"%s\": {\"n\": %" PRIu64 ", \"mean_s\": ", name, d->n);
	json_num(f, d->mean);
	fputs(", \"p50_s\": ", f);
	json_num(f, d->p50);
	fputs(", \"p99_s\": ", f);
	json_num(f, d->p99);
	fputs(", \"max_s\": ", f);
	json_num(f, d->max);
	fputs(", \"service_mean_s\": ", f);
	json_num(f, d->service_mean);
	fprintf(f, "}%s\n", last ? "" : ",");
}

static const char *mode_name(void)
{
	return cfg.mode == MODE_OPEN ? "open" : "closed";
}

static void write_summary(FILE *f)
{
	unsigned int i;

	fputs("{\n", f);
	fprintf(f, "  \"tool\": \"ssaload %s\",\n", SSALOAD_VERSION);
	fprintf(f, "  \"mode\": \"%s\",\n", mode_name());
	fprintf(f, "  \"outrun\": %s,\n", outrun ? "true" : "false");
	fprintf(f, "  \"interrupted\": %s,\n", got_signal ? "true" : "false");
	fprintf(f, "  \"requests\": %" PRIu64 ",\n", sm.requests);
	fprintf(f, "  \"reads\": %" PRIu64 ",\n", sm.reads);
	fprintf(f, "  \"writes\": %" PRIu64 ",\n", sm.writes);
	fprintf(f, "  \"errors\": %" PRIu64 ",\n", sm.errors);
	fprintf(f, "  \"short\": %" PRIu64 ",\n", sm.shorts);
	fputs("  \"span_s\": ", f);
	json_num(f, sm.span);
	fputs(",\n  \"rate\": ", f);
	json_num(f, sm.rate);
	fputs(",\n  \"offered_rate\": ", f);
	json_num(f, cfg.mode == MODE_OPEN ? cfg.rate : NAN);
	fputs(",\n  \"arrival_rate\": ", f);
	json_num(f, sm.arrival_rate);
	fputs(",\n  \"arrival_cv2\": ", f);
	json_num(f, sm.arrival_cv2);
	fputs(",\n  \"submit_cv2\": ", f);
	json_num(f, sm.submit_cv2);
	fputs(",\n  \"lateness_mean_s\": ", f);
	json_num(f, sm.late_mean);
	fputs(",\n  \"lateness_max_s\": ", f);
	json_num(f, sm.late_max);
	fputs(",\n  \"io_submit_mean_s\": ", f);
	json_num(f, submit_calls ? submit_call_sum / submit_calls / 1e9 : NAN);
	fputs(",\n  \"io_submit_max_s\": ", f);
	json_num(f, submit_calls ? submit_call_max / 1e9 : NAN);
	fprintf(f, ",\n  \"max_outstanding_seen\": %" PRIu64 ",\n",
		(uint64_t)atomic_load(&peak_outstanding));
	fputs("  \"response\": {\n", f);
	json_dist(f, "all", &sm.all, false);
	json_dist(f, "read", &sm.op[OP_READ], false);
	json_dist(f, "write", &sm.op[OP_WRITE], true);
	fputs("  },\n", f);

	fputs("  \"params\": {\n    \"device\": ", f);
	json_str(f, cfg.device);
	fprintf(f, ",\n    \"device_bytes\": %" PRIu64 ",\n", cfg.dev_size);
	fprintf(f, "    \"mode\": \"%s\",\n", mode_name());
	fputs("    \"rate\": ", f);
	json_num(f, cfg.mode == MODE_OPEN ? cfg.rate : NAN);
	if (cfg.mode == MODE_OPEN) {
		fprintf(f, ",\n    \"arrivals\": \"%s\"", law_name[cfg.arrivals]);
		fprintf(f, ",\n    \"max_outstanding\": %" PRIu64, cfg.max_out);
		fputs(",\n    \"mpl\": null,\n    \"think_ms\": null,\n    \"think_dist\": null", f);
	} else {
		fputs(",\n    \"arrivals\": null,\n    \"max_outstanding\": null", f);
		fprintf(f, ",\n    \"mpl\": %u,\n    \"think_ms\": ", cfg.mpl);
		json_num(f, cfg.think_ms);
		fprintf(f, ",\n    \"think_dist\": \"%s\"", law_name[cfg.think_dist]);
	}
	fputs(",\n    \"requests\": ", f);
	if (cfg.requests_set)
		fprintf(f, "%" PRIu64, cfg.requests);
	else
		fputs("null", f);
	fprintf(f, ",\n    \"warmup\": %" PRIu64 ",\n    \"duration_s\": ", cfg.warmup);
	json_num(f, cfg.duration_set ? cfg.duration : NAN);
	fputs(",\n    \"read_frac\": ", f);
	json_num(f, cfg.read_frac);
	fprintf(f, ",\n    \"block\": %" PRIu64 ",\n    \"sizes\": ", cfg.block);
	json_str(f, cfg.sizes_spec);
	fprintf(f, ",\n    \"pattern\": \"%s\",\n", pattern_name[cfg.pattern]);
	fprintf(f, "    \"align\": %" PRIu64 ",\n", cfg.align);
	fprintf(f, "    \"offset_shift\": %" PRIu64 ",\n", cfg.shift);
	fprintf(f, "    \"range_start\": %" PRIu64 ",\n", cfg.range_start);
	fprintf(f, "    \"range_len\": %" PRIu64 ",\n", cfg.range_len);
	fputs("    \"zones\": ", f);
	if (cfg.zones_spec) {
		fputc('[', f);
		for (i = 0; i < cfg.nzones; i++) {
			if (i)
				fputs(", ", f);
			json_num(f, cfg.zone_w[i]);
		}
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\n    \"seed\": %" PRIu64 "\n", cfg.seed);
	fputs("  }\n}\n", f);
}

static void print_dist(const char *name, const struct dist *d)
{
	if (!d->n) {
		printf("    %-6s %8d\n", name, 0);
		return;
	}
	printf("    %-6s %8" PRIu64 " %10.6f %10.6f %10.6f %10.6f %10.6f\n", name, d->n,
	       d->mean, d->p50, d->p99, d->max, d->service_mean);
}

static void print_summary(void)
{
	printf("ssaload: %s loop on %s: %" PRIu64 " requests (%" PRIu64 " reads, %" PRIu64
	       " writes, %" PRIu64 " errors)\n", mode_name(), cfg.device, sm.requests,
	       sm.reads, sm.writes, sm.errors);
	printf("  span %.6f s, achieved %.2f req/s", sm.span, sm.rate);
	if (cfg.mode == MODE_OPEN)
		printf(", offered %.6g req/s (%s arrivals)", cfg.rate, law_name[cfg.arrivals]);
	else
		printf(", MPL %u, think %.6g ms (%s)", cfg.mpl, cfg.think_ms,
		       law_name[cfg.think_dist]);
	printf("\n  arrivals: rate %.2f/s, cv2 %.4f (submits: cv2 %.4f)\n",
	       sm.arrival_rate, sm.arrival_cv2, sm.submit_cv2);
	printf("  submit lateness: mean %.1f us, max %.1f us; at most %" PRIu64 " in flight\n",
	       sm.late_mean * 1e6, sm.late_max * 1e6, (uint64_t)atomic_load(&peak_outstanding));
	if (submit_calls)
		printf("  io_submit: mean %.1f us, max %.1f us per call\n",
		       submit_call_sum / submit_calls / 1e3, submit_call_max / 1e3);
	printf("  response (s): %8s %10s %10s %10s %10s %10s\n", "n", "mean", "p50", "p99",
	       "max", "service");
	print_dist("read", &sm.op[OP_READ]);
	print_dist("write", &sm.op[OP_WRITE]);
	print_dist("all", &sm.all);
	if (outrun)
		printf("  OUTRUN: the volume could not keep up (--max-outstanding %" PRIu64
		       " reached); the run was cut short\n", cfg.max_out);
	if (got_signal)
		printf("  INTERRUPTED by signal %d; the run was cut short\n", (int)got_signal);
}

static bool write_records(FILE *f)
{
	uint64_t n = atomic_load(&nmeasured), i;

	fputs("id,client,op,offset,len,arrival_ns,submit_ns,complete_ns,status\n", f);
	for (i = 0; i < n; i++) {
		struct rec *r = rec_at(i);

		if (!r || !r->used)
			continue;
		fprintf(f, "%" PRIu64 ",%u,%s,%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%d\n", i, r->client, op_name[r->op], r->off, r->len, r->arrival,
			r->submit, r->complete, r->status);
	}
	return fflush(f) == 0 && !ferror(f);
}

/* ------------------------------------------------------------------ */
/* options */

static const char usage_text[] =
"Usage: ssaload [OPTIONS] DEVICE\n"
"A workload generator for one block device (or a regular file): O_DIRECT\n"
"reads and writes, open loop (Poisson arrivals) or closed loop (MPL clients\n"
"with think time), a CSV record per request and a JSON summary.  Times are\n"
"CLOCK_MONOTONIC nanoseconds, the clock of ssatrace's records.\n"
"WRITES DESTROY THE DATA ON DEVICE (any --read-frac below 1).\n"
"\n"
"Mode (exactly one):\n"
"  --open RATE            open loop: Poisson arrivals at RATE requests/s, each\n"
"                         submitted (io_submit) at its arrival time whatever is\n"
"                         outstanding; a second thread reaps the completions\n"
"  --closed MPL           closed loop: MPL clients (1..4096); each issues one\n"
"                         request, waits for it, thinks, and issues the next\n"
"Open loop:\n"
"  --arrivals exp|const   interarrival law (default exp)\n"
"  --max-outstanding N    if N requests are in flight when an arrival is due,\n"
"                         stop, drain, write what was recorded and exit 3\n"
"                         (default 1024, at most 65536)\n"
"Closed loop:\n"
"  --think MS             mean think time in ms (default 0)\n"
"  --think-dist exp|const think-time law (default exp)\n"
"Length of the run (at least one; whichever ends first):\n"
"  --requests N           measured requests to issue, then wait for them\n"
"  --duration S           seconds of measured arrivals\n"
"  --warmup N             requests issued first, not recorded (default 0)\n"
"Requests:\n"
"  --read-frac P          fraction of reads, 0..1 (default 1)\n"
"  --block BYTES          block size (default 4096)\n"
"  --sizes SPEC           blocks per request: fixed:K (default fixed:1),\n"
"                         uniform:K (1..K equally likely), or qgeo:SIGMA:P:K\n"
"                         (P{1} = SIGMA, P{i} = (1-SIGMA) P (1-P)^(i-1) /\n"
"                         ((1-P) - (1-P)^K) for i = 2..K)\n"
"  --pattern random|seq   random starts (default), or each client continues\n"
"                         where its last request ended, wrapping at the end\n"
"  --align BYTES          starts are multiples of this, plus the shift\n"
"                         (default: --block)\n"
"  --offset-shift BYTES   added to every start (default 0)\n"
"  --range START:LEN      the bytes addressed (default: all; LEN 0: to the end)\n"
"  --zones W1,W2,...      equal zones of the range, chosen with these weights;\n"
"                         a request stays inside its zone\n"
"  --seed N               random seed (default 1)\n"
"Output:\n"
"  --records FILE         CSV, one line per measured request:\n"
"                         id,client,op,offset,len,arrival_ns,submit_ns,\n"
"                         complete_ns,status\n"
"  --summary FILE         JSON summary (a readable one always goes to stdout)\n"
"  --help, --version\n"
"\n"
"Byte counts take an optional binary suffix: K, M, G, T.\n"
"Exit status: 0 done, 1 failure, 2 bad usage or device, 3 outrun (open loop),\n"
"128+N stopped by signal N (what was recorded is written).\n"
"Documentation/ssaload.rst has the details.\n";

enum {
	O_OPEN = 256, O_ARRIVALS, O_CLOSED, O_THINK, O_THINK_DIST, O_REQUESTS, O_WARMUP,
	O_DURATION, O_READ_FRAC, O_BLOCK, O_SIZES, O_PATTERN, O_ALIGN, O_SHIFT, O_RANGE,
	O_ZONES, O_SEED, O_MAX_OUT, O_RECORDS, O_SUMMARY, O_HELP, O_VERSION,
};

static const struct option long_opts[] = {
	{ "open", required_argument, NULL, O_OPEN },
	{ "arrivals", required_argument, NULL, O_ARRIVALS },
	{ "closed", required_argument, NULL, O_CLOSED },
	{ "think", required_argument, NULL, O_THINK },
	{ "think-dist", required_argument, NULL, O_THINK_DIST },
	{ "requests", required_argument, NULL, O_REQUESTS },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "read-frac", required_argument, NULL, O_READ_FRAC },
	{ "block", required_argument, NULL, O_BLOCK },
	{ "sizes", required_argument, NULL, O_SIZES },
	{ "pattern", required_argument, NULL, O_PATTERN },
	{ "align", required_argument, NULL, O_ALIGN },
	{ "offset-shift", required_argument, NULL, O_SHIFT },
	{ "range", required_argument, NULL, O_RANGE },
	{ "zones", required_argument, NULL, O_ZONES },
	{ "seed", required_argument, NULL, O_SEED },
	{ "max-outstanding", required_argument, NULL, O_MAX_OUT },
	{ "records", required_argument, NULL, O_RECORDS },
	{ "summary", required_argument, NULL, O_SUMMARY },
	{ "help", no_argument, NULL, O_HELP },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void parse_args(int argc, char **argv)
{
	uint64_t v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		const char *opt = optind > 0 && optind <= argc ? argv[optind - 1] : "";

		switch (c) {
		case O_OPEN:
			cfg.rate = opt_double("--open", optarg);
			if (!(cfg.rate > 0))
				usage_error("--open: the rate must be > 0 requests/s, not %s", optarg);
			if (cfg.rate < 1e-6)
				usage_error("--open: %s requests/s is below the least rate, 1e-6",
					    optarg);
			cfg.open_set = true;
			break;
		case O_ARRIVALS:
			cfg.arrivals = opt_law("--arrivals", optarg);
			cfg.arrivals_set = true;
			break;
		case O_CLOSED:
			v = opt_u64("--closed", optarg, false);
			if (v < 1 || v > MAX_MPL)
				usage_error("--closed: MPL must be 1..%d, not %s", MAX_MPL, optarg);
			cfg.mpl = v;
			cfg.closed_set = true;
			break;
		case O_THINK:
			cfg.think_ms = opt_double("--think", optarg);
			if (cfg.think_ms < 0 || cfg.think_ms > 1e9)
				usage_error("--think: the mean think time must be 0 to 1e9 ms, not %s",
					    optarg);
			cfg.think_set = true;
			break;
		case O_THINK_DIST:
			cfg.think_dist = opt_law("--think-dist", optarg);
			cfg.think_dist_set = true;
			break;
		case O_REQUESTS:
			cfg.requests = opt_u64("--requests", optarg, false);
			if (cfg.requests < 1)
				usage_error("--requests: must be at least 1");
			cfg.requests_set = true;
			break;
		case O_WARMUP:
			cfg.warmup = opt_u64("--warmup", optarg, false);
			break;
		case O_DURATION:
			cfg.duration = opt_double("--duration", optarg);
			if (!(cfg.duration > 0) || cfg.duration > 1e9)
				usage_error("--duration: must be > 0 and at most 1e9 seconds, not %s",
					    optarg);
			cfg.duration_set = true;
			break;
		case O_READ_FRAC:
			cfg.read_frac = opt_double("--read-frac", optarg);
			if (cfg.read_frac < 0 || cfg.read_frac > 1)
				usage_error("--read-frac: %s is not in [0, 1]", optarg);
			break;
		case O_BLOCK:
			cfg.block = opt_u64("--block", optarg, true);
			if (cfg.block < 1 || cfg.block > MAX_REQ_BYTES)
				usage_error("--block: must be 1 byte to 1G, not %s", optarg);
			break;
		case O_SIZES:
			parse_sizes(optarg);
			break;
		case O_PATTERN:
			if (!strcmp(optarg, "random"))
				cfg.pattern = PAT_RANDOM;
			else if (!strcmp(optarg, "seq"))
				cfg.pattern = PAT_SEQ;
			else
				usage_error("--pattern: '%s' is neither random nor seq", optarg);
			break;
		case O_ALIGN:
			cfg.align = opt_u64("--align", optarg, true);
			if (cfg.align < 1)
				usage_error("--align: must be at least 1 byte");
			cfg.align_set = true;
			break;
		case O_SHIFT:
			cfg.shift = opt_u64("--offset-shift", optarg, true);
			break;
		case O_RANGE:
			parse_range(optarg);
			break;
		case O_ZONES:
			parse_zones(optarg);
			break;
		case O_SEED:
			cfg.seed = opt_u64("--seed", optarg, false);
			break;
		case O_MAX_OUT:
			cfg.max_out = opt_u64("--max-outstanding", optarg, false);
			if (cfg.max_out < 1 || cfg.max_out > MAX_OUT)
				usage_error("--max-outstanding: must be 1..%d, not %s", MAX_OUT,
					    optarg);
			cfg.max_out_set = true;
			break;
		case O_RECORDS:
			cfg.records = optarg;
			break;
		case O_SUMMARY:
			cfg.summary = optarg;
			break;
		case O_HELP:
			fputs(usage_text, stdout);
			exit(0);
		case O_VERSION:
			printf("ssaload %s\n", SSALOAD_VERSION);
			exit(0);
		case ':':
			usage_error("option '%s' needs an argument", opt);
		default:
			usage_error("unknown option '%s'", opt);
		}
	}
	if (optind >= argc)
		usage_error("no DEVICE given");
	if (optind + 1 < argc)
		usage_error("one DEVICE only; '%s' is one argument too many", argv[optind + 1]);
	cfg.device = argv[optind];

	if (cfg.open_set && cfg.closed_set)
		usage_error("--open and --closed exclude each other");
	if (!cfg.open_set && !cfg.closed_set)
		usage_error("give a mode: --open RATE or --closed MPL");
	cfg.mode = cfg.open_set ? MODE_OPEN : MODE_CLOSED;
	if (cfg.mode == MODE_OPEN && (cfg.think_set || cfg.think_dist_set))
		usage_error("--think and --think-dist are for --closed, not --open");
	if (cfg.mode == MODE_CLOSED && (cfg.arrivals_set || cfg.max_out_set))
		usage_error("--arrivals and --max-outstanding are for --open, not --closed");
	if (!cfg.requests_set && !cfg.duration_set)
		usage_error("say how long to run: --requests N, --duration S, or both");
	if (cfg.requests_set && cfg.warmup > UINT64_MAX - cfg.requests)
		usage_error("--warmup %" PRIu64 " plus --requests %" PRIu64 " is too many",
			    cfg.warmup, cfg.requests);
	if (!cfg.align_set)
		cfg.align = cfg.block;
	if ((uint64_t)cfg.k > MAX_REQ_BYTES / cfg.block)
		usage_error("--sizes %s with --block %" PRIu64 ": requests of %u blocks are over 1G",
			    cfg.sizes_spec, cfg.block, cfg.k);
}

/* the device: a block device or a regular file, opened with O_DIRECT */
static void open_device(void)
{
	int flags = (cfg.read_frac < 1 ? O_RDWR : O_RDONLY) | O_DIRECT | O_CLOEXEC;
	struct stat st;

	if (stat(cfg.device, &st))
		usage_error("cannot open %s: %s", cfg.device, strerror(errno));
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
		usage_error("%s is not a block device or a regular file", cfg.device);
	fd = open(cfg.device, flags);
	if (fd < 0) {
		if (errno == EINVAL)
			usage_error("cannot open %s with O_DIRECT: %s (its file system may not "
				    "do direct I/O)", cfg.device, strerror(errno));
		usage_error("cannot open %s %s with O_DIRECT: %s", cfg.device,
			    cfg.read_frac < 1 ? "for reading and writing" : "for reading",
			    strerror(errno));
	}
	cfg.dio_align = 512;
	cfg.mem_align = 4096;
	if (S_ISBLK(st.st_mode)) {
		int lbs = 0;

		cfg.is_blk = true;
		if (ioctl(fd, BLKGETSIZE64, &cfg.dev_size))
			die(EXIT_FAIL, "%s: BLKGETSIZE64: %s", cfg.device, strerror(errno));
		if (ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
			cfg.dio_align = lbs;
	} else {
		cfg.dev_size = st.st_size;
#ifdef STATX_DIOALIGN
		{
			struct statx sx;

			if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
			    (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align) {
				cfg.dio_align = sx.stx_dio_offset_align;
				if (sx.stx_dio_mem_align > cfg.mem_align)
					cfg.mem_align = sx.stx_dio_mem_align;
			}
		}
#endif
	}
	if (cfg.dev_size == 0)
		usage_error("%s is empty", cfg.device);
}

/* everything that needs the device's size and alignment */
static void check_geometry(void)
{
	uint64_t maxlen = (uint64_t)cfg.k * cfg.block, a = cfg.dio_align;
	unsigned int z;

	if (cfg.block % a)
		usage_error("--block %" PRIu64 " is not a multiple of %s's direct I/O alignment, "
			    "%" PRIu64 " bytes", cfg.block, cfg.device, a);
	if (cfg.align % a)
		usage_error("--align %" PRIu64 " is not a multiple of %s's direct I/O alignment, "
			    "%" PRIu64 " bytes", cfg.align, cfg.device, a);
	if (cfg.shift % a)
		usage_error("--offset-shift %" PRIu64 " is not a multiple of %s's direct I/O "
			    "alignment, %" PRIu64 " bytes", cfg.shift, cfg.device, a);
	if (!cfg.range_set) {
		cfg.range_start = 0;
		cfg.range_len = cfg.dev_size;
	} else {
		if (cfg.range_start >= cfg.dev_size)
			usage_error("--range: START %" PRIu64 " is not inside %s (%" PRIu64
				    " bytes)", cfg.range_start, cfg.device, cfg.dev_size);
		if (cfg.range_len == 0)
			cfg.range_len = cfg.dev_size - cfg.range_start;
		if (cfg.range_len > cfg.dev_size - cfg.range_start)
			usage_error("--range: %" PRIu64 ":%" PRIu64 " ends past the end of %s (%"
				    PRIu64 " bytes)", cfg.range_start, cfg.range_len, cfg.device,
				    cfg.dev_size);
	}
	if (!cfg.zones_spec) {
		cfg.nzones = 1;
		cfg.zone_w = calloc(1, sizeof(double));
		cfg.zone_cdf = calloc(1, sizeof(double));
		if (!cfg.zone_w || !cfg.zone_cdf)
			die(EXIT_FAIL, "out of memory");
		cfg.zone_w[0] = 1;
	}
	cfg.zone_lo = calloc(cfg.nzones, sizeof(uint64_t));
	cfg.zone_hi = calloc(cfg.nzones, sizeof(uint64_t));
	if (!cfg.zone_lo || !cfg.zone_hi)
		die(EXIT_FAIL, "out of memory");
	{
		double tot = 0, acc = 0;

		for (z = 0; z < cfg.nzones; z++)
			tot += cfg.zone_w[z];
		for (z = 0; z < cfg.nzones; z++) {
			acc += cfg.zone_w[z];
			cfg.zone_cdf[z] = acc / tot;
		}
		cfg.zone_cdf[cfg.nzones - 1] = 1.0;
	}
	for (z = 0; z < cfg.nzones; z++) {
		uint64_t mlo, mhi;

		cfg.zone_lo[z] = cfg.range_start +
			(uint64_t)((unsigned __int128)cfg.range_len * z / cfg.nzones);
		cfg.zone_hi[z] = cfg.range_start +
			(uint64_t)((unsigned __int128)cfg.range_len * (z + 1) / cfg.nzones);
		if (cfg.zone_w[z] == 0 || zone_positions(z, maxlen, &mlo, &mhi))
			continue;
		if (cfg.nzones == 1)
			usage_error("requests of up to %u blocks of %" PRIu64 " bytes do not fit "
				    "the range [%" PRIu64 ", %" PRIu64 ") with --align %" PRIu64
				    " and --offset-shift %" PRIu64, cfg.k, cfg.block,
				    cfg.zone_lo[z], cfg.zone_hi[z], cfg.align, cfg.shift);
		usage_error("requests of up to %u blocks of %" PRIu64 " bytes do not fit zone %u "
			    "[%" PRIu64 ", %" PRIu64 ") with --align %" PRIu64
			    " and --offset-shift %" PRIu64, cfg.k, cfg.block, z + 1,
			    cfg.zone_lo[z], cfg.zone_hi[z], cfg.align, cfg.shift);
	}
	if (cfg.sizes == SIZES_QGEO)
		qgeo_cdf();
}

static FILE *open_output(const char *path, const char *what)
{
	FILE *f = fopen(path, "w");

	if (!f)
		usage_error("cannot write the %s to %s: %s", what, path, strerror(errno));
	return f;
}

int main(int argc, char **argv)
{
	FILE *frec = NULL, *fsum = NULL;
	struct sigaction sa;
	uint64_t maxlen;
	int status = 0;

	/*
	 * No transparent huge pages in this process.  The clients write their
	 * records into one buffer: the first record written into a 2 MiB-
	 * aligned part of it faulted, and every client that completed a
	 * request before that huge page was mapped faulted on it too, each
	 * allocating and clearing a 2 MiB page of its own (the kernel keeps
	 * one).  On an emulated guest's instruction clock that is 34 ms a
	 * client, half of it with no preemption point: every client of a
	 * closed loop went silent for MPL x 34 ms (1.1 s at 32).  Nor does
	 * khugepaged collapse this process's pages, holding its mmap_lock.
	 * (The records are also written before the run: records_prefault.)
	 */
	prctl(PR_SET_THP_DISABLE, 1UL, 0, 0, 0);
	parse_args(argc, argv);
	open_device();
	check_geometry();
	if (cfg.records)
		frec = open_output(cfg.records, "records");
	if (cfg.summary)
		fsum = open_output(cfg.summary, "summary");
	if (frec)
		setvbuf(frec, NULL, _IOFBF, 1 << 20);

	maxlen = (uint64_t)cfg.k * cfg.block;
	if (posix_memalign(&rbuf, cfg.mem_align, maxlen) ||
	    posix_memalign(&wbuf, cfg.mem_align, maxlen))
		die(EXIT_FAIL, "cannot allocate two %" PRIu64 "-byte buffers", maxlen);
	memset(rbuf, 0, maxlen);
	memset(wbuf, 0x5a, maxlen);	/* the fixed pattern every write writes */
	records_prefault(cfg.requests_set ? cfg.requests : CHUNK);

	/* sleep as precisely as the timers allow (inherited by the threads) */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);	/* no SA_RESTART: the sleeps return */
	sigaction(SIGTERM, &sa, NULL);

	if (cfg.mode == MODE_OPEN)
		run_open();
	else
		run_closed();
	close(fd);

	if (outrun)
		fprintf(stderr, "%s: OUTRUN: %" PRIu64 " requests were in flight (--max-outstanding)"
			" when request %" PRIu64 " was due at %" PRIu64 " ns: the volume cannot "
			"keep up with %.6g requests/s; stopped issuing, drained, and wrote the %"
			PRIu64 " measured requests issued\n", prog, cfg.max_out, outrun_at,
			outrun_arrival, cfg.rate, (uint64_t)atomic_load(&nmeasured));
	if (atomic_load(&out_of_records))
		fprintf(stderr, "%s: out of memory for records after %" PRIu64
			" requests; stopped there\n", prog, (uint64_t)atomic_load(&nmeasured));
	if (got_signal)
		fprintf(stderr, "%s: stopped by signal %d; writing what was recorded\n", prog,
			(int)got_signal);

	summarise();
	if (frec && (!write_records(frec) || fclose(frec))) {
		fprintf(stderr, "%s: writing the records to %s failed: %s\n", prog, cfg.records,
			strerror(errno));
		status = EXIT_FAIL;
	}
	if (fsum) {
		write_summary(fsum);
		if (fflush(fsum) || ferror(fsum) || fclose(fsum)) {
			fprintf(stderr, "%s: writing the summary to %s failed: %s\n", prog,
				cfg.summary, strerror(errno));
			status = EXIT_FAIL;
		}
	}
	print_summary();
	if (sm.errors)
		fprintf(stderr, "%s: %" PRIu64 " of %" PRIu64 " requests failed (%" PRIu64
			" short); see the status column\n", prog, sm.errors, sm.requests, sm.shorts);
	if (fflush(stdout))
		status = EXIT_FAIL;
	if (status)
		return status;
	if (atomic_load(&out_of_records))
		return EXIT_FAIL;
	if (outrun)
		return EXIT_OUTRUN;
	if (got_signal)
		return 128 + got_signal;
	return 0;
}
