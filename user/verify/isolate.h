/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a function in a child process with a watchdog, and bring its fixed-
 * size result back over a pipe.  "p2pmap verify" runs every CUDA call
 * this way: CUDA's sticky errors (700 ILLEGAL_ADDRESS, 719 LAUNCH_FAILED)
 * end with the process, a copy that never completes is killed, and the
 * parent never initialises CUDA (a child forked after cuInit could not use
 * it).
 */
#ifndef P2PMAP_VERIFY_ISOLATE_H
#define P2PMAP_VERIFY_ISOLATE_H

#include <stddef.h>

enum isolate_status {
	ISOLATE_OK,			/* the child returned a result */
	ISOLATE_TIMEOUT,		/* killed by the watchdog */
	ISOLATE_DIED,			/* ended without a result */
	ISOLATE_FAILED,			/* no child: fork or pipe failed */
};

/*
 * Fork; the child runs @fn(@arg, @out) and sends @out (@len bytes) back.
 * The parent waits at most @timeout_s seconds for it, then kills the
 * child with SIGKILL.  @why says what happened when the status is not
 * ISOLATE_OK.
 */
enum isolate_status isolate_run(void (*fn)(void *arg, void *out), void *arg,
				void *out, size_t len, unsigned int timeout_s,
				char *why, size_t whylen);

#endif /* P2PMAP_VERIFY_ISOLATE_H */
