// SPDX-License-Identifier: GPL-2.0
/*
 * NCCL_DEBUG's lines as NVIDIA/nccl v2.30.7-1 src/debug.cc writes them:
 * "HOST:PID:TID [CUDADEV] NCCL INFO MSG" at INFO, and at WARN (or INFO)
 * "HOST:PID:TID [CUDADEV] FILE:LINE NCCL WARN MSG"; to stdout, or to
 * NCCL_DEBUG_FILE (its %h and %p: host and pid).  p2pmap's nccl-check
 * reads them (user/verify/nccl_log.h).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nccl_stub.h"

enum { L_NONE, L_VERSION, L_WARN, L_INFO };

static int level(void)
{
	const char *d = getenv("NCCL_DEBUG");

	if (!d)
		return L_NONE;
	if (!strcasecmp(d, "VERSION"))
		return L_VERSION;
	if (!strcasecmp(d, "WARN"))
		return L_WARN;
	if (!strcasecmp(d, "INFO") || !strcasecmp(d, "TRACE"))
		return L_INFO;
	return L_NONE;
}

/* NCCL_DEBUG_FILE with %h and %p expanded, else stdout. */
static FILE *out(void)
{
	static FILE *f;
	const char *name = getenv("NCCL_DEBUG_FILE");
	char path[512], host[64];
	size_t n = 0;

	if (f)
		return f;
	if (!name || !*name)
		return f = stdout;
	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	for (; *name && n < sizeof(path) - 80; name++) {
		if (name[0] == '%' && name[1] == 'h')
			n += snprintf(path + n, sizeof(path) - n, "%s", host), name++;
		else if (name[0] == '%' && name[1] == 'p')
			n += snprintf(path + n, sizeof(path) - n, "%d", getpid()), name++;
		else
			path[n++] = *name;
	}
	path[n] = '\0';
	f = fopen(path, "a");
	if (!f)
		f = stdout;
	return f;
}

/* One line: INFO when @file is NULL, else WARN from @file:@line_no. */
static void print(int dev, const char *file, int line_no, const char *msg)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	char host[64], *dot;
	FILE *f;

	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	dot = strchr(host, '.');	/* NCCL prints the short name */
	if (dot)
		*dot = '\0';
	pthread_mutex_lock(&lock);
	f = out();
	if (file)
		fprintf(f, "%s:%d:%d [%d] %s:%d NCCL WARN %s\n", host,
			getpid(), (int)syscall(SYS_gettid), dev, file,
			line_no, msg);
	else
		fprintf(f, "%s:%d:%d [%d] NCCL INFO %s\n", host, getpid(),
			(int)syscall(SYS_gettid), dev, msg);
	fflush(f);
	pthread_mutex_unlock(&lock);
}

void stub_info(int dev, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (level() < L_INFO)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print(dev, NULL, 0, msg);
}

/* Kept for ncclGetLastError too, as NCCL keeps its last WARN. */
void stub_warn(struct ncclComm *c, const char *file, int line_no,
	       const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c)
		snprintf(c->last_error, sizeof(c->last_error), "%s", msg);
	if (level() >= L_WARN)
		print(c ? c->dev : 0, file, line_no, msg);
}

/* An NCCL_* parameter: its value, or @def when unset or not a number. */
int stub_env_int(const char *name, int def)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return def;
	n = strtol(v, &end, 0);
	return *end ? def : (int)n;
}
