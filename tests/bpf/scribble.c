// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * scribble - test only: attach scribble.bpf.c to ssastripe_record for one
 * device until SIGINT or SIGTERM, then print how many records it saw and
 * scribbled over, and how many of those looked sane before it did.
 *
 * Usage: scribble MAJOR:MINOR
 * Prints "attached" once the program is attached.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "scribble.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	struct scribble_bpf *skel;
	unsigned int major, minor;
	int err;

	if (argc != 2 || sscanf(argv[1], "%u:%u", &major, &minor) != 2) {
		fprintf(stderr, "usage: scribble MAJOR:MINOR\n");
		return 2;
	}
	skel = scribble_bpf__open();
	if (!skel) {
		fprintf(stderr, "scribble: cannot open the BPF object\n");
		return 1;
	}
	skel->rodata->target_dev = major << 20 | minor;
	err = scribble_bpf__load(skel);
	if (!err)
		err = scribble_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "scribble: cannot load or attach: %d\n", err);
		scribble_bpf__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		sleep(1);	/* a signal cuts it short */
	printf("runs %llu sane %llu\n", (unsigned long long)skel->bss->runs,
	       (unsigned long long)skel->bss->sane);
	scribble_bpf__destroy(skel);
	return 0;
}
