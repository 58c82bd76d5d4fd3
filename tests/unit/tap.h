/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TAP output for the host unit tests: tap(ok, fmt, ...) prints one
 * "ok N - ..." or "not ok N - ..." line and counts the failures.
 */
#ifndef SSA_UNIT_TAP_H
#define SSA_UNIT_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int test_nr;
static int failures;

static void __attribute__((format(printf, 2, 3)))
tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++test_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		failures++;
}

#endif /* SSA_UNIT_TAP_H */
