/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ssatrace record --format bin: the BPF ring buffer read in place.
 *
 * libbpf's ring_buffer__consume() calls back once per record, and the
 * callback copies the record out; on the workload's own CPU that per-record
 * work was most of what the binary reader cost.  Here the reader maps the
 * ring buffer itself, as libbpf does (the consumer position on a page it
 * may write, the producer position and the data, which the kernel maps
 * twice in a row so that a stretch of records that wraps around the end
 * is still contiguous), walks the 8-byte headers of what was committed and
 * writes the whole stretch out with one write(), headers and all.  The
 * consumer position moves on only once the write is done: until then the
 * BPF side cannot reuse the bytes.  ssatrace decode reads the headers back
 * (struct ssatrace_bin_header, version 2).
 */
#ifndef SSATRACE_RAWRING_H
#define SSATRACE_RAWRING_H

#include <errno.h>
#include <stdbool.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/bpf.h>

struct rawring {
	unsigned long *consumer;	/* consumer position: ours to write */
	const unsigned long *producer;	/* producer position, then the data */
	const char *data;		/* size bytes, mapped twice */
	size_t mask;			/* size - 1 */
	size_t page;
};

/* Map the ring buffer map @fd of @size bytes; 0 or a negative errno. */
static inline int rawring_map(struct rawring *rr, int fd, size_t size)
{
	void *p;

	rr->page = getpagesize();
	rr->mask = size - 1;
	p = mmap(NULL, rr->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	rr->consumer = p;
	p = mmap(NULL, rr->page + 2 * size, PROT_READ, MAP_SHARED, fd, rr->page);
	if (p == MAP_FAILED) {
		int err = -errno;

		munmap(rr->consumer, rr->page);
		return err;
	}
	rr->producer = p;
	rr->data = (const char *)p + rr->page;
	return 0;
}

static inline void rawring_unmap(struct rawring *rr)
{
	if (rr->producer)
		munmap((void *)rr->producer, rr->page + 2 * (rr->mask + 1));
	if (rr->consumer)
		munmap(rr->consumer, rr->page);
	rr->producer = NULL;
	rr->consumer = NULL;
}

/*
 * What is committed from the consumer position on: sets *start (its
 * address) and *nr (records in it, discarded ones not counted); returns
 * its length in bytes, 0 when nothing is.  A record still being written
 * (BUSY) ends the stretch: it and whatever follows it wait for the next
 * call.
 */
static inline size_t rawring_ready(const struct rawring *rr, const void **start,
				   unsigned long long *nr)
{
	unsigned long cons = *rr->consumer, prod, pos;
	unsigned long long n = 0;
	__u32 hdr;

	prod = __atomic_load_n(rr->producer, __ATOMIC_ACQUIRE);
	for (pos = cons; pos < prod; ) {
		hdr = __atomic_load_n((const __u32 *)(rr->data + (pos & rr->mask)),
				      __ATOMIC_ACQUIRE);
		if (hdr & BPF_RINGBUF_BUSY_BIT)
			break;
		n += !(hdr & BPF_RINGBUF_DISCARD_BIT);
		hdr &= ~BPF_RINGBUF_DISCARD_BIT;
		pos += (hdr + BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
	}
	*start = rr->data + (cons & rr->mask);
	*nr = n;
	return pos - cons;
}

/* The first @len bytes from the consumer position are written out: free them. */
static inline void rawring_release(struct rawring *rr, size_t len)
{
	__atomic_store_n(rr->consumer, *rr->consumer + len, __ATOMIC_RELEASE);
}

#endif /* SSATRACE_RAWRING_H */
