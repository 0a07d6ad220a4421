/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP output for the unit tests: "ok N - desc" / "not ok N - desc",
 * then "1..N" and "# N passed, N failed".  Not a framework: two functions.
 */
#ifndef P2PMAP_TAP_H
#define P2PMAP_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static unsigned int tap_passed, tap_failed;

static inline __attribute__((format(printf, 2, 3)))
bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %u - ", cond ? "" : "not ", tap_passed + tap_failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	/* Each line out at once: a test that crashes later must not take it
	 * with it (stdout is a pipe or a file here, fully buffered).
	 */
	fflush(stdout);
	if (cond)
		tap_passed++;
	else
		tap_failed++;
	return cond;
}

/* Returns the exit code: non-zero when a test failed. */
static inline int tap_done(void)
{
	printf("1..%u\n", tap_passed + tap_failed);
	printf("# %u passed, %u failed\n", tap_passed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif /* P2PMAP_TAP_H */
