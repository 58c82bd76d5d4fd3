// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ssatrace - follow dm-ssastripe requests from fork to join.
 *
 *   ssatrace record [-o FILE] [--format csv|json|bin]  one record per request
 *   ssatrace hist [-i SECONDS]                          log2 histograms
 *   ssatrace decode FILE [-o FILE] [--format csv|json]  bin records as text
 *
 * Common filters: -D DEVICE, -O OP, -m MIN_USEC, -d SECONDS.
 * Timestamps are CLOCK_MONOTONIC nanoseconds, taken by the module
 * (ktime_get_ns()) and handed over in each request's record.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "ssatrace.h"
#include "record.h"
#include "rawring.h"
#include "ssatrace.skel.h"

enum mode { MODE_RECORD, MODE_HIST, MODE_DECODE };
enum format { FMT_CSV, FMT_JSON, FMT_BIN };

/*
 * The binary record file (--format bin): this header, then the ring
 * buffer's contents as the BPF side left them: per sample its 8-byte ring
 * buffer header (__u32 length, with bit 30 set for a discarded sample,
 * and a __u32 the kernel uses), the sample (struct ssa_trace_req, its
 * slots, and with --disk a __u64 per slot), and padding to 8 bytes; the
 * host's byte order.  The reader writes what the ring buffer holds as it
 * is (rawring.h); decoding afterwards is where the work is.  Version 1
 * files (a __u32 byte count before each sample, nothing discarded) are
 * still decoded.
 */
#define SSATRACE_BIN_MAGIC	"SSATRBIN"
#define SSATRACE_BIN_VERSION	2
#define SSATRACE_BIN_DISK	1u	/* flags: recorded with --disk */

struct ssatrace_bin_header {
	char magic[8];
	__u32 version;
	__u32 flags;
};

#define STR_(x)	#x
#define STR(x)	STR_(x)

/*
 * How often the ring buffer is read at the least.  Each read costs the
 * CPU it runs on a wake-up, context switches and a write: tens of
 * thousands of instructions where the file is on 9p (bench/README.md,
 * "Tracing overhead"), which every 200 ms come to a few instructions a
 * record at 10,000 requests a second.  A burst that would fill the buffer
 * first wakes the reader early (SSATRACE_WAKEUP_BYTES).
 */
#define POLL_MS	200
_Static_assert(sizeof(struct ssa_trace_req) + SSA_TRACE_MAX_SLOTS *
	       (sizeof(struct ssa_trace_child) + sizeof(__u64)) + 8 <= SSATRACE_RINGBUF_MIN_KIB * 1024 / 2,
	       "the largest record sample fits the smallest ring buffer twice over");

static struct env {
	enum mode mode;
	enum format format;
	bool format_set;	/* --format given; else record picks by -o's name */
	const char *output;
	const char *input;	/* decode */
	const char *device;
	int op;
	unsigned long long min_lat_us;
	int duration;
	int interval;
	bool verbose;
	bool disk;
	long buffer_kib;
} env = { .op = -1, .interval = 0 };

const char *argp_program_version = "ssatrace 1.6";
static const char doc[] =
"Follow dm-ssastripe requests from fork to join.\n"
"\n"
"USAGE: ssatrace record [-o FILE] [--format csv|json|bin] [-b KIB] [filters]\n"
"       ssatrace hist [-i SECONDS] [filters]\n"
"       ssatrace decode FILE [-o FILE] [--format csv|json]\n"
"\n"
"EXAMPLES:\n"
"    ssatrace record -o run.csv -d 30        # 30 s of per-request records\n"
"    ssatrace record --format json -D vol    # JSON lines for /dev/mapper/vol\n"
"    ssatrace hist -i 1 -O read              # read histograms every second\n"
"    ssatrace record -m 10000                # only requests slower than 10 ms\n"
"    ssatrace record --disk -o run.csv       # plus when each ssadisk member\n"
"                                            # began serving each child\n"
"    ssatrace record -o run.trace            # binary (not .csv/.json): the\n"
"                                            # cheapest on a busy CPU, then\n"
"    ssatrace decode run.trace -o run.csv    # the same CSV, afterwards\n";

