// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for verify's tests: SIGKILL does nothing, as for a
 * process in uninterruptible sleep inside the NVIDIA driver, which no
 * signal ends.  Each pid it spared is appended to $P2PMAP_NOKILL_LOG, for
 * the test to end them; every other signal is the real kill().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

int kill(pid_t pid, int sig)
{
	static int (*real)(pid_t, int);
	const char *log = getenv("P2PMAP_NOKILL_LOG");
	FILE *f;

	if (sig == SIGKILL && pid > 0) {
		if (log && (f = fopen(log, "a"))) {
			fprintf(f, "%d\n", (int)pid);
			fclose(f);
		}
		return 0;
	}
	if (!real)
		real = (int (*)(pid_t, int))dlsym(RTLD_NEXT, "kill");
	return real(pid, sig);
}
