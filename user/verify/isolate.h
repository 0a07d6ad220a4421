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

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

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

/*
 * In @fn: send the result now, before what may crash or hang without
 * changing it (unloading libcuda runs the driver's teardown).  The parent
 * then waits ISOLATE_EXIT_WAIT_S for the exit, kills what is left, and
 * keeps the result.
 */
void isolate_result_ready(void);

#define ISOLATE_EXIT_WAIT_S	3

/*
 * Reap @pid within @wait_s seconds, else SIGKILL it and wait as long
 * again: false when it is still there (in uninterruptible sleep inside a
 * driver, which no signal ends), then left behind.  *@status as waitpid's.
 */
bool isolate_reap(pid_t pid, unsigned int wait_s, int *status);

/* Children of isolate_run() that outlived their result and were killed. */
unsigned int isolate_killed_after_result(void);

/*
 * Children of isolate_run() still there after SIGKILL (stuck in the
 * driver), left behind: the count grows by one for each.
 */
unsigned int isolate_left_behind(void);

/*
 * In a child: did an earlier child's teardown hang?  Then leave without
 * unloading libcuda (the kernel driver cleans up after a process that
 * exits), rather than cost every later child the wait.
 */
static inline bool isolate_skip_teardown(void)
{
	return isolate_killed_after_result() > 0;
}

#endif /* P2PMAP_VERIFY_ISOLATE_H */