static const struct argp_option opts[] = {
	{ "output", 'o', "FILE", 0, "record: write records to FILE (default stdout)", 0 },
	{ "format", 'f', "FMT", 0, "record: csv, json (JSON lines) or bin (the ring "
	  "buffer's records, for decode); default: csv to stdout or a FILE named .csv, "
	  "json to a FILE named .json, else bin; decode: csv (default) or json", 0 },
	{ "buffer", 'b', "KIB", 0, "record: ring buffer size in KiB, a power of two "
	  "(default 16384); records that find it full are counted lost", 0 },
	{ "interval", 'i', "SECONDS", 0, "hist: print every SECONDS (default: at the end)", 0 },
	{ "device", 'D', "DEV", 0, "only this device: major:minor, a path, or a dm name", 0 },
	{ "op", 'O', "OP", 0, "only read, write, flush, discard or write_zeroes", 0 },
	{ "min-lat", 'm', "USEC", 0, "only requests with response time >= USEC", 0 },
	{ "duration", 'd', "SECONDS", 0, "stop after SECONDS", 0 },
	{ "disk", 'k', NULL, 0, "record: follow each child into its ssadisk member and add "
	  "when the disk began serving it (disk_start_ns)", 0 },
	{ "verbose", 'v', NULL, 0, "print libbpf debug messages", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "show the full help", 0 },
	{},
};

static long parse_num(const char *arg, const char *what, struct argp_state *state)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < 0)
		argp_error(state, "invalid %s: %s", what, arg);
	return v;
}

