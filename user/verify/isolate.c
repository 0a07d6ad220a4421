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

/* The child's result and its pipe, for isolate_result_ready(). */
static struct {
	int fd;
	const void *out;
	size_t len;
	bool sent;
} result;

static unsigned int killed_after_result, left_behind;

void isolate_result_ready(void)
{
	const char *p = result.out;
	size_t len = result.len;
	ssize_t w;

	if (result.sent || !p)
		return;
	while (len) {
		w = write(result.fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		p += w;
		len -= w;
	}
	close(result.fd);
	result.sent = true;
}

static void child(int fd, void (*fn)(void *, void *), void *arg, void *out,
		  size_t len)
{
	result.fd = fd;
	result.out = out;
	result.len = len;
	fn(arg, out);
	isolate_result_ready();
	/* No atexit handlers, no stdio flush of the parent's buffers. */
	_exit(0);
}

bool isolate_reap(pid_t pid, unsigned int wait_s, int *status)
{
	long long end;
	int round;
	pid_t got;

	for (round = 0; round < 2; round++) {
		end = now_ms() + wait_s * 1000LL;
		do {
			got = waitpid(pid, status, WNOHANG);
			if (got == pid || (got < 0 && errno != EINTR))
				return got == pid;
			if (!got)
				usleep(10000);
		} while (now_ms() < end);
		if (!round)
			kill(pid, SIGKILL);
	}
	return false;
}

unsigned int isolate_killed_after_result(void)
{
	return killed_after_result;
}

unsigned int isolate_left_behind(void)
{
	return left_behind;
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
	/*
	 * A result in hand stands whatever the exit (a crash or a hang in
	 * the driver's teardown); a child that no SIGKILL ends is left.
	 */
	status = 0;
	if (!isolate_reap(pid, ISOLATE_EXIT_WAIT_S, &status)) {
		left_behind++;
		if (st == ISOLATE_OK)
			killed_after_result++;
		else
			snprintf(why + strlen(why), whylen - strlen(why),
				 "%sthe test process stayed after SIGKILL (stuck in the driver): left behind",
				 why[0] ? "; " : "");
		return st == ISOLATE_DIED ? ISOLATE_TIMEOUT : st;
	}
	if (st == ISOLATE_OK && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGKILL)
		killed_after_result++;
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
