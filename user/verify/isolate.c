// SPDX-License-Identifier: GPL-2.0
/* A function in a child process, with a watchdog (see isolate.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "isolate.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void child(int fd, void (*fn)(void *, void *), void *arg, void *out,
		  size_t len)
{
	const char *p = out;
	ssize_t w;

	fn(arg, out);
	while (len) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		p += w;
		len -= w;
	}
	/* No atexit handlers, no stdio flush of the parent's buffers. */
	_exit(0);
}

/* Read @len bytes from @fd before @deadline; returns bytes read, -1 on
 * timeout. */
static ssize_t read_until(int fd, char *buf, size_t len, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	long long left;
	ssize_t r;
	int n;

	while (got < len) {
		left = deadline - now_ms();
		if (left <= 0)
			return -1;
		n = poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return got;
		if (!n)
			continue;
		r = read(fd, buf + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;		/* the child is gone */
		got += r;
	}
	return got;
}

enum isolate_status isolate_run(void (*fn)(void *arg, void *out), void *arg,
				void *out, size_t len, unsigned int timeout_s,
				char *why, size_t whylen)
{
	enum isolate_status st;
	int fds[2], status;
	ssize_t got;
	pid_t pid;

	why[0] = '\0';
	if (pipe(fds)) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return ISOLATE_FAILED;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return ISOLATE_FAILED;
	}
	if (!pid) {
		close(fds[0]);
		child(fds[1], fn, arg, out, len);
	}
	close(fds[1]);
	got = read_until(fds[0], out, len, now_ms() + timeout_s * 1000LL);
	close(fds[0]);
	if (got < 0) {
		kill(pid, SIGKILL);
		st = ISOLATE_TIMEOUT;
		snprintf(why, whylen, "no result after %u s: killed",
			 timeout_s);
	} else {
		st = (size_t)got == len ? ISOLATE_OK : ISOLATE_DIED;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (st == ISOLATE_DIED) {
		if (WIFSIGNALED(status))
			snprintf(why, whylen, "the test process died of signal %d (%s)",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			snprintf(why, whylen, "the test process exited %d without a result",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	return st;
}