/* --buffer: at least a page, and room for the largest record (64 children) */
static long ringbuf_min_kib(void)
{
	long kib = SSATRACE_RINGBUF_MIN_KIB;

	while (kib * 1024 < getpagesize())
		kib *= 2;
	return kib;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/*
 * record's format when --format is not given: text where it is read as it
 * comes (stdout, a file named .csv or .json), else the binary stretches
 * of the ring buffer (the cheapest for the CPU doing the I/O; ssatrace
 * decode makes the CSV afterwards).
 */
static enum format record_format(const char *output)
{
	if (!output || !strcmp(output, "-") || ends_with(output, ".csv"))
		return FMT_CSV;
	if (ends_with(output, ".json") || ends_with(output, ".jsonl"))
		return FMT_JSON;
	return FMT_BIN;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	int i;

	switch (key) {
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case 'o':
		env.output = arg;
		break;
	case 'f':
		env.format_set = true;
		if (!strcmp(arg, "csv"))
			env.format = FMT_CSV;
		else if (!strcmp(arg, "json"))
			env.format = FMT_JSON;
		else if (!strcmp(arg, "bin"))
			env.format = FMT_BIN;
		else
			argp_error(state, "format must be csv, json or bin: %s", arg);
		break;
	case 'i':
		env.interval = parse_num(arg, "interval", state);
		break;
	case 'b':
		env.buffer_kib = parse_num(arg, "buffer size", state);
		if (env.buffer_kib > SSATRACE_RINGBUF_MAX_KIB ||
		    env.buffer_kib < ringbuf_min_kib() ||
		    (env.buffer_kib & (env.buffer_kib - 1)))
			argp_error(state, "buffer size must be a power of two from %ld to %d KiB: %s",
				   ringbuf_min_kib(), SSATRACE_RINGBUF_MAX_KIB, arg);
		break;
	case 'D':
		env.device = arg;
		break;
	case 'O':
		for (i = 0; i < 5; i++)
			if (!strcmp(arg, ssatrace_op_names[i]))
				env.op = i;
		if (env.op < 0)
			argp_error(state, "unknown op: %s", arg);
		break;
	case 'm':
		env.min_lat_us = parse_num(arg, "minimum latency", state);
		break;
	case 'd':
		env.duration = parse_num(arg, "duration", state);
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'k':
		env.disk = true;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 1 && env.mode == MODE_DECODE) {
			env.input = arg;
			break;
		}
		if (state->arg_num)
			argp_usage(state);
		if (!strcmp(arg, "record"))
			env.mode = MODE_RECORD;
		else if (!strcmp(arg, "hist"))
			env.mode = MODE_HIST;
		else if (!strcmp(arg, "decode"))
			env.mode = MODE_DECODE;
		else
			argp_error(state, "mode must be record, hist or decode: %s", arg);
		break;
	case ARGP_KEY_END:
		if (state->arg_num < 1)
			argp_error(state, "which mode: record, hist or decode?");
		if (env.mode == MODE_DECODE) {
			if (!env.input)
				argp_error(state, "decode needs the file recorded with --format bin");
			if (env.format == FMT_BIN)
				argp_error(state, "decode writes csv or json");
			if (env.device || env.op >= 0 || env.min_lat_us || env.duration ||
			    env.disk || env.buffer_kib || env.interval)
				argp_error(state, "decode takes only -o and --format "
					   "(filter when recording)");
			break;
		}
		if (env.mode == MODE_RECORD && !env.format_set)
			env.format = record_format(env.output);
		/* hist has no per-child disk times to show: do not link for nothing */
		if (env.disk && env.mode != MODE_RECORD)
			argp_error(state, "--disk is for record mode");
		if (env.buffer_kib && env.mode != MODE_RECORD)
			argp_error(state, "--buffer is for record mode");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* A device argument as the kernel encodes dev_t (major << 20 | minor). */
static int resolve_device(const char *name, __u32 *dev)
{
	unsigned int maj, min;
	char path[256];
	struct stat st;

	if (sscanf(name, "%u:%u", &maj, &min) == 2) {
		*dev = maj << 20 | min;
		return 0;
	}
	if (stat(name, &st)) {
		snprintf(path, sizeof(path), "/dev/mapper/%s", name);
		if (stat(path, &st))
			return -ENOENT;
	}
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	*dev = major(st.st_rdev) << 20 | minor(st.st_rdev);
	return 0;
}

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *format,
			   va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static FILE *out;

static void print_csv_header(void)
{
	fprintf(out, "fork_ns,join_ns,dev,id,op,sector,len,comm,status,nr_children,"
		"resp_ns,max_wait_ns,max_service_ns,skew_ns,children,truncated\n");
}

/*
 * Records are put together in place, in one buffer that goes out with a
 * single write when it is nearly full and after every poll: no copy and no
 * stdio call per record.
 */
static char line_buf[1 << 20];
static size_t line_len;

static void lines_flush(void)
{
	if (line_len)
		fwrite(line_buf, 1, line_len, out);
	line_len = 0;
}

/* Out with what is buffered; false, having said why once, if it cannot be written. */
static bool lines_out(void)
{
	static bool failed;

	if (failed)
		return false;
	lines_flush();
	if (!fflush(out) && !ferror(out))
		return true;
	fprintf(stderr, "ssatrace: writing the records failed: %s\n", strerror(errno));
	failed = true;
	return false;
}

static void print_bin_header(void)
{
	struct ssatrace_bin_header h = {
		.version = SSATRACE_BIN_VERSION,
		.flags = env.disk ? SSATRACE_BIN_DISK : 0,
	};

	memcpy(h.magic, SSATRACE_BIN_MAGIC, sizeof(h.magic));
	fwrite(&h, sizeof(h), 1, out);
}

static void print_record(const struct ssa_trace_req *r, const struct ssa_trace_derived *d,
			 const __u64 *disk)
{
	char *p;

	if (sizeof(line_buf) - line_len < SSATRACE_LINE_MAX)
		lines_flush();
	p = line_buf + line_len;
	if (env.format == FMT_JSON)
		p = ssatrace_json(p, r, d, disk);
	else
		p = ssatrace_csv(p, r, d, disk);
	line_len = p - line_buf;
}

/*
 * hist: the BPF side counts into log2 histograms of microseconds (map
 * "hists"), which only grow.  Each print shows what was added since the
 * last one, so no count is lost between reading a histogram and clearing
 * it.
 */
struct hist_entry {
	struct ssatrace_hist_key key;
	struct ssatrace_hist h;
};

static struct hist_entry *hist_last, *hist_now;
static size_t nr_last;

/* per device: response times by op, then each member's classes */
static int hist_key_cmp(const void *pa, const void *pb)
{
	const struct ssatrace_hist_key *a = pa, *b = pb;
	int ga = a->kind != SSATRACE_HIST_RESPONSE, gb = b->kind != SSATRACE_HIST_RESPONSE;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (ga != gb)
		return ga - gb;
	if (a->idx != b->idx)
		return a->idx - b->idx;
	if (a->class != b->class)
		return a->class - b->class;
	return a->kind - b->kind;
}

/* Every histogram of every device's row that has counted anything. */
static size_t hist_read(int devs_fd, int fd, struct hist_entry *e)
{
	__u32 dev, *prev = NULL, row, i, k;
	struct ssatrace_hist h;
	size_t n = 0;
	int s;

	/* the BPF side never deletes, so the walk never loses its place */
	while (!bpf_map_get_next_key(devs_fd, prev, &dev)) {
		prev = &dev;
		if (bpf_map_lookup_elem(devs_fd, &dev, &row) || row >= SSATRACE_HIST_DEVS)
			continue;
		for (i = 0; i < SSATRACE_HISTS_PER_DEV && n < SSATRACE_HISTS; i++) {
			k = row * SSATRACE_HISTS_PER_DEV + i;
			if (bpf_map_lookup_elem(fd, &k, &h))
				continue;
			for (s = 0; s < SSATRACE_HIST_SLOTS && !h.slot[s]; s++)
				;
			if (s == SSATRACE_HIST_SLOTS)
				continue;
			e[n].key.dev = dev;
			ssatrace_hist_what(i, &e[n].key);
			e[n++].h = h;
		}
	}
	qsort(e, n, sizeof(*e), hist_key_cmp);
	return n;
}

static void hist_print(const struct ssatrace_hist *h, const char *title)
{
	__u64 max = 0;
	int i, lo = -1, hi = 0, j, stars;

	for (i = 0; i < SSATRACE_HIST_SLOTS; i++) {
		if (h->slot[i] > max)
			max = h->slot[i];
		if (h->slot[i]) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
	}
	printf("%s\n%20s : %-8s |%-40s|\n", title, "usecs", "count", "distribution");
	for (i = lo; i <= hi && lo >= 0; i++) {
		__u64 from = ssatrace_hist_lo_us(i), to = ssatrace_hist_hi_us(i);

		stars = max ? (int)(h->slot[i] * 40 / max) : 0;
		printf("%10llu -> %-7llu : %-8llu |", from, to, h->slot[i]);
		for (j = 0; j < 40; j++)
			putchar(j < stars ? '*' : ' ');
		printf("|\n");
	}
	printf("\n");
}

static void hist_title(const struct ssatrace_hist_key *k, char *buf, size_t len)
{
	unsigned int maj = k->dev >> 20, min = k->dev & 0xfffff;

	if (k->kind == SSATRACE_HIST_RESPONSE)
		snprintf(buf, len, "device %u:%u %s: response time (fork to join)",
			 maj, min, ssatrace_op_name(k->idx));
	else
		snprintf(buf, len, "device %u:%u member %u %s: %s time", maj, min,
			 k->idx, ssatrace_class_names[k->class & 1],
			 k->kind == SSATRACE_HIST_WAIT ? "queueing" : "service");
}

/* Print what each histogram gained since the last print. */
static void hist_print_all(struct ssatrace_bpf *skel)
{
	struct hist_entry *t;
	char title[128];
	size_t n, i;
	int s;

	n = hist_read(bpf_map__fd(skel->maps.hist_devs), bpf_map__fd(skel->maps.hists),
		      hist_now);
	for (i = 0; i < n; i++) {
		struct hist_entry *e = &hist_now[i], *was;
		struct ssatrace_hist d;
		bool any = false;

		was = bsearch(&e->key, hist_last, nr_last, sizeof(*e), hist_key_cmp);
		for (s = 0; s < SSATRACE_HIST_SLOTS; s++) {
			d.slot[s] = e->h.slot[s] - (was ? was->h.slot[s] : 0);
			any |= d.slot[s] != 0;
		}
		if (!any)
			continue;
		hist_title(&e->key, title, sizeof(title));
		hist_print(&d, title);
	}
	fflush(stdout);
	t = hist_last;
	hist_last = hist_now;
	hist_now = t;
	nr_last = n;
}

static unsigned long long nr_records;
static unsigned long long nr_incomplete;	/* slots with no child of the request */
static unsigned long long nr_truncated;		/* requests with more children than slots */
static unsigned long long nr_bad;		/* samples of no known size */

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct ssa_trace_req *r = data;
	__u32 room = ssatrace_rec_room(size, env.disk);
	struct ssa_trace_derived d;

	if (!room || r->nr_slots > room) {
		nr_bad++;
		return 0;
	}
	nr_records++;
	ssa_trace_derive(r, &d);
	nr_incomplete += r->nr_slots - d.nr_valid;
	nr_truncated += r->nr_children > r->nr_slots;
	print_record(r, &d, env.disk ? data + ssa_trace_rec_size(room) : NULL);
	return 0;
}

/* Events the kernel could not deliver: a program already running on the CPU. */
static unsigned long long prog_misses(struct ssatrace_bpf *skel)
{
	struct bpf_program *progs[] = {
		skel->progs.handle_request, skel->progs.handle_dispatch,
		skel->progs.handle_complete, skel->progs.handle_disk_start,
	};
	unsigned long long n = 0;
	unsigned int i;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(progs[i]) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

/*
 * hist: each request counted adds one response time, so the requests in
 * the histograms are the response histograms' counts (as last read).
 */
static unsigned long long hist_requests(void)
{
	unsigned long long n = 0;
	size_t i;
	int s;

	for (i = 0; i < nr_last; i++)
		if (hist_last[i].key.kind == SSATRACE_HIST_RESPONSE)
			for (s = 0; s < SSATRACE_HIST_SLOTS; s++)
				n += hist_last[i].h.slot[s];
	return n;
}

static void report_counts(struct ssatrace_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.counts);
	unsigned long long n[SSATRACE_NR_COUNTS] = {};
	__u64 v;
	__u32 k;

	for (k = 0; k < SSATRACE_NR_COUNTS; k++)
		if (!bpf_map_lookup_elem(fd, &k, &v))
			n[k] = v;
	if (env.mode == MODE_HIST)
		fprintf(stderr, "ssatrace: %llu requests in the histograms, %llu times "
			"lost (more devices than " STR(SSATRACE_HIST_DEVS) "), ",
			hist_requests(), n[SSATRACE_DROP_HIST]);
	else
		fprintf(stderr, "ssatrace: %llu records, %llu lost (ring buffer full), ",
			nr_records, n[SSATRACE_DROP_RINGBUF]);
	fprintf(stderr, "%llu events missed (nested), %llu children not recorded, "
		"%llu requests truncated (more children than the record holds)\n",
		prog_misses(skel),
		env.mode == MODE_HIST ? n[SSATRACE_HIST_INCOMPLETE] : nr_incomplete,
		env.mode == MODE_HIST ? n[SSATRACE_HIST_TRUNCATED] : nr_truncated);
	if (nr_bad)
		fprintf(stderr, "ssatrace: %llu samples of unknown size skipped\n", nr_bad);
}

/*
 * The next sample of a --format bin file into @sample (room for @max
 * bytes): 1 with *size set, 0 at the end of the file, -1 if the file is
 * cut short or holds no sample here.  Version 2 samples that were
 * discarded in the ring buffer are passed over.
 */
static int read_sample(FILE *in, __u32 version, char *sample, size_t max, __u32 *size)
{
	__u32 hdr[2];
	size_t got, padded;

	for (;;) {
		/* a clean end falls between samples, never inside a header */
		got = fread(hdr, 1, version == 1 ? sizeof(hdr[0]) : sizeof(hdr), in);
		if (!got)
			return 0;
		if (got != (version == 1 ? sizeof(hdr[0]) : sizeof(hdr)))
			return -1;
		if (version == 1) {
			*size = hdr[0];
			padded = *size;
		} else {
			if (hdr[0] & BPF_RINGBUF_BUSY_BIT)
				return -1;
			*size = hdr[0] & ~BPF_RINGBUF_DISCARD_BIT;
			padded = (*size + 7) & ~7UL;
		}
		if (padded > max || fread(sample, padded, 1, in) != 1)
			return -1;
		if (version == 1 || !(hdr[0] & BPF_RINGBUF_DISCARD_BIT))
			return 1;
	}
}

/*
 * ssatrace decode: a --format bin file as the CSV or JSON lines the
 * recording would have written.  0, or 1 having said why.
 */
static int decode(void)
{
	struct ssatrace_bin_header h;
	static char sample[SSATRACE_LINE_MAX];
	FILE *in = fopen(env.input, "rb");
	__u32 size;
	int err = 0, got;

	if (!in) {
		fprintf(stderr, "ssatrace: %s: %s\n", env.input, strerror(errno));
		return 1;
	}
	if (fread(&h, sizeof(h), 1, in) != 1 ||
	    memcmp(h.magic, SSATRACE_BIN_MAGIC, sizeof(h.magic))) {
		fprintf(stderr, "ssatrace: %s: not a file of ssatrace record --format bin\n",
			env.input);
		fclose(in);
		return 1;
	}
	if (h.version != 1 && h.version != SSATRACE_BIN_VERSION) {
		fprintf(stderr, "ssatrace: %s: format version %u, this ssatrace reads 1 and %u\n",
			env.input, h.version, SSATRACE_BIN_VERSION);
		fclose(in);
		return 1;
	}
	env.disk = h.flags & SSATRACE_BIN_DISK;
	if (env.format == FMT_CSV)
		print_csv_header();
	while ((got = read_sample(in, h.version, sample, sizeof(sample), &size)) > 0) {
		handle_event(NULL, sample, size);
		if (line_len > sizeof(line_buf) / 2 && !lines_out()) {
			err = 1;
			break;
		}
	}
	if (got < 0 || ferror(in)) {
		if (ferror(in))
			fprintf(stderr, "ssatrace: reading %s: %s\n", env.input, strerror(errno));
		else
			fprintf(stderr, "ssatrace: %s: cut short after %llu records\n",
				env.input, nr_records);
		err = 1;
	}
	fclose(in);
	if (!lines_out())
		err = 1;
	fprintf(stderr, "ssatrace: %llu records decoded", nr_records);
	if (nr_incomplete || nr_truncated || nr_bad)
		fprintf(stderr, "; %llu child slots empty, %llu requests with more children "
			"than slots, %llu samples of no known size",
			nr_incomplete, nr_truncated, nr_bad);
	fprintf(stderr, "\n");
	return err;
}

/*
 * --format bin: out with every record committed to the ring buffer, in
 * one write; false, having said why, if that fails.
 */
static bool raw_out(struct rawring *rr)
{
	unsigned long long n;
	const void *start;
	size_t len = rawring_ready(rr, &start, &n), done = 0;
	ssize_t w;

	while (done < len) {
		w = write(fileno(out), (const char *)start + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fprintf(stderr, "ssatrace: writing the records failed: %s\n",
				w < 0 ? strerror(errno) : "nothing written");
			return false;
		}
		done += w;
	}
	rawring_release(rr, len);
	nr_records += n;
	return true;
}

static __u64 now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	struct ring_buffer *rb = NULL;
	struct rawring rr = {};
	struct ssatrace_bpf *skel;
	__u64 start, last_print;
	__u32 dev = 0;
	int err;
	bool raw;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;
	if (env.mode == MODE_DECODE) {
		out = stdout;
		if (env.output) {
			out = fopen(env.output, "w");
			if (!out) {
				fprintf(stderr, "ssatrace: %s: %s\n", env.output, strerror(errno));
				return 1;
			}
		}
		err = decode();
		if (out != stdout && fclose(out)) {
			fprintf(stderr, "ssatrace: %s: %s\n", env.output, strerror(errno));
			err = 1;
		}
		return err;
	}
	if (env.device && resolve_device(env.device, &dev)) {
		fprintf(stderr, "ssatrace: no block device '%s'\n", env.device);
		return 1;
	}
	libbpf_set_print(libbpf_print_fn);

	skel = ssatrace_bpf__open();
	if (!skel) {
		fprintf(stderr, "ssatrace: failed to open the BPF object\n");
		return 1;
	}
	skel->rodata->filter_dev = dev;
	skel->rodata->filter_op = env.op;
	skel->rodata->min_lat_ns = env.min_lat_us * 1000;
	skel->rodata->link_disks = env.disk;
	skel->rodata->hist_mode = env.mode == MODE_HIST;
	/* each mode leaves the other's maps unused: make them as small as they go */
	if (env.mode == MODE_HIST) {
		bpf_map__set_max_entries(skel->maps.events, getpagesize());
	} else {
		if (env.buffer_kib) {
			__u64 size = env.buffer_kib * 1024;

			bpf_map__set_max_entries(skel->maps.events, size);
			skel->rodata->wakeup_bytes = SSATRACE_WAKEUP_BYTES(size);
		}
		bpf_map__set_max_entries(skel->maps.hists, 1);
		bpf_map__set_max_entries(skel->maps.hist_devs, 1);
		bpf_map__set_max_entries(skel->maps.scratch, 1);
	}
	if (!env.disk) {
		bpf_program__set_autoload(skel->progs.handle_dispatch, false);
		bpf_program__set_autoload(skel->progs.handle_complete, false);
		bpf_program__set_autoload(skel->progs.handle_disk_start, false);
		bpf_map__set_max_entries(skel->maps.links, 1);
		bpf_map__set_max_entries(skel->maps.disk_starts, 1);
	}

	err = ssatrace_bpf__load(skel);
	if (err) {
		fprintf(stderr, "ssatrace: failed to load the BPF programs: %s\n",
			strerror(-err));
		goto cleanup;
	}
	err = ssatrace_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "ssatrace: cannot attach to the ssastripe tracepoints "
			"(is dm-ssastripe 1.7.0 or later loaded%s?): %s\n",
			env.disk ? ", and an ssadisk" : "", strerror(-err));
		goto cleanup;
	}

	out = stdout;
	if (env.output && env.mode == MODE_RECORD) {
		out = fopen(env.output, "w");
		if (!out) {
			err = -errno;
			fprintf(stderr, "ssatrace: %s: %s\n", env.output, strerror(errno));
			goto cleanup;
		}
	}
	if (env.mode == MODE_HIST) {
		hist_last = calloc(SSATRACE_HISTS, sizeof(*hist_last));
		hist_now = calloc(SSATRACE_HISTS, sizeof(*hist_now));
		if (!hist_last || !hist_now) {
			err = -ENOMEM;
			goto cleanup;
		}
	}

	/* --format bin reads the ring buffer itself (rawring.h) */
	raw = env.mode == MODE_RECORD && env.format == FMT_BIN;
	if (raw) {
		err = rawring_map(&rr, bpf_map__fd(skel->maps.events),
				  bpf_map__max_entries(skel->maps.events));
		if (err) {
			fprintf(stderr, "ssatrace: failed to map the ring buffer: %s\n",
				strerror(-err));
			goto cleanup;
		}
	} else {
		rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, NULL, NULL);
		if (!rb) {
			err = -errno;
			fprintf(stderr, "ssatrace: failed to create the ring buffer\n");
			goto cleanup;
		}
	}

	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	if (env.mode == MODE_RECORD && env.format == FMT_CSV)
		print_csv_header();
	if (raw) {
		print_bin_header();
		if (fflush(out)) {
			err = -errno;
			fprintf(stderr, "ssatrace: writing the records failed: %s\n",
				strerror(errno));
			goto cleanup;
		}
	}
	fprintf(stderr, "ssatrace: tracing dm-ssastripe requests%s\n",
		env.duration ? "" : "; Ctrl-C to stop");

	start = last_print = now_s();
	while (!exiting) {
		/*
		 * The BPF side wakes us only when a batch has piled up; in
		 * between, take what is there at every timeout.
		 */
		if (raw) {
			struct pollfd pfd = {
				.fd = bpf_map__fd(skel->maps.events), .events = POLLIN,
			};

			if (poll(&pfd, 1, POLL_MS) < 0 && errno != EINTR) {
				err = -errno;
				fprintf(stderr, "ssatrace: polling the ring buffer: %s\n",
					strerror(errno));
				break;
			}
			if (!raw_out(&rr)) {
				err = -EIO;
				break;
			}
		} else {
			err = ring_buffer__poll(rb, POLL_MS);
			if (err >= 0 || err == -EINTR)
				err = ring_buffer__consume(rb);
			if (err < 0 && err != -EINTR) {
				fprintf(stderr, "ssatrace: polling the ring buffer: %s\n",
					strerror(-err));
				break;
			}
			err = 0;
			/* records are at most a poll late; a failed write ends the run */
			if (env.mode == MODE_RECORD && !lines_out()) {
				err = -EIO;
				break;
			}
		}
		if (env.duration && now_s() - start >= (__u64)env.duration)
			break;
		if (env.mode == MODE_HIST && env.interval &&
		    now_s() - last_print >= (__u64)env.interval) {
			hist_print_all(skel);
			last_print = now_s();
		}
	}
	/* drain what is left */
	if (raw) {
		if (!err && !raw_out(&rr))
			err = -EIO;
	} else {
		ring_buffer__consume(rb);
		if (env.mode == MODE_RECORD && !lines_out())
			err = -EIO;
	}
	if (env.mode == MODE_HIST)
		hist_print_all(skel);
	report_counts(skel);

cleanup:
	if (out && out != stdout)
		fclose(out);
	ring_buffer__free(rb);
	rawring_unmap(&rr);
	ssatrace_bpf__destroy(skel);
	free(hist_last);
	free(hist_now);
	return err ? 1 : 0;
}
